/*
 * graph.c: basic blocks and their edges, from exact counts (the model) or
 * from branch stacks' ranges (the report); loops.c finds the loops.
 */
#include "config.h"

#include "flow.h"

#include <stdlib.h>
#include <string.h>

#include "flow-int.h"
#include "util/util.h"

static struct flow_priv *priv(struct flow_graph *g)
{
	if (!g->priv)
		g->priv = xcalloc(1, sizeof(struct flow_priv));
	return g->priv;
}

void flow_graph__init(struct flow_graph *g)
{
	memset(g, 0, sizeof(*g));
}

void flow_graph__exit(struct flow_graph *g)
{
	struct flow_priv *p = g->priv;

	if (p) {
		free(p->ins);
		free(p->in);
		free(p->last);
		free(p);
	}
	free(g->blocks);
	free(g->edges);
	free(g->loops);
	memset(g, 0, sizeof(*g));
}

void flow_graph__add_insn(struct flow_graph *g, uint32_t module, uint64_t addr, uint32_t len,
			  enum flow_kind kind, uint64_t execs, double cycles, uint64_t mispred)
{
	struct flow_priv *p = priv(g);

	p->exact = true;
	p->ins = xgrow(p->ins, &p->cap_ins, p->nr_ins + 1, sizeof(*p->ins));
	p->ins[p->nr_ins++] = (struct flow_ins){ .module = module, .addr = addr, .len = len,
						 .kind = (uint8_t)kind, .execs = execs,
						 .cycles = cycles, .mispred = mispred };
}

void flow_graph__add_edge(struct flow_graph *g, uint32_t module, uint64_t from, uint64_t to,
			  uint64_t count, uint64_t mispred)
{
	struct flow_priv *p = priv(g);

	p->in = xgrow(p->in, &p->cap_in, p->nr_in + 1, sizeof(*p->in));
	p->in[p->nr_in++] = (struct flow_in){ .module = module, .from = from, .to = to,
					      .count = count, .mispred = mispred };
}

