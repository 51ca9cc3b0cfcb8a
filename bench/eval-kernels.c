/*
 * eval-kernels KERNEL SCALE: bench/model's evaluation kernels (issue 40),
 * written apart from tests/workloads/wl-model.c so that nothing in the
 * model is tuned on them. Each does SCALE times the same work after a
 * setup that does not depend on SCALE (bench/model compares two scales:
 * the setup cancels). Deterministic: data from a fixed xorshift, no clock.
 *
 *   imul_chain   a dependent integer chain (multiply, shift, xor)
 *   fma_indep    ten independent FMA chains (FMA3 where the CPU has it)
 *   walk_16k, walk_256k, walk_4m, walk_16m, walk_128m
 *                a random walk over nodes of 64 bytes in a heap block of
 *                that size (L1, L2, L3 within the TLB's reach, L3 past
 *                the reach of a 2048-entry TLB of 4 KiB pages, memory)
 *   coin         a branch on random bytes, taken half the time at random
 *   sum_stream   a sum of 32 MiB of 32-bit integers, front to back
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile uint64_t ek_sink;
volatile double ek_dsink;

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

__attribute__((noinline)) uint64_t imul_chain(uint64_t x, long n)
{
	for (long i = 0; i < n; i++)
		x = (x * 0x2545F4914F6CDD1DULL) ^ (x >> 31);
	return x;
}

#define FMA_BODY(F)                                                            \
	double a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, a6 = 7, a7 = 8; \
	double a8 = 9, a9 = 10;                                                \
	for (long i = 0; i < n; i++) {                                         \
		a0 = F(a0, 0.9999995, 3e-7), a1 = F(a1, 0.9999995, 3e-7);      \
		a2 = F(a2, 0.9999995, 3e-7), a3 = F(a3, 0.9999995, 3e-7);      \
		a4 = F(a4, 0.9999995, 3e-7), a5 = F(a5, 0.9999995, 3e-7);      \
		a6 = F(a6, 0.9999995, 3e-7), a7 = F(a7, 0.9999995, 3e-7);      \
		a8 = F(a8, 0.9999995, 3e-7), a9 = F(a9, 0.9999995, 3e-7);      \
	}                                                                      \
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9

__attribute__((noinline, target("fma"))) double fma_indep3(long n)
{
	FMA_BODY(__builtin_fma);
}

static double mul_add(double a, double b, double c)
{
	return a * b + c;
}

__attribute__((noinline)) double fma_plain(long n)
{
	FMA_BODY(mul_add);
}

struct node {
	struct node *next;
	uint64_t pad[7];
};

/* a single random cycle through the nodes (Sattolo's shuffle) */
static struct node *make_walk(size_t bytes)
{
	size_t n = bytes / sizeof(struct node);
	struct node *v = aligned_alloc(4096, n * sizeof(*v));
	uint32_t *ord = malloc(n * sizeof(*ord));
	uint64_t s = 88172645463325252ULL;

	if (!v || !ord)
		exit(2);
	memset(v, 0, n * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = xs(&s) % i;
		uint32_t t = ord[i];

		ord[i] = ord[j];
		ord[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		v[ord[i]].next = &v[ord[(i + 1) % n]];
	free(ord);
	return v;
}

__attribute__((noinline)) struct node *walk(struct node *p, long steps)
{
	while (steps-- > 0)
		p = p->next;
	return p;
}

__attribute__((noinline)) uint64_t coin(const uint8_t *b, size_t n)
{
	uint64_t hi = 0, lo = 0;

	for (size_t i = 0; i < n; i++) {
		if (b[i] >= 128)
			hi += b[i];
		else
			lo += (uint64_t)b[i] << 1;
	}
	return hi * 3 + lo;
}

__attribute__((noinline)) uint64_t sum_stream(const uint32_t *v, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void walk_kernel(size_t bytes, long sc)
{
	struct node *v = make_walk(bytes);

	ek_sink = (uint64_t)(uintptr_t)walk(v, 250000 * sc);
	free(v);
}

int main(int argc, char **argv)
{
	const char *k = argc > 1 ? argv[1] : "";
	long sc = argc > 2 ? atol(argv[2]) : 1;

	if (sc < 1)
		sc = 1;
	if (!strcmp(k, "imul_chain")) {
		ek_sink = imul_chain(12345, 500000 * sc);
	} else if (!strcmp(k, "fma_indep")) {
		__builtin_cpu_init();
		ek_dsink = __builtin_cpu_supports("fma") ? fma_indep3(40000 * sc) :
							    fma_plain(40000 * sc);
	} else if (!strcmp(k, "walk_16k")) {
		walk_kernel(16 << 10, sc);
	} else if (!strcmp(k, "walk_256k")) {
		walk_kernel(256 << 10, sc);
	} else if (!strcmp(k, "walk_4m")) {
		walk_kernel(4 << 20, sc);
	} else if (!strcmp(k, "walk_16m")) {
		walk_kernel(16 << 20, sc);
	} else if (!strcmp(k, "walk_128m")) {
		walk_kernel(128 << 20, sc);
	} else if (!strcmp(k, "coin")) {
		size_t n = 1 << 18;
		uint8_t *b = malloc(n);
		uint64_t s = 2463534242ULL;

		if (!b)
			exit(2);
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)xs(&s);
		for (long r = 0; r < sc; r++)
			ek_sink += coin(b, n);
		free(b);
	} else if (!strcmp(k, "sum_stream")) {
		size_t n = (32 << 20) / 4;
		uint32_t *v = malloc(n * 4);

		if (!v)
			exit(2);
		for (size_t i = 0; i < n; i++)
			v[i] = (uint32_t)(i * 2654435761u);
		for (long r = 0; r < sc; r++)
			ek_sink += sum_stream(v, n);
		free(v);
	} else {
		fprintf(stderr, "eval-kernels: unknown kernel '%s'\n", k);
		return 2;
	}
	return 0;
}
