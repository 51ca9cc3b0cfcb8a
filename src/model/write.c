/*
 * write.c: a modelled run's perf.data. Each instruction callgrind counted
 * becomes a sample per event in each thread that ran it (its period the
 * count, or the modelled cycles), under that thread's pid and tid; with
 * -g, a sample per call stack too (callgraph.c).
 */
#include "config.h"

#include "model-int.h"

#include <gelf.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

enum model_ev {
	EV_CYCLES, EV_INSNS, EV_BRANCHES, EV_BRMISS, EV_L1D_LD, EV_L1D_ST, EV_L1I, EV_L2,
	EV_LLC_LD, EV_LLC_ST, EV_FE, EV_BAD, EV_MEM, EV_CORE, EV_FAULTS, EV_NR
};

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} model_events[EV_NR] = {
	{ "cycles:modelled", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions:exact", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "branches:exact", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses:modelled", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "L1-dcache-load-misses:modelled", PERF_TYPE_HW_CACHE, 0x10000 },
	{ "L1-dcache-store-misses:modelled", PERF_TYPE_HW_CACHE, 0x10100 },
	{ "L1-icache-load-misses:modelled", PERF_TYPE_HW_CACHE, 0x10001 },
	{ "l2-misses:modelled", PERF_TYPE_RAW, 0x4758000010ULL },
	{ "LLC-load-misses:modelled", PERF_TYPE_HW_CACHE, 0x10002 },
	{ "LLC-store-misses:modelled", PERF_TYPE_HW_CACHE, 0x10102 },
	{ "model-frontend-cycles:modelled", PERF_TYPE_RAW, 0x4758000001ULL },
	{ "model-bad-spec-cycles:modelled", PERF_TYPE_RAW, 0x4758000002ULL },
	{ "model-memory-cycles:modelled", PERF_TYPE_RAW, 0x4758000003ULL },
	{ "model-core-cycles:modelled", PERF_TYPE_RAW, 0x4758000004ULL },
	{ "page-faults:modelled", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
};

#define MODEL_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			   PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define MODEL_ID0 0x6d6f00

static int put_comm(struct perf_writer *w, uint32_t pid, uint32_t tid, const char *comm)
{
	struct { struct perf_event_header h; uint32_t pid, tid; char comm[24]; } r;

	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_COMM;
	r.h.misc = PERF_RECORD_MISC_USER;
	r.h.size = sizeof(r);
	r.pid = pid;
	r.tid = tid;
	snprintf(r.comm, sizeof(r.comm), "%.15s", comm);
	return perf_writer__write(w, &r, sizeof(r));
}

static int put_mmap2(struct perf_writer *w, uint32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *path)
{
	size_t fl = strlen(path) + 1, sz = (48 + 8 + 16 + 8 + fl + 7) & ~(size_t)7;
	unsigned char *buf = xzalloc(sz + 8);
	struct perf_event_header *h = (void *)buf;
	unsigned char *p = buf + sizeof(*h);
	uint32_t prot = 5, flags = 2;	/* PROT_READ|PROT_EXEC, MAP_PRIVATE */
	int err;

	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)sz;
	memcpy(p, &pid, 4), memcpy(p + 4, &pid, 4);
	memcpy(p + 8, &start, 8), memcpy(p + 16, &len, 8), memcpy(p + 24, &pgoff, 8);
	/* maj, min, ino, ino_generation: 0 */
	memcpy(p + 56, &prot, 4), memcpy(p + 60, &flags, 4);
	memcpy(p + 64, path, fl);
	err = perf_writer__write(w, buf, sz);
	free(buf);
	return err;
}

