/*
 * session.c: open the counters, map the ring buffers, run the drain loop.
 * Multiplexing inside the loop (rotation, the kernel's periods) is
 * rotation.c's.
 *
 * Layout of the file descriptors. The kernel refuses to mmap an inherited
 * per-task event (cpu = -1, inherit = 1), so every event is opened once per
 * online CPU for each target task, and each CPU gets one ring buffer,
 * owned by the first descriptor opened on it; every other descriptor on
 * that CPU is redirected into it with PERF_EVENT_IOC_SET_OUTPUT (the
 * kernel allows that only between events of the same CPU).
 *
 *   workload   targets = { child }          inherit: threads and children
 *   -p PID     targets = threads of PID     per thread and CPU, inherit
 *                                           (new threads and children of
 *                                           a thread follow it), enabled
 *                                           at open
 *   -a         targets = { -1 }             per CPU, every task, no inherit
 *
 * Signals: while __run drains, SIGINT/SIGTERM/SIGHUP are caught through a
 * self-pipe; with a workload they are forwarded to it and the loop goes on
 * until it exits; without one they end the recording. A workload that
 * ignores (or handles and survives) SIGINT keeps running: at the second
 * SIGINT opts.notice hears that SIGTERM stops it. A signal ignored when
 * gexplore started stays ignored, in gexplore and in the workload. Only one
 * session can be running at a time in a process (the handlers are
 * process-wide).
 */
#include "config.h"

#include "collect/collect-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>


static void session__warn(struct collect_session *s, const char *fmt, ...) GX_PRINTF(2, 3);
static void session__warn(struct collect_session *s, const char *fmt, ...)
{
	va_list ap;

	s->warnings = xgrow(s->warnings, &s->cap_warnings, s->nr_warnings + 1, sizeof(char *));
	va_start(ap, fmt);
	s->warnings[s->nr_warnings++] = xvasprintf(fmt, ap);
	va_end(ap);
}

/* ---- targets ---------------------------------------------------------------- */

int collect_online_cpus(int **cpus, size_t *nr)
{
	char *s = gx_read_file("/sys/devices/system/cpu/online", 4096);
	const char *p;
	long a, b;
	int *v = NULL;
	size_t n = 0, cap = 0;

	if (!s) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		s = xasprintf("0-%ld", c > 0 ? c - 1 : 0);
	}
	for (p = s; gx_cpulist_next(&p, &a, &b);)
		for (long c = a; c <= b; c++) {
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			v[n++] = (int)c;
		}
	free(s);
	if (!n) {
		free(v);
		return -ENODEV;
	}
	*cpus = v;
	*nr = n;
	return 0;
}

static int list_threads(pid_t pid, pid_t **out, size_t *nr, char **cause)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	pid_t *v = NULL;
	size_t n = 0, cap = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return gx_fail(cause, -ESRCH, "cannot attach to process %d: no such process", (int)pid);
	/* the main thread first: it owns the ring buffers */
	v = xgrow(v, &cap, 1, sizeof(*v));
	v[n++] = pid;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || tid == pid)
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = tid;
	}
	closedir(d);
	*out = v;
	*nr = n;
	return 0;
}

/* ---- opening ------------------------------------------------------------------ */

