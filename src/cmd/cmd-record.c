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

struct record_sink {
	struct collect_sink sink;	/* first: collect calls us with this */
	struct perf_writer *w;
	uint64_t last_flush;		/* gx_now_ns() of the last round flushed */
	int err;
};

/* A failed write (full disk) does not stop the drain: the workload runs on
 * either way, and the writer counts every record after it as dropped. */
static int sink_record(struct collect_sink *s, const void *rec, size_t len)
{
	struct record_sink *rs = (struct record_sink *)s;
	int err = perf_writer__write(rs->w, rec, len);

	if (err && !rs->err)
		rs->err = err;
	return 0;
}

/* How often the file is brought up to date (FINISHED_ROUND, flush, header
 * data size): what a killed recording keeps. Multiplexing drains every
 * slice (10 ms); flushing that often cost it several points of overhead. */
#define RECORD_FLUSH_NS (100 * 1000000ULL)

static int sink_round_end(struct collect_sink *s)
{
	struct record_sink *rs = (struct record_sink *)s;
	uint64_t now = gx_now_ns();
	int err;

	if (now - rs->last_flush < RECORD_FLUSH_NS)
		return 0;
	rs->last_flush = now;
	err = perf_writer__finished_round(rs->w);
	if (err && !rs->err)
		rs->err = err;
	return 0;
}

/* The workload's markers into DIR/regions.bin (gexplore-regions(3)). */
struct record_markers {
	struct collect_marker_sink sink;	/* first */
	struct pd_regions_writer *w;
	uint64_t lost;
	bool finished;
};

static int markers_add(struct collect_marker_sink *k, const struct collect_marker *m)
{
	struct record_markers *rm = (struct record_markers *)k;

	return pd_regions_writer__add(rm->w, m->time, m->pid, m->tid, m->kind, m->depth, m->name);
}

static int markers_flush(struct collect_marker_sink *k, uint64_t lost)
{
	struct record_markers *rm = (struct record_markers *)k;

	rm->lost = lost;
	rm->finished = true;
	return 0;
}

/* After the run: the header's counts, or no file at all when the workload
 * sent no marker (it does not use gexplore-regions(3)). */
static void markers_finish(struct record_markers *rm, int dirfd, uint64_t nr, struct gx_meta *m)
{
	char *cause = NULL;

	if (!rm->w)
		goto out;
	if (pd_regions_writer__finish(rm->w, rm->lost, &cause) != 0)
		gx_meta__add_warning(m, "regions: %s", cause);
	pd_regions_writer__delete(rm->w);
	rm->w = NULL;
	m->markers = nr;
	m->markers_lost = rm->lost;
	if (!nr && !rm->lost)
		unlinkat(dirfd, PD_REGIONS_FILE, 0);
	else if (rm->lost)
		gx_meta__add_warning(m, "regions: %" PRIu64 " markers lost (the ring of 32768 "
				     "filled between two drains, or regions nested deeper than 64)",
				     rm->lost);
out:
	free(cause);
}

static char *encoding_of(const struct perf_event_attr *a)
{
	if (a->config1 || a->config2)
		return xasprintf("type=%u config=0x%" PRIx64 " config1=0x%" PRIx64
				 " config2=0x%" PRIx64, a->type, (uint64_t)a->config,
				 (uint64_t)a->config1, (uint64_t)a->config2);
	return xasprintf("type=%u config=0x%" PRIx64, a->type, (uint64_t)a->config);
}

static double rusage_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The kernel's share of the overhead: the samples written times what one
 * costs the workload, from the cache of this machine and kernel, else
 * calibrated now (after self_cpu_s is taken: the calibration is no part
 * of the run). */
