#ifndef GX_CMD_INT_H
#define GX_CMD_INT_H

#include <stdbool.h>

#include "collect/collect.h"

struct record_opts {
	struct collect_opts collect;
	const char *output;	/* -o */
	const char *cpu;	/* --cpu MODEL: the top-down model instead of this CPU's */
	bool force;		/* -f: reuse a non-empty -o DIR */
	bool no_report;		/* --no-report */
	bool quiet;		/* -q */
	bool help;
	const char *check;	/* --check 'SPEC': check options run on the result */
	unsigned repeat;	/* --repeat N (with --check) */
};

/* Record (and with then_report, print the summary); returns the exit code. */
int record_run(int argc, char **argv, bool then_report);

struct report_cmd_opts;
/* Print the text report of a result (NULL opts: defaults); exit code. */
int report_print(const char *result, const char *parent, const struct report_cmd_opts *o);

/* cmd-check.c: `record --check SPEC`: run `check SPEC DIR`; its exit code. */
int check_after_record(const char *spec, const char *dir);
/* `record --repeat N --check SPEC [options] -- CMD`: record CMD N times with
 * the record options argv[1..idx) and check them together; exit code. */
int check_record_repeat(const char *spec, unsigned repeat, int argc, char **argv, int idx);

#endif
