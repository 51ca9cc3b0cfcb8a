/*
 * view-grid.c: the bottom-up grid — rows of one kind (functions, lines,
 * modules, threads, processes) by columns (clock share, samples, CPI,
 * level 1 and the focus node's children), sortable and filterable. A cell
 * is marked '*' (and styled HOT) when its node is over threshold and the
 * row holds more than 5% of the run (VTune's rule).
 */
#include "config.h"

#include "tui-int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grid_view {
	struct tui_view v;
	enum tui_kind kind;
	struct tui_col cols[TUI_MAX_COLS];
	size_t ncols;
	struct tui_order order;
	char status[320];
	unsigned gen;			/* the model's tables the order was made for */
	bool on[TUI_MAX_COLS];		/* columns shown at the last draw */
	/* a thread's grid (the timeline's Enter): its own rows */
	bool thread;
	uint32_t tid;
	char tname[64];
	struct tui_table own[TK_NR_];
	char *why;			/* why a thread has no rows, or NULL */
};

/* The rows shown: the model's, or the thread's. */
static struct tui_table *table(struct grid_view *g, enum tui_kind k)
{
	return g->thread ? &g->own[k] : &g->v.m->tab[k];
}

/* A thread's rows again, in the model's time range and region. */
static void reload(struct grid_view *g)
{
	struct tui_model *m = g->v.m;
	char *cause = NULL;

	for (int k = 0; k < TK_NR_; k++)
		tui_table__clear(&g->own[k]);
	free(g->why);
	g->why = NULL;
	if (g->v.ld->thread_rows(g->v.ld, m, g->tid, g->own, &cause) != 0) {
		g->why = xasprintf("no rows for thread %u: %s", g->tid, cause ? cause : "failed");
		free(cause);
	}
}

static const struct tui_key_help grid_help[] = {
	{ "Up/Down j/k", "move the cursor" },
	{ "PgUp/PgDn Home/End", "page, first/last row" },
	{ "Enter/Right", "functions and lines: annotated source" },
	{ "d", "disassembly of the function" },
	{ "c", "callers and callees of the function" },
	{ "< >", "sort by the previous/next column, names too (past the end: reverse)" },
	{ "/", "filter rows by name; case ignored unless it has a capital" },
	{ "n N", "next/previous row, wrapping around" },
	{ "v", "rows: functions, lines, modules, threads, processes" },
	{ "x", "clear the filter" },
	{ "T f", "call tree, flame graph" },
	{ "a", "C++ template arguments collapsed <...> or shown" },
	{ "t", "timeline; s: back to the summary" },
	{ "Left/Esc q", "back" },
	{ NULL, NULL },
};

/* Whether a column's values are modelled: a modelled result's cycle
 * shares, CPI and top-down nodes (its samples and names are not). */
static bool col_modelled(const struct tui_model *m, const struct tui_col *c)
{
	return m->modelled && (c->kind == TC_SHARE || c->kind == TC_TOTAL || c->kind == TC_NODE);
}

/* The header: the rows' kind, the thread's, and for record --model that
 * the cycles and what derives from them are modelled. */
static void set_title(struct grid_view *g)
{
	const char *md = g->v.m->modelled ? " (MODELLED cycles, CPI, top-down)" :
			 "";
	char buf[sizeof(g->v.title) + sizeof(g->tname) + 64];

	if (g->thread)
		snprintf(buf, sizeof(buf), "bottom-up: %s of thread %s %u%s", tui_kind_name(g->kind),
			 g->tname, g->tid, md);
	else
		snprintf(buf, sizeof(buf), "bottom-up: %s%s", tui_kind_name(g->kind), md);
	snprintf(g->v.title, sizeof(g->v.title), "%.*s", (int)sizeof(g->v.title) - 1, buf);
}

