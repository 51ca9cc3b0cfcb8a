/*
 * view-calltree.c: the top-down call tree — commands, then the call paths
 * from the outermost caller in, one row per distinct path prefix with its
 * self and total share of the run (the data of `report --folded`).
 * Right/Left expand and collapse, + and - a whole subtree, H opens the
 * hottest path; Enter opens the function's source, c its callers and
 * callees. The tree list helpers here serve the callers view too.
 */
#include "config.h"

#include "tui-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a tree as a list ------------------------------------------------- */

void tui_treelist__init(struct tui_treelist *l, const struct tui_tree *t, int32_t root)
{
	memset(l, 0, sizeof(*l));
	l->t = t;
	l->root = root;
	l->open = xcalloc(t->nr + 1, sizeof(bool));
}

void tui_treelist__exit(struct tui_treelist *l)
{
	free(l->open);
	free(l->rows);
	memset(l, 0, sizeof(*l));
}

static void rebuild(struct tui_treelist *l)
{
	l->nr = 0;
	tui_tree__flatten(l->t, l->root, l->open, &l->rows, &l->nr, &l->cap);
}

static int row_of(const struct tui_treelist *l, int32_t node)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->rows[i] == node)
			return (int)i;
	return 0;
}

int32_t tui_treelist__hot_path(struct tui_treelist *l, int32_t from, bool all)
{
	int32_t at = from;

	if (at < 0)
		at = l->root;
	/* Not all: only while the hottest callee holds half of its caller
	 * (a function's rare interrupts stay closed). */
	while (l->t->n[at].first >= 0 &&
	       (all || 2 * l->t->n[l->t->n[at].first].total >= l->t->n[at].total)) {
		l->open[at] = true;
		at = l->t->n[at].first;
	}
	rebuild(l);
	return at;
}

/* Open or close node and everything below it. */
static void set_subtree(struct tui_treelist *l, int32_t node, bool open)
{
	const struct tui_tree *t = l->t;
	int32_t at = node;

	/* depth-first over the subtree without a stack: first, next, parent */
	for (;;) {
		l->open[at] = open && t->n[at].first >= 0;
		if (t->n[at].first >= 0) {
			at = t->n[at].first;
			continue;
		}
		while (at != node && t->n[at].next < 0)
			at = t->n[at].parent;
		if (at == node)
			break;
		at = t->n[at].next;
	}
}

unsigned tui_treelist__act(struct tui_treelist *l, enum tui_action a, int *i)
{
	int32_t node;
	const struct tui_tnode *x;

	if (!l->nr || *i < 0 || *i >= (int)l->nr)
		return a == TA_LEFT ? TR_UNHANDLED : TR_REDRAW;
	node = l->rows[*i];
	x = &l->t->n[node];
	switch (a) {
	case TA_RIGHT:
		if (x->first < 0)
			return TR_REDRAW;
		if (!l->open[node]) {
			l->open[node] = true;
			rebuild(l);
		} else {
			(*i)++;	/* the first child is the next row */
		}
		return TR_REDRAW;
	case TA_LEFT:
		if (l->open[node]) {
			l->open[node] = false;
			rebuild(l);
			return TR_REDRAW;
		}
		if (x->parent < 0 || x->parent == l->root)
			return TR_UNHANDLED;
		*i = row_of(l, x->parent);
		return TR_REDRAW;
	case TA_EXPAND:
	case TA_COLLAPSE:
		set_subtree(l, node, a == TA_EXPAND);
		rebuild(l);
		*i = row_of(l, node);
		return TR_REDRAW;
	case TA_HOTTEST:
		*i = row_of(l, tui_treelist__hot_path(l, node, true));
		return TR_REDRAW;
	default:
		return TR_UNHANDLED;
	}
}

/* ---- a node by identity ------------------------------------------------ */

void tui_tpath__of(struct tui_tpath *p, const struct tui_model *m, const struct tui_tree *t,
		   int32_t node)
{
	const struct tui_table *ft = tui_model__old_table(m, TK_FUNC);
	size_t n = 0;

	memset(p, 0, sizeof(*p));
	if (!t || node <= 0 || (size_t)node >= t->nr)
		return;
	for (int32_t at = node; at > 0; at = t->n[at].parent)
		n++;
	p->step = xcalloc(n + 1, sizeof(*p->step));
	p->nr = n;
	for (int32_t at = node; at > 0; at = t->n[at].parent) {
		const struct tui_tnode *x = &t->n[at];
		struct tui_rkey *k = &p->step[--n];

		k->name = k->module = k->file = "";
		if (x->func == TUI_TNODE_COMM) {
			k->kind = TK_PROCESS;
			k->name = x->comm ? x->comm : "";
		} else if (x->func < ft->nr) {
			tui_rkey__of(k, TK_FUNC, &ft->rows[x->func]);
		}
	}
}

