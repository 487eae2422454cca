/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The significance tests compare uses.  The unit of replication is the run (a repeat): rounds
 * inside a run share ticks and the global floor, so they are not independent trials.
 *
 * Proportions (events out of trials, e.g. distinct ctimes out of rounds): Fisher's exact test on
 * the pooled 2x2 table, widened to a quasi-binomial t test whose dispersion is estimated from
 * the repeats when they disagree beyond binomial.  With one run a side the dispersion cannot be
 * estimated, and only a gross difference (0.000 against 1.000) decides.
 *
 * Continuous metrics (rates, times): Mann-Whitney U over the repeats, exact (the permutation
 * distribution with ties) for small samples, with the Hodges-Lehmann shift and its confidence
 * interval.  Every result says the smallest p its sample sizes could reach.
 */
#ifndef MGB_STATS_H
#define MGB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One side's repeats of a proportion. */
struct mgb_counts {
	const double *events, *trials;
	size_t n;
};

struct mgb_test {
	const char *name; /* "fisher", "quasi-binomial", "mw-exact", "mw-normal" */
	double p;         /* two-sided; NaN when there is nothing to test */
	double min_p;     /* the smallest p these sample sizes (and ties) can give */
	int dir;          /* sign of the test statistic: +1 when B is higher than A */
	double effect;    /* B - A: rate difference, or Hodges-Lehmann shift */
	double lo, hi;    /* its 1 - alpha confidence interval; NaN when none */
	double dispersion; /* proportions: the between-repeat dispersion (1: binomial) */
};

/* A difference of pooled rates this large decides with one run a side: no plausible spread
 * between runs bridges 0.000 and 1.000, while 0.010 against 0.004 can be two runs of one kernel. */
#define MGB_ONE_RUN_GAP 0.5

/* Fisher's exact test, two-sided, of a_events/a_trials against b_events/b_trials. */
struct mgb_test mgb_test_proportions(uint64_t a_events, uint64_t a_trials, uint64_t b_events, uint64_t b_trials);

/* Proportions over repeats: Fisher on the pooled table, and the quasi-binomial t test when the
 * repeats are overdispersed; p is the larger of the two.  alpha sets the interval. */
struct mgb_test mgb_test_repeat_proportions(const struct mgb_counts *a, const struct mgb_counts *b, double alpha);

/* Mann-Whitney U of B against A, with the shift estimate and its interval at 1 - alpha. */
struct mgb_test mgb_test_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double alpha);

/* The smallest two-sided p Fisher's exact test can reach with these margins (1 for 0 events
 * against 0: such a test can never decide and is left out of a family, as Tarone's rule for
 * discrete tests says). */
double mgb_fisher_min_p(uint64_t a_events, uint64_t a_trials, uint64_t b_events, uint64_t b_trials);

/* Benjamini-Hochberg adjusted p-values, in place (NaN entries are left out). */
void mgb_adjust_bh(double *p, size_t n);

/* Whether entry i of a BH family (p, NaN entries left out) would be rejected at alpha if its p
 * were min_p, the others as they are: if not, no data of its size could have decided it. */
bool mgb_bh_could_reject(const double *p, size_t n, size_t i, double min_p, double alpha);

/* Median of n values (sorted in place). */
double mgb_median(double *v, size_t n);

#endif
