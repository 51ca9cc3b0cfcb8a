/*
 * wl-mux-phases: two phases in two threads, one after the other: a thread
 * that faults pages, then a thread that only computes. With slices as long
 * as a phase, each group sees one phase only: the rows of both threads
 * must come out unreliable.
 *
 *   wl-mux-phases [FAULT_ITERATIONS [COMPUTE_MS]]   (default 0, 300)
 *
 * FAULT_ITERATIONS 0 faults for COMPUTE_MS of wall-clock time, so that the
 * phases follow the clock (and the slices) whatever the machine's load;
 * a positive number faults exactly that many times (16 pages each), for
 * totals that repeat from run to run.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PAGES 16

static volatile unsigned long sink;
static long fault_iters;
static long compute_ms = 300;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *fault_phase(void *arg)
{
	long page = 4096;

	double end = now_s() + (double)compute_ms / 1000.0;

	(void)arg;
	for (long i = 0; fault_iters ? i < fault_iters : now_s() < end; i++) {
		char *p = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		for (int k = 0; k < PAGES; k++)
			p[k * page] = (char)k;
		munmap(p, PAGES * page);
		for (unsigned j = 0; j < 20000; j++)
			sink += j;
	}
	return NULL;
}

static void *compute_phase(void *arg)
{
	double end = now_s() + (double)compute_ms / 1000.0;

	(void)arg;
	while (now_s() < end)
		for (unsigned j = 0; j < 100000; j++)
			sink += j * 3;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		fault_iters = atol(argv[1]);
	if (argc > 2)
		compute_ms = atol(argv[2]);
	if (pthread_create(&t, NULL, fault_phase, NULL) || pthread_join(t, NULL))
		return 1;
	if (pthread_create(&t, NULL, compute_phase, NULL) || pthread_join(t, NULL))
		return 1;
	return 0;
}
