/*
 * Off-CPU time (record --off-cpu): the reasons of syscalls and kernel
 * wait functions, spans from synthetic context-switch records with a
 * probe's reason, --off-cpu-min, and offcpu.bin written, read back and
 * refused when damaged.
 */
#include "config.h"

#include "profile/profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "util/util.h"
#include "tap.h"

static const struct {
	int line;
	const char *machine;
	int32_t nr;
	const char *wchan;
	enum profile_off_reason want;
} cases[] = {
	{ __LINE__, "x86_64", 0, "pipe_read", PROFILE_OFF_IO },
	{ __LINE__, "x86_64", 1, "", PROFILE_OFF_IO },
	{ __LINE__, "x86_64", 202, "futex_wait_queue", PROFILE_OFF_LOCK },
	{ __LINE__, "x86_64", 230, "hrtimer_nanosleep", PROFILE_OFF_SLEEP },
	{ __LINE__, "x86_64", 232, "", PROFILE_OFF_SLEEP },
	{ __LINE__, "x86_64", 61, "do_wait", PROFILE_OFF_CHILD },	/* wait4 */
	{ __LINE__, "aarch64", 95, "", PROFILE_OFF_CHILD },		/* waitid */
	{ __LINE__, "x86_64", -1, "do_wait", PROFILE_OFF_CHILD },
	{ __LINE__, "aarch64", 63, "", PROFILE_OFF_IO },
	{ __LINE__, "aarch64", 98, "", PROFILE_OFF_LOCK },
	{ __LINE__, "aarch64", 115, "", PROFILE_OFF_SLEEP },
	{ __LINE__, "aarch64", 22, "", PROFILE_OFF_SLEEP },
	{ __LINE__, "aarch64", 0, "", PROFILE_OFF_OTHER },	/* io_setup: not a wait */
	/* not in a syscall known here: the kernel function */
	{ __LINE__, "x86_64", -1, "futex_wait", PROFILE_OFF_LOCK },
	{ __LINE__, "riscv64", 63, "pipe_read", PROFILE_OFF_IO },
	{ __LINE__, "x86_64", -1, "", PROFILE_OFF_OTHER },
	{ __LINE__, NULL, 0, NULL, PROFILE_OFF_OTHER },
};

static struct pd_tool *tool;

