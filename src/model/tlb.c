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
 * instruction's share of misses in L2 (l2 bytes) says F, and with it what
 * a TLB that reaches `reach` bytes misses: acc - reach (acc - l2miss) /
 * l2, no fewer than none and no more than its L2 misses. An instruction
 * that hits L2 often (a working set in L2, or the nearby accesses of a
 * stream) misses the TLB not at all: its working set, so measured, is
 * within the reach.
 */
double model_tlb_misses(double acc, double l2miss, double l2, double reach)
{
	double t;

	if (!(acc > 0) || !(l2 > 0) || !(reach > l2) || !(l2miss > 0))
		return 0;
	if (l2miss > acc)
		l2miss = acc;
	t = acc - reach * (acc - l2miss) / l2;
	return t < 0 ? 0 : t > l2miss ? l2miss : t;
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
