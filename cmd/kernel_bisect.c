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
#include "docs.h"
#include "kbuild.h"
#include "kbuild.h"
#include "proc.h"
#include "stop.h"
#include "util.h"
#include "vm.h"
#include "workload.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

struct bisect {
	/* the request */
	const char **patch_args;
	const char *source, *config, *metric, *outdir, *cpus, *mem, *timeout;
	bool config_debian; /* --config debian */
	const char *good_rev, *bad_rev; /* a git source's --good and --bad */
	bool use_git;
	struct mgb_bisect_git git;
	unsigned jobs, fuzz;
	bool quiet;
	char **run_argv; /* "run", WORKLOAD, ... */
	int run_argc;
	/* the series and what each prefix gave: docs[k] is the document of the first k patches */
	char **files;
	size_t n;
	size_t good;
	json_t **docs;
	char **kdirs;
	double *build_s; /* this run's wall time building prefix k (0 when it came from the cache) */
	double *guest_s; /* this run's wall time of its guest */
	bool *built;     /* built by this run, not found in the cache */
	char **failed;   /* why prefix k could not be built or run: not tried again per filesystem */
	bool outdir_made; /* removed again if a failed or stopped bisect left it empty */
};

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* What prefix k is, for the table: its last patch, or its commit. */
static const char *label(struct bisect *b, size_t k)
{
	if (b->use_git)
		return mgb_bisect_git_label(&b->git, k);
	return k ? base_name(b->files[k - 1]) : "(the source alone)";
}

/* Build the first k patches (or find them in the cache): the build directory in b->kdirs[k]. */
static int build_prefix(struct bisect *b, size_t k, char *err)
{
	struct mgb_kbuild kb = { .source = b->source, .config = b->config, .config_debian = b->config_debian, .jobs = b->jobs, .quiet = b->quiet,
				 .fuzz = b->fuzz };
	const char **patches = calloc(k + 1, sizeof(*patches));
	int rc;

	if (!patches)
		return mgb_err(err, "out of memory");
	for (size_t i = 0; !b->use_git && i < k; i++)
		patches[i] = b->files[i];
	kb.patches = patches;
	if (b->use_git) {
		kb.source = b->git.worktree;
		if (mgb_bisect_git_checkout(&b->git, k, err)) {
			free(patches);
			return -1;
		}
	}
	if (!b->quiet)
		fprintf(stderr, "mgbench kernel bisect: prefix %zu: building %s\n", k, label(b, k));
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);

	rc = mgb_kbuild_run(&kb, err);
	if (rc == 0) {
		b->kdirs[k] = kb.dir;
		b->built[k] = !kb.cached;
		b->build_s[k] = kb.cached ? 0 : (double)(mgb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
		kb.dir = NULL;
		if (!b->quiet)
			fprintf(stderr, "mgbench kernel bisect: prefix %zu: %s\n", k,
				kb.cached ? "from the cache" : "built");
	}
	mgb_kbuild_free(&kb);
	free(patches);
	return rc;
}

