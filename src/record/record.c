/*
 * record.c: one recording, from the result directory to meta.json: the
 * sinks collect drains into (perf.data, regions.bin), the events of the
 * model, the run, the features, build-ids, the archive and meta.json.
 */
#include "config.h"

#include "record.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record-int.h"
#include "collect/collect.h"
#include "perfdata/perfdata.h"
#include "model/model.h"
#include "mux/mux.h"
#include "topdown/topdown.h"
#include "util/util.h"

void record_notice__say(const struct record_notice *nt, enum record_level level,
			const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!nt || !nt->say)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	nt->say(nt->arg, level, msg);
	free(msg);
}

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
	struct pd_regions_writer *w;	/* made at the first marker */
	char *why;			/* why regions.bin could not be made */
	int dfd;
	uint64_t lost;
	bool on, finished;
};

/*
 * regions.bin, made when the first marker comes (or at the end, for the
 * count of markers lost): a workload that sends none, nearly every one,
 * costs no file made and removed (issue 26, part 4). A failure is kept
 * for meta.json; the ring counts what follows as lost.
 */
static int markers_open(struct record_markers *rm)
{
	if (rm->w)
		return 0;
	if (rm->why)
		return -EIO;
	return pd_regions_writer__new(&rm->w, rm->dfd, PD_REGIONS_FILE, &rm->why);
}

