/* Shared by the workloads: burn CPU for a wall-clock time. */
#ifndef GX_WL_SPIN_H
#define GX_WL_SPIN_H

#include <stdint.h>
#include <time.h>

static inline uint64_t wl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#define WL_SPIN_BODY(ms)                                                      \
	do {                                                                  \
		volatile uint64_t x_ = 1;                                     \
		uint64_t end_ = wl_now_ms() + (ms);                           \
		while (wl_now_ms() < end_)                                    \
			for (int i_ = 0; i_ < 10000; i_++)                    \
				x_ = x_ * 2862933555777941757ULL + 3037000493ULL; \
	} while (0)

#endif
