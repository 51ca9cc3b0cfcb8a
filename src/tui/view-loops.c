/*
 * view-loops.c: the result's hottest loops (issue 42), most iterations
 * first: entries, iterations, trips per entry, cycles per iteration, the
 * share of the exits mispredicted, the function and its source line, a
 * nested loop indented under its function. From branch stacks (estimates)
 * or the model (exact), always the whole run's: the stacks are not kept
 * per sample, so a time range or region cannot narrow them, and the view
 * says so. Enter opens the source at the loop's head line, d its
 * disassembly there.
 */
#include "config.h"

#include "tui-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loops_view {
	struct tui_view v;
	struct tui_loops l;
	char status[256];
};

static const struct tui_key_help loops_help[] = {
	{ "Up/Down j/k", "move the cursor" },
	{ "PgUp/PgDn Home/End", "page, first/last loop" },
	{ "H", "the hottest loop (the first)" },
	{ "Enter", "source of the loop's function at its head line" },
	{ "d", "disassembly of the loop's function at its head line" },
	{ "Left/Esc q", "back" },
	{ NULL, NULL },
};

static const struct tui_key_help loops_legend[] = {
	{ "iterations", "times the loop's head ran" },
	{ "entries", "times the loop was entered from outside it" },
	{ "trips", "iterations per entry" },
	{ "cyc/it", "cycles an iteration, where timed; - none" },
	{ "exit-mp", "share of its exits mispredicted; - none known" },
	{ "indent", "a loop nested in a loop: indented by its depth" },
	{ NULL, NULL },
};

/* Whether the model's tables are narrowed (the loops are not). */
static bool narrowed(const struct tui_model *m)
{
	return m->range_hi || m->region >= 0;
}

static void draw_row(struct loops_view *lv, struct tui_canvas *c, int y, size_t k, bool wide)
{
	const struct tui_loop *l = &lv->l.v[k];
	bool sel = (int)k == lv->v.sel;
	enum tui_style st = sel ? TS_SELECTED : k == 0 ? TS_HOT : TS_NORMAL;
	char cyc[16] = "-", mp[16] = "-", buf[512], e[512];
	int x = 0, ind = (int)(l->depth > 1 ? 2 * (l->depth - 1) : 0);

	if (sel)
		canvas__fill(c, 0, y, c->w, TS_SELECTED);
	if (!isnan(l->cyc_iter))
		snprintf(cyc, sizeof(cyc), "%.1f", l->cyc_iter);
	if (!isnan(l->exit_mp))
		snprintf(mp, sizeof(mp), "%.1f%%", 100 * l->exit_mp);
	canvas__printf(c, x, y, st, "%11" PRIu64, l->iterations);
	if (sel)	/* the cursor, said without colour too */
		canvas__put(c, 0, y, st, ">", 1);
	x += 12;
	if (wide) {
		canvas__printf(c, x, y, st, "%9" PRIu64, l->entries);
		x += 10;
	}
	canvas__printf(c, x, y, st, "%8.2f", l->entries ? (double)l->iterations /
						       (double)l->entries : 0.0);
	x += 9;
	if (wide) {
		canvas__printf(c, x, y, sel ? TS_SELECTED : TS_DIM, "%7s %7s", cyc, mp);
		x += 16;
	}
	x += ind < 8 ? ind : 8;
	if (l->line && l->file[0])
		snprintf(buf, sizeof(buf), "%s (%s:%u)", l->func, tui_base_name(l->file), l->line);
	else
		snprintf(buf, sizeof(buf), "%s [%" PRIx64 "]", l->func, l->head);
	tui_ellipsize(buf, c->w - x, e, sizeof(e));
	canvas__put(c, x, y, sel ? TS_SELECTED : TS_NORMAL, e, -1);
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct loops_view *lv = (struct loops_view *)v;
	bool wide = c->w >= 70;
	int y = y0, rows;
	char buf[256];

	canvas__fill(c, 0, y, c->w, TS_HEADER);
	if (!lv->l.nr) {
		canvas__put(c, 0, y++, TS_HEADER, "Loops", -1);
		canvas__put_wrapped(c, 0, y, 3, TS_WARN, lv->l.why ? lv->l.why : "no loops");
		return;
	}
	snprintf(buf, sizeof(buf), "Loops (%s), most iterations first%s",
		 lv->l.exact ? "exact, from the model" : "from branch stacks",
		 narrowed(v->m) ? "; the whole run's, not the range's" : "");
	canvas__put(c, 0, y++, TS_HEADER, buf, -1);
	if (wide)
		snprintf(buf, sizeof(buf), "%11s %9s %8s %7s %7s  %s", "iterations", "entries",
			 "trips", "cyc/it", "exit-mp", "function (head's source line)");
	else
		snprintf(buf, sizeof(buf), "%11s %8s  %s", "iterations", "trips", "function");
	canvas__put(c, 0, y++, TS_HEADER, buf, -1);
	rows = h - (y - y0);
	if (rows < 1)
		return;
	tui_view__scroll(v, rows);
	for (int i = 0; i < rows && v->top + i < (int)lv->l.nr; i++)
		draw_row(lv, c, y + i, (size_t)(v->top + i), wide);
}

