/*
 * demo: the bundled example workload for the Quick start. Three phases with
 * different bottlenecks, each in its own function, so a profile has
 * something to explain: a pointer chase (memory latency), an unpredictable
 * branch (bad speculation) and a dense arithmetic loop (retiring).
 *
 *   demo [SECONDS]   run rounds of the three phases for SECONDS (default 1)
 *   demo -n ROUNDS   run exactly ROUNDS rounds: a fixed amount of work, so
 *                    that a slower run takes longer (bench/overhead)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NODES (1u << 21)	/* 16 MiB of next pointers: larger than most caches */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A random cyclic permutation: each load depends on the one before. */
static __attribute__((noinline)) uint64_t chase_pointers(const uint32_t *next, long steps)
{
	uint32_t i = 0;

	while (steps--)
		i = next[i];
	return i;
}

/* Branches on random bits: the predictor cannot learn them. */
static __attribute__((noinline)) uint64_t unpredictable_branches(const uint8_t *bits, long n)
{
	uint64_t a = 0, b = 0;

	for (long k = 0; k < n; k++) {
		if (bits[k & (NODES - 1)] & 1)
			a += (uint64_t)k;
		else
			b ^= (uint64_t)k;
	}
	return a + b;
}

/* Independent multiply-adds: the core retires them at full width. */
static __attribute__((noinline)) double dense_arithmetic(long n)
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

int main(int argc, char **argv)
{
	double seconds = 1.0, end;
	long rounds = -1;
	uint32_t *next = malloc(NODES * sizeof(*next));
	uint8_t *bits = malloc(NODES);
	uint64_t sink = 0, seed = 88172645463325252ULL;

	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'n' && !argv[1][2])
		rounds = atol(argv[2]);
	else if (argc > 1)
		seconds = atof(argv[1]);
	if (!next || !bits)
		return 1;
	for (uint32_t k = 0; k < NODES; k++) {
		next[k] = k;
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		bits[k] = (uint8_t)seed;
	}
	/* Sattolo's shuffle: one cycle through every node. */
	for (uint32_t k = NODES - 1; k > 0; k--) {
		uint32_t j, t;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		j = (uint32_t)(seed % k);
		t = next[k], next[k] = next[j], next[j] = t;
	}
	end = now() + seconds;
	while (rounds < 0 ? now() < end : rounds-- > 0) {
		sink += chase_pointers(next, 1 << 20);
		sink += unpredictable_branches(bits, 1 << 22);
		sink += (uint64_t)dense_arithmetic(1 << 22);
	}
	printf("demo: done (%llu)\n", (unsigned long long)(sink & 0xff));
	free(next);
	free(bits);
	return 0;
}
