/*
 * test-collect-live: record the workloads in tests/workloads with software
 * events (cpu-clock, page-faults: no PMU needed) through a counting sink
 * that parses the raw records itself, and check what collect promises:
 * every thread and child sampled, COMM/MMAP2 records, exit status and
 * signals, SIGINT forwarding, exec failures, -p attach with synthesized
 * records, counting reads, event errors. Skips when perf_event_open of a
 * software event is not permitted.
 */
#include "config.h"

#include "collect/collect.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "tap.h"

static char *builddir;

static char *wl(const char *name)
{
	return xasprintf("%s/tests/workloads/%s", builddir, name);
}

/* ---- a sink that counts ------------------------------------------------------- */

struct count_sink {
	struct collect_sink sink;
	uint64_t sample_type;
	struct u64map by_tid, by_pid;	/* samples */
	struct u64map comm_pids;	/* pid -> COMM records */
	uint64_t samples, comms, mmap2s, lost, rounds, records;
	uint64_t first_sample_at;	/* record index of the first sample */
	uint64_t min_time, max_time;	/* of the samples */
	uint64_t regs_mask;		/* attr.sample_regs_user */
	uint64_t period_sum, deep_chains, with_regs, with_stack, bad_samples;
	const char *want_mmap;		/* MMAP2 file name suffix to look for */
	bool saw_mmap;
	uint64_t mmap_before_sample;	/* MMAP2 of want_mmap before any sample */
	char comm_names[16][16];	/* "wl-fork-*" names seen */
	int nr_comm_names;
	uint64_t fail_after;		/* return an error after this many */
};

/* What follows TIME: CPU, PERIOD, CALLCHAIN, REGS_USER, STACK_USER (the
 * only fields collect asks for after it). */
static void parse_sample_tail(struct count_sink *c, const char *p, const char *end)
{
	uint64_t v;

	if (c->sample_type & PERF_SAMPLE_CPU)
		p += 8;
	if (c->sample_type & PERF_SAMPLE_PERIOD) {
		memcpy(&v, p, 8);
		c->period_sum += v;
		p += 8;
	}
	if (c->sample_type & PERF_SAMPLE_CALLCHAIN) {
		memcpy(&v, p, 8);
		p += 8 + 8 * v;
		if (v >= 3)
			c->deep_chains++;
	}
	if (c->sample_type & PERF_SAMPLE_REGS_USER) {
		memcpy(&v, p, 8);	/* abi */
		p += 8;
		if (v)
			p += 8 * (size_t)__builtin_popcountll(c->regs_mask);
		if (v)
			c->with_regs++;
	}
	if (c->sample_type & PERF_SAMPLE_STACK_USER) {
		memcpy(&v, p, 8);	/* size */
		p += 8;
		if (v) {
			uint64_t dyn;

			p += v;
			memcpy(&dyn, p, 8);
			p += 8;
			if (dyn > 0 && dyn <= v)
				c->with_stack++;
		}
	}
	if (p > end)
		c->bad_samples++;
}

static int count_record(struct collect_sink *sk, const void *rec, size_t len)
{
	struct count_sink *c = (struct count_sink *)sk;
	const struct perf_event_header *h = rec;
	const char *p = (const char *)rec + sizeof(*h);

	if (c->fail_after && c->records >= c->fail_after)
		return -123;
	c->records++;
	if (len < sizeof(*h) || h->size != len)
		return -EINVAL;
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		uint32_t pt[2];

		if (c->sample_type & PERF_SAMPLE_IDENTIFIER)
			p += 8;
		if (c->sample_type & PERF_SAMPLE_IP)
			p += 8;
		memcpy(pt, p, sizeof(pt));
		p += 8;
		if (c->sample_type & PERF_SAMPLE_TIME) {
			uint64_t t;

			memcpy(&t, p, sizeof(t));
			if (!c->min_time || t < c->min_time)
				c->min_time = t;
			if (t > c->max_time)
				c->max_time = t;
			p += 8;
		}
		parse_sample_tail(c, p, (const char *)rec + len);
		(*u64map__findnew(&c->by_pid, pt[0], 0))++;
		(*u64map__findnew(&c->by_tid, pt[1], 0))++;
		if (!c->samples)
			c->first_sample_at = c->records;
		c->samples++;
		break;
	}
	case PERF_RECORD_COMM: {
		uint32_t pt[2];

		memcpy(pt, p, sizeof(pt));
		(*u64map__findnew(&c->comm_pids, pt[0], 0))++;
		if (!strncmp(p + 8, "wl-fork-", 8) && c->nr_comm_names < 16)
			snprintf(c->comm_names[c->nr_comm_names++], 16, "%s", p + 8);
		c->comms++;
		break;
	}
	case PERF_RECORD_MMAP2: {
		const char *name = p + 64;
		size_t n = strnlen(name, len - 72), w = c->want_mmap ? strlen(c->want_mmap) : 0;

		c->mmap2s++;
		if (w && n >= w && !strcmp(name + n - w, c->want_mmap)) {
			c->saw_mmap = true;
			if (!c->samples)
				c->mmap_before_sample++;
		}
		break;
	}
	case PERF_RECORD_LOST:
		c->lost++;
		break;
	}
	return 0;
}

