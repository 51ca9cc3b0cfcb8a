/*
 * diff: two results compared (`gexplore diff`) — for each scope (run,
 * process, module, function) and metric, A, B and the change, biggest
 * first — as text, JSON (schema GX_DIFF_SCHEMA, in gexplore-diff(1)) or
 * CSV. Rows and metrics are src/ci's (ci_rows, ci_metric), so a diff and a
 * check of the same result always agree on a value. Each side may be
 * several runs of the same thing: its values are then means over them and
 * the interval of a change comes from their spread too (welch.c).
 *
 * Built in memory for src/cmd to print; nothing here prints or exits.
 * Errors are negative codes with a message in *cause (caller frees).
 */
#ifndef GX_DIFF_H
#define GX_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ci/ci.h"
#include "util/util.h"

#define GX_DIFF_SCHEMA "gexplore-diff 1.2"

struct gx_result;

struct diff_opts {
	enum ci_scope scopes[CI_SCOPE_NR_];	/* scopes to compare, in order */
	size_t nr_scopes;
	const char *const *metrics;	/* NULL: the default metrics of A and of B */
	size_t limit;			/* rows per scope from each side (hottest); 0 = 20 */
	uint64_t min_samples;		/* rows with fewer reference samples skipped */
	/* --match-module A=B: module (file name) A of side A is B of side B */
	const char *const *match;
	size_t nr_match;
};

struct diff_entry {
	enum ci_scope scope;
	const char *row;		/* borrowed from A or B */
	const char *metric;
	double a, b;			/* means over the runs of each side; NAN when
					 * absent or not measurable in all of them */
	double delta;			/* b - a, NAN when either is absent */
	double rel;			/* delta / |a|, NAN when a is 0 or absent */
	bool in_a, in_b;		/* the row exists in A / in B */
	double weight;			/* the row's larger share of samples, a mean
					 * over the side's runs (run: 1) */
	enum ci_unit unit;		/* how to show a, b and delta */
	/*
	 * The 95% interval of delta from the samples each side rests on
	 * (a value from n samples is uncertain by about 1/sqrt(n) of itself;
	 * whole-run values are exact) and, with two runs or more a side, from
	 * the spread between runs (Welch's t interval; the wider of the
	 * two): NAN when not known. noise: the interval holds 0, the change is
	 * within what sampling and run-to-run variation explain.
	 */
	double lo, hi;
	bool noise;
	/* what the values are (gx_kind_join of both sides' ci_metric_kind):
	 * exact or modelled on both sides, the change has no interval (lo,
	 * hi NAN) and is never noise; one such side adds no sampling error */
	enum gx_kind kind;
	size_t a_n, b_n;		/* runs each side's mean is over */
	double a_sd, b_sd;		/* standard deviation between them; NAN under 2 */
	double df;			/* Welch's degrees of freedom; NAN when unused */
};

struct diff {
	struct diff_entry *entries;	/* biggest changes first, changes within noise last */
	size_t nr;
	const char *a, *b;		/* the first result path of each side, borrowed */
	const char **paths;		/* every path: nr_a of A, then nr_b of B (array owned) */
	const char **status;		/* how each recording ended (gx_result__status),
					   as paths (array owned) */
	size_t nr_a, nr_b;
	bool modelled_a, modelled_b;	/* a side recorded with --model */
	/* differently named modules or commands taken as one: "difA (A) is
	 * difB (B): the main program of each run" (owned) */
	char **matched;
	size_t nr_matched;
};

/*
 * Compare A, runs[0..nr_a), with B, runs[nr_a..nr_a + nr_b) (one each, or
 * repeated runs of the same command). Fills *d (free with diff__exit).
 * -EINVAL for an unknown metric. Entries borrow strings from the results:
 * keep them open.
 */
int diff_run(struct gx_result *const *runs, size_t nr_a, size_t nr_b,
	     const struct diff_opts *o, struct diff *d, char **cause);
void diff__exit(struct diff *d);
void diff__text(const struct diff *d, struct strbuf *out, size_t limit);
void diff__json(const struct diff *d, struct strbuf *out);
void diff__csv(const struct diff *d, struct strbuf *out);

/* ---- statistics (welch.c) ------------------------------------------------ */

/* n values of one side: their mean and sample standard deviation. */
struct diff_side {
	double mean;		/* NAN when n is 0 */
	double sd;		/* with n - 1 in the denominator; NAN when n < 2 */
	size_t n;
};
void diff_side__set(struct diff_side *s, const double *v, size_t n);

/* The two-sided Student t quantile: P(|T| <= t) = level (0.95) for df > 0
 * degrees of freedom, fractional ones too. NAN for a df or level out of
 * range. */
double diff_t_quantile(double level, double df);

/*
 * Welch's t interval of b->mean - a->mean at level: *half its half-width,
 * *df the Welch-Satterthwaite degrees of freedom (NAN when neither side
 * varies; *half is then 0). -EDOM with both NAN when a side has fewer
 * than two values.
 */
int diff_welch(const struct diff_side *a, const struct diff_side *b, double level,
	       double *half, double *df);

#endif /* GX_DIFF_H */
