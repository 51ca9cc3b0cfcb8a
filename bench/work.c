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

static __attribute__((noinline)) double multiply_add(long n)
{
	double x0 = 1.0, x1 = 1.1, x2 = 1.2, x3 = 1.3;

	for (long k = 0; k < n; k++) {
		x0 = x0 * 0.999999 + 0.5;
		x1 = x1 * 0.999998 + 0.25;
		x2 = x2 * 0.999997 + 0.125;
		x3 = x3 * 0.999996 + 0.0625;
	}
	return x0 + x1 + x2 + x3;
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
		sink += (uint64_t)multiply_add(1 << 22);
		sink += table_branches(table, 1 << 23);
	}
	printf("work: done (%llu)\n", (unsigned long long)(sink & 0xff));
	return 0;
}
