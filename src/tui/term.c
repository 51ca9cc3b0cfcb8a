/*
 * term.c: the only file that talks to curses. It maps curses keys to the
 * TUI's abstract keys, semantic styles to colours (or, with NO_COLOR or a
 * monochrome terminal, to attributes), and copies the canvas to the
 * screen. Resizes arrive as KEY_RESIZE (ncurses' SIGWINCH handler).
 */
#include "config.h"

#include "tui.h"
#include "tui-int.h"

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1	/* cchar_t and mvadd_wch: the canvas holds code points */
#endif
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * ncursesw (with libtinfo) is opened when the TUI starts, not linked: a
 * record, a report or a check never draws, and loading them was a share of
 * each (issue 26, part 4). Every curses function used here is defined
 * below as a call through the address gx_lazylib__open resolved; stdscr
 * and curscr, curses' own variables, are read through theirs.
 */
#define CURSES_FNS(X, V, D) \
	X(int, cbreak, (void), ()) \
	X(int, clearok, (WINDOW *w, bool b), (w, b)) \
	X(int, curs_set, (int v), (v)) \
	V(delscreen, (SCREEN *sp), (sp)) \
	X(int, endwin, (void), ()) \
	X(bool, has_colors, (void), ()) \
	X(int, init_pair, (NCURSES_PAIRS_T p, NCURSES_COLOR_T f, NCURSES_COLOR_T b), (p, f, b)) \
	X(int, keypad, (WINDOW *w, bool b), (w, b)) \
	X(SCREEN *, newterm, (const char *t, FILE *o, FILE *i), (t, o, i)) \
	X(int, nodelay, (WINDOW *w, bool b), (w, b)) \
	X(int, noecho, (void), ()) \
	X(int, nonl, (void), ()) \
	X(int, set_escdelay, (int ms), (ms)) \
	X(SCREEN *, set_term, (SCREEN *sp), (sp)) \
	X(int, setcchar, (cchar_t *c, const wchar_t *wc, const attr_t a, NCURSES_PAIRS_T p, const void *o), (c, wc, a, p, o)) \
	X(int, start_color, (void), ()) \
	X(int, use_default_colors, (void), ()) \
	X(int, wadd_wch, (WINDOW *w, const cchar_t *c), (w, c)) \
	X(int, waddch, (WINDOW *w, const chtype c), (w, c)) \
	X(int, werase, (WINDOW *w), (w)) \
	X(int, wgetch, (WINDOW *w), (w)) \
	X(int, wmove, (WINDOW *w, int y, int x), (w, y, x)) \
	X(int, wrefresh, (WINDOW *w), (w)) \
	D(stdscr) \
	D(curscr)

GX_LAZYLIB_DEFINE(curses, CURSES_FNS, "libncursesw.so.6", "libncursesw6")

/* curses' variables, in the library opened */
#undef stdscr
#undef curscr
#define stdscr (*(WINDOW **)gx_lz_fns_[GX_LZ_stdscr])
#define curscr (*(WINDOW **)gx_lz_fns_[GX_LZ_curscr])

bool tui_usable(const char **why)
{
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		*why = "not a terminal";
		return false;
	}
	if (!term || !*term || !strcmp(term, "dumb")) {
		*why = "TERM is unset or dumb";
		return false;
	}
	return true;
}

static chtype style_attr[TS_NR_];

static void setup_styles(void)
{
	const char *nc = getenv("NO_COLOR");
	bool color = has_colors() && !(nc && *nc);

	/* Without colour every style still differs by attribute. */
	style_attr[TS_NORMAL] = A_NORMAL;
	style_attr[TS_TITLE] = A_REVERSE;
	style_attr[TS_STATUS] = A_REVERSE;
	style_attr[TS_HEADER] = A_BOLD | A_UNDERLINE;
	style_attr[TS_SELECTED] = A_REVERSE;
	style_attr[TS_HOT] = A_BOLD;
	style_attr[TS_DIM] = A_DIM;
	style_attr[TS_BOTTLENECK] = A_BOLD | A_UNDERLINE;
	style_attr[TS_WARN] = A_BOLD;
	if (!color)
		return;
	start_color();
	use_default_colors();
	init_pair(1, COLOR_WHITE, COLOR_BLUE);		/* title, status */
	init_pair(2, COLOR_BLACK, COLOR_CYAN);		/* selected */
	init_pair(3, COLOR_MAGENTA, -1);		/* hot (VTune's pink) */
	init_pair(4, COLOR_RED, -1);			/* bottleneck */
	init_pair(5, COLOR_YELLOW, -1);			/* warnings, hints */
	init_pair(6, COLOR_CYAN, -1);			/* headers */
	style_attr[TS_TITLE] = COLOR_PAIR(1) | A_BOLD;
	style_attr[TS_STATUS] = COLOR_PAIR(1);
	style_attr[TS_SELECTED] = COLOR_PAIR(2);
	style_attr[TS_HOT] = COLOR_PAIR(3) | A_BOLD;
	style_attr[TS_BOTTLENECK] = COLOR_PAIR(4) | A_BOLD;
	style_attr[TS_WARN] = COLOR_PAIR(5);
	style_attr[TS_HEADER] = COLOR_PAIR(6) | A_BOLD;
}