static int count_round(struct collect_sink *sk)
{
	((struct count_sink *)sk)->rounds++;
	return 0;
}

static void count_sink__init(struct count_sink *c)
{
	memset(c, 0, sizeof(*c));
	c->sink.record = count_record;
	c->sink.round_end = count_round;
	u64map__init(&c->by_tid);
	u64map__init(&c->by_pid);
	u64map__init(&c->comm_pids);
}

static void count_sink__exit(struct count_sink *c)
{
	u64map__exit(&c->by_tid);
	u64map__exit(&c->by_pid);
	u64map__exit(&c->comm_pids);
}

/* keys with a value >= min, other than `except` */
static size_t keys_with(const struct u64map *m, uint64_t min, uint64_t except)
{
	size_t n = 0;

	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i] != UINT64_MAX && m->keys[i] != except && m->vals[i] >= min)
			n++;
	return n;
}

static uint64_t val(const struct u64map *m, uint64_t k)
{
	uint64_t *v = u64map__find(m, k);

	return v ? *v : 0;
}

/* ---- running ---------------------------------------------------------------- */

struct run {
	int new_err, run_err;
	char *cause;
	struct collect_stats stats;
	struct collect_event ev0;
	uint64_t count[4];
	bool has_count[4];
	size_t nr_ev;
	char *warning;
};

static void run_free(struct run *r)
{
	free(r->cause);
	free(r->warning);
}

static void record(struct run *r, struct count_sink *c, const char *events, struct collect_opts *o)
{
	struct collect_session *s;

	memset(r, 0, sizeof(*r));
	o->events = events;
	if (!o->rate)
		o->rate = 1.0;
	r->new_err = collect_session__new(&s, o, &r->cause);
	if (r->new_err)
		return;
	r->nr_ev = collect_session__nr_events(s);
	r->ev0 = *collect_session__event(s, 0);
	c->sample_type = r->ev0.attr.sample_type;
	c->regs_mask = r->ev0.attr.sample_regs_user;
	if (collect_session__nr_warnings(s))
		r->warning = xstrdup(collect_session__warning(s, 0));
	r->run_err = collect_session__run(s, &c->sink, &r->cause);
	r->stats = *collect_session__stats(s);
	for (size_t i = 0; i < r->nr_ev && i < 4; i++) {
		r->count[i] = collect_session__event(s, i)->count;
		r->has_count[i] = collect_session__event(s, i)->has_count;
	}
	r->ev0.name = NULL;
	r->ev0.ids = NULL;
	collect_session__delete(s);
}

static bool no_children_left(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* SIGINT to this process after ms milliseconds. */
static timer_t sigint_timer(unsigned ms)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGINT };
	struct itimerspec its = { .it_value = { ms / 1000, (long)(ms % 1000) * 1000000L } };
	timer_t t;

	if (timer_create(CLOCK_MONOTONIC, &sev, &t) < 0)
		return NULL;
	timer_settime(t, 0, &its, NULL);
	return t;
}

/* ---- tests -------------------------------------------------------------------- */

static void test_threads(void)
{
	char *bin = wl("wl-threads");
	char *argv[] = { bin, "4", "150", NULL };
	struct collect_opts o = { .argv = argv };
	struct count_sink c;
	struct run r;

	count_sink__init(&c);
	c.want_mmap = "/wl-threads";
	record(&r, &c, "cpu-clock", &o);
	is_int(r.new_err, 0, "threads: session opens (%s)", r.cause ? r.cause : "");
	is_int(r.run_err, 0, "threads: run ok");
	ok(r.stats.exited && r.stats.exit_code == 0, "threads: workload exited 0");
	ok(r.stats.child > 0, "threads: child pid in stats");
	ok(c.samples > 20, "threads: samples (%llu)", (unsigned long long)c.samples);
	is_int(keys_with(&c.by_pid, 1, UINT64_MAX), 1, "threads: all samples from one process");
	ok(val(&c.by_pid, (uint64_t)r.stats.child) == c.samples, "threads: the workload's pid");
	ok(keys_with(&c.by_tid, 3, (uint64_t)r.stats.child) >= 4,
	   "threads: each of the 4 threads has samples (%zu threads)",
	   keys_with(&c.by_tid, 3, (uint64_t)r.stats.child));
	ok(c.saw_mmap, "threads: MMAP2 of the binary");
	ok(c.comms >= 1 && val(&c.comm_pids, (uint64_t)r.stats.child) >= 1,
	   "threads: COMM of the exec");
	ok(c.rounds >= 1, "threads: round_end called");
	is_int(r.stats.records, c.records, "threads: stats.records = records sunk");
	/* the count and the samples agree (250 us a sample); not more, since
	 * CI runs tests side by side on few cores */
	ok(r.has_count[0] && r.count[0] >= c.samples * 250000 / 2 &&
	   r.count[0] <= (c.samples + 50) * 250000 * 2,
	   "threads: cpu-clock count read (%llu ns, %llu samples)", (unsigned long long)r.count[0],
	   (unsigned long long)c.samples);
	ok(r.stats.end_ns > r.stats.start_ns, "threads: run times");
	ok(c.min_time >= r.stats.start_ns && c.max_time <= r.stats.end_ns,
	   "threads: sample times on the session's clock");
	ok(no_children_left(), "threads: workload reaped");
	run_free(&r);
	count_sink__exit(&c);
	free(bin);
}

