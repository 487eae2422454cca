/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: compare's tests against values worked out by hand, exact rational arithmetic or
 * published (R's fisher.test and wilcox.test, scipy give the same). */
#include "config.h"
#include "helpers.h"
#include "stats.h"

#include <math.h>
#include <string.h>

static void near(double got, double want, double tol, const char *what)
{
	T_CHECK(fabs(got - want) <= tol, "%s: %.6g, expected %.6g", what, got, want);
}

static struct mgb_test props(const double *ea, const double *ta, size_t na, const double *eb, const double *tb,
			     size_t nb)
{
	struct mgb_counts a = { ea, ta, na }, b = { eb, tb, nb };

	return mgb_test_repeat_proportions(&a, &b, 0.05);
}

static void fisher(void)
{
	struct mgb_test t;

	/* Fisher's tea-tasting table (3 of 4 against 1 of 4): two-sided p = 34/70 */
	t = mgb_test_proportions(3, 4, 1, 4);
	near(t.p, 34.0 / 70.0, 1e-9, "fisher 3/4 vs 1/4");
	T_CHECK(!strcmp(t.name, "fisher"), "named fisher");
	near(mgb_test_proportions(0, 10000, 0, 10000).p, 1.0, 1e-12, "0/10000 vs 0/10000");
	near(mgb_test_proportions(50, 100, 50, 100).p, 1.0, 1e-9, "50/100 vs 50/100");
	T_CHECK(mgb_test_proportions(6, 10000, 10000, 10000).p < 1e-100, "6/10000 vs 10000/10000 is decided");
	/* above 200,000 trials it stays exact: 0 vs 4 of 150,000 is 0.125, not z's 0.045 */
	t = mgb_test_proportions(0, 150000, 4, 150000);
	T_CHECK(!strcmp(t.name, "fisher"), "fisher at 300,000 trials: %s", t.name);
	near(t.p, 0.12499750, 1e-6, "0/150000 vs 4/150000");
	near(mgb_test_proportions(0, 500000, 3, 500000).p, 0.25, 1e-4, "0/500000 vs 3/500000");
	near(mgb_test_proportions(50, 100001, 30, 100000).p, 0.0330, 5e-4, "50/100001 vs 30/100000");
	T_CHECK(isnan(mgb_test_proportions(1, 0, 1, 5).p), "no trials: no p");
	/* the smallest p the margins allow (Tarone): 0 against 0 and 0 against 1 can never decide;
	 * 4 events in 8 trials split 4/4, at best all on one side: 2 / C(8, 4) */
	near(mgb_fisher_min_p(0, 10000, 0, 10000), 1, 1e-12, "min p of 0 vs 0");
	near(mgb_fisher_min_p(10000, 10000, 10000, 10000), 1, 1e-12, "min p of all vs all");
	near(mgb_fisher_min_p(0, 1000, 1, 1000), 1, 1e-9, "min p of 0 vs 1");
	near(mgb_fisher_min_p(3, 4, 1, 4), 2.0 / 70.0, 1e-12, "min p of 3/4 vs 1/4");
	near(mgb_test_proportions(3, 4, 1, 4).min_p, 2.0 / 70.0, 1e-12, "the test says its min p");
	T_CHECK(mgb_fisher_min_p(0, 2000, 2000, 2000) < 1e-300, "0 vs 2000 of 2000 can decide");
}

static void repeats(void)
{
	/* six runs of one kernel on ramfs (distinct of 400,000 per repeat) disagree far beyond
	 * binomial; the quasi-binomial test sees it and finds no difference */
	double a[] = { 4028, 6688, 1007 }, b[] = { 1864, 1634, 1352 }, tr[] = { 400000, 400000, 400000 };
	double bin_a[] = { 100, 104, 96 }, bin_b[] = { 200, 195, 205 }, t1[] = { 1000, 1000, 1000 };
	double one_a[] = { 100 }, one_b[] = { 40 }, one_t[] = { 10000 };
	struct mgb_test t;

	t = props(a, tr, 3, b, tr, 3);
	T_CHECK(!strcmp(t.name, "quasi-binomial") && t.p > 0.05 && t.dispersion > 100,
		"overdispersed repeats: %s p=%g dispersion %g", t.name, t.p, t.dispersion);
	T_CHECK(t.lo < 0 && t.hi > 0 && t.lo < t.effect && t.effect < t.hi, "its interval holds 0: [%g, %g]", t.lo, t.hi);
	/* binomial repeats: Fisher decides, with an interval */
	t = props(bin_a, t1, 3, bin_b, t1, 3);
	T_CHECK(!strcmp(t.name, "fisher") && t.p < 1e-10 && t.dir == 1 && t.lo > 0, "binomial repeats: %s p=%g [%g, %g]",
		t.name, t.p, t.lo, t.hi);
	/* one run a side: no dispersion, no interval; compare decides only a gap of 0.5 */
	t = props(one_a, one_t, 1, one_b, one_t, 1);
	T_CHECK(isnan(t.lo) && t.dispersion == 1, "one run: no interval");
}

static void mann_whitney(void)
{
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, c[] = { 1, 2, 3, 4, 5 }, d[] = { 6, 7, 8, 9, 10 };
	double same[] = { 7, 7, 7, 7 }, five[] = { 5, 5, 5 }, seven[] = { 7, 7, 7 }, t5[] = { 5, 5, 5, 5, 5 };
	double sep_a[20], sep_b[20], dir_a[20], dir_b[20];
	struct mgb_test t;

	t = mgb_test_mann_whitney(a, 3, b, 3, 0.05);
	near(t.p, 0.1, 1e-12, "mw 3 vs 3 separated");
	near(t.min_p, 0.1, 1e-12, "3 vs 3 cannot go below 0.1");
	near(mgb_test_mann_whitney(b, 3, a, 3, 0.05).p, 0.1, 1e-12, "mw symmetric");
	near(mgb_test_mann_whitney(c, 5, d, 5, 0.05).p, 2.0 / 252.0, 1e-12, "mw 5 vs 5 separated");
	near(mgb_test_mann_whitney(same, 4, same, 4, 0.05).p, 1.0, 1e-12, "mw all tied");
	near(mgb_test_mann_whitney(a, 3, a, 3, 0.05).p, 1.0, 1e-12, "mw equal samples");
	/* ties at small n use the exact permutation distribution */
	t = mgb_test_mann_whitney(five, 3, seven, 3, 0.05);
	near(t.p, 0.1, 1e-12, "tied 3 vs 3");
	T_CHECK(!strcmp(t.name, "mw-exact"), "exact with ties: %s", t.name);
	near(mgb_test_mann_whitney(t5, 5, seven, 3, 0.05).p, 2.0 / 56.0, 1e-12, "tied 5 vs 3");
	near(mgb_test_mann_whitney(a, 3, d, 4, 0.05).min_p, 2.0 / 35.0, 1e-12, "3 vs 4: 0.057");
	/* 20 vs 20 separated, both tails exact (1 - CDF lost digits): 2 / C(40, 20) */
	for (int i = 0; i < 20; i++) {
		sep_a[i] = i;
		sep_b[i] = 100 + i;
	}
	t = mgb_test_mann_whitney(sep_a, 20, sep_b, 20, 0.05);
	near(t.p / 1.45088891e-11, 1, 1e-8, "20 vs 20 separated");
	/* direction from the statistic, not the medians; Hodges-Lehmann 100 with its interval */
	T_CHECK(t.dir == 1 && t.effect == 100 && t.lo <= 100 && t.hi >= 100 && t.lo > 0, "HL shift %g [%g, %g]",
		t.effect, t.lo, t.hi);
	for (int i = 0; i < 20; i++) {
		/* B's median (560.5) is above A's (554.5), but B is mostly lower: U_B = 110 of 400.
		 * A median rule would say "higher"; the statistic says lower. */
		dir_a[i] = i < 10 ? 500 + i : 590 + i;
		dir_b[i] = i < 9 ? 400 + i : 551 + i;
	}
	T_CHECK(mgb_median(dir_b, 20) > mgb_median(dir_a, 20), "direction data: B's median %g above A's %g",
		mgb_median(dir_b, 20), mgb_median(dir_a, 20));
	t = mgb_test_mann_whitney(dir_a, 20, dir_b, 20, 0.05);
	T_CHECK(t.dir == -1 && t.p < 0.05, "direction from U: dir %d p %g", t.dir, t.p);
}

static void bh(void)
{
	double p[] = { 0.01, 0.04, 0.03, 0.2, NAN };

	mgb_adjust_bh(p, 5);
	near(p[0], 0.04, 1e-12, "bh 0.01 of 4");
	near(p[1], 0.04 * 4 / 3, 1e-12, "bh 0.04");
	near(p[2], 0.04 * 4 / 3, 1e-12, "bh 0.03 (monotone)");
	near(p[3], 0.2, 1e-12, "bh 0.2");
	T_CHECK(isnan(p[4]), "NaN left out");
	/* "n too small" in a table: 4 runs against 4 (at best 0.029) beside a test of 0.9 cannot be
	 * rejected (0.058); alone, or beside a decided one, it can */
	{
		double two[] = { 0.2, 0.9 }, one[] = { 0.2, NAN }, strong[] = { 0.2, 0.001 };

		T_CHECK(!mgb_bh_could_reject(two, 2, 0, 2.0 / 70, 0.05), "diluted: cannot reach alpha");
		T_CHECK(mgb_bh_could_reject(one, 2, 0, 2.0 / 70, 0.05), "alone: can");
		T_CHECK(mgb_bh_could_reject(strong, 2, 0, 2.0 / 70, 0.05), "beside a small p: can");
		T_CHECK(two[0] == 0.2, "the family is left as it was");
	}
}

int main(void)
{
	double med[] = { 5, 1, 4, 2, 3 }, even[] = { 4, 1, 3, 2 };

	T_RUN(fisher());
	T_RUN(repeats());
	T_RUN(mann_whitney());
	T_RUN(bh());
	T_RUN(near(mgb_median(med, 5), 3, 0, "median of 5"));
	T_RUN(near(mgb_median(even, 4), 2.5, 0, "median of 4"));
	return t_result();
}
