/*
 * ci-check.c: thresholds on metrics for CI (`gexplore check`). A spec is a
 * list of checks (max, min, max-regress against a baseline) applied to the
 * rows of one scope; every check x row becomes an outcome: pass, fail or
 * skip (cannot measure). With several runs of the same command the value
 * is their mean with a Student-t confidence interval, and a check fails
 * only when the whole interval is past its limit: noise alone cannot fail
 * a build.
 */
#include "config.h"

#include "ci.h"

#include "result/result.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Values this close to the limit are at the limit (1.25 vs "1.25"). */
#define CI_EPS 1e-9

void ci_spec__init(struct ci_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->scope = CI_SCOPE_RUN;
	s->min_samples = 20;
	s->min_reliability = 0.7;
	s->confidence = 0.95;
}

void ci_spec__exit(struct ci_spec *s)
{
	for (size_t i = 0; i < s->nr_checks; i++)
		free(s->checks[i].metric);
	free(s->checks);
	for (size_t i = 0; i < s->nr_names; i++)
		free(s->names[i]);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

/* Time units of a limit, in nanoseconds. */
static const struct {
	const char *name;
	double ns;
} time_units[] = { { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 } };

int ci_spec__add(struct ci_spec *s, enum ci_op op, const char *arg, char **cause)
{
	const char *eq = strrchr(arg, '=');
	struct ci_check c = { .op = op };
	bool number;
	char *end;

	if (!eq || eq == arg || !eq[1])
		return gx_fail(cause, -EINVAL, "'%s' is not METRIC=VALUE", arg);
	errno = 0;
	c.limit = strtod(eq + 1, &end);
	number = end != eq + 1;
	if (*end == '%') {
		c.percent = true;
		c.limit /= 100;
		end++;
	}
	for (size_t i = 0; i < sizeof(time_units) / sizeof(time_units[0]) && !c.percent; i++)
		if (*end && !strcmp(end, time_units[i].name)) {
			c.time = true;
			c.limit *= time_units[i].ns;
			end += strlen(end);
		}
	if (errno || !number || *end || !isfinite(c.limit))
		return gx_fail(cause, -EINVAL, "'%s': '%s' is not a number, a percentage or a time "
			       "(2s, 500ms, 10us, 100ns)", arg, eq + 1);
	if (op == CI_MAX_REGRESS && c.limit < 0)
		return gx_fail(cause, -EINVAL, "'%s': a regression limit cannot be negative", arg);
	c.metric = xstrndup(arg, (size_t)(eq - arg));
	s->checks = xrealloc(s->checks, (s->nr_checks + 1) * sizeof(*s->checks));
	s->checks[s->nr_checks++] = c;
	return 0;
}

/* ---- statistics -------------------------------------------------------- */

double ci_t_quantile(double level, size_t df)
{
	/* two-sided Student t quantiles, df 1..30 */
	static const double t90[] = { 6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860,
		1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
		1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697 };
	static const double t95[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
	static const double t99[] = { 63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355,
		3.250, 3.169, 3.106, 3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
		2.831, 2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750 };
	const double *t = level >= 0.985 ? t99 : level >= 0.925 ? t95 : t90;
	double z = level >= 0.985 ? 2.576 : level >= 0.925 ? 1.960 : 1.645;

	if (df == 0)
		return INFINITY;
	return df <= 30 ? t[df - 1] : z;
}

static void mean_interval(const double *x, size_t n, double level, double *mean, double *lo,
			  double *hi)
{
	double s = 0, ss = 0, half;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	*mean = s / (double)n;
	if (n < 2) {
		*lo = *hi = *mean;
		return;
	}
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	half = ci_t_quantile(level, n - 1) * sqrt(ss / (double)(n - 1)) / sqrt((double)n);
	*lo = *mean - half;
	*hi = *mean + half;
}

/* ---- evaluation -------------------------------------------------------- */

static const char *op_name(enum ci_op op)
{
	return op == CI_MAX ? "max" : op == CI_MIN ? "min" : "max-regress";
}

/* "cpi", or "cpi of process backend (1000)" */
static char *where(const struct ci_outcome *o)
{
	if (o->scope == CI_SCOPE_RUN)
		return xstrdup("the run");
	if (o->scope == CI_SCOPE_PROCESS)
		return xasprintf("process %s (%u)", o->row, o->pid);
	return xasprintf("%s %s", ci_scope_name(o->scope), o->row);
}

static void set_message(struct ci_outcome *o, const char *fmt, ...) GX_PRINTF(2, 3);
static void set_message(struct ci_outcome *o, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);	/* fmt's arguments may include the old message */
	va_end(ap);
	free(o->message);
	o->message = m;
}

/* The row of `scope` called like `want` in r, as a ci_row. */
static int same_row(struct gx_result *r, const struct ci_row *want, struct ci_row *row,
		    char **cause)
{
	if (want->scope == CI_SCOPE_RUN) {
		struct ci_row *rows;
		size_t nr;
		int err = ci_rows(r, CI_SCOPE_RUN, &rows, &nr, cause);	/* a region's share */

		if (err)
			return err;
		*row = rows[0];
		free(rows);
		return 0;
	}
	/* threads of one name (a pool): in the run the rows came from, each
	 * is itself, not the first so named */
	if (want->scope == CI_SCOPE_THREAD && want->prow &&
	    profile__row(gx_result__profile(r), PROFILE_BY_THREAD, want->prow->index) == want->prow) {
		*row = *want;
		return 0;
	}
	return ci_find_row(r, want->scope, want->name, row, cause);
}

/*
 * The unit a limit is given in against the metric's (u, on the first
 * run): a time only for a time, a percentage only for a share or a ratio
 * (or a relative regression). Where the metric is not known here (a node
 * of a model the recording lacks) the unit cannot be checked: the
 * measurement says why it cannot be made. -EINVAL with *cause.
 */
static int check_unit(const struct gx_result *r, const struct ci_check *c, enum ci_unit u,
		      char **cause)
{
	size_t ev;
	bool known = u != CI_UNIT_COUNT || gx_result__find_event(r, c->metric, &ev) == 0;

	if (c->time && u != CI_UNIT_NS && known)
		return gx_fail(cause, -EINVAL, "--%s %s: %s is not a time (cpu-clock and task-clock "
			       "are): give its limit as a number", op_name(c->op), c->metric,
			       c->metric);
	if (c->percent && c->op != CI_MAX_REGRESS && known &&
	    (u == CI_UNIT_NS || u == CI_UNIT_COUNT))
		return gx_fail(cause, -EINVAL, "--%s %s: a percentage limits a share or a ratio, "
			       "and %s is a %s: give a number%s", op_name(c->op), c->metric,
			       c->metric, u == CI_UNIT_NS ? "time" : "count",
			       u == CI_UNIT_NS ? " or a time (2s, 500ms)" : "");
	return 0;
}

/* The digits beyond the usual ones that tell x from y in human units (0
 * when the usual ones do, or when they are equal). */
static int extra_digits(enum ci_unit u, double x, double y)
{
	char a[48], b[48];
	int extra = 0;

	for (; extra < 6 && x != y && isfinite(x) && isfinite(y); extra++) {
		ci_human(a, sizeof(a), u, false, extra, x);
		ci_human(b, sizeof(b), u, false, extra, y);
		if (strcmp(a, b))
			break;
	}
	return extra;
}

static void verdict(struct ci_outcome *o, const struct ci_spec *spec)
{
	const struct ci_check *c = o->check;
	char *w = where(o);
	/* exact and modelled values have no interval: the value decides */
	bool multi = o->nr_values > 1 && !gx_kind_fixed(o->kind);
	/* with several runs, a check fails only when the interval is past the limit */
	double hi = multi ? o->hi : o->value, lo = multi ? o->lo : o->value;
	double lim;
	bool worse_up = true;
	int extra;
	char base[160] = "", interval[160] = "", v[48], l[48], b[48], x[48], y[48];

	switch (c->op) {
	case CI_MAX:
		lim = c->limit;
		break;
	case CI_MIN:
		lim = c->limit;
		worse_up = false;
		break;
	default:
		worse_up = !ci_metric_higher_is_better(c->metric);
		lim = c->percent ? fabs(o->baseline) * c->limit : c->limit;
		lim = worse_up ? o->baseline + lim : o->baseline - lim;
		break;
	}
	o->limit_value = lim;
	if (worse_up ? lo > lim + CI_EPS * fabs(lim) : hi < lim - CI_EPS * fabs(lim))
		o->status = CI_FAIL;
	else
		o->status = CI_PASS;
	/* value, limit and baseline in the metric's unit, with the digits
	 * that tell the value from the others */
	extra = extra_digits(o->unit, o->value, lim);
	if (o->has_baseline && extra_digits(o->unit, o->value, o->baseline) > extra)
		extra = extra_digits(o->unit, o->value, o->baseline);
	ci_human(v, sizeof(v), o->unit, false, extra, o->value);
	ci_human(l, sizeof(l), o->unit, false, extra, lim);
	if (multi) {
		int e2 = extra_digits(o->unit, o->lo, o->hi);

		ci_human(x, sizeof(x), o->unit, false, e2 > extra ? e2 : extra, o->lo);
		ci_human(y, sizeof(y), o->unit, false, e2 > extra ? e2 : extra, o->hi);
		snprintf(interval, sizeof(interval), " [%s, %s] %g%% CI over %zu runs", x, y,
			 100 * spec->confidence, o->nr_values);
	}
	if (o->has_baseline) {
		ci_human(b, sizeof(b), o->unit, false, extra, o->baseline);
		if (o->baseline)
			snprintf(base, sizeof(base), ", baseline %s (%+.1f%%)", b,
				 100 * (o->value - o->baseline) / fabs(o->baseline));
		else
			snprintf(base, sizeof(base), ", baseline %s", b);
	}
	if (c->op == CI_MAX_REGRESS) {
		if (c->percent)
			snprintf(x, sizeof(x), "%g%%", 100 * c->limit);
		else
			ci_human(x, sizeof(x), o->unit, false, 0, c->limit);
		set_message(o, "%s of %s = %s%s%s%s; %s by at most %s (limit %s)", c->metric, w, v,
			    interval, base, o->status == CI_FAIL ? ": regressed" : "",
			    worse_up ? "up" : "down", x, l);
	} else {
		set_message(o, "%s of %s = %s%s %s %s %s%s", c->metric, w, v, interval,
			    o->status == CI_FAIL ? (worse_up ? ">" : "<") : (worse_up ? "<=" : ">="),
			    op_name(c->op), l, base);
	}
	if (o->status == CI_PASS && multi && (worse_up ? hi > lim : lo < lim))
		set_message(o, "%s (inconclusive: the interval spans the limit; noise does not fail)",
			    o->message);
	free(w);
}

/* Evaluate one check on one row of every run. 0 or -EINVAL (usage). */
static int eval_one(struct gx_result *const *runs, size_t nr_runs, struct gx_result *baseline,
		    const struct ci_spec *spec, const struct ci_check *c, const struct ci_row *row,
		    struct ci_outcome *o, char **cause)
{
	double *x = xcalloc(nr_runs, sizeof(double));
	char *why = NULL, *w;
	int err = 0;

	o->check = c;
	o->scope = row->scope;
	o->row = xstrdup(row->name);
	o->pid = row->pid;
	o->value = o->lo = o->hi = o->baseline = o->limit_value = NAN;
	o->unit = CI_UNIT_RATIO;	/* a plain number until the metric is known */
	if (row->file) {
		o->file = xstrdup(row->file);
		o->line = row->line;
	}
	w = where(o);
	o->status = CI_SKIP;
	for (size_t k = 0; k < nr_runs; k++) {
		struct ci_row rk;
		double rel;

		if (same_row(runs[k], row, &rk, &why) != 0) {
			set_message(o, "cannot measure %s of %s: %s", c->metric, w, why);
			goto out;
		}
		rel = ci_row_reliability(runs[k], &rk);
		/* the metric first: a name that means nothing is a usage error
		 * whatever the data */
		err = ci_metric(runs[k], &rk, c->metric, spec->min_samples, &x[k], &why);
		if (err < 0) {
			*cause = why;
			why = NULL;
			goto out;
		}
		o->kind = k ? gx_kind_join(o->kind, ci_metric_kind(runs[k], c->metric)) :
			  ci_metric_kind(runs[k], c->metric);
		if (k == 0) {
			o->unit = ci_metric_unit(runs[0], c->metric);
			if (check_unit(runs[0], c, o->unit, cause)) {
				err = -EINVAL;
				goto out;
			}
		}
		if (rel < spec->min_reliability) {
			err = 0;
			set_message(o, "cannot measure %s of %s: MUX reliability %.2f in %s is below "
				    "--min-reliability %.2f", c->metric, w, rel,
				    gx_result__path(runs[k]), spec->min_reliability);
			goto out;
		}
		if (err == CI_CANNOT_MEASURE) {
			err = 0;
			set_message(o, "cannot measure %s of %s: %s", c->metric, w, why);
			goto out;
		}
		o->nr_values++;
	}
	if (baseline) {
		struct ci_row rb;
		int berr = same_row(baseline, row, &rb, &why);

		if (!berr)
			berr = ci_metric(baseline, &rb, c->metric, spec->min_samples,
						 &o->baseline, &why);
		if (berr < 0 && berr != -ENOENT) {
			*cause = why;
			why = NULL;
			err = berr;
			goto out;
		}
		if (berr == 0)
			o->has_baseline = true;
		else if (c->op == CI_MAX_REGRESS) {
			set_message(o, "cannot measure %s of %s in the baseline %s: %s", c->metric,
				    w, gx_result__path(baseline), why);
			goto out;
		}
	}
	mean_interval(x, nr_runs, spec->confidence, &o->value, &o->lo, &o->hi);
	if (gx_kind_fixed(o->kind))
		o->lo = o->hi = o->value;	/* no interval */
	verdict(o, spec);
	o->modelled = gx_kind_fixed(o->kind);
	if (o->modelled)	/* said beside the number, in every format */
		set_message(o, "%s (%s)", o->message, o->kind == GX_KIND_EXACT ?
			    "exact: counted under Valgrind, no interval" :
			    "modelled, not measured: no interval");
out:
	free(w);
	free(why);
	free(x);
	return err;
}

/* The rows the spec names on r (the first run). */
static int pick_rows(struct gx_result *r, const struct ci_spec *spec, struct ci_row **rows,
		     size_t *nr, char **cause)
{
	size_t top = spec->top ? spec->top : 5;
	int err;

	if (spec->nr_names) {
		*rows = xcalloc(spec->nr_names, sizeof(**rows));
		for (size_t i = 0; i < spec->nr_names; i++) {
			err = ci_find_row(r, spec->scope, spec->names[i], &(*rows)[i], cause);
			if (err) {
				free(*rows);
				*rows = NULL;
				return err;
			}
		}
		*nr = spec->nr_names;
		return 0;
	}
	err = ci_rows(r, spec->scope, rows, nr, cause);
	if (!err && spec->scope != CI_SCOPE_RUN && *nr > top)
		*nr = top;
	return err;
}

char *ci_same_predictor(const struct gx_result *a, const struct gx_result *b)
{
	if (!gx_result__modelled(a) || !gx_result__modelled(b))	/* a bare perf.data has no meta */
		return NULL;
	return gx_meta__predictor_differs(gx_result__meta(a), gx_result__path(a),
					  gx_result__meta(b), gx_result__path(b));
}

char *ci_same_rules(const struct gx_result *a, const struct gx_result *b)
{
	if (!gx_result__modelled(a) || !gx_result__modelled(b))
		return NULL;
	return gx_meta__rules_differ(gx_result__meta(a), gx_result__path(a), gx_result__meta(b),
				     gx_result__path(b));
}

char *ci_same_machine(const struct gx_result *a, const struct gx_result *b)
{
	if (!gx_result__modelled(a) || !gx_result__modelled(b))
		return NULL;
	return gx_meta_machine__differs(&gx_result__meta(a)->machine, gx_result__path(a),
					&gx_result__meta(b)->machine, gx_result__path(b));
}

int ci_same_pricing(const struct gx_result *a, const struct gx_result *b, char **cause)
{
	char *why = ci_same_predictor(a, b);

	if (!why)
		why = ci_same_rules(a, b);
	if (!why)
		why = ci_same_machine(a, b);
	if (!why)
		return 0;
	*cause = why;
	return -EINVAL;
}

int ci_check_run(struct gx_result *const *runs, size_t nr_runs, struct gx_result *baseline,
		 const struct ci_spec *spec, struct ci_report *rep, char **cause)
{
	struct ci_row *rows = NULL;
	struct timespec t0, t1;
	size_t nr = 0;
	int err;

	memset(rep, 0, sizeof(*rep));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!nr_runs)
		return gx_fail(cause, -EINVAL, "no result to check");
	if (!spec->nr_checks)
		return gx_fail(cause, -EINVAL, "nothing to check: give --max, --min or --max-regress");
	for (size_t i = 0; i < spec->nr_checks; i++)
		if (spec->checks[i].op == CI_MAX_REGRESS && !baseline)
			return gx_fail(cause, -EINVAL, "--max-regress %s needs --baseline RESULT",
				       spec->checks[i].metric);
	if (baseline && ci_same_pricing(baseline, runs[0], cause))
		return -EINVAL;
	err = pick_rows(runs[0], spec, &rows, &nr, cause);
	if (err)
		return err == -ENOENT ? -EINVAL : err;
	rep->result = xstrdup(gx_result__path(runs[0]));
	rep->baseline = baseline ? xstrdup(gx_result__path(baseline)) : NULL;
	rep->nr_runs = nr_runs;
	rep->allow_incomplete = spec->allow_incomplete;
	rep->run_status = xcalloc(nr_runs + 1, sizeof(*rep->run_status));
	rep->run_incomplete = xcalloc(nr_runs + 1, sizeof(*rep->run_incomplete));
	for (size_t i = 0; i < nr_runs; i++) {
		const char *why = gx_result__incomplete(runs[i]);

		rep->run_status[i] = xstrdup(gx_result__status(runs[i]));
		rep->run_incomplete[i] = why ? xstrdup(why) : NULL;
		rep->nr_incomplete += why != NULL;
	}
	rep->outcomes = xcalloc(spec->nr_checks * nr + 1, sizeof(*rep->outcomes));
	for (size_t i = 0; i < spec->nr_checks && !err; i++)
		for (size_t j = 0; j < nr && !err; j++) {
			struct ci_outcome *o = &rep->outcomes[rep->nr++];

			err = eval_one(runs, nr_runs, baseline, spec, &spec->checks[i], &rows[j], o,
				       cause);
			if (!err) {
				rep->nr_pass += o->status == CI_PASS;
				rep->nr_fail += o->status == CI_FAIL;
				rep->nr_skip += o->status == CI_SKIP;
			}
		}
	free(rows);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rep->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (err)
		ci_report__exit(rep);
	return err;
}