int32_t tui_tpath__find(const struct tui_tpath *p, const struct tui_model *m,
			const struct tui_tree *t)
{
	const struct tui_table *ft = &m->tab[TK_FUNC];
	int32_t at = 0;

	for (size_t i = 0; i < p->nr && t->nr; i++) {
		const struct tui_rkey *k = &p->step[i];
		int32_t c;

		for (c = t->n[at].first; c >= 0; c = t->n[c].next) {
			const struct tui_tnode *x = &t->n[c];

			if (k->kind == TK_PROCESS ? x->func == TUI_TNODE_COMM &&
						    !strcmp(x->comm ? x->comm : "", k->name) :
			    x->func != TUI_TNODE_COMM && x->func < ft->nr &&
			    tui_rkey__is(k, &ft->rows[x->func]))
				break;
		}
		if (c < 0)
			break;
		at = c;
	}
	return at;
}

void tui_tpath__exit(struct tui_tpath *p)
{
	free(p->step);
	memset(p, 0, sizeof(*p));
}

/* ---- drawing a row ---------------------------------------------------- */

void tui_tree_row__header(struct tui_canvas *c, int y, const char *what)
{
	canvas__fill(c, 0, y, c->w, TS_HEADER);
	canvas__printf(c, 1, y, TS_HEADER, "%6s  %6s %s", "Self%", "Total%", what);
	if (c->w >= 100)
		canvas__put(c, c->w - 17, y, TS_HEADER, "Module", -1);
}

static const char *node_name(const struct tui_model *m, const struct tui_tnode *x, char *buf,
			     size_t n)
{
	if (x->func == TUI_TNODE_COMM)
		return x->comm ? x->comm : "?";
	if (x->func >= m->tab[TK_FUNC].nr)
		return "?";
	return tui_model__name(m, m->tab[TK_FUNC].rows[x->func].name, buf, n);
}

void tui_tree_row__draw(struct tui_canvas *c, int y, struct tui_model *m,
			const struct tui_tree *t, int32_t node, uint32_t base_depth, bool open,
			bool sel)
{
	const struct tui_tnode *x = &t->n[node];
	double total = tui_model__total(m);
	double self = total > 0 ? x->self / total : 0, tot = total > 0 ? x->total / total : 0;
	bool hot = self >= 0.05;
	enum tui_style st = sel ? TS_SELECTED : hot ? TS_HOT : tot < 0.001 ? TS_DIM : TS_NORMAL;
	int namex = 16, modw = c->w >= 100 ? 17 : 0, namew = c->w - namex - modw - 1;
	int depth = (int)(x->depth - (x->depth >= base_depth ? base_depth : x->depth));
	int indent = 2 * depth;
	char buf[512], name[512], e[600];

	if (sel)
		canvas__fill(c, 0, y, c->w, TS_SELECTED);
	canvas__put(c, 0, y, st, sel ? ">" : " ", -1);
	canvas__printf(c, 1, y, st, "%5.1f%%%c %5.1f%%", 100 * self, hot ? '*' : ' ', 100 * tot);
	if (namew < 8)
		return;
	/* Deep trees: the indentation stops at half the name column and
	 * says the depth instead. */
	if (indent > namew / 2) {
		snprintf(buf, sizeof(buf), "%d:", depth);
		indent = namew / 2 - (int)strlen(buf);
		if (indent < 0)
			indent = 0;
		canvas__put(c, namex + indent, y, sel ? TS_SELECTED : TS_DIM, buf, -1);
		indent += (int)strlen(buf);
	}
	snprintf(name, sizeof(name), "%c %s", x->first < 0 ? ' ' : open ? '-' : '+',
		 node_name(m, x, buf, sizeof(buf)));
	tui_ellipsize(name, namew - indent, e, sizeof(e));
	canvas__put(c, namex + indent, y, sel ? TS_SELECTED : TS_NORMAL, e, -1);
	if (modw && x->func != TUI_TNODE_COMM && x->func < m->tab[TK_FUNC].nr) {
		tui_ellipsize(tui_base_name(m->tab[TK_FUNC].rows[x->func].module), modw - 1, e,
			      sizeof(e));
		canvas__put(c, c->w - modw, y, sel ? TS_SELECTED : TS_DIM, e, -1);
	}
}

/* ---- the view ---------------------------------------------------------- */

struct calltree_view {
	struct tui_view v;
	struct tui_treelist l;
	unsigned gen;
	char status[256];
};

static const struct tui_key_help calltree_help[] = {
	{ "Up/Down j/k", "move the cursor" },
	{ "PgUp/PgDn Home/End", "page, first/last row" },
	{ "Right Left", "expand, collapse (Left again: to the caller)" },
	{ "+ -", "expand, collapse everything below" },
	{ "H", "open the hottest path below the cursor" },
	{ "Enter", "source of the function" },
	{ "c d", "callers and callees, disassembly of the function" },
	{ "f", "flame graph" },
	{ "Esc q", "back" },
	{ NULL, NULL },
};

static const struct tui_key_help calltree_legend[] = {
	{ "Self% Total%", "share of the run in the function, and with what it calls" },
	{ "+ -", "a closed, an open node" },
	{ "*", "self over 5% of the run (hot colour)" },
	{ "N:", "depth, where the indentation stops" },
	{ NULL, NULL },
};

