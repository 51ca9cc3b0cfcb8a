/*
 * tap.h: a tiny Test Anything Protocol emitter for unit tests run by
 * Automake's TAP driver. Header-only; every check prints one "ok"/"not ok"
 * line tagged with the caller's file and line, so table-driven tests can
 * pass __LINE__ of the table row through the *_at variants.
 */
#ifndef GX_TAP_H
#define GX_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n_, tap_failed_;

static inline void plan(int n) { printf("1..%d\n", n); fflush(stdout); }
static inline void plan_skip_all(const char *why) { printf("1..0 # SKIP %s\n", why); exit(0); }

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

static inline int tap_ok_(int cond, const char *file, int line, const char *fmt, va_list ap)
{
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n_);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond) {
		printf("#   failed at %s:%d\n", file, line);
		tap_failed_++;
	}
	fflush(stdout);
	return cond;
}

static inline int ok_at(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_ok_(cond, file, line, fmt, ap);
	va_end(ap);
	return r;
}
#define ok(cond, ...) ok_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int_at(got, want, line, ...)                                              \
	do {                                                                         \
		long long g_ = (long long)(got), w_ = (long long)(want);             \
		if (!ok_at(g_ == w_, __FILE__, line, __VA_ARGS__))                   \
			diag("  got %lld, want %lld", g_, w_);                       \
	} while (0)
#define is_int(got, want, ...) is_int_at(got, want, __LINE__, __VA_ARGS__)

#define is_str_at(got, want, line, ...)                                              \
	do {                                                                         \
		const char *g_ = (got), *w_ = (want);                                \
		int c_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_;                \
		if (!ok_at(c_, __FILE__, line, __VA_ARGS__))                         \
			diag("  got '%s', want '%s'", g_ ? g_ : "(null)",            \
			     w_ ? w_ : "(null)");                                    \
	} while (0)
#define is_str(got, want, ...) is_str_at(got, want, __LINE__, __VA_ARGS__)

#define is_double_at(got, want, eps, line, ...)                                      \
	do {                                                                         \
		double g_ = (got), w_ = (want);                                      \
		if (!ok_at(fabs(g_ - w_) <= (eps), __FILE__, line, __VA_ARGS__))     \
			diag("  got %.9g, want %.9g (+- %g)", g_, w_, (double)(eps)); \
	} while (0)
#define is_double(got, want, eps, ...) is_double_at(got, want, eps, __LINE__, __VA_ARGS__)

static inline void skip(int n, const char *why)
{
	while (n-- > 0) {
		printf("ok %d # SKIP %s\n", ++tap_n_, why);
	}
	fflush(stdout);
}

/* End of test: print the plan when none was declared, return the exit code. */
static inline int done_testing(void)
{
	printf("1..%d\n", tap_n_);
	return tap_failed_ ? 1 : 0;
}

static inline int exit_status(void) { return tap_failed_ ? 1 : 0; }

#endif /* GX_TAP_H */
