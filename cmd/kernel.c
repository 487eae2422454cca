/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench kernel build: a guest kernel for `mgbench vm` from a source tree or a Debian source
 * package, a patch series and mgbench's config fragment, cached by what went into it.
 */
#include "config.h"
#include "mgbench.h"
#include "kbuild.h"
#include "util.h"
#include "vm.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_SOURCE = 256, OPT_PATCHES, OPT_CONFIG };

static const struct option opts[] = {
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "patches", required_argument, NULL, OPT_PATCHES },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "jobs", required_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mgbench kernel build --source SRC [--patches P]... [options]\n\n"
		"Build a guest kernel for `mgbench vm --kernel DIR` (tinyconfig plus\n"
		"mgbench's fragment, everything built in), cached by source, patches\n"
		"and config.  Prints the build directory.\n\n"
		"  --source SRC     a kernel tree (never modified), or\n"
		"                   %s (linux-source-*,\n"
		"                   fetched into the cache)\n"
		"  --patches P      a patch file, or a directory of *.patch/*.diff/*.mbox\n"
		"                   applied in name order; repeat to add more, in order\n"
		"  --config FRAG    more config options (CONFIG_X=y lines), checked too\n"
		"  -j, --jobs N     make jobs (default: the CPU count)\n"
		"  -o, --output DIR copy the build here (default: its cache directory)\n"
		"  -q, --quiet      errors only\n",
		mgb_debian_kernel_names(true));
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
	while ((c = getopt_long(argc, argv, ":j:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOURCE: b.source = optarg; break;
		case OPT_PATCHES: patches[n++] = optarg; break;
		case OPT_CONFIG: b.config = optarg; break;
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
		case 'h': usage(stdout); free(patches); return MGB_EXIT_OK;
		case ':':
			free(patches);
			return mgb_usage_error("kernel build", "option %s needs a value", argv[optind - 1]);
		default:
			free(patches);
			return mgb_usage_error("kernel build", "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		free(patches);
		return mgb_usage_error("kernel build", "unexpected argument '%s'", argv[optind]);
	}
	if (!b.source) {
		free(patches);
		return mgb_usage_error("kernel build", "--source is required (a kernel tree, %s)",
				       mgb_debian_kernel_names(true));
	}
	b.patches = patches;
	if (mgb_kbuild_run(&b, err)) {
		fprintf(stderr, "mgbench kernel build: %s\n", err);
		rc = MGB_EXIT_FAIL; /* dispatch makes a stop 128 + the signal */
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

int cmd_kernel(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? MGB_EXIT_USAGE : MGB_EXIT_OK;
	}
	if (!strcmp(argv[1], "build"))
		return cmd_kernel_build(argc - 1, argv + 1);
	return mgb_usage_error("kernel", "unknown subcommand '%s' (build)", argv[1]);
}
