/*
 * tui-int.h: the pieces of the TUI shared between its files and the
 * headless tests — canvas, actions, views, the model's data.
 */
#ifndef GX_TUI_INT_H
#define GX_TUI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui.h"
#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "topdown/topdown.h"
#include "util/util.h"

struct tui_model;

/* ======================================================================
 * Canvas: a grid of {char, style} cells. Styles are semantic; term.c maps
 * them to colours or (NO_COLOR, monochrome) to attributes. Everything a
 * style means is also said by a character (*, <==, >) so nothing is lost
 * without colour.
 * ==================================================================== */
enum tui_style {
	TS_NORMAL,
	TS_TITLE,	/* top bar */
	TS_STATUS,	/* bottom bar */
	TS_HEADER,	/* column headers */
	TS_SELECTED,	/* the cursor row */
	TS_HOT,		/* over threshold in a significant row */
	TS_DIM,		/* below threshold, n/a, context lines */
	TS_BOTTLENECK,	/* the bottleneck path */
	TS_WARN,	/* hints, messages */
	TS_NR_,
};

/* One letter per style in golden dumps: ".TshSHDBW" */
char tui_style_letter(enum tui_style s);

struct tui_cell {
	uint32_t ch;		/* Unicode code point, or TUI_WIDE_RIGHT */
	uint8_t style;
};
/* The right half of the wide character in the cell before. */
#define TUI_WIDE_RIGHT 0u

struct tui_canvas {
	int w, h;
	struct tui_cell *cells;
};

void canvas__init(struct tui_canvas *c, int w, int h);
void canvas__exit(struct tui_canvas *c);
void canvas__resize(struct tui_canvas *c, int w, int h);
void canvas__clear(struct tui_canvas *c);
/* Write the UTF-8 string s at (x, y) clipped to the canvas and to at most
 * max cells (<0: no limit); a wide character takes two cells, combining
 * marks none, control characters become '?'. Returns cells written. */
int canvas__put(struct tui_canvas *c, int x, int y, enum tui_style st, const char *s, int max);
int canvas__printf(struct tui_canvas *c, int x, int y, enum tui_style st, const char *fmt, ...)
	GX_PRINTF(5, 6);
/* Write s word-wrapped into rows y.. of width c->w - x, at most max_rows;
 * returns the rows used. */
int canvas__put_wrapped(struct tui_canvas *c, int x, int y, int max_rows, enum tui_style st,
			const char *s);
/* Fill cells [x, x+n) of row y with ' ' in style st. */
void canvas__fill(struct tui_canvas *c, int x, int y, int n, enum tui_style st);
/* Restyle cells [x, x+n) of row y keeping their characters. */
void canvas__style(struct tui_canvas *c, int x, int y, int n, enum tui_style st);
/* The canvas as text (trailing blanks trimmed) and, when styles is not
 * NULL, the style layer in the same shape (one letter per cell). */
void canvas__dump(const struct tui_canvas *c, struct strbuf *text, struct strbuf *styles);

/* s shortened to w cells by an ellipsis in the middle ("libfo~bar.so"),
 * counted in display cells (UTF-8, wide characters), never cutting a
 * character; written to out (size bytes, NUL-terminated). */
void tui_ellipsize(const char *s, int w, char *out, size_t size);
/* tui_ellipsize, then spaces up to exactly w cells: a column that stays
 * aligned whatever the name holds. */
void tui_pad(const char *s, int w, char *out, size_t size);
/* Cells that s takes on the screen. */
int tui_str_width(const char *s);
/* Decode one UTF-8 character of s (not at its NUL): bytes used; an invalid
 * byte is one U+FFFD. */
int tui_utf8_next(const char *s, uint32_t *cp);
/* Encode cp into out (4 bytes at most); returns the bytes. */
int tui_utf8_put(uint32_t cp, char *out);
/* Cells of a code point: wcwidth under a UTF-8 locale (a built-in table
 * when there is none); -1 for control characters. */
int tui_cp_width(uint32_t cp);

/* ======================================================================
 * Actions: what a key means, independent of curses.
 * ==================================================================== */
enum tui_action {
	TA_NONE,
	TA_UP, TA_DOWN, TA_PGUP, TA_PGDN, TA_HOME, TA_END,
	TA_ENTER,	/* Enter / Right: drill in */
	TA_BACK,	/* Left / Esc: back */
	TA_QUIT,	/* q: back in sub-views, quit at the top */
	TA_HELP,	/* ? */
	TA_FILTER,	/* / */
	TA_NEXT,	/* n */
	TA_PREV,	/* N */
	TA_SORT_PREV,	/* < */
	TA_SORT_NEXT,	/* > */
	TA_NEXT_HOT,	/* Tab */
	TA_PREV_HOT,	/* Shift-Tab */
	TA_HOTTEST,	/* H */
	TA_GRID,	/* g: bottom-up grid */
	TA_KIND,	/* v: next row kind in the grid */
	TA_CALLERS,	/* c */
	TA_TIMELINE,	/* t */
	TA_DISASM,	/* d */
	TA_SUMMARY,	/* s */
	TA_CURSOR_LEFT,	/* h (timeline) */
	TA_CURSOR_RIGHT,/* l (timeline) */
	TA_MARK,	/* space (timeline: range start/end) */
	TA_CLEAR,	/* x: clear filter / time range / region */
	TA_REGION,	/* r (timeline): narrow to the region under the cursor */
	TA_LEFT,	/* Left: collapse in trees; else as TA_BACK */
	TA_RIGHT,	/* Right: expand in trees; else as TA_ENTER */
	TA_EXPAND,	/* +: expand everything below */
	TA_COLLAPSE,	/* -: collapse everything below */
	TA_CALLTREE,	/* T: top-down call tree */
	TA_FLAME,	/* f: flame / icicle graph */
	TA_TEMPLATES,	/* a: C++ template arguments shown or collapsed */
	TA_QUIT_ALL,	/* Q: quit from any view */
	TA_REPAINT,	/* Ctrl-L: redraw the whole terminal */
	TA_PAGE_RIGHT,	/* L (timeline): the time cursor a page step right */
	TA_LOOPS,	/* o: the hottest loops (issue 42) */
	TA_RESIZE,
	TA_NR_,
};