static void refresh(struct grid_view *g)
{
	struct tui_model *m = g->v.m;

	struct tui_col was = g->ncols ? g->cols[g->order.sort_col] : g->cols[0];

	g->ncols = tui_model__columns(m, g->kind, g->cols, TUI_MAX_COLS);
	/* the same column after the columns changed (another kind of rows) */
	if (g->ncols && (g->order.sort_col >= (int)g->ncols ||
			 g->cols[g->order.sort_col].kind != was.kind ||
			 g->cols[g->order.sort_col].node != was.node ||
			 g->cols[g->order.sort_col].delta != was.delta)) {
		g->order.sort_col = 0;
		for (size_t i = 0; i < g->ncols; i++)
			if (g->cols[i].kind == was.kind && g->cols[i].node == was.node &&
			    g->cols[i].delta == was.delta)
				g->order.sort_col = (int)i;
		if (!g->order.sort_col)
			g->order.asc = false;
	}
	tui_model__order(m, table(g, g->kind), g->cols, g->ncols, &g->order);
	g->gen = m->generation;
	if (g->v.sel >= (int)g->order.nr)
		g->v.sel = g->order.nr ? (int)g->order.nr - 1 : 0;
}

static void row_name(const struct tui_model *m, enum tui_kind k, const struct tui_row *r,
		     char *buf, size_t n)
{
	const char *base;

	char full[512];

	switch (k) {
	case TK_FUNC:
		snprintf(buf, n, "%s", tui_model__name(m, r->name, full, sizeof(full)));
		break;
	case TK_LINE:
		base = strrchr(r->file, '/');
		snprintf(buf, n, "%s:%u %s", base ? base + 1 : r->file[0] ? r->file : "??", r->line,
			 tui_model__name(m, r->name, full, sizeof(full)));
		break;
	case TK_THREAD:
		snprintf(buf, n, "%s (%u)", r->name, r->tid);
		break;
	case TK_PROCESS:	/* one row per command */
		if (r->nr_procs > 1)
			snprintf(buf, n, "%s (%u processes)", r->name, r->nr_procs);
		else
			snprintf(buf, n, "%s (%u)", r->name, r->pid);
		break;
	default:
		snprintf(buf, n, "%s", r->name);
		break;
	}
}

/*
 * The module column as wide as its longest name (14 to 32 cells) where the
 * screen has room for it and 40 cells of names: a wide terminal showed
 * "libstd~++.so.6" with 100 columns free (issue 41).
 */
static void module_width(struct grid_view *g, int w)
{
	int want = 14, used = 1;
	size_t mod = g->ncols;

	for (size_t i = 0; i < g->ncols; i++) {
		if (g->cols[i].kind == TC_MODULE)
			mod = i;
		else if (g->cols[i].kind != TC_NAME)
			used += g->cols[i].width + 1;
	}
	if (mod == g->ncols)
		return;
	for (size_t i = 0; i < g->order.nr && i < 4096; i++) {
		const struct tui_row *r = &table(g, g->kind)->rows[g->order.idx[i]];
		int l = r->module ? tui_str_width(tui_base_name(r->module)) : 0;

		if (l > want)
			want = l > 32 ? 32 : l;
	}
	g->cols[mod].width = used + want + 1 + 40 <= w ? want : 14;
}