void ci_report__exit(struct ci_report *rep)
{
	for (size_t i = 0; i < rep->nr; i++) {
		free(rep->outcomes[i].row);
		free(rep->outcomes[i].file);
		free(rep->outcomes[i].message);
	}
	free(rep->outcomes);
	gx_free_strv(rep->run_status, rep->run_status ? rep->nr_runs : 0);
	gx_free_strv(rep->run_incomplete, rep->run_incomplete ? rep->nr_runs : 0);
	free(rep->result);
	free(rep->baseline);
	memset(rep, 0, sizeof(*rep));
}

int ci_report__exit_status(const struct ci_report *rep)
{
	return rep->nr_fail ? 1 : rep->nr_incomplete && !rep->allow_incomplete ? 2 :
	       rep->nr_skip ? 77 : 0;
}

static const char *status_name(enum ci_status s)
{
	return s == CI_PASS ? "pass" : s == CI_FAIL ? "fail" : "skip";
}

void ci_report__text(const struct ci_report *rep, struct strbuf *out)
{
	for (size_t i = 0; i < rep->nr; i++) {
		const struct ci_outcome *o = &rep->outcomes[i];

		strbuf__addf(out, "%-4s  %s", o->status == CI_PASS ? "PASS" :
			     o->status == CI_FAIL ? "FAIL" : "SKIP", gx_esc(o->message));
		if (o->file && o->status == CI_FAIL)
			strbuf__addf(out, " (hottest line %s:%u)", gx_esc(o->file), o->line);
		strbuf__addstr(out, "\n");
	}
	strbuf__addf(out, "gexplore check %s: %zu passed, %zu failed, %zu cannot measure "
		     "(%zu run%s%s%s)\n", gx_esc(rep->result), rep->nr_pass, rep->nr_fail, rep->nr_skip,
		     rep->nr_runs, rep->nr_runs == 1 ? "" : "s",
		     rep->baseline ? ", baseline " : "", rep->baseline ? gx_esc(rep->baseline) : "");
}

