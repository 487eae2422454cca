/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Matching cells across documents and judging each metric against the base (see compare.h). */
#include "config.h"
#include "compare.h"
#include "doc.h"
#include "json_text.h"
#include "result.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What cells say about multigrain: "mg" if every probed cell had it, "no mg" if none, NULL if
 * mixed or unknown. */
static const char *doc_multigrain(json_t *doc)
{
	bool yes = false, no = false;
	size_t i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		json_t *v = json_object_get(json_object_get(cell, "multigrain"), "in_effect");

		yes |= json_is_true(v);
		no |= json_is_false(v);
	}
	return yes && !no ? "mg" : no && !yes ? "no mg" : NULL;
}

char *mgb_doc_describe(json_t *doc)
{
	json_t *vm = json_object_get(doc, "vm");
	json_t *manifest = json_object_get(json_object_get(vm, "kernel_source"), "manifest");
	json_t *patches = json_object_get(manifest, "patches");
	const char *release = json_string_value(json_object_get(json_object_get(doc, "kernel"), "release"));
	const char *mg = doc_multigrain(doc), *accel = json_string_value(json_object_get(vm, "accel"));
	char *s, extra[64] = "";

	/* a `mgbench kernel build`: its source version and how many patches went on it */
	if (json_string_value(json_object_get(manifest, "version")))
		release = json_string_value(json_object_get(manifest, "version"));
	if (json_array_size(patches))
		snprintf(extra, sizeof(extra), " + %zu patch%s", json_array_size(patches),
			 json_array_size(patches) == 1 ? "" : "es");
	/* --config debian: not the tinyconfig build of the same source and patches */
	if (!strcmp(json_string_value(json_object_get(manifest, "config_base")) ?: "", "debian"))
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), ", Debian config");
	if (asprintf(&s, "%s%s%s%s%s%s%s", release ? release : "unknown kernel", extra, mg ? ", " : "", mg ? mg : "",
		     vm ? ", qemu " : "", vm ? (accel ? accel : "?") : "", "") < 0)
		abort();
	return s;
}

/* Where a document was measured, and what of the machine changes its numbers: the tick, the
 * clocksource, the timer resolution, the preemption model, the CPU count; for a guest its
 * accelerator and the outer host.  Each as "name=value", so a difference can be named. */
static json_t *doc_identity(json_t *doc)
{
	json_t *vm = json_object_get(doc, "vm"), *host = json_object_get(doc, "host");
	json_t *clocks = json_object_get(json_object_get(doc, "kernel"), "clocks");
	const char *version = json_string_value(json_object_get(json_object_get(doc, "kernel"), "version")) ?: "";
	json_t *id = json_object();
	char *s;

	/* A guest's host name is whatever its initramfs set: name it by its accelerator instead. */
	if (vm) {
		if (asprintf(&s, "qemu %s guest", json_string_value(json_object_get(vm, "accel")) ?: "?") < 0)
			abort();
		json_object_set_new(id, "machine", json_string(s));
		free(s);
		json_object_set(id, "outer host", json_object_get(vm, "host") ?: json_null());
		json_object_set(id, "outer CPU", json_object_get(vm, "host_cpu") ?: json_null());
		/* a `mgbench kernel build`'s base config: tinyconfig (or not recorded, before
		 * --config debian) or debian */
		json_object_set(id, "config base",
				json_object_get(json_object_get(json_object_get(vm, "kernel_source"), "manifest"),
						"config_base") ?: json_null());
		/* the guest kernel's timekeeping, preemption and -O options, by name: two builds of
		 * one series with different configs are not the same kernel */
		{
			const char *opt;
			json_t *val;

			/* null in the document is "is not set", not "not recorded" */
			json_object_foreach(json_object_get(json_object_get(vm, "kernel_config"), "options"), opt, val)
				json_object_set_new(id, opt, json_is_null(val) ? json_string("not set") : json_incref(val));
		}
	} else {
		json_t *name = json_object_get(host, "name");

		/* set_new takes a reference: a borrowed value gets one of its own, a new one keeps its */
		json_object_set_new(id, "machine", name ? json_incref(name) : json_string("?"));
		/* the CPU: a host name ("vm") names nothing in many clouds */
		json_object_set(id, "CPU model", json_object_get(host, "cpu_model") ?: json_null());
	}
	json_object_set(id, "CPUs", json_object_get(vm ? vm : host, "cpus") ?: json_null());
	/* the tick as the kernel reports it (clock_getres), not as measured on a busy machine */
	json_object_set(id, "tick", json_object_get(json_object_get(clocks, "resolution_ns"), "monotonic_coarse") ?: json_null());
	json_object_set(id, "hrtimer", json_object_get(json_object_get(clocks, "resolution_ns"), "monotonic") ?: json_null());
	json_object_set(id, "clocksource", json_object_get(clocks, "clocksource") ?: json_null());
	/* the model in effect (debugfs, preempt= or the config's default) where the document says,
	 * not "dynamic" for every PREEMPT_DYNAMIC kernel; else what uname -v names */
	{
		const char *mode = json_string_value(
			json_object_get(json_object_get(json_object_get(doc, "kernel"), "config"), "preempt"));

		json_object_set_new(id, "preemption",
				    mode ? mgb_json_text(mode)
					 : json_string(strstr(version, "PREEMPT_RT")        ? "rt"
						       : strstr(version, "PREEMPT_DYNAMIC") ? "dynamic"
						       : strstr(version, "PREEMPT ")        ? "full"
											    : "none"));
	}
	return id;
}

/* One side of an identity difference: a missing or null value (an older document, a field
 * the machine did not offer) reads "not recorded". */
static char *identity_value(json_t *v)
{
	return v && !json_is_null(v) ? json_dumps(v, JSON_ENCODE_ANY) : strdup("not recorded");
}

/* "tick 4000000 vs 10000000, CPUs 2 vs 4": what differs between two identities ("" if nothing). */
static void identity_diff(json_t *a, json_t *b, char *buf, size_t len)
{
	const char *key;
	json_t *v;
	size_t n = 0;

	*buf = '\0';
	json_object_foreach(a, key, v) {
		json_t *w = json_object_get(b, key);
		char *x, *y;

		if (json_equal(v, w) || (json_is_null(v) && (!w || json_is_null(w))))
			continue;
		x = identity_value(v);
		y = identity_value(w);
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s %s vs %s", n ? ", " : "", key, x, y);
		free(x);
		free(y);
	}
}

