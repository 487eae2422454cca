/* Unit: compare's tests against values worked out by hand or published (R's fisher.test and
 * wilcox.test give the same). */
#include "config.h"
#include "helpers.h"
#include "stats.h"

#include <math.h>
#include <string.h>

static void near(double got, double want, double tol, const char *what)
{
	T_CHECK(fabs(got - want) <= tol, "%s: %.6g, expected %.6g", what, got, want);
}

int main(void)
{
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, c[] = { 1, 2, 3, 4, 5 }, d[] = { 6, 7, 8, 9, 10 };
	double same[] = { 7, 7, 7, 7 }, med[] = { 5, 1, 4, 2, 3 }, even[] = { 4, 1, 3, 2 };
	struct mgb_test t;

	/* Fisher's tea-tasting table (3 of 4 against 1 of 4): two-sided p = 34/70 */
	t = mgb_test_proportions(3, 4, 1, 4);
	near(t.p, 34.0 / 70.0, 1e-9, "fisher 3/4 vs 1/4");
	T_CHECK(!strcmp(t.name, "fisher"), "named fisher");
	/* equal proportions: p = 1 */
	near(mgb_test_proportions(0, 10000, 0, 10000).p, 1.0, 1e-12, "0/10000 vs 0/10000");
	near(mgb_test_proportions(50, 100, 50, 100).p, 1.0, 1e-9, "50/100 vs 50/100");
	/* a coarse control against multigrain, one run each: decided */
	T_CHECK(mgb_test_proportions(6, 10000, 10000, 10000).p < 1e-100, "6/10000 vs 10000/10000 is decided");
	/* beyond Fisher's range the z test takes over, and agrees on the obvious */
	t = mgb_test_proportions(100, 1000000, 200, 1000000);
	T_CHECK(!strcmp(t.name, "z") && t.p < 1e-6, "z: 100 vs 200 per million: %s p=%g", t.name, t.p);
	T_CHECK(isnan(mgb_test_proportions(1, 0, 1, 5).p), "no trials: no p");

	/* Mann-Whitney, exact: complete separation of 3 and 3 gives 2/20, of 5 and 5 gives 2/252 */
	t = mgb_test_mann_whitney(a, 3, b, 3);
	near(t.p, 0.1, 1e-12, "mw 3 vs 3 separated");
	near(mgb_test_mann_whitney(b, 3, a, 3).p, 0.1, 1e-12, "mw symmetric");
	near(mgb_test_mann_whitney(c, 5, d, 5).p, 2.0 / 252.0, 1e-12, "mw 5 vs 5 separated");
	/* all tied: nothing to tell */
	near(mgb_test_mann_whitney(same, 4, same, 4).p, 1.0, 1e-12, "mw all tied");
	near(mgb_test_mann_whitney(a, 3, a, 3).p, 1.0, 1e-12, "mw equal samples");

	near(mgb_median(med, 5), 3, 0, "median of 5");
	near(mgb_median(even, 4), 2.5, 0, "median of 4");
	return t_result();
}
