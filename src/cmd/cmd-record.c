/*
 * gexplore record [options] -- CMD [ARGS]   record only
 * gexplore [options] -- CMD [ARGS]          record, then print the summary
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd-int.h"
#include "collect/collect.h"
#include "perfdata/perfdata.h"
#include "result/result.h"
#include "mux/mux.h"
#include "topdown/topdown.h"
#include "util/util.h"

static int opt_callgraph_fp(const struct cmd_option *opt, void *base, const char *arg,
			    char **cause)
{
	struct record_opts *ro = base;

	(void)opt;
	(void)arg;
	(void)cause;
	ro->collect.callgraph = COLLECT_CG_FP;
	return 0;
}

static int opt_callgraph(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct record_opts *ro = base;
	uint64_t v;

	(void)opt;
	if (!strcmp(arg, "fp")) {
		ro->collect.callgraph = COLLECT_CG_FP;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',')) {
		*cause = xasprintf("expected fp or dwarf[,SIZE], got '%s'", arg);
		return -1;
	}
	ro->collect.callgraph = COLLECT_CG_DWARF;
	if (!arg[5])
		return 0;
	if (cmd_parse_u64(arg + 6, 8, 65528, &v) || v % 8) {
		*cause = xasprintf("dwarf,SIZE: expected a multiple of 8 from 8 to 65528, got '%s'",
				   arg + 6);
		return -1;
	}
	ro->collect.stack_size = (uint32_t)v;
	return 0;
}

static int opt_mmap_pages(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct record_opts *ro = base;
	uint64_t v;

	(void)opt;
	if (cmd_parse_u64(arg, 1, 1u << 20, &v) || (v & (v - 1))) {
		*cause = xasprintf("expected a power of two number of pages from 1 to 1048576, "
				   "got '%s'", arg);
		return -1;
	}
	ro->collect.mmap_pages = (uint32_t)v;
	return 0;
}

/* --check 'SPEC': check's options, parsed now by check's own table */
static int opt_check(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct record_opts *ro = base;

	(void)opt;
	check_cmd_opts__delete(ro->check);
	ro->check = NULL;
	if (check_cmd_opts__new(&ro->check, arg) != 0) {
		*cause = xasprintf("'%s' is not a check (gexplore-check(1))", arg);
		return -1;
	}
	return 0;
}

/* --delay MS: perf's -D; -1 waits for an "enable" on --control */
static int opt_delay(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct record_opts *ro = base;
	uint64_t v;

	(void)opt;
	if (!strcmp(arg, "-1")) {
		ro->collect.delay_ms = -1;
		return 0;
	}
	if (cmd_parse_u64(arg, 0, INT_MAX, &v)) {
		*cause = xasprintf("expected milliseconds, or -1 to wait for 'enable', got '%s'", arg);
		return -1;
	}
	ro->collect.delay_ms = (int)v;
	return 0;
}

static int opt_control(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct record_opts *ro = base;

	(void)opt;
	if (strncmp(arg, "fifo:", 5) && strncmp(arg, "fd:", 3)) {
		*cause = xasprintf("expected fifo:CTL[,ACK] or fd:CTL[,ACK], got '%s'", arg);
		return -1;
	}
	ro->control = arg;
	return 0;
}

