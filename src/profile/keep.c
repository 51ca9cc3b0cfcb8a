/*
 * Kept samples (profile_opts.keep_samples) and the subsets made of them.
 *
 * While the records are walked, every sample is stored as its time, its
 * period and its class: the rows it credits (its thread's, its module's,
 * the function and line rows of each frame, its call path), its event and
 * its time slot. Classes are interned (one lookup a sample), so a sample
 * costs 16 bytes and its rows are stored once per distinct class.
 *
 * A subset (a time range, a region) walks the samples in it once, adding
 * each one's count and period to its class, then credits every class it
 * met to a new profile. The new profile's rows are made in the order a
 * profile fed only those samples would make them (the order of the
 * classes' first samples, and within a class the order profile__sample
 * follows), so indexes, ties and call paths are the same as a new walk of
 * the records would give, without the records or the symbolizer. A
 * span value's sample (a wait off the CPU: profile__set_span) credits
 * its overlap with a time range, whenever it started.
 */
#include "config.h"

#include "profile-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void keep__init(struct keep *k, bool on)
{
	memset(k, 0, sizeof(*k));
	k->on = on;
	k->sorted = true;
	u64map__init(&k->big);
	u32seq__init(&k->rinfo_rows);
	u32seq__init(&k->tasks);
	u32seq__init(&k->classes);
}

void keep__exit(struct keep *k)
{
	for (size_t i = 0; i < k->nr_chunks; i++)
		GX_FREE(k->time[i], k->cls[i], k->period[i]);
	GX_FREE(k->time, k->cls, k->period, k->canon, k->buf);
	u64map__exit(&k->big);
	u32seq__exit(&k->rinfo_rows);
	u32seq__exit(&k->tasks);
	u32seq__exit(&k->classes);
	memset(k, 0, sizeof(*k));
}

void keep__stop(struct keep *k)
{
	keep__exit(k);
	k->on = false;
}

static uint32_t *keep_buf(struct keep *k, size_t n)
{
	k->buf = xgrow(k->buf, &k->buf_cap, n + 1, sizeof(*k->buf));
	return k->buf;
}

uint32_t keep__canon(struct profile *p, uint32_t rix)
{
	struct keep *k = &p->keep;
	const struct rinfo *r = &p->rinfos[rix];
	uint32_t *b = keep_buf(k, 3 + 2 * (size_t)r->nr), id;
	size_t known = k->rinfo_rows.nr;

	b[0] = r->module;
	b[1] = r->pseudo;
	b[2] = r->nr;
	memcpy(b + 3, p->fnpool + r->off, r->nr * sizeof(*b));
	memcpy(b + 3 + r->nr, p->linepool + r->off, r->nr * sizeof(*b));
	id = u32seq__intern(&k->rinfo_rows, b, 3 + 2 * (size_t)r->nr);
	if (id == known) {	/* the first rinfo with these rows */
		k->canon = xgrow(k->canon, &k->canon_cap, known + 1, sizeof(*k->canon));
		k->canon[id] = rix;
	}
	return k->canon[id];
}

