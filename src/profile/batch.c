/*
 * Samples unwound on several threads (profile_opts.jobs). Unwinding a
 * sample's copied user stack (--call-graph dwarf) is most of a report's
 * work, and one sample's unwinding needs only its registers, its stack
 * copy and its process's maps, never another sample. So samples are
 * queued in a batch (copied: the reader's buffers hold them only during
 * the callback), the batch's stacks are unwound by the jobs at once, each
 * thread with its own unwinder, then every sample goes through
 * profile__sample's usual path in the order it came, with its frames
 * ready. The rows are made and credited in the same order as by one
 * thread, so the numbers and the order of ties are the same.
 *
 * A batch is unwound before the maps or names it was queued under
 * change: before an MMAP, COMM or FORK record is applied, when it is full,
 * and at the end of the walk (profile__finish).
 */
#include "config.h"

#include "profile-int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_SAMPLES 1024		/* samples per batch */
#define BATCH_BYTES (16u << 20)		/* copied bytes per batch */
#define BATCH_GRAIN 8			/* samples a thread takes at once */

struct bsample {
	struct pd_sample s;		/* pointers fixed up when the batch runs */
	size_t off_chain, off_regs, off_stack, off_read;	/* in batch.data */
	const struct mproc *proc;	/* its process (NULL: none), while unwinding */
	bool dwarf;			/* has a user stack to unwind */
	int err;			/* the unwinder's */
	bool cut;			/* stopped at the stack copy's end */
	char *cause;
	size_t nr_ips;
};

struct batch {
	struct profile *p;
	unsigned jobs;
	struct sym_unwinder **unw;	/* one per job; [0] is the walking thread's */
	pthread_t *threads;		/* jobs - 1 */
	size_t nr_threads;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t round;			/* bumped to start the threads on a batch */
	unsigned running;		/* threads still on this round */
	bool quit;
	size_t next;			/* next sample to take (atomic) */

	struct bsample *ents;
	size_t nr, cap;
	uint64_t *ips;			/* BATCH_SAMPLES x (PROFILE_MAX_STACK + 1) */
	uint8_t *data;
	size_t data_len, data_cap;
	bool applying;			/* profile__sample called from batch__run */
};

static size_t data_add(struct batch *b, const void *src, size_t len)
{
	size_t off = b->data_len;

	if (!len)
		return SIZE_MAX;
	b->data = xgrow(b->data, &b->data_cap, b->data_len + len + 8, 1);
	memcpy(b->data + off, src, len);
	b->data_len += (len + 7) & ~(size_t)7;
	return off;
}

static const void *data_at(const struct batch *b, size_t off)
{
	return off == SIZE_MAX ? NULL : b->data + off;
}

static void unwind_one(struct batch *b, struct sym_unwinder *u, size_t i)
{
	struct bsample *e = &b->ents[i];
	struct profile_map_find f = { e->proc, NULL };	/* no record changes proc meanwhile */
	struct sym_unwind_input in;

	profile__unwind_input(&in, &e->s, &f, &e->cut);
	e->err = sym_unwinder__unwind(u, &in, &b->ips[i * (PROFILE_MAX_STACK + 1)],
				      b->p->max_stack, &e->nr_ips, &e->cause);
}

/* Take samples of the current batch until none is left. */
static void unwind_share(struct batch *b, struct sym_unwinder *u)
{
	for (;;) {
		size_t i = __atomic_fetch_add(&b->next, BATCH_GRAIN, __ATOMIC_RELAXED);

		if (i >= b->nr)
			return;
		for (size_t k = i; k < i + BATCH_GRAIN && k < b->nr; k++)
			if (b->ents[k].dwarf)
				unwind_one(b, u, k);
	}
}

static void *batch_thread(void *arg)
{
	struct batch *b = arg;
	uint64_t seen;
	size_t me;

	pthread_mutex_lock(&b->mu);
	me = b->nr_threads++;		/* its unwinder: unw[me + 1] */
	seen = b->round;		/* a batch already running is not its */
	for (;;) {
		while (!b->quit && b->round == seen)
			pthread_cond_wait(&b->go, &b->mu);
		if (b->quit)
			break;
		seen = b->round;
		pthread_mutex_unlock(&b->mu);
		unwind_share(b, b->unw[me + 1]);
		pthread_mutex_lock(&b->mu);
		if (--b->running == 0)
			pthread_cond_signal(&b->done);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

static void batch__delete(struct batch *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	b->quit = true;
	pthread_cond_broadcast(&b->go);
	pthread_mutex_unlock(&b->mu);
	for (size_t i = 0; i < b->jobs - 1; i++)
		if (b->threads[i])
			pthread_join(b->threads[i], NULL);
	for (size_t i = 0; i < b->jobs; i++)
		sym_unwinder__delete(b->unw[i]);
	for (size_t i = 0; i < b->nr; i++)
		free(b->ents[i].cause);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->go);
	pthread_cond_destroy(&b->done);
	free(b->threads);
	free(b->unw);
	free(b->ents);
	free(b->ips);
	free(b->data);
	free(b);
}

/* A batch for p->jobs threads, or NULL when this build cannot unwind
 * (then samples go one by one, and say so as they did). */
static struct batch *batch__new(struct profile *p)
{
	struct batch *b = xzalloc(sizeof(*b));
	char *cause = NULL;

	b->p = p;
	b->jobs = p->jobs;
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->go, NULL);
	pthread_cond_init(&b->done, NULL);
	b->unw = xcalloc(b->jobs, sizeof(*b->unw));
	b->threads = xcalloc(b->jobs, sizeof(*b->threads));
	b->ips = xmalloc(BATCH_SAMPLES * (PROFILE_MAX_STACK + 1) * sizeof(*b->ips));
	for (size_t i = 0; i < b->jobs; i++) {
		if (sym_unwinder__new(&b->unw[i], p->sym, &cause) != 0) {
			free(cause);
			b->jobs = (unsigned)i;	/* only those to free */
			batch__delete(b);
			return NULL;
		}
	}
	for (size_t i = 0; i < b->jobs - 1; i++)
		if (pthread_create(&b->threads[i], NULL, batch_thread, b) != 0) {
			b->threads[i] = 0;
			break;	/* fewer threads: the others share the work */
		}
	return b;
}

