/*
 * One sample -> rows. The sample's stack (the ip, the kernel's callchain,
 * or the user stack unwound from DWARF) is symbolized frame by frame; each
 * result is cached with the function and line rows of its inline chain, so
 * after warm-up a frame costs two hash probes (symbolize's cache and ours)
 * and nothing is allocated.
 *
 * Self: the innermost frame of the leaf (its function and source line).
 * Total: every distinct function, line and module on the stack, once per
 * sample (recursion is not counted twice). Call path: the chain of function
 * rows, root first, with the thread's comm, exactly as the sample saw it.
 */
#include "config.h"

#include "profile-int.h"

#include <stdlib.h>
#include <string.h>

static inline void row_add(struct profile *p, struct profile_row *r, uint32_t ev, uint64_t n,
			   uint64_t period)
{
	r->samples[ev] += n;
	r->period[ev] += period;
	if (p->cur_slot >= 0 && ev == p->slot_event)
		r->slot_period[p->cur_slot] += period;
}

/* Add to a row's total once per sample. */
static inline void row_add_total(struct profile *p, struct rowset *s, uint32_t ri, uint32_t ev,
				 uint64_t n, uint64_t period)
{
	if (s->stamp[ri] == p->seq)
		return;
	s->stamp[ri] = p->seq;
	s->rows[ri].total_samples[ev] += n;
	s->rows[ri].total_period[ev] += period;
}

static bool mode_is_kernel(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_GUEST_KERNEL:
	case PERF_RECORD_MISC_HYPERVISOR:
		return true;
	default:
		return false;
	}
}

static uint32_t module_of(struct profile *p, const struct pd_sample *s, const struct mproc *proc)
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
	e = proc ? mproc__find_map(proc, s->ip) : NULL;
	if (!e)
		e = mproc__find_map(&m->kernel, s->ip);	/* e.g. no cpumode bits */
	if (!e) {
		p->unmapped++;
		p->cur_flags |= KEEP_UNMAPPED;
		return m->str_unknown;
	}
	return e->module;
}

/* ---- rows of a symbolization result -------------------------------------- */

static uint32_t function_row(struct profile *p, const struct sym_result *r, uint32_t fn)
{
	struct rowset *fs = &p->sets[PROFILE_BY_FUNCTION];
	uint64_t key = (uint64_t)r->module << 32 | fn;
	uint64_t *slot = u64map__find(&fs->idx, key);
	uint32_t ri;

	if (slot)
		return (uint32_t)*slot;
	ri = rowset__add(p, fs, sym_session__str(p->sym, fn), true);
	fs->rows[ri].module = sym_session__str(p->sym, r->module);
	*u64map__findnew(&fs->idx, key, 0) = ri;
	return ri;
}

static uint32_t line_row(struct profile *p, uint32_t fn_row, uint32_t file, uint32_t line)
{
	struct rowset *ls = &p->sets[PROFILE_BY_LINE];
	const char *fstr = sym_session__str(p->sym, file);
	uint64_t k[2] = { (uint64_t)fn_row << 32 | file, line };
	uint64_t key = gx_hash(k, sizeof(k));
	const struct profile_row *fr;
	uint64_t *slot;
	uint32_t ri;

	for (slot = wide_key__first(&ls->idx, &key); slot; slot = wide_key__next(&ls->idx, &key)) {
		fr = &ls->rows[*slot];
		if (fr->function == fn_row && fr->line == line && fr->file == fstr)
			return (uint32_t)*slot;
	}
	fr = &p->sets[PROFILE_BY_FUNCTION].rows[fn_row];
	ri = rowset__add(p, ls, fr->name, true);
	ls->rows[ri].module = fr->module;
	ls->rows[ri].file = fstr;
	ls->rows[ri].line = line;
	ls->rows[ri].function = fn_row;
	*u64map__findnew(&ls->idx, key, 0) = ri;
	return ri;
}

