/*
 * report-calltree.c: the call tree as text (`report --by calltree`, what
 * `perf report --children -g caller` prints under each entry): every
 * call path folded into one tree, root first, each node with its total
 * (itself and its callees) and self share of the sorting event, children
 * in order of their totals, nodes under the percent limit (0.5% by
 * default) left out and counted. A node is a function at one place in
 * the stacks, so a recursive function is a node per depth and nothing is
 * counted twice.
 */
#include "config.h"

#include "report-int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "result/result.h"
#include "util/util.h"

/* Children are a singly linked list per node; node 0 is the root. */
struct ct_node {
	uint32_t fn;		/* function row */
	uint32_t child, next;	/* first child, next sibling (0: none) */
	uint64_t total;		/* period with this node on the stack */
	uint64_t self;		/* period of stacks that end here */
};

struct calltree {
	struct ct_node *v;
	size_t n, cap;
};

static uint32_t ct_child(struct calltree *t, uint32_t at, uint32_t fn)
{
	uint32_t k;

	for (k = t->v[at].child; k; k = t->v[k].next)
		if (t->v[k].fn == fn)
			return k;
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	k = (uint32_t)t->n++;
	t->v[k] = (struct ct_node){ .fn = fn, .next = t->v[at].child };
	t->v[at].child = k;
	return k;
}

static int cmp_total(const void *a, const void *b, void *arg)
{
	const struct calltree *t = arg;
	uint64_t x = t->v[*(const uint32_t *)a].total, y = t->v[*(const uint32_t *)b].total;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Children of at in order of their totals: in *out (caller frees). */
static size_t ct_sorted(struct calltree *t, uint32_t at, uint32_t **out)
{
	size_t n = 0, cap = 0;
	uint32_t *v = NULL;

	for (uint32_t k = t->v[at].child; k; k = t->v[k].next) {
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = k;
	}
	if (n > 1)
		qsort_r(v, n, sizeof(*v), cmp_total, t);
	*out = v;
	return n;
}

struct ct_print {
	struct strbuf *sb;
	struct gx_result *in;
	struct calltree *t;
	uint64_t all, min;	/* the event's total; the least total shown */
	size_t hidden;		/* nodes left out under min */
};

#define CT_MAX_INDENT 32	/* deeper levels are drawn at this depth, numbered */

static void ct_print(struct ct_print *c, uint32_t at, unsigned depth)
{
	uint32_t *kids;
	size_t n = ct_sorted(c->t, at, &kids);

	for (size_t i = 0; i < n; i++) {
		const struct ct_node *nd = &c->t->v[kids[i]];
		const struct profile_row *f = profile__row(gx_result__profile(c->in),
							   PROFILE_BY_FUNCTION, nd->fn);
		unsigned ind = depth < CT_MAX_INDENT ? depth : CT_MAX_INDENT;

		if (nd->total < c->min) {
			c->hidden++;
			continue;
		}
		strbuf__addf(c->sb, "  %5.1f%%  %5.1f%%  %*s", 100.0 * (double)nd->total /
			     (double)c->all, 100.0 * (double)nd->self / (double)c->all, (int)(2 * ind),
			     "");
		if (depth > CT_MAX_INDENT)
			strbuf__addf(c->sb, "[%u] ", depth);
		strbuf__addf(c->sb, "%s (%s)\n", f ? gx_esc(f->name) : "?",
			     f ? gx_esc(report__base(f->module)) : "?");
		ct_print(c, kids[i], depth + 1);
	}
	free(kids);
}

void report__text_calltree(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	struct profile *p = gx_result__profile(in);
	size_t nr, e = o->sort_event;
	const struct profile_row *const *rows;
	struct calltree t = { 0 };
	struct ct_print c = { .sb = sb, .in = in, .t = &t };
	double lim = o->percent_limit > 0 ? o->percent_limit : 0.5;

	strbuf__addf(sb, "\nCall tree (by %s; root first; total: with its callees; below %.1f%% "
		     "left out)\n", gx_esc(report__event_name(in, e)), lim);
	if (!profile__has_callchains(p)) {
		strbuf__addstr(sb, "  (no call stacks: record with -g or --call-graph dwarf)\n");
		return;
	}
	rows = profile__sort(p, PROFILE_BY_CALLPATH, e, PROFILE_SORT_SELF, &nr);
	t.v = xgrow(NULL, &t.cap, 1, sizeof(*t.v));
	t.v[0] = (struct ct_node){ 0 };
	t.n = 1;
	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];
		uint64_t v = r->period[e];
		uint32_t at = 0;

		if (!v || !r->path_len)
			continue;
		for (uint32_t k = 0; k < r->path_len; k++) {
			at = ct_child(&t, at, r->path[k]);
			t.v[at].total += v;
		}
		t.v[at].self += v;
		t.v[0].total += v;
	}
	c.all = t.v[0].total;
	c.min = (uint64_t)((double)c.all * lim / 100.0);
	if (c.min < 1)
		c.min = 1;
	strbuf__addstr(sb, "   total    self  function (module)\n");
	if (c.all)
		ct_print(&c, 0, 0);
	else
		strbuf__addstr(sb, "  (no samples)\n");
	if (c.hidden)
		strbuf__addf(sb, "  (%zu call%s below %.1f%% left out; --percent-limit P shows more)\n",
			     c.hidden, c.hidden == 1 ? "" : "s", lim);
	free(t.v);
}