/* Abstract keys for non-printable keys (printable keys are their ASCII). */
enum {
	TK_UP = 0x1000, TK_DOWN, TK_LEFT, TK_RIGHT, TK_PGUP, TK_PGDN, TK_HOME, TK_END,
	TK_ENTER, TK_ESC, TK_TAB, TK_BTAB, TK_BACKSPACE, TK_RESIZE,
};
#define TK_CTRL_L 12	/* the byte Ctrl-L sends */

enum tui_action tui_key_action(int key);
/* "Up", "q", "PgDn"... for a key; static storage. */
const char *tui_key_name(int key);
/* Key from a script token: "Down", "Enter", "q", "/", "text:hot"... */
int tui_key_parse(const char *tok);

/* ======================================================================
 * Model
 * ==================================================================== */
enum tui_kind { TK_FUNC, TK_LINE, TK_MODULE, TK_THREAD, TK_PROCESS, TK_NR_ };
const char *tui_kind_name(enum tui_kind k);	/* "functions" ... */

struct tui_row {
	const char *name;	/* function, module path, comm; owned by the model */
	const char *module;	/* function/line rows: module path, else "" */
	const char *file;	/* line rows: source file, else "" */
	uint32_t line;
	uint32_t pid, tid;
	uint32_t nr_procs;	/* process rows: the processes of the command (0: one) */
	int32_t func;		/* line rows: index in the function table, else -1 */
	double reliability;	/* MUX reliability of the row, NAN: n/a */
	double total;		/* clock-event period with the row anywhere on the
				   stack (self + callees); = period[clk] without
				   call stacks */
	struct tui_row *base;	/* the same row in the baseline model, or NULL */
	double off_s;		/* --off-cpu: the value "off-cpu" with the row
				   anywhere on the stack (threads: theirs), in s,
				   for the run, a time range or a region; NAN: none */
	double *period;		/* [nr_events] */
	uint64_t *samples;	/* [nr_events] */
	/* memory-access samples (issue 43), whole run: the mean latency of
	 * the row's loads in cycles (NAN: none) and the data source with the
	 * most of their latency (NULL: none); owned by the model */
	double mem_lat;
	const char *mem_src;
	bool td_done, td_ok;
	struct td_result td;	/* evaluated on first use */
};

struct tui_table {
	struct tui_row *rows;
	size_t nr;
};

/* One distinct call path of the profile (its PROFILE_BY_CALLPATH row, the
 * data of `report --folded`): the process's command, then the function
 * rows from the root to the sampled function. */
struct tui_path {
	const char *comm;	/* owned by the model */
	const uint32_t *func;	/* [len] function row indexes, root first */
	uint32_t len;
	double period;		/* of the clock event */
	uint64_t samples;
};

/*
 * A tree of call paths (tui-tree.c): the top-down call tree (command,
 * then callers above callees), or one function's callers or callees to
 * any depth. Node 0 is the root; every node's children are linked from
 * the hottest down.
 */
#define TUI_TNODE_COMM UINT32_MAX	/* tui_tnode.func of a command's node */
struct tui_tnode {
	uint32_t func;		/* function row, or TUI_TNODE_COMM */
	const char *comm;	/* a command's node: its name */
	int32_t parent, first, next;	/* -1: none */
	uint32_t depth;		/* the root's children: 0 */
	uint32_t nr_children;
	double self;		/* period of the paths that end here */
	double total;		/* period of the paths through here */
};

struct tui_tree {
	struct tui_tnode *n;
	size_t nr, cap;
	int32_t *hash;		/* (parent, func, comm) -> node, while building */
	size_t hash_cap;
};

void tui_tree__init(struct tui_tree *t);
void tui_tree__exit(struct tui_tree *t);
/*
 * Add one path below node `under` (0: the root): a command's node first
 * when comm is not NULL, then funcs[0], funcs[step], ... (n of them; step
 * -1 starts at funcs[0] and walks down the array). Every node on the way
 * gets total += w and self += self_each; the last one self += self_last.
 */
void tui_tree__add(struct tui_tree *t, int32_t under, const char *comm, const uint32_t *funcs,
		   size_t n, int step, double w, double self_last, double self_each);
/* After the last add: children linked hottest first, the hash freed. */
void tui_tree__finish(struct tui_tree *t);
/* Append to *rows (grown, *nr and *cap) the children of `parent`, and of
 * every node open[] says is expanded, depth first, in display order. */
