/*
 * report-regions.c: the regions of a result (gexplore-regions(3)) in the
 * text, JSON and CSV reports: per region name its instances, threads,
 * time, the sort event's samples and share of the run, and its hottest
 * functions, and when the model's events were sampled its top-down level
 * 1 (and CPI) from the region's samples. A sample counts in every region
 * open on its thread when it was taken (nested regions overlap).
 */
#include "config.h"

#include "report-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topdown/topdown.h"

#define HOT 3
#define TD_COLS 8

struct region_stat {
	const struct gx_region_name *rn;
	uint64_t samples;
	uint64_t period;
	double estimated;		/* period x the event's scale */
	double share;			/* of the run's sort event, percent */
	struct {
		const char *name;	/* borrowed from the region's profile */
		double pct;		/* of the region's sort event */
	} hot[HOT];
	size_t nhot;
	struct profile *p;		/* owns hot[].name */
	bool td_ok;			/* td holds the region's top-down */
	struct td_result td;
};

static void stats_free(struct region_stat *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		profile__delete(v[i].p);
		if (v[i].td_ok)
			td_result__exit(&v[i].td);
	}
	free(v);
}

/* The model when any of its events was sampled (per-region values come
 * from samples), else NULL. */
static const struct td_model *sampled_model(struct gx_result *in)
{
	const struct td_model *m = gx_result__model(in);
	const int *ev = gx_result__model_map(in);

	for (size_t i = 0; m && ev && i < gx_result__nr_events(in); i++)
		if (ev[i] >= 0 && gx_result__event(in, i)->sampled)
			return m;
	return NULL;
}

/* The region's level 1 and CPI from its samples' estimates. */
static void region_topdown(struct gx_result *in, struct region_stat *s)
{
	const struct td_model *m = sampled_model(in);
	double *c;

	if (!m || !s->p)
		return;
	c = xcalloc(td_model__nr_events(m) + 1, sizeof(double));
	gx_result__profile_counts(in, s->p, c);
	s->td_ok = td_eval(m, c, gx_result__ctx(in), &s->td, NULL) == 0;
	free(c);
}

/* "Frontend_Bound" -> "Frontend", "Bad_Speculation" -> "Bad_Spec". */
static int short_len(const char *name)
{
	size_t l = strlen(name);

	if (l > 6 && !strcmp(name + l - 6, "_Bound"))
		l -= 6;
	else if (!strcmp(name, "Bad_Speculation"))
		l = 8;
	return (int)(l > 10 ? 10 : l);
}

/* One walk per region name; *out is the caller's (stats_free). */
static int region_stats(struct gx_result *in, const struct report_opts *o,
			struct region_stat **out, size_t *nr, char **cause)
{
	size_t n = gx_result__nr_region_names(in), e = o->sort_event;
	struct region_stat *v = xcalloc(n + 1, sizeof(*v));
	double scale = gx_result__nr_events(in) ? gx_result__event(in, e)->scale : 1.0;
	uint64_t all = gx_result__nr_events(in) ? profile__total_period(gx_result__profile(in), e) : 0;
	int err;

	for (size_t i = 0; i < n; i++) {
		struct region_stat *s = &v[i];
		const struct profile_row *const *rows;
		size_t nrows;

		s->rn = gx_result__region_name(in, i);
		if (!gx_result__nr_events(in))
			continue;
		err = gx_result__profile_region(in, i, &s->p, cause);
		if (err) {
			stats_free(v, n);
			return err;
		}
		s->samples = profile__total_samples(s->p, e);
		s->period = profile__total_period(s->p, e);
		s->estimated = (double)s->period * scale;
		s->share = all ? 100.0 * (double)s->period / (double)all : 0;
		rows = profile__sort(s->p, PROFILE_BY_FUNCTION, e, PROFILE_SORT_SELF, &nrows);
		for (size_t k = 0; k < nrows && s->nhot < HOT && s->period; k++) {
			if (200 * rows[k]->period[e] < s->period)
				break;	/* under 0.5%: not hot */
			s->hot[s->nhot].name = rows[k]->name;
			s->hot[s->nhot++].pct = 100.0 * (double)rows[k]->period[e] / (double)s->period;
		}
		region_topdown(in, s);
	}
	*out = v;
	*nr = n;
	return 0;
}

