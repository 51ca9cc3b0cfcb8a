/*
 * wl-loop [HOT [COLD]]: the arm64 guest's workload of known instruction
 * count. hot_loop runs HOT iterations (default 37,500,000: 300 M
 * instructions), then cold_loop COLD (default HOT / 10), both 8
 * instructions per iteration (wl-loop.S). Static, so the whole process
 * retires only a few thousand instructions more than the loops: the tests
 * compare counts with 8 * (HOT + COLD) and allow 0.1%.
 */
#include <stdio.h>
#include <stdlib.h>

void hot_loop(unsigned long n);
void cold_loop(unsigned long n);

int main(int argc, char **argv)
{
	unsigned long hot = argc > 1 ? strtoul(argv[1], NULL, 0) : 37500000UL;
	unsigned long cold = argc > 2 ? strtoul(argv[2], NULL, 0) : hot / 10;

	if (hot)
		hot_loop(hot);
	if (cold)
		cold_loop(cold);
	return 0;
}
