/*
 * report-topdown.c: the top-down tree of a result — for the whole run from
 * the counting reads (or the sample estimates of a plain perf.data), and
 * level 1 per function, process and module from the sample estimates.
 */
#include "config.h"

#include "report-int.h"

#include "result/result.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mux/mux.h"
#include "topdown/topdown.h"
#include "util/util.h"

struct td_view {
	const struct td_model *model;	/* the result's, NULL: no top-down */
	const struct td_ctx *ctx;
	const int *ev;			/* event -> model event */
	size_t nr_evsels;
	int clk_evsel;			/* the sampled cycles event, or -1 */
	const char *source;		/* where the whole-run counts came from */
};

/* 0 with v ready; 1 when the recording has no event of the model (nothing
 * to show); negative when the model could not be loaded, with *cause. */
static int td_view__init(struct td_view *v, struct gx_result *in, char **cause)
{
	v->source = "samples";
	v->model = gx_result__model(in);
	v->ctx = gx_result__ctx(in);
	v->ev = gx_result__model_map(in);
	v->nr_evsels = gx_result__nr_events(in);
	v->clk_evsel = gx_result__sort_is_cycles(in) ? (int)gx_result__sort_event(in) : -1;
	if (!gx_result__model_loaded(in)) {
		*cause = xstrdup(gx_result__model_error(in));
		return -1;
	}
	return v->model ? 0 : 1;
}

static void td_view__exit(struct td_view *v)
{
	(void)v;
}

/* Whole-run values as model event counts; notes where they came from. */
static void run_counts(struct td_view *v, struct gx_result *in, double *c)
{
	bool any_counted = false, mux = false;

	for (size_t i = 0; i < v->nr_evsels; i++) {
		const struct gx_event *e = gx_result__event(in, i);

		any_counted |= v->ev[i] >= 0 && e->counted;
		mux |= gx_result__meta(in) && i < gx_result__meta(in)->nr_events &&
		       gx_result__meta(in)->events[i].has_estimate;
	}
	v->source = !any_counted ? "samples" : mux ? "counts, multiplexed" : "counts";
	gx_result__run_counts(in, c);
}

/* A row's estimates as model event counts. */
static void row_counts(struct td_view *v, struct gx_result *in, const struct profile_row *r,
		       double *c)
{
	(void)v;
	gx_result__row_counts(in, r, c);
}

/* The level-1 nodes and CPI: the per-row columns. */
size_t report__td_columns(const struct td_model *m, int *cols, size_t max)
{
	size_t n = 0;
	int cpi = td_model__find_node(m, "CPI");

	if (cpi >= 0 && n < max)
		cols[n++] = cpi;
	for (size_t i = 0; i < td_model__nr_nodes(m) && n < max; i++) {
		const struct td_node *nd = td_model__node(m, i);

		if (nd->level == 1 && !nd->hidden)
			cols[n++] = (int)i;
	}
	return n;
}

/*
 * 95% intervals of a row's metrics (lo/hi: one per node) by error
 * propagation: each event's estimate is uncertain by its sampling error
 * and, when multiplexed, by how unevenly the row met the groups
 * (mux_row_rel_sd). False when they cannot be computed.
 */
static bool row_bounds(struct td_view *v, struct gx_result *in,
		       const struct profile_row *r, const double *counts, double *lo, double *hi)
{
	size_t ne = td_model__nr_events(v->model);
	double *sd, rel;
	bool ok;

	if (gx_kind_fixed(gx_result__model_kind(in)))	/* exact, modelled: no sampling error */
		return false;
	sd = xcalloc(ne + 1, sizeof(double));
	rel = gx_result__row_reliability(in, r);

	for (size_t e = 0; e < ne; e++)
		sd[e] = NAN;
	for (size_t i = 0; i < v->nr_evsels; i++)
		if (v->ev[i] >= 0 && r->samples[i])
			sd[v->ev[i]] = mux_row_rel_sd(r->samples[i], rel);
	ok = mux_row_node_intervals(v->model, v->ctx, counts, sd, 0.95, 0, r->index + 1, lo,
				    hi, NULL) == 0;
	free(sd);
	return ok;
}