/* Unwind the batch on every thread, then hand its samples to the profile
 * in order. */
static void batch__run(struct batch *b)
{
	struct machine *m = &b->p->machine;
	size_t nr = b->nr;

	if (!nr)
		return;
	/* the threads and processes the samples will be credited to, as
	 * profile__sample will find them (it makes them in this order) */
	for (size_t i = 0; i < nr; i++) {
		struct bsample *e = &b->ents[i];

		e->s.callchain = data_at(b, e->off_chain);
		e->s.user_regs = data_at(b, e->off_regs);
		e->s.stack = data_at(b, e->off_stack);
		e->s.read = data_at(b, e->off_read);
		if (e->dwarf)
			machine__findnew_thread(m, e->s.pid, e->s.tid);
	}
	for (size_t i = 0; i < nr; i++) {
		struct bsample *e = &b->ents[i];
		uint64_t *ti, *pi;

		if (!e->dwarf)
			continue;
		ti = u64map__find(&m->thread_idx, e->s.tid);
		pi = ti ? u64map__find(&m->proc_idx, m->threads[*ti].pid) : NULL;
		e->proc = pi ? &m->procs[*pi] : NULL;
	}
	b->next = 0;
	pthread_mutex_lock(&b->mu);
	b->running = (unsigned)b->nr_threads;
	b->round++;
	pthread_cond_broadcast(&b->go);
	pthread_mutex_unlock(&b->mu);
	unwind_share(b, b->unw[0]);
	pthread_mutex_lock(&b->mu);
	while (b->running)
		pthread_cond_wait(&b->done, &b->mu);
	pthread_mutex_unlock(&b->mu);

	b->applying = true;
	for (size_t i = 0; i < nr; i++) {
		struct bsample *e = &b->ents[i];

		b->p->pre = e->dwarf;
		b->p->pre_ips = &b->ips[i * (PROFILE_MAX_STACK + 1)];
		b->p->pre_nr = e->nr_ips;
		b->p->pre_err = e->err;
		b->p->pre_cut = e->cut;
		b->p->pre_cause = e->cause;	/* the profile takes it */
		e->cause = NULL;
		profile__sample(&b->p->tool, &e->s);
		free(b->p->pre_cause);	/* a sample that credited nothing */
		b->p->pre_cause = NULL;
	}
	b->p->pre = false;
	b->applying = false;
	b->nr = 0;
	b->data_len = 0;
}

bool profile__batch_sample(struct profile *p, const struct pd_sample *s)
{
	struct batch *b = p->batch;
	struct bsample *e;
	size_t nregs;

	bool dwarf = s->user_regs && s->user_regs_mask && s->stack && s->stack_dyn_size &&
		     s->user_abi;

	if (p->jobs < 2 || !p->sym || (b && b->applying))
		return false;
	if (!dwarf && (!b || !b->nr))
		return false;	/* nothing to unwind, nothing queued before it */
	if (!b) {
		b = p->batch = batch__new(p);
		if (!b) {
			p->jobs = 1;
			return false;
		}
	}
	b->ents = xgrow(b->ents, &b->cap, b->nr + 1, sizeof(*b->ents));
	e = &b->ents[b->nr++];
	memset(e, 0, sizeof(*e));
	e->s = *s;
	e->s.raw = NULL;
	e->s.raw_size = 0;
	e->s.branches = NULL;
	e->s.nr_branches = 0;
	e->dwarf = dwarf;
	nregs = (size_t)__builtin_popcountll(s->user_regs_mask);
	e->off_chain = s->callchain ? data_add(b, s->callchain, s->nr_callchain * 8) : SIZE_MAX;
	e->off_regs = s->user_regs ? data_add(b, s->user_regs, nregs * 8) : SIZE_MAX;
	e->off_stack = e->dwarf ? data_add(b, s->stack, s->stack_dyn_size) : SIZE_MAX;
	if (!e->dwarf) {
		e->s.stack = NULL;
		e->s.stack_size = e->s.stack_dyn_size = 0;
	} else {
		e->s.stack_size = s->stack_dyn_size;
	}
	e->off_read = s->read ? data_add(b, s->read, offsetof(struct pd_read, values) +
					 (s->read->nr < PD_MAX_READ_VALUES ? s->read->nr
									   : PD_MAX_READ_VALUES) *
						 sizeof(s->read->values[0]))
			      : SIZE_MAX;
	if (b->nr == BATCH_SAMPLES || b->data_len >= BATCH_BYTES)
		batch__run(b);
	return true;
}

void profile__finish(struct profile *p)
{
	if (p && p->batch && !p->batch->applying)
		batch__run(p->batch);
}

void profile__batch_delete(struct profile *p)
{
	batch__delete(p->batch);
	p->batch = NULL;
}
