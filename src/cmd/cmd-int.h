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
	bool no_tui;		/* --no-tui: text summary even on a terminal */
	bool quiet;		/* -q */
	bool help;
};

/* Record (and with then_report, print the summary); returns the exit code. */
int record_run(int argc, char **argv, bool then_report);

struct report_cmd_opts;
/* Print the text report of a result (NULL opts: defaults); exit code. */
int report_print(const char *result, const char *parent, const struct report_cmd_opts *o);

/* Open the TUI on a result (the text report when it cannot run); exit code. */
int tui_open_result(const char *result, const char *parent, const char *cpu);

#endif
