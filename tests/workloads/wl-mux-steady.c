/*
 * wl-mux-steady: a steady mix of page faults, context switches and CPU
 * work, the same amount every run, so multiplexed estimates can be held
 * against a plain counting run.
 *
 *   wl-mux-steady [ITERATIONS]     (default 4000, about 0.4 s)
 *
 * Each iteration maps 8 fresh pages, touches them (8 minor faults), unmaps
 * them, spins briefly and every fourth iteration sleeps 50 us (one
 * voluntary context switch).
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PAGES 8

static volatile unsigned long sink;

static void spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i * 7;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 4000;
	long page = 4096;

	for (long i = 0; i < iters; i++) {
		char *p = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (int k = 0; k < PAGES; k++)
			p[k * page] = (char)k;
		munmap(p, PAGES * page);
		spin(20000);
		if (i % 4 == 0) {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
	}
	return 0;
}
