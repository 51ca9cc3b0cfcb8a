/*
 * phases: a program that tells gexplore its phases (gexplore-regions(3)).
 * Three marked phases, each hot in its own function:
 *
 *   load   fill_table   writes a large table (stores, memory bandwidth)
 *   solve  relax        arithmetic over the table (compute)
 *   write  checksum     reads it back (loads)
 *
 * and a gx_mark() per round. `gexplore record -- examples/phases` then
 * `gexplore report --by region` shows each phase's share and hot function.
 *
 *   phases [ROUNDS]   (default 3; each round is about 0.2 s)
 */
#include <gexplore/regions.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 22)	/* 32 MiB of doubles */

static __attribute__((noinline, noclone)) void fill_table(double *t, unsigned reps)
{
	for (unsigned r = 0; r < reps; r++)
		for (uint32_t i = 0; i < N; i++)
			t[i] = (double)(i ^ r) * 0.5;
}

static __attribute__((noinline, noclone)) double relax(double *t, unsigned reps)
{
	double acc = 0;

	for (unsigned r = 0; r < reps; r++)
		for (uint32_t i = 1; i < N / 16; i++) {
			double x = t[i] * 1.0000001 + t[i - 1] * 0.25;

			for (int k = 0; k < 8; k++)
				x = x * 0.999 + 1.0 / (x + 3.0);
			t[i] = x;
			acc += x;
		}
	return acc;
}

static __attribute__((noinline, noclone)) double checksum(const double *t, unsigned reps)
{
	double s = 0;

	for (unsigned r = 0; r < reps; r++)
		for (uint32_t i = 0; i < N; i += 2)
			s += t[i] * (double)(r + 1);
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	double *t = malloc(N * sizeof(*t)), sum = 0;

	if (!t)
		return 1;
	/* Touch the table once before the first phase: the kernel's page
	 * faults (zeroing 32 MiB) then fall outside "load", whose hot code is
	 * fill_table's stores, not the first-touch faults. Not zero: the
	 * compiler turns malloc + memset 0 into calloc, which touches nothing. */
	memset(t, 1, N * sizeof(*t));
	for (int k = 0; k < rounds; k++) {
		gx_mark("round");
		gx_region_begin("load");
		fill_table(t, 20);
		gx_region_end();

		gx_region_begin("solve");
		sum += relax(t, 3);
		gx_region_end();

		gx_region_begin("write");
		sum += checksum(t, 10);
		gx_region_end();
	}
	printf("phases: %d rounds, checksum %g\n", rounds, sum);
	free(t);
	return 0;
}