/* -F, -g and --call-graph dwarf are accepted by the kernel and deliver */
static void test_sampling_modes(void)
{
	char *bin = wl("wl-collect-misc");
	char *argv[] = { bin, "spin", "150", NULL };
	struct {
		int line;
		const char *name;
		uint32_t freq;
		enum collect_callgraph cg;
	} t[] = {
		{ __LINE__, "-F 1000", 1000, COLLECT_CG_NONE },
		{ __LINE__, "-g", 0, COLLECT_CG_FP },
		{ __LINE__, "--call-graph dwarf,4096", 0, COLLECT_CG_DWARF },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct collect_opts o = { .argv = argv, .freq = t[i].freq, .callgraph = t[i].cg,
					  .stack_size = 4096 };
		struct count_sink c;
		struct run r;

		count_sink__init(&c);
		record(&r, &c, "cpu-clock", &o);
		is_int_at(r.new_err + r.run_err, 0, t[i].line, "%s: recorded (%s)", t[i].name,
			  r.cause ? r.cause : "");
		ok_at(c.samples >= 10 && !c.bad_samples, __FILE__, t[i].line,
		      "%s: %llu well-formed samples", t[i].name, (unsigned long long)c.samples);
		if (t[i].freq)
			ok_at(c.samples <= 400, __FILE__, t[i].line, "%s: about 1000 a second",
			      t[i].name);
		else if (t[i].cg == COLLECT_CG_FP)
			ok_at(c.deep_chains * 10 >= c.samples * 9, __FILE__, t[i].line,
			      "%s: call chains (%llu of %llu with 3+ entries)", t[i].name,
			      (unsigned long long)c.deep_chains, (unsigned long long)c.samples);
		else
			ok_at(c.with_regs * 10 >= c.samples * 9 && c.with_stack * 10 >= c.samples * 9,
			      __FILE__, t[i].line, "%s: user registers and stack (%llu, %llu of %llu)",
			      t[i].name, (unsigned long long)c.with_regs,
			      (unsigned long long)c.with_stack, (unsigned long long)c.samples);
		run_free(&r);
		count_sink__exit(&c);
	}
	free(bin);
}

static void test_fork(void)
{
	char *bin = wl("wl-fork");
	char *argv[] = { bin, "3", "120", NULL };
	struct collect_opts o = { .argv = argv };
	struct count_sink c;
	struct run r;
	int named = 0;

	count_sink__init(&c);
	c.want_mmap = "/wl-fork";
	record(&r, &c, "cpu-clock", &o);
	is_int(r.new_err + r.run_err, 0, "fork: recorded (%s)", r.cause ? r.cause : "");
	ok(r.stats.exited && r.stats.exit_code == 0, "fork: exited 0");
	ok(keys_with(&c.by_pid, 5, (uint64_t)r.stats.child) >= 3,
	   "fork: each of the 3 children has samples (%zu)",
	   keys_with(&c.by_pid, 5, (uint64_t)r.stats.child));
	ok(keys_with(&c.comm_pids, 1, (uint64_t)r.stats.child) >= 3,
	   "fork: a COMM record for each child");
	for (int i = 0; i < c.nr_comm_names; i++)
		named += !strncmp(c.comm_names[i], "wl-fork-", 8);
	is_int(named, 3, "fork: the children's names");
	ok(c.saw_mmap, "fork: MMAP2 of the binary");
	run_free(&r);
	count_sink__exit(&c);
	free(bin);
}

