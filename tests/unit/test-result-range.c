/*
 * test-result-range: a time range or a region totalled in memory from the
 * samples a profile kept (profile__subset) is the profile a new walk of
 * just those samples gives: the same rows with the same indexes, names,
 * call paths, per-event counts, totals and time-slot periods.
 *
 *   test-result-range             samples fed to profiles here: threads of
 *                                 two processes renamed midway, call stacks
 *                                 over this binary's functions and the
 *                                 kernel, unmapped addresses, two events,
 *                                 periods over 32 bits, times out of order,
 *                                 time slots, a filter like a region's;
 *                                 a span value (off-CPU waits) credited
 *                                 by its overlap with a range
 *   test-result-range RESULT...   each result opened with keep_samples
 *                                 against one without (which walks
 *                                 perf.data again): ranges over its run and
 *                                 every region (tests/e2e/range.sh)
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "self-stack.h"
#include "mux/mux.h"
#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "result/result.h"
#include "util/util.h"

/* ---- comparing two profiles ------------------------------------------------ */

static const char *const by_name[PROFILE_BY_NR_] = {
	"process", "thread", "module", "function", "line", "callpath", "command",
};

static bool same_counts(const uint64_t *a, const uint64_t *b, size_t n)
{
	return (!a && !b) || (a && b && !memcmp(a, b, n * sizeof(*a)));
}

/* Row i of kind `by` in a and b: the same identity and counters. */
static bool same_row(const struct profile_row *x, const struct profile_row *y, size_t ne,
		     size_t nslots)
{
	if (strcmp(x->name, y->name) || strcmp(x->module, y->module) || strcmp(x->file, y->file) ||
	    x->line != y->line || x->function != y->function || x->pid != y->pid ||
	    x->tid != y->tid || x->index != y->index || x->nr_procs != y->nr_procs ||
	    x->path_len != y->path_len ||
	    (x->path_len && memcmp(x->path, y->path, x->path_len * sizeof(*x->path))))
		return false;
	return same_counts(x->samples, y->samples, ne) && same_counts(x->period, y->period, ne) &&
	       same_counts(x->total_samples, y->total_samples, ne) &&
	       same_counts(x->total_period, y->total_period, ne) &&
	       same_counts(x->slot_period, y->slot_period, nslots);
}

/* a (in memory) and b (walked) agree on everything; one test point. */
static void same_profile(struct profile *a, struct profile *b, size_t nslots, const char *what)
{
	size_t ne = profile__nr_events(b), bad = 0;
	const char *why1 = NULL, *why2 = NULL;

	if (profile__nr_events(a) != ne) {
		ok(0, "%s: %zu events, not %zu", what, profile__nr_events(a), ne);
		return;
	}
	for (size_t e = 0; e < ne; e++)
		if (profile__total_samples(a, e) != profile__total_samples(b, e) ||
		    profile__total_period(a, e) != profile__total_period(b, e)) {
			diag("%s: event %zu: %" PRIu64 " samples, %" PRIu64 " period; walked: %" PRIu64
			     ", %" PRIu64, what, e, profile__total_samples(a, e),
			     profile__total_period(a, e), profile__total_samples(b, e),
			     profile__total_period(b, e));
			bad++;
		}
	for (size_t e = 0; e < ne; e++) {
		uint64_t pa, pb;

		if (profile__inlined(a, e, &pa) != profile__inlined(b, e, &pb) || pa != pb) {
			diag("%s: event %zu: samples in inlined code differ", what, e);
			bad++;
		}
	}
	if (profile__has_callchains(a) != profile__has_callchains(b) ||
	    profile__unmapped_samples(a) != profile__unmapped_samples(b) ||
	    profile__unwind_failures(a, &why1) != profile__unwind_failures(b, &why2)) {
		diag("%s: callchains, unmapped or unwind failures differ", what);
		bad++;
	}
	for (int by = 0; by < PROFILE_BY_NR_; by++) {
		size_t na, nb;
		const struct profile_row *const *ra = profile__sort(a, by, 0, PROFILE_SORT_SELF, &na);
		const struct profile_row *const *rb = profile__sort(b, by, 0, PROFILE_SORT_SELF, &nb);

		if (na != nb) {
			diag("%s: %zu %s rows, walked: %zu", what, na, by_name[by], nb);
			bad++;
			continue;
		}
		for (uint32_t i = 0; i < na; i++) {
			const struct profile_row *x = profile__row(a, by, i), *y = profile__row(b, by, i);

			if (!same_row(x, y, ne, nslots) || ra[i]->index != rb[i]->index) {
				if (bad < 5)
					diag("%s: %s row %u (%s, pid %u, %u processes, %" PRIu64
					     " samples) differs from the walked one (%s, pid %u, %u, %"
					     PRIu64 ")", what, by_name[by], i, x->name, x->pid,
					     x->nr_procs, x->samples[0], y->name, y->pid, y->nr_procs,
					     y->samples[0]);
				bad++;
			}
		}
	}
	ok(bad == 0, "%s: the same profile as a walk of its samples", what);
}