static char *doc_machine(json_t *doc)
{
	json_t *id = doc_identity(doc);
	long long cpus = json_integer_value(json_object_get(id, "CPUs"));
	char *s;

	if (asprintf(&s, "%s with %lld CPU%s", json_string_value(json_object_get(id, "machine")) ?: "?", cpus,
		     cpus == 1 ? "" : "s") < 0)
		abort();
	json_decref(id);
	return s;
}

static const char *better_name(enum mgb_better b)
{
	return b == MGB_BETTER_HIGHER ? "higher" : b == MGB_BETTER_LOWER ? "lower" : NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* A continuous number that depends on time: rates, times, per-tick figures, the cost ratios and
 * journal figures (their background part is per elapsed time), the ctime changes seen (elapsed
 * ticks on a coarse filesystem, a writer's pace under stat --writer), and revalidate's poll and
 * re-read counts (how its two threads happened to interleave).  The run is its unit. */
static bool is_timing(const struct mgb_column *c)
{
	return !c->events &&
	       (!strcmp(c->format, "rate") || !strcmp(c->format, "ns") || ends_with(c->path, "_ns") ||
		ends_with(c->path, "_per_s") || ends_with(c->path, "_per_tick") || ends_with(c->path, "_per_1000") ||
		(!strcmp(c->format, "float") && ends_with(c->path, "_ratio")) || strstr(c->path, "ctime_changes") ||
		!strcmp(c->path, "fresh_polls") || !strcmp(c->path, "rereads"));
}

/* What moves a proportion between runs of one kernel (see enum mgb_drive): the kernel's rule,
 * which repeats agree on (multigrain distinct, backward, inversions); the coarse tick (the
 * distinct ratio and granularity misses where this side has no multigrain: elapsed ticks over
 * rounds; ordering's ties, which only a tick crossing breaks); or the scheduler (revalidate's
 * misses per re-read, which spread from 0.001 to 0.63 between runs of one kernel on btrfs). */
enum mgb_drive { DRIVE_KERNEL, DRIVE_TICK, DRIVE_SCHED };

static enum mgb_drive proportion_drive(const struct mgb_column *c, bool coarse)
{
	if (!strcmp(c->path, "announced_miss_ratio") || !strcmp(c->path, "inflight_miss_ratio"))
		return DRIVE_SCHED;
	if (!strcmp(c->events, "ties") ||
	    (coarse && (ends_with(c->path, "distinct_ratio") || ends_with(c->path, "granularity_miss_ratio"))))
		return DRIVE_TICK;
	return DRIVE_KERNEL;
}

static const char *drive_name(enum mgb_drive d)
{
	return d == DRIVE_SCHED ? "scheduling" : d == DRIVE_TICK ? "tick" : "kernel";
}

/* A run-shaping parameter shown in a table (ordering's rounds): what was asked, not what was
 * measured, so it is shown and never judged; a difference is a cell note. */
static bool is_parameter(const struct mgb_column *c)
{
	return !strcmp(c->path, "rounds");
}

/* A yes/no column (revalidate's judged): shown as yes, no or mixed, not tested. */
static bool is_flag(const struct mgb_column *c)
{
	return !strcmp(c->format, "yesno");
}

static const char *leaf(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? dot + 1 : path;
}

/* A name matches a column by its header, its full key or its JSON leaf key. */
bool mgb_compare_name_matches(const char *name, const char *path, const char *header)
{
	return !strcmp(name, path) || !strcmp(name, header) || !strcmp(name, leaf(path));
}

/* The columns to compare for a workload: its table's, or those --metrics names. */
static bool wanted(const struct mgb_column *c, const struct mgb_compare_opts *o)
{
	if (!o->nmetrics)
		return true;
	for (unsigned i = 0; i < o->nmetrics; i++)
		if (mgb_compare_name_matches(o->metrics[i], c->path, c->header))
			return true;
	return false;
}

/* A repeat that holds data: not failed, interrupted or marked inconclusive. */
static bool cell_usable(json_t *cell)
{
	const char *status = json_string_value(json_object_get(cell, "status"));

	return (!status || !strcmp(status, "ok")) &&
	       !json_is_false(json_object_get(json_object_get(cell, "metrics"), "conclusive"));
}

/* One document's side of one metric: the values of its repeats and, for a proportion, each
 * repeat's events and trials. */
struct side {
	double *values, *events, *trials;
	long long *run; /* which run (document of the side) each value came from */
	size_t n;
	size_t runs; /* documents (runs) the values come from */
	bool counts; /* events and trials found in every repeat */
};

/* Which run (document of a side, see mgb_compare_merge_runs) a cell came from. */
static long long cell_run(json_t *cell)
{
	return json_integer_value(json_object_get(cell, "run"));
}

/* How many runs the first n values came from (runs[] parallel to them). */
static size_t count_runs(const long long *runs, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < i && runs[j] != runs[i])
			j++;
		k += j == i;
	}
	return k;
}

/* A timing's repeats share their run's load: with several runs a side the run is the unit,
 * each run's value the median of its repeats. */
static void collapse_runs(struct side *s, const long long *ids)
{
	double *v = malloc((s->n + 1) * sizeof(double));
	long long *runs = malloc((s->n + 1) * sizeof(long long));
	size_t out = 0;

	if (!v || !runs)
		abort();
	memcpy(runs, ids, s->n * sizeof(long long));
	for (size_t i = 0; i < s->n; i++) {
		size_t m = 0, j;

		for (j = 0; j < i && runs[j] != runs[i]; j++)
			;
		if (j < i)
			continue; /* this run is done */
		for (j = i; j < s->n; j++)
			if (runs[j] == runs[i])
				v[m++] = s->values[j];
		s->run[out] = runs[i];
		s->values[out++] = mgb_median(v, m);
	}
	free(v);
	free(runs);
	s->n = out;
	s->counts = false;
}

static void side_free(struct side *s)
{
	free(s->values);
	free(s->events);
	free(s->trials);
	free(s->run);
}