/* Which columns fit: drop the highest prio first. The name needs 16. */
static void fit(const struct grid_view *g, int w, bool *on)
{
	int used = 1;

	for (size_t i = 0; i < g->ncols; i++) {
		on[i] = true;
		if (g->cols[i].kind != TC_NAME)
			used += g->cols[i].width + 1;
	}
	while (used + 16 > w) {
		int worst = -1;

		for (size_t i = 0; i < g->ncols; i++)
			if (on[i] && i > 0 && g->cols[i].kind != TC_NAME && (worst < 0 || g->cols[i].prio >= g->cols[worst].prio))
				worst = (int)i;
		if (worst < 0)
			break;
		on[worst] = false;
		used -= g->cols[worst].width + 1;
	}
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct grid_view *g = (struct grid_view *)v;
	struct tui_model *m = v->m;
	bool *on = g->on;
	int x, namew, rows = h - 1;
	char buf[512], e[512];

	if (g->gen != m->generation) {	/* not synced (tui_app__sync): no cursor kept */
		if (g->thread)
			reload(g);
		refresh(g);
	}
	module_width(g, c->w);
	fit(g, c->w, on);
	canvas__fill(c, 0, y0, c->w, TS_HEADER);
	x = 1;
	namew = c->w - 2;
	for (size_t i = 0; i < g->ncols; i++) {
		const struct tui_col *col = &g->cols[i];

		if (!on[i])
			continue;
		snprintf(buf, sizeof(buf), "%s%s", (int)i == g->order.sort_col ?
			 (g->order.asc ? "^" : "v") : "",
			 col->kind == TC_NAME ? tui_kind_name(g->kind) : col->name);
		if (col->kind == TC_NAME) {
			namew = c->w - x - 1;
			canvas__put(c, x, y0, TS_HEADER, buf, -1);
			continue;
		}
		canvas__printf(c, x, y0, TS_HEADER, tui_col__text(col) ? "%-*.*s" : "%*.*s",
			       col->width, col->width, buf);
		x += col->width + 1;
	}
	if (!g->order.nr) {
		const char *why = g->why ? g->why :
				  table(g, g->kind)->nr ? "no row matches the filter (x clears it)" :
				  g->thread ? "no samples of this thread in the views (the range, "
					      "the region)" :
				  g->kind == TK_FUNC || g->kind == TK_LINE ?
				  "no function rows: this result was not symbolized (v: other rows)" :
				  "no rows: the result has no samples";

		canvas__put_wrapped(c, 1, y0 + 2, 3, TS_WARN, why);
		return;
	}
	tui_view__scroll(v, rows);
	for (int i = 0; i < rows && v->top + i < (int)g->order.nr; i++) {
		struct tui_row *r = &table(g, g->kind)->rows[g->order.idx[v->top + i]];
		bool sel = v->top + i == v->sel;
		int y = y0 + 1 + i;

		if (sel)
			canvas__fill(c, 0, y, c->w, TS_SELECTED);
		canvas__put(c, 0, y, sel ? TS_SELECTED : TS_NORMAL, sel ? ">" : " ", -1);
		x = 1;
		for (size_t k = 0; k < g->ncols; k++) {
			bool hot, dim;
			double val;
			enum tui_style st;

			if (!on[k] || g->cols[k].kind == TC_NAME)
				continue;
			if (g->cols[k].kind == TC_MODULE) {
				tui_pad(tui_base_name(r->module), g->cols[k].width, e, sizeof(e));
				canvas__put(c, x, y, sel ? TS_SELECTED : TS_DIM, e, -1);
				x += g->cols[k].width + 1;
				continue;
			}
			val = tui_model__cell(m, r, &g->cols[k], &hot, &dim);
			tui_model__cell_text(m, &g->cols[k], val, buf, sizeof(buf));
			st = sel ? TS_SELECTED : hot ? TS_HOT : dim ? TS_DIM : TS_NORMAL;
			canvas__printf(c, x, y, st, "%*s%c", g->cols[k].width - 1, buf,
				       hot ? '*' : ' ');
			x += g->cols[k].width + 1;
		}
		row_name(m, g->kind, r, buf, sizeof(buf));
		if (g->kind == TK_LINE && strchr(buf, ' ') &&
		    (int)(strchr(buf, ' ') - buf) + 4 < namew) {
			/* Keep file:line whole; shorten the function after it. */
			int loc = (int)(strchr(buf, ' ') - buf) + 1;

			memcpy(e, buf, (size_t)loc);
			tui_ellipsize(buf + loc, namew - loc, e + loc, sizeof(e) - (size_t)loc);
		} else {
			tui_ellipsize(buf, namew, e, sizeof(e));
		}
		canvas__put(c, x, y, sel ? TS_SELECTED : TS_NORMAL, e, -1);
	}
}

