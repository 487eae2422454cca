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
	}
	json_object_set(id, "CPUs", json_object_get(vm ? vm : host, "cpus") ?: json_null());
	/* the tick as the kernel reports it (clock_getres), not as measured on a busy machine */
	json_object_set(id, "tick", json_object_get(json_object_get(clocks, "resolution_ns"), "monotonic_coarse") ?: json_null());
	json_object_set(id, "hrtimer", json_object_get(json_object_get(clocks, "resolution_ns"), "monotonic") ?: json_null());
	json_object_set(id, "clocksource", json_object_get(clocks, "clocksource") ?: json_null());
	json_object_set_new(id, "preemption", json_string(strstr(version, "PREEMPT_RT") ? "rt"
							  : strstr(version, "PREEMPT_DYNAMIC") ? "dynamic"
							  : strstr(version, "PREEMPT ") ? "full" : "none"));
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

/* A number that depends on time: rates, times, per-tick figures, the cost ratios and journal
 * figures (their background part is per elapsed time), the ctime changes seen (elapsed ticks on
 * a coarse filesystem, a writer's pace under stat --writer), and on a coarse filesystem the
 * distinct ratio (elapsed ticks / rounds). */
static bool is_timing(const struct mgb_column *c, bool coarse)
{
	return !strcmp(c->format, "rate") || !strcmp(c->format, "ns") || ends_with(c->path, "_ns") ||
	       ends_with(c->path, "_per_s") || ends_with(c->path, "_per_tick") || ends_with(c->path, "_per_1000") ||
	       (!strcmp(c->format, "float") && ends_with(c->path, "_ratio")) ||
	       strstr(c->path, "ctime_changes") || (coarse && ends_with(c->path, "distinct_ratio"));
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
static void collapse_runs(struct side *s, const long long *runs)
{
	double *v = malloc((s->n + 1) * sizeof(double));
	size_t out = 0;

	if (!v)
		abort();
	for (size_t i = 0; i < s->n; i++) {
		size_t m = 0, j;

		for (j = 0; j < i && runs[j] != runs[i]; j++)
			;
		if (j < i)
			continue; /* this run is done */
		for (j = i; j < s->n; j++)
			if (runs[j] == runs[i])
				v[m++] = s->values[j];
		s->values[out++] = mgb_median(v, m);
	}
	free(v);
	s->n = out;
	s->counts = false;
}

static void side_free(struct side *s)
{
	free(s->values);
	free(s->events);
	free(s->trials);
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
	free(runs);
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

/* The test of new against base for one metric.  The verdict is left "pending" when it rests on
 * p: mgb_compare decides it once the whole table's p-values are adjusted. */
static json_t *judge(struct side *base, struct side *new, bool comparable, bool timing, bool absolute_count,
		     double alpha)
{
	bool proportion = base->counts && new->counts, one_run = false;
	struct mgb_test t;
	double b;
	const char *verdict = "pending";
	json_t *j;

	if (base->n == 0 || new->n == 0)
		return MGB_JSON_PACK("{s:s}", "verdict", "missing");
	b = side_value(base);
	/* a timing from one run a side: its repeats share that run's load, so their spread says
	 * nothing of the spread between runs; only a time-driven proportion's gap of 0.5 decides.
	 * The change is shown, with no interval and no p. */
	if (timing && comparable && !absolute_count && (base->runs < 2 || new->runs < 2) && !proportion) {
		double change = side_value(new) - b;

		return MGB_JSON_PACK("{s:s, s:s, s:o, s:o}", "verdict", "no verdict", "reason", MGB_ONE_RUN_REASON,
				     "change", num_or_null(change), "relative",
				     b != 0 ? num_or_null(change / fabs(b)) : json_null());
	}
	/* a time-driven proportion (coarse distinct: ticks / rounds) spreads like a timing between
	 * runs: with repeats it is judged like one, by ranks of its per-repeat values */
	if (proportion) {
		struct mgb_counts a = { base->events, base->trials, base->n }, n = { new->events, new->trials, new->n };

		t = mgb_test_repeat_proportions(&a, &n, alpha);
	} else {
		t = mgb_test_mann_whitney(base->values, base->n, new->values, new->n, alpha);
	}
	if (!comparable || absolute_count)
		verdict = "not comparable";
	else if (isnan(t.p))
		verdict = "missing";
	else if (proportion && ((base->n == 1 && new->n == 1) || timing) && fabs(t.effect) < MGB_ONE_RUN_GAP)
		/* one run a side: a smaller gap than this is within run-to-run spread */
		verdict = "no change", one_run = true;
	else if (t.min_p >= alpha)
		verdict = "n too small";
	j = MGB_JSON_PACK("{s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:i, s:s, s:b, s:b}", "change",
			  num_or_null(t.effect), "relative", b != 0 && !proportion ? num_or_null(t.effect / fabs(b)) : json_null(),
			  "ci", isnan(t.lo) ? json_null() : json_pack("[f, f]", t.lo, t.hi), "ci_relative",
			  isnan(t.lo) || b == 0 || proportion ? json_null()
							      : json_pack("[f, f]", t.lo / fabs(b), t.hi / fabs(b)),
			  "dispersion", num_or_null(t.dispersion), "test", t.name, "p", num_or_null(t.p), "min_p",
			  num_or_null(t.min_p), "direction", t.dir, "verdict", verdict, "comparable", comparable, "one_run",
			  one_run);
	return j;
}

/* The verdict of a tested metric once its p is adjusted across the table. */
static const char *decide(const char *better, double q, int dir, double alpha)
{
	if (q >= alpha || dir == 0)
		return "no change";
	if (!better)
		return "changed";
	return (dir > 0) == !strcmp(better, "higher") ? "better" : "worse";
}

/* Benjamini-Hochberg over every pending test of the table, then each one's verdict. */
static unsigned adjust_table(json_t *cells, double alpha)
{
	size_t i, j, k, n = 0;
	json_t *c, *m, *v;
	json_t **pending = NULL;
	double *p;

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
	for (i = 0; i < n; i++)
		p[i] = json_number_value(json_object_get(pending[i], "p"));
	mgb_adjust_bh(p, n);
	for (i = 0; i < n; i++) {
		v = pending[i];
		json_object_set_new(v, "p_adjusted", json_real(p[i]));
		json_object_set_new(v, "verdict", json_string(decide(json_string_value(json_object_get(v, "better")), p[i],
								    (int)json_integer_value(json_object_get(v, "direction")),
								    alpha)));
		json_object_del(v, "better");
	}
	free(p);
	free(pending);
	return (unsigned)n;
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

/* Whether any usable cell of any document ran without multigrain: its distinct ratio is then
 * elapsed ticks / rounds, a timing. */
static bool any_coarse(json_t **lists, unsigned ndocs)
{
	size_t i;
	json_t *cell;

	for (unsigned d = 0; d < ndocs; d++)
		json_array_foreach(lists[d], i, cell)
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
static bool judged_across(const struct mgb_column *c, bool coarse, bool same_tick)
{
	return coarse && same_tick && ends_with(c->path, "distinct_ratio");
}

static json_t *compare_cell(json_t **lists, unsigned ndocs, const bool *comparable, const bool *same_tick,
			    const struct mgb_compare_opts *o)
{
	json_t *first = json_array_get(lists[0], 0), *fss = json_array(), *metrics = json_array(), *notes = json_array();
	const char *wname = json_string_value(json_object_get(first, "workload"));
	const struct mgb_workload *w = mgb_workload_find(wname);
	bool coarse = any_coarse(lists, ndocs), rounds_differ = cell_notes(lists, ndocs, notes);

	for (unsigned d = 0; d < ndocs; d++)
		json_array_append_new(fss, json_string(json_string_value(json_object_get(json_array_get(lists[d], 0), "fs"))));
	for (const struct mgb_column *c = w ? w->columns : NULL; c && c->header; c++) {
		struct side base, side;
		json_t *values, *verdicts;
		bool timing = is_timing(c, coarse), absolute = rounds_differ && !c->events && !strcmp(c->format, "int");

		if (!wanted(c, o))
			continue;
		values = json_array();
		verdicts = json_array();
		gather(w, lists[0], c, timing, &base);
		json_array_append_new(values, side_json(&base));
		json_array_append_new(verdicts, json_null());
		for (unsigned d = 1; d < ndocs; d++) {
			gather(w, lists[d], c, timing, &side);
			json_array_append_new(values, side_json(&side));
			if (is_parameter(c) || is_flag(c))
				json_array_append_new(verdicts, MGB_JSON_PACK("{s:s}", "verdict", "not tested"));
			else
				json_array_append_new(verdicts, judge(&base, &side,
								      comparable[d] || !timing ||
									      judged_across(c, coarse, same_tick[d]),
								      timing,
								      absolute, o->alpha));
			side_free(&side);
		}
		side_free(&base);
		json_array_append_new(metrics, MGB_JSON_PACK("{s:s, s:s, s:s, s:o, s:s, s:b, s:o, s:o}", "metric", c->path,
							     "header", c->header, "format", c->format, "better",
							     better_name(c->better) ? json_string(better_name(c->better))
										    : json_null(),
							     "kind", c->events ? "proportion" : "continuous", "timing",
							     timing, "values", values, "against_base", verdicts));
	}
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
	unsigned ntests;
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
		json_t *lists[16];
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
	ntests = adjust_table(cells, o->alpha);
	return MGB_JSON_PACK("{s:s, s:f, s:s, s:i, s:b, s:o, s:o, s:o, s:o}", "schema", MGB_SCHEMA "/compare", "alpha",
			     o->alpha, "adjustment", "benjamini-hochberg", "tests", (int)ntests, "across_fs", across_fs,
			     "documents", documents, "warnings", warnings, "cells", cells, "unmatched", unmatched);
}

json_t *mgb_compare_merge_runs(json_t *const *docs, const char *const *paths, unsigned n, char *err)
{
	json_t *merged = json_deep_copy(docs[0]), *cells = json_array(), *id0 = doc_identity(docs[0]);
	char *kernel0 = mgb_doc_describe(docs[0]);
	int rc = 0;

	for (unsigned k = 0; k < n && rc == 0; k++) {
		json_t *id = doc_identity(docs[k]), *cell;
		char *kernel = mgb_doc_describe(docs[k]), diff[500];
		size_t i;

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
	if (rc < 0) {
		json_decref(merged);
		return NULL;
	}
	return merged;
}
