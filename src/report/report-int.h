/*
 * report-int.h: what the report's files share (report.c, report-hotspots.c,
 * report-csv.c). Private to src/report.
 */
#ifndef GX_REPORT_INT_H
#define GX_REPORT_INT_H

#include <jansson.h>

#include "report.h"

/* report.c */
const char *report__event_name(struct gx_result *in, size_t i);
const char *report__thousands(uint64_t v, char *buf, size_t len);
json_t *report__json_u64(uint64_t v);

/* report-csv.c */
/* A CSV field (no comma): escaped as every name printed as text is (util.h),
 * then quoted (RFC 4180) when it holds a separator or a quote. */
void report__csv_field(struct strbuf *sb, const char *s);

/* The basename of a path (no copy). */
const char *report__base(const char *path);

/*
 * The rows a table shows: sorted by o, with --percent-limit and --limit
 * applied; rows without samples of the sort event (any_event: of any
 * event) are dropped. *more is
 * set to the number of rows left out by --limit alone. The caller frees
 * the array (not the rows).
 */
/* The rows of the process tables: one per command (comm), or one per pid
 * with --by process. */
enum profile_by report__process_by(const struct report_opts *o);
const struct profile_row *const *report__pick(struct gx_result *in,
					      const struct report_opts *o, enum profile_by by,
					      bool any_event, size_t *nr, size_t *more);

/* Share of the sort event's total, in percent; total: the row's total column. */
double report__pct(struct gx_result *in, const struct report_opts *o,
		   const struct profile_row *r, bool total);

/*
 * Whether samples of event e fell in inlined code (credited to the inlined
 * function, as perf report --inline does), with *share their share of e's
 * period; false when none did (or with --no-inline). REPORT_INLINED_NOTE
 * says what that means and how to get perf's symbol view.
 */
bool report__inlined(struct gx_result *in, size_t e, double *share);
#define REPORT_INLINED_NOTE \
	"inlined code is credited to the inlined function; --no-inline credits the " \
	"function it was inlined into, as perf report's symbol view does"

/* report-hotspots.c: text tables and JSON arrays of functions, lines, callpaths */
void report__text_hotspots(struct strbuf *sb, struct gx_result *in,
			   const struct report_opts *o, enum profile_by by);
json_t *report__json_hotspots(struct gx_result *in, const struct report_opts *o,
			      enum profile_by by);
/* "main;a;b" for a call path row (functions root first) */
void report__path_str(struct strbuf *sb, struct gx_result *in,
		      const struct profile_row *r, const char *sep);

/* report-calltree.c: every call path folded into one tree, root first
 * (--by calltree) */
void report__text_calltree(struct strbuf *sb, struct gx_result *in, const struct report_opts *o);

/* report-regions.c: the regions table (text, JSON array, CSV with --by
 * region) and the summary line of a result narrowed to a region */
struct td_model;
/* The top-down nodes shown per row: CPI, then level 1; returns how many
 * (node indexes into cols). */
size_t report__td_columns(const struct td_model *m, int *cols, size_t max);
int report__text_regions(struct strbuf *sb, struct gx_result *in, const struct report_opts *o);
void report__text_region_line(struct strbuf *sb, struct gx_result *in);
json_t *report__json_regions(struct gx_result *in, const struct report_opts *o);
int report__csv_regions(struct strbuf *sb, struct gx_result *in, const struct report_opts *o);

/* report-mem.c: memory-access samples (issue 43): the --by data-source,
 * data-object or cacheline table (text), the default report's data
 * sources (top 5; nothing without data sources), the JSON `data_sources`
 * and `memory` of the run, and a function or line row's `data_sources` */
int report__text_mem(struct strbuf *sb, struct gx_result *in, const struct report_opts *o);
void report__text_mem_summary(struct strbuf *sb, struct gx_result *in, const struct report_opts *o);
void report__json_mem(json_t *root, struct gx_result *in, const struct report_opts *o);
int report__csv_mem(struct strbuf *sb, struct gx_result *in, const struct report_opts *o);
void report__json_mem_row(json_t *row, struct gx_result *in, enum profile_by by, uint32_t index);

/* report-offcpu.c: off-CPU time (record --off-cpu) */
/* The result's off-CPU analysis when it has context switches, else NULL. */
struct profile_offcpu *report__offcpu(struct gx_result *in);
/* "switch+proc" (reasons and stacks from /proc) or "switch". */
const char *report__offcpu_method(struct gx_result *in);
/* Thread-time, off-CPU time and per reason, summed over the threads. */
void report__offcpu_totals(struct profile_offcpu *oc, uint64_t *life, uint64_t *off,
			   uint64_t *reason_ns);
const struct profile_off_thread *report__off_thread(struct gx_result *in, uint32_t tid);
/* Off-CPU seconds inside region name_idx's instances; NAN without. */
double report__offcpu_region_s(struct gx_result *in, size_t name_idx);
void report__text_offcpu(struct strbuf *sb, struct gx_result *in, const struct report_opts *o);
json_t *report__json_offcpu(struct gx_result *in, const struct report_opts *o);

/* report-flow.c: the blocks, loops or branches table (o->by_flow), and
 * the JSON tables ranges, branches, blocks and loops with their summary
 * "flow" (none where the result has no flow). */
int report__text_flow(struct strbuf *sb, struct gx_result *in, const struct report_opts *o);
/* A line under the default text report where samples carry branch stacks. */
void report__text_flow_hint(struct strbuf *sb, struct gx_result *in);
void report__json_flow(json_t *root, struct gx_result *in, const struct report_opts *o);

#endif
