/*
 * view-flame.c: the call tree as a flame graph in the terminal — an
 * icicle by default (the run on top, callees below their callers; f flips
 * it to a flame, the root at the bottom). Each bar is as wide as its total
 * share of the zoomed node and starts with '|'; bars narrower than a cell
 * are left out. Up/Down go to the caller and the hottest callee,
 * Left/Right (h/l) to the neighbour bars of the row; Enter zooms in (on
 * the zoomed bar: out), x resets the zoom. Same data as the call tree.
 */
#include "config.h"

#include "tui-int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct flame_view {
	struct tui_view v;
	const struct tui_tree *t;
	unsigned gen;
	int32_t zoom, cur;
	bool flame;		/* root at the bottom */
	int *x0, *x1;		/* [t->nr] cells of the drawn bars, x1 <= x0: not drawn */
	double *xl, *xr;	/* [t->nr] their exact edges, while laying out */
	int32_t *drawn;		/* the drawn bars, in layout order */
	size_t nr_drawn, cap_drawn;
	int laid_w;		/* the width of the last layout, 0: stale */
	int32_t laid_zoom;
	char status[256];
};

static const struct tui_key_help flame_help[] = {
	{ "Up/Down k/j", "the caller, the hottest callee" },
	{ "Left/Right h/l", "the bar before, after on the same row" },
	{ "Enter", "zoom to the bar (on the zoomed bar: zoom out)" },
	{ "x", "whole run again" },
	{ "f", "flip: icicle (callers on top) or flame (callers below)" },
	{ "c", "callers and callees of the function" },
	{ "T", "the same paths as a call tree" },
	{ "Esc q", "back" },
	{ NULL, NULL },
};

static const struct tui_key_help flame_legend[] = {
	{ "|name", "a bar: as wide as its total share of the zoomed bar" },
	{ "bold", "self over 5% of the run (hot colour)" },
	{ "dim", "callers of the zoomed bar" },
	{ NULL, NULL },
};

static void setup(struct flame_view *f)
{
	struct tui_model *m = f->v.m;

	f->t = tui_model__calltree(m);
	f->gen = m->generation;
	free(f->x0);
	free(f->x1);
	free(f->xl);
	free(f->xr);
	f->x0 = xcalloc(f->t->nr + 1, sizeof(int));
	f->x1 = xcalloc(f->t->nr + 1, sizeof(int));
	f->xl = xcalloc(f->t->nr + 1, sizeof(double));
	f->xr = xcalloc(f->t->nr + 1, sizeof(double));
	f->nr_drawn = 0;
	f->zoom = 0;
	f->cur = f->t->n[0].first >= 0 ? f->t->n[0].first : 0;
	f->laid_w = 0;
	f->v.top = 0;
}

/* Bars of the zoomed subtree at width w; its callers span the width. */
static void layout(struct flame_view *f, int w)
{
	const struct tui_tree *t = f->t;
	int32_t at;

	if (f->laid_w == w && f->laid_zoom == f->zoom)
		return;
	for (size_t i = 0; i < f->nr_drawn; i++)
		f->x0[f->drawn[i]] = f->x1[f->drawn[i]] = 0;
	f->nr_drawn = 0;
	for (at = f->zoom; at >= 0; at = t->n[at].parent) {
		f->drawn = xgrow(f->drawn, &f->cap_drawn, f->nr_drawn + 1, sizeof(*f->drawn));
		f->drawn[f->nr_drawn++] = at;
		f->x0[at] = 0;
		f->x1[at] = w;
	}
	f->xl[f->zoom] = 0;
	f->xr[f->zoom] = w;
	/* Depth first below the zoom, children from their parent's left
	 * edge in order of heat, each from where its elder sibling ended;
	 * cells are rounded from the exact edges, so neighbours never
	 * overlap. */
	at = t->n[f->zoom].first;
	if (at >= 0)
		f->xl[at] = 0;
	while (at >= 0 && t->n[f->zoom].total > 0) {
		const struct tui_tnode *x = &t->n[at], *p = &t->n[x->parent];
		double wd = (f->xr[x->parent] - f->xl[x->parent]) * x->total / p->total;

		f->xr[at] = f->xl[at] + wd;
		f->x0[at] = (int)lround(f->xl[at]);
		f->x1[at] = (int)lround(f->xr[at]);
		if (f->x1[at] > f->x0[at]) {
			f->drawn = xgrow(f->drawn, &f->cap_drawn, f->nr_drawn + 1, sizeof(*f->drawn));
			f->drawn[f->nr_drawn++] = at;
		}
		if (wd >= 1 && x->first >= 0) {
			f->xl[x->first] = f->xl[at];
			at = x->first;
			continue;
		}
		/* siblings are hottest first: after one under a cell, so are the rest */
		while (at != f->zoom && (t->n[at].next < 0 || f->xr[at] - f->xl[at] < 1))
			at = t->n[at].parent;
		if (at == f->zoom)
			break;
		f->xl[t->n[at].next] = f->xr[at];
		at = t->n[at].next;
	}
	f->laid_w = w;
	f->laid_zoom = f->zoom;
}

