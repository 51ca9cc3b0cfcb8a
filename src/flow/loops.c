/*
 * loops.c: natural loops. The graph of a function's own edges (every
 * edge but a call's and a return's) gets a root before the blocks that
 * are entered from elsewhere: a call's target, a block nobody in the
 * graph goes to, and, from exact counts, a block that ran more often than
 * its edges into it say. Dominators by Cooper, Harvey and Kennedy's
 * iteration over reverse postorder; an edge to a block that dominates its
 * source is a back edge, and the blocks that reach it without passing
 * that header are its loop (one loop per header).
 */
#include "config.h"

#include "flow.h"

#include <stdlib.h>
#include <string.h>

#include "flow-int.h"
#include "util/util.h"

struct lgraph {
	size_t n;			/* blocks; n is the root */
	size_t *so, *po;		/* CSR offsets: successors, predecessors */
	uint32_t *succ, *pred;		/* edge indices */
	uint32_t *rpo, *order;		/* rpo[i]: node; order[node]: its number, UINT32_MAX: unreached */
	uint32_t *idom;
	uint32_t *pre, *post;		/* the dominator tree's numbering (dom_tree) */
	uint32_t *roots;
	bool *is_root;
	uint32_t *cand;			/* blocks that ran, likeliest entries first */
	double *excess;			/* per block: executions less edges in */
	size_t nr_roots, nr_rpo, nr_cand;
};

static bool inter(const struct flow_graph *g, const struct flow_edge *e)
{
	const struct flow_priv *p = g->priv;
	uint8_t k = p->last[e->src].kind;

	return e->taken && (k == FLOW_CALL || k == FLOW_RET);
}

static bool intra(const struct flow_graph *g, const struct flow_edge *e)
{
	return e->count && !inter(g, e);
}

static void build_csr(const struct flow_graph *g, struct lgraph *lg)
{
	size_t n = g->nr_blocks;
	size_t *fs = xcalloc(n + 2, sizeof(*fs)), *fp = xcalloc(n + 2, sizeof(*fp));

	lg->n = n;
	lg->so = xcalloc(n + 2, sizeof(*lg->so));
	lg->po = xcalloc(n + 2, sizeof(*lg->po));
	for (size_t i = 0; i < g->nr_edges; i++)
		if (intra(g, &g->edges[i]))
			lg->so[g->edges[i].src + 1]++, lg->po[g->edges[i].dst + 1]++;
	for (size_t k = 0; k < n; k++)
		lg->so[k + 1] += lg->so[k], lg->po[k + 1] += lg->po[k];
	lg->succ = xcalloc(lg->so[n] + 1, sizeof(*lg->succ));
	lg->pred = xcalloc(lg->po[n] + 1, sizeof(*lg->pred));
	memcpy(fs, lg->so, (n + 1) * sizeof(*fs));
	memcpy(fp, lg->po, (n + 1) * sizeof(*fp));
	for (size_t i = 0; i < g->nr_edges; i++)
		if (intra(g, &g->edges[i])) {
			lg->succ[fs[g->edges[i].src]++] = (uint32_t)i;
			lg->pred[fp[g->edges[i].dst]++] = (uint32_t)i;
		}
	free(fs), free(fp);
}

/* Blocks entered from outside their function's graph; then, for what
 * they do not reach, candidates: the blocks run more often than their
 * edges into them say by most first (sampled edges miss some). */
