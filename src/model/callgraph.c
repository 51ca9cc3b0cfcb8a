/*
 * callgraph.c: call stacks for `record --model -g`. Callgrind counts each
 * instruction's self cost and each call's inclusive cost (its "calls="
 * lines), not stacks; a function's self cost is shared over its callers in
 * proportion to their calls' inclusive instructions, and each caller's
 * share over its own callers in turn, up to the thread's root (gprof's and
 * KCachegrind's assumption: a call costs alike from every caller). Each
 * stack becomes samples whose callchain is its call sites, so that the
 * profile's callers, call paths, inclusive totals and flame graph come
 * from them as from a native -g recording.
 */
#include "config.h"

#include "model-int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define MIN_SHARE 0.001		/* a path under it ends where it is */
#define BUDGET 20000		/* expansions a function's stacks may take */

struct graph_priv {
	struct u64map in;	/* part << 32 | fn -> first edge << 32 | end edge */
	struct u64map done;	/* part << 32 | fn -> first stack << 32 | number */
};

static int cmp_edge(const void *a, const void *b)
{
	const struct model_edge *x = a, *y = b;

	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

/* The calls, merged; a forked child's less its parent's (tasks.c). */
static void merge_edges(struct model_graph *g)
{
	const struct cg_profile *cg = g->cg;
	struct graph_priv *pv = g->priv;
	size_t n = 0;

	g->edges = xcalloc(cg->nr_calls + 1, sizeof(*g->edges));
	for (size_t i = 0; i < cg->nr_calls; i++) {
		const struct cg_call *c = &cg->calls[i];

		g->edges[i] = (struct model_edge){ c->part, c->fn, c->caller, c->obj, c->site,
						   c->incl, c->incl, c->count };
	}
	gx_qsort(g->edges, cg->nr_calls, sizeof(*g->edges), cmp_edge);
	for (size_t i = 0; i < cg->nr_calls; i++) {
		if (n && !cmp_edge(&g->edges[n - 1], &g->edges[i])) {
			g->edges[n - 1].incl += g->edges[i].incl;
			g->edges[n - 1].raw += g->edges[i].raw;
			g->edges[n - 1].count += g->edges[i].count;
		} else {
			g->edges[n++] = g->edges[i];
		}
	}
	g->nr_edges = n;
	for (size_t i = 0; i < n; i++) {
		struct model_edge *e = &g->edges[i], key = *e;
		int32_t par = e->part < g->tasks->nr ? g->tasks->parent[e->part] : -1;
		const struct model_edge *p;

		if (par < 0)
			continue;
		key.part = (uint32_t)par;
		p = bsearch(&key, g->edges, n, sizeof(*g->edges), cmp_edge);
		if (p)
			e->incl -= e->incl < p->raw ? e->incl : p->raw;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && g->edges[j].part == g->edges[i].part &&
		       g->edges[j].fn == g->edges[i].fn)
			j++;
		*u64map__findnew(&pv->in, (uint64_t)g->edges[i].part << 32 | g->edges[i].fn, 0) =
			(uint64_t)i << 32 | j;
		i = j;
	}
}

void model_graph__init(struct model_graph *g, const struct cg_profile *cg,
		       const struct model_tasks *t)
{
	struct graph_priv *pv = xzalloc(sizeof(*pv));

	memset(g, 0, sizeof(*g));
	g->cg = cg;
	g->tasks = t;
	g->priv = pv;
	u64map__init(&pv->in);
	u64map__init(&pv->done);
	merge_edges(g);
}

void model_graph__exit(struct model_graph *g)
{
	struct graph_priv *pv = g->priv;

	if (pv) {
		u64map__exit(&pv->in);
		u64map__exit(&pv->done);
		free(pv);
	}
	free(g->edges);
	free(g->frames);
	free(g->stacks);
	memset(g, 0, sizeof(*g));
}

/* One function's walk up its callers. */
struct walk {
	struct model_graph *g;
	uint32_t part;
	uint8_t *on;		/* per function: on the stack now */
	uint32_t path[MODEL_STACK_DEPTH];	/* edges, innermost first */
	uint32_t depth;
	size_t base;		/* the function's first stack */
	unsigned budget;
};