/* `mgbench vm --kernel DIR -o DOC -- run ...`, this binary again, stopped with us. */
static int run_guest(struct bisect *b, size_t k, const char *doc, char *err)
{
	const char **argv = calloc((size_t)b->run_argc + 20, sizeof(*argv));
	struct mgb_proc_spec spec = { .out = MGB_PROC_NULL, .err = b->quiet ? MGB_PROC_NULL : MGB_PROC_INHERIT,
				      .death_signal = SIGTERM };
	struct mgb_proc p;
	int n = 0, status = 0, rc;

	if (!argv)
		return mgb_err(err, "out of memory");
	/* this program, even if a newer one has replaced its file during a long bisect */
	argv[n++] = "/proc/self/exe";
	argv[n++] = "vm";
	argv[n++] = "--kernel";
	argv[n++] = b->kdirs[k];
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = doc;
	if (b->cpus)
		argv[n++] = "--cpus", argv[n++] = b->cpus;
	if (b->mem)
		argv[n++] = "--mem", argv[n++] = b->mem;
	if (b->timeout)
		argv[n++] = "--timeout", argv[n++] = b->timeout;
	argv[n++] = "--";
	for (int i = 0; i < b->run_argc; i++)
		argv[n++] = b->run_argv[i];
	spec.argv = argv;
	if (!b->quiet)
		fprintf(stderr, "mgbench kernel bisect: prefix %zu: running %s in the guest\n", k, b->run_argv[1]);
	rc = mgb_proc_start(&spec, &p, err);
	free(argv);
	if (rc)
		return -1;
	for (;;) {
		int done = mgb_proc_wait_until(p.pid, &status, mgb_clock_ns(CLOCK_MONOTONIC) + 200 * 1000 * 1000);

		if (done != 0)
			break;
		if (mgb_stop_requested()) {
			mgb_proc_stop(p.pid, &status, 10 * MGB_NSEC_PER_SEC, true);
			return mgb_err(err, "interrupted by signal %d", (int)mgb_stop_signal);
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return mgb_err(err, "prefix %zu: the guest's run failed (mgbench vm exit %d); its document: %.150s", k,
			       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), doc);
	return 0;
}

/* The document of prefix k, built and run the first time it is asked for. */
static json_t *measure(struct bisect *b, size_t k, char *err)
{
	char doc[PATH_MAX];
	char *paths[1];

	if (b->docs[k])
		return b->docs[k];
	/* one failure per prefix: the next filesystem would build (or boot) it again to fail again */
	if (b->failed[k]) {
		snprintf(err, MGB_ERR_LEN, "%s", b->failed[k]);
		return NULL;
	}
	snprintf(doc, sizeof(doc), "%s/prefix-%02zu.json", b->outdir, k);
	if (build_prefix(b, k, err)) {
		b->failed[k] = mgb_stop_requested() ? NULL : strdup(err);
		return NULL;
	}
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);

	if (run_guest(b, k, doc, err)) {
		b->failed[k] = mgb_stop_requested() ? NULL : strdup(err);
		return NULL;
	}
	b->guest_s[k] = (double)(mgb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	paths[0] = doc;
	if (mgb_docs_load("kernel bisect", paths, 1, 1, &b->docs[k])) {
		mgb_err(err, "prefix %zu: cannot read its document %.150s", k, doc);
		return NULL;
	}
	return b->docs[k];
}

/* What compare says of prefix k against the good prefix on fs. */
struct judgement {
	const char *verdict; /* "better", "worse", "no change", or why there is none */
	double good_value, value, p;
	bool changed, judged;
};

static json_t *cell_metric(json_t *cmp, const char *fs, unsigned *cells)
{
	json_t *cell, *m, *found = NULL;
	size_t i, j;

	*cells = 0;
	json_array_foreach(json_object_get(cmp, "cells"), i, cell) {
		if (strcmp(json_string_value(json_array_get(json_object_get(cell, "fs"), 0)) ?: "", fs))
			continue;
		json_array_foreach(json_object_get(cell, "metrics"), j, m)
			if (json_is_array(json_object_get(m, "against_base"))) {
				found = m;
				(*cells)++;
			}
	}
	return found;
}

static int judge(struct bisect *b, size_t k, const char *fs, struct judgement *jd, char *err)
{
	json_t *docs[2], *cmp, *m, *ab, *vals;
	const char *paths[2] = { "good", "prefix" }, *metrics[1] = { b->metric };
	struct mgb_compare_opts o = { .alpha = 0.05, .metrics = metrics, .nmetrics = 1 };
	unsigned cells;

	memset(jd, 0, sizeof(*jd));
	if (!(docs[0] = measure(b, b->good, err)) || !(docs[1] = measure(b, k, err)))
		return -1;
	cmp = mgb_compare(docs, paths, 2, &o);
	m = cell_metric(cmp, fs, &cells);
	if (!m || cells != 1) {
		json_decref(cmp);
		return cells ? mgb_err(err, "the run makes %u cells on %s with %s: bisect judges one per filesystem "
				       "(give one backend and one value of each parameter)", cells, fs, b->metric)
			     : mgb_err(err, "no %s cell has the metric '%s' (see the table of `mgbench report` on "
				       "a document)", fs, b->metric);
	}
	ab = json_array_get(json_object_get(m, "against_base"), 1);
	vals = json_object_get(m, "values");
	jd->verdict = json_string_value(json_object_get(ab, "verdict")) ?: "missing";
	jd->good_value = json_number_value(json_object_get(json_array_get(vals, 0), "value"));
	jd->value = json_number_value(json_object_get(json_array_get(vals, 1), "value"));
	jd->p = json_is_number(json_object_get(ab, "p_adjusted")) ? json_number_value(json_object_get(ab, "p_adjusted"))
								   : NAN;
	jd->changed = !strcmp(jd->verdict, "better") || !strcmp(jd->verdict, "worse");
	jd->judged = jd->changed || !strcmp(jd->verdict, "no change");
	/* One document a side of a tick-driven proportion (a coarse filesystem's distinct ratio):
	 * compare decides only a gap of 0.5 and gives no verdict below it.  Bisect looks for the
	 * prefix whose value moved as far as the bad one's: below the gap is no such move. */
	if (!jd->judged && !strcmp(jd->verdict, "no verdict") &&
	    !strcmp(json_string_value(json_object_get(ab, "drive")) ?: "", "tick")) {
		jd->verdict = "below the gap";
		jd->judged = true;
	}
	/* the verdict string lives in cmp: keep a static copy of the known ones */
	static const char *const known[] = { "better", "worse", "no change", "below the gap", "no verdict",
					     "not comparable", "n too small", "missing" };
	const char *v = "no verdict";

	for (size_t i = 0; i < MGB_ARRAY_SIZE(known); i++)
		if (!strcmp(jd->verdict, known[i]))
			v = known[i];
	jd->verdict = v;
	json_decref(cmp);
	if (!jd->judged)
		return mgb_err(err, "prefix %zu on %s: compare gives '%s' for %s, so bisect cannot go on (a proportion "
			       "needs enough rounds; a timing needs several runs, which bisect does not make)", k, fs, v,
			       b->metric);
	return 0;
}

/* The filesystems the good prefix's document has the metric on, in its cells' order. */
static int filesystems(struct bisect *b, const char ***fs, unsigned *nfs, char *err)
{
	json_t *doc = measure(b, b->good, err), *cell;
	size_t i;

	*nfs = 0;
	if (!doc)
		return -1;
	*fs = calloc(json_array_size(json_object_get(doc, "cells")) + 1, sizeof(**fs));
	if (!*fs)
		return mgb_err(err, "out of memory");
	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		const char *name = json_string_value(json_object_get(cell, "fs"));
		bool seen = false;

		for (unsigned j = 0; name && j < *nfs; j++)
			seen |= !strcmp((*fs)[j], name);
		if (name && !seen)
			(*fs)[(*nfs)++] = name;
	}
	return *nfs ? 0 : mgb_err(err, "the good prefix's document has no cells");
}

