/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: compare's matching and verdicts on crafted documents: what is shown is what is tested,
 * and what cannot be judged says so. */
#include "config.h"
#include "compare.h"
#include "helpers.h"
#include "result.h"

#include <math.h>
#include <string.h>

/* A write cell with distinct of rounds, writes/s, status and rounds as given. */
static json_t *cell(const char *fs, int repeat, double distinct, double rounds, double rate, const char *status)
{
	return json_pack("{s:s, s:s, s:{s:s, s:{}}, s:{s:s, s:i}, s:i, s:i, s:s, s:{s:b}, s:{s:{s:f, s:f, s:f, "
			 "s:i, s:i, s:f}, s:f, s:i}}",
			 "workload", "write", "fs", fs, "backend", "name", "sync", "options", "params", "query", "every",
			 "size", 4096, "repeat", repeat, "rounds", (int)rounds, "status", status, "multigrain", "in_effect",
			 true, "metrics", "ctime", "distinct", distinct, "rounds", rounds, "distinct_ratio",
			 distinct / rounds, "backwards", 0, "future", 0, "distinct_per_tick", 1.0, "writes_per_s", rate,
			 "ctime_changes", (int)distinct);
}

static json_t *doc(json_t *cells, int tick)
{
	return json_pack("{s:s, s:{s:s, s:i}, s:{s:s, s:s, s:{s:{s:i, s:i}}}, s:o}", "schema", "mgbench/1", "host",
			 "name", "h", "cpus", 2, "kernel", "release", "6.18", "version", "#1 SMP PREEMPT_DYNAMIC",
			 "clocks", "resolution_ns", "monotonic", 1, "monotonic_coarse", tick, "cells", cells);
}

static json_t *metric(json_t *cmp, const char *path)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(json_array_get(json_object_get(cmp, "cells"), 0), "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "metric")), path))
			return m;
	return NULL;
}

static const char *verdict(json_t *cmp, const char *path)
{
	json_t *v = json_array_get(json_object_get(metric(cmp, path), "against_base"), 1);

	return json_string_value(json_object_get(v, "verdict")) ?: "(none)";
}

static json_t *run(json_t *a, json_t *b)
{
	json_t *docs[2] = { a, b };
	const char *paths[2] = { "a.json", "b.json" };
	struct mgb_compare_opts o = { .alpha = 0.05 };

	return mgb_compare(docs, paths, 2, &o);
}

/* k documents of one repeat each, as a side of runs: distinct d_i of 2000 (multigrain or not), and
 * writes/s r_i. */
static json_t *side_of_runs(unsigned k, const double *distinct, const double *rate, bool mg, const char *fs)
{
	json_t *docs[16];
	const char *names[16] = { "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10" };
	char err[512];
	json_t *merged;

	for (unsigned i = 0; i < k; i++) {
		json_t *c = cell(fs, 0, distinct[i], 2000, rate[i], "ok");

		json_object_set_new(json_object_get(c, "multigrain"), "in_effect", json_boolean(mg));
		docs[i] = doc(json_pack("[o]", c), 4000000);
	}
	merged = k == 1 ? json_incref(docs[0]) : mgb_compare_merge_runs(docs, names, k, err);
	for (unsigned i = 0; i < k; i++)
		json_decref(docs[i]);
	return merged;
}

static bool significant(const char *v)
{
	return !strcmp(v, "better") || !strcmp(v, "worse") || !strcmp(v, "changed");
}

/* The property (issue 37): more runs a side never give a weaker verdict.  A multigrain
 * side (distinct 1.000) against a coarse one (0.000 or a round or two a run) for k = 1..8 runs a
 * side, in the full table whose backward and future are 0 against 0 and whose writes/s overlap:
 * significant from k = 1 (the gap) and never "no change" or "n too small" after.  Same-kernel
 * runs get no verdict, however many. */