void tui_tree__flatten(const struct tui_tree *t, int32_t parent, const bool *open,
		       int32_t **rows, size_t *nr, size_t *cap);
/* The top-down call tree of the model's paths: built on first use, kept
 * until the tables change (a time range). */
const struct tui_tree *tui_model__calltree(struct tui_model *m);
/* Callers (callers true: F's callers to any depth, F's self through them
 * as self) or callees (F's callees to any depth) of function row f; node
 * 1 is f. The caller owns the tree (tui_tree__exit). */
void tui_model__call_graph(struct tui_model *m, size_t f, bool callers, struct tui_tree *out);

struct tui_tsample {		/* one sample, for the timeline and disassembly */
	uint64_t time, ip;
	uint32_t pid, tid;
	uint32_t evsel;
	uint32_t period_lo;	/* saturated, for per-instruction sums */
};

/* Clock-event samples of the whole run at one address of one process. */
struct tui_iphist {
	uint64_t ip;
	uint32_t pid;
	uint32_t count;
	uint64_t period;	/* their periods (period_lo) summed */
};

struct tui_thread {
	uint32_t tid, pid;
	const char *name;
	double reliability;	/* MUX reliability of the thread, NAN: n/a */
};

struct tui_region {		/* one instance of a region (gexplore-regions(3)) */
	const char *name;	/* owned by the model */
	uint32_t name_idx;	/* into tui_model.region_names */
	uint32_t tid;
	uint64_t begin, end;	/* ns, the samples' clock */
	uint16_t depth;		/* 1: outermost on its thread */
};

struct tui_insn {
	uint64_t addr;
	char text[64];		/* "mov rax, qword ptr [rbx + 8]" */
	uint32_t line;		/* source line, 0 unknown */
	uint64_t samples;	/* of the clock event */
	uint64_t period;	/* their periods: an exact or modelled clock's weight */
	bool is_branch, is_load;
	uint64_t target;	/* branch target, 0 when none / indirect */
	/* the result's flow (issue 42): the executions of the block this
	 * instruction begins (0: none begins here), the depth of the
	 * innermost loop it is in (0: none), whether it is that loop's head */
	uint64_t block_execs;
	double block_cycles;	/* its cycles an execution (0: not timed) */
	uint8_t loop_depth;
	bool loop_head;
	/* memory-access samples there, whole run (issue 43): how many and
	 * their summed latency (0/0: none) */
	uint64_t mem_samples, mem_weight;
};

struct tui_disasm {
	struct tui_insn *insns;
	size_t nr;
	bool flow;		/* blocks and loops annotated (tui_insn.block_execs...) */
	const char *why;	/* message when nr == 0 (static or owned below) */
	char *why_owned;
};
void tui_disasm__exit(struct tui_disasm *d);
/*
 * Skid: the instruction that likely caused the samples of instruction i
 * when the event was not precise — the load just before it, else the
 * branch that jumps to it, else a branch just before it. -1 when none;
 * *why: "the load", "a branch to it", "the branch before it".
 */
int tui_disasm__culprit(const struct tui_disasm *d, size_t i, const char **why);

/* One loop of the result's flow (issue 42) as the loops view shows it:
 * the whole run's (branch stacks are not kept per sample, so a time range
 * or region cannot narrow it). Strings are the model's (tui_model__str). */
struct tui_loop {
	const char *func, *module, *file;
	uint32_t line;		/* the head's source line, 0: unknown */
	uint64_t head;		/* the head's address, the module's own */
	uint64_t entries, iterations;
	double cyc_iter;	/* cycles per iteration, NAN: not timed */
	double exit_mp;		/* share of its exits mispredicted, NAN: none known */
	uint32_t depth;		/* 1: outermost */
};

struct tui_loops {
	struct tui_loop *v;	/* most iterations first; the caller frees */
	size_t nr;
	bool exact;		/* the model's exact counts, else branch stacks' */
	const char *why;	/* when nr == 0: static or the model's */
};

struct tui_model {
	/* run facts; strings owned */
	char *title, *command, *cpu_desc, *model_id, *smt, *mux;
	char *ended;		/* "killed by SIGSEGV", "exit 3": a workload that did not succeed, or NULL */
	double duration_s;
	uint64_t nr_samples, lost;
	bool pmu;
	bool modelled;		/* an event is modelled (record --model): cycles and the tree */
	bool has_mem;		/* a row has memory-access samples (tui_row.mem_lat) */
	char **hints;		/* our own and the top-down ones */
	size_t nr_hints;
	char **confidence;	/* "EVENT estimate [lo-hi] xscale" under multiplexing */
	size_t nr_confidence;

	size_t nr_events;
	char **event_names;
	int *precise;		/* [nr_events] attr.precise_ip */
	/* [nr_events] exact or modelled (record --model, the result's
	 * gx_event.kind): charged to the instruction itself, no skid */
	bool *fixed;
	size_t clk;		/* the event rows are ordered and shared by */
	bool clk_is_cycles;	/* the clock event is the model's cycles */

