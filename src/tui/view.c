/*
 * view.c: the base every view shares — making one, moving its cursor
 * over a list, the message its reaction carries back — and the back
 * stack of views, apart from the app that drives them.
 */
#include "config.h"

#include "tui-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void *tui_view__new(size_t size, const struct tui_view_ops *ops, struct tui_model *m,
		    struct tui_loader *ld, const char *title_fmt, ...)
{
	struct tui_view *v = xzalloc(size);
	va_list ap;

	v->ops = ops;
	v->m = m;
	v->ld = ld;
	va_start(ap, title_fmt);
	vsnprintf(v->title, sizeof(v->title), title_fmt, ap);
	va_end(ap);
	return v;
}

unsigned tui_view__move(struct tui_view *v, enum tui_action a, int n)
{
	int page = v->page > 1 ? v->page : 1;

	switch (a) {
	case TA_UP:
		v->sel--;
		break;
	case TA_DOWN:
		v->sel++;
		break;
	case TA_PGUP:
		v->sel -= page;
		break;
	case TA_PGDN:
		v->sel += page;
		break;
	case TA_HOME:
		v->sel = 0;
		break;
	case TA_END:
		v->sel = n - 1;
		break;
	default:
		return TR_UNHANDLED;
	}
	if (v->sel >= n)
		v->sel = n - 1;
	if (v->sel < 0)
		v->sel = 0;
	return TR_REDRAW;
}

void tui_reaction__say(struct tui_reaction *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

void tui_stack__push(struct tui_stack *s, struct tui_view *v)
{
	if (!v)
		return;
	if (s->depth == TUI_MAX_STACK) {
		/* Drop the oldest sub-view: the summary stays at the bottom. */
		s->v[1]->ops->destroy(s->v[1]);
		memmove(&s->v[1], &s->v[2], (TUI_MAX_STACK - 2) * sizeof(s->v[0]));
		s->depth--;
	}
	s->v[s->depth++] = v;
}

void tui_stack__pop(struct tui_stack *s)
{
	if (s->depth > 1) {
		struct tui_view *v = s->v[--s->depth];

		v->ops->destroy(v);
	}
}

void tui_stack__clear(struct tui_stack *s)
{
	while (s->depth > 0) {
		struct tui_view *v = s->v[--s->depth];

		v->ops->destroy(v);
	}
}

int tui_stack__sync(struct tui_stack *s, char *closed, size_t n)
{
	int kept = 0, gone = 0;

	/* bottom up: a view pushed from one that closes may still stand on
	 * its own (its function is in the range) */
	for (int i = 0; i < s->depth; i++) {
		struct tui_view *v = s->v[i];

		if (!v->ops->sync || v->ops->sync(v)) {
			s->v[kept++] = v;
			continue;
		}
		if (!gone++)
			snprintf(closed, n, "%s", v->title);
		v->ops->destroy(v);
	}
	s->depth = kept;
	return gone;
}