static void setup(struct calltree_view *s)
{
	struct tui_model *m = s->v.m;

	tui_treelist__exit(&s->l);
	tui_treelist__init(&s->l, tui_model__calltree(m), 0);
	s->gen = m->generation;
	/* open on the hottest path, the cursor at its top */
	tui_treelist__hot_path(&s->l, 0, false);
	s->v.sel = s->v.top = 0;
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct calltree_view *s = (struct calltree_view *)v;
	struct tui_model *m = v->m;

	if (s->gen != m->generation)
		setup(s);
	tui_tree_row__header(c, y0, "call tree (callers above callees)");
	if (!s->l.nr) {
		canvas__put_wrapped(c, 1, y0 + 2, 3, TS_WARN, m->tab[TK_FUNC].nr ?
				    "no call paths in this result" :
				    "no function rows: this result was not symbolized");
		return;
	}
	tui_view__scroll(v, h - 1);
	for (int i = 0; i < h - 1 && v->top + i < (int)s->l.nr; i++) {
		int32_t node = s->l.rows[v->top + i];

		tui_tree_row__draw(c, y0 + 1 + i, m, s->l.t, node, 0, s->l.open[node],
				   v->top + i == v->sel);
	}
	if (!m->has_callchains && h > 4 && (int)s->l.nr < h - 3)
		canvas__put_wrapped(c, 1, y0 + 2 + (int)s->l.nr, 2, TS_WARN,
				    "no call stacks: record with -g for callers and callees");
}

static int selected_func(struct calltree_view *s)
{
	const struct tui_tnode *x;

	if (!s->l.nr || s->v.sel < 0 || s->v.sel >= (int)s->l.nr)
		return -1;
	x = &s->l.t->n[s->l.rows[s->v.sel]];
	return x->func == TUI_TNODE_COMM ? -1 : (int)x->func;
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct calltree_view *s = (struct calltree_view *)v;
	int f = selected_func(s);

	switch (a) {
	case TA_RIGHT:
	case TA_LEFT:
	case TA_EXPAND:
	case TA_COLLAPSE:
	case TA_HOTTEST:
		return tui_treelist__act(&s->l, a, &v->sel);
	case TA_ENTER:
	case TA_CALLERS:
	case TA_DISASM:
		if (f < 0) {	/* a command: open or close it */
			return tui_treelist__act(&s->l, s->l.nr && s->l.open[s->l.rows[v->sel]] ?
						 TA_LEFT : TA_RIGHT, &v->sel) & TR_REDRAW;
		}
		re->next = a == TA_ENTER ? tui_source_view__new(v->m, v->ld, (size_t)f, 0) :
			    a == TA_CALLERS ? tui_callers_view__new(v->m, v->ld, (size_t)f) :
			    tui_disasm_view__new(v->m, v->ld, (size_t)f, 0);
		return TR_PUSH;
	default:
		return tui_view__move(v, a, (int)s->l.nr);
	}
}

static const char *status(struct tui_view *v)
{
	struct calltree_view *s = (struct calltree_view *)v;
	struct tui_model *m = v->m;
	double total = tui_model__total(m);
	const struct tui_tnode *x;
	char buf[512];

	if (!s->l.nr || v->sel >= (int)s->l.nr)
		return "Esc: back";
	x = &s->l.t->n[s->l.rows[v->sel]];
	snprintf(s->status, sizeof(s->status), "%s: self %.1f%%, total %.1f%% of the run, depth %u"
		 "  Right/Left: open/close", node_name(m, x, buf, sizeof(buf)),
		 total > 0 ? 100 * x->self / total : 0, total > 0 ? 100 * x->total / total : 0,
		 x->depth);
	return s->status;
}

/* A time range or region: the new tree, the cursor on the same call
 * path as far as the new tree has it, the nodes above it open. */
static bool sync(struct tui_view *v)
{
	struct calltree_view *s = (struct calltree_view *)v;
	struct tui_tpath p;
	int32_t node;

	tui_tpath__of(&p, v->m, s->l.t, s->l.nr && v->sel >= 0 && v->sel < (int)s->l.nr ?
		      s->l.rows[v->sel] : 0);
	setup(s);
	node = tui_tpath__find(&p, v->m, s->l.t);
	tui_tpath__exit(&p);
	if (node > 0) {
		for (int32_t at = s->l.t->n[node].parent; at >= 0; at = s->l.t->n[at].parent)
			s->l.open[at] = true;
		rebuild(&s->l);
		v->sel = row_of(&s->l, node);
	}
	return true;
}

static void destroy(struct tui_view *v)
{
	struct calltree_view *s = (struct calltree_view *)v;

	tui_treelist__exit(&s->l);
	free(s);
}

static const struct tui_view_ops calltree_ops = {
	.name = "call tree", .help = calltree_help, .legend = calltree_legend, .draw = draw,
	.handle = handle, .status = status, .sync = sync, .destroy = destroy,
};

struct tui_view *tui_calltree_view__new(struct tui_model *m, struct tui_loader *ld)
{
	struct calltree_view *s = tui_view__new(sizeof(*s), &calltree_ops, m, ld, "call tree "
						"(top-down)");

	setup(s);
	return &s->v;
}