	/* top-down */
	const struct td_model *td;	/* borrowed (the result's), or td_own */
	struct td_model *td_own;	/* deleted with the model, or NULL */
	struct td_ctx ctx;
	int *ev_map;		/* evsel -> model event, -1 */
	/* each evsel's weight when copies of one model event are combined
	 * (the share of the run it counted); NULL: all 1 */
	double *ev_weight;
	char *td_why;		/* why there is no tree, or NULL */
	bool run_ok;
	struct td_result run;
	double *run_lo, *run_hi;	/* per node 95% interval under MUX, or NULL */
	int focus_node;		/* node selected in the summary: the grid shows its children */

	struct tui_table tab[TK_NR_];
	bool template_args;	/* show C++ template arguments (the 'a' key) */
	/* --baseline: the result compared against, its rows matched to ours
	 * (tui_row.base); delta columns follow the share and CPI */
	struct tui_model *base;
	char *base_title;
	double total_clk;	/* clock-event period of the (filtered) run */
	bool has_mux_rows;	/* rows carry MUX reliability: a grid column */
	bool has_callchains;
	struct tui_path *paths;	/* every distinct call path */
	size_t nr_paths;
	uint32_t *path_funcs;	/* the paths' function indexes (one block) */
	struct tui_tree *calltree;	/* built on first use, or NULL */
	unsigned generation;	/* bumped when the tables change: views rebuild */
	/* The tables (and call tree) the views last saw, kept through a
	 * rebuild (a time range, a region) until the app has moved every view
	 * onto the new ones by identity (tui_model__drop_old); has_old: held */
	struct tui_table old_tab[TK_NR_];
	struct tui_tree *old_calltree;
	bool has_old;

	struct tui_tsample *ts;
	size_t nr_ts;
	struct tui_thread *threads;	/* one a tid (a thread that exec'd: one, its names joined) */
	char **thread_names;		/* the joined names (owned), NULL-terminated */
	size_t nr_threads;
	/* --off-cpu: the spans off the CPU (tid, then time order), each with
	 * its reason's letter (s, i, l, c, o); has_offcpu: the grid's OffCPU
	 * column */
	struct tui_offspan {
		uint64_t start, end;
		uint32_t tid;
		char reason;
	} *offspans;
	size_t nr_offspans;
	bool has_offcpu;
	int off_ev;			/* the event (value) "off-cpu", -1: none */
	/* the first weight value (GX_SOURCE_WEIGHT, "mem-loads:weight"):
	 * the grid's Weight column, the loads' latency in cycles; -1: none */
	int weight_ev;
	uint64_t t_first, t_last;
	uint64_t range_lo, range_hi;	/* time filter; 0/0 = whole run */
	/* regions: instances by (tid, begin); the views narrowed to one name
	 * (a time range per thread: its instances), -1 none. A time range
	 * and a region exclude each other. */
	struct tui_region *regions;
	size_t nr_regions, cap_regions;
	const char **region_names;	/* owned by the model */
	size_t nr_region_names;
	int region;
	/* Indexes of the samples, so that no key walks all of them (made at
	 * open, or on first use): the clock event's sample times per thread
	 * (m->threads order, each thread's sorted), and its samples by
	 * address. */
	uint64_t *thr_times;
	size_t *thr_off;	/* [nr_threads + 1] into thr_times */
	/* whether ts is in time order, checked for ts_checked - 1 samples
	 * (0: not yet): a range's samples are then found by binary search */
	bool ts_sorted;
	size_t ts_checked;
	struct tui_iphist *ips;	/* by ip */
	size_t nr_ips;
	/* [nr_ts]: each clock-event sample's entry in ips (UINT32_MAX for
	 * the other events), so a range's histogram is counting, not hashing */
	uint32_t *ts_ip;
	/* the last disassembly, for the source view then the disassembly view */
	struct tui_disasm disasm_last;
	size_t disasm_func;
	unsigned disasm_gen;
	bool disasm_cached;

	/* cache of loaded source files */
	char **src_names;
	char ***src_lines;
	const char **src_why;
	size_t nr_src;
	/* interned strings (simple arena) */
	char **owned;
	size_t nr_owned, cap_owned;
};

/* An empty model for nr_events events with the given names; the caller
 * fills the tables (tests, tui-load.c). */
struct tui_model *tui_model__new(size_t nr_events, const char *const *names);
/* The model, its baseline model and all it holds. */
void tui_model__delete(struct tui_model *m);

/*
 * The loader: where a model's rows, source and code come from — a
 * recorded result (tui-load.c) or the tests' synthetic one. The model
 * knows nothing of it: the app and the views hold it beside the model
 * and hand it to the model's functions that read through it
 * (tui_model__source, tui_model__disasm) or call it on the model. A NULL
 * function: this loader cannot (a time range without a recording).
 */
struct tui_loader {		/* first in a loader that holds more (tui_real) */
	/* Lines of a source file (a NULL-terminated array the model then
	 * owns), or NULL with *why. */
	char **(*source)(struct tui_loader *ld, const char *file, const char **why);
	/* The disassembly of m's function row func. */
	int (*disasm)(struct tui_loader *ld, struct tui_model *m, size_t func,
		      struct tui_disasm *out);
	/* Rebuild m's tables for the time range [lo, hi] (0/0: whole run). */
	int (*refilter)(struct tui_loader *ld, struct tui_model *m, uint64_t lo, uint64_t hi,
			char **cause);
	/* Rebuild m's tables narrowed to region region_names[name_idx] (-1:
	 * the whole run). */
	int (*renarrow)(struct tui_loader *ld, struct tui_model *m, int name_idx, char **cause);
	/* Per-thread rows (the timeline's Enter): function, line and module
	 * rows of thread tid in m's time range and region, added to tab[]
	 * (tui_table__add_row). */
	int (*thread_rows)(struct tui_loader *ld, struct tui_model *m, uint32_t tid,
			   struct tui_table *tab, char **cause);
	/* The result's loops (the loops view), whole run, into out. */
	int (*loops)(struct tui_loader *ld, struct tui_model *m, struct tui_loops *out);
	/* Free the loader (after the models it loaded), or NULL. */
	void (*free)(struct tui_loader *ld);
};

