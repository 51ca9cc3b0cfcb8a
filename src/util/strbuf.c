#include "config.h"

#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf__add(struct strbuf *sb, const void *data, size_t len)
{
	sb->buf = xgrow(sb->buf, &sb->cap, sb->len + len + 1, 1);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf__addstr(struct strbuf *sb, const char *s)
{
	strbuf__add(sb, s, strlen(s));
}

void strbuf__addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb->buf = xgrow(sb->buf, &sb->cap, sb->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

char *strbuf__detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");

	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void strbuf__exit(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

/*
 * The length of the valid UTF-8 sequence at s (at most n bytes), or 0 when
 * it is not one: overlong forms, surrogates and code points past U+10FFFF
 * are invalid, as are C1 controls (U+0080..U+009F), which some terminals
 * obey like their 8-bit bytes.
 */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cpp)
{
	unsigned cp;
	size_t len;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*cpp = cp;
	return len;
}

/* utf8_decode() of a character that prints: not a C1 control. */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cpp)
{
	size_t len = utf8_decode(s, n, cpp);

	return len && *cpp >= 0xa0 ? len : 0;
}

/*
 * Unicode's bidirectional formatting characters: valid, invisible, and
 * able to reorder what follows on the line ("Trojan Source", CVE-2021-42574),
 * so a name cannot make the text around it read differently.
 */
static bool bidi_control(unsigned cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* Bytes of s[0..n) that print as themselves. */
static size_t plain_span(const unsigned char *s, size_t n)
{
	size_t i = 0, k;
	unsigned cp;

	while (i < n) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			i++;
			continue;
		}
		if (s[i] < 0x80 || !(k = utf8_seq(s + i, n - i, &cp)) || bidi_control(cp))
			break;
		i += k;
	}
	return i;
}

void gx_escape(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t k = plain_span(p + i, len - i);
		unsigned cp;

		strbuf__add(sb, p + i, k);
		i += k;
		if (i >= len)
			break;
		k = utf8_seq(p + i, len - i, &cp);
		if (k) {	/* a bidi control: its code point */
			strbuf__addf(sb, "\\u%04x", cp);
			i += k;
			continue;
		}
		switch (p[i]) {
		case '\\':
			strbuf__addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf__addstr(sb, "\\n");
			break;
		case '\t':
			strbuf__addstr(sb, "\\t");
			break;
		case '\r':
			strbuf__addstr(sb, "\\r");
			break;
		default:
			strbuf__addf(sb, "\\x%02x", p[i]);
			break;
		}
		i++;
	}
	if (!sb->buf)
		strbuf__add(sb, "", 0);
}

void strbuf__addesc(struct strbuf *sb, const char *s)
{
	gx_escape(sb, s ? s : "", s ? strlen(s) : 0);
}

const char *gx_esc(const char *s)
{
	static char *ring[GX_ESC_RING];
	static unsigned next;
	struct strbuf sb = STRBUF_INIT;
	size_t len;

	if (!s)
		return NULL;
	len = strlen(s);
	if (plain_span((const unsigned char *)s, len) == len)
		return s;
	gx_escape(&sb, s, len);
	free(ring[next]);
	ring[next] = strbuf__detach(&sb);
	s = ring[next];
	next = (next + 1) % GX_ESC_RING;
	return s;
}

const char *gx_utf8(const char *s)
{
	static char *ring[GX_ESC_RING];
	static unsigned next;
	const unsigned char *p = (const unsigned char *)s;
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, len, k = 0;
	unsigned cp;

	if (!s)
		return NULL;
	len = strlen(s);
	while (i < len && (p[i] < 0x80 || (k = utf8_decode(p + i, len - i, &cp))))
		i += p[i] < 0x80 ? 1 : k;
	if (i == len)
		return s;
	strbuf__add(&sb, s, i);
	while (i < len) {
		if (p[i] < 0x80) {
			strbuf__add(&sb, p + i++, 1);
		} else if ((k = utf8_decode(p + i, len - i, &cp))) {
			strbuf__add(&sb, p + i, k);
			i += k;
		} else {
			strbuf__addf(&sb, "\\x%02x", p[i++]);
		}
	}
	free(ring[next]);
	ring[next] = strbuf__detach(&sb);
	s = ring[next];
	next = (next + 1) % GX_ESC_RING;
	return s;
}

size_t gx_edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b), best;
	size_t *mem, *prev, *cur, *prev2;

	if (la > 64 || lb > 64)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	mem = xcalloc(3 * (lb + 1), sizeof(*mem));
	prev2 = mem;
	prev = prev2 + lb + 1;
	cur = prev + lb + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) !=
						    tolower((unsigned char)b[j - 1]));
			size_t d = prev[j] + 1 < cur[j - 1] + 1 ? prev[j] + 1 : cur[j - 1] + 1;

			if (sub < d)
				d = sub;
			/* two neighbours swapped ("reprot") cost one */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		t = prev2, prev2 = prev, prev = cur, cur = t;
	}
	best = prev[lb];
	free(mem);
	return best > cap ? cap + 1 : best;
}

void strbuf__addxml(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': strbuf__addstr(sb, "&lt;"); break;
		case '>': strbuf__addstr(sb, "&gt;"); break;
		case '&': strbuf__addstr(sb, "&amp;"); break;
		case '"': strbuf__addstr(sb, "&quot;"); break;
		case '\'': strbuf__addstr(sb, "&#39;"); break;
		default: strbuf__add(sb, s, 1);
		}
	}
}
