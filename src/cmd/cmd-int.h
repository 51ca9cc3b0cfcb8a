#ifndef GX_CMD_INT_H
#define GX_CMD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/collect.h"

struct record_opts {
	struct collect_opts collect;
	const char *output;	/* -o */
	const char *cpu;	/* --cpu MODEL: the top-down model instead of this CPU's */
	bool force;		/* -f: reuse a non-empty -o DIR */
	bool no_report;		/* --no-report */
	bool no_tui;		/* --no-tui: text summary even on a terminal */
	bool quiet;		/* -q */
	bool help;
	const char *check;	/* --check 'SPEC': check options run on the result */
	unsigned repeat;	/* --repeat N (with --check) */
	/* multiplexing (cmd-mux.c) */
	const char *mux;	/* --mux=gexplore|kernel; NULL = gexplore */
	uint32_t slice_ms;	/* --slice MS; 0 = 10 */
	bool mux_runs;		/* --mux-runs */
};

/*
 * Where a result's files and symbols are (cmd-symopts.c): report, check,
 * diff and tui take the same options. Add CMD_SYMOPTS_LONGOPTS to the
 * getopt table and hand every option to cmd_symopts__parse() first: 1 when
 * it was one of these, 0 when not, -exit code after printing an error.
 * __apply points a profile's options into so (which must outlive them).
 */
#define CMD_MAX_SEARCH_PATHS 32
enum { CMD_OPT_SYMFS = 0x1000, CMD_OPT_SEARCH, CMD_OPT_KALLSYMS, CMD_OPT_NO_INLINE };
#define CMD_SYMOPTS_LONGOPTS \
	{ "symfs", required_argument, NULL, CMD_OPT_SYMFS }, \
	{ "search-path", required_argument, NULL, CMD_OPT_SEARCH }, \
	{ "kallsyms", required_argument, NULL, CMD_OPT_KALLSYMS }, \
	{ "no-inline", no_argument, NULL, CMD_OPT_NO_INLINE }
#define CMD_SYMOPTS_USAGE "[--symfs DIR] [--search-path DIR]... [--kallsyms FILE] [--no-inline]"

struct cmd_symopts {
	const char *symfs, *kallsyms;
	const char *search_paths[CMD_MAX_SEARCH_PATHS];
	size_t nr_search_paths;
	bool no_inline;
};

struct profile_opts;
int cmd_symopts__parse(struct cmd_symopts *so, int c, const char *arg);
void cmd_symopts__apply(const struct cmd_symopts *so, struct profile_opts *po);

struct gx_meta;
struct collect_session;
struct record_mux;

/*
 * Multiplexing around a recording (cmd-mux.c). __setup checks the options,
 * rewrites the event list for the chosen mode (reference first, one group
 * per run with --mux-runs) and sets the collect options (rotation, slice
 * log in dir); NULL *out when there is nothing to multiplex. __finish,
 * after the run, runs the other --mux-runs groups and fills meta's mux
 * section, estimates and warnings. Both print their own errors; they
 * return 0 or an exit code.
 */
int record_mux__setup(struct record_mux **out, struct record_opts *ro, const char *dir);
int record_mux__finish(struct record_mux *rm, const struct collect_session *s,
		       struct gx_meta *meta, const char *dir, bool quiet);
void record_mux__delete(struct record_mux *rm);

/* Record (and with then_report, print the summary); returns the exit code. */
int record_run(int argc, char **argv, bool then_report);

struct report_cmd_opts;
/* Print the text report of a result (NULL opts: defaults); exit code. */
int report_print(const char *result, const char *parent, const struct report_cmd_opts *o);
/* Print the report of an opened result (NULL opts: defaults); exit code. */
struct gx_result;
int report_print_result(struct gx_result *res, const struct report_cmd_opts *o);
/* The same with the default options but sym's (NULL: none). */
int report_print_sym(const char *result, const char *parent, const struct cmd_symopts *sym);

/* cmd-check.c: `record --check SPEC`: run `check SPEC DIR`; its exit code. */
int check_after_record(const char *spec, const char *dir);
/* `record --repeat N --check SPEC [options] -- CMD`: record CMD N times with
 * the record options argv[1..idx) and check them together; exit code. */
int check_record_repeat(const char *spec, unsigned repeat, int argc, char **argv, int idx);
/* Open the TUI on a result (the text report when it cannot run); sym and
 * baseline (a result to compare with) may be NULL; exit code. */
int tui_open_result(const char *result, const char *parent, const char *cpu,
		    const struct cmd_symopts *sym, const char *baseline);

#endif
