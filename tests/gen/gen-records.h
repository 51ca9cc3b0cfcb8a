/*
 * gen-records.h: the records the test generators (gen-perfdata,
 * gen-brstack) write as a recording would: one layout of MMAP2.
 */
#ifndef GX_GEN_RECORDS_H
#define GX_GEN_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perfdata/perfdata.h"

struct gen_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_gen;
	uint32_t prot, flags;
	char name[256];
};

/* A user MMAP2 of path (r-x, private) at addr for len bytes, pgoff 0, in
 * process pid; its size (the name padded to 8 bytes) in mm->h.size. */
static inline void gen_mmap2(struct gen_mmap2 *mm, uint32_t pid, uint64_t addr, uint64_t len,
			     const char *path)
{
	size_t nl = strlen(path) + 1;

	memset(mm, 0, sizeof(*mm));
	mm->h.type = PERF_RECORD_MMAP2;
	mm->h.misc = PERF_RECORD_MISC_USER;
	mm->pid = mm->tid = pid;
	mm->addr = addr;
	mm->len = len;
	mm->prot = 5;
	mm->flags = 2;
	if (nl > sizeof(mm->name))
		nl = sizeof(mm->name);
	memcpy(mm->name, path, nl - 1);
	mm->h.size = (uint16_t)(offsetof(struct gen_mmap2, name) + ((nl + 7) & ~(size_t)7));
}

#endif
