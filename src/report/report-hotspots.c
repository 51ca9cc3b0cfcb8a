/*
 * Hotspot tables: functions (with the hottest source line of each), source
 * lines and call paths, as text and as JSON arrays. Rows come from
 * src/profile already aggregated; here they are only ordered, cut and
 * formatted.
 */
#include "config.h"

#include "report-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *report__base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	if (!path)
		return "";
	/* "[kernel.kallsyms]", "[vdso]": no slash to strip */
	return s && s[1] ? s + 1 : path;
}

double report__pct(struct gx_result *in, const struct report_opts *o,
		   const struct profile_row *r, bool total)
{
	uint64_t all = profile__total_period(gx_result__profile(in), o->sort_event);
	uint64_t v = total ? r->total_period[o->sort_event] : r->period[o->sort_event];

	return all ? 100.0 * (double)v / (double)all : 0;
}

static bool row_empty(struct gx_result *in, const struct profile_row *r, bool total,
		      size_t e, bool any_event)
{
	if (!any_event)
		return !(total ? r->total_samples[e] : r->samples[e]);
	for (size_t i = 0; i < profile__nr_events(gx_result__profile(in)); i++)
		if (r->samples[i] || r->total_samples[i])
			return false;
	return true;
}

const struct profile_row *const *report__pick(struct gx_result *in,
					      const struct report_opts *o, enum profile_by by,
					      bool any_event, size_t *nr, size_t *more)
{
	size_t n, k = 0, e = o->sort_event;
	const struct profile_row *const *rows = profile__sort(gx_result__profile(in), by, e, o->sort, &n);
	const struct profile_row **out = xmalloc((n + 1) * sizeof(*out));
	bool total = o->sort == PROFILE_SORT_TOTAL;

	*more = 0;
	for (size_t i = 0; i < n; i++) {
		const struct profile_row *r = rows[i];

		if (row_empty(in, r, total, e, any_event))
			continue;
		if (o->percent_limit > 0 && report__pct(in, o, r, total) < o->percent_limit)
			continue;
		if (o->limit && k == o->limit) {
			(*more)++;
			continue;
		}
		out[k++] = r;
	}
	*nr = k;
	return out;
}

void report__path_str(struct strbuf *sb, struct gx_result *in,
		      const struct profile_row *r, const char *sep)
{
	for (uint32_t i = 0; i < r->path_len; i++) {
		const struct profile_row *f = profile__row(gx_result__profile(in), PROFILE_BY_FUNCTION, r->path[i]);

		strbuf__addf(sb, "%s%s", i ? sep : "", f ? gx_esc(f->name) : "?");
	}
}

/* "file.c:42" (basename), or "-" when unknown. */
static const char *src_str(const struct profile_row *l, char *buf, size_t len)
{
	if (!l || !*l->file)
		return "-";
	if (l->line)
		snprintf(buf, len, "%s:%u", report__base(l->file), l->line);
	else
		snprintf(buf, len, "%s", report__base(l->file));
	return buf;
}

/* Column width for the rows' names (module: their modules' basenames). */
static int col_width(const struct profile_row *const *rows, size_t nr, bool module, int min,
		     int max)
{
	int w = min;

	for (size_t i = 0; i < nr; i++) {
		int l = (int)strlen(module ? report__base(rows[i]->module) : rows[i]->name);

		if (l > w)
			w = l;
	}
	return w > max ? max : w;
}

/*
 * s (escaped) in at most w columns: a longer one keeps its start and its
 * end around "...", so that a C++ name's scope and its function both show
 * and the columns after it stay aligned (issue 41); gexplore's bracketed
 * labels stay whole. In buf (len bytes).
 */
static const char *fit(const char *s, int w, char *buf, size_t len)
{
	const char *e = gx_esc(s);
	size_t n = strlen(e), head, tail;

	/* gexplore's own labels ("[kernel: recorded on another machine, ...]")
	 * are sentences: whole */
	if (w < 8 || n <= (size_t)w || (size_t)w + 1 > len || *s == '[')
		return e;
	head = ((size_t)w - 3) / 2;
	tail = (size_t)w - 3 - head;
	snprintf(buf, len, "%.*s...%s", (int)head, e, e + n - tail);
	return buf;
}

/* Lines shown as "-" in a module of the program (not the kernel's): say
 * why and what gives them (the first such module is named). */
