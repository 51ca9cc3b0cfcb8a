/*
 * wl-spin MS [EXIT]: spin for MS milliseconds in two known functions
 * (hot_outer calls hot_inner), then exit with EXIT (default 0).
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

volatile uint64_t wl_sink;

__attribute__((noinline)) void hot_inner(void)
{
	for (int i = 0; i < 100000; i++)
		wl_sink += (uint64_t)i * 2654435761u;
}

__attribute__((noinline)) void hot_outer(void)
{
	hot_inner();
	for (int i = 0; i < 50000; i++)
		wl_sink ^= (uint64_t)i;
}

int main(int argc, char **argv)
{
	double end = now_ms() + (argc > 1 ? atof(argv[1]) : 200);

	while (now_ms() < end)
		hot_outer();
	return argc > 2 ? atoi(argv[2]) : 0;
}
