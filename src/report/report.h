/*
 * report: the views of a result that are not interactive — text and JSON
 * (schema in gexplore-report(1)). Output is built into a string the caller
 * prints; nothing here writes to a terminal.
 */
#ifndef GX_REPORT_H
#define GX_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "util/util.h"

#define GX_REPORT_SCHEMA "gexplore-report 1"

struct report_input {
	const char *result;		/* what the user named (dir or file) */
	const struct gx_meta *meta;	/* NULL for a bare perf.data */
	struct perf_reader *reader;	/* already processed into profile */
	struct profile *profile;
	const char *cpu;		/* --cpu: top-down model override, or NULL */
	int smt;			/* --smt: enum td_smt, 0 = from the recording */
	/* the slice log of a recording multiplexed by gexplore, or NULL; the
	 * profile then splits the reference event by group (slot_period) */
	const struct mux_log *mux;
};

struct mux_log;

/* ---- the recording's CPU model (report-model.c) -------------------------- */

#include "topdown/topdown.h"

struct report_model {
	char *id;		/* the model id chosen (owned) */
	struct td_model *model;	/* owned */
	struct td_ctx ctx;	/* SMT state and variant of the recording */
	int *ev;		/* evsel -> model event index, -1 when not the model's */
	size_t nr_evsels, nr_matched;
	int clk_evsel;		/* the sampled cycles event, or -1 */
};

/* The id of a recording's model: `cpu` (--cpu), meta.json's, the one
 * perf's CPUID feature matches, else "generic". Allocated. */
char *report_model_id(const struct pd_env *env, const struct gx_meta *meta, const char *cpu);
/*
 * Load the model of the recording in r and map its events. smt is an
 * enum td_smt override (TD_SMT_UNKNOWN: the recording's). 0 when some
 * event is the model's, 1 when none is (no top-down: rm is still to be
 * exited), or a negative code with *cause.
 */
int report_model__init(struct report_model *rm, struct perf_reader *r, const struct gx_meta *meta,
		       const char *cpu, int smt, char **cause);
void report_model__exit(struct report_model *rm);
/* Sum per-evsel values (NAN = not measured) into the model's events c[]. */
void report_model__counts(const struct report_model *rm, const double *evsel_values, double *c);

/* The event samples (a period or a frequency), as opposed to only counting. */
bool report_evsel_sampled(const struct perf_event_attr *a);
/*
 * Evsel i's whole-run value: the multiplexed estimate, the counting read
 * (scaled when the kernel multiplexed it), else the summed sample periods;
 * NAN when not measured. *counted: from a counting read.
 */
double report_evsel_run_value(struct perf_reader *r, const struct gx_meta *meta,
			      struct profile *p, size_t i, bool *counted);
/*
 * Evsel i's value on one row: the row's summed periods, times run time /
 * its group's time when multiplexed (mux, else meta's scale); NAN for an
 * event that was only counted.
 */
double report_evsel_row_value(struct perf_reader *r, const struct gx_meta *meta,
			      const struct mux_log *mux, const struct profile_row *row, size_t i);

/* MUX reliability of a row (gexplore-mux(7)) from its slot periods; NAN
 * when the recording was not multiplexed or the row saw no reference. */
double report_row_reliability(const struct report_input *in, const struct profile_row *r);

/*
 * The slice log of a result that gexplore multiplexed itself (dir holds
 * meta.json's slice_log), with its events' groups from meta. 0 with *out
 * NULL when the result was not multiplexed that way or has no reference
 * event; an error with *cause when the log cannot be read.
 */
int report_mux_open(const char *dir, const struct gx_meta *meta, size_t nr_evsels,
		    struct mux_log **out, char **cause);
/* Profile options that split the reference event's samples by the group
 * counting at their time, so that every row gets its MUX reliability. */
void report_mux_slots(struct mux_log *l, const struct gx_meta *meta, struct profile_opts *po);


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
};

/* Append the text report to out. 0 or a negative code. */
int report_text(struct strbuf *out, const struct report_input *in, const struct report_opts *o);

/* Append the JSON report (one object, pretty-printed, trailing newline). */
int report_json(struct strbuf *out, const struct report_input *in, const struct report_opts *o);

/* The top-down section (topdown-view.c): the tree for the whole run and
 * level 1 per function, process and module; or why there is none. */
int report_topdown_text(struct strbuf *out, const struct report_input *in,
			const struct report_opts *o);
/* The same as a JSON object (new reference). */
struct json_t;
struct json_t *report_topdown_json(const struct report_input *in, const struct report_opts *o);

/*
 * Append a CSV table (RFC 4180: a header row, fields quoted when they hold
 * a comma, quote or newline) of the --by rows (functions by default), with
 * the values of the sort event. Columns are listed in gexplore-report(1).
 */
int report_csv(struct strbuf *out, const struct report_input *in, const struct report_opts *o);

/*
 * Append folded stacks (Brendan Gregg's flamegraph.pl input): one line per
 * distinct call path, `comm;root;...;leaf COUNT`, COUNT = samples of the
 * sort event; every path, ordered by the line's text. Without call stacks
 * each path is comm;function.
 */
int report_folded(struct strbuf *out, const struct report_input *in, const struct report_opts *o);

/* Names of enum profile_sort / enum profile_by values as the options
 * spell them ("self", "function"), NULL-terminated. */
extern const char *const report_sort_names[];
extern const char *const report_by_names[];

/* Human name of a signal ("SIGINT"), or "signal N". Static storage. */
const char *report_signame(int sig);

#endif /* GX_REPORT_H */
