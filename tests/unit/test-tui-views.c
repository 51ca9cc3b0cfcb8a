/*
 * test-tui-views: every view, headless, over a synthetic model (the skl
 * top-down model with made-up per-row counts, in-memory source and
 * machine code). Each case applies a key script and compares the canvas
 * (text + style layer) at 80x24 and 40x12 with tests/golden/tui/; set
 * GX_REGEN_GOLDEN=1 (make golden-tui) to rewrite them. A few assertions
 * check behaviour directly, so a wrong golden cannot hide a broken view.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tui/tui-int.h"

static const char *srcdir;
static bool regen;

/* ---- the synthetic model ------------------------------------------------ */

static const char *const synth_c[] = {
	"/* synth.c: a made-up workload */",
	"#include <stddef.h>",
	"",
	"long sink;",
	"",
	"long hot_inner(const long *p, const long *end)",
	"{",
	"\tlong s = 0;",
	"",
	"\twhile (p != end) {",
	"\t\ts += *p;\t/* the load */",
	"\t\tp++;",
	"\t}",
	"\treturn s;",
	"}",
	"",
	"void hot_outer(const long *p, size_t n)",
	"{",
	"\tfor (int i = 0; i < 100; i++)",
	"\t\tsink += hot_inner(p, p + n);",
	"}",
	"",
	"int main(void)",
	"{",
	"\tstatic long buf[4096];",
	"",
	"\thot_outer(buf, 4096);",
	"\treturn 0;",
	"}",
	NULL,
};

static char **synth_source(struct tui_loader *ld, const char *file, const char **why)
{
	char **l;
	size_t n = 0;

	(void)ld;
	if (strcmp(file, "/src/synth.c")) {
		*why = "the source file is not on this machine (moved, or built elsewhere)";
		return NULL;
	}
	while (synth_c[n])
		n++;
	l = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		l[i] = xstrdup(synth_c[i]);
	return l;
}

/* hot_inner: mov rax,[rdi]; add rcx,rax; add rdi,8; cmp rdi,rsi; jne top; ret */
static const uint8_t inner_code[] = {
	0x48, 0x8b, 0x07, 0x48, 0x01, 0xc1, 0x48, 0x83, 0xc7, 0x08,
	0x48, 0x39, 0xf7, 0x75, 0xf1, 0xc3,
};
static const struct { uint64_t addr; uint32_t line; uint64_t samples; } inner_meta[] = {
	{ 0x1000, 11, 5 }, { 0x1003, 11, 40 }, { 0x1006, 12, 3 },
	{ 0x100a, 10, 2 }, { 0x100d, 10, 10 }, { 0x100f, 14, 1 },
};

static int synth_disasm(struct tui_loader *ld, struct tui_model *m, size_t func,
			struct tui_disasm *out)
{
	(void)ld;
	memset(out, 0, sizeof(*out));
	if (strcmp(m->tab[TK_FUNC].rows[func].name, "hot_inner")) {
		out->why = "the binary is not on this machine: no disassembly";
		return 0;
	}
	if (tui_disasm_bytes(EM_X86_64, inner_code, sizeof(inner_code), 0x1000, out) != 0) {
		out->why = "this gexplore was built without capstone: no disassembly";
		return 0;
	}
	for (size_t i = 0; i < out->nr; i++)
		for (size_t k = 0; k < sizeof(inner_meta) / sizeof(inner_meta[0]); k++)
			if (inner_meta[k].addr == out->insns[i].addr) {
				out->insns[i].line = inner_meta[k].line;
				out->insns[i].samples = inner_meta[k].samples;
			}
	return 0;
}

/* The loops of synth.c, as a branch-stack recording's flow would give
 * them: hot_inner's while (line 10) nested in hot_outer's for (19), and a
 * loop in a function without samples. */
static int synth_loops(struct tui_loader *ld, struct tui_model *m, struct tui_loops *out)
{
	static const struct tui_loop v[] = {
		{ "hot_inner", "/usr/bin/synth", "/src/synth.c", 10, 0x1000, 100, 409600, 9.5,
		  0.01, 2 },
		{ "hot_outer", "/usr/bin/synth", "/src/synth.c", 19, 0x1100, 1, 100, NAN, NAN, 1 },
		{ "cold_helper", "/usr/bin/synth", "", 0, 0x1200, 3, 6, 2.25, 0.5, 1 },
	};

	(void)ld;
	(void)m;
	out->v = xcalloc(ARRAY_SIZE(v), sizeof(*out->v));
	memcpy(out->v, v, sizeof(v));
	out->nr = ARRAY_SIZE(v);
	out->exact = false;
	return 0;
}

static double *base;		/* run counts per model event */

static void fill(struct tui_model *m, struct tui_row *r, double w, int salt)
{
	for (size_t e = 0; e < m->nr_events; e++) {
		/* a deterministic +-25% tilt per row and event */
		double tilt = 1 + 0.05 * (double)((salt * 31 + (int)e * 17) % 11 - 5);

		if (isnan(base[e]))
			continue;
		r->period[e] = e == m->clk ? w * base[e] : w * base[e] * tilt;
		r->samples[e] = (uint64_t)(r->period[e] / 10000);
	}
}

static struct tui_row *row(struct tui_model *m, enum tui_kind k, const char *name, double w,
			   int salt)
{
	struct tui_row *r = tui_model__add_row(m, k, name);

	fill(m, r, w, salt);
	return r;
}

/* The tables of the whole run (range false), or of a time range: there
 * the function rows come in another order and memcpy_like has no sample,
 * as in a real range's profile (its rows renumbered). */
