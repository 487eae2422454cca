/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Up to this many values in all, Mann-Whitney counts its permutation distribution exactly. */
#define MW_EXACT_MAX 80

static struct mgb_test no_test(const char *name)
{
	return (struct mgb_test){ name, NAN, NAN, 0, NAN, NAN, NAN, NAN };
}

static double fisher_p(unsigned k, unsigned n1, unsigned n2, unsigned t)
{
	/* k events among A's t trials, n1 events and n2 non-events in all: hypergeometric.  The
	 * loop is over min(events, non-events, trials) + 1 tables: cheap for rare events. */
	unsigned lo = t > n2 ? t - n2 : 0, hi = t < n1 ? t : n1;
	double p_obs = gsl_ran_hypergeometric_pdf(k, n1, n2, t), p = 0;

	for (unsigned x = lo; x <= hi; x++) {
		double px = gsl_ran_hypergeometric_pdf(x, n1, n2, t);

		/* as extreme as observed, with a relative tolerance for rounding (as R does) */
		if (px <= p_obs * (1 + 1e-7))
			p += px;
	}
	return p > 1 ? 1 : p;
}

static double fisher(double ae, double at, double be, double bt)
{
	if (at + bt > (double)UINT_MAX)
		return NAN;
	return fisher_p((unsigned)ae, (unsigned)(ae + be), (unsigned)(at + bt - ae - be), (unsigned)at);
}

/* The smallest two-sided p Fisher's test can give with these margins: that of the most extreme
 * table one way or the other.  0 events against 0 (or all against all) has one table: 1. */
static double fisher_min(double ae, double at, double be, double bt)
{
	unsigned n1, n2, t, lo, hi;

	if (at + bt > (double)UINT_MAX)
		return NAN;
	n1 = (unsigned)(ae + be);
	n2 = (unsigned)(at + bt - ae - be);
	t = (unsigned)at;
	lo = t > n2 ? t - n2 : 0;
	hi = t < n1 ? t : n1;
	return fmin(fisher_p(lo, n1, n2, t), fisher_p(hi, n1, n2, t));
}

double mgb_fisher_min_p(uint64_t a_events, uint64_t a_trials, uint64_t b_events, uint64_t b_trials)
{
	if (a_trials == 0 || b_trials == 0 || a_events > a_trials || b_events > b_trials)
		return NAN;
	return fisher_min((double)a_events, (double)a_trials, (double)b_events, (double)b_trials);
}

struct mgb_test mgb_test_proportions(uint64_t a_events, uint64_t a_trials, uint64_t b_events, uint64_t b_trials)
{
	struct mgb_test t = no_test("fisher");

	if (a_trials == 0 || b_trials == 0 || a_events > a_trials || b_events > b_trials)
		return t;
	t.p = fisher((double)a_events, (double)a_trials, (double)b_events, (double)b_trials);
	t.min_p = fisher_min((double)a_events, (double)a_trials, (double)b_events, (double)b_trials);
	t.effect = (double)b_events / (double)b_trials - (double)a_events / (double)a_trials;
	t.dir = t.effect > 0 ? 1 : t.effect < 0 ? -1 : 0;
	return t;
}

static void pool(const struct mgb_counts *c, double *e, double *t)
{
	*e = *t = 0;
	for (size_t i = 0; i < c->n; i++) {
		*e += c->events[i];
		*t += c->trials[i];
	}
}

/* Pearson's X^2 of one side's repeats around its pooled rate p. */
static double pearson(const struct mgb_counts *c, double p)
{
	double x2 = 0;

	for (size_t i = 0; i < c->n; i++) {
		double var = c->trials[i] * p * (1 - p);

		if (var > 0)
			x2 += pow(c->events[i] - c->trials[i] * p, 2) / var;
	}
	return x2;
}