static int markers_add(struct collect_marker_sink *k, const struct collect_marker *m)
{
	struct record_markers *rm = (struct record_markers *)k;
	int err = markers_open(rm);

	if (err)
		return err;
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
static void markers_finish(struct record_markers *rm, uint64_t nr, struct gx_meta *m)
{
	char *cause = NULL;

	if (!rm->on)
		return;
	if (rm->lost)
		markers_open(rm);
	if (rm->why)
		gx_meta__add_warning(m, "regions: %s: the workload's markers are not recorded",
				     rm->why);
	if (rm->w && pd_regions_writer__finish(rm->w, rm->lost, &cause) != 0)
		gx_meta__add_warning(m, "regions: %s", cause);
	pd_regions_writer__delete(rm->w);
	rm->w = NULL;
	m->markers = nr;
	m->markers_lost = rm->lost;
	if (rm->lost)
		gx_meta__add_warning(m, "regions: %" PRIu64 " markers lost (the ring of 32768 "
				     "filled between two drains, or regions nested deeper than 64)",
				     rm->lost);
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

/* A descriptor number, all of s (decimal, or 0x hexadecimal): 0 or -1. */
static int parse_fd(const char *s, int *fd)
{
	bool hex = s[0] == '0' && (s[1] | 0x20) == 'x';
	const char *d = hex ? s + 2 : s;
	unsigned long long v;
	char *end;

	if (!(hex ? isxdigit((unsigned char)*d) : isdigit((unsigned char)*d)))
		return -1;
	errno = 0;
	v = strtoull(d, &end, hex ? 16 : 10);
	if (errno || *end || v > INT_MAX)
		return -1;
	*fd = (int)v;
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
		int a, b = -1;

		if (parse_fd(s, &a) || (ack && parse_fd(ack, &b))) {
			*cause = xasprintf("--control fd:N[,M]: expected descriptors, got '%s'", spec);
			goto out;
		}
		o->ctl_fd = a;
		o->ack_fd = b;
		fcntl(o->ctl_fd, F_SETFL, fcntl(o->ctl_fd, F_GETFL) | O_NONBLOCK);
	}
	o->has_control = true;
	ret = 0;
out:
	free(s);
	return ret;
}

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
	if (o->off_cpu && o->system_wide) {
		*cause = xstrdup("--off-cpu follows tasks: not with -a (record the command, or "
				 "attach with -p)");
		return -1;
	}
	if (ro->off_cpu_min_us && !o->off_cpu) {
		*cause = xstrdup("--off-cpu-min goes with --off-cpu");
		return -1;
	}
	if (ro->ldlat && !o->mem) {
		*cause = xstrdup("--ldlat goes with --mem");
		return -1;
	}
	if ((ro->keep_valgrind || ro->duration_s > 0) && !ro->model) {
		*cause = xasprintf("%s goes with --model", ro->keep_valgrind ? "--keep-valgrind" :
				   "--duration");
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
	struct td_ctx ctx = { 0 };
	struct mux_counters counters;
	struct mux_plan plan;
	char *id, *cause = NULL;

	*spec = NULL;
	/* No PMU: the collector falls back to cpu-clock, whose result has no
	 * use for a model. Loading it and planning its groups for nothing was
	 * a third of a record of /bin/true, finding which file is this CPU's
	 * (a dozen files read, three parsed) a millisecond more (issue 26,
	 * part 4): meta.json names no model then, and a reader matches
	 * perf.data's cpuid as for a file perf wrote. --cpu's name is still
	 * checked. */
	if (!ro->cpu && collect_no_pmu())
		return;
	ctx.smt = td_smt_detect();
	id = ro->cpu ? xstrdup(ro->cpu) : td_detect_model();
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

/* Build ids of the files samples hit, read back from what was written;
 * a failure is said now and kept in meta.json. */
static void add_build_ids(const struct record_notice *nt, const char *data, struct pd_env *env,
			  struct gx_meta *m)
{
	char *cause = NULL;

	if (pd_collect_build_ids_file(data, env, &cause) != 0) {
		gx_meta__add_warning(m, "build ids not collected: %s", cause);
		record_notice__say(nt, RECORD_WARN, "build ids not collected: %s", cause);
	}
	free(cause);
}

/* collect's notice: said even with -q, as the answer to a second Ctrl-C. */
static void record_notice(void *arg, const char *msg)
{
	record_notice__say(arg, RECORD_WARN, "%s", msg);
}

/* How a recording that wrote everything ended (meta.json's status): a
 * signal caught while a workload ran interrupted it; with -p or -a, SIGINT
 * is how a recording ends. */
static const char *run_status(const struct collect_session *s)
{
	const struct collect_stats *st = collect_session__stats(s);

	if (st->stop_signal == SIGTERM || st->stop_signal == SIGHUP)
		return GX_META_STATUS_KILLED;
	if (st->keeper_died)	/* the run cut short under gexplore (issue 41) */
		return GX_META_STATUS_KEEPER;
	if (st->stop_signal && st->child)
		return GX_META_STATUS_INTERRUPTED;
	return GX_META_STATUS_COMPLETE;
}

/* --off-cpu: the prober's waits into DIR/offcpu.bin. */
struct record_offcpu {
	struct collect_offcpu_sink sink;	/* first */
	struct pd_offcpu_writer *w;
};

static int offcpu_probe(struct collect_offcpu_sink *k, const struct collect_offcpu_probe *p)
{
	struct record_offcpu *ro = (struct record_offcpu *)k;
	struct pd_offcpu_probe pp = { .time = p->time, .pid = p->pid, .tid = p->tid,
				      .syscall = p->syscall, .state = p->state,
				      .nr_ips = (uint16_t)p->nr_ips };

	snprintf(pp.wchan, sizeof(pp.wchan), "%s", p->wchan ? p->wchan : "");
	return pd_offcpu_writer__add(ro->w, &pp, p->ips);
}

/* One recording's state, from the result directory to meta.json. */
struct record_state {
	struct record_opts ro;
	const struct record_notice *nt;
	struct collect_session *s;
	struct perf_writer *w;
	struct record_sink rs;
	struct pd_env env;
	struct gx_meta meta;
	struct record_mux *rm;
	struct record_markers mk;
	struct record_offcpu oc;
	struct pd_evsel *evsels;
	char *dir, *data, *model_spec;
	char *mem_spec;		/* --mem: this CPU's memory sampling */
	int dfd;
	size_t nw;			/* meta's warnings before the model's */
	double cpu0;			/* gexplore's CPU time at the start */
	unsigned sigint0;		/* 1 when a SIGINT ended the run */
	unsigned said;			/* wrap-up interrupts said so far */
	int argc;			/* gexplore's command line, for env */
	char **argv;
	bool have_env;			/* env is read (sink_released) */
	bool abandoned;			/* a third interrupt cut the wrap-up */
};

/* This machine's description into r->env, once. */
static void record_env(struct record_state *r)
{
	if (r->have_env)
		return;
	pd_env__from_system(&r->env, r->argc, r->argv);
	r->have_env = true;
}

/* The workload executes its program: the machine's description meanwhile
 * (uname, cpuinfo, sysfs: half a millisecond that waited for the end of
 * the run, issue 26, part 4). */
static void sink_released(struct collect_sink *s)
{
	struct record_state *r = (struct record_state *)((char *)s -
		offsetof(struct record_state, rs) - offsetof(struct record_sink, sink));

	record_env(r);
}

static void record_state__exit(struct record_state *r)
{
	perf_writer__delete(r->w);
	collect_session__delete(r->s);
	pd_regions_writer__delete(r->mk.w);
	free(r->mk.why);
	pd_offcpu_writer__delete(r->oc.w);
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
	free(r->mem_spec);
	if (r->dfd >= 0)
		close(r->dfd);	/* lets go of the result directory's lock */
	free(r->dir);
	free(r->data);
}

/* A failure of the recording itself (the disk, the system), which the
 * caller must not read as bad options or a workload that did not start. */
static int failed(int err)
{
	return err == GX_E_USAGE || err == GX_E_EVENT || err == GX_E_CHILD || err >= 0 ? -EIO : err;
}

/* The result directory, the events (the model's by default), the
 * multiplexing plan, --control and the markers' file. 0 or an error with
 * *cause. */
static int record_prepare(struct record_state *r, char **cause)
{
	struct record_opts *ro = &r->ro;
	char *why = NULL;
	int err;

	err = pd_result_dir__create(ro->output, ".", ro->force ? PD_RESULT_DIR_REUSE : 0, &r->dir,
				    &r->dfd, cause);
	if (err)
		return failed(err);
	if (ro->force) {	/* an earlier modelled run's: not this one's */
		unlinkat(r->dfd, "flow.json", 0);
		unlinkat(r->dfd, "model.terms", 0);
	}
	r->data = xasprintf("%s/perf.data", r->dir);
	if (!ro->collect.events && ro->collect.mem) {	/* issue 43 */
		err = collect_mem_events(ro->ldlat ? ro->ldlat : COLLECT_MEM_LDLAT, true,
					 &r->mem_spec, cause);
		if (err) {
			pd_result_dir__discard(r->dfd, r->dir);
			return err;
		}
		ro->collect.events = r->mem_spec;
	}
	if (!ro->collect.events) {
		r->nw = r->meta.nr_warnings;
		model_events(ro, &r->meta, &r->model_spec);
		ro->collect.events = r->model_spec;
	}
	err = record_mux__setup(&r->rm, ro, r->dir, r->dfd, cause);
	if (err) {
		pd_result_dir__discard(r->dfd, r->dir);
		return err;
	}
	if (ro->control && open_control(ro->control, &ro->collect, cause) != 0) {
		pd_result_dir__discard(r->dfd, r->dir);
		return GX_E_USAGE;
	}
	if (ro->collect.argv && !ro->collect.pid) {
		r->mk.on = true;
		r->mk.dfd = r->dfd;
		if (ro->force)	/* an earlier recording's: this one's is made if needed */
			unlinkat(r->dfd, PD_REGIONS_FILE, 0);
		ro->collect.marker_sink = &r->mk.sink;
	}
	if (ro->collect.off_cpu && (ro->collect.argv || ro->collect.pid) &&
	    !ro->collect.system_wide) {
		uint32_t half = ro->off_cpu_min_us / 2;

		ro->collect.offcpu_probe_us = half > 2000 ? (half > 1000000 ? 1000000 : half) : 2000;
		if (pd_offcpu_writer__new(&r->oc.w, r->dfd, PD_OFFCPU_FILE,
					  ro->collect.offcpu_probe_us, ro->off_cpu_min_us,
					  &why) == 0)
			ro->collect.offcpu_sink = &r->oc.sink;
		else if (!ro->quiet)
			record_notice__say(r->nt, RECORD_WARN,
					   "%s: off-CPU waits get no reasons nor stacks", why);
		free(why);
	}
	return 0;
}

/* offcpu.bin's header and what meta.json says of the off-CPU recording. */
static void offcpu_finish(struct record_state *r, const struct collect_stats *st,
			  struct gx_meta *m)
{
	char *cause = NULL;
	bool sampled = false;

	if (!r->ro.collect.off_cpu)
		return;
	for (size_t i = 0; r->s && i < collect_session__nr_events(r->s); i++) {
		const struct perf_event_attr *a = &collect_session__event(r->s, i)->attr;

		/* sampled at every switch-out: the kernel allowed it */
		if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
		    !a->freq && a->sample_period == 1)
			sampled = true;
	}
	m->off_cpu = xstrdup(sampled ? (r->oc.w ? "switch+sample+proc" : "switch+sample") :
			     r->oc.w ? "switch+proc" : "switch");
	m->off_cpu_probes = st->offcpu_probes;
	m->off_cpu_probe_us = r->ro.collect.offcpu_probe_us;
	m->off_cpu_min_us = r->ro.off_cpu_min_us;
	if (r->oc.w && pd_offcpu_writer__finish(r->oc.w, &cause) != 0)
		gx_meta__add_warning(m, "off-CPU: %s", cause);
	free(cause);
	pd_offcpu_writer__delete(r->oc.w);
	r->oc.w = NULL;
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
 * perf.data. 0 or an error with *cause. */
static int record_open(struct record_state *r, char **cause)
{
	struct record_opts *ro = &r->ro;
	char *why = NULL;
	size_t nev;
	int err;

	ro->collect.notice = record_notice;
	ro->collect.notice_arg = (void *)r->nt;
	/* Known before anything starts (a session starts the workload): no
	 * first session to open the model's events, fail and be torn down */
	if (r->model_spec && collect_no_pmu())
		record_no_model(r);
	err = collect_session__new(&r->s, &ro->collect, cause);
	if (err == GX_E_NOPMU && r->model_spec) {
		record_no_model(r);
		free(*cause);
		*cause = NULL;
		err = collect_session__new(&r->s, &ro->collect, cause);
	}
	if (err) {
		/* the failed session wrote nothing into regions.bin */
		markers_finish(&r->mk, 0, &r->meta);
		pd_result_dir__discard(r->dfd, r->dir);
		return err == GX_E_EVENT || err == GX_E_USAGE || err == GX_E_CHILD ? err : failed(err);
	}
	for (size_t i = 0; i < collect_session__nr_warnings(r->s); i++)
		if (!ro->quiet)
			record_notice__say(r->nt, RECORD_WARN, "%s", collect_session__warning(r->s, i));
	nev = collect_session__nr_events(r->s);
	r->evsels = xcalloc(nev + 1, sizeof(*r->evsels));
	for (size_t i = 0; i < nev; i++) {
		const struct collect_event *ce = collect_session__event(r->s, i);

		r->evsels[i].attr = ce->attr;
		r->evsels[i].name = ce->name;
		r->evsels[i].ids = ce->ids;
		r->evsels[i].nr_ids = ce->nr_ids;
	}
	err = perf_writer__new_at(&r->w, r->dfd, "perf.data", r->evsels, nev, &why);
	if (err) {
		*cause = xasprintf("%s: %s", r->dir, why);
		free(why);
		pd_result_dir__discard(r->dfd, r->dir);
		return failed(err);
	}
	r->rs.w = r->w;
	return 0;
}

/*
 * The wrap-up and SIGINT (issue 30, part 4). From before the run until
 * meta.json is written, SIGINT is counted here, never fatal: collect
 * saves this handler and puts it back when the run ends, so no interrupt
 * falls between the two. The interrupt that ended the run counts as the
 * first; the first and second in the wrap-up are said and it goes on; the
 * third stops it at its next step, and meta.json is written with status
 * incomplete over what is there. Before, a second Ctrl-C in the ~0.3 s
 * wrap-up killed gexplore before meta.json was written (10 of 13 tries).
 * A SIGINT ignored at the start stays ignored.
 */
static volatile sig_atomic_t wrapup_sigints;

static void on_wrapup_sigint(int sig)
{
	(void)sig;
	wrapup_sigints++;
}

/* Count SIGINT from here on (old: the disposition to put back). */
static void wrapup_catch(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wrapup_sigint;
	sigemptyset(&sa.sa_mask);
	wrapup_sigints = 0;
	sigaction(SIGINT, NULL, old);
	if (old->sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
}

/* Whether the wrap-up must stop: a third interrupt came. Each new one is
 * said once. */
static bool wrapup_stop(struct record_state *r)
{
	unsigned n = (unsigned)wrapup_sigints;

	if (r->abandoned)
		return true;
	for (; r->said < n; r->said++) {
		unsigned k = r->sigint0 + r->said + 1;

		if (k >= 3) {
			record_notice__say(r->nt, RECORD_ERROR, "third interrupt: leaving %s "
					   "incomplete (status: incomplete) and exiting", r->dir);
			r->abandoned = true;
			return true;
		}
		record_notice__say(r->nt, RECORD_WARN, "%s: finishing %s first (build-ids, "
				   "archive, meta.json); %s leaves it incomplete",
				   k == 1 ? "interrupt" : "second interrupt", r->dir,
				   k == 1 ? "interrupting twice more" : "a third");
	}
	return false;
}

/* GX_TEST_WRAPUP_DELAY_MS (tests only, HACKING.md): a wrap-up that long,
 * so that a test can interrupt it at a chosen moment. */
static void wrapup_test_delay(struct record_state *r)
{
	const char *v = getenv("GX_TEST_WRAPUP_DELAY_MS");
	long ms = v ? strtol(v, NULL, 10) : 0;

	for (; ms > 0 && !wrapup_stop(r); ms -= 10) {
		struct timespec t = { 0, 10 * 1000000L };

		nanosleep(&t, NULL);
	}
}

/* The archive of the sampled files in dir/.build-id; what cannot be
 * archived is said now (issue 41: root's skips were in meta.json alone)
 * and goes to meta's warnings. */
static void warn_meta(void *ctx, const char *msg)
{
	struct record_state *r = ctx;

	gx_meta__add_warning(&r->meta, "archive: %s", msg);
	record_notice__say(r->nt, RECORD_WARN, "archive: %s", msg);
}

static bool archive_stop(void *ctx)
{
	return wrapup_stop(ctx);
}

static void record_archive(struct record_state *r, struct gx_meta *meta)
{
	uint64_t max = r->ro.archive_max;
	struct pd_archive_opts o = {
		.max_bytes = !max ? PD_ARCHIVE_MAX_DEFAULT : max == UINT64_MAX ? 0 : max,
		.warn = warn_meta, .ctx = r, .stop = archive_stop,
	};
	struct pd_archive_stats st;
	char *cause = NULL;

	if (pd_archive(r->dir, &r->env, &o, &st, &cause) != 0) {
		gx_meta__add_warning(meta, "archive: %s; the result needs the recorded files to "
				     "show function names", cause);
		record_notice__say(r->nt, RECORD_WARN, "archive: %s; the result needs the recorded "
				   "files to show function names", cause);
	}
	else if (!r->ro.quiet && st.files)
		record_notice__say(r->nt, RECORD_INFO, "archived %zu file%s (%.1f MiB, %zu hard "
				   "link%s) in %s/.build-id", st.files, st.files == 1 ? "" : "s",
				   (double)st.bytes / (1 << 20), st.linked, st.linked == 1 ? "" : "s",
				   r->dir);
	free(cause);
}

/* After the run: perf.data finished (or left as flushed when the disk
 * refused a write), build-ids, the archive, the markers, the mux section
 * and meta.json. Returns err, or the first failure of these (said). */
static int record_finish(struct record_state *r, int err, int argc, char **argv)
{
	const struct collect_stats *st = collect_session__stats(r->s);
	struct gx_meta *m = &r->meta;
	char *cause = NULL;

	if (r->rs.err)
		err = err ? err : r->rs.err;	/* said by record_say, with the records dropped */
	record_env(r);
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
		/* flushed, perf.data reads as it is: a third interrupt may stop
		 * the wrap-up at any step from here */
		perf_writer__flush(r->w);
		if (!wrapup_stop(r))
			add_build_ids(r->nt, r->data, &r->env, m);
		wrapup_test_delay(r);
		if (!wrapup_stop(r) && perf_writer__finish(r->w, &r->env, &cause) != 0) {
			record_notice__say(r->nt, RECORD_ERROR, "%s", cause);
			free(cause);
			cause = NULL;
			err = err ? err : -EIO;
		}
		if (!r->ro.no_archive && !wrapup_stop(r))
			record_archive(r, m);
	}
	m->dropped_records = perf_writer__dropped(r->w);
	if (!m->status && wrapup_stop(r))
		m->status = xstrdup(GX_META_STATUS_INCOMPLETE);
	if (!m->status)
		m->status = xstrdup(err ? GX_META_STATUS_FAILED : run_status(r->s));
	perf_writer__delete(r->w);
	r->w = NULL;
	markers_finish(&r->mk, st->markers, m);
	offcpu_finish(r, st, m);
	if (r->rm && !r->abandoned &&
	    record_mux__finish(r->rm, r->s, m, r->dir, r->ro.quiet, r->nt) != 0)
		err = err ? err : -EIO;
	/* one now is said, and what meta.json says is what was said: the
	 * run's own status gives way (a write error's stays) */
	if (wrapup_stop(r) && (!strcmp(m->status, GX_META_STATUS_COMPLETE) ||
			       !strcmp(m->status, GX_META_STATUS_INTERRUPTED) ||
			       !strcmp(m->status, GX_META_STATUS_KILLED))) {
		free(m->status);
		m->status = xstrdup(GX_META_STATUS_INCOMPLETE);
	}
	m->self_cpu_s = rusage_cpu_s() - r->cpu0;
	sampling_cost(m, r->s, &r->env);
	if (gx_meta__write_at(m, r->dfd, r->dir, &cause) != 0) {
		record_notice__say(r->nt, RECORD_ERROR, "%s", cause);
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
	char ended[96] = "";

	/* how the workload ended, where that is news: stopped, or a crash */
	if (gx_meta__stopped(m))
		snprintf(ended, sizeof(ended), " (%s)", gx_meta__stopped(m));
	else if (m->term_signal)
		snprintf(ended, sizeof(ended), " (the workload was killed by SIG%s)",
			 sigabbrev_np(m->term_signal) ? sigabbrev_np(m->term_signal) : "?");

	if (r->abandoned)
		;	/* the third interrupt's line said it */
	else if (r->rs.err)
		record_notice__say(r->nt, RECORD_ERROR, "writing %s: %s; the result keeps the "
				   "records written so far: %" PRIu64 " written, %" PRIu64
				   " dropped, %" PRIu64 " lost", r->data, gx_strerror(r->rs.err),
				   st->records - m->dropped_records, m->dropped_records,
				   st->lost_events);
	else if (incomplete)
		record_notice__say(r->nt, RECORD_INFO, "%s is incomplete (%s): %" PRIu64
				   " records written, %" PRIu64 " dropped, %" PRIu64 " lost",
				   r->dir, incomplete, st->records - m->dropped_records,
				   m->dropped_records, st->lost_events);
	else if (!r->ro.quiet)
		record_notice__say(r->nt, RECORD_INFO, "recorded %s%s: %" PRIu64 " records, %"
				   PRIu64 " lost; 'gexplore report %s' to see it again", r->dir,
				   ended, st->records, st->lost_events, r->dir);
	free(incomplete);
}

/* The workload's status is ours (128+N when killed by signal N). */
static int workload_status(const struct collect_session *s)
{
	const struct collect_stats *st = collect_session__stats(s);

	if (st->term_signal)
		return 128 + st->term_signal;
	return st->exited ? st->exit_code : 0;
}

/* model's messages through the notice callback; none with -q, as a
 * recording's warnings: its notes stay in meta.json's warnings */
static void model_say(void *arg, bool warn, const char *msg)
{
	record_notice__say(arg, warn ? RECORD_WARN : RECORD_INFO, "%s", msg);
}

/* --model: the workload under Valgrind, its cycles modelled (src/model). */
static int record_model(const struct record_opts *ro, const struct record_notice *nt, int argc,
			char **argv, struct record_result *res, char **cause)
{
	struct model_opts mo = { .argv = ro->collect.argv, .argc = argc, .cmdline = argv,
				 .quiet = ro->quiet, .machine = ro->model_machine,
				 .say = ro->quiet ? NULL : model_say, .say_arg = (void *)nt,
				 .callgraph = ro->collect.callgraph != COLLECT_CG_NONE,
				 .keep_valgrind = ro->keep_valgrind, .duration_s = ro->duration_s };
	struct model_run run;
	char *dir = NULL;
	int dfd = -1, err;

	if (!ro->collect.argv || ro->collect.pid || ro->collect.system_wide)
		return gx_fail(cause, GX_E_USAGE, "--model runs a command under Valgrind: give "
			       "one after '--' (not -p or -a)");
	if (ro->collect.events)
		return gx_fail(cause, GX_E_USAGE, "--model counts its own events: no -e with it");
	if (ro->collect.off_cpu)
		return gx_fail(cause, GX_E_USAGE, "--model runs the command under Valgrind, whose "
			       "waits are not the program's: no --off-cpu with it");
	err = pd_result_dir__create(ro->output, ".", ro->force ? PD_RESULT_DIR_REUSE : 0, &dir,
				    &dfd, cause);
	if (err)
		return failed(err);
	mo.dir = dir;
	mo.dirfd = dfd;
	err = model_record(&mo, &run, cause);
	if (err) {
		pd_result_dir__discard(dfd, dir);
		close(dfd);
		free(dir);
		return err;
	}
	close(dfd);
	res->dir = dir;
	res->status = run.status;
	return 0;
}

int gx_record(const struct record_opts *opts, const struct record_notice *nt, int argc,
	      char **argv, struct record_result *res, char **cause)
{
	struct record_state r = { .ro = *opts, .nt = nt, .dfd = -1,
				  .rs = { .sink = { sink_record, sink_round_end, sink_released } },
				  .mk = { .sink = { markers_add, markers_flush } },
				  .oc = { .sink = { offcpu_probe } } };
	struct sigaction old_int;
	char *why = NULL;
	int err;

	memset(res, 0, sizeof(*res));
	r.argc = argc;
	r.argv = argv;
	if (!r.ro.collect.argv && !r.ro.collect.pid && !r.ro.collect.system_wide)
		return gx_fail(cause, GX_E_USAGE,
			       "nothing to record: give a command after '--', or -p PID, or -a");
	if (r.ro.collect.argv && r.ro.collect.pid)
		return gx_fail(cause, GX_E_USAGE,
			       "-p attaches to a running process: give no command with it");
	if (opts->model)
		return record_model(opts, nt, argc, argv, res, cause);
	gx_meta__init(&r.meta);
	r.cpu0 = rusage_cpu_s();
	err = record_prepare(&r, cause);
	if (!err)
		err = record_open(&r, cause);
	if (err)
		goto out;
	wrapup_catch(&old_int);	/* collect's handler in the run, this one after it */
	err = collect_session__run(r.s, &r.rs.sink, &why);
	r.sigint0 = collect_session__stats(r.s)->stop_signal == SIGINT;
	if (err)	/* keep what was recorded: flush and finish as far as possible */
		record_notice__say(nt, RECORD_ERROR, "%s", why ? why : gx_strerror(err));
	if (r.rs.err && !perf_writer__has_data(r.w)) {
		/* nothing reached the disk: no result to keep */
		err = gx_fail(cause, failed(r.rs.err), "writing %s: %s; nothing was recorded (%"
			      PRIu64 " records dropped)", r.data, gx_strerror(r.rs.err),
			      perf_writer__dropped(r.w));
		perf_writer__delete(r.w);
		r.w = NULL;
		pd_result_dir__discard(r.dfd, r.dir);
		sigaction(SIGINT, &old_int, NULL);
		goto out;
	}
	res->err = record_finish(&r, err, argc, argv);
	sigaction(SIGINT, &old_int, NULL);
	record_say(&r);
	res->status = workload_status(r.s);
	if (r.abandoned) {
		res->abandoned = true;
		res->err = res->err ? res->err : -EINTR;
	}
	res->dir = r.dir;
	r.dir = NULL;
	err = 0;
out:
	record_state__exit(&r);
	free(why);
	return err;
}

void record_result__exit(struct record_result *res)
{
	free(res->dir);
	res->dir = NULL;
}

int record_repeat(const struct record_opts *ro, char *const *cmd, unsigned n, bool quiet,
		  const struct record_notice *nt, int argc, char **argv, char ***dirs_out,
		  char **cause)
{
	char **dirs = xcalloc(n + 1, sizeof(char *));
	int err = 0;

	for (unsigned k = 0; k < n; k++) {
		struct record_opts r = *ro;
		struct record_result res;
		char *why = NULL;

		err = pd_result_dir__create(NULL, ".", 0, &dirs[k], NULL, cause);
		if (err) {
			err = failed(err);
			break;
		}
		/* each run its own new result, recorded only */
		r.output = dirs[k];
		r.force = false;
		r.quiet = true;
		r.collect.argv = cmd;
		if (!quiet)
			record_notice__say(nt, RECORD_INFO, "check: run %u/%u -> %s", k + 1, n,
					   dirs[k]);
		err = gx_record(&r, nt, argc, argv, &res, &why);
		if (err) {
			record_notice__say(nt, RECORD_ERROR, "%s", why);
			free(why);
			err = gx_fail(cause, GX_E_USAGE, "check: run %u of '%s' could not be "
				      "recorded; not checking it", k + 1, cmd[0]);
			break;
		}
		if (res.err || res.status)
			err = res.err ? gx_fail(cause, GX_E_USAGE, "check: run %u of '%s' was not "
						"recorded whole; not checking it", k + 1, cmd[0]) :
					gx_fail(cause, GX_E_USAGE, "check: run %u of '%s' exited with "
						"status %d; not checking it", k + 1, cmd[0],
						res.status);
		record_result__exit(&res);
		if (err)
			break;
	}
	*dirs_out = dirs;
	return err;
}