static void synth_fill(struct tui_model *m, bool range)
{
	static const struct { const char *name, *module; double w; int salt; } funcs[] = {
		{ "hot_inner", "/usr/bin/synth", 0.52, 6 },
		{ "hot_outer", "/usr/bin/synth", 0.30, 7 },
		{ "memcpy_like", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0.10, 8 },
		{ "std::vector<int>::a_very_long_templated_member_function_name", "/usr/bin/synth",
		  0.05, 9 },
		{ "[unknown]", "/usr/lib/stripped.so", 0.02, 10 },
		{ "main", "/usr/bin/synth", 0.006, 11 },
		/* a function with a CJK name: two cells a character */
		{ "\xe8\xa8\x88\xe7\xae\x97::\xe5\x87\xa6\xe7\x90\x86(int)", "/usr/bin/synth", 0.004,
		  22 },
	};
	static const int whole[] = { 0, 1, 2, 3, 4, 5, 6 }, ranged[] = { 5, 3, 1, 0, 4, 6 };
	static const struct { int func; uint32_t line; double w; const char *file; } lines[] = {
		{ 0, 10, 0.06, "/src/synth.c" }, { 0, 11, 0.38, "/src/synth.c" },
		{ 0, 12, 0.07, "/src/synth.c" }, { 0, 14, 0.01, "/src/synth.c" },
		{ 1, 19, 0.10, "/src/synth.c" }, { 1, 20, 0.20, "/src/synth.c" },
		{ 2, 40, 0.10, "/build/memcpy.c" },
		{ 3, 7, 0.05, "/usr/include/c++/vector" },
		{ 5, 27, 0.003, "/src/synth.c" }, { 5, 77, 0.003, "/src/synth.c" },
	};
	/* call paths (what report --folded prints), their self shares adding
	 * up to each function's: hot_inner and hot_outer are reached from
	 * main directly and through the vector method */
	static const struct { double w; uint32_t len, f[4]; } paths[] = {
		{ 0.42, 3, { 5, 1, 0 } }, { 0.10, 4, { 5, 3, 1, 0 } },
		{ 0.20, 2, { 5, 1 } }, { 0.10, 3, { 5, 3, 1 } },
		{ 0.10, 3, { 5, 1, 2 } }, { 0.05, 2, { 5, 3 } },
		{ 0.02, 2, { 5, 4 } }, { 0.006, 1, { 5 } }, { 0.004, 2, { 5, 6 } },
	};
	const int *order = range ? ranged : whole;
	size_t nr = range ? ARRAY_SIZE(ranged) : ARRAY_SIZE(whole), np = ARRAY_SIZE(paths), nf = 0;
	int at[ARRAY_SIZE(funcs)];	/* a function's row, -1: none here */
	struct tui_table *ft = &m->tab[TK_FUNC];
	struct tui_row *r;

	row(m, TK_PROCESS, "synth", 1.0, 1)->pid = 100;
	r = row(m, TK_THREAD, "synth", 0.7, 2);
	r->pid = r->tid = 100;
	r = row(m, TK_THREAD, "synth-worker", 0.3, 3);
	r->pid = 100;
	r->tid = 101;
	row(m, TK_MODULE, "/usr/bin/synth", 0.9, 4);
	row(m, TK_MODULE, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0.1, 5);
	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++)
		at[i] = -1;
	for (size_t i = 0; i < nr; i++) {
		at[order[i]] = (int)i;
		row(m, TK_FUNC, funcs[order[i]].name, funcs[order[i]].w,
		    funcs[order[i]].salt)->module = funcs[order[i]].module;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		if (at[lines[i].func] < 0)
			continue;
		r = row(m, TK_LINE, funcs[lines[i].func].name, lines[i].w, 12 + (int)i);
		r->func = at[lines[i].func];
		r->line = lines[i].line;
		r->file = lines[i].file;
		r->module = funcs[lines[i].func].module;
	}
	m->paths = xcalloc(np, sizeof(*m->paths));
	m->path_funcs = xcalloc(64, sizeof(uint32_t));
	for (size_t i = 0; i < ft->nr; i++)
		ft->rows[i].total = 0;
	for (size_t i = 0; i < np; i++) {
		struct tui_path *p;
		bool gone = false;

		for (uint32_t k = 0; k < paths[i].len; k++)
			gone |= at[paths[i].f[k]] < 0;
		if (gone)
			continue;
		p = &m->paths[m->nr_paths++];
		for (uint32_t k = 0; k < paths[i].len; k++)
			m->path_funcs[nf + k] = (uint32_t)at[paths[i].f[k]];
		p->func = m->path_funcs + nf;
		p->len = paths[i].len;
		nf += paths[i].len;
		p->comm = "synth";
		p->period = paths[i].w * base[m->clk];
		p->samples = (uint64_t)(p->period / 10000);
		for (uint32_t k = 0; k < p->len; k++)
			ft->rows[p->func[k]].total += p->period;
	}
	m->has_callchains = true;
}

/* The refilter provider: a range's tables (synth_fill), or the whole
 * run's again. */
static int synth_refilter(struct tui_loader *ld, struct tui_model *m, uint64_t lo, uint64_t hi,
			  char **cause)
{
	(void)ld;
	(void)cause;
	tui_model__clear_tables(m);
	synth_fill(m, hi != 0);
	tui_model__tables_changed(m);
	m->range_lo = lo;
	m->range_hi = hi;
	m->region = -1;
	return 0;
}

/* The thread_rows provider: thread 101 ran hot_outer and (outside a
 * range) memcpy_like; thread 100 the rest. */
static int synth_thread_rows(struct tui_loader *ld, struct tui_model *m, uint32_t tid,
			     struct tui_table *tab, char **cause)
{
	static const struct { uint32_t tid; const char *name, *module; double w; } rows[] = {
		{ 101, "hot_outer", "/usr/bin/synth", 0.2 },
		{ 101, "memcpy_like", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0.1 },
		{ 100, "hot_inner", "/usr/bin/synth", 0.52 },
		{ 100, "hot_outer", "/usr/bin/synth", 0.1 },
		{ 100, "main", "/usr/bin/synth", 0.006 },
	};

	(void)ld;
	(void)cause;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct tui_row *r;

		if (rows[i].tid != tid || (m->range_hi && !strcmp(rows[i].name, "memcpy_like")))
			continue;
		r = tui_table__add_row(m, &tab[TK_FUNC], rows[i].name);
		fill(m, r, rows[i].w, (int)i);
		r->module = rows[i].module;
	}
	fill(m, tui_table__add_row(m, &tab[TK_MODULE], "/usr/bin/synth"), 0.5, 4);
	return 0;
}

/* The synthetic models' loaders, found by model: the model knows
 * nothing of its loader, the app is handed it beside the model. */
static struct {
	const struct tui_model *m;
	struct tui_loader ld;
} loaders[8];

/* m's loader; NULL for a model made without one. */
static struct tui_loader *loader_of(const struct tui_model *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(loaders); i++)
		if (m && loaders[i].m == m)
			return &loaders[i].ld;
	return NULL;
}

/* A fresh loader for m (with the source and disassembly of synth.c). */
static struct tui_loader *loader_new(const struct tui_model *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(loaders); i++)
		if (!loaders[i].m) {
			loaders[i].m = m;
			loaders[i].ld = (struct tui_loader){ .source = synth_source,
							     .disasm = synth_disasm,
							     .loops = synth_loops };
			return &loaders[i].ld;
		}
	diag("too many synthetic models");
	exit(1);
}

/* Delete a model (and its baseline), forgetting their loaders. */
static void synth_delete(struct tui_model *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(loaders); i++)
		if (m && loaders[i].m && (loaders[i].m == m || loaders[i].m == m->base))
			loaders[i].m = NULL;
	tui_model__delete(m);
}

static struct tui_model *synth_model(bool empty)
{
	struct td_model *td;
	struct tui_model *m;
	const char **names;
	char *cause = NULL, *text, path[4096];
	size_t ne, len;
	int *ev;
	FILE *f;