static bool no_such_event(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

static int open_error(const struct collect_session *s, const struct collect_event *e, int cpu,
		      int err, char **cause)
{
	if ((err == -EACCES || err == -EPERM) && s->o.pid)
		return gx_fail(cause, GX_E_PERM,
			       "cannot attach to process %d (%s): %s; it must be yours (and ptrace-able), or run as root / with CAP_PERFMON (perf_event_paranoid is %d)",
			       (int)s->o.pid, e->name, strerror(-err), collect_paranoid());
	if (err == -ESRCH && s->o.pid)
		return gx_fail(cause, -ESRCH, "cannot attach to process %d: it is gone", (int)s->o.pid);
	if (err == -EACCES || err == -EPERM)	/* -a needs 0, a task 1 (2 for :u only) */
		return gx_fail(cause, GX_E_PERM,
			       "cannot open %s: perf_event_paranoid is %d; run `sysctl kernel.perf_event_paranoid=%d` (or lower) or grant CAP_PERFMON",
			       e->name, collect_paranoid(), s->o.system_wide ? 0 : 1);
	if (err == -EMFILE || err == -ENFILE)
		return gx_fail(cause, err, "cannot open %s on CPU %d: too many open files (raise `ulimit -n`)",
			       e->name, cpu);
	if ((no_such_event(err) || err == -EINVAL) &&
	    e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)	/* issue 42 */
		return gx_fail(cause, GX_E_NOPMU,
			       "cannot open %s with branch stacks (-b, --branch-filter): %s: this "
			       "PMU records none, or not with this filter (Intel's LBR, AMD's "
			       "LbrExtV2 and BRS and Arm's BRBE do; a VM seldom passes them "
			       "through); record without -b",
			       e->name, strerror(-err));
	if (no_such_event(err) && collect_attr__is_pmu(&e->attr))
		return gx_fail(cause, GX_E_NOPMU,
			       "cannot open %s: %s: hardware counters are unavailable on this machine (a VM without a virtual PMU?), or this CPU has no such event; sample `-e cpu-clock` here, `gexplore list` shows this CPU's events",
			       e->name, strerror(-err));
	return gx_fail(cause, GX_E_EVENT, "cannot open %s on CPU %d: %s", e->name, cpu, strerror(-err));
}

/* One descriptor; lowers precise_ip until the kernel accepts it. */
static int open_one(struct collect_event *e, pid_t pid, int cpu, int group_fd)
{
	for (;;) {
		int fd = collect_perf_event_open(&e->attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

		if (fd >= 0 || e->attr.precise_ip == 0 || (fd != -EOPNOTSUPP && fd != -EINVAL))
			return fd;
		e->attr.precise_ip--;
	}
}

static void close_fds(struct collect_session *s)
{
	for (size_t i = 0; i < s->nr_rings; i++)
		ring__unmap(&s->rings[i]);
	free(s->rings);
	s->rings = NULL;
	s->nr_rings = 0;
	for (size_t i = 0; i < s->nr_fds; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	free(s->fds);
	free(s->fd_ids);
	s->fds = NULL;
	s->fd_ids = NULL;
	s->nr_fds = 0;
	for (size_t i = 0; i < s->nr_ev; i++) {
		free(s->ev[i].ids);
		s->ev[i].ids = NULL;
		s->ev[i].nr_ids = 0;
	}
}

/* Is the event opened on cpu (its core PMU's CPUs on a hybrid machine)? */
static bool event_on_cpu(const struct collect_event *e, int cpu)
{
	if (!e->cpus)
		return true;
	for (size_t i = 0; i < e->nr_cpus; i++)
		if (e->cpus[i] == cpu)
			return true;
	return false;
}

/*
 * Before Linux 6.12 the kernel refuses PERF_SAMPLE_READ on an inherited
 * event. Then a leader-sampled group is opened without inherit (as perf
 * does): it follows the workload's first thread only. True when event e
 * was such a group's leader and its group is changed for a retry.
 */
static bool inherit_read_refused(struct collect_session *s, size_t e)
{
	struct collect_event *ev = &s->ev[e];

	if (!ev->leader_sampling || !ev->leader || !ev->attr.inherit)
		return false;
	for (size_t i = e; i < s->nr_ev && s->ev[i].group == ev->group; i++)
		s->ev[i].attr.inherit = 0;
	session__warn(s, "%s: this kernel cannot read a group in inherited counters (Linux 6.12 can): the {...}:S group follows the workload's first thread only",
		      ev->name);
	return true;
}

/* Open every event for every target and CPU. On error, *failed_ev and
 * *failed_cpu tell where, and everything opened so far is closed. */
static int open_all(struct collect_session *s, size_t *failed_ev, int *failed_cpu)
{
	int err = 0;

	s->nr_fds = s->nr_ev * s->nr_tids * s->nr_cpus;
	s->fds = xmalloc(s->nr_fds * sizeof(*s->fds));
	s->fd_ids = xcalloc(s->nr_fds, sizeof(*s->fd_ids));
	for (size_t i = 0; i < s->nr_fds; i++)
		s->fds[i] = -1;
	for (size_t e = 0; e < s->nr_ev; e++) {
		struct collect_event *ev = &s->ev[e];
		size_t leader = e;

		if (ev->group >= 0 && !ev->leader)
			while (leader > 0 && !s->ev[leader].leader)
				leader--;
		unsigned want_precise = ev->attr.precise_ip;

		ev->ids = xcalloc(s->nr_tids * s->nr_cpus, sizeof(*ev->ids));
		for (size_t t = 0; t < s->nr_tids; t++) {
			for (size_t c = 0; c < s->nr_cpus; c++) {
				int gfd = leader != e ? s->fds[collect_session__fd_index(s, leader, t, c)] : -1;
				int fd;
				uint64_t id = 0;

				if (leader != e && gfd < 0)
					continue;	/* the leader's thread vanished */
				if (!event_on_cpu(ev, s->cpus[c]))
					continue;	/* another core type's CPU (hybrid) */
				fd = open_one(ev, s->tids[t], s->cpus[c], gfd);
				if (fd == -EINVAL && inherit_read_refused(s, e))
					fd = open_one(ev, s->tids[t], s->cpus[c], gfd);
				if (fd == -ESRCH && s->o.pid && t > 0)
					continue;	/* a thread ended meanwhile */
				if (fd < 0) {
					*failed_ev = e;
					*failed_cpu = s->cpus[c];
					err = fd;
					goto out_close;
				}
				s->fds[collect_session__fd_index(s, e, t, c)] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
					*failed_ev = e;
					*failed_cpu = s->cpus[c];
					err = -errno;
					goto out_close;
				}
				s->fd_ids[collect_session__fd_index(s, e, t, c)] = id;
				ev->ids[ev->nr_ids++] = id;
			}
		}
		if (ev->attr.precise_ip < want_precise)
			session__warn(s, "%s: precise_ip %u is not supported here, using %u (samples may skid)",
				      ev->name, want_precise, (unsigned)ev->attr.precise_ip);
	}
	return 0;
out_close:
	close_fds(s);
	return err;
}

static int map_rings(struct collect_session *s, char **cause)
{
	uint32_t pages = s->o.mmap_pages ? s->o.mmap_pages : COLLECT_DEFAULT_PAGES;
	int err = 0;

	s->rings = xcalloc(s->nr_cpus, sizeof(*s->rings));
	s->nr_rings = s->nr_cpus;
	for (size_t c = 0; c < s->nr_cpus; c++) {
		struct ring *r = &s->rings[c];
		int owner = -1;

		r->fd = -1;
		r->cpu = s->cpus[c];
		for (size_t i = 0; i < s->nr_ev * s->nr_tids && owner < 0; i++)
			owner = s->fds[i * s->nr_cpus + c];
		if (owner < 0)
			continue;
		for (;;) {
			err = ring__map(r, owner, pages);
			if (!err)
				break;
			/* over the locked-memory limit (perf_event_mlock_kb): retry
			 * smaller, but only before any ring of this size exists */
			if (err != -EPERM || pages == 1 || c > 0)
				return gx_fail(cause, err, "cannot map the ring buffer of CPU %d (%u pages): %s",
					       r->cpu, pages, strerror(-err));
			pages /= 2;
			session__warn(s, "ring buffers reduced to %u pages per CPU (locked-memory limit; raise kernel.perf_event_mlock_kb)",
				      pages);
		}
		/* the kernel redirects only into a buffer that is mapped already */
		for (size_t i = 0; i < s->nr_ev * s->nr_tids; i++) {
			int fd = s->fds[i * s->nr_cpus + c];

			if (fd < 0 || fd == owner)
				continue;
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) < 0)
				return gx_fail(cause, -errno, "cannot share the ring buffer of CPU %d: %s",
					       r->cpu, strerror(errno));
		}
	}
	return 0;
}

