/*
 * report: the views of a result that are not interactive — text and JSON
 * (schema in gexplore-report(1)) and CSV, each of an opened result
 * (src/result); folded stacks and pprof are src/export's. Output is built into a string the caller prints;
 * nothing here writes to a terminal.
 */
#ifndef GX_REPORT_H
#define GX_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "result/result.h"
#include "util/util.h"

#define GX_REPORT_SCHEMA "gexplore-report 1"

struct gx_result;

struct report_opts {
	size_t limit;			/* rows per table; 0 = all */
	double percent_limit;		/* hide rows below this share (%) of the sort column */
	size_t sort_event;		/* index of the event that orders rows */
	/*
	 * --by: the one table to show. by_given false: the text report shows
	 * the run summary, processes, threads, modules and the function
	 * hotspots; CSV shows functions.
	 */
	bool by_given;
	enum profile_by by;
	enum profile_sort sort;		/* --sort column (self by default) */
	/* --by region: the regions table only (text), or as CSV; by_given
	 * is false then */
	bool by_region;
	/* --by calltree: the call tree alone (text); by_given is false then */
	bool by_tree;
	/* --by block|loop|branch: what the branches say (text); by_given is
	 * false then */
	enum report_flow_by { REPORT_FLOW_NONE, REPORT_FLOW_BLOCK, REPORT_FLOW_LOOP,
			      REPORT_FLOW_BRANCH } by_flow;
	/* --by data-source, data-object or cacheline: that memory table
	 * alone (text; by_given is false then); REPORT_MEM_NONE: none */
	enum report_mem_by { REPORT_MEM_NONE, REPORT_MEM_SOURCE, REPORT_MEM_OBJECT,
			     REPORT_MEM_LINE } mem_by;
	/* the recording's own warnings (meta.json's) were said while it ran,
	 * just before this report (`gexplore -- CMD`): counted, not repeated */
	bool warnings_said;
};

/* Append the text report to out. 0 or a negative code. */
int report_text(struct strbuf *out, struct gx_result *in, const struct report_opts *o);

/* Append the JSON report (one object, pretty-printed, trailing newline). */
int report_json(struct strbuf *out, struct gx_result *in, const struct report_opts *o);

/* The top-down section (report-topdown.c): the tree for the whole run and
 * level 1 per function, process and module; or why there is none. */
int report_topdown_text(struct strbuf *out, struct gx_result *in,
			const struct report_opts *o);
/* The same as a JSON object (new reference). */
struct json_t;
struct json_t *report_topdown_json(struct gx_result *in, const struct report_opts *o);

/*
 * Append a CSV table (RFC 4180: a header row, fields quoted when they hold
 * a comma, quote or newline) of the --by rows (functions by default), with
 * the values of the sort event. Columns are listed in gexplore-report(1).
 */
int report_csv(struct strbuf *out, struct gx_result *in, const struct report_opts *o);

/* Names of enum profile_sort / enum profile_by values as the options
 * spell them ("self", "function"), NULL-terminated. */
extern const char *const report_sort_names[];
extern const char *const report_by_names[];

/* Whether arg names a memory table (--by data-source, data-sources,
 * source; data-object, data-objects, object; cacheline, cachelines, c2c):
 * then o->mem_by is set and by_given, by_region, by_tree cleared. */
bool report_mem_by_name(const char *arg, struct report_opts *o);

/* Human name of a signal ("SIGINT"), or "signal N". Static storage. */
const char *report_signame(int sig);

#endif /* GX_REPORT_H */
