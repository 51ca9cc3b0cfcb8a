/*
 * wl-sym-inline: a symbolization target with known shapes. Built -g -O2.
 * Lines the tests look for carry a LINE:name marker; never hard-code
 * their numbers.
 *   - hot_inner() is always inlined into outer() at LINE:call;
 *   - mangled_function's symbol is the C++ name of foo::bar();
 *   - plain() is an ordinary out-of-line function.
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long hot_inner(unsigned long x)
{
	unsigned long acc = 0, i;

	for (i = 0; i < x; i++)
		acc += (i * i) ^ (acc >> 3) ^ sink; /* LINE:inner */
	return acc;
}

__attribute__((noinline)) unsigned long outer(unsigned long n);
__attribute__((noinline)) unsigned long outer(unsigned long n)
{
	unsigned long r = hot_inner(n); /* LINE:call */

	sink = r;
	return r + 1;
}

/* A C function under a mangled name: demangling is tested without C++. */
__attribute__((noinline)) unsigned long mangled_function(unsigned long n) __asm__("_ZN3foo3barEv");
unsigned long mangled_function(unsigned long n)
{
	return n * 3 + sink;
}

__attribute__((noinline)) unsigned long plain(unsigned long n);
__attribute__((noinline)) unsigned long plain(unsigned long n)
{
	sink += n; /* LINE:plain */
	return sink;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;

	printf("%lu\n", outer(n) + mangled_function(n) + plain(n));
	return 0;
}