static int map_key(int k)
{
	switch (k) {
	case KEY_UP: return TK_UP;
	case KEY_DOWN: return TK_DOWN;
	case KEY_LEFT: return TK_LEFT;
	case KEY_RIGHT: return TK_RIGHT;
	case KEY_PPAGE: return TK_PGUP;
	case KEY_NPAGE: return TK_PGDN;
	case KEY_HOME: return TK_HOME;
	case KEY_END: return TK_END;
	case KEY_ENTER: case '\n': case '\r': return TK_ENTER;
	case 27: return TK_ESC;
	case '\t': return TK_TAB;
	case KEY_BTAB: return TK_BTAB;
	case KEY_BACKSPACE: case 127: case 8: return TK_BACKSPACE;
	case KEY_RESIZE: return TK_RESIZE;
	case TK_CTRL_L: return TK_CTRL_L;
	default: return k >= 0x20 && k < 0x7f ? k : -1;
	}
}

/*
 * After an ESC: a key whose escape sequence the terminfo entry does not
 * know arrives as ESC plus bytes already waiting. Swallow those, so that
 * an unknown key does not act as Esc (back). True when it was one.
 */
static bool unknown_sequence(void)
{
	bool more = false;
	int c;

	nodelay(stdscr, TRUE);
	while ((c = getch()) != ERR)
		more = true;
	nodelay(stdscr, FALSE);
	return more;
}

static void blit(const struct tui_canvas *c)
{
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			const struct tui_cell *cell = &c->cells[y * c->w + x];

			wchar_t wc[2] = { (wchar_t)cell->ch, 0 };
			cchar_t cc;

			/* The bottom-right cell would scroll some terminals; the
			 * right half of a wide character is drawn with its left. */
			if ((y == c->h - 1 && x == c->w - 1) || cell->ch == TUI_WIDE_RIGHT)
				continue;
			if (cell->ch < 0x80) {
				mvaddch(y, x, (chtype)cell->ch | style_attr[cell->style]);
				continue;
			}
			setcchar(&cc, wc, style_attr[cell->style] & A_ATTRIBUTES,
				 (short)PAIR_NUMBER(style_attr[cell->style]), NULL);
			mvadd_wch(y, x, &cc);
		}
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

int tui_run(struct tui_session *s, char **cause)
{
	SCREEN *scr;
	struct tui_app app;
	struct tui_canvas c;
	/* Ctrl-C: leave the loop and the terminal as found. Installed before
	 * curses, which would otherwise put its own (exit status 1); no
	 * SA_RESTART, so a getch() waiting returns. */
	struct sigaction sa = { .sa_handler = on_sigint }, old;
	int w, h, err;

	err = gx_lazylib__open(&curses, cause);
	if (err)
		return err;
	setlocale(LC_CTYPE, "");
	interrupted = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		sigaction(SIGINT, &old, NULL);
		*cause = xasprintf("cannot set up the terminal '%s'",
				   getenv("TERM") ? getenv("TERM") : "");
		return -ENOTTY;
	}
	set_term(scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	setup_styles();
	tui_app__init(&app, s->m, s->ld);
	getmaxyx(stdscr, h, w);
	canvas__init(&c, w, h);
	while (!app.quit && !interrupted) {
		int k;

		getmaxyx(stdscr, h, w);
		if (w != c.w || h != c.h)
			canvas__resize(&c, w, h);
		tui_app__draw(&app, &c);
		if (app.repaint) {	/* Ctrl-L: every cell sent again */
			clearok(curscr, TRUE);
			app.repaint = false;
		}
		erase();
		blit(&c);
		refresh();
		k = getch();
		if (k == ERR || interrupted)
			continue;
		if (k == 27 && unknown_sequence())
			continue;
		k = map_key(k);
		if (k >= 0)
			tui_app__key(&app, k);
	}
	tui_app__exit(&app);
	canvas__exit(&c);
	endwin();
	delscreen(scr);
	sigaction(SIGINT, &old, NULL);
	return interrupted ? -EINTR : 0;
}
