/*
 * Memory-access samples (issue 43): where each sampled load or store was
 * served (its data_src, named as perf mem names it), its latency (the
 * weight), which variable its data address fell in, and which cache line.
 * Kept beside the rows, not in them: a table per run, cells per function
 * and line row, data objects, cache lines; the rows' own counters are
 * untouched. Whole-run only: a profile__subset carries none of it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "profile-int.h"

#define CACHE_LINE 64

struct pm_cell {			/* one row's share of one source */
	uint32_t by, row, src;
	uint64_t samples, weight;
};

struct profile_mem {
	struct profile_mem_totals tot;
	struct profile_mem_source *srcs;
	size_t nr_srcs, srcs_cap;
	struct u64map src_idx;		/* data_src's level bits -> srcs index */
	struct pm_cell *cells;
	size_t nr_cells, cells_cap;
	struct u64map cell_idx;		/* by, row, src -> cells index */
	struct profile_mem_object *objs;
	size_t nr_objs, objs_cap;
	struct u64map obj_idx;		/* hash of module and name -> objs index */
	struct profile_mem_line *lines;
	size_t nr_lines, lines_cap;
	struct u64map line_idx;		/* hash of pid and line -> lines index */
	/* per (pid, ip): the samples and weight of each instruction */
	struct pm_ip {
		uint32_t pid;
		uint64_t ip, samples, weight;
	} *ips;
	size_t nr_ips, ips_cap;
	struct u64map ip_idx;		/* hash of pid and ip -> ips index */
	/* what profile__mem_objects and __lines hand out: sorted copies */
	struct profile_mem_object *objs_sorted;
	struct profile_mem_line *lines_sorted;
};

/* The bits of a data_src that perf mem's "Memory access" text reads. */
#define LVL_BITS (0x3fffull << PERF_MEM_LVL_SHIFT | 0xfull << PERF_MEM_LVLNUM_SHIFT | \
		  1ull << PERF_MEM_REMOTE_SHIFT | 7ull << PERF_MEM_HOPS_SHIFT)

static uint32_t source_of(struct profile *p, struct profile_mem *pm, uint64_t ds)
{
	uint64_t *ix = u64map__findnew(&pm->src_idx, ds & LVL_BITS, UINT64_MAX);
	char buf[128];
	const char *name;

	if (*ix != UINT64_MAX)
		return (uint32_t)*ix;
	/* two encodings with one text are one source, as one row of perf's */
	name = strtab__str(&p->machine.strs, strtab__intern(&p->machine.strs,
			   pd_mem_str(ds, PD_MEM_LVL, buf, sizeof(buf))));
	for (size_t i = 0; i < pm->nr_srcs; i++)
		if (pm->srcs[i].name == name)
			return (uint32_t)(*ix = i);
	pm->srcs = xgrow(pm->srcs, &pm->srcs_cap, pm->nr_srcs + 1, sizeof(*pm->srcs));
	memset(&pm->srcs[pm->nr_srcs], 0, sizeof(*pm->srcs));
	pm->srcs[pm->nr_srcs].name = name;
	*ix = pm->nr_srcs;
	return (uint32_t)pm->nr_srcs++;
}

static void cell_add(struct profile_mem *pm, uint32_t by, uint32_t row, uint32_t src, uint64_t n,
		     uint64_t weight)
{
	uint64_t key = (uint64_t)by << 60 | (uint64_t)row << 20 | src;
	uint64_t *ix;

	if (row == UINT32_MAX || src >= (1u << 20) || row >= (1u << 30))
		return;
	ix = u64map__findnew(&pm->cell_idx, key, UINT64_MAX);
	if (*ix == UINT64_MAX) {
		pm->cells = xgrow(pm->cells, &pm->cells_cap, pm->nr_cells + 1, sizeof(*pm->cells));
		pm->cells[pm->nr_cells] = (struct pm_cell){ by, row, src, 0, 0 };
		*ix = pm->nr_cells++;
	}
	pm->cells[*ix].samples += n;
	pm->cells[*ix].weight += weight;
}

/* The data object of addr in process proc: the variable of its module,
 * else the kind of its mapping. */
static void object_of(struct profile *p, const struct mproc *proc, uint64_t addr,
		      struct profile_mem_object *o)
{
	const struct mmap_ent *e = proc ? mproc__find_map(proc, addr) : NULL;
	const struct mmap_ent *file = e;
	const char *mod = e ? strtab__str(&p->machine.strs, e->module) : "";
	uint64_t off, vaddr, start, size;
	bool local;

