/*
 * view-callers.c: who calls the selected function and what it calls, with
 * the clock-event share each edge carries (from the call paths of the
 * profile). Enter opens the source of the function under the cursor; c
 * re-centres this view on it.
 */
#include "config.h"

#include "tui-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct centry {
	int func;		/* -1: a heading */
	double period;
	bool callee;
};

struct callers_view {
	struct tui_view v;
	size_t func;
	struct centry *e;
	size_t nr;
	char status[160];
};

static const struct tui_key_help callers_help[] = {
	{ "Up/Down j/k", "move the cursor" },
	{ "PgUp/PgDn Home/End", "page, first/last entry" },
	{ "Enter/Right", "source of the function under the cursor" },
	{ "c", "callers and callees of the function under the cursor" },
	{ "Left/Esc q", "back" },
	{ NULL, NULL },
};

static int cmp_entry(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

static void build(struct callers_view *s)
{
	struct tui_model *m = s->v.m;
	size_t start;

	s->e = xcalloc(m->nr_edges + 3, sizeof(*s->e));
	for (int pass = 0; pass < 2; pass++) {
		s->e[s->nr].func = -1;
		s->e[s->nr++].callee = pass;
		start = s->nr;
		for (size_t i = 0; i < m->nr_edges; i++) {
			const struct tui_edge *ed = &m->edges[i];

			if (pass == 0 && ed->callee == s->func && ed->caller != s->func)
				s->e[s->nr++] = (struct centry){ (int)ed->caller, ed->period, false };
			if (pass == 1 && ed->caller == s->func && ed->callee != s->func)
				s->e[s->nr++] = (struct centry){ (int)ed->callee, ed->period, true };
		}
		gx_qsort(s->e + start, s->nr - start, sizeof(*s->e), cmp_entry);
	}
	s->v.sel = s->nr > 1 && s->e[1].func >= 0 ? 1 : s->nr > 2 ? 2 : 0;
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct callers_view *s = (struct callers_view *)v;
	struct tui_model *m = v->m;
	double total = tui_model__total(m);
	char buf[512], e[512];
	int y = y0;

	canvas__fill(c, 0, y, c->w, TS_HEADER);
	snprintf(buf, sizeof(buf), "%s: %.1f%% of the run", m->tab[TK_FUNC].rows[s->func].name,
		 total > 0 ? 100 * m->tab[TK_FUNC].rows[s->func].period[m->clk] / total : 0);
	tui_ellipsize(buf, c->w, e);
	canvas__put(c, 0, y++, TS_HEADER, e, -1);
	if (!m->nr_edges) {
		canvas__put_wrapped(c, 0, y, 3, TS_WARN, "no call stacks in this result: record "
				    "with -g or --call-graph dwarf");
		return;
	}
	tui_view__scroll(v, h - 1);
	for (int i = 0; i < h - 1 && v->top + i < (int)s->nr; i++) {
		const struct centry *ce = &s->e[v->top + i];
		bool sel = v->top + i == v->sel;

		if (ce->func < 0) {
			canvas__put(c, 0, y + i, TS_HEADER, ce->callee ? "Callees (called by it)" :
				    "Callers (calling it)", c->w);
			continue;
		}
		if (sel)
			canvas__fill(c, 0, y + i, c->w, TS_SELECTED);
		snprintf(buf, sizeof(buf), "%c %6.1f%%  %s %s", sel ? '>' : ' ',
			 total > 0 ? 100 * ce->period / total : 0, ce->callee ? "->" : "<-",
			 m->tab[TK_FUNC].rows[ce->func].name);
		tui_ellipsize(buf, c->w, e);
		canvas__put(c, 0, y + i, sel ? TS_SELECTED : TS_NORMAL, e, -1);
	}
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_app *app)
{
	struct callers_view *s = (struct callers_view *)v;
	const struct centry *ce = s->nr ? &s->e[v->sel] : NULL;
	int old = v->sel;
	unsigned r;

	switch (a) {
	case TA_ENTER:
	case TA_CALLERS:
		if (!ce || ce->func < 0)
			return TR_REDRAW;
		app->next = a == TA_ENTER ? tui_source_view__new(v->m, (size_t)ce->func, 0) :
			    tui_callers_view__new(v->m, (size_t)ce->func);
		return TR_PUSH;
	default:
		r = tui_view__move(v, a, (int)s->nr);
		/* Skip headings in the direction of travel. */
		if (s->nr && s->e[v->sel].func < 0) {
			int dir = v->sel >= old ? 1 : -1;

			if (v->sel + dir >= 0 && v->sel + dir < (int)s->nr)
				v->sel += dir;
			else
				v->sel = old;
		}
		return r;
	}
}

static const char *status(struct tui_view *v)
{
	(void)v;
	return "Enter: source  c: centre on it  Left/Esc: back";
}

static void destroy(struct tui_view *v)
{
	struct callers_view *s = (struct callers_view *)v;

	free(s->e);
	free(s);
}

static const struct tui_view_ops callers_ops = {
	.name = "callers", .help = callers_help, .draw = draw, .handle = handle, .status = status,
	.destroy = destroy,
};

struct tui_view *tui_callers_view__new(struct tui_model *m, size_t func)
{
	struct callers_view *s = tui_view__new(sizeof(*s), &callers_ops, m, "callers/callees: %s",
					       m->tab[TK_FUNC].rows[func].name);

	s->func = func;
	build(s);
	return &s->v;
}
