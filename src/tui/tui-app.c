/*
 * tui-app.c: the views (their back stack, view.c), the '/' prompt, the title and
 * status bars, and the keys every view shares. Curses-free: term.c feeds
 * keys and copies the canvas out; tests do the same headless.
 */
#include "config.h"

#include "tui-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tui_app__init(struct tui_app *a, struct tui_model *m, struct tui_loader *ld)
{
	static struct tui_loader none;	/* can do nothing */

	memset(a, 0, sizeof(*a));
	a->m = m;
	a->ld = ld ? ld : &none;
	a->gen = m->generation;
	tui_stack__push(&a->views, tui_summary_view__new(m, a->ld));
}

void tui_app__exit(struct tui_app *a)
{
	tui_stack__clear(&a->views);
}

static void GX_PRINTF(2, 3) message(struct tui_app *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
}

void tui_app__sync(struct tui_app *a)
{
	struct tui_model *m = a->m;
	char closed[160] = "";
	int gone;

	if (a->gen == m->generation)
		return;
	gone = tui_stack__sync(&a->views, closed, sizeof(closed));
	a->gen = m->generation;
	tui_model__drop_old(m);
	if (gone) {
		size_t l = strlen(a->msg);

		char more[32] = "";

		if (gone > 1)
			snprintf(more, sizeof(more), " (+%d more)", gone - 1);
		snprintf(a->msg + l, sizeof(a->msg) - l, "%sclosed %s%s: no samples %s", l ? "; " : "",
			 closed, more,
			 m->range_hi ? "in the range" : m->region >= 0 ? "in the region" : "now");
	}
}

/* The kind the grid opens on: functions when symbolized, else the first
 * kind that has rows. */
static enum tui_kind default_kind(const struct tui_model *m)
{
	static const enum tui_kind pref[] = { TK_FUNC, TK_MODULE, TK_THREAD, TK_PROCESS };

	for (size_t i = 0; i < ARRAY_SIZE(pref); i++)
		if (m->tab[pref[i]].nr)
			return pref[i];
	return TK_FUNC;
}

static void prompt_key(struct tui_app *a, int key)
{
	struct tui_view *v = tui_stack__top(&a->views);

	if (key == TK_ENTER) {
		a->prompting = false;
		a->prompt[a->prompt_len] = 0;
		v->ops->search(v, a->prompt);
	} else if (key == TK_ESC) {
		a->prompting = false;
	} else if (key == TK_BACKSPACE || key == 127 || key == 8) {
		if (a->prompt_len)
			a->prompt[--a->prompt_len] = 0;
	} else if (key >= 0x20 && key < 0x7f && a->prompt_len + 1 < sizeof(a->prompt)) {
		a->prompt[a->prompt_len++] = (char)key;
		a->prompt[a->prompt_len] = 0;
	}
}

/* A key no view handled: the application's own (back, quit, the views'
 * letters), or one of another view's, which is said. v is the view it was
 * given to, re what that view answered. */
static void app_key(struct tui_app *a, struct tui_view *v, enum tui_action act, int key,
		    const struct tui_reaction *re)
{
	switch (act) {
	case TA_BACK:
		if (a->views.depth > 1)
			tui_stack__pop(&a->views);
		break;
	case TA_QUIT:
		if (a->views.depth > 1)
			tui_stack__pop(&a->views);
		else
			a->quit = true;
		break;
	case TA_QUIT_ALL:
		a->quit = true;
		break;
	case TA_REPAINT:
		a->repaint = true;
		break;
	case TA_FILTER:
		if (v->ops->search) {
			a->prompting = true;
			a->prompt_len = 0;
			a->prompt[0] = 0;
		} else {
			message(a, "nothing to filter or search here");
		}
		break;
	case TA_GRID:
		tui_stack__push(&a->views, tui_grid_view__new(a->m, a->ld, default_kind(a->m)));
		break;
	case TA_TIMELINE:
		tui_stack__push(&a->views, tui_timeline_view__new(a->m, a->ld));
		break;
	case TA_CALLTREE:
		tui_stack__push(&a->views, tui_calltree_view__new(a->m, a->ld));
		break;
	case TA_FLAME:
		tui_stack__push(&a->views, tui_flame_view__new(a->m, a->ld));
		break;
	case TA_LOOPS:
		tui_stack__push(&a->views, tui_loops_view__new(a->m, a->ld));
		break;
	case TA_TEMPLATES:
		a->m->template_args = !a->m->template_args;
		message(a, "C++ template arguments %s (a toggles)",
			a->m->template_args ? "shown" : "collapsed to <...>");
		break;
	case TA_SUMMARY:
		while (a->views.depth > 1)
			tui_stack__pop(&a->views);
		break;
	case TA_CALLERS:
	case TA_DISASM:
	case TA_KIND:
	case TA_CURSOR_LEFT:
	case TA_CURSOR_RIGHT:
	case TA_MARK:
	case TA_REGION:
	case TA_EXPAND:
	case TA_COLLAPSE:
	case TA_PAGE_RIGHT:
		/* a key of other views: said, not silently dropped (issue 41:
		 * c in the disassembly did nothing and said nothing) */
		if (!re->msg[0])
			message(a, "%s does nothing in the %s view (? lists its keys)",
				tui_key_name(key), tui_stack__top(&a->views)->ops->name);
		break;
	default:
		break;
	}
}