/* A column's values over cells; an older document's cells are read under the name the workload
 * says the metric had then (w->renamed). */
static void gather(const struct mgb_workload *w, json_t *cells, const struct mgb_column *c, bool timing,
		   struct side *s)
{
	size_t i, cap = json_array_size(cells) + 1;
	json_t *cell;

	s->values = calloc(cap, sizeof(double));
	s->events = calloc(cap, sizeof(double));
	s->trials = calloc(cap, sizeof(double));
	if (!s->values || !s->events || !s->trials)
		abort();
	long long *runs = calloc(cap, sizeof(long long));

	if (!runs)
		abort();
	s->run = runs;
	s->n = 0;
	s->counts = c->events != NULL;
	json_array_foreach(cells, i, cell) {
		json_t *m = json_object_get(cell, "metrics");
		json_t *v = mgb_metric_path(w, m, c->path), *e, *t;

		if (!cell_usable(cell) || !(json_is_number(v) || (is_flag(c) && json_is_boolean(v))))
			continue;
		if (c->events) {
			e = mgb_metric_path(w, m, c->events);
			t = mgb_metric_path(w, m, c->trials);
			if (json_is_number(e) && json_is_number(t) && json_number_value(e) >= 0 &&
			    json_number_value(t) >= json_number_value(e)) {
				s->events[s->n] = json_number_value(e);
				s->trials[s->n] = json_number_value(t);
			} else {
				s->counts = false;
			}
		}
		runs[s->n] = cell_run(cell);
		s->values[s->n++] = json_is_boolean(v) ? json_is_true(v) : json_number_value(v);
	}
	s->runs = count_runs(runs, s->n);
	if (s->n == 0)
		s->counts = false;
	if (timing && s->runs > 1)
		collapse_runs(s, runs);
}

/* The value shown is the value tested: pooled events / trials for a proportion, the median of
 * the repeats otherwise. */
static double side_value(const struct side *s)
{
	double e = 0, t = 0, *v, m;

	if (s->counts) {
		for (size_t i = 0; i < s->n; i++) {
			e += s->events[i];
			t += s->trials[i];
		}
		return t > 0 ? e / t : NAN;
	}
	v = malloc((s->n + 1) * sizeof(double));
	if (!v)
		abort();
	memcpy(v, s->values, s->n * sizeof(double));
	m = mgb_median(v, s->n);
	free(v);
	return m;
}

static json_t *side_json(struct side *s)
{
	double lo = INFINITY, hi = -INFINITY, e = 0, t = 0;

	if (s->n == 0)
		return MGB_JSON_PACK("{s:i, s:n}", "n", 0, "value");
	for (size_t i = 0; i < s->n; i++) {
		lo = fmin(lo, s->values[i]);
		hi = fmax(hi, s->values[i]);
		e += s->events[i];
		t += s->trials[i];
	}
	return MGB_JSON_PACK("{s:i, s:i, s:o, s:f, s:f, s:o, s:o}", "n", (int)s->n, "runs", (int)s->runs, "value",
			     isnan(side_value(s)) ? json_null() : json_real(side_value(s)), "min", lo, "max", hi,
			     "events", s->counts ? json_real(e) : json_null(), "trials",
			     s->counts ? json_real(t) : json_null());
}

static json_t *num_or_null(double x)
{
	return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

/* A proportion's units: its repeats, or with by_run its runs (each run's events and trials
 * summed).  values[] are the units' rates. */
static void units(const struct side *s, bool by_run, struct side *u)
{
	size_t cap = s->n + 1;

	*u = (struct side){ .values = calloc(cap, sizeof(double)), .events = calloc(cap, sizeof(double)),
			    .trials = calloc(cap, sizeof(double)), .run = calloc(cap, sizeof(long long)),
			    .runs = s->runs, .counts = s->counts };
	if (!u->values || !u->events || !u->trials || !u->run)
		abort();
	for (size_t i = 0; i < s->n; i++) {
		size_t k = 0;

		while (by_run && k < u->n && u->run[k] != s->run[i])
			k++;
		if (!by_run || k == u->n)
			k = u->n++;
		u->run[k] = s->run[i];
		u->events[k] += s->events[i];
		u->trials[k] += s->trials[i];
	}
	for (size_t k = 0; k < u->n; k++)
		u->values[k] = u->trials[k] > 0 ? u->events[k] / u->trials[k] : NAN;
}

/* The gap between two sides' units: how far apart the closest unit of one side is from the
 * closest of the other when every unit of one side is above every unit of the other (0 when
 * they overlap), signed as B - A. */
static double unit_gap(const struct side *a, const struct side *b)
{
	double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;

	for (size_t i = 0; i < a->n; i++) {
		amin = fmin(amin, a->values[i]);
		amax = fmax(amax, a->values[i]);
	}
	for (size_t i = 0; i < b->n; i++) {
		bmin = fmin(bmin, b->values[i]);
		bmax = fmax(bmax, b->values[i]);
	}
	return bmin > amax ? bmin - amax : amin > bmax ? bmax - amin : 0;
}

/* Every value of both sides the same: nothing to test, and nothing changed. */
static bool identical(const struct side *a, const struct side *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->values[i] != a->values[0])
			return false;
	for (size_t i = 0; i < b->n; i++)
		if (b->values[i] != a->values[0])
			return false;
	return a->n > 0 && b->n > 0;
}

/* How one metric of one document is to be judged against the base. */
struct judging {
	bool comparable;     /* machine identities match, or the metric does not depend on time */
	bool gap_only;       /* another identity of the same tick: only a gap of 0.5 decides */
	bool timing;         /* a continuous time or rate: the run is its unit */
	bool absolute_count; /* a count from other rounds: not comparable */
	enum mgb_drive drive; /* a proportion's: the worse of the two sides' */
	const char *better;  /* "higher", "lower" or NULL */
	double alpha;
};

/* The verdict of a change in direction dir (+1: B higher) for a column that is better higher,
 * lower or neither. */
static const char *direction_verdict(const char *better, int dir)
{
	if (dir == 0)
		return "no change";
	if (!better)
		return "changed";
	return (dir > 0) == !strcmp(better, "higher") ? "better" : "worse";
}

