/*
 * view-disasm.c: a function's instructions with per-instruction sample
 * counts, the source line of each, and skid hints: when the clock event was
 * not precise (precise_ip 0) a sample lands after the instruction that
 * caused it, so the likely culprit is named — the load just before a
 * sampled instruction, or the branch whose target the sample sits on.
 * With memory-access samples, each instruction's loads' mean latency.
 */
#include "config.h"

#include "tui-int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct disasm_view {
	struct tui_view v;
	size_t func;
	uint32_t line;
	struct tui_disasm d;
	uint64_t total;
	int *rank;
	size_t nr_rank;
	int rank_pos;
	char pattern[64];
	char status[256];
};

static const struct tui_key_help disasm_help[] = {
	{ "Up/Down j/k", "move the cursor" },
	{ "PgUp/PgDn Home/End", "page, first/last instruction" },
	{ "Tab / Shift-Tab", "next/previous hot instruction" },
	{ "H", "the hottest instruction" },
	{ "/", "search the instructions (smart case)" },
	{ "n N", "next/previous match" },
	{ "Left/Esc q", "back" },
	{ NULL, NULL },
};

static struct disasm_view *dv_;

/* An instruction's weight: its samples, or for an exact or modelled clock
 * (one sample an address) its period: the cycles charged to it. */
static uint64_t weight(const struct disasm_view *d, const struct tui_insn *x)
{
	return d->v.m->nr_events && d->v.m->fixed[d->v.m->clk] ? x->period : x->samples;
}

