#ifndef GX_PROFILE_INT_H
#define GX_PROFILE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "symbolize/symbolize.h"
#include "util/util.h"

struct mmap_ent {
	uint64_t start, end, pgoff;
	uint32_t module;	/* strtab id of the file name */
	struct sym_dso *dso;	/* its symbols (NULL: none) */
	uint8_t build_id_size;	/* the build-id recorded for it (0: unknown) */
	uint8_t build_id[20];
};

struct mproc {
	uint32_t pid;
	uint32_t comm;		/* strtab id */
	struct mmap_ent *maps;	/* sorted by start, non-overlapping */
	size_t nr_maps, maps_cap;
	uint64_t space;		/* changes with the maps (sym_unwind_input.space) */
};

struct mthread {
	uint32_t tid, pid;
	uint32_t comm;		/* strtab id */
	/* named by a COMM or FORK record; else it has its process's name,
	 * whenever a sample asks (what it is named then does not depend on
	 * which samples came before) */
	bool own_comm;
	uint32_t row[3];	/* cached row index: thread, process, command */
	uint32_t task;		/* those rows' id in profile.keep.tasks */
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
	uint64_t last_space;	/* the last mproc.space handed out */
};

void machine__init(struct machine *m);
void machine__exit(struct machine *m);
/* Borrowed pointers: valid until the next findnew call. */
struct mproc *machine__findnew_proc(struct machine *m, uint32_t pid);
struct mthread *machine__findnew_thread(struct machine *m, uint32_t pid, uint32_t tid);
void machine__add_mmap(struct machine *m, const struct pd_mmap *mm, struct sym_dso *dso,
		       const uint8_t *build_id, size_t build_id_size);
void machine__comm(struct machine *m, const struct pd_comm *c);
void machine__fork(struct machine *m, const struct pd_task *f);
const struct mmap_ent *mproc__find_map(const struct mproc *p, uint64_t addr);

/* ---- aggregation (profile.c, stack.c) ---------------------------------- */

struct rowset {
	struct profile_row *rows;
	size_t nr, cap;
	struct u64map idx;		/* key (or hash) -> row index */
	const struct profile_row **sorted;
	uint64_t *stamp;		/* per row: last sample that added to total */
	size_t stamp_cap;
};

/* What one symbolization result adds to the rows; cached per result. */
struct rinfo {
	uint32_t off;		/* first entry in profile.fnpool / linepool */
	uint32_t nr;		/* frames (inline chain), innermost first */
	uint32_t module;	/* module row */
	bool pseudo;		/* [unknown] / [kernel]: no real function */
	uint32_t canon;		/* kept samples: the first rinfo with these rows */
};

/* A counter's value at its thread's previous sample (group reads). */
struct read_prev {
	uint64_t counter;	/* its sample id (or event and CPU without ids) */
	uint32_t tid;
	uint64_t value;
};

/* One event's share of a sample. */
struct credit {
	uint32_t ev;
	uint64_t period;
};

#define PROFILE_MAX_STACK 127
#define PROFILE_MAX_CHAIN 1024	/* frames after inline expansion */

/* ---- kept samples (keep.c) ------------------------------------------------ */

#define KEEP_CHUNK 65536	/* samples per chunk: no large reallocation */

/* What a sample changes beyond its rows' counters. */
enum {
	KEEP_UNMAPPED = 1,	/* no mapping held its address (profile.unmapped) */
	KEEP_CALLCHAIN = 2,	/* it had a call stack (has_callchains) */
	KEEP_UNWIND_FAILED = 4,	/* its DWARF unwinding failed (unwind_failures) */
};

/* A class: its task (tasks id), event and time slot (-1: none), its
 * module row, path row (UINT32_MAX without symbols) and KEEP_* flags, then
 * the canonical rinfo of each frame, leaf first. */
enum { CLS_TASK, CLS_EV, CLS_SLOT, CLS_MODULE, CLS_PATH, CLS_FLAGS, CLS_FRAMES };

/*
 * profile_opts.keep_samples: every sample as its time, period and class,
 * where a class is all its rows are (its stack, its thread's rows, its
 * event and time slot), each distinct class stored once. A subset totals
 * its samples per class, then credits each class's rows once.
 */
struct keep {
	bool on;
	bool sorted;			/* the times never went back */
	uint64_t last_time;
	uint64_t max_span;		/* the longest span of a span value (profile__set_span) */
	uint64_t **time;		/* chunks of KEEP_CHUNK samples */
	uint32_t **cls, **period;	/* period UINT32_MAX: the value is in big */
	size_t nr, nr_chunks, chunks_cap;
	struct u64map big;		/* sample index -> a period >= UINT32_MAX */
	/* rinfos by their rows (module, pseudo, function and line rows):
	 * addresses with the same rows are one frame of a stack */
	struct u32seq rinfo_rows;
	uint32_t *canon;		/* rinfo_rows id -> its first rinfo */
	size_t canon_cap;
	struct u32seq tasks;		/* thread, process and command row */
	struct u32seq classes;		/* CLS_* */
	uint32_t *buf;			/* scratch for a sequence */
	size_t buf_cap;
};

