/*
 * CSV output: one table, a header row, the sort event's values. Columns
 * per --by are fixed (gexplore-report(1)); new ones are only appended.
 */
#include "config.h"

#include "report-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void report__csv_field(struct strbuf *sb, const char *s)
{
	s = gx_esc(s);
	if (strpbrk(s, ",\"\r\n")) {
		strbuf__addstr(sb, "\"");
		for (const char *c = s; *c; c++)
			strbuf__add(sb, *c == '"' ? "\"\"" : c, *c == '"' ? 2 : 1);
		strbuf__addstr(sb, "\"");
	} else {
		strbuf__addstr(sb, s);
	}
}

/* A field and its comma. */
static void csv_str(struct strbuf *sb, const char *s)
{
	report__csv_field(sb, s);
	strbuf__addstr(sb, ",");
}

/* Periods of event e scaled by mux's rule (as they are when exact). */
static uint64_t scaled(struct gx_result *in, size_t e, uint64_t v)
{
	const struct gx_event *ge = gx_result__event(in, e);
	double x;

	if (!ge || !ge->multiplexed || isnan(ge->scale))
		return v;
	x = (double)v * ge->scale;
	return x < 1.8e19 ? (uint64_t)llround(x) : v;
}

static void csv_counts(struct strbuf *sb, struct gx_result *in,
		       const struct report_opts *o, const struct profile_row *r, bool total)
{
	size_t e = o->sort_event;

	strbuf__addf(sb, "%.4f,", report__pct(in, o, r, false));
	if (total)
		strbuf__addf(sb, "%.4f,", report__pct(in, o, r, true));
	strbuf__addf(sb, "%" PRIu64 ",%" PRIu64, r->samples[e], scaled(in, e, r->period[e]));
	if (total)
		strbuf__addf(sb, ",%" PRIu64 ",%" PRIu64, r->total_samples[e],
			     scaled(in, e, r->total_period[e]));
}

/* The last column: the sort event's running share in percent when it was
 * multiplexed (perf stat's figure), else empty. */
static void csv_running(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	const struct gx_event *ge = gx_result__event(in, o->sort_event);

	strbuf__addstr(sb, ",");
	if (ge && ge->multiplexed)
		strbuf__addf(sb, "%.2f", 100 * ge->running);
}

static const char *const csv_headers[] = {
	[PROFILE_BY_PROCESS] = "pid,comm,self_pct,samples,estimated,running_pct",
	[PROFILE_BY_THREAD] = "tid,pid,comm,self_pct,samples,estimated,running_pct",
	[PROFILE_BY_MODULE] = "module,self_pct,total_pct,samples,estimated,total_samples,"
			      "total_estimated,running_pct",
	[PROFILE_BY_FUNCTION] = "function,module,self_pct,total_pct,samples,estimated,"
				"total_samples,total_estimated,file,line,running_pct",
	[PROFILE_BY_LINE] = "file,line,function,module,self_pct,total_pct,samples,estimated,"
			    "total_samples,total_estimated,running_pct",
	[PROFILE_BY_CALLPATH] = "comm,path,self_pct,samples,estimated,running_pct",
};

/* --off-cpu: threads get their time on and off the CPU, functions and
 * lines their off-CPU time (self, total), appended. */
static const char *csv_off_header(struct gx_result *in, enum profile_by by)
{
	if (!report__offcpu(in))
		return "";
	if (by == PROFILE_BY_THREAD)
		return ",on_cpu_s,off_cpu_s";
	if (by == PROFILE_BY_FUNCTION || by == PROFILE_BY_LINE)
		return ",off_cpu_s,off_cpu_total_s";
	return "";
}

