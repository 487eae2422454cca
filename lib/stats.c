#include "config.h"
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Above this many trials in all, Fisher's sum over the support is slow and z is exact enough. */
#define FISHER_MAX_TRIALS 200000

static struct mgb_test fisher(unsigned k, unsigned n1, unsigned n2, unsigned t)
{
	/* k events among A's t trials, n1 events and n2 non-events in all: hypergeometric */
	unsigned lo = t > n2 ? t - n2 : 0, hi = t < n1 ? t : n1;
	double p_obs = gsl_ran_hypergeometric_pdf(k, n1, n2, t), p = 0;

	for (unsigned x = lo; x <= hi; x++) {
		double px = gsl_ran_hypergeometric_pdf(x, n1, n2, t);

		/* as extreme as observed, with a relative tolerance for rounding (as R does) */
		if (px <= p_obs * (1 + 1e-7))
			p += px;
	}
	return (struct mgb_test){ "fisher", p > 1 ? 1 : p };
}

struct mgb_test mgb_test_proportions(uint64_t a_events, uint64_t a_trials, uint64_t b_events, uint64_t b_trials)
{
	double pa, pb, pooled, se, z;

	if (a_trials == 0 || b_trials == 0 || a_events > a_trials || b_events > b_trials)
		return (struct mgb_test){ "fisher", NAN };
	if (a_trials + b_trials <= FISHER_MAX_TRIALS)
		return fisher((unsigned)a_events, (unsigned)(a_events + b_events),
			      (unsigned)(a_trials + b_trials - a_events - b_events), (unsigned)a_trials);
	pa = (double)a_events / (double)a_trials;
	pb = (double)b_events / (double)b_trials;
	pooled = (double)(a_events + b_events) / (double)(a_trials + b_trials);
	se = sqrt(pooled * (1 - pooled) * (1.0 / (double)a_trials + 1.0 / (double)b_trials));
	if (se == 0)
		return (struct mgb_test){ "z", pa == pb ? 1.0 : 0.0 };
	z = fabs(pa - pb) / se;
	return (struct mgb_test){ "z", 2 * gsl_cdf_ugaussian_Q(z) };
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

double mgb_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* P(U <= u) for samples of m and n without ties: the count of arrangements, by recursion on the
 * largest value (it belongs to one sample or the other). */
static double exact_cdf(unsigned m, unsigned n, unsigned u)
{
	size_t umax = (size_t)m * n, stride = umax + 1;
	/* f[i][j][k]: arrangements of i and j values with U = k; rolling over i is not worth it here */
	double *f = calloc((size_t)(m + 1) * (n + 1) * stride, sizeof(double)), total = 0, below = 0;

	if (!f)
		return NAN;
#define F(i, j, k) f[((size_t)(i) * (n + 1) + (j)) * stride + (k)]
	for (unsigned i = 0; i <= m; i++)
		for (unsigned j = 0; j <= n; j++)
			for (size_t k = 0; k <= (size_t)i * j; k++) {
				if (i == 0 || j == 0) {
					F(i, j, k) = k == 0;
					continue;
				}
				/* the largest value from the first sample beats all j of the second */
				F(i, j, k) = (k >= j ? F(i - 1, j, k - j) : 0) + F(i, j - 1, k);
			}
	for (size_t k = 0; k <= umax; k++) {
		total += F(m, n, k);
		if (k <= u)
			below += F(m, n, k);
	}
#undef F
	free(f);
	return below / total;
}

struct mgb_test mgb_test_mann_whitney(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	double *all = malloc(n * sizeof(double)), ra = 0, ties = 0, u, mean, sd, z;
	bool tied = false;

	if (!all || na == 0 || nb == 0) {
		free(all);
		return (struct mgb_test){ "mann-whitney", NAN };
	}
	memcpy(all, a, na * sizeof(double));
	memcpy(all + na, b, nb * sizeof(double));
	qsort(all, n, sizeof(double), cmp_double);
	/* rank sum of a, ties given their mid rank */
	for (size_t i = 0; i < na; i++) {
		size_t lo = 0, hi;

		while (lo < n && all[lo] < a[i])
			lo++;
		hi = lo;
		while (hi < n && all[hi] == a[i])
			hi++;
		ra += (double)(lo + 1 + hi) / 2.0;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && all[j] == all[i])
			j++;
		if (j - i > 1) {
			tied = true;
			ties += pow((double)(j - i), 3) - (double)(j - i);
		}
		i = j;
	}
	free(all);
	u = ra - (double)na * (double)(na + 1) / 2.0;
	if (!tied && na * nb <= 400) {
		double lo = exact_cdf((unsigned)na, (unsigned)nb, (unsigned)u);
		double hi = 1 - (u >= 1 ? exact_cdf((unsigned)na, (unsigned)nb, (unsigned)u - 1) : 0);
		double p = 2 * (lo < hi ? lo : hi);

		return (struct mgb_test){ "mann-whitney exact", p > 1 ? 1 : p };
	}
	mean = (double)na * (double)nb / 2.0;
	sd = sqrt((double)na * (double)nb / 12.0 * ((double)n + 1 - ties / ((double)n * (double)(n - 1))));
	if (sd == 0)
		return (struct mgb_test){ "mann-whitney", 1.0 };
	z = (fabs(u - mean) - 0.5) / sd; /* continuity correction */
	if (z < 0)
		z = 0;
	return (struct mgb_test){ "mann-whitney", 2 * gsl_cdf_ugaussian_Q(z) };
}
