/*
 * test-diff-welch: the statistics of `gexplore diff --runs` (src/diff/welch.c)
 * against numbers computed independently. The references come from
 * mpmath 1.3 at 30 digits, the t quantile as the root of the regularized
 * incomplete beta function (not the continued fraction welch.c uses):
 *
 *   from mpmath import mp, mpf, betainc, findroot, sqrt
 *   mp.dps = 30
 *   def tq(level, df):
 *       f = lambda t: betainc(df / 2, mpf(1) / 2, 0, df / (df + t * t),
 *                             regularized=True) - (1 - level)
 *       return findroot(f, mpf(2.5))
 *   def welch(sa, na, sb, nb):
 *       va, vb = mpf(sa)**2 / na, mpf(sb)**2 / nb
 *       df = (va + vb)**2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
 *       return df, tq(mpf('0.95'), df) * sqrt(va + vb)
 *
 * The whole-df quantiles agree with every printed t table (12.706, 4.303,
 * 3.182, 2.228, 2.042); scipy.stats.t.ppf(0.975, df) gives the same.
 */
#include "config.h"

#include "diff/diff.h"

#include <errno.h>
#include <math.h>

#include "tap.h"

static const struct {
	int line;
	double level, df, want;
} quantiles[] = {
	{ __LINE__, 0.95, 1, 12.7062047361747046 },
	{ __LINE__, 0.95, 2, 4.30265272974946385 },
	{ __LINE__, 0.95, 3, 3.18244630528370959 },
	{ __LINE__, 0.95, 10, 2.22813885198627475 },
	{ __LINE__, 0.95, 30, 2.04227245630123831 },
	{ __LINE__, 0.95, 50.0 / 17, 3.21875861453288390 },	/* Welch's df below */
	{ __LINE__, 0.95, 0.5, 164.557673480488533 },
	{ __LINE__, 0.95, 1e6, 1.95996635681410704 },
	{ __LINE__, 0.99, 5, 4.03214298355522808 },
	{ __LINE__, 0.90, 2.5, 2.55821861413593662 },
};

static void test_quantiles(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(quantiles); i++)
		is_double_at(diff_t_quantile(quantiles[i].level, quantiles[i].df), quantiles[i].want,
			     1e-9 * quantiles[i].want, quantiles[i].line, "t quantile, level %g, df %g",
			     quantiles[i].level, quantiles[i].df);
	ok(isnan(diff_t_quantile(0.95, 0)), "df 0: no quantile");
	ok(isnan(diff_t_quantile(1, 3)), "level 1: no quantile");
}

static void test_sides(void)
{
	static const double a[] = { 9, 10, 11 }, b[] = { 10, 12, 14 };
	struct diff_side s;

	diff_side__set(&s, a, 3);
	is_double(s.mean, 10, 1e-12, "mean of 9 10 11");
	is_double(s.sd, 1, 1e-12, "sd of 9 10 11 (n - 1)");
	diff_side__set(&s, b, 3);
	is_double(s.mean, 12, 1e-12, "mean of 10 12 14");
	is_double(s.sd, 2, 1e-12, "sd of 10 12 14");
	diff_side__set(&s, b, 1);
	ok(s.n == 1 && s.mean == 10 && isnan(s.sd), "one value: its mean, no sd");
	diff_side__set(&s, b, 0);
	ok(isnan(s.mean) && isnan(s.sd), "no value: no mean");
}

static const struct {
	int line;
	struct diff_side a, b;
	double df, half;
} welchs[] = {
	/* means 10 and 12, sd 1 and 2, 3 runs each: 2 +- 4.155, holds 0 */
	{ __LINE__, { 10, 1, 3 }, { 12, 2, 3 }, 50.0 / 17, 4.15539950318250594 },
	/* 10 10.5 9.5 against 12 12.5 11.5: 2 +- 1.133, a real change */
	{ __LINE__, { 10, 0.5, 3 }, { 12, 0.5, 3 }, 4, 1.13347896776375986 },
	/* unequal runs and spreads */
	{ __LINE__, { 0, 3, 5 }, { 0, 0.5, 2 }, 4.48826646479939440, 3.69238702677772628 },
};

static void test_welch(void)
{
	double half, df;

	for (size_t i = 0; i < ARRAY_SIZE(welchs); i++) {
		ok_at(diff_welch(&welchs[i].a, &welchs[i].b, 0.95, &half, &df) == 0, __FILE__,
		      welchs[i].line, "Welch: computed");
		is_double_at(df, welchs[i].df, 1e-9, welchs[i].line, "Welch-Satterthwaite df");
		is_double_at(half, welchs[i].half, 1e-9, welchs[i].line, "Welch half-width");
	}
	is_int(diff_welch(&(struct diff_side){ 10, NAN, 1 }, &welchs[0].b, 0.95, &half, &df), -EDOM,
	       "one run on a side: no Welch interval");
	ok(isnan(half) && isnan(df), "... and NAN out");
	is_int(diff_welch(&(struct diff_side){ 10, 0, 3 }, &(struct diff_side){ 11, 0, 3 }, 0.95,
			  &half, &df), 0, "no spread: computed");
	ok(half == 0 && isnan(df), "no spread: half-width 0, df undefined");
}

int main(void)
{
	test_quantiles();
	test_sides();
	test_welch();
	return done_testing();
}
