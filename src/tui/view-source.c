/*
 * view-source.c: a function's source, annotated per line with its share of
 * the function, samples, (with a PMU) CPI and (with memory-access samples)
 * its loads' mean latency and data source; the cursor starts on the
 * hottest line, Tab/Shift-Tab walk the lines by heat. Enter opens the
 * disassembly at the line. A missing source file, or no line information,
 * is said in the view; the sampled lines are still listed.
 */
#include "config.h"

#include "tui-int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct src_line {
	uint32_t line;
	struct tui_row *row;	/* NULL: no sample */
	uint32_t culprit;	/* skid: the line whose instruction likely caused
				   these samples, 0 none */
	const char *culprit_why;
};

struct source_view {
	struct tui_view v;
	size_t func;
	const char *file;
	char **text;		/* owned by the model, or NULL */
	const char *why;	/* why text is NULL */
	struct src_line *lines;	/* shown lines, in file order */
	size_t nr;
	int *rank;		/* line indexes by heat */
	size_t nr_rank;
	int rank_pos;
	double fperiod;		/* the function's clock period */
	char pattern[64];
	char status[256];
	int cpi;
};

static const struct tui_key_help source_help[] = {
	{ "Up/Down j/k", "move the cursor" },
	{ "PgUp/PgDn Home/End", "page, first/last line" },
	{ "Tab / Shift-Tab", "next/previous hot line (by share)" },
	{ "H", "the hottest line" },
	{ "Enter/Right d", "disassembly of the line, with per-instruction counts" },
	{ "c", "callers and callees of the function" },
	{ "/", "search the source text (smart case)" },
	{ "n N", "next/previous match" },
	{ "Left/Esc q", "back" },
	{ NULL, NULL },
};

static struct source_view *sv_;

