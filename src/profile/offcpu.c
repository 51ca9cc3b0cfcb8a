/*
 * offcpu.c: off-CPU time from context-switch records, with reasons and
 * stacks from the prober's reads (see profile.h).
 */
#include "config.h"

#include "profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symbolize.h"
#include "util/util.h"

#define MAX_CHAIN 256		/* a kernel part, a context marker and PD_OFFCPU_MAX_IPS */
#define SW_SLACK_NS 1000000	/* a switch-out sample this near the switch is its */

static const char *const reason_names[PROFILE_OFF_NR_] = { "sleep", "io",   "lock", "cpu",
							   "join",  "child", "other" };
static const char *const value_names[PROFILE_OFF_VALUES] = {
	"off-cpu",	 "off-cpu:sleep", "off-cpu:io",	  "off-cpu:lock",
	"off-cpu:cpu",	 "off-cpu:join",  "off-cpu:child", "off-cpu:other",
};

const char *profile_off_reason__name(enum profile_off_reason r)
{
	return (unsigned)r < PROFILE_OFF_NR_ ? reason_names[r] : "other";
}

const char *profile_off_value__name(size_t k)
{
	return k < PROFILE_OFF_VALUES ? value_names[k] : "off-cpu:other";
}

/* Syscall numbers by name, for the machines gexplore records on. */
struct sysno {
	const char *name;
	int x86_64, aarch64;	/* -1: none there */
	enum profile_off_reason reason;
};

static const struct sysno sysnos[] = {
	{ "read", 0, 63, PROFILE_OFF_IO },
	{ "write", 1, 64, PROFILE_OFF_IO },
	{ "readv", 19, 65, PROFILE_OFF_IO },
	{ "writev", 20, 66, PROFILE_OFF_IO },
	{ "pread64", 17, 67, PROFILE_OFF_IO },
	{ "pwrite64", 18, 68, PROFILE_OFF_IO },
	{ "preadv", 295, 69, PROFILE_OFF_IO },
	{ "pwritev", 296, 70, PROFILE_OFF_IO },
	{ "sendfile", 40, 71, PROFILE_OFF_IO },
	{ "splice", 275, 76, PROFILE_OFF_IO },
	{ "openat", 257, 56, PROFILE_OFF_IO },
	{ "fsync", 74, 82, PROFILE_OFF_IO },
	{ "fdatasync", 75, 83, PROFILE_OFF_IO },
	{ "accept", 43, 202, PROFILE_OFF_IO },
	{ "accept4", 288, 242, PROFILE_OFF_IO },
	{ "connect", 42, 203, PROFILE_OFF_IO },
	{ "sendto", 44, 206, PROFILE_OFF_IO },
	{ "recvfrom", 45, 207, PROFILE_OFF_IO },
	{ "sendmsg", 46, 211, PROFILE_OFF_IO },
	{ "recvmsg", 47, 212, PROFILE_OFF_IO },
	{ "io_getevents", 208, 4, PROFILE_OFF_IO },
	{ "io_uring_enter", 426, 426, PROFILE_OFF_IO },
	{ "nanosleep", 35, 101, PROFILE_OFF_SLEEP },
	{ "clock_nanosleep", 230, 115, PROFILE_OFF_SLEEP },
	{ "poll", 7, -1, PROFILE_OFF_SLEEP },
	{ "select", 23, -1, PROFILE_OFF_SLEEP },
	{ "pselect6", 270, 72, PROFILE_OFF_SLEEP },
	{ "ppoll", 271, 73, PROFILE_OFF_SLEEP },
	{ "epoll_wait", 232, -1, PROFILE_OFF_SLEEP },
	{ "epoll_pwait", 281, 22, PROFILE_OFF_SLEEP },
	{ "epoll_pwait2", 441, 441, PROFILE_OFF_SLEEP },
	{ "pause", 34, -1, PROFILE_OFF_SLEEP },
	{ "rt_sigsuspend", 130, 133, PROFILE_OFF_SLEEP },
	{ "rt_sigtimedwait", 128, 137, PROFILE_OFF_SLEEP },
	{ "futex", 202, 98, PROFILE_OFF_LOCK },
	{ "futex_waitv", 449, 449, PROFILE_OFF_LOCK },
	{ "futex_wait", 455, 455, PROFILE_OFF_LOCK },
	{ "flock", 73, 32, PROFILE_OFF_LOCK },
	{ "semop", 65, 193, PROFILE_OFF_LOCK },
	{ "semtimedop", 220, 192, PROFILE_OFF_LOCK },
	{ "wait4", 61, 260, PROFILE_OFF_CHILD },
	{ "waitid", 247, 95, PROFILE_OFF_CHILD },
};

