/*
 * ci: the views of a result that CI systems consume — the rows and metrics
 * of an opened result (ci-metric.c), checks of thresholds on them
 * (`gexplore check`, ci-check.c), and their outcomes as text, JSON, JUnit
 * XML and GitHub annotations (ci-junit.c). src/diff evaluates its metrics
 * through this module too.
 *
 * Everything is built in memory (strings, structs) for src/cmd to print or
 * write; nothing here prints or exits. Errors are negative codes with a
 * message in *cause (caller frees).
 *
 * The unit all of them share is a `struct gx_result` (src/result): a result
 * (directory or perf.data file) read once into a profile, with its
 * meta.json, its top-down model and the mapping of its recorded events to
 * the model's, so any metric can be evaluated on the whole run or on one
 * row (process, module, function).
 */
#ifndef GX_CI_H
#define GX_CI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "result/result.h"
#include "util/util.h"

#define GX_CHECK_SCHEMA "gexplore-check 1"

/* ======================================================================
 * Rows and metrics of an opened result (ci-metric.c)
 * ==================================================================== */

struct gx_result;
struct ci_row;

/*
 * MUX reliability of a row (gexplore-mux(7)): the row's own, from the
 * slice log and its reference samples; the whole run's from meta.json's
 * "mux" section for the run (row NULL or without a profile row) and for
 * rows with no reference sample; 1.0 when nothing was multiplexed by
 * gexplore.
 */
double ci_row_reliability(const struct gx_result *r, const struct ci_row *row);

/* Scopes a metric is evaluated on. */
enum ci_scope {
	CI_SCOPE_RUN,
	CI_SCOPE_PROCESS,
	CI_SCOPE_MODULE,
	CI_SCOPE_FUNCTION,
	CI_SCOPE_THREAD,	/* by thread name (comm) */
	CI_SCOPE_NR_,
};
const char *ci_scope_name(enum ci_scope s);	/* "run", "process", ... */

struct ci_row {
	enum ci_scope scope;
	const char *name;	/* "" for the run; comm; module path; function */
	uint32_t pid;		/* process rows */
	uint32_t tid;		/* thread rows */
	const struct profile_row *prow;	/* NULL for the run */
	double share;		/* of the reference event's samples (run: 1) */
	const char *file;	/* functions: hottest source line, or NULL */
	uint32_t line;
};

/*
 * The rows of a scope, hottest first by the reference event (the run has
 * one row). *rows is allocated (caller frees the array only; rows point
 * into r). GX_E_NOTSUP with *cause when this build's profile has no rows
 * of that scope.
 */
int ci_rows(struct gx_result *r, enum ci_scope scope, struct ci_row **rows,
		    size_t *nr, char **cause);

/* The row of a scope named `name` (process comm, module path or basename,
 * function), or -ENOENT. Fills *row. */
int ci_find_row(struct gx_result *r, enum ci_scope scope, const char *name,
			struct ci_row *row, char **cause);

/*
 * Off-CPU metrics of a result recorded with --off-cpu (ci-offcpu.c):
 * off_cpu_share is the run's, a process's or a thread's time off the CPU
 * over its lifetime (thread-seconds), or a function's inclusive off-CPU
 * time over the run's thread-seconds. -ENOENT when metric is not one of
 * them; CI_CANNOT_MEASURE with *cause when the result has no context
 * switches.
 */
int ci_offcpu_metric(struct gx_result *r, const struct ci_row *row, const char *metric,
		     double *value, char **cause);
bool ci_is_offcpu_metric(const char *metric);

/* Return values of ci_metric() besides 0 and negative errors. */
#define CI_CANNOT_MEASURE 1

/*
 * Evaluate `metric` on a row: a node of the model (case-insensitive:
 * "Backend_Bound", "cpi"), CPI or IPC (also from cycles/instructions when
 * the model has no such node), an event ("cycles") or a ratio of two
 * events ("branch-misses/branches"); events are named as recorded or by
 * the model's ids. Returns 0 with *value, CI_CANNOT_MEASURE with the
 * reason in *cause (no PMU, events missing, fewer than min_samples samples
 * of the events it needs), or -EINVAL with *cause when the name means
 * nothing (a usage error).
 */
int ci_metric(struct gx_result *r, const struct ci_row *row, const char *metric,
		      uint64_t min_samples, double *value, char **cause);