static void find_roots(const struct flow_graph *g, struct lgraph *lg)
{
	const struct flow_priv *p = g->priv;
	uint64_t *in = xcalloc(lg->n + 1, sizeof(*in));
	bool *called = xcalloc(lg->n + 1, sizeof(*called));

	for (size_t i = 0; i < g->nr_edges; i++) {
		const struct flow_edge *e = &g->edges[i];

		if (intra(g, e))
			in[e->dst] += e->count;
		else if (e->count && p->last[e->src].kind == FLOW_CALL)
			called[e->dst] = true;
	}
	lg->roots = xcalloc(lg->n + 1, sizeof(*lg->roots));
	lg->is_root = xcalloc(lg->n + 1, sizeof(*lg->is_root));
	lg->cand = xcalloc(lg->n + 1, sizeof(*lg->cand));
	lg->excess = xcalloc(lg->n + 1, sizeof(*lg->excess));
	for (size_t b = 0; b < lg->n; b++) {
		if (!g->blocks[b].execs)
			continue;
		lg->excess[b] = (double)g->blocks[b].execs - (double)in[b];
		lg->cand[lg->nr_cand++] = (uint32_t)b;
		if (called[b] || !in[b] || (p->exact && g->blocks[b].execs > in[b])) {
			lg->roots[lg->nr_roots++] = (uint32_t)b;
			lg->is_root[b] = true;
		}
	}
	free(in), free(called);
}

static const double *excess_sort;

