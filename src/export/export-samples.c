/*
 * export-samples.c: every sample of a result, per thread and in time
 * order, for the exports whose viewers draw time (speedscope, the Firefox
 * Profiler, the HTML report's timeline). The profile keeps rows, not
 * samples; its on_stack hook hands each symbolized stack here while the
 * result is walked, once, as it does to the pprof exporter.
 */
#include "config.h"

#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-int.h"
#include "profile/profile.h"
#include "result/result.h"

#define MAX_FRAMES 128

void export_samples__init(struct export_samples *x)
{
	memset(x, 0, sizeof(*x));
	strtab__init(&x->strs);
	u32seq__init(&x->loc_keys);
	u32seq__init(&x->lib_keys);
	u32seq__init(&x->stacks);
}

void export_samples__exit(struct export_samples *x)
{
	for (size_t i = 0; i < x->nr_threads; i++)
		free(x->threads[i].idx);
	GX_FREE(x->threads, x->samples, x->libs, x->locs);
	u32seq__exit(&x->stacks);
	u32seq__exit(&x->lib_keys);
	u32seq__exit(&x->loc_keys);
	strtab__exit(&x->strs);
}

/* The library of a user frame: its file and build-id, one entry each. */
static uint32_t lib_of(struct export_samples *x, const struct profile_frame *f)
{
	uint32_t key[1 + 20] = { strtab__intern(&x->strs, f->map_file) };
	size_t n = f->build_id_size > 20 ? 20 : f->build_id_size;
	uint32_t id;

	for (size_t i = 0; i < n; i++)
		key[1 + i] = f->build_id[i];
	id = u32seq__intern(&x->lib_keys, key, 1 + n);
	if (id == x->nr_libs) {
		struct xs_lib *l;

		x->libs = xgrow(x->libs, &x->cap_libs, x->nr_libs + 1, sizeof(*x->libs));
		l = &x->libs[x->nr_libs++];
		memset(l, 0, sizeof(*l));
		l->path = strtab__str(&x->strs, key[0]);
		memcpy(l->build_id, f->build_id, n);
		l->build_id_size = n;
	}
	return id + 1;
}

static uint32_t loc_of(struct export_samples *x, const struct profile_frame *f)
{
	bool kernel = f->kernel || !f->map_file;
	uint32_t lib = kernel ? 0 : lib_of(x, f);
	uint32_t key[4] = { lib, (uint32_t)f->addr, (uint32_t)(f->addr >> 32), kernel };
	uint32_t id = u32seq__intern(&x->loc_keys, key, 4);

	if (id == x->nr_locs) {
		x->locs = xgrow(x->locs, &x->cap_locs, x->nr_locs + 1, sizeof(*x->locs));
		x->locs[x->nr_locs++] = (struct xs_loc){
			.addr = f->addr, .kernel = f->kernel, .sym = f->sym, .lib = lib
		};
	}
	return id;
}

static void on_stack(void *ctx, const struct pd_sample *s, uint32_t pid, const char *comm,
		     const struct profile_frame *frames, size_t n)
{
	struct export_samples *x = ctx;
	uint32_t ids[MAX_FRAMES];
	struct xs_sample *xs;
	size_t k;

	(void)comm;
	for (k = 0; k < n && k < MAX_FRAMES; k++)
		ids[k] = loc_of(x, &frames[k]);
	x->samples = xgrow(x->samples, &x->cap_samples, x->nr_samples + 1, sizeof(*x->samples));
	xs = &x->samples[x->nr_samples++];
	xs->time = s->time;
	xs->period = s->period ? s->period : 1;
	xs->pid = pid;
	xs->tid = s->tid;
	xs->evsel = s->evsel;
	xs->stack = u32seq__intern(&x->stacks, ids, k);
}

void export_samples__hook(struct export_samples *x, struct gx_result_opts *o)
{
	o->on_stack = on_stack;
	o->stack_ctx = x;
}

/* Sorting a thread's sample indexes by time, then by index. */
static const struct xs_sample *sort_samples;