/* What tui_session__open gives: the model and its loader. */
struct tui_session {
	struct tui_model *m;
	struct tui_loader *ld;
};
/* Replace the events (names copied); before any row is added. */
void tui_model__set_events(struct tui_model *m, size_t nr_events, const char *const *names);
/* Keep s for the model's lifetime. */
const char *tui_model__str(struct tui_model *m, const char *s);
/* Append a row to table k; returns it with period/samples zeroed. */
struct tui_row *tui_model__add_row(struct tui_model *m, enum tui_kind k, const char *name);
/* The same for a table of the caller's (a thread's rows); tui_table__clear
 * frees its rows. */
struct tui_row *tui_table__add_row(struct tui_model *m, struct tui_table *t, const char *name);
void tui_table__clear(struct tui_table *t);

/*
 * A row's identity across rebuilds of the tables (a time range or a
 * region renumbers every row): its kind, name, module, file, line and
 * thread. The strings are the model's (kept for its lifetime) or static:
 * a key stays valid when its row is gone.
 */
struct tui_rkey {
	enum tui_kind kind;
	const char *name, *module, *file;
	uint32_t line, tid;
};
void tui_rkey__of(struct tui_rkey *k, enum tui_kind kind, const struct tui_row *r);
bool tui_rkey__is(const struct tui_rkey *k, const struct tui_row *r);
/* The row of t with key k, -1 when none (no sample in the range). */
int tui_table__find(const struct tui_table *t, const struct tui_rkey *k);
/* The key of function row func as the views last saw it: of the old
 * tables while the model holds them (between a rebuild and the views'
 * sync), else of the current ones. */
void tui_model__old_fkey(const struct tui_model *m, size_t func, struct tui_rkey *k);
/* Function row func of the tables the views last saw, found again in the
 * current ones: its new index, -1 when it has no sample there. */
int tui_model__refind_func(const struct tui_model *m, size_t func);
/* The function table the views last saw (old_tab while held). */
const struct tui_table *tui_model__old_table(const struct tui_model *m, enum tui_kind k);
/* Free the old tables: every view is on the new ones. */
void tui_model__drop_old(struct tui_model *m);
/* Case as people expect of a filter (smart case): s contains pattern,
 * ignoring case unless pattern has an upper-case letter. "" matches. */
bool tui_match(const char *s, const char *pattern);
void tui_model__add_hint(struct tui_model *m, const char *fmt, ...) GX_PRINTF(2, 3);
void tui_model__add_confidence(struct tui_model *m, const char *fmt, ...) GX_PRINTF(2, 3);
/* Set the top-down model (borrowed: it must outlive m, or be m->td_own)
 * and evaluate the whole run from counts (model events, NAN when
 * missing). */
void tui_model__set_topdown(struct tui_model *m, const struct td_model *td, const int *ev_map,
			    const double *run_counts);
/* Lazily evaluated top-down result of a row; NULL when none. */
const struct td_result *tui_row__td(struct tui_model *m, struct tui_row *r);
/* Clock-event share of the run, 0..1. */
double tui_row__share(const struct tui_model *m, const struct tui_row *r);
double tui_model__total(const struct tui_model *m);
/* VTune's rule: the row holds > 5% of the run's clock event. */
bool tui_row__significant(const struct tui_model *m, const struct tui_row *r);
/* The source lines of a file, read through ld and cached; NULL with *why. */
char **tui_model__source(struct tui_model *m, struct tui_loader *ld, const char *file,
			 const char **why);
/* Call after filling or changing the tables: totals, lazy evaluations. */
void tui_model__tables_changed(struct tui_model *m);
void tui_model__clear_tables(struct tui_model *m);
/* Add a region instance (tests, tui-load.c); names are interned into
 * region_names. Call tui_model__regions_done after the last. */
void tui_model__add_region(struct tui_model *m, const char *name, uint32_t tid, uint64_t begin,
			   uint64_t end, uint16_t depth);
void tui_model__regions_done(struct tui_model *m);
/* The region name's index, -1 when the model has none of that name. */
int tui_model__find_region(const struct tui_model *m, const char *name);
/* The deepest instance on thread tid at time t, or NULL. */
const struct tui_region *tui_model__region_at(const struct tui_model *m, uint32_t tid, uint64_t t);
/* Whether thread tid's instants in [lo, hi] meet region name_idx. */
bool tui_model__region_meets(const struct tui_model *m, int name_idx, uint32_t tid, uint64_t lo,
			     uint64_t hi);
/* Whether a sample of thread tid at time t is in the views: inside the
 * time range and the narrowed region, if any. */