static void more_runs_never_weaker(void)
{
	double all[8] = { 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000 }, few[8] = { 0, 1, 0, 0, 2, 0, 1, 0 };
	double ra[8] = { 100, 130, 90, 120, 110, 95, 125, 105 }, rb[8] = { 115, 92, 128, 101, 122, 98, 111, 133 };
	bool was = false;

	for (unsigned k = 1; k <= 8; k++) {
		json_t *a = side_of_runs(k, all, ra, true, "tmpfs"), *b = side_of_runs(k, few, rb, false, "ramfs");
		json_t *cmp = run(a, b), *v;
		const char *d = verdict(cmp, "ctime.distinct_ratio");

		T_CHECK(!strcmp(d, "worse"), "k=%u: 1.000 against 0.000 is worse: %s", k, d);
		T_CHECK(!was || significant(d), "k=%u: significant with fewer runs, not now: %s", k, d);
		was |= significant(d);
		T_CHECK(!significant(verdict(cmp, "writes_per_s")), "k=%u: overlapping rates: %s", k,
			verdict(cmp, "writes_per_s"));
		/* backward and future (0 against 0) cannot decide: out of the family */
		T_CHECK(json_integer_value(json_object_get(cmp, "tests_left_out")) +
					!strcmp(json_string_value(json_object_get(json_array_get(json_object_get(metric(cmp, "ctime.backwards"),
														  "against_base"), 1),
								      "basis")) ?: "", "identical") >= 1 &&
				!strcmp(verdict(cmp, "ctime.backwards"), "no change"),
			"k=%u: 0 against 0 is no change, not tested: %s", k, verdict(cmp, "ctime.backwards"));
		/* the p printed is the one the decision rests on: the gap (k < 4) is no p over rounds */
		v = json_array_get(json_object_get(metric(cmp, "ctime.distinct_ratio"), "against_base"), 1);
		T_CHECK(k >= 4 || !strcmp(json_string_value(json_object_get(v, "basis")) ?: "", "gap"),
			"k=%u: decided by the gap: %s", k, json_string_value(json_object_get(v, "basis")));
		json_decref(cmp);
		json_decref(a);
		/* the same kernel against itself, k runs a side: no verdict on anything */
		a = side_of_runs(k, all, ra, true, "tmpfs");
		json_decref(b);
		b = side_of_runs(k, all, rb, true, "tmpfs");
		cmp = run(a, b);
		T_CHECK(!significant(verdict(cmp, "ctime.distinct_ratio")) && !significant(verdict(cmp, "writes_per_s")) &&
				!significant(verdict(cmp, "ctime_changes")),
			"k=%u: same kernel: distinct %s, writes/s %s, changes %s", k, verdict(cmp, "ctime.distinct_ratio"),
			verdict(cmp, "writes_per_s"), verdict(cmp, "ctime_changes"));
		json_decref(cmp);
		json_decref(a);
		json_decref(b);
	}
}

/* A real change (writes/s halved, 4 and 5 runs a side, runs fully apart) is not "no change"
 * because untestable columns share its table: 0 against 0 is out of the family, and when a
 * testable column does dilute it at 4 a side the verdict is "n too small", never "no change". */
static void no_dilution(void)
{
	double all[8] = { 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000 };
	double wobble[8] = { 2000, 1999, 2000, 1998, 2000, 1999, 2000, 2000 };
	double ra[8] = { 380, 390, 385, 395, 388, 0, 0, 0 }, rb[8] = { 180, 190, 185, 183, 186, 0, 0, 0 };
	json_t *a, *b, *cmp;

	a = side_of_runs(4, all, ra, true, "tmpfs");
	b = side_of_runs(4, all, rb, true, "tmpfs");
	cmp = run(a, b);
	T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "worse"), "-51%% over 4 runs a side: %s",
		verdict(cmp, "writes_per_s"));
	json_decref(cmp);
	json_decref(b);
	b = side_of_runs(4, wobble, rb, true, "tmpfs");
	cmp = run(a, b);
	T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "n too small") || !strcmp(verdict(cmp, "writes_per_s"), "worse"),
		"diluted at 4 a side: n too small, not no change: %s", verdict(cmp, "writes_per_s"));
	json_decref(cmp);
	json_decref(a);
	json_decref(b);
	a = side_of_runs(5, wobble, ra, true, "tmpfs");
	b = side_of_runs(5, all, rb, true, "tmpfs");
	cmp = run(a, b);
	T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "worse"), "5 runs a side: %s", verdict(cmp, "writes_per_s"));
	json_decref(cmp);
	json_decref(a);
	json_decref(b);
}