/* Under a row's values, their intervals, each in its column. */
static void text_bounds(struct strbuf *sb, const struct td_view *v, const int *cols, size_t nc,
			const double *lo, const double *hi)
{
	char cell[32];

	strbuf__addstr(sb, "  ");
	for (size_t k = 0; k < nc; k++) {
		const struct td_node *nd = td_model__node(v->model, (size_t)cols[k]);

		if (isnan(lo[cols[k]]) || isnan(hi[cols[k]]))
			snprintf(cell, sizeof(cell), "%s", "");
		else if (nd->unit == TD_UNIT_FRACTION)
			snprintf(cell, sizeof(cell), "[%.0f-%.0f]", 100 * lo[cols[k]], 100 * hi[cols[k]]);
		else
			snprintf(cell, sizeof(cell), "[%.1f-%.1f]", lo[cols[k]], hi[cols[k]]);
		strbuf__addf(sb, "%10s ", cell);
	}
	strbuf__addstr(sb, "\n");
}

/* The level-1 table of one kind of row; returns how many of its
 * fractions were clamped (td_ctx.clamp). */
static size_t text_rows(struct strbuf *sb, struct td_view *v, struct gx_result *in,
		      const struct report_opts *o, enum profile_by by, const char *title)
{
	int cols[8];
	size_t nc = report__td_columns(v->model, cols, ARRAY_SIZE(cols)), nr, shown = 0, clamped = 0;
	size_t sort = v->clk_evsel >= 0 ? (size_t)v->clk_evsel : o->sort_event;
	const struct profile_row *const *rows = profile__rows(gx_result__profile(in), by, sort, &nr);
	double *c = xcalloc(td_model__nr_events(v->model) + 1, sizeof(double));
	double total_clk = v->clk_evsel >= 0 ? (double)profile__total_period(gx_result__profile(in), sort) : 0;
	double *lo = xcalloc(td_model__nr_nodes(v->model) + 1, sizeof(double));
	double *hi = xcalloc(td_model__nr_nodes(v->model) + 1, sizeof(double));

	if (gx_kind_fixed(gx_result__model_kind(in)))
		strbuf__addf(sb, "\nTop-down level 1 by %s (%s, not measured; * over threshold "
				 "in a row with > 5%% of the cycles)\n  ", title,
			     gx_kind_name(gx_result__model_kind(in)));
	else
		strbuf__addf(sb, "\nTop-down level 1 by %s (from samples; * over threshold in a row "
				 "with > 5%% of the cycles; below each row its 95%% intervals)\n  ",
			     title);
	for (size_t k = 0; k < nc; k++) {
		const char *name = td_model__node(v->model, (size_t)cols[k])->name;
		size_t l = strlen(name);

		/* "Frontend_Bound" -> "Frontend", "Bad_Speculation" -> "Bad_Spec" */
		if (l > 6 && !strcmp(name + l - 6, "_Bound"))
			l -= 6;
		else if (!strcmp(name, "Bad_Speculation"))
			l = 8;
		strbuf__addf(sb, "%10.*s ", (int)(l > 10 ? 10 : l), name);
	}
	if (gx_result__mux(in))
		strbuf__addstr(sb, "   MUX");
	strbuf__addf(sb, " %s\n", title);
	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];
		struct td_result res;
		bool sig = v->clk_evsel >= 0 &&
			   td_row_significant((double)r->period[v->clk_evsel], total_clk);

		if (o->limit && shown == o->limit)
			break;
		if (v->clk_evsel >= 0 && !r->samples[v->clk_evsel])
			continue;
		shown++;
		row_counts(v, in, r, c);
		if (td_eval(v->model, c, v->ctx, &res, NULL) != 0)
			continue;
		strbuf__addstr(sb, "  ");
		for (size_t k = 0; k < nc; k++) {
			const struct td_value *x = &res.v[cols[k]];
			const struct td_node *nd = td_model__node(v->model, (size_t)cols[k]);
			char mark = x->clamped ? '~' : sig && x->flagged ? '*' : ' ';

			clamped += x->clamped;
			if (x->na)
				strbuf__addf(sb, "%10s ", "n/a");
			else if (nd->unit == TD_UNIT_FRACTION)
				strbuf__addf(sb, "%8.1f%%%c ", gx_zero_below(100 * x->value, 1), mark);
			else
				strbuf__addf(sb, "%9.2f%c ", gx_zero_below(x->value, 2), mark);
		}
		if (gx_result__mux(in)) {
			double rel = gx_result__row_reliability(in, r);

			if (isnan(rel))
				strbuf__addstr(sb, "   n/a");
			else	/* '!' below 0.7: not to be trusted */
				strbuf__addf(sb, " %4.2f%c", rel, rel < 0.7 ? '!' : ' ');
		}
		if (by == PROFILE_BY_MODULE) {
			strbuf__addf(sb, " %s\n", gx_esc(r->name));
		} else if (by == PROFILE_BY_FUNCTION) {
			const char *base = r->module ? strrchr(r->module, '/') : NULL;

			strbuf__addf(sb, " %s (%s)\n", gx_esc(r->name),
				     gx_esc(base ? base + 1 : r->module && *r->module ? r->module : "?"));
		} else {
			if (by == PROFILE_BY_COMMAND)	/* (N processes) */
				strbuf__addf(sb, " %s (%u process%s)\n", gx_esc(r->name), r->nr_procs,
					     r->nr_procs == 1 ? "" : "es");
			else
				strbuf__addf(sb, " %s (%u)\n", gx_esc(r->name), by == PROFILE_BY_THREAD ? r->tid : r->pid);
		}
		if (row_bounds(v, in, r, c, lo, hi))
			text_bounds(sb, v, cols, nc, lo, hi);
		td_result__exit(&res);
	}
	free(lo);
	free(hi);
	free(c);
	return clamped;
}