static void no_lines_note(struct strbuf *sb, const struct profile_row *const *rows, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];

		if ((r->file && *r->file) || !r->module || r->module[0] != '/')
			continue;
		strbuf__addf(sb, "  -: no line information for %s (no DWARF: stripped, or built without -g); "
			     "rebuild it with -g, install its debug symbols, or give --search-path DIR\n",
			     report__base(r->module));
		return;
	}
}

bool report__inlined(struct gx_result *in, size_t e, double *share)
{
	const struct profile *p = gx_result__profile(in);
	uint64_t period, total = profile__total_period(p, e);

	if (!profile__inlined(p, e, &period))
		return false;
	*share = total ? (double)period / (double)total : 0;
	return true;
}

void report__text_hotspots(struct strbuf *sb, struct gx_result *in,
			   const struct report_opts *o, enum profile_by by)
{
	bool cc = profile__has_callchains(gx_result__profile(in));
	bool cpi = by != PROFILE_BY_CALLPATH && gx_result__has_row_cpi(in);
	/* exact instructions, modelled cycles (record --model): each row's */
	bool md = cpi && gx_kind_fixed(gx_result__model_kind(in));
	size_t nr, more, e = o->sort_event, ei = 0, ec = 0;
	const struct profile_row *const *rows = report__pick(in, o, by, false, &nr, &more);
	char cb[32], fb[512], nb[128], mb[128];
	int w = col_width(rows, nr, false, 8, 48), mw = col_width(rows, nr, true, 6, 32);
	const char *cpi_head = md ? "  instructions(exact)  cycles(modelled)  CPI(modelled)" :
				    "    CPI";

	if (md && (gx_result__find_event(in, "instructions", &ei) ||
		   gx_result__find_event(in, "cycles", &ec)))
		md = false, cpi_head = "    CPI";
	switch (by) {
	case PROFILE_BY_FUNCTION:
		strbuf__addf(sb, "\nFunctions (by %s; self: in the function itself%s)\n",
			     gx_esc(report__event_name(in, e)),
			     cc ? ", total: with its callees" : "");
		strbuf__addf(sb, "    self%s    samples%s  %-*s  %-*s  %s\n", cc ? "   total" : "",
			     cpi ? cpi_head : "", w, "function", mw, "module", "hottest line");
		break;
	case PROFILE_BY_LINE:
		strbuf__addf(sb, "\nSource lines (by %s%s)\n", gx_esc(report__event_name(in, e)),
			     cc ? "; total: lines on the stack, call sites included" : "");
		strbuf__addf(sb, "    self%s    samples%s  %-30s  %-*s  %s\n", cc ? "   total" : "",
			     cpi ? cpi_head : "", "line", w, "function", "module");
		break;
	default:
		strbuf__addf(sb, "\nCall paths (by %s; root first)\n",
			     gx_esc(report__event_name(in, e)));
		strbuf__addstr(sb, "    self    samples  command: path\n");
		break;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];

		strbuf__addf(sb, "  %5.1f%%", report__pct(in, o, r, false));
		if (cc && by != PROFILE_BY_CALLPATH)
			strbuf__addf(sb, "  %5.1f%%", report__pct(in, o, r, true));
		strbuf__addf(sb, "  %9s  ", report__thousands(r->samples[e], cb, sizeof(cb)));
		if (md) {
			char ib[32], cyb[32];

			strbuf__addf(sb, "%19s  %16s  ", report__thousands((uint64_t)llround(
					     gx_result__row_value(in, r, ei)), ib, sizeof(ib)),
				     report__thousands((uint64_t)llround(gx_result__row_value(in, r, ec)),
							cyb, sizeof(cyb)));
		}
		if (cpi) {
			double v = gx_result__row_cpi(in, r);

			if (md)
				strbuf__addf(sb, "%*s", 8, "");
			if (isnan(v))
				strbuf__addstr(sb, "    -  ");
			else
				strbuf__addf(sb, "%5.2f  ", v);
		}
		if (by == PROFILE_BY_FUNCTION) {
			const struct profile_row *l = profile__hot_line(gx_result__profile(in), r->index, e);

			strbuf__addf(sb, "%-*s  %-*s  %s\n", w, fit(r->name, w, nb, sizeof(nb)), mw,
				     fit(report__base(r->module), mw, mb, sizeof(mb)),
				     gx_esc(src_str(l, fb, sizeof(fb))));
		} else if (by == PROFILE_BY_LINE) {
			strbuf__addf(sb, "%-30s  %-*s  %s\n", gx_esc(src_str(r, fb, sizeof(fb))), w,
				     fit(r->name, w, nb, sizeof(nb)), gx_esc(report__base(r->module)));
		} else {
			strbuf__addf(sb, "%s: ", gx_esc(r->name));
			report__path_str(sb, in, r, ";");
			strbuf__addstr(sb, "\n");
		}
	}
	if (more)
		strbuf__addf(sb, "  (%zu more; --limit 0 shows all)\n", more);
	if (!nr)
		strbuf__addstr(sb, "  (no samples)\n");
	if (by == PROFILE_BY_LINE)
		no_lines_note(sb, rows, nr);
	if (by == PROFILE_BY_FUNCTION) {
		double share;

		if (report__inlined(in, e, &share))
			strbuf__addf(sb, "  note: inlined code is credited to the inlined function "
				     "(%.1f%% of %s here); --no-inline credits the function it was "
				     "inlined into, as perf report's symbol view does\n", 100 * share,
				     gx_esc(report__event_name(in, e)));
	}
	free((void *)rows);
}

