/*
 * profile: rows per process, thread and module from synthetic records fed
 * straight to the tool callbacks (no perf.data needed).
 */
#include "config.h"

#include "profile/profile.h"

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

int main(void)
{
	test_wide_key();
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
