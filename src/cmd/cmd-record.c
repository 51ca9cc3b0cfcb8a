/*
 * gexplore record [options] -- CMD [ARGS]   record only
 * gexplore [options] -- CMD [ARGS]          record, then print the summary
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <getopt.h>
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
#include "mux/mux.h"
#include "topdown/topdown.h"
#include "util/util.h"

struct record_sink {
	struct collect_sink sink;	/* first: collect calls us with this */
	struct perf_writer *w;
	uint64_t last_flush;		/* gx_now_ns() of the last round flushed */
	int err;
};

static int sink_record(struct collect_sink *s, const void *rec, size_t len)
{
	struct record_sink *rs = (struct record_sink *)s;

	rs->err = perf_writer__write(rs->w, rec, len);
	return rs->err;
}

/* How often the file is brought up to date (FINISHED_ROUND, flush, header
 * data size): what a killed recording keeps. Multiplexing drains every
 * slice (10 ms); flushing that often cost it several points of overhead. */
#define RECORD_FLUSH_NS (100 * 1000000ULL)

static int sink_round_end(struct collect_sink *s)
{
	struct record_sink *rs = (struct record_sink *)s;
	uint64_t now = gx_now_ns();

	if (now - rs->last_flush < RECORD_FLUSH_NS)
		return 0;
	rs->last_flush = now;
	rs->err = perf_writer__finished_round(rs->w);
	return rs->err;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*out = v;
	return 0;
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

static const char *const record_usage_text =
	"[-o DIR] [-f] [-e EVENTS] [-c SAV | -F HZ] [--rate X] [-g | --call-graph fp|dwarf[,SIZE]]\n"
	"                [--cpu MODEL] [-p PID | -a] [-m PAGES] [--no-inherit] [--no-report] [--no-tui]\n"
	"                [--slice MS] [--mux=gexplore|kernel] [--mux-runs]\n"
	"                [--check 'CHECK-OPTIONS' [--repeat N]] -- CMD [ARGS]";

/* Parse the record options into o; returns the index of the first
 * non-option argument, or -1 after printing an error. */
static int parse_record_opts(int argc, char **argv, struct record_opts *ro)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "rate", required_argument, NULL, 'R' },
		{ "call-graph", required_argument, NULL, 'G' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "no-inherit", no_argument, NULL, 'I' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "no-report", no_argument, NULL, 'N' },
		{ "no-tui", no_argument, NULL, 'U' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "slice", required_argument, NULL, 1001 },
		{ "mux", required_argument, NULL, 1002 },
		{ "mux-runs", no_argument, NULL, 1003 },
		{ "check", required_argument, NULL, 'K' },
		{ "repeat", required_argument, NULL, 'Y' },
		{ NULL, 0, NULL, 0 },
	};
	struct collect_opts *o = &ro->collect;
	uint64_t v;
	int c;

	o->rate = 1.0;
	o->stack_size = 8192;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:fe:c:F:gp:am:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			ro->output = optarg;
			break;
		case 'f':
			ro->force = true;
			break;
		case 'e':
			o->events = optarg;
			break;
		case 'c':
			if (parse_u64(optarg, &o->sav) || !o->sav) {
				cmd_error("-c: '%s' is not a positive sample-after value", optarg);
				return -1;
			}
			break;
		case 'F':
			if (parse_u64(optarg, &v) || !v || v > 1000000) {
				cmd_error("-F: '%s' is not a frequency in Hz (1..1000000)", optarg);
				return -1;
			}
			o->freq = (uint32_t)v;
			break;
		case 'R': {
			char *end;

			o->rate = strtod(optarg, &end);
			if (*end || end == optarg || !(o->rate > 0) || o->rate > 1e6) {
				cmd_error("--rate: '%s' is not a positive factor", optarg);
				return -1;
			}
			break;
		}
		case 'g':
			o->callgraph = COLLECT_CG_FP;
			break;
		case 'G':
			if (!strcmp(optarg, "fp")) {
				o->callgraph = COLLECT_CG_FP;
			} else if (!strncmp(optarg, "dwarf", 5) && (!optarg[5] || optarg[5] == ',')) {
				o->callgraph = COLLECT_CG_DWARF;
				if (optarg[5]) {
					if (parse_u64(optarg + 6, &v) || v < 8 || v > 65528 || v % 8) {
						cmd_error("--call-graph dwarf,SIZE: SIZE must be a multiple of 8 in 8..65528, not '%s'",
							  optarg + 6);
						return -1;
					}
					o->stack_size = (uint32_t)v;
				}
			} else {
				cmd_error("--call-graph: '%s' is not fp or dwarf[,SIZE]", optarg);
				return -1;
			}
			break;
		case 'p':
			if (parse_u64(optarg, &v) || !v || v > INT_MAX) {
				cmd_error("-p: '%s' is not a process id", optarg);
				return -1;
			}
			o->pid = (pid_t)v;
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'm':
			if (parse_u64(optarg, &v) || !v || v > (1u << 20) || (v & (v - 1))) {
				cmd_error("-m: '%s' is not a power of two number of pages", optarg);
				return -1;
			}
			o->mmap_pages = (uint32_t)v;
			break;
		case 'I':
			o->no_inherit = true;
			break;
		case 'C':
			ro->cpu = optarg;
			break;
		case 'N':
			ro->no_report = true;
			break;
		case 'U':
			ro->no_tui = true;
			break;
		case 'q':
			ro->quiet = true;
			break;
		case 1001:
			if (parse_u64(optarg, &v) || !v || v > 10000) {
				cmd_error("--slice: '%s' is not a slice length in ms (1..10000)", optarg);
				return -1;
			}
			ro->slice_ms = (uint32_t)v;
			break;
		case 1002:
			ro->mux = optarg;
			break;
		case 1003:
			ro->mux_runs = true;
			break;
		case 'K':	/* gexplore-check(1) */
			ro->check = optarg;
			break;
		case 'Y':
			if (parse_u64(optarg, &v) || !v || v > 1000) {
				cmd_error("--repeat: '%s' is not a number of runs (1..1000)", optarg);
				return -1;
			}
			ro->repeat = (unsigned)v;
			break;
		case 'h':
			printf("usage: gexplore record %s\n", record_usage_text);
			ro->help = true;
			return optind;
		default:
			if (optopt && strchr("oecFpm", optopt))
				cmd_error("option -%c needs an argument", optopt);
			else if (optopt)
				cmd_error("unknown option -%c", optopt);
			else
				cmd_error("unknown option '%s'", argv[optind - 1]);
			return -1;
		}
	}
	if (o->sav && o->freq) {
		cmd_error("-c and -F exclude each other: choose a sample-after value or a frequency");
		return -1;
	}
	if (o->pid && o->system_wide) {
		cmd_error("-p and -a exclude each other");
		return -1;
	}
	return optind;
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
		char *smt = gx_read_file("/sys/devices/system/cpu/smt/active", 16);

		m->smt = smt ? (smt[0] == '1') : -1;
		free(smt);
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

