/*
 * view.c: the base every view shares — making one, moving its cursor
 * over a list, the message its reaction carries back — apart from the
 * app that stacks them.
 */
#include "config.h"

#include "tui-int.h"

#include <stdarg.h>
#include <stdio.h>

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
