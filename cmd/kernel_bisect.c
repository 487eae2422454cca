/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench kernel bisect: which patch of a series changes a metric.  Builds prefixes of the
 * series (through the build cache and ccache), runs one workload in each under `mgbench vm`,
 * and judges each prefix against the known-good one with compare's test, per filesystem, by
 * binary search, as git bisect does: it assumes that once a patch changes the metric, every
 * later prefix keeps the change.
 */
#include "config.h"
#include "mgbench.h"
#include "cmdline.h"
#include "compare.h"
#include "kbuild.h"
#include "run_args.h"
#include "stop.h"
#include "util.h"
#include "vm.h"
#include "workload.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OPT_SOURCE = 256, OPT_PATCHES, OPT_CONFIG, OPT_FUZZ, OPT_METRIC, OPT_GOOD, OPT_BAD, OPT_CPUS, OPT_MEM, OPT_TIMEOUT };

static const struct mgb_cmd_option options[] = {
	{ "source", 0, "SRC", "a kernel tree or a Debian kernel, as kernel build", OPT_SOURCE },
	{ "patches", 0, "P", "the series, as kernel build: a file or a directory,\nrepeat to add more, in order",
	  OPT_PATCHES },
	{ "config", 0, "FRAG", "more config options, or 'debian', as kernel build", OPT_CONFIG },
	{ "fuzz", 0, "N", "patch's fuzz, as kernel build (default 0)", OPT_FUZZ },
	{ "metric", 0, "M", "the metric judged (a column header or key, as\ncompare's --metrics)", OPT_METRIC },
	{ "good", 0, "N|REV", "the prefix known not to change it: the first N\npatches (default 0, the source alone);\n"
				"over a git source, a commit", OPT_GOOD },
	{ "bad", 0, "REV", "over a git source: the commit that changed it\n(default HEAD)", OPT_BAD },
	{ "cpus", 0, "N", "the guests' virtual CPUs (vm's default if not given)", OPT_CPUS },
	{ "mem", 0, "MIB", "the guests' memory (vm's default if not given)", OPT_MEM },
	{ "timeout", 0, "S", "give up on a guest after S seconds (vm's default)", OPT_TIMEOUT },
	{ "jobs", 'j', "N", "make jobs (default: the CPU count)", 'j' },
	{ "output", 'o', "DIR", "keep each prefix's document here, a new directory\n(default mgbench-bisect-DATE)",
	  'o' },
	{ "quiet", 'q', NULL, "the result only", 'q' },
	{ 0 },
};

static const struct mgb_cmdline cmdline = {
	.verb = "kernel bisect", .opts = options, .stop_at_operand = true,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mgbench kernel bisect --source SRC --patches P... --metric M [options]\n"
		   "                             -- run WORKLOAD [run options]\n"
		   "       mgbench kernel bisect --source GITDIR --good REV [--bad REV] --metric M\n"
		   "                             [options] -- run WORKLOAD [run options]\n\n"
		   "Find the first patch of a series that changes a metric, per filesystem:\n"
		   "build prefixes of the series (binary search; cached builds and ccache\n"
		   "make a prefix after the first cost minutes), run the workload in each\n"
		   "under `mgbench vm`, and judge each against the good prefix with\n"
		   "compare's test.  Prints the prefixes tried and the first patch.\n"
		   "Over a git work tree, the commits from --good to --bad on the\n"
		   "first-parent line stand for the prefixes, checked out in a worktree\n"
		   "of mgbench's own (yours is left as it is).\n\n");
	mgb_cmd_options_print(f, options);
	fprintf(f, "\nDebian kernels: %s.  See mgbench-kernel(1).\n", mgb_debian_kernel_names(true));
}

static void print_value(double v)
{
	if (v == (double)(long long)v && fabs(v) < 1e12)
		printf(" %12lld", (long long)v);
	else
		printf(" %12.4g", v);
}