static void apply_paranoid(struct collect_session *s)
{
	int paranoid = collect_paranoid();

	if (paranoid < 2 || collect_privileged())
		return;
	for (size_t i = 0; i < s->nr_ev; i++) {
		s->ev[i].attr.exclude_kernel = 1;
		s->ev[i].attr.exclude_hv = 1;
	}
	session__warn(s, "perf_event_paranoid is %d: measuring user space only; run `sysctl kernel.perf_event_paranoid=1` or grant CAP_PERFMON to include the kernel",
		      paranoid);
}

/* --delay: every event that could start by itself starts disabled, and
 * exec does not enable it; the drain loop does (control_enable). */
static void apply_delay(struct collect_session *s)
{
	if (!s->o.delay_ms)
		return;
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct collect_event *e = &s->ev[i];

		if (e->group >= 0 && !e->leader)
			continue;	/* a member follows its leader */
		e->attr.disabled = 1;
		e->attr.enable_on_exec = 0;
	}
	s->paused = true;
	s->missed_maps = true;
}

/* --off-cpu where the kernel allows a sample at each switch-out (root,
 * CAP_PERFMON, perf_event_paranoid <= 1; the sample is taken in the
 * kernel): context-switches, period 1, with the stacks asked for. Not
 * with groups: outside them it would become rotation's reference. Not
 * without stacks (-g, --call-graph): a switch-out's ip alone is
 * schedule()'s, and its record doubled the cost of every switch
 * (bench/offcpu.sh, issue 45). */
static char *offcpu_spec(const struct collect_session *s, const char *spec)
{
	if (!s->o.off_cpu || s->o.callgraph == COLLECT_CG_NONE || strchr(spec, '{') ||
	    s->o.system_wide ||
	    (collect_paranoid() > 1 && !collect_privileged()))
		return NULL;
	return xasprintf("%s,context-switches", spec);
}

static void offcpu_sample_attr(struct collect_session *s)
{
	struct perf_event_attr *a = &s->ev[s->nr_ev - 1].attr;

	a->freq = 0;
	a->sample_period = 1;
	a->sample_type |= PERF_SAMPLE_PERIOD;
}

static int parse(struct collect_session *s, const char *spec, char **cause)
{
	char *with_cs = offcpu_spec(s, spec);
	int err = collect_parse_events(with_cs ? with_cs : spec, &s->o, &s->ev, &s->nr_ev, cause);

	if (!err && with_cs)
		offcpu_sample_attr(s);
	free(with_cs);
	if (!err) {
		apply_paranoid(s);
		rotation__prepare(s);
		apply_delay(s);
	}
	return err;
}

static int open_events(struct collect_session *s, char **cause)
{
	size_t bad = 0;
	int cpu = -1, err;

	if (s->o.events)
		err = parse(s, s->o.events, cause);
	else
		err = parse(s, "cycles,instructions", cause);
	if (err)
		return err;
	/* no PMU, as the caller's question already found: cycles is not
	 * tried again */
	if (!s->o.events && collect_no_pmu())
		err = -ENOENT;
	else
		err = open_all(s, &bad, &cpu);
	if (err && !s->o.events && no_such_event(err)) {
		char *what = collect_no_pmu() ?
			xasprintf("%s: %s", s->ev[bad].name, collect_no_pmu_why()) :
			xasprintf("%s: %s", s->ev[bad].name, strerror(-err));

		collect_events__free(s->ev, s->nr_ev);
		s->ev = NULL;
		s->nr_ev = 0;
		/* rebuild the warning list: the paranoid one comes back */
		for (size_t i = 0; i < s->nr_warnings; i++)
			free(s->warnings[i]);
		s->nr_warnings = 0;
		err = parse(s, "cpu-clock", cause);
		if (!err)
			session__warn(s, "hardware counters are unavailable on this machine (%s; a VM without a virtual PMU?): sampling cpu-clock instead, no top-down metrics; for them, record on bare metal or in a VM with a virtual PMU, or model them here with --model",
				      what);
		free(what);
		if (err)
			return err;
		err = open_all(s, &bad, &cpu);
	}
	if (err)
		return open_error(s, &s->ev[bad], cpu, err, cause);
	return map_rings(s, cause);
}