static void test_exit_and_signals(void)
{
	char *bin = wl("wl-collect-misc");
	struct {
		int line;
		const char *mode, *arg;
		bool exited;
		int code, sig;
	} t[] = {
		{ __LINE__, "exit", "3", true, 3, 0 },
		{ __LINE__, "exit", "0", true, 0, 0 },
		{ __LINE__, "segv", NULL, false, 0, SIGSEGV },
		{ __LINE__, "killself", NULL, false, 0, SIGKILL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char *argv[] = { bin, (char *)t[i].mode, (char *)t[i].arg, NULL };
		struct collect_opts o = { .argv = argv };
		struct count_sink c;
		struct run r;

		count_sink__init(&c);
		record(&r, &c, "cpu-clock", &o);
		is_int_at(r.new_err + r.run_err, 0, t[i].line, "%s %s: recorded", t[i].mode,
			  t[i].arg ? t[i].arg : "");
		is_int_at(r.stats.exited, t[i].exited, t[i].line, "%s: exited flag", t[i].mode);
		is_int_at(r.stats.exit_code, t[i].code, t[i].line, "%s: exit code", t[i].mode);
		is_int_at(r.stats.term_signal, t[i].sig, t[i].line, "%s: signal", t[i].mode);
		run_free(&r);
		count_sink__exit(&c);
	}
	free(bin);
}

/* gexplore's blocked signals and ignored SIGPIPE do not reach the workload */
static void test_signal_state(void)
{
	char *bin = wl("wl-collect-misc");
	char *argv[] = { bin, "sigstate", NULL };
	struct collect_opts o = { .argv = argv };
	sigset_t block, old;
	void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
	struct count_sink c;
	struct run r;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	count_sink__init(&c);
	record(&r, &c, "cpu-clock", &o);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGPIPE, old_pipe);
	is_int(r.new_err + r.run_err, 0, "signal state: recorded");
	ok(r.stats.exited && r.stats.exit_code == 0,
	   "signal state: the workload starts with no blocked signal, SIGPIPE default");
	run_free(&r);
	count_sink__exit(&c);
	free(bin);
}

static void test_sigint_forwarded(void)
{
	char *bin = wl("wl-collect-misc");
	char *argv[] = { bin, "spin", "5000", NULL };
	struct collect_opts o = { .argv = argv };
	struct sigaction before, after;
	struct count_sink c;
	struct run r;
	uint64_t t0 = gx_now_ns();
	timer_t tm;

	sigaction(SIGINT, NULL, &before);
	count_sink__init(&c);
	o.events = "cpu-clock";
	o.rate = 1.0;
	{
		struct collect_session *s;

		memset(&r, 0, sizeof(r));
		r.new_err = collect_session__new(&s, &o, &r.cause);
		if (!r.new_err) {
			c.sample_type = collect_session__event(s, 0)->attr.sample_type;
			tm = sigint_timer(200);
			r.run_err = collect_session__run(s, &c.sink, &r.cause);
			r.stats = *collect_session__stats(s);
			if (tm)
				timer_delete(tm);
			collect_session__delete(s);
		}
	}
	is_int(r.new_err + r.run_err, 0, "sigint: recorded");
	is_int(r.stats.term_signal, SIGINT, "sigint: forwarded; the workload died of it");
	ok(gx_now_ns() - t0 < 3000000000ULL, "sigint: ended early");
	ok(c.samples > 0, "sigint: samples before it");
	sigaction(SIGINT, NULL, &after);
	ok(after.sa_handler == before.sa_handler, "sigint: disposition restored");
	run_free(&r);
	count_sink__exit(&c);
	free(bin);
}

static void test_exec_failure(void)
{
	char *argv[] = { "./no-such-binary-gx", NULL };
	struct collect_opts o = { .argv = argv };
	char script[] = "/tmp/gx-collect-badinterp-XXXXXX";
	struct count_sink c;
	struct run r;
	int fd;

	count_sink__init(&c);
	record(&r, &c, "cpu-clock", &o);
	is_int(r.new_err ? r.new_err : r.run_err, GX_E_CHILD, "exec failure: GX_E_CHILD");
	if (!ok(r.cause && strstr(r.cause, "cannot run './no-such-binary-gx'") &&
		strstr(r.cause, strerror(ENOENT)), "exec failure: cause names the command"))
		diag("cause: %s", r.cause ? r.cause : "(null)");
	ok(no_children_left(), "exec failure: no child left");
	run_free(&r);

	/* executable, but execve() fails in the child: reported through the pipe */
	fd = mkstemp(script);
	if (fd >= 0) {
		char *argv2[] = { script, NULL };
		const char *text = "#!/nonexistent/gx-interpreter\n";

		gx_write_all(fd, text, strlen(text));
		fchmod(fd, 0755);
		close(fd);
		o.argv = argv2;
		record(&r, &c, "cpu-clock", &o);
		is_int(r.new_err, 0, "exec failure in the child: session opens");
		is_int(r.run_err, GX_E_CHILD, "exec failure in the child: GX_E_CHILD from run");
		if (!ok(r.cause && strstr(r.cause, "cannot run '") && strstr(r.cause, strerror(ENOENT)),
			"exec failure in the child: cause"))
			diag("cause: %s", r.cause ? r.cause : "(null)");
		ok(no_children_left(), "exec failure in the child: reaped");
		run_free(&r);
		unlink(script);
	} else {
		skip(4, "mkstemp failed");
	}
	count_sink__exit(&c);
}

