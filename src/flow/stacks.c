/*
 * stacks.c: branch stacks into range and branch counts, as AutoFDO's perf
 * reader (sample_reader.cc, PerfDataSampleReader::Append) counts them, so
 * that gexplore's ranges of a recording are AutoFDO's: see flow.h.
 */
#include "config.h"

#include "flow.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Intel's duplicated first entry is told from a short self loop by its
 * stride: AutoFDO's --strip_dup_backedge_stride_limit default. */
#define DUP_STRIDE 0x1000
/* A span longer than this is bogus data (AutoFDO's 1 << 20). */
#define MAX_SPAN ((uint64_t)1 << 20)

struct flow_stacks {
	struct flow_range *ranges;
	size_t nr_ranges, cap_ranges;
	struct flow_branch *branches;
	size_t nr_branches, cap_branches;
	struct u64map range_idx, branch_idx;	/* key hash -> index + 1, probed */
	bool sorted;
	uint64_t stacks, entries, bogus, dups;
};

struct flow_stacks *flow_stacks__new(void)
{
	struct flow_stacks *fs = xcalloc(1, sizeof(*fs));

	u64map__init(&fs->range_idx);
	u64map__init(&fs->branch_idx);
	return fs;
}

void flow_stacks__delete(struct flow_stacks *fs)
{
	if (!fs)
		return;
	free(fs->ranges);
	free(fs->branches);
	u64map__exit(&fs->range_idx);
	u64map__exit(&fs->branch_idx);
	free(fs);
}

static uint64_t key_hash(uint32_t module, uint64_t a, uint64_t b)
{
	uint64_t k[3] = { module, a, b };
	uint64_t h = gx_hash(k, sizeof(k));

	return h == UINT64_MAX ? 0 : h;
}

/* The index of (module, a, b) in a table whose entries start with those
 * fields at offsets 0, 8 and 16 (flow_range's and flow_branch's), or
 * SIZE_MAX; *slot the map key where it is or would go. */
static size_t lookup(struct u64map *idx, const void *tab, size_t size, uint32_t module,
		     uint64_t a, uint64_t b, uint64_t *slot)
{
	uint64_t h = key_hash(module, a, b);

	for (;; h = h + 1 == UINT64_MAX ? 0 : h + 1) {
		uint64_t *v = u64map__find(idx, h);
		const uint8_t *e;
		uint32_t m;
		uint64_t x, y;

		if (!v) {
			*slot = h;
			return SIZE_MAX;
		}
		e = (const uint8_t *)tab + (*v - 1) * size;
		memcpy(&m, e, sizeof(m));
		memcpy(&x, e + 8, sizeof(x));
		memcpy(&y, e + 16, sizeof(y));
		if (m == module && x == a && y == b)
			return *v - 1;
	}
}

static void add_range(struct flow_stacks *fs, uint32_t module, uint64_t start, uint64_t end,
		      uint16_t cycles)
{
	uint64_t slot;
	size_t i = lookup(&fs->range_idx, fs->ranges, sizeof(*fs->ranges), module, start, end,
			  &slot);

	if (i == SIZE_MAX) {
		fs->ranges = xgrow(fs->ranges, &fs->cap_ranges, fs->nr_ranges + 1,
				   sizeof(*fs->ranges));
		i = fs->nr_ranges++;
		fs->ranges[i] = (struct flow_range){ .module = module, .start = start, .end = end };
		*u64map__findnew(&fs->range_idx, slot, 0) = i + 1;
	}
	fs->ranges[i].count++;
	if (cycles) {
		fs->ranges[i].cycles += cycles;
		fs->ranges[i].timed++;
	}
	fs->sorted = false;
}

static void add_branch(struct flow_stacks *fs, const struct flow_entry *e, uint16_t cycles,
		       bool paired)
{
	uint64_t slot;
	size_t i;

	if (e->mod_from == FLOW_NO_MODULE || e->mod_from != e->mod_to)
		return;
	i = lookup(&fs->branch_idx, fs->branches, sizeof(*fs->branches), e->mod_from, e->from,
		   e->to, &slot);
	if (i == SIZE_MAX) {
		fs->branches = xgrow(fs->branches, &fs->cap_branches, fs->nr_branches + 1,
				     sizeof(*fs->branches));
		i = fs->nr_branches++;
		fs->branches[i] = (struct flow_branch){ .module = e->mod_from, .from = e->from,
							.to = e->to };
		*u64map__findnew(&fs->branch_idx, slot, 0) = i + 1;
	}
	fs->branches[i].count++;
	fs->branches[i].mispred += e->mispred;
	fs->branches[i].paired += paired;
	fs->branches[i].paired_mispred += paired && e->mispred;
	if (cycles) {
		fs->branches[i].cycles += cycles;
		fs->branches[i].timed++;
	}
	fs->sorted = false;
}

