/*
 * wl-mux-steady: a steady mix of page faults, context switches and CPU
 * work, the same amount every run, so multiplexed estimates can be held
 * against a plain counting run.
 *
 *   wl-mux-steady [ITERATIONS [steady|bursty|periodic]]   (default 4000
 *                                                          steady, about 0.4 s)
 *
 * Each iteration maps 8 fresh pages, touches them (8 minor faults), unmaps
 * them, spins briefly and every fourth iteration sleeps 50 us (one
 * voluntary context switch). bursty and periodic fault as many pages in
 * all, in bursts: bursty 512 pages in one iteration of 64 chosen at
 * random (a fixed seed), periodic 512 pages every 64th iteration (a few
 * milliseconds apart, near the rotation's pace); their sleeps come in
 * bursts alike (16 in a row). For the intervals' coverage test
 * (tests/slow/mux-coverage.sh).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PAGES 8

static volatile unsigned long sink;

static void spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i * 7;
}

#define BURST 64		/* iterations a burst stands for */

static int fault(long pages)
{
	long page = 4096;
	char *p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	for (long k = 0; k < pages; k++)
		p[k * page] = (char)k;
	munmap(p, (size_t)(pages * page));
	return 0;
}

static void nap(int n)
{
	struct timespec ts = { 0, 50000 };

	while (n-- > 0)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 4000;
	const char *mode = argc > 2 ? argv[2] : "steady";
	int bursty = !strcmp(mode, "bursty"), periodic = !strcmp(mode, "periodic");
	long pick = 0;

	srand(26);
	for (long i = 0; i < iters; i++) {
		long at = i % BURST;

		if (at == 0)
			pick = periodic ? 0 : rand() % BURST;
		if (!bursty && !periodic) {
			if (fault(PAGES))
				return 1;
		} else if (at == pick && fault(PAGES * BURST)) {
			return 1;
		}
		spin(20000);
		if (!bursty && !periodic) {
			if (i % 4 == 0)
				nap(1);
		} else if (at == pick) {
			nap(BURST / 4);
		}
	}
	return 0;
}
