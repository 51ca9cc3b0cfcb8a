/*
 * cmd-mux.c: record's multiplexing options, --slice, --mux and --mux-runs.
 * What they do around a recording is src/record's (record-mux.c).
 */
#include "config.h"

#include "cmd.h"

#include <stddef.h>

#include "cmd-int.h"
#include "mux/mux.h"
#include "record/record.h"
#include "util/util.h"

static int opt_mux(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct record_opts *ro = base;
	enum mux_mode mode;

	(void)opt;
	if (mux_mode_parse(arg, &mode) != 0 || mode == MUX_MODE_RUNS) {
		*cause = xasprintf("expected gexplore or kernel, got '%s'", arg);
		return -1;
	}
	ro->mux = arg;
	return 0;
}

const struct cmd_option record_mux_options[] = {
	CMD_OPT_UINT(0, "slice", struct record_opts, slice_ms, "MS",
		     "each group counts MS milliseconds in turn", "10", 1, 10000,
		     "a number of milliseconds"),
	CMD_OPT_CALLBACK(0, "mux", "gexplore|kernel", opt_mux,
			 "who rotates the groups when they do not fit the counters", "gexplore"),
	CMD_OPT_BOOL(0, "mux-runs", struct record_opts, mux_runs,
		     "run the workload once per group instead of multiplexing"),
	CMD_OPT_END(),
};