static struct tui_row *selected(struct grid_view *g)
{
	if (!g->order.nr || g->v.sel < 0 || g->v.sel >= (int)g->order.nr)
		return NULL;
	return &table(g, g->kind)->rows[g->order.idx[g->v.sel]];
}

/* The function row of the selection in the model's tables: a function,
 * or a line's function (a thread's, found by its name and module). */
static int selected_func(struct grid_view *g)
{
	struct tui_row *r = selected(g);
	struct tui_rkey k;

	if (!r)
		return -1;
	if (!g->thread)
		return g->kind == TK_FUNC ? (int)g->order.idx[g->v.sel] :
		       g->kind == TK_LINE ? r->func : -1;
	if (g->kind == TK_LINE && r->func >= 0 && (size_t)r->func < g->own[TK_FUNC].nr)
		r = &g->own[TK_FUNC].rows[r->func];
	else if (g->kind != TK_FUNC)
		return -1;
	tui_rkey__of(&k, TK_FUNC, r);
	return tui_table__find(&g->v.m->tab[TK_FUNC], &k);
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct grid_view *g = (struct grid_view *)v;
	struct tui_model *m = v->m;
	struct tui_row *r;
	int f;

	switch (a) {
	case TA_ENTER:
	case TA_DISASM:
	case TA_CALLERS:
		f = selected_func(g);
		if (f < 0) {
			tui_reaction__say(re, g->order.nr ? "drill-down needs function or line rows "
					 "(v changes rows)" : "nothing selected");
			return TR_REDRAW;
		}
		r = selected(g);
		if (a == TA_CALLERS)
			re->next = tui_callers_view__new(m, v->ld, (size_t)f);
		else if (a == TA_DISASM)
			re->next = tui_disasm_view__new(m, v->ld, (size_t)f,
							 g->kind == TK_LINE ? r->line : 0);
		else
			re->next = tui_source_view__new(m, v->ld, (size_t)f,
							g->kind == TK_LINE ? r->line : 0);
		return TR_PUSH;
	case TA_SORT_PREV:
	case TA_SORT_NEXT: {
		int dir = a == TA_SORT_NEXT ? 1 : -1, next = g->order.sort_col + dir;

		/* Only columns on screen: sorting by a hidden one would puzzle. */
		while (next >= 0 && next < (int)g->ncols && !g->on[next])
			next += dir;
		if (next < 0 || next >= (int)g->ncols) {
			/* Past either end: the same column in reverse. */
			g->order.asc = !g->order.asc;
		} else {
			g->order.sort_col = next;
			g->order.asc = tui_col__text(&g->cols[next]);	/* names: A first */
		}
		refresh(g);
		return TR_REDRAW;
	}
	case TA_KIND:
		for (int i = 1; i <= TK_NR_; i++) {
			enum tui_kind k = (enum tui_kind)((g->kind + i) % TK_NR_);

			if (table(g, k)->nr) {
				g->kind = k;
				break;
			}
		}
		v->sel = v->top = 0;
		set_title(g);
		refresh(g);
		return TR_REDRAW;
	case TA_CLEAR:
		g->order.filter[0] = 0;
		refresh(g);
		return TR_REDRAW;
	case TA_NEXT:
	case TA_PREV:
		if (!g->order.nr)
			return TR_REDRAW;
		v->sel = (v->sel + (a == TA_NEXT ? 1 : (int)g->order.nr - 1)) % (int)g->order.nr;
		return TR_REDRAW;
	default:
		return tui_view__move(v, a, (int)g->order.nr);
	}
}

static void search(struct tui_view *v, const char *pattern)
{
	struct grid_view *g = (struct grid_view *)v;

	snprintf(g->order.filter, sizeof(g->order.filter), "%s", pattern);
	v->sel = v->top = 0;
	refresh(g);
}

