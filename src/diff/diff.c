/*
 * diff.c: two results side by side — for each scope (run, process, module,
 * function) and metric, A, B and the change, biggest first: the relative
 * change weighted by the row's share of the samples. Rows are matched by name (a process by
 * its command, since pids differ between runs); modules, and the module of
 * a function, by build-id, else by file name: the same program built in
 * another directory is the same module.
 */
#include "config.h"

#include "diff.h"

#include "result/result.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Weight of a change, for ordering: its relative size |b - a| / max(|a|, |b|)
 * (1 for a row new or gone) times the row's share of the samples, so a
 * change that matters to the run outranks a big swing in a cold row. */
static double magnitude(const struct diff_entry *e)
{
	double m;

	if (e->in_a != e->in_b)
		return e->weight;	/* a row new or gone */
	if (isnan(e->a) || isnan(e->b))
		return -1.0;	/* measurable on one side only: last */
	m = fmax(fabs(e->a), fabs(e->b));
	return m > 0 ? e->weight * fabs(e->b - e->a) / m : 0;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct diff_entry *p = x, *q = y;
	double a = magnitude(p), b = magnitude(q);
	int c;

	if (p->noise != q->noise)
		return p->noise ? 1 : -1;	/* real changes first */
	if (a != b)
		return a < b ? 1 : -1;
	if (p->scope != q->scope)
		return p->scope < q->scope ? -1 : 1;
	c = strcmp(p->row, q->row);
	return c ? c : strcmp(p->metric, q->metric);
}

/* A metric's value on a row, NAN when the row is absent or the metric is
 * not measurable there (names were checked by known_metric). */
static double value_of(struct gx_result *r, const struct ci_row *row, const char *metric,
		       uint64_t min_samples)
{
	double v = NAN;
	char *why = NULL;
	int e;

	if (!row)
		return NAN;
	e = ci_metric(r, row, metric, min_samples, &v, &why);
	free(why);
	return e ? NAN : v;
}

