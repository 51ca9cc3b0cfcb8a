/*
 * rotation.c: multiplexing in the drain loop. With opts.rotate and two or
 * more groups, one group counts at a time and each slice's counts go to
 * the slice log; with opts.kernel_slices the kernel multiplexes and every
 * event is read at the end of each period.
 *
 * Called from the drain loop: no allocation (the buffers are
 * rotation__setup's). Slices go to mux's slice log writer (mux.h), which
 * buffers them without allocating either.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* With rotation every group leader starts disabled and is not enabled by
 * exec: __run enables the first group, the drain loop the next ones. */
void rotation__prepare(struct collect_session *s)
{
	int groups = 0;

	free(s->rot_leader);
	s->rot_leader = NULL;
	s->nr_rot = 0;
	for (size_t i = 0; i < s->nr_ev; i++)
		if (s->ev[i].group >= groups)
			groups = s->ev[i].group + 1;
	if (!s->o.rotate || groups < 2)
		return;
	s->rot_leader = xcalloc((size_t)groups, sizeof(*s->rot_leader));
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct collect_event *e = &s->ev[i];

		if (e->group < 0 || !e->leader)
			continue;
		s->rot_leader[e->group] = i;
		e->attr.disabled = 1;
		e->attr.enable_on_exec = 0;
	}
	s->nr_rot = (size_t)groups;
}

/* The slice log's reference: the first event outside every group, or -1. */
static int rotation_reference(const struct collect_session *s)
{
	for (size_t i = 0; i < s->nr_ev; i++)
		if (s->ev[i].group < 0)
			return (int)i;
	return -1;
}

int rotation__setup(struct collect_session *s, char **cause)
{
	int err;

	if (s->nr_rot) {
		s->rot_prev = xcalloc(s->nr_ev, sizeof(*s->rot_prev));
		s->rot_prev_run = xcalloc(s->nr_rot, sizeof(*s->rot_prev_run));
		s->rot_order = xcalloc(s->nr_rot, sizeof(*s->rot_order));
		s->rot_delta = xcalloc(s->nr_ev, sizeof(*s->rot_delta));
		/* a group read: nr, enabled, running, then {value, id} per member */
		s->rot_buf_len = (3 + 2 * s->nr_ev) * sizeof(*s->rot_buf);
		s->rot_buf = xmalloc(s->rot_buf_len);
		s->rot_ns = (uint64_t)(s->o.slice_ms ? s->o.slice_ms : 10) * 1000000ULL;
		s->rot_rng = gx_now_ns() ^ ((uint64_t)getpid() << 32);
		if (s->o.slice_sink) {
			err = s->o.slice_sink->begin(s->o.slice_sink, s->nr_ev,
						     rotation_reference(s), s->rot_ns, cause);
			if (err)
				return err;
			s->rot_log = s->o.slice_sink;
		}
	} else if (s->o.kernel_slices && s->o.slice_sink && s->nr_ev &&
		   collect_session__has_pmu(s)) {
		s->kper = true;
		s->rot_prev = xcalloc(s->nr_ev, sizeof(*s->rot_prev));
		s->rot_delta = xcalloc(s->nr_ev, sizeof(*s->rot_delta));
		s->kper_prev_run = xcalloc(s->nr_ev, sizeof(*s->kper_prev_run));
		s->kper_run = xcalloc(s->nr_ev, sizeof(*s->kper_run));
		s->kper_prev_en = xcalloc(s->nr_ev, sizeof(*s->kper_prev_en));
		s->kper_en = xcalloc(s->nr_ev, sizeof(*s->kper_en));
		s->rot_ns = (uint64_t)(s->o.slice_ms ? s->o.slice_ms : 10) * 1000000ULL;
		err = s->o.slice_sink->begin(s->o.slice_sink, s->nr_ev, -1, s->rot_ns, cause);
		if (err)
			return err;
		s->rot_log = s->o.slice_sink;
	}
	return 0;
}

static int rotation_toggle(struct collect_session *s, size_t g, bool enable);

/* The current slice starts now and lasts --slice. */
void rotation__next(struct collect_session *s)
{
	s->rot_start = gx_now_ns();
	s->rot_next = s->rot_start + s->rot_ns;
}