bool tui_model__keeps(const struct tui_model *m, uint32_t tid, uint64_t t);
/* s with every C++ template argument list collapsed to "<...>"
 * ("std::vector<...>::push_back"); operator<, operator<< and the like
 * are kept. Written to out (n bytes, NUL-terminated, cut if too small). */
void tui_collapse_templates(const char *s, char *out, size_t n);
/* A function name as the views show it: collapsed templates unless
 * m->template_args; returns name itself or buf. */
const char *tui_model__name(const struct tui_model *m, const char *name, char *buf, size_t n);
/* Build m->thr_times / m->thr_off, and m->ips, when not yet made. */
void tui_model__index_times(struct tui_model *m);
void tui_model__index_ips(struct tui_model *m);
/* The clock event's samples in the time range [lo, hi] (hi 0: all) by
 * (ip, pid), sorted by ip, into *out (the caller frees); returns the
 * entries. narrowed: only those the views keep (tui_model__keeps: the
 * time range and the narrowed region). */
size_t tui_model__ip_histogram(struct tui_model *m, uint64_t lo, uint64_t hi, bool narrowed,
			       struct tui_iphist **out);
/* The disassembly of function row func (ld->disasm, the last one kept:
 * the source view asks, then the disassembly view); out is the caller's
 * copy (tui_disasm__exit). Nonzero when the loader has none. */
int tui_model__disasm(struct tui_model *m, struct tui_loader *ld, size_t func,
		      struct tui_disasm *out);
/* Whether the clock event of the recording was sampled without precise_ip
 * (an exact or modelled one never is: it has no skid). */
bool tui_model__imprecise(const struct tui_model *m);

/* Grid columns: the clock share (self), its total (with call stacks),
 * samples, then top-down nodes (CPI, level 1, the focus node's children),
 * the module, and last the name (width 0: the rest of the line). prio:
 * lower survives narrower screens. Every column sorts (< >). */
enum tui_col_kind { TC_SHARE, TC_SAMPLES, TC_NODE, TC_MUX, TC_TOTAL, TC_MODULE, TC_NAME,
		    TC_OFFCPU, TC_WEIGHT };
struct tui_col {
	enum tui_col_kind kind;
	int node;		/* TC_NODE: node index */
	bool delta;		/* this row's value minus the baseline row's */
	char name[12];
	int width;
	int prio;
};
#define TUI_MAX_COLS 16
size_t tui_model__columns(struct tui_model *m, enum tui_kind k, struct tui_col *cols,
			  size_t max);
/* Whether a column holds text (module, name): sorted by string, A first. */
static inline bool tui_col__text(const struct tui_col *c)
{
	return c->kind == TC_MODULE || c->kind == TC_NAME;
}
/* The last part of a path ("libc.so.6"). */
const char *tui_base_name(const char *path);
/*
 * Compare with a baseline model (owned by m from now on): each row of
 * every table is matched to the baseline's row of the same function and
 * module (line: file, line and module; module, process and thread: name).
 * __match_base redoes it after the tables were rebuilt (a time range).
 */
void tui_model__set_base(struct tui_model *m, struct tui_model *base, const char *title);
void tui_model__match_base(struct tui_model *m);
/* Value of a column for a row (NAN: n/a; a delta column gives INFINITY
 * for a row the baseline lacks); *hot: over threshold in a significant
 * row; *dim: below threshold or n/a. */
double tui_model__cell(struct tui_model *m, struct tui_row *r, const struct tui_col *c,
		       bool *hot, bool *dim);
/* Format a cell value into buf ("41.2%", "1.25", "n/a", "1234"). */
void tui_model__cell_text(const struct tui_model *m, const struct tui_col *c, double v,
			  char *buf, size_t n);

/* Sort and filter state of one grid: the visible rows' indexes. */
struct tui_order {
	size_t *idx;
	size_t nr;
	int sort_col;		/* index into the columns */
	bool asc;
	char filter[64];	/* substring of the name (or file), "" = all */
};
void tui_order__exit(struct tui_order *o);
/* Recompute o->idx for table t (of the model's kind k, or a thread's)
 * under o's sort column and filter. */
void tui_model__order(struct tui_model *m, struct tui_table *t, const struct tui_col *cols,
		      size_t ncols, struct tui_order *o);

/* ---- the backing of a real result (tui-load.c, tui-disasm.c) ---------- */
struct tui_mmap {
	uint32_t pid;
	uint64_t start, len, pgoff;
	char *path;
	uint8_t build_id[20];
	uint8_t build_id_size;
};

struct gx_result;
struct mux_log;
struct tui_real {
	struct tui_loader ld;		/* first: the loader is the real */
	struct gx_result *res;		/* the opened result (owned) */
	struct tui_mmap *maps;		/* every MMAP record, for the disassembly */
	size_t nr_maps;
	struct tui_loader *base;	/* the baseline's loader, or NULL (owned) */
};

/* Disassemble code at addr into out->insns (capstone) for an ELF machine:
 * EM_X86_64 or EM_AARCH64. Counts and lines are left 0. 0, GX_E_NOTSUP
 * without capstone or for another machine, GX_E_NODATA when the capstone
 * library cannot be loaded. */
int tui_disasm_bytes(int machine, const uint8_t *code, size_t n, uint64_t addr,
		     struct tui_disasm *out);