/* A sample; chain (n entries, the callchain as perf writes it) or none. */
static int put_sample(struct perf_writer *w, int ev, uint64_t ip, uint32_t pid, uint32_t tid,
		      uint64_t time, uint64_t period, const uint64_t *chain, size_t n)
{
	uint64_t buf[8 + MODEL_STACK_DEPTH + 2];
	struct perf_event_header *h = (void *)buf;
	size_t k = 1;

	buf[k++] = MODEL_ID0 + (uint64_t)ev;
	buf[k++] = ip;
	buf[k++] = (uint64_t)tid << 32 | pid;
	buf[k++] = time;
	buf[k++] = period;
	if (chain) {
		buf[k++] = n;
		memcpy(&buf[k], chain, n * sizeof(*chain));
		k += n;
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(k * sizeof(*buf));
	return perf_writer__write(w, buf, k * sizeof(*buf));
}

/* Each process's name, once, and the executable parts of the objects it
 * ran; a thread's name is its process's, said in a COMM of its own (perf
 * script showed a thread without one nameless). A process that ran
 * nothing of its own (a copy only) has neither. */
static void put_tasks(struct perf_writer *w, const struct model_priced *pr,
		      const struct model_tasks *tk)
{
	const struct cg_profile *cg = pr->cg;
	bool *ran = xcalloc(cg->nr_objs + 1, sizeof(*ran));

	for (size_t i = 0; i < tk->nr; i++) {
		bool first = !tk->empty[i];

		/* its name the first part's that ran something: a process that
		 * is a copy and then an exec of another program is the latter */
		for (size_t k = 0; k < i && first; k++)
			first = tk->empty[k] || tk->pid[k] != tk->pid[i];
		if (!first)
			continue;
		put_comm(w, tk->pid[i], tk->pid[i], tk->comm[i]);
		memset(ran, 0, (cg->nr_objs + 1) * sizeof(*ran));
		for (size_t j = 0; j < cg->nr_pins; j++)
			if (tk->pid[cg->pins[j].part] == tk->pid[i])
				ran[cg->insns[cg->pins[j].insn].obj] = true;
		for (size_t k = 0; k < cg->nr_objs; k++) {
			const struct model_obj *ob = &pr->objs[k];

			if (!ob->file || !ran[k])
				continue;
			for (int s = 0; s < ob->nr_load; s++) {
				uint64_t va = ob->load[s].vaddr & ~0xfffULL;

				if (!(ob->load[s].flags & PF_X))
					continue;
				put_mmap2(w, tk->pid[i], ob->base + va,
					  ob->load[s].memsz + (ob->load[s].vaddr - va),
					  ob->load[s].offset & ~0xfffULL, ob->path);
			}
		}
	}
	for (size_t i = 0; i < tk->nr; i++) {
		bool first = !tk->empty[i] && tk->tid[i] != tk->pid[i];

		for (size_t k = 0; k < i && first; k++)
			first = tk->empty[k] || tk->tid[k] != tk->tid[i];
		if (first)
			put_comm(w, tk->pid[i], tk->tid[i], tk->comm[i]);
	}
	free(ran);
}

void model_insn_values(const struct model_priced *pr, size_t i, double v[MODEL_RP_NR])
{
	const struct cg_insn *c = &pr->cg->insns[i];

	memset(v, 0, MODEL_RP_NR * sizeof(*v));
	v[MODEL_RP_CYCLES] = pr->base[i] + pr->fe[i] + pr->bad[i] + pr->mem[i];
	v[MODEL_RP_BRMISS] = pr->bcm[i] + (double)c->c[CG_BIM] * pr->ind_missed;
	v[MODEL_RP_L2] = (double)pr->l2miss[i];
	v[MODEL_RP_FE] = pr->fe[i];
	v[MODEL_RP_BAD] = pr->bad[i];
	v[MODEL_RP_MEM] = pr->mem[i];
	v[MODEL_RP_CORE] = pr->core[i];
	v[MODEL_RP_FAULTS] = (double)pr->pages[i];
}

/* Instruction i's events as priced, for all its threads together. */
static void insn_values(const struct model_priced *pr, size_t i, uint64_t v[EV_NR])
{
	double d[MODEL_RP_NR];

	model_insn_values(pr, i, d);
	memset(v, 0, EV_NR * sizeof(*v));
	v[EV_CYCLES] = (uint64_t)llround(d[MODEL_RP_CYCLES]);
	v[EV_BRMISS] = (uint64_t)llround(d[MODEL_RP_BRMISS]);
	v[EV_L2] = pr->l2miss[i];
	v[EV_FE] = (uint64_t)llround(d[MODEL_RP_FE]);
	v[EV_BAD] = (uint64_t)llround(d[MODEL_RP_BAD]);
	v[EV_MEM] = (uint64_t)llround(d[MODEL_RP_MEM]);
	v[EV_CORE] = (uint64_t)llround(d[MODEL_RP_CORE]);
	v[EV_FAULTS] = pr->pages[i];
}

/* A pin's exact events: its own counts (tasks: a forked child's copy off). */
static void exact_values(const uint64_t c[CG_NR], uint64_t v[EV_NR])
{
	v[EV_INSNS] = c[CG_IR];
	v[EV_BRANCHES] = c[CG_BC] + c[CG_BI];
	v[EV_L1D_LD] = c[CG_D1MR];
	v[EV_L1D_ST] = c[CG_D1MW];
	v[EV_L1I] = c[CG_I1MR];
	v[EV_LLC_LD] = c[CG_DLMR];
	v[EV_LLC_ST] = c[CG_DLMW];
}

static const bool ev_modelled[EV_NR] = {
	[EV_CYCLES] = true, [EV_BRMISS] = true, [EV_L2] = true, [EV_FE] = true, [EV_BAD] = true,
	[EV_MEM] = true, [EV_CORE] = true, [EV_FAULTS] = true,
};

struct writing {
	struct perf_writer *w;
	const struct model_priced *pr;
	const struct model_tasks *tk;
	struct model_graph *g;	/* NULL: no stacks */
	uint64_t totals[EV_NR], time;
	uint64_t (*v)[EV_NR];	/* per pin: its events' values */
	uint64_t *quota;	/* scratch: a function's event per stack */
	double *sw;
	size_t cap;
};

/* value of event ev at pin j, with stack st (NULL: none) as its callchain. */
static void put_one(struct writing *x, size_t j, int ev, uint64_t value,
		    const struct model_stack *st)
{
	const struct cg_pinsn *pin = &x->pr->cg->pins[j];
	const struct cg_insn *c = &x->pr->cg->insns[pin->insn];
	uint32_t pid = x->tk->pid[pin->part], tid = x->tk->tid[pin->part];
	uint64_t ip = model_sample_ip(x->pr, c->obj, c->addr), chain[MODEL_STACK_DEPTH + 2];
	size_t d = 2;

	x->totals[ev] += value;
	if (!x->g) {
		put_sample(x->w, ev, ip, pid, tid, x->time++, value, NULL, 0);
		return;
	}
	chain[0] = PERF_CONTEXT_USER;
	chain[1] = ip;
	for (uint32_t f = 0; st && f < st->depth; f++) {
		const struct model_edge *e = &x->g->edges[x->g->frames[st->first + f]];

		/* a return address: the profile takes 1 off, the call's */
		chain[d++] = model_sample_ip(x->pr, e->obj, e->site) + 1;
	}
	put_sample(x->w, ev, ip, pid, tid, x->time++, value, chain, d);
}

/* Every pin's events: exact ones its own counts, modelled ones (priced on
 * all threads' counts together) its instruction's shared among the pins
 * of it by their instructions there. */
static void pin_values(struct writing *x)
{
	const struct cg_profile *cg = x->pr->cg;
	size_t *first = xcalloc(cg->nr_insns + 2, sizeof(*first)), *at, *ord;
	uint64_t *w = NULL, *out = NULL;
	size_t cap = 0;

	ord = xcalloc(cg->nr_pins + 1, sizeof(*ord));
	at = xcalloc(cg->nr_insns + 1, sizeof(*at));
	for (size_t j = 0; j < cg->nr_pins; j++)	/* pins by instruction */
		first[cg->pins[j].insn + 1]++;
	for (size_t i = 0; i < cg->nr_insns; i++)
		first[i + 1] += first[i];
	for (size_t j = 0; j < cg->nr_pins; j++)
		ord[first[cg->pins[j].insn] + at[cg->pins[j].insn]++] = j;
	for (size_t i = 0; i < cg->nr_insns; i++) {
		size_t m = first[i + 1] - first[i];
		uint64_t v[EV_NR], ir = 0;

		if (!m)
			continue;
		w = xgrow(w, &cap, m, sizeof(*w));
		out = xrealloc(out, cap * sizeof(*out));
		insn_values(x->pr, i, v);
		for (size_t q = 0; q < m; q++) {
			size_t j = ord[first[i] + q];

			ir += w[q] = x->tk->c[j][CG_IR];
			exact_values(x->tk->c[j], x->v[j]);
		}
		for (int k = 0; k < EV_NR; k++) {
			uint64_t total = v[k];

			if (!ev_modelled[k])
				continue;
			/* a forked child's copy taken off: its share too */
			if (ir < cg->insns[i].c[CG_IR])
				total = (uint64_t)llround((double)total * (double)ir /
							  (double)cg->insns[i].c[CG_IR]);
			model_split(total, w, m, out);
			for (size_t q = 0; q < m; q++)
				x->v[ord[first[i] + q]][k] = out[q];
		}
	}
	free(w);
	free(out);
	free(at);
	free(ord);
	free(first);
}

struct pin_key {
	uint32_t part, fn, j;
	uint64_t addr;
};

static int cmp_pin_key(const void *a, const void *b)
{
	const struct pin_key *x = a, *y = b;

	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

/*
 * One function's pins (keys[0 .. n), one part's) with its stacks: each
 * event's total over the function shared among the stacks by their
 * weights, exactly, and dealt out over its instructions in address order,
 * a stack's quota filled before the next's: a sample an instruction and
 * stack where a quota ends inside an instruction, else one an
 * instruction, not one for every stack at every instruction.
 */
static void put_function(struct writing *x, const struct pin_key *keys, size_t n)
{
	const struct model_stack *st = NULL;
	size_t ns = 0;

	if (keys[0].fn)
		st = model_graph__stacks(x->g, keys[0].part, keys[0].fn - 1, &ns);
	if (ns > x->cap) {
		x->cap = ns;
		x->quota = xrealloc(x->quota, ns * sizeof(*x->quota));
		x->sw = xrealloc(x->sw, ns * sizeof(*x->sw));
	}
	for (size_t s = 0; s < ns; s++)
		x->sw[s] = st[s].w;
	for (int k = 0; k < EV_NR; k++) {
		uint64_t total = 0;
		size_t s = 0;

		for (size_t q = 0; q < n; q++)
			total += x->v[keys[q].j][k];
		if (!total)
			continue;
		if (!ns) {
			for (size_t q = 0; q < n; q++)
				if (x->v[keys[q].j][k])
					put_one(x, keys[q].j, k, x->v[keys[q].j][k], NULL);
			continue;
		}
		model_split_d(total, x->sw, ns, x->quota);
		for (size_t q = 0; q < n; q++) {
			uint64_t v = x->v[keys[q].j][k];

			while (v > 0 && s < ns) {
				uint64_t take = v < x->quota[s] ? v : x->quota[s];

				if (take)
					put_one(x, keys[q].j, k, take, &st[s]);
				v -= take;
				x->quota[s] -= take;
				if (!x->quota[s])
					s++;
			}
		}
	}
}

static void put_samples(struct writing *x)
{
	const struct cg_profile *cg = x->pr->cg;
	struct pin_key *keys;

	x->v = xcalloc(cg->nr_pins + 1, sizeof(*x->v));
	pin_values(x);
	if (!x->g) {
		for (size_t j = 0; j < cg->nr_pins; j++)
			for (int k = 0; k < EV_NR; k++)
				if (x->v[j][k])
					put_one(x, j, k, x->v[j][k], NULL);
		return;
	}
	keys = xcalloc(cg->nr_pins + 1, sizeof(*keys));
	for (size_t j = 0; j < cg->nr_pins; j++)
		keys[j] = (struct pin_key){ cg->pins[j].part, cg->insns[cg->pins[j].insn].fn,
					    (uint32_t)j, cg->insns[cg->pins[j].insn].addr };
	gx_qsort(keys, cg->nr_pins, sizeof(*keys), cmp_pin_key);
	for (size_t a = 0; a < cg->nr_pins;) {
		size_t b = a + 1;

		while (b < cg->nr_pins && keys[b].part == keys[a].part && keys[b].fn == keys[a].fn)
			b++;
		put_function(x, &keys[a], b - a);
		a = b;
	}
	free(keys);
}

/* meta.json's events: each one's count the samples' sum, over [t0, t1]. */
static void meta_events(struct gx_meta *m, const uint64_t totals[EV_NR], uint64_t loads,
			uint64_t t0, uint64_t t1)
{
	m->nr_events = EV_NR + 1;	/* and the loads (datasrc.c) */
	m->events = xcalloc(EV_NR + 2, sizeof(*m->events));
	for (int k = 0; k < EV_NR; k++) {
		m->events[k].name = xstrdup(model_events[k].name);
		m->events[k].encoding = xasprintf("type=%u config=0x%" PRIx64, model_events[k].type,
						  model_events[k].config);
		m->events[k].sav = 1;
		m->events[k].group = -1;
		m->events[k].has_count = true;
		m->events[k].count = totals[k];
		m->events[k].time_enabled = m->events[k].time_running = t1 - t0;
	}
	m->events[EV_NR].name = xstrdup(MODEL_MEM_EVENT);
	m->events[EV_NR].encoding = xstrdup("type=4 config=0x4758000005");
	m->events[EV_NR].sav = 1;
	m->events[EV_NR].group = -1;
	m->events[EV_NR].has_count = true;
	m->events[EV_NR].count = loads;
	m->events[EV_NR].time_enabled = m->events[EV_NR].time_running = t1 - t0;
	m->start_ns = t0;
	m->end_ns = t1;
}

int model_write_result(const struct model_priced *pr, const struct model_opts *o, uint64_t t0,
		       uint64_t t1, struct gx_meta *m, char **cause)
{
	struct pd_evsel ev[EV_NR + 1];	/* and the loads' (datasrc.c) */
	uint64_t ids[EV_NR + 1], loads;
	struct perf_writer *w = NULL;
	struct model_tasks tk;
	struct model_graph g;
	struct writing x = { .pr = pr, .tk = &tk, .time = t0 };
	const char *argv0 = model_argv0(o);
	struct pd_env env;
	char *why = NULL;
	int err;

	memset(ev, 0, sizeof(ev));
	for (int k = 0; k < EV_NR; k++) {
		ids[k] = MODEL_ID0 + (uint64_t)k;
		ev[k].attr.size = sizeof(ev[k].attr);
		ev[k].attr.type = model_events[k].type;
		ev[k].attr.config = model_events[k].config;
		ev[k].attr.sample_period = 1;
		ev[k].attr.sample_type = MODEL_SAMPLE_TYPE |
					 (o->callgraph ? PERF_SAMPLE_CALLCHAIN : 0);
		ev[k].attr.exclude_kernel = 1;
		ev[k].attr.exclude_hv = 1;
		ev[k].attr.exclude_callchain_kernel = o->callgraph;
		ev[k].name = (char *)model_events[k].name;
		ev[k].ids = &ids[k];
		ev[k].nr_ids = 1;
	}
	ids[EV_NR] = MODEL_ID0 + EV_NR;
	model_mem_evsel(&ev[EV_NR], &ids[EV_NR]);
	model_tasks__build(&tk, pr->cg, pr->pid, argv0, pr->log_prefix);
	err = perf_writer__new_at(&w, o->dirfd, "perf.data", ev, EV_NR + 1, &why);
	if (err) {
		err = gx_fail(cause, err, "%s: %s", o->dir, why);
		goto out;
	}
	if (tk.nr_threads > 1)
		gx_meta__add_warning(m, "model: the workload ran %u threads (processes included); Valgrind "
				     "runs them serialized (one at a time), so the model sees no "
				     "contention between them; each is a thread row, each of its %u "
				     "processes a process row", tk.nr_threads, tk.nr_procs);
	if (tk.nr_copies)
		gx_meta__add_warning(m, "model: %u threads of forked processes began with a copy of "
				     "their parent's counts (Valgrind copies them at a fork): taken "
				     "off", tk.nr_copies);
	put_tasks(w, pr, &tk);
	x.w = w;
	if (o->callgraph) {
		model_graph__init(&g, pr->cg, &tk);
		x.g = &g;
	}
	put_samples(&x);
	loads = model_mem_put(w, ids[EV_NR], pr, &tk, &x.time);
	if (x.g)
		model_graph__exit(&g);
	free(x.v);
	free(x.quota);
	free(x.sw);
	if (x.time > t1)
		t1 = x.time;
	perf_writer__flush(w);
	memset(&env, 0, sizeof(env));
	pd_env__from_system(&env, o->argc, o->cmdline);
	{
		char *data = xasprintf("%s/perf.data", o->dir);

		if (pd_collect_build_ids_file(data, &env, &why) != 0) {
			gx_meta__add_warning(m, "build ids not collected: %s", why);
			free(why);
			why = NULL;
		}
		free(data);
	}
	err = perf_writer__finish(w, &env, &why);
	if (err) {
		err = gx_fail(cause, err, "%s", why);
		pd_env__exit(&env);
		goto out;
	}
	{
		struct pd_archive_opts ao = { .max_bytes = PD_ARCHIVE_MAX_DEFAULT };
		struct pd_archive_stats as;

		if (pd_archive(o->dir, &env, &ao, &as, &why) != 0) {
			free(why);
			why = NULL;
		}
	}
	m->cpu_desc = env.cpudesc ? xstrdup(env.cpudesc) : NULL;
	pd_env__exit(&env);
	meta_events(m, x.totals, loads, t0, t1);
out:
	free(why);
	perf_writer__delete(w);
	model_tasks__exit(&tk);
	return err;
}