static bool is_drawn(const struct flame_view *f, int32_t n)
{
	return n >= 0 && f->x1[n] > f->x0[n];
}

/* The screen row of a tree depth level: the root "all" is level 0. */
static int level(const struct flame_view *f, int32_t n)
{
	return n == 0 ? 0 : (int)f->t->n[n].depth + 1;
}

static const char *bar_name(const struct tui_model *m, const struct tui_tnode *x, char *buf,
			    size_t n)
{
	if (x->func == TUI_TNODE_COMM)
		return x->comm ? x->comm : "?";
	return x->func < m->tab[TK_FUNC].nr ?
	       tui_model__name(m, m->tab[TK_FUNC].rows[x->func].name, buf, n) : "?";
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct flame_view *f = (struct flame_view *)v;
	struct tui_model *m = v->m;
	double total = tui_model__total(m);
	int rows = h - 1, cur_level;
	char head[256], buf[512], e[600];

	if (f->gen != m->generation)
		setup(f);
	layout(f, c->w);
	canvas__fill(c, 0, y0, c->w, TS_HEADER);
	snprintf(head, sizeof(head), "%s: callers %s callees", f->flame ? "flame" : "icicle",
		 f->flame ? "below" : "above");
	if (f->zoom)
		snprintf(head + strlen(head), sizeof(head) - strlen(head), ", zoomed to %s (x: all)",
			 bar_name(m, &f->t->n[f->zoom], buf, sizeof(buf)));
	tui_ellipsize(head, c->w, e, sizeof(e));
	canvas__put(c, 0, y0, TS_HEADER, e, -1);
	if (f->t->n[0].first < 0 || rows < 1) {
		canvas__put_wrapped(c, 1, y0 + 2, 3, TS_WARN, m->tab[TK_FUNC].nr ?
				    "no call paths in this result" :
				    "no function rows: this result was not symbolized");
		return;
	}
	/* keep the cursor's row on the screen */
	cur_level = level(f, f->cur);
	if (cur_level < v->top)
		v->top = cur_level;
	if (cur_level >= v->top + rows)
		v->top = cur_level - rows + 1;
	for (size_t i = 0; i < f->nr_drawn; i++) {
		int32_t n = f->drawn[i];
		const struct tui_tnode *x = &f->t->n[n];
		int lv = level(f, n) - v->top, y, wd = f->x1[n] - f->x0[n];
		bool above = f->t->n[f->zoom].depth > x->depth || (n == 0 && f->zoom),
		     hot = total > 0 && x->self / total >= 0.05;
		enum tui_style st = n == f->cur ? TS_SELECTED : above && n != f->zoom ? TS_DIM :
				    hot ? TS_HOT : TS_NORMAL;

		if (lv < 0 || lv >= rows)
			continue;
		y = f->flame ? y0 + rows - lv : y0 + 1 + lv;
		canvas__fill(c, f->x0[n], y, wd, st);
		canvas__put(c, f->x0[n], y, st, "|", 1);
		if (wd < 2)
			continue;
		if (n == 0)
			snprintf(head, sizeof(head), "all %.1f%%", total > 0 ? 100 * x->total / total : 0);
		else
			snprintf(head, sizeof(head), "%s", bar_name(m, x, buf, sizeof(buf)));
		tui_ellipsize(head, wd - 1, e, sizeof(e));
		canvas__put(c, f->x0[n] + 1, y, st, e, -1);
	}
}