/* The prefixes tried, each with its metric per filesystem, then the answer per filesystem. */
static void report(struct mgb_bisect *b, const char *const *fs, unsigned nfs, const struct mgb_bisect_fs_result *res)
{
	double builds = 0, guests = 0;
	size_t nbuilt = 0, ntried = 0;

	if (b->use_git)
		printf("kernel bisect of %s on %s, %zu commits after %.12s (first parent), up to %.12s\n", b->metric,
		       b->git.repo, b->n, b->git.commits[0], b->git.bad);
	else
		printf("kernel bisect of %s on %s, %zu patches, good prefix %zu\n", b->metric, b->source, b->n, b->good);
	printf("(each prefix's value as compare gives it: a proportion is events per trial)\n\n");
	printf("%-6s %-40.40s", "prefix", b->use_git ? "commit" : "last patch");
	for (unsigned f = 0; f < nfs; f++)
		printf(" %12.12s", fs[f]);
	printf(" %8s %8s\n", "build s", "guest s");
	for (size_t k = 0; k <= b->n; k++) {
		if (!b->docs[k])
			continue;
		printf("%-6zu %-40.40s", k, mgb_bisect_label(b, k));
		for (unsigned f = 0; f < nfs; f++) {
			struct mgb_bisect_judgement jd;
			char e[MGB_ERR_LEN];

			/* both documents are there: judging builds nothing (the good one against itself
			 * gives its own value) */
			if (mgb_bisect_judge(b, k, fs[f], &jd, e) && !jd.verdict)
				printf(" %12s", "-");
			else
				print_value(jd.value);
		}
		if (b->built[k])
			printf(" %8.0f", b->build_s[k]);
		else
			printf(" %8s", "cached");
		printf(" %8.0f\n", b->guest_s[k]);
		builds += b->build_s[k];
		guests += b->guest_s[k];
		nbuilt += b->built[k];
		ntried++;
	}
	printf("\n%zu prefixes tried, %zu built (%.0f s), %zu from the cache; guests %.0f s\n\n", ntried, nbuilt,
	       builds, ntried - nbuilt, guests);
	for (unsigned f = 0; f < nfs; f++) {
		const struct mgb_bisect_fs_result *r = &res[f];

		if (r->err[0])
			printf("%s: not decided: %s\n", r->fs, r->err);
		else if (!r->first)
			printf("%s: no prefix up to the whole series changes %s\n", r->fs, b->metric);
		else if (r->at_first.p < 1e-300) /* below a double's range: compare prints it so too */
			printf("%s: first changed by %s %zu of %zu, %s (%s %s, p<1e-300)\n", r->fs,
			       b->use_git ? "commit" : "patch", r->first, b->n, mgb_bisect_label(b, r->first),
			       r->at_first.verdict, b->metric);
		else if (isnan(r->at_first.p)) /* decided by the gap of 0.5, with no p */
			printf("%s: first changed by %s %zu of %zu, %s (%s %s, by the gap)\n", r->fs,
			       b->use_git ? "commit" : "patch", r->first, b->n, mgb_bisect_label(b, r->first),
			       r->at_first.verdict, b->metric);
		else
			printf("%s: first changed by %s %zu of %zu, %s (%s %s, p=%.2g)\n", r->fs,
			       b->use_git ? "commit" : "patch", r->first, b->n, mgb_bisect_label(b, r->first),
			       r->at_first.verdict, b->metric, r->at_first.p);
	}
}

static int make_outdir(struct mgb_bisect *b, char *buf, size_t len, char *err)
{
	if (!b->outdir) {
		mgb_time_name(buf, len, "mgbench-bisect", false);
		b->outdir = buf;
	}
	if (mkdir(b->outdir, 0755))
		return mgb_err(err, "-o %.200s: %s (bisect writes a new directory)", b->outdir, strerror(errno));
	b->outdir_made = true;
	return 0;
}

/* --metric is checked before anything is built: judging would find a typo only after building
 * the good prefix and the whole series and booting both. */
static int check_metric(const char *metric, const struct mgb_plan *plan)
{
	char cols[400];

	if (mgb_compare_column_known(plan->workloads, plan->nworkloads, metric, cols, sizeof(cols)))
		return 0;
	return mgb_usage_error("kernel bisect", "--metric '%.60s' is not a column of %s (columns: %s)", metric,
			       plan->nworkloads == 1 ? plan->workloads[0]->name : "the run's workloads",
			       cols[0] ? cols : "none");
}

