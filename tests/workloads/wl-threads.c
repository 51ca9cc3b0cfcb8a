/*
 * wl-threads [N [MS]]: N threads (default 4, at most 8), each spinning for
 * MS milliseconds (default 200) in its own function spin_thread_<i>, so
 * profiles can check that every thread and function shows up.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

static unsigned spin_ms = 200;

#define SPIN_FN(i)                                   \
	void *spin_thread_##i(void *arg);             \
	void *spin_thread_##i(void *arg)              \
	{                                             \
		WL_SPIN_BODY(spin_ms);                \
		return arg;                           \
	}
SPIN_FN(0)
SPIN_FN(1)
SPIN_FN(2)
SPIN_FN(3)
SPIN_FN(4)
SPIN_FN(5)
SPIN_FN(6)
SPIN_FN(7)

static void *(*const fns[])(void *) = {
	spin_thread_0, spin_thread_1, spin_thread_2, spin_thread_3,
	spin_thread_4, spin_thread_5, spin_thread_6, spin_thread_7,
};

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[8];

	if (argc > 2)
		spin_ms = (unsigned)atoi(argv[2]);
	if (n < 1 || n > 8) {
		fprintf(stderr, "wl-threads: N must be 1..8\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fns[i], NULL)) {
			fprintf(stderr, "wl-threads: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
