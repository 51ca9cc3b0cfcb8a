/*
 * The escaping rule for untrusted text (util.h, gx_escape): table-driven,
 * one row per hostile or harmless name.
 */
#include "config.h"

#include "util/util.h"

#include "tap.h"

static const struct {
	int line;
	const char *in, *out;
} rows[] = {
	{ __LINE__, "", "" },
	{ __LINE__, "main", "main" },
	{ __LINE__, "std::vector<int>::at(unsigned long)", "std::vector<int>::at(unsigned long)" },
	{ __LINE__, "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5" },
	{ __LINE__, "\x1b]0;owned\x07", "\\x1b]0;owned\\x07" },
	{ __LINE__, "a\x1b[2Jb", "a\\x1b[2Jb" },
	{ __LINE__, "x\nexit 0 FAKE", "x\\nexit 0 FAKE" },
	{ __LINE__, "tab\there\r", "tab\\there\\r" },
	{ __LINE__, "del\x7f", "del\\x7f" },
	{ __LINE__, "c1 \xc2\x9b" "2J", "c1 \\xc2\\x9b2J" },		/* U+009B, CSI */
	{ __LINE__, "raw \x9b" "2J", "raw \\x9b2J" },			/* 8-bit CSI */
	{ __LINE__, "cut \xe6\x97", "cut \\xe6\\x97" },			/* truncated sequence */
	{ __LINE__, "overlong \xc0\xaf", "overlong \\xc0\\xaf" },
	{ __LINE__, "surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80" },
	{ __LINE__, "big \xf4\x90\x80\x80", "big \\xf4\\x90\\x80\\x80" },
	{ __LINE__, "nbsp\xc2\xa0ok", "nbsp\xc2\xa0ok" },
	/* a backslash doubles: a name spelling "\x1b" is not an escaped ESC */
	{ __LINE__, "fake\\x1b", "fake\\\\x1b" },
	{ __LINE__, "C:\\tmp\\a.exe", "C:\\\\tmp\\\\a.exe" },
	/* bidi controls (Trojan Source): RLO, LRI..PDI, LRM, RLM, ALM */
	{ __LINE__, "admin\xe2\x80\xae" "fdp.exe", "admin\\u202efdp.exe" },
	{ __LINE__, "a\xe2\x81\xa6" "b\xe2\x81\xa9", "a\\u2066b\\u2069" },
	{ __LINE__, "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", "\\u200e\\u200f\\u061c" },
	{ __LINE__, "\xe2\x80\xaa\xe2\x80\xac", "\\u202a\\u202c" },
	/* their neighbours are ordinary text */
	{ __LINE__, "dash\xe2\x80\x94ok", "dash\xe2\x80\x94ok" },
	{ __LINE__, "\xe2\x81\xb0", "\xe2\x81\xb0" },
};

/* gx_utf8: JSON text; each byte of invalid UTF-8 kept as \xNN, the rest
 * (controls, C1, bidi: JSON escapes them itself) as it is. */
static const struct {
	int line;
	const char *in, *out;
} utf8_rows[] = {
	{ __LINE__, "plain", "plain" },
	{ __LINE__, "ctl\x1b\n", "ctl\x1b\n" },
	{ __LINE__, "c1 \xc2\x85 ok", "c1 \xc2\x85 ok" },
	{ __LINE__, "caf\xc3\xa9", "caf\xc3\xa9" },
	{ __LINE__, "bad\xff\xfe", "bad\\xff\\xfe" },
	{ __LINE__, "cut \xe6\x97", "cut \\xe6\\x97" },
	{ __LINE__, "overlong \xc0\xaf", "overlong \\xc0\\xaf" },
	{ __LINE__, "surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80" },
	{ __LINE__, "\x80lead and \xe2\x80\xae", "\\x80lead and \xe2\x80\xae" },
};

int main(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(utf8_rows); i++)
		is_str_at(gx_utf8(utf8_rows[i].in), utf8_rows[i].out, utf8_rows[i].line, "gx_utf8");
	ok(gx_utf8(NULL) == NULL, "gx_utf8: NULL stays NULL");
	{
		const char *s = "valid \xc3\xa9";

		ok(gx_utf8(s) == s, "gx_utf8: valid UTF-8 is returned as is");
	}
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf__addesc(&sb, rows[i].in);
		is_str_at(sb.buf, rows[i].out, rows[i].line, "strbuf__addesc");
		is_str_at(gx_esc(rows[i].in), rows[i].out, rows[i].line, "gx_esc");
		strbuf__exit(&sb);
	}
	{
		const char *s = "plain";
		struct strbuf sb = STRBUF_INIT;

		ok(gx_esc(s) == s, "a clean string is returned as is, no copy");
		ok(gx_esc(NULL) == NULL, "NULL stays NULL");
		gx_escape(&sb, "a\0b", 3);
		is_str(sb.buf, "a\\x00b", "an embedded NUL is shown");
		strbuf__exit(&sb);
	}
	return done_testing();
}