static const char *status(struct tui_view *v)
{
	struct grid_view *g = (struct grid_view *)v;
	struct tui_model *m = v->m;
	int n;

	n = snprintf(g->status, sizeof(g->status), "%zu %s, by %s%s%s", g->order.nr,
		     tui_kind_name(g->kind), g->ncols ? g->cols[g->order.sort_col].name : "?",
		     g->ncols && col_modelled(m, &g->cols[g->order.sort_col]) ? " (modelled)" : "",
		     g->ncols && tui_col__text(&g->cols[g->order.sort_col]) ?
		     (g->order.asc ? "" : " (descending)") : g->order.asc ? " (ascending)" : "");
	if (g->order.filter[0])
		n += snprintf(g->status + n, sizeof(g->status) - (size_t)n, ", filter '%s'",
			      g->order.filter);
	if (m->range_hi)
		n += snprintf(g->status + n, sizeof(g->status) - (size_t)n, ", time %.3f-%.3f s",
			      (double)(m->range_lo - m->t_first) / 1e9,
			      (double)(m->range_hi - m->t_first) / 1e9);
	if (m->region >= 0)
		n += snprintf(g->status + n, sizeof(g->status) - (size_t)n, ", region %s",
			      m->region_names[m->region]);
	if (g->thread)
		n += snprintf(g->status + n, sizeof(g->status) - (size_t)n, ", thread %u", g->tid);
	snprintf(g->status + n, sizeof(g->status) - (size_t)n, "  * over threshold");
	return g->status;
}

/* A time range or region: the rows there, the cursor on the same row
 * when it is still one. */
static bool sync(struct tui_view *v)
{
	struct grid_view *g = (struct grid_view *)v;
	const struct tui_table *old = g->thread ? &g->own[g->kind] :
				      tui_model__old_table(v->m, g->kind);
	struct tui_rkey k;
	bool had = false;

	if (g->order.nr && v->sel >= 0 && v->sel < (int)g->order.nr &&
	    g->order.idx[v->sel] < old->nr) {
		tui_rkey__of(&k, g->kind, &old->rows[g->order.idx[v->sel]]);
		had = true;	/* the key's strings outlive the rows */
	}
	if (g->thread)
		reload(g);
	refresh(g);
	for (size_t i = 0; had && i < g->order.nr; i++)
		if (tui_rkey__is(&k, &table(g, g->kind)->rows[g->order.idx[i]])) {
			v->sel = (int)i;
			break;
		}
	return true;
}

static void destroy(struct tui_view *v)
{
	struct grid_view *g = (struct grid_view *)v;

	tui_order__exit(&g->order);
	for (int k = 0; k < TK_NR_; k++)
		tui_table__clear(&g->own[k]);
	free(g->why);
	free(g);
}

static const struct tui_view_ops grid_ops = {
	.name = "grid", .help = grid_help, .draw = draw, .handle = handle, .search = search,
	.status = status, .sync = sync, .destroy = destroy,
};

struct tui_view *tui_thread_grid_view__new(struct tui_model *m, struct tui_loader *ld,
				uint32_t tid, const char *name)
{
	struct grid_view *g = tui_view__new(sizeof(*g), &grid_ops, m, ld, "bottom-up: functions of "
					    "thread %s %u", name, tid);

	g->thread = true;
	g->tid = tid;
	snprintf(g->tname, sizeof(g->tname), "%s", name);
	reload(g);
	g->kind = g->own[TK_FUNC].nr || !g->own[TK_MODULE].nr ? TK_FUNC : TK_MODULE;
	set_title(g);
	refresh(g);
	for (size_t i = 0; i < TUI_MAX_COLS; i++)
		g->on[i] = true;
	return &g->v;
}

struct tui_view *tui_grid_view__new(struct tui_model *m, struct tui_loader *ld, enum tui_kind k)
{
	struct grid_view *g = tui_view__new(sizeof(*g), &grid_ops, m, ld, "bottom-up: %s",
					    tui_kind_name(k));

	g->kind = k;
	set_title(g);
	refresh(g);
	for (size_t i = 0; i < TUI_MAX_COLS; i++)
		g->on[i] = true;
	return &g->v;
}