int collect_session__new(struct collect_session **out, const struct collect_opts *o, char **cause)
{
	struct collect_session *s = xzalloc(sizeof(*s));
	bool has_cmd = o->argv && o->argv[0];
	int err;

	*out = NULL;
	s->o = *o;
	s->wl.pid = 0;
	s->wl.go_fd = s->wl.err_fd = -1;
	if (s->o.mmap_pages & (s->o.mmap_pages - 1)) {
		err = gx_fail(cause, GX_E_USAGE, "ring buffer size %u pages is not a power of two",
			      s->o.mmap_pages);
		goto out_free;
	}
	if (o->pid && o->system_wide) {
		err = gx_fail(cause, GX_E_USAGE, "-p and -a cannot be combined");
		goto out_free;
	}
	if (!o->pid && !o->system_wide && !has_cmd) {
		err = gx_fail(cause, GX_E_USAGE, "no command to record");
		goto out_free;
	}
	s->bounce = xmalloc(COLLECT_MAX_RECORD);
	err = collect_online_cpus(&s->cpus, &s->nr_cpus);
	if (err) {
		gx_fail(cause, err, "cannot list the online CPUs");
		goto out_free;
	}
	if (o->pid) {
		err = list_threads(o->pid, &s->tids, &s->nr_tids, cause);
		if (err)
			goto out_free;
	} else {
		s->tids = xmalloc(sizeof(*s->tids));
		s->nr_tids = 1;
		s->tids[0] = -1;
	}
	s->mr.ctl_fd = s->mr.ack_fd = -1;
	s->mr.child_fds[0] = s->mr.child_fds[1] = s->mr.child_fds[2] = -1;
	if (has_cmd && !o->pid) {
		err = workload__check(o->argv, cause);
		if (err)
			goto out_free;
		if (o->marker_sink) {
			char *why = NULL;

			if (marker_ring__create(&s->mr, &why) != 0)
				session__warn(s, "%s: the workload's markers are not recorded", why);
			free(why);
		}
		err = workload__start(&s->wl, o->argv, s->mr.env, s->mr.env ? s->mr.child_fds : NULL,
				      s->mr.env ? ARRAY_SIZE(s->mr.child_fds) : 0, cause);
		if (err)
			goto out_free;
		s->has_workload = true;
		if (!o->system_wide)
			s->tids[0] = s->wl.pid;
	}
	err = open_events(s, cause);
	if (err)
		goto out_free;
	if (o->has_control)
		s->ctl[s->nr_ctl++] = (struct ctl_chan){ .rfd = o->ctl_fd, .wfd = o->ack_fd };
	if (s->mr.ctl_fd >= 0)
		s->ctl[s->nr_ctl++] = (struct ctl_chan){ .rfd = s->mr.ctl_fd, .wfd = s->mr.ack_fd };
	err = rotation__setup(s, cause);
	if (err)
		goto out_free;
	*out = s;
	return 0;
out_free:
	collect_session__delete(s);
	return err;
}

/* ---- accessors ------------------------------------------------------------------ */

size_t collect_session__nr_events(const struct collect_session *s)
{
	return s->nr_ev;
}

const struct collect_event *collect_session__event(const struct collect_session *s, size_t i)
{
	return i < s->nr_ev ? &s->ev[i] : NULL;
}

size_t collect_session__nr_warnings(const struct collect_session *s)
{
	return s->nr_warnings;
}

const char *collect_session__warning(const struct collect_session *s, size_t i)
{
	return i < s->nr_warnings ? s->warnings[i] : NULL;
}

bool collect_session__has_pmu(const struct collect_session *s)
{
	for (size_t i = 0; i < s->nr_ev; i++)
		if (collect_attr__is_pmu(&s->ev[i].attr))
			return true;
	return false;
}

const struct collect_stats *collect_session__stats(const struct collect_session *s)
{
	return &s->stats;
}

void collect_session__delete(struct collect_session *s)
{
	if (!s)
		return;
	close_fds(s);
	workload__exit(&s->wl);
	collect_events__free(s->ev, s->nr_ev);
	gx_free_strv(s->warnings, s->nr_warnings);
	GX_FREE(s->cpus, s->tids, s->bounce, s->rot_leader, s->rot_prev, s->rot_prev_run, s->rot_order,
		s->rot_delta, s->rot_buf, s->kper_prev_run, s->kper_run, s->kper_prev_en, s->kper_en);
	if (s->rot_log)
		s->rot_log->flush(s->rot_log);
	marker_ring__destroy(&s->mr);
	free(s);
}

/* ---- the drain loop --------------------------------------------------------------- */

static int sig_wfd = -1;
static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;

	if (sig_wfd >= 0 && write(sig_wfd, &c, 1) < 0) {
		/* full pipe: the loop sees the earlier bytes */
	}
	errno = saved;
}

static int drain_pass(struct collect_session *s, struct collect_sink *sink)
{
	int ret;

	for (size_t i = 0; i < s->nr_rings; i++) {
		if (!s->rings[i].meta)
			continue;
		ret = ring__drain(&s->rings[i], s->bounce, sink, &s->stats);
		if (ret)
			return ret;
	}
	/* a failed marker sink loses markers, not the recording */
	marker_ring__drain(&s->mr, s->o.marker_sink, &s->stats);
	return sink->round_end ? sink->round_end(sink) : 0;
}

static void note_status(struct collect_session *s, int st)
{
	if (WIFEXITED(st)) {
		s->stats.exited = true;
		s->stats.exit_code = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		s->stats.term_signal = WTERMSIG(st);
	}
}

/* Reap the workload if it ended; true when it did. */
static bool workload_done(struct collect_session *s, bool block)
{
	int st;

	if (s->wl.pid <= 0)
		return true;
	if (!workload__wait(&s->wl, block, &st))
		return false;
	if (st != -1)
		note_status(s, st);
	else {	/* its status pipe ended without one: the keeper was killed */
		s->stats.keeper_died = true;
		session__warn(s, "the keeper (gx-keeper) died before the workload ended: the "
			      "workload was killed with it, its exit status is unknown, and what "
			      "it started may still run");
	}
	return true;
}

int collect_session__read_event(const struct collect_session *s, size_t e, uint64_t *count,
				uint64_t *enabled, uint64_t *running)
{
	uint64_t copy_max;

	return collect_session__read_copies(s, e, count, enabled, running, &copy_max);
}

int collect_session__read_copies(const struct collect_session *s, size_t e, uint64_t *count,
				 uint64_t *enabled, uint64_t *running, uint64_t *copy_max)
{
	/* a group read: nr, enabled, running, then {value, id} per member */
	uint64_t buf[3 + 2 * s->nr_ev + 1];
	const struct collect_event *ev;
	bool any = false;

	*count = *enabled = *running = *copy_max = 0;
	if (e >= s->nr_ev || !s->fds)
		return -EINVAL;
	ev = &s->ev[e];
	for (size_t t = 0; t < s->nr_tids; t++) {
		for (size_t c = 0; c < s->nr_cpus; c++) {
			size_t i = collect_session__fd_index(s, e, t, c);
			ssize_t n;

			if (s->fds[i] < 0)
				continue;
			n = read(s->fds[i], buf, sizeof(buf));
			if (n < (ssize_t)(4 * sizeof(uint64_t)))
				continue;
			if (buf[1] > *copy_max)
				*copy_max = buf[1];
			if (ev->attr.read_format & PERF_FORMAT_GROUP) {
				uint64_t nr = buf[0];

				for (uint64_t k = 0; k < nr && 3 + 2 * k + 1 < (uint64_t)n / 8; k++) {
					if (buf[3 + 2 * k + 1] != s->fd_ids[i])
						continue;
					*count += buf[3 + 2 * k];
					*enabled += buf[1];
					*running += buf[2];
					any = true;
				}
			} else {
				*count += buf[0];
				*enabled += buf[1];
				*running += buf[2];
				any = true;
			}
		}
	}
	return any ? 0 : -ENODATA;
}

