/*
 * gexplore record [options] -- CMD [ARGS]   record only
 * gexplore [options] -- CMD [ARGS]          record, then print the summary
 *
 * The recording itself is src/record's (gx_record); here are the command
 * line, what follows a recording (the report or the TUI, --check) and the
 * exit code.
 */
#include "config.h"

#include "cmd.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-int.h"
#include "record/record.h"
#include "result/result.h"
#include "util/util.h"

/* record's options: the recording's, and what follows it */
struct record_cmd_opts {
	struct record_opts rec;
	bool no_report;		/* --no-report */
	bool no_tui;		/* --no-tui: text summary even on a terminal */
	struct check_cmd_opts *check;	/* --check 'SPEC', parsed by check's table */
	unsigned repeat;	/* --repeat N (with --check) */
};

/* --check 'SPEC': check's options, parsed now by check's own table */
static int opt_check(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct record_cmd_opts *ro = base;

	(void)opt;
	check_cmd_opts__delete(ro->check);
	ro->check = NULL;
	if (check_cmd_opts__new(&ro->check, arg) != 0) {
		*cause = xasprintf("'%s' is not a check (gexplore-check(1))", arg);
		return -1;
	}
	return 0;
}

/* record's options: the recording's (cmd-recopts.c), then what follows it */
static const struct cmd_option record_options[] = {
	CMD_OPT_INCLUDE(struct record_cmd_opts, rec, cmd_recopts_options),
	CMD_OPT_BOOL(0, "no-report", struct record_cmd_opts, no_report,
		     "gexplore -- CMD: record only, show nothing"),
	CMD_OPT_BOOL(0, "no-tui", struct record_cmd_opts, no_tui,
		     "gexplore -- CMD: the text summary even on a terminal"),
	CMD_OPT_CALLBACK(0, "check", "SPEC", opt_check,
			 "then check the result with these gexplore check options", NULL),
	CMD_OPT_UINT(0, "repeat", struct record_cmd_opts, repeat, "N",
		     "with --check: record N times and check the runs together", "1", 1, 1000,
		     "a number of runs"),
	CMD_OPT_END(),
};

/* stdout is stderr until stdout_back(): the workload's standard output
 * holds the workload's output alone. The saved stdout, or -1. */
static int stdout_to_stderr(void)
{
	int out;

	fflush(stdout);
	out = dup(STDOUT_FILENO);
	if (out >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	return out;
}

static void stdout_back(int out)
{
	if (out < 0)
		return;
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	close(out);
}

/*
 * After a recording: `gexplore -- CMD` shows it (the TUI on a terminal,
 * else the text summary) and --check checks it, both from one opened
 * result. ret is the workload's status; the check's replaces it when the
 * workload succeeded. CMD's standard output is its own (`gexplore -- xz
 * -c f > f.xz`, `record --check ... -- xz -c f > f.xz`): what gexplore
 * says, the check's verdict included, goes to stderr, as perf record's.
 */
static int after_record(struct record_cmd_opts *ro, const char *dir, bool then_report, int ret)
{
	bool show = then_report && !ro->no_report, check = ro->check && ret == GX_EXIT_OK;
	struct gx_result_opts oo = { .cpu = ro->rec.cpu };
	struct gx_result *res = NULL;
	char *cause = NULL;
	int out = -1;

#ifdef HAVE_NCURSESW
	if (show && !ro->no_tui && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
		if (tui_open_result(dir, NULL, ro->rec.cpu, NULL, NULL, NULL) == 128 + SIGINT)
			ret = 128 + SIGINT;	/* Ctrl-C in the TUI */
		show = false;
	}
#endif
	if (!show && !check)
		return ret;
	out = stdout_to_stderr();
	if (check)
		oo = *check_cmd_opts__open(ro->check);
	if (gx_result__open(&res, dir, &oo, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		ret = check ? GX_EXIT_USAGE : ret;
		goto out;
	}
	for (size_t i = 0; show && i < gx_result__nr_notes(res); i++)
		cmd_warn("%s", gx_result__note(res, i));
	if (show)
		report_print_recorded(res, !ro->rec.quiet);
	if (check)
		ret = check_run_result(ro->check, res);
	gx_result__delete(res);
out:
	stdout_back(out);
	return ret;
}

/* Record what ro says (with then_report, show the result after); argv is
 * the command line kept in perf.data. The exit code: the workload's
 * status, or the check's. */
static int record_run(struct record_cmd_opts *ro, bool then_report, int argc, char **argv)
{
	struct record_result res;
	char *cause = NULL;
	int err, ret;

	err = gx_record(&ro->rec, &cmd_record_notice, argc, argv, &res, &cause);
	if (err) {
		cmd_error("%s", cause);
		free(cause);
		if (!ro->rec.collect.argv && !ro->rec.collect.pid && !ro->rec.collect.system_wide)
			return cmd_usage(&cmd_record_entry);	/* nothing to record */
		return cmd_record_exit(err);
	}
	/* a third Ctrl-C: said, and nothing shown */
	ret = res.abandoned ? 128 + SIGINT :
	      res.err ? GX_EXIT_FAIL : after_record(ro, res.dir, then_report, res.status);
	record_result__exit(&res);
	return ret;
}

/* record --repeat N --check SPEC -- CMD: N runs, checked together */
static int record_repeat_check(struct record_cmd_opts *ro, int argc, char **argv)
{
	char *cause = NULL, **dirs = NULL;
	int err, ret;

	err = record_repeat(&ro->rec, ro->rec.collect.argv, ro->repeat,
			    check_cmd_opts__quiet(ro->check), &cmd_record_notice, argc, argv, &dirs,
			    &cause);
	if (err) {
		cmd_error("%s", cause);
		free(cause);
		ret = cmd_record_exit(err);
	} else {
		int out = stdout_to_stderr();

		ret = check_run(ro->check, dirs, ro->repeat);
		stdout_back(out);
	}
	for (unsigned k = 0; dirs && k < ro->repeat; k++)
		free(dirs[k]);
	free(dirs);
	return ret;
}

static int cmd_record_exec(int argc, char **argv)
{
	struct record_cmd_opts ro = { 0 };
	struct cmd_args a;
	char *cause = NULL;
	int ret;

	record_opts__init(&ro.rec);
	if (cmd_parse(&cmd_record_entry, &ro, argc, argv, &a)) {
		ret = a.exit;
		goto out;
	}
	ret = GX_EXIT_USAGE;
	if (record_opts__check(&ro.rec, &cause)) {
		cmd_error("%s", cause);
		free(cause);
		goto out;
	}
	ro.rec.collect.argv = a.argc ? a.argv : NULL;
	if (ro.repeat > 1 && !(ro.check && a.argc)) {
		cmd_error("--repeat N needs --check SPEC and a command");
		goto out;
	}
	if (ro.repeat <= 1)
		ret = record_run(&ro, !strcmp(argv[0], "run"), argc, argv);
	else
		ret = record_repeat_check(&ro, argc, argv);
out:
	check_cmd_opts__delete(ro.check);
	return ret;
}

const struct cmd_entry cmd_record_entry = {
	.name = "record", .usage = "[--] CMD [ARGS]",
	.exec = cmd_record_exec, .options = record_options, .max_args = -1, .stop_at_arg = true,
	.summary = "run a command under the performance counters and write a result",
};