/* ---- samples fed here ----------------------------------------------------- */

#define NR_EVENTS 2
#define NR_SLOTS 3
#define NR_RECS 4000

struct rec {
	enum { R_COMM, R_MMAP, R_SAMPLE } type;
	struct pd_comm comm;
	struct pd_mmap mmap;
	struct pd_sample s;
	uint64_t chain[8];
};

static struct rec recs[NR_RECS];
static size_t nr_recs;
static char self_path[512];

static struct rec *add_rec(int type)
{
	struct rec *r = &recs[nr_recs++];

	memset(r, 0, sizeof(*r));
	r->type = type;
	return r;
}

static void add_comm(uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct rec *r = add_rec(R_COMM);

	r->comm = (struct pd_comm){ .pid = pid, .tid = tid, .comm = comm, .exec = exec };
}

static uint64_t seed_ = 7;

static uint32_t rnd(uint32_t n)
{
	seed_ = seed_ * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(seed_ >> 33) % n;
}

/* A sample of one of five threads in three processes, at a leaf over a
 * call stack of one of six shapes. */
static void add_sample(uint64_t time, uint64_t leaf, uint64_t mid, uint64_t root)
{
	static const uint32_t tids[][2] = { { 10, 10 }, { 10, 11 }, { 20, 20 }, { 20, 21 },
					     { 30, 30 } };
	const uint64_t U = PERF_CONTEXT_USER, K = PERF_CONTEXT_KERNEL, kip = 0xffffffff81000010ull;
	struct rec *r = add_rec(R_SAMPLE);
	struct pd_sample *s = &r->s;
	uint32_t t = rnd(5), shape = rnd(6), n = 0;
	uint64_t ip = leaf + rnd(8);

	s->pid = tids[t][0];
	s->tid = tids[t][1];
	s->time = time;
	s->evsel = rnd(4) == 0;
	s->period = rnd(50) == 0 ? 5000000000ull + rnd(3) : 1 + rnd(1000);
	s->misc = PERF_RECORD_MISC_USER;
	switch (shape) {
	case 0:		/* leaf <- mid <- root */
		r->chain[n++] = U;
		r->chain[n++] = ip;
		r->chain[n++] = mid + 1;
		r->chain[n++] = root + 1;
		break;
	case 1:		/* recursion */
		r->chain[n++] = U;
		r->chain[n++] = ip;
		r->chain[n++] = leaf + 1;
		r->chain[n++] = root + 1;
		break;
	case 2:		/* in the kernel, from mid */
		ip = kip + rnd(2) * 16;
		s->misc = PERF_RECORD_MISC_KERNEL;
		r->chain[n++] = K;
		r->chain[n++] = ip;
		r->chain[n++] = kip + 32;
		r->chain[n++] = U;
		r->chain[n++] = mid;
		r->chain[n++] = root + 1;
		break;
	case 3:		/* an address in no mapping */
		ip = 0x1000 + rnd(4);
		r->chain[n++] = U;
		r->chain[n++] = ip;
		r->chain[n++] = root + 1;
		break;
	case 4:		/* mid, no call stack */
		ip = mid + rnd(4);
		break;
	default:	/* root, no call stack */
		ip = root;
		break;
	}
	s->ip = ip;
	s->callchain = n ? r->chain : NULL;
	s->nr_callchain = n;
}

/* Records in the order a reader hands them: threads named (two processes
 * of one command; thread 21 never is: it has its process's name), the
 * binary mapped in each process, a thread renamed, a process exec'ing a
 * new name and a main thread renamed midway; sample times mostly rising,
 * some late, some equal. */