static int cmp_heat(const void *a, const void *b)
{
	const struct src_line *x = &sv_->lines[*(const int *)a], *y = &sv_->lines[*(const int *)b];
	double px = x->row->period[sv_->v.m->clk], py = y->row->period[sv_->v.m->clk];

	if (px != py)
		return px > py ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/*
 * Skid at line level: with an imprecise event, a line whose hottest
 * instruction likely pays for an instruction of another line (a load just
 * before it, a branch jumping to it) names that line.
 */
static int cmp_u64_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Index in s->lines of line l, or -1. */
static long line_index(const struct source_view *s, uint32_t l)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {	/* in line order, with text or without */
		size_t mid = (lo + hi) / 2;

		if (s->lines[mid].line < l)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nr && s->lines[lo].line == l ? (long)lo : -1;
}

static void find_culprits(struct source_view *s)
{
	struct tui_model *m = s->v.m;
	struct tui_disasm d;
	size_t *best, nt = 0;
	uint64_t *targets;

	if (tui_model__disasm(m, s->v.ld, s->func, &d) != 0)
		return;
	/*
	 * One pass for each line's hottest instruction and the sorted branch
	 * targets, so a function of 40,000 instructions over thousands of
	 * lines is not a scan of every instruction per line.
	 */
	best = xcalloc(s->nr + 1, sizeof(*best));	/* instruction + 1; 0 none */
	targets = xcalloc(d.nr + 1, sizeof(*targets));
	for (size_t k = 0; k < d.nr; k++) {
		long li = d.insns[k].samples ? line_index(s, d.insns[k].line) : -1;

		if (d.insns[k].is_branch && d.insns[k].target)
			targets[nt++] = d.insns[k].target;
		if (li >= 0 && (!best[li] || d.insns[k].samples > d.insns[best[li] - 1].samples))
			best[li] = k + 1;
	}
	gx_qsort(targets, nt, sizeof(*targets), cmp_u64_key);
	for (size_t i = 0; i < s->nr; i++) {
		struct src_line *l = &s->lines[i];
		size_t bi = best[i] ? best[i] - 1 : 0;
		const char *why;
		int c;

		if (!l->row || !best[i])
			continue;
		/* tui_disasm__culprit names the instruction before a load or a
		 * branch, or a branch to this one: when none can be, it need
		 * not scan the instructions for branches here */
		if (!(bi > 0 && (d.insns[bi - 1].is_load || d.insns[bi - 1].is_branch)) &&
		    !bsearch(&d.insns[bi].addr, targets, nt, sizeof(*targets), cmp_u64_key))
			continue;
		c = tui_disasm__culprit(&d, bi, &why);
		if (c >= 0 && d.insns[c].line && d.insns[c].line != l->line) {
			l->culprit = d.insns[c].line;
			l->culprit_why = why;
		}
	}
	free(targets);
	free(best);
	tui_disasm__exit(&d);
}

static void build(struct source_view *s)
{
	struct tui_model *m = s->v.m;
	struct tui_table *t = &m->tab[TK_LINE];
	struct tui_row *hot = NULL;
	uint32_t lo = UINT32_MAX, hi = 0, nl = 0;

	s->fperiod = m->tab[TK_FUNC].rows[s->func].period[m->clk];
	/* The file: the one of the function's hottest line. */
	for (size_t i = 0; i < t->nr; i++) {
		struct tui_row *r = &t->rows[i];

		if (r->func != (int32_t)s->func || !r->line)
			continue;
		if (!hot || r->period[m->clk] > hot->period[m->clk])
			hot = r;
	}
	if (!hot) {
		s->why = "no line information for this function (stripped binary, or built "
			 "without -g): d shows its disassembly";
		return;
	}
	s->file = hot->file;
	for (size_t i = 0; i < t->nr; i++) {
		struct tui_row *r = &t->rows[i];

		if (r->func != (int32_t)s->func || !r->line || strcmp(r->file, s->file))
			continue;
		if (r->line < lo)
			lo = r->line;
		if (r->line > hi)
			hi = r->line;
	}
	s->text = tui_model__source(m, s->v.ld, s->file, &s->why);
	if (s->text)
		s->why = NULL;
	if (s->text) {
		while (s->text[nl])
			nl++;
		if (hi > nl) {
			/* Lines past the end: not the file the binary was built from. */
			s->text = NULL;
			s->why = "the source file on this machine is shorter than the line "
				 "numbers: not the file the binary was built from";
		}
		lo = lo > 5 ? lo - 5 : 1;
		hi = hi + 5 < nl ? hi + 5 : nl;
		if (s->text && hi < lo) {
			/* The file is shorter than the lines say: not the same file. */
			s->text = NULL;
			s->why = "the source file on this machine does not match the binary";
		}
	}
	if (s->text) {
		s->nr = hi - lo + 1;
		s->lines = xcalloc(s->nr + 1, sizeof(*s->lines));
		for (uint32_t l = lo; l <= hi; l++)
			s->lines[l - lo].line = l;
	}
	for (size_t i = 0; i < t->nr; i++) {
		struct tui_row *r = &t->rows[i];

		if (r->func != (int32_t)s->func || !r->line || strcmp(r->file, s->file))
			continue;
		if (s->text) {
			s->lines[r->line - lo].row = r;
		} else {
			s->lines = xrealloc(s->lines, (s->nr + 1) * sizeof(*s->lines));
			memset(&s->lines[s->nr], 0, sizeof(*s->lines));
			s->lines[s->nr].line = r->line;
			s->lines[s->nr++].row = r;
		}
	}
	if (!s->text) {
		/* Sampled lines only, in line order. */
		for (size_t i = 1; i < s->nr; i++)
			for (size_t j = i; j > 0 && s->lines[j].line < s->lines[j - 1].line; j--) {
				struct src_line tmp = s->lines[j];

				s->lines[j] = s->lines[j - 1];
				s->lines[j - 1] = tmp;
			}
	}
	if (tui_model__imprecise(m))
		find_culprits(s);
	s->rank = xcalloc(s->nr + 1, sizeof(int));
	for (size_t i = 0; i < s->nr; i++)
		if (s->lines[i].row && s->lines[i].row->samples[m->clk])
			s->rank[s->nr_rank++] = (int)i;
	sv_ = s;
	gx_qsort(s->rank, s->nr_rank, sizeof(int), cmp_heat);
	sv_ = NULL;
	if (s->nr_rank)
		s->v.sel = s->rank[0];
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct source_view *s = (struct source_view *)v;
	struct tui_model *m = v->m;
	const struct tui_row *f = &m->tab[TK_FUNC].rows[s->func];
	bool wide = c->w >= 60, skid = tui_model__imprecise(m);
	int y = y0, rows, textx, linex;
	/* With a PMU and room, each line's CPI too. */
	bool cpi = s->cpi >= 0 && m->run_ok && c->w >= 90;
	/* with memory-access samples and room, each line's mean load
	 * latency and where most of it was served (issue 43) */
	bool mem = m->has_mem && c->w >= 100;
	int memx = wide ? (cpi ? 24 : 17) : 8;
	char buf[512], e[512];

	canvas__fill(c, 0, y, c->w, TS_HEADER);
	snprintf(buf, sizeof(buf), "%s  %s", f->name, s->file ? s->file : "");
	tui_ellipsize(buf, c->w, e, sizeof(e));
	canvas__put(c, 0, y++, TS_HEADER, e, -1);
	if (skid && h > 6) {
		snprintf(buf, sizeof(buf), "skid: %s precise_ip=0: a line's samples may belong to "
			 "the instruction before it (d: disassembly)", m->event_names[m->clk]);
		y += canvas__put_wrapped(c, 0, y, c->w < 60 ? 2 : 1, TS_WARN, buf);
	}
	if (s->why) {
		y += canvas__put_wrapped(c, 0, y, 3, TS_WARN, s->why);
		if (s->file && h > 8) {
			tui_ellipsize(s->file, c->w - 2, e, sizeof(e));
			canvas__put(c, 2, y++, TS_DIM, e, -1);
		}
	}
	if (!s->nr)
		return;
	rows = h - (y - y0);
	if (rows < 1)
		return;
	/* a jump (the view opening on its hottest line, n/p to the next hot
	 * one) lands a third down, with the code above it in view, not on
	 * the last row (issue 41); a step past the edge scrolls by one */
	if (v->sel < v->top - 1 || v->sel > v->top + rows)
		v->top = v->sel - rows / 3;
	tui_view__scroll(v, rows);
	linex = memx + (mem ? 22 : 0);
	textx = linex + 6;
	for (int i = 0; i < rows && v->top + i < (int)s->nr; i++) {
		const struct src_line *l = &s->lines[v->top + i];
		bool sel = v->top + i == v->sel;
		double share = l->row && s->fperiod > 0 ? l->row->period[m->clk] / s->fperiod : 0;
		bool hot = share >= 0.05;
		enum tui_style st = sel ? TS_SELECTED : hot ? TS_HOT : l->row ? TS_NORMAL : TS_DIM;

		if (sel)
			canvas__fill(c, 0, y + i, c->w, TS_SELECTED);
		canvas__put(c, 0, y + i, st, sel ? ">" : " ", -1);
		if (l->row) {
			canvas__printf(c, 1, y + i, st, "%5.1f%%%c", 100 * share, hot ? '*' : ' ');
			if (wide) {
				canvas__printf(c, 9, y + i, st, "%7llu",
					       (unsigned long long)l->row->samples[m->clk]);
			}
			if (cpi) {
				const struct td_result *res = tui_row__td(m, l->row);

				if (res && !res->v[s->cpi].na)
					canvas__printf(c, 17, y + i, st, "%6.2f", res->v[s->cpi].value);
				else
					canvas__printf(c, 17, y + i, st, "%6s", "n/a");
			}
			if (mem && !isnan(l->row->mem_lat))
				canvas__printf(c, memx, y + i, st, "%6.0fc %-13.13s", l->row->mem_lat,
					       l->row->mem_src);
		}
		canvas__printf(c, linex, y + i, sel ? TS_SELECTED : TS_DIM, "%5u", l->line);
		if (l->culprit)	/* skid: these samples may belong to another line */
			canvas__put(c, linex + 5, y + i, sel ? TS_SELECTED : TS_WARN, "^", 1);
		if (s->text) {
			const char *t = s->text[l->line - 1];
			char exp[512];
			size_t k = 0;

			/* Tabs to spaces (8 columns) so the text lines up. */
			for (const char *p = t; *p && k + 9 < sizeof(exp); p++) {
				if (*p == '\t')
					do
						exp[k++] = ' ';
					while (k % 8);
				else
					exp[k++] = *p;
			}
			exp[k] = 0;
			canvas__put(c, textx, y + i, sel ? TS_SELECTED : l->row ? TS_NORMAL : TS_DIM,
				    exp, c->w - textx);
		}
	}
}

static bool line_matches(struct source_view *s, int i)
{
	return s->pattern[0] && s->text && tui_match(s->text[s->lines[i].line - 1], s->pattern);
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct source_view *s = (struct source_view *)v;

	switch (a) {
	case TA_NEXT_HOT:
	case TA_PREV_HOT:
	case TA_HOTTEST:
		if (!s->nr_rank)
			return TR_REDRAW;
		v->sel = s->rank[tui_rank__step(&s->rank_pos, s->nr_rank, a)];
		tui_reaction__say(re, "hot line %d of %zu", s->rank_pos + 1, s->nr_rank);
		return TR_REDRAW;
	case TA_ENTER:
	case TA_DISASM:
		re->next = tui_disasm_view__new(v->m, v->ld, s->func,
						 s->nr ? s->lines[v->sel].line : 0);
		return TR_PUSH;
	case TA_CALLERS:
		re->next = tui_callers_view__new(v->m, v->ld, s->func);
		return TR_PUSH;
	case TA_NEXT:
	case TA_PREV:
		for (int k = 1; k <= (int)s->nr; k++) {
			int i = (v->sel + (a == TA_NEXT ? k : (int)s->nr - k)) % (int)s->nr;

			if (line_matches(s, i)) {
				v->sel = i;
				return TR_REDRAW;
			}
		}
		tui_reaction__say(re, s->pattern[0] ? "'%s' not found" : "no search: / first",
				 s->pattern);
		return TR_REDRAW;
	default:
		return tui_view__move(v, a, (int)s->nr);
	}
}

static void search(struct tui_view *v, const char *pattern)
{
	struct source_view *s = (struct source_view *)v;

	snprintf(s->pattern, sizeof(s->pattern), "%s", pattern);
	for (int k = 0; k < (int)s->nr; k++) {
		int i = (v->sel + k) % (int)s->nr;

		if (line_matches(s, i)) {
			v->sel = i;
			return;
		}
	}
}

static const char *status(struct tui_view *v)
{
	struct source_view *s = (struct source_view *)v;
	struct tui_model *m = v->m;
	const struct src_line *l;
	const struct td_result *res;
	int n;

	if (!s->nr)
		return "Left/Esc: back  d: disassembly";
	l = &s->lines[v->sel];
	n = snprintf(s->status, sizeof(s->status), "line %u", l->line);
	if (l->row) {
		n += snprintf(s->status + n, sizeof(s->status) - (size_t)n,
			      ": %llu samples, %.1f%% of the function",
			      (unsigned long long)l->row->samples[m->clk],
			      s->fperiod > 0 ? 100 * l->row->period[m->clk] / s->fperiod : 0);
		res = tui_row__td(m, l->row);
		if (res && s->cpi >= 0 && !res->v[s->cpi].na)
			n += snprintf(s->status + n, sizeof(s->status) - (size_t)n, ", CPI %.2f",
				      res->v[s->cpi].value);
	}
	if (l->culprit)
		snprintf(s->status + n, sizeof(s->status) - (size_t)n,
			 "; skid: may belong to line %u (%s)", l->culprit, l->culprit_why);
	else
		snprintf(s->status + n, sizeof(s->status) - (size_t)n, "  Tab: next hot  Enter: disasm");
	return s->status;
}

/* A time range or region: the same function in the new tables, the
 * cursor on the same source line; gone when it has no sample there. */
static bool sync(struct tui_view *v)
{
	struct source_view *s = (struct source_view *)v;
	uint32_t line = s->nr && v->sel >= 0 && v->sel < (int)s->nr ? s->lines[v->sel].line : 0;
	int f;

	f = tui_model__refind_func(v->m, s->func);
	if (f < 0)
		return false;
	free(s->lines);
	free(s->rank);
	s->lines = NULL;
	s->rank = NULL;
	s->nr = s->nr_rank = 0;
	s->rank_pos = 0;
	s->file = NULL;
	s->text = NULL;
	s->why = NULL;
	s->func = (size_t)f;
	v->sel = v->top = 0;
	build(s);
	for (size_t i = 0; line && i < s->nr; i++)
		if (s->lines[i].line == line)
			v->sel = (int)i;
	return true;
}

static void destroy(struct tui_view *v)
{
	struct source_view *s = (struct source_view *)v;

	free(s->lines);
	free(s->rank);
	free(s);
}

static const struct tui_view_ops source_ops = {
	.name = "source", .help = source_help, .draw = draw, .handle = handle, .search = search,
	.status = status, .sync = sync, .destroy = destroy,
};

struct tui_view *tui_source_view__new(struct tui_model *m, struct tui_loader *ld,
				size_t func, uint32_t line)
{
	struct source_view *s = tui_view__new(sizeof(*s), &source_ops, m, ld, "source: %s",
					      m->tab[TK_FUNC].rows[func].name);

	s->func = func;
	s->cpi = m->td ? td_model__find_node(m->td, "CPI") : -1;
	build(s);
	for (size_t i = 0; line && i < s->nr; i++)
		if (s->lines[i].line == line)
			s->v.sel = (int)i;
	return &s->v;
}