	if (td_model__load("skl", NULL, &td, &cause) != 0) {
		diag("skl model: %s", cause);
		exit(1);
	}
	ne = td_model__nr_events(td);
	names = xcalloc(ne + 1, sizeof(char *));
	ev = xcalloc(ne + 1, sizeof(int));
	for (size_t i = 0; i < ne; i++) {
		names[i] = td_model__event(td, i)->id;
		ev[i] = (int)i;
	}
	m = tui_model__new(ne, names);
	free(names);
	m->clk = (size_t)td_model__find_event(td, "cycles");
	m->clk_is_cycles = true;
	m->title = xstrdup("gx001");
	m->command = xstrdup("./synth --size 4096");
	m->cpu_desc = xstrdup("Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
	m->model_id = xstrdup("skl");
	m->smt = xstrdup("off");
	m->ctx.smt = TD_SMT_OFF;
	m->pmu = true;
	m->duration_s = 2.5;
	m->nr_samples = empty ? 0 : 12345;
	loader_new(m);
	base = xcalloc(ne + 1, sizeof(double));
	snprintf(path, sizeof(path), "%s/tests/topdown/skl-perfstat.txt", srcdir);
	f = fopen(path, "r");
	if (!f) {
		diag("%s: %s", path, strerror(errno));
		exit(1);
	}
	text = xcalloc(1, 1 << 16);
	len = fread(text, 1, (1 << 16) - 1, f);
	text[len] = 0;
	fclose(f);
	if (td_counts_parse(td, text, path, base, NULL, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	free(text);
	for (size_t i = 0; i < ne; i++)
		if (empty)
			base[i] = NAN;
	tui_model__set_topdown(m, td, ev, base);
	m->td_own = td;	/* the model deletes it */
	free(ev);
	tui_model__add_hint(m, "Skid: cycles was sampled with precise_ip=0, so samples may land "
			       "after the instruction responsible (see disassembly).");
	if (!empty) {
		synth_fill(m, false);
		/* timeline: thread 100 busy all along, 101 in the second half */
		m->ts = xcalloc(400, sizeof(*m->ts));
		for (int i = 0; i < 400; i++) {
			struct tui_tsample *s = &m->ts[m->nr_ts++];

			s->evsel = (uint32_t)m->clk;
			s->tid = i % 4 == 3 && i >= 200 ? 101 : 100;
			s->pid = 100;
			s->time = 1000000000ull + (uint64_t)i * 6250000ull;
		}
		m->t_first = m->ts[0].time;
		m->t_last = m->ts[399].time;
		m->threads = xcalloc(2, sizeof(*m->threads));
		m->threads[0] = (struct tui_thread){ 100, 100, "synth", NAN };
		m->threads[1] = (struct tui_thread){ 101, 100, "synth-worker", 0.64 };
		m->nr_threads = 2;
	}
	tui_model__tables_changed(m);
	return m;
}

/* ---- regions -------------------------------------------------------------
 * Thread 100: load, solve (a step nested in it), write; thread 101: solve
 * in the second half. Narrowing (the renarrow provider) puts made-up rows
 * per region in the tables, as a real result's region profile would. */
static const struct { const char *name; uint32_t tid; double b, e; uint16_t depth; } synth_regions[] = {
	{ "load", 100, 1.00, 1.50, 1 }, { "solve", 100, 1.50, 3.00, 1 },
	{ "step", 100, 2.00, 2.20, 2 }, { "write", 100, 3.00, 3.49, 1 },
	{ "solve", 101, 2.25, 3.00, 1 },
};

static int synth_renarrow(struct tui_loader *ld, struct tui_model *m, int idx, char **cause)
{
	static const struct { const char *region, *func; double w; } rows[] = {
		{ NULL, "hot_inner", 0.52 }, { NULL, "hot_outer", 0.30 }, { NULL, "main", 0.01 },
		{ "load", "memcpy_like", 0.70 }, { "load", "main", 0.30 },
		{ "solve", "hot_inner", 0.80 }, { "solve", "hot_outer", 0.20 },
		{ "step", "hot_inner", 1.00 }, { "write", "main", 1.00 },
	};
	const char *name = idx >= 0 ? m->region_names[idx] : NULL;

	if (idx < 0) {	/* the whole run again */
		synth_refilter(ld, m, 0, 0, cause);
		return 0;
	}
	tui_model__clear_tables(m);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (name ? rows[i].region && !strcmp(rows[i].region, name) : !rows[i].region)
			row(m, TK_FUNC, rows[i].func, rows[i].w, (int)i)->module = "/usr/bin/synth";
	row(m, TK_THREAD, "synth", name && !strcmp(name, "solve") ? 0.6 : 1.0, 2)->tid = 100;
	if (name && !strcmp(name, "solve"))
		row(m, TK_THREAD, "synth-worker", 0.4, 3)->tid = 101;
	tui_model__tables_changed(m);
	m->range_lo = m->range_hi = 0;
	m->region = idx;
	return 0;
}

static void synth_add_regions(struct tui_model *m)
{
	for (size_t i = 0; i < sizeof(synth_regions) / sizeof(synth_regions[0]); i++)
		tui_model__add_region(m, synth_regions[i].name, synth_regions[i].tid,
				      (uint64_t)(synth_regions[i].b * 1e9),
				      (uint64_t)(synth_regions[i].e * 1e9), synth_regions[i].depth);
	tui_model__regions_done(m);
	loader_of(m)->renarrow = synth_renarrow;
}

/* ---- scripts and goldens ------------------------------------------------ */

/* Keys one by one with a draw after each, as the terminal loop does. */
static void run_keys(struct tui_app *app, struct tui_canvas *c, const char *keys)
{
	char *copy = xstrdup(keys), *save = NULL;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		int k = tui_key_parse(t);

		if (k < 0) {
			diag("bad key '%s'", t);
			exit(1);
		}
		tui_app__key(app, k);
		tui_app__draw(app, c);
	}
	free(copy);
}

static char *screen(struct tui_model *m, const char *keys, int w, int h, bool styles,
		    int *depth)
{
	struct tui_app app;
	struct tui_canvas c;
	struct strbuf sb = STRBUF_INIT, st = STRBUF_INIT;

	m->template_args = false;	/* each script from a fresh start */
	tui_app__init(&app, m, loader_of(m));
	canvas__init(&c, w, h);
	tui_app__draw(&app, &c);	/* views learn their page size */
	run_keys(&app, &c, keys);
	tui_app__draw(&app, &c);
	canvas__dump(&c, &sb, styles ? &st : NULL);
	if (styles) {
		strbuf__addstr(&sb, "--- styles\n");
		strbuf__add(&sb, st.buf ? st.buf : "", st.len);
	}
	if (depth)
		*depth = app.quit ? 0 : app.views.depth;
	strbuf__exit(&st);
	canvas__exit(&c);
	tui_app__exit(&app);
	return strbuf__detach(&sb);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf__add(&sb, buf, n);
	fclose(f);
	return strbuf__detach(&sb);
}

static void golden(struct tui_model *m, const char *name, const char *keys)
{
	static const int sizes[][2] = { { 80, 24 }, { 40, 12 } };

	for (size_t i = 0; i < 2; i++) {
		char path[4096], *got, *want;

		snprintf(path, sizeof(path), "%s/tests/golden/tui/%s-%dx%d.txt", srcdir, name,
			 sizes[i][0], sizes[i][1]);
		got = screen(m, keys, sizes[i][0], sizes[i][1], true, NULL);
		if (regen) {
			FILE *f = fopen(path, "w");

			ok(f && fputs(got, f) >= 0 && fclose(f) == 0, "wrote %s", path);
		} else {
			want = slurp(path);
			if (!ok(want && !strcmp(got, want), "%s %dx%d [%s]", name, sizes[i][0],
				sizes[i][1], keys)) {
				diag("got:\n%s", got);
				if (!want)
					diag("missing %s: make golden-tui", path);
			}
			free(want);
		}
		free(got);
	}
}

static bool has(const char *s, const char *needle)
{
	return strstr(s, needle) != NULL;
}

/* The line of the screen with the '>' cursor. */
static char *cursor_line(const char *scr)
{
	const char *p = scr;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n && p[0] == '>') {
			char *l = xcalloc(1, n + 1);

			memcpy(l, p, n);
			return l;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return xstrdup("");
}

/* Cells before needle in the line of s that holds line_has. -1: none. */
static int column_of(const char *s, const char *line_has, const char *needle)
{
	const char *p = s;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *l = xcalloc(1, n + 1);
		int col = -1;

		memcpy(l, p, n);
		if (has(l, line_has) && has(l, needle)) {
			*strstr(l, needle) = 0;
			col = tui_str_width(l);
		}
		free(l);
		if (col >= 0)
			return col;
		if (!e)
			break;
		p = e + 1;
	}
	return -1;
}

static void behaviour_trees(struct tui_model *m)
{
	char *s, *l;
	int depth;

	s = screen(m, "T", 80, 24, false, NULL);
	ok(has(s, " 20.0%*  72.0%     - hot_outer"), "call tree: self and total of main -> hot_outer");
	ok(has(s, " 42.0%*  42.0%         hot_inner"), "... the hot path open down to hot_inner");
	ok(has(s, "+ std::vector<...>::"), "... a closed node marked +, templates collapsed");
	free(s);

	s = screen(m, "T Down Down Down Down Down Right Down", 80, 24, false, NULL);
	l = cursor_line(s);
	ok(has(l, "10.0%*  20.0%       + hot_outer"),
	   "Right opens a node: hot_outer as called through the vector method ('%s')", l);
	free(l);
	free(s);

	s = screen(m, "T Down Left", 80, 24, false, NULL);
	ok(!has(s, "hot_outer"), "Left closes a node");
	free(s);
	s = screen(m, "T Down Down Left Left", 80, 24, false, NULL);
	l = cursor_line(s);
	ok(has(l, "- main"), "Left on a closed node goes to its caller ('%s')", l);
	free(l);
	free(s);
	s = screen(m, "T Left Left", 80, 24, false, &depth);
	is_int(depth, 1, "Left on a closed top node: back");
	free(s);

	s = screen(m, "T Down +", 80, 24, false, NULL);
	ok(has(s, "10.0%*  10.0%           hot_inner"), "+ opens everything below");
	free(s);
	s = screen(m, "T Down + -", 80, 24, false, NULL);
	ok(!has(s, "hot_outer"), "- closes everything below");
	free(s);

	s = screen(m, "T Down Down Enter", 80, 24, false, &depth);
	ok(has(s, "source: hot_outer"), "Enter on a node: the function's source");
	is_int(depth, 3, "summary -> call tree -> source");
	free(s);

	s = screen(m, "g c", 80, 24, false, NULL);
	ok(has(s, "Callers (calling it)") && has(s, "hot_outer") && has(s, "main"),
	   "callers of hot_inner: hot_outer, and main below it (any depth)");
	ok(column_of(s, "main", "main") > column_of(s, "hot_outer", "hot_outer"),
	   "... main indented below hot_outer");
	free(s);

	s = screen(m, "g Down c Down Right Down", 80, 24, false, NULL);
	l = cursor_line(s);
	ok(has(l, "10.0%*  20.0%     main"), "callers: main through the vector method ('%s')", l);
	free(l);
	free(s);

	s = screen(m, "f", 80, 24, false, NULL);
	ok(has(s, "|hot_outer") && has(s, "|hot_inner") && has(s, "|all 100.0%"),
	   "flame: one bar per call path prefix");
	ok(column_of(s, "|mem", "|mem") > column_of(s, "|hot_inner", "|hot_inner"),
	   "flame: a callee right of its hotter sibling");
	free(s);
	s = screen(m, "f Down Down Enter", 80, 24, false, NULL);
	ok(has(s, "zoomed to hot_outer"), "flame: Enter zooms");
	free(s);
	s = screen(m, "f Down Down Enter Enter", 80, 24, false, NULL);
	ok(has(s, "zoomed to main"), "flame: Enter on the zoomed bar zooms out");
	free(s);
	s = screen(m, "f Down Down Enter x", 80, 24, false, NULL);
	ok(!has(s, "zoomed"), "flame: x shows the whole run");
	free(s);
	s = screen(m, "f Down Down c", 80, 24, false, NULL);
	ok(has(s, "callers/callees: hot_outer"), "flame: c opens the callers of the bar");
	free(s);

	/* names */
	s = screen(m, "g", 160, 24, false, NULL);
	ok(has(s, "std::vector<...>::a_very_long_templated_member_function_name"),
	   "templates collapsed by default");
	ok(column_of(s, "hot_inner", "hot_inner") == column_of(s, "\xe8\xa8\x88", "\xe8\xa8\x88"),
	   "names start in one column, CJK or not");
	free(s);
	s = screen(m, "g a", 160, 24, false, NULL);
	ok(has(s, "std::vector<int>::a_very_long"), "a shows the template arguments");
	ok(has(s, "template arguments shown"), "... and says so");
	free(s);
	s = screen(m, "g a a", 160, 24, false, NULL);
	ok(has(s, "std::vector<...>::"), "a again collapses them");
	free(s);
	s = screen(m, "T", 120, 24, false, NULL);
	ok(column_of(s, "hot_inner", "synth") == column_of(s, "\xe8\xa8\x88", "synth"),
	   "call tree: the module column aligned after a CJK name");
	free(s);

	/* grid columns: self, total, module, each sorts */
	s = screen(m, "g", 120, 24, false, NULL);
	ok(has(s, "Total%") && has(s, "Module"), "grid at 120 columns: Total%% and Module");
	ok(has(s, "30.0%    92.0%"), "hot_outer: 30%% self, 92%% total");
	free(s);
	s = screen(m, "g > > > > > > > >", 120, 24, false, NULL);
	l = cursor_line(s);
	ok(has(s, "^Module") && has(l, "libc.so.6"), "> reaches Module: sorted A first ('%s')", l);
	free(l);
	free(s);
	s = screen(m, "g > > > > > > > > > >", 120, 24, false, NULL);
	l = cursor_line(s);
	ok(has(s, "vfunctions") && has(l, "\xe8\xa8\x88"), "past the name: names Z first ('%s')", l);
	free(l);
	free(s);
}

static void behaviour(struct tui_model *m)
{
	char *s, *l;
	int depth;

	s = screen(m, "g Enter", 80, 24, false, &depth);
	l = cursor_line(s);
	ok(has(l, "s += *p;"), "source opens on the hottest line (got '%s')", l);
	is_int(depth, 3, "summary -> grid -> source on the back stack");
	free(l);
	free(s);

	s = screen(m, "g Enter", 100, 30, false, NULL);
	if (has(s, "without capstone"))
		skip(1, "no capstone (Debian package libcapstone-dev)");
	else
		ok(has(s, "14^"), "skid at line level: line 14 marked as paying for another line");
	free(s);

	s = screen(m, "g Enter Down Down Down", 120, 30, false, NULL);
	ok(has(s, "may belong to line 10 (the branch before it)"),
	   "skid at line level: the status names the culprit line");
	free(s);

	s = screen(m, "g Enter", 100, 30, false, NULL);
	l = cursor_line(s);
	ok(has(l, "  0.73    11"), "with room, the source shows each line's CPI ('%s')", l);
	free(l);
	free(s);

	s = screen(m, "g Enter Tab", 80, 24, false, NULL);
	l = cursor_line(s);
	ok(has(l, "s = *p") == false && l[0] == '>', "Tab moves to the next hot line ('%s')", l);
	free(l);
	free(s);

	s = screen(m, "g v Down Down Down Down Enter", 80, 24, false, NULL);
	l = cursor_line(s);
	ok(has(l, "    12 "), "Enter on a line row opens the source at that line ('%s')", l);
	free(l);
	free(s);

	s = screen(m, "g Enter Left", 80, 24, false, &depth);
	is_int(depth, 2, "Left goes back to the grid");
	ok(has(s, "hot_inner") && has(s, "Cycles%"), "the grid is shown again");
	free(s);

	s = screen(m, "g Enter Esc q q", 80, 24, false, &depth);
	is_int(depth, 0, "Esc, q, q: back, back, quit");
	free(s);

	s = screen(m, "g / o u t e r Enter", 80, 24, false, NULL);
	ok(has(s, "hot_outer") && !has(s, "hot_inner"), "/ filters the grid by name");
	free(s);

	s = screen(m, "g >", 80, 24, false, NULL);
	ok(has(s, "vTotal%") && !has(s, "vCycles%"), "> sorts by the next column on screen");
	free(s);

	s = screen(m, "g > >", 80, 24, false, NULL);
	ok(has(s, "vCPI"), "... and the next");
	free(s);

	s = screen(m, "g > <", 80, 24, false, NULL);
	ok(has(s, "vCycles%"), "< sorts by the previous column");
	free(s);

	s = screen(m, "g <", 80, 24, false, NULL);
	l = cursor_line(s);
	ok(has(s, "^Cycles%") && has(l, "\xe8\xa8\x88\xe7\xae\x97"),
	   "< past the first column: ascending ('%s')", l);
	free(l);
	free(s);

	s = screen(m, "g Enter Enter", 100, 30, false, NULL);
	l = cursor_line(s);
	if (has(s, "without capstone")) {
		skip(2, "no capstone (Debian package libcapstone-dev)");
	} else {
		ok(has(l, "add rcx, rax"), "disassembly starts on the line's hottest instruction "
		   "('%s')", l);
		ok(has(l, "likely the load at 1000"), "skid: the load before the sample is named");
	}
	free(l);
	free(s);

	s = screen(m, "g / m e m c p y Enter Enter", 80, 24, false, NULL);
	ok(has(s, "not on this machine"), "a missing source file is said, not a crash");
	ok(has(s, "40"), "the sampled line is still listed");
	free(s);

	s = screen(m, "g / m a i n Enter Enter", 80, 24, false, NULL);
	ok(has(s, "is shorter than the line"),
	   "a source file shorter than the sampled lines is refused");
	free(s);

	s = screen(m, "g / u n k n o w n Enter Enter", 80, 24, false, NULL);
	ok(has(s, "no line information"), "no lines (stripped): said in the view");
	free(s);

	m->mux = xstrdup("0.93 (reliable; gexplore, 3 groups, 240 slices)");
	tui_model__add_confidence(m, "cycles 1e+06 [9.8e+05-1.02e+06] x3.00");
	s = screen(m, "", 80, 40, false, NULL);	/* facts above the hot functions */
	ok(has(s, "reliability 0.93 (reliable"), "summary: MUX reliability when recorded");
	ok(has(s, "cycles 1e+06 [9.8e+05-1.02e+06]"), "summary: estimates with their interval");
	free(s);

	s = screen(m, "t Down", 100, 24, false, NULL);
	ok(has(s, "thread 101: MUX reliability 0.64"), "timeline: a thread's MUX reliability");
	ok(has(s, ". : + # samples, few to most (+ # hot)  ^ cursor  | mark  = range (dim outside)"),
	   "timeline: a legend of its marks and colours");
	free(s);

	s = screen(m, "t", 40, 12, false, NULL);
	ok(has(s, ".:+# few-most  ^cursor |mark =range"), "timeline at 40 columns: a short legend");
	free(s);

	s = screen(m, "t ?", 80, 40, false, NULL);
	ok(has(s, "Legend") && has(s, "the range that filters every view; dim outside it"),
	   "timeline help: the legend at length");
	free(s);
	s = screen(m, "g ?", 80, 40, false, NULL);
	ok(!has(s, "Legend"), "grid help: no legend where a view has none");
	free(s);

	s = screen(m, "", 20, 6, false, NULL);
	ok(has(s, "terminal too small"), "below the minimum size: a message");
	free(s);

	/* navigation as in perf report, htop and tig */
	s = screen(m, "g Enter Q", 80, 24, false, &depth);
	is_int(depth, 0, "Q quits from any view at once");
	free(s);
	s = screen(m, "g / H O T Enter", 80, 24, false, NULL);
	ok(!has(s, "hot_inner"), "a filter with a capital is case-sensitive");
	free(s);
	s = screen(m, "g / H o t _ I n n e r Enter", 80, 24, false, NULL);
	ok(!has(s, "hot_outer") && !has(s, "hot_inner"), "... any capital");
	free(s);
	s = screen(m, "g / m E M Enter", 80, 24, false, NULL);
	ok(!has(s, "memcpy_like"), "... mixed case too");
	free(s);
	s = screen(m, "g / o u t Enter", 80, 24, false, NULL);
	ok(has(s, "hot_outer") && !has(s, "hot_inner"), "a lower-case filter matches");
	free(s);
	ok(tui_match("Hot_Outer", "hot_o") && !tui_match("hot_outer", "Hot") &&
	   tui_match("hot_outer", "") && tui_match("MEMCPY", "memcpy"),
	   "smart case: ignored unless the pattern has a capital");
	s = screen(m, "g Enter / S I N K Enter", 80, 24, false, NULL);
	l = cursor_line(s);
	ok(!has(l, "sink"), "source search: a capital means it ('%s')", l);
	free(l);
	free(s);
	s = screen(m, "g Enter / r e t u r n Enter", 80, 24, false, NULL);
	l = cursor_line(s);
	ok(has(l, "return s;"), "source search: lower case finds ('%s')", l);
	free(l);
	free(s);
	s = screen(m, "t l l", 80, 24, false, NULL);
	l = xstrdup(strstr(s, "cursor ") ? strstr(s, "cursor ") : "");
	free(s);
	s = screen(m, "t Right Right", 80, 24, false, &depth);
	ok(depth == 2 && strstr(s, "cursor ") && !strncmp(strstr(s, "cursor "), l, 14),
	   "timeline: Right moves the time cursor as l does, the view stays");
	free(s);
	free(l);
	s = screen(m, "t Right Right Left Left", 80, 24, false, &depth);
	ok(depth == 2 && has(s, "cursor 0.000 s"), "timeline: Left moves it back, the view stays");
	free(s);
	s = screen(m, "t End", 80, 24, false, NULL);
	ok(has(s, "cursor 2.4"), "timeline: End puts the cursor at the end of the run");
	free(s);
	s = screen(m, "t End Home", 80, 24, false, NULL);
	ok(has(s, "cursor 0.000 s"), "... Home at the start");
	free(s);
	s = screen(m, "t L", 80, 24, false, NULL);
	ok(has(s, "cursor 0.1") || has(s, "cursor 0.2"), "timeline: L, a page step right");
	free(s);
	s = screen(m, "t L L H", 80, 24, false, NULL);
	ok(has(s, "cursor 0.1") || has(s, "cursor 0.2"), "... H, a page step left");
	free(s);
	s = screen(m, "t Down Enter", 80, 24, false, NULL);
	ok(has(s, "per-thread rows need a recorded result"),
	   "timeline Enter without per-thread rows: the whole grid, said");
	free(s);
	s = screen(m, "Home", 80, 40, false, NULL);
	l = cursor_line(s);
	ok(has(l, "hot_inner"), "summary: the hot functions are selectable ('%s')", l);
	free(l);
	free(s);
	s = screen(m, "Home Down Enter", 80, 40, false, &depth);
	ok(depth == 2 && has(s, "source: hot_outer"), "summary: Enter on a hot function opens "
	   "its source");
	free(s);
	s = screen(m, "C-l", 80, 24, false, &depth);
	ok(depth == 1 && has(s, "summary"), "Ctrl-L: nothing changes but the repaint");
	free(s);

	s = screen(m, "g", 40, 12, false, NULL);
	ok(has(s, "~"), "40 columns: long names are shortened in the middle");
	free(s);
}

#define L15 "l l l l l l l l l l l l l l l"

static void test_regions(void)
{
	struct tui_model *m = synth_model(false);
	char *s, *l;

	synth_add_regions(m);
	ok(tui_model__find_region(m, "solve") == 1 && tui_model__find_region(m, "nope") == -1,
	   "regions: names in order of first begin");
	ok(tui_model__region_at(m, 100, 2100000000ull) &&
	   !strcmp(tui_model__region_at(m, 100, 2100000000ull)->name, "step"),
	   "regions: the innermost instance at an instant");
	ok(!tui_model__region_at(m, 101, 1100000000ull), "regions: none before a thread's first");
	golden(m, "timeline-regions", "t l l l l l l l l");
	golden(m, "timeline-region-narrowed", "t " L15 " r");
	golden(m, "grid-region", "t " L15 " r g");
	if (!regen) {
		s = screen(m, "t", 80, 24, false, NULL);
		ok(has(s, "[load") && has(s, "[solve") && has(s, "[step]") && has(s, "[write---"),
		   "timeline: regions as named spans under their thread");
		ok(has(s, "r: region"), "timeline: the status line offers r");
		free(s);
		s = screen(m, "t " L15, 80, 24, false, NULL);
		ok(has(s, "in solve"), "timeline: the status line names the region under the cursor");
		free(s);
		s = screen(m, "t " L15 " r", 80, 24, false, NULL);
		ok(has(s, "views narrowed to region solve (2 instances on 2 threads)"),
		   "r: narrows to the region under the cursor, all its instances");
		ok(has(s, "region solve"), "the ruler names the region");
		ok(m->region == 1, "the model is narrowed to solve");
		free(s);
		s = screen(m, "g", 80, 24, false, NULL);
		l = cursor_line(s);
		ok(has(s, "region solve") && has(l, "hot_inner"),
		   "every view narrowed: the grid says so and shows the region's rows ('%s')", l);
		free(l);
		free(s);
		s = screen(m, "t x", 80, 24, false, NULL);
		ok(has(s, "region cleared: whole run") && m->region == -1, "x clears the region");
		free(s);
		s = screen(m, "t Down r", 80, 24, false, NULL);
		ok(has(s, "no region under the cursor on this thread"),
		   "r where the thread is in no region: said");
		free(s);
		s = screen(m, "t " L15 " l l l l l l l l l l l l r", 80, 24, false, NULL);
		ok(has(s, "views narrowed to region step (1 instance on 1 thread)"),
		   "r in a nested region: the innermost");
		free(s);
		m->region = -1;
	}
	synth_delete(m);
	free(base);
}

static int cmp_hist(const void *a, const void *b)
{
	const struct tui_iphist *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The clock samples in [lo, hi] the views keep by (ip, pid), the slow way. */
static size_t naive_histogram(struct tui_model *m, uint64_t lo, uint64_t hi,
			      struct tui_iphist **out)
{
	struct tui_iphist *h = xcalloc(m->nr_ts + 1, sizeof(*h));
	size_t n = 0, nr = 0;

	for (size_t i = 0; i < m->nr_ts; i++) {
		const struct tui_tsample *x = &m->ts[i];

		if (x->evsel == m->clk && (!hi || (x->time >= lo && x->time <= hi)) &&
		    tui_model__keeps(m, x->tid, x->time))
			h[n++] = (struct tui_iphist){ x->ip, x->pid, 1 };
	}
	qsort(h, n, sizeof(*h), cmp_hist);
	for (size_t i = 0; i < n; i++)
		if (nr && !cmp_hist(&h[nr - 1], &h[i]))
			h[nr - 1].count++;
		else
			h[nr++] = h[i];
	*out = h;
	return nr;
}

/* A range's histogram of addresses, counted from the whole run's index
 * (tui_model__index_ips), is the one counted from its samples: ranges, a
 * region, the whole run, samples in and out of time order. */
static void test_ip_histogram(void)
{
	const char *names[] = { "cycles", "instructions" };
	struct tui_model *m = tui_model__new(2, names);
	struct { uint64_t lo, hi; int region; } cases[] = {
		{ 0, 0, -1 }, { 1000, 5000, -1 }, { 4000, 4030, -1 }, { 9000, 20000, -1 },
		{ 0, 0, 0 }, { 2000, 7000, 0 },
	};
	struct tui_iphist *want, *got;
	size_t nwant, n;
	uint64_t seed = 3;

	m->ts = xcalloc(3000, sizeof(*m->ts));
	for (int i = 0; i < 3000; i++) {
		struct tui_tsample *x = &m->ts[m->nr_ts++];

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		x->time = 1000 + (uint64_t)i * 3 - (seed >> 60 == 0 ? 50 : 0);
		x->ip = 0x400000 + (seed >> 40) % 64;
		x->pid = x->tid = 10 + (uint32_t)(seed >> 20) % 3;
		x->evsel = (seed >> 30) % 4 == 0;
	}
	tui_model__add_region(m, "r", 11, 2500, 6000, 1);
	tui_model__add_region(m, "r", 12, 8000, 9000, 1);
	tui_model__regions_done(m);
	for (int sorted = 0; sorted < 2; sorted++) {
		for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
			m->range_lo = cases[k].lo;
			m->range_hi = cases[k].hi;
			m->region = cases[k].region;
			nwant = naive_histogram(m, cases[k].lo, cases[k].hi, &want);
			n = tui_model__ip_histogram(m, cases[k].lo, cases[k].hi, true, &got);
			ok(n == nwant && n > 0 && !memcmp(got, want, n * sizeof(*got)),
			   "addresses in [%llu, %llu]%s%s: counted from the index",
			   (unsigned long long)cases[k].lo, (unsigned long long)cases[k].hi,
			   cases[k].region >= 0 ? " in a region" : "",
			   sorted ? "" : ", times out of order");
			free(got);
			free(want);
		}
		for (int i = 0; i < 3000; i++)
			m->ts[i].time = 1000 + (uint64_t)i * 3;
		m->ts_checked = 0;	/* the order is checked again */
	}
	m->region = -1;
	m->range_lo = m->range_hi = 0;
	synth_delete(m);
}

/* aarch64 code, as aarch64-linux-gnu-as encodes it:
 *   0 ldr x0, [x1]   4 add x0, x0, #1   8 prfm pldl1keep, [x1]
 *   c cbz x0, 0x14  10 bl 0            14 ldp x2, x3, [sp, #16]
 *  18 str x0, [x1, #8]                 1c ret */
static void test_disasm_arm64(void)
{
	static const uint32_t words[] = {
		0xf9400020, 0x91000400, 0xf9800020, 0xb4000040,
		0x97fffffc, 0xa9410fe2, 0xf9000420, 0xd65f03c0,
	};
	uint8_t code[sizeof(words)];
	struct tui_disasm d;

	for (size_t i = 0; i < sizeof(words) / 4; i++) {	/* little-endian */
		code[4 * i] = (uint8_t)words[i];
		code[4 * i + 1] = (uint8_t)(words[i] >> 8);
		code[4 * i + 2] = (uint8_t)(words[i] >> 16);
		code[4 * i + 3] = (uint8_t)(words[i] >> 24);
	}
	memset(&d, 0, sizeof(d));
#ifdef HAVE_CAPSTONE
	/* opened when first needed (dlopen), not linked: by the soname of
	 * the headers it was built with */
	ok(tui_disasm_missing() == NULL, "libcapstone loads when first needed (%s)",
	   tui_disasm_missing() ? tui_disasm_missing() : "loaded");
#endif
	if (tui_disasm_bytes(EM_AARCH64, code, sizeof(code), 0, &d) != 0) {
		skip(9, "built without capstone (Debian package libcapstone-dev)");
		return;
	}
	is_int(d.nr, 8, "aarch64: eight instructions");
	if (d.nr == 8) {
		is_str(d.insns[0].text, "ldr x0, [x1]", "aarch64: ldr");
		ok(d.insns[0].is_load && !d.insns[1].is_load, "... is a load, add is not");
		ok(!d.insns[2].is_load, "a prefetch is not a load");
		ok(d.insns[3].is_branch && d.insns[3].target == 0x14, "cbz: a branch to 0x14");
		ok(d.insns[4].is_branch && d.insns[4].target == 0, "bl: a call to 0");
		ok(d.insns[5].is_load, "ldp is a load");
		ok(!d.insns[6].is_load, "str is no load");
		ok(d.insns[7].is_branch, "ret ends the function");
	}
	free(d.insns);
	memset(&d, 0, sizeof(d));
	is_int(tui_disasm_bytes(EM_RISCV, code, sizeof(code), 0, &d), GX_E_NOTSUP,
	       "another machine: not supported");
}

/* --baseline: the same synthetic result, one function twice as hot in the
 * baseline and one renamed away. */
static void test_baseline(void)
{
	struct tui_model *m = synth_model(false), *b;
	double *m_counts = base;
	struct tui_col cols[TUI_MAX_COLS];
	size_t nc, dshare = SIZE_MAX, dcpi = SIZE_MAX;
	struct tui_table *t;
	struct tui_row *gone = NULL;
	char buf[32];
	bool hot, dim;

	b = synth_model(false);
	free(base);
	base = m_counts;
	t = &b->tab[TK_FUNC];
	t->rows[0].period[b->clk] *= 2;
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rows[i].name, "memcpy_like"))
			t->rows[i].name = "memmove_like";	/* static storage, like the others */
	tui_model__set_base(m, b, "gx000");
	nc = tui_model__columns(m, TK_FUNC, cols, TUI_MAX_COLS);
	for (size_t i = 0; i < nc; i++) {
		if (cols[i].delta && cols[i].kind == TC_SHARE)
			dshare = i;
		if (cols[i].delta && cols[i].kind == TC_NODE)
			dcpi = i;
	}
	ok(dshare == 1 && !strcmp(cols[dshare].name, "dCycles%"), "baseline: a dCycles%% column after the share");
	ok(dcpi != SIZE_MAX && !strcmp(cols[dcpi].name, "dCPI"), "... and dCPI after CPI");
	if (dshare == SIZE_MAX || dcpi == SIZE_MAX)
		goto out;
	t = &m->tab[TK_FUNC];
	ok(tui_model__cell(m, &t->rows[0], &cols[dshare], &hot, &dim) < 0,
	   "the function twice as hot in the baseline lost share");
	ok(tui_model__cell(m, &t->rows[1], &cols[dshare], &hot, &dim) == 0 && dim,
	   "an unchanged function: 0, dimmed");
	ok(isfinite(tui_model__cell(m, &t->rows[0], &cols[dcpi], &hot, &dim)), "dCPI has a value");
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rows[i].name, "memcpy_like"))
			gone = &t->rows[i];
	ok(gone && !gone->base, "a function the baseline lacks has no baseline row");
	if (gone) {
		tui_model__cell_text(m, &cols[dshare],
				     tui_model__cell(m, gone, &cols[dshare], &hot, &dim), buf, sizeof(buf));
		is_str(buf, "new", "... and reads as new");
	}
	tui_model__cell_text(m, &cols[dshare], -0.123, buf, sizeof(buf));
	is_str(buf, "-12.3", "share deltas are in points");
	tui_model__cell_text(m, &cols[dcpi], NAN, buf, sizeof(buf));
	is_str(buf, "n/a", "a matched row without a value on one side: n/a, not new");
	golden(m, "grid-baseline", "g");
	golden(m, "summary-baseline", "");