enum profile_off_reason profile_off_reason__classify(const char *machine, int32_t nr,
						     const char *wchan)
{
	bool arm = machine && (!strcmp(machine, "aarch64") || !strcmp(machine, "arm64"));
	bool x86 = machine && !strcmp(machine, "x86_64");

	if (nr >= 0 && (arm || x86))
		for (size_t i = 0; i < ARRAY_SIZE(sysnos); i++)
			if ((x86 ? sysnos[i].x86_64 : sysnos[i].aarch64) == nr)
				return sysnos[i].reason;
	/* not in a syscall known here: the kernel function it sleeps in */
	if (wchan && *wchan) {
		if (!strcmp(wchan, "do_wait") || strstr(wchan, "wait4") || strstr(wchan, "waitid"))
			return PROFILE_OFF_CHILD;
		if (strstr(wchan, "futex") || strstr(wchan, "rwsem") || strstr(wchan, "mutex"))
			return PROFILE_OFF_LOCK;
		if (strstr(wchan, "sleep"))
			return PROFILE_OFF_SLEEP;
		if (strstr(wchan, "pipe") || strstr(wchan, "read") || strstr(wchan, "write") ||
		    strstr(wchan, "io_") || strstr(wchan, "folio") || strstr(wchan, "sock") ||
		    strstr(wchan, "tcp") || strstr(wchan, "unix"))
			return PROFILE_OFF_IO;
		if (strstr(wchan, "poll") || strstr(wchan, "select"))
			return PROFILE_OFF_SLEEP;
	}
	return PROFILE_OFF_OTHER;
}

enum profile_off_reason profile_off_reason__classify_kernel(const char *fn)
{
	static const struct {
		const char *part;
		enum profile_off_reason reason;
	} parts[] = {
		{ "futex", PROFILE_OFF_LOCK }, { "rwsem", PROFILE_OFF_LOCK },
		{ "mutex_lock", PROFILE_OFF_LOCK }, { "flock", PROFILE_OFF_LOCK },
		{ "nanosleep", PROFILE_OFF_SLEEP }, { "hrtimeout", PROFILE_OFF_SLEEP },
		{ "poll", PROFILE_OFF_SLEEP }, { "select", PROFILE_OFF_SLEEP },
		{ "sigsuspend", PROFILE_OFF_SLEEP }, { "sigtimedwait", PROFILE_OFF_SLEEP },
		{ "pipe_", PROFILE_OFF_IO }, { "sock", PROFILE_OFF_IO }, { "tcp_", PROFILE_OFF_IO },
		{ "unix_", PROFILE_OFF_IO }, { "io_schedule", PROFILE_OFF_IO },
		{ "folio_wait", PROFILE_OFF_IO }, { "vfs_read", PROFILE_OFF_IO },
		{ "vfs_write", PROFILE_OFF_IO }, { "sys_read", PROFILE_OFF_IO },
		{ "sys_write", PROFILE_OFF_IO }, { "fsync", PROFILE_OFF_IO },
		/* after futex: futex_do_wait is a lock's */
		{ "do_wait", PROFILE_OFF_CHILD }, { "wait4", PROFILE_OFF_CHILD },
		{ "waitid", PROFILE_OFF_CHILD },
	};

	if (!fn)
		return PROFILE_OFF_OTHER;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (strstr(fn, parts[i].part))
			return parts[i].reason;
	return PROFILE_OFF_OTHER;
}

/* ---- the analysis ------------------------------------------------------- */

struct tid_probes {
	size_t *idx;		/* into probes, time order */
	size_t nr, cap;
};