/* A name one of the results understands; else -EINVAL with *cause. */
static int known_metric(struct gx_result *a, struct gx_result *b, const char *metric,
			char **cause)
{
	struct ci_row run = { .scope = CI_SCOPE_RUN, .name = "", .share = 1.0 };
	char *why = NULL;
	double v;
	int e = ci_metric(a, &run, metric, 0, &v, &why);

	if (e < 0) {
		free(why);
		why = NULL;
		e = ci_metric(b, &run, metric, 0, &v, &why);
	}
	if (e < 0) {
		*cause = why;
		return e;
	}
	free(why);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* A row's module: the module row's name, a function's module, else "". */
static const char *row_module(const struct ci_row *r)
{
	if (r->scope == CI_SCOPE_MODULE)
		return r->name;
	return r->prow && r->prow->module ? r->prow->module : "";
}

/* Are modules x (of result rx) and y the same file? 2: the same build-id,
 * 1: the same file name, 0: no. */
static int same_module(const struct gx_result *rx, const char *x, const struct gx_result *ry,
		       const char *y)
{
	const uint8_t *ix, *iy;
	size_t nx, ny;

	if (gx_result__build_id(rx, x, &ix, &nx) == 0 && gx_result__build_id(ry, y, &iy, &ny) == 0 &&
	    nx == ny && !memcmp(ix, iy, nx))
		return 2;
	return !strcmp(base_name(x), base_name(y));
}

/*
 * The same row on the other side (rows of result rr) as row r (of rx):
 * the same name, and for functions and modules the same module, by
 * build-id first, then by file name ("[unknown]" of libc is not "[unknown]"
 * of the program; /build/a/app is /build/b/app).
 */
static const struct ci_row *find(const struct gx_result *rr, const struct ci_row *rows, size_t nr,
				 const struct gx_result *rx, const struct ci_row *r)
{
	const struct ci_row *by_name = NULL;
	bool module_scope = r->scope == CI_SCOPE_MODULE;

	for (size_t i = 0; i < nr; i++) {
		int m;

		if (!module_scope && strcmp(rows[i].name, r->name))
			continue;
		m = same_module(rx, row_module(r), rr, row_module(&rows[i]));
		if (m == 2)
			return &rows[i];
		if (m == 1 && !by_name)
			by_name = &rows[i];
	}
	return by_name;
}

static void add(struct diff *d, size_t *cap, const struct diff_entry *e)
{
	d->entries = xgrow(d->entries, cap, d->nr + 1, sizeof(*d->entries));
	d->entries[d->nr++] = *e;
}

/* Samples of the sort event a row's values rest on; 0 for the run (its
 * values are whole-run counts or estimates over every sample). */
static uint64_t row_samples(const struct gx_result *r, const struct ci_row *row)
{
	return row && row->prow ? row->prow->samples[gx_result__sort_event(r)] : 0;
}

/*
 * The 95% interval of b - a when a rests on na samples and b on nb (0: the
 * side is exact), and whether it holds 0. A row absent on one side counts
 * as 0 there for additive metrics (time, events, shares): a one-sample row
 * that is gone is noise, not a change.
 */
static void noise(struct diff_entry *e, uint64_t na, uint64_t nb)
{
	bool additive = e->unit != CI_UNIT_RATIO;
	double a = isnan(e->a) && !e->in_a && additive ? 0 : e->a;
	double b = isnan(e->b) && !e->in_b && additive ? 0 : e->b;
	double sa = na ? fabs(a) / sqrt((double)na) : 0;
	double sb = nb ? fabs(b) / sqrt((double)nb) : 0;
	double half = 1.96 * sqrt(sa * sa + sb * sb);

	e->lo = e->hi = NAN;
	e->noise = false;
	if (isnan(a) || isnan(b))
		return;
	e->lo = b - a - half;
	e->hi = b - a + half;
	e->noise = e->lo <= 0 && e->hi >= 0;
}

/* Compare one scope's rows (the hottest `limit` of each side). */
static int diff_scope(struct gx_result *a, struct gx_result *b, enum ci_scope scope,
		      const char *const *metrics, size_t limit, uint64_t min_samples,
		      struct diff *d, size_t *cap, char **cause)
{
	struct ci_row *ra = NULL, *rb = NULL;
	size_t na = 0, nb = 0;
	int err = 0;

	if (ci_rows(a, scope, &ra, &na, cause) ||
	    ci_rows(b, scope, &rb, &nb, cause)) {
		free(ra);
		free(rb);
		free(*cause);
		*cause = NULL;
		return 0;	/* a scope this build cannot show: leave it out */
	}
	if (scope != CI_SCOPE_RUN) {
		na = na > limit ? limit : na;
		nb = nb > limit ? limit : nb;
	}
	for (size_t side = 0; side < 2 && !err; side++) {
		const struct ci_row *rows = side ? rb : ra;
		size_t n = side ? nb : na;

		for (size_t i = 0; i < n && !err; i++) {
			const struct ci_row *x = side ? find(a, ra, na, b, &rows[i]) : &rows[i];
			const struct ci_row *y = side ? &rows[i] : find(b, rb, nb, a, &rows[i]);

			if (side && x)
				continue;	/* already compared from A */
			for (const char *const *m = metrics; *m && !err; m++) {
				struct diff_entry e = { .scope = scope, .row = rows[i].name,
							   .metric = *m, .in_a = x != NULL,
							   .in_b = y != NULL };

				e.weight = fmax(x ? x->share : 0, y ? y->share : 0);
				e.a = value_of(a, x, *m, min_samples);
				e.b = value_of(b, y, *m, min_samples);
				if (isnan(e.a) && isnan(e.b))
					continue;
				e.delta = e.b - e.a;
				e.rel = !isnan(e.a) && e.a != 0 ? e.delta / fabs(e.a) : NAN;
				e.unit = ci_metric_unit(isnan(e.a) ? b : a, *m);
				noise(&e, row_samples(a, x), row_samples(b, y));
				add(d, cap, &e);
			}
		}
	}
	free(ra);
	free(rb);
	return err;
}

int diff_run(struct gx_result *a, struct gx_result *b, const struct diff_opts *o,
	     struct diff *d, char **cause)
{
	static const enum ci_scope all[] = { CI_SCOPE_RUN, CI_SCOPE_PROCESS, CI_SCOPE_MODULE,
					     CI_SCOPE_FUNCTION };
	const enum ci_scope *scopes = o && o->nr_scopes ? o->scopes : all;
	size_t nscopes = o && o->nr_scopes ? o->nr_scopes : ARRAY_SIZE(all), cap = 0;
	const char *const *metrics = o && o->metrics ? o->metrics : NULL;
	const char **both = NULL;
	size_t limit = o && o->limit ? o->limit : 20;
	int err = 0;

	if (!metrics) {
		/* the defaults of both sides: B may measure what A could not */
		const char **ma = ci_default_metrics(a);
		const char **mb = ci_default_metrics(b);
		size_t n = 0, na = 0, nb = 0;

		while (ma[na])
			na++;
		while (mb[nb])
			nb++;
		both = xcalloc(na + nb + 1, sizeof(*both));
		for (size_t i = 0; i < na + nb; i++) {
			const char *m = i < na ? ma[i] : mb[i - na];
			size_t k;

			for (k = 0; k < n && strcasecmp(both[k], m); k++)
				;
			if (k == n)
				both[n++] = m;
		}
		free(ma);
		free(mb);
		metrics = both;
	}
	memset(d, 0, sizeof(*d));
	for (const char *const *m = metrics; *m && !err; m++)
		err = known_metric(a, b, *m, cause);
	d->a = gx_result__path(a);
	d->b = gx_result__path(b);
	for (size_t s = 0; s < nscopes && !err; s++)
		err = diff_scope(a, b, scopes[s], metrics, limit, o ? o->min_samples : 0, d, &cap,
				 cause);
	free(both);
	if (err) {
		diff__exit(d);
		return err;
	}
	gx_qsort(d->entries, d->nr, sizeof(*d->entries), cmp_entry);
	return 0;
}

void diff__exit(struct diff *d)
{
	free(d->entries);
	memset(d, 0, sizeof(*d));
}

/* x in human units: "12.3%", "565.2 ms", "1.23 G", "0.812". */
static void human(char *buf, size_t len, enum ci_unit u, bool sign, double x)
{
	static const char *const si[] = { "", " k", " M", " G", " T" };
	const char *plus = sign && x > 0 ? "+" : "";
	double ax = fabs(x);
	size_t k = 0;

	if (isnan(x)) {
		snprintf(buf, len, "-");
		return;
	}
	switch (u) {
	case CI_UNIT_FRACTION:
		snprintf(buf, len, "%s%.1f%%", plus, 100 * x);
		return;
	case CI_UNIT_NS:
		if (ax >= 1e9)
			snprintf(buf, len, "%s%.3g s", plus, x / 1e9);
		else if (ax >= 1e6)
			snprintf(buf, len, "%s%.3g ms", plus, x / 1e6);
		else
			snprintf(buf, len, "%s%.3g us", plus, x / 1e3);
		return;
	case CI_UNIT_COUNT:
		while (ax >= 1000 && k + 1 < sizeof(si) / sizeof(si[0])) {
			ax /= 1000;
			x /= 1000;
			k++;
		}
		snprintf(buf, len, "%s%.4g%s", plus, x, si[k]);
		return;
	default:
		snprintf(buf, len, "%s%.4g", plus, x);
		return;
	}
}

static void num(struct strbuf *out, enum ci_unit u, bool sign, double x)
{
	char b[32];

	human(b, sizeof(b), u, sign, x);
	strbuf__addf(out, "%10s ", b);
}

static const char *row_label(const struct diff_entry *e)
{
	return e->scope == CI_SCOPE_RUN ? "(whole run)" : e->row;
}

/* A row too small to list: under 0.5% of the samples on both sides and
 * its change within noise. */
static bool tiny(const struct diff_entry *e)
{
	return e->noise && e->weight < 0.005;
}

void diff__text(const struct diff *d, struct strbuf *out, size_t limit)
{
	size_t shown = 0, folded = 0, more = 0;
	bool noise_head = false;

	strbuf__addf(out, "gexplore diff: A = %s, B = %s (biggest changes first)\n", gx_esc(d->a),
		     gx_esc(d->b));
	strbuf__addf(out, "%-8s %-24s %10s %10s %10s %8s  %s\n", "scope", "metric", "A", "B",
		     "delta", "change", "row");
	for (size_t i = 0; i < d->nr; i++) {
		const struct diff_entry *e = &d->entries[i];

		if (tiny(e)) {
			folded++;
			continue;
		}
		if (limit && shown == limit) {
			more++;
			continue;
		}
		if (e->noise && !noise_head) {
			strbuf__addstr(out, "-- within noise (the 95% interval of the change holds 0):\n");
			noise_head = true;
		}
		strbuf__addf(out, "%-8s %-24s ", ci_scope_name(e->scope), gx_esc(e->metric));
		num(out, e->unit, false, e->a);
		num(out, e->unit, false, e->b);
		num(out, e->unit, true, e->delta);
		if (isnan(e->rel))
			strbuf__addf(out, "%8s ", !e->in_a ? "new" : !e->in_b ? "gone" : "-");
		else
			strbuf__addf(out, "%+7.1f%% ", 100 * e->rel);
		strbuf__addf(out, " %s%s\n", gx_esc(row_label(e)), e->noise ? " ~" : "");
		shown++;
	}
	if (more)
		strbuf__addf(out, "(%zu more; --limit 0 shows all)\n", more);
	if (folded)
		strbuf__addf(out, "(%zu changes in rows under 0.5%% of the samples, within noise, "
			     "not shown; --json lists them)\n", folded);
}

void diff__json(const struct diff *d, struct strbuf *out)
{
	json_t *root = json_object(), *a = json_array();

	json_object_set_new(root, "schema", json_string(GX_DIFF_SCHEMA));
	json_object_set_new(root, "a", json_string(d->a));
	json_object_set_new(root, "b", json_string(d->b));
	for (size_t i = 0; i < d->nr; i++) {
		const struct diff_entry *e = &d->entries[i];

		static const char *const units[] = { "fraction", "ratio", "count", "ns" };

		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:s,s:o,s:o,s:b}",
						   "scope", ci_scope_name(e->scope), "row", e->row,
						   "metric", e->metric, "a", ci_json_real(e->a),
						   "b", ci_json_real(e->b),
						   "delta", ci_json_real(e->delta),
						   "change", ci_json_real(e->rel),
						   "unit", units[e->unit],
						   "delta_lo", ci_json_real(e->lo),
						   "delta_hi", ci_json_real(e->hi),
						   "noise", e->noise));
	}
	json_object_set_new(root, "entries", a);
	ci_json_dump(root, out);
}