int collect_session__enable_event(struct collect_session *s, size_t e, bool enable)
{
	unsigned long req = enable ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	unsigned long flag;
	int err = 0;

	if (e >= s->nr_ev || !s->fds)
		return -EINVAL;
	flag = s->ev[e].leader ? PERF_IOC_FLAG_GROUP : 0;
	for (size_t t = 0; t < s->nr_tids; t++) {
		for (size_t c = 0; c < s->nr_cpus; c++) {
			int fd = s->fds[collect_session__fd_index(s, e, t, c)];

			if (fd >= 0 && ioctl(fd, req, flag) < 0 && !err)
				err = -errno;
		}
	}
	return err;
}

/*
 * The final counting reads. Per-CPU copies of a task's event each report
 * an enabled time that depends on how its threads and children moved
 * between CPUs (measured here: one thread gives each copy the task's whole
 * time; two threads give one copy both threads' time and the other one
 * thread's), so their sum is no multiplexing base. What holds is that an
 * event that never leaves its counter (a fixed counter, any software
 * event) runs exactly while the tasks run: the largest summed running
 * time of the session's events is the tasks' time, and each event's
 * enabled time is set to it. CPU-wide events (-a) each cover their CPU
 * for the whole run: their sums stand. When the kernel multiplexes every
 * event (--mux=kernel, or more ungrouped events than counters), none runs
 * all the time; then one copy's enabled time, which is the tasks' time in
 * both cases above, is the base (found on armv8_pmuv3 in the arm64 guest of
 * tests/pmu: without it the estimates were the running share of the truth).
 */
static uint64_t copy_enabled_max(const struct collect_session *s)
{
	uint64_t buf[3 + 2 * s->nr_ev + 1], max = 0;

	for (size_t e = 0; e < s->nr_ev; e++)
		for (size_t t = 0; t < s->nr_tids; t++)
			for (size_t c = 0; c < s->nr_cpus; c++) {
				int fd = s->fds[collect_session__fd_index(s, e, t, c)];

				if (fd >= 0 && read(fd, buf, sizeof(buf)) >= (ssize_t)(4 * sizeof(uint64_t)) &&
				    buf[1] > max)
					max = buf[1];
			}
	return max;
}

static void read_counts(struct collect_session *s)
{
	uint64_t task_ns = 0, copy_ns;

	for (size_t e = 0; e < s->nr_ev; e++) {
		struct collect_event *ev = &s->ev[e];

		ev->has_count = collect_session__read_event(s, e, &ev->count, &ev->time_enabled,
							    &ev->time_running) == 0;
		if (ev->has_count && ev->time_running > task_ns)
			task_ns = ev->time_running;
	}
	if (s->o.system_wide)
		return;
	copy_ns = s->fds ? copy_enabled_max(s) : 0;
	if (copy_ns > task_ns)
		task_ns = copy_ns;
	for (size_t e = 0; e < s->nr_ev; e++)
		if (s->ev[e].has_count)
			s->ev[e].time_enabled = task_ns;
}

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	long r = syscall(SYS_pidfd_open, pid, 0);

	return r < 0 ? -1 : (int)r;
#else
	(void)pid;
	return -1;
#endif
}

static void disable_all(struct collect_session *s)
{
	for (size_t i = 0; i < s->nr_fds; i++)
		if (s->fds[i] >= 0)
			ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

/* The kernel's maps, and tasks already running (-p, -a): described before
 * any of their samples. 0, or a negative code with *cause, or the sink's
 * error. */
static int run_synth(struct collect_session *s, struct collect_sink *sink, char **cause)
{
	struct synth_ctx c = {
		.sink = sink,
		.sample_type = s->ev[0].attr.sample_type,
		.id = s->ev[0].ids[0],
		.data_maps = s->ev[0].attr.mmap_data,
		.buf = s->bounce,
	};
	int err;

	err = synth__kernel(&c);
	if (!err && c.kernel_hidden && !s->ev[0].attr.exclude_kernel) {
		char *k = gx_read_file("/proc/sys/kernel/kptr_restrict", 64);

		session__warn(s, "kernel addresses are hidden (kernel.kptr_restrict is %d): kernel samples show as [kernel]; run `sysctl kernel.kptr_restrict=0` (or record as root) to name kernel functions",
			      k ? atoi(k) : -1);
		free(k);
	}
	if (!err && (s->o.pid || s->o.system_wide))
		err = s->o.pid ? synth__process(&c, s->o.pid, true) : synth__all(&c);
	s->stats.records += c.records;
	s->stats.bytes += c.bytes;
	if (err < 0)
		gx_fail(cause, err, "cannot describe the running processes: %s", gx_strerror(err));
	return err;
}

/* ---- control: --control, --delay, gx_pause()/gx_resume() ----------------------
 * Disabling stops every descriptor (members too); enabling starts them
 * again except the leaders of the groups rotation has off, and restarts
 * the current slice. While disabled the tracking event sees no mmap,
 * comm or fork: before enabling again, the target's threads and maps are
 * synthesized from /proc as for -p (children forked meanwhile and gone
 * already are not). */
static void control_disable(struct collect_session *s)
{
	if (s->paused)
		return;
	disable_all(s);
	s->paused = true;
	s->missed_maps = true;
}

static void control_enable(struct collect_session *s)
{
	pid_t target = s->o.pid ? s->o.pid : s->wl.pid;
	int err = 0;

	if (!s->paused)
		return;
	if (s->missed_maps && target > 0 && s->sink && s->nr_ev && s->ev[0].nr_ids) {
		struct synth_ctx c = { .sink = s->sink, .sample_type = s->ev[0].attr.sample_type,
				       .id = s->ev[0].ids[0], .buf = s->bounce,
				       .data_maps = s->ev[0].attr.mmap_data };

		if (synth__process(&c, target, true) == 0) {
			s->stats.records += c.records;
			s->stats.bytes += c.bytes;
		}
	}
	s->missed_maps = false;
	s->paused = false;
	for (size_t e = 0; e < s->nr_ev; e++) {
		const struct collect_event *ev = &s->ev[e];

		if (s->nr_rot && ev->leader && ev->group >= 0 && (size_t)ev->group != s->rot_cur)
			continue;
		for (size_t t = 0; t < s->nr_tids; t++)
			for (size_t c = 0; c < s->nr_cpus; c++) {
				int fd = s->fds[collect_session__fd_index(s, e, t, c)];

				if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0 && !err)
					err = -errno;
			}
	}
	if (s->nr_rot)
		rotation__next(s);
}