void report__text_region_line(struct strbuf *sb, struct gx_result *in)
{
	const char *name = gx_result__narrowed(in);
	size_t idx;

	if (!name || gx_result__find_region(in, name, &idx))
		return;
	{
		const struct gx_region_name *rn = gx_result__region_name(in, idx);

		strbuf__addf(sb, "  region    %s: %zu instance%s on %zu thread%s, %.3f s; only its "
				 "samples below\n", gx_esc(rn->name), rn->instances,
			     rn->instances == 1 ? "" : "s", rn->threads, rn->threads == 1 ? "" : "s",
			     (double)rn->total_ns / 1e9);
	}
}

/* Level 1 and CPI per region, as the per-function table of top-down. */
static void text_topdown(struct strbuf *sb, struct gx_result *in, const struct region_stat *v,
			 size_t n, size_t w)
{
	const struct td_model *m = sampled_model(in);
	int cols[TD_COLS];
	size_t nc;
	uint64_t all;
	size_t clk = gx_result__sort_event(in);

	if (!m)
		return;
	nc = report__td_columns(m, cols, TD_COLS);
	all = profile__total_period(gx_result__profile(in), clk);
	strbuf__addf(sb, "\nTop-down level 1 by region (from samples; * over threshold in a region "
			 "with > 5%% of the cycles)\n  %-*s", (int)w, "region");
	for (size_t k = 0; k < nc; k++) {
		const char *name = td_model__node(m, (size_t)cols[k])->name;

		strbuf__addf(sb, " %10.*s", short_len(name), name);
	}
	strbuf__addstr(sb, "\n");
	for (size_t i = 0; i < n; i++) {
		const struct region_stat *s = &v[i];
		bool sig = gx_result__sort_is_cycles(in) && s->p &&
			   td_row_significant((double)profile__total_period(s->p, clk), (double)all);

		strbuf__addf(sb, "  %-*s", (int)w, gx_esc(s->rn->name));
		for (size_t k = 0; k < nc; k++) {
			const struct td_value *x = s->td_ok ? &s->td.v[cols[k]] : NULL;
			const struct td_node *nd = td_model__node(m, (size_t)cols[k]);

			if (!x || x->na)
				strbuf__addf(sb, " %10s", "n/a");
			else if (nd->unit == TD_UNIT_FRACTION)
				strbuf__addf(sb, " %8.1f%%%c", gx_zero_below(100 * x->value, 1),
					     x->clamped ? '~' : sig && x->flagged ? '*' : ' ');
			else
				strbuf__addf(sb, " %9.2f%c", gx_zero_below(x->value, 2),
					     sig && x->flagged ? '*' : ' ');
		}
		strbuf__addstr(sb, "\n");
	}
}

int report__text_regions(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	struct region_stat *v;
	size_t n, w = 6;
	char *cause = NULL;
	char b[32];

	if (!gx_result__nr_region_names(in)) {
		if (o->by_region)
			strbuf__addstr(sb, "\nRegions: none recorded (the program marks none with "
					   "gexplore-regions(3))\n");
		return 0;
	}
	if (region_stats(in, o, &v, &n, &cause) != 0) {
		strbuf__addf(sb, "\nRegions: %s\n", cause);
		free(cause);
		return 0;
	}
	/* the width of the names as shown (escaped), at most 32: a longer
	 * one overflows its column rather than be cut inside an escape */
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(gx_esc(v[i].rn->name));

		if (l > w)
			w = l > 32 ? 32 : l;
	}
	strbuf__addf(sb, "\nRegions (by %s; a sample counts in every region open on its thread)\n",
		     gx_result__nr_events(in) ? report__event_name(in, o->sort_event) : "-");
	strbuf__addf(sb, "  %-*s instances threads     time s      samples   share  hot functions\n",
		     (int)w, "region");
	for (size_t i = 0; i < n; i++) {
		const struct region_stat *s = &v[i];

		strbuf__addf(sb, "  %-*s %9zu %7zu %10.3f %12s %6.1f%% ", (int)w, gx_esc(s->rn->name),
			     s->rn->instances, s->rn->threads, (double)s->rn->total_ns / 1e9,
			     report__thousands(s->samples, b, sizeof(b)), s->share);
		for (size_t k = 0; k < s->nhot; k++)
			strbuf__addf(sb, "%s%s %.0f%%", k ? ", " : " ", gx_esc(s->hot[k].name),
				     s->hot[k].pct);
		strbuf__addstr(sb, "\n");
	}
	strbuf__addf(sb, "  %zu markers, %" PRIu64 " lost\n", gx_result__nr_markers(in),
		     gx_result__markers_lost(in));
	text_topdown(sb, in, v, n, w);
	stats_free(v, n);
	return 0;
}

