/*
 * Address translation's price (issue 40): callgrind simulates no TLB, so
 * the model estimates an instruction's TLB misses from the misses it
 * does count, as a random access pattern would have them, and prices
 * each at the machine description's walk. And the set an instruction's
 * misses span, which memory's latency grows with.
 */
#include <math.h>
#include <string.h>

#include "model-int.h"

/*
 * Accesses at random over a working set of F bytes miss a cache of C
 * bytes with a chance of 1 - C/F (C < F; none where C >= F): so an
 * instruction's share of misses in a cache of `cache` bytes says F, and
 * with it what a TLB that reaches `reach` bytes misses: acc - reach (acc
 * - miss) / cache, none at least, all its accesses at most, and where the
 * TLB is the smaller, the cache's misses at least. An instruction that
 * hits the cache often (a working set within it, or the nearby accesses
 * of a stream) misses a larger TLB not at all.
 */
double model_tlb_misses(double acc, double miss, double cache, double reach)
{
	double t;

	if (!(acc > 0) || !(cache > 0) || !(reach > 0) || !(miss > 0))
		return 0;
	if (miss > acc)
		miss = acc;
	t = acc - reach * (acc - miss) / cache;
	/* a TLB smaller than the cache misses at least as often */
	if (reach < cache && t < miss)
		t = miss;
	return t < 0 ? 0 : t > acc ? acc : t;
}

/* The walks in a latency measured by a random chase over `bytes` (peak's
 * largest: memory's): the share of its loads a TLB that reaches `reach`
 * misses, at walk cycles each. */
double model_tlb_in_latency(double bytes, double reach, double walk)
{
	if (!(bytes > reach) || !(reach > 0) || !(walk > 0))
		return 0;
	return walk * (1 - reach / bytes);
}

/*
 * The set an instruction's accesses span, for memory's latency by the
 * set's size (model_dram_at): accesses at random over F bytes miss a last
 * level of ll bytes 1 - ll/F of the time, and a TLB of reach bytes 1 -
 * reach/F, so their misses say F. A ring or a chase around one, missed at
 * every step by a cache of LRU lines smaller than it (as Valgrind
 * simulates a cache), says only that F is past it: the bytes the program
 * touched first bound it there. A TLB's misses counted (tlb > 0) say
 * more than the touches where those fall short (none counted, or fewer
 * than the set's pages). At least ll: a miss of the last level is one of
 * a set past it.
 */
double model_set_bytes(double acc, double m3, double ll, double tlb, double reach,
		       double touched)
{
	double by_ll = INFINITY, by_tlb = 0, known, f;

	if (!(acc > 0) || !(ll > 0))
		return ll > 0 ? ll : 0;
	if (m3 < acc)
		by_ll = ll / (1 - (m3 > 0 ? m3 : 0) / acc);
	if (tlb > 0 && reach > 0)
		by_tlb = tlb < acc ? reach / (1 - tlb / acc) : INFINITY;
	known = touched > by_tlb ? touched : by_tlb;
	f = by_ll < known ? by_ll : known;
	return f > ll ? f : ll;
}

/*
 * Memory's latency for a load of a set of `set` bytes: the description's
 * near latency up to its set, its memory latency from its set on, and
 * between them as a chase's grows on a VM with the log of its set (peak's
 * ladder on a Zen 5 VM, one run, cycles a load: 16 MiB 493, 32 MiB 593,
 * 64 MiB 677, 128 MiB 735, 256 MiB 858, the same over 2 MiB pages as
 * over 4 KiB: the host's translation and memory, not the guest's walks).
 * One latency where the description gives no smaller set.
 */
double model_dram_at(const struct machine_costs *mc, double set)
{
	double nb = mc->near_bytes, fb = mc->lat_bytes;

	if (!(nb > 0) || !(fb > nb) || set >= fb)
		return mc->lat[3];
	if (!(set > nb))
		return mc->near_lat;
	return mc->near_lat + (mc->lat[3] - mc->near_lat) * log(set / nb) / log(fb / nb);
}

/*
 * The TLB as the second pass simulates it (issue 40): a cache of pages,
 * reach / page entries, each a line of a page, standing for the last
 * level of that pass (whose first level is L2: it sees L2's misses, and
 * an access that hits L2 is to a page used lately, whose translation a
 * TLB of more entries than L2 has pages' lines keeps). Callgrind wants a
 * power of two of sets: the most ways of 16, 12, 8, 6, 4, 2, 1 that give
 * one (Zen's 2048 entries are 16-way, Intel's STLB's 1536 12-way), else
 * the entries rounded down to a power of two, 8-way. Size 0: no TLB to
 * simulate (a reach under two pages, or no page size).
 */
void model_tlb_geometry(struct cache_geo *g, double reach, unsigned page)
{
	static const unsigned ways[] = { 16, 12, 8, 6, 4, 2, 1 };
	uint64_t entries = page && reach > 0 && reach < 1e15 ? (uint64_t)(reach / page) : 0;

	memset(g, 0, sizeof(*g));
	if (entries < 2)
		return;
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		uint64_t sets = entries / ways[i];

		if (entries % ways[i] == 0 && sets && !(sets & (sets - 1))) {
			g->assoc = ways[i];
			break;
		}
	}
	if (!g->assoc) {
		while (entries & (entries - 1))
			entries &= entries - 1;
		g->assoc = entries >= 8 ? 8 : (unsigned)entries;
	}
	g->size = entries * page;
	g->line = page;
}