static void csv_field(struct strbuf *out, const char *s)
{
	s = gx_esc(s);
	if (!strpbrk(s, ",\"\n")) {
		strbuf__addstr(out, s);
		return;
	}
	strbuf__addstr(out, "\"");
	for (; *s; s++)
		strbuf__addstr(out, *s == '"' ? "\"\"" : (char[2]){ *s, 0 });
	strbuf__addstr(out, "\"");
}

static void csv_num(struct strbuf *out, double x)
{
	if (isfinite(x))
		strbuf__addf(out, ",%.10g", x);
	else
		strbuf__addstr(out, ",");
}

void diff__csv(const struct diff *d, struct strbuf *out)
{
	strbuf__addstr(out, "scope,row,metric,a,b,delta,change,delta_lo,delta_hi,noise\n");
	for (size_t i = 0; i < d->nr; i++) {
		const struct diff_entry *e = &d->entries[i];

		strbuf__addf(out, "%s,", ci_scope_name(e->scope));
		csv_field(out, e->row);
		strbuf__addstr(out, ",");
		csv_field(out, e->metric);
		csv_num(out, e->a);
		csv_num(out, e->b);
		csv_num(out, e->delta);
		csv_num(out, e->rel);
		csv_num(out, e->lo);
		csv_num(out, e->hi);
		strbuf__addstr(out, e->noise ? ",1\n" : ",0\n");
	}
}