static void make_recs(uint64_t leaf, uint64_t mid, uint64_t root, const struct pd_mmap *m)
{
	uint64_t time = 1000;

	add_comm(10, 10, "app", true);
	add_comm(10, 11, "worker", false);
	add_comm(20, 20, "other", true);
	add_comm(30, 30, "app", true);
	for (uint32_t pid = 10; pid <= 30; pid += 10) {
		struct rec *r = add_rec(R_MMAP);

		r->mmap = *m;
		r->mmap.pid = r->mmap.tid = pid;
		r->mmap.misc = PERF_RECORD_MISC_USER;
	}
	while (nr_recs < NR_RECS) {
		if (nr_recs == NR_RECS / 3)
			add_comm(10, 11, "worker-b", false);
		if (nr_recs == 2 * NR_RECS / 3)
			add_comm(20, 20, "other-b", true);
		if (nr_recs == 3 * NR_RECS / 4)	/* its thread 11 keeps its name */
			add_comm(10, 10, "app-b", false);
		time += rnd(5) == 0 ? 0 : 10 + rnd(20);
		add_sample(rnd(30) == 0 ? time - 100 : time, leaf, mid, root);
	}
}

static int slot_of(void *ctx, uint64_t time)
{
	(void)ctx;
	return time % 700 < 50 ? -1 : (int)(time / 1000 % NR_SLOTS);
}

static struct profile *new_profile(bool keep)
{
	struct profile_opts o = { .slot_of = slot_of, .nr_slots = NR_SLOTS, .slot_event = 0,
				  .keep_samples = keep };
	struct profile *p = NULL;
	char *cause = NULL;

