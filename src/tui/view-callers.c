/*
 * view-callers.c: who calls the selected function and what it calls, to
 * any depth — two trees from the call paths of the profile: its callers
 * (the caller's callers below them, with the function's own time that
 * came that way as self) and its callees (what they call in turn), each
 * node with its share of the run. Right/Left open and close, + and - a
 * whole subtree; Enter opens the source of the function under the cursor;
 * c re-centres this view on it.
 */
#include "config.h"

#include "tui-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct callers_view {
	struct tui_view v;
	size_t func;
	struct tui_tree tree[2];	/* callers, callees */
	struct tui_treelist l[2];
	char status[256];
};

static const struct tui_key_help callers_help[] = {
	{ "Up/Down j/k", "move the cursor" },
	{ "PgUp/PgDn Home/End", "page, first/last entry" },
	{ "Right Left", "open, close (deeper callers, or callees)" },
	{ "+ -", "open, close everything below" },
	{ "H", "open the hottest path below the cursor" },
	{ "Enter", "source of the function under the cursor" },
	{ "c", "callers and callees of the function under the cursor" },
	{ "Esc q", "back" },
	{ NULL, NULL },
};

static const struct tui_key_help callers_legend[] = {
	{ "Callers", "below each caller, its own callers; Self%: the function's own time "
		     "that came that way" },
	{ "Callees", "below each callee, what it calls" },
	{ "+ -", "a closed, an open node" },
	{ NULL, NULL },
};

static void build(struct callers_view *s)
{
	struct tui_model *m = s->v.m;

	for (int k = 0; k < 2; k++) {
		tui_treelist__exit(&s->l[k]);
		if (s->tree[k].n)
			tui_tree__exit(&s->tree[k]);
		tui_model__call_graph(m, s->func, k == 0, &s->tree[k]);
		tui_treelist__init(&s->l[k], &s->tree[k], 1);
		/* every direct caller (callee), the hottest path below them open */
		tui_treelist__hot_path(&s->l[k], -1, false);
	}
	/* the cursor on the hottest caller, else the hottest callee */
	s->v.sel = s->l[0].nr ? 1 : s->l[1].nr ? 2 : 0;
}

/* Screen rows: heading, callers' rows, heading, callees' rows. Which list
 * and row a view row is (-1: a heading). */
static int locate(const struct callers_view *s, int i, int *k)
{
	int n0 = (int)s->l[0].nr;

	if (i == 0 || i == n0 + 1) {
		*k = i == 0 ? 0 : 1;
		return -1;
	}
	*k = i <= n0 ? 0 : 1;
	return *k ? i - n0 - 2 : i - 1;
}

static int nr_rows(const struct callers_view *s)
{
	return (int)(s->l[0].nr + s->l[1].nr) + 2;
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct callers_view *s = (struct callers_view *)v;
	struct tui_model *m = v->m;
	const struct tui_row *f = &m->tab[TK_FUNC].rows[s->func];
	double total = tui_model__total(m);
	char buf[512], full[512], e[600];
	int y = y0;

	canvas__fill(c, 0, y, c->w, TS_HEADER);
	snprintf(buf, sizeof(buf), "%s: self %.1f%%, total %.1f%% of the run",
		 tui_model__name(m, f->name, full, sizeof(full)),
		 total > 0 ? 100 * f->period[m->clk] / total : 0,
		 total > 0 ? 100 * s->tree[0].n[1].total / total : 0);
	tui_ellipsize(buf, c->w, e, sizeof(e));
	canvas__put(c, 0, y++, TS_HEADER, e, -1);
	if (!m->has_callchains) {
		canvas__put_wrapped(c, 0, y, 3, TS_WARN, "no call stacks in this result: record "
				    "with -g or --call-graph dwarf");
		return;
	}
	tui_view__scroll(v, h - 1);
	for (int i = 0; i < h - 1 && v->top + i < nr_rows(s); i++) {
		int k, r = locate(s, v->top + i, &k);

		if (r < 0) {
			tui_tree_row__header(c, y + i, k ? "Callees (called by it)" :
					     "Callers (calling it)");
			continue;
		}
		tui_tree_row__draw(c, y + i, m, &s->tree[k], s->l[k].rows[r], 1,
				   s->l[k].open[s->l[k].rows[r]], v->top + i == v->sel);
	}
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct callers_view *s = (struct callers_view *)v;
	int k, r = locate(s, v->sel, &k), old = v->sel;
	unsigned ret;

	switch (a) {
	case TA_RIGHT:
	case TA_LEFT:
	case TA_EXPAND:
	case TA_COLLAPSE:
	case TA_HOTTEST:
		if (r < 0)
			return a == TA_LEFT ? TR_UNHANDLED : TR_REDRAW;
		ret = tui_treelist__act(&s->l[k], a, &r);
		v->sel = k ? r + (int)s->l[0].nr + 2 : r + 1;
		return ret;
	case TA_ENTER:
	case TA_CALLERS:
		if (r < 0)
			return TR_REDRAW;
		{
			uint32_t fn = s->tree[k].n[s->l[k].rows[r]].func;

			re->next = a == TA_ENTER ? tui_source_view__new(v->m, v->ld, fn, 0) :
				    tui_callers_view__new(v->m, v->ld, fn);
		}
		return TR_PUSH;
	default:
		ret = tui_view__move(v, a, nr_rows(s));
		/* Skip headings in the direction of travel. */
		if (locate(s, v->sel, &k) < 0) {
			int dir = v->sel >= old ? 1 : -1;

			if (v->sel + dir >= 0 && v->sel + dir < nr_rows(s) &&
			    locate(s, v->sel + dir, &k) >= 0)
				v->sel += dir;
			else
				v->sel = old;
		}
		return ret;
	}
}

static const char *status(struct tui_view *v)
{
	(void)v;
	return "Right/Left: open/close  Enter: source  c: centre on it  Esc: back";
}

/* A time range or region: the same function's callers and callees
 * there; gone when it has no sample there. */
static bool sync(struct tui_view *v)
{
	struct callers_view *s = (struct callers_view *)v;
	int f;

	f = tui_model__refind_func(v->m, s->func);
	if (f < 0)
		return false;
	s->func = (size_t)f;
	v->top = 0;
	build(s);
	return true;
}

static void destroy(struct tui_view *v)
{
	struct callers_view *s = (struct callers_view *)v;

	for (int k = 0; k < 2; k++) {
		tui_treelist__exit(&s->l[k]);
		tui_tree__exit(&s->tree[k]);
	}
	free(s);
}

static const struct tui_view_ops callers_ops = {
	.name = "callers", .help = callers_help, .legend = callers_legend, .draw = draw,
	.handle = handle, .status = status, .sync = sync, .destroy = destroy,
};

struct tui_view *tui_callers_view__new(struct tui_model *m, struct tui_loader *ld, size_t func)
{
	char full[512];
	struct callers_view *s =
		tui_view__new(sizeof(*s), &callers_ops, m, ld, "callers/callees: %s",
			      tui_model__name(m, m->tab[TK_FUNC].rows[func].name, full,
					      sizeof(full)));

	s->func = func;
	build(s);
	return &s->v;
}