void keep__sample(struct profile *p, uint64_t time, uint32_t task, uint32_t module, size_t nf,
		  uint32_t path, uint32_t ev, uint64_t period)
{
	struct keep *k = &p->keep;
	uint32_t *b = keep_buf(k, CLS_FRAMES + nf);
	size_t c = k->nr / KEEP_CHUNK, i = k->nr % KEEP_CHUNK;

	b[CLS_TASK] = task;
	b[CLS_EV] = ev;
	b[CLS_SLOT] = (uint32_t)p->cur_slot;
	b[CLS_MODULE] = module;
	b[CLS_PATH] = path;
	b[CLS_FLAGS] = p->cur_flags;
	for (size_t f = 0; f < nf; f++)
		b[CLS_FRAMES + f] = p->rinfos[p->frame_rinfo[f]].canon;
	if (!i) {
		k->time = xgrow(k->time, &k->chunks_cap, c + 1, sizeof(*k->time));
		k->cls = xrealloc(k->cls, k->chunks_cap * sizeof(*k->cls));
		k->period = xrealloc(k->period, k->chunks_cap * sizeof(*k->period));
		k->time[c] = xmalloc(KEEP_CHUNK * sizeof(**k->time));
		k->cls[c] = xmalloc(KEEP_CHUNK * sizeof(**k->cls));
		k->period[c] = xmalloc(KEEP_CHUNK * sizeof(**k->period));
		k->nr_chunks = c + 1;
	}
	k->time[c][i] = time;
	k->cls[c][i] = u32seq__intern(&k->classes, b, CLS_FRAMES + nf);
	k->period[c][i] = period >= UINT32_MAX ? UINT32_MAX : (uint32_t)period;
	if (period >= UINT32_MAX)
		*u64map__findnew(&k->big, k->nr, 0) = period;
	if (p->span[ev] && period > k->max_span)
		k->max_span = period;
	if (time < k->last_time)
		k->sorted = false;
	k->last_time = time;
	k->nr++;
}

/* ---- subsets ------------------------------------------------------------ */

static inline uint64_t keep_time(const struct keep *k, size_t i)
{
	return k->time[i / KEEP_CHUNK][i % KEEP_CHUNK];
}

