/*
 * self-stack.h: a call stack of the test binary's own code (root_fn calls
 * mid_fn calls leaf_fn, none inlined) and the mapping of this executable
 * that holds an address, for the tests that symbolize themselves
 * (test-profile-stack, test-result-range; build them with -g -O0).
 * Header-only, like tap.h.
 */
#ifndef GX_SELF_STACK_H
#define GX_SELF_STACK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "perfdata/perfdata.h"

static volatile int sink_;

static __attribute__((noinline)) void leaf_fn(void)
{
	for (int i = 0; i < 10; i++)
		sink_ += i;
}

static __attribute__((noinline)) void mid_fn(void)
{
	leaf_fn();
	sink_++;
}

static __attribute__((noinline)) void root_fn(void)
{
	mid_fn();
	sink_++;
}

/* The mapping of this executable that holds addr, from /proc/self/maps:
 * m's start, len and pgoff, its file in path. 0, or -1 when none. */
static inline int self_map(uint64_t addr, struct pd_mmap *m, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = -1;

	while (f && fgets(line, sizeof(line), f)) {
		uint64_t s, e, off;
		char perm[8], p[512] = "";

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %511s", &s, &e, perm,
			   &off, p) < 4)
			continue;
		if (addr >= s && addr < e) {
			snprintf(path, len, "%s", p);
			m->start = s;
			m->len = e - s;
			m->pgoff = off;
			found = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

#endif