#define REASON_ONE_RUN_PROPORTION                                                                     \
	"the spread between runs is unknown with one run a side; only a gap of 0.5 between every run " \
	"of A and every run of B decides; give several runs per side"
#define REASON_SCHED                                                                                  \
	"spreads between runs of one kernel beyond any fixed gap (how its threads interleave); give "  \
	"several runs per side"
#define REASON_IDENTITY "another machine identity: only a gap of 0.5 decides"

/* A proportion.  Repeats inside one document are its units when they are trustworthy (the
 * kernel's rule drives the metric and a side has one run); with several runs a side the runs
 * are, their events and trials summed.  A tick- or scheduler-driven proportion is judged over
 * runs only, by the exact permutation distribution of their rates (Mann-Whitney), which assumes
 * nothing of how runs spread; a kernel-driven one by Fisher on the pooled table widened by the
 * units' dispersion (quasi-binomial t).  The gap rule (every unit of one side at least 0.5 from
 * every unit of the other) decides at any number of runs, except for the scheduler's. */
static json_t *judge_proportion(struct side *base, struct side *new, const struct judging *j)
{
	bool by_run = base->runs >= 2 && new->runs >= 2;
	struct side a, b;
	double change, gap;
	bool gap_ok, same;
	int dir;
	struct mgb_test t;
	json_t *out;

	units(base, by_run, &a);
	units(new, by_run, &b);
	change = side_value(&b) - side_value(&a);
	dir = change > 0 ? 1 : change < 0 ? -1 : 0;
	gap = unit_gap(&a, &b);
	gap_ok = j->drive != DRIVE_SCHED && fabs(gap) >= MGB_ONE_RUN_GAP;
	same = identical(&a, &b);
	if (isnan(change)) {
		out = MGB_JSON_PACK("{s:s}", "verdict", "missing");
	} else if (!j->comparable && !j->gap_only) {
		out = MGB_JSON_PACK("{s:s, s:o, s:s}", "verdict", "not comparable", "change", num_or_null(change), "drive",
				    drive_name(j->drive));
	} else if (same) {
		/* nothing to test (0 of n against 0 of m): left out of the family */
		out = MGB_JSON_PACK("{s:s, s:s, s:o, s:s}", "verdict", "no change", "basis", "identical", "change",
				    num_or_null(change), "drive", drive_name(j->drive));
	} else if (gap_ok && (j->gap_only || (j->drive != DRIVE_KERNEL && !by_run) || (a.n == 1 && b.n == 1))) {
		/* no test can be made; the gap alone decides */
		out = MGB_JSON_PACK("{s:s, s:s, s:s, s:o, s:f, s:i, s:s}", "verdict", direction_verdict(j->better, dir),
				    "basis", "gap", "test", "gap", "change", num_or_null(change), "gap", gap, "direction", dir,
				    "drive", drive_name(j->drive));
	} else if (j->gap_only) {
		out = MGB_JSON_PACK("{s:s, s:s, s:o, s:s}", "verdict", "no verdict", "reason", REASON_IDENTITY, "change",
				    num_or_null(change), "drive", drive_name(j->drive));
	} else if ((j->drive != DRIVE_KERNEL && !by_run) || (a.n == 1 && b.n == 1)) {
		out = MGB_JSON_PACK("{s:s, s:s, s:o, s:s}", "verdict", "no verdict", "reason",
				    j->drive == DRIVE_SCHED ? REASON_SCHED : REASON_ONE_RUN_PROPORTION, "change",
				    num_or_null(change), "drive", drive_name(j->drive));
	} else {
		if (j->drive != DRIVE_KERNEL) {
			t = mgb_test_mann_whitney(a.values, a.n, b.values, b.n, j->alpha);
		} else {
			struct mgb_counts ca = { a.events, a.trials, a.n }, cb = { b.events, b.trials, b.n };

			t = mgb_test_repeat_proportions(&ca, &cb, j->alpha);
		}
		out = MGB_JSON_PACK("{s:s, s:o, s:o, s:o, s:s, s:o, s:o, s:i, s:s, s:s, s:b, s:f}", "verdict",
				    isnan(t.p) ? "missing" : "pending", "change", num_or_null(t.effect), "ci",
				    isnan(t.lo) ? json_null() : json_pack("[f, f]", t.lo, t.hi), "dispersion",
				    num_or_null(t.dispersion), "test", t.name, "p", num_or_null(t.p), "min_p",
				    num_or_null(t.min_p), "direction", t.dir, "unit", by_run ? "run" : "repeat", "drive",
				    drive_name(j->drive), "gap_rule", gap_ok, "gap", gap);
	}
	side_free(&a);
	side_free(&b);
	return out;
}

/* The test of new against base for one metric.  The verdict is left "pending" when it rests on
 * p: mgb_compare decides it once the whole table's p-values are adjusted. */
static json_t *judge(struct side *base, struct side *new, const struct judging *j, const char *format)
{
	struct mgb_test t;
	double b;
	const char *verdict = "pending";

	if (base->n == 0 || new->n == 0)
		return MGB_JSON_PACK("{s:s}", "verdict", "missing");
	if (base->counts && new->counts)
		return judge_proportion(base, new, j);
	b = side_value(base);
	/* a timing from one run a side: its repeats share that run's load, so their spread says
	 * nothing of the spread between runs.  The change is shown, with no interval and no p.
	 * Samples that are all the same (0 changes against 0) read as such. */
	if (j->timing && j->comparable && !j->absolute_count && (base->runs < 2 || new->runs < 2) &&
	    !identical(base, new)) {
		double change = side_value(new) - b;

		return MGB_JSON_PACK("{s:s, s:s, s:o, s:o}", "verdict", "no verdict", "reason", MGB_ONE_RUN_REASON,
				     "change", num_or_null(change), "relative",
				     b != 0 ? num_or_null(change / fabs(b)) : json_null());
	}
	t = mgb_test_mann_whitney(base->values, base->n, new->values, new->n, j->alpha);
	if (!j->comparable || j->absolute_count)
		verdict = "not comparable";
	else if (isnan(t.p))
		verdict = "missing";
	else if (identical(base, new))
		verdict = "no change";
	/* a rate or a time cannot fall by more than all of it: its interval stops at -100 % */
	if ((!strcmp(format, "rate") || !strcmp(format, "ns")) && b > 0 && !isnan(t.lo))
		t.lo = fmax(t.lo, -b);
	return MGB_JSON_PACK("{s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:i, s:s, s:s, s:s*}", "change", num_or_null(t.effect),
			     "relative", b != 0 ? num_or_null(t.effect / fabs(b)) : json_null(), "ci",
			     isnan(t.lo) ? json_null() : json_pack("[f, f]", t.lo, t.hi), "ci_relative",
			     isnan(t.lo) || b == 0 ? json_null() : json_pack("[f, f]", t.lo / fabs(b), t.hi / fabs(b)),
			     "test", t.name, "p", !strcmp(verdict, "not comparable") ? json_null() : num_or_null(t.p),
			     "min_p", num_or_null(t.min_p), "direction", t.dir, "verdict", verdict, "unit",
			     j->timing && base->runs >= 2 ? "run" : "repeat", "basis",
			     !strcmp(verdict, "no change") ? "identical" : NULL);
}