static uint32_t rinfo_of(struct profile *p, const struct sym_result *r)
{
	uint64_t *slot = u64map__find(&p->rinfo_idx, (uint64_t)(uintptr_t)r);
	struct machine *m = &p->machine;
	uint32_t n = r->nr_frames ? r->nr_frames : 1, mod;
	struct rinfo ri;

	if (slot)
		return (uint32_t)*slot;
	p->fnpool = xgrow(p->fnpool, &p->pool_cap, p->nr_pool + n, sizeof(*p->fnpool));
	p->linepool = xgrow(p->linepool, &p->linepool_cap, p->nr_pool + n, sizeof(*p->linepool));
	ri.off = (uint32_t)p->nr_pool;
	ri.nr = n;
	ri.canon = (uint32_t)p->nr_rinfos;	/* itself, until keep__canon says */
	for (uint32_t k = 0; k < n; k++) {
		const struct sym_frame *f = r->nr_frames ? &r->frames[k] : NULL;
		uint32_t fn = f && f->function != SYM_STR_NONE ? f->function : r->symbol;
		uint32_t fr = function_row(p, r, fn);

		p->fnpool[ri.off + k] = fr;
		p->linepool[ri.off + k] = line_row(p, fr, f ? f->file : SYM_STR_NONE, f ? f->line : 0);
	}
	p->nr_pool += n;
	{
		const char *sym = sym_session__str(p->sym, r->symbol);

		/* "[unknown]", "[kernel]": a placeholder, not a function */
		ri.pseudo = (r->flags & SYM_F_UNKNOWN) || (sym[0] == '[' && n == 1);
	}
	mod = strtab__intern(&m->strs, sym_session__str(p->sym, r->module));
	ri.module = rowset__findnew(p, &p->sets[PROFILE_BY_MODULE], mod, strtab__str(&m->strs, mod),
				    0, 0);
	p->rinfos = xgrow(p->rinfos, &p->rinfos_cap, p->nr_rinfos + 1, sizeof(*p->rinfos));
	p->rinfos[p->nr_rinfos] = ri;
	*u64map__findnew(&p->rinfo_idx, (uint64_t)(uintptr_t)r, 0) = p->nr_rinfos;
	if (p->keep.on)
		p->rinfos[p->nr_rinfos].canon = keep__canon(p, (uint32_t)p->nr_rinfos);
	return (uint32_t)p->nr_rinfos++;
}

/* Anonymous executable memory, where JITs put their code. */
static bool map_is_anon(const struct mmap_ent *e)
{
	const char *name = e->dso ? sym_dso__name(e->dso) : "";

	return !name[0] || !strncmp(name, "//anon", 6) || !strncmp(name, "[anon", 5) ||
	       !strncmp(name, "/memfd:", 7);
}

/* Symbolize one address; *map is the user mapping it fell in, or NULL
 * (kernel, unmapped). *kernel is set when it turned out to be the kernel's. */
static const struct sym_result *resolve(struct profile *p, const struct mproc *proc, uint64_t ip,
					bool *kernel, const struct mmap_ent **map)
{
	const struct mmap_ent *e;

	*map = NULL;
	if (*kernel)
		return sym_session__lookup_kernel(p->sym, ip);
	e = proc ? mproc__find_map(proc, ip) : NULL;
	if (proc && (!e || map_is_anon(e))) {
		/* JIT code: its functions are in /tmp/perf-PID.map */
		const struct sym_result *jit = sym_session__lookup_jit(p->sym, proc->pid, ip);

		if (jit) {
			*map = e;
			return jit;
		}
	}
	if (!e) {
		if (mproc__find_map(&p->machine.kernel, ip)) {
			*kernel = true;
			return sym_session__lookup_kernel(p->sym, ip);
		}
		return sym_session__lookup(p->sym, NULL, ip);
	}
	*map = e;
	return sym_session__lookup(p->sym, e->dso, sym_map_offset(ip, e->start, e->pgoff));
}

/* Hand the sample's resolved stack to the on_stack hook. */
static void stack_hook(struct profile *p, const struct pd_sample *s, const struct mproc *proc,
		       size_t n)
{
	uint32_t pid = proc ? proc->pid : s->pid;
	const char *comm = proc ? strtab__str(&p->machine.strs, proc->comm) : "[unknown]";

	p->on_stack(p->stack_ctx, s, pid, comm, p->frames, n);
}

/* ---- the sample's stack --------------------------------------------------- */