/* The drawn bar on the same level next to cur (dir -1: left, 1: right). */
static int32_t neighbour(const struct flame_view *f, int dir)
{
	int lv = level(f, f->cur), best = -1;

	for (size_t i = 0; i < f->nr_drawn; i++) {
		int32_t n = f->drawn[i];

		if (level(f, n) != lv || n == f->cur)
			continue;
		if (dir < 0 ? f->x0[n] < f->x0[f->cur] && (best < 0 || f->x0[n] > f->x0[best]) :
			      f->x0[n] > f->x0[f->cur] && (best < 0 || f->x0[n] < f->x0[best]))
			best = n;
	}
	return best;
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct flame_view *f = (struct flame_view *)v;
	const struct tui_tnode *x = &f->t->n[f->cur];
	int32_t n = -1;

	if (!f->laid_w)
		layout(f, 80);
	switch (a) {
	case TA_UP:
	case TA_DOWN:
		/* up the screen is toward the root in an icicle */
		if ((a == TA_UP) != f->flame)
			n = x->parent;
		else
			for (n = x->first; n >= 0 && !is_drawn(f, n); n = f->t->n[n].next)
				;
		break;
	case TA_LEFT:
	case TA_CURSOR_LEFT:
	case TA_RIGHT:
	case TA_CURSOR_RIGHT:
		n = neighbour(f, a == TA_LEFT || a == TA_CURSOR_LEFT ? -1 : 1);
		break;
	case TA_ENTER:
		f->zoom = f->cur == f->zoom && f->zoom ? f->t->n[f->zoom].parent : f->cur;
		return TR_REDRAW;
	case TA_CLEAR:
		f->zoom = 0;
		return TR_REDRAW;
	case TA_FLAME:
		f->flame = !f->flame;
		return TR_REDRAW;
	case TA_CALLERS:
		if (x->func == TUI_TNODE_COMM) {
			tui_reaction__say(re, "callers and callees are a function's: move to one");
			return TR_REDRAW;
		}
		re->next = tui_callers_view__new(v->m, v->ld, x->func);
		return TR_PUSH;
	case TA_HOME:
		n = 0;
		break;
	default:
		return TR_UNHANDLED;
	}
	if (n >= 0 && is_drawn(f, n))
		f->cur = n;
	return TR_REDRAW;
}

static const char *status(struct tui_view *v)
{
	struct flame_view *f = (struct flame_view *)v;
	struct tui_model *m = v->m;
	const struct tui_tnode *x = &f->t->n[f->cur];
	double total = tui_model__total(m);
	char buf[512];

	snprintf(f->status, sizeof(f->status), "%s: total %.1f%%, self %.1f%% of the run"
		 "  Enter: zoom  f: flip", f->cur ? bar_name(m, x, buf, sizeof(buf)) : "all",
		 total > 0 ? 100 * x->total / total : 0, total > 0 ? 100 * x->self / total : 0);
	return f->status;
}

/* A time range or region: the new tree, the zoom and the cursor on the
 * same call paths as far as the new tree has them. */
static bool sync(struct tui_view *v)
{
	struct flame_view *f = (struct flame_view *)v;
	struct tui_tpath cur, zoom;

	tui_tpath__of(&cur, v->m, f->t, f->cur);
	tui_tpath__of(&zoom, v->m, f->t, f->zoom);
	setup(f);
	f->zoom = tui_tpath__find(&zoom, v->m, f->t);
	if (cur.nr)
		f->cur = tui_tpath__find(&cur, v->m, f->t);
	tui_tpath__exit(&cur);
	tui_tpath__exit(&zoom);
	return true;
}

static void destroy(struct tui_view *v)
{
	struct flame_view *f = (struct flame_view *)v;

	free(f->x0);
	free(f->x1);
	free(f->xl);
	free(f->xr);
	free(f->drawn);
	free(f);
}

static const struct tui_view_ops flame_ops = {
	.name = "flame", .help = flame_help, .legend = flame_legend, .draw = draw,
	.handle = handle, .status = status, .sync = sync, .destroy = destroy,
};

struct tui_view *tui_flame_view__new(struct tui_model *m, struct tui_loader *ld)
{
	struct flame_view *f = tui_view__new(sizeof(*f), &flame_ops, m, ld, "flame graph");

	setup(f);
	return &f->v;
}