/* The path so far, a stack of weight w. */
static double emit(struct walk *x, double w)
{
	struct model_graph *g = x->g;
	struct model_stack *s;

	g->stacks = xgrow(g->stacks, &g->cap_stacks, g->nr_stacks + 1, sizeof(*g->stacks));
	g->frames = xgrow(g->frames, &g->cap_frames, g->nr_frames + x->depth + 1,
			  sizeof(*g->frames));
	s = &g->stacks[g->nr_stacks++];
	s->w = w;
	s->first = (uint32_t)g->nr_frames;
	s->depth = x->depth;
	memcpy(&g->frames[g->nr_frames], x->path, x->depth * sizeof(*x->path));
	g->nr_frames += x->depth;
	return w;
}

/* An edge's weight among fn's callers: its inclusive instructions (by
 * which, within a part, what key says). */
static double edge_weight(const struct model_edge *e, int key)
{
	return key == 0 ? (double)e->incl : key == 1 ? (double)e->raw :
	       key == 2 ? (double)e->count : 1.0;
}

/* The stacks above fn, w its share: the weight emitted as live stacks (0:
 * every path above leads back into the stack, recursion). */
static double expand(struct walk *x, uint32_t fn, double w)
{
	struct graph_priv *pv = x->g->priv;
	uint64_t *r = u64map__find(&pv->in, (uint64_t)x->part << 32 | fn);
	size_t lo = r ? (size_t)(*r >> 32) : 0, hi = r ? (size_t)(*r & 0xffffffffu) : 0;
	size_t start = x->g->nr_stacks;
	double sum[4] = { 0 }, got = 0;
	bool any = false;
	int key = 0;

	if (lo == hi)
		return emit(x, w);	/* nobody called it: a root */
	if (x->depth == MODEL_STACK_DEPTH || w < MIN_SHARE || !x->budget ||
	    start - x->base >= MODEL_STACKS)
		return emit(x, w);	/* as far as it goes */
	x->budget--;
	for (size_t e = lo; e < hi; e++) {
		const struct model_edge *ed = &x->g->edges[e];

		if (ed->caller && x->on[ed->caller - 1])
			continue;	/* recursion: the caller is on the stack already */
		any = true;
		for (int k = 0; k < 4; k++)
			sum[k] += edge_weight(ed, k);
	}
	if (!any)
		return 0;
	while (key < 3 && !(sum[key] > 0))
		key++;
	for (size_t e = lo; e < hi; e++) {
		const struct model_edge *ed = &x->g->edges[e];
		double q = edge_weight(ed, key) / sum[key];

		if ((ed->caller && x->on[ed->caller - 1]) || !(q > 0))
			continue;
		x->path[x->depth++] = (uint32_t)e;
		if (ed->caller) {
			x->on[ed->caller - 1] = 1;
			got += expand(x, ed->caller - 1, w * q);
			x->on[ed->caller - 1] = 0;
		} else {
			got += emit(x, w * q);	/* a caller callgrind did not name */
		}
		x->depth--;
	}
	/* paths that led only into recursion: the others take their share */
	if (got > 0 && got < w)
		for (size_t s = start; s < x->g->nr_stacks; s++)
			x->g->stacks[s].w *= w / got;
	return got > 0 ? w : 0;
}

const struct model_stack *model_graph__stacks(struct model_graph *g, uint32_t part, uint32_t fn,
					      size_t *n)
{
	struct graph_priv *pv = g->priv;
	uint64_t key = (uint64_t)part << 32 | fn, *d = u64map__find(&pv->done, key);
	struct walk x = { .g = g, .part = part, .base = g->nr_stacks, .budget = BUDGET };

	if (!d) {
		x.on = xcalloc(g->cg->nr_fns + 1, 1);
		if (fn < g->cg->nr_fns)
			x.on[fn] = 1;
		if (expand(&x, fn, 1.0) <= 0) {
			g->nr_stacks = x.base;	/* recursion all round: the function alone */
			x.depth = 0;
			emit(&x, 1.0);
		}
		free(x.on);
		d = u64map__findnew(&pv->done, key, 0);
		*d = (uint64_t)x.base << 32 | (g->nr_stacks - x.base);
	}
	*n = (size_t)(*d & 0xffffffffu);
	return &g->stacks[*d >> 32];
}