int profile__find_map(void *ctx, uint64_t addr, struct sym_dso **dso, uint64_t *start,
		      uint64_t *len, uint64_t *pgoff)
{
	struct profile_map_find *f = ctx;
	const struct mmap_ent *e = f->last;

	if (!e || addr < e->start || addr >= e->end) {
		e = f->proc ? mproc__find_map(f->proc, addr) : NULL;
		f->last = e;
	}
	if (!e || !e->dso)
		return -1;
	*dso = e->dso;
	*start = e->start;
	*len = e->end - e->start;
	*pgoff = e->pgoff;
	return 0;
}

void profile__unwind_input(struct sym_unwind_input *in, const struct pd_sample *s,
			   struct profile_map_find *f, bool *cut)
{
	*in = (struct sym_unwind_input){
		.abi = s->user_abi,
		.regs_mask = s->user_regs_mask,
		.regs = s->user_regs,
		.stack = s->stack,
		.stack_size = s->stack_dyn_size,
		.find_map = profile__find_map,
		.ctx = f,
		.space = f->proc ? f->proc->space : 0,
		.cut = cut,
	};
}

static void unwind_failed(struct profile *p, int err, char *cause)
{
	p->unwind_failures++;
	p->cur_flags |= KEEP_UNWIND_FAILED;
	if (!p->unwind_why)
		p->unwind_why = cause ? cause : xstrdup(err ? gx_strerror(err) : "no frames");
	else
		free(cause);
}

static inline void push_ip(struct profile *p, size_t *n, uint64_t ip, bool kernel)
{
	p->ips[*n] = ip;
	p->ip_kernel[*n] = kernel;
	(*n)++;
}

/*
 * Fill p->ips (leaf first) with the sample's frames. The leaf is the
 * sample's ip, as perf attributes self: the callchain's own first entry (the
 * same frame, or the interrupted ip a few instructions away with precise
 * events) is dropped. Caller frames are return addresses: ip - 1 lands in
 * the call instruction, so its line is the call site. The first ip of a
 * later context (the user ip at which the kernel was entered) is exact.
 */
static size_t collect_ips(struct profile *p, const struct pd_sample *s, const struct mproc *proc)
{
	size_t n = 0, max = p->max_stack;
	bool kernel = mode_is_kernel(s->misc);
	bool dwarf = s->user_regs && s->user_regs_mask && s->stack && s->stack_dyn_size &&
		     s->user_abi;

	push_ip(p, &n, s->ip, kernel);
	if (s->callchain && s->nr_callchain) {
		bool k = kernel, first = true, leaf = true;

		p->has_callchains = true;
		p->cur_flags |= KEEP_CALLCHAIN;
		for (uint64_t i = 0; i < s->nr_callchain && n < max; i++) {
			uint64_t c = s->callchain[i];

			if (c >= PERF_CONTEXT_MAX) {
				if (c == PERF_CONTEXT_USER || c == PERF_CONTEXT_GUEST_USER)
					k = false;
				else
					k = true;
				first = true;
				continue;
			}
			if (dwarf && !k)
				break;	/* the user part comes from the unwinder */
			if (leaf) {
				leaf = false;
				if (k == kernel) {	/* the sampled frame itself */
					first = false;
					continue;
				}
			}
			push_ip(p, &n, first || !c ? c : c - 1, k);
			first = false;
		}
	}
	if (dwarf && n < max) {
		struct profile_map_find uc = { proc, NULL };
		bool cut = false;
		struct sym_unwind_input in;
		/* a user-mode sample: the unwinder's first ip is the leaf again */
		size_t base = !kernel && n == 1 ? 0 : n, got = 0;
		char *cause = NULL;
		int err;

		p->has_callchains = true;
		p->cur_flags |= KEEP_CALLCHAIN;
		if (p->pre) {
			/* unwound already (batch.c), as far as max_stack: the
			 * same first frames as an unwinding to max - base */
			got = p->pre_nr < max - base ? p->pre_nr : max - base;
			memcpy(&p->ips[base], p->pre_ips, got * sizeof(*p->ips));
			err = p->pre_err;
			cut = p->pre_cut;
			cause = p->pre_cause;
			p->pre_cause = NULL;
		} else {
			profile__unwind_input(&in, s, &uc, &cut);
			err = sym_unwind(p->sym, &in, &p->ips[base], max - base, &got, &cause);
		}
		if (err || got == 0)
			unwind_failed(p, err, cause);
		else
			free(cause);
		p->dwarf_stacks++;
		/* a copy the stack filled: the kernel copies less where the
		 * whole stack fits, and then nothing lies above it */
		if (cut && !err && s->stack_dyn_size >= s->stack_size) {
			p->stacks_cut++;
			if (s->stack_size > p->stack_copy)
				p->stack_copy = s->stack_size;
		}
		for (size_t i = 0; i < got; i++) {
			p->ip_kernel[base + i] = false;
			if (i > 0 && p->ips[base + i])
				p->ips[base + i]--;
		}
		if (base + got > n)
			n = base + got;
	}
	return n;
}