	memset(o, 0, sizeof(*o));
	o->module = "";
	if (!e) {
		o->kind = PROFILE_MEM_UNKNOWN;
		o->name = "[unknown]";
		return;
	}
	/* .bss past the file's last page: an anonymous map right after the
	 * file's, which gives its offset */
	if ((!e->dso || !strncmp(mod, "//anon", 6)) && e > proc->maps && e[-1].end == e->start &&
	    e[-1].dso)
		file = &e[-1];
	off = addr - file->start + file->pgoff;
	if (file->dso && sym_dso__data_vaddr(file->dso, off, &vaddr)) {
		const char *name = sym_dso__data_symbol(file->dso, vaddr, &start, &size, &local);

		o->module = strtab__str(&p->machine.strs, file->module);
		if (name) {
			o->name = name;
			o->kind = local ? PROFILE_MEM_STATIC : PROFILE_MEM_GLOBAL;
			o->start = addr - (vaddr - start);
			o->size = size;
			return;
		}
		o->kind = PROFILE_MEM_FILE;
		o->name = "[data]";
		return;
	}
	if (!strncmp(mod, "[stack", 6)) {
		o->kind = PROFILE_MEM_STACK;
		o->name = "[stack]";
	} else if (!strcmp(mod, "[heap]") || !strncmp(mod, "//anon", 6) || !mod[0] ||
		   !strncmp(mod, "[anon", 5)) {
		o->kind = PROFILE_MEM_HEAP;
		o->name = "[heap]";
	} else {
		o->kind = PROFILE_MEM_FILE;
		o->name = "[data]";
		o->module = mod;
	}
}

static uint64_t hash_str2(const char *a, const char *b, uint64_t x)
{
	uint64_t h = 1469598103934665603ull ^ x;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ull;
	return h;
}

static struct profile_mem_object *object_findnew(struct profile_mem *pm,
						 const struct profile_mem_object *o)
{
	uint64_t key = hash_str2(o->name, o->module, o->start), *slot;

	for (slot = wide_key__first(&pm->obj_idx, &key); slot;
	     slot = wide_key__next(&pm->obj_idx, &key)) {
		struct profile_mem_object *x = &pm->objs[*slot];

		if (x->start == o->start && !strcmp(x->name, o->name) && !strcmp(x->module, o->module))
			return x;
	}
	*u64map__findnew(&pm->obj_idx, key, 0) = pm->nr_objs;
	pm->objs = xgrow(pm->objs, &pm->objs_cap, pm->nr_objs + 1, sizeof(*pm->objs));
	pm->objs[pm->nr_objs] = *o;
	return &pm->objs[pm->nr_objs++];
}

static struct profile_mem_line *line_findnew(struct profile_mem *pm, uint32_t pid, uint64_t line)
{
	uint64_t key = (line * 0x9e3779b97f4a7c15ull) ^ pid, *slot;

	for (slot = wide_key__first(&pm->line_idx, &key); slot;
	     slot = wide_key__next(&pm->line_idx, &key)) {
		struct profile_mem_line *x = &pm->lines[*slot];

		if (x->pid == pid && x->addr == line)
			return x;
	}
	*u64map__findnew(&pm->line_idx, key, 0) = pm->nr_lines;
	pm->lines = xgrow(pm->lines, &pm->lines_cap, pm->nr_lines + 1, sizeof(*pm->lines));
	memset(&pm->lines[pm->nr_lines], 0, sizeof(*pm->lines));
	pm->lines[pm->nr_lines].pid = pid;
	pm->lines[pm->nr_lines].addr = line;
	return &pm->lines[pm->nr_lines++];
}

static uint64_t ip_key(uint32_t pid, uint64_t ip)
{
	return (ip * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)pid << 1) ^ 0x5bd1e995;
}

static struct pm_ip *ip_find(const struct profile_mem *pm, uint32_t pid, uint64_t ip,
			     uint64_t *key)
{
	uint64_t *slot;

	*key = ip_key(pid, ip);
	for (slot = wide_key__first(&pm->ip_idx, key); slot; slot = wide_key__next(&pm->ip_idx, key))
		if (pm->ips[*slot].pid == pid && pm->ips[*slot].ip == ip)
			return &pm->ips[*slot];
	return NULL;
}

