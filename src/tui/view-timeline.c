/*
 * view-timeline.c: samples over time, one row per thread; density shown
 * with characters (" .:+#") so it reads without colour. A time cursor
 * (h/l) and Space select a range that filters every other view; x clears.
 * With regions (gexplore-regions(3)) each thread gets a second row, its
 * regions as spans "[solve---]" (the innermost at each instant, names
 * where they fit); r narrows every view to the region under the cursor
 * (its instances: a time range per thread).
 * A legend line above the ruler says what the marks and colours mean; the
 * help view (?) says it at length.
 */
#include "config.h"

#include "tui-int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_W 16

struct timeline_view {
	struct tui_view v;
	int cursor;		/* bucket under the time cursor */
	int mark;		/* first end of a range being selected, -1 none */
	int nb;			/* buckets at the last draw */
	uint32_t *counts;	/* [threads * nb] */
	int counts_w;
	size_t counts_nts;
	char status[240];
};

static const struct tui_key_help timeline_help[] = {
	{ "Up/Down j/k", "select a thread" },
	{ "PgUp/PgDn", "threads by a page" },
	{ "Left/Right h/l", "move the time cursor left/right" },
	{ "H L", "move the time cursor a page step (a tenth of the width)" },
	{ "Home/End", "the time cursor to the start/end of the run" },
	{ "Space", "mark one end of a time range; again: the other end (applies it)" },
	{ "x", "clear the time range or region (whole run)" },
	{ "r", "narrow every view to the region under the cursor" },
	{ "Enter", "bottom-up grid of the selected thread (in the range)" },
	{ "g", "bottom-up grid of every thread (in the range)" },
	{ "Esc q", "back" },
	{ NULL, NULL },
};

static const struct tui_key_help timeline_legend[] = {
	{ ". : + #", "samples per slice of time, few to most; # the busiest" },
	{ "hot colour", "+ and #: the busiest slices" },
	{ "^", "the time cursor (Left/Right, h/l), its column highlighted" },
	{ "|", "one end of a range being marked (Space)" },
	{ "=", "the range that filters every view; dim outside it" },
	{ "[name--]", "a region of the thread above; hot: the one narrowed to" },
	{ NULL, NULL },
};

/* The legend line: each piece in the style it names, a wide and a narrow
 * wording (under 60 columns). */
static const struct legend_piece {
	const char *wide, *narrow;
	enum tui_style st;
} legend_line[] = {
	{ ".", ".", TS_NORMAL }, { " ", "", TS_NORMAL }, { ":", ":", TS_NORMAL },
	{ " ", "", TS_NORMAL }, { "+", "+", TS_HOT }, { " ", "", TS_NORMAL },
	{ "#", "#", TS_HOT }, { " samples, few to most (", " few-most  ", TS_NORMAL },
	{ "+ #", "", TS_HOT }, { " hot)  ", "", TS_NORMAL },
	{ "^", "^", TS_SELECTED }, { " cursor  ", "cursor ", TS_NORMAL },
	{ "|", "|", TS_NORMAL }, { " mark  ", "mark ", TS_NORMAL },
	{ "=", "=", TS_BOTTLENECK }, { " range (", "range", TS_NORMAL },
	{ "dim", "", TS_DIM }, { " outside)", "", TS_NORMAL },
};

/* With off-CPU spans the legend says their letters instead of the range's. */
static const struct legend_piece legend_off[] = {
	{ ".:+#", ".:+#", TS_NORMAL }, { " samples ", " ", TS_NORMAL },
	{ "silcjho", "silcjho", TS_DIM },
	{ " off: sleep io lock cpu join child other ", " off-CPU ", TS_NORMAL },
	{ "^", "^", TS_SELECTED }, { " cursor ", " ", TS_NORMAL },
	{ "=", "=", TS_BOTTLENECK }, { " range", "", TS_NORMAL },
};

static void draw_legend(struct tui_canvas *c, int y, bool off)
{
	int x = 0;

	if (off) {
		for (size_t i = 0; i < ARRAY_SIZE(legend_off); i++)
			x += canvas__put(c, x, y, legend_off[i].st,
					 c->w >= 60 ? legend_off[i].wide : legend_off[i].narrow, -1);
		return;
	}

	for (size_t i = 0; i < ARRAY_SIZE(legend_line); i++) {
		const struct legend_piece *p = &legend_line[i];

		x += canvas__put(c, x, y, p->st, c->w >= 60 ? p->wide : p->narrow, -1);
	}
}