/*
 * The groups' order for the next turn of them all: a permutation drawn
 * anew each turn (Fisher-Yates). In a fixed order, a workload whose
 * behaviour repeats at about one turn kept its bursts in one group's
 * slices run after run: wl-mux-steady's sleeps, every 10 ms under 6 ms
 * slices, were estimated 10% high on average over 40 runs, from 0.6 to
 * 1.4 times their count, and the intervals, which resample a group's
 * slices as if each had fallen anywhere, held the truth in 37 of 40. In a
 * drawn order each group takes each place of a turn as often, whatever
 * the workload's period; every group still counts once a turn, so the
 * slices' lengths, their number and the groups' shares stay as they were.
 */
static void rotation_shuffle(struct collect_session *s)
{
	for (size_t i = 0; i < s->nr_rot; i++)
		s->rot_order[i] = i;
	for (size_t i = s->nr_rot; i > 1; i--) {
		size_t j = (size_t)(gx_rand_next(&s->rot_rng) % i), t = s->rot_order[i - 1];

		s->rot_order[i - 1] = s->rot_order[j];
		s->rot_order[j] = t;
	}
	s->rot_pos = 0;
}

int rotation__start(struct collect_session *s)
{
	int err;

	rotation_shuffle(s);
	s->rot_cur = s->rot_order[0];
	s->stats.nr_groups = (uint32_t)s->nr_rot;
	err = s->paused ? 0 : rotation_toggle(s, s->rot_cur, true);	/* else control_enable's */
	rotation__next(s);
	return err;
}

/*
 * Stop or start group g. Only the leader is switched (no
 * PERF_IOC_FLAG_GROUP): the members never leave INACTIVE and the kernel
 * schedules a group only with its leader, so one ioctl per descriptor
 * moves the whole group. With the flag the kernel would visit every
 * member separately, and each visit of a running task's event costs a
 * cross-CPU call (a VM exit on a virtual machine).
 */
static int rotation_toggle(struct collect_session *s, size_t g, bool enable)
{
	unsigned long req = enable ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	size_t leader = s->rot_leader[g];
	int err = 0;

	for (size_t t = 0; t < s->nr_tids; t++) {
		for (size_t c = 0; c < s->nr_cpus; c++) {
			int fd = s->fds[collect_session__fd_index(s, leader, t, c)];

			if (fd >= 0 && ioctl(fd, req, 0) < 0 && !err)
				err = -errno;
		}
	}
	return err;
}

/*
 * Group g's counts now, summed over descriptors, into count[e] (events of
 * the group only) and its running time into *run_ns: one PERF_FORMAT_GROUP
 * read of the leader per descriptor, matched to the members by id. The
 * group is stopped first, so no read reaches across CPUs. Returns false
 * when no descriptor could be read.
 */
static bool rotation_read(struct collect_session *s, size_t g, uint64_t *count, uint64_t *run_ns)
{
	size_t leader = s->rot_leader[g];
	uint64_t *buf = s->rot_buf;
	bool any = false;

	for (size_t e = leader; e < s->nr_ev; e++)
		if (s->ev[e].group == (int)g)
			count[e] = 0;
	*run_ns = 0;
	for (size_t t = 0; t < s->nr_tids; t++) {
		for (size_t c = 0; c < s->nr_cpus; c++) {
			int fd = s->fds[collect_session__fd_index(s, leader, t, c)];
			ssize_t n;
			uint64_t nr;

			if (fd < 0)
				continue;
			n = read(fd, buf, s->rot_buf_len);
			if (n < (ssize_t)(5 * sizeof(uint64_t)))
				continue;
			nr = ((uint64_t)n / sizeof(uint64_t) - 3) / 2;
			if (buf[0] < nr)
				nr = buf[0];
			*run_ns += buf[2];
			any = true;
			for (uint64_t k = 0; k < nr; k++) {
				for (size_t e = leader; e < s->nr_ev; e++) {
					if (s->ev[e].group == (int)g &&
					    buf[3 + 2 * k + 1] == s->fd_ids[collect_session__fd_index(s, e, t, c)]) {
						count[e] += buf[3 + 2 * k];
						break;
					}
				}
			}
		}
	}
	return any;
}

/* The log's last record (mux.h's MUX_SLICE_TOTALS): the always-on
 * events' counts at the end, which the slices do not carry. */
