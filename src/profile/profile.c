/*
 * Aggregation of samples into rows. Per sample: one hash lookup for the
 * thread (cached row indexes on the thread), one binary search in the
 * process's maps for the module; no allocation once every row exists.
 */
#include "config.h"

#include "profile-int.h"

#include <stdlib.h>
#include <string.h>

struct rowset {
	struct profile_row *rows;
	size_t nr, cap;
	struct u64map idx;		/* key -> row index */
	const struct profile_row **sorted;
};

struct profile {
	struct pd_tool tool;		/* first: the callbacks get a pd_tool * */
	struct machine machine;
	size_t nr_events;
	uint64_t *tot_samples, *tot_period;
	struct rowset sets[PROFILE_BY_NR_];
	uint64_t unmapped;
	/* counters live in fixed-size slabs so row pointers stay valid */
	uint64_t **slabs;
	size_t nr_slabs, slabs_cap, slab_used;
};

#define SLAB_U64S 8192

static uint64_t *profile__counters(struct profile *p)
{
	size_t need = 2 * p->nr_events;
	uint64_t *c;

	if (!p->nr_slabs || p->slab_used + need > SLAB_U64S) {
		size_t sz = need > SLAB_U64S ? need : SLAB_U64S;

		p->slabs = xgrow(p->slabs, &p->slabs_cap, p->nr_slabs + 1, sizeof(*p->slabs));
		p->slabs[p->nr_slabs++] = xcalloc(sz, sizeof(uint64_t));
		p->slab_used = 0;
	}
	c = p->slabs[p->nr_slabs - 1] + p->slab_used;
	p->slab_used += need;
	return c;
}

static uint32_t rowset__findnew(struct profile *p, struct rowset *s, uint64_t key,
				const char *name, uint32_t pid, uint32_t tid)
{
	uint64_t *slot = u64map__findnew(&s->idx, key, UINT64_MAX);
	struct profile_row *r;
	uint64_t *c;

	if (*slot != UINT64_MAX)
		return (uint32_t)*slot;
	s->rows = xgrow(s->rows, &s->cap, s->nr + 1, sizeof(*s->rows));
	r = &s->rows[s->nr];
	c = profile__counters(p);
	r->name = name;
	r->pid = pid;
	r->tid = tid;
	r->samples = c;
	r->period = c + p->nr_events;
	*slot = s->nr;
	return (uint32_t)s->nr++;
}

static inline void row_add(struct profile_row *r, uint32_t ev, uint64_t period)
{
	r->samples[ev]++;
	r->period[ev] += period;
}

static uint32_t module_of(struct profile *p, const struct pd_sample *s, const struct mthread *t)
{
	struct machine *m = &p->machine;
	const struct mmap_ent *e;
	uint16_t mode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	switch (mode) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		e = mproc__find_map(&m->kernel, s->ip);
		return e ? e->module : m->str_kernel;
	case PERF_RECORD_MISC_HYPERVISOR:
		return m->str_hv;
	default:
		break;
	}
	{
		uint64_t *pi = u64map__find(&m->proc_idx, t->pid);

		e = pi ? mproc__find_map(&m->procs[*pi], s->ip) : NULL;
	}
	if (!e)
		e = mproc__find_map(&m->kernel, s->ip);	/* e.g. no cpumode bits */
	if (!e) {
		p->unmapped++;
		return m->str_unknown;
	}
	return e->module;
}