/* The function row of loop l in the model's (current) tables: by name and
 * module, the module's base name where the paths differ; -1: none. */
static int func_of(const struct tui_model *m, const struct tui_loop *l)
{
	const struct tui_table *t = &m->tab[TK_FUNC];
	int base = -1;

	for (size_t i = 0; i < t->nr; i++) {
		if (strcmp(t->rows[i].name, l->func))
			continue;
		if (!strcmp(t->rows[i].module, l->module))
			return (int)i;
		if (base < 0 && !strcmp(tui_base_name(t->rows[i].module), tui_base_name(l->module)))
			base = (int)i;
	}
	return base;
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct loops_view *lv = (struct loops_view *)v;
	const struct tui_loop *l;
	int f;

	switch (a) {
	case TA_ENTER:
	case TA_DISASM:
		if (!lv->l.nr) {
			tui_reaction__say(re, "no loops");
			return TR_REDRAW;
		}
		l = &lv->l.v[v->sel];
		f = func_of(v->m, l);
		if (f < 0) {
			char e[96];

			tui_ellipsize(l->func, 60, e, sizeof(e));
			tui_reaction__say(re, "%s has no samples %s: no %s", e,
					  narrowed(v->m) ? "in the range" : "of the clock event",
					  a == TA_ENTER ? "source" : "disassembly");
			return TR_REDRAW;
		}
		re->next = a == TA_ENTER ? tui_source_view__new(v->m, v->ld, (size_t)f, l->line) :
			   tui_disasm_view__new(v->m, v->ld, (size_t)f, l->line);
		return TR_PUSH;
	case TA_HOTTEST:
		v->sel = 0;
		return TR_REDRAW;
	default:
		return tui_view__move(v, a, (int)lv->l.nr);
	}
}

static const char *status(struct tui_view *v)
{
	struct loops_view *lv = (struct loops_view *)v;
	const struct tui_loop *l;

	if (!lv->l.nr)
		return "Left/Esc: back";
	if (narrowed(v->m))
		return "the whole run's loops (not kept per sample); Enter: source, d: disassembly";
	l = &lv->l.v[v->sel];
	snprintf(lv->status, sizeof(lv->status), "head %" PRIx64 " in %s, depth %u; Enter: source, "
		 "d: disassembly", l->head, tui_base_name(l->module), l->depth);
	return lv->status;
}

static void destroy(struct tui_view *v)
{
	struct loops_view *lv = (struct loops_view *)v;

	free(lv->l.v);
	free(lv);
}

static const struct tui_view_ops loops_ops = {
	.name = "loops", .help = loops_help, .legend = loops_legend, .draw = draw,
	.handle = handle, .status = status, .destroy = destroy,
};

struct tui_view *tui_loops_view__new(struct tui_model *m, struct tui_loader *ld)
{
	struct loops_view *lv = tui_view__new(sizeof(*lv), &loops_ops, m, ld, "loops");

	if (!ld->loops || ld->loops(ld, m, &lv->l) != 0) {
		free(lv->l.v);
		memset(&lv->l, 0, sizeof(lv->l));
		lv->l.why = "no loops for this result: it has no branch stacks and is not modelled";
	}
	return &lv->v;
}