static void csv_off(struct strbuf *sb, struct gx_result *in, enum profile_by by,
		    const struct profile_row *r)
{
	if (!report__offcpu(in))
		return;
	if (by == PROFILE_BY_THREAD) {
		const struct profile_off_thread *t = report__off_thread(in, r->tid);
		uint64_t life = t && t->end > t->start ? t->end - t->start : 0;

		if (t)
			strbuf__addf(sb, ",%.6f,%.6f",
				     (double)(life > t->off_ns ? life - t->off_ns : 0) / 1e9,
				     (double)t->off_ns / 1e9);
		else
			strbuf__addstr(sb, ",,");
	} else if (by == PROFILE_BY_FUNCTION || by == PROFILE_BY_LINE) {
		size_t ev = gx_result__offcpu_value(in);

		strbuf__addf(sb, ",%.6f,%.6f", (double)r->period[ev] / 1e9,
			     (double)r->total_period[ev] / 1e9);
	}
}

int report_csv(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	enum profile_by by = o->by_given ? o->by : PROFILE_BY_FUNCTION;
	size_t nr = 0, more;
	const struct profile_row *const *rows = NULL;
	struct strbuf path = STRBUF_INIT;
	/* exact instructions, modelled cycles (record --model): each row's, and CPI */
	bool md = gx_kind_fixed(gx_result__model_kind(in)) &&
		  (by == PROFILE_BY_FUNCTION || by == PROFILE_BY_LINE);
	size_t ei = 0, ec = 0;

	if (o->by_region)
		return report__csv_regions(sb, in, o);
	if (o->mem_by != REPORT_MEM_NONE)	/* issue 43 */
		return report__csv_mem(sb, in, o);
	if (md && (gx_result__find_event(in, "instructions", &ei) ||
		   gx_result__find_event(in, "cycles", &ec)))
		md = false;
	strbuf__addf(sb, "%s%s%s\n", csv_headers[by],
		     md ? ",instructions_exact,cycles_modelled,cpi_modelled" : "",
		     csv_off_header(in, by));
	if (profile__nr_events(gx_result__profile(in)))
		rows = report__pick(in, o, by, true, &nr, &more);
	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];

		switch (by) {
		case PROFILE_BY_PROCESS:
			strbuf__addf(sb, "%u,", r->pid);
			csv_str(sb, r->name);
			csv_counts(sb, in, o, r, false);
			break;
		case PROFILE_BY_THREAD:
			strbuf__addf(sb, "%u,%u,", r->tid, r->pid);
			csv_str(sb, r->name);
			csv_counts(sb, in, o, r, false);
			break;
		case PROFILE_BY_MODULE:
			csv_str(sb, r->name);
			csv_counts(sb, in, o, r, true);
			break;
		case PROFILE_BY_FUNCTION: {
			const struct profile_row *l = profile__hot_line(gx_result__profile(in), r->index,
									o->sort_event);

			csv_str(sb, r->name);
			csv_str(sb, r->module);
			csv_counts(sb, in, o, r, true);
			strbuf__addstr(sb, ",");
			csv_str(sb, l ? l->file : "");
			if (l && l->line)
				strbuf__addf(sb, "%u", l->line);
			break;
		}
		case PROFILE_BY_LINE:
			csv_str(sb, r->file);
			if (r->line)
				strbuf__addf(sb, "%u", r->line);
			strbuf__addstr(sb, ",");
			csv_str(sb, r->name);
			csv_str(sb, r->module);
			csv_counts(sb, in, o, r, true);
			break;
		default:
			csv_str(sb, r->name);
			path.len = 0;
			report__path_str(&path, in, r, ";");
			csv_str(sb, path.buf ? path.buf : "");
			csv_counts(sb, in, o, r, false);
			break;
		}
		csv_running(sb, in, o);
		if (md) {
			double ni = gx_result__row_value(in, r, ei), nc = gx_result__row_value(in, r, ec);

			strbuf__addf(sb, ",%.0f,%.0f,", ni, nc);
			if (ni > 0)
				strbuf__addf(sb, "%.4f", nc / ni);
		}
		csv_off(sb, in, by, r);
		strbuf__addstr(sb, "\n");
	}
	strbuf__exit(&path);
	free((void *)rows);
	return 0;
}