static int parse(struct mgb_bisect *b, int argc, char **argv, int *n_patches)
{
	uint64_t v;
	int c;

	optind = 1;
	while ((c = mgb_getopt(&cmdline, argc, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case OPT_SOURCE: b->source = optarg; break;
		case OPT_PATCHES: b->patch_args[(*n_patches)++] = optarg; break;
		case OPT_CONFIG: {
			struct mgb_kbuild t = { .config = b->config, .config_debian = b->config_debian };
			char err[MGB_ERR_LEN];

			if (mgb_kbuild_config_arg(&t, optarg, err))
				return mgb_usage_error("kernel bisect", "%s", err);
			b->config = t.config;
			b->config_debian = t.config_debian;
			break;
		}
		case OPT_FUZZ:
			if (mgb_parse_u64(optarg, &v) || v > 3)
				return mgb_usage_error("kernel bisect", "--fuzz wants 0 to 3 lines, not '%s'", optarg);
			b->fuzz = (unsigned)v;
			break;
		case OPT_METRIC: b->metric = optarg; break;
		case OPT_GOOD: /* a number of patches, or a git revision */
			if (mgb_parse_u64(optarg, &v))
				b->good_rev = optarg;
			else if (v > 10000)
				return mgb_usage_error("kernel bisect", "--good wants a number of patches, not '%s'", optarg);
			else
				b->good = (size_t)v, b->good_rev = NULL;
			break;
		case OPT_BAD: b->bad_rev = optarg; break;
		/* vm checks them again; a typo must not cost a kernel build first */
		case OPT_CPUS:
		case OPT_MEM:
		case OPT_TIMEOUT:
			if (mgb_parse_u64(optarg, &v) || v < 1 || v > 1000000)
				return mgb_usage_error("kernel bisect", "--%s wants a positive number, not '%s'",
						       c == OPT_CPUS ? "cpus" : c == OPT_MEM ? "mem" : "timeout", optarg);
			*(c == OPT_CPUS ? &b->cpus : c == OPT_MEM ? &b->mem : &b->timeout) = optarg;
			break;
		case 'j':
			if (mgb_parse_u64(optarg, &v) || v < 1 || v > 1024)
				return mgb_usage_error("kernel bisect", "-j wants a number from 1 to 1024, not '%s'", optarg);
			b->jobs = (unsigned)v;
			break;
		case 'o': b->outdir = optarg; break;
		case 'q': b->quiet = true; break;
		case MGB_GETOPT_HELP: usage(stdout); return -1;
		default: return MGB_EXIT_USAGE;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	/* with --patches, --good counts patches: a revision (or a negative count) is refused as
	 * such, not as if --bad had been given */
	if (*n_patches && b->good_rev)
		return mgb_usage_error("kernel bisect", "--good '%.60s': with --patches, --good is how many of the "
				       "series' first patches are known good (0 or more); a commit is for a git "
				       "--source without --patches", b->good_rev);
	if (*n_patches && b->bad_rev)
		return mgb_usage_error("kernel bisect", "--bad names a commit of a git --source, which takes no "
				       "--patches (a series is judged up to its last patch)");
	b->use_git = !*n_patches && b->good_rev;
	if (!b->source || !(*n_patches || b->use_git) || !b->metric)
		return mgb_usage_error("kernel bisect", "--source, --patches (or, over a git source, --good REV) and "
				       "--metric are required");
	if (optind >= argc || strcmp(argv[optind], "run") || optind + 1 >= argc)
		return mgb_usage_error("kernel bisect", "the guest's command is missing: ... -- run WORKLOAD [options]");
	b->run_argv = argv + optind;
	b->run_argc = argc - optind;
	return 0;
}

/* The guest's command is checked here, before anything is built: 0, a usage error, or -1 after
 * run's --help. */
static int check_guest_run(const struct mgb_bisect *b)
{
	struct mgb_run_args ra;
	int rc = mgb_run_args_check(b->run_argc, b->run_argv, &ra);

	if (rc == 0 && (ra.output || ra.json))
		rc = mgb_usage_error("kernel bisect", "the run's document is bisect's own: no -o or --json");
	if (rc == 0)
		rc = check_metric(b->metric, &ra.plan);
	mgb_run_args_free(&ra);
	return rc;
}

int cmd_kernel_bisect(int argc, char **argv)
{
	struct mgb_bisect b = { 0 };
	char err[MGB_ERR_LEN] = "", outbuf[64];
	const char **fs = NULL;
	struct mgb_bisect_fs_result *res = NULL;
	unsigned nfs = 0;
	int n_patches = 0, rc = MGB_EXIT_FAIL, c;

	if (!(b.patch_args = calloc((size_t)argc + 1, sizeof(*b.patch_args))))
		return MGB_EXIT_FAIL;
	if ((c = parse(&b, argc, argv, &n_patches)) || (c = check_guest_run(&b))) {
		free(b.patch_args);
		return c < 0 ? MGB_EXIT_OK : c;
	}
	if (mgb_bisect_open(&b, err))
		goto out;
	if (b.good >= b.n) {
		rc = mgb_usage_error("kernel bisect", "--good %zu leaves nothing to bisect in a series of %zu", b.good,
				     b.n);
		goto out;
	}
	if (make_outdir(&b, outbuf, sizeof(outbuf), err))
		goto out;
	c = mgb_bisect_run(&b, &fs, &nfs, &res, err);
	if (c < 0)
		goto out;
	rc = c ? MGB_EXIT_FAIL : MGB_EXIT_OK;
	if (!mgb_stop_requested()) {
		report(&b, fs, nfs, res);
		if (!b.quiet)
			fprintf(stderr, "mgbench kernel bisect: documents in %s\n", b.outdir);
	}
out:
	if (err[0])
		fprintf(stderr, "mgbench kernel bisect: %s\n", err);
	/* a failed or interrupted bisect leaves its documents, but no empty directory: rmdir removes
	 * only an empty one */
	if (b.outdir_made && (rc != MGB_EXIT_OK || mgb_stop_requested()))
		rmdir(b.outdir);
	mgb_bisect_free(&b);
	free(fs);
	free(res);
	free(b.patch_args);
	return rc;
}