out:
	synth_delete(m);
	free(base);
}

/* ---- time ranges under every view ---------------------------------------
 * A range renumbers the function rows (synth_refilter): each view stays on
 * what it showed, by identity, or closes with a message when its function
 * has no sample in the range; clearing the range (x) does the same. */

#define RANGE " t l l l l l l l l l l Space L L L Space"
#define CLEAR " t x"

/* The second line of a screen (the view's header). */
static char *line_of(const char *scr, int n)
{
	const char *p = scr;

	while (n-- > 0 && strchr(p, '\n'))
		p = strchr(p, '\n') + 1;
	return xstrndup(p, strchr(p, '\n') ? (size_t)(strchr(p, '\n') - p) : strlen(p));
}

static void test_ranges(void)
{
	static const struct {
		const char *view, *keys;
		const char *title, *header;	/* what the view shows, before and after */
		const char *cursor;		/* on the cursor's line, or NULL */
		int depth;
	} cases[] = {
		{ "source", "g Enter", "source: hot_inner", "hot_inner  /src/synth.c", "s += *p;", 3 },
		{ "source by line", "g v Down Down Down Down Enter", "source: hot_inner",
		  "hot_inner  /src/synth.c", "p++;", 3 },
		{ "disassembly", "g Enter Enter", "disassembly: hot_inner", "hot_inner  /usr/bin/synth",
		  NULL, 4 },
		{ "callers", "g c", "callers/callees: hot_inner", "hot_inner: self", NULL, 3 },
		{ "callers of a callee", "g Down c", "callers/callees: hot_outer", "hot_outer: self",
		  NULL, 3 },
		{ "call tree", "T Down Down", "call tree", "Self%", "- hot_outer", 2 },
		{ "flame", "f Down Down Enter", "flame graph", "zoomed to hot_outer", NULL, 2 },
		{ "grid", "g Down", "bottom-up: functions", "Cycles%", "hot_outer", 2 },
		{ "grid of a thread", "t Down Enter", "functions of thread synth-worker 101", "Cycles%",
		  "hot_outer", 3 },
		{ "source from a thread", "t Down Enter Enter", "source: hot_outer",
		  "hot_outer  /src/synth.c", NULL, 4 },
		{ "loops", "o Down", "loops", "Loops (from branch stacks)", "hot_outer", 2 },
		{ "summary", "", "summary: gx001", "", NULL, 1 },
	};
	struct tui_model *m = synth_model(false);

	loader_of(m)->refilter = synth_refilter;
	loader_of(m)->thread_rows = synth_thread_rows;
	synth_add_regions(m);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		static const char *const after[] = { RANGE " q", RANGE " q" CLEAR " q",
						     " t " L15 " r q", " t " L15 " r x q" };
		static const char *const what[] = { "a range applied", "a range cleared",
						     "a region narrowed", "a region cleared" };

		for (size_t a = 0; a < ARRAY_SIZE(after); a++) {
			char keys[512], *scr, *title, *head, *cur;
			int depth;

			snprintf(keys, sizeof(keys), "%s%s", cases[i].keys, after[a]);
			scr = screen(m, keys, 80, 24, false, &depth);
			title = line_of(scr, 0);
			head = line_of(scr, 1);
			cur = cursor_line(scr);
			if (a == 3) {
				/* on the way, the region's rows (synth_renarrow) had no
				 * lines or paths: the cursor is the view's first again */
				ok(depth == cases[i].depth && has(title, cases[i].title),
				   "%s, %s: on its function again (%s)", cases[i].view, what[a], keys);
			} else if (a == 2) {
				/* a region's rows (synth_renarrow) lack lines and paths:
				 * open, on its function, or closed with a message */
				ok((depth == cases[i].depth && has(title, cases[i].title)) ||
				   depth < cases[i].depth, "%s, %s: on its function or closed (%s)",
				   cases[i].view, what[a], keys);
			} else {
				ok(depth == cases[i].depth && has(title, cases[i].title) &&
				   has(head, cases[i].header) &&
				   (!cases[i].cursor || has(cur, cases[i].cursor)),
				   "%s, %s: the view stays on it (%s)", cases[i].view, what[a], keys);
				if (depth != cases[i].depth || !has(head, cases[i].header))
					diag("depth %d, got:\n%s", depth, scr);
			}
			free(cur);
			free(head);
			free(title);
			free(scr);
			m->region = -1;
			m->range_lo = m->range_hi = 0;
			synth_refilter(NULL, m, 0, 0, NULL);	/* the next case from the whole run */
			tui_model__drop_old(m);
		}
	}
	/* the loops are the whole run's: a range leaves them, and says so */
	{
		char *scr = screen(m, "o" RANGE " q", 100, 24, false, NULL);

		ok(has(scr, "; the whole run's, not the range's") &&
		   has(scr, "409600       100") &&
		   has(scr, "the whole run's loops (not kept per sample)"),
		   "loops under a time range: the whole run's counts, said in the header and status");
		free(scr);
		synth_refilter(NULL, m, 0, 0, NULL);
		tui_model__drop_old(m);
	}
	/* memcpy_like has no sample in the range: its views close, said */
	{
		static const char *const views[] = { "Enter", "Enter Enter", "c" };

		for (size_t i = 0; i < ARRAY_SIZE(views); i++) {
			char keys[256], *scr, *title;
			int depth;

			snprintf(keys, sizeof(keys), "g / m e m c p y Enter %s" RANGE, views[i]);
			scr = screen(m, keys, 100, 24, false, &depth);
			ok(has(scr, "closed") && has(scr, "memcpy_like") &&
			   has(scr, "no samples in the range"),
			   "a function without samples in the range: its view closes, said (%s)", keys);
			free(scr);
			snprintf(keys, sizeof(keys), "g / m e m c p y Enter %s" RANGE " q", views[i]);
			scr = screen(m, keys, 100, 24, false, &depth);
			title = line_of(scr, 0);
			ok(depth == 2 && has(title, "bottom-up: functions"),
			   "... and q goes back to the grid under it (%s)", keys);
			free(title);
			free(scr);
			synth_refilter(NULL, m, 0, 0, NULL);
			tui_model__drop_old(m);
		}
	}
	/* the thread's grid follows the range: memcpy_like leaves it */
	{
		char *scr = screen(m, "t Down Enter", 80, 24, false, NULL);

		ok(has(scr, "memcpy_like") && !has(scr, "hot_inner"),
		   "Enter on a thread: that thread's rows only");
		free(scr);
		scr = screen(m, "t Down Enter" RANGE " q", 80, 24, false, NULL);
		ok(!has(scr, "memcpy_like") && has(scr, "hot_outer") && has(scr, "thread 101"),
		   "... and a range applied under it narrows them");
		free(scr);
		synth_refilter(NULL, m, 0, 0, NULL);
		tui_model__drop_old(m);
	}
	synth_delete(m);
	free(base);
}

