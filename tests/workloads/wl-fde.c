/*
 * wl-fde MS [LIB]: spin for MS milliseconds (default 300) in three hot
 * functions that are never inlined, fde_one, fde_two and fde_three, in
 * the proportion 1:2:3 of their work; with LIB, a shared object with
 * wl_fde_lib_run (tests/workloads/wl-fde-lib.c), spin as long again in it.
 * Stripped, nothing but .eh_frame tells where each function starts.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t wl_sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline, noclone)) void fde_one(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		wl_sink += (uint64_t)i * 2654435761u;
}

__attribute__((noinline, noclone)) void fde_two(unsigned n)
{
	for (unsigned i = 0; i < 2 * n; i++)
		wl_sink ^= (uint64_t)i << (i & 7);
}

__attribute__((noinline, noclone)) void fde_three(unsigned n)
{
	for (unsigned i = 0; i < 3 * n; i++)
		wl_sink = wl_sink * 31 + i;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300, end = now_ms() + ms;

	while (now_ms() < end) {
		fde_one(20000);
		fde_two(20000);
		fde_three(20000);
	}
	if (argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*run)(double);

		if (!h) {
			fprintf(stderr, "wl-fde: %s\n", dlerror());
			return 1;
		}
		*(void **)&run = dlsym(h, "wl_fde_lib_run");
		if (!run) {
			fprintf(stderr, "wl-fde: %s has no wl_fde_lib_run\n", argv[2]);
			return 1;
		}
		run(ms);
	}
	return 0;
}