/* Crafted cases: matching, notes, identities. */
static void review_cases(void)
{
	json_t *ca = json_array(), *cb = json_array(), *a, *b, *cmp, *v;

	/* repeats 100, 100, 900 of 1000 against 200, 200, 200: the value is the pooled 0.367,
	 * and the spread between A's repeats leaves no verdict */
	json_array_append_new(ca, cell("tmpfs", 0, 100, 1000, 100, "ok"));
	json_array_append_new(ca, cell("tmpfs", 1, 100, 1000, 101, "ok"));
	json_array_append_new(ca, cell("tmpfs", 2, 900, 1000, 102, "ok"));
	/* an interrupted repeat is left out, with a note */
	json_array_append_new(ca, cell("tmpfs", 3, 0, 1000, 0, "interrupted"));
	for (int i = 0; i < 3; i++)
		json_array_append_new(cb, cell("tmpfs", i, 200, 1000, 400 + i, "ok"));
	a = doc(ca, 4000000);
	b = doc(cb, 4000000);
	cmp = run(a, b);
	v = json_array_get(json_object_get(metric(cmp, "ctime.distinct_ratio"), "values"), 0);
	T_CHECK(fabs(json_number_value(json_object_get(v, "value")) - 1100.0 / 3000) < 1e-9 &&
			json_integer_value(json_object_get(v, "n")) == 3,
		"pooled value over the 3 usable repeats: %g n %lld", json_number_value(json_object_get(v, "value")),
		json_integer_value(json_object_get(v, "n")));
	T_CHECK(!strcmp(verdict(cmp, "ctime.distinct_ratio"), "no change"), "overdispersed: %s",
		verdict(cmp, "ctime.distinct_ratio"));
	T_CHECK(json_array_size(json_object_get(json_array_get(json_object_get(cmp, "cells"), 0), "notes")) == 1,
		"a note for the left-out repeat");
	/* a rate from one document a side: its repeats share one run's load, so no verdict */
	T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "no verdict") &&
			strstr(json_string_value(json_object_get(json_array_get(json_object_get(metric(cmp, "writes_per_s"),
												"against_base"), 1),
							    "reason")) ?: "",
			       "repeats share one run's load; give several runs per side"),
		"one run a side: %s", verdict(cmp, "writes_per_s"));
	T_CHECK(!strcmp(json_string_value(json_object_get(cmp, "adjustment")) ?: "", "benjamini-hochberg"),
		"multiple comparisons: the adjustment is named");
	json_decref(cmp);

	/* 3 runs against 3 cannot reach 0.05, whatever the change (+300 %) */
	{
		json_t *ra[3], *rb[3], *ma, *mb;
		const char *names[3] = { "a1.json", "a2.json", "a3.json" };
		char err[512];

		for (int i = 0; i < 3; i++) {
			ra[i] = doc(json_pack("[o]", cell("tmpfs", 0, 1000, 1000, 100 + i, "ok")), 4000000);
			rb[i] = doc(json_pack("[o]", cell("tmpfs", 0, 1000, 1000, 400 + i, "ok")), 4000000);
		}
		ma = mgb_compare_merge_runs(ra, names, 3, err);
		mb = mgb_compare_merge_runs(rb, names, 3, err);
		cmp = run(ma, mb);
		T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "n too small"), "3 runs a side: %s",
			verdict(cmp, "writes_per_s"));
		json_decref(ma);
		json_decref(mb);
		/* five runs a side decide it; each run's value is the median of its repeats (A's
		 * outlier repeat of 1e6 stays inside its run) */
		for (int i = 0; i < 3; i++) {
			json_decref(ra[i]);
			json_decref(rb[i]);
		}
		{
			json_t *fa[5], *fb[5];
			const char *five[5] = { "a1", "a2", "a3", "a4", "a5" };

			for (int i = 0; i < 5; i++) {
				fa[i] = doc(json_pack("[o, o, o]", cell("tmpfs", 0, 1000, 1000, 100 + i, "ok"),
						      cell("tmpfs", 1, 1000, 1000, 1e6, "ok"), cell("tmpfs", 2, 1000, 1000, 100 + i, "ok")),
					    4000000);
				fb[i] = doc(json_pack("[o, o]", cell("tmpfs", 0, 1000, 1000, 400 + i, "ok"),
						      cell("tmpfs", 1, 1000, 1000, 400 + i, "ok")),
					    4000000);
			}
			ma = mgb_compare_merge_runs(fa, five, 5, err);
			mb = mgb_compare_merge_runs(fb, five, 5, err);
			json_decref(cmp);
			cmp = run(ma, mb);
			T_CHECK(json_array_size(json_object_get(cmp, "warnings")) == 0, "no times, no note on their order");
			json_decref(cmp);
			json_decref(ma);
			json_decref(mb);
			/* A's runs all before B's: the order is named; alternated: not */
			for (int i = 0; i < 5; i++) {
				char t[32];

				snprintf(t, sizeof(t), "2026-12-04T10:00:%02dZ", i);
				json_object_set_new(fa[i], "created", json_string(t));
				snprintf(t, sizeof(t), "2026-12-04T10:00:%02dZ", 10 + i);
				json_object_set_new(fb[i], "created", json_string(t));
			}
			ma = mgb_compare_merge_runs(fa, five, 5, err);
			mb = mgb_compare_merge_runs(fb, five, 5, err);
			cmp = run(ma, mb);
			T_CHECK(strstr(json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)) ?: "",
				       "all made before B's"),
				"runs in two blocks are named: %s", json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)));
			json_decref(cmp);
			json_decref(ma);
			json_decref(mb);
			json_object_set_new(fb[0], "created", json_string("2026-12-04T10:00:01Z"));
			ma = mgb_compare_merge_runs(fa, five, 5, err);
			mb = mgb_compare_merge_runs(fb, five, 5, err);
			cmp = run(ma, mb);
			T_CHECK(json_array_size(json_object_get(cmp, "warnings")) == 0, "alternated runs: no note");
			v = json_array_get(json_object_get(metric(cmp, "writes_per_s"), "values"), 0);
			T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "better") && json_integer_value(json_object_get(v, "n")) == 5 &&
					json_number_value(json_object_get(v, "value")) == 102 &&
					json_integer_value(json_object_get(v, "runs")) == 5,
				"5 runs a side: %s, n %lld", verdict(cmp, "writes_per_s"),
				json_integer_value(json_object_get(v, "n")));
			json_decref(ma);
			json_decref(mb);
			/* runs of one side from another machine identity are refused */
			json_object_set_new(json_object_get(json_object_get(fa[4], "kernel"), "clocks"), "resolution_ns",
					    json_pack("{s:i, s:i}", "monotonic", 1, "monotonic_coarse", 10000000));
			ma = mgb_compare_merge_runs(fa, five, 5, err);
			T_CHECK(!ma && strstr(err, "tick"), "runs of one side from two machines: %s", err);
			for (int i = 0; i < 5; i++) {
				json_decref(fa[i]);
				json_decref(fb[i]);
			}
		}
		json_decref(cmp);
	}

	/* rounds differ (more rounds, more changes): a note, and absolute counts are not judged */
	json_array_append_new(cb, cell("tmpfs", 3, 400, 2000, 403, "ok"));
	json_object_set_new(json_array_get(cb, 0), "rounds", json_integer(2000));
	cmp = run(a, b);
	T_CHECK(!strcmp(verdict(cmp, "ctime_changes"), "not comparable"), "changes with other rounds: %s",
		verdict(cmp, "ctime_changes"));
	json_decref(cmp);

	/* another tick: rates get no verdict, and the note names the tick */
	json_decref(b);
	cb = json_array();
	for (int i = 0; i < 5; i++) {
		json_array_append_new(cb, cell("tmpfs", i, 1000, 1000, 900 + i, "ok"));
		json_array_append_new(json_object_get(a, "cells"), cell("tmpfs", 4 + i, 1000, 1000, 100 + i, "ok"));
	}
	b = doc(cb, 10000000);
	cmp = run(a, b);
	T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "not comparable") &&
			strstr(json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)) ?: "", "tick"),
		"another tick: %s", verdict(cmp, "writes_per_s"));
	json_decref(cmp);
	json_decref(b);

	/* per tick is a rate under another name: no verdict across machines */
	b = json_deep_copy(a);
	json_object_set_new(json_object_get(b, "host"), "name", json_string("guest"));
	for (size_t i = 0; i < json_array_size(json_object_get(a, "cells")); i++) {
		json_object_set_new(json_array_get(json_object_get(a, "cells"), i), "workload", json_string("meta"));
		json_object_set_new(json_array_get(json_object_get(b, "cells"), i), "workload", json_string("meta"));
		json_object_set_new(json_object_get(json_object_get(json_array_get(json_object_get(b, "cells"), i), "metrics"), "ctime"),
				    "distinct_per_tick", json_real(0.05));
	}
	cmp = run(a, b);
	T_CHECK(!strcmp(verdict(cmp, "ctime.distinct_per_tick"), "not comparable"), "per tick: %s",
		verdict(cmp, "ctime.distinct_per_tick"));
	json_decref(cmp);
	json_decref(b);
	for (size_t i = 0; i < json_array_size(json_object_get(a, "cells")); i++)
		json_object_set_new(json_array_get(json_object_get(a, "cells"), i), "workload", json_string("write"));

	/* 300 repeats a side are all used, none dropped past a fixed limit */
	cb = json_array();
	for (int i = 0; i < 300; i++)
		json_array_append_new(cb, cell("tmpfs", i, 50, 50, i < 256 ? 1 : 1e6, "ok"));
	b = doc(cb, 4000000);
	cmp = run(b, b);
	v = json_array_get(json_object_get(metric(cmp, "writes_per_s"), "values"), 0);
	T_CHECK(json_integer_value(json_object_get(v, "n")) == 300, "all repeats: n %lld of 300",
		json_integer_value(json_object_get(v, "n")));
	json_decref(cmp);
	json_decref(b);

	/* no trials is no value, not "no change" */
	cb = json_array();
	json_array_append_new(cb, cell("tmpfs", 0, 0, 1, 1, "ok"));
	json_object_set_new(json_object_get(json_object_get(json_array_get(cb, 0), "metrics"), "ctime"), "rounds",
			    json_integer(0));
	b = doc(cb, 4000000);
	cmp = run(b, b);
	T_CHECK(!strcmp(verdict(cmp, "ctime.distinct_ratio"), "missing"), "zero trials: %s",
		verdict(cmp, "ctime.distinct_ratio"));
	json_decref(cmp);
	json_decref(b);

	/* machine identity: an outer host null or absent is "not recorded" alike, and a difference
	 * says "not recorded", not "unrecorded" vs null */
	json_object_set_new(a, "vm", json_pack("{s:s, s:i}", "accel", "tcg", "cpus", 1));
	b = json_deep_copy(a);
	json_object_set_new(json_object_get(b, "vm"), "host", json_null());
	cmp = run(a, b);
	T_CHECK(json_array_size(json_object_get(cmp, "warnings")) == 0, "an absent and a null outer host are alike: %s",
		json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)));
	json_decref(cmp);
	json_object_set_new(json_object_get(b, "vm"), "host", json_string("big"));
	cmp = run(a, b);
	T_CHECK(strstr(json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)) ?: "",
		       "outer host not recorded vs \"big\""),
		"the difference reads 'not recorded': %s", json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)));
	json_decref(cmp);

	/* two guests whose kernels were built with different timekeeping: named by option, and an
	 * option not set reads "not set" */
	json_object_set_new(json_object_get(b, "vm"), "host", json_null());
	json_object_set_new(json_object_get(a, "vm"), "kernel_config",
			    json_pack("{s:{s:s, s:s}}", "options", "CONFIG_HZ", "250", "CONFIG_HIGH_RES_TIMERS", "y"));
	json_object_set_new(json_object_get(b, "vm"), "kernel_config",
			    json_pack("{s:{s:s, s:n}}", "options", "CONFIG_HZ", "100", "CONFIG_HIGH_RES_TIMERS"));
	cmp = run(a, b);
	T_CHECK(strstr(json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)) ?: "",
		       "CONFIG_HZ \"250\" vs \"100\"") &&
			strstr(json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)) ?: "",
			       "CONFIG_HIGH_RES_TIMERS \"y\" vs \"not set\""),
		"guest configs that differ are named: %s", json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)));
	json_decref(cmp);

	/* a tinyconfig build and a --config debian build of the same source: the base is named, in
	 * the warning and in the label */
	json_object_set_new(json_object_get(b, "vm"), "kernel_config", json_deep_copy(json_object_get(json_object_get(a, "vm"), "kernel_config")));
	json_object_set_new(json_object_get(a, "vm"), "kernel_source",
			    json_pack("{s:{s:s, s:s}}", "manifest", "version", "6.1.192", "config_base", "tinyconfig"));
	json_object_set_new(json_object_get(b, "vm"), "kernel_source",
			    json_pack("{s:{s:s, s:s}}", "manifest", "version", "6.1.192", "config_base", "debian"));
	cmp = run(a, b);
	T_CHECK(strstr(json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)) ?: "",
		       "config base \"tinyconfig\" vs \"debian\""),
		"the config base is named: %s", json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)));
	json_decref(cmp);
	{
		char *la = mgb_doc_describe(a), *lb = mgb_doc_describe(b);

		T_CHECK(!strstr(la, "Debian") && strstr(lb, "6.1.192, Debian config"), "labels: '%s' and '%s'", la, lb);
		free(la);
		free(lb);
	}
	json_decref(a);
	json_decref(b);

	/* an unpatched and a patched guest, one run each: their configs differ but not their tick, so a
	 * coarse distinct ratio's gap of 0.5 is judged; a smaller gap, or another tick, is not */
	{
		struct {
			double base, side;
			int tick;
			const char *want;
		} cases[] = { { 3, 1000, 4000000, "better" },
			      { 3, 200, 4000000, "no verdict" },
			      { 3, 1000, 10000000, "not comparable" } };

		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			ca = json_array();
			cb = json_array();
			json_array_append_new(ca, cell("tmpfs", 0, cases[k].base, 1000, 100, "ok"));
			json_object_set_new(json_object_get(json_array_get(ca, 0), "multigrain"), "in_effect", json_false());
			json_array_append_new(cb, cell("tmpfs", 0, cases[k].side, 1000, 100, "ok"));
			a = doc(ca, 4000000);
			b = doc(cb, cases[k].tick);
			json_object_set_new(a, "vm", json_pack("{s:s, s:i, s:{s:{s:s}}}", "accel", "tcg", "cpus", 1,
							       "kernel_config", "options", "CONFIG_PREEMPT_VOLUNTARY", "y"));
			json_object_set_new(b, "vm", json_pack("{s:s, s:i, s:{s:{s:n}}}", "accel", "tcg", "cpus", 1,
							       "kernel_config", "options", "CONFIG_PREEMPT_VOLUNTARY"));
			cmp = run(a, b);
			T_CHECK(!strcmp(verdict(cmp, "ctime.distinct_ratio"), cases[k].want),
				"coarse %g vs %g of 1000, tick %d: %s (want %s)", cases[k].base, cases[k].side,
				cases[k].tick, verdict(cmp, "ctime.distinct_ratio"), cases[k].want);
			T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "not comparable"),
				"a rate across configs stays unjudged: %s", verdict(cmp, "writes_per_s"));
			json_decref(cmp);
			json_decref(a);
			json_decref(b);
		}
	}
}