/* The disassembly of a real result (its loader's disasm). */
int tui_disasm_real(struct tui_loader *ld, struct tui_model *m, size_t func,
		    struct tui_disasm *out);
/* The loops of a real result's flow (its loader's loops; tui-flow.c). */
int tui_loops_real(struct tui_loader *ld, struct tui_model *m, struct tui_loops *out);
/* Why there is no disassembly at all (no capstone in this build, or its
 * library cannot be loaded; it is loaded here), or NULL. */
const char *tui_disasm_missing(void);

/* ======================================================================
 * Views
 * ==================================================================== */
enum {
	TR_NONE = 0,
	TR_REDRAW = 1 << 0,
	TR_PUSH = 1 << 1,	/* the reaction's next holds a view to open */
	TR_POP = 1 << 2,	/* close this view */
	TR_QUIT = 1 << 3,
	TR_UNHANDLED = 1 << 4,
	TR_PROMPT = 1 << 5,	/* ask for a filter/search string */
};

struct tui_view;

/* What a view's handle says besides its flags: the view to open
 * (TR_PUSH) and a one-shot message for the status bar ("" none), which
 * the app shows. */
struct tui_reaction {
	struct tui_view *next;
	char msg[256];
};
void tui_reaction__say(struct tui_reaction *r, const char *fmt, ...) GX_PRINTF(2, 3);

struct tui_key_help {
	const char *keys, *what;
};

struct tui_view_ops {
	const char *name;
	const struct tui_key_help *help;	/* NULL-terminated by keys == NULL */
	/* What the view's marks and colours mean (same shape), or NULL. */
	const struct tui_key_help *legend;
	void (*draw)(struct tui_view *v, struct tui_canvas *c, int y0, int h);
	unsigned (*handle)(struct tui_view *v, enum tui_action a, struct tui_reaction *r);
	/* A '/' string was entered ("" clears); NULL: the view takes none. */
	void (*search)(struct tui_view *v, const char *pattern);
	/* One line for the status bar, or NULL. */
	const char *(*status)(struct tui_view *v);
	/*
	 * The model's tables were rebuilt (a time range or a region, applied
	 * or cleared): find what the view shows again by identity (the old
	 * tables are still there, tui_model__old_table). false: it is gone
	 * (a function without samples in the range); the app closes the view
	 * and says so. NULL: the view holds nothing of the tables.
	 */
	bool (*sync)(struct tui_view *v);
	void (*destroy)(struct tui_view *v);
};

struct tui_view {
	const struct tui_view_ops *ops;
	struct tui_model *m;
	struct tui_loader *ld;	/* the model's loader (the app's) */
	char title[128];
	int sel, top, page;	/* cursor row, first row shown, rows per page */
};

/* Keep the cursor inside a window of `rows` rows. */
static inline void tui_view__scroll(struct tui_view *v, int rows)
{
	v->page = rows > 0 ? rows : 1;
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + v->page)
		v->top = v->sel - v->page + 1;
	if (v->top < 0)
		v->top = 0;
}

/*
 * A zeroed view of size bytes (a struct that starts with its struct
 * tui_view) with its ops, model, loader and title set. The caller owns
 * it; its ops->destroy frees it.
 */
void *tui_view__new(size_t size, const struct tui_view_ops *ops, struct tui_model *m,
		    struct tui_loader *ld, const char *title_fmt, ...) GX_PRINTF(5, 6);

/* The hot-spot keys over a ranking of nr (> 0) rows, hottest first:
 * TA_HOTTEST goes to the first, TA_NEXT_HOT / TA_PREV_HOT step around;
 * returns the new *pos. */
static inline int tui_rank__step(int *pos, size_t nr, enum tui_action a)
{
	int n = (int)nr;

	*pos = a == TA_HOTTEST ? 0 : (*pos + (a == TA_NEXT_HOT ? 1 : n - 1)) % n;
	return *pos;
}

/* Word-wrap text to width w; calls emit for each line. */
void tui_wrap(const char *text, int w, void (*emit)(void *ctx, const char *line), void *ctx);

/* Cursor movement shared by list views over n items. TR_REDRAW or
 * TR_UNHANDLED. */
unsigned tui_view__move(struct tui_view *v, enum tui_action a, int n);

/* A back stack of views (view.c), which owns them; the bottom one (the
 * summary) stays. */
#define TUI_MAX_STACK 32
struct tui_stack {
	struct tui_view *v[TUI_MAX_STACK];
	int depth;
};
/* The view on top (the stack is not empty). */
static inline struct tui_view *tui_stack__top(const struct tui_stack *s)
{
	return s->v[s->depth - 1];
}
/* Push v (NULL: nothing); a full stack drops its oldest view above the
 * bottom one. */
void tui_stack__push(struct tui_stack *s, struct tui_view *v);
/* Close the top view unless it is the bottom one. */
void tui_stack__pop(struct tui_stack *s);
/* Close every view. */
void tui_stack__clear(struct tui_stack *s);
/* After the model's tables were rebuilt: every view synced bottom up
 * (ops->sync), the ones whose rows are gone closed. Returns how many
 * closed, the title of the first in closed (n bytes). */
int tui_stack__sync(struct tui_stack *s, char *closed, size_t n);

