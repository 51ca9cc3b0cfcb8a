/*
 * view-summary.c: run facts, the top-down tree (values, threshold marks,
 * the bottleneck path), the main bottleneck with its hint, the hottest
 * functions, MUX reliability, hints, and the selected node's description
 * and tuning hint. Enter opens the bottom-up grid with the
 * node's children as columns.
 */
#include "config.h"

#include "tui-int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sline {
	char text[256];
	enum tui_style st;
	int node;		/* tree node, -1 for other lines */
	int hot;		/* a hot function's line: its index in hot[], else -1 */
};

#define NR_HOT 5

struct summary_view {
	struct tui_view v;
	struct sline *lines;
	size_t nr, cap;
	int *nodes;		/* selectable lines (indexes into lines): hot
				   functions, then nodes of the tree */
	size_t nr_nodes;
	int width;		/* the width lines were built for */
	/* the hottest functions and their hottest lines, for the table they
	 * were found in (a time range rebuilds the tables) */
	unsigned hot_gen;
	bool hot_done;
	const struct tui_row *hot[NR_HOT], *hot_line[NR_HOT];
	size_t nr_hot;
};

static const struct tui_key_help summary_help[] = {
	{ "Up/Down j/k", "select a hot function or a node of the top-down tree" },
	{ "PgUp/PgDn Home/End", "move by a page, to the first/last entry" },
	{ "Enter/Right", "hot function: its source; node: grid by its children" },
	{ "g", "bottom-up grid (functions, or modules/threads)" },
	{ "t", "per-thread timeline; select a time range there" },
	{ "?", "this help" },
	{ "q", "quit" },
	{ NULL, NULL },
};

static struct sline *add(struct summary_view *s, enum tui_style st, int node, const char *fmt,
			 ...) GX_PRINTF(4, 5);

static struct sline *add(struct summary_view *s, enum tui_style st, int node, const char *fmt,
			 ...)
{
	va_list ap;
	struct sline *l;

	if (s->nr == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->lines = xrealloc(s->lines, s->cap * sizeof(*s->lines));
	}
	l = &s->lines[s->nr++];
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
	l->st = st;
	l->node = node;
	l->hot = -1;
	return l;
}

struct wrap_ctx {
	struct summary_view *s;
	enum tui_style st;
	const char *first, *rest;
	bool started;
};

static void wrap_emit(void *ctx, const char *line)
{
	struct wrap_ctx *w = ctx;

	add(w->s, w->st, -1, "%s%s", w->started ? w->rest : w->first, line);
	w->started = true;
}

static void add_wrapped(struct summary_view *s, enum tui_style st, const char *first,
			const char *rest, const char *text)
{
	struct wrap_ctx w = { s, st, first, rest, false };

	tui_wrap(text, s->width - (int)strlen(rest), wrap_emit, &w);
}

/* Show a node: level 1 always, deeper ones when the parent is flagged. */
static bool shown(const struct tui_model *m, size_t i)
{
	const struct td_node *nd = td_model__node(m->td, i);

	if (nd->hidden || nd->level < 1)
		return false;
	if (nd->level == 1)
		return true;
	return nd->parent_idx >= 0 && m->run.v[nd->parent_idx].flagged && shown(m, (size_t)nd->parent_idx);
}

