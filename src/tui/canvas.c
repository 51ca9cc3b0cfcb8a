/*
 * canvas.c: the in-memory screen every view draws into, and its text
 * dump for golden tests.
 */
#include "config.h"

#include "tui-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char tui_style_letter(enum tui_style s)
{
	static const char letters[TS_NR_] = ".TshSHDBW";

	return (unsigned)s < TS_NR_ ? letters[s] : '?';
}

void canvas__init(struct tui_canvas *c, int w, int h)
{
	c->w = w > 0 ? w : 1;
	c->h = h > 0 ? h : 1;
	c->cells = xcalloc((size_t)c->w * (size_t)c->h, sizeof(*c->cells));
	canvas__clear(c);
}

void canvas__exit(struct tui_canvas *c)
{
	free(c->cells);
	c->cells = NULL;
}

void canvas__resize(struct tui_canvas *c, int w, int h)
{
	canvas__exit(c);
	canvas__init(c, w, h);
}

void canvas__clear(struct tui_canvas *c)
{
	for (int i = 0; i < c->w * c->h; i++) {
		c->cells[i].ch = ' ';
		c->cells[i].style = TS_NORMAL;
	}
}

int canvas__put(struct tui_canvas *c, int x, int y, enum tui_style st, const char *s, int max)
{
	int n = 0;

	if (y < 0 || y >= c->h)
		return 0;
	for (; *s && x < c->w && (max < 0 || n < max); s++, x++, n++) {
		unsigned char ch = (unsigned char)*s;

		if (x < 0)
			continue;
		c->cells[y * c->w + x].ch = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		c->cells[y * c->w + x].style = (uint8_t)st;
	}
	return n;
}

int canvas__printf(struct tui_canvas *c, int x, int y, enum tui_style st, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return canvas__put(c, x, y, st, buf, -1);
}

void canvas__fill(struct tui_canvas *c, int x, int y, int n, enum tui_style st)
{
	if (y < 0 || y >= c->h)
		return;
	for (int i = x < 0 ? 0 : x; i < x + n && i < c->w; i++) {
		c->cells[y * c->w + i].ch = ' ';
		c->cells[y * c->w + i].style = (uint8_t)st;
	}
}

void canvas__style(struct tui_canvas *c, int x, int y, int n, enum tui_style st)
{
	if (y < 0 || y >= c->h)
		return;
	for (int i = x < 0 ? 0 : x; i < x + n && i < c->w; i++)
		c->cells[y * c->w + i].style = (uint8_t)st;
}

void canvas__dump(const struct tui_canvas *c, struct strbuf *text, struct strbuf *styles)
{
	for (int y = 0; y < c->h; y++) {
		const struct tui_cell *row = c->cells + y * c->w;
		int end = c->w, send = c->w;

		while (end > 0 && row[end - 1].ch == ' ')
			end--;
		while (send > 0 && row[send - 1].style == TS_NORMAL)
			send--;
		for (int x = 0; x < end; x++)
			strbuf__add(text, &row[x].ch, 1);
		strbuf__addstr(text, "\n");
		if (styles) {
			for (int x = 0; x < send; x++) {
				char l = tui_style_letter((enum tui_style)row[x].style);

				strbuf__add(styles, &l, 1);
			}
			strbuf__addstr(styles, "\n");
		}
	}
}

void tui_ellipsize(const char *s, int w, char *out)
{
	size_t len = strlen(s);
	size_t head, tail;

	if (w <= 0) {
		out[0] = 0;
		return;
	}
	if (len <= (size_t)w) {
		memcpy(out, s, len + 1);
		return;
	}
	if (w < 3) {
		memcpy(out, s, (size_t)w);
		out[w] = 0;
		return;
	}
	/* Keep more of the tail: file and function names end in the part
	 * that tells them apart ("...::operator()", "libfoo.so.6"). */
	head = (size_t)(w - 1) / 2;
	tail = (size_t)(w - 1) - head;
	memcpy(out, s, head);
	out[head] = '~';
	memcpy(out + head + 1, s + len - tail, tail);
	out[w] = 0;
}

void tui_wrap(const char *text, int w, void (*emit)(void *ctx, const char *line), void *ctx)
{
	char buf[1024];
	const char *s = text;

	if (w < 8)
		w = 8;
	if (w > (int)sizeof(buf) - 1)
		w = (int)sizeof(buf) - 1;
	while (*s) {
		size_t len = strlen(s), cut;

		if (len <= (size_t)w) {
			emit(ctx, s);
			return;
		}
		cut = (size_t)w;
		while (cut > 0 && s[cut] != ' ')
			cut--;
		if (cut == 0)
			cut = (size_t)w;	/* one long word: break it */
		memcpy(buf, s, cut);
		buf[cut] = 0;
		emit(ctx, buf);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

struct put_ctx {
	struct tui_canvas *c;
	int x, y, n, max;
	enum tui_style st;
};

static void put_line(void *ctx, const char *line)
{
	struct put_ctx *p = ctx;

	if (p->n < p->max)
		canvas__put(p->c, p->x, p->y + p->n, p->st, line, -1);
	p->n++;
}

int canvas__put_wrapped(struct tui_canvas *c, int x, int y, int max_rows, enum tui_style st,
			const char *s)
{
	struct put_ctx p = { c, x, y, 0, max_rows, st };

	if (max_rows <= 0)
		return 0;
	tui_wrap(s, c->w - x, put_line, &p);
	return p.n < max_rows ? p.n : max_rows;
}