/* One command line of a control channel: perf's "enable" and "disable"
 * are obeyed and acknowledged, and so is "ping" (perf answers it: a
 * client checks the channel). perf's other commands (snapshot, stop,
 * enable/disable of one event, evlist) and anything else are not: each
 * distinct one is said once in the warnings and left unanswered, as perf
 * leaves a command it does not support. */
static void control_line(struct collect_session *s, struct ctl_chan *c, const char *line)
{
	static const char *const perfs[] = { "snapshot", "stop", "evlist", "enable ", "disable " };

	if (!strcmp(line, "enable")) {
		control_enable(s);
	} else if (!strcmp(line, "disable")) {
		control_disable(s);
	} else if (!strcmp(line, "ping")) {
		/* acknowledged, nothing to do */
	} else {
		char said[48];
		bool perf = false;

		s->stats.controls_unknown++;
		if (!*line)
			return;
		for (size_t i = 0; i < ARRAY_SIZE(perfs); i++)
			perf = perf || !strncmp(line, perfs[i], strlen(perfs[i]));
		snprintf(said, sizeof(said), "--control: '%.32s'", line);
		for (size_t i = 0; i < s->nr_warnings; i++)
			if (!strncmp(s->warnings[i], said, strlen(said)))
				return;		/* said already */
		if (s->nr_warnings < 64)
			session__warn(s, "--control: '%.32s' %s; not acknowledged (gexplore obeys "
				      "enable, disable and ping)", line,
				      perf ? "is perf's, not gexplore's" : "is not a command");
		return;
	}
	s->stats.controls++;
	if (c->wfd >= 0 && write(c->wfd, "ack\n", 4) < 0) {
		/* nobody reads the acks: the client's business */
	}
}

static void control_read(struct collect_session *s, struct ctl_chan *c)
{
	ssize_t n;

	while ((n = read(c->rfd, c->buf + c->len, sizeof(c->buf) - 1 - c->len)) > 0) {
		char *nl;

		c->len += (size_t)n;
		c->buf[c->len] = 0;
		while ((nl = memchr(c->buf, '\n', c->len))) {
			size_t used = (size_t)(nl - c->buf) + 1;

			*nl = 0;
			control_line(s, c, c->buf);
			memmove(c->buf, c->buf + used, c->len - used);
			c->len -= used;
		}
		if (c->len == sizeof(c->buf) - 1)
			c->len = 0;	/* a line too long for any command */
	}
}

/*
 * Catch SIGINT, SIGTERM and SIGHUP into the self-pipe wfd; old[] gets the
 * dispositions to restore. SA_RESTART: the sink's own I/O should not see
 * EINTR (poll() is interrupted regardless). A signal ignored by whoever
 * started us (nohup, a background job) stays ignored.
 */