struct profile_offcpu {
	struct pd_tool tool;		/* first */
	struct pd_tool *inner;
	struct profile *prof;		/* the profile inner credits: its maps and symbols */
	size_t value0;			/* its first off-CPU value */
	uint64_t lo_ns, hi_ns;		/* the recording's times (0, 0: unknown) */
	uint64_t dropped;		/* switch records out of them */
	uint64_t last_sample;		/* the latest sample's time */
	const struct pd_offcpu *probes;
	int cs_evsel;
	uint64_t sample_type;		/* the records' sample_id_all trailer */
	uint64_t min_ns;
	bool kernel_self;	/* a wait's self on its kernel leaf (profile_opts) */
	struct profile_off_thread *threads;
	size_t nr_threads, cap_threads;
	struct u64map thread_idx;	/* tid -> threads index */
	struct tid_probes *tp;		/* per thread index */
	struct u64map probe_idx;	/* tid -> tp index + 1 */
	struct tid_probes *by_tid;
	size_t nr_by_tid;
	uint64_t last_time;
	uint64_t first_time;		/* the first switch record's */
	bool switches;
	struct profile_off_span *spans;
	size_t nr_spans, cap_spans;
	uint64_t chain[MAX_CHAIN];
};

#define RUN_SLACK_NS 10000000000ull	/* records this far outside the run's times stand */
#define GAP_NS (1ull << 47)	/* about 39 hours past the last sample: not this run's */

/*
 * Whether a switch, fork or exit record's time lies within the
 * recording's (with some slack): a timestamp is checked as a period is
 * (issue 45: a mutated file gave a thread a 584-year life and 3420% off
 * the CPU). Not known (no meta.json, a bare perf.data): a time past the
 * last sample's by GAP_NS fails (records come in time order: a mutated
 * one comes after every sample), as do 0 and the last 2^63 ns.
 */
static bool in_run(const struct profile_offcpu *oc, uint64_t time)
{
	if (!time || time >= (1ull << 63))
		return false;
	if (!oc->hi_ns)
		return !oc->last_sample || time <= oc->last_sample + GAP_NS;
	return time + RUN_SLACK_NS >= oc->lo_ns && time <= oc->hi_ns + RUN_SLACK_NS;
}