static void test_attach(void)
{
	char *bin = wl("wl-collect-misc");
	struct count_sink c;
	struct run r;
	pid_t target;
	timer_t tm;
	int st;

	target = fork();
	if (target == 0) {
		execl(bin, bin, "spin", "3000", (char *)NULL);
		_exit(127);
	}
	/* wait for the exec to be done */
	for (int i = 0; i < 200; i++) {
		char path[64], exe[4096];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/exe", (int)target);
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			if (strstr(exe, "wl-collect-misc"))
				break;
		}
		usleep(2000);
	}
	count_sink__init(&c);
	c.want_mmap = "/wl-collect-misc";
	{
		struct collect_opts o = { .events = "cpu-clock", .rate = 1.0, .pid = target };
		struct collect_session *s;

		memset(&r, 0, sizeof(r));
		r.new_err = collect_session__new(&s, &o, &r.cause);
		if (!r.new_err) {
			const struct collect_event *e = collect_session__event(s, 0);

			c.sample_type = e->attr.sample_type;
			ok(!e->attr.disabled && !e->attr.enable_on_exec, "attach: enabled at open");
			tm = sigint_timer(250);
			r.run_err = collect_session__run(s, &c.sink, &r.cause);
			r.stats = *collect_session__stats(s);
			if (tm)
				timer_delete(tm);
			collect_session__delete(s);
		} else {
			skip(1, "no session");
		}
	}
	is_int(r.new_err + r.run_err, 0, "attach: recorded (%s)", r.cause ? r.cause : "");
	ok(val(&c.by_pid, (uint64_t)target) > 10, "attach: samples of the target (%llu)",
	   (unsigned long long)val(&c.by_pid, (uint64_t)target));
	ok(c.saw_mmap && c.mmap_before_sample, "attach: synthesized MMAP2 of its binary, first");
	ok(val(&c.comm_pids, (uint64_t)target) >= 1, "attach: synthesized COMM");
	is_int(r.stats.child, 0, "attach: no child of ours");
	ok(kill(target, 0) == 0, "attach: SIGINT stopped the recording, not the target");
	kill(target, SIGKILL);
	waitpid(target, &st, 0);
	run_free(&r);
	count_sink__exit(&c);
	free(bin);
}

/* -p of a process whose threads already run: each thread is followed */
static void test_attach_threads(void)
{
	char *bin = wl("wl-threads");
	struct count_sink c;
	struct run r;
	pid_t target;
	timer_t tm;
	int st;

	target = fork();
	if (target == 0) {
		execl(bin, bin, "2", "600", (char *)NULL);
		_exit(127);
	}
	/* wait for both threads to be there */
	for (int i = 0; i < 200; i++) {
		char path[64], *s;
		int threads = 0;

		snprintf(path, sizeof(path), "/proc/%d/status", (int)target);
		s = gx_read_file(path, 1 << 16);
		if (s && strstr(s, "\nThreads:"))
			threads = atoi(strstr(s, "\nThreads:") + 9);
		free(s);
		if (threads >= 3)
			break;
		usleep(2000);
	}
	count_sink__init(&c);
	{
		struct collect_opts o = { .events = "cpu-clock", .rate = 1.0, .pid = target };
		struct collect_session *s;

		memset(&r, 0, sizeof(r));
		r.new_err = collect_session__new(&s, &o, &r.cause);
		if (!r.new_err) {
			c.sample_type = collect_session__event(s, 0)->attr.sample_type;
			tm = sigint_timer(200);
			r.run_err = collect_session__run(s, &c.sink, &r.cause);
			if (tm)
				timer_delete(tm);
			collect_session__delete(s);
		}
	}
	is_int(r.new_err + r.run_err, 0, "attach threads: recorded (%s)", r.cause ? r.cause : "");
	ok(keys_with(&c.by_tid, 3, (uint64_t)target) >= 2,
	   "attach threads: both spinning threads sampled (%zu)",
	   keys_with(&c.by_tid, 3, (uint64_t)target));
	ok(val(&c.comm_pids, (uint64_t)target) >= 3, "attach threads: a COMM per thread");
	kill(target, SIGKILL);
	waitpid(target, &st, 0);
	run_free(&r);
	count_sink__exit(&c);
	free(bin);
}