/* Random keys (a fixed seed, so a failure replays), with time ranges and
 * regions applied and cleared under whatever views are open: run under
 * ASan (CI's sanitized tree) it finds a view left holding freed rows. */
static void test_fuzz(void)
{
	static const char *const keys[] = {
		"Up", "Down", "PgUp", "PgDn", "Home", "End", "Enter", "Enter", "Left", "Right",
		"Esc", "q", "?", "n", "N", "<", ">", "Tab", "BTab", "H", "g", "v", "c", "c", "d",
		"s", "h", "l", "L", "L", "Space", "Space", "Space", "x", "x", "r", "+", "-", "T",
		"f", "a", "C-l", "t", "t", "t", "/", "o", "Enter", "BSpace", "Q",
	};
	struct tui_model *m = synth_model(false);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t nr_keys = 0, ranges = 0;
	int bad = 0;

	loader_of(m)->refilter = synth_refilter;
	loader_of(m)->thread_rows = synth_thread_rows;
	synth_add_regions(m);
	for (int run = 0; run < 300; run++) {
		struct tui_app app;
		struct tui_canvas c;
		unsigned gen = m->generation;

		tui_app__init(&app, m, loader_of(m));
		canvas__init(&c, run % 3 ? 80 : 40, run % 3 ? 24 : 12);
		tui_app__draw(&app, &c);
		for (int i = 0; i < 120 && !app.quit; i++) {
			int k;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			k = tui_key_parse(keys[(seed >> 33) % ARRAY_SIZE(keys)]);
			tui_app__key(&app, k);
			tui_app__draw(&app, &c);
			nr_keys++;
			if (app.views.depth < 1 || app.gen != m->generation || m->has_old)
				bad++;
		}
		ranges += m->generation - gen;
		canvas__exit(&c);
		tui_app__exit(&app);
	}
	ok(!bad, "random keys: %zu keys, %zu tables rebuilt under open views, the app in "
	   "step with the model", nr_keys, ranges);
	ok(ranges > 100, "... ranges and regions applied often enough to mean something");
	m->region = -1;
	synth_delete(m);
	free(base);
}

