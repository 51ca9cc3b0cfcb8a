/*
 * Address translation's price (issue 40): callgrind simulates no TLB, so
 * the model estimates an instruction's TLB misses from the misses it
 * does count, as a random access pattern would have them, and prices
 * each at the machine description's walk.
 */
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