/* What the family of a table's tests came to (the footer names them). */
struct family {
	unsigned tests;      /* in the Benjamini-Hochberg family */
	unsigned cannot;     /* left out: their smallest attainable p is not below alpha */
	unsigned duplicates; /* left out: the same quantity as another column of the cell */
};

static double num(json_t *v, const char *key)
{
	json_t *x = json_object_get(v, key);

	return json_is_number(x) ? json_number_value(x) : NAN;
}

/* Benjamini-Hochberg over the tests of the table that can decide, then each pending verdict.
 * A test whose smallest attainable p is not below alpha (a discrete test of 0 events against 0,
 * an exact test of 3 runs against 3) can never be significant: it is left out of the family, as
 * Tarone's and Gilbert's rule for discrete tests says, so that it does not dilute the others.
 * So is a column that is the same quantity as an earlier one (ties and tie ratio): one
 * quantity, one test.  A test that is not significant is "n too small" when even its smallest
 * attainable p would not have been, the rest of the table as it is, else "no change"; a
 * proportion whose every run is 0.5 from every run of the other side is decided by that gap. */
static struct family adjust_table(json_t *cells, double alpha)
{
	size_t i, j, k, n = 0;
	json_t *c, *m, *v;
	json_t **pending = NULL;
	double *p;
	struct family f = { 0 };

	json_array_foreach(cells, i, c)
		json_array_foreach(json_object_get(c, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "against_base"), k, v)
				if (!strcmp(json_string_value(json_object_get(v, "verdict")) ?: "", "pending")) {
					pending = realloc(pending, (n + 1) * sizeof(*pending));
					if (!pending)
						abort();
					json_object_set(v, "better", json_object_get(m, "better"));
					pending[n++] = v;
				}
	p = malloc((n + 1) * sizeof(double));
	if (!p)
		abort();
	for (i = 0; i < n; i++) {
		double min_p = num(pending[i], "min_p");

		p[i] = NAN;
		if (json_object_get(pending[i], "same_as_verdict"))
			f.duplicates++;
		else if (min_p >= alpha)
			f.cannot++;
		else
			p[i] = num(pending[i], "p");
	}
	{
		double *raw = malloc((n + 1) * sizeof(double));

		if (!raw)
			abort();
		memcpy(raw, p, n * sizeof(double));
		mgb_adjust_bh(p, n);
		for (i = 0; i < n; i++) {
			const char *better = json_string_value(json_object_get(pending[i], "better"));
			int dir = (int)json_integer_value(json_object_get(pending[i], "direction"));
			bool gap = json_is_true(json_object_get(pending[i], "gap_rule"));
			const char *verdict;

			v = pending[i];
			if (json_object_get(v, "same_as_verdict"))
				continue;
			if (!isnan(p[i])) {
				f.tests++;
				json_object_set_new(v, "p_adjusted", json_real(p[i]));
			}
			if (!isnan(p[i]) && p[i] < alpha && dir != 0) {
				verdict = direction_verdict(better, dir);
				json_object_set_new(v, "basis", json_string("p"));
			} else if (gap) {
				verdict = direction_verdict(better, (int)copysign(1, num(v, "gap")));
				json_object_set_new(v, "basis", json_string("gap"));
			} else if (isnan(p[i]) || !mgb_bh_could_reject(raw, n, i, num(v, "min_p"), alpha)) {
				verdict = "n too small";
			} else {
				verdict = "no change";
				json_object_set_new(v, "basis", json_string("p"));
			}
			json_object_set_new(v, "verdict", json_string(verdict));
			json_object_del(v, "better");
		}
		free(raw);
	}
	/* a duplicate reads as the column it repeats */
	for (i = 0; i < n; i++) {
		json_t *orig = json_object_get(pending[i], "same_as_verdict");
		const char *key;
		json_t *x;

		if (!orig)
			continue;
		json_incref(orig);
		json_object_del(pending[i], "same_as_verdict");
		json_object_del(pending[i], "better");
		json_object_foreach(orig, key, x)
			if (strcmp(key, "same_as"))
				json_object_set(pending[i], key, x);
		json_decref(orig);
	}
	free(p);
	free(pending);
	return f;
}

/* Cells of one document grouped by key: key -> [cells]. */
static json_t *group_cells(json_t *doc, bool across_fs)
{
	json_t *groups = json_object();
	size_t i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		char *key = mgb_cell_key(cell, across_fs);
		json_t *list = json_object_get(groups, key);

		if (!list) {
			list = json_array();
			json_object_set_new(groups, key, list);
		}
		json_array_append(list, cell);
		free(key);
	}
	return groups;
}

unsigned mgb_compare_fs_count(json_t *doc, const char **one)
{
	*one = NULL;
	json_t *seen = json_object();
	size_t i;
	json_t *cell;
	unsigned n;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		*one = json_string_value(json_object_get(cell, "fs"));
		json_object_set_new(seen, *one, json_true());
	}
	n = (unsigned)json_object_size(seen);
	json_decref(seen);
	return n;
}