static void add_tree(struct summary_view *s, const struct tui_model *m, int parent, int depth)
{
	for (size_t i = 0; i < td_model__nr_nodes(m->td); i++) {
		const struct td_node *nd = td_model__node(m->td, i);
		const struct td_value *x = &m->run.v[i];
		char val[64];
		enum tui_style st;

		if (nd->parent_idx != parent || !shown(m, i))
			continue;
		tui_fmt_value(val, sizeof(val), nd, x);
		if (m->run_lo && !x->na && !isnan(m->run_lo[i]) && nd->unit == TD_UNIT_FRACTION) {
			/* MUX confidence: "41.2% [38.9-43.5]" */
			char iv[40];

			snprintf(iv, sizeof(iv), " [%.1f-%.1f]", 100 * m->run_lo[i], 100 * m->run_hi[i]);
			snprintf(val + strlen(val), sizeof(val) - strlen(val), "%s", iv);
		}
		st = x->on_path ? TS_BOTTLENECK : x->flagged ? TS_HOT : TS_DIM;
		add(s, st, (int)i, "%*s%-*s %8s %s%s%s", 2 + 2 * depth, "", 24 - 2 * depth, nd->name,
		    val, x->flagged ? "*" : x->na ? "" : "<",
		    (int)i == m->run.bottleneck ? " <== bottleneck" : x->on_path ? " <=" : "",
		    x->mismeasured ? " (mismeasured)" : "");
		s->nodes = xrealloc(s->nodes, (s->nr_nodes + 1) * sizeof(int));
		s->nodes[s->nr_nodes++] = (int)s->nr - 1;
		add_tree(s, m, (int)i, depth + 1);
	}
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* The NR_HOT functions with most self time of the clock event, and the
 * hottest line of each: once per function table, not per draw. */
static void find_hot(struct summary_view *s, const struct tui_model *m)
{
	const struct tui_table *f = &m->tab[TK_FUNC], *l = &m->tab[TK_LINE];

	if (s->hot_done && s->hot_gen == m->generation)
		return;
	s->hot_done = true;
	s->hot_gen = m->generation;
	s->nr_hot = 0;
	if (!m->nr_events)
		return;
	for (size_t i = 0; i < f->nr; i++) {
		const struct tui_row *r = &f->rows[i];
		size_t k;

		if (r->period[m->clk] <= 0)
			continue;
		for (k = s->nr_hot; k > 0 && s->hot[k - 1]->period[m->clk] < r->period[m->clk]; k--)
			if (k < NR_HOT)
				s->hot[k] = s->hot[k - 1];
		if (k < NR_HOT) {
			s->hot[k] = r;
			if (s->nr_hot < NR_HOT)
				s->nr_hot++;
		}
	}
	for (size_t k = 0; k < s->nr_hot; k++)
		s->hot_line[k] = NULL;
	for (size_t i = 0; i < l->nr; i++) {
		const struct tui_row *r = &l->rows[i];

		for (size_t k = 0; k < s->nr_hot && r->func >= 0; k++)
			if (&f->rows[r->func] == s->hot[k] && r->line && r->period[m->clk] > 0 &&
			    (!s->hot_line[k] || r->period[m->clk] > s->hot_line[k]->period[m->clk]))
				s->hot_line[k] = r;
	}
}

/* Where the time went: the hottest functions, with or without a PMU. */
static void add_hot(struct summary_view *s, const struct tui_model *m)
{
	find_hot(s, m);
	if (!s->nr_hot)
		return;
	add(s, TS_NORMAL, -1, "%s", "");
	add(s, TS_HEADER, -1, "Hot functions (by %s, self)", m->event_names[m->clk]);
	for (size_t k = 0; k < s->nr_hot; k++) {
		const struct tui_row *r = s->hot[k], *ln = s->hot_line[k];
		char where[96] = "-", name[160], at[96], full[512];

		if (ln)
			snprintf(where, sizeof(where), "%s:%u", base_name(ln->file), ln->line);
		tui_pad(tui_model__name(m, r->name, full, sizeof(full)), 28, name, sizeof(name));
		tui_pad(where, 18, at, sizeof(at));
		add(s, k ? TS_NORMAL : TS_HOT, -1, "  %5.1f%%  %s %s %s",
		    100 * tui_row__share(m, r), name, at, base_name(r->module))->hot = (int)k;
		s->nodes = xrealloc(s->nodes, (s->nr_nodes + 1) * sizeof(int));
		s->nodes[s->nr_nodes++] = (int)s->nr - 1;
	}
}

/* The bottleneck of the run and what to do about it. */
static void add_bottleneck(struct summary_view *s, const struct tui_model *m)
{
	const struct td_node *nd;

	if (!m->td || !m->run_ok || m->run.bottleneck < 0)
		return;
	nd = td_model__node(m->td, (size_t)m->run.bottleneck);
	add(s, TS_NORMAL, -1, "%s", "");
	add(s, TS_HEADER, -1, "Main bottleneck: %s", nd->name);
	if (nd->hint)
		add_wrapped(s, TS_WARN, "  ", "  ", nd->hint);
}

static void build(struct summary_view *s, int width)
{
	struct tui_model *m = s->v.m;
	int cpi;

	s->nr = 0;
	s->nr_nodes = 0;
	s->width = width;
	add(s, TS_NORMAL, -1, "Command  %s", m->command ? m->command : "?");
	if (m->ended)
		add(s, TS_WARN, -1, "Ended    %s", m->ended);
	add(s, TS_NORMAL, -1, "Duration %.2f s   Samples %llu   Lost %llu", m->duration_s,
	    (unsigned long long)m->nr_samples, (unsigned long long)m->lost);
	add(s, TS_NORMAL, -1, "CPU      %s", m->cpu_desc ? m->cpu_desc : "?");
	add(s, TS_NORMAL, -1, "Model    %s   SMT %s   PMU %s", m->model_id ? m->model_id : "?",
	    m->smt ? m->smt : "unknown", m->pmu ? "yes" : m->modelled ?
	    "none: MODELLED (Valgrind, llvm-mca)" : "no");
	add(s, TS_NORMAL, -1, "MUX      reliability %s", m->mux ? m->mux : "n/a");
	if (m->base) {
		const struct tui_model *b = m->base;
		int ca = m->td ? td_model__find_node(m->td, "CPI") : -1;
		int cb = b->td ? td_model__find_node(b->td, "CPI") : -1;

		add(s, TS_NORMAL, -1, "Baseline %s   %.2f s   Samples %llu   (d columns: this - baseline)",
		    m->base_title ? m->base_title : "?", b->duration_s,
		    (unsigned long long)b->nr_samples);
		if (ca >= 0 && cb >= 0 && m->run_ok && b->run_ok && !m->run.v[ca].na &&
		    !b->run.v[cb].na && b->run.v[cb].value > 0)
			add(s, TS_NORMAL, -1, "         CPI %.2f, baseline %.2f (%+.1f%%)",
			    m->run.v[ca].value, b->run.v[cb].value,
			    100 * (m->run.v[ca].value / b->run.v[cb].value - 1));
	}
	if (m->nr_confidence) {
		add(s, TS_NORMAL, -1, "Multiplexed estimates, 95%% interval, scale, share of the run counted:");
		for (size_t i = 0; i < m->nr_confidence; i++)
			add(s, TS_DIM, -1, "  %s", m->confidence[i]);
	}
	add_hot(s, m);
	add(s, TS_NORMAL, -1, "%s", "");
	if (m->td && m->run_ok) {
		cpi = td_model__find_node(m->td, "CPI");
		add(s, TS_HEADER, -1, "Top-down (%s%s)  * over threshold  < below  <== bottleneck",
		    m->modelled ? "modelled, not measured: " : "", td_model__id(m->td));
		add_tree(s, m, -1, 0);
		if (cpi >= 0 && !m->run.v[cpi].na)
			add(s, TS_NORMAL, -1, "  CPI %.2f%s", m->run.v[cpi].value,
			    m->modelled ? " (modelled)" : "");
	} else {
		add(s, TS_HEADER, -1, "Top-down");
		add_wrapped(s, TS_DIM, "  ", "  ", m->td_why ? m->td_why : "not available");
	}
	if (!m->nr_samples)
		add_wrapped(s, TS_WARN, "  ", "  ", "This result has no samples: the workload ran too "
			    "briefly or nothing could be measured.");
	add_bottleneck(s, m);
	if (m->nr_hints) {
		add(s, TS_NORMAL, -1, "%s", "");
		add(s, TS_HEADER, -1, "Hints");
		for (size_t i = 0; i < m->nr_hints; i++)
			add_wrapped(s, TS_WARN, "  - ", "    ", m->hints[i]);
	}
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct summary_view *s = (struct summary_view *)v;
	struct tui_model *m = v->m;
	int desc_h = 0, list_h, line_sel = -1;
	char e[512];

	build(s, c->w - 1);
	if (s->nr_nodes) {
		if (v->sel >= (int)s->nr_nodes)
			v->sel = (int)s->nr_nodes - 1;
		line_sel = s->nodes[v->sel];
		desc_h = h >= 14 ? 4 : h >= 9 ? 2 : 0;
	}
	list_h = h - desc_h;
	/* Scroll by lines so the selected node is visible. */
	{
		struct tui_view tmp = *v;

		tmp.sel = line_sel >= 0 ? line_sel : v->top;
		tmp.top = v->top;
		tui_view__scroll(&tmp, list_h);
		v->top = tmp.top;
		v->page = list_h;
	}
	for (int i = 0; i < list_h && v->top + i < (int)s->nr; i++) {
		const struct sline *l = &s->lines[v->top + i];
		bool sel = v->top + i == line_sel;

		tui_ellipsize(l->text, c->w - 1, e, sizeof(e));
		if (sel)
			canvas__fill(c, 0, y0 + i, c->w, TS_SELECTED);
		canvas__put(c, 0, y0 + i, sel ? TS_SELECTED : TS_NORMAL, sel ? ">" : " ", -1);
		canvas__put(c, 1, y0 + i, sel ? TS_SELECTED : l->st, e, -1);
	}
	if (desc_h && line_sel >= 0 && s->lines[line_sel].node >= 0) {
		const struct td_node *nd = td_model__node(m->td, (size_t)s->lines[line_sel].node);
		struct summary_view tmp = { .v = *v };
		int y = y0 + list_h;

		canvas__fill(c, 0, y, c->w, TS_HEADER);
		/* the authority's name, to compare with perf stat -M or topdown-tool */
		if (nd->upstream)
			canvas__printf(c, 0, y, TS_HEADER, "%s  upstream: %s", nd->name,
				       nd->upstream);
		else
			canvas__printf(c, 0, y, TS_HEADER, "%s  (gexplore's own)", nd->name);
		tmp.width = c->w - 1;
		add_wrapped(&tmp, TS_NORMAL, "", "", nd->desc ? nd->desc : "(no description)");
		if (nd->hint)
			add_wrapped(&tmp, TS_WARN, "Hint: ", "      ", nd->hint);
		for (int i = 0; i < desc_h - 1 && i < (int)tmp.nr; i++)
			canvas__put(c, 0, y + 1 + i, tmp.lines[i].st, tmp.lines[i].text, c->w);
		free(tmp.lines);
		free(tmp.nodes);
	}
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct summary_view *s = (struct summary_view *)v;
	struct tui_model *m = v->m;

	if (a == TA_ENTER) {
		static const enum tui_kind pref[] = { TK_FUNC, TK_MODULE, TK_THREAD, TK_PROCESS };
		enum tui_kind k = TK_FUNC;
		const struct sline *l = s->nr_nodes && v->sel < (int)s->nr_nodes ?
					&s->lines[s->nodes[v->sel]] : NULL;

		if (l && l->hot >= 0 && (size_t)l->hot < s->nr_hot) {	/* a hot function */
			re->next = tui_source_view__new(m, v->ld, (size_t)(s->hot[l->hot] -
								     m->tab[TK_FUNC].rows), 0);
			return TR_PUSH;
		}
		if (l && l->node >= 0)
			m->focus_node = l->node;
		for (size_t i = 0; i < ARRAY_SIZE(pref); i++)
			if (m->tab[pref[i]].nr) {
				k = pref[i];
				break;
			}
		re->next = tui_grid_view__new(m, v->ld, k);
		return TR_PUSH;
	}
	if (!s->nr_nodes)
		return TR_UNHANDLED;
	return tui_view__move(v, a, (int)s->nr_nodes);
}

static const char *status(struct tui_view *v)
{
	struct summary_view *s = (struct summary_view *)v;

	if (s->nr_nodes && v->sel < (int)s->nr_nodes && s->lines[s->nodes[v->sel]].hot >= 0)
		return "Enter: source of this function  g: grid  t: timeline  ?: help  q: quit";
	return "Enter: grid by this node  g: grid  t: timeline  ?: help  q: quit";
}

/* A time range or region: the hot functions are found again at the next
 * draw (the cursor stays on its entry). */
static bool sync(struct tui_view *v)
{
	struct summary_view *s = (struct summary_view *)v;

	s->hot_done = false;
	s->nr_hot = 0;
	return true;
}

static void destroy(struct tui_view *v)
{
	struct summary_view *s = (struct summary_view *)v;

	free(s->lines);
	free(s->nodes);
	free(s);
}

static const struct tui_view_ops summary_ops = {
	.name = "summary", .help = summary_help, .draw = draw, .handle = handle, .status = status,
	.sync = sync, .destroy = destroy,
};

struct tui_view *tui_summary_view__new(struct tui_model *m, struct tui_loader *ld)
{
	struct summary_view *s = tui_view__new(sizeof(*s), &summary_ops, m, ld, "summary: %s",
					       m->title ? m->title : "");

	/* Start on the bottleneck when there is one. */
	if (m->td && m->run_ok && m->run.bottleneck >= 0) {
		build(s, 80);
		for (size_t i = 0; i < s->nr_nodes; i++)
			if (s->lines[s->nodes[i]].node == m->run.bottleneck)
				s->v.sel = (int)i;
	}
	return &s->v;
}