static void sampling_cost(struct gx_meta *m, const struct collect_session *s,
			  const struct pd_env *env)
{
	char *dir = gx_cache_dir();
	char *machine = xasprintf("%s %s; %s %s", env->cpuid ? env->cpuid : "?",
				  env->cpudesc ? env->cpudesc : "?", env->arch ? env->arch : "?",
				  env->osrelease ? env->osrelease : "?");
	enum collect_cost_from from;

	m->sample_records = collect_session__stats(s)->samples;
	if (collect_session__sample_cost(s, dir, machine, &m->sample_cost_ns, &from) == 0) {
		m->sampling_s = (double)m->sample_records * m->sample_cost_ns / 1e9;
		m->sample_cost_from = xstrdup(from == COLLECT_COST_CACHED ? GX_META_COST_CACHED :
							GX_META_COST_MEASURED);
	}
	free(machine);
	free(dir);
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

/* Open --control's channel: perf's spelling, fifo:CTL[,ACK] (FIFOs that
 * exist) or fd:N[,M] (inherited descriptors). */
static int open_control(const char *spec, struct collect_opts *o, char **cause)
{
	bool fifo = !strncmp(spec, "fifo:", 5);
	char *s = xstrdup(spec + (fifo ? 5 : 3)), *ack = strchr(s, ',');
	int ret = -1;

	if (ack)
		*ack++ = 0;
	o->ack_fd = -1;
	if (fifo) {
		o->ctl_fd = open(s, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (o->ctl_fd < 0) {
			*cause = xasprintf("--control: cannot open %s: %s", s, strerror(errno));
			goto out;
		}
		if (ack && (o->ack_fd = open(ack, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
			*cause = xasprintf("--control: cannot open %s: %s", ack, strerror(errno));
			close(o->ctl_fd);
			goto out;
		}
	} else {
		uint64_t a, b = 0;

		if (cmd_parse_u64(s, 0, INT_MAX, &a) || (ack && cmd_parse_u64(ack, 0, INT_MAX, &b))) {
			*cause = xasprintf("--control fd:N[,M]: expected descriptors, got '%s'", spec);
			goto out;
		}
		o->ctl_fd = (int)a;
		o->ack_fd = ack ? (int)b : -1;
		fcntl(o->ctl_fd, F_SETFL, fcntl(o->ctl_fd, F_GETFL) | O_NONBLOCK);
	}
	o->has_control = true;
	ret = 0;
out:
	free(s);
	return ret;
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

void record_opts__init(struct record_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->collect.rate = 1.0;
	ro->collect.stack_size = 8192;
}

int record_opts__check(const struct record_opts *ro, char **cause)
{
	const struct collect_opts *o = &ro->collect;

	if (o->sav && o->freq) {
		*cause = xstrdup("-c and -F exclude each other: choose a sample-after value or a frequency");
		return -1;
	}
	if (o->pid && o->system_wide) {
		*cause = xstrdup("-p and -a exclude each other");
		return -1;
	}
	return 0;
}

/*
 * Without -e: every event of this CPU's top-down model (or --cpu's), packed
 * by the multiplexing planner into groups that fit the counters; the
 * groups then rotate (src/mux). The generic model and a failed load leave
 * *spec NULL: the collector's own default (cycles,instructions, or
 * cpu-clock without a PMU).
 */
static void model_events(const struct record_opts *ro, struct gx_meta *m, char **spec)
{
	struct td_model *model = NULL;
	struct td_ctx ctx = { .smt = td_smt_detect() };
	struct mux_counters counters;
	struct mux_plan plan;
	char *id = ro->cpu ? xstrdup(ro->cpu) : td_detect_model(), *cause = NULL;

	*spec = NULL;
	if (td_model__load(id, NULL, &model, &cause) != 0) {
		gx_meta__add_warning(m, "no top-down model: %s", cause);
		goto out;
	}
	m->cpu_model = xstrdup(td_model__id(model));
	if (!ro->cpu) {		/* this CPU's revision picks the formulas (N2 r0p3) */
		struct td_cpu c;

		td_cpu_detect(&c);
		ctx.variant = td_model__cpu_variant(model, &c);
		if (ctx.variant)
			m->cpu_variant = xstrdup(ctx.variant);
	}
	if (!strcmp(td_model__id(model), "generic"))
		goto out;
	mux_counters__detect(&counters, model, ctx.smt == TD_SMT_ON, mux_nmi_watchdog_active(),
			     !ro->cpu);
	if (mux_plan__model(&plan, model, &ctx, &counters, &cause) != 0) {
		gx_meta__add_warning(m, "model %s: no plan for its events: %s", td_model__id(model),
				     cause);
		goto out;
	}
	*spec = mux_plan__spec(&plan, model, MUX_SPELL_COLLECT);
	for (char **h = plan.hints; h && *h; h++)
		gx_meta__add_warning(m, "%s", *h);
	mux_plan__exit(&plan);
out:
	free(cause);
	free(id);
	td_model__delete(model);
}

/* Fill the meta from the session and the run. */
static void fill_meta(struct gx_meta *m, const struct collect_session *s, const struct record_opts *ro,
		      const struct pd_env *env)
{
	const struct collect_opts *o = &ro->collect;
	const struct collect_stats *st = collect_session__stats(s);

	m->gexplore_version = xstrdup(PACKAGE_VERSION);
	if (o->argv && o->argv[0]) {
		while (o->argv[m->argc])
			m->argc++;
		m->argv = xcalloc(m->argc + 1, sizeof(*m->argv));
		for (uint32_t i = 0; i < m->argc; i++)
			m->argv[i] = xstrdup(o->argv[i]);
	}
	m->target_pid = o->pid;
	m->system_wide = o->system_wide;
	m->exited = st->exited;
	m->exit_code = st->exit_code;
	m->term_signal = st->term_signal;
	m->cpu_desc = env->cpudesc ? xstrdup(env->cpudesc) : NULL;
	{
		enum td_smt smt = td_smt_detect();	/* the SMT formulas at report time */

		m->smt = smt == TD_SMT_ON ? 1 : smt == TD_SMT_OFF ? 0 : -1;
	}
	m->pmu = collect_session__has_pmu(s);
	m->callgraph = o->callgraph == COLLECT_CG_FP ? xstrdup("fp") :
		       o->callgraph == COLLECT_CG_DWARF ? xasprintf("dwarf,%u", o->stack_size) :
							  xstrdup("none");
	m->rate = o->rate;
	m->nr_events = collect_session__nr_events(s);
	m->events = xcalloc(m->nr_events + 1, sizeof(*m->events));
	for (size_t i = 0; i < m->nr_events; i++) {
		const struct collect_event *ce = collect_session__event(s, i);
		struct gx_meta_event *e = &m->events[i];

		e->name = xstrdup(ce->name);
		e->encoding = encoding_of(&ce->attr);
		if (ce->attr.freq)
			e->freq = (uint32_t)ce->attr.sample_freq;
		else
			e->sav = ce->attr.sample_period;
		e->precise = ce->attr.precise_ip;
		e->group = ce->group;
		e->has_count = ce->has_count;
		e->count = ce->count;
		e->time_enabled = ce->time_enabled;
		e->time_running = ce->time_running;
		if (collect_pmu_lacks_event(&ce->attr)) {
			e->unsupported = true;
			gx_meta__add_warning(m, "%s: this CPU's PMU does not implement it (not in "
					     "its sysfs events/); it read 0 and its metrics are n/a",
					     ce->name);
		}
	}
	m->start_ns = st->start_ns;
	m->end_ns = st->end_ns;
	m->duration_s = st->end_ns > st->start_ns ? (double)(st->end_ns - st->start_ns) / 1e9 : 0;
	m->lost_records = st->lost_records;
	m->lost_events = st->lost_events;
	for (size_t i = 0; i < collect_session__nr_warnings(s); i++)
		gx_meta__add_warning(m, "%s", collect_session__warning(s, i));
	if (st->lost_records)
		gx_meta__add_warning(m, "%" PRIu64 " events lost in %" PRIu64
				     " LOST records: the ring buffers overflowed; "
				     "raise -m or lower the rate",
				     st->lost_events, st->lost_records);
}

/* GROUP_DESC entries from the events' group indexes. */
static void fill_groups(struct pd_env *env, const struct collect_session *s)
{
	size_t n = collect_session__nr_events(s);

	for (size_t i = 0; i < n; i++) {
		const struct collect_event *e = collect_session__event(s, i);
		uint32_t members = 0;

		if (!e->leader || e->group < 0)
			continue;
		for (size_t j = i; j < n; j++)
			if (collect_session__event(s, j)->group == e->group)
				members++;
		env->groups = xrealloc(env->groups, (env->nr_groups + 1) * sizeof(*env->groups));
		env->groups[env->nr_groups].name = xstrdup("");
		env->groups[env->nr_groups].leader_idx = (uint32_t)i;
		env->groups[env->nr_groups].nr_members = members;
		env->nr_groups++;
	}
}

/* Build ids of the files samples hit, read back from what was written. */
static void add_build_ids(const char *data, struct pd_env *env, struct gx_meta *m)
{
	char *cause = NULL;

	if (pd_collect_build_ids_file(data, env, &cause) != 0)
		gx_meta__add_warning(m, "build ids not collected: %s", cause);
	free(cause);
}

/*
 * After a recording: `gexplore -- CMD` shows it (the TUI on a terminal,
 * else the text summary) and --check checks it, both from one opened
 * result. ret is the workload's status; the check's replaces it when the
 * workload succeeded.
 */
static int after_record(struct record_opts *ro, const char *dir, bool then_report, int ret)
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

/* collect's notice: said even with -q, as the answer to a second Ctrl-C. */
static void record_notice(void *arg, const char *msg)
{
	(void)arg;
	cmd_warn("%s", msg);
}

/* How a recording that wrote everything ended (meta.json's status): a
 * signal caught while a workload ran interrupted it; with -p or -a, SIGINT
 * is how a recording ends. */
static const char *run_status(const struct collect_session *s)
{
	const struct collect_stats *st = collect_session__stats(s);

	if (st->stop_signal == SIGTERM || st->stop_signal == SIGHUP)
		return GX_META_STATUS_KILLED;
	if (st->stop_signal && st->child)
		return GX_META_STATUS_INTERRUPTED;
	return GX_META_STATUS_COMPLETE;
}

/* One recording's state, from the result directory to meta.json. */
struct record_state {
	struct record_opts ro;
	struct collect_session *s;
	struct perf_writer *w;
	struct record_sink rs;
	struct pd_env env;
	struct gx_meta meta;
	struct record_mux *rm;
	struct record_markers mk;
	struct pd_evsel *evsels;
	char *dir, *data, *model_spec;
	int dfd;
	size_t nw;			/* meta's warnings before the model's */
	double cpu0;			/* gexplore's CPU time at the start */
};

static void record_state__exit(struct record_state *r)
{
	perf_writer__delete(r->w);
	collect_session__delete(r->s);
	pd_regions_writer__delete(r->mk.w);
	if (r->ro.collect.has_control && !strncmp(r->ro.control, "fifo:", 5)) {
		close(r->ro.collect.ctl_fd);
		if (r->ro.collect.ack_fd >= 0)
			close(r->ro.collect.ack_fd);
	}
	record_mux__delete(r->rm);
	pd_env__exit(&r->env);
	gx_meta__exit(&r->meta);
	free(r->evsels);
	free(r->model_spec);
	if (r->dfd >= 0)
		close(r->dfd);	/* lets go of the result directory's lock */
	free(r->dir);
	free(r->data);
}

/* The result directory, the events (the model's by default), the
 * multiplexing plan, --control and the markers' file. 0 or an exit code. */
static int record_prepare(struct record_state *r)
{
	struct record_opts *ro = &r->ro;
	char *cause = NULL;
	int ret;

	if (pd_result_dir__create(ro->output, ".", ro->force ? PD_RESULT_DIR_REUSE : 0, &r->dir,
				  &r->dfd, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return GX_EXIT_FAIL;
	}
	r->data = xasprintf("%s/perf.data", r->dir);
	if (!ro->collect.events) {
		r->nw = r->meta.nr_warnings;
		model_events(ro, &r->meta, &r->model_spec);
		ro->collect.events = r->model_spec;
	}
	ret = record_mux__setup(&r->rm, ro, r->dir, r->dfd);
	if (ret) {
		pd_result_dir__discard(r->dfd, r->dir);
		return ret;
	}
	if (ro->control && open_control(ro->control, &ro->collect, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		pd_result_dir__discard(r->dfd, r->dir);
		return GX_EXIT_USAGE;
	}
	if (ro->collect.argv && !ro->collect.pid) {
		if (pd_regions_writer__new(&r->mk.w, r->dfd, PD_REGIONS_FILE, &cause) == 0)
			ro->collect.marker_sink = &r->mk.sink;
		else if (!ro->quiet)
			cmd_warn("%s: the workload's markers are not recorded", cause);
		free(cause);
	}
	return 0;
}

/* No PMU here: the collector's default says so and falls back to
 * cpu-clock, which does not rotate; what the model's plan said no longer
 * applies. */
static void record_no_model(struct record_state *r)
{
	struct record_opts *ro = &r->ro;

	record_mux__delete(r->rm);
	r->rm = NULL;
	free(r->model_spec);
	r->model_spec = NULL;
	ro->collect.events = NULL;
	ro->collect.rotate = false;
	ro->collect.slice_sink = NULL;
	free(r->meta.cpu_variant);
	r->meta.cpu_variant = NULL;
	while (r->meta.nr_warnings > r->nw)
		free(r->meta.warnings[--r->meta.nr_warnings]);
}

/* Open the events (falling back to cpu-clock without a PMU) and
 * perf.data. 0 or an exit code. */
static int record_open(struct record_state *r)
{
	struct record_opts *ro = &r->ro;
	char *cause = NULL;
	size_t nev;
	int err;

	ro->collect.notice = record_notice;
	/* Known before anything starts (a session starts the workload): no
	 * first session to open the model's events, fail and be torn down */
	if (r->model_spec && collect_no_pmu())
		record_no_model(r);
	err = collect_session__new(&r->s, &ro->collect, &cause);
	if (err == GX_E_NOPMU && r->model_spec) {
		record_no_model(r);
		free(cause);
		cause = NULL;
		err = collect_session__new(&r->s, &ro->collect, &cause);
	}
	if (err) {
		cmd_error("%s", cause);
		free(cause);
		/* the failed session wrote nothing into regions.bin */
		markers_finish(&r->mk, r->dfd, 0, &r->meta);
		pd_result_dir__discard(r->dfd, r->dir);
		return (err == GX_E_EVENT || err == GX_E_USAGE) ? GX_EXIT_USAGE :
		       err == GX_E_CHILD ? 127 : GX_EXIT_FAIL;
	}
	for (size_t i = 0; i < collect_session__nr_warnings(r->s); i++)
		if (!ro->quiet)
			cmd_warn("%s", collect_session__warning(r->s, i));
	nev = collect_session__nr_events(r->s);
	r->evsels = xcalloc(nev + 1, sizeof(*r->evsels));
	for (size_t i = 0; i < nev; i++) {
		const struct collect_event *ce = collect_session__event(r->s, i);

		r->evsels[i].attr = ce->attr;
		r->evsels[i].name = ce->name;
		r->evsels[i].ids = ce->ids;
		r->evsels[i].nr_ids = ce->nr_ids;
	}
	if (perf_writer__new_at(&r->w, r->dfd, "perf.data", r->evsels, nev, &cause) != 0) {
		cmd_error("%s: %s", r->dir, cause);
		free(cause);
		pd_result_dir__discard(r->dfd, r->dir);
		return GX_EXIT_FAIL;
	}
	r->rs.w = r->w;
	return 0;
}

/* After the run: perf.data finished (or left as flushed when the disk
 * refused a write), build-ids, the archive, the markers, the mux section
 * and meta.json. Returns err, or the first failure of these. */
static int record_finish(struct record_state *r, int err, int argc, char **argv)
{
	const struct collect_stats *st = collect_session__stats(r->s);
	struct gx_meta *m = &r->meta;
	char *cause = NULL;

	if (r->rs.err)
		err = err ? err : r->rs.err;	/* said by record_say, with the records dropped */
	pd_env__from_system(&r->env, argc, argv);
	fill_groups(&r->env, r->s);
	fill_meta(m, r->s, &r->ro, &r->env);
	if (r->rs.err) {
		/* The disk refused a write: leave perf.data as flushed (its
		 * header covers every complete record) rather than append
		 * features that cannot be written either. */
		gx_meta__add_warning(m, "recording stopped early: writing perf.data: %s",
				     gx_strerror(r->rs.err));
		m->status = xstrdup(r->rs.err == -ENOSPC || r->rs.err == -EDQUOT ?
				    GX_META_STATUS_NOSPACE : GX_META_STATUS_WRITE_ERROR);
	} else {
		perf_writer__flush(r->w);
		add_build_ids(r->data, &r->env, m);
		if (perf_writer__finish(r->w, &r->env, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			cause = NULL;
			err = err ? err : -EIO;
		}
		if (!r->ro.no_archive)
			record_archive(r->dir, &r->env, r->ro.archive_max, r->ro.quiet, m);
	}
	m->dropped_records = perf_writer__dropped(r->w);
	if (!m->status)
		m->status = xstrdup(err ? GX_META_STATUS_FAILED : run_status(r->s));
	perf_writer__delete(r->w);
	r->w = NULL;
	markers_finish(&r->mk, r->dfd, st->markers, m);
	if (r->rm && record_mux__finish(r->rm, r->s, m, r->dir, r->ro.quiet) != 0)
		err = err ? err : -EIO;
	m->self_cpu_s = rusage_cpu_s() - r->cpu0;
	sampling_cost(m, r->s, &r->env);
	if (gx_meta__write_at(m, r->dfd, r->dir, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		err = err ? err : -EIO;
	}
	return err;
}

/* The last line: what was recorded, or why the result is incomplete;
 * never "recorded ...: 0 lost" for a cut-short result. */
static void record_say(const struct record_state *r)
{
	const struct collect_stats *st = collect_session__stats(r->s);
	const struct gx_meta *m = &r->meta;
	char *incomplete = gx_meta__incomplete(m);

	if (r->rs.err)
		cmd_error("writing %s: %s; the result keeps the records written so far: %" PRIu64
			  " written, %" PRIu64 " dropped, %" PRIu64 " lost", r->data,
			  gx_strerror(r->rs.err), st->records - m->dropped_records,
			  m->dropped_records, st->lost_events);
	else if (incomplete)
		fprintf(stderr, "gexplore: %s is incomplete (%s): %" PRIu64 " records written, %"
				PRIu64 " dropped, %" PRIu64 " lost\n", gx_esc(r->dir), incomplete,
			st->records - m->dropped_records, m->dropped_records, st->lost_events);
	else if (!r->ro.quiet)
		fprintf(stderr, "gexplore: recorded %s: %" PRIu64 " records, %" PRIu64
				" lost; 'gexplore report %s' to see it again\n",
			gx_esc(r->dir), st->records, st->lost_events, gx_esc(r->dir));
	free(incomplete);
}

/* The workload's status is ours (128+N when killed by signal N). */
static int workload_status(const struct collect_session *s)
{
	const struct collect_stats *st = collect_session__stats(s);

	if (st->term_signal)
		return 128 + st->term_signal;
	return st->exited ? st->exit_code : GX_EXIT_OK;
}

int record_run(const struct record_opts *opts, bool then_report, int argc, char **argv)
{
	struct record_state r = { .ro = *opts, .dfd = -1,
				  .rs = { .sink = { sink_record, sink_round_end } },
				  .mk = { .sink = { markers_add, markers_flush } } };
	char *cause = NULL;
	int err, ret;

	if (!r.ro.collect.argv && !r.ro.collect.pid && !r.ro.collect.system_wide) {
		cmd_error("nothing to record: give a command after '--', or -p PID, or -a");
		return cmd_usage(&cmd_record_entry);
	}
	if (r.ro.collect.argv && r.ro.collect.pid) {
		cmd_error("-p attaches to a running process: give no command with it");
		return GX_EXIT_USAGE;
	}
	gx_meta__init(&r.meta);
	r.cpu0 = rusage_cpu_s();
	ret = record_prepare(&r);
	if (!ret)
		ret = record_open(&r);
	if (ret)
		goto out;
	err = collect_session__run(r.s, &r.rs.sink, &cause);
	if (err)	/* keep what was recorded: flush and finish as far as possible */
		cmd_error("%s", cause ? cause : gx_strerror(err));
	if (r.rs.err && !perf_writer__has_data(r.w)) {
		/* nothing reached the disk: no result to keep */
		cmd_error("writing %s: %s; nothing was recorded (%" PRIu64 " records dropped)",
			  r.data, gx_strerror(r.rs.err), perf_writer__dropped(r.w));
		perf_writer__delete(r.w);
		r.w = NULL;
		pd_result_dir__discard(r.dfd, r.dir);
		ret = GX_EXIT_FAIL;
		goto out;
	}
	err = record_finish(&r, err, argc, argv);
	record_say(&r);
	ret = err ? GX_EXIT_FAIL : after_record(&r.ro, r.dir, then_report, workload_status(r.s));
out:
	record_state__exit(&r);
	free(cause);
	return ret;
}

int record_repeat(const struct record_opts *ro, char *const *cmd, unsigned n, bool quiet,
		  int argc, char **argv, char ***dirs_out)
{
	char **dirs = xcalloc(n + 1, sizeof(char *));
	int ret = GX_EXIT_OK;

	for (unsigned k = 0; k < n; k++) {
		struct record_opts r = *ro;
		char *cause = NULL;
		int rc;

		if (pd_result_dir__create(NULL, ".", 0, &dirs[k], NULL, &cause)) {
			cmd_error("%s", cause);
			free(cause);
			ret = GX_EXIT_FAIL;
			break;
		}
		/* each run its own new result, recorded only */
		r.output = dirs[k];
		r.force = false;
		r.quiet = true;
		r.no_report = true;
		r.check = NULL;
		r.repeat = 0;
		r.collect.argv = cmd;
		if (!quiet)
			fprintf(stderr, "gexplore: check: run %u/%u -> %s\n", k + 1, n,
				gx_esc(dirs[k]));
		rc = record_run(&r, false, argc, argv);
		if (rc != 0) {
			cmd_error("check: run %u of '%s' exited with status %d; not checking it", k + 1,
				  cmd[0], rc);
			ret = GX_EXIT_USAGE;
			break;
		}
	}
	*dirs_out = dirs;
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