/* Wilson's interval for a rate from n trials, with quantile z. */
static void wilson(double p, double n, double z, double *lo, double *hi)
{
	double d = 1 + z * z / n, c = (p + z * z / (2 * n)) / d;
	double h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;

	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

struct mgb_test mgb_test_repeat_proportions(const struct mgb_counts *a, const struct mgb_counts *b, double alpha)
{
	struct mgb_test t = no_test("fisher");
	double ae, at, be, bt, pa, pb, pp, df, z, la, ua, lb, ub;

	pool(a, &ae, &at);
	pool(b, &be, &bt);
	if (a->n == 0 || b->n == 0 || at <= 0 || bt <= 0)
		return t;
	pa = ae / at;
	pb = be / bt;
	pp = (ae + be) / (at + bt);
	t.p = fisher(ae, at, be, bt);
	/* p is never below Fisher's, so neither is the smallest p it can reach */
	t.min_p = fisher_min(ae, at, be, bt);
	t.effect = pb - pa;
	t.dir = t.effect > 0 ? 1 : t.effect < 0 ? -1 : 0;
	t.dispersion = 1;
	df = (double)(a->n + b->n) - 2;
	if (df > 0) {
		/* the repeats' spread around their side's rate, beyond binomial */
		t.dispersion = fmax(1, (pearson(a, pa) + pearson(b, pb)) / df);
		if (t.dispersion > 1 && pp > 0 && pp < 1) {
			double se = sqrt(t.dispersion * pp * (1 - pp) * (1 / at + 1 / bt));
			double q = 2 * gsl_cdf_tdist_Q(fabs(pb - pa) / se, df);

			if (q > t.p) {
				t.p = q;
				t.name = "quasi-binomial";
			}
		}
	} else {
		/* one unit a side: no spread to estimate; compare decides only a gross gap */
		return t; /* no interval: the spread between runs is unknown */
	}
	/* Newcombe's interval of the difference, on trials shrunk by the dispersion */
	z = df > 0 && t.dispersion > 1 ? gsl_cdf_tdist_Qinv(alpha / 2, df) : gsl_cdf_ugaussian_Qinv(alpha / 2);
	wilson(pa, at / t.dispersion, z, &la, &ua);
	wilson(pb, bt / t.dispersion, z, &lb, &ub);
	t.lo = t.effect - sqrt(pow(pb - lb, 2) + pow(ua - pa, 2));
	t.hi = t.effect + sqrt(pow(ub - pb, 2) + pow(pa - la, 2));
	return t;
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

/* The permutation distribution of the sum of k of the n doubled ranks r (integers, ties given
 * twice their mid rank): dist[s] counts the subsets with sum s, 0 <= s <= n (n + 1). */
static double *rank_sum_dist(const unsigned *r, size_t n, size_t k, size_t *len)
{
	size_t smax = n * (n + 1), stride = smax + 1;
	double *f = calloc((k + 1) * stride, sizeof(double)), *dist;

	if (!f)
		return NULL;
	f[0] = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t j = (i + 1 < k ? i + 1 : k); j >= 1; j--)
			for (size_t s = smax; s >= r[i]; s--)
				f[j * stride + s] += f[(j - 1) * stride + s - r[i]];
	dist = malloc(stride * sizeof(double));
	if (dist)
		memcpy(dist, f + k * stride, stride * sizeof(double));
	free(f);
	*len = stride;
	return dist;
}

/* Doubled mid ranks of a then b in their joint order. */
static unsigned *doubled_ranks(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	double *all = malloc(n * sizeof(double));
	unsigned *r = malloc(n * sizeof(unsigned));

	if (!all || !r) {
		free(all);
		free(r);
		return NULL;
	}
	memcpy(all, a, na * sizeof(double));
	memcpy(all + na, b, nb * sizeof(double));
	qsort(all, n, sizeof(double), cmp_double);
	for (size_t i = 0; i < n; i++) {
		double x = i < na ? a[i] : b[i - na];
		size_t lo = 0, hi;

		while (lo < n && all[lo] < x)
			lo++;
		for (hi = lo; hi < n && all[hi] == x; hi++)
			;
		r[i] = (unsigned)(lo + 1 + hi);
	}
	free(all);
	return r;
}

/* Exact two-sided p and smallest attainable p of B's doubled rank sum sb. */
static void mw_exact(const unsigned *r, size_t n, size_t nb, size_t sb, double *p, double *min_p)
{
	size_t len, first = SIZE_MAX, last = 0;
	double *d = rank_sum_dist(r, n, nb, &len), total = 0, le = 0, ge = 0;

	if (!d) {
		*p = *min_p = NAN;
		return;
	}
	for (size_t s = 0; s < len; s++) {
		total += d[s];
		le += s <= sb ? d[s] : 0;
		ge += s >= sb ? d[s] : 0;
		if (d[s] > 0) {
			first = first == SIZE_MAX ? s : first;
			last = s;
		}
	}
	*p = fmin(1, 2 * fmin(le, ge) / total);
	*min_p = first == last ? 1 : fmin(1, 2 * fmin(d[first], d[last]) / total);
	free(d);
}

/* The Hodges-Lehmann shift (median of the differences b - a) and Moses' interval, whose rank
 * comes from U's distribution without ties (exact for small samples). */
static void hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double alpha, struct mgb_test *t)
{
	size_t m = na * nb, k = 0, n = na + nb;
	double *d = malloc(m * sizeof(double));

	if (!d)
		return;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	t->effect = mgb_median(d, m); /* sorts d */
	if (n <= MW_EXACT_MAX) {
		unsigned *r = malloc(n * sizeof(unsigned));
		size_t len;
		double *dist, total = 0, cum = 0;

		for (size_t i = 0; r && i < n; i++)
			r[i] = (unsigned)(2 * (i + 1));
		dist = r ? rank_sum_dist(r, n, nb, &len) : NULL;
		for (size_t s = 0; dist && s < len; s++)
			total += dist[s];
		/* U = S/2 - nb (nb + 1)/2; k = 1 + the largest c with P(U <= c) <= alpha/2 */
		for (size_t s = 0; dist && s < len; s++) {
			if (dist[s] == 0)
				continue;
			cum += dist[s];
			if (cum / total > alpha / 2)
				break;
			k = s / 2 - nb * (nb + 1) / 2 + 1;
		}
		free(dist);
		free(r);
	} else {
		double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
		double c = (double)m / 2 - z * sqrt((double)m * (double)(n + 1) / 12);

		k = c > 0 ? (size_t)c : 0;
	}
	if (k >= 1 && k <= m) {
		t->lo = d[k - 1];
		t->hi = d[m - k];
	}
	free(d);
}