static void signals_catch(int wfd, struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sig_wfd = wfd;
	for (size_t i = 0; i < ARRAY_SIZE(caught_signals); i++) {
		sigaction(caught_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(caught_signals[i], &sa, NULL);
	}
}

static void signals_restore(const struct sigaction *old)
{
	for (size_t i = 0; i < ARRAY_SIZE(caught_signals); i++)
		sigaction(caught_signals[i], &old[i], NULL);
	sig_wfd = -1;
}

/* The drain loop's state. */
struct run_loop {
	struct pollfd *pfd;	/* the rings, the signal pipe, the controls, the pidfd */
	size_t npfd, sig_slot, pid_slot, ctl_slot;
	int sig_rfd;
	int round_ms;
	bool stop, rotating, halt, halted;
	int sink_err;
	unsigned nr_sigint;	/* SIGINTs passed on to the workload */
};

static void run_loop__init(struct run_loop *r, const struct collect_session *s, int sig_rfd,
			   int pidfd)
{
	r->pfd = xcalloc(s->nr_rings + 2 + s->nr_ctl, sizeof(*r->pfd));
	r->npfd = 0;
	r->pid_slot = (size_t)-1;
	for (size_t i = 0; i < s->nr_rings; i++) {
		r->pfd[r->npfd].fd = s->rings[i].meta ? s->rings[i].fd : -1;
		r->pfd[r->npfd++].events = POLLIN;
	}
	r->sig_slot = r->npfd;
	r->sig_rfd = sig_rfd;
	r->pfd[r->npfd].fd = sig_rfd;
	r->pfd[r->npfd++].events = POLLIN;
	r->ctl_slot = r->npfd;
	for (size_t i = 0; i < s->nr_ctl; i++) {
		r->pfd[r->npfd].fd = s->ctl[i].rfd;
		r->pfd[r->npfd++].events = POLLIN;
	}
	if (pidfd >= 0) {
		r->pid_slot = r->npfd;
		r->pfd[r->npfd].fd = pidfd;
		r->pfd[r->npfd++].events = POLLIN;
	}
	r->round_ms = s->o.round_ms ? (int)s->o.round_ms : 100;
}

/* Until the next round, or the next slice switch when rotating. */
static int run_loop__timeout(const struct run_loop *r, const struct collect_session *s)
{
	int timeout = r->round_ms;

	if (r->rotating) {
		uint64_t t = gx_now_ns();
		int left = t >= s->rot_next ? 0 : (int)((s->rot_next - t + 999999) / 1000000);

		if (left < timeout)
			timeout = left;
	}
	if (s->delay_at) {
		uint64_t t = gx_now_ns();
		int left = t >= s->delay_at ? 0 : (int)((s->delay_at - t + 999999) / 1000000);

		if (left < timeout)
			timeout = left;
	}
	return timeout;
}

/* Count a wakeup when a ring had data; stop polling rings whose task is
 * gone (they would spin). */
static void run_loop__note_rings(struct run_loop *r, struct collect_session *s, int n)
{
	bool woke = false;

	for (size_t i = 0; n > 0 && i < s->nr_rings; i++) {
		if (r->pfd[i].revents & POLLIN)
			woke = true;
		if (r->pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
			r->pfd[i].fd = -1;
	}
	if (woke)
		s->stats.wakeups++;
}

/*
 * Recording over (the sink or the slice log failed); what was recorded is
 * kept; a workload still runs, is waited for and still gets the signals.
 * The current slice ends here, not when the workload does.
 */
static void run_loop__halt(struct run_loop *r, struct collect_session *s)
{
	if (r->rotating) {
		rotation__period_end(s, true);
		r->rotating = false;
	}
	disable_all(s);
	for (size_t i = 0; i < s->nr_rings; i++)
		r->pfd[i].fd = -1;
	r->halted = true;
}

/* True when /proc says task pid ignores sig. */
static bool task_ignores(pid_t pid, int sig)
{
	char path[64], *st, *p;
	unsigned long long mask = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	st = gx_read_file(path, 1 << 16);
	p = st ? strstr(st, "\nSigIgn:") : NULL;
	if (p)
		mask = strtoull(p + 8, NULL, 16);
	free(st);
	return mask & (1ULL << (sig - 1));
}

/* The second SIGINT and the workload still runs: say what stops it. */
static void notice_sigint_again(const struct collect_session *s)
{
	char *msg;

	if (!s->o.notice)
		return;
	msg = xasprintf("the workload (pid %d) %s: stop it with SIGTERM (`kill %d`; gexplore passes it on), or `kill -KILL %d`",
			(int)s->wl.pid, task_ignores(s->wl.pid, SIGINT) ? "ignores SIGINT" :
			"still runs after SIGINT", (int)getpid(), (int)s->wl.pid);
	s->o.notice(s->o.notice_arg, msg);
	free(msg);
}

/* Signals caught: forwarded to the workload, or the end of the recording
 * without one. */
static void run_loop__signals(struct run_loop *r, struct collect_session *s)
{
	unsigned char sigs[16];
	ssize_t k;

	while ((k = read(r->sig_rfd, sigs, sizeof(sigs))) > 0) {
		for (ssize_t j = 0; j < k; j++) {
			if (!s->stats.stop_signal)
				s->stats.stop_signal = sigs[j];
			if (s->has_workload && s->wl.pid > 0) {
				/* alive when the second comes: the first did not stop it */
				if (sigs[j] == SIGINT && r->nr_sigint++ == 1 && !workload_done(s, false))
					notice_sigint_again(s);
				if (s->wl.pid > 0)
					kill(s->wl.pid, sigs[j]);
			} else {
				r->stop = true;
			}
		}
	}
}

/* The workload exited, or the attached process is gone. */
static bool run_loop__target_done(const struct run_loop *r, struct collect_session *s, int n)
{
	if (s->has_workload)
		return workload_done(s, false);
	if (!s->o.pid)
		return false;
	if (r->pid_slot != (size_t)-1 && n > 0 && (r->pfd[r->pid_slot].revents & POLLIN))
		return true;
	return kill(s->o.pid, 0) < 0 && errno == ESRCH;
}

/* Poll, switch slices, drain, until the target is done or a signal ends
 * the recording. 0, or a negative code with *cause. */
static int run_loop__run(struct run_loop *r, struct collect_session *s, struct collect_sink *sink,
			 char **cause)
{
	int err = 0;

	while (!r->stop) {
		int n = poll(r->pfd, r->npfd, run_loop__timeout(r, s));

		if (n < 0 && errno != EINTR) {
			err = gx_fail(cause, -errno, "poll: %s", strerror(errno));
			break;
		}
		run_loop__note_rings(r, s, n);
		for (size_t i = 0; n > 0 && i < s->nr_ctl && !r->halted; i++)
			if (r->pfd[r->ctl_slot + i].revents & POLLIN)
				control_read(s, &s->ctl[i]);
		if (s->delay_at && gx_now_ns() >= s->delay_at && !r->halted) {
			s->delay_at = 0;
			control_enable(s);
		}
		if (r->rotating && !s->paused && gx_now_ns() >= s->rot_next) {
			err = rotation__period_end(s, false);
			if (err) {
				gx_fail(cause, err, "multiplexing: cannot switch groups: %s",
					gx_strerror(err));
				r->rotating = false;
				r->halt = true;
			}
		}
		if (!r->halt && !r->sink_err) {
			r->sink_err = drain_pass(s, sink);
			r->halt = r->sink_err != 0;
		}
		if (r->halt && !r->halted) {
			run_loop__halt(r, s);
			if (!s->has_workload)
				break;
		}
		if (n > 0 && (r->pfd[r->sig_slot].revents & POLLIN))
			run_loop__signals(r, s);
		if (run_loop__target_done(r, s, n))
			r->stop = true;
	}
	return err;
}

/* The target set going: a workload released to exec, with its keeper's
 * status pipe in *pidfd, or an attached process's pidfd; the off-CPU
 * prober started on either where asked for. */
static int run_target(struct collect_session *s, struct collect_sink *sink,
		      struct offcpu_prober **prober, int *pidfd, char **cause)
{
	int err;

	if (s->has_workload) {
		pid_t child = s->wl.pid;

		err = workload__release(&s->wl, cause);
		if (!err && sink->released)
			sink->released(sink);	/* beside the child's exec */
		if (!err)
			err = workload__execd(&s->wl, cause);
		if (err)
			return err;
		s->stats.child = child;
		if (s->o.off_cpu && s->o.offcpu_sink &&
		    offcpu_prober__start(prober, child, s->o.offcpu_probe_us,
					 s->o.offcpu_sink) < 0)
			session__warn(s, "off-CPU: cannot start the prober thread: "
					 "no reasons nor stacks for the waits");
		/* the keeper's status pipe: readable when the workload ends */
		*pidfd = workload__event_fd(&s->wl) >= 0 ?
			fcntl(workload__event_fd(&s->wl), F_DUPFD_CLOEXEC, 0) : -1;
	} else if (s->o.pid) {
		*pidfd = pidfd_of(s->o.pid);
		/* attached: /proc says what it waits on where we may read it
		 * (the same user and ptrace_scope 0, or CAP_SYS_PTRACE) */
		if (s->o.off_cpu && s->o.offcpu_sink &&
		    offcpu_prober__start(prober, s->o.pid, s->o.offcpu_probe_us,
					 s->o.offcpu_sink) < 0)
			session__warn(s, "off-CPU: cannot start the prober thread: "
					 "no reasons nor stacks for the waits");
	}
	return 0;
}

/* After the loop: the last slice, the last drain, the workload reaped, its
 * markers flushed and the final counts read. err is the loop's; returns it
 * or the first error since. */
static int run_wind_up(struct collect_session *s, struct collect_sink *sink, struct run_loop *r,
		       int err, char **cause)
{
	if (r->rotating && !err) {
		if (s->has_workload)
			workload_done(s, true);	/* the last slice ends with the run */
		err = rotation__period_end(s, true);
		if (err)
			gx_fail(cause, err, "multiplexing: cannot read the last group: %s",
				gx_strerror(err));
	}
	if (!s->has_workload)
		disable_all(s);
	if (!r->sink_err)
		r->sink_err = drain_pass(s, sink);
	if (s->has_workload) {
		workload_done(s, true);	/* only after a poll error */
		/* the keeper exits while the result is written: waiting for it
		 * at the end was the last wait of a record (issue 26, part 4) */
		workload__ended(&s->wl);
	}
	if (s->mr.hdr) {
		/* what the workload's children published until they ended */
		marker_ring__drain(&s->mr, s->o.marker_sink, &s->stats);
		s->stats.markers_lost += marker_ring__lost(&s->mr);
		if (s->o.marker_sink)
			s->o.marker_sink->flush(s->o.marker_sink, s->stats.markers_lost);
	}
	s->sink = NULL;
	read_counts(s);
	if (r->sink_err && !err)
		err = r->sink_err;
	return err;
}

/* Signals caught that the loop did not read (one that came as the
 * workload ended): they stopped the recording all the same */
static void signals_unread(int fd, struct collect_session *s)
{
	unsigned char sigs[16];
	ssize_t k;

	while ((k = read(fd, sigs, sizeof(sigs))) > 0)
		if (!s->stats.stop_signal)
			s->stats.stop_signal = sigs[0];
}

int collect_session__run(struct collect_session *s, struct collect_sink *sink, char **cause)
{
	struct sigaction old[ARRAY_SIZE(caught_signals)];
	struct run_loop r = { 0 };
	struct offcpu_prober *prober = NULL;
	int sigp[2], pidfd = -1, err = 0;

	if (s->ran)
		return gx_fail(cause, GX_E_USAGE, "a collect session runs only once");
	s->ran = true;
	s->stats.start_ns = gx_now_ns();
	if (pipe2(sigp, O_CLOEXEC | O_NONBLOCK) < 0)
		return gx_fail(cause, -errno, "cannot create a pipe: %s", strerror(errno));

	if (s->nr_ev && s->ev[0].nr_ids) {
		err = run_synth(s, sink, cause);
		if (err)
			goto out_close_pipe;
	}
	signals_catch(sigp[1], old);

	if (s->nr_rot) {
		err = rotation__start(s);
		if (err) {
			gx_fail(cause, err, "multiplexing: cannot start the rotation: %s",
				gx_strerror(err));
			goto out_restore;
		}
		r.rotating = true;
	} else if (s->kper) {
		s->rot_start = gx_now_ns();
		s->rot_next = s->rot_start + s->rot_ns;
		r.rotating = true;
	}
	err = run_target(s, sink, &prober, &pidfd, cause);
	if (err)
		goto out_restore;
	s->sink = sink;
	if (s->o.delay_ms > 0)
		s->delay_at = gx_now_ns() + (uint64_t)s->o.delay_ms * 1000000ULL;
	run_loop__init(&r, s, sigp[0], pidfd);
	err = run_loop__run(&r, s, sink, cause);
	free(r.pfd);
	offcpu_prober__stop(prober, &s->stats.offcpu_probes, &s->stats.offcpu_passes);
	prober = NULL;
	err = run_wind_up(s, sink, &r, err, cause);
out_restore:
	signals_restore(old);
	signals_unread(sigp[0], s);
	if (pidfd >= 0)
		close(pidfd);
out_close_pipe:
	close(sigp[0]);
	close(sigp[1]);
	s->stats.end_ns = gx_now_ns();
	return err;
}
