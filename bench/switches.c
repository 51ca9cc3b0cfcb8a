/*
 * bench/switches: a context-switch-heavy workload for bench/offcpu.sh.
 * Two threads pass a byte back and forth over two pipes N times: each
 * round trip blocks both once, so the run switches thousands of times a
 * second. Prints the wall time and the rate:
 *
 *   switches: 20000 round trips in 0.412 s, 97087 waits/s
 *
 * Usage: switches [ROUND_TRIPS]   (default 20000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 20000;

static void *echo(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t th;
	double s;
	char c = 'x';

	if (argc > 1)
		rounds = strtol(argv[1], NULL, 10);
	if (rounds < 1 || pipe(ping) || pipe(pong))
		return 1;
	pthread_create(&th, NULL, echo, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(th, NULL);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("switches: %ld round trips in %.3f s, %.0f waits/s\n", rounds, s, 2 * rounds / s);
	return 0;
}
