/*
 * view-help.c: every key of the view it was opened from, what its marks
 * and colours mean (its legend, when it has one), then the keys that work
 * everywhere.
 */
#include "config.h"

#include "tui-int.h"

#include <stdio.h>
#include <stdlib.h>

static const struct tui_key_help global_help[] = {
	{ "?", "help for the current view" },
	{ "g", "bottom-up grid" },
	{ "t", "per-thread timeline" },
	{ "T", "top-down call tree (self and total per call path)" },
	{ "f", "flame graph (icicle: callers above callees)" },
	{ "o", "the hottest loops (branch stacks or the model)" },
	{ "a", "C++ template arguments: collapsed <...> or shown" },
	{ "s", "back to the summary" },
	{ "Esc", "back (the views form a stack)" },
	{ "q", "back; quit from the summary" },
	{ "Q", "quit at once, from any view" },
	{ "Ctrl-L", "repaint the screen" },
	{ NULL, NULL },
};

struct help_view {
	struct tui_view v;
	const struct tui_key_help *keys, *legend;
	char of[32];
	int n;
	int total, shown;	/* rows of help, and the last shown + 1 */
	char line[96];		/* the status line */
};

static int count(const struct tui_key_help *k)
{
	int n = 0;

	while (k && k[n].keys)
		n++;
	return n;
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct help_view *hv = (struct help_view *)v;
	int nk = count(hv->keys), nl = count(hv->legend), ng = count(global_help);
	int kw = c->w >= 60 ? 20 : 12;
	/* rows: header, keys, [header, legend], header, global keys */
	int lg = nl ? nk + 1 : -1, gl = nk + 1 + (nl ? nl + 1 : 0);
	int total = gl + 1 + ng;

	if (v->top > total - h)
		v->top = total - h > 0 ? total - h : 0;
	hv->total = total;
	hv->shown = v->top + h < total ? v->top + h : total;
	for (int i = 0; i < h && v->top + i < total; i++) {
		int k = v->top + i, y = y0 + i;
		const struct tui_key_help *e;

		if (k == 0) {
			canvas__printf(c, 0, y, TS_HEADER, "Keys of the %s view", hv->of);
			continue;
		}
		if (k == lg) {
			canvas__put(c, 0, y, TS_HEADER, "Legend", -1);
			continue;
		}
		if (k == gl) {
			canvas__put(c, 0, y, TS_HEADER, "Everywhere", -1);
			continue;
		}
		e = k <= nk ? &hv->keys[k - 1] : k < gl ? &hv->legend[k - lg - 1] :
		    &global_help[k - gl - 1];
		canvas__printf(c, 1, y, TS_HOT, "%-*.*s", kw, kw, e->keys);
		canvas__put(c, kw + 2, y, TS_NORMAL, e->what, c->w - kw - 2);
	}
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	(void)re;
	switch (a) {
	case TA_UP:
	case TA_PGUP:
		v->top = v->top > 0 ? v->top - (a == TA_UP ? 1 : 10) : 0;
		if (v->top < 0)
			v->top = 0;
		return TR_REDRAW;
	case TA_DOWN:
	case TA_PGDN:
		v->top += a == TA_DOWN ? 1 : 10;
		return TR_REDRAW;
	case TA_ENTER:
		return TR_POP;
	default:
		return TR_UNHANDLED;
	}
}

/* What more there is (a small terminal cut the help at 80x20 with no
 * word of it: issue 41), and how to close it. */
static const char *status(struct tui_view *v)
{
	struct help_view *hv = (struct help_view *)v;

	if (hv->shown < hv->total || v->top > 0)
		snprintf(hv->line, sizeof(hv->line), "rows %d-%d of %d: Down more, q closes",
			 v->top + 1, hv->shown, hv->total);
	else
		snprintf(hv->line, sizeof(hv->line), "q/Esc/Left: close help");
	return hv->line;
}

static void destroy(struct tui_view *v)
{
	free(v);
}

static const struct tui_view_ops help_ops = {
	.name = "help", .draw = draw, .handle = handle, .status = status, .destroy = destroy,
};

struct tui_view *tui_help_view__new(struct tui_model *m, struct tui_loader *ld,
				const struct tui_view *of)
{
	struct help_view *h = tui_view__new(sizeof(*h), &help_ops, m, ld, "help: %s",
					    of->ops->name);

	h->keys = of->ops->help;
	h->legend = of->ops->legend;
	snprintf(h->of, sizeof(h->of), "%s", of->ops->name);
	return &h->v;
}