struct fs_result {
	const char *fs;
	size_t first; /* the first prefix that changes the metric; 0: none does */
	struct judgement at_first;
	char err[MGB_ERR_LEN];
};

static int bisect_fs(struct bisect *b, struct fs_result *r)
{
	struct judgement jd;
	size_t lo = b->good, hi = b->n;

	if (judge(b, hi, r->fs, &jd, r->err))
		return -1;
	if (!jd.changed) {
		r->first = 0;
		return 0;
	}
	r->at_first = jd;
	while (hi - lo > 1 && !mgb_stop_requested()) {
		size_t mid = lo + (hi - lo) / 2;

		if (judge(b, mid, r->fs, &jd, r->err))
			return -1;
		if (jd.changed) {
			hi = mid;
			r->at_first = jd;
		} else {
			lo = mid;
		}
	}
	r->first = hi;
	return mgb_stop_requested() ? mgb_err(r->err, "interrupted by signal %d", (int)mgb_stop_signal) : 0;
}

static void print_value(double v)
{
	if (v == (double)(long long)v && fabs(v) < 1e12)
		printf(" %12lld", (long long)v);
	else
		printf(" %12.4g", v);
}

/* The prefixes tried, each with its metric per filesystem, then the answer per filesystem. */
static void report(struct bisect *b, const char *const *fs, unsigned nfs, const struct fs_result *res)
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
		printf("%-6zu %-40.40s", k, label(b, k));
		for (unsigned f = 0; f < nfs; f++) {
			struct judgement jd;
			char e[MGB_ERR_LEN];

			/* both documents are there: judging builds nothing (the good one against itself
			 * gives its own value) */
			if (judge(b, k, fs[f], &jd, e) && !jd.verdict)
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
		const struct fs_result *r = &res[f];

		if (r->err[0])
			printf("%s: not decided: %s\n", r->fs, r->err);
		else if (!r->first)
			printf("%s: no prefix up to the whole series changes %s\n", r->fs, b->metric);
		else if (r->at_first.p < 1e-300) /* below a double's range: compare prints it so too */
			printf("%s: first changed by %s %zu of %zu, %s (%s %s, p<1e-300)\n", r->fs,
			       b->use_git ? "commit" : "patch", r->first, b->n, label(b, r->first), r->at_first.verdict,
			       b->metric);
		else if (isnan(r->at_first.p)) /* decided by the gap of 0.5, with no p */
			printf("%s: first changed by %s %zu of %zu, %s (%s %s, by the gap)\n", r->fs,
			       b->use_git ? "commit" : "patch", r->first, b->n, label(b, r->first), r->at_first.verdict,
			       b->metric);
		else
			printf("%s: first changed by %s %zu of %zu, %s (%s %s, p=%.2g)\n", r->fs,
			       b->use_git ? "commit" : "patch", r->first, b->n, label(b, r->first), r->at_first.verdict,
			       b->metric, r->at_first.p);
	}
}

