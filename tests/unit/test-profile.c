/*
 * profile: rows per process, thread and module from synthetic records fed
 * straight to the tool callbacks (no perf.data needed).
 */
#include "config.h"

#include "profile/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile-int.h"
#include "tap.h"

static struct pd_tool *tool;

static void mmap_(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *file)
{
	struct pd_mmap m = { .pid = pid, .tid = pid, .start = start, .len = len, .pgoff = pgoff,
			     .filename = file, .misc = PERF_RECORD_MISC_USER };

	tool->mmap(tool, &m);
}

static void comm_(uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct pd_comm c = { .pid = pid, .tid = tid, .comm = comm, .exec = exec };

	tool->comm(tool, &c);
}

static void fork_(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct pd_task t = { .pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid };

	tool->fork(tool, &t);
}

static void sample_(uint32_t ev, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t period,
		    uint16_t mode)
{
	struct pd_sample s = { .evsel = ev, .pid = pid, .tid = tid, .ip = ip, .period = period,
			       .misc = mode };

	tool->sample(tool, &s);
}

static void sample_t(uint32_t ev, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t period,
		     uint16_t mode, uint64_t time)
{
	struct pd_sample s = { .evsel = ev, .pid = pid, .tid = tid, .ip = ip, .period = period,
			       .misc = mode, .time = time };

	tool->sample(tool, &s);
}

/* slots: [0, 10) -> 0, [10, 20) -> 1, else none */
static int slot_of_(void *ctx, uint64_t t)
{
	(void)ctx;
	return t < 10 ? 0 : t < 20 ? 1 : -1;
}

static const struct profile_row *find(struct profile *p, enum profile_by by, const char *name,
				      uint32_t id)
{
	size_t nr;
	const struct profile_row *const *rows = profile__rows(p, by, 0, &nr);

	for (size_t i = 0; i < nr; i++)
		if (!strcmp(rows[i]->name, name) &&
		    (by == PROFILE_BY_MODULE || (by == PROFILE_BY_THREAD ? rows[i]->tid : rows[i]->pid) == id))
			return rows[i];
	return NULL;
}

/* The probe of keys wider than 64 bits (wide_key__first/next): three
 * keys whose hashes collide at UINT64_MAX - 1 take that hash, then 0
 * (UINT64_MAX is the map's reserved key), then 1. */
static void test_wide_key(void)
{
	uint64_t wide[3][2] = { { 1, 2 }, { 3, 4 }, { 5, 6 } }, want[3] = { UINT64_MAX - 1, 0, 1 };
	struct u64map idx;
	uint64_t *slot, key;
	int steps;

	u64map__init(&idx);
	for (int i = 0; i < 3; i++) {
		key = UINT64_MAX - 1;	/* the hash of every key here */
		for (slot = wide_key__first(&idx, &key); slot; slot = wide_key__next(&idx, &key))
			if (!memcmp(wide[*slot], wide[i], sizeof(wide[i])))
				break;
		ok(!slot, "wide key %d: new", i);
		if (key != want[i])
			diag("its hash: %llu", (unsigned long long)key);
		ok(key == want[i], "... stored at the next free hash, past the reserved one");
		*u64map__findnew(&idx, key, 0) = (uint64_t)i;
	}
	for (int i = 2; i >= 0; i--) {
		key = UINT64_MAX - 1;
		steps = 0;
		for (slot = wide_key__first(&idx, &key); slot; slot = wide_key__next(&idx, &key), steps++)
			if (!memcmp(wide[*slot], wide[i], sizeof(wide[i])))
				break;
		ok(slot && *slot == (uint64_t)i && steps == i, "wide key %d found after %d collisions",
		   i, i);
	}
	u64map__exit(&idx);
}

/* ---- a process's maps: sorted, found by binary search, as a list says ---- */

struct omap {
	uint64_t start, end, pgoff;
	uint32_t tag;
};

static uint64_t map_rng = 0x2545f4914f6cdd1dULL;

static uint64_t map_rand(void)
{
	map_rng ^= map_rng << 13;
	map_rng ^= map_rng >> 7;
	map_rng ^= map_rng << 17;
	return map_rng;
}

/* The oracle: the mappings in the order they came, the latest winning. */
static const struct omap *oracle_find(const struct omap *o, size_t n, uint64_t addr)
{
	for (size_t i = n; i-- > 0;)
		if (addr >= o[i].start && addr < o[i].end)
			return &o[i];
	return NULL;
}

static void add_map(struct machine *m, uint32_t pid, uint64_t start, uint64_t len, uint32_t tag)
{
	char name[32];
	struct pd_mmap mm = { .pid = pid, .tid = pid, .start = start, .len = len,
			      .pgoff = (uint64_t)tag << 12, .filename = name,
			      .misc = PERF_RECORD_MISC_USER };

	snprintf(name, sizeof(name), "/lib/m%u.so", tag);
	machine__add_mmap(m, &mm, NULL, NULL, 0);
}