static uint64_t span(const struct tui_model *m)
{
	return m->t_last > m->t_first ? m->t_last - m->t_first : 1;
}

static int bucket_of(const struct tui_model *m, uint64_t t, int nb)
{
	int b = (int)((double)(t - m->t_first) / (double)span(m) * nb);

	return b >= nb ? nb - 1 : b < 0 ? 0 : b;
}

static uint64_t time_of(const struct tui_model *m, int b, int nb, bool end)
{
	return m->t_first + (uint64_t)((double)span(m) * (b + (end ? 1 : 0)) / nb) - (end ? 1 : 0);
}

/* First sample of times[0..n) in bucket b or later (bucket_of rises with
 * the time: the same buckets as a sample by sample count). */
static size_t first_in(const struct tui_model *m, const uint64_t *times, size_t n, int b, int nb)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (bucket_of(m, times[mid], nb) < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Samples per thread and bucket: from the per-thread sorted sample times,
 * a binary search per bucket edge, not a walk over every sample. */
static void count(struct timeline_view *t, int nb)
{
	struct tui_model *m = t->v.m;

	if (t->counts && t->counts_w == nb && t->counts_nts == m->nr_ts)
		return;
	free(t->counts);
	t->counts = xcalloc((m->nr_threads + 1) * (size_t)nb, sizeof(uint32_t));
	t->counts_w = nb;
	t->counts_nts = m->nr_ts;
	tui_model__index_times(m);
	for (size_t th = 0; th < m->nr_threads; th++) {
		const uint64_t *times = m->thr_times + m->thr_off[th];
		size_t n = m->thr_off[th + 1] - m->thr_off[th], prev = 0;

		for (int b = 0; b < nb; b++) {
			size_t next = b + 1 < nb ? first_in(m, times, n, b + 1, nb) : n;

			t->counts[th * (size_t)nb + (size_t)b] = (uint32_t)(next - prev);
			prev = next;
		}
	}
}

/* The reason letter of the waits that fill most of [lo, hi) for thread
 * tid, from its spans at or after *i (advanced: buckets come in order);
 * 0 when it was off the CPU under half of it. */
static char off_letter(const struct tui_model *m, uint32_t tid, size_t *i, uint64_t lo,
		       uint64_t hi)
{
	static const char letters[] = "silcjho";
	uint64_t by[sizeof(letters) - 1] = { 0 }, sum = 0;
	int best = 0;

	while (*i < m->nr_offspans && (m->offspans[*i].tid < tid ||
				       (m->offspans[*i].tid == tid && m->offspans[*i].end <= lo)))
		(*i)++;
	for (size_t k = *i; k < m->nr_offspans && m->offspans[k].tid == tid &&
			    m->offspans[k].start < hi; k++) {
		const struct tui_offspan *o = &m->offspans[k];
		uint64_t a = o->start > lo ? o->start : lo, b = o->end < hi ? o->end : hi;
		const char *p = strchr(letters, o->reason);
		int r = p && *p ? (int)(p - letters) : (int)sizeof(letters) - 2;

		if (b > a) {
			by[r] += b - a;
			sum += b - a;
		}
	}
	if (2 * sum < hi - lo)
		return 0;
	for (int r = 1; r < (int)ARRAY_SIZE(by); r++)
		if (by[r] > by[best])
			best = r;
	return letters[best];
}

/* Thread tid's regions row: at each bucket the innermost instance, drawn
 * as spans "[name---]" ('[' and ']' only where the instance begins and
 * ends, "|" for one bucket), the narrowed region's in the hot style. */
static void draw_lane(struct timeline_view *t, struct tui_canvas *c, int x0, int y, uint32_t tid)
{
	struct tui_model *m = t->v.m;
	int nb = t->nb;
	const struct tui_region **at = xcalloc((size_t)nb + 1, sizeof(*at));
	size_t first = m->nr_regions;

	for (size_t i = 0; i < m->nr_regions; i++)
		if (m->regions[i].tid == tid) {
			first = i;
			break;
		}
	for (size_t i = first; i < m->nr_regions && m->regions[i].tid == tid; i++) {
		const struct tui_region *r = &m->regions[i];
		int b0 = bucket_of(m, r->begin < m->t_first ? m->t_first : r->begin, nb);
		int b1 = bucket_of(m, r->end > m->t_last ? m->t_last : r->end, nb);

		if (r->end < m->t_first || r->begin > m->t_last)
			continue;
		for (int b = b0; b <= b1; b++)
			if (!at[b] || r->depth >= at[b]->depth)
				at[b] = r;
	}
	for (int b = 0; b < nb;) {
		const struct tui_region *r = at[b];
		int e = b, w, b0, b1, x;
		enum tui_style st;

		while (e + 1 < nb && at[e + 1] == r)
			e++;
		if (!r) {
			b = e + 1;
			continue;
		}
		w = e - b + 1;
		b0 = bucket_of(m, r->begin, nb);
		b1 = bucket_of(m, r->end, nb);
		st = m->region == (int)r->name_idx ? TS_HOT : TS_NORMAL;
		for (int k = b; k <= e; k++)
			canvas__put(c, x0 + k, y, st, "-", 1);
		if (b == b0 && e == b1 && w == 1) {
			canvas__put(c, x0 + b, y, st, "|", 1);
		} else {
			if (b == b0)
				canvas__put(c, x0 + b, y, st, "[", 1);
			if (e == b1)
				canvas__put(c, x0 + e, y, st, "]", 1);
			x = b + (b == b0);
			if ((int)strlen(r->name) <= e - (e == b1) - x + 1)
				canvas__put(c, x0 + x, y, st, r->name, -1);
		}
		b = e + 1;
	}
	free(at);
}

static void draw(struct tui_view *v, struct tui_canvas *c, int y0, int h)
{
	struct timeline_view *t = (struct timeline_view *)v;
	struct tui_model *m = v->m;
	int namew = c->w >= 60 ? NAME_W : 10, nb = c->w - namew - 1, rows = h - 3;
	int per = m->nr_regions ? 2 : 1;	/* lines per thread */
	uint32_t max = 1;
	int rlo = -1, rhi = -1;
	size_t osi;			/* the thread's next off-CPU span */
	char buf[256], e[256];

	if (!m->nr_ts || !m->nr_threads || m->t_last <= m->t_first) {
		canvas__put_wrapped(c, 0, y0, 3, TS_WARN, "no sample times in this result: no "
				    "timeline");
		return;
	}
	if (nb < 4)
		return;
	t->nb = nb;
	if (t->cursor >= nb)
		t->cursor = nb - 1;
	count(t, nb);
	for (size_t i = 0; i < m->nr_threads * (size_t)nb; i++)
		if (t->counts[i] > max)
			max = t->counts[i];
	if (m->range_hi) {
		rlo = bucket_of(m, m->range_lo, nb);
		rhi = bucket_of(m, m->range_hi, nb);
	}
	canvas__fill(c, 0, y0, c->w, TS_HEADER);
	canvas__printf(c, 0, y0, TS_HEADER, "%-*s 0 s", namew, "thread");
	snprintf(buf, sizeof(buf), "%.3f s", (double)span(m) / 1e9);
	canvas__put(c, c->w - (int)strlen(buf), y0, TS_HEADER, buf, -1);
	tui_view__scroll(v, rows / per);
	for (int i = 0; i < rows / per && v->top + i < (int)m->nr_threads; i++) {
		const struct tui_thread *th = &m->threads[v->top + i];
		bool sel = v->top + i == v->sel;
		int y = y0 + 1 + i * per;

		snprintf(buf, sizeof(buf), "%s %u", th->name, th->tid);
		tui_ellipsize(buf, namew, e, sizeof(e));
		canvas__put(c, 0, y, sel ? TS_SELECTED : TS_NORMAL, e, -1);
		osi = 0;
		for (int b = 0; b < nb; b++) {
			uint32_t n = t->counts[(size_t)(v->top + i) * (size_t)nb + (size_t)b];
			static const char dens[] = " .:+#";
			int lvl = n == 0 ? 0 : 1 + (int)(3.0 * n / max);
			char ch[2] = { dens[lvl > 4 ? 4 : lvl], 0 };
			/* no sample here: the thread was off the CPU, and why */
			char off = !n && m->nr_offspans ?
				   off_letter(m, th->tid, &osi, time_of(m, b, nb, false),
					      time_of(m, b, nb, true)) : 0;

			bool out = (rlo >= 0 && (b < rlo || b > rhi)) ||
				   (m->region >= 0 &&
				    !tui_model__region_meets(m, m->region, th->tid,
							     time_of(m, b, nb, false),
							     time_of(m, b, nb, true)));
			enum tui_style st = b == t->cursor ? TS_SELECTED : out || off ? TS_DIM :
					    lvl >= 3 ? TS_HOT : TS_NORMAL;

			if (off)
				ch[0] = off;

			canvas__put(c, namew + 1 + b, y, st, ch, 1);
		}
		if (per == 2)
			draw_lane(t, c, namew + 1, y + 1, th->tid);
	}
	draw_legend(c, y0 + h - 2, m->nr_offspans > 0);
	/* Ruler: the selected range and the mark. */
	{
		int y = y0 + h - 1;

		for (int b = 0; b < nb; b++) {
			const char *ch = b == t->cursor ? "^" : b == t->mark ? "|" :
					 rlo >= 0 && b >= rlo && b <= rhi ? "=" : " ";

			canvas__put(c, namew + 1 + b, y, rlo >= 0 && b >= rlo && b <= rhi ?
				    TS_BOTTLENECK : TS_NORMAL, ch, 1);
		}
		if (m->region >= 0)
			snprintf(buf, sizeof(buf), "region %s", m->region_names[m->region]);
		else
			snprintf(buf, sizeof(buf), "%s", m->range_hi ? "range" : "whole run");
		canvas__put(c, 0, y, m->region >= 0 ? TS_HOT : TS_DIM, buf, namew);
	}
}

static unsigned apply(struct timeline_view *t, struct tui_reaction *re, uint64_t lo, uint64_t hi)
{
	struct tui_model *m = t->v.m;
	struct tui_loader *ld = t->v.ld;
	char *cause = NULL;

	if (!hi && m->region >= 0 && ld->renarrow) {
		if (ld->renarrow(ld, m, -1, &cause) != 0) {
			tui_reaction__say(re, "region: %s", cause ? cause : "failed");
			free(cause);
			return TR_REDRAW;
		}
		m->region = -1;
		tui_reaction__say(re, "region cleared: whole run");
		return TR_REDRAW;
	}
	if (!ld->refilter) {
		tui_reaction__say(re, "time ranges need a recorded result");
		return TR_REDRAW;
	}
	if (ld->refilter(ld, m, lo, hi, &cause) != 0) {
		tui_reaction__say(re, "time range: %s", cause ? cause : "failed");
		free(cause);
		return TR_REDRAW;
	}
	if (hi)
		tui_reaction__say(re, "views filtered to %.3f-%.3f s", (double)(lo - m->t_first) / 1e9,
				 (double)(hi - m->t_first) / 1e9);
	else
		tui_reaction__say(re, "time range cleared: whole run");
	return TR_REDRAW;
}

/* Narrow every view to the region under the time cursor on the selected
 * thread: all its instances, on every thread. */
static unsigned narrow(struct timeline_view *t, struct tui_reaction *re)
{
	struct tui_model *m = t->v.m;
	int nb = t->nb > 0 ? t->nb : 1;
	const struct tui_region *r = NULL;
	size_t inst = 0, threads = 0;
	char *cause = NULL;
	uint32_t last = 0;

	if (!m->nr_regions) {
		tui_reaction__say(re, "no regions in this result (gexplore-regions(3) marks them)");
		return TR_REDRAW;
	}
	if (t->v.sel < (int)m->nr_threads) {
		uint32_t tid = m->threads[t->v.sel].tid;
		uint64_t lo = time_of(m, t->cursor, nb, false), hi = time_of(m, t->cursor, nb, true);

		r = tui_model__region_at(m, tid, hi);
		if (!r)
			r = tui_model__region_at(m, tid, lo);
	}
	if (!r) {
		tui_reaction__say(re, "no region under the cursor on this thread");
		return TR_REDRAW;
	}
	if (!t->v.ld->renarrow) {
		tui_reaction__say(re, "regions need a recorded result");
		return TR_REDRAW;
	}
	t->mark = -1;
	if (t->v.ld->renarrow(t->v.ld, m, (int)r->name_idx, &cause) != 0) {
		tui_reaction__say(re, "region %s: %s", r->name, cause ? cause : "failed");
		free(cause);
		return TR_REDRAW;
	}
	for (size_t i = 0; i < m->nr_regions; i++)
		if ((int)m->regions[i].name_idx == m->region) {
			inst++;
			if (!threads || m->regions[i].tid != last)
				threads++;
			last = m->regions[i].tid;
		}
	tui_reaction__say(re, "views narrowed to region %s (%zu instance%s on %zu thread%s)",
			 m->region_names[m->region], inst, inst == 1 ? "" : "s", threads,
			 threads == 1 ? "" : "s");
	return TR_REDRAW;
}

static unsigned handle(struct tui_view *v, enum tui_action a, struct tui_reaction *re)
{
	struct timeline_view *t = (struct timeline_view *)v;
	struct tui_model *m = v->m;
	int nb = t->nb > 0 ? t->nb : 1;

	int step = nb / 10 > 1 ? nb / 10 : 1;

	switch (a) {
	case TA_CURSOR_LEFT:
	case TA_LEFT:
	case TA_HOTTEST:	/* H: a page step left */
		t->cursor -= a == TA_HOTTEST ? step : 1;
		if (t->cursor < 0)
			t->cursor = 0;
		return TR_REDRAW;
	case TA_CURSOR_RIGHT:
	case TA_RIGHT:
	case TA_PAGE_RIGHT:
		t->cursor += a == TA_PAGE_RIGHT ? step : 1;
		if (t->cursor >= nb)
			t->cursor = nb - 1;
		return TR_REDRAW;
	case TA_HOME:
		t->cursor = 0;
		return TR_REDRAW;
	case TA_END:
		t->cursor = nb - 1;
		return TR_REDRAW;
	case TA_MARK:
		if (!m->nr_ts)
			return TR_REDRAW;
		if (t->mark < 0) {
			t->mark = t->cursor;
			tui_reaction__say(re, "range start marked: move with h/l, Space again to apply");
			return TR_REDRAW;
		} else {
			int lo = t->mark < t->cursor ? t->mark : t->cursor;
			int hi = t->mark < t->cursor ? t->cursor : t->mark;

			t->mark = -1;
			return apply(t, re, time_of(m, lo, nb, false), time_of(m, hi, nb, true));
		}
	case TA_CLEAR:
		t->mark = -1;
		return apply(t, re, 0, 0);
	case TA_REGION:
		return narrow(t, re);
	case TA_ENTER:
		if (v->ld->thread_rows && v->sel >= 0 && v->sel < (int)m->nr_threads) {
			const struct tui_thread *th = &m->threads[v->sel];

			re->next = tui_thread_grid_view__new(m, v->ld, th->tid, th->name);
			return TR_PUSH;
		}
		if (m->nr_threads)
			tui_reaction__say(re, "per-thread rows need a recorded result: the grid of "
					 "every thread");
		re->next = tui_grid_view__new(m, v->ld, m->tab[TK_FUNC].nr ? TK_FUNC : TK_THREAD);
		return TR_PUSH;
	default:
		return tui_view__move(v, a, (int)m->nr_threads);
	}
}

static const char *status(struct tui_view *v)
{
	struct timeline_view *t = (struct timeline_view *)v;
	struct tui_model *m = v->m;
	int nb = t->nb > 0 ? t->nb : 1;

	const struct tui_thread *th = v->sel < (int)m->nr_threads ? &m->threads[v->sel] : NULL;
	char rel[48] = "", reg[64] = "";

	if (th && m->nr_regions) {
		const struct tui_region *r = tui_model__region_at(m, th->tid,
								  time_of(m, t->cursor, nb, true));

		if (r)
			snprintf(reg, sizeof(reg), "  in %.40s", r->name);
	}
	if (th && !isnan(th->reliability))
		snprintf(rel, sizeof(rel), "  thread %u: MUX reliability %.2f", th->tid,
			 th->reliability);
	snprintf(t->status, sizeof(t->status), "cursor %.3f s%s%s%s  h/l: move  Space: range%s  x: clear",
		 (double)(time_of(m, t->cursor, nb, false) - m->t_first) / 1e9,
		 m->range_hi ? " (range set)" : "", reg, rel, m->nr_regions ? "  r: region" : "");
	return t->status;
}

static void destroy(struct tui_view *v)
{
	struct timeline_view *t = (struct timeline_view *)v;

	free(t->counts);
	free(t);
}

static const struct tui_view_ops timeline_ops = {
	.name = "timeline", .help = timeline_help, .legend = timeline_legend, .draw = draw, .handle = handle,
	.status = status, .destroy = destroy,
};

struct tui_view *tui_timeline_view__new(struct tui_model *m, struct tui_loader *ld)
{
	struct timeline_view *t = tui_view__new(sizeof(*t), &timeline_ops, m, ld,
						"timeline: %zu thread%s", m->nr_threads,
						m->nr_threads == 1 ? "" : "s");

	t->mark = -1;
	return &t->v;
}