long flow_graph__block_at(const struct flow_graph *g, uint32_t module, uint64_t addr)
{
	size_t lo = 0, hi = g->nr_blocks;

	while (lo < hi) {	/* the first block after (module, addr) */
		size_t mid = lo + (hi - lo) / 2;
		const struct flow_block *b = &g->blocks[mid];

		if (b->module < module || (b->module == module && b->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	lo--;
	return g->blocks[lo].module == module && g->blocks[lo].end >= addr ? (long)lo : -1;
}

static long block_starting(const struct flow_graph *g, uint32_t module, uint64_t addr)
{
	long b = flow_graph__block_at(g, module, addr);

	return b >= 0 && g->blocks[b].start == addr ? b : -1;
}

void flow_push_block(struct flow_graph *g, size_t *cap, const struct flow_block *b,
		       const struct flow_last *last)
{
	struct flow_priv *p = g->priv;

	g->blocks = xgrow(g->blocks, cap, g->nr_blocks + 1, sizeof(*g->blocks));
	p->last = xgrow(p->last, &p->cap_last, g->nr_blocks + 1, sizeof(*p->last));
	p->last[g->nr_blocks] = *last;
	g->blocks[g->nr_blocks++] = *b;
}

void flow_push_edge(struct flow_graph *g, size_t *cap, uint32_t src, uint32_t dst,
		      uint64_t count, uint64_t mispred, bool taken)
{
	if (!count)
		return;
	g->edges = xgrow(g->edges, cap, g->nr_edges + 1, sizeof(*g->edges));
	g->edges[g->nr_edges++] = (struct flow_edge){ .src = src, .dst = dst, .count = count,
						      .mispred = mispred, .taken = taken };
}

static int cmp_ins(const void *a, const void *b)
{
	const struct flow_ins *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_in_to(const void *a, const void *b)
{
	const struct flow_in *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static bool is_target(const struct flow_in *v, size_t n, uint32_t module, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].module < module || (v[mid].module == module && v[mid].to < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].module == module && v[lo].to == addr;
}

/* Whether instruction i starts a block: a branch before it, a gap, another
 * count, another module, or a branch to it. */
static bool leader(const struct flow_priv *p, const struct flow_in *targets, size_t i)
{
	const struct flow_ins *a = &p->ins[i - 1], *b = &p->ins[i];
	uint64_t next = a->len ? a->addr + a->len : a->addr + 15;

	return a->module != b->module || a->kind != FLOW_PLAIN || a->execs != b->execs ||
	       (a->len ? b->addr != next : b->addr > next) ||
	       is_target(targets, p->nr_in, b->module, b->addr);
}

/* The taken edges added, as block edges; the rest of each conditional
 * branch's executions, and every call's, go on to the next block. */
static void exact_edges(struct flow_graph *g, size_t *cap)
{
	struct flow_priv *p = g->priv;
	uint64_t *taken = xcalloc(g->nr_blocks + 1, sizeof(*taken));

	for (size_t k = 0; k < p->nr_in; k++) {
		const struct flow_in *e = &p->in[k];
		long s = flow_graph__block_at(g, e->module, e->from);
		long d = block_starting(g, e->module, e->to);

		if (s < 0 || d < 0 || g->blocks[s].end != e->from)
			continue;
		flow_push_edge(g, cap, (uint32_t)s, (uint32_t)d, e->count, e->mispred, true);
		taken[s] += e->count;
	}
	for (size_t b = 0; b + 1 < g->nr_blocks; b++) {
		const struct flow_last *l = &p->last[b];
		uint64_t n = l->execs;

		if (l->kind != FLOW_PLAIN && l->kind != FLOW_COND && l->kind != FLOW_CALL)
			continue;
		if (g->blocks[b + 1].module != g->blocks[b].module || g->blocks[b + 1].start != l->next)
			continue;
		if (l->kind == FLOW_COND)
			n = n > taken[b] ? n - taken[b] : 0;
		flow_push_edge(g, cap, (uint32_t)b, (uint32_t)b + 1, n, 0, false);
	}
	free(taken);
}

static void exact_blocks(struct flow_graph *g)
{
	struct flow_priv *p = g->priv;
	struct flow_in *targets = xcalloc(p->nr_in + 1, sizeof(*targets));
	size_t cap = 0, cap_e = 0;

	if (p->nr_in)
		memcpy(targets, p->in, p->nr_in * sizeof(*targets));
	gx_qsort(targets, p->nr_in, sizeof(*targets), cmp_in_to);
	gx_qsort(p->ins, p->nr_ins, sizeof(*p->ins), cmp_ins);
	for (size_t i = 0; i < p->nr_ins;) {
		const struct flow_ins *f = &p->ins[i];
		struct flow_block b = { .module = f->module, .start = f->addr, .execs = f->execs,
					.loop = -1 };
		struct flow_last l;
		size_t j = i + 1;

		while (j < p->nr_ins && !leader(p, targets, j))
			j++;
		for (size_t k = i; k < j; k++)
			b.cycles += p->ins[k].cycles;
		b.end = p->ins[j - 1].addr;
		b.insns = j - i;
		b.timed = b.cycles > 0 ? b.execs : 0;
		l = (struct flow_last){ .kind = p->ins[j - 1].kind, .execs = p->ins[j - 1].execs,
					.mispred = p->ins[j - 1].mispred,
					.next = p->ins[j - 1].addr + p->ins[j - 1].len };
		flow_push_block(g, &cap, &b, &l);
		i = j;
	}
	free(targets);
	exact_edges(g, &cap_e);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct flow_edge *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (int)x->taken - (int)y->taken;
}

/* Edges sorted, one per (src, dst, taken). */
static void merge_edges(struct flow_graph *g)
{
	size_t n = 0;

	gx_qsort(g->edges, g->nr_edges, sizeof(*g->edges), cmp_edge);
	for (size_t i = 0; i < g->nr_edges; i++) {
		if (n && !cmp_edge(&g->edges[n - 1], &g->edges[i])) {
			g->edges[n - 1].count += g->edges[i].count;
			g->edges[n - 1].mispred += g->edges[i].mispred;
		} else {
			g->edges[n++] = g->edges[i];
		}
	}
	g->nr_edges = n;
}

void flow_graph__finish(struct flow_graph *g)
{
	struct flow_priv *p = priv(g);

	if (p->exact)
		exact_blocks(g);
	merge_edges(g);
	flow_loops(g);
}

double flow_loop__trips(const struct flow_loop *l)
{
	return l->entries ? (double)l->iterations / (double)l->entries : 0;
}