static int cmp_heat(const void *a, const void *b)
{
	const struct tui_insn *x = &dv_->d.insns[*(const int *)a], *y = &dv_->d.insns[*(const int *)b];

	if (weight(dv_, x) != weight(dv_, y))
		return weight(dv_, x) > weight(dv_, y) ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The skid note of a sampled instruction, or NULL. */
static const char *skid_note(const struct disasm_view *d, size_t i, char *buf, size_t n)
{
	const char *why;
	int k;

	if (!tui_model__imprecise(d->v.m) || !d->d.insns[i].samples)
		return NULL;
	k = tui_disasm__culprit(&d->d, i, &why);
	if (k < 0)
		return NULL;
	if (d->d.insns[k].is_load)
		snprintf(buf, n, "<- likely the load at %" PRIx64, d->d.insns[k].addr);
	else if (k + 1 == (int)i)
		snprintf(buf, n, "<- may be the branch at %" PRIx64, d->d.insns[k].addr);
	else
		snprintf(buf, n, "<- branch target of %" PRIx64, d->d.insns[k].addr);
	return buf;
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct disasm_view *d = (struct disasm_view *)v;
	struct tui_model *m = v->m;
	int y = y0, rows;
	bool wide = c->w >= 70;
	/* with memory-access samples and room: each instruction's loads'
	 * mean latency */
	bool mem = v->m->has_mem && c->w >= 100;
	char buf[512], e[512], note[96];

	canvas__fill(c, 0, y, c->w, TS_HEADER);
	snprintf(buf, sizeof(buf), "%s  %s", m->tab[TK_FUNC].rows[d->func].name,
		 m->tab[TK_FUNC].rows[d->func].module);
	tui_ellipsize(buf, c->w, e, sizeof(e));
	canvas__put(c, 0, y++, TS_HEADER, e, -1);
	if (m->nr_events) {
		if (m->fixed[m->clk])
			snprintf(buf, sizeof(buf), "%s: %s at the instruction it is charged to, no "
				 "skid", m->event_names[m->clk], m->modelled ? "modelled" : "counted");
		else if (tui_model__imprecise(m))
			snprintf(buf, sizeof(buf), "skid: %s precise_ip=0 (not precise): samples may "
				 "belong to the preceding instruction", m->event_names[m->clk]);
		else
			snprintf(buf, sizeof(buf), "%s precise_ip=%d: samples are on the instruction "
				 "itself", m->event_names[m->clk], m->precise[m->clk]);
		y += canvas__put_wrapped(c, 0, y, c->w < 60 ? 2 : 1,
					 tui_model__imprecise(m) ? TS_WARN : TS_DIM, buf);
	}
	if (!d->d.nr) {
		canvas__put_wrapped(c, 0, y, 3, TS_WARN, d->d.why ? d->d.why : "no instructions");
		return;
	}
	if (d->d.flow && wide && (m->range_hi || m->region >= 0))	/* issue 42 */
		canvas__put(c, 0, y++, TS_DIM, "block counts and loops: the whole run's (not kept "
			    "per sample); samples: the range's", c->w);
	rows = h - (y - y0);
	if (rows < 1)
		return;
	tui_view__scroll(v, rows);
	for (int i = 0; i < rows && v->top + i < (int)d->d.nr; i++) {
		size_t k = (size_t)(v->top + i);
		const struct tui_insn *x = &d->d.insns[k];
		bool sel = (int)k == v->sel;
		double share = d->total ? (double)weight(d, x) / (double)d->total : 0;
		bool hot = share >= 0.05;
		bool inline_ = d->line && x->line == d->line;
		enum tui_style st = sel ? TS_SELECTED : hot ? TS_HOT : x->samples ? TS_NORMAL : TS_DIM;
		int xx;
		const char *sn;

		if (sel)
			canvas__fill(c, 0, y + i, c->w, TS_SELECTED);
		canvas__put(c, 0, y + i, st, sel ? ">" : inline_ ? "|" : " ", -1);
		if (x->samples)
			canvas__printf(c, 1, y + i, st, "%5.1f%%%c", 100 * share, hot ? '*' : ' ');
		xx = 8;
		if (wide) {
			if (x->samples)
				canvas__printf(c, xx, y + i, st, "%6llu", (unsigned long long)x->samples);
			xx += 7;
			canvas__printf(c, xx, y + i, sel ? TS_SELECTED : TS_DIM, "%8" PRIx64,
				       x->addr);
			xx += 9;
			if (x->line)
				canvas__printf(c, xx, y + i, sel ? TS_SELECTED : TS_DIM, "%5u", x->line);
			xx += 6;
			if (d->d.flow) {	/* the block's executions, loop brackets */
				if (x->block_execs)
					canvas__printf(c, xx, y + i, sel ? TS_SELECTED : TS_NORMAL,
						       "%9llu", (unsigned long long)x->block_execs);
				if (x->block_cycles > 0)
					canvas__printf(c, xx + 10, y + i, sel ? TS_SELECTED : TS_DIM,
						       "%6.1fc", x->block_cycles);
				xx += 18;
				for (int q = 0; q < x->loop_depth && q < 3; q++)
					canvas__put(c, xx + q, y + i, sel ? TS_SELECTED : TS_DIM,
						    x->loop_head && q + 1 == x->loop_depth ? "[" : "|",
						    1);
				xx += 4;
			}
		} else {
			canvas__printf(c, xx, y + i, sel ? TS_SELECTED : TS_DIM, "%4" PRIx64,
				       x->addr & 0xffff);
			xx += 5;
		}
		if (mem) {	/* the loads' mean latency there (issue 43) */
			if (x->mem_samples)
				canvas__printf(c, xx, y + i, st, "%6.0fc",
					       (double)x->mem_weight / (double)x->mem_samples);
			xx += 8;
		}
		canvas__put(c, xx, y + i, sel ? TS_SELECTED : TS_NORMAL, x->text, c->w - xx);
		sn = skid_note(d, k, note, sizeof(note));
		xx += (int)strlen(x->text) + 1;
		if (sn && xx < c->w)
			canvas__put(c, xx, y + i, sel ? TS_SELECTED : TS_WARN, sn, c->w - xx);
	}
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct disasm_view *d = (struct disasm_view *)v;

	switch (a) {
	case TA_NEXT_HOT:
	case TA_PREV_HOT:
	case TA_HOTTEST:
		if (d->nr_rank)
			v->sel = d->rank[tui_rank__step(&d->rank_pos, d->nr_rank, a)];
		return TR_REDRAW;
	case TA_NEXT:
	case TA_PREV:
		for (int k = 1; k <= (int)d->d.nr && d->pattern[0]; k++) {
			int i = (v->sel + (a == TA_NEXT ? k : (int)d->d.nr - k)) % (int)d->d.nr;

			if (tui_match(d->d.insns[i].text, d->pattern)) {
				v->sel = i;
				return TR_REDRAW;
			}
		}
		tui_reaction__say(re, d->pattern[0] ? "'%s' not found" : "no search: / first",
				 d->pattern);
		return TR_REDRAW;
	case TA_ENTER:
		return TR_REDRAW;
	default:
		return tui_view__move(v, a, (int)d->d.nr);
	}
}

static void search(struct tui_view *v, const char *pattern)
{
	struct disasm_view *d = (struct disasm_view *)v;

	snprintf(d->pattern, sizeof(d->pattern), "%s", pattern);
	for (int k = 0; k < (int)d->d.nr && d->pattern[0]; k++) {
		int i = (v->sel + k) % (int)d->d.nr;

		if (tui_match(d->d.insns[i].text, d->pattern)) {
			v->sel = i;
			return;
		}
	}
}

static const char *status(struct tui_view *v)
{
	struct disasm_view *d = (struct disasm_view *)v;
	struct tui_model *m = v->m;
	const struct tui_insn *x;
	char note[96];
	const char *sn;

	if (!d->d.nr)
		return "Left/Esc: back";
	x = &d->d.insns[v->sel];
	sn = skid_note(d, (size_t)v->sel, note, sizeof(note));
	if (m->nr_events && m->fixed[m->clk]) {	/* one sample an address: its period */
		snprintf(d->status, sizeof(d->status), "%" PRIx64 ": %llu %s", x->addr,
			 (unsigned long long)x->period, m->event_names[m->clk]);
		return d->status;
	}
	snprintf(d->status, sizeof(d->status), "%" PRIx64 ": %llu samples of %s%s%s", x->addr,
		 (unsigned long long)x->samples, m->nr_events ? m->event_names[m->clk] : "?",
		 sn ? "; skid: " : "", sn ? sn + 3 : "");
	return d->status;
}

static void destroy(struct tui_view *v)
{
	struct disasm_view *d = (struct disasm_view *)v;

	tui_disasm__exit(&d->d);
	free(d->rank);
	free(d);
}

/* The function's instructions and their counts (in the time range), the
 * cursor on the instruction at addr, else the line's hottest, else the
 * function's. */
static void load(struct disasm_view *d, uint64_t addr)
{
	struct tui_model *m = d->v.m;
	uint32_t line = d->line;
	int first_of_line = -1;

	tui_disasm__exit(&d->d);
	free(d->rank);
	d->nr_rank = 0;
	d->rank_pos = 0;
	d->total = 0;
	if (tui_model__disasm(m, d->v.ld, d->func, &d->d) != 0)
		d->d.why = "no disassembly for this result";
	d->rank = xcalloc(d->d.nr + 1, sizeof(int));
	for (size_t i = 0; i < d->d.nr; i++) {
		d->total += weight(d, &d->d.insns[i]);
		if (d->d.insns[i].samples)
			d->rank[d->nr_rank++] = (int)i;
	}
	dv_ = d;
	gx_qsort(d->rank, d->nr_rank, sizeof(int), cmp_heat);
	dv_ = NULL;
	for (size_t i = 0; addr && i < d->d.nr; i++)
		if (d->d.insns[i].addr == addr)
			first_of_line = (int)i;
	/* Start on the line's hottest instruction, else the function's. */
	for (size_t i = 0; first_of_line < 0 && i < d->nr_rank; i++)
		if (line && d->d.insns[d->rank[i]].line == line) {
			first_of_line = d->rank[i];
			break;
		}
	if (first_of_line < 0)
		for (size_t i = 0; i < d->d.nr; i++)
			if (line && d->d.insns[i].line == line) {
				first_of_line = (int)i;
				break;
			}
	d->v.sel = first_of_line >= 0 ? first_of_line : d->nr_rank ? d->rank[0] : 0;
}

/* A time range or region: the same function, its counts there, the
 * cursor on the same instruction; gone when it has no sample there. */
static bool sync(struct tui_view *v)
{
	struct disasm_view *d = (struct disasm_view *)v;
	uint64_t addr = d->d.nr && v->sel >= 0 && v->sel < (int)d->d.nr ? d->d.insns[v->sel].addr : 0;
	int f;

	f = tui_model__refind_func(v->m, d->func);
	if (f < 0)
		return false;
	d->func = (size_t)f;
	load(d, addr);
	return true;
}

static const struct tui_view_ops disasm_ops = {
	.name = "disassembly", .help = disasm_help, .draw = draw, .handle = handle,
	.search = search, .status = status, .sync = sync, .destroy = destroy,
};

struct tui_view *tui_disasm_view__new(struct tui_model *m, struct tui_loader *ld,
				size_t func, uint32_t line)
{
	struct disasm_view *d = tui_view__new(sizeof(*d), &disasm_ops, m, ld, "disassembly: %s",
					      m->tab[TK_FUNC].rows[func].name);

	d->func = func;
	d->line = line;
	load(d, 0);
	return &d->v;
}
