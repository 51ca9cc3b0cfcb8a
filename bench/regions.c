/*
 * bench/regions: what one marker costs (gexplore-regions(3)), in ns.
 *
 *   bench/regions [N]    N begin/end pairs and N gx_mark() (default 2M)
 *
 * Run plain it measures the library off (GEXPLORE_REGIONS unset); under
 * `gexplore record` (bench/regions.sh runs both) it measures markers
 * going into the ring. Prints one line per measure:
 *   regions: mark NS ns/marker, begin+end NS ns/pair, loop NS ns (active=0|1, lost=N)
 * The ring holds 32768 markers between drains (100 ms): the bench marks
 * in bursts below that and lets gexplore drain between them, so what it
 * times is the marker, not a full ring.
 */
#include <gexplore/regions.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BURST 8192

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	uint64_t t_mark = 0, t_pair = 0, t_loop = 0, t0;
	int active = gx_regions_active();
	long done = 0;

	if (active && n > 200000)
		n = 200000;	/* under gexplore: bursts with drains between them */
	while (done < n) {
		long k = n - done < BURST ? n - done : BURST;

		t0 = now_ns();
		for (long i = 0; i < k; i++)
			sink += (uint64_t)i;
		t_loop += now_ns() - t0;
		t0 = now_ns();
		for (long i = 0; i < k; i++)
			gx_mark("m");
		t_mark += now_ns() - t0;
		if (active)
			usleep(120000);
		t0 = now_ns();
		for (long i = 0; i < k / 2; i++) {
			gx_region_begin("r");
			gx_region_end();
		}
		t_pair += now_ns() - t0;
		if (active)
			usleep(120000);
		done += k;
	}
	printf("regions: mark %.1f ns/marker, begin+end %.1f ns/pair, loop %.1f ns (active=%d, n=%ld)\n",
	       (double)t_mark / (double)n, (double)t_pair / (double)(n / 2),
	       (double)t_loop / (double)n, active, n);
	return 0;
}