static int make_outdir(struct bisect *b, char *buf, size_t len, char *err)
{
	if (!b->outdir) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(buf, len, "mgbench-bisect-%Y%m%d-%H%M%S", &tm);
		b->outdir = buf;
	}
	if (mkdir(b->outdir, 0755))
		return mgb_err(err, "-o %.200s: %s (bisect writes a new directory)", b->outdir, strerror(errno));
	b->outdir_made = true;
	return 0;
}

/*
 * --metric names a column of a workload the guest runs, as compare's --metrics matches one
 * (header, key or leaf): checked before anything is built, since judge() would find a typo only
 * after building the good prefix and the whole series and booting both (M6).
 */
static int check_metric(const char *metric, const struct mgb_run_check *rc)
{
	char cols[400] = "";
	size_t len = 0;

	for (unsigned i = 0; i < rc->nworkloads; i++)
		for (const struct mgb_column *c = rc->workloads[i]->columns; c && c->header; c++) {
			if (mgb_compare_name_matches(metric, c->path, c->header))
				return 0;
			if (len < sizeof(cols))
				len += (size_t)snprintf(cols + len, sizeof(cols) - len, "%s%s", len ? ", " : "", c->header);
		}
	return mgb_usage_error("kernel bisect", "--metric '%.60s' is not a column of %s (columns: %s)", metric,
			       rc->nworkloads == 1 ? rc->workloads[0]->name : "the run's workloads",
			       cols[0] ? cols : "none");
}

static int parse(struct bisect *b, int argc, char **argv, int *n_patches)
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
	 * such, not as if --bad had been given (L4) */
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

