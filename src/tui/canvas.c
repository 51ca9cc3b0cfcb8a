/*
 * canvas.c: the in-memory screen every view draws into, and its text
 * dump for golden tests. Cells hold Unicode code points decoded from the
 * UTF-8 the views write; a wide character (wcwidth 2) takes two cells,
 * the second marked as its right half, so columns stay aligned whatever
 * the names hold.
 */
#include "config.h"

#include "tui-int.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

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

int tui_utf8_next(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	int n;
	uint32_t v;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
		v = u[0] & 0x1f;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		v = u[0] & 0x0f;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		v = u[0] & 0x07;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (int i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return 1;
		}
		v = v << 6 | (u[i] & 0x3f);
	}
	/* overlong forms, surrogates and past U+10FFFF are not characters */
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff)) {
		*cp = 0xfffd;
		return 1;
	}
	*cp = v;
	return n;
}

/* Wide (2) and combining (0) characters when the C library cannot say:
 * the East Asian wide blocks and the common combining marks. */
static int table_width(uint32_t cp)
{
	if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0xfe00 && cp <= 0xfe0f))
		return 0;
	if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) ||
	    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
	    (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
	    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
	    (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd))
		return 2;
	return 1;
}

int tui_cp_width(uint32_t cp)
{
	static locale_t utf8;
	static bool tried;
	locale_t old;
	int w;

	if (cp >= 0x20 && cp < 0x7f)
		return 1;
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return -1;
	/* wcwidth under a UTF-8 locale whatever the user's: the screen and
	 * the golden dumps must not depend on LANG. */
	if (!tried) {
		tried = true;
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	}
	if (!utf8)
		return table_width(cp);
	old = uselocale(utf8);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? table_width(cp) : w;
}

int tui_str_width(const char *s)
{
	int w = 0;

	while (*s) {
		uint32_t cp;
		int cw;

		s += tui_utf8_next(s, &cp);
		cw = tui_cp_width(cp);
		w += cw < 0 ? 1 : cw;
	}
	return w;
}

/* Put one character of width cw (1 or 2) at (x, y), mending a wide
 * character it overwrites half of. */
static void set_cell(struct tui_canvas *c, int x, int y, uint32_t cp, int cw, enum tui_style st)
{
	struct tui_cell *row = c->cells + y * c->w;

	if (row[x].ch == TUI_WIDE_RIGHT && x > 0)
		row[x - 1].ch = ' ';
	if (x + cw < c->w && row[x + cw].ch == TUI_WIDE_RIGHT)
		row[x + cw].ch = ' ';
	row[x].ch = cp;
	row[x].style = (uint8_t)st;
	if (cw == 2) {
		row[x + 1].ch = TUI_WIDE_RIGHT;
		row[x + 1].style = (uint8_t)st;
	}
}

int canvas__put(struct tui_canvas *c, int x, int y, enum tui_style st, const char *s, int max)
{
	int n = 0;

	if (y < 0 || y >= c->h)
		return 0;
	while (*s && x < c->w && (max < 0 || n < max)) {
		uint32_t cp;
		int cw;

		s += tui_utf8_next(s, &cp);
		cw = tui_cp_width(cp);
		if (cw == 0)
			continue;	/* combining marks: dropped, the base stays */
		if (cw < 0) {
			cp = '?';	/* control bytes */
			cw = 1;
		}
		if (cw == 2 && (x + 2 > c->w || (max >= 0 && n + 2 > max)))
			break;		/* half a wide character would not do */
		if (x >= 0)
			set_cell(c, x, y, cp, cw, st);
		x += cw;
		n += cw;
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
		for (int x = 0; x < end; x++) {
			char u[4];

			if (row[x].ch != TUI_WIDE_RIGHT)
				strbuf__add(text, u, tui_utf8_put(row[x].ch, u));
		}
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

int tui_utf8_put(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Bytes of the longest prefix of s at most w cells wide; its width to *got. */
static size_t prefix_bytes(const char *s, int w, int *got)
{
	size_t b = 0;

	*got = 0;
	while (s[b]) {
		uint32_t cp;
		int n = tui_utf8_next(s + b, &cp), cw = tui_cp_width(cp);

		cw = cw < 0 ? 1 : cw;
		if (*got + cw > w)
			break;
		*got += cw;
		b += (size_t)n;
	}
	return b;
}

/* Start of the longest suffix of s (len bytes) at most w cells wide. */
static size_t suffix_start(const char *s, size_t len, int w)
{
	size_t b = len;
	int got = 0;

	while (b > 0) {
		size_t p = b - 1;
		uint32_t cp;
		int cw;

		while (p > 0 && ((unsigned char)s[p] & 0xc0) == 0x80 && b - p < 4)
			p--;
		if ((size_t)tui_utf8_next(s + p, &cp) != b - p) {
			p = b - 1;	/* a stray byte: one cell of its own */
			cp = '?';
		}
		cw = tui_cp_width(cp);
		cw = cw < 0 ? 1 : cw;
		if (got + cw > w)
			break;
		got += cw;
		b = p;
	}
	return b;
}

static void copy_bounded(char *out, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;	/* not half a character */
	memcpy(out, s, n);
	out[n] = 0;
}

void tui_ellipsize(const char *s, int w, char *out, size_t size)
{
	size_t len = strlen(s), head, tail;
	int hw, got;

	if (!size)
		return;
	out[0] = 0;
	if (w <= 0)
		return;
	if (tui_str_width(s) <= w) {
		copy_bounded(out, size, s, len);
		return;
	}
	if (w < 3) {
		copy_bounded(out, size, s, prefix_bytes(s, w, &got));
		return;
	}
	/* Keep more of the tail: file and function names end in the part
	 * that tells them apart ("...::operator()", "libfoo.so.6"). */
	hw = (w - 1) / 2;
	head = prefix_bytes(s, hw, &got);
	tail = suffix_start(s, len, w - 1 - got);
	if (head + 1 + (len - tail) >= size) {
		copy_bounded(out, size, s, prefix_bytes(s, w, &got));
		return;
	}
	memcpy(out, s, head);
	out[head] = '~';
	memcpy(out + head + 1, s + tail, len - tail + 1);
}

void tui_pad(const char *s, int w, char *out, size_t size)
{
	size_t n;

	tui_ellipsize(s, w, out, size);
	n = strlen(out);
	for (int pad = w - tui_str_width(out); pad > 0 && n + 1 < size; pad--)
		out[n++] = ' ';
	out[n] = 0;
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
