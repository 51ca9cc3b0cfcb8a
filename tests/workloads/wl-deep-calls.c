/*
 * wl-deep-calls MS: main -> deep_1 -> ... -> deep_6 -> deep_rec (recursive,
 * 12 levels) -> deep_leaf, for MS milliseconds (default 300). Nearly every
 * sample is under main, so with call stacks main's total is ~100%, and the
 * recursion must be counted once per sample. deep_leaf's marked line is hot.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t wl_sink;

__attribute__((noinline)) uint64_t deep_leaf(uint64_t x)
{
	for (int i = 1; i < 2000; i++)
		x += (x * 3 + 7) / (uint64_t)(i | 5); /* HOT deep_leaf */
	return x;
}

__attribute__((noinline)) uint64_t deep_rec(uint64_t x, int depth)
{
	if (depth == 0)
		return deep_leaf(x);
	x = deep_rec(x + 1, depth - 1);
	wl_sink++;	/* not a tail call: keeps the frame */
	return x;
}

#define DEEP(n, next)                                              \
	__attribute__((noinline)) uint64_t deep_##n(uint64_t x)    \
	{                                                          \
		x = next;                                          \
		wl_sink++;                                         \
		return x;                                          \
	}
DEEP(6, deep_rec(x, 12))
DEEP(5, deep_6(x))
DEEP(4, deep_5(x))
DEEP(3, deep_4(x))
DEEP(2, deep_3(x))
DEEP(1, deep_2(x))

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
		x = deep_1(x);
	wl_sink += x;
	return 0;
}
