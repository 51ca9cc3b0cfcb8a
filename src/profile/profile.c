/*
 * The profile's rows: their storage, creation, ordering and the hottest
 * line of a function. Samples are aggregated in stack.c. Rows live in
 * arrays indexed by a small id; their counters in slabs that never move.
 */
#include "config.h"

#include "flow/flow.h"
#include "profile-int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define SLAB_U64S 8192

static uint64_t *profile__counters(struct profile *p, size_t need)
{
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

/*
 * Append a row. own_total: the row has its own total counters (functions,
 * lines, modules); otherwise total is self (processes, threads, paths: a
 * sample is in exactly one of them).
 */
uint32_t rowset__add(struct profile *p, struct rowset *s, const char *name, bool own_total)
{
	size_t ne = p->nr_events;
	struct profile_row *r;
	size_t nc = (own_total ? 4 : 2) * (ne ? ne : 1);
	uint64_t *c = profile__counters(p, nc + p->nr_slots);

	s->rows = xgrow(s->rows, &s->cap, s->nr + 1, sizeof(*s->rows));
	s->stamp = xgrow(s->stamp, &s->stamp_cap, s->nr + 1, sizeof(*s->stamp));
	s->stamp[s->nr] = 0;
	r = &s->rows[s->nr];
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->module = "";
	r->file = "";
	r->samples = c;
	r->period = c + ne;
	r->total_samples = own_total ? c + 2 * ne : r->samples;
	r->total_period = own_total ? c + 3 * ne : r->period;
	r->index = (uint32_t)s->nr;
	r->slot_period = p->nr_slots ? c + nc : NULL;
	return (uint32_t)s->nr++;
}

uint32_t rowset__findnew(struct profile *p, struct rowset *s, uint64_t key, const char *name,
			 uint32_t pid, uint32_t tid)
{
	uint64_t *slot = u64map__findnew(&s->idx, key, UINT64_MAX);
	uint32_t ri;

	if (*slot != UINT64_MAX)
		return (uint32_t)*slot;
	ri = rowset__add(p, s, name, s == &p->sets[PROFILE_BY_MODULE]);
	s->rows[ri].pid = pid;
	s->rows[ri].tid = tid;
	*u64map__findnew(&s->idx, key, UINT64_MAX) = ri;
	return ri;
}

uint64_t *read_prev__findnew(struct profile *p, uint64_t counter, uint32_t tid)
{
	uint64_t k[2] = { counter, tid };
	uint64_t key = gx_hash(k, sizeof(k)), *slot;

	for (slot = wide_key__first(&p->read_idx, &key); slot;
	     slot = wide_key__next(&p->read_idx, &key))
		if (p->reads[*slot].counter == counter && p->reads[*slot].tid == tid)
			return &p->reads[*slot].value;
	p->reads = xgrow(p->reads, &p->reads_cap, p->nr_reads + 1, sizeof(*p->reads));
	p->reads[p->nr_reads] = (struct read_prev){ counter, tid, 0 };
	*u64map__findnew(&p->read_idx, key, 0) = p->nr_reads;
	return &p->reads[p->nr_reads++].value;
}

static int profile__mmap(struct pd_tool *tool, const struct pd_mmap *mm)
{
	struct profile *p = (struct profile *)tool;
	struct sym_dso *dso = NULL;
	/* never NULL: sym_dso__new memcpy()s it even when the size is 0 */
	static const uint8_t no_build_id[1];
	const uint8_t *bid = no_build_id;
	size_t bid_size = 0;

	profile__finish(p);	/* the samples before it, under the maps before it */
	if (mm->has_build_id) {
		bid = mm->build_id;
		bid_size = mm->build_id_size;
	} else if (mm->filename && p->env && p->env->nr_build_ids) {
		uint32_t id = strtab__intern(&p->machine.strs, mm->filename);
		uint64_t *bi = u64map__find(&p->build_id_idx, id);

		if (bi) {
			bid = p->env->build_ids[*bi].id;
			bid_size = p->env->build_ids[*bi].size;
		}
	}
	if (p->sym && mm->filename) {
		dso = sym_session__dso(p->sym, mm->filename, bid, bid_size);
		sym_session__jitdump(p->sym, mm->pid, mm->filename);	/* jit-PID.dump */
	}
	machine__add_mmap(&p->machine, mm, dso, bid, bid_size);
	return 0;
}

static int profile__comm(struct pd_tool *tool, const struct pd_comm *c)
{
	profile__finish((struct profile *)tool);
	machine__comm(&((struct profile *)tool)->machine, c);
	return 0;
}

static int profile__fork(struct pd_tool *tool, const struct pd_task *f)
{
	profile__finish((struct profile *)tool);
	machine__fork(&((struct profile *)tool)->machine, f);
	return 0;
}

bool profile_env_is_local(const struct pd_env *env)
{
	struct utsname u;

	if (!env || !env->hostname || !env->osrelease || uname(&u) != 0)
		return false;
	return !strcmp(env->hostname, u.nodename) && !strcmp(env->osrelease, u.release);
}

struct profile *profile__alloc(size_t nr_events, const struct profile_opts *o)
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
	p->inl_samples = xcalloc(nr_events + 1, sizeof(uint64_t));
	p->inl_period = xcalloc(nr_events + 1, sizeof(uint64_t));
	p->span = xcalloc(nr_events + 1, sizeof(bool));
	p->read_enabled = xcalloc(nr_events + 1, sizeof(uint64_t));
	p->read_running = xcalloc(nr_events + 1, sizeof(uint64_t));
	for (int i = 0; i < PROFILE_BY_NR_; i++)
		u64map__init(&p->sets[i].idx);
	u64map__init(&p->build_id_idx);
	u64map__init(&p->rinfo_idx);
	u64map__init(&p->read_idx);
	p->max_stack = o->max_stack && o->max_stack < PROFILE_MAX_STACK ? o->max_stack
									 : PROFILE_MAX_STACK;
	p->env = o->env;
	if (o->slot_of && o->nr_slots && o->slot_event < nr_events) {
		p->slot_of = o->slot_of;
		p->slot_ctx = o->slot_ctx;
		p->nr_slots = o->nr_slots;
		p->slot_event = o->slot_event;
	}
	p->cur_slot = -1;
	p->cur_weight = SIZE_MAX;
	p->on_stack = o->on_stack;
	p->stack_ctx = o->stack_ctx;
	p->jobs = o->jobs ? o->jobs : 1;
	p->mem_periods = o->mem_periods;
	if (o->weight_of && o->nr_weight_of) {
		p->weight_of = xmalloc(o->nr_weight_of * sizeof(*p->weight_of));
		memcpy(p->weight_of, o->weight_of, o->nr_weight_of * sizeof(*p->weight_of));
		p->nr_weight_of = o->nr_weight_of;
	}
	keep__init(&p->keep, o->keep_samples);
	for (size_t i = 0; p->env && i < p->env->nr_build_ids; i++) {
		const struct pd_build_id *b = &p->env->build_ids[i];

		if (b->filename && b->size)
			*u64map__findnew(&p->build_id_idx,
					 strtab__intern(&p->machine.strs, b->filename), i) = i;
	}
	return p;
}