/* Under the tables, once: how many of their fractions were clamped. */
static void clamp_note(struct strbuf *sb, size_t clamped)
{
	if (clamped)
		strbuf__addf(sb, "  ~ clamped: %zu fraction%s fell outside [0%%, 100%%] and %s shown "
			     "at the bound (exact and modelled values have no sampling error: out "
			     "of range is the model's error)\n", clamped, clamped == 1 ? "" : "s",
			     clamped == 1 ? "is" : "are");
}

/* Intervals of the whole run's metrics when the run was multiplexed:
 * bootstrap over the slices (mux_log__node_intervals). lo/hi allocated. */
static bool run_intervals(struct td_view *v, struct gx_result *in, double **lo,
			  double **hi)
{
	size_t n = td_model__nr_nodes(v->model);

	*lo = *hi = NULL;
	if (!gx_result__mux(in) ||
	    mux_log__nr_events(gx_result__mux(in)) != gx_result__nr_recorded(in))
		return false;
	*lo = xcalloc(n + 1, sizeof(double));
	*hi = xcalloc(n + 1, sizeof(double));
	if (mux_log__node_intervals(gx_result__mux(in), v->model, v->ctx, v->ev, 0.95, 0, *lo, *hi,
				    NULL) != 0) {
		free(*lo);
		free(*hi);
		*lo = *hi = NULL;
		return false;
	}
	return true;
}

static void text_intervals(struct strbuf *sb, struct td_view *v, struct gx_result *in,
			   const struct td_result *res)
{
	double *lo, *hi;

	if (!run_intervals(v, in, &lo, &hi))
		return;
	strbuf__addstr(sb, "\nConfidence (95%, bootstrap over the multiplexing slices):\n");
	for (size_t i = 0; i < td_model__nr_nodes(v->model); i++) {
		const struct td_node *nd = td_model__node(v->model, i);

		if (nd->hidden || nd->level < 1 || nd->level > 2 || res->v[i].na || isnan(lo[i]))
			continue;
		strbuf__addf(sb, "  %*s%-24s ", 2 * (nd->level - 1), "", nd->name);
		mux_format_interval(sb, res->v[i].value, lo[i], hi[i], nd->unit == TD_UNIT_FRACTION);
		strbuf__addstr(sb, "\n");
	}
	free(lo);
	free(hi);
}

