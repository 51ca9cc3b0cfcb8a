/*
 * wl-nofp-chain MS: main -> chain_a -> chain_b -> chain_c for MS
 * milliseconds (default 300), built WITHOUT frame pointers: the kernel's
 * frame-pointer walk (-g) cannot find chain_a and chain_b, while
 * --call-graph dwarf unwinds main;chain_a;chain_b;chain_c from .eh_frame.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t wl_sink;

__attribute__((noinline)) uint64_t chain_c(uint64_t x)
{
	for (int i = 1; i < 4000; i++)
		x += (x * 5 + 3) / (uint64_t)(i | 9); /* HOT chain_c */
	return x;
}

__attribute__((noinline)) uint64_t chain_b(uint64_t x)
{
	x = chain_c(x ^ 0x55);
	wl_sink++;	/* not tail calls: each keeps its frame */
	return x;
}

__attribute__((noinline)) uint64_t chain_a(uint64_t x)
{
	x = chain_b(x + 3);
	wl_sink++;
	return x;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double end = now_ms() + (argc > 1 ? atof(argv[1]) : 300);
	uint64_t x = 1;

	while (now_ms() < end)
		x = chain_a(x);
	wl_sink += x;
	return 0;
}