int profile__new_opts(struct profile **out, size_t nr_events, const struct profile_opts *o,
		      char **cause)
{
	static const struct profile_opts defaults;
	struct sym_options so;
	struct profile *p;
	int err;

	if (!o)
		o = &defaults;
	p = profile__alloc(nr_events, o);
	profile_opts__sym(o, &so);
	err = sym_session__new(&p->sym, &so, cause);
	if (err)
		goto out_delete;
	*out = p;
	return 0;
out_delete:
	profile__delete(p);
	return err;
}

struct profile *profile__new(size_t nr_events)
{
	static const struct profile_opts defaults;
	struct profile *p = NULL;
	char *cause = NULL;

	if (profile__new_opts(&p, nr_events, NULL, &cause) == 0)
		return p;
	/* no symbols then: rows per process, thread and module only */
	free(cause);
	return profile__alloc(nr_events, &defaults);
}

void profile_opts__sym(const struct profile_opts *o, struct sym_options *so)
{
	memset(so, 0, sizeof(*so));
	so->symfs = o->symfs;
	so->kallsyms = o->kallsyms;
	so->search_paths = o->search_paths;
	so->nr_search_paths = o->nr_search_paths;
	so->no_inline = o->no_inline;
	so->archive = o->archive;
	so->local = profile_env_is_local(o->env);
}