/* What a metric's values are, for showing them in human units. */
enum ci_unit {
	CI_UNIT_FRACTION,	/* a share: shown in % */
	CI_UNIT_RATIO,		/* CPI, IPC, EVENT/EVENT */
	CI_UNIT_COUNT,		/* events */
	CI_UNIT_NS,		/* time (cpu-clock, task-clock) in nanoseconds */
};
enum ci_unit ci_metric_unit(const struct gx_result *r, const char *metric);

/*
 * What a metric's values on r are (src/result's gx_kind): an event's kind,
 * a ratio's the join of its two events', a node's the model's
 * (gx_result__model_kind; CPI and IPC without a node: cycles' and
 * instructions'), a share the sort event's; the off-CPU
 * metrics and names r does not know are sampled. Exact and modelled
 * values have no interval and their changes are never noise.
 */
enum gx_kind ci_metric_kind(const struct gx_result *r, const char *metric);

/*
 * x in human units into buf: a share in % ("12.3%"), time in s, ms, us or ns
 * ("2.29 s"), a count with k, M, G, T ("1.23 G"), a ratio as a number
 * ("0.812"); "-" for NAN. sign: "+" before a positive x. extra: digits
 * beyond the usual (3 significant for time, 4 for counts and ratios, one
 * decimal of a percent), to tell two close values apart.
 */
void ci_human(char *buf, size_t len, enum ci_unit u, bool sign, int extra, double x);

/* Whether a higher value of metric is better (IPC, Retiring): regressions
 * are then drops. */
bool ci_metric_higher_is_better(const char *metric);

/*
 * The metrics diff shows by default for this result: CPI, IPC and the
 * level-1 nodes when the model's events were recorded; always "share"
 * (the row's share of the reference event's samples). A NULL-terminated
 * array the caller frees (not its strings, which are r's).
 */
const char **ci_default_metrics(const struct gx_result *r);

/* ======================================================================
 * Checks (ci-check.c)
 * ==================================================================== */

enum ci_op {
	CI_MAX,			/* value <= limit */
	CI_MIN,			/* value >= limit */
	CI_MAX_REGRESS,		/* worse than the baseline by at most limit */
};

enum ci_status { CI_PASS, CI_FAIL, CI_SKIP };

struct ci_check {
	enum ci_op op;
	char *metric;
	double limit;		/* a time in nanoseconds */
	bool percent;		/* given in % (5% -> 0.05); MAX_REGRESS: relative */
	bool time;		/* given with a time unit (2s, 500ms, 10us, 100ns) */
};

struct ci_spec {
	struct ci_check *checks;
	size_t nr_checks;
	enum ci_scope scope;		/* where the checks apply */
	char **names;			/* explicit rows of the scope (--function NAME ...) */
	size_t nr_names;
	size_t top;			/* else the N hottest rows (0: every row) */
	uint64_t min_samples;		/* per row; default 20 */
	double min_reliability;		/* MUX floor; default 0.7 */
	double confidence;		/* --repeat interval level; default 0.95 */
	bool allow_incomplete;		/* a run cut short is checked as it is */
};

void ci_spec__init(struct ci_spec *s);
void ci_spec__exit(struct ci_spec *s);
/*
 * Add one threshold: op and "METRIC=VALUE" ("cpi=1.2", "Backend_Bound=40%",
 * "cpu-clock=2s", "cpi=5%" for CI_MAX_REGRESS, or an absolute delta
 * "cpi=0.1", "cpu-clock=100ms"). Percent limits are divided by 100; a time
 * (s, ms, us, ns) is held in nanoseconds. -EINVAL with *cause on a
 * malformed argument. Whether the unit fits the metric is known only with
 * a result: ci_check_run says.
 */
int ci_spec__add(struct ci_spec *s, enum ci_op op, const char *arg, char **cause);

/* One evaluated check on one row. */
struct ci_outcome {
	const struct ci_check *check;	/* borrowed from the spec */
	enum ci_scope scope;
	char *row;			/* row name ("" for the run) */
	uint32_t pid;
	char *file;			/* hottest line of a function row, or NULL */
	uint32_t line;
	enum ci_status status;
	double value;			/* mean over runs; NAN when skipped */
	size_t nr_values;		/* runs measured */
	double lo, hi;			/* confidence interval (nr_values > 1, sampled), else value */
	bool has_baseline;
	double baseline;		/* the baseline's value */
	double limit_value;		/* the absolute limit the value was held to */
	enum ci_unit unit;		/* of value, baseline and limits, for showing them */
	char *message;			/* one line: why it failed or was skipped, or the verdict */
	/* what the value is (ci_metric_kind joined over the runs): exact or
	 * modelled has no interval (lo = hi = value), and modelled is then
	 * true: not measured (record --model) */
	enum gx_kind kind;
	bool modelled;
};

