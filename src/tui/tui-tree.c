/*
 * tui-tree.c: trees of call paths for the call tree, flame and
 * callers/callees views — built from the model's paths (the profile's
 * PROFILE_BY_CALLPATH rows, what `report --folded` prints), one node per
 * distinct prefix, with the self and total period of the clock event.
 * Children are found through a hash while building, then linked hottest
 * first.
 */
#include "config.h"

#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

void tui_tree__init(struct tui_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 64;
	t->n = xcalloc(t->cap, sizeof(*t->n));
	t->nr = 1;
	t->n[0] = (struct tui_tnode){ .func = TUI_TNODE_COMM, .comm = "all", .parent = -1,
				       .first = -1, .next = -1 };
}

void tui_tree__exit(struct tui_tree *t)
{
	free(t->n);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

static uint64_t key_hash(int32_t parent, uint32_t func, const char *comm)
{
	uint64_t h = (uint64_t)(uint32_t)parent * 0x9e3779b97f4a7c15ull ^ func;

	for (const char *c = comm; c && *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static void rehash(struct tui_tree *t)
{
	size_t cap = t->hash_cap ? 2 * t->hash_cap : 1024;

	free(t->hash);
	t->hash = xmalloc(cap * sizeof(*t->hash));
	memset(t->hash, 0xff, cap * sizeof(*t->hash));
	t->hash_cap = cap;
	for (size_t i = 1; i < t->nr; i++) {
		const struct tui_tnode *x = &t->n[i];
		size_t h = key_hash(x->parent, x->func, x->comm) & (cap - 1);

		while (t->hash[h] >= 0)
			h = (h + 1) & (cap - 1);
		t->hash[h] = (int32_t)i;
	}
}

static bool same_comm(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The child of parent for (func, comm), made when new. */
static int32_t child(struct tui_tree *t, int32_t parent, uint32_t func, const char *comm)
{
	size_t h;

	if (2 * (t->nr + 1) > t->hash_cap)
		rehash(t);
	h = key_hash(parent, func, comm) & (t->hash_cap - 1);
	while (t->hash[h] >= 0) {
		const struct tui_tnode *x = &t->n[t->hash[h]];

		if (x->parent == parent && x->func == func && same_comm(x->comm, comm))
			return t->hash[h];
		h = (h + 1) & (t->hash_cap - 1);
	}
	t->n = xgrow(t->n, &t->cap, t->nr + 1, sizeof(*t->n));
	t->n[t->nr] = (struct tui_tnode){ .func = func, .comm = comm, .parent = parent,
					   .first = -1, .next = -1,
					   .depth = parent > 0 ? t->n[parent].depth + 1 : 0 };
	t->n[parent].nr_children++;
	t->hash[h] = (int32_t)t->nr;
	return (int32_t)t->nr++;
}

void tui_tree__add(struct tui_tree *t, int32_t under, const char *comm, const uint32_t *funcs,
		   size_t n, int step, double w, double self_last, double self_each)
{
	int32_t at = under;

	for (int32_t up = under; up >= 0; up = t->n[up].parent)
		t->n[up].total += w;
	if (comm) {
		at = child(t, at, TUI_TNODE_COMM, comm);
		t->n[at].total += w;
		t->n[at].self += self_each;
	}
	for (size_t i = 0; i < n; i++) {
		ptrdiff_t ix = step > 0 ? (ptrdiff_t)i : -(ptrdiff_t)i;

		at = child(t, at, funcs[ix], NULL);
		t->n[at].total += w;
		t->n[at].self += self_each;
	}
	t->n[at].self += self_last;
}

static const struct tui_tree *sort_tree_;	/* qsort has no context argument */

static int cmp_hot(const void *a, const void *b)
{
	const struct tui_tnode *x = &sort_tree_->n[*(const int32_t *)a],
			       *y = &sort_tree_->n[*(const int32_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b);
}

void tui_tree__finish(struct tui_tree *t)
{
	int32_t *order = xcalloc(t->nr + 1, sizeof(*order));
	size_t k = 0;

	free(t->hash);
	t->hash = NULL;
	t->hash_cap = 0;
	/* Nodes by (parent, heat): each parent's children end up contiguous,
	 * hottest first; link them in that order. */
	for (size_t i = 1; i < t->nr; i++)
		order[k++] = (int32_t)i;
	sort_tree_ = t;
	gx_qsort(order, k, sizeof(*order), cmp_hot);
	sort_tree_ = NULL;
	for (size_t i = 0; i < t->nr; i++)
		t->n[i].first = -1;
	/* hottest first: link from the coldest so each insert goes to the front */
	for (size_t i = k; i-- > 0;) {
		struct tui_tnode *x = &t->n[order[i]];

		x->next = t->n[x->parent].first;
		t->n[x->parent].first = order[i];
	}
	free(order);
}

void tui_tree__flatten(const struct tui_tree *t, int32_t parent, const bool *open,
		       int32_t **rows, size_t *nr, size_t *cap)
{
	/* iterative: call trees can be deeper than the C stack likes */
	int32_t at = t->n[parent].first;

	while (at >= 0) {
		*rows = xgrow(*rows, cap, *nr + 1, sizeof(**rows));
		(*rows)[(*nr)++] = at;
		if (open && open[at] && t->n[at].first >= 0) {
			at = t->n[at].first;
			continue;
		}
		while (at >= 0 && t->n[at].next < 0) {
			at = t->n[at].parent;
			if (at == parent)
				return;
		}
		if (at >= 0)
			at = t->n[at].next;
	}
}

const struct tui_tree *tui_model__calltree(struct tui_model *m)
{
	if (m->calltree)
		return m->calltree;
	m->calltree = xzalloc(sizeof(*m->calltree));
	tui_tree__init(m->calltree);
	for (size_t i = 0; i < m->nr_paths; i++) {
		const struct tui_path *p = &m->paths[i];

		tui_tree__add(m->calltree, 0, p->comm, p->func, p->len, 1, p->period, p->period, 0);
	}
	tui_tree__finish(m->calltree);
	return m->calltree;
}

void tui_model__call_graph(struct tui_model *m, size_t f, bool callers, struct tui_tree *out)
{
	int32_t top;

	tui_tree__init(out);
	/* node 1: the function itself */
	tui_tree__add(out, 0, NULL, (const uint32_t[]){ (uint32_t)f }, 1, 1, 0, 0, 0);
	top = 1;
	for (size_t i = 0; i < m->nr_paths; i++) {
		const struct tui_path *p = &m->paths[i];
		size_t k;

		if (callers) {
			double leaf;

			/* the leaf-most occurrence, then its callers up to the root */
			for (k = p->len; k-- > 0 && p->func[k] != f;)
				;
			if (k == (size_t)-1)
				continue;
			/* self: the function's own time that came this way */
			leaf = k + 1 == p->len ? p->period : 0;
			tui_tree__add(out, top, NULL, k ? p->func + k - 1 : p->func, k, -1, p->period,
				      0, leaf);
			out->n[top].self += leaf;
		} else {
			/* the root-most occurrence, then what it calls */
			for (k = 0; k < p->len && p->func[k] != f; k++)
				;
			if (k == p->len)
				continue;
			tui_tree__add(out, top, NULL, p->func + k + 1, p->len - k - 1, 1, p->period,
				      p->period, 0);
		}
	}
	tui_tree__finish(out);
}