static void ip_add(struct profile_mem *pm, uint32_t pid, uint64_t ip, uint64_t n, uint64_t weight)
{
	uint64_t key;
	struct pm_ip *x = ip_find(pm, pid, ip, &key);

	if (!x) {
		*u64map__findnew(&pm->ip_idx, key, 0) = pm->nr_ips;
		pm->ips = xgrow(pm->ips, &pm->ips_cap, pm->nr_ips + 1, sizeof(*pm->ips));
		x = &pm->ips[pm->nr_ips++];
		*x = (struct pm_ip){ pid, ip, 0, 0 };
	}
	x->samples += n;
	x->weight += weight;
}

bool profile__mem_at(const struct profile *p, uint32_t pid, uint64_t ip, uint64_t *samples,
		     uint64_t *weight)
{
	uint64_t key;
	const struct pm_ip *x = p->mem ? ip_find(p->mem, pid, ip, &key) : NULL;

	*samples = x ? x->samples : 0;
	*weight = x ? x->weight : 0;
	return x != NULL;
}

static void line_add(struct profile_mem *pm, const struct pd_sample *s,
		     const struct profile_mem_object *obj, uint64_t n, uint64_t weight)
{
	struct profile_mem_line *l = line_findnew(pm, s->pid, s->addr & ~(uint64_t)(CACHE_LINE - 1));
	enum pd_mem_hitm h = pd_mem_hitm(s->data_src);
	uint32_t word = (uint32_t)(s->addr & (CACHE_LINE - 1)) / 8;

	if (!l->object)
		l->object = obj->name;
	l->samples += n;
	l->weight += weight;
	l->words |= (uint8_t)(1u << word);
	if (pd_mem_is_load(s->data_src))
		l->loads += n;
	else if (pd_mem_is_store(s->data_src))
		l->stores += n;
	if (h == PD_HITM_NONE)
		return;
	if (h == PD_HITM_LOCAL)
		l->hitm_local += n;
	else
		l->hitm_remote += n;
	for (size_t i = 0; i < l->nr_tids; i++)
		if (l->tids[i] == s->tid)
			return;
	if (l->nr_tids < PROFILE_MEM_TIDS)
		l->tids[l->nr_tids] = s->tid;
	l->nr_tids++;
}

bool profile_mem__wants(const struct pd_sample *s)
{
	return s->sample_type & (PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_ADDR);
}

void profile_mem__add(struct profile *p, const struct pd_sample *s, const struct mproc *proc,
		      uint32_t function, uint32_t line)
{
	struct profile_mem *pm = p->mem;
	struct profile_mem_object o, *obj;
	struct pd_weight w;
	uint64_t n = 1, weight;
	uint32_t src;

	if (!pm)
		pm = p->mem = xcalloc(1, sizeof(*pm));
	pd_weight__split(s, &w);
	/* a modelled sample stands for its period's accesses, each of its
	 * weight's latency; a measured one for one access */
	if (p->mem_periods && s->period)
		n = s->period;
	if (__builtin_mul_overflow(w.latency, n, &weight) ||
	    __builtin_add_overflow(pm->tot.weight, weight, &pm->tot.weight))
		return;
	pm->tot.samples += n;
	if (s->sample_type & PERF_SAMPLE_DATA_SRC) {
		pm->tot.has_source = true;
		src = source_of(p, pm, s->data_src);
		pm->srcs[src].samples += n;
		pm->srcs[src].weight += weight;
		cell_add(pm, PROFILE_BY_FUNCTION, function, src, n, weight);
		cell_add(pm, PROFILE_BY_LINE, line, src, n, weight);
		ip_add(pm, s->pid, s->ip, n, weight);
		if (pd_mem_is_load(s->data_src))
			pm->tot.loads += n;
		else if (pd_mem_is_store(s->data_src))
			pm->tot.stores += n;
		if (pd_mem_hitm(s->data_src) != PD_HITM_NONE)
			pm->tot.hitm += n;
	}
	pm->tot.var2 += w.var2 * n;
	pm->tot.var3 += w.var3 * n;
	pm->tot.has_struct |= w.is_struct;
	if (!(s->sample_type & PERF_SAMPLE_ADDR) || !s->addr)
		return;
	pm->tot.has_addr = true;
	object_of(p, proc, s->addr, &o);
	obj = object_findnew(pm, &o);
	obj->samples += n;
	obj->weight += weight;
	line_add(pm, s, obj, n, weight);
}

void profile_mem__delete(struct profile_mem *pm)
{
	if (!pm)
		return;
	u64map__exit(&pm->src_idx);
	u64map__exit(&pm->cell_idx);
	u64map__exit(&pm->obj_idx);
	u64map__exit(&pm->line_idx);
	u64map__exit(&pm->ip_idx);
	GX_FREE(pm->ips, pm->srcs, pm->cells, pm->objs, pm->lines, pm->objs_sorted, pm->lines_sorted, pm);
}