struct ci_report {
	char *result;			/* first result's path */
	char *baseline;			/* or NULL */
	size_t nr_runs;
	struct ci_outcome *outcomes;
	size_t nr;
	size_t nr_pass, nr_fail, nr_skip;
	double seconds;			/* wall time of the evaluation */
	/* Per run (nr_runs): how its recording ended (gx_result__status) and
	 * why it is not whole (NULL: it is); copies. Unless allow_incomplete,
	 * a run cut short makes the exit status 2: its counts are partial. */
	char **run_status, **run_incomplete;
	size_t nr_incomplete;
	bool allow_incomplete;
	/* Source paths under this directory are written relative to it in
	 * JUnit and GitHub output (CI tools want repository paths). Borrowed;
	 * NULL keeps them as recorded. */
	const char *source_root;
};

/*
 * Evaluate spec on the results runs[0..nr_runs) (one, or several recordings
 * of the same command: values are averaged and a confidence interval is
 * computed, and a check fails only when the whole interval is past the
 * limit), against baseline (may be NULL; required for CI_MAX_REGRESS).
 * Rows are chosen on runs[0]. Fills *rep (free with ci_report__exit).
 * Negative only for usage errors (unknown metric, MAX_REGRESS without a
 * baseline, no such --function) with *cause.
 */
int ci_check_run(struct gx_result *const *runs, size_t nr_runs, struct gx_result *baseline,
		 const struct ci_spec *spec, struct ci_report *rep, char **cause);
/* Whether a and b, where both are modelled, were priced with the same
 * machine description (gexplore-record(1) MODELLED RESULTS): 0, else
 * -EINVAL with a one-line *cause naming both descriptions (or, first,
 * both branch predictors, or both revisions of the pricing rules, where
 * they differ); a comparison of the two would be a comparison of prices.
 * Measured results: 0. */
int ci_same_pricing(const struct gx_result *a, const struct gx_result *b, char **cause);
/* NULL when a and b (both modelled) simulated the same branch predictor,
 * or either is measured; else one line naming both predictors
 * (allocated): then no re-pricing makes them comparable. ci_same_pricing
 * says the same first. */
char *ci_same_predictor(const struct gx_result *a, const struct gx_result *b);
/* NULL when a and b (both modelled) were priced by the same revision of
 * the model's rules (meta.json model_rules), or either is measured; else
 * one line naming both (allocated): no re-pricing makes them comparable
 * (a result is priced again by the rules it was recorded with). */
char *ci_same_rules(const struct gx_result *a, const struct gx_result *b);
/* NULL when a and b (both modelled) were priced with the same machine
 * description, or either is measured; else one line naming both
 * descriptions (allocated): re-pricing one with the other's makes them
 * comparable. */
char *ci_same_machine(const struct gx_result *a, const struct gx_result *b);
void ci_report__exit(struct ci_report *rep);

/* The exit status for a report: 1 when anything failed, else 77 when
 * anything could not be measured, else 0. */
int ci_report__exit_status(const struct ci_report *rep);

/* Text: one line per outcome and a summary line. */
void ci_report__text(const struct ci_report *rep, struct strbuf *out);
/* JSON (schema GX_CHECK_SCHEMA, in gexplore-check(1)), pretty, newline. */
void ci_report__json(const struct ci_report *rep, struct strbuf *out);

/* ci-junit.c: JUnit XML (one testsuite, one testcase per check x row) and
 * GitHub workflow commands (::error / ::warning lines). */
void ci_report__junit(const struct ci_report *rep, struct strbuf *out);
void ci_report__github(const struct ci_report *rep, struct strbuf *out);

/* JSON helpers shared by check and diff: a real, or null when it is not
 * finite (NAN: not measured); and a document appended to out pretty-printed
 * with a newline (root is released). */
struct json_t;
struct json_t *ci_json_real(double x);
void ci_json_dump(struct json_t *root, struct strbuf *out);

/* The two-sided Student t quantile for `level` (0.95) and df degrees of
 * freedom (table for 0.90/0.95/0.99; normal beyond 30). */
double ci_t_quantile(double level, size_t df);

#endif /* GX_CI_H */