	if (profile__new_opts(&p, NR_EVENTS, &o, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	return p;
}

struct filter {
	uint64_t lo, hi;
	bool (*keep)(void *ctx, uint32_t tid, uint64_t time);
};

/* Region-like filters: some threads at some times. */
static bool some_threads(void *ctx, uint32_t tid, uint64_t time)
{
	(void)ctx;
	return (tid == 11 && time % 3000 < 1500) || (tid == 20 && time % 1000 < 700);
}

/* "app" of pid 30 first, then of pid 10 too: the command row is 30's */
static bool app_late(void *ctx, uint32_t tid, uint64_t time)
{
	(void)ctx;
	return tid == 30 || (tid == 10 && time % 5000 > 4000);
}

/* Every record to p, the samples only when f keeps them (NULL: all). */
static void feed(struct profile *p, const struct filter *f)
{
	struct pd_tool *t = profile__tool(p);

	for (size_t i = 0; i < nr_recs; i++) {
		const struct rec *r = &recs[i];

		if (r->type == R_COMM)
			t->comm(t, &r->comm);
		else if (r->type == R_MMAP)
			t->mmap(t, &r->mmap);
		else if (!f || (r->s.time >= f->lo && r->s.time <= f->hi &&
				(!f->keep || f->keep(NULL, r->s.tid, r->s.time))))
			t->sample(t, &r->s);
	}
}

static void test_fed(void)
{
	uint64_t leaf = (uint64_t)(uintptr_t)&leaf_fn + 4, mid = (uint64_t)(uintptr_t)&mid_fn + 4;
	uint64_t root = (uint64_t)(uintptr_t)&root_fn + 4, last;
	struct pd_mmap m = { 0 };
	struct profile *all = new_profile(true), *plain = new_profile(false), *sub = NULL;
	struct filter f[12];
	size_t nf = 0;

	root_fn();
	if (self_map(leaf, &m, self_path, sizeof(self_path)) != 0 || self_path[0] != '/') {
		skip(1, "cannot find this executable's mapping");
		profile__delete(all);
		profile__delete(plain);
		return;
	}
	m.filename = self_path;
	make_recs(leaf, mid, root, &m);
	last = recs[nr_recs - 1].s.time;
	feed(all, NULL);
	feed(plain, NULL);
	same_profile(all, plain, NR_SLOTS, "keeping samples changes nothing");

	f[nf++] = (struct filter){ 0, UINT64_MAX, NULL };
	f[nf++] = (struct filter){ 0, last / 2, NULL };
	f[nf++] = (struct filter){ last / 3, 2 * last / 3, NULL };
	f[nf++] = (struct filter){ last / 2, UINT64_MAX, NULL };
	f[nf++] = (struct filter){ recs[nr_recs / 2].s.time, recs[nr_recs / 2].s.time, NULL };
	f[nf++] = (struct filter){ last + 1, UINT64_MAX, NULL };
	f[nf++] = (struct filter){ 4 * last / 5, UINT64_MAX, NULL };
	f[nf++] = (struct filter){ 7 * last / 10, 9 * last / 10, NULL };
	f[nf++] = (struct filter){ 0, UINT64_MAX, some_threads };
	f[nf++] = (struct filter){ last / 4, 3 * last / 4, some_threads };
	f[nf++] = (struct filter){ 0, UINT64_MAX, app_late };
	f[nf++] = (struct filter){ last / 3, UINT64_MAX, app_late };
	for (size_t i = 0; i < nf; i++) {
		struct profile *walked = new_profile(false);
		char what[96];

		snprintf(what, sizeof(what), "[%" PRIu64 ", %" PRIu64 "]%s", f[i].lo, f[i].hi,
			 f[i].keep ? " and a filter" : "");
		feed(walked, &f[i]);
		is_int(profile__subset(all, f[i].lo, f[i].hi, f[i].keep, NULL, &sub), 0,
		       "%s: a subset of the kept samples", what);
		if (sub)
			same_profile(sub, walked, NR_SLOTS, what);
		profile__delete(sub);
		profile__delete(walked);
	}
	is_int(profile__subset(plain, 0, UINT64_MAX, NULL, NULL, &sub), -ENOTSUP,
	       "no kept samples: -ENOTSUP");
	ok(sub == NULL, "... and no profile");
	profile__delete(all);
	profile__delete(plain);
}

/* ---- spans: a wait credited by its overlap with a range ------------------- */

#define MS 1000000ull

/* A sample of event ev on thread tid at time t (no stack). */
static void span_sample(struct pd_tool *t, uint32_t tid, uint32_t ev, uint64_t time,
			uint64_t period)
{
	struct pd_sample s = { .pid = 10, .tid = tid, .time = time, .evsel = ev, .period = period,
			       .ip = 0x1000, .misc = PERF_RECORD_MISC_USER };

	t->sample(t, &s);
}

/* Thread tid's period of event e in p (0: no row). */
static uint64_t thread_period(struct profile *p, uint32_t tid, size_t e)
{
	size_t nr;
	const struct profile_row *const *rows = profile__rows(p, PROFILE_BY_THREAD, 0, &nr);

	for (size_t i = 0; i < nr; i++)
		if (rows[i]->tid == tid)
			return rows[i]->period[e];
	return 0;
}

/*
 * Event 1 a span value (off-CPU waits): thread 11 sleeps from 100 ms for
 * 1 s, then 10 ms at 1.5 s, while thread 10 runs (event 0, a sample each
 * 10 ms). A range credits each wait by its overlap with it, also one in
 * the middle of the long sleep; with the waits handed over at their end
 * (as offcpu.c does: the samples out of time order) or at their start.
 */
static void test_span(bool at_end)
{
	static const struct {
		uint64_t lo, hi, ns, n;
	} want[] = {
		{ 500 * MS, 700 * MS, 200 * MS, 1 },	/* inside the long sleep */
		{ 0, 150 * MS, 50 * MS, 1 },		/* its first 50 ms */
		{ 1050 * MS, 1505 * MS, 55 * MS, 2 },	/* the end of one, the start of the other */
		{ 1105 * MS, 1200 * MS, 0, 0 },		/* between them */
		{ 0, UINT64_MAX, 1010 * MS, 2 },	/* the whole run */
	};
	struct profile *p = new_profile(true);
	struct pd_tool *t = profile__tool(p);
	struct pd_comm c = { .pid = 10, .tid = 10, .comm = "app", .exec = true };

	profile__set_span(p, 1);
	t->comm(t, &c);
	c.tid = 11;
	c.comm = "sleeper";
	c.exec = false;
	t->comm(t, &c);
	if (!at_end)
		span_sample(t, 11, 1, 100 * MS, 1000 * MS);
	for (uint64_t ms = 0; ms < 2000; ms += 10) {
		if (at_end && ms == 1100)
			span_sample(t, 11, 1, 100 * MS, 1000 * MS);
		if (ms == 1500)
			span_sample(t, 11, 1, 1500 * MS, 10 * MS);
		span_sample(t, 10, 0, ms * MS, 10 * MS);
	}
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		struct profile *sub = NULL;

		if (profile__subset(p, want[i].lo, want[i].hi, NULL, NULL, &sub) != 0) {
			ok(0, "a subset of the kept samples");
			continue;
		}
		ok(profile__total_period(sub, 1) == want[i].ns &&
			   profile__total_samples(sub, 1) == want[i].n &&
			   thread_period(sub, 11, 1) == want[i].ns && !thread_period(sub, 10, 1),
		   "%s: [%" PRIu64 ", %" PRIu64 "] ms: the waits' %" PRIu64 " ms (%" PRIu64
		   " waits) on the sleeper; got %" PRIu64 " ns (%" PRIu64 ")",
		   at_end ? "waits at their end" : "in time order", want[i].lo / MS,
		   want[i].hi == UINT64_MAX ? 0 : want[i].hi / MS, want[i].ns / MS, want[i].n,
		   profile__total_period(sub, 1), profile__total_samples(sub, 1));
		if (i == 0)
			is_int((long long)profile__total_samples(sub, 0), 21,
			       "the range's samples of a plain event: by their time");
		profile__delete(sub);
	}
	profile__delete(p);
}

/* ---- results given on the command line ------------------------------------ */

static struct gx_result *open_result(const char *path, bool keep)
{
	struct gx_result_opts o = { .keep_samples = keep };
	struct gx_result *r = NULL;
	char *cause = NULL;

