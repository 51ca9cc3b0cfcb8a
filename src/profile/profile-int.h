#ifndef GX_PROFILE_INT_H
#define GX_PROFILE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "util/util.h"

struct mmap_ent {
	uint64_t start, end, pgoff;
	uint32_t module;	/* strtab id of the file name */
};

struct mproc {
	uint32_t pid;
	uint32_t comm;		/* strtab id */
	struct mmap_ent *maps;	/* sorted by start, non-overlapping */
	size_t nr_maps, maps_cap;
};

struct mthread {
	uint32_t tid, pid;
	uint32_t comm;		/* strtab id */
	uint32_t row[2];	/* cached row index: thread, process */
};

struct machine {
	struct mthread *threads;
	size_t nr_threads, threads_cap;
	struct u64map thread_idx;	/* tid -> index */
	struct mproc *procs;
	size_t nr_procs, procs_cap;
	struct u64map proc_idx;		/* pid -> index */
	struct mproc kernel;		/* kernel and module maps */
	struct strtab strs;
	uint32_t str_unknown, str_kernel, str_hv;
};

void machine__init(struct machine *m);
void machine__exit(struct machine *m);
/* Borrowed pointers: valid until the next findnew call. */
struct mproc *machine__findnew_proc(struct machine *m, uint32_t pid);
struct mthread *machine__findnew_thread(struct machine *m, uint32_t pid, uint32_t tid);
void machine__add_mmap(struct machine *m, const struct pd_mmap *mm);
void machine__comm(struct machine *m, const struct pd_comm *c);
void machine__fork(struct machine *m, const struct pd_task *f);
const struct mmap_ent *mproc__find_map(const struct mproc *p, uint64_t addr);

#endif
