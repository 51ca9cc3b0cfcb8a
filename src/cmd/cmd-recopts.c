/*
 * cmd-recopts.c: the options of a recording. `gexplore record` includes
 * them in its table, and `check --record 'OPTS'` parses OPTS with them
 * (cmd_recopts_entry); their target is a struct record_opts (src/record).
 * Also how a recording's notices are printed, and the exit code of its
 * error, for both.
 */
#include "config.h"

#include "cmd.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-int.h"
#include "record/record.h"
#include "util/util.h"

/* --model, --model=NAME|FILE: the machine description (src/model) */
static int opt_model(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct record_opts *ro = base;

	(void)opt;
	if (arg && !*arg) {
		*cause = xstrdup("give a machine description's name or file after '='");
		return -1;
	}
	ro->model = true;
	ro->model_machine = arg;
	return 0;
}

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

/* -b: every taken branch; -j/--branch-filter: perf's modes (issue 42) */
static int opt_branch_any(const struct cmd_option *opt, void *base, const char *arg,
			  char **cause)
{
	(void)opt;
	(void)arg;
	return collect_branch_filter("any", &((struct record_opts *)base)->collect.branch_sample_type,
				     cause);
}

static int opt_branch_filter(const struct cmd_option *opt, void *base, const char *arg,
			     char **cause)
{
	(void)opt;
	return collect_branch_filter(arg, &((struct record_opts *)base)->collect.branch_sample_type,
				     cause);
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

const struct cmd_option cmd_recopts_options[] = {
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
	CMD_OPT_CALLBACK('b', "branch-any", NULL, opt_branch_any,
			 "record branch stacks of every taken branch (--branch-filter any)", NULL),
	CMD_OPT_CALLBACK('j', "branch-filter", "MODE[,MODE]", opt_branch_filter,
			 "record branch stacks of these branches: any, any_call, any_ret, cond, "
			 "ind_call, call, u, k, ...", "none"),
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
	CMD_OPT_BOOL(0, "off-cpu", struct record_opts, collect.off_cpu,
		     "record off-CPU time: context switches, and what each wait was on"),
	CMD_OPT_UINT(0, "off-cpu-min", struct record_opts, off_cpu_min_us, "USEC",
		     "leave waits shorter than USEC out of stacks (their time still counts)", "0",
		     0, 1000000000, "microseconds"),
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
	CMD_OPT_CALLBACK_OPTARG("model", "NAME|FILE", opt_model, NULL,
				"no PMU needed: run under Valgrind, exact counts, cycles modelled "
				"with machine description NAME or FILE (this CPU's)"),
	CMD_OPT_BOOL(0, "keep-valgrind", struct record_opts, keep_valgrind,
		     "with --model: keep Valgrind's raw files in the result (mode 0600)"),
	CMD_OPT_DOUBLE(0, "duration", struct record_opts, duration_s, "SECONDS",
		       "with --model: stop the workload after SECONDS (SIGTERM), model what ran",
		       "until it exits", 0.001, 1e9, "seconds"),
	CMD_OPT_BOOL(0, "mem", struct record_opts, collect.mem,
		     "sample loads and stores: latency, data source and address (Intel "
		     "load latency, AMD IBS op)"),
	CMD_OPT_BOOL('d', "data", struct record_opts, collect.data_addr,
		     "every sample carries the data address it touched"),
	CMD_OPT_UINT(0, "ldlat", struct record_opts, ldlat, "CYCLES",
		     "with --mem, sample the loads slower than CYCLES", "30", 1, 65535,
		     "a number of cycles"),
	CMD_OPT_BOOL('q', "quiet", struct record_opts, quiet, "no warnings and summary line"),
	CMD_OPT_END(),
};

const struct cmd_entry cmd_recopts_entry = {
	.name = "record", .options = cmd_recopts_options, .max_args = 0,
	.summary = "the options of a recording",
};

static void say(void *arg, enum record_level level, const char *msg)
{
	(void)arg;
	if (level == RECORD_WARN)
		cmd_warn("%s", msg);
	else
		cmd_error("%s", msg);	/* "gexplore: MSG", errors and the rest alike */
}

const struct record_notice cmd_record_notice = { .say = say };

int cmd_record_exit(int err)
{
	if (err == GX_E_USAGE || err == GX_E_EVENT)
		return GX_EXIT_USAGE;
	return err == GX_E_CHILD ? 127 : GX_EXIT_FAIL;
}