/*
 * Random mappings, some over others (which cut or split them), against a
 * list searched from the newest: every probe (inside a map, at its ends,
 * in the gaps) finds the same map at the same file offset, and the maps
 * stay sorted. A process's space changes with its maps; a forked child
 * shares its parent's until either maps something.
 */
static void test_maps(void)
{
	enum { NR = 600, PROBES = 20000 };
	struct omap *o = calloc(NR, sizeof(*o));
	struct machine m;
	const struct mproc *pr;
	size_t bad = 0, sorted = 1, found = 0;
	uint64_t s0, s1, s2;

	machine__init(&m);
	for (uint32_t i = 0; i < NR; i++) {
		uint64_t start = 0x10000000ULL + (map_rand() % 4096) * 0x10000;
		uint64_t len = (1 + map_rand() % 32) * 0x1000;

		add_map(&m, 7, start, len, i);
		o[i] = (struct omap){ start, start + len, (uint64_t)i << 12, i };
	}
	pr = machine__findnew_proc(&m, 7);
	for (size_t i = 1; i < pr->nr_maps; i++)
		if (pr->maps[i - 1].end > pr->maps[i].start)
			sorted = 0;
	ok(sorted, "maps: %zu pieces, sorted and apart", pr->nr_maps);
	for (uint32_t k = 0; k < PROBES; k++) {
		uint64_t addr;
		const struct omap *w;
		const struct mmap_ent *e;

		switch (k % 4) {
		case 0: addr = o[k % NR].start; break;
		case 1: addr = o[k % NR].end - 1; break;
		case 2: addr = o[k % NR].end; break;
		default: addr = 0x0fff0000ULL + map_rand() % (4097ULL * 0x10000); break;
		}
		w = oracle_find(o, NR, addr);
		e = mproc__find_map(pr, addr);
		if (!w != !e || (w && (e->pgoff + (addr - e->start) != w->pgoff + (addr - w->start) ||
				       e->end > w->end || e->start < w->start)))
			bad++;
		found += w != NULL;
	}
	is_int(bad, 0, "maps: %d probes (%zu in a map) find what the list finds", PROBES, found);
	ok(!mproc__find_map(pr, 0) && !mproc__find_map(pr, UINT64_MAX), "maps: nothing at 0 or the top");

	s0 = pr->space;
	machine__fork(&m, &(struct pd_task){ .pid = 8, .ppid = 7, .tid = 8, .ptid = 7 });
	pr = machine__findnew_proc(&m, 8);
	is_int(pr->nr_maps, machine__findnew_proc(&m, 7)->nr_maps, "maps: a forked child has its parent's");
	ok(pr->space == s0, "maps: ... and its parent's address space");
	add_map(&m, 8, 0x7f0000000000ULL, 0x1000, 9999);
	s1 = machine__findnew_proc(&m, 8)->space;
	s2 = machine__findnew_proc(&m, 7)->space;
	ok(s1 != s0 && s2 == s0, "maps: an mmap changes the child's space, not the parent's");
	machine__comm(&m, &(struct pd_comm){ .pid = 7, .tid = 7, .comm = "new", .exec = true });
	pr = machine__findnew_proc(&m, 7);
	ok(pr->nr_maps == 0 && pr->space != s0 && pr->space != s1, "maps: exec empties them, a new space");
	machine__exit(&m);
	free(o);
}