struct tui_view *tui_summary_view__new(struct tui_model *m, struct tui_loader *ld);
struct tui_view *tui_grid_view__new(struct tui_model *m, struct tui_loader *ld, enum tui_kind k);
/* The grid of one thread's rows (ld->thread_rows must be set). */
struct tui_view *tui_thread_grid_view__new(struct tui_model *m, struct tui_loader *ld,
					   uint32_t tid, const char *name);
/* line 0: the cursor starts on the hottest line. */
struct tui_view *tui_source_view__new(struct tui_model *m, struct tui_loader *ld, size_t func,
				      uint32_t line);
struct tui_view *tui_disasm_view__new(struct tui_model *m, struct tui_loader *ld, size_t func,
				      uint32_t line);
struct tui_view *tui_callers_view__new(struct tui_model *m, struct tui_loader *ld, size_t func);
struct tui_view *tui_timeline_view__new(struct tui_model *m, struct tui_loader *ld);
struct tui_view *tui_help_view__new(struct tui_model *m, struct tui_loader *ld,
				    const struct tui_view *of);
struct tui_view *tui_calltree_view__new(struct tui_model *m, struct tui_loader *ld);
struct tui_view *tui_flame_view__new(struct tui_model *m, struct tui_loader *ld);
/* The result's hottest loops (ld->loops), whole run. */
struct tui_view *tui_loops_view__new(struct tui_model *m, struct tui_loader *ld);
/* The rows of a tree as a list view shows them: the descendants of root
 * that are visible under the expanded nodes (view-calltree.c). */
struct tui_treelist {
	const struct tui_tree *t;
	int32_t root;
	bool *open;		/* [t->nr] */
	int32_t *rows;
	size_t nr, cap;
};
void tui_treelist__init(struct tui_treelist *l, const struct tui_tree *t, int32_t root);
void tui_treelist__exit(struct tui_treelist *l);
/* Open the hottest chain below node from (-1: the root); all: down to a
 * leaf, else while the hottest callee holds half of its caller. Returns
 * the last node. */
int32_t tui_treelist__hot_path(struct tui_treelist *l, int32_t from, bool all);
/* Right, Left, +, - and H on row *i (moved to where the cursor goes):
 * TR_REDRAW, or TR_UNHANDLED (Left on a closed top row: back). */
unsigned tui_treelist__act(struct tui_treelist *l, enum tui_action a, int *i);
/* A tree node's identity across rebuilds of the tables: its path from
 * the root, each step a command's name (kind TK_PROCESS) or a function's
 * key. */
struct tui_tpath {
	struct tui_rkey *step;
	size_t nr;
};
/* The path of node in t, a tree of the function rows the views last saw
 * (tui_model__old_table). */
void tui_tpath__of(struct tui_tpath *p, const struct tui_model *m, const struct tui_tree *t,
		   int32_t node);
/* The node of t (over the current tables) at the end of p, or at the
 * deepest step of p that t still has (0: the root). */
int32_t tui_tpath__find(const struct tui_tpath *p, const struct tui_model *m,
			const struct tui_tree *t);
void tui_tpath__exit(struct tui_tpath *p);
/* One row of a call tree at y: self and total shares, the name indented
 * by depth (relative to base_depth) after its mark ('+' closed, '-' open),
 * the module at the right when there is room. */
void tui_tree_row__draw(struct tui_canvas *c, int y, struct tui_model *m,
			const struct tui_tree *t, int32_t node, uint32_t base_depth, bool open,
			bool sel);
/* The header that goes with tui_tree_row__draw's rows. */
void tui_tree_row__header(struct tui_canvas *c, int y, const char *what);

/* ======================================================================
 * The app: a stack of views, a prompt, and the message line.
 * ==================================================================== */
struct tui_app {
	struct tui_model *m;
	struct tui_loader *ld;	/* the model's loader (not owned) */
	struct tui_stack views;
	bool prompting;
	char prompt[64];
	size_t prompt_len;
	char msg[256];		/* one-shot message for the status bar */
	bool quit;
	bool interrupted;	/* quit by Ctrl-C (term.c) */
	bool repaint;		/* Ctrl-L: the terminal redraws every cell */
	unsigned gen;		/* the model's generation the views are on */
};

/* The app over model m, whose loader is ld (NULL: one that can do
 * nothing, as for a model made in memory). */
void tui_app__init(struct tui_app *a, struct tui_model *m, struct tui_loader *ld);
void tui_app__exit(struct tui_app *a);
/* Feed one key (TK_* or ASCII). */
void tui_app__key(struct tui_app *a, int key);
/* After the model's tables changed: every view synced (ops->sync), the
 * views whose function is gone closed with a message, the old tables
 * dropped. tui_app__key calls it; nothing to do when nothing changed. */
void tui_app__sync(struct tui_app *a);
/* Draw the whole screen (title, current view, status) into c. */
void tui_app__draw(struct tui_app *a, struct tui_canvas *c);

/* Smallest size drawn at all (below: "terminal too small"). */
#define TUI_MIN_W 30
#define TUI_MIN_H 8

/* Format helpers shared by views. */
void tui_fmt_value(char *buf, size_t n, const struct td_node *nd, const struct td_value *x);
/* "Frontend_Bound" -> "Frontend", at most w chars. */
void tui_short_node_name(const char *name, char *buf, size_t n);

#endif /* GX_TUI_INT_H */