/* ---- reading ------------------------------------------------------------- */

bool profile__mem(const struct profile *p, struct profile_mem_totals *t)
{
	memset(t, 0, sizeof(*t));
	if (!p->mem)
		return false;
	*t = p->mem->tot;
	return true;
}

static int by_weight(uint64_t wa, uint64_t sa, uint64_t wb, uint64_t sb)
{
	if (wa != wb)
		return wa > wb ? -1 : 1;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return 0;
}

static int src_cmp(const void *a, const void *b)
{
	const struct profile_mem_source *x = a, *y = b;
	int c = by_weight(x->weight, x->samples, y->weight, y->samples);

	return c ? c : strcmp(x->name, y->name);
}

size_t profile__mem_sources(const struct profile *p, enum profile_by by, uint32_t row,
			    struct profile_mem_source **out)
{
	const struct profile_mem *pm = p->mem;
	size_t n = 0;

	*out = NULL;
	if (!pm || !pm->nr_srcs)
		return 0;
	*out = xcalloc(pm->nr_srcs, sizeof(**out));
	if (row == UINT32_MAX) {
		memcpy(*out, pm->srcs, pm->nr_srcs * sizeof(**out));
		n = pm->nr_srcs;
	} else {
		for (size_t i = 0; i < pm->nr_cells; i++) {
			const struct pm_cell *c = &pm->cells[i];

			if (c->by != by || c->row != row)
				continue;
			(*out)[n].name = pm->srcs[c->src].name;
			(*out)[n].samples = c->samples;
			(*out)[n].weight = c->weight;
			n++;
		}
	}
	if (n)
		gx_qsort(*out, n, sizeof(**out), src_cmp);
	return n;
}

static int obj_cmp(const void *a, const void *b)
{
	const struct profile_mem_object *x = a, *y = b;
	int c = by_weight(x->weight, x->samples, y->weight, y->samples);

	if (c)
		return c;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->module, y->module);
}

const struct profile_mem_object *profile__mem_objects(struct profile *p, size_t *nr)
{
	struct profile_mem *pm = p->mem;

	*nr = 0;
	if (!pm || !pm->nr_objs)
		return NULL;
	/* a sorted copy: the table and its index stay as they are */
	pm->objs_sorted = xrealloc(pm->objs_sorted, pm->nr_objs * sizeof(*pm->objs));
	memcpy(pm->objs_sorted, pm->objs, pm->nr_objs * sizeof(*pm->objs));
	gx_qsort(pm->objs_sorted, pm->nr_objs, sizeof(*pm->objs), obj_cmp);
	*nr = pm->nr_objs;
	return pm->objs_sorted;
}

/* Shared lines first: the most threads with HITM loads, then the most
 * HITMs, then the weight. */
static int line_cmp(const void *a, const void *b)
{
	const struct profile_mem_line *x = a, *y = b;
	uint64_t hx = x->hitm_local + x->hitm_remote, hy = y->hitm_local + y->hitm_remote;

	if (x->nr_tids != y->nr_tids)
		return x->nr_tids > y->nr_tids ? -1 : 1;
	if (hx != hy)
		return hx > hy ? -1 : 1;
	if (by_weight(x->weight, x->samples, y->weight, y->samples))
		return by_weight(x->weight, x->samples, y->weight, y->samples);
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct profile_mem_line *profile__mem_lines(struct profile *p, size_t *nr)
{
	struct profile_mem *pm = p->mem;

	*nr = 0;
	if (!pm || !pm->nr_lines)
		return NULL;
	pm->lines_sorted = xrealloc(pm->lines_sorted, pm->nr_lines * sizeof(*pm->lines));
	memcpy(pm->lines_sorted, pm->lines, pm->nr_lines * sizeof(*pm->lines));
	gx_qsort(pm->lines_sorted, pm->nr_lines, sizeof(*pm->lines), line_cmp);
	*nr = pm->nr_lines;
	return pm->lines_sorted;
}

const char *profile_mem_kind__name(enum profile_mem_kind k)
{
	static const char *const names[] = {
		[PROFILE_MEM_UNKNOWN] = "unknown", [PROFILE_MEM_GLOBAL] = "global",
		[PROFILE_MEM_STATIC] = "static", [PROFILE_MEM_FILE] = "file",
		[PROFILE_MEM_STACK] = "stack", [PROFILE_MEM_HEAP] = "heap",
	};

	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}