/* {"CPI": 1.25, "Frontend_Bound": 0.1, ...}, or null without the model's
 * events; a node n/a is null. */
static json_t *json_topdown(struct gx_result *in, const struct region_stat *s)
{
	const struct td_model *m = sampled_model(in);
	int cols[TD_COLS];
	size_t nc;
	json_t *o;

	if (!m || !s->td_ok)
		return json_null();
	nc = report__td_columns(m, cols, TD_COLS);
	o = json_object();
	for (size_t k = 0; k < nc; k++) {
		const struct td_value *x = &s->td.v[cols[k]];

		json_object_set_new(o, td_model__node(m, (size_t)cols[k])->name,
				    x->na ? json_null() : json_real(x->value));
	}
	return o;
}

json_t *report__json_regions(struct gx_result *in, const struct report_opts *o)
{
	struct region_stat *v;
	size_t n;
	char *cause = NULL;
	json_t *arr = json_array();

	if (region_stats(in, o, &v, &n, &cause) != 0) {
		free(cause);
		return arr;
	}
	for (size_t i = 0; i < n; i++) {
		const struct region_stat *s = &v[i];
		json_t *ro = json_object(), *hot = json_array();

		json_object_set_new(ro, "name", json_string(gx_utf8(s->rn->name)));
		json_object_set_new(ro, "instances", report__json_u64(s->rn->instances));
		json_object_set_new(ro, "threads", report__json_u64(s->rn->threads));
		json_object_set_new(ro, "time_s", json_real((double)s->rn->total_ns / 1e9));
		json_object_set_new(ro, "samples", report__json_u64(s->samples));
		json_object_set_new(ro, "estimated", json_real(s->estimated));
		json_object_set_new(ro, "share_pct", json_real(s->share));
		if (report__offcpu(in))		/* --off-cpu */
			json_object_set_new(ro, "off_cpu_s",
					    json_real(report__offcpu_region_s(in, i)));
		for (size_t k = 0; k < s->nhot; k++) {
			json_t *h = json_object();

			json_object_set_new(h, "function", json_string(gx_utf8(s->hot[k].name)));
			json_object_set_new(h, "pct", json_real(s->hot[k].pct));
			json_array_append_new(hot, h);
		}
		json_object_set_new(ro, "hot", hot);
		json_object_set_new(ro, "topdown", json_topdown(in, s));
		json_array_append_new(arr, ro);
	}
	stats_free(v, n);
	return arr;
}

int report__csv_regions(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	struct region_stat *v;
	size_t n;
	char *cause = NULL;
	int err;

	const struct td_model *m = sampled_model(in);
	int cols[TD_COLS];
	size_t nc = m ? report__td_columns(m, cols, TD_COLS) : 0;

	strbuf__addstr(sb, "region,instances,threads,time_s,share_pct,samples,estimated,"
			   "hot_function,hot_pct");
	for (size_t k = 0; k < nc; k++)
		strbuf__addf(sb, ",%s", td_model__node(m, (size_t)cols[k])->name);
	strbuf__addstr(sb, "\n");
	err = region_stats(in, o, &v, &n, &cause);
	if (err) {
		free(cause);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		const struct region_stat *s = &v[i];

		report__csv_field(sb, s->rn->name);
		strbuf__addf(sb, ",%zu,%zu,%.6f,%.4f,%" PRIu64 ",%.0f,", s->rn->instances,
			     s->rn->threads, (double)s->rn->total_ns / 1e9, s->share, s->samples,
			     s->estimated);
		report__csv_field(sb, s->nhot ? s->hot[0].name : "");
		strbuf__addf(sb, ",%.4f", s->nhot ? s->hot[0].pct : 0.0);
		for (size_t k = 0; k < nc; k++) {
			const struct td_value *x = s->td_ok ? &s->td.v[cols[k]] : NULL;

			if (x && !x->na)
				strbuf__addf(sb, ",%.6g", x->value);
			else
				strbuf__addstr(sb, ",");
		}
		strbuf__addstr(sb, "\n");
	}
	stats_free(v, n);
	return 0;
}