/* --off-cpu: the worker sleeps then waits on a lock before its samples
 * begin; the timeline draws the waits by reason where it has no sample,
 * the grid gains an OffCPU column. */
static void test_offcpu(void)
{
	struct tui_model *m = synth_model(false);
	char *s;

	m->offspans = xcalloc(2, sizeof(*m->offspans));
	m->offspans[0] = (struct tui_offspan){ 1000000000ull, 1600000000ull, 101, 's' };
	m->offspans[1] = (struct tui_offspan){ 1600000000ull, 2240000000ull, 101, 'l' };
	m->nr_offspans = 2;
	m->has_offcpu = true;
	for (size_t i = 0; i < m->tab[TK_FUNC].nr; i++)
		m->tab[TK_FUNC].rows[i].off_s = i == 0 ? 1.24 : 0;
	golden(m, "timeline-offcpu", "t");
	golden(m, "grid-offcpu", "g");
	if (!regen) {
		s = screen(m, "t", 80, 24, false, NULL);
		ok(has(s, "synth-worker 101 ssssssssss") && has(s, "ssslllllllll"),
		   "timeline: the worker's waits by reason before its samples");
		ok(has(s, "silcjho off: sleep io lock cpu join child other"), "timeline: their legend");
		free(s);
		s = screen(m, "g", 80, 24, false, NULL);
		ok(has(s, "OffCPU") && has(s, "1.240s"), "grid: an OffCPU column");
		free(s);
	}
	synth_delete(m);
	free(base);
}

