/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel bisect: which patch of a series (or which commit over a git source) changes a metric.
 * Builds prefixes of the series (through the build cache and ccache), runs one workload in each
 * under `mgbench vm`, and judges each prefix against the known-good one with compare's test, per
 * filesystem, by binary search, as git bisect does: it assumes that once a patch changes the
 * metric, every later prefix keeps the change.
 */
#include "config.h"
#include "kbuild.h"
#include "compare.h"
#include "doc.h"
#include "proc.h"
#include "stop.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* What prefix k is, for the table: its last patch, or its commit. */
const char *mgb_bisect_label(struct mgb_bisect *b, size_t k)
{
	if (b->use_git)
		return mgb_bisect_git_label(&b->git, k);
	return k ? base_name(b->files[k - 1]) : "(the source alone)";
}

/* Build the first k patches (or find them in the cache): the build directory in b->kdirs[k]. */
static int build_prefix(struct mgb_bisect *b, size_t k, char *err)
{
	struct mgb_kbuild kb = { .source = b->source,
				 .config = b->config,
				 .config_debian = b->config_debian,
				 .jobs = b->jobs,
				 .quiet = b->quiet,
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
		fprintf(stderr, "mgbench kernel bisect: prefix %zu: building %s\n", k, mgb_bisect_label(b, k));
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
static int run_guest(struct mgb_bisect *b, size_t k, const char *doc, char *err)
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
static json_t *measure(struct mgb_bisect *b, size_t k, char *err)
{
	char doc[PATH_MAX], read_err[MGB_ERR_LEN];

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
	if (!(b->docs[k] = mgb_doc_read(doc, read_err))) {
		mgb_err(err, "prefix %zu: cannot read its document %.150s: %s", k, doc, read_err);
		return NULL;
	}
	return b->docs[k];
}


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

int mgb_bisect_judge(struct mgb_bisect *b, size_t k, const char *fs, struct mgb_bisect_judgement *jd, char *err)
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
		return mgb_err(err,
			       "prefix %zu on %s: compare gives '%s' for %s, so bisect cannot go on (a proportion "
			       "needs enough rounds; a timing needs several runs, which bisect does not make)",
			       k, fs, v, b->metric);
	return 0;
}

/* The filesystems the good prefix's document has the metric on, in its cells' order. */
static int filesystems(struct mgb_bisect *b, const char ***fs, unsigned *nfs, char *err)
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


static int bisect_fs(struct mgb_bisect *b, struct mgb_bisect_fs_result *r)
{
	struct mgb_bisect_judgement jd;
	size_t lo = b->good, hi = b->n;

	if (mgb_bisect_judge(b, hi, r->fs, &jd, r->err))
		return -1;
	if (!jd.changed) {
		r->first = 0;
		return 0;
	}
	r->at_first = jd;
	while (hi - lo > 1 && !mgb_stop_requested()) {
		size_t mid = lo + (hi - lo) / 2;

		if (mgb_bisect_judge(b, mid, r->fs, &jd, r->err))
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

int mgb_bisect_open(struct mgb_bisect *b, char *err)
{
	if (b->use_git ? mgb_bisect_git_open(b->source, b->good_rev, b->bad_rev, &b->git, err)
		       : mgb_kbuild_series(b->patch_args, &b->files, &b->n, err))
		return -1;
	if (b->use_git)
		b->n = b->git.n;
	b->opened = true;
	return 0;
}

int mgb_bisect_run(struct mgb_bisect *b, const char ***fs, unsigned *nfs, struct mgb_bisect_fs_result **res,
		   char *err)
{
	int rc = 0;

	*fs = NULL;
	*res = NULL;
	*nfs = 0;
	b->docs = calloc(b->n + 1, sizeof(*b->docs));
	b->kdirs = calloc(b->n + 1, sizeof(*b->kdirs));
	b->build_s = calloc(b->n + 1, sizeof(*b->build_s));
	b->guest_s = calloc(b->n + 1, sizeof(*b->guest_s));
	b->built = calloc(b->n + 1, sizeof(*b->built));
	b->failed = calloc(b->n + 1, sizeof(*b->failed));
	if (!b->docs || !b->kdirs || !b->build_s || !b->guest_s || !b->built || !b->failed)
		return mgb_err(err, "out of memory");
	if (filesystems(b, fs, nfs, err))
		return -1;
	if (!(*res = calloc(*nfs, sizeof(**res))))
		return mgb_err(err, "out of memory");
	for (unsigned f = 0; f < *nfs && !mgb_stop_requested(); f++) {
		(*res)[f].fs = (*fs)[f];
		if (bisect_fs(b, &(*res)[f]))
			rc = 1;
	}
	return rc;
}

void mgb_bisect_free(struct mgb_bisect *b)
{
	for (size_t k = 0; b->docs && k <= b->n; k++) {
		json_decref(b->docs[k]);
		free(b->kdirs[k]);
		if (b->failed)
			free(b->failed[k]);
	}
	free(b->failed);
	free(b->docs);
	free(b->kdirs);
	free(b->build_s);
	free(b->guest_s);
	free(b->built);
	if (b->opened && !b->use_git)
		mgb_kbuild_series_free(b->files, b->n);
	if (b->opened && b->use_git)
		mgb_bisect_git_close(&b->git);
}
