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
		/* widths are cells: é is one, 漢 two; never half a character */
		{ __LINE__, "caf\xc3\xa9_cr\xc3\xa8me", 10, "caf\xc3\xa9_cr\xc3\xa8me" },
		{ __LINE__, "caf\xc3\xa9_cr\xc3\xa8me_br\xc3\xbbl\xc3\xa9" "e", 9, "caf\xc3\xa9~\xc3\xbbl\xc3\xa9" "e" },
		{ __LINE__, "\xe6\xbc\xa2\xe5\xad\x97\xe5\x90\x8d\xe5\x89\x8d", 8, "\xe6\xbc\xa2\xe5\xad\x97\xe5\x90\x8d\xe5\x89\x8d" },
		{ __LINE__, "\xe6\xbc\xa2\xe5\xad\x97\xe5\x90\x8d\xe5\x89\x8d", 7, "\xe6\xbc\xa2~\xe5\x90\x8d\xe5\x89\x8d" },
		{ __LINE__, "\xe6\xbc\xa2\xe5\xad\x97\xe5\x90\x8d\xe5\x89\x8d", 6, "\xe6\xbc\xa2~\xe5\x89\x8d" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char out[64];

		tui_ellipsize(t[i].in, t[i].w, out, sizeof(out));
		is_str_at(out, t[i].want, t[i].line, "ellipsize '%s' to %d", t[i].in, t[i].w);
		ok_at(tui_str_width(out) <= t[i].w, __FILE__, t[i].line, "... at most %d cells", t[i].w);
	}
	{
		char small[8];

		tui_ellipsize("\xe6\xbc\xa2\xe5\xad\x97\xe5\x90\x8d", 10, small, sizeof(small));
		is_str(small, "\xe6\xbc\xa2\xe5\xad\x97", "a small buffer: cut at a character");
		tui_pad("\xe6\xbc\xa2x", 6, small, sizeof(small));
		is_int(tui_str_width(small), 6, "pad: exactly the width in cells");
	}
}

static void test_templates(void)
{
	static const struct {
		int line;
		const char *in, *want;
	} t[] = {
		{ __LINE__, "std::vector<int, std::allocator<int> >::push_back(int const&)",
		  "std::vector<...>::push_back(int const&)" },
		{ __LINE__, "std::map<std::string, std::vector<int>>::operator[](std::string const&)",
		  "std::map<...>::operator[](std::string const&)" },
		{ __LINE__, "bool operator< <int>(Foo<int> const&, Foo<int> const&)",
		  "bool operator< <...>(Foo<...> const&, Foo<...> const&)" },
		{ __LINE__, "std::ostream::operator<<(int)", "std::ostream::operator<<(int)" },
		{ __LINE__, "Ptr<T>::operator->() const", "Ptr<...>::operator->() const" },
		{ __LINE__, "operator<=>", "operator<=>" },
		{ __LINE__, "std::function<void (int)>::operator()(int) const",
		  "std::function<...>::operator()(int) const" },
		{ __LINE__, "f<(3>2)>", "f<...>" },
		{ __LINE__, "a<b", "a<b" },
		{ __LINE__, "plain_c_function", "plain_c_function" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char out[128];

		tui_collapse_templates(t[i].in, out, sizeof(out));
		is_str_at(out, t[i].want, t[i].line, "templates of '%s'", t[i].in);
	}
}

static void test_wide_canvas(void)
{
	struct tui_canvas c;
	struct strbuf text = STRBUF_INIT, st = STRBUF_INIT;

	canvas__init(&c, 8, 2);
	is_int(canvas__put(&c, 0, 0, TS_HOT, "\xe6\xbc\xa2\xe5\xad\x97|", -1), 5,
	       "two wide characters and a bar: five cells");
	is_int(canvas__put(&c, 5, 1, TS_DIM, "x\xe6\xbc\xa2\xe5\xad\x97", -1), 3,
	       "a wide character that would not fit is left out");
	canvas__put(&c, 1, 0, TS_NORMAL, "y", -1);	/* over the right half of the first */
	canvas__put(&c, 0, 1, TS_NORMAL, "e\xcc\x81\x01", -1);	/* combining acute, a control */
	canvas__dump(&c, &text, &st);
	is_str(text.buf, " y\xe5\xad\x97|\ne?   x\xe6\xbc\xa2\n",
	       "text dump: UTF-8, a half-overwritten wide character blanked");
	is_str(st.buf, "H.HHH\n.....DDD\n", "style layer: one letter per cell, wide ones two");
	canvas__exit(&c);
	strbuf__exit(&text);
	strbuf__exit(&st);
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
		{ __LINE__, 'k', TA_UP }, { __LINE__, TK_RIGHT, TA_RIGHT },
		{ __LINE__, TK_ENTER, TA_ENTER }, { __LINE__, TK_LEFT, TA_LEFT },
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
	test_templates();
	test_wide_canvas();
	test_canvas();
	test_keys();
	return done_testing();
}
