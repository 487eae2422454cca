/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cost: medians over cycles, and the paired figures against the controls: each cycle's phase of
 * one kind against the same cycle's control, so drift between cycles cancels, summarised by the
 * median and range of those pairs (a ratio of medians would throw the pairing away).
 */
#include "config.h"
#include "json_text.h"
#include "stats.h"
#include "cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A phase's number at key (in its sub-object sub, if not NULL), or NaN. */
static double phase_number(json_t *ph, const char *key, const char *sub)
{
	json_t *x = sub ? json_object_get(json_object_get(ph, sub), key) : json_object_get(ph, key);

	return json_is_number(x) ? json_number_value(x) : NAN;
}

static bool is_kind(json_t *ph, enum cost_kind k)
{
	return !strcmp(json_string_value(json_object_get(ph, "kind")), cost_kind_names[k]);
}

bool cost_is_per_1000(const char *key)
{
	size_t n = strlen(key);

	return n > 9 && !strcmp(key + n - 9, "_per_1000");
}

unsigned cost_short_phases(json_t *phases, enum cost_kind k)
{
	unsigned n = 0;
	json_t *ph;
	size_t i;

	json_array_foreach(phases, i, ph)
		n += json_is_true(json_object_get(ph, "short")) && (k == KIND_COUNT || is_kind(ph, k));
	return n;
}

/*
 * A stream that reached less than this share of --poll-rate is named in the warnings: a figure
 * plotted or compared against the rate asked for would stand at a rate that never ran.
 */
#define POLL_REACHED_SHARE 0.8
/* Fewer expected queries than this in a kind's windows: one query more or less is 5 %. */
#define POLL_MIN_EXPECTED 20.0

int cost_poll_shortfall(json_t *phases, uint64_t requested, char *msg, size_t len)
{
	static const enum cost_kind polled[] = { KIND_SIZE, KIND_CTIME };
	double worst_share = 1.0, worst_rate = 0;
	enum cost_kind worst = KIND_COUNT;

	if (!requested)
		return 0;
	for (size_t j = 0; j < MGB_ARRAY_SIZE(polled); j++) {
		double polls = 0, window_ns = 0, expected;
		json_t *ph;
		size_t i;

		json_array_foreach(phases, i, ph) {
			double n = phase_number(ph, "polls", NULL), w = phase_number(ph, "window_ns", NULL);

			if (is_kind(ph, polled[j]) && !isnan(n) && !isnan(w) && w > 0) {
				polls += n;
				window_ns += w;
			}
		}
		expected = (double)requested * window_ns / 1e9;
		if (expected < POLL_MIN_EXPECTED || polls / expected >= worst_share)
			continue;
		worst_share = polls / expected;
		worst_rate = polls * 1e9 / window_ns;
		worst = polled[j];
	}
	if (worst == KIND_COUNT || worst_share >= POLL_REACHED_SHARE)
		return 0;
	snprintf(msg, len,
		 "--poll-rate %llu was not reached: the %s queries ran at %.0f/s (%.0f %%), as fast as "
		 "this poller and machine go; compare by polls_per_s, not by the rate asked for",
		 (unsigned long long)requested, cost_kind_names[worst], worst_rate, 100 * worst_share);
	return 1;
}

/* {median, min, max, n} of v[0..n), or null when n is 0. */
static json_t *spread_json(double *v, size_t n)
{
	double lo, hi;

	if (!n)
		return json_null();
	lo = v[0];
	hi = v[0];
	for (size_t j = 1; j < n; j++) {
		lo = v[j] < lo ? v[j] : lo;
		hi = v[j] > hi ? v[j] : hi;
	}
	return MGB_JSON_PACK("{s:f, s:f, s:f, s:I}", "median", mgb_median(v, n), "min", lo, "max", hi, "n",
			     (json_int_t)n);
}

/* Median, min and max of a number over the phases of one kind. */
json_t *cost_over_cycles(json_t *phases, enum cost_kind k, const char *key, const char *sub)
{
	double v[MAX_CYCLES];
	size_t n = 0, i;
	json_t *ph;

	json_array_foreach(phases, i, ph)
		if (is_kind(ph, k) && !isnan(phase_number(ph, key, sub)) && n < MAX_CYCLES)
			v[n++] = phase_number(ph, key, sub);
	return spread_json(v, n);
}

/* The cycle's phase of kind k, or NULL. */
static json_t *phase_of(json_t *phases, enum cost_kind k, json_int_t cycle)
{
	json_t *ph;
	size_t i;

	json_array_foreach(phases, i, ph)
		if (is_kind(ph, k) && json_integer_value(json_object_get(ph, "cycle")) == cycle)
			return ph;
	return NULL;
}

json_t *cost_paired(json_t *phases, enum cost_kind a, enum cost_kind b, const char *key, const char *sub,
		    enum cost_pairing how)
{
	double v[MAX_CYCLES];
	size_t n = 0, i;
	json_t *pa;

	json_array_foreach(phases, i, pa) {
		json_t *pb = is_kind(pa, a) ? phase_of(phases, b, json_integer_value(json_object_get(pa, "cycle"))) : NULL;
		double x = pb ? phase_number(pa, key, sub) : NAN, y = pb ? phase_number(pb, key, sub) : NAN;

		if (isnan(x) || isnan(y) || (how == COST_RATIO && y == 0) || n >= MAX_CYCLES)
			continue;
		v[n++] = how == COST_RATIO ? x / y : x - y;
	}
	return spread_json(v, n);
}

double cost_median_of(json_t *o)
{
	json_t *m = json_object_get(o, "median");

	return json_is_number(m) ? json_number_value(m) : NAN;
}

/* The median of a spread as a number, or null; takes the spread. */
json_t *cost_median_json(json_t *spread)
{
	double m = cost_median_of(spread);

	json_decref(spread);
	return isnan(m) ? json_null() : json_real(m);
}

json_t *cost_ratio_json(double a, double b)
{
	return isnan(a) || isnan(b) || b == 0 ? json_null() : json_real(a / b);
}

/* Per kind, the median over cycles of every *_per_1000 figure of the phases' sub-object. */
json_t *cost_per_1000_medians(json_t *phases, enum cost_kind k, const char *sub)
{
	json_t *o = json_object(), *first = json_object_get(json_array_get(phases, 0), sub), *v;
	const char *key;

	json_object_foreach(first, key, v)
		if (cost_is_per_1000(key))
			json_object_set_new(o, key, cost_median_json(cost_over_cycles(phases, k, key, sub)));
	return o;
}

/* For each *_per_1000 key of the phases' sub-object, the median of the per-cycle differences
 * a - b. */
json_t *cost_extra_per_1000(json_t *phases, enum cost_kind a, enum cost_kind b, const char *sub)
{
	json_t *o = json_object(), *first = json_object_get(json_array_get(phases, 0), sub), *v;
	const char *key;

	json_object_foreach(first, key, v)
		if (cost_is_per_1000(key))
			json_object_set_new(o, key, cost_median_json(cost_paired(phases, a, b, key, sub, COST_DIFFERENCE)));
	return o;
}
