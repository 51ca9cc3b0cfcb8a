/*
 * icache.c: what an instruction-cache miss costs on a predicted path. Code
 * written here at run time: a chain of jumps, each in a 64-byte line of its
 * own, to the next in a shuffled order, the last one looping back until a
 * count runs out. Over 4096 lines (256 KiB: beyond any L1I, within any L2)
 * each jump lands on a line the L1I no longer holds; over 64 (4 KiB) on one
 * it holds. Every jump is direct and goes the same way every time, so the
 * branch predictor knows the path and the front end fetches ahead of it,
 * overlapping fills as it does on a program's predicted path. The
 * difference a jump is what one L1I miss that L2 serves costs there;
 * `record --model` prices callgrind's simulated I1 misses by it (L2's data
 * latency less L1's, 10 cycles on Zen 5, was what it charged: a test like
 * this one measured 1-7).
 *
 * A miss on a sequential path costs less: the front end fetches the next
 * lines before it needs them. Straight-line code (16 four-byte nops a
 * line), over 3072 lines (192 KiB, in L2) and over 448 (28 KiB: within
 * any L1I, past any op cache, so that both are decoded), differs a line
 * by what such a miss costs (0.4 cycles on a Zen 3 VM, where a jump to a
 * line L2 holds costs 20): `record --model` prices a simulated I1 miss
 * inside a block (the run went on into its next line) by it, one at a
 * block's first instruction (a jump or a branch led there) by the first.
 *
 * x86-64 and AArch64; elsewhere, or where no memory may be made executable,
 * the test is skipped.
 */
#include "config.h"

#include "peak-int.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define IC_LINE 64
#define IC_BIG 4096		/* lines: 256 KiB */
#define IC_SMALL 64		/* lines: 4 KiB */
#define IC_SEQ_BIG 3072		/* lines of straight code: 192 KiB */
#define IC_SEQ_SMALL 448	/* lines: 28 KiB, 7168 instructions */

typedef void (*ic_fn)(uint64_t laps);

#if defined(__x86_64__) || defined(__aarch64__)

/* Writes the chain of n lines at code (n * IC_LINE bytes): line k of the
 * shuffled order jumps to line k + 1; the last one counts a lap down and
 * jumps back to the first, or returns. */
static void write_chain(unsigned char *code, unsigned n, uint64_t *seed)
{
	unsigned *ord = xcalloc(n, sizeof(*ord));

	for (unsigned i = 0; i < n; i++)
		ord[i] = i;
	for (unsigned i = n - 1; i > 0; i--) {	/* Fisher-Yates, line 0 first */
		unsigned j;

		*seed ^= *seed << 13;
		*seed ^= *seed >> 7;
		*seed ^= *seed << 17;
		j = 1 + (unsigned)(*seed % i);
		if (i != j) {
			unsigned t = ord[i];

			ord[i] = ord[j];
			ord[j] = t;
		}
	}
#if defined(__x86_64__)
	memset(code, 0xcc, (size_t)n * IC_LINE);	/* int3 */
	for (unsigned k = 0; k < n; k++) {
		unsigned char *p = code + (size_t)ord[k] * IC_LINE;

		if (k + 1 < n) {
			int32_t rel = (int32_t)(((long)ord[k + 1] - (long)ord[k]) * IC_LINE - 5);

			p[0] = 0xe9;			/* jmp rel32 */
			memcpy(p + 1, &rel, 4);
		} else {
			int32_t rel = (int32_t)(-(long)ord[k] * IC_LINE - 8);

			p[0] = 0xff, p[1] = 0xcf;	/* dec %edi */
			p[2] = 0x0f, p[3] = 0x85;	/* jnz rel32: back to line 0 */
			memcpy(p + 4, &rel, 4);
			p[8] = 0xc3;			/* ret */
		}
	}
#else
	for (size_t i = 0; i < (size_t)n * IC_LINE / 4; i++) {
		uint32_t brk = 0xd4200000;		/* brk #0 */

		memcpy(code + i * 4, &brk, 4);
	}
	for (unsigned k = 0; k < n; k++) {
		unsigned char *p = code + (size_t)ord[k] * IC_LINE;
		uint32_t w[3];

		if (k + 1 < n) {
			long words = ((long)ord[k + 1] - (long)ord[k]) * IC_LINE / 4;

			w[0] = 0x14000000u | ((uint32_t)words & 0x3ffffff);	/* b */
			memcpy(p, w, 4);
		} else {
			long words = (-(long)ord[k] * IC_LINE - 4) / 4;

			w[0] = 0x71000400u;		/* subs w0, w0, #1 */
			w[1] = 0x54000001u | ((uint32_t)words & 0x7ffff) << 5;	/* b.ne */
			w[2] = 0xd65f03c0u;		/* ret */
			memcpy(p, w, 12);
		}
	}
#endif
	free(ord);
}

/* Writes n lines of straight code at code, then one that counts a lap
 * down and goes back to the first, or returns ((n + 1) * IC_LINE bytes). */