void tui_app__key(struct tui_app *a, int key)
{
	struct tui_reaction re = { 0 };
	struct tui_view *v;
	enum tui_action act;
	unsigned r;

	if (a->prompting) {
		prompt_key(a, key);
		return;
	}
	a->msg[0] = 0;
	act = tui_key_action(key);
	v = tui_stack__top(&a->views);
	if (act == TA_NONE || act == TA_RESIZE)
		return;
	if (act == TA_QUIT_ALL) {	/* Q: at once, whatever the view */
		a->quit = true;
		return;
	}
	if (act == TA_REPAINT) {
		a->repaint = true;
		return;
	}
	if (act == TA_HELP) {
		if (v->ops->help)	/* the help view has none: ? again does nothing */
			tui_stack__push(&a->views, tui_help_view__new(a->m, a->ld, v));
		return;
	}
	r = v->ops->handle(v, act, &re);
	/* Left and Right are back and drill-in, except in the views that
	 * collapse and expand with them (trees, the flame graph). */
	if ((r & TR_UNHANDLED) && (act == TA_LEFT || act == TA_RIGHT)) {
		act = act == TA_LEFT ? TA_BACK : TA_ENTER;
		r = v->ops->handle(v, act, &re);
	}
	/* what the view said, before what a sync adds to it */
	snprintf(a->msg, sizeof(a->msg), "%s", re.msg);
	if (r & TR_PUSH)
		tui_stack__push(&a->views, re.next);
	if (r & TR_POP)
		tui_stack__pop(&a->views);
	if (r & TR_QUIT)
		a->quit = true;
	tui_app__sync(a);	/* the key applied or cleared a range */
	if (r & TR_UNHANDLED)
		app_key(a, v, act, key, &re);
}

static void draw_small(struct tui_canvas *c)
{
	canvas__clear(c);
	canvas__put(c, 0, 0, TS_WARN, "terminal too small", -1);
	canvas__printf(c, 0, 1, TS_NORMAL, "need %dx%d", TUI_MIN_W, TUI_MIN_H);
	canvas__put(c, 0, 2, TS_NORMAL, "q quits", -1);
}

void tui_app__draw(struct tui_app *a, struct tui_canvas *c)
{
	struct tui_view *v = tui_stack__top(&a->views);
	const char *st;
	char buf[512], right[64];
	int rl;

	if (c->w < TUI_MIN_W || c->h < TUI_MIN_H) {
		draw_small(c);
		return;
	}
	canvas__clear(c);
	canvas__fill(c, 0, 0, c->w, TS_TITLE);
	snprintf(right, sizeof(right), " ?:help q:%s ", a->views.depth > 1 ? "back" : "quit");
	rl = (int)strlen(right);
	snprintf(buf, sizeof(buf), "%s%s", c->w >= 60 ? "gexplore " : "", v->title);
	if (c->w - rl >= 20) {
		char e[512];

		tui_ellipsize(buf, c->w - rl - 1, e, sizeof(e));
		canvas__put(c, 0, 0, TS_TITLE, e, -1);
		canvas__put(c, c->w - rl, 0, TS_TITLE, right, -1);
	} else {
		char e[512];

		tui_ellipsize(buf, c->w, e, sizeof(e));
		canvas__put(c, 0, 0, TS_TITLE, e, -1);
	}
	v->ops->draw(v, c, 1, c->h - 2);
	canvas__fill(c, 0, c->h - 1, c->w, TS_STATUS);
	if (a->prompting) {
		canvas__printf(c, 0, c->h - 1, TS_STATUS, "/%s_", a->prompt);
	} else if (a->msg[0]) {
		canvas__put(c, 0, c->h - 1, TS_STATUS, a->msg, -1);
	} else if (v->ops->status && (st = v->ops->status(v)) != NULL) {
		char e[512];

		tui_ellipsize(st, c->w, e, sizeof(e));
		canvas__put(c, 0, c->h - 1, TS_STATUS, e, -1);
	}
}