#define PATH_CHUNK 65536	/* function ids per chunk */

uint32_t *profile__path_alloc(struct profile *p, uint32_t len)
{
	uint32_t *c;

	if (!p->nr_path_chunks || p->path_chunk_used + len > p->path_chunk_size) {
		size_t sz = len > PATH_CHUNK ? len : PATH_CHUNK;

		p->path_chunks = xgrow(p->path_chunks, &p->path_chunks_cap, p->nr_path_chunks + 1,
				       sizeof(*p->path_chunks));
		p->path_chunks[p->nr_path_chunks++] = xmalloc(sz * sizeof(uint32_t));
		p->path_chunk_size = sz;
		p->path_chunk_used = 0;
	}
	c = p->path_chunks[p->nr_path_chunks - 1] + p->path_chunk_used;
	p->path_chunk_used += len;
	return c;
}

static uint32_t callpath_row(struct profile *p, const char *comm, const uint32_t *path,
			     uint32_t len)
{
	struct rowset *cs = &p->sets[PROFILE_BY_CALLPATH];
	uint64_t key = gx_hash(path, len * sizeof(*path)) ^
		       ((uint64_t)(uintptr_t)comm * 0x9e3779b97f4a7c15ull);
	struct profile_row *r;
	uint32_t *copy;
	uint64_t *slot;
	uint32_t ri;

	for (slot = wide_key__first(&cs->idx, &key); slot; slot = wide_key__next(&cs->idx, &key)) {
		r = &cs->rows[*slot];
		if (r->name == comm && r->path_len == len &&
		    !memcmp(r->path, path, len * sizeof(*path)))
			return (uint32_t)*slot;
	}
	ri = rowset__add(p, cs, comm, false);
	copy = profile__path_alloc(p, len);
	memcpy(copy, path, len * sizeof(*path));
	cs->rows[ri].path = copy;
	cs->rows[ri].path_len = len;
	*u64map__findnew(&cs->idx, key, 0) = ri;
	return ri;
}

/* profile__chain, inlined into the per-sample path */
static inline size_t chain_of(struct profile *p, const struct profile *src, const uint32_t *rix,
			      size_t n)
{
	size_t nc = 0;

	/* the sample's own frame, an inline chain of more than one function:
	 * its self goes to the innermost, inlined one */
	p->leaf_inlined = n && !src->rinfos[rix[0]].pseudo && src->rinfos[rix[0]].nr > 1;
	for (size_t i = 0; i < n; i++) {
		const struct rinfo *r = &src->rinfos[rix[i]];

		p->frame_module[i] = r->module;
		if (r->pseudo && nc && p->chain[nc - 1] == src->fnpool[r->off])
			continue;	/* [kernel];[kernel];...: one frame is enough */
		for (uint32_t k = 0; k < r->nr && nc < PROFILE_MAX_CHAIN; k++, nc++) {
			p->chain[nc] = src->fnpool[r->off + k];
			p->chain_line[nc] = src->linepool[r->off + k];
		}
	}
	return nc;
}

size_t profile__chain(struct profile *p, const struct profile *src, const uint32_t *rix, size_t n)
{
	return chain_of(p, src, rix, n);
}

/*
 * Symbolize the sample's stack once: the rinfo of every frame in
 * p->frame_rinfo (*nf entries), p->chain / p->chain_line (leaf first, *nc
 * entries), the module row of every frame in p->frame_module and the call
 * path row in *path_row.
 */
