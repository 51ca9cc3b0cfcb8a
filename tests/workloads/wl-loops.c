/*
 * wl-loops [OUTER [INNER]]: a loop nest with known trips for the loops
 * table (tests/e2e/flow.sh): nest() runs its outer loop OUTER times (1000
 * by default) and, each time, its inner loop INNER times (37). The counts
 * come from the command line, so the compiler knows neither; each turn
 * waits for the last (no vectorising, no unrolling into fewer turns).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

volatile uint64_t wl_sink;

__attribute__((noinline)) uint64_t nest(long outer, long inner)
{
	uint64_t s = 1;

	for (long i = 0; i < outer; i++)
		for (long j = 0; j < inner; j++)
			s = s * 31 + (uint64_t)(i ^ j);
	return s;
}

int main(int argc, char **argv)
{
	long outer = argc > 1 ? atol(argv[1]) : 1000, inner = argc > 2 ? atol(argv[2]) : 37;

	wl_sink = nest(outer, inner);
	return 0;
}