struct flow_stacks;

struct profile {
	struct pd_tool tool;		/* first: the callbacks get a pd_tool * */
	/* branch stacks (branches.c): their counts, module id -> its sym_dso,
	 * wrong-path entries left out */
	struct flow_stacks *flow;
	struct u64map flow_dso;
	uint64_t flow_wrong_path;
	struct machine machine;
	size_t nr_events;
	uint64_t *tot_samples, *tot_period;
	/* per event, what went to a function inlined where the sample fell
	 * (profile__inlined) */
	uint64_t *inl_samples, *inl_period;
	uint64_t nr_overflowed;		/* samples left out: their period overflowed a sum */
	bool *span;			/* per value: its periods are spans (profile__set_span) */
	struct rowset sets[PROFILE_BY_NR_];
	uint64_t unmapped;
	/* counters live in fixed-size slabs so row pointers stay valid */
	uint64_t **slabs;
	size_t nr_slabs, slabs_cap, slab_used;

	struct sym_session *sym;
	const struct pd_env *env;	/* borrowed */
	struct u64map build_id_idx;	/* machine strtab id -> env build_ids index */
	unsigned max_stack;
	bool has_callchains;
	uint64_t seq;			/* sample counter for the total dedupe */

	struct u64map rinfo_idx;	/* (uintptr_t)sym_result -> rinfos index */
	struct rinfo *rinfos;
	size_t nr_rinfos, rinfos_cap;
	uint32_t *fnpool, *linepool;	/* function / line rows of every rinfo frame */
	size_t nr_pool, pool_cap, linepool_cap;
	/* callpath rows' function ids, root first, in chunks that never move */
	uint32_t **path_chunks;
	size_t nr_path_chunks, path_chunks_cap, path_chunk_used, path_chunk_size;

	/* per sample scratch (fixed size: no allocation per sample) */
	uint64_t ips[PROFILE_MAX_STACK + 1];
	struct profile_frame frames[PROFILE_MAX_STACK + 1];	/* for on_stack */
	bool ip_kernel[PROFILE_MAX_STACK + 1];
	uint32_t chain[PROFILE_MAX_CHAIN];	/* function rows, leaf first */
	bool leaf_inlined;			/* chain[0] is an inlined function */
	uint32_t chain_line[PROFILE_MAX_CHAIN];
	uint32_t path_tmp[PROFILE_MAX_CHAIN];
	uint32_t frame_module[PROFILE_MAX_STACK + 1];	/* module row of each ip */
	struct credit credits[PD_MAX_READ_VALUES + 1];	/* + a weight's */

	/* group reads: previous values per counter and thread */
	struct u64map read_idx;		/* hash(counter, tid) -> reads index */
	struct read_prev *reads;
	size_t nr_reads, reads_cap;
	uint64_t read_unknown;		/* read values of no event in the file */
	/* per event: the reads' time enabled and running, summed over
	 * counters and threads (profile__read_times) */
	uint64_t *read_enabled, *read_running;

	uint64_t unwind_failures;
	uint64_t dwarf_stacks;		/* samples unwound from a stack copy */
	uint64_t stacks_cut;		/* of them, stopped at the copy's end */
	uint64_t stack_copy;		/* the copy's size (bytes) */
	char *unwind_why;

	/* time slots (profile_opts.slot_of) and the current sample's slot */
	int (*slot_of)(void *slot_ctx, uint64_t time);
	void *slot_ctx;
	size_t nr_slots;
	size_t slot_event;
	int cur_slot;
	profile_stack_fn on_stack;
	void *stack_ctx;

	/* profile__hot_line: per event, per function the hottest line row */
	uint32_t **hot;
	size_t *hot_nr;

	struct keep keep;
	unsigned cur_flags;		/* KEEP_* of the current sample */

	/* profile_opts.jobs: samples unwound in batches (batch.c) */
	unsigned jobs;
	struct batch *batch;
	/* the current sample's user stack, unwound by the batch */
	bool pre;
	const uint64_t *pre_ips;
	size_t pre_nr;
	int pre_err;
	bool pre_cut;
	char *pre_cause;
	uint32_t frame_rinfo[PROFILE_MAX_STACK + 1];	/* rinfo of each ip */

	/* memory-access samples (mem.c): NULL until one came */
	struct profile_mem *mem;
	bool mem_periods;
	/* profile_opts.weight_of: each event's weight value, UINT32_MAX */
	uint32_t *weight_of;
	size_t nr_weight_of;
	size_t cur_weight;		/* the current sample's weight credit, SIZE_MAX */
};