static unsigned count_matched(json_t **groups, unsigned ndocs)
{
	const char *key;
	json_t *v;
	unsigned n = 0;

	json_object_foreach(groups[0], key, v) {
		bool all = true;

		for (unsigned d = 1; d < ndocs; d++)
			all &= json_object_get(groups[d], key) != NULL;
		n += all;
	}
	return n;
}

/* Whether a usable cell of this document ran without multigrain: its distinct ratio is then
 * elapsed ticks / rounds, driven by time.  Each side on its own: a multigrain side's distinct
 * stays the kernel's rule when the other side is coarse. */
static bool doc_coarse(json_t *list)
{
	size_t i;
	json_t *cell;

	json_array_foreach(list, i, cell)
		if (json_is_false(json_object_get(json_object_get(cell, "multigrain"), "in_effect")))
			return true;
	return false;
}

/* Notes on one cell: repeats left out, and rounds that differ between documents. */
static bool cell_notes(json_t **lists, unsigned ndocs, json_t *notes)
{
	long long rounds0 = -1;
	bool differ = false;
	char msg[300], list[200] = "";
	size_t i, n = 0;
	json_t *cell;

	for (unsigned d = 0; d < ndocs; d++) {
		unsigned out = 0;
		long long r = json_integer_value(json_object_get(json_array_get(lists[d], 0), "rounds"));

		json_array_foreach(lists[d], i, cell)
			out += !cell_usable(cell);
		if (out) {
			snprintf(msg, sizeof(msg), "%c: %u of %zu repeats left out (failed, interrupted or inconclusive)",
				 (char)('A' + d), out, json_array_size(lists[d]));
			json_array_append_new(notes, json_string(msg));
		}
		if (d == 0)
			rounds0 = r;
		differ |= r != rounds0;
		n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%c %lld", d ? ", " : "",
				      (char)('A' + d), r);
	}
	if (differ) {
		snprintf(msg, sizeof(msg), "rounds differ (%s): counts not judged, ratios are", list);
		json_array_append_new(notes, json_string(msg));
	}
	return differ;
}

/* A coarse distinct ratio counts ticks per round: across kernels of one tick (a patched and an
 * unpatched build, whose configs differ) only the speed of the loop moves it, which no config moves
 * by a gap of 0.5 (two rounds a tick), so it is judged on that gap; of another tick it is not. */
static bool judged_across(const struct mgb_column *c, enum mgb_drive drive, bool same_tick)
{
	return drive == DRIVE_TICK && same_tick && ends_with(c->path, "distinct_ratio");
}

/* Two columns of a cell that are one quantity under two names: the same events of the same
 * trials (ties, tie ratio), or the same values in every repeat of both sides (queries/s and per
 * thread with one thread).  A constant column is not a duplicate of another constant one. */
static bool same_quantity(const struct mgb_column *c, const struct mgb_column *e, const struct side *cs,
			  const struct side *es)
{
	if (c->events || e->events)
		return c->events && e->events && !strcmp(c->events, e->events) && !strcmp(c->trials, e->trials);
	for (int s = 0; s < 2; s++) {
		if (cs[s].n != es[s].n || cs[s].n == 0 || memcmp(cs[s].values, es[s].values, cs[s].n * sizeof(double)))
			return false;
	}
	return !identical(&cs[0], &cs[1]);
}

static json_t *compare_cell(json_t **lists, unsigned ndocs, const bool *comparable, const bool *same_tick,
			    const struct mgb_compare_opts *o)
{
	json_t *first = json_array_get(lists[0], 0), *fss = json_array(), *metrics = json_array(), *notes = json_array();
	const char *wname = json_string_value(json_object_get(first, "workload"));
	const struct mgb_workload *w = mgb_workload_find(wname);
	bool coarse[16], rounds_differ = cell_notes(lists, ndocs, notes);
	size_t ncols = 0, col = 0;
	const struct mgb_column **kept_col;
	struct side *kept; /* per judged column: base, then each document */

	for (const struct mgb_column *c = w ? w->columns : NULL; c && c->header; c++)
		ncols++;
	kept = calloc((ncols + 1) * ndocs, sizeof(*kept));
	kept_col = calloc(ncols + 1, sizeof(*kept_col));
	if (!kept || !kept_col)
		abort();
	for (unsigned d = 0; d < ndocs; d++) {
		coarse[d] = doc_coarse(lists[d]);
		json_array_append_new(fss, json_string(json_string_value(json_object_get(json_array_get(lists[d], 0), "fs"))));
	}
	for (const struct mgb_column *c = w ? w->columns : NULL; c && c->header; c++) {
		struct side *base = &kept[col * ndocs];
		json_t *values, *verdicts, *drives;
		bool timing = is_timing(c), absolute = rounds_differ && !c->events && !strcmp(c->format, "int");

		if (!wanted(c, o))
			continue;
		drives = json_array(); /* after the skip: a metric not asked for leaked one */
		values = json_array();
		verdicts = json_array();
		gather(w, lists[0], c, timing, base);
		json_array_append_new(values, side_json(base));
		json_array_append_new(verdicts, json_null());
		json_array_append_new(drives, c->events ? json_string(drive_name(proportion_drive(c, coarse[0]))) : json_null());
		for (unsigned d = 1; d < ndocs; d++) {
			struct side *side = &kept[col * ndocs + d];
			enum mgb_drive d0 = c->events ? proportion_drive(c, coarse[0]) : DRIVE_KERNEL;
			enum mgb_drive dd = c->events ? proportion_drive(c, coarse[d]) : DRIVE_KERNEL;
			struct judging j = {
				.timing = timing,
				.absolute_count = absolute,
				.drive = d0 > dd ? d0 : dd,
				.better = better_name(c->better),
				.alpha = o->alpha,
			};
			json_t *verdict;

			gather(w, lists[d], c, timing, side);
			json_array_append_new(values, side_json(side));
			json_array_append_new(drives, c->events ? json_string(drive_name(dd)) : json_null());
			/* a number that depends on time is judged only on one machine identity */
			j.comparable = comparable[d] || !(timing || j.drive != DRIVE_KERNEL);
			j.gap_only = !j.comparable && judged_across(c, j.drive, same_tick[d]);
			if (is_parameter(c) || is_flag(c)) {
				verdict = MGB_JSON_PACK("{s:s}", "verdict", "not tested");
			} else {
				verdict = judge(base, side, &j, c->format);
				/* one quantity under two names is one test: this one reads as the first */
				for (size_t e = 0; e < col; e++) {
					struct side pair_c[2] = { *base, *side }, pair_e[2] = { kept[e * ndocs], kept[e * ndocs + d] };
					json_t *ev = json_array_get(json_object_get(json_array_get(metrics, e), "against_base"), d);

					if (same_quantity(c, kept_col[e], pair_c, pair_e) &&
					    !strcmp(json_string_value(json_object_get(verdict, "verdict")) ?: "", "pending") &&
					    !strcmp(json_string_value(json_object_get(ev, "verdict")) ?: "", "pending")) {
						json_object_set(verdict, "same_as_verdict", ev);
						json_object_set_new(verdict, "same_as", json_string(kept_col[e]->header));
						break;
					}
				}
			}
			json_array_append_new(verdicts, verdict);
		}
		json_array_append_new(metrics, MGB_JSON_PACK("{s:s, s:s, s:s, s:o, s:s, s:b, s:o, s:o, s:o}", "metric",
							     c->path, "header", c->header, "format", c->format, "better",
							     better_name(c->better) ? json_string(better_name(c->better))
										    : json_null(),
							     "kind", c->events ? "proportion" : "continuous", "timing",
							     timing, "drive", drives, "values", values, "against_base", verdicts));
		kept_col[col++] = c;
	}
	for (size_t i = 0; i < col * ndocs; i++)
		side_free(&kept[i]);
	free(kept);
	free(kept_col);
	return MGB_JSON_PACK("{s:s, s:o, s:O, s:O, s:o, s:o, s:b}", "workload", wname, "fs", fss, "backend",
			     json_object_get(first, "backend"), "params", json_object_get(first, "params"), "metrics",
			     metrics, "notes", notes, "known_workload", w != NULL);
}