static void test_counts(void)
{
	char *bin = wl("wl-collect-misc");
	char *argv[] = { bin, "faults", "3000", NULL };
	struct {
		int line;
		const char *spec;
		uint64_t sav;
		size_t pf;		/* index of page-faults */
		uint64_t min_samples, max_samples;
	} t[] = {
		/* one sample per 100 faults (software counter with a period) */
		{ __LINE__, "page-faults", 100, 0, 25, 60 },
		/* group read; one sample per fault (period=1: by default a
		 * software counter samples at 4000 Hz) plus the task-clock ones */
		{ __LINE__, "{task-clock,software/config=2,period=1/}", 0, 1, 3000, 6000 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct collect_opts o = { .argv = argv, .sav = t[i].sav };
		size_t pf = t[i].pf;
		struct count_sink c;
		struct run r;

		count_sink__init(&c);
		record(&r, &c, t[i].spec, &o);
		is_int_at(r.new_err + r.run_err, 0, t[i].line, "%s: recorded (%s)", t[i].spec,
			  r.cause ? r.cause : "");
		ok_at(r.has_count[pf], __FILE__, t[i].line, "%s: counted", t[i].spec);
		ok_at(r.count[pf] >= 3000 && r.count[pf] < 3000 + 2000, __FILE__, t[i].line,
		      "%s: page-faults count %llu in [3000, 5000)", t[i].spec,
		      (unsigned long long)r.count[pf]);
		ok_at(c.samples >= t[i].min_samples && c.samples <= t[i].max_samples, __FILE__,
		      t[i].line, "%s: %llu samples in [%llu, %llu]", t[i].spec,
		      (unsigned long long)c.samples, (unsigned long long)t[i].min_samples,
		      (unsigned long long)t[i].max_samples);
		run_free(&r);
		count_sink__exit(&c);
	}
	free(bin);
}

static void test_lost(void)
{
	char *bin = wl("wl-collect-misc");
	char *argv[] = { bin, "faults", "20000", "10", NULL };
	struct collect_opts o = { .argv = argv, .mmap_pages = 1, .sav = 1 };
	struct count_sink c;
	struct run r;

	/* one page per CPU and a sample per fault (-c 1): the kernel may
	 * drop some */
	count_sink__init(&c);
	record(&r, &c, "page-faults", &o);
	is_int(r.new_err + r.run_err, 0, "small buffers: recorded (%s)", r.cause ? r.cause : "");
	is_int(r.stats.lost_records, c.lost, "small buffers: LOST records counted (%llu, %llu events)",
	       (unsigned long long)r.stats.lost_records, (unsigned long long)r.stats.lost_events);
	/* every fault is either a sample or reported lost: the kernel
	 * reports a loss with the next record that fits, which the faults
	 * after the pause provide */
	if (!ok(c.samples + r.stats.lost_events >= r.count[0] - r.count[0] / 50 &&
		c.samples + r.stats.lost_events <= r.count[0] + 10,
		"small buffers: samples + lost = counted faults"))
		diag("samples %llu lost %llu count %llu", (unsigned long long)c.samples,
		     (unsigned long long)r.stats.lost_events, (unsigned long long)r.count[0]);
	run_free(&r);
	count_sink__exit(&c);
	free(bin);
}

static void test_system_wide(void)
{
	char *bin = wl("wl-collect-misc");
	char *argv[] = { bin, "spin", "150", NULL };
	struct collect_opts o = { .argv = argv, .system_wide = true };
	struct count_sink c;
	struct run r;

	count_sink__init(&c);
	c.want_mmap = "/wl-collect-misc";
	record(&r, &c, "cpu-clock", &o);
	if (r.new_err == GX_E_PERM || r.new_err == -EACCES) {
		skip(5, "system-wide recording is not permitted here");
	} else {
		is_int(r.new_err + r.run_err, 0, "-a: recorded (%s)", r.cause ? r.cause : "");
		ok(r.stats.exited && r.stats.exit_code == 0, "-a: until the command exits");
		ok(val(&c.by_pid, (uint64_t)r.stats.child) > 10, "-a: samples of the command");
		ok(keys_with(&c.comm_pids, 1, UINT64_MAX) > 2, "-a: COMM of the running processes");
		ok(c.saw_mmap, "-a: MMAP2 of the command");
	}
	run_free(&r);
	count_sink__exit(&c);
	free(bin);
}

struct mux_sink {
	struct count_sink c;
	struct collect_session *s;
	uint64_t rounds_with_data;
	uint64_t off_base, off_run_base;	/* group 1's count, running time once disabled */
	bool based;
	int err;
};

/* keep group 1 off, group 0 on, from every round on */
static int mux_round(struct collect_sink *sk)
{
	struct mux_sink *m = (struct mux_sink *)sk;
	uint64_t v, en, run;

	m->c.rounds++;
	if (collect_session__read_event(m->s, 0, &v, &en, &run) == 0 && v)
		m->rounds_with_data++;
	if (!m->err)
		m->err = collect_session__enable_event(m->s, 2, false);
	if (!m->err)
		m->err = collect_session__enable_event(m->s, 0, true);
	if (!m->based && collect_session__read_event(m->s, 2, &v, &en, &run) == 0) {
		m->off_base = v;
		m->off_run_base = run;
		m->based = true;
	}
	return 0;
}

/* the multiplexing hooks: a group disabled from round_end() stops counting
 * in the workload's threads */
static void test_enable_from_round(void)
{
	char *bin = wl("wl-threads");
	char *argv[] = { bin, "2", "200", NULL };
	struct collect_opts o = { .argv = argv, .rate = 1.0, .round_ms = 5,
				  .events = "{task-clock,page-faults},{cpu-clock,minor-faults}" };
	struct mux_sink m;
	char *cause = NULL;
	int err;

	memset(&m, 0, sizeof(m));
	count_sink__init(&m.c);
	m.c.sink.round_end = mux_round;
	err = collect_session__new(&m.s, &o, &cause);
	if (!ok(err == 0, "mux hooks: session (%s)", cause ? cause : "")) {
		skip(4, "no session");
	} else {
		const struct collect_event *on, *off;

		m.c.sample_type = collect_session__event(m.s, 0)->attr.sample_type;
		err = collect_session__run(m.s, &m.c.sink, &cause);
		on = collect_session__event(m.s, 0);
		off = collect_session__event(m.s, 2);
		is_int(err, 0, "mux hooks: recorded");
		is_int(m.err, 0, "mux hooks: enable/disable calls succeed");
		ok(m.rounds_with_data > 0 && m.c.rounds > 10, "mux hooks: reads while running");
		/* from the exec to the first round it counted; after, nothing */
		ok(on->has_count && off->has_count && m.based && off->count - m.off_base < 1000000 &&
		   on->count > off->count - m.off_base + 5000000,
		   "mux hooks: the disabled group stopped counting (%llu then %llu ns, vs %llu)",
		   (unsigned long long)m.off_base, (unsigned long long)off->count,
		   (unsigned long long)on->count);
		/* final reads: running is the kernel's; enabled is the tasks'
		 * time for every event (read_counts), so compare running */
		ok(m.based && off->time_running - m.off_run_base < 1000000 &&
		   on->time_running > off->time_running,
		   "mux hooks: and its running time stopped too");
		collect_session__delete(m.s);
	}
	free(cause);
	count_sink__exit(&m.c);
	free(bin);
}

static void test_errors(void)
{
	char *bin = wl("wl-collect-misc");
	char *argv[] = { bin, "exit", "0", NULL };
	struct count_sink c;
	struct run r;

	count_sink__init(&c);
	{
		struct collect_opts o = { .argv = argv };

		record(&r, &c, "no-such-event-gx", &o);
		is_int(r.new_err, GX_E_EVENT, "unknown event: GX_E_EVENT");
		ok(r.cause && strstr(r.cause, "no-such-event-gx") && strstr(r.cause, "gexplore list"),
		   "unknown event: cause names it and the fix");
		ok(no_children_left(), "unknown event: the held child is reaped");
		run_free(&r);
	}
	{
		struct collect_opts o = { .argv = argv };

		record(&r, &c, "cpu-clock,cycles", &o);
		if (r.new_err == 0) {
			skip(3, "this machine has hardware counters");
		} else {
			ok(r.new_err == GX_E_NOPMU || r.new_err == GX_E_PERM,
			   "hardware event without a PMU: GX_E_NOPMU");
			if (!ok(r.cause && strstr(r.cause, "cannot open cycles"),
				"hardware event without a PMU: the cause names the event"))
				diag("cause: %s", r.cause ? r.cause : "(null)");
			ok(no_children_left(), "hardware event without a PMU: child reaped");
		}
		run_free(&r);
	}
	{
		struct collect_opts o = { .argv = argv, .mmap_pages = 3 };

		record(&r, &c, "cpu-clock", &o);
		is_int(r.new_err, GX_E_USAGE, "mmap pages not a power of two");
		run_free(&r);
	}
	{
		struct collect_opts o = { .argv = argv, .mmap_pages = 4 };

		c.fail_after = 3;
		record(&r, &c, "page-faults", &o);
		is_int(r.run_err, -123, "sink error stops the run and is returned");
		ok(r.stats.exited, "sink error: the workload is still waited for");
		ok(no_children_left(), "sink error: reaped");
		run_free(&r);
		c.fail_after = 0;
	}
	count_sink__exit(&c);
	free(bin);
}

static void test_default_events(void)
{
	char *bin = wl("wl-collect-misc");
	char *argv[] = { bin, "spin", "50", NULL };
	struct collect_opts o = { .argv = argv, .rate = 1.0 };
	struct collect_session *s;
	char *cause = NULL;
	int err = collect_session__new(&s, &o, &cause);

	if (err == GX_E_PERM) {
		ok(cause && strstr(cause, "perf_event_paranoid") && strstr(cause, "CAP_PERFMON"),
		   "default events: permission error names the fix");
		skip(2, "no permission for hardware events");
	} else if (!ok(err == 0, "default events: session opens (%s)", cause ? cause : "")) {
		skip(2, "no session");
	} else if (collect_session__has_pmu(s)) {
		is_str(collect_session__event(s, 0)->name, "cycles", "default events: cycles");
		ok(collect_session__nr_events(s) == 2, "default events: and instructions");
	} else {
		const char *w = NULL;

		for (size_t i = 0; i < collect_session__nr_warnings(s); i++)
			if (strstr(collect_session__warning(s, i), "hardware counters are unavailable"))
				w = collect_session__warning(s, i);
		is_str(collect_session__event(s, 0)->name, "cpu-clock", "no PMU: falls back to cpu-clock");
		ok(w && strstr(w, "cycles: ") && strstr(w, "sampling cpu-clock instead"),
		   "no PMU: one-line warning says why (%s)", w ? w : "none");
	}
	if (!err)
		collect_session__delete(s);
	ok(no_children_left(), "default events: child reaped by delete");
	free(cause);
	free(bin);
}

/* As an unprivileged user under perf_event_paranoid 2 (run when we are
 * root, by dropping to nobody in a child): user space only, with a
 * warning; -a refused with the fix in the message. */
static void test_unprivileged(void)
{
	char *p = gx_read_file("/proc/sys/kernel/perf_event_paranoid", 64);
	int paranoid = p ? atoi(p) : -1, fds[2], st;
	char buf[2048] = "";
	ssize_t n = 0;
	pid_t pid;

	free(p);
	if (geteuid() != 0 || paranoid < 2 || pipe(fds) < 0) {
		skip(4, "needs root (to drop privileges) and perf_event_paranoid >= 2");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "/bin/true", NULL };
		struct collect_opts o = { .events = "cpu-clock", .rate = 1.0, .argv = argv };
		struct collect_opts a = { .events = "cpu-clock", .rate = 1.0, .system_wide = true };
		struct collect_session *s;
		char *cause = NULL, *out;
		struct strbuf sb = STRBUF_INIT;
		int err;

		close(fds[0]);
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		/* the uid change made us (and the held workload, until its exec)
		 * non-dumpable, which perf_event_open treats as not ours */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		err = collect_session__new(&s, &o, &cause);
		if (!err) {
			strbuf__addf(&sb, "%d %d|%s\n", err,
				     (int)collect_session__event(s, 0)->attr.exclude_kernel,
				     collect_session__nr_warnings(s) ? collect_session__warning(s, 0) : "");
			collect_session__delete(s);
		} else {
			strbuf__addf(&sb, "%d 0|%s\n", err, cause ? cause : "");
		}
		err = collect_session__new(&s, &a, &cause);
		strbuf__addf(&sb, "%d|%s\n", err, err && cause ? cause : "");
		if (!err)
			collect_session__delete(s);
		out = strbuf__detach(&sb);
		gx_write_all(fds[1], out, strlen(out));
		_exit(0);
	}
	close(fds[1]);
	for (ssize_t k; (k = read(fds[0], buf + n, sizeof(buf) - 1 - (size_t)n)) > 0;)
		n += k;
	buf[n] = '\0';
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		skip(4, "cannot drop privileges here");
		return;
	}
	if (!ok(!strncmp(buf, "0 1|", 4), "unprivileged: opens, kernel excluded"))
		diag("%s", buf);
	ok(strstr(buf, "perf_event_paranoid is 2: measuring user space only") != NULL,
	   "unprivileged: warned");
	ok(strstr(buf, "\n-4993|") || strstr(buf, "\n-4994|"), "unprivileged -a: refused");
	if (!ok(strstr(buf, "sysctl kernel.perf_event_paranoid=0") && strstr(buf, "CAP_PERFMON"),
		"unprivileged -a: the message gives the fix"))
		diag("%s", buf);
}

static void skip_unless_permitted(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0 && (errno == EACCES || errno == EPERM))
		plan_skip_all("perf_event_open of a software event is not permitted here");
	if (fd < 0 && errno == ENOSYS)
		plan_skip_all("no perf_event_open in this kernel");
	if (fd >= 0)
		close((int)fd);
}

int main(void)
{
	const char *b = getenv("GX_BUILDDIR");

	skip_unless_permitted();
	/* a harness started in the background may hand us SIGINT ignored;
	 * the SIGINT tests need it delivered (and collect keeps an ignored
	 * signal ignored) */
	signal(SIGINT, SIG_DFL);
	builddir = xstrdup(b && *b ? b : ".");
	test_threads();
	test_sampling_modes();
	test_fork();
	test_exit_and_signals();
	test_signal_state();
	test_sigint_forwarded();
	test_exec_failure();
	test_attach();
	test_attach_threads();
	test_counts();
	test_lost();
	test_system_wide();
	test_enable_from_round();
	test_errors();
	test_default_events();
	test_unprivileged();
	free(builddir);
	return done_testing();
}
