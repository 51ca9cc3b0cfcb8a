/*
 * diff.c: two results side by side — for each scope (run, process, module,
 * function) and metric, A, B and the change, biggest first: the relative
 * change weighted by the row's share of the samples. Rows are matched by name (a process by
 * its command, since pids differ between runs); modules, and the module of
 * a function, by build-id, else by file name: the same program built in
 * another directory is the same module. Each side may be several runs of
 * the same thing: a row is looked up in every run, its values averaged
 * over each side's, and the spread between them widens its interval
 * (welch.c).
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
static int known_metric(struct gx_result *const *runs, size_t nr, const char *metric,
			char **cause)
{
	struct ci_row run = { .scope = CI_SCOPE_RUN, .name = "", .share = 1.0 };
	char *why = NULL;
	double v;
	int e = -EINVAL;

	for (size_t k = 0; k < nr && e < 0; k++) {
		free(why);
		why = NULL;
		e = ci_metric(runs[k], &run, metric, 0, &v, &why);
	}
	if (e < 0) {
		*cause = why;
		return e;
	}
	free(why);
	return 0;
}

/* The default metrics of every run, each once: B may measure what A could
 * not. NULL-terminated; the caller frees the array, not the strings. */
static const char **default_metrics(struct gx_result *const *runs, size_t nr)
{
	const char **all = NULL;
	size_t n = 0, cap = 0;

	for (size_t k = 0; k < nr; k++) {
		const char **mk = ci_default_metrics(runs[k]);

		for (const char **m = mk; *m; m++) {
			size_t i;

			for (i = 0; i < n && strcasecmp(all[i], *m); i++)
				;
			if (i == n) {
				all = xgrow(all, &cap, n + 1, sizeof(*all));
				all[n++] = *m;
			}
		}
		free(mk);
	}
	all = xgrow(all, &cap, n + 1, sizeof(*all));
	all[n] = NULL;
	return all;
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

/* How rows are matched across the two sides: the options (--match-module
 * pairs) and the diff that notes each pair of differently named modules
 * or commands it matched. */
struct matcher {
	const struct diff_opts *o;
	struct diff *d;
};

/* The file name of r's main program (its command's argv[0]), or NULL. */
static const char *main_program(const struct gx_result *r)
{
	const struct gx_meta *m = gx_result__meta(r);

	return m && m->argv && m->argc && m->argv[0] && *m->argv[0] ? base_name(m->argv[0]) : NULL;
}

/* Whether name is r's main program: its file name, or its command (a
 * comm is the file name cut to 15 bytes) */
static bool is_main(const struct gx_result *r, const char *name, bool comm)
{
	const char *p = main_program(r);

	if (!p || !*name)
		return false;
	return comm ? !strncmp(p, name, 15) && strlen(name) == (strlen(p) < 15 ? strlen(p) : 15) :
		      !strcmp(p, base_name(name));
}

/* Note that x (of rx) and y were matched, once per pair. */
static void note_match(struct matcher *mt, const struct gx_result *rx, const char *x,
		       const char *y, const char *why)
{
	struct diff *d = mt->d;
	bool x_in_a = false;
	char *s;

	for (size_t k = 0; k < d->nr_a; k++)
		x_in_a |= d->paths && d->paths[k] == gx_result__path(rx);
	s = xasprintf("%s (A) is %s (B): %s", base_name(x_in_a ? x : y), base_name(x_in_a ? y : x),
		      why);
	for (size_t i = 0; i < d->nr_matched; i++)
		if (!strcmp(d->matched[i], s)) {
			free(s);
			return;
		}
	d->matched = xrealloc(d->matched, (d->nr_matched + 1) * sizeof(*d->matched));
	d->matched[d->nr_matched++] = s;
}

/* Whether --match-module names x and y as one (A=B, either way round). */
static bool mapped(const struct matcher *mt, const char *x, const char *y)
{
	for (size_t i = 0; mt->o && i < mt->o->nr_match; i++) {
		const char *eq = strchr(mt->o->match[i], '=');
		size_t la;

		if (!eq)
			continue;
		la = (size_t)(eq - mt->o->match[i]);
		if ((strlen(x) == la && !strncmp(x, mt->o->match[i], la) && !strcmp(y, eq + 1)) ||
		    (strlen(y) == la && !strncmp(y, mt->o->match[i], la) && !strcmp(x, eq + 1)))
			return true;
	}
	return false;
}

/* Are modules x (of result rx) and y the same file? 2: the same build-id,
 * 1: the same file name, or named as one by --match-module, or each the
 * main program of its run (builds in CI differ in path or name); 0: no.
 * comm: x and y are commands (process rows), matched by name or role. */
static int same_module(struct matcher *mt, const struct gx_result *rx, const char *x,
		       const struct gx_result *ry, const char *y, bool comm)
{
	const uint8_t *ix, *iy;
	size_t nx, ny;

	if (!comm && gx_result__build_id(rx, x, &ix, &nx) == 0 &&
	    gx_result__build_id(ry, y, &iy, &ny) == 0 && nx == ny && !memcmp(ix, iy, nx))
		return 2;
	if (!strcmp(comm ? x : base_name(x), comm ? y : base_name(y)))
		return 1;
	if (mapped(mt, comm ? x : base_name(x), comm ? y : base_name(y))) {
		note_match(mt, rx, x, y, "--match-module");
		return 1;
	}
	if (is_main(rx, x, comm) && is_main(ry, y, comm)) {
		note_match(mt, rx, x, y, comm ? "the command of each run" :
			   "the main program of each run");
		return 1;
	}
	return 0;
}

/*
 * The same row on the other side (rows of result rr) as row r (of rx):
 * the same name, and for functions and modules the same module, by
 * build-id first, then by file name ("[unknown]" of libc is not "[unknown]"
 * of the program; /build/a/app is /build/b/app).
 */
static const struct ci_row *find(struct matcher *mt, const struct gx_result *rr,
				 const struct ci_row *rows, size_t nr, const struct gx_result *rx,
				 const struct ci_row *r)
{
	const struct ci_row *by_name = NULL;
	bool module_scope = r->scope == CI_SCOPE_MODULE;

	for (size_t i = 0; i < nr; i++) {
		int m;

		if (r->scope == CI_SCOPE_PROCESS) {	/* by command, or by role */
			if (same_module(mt, rx, r->name, rr, rows[i].name, true))
				return &rows[i];
			continue;
		}
		if (!module_scope && strcmp(rows[i].name, r->name))
			continue;
		m = same_module(mt, rx, row_module(r), rr, row_module(&rows[i]), false);
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

/* Whether a row missing from a run counts as 0 there: its share, events
 * and time are sums over its samples, and it had none. A ratio (CPI, a
 * top-down fraction) of a row with no samples is unknown, not 0. */
static bool additive(const char *metric, enum ci_unit u)
{
	return !strcasecmp(metric, "share") || u == CI_UNIT_COUNT || u == CI_UNIT_NS;
}

/* One run's rows of a scope. */
struct run_rows {
	struct gx_result *r;
	struct ci_row *rows;
	size_t nr;		/* every row: where a compared row is looked up */
	size_t top;		/* the hottest `limit` (the run: its row): those compared */
};

/*
 * One side of a compared row (its match in each of the side's n runs, NULL
 * where absent, and the metric's value there in v, NAN when not
 * measurable): the mean and spread of the values that count (an absent
 * row is 0 of an additive metric, nothing of a ratio), into *st; the
 * variance of that mean from sampling (a value from s samples is uncertain
 * by about 1/sqrt(s) of itself; whole-run values are exact) into *var;
 * the row's mean share of the samples into *share. v is overwritten.
 * Returns whether the row is in any of the runs.
 */
static bool side_stats(const struct run_rows *rr, const struct ci_row *const *match, double *v,
		       size_t n, bool add0, struct diff_side *st, double *var, double *share)
{
	size_t used = 0;
	double sv = 0, sh = 0;
	bool present = false;

	for (size_t k = 0; k < n; k++) {
		uint64_t s = row_samples(rr[k].r, match[k]);

		present |= match[k] != NULL;
		sh += match[k] ? match[k]->share : 0;
		if (!match[k] && add0)
			v[k] = 0;
		if (isnan(v[k]))
			continue;
		sv += s ? v[k] * v[k] / (double)s : 0;
		v[used++] = v[k];
	}
	diff_side__set(st, v, used);
	*var = used ? sv / ((double)used * (double)used) : NAN;
	*share = sh / (double)n;
	return present;
}

/*
 * The 95% interval of b - a and whether it holds 0: the sampling interval
 * of the two means, or Welch's interval from the spread between runs
 * where both sides have two runs or more and it is the wider (a handful
 * of runs can agree by chance more closely than their samples allow).
 */
static void noise(struct diff_entry *e, const struct diff_side *a, const struct diff_side *b,
		  double var_a, double var_b)
{
	double half = 1.96 * sqrt(var_a + var_b), welch;

	e->lo = e->hi = NAN;
	e->noise = false;
	e->df = NAN;
	if (gx_kind_fixed(e->kind))
		return;	/* exact or modelled on both sides: any change is one */
	if (diff_welch(a, b, 0.95, &welch, &e->df) == 0 && welch > half)
		half = welch;
	if (isnan(a->mean) || isnan(b->mean))
		return;
	e->lo = b->mean - a->mean - half;
	e->hi = b->mean - a->mean + half;
	e->noise = e->lo <= 0 && e->hi >= 0;
}

/* What a metric's values are on one side: the join over its n runs. */
static enum gx_kind side_kind(const struct run_rows *rr, size_t n, const char *metric)
{
	enum gx_kind k = n ? ci_metric_kind(rr[0].r, metric) : GX_KIND_SAMPLED;

	for (size_t i = 1; i < n; i++)
		k = gx_kind_join(k, ci_metric_kind(rr[i].r, metric));
	return k;
}

/* One metric of a compared row, matched in each run (NULL: absent). v:
 * room for a value per run. */
static void compare(const struct run_rows *rr, size_t nr_a, size_t nr_b,
		    const struct ci_row *const *match, const struct ci_row *row, const char *metric,
		    uint64_t min_samples, double *v, struct diff *d, size_t *cap)
{
	struct diff_entry e = { .scope = row->scope, .row = row->name, .metric = metric };
	struct diff_side a, b;
	double var_a, var_b, share_a, share_b;
	size_t first = nr_a + nr_b;
	enum gx_kind ka, kb;
	bool add0;

	for (size_t k = 0; k < nr_a + nr_b; k++) {
		v[k] = value_of(rr[k].r, match[k], metric, min_samples);
		if (!isnan(v[k]) && first == nr_a + nr_b)
			first = k;
	}
	if (first == nr_a + nr_b)
		return;		/* measurable in no run */
	e.unit = ci_metric_unit(rr[first].r, metric);
	add0 = additive(metric, e.unit);
	e.in_a = side_stats(rr, match, v, nr_a, add0, &a, &var_a, &share_a);
	e.in_b = side_stats(rr + nr_a, match + nr_a, v + nr_a, nr_b, add0, &b, &var_b, &share_b);
	ka = side_kind(rr, nr_a, metric);
	kb = side_kind(rr + nr_a, nr_b, metric);
	e.kind = gx_kind_join(ka, kb);
	if (gx_kind_fixed(ka))
		var_a = 0;	/* no sampling error on this side */
	if (gx_kind_fixed(kb))
		var_b = 0;
	e.weight = fmax(share_a, share_b);
	e.a = e.in_a ? a.mean : NAN;
	e.b = e.in_b ? b.mean : NAN;
	e.a_n = e.in_a ? a.n : 0;
	e.b_n = e.in_b ? b.n : 0;
	e.a_sd = e.in_a ? a.sd : NAN;
	e.b_sd = e.in_b ? b.sd : NAN;
	e.delta = e.b - e.a;
	e.rel = !isnan(e.a) && e.a != 0 ? e.delta / fabs(e.a) : NAN;
	noise(&e, &a, &b, var_a, var_b);
	add(d, cap, &e);
}

/* Whether row (of run k) was compared already: it matches a compared row
 * of an earlier run. */
static bool compared(struct matcher *mt, const struct run_rows *rr, size_t k,
		     const struct ci_row *row)
{
	for (size_t j = 0; j < k; j++)
		if (find(mt, rr[j].r, rr[j].rows, rr[j].top, rr[k].r, row))
			return true;
	return false;
}

/* Compare one scope's rows: the hottest `limit` of each run, each looked up
 * in every run by find(). */
static void diff_scope(struct matcher *mt, struct gx_result *const *runs, size_t nr_a,
		       size_t nr_b, enum ci_scope scope, const char *const *metrics, size_t limit,
		       uint64_t min_samples, struct diff *d, size_t *cap)
{
	size_t nr = nr_a + nr_b;
	struct run_rows *rr = xcalloc(nr, sizeof(*rr));
	const struct ci_row **match = xcalloc(nr, sizeof(*match));
	double *v = xcalloc(nr, sizeof(*v));
	char *cause = NULL;

	for (size_t k = 0; k < nr; k++) {
		rr[k].r = runs[k];
		if (ci_rows(runs[k], scope, &rr[k].rows, &rr[k].nr, &cause))
			goto out;	/* a scope this build cannot show: leave it out */
		rr[k].top = scope == CI_SCOPE_RUN || rr[k].nr < limit ? rr[k].nr : limit;
	}
	for (size_t k = 0; k < nr; k++) {
		for (size_t i = 0; i < rr[k].top; i++) {
			const struct ci_row *row = &rr[k].rows[i];

			if (compared(mt, rr, k, row))
				continue;
			for (size_t j = 0; j < nr; j++)
				match[j] = j == k ? row :
					   find(mt, rr[j].r, rr[j].rows, rr[j].nr, rr[k].r, row);
			for (const char *const *m = metrics; *m; m++)
				compare(rr, nr_a, nr_b, match, row, *m, min_samples, v, d, cap);
		}
	}
out:
	for (size_t k = 0; k < nr; k++)
		free(rr[k].rows);
	free(cause);
	free(rr);
	free(match);
	free(v);
}

int diff_run(struct gx_result *const *runs, size_t nr_a, size_t nr_b,
	     const struct diff_opts *o, struct diff *d, char **cause)
{
	static const enum ci_scope all[] = { CI_SCOPE_RUN, CI_SCOPE_PROCESS, CI_SCOPE_MODULE,
					     CI_SCOPE_FUNCTION };
	const enum ci_scope *scopes = o && o->nr_scopes ? o->scopes : all;
	size_t nscopes = o && o->nr_scopes ? o->nr_scopes : ARRAY_SIZE(all), cap = 0;
	size_t nr = nr_a + nr_b, limit = o && o->limit ? o->limit : 20;
	const char *const *metrics = o && o->metrics ? o->metrics : NULL;
	const char **defaults = NULL;
	struct matcher mt = { o, d };
	int err = 0;

	memset(d, 0, sizeof(*d));
	if (!nr_a || !nr_b)
		return gx_fail(cause, -EINVAL, "diff needs a result on each side");
	for (size_t i = 0; o && i < o->nr_match; i++) {
		const char *eq = strchr(o->match[i], '=');

		if (!eq || eq == o->match[i] || !eq[1] || strchr(eq + 1, '='))
			return gx_fail(cause, -EINVAL, "--match-module takes A=B (a module's file "
				       "name in A, then in B), not '%s'", gx_esc(o->match[i]));
	}
	for (size_t k = 1; k < nr; k++)	/* modelled: one description's prices */
		if (ci_same_pricing(runs[0], runs[k], cause))
			return -EINVAL;
	if (!metrics)
		metrics = defaults = default_metrics(runs, nr);
	for (const char *const *m = metrics; *m && !err; m++)
		err = known_metric(runs, nr, *m, cause);
	if (err) {
		free(defaults);
		return err;
	}
	d->paths = xcalloc(nr, sizeof(*d->paths));
	d->status = xcalloc(nr, sizeof(*d->status));
	for (size_t k = 0; k < nr; k++) {
		d->paths[k] = gx_result__path(runs[k]);
		d->status[k] = gx_result__status(runs[k]);
		/* its rows are shares of modelled cycles: the sort event says */
		if (gx_result__nr_events(runs[k]) &&
		    gx_result__event(runs[k], gx_result__sort_event(runs[k]))->kind == GX_KIND_MODELLED)
			*(k < nr_a ? &d->modelled_a : &d->modelled_b) = true;
	}
	d->nr_a = nr_a;
	d->nr_b = nr_b;
	d->a = d->paths[0];
	d->b = d->paths[nr_a];
	for (size_t s = 0; s < nscopes; s++)
		diff_scope(&mt, runs, nr_a, nr_b, scopes[s], metrics, limit, o ? o->min_samples : 0, d,
			   &cap);
	free(defaults);
	gx_qsort(d->entries, d->nr, sizeof(*d->entries), cmp_entry);
	return 0;
}

void diff__exit(struct diff *d)
{
	free(d->entries);
	free(d->paths);
	free(d->status);
	for (size_t i = 0; i < d->nr_matched; i++)
		free(d->matched[i]);
	free(d->matched);
	memset(d, 0, sizeof(*d));
}

static void num(struct strbuf *out, enum ci_unit u, bool sign, double x)
{
	char b[32];

	ci_human(b, sizeof(b), u, sign, 0, x);
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

/* "A: 3 runs (gx001 gx002 gx003)" */
static void runs_line(struct strbuf *out, const char *side, const char *const *paths, size_t n)
{
	strbuf__addf(out, "%s: %zu run%s (", side, n, n == 1 ? "" : "s");
	for (size_t k = 0; k < n; k++)
		strbuf__addf(out, "%s%s", k ? " " : "", gx_esc(paths[k]));
	strbuf__addstr(out, ")\n");
}

/* The half-width of the interval, "±1.2 M", in a column of 10. */
static void plus_minus(struct strbuf *out, const struct diff_entry *e)
{
	char b[32], pm[40];

	if (gx_kind_fixed(e->kind)) {	/* no interval: "exact", "modelled" */
		strbuf__addf(out, "%10s ", gx_kind_name(e->kind));
		return;
	}
	if (isnan(e->lo)) {
		strbuf__addf(out, "%10s ", "-");
		return;
	}
	ci_human(b, sizeof(b), e->unit, false, 0, (e->hi - e->lo) / 2);
	snprintf(pm, sizeof(pm), "\u00b1%s", b);
	strbuf__addf(out, "%11s ", pm);	/* "±" is two bytes, one column */
}

/* " (A in 2 of 3 runs)": a value resting on fewer runs than its side has. */
static void partial(struct strbuf *out, const struct diff *d, const struct diff_entry *e)
{
	const char *sep = " (";

	if (e->a_n && e->a_n < d->nr_a) {
		strbuf__addf(out, "%sA in %zu of %zu runs", sep, e->a_n, d->nr_a);
		sep = ", ";
	}
	if (e->b_n && e->b_n < d->nr_b) {
		strbuf__addf(out, "%sB in %zu of %zu runs", sep, e->b_n, d->nr_b);
		sep = ", ";
	}
	if (sep[0] == ',')
		strbuf__addstr(out, ")");
}

void diff__text(const struct diff *d, struct strbuf *out, size_t limit)
{
	size_t shown = 0, folded = 0, more = 0;
	bool noise_head = false, runs = d->nr_a > 1 || d->nr_b > 1, fixed = false;

	if (runs) {
		strbuf__addstr(out, "gexplore diff: means over repeated runs (biggest changes first; "
			       "\u00b1 the 95% interval of the change)\n");
		runs_line(out, "A", d->paths, d->nr_a);
		runs_line(out, "B", d->paths + d->nr_a, d->nr_b);
	} else {
		strbuf__addf(out, "gexplore diff: A = %s%s, B = %s%s (biggest changes first; \u00b1 the "
			     "95%% interval of the change)\n", gx_esc(d->a),
			     d->modelled_a ? " (MODELLED)" : d->modelled_b ? " (measured)" : "",
			     gx_esc(d->b), d->modelled_b ? " (MODELLED)" : d->modelled_a ?
			     " (measured)" : "");
	}
	for (size_t i = 0; i < d->nr_matched; i++)
		strbuf__addf(out, "  matched: %s\n", gx_esc(d->matched[i]));
	for (size_t i = 0; i < d->nr && !fixed; i++)
		fixed = gx_kind_fixed(d->entries[i].kind);
	if (fixed)
		strbuf__addstr(out, "  exact and modelled values have no interval (\"exact\", "
			       "\"modelled\" in its place): a change of one is a change, never noise\n");
	if (d->modelled_a != d->modelled_b)
		strbuf__addf(out, "  measured against modelled: a row's share is its share of the "
			     "measured run's time or cycles on side %s and of the modelled cycles on "
			     "side %s; change = modelled / measured - 1\n", d->modelled_a ? "B" : "A",
			     d->modelled_a ? "A" : "B");
	strbuf__addf(out, "%-8s %-24s %10s %10s %10s %11s %8s  %s\n", "scope", "metric", "A", "B",
		     "delta", "\u00b195%", "change", "row");
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
		plus_minus(out, e);
		if (isnan(e->rel))
			strbuf__addf(out, "%8s ", !e->in_a ? "new" : !e->in_b ? "gone" : "-");
		else
			strbuf__addf(out, "%+7.1f%% ", gx_zero_below(100 * e->rel, 1));
		strbuf__addf(out, " %s%s", gx_esc(row_label(e)), e->noise ? " ~" : "");
		partial(out, d, e);
		strbuf__addstr(out, "\n");
		shown++;
	}
	if (more)
		strbuf__addf(out, "(%zu more; --limit 0 shows all)\n", more);
	if (folded)
		strbuf__addf(out, "(%zu changes in rows under 0.5%% of the samples, within noise, "
			     "not shown; --json lists them)\n", folded);
}

static json_t *json_paths(const char *const *paths, size_t n)
{
	json_t *a = json_array();

	for (size_t k = 0; k < n; k++)
		json_array_append_new(a, json_string(gx_utf8(paths[k])));
	return a;
}

void diff__json(const struct diff *d, struct strbuf *out)
{
	json_t *root = json_object(), *a = json_array();

	json_object_set_new(root, "schema", json_string(GX_DIFF_SCHEMA));
	json_object_set_new(root, "a", json_string(gx_utf8(d->a)));
	json_object_set_new(root, "b", json_string(gx_utf8(d->b)));
	json_object_set_new(root, "a_modelled", json_boolean(d->modelled_a));
	json_object_set_new(root, "b_modelled", json_boolean(d->modelled_b));
	json_object_set_new(root, "a_runs", json_paths(d->paths, d->nr_a));
	json_object_set_new(root, "b_runs", json_paths(d->paths + d->nr_a, d->nr_b));
	json_object_set_new(root, "a_status", json_paths(d->status, d->nr_a));
	json_object_set_new(root, "b_status", json_paths(d->status + d->nr_a, d->nr_b));
	json_object_set_new(root, "matched", json_paths((const char *const *)d->matched, d->nr_matched));
	for (size_t i = 0; i < d->nr; i++) {
		const struct diff_entry *e = &d->entries[i];

		static const char *const units[] = { "fraction", "ratio", "count", "ns" };

		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:s,s:o,s:o,s:b,"
						   "s:s,s:I,s:I,s:o,s:o,s:o}",
						   "scope", ci_scope_name(e->scope), "row", gx_utf8(e->row),
						   "metric", gx_utf8(e->metric), "a", ci_json_real(e->a),
						   "b", ci_json_real(e->b),
						   "delta", ci_json_real(e->delta),
						   "change", ci_json_real(e->rel),
						   "unit", units[e->unit],
						   "delta_lo", ci_json_real(e->lo),
						   "delta_hi", ci_json_real(e->hi),
						   "noise", e->noise, "kind", gx_kind_name(e->kind),
						   "a_n", (json_int_t)e->a_n, "b_n", (json_int_t)e->b_n,
						   "a_sd", ci_json_real(e->a_sd),
						   "b_sd", ci_json_real(e->b_sd),
						   "df", ci_json_real(e->df)));
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
	strbuf__addstr(out, "scope,row,metric,a,b,delta,change,delta_lo,delta_hi,noise,"
		       "a_n,b_n,a_sd,b_sd,df\n");
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
		strbuf__addf(out, ",%d,%zu,%zu", e->noise, e->a_n, e->b_n);
		csv_num(out, e->a_sd);
		csv_num(out, e->b_sd);
		csv_num(out, e->df);
		strbuf__addstr(out, "\n");
	}
}
