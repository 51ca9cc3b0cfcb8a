/*
 * wl-hot-threads MS: two worker threads and the main thread spin for MS
 * milliseconds (default 300). Each round calls hot_div (three parts of the
 * work) and hot_mul (one part). The lines marked HOT are where the time goes;
 * tests find them with grep, so keep each marker on the line it names.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t wl_sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) uint64_t hot_div(uint64_t x, int n)
{
	uint64_t acc = x | 1;

	for (int i = 1; i <= n; i++)
		acc += (acc * 7 + 12345) / (uint64_t)(i | 3) + (acc % (uint64_t)(i + 17)); /* HOT hot_div */
	return acc;
}

__attribute__((noinline)) uint64_t hot_mul(uint64_t x, int n)
{
	uint64_t acc = x;

	for (int i = 1; i <= n; i++)
		acc = ((((acc ^ (acc >> 7)) * 0x9e3779b97f4a7c15ull + (uint64_t)i) * 0xff51afd7ed558ccdull) ^ (acc >> 13)) * 0xc4ceb9fe1a85ec53ull; /* HOT hot_mul */
	return acc;
}

static double end_ms;

__attribute__((noinline)) void *worker(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg;

	while (now_ms() < end_ms) {
		x = hot_div(x, 3000);
		x ^= hot_mul(x, 3000);
	}
	wl_sink += x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	end_ms = now_ms() + (argc > 1 ? atof(argv[1]) : 300);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	worker((void *)(uintptr_t)7);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