/* Machine identity: the CPU model, and the preemption model in effect (not "dynamic" for every
 * PREEMPT_DYNAMIC kernel): two documents that differ in either get no verdict on a rate. */
static void identity(void)
{
	double all[2] = { 2000, 2000 }, r[2] = { 100, 200 };
	json_t *a = side_of_runs(1, all, r, true, "tmpfs"), *b = side_of_runs(1, all, r + 1, true, "tmpfs"), *cmp;
	const char *w;

	json_object_set_new(json_object_get(a, "host"), "cpu_model", json_string("AMD EPYC"));
	json_object_set_new(json_object_get(b, "host"), "cpu_model", json_string("Intel Xeon"));
	json_object_set_new(json_object_get(a, "kernel"), "config", json_pack("{s:s}", "preempt", "none"));
	json_object_set_new(json_object_get(b, "kernel"), "config", json_pack("{s:s}", "preempt", "full"));
	cmp = run(a, b);
	w = json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)) ?: "";
	T_CHECK(strstr(w, "CPU model \"AMD EPYC\" vs \"Intel Xeon\"") && strstr(w, "preemption \"none\" vs \"full\""),
		"the CPU and the preemption in effect are named: %s", w);
	T_CHECK(!strcmp(verdict(cmp, "writes_per_s"), "not comparable"), "a rate across them: %s",
		verdict(cmp, "writes_per_s"));
	json_decref(cmp);
	json_object_set_new(json_object_get(b, "host"), "cpu_model", json_string("AMD EPYC"));
	json_object_set_new(json_object_get(b, "kernel"), "config", json_pack("{s:s}", "preempt", "none"));
	cmp = run(a, b);
	T_CHECK(json_array_size(json_object_get(cmp, "warnings")) == 0, "the same machine: no note: %s",
		json_string_value(json_array_get(json_object_get(cmp, "warnings"), 0)));
	json_decref(cmp);
	json_decref(a);
	json_decref(b);
}