int main(void)
{
	test_wide_key();
	test_maps();
	struct profile *p = profile__new(2);
	const struct profile_row *r;
	size_t nr;
	const struct profile_row *const *rows;
	const uint16_t U = PERF_RECORD_MISC_USER, K = PERF_RECORD_MISC_KERNEL;

	tool = profile__tool(p);
	/* process 100 "app": binary at 0x400000, libc at 0x7f0000000000 */
	comm_(100, 100, "app", true);
	mmap_(100, 0x400000, 0x10000, 0, "/usr/bin/app");
	mmap_(100, 0x7f0000000000, 0x200000, 0, "/lib/libc.so.6");
	sample_(0, 100, 100, 0x401000, 1000, U);
	sample_(0, 100, 100, 0x401010, 1000, U);
	sample_(0, 100, 100, 0x7f0000001000, 1000, U);
	sample_(0, 100, 100, 0xffffffff81000000ULL, 500, K);
	sample_(1, 100, 100, 0x401000, 7, U);
	/* a thread of 100 */
	fork_(100, 100, 101, 100);
	sample_(0, 100, 101, 0x401000, 1000, U);
	/* a child process 200 inherits the maps, then execs another binary */
	fork_(200, 100, 200, 100);
	sample_(0, 200, 200, 0x7f0000002000, 1000, U);
	comm_(200, 200, "child", true);
	mmap_(200, 0x400000, 0x8000, 0, "/usr/bin/child");
	sample_(0, 200, 200, 0x400100, 1000, U);
	sample_(0, 200, 200, 0x7f0000002000, 1000, U);	/* libc gone after exec */

	is_int(profile__total_samples(p, 0), 8, "event 0 samples");
	is_int(profile__total_period(p, 0), 7500, "event 0 period sum");
	is_int(profile__total_samples(p, 1), 1, "event 1 samples");
	is_int(profile__total_period(p, 1), 7, "event 1 period sum");

	r = find(p, PROFILE_BY_MODULE, "/usr/bin/app", 0);
	ok(r && r->samples[0] == 3 && r->period[0] == 3000, "app module: 3 samples");
	ok(r && r->samples[1] == 1 && r->period[1] == 7, "app module: event 1");
	r = find(p, PROFILE_BY_MODULE, "/lib/libc.so.6", 0);
	ok(r && r->samples[0] == 2, "libc: own sample and the forked child's before exec");
	r = find(p, PROFILE_BY_MODULE, "[kernel.kallsyms]", 0);
	ok(r && r->samples[0] == 1 && r->period[0] == 500, "kernel sample");
	r = find(p, PROFILE_BY_MODULE, "/usr/bin/child", 0);
	ok(r && r->samples[0] == 1, "child binary after exec");
	r = find(p, PROFILE_BY_MODULE, "[unknown]", 0);
	ok(r && r->samples[0] == 1, "address unmapped after exec is [unknown]");
	is_int(profile__unmapped_samples(p), 1, "unmapped count");

	r = find(p, PROFILE_BY_THREAD, "app", 101);
	ok(r && r->samples[0] == 1 && r->pid == 100, "thread 101 named after its parent");
	r = find(p, PROFILE_BY_THREAD, "app", 100);
	ok(r && r->samples[0] == 4, "main thread");
	r = find(p, PROFILE_BY_PROCESS, "app", 100);
	ok(r && r->samples[0] == 5 && r->period[0] == 4500, "process 100 sums its threads");
	r = find(p, PROFILE_BY_PROCESS, "app", 200);
	ok(r && r->samples[0] == 1, "child before exec keeps the parent's name");
	r = find(p, PROFILE_BY_PROCESS, "child", 200);
	ok(r && r->samples[0] == 2, "child after exec");

	rows = profile__rows(p, PROFILE_BY_PROCESS, 0, &nr);
	is_int(nr, 3, "three process rows");
	ok(nr == 3 && rows[0]->period[0] >= rows[1]->period[0] &&
	   rows[1]->period[0] >= rows[2]->period[0], "sorted by period");
	rows = profile__rows(p, PROFILE_BY_MODULE, 1, &nr);
	is_str(nr ? rows[0]->name : NULL, "/usr/bin/app", "sort by event 1");

	/* map replacement: an mmap over the middle of another splits it */
	mmap_(100, 0x400000, 0x10000, 0, "/usr/bin/app");
	mmap_(100, 0x404000, 0x1000, 0, "/tmp/jit");
	sample_(0, 100, 100, 0x403fff, 1, U);
	sample_(0, 100, 100, 0x404000, 1, U);
	sample_(0, 100, 100, 0x405000, 1, U);
	r = find(p, PROFILE_BY_MODULE, "/tmp/jit", 0);
	ok(r && r->samples[0] == 1, "overlapping map wins its range");
	r = find(p, PROFILE_BY_MODULE, "/usr/bin/app", 0);
	ok(r && r->samples[0] == 5, "both sides of the split keep the old map");
	profile__delete(p);

	/* time slots: event 0's period split by the slot its sample fell in */
	{
		struct profile_opts o = { .slot_of = slot_of_, .nr_slots = 2, .slot_event = 0 };
		char *cause = NULL;

		ok(profile__new_opts(&p, 2, &o, &cause) == 0, "profile with slots");
		tool = profile__tool(p);
		comm_(100, 100, "app", true);
		mmap_(100, 0x400000, 0x10000, 0, "/usr/bin/app");
		sample_t(0, 100, 100, 0x401000, 10, U, 5);	/* slot 0 */
		sample_t(0, 100, 100, 0x401000, 20, U, 15);	/* slot 1 */
		sample_t(0, 100, 100, 0x401000, 40, U, 16);	/* slot 1 */
		sample_t(0, 100, 100, 0x401000, 80, U, 99);	/* no slot */
		sample_t(1, 100, 100, 0x401000, 7, U, 5);	/* other event: not split */
		r = find(p, PROFILE_BY_PROCESS, "app", 100);
		ok(r && r->slot_period, "rows carry slot periods");
		ok(r && r->slot_period && r->slot_period[0] == 10 && r->slot_period[1] == 60,
		   "process: 10 in slot 0, 60 in slot 1, the rest in none");
		r = find(p, PROFILE_BY_MODULE, "/usr/bin/app", 0);
		ok(r && r->slot_period && r->slot_period[0] == 10 && r->slot_period[1] == 60,
		   "module row split the same way");
		is_int(r ? r->period[0] : 0, 150, "the self period is unchanged");
		profile__delete(p);
		free(cause);
	}
	return done_testing();
}