/* When a side's runs were made (the first and last "created", ISO 8601 UTC, which sort as text);
 * false unless the side has several runs that all say. */
static bool runs_span(json_t *doc, const char **first, const char **last)
{
	size_t i;
	json_t *cell;
	bool several = false;

	*first = *last = NULL;
	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		const char *t = json_string_value(json_object_get(cell, "run_created"));

		if (!t)
			return false;
		several |= cell_run(cell) != 0;
		if (!*first || strcmp(t, *first) < 0)
			*first = t;
		if (!*last || strcmp(t, *last) > 0)
			*last = t;
	}
	return several;
}

/* Runs of A all before B's (or after): a drift in the machine's load between the two blocks
 * reads as a change of a rate or time, which no test on the runs can tell apart. */
static void note_blocks(json_t *a, json_t *b, unsigned d, json_t *warnings)
{
	const char *a0, *a1, *b0, *b1;
	char msg[300];

	if (!runs_span(a, &a0, &a1) || !runs_span(b, &b0, &b1) || !(strcmp(a1, b0) < 0 || strcmp(b1, a0) < 0))
		return;
	snprintf(msg, sizeof(msg), "A's runs were all made %s %c's: a drift of the machine's load between them "
		 "reads as a change of a rate or time; alternate the runs (a1, b1, a2, b2, ...)",
		 strcmp(a1, b0) < 0 ? "before" : "after", (char)('A' + d));
	json_array_append_new(warnings, json_string(msg));
}

json_t *mgb_compare(json_t *const *docs, const char *const *paths, unsigned ndocs, const struct mgb_compare_opts *o)
{
	json_t *groups[16], *cells = json_array(), *unmatched = json_array(), *warnings = json_array();
	json_t *documents = json_array();
	bool across_fs = o->across_fs, comparable[16], same_tick[16];
	char *base_machine = doc_machine(docs[0]);
	json_t *base_id = doc_identity(docs[0]);
	struct family fam;
	const char *key;
	json_t *v;

	for (unsigned d = 0; d < ndocs; d++) {
		char *desc = mgb_doc_describe(docs[d]), *machine = doc_machine(docs[d]), diff[500];
		json_t *id = doc_identity(docs[d]);

		identity_diff(base_id, id, diff, sizeof(diff));
		comparable[d] = !*diff;
		same_tick[d] = json_is_integer(json_object_get(id, "tick")) &&
			       json_equal(json_object_get(id, "tick"), json_object_get(base_id, "tick"));
		json_decref(id);
		json_array_append_new(documents, MGB_JSON_PACK("{s:o, s:o, s:o, s:b}", "path", mgb_json_text(paths[d]),
							       "describe", mgb_json_text(desc), "machine",
							       mgb_json_text(machine), "guest",
							       json_object_get(docs[d], "vm") != NULL));
		if (!comparable[d]) {
			char msg[900];

			snprintf(msg, sizeof(msg), "%c differs from A in %s: rates, times, per-tick figures, cost "
				 "ratios get no verdict, coarse distinct ratios one only on a gap of 0.5 and %s; "
				 "counts and multigrain distinct ratios do", (char)('A' + d), diff,
				 same_tick[d] ? "only as the tick is the same" : "not here, as the tick differs");
			json_array_append_new(warnings, mgb_json_text(msg));
		}
		free(desc);
		free(machine);
	}
	free(base_machine);
	json_decref(base_id);
	for (unsigned d = 1; d < ndocs; d++)
		note_blocks(docs[0], docs[d], d, warnings);
	for (unsigned d = 0; d < ndocs; d++)
		groups[d] = group_cells(docs[d], across_fs);
	/* Documents of one filesystem each (ramfs against tmpfs): nothing matches by fs, so match across. */
	if (!across_fs && count_matched(groups, ndocs) == 0) {
		bool one_each = true;
		const char *fs = NULL;
		char msg[400];
		int n = snprintf(msg, sizeof(msg), "each document holds one filesystem (");

		for (unsigned d = 0; d < ndocs; d++) {
			one_each &= mgb_compare_fs_count(docs[d], &fs) == 1;
			n += snprintf(msg + n, sizeof(msg) - (size_t)n, "%s%s", d ? ", " : "", one_each && fs ? fs : "?");
		}
		for (unsigned d = 1; one_each && d < ndocs; d++) {
			const char *f0, *fd;

			mgb_compare_fs_count(docs[0], &f0);
			mgb_compare_fs_count(docs[d], &fd);
			one_each = f0 && fd && strcmp(f0, fd);
		}
		if (one_each) {
			snprintf(msg + n, sizeof(msg) - (size_t)n, "): cells matched across filesystems");
			json_array_append_new(warnings, json_string(msg));
			across_fs = true;
			for (unsigned d = 0; d < ndocs; d++) {
				json_decref(groups[d]);
				groups[d] = group_cells(docs[d], true);
			}
		}
	}
	/* Matched: keys in every document, in the base's order. */
	json_object_foreach(groups[0], key, v) {
		json_t *lists[16] = { 0 };
		bool all = true;

		for (unsigned d = 0; d < ndocs; d++)
			all &= (lists[d] = json_object_get(groups[d], key)) != NULL;
		if (all)
			json_array_append_new(cells, compare_cell(lists, ndocs, comparable, same_tick, o));
	}
	/* Unmatched: listed, never dropped silently. */
	for (unsigned d = 0; d < ndocs; d++)
		json_object_foreach(groups[d], key, v) {
			bool all = true;
			json_t *cell = json_array_get(v, 0);

			for (unsigned e = 0; e < ndocs; e++)
				all &= json_object_get(groups[e], key) != NULL;
			if (!all)
				json_array_append_new(unmatched, MGB_JSON_PACK("{s:i, s:O, s:O, s:O, s:O}", "document", (int)d,
									       "workload", json_object_get(cell, "workload"),
									       "fs", json_object_get(cell, "fs"), "backend",
									       json_object_get(cell, "backend"), "params",
									       json_object_get(cell, "params")));
		}
	for (unsigned d = 0; d < ndocs; d++)
		json_decref(groups[d]);
	fam = adjust_table(cells, o->alpha);
	return MGB_JSON_PACK("{s:s, s:f, s:s, s:i, s:i, s:i, s:b, s:o, s:o, s:o, s:o}", "schema", MGB_SCHEMA "/compare",
			     "alpha", o->alpha, "adjustment", "benjamini-hochberg", "tests", (int)fam.tests,
			     "tests_left_out", (int)fam.cannot, "duplicates", (int)fam.duplicates, "across_fs", across_fs,
			     "documents", documents, "warnings", warnings, "cells", cells, "unmatched", unmatched);
}