static int cmp_time(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t ti = sort_samples[i].time, tj = sort_samples[j].time;

	if (ti != tj)
		return ti < tj ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int cmp_first(const void *a, const void *b)
{
	const struct xs_thread *p = a, *q = b;

	if (p->first != q->first)
		return p->first < q->first ? -1 : 1;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

/* The comm of thread tid: the last it took where the off-CPU records
 * followed it (a thread that names itself after it first ran, on a busy
 * machine, has a row under each name), else as the profile's thread rows
 * name it. */
static const char *thread_name(struct gx_result *r, uint32_t tid, uint32_t pid)
{
	struct profile_offcpu *oc = gx_result__offcpu(r);
	size_t nr = oc ? profile_offcpu__nr_threads(oc) : 0;
	const struct profile_row *const *rows;

	for (size_t i = 0; i < nr; i++) {
		const struct profile_off_thread *ot = profile_offcpu__thread(oc, i);

		if (ot->tid == tid && ot->pid == pid && ot->comm && *ot->comm)
			return ot->comm;
	}
	rows = profile__rows(gx_result__profile(r), PROFILE_BY_THREAD, 0, &nr);

	for (size_t i = 0; i < nr; i++)
		if (rows[i]->tid == tid && rows[i]->pid == pid)
			return rows[i]->name;
	return "[unknown]";
}

/* Pass one of export_samples__threads: each sample's thread (index + 1,
 * 0: another event's) in which[], and the threads with their counts. */
static void find_threads(struct export_samples *x, size_t e, uint32_t *which)
{
	struct u64map by_tid;
	size_t cap = 0;

	u64map__init(&by_tid);
	for (size_t i = 0; i < x->nr_samples; i++) {
		const struct xs_sample *s = &x->samples[i];
		uint64_t *t;

		if (s->evsel != e)
			continue;
		t = u64map__findnew(&by_tid, (uint64_t)s->pid << 32 | s->tid, 0);
		if (!*t) {
			x->threads =
				xgrow(x->threads, &cap, x->nr_threads + 1, sizeof(*x->threads));
			x->threads[x->nr_threads] =
				(struct xs_thread){ .pid = s->pid, .tid = s->tid };
			*t = ++x->nr_threads;
		}
		which[i] = (uint32_t)*t;
		x->threads[*t - 1].nr++;
	}
	u64map__exit(&by_tid);
}

void export_samples__sort(const struct export_samples *x, size_t *idx, size_t n)
{
	sort_samples = x->samples;
	gx_qsort(idx, n, sizeof(*idx), cmp_time);
}

void export_samples__threads(struct export_samples *x, struct gx_result *r, size_t e)
{
	uint32_t *which = xcalloc(x->nr_samples + 1, sizeof(*which));

	find_threads(x, e, which);
	for (size_t t = 0; t < x->nr_threads; t++) {
		x->threads[t].idx = xcalloc(x->threads[t].nr, sizeof(size_t));
		x->threads[t].nr = 0;
	}
	for (size_t i = 0; i < x->nr_samples; i++)
		if (which[i]) {
			struct xs_thread *th = &x->threads[which[i] - 1];

			th->idx[th->nr++] = i;
		}
	free(which);
	x->first = UINT64_MAX;
	x->last = 0;
	for (size_t t = 0; t < x->nr_threads; t++) {
		struct xs_thread *th = &x->threads[t];

		export_samples__sort(x, th->idx, th->nr);
		th->first = x->samples[th->idx[0]].time;
		th->last = x->samples[th->idx[th->nr - 1]].time;
		th->name = thread_name(r, th->tid, th->pid);
		if (th->first < x->first)
			x->first = th->first;
		if (th->last > x->last)
			x->last = th->last;
	}
	gx_qsort(x->threads, x->nr_threads, sizeof(*x->threads), cmp_first);
	if (!x->nr_threads)
		x->first = 0;
}

const char *export_unit(const struct gx_result *r, size_t e)
{
	/* by the value's unit, whatever its source: the clocks' periods and
	 * off-CPU waits are both ns */
	return !strcmp(gx_result__event(r, e)->unit, "ns") ? "nanoseconds" : "none";
}

int export_write_file(const char *path, const char *buf, size_t len, char **cause)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return gx_fail(cause, -errno, "%s: %s", gx_esc(path), strerror(errno));
	if (fwrite(buf, 1, len, f) != len)
		err = gx_fail(cause, -EIO, "%s: %s", gx_esc(path), strerror(errno ? errno : EIO));
	if (fclose(f) && !err)
		err = gx_fail(cause, -errno, "%s: %s", gx_esc(path), strerror(errno));
	return err;
}

struct export_samples *export_samples__new(void)
{
	struct export_samples *x = xmalloc(sizeof(*x));

	export_samples__init(x);
	return x;
}

void export_samples__delete(struct export_samples *x)
{
	if (!x)
		return;
	export_samples__exit(x);
	free(x);
}
