/*
 * keymap.c: keys -> abstract actions (htop's key table), and the names
 * that help screens and key scripts use.
 */
#include "config.h"

#include "tui-int.h"

#include <stdio.h>
#include <string.h>

static const struct {
	int key;
	enum tui_action a;
} keymap[] = {
	{ TK_UP, TA_UP }, { 'k', TA_UP },
	{ TK_DOWN, TA_DOWN }, { 'j', TA_DOWN },
	{ TK_PGUP, TA_PGUP }, { TK_PGDN, TA_PGDN },
	{ TK_HOME, TA_HOME }, { TK_END, TA_END },
	{ TK_ENTER, TA_ENTER }, { TK_RIGHT, TA_RIGHT },
	{ TK_LEFT, TA_LEFT }, { TK_ESC, TA_BACK },
	{ 'q', TA_QUIT },
	{ '?', TA_HELP },
	{ '/', TA_FILTER },
	{ 'n', TA_NEXT }, { 'N', TA_PREV },
	{ '<', TA_SORT_PREV }, { '>', TA_SORT_NEXT },
	{ TK_TAB, TA_NEXT_HOT }, { TK_BTAB, TA_PREV_HOT },
	{ 'H', TA_HOTTEST },
	{ 'g', TA_GRID }, { 'v', TA_KIND },
	{ 'c', TA_CALLERS }, { 't', TA_TIMELINE }, { 'd', TA_DISASM }, { 's', TA_SUMMARY },
	{ 'h', TA_CURSOR_LEFT }, { 'l', TA_CURSOR_RIGHT },
	{ ' ', TA_MARK }, { 'x', TA_CLEAR }, { 'r', TA_REGION },
	{ '+', TA_EXPAND }, { '-', TA_COLLAPSE },
	{ 'T', TA_CALLTREE }, { 'f', TA_FLAME }, { 'a', TA_TEMPLATES },
	{ 'o', TA_LOOPS }, { 'Q', TA_QUIT_ALL }, { TK_CTRL_L, TA_REPAINT }, { 'L', TA_PAGE_RIGHT },
	{ TK_RESIZE, TA_RESIZE },
};

static const struct {
	int key;
	const char *name;
} names[] = {
	{ TK_UP, "Up" }, { TK_DOWN, "Down" }, { TK_LEFT, "Left" }, { TK_RIGHT, "Right" },
	{ TK_PGUP, "PgUp" }, { TK_PGDN, "PgDn" }, { TK_HOME, "Home" }, { TK_END, "End" },
	{ TK_ENTER, "Enter" }, { TK_ESC, "Esc" }, { TK_TAB, "Tab" }, { TK_BTAB, "BTab" },
	{ TK_BACKSPACE, "BSpace" }, { TK_RESIZE, "Resize" }, { ' ', "Space" },
	{ TK_CTRL_L, "C-l" },
};

enum tui_action tui_key_action(int key)
{
	for (size_t i = 0; i < ARRAY_SIZE(keymap); i++)
		if (keymap[i].key == key)
			return keymap[i].a;
	return TA_NONE;
}

const char *tui_key_name(int key)
{
	static char buf[2];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].key == key)
			return names[i].name;
	buf[0] = (char)key;
	buf[1] = 0;
	return buf;
}

int tui_key_parse(const char *tok)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(names[i].name, tok))
			return names[i].key;
	if (tok[0] && !tok[1])
		return (unsigned char)tok[0];
	return -1;
}