int cmd_kernel_bisect(int argc, char **argv)
{
	struct bisect b = { 0 };
	struct mgb_run_check rc_check = { 0 };
	char err[MGB_ERR_LEN] = "", outbuf[64];
	const char **fs = NULL;
	struct fs_result *res = NULL;
	unsigned nfs = 0;
	int n_patches = 0, rc = MGB_EXIT_FAIL, c;

	if (!(b.patch_args = calloc((size_t)argc + 1, sizeof(*b.patch_args))))
		return MGB_EXIT_FAIL;
	if ((c = parse(&b, argc, argv, &n_patches))) {
		free(b.patch_args);
		return c < 0 ? MGB_EXIT_OK : c;
	}
	/* the guest's command is checked here, before anything is built */
	c = mgb_run_args_check(b.run_argc, b.run_argv, &rc_check);
	if (c || rc_check.output || rc_check.json) {
		free(b.patch_args);
		if (c < 0)
			return MGB_EXIT_OK;
		return c ? c : mgb_usage_error("kernel bisect", "the run's document is bisect's own: no -o or --json");
	}
	if ((c = check_metric(b.metric, &rc_check))) {
		free(b.patch_args);
		return c;
	}
	if (b.use_git ? mgb_bisect_git_open(b.source, b.good_rev, b.bad_rev, &b.git, err)
		      : mgb_kbuild_series(b.patch_args, &b.files, &b.n, err))
		goto out;
	if (b.use_git)
		b.n = b.git.n;
	if (b.good >= b.n) {
		rc = mgb_usage_error("kernel bisect", "--good %zu leaves nothing to bisect in a series of %zu", b.good,
				     b.n);
		goto out;
	}
	b.docs = calloc(b.n + 1, sizeof(*b.docs));
	b.kdirs = calloc(b.n + 1, sizeof(*b.kdirs));
	b.build_s = calloc(b.n + 1, sizeof(*b.build_s));
	b.guest_s = calloc(b.n + 1, sizeof(*b.guest_s));
	b.built = calloc(b.n + 1, sizeof(*b.built));
	b.failed = calloc(b.n + 1, sizeof(*b.failed));
	if (!b.docs || !b.kdirs || !b.build_s || !b.guest_s || !b.built || !b.failed) {
		mgb_err(err, "out of memory");
		goto out;
	}
	if (make_outdir(&b, outbuf, sizeof(outbuf), err) || filesystems(&b, &fs, &nfs, err))
		goto out;
	if (!(res = calloc(nfs, sizeof(*res)))) {
		mgb_err(err, "out of memory");
		goto out;
	}
	rc = MGB_EXIT_OK;
	for (unsigned f = 0; f < nfs && !mgb_stop_requested(); f++) {
		res[f].fs = fs[f];
		if (bisect_fs(&b, &res[f]))
			rc = MGB_EXIT_FAIL;
	}
	if (!mgb_stop_requested()) {
		report(&b, fs, nfs, res);
		if (!b.quiet)
			fprintf(stderr, "mgbench kernel bisect: documents in %s\n", b.outdir);
	}
out:
	if (err[0])
		fprintf(stderr, "mgbench kernel bisect: %s\n", err);
	/* a failed or interrupted bisect leaves its documents, but no empty directory (L3):
	 * rmdir removes only an empty one */
	if (b.outdir_made && (rc != MGB_EXIT_OK || mgb_stop_requested()))
		rmdir(b.outdir);
	for (size_t k = 0; b.docs && k <= b.n; k++) {
		json_decref(b.docs[k]);
		free(b.kdirs[k]);
		if (b.failed)
			free(b.failed[k]);
	}
	free(b.failed);
	free(b.docs);
	free(b.kdirs);
	free(b.build_s);
	free(b.guest_s);
	free(b.built);
	free(fs);
	free(res);
	mgb_kbuild_series_free(b.files, b.use_git ? 0 : b.n);
	if (b.use_git)
		mgb_bisect_git_close(&b.git);
	free(b.patch_args);
	return rc;
}