static json_t *json_counts(struct gx_result *in, const uint64_t *v)
{
	json_t *a = json_array();

	for (size_t e = 0; e < profile__nr_events(gx_result__profile(in)); e++)
		json_array_append_new(a, report__json_u64(v[e]));
	return a;
}

static void json_add_counts(json_t *o2, struct gx_result *in,
			    const struct report_opts *o, const struct profile_row *r, bool total)
{
	json_object_set_new(o2, "share", json_real(report__pct(in, o, r, false) / 100));
	if (total)
		json_object_set_new(o2, "total_share", json_real(report__pct(in, o, r, true) / 100));
	json_object_set_new(o2, "samples", json_counts(in, r->samples));
	json_object_set_new(o2, "estimated", json_counts(in, r->period));
	if (total) {
		json_object_set_new(o2, "total_samples", json_counts(in, r->total_samples));
		json_object_set_new(o2, "total_estimated", json_counts(in, r->total_period));
	}
}

/* "cpi": the row's cycles per instruction, null when not measured. */
static void json_add_cpi(json_t *o2, struct gx_result *in, const struct profile_row *r)
{
	double cpi = gx_result__row_cpi(in, r);

	json_object_set_new(o2, "cpi", pd_json_real(cpi));
}

json_t *report__json_hotspots(struct gx_result *in, const struct report_opts *o,
			      enum profile_by by)
{
	size_t nr, more;
	const struct profile_row *const *rows = report__pick(in, o, by, true, &nr, &more);
	json_t *a = json_array();

	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];
		json_t *o2 = json_object();

		if (by == PROFILE_BY_FUNCTION) {
			const struct profile_row *l = profile__hot_line(gx_result__profile(in), r->index,
									o->sort_event);

			json_object_set_new(o2, "function", json_string(gx_utf8(r->name)));
			json_object_set_new(o2, "module", json_string(gx_utf8(r->module)));
			json_add_counts(o2, in, o, r, true);
			json_add_cpi(o2, in, r);
			json_object_set_new(o2, "file", l ? json_string(gx_utf8(l->file)) : json_null());
			json_object_set_new(o2, "line", l ? json_integer(l->line) : json_null());
			report__json_mem_row(o2, in, by, r->index);
		} else if (by == PROFILE_BY_LINE) {
			json_object_set_new(o2, "file", *r->file ? json_string(gx_utf8(r->file)) : json_null());
			json_object_set_new(o2, "line", r->line ? json_integer(r->line) : json_null());
			json_object_set_new(o2, "function", json_string(gx_utf8(r->name)));
			json_object_set_new(o2, "module", json_string(gx_utf8(r->module)));
			json_add_counts(o2, in, o, r, true);
			json_add_cpi(o2, in, r);
			report__json_mem_row(o2, in, by, r->index);
		} else {
			json_t *st = json_array();

			for (uint32_t k = 0; k < r->path_len; k++) {
				const struct profile_row *f =
					profile__row(gx_result__profile(in), PROFILE_BY_FUNCTION, r->path[k]);

				json_array_append_new(st, json_string(f ? gx_utf8(f->name) : "?"));
			}
			json_object_set_new(o2, "comm", json_string(gx_utf8(r->name)));
			json_object_set_new(o2, "stack", st);
			json_add_counts(o2, in, o, r, false);
		}
		json_array_append_new(a, o2);
	}
	free((void *)rows);
	return a;
}