/*
 * A key wider than 64 bits (a line of a function, a call path, a counter
 * of a thread) found through a u64map of its 64-bit hash -> index: hashes
 * that collide take the next ones (UINT64_MAX, the map's reserved key,
 * skipped). wide_key__first gives the index stored at hash *key, or NULL;
 * wide_key__next the one at the next hash. The caller compares the entry
 * each names with its key; at NULL, *key is the free hash where the new
 * index goes:
 *
 *	for (slot = wide_key__first(idx, &key); slot; slot = wide_key__next(idx, &key))
 *		if (<entry *slot is this key>)
 *			return *slot;
 *	*u64map__findnew(idx, key, 0) = <new index>;
 */
static inline uint64_t *wide_key__first(const struct u64map *idx, uint64_t *key)
{
	if (*key == UINT64_MAX)
		*key = 0;
	return u64map__find(idx, *key);
}

static inline uint64_t *wide_key__next(const struct u64map *idx, uint64_t *key)
{
	++*key;
	return wide_key__first(idx, key);
}

struct profile *profile__alloc(size_t nr_events, const struct profile_opts *o);
uint32_t rowset__findnew(struct profile *p, struct rowset *s, uint64_t key, const char *name,
			 uint32_t pid, uint32_t tid);
uint32_t rowset__add(struct profile *p, struct rowset *s, const char *name, bool own_total);
int profile__sample(struct pd_tool *tool, const struct pd_sample *s);
/* Room for a call path of len function ids that stays where it is for
 * the profile's lifetime. */
uint32_t *profile__path_alloc(struct profile *p, uint32_t len);
/*
 * p->chain / chain_line (leaf first; returns their length) and
 * p->frame_module of a stack of n frames, frame i being src's rinfo
 * rix[i]: row indexes of src.
 */
size_t profile__chain(struct profile *p, const struct profile *src, const uint32_t *rix, size_t n);
/*
 * Credit n samples of event ev summing period to the rows of a sample:
 * task[3] (thread, process, command), its module row, and with stack the
 * chain profile__chain() left (nc functions, nf frames) and path row.
 */
void profile__credit(struct profile *p, const uint32_t *task, uint32_t module, bool stack,
		     size_t nc, size_t nf, uint32_t path, uint32_t ev, uint64_t n, uint64_t period);

/*
 * batch.c: with jobs > 1, queue a copy of sample s to be unwound with
 * others and handed back to profile__sample in order (true), or false:
 * process it now. profile__batch_delete drops what is queued.
 */
bool profile__batch_sample(struct profile *p, const struct pd_sample *s);
void profile__batch_delete(struct profile *p);

void keep__init(struct keep *k, bool on);
void keep__exit(struct keep *k);
/* Stop keeping and free what was kept (a group read came). */
void keep__stop(struct keep *k);
/* The canonical rinfo of a new rinfo rix. */
uint32_t keep__canon(struct profile *p, uint32_t rix);
/* Keep the current sample: its time, task, module row, p->frame_rinfo[0..nf),
 * path row, event and period (p->cur_slot and p->cur_flags too). */
void keep__sample(struct profile *p, uint64_t time, uint32_t task, uint32_t module, size_t nf,
		  uint32_t path, uint32_t ev, uint64_t period);
/* The previous value of a counter in a thread (0 the first time); the
 * caller stores the new one. Allocates only for a new pair. */
uint64_t *read_prev__findnew(struct profile *p, uint64_t counter, uint32_t tid);

/* branches.c: a sample's branch stack into p->flow. */
void profile__branches(struct profile *p, const struct pd_sample *s);

/* stack.c: the map of a process that holds an address, for the DWARF
 * unwinder (sym_find_map_fn; ctx a struct profile_map_find), and the
 * unwinder's input for sample s of f's process (the walking thread's and
 * batch.c's threads' alike). */
struct profile_map_find {
	const struct mproc *proc;
	const struct mmap_ent *last;	/* the unwinder asks for the same map in a row */
};
int profile__find_map(void *ctx, uint64_t addr, struct sym_dso **dso, uint64_t *start,
		      uint64_t *len, uint64_t *pgoff);
void profile__unwind_input(struct sym_unwind_input *in, const struct pd_sample *s,
			   struct profile_map_find *f, bool *cut);

/* mem.c: whether sample s carries a memory access's fields, and its
 * share of the run's and of its function and line rows' (UINT32_MAX:
 * none) data sources, data object and cache line. */
bool profile_mem__wants(const struct pd_sample *s);
void profile_mem__add(struct profile *p, const struct pd_sample *s, const struct mproc *proc,
		      uint32_t function, uint32_t line);
void profile_mem__delete(struct profile_mem *pm);

#endif