static const struct cmd_option record_options[] = {
	CMD_OPT_STRING('o', "output", struct record_opts, output, "DIR",
		       "write the result to DIR", "the next free gxNNN here"),
	CMD_OPT_BOOL('f', "force", struct record_opts, force, "reuse a non-empty -o DIR"),
	CMD_OPT_STRING('e', "event", struct record_opts, collect.events, "EVENTS",
		       "sample these events ({a,b} groups them)", "the CPU's top-down events"),
	CMD_OPT_UINT('c', "count", struct record_opts, collect.sav, "SAV",
		     "sample every SAV occurrences of each event", "the model's", 1, UINT64_MAX,
		     "a sample-after value"),
	CMD_OPT_UINT('F', "freq", struct record_opts, collect.freq, "HZ",
		     "sample HZ times a second instead (not with -c)", NULL, 1, 1000000,
		     "a frequency in Hz"),
	CMD_OPT_DOUBLE(0, "rate", struct record_opts, collect.rate, "X",
		       "multiply every sample-after value by X", "1", 1e-6, 1e6, "a factor"),
	CMD_OPT_CALLBACK('g', NULL, NULL, opt_callgraph_fp,
			 "record call stacks by frame pointers (--call-graph fp)", NULL),
	CMD_OPT_CALLBACK(0, "call-graph", "fp|dwarf[,SIZE]", opt_callgraph,
			 "record call stacks; dwarf copies SIZE bytes of stack", "no stacks; SIZE 8192"),
	CMD_OPT_UINT('p', "pid", struct record_opts, collect.pid, "PID",
		     "attach to the running process PID", NULL, 1, INT_MAX, "a process id"),
	CMD_OPT_BOOL('a', "all-cpus", struct record_opts, collect.system_wide,
		     "record every CPU (system-wide)"),
	CMD_OPT_CALLBACK('m', "mmap-pages", "PAGES", opt_mmap_pages,
			 "data pages per ring buffer, a power of two", "auto"),
	CMD_OPT_STRING(0, "cpu", struct record_opts, cpu, "MODEL",
		       "the top-down model of another CPU", "this CPU's"),
	CMD_OPT_BOOL(0, "no-inherit", struct record_opts, collect.no_inherit,
		     "do not follow children and new threads"),
	CMD_OPT_CALLBACK(0, "control", "fifo:CTL[,ACK]|fd:CTL[,ACK]", opt_control,
			 "take enable/disable commands there, answer ack (perf's protocol)", NULL),
	CMD_OPT_CALLBACK('D', "delay", "MS", opt_delay,
			 "start collecting MS ms after the start; -1: at --control's enable", "0"),
	{ .kind = CMD_OPTK_INCLUDE, .sub = record_mux_options },	/* cmd-mux.c */
	CMD_OPT_CALLBACK_DATA(0, "archive-max", "SIZE", cmd_opt_archive_max,
			      offsetof(struct record_opts, archive_max),
			      "archive at most SIZE bytes of sampled files (K, M, G; 0: no cap)",
			      "512M"),
	CMD_OPT_BOOL(0, "no-archive", struct record_opts, no_archive,
		     "do not copy the sampled binaries and debug files into the result"),
	CMD_OPT_BOOL(0, "no-report", struct record_opts, no_report,
		     "gexplore -- CMD: record only, show nothing"),
	CMD_OPT_BOOL(0, "no-tui", struct record_opts, no_tui,
		     "gexplore -- CMD: the text summary even on a terminal"),
	CMD_OPT_BOOL('q', "quiet", struct record_opts, quiet, "no warnings and summary line"),
	CMD_OPT_CALLBACK(0, "check", "SPEC", opt_check,
			 "then check the result with these gexplore check options", NULL),
	CMD_OPT_UINT(0, "repeat", struct record_opts, repeat, "N",
		     "with --check: record N times and check the runs together", "1", 1, 1000,
		     "a number of runs"),
	CMD_OPT_END(),
};

/*
 * After a recording: `gexplore -- CMD` shows it (the TUI on a terminal,
 * else the text summary) and --check checks it, both from one opened
 * result. ret is the workload's status; the check's replaces it when the
 * workload succeeded.
 */
int after_record(struct record_opts *ro, const char *dir, bool then_report, int ret)
{
	bool show = then_report && !ro->no_report, check = ro->check && ret == GX_EXIT_OK;
	struct gx_result_opts oo = { .cpu = ro->cpu };
	struct gx_result *res = NULL;
	char *cause = NULL;

#ifdef HAVE_NCURSESW
	if (show && !ro->no_tui && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
		tui_open_result(dir, NULL, ro->cpu, NULL, NULL, NULL);
		show = false;
	}
#endif
	if (!show && !check)
		return ret;
	if (check)
		oo = *check_cmd_opts__open(ro->check);
	if (gx_result__open(&res, dir, &oo, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return check ? GX_EXIT_USAGE : ret;
	}
	for (size_t i = 0; show && i < gx_result__nr_notes(res); i++)
		cmd_warn("%s", gx_result__note(res, i));
	if (show)
		report_print_result(res, NULL);
	if (check)
		ret = check_run_result(ro->check, res);
	gx_result__delete(res);
	return ret;
}

static int cmd_record_exec(int argc, char **argv)
{
	struct record_opts ro;
	struct cmd_args a;
	char *cause = NULL, **dirs = NULL;
	int ret;

	record_opts__init(&ro);
	if (cmd_parse(&cmd_record_entry, &ro, argc, argv, &a)) {
		ret = a.exit;
		goto out;
	}
	ret = GX_EXIT_USAGE;
	if (record_opts__check(&ro, &cause)) {
		cmd_error("%s", cause);
		free(cause);
		goto out;
	}
	ro.collect.argv = a.argc ? a.argv : NULL;
	if (ro.repeat > 1 && !(ro.check && a.argc)) {
		cmd_error("--repeat N needs --check SPEC and a command");
		goto out;
	}
	if (ro.repeat <= 1) {
		ret = record_run(&ro, !strcmp(argv[0], "run"), argc, argv);
		goto out;
	}
	/* record --repeat N --check SPEC -- CMD: N runs, checked together */
	ret = record_repeat(&ro, a.argv, ro.repeat, check_cmd_opts__quiet(ro.check), argc, argv,
			    &dirs);
	if (!ret)
		ret = check_run(ro.check, dirs, ro.repeat);
	for (unsigned k = 0; dirs && k < ro.repeat; k++)
		free(dirs[k]);
	free(dirs);
out:
	check_cmd_opts__delete(ro.check);
	return ret;
}

const struct cmd_entry cmd_record_entry = {
	.name = "record", .usage = "[--] CMD [ARGS]",
	.exec = cmd_record_exec, .options = record_options, .max_args = -1, .stop_at_arg = true,
	.summary = "run a command under the performance counters and write a result",
};