json_t *ci_json_real(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

void ci_json_dump(json_t *root, struct strbuf *out)
{
	char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));

	strbuf__addstr(out, s ? s : "null");
	strbuf__addstr(out, "\n");
	free(s);
	json_decref(root);
}

void ci_report__json(const struct ci_report *rep, struct strbuf *out)
{
	json_t *root = json_object(), *a = json_array(), *r = json_array();

	json_object_set_new(root, "schema", json_string(GX_CHECK_SCHEMA));
	json_object_set_new(root, "result", json_string(gx_utf8(rep->result)));
	json_object_set_new(root, "baseline", rep->baseline ? json_string(gx_utf8(rep->baseline)) :
							      json_null());
	json_object_set_new(root, "runs", json_integer((json_int_t)rep->nr_runs));
	json_object_set_new(root, "status", json_string(rep->nr_fail ? "fail" :
							 ci_report__exit_status(rep) == 2 ?
							 "incomplete" :
							 rep->nr_skip ? "skip" : "pass"));
	for (size_t i = 0; i < rep->nr_runs; i++)
		json_array_append_new(r, json_pack("{s:s?,s:s?}", "status", gx_utf8(rep->run_status[i]),
						   "incomplete", gx_utf8(rep->run_incomplete[i])));
	json_object_set_new(root, "run_status", r);
	json_object_set_new(root, "exit", json_integer(ci_report__exit_status(rep)));
	json_object_set_new(root, "passed", json_integer((json_int_t)rep->nr_pass));
	json_object_set_new(root, "failed", json_integer((json_int_t)rep->nr_fail));
	json_object_set_new(root, "skipped", json_integer((json_int_t)rep->nr_skip));
	for (size_t i = 0; i < rep->nr; i++) {
		const struct ci_outcome *o = &rep->outcomes[i];
		json_t *c = json_object();

		json_object_set_new(c, "metric", json_string(gx_utf8(o->check->metric)));
		json_object_set_new(c, "op", json_string(op_name(o->check->op)));
		json_object_set_new(c, "limit", json_real(o->check->limit));
		json_object_set_new(c, "relative", json_boolean(o->check->percent &&
								o->check->op == CI_MAX_REGRESS));
		json_object_set_new(c, "scope", json_string(ci_scope_name(o->scope)));
		json_object_set_new(c, "row", json_string(gx_utf8(o->row)));
		if (o->scope == CI_SCOPE_PROCESS)
			json_object_set_new(c, "pid", json_integer(o->pid));
		json_object_set_new(c, "status", json_string(status_name(o->status)));
		json_object_set_new(c, "modelled", json_boolean(o->modelled));
		json_object_set_new(c, "kind", json_string(gx_kind_name(o->kind)));
		json_object_set_new(c, "value", ci_json_real(o->value));
		json_object_set_new(c, "interval", o->nr_values > 1 && !gx_kind_fixed(o->kind) ?
				    json_pack("[o,o]", ci_json_real(o->lo), ci_json_real(o->hi)) :
				    json_null());
		json_object_set_new(c, "baseline", o->has_baseline ? ci_json_real(o->baseline) :
								     json_null());
		json_object_set_new(c, "threshold", ci_json_real(o->limit_value));
		json_object_set_new(c, "file", o->file ? json_string(gx_utf8(o->file)) : json_null());
		json_object_set_new(c, "line", o->file ? json_integer(o->line) : json_null());
		json_object_set_new(c, "message", json_string(o->message ? gx_utf8(o->message) : ""));
		json_array_append_new(a, c);
	}
	json_object_set_new(root, "checks", a);
	ci_json_dump(root, out);
}