void profile__delete(struct profile *p)
{
	if (!p)
		return;
	for (int i = 0; i < PROFILE_BY_NR_; i++) {
		free(p->sets[i].rows);
		free(p->sets[i].sorted);
		free(p->sets[i].stamp);
		u64map__exit(&p->sets[i].idx);
	}
	profile_mem__delete(p->mem);
	free(p->weight_of);
	for (size_t i = 0; i < p->nr_slabs; i++)
		free(p->slabs[i]);
	free(p->slabs);
	free(p->tot_samples);
	free(p->tot_period);
	free(p->inl_samples);
	free(p->inl_period);
	free(p->span);
	u64map__exit(&p->build_id_idx);
	u64map__exit(&p->rinfo_idx);
	u64map__exit(&p->read_idx);
	free(p->reads);
	free(p->read_enabled);
	free(p->read_running);
	free(p->rinfos);
	free(p->fnpool);
	free(p->linepool);
	for (size_t i = 0; i < p->nr_path_chunks; i++)
		free(p->path_chunks[i]);
	free(p->path_chunks);
	free(p->unwind_why);
	for (size_t e = 0; p->hot && e < p->nr_events; e++)
		free(p->hot[e]);
	free(p->hot);
	free(p->hot_nr);
	profile__batch_delete(p);
	if (p->flow) {
		flow_stacks__delete(p->flow);
		u64map__exit(&p->flow_dso);
	}
	free(p->pre_cause);
	sym_session__delete(p->sym);
	machine__exit(&p->machine);
	keep__exit(&p->keep);
	free(p);
}

struct sym_session *profile__symbolizer(const struct profile *p)
{
	return p->sym;
}

struct pd_tool *profile__tool(struct profile *p)
{
	return &p->tool;
}

size_t profile__nr_events(const struct profile *p)
{
	return p->nr_events;
}

void profile__set_span(struct profile *p, size_t e)
{
	if (e < p->nr_events)
		p->span[e] = true;
}

bool profile__is_span(const struct profile *p, size_t e)
{
	return e < p->nr_events && p->span[e];
}

uint64_t profile__total_samples(const struct profile *p, size_t e)
{
	return e < p->nr_events ? p->tot_samples[e] : 0;
}

uint64_t profile__nr_overflowed(const struct profile *p)
{
	return p->nr_overflowed;
}

uint64_t profile__total_period(const struct profile *p, size_t e)
{
	return e < p->nr_events ? p->tot_period[e] : 0;
}

uint64_t profile__inlined(const struct profile *p, size_t e, uint64_t *period)
{
	if (period)
		*period = e < p->nr_events ? p->inl_period[e] : 0;
	return e < p->nr_events ? p->inl_samples[e] : 0;
}

bool profile__read_times(const struct profile *p, size_t e, uint64_t *enabled, uint64_t *running)
{
	*enabled = e < p->nr_events ? p->read_enabled[e] : 0;
	*running = e < p->nr_events ? p->read_running[e] : 0;
	return *enabled > 0;
}

bool profile__has_callchains(const struct profile *p)
{
	return p->has_callchains;
}

uint64_t profile__unmapped_samples(const struct profile *p)
{
	return p->unmapped;
}

uint64_t profile__stacks_cut(const struct profile *p, uint64_t *total, uint64_t *copy)
{
	*total = p->dwarf_stacks;
	*copy = p->stack_copy;
	return p->stacks_cut;
}

uint64_t profile__unwind_failures(const struct profile *p, const char **why)
{
	if (why)
		*why = p->unwind_why;
	return p->unwind_failures;
}

const struct profile_row *profile__row(const struct profile *p, enum profile_by by,
				       uint32_t index)
{
	if ((unsigned)by >= PROFILE_BY_NR_ || index >= p->sets[by].nr)
		return NULL;
	return &p->sets[by].rows[index];
}

/* ---- ordering ------------------------------------------------------------ */

/* qsort has no context argument; a report sorts from one thread. */
static struct {
	const struct profile *p;
	size_t ev;
	enum profile_by by;
	enum profile_sort sort;
} sort_ctx_;

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

static int cmp_path(const struct profile_row *x, const struct profile_row *y)
{
	const struct rowset *fs = &sort_ctx_.p->sets[PROFILE_BY_FUNCTION];

	for (uint32_t i = 0; i < x->path_len && i < y->path_len; i++) {
		int c = strcmp(fs->rows[x->path[i]].name, fs->rows[y->path[i]].name);

		if (c)
			return c;
	}
	return x->path_len == y->path_len ? 0 : x->path_len < y->path_len ? -1 : 1;
}

/* The name part of the order: name, then module/file/line, ids, path. */
static int cmp_name(const struct profile_row *x, const struct profile_row *y)
{
	int c;

	if (sort_ctx_.by == PROFILE_BY_LINE) {
		if ((c = strcmp(x->file, y->file)))
			return c;
		if (x->line != y->line)
			return x->line < y->line ? -1 : 1;
	}
	if ((c = strcmp(x->name, y->name)))
		return c;
	if ((c = strcmp(x->module, y->module)))
		return c;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (sort_ctx_.by == PROFILE_BY_CALLPATH && (c = cmp_path(x, y)))
		return c;
	return x->index == y->index ? 0 : x->index < y->index ? -1 : 1;
}

