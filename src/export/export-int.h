/*
 * export-int.h: private to src/export.
 */
#ifndef GX_EXPORT_INT_H
#define GX_EXPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct gx_result;
struct gx_result_opts;
struct sym_result;

/*
 * Write buf[0..len) to path as one gzip stream (export-gzip.c, zlib opened
 * there when first needed). 0, or a negative code with a message in *cause:
 * the file, or zlib when it cannot be loaded (the Debian package zlib1g).
 */
int export_gzip__write(const char *path, const uint8_t *buf, size_t len, char **cause);

/*
 * Every sample of a result in its order, as the browser viewers take them
 * (export-samples.c): speedscope's and the Firefox Profiler's profiles are
 * per thread and in time order, which the profile's aggregated rows are
 * not. The collector watches the walk of the result (its on_stack hook)
 * and keeps each sample's thread, time, event, period and stack; a stack
 * is a sequence of locations (one per distinct module and address: its
 * symbolized inline chain, its library), leaf first, each stack kept once.
 *
 * (export.h's export_samples__new and __hook); a writer then calls
 * export_samples__threads and reads x->threads, x->samples, x->locs.
 */
struct xs_lib {				/* a mapped file samples fell in */
	const char *path;		/* as recorded; owned by the collector */
	uint8_t build_id[20];
	size_t build_id_size;		/* 0: unknown */
};

struct xs_loc {				/* a distinct (file, address) */
	uint64_t addr;			/* as looked up (a caller's: return address - 1) */
	bool kernel;
	const struct sym_result *sym;	/* the result's symbolizer's */
	uint32_t lib;			/* xs_lib index + 1; 0: none (kernel, unmapped) */
};

struct xs_sample {
	uint64_t time, period;
	uint32_t pid, tid, evsel;
	uint32_t stack;			/* u32seq id of its location ids, leaf first */
};

struct xs_thread {			/* after export_samples__threads */
	uint32_t pid, tid;
	const char *name;		/* the thread's comm (the profile's) */
	size_t *idx;			/* its samples of the event, by time */
	size_t nr;
	uint64_t first, last;		/* times of its first and last sample */
};

struct export_samples {
	struct strtab strs;		/* library paths */
	struct u32seq loc_keys, lib_keys, stacks;
	struct xs_loc *locs;
	size_t nr_locs, cap_locs;
	struct xs_lib *libs;
	size_t nr_libs, cap_libs;
	struct xs_sample *samples;
	size_t nr_samples, cap_samples;
	struct xs_thread *threads;	/* in order of their first sample */
	size_t nr_threads;
	uint64_t first, last;		/* of every sample of the event */
};

void export_samples__init(struct export_samples *x);
void export_samples__exit(struct export_samples *x);
/* Group the samples of event e by thread, each thread's by time (ties in
 * the walk's order), threads in order of their first sample, named after
 * the result's thread rows. */
void export_samples__threads(struct export_samples *x, struct gx_result *r, size_t e);
/* Sort idx[0..n), indexes into x->samples, by the samples' time (ties:
 * the walk's order). Not reentrant. */
void export_samples__sort(const struct export_samples *x, size_t *idx, size_t n);
/* A stack's location ids, leaf first (borrowed). */
static inline const uint32_t *export_samples__stack(const struct export_samples *x,
						    const struct xs_sample *s, size_t *n)
{
	return u32seq__get(&x->stacks, s->stack, n);
}

/*
 * The unit of value e's periods for a viewer: "nanoseconds" for a value
 * in ns (the clocks, cpu-clock and task-clock, and off-CPU time), "none"
 * for counts.
 */
const char *export_unit(const struct gx_result *r, size_t e);

/* Write the text buf[0..len) to path (created or truncated); 0 or a
 * negative code with a message in *cause. */
int export_write_file(const char *path, const char *buf, size_t len, char **cause);

#endif
