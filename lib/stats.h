/*
 * The significance tests compare uses.  Proportions (events out of trials, e.g. distinct ctimes
 * out of rounds) need no repeats: one run each decides 0.001 against 1.000 over 10,000 rounds.
 * Continuous metrics (rates, times) need repeats on both sides and a rank test.  Tails come from
 * GSL.
 */
#ifndef MGB_STATS_H
#define MGB_STATS_H

#include <stddef.h>
#include <stdint.h>

struct mgb_test {
	const char *name; /* "fisher", "z", "mann-whitney", "exact" */
	double p;         /* two-sided */
};

/* a_events of a_trials against b_events of b_trials: Fisher's exact test, or the two-proportion
 * z test once the trials are too many to sum the exact distribution. */
struct mgb_test mgb_test_proportions(uint64_t a_events, uint64_t a_trials, uint64_t b_events, uint64_t b_trials);

/* Mann-Whitney U of two samples: the exact distribution for small samples without ties, else the
 * normal approximation with a tie correction. */
struct mgb_test mgb_test_mann_whitney(const double *a, size_t na, const double *b, size_t nb);

/* Median of n values (sorted in place). */
double mgb_median(double *v, size_t n);

#endif