/* The loops view: its rows, Enter on a loop opens the source at the
 * loop's head line, one without samples says why, a time range says the
 * loops are the whole run's. */
static void behaviour_loops(struct tui_model *m)
{
	char *s = screen(m, "g o", 80, 24, false, NULL), *c;

	ok(has(s, "409600       100  4096.00     9.5    1.0%   hot_inner (synth.c:10)"),
	   "loops: the inner loop's iterations, entries, trips, cycles, exit mispredicts, "
	   "indented under its function");
	ok(has(s, "100         1   100.00       -       - hot_outer (synth.c:19)"),
	   "loops: an untimed loop's cycles and exits say -");
	free(s);
	s = screen(m, "o Down Enter", 80, 24, false, NULL);
	c = cursor_line(s);
	ok(has(s, "source: hot_outer") && c && has(c, "19"),
	   "loops: Enter opens hot_outer's source on line 19 (%s)", c ? c : "no cursor");
	free(c);
	free(s);
	s = screen(m, "o End Enter", 80, 24, false, NULL);
	ok(has(s, "cold_helper has no samples of the clock event: no source"),
	   "loops: Enter on a loop in a function without samples says why");
	free(s);
}

int main(void)
{
	struct tui_model *m, *empty;


	srcdir = getenv("GX_SRCDIR") ? getenv("GX_SRCDIR") : ".";
	regen = getenv("GX_REGEN_GOLDEN") && *getenv("GX_REGEN_GOLDEN");
	test_disasm_arm64();
	test_baseline();
	test_regions();
	test_offcpu();
	test_ip_histogram();
	test_ranges();
	test_fuzz();
	m = synth_model(false);

	golden(m, "summary", "");
	golden(m, "summary-node", "Up");
	golden(m, "summary-help", "?");
	golden(m, "grid-functions", "Enter");
	golden(m, "grid-sorted", "g > > >");
	golden(m, "grid-filter", "g / h o t Enter");
	golden(m, "grid-lines", "g v");
	golden(m, "grid-modules", "g v v");
	golden(m, "grid-help", "g ?");
	golden(m, "source", "g Enter");
	golden(m, "source-next-hot", "g Enter Tab");
	golden(m, "source-missing", "g / m e m c p y Enter Enter");
	golden(m, "source-stripped", "g / u n k n o w n Enter Enter");
	golden(m, "disasm", "g Enter Enter");
	golden(m, "callers", "g Down c");
	golden(m, "callers-deep", "g Down c Down Right Down Right");
	golden(m, "calltree", "T");
	golden(m, "calltree-keys", "T Down Down Down Down Down Right Down Right Left Left");
	golden(m, "calltree-expand-all", "T Down +");
	golden(m, "calltree-templates", "T Down + a");
	golden(m, "calltree-help", "T ?");
	golden(m, "flame", "f");
	golden(m, "flame-zoom", "f Down Down Enter");
	golden(m, "flame-flip", "f f Up Up Right");
	golden(m, "grid-by-name", "g > > > > > >");
	golden(m, "grid-templates", "g a");
	golden(m, "timeline", "t l l l l l l l l");
	golden(m, "timeline-help", "t ?");
	golden(m, "back-to-grid", "g Enter Left");
	golden(m, "loops", "g o");
	golden(m, "loops-help", "g o ?");
	golden(m, "loops-source", "g o Enter");
	golden(m, "loops-disasm", "o d");
	if (!regen) {
		behaviour_loops(m);
		behaviour(m);
		behaviour_trees(m);
	}
	synth_delete(m);
	free(base);

	empty = synth_model(true);
	golden(empty, "empty-summary", "");
	golden(empty, "empty-grid", "g");
	golden(empty, "empty-timeline", "t");
	loader_of(empty)->loops = NULL;
	golden(empty, "empty-loops", "o");
	synth_delete(empty);
	free(base);
	return done_testing();
}
