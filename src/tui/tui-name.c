/*
 * tui-name.c: function names as the views show them — C++ template
 * arguments collapsed to "<...>" (std::vector<...>::push_back), unless the
 * user asked for them whole (the 'a' key). Operators whose names hold
 * angle brackets (operator<, operator<<=, operator->, operator<=>) are
 * not templates.
 */
#include "config.h"

#include "tui-int.h"

#include <stdbool.h>
#include <string.h>

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Index just past the '>' that closes the '<' at s[i], or 0 when none. */
static size_t closing(const char *s, size_t i)
{
	int depth = 0, paren = 0;

	for (; s[i]; i++) {
		if (s[i] == '(')
			paren++;
		else if (s[i] == ')' && paren > 0)
			paren--;
		else if (paren)
			continue;
		else if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && !(i > 0 && s[i - 1] == '-') && --depth == 0)
			return i + 1;
	}
	return 0;
}

void tui_collapse_templates(const char *s, char *out, size_t n)
{
	size_t o = 0, i = 0;

	if (!n)
		return;
#define PUT(c) do { if (o + 1 < n) out[o++] = (c); } while (0)
	while (s[i]) {
		if (!strncmp(s + i, "operator", 8) && (i == 0 || !ident_char(s[i - 1])) &&
		    !ident_char(s[i + 8])) {
			/* operator<, operator<<=, operator->, operator<=>... */
			for (int k = 0; k < 8; k++)
				PUT(s[i++]);
			while (s[i] && strchr("<>=-", s[i]))
				PUT(s[i++]);
			continue;
		}
		if (s[i] == '<') {
			size_t e = closing(s, i);

			if (e) {
				PUT('<');
				PUT('.');
				PUT('.');
				PUT('.');
				PUT('>');
				i = e;
				continue;
			}
		}
		PUT(s[i]);
		i++;
	}
#undef PUT
	/* not half a UTF-8 character at a cut */
	while (o > 0 && o + 1 >= n && ((unsigned char)out[o] & 0xc0) == 0x80)
		o--;
	out[o] = 0;
}

const char *tui_model__name(const struct tui_model *m, const char *name, char *buf, size_t n)
{
	if (m->template_args || !strchr(name, '<'))
		return name;
	tui_collapse_templates(name, buf, n);
	return buf;
}