/* The first kept sample at or after time t (the times sorted). */
static size_t keep_first_at(const struct keep *k, uint64_t t)
{
	size_t lo = 0, hi = k->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (keep_time(k, mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct subset {
	const struct profile *p;
	struct profile *q;
	uint32_t *map[PROFILE_BY_NR_];	/* p's row -> q's, UINT32_MAX: none yet */
	/* per class: samples and summed period in the subset */
	uint64_t *n, *period;
	uint32_t *order;		/* the classes met, by their first sample */
	size_t nr_order;
};

/* The classes' samples and periods over samples [from, to) within
 * [lo, hi] that keep accepts; a class of a span value (span[x], NULL:
 * none) with its span's overlap with [lo, hi] instead. */
static void subset_tally(struct subset *ss, size_t from, size_t to, uint64_t lo, uint64_t hi,
			 bool (*keep)(void *ctx, uint32_t tid, uint64_t time), void *ctx,
			 const uint32_t *tid, const bool *span)
{
	const struct keep *k = &ss->p->keep;
	bool check_time = !k->sorted || span;	/* spans start before lo too */

	for (size_t i = from; i < to;) {
		size_t c = i / KEEP_CHUNK, j = i % KEEP_CHUNK;
		size_t end = to - i < KEEP_CHUNK - j ? j + (to - i) : KEEP_CHUNK;
		const uint64_t *tm = k->time[c];
		const uint32_t *cl = k->cls[c], *pe = k->period[c];

		for (; j < end; j++, i++) {
			uint32_t x = cl[j];
			uint64_t per;

			if (check_time && !(span && span[x]) && (tm[j] < lo || tm[j] > hi))
				continue;
			if (keep && !keep(ctx, tid[x], tm[j]))
				continue;
			per = pe[j] != UINT32_MAX ? pe[j] : *u64map__find(&k->big, i);
			if (span && span[x] && !(per = profile_span_overlap(tm[j], per, lo, hi)))
				continue;
			if (!ss->n[x]++)
				ss->order[ss->nr_order++] = x;
			ss->period[x] += per;
		}
	}
}

/* q's row for p's row i of a kind, made (a copy of its identity, no
 * counts) when q has none yet. */
static uint32_t subset_row(struct subset *ss, enum profile_by by, uint32_t i)
{
	const struct profile_row *src;
	struct profile_row *r;
	uint32_t *m = &ss->map[by][i], ri;

	if (*m != UINT32_MAX)
		return *m;
	src = &ss->p->sets[by].rows[i];
	ri = rowset__add(ss->q, &ss->q->sets[by], src->name, by == PROFILE_BY_FUNCTION ||
			 by == PROFILE_BY_LINE || by == PROFILE_BY_MODULE);
	*m = ri;
	r = &ss->q->sets[by].rows[ri];
	r->pid = src->pid;
	r->tid = src->tid;
	r->module = src->module;
	r->file = src->file;
	r->line = src->line;
	if (by == PROFILE_BY_LINE)
		r->function = subset_row(ss, PROFILE_BY_FUNCTION, src->function);
	if (by == PROFILE_BY_CALLPATH) {
		uint32_t *path = profile__path_alloc(ss->q, src->path_len);

		for (uint32_t k = 0; k < src->path_len; k++)
			path[k] = subset_row(ss, PROFILE_BY_FUNCTION, src->path[k]);
		r = &ss->q->sets[by].rows[ri];
		r->path = path;
		r->path_len = src->path_len;
	}
	return ri;
}

/*
 * Credit class x's samples to q, making its rows first in the order
 * profile__sample makes them: thread, process, command; the sample's
 * module; each frame's function and line rows, then its module; the path.
 */
static void subset_credit(struct subset *ss, uint32_t x)
{
	const struct profile *p = ss->p;
	const struct keep *k = &p->keep;
	struct profile *q = ss->q;
	size_t n, ncls, nf, nc, nproc = q->sets[PROFILE_BY_PROCESS].nr;
	const uint32_t *cls = u32seq__get(&k->classes, x, &ncls);
	const uint32_t *task = u32seq__get(&k->tasks, cls[CLS_TASK], &n);
	const uint32_t *frames = cls + CLS_FRAMES;
	uint32_t qt[3], module, path = 0, ev = cls[CLS_EV], flags = cls[CLS_FLAGS];
	uint64_t cnt = ss->n[x], period = ss->period[x];
	size_t nthr = q->sets[PROFILE_BY_THREAD].nr, ncmd = q->sets[PROFILE_BY_COMMAND].nr;
	uint32_t pid = p->sets[PROFILE_BY_PROCESS].rows[task[1]].pid;

	for (int i = 0; i < 3; i++)
		qt[i] = subset_row(ss, i == 0 ? PROFILE_BY_THREAD : i == 1 ? PROFILE_BY_PROCESS :
				   PROFILE_BY_COMMAND, task[i]);
	if (q->sets[PROFILE_BY_PROCESS].nr > nproc)	/* a new process */
		q->sets[PROFILE_BY_COMMAND].rows[qt[2]].nr_procs++;
	/* a thread row (a reused tid) and a command row (its first process)
	 * carry the pid of the sample that made them */
	if (q->sets[PROFILE_BY_THREAD].nr > nthr)
		q->sets[PROFILE_BY_THREAD].rows[qt[0]].pid = pid;
	if (q->sets[PROFILE_BY_COMMAND].nr > ncmd)
		q->sets[PROFILE_BY_COMMAND].rows[qt[2]].pid = pid;
	module = subset_row(ss, PROFILE_BY_MODULE, cls[CLS_MODULE]);
	nf = ncls - CLS_FRAMES;
	for (size_t f = 0; f < nf; f++) {
		const struct rinfo *r = &p->rinfos[frames[f]];

		for (uint32_t j = 0; j < r->nr; j++) {
			subset_row(ss, PROFILE_BY_FUNCTION, p->fnpool[r->off + j]);
			subset_row(ss, PROFILE_BY_LINE, p->linepool[r->off + j]);
		}
		subset_row(ss, PROFILE_BY_MODULE, r->module);
	}
	if (cls[CLS_PATH] != UINT32_MAX)
		path = subset_row(ss, PROFILE_BY_CALLPATH, cls[CLS_PATH]);
	/* the chain in p's rows, then in q's */
	nc = profile__chain(q, p, frames, nf);
	for (size_t j = 0; j < nc; j++) {
		q->chain[j] = ss->map[PROFILE_BY_FUNCTION][q->chain[j]];
		q->chain_line[j] = ss->map[PROFILE_BY_LINE][q->chain_line[j]];
	}
	for (size_t f = 0; f < nf; f++)
		q->frame_module[f] = ss->map[PROFILE_BY_MODULE][q->frame_module[f]];
	if (flags & KEEP_UNMAPPED)
		q->unmapped += cnt;
	if (flags & KEEP_CALLCHAIN)
		q->has_callchains = true;
	if (flags & KEEP_UNWIND_FAILED)
		q->unwind_failures += cnt;
	q->tot_samples[ev] += cnt;
	q->tot_period[ev] += period;
	q->cur_slot = (int32_t)cls[CLS_SLOT];
	profile__credit(q, qt, module, cls[CLS_PATH] != UINT32_MAX, nc, nf, path, ev, cnt, period);
}

/* Per class whether it is a span value's (profile__set_span), or NULL
 * when no sample is. */
static bool *span_classes(const struct profile *p)
{
	const struct keep *k = &p->keep;
	bool *span;

	if (!k->max_span)
		return NULL;
	span = xcalloc(k->classes.nr + 1, sizeof(*span));
	for (uint32_t x = 0; x < k->classes.nr; x++) {
		size_t n;

		span[x] = p->span[u32seq__get(&k->classes, x, &n)[CLS_EV]];
	}
	return span;
}

int profile__subset(const struct profile *p, uint64_t lo, uint64_t hi,
		    bool (*keep)(void *ctx, uint32_t tid, uint64_t time), void *ctx,
		    struct profile **out)
{
	struct profile_opts wo = { 0 };
	const struct keep *k = &p->keep;
	size_t ncls = k->classes.nr, from = 0, to = k->nr;
	struct subset ss = { .p = p };
	uint32_t *tid = NULL;
	bool *span;

	*out = NULL;
	if (!k->on)
		return -ENOTSUP;
	if (k->sorted) {	/* the samples in the range are one run of them */
		/* and the spans that started before it, no longer ago than
		 * the longest */
		from = keep_first_at(k, lo > k->max_span ? lo - k->max_span : 0);
		to = hi == UINT64_MAX ? k->nr : keep_first_at(k, hi + 1);
	}
	span = span_classes(p);
	if (keep) {	/* each class's thread, for the filter */
		tid = xcalloc(ncls + 1, sizeof(*tid));
		for (uint32_t x = 0; x < ncls; x++) {
			size_t n;
			const uint32_t *task = u32seq__get(&k->tasks,
							   u32seq__get(&k->classes, x, &n)[CLS_TASK],
							   &n);

			tid[x] = p->sets[PROFILE_BY_THREAD].rows[task[0]].tid;
		}
	}
	ss.n = xcalloc(ncls + 1, sizeof(*ss.n));
	ss.period = xcalloc(ncls + 1, sizeof(*ss.period));
	ss.order = xcalloc(ncls + 1, sizeof(*ss.order));
	subset_tally(&ss, from, to, lo, hi, keep, ctx, tid, span);

	wo.weight_of = p->weight_of;	/* profile__row_weight of the part */
	wo.nr_weight_of = p->nr_weight_of;
	ss.q = profile__alloc(p->nr_events, &wo);
	memcpy(ss.q->span, p->span, p->nr_events * sizeof(*p->span));
	ss.q->nr_slots = p->nr_slots;
	ss.q->slot_event = p->slot_event;
	for (int by = 0; by < PROFILE_BY_NR_; by++) {
		ss.map[by] = xmalloc((p->sets[by].nr + 1) * sizeof(*ss.map[by]));
		memset(ss.map[by], 0xff, (p->sets[by].nr + 1) * sizeof(*ss.map[by]));
	}
	for (size_t i = 0; i < ss.nr_order; i++)
		subset_credit(&ss, ss.order[i]);
	if (ss.q->unwind_failures && p->unwind_why)
		ss.q->unwind_why = xstrdup(p->unwind_why);
	ss.q->cur_slot = -1;
	for (int by = 0; by < PROFILE_BY_NR_; by++)
		free(ss.map[by]);
	free(ss.n);
	free(ss.period);
	free(ss.order);
	free(tid);
	free(span);
	*out = ss.q;
	return 0;
}
