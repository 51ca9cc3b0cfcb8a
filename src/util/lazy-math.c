/*
 * lazy-math.c: libm opened the first time a math function is called, not
 * linked (issue 26, part 4). Loading libm at start cost every command its
 * mapping, its IFUNC resolvers and its relocations (a quarter of a
 * millisecond here), and a record of /bin/true calls none of its
 * functions. gexplore links this file instead of -lm: it defines the libm
 * functions gexplore calls, under their own names, each a call through the
 * address resolved from libm.so.6 on first use. A test program that links
 * libgx_util.a before -lm takes them from here as gexplore does.
 *
 * libm belongs to the C library's own package: a libc that runs gexplore
 * has it. If it cannot be loaded all the same, there is no value to return
 * (log() has no error path), so the process ends with one line, as xalloc
 * does without memory; tests/structure.sh allows this file that one line.
 */
#include "config.h"

#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define GX_MATH_FNS(X, V, D) \
	X(double, cos, (double x), (x)) \
	X(double, exp, (double x), (x)) \
	X(double, fmax, (double x, double y), (x, y)) \
	X(double, fmin, (double x, double y), (x, y)) \
	X(double, lgamma, (double x), (x)) \
	X(long long, llround, (double x), (x)) \
	X(double, log, (double x), (x)) \
	X(double, log10, (double x), (x)) \
	X(double, log1p, (double x), (x)) \
	X(long, lround, (double x), (x)) \
	X(double, pow, (double x, double y), (x, y)) \
	X(double, sqrt, (double x), (x))

enum { GX_MATH_FNS(GX_LZ_ENUM_, GX_LZ_ENUM_V_, GX_LZ_ENUM_D_) GX_MATH_NR_ };
static const char *const libm_names[] = { GX_MATH_FNS(GX_LZ_NAME_, GX_LZ_NAME_V_, GX_LZ_NAME_D_) };
static void *libm_fns[GX_MATH_NR_];
static struct gx_lazylib libm = { .soname = "libm.so.6", .package = "libc6", .names = libm_names,
				  .fns = libm_fns, .nr = GX_MATH_NR_ };

/* The address of libm's function idx, libm opened at the first call. */
static void *libm_fn(int idx)
{
	void *f = __atomic_load_n(&libm_fns[idx], __ATOMIC_ACQUIRE);
	char *cause = NULL;

	if (f)
		return f;
	if (gx_lazylib__open(&libm, &cause) != 0) {
		fprintf(stderr, "gexplore: %s\n", cause ? cause : "cannot load libm.so.6");
		abort();
	}
	return __atomic_load_n(&libm_fns[idx], __ATOMIC_ACQUIRE);
}

#define GX_MATH_DEF_(ret, name, params, args) \
	ret name params { return ((ret (*) params)libm_fn(GX_LZ_##name)) args; }
GX_MATH_FNS(GX_MATH_DEF_, GX_LZ_NONE_, GX_LZ_NONE_)
