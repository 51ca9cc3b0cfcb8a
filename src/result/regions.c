/*
 * regions.c: a result's regions (gexplore-regions(3)): regions.bin read
 * once, begins matched to ends per thread into instances, and per region
 * name the instances as disjoint per-thread intervals sorted by (tid,
 * begin), so that a sample's region is a binary search.
 */
#include "config.h"

#include "result/result-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct span {
	uint32_t tid;
	uint64_t begin, end;
};

struct name_index {
	struct span *spans;	/* disjoint per thread, by (tid, begin) */
	size_t nr;
};

struct gx_regions {
	struct pd_marker *markers;	/* by time */
	size_t nr_markers;
	uint64_t lost;
	struct gx_region *inst;		/* by begin */
	size_t nr_inst;
	struct gx_region_name *names;
	struct name_index *index;	/* one per name */
	size_t nr_names;
};

static int by_time(const void *a, const void *b)
{
	const struct pd_marker *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* by (tid, time), stable on the file's order through the index */
static const struct pd_marker *sort_base;
static int by_tid_time(const void *a, const void *b)
{
	const struct pd_marker *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int by_begin(const void *a, const void *b)
{
	const struct gx_region *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int by_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static size_t name_of(struct gx_regions *g, const char *name)
{
	for (size_t i = 0; i < g->nr_names; i++)
		if (!strcmp(g->names[i].name, name))
			return i;
	g->names = xrealloc(g->names, (g->nr_names + 1) * sizeof(*g->names));
	memset(&g->names[g->nr_names], 0, sizeof(*g->names));
	g->names[g->nr_names].name = name;
	return g->nr_names++;
}

/* Match begins and ends on each thread: an end closes the innermost open
 * begin; an end with none open (a forked child leaving a region its
 * parent entered) is ignored; begins never ended end at end_ns, or at the
 * thread's last marker. */
static void match(struct gx_regions *g, uint64_t end_ns)
{
	size_t *ord = xcalloc(g->nr_markers + 1, sizeof(*ord)), *stack, top = 0;

	stack = xcalloc(g->nr_markers + 1, sizeof(*stack));
	for (size_t i = 0; i < g->nr_markers; i++)
		ord[i] = i;
	sort_base = g->markers;
	qsort(ord, g->nr_markers, sizeof(*ord), by_tid_time);
	g->inst = xcalloc(g->nr_markers + 1, sizeof(*g->inst));
	for (size_t k = 0; k < g->nr_markers; k++) {
		const struct pd_marker *m = &g->markers[ord[k]];
		bool last_of_tid = k + 1 == g->nr_markers || g->markers[ord[k + 1]].tid != m->tid;

		if (m->kind == PD_MARK_BEGIN) {
			struct gx_region *x = &g->inst[g->nr_inst];

			x->name = m->name;
			x->pid = m->pid;
			x->tid = m->tid;
			x->begin = m->time;
			x->depth = m->depth;
			stack[top++] = g->nr_inst++;
		} else if (m->kind == PD_MARK_END && top) {
			g->inst[stack[--top]].end = m->time;
		}
		if (last_of_tid) {
			while (top) {
				struct gx_region *x = &g->inst[stack[--top]];

				x->end = end_ns > m->time ? end_ns : m->time;
				x->unended = true;
			}
		}
	}
	free(stack);
	free(ord);
	qsort(g->inst, g->nr_inst, sizeof(*g->inst), by_begin);
}

static void build_names(struct gx_regions *g)
{
	for (size_t i = 0; i < g->nr_inst; i++) {
		struct gx_region *x = &g->inst[i];
		size_t n = name_of(g, x->name);

		x->name_idx = n;
		x->name = g->names[n].name;
	}
	g->index = xcalloc(g->nr_names + 1, sizeof(*g->index));
	for (size_t n = 0; n < g->nr_names; n++) {
		struct gx_region_name *rn = &g->names[n];
		struct name_index *ix = &g->index[n];
		size_t w = 0;

		ix->spans = xcalloc(g->nr_inst + 1, sizeof(*ix->spans));
		for (size_t i = 0; i < g->nr_inst; i++) {
			const struct gx_region *x = &g->inst[i];

			if (x->name_idx != n)
				continue;
			if (!rn->instances || x->begin < rn->first)
				rn->first = x->begin;
			if (x->end > rn->last)
				rn->last = x->end;
			rn->instances++;
			rn->total_ns += x->end - x->begin;
			ix->spans[ix->nr++] = (struct span){ x->tid, x->begin, x->end };
		}
		qsort(ix->spans, ix->nr, sizeof(*ix->spans), by_span);
		/* merge overlaps (a region nested in itself) and count threads */
		for (size_t i = 0; i < ix->nr; i++) {
			if (w && ix->spans[w - 1].tid == ix->spans[i].tid &&
			    ix->spans[i].begin <= ix->spans[w - 1].end) {
				if (ix->spans[i].end > ix->spans[w - 1].end)
					ix->spans[w - 1].end = ix->spans[i].end;
				continue;
			}
			if (!w || ix->spans[w - 1].tid != ix->spans[i].tid)
				rn->threads++;
			ix->spans[w++] = ix->spans[i];
		}
		ix->nr = w;
	}
}

int gx_regions__load(struct gx_regions **out, const char *dir, uint64_t end_ns, char **cause)
{
	char *path = xasprintf("%s/" PD_REGIONS_FILE, dir);
	struct gx_regions *g = xzalloc(sizeof(*g));
	int err;

	*out = NULL;
	err = pd_regions__read(path, &g->markers, &g->nr_markers, &g->lost, cause);
	free(path);
	if (err) {
		gx_regions__delete(g);
		return err == -ENOENT ? 0 : err;
	}
	qsort(g->markers, g->nr_markers, sizeof(*g->markers), by_time);
	match(g, end_ns);
	build_names(g);
	*out = g;
	return 0;
}

void gx_regions__delete(struct gx_regions *g)
{
	if (!g)
		return;
	for (size_t n = 0; n < g->nr_names; n++)
		free(g->index[n].spans);
	free(g->index);
	free(g->names);
	free(g->inst);
	free(g->markers);
	free(g);
}

size_t gx_regions__nr(const struct gx_regions *g) { return g ? g->nr_inst : 0; }
const struct gx_region *gx_regions__get(const struct gx_regions *g, size_t i)
{
	return g && i < g->nr_inst ? &g->inst[i] : NULL;
}
size_t gx_regions__nr_names(const struct gx_regions *g) { return g ? g->nr_names : 0; }
const struct gx_region_name *gx_regions__name(const struct gx_regions *g, size_t i)
{
	return g && i < g->nr_names ? &g->names[i] : NULL;
}
size_t gx_regions__nr_markers(const struct gx_regions *g) { return g ? g->nr_markers : 0; }
uint64_t gx_regions__lost(const struct gx_regions *g) { return g ? g->lost : 0; }

int gx_regions__find(const struct gx_regions *g, const char *name, size_t *idx)
{
	for (size_t i = 0; g && i < g->nr_names; i++)
		if (!strcmp(g->names[i].name, name)) {
			*idx = i;
			return 0;
		}
	return -ENOENT;
}

bool gx_regions__contains(const struct gx_regions *g, size_t name_idx, uint32_t tid, uint64_t t)
{
	const struct name_index *ix;
	size_t lo = 0, hi;

	if (!g || name_idx >= g->nr_names)
		return false;
	ix = &g->index[name_idx];
	hi = ix->nr;
	/* the first span after (tid, t) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct span *s = &ix->spans[mid];

		if (s->tid < tid || (s->tid == tid && s->begin <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	return ix->spans[lo - 1].tid == tid && t <= ix->spans[lo - 1].end;
}
