/*
 * wl-regions: markers from several threads and a forked child, with known
 * hot functions inside each region (tests/e2e/regions.sh).
 *
 *   main thread    "outer" { "inner" { spin_inner 150 ms } spin_outer 100 ms }
 *   2 threads      "worker" { spin_worker 200 ms }     (each its own tid)
 *   forked child   "child"  { spin_child 200 ms }      (its own pid)
 *   gx_mark("start") once, and gx_pause()/gx_resume() around 150 ms of
 *   spin_paused when given "pause" as argument.
 * "flood N" instead: N gx_mark("flood") as fast as it can, and nothing
 * else (the ring of 32768 overflows between two drains).
 */
#include <gexplore/regions.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin.h"

static __attribute__((noinline)) void spin_inner(void) { WL_SPIN_BODY(150); }
static __attribute__((noinline)) void spin_outer(void) { WL_SPIN_BODY(100); }
static __attribute__((noinline)) void spin_worker(void) { WL_SPIN_BODY(200); }
static __attribute__((noinline)) void spin_child(void) { WL_SPIN_BODY(200); }
static __attribute__((noinline)) void spin_paused(void) { WL_SPIN_BODY(150); }
static __attribute__((noinline)) void spin_free(void) { WL_SPIN_BODY(50); }

static void *worker(void *arg)
{
	(void)arg;
	gx_region_begin("worker");
	spin_worker();
	gx_region_end();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	pid_t child;
	int st;

	if (argc > 2 && !strcmp(argv[1], "flood")) {
		long n = atol(argv[2]);

		for (long i = 0; i < n; i++)
			gx_mark("flood");
		return 0;
	}
	gx_mark("start");
	spin_free();
	gx_region_begin("outer");
	gx_region_begin("inner");
	spin_inner();
	gx_region_end();
	spin_outer();
	gx_region_end();

	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);

	child = fork();
	if (child == 0) {
		gx_region_begin("child");
		spin_child();
		gx_region_end();
		_exit(0);
	}
	waitpid(child, &st, 0);

	if (argc > 1 && !strcmp(argv[1], "pause")) {
		gx_pause();
		spin_paused();
		gx_resume();
	}
	spin_free();
	return 0;
}