int report_topdown_text(struct strbuf *sb, struct gx_result *in,
			const struct report_opts *o)
{
	struct td_view v;
	struct td_result res;
	double *c;
	size_t clamped;
	char *cause = NULL;
	int err = td_view__init(&v, in, &cause);

	if (err) {
		if (err < 0)
			strbuf__addf(sb, "\nTop-down: not available: %s\n", cause);
		else if (gx_result__model_note(in))	/* hybrid, E-core events only */
			strbuf__addf(sb, "\nTop-down: %s.\n", gx_result__model_why(in));
		else
			strbuf__addstr(sb, "\nTop-down: needs hardware counters; this recording has "
					   "none of the CPU model's events\n(the time hotspots above "
					   "do not need them).\n");
		free(cause);
		td_view__exit(&v);
		return 0;
	}
	c = xcalloc(td_model__nr_events(v.model) + 1, sizeof(double));
	run_counts(&v, in, c);
	err = td_eval(v.model, c, v.ctx, &res, &cause);
	if (!err) {
		strbuf__addf(sb, "\nTop-down (%smodel %s%s%s, SMT %s; whole run from %s)\n",
			     gx_kind_fixed(gx_result__model_kind(in)) ? "MODELLED, not measured: " : "",
			     td_model__id(v.model), v.ctx->variant ? ", variant " : "",
			     v.ctx->variant ? v.ctx->variant : "",
			     v.ctx->smt == TD_SMT_ON ? "on" : v.ctx->smt == TD_SMT_OFF ? "off" : "unknown",
			     v.source);
		if (gx_result__model_note(in))
			strbuf__addf(sb, "  (%s)\n", gx_result__model_note(in));
		td_result__print(v.model, &res, sb, TD_PRINT_DESC);
		if (gx_kind_fixed(gx_result__model_kind(in)))
			strbuf__addstr(sb, "(modelled: every figure of this tree, CPI and IPC included; "
					   "instructions are exact counts)\n");
		text_intervals(sb, &v, in, &res);
		td_result__exit(&res);
		clamped = text_rows(sb, &v, in, o, PROFILE_BY_FUNCTION, "function");
		clamped += text_rows(sb, &v, in, o, report__process_by(o), "process");
		clamped += text_rows(sb, &v, in, o, PROFILE_BY_MODULE, "module");
		clamp_note(sb, clamped);
	}
	free(c);
	free(cause);
	td_view__exit(&v);
	return 0;
}

/*
 * 95% intervals of a row's metrics by error propagation: each event's
 * estimate is uncertain by its sampling error and, when multiplexed, by
 * how unevenly the row met the groups (mux_row_rel_sd).
 */
static json_t *row_intervals(struct td_view *v, struct gx_result *in,
			     const struct profile_row *r, const double *counts)
{
	size_t nn = td_model__nr_nodes(v->model);
	double *lo = xcalloc(nn + 1, sizeof(double)), *hi = xcalloc(nn + 1, sizeof(double));
	json_t *iv = json_object();

	if (row_bounds(v, in, r, counts, lo, hi)) {
		for (size_t i = 0; i < nn; i++) {
			const struct td_node *nd = td_model__node(v->model, i);

			if (nd->hidden || isnan(lo[i]) || isnan(hi[i]))
				continue;
			json_object_set_new(iv, nd->name, json_pack("[f,f]", lo[i], hi[i]));
		}
	}
	free(lo);
	free(hi);
	return iv;
}

