/*
 * The shared object of wl-fde: wl_fde_lib_run(MS) spins for MS
 * milliseconds in two static functions, lib_hot_a and lib_hot_b, and in
 * itself; lib_hot_a's loop is the cheapest per step, so it takes 8 times
 * the steps (at 1x it had 1.9% of the run, under fde.sh's 2% bar).
 * Stripped, .dynsym still names wl_fde_lib_run; only .eh_frame tells
 * where the static ones start.
 */
#include <stdint.h>
#include <time.h>

static volatile uint64_t lib_sink;

static double lib_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline, noclone)) static void lib_hot_a(unsigned n)
{
	for (unsigned i = 0; i < 8 * n; i++)
		lib_sink += (uint64_t)i * 40503u;
}

__attribute__((noinline, noclone)) static void lib_hot_b(unsigned n)
{
	for (unsigned i = 0; i < 2 * n; i++)
		lib_sink ^= (uint64_t)i * 7 + (lib_sink >> 3);
}

void wl_fde_lib_run(double ms);

void wl_fde_lib_run(double ms)
{
	double end = lib_now_ms() + ms;

	while (lib_now_ms() < end) {
		lib_hot_a(20000);
		lib_hot_b(20000);
		for (unsigned i = 0; i < 20000; i++)	/* in wl_fde_lib_run itself */
			lib_sink += i ^ (lib_sink << 1);
	}
}