int record_run(int argc, char **argv, bool then_report)
{
	struct record_opts ro = { 0 };
	struct collect_session *s = NULL;
	struct perf_writer *w = NULL;
	struct pd_evsel *evsels = NULL;
	struct record_sink rs = { .sink = { sink_record, sink_round_end } };
	struct pd_env env = { 0 };
	struct gx_meta meta;
	struct record_mux *rm = NULL;
	char *dir = NULL, *data = NULL, *cause = NULL, *model_spec = NULL;
	const struct collect_stats *st;
	size_t nev, nw = 0;
	int idx, err, ret = GX_EXIT_FAIL;
	double cpu0;

	gx_meta__init(&meta);
	idx = parse_record_opts(argc, argv, &ro);
	if (idx < 0)
		return GX_EXIT_USAGE;
	if (ro.help)
		return GX_EXIT_OK;
	if (ro.repeat > 1 && !(ro.check && idx < argc)) {
		cmd_error("--repeat N needs --check SPEC and a command");
		return GX_EXIT_USAGE;
	}
	if (ro.repeat > 1)
		return check_record_repeat(ro.check, ro.repeat, argc, argv, idx);
	ro.collect.argv = idx < argc ? argv + idx : NULL;
	if (!ro.collect.argv && !ro.collect.pid && !ro.collect.system_wide) {
		cmd_error("nothing to record: give a command after '--', or -p PID, or -a");
		return cmd_usage(then_report ? &cmd_record_entry : &cmd_record_entry);
	}
	if (ro.collect.argv && ro.collect.pid) {
		cmd_error("-p attaches to a running process: give no command with it");
		return GX_EXIT_USAGE;
	}
	cpu0 = rusage_cpu_s();

	if (ro.force && ro.output && access(ro.output, F_OK) == 0) {
		dir = xstrdup(ro.output);
	} else if ((err = pd_result_dir__create(ro.output, ".", &dir, &cause)) != 0) {
		cmd_error("%s", cause);
		ret = GX_EXIT_FAIL;
		goto out;
	}
	data = xasprintf("%s/perf.data", dir);
	if (!ro.collect.events) {
		nw = meta.nr_warnings;
		model_events(&ro, &meta, &model_spec);
		ro.collect.events = model_spec;
	}
	ret = record_mux__setup(&rm, &ro, dir);
	if (ret) {
		rmdir(dir);
		goto out;
	}
	ret = GX_EXIT_FAIL;

	err = collect_session__new(&s, &ro.collect, &cause);
	if (err == GX_E_NOPMU && model_spec) {
		/* No PMU here: the collector's default says so and falls back
		 * to cpu-clock, which does not rotate; what the model's plan
		 * said no longer applies. */
		record_mux__delete(rm);
		rm = NULL;
		ro.collect.events = NULL;
		ro.collect.rotate = false;
		ro.collect.slice_log = NULL;
		free(meta.cpu_variant);
		meta.cpu_variant = NULL;
		while (meta.nr_warnings > nw)
			free(meta.warnings[--meta.nr_warnings]);
		err = collect_session__new(&s, &ro.collect, &cause);
	}
	if (err) {
		cmd_error("%s", cause);
		ret = (err == GX_E_EVENT || err == GX_E_USAGE) ? GX_EXIT_USAGE :
		      err == GX_E_CHILD ? 127 : GX_EXIT_FAIL;
		rmdir(dir);	/* only removes it when nothing was written */
		goto out;
	}
	for (size_t i = 0; i < collect_session__nr_warnings(s); i++)
		if (!ro.quiet)
			cmd_warn("%s", collect_session__warning(s, i));

	nev = collect_session__nr_events(s);
	evsels = xcalloc(nev + 1, sizeof(*evsels));
	for (size_t i = 0; i < nev; i++) {
		const struct collect_event *ce = collect_session__event(s, i);

		evsels[i].attr = ce->attr;
		evsels[i].name = ce->name;
		evsels[i].ids = ce->ids;
		evsels[i].nr_ids = ce->nr_ids;
	}
	err = perf_writer__new(&w, data, evsels, nev, &cause);
	if (err) {
		cmd_error("%s", cause);
		goto out;
	}
	rs.w = w;

	err = collect_session__run(s, &rs.sink, &cause);
	st = collect_session__stats(s);
	if (err) {
		/* Keep what was recorded: flush and finish as far as possible. */
		if (rs.err)
			cmd_error("writing %s: %s; the result keeps the records written so far",
				  data, gx_strerror(rs.err));
		else
			cmd_error("%s", cause ? cause : gx_strerror(err));
	}
	pd_env__from_system(&env, argc, argv);
	fill_groups(&env, s);
	fill_meta(&meta, s, &ro, &env);
	if (rs.err) {
		/* The disk refused a write: leave perf.data as flushed (its
		 * header covers every complete record) rather than append
		 * features that cannot be written either. */
		gx_meta__add_warning(&meta, "recording stopped early: writing perf.data: %s",
				     gx_strerror(rs.err));
	} else {
		perf_writer__flush(w);
		add_build_ids(data, &env, &meta);
		if (perf_writer__finish(w, &env, &cause) != 0) {
			cmd_error("%s", cause);
			err = err ? err : -EIO;
		}
	}
	perf_writer__delete(w);
	w = NULL;
	if (rm && record_mux__finish(rm, s, &meta, dir, ro.quiet) != 0)
		err = err ? err : -EIO;
	meta.self_cpu_s = rusage_cpu_s() - cpu0;
	if (gx_meta__write(&meta, dir, &cause) != 0) {
		cmd_error("%s", cause);
		err = err ? err : -EIO;
	}
	if (!ro.quiet)
		fprintf(stderr, "gexplore: recorded %s: %" PRIu64 " records, %" PRIu64
				" lost; 'gexplore report %s' to see it again\n",
			dir, st->records, st->lost_events, dir);
	/* `gexplore -- CMD`: the TUI on a terminal, else the text summary. */
	if (then_report && !ro.no_report && !err) {
#ifdef HAVE_NCURSESW
		if (!ro.no_tui && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
			tui_open_result(dir, NULL, ro.cpu, NULL, NULL);
		else
#endif
			report_print(dir, NULL, NULL);
	}

	/* The workload's status is ours (128+N when killed by signal N). */
	if (err)
		ret = GX_EXIT_FAIL;
	else if (st->term_signal)
		ret = 128 + st->term_signal;
	else if (st->exited)
		ret = st->exit_code;
	else
		ret = GX_EXIT_OK;
	if (ro.check && !err && ret == GX_EXIT_OK)	/* the check's status is ours */
		ret = check_after_record(ro.check, dir);
out:
	perf_writer__delete(w);
	collect_session__delete(s);
	record_mux__delete(rm);
	pd_env__exit(&env);
	gx_meta__exit(&meta);
	free(evsels);
	free(model_spec);
	free(dir);
	free(data);
	free(cause);
	return ret;
}

static int cmd_record_exec(int argc, char **argv)
{
	return record_run(argc, argv, !strcmp(argv[0], "run"));
}

const struct cmd_entry cmd_record_entry = {
	.name = "record",
	.usage = "record [-o DIR] [-e EVENTS] [-c SAV | -F HZ] [-g] [-p PID | -a] -- CMD [ARGS]",
	.summary = "run a command under the performance counters and write a result",
	.exec = cmd_record_exec,
};