/* Three runs whose clocksource is tsc, hpet, tsc: as guests (the clocksource is each boot's),
 * one side "tsc / hpet"; as hosts, not one machine. */
static void clocksource_of_runs(void)
{
	const char *names[3] = { "r1", "r2", "r3" }, *cs[3] = { "tsc", "hpet", "tsc" };
	json_t *docs[3], *merged;
	char err[512] = "";

	for (int guest = 1; guest >= 0; guest--) {
		for (unsigned i = 0; i < 3; i++) {
			docs[i] = doc(json_pack("[o]", cell("tmpfs", 0, 2000, 2000, 1000, "ok")), 4000000);
			json_object_set_new(json_object_get(json_object_get(docs[i], "kernel"), "clocks"), "clocksource",
					    json_string(cs[i]));
			if (guest)
				json_object_set_new(docs[i], "vm", json_pack("{s:s}", "accel", "tcg"));
		}
		merged = mgb_compare_merge_runs(docs, names, 3, err);
		if (guest)
			T_CHECK(merged && !strcmp(json_string_value(mgb_json_path(merged, "kernel.clocks.clocksource")) ?: "",
						  "tsc / hpet"),
				"guests: one side, its clocksource \"tsc / hpet\": %s", merged ? "" : err);
		else
			T_CHECK(!merged && strstr(err, "clocksource"), "hosts: not one machine, named: %s", err);
		json_decref(merged);
		for (unsigned i = 0; i < 3; i++)
			json_decref(docs[i]);
	}
}

int main(void)
{
	T_RUN(identity());
	T_RUN(clocksource_of_runs());
	T_RUN(more_runs_never_weaker());
	T_RUN(no_dilution());
	T_RUN(review_cases());
	return t_result();
}
