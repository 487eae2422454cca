/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench kernel build: a guest kernel for `mgbench vm` from a source tree or a Debian source
 * package, a patch series and mgbench's config fragment, cached by what went into it.
 */
#include "config.h"
#include "mgbench.h"
#include "cmdline.h"
#include "kbuild.h"
#include "util.h"
#include "vm.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_SOURCE = 256, OPT_PATCHES, OPT_CONFIG, OPT_CONFIG_ONLY, OPT_FUZZ };

static const struct mgb_cmd_option build_options[] = {
	{ "source", 0, "SRC", "a kernel tree (never modified), or a Debian\nkernel (linux-source-*, fetched into the cache)",
	  OPT_SOURCE },
	{ "patches", 0, "P",
	  "a patch file, or a directory of *.patch/*.diff/*.mbox\napplied in name order; repeat to add more, in order",
	  OPT_PATCHES },
	{ "config", 0, "FRAG", "more config options (CONFIG_X=y lines), checked too;\n'debian': Debian's config for the version, reduced,\nin place of tinyconfig (both may be given)",
	  OPT_CONFIG },
	{ "config-only", 0, NULL, "make and check the config, print it, build nothing", OPT_CONFIG_ONLY },
	{ "fuzz", 0, "N", "let a hunk's context miss N lines (default 0; the\nmanifest records each hunk moved)", OPT_FUZZ },
	{ "jobs", 'j', "N", "make jobs (default: the CPU count)", 'j' },
	{ "output", 'o', "DIR", "copy the build here (default: its cache directory)", 'o' },
	{ "quiet", 'q', NULL, "errors only", 'q' },
	{ 0 },
};

static const struct mgb_cmdline build_cmdline = { .verb = "kernel build", .opts = build_options };

static void build_usage(FILE *f)
{
	fprintf(f, "usage: mgbench kernel build --source SRC [--patches P]... [options]\n\n"
		   "Build a guest kernel for `mgbench vm --kernel DIR` (tinyconfig, or\n"
		   "Debian's config with --config debian, plus mgbench's fragment,\n"
		   "everything built in), cached by source, patches and config.  Prints\n"
		   "the build directory.\n\n");
	mgb_cmd_options_print(f, build_options);
	fprintf(f, "\nDebian kernels: %s.\n", mgb_debian_kernel_names(true));
}

static int cmd_kernel_build(int argc, char **argv)
{
	struct mgb_kbuild b = { 0 };
	const char **patches = calloc((size_t)argc + 1, sizeof(*patches));
	char err[MGB_ERR_LEN] = "";
	int c, n = 0, rc;
	uint64_t j;

	if (!patches)
		return MGB_EXIT_FAIL;
	optind = 1;
	while ((c = mgb_getopt(&build_cmdline, argc, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case OPT_SOURCE: b.source = optarg; break;
		case OPT_PATCHES: patches[n++] = optarg; break;
		case OPT_CONFIG:
			if (mgb_kbuild_config_arg(&b, optarg, err)) {
				free(patches);
				return mgb_usage_error("kernel build", "%s", err);
			}
			break;
		case OPT_CONFIG_ONLY: b.config_only = true; break;
		case OPT_FUZZ:
			if (mgb_parse_u64(optarg, &j) || j > 3) {
				free(patches);
				return mgb_usage_error("kernel build", "--fuzz wants 0 to 3 lines, not '%s'", optarg);
			}
			b.fuzz = (unsigned)j;
			break;
		case 'j':
			if (mgb_parse_u64(optarg, &j) || j < 1 || j > 1024) {
				free(patches);
				return mgb_usage_error("kernel build", "-j wants a number from 1 to 1024, not '%s'",
						       optarg);
			}
			b.jobs = (unsigned)j;
			break;
		case 'o': b.output = optarg; break;
		case 'q': b.quiet = true; break;
		case MGB_GETOPT_HELP: build_usage(stdout); free(patches); return MGB_EXIT_OK;
		default: free(patches); return MGB_EXIT_USAGE;
		}
	}
	if (mgb_cmd_no_operands(&build_cmdline, argc, argv)) {
		free(patches);
		return MGB_EXIT_USAGE;
	}
	if (!b.source) {
		free(patches);
		return mgb_usage_error("kernel build", "--source is required (a kernel tree, %s)",
				       mgb_debian_kernel_names(true));
	}
	if (b.config_only && b.output) {
		free(patches);
		return mgb_usage_error("kernel build", "--config-only builds nothing to put in -o %s", b.output);
	}
	b.patches = patches;
	if (mgb_kbuild_run(&b, err)) {
		fprintf(stderr, "mgbench kernel build: %s\n", err);
		rc = MGB_EXIT_FAIL; /* dispatch makes a stop 128 + the signal */
	} else if (b.config_only) {
		fputs(b.config_text, stdout);
		rc = fflush(stdout) ? MGB_EXIT_FAIL : MGB_EXIT_OK;
	} else {
		if (!b.quiet)
			fprintf(stderr, "mgbench kernel build: %s %s (built in %.0f s)\n", b.release,
				b.cached ? "from the cache" : "built", b.build_s);
		printf("%s\n", b.dir);
		rc = MGB_EXIT_OK;
	}
	mgb_kbuild_free(&b);
	free(patches);
	return rc;
}

/* kernel's own commands, as the top-level table in mgbench.c (argv[0] is the subcommand). */
static const struct {
	const char *name;
	mgb_cmd_fn fn;
	const char *summary;
} subcommands[] = {
	{ "build", cmd_kernel_build, "build a guest kernel from a source and patches, cached" },
	{ "bisect", cmd_kernel_bisect, "find the patch of a series that changes a metric" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mgbench kernel <subcommand> [options]\n\nsubcommands:\n");
	for (size_t i = 0; i < MGB_ARRAY_SIZE(subcommands); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(f, "\n'mgbench kernel <subcommand> --help' for its options.\n");
}

int cmd_kernel(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? MGB_EXIT_USAGE : MGB_EXIT_OK;
	}
	for (size_t i = 0; i < MGB_ARRAY_SIZE(subcommands); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc - 1, argv + 1);
	return mgb_usage_error("kernel", "unknown subcommand '%s' (see 'mgbench kernel --help')", argv[1]);
}