static int cmp_excess(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (excess_sort[x] != excess_sort[y])
		return excess_sort[x] > excess_sort[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Reverse postorder from the root (an explicit stack: graphs are deep);
 * a block the roots do not reach becomes a root, the likeliest entry
 * first. */
static void number(const struct flow_graph *g, struct lgraph *lg)
{
	size_t n = lg->n, sp = 0, post = 0, c = 0;
	uint32_t *stack = xcalloc(n + 2, sizeof(*stack));
	size_t *next = xcalloc(n + 2, sizeof(*next));
	uint32_t *postv = xcalloc(n + 2, sizeof(*postv));
	bool *seen = xcalloc(n + 2, sizeof(*seen));

	excess_sort = lg->excess;
	gx_qsort(lg->cand, lg->nr_cand, sizeof(*lg->cand), cmp_excess);
	stack[sp++] = (uint32_t)n;
	seen[n] = true;
	while (sp) {
		uint32_t v = stack[sp - 1];
		size_t deg = v == n ? lg->nr_roots : lg->so[v + 1] - lg->so[v];

		if (v == n && next[v] == deg) {
			while (c < lg->nr_cand && seen[lg->cand[c]])
				c++;
			if (c < lg->nr_cand) {
				lg->roots[lg->nr_roots++] = lg->cand[c];
				lg->is_root[lg->cand[c]] = true;
				deg++;
			}
		}
		if (next[v] < deg) {
			uint32_t w = v == n ? lg->roots[next[v]] :
					      g->edges[lg->succ[lg->so[v] + next[v]]].dst;

			next[v]++;
			if (!seen[w]) {
				seen[w] = true;
				stack[sp++] = w;
			}
			continue;
		}
		postv[post++] = v;
		sp--;
	}
	lg->rpo = xcalloc(post + 1, sizeof(*lg->rpo));
	lg->order = xcalloc(n + 2, sizeof(*lg->order));
	for (size_t k = 0; k <= n; k++)
		lg->order[k] = UINT32_MAX;
	for (size_t k = 0; k < post; k++) {
		lg->rpo[k] = postv[post - 1 - k];
		lg->order[lg->rpo[k]] = (uint32_t)k;
	}
	lg->nr_rpo = post;
	free(stack), free(next), free(postv), free(seen);
}

static uint32_t intersect(const struct lgraph *lg, uint32_t a, uint32_t b)
{
	while (a != b) {
		while (lg->order[a] > lg->order[b])
			a = lg->idom[a];
		while (lg->order[b] > lg->order[a])
			b = lg->idom[b];
	}
	return a;
}

static void dominators(const struct flow_graph *g, struct lgraph *lg)
{
	size_t n = lg->n;
	bool changed = true;

	lg->idom = xcalloc(n + 2, sizeof(*lg->idom));
	for (size_t k = 0; k <= n; k++)
		lg->idom[k] = UINT32_MAX;
	lg->idom[n] = (uint32_t)n;
	while (changed) {
		changed = false;
		for (size_t k = 1; k < lg->nr_rpo; k++) {
			uint32_t v = lg->rpo[k], nd = lg->is_root[v] ? (uint32_t)n : UINT32_MAX;

			for (size_t q = lg->po[v]; q < lg->po[v + 1]; q++) {
				uint32_t u = g->edges[lg->pred[q]].src;

				if (lg->idom[u] == UINT32_MAX)
					continue;
				nd = nd == UINT32_MAX ? u : intersect(lg, u, nd);
			}
			if (nd != UINT32_MAX && lg->idom[v] != nd) {
				lg->idom[v] = nd;
				changed = true;
			}
		}
	}
}

/* The dominator tree numbered in preorder and postorder: h dominates t
 * when t's interval lies in h's (a question in constant time). */
static void dom_tree(struct lgraph *lg)
{
	size_t n = lg->n, *off = xcalloc(n + 3, sizeof(*off)), *fill, sp = 0;
	uint32_t *kids, *stack = xcalloc(n + 2, sizeof(*stack)), clock = 0;
	size_t *next = xcalloc(n + 2, sizeof(*next));

	for (size_t v = 0; v < n; v++)
		if (lg->idom[v] != UINT32_MAX)
			off[lg->idom[v] + 1]++;
	for (size_t v = 0; v <= n; v++)
		off[v + 1] += off[v];
	kids = xcalloc(off[n + 1] + 1, sizeof(*kids));
	fill = xcalloc(n + 2, sizeof(*fill));
	memcpy(fill, off, (n + 1) * sizeof(*fill));
	for (size_t v = 0; v < n; v++)
		if (lg->idom[v] != UINT32_MAX)
			kids[fill[lg->idom[v]]++] = (uint32_t)v;
	lg->pre = xcalloc(n + 2, sizeof(*lg->pre));
	lg->post = xcalloc(n + 2, sizeof(*lg->post));
	stack[sp++] = (uint32_t)n;
	lg->pre[n] = clock++;
	while (sp) {
		uint32_t v = stack[sp - 1];

		if (off[v] + next[v] < off[v + 1]) {
			uint32_t w = kids[off[v] + next[v]++];

			lg->pre[w] = clock++;
			stack[sp++] = w;
		} else {
			lg->post[v] = clock++;
			sp--;
		}
	}
	free(off), free(fill), free(kids), free(stack), free(next);
}

static bool dominates(const struct lgraph *lg, uint32_t h, uint32_t t)
{
	if (lg->order[t] == UINT32_MAX || lg->order[h] == UINT32_MAX)
		return false;
	return lg->pre[h] <= lg->pre[t] && lg->post[t] <= lg->post[h];
}

struct body {
	uint32_t head;
	uint32_t *v;
	size_t n;
};

/* Header h's loop: h and what reaches one of its back edges' sources. */
static void loop_body(const struct flow_graph *g, const struct lgraph *lg, uint32_t h,
		      uint32_t *mark, uint32_t stamp, struct body *b)
{
	size_t cap = 0, k = 0;

	b->head = h;
	b->v = xgrow(NULL, &cap, 1, sizeof(*b->v));
	b->v[b->n++] = h;
	mark[h] = stamp;
	for (size_t q = lg->po[h]; q < lg->po[h + 1]; q++) {
		uint32_t t = g->edges[lg->pred[q]].src;

		if (mark[t] != stamp && dominates(lg, h, t)) {
			mark[t] = stamp;
			b->v = xgrow(b->v, &cap, b->n + 1, sizeof(*b->v));
			b->v[b->n++] = t;
		}
	}
	for (k = 1; k < b->n; k++) {
		uint32_t v = b->v[k];

		for (size_t q = lg->po[v]; q < lg->po[v + 1]; q++) {
			uint32_t u = g->edges[lg->pred[q]].src;

			if (mark[u] == stamp || lg->order[u] == UINT32_MAX)
				continue;
			mark[u] = stamp;
			b->v = xgrow(b->v, &cap, b->n + 1, sizeof(*b->v));
			b->v[b->n++] = u;
		}
	}
}

/* Every edge by its source and by its target (edges are sorted by
 * source): a loop's counts read its own edges only. */
struct eidx {
	size_t *out;		/* [n + 1]: edges[out[b] .. out[b + 1]) leave b */
	size_t *in_off;		/* [n + 1]: in_e[in_off[b] .. in_off[b + 1]) enter b */
	uint32_t *in_e;
};

static void eidx_build(const struct flow_graph *g, struct eidx *x)
{
	size_t n = g->nr_blocks, *fill = xcalloc(n + 2, sizeof(*fill));

	x->out = xcalloc(n + 2, sizeof(*x->out));
	x->in_off = xcalloc(n + 2, sizeof(*x->in_off));
	x->in_e = xcalloc(g->nr_edges + 1, sizeof(*x->in_e));
	for (size_t i = 0; i < g->nr_edges; i++)
		x->out[g->edges[i].src + 1]++, x->in_off[g->edges[i].dst + 1]++;
	for (size_t b = 0; b < n; b++)
		x->out[b + 1] += x->out[b], x->in_off[b + 1] += x->in_off[b];
	memcpy(fill, x->in_off, (n + 1) * sizeof(*fill));
	for (size_t i = 0; i < g->nr_edges; i++)
		x->in_e[fill[g->edges[i].dst]++] = (uint32_t)i;
	free(fill);
}

static void eidx_free(struct eidx *x)
{
	free(x->out), free(x->in_off), free(x->in_e);
}

/* Entries, iterations, exits and cycles of the loop whose blocks are
 * marked in. */
static void loop_counts(const struct flow_graph *g, const struct eidx *x, const struct body *b,
			const bool *in, struct flow_loop *l)
{
	const struct flow_priv *p = g->priv;
	uint64_t back = 0, into = 0, all_in = 0;

	l->module = g->blocks[b->head].module;
	l->head = b->head;
	l->nr_blocks = (uint32_t)b->n;
	l->parent = -1;
	for (size_t k = x->in_off[b->head]; k < x->in_off[b->head + 1]; k++) {
		const struct flow_edge *e = &g->edges[x->in_e[k]];

		all_in += e->count;
		if (in[e->src] && intra(g, e))
			back += e->count;
		else if (!in[e->src] && (intra(g, e) || p->last[e->src].kind == FLOW_CALL))
			into += e->count;
	}
	for (size_t v = 0; v < b->n; v++)
		for (size_t k = x->out[b->v[v]]; k < x->out[b->v[v] + 1]; k++) {
			const struct flow_edge *e = &g->edges[k];

			if (in[e->dst] || !intra(g, e))
				continue;
			l->exits += e->count;
			l->exit_mispred += e->taken ? e->mispred :
				p->exact && p->last[e->src].kind == FLOW_COND ? p->last[e->src].mispred : 0;
		}
	if (p->exact && g->blocks[b->head].execs > all_in)
		into += g->blocks[b->head].execs - all_in;	/* called: no edge added */
	l->entries = into;
	l->iterations = into + back;
	for (size_t k = 0; k < b->n; k++) {
		const struct flow_block *blk = &g->blocks[b->v[k]];

		if (blk->timed)
			l->cycles += blk->cycles / (double)blk->timed * (double)blk->execs;
	}
}

static int cmp_body_size(const void *a, const void *b)
{
	const struct body *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n;
}

static int cmp_loop_iter(const void *a, const void *b)
{
	const struct flow_loop *x = a, *y = b;

	if (x->iterations != y->iterations)
		return x->iterations > y->iterations ? -1 : 1;
	return x->head < y->head ? -1 : x->head > y->head;
}

/* Loops into g, each block's innermost and each loop's parent (the
 * smallest other loop that holds its header): bodies smallest first. */
static void place_loops(struct flow_graph *g, struct body *bs, size_t nb)
{
	bool *in = xcalloc(g->nr_blocks + 1, sizeof(*in));
	int32_t *head_of = xcalloc(g->nr_blocks + 1, sizeof(*head_of));
	uint32_t *perm;
	struct eidx x;

	gx_qsort(bs, nb, sizeof(*bs), cmp_body_size);
	eidx_build(g, &x);
	g->loops = xcalloc(nb + 1, sizeof(*g->loops));
	g->nr_loops = nb;
	for (size_t b = 0; b < g->nr_blocks; b++)
		head_of[b] = -1;
	for (size_t i = 0; i < nb; i++)
		head_of[bs[i].head] = (int32_t)i;
	for (size_t i = 0; i < nb; i++) {
		for (size_t k = 0; k < bs[i].n; k++)
			in[bs[i].v[k]] = true;
		loop_counts(g, &x, &bs[i], in, &g->loops[i]);
		for (size_t k = 0; k < bs[i].n; k++) {
			uint32_t v = bs[i].v[k];
			int32_t l = head_of[v];

			in[v] = false;
			if (g->blocks[v].loop < 0)
				g->blocks[v].loop = (int32_t)i;
			if (l >= 0 && (size_t)l != i && g->loops[l].parent < 0 && bs[l].n < bs[i].n)
				g->loops[l].parent = (int32_t)i;
		}
	}
	/* hottest first: renumber parents and blocks' loops */
	for (size_t i = 0; i < nb; i++)
		g->loops[i].depth = (uint32_t)i;	/* its old number, for the map */
	gx_qsort(g->loops, nb, sizeof(*g->loops), cmp_loop_iter);
	perm = xcalloc(nb + 1, sizeof(*perm));
	for (size_t i = 0; i < nb; i++)
		perm[g->loops[i].depth] = (uint32_t)i;
	for (size_t i = 0; i < nb; i++)
		if (g->loops[i].parent >= 0)
			g->loops[i].parent = (int32_t)perm[g->loops[i].parent];
	for (size_t b = 0; b < g->nr_blocks; b++)
		if (g->blocks[b].loop >= 0)
			g->blocks[b].loop = (int32_t)perm[g->blocks[b].loop];
	for (size_t i = 0; i < nb; i++) {
		uint32_t d = 1;

		for (int32_t q = g->loops[i].parent; q >= 0 && d <= nb; q = g->loops[q].parent)
			d++;
		g->loops[i].depth = d;
	}
	free(perm), free(in), free(head_of);
	eidx_free(&x);
}

void flow_loops(struct flow_graph *g)
{
	struct lgraph lg = { 0 };
	uint32_t *mark;
	struct body *bs = NULL;
	size_t nb = 0, cap = 0;

	if (!g->nr_blocks)
		return;
	build_csr(g, &lg);
	find_roots(g, &lg);
	number(g, &lg);
	dominators(g, &lg);
	dom_tree(&lg);
	mark = xcalloc(lg.n + 2, sizeof(*mark));
	for (size_t k = 0; k < lg.nr_rpo; k++) {
		uint32_t h = lg.rpo[k];
		bool header = false;

		if (h == lg.n)
			continue;
		for (size_t q = lg.po[h]; q < lg.po[h + 1] && !header; q++)
			header = dominates(&lg, h, g->edges[lg.pred[q]].src);
		if (!header)
			continue;
		bs = xgrow(bs, &cap, nb + 1, sizeof(*bs));
		memset(&bs[nb], 0, sizeof(*bs));
		loop_body(g, &lg, h, mark, (uint32_t)nb + 1, &bs[nb]);
		nb++;
	}
	place_loops(g, bs, nb);
	for (size_t i = 0; i < nb; i++)
		free(bs[i].v);
	free(bs), free(mark);
	free(lg.so), free(lg.po), free(lg.succ), free(lg.pred), free(lg.rpo), free(lg.order);
	free(lg.idom), free(lg.pre), free(lg.post), free(lg.roots), free(lg.is_root), free(lg.cand), free(lg.excess);
}
