/*
 * bench/work: a fixed amount of CPU work that stays in the L1 cache, in
 * three functions, for bench/overhead.
 *
 *   work [ROUNDS]   (default 100, about 1 s)
 *
 * The bundled demo chases pointers through 16 MiB: on a shared machine
 * its run time follows the neighbours' memory traffic (seen: 0.4 to 1.2 s
 * for the same work on one VM), which drowns an overhead of 1%. This work
 * does not leave the core, so the same runs agree to about 2%.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) uint64_t hash_words(uint64_t seed, long n)
{
	uint64_t h = seed;

	for (long k = 0; k < n; k++)
		h = (h ^ (uint64_t)k) * 0x100000001b3ULL;
	return h;
}

/* A cubic evaluated by Horner's rule at 1024 points, over and over. */
static __attribute__((noinline)) double cubic_sum(long n)
{
	double sum = 0;

	for (long k = 0; k < n; k++) {
		double x = (double)(k & 1023) * (1.0 / 1024);

		sum += ((0.25 * x - 1.5) * x + 3.0) * x + 0.5;
	}
	return sum;
}

/* Branches on a 4 KiB table of bits: cache-resident, partly predictable. */
static __attribute__((noinline)) uint64_t table_branches(const uint8_t *t, long n)
{
	uint64_t a = 0, b = 0;

	for (long k = 0; k < n; k++) {
		if (t[k & 4095] & 1)
			a += (uint64_t)k;
		else
			b ^= (uint64_t)k;
	}
	return a + b;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	uint8_t table[4096];
	uint64_t sink = 0, seed = 88172645463325252ULL;

	for (size_t k = 0; k < sizeof(table); k++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		table[k] = (uint8_t)seed;
	}
	while (rounds-- > 0) {
		sink += hash_words(sink, 1 << 23);
		sink += (uint64_t)cubic_sum(1 << 22);
		sink += table_branches(table, 1 << 23);
	}
	printf("work: done (%llu)\n", (unsigned long long)(sink & 0xff));
	return 0;
}
