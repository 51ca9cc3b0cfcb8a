/*
 * blocks.c: basic blocks from branch stacks' ranges and branches
 * (flow_graph__from_stacks; see flow.h). A block begins where a range or
 * a branch begins, or after a branch (its length decoded by the caller),
 * and ends at a branch or before the next block; its executions are the
 * ranges over its first byte; a range over two neighbours went on from
 * one to the other.
 */
#include "config.h"

#include "flow.h"

#include <stdlib.h>
#include <string.h>

#include "flow-int.h"
#include "util/util.h"

struct point {
	uint64_t addr;
	uint8_t kind;		/* ends: the branch's kind */
	uint32_t len;		/* ends: its length, 0: unknown */
};

struct pts {
	struct point *v;
	size_t n, cap;
};

static void pts_add(struct pts *p, uint64_t addr)
{
	p->v = xgrow(p->v, &p->cap, p->n + 1, sizeof(*p->v));
	p->v[p->n++] = (struct point){ .addr = addr };
}

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void pts_uniq(struct pts *p)
{
	size_t n = 0;

	gx_qsort(p->v, p->n, sizeof(*p->v), cmp_point);
	for (size_t i = 0; i < p->n; i++)
		if (!n || p->v[n - 1].addr != p->v[i].addr)
			p->v[n++] = p->v[i];
	p->n = n;
}