struct mgb_test mgb_test_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double alpha)
{
	size_t n = na + nb, sb2 = 0;
	unsigned *r;
	struct mgb_test t = no_test("mw-exact");
	double tie = 0, mean2;

	if (na == 0 || nb == 0 || !(r = doubled_ranks(a, na, b, nb)))
		return t;
	for (size_t i = na; i < n; i++)
		sb2 += r[i];
	mean2 = (double)nb * (double)(n + 1);
	t.dir = (double)sb2 > mean2 ? 1 : (double)sb2 < mean2 ? -1 : 0;
	if (n <= MW_EXACT_MAX) {
		mw_exact(r, n, nb, sb2, &t.p, &t.min_p);
	} else {
		/* normal approximation with the tie correction and a continuity correction */
		double *s = malloc(n * sizeof(double)), sd, z;

		for (size_t i = 0; s && i < n; i++)
			s[i] = r[i];
		if (s)
			qsort(s, n, sizeof(double), cmp_double);
		for (size_t i = 0; s && i < n;) {
			size_t j = i;

			while (j < n && s[j] == s[i])
				j++;
			tie += pow((double)(j - i), 3) - (double)(j - i);
			i = j;
		}
		free(s);
		t.name = "mw-normal";
		sd = sqrt((double)na * (double)nb / 12.0 * ((double)n + 1 - tie / ((double)n * (double)(n - 1))));
		z = sd > 0 ? fmax(0, (fabs((double)sb2 - mean2) / 2 - 0.5) / sd) : 0;
		t.p = sd > 0 ? fmin(1, 2 * gsl_cdf_ugaussian_Q(z)) : 1;
		t.min_p = sd > 0 ? 0 : 1; /* all tied: nothing can ever differ */
	}
	free(r);
	hodges_lehmann(a, na, b, nb, alpha, &t);
	return t;
}

static int cmp_index(const void *x, const void *y, void *arg)
{
	const double *p = arg;

	return cmp_double(&p[*(const size_t *)x], &p[*(const size_t *)y]);
}

/* BH's adjusted p of entry i alone (NaN entries are not in the family). */
static double bh_one(const double *p, size_t n, size_t i)
{
	double q = 1;
	size_t m = 0;

	for (size_t j = 0; j < n; j++)
		m += !isnan(p[j]);
	/* q_i = min over the j with p_j >= p_i of p_j m / rank(p_j) */
	for (size_t j = 0; j < n; j++) {
		size_t rank = 0;

		if (isnan(p[j]) || p[j] < p[i])
			continue;
		for (size_t k = 0; k < n; k++)
			rank += !isnan(p[k]) && p[k] <= p[j];
		q = fmin(q, p[j] * (double)m / (double)rank);
	}
	return q;
}

bool mgb_bh_could_reject(const double *p, size_t n, size_t i, double min_p, double alpha)
{
	double *c = malloc((n + 1) * sizeof(double)), q;

	if (!c)
		abort();
	memcpy(c, p, n * sizeof(double));
	c[i] = min_p;
	q = bh_one(c, n, i);
	free(c);
	return q < alpha;
}

void mgb_adjust_bh(double *p, size_t n)
{
	size_t *idx = malloc(n * sizeof(size_t)), m = 0;
	double run = 1;

	if (!idx)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			idx[m++] = i;
	qsort_r(idx, m, sizeof(size_t), cmp_index, p);
	/* q_(i) = min over j >= i of p_(j) m / j */
	for (size_t i = m; i-- > 0;) {
		run = fmin(run, p[idx[i]] * (double)m / (double)(i + 1));
		p[idx[i]] = run;
	}
	free(idx);
}