static void resolve_stack(struct profile *p, const struct pd_sample *s, const struct mproc *proc,
			  const char *comm, size_t *nc_out, size_t *nf_out, uint32_t *path_row)
{
	size_t n = collect_ips(p, s, proc), nc;

	for (size_t i = 0; i < n; i++) {
		bool in_kernel = p->ip_kernel[i];
		const struct mmap_ent *map;
		const struct sym_result *res = resolve(p, proc, p->ips[i], &in_kernel, &map);

		p->frame_rinfo[i] = rinfo_of(p, res);
		if (p->on_stack) {
			struct profile_frame *f = &p->frames[i];

			f->addr = p->ips[i];
			f->kernel = in_kernel;
			f->sym = res;
			f->map_file = map ? strtab__str(&p->machine.strs, map->module) : NULL;
			f->map_start = map ? map->start : 0;
			f->map_end = map ? map->end : 0;
			f->map_pgoff = map ? map->pgoff : 0;
			f->build_id = map ? map->build_id : NULL;
			f->build_id_size = map ? map->build_id_size : 0;
		}
	}
	nc = chain_of(p, p, p->frame_rinfo, n);
	for (size_t j = 0; j < nc; j++)
		p->path_tmp[nc - 1 - j] = p->chain[j];
	*path_row = callpath_row(p, comm, p->path_tmp, (uint32_t)nc);
	*nc_out = nc;
	*nf_out = n;
	if (p->on_stack)
		stack_hook(p, s, proc, n);
}

/* Credit one event's period to the stack resolve_stack() left: self to
 * the leaf's function, line and path, total to everything on it. */
static void credit_stack(struct profile *p, uint32_t self_module, size_t nc, size_t nf,
			 uint32_t path_row, uint32_t ev, uint64_t n, uint64_t period)
{
	struct rowset *fs = &p->sets[PROFILE_BY_FUNCTION], *ls = &p->sets[PROFILE_BY_LINE];
	struct rowset *ms = &p->sets[PROFILE_BY_MODULE];

	p->seq++;
	row_add_total(p, ms, self_module, ev, n, period);
	for (size_t i = 0; i < nf; i++)
		row_add_total(p, ms, p->frame_module[i], ev, n, period);
	row_add(p, &fs->rows[p->chain[0]], ev, n, period);
	row_add(p, &ls->rows[p->chain_line[0]], ev, n, period);
	if (p->leaf_inlined) {
		p->inl_samples[ev] += n;
		p->inl_period[ev] += period;
	}
	for (size_t j = 0; j < nc; j++) {
		row_add_total(p, fs, p->chain[j], ev, n, period);
		row_add_total(p, ls, p->chain_line[j], ev, n, period);
	}
	row_add(p, &p->sets[PROFILE_BY_CALLPATH].rows[path_row], ev, n, period);
}

/* profile__credit, inlined into the per-sample path */
static inline void credit(struct profile *p, const uint32_t *task, uint32_t module, bool stack,
			  size_t nc, size_t nf, uint32_t path, uint32_t ev, uint64_t n,
			  uint64_t period)
{
	row_add(p, &p->sets[PROFILE_BY_THREAD].rows[task[0]], ev, n, period);
	row_add(p, &p->sets[PROFILE_BY_PROCESS].rows[task[1]], ev, n, period);
	row_add(p, &p->sets[PROFILE_BY_COMMAND].rows[task[2]], ev, n, period);
	row_add(p, &p->sets[PROFILE_BY_MODULE].rows[module], ev, n, period);
	if (stack) {
		credit_stack(p, module, nc, nf, path, ev, n, period);
	} else {
		p->seq++;
		row_add_total(p, &p->sets[PROFILE_BY_MODULE], module, ev, n, period);
	}
}

void profile__credit(struct profile *p, const uint32_t *task, uint32_t module, bool stack,
		     size_t nc, size_t nf, uint32_t path, uint32_t ev, uint64_t n, uint64_t period)
{
	credit(p, task, module, stack, nc, nf, path, ev, n, period);
}

/* ---- group reads ------------------------------------------------------------ */