/* The first index of v[0 .. n) with addr >= a. */
static size_t lower(const struct point *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first index of v[0 .. n) with addr > a. */
static size_t upper(const struct point *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct mod_in {
	uint32_t module;
	const struct flow_range *r;
	size_t nr;
	const struct flow_branch *b;
	size_t nb;
};

/* The blocks of one module from its starts and ends: their executions,
 * cycles and the ranges' way on (pair[k]: ranges over k and k + 1). */
static void module_blocks(struct flow_graph *g, const struct mod_in *m, const struct pts *st,
			  const struct pts *en, size_t *cap, uint64_t **pair)
{
	size_t b0 = g->nr_blocks, nb = st->n;
	int64_t *dx = xcalloc(nb + 2, sizeof(*dx)), *dp = xcalloc(nb + 2, sizeof(*dp));
	double *cyc = xcalloc(nb + 1, sizeof(*cyc));
	int64_t *tm = xcalloc(nb + 2, sizeof(*tm));
	int64_t run = 0, prun = 0, trun = 0;

	for (size_t k = 0; k < nb; k++) {
		struct flow_block b = { .module = m->module, .start = st->v[k].addr, .loop = -1 };
		size_t e = lower(en->v, en->n, b.start);
		uint64_t next = k + 1 < nb ? st->v[k + 1].addr : UINT64_MAX;
		struct flow_last l = { .kind = FLOW_PLAIN, .next = next };

		if (e < en->n && en->v[e].addr < next) {
			b.end = en->v[e].addr;
			l.kind = en->v[e].kind;
			l.next = en->v[e].len ? b.end + en->v[e].len : 0;
		} else {
			b.end = next == UINT64_MAX ? b.start : next - 1;
		}
		flow_push_block(g, cap, &b, &l);
	}
	for (size_t i = 0; i < m->nr; i++) {
		const struct flow_range *r = &m->r[i];
		size_t lo = lower(st->v, nb, r->start), hi = upper(st->v, nb, r->end);
		double bytes = 0;

		if (lo >= hi)
			continue;
		dx[lo] += (int64_t)r->count, dx[hi] -= (int64_t)r->count;
		dp[lo] += (int64_t)r->count, dp[hi - 1] -= (int64_t)r->count;
		if (!r->timed)
			continue;
		tm[lo] += (int64_t)r->timed, tm[hi] -= (int64_t)r->timed;
		for (size_t k = lo; k < hi; k++) {
			const struct flow_block *b = &g->blocks[b0 + k];

			bytes += (double)((b->end < r->end ? b->end : r->end) - b->start + 1);
		}
		for (size_t k = lo; k < hi; k++) {
			const struct flow_block *b = &g->blocks[b0 + k];
			double w = (double)((b->end < r->end ? b->end : r->end) - b->start + 1);

			cyc[k] += (double)r->cycles * w / bytes;
		}
	}
	*pair = xcalloc(nb + 1, sizeof(**pair));
	for (size_t k = 0; k < nb; k++) {
		struct flow_block *b = &g->blocks[b0 + k];

		run += dx[k], prun += dp[k], trun += tm[k];
		b->execs = run > 0 ? (uint64_t)run : 0;
		b->timed = trun > 0 ? (uint64_t)trun : 0;
		b->cycles = cyc[k];
		(*pair)[k] = prun > 0 ? (uint64_t)prun : 0;
	}
	free(dx), free(dp), free(cyc), free(tm);
}

/* The module's taken edges, its ways on, and a call's way back. */
static void module_edges(struct flow_graph *g, const struct mod_in *m, size_t b0,
			 const uint64_t *pair, size_t *cap)
{
	struct flow_priv *p = g->priv;
	uint64_t *calls = xcalloc(g->nr_blocks - b0 + 1, sizeof(*calls));

	for (size_t i = 0; i < m->nb; i++) {
		const struct flow_branch *br = &m->b[i];
		long s = flow_graph__block_at(g, m->module, br->from);
		long d = flow_graph__block_at(g, m->module, br->to);

		if (s < 0 || d < 0 || g->blocks[s].end != br->from || g->blocks[d].start != br->to)
			continue;
		flow_push_edge(g, cap, (uint32_t)s, (uint32_t)d, br->paired, br->paired_mispred,
			       true);
		if (p->last[s].kind == FLOW_CALL)
			calls[(size_t)s - b0] += br->paired;
	}
	for (size_t b = b0; b + 1 < g->nr_blocks; b++) {
		flow_push_edge(g, cap, (uint32_t)b, (uint32_t)b + 1, pair[b - b0], 0, false);
		if (p->last[b].kind == FLOW_CALL && p->last[b].next == g->blocks[b + 1].start)
			flow_push_edge(g, cap, (uint32_t)b, (uint32_t)b + 1, calls[b - b0], 0, false);
	}
	free(calls);
}

void flow_graph__from_stacks(struct flow_graph *g, const struct flow_stacks *fs,
			     size_t (*len)(void *ctx, uint32_t module, uint64_t addr,
					   enum flow_kind *kind),
			     void *ctx)
{
	size_t nr, nb, i = 0, j = 0, cap = 0, cap_e = 0;
	const struct flow_range *r = flow_stacks__ranges(fs, &nr);
	const struct flow_branch *br = flow_stacks__branches(fs, &nb);

	if (!g->priv)
		g->priv = xcalloc(1, sizeof(struct flow_priv));
	while (i < nr || j < nb) {
		uint32_t mod = i < nr && (j >= nb || r[i].module <= br[j].module) ? r[i].module :
										      br[j].module;
		struct mod_in m = { .module = mod, .r = r + i, .b = br + j };
		struct pts st = { 0 }, en = { 0 };
		size_t b0 = g->nr_blocks;
		uint64_t *pair = NULL;

		while (i + m.nr < nr && r[i + m.nr].module == mod)
			m.nr++;
		while (j + m.nb < nb && br[j + m.nb].module == mod)
			m.nb++;
		for (size_t k = 0; k < m.nr; k++)
			pts_add(&st, m.r[k].start), pts_add(&en, m.r[k].end);
		for (size_t k = 0; k < m.nb; k++)
			pts_add(&st, m.b[k].to), pts_add(&en, m.b[k].from);
		pts_uniq(&en);
		for (size_t k = 0; k < en.n; k++) {
			enum flow_kind kind = FLOW_PLAIN;
			size_t l = len ? len(ctx, mod, en.v[k].addr, &kind) : 0;

			en.v[k].kind = (uint8_t)kind;
			en.v[k].len = (uint32_t)l;
			if (l)
				pts_add(&st, en.v[k].addr + l);
		}
		pts_uniq(&st);
		module_blocks(g, &m, &st, &en, &cap, &pair);
		module_edges(g, &m, b0, pair, &cap_e);
		free(pair), free(st.v), free(en.v);
		i += m.nr, j += m.nb;
	}
}