static json_t *json_rows(struct td_view *v, struct gx_result *in,
			 const struct report_opts *o, enum profile_by by)
{
	size_t nr, sort = v->clk_evsel >= 0 ? (size_t)v->clk_evsel : o->sort_event, shown = 0;
	const struct profile_row *const *rows = profile__rows(gx_result__profile(in), by, sort, &nr);
	double *c = xcalloc(td_model__nr_events(v->model) + 1, sizeof(double));
	json_t *a = json_array();

	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];
		struct td_result res;
		json_t *row;

		if (o->limit && shown++ == o->limit)
			break;
		row_counts(v, in, r, c);
		if (td_eval(v->model, c, v->ctx, &res, NULL) != 0)
			continue;
		row = json_object();
		if (by == PROFILE_BY_MODULE) {
			json_object_set_new(row, "module", json_string(gx_utf8(r->name)));
		} else if (by == PROFILE_BY_FUNCTION) {
			json_object_set_new(row, "function", json_string(gx_utf8(r->name)));
			json_object_set_new(row, "module", json_string(r->module ? gx_utf8(r->module) : ""));
		} else {
			json_object_set_new(row, "pid", json_integer(r->pid));
			json_object_set_new(row, "comm", json_string(gx_utf8(r->name)));
			json_object_set_new(row, "processes",
					    json_integer(by == PROFILE_BY_COMMAND ? r->nr_procs : 1));
		}
		if (gx_result__mux(in)) {
			double rel = gx_result__row_reliability(in, r);

			json_object_set_new(row, "mux_reliability", isnan(rel) ? json_null() : json_real(rel));
		}
		json_object_set_new(row, "tree", td_result__to_json(v->model, &res, v->ctx));
		json_object_set_new(row, "intervals", row_intervals(v, in, r, c));
		json_array_append_new(a, row);
		td_result__exit(&res);
	}
	free(c);
	return a;
}

json_t *report_topdown_json(struct gx_result *in, const struct report_opts *o)
{
	struct td_view v;
	struct td_result res;
	json_t *root = NULL;
	double *c;
	char *cause = NULL;
	int err = td_view__init(&v, in, &cause);

	if (err) {
		root = json_object();
		json_object_set_new(root, "available", json_false());
		json_object_set_new(root, "reason",
				    json_string(err < 0 ? cause :
						gx_result__model_note(in) ? gx_result__model_why(in) :
						"needs hardware counters: the "
						"recording has none of the CPU model's events"));
		free(cause);
		td_view__exit(&v);
		return root;
	}
	c = xcalloc(td_model__nr_events(v.model) + 1, sizeof(double));
	run_counts(&v, in, c);
	if (td_eval(v.model, c, v.ctx, &res, &cause) == 0) {
		root = json_object();
		json_object_set_new(root, "available", json_true());
		json_object_set_new(root, "model", json_string(td_model__id(v.model)));
		json_object_set_new(root, "modelled",
				    json_boolean(gx_kind_fixed(gx_result__model_kind(in))));
		json_object_set_new(root, "source", json_string(v.source));
		if (gx_result__model_note(in))
			json_object_set_new(root, "note", json_string(gx_result__model_note(in)));
		json_object_set_new(root, "run", td_result__to_json(v.model, &res, v.ctx));
		{
			double *lo, *hi;

			if (run_intervals(&v, in, &lo, &hi)) {
				json_t *iv = json_object();

				for (size_t i = 0; i < td_model__nr_nodes(v.model); i++) {
					if (isnan(lo[i]) || isnan(hi[i]))
						continue;
					json_object_set_new(iv, td_model__node(v.model, i)->name,
							    json_pack("[f,f]", lo[i], hi[i]));
				}
				json_object_set_new(root, "run_intervals", iv);
				free(lo);
				free(hi);
			}
		}
		json_object_set_new(root, "functions", json_rows(&v, in, o, PROFILE_BY_FUNCTION));
		json_object_set_new(root, "processes", json_rows(&v, in, o, report__process_by(o)));
		json_object_set_new(root, "modules", json_rows(&v, in, o, PROFILE_BY_MODULE));
		td_result__exit(&res);
	}
	free(c);
	free(cause);
	td_view__exit(&v);
	return root;
}