static int rotation_totals(struct collect_session *s)
{
	uint64_t *count = s->rot_delta, en, run;

	memset(count, 0, s->nr_ev * sizeof(*count));
	for (size_t e = 0; e < s->nr_ev; e++)
		if (s->ev[e].group < 0)
			collect_session__read_event(s, e, &count[e], &en, &run);
	return s->rot_log->totals(s->rot_log, count);
}

/*
 * End the current slice: stop its group, read it, log the slice; then
 * (unless last) start the next group. The always-on events are not read
 * here: that would be one more cross-CPU call per slice (they are running),
 * and the workload's time in the slice is already known: the group's
 * running time, which advances exactly while the workload's tasks run.
 */
static int rotation_switch(struct collect_session *s, bool last)
{
	uint64_t *delta = s->rot_delta, run_ns;
	size_t cur = s->rot_cur;
	struct collect_slice slice = { .group = (uint32_t)cur, .delta = delta };
	int err = 0;

	rotation_toggle(s, cur, false);
	slice.start_ns = s->rot_start;
	slice.end_ns = gx_now_ns();
	memset(delta, 0, s->nr_ev * sizeof(*delta));
	if (rotation_read(s, cur, delta, &run_ns)) {
		/* the reads are cumulative: difference them */
		for (size_t e = 0; e < s->nr_ev; e++) {
			uint64_t count = delta[e];

			if (s->ev[e].group != (int)cur)
				continue;
			delta[e] = count >= s->rot_prev[e] ? count - s->rot_prev[e] : 0;
			s->rot_prev[e] = count;
		}
		slice.task_ns = run_ns >= s->rot_prev_run[cur] ? run_ns - s->rot_prev_run[cur] : 0;
		s->rot_prev_run[cur] = run_ns;
	}
	if (!last) {
		if (++s->rot_pos == s->nr_rot)
			rotation_shuffle(s);
		s->rot_cur = s->rot_order[s->rot_pos];
		err = rotation_toggle(s, s->rot_cur, true);
		rotation__next(s);
	}
	s->stats.slices++;
	if (s->rot_log) {
		int werr = s->rot_log->slice(s->rot_log, &slice);

		if (!werr && last)
			werr = rotation_totals(s);
		if (werr && !err)
			err = werr;
	}
	return err;
}

/*
 * A period of the kernel's multiplexing ends: every event read (value,
 * time enabled and running; the same read as collect_session__read_event
 * and the final counts), differenced, and logged as one slice with the
 * running times beside the counts; its task_ns is the tasks' time in it
 * (the largest growth of one descriptor's time enabled, read_counts'
 * base). Called from the drain loop like
 * rotation_switch: no allocation.
 */
static int kernel_period(struct collect_session *s, bool last)
{
	struct collect_slice slice = { .group = 0, .delta = s->rot_delta, .running = s->kper_run,
				       .enabled = s->kper_en };
	int err = 0;

	slice.start_ns = s->rot_start;
	slice.end_ns = gx_now_ns();
	for (size_t e = 0; e < s->nr_ev; e++) {
		uint64_t c, en, run, one;

		s->rot_delta[e] = s->kper_run[e] = s->kper_en[e] = 0;
		if (collect_session__read_copies(s, e, &c, &en, &run, &one) != 0)
			continue;
		/* the tasks' time in the period, read with this event's count
		 * (as read_counts finds it; the largest is the slice's) */
		s->kper_en[e] = one >= s->kper_prev_en[e] ? one - s->kper_prev_en[e] : 0;
		if (s->kper_en[e] > slice.task_ns)
			slice.task_ns = s->kper_en[e];
		if (one > s->kper_prev_en[e])
			s->kper_prev_en[e] = one;
		s->rot_delta[e] = c >= s->rot_prev[e] ? c - s->rot_prev[e] : 0;
		s->kper_run[e] = run >= s->kper_prev_run[e] ? run - s->kper_prev_run[e] : 0;
		s->rot_prev[e] = c;
		s->kper_prev_run[e] = run;
	}
	if (!last) {
		s->rot_start = slice.end_ns;
		s->rot_next = s->rot_start + s->rot_ns;
	}
	s->stats.slices++;
	if (s->rot_log)
		err = s->rot_log->slice(s->rot_log, &slice);
	if (!err && last && s->rot_log)
		err = s->rot_log->flush(s->rot_log);
	return err;
}

/* The end of a slice or of a kernel period. */
int rotation__period_end(struct collect_session *s, bool last)
{
	return s->kper ? kernel_period(s, last) : rotation_switch(s, last);
}