static int row_cmp(const void *a, const void *b)
{
	const struct profile_row *x = *(const struct profile_row *const *)a;
	const struct profile_row *y = *(const struct profile_row *const *)b;
	size_t e = sort_ctx_.ev;
	int c = 0;

	if (!sort_ctx_.p->nr_events)
		return cmp_name(x, y);
	switch (sort_ctx_.sort) {
	case PROFILE_SORT_TOTAL:
		if ((c = cmp_u64_desc(x->total_period[e], y->total_period[e])))
			return c;
		/* fall through */
	case PROFILE_SORT_SELF:
		if ((c = cmp_u64_desc(x->period[e], y->period[e])))
			return c;
		if ((c = cmp_u64_desc(x->samples[e], y->samples[e])))
			return c;
		break;
	case PROFILE_SORT_SAMPLES:
		if ((c = cmp_u64_desc(x->samples[e], y->samples[e])))
			return c;
		if ((c = cmp_u64_desc(x->period[e], y->period[e])))
			return c;
		break;
	case PROFILE_SORT_NAME:
		break;
	}
	if (sort_ctx_.by == PROFILE_BY_PROCESS || sort_ctx_.by == PROFILE_BY_THREAD ||
	    sort_ctx_.by == PROFILE_BY_COMMAND) {
		/* the historical order: pid/tid before the comm */
		if (x->pid != y->pid)
			return x->pid < y->pid ? -1 : 1;
		if (x->tid != y->tid)
			return x->tid < y->tid ? -1 : 1;
	}
	return cmp_name(x, y);
}

const struct profile_row *const *profile__sort(struct profile *p, enum profile_by by,
					       size_t sort_event, enum profile_sort sort,
					       size_t *nr)
{
	struct rowset *s = &p->sets[by];

	s->sorted = xrealloc(s->sorted, (s->nr + 1) * sizeof(*s->sorted));
	for (size_t i = 0; i < s->nr; i++)
		s->sorted[i] = &s->rows[i];
	sort_ctx_.p = p;
	sort_ctx_.ev = sort_event < p->nr_events ? sort_event : 0;
	sort_ctx_.by = by;
	sort_ctx_.sort = sort;
	gx_qsort(s->sorted, s->nr, sizeof(*s->sorted), row_cmp);
	*nr = s->nr;
	return s->sorted;
}

const struct profile_row *const *profile__rows(struct profile *p, enum profile_by by,
					       size_t sort_event, size_t *nr)
{
	return profile__sort(p, by, sort_event, PROFILE_SORT_SELF, nr);
}

/* ---- the hottest line of a function -------------------------------------- */

static bool line_hotter(const struct profile_row *x, const struct profile_row *y, size_t e)
{
	int c;

	if (x->period[e] != y->period[e])
		return x->period[e] > y->period[e];
	if (x->samples[e] != y->samples[e])
		return x->samples[e] > y->samples[e];
	if ((c = strcmp(x->file, y->file)))
		return c < 0;
	return x->line < y->line;
}

const struct profile_row *profile__hot_line(struct profile *p, uint32_t function, size_t e)
{
	const struct rowset *ls = &p->sets[PROFILE_BY_LINE];
	size_t nf = p->sets[PROFILE_BY_FUNCTION].nr;
	uint32_t *h;

	if (e >= p->nr_events || function >= nf)
		return NULL;
	if (!p->hot) {
		p->hot = xcalloc(p->nr_events, sizeof(*p->hot));
		p->hot_nr = xcalloc(p->nr_events, sizeof(*p->hot_nr));
	}
	if (!p->hot[e] || p->hot_nr[e] != nf) {
		/* one pass over the lines, once per event */
		free(p->hot[e]);
		h = p->hot[e] = xmalloc(nf * sizeof(*h));
		p->hot_nr[e] = nf;
		for (size_t i = 0; i < nf; i++)
			h[i] = UINT32_MAX;
		for (size_t i = 0; i < ls->nr; i++) {
			const struct profile_row *l = &ls->rows[i];

			if (!*l->file || !l->line || !l->samples[e] || l->function >= nf)
				continue;
			if (h[l->function] == UINT32_MAX ||
			    line_hotter(l, &ls->rows[h[l->function]], e))
				h[l->function] = (uint32_t)i;
		}
	}
	h = p->hot[e];
	return h[function] == UINT32_MAX ? NULL : &ls->rows[h[function]];
}
