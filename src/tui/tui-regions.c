/*
 * tui-regions.c: the model's regions (gexplore-regions(3)) — instances
 * per thread for the timeline, and the test every view makes of a sample
 * when the views are narrowed to one region: the thread was inside one
 * of the region's instances at the sample's time.
 */
#include "config.h"

#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

void tui_model__add_region(struct tui_model *m, const char *name, uint32_t tid, uint64_t begin,
			   uint64_t end, uint16_t depth)
{
	int n = tui_model__find_region(m, name);
	struct tui_region *r;

	if (n < 0) {
		m->region_names = xrealloc(m->region_names,
					   (m->nr_region_names + 1) * sizeof(*m->region_names));
		m->region_names[m->nr_region_names] = tui_model__str(m, name);
		n = (int)m->nr_region_names++;
	}
	m->regions = xgrow(m->regions, &m->cap_regions, m->nr_regions + 1, sizeof(*m->regions));
	r = &m->regions[m->nr_regions++];
	r->name = m->region_names[n];
	r->name_idx = (uint32_t)n;
	r->tid = tid;
	r->begin = begin;
	r->end = end < begin ? begin : end;
	r->depth = depth;
}

static int by_tid_begin(const void *a, const void *b)
{
	const struct tui_region *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

void tui_model__regions_done(struct tui_model *m)
{
	gx_qsort(m->regions, m->nr_regions, sizeof(*m->regions), by_tid_begin);
}

int tui_model__find_region(const struct tui_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_region_names; i++)
		if (!strcmp(m->region_names[i], name))
			return (int)i;
	return -1;
}

/* The first instance of thread tid (instances are few per thread: a
 * linear walk from there is fine for the views). */
static size_t first_of(const struct tui_model *m, uint32_t tid)
{
	size_t lo = 0, hi = m->nr_regions;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->regions[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct tui_region *tui_model__region_at(const struct tui_model *m, uint32_t tid, uint64_t t)
{
	const struct tui_region *best = NULL;

	for (size_t i = first_of(m, tid); i < m->nr_regions && m->regions[i].tid == tid; i++) {
		const struct tui_region *r = &m->regions[i];

		if (r->begin > t)
			break;
		if (t <= r->end && (!best || r->depth >= best->depth))
			best = r;
	}
	return best;
}

bool tui_model__region_meets(const struct tui_model *m, int name_idx, uint32_t tid, uint64_t lo,
			     uint64_t hi)
{
	for (size_t i = first_of(m, tid); i < m->nr_regions && m->regions[i].tid == tid; i++) {
		const struct tui_region *r = &m->regions[i];

		if (r->begin > hi)
			break;
		if ((int)r->name_idx == name_idx && r->end >= lo)
			return true;
	}
	return false;
}

bool tui_model__keeps(const struct tui_model *m, uint32_t tid, uint64_t t)
{
	if (m->range_hi && (t < m->range_lo || t > m->range_hi))
		return false;
	if (m->region >= 0 && !tui_model__region_meets(m, m->region, tid, t, t))
		return false;
	return true;
}