static int profile__sample(struct pd_tool *tool, const struct pd_sample *s)
{
	struct profile *p = (struct profile *)tool;
	struct machine *m = &p->machine;
	uint32_t ev = s->evsel < p->nr_events ? s->evsel : 0;
	uint64_t period = s->period ? s->period : 1;
	struct mthread *t;
	uint32_t mod, ri;

	if (!p->nr_events)
		return 0;
	t = machine__findnew_thread(m, s->pid, s->tid);
	p->tot_samples[ev]++;
	p->tot_period[ev] += period;

	/* cached rows: valid while the thread's comm is unchanged */
	if (t->row[0] == UINT32_MAX || p->sets[PROFILE_BY_THREAD].rows[t->row[0]].name !=
					       strtab__str(&m->strs, t->comm)) {
		uint32_t pcomm = machine__findnew_proc(m, t->pid)->comm;

		t = machine__findnew_thread(m, s->pid, s->tid);
		t->row[0] = rowset__findnew(p, &p->sets[PROFILE_BY_THREAD],
					    (uint64_t)t->tid << 32 | t->comm,
					    strtab__str(&m->strs, t->comm), t->pid, t->tid);
		t->row[1] = rowset__findnew(p, &p->sets[PROFILE_BY_PROCESS],
					    (uint64_t)t->pid << 32 | pcomm,
					    strtab__str(&m->strs, pcomm), t->pid, 0);
	}
	row_add(&p->sets[PROFILE_BY_THREAD].rows[t->row[0]], ev, period);
	row_add(&p->sets[PROFILE_BY_PROCESS].rows[t->row[1]], ev, period);

	mod = module_of(p, s, t);
	ri = rowset__findnew(p, &p->sets[PROFILE_BY_MODULE], mod, strtab__str(&m->strs, mod), 0, 0);
	row_add(&p->sets[PROFILE_BY_MODULE].rows[ri], ev, period);
	return 0;
}

static int profile__mmap(struct pd_tool *tool, const struct pd_mmap *mm)
{
	machine__add_mmap(&((struct profile *)tool)->machine, mm);
	return 0;
}

static int profile__comm(struct pd_tool *tool, const struct pd_comm *c)
{
	machine__comm(&((struct profile *)tool)->machine, c);
	return 0;
}

static int profile__fork(struct pd_tool *tool, const struct pd_task *f)
{
	machine__fork(&((struct profile *)tool)->machine, f);
	return 0;
}

struct profile *profile__new(size_t nr_events)
{
	struct profile *p = xzalloc(sizeof(*p));

	p->tool.sample = profile__sample;
	p->tool.mmap = profile__mmap;
	p->tool.comm = profile__comm;
	p->tool.fork = profile__fork;
	machine__init(&p->machine);
	p->nr_events = nr_events;
	p->tot_samples = xcalloc(nr_events + 1, sizeof(uint64_t));
	p->tot_period = xcalloc(nr_events + 1, sizeof(uint64_t));
	for (int i = 0; i < PROFILE_BY_NR_; i++)
		u64map__init(&p->sets[i].idx);
	return p;
}

void profile__delete(struct profile *p)
{
	if (!p)
		return;
	for (int i = 0; i < PROFILE_BY_NR_; i++) {
		free(p->sets[i].rows);
		free(p->sets[i].sorted);
		u64map__exit(&p->sets[i].idx);
	}
	for (size_t i = 0; i < p->nr_slabs; i++)
		free(p->slabs[i]);
	free(p->slabs);
	free(p->tot_samples);
	free(p->tot_period);
	machine__exit(&p->machine);
	free(p);
}

struct pd_tool *profile__tool(struct profile *p)
{
	return &p->tool;
}

size_t profile__nr_events(const struct profile *p)
{
	return p->nr_events;
}

uint64_t profile__total_samples(const struct profile *p, size_t e)
{
	return e < p->nr_events ? p->tot_samples[e] : 0;
}

uint64_t profile__total_period(const struct profile *p, size_t e)
{
	return e < p->nr_events ? p->tot_period[e] : 0;
}

uint64_t profile__unmapped_samples(const struct profile *p)
{
	return p->unmapped;
}

static size_t sort_event_;	/* qsort has no context argument */

static int row_cmp(const void *a, const void *b)
{
	const struct profile_row *x = *(const struct profile_row *const *)a;
	const struct profile_row *y = *(const struct profile_row *const *)b;
	size_t e = sort_event_;

	if (x->period[e] != y->period[e])
		return x->period[e] > y->period[e] ? -1 : 1;
	if (x->samples[e] != y->samples[e])
		return x->samples[e] > y->samples[e] ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(x->name, y->name);
}

const struct profile_row *const *profile__rows(struct profile *p, enum profile_by by,
					       size_t sort_event, size_t *nr)
{
	struct rowset *s = &p->sets[by];

	s->sorted = xrealloc(s->sorted, (s->nr + 1) * sizeof(*s->sorted));
	for (size_t i = 0; i < s->nr; i++)
		s->sorted[i] = &s->rows[i];
	sort_event_ = sort_event < p->nr_events ? sort_event : 0;
	if (p->nr_events)
		qsort(s->sorted, s->nr, sizeof(*s->sorted), row_cmp);
	*nr = s->nr;
	return s->sorted;
}