void flow_stacks__add(struct flow_stacks *fs, const struct flow_entry *e, size_t n)
{
	fs->stacks++;
	fs->entries += n;
	if (!n)
		return;
	add_branch(fs, &e[0], e[0].cycles, false);
	for (size_t i = 1; i < n; i++) {
		uint64_t begin = e[i].to, end = e[i - 1].from;

		if (e[i].mod_to == FLOW_NO_MODULE)
			continue;
		if (e[i - 1].mod_from != e[i].mod_to) {	/* no straight line */
			fs->bogus++;
			continue;
		}
		if (i == 1 && e[0].from == e[1].from && e[0].to == e[1].to &&
		    e[0].from - e[0].to > DUP_STRIDE) {
			fs->dups++;
			continue;
		}
		if (end < begin || end - begin > MAX_SPAN) {
			fs->bogus++;
			continue;
		}
		/* the span ran from e[i]'s target to e[i - 1]'s source: the
		 * cycles e[i - 1] says passed since e[i] */
		add_range(fs, e[i].mod_to, begin, end, e[i - 1].cycles);
		add_branch(fs, &e[i], e[i].cycles, true);
	}
}

static int cmp_triple(const void *a, const void *b)
{
	uint32_t ma, mb;
	uint64_t xa[2], xb[2];

	memcpy(&ma, a, 4), memcpy(&mb, b, 4);
	memcpy(xa, (const uint8_t *)a + 8, 16), memcpy(xb, (const uint8_t *)b + 8, 16);
	if (ma != mb)
		return ma < mb ? -1 : 1;
	if (xa[0] != xb[0])
		return xa[0] < xb[0] ? -1 : 1;
	return xa[1] < xb[1] ? -1 : xa[1] > xb[1];
}

/* Sorted for the caller; the index maps rebuilt to the new places. */
static void sort_tables(struct flow_stacks *fs)
{
	struct flow_stacks *w = (struct flow_stacks *)fs;
	uint64_t slot;

	if (w->sorted)
		return;
	gx_qsort(w->ranges, w->nr_ranges, sizeof(*w->ranges), cmp_triple);
	gx_qsort(w->branches, w->nr_branches, sizeof(*w->branches), cmp_triple);
	u64map__exit(&w->range_idx);
	u64map__exit(&w->branch_idx);
	u64map__init(&w->range_idx);
	u64map__init(&w->branch_idx);
	for (size_t i = 0; i < w->nr_ranges; i++) {
		const struct flow_range *r = &w->ranges[i];

		lookup(&w->range_idx, w->ranges, sizeof(*r), r->module, r->start, r->end, &slot);
		*u64map__findnew(&w->range_idx, slot, 0) = i + 1;
	}
	for (size_t i = 0; i < w->nr_branches; i++) {
		const struct flow_branch *b = &w->branches[i];

		lookup(&w->branch_idx, w->branches, sizeof(*b), b->module, b->from, b->to, &slot);
		*u64map__findnew(&w->branch_idx, slot, 0) = i + 1;
	}
	w->sorted = true;
}

const struct flow_range *flow_stacks__ranges(const struct flow_stacks *fs, size_t *n)
{
	sort_tables((struct flow_stacks *)fs);
	*n = fs->nr_ranges;
	return fs->ranges;
}

const struct flow_branch *flow_stacks__branches(const struct flow_stacks *fs, size_t *n)
{
	sort_tables((struct flow_stacks *)fs);
	*n = fs->nr_branches;
	return fs->branches;
}

void flow_stacks__stats(const struct flow_stacks *fs, uint64_t *stacks, uint64_t *entries,
			uint64_t *bogus, uint64_t *dups)
{
	*stacks = fs->stacks;
	*entries = fs->entries;
	*bogus = fs->bogus;
	*dups = fs->dups;
}