	if (gx_result__open(&r, path, &o, &cause) != 0) {
		diag("%s: %s", path, cause);
		free(cause);
	}
	return r;
}

/* Region `region`'s profile, or with region SIZE_MAX time [lo, hi]'s. */
static int subset_of(struct gx_result *r, uint64_t lo, uint64_t hi, size_t region,
		     struct profile **p, char **cause)
{
	if (region == SIZE_MAX)
		return gx_result__profile_range(r, lo, hi, p, cause);
	return gx_result__profile_region(r, region, p, cause);
}

/* The subset of a (totalled in memory) and of b (walked): the same. */
static void compare(struct gx_result *a, struct gx_result *b, uint64_t lo, uint64_t hi,
		    size_t region, size_t nslots, const char *path)
{
	struct profile *pa = NULL, *pb = NULL;
	char *cause = NULL, what[512];

	if (region == SIZE_MAX)
		snprintf(what, sizeof(what), "%s: time [%" PRIu64 ", %" PRIu64 "]", path, lo, hi);
	else
		snprintf(what, sizeof(what), "%s: region %s", path,
			 gx_result__region_name(a, region)->name);
	if (subset_of(a, lo, hi, region, &pa, &cause) != 0 ||
	    subset_of(b, lo, hi, region, &pb, &cause) != 0) {
		ok(0, "%s: %s", what, cause);
		free(cause);
	} else {
		same_profile(pa, pb, nslots, what);
	}
	profile__delete(pa);
	profile__delete(pb);
}

static void test_result(const char *path)
{
	struct gx_result *a = open_result(path, true), *b = open_result(path, false);
	const struct pd_stats *st;
	uint64_t t0, t1, d;
	size_t nslots;

	if (!a || !b) {
		ok(0, "%s opens", path);
		gx_result__delete(a);
		gx_result__delete(b);
		return;
	}
	nslots = gx_result__mux(a) ? mux_log__nr_groups(gx_result__mux(a)) : 0;
	same_profile(gx_result__profile(a), gx_result__profile(b), nslots, path);
	st = perf_reader__stats(gx_result__reader(a));
	t0 = st->first_time;
	t1 = st->last_time;
	d = t1 > t0 ? t1 - t0 : 0;
	compare(a, b, 0, 0, SIZE_MAX, nslots, path);
	compare(a, b, t0, t0 + d / 2, SIZE_MAX, nslots, path);
	compare(a, b, t0 + d / 3, t0 + 2 * d / 3, SIZE_MAX, nslots, path);
	compare(a, b, t0 + d / 2, 0, SIZE_MAX, nslots, path);
	compare(a, b, t0 + d / 10, t0 + d / 10 + d / 50, SIZE_MAX, nslots, path);
	compare(a, b, t1 + 1, t1 + 1000, SIZE_MAX, nslots, path);
	for (size_t i = 0; i < gx_result__nr_region_names(a); i++)
		compare(a, b, 0, 0, i, nslots, path);
	gx_result__delete(a);
	gx_result__delete(b);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			test_result(argv[i]);
		return done_testing();
	}
	test_fed();
	test_span(true);
	test_span(false);
	return done_testing();
}
