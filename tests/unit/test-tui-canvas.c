/*
 * test-tui-canvas: the canvas (clipping, dump), middle ellipsis, key map.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tui/tui-int.h"

static void test_ellipsize(void)
{
	static const struct {
		int line;
		const char *in;
		int w;
		const char *want;
	} t[] = {
		{ __LINE__, "short", 10, "short" },
		{ __LINE__, "exactly10!", 10, "exactly10!" },
		{ __LINE__, "libverylongname.so.6", 10, "libv~.so.6" },
		{ __LINE__, "abcdefghij", 3, "a~j" },
		{ __LINE__, "abcdef", 2, "ab" },
		{ __LINE__, "abcdef", 0, "" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char out[64];

		tui_ellipsize(t[i].in, t[i].w, out);
		is_str_at(out, t[i].want, t[i].line, "ellipsize '%s' to %d", t[i].in, t[i].w);
	}
}

static void test_canvas(void)
{
	struct tui_canvas c;
	struct strbuf text = STRBUF_INIT, st = STRBUF_INIT;

	canvas__init(&c, 6, 2);
	is_int(canvas__put(&c, 4, 0, TS_HOT, "abc", -1), 2, "put clips at the right edge");
	canvas__put(&c, -1, 1, TS_DIM, "xy\tz", -1);
	canvas__put(&c, 0, 5, TS_DIM, "off", -1);
	canvas__dump(&c, &text, &st);
	is_str(text.buf, "    ab\ny?z\n", "text dump: clipped, control chars shown as ?");
	is_str(st.buf, "....HH\nDDD\n", "style layer: one letter per cell");
	canvas__exit(&c);
	strbuf__exit(&text);
	strbuf__exit(&st);
}

static void test_keys(void)
{
	static const struct {
		int line;
		int key;
		enum tui_action a;
	} t[] = {
		{ __LINE__, 'j', TA_DOWN }, { __LINE__, TK_DOWN, TA_DOWN },
		{ __LINE__, 'k', TA_UP }, { __LINE__, TK_RIGHT, TA_ENTER },
		{ __LINE__, TK_ENTER, TA_ENTER }, { __LINE__, TK_LEFT, TA_BACK },
		{ __LINE__, TK_ESC, TA_BACK }, { __LINE__, 'q', TA_QUIT },
		{ __LINE__, '?', TA_HELP }, { __LINE__, '/', TA_FILTER },
		{ __LINE__, 'n', TA_NEXT }, { __LINE__, 'N', TA_PREV },
		{ __LINE__, '<', TA_SORT_PREV }, { __LINE__, '>', TA_SORT_NEXT },
		{ __LINE__, TK_PGDN, TA_PGDN }, { __LINE__, TK_HOME, TA_HOME },
		{ __LINE__, 'Z', TA_NONE },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_int_at(tui_key_action(t[i].key), t[i].a, t[i].line, "key %s",
			  tui_key_name(t[i].key));
	is_int(tui_key_parse("PgDn"), TK_PGDN, "parse PgDn");
	is_int(tui_key_parse("x"), 'x', "parse a letter");
	is_int(tui_key_parse("Bogus"), -1, "unknown key name");
}

int main(void)
{
	test_ellipsize();
	test_canvas();
	test_keys();
	return done_testing();
}
