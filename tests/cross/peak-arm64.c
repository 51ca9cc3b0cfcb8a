/*
 * peak-arm64: run every aarch64 peak kernel once, on an Arm CPU or under
 * qemu-aarch64, and check what can be checked without timing them: each
 * kernel returns (no illegal instruction: the NEON and GPR kernels must not
 * touch SVE, and run on a CPU without it) and stays inside the 8 KiB buffer
 * peak.c gives it (a guard page follows), the chase ends where the ring
 * says, the bandwidth kernels copy, fill and compute the triad exactly.
 * Cross-built by tests/e2e/peak-arm64.sh; prints TAP.
 *
 * The SVE kernels run when the CPU has SVE (HWCAP), at its vector length.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "peak/peak-int.h"

static int n_test, n_fail;

static void ok(int cond, const char *fmt, const char *name)
{
	n_test++;
	if (!cond)
		n_fail++;
	printf("%sok %d - ", cond ? "" : "not ", n_test);
	printf(fmt, name);
	printf("\n");
}

static void reset(uint64_t *buf)
{
	memset(buf, 0, 8192);
	buf[0] = (uint64_t)(uintptr_t)buf;
}

/* The ring the chase follows: slot i points at slot (i * 7 + 1) % n. */
static void test_chase(void)
{
	enum { N = 1000 };
	void **ring = calloc(N, sizeof(void *));
	pk_chase_fn chase;
	size_t at = 0;
	void *end;

	for (size_t i = 0; i < N; i++)
		ring[i] = &ring[(i * 7 + 1) % N];
	chase = (pk_chase_fn)pk_chase_kernel();
	end = chase(5, ring);			/* 5 iterations of 96 loads */
	for (int k = 0; k < 5 * PK_BODY; k++)
		at = (at * 7 + 1) % N;
	ok(end == &ring[at], "%s: the chase stops where the ring says", "load.gpr lat");
	free(ring);
}

/* The branch kernel reads every byte it is given and returns how many
 * were 0 (the branch not taken). */
static void test_branch(void)
{
	enum { N = 1000 };
	unsigned char *b = calloc(N, 1);
	uint64_t (*fn)(uint64_t, const void *);
	uint64_t zeros = 0, want;

	for (size_t i = 0; i < N; i++) {
		b[i] = (unsigned char)(i % 3 == 0);
		zeros += i % 3 != 0;
	}
	fn = (uint64_t (*)(uint64_t, const void *))pk_branch_kernel();
	ok(fn && fn(N, b) == zeros, "%s: counts the bytes that are 0", "branch");
	/* the indirect kernel: each of the 16 targets adds 1, and 1 for each
	 * bit of its number its branches saw set */
	want = 0;
	for (size_t i = 0; i < N; i++) {
		b[i] = (unsigned char)(i * 7 % 251);
		want += 1 + (uint64_t)__builtin_popcount(b[i] & 15);
	}
	fn = (uint64_t (*)(uint64_t, const void *))pk_indirect_kernel();
	ok(fn && fn(N, b) == want, "%s: every target counts its jump and its branches",
	   "indirect");
	free(b);
}

static void test_bandwidth(void)
{
	enum { BYTES = 1 << 14 };
	const struct pk_bwk *bw = pk_bw_kernels(PK_BASE | PK_NEON);
	double *a = aligned_alloc(64, BYTES), *b = aligned_alloc(64, BYTES);
	double *c = aligned_alloc(64, BYTES);
	size_t n = BYTES / sizeof(double);
	int good;

	if (!bw || !bw->read) {
		ok(0, "%s: no bandwidth kernels", "neon");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		b[i] = (double)i;
		c[i] = 0.5 * (double)(n - i);
		a[i] = -1;
	}
	bw->read(b, BYTES, 3);
	ok(1, "%s: read returns", bw->isa_name);
	bw->copy(a, b, BYTES, 2);
	ok(!memcmp(a, b, BYTES), "%s: copy copies every byte", bw->isa_name);
	bw->triad(a, b, c, BYTES, 2, 3.0);
	good = 1;
	for (size_t i = 0; i < n; i++)
		good &= a[i] == b[i] + 3.0 * c[i];
	ok(good, "%s: triad computes a = b + s * c", bw->isa_name);
	memset(a, 0xff, BYTES);
	bw->write(a, BYTES, 2);
	good = 1;
	for (size_t i = 0; i < n; i++)
		good &= a[i] == 0;
	ok(good, "%s: write fills the buffer", bw->isa_name);
	free(a);
	free(b);
	free(c);
}

#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif

int main(void)
{
	int sve = (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
	size_t nt, nm;
	const struct pk_test *t = pk_tests(&nt);
	const struct pk_mixk *m = pk_mixes(&nm);
	/* peak.c's buffer: 8 KiB, word 0 pointing at itself; then a guard page */
	char *map = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *buf = (uint64_t *)map;
	char name[96];

	setvbuf(stdout, NULL, _IONBF, 0);
	if (map == MAP_FAILED || mprotect(map + 8192, 4096, PROT_NONE)) {
		printf("Bail out! no buffer\n");
		return 1;
	}
	printf("# %zu kernels, %zu mixes; SVE kernels: %s\n", nt, nm, sve ? "at this vector length" : "none");
	ok(nt > 20, "%s: the kernel table is there", "aarch64");
	for (size_t i = 0; i < nt; i++) {
		if ((t[i].isa & PK_SVE) && !sve)
			continue;
		reset(buf);
		if (t[i].lat) {
			t[i].lat(3, buf);
			reset(buf);
			snprintf(name, sizeof(name), "%s lat", t[i].name);
			ok(1, "%s returns", name);
		}
		t[i].tput(3, buf);
		snprintf(name, sizeof(name), "%s tput", t[i].name);
		ok(1, "%s returns", name);
	}
	for (size_t i = 0; i < nm; i++) {
		reset(buf);
		m[i].a(3, buf);
		reset(buf);
		m[i].b(3, buf);
		reset(buf);
		m[i].ab(3, buf);
		ok(1, "mix %s: a, b and a+b return", m[i].name);
	}
	pk_clock_kernel()(3, buf);
	ok(1, "%s returns", "the clock kernel");
	test_chase();
	test_branch();
	test_bandwidth();
	printf("1..%d\n", n_test);
	munmap(map, 3 * 4096);
	return n_fail ? 1 : 0;
}