static void write_seq(unsigned char *code, unsigned n)
{
#if defined(__x86_64__)
	unsigned char *p = code + (size_t)n * IC_LINE;
	int32_t rel = (int32_t)(-(long)n * IC_LINE - 8);

	for (size_t i = 0; i < (size_t)n * IC_LINE; i += 4)
		memcpy(code + i, "\x0f\x1f\x40\x00", 4);	/* nopl 0(%rax) */
	memset(p, 0xcc, IC_LINE);
	p[0] = 0xff, p[1] = 0xcf;		/* dec %edi */
	p[2] = 0x0f, p[3] = 0x85;		/* jnz rel32: back to line 0 */
	memcpy(p + 4, &rel, 4);
	p[8] = 0xc3;				/* ret */
#else
	uint32_t nop = 0xd503201fu, w[3];
	long words = (-(long)n * IC_LINE - 4) / 4;

	for (size_t i = 0; i < (size_t)n * IC_LINE; i += 4)
		memcpy(code + i, &nop, 4);
	w[0] = 0x71000400u;			/* subs w0, w0, #1 */
	w[1] = 0x54000001u | ((uint32_t)words & 0x7ffff) << 5;	/* b.ne */
	w[2] = 0xd65f03c0u;			/* ret */
	memcpy(code + (size_t)n * IC_LINE, w, 12);
#endif
}

/* ns a jump: the fastest of samples runs of laps laps over n lines. */
static double time_chain(ic_fn fn, unsigned n, uint64_t laps, unsigned samples)
{
	double best = 0;

	fn(laps);	/* the code in the caches it fits, the predictor trained */
	for (unsigned s = 0; s < samples; s++) {
		uint64_t t0 = gx_now_ns();
		double ns;

		fn(laps);
		ns = (double)(gx_now_ns() - t0) / ((double)laps * n);
		if (!(best > 0) || ns < best)
			best = ns;
	}
	return best;
}

int pk_icache_run(struct pk_run *run, struct peak_result *res, char **cause)
{
	size_t chains = (size_t)(IC_BIG + IC_SMALL) * IC_LINE;
	size_t seq_small = chains + (size_t)(IC_SEQ_BIG + 1) * IC_LINE;
	size_t bytes = seq_small + (size_t)(IC_SEQ_SMALL + 1) * IC_LINE;
	unsigned samples = run->o->quick ? 15 : 61;
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	unsigned char *code;
	ic_fn big, small, sbig, ssmall;
	double ghz, t_big, t_small, t_sbig, t_ssmall;

	(void)cause;
	code = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 0;
	write_chain(code, IC_BIG, &seed);
	write_chain(code + (size_t)IC_BIG * IC_LINE, IC_SMALL, &seed);
	write_seq(code + chains, IC_SEQ_BIG);
	write_seq(code + seq_small, IC_SEQ_SMALL);
	__builtin___clear_cache((char *)code, (char *)code + bytes);
	if (mprotect(code, bytes, PROT_READ | PROT_EXEC)) {
		/* a system that makes no written memory executable */
		pk_skip(res, "icache", "no memory may be made executable here");
		munmap(code, bytes);
		return 0;
	}
	big = (ic_fn)(uintptr_t)code;
	small = (ic_fn)(uintptr_t)(code + (size_t)IC_BIG * IC_LINE);
	sbig = (ic_fn)(uintptr_t)(code + chains);
	ssmall = (ic_fn)(uintptr_t)(code + seq_small);
	pk_progress(run, "instruction-cache miss");
	ghz = pk_run__clock(run);
	/* about a millisecond a sample each: 64 laps of 4096, 4096 of 64 */
	t_small = time_chain(small, IC_SMALL, IC_BIG, samples);
	t_big = time_chain(big, IC_BIG, IC_SMALL, samples);
	/* and of the straight code, about as long: 256 laps of 3072 lines */
	t_ssmall = time_chain(ssmall, IC_SEQ_SMALL, 256 * IC_SEQ_BIG / IC_SEQ_SMALL, samples);
	t_sbig = time_chain(sbig, IC_SEQ_BIG, 256, samples);
	ghz = (ghz + pk_run__clock(run)) / 2;
	munmap(code, bytes);
	res->icache.hit_cycles = t_small * ghz;
	res->icache.miss_cycles = t_big * ghz;
	res->icache.l1i_miss = res->icache.miss_cycles - res->icache.hit_cycles;
	if (res->icache.l1i_miss < 0)
		res->icache.l1i_miss = 0;
	res->icache.seq_hit_cycles = t_ssmall * ghz;
	res->icache.seq_miss_cycles = t_sbig * ghz;
	res->icache.l1i_seq_miss = res->icache.seq_miss_cycles - res->icache.seq_hit_cycles;
	if (res->icache.l1i_seq_miss < 0)
		res->icache.l1i_seq_miss = 0;
	res->has_icache = true;
	return 0;
}

#else

int pk_icache_run(struct pk_run *run, struct peak_result *res, char **cause)
{
	(void)run, (void)cause;
	pk_skip(res, "icache", "no code writer for this architecture");
	return 0;
}

#endif