static void sw(uint32_t pid, uint32_t tid, uint64_t time, bool out, bool preempt)
{
	struct {
		struct perf_event_header h;
		uint64_t id, t;
	} r = { { PERF_RECORD_SWITCH,
		  (uint16_t)((out ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
			     (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0)),
		  sizeof(r) },
		(uint64_t)tid << 32 | pid, time };

	tool->other(tool, &r.h, 0);
}

static void spans(void)
{
	struct perf_event_attr a = { .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME };
	struct pd_offcpu_probe pr[2] = { { .time = 250, .pid = 1, .tid = 2, .syscall = 0,
					   .nr_ips = 1, .state = 'S' },
					 { .time = 5000, .pid = 1, .tid = 2, .syscall = 202,
					   .nr_ips = 0, .state = 'S' } };
	uint64_t ip0[1] = { 0x1000 }, *ips[2] = { ip0, NULL };
	struct pd_offcpu probes = { .machine = "x86_64", .probes = pr, .ips = ips, .nr = 2 };
	struct profile *inner;
	struct profile_offcpu *oc;
	const struct profile_off_thread *t;
	struct pd_task fk = { .pid = 1, .ppid = 1, .tid = 2, .ptid = 1, .time = 100 };
	struct pd_task ex = { .pid = 1, .ppid = 1, .tid = 2, .ptid = 1, .time = 1500 };
	char *cause = NULL;

	for (int min = 0; min < 2; min++) {
		probes.min_us = min ? 2 : 0;	/* 2000 ns */
		inner = profile__new(1 + PROFILE_OFF_VALUES);	/* an event, then the values */
		is_int(profile_offcpu__new(&oc, profile__tool(inner), &a, &probes, -1, inner, 1, false,
					   0, 0, &cause), 0, "new (min_us %u)", probes.min_us);
		tool = profile_offcpu__tool(oc);
		tool->fork(tool, &fk);		/* runnable from 100 */
		sw(1, 2, 150, false, false);	/* on at 150: 50 ns cpu */
		sw(1, 2, 200, true, false);	/* a wait: the probe at 250 says read */
		sw(1, 2, 1200, false, false);	/* 1000 ns io */
		sw(1, 2, 1300, true, true);	/* preempted */
		sw(1, 2, 1400, false, false);	/* 100 ns cpu */
		tool->exit(tool, &ex);
		profile_offcpu__finish(oc, 0);
		ok(profile_offcpu__has_switches(oc), "switches seen");
		is_int(profile_offcpu__nr_threads(oc), 1, "one thread");
		t = profile_offcpu__thread(oc, 0);
		is_int(t->tid, 2, "its tid");
		is_int(t->off_ns, 1150, "off 50 + 1000 + 100 ns");
		is_int(t->end - t->start, 1400, "life from fork to exit");
		is_int(t->waits, 3, "three spans");
		is_int(t->reason_ns[PROFILE_OFF_IO], 1000, "the probed read is io");
		is_int(t->reason_ns[PROFILE_OFF_CPU], 150, "runnable and preempted: cpu");
		is_int(t->reason_ns[PROFILE_OFF_LOCK], 0, "the probe after the span is not its");
		is_int(t->short_ns, min ? 1150 : 0, "under --off-cpu-min: short");
		is_int(t->probed_ns, min ? 0 : 1000, "the read has a stack unless short");
		/* every wait, with a stack or not (short ones, without) */
		is_int(profile__total_period(inner, 1), 1150, "the value off-cpu got every wait's ns");
		is_int(profile__total_samples(inner, 1), 3, "... one sample a wait");
		is_int(profile__total_period(inner, 2 + PROFILE_OFF_IO), 1000,
		       "... and the value off-cpu:io the read's");
		is_int(profile__total_period(inner, 2 + PROFILE_OFF_CPU), 150,
		       "... and off-cpu:cpu the preemptions'");
		is_int(profile__total_period(inner, 0), 0, "the event none");
		if (!min) {	/* the tid comes back: a new thread, the old one kept */
			struct pd_task again = { .pid = 1, .ppid = 1, .tid = 2, .ptid = 1,
						 .time = 3000 };

			tool->fork(tool, &again);
			sw(1, 2, 3100, false, false);
			profile_offcpu__finish(oc, 0);
			is_int(profile_offcpu__nr_threads(oc), 2, "a reused tid is a second thread");
			is_int(profile_offcpu__thread(oc, 0)->off_ns, 1150, "the first keeps its time");
			is_int(profile_offcpu__thread(oc, 1)->off_ns, 100, "the second waited 100 ns");
		}
		profile_offcpu__delete(oc);
		profile__delete(inner);
	}
}

/* A switch record whose time lies outside the recording's (a mutated
 * file): dropped and counted, never a 584-year wait (issue 45). */
static void bad_times(void)
{
	struct perf_event_attr a = { .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME };
	struct profile *inner = profile__new(PROFILE_OFF_VALUES);
	struct profile_offcpu *oc;
	char *cause = NULL;

	for (int known = 0; known < 2; known++) {
		is_int(profile_offcpu__new(&oc, profile__tool(inner), &a, NULL, -1, inner, 0, false,
					   known ? 1000 : 0, known ? 2000 : 0, &cause), 0,
		       "new (run's times %s)", known ? "known" : "unknown");
		tool = profile_offcpu__tool(oc);
		sw(1, 2, 1100, true, false);
		sw(1, 2, 1200, false, false);		/* 100 ns off */
		sw(1, 2, 1300, true, false);
		sw(1, 2, known ? 30000000000ull : (1ull << 63) + 5, false, false);
		sw(1, 2, 1400, false, false);		/* 100 ns off */
		profile_offcpu__finish(oc, 1500);
		is_int(profile_offcpu__dropped(oc), 1, "the mutated time: dropped and counted");
		is_int(profile_offcpu__thread(oc, 0)->off_ns, 200, "off 200 ns, not centuries");
		profile_offcpu__delete(oc);
	}
	profile__delete(inner);
}

static void file(void)
{
	char dir[] = "/tmp/gx-offcpu-XXXXXX", *path, *cause = NULL;
	struct pd_offcpu_writer *w;
	struct pd_offcpu_probe p = { .time = 7, .pid = 1, .tid = 2, .syscall = 202, .nr_ips = 2,
				     .state = 'S', .wchan = "futex_wait" };
	uint64_t ips[2] = { 0x10, 0x20 };
	struct pd_offcpu *o;
	int fd;

	if (!mkdtemp(dir)) {
		skip(9, "no temporary directory");
		return;
	}
	path = xasprintf("%s/offcpu.bin", dir);
	is_int(pd_offcpu_writer__new(&w, AT_FDCWD, path, 2000, 5, &cause), 0, "writer");
	is_int(pd_offcpu_writer__add(w, &p, ips), 0, "a probe");
	p.time = 9;
	p.nr_ips = 0;
	is_int(pd_offcpu_writer__add(w, &p, ips), 0, "another, no stack");
	is_int(pd_offcpu_writer__finish(w, &cause), 0, "finish");
	pd_offcpu_writer__delete(w);
	is_int(pd_offcpu__read(path, &o, &cause), 0, "read back");
	ok(o && o->nr == 2 && o->probes[0].nr_ips == 2 && o->ips[0][1] == 0x20 &&
	   o->probes[1].time == 9 && !strcmp(o->probes[0].wchan, "futex_wait") &&
	   o->probe_us == 2000 && o->min_us == 5, "probes, stacks and the header as written");
	pd_offcpu__delete(o);
	/* a probe claiming 65 addresses: refused, not read past */
	fd = open(path, O_WRONLY);
	p.nr_ips = 65;
	ok(fd >= 0 && pwrite(fd, &p, sizeof(p), 64) == (ssize_t)sizeof(p), "damage it");
	if (fd >= 0)
		close(fd);
	is_int(pd_offcpu__read(path, &o, &cause), GX_E_FORMAT, "65 addresses: refused (%s)",
	       cause ? cause : "");
	free(cause);
	cause = NULL;
	/* a killed recording's file (no count in the header) run on by 1 GiB
	 * of zeros, as a sparse file: refused at the first zero time, not
	 * read as 16 M empty probes */
	p.nr_ips = 0;
	p.time = 9;
	fd = open(path, O_WRONLY);
	ok(fd >= 0 && pwrite(fd, &p, sizeof(p), 64) == (ssize_t)sizeof(p) &&
	   pwrite(fd, &(uint64_t){ 0 }, 8, 16) == 8 && ftruncate(fd, (off_t)1 << 30) == 0,
	   "a count of 0, and zeros to 1 GiB");
	if (fd >= 0)
		close(fd);
	is_int(pd_offcpu__read(path, &o, &cause), GX_E_FORMAT, "zeros: refused (%s)",
	       cause ? cause : "");
	ok(cause && strstr(cause, "has time 0"), "... at the first probe of time 0");
	free(cause);
	cause = NULL;
	/* a probe that steps back in time: 9, then 5 */
	p.time = 5;
	fd = open(path, O_WRONLY);
	ok(fd >= 0 && ftruncate(fd, 64 + 2 * sizeof(p)) == 0 &&
	   pwrite(fd, &p, sizeof(p), 64 + sizeof(p)) == (ssize_t)sizeof(p), "a step back");
	if (fd >= 0)
		close(fd);
	is_int(pd_offcpu__read(path, &o, &cause), GX_E_FORMAT, "a step back: refused (%s)",
	       cause ? cause : "");
	free(cause);
	cause = NULL;
	is_int(pd_offcpu__read("/nonexistent/offcpu.bin", &o, &cause), -ENOENT, "none: -ENOENT");
	ok(!cause, "and no message");
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		is_int_at(profile_off_reason__classify(cases[i].machine, cases[i].nr, cases[i].wchan),
			  cases[i].want, cases[i].line, "line %d: %s %d %s", cases[i].line,
			  cases[i].machine ? cases[i].machine : "(null)", cases[i].nr,
			  cases[i].wchan ? cases[i].wchan : "(null)");
	is_str(profile_off_reason__name(PROFILE_OFF_LOCK), "lock", "reason names");
	is_int(profile_off_reason__classify_kernel("futex_wait_queue"), PROFILE_OFF_LOCK,
	       "kernel: futex_wait_queue is lock");
	is_int(profile_off_reason__classify_kernel("pipe_read"), PROFILE_OFF_IO, "kernel: pipe_read is io");
	is_int(profile_off_reason__classify_kernel("do_nanosleep"), PROFILE_OFF_SLEEP,
	       "kernel: do_nanosleep is sleep");
	is_int(profile_off_reason__classify_kernel("do_sys_poll"), PROFILE_OFF_SLEEP,
	       "kernel: do_sys_poll is sleep");
	is_int(profile_off_reason__classify_kernel("__schedule"), PROFILE_OFF_OTHER,
	       "kernel: the scheduler says nothing (the next frame is tried)");
	is_int(profile_off_reason__classify_kernel(NULL), PROFILE_OFF_OTHER, "kernel: no name");
	is_int(profile_off_reason__classify_kernel("futex_do_wait"), PROFILE_OFF_LOCK,
	       "kernel: futex_do_wait is a lock's, not a child's");
	is_int(profile_off_reason__classify_kernel("do_wait"), PROFILE_OFF_CHILD,
	       "kernel: do_wait is a child's");
	is_str(profile_off_value__name(0), "off-cpu", "value 0: off-cpu");
	is_str(profile_off_value__name(1 + PROFILE_OFF_JOIN), "off-cpu:join", "a reason's value");
	spans();
	bad_times();
	file();
	return done_testing();
}