/* Keys of a counter's previous time enabled and running (beside its value's). */
#define READ_KEY_ENABLED (1ull << 62)
#define READ_KEY_RUNNING (1ull << 61)

/*
 * A read's time enabled and running: their growth since the counter's
 * previous read on the thread, added to the event's (a first read adds
 * all of it, as a first value credits all of it).
 */
static void read_times(struct profile *p, const struct pd_sample *s, uint64_t cid, uint32_t ev)
{
	const struct pd_read *r = s->read;
	uint64_t *pe, *pr;

	/* a read before the counter first ran adds nothing: the next one
	 * carries its time from 0 (and a file without running times none) */
	if (!(s->sample_type & PERF_SAMPLE_READ) || !r->time_enabled || !r->time_running)
		return;
	pe = read_prev__findnew(p, cid ^ READ_KEY_ENABLED, s->tid);
	p->read_enabled[ev] += r->time_enabled >= *pe ? r->time_enabled - *pe : r->time_enabled;
	*pe = r->time_enabled;
	pr = read_prev__findnew(p, cid ^ READ_KEY_RUNNING, s->tid);
	p->read_running[ev] += r->time_running >= *pr ? r->time_running - *pr : r->time_running;
	*pr = r->time_running;
}

/*
 * What a sample credits: its own event and period, or with PERF_SAMPLE_READ
 * (a leader-sampled group, or one event reading itself) every value's
 * growth since the previous sample of the same counter and thread, as perf
 * report delivers them: the counts between two samples go to the second
 * sample's function and line. A value that did not grow credits nothing.
 * Fills p->credits; returns how many.
 */
static size_t sample_credits(struct profile *p, const struct pd_sample *s)
{
	size_t n = 0;

	if (!s->read) {
		p->credits[0].ev = s->evsel < p->nr_events ? s->evsel : 0;
		p->credits[0].period = s->period ? s->period : 1;
		return 1;
	}
	for (uint32_t i = 0; i < s->read->nr && i < PD_MAX_READ_VALUES; i++) {
		const struct pd_read_value *v = &s->read->values[i];
		/* kernel ids start at 1; without them the counter is the
		 * event on its CPU */
		uint64_t cid = v->id ? v->id : (1ull << 63) | (uint64_t)s->cpu << 32 | v->evsel;
		uint64_t *prev, delta;

		if (v->evsel >= p->nr_events) {
			p->read_unknown++;
			continue;
		}
		read_times(p, s, cid, v->evsel);
		prev = read_prev__findnew(p, cid, s->tid);
		delta = v->value >= *prev ? v->value - *prev : v->value;
		*prev = v->value;
		if (!delta)
			continue;
		p->credits[n].ev = v->evsel;
		p->credits[n].period = delta;
		n++;
	}
	return n;
}

/*
 * The rows of thread t (thread, process, command) in t->row, made again
 * when its name, its process or its process's name changed since they
 * were made, and its process (*proc, NULL when unknown). A thread no COMM
 * or FORK named has its process's name now. So the rows a sample credits
 * depend on the records before it, never on which samples came before: a
 * time range's walk credits them as the whole run's does.
 */
static struct mthread *thread_rows(struct profile *p, struct mthread *t, const struct mproc **proc)
{
	struct machine *m = &p->machine;
	uint64_t *pi = u64map__find(&m->proc_idx, t->pid);
	struct mproc *mp = pi ? &m->procs[*pi] : NULL;
	uint32_t pcomm = mp ? mp->comm : m->str_unknown;
	struct rowset *ps = &p->sets[PROFILE_BY_PROCESS];
	size_t nproc = ps->nr;