/* A document's clocksource, or "not recorded". */
static const char *doc_clocksource(json_t *doc)
{
	return json_string_value(mgb_json_path(doc, "kernel.clocks.clocksource")) ?: "not recorded";
}

json_t *mgb_compare_merge_runs(json_t *const *docs, const char *const *paths, unsigned n, char *err)
{
	json_t *merged = json_deep_copy(docs[0]), *cells = json_array(), *id0 = doc_identity(docs[0]);
	char *kernel0 = mgb_doc_describe(docs[0]);
	int rc = 0;

	/*
	 * A guest picks its clocksource at each boot: under TCG on a busy host the kernel's watchdog
	 * can find the TSC unstable and fall back to hpet in one boot of a side.  The side then is
	 * "tsc / hpet": its rates match no other side's (no verdict), its counts still do.
	 */
	bool guests = json_object_get(docs[0], "vm") != NULL;
	const char *cs0 = doc_clocksource(docs[0]);
	char mixed[200];

	snprintf(mixed, sizeof(mixed), "%s", cs0);
	if (guests)
		json_object_del(id0, "clocksource");
	for (unsigned k = 0; k < n && rc == 0; k++) {
		json_t *id = doc_identity(docs[k]), *cell;
		char *kernel = mgb_doc_describe(docs[k]), diff[500];
		const char *cs = doc_clocksource(docs[k]);
		size_t i;

		if (guests && json_object_get(docs[k], "vm")) {
			json_object_del(id, "clocksource");
			if (!strstr(mixed, cs) && strlen(mixed) + strlen(cs) + 4 < sizeof(mixed))
				snprintf(mixed + strlen(mixed), sizeof(mixed) - strlen(mixed), " / %s", cs);
		}
		identity_diff(id0, id, diff, sizeof(diff));
		if (*diff)
			rc = mgb_err(err, "%s and %s differ in %s: the runs of one side come from one machine", paths[0],
				     paths[k], diff);
		else if (strcmp(kernel, kernel0))
			rc = mgb_err(err, "%s (%s) and %s (%s): the runs of one side are of one kernel", paths[0], kernel0,
				     paths[k], kernel);
		json_array_foreach(json_object_get(docs[k], "cells"), i, cell) {
			json_t *c = json_deep_copy(cell);

			json_object_set_new(c, "run", json_integer(k));
			json_object_set(c, "run_created", json_object_get(docs[k], "created") ?: json_null());
			json_array_append_new(cells, c);
		}
		json_decref(id);
		free(kernel);
	}
	free(kernel0);
	json_decref(id0);
	json_object_set_new(merged, "cells", cells);
	if (rc == 0 && strcmp(mixed, cs0))
		json_object_set_new(json_object_get(json_object_get(merged, "kernel"), "clocks"), "clocksource",
				    json_string(mixed));
	if (rc < 0) {
		json_decref(merged);
		return NULL;
	}
	return merged;
}

int mgb_compare_sides(json_t *const *docs, const char *const *paths, unsigned ndocs, const unsigned *side_of,
		      unsigned nsides, json_t **sides, char **names, char *err)
{
	for (unsigned s = 0; s < nsides; s++) {
		json_t *mine[MGB_DOCS_MAX];
		const char *my_paths[MGB_DOCS_MAX];
		unsigned n = 0;
		size_t len = 0;
		FILE *f = open_memstream(&names[s], &len);

		if (!f)
			abort();
		for (unsigned d = 0; d < ndocs; d++)
			if (side_of[d] == s) {
				fprintf(f, "%s%s", n ? " " : "", paths[d]);
				my_paths[n] = paths[d];
				mine[n++] = docs[d];
			}
		fclose(f);
		sides[s] = n == 1 ? json_incref(mine[0]) : mgb_compare_merge_runs(mine, my_paths, n, err);
		if (!sides[s])
			return -1;
	}
	return 0;
}