static struct profile_off_thread *thread_findnew(struct profile_offcpu *oc, uint32_t pid,
						 uint32_t tid, uint64_t time)
{
	uint64_t *i = u64map__findnew(&oc->thread_idx, tid, UINT64_MAX);
	struct profile_off_thread *t;

	if (*i != UINT64_MAX) {
		t = &oc->threads[*i];
		if (!t->pid && pid)
			t->pid = pid;
		if (time && (!t->start || time < t->start))
			t->start = time;
		if (time > t->end)
			t->end = time;
		return t;
	}
	if (oc->nr_threads == oc->cap_threads) {
		oc->cap_threads = oc->cap_threads ? 2 * oc->cap_threads : 64;
		oc->threads = xrealloc(oc->threads, oc->cap_threads * sizeof(*oc->threads));
	}
	*i = oc->nr_threads;
	t = &oc->threads[oc->nr_threads++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->start = t->end = time;
	t->comm = NULL;
	return t;
}

static void set_comm(struct profile_off_thread *t, const char *comm)
{
	free((char *)t->comm);
	t->comm = xstrdup(comm ? comm : "");
}

/* The sample_id_all trailer of a non-sample record: pid, tid, time. */
static bool trailer(const struct profile_offcpu *oc, const struct perf_event_header *h,
		    uint32_t *pid, uint32_t *tid, uint64_t *time)
{
	uint64_t t = oc->sample_type;
	size_t n = !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		   !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
		   !!(t & PERF_SAMPLE_IDENTIFIER);
	const uint8_t *p;
	uint64_t v;

	if (!(t & PERF_SAMPLE_TID) || !(t & PERF_SAMPLE_TIME) || h->size < sizeof(*h) + n * 8)
		return false;
	p = (const uint8_t *)h + h->size - n * 8;
	memcpy(&v, p, 8);
	*pid = (uint32_t)v;
	*tid = (uint32_t)(v >> 32);
	memcpy(time, p + 8, 8);
	return true;
}

/* The first probe of tid taken within [from, to], or NULL. */
static const struct pd_offcpu_probe *probe_in(struct profile_offcpu *oc,
					      struct profile_off_thread *t, uint64_t from,
					      uint64_t to, const uint64_t **ips)
{
	uint64_t *k;
	struct tid_probes *tp;

	if (!oc->probes)
		return NULL;
	k = u64map__find(&oc->probe_idx, t->tid);
	if (!k)
		return NULL;
	tp = &oc->by_tid[*k];
	while (t->next_probe < tp->nr && oc->probes->probes[tp->idx[t->next_probe]].time < from)
		t->next_probe++;
	if (t->next_probe < tp->nr) {
		size_t i = tp->idx[t->next_probe];

		if (oc->probes->probes[i].time <= to) {
			*ips = oc->probes->ips[i];
			return &oc->probes->probes[i];
		}
	}
	return NULL;
}

/*
 * A wait's stack from its user part alone, where it has one: the self
 * time goes to the innermost user function, the one that waited, not to
 * schedule() (issue 45: as root every wait's self was schedule's). s's
 * callchain is oc->chain's copy then.
 */
static void user_leaf(struct profile_offcpu *oc, struct pd_sample *s)
{
	uint64_t i, n = 0;

	if (oc->kernel_self || !s->nr_callchain ||
	    (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_KERNEL)
		return;
	for (i = 0; i < s->nr_callchain && s->callchain[i] != PERF_CONTEXT_USER; i++)
		;
	if ((i + 1 >= s->nr_callchain || s->callchain[i + 1] >= PERF_CONTEXT_MAX) &&
	    s->user_regs && s->user_regs_mask && s->stack && s->stack_dyn_size) {
		/* --call-graph dwarf: the user stack is the unwinder's, from
		 * the user registers; a user-mode sample takes its leaf from
		 * there (issue 45: as root every dwarf wait's self was
		 * schedule's) */
		s->misc = (uint16_t)((s->misc & ~PERF_RECORD_MISC_CPUMODE_MASK) |
				     PERF_RECORD_MISC_USER);
		s->callchain = NULL;
		s->nr_callchain = 0;
		return;
	}
	if (i + 1 >= s->nr_callchain || s->callchain[i + 1] >= PERF_CONTEXT_MAX)
		return;		/* no user frame: the kernel's stays */
	for (; i < s->nr_callchain && n < MAX_CHAIN; i++)
		oc->chain[n++] = s->callchain[i];
	s->ip = oc->chain[1];	/* the user pc the kernel was entered at */
	s->misc = (uint16_t)((s->misc & ~PERF_RECORD_MISC_CPUMODE_MASK) | PERF_RECORD_MISC_USER);
	s->callchain = oc->chain;
	s->nr_callchain = n;
}

/*
 * Credit a wait through the profile's one sample path: a sample like the
 * wait's at its start, of value off-cpu with the wait's ns as its period
 * (a span: a time range credits its overlap), then the same of its
 * reason's value.
 */
static int credit(struct profile_offcpu *oc, const struct pd_sample *like, uint64_t start,
		  uint64_t ns, enum profile_off_reason why)
{
	struct pd_sample s = *like;
	int err;

	if (!oc->inner->sample)
		return 0;
	s.time = start;	/* a preemption's sample may be the thread's last */
	s.period = ns;
	s.read = NULL;
	user_leaf(oc, &s);
	s.evsel = (uint32_t)oc->value0;
	err = oc->inner->sample(oc->inner, &s);
	if (err)
		return err;
	s.evsel = (uint32_t)(oc->value0 + 1 + why);
	return oc->inner->sample(oc->inner, &s);
}

#define USER_REASON_FRAMES 16	/* the user frames looked at for a join or a child */

/*
 * A wait's reason from its user frames (s's callchain after its user
 * marker) where they tell more than the kernel's: a futex wait under
 * pthread_join is a join, not a lock; a wait under waitpid or wait4 a
 * child's (issue 45: 3.3 s of joins read as lock, a shell's waits as
 * other). why otherwise.
 */
static enum profile_off_reason user_reason(struct profile_offcpu *oc, const struct pd_sample *s,
					   enum profile_off_reason why)
{
	uint64_t i = 0, seen = 0;
	bool user = (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;

	if (why != PROFILE_OFF_LOCK && why != PROFILE_OFF_OTHER)
		return why;
	for (; i < s->nr_callchain && seen < USER_REASON_FRAMES; i++) {
		uint64_t ip = s->callchain[i];
		const char *fn;

		if (ip >= PERF_CONTEXT_MAX) {
			user = ip == PERF_CONTEXT_USER;
			continue;
		}
		if (!user)
			continue;
		fn = profile__user_function(oc->prof, s->pid, seen++ && ip ? ip - 1 : ip);
		if (!fn)
			continue;
		if (strstr(fn, "pthread_join") || strstr(fn, "pthread_clockjoin") ||
		    strstr(fn, "pthread_timedjoin") || strstr(fn, "thrd_join"))
			return PROFILE_OFF_JOIN;
		if (strstr(fn, "waitpid") || strstr(fn, "wait4") || strstr(fn, "waitid"))
			return PROFILE_OFF_CHILD;
	}
	return why;
}

/* A wait's reason from the kernel part of its switch-out sample: the
 * first function from the leaf that says one. */
static enum profile_off_reason kernel_reason(struct profile_offcpu *oc, const struct pd_sample *s)
{
	struct sym_session *sym = profile__symbolizer(oc->prof);

	for (uint64_t i = 0; sym && i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];
		enum profile_off_reason r;

		if (ip == PERF_CONTEXT_USER)
			break;
		if (ip >= PERF_CONTEXT_MAX)
			continue;
		r = profile_off_reason__classify_kernel(
			sym_session__str(sym, sym_session__lookup_kernel(sym, ip)->symbol));
		if (r != PROFILE_OFF_OTHER)
			return r;
	}
	return PROFILE_OFF_OTHER;
}

/* s's kernel callchain, then the probe's user addresses: in oc->chain. */
static void merge_user(struct profile_offcpu *oc, struct pd_sample *s, const uint64_t *ips,
		       uint16_t nr_ips)
{
	size_t n = 0;

	for (uint64_t i = 0; i < s->nr_callchain && n < MAX_CHAIN - 1 - PD_OFFCPU_MAX_IPS; i++) {
		if (s->callchain[i] == PERF_CONTEXT_USER)
			break;
		oc->chain[n++] = s->callchain[i];
	}
	oc->chain[n++] = PERF_CONTEXT_USER;
	memcpy(oc->chain + n, ips, nr_ips * sizeof(*ips));
	n += nr_ips;
	s->callchain = oc->chain;
	s->nr_callchain = n;
	s->sample_type |= PERF_SAMPLE_CALLCHAIN;
	s->user_regs = NULL;	/* no dwarf unwinding over the probe's part */
	s->user_regs_mask = 0;
	s->stack = NULL;
	s->stack_size = s->stack_dyn_size = 0;
}

/*
 * The sample a wait is credited through, in *s (its callchain may be
 * oc->chain), or false when it has no stack: the switch-out sample (sw),
 * with the probe's user part when there is one (frame pointers stop in
 * the libc wrapper of the syscall; the scan goes past it); else the
 * probe's stack alone; else for a preemption the thread's last sample.
 */
static bool wait_sample(struct profile_offcpu *oc, struct profile_off_thread *t, bool sw,
			const struct pd_offcpu_probe *pr, const uint64_t *ips, struct pd_sample *s)
{
	if (sw) {
		*s = t->sw.s;
		if (pr && pr->nr_ips)
			merge_user(oc, s, ips, pr->nr_ips);
		return true;
	}
	if (pr && pr->nr_ips) {
		*s = (struct pd_sample){ .misc = PERF_RECORD_MISC_USER, .pid = t->pid, .tid = t->tid,
					 .time = t->out_time, .ip = ips[0],
					 .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
							PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
							PERF_SAMPLE_CALLCHAIN };
		oc->chain[0] = PERF_CONTEXT_USER;
		memcpy(oc->chain + 1, ips, pr->nr_ips * sizeof(*ips));
		s->callchain = oc->chain;
		s->nr_callchain = pr->nr_ips + 1u;
		return true;
	}
	if (t->preempt && t->last.has) {
		*s = t->last.s;
		return true;
	}
	return false;
}

static int span_end(struct profile_offcpu *oc, struct profile_off_thread *t, uint64_t in)
{
	uint64_t ns = in > t->out_time ? in - t->out_time : 0;
	enum profile_off_reason why = PROFILE_OFF_OTHER;
	const struct pd_offcpu_probe *pr = NULL;
	const uint64_t *ips = NULL;
	struct pd_sample s;
	bool sw, stack;

	t->out = false;
	if (!ns) {
		t->before = false;
		return 0;
	}
	t->off_ns += ns;
	t->waits++;
	sw = t->sw.has && t->sw.s.time + SW_SLACK_NS >= t->out_time &&
	     t->sw.s.time <= t->out_time + SW_SLACK_NS;
	if (t->preempt)
		why = PROFILE_OFF_CPU;
	/* a wait since before the recording: the prober's first pass may
	 * have read it before the first switch record (issue 41) */
	else if ((pr = probe_in(oc, t, t->before ? 0 : t->out_time, in, &ips)) != NULL)
		why = profile_off_reason__classify(oc->probes->machine, pr->syscall, pr->wchan);
	else if (sw)
		why = kernel_reason(oc, &t->sw.s);
	t->before = false;
	stack = wait_sample(oc, t, sw, pr, ips, &s);
	if (stack)
		why = user_reason(oc, &s, why);
	t->reason_ns[why] += ns;
	oc->spans = xgrow(oc->spans, &oc->cap_spans, oc->nr_spans + 1, sizeof(*oc->spans));
	oc->spans[oc->nr_spans++] = (struct profile_off_span){ t->out_time, in, t->tid, why };
	if (ns < oc->min_ns || !stack) {
		/* no stack (under --off-cpu-min, or no probe nor sample saw
		 * it): still the thread's time, credited where no function
		 * is, "[unknown]", so that every row's off-cpu adds up to the
		 * threads' */
		if (ns < oc->min_ns)
			t->short_ns += ns;
		s = (struct pd_sample){ .misc = PERF_RECORD_MISC_USER, .pid = t->pid, .tid = t->tid,
					.time = t->out_time,
					.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						       PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD };
		return credit(oc, &s, t->out_time, ns, why);
	}
	if (sw) {
		t->sw.has = false;
		t->switch_ns += ns;
	}
	t->probed_ns += ns;
	return credit(oc, &s, t->out_time, ns, why);
}

/* A copy of sample s that outlives its record. */
static void keep(struct profile_off_kept *k, const struct pd_sample *s)
{
	size_t regs = (size_t)__builtin_popcountll(s->user_regs_mask);

	k->s = *s;
	k->s.read = NULL;
	k->s.raw = NULL;
	k->s.raw_size = 0;
	k->s.branches = NULL;
	k->s.nr_branches = 0;
	k->chain = xrealloc(k->chain, (s->nr_callchain + 1) * sizeof(uint64_t));
	if (s->nr_callchain)
		memcpy(k->chain, s->callchain, s->nr_callchain * sizeof(uint64_t));
	k->s.callchain = k->chain;
	k->regs = xrealloc(k->regs, (regs + 1) * sizeof(uint64_t));
	if (s->user_regs && regs)
		memcpy(k->regs, s->user_regs, regs * sizeof(uint64_t));
	k->s.user_regs = s->user_regs ? k->regs : NULL;
	k->stack = xrealloc(k->stack, s->stack_size + 1);
	if (s->stack && s->stack_size)
		memcpy(k->stack, s->stack, s->stack_size);
	k->s.stack = s->stack ? k->stack : NULL;
	k->has = true;
}

static void kept_free(struct profile_off_kept *k)
{
	free(k->chain);
	free(k->regs);
	free(k->stack);
}

static int oc_sample(struct pd_tool *tool, const struct pd_sample *s)
{
	struct profile_offcpu *oc = (struct profile_offcpu *)tool;
	struct profile_off_thread *t = thread_findnew(oc, s->pid, s->tid, s->time);

	if (s->time > oc->last_time)
		oc->last_time = s->time;
	if (s->time > oc->last_sample && s->time < (1ull << 63))
		oc->last_sample = s->time;
	/* where the thread was: for a preemption that follows, and (the
	 * switch-out sample) for the wait it starts */
	keep(oc->cs_evsel >= 0 && s->evsel == (uint32_t)oc->cs_evsel ? &t->sw : &t->last, s);
	return oc->inner->sample ? oc->inner->sample(oc->inner, s) : 0;
}

static int oc_mmap(struct pd_tool *tool, const struct pd_mmap *m)
{
	struct profile_offcpu *oc = (struct profile_offcpu *)tool;

	return oc->inner->mmap ? oc->inner->mmap(oc->inner, m) : 0;
}

static int oc_comm(struct pd_tool *tool, const struct pd_comm *c)
{
	struct profile_offcpu *oc = (struct profile_offcpu *)tool;
	struct profile_off_thread *t = thread_findnew(oc, c->pid, c->tid, c->time);

	set_comm(t, c->comm);
	return oc->inner->comm ? oc->inner->comm(oc->inner, c) : 0;
}

static int oc_fork(struct pd_tool *tool, const struct pd_task *e)
{
	struct profile_offcpu *oc = (struct profile_offcpu *)tool;
	uint64_t *old = u64map__find(&oc->thread_idx, e->tid);
	struct profile_off_thread *t, *parent;
	uint64_t *pi;

	if (old && *old != UINT64_MAX && oc->threads[*old].exited)
		*old = UINT64_MAX;	/* the tid of a thread gone, reused: a new row */
	t = thread_findnew(oc, e->pid, e->tid, e->time);

	/* a new thread waits for a CPU until its first switch in */
	if (!in_run(oc, e->time)) {
		oc->dropped++;
		return oc->inner->fork ? oc->inner->fork(oc->inner, e) : 0;
	}
	t->out = true;
	t->preempt = true;
	t->out_time = e->time;
	pi = u64map__find(&oc->thread_idx, e->ptid);
	parent = pi ? &oc->threads[*pi] : NULL;
	t = &oc->threads[*u64map__find(&oc->thread_idx, e->tid)];
	if (parent && parent->comm && !t->comm)
		set_comm(t, parent->comm);
	return oc->inner->fork ? oc->inner->fork(oc->inner, e) : 0;
}

static int oc_exit(struct pd_tool *tool, const struct pd_task *e)
{
	struct profile_offcpu *oc = (struct profile_offcpu *)tool;
	uint64_t *i = u64map__find(&oc->thread_idx, e->tid);

	if (i && e->time && in_run(oc, e->time)) {
		struct profile_off_thread *t = &oc->threads[*i];

		if (e->time > t->end)
			t->end = e->time;
		t->exited = true;
	}
	return oc->inner->exit ? oc->inner->exit(oc->inner, e) : 0;
}

static int oc_lost(struct pd_tool *tool, const struct pd_lost *l)
{
	struct profile_offcpu *oc = (struct profile_offcpu *)tool;

	return oc->inner->lost ? oc->inner->lost(oc->inner, l) : 0;
}

static int oc_other(struct pd_tool *tool, const struct perf_event_header *h, uint64_t off)
{
	struct profile_offcpu *oc = (struct profile_offcpu *)tool;
	uint32_t pid, tid;
	uint64_t time;
	int err = 0;

	if (h->type == PERF_RECORD_SWITCH && trailer(oc, h, &pid, &tid, &time) &&
	    !in_run(oc, time)) {
		oc->dropped++;	/* a time no record of this run has: damaged */
	} else if (h->type == PERF_RECORD_SWITCH && trailer(oc, h, &pid, &tid, &time)) {
		struct profile_off_thread *t = thread_findnew(oc, pid, tid, time);

		oc->switches = true;
		if (time > oc->last_time)
			oc->last_time = time;
		if (!oc->first_time || (time && time < oc->first_time))
			oc->first_time = time;
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
			t->out = true;
			t->out_time = time;
			t->preempt = !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		} else if (!t->out && !t->switched && oc->first_time < time) {
			/* back on the CPU with no switch out seen: off since
			 * before the recording (attached with -p) */
			t->out_time = oc->first_time;
			t->preempt = false;
			t->before = true;
			if (t->start > t->out_time)
				t->start = t->out_time;
			err = span_end(oc, t, time);
		} else if (t->out) {
			err = span_end(oc, t, time);
		}
		t->switched = true;
	}
	if (err)
		return err;
	return oc->inner->other ? oc->inner->other(oc->inner, h, off) : 0;
}

static void index_probes(struct profile_offcpu *oc)
{
	for (size_t i = 0; oc->probes && i < oc->probes->nr; i++) {
		uint64_t *k = u64map__findnew(&oc->probe_idx, oc->probes->probes[i].tid,
					      UINT64_MAX);
		struct tid_probes *tp;

		if (*k == UINT64_MAX) {
			*k = oc->nr_by_tid;
			oc->by_tid = xrealloc(oc->by_tid, (oc->nr_by_tid + 1) * sizeof(*oc->by_tid));
			memset(&oc->by_tid[oc->nr_by_tid++], 0, sizeof(*oc->by_tid));
		}
		tp = &oc->by_tid[*k];
		tp->idx = xgrow(tp->idx, &tp->cap, tp->nr + 1, sizeof(*tp->idx));
		tp->idx[tp->nr++] = i;
	}
}

int profile_offcpu__new(struct profile_offcpu **out, struct pd_tool *inner,
			const struct perf_event_attr *attr0, const struct pd_offcpu *probes,
			int cs_evsel, struct profile *into, size_t value0, bool kernel_self,
			uint64_t lo_ns, uint64_t hi_ns, char **cause)
{
	struct profile_offcpu *oc;

	*out = NULL;
	if (value0 + PROFILE_OFF_VALUES > profile__nr_events(into))
		return gx_fail(cause, -EINVAL, "off-CPU: the profile has %zu values, not %zu",
			       profile__nr_events(into), value0 + PROFILE_OFF_VALUES);
	oc = xzalloc(sizeof(*oc));
	oc->tool = (struct pd_tool){ .sample = oc_sample, .mmap = oc_mmap, .comm = oc_comm,
				     .fork = oc_fork, .exit = oc_exit, .lost = oc_lost,
				     .other = oc_other };
	oc->inner = inner;
	oc->prof = into;
	oc->value0 = value0;
	for (size_t k = 0; k < PROFILE_OFF_VALUES; k++)
		profile__set_span(into, value0 + k);
	oc->lo_ns = hi_ns ? lo_ns : 0;
	oc->hi_ns = hi_ns;
	oc->probes = probes;
	oc->cs_evsel = cs_evsel;
	oc->min_ns = probes ? (uint64_t)probes->min_us * 1000 : 0;
	oc->kernel_self = kernel_self;
	oc->sample_type = attr0 && attr0->sample_id_all ? attr0->sample_type : 0;
	u64map__init(&oc->thread_idx);
	u64map__init(&oc->probe_idx);
	index_probes(oc);
	*out = oc;
	return 0;
}

void profile_offcpu__delete(struct profile_offcpu *oc)
{
	if (!oc)
		return;
	for (size_t i = 0; i < oc->nr_threads; i++) {
		free((char *)oc->threads[i].comm);
		kept_free(&oc->threads[i].last);
		kept_free(&oc->threads[i].sw);
	}
	for (size_t i = 0; i < oc->nr_by_tid; i++)
		free(oc->by_tid[i].idx);
	free(oc->by_tid);
	free(oc->spans);
	free(oc->threads);
	u64map__exit(&oc->thread_idx);
	u64map__exit(&oc->probe_idx);
	free(oc);
}

struct pd_tool *profile_offcpu__tool(struct profile_offcpu *oc)
{
	return &oc->tool;
}

void profile_offcpu__finish(struct profile_offcpu *oc, uint64_t end_ns)
{
	uint64_t end = end_ns ? end_ns : oc->last_time;

	for (size_t i = 0; i < oc->nr_threads; i++) {
		struct profile_off_thread *t = &oc->threads[i];

		/* a thread that never came back: off until it or the run ended */
		if (t->out && t->out_time < end) {
			uint64_t until = t->end > t->out_time ? t->end : end;

			span_end(oc, t, until);
			if (until > t->end)
				t->end = until;
		}
		if (!t->comm)
			set_comm(t, "");
	}
}

bool profile_offcpu__has_switches(const struct profile_offcpu *oc)
{
	return oc->switches;
}

size_t profile_offcpu__nr_threads(const struct profile_offcpu *oc)
{
	return oc->nr_threads;
}

const struct profile_off_thread *profile_offcpu__thread(const struct profile_offcpu *oc,
							size_t i)
{
	return i < oc->nr_threads ? &oc->threads[i] : NULL;
}

const struct profile_off_span *profile_offcpu__spans(const struct profile_offcpu *oc,
						     size_t *nr)
{
	*nr = oc->nr_spans;
	return oc->spans;
}

uint64_t profile_offcpu__dropped(const struct profile_offcpu *oc)
{
	return oc->dropped;
}
