/*
 * welch.c: the statistics of a change measured over repeated runs — each
 * side's mean and spread, and Welch's t interval of the difference of the
 * means, with the Student t quantile for fractional degrees of freedom
 * (the Welch–Satterthwaite ones rarely are whole).
 */
#include "config.h"

#include "diff.h"

#include <errno.h>
#include <math.h>

void diff_side__set(struct diff_side *s, const double *v, size_t n)
{
	double sum = 0, ss = 0;

	s->n = n;
	s->mean = s->sd = NAN;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = sqrt(ss / (double)(n - 1));
}

/* The continued fraction of the incomplete beta function (modified Lentz),
 * which converges fast for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m, del = 0;
		double num[2] = { m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
				  -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)) };

		for (int k = 0; k < 2; k++) {
			d = 1 + num[k] * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num[k] / c;
			c = fabs(c) < tiny ? tiny : c;
			del = d * c;
			h *= del;
		}
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(|T| > t) for Student's t with df degrees of freedom, t >= 0. */
static double t_two_tail(double t, double df)
{
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

double diff_t_quantile(double level, double df)
{
	double lo = 0, hi = 1, p = 1 - level;

	if (!(df > 0) || !(level > 0 && level < 1))
		return NAN;
	while (t_two_tail(hi, df) > p && hi < 1e300)
		hi *= 2;
	/* the tail falls as t grows: bisect to double precision */
	for (int i = 0; i < 2000 && hi - lo > 1e-13 * hi; i++) {
		double mid = lo + (hi - lo) / 2;

		if (t_two_tail(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return lo + (hi - lo) / 2;
}

int diff_welch(const struct diff_side *a, const struct diff_side *b, double level,
	       double *half, double *df)
{
	double va, vb, se2;

	*half = *df = NAN;
	if (a->n < 2 || b->n < 2 || !isfinite(a->sd) || !isfinite(b->sd))
		return -EDOM;
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	se2 = va + vb;
	if (se2 == 0) {
		*half = 0;	/* no spread at all: degrees of freedom undefined */
		return 0;
	}
	*df = se2 * se2 / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	*half = diff_t_quantile(level, *df) * sqrt(se2);
	return 0;
}