	if (!t->own_comm)
		t->comm = pcomm;
	*proc = mp;
	if (t->row[0] != UINT32_MAX &&
	    p->sets[PROFILE_BY_THREAD].rows[t->row[0]].name == strtab__str(&m->strs, t->comm) &&
	    ps->rows[t->row[1]].pid == t->pid &&
	    ps->rows[t->row[1]].name == strtab__str(&m->strs, pcomm))
		return t;
	if (!mp)
		*proc = machine__findnew_proc(m, t->pid);
	t->row[0] = rowset__findnew(p, &p->sets[PROFILE_BY_THREAD], (uint64_t)t->tid << 32 | t->comm,
				    strtab__str(&m->strs, t->comm), t->pid, t->tid);
	t->row[1] = rowset__findnew(p, ps, (uint64_t)t->pid << 32 | pcomm,
				    strtab__str(&m->strs, pcomm), t->pid, 0);
	t->row[2] = rowset__findnew(p, &p->sets[PROFILE_BY_COMMAND], pcomm,
				    strtab__str(&m->strs, pcomm), t->pid, 0);
	if (ps->nr > nproc)	/* a new process */
		p->sets[PROFILE_BY_COMMAND].rows[t->row[2]].nr_procs++;
	if (p->keep.on)
		t->task = u32seq__intern(&p->keep.tasks, t->row, 3);
	return t;
}

int profile__sample(struct pd_tool *tool, const struct pd_sample *s)
{
	struct profile *p = (struct profile *)tool;
	struct machine *m = &p->machine;
	const struct mproc *proc;
	struct mthread *t;
	uint32_t mod, ri, path_row = 0;
	size_t nr, nc = 0, nf = 0;

	if (!p->nr_events)
		return 0;
	if (s->nr_branches && p->sym)
		profile__branches(p, s);
	if (profile__batch_sample(p, s))
		return 0;	/* unwound with others, then back here in order */
	if (s->read && p->keep.on)
		keep__stop(&p->keep);	/* its credits depend on the samples before */
	p->cur_flags = 0;
	t = machine__findnew_thread(m, s->pid, s->tid);
	nr = sample_credits(p, s);
	if (!nr)
		return 0;
	/* A sum past 64 bits (hostile or damaged periods) would make every
	 * share a wrapped number: the sample is left out and counted. Each
	 * row is part of the totals, so no row can overflow either. */
	for (size_t c = 0; c < nr; c++) {
		uint64_t sum;

		if (__builtin_add_overflow(p->tot_period[p->credits[c].ev], p->credits[c].period,
					   &sum)) {
			p->nr_overflowed++;
			return 0;
		}
	}
	p->cur_slot = -1;
	for (size_t c = 0; c < nr; c++) {
		p->tot_samples[p->credits[c].ev]++;
		p->tot_period[p->credits[c].ev] += p->credits[c].period;
		if (p->slot_of && p->credits[c].ev == p->slot_event) {
			int slot = p->slot_of(p->slot_ctx, s->time);

			p->cur_slot = slot >= 0 && (size_t)slot < p->nr_slots ? slot : -1;
		}
	}

	t = thread_rows(p, t, &proc);
	mod = module_of(p, s, proc);
	ri = rowset__findnew(p, &p->sets[PROFILE_BY_MODULE], mod, strtab__str(&m->strs, mod), 0, 0);
	if (p->sym)
		resolve_stack(p, s, proc, strtab__str(&m->strs, t->comm), &nc, &nf, &path_row);
	for (size_t c = 0; c < nr; c++)
		credit(p, t->row, ri, p->sym != NULL, nc, nf, path_row, p->credits[c].ev, 1,
		       p->credits[c].period);
	if (profile_mem__wants(s))
		profile_mem__add(p, s, proc, p->sym && nc ? p->chain[0] : UINT32_MAX,
				 p->sym && nc ? p->chain_line[0] : UINT32_MAX);
	if (p->keep.on)	/* without group reads: one credit */
		keep__sample(p, s->time, t->task, ri, nf, p->sym ? path_row : UINT32_MAX,
			     p->credits[0].ev, p->credits[0].period);
	return 0;
}

const char *profile__user_function(struct profile *p, uint32_t pid, uint64_t addr)
{
	uint64_t *pi = u64map__find(&p->machine.proc_idx, pid);
	const struct mmap_ent *e;
	const struct sym_result *r;

	if (!pi || !p->sym)
		return NULL;
	e = mproc__find_map(&p->machine.procs[*pi], addr);
	if (!e || !e->dso)
		return NULL;
	r = sym_session__lookup(p->sym, e->dso, sym_map_offset(addr, e->start, e->pgoff));
	return r && !(r->flags & SYM_F_UNKNOWN) ? sym_session__str(p->sym, r->symbol) : NULL;
}
