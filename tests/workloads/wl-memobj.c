/*
 * wl-memobj [ITER]: data whose addresses a memory profile names
 * (tests/e2e/mem.sh): a global table read in order (mo_table), a static
 * one (mo_static, in .bss), and two threads that each bump their own
 * counter of one shared struct (mo_pair): false sharing, the two counters
 * on one cache line. Prints the addresses it touched, so a test can hold
 * a profile's data objects against them.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TABLE 4096

uint64_t mo_table[TABLE] = { 1 };
static uint64_t mo_static[TABLE];
struct mo_pair {
	volatile uint64_t a;	/* thread 1 writes this */
	volatile uint64_t b;	/* thread 2 this: the same 64-byte line */
} __attribute__((aligned(64)));
struct mo_pair mo_pair;
volatile uint64_t mo_sink;

__attribute__((noinline)) uint64_t mo_sum(long iter)
{
	uint64_t s = 0;

	for (long k = 0; k < iter; k++)
		for (size_t i = 0; i < TABLE; i++)
			s += mo_table[i] + mo_static[i];
	return s;
}

__attribute__((noinline)) static void *mo_bump_a(void *arg)
{
	for (long i = 0; i < (long)(intptr_t)arg; i++)
		mo_pair.a++;
	return NULL;
}

__attribute__((noinline)) static void *mo_bump_b(void *arg)
{
	for (long i = 0; i < (long)(intptr_t)arg; i++)
		mo_pair.b++;
	return NULL;
}

int main(int argc, char **argv)
{
	long iter = argc > 1 ? atol(argv[1]) : 100;
	pthread_t t1, t2;

	for (size_t i = 0; i < TABLE; i++)
		mo_static[i] = i;
	mo_sink = mo_sum(iter);
	pthread_create(&t1, NULL, mo_bump_a, (void *)(intptr_t)(iter * 1000));
	pthread_create(&t2, NULL, mo_bump_b, (void *)(intptr_t)(iter * 1000));
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("mo_table %p mo_static %p mo_pair %p\n", (void *)mo_table, (void *)mo_static,
	       (void *)&mo_pair);
	return 0;
}
