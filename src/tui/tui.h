/*
 * tui: the interactive interface over a result — a summary with the
 * top-down tree, a bottom-up grid of functions (modules, threads, lines)
 * by metric, annotated source, disassembly, callers/callees and a
 * per-thread timeline.
 *
 * Structure (see shared/STYLE.md): a model (tui-model.c: rows, top-down
 * results, sort/filter/time-range state) that knows nothing of the views
 * nor of the loader that fills it (tui-load.c), which the app holds;
 * views that draw into a canvas of {char, style} cells and turn abstract
 * actions into reaction flags; one file (term.c) that includes curses,
 * maps keys to actions and copies the canvas to the screen. Nothing here
 * prints to stdout/stderr except term.c drawing the screen.
 */
#ifndef GX_TUI_H
#define GX_TUI_H

#include <stdbool.h>
#include <stddef.h>

struct tui_session;

struct profile_opts;
struct tui_open_opts {
	const char *result;	/* result dir or perf.data; NULL = newest gxNNN in parent */
	const char *parent;	/* where to look for gxNNN ("." usually) */
	const char *cpu;	/* --cpu: top-down model override, or NULL */
	/* where the files and symbols are (symfs, search paths, kallsyms,
	 * no_inline), or NULL; must outlive the model */
	const struct profile_opts *sym;
	/* a result to compare with (delta columns in the grids), or NULL */
	const char *baseline;
	/* open narrowed to this region's instances (gexplore-regions(3)),
	 * or NULL; a name the result lacks is an error */
	const char *region;
};

/*
 * Read a result (perf.data + meta.json) into a session: a model (profile
 * rows, top-down results per row, per-thread sample times) and the
 * loader that goes back to the result for time ranges, regions, source
 * and disassembly. On success *out owns both (free with
 * tui_session__delete). Errors: a negative code with a message in *cause
 * (caller frees). An empty result is not an error: the views say so.
 */
int tui_session__open(struct tui_session **out, const struct tui_open_opts *o, char **cause);
void tui_session__delete(struct tui_session *s);
/* The samples the model keeps (the timeline's). */
size_t tui_session__nr_samples(const struct tui_session *s);

/*
 * Whether this build has the interactive interface (ncursesw), and whether
 * the terminal in $TERM can show it (not "dumb", not unset). When the
 * answer is false *why says why (static string).
 */
bool tui_usable(const char **why);

/*
 * Run the interface on the controlling terminal until the user quits.
 * Returns 0; -EINTR when Ctrl-C (SIGINT) ended it, the terminal restored
 * (the caller exits 130); or a negative code with *cause (terminal could
 * not be set up).
 */
int tui_run(struct tui_session *s, char **cause);

/* What a headless run measured: keys applied and their cost (handle +
 * draw), and the samples the model keeps for the timeline. */
struct tui_dump_stats {
	size_t nr_keys;
	double mean_ms, worst_ms;
	char worst_key[16];
	size_t nr_samples;
};

/*
 * Run the views of a session headless at w x h: apply the space-separated
 * key script (names as in gexplore-tui(1): "Enter", "j", "<", ...) and append the
 * final screen to out (text; with styles, then "--- styles" and the style
 * of every cell). An unknown key stops the script: -EINVAL with *cause,
 * the screen so far still appended.
 */
struct strbuf;
int tui_dump(struct tui_session *s, const char *keys, int w, int h, bool styles,
	     struct strbuf *out, struct tui_dump_stats *st, char **cause);

#endif /* GX_TUI_H */
