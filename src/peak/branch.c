/*
 * branch.c: what a mispredicted conditional branch costs on this core. One
 * loop (kern-*.S: gx_pk_branch) branches on each byte of a buffer; over
 * random bytes half the branches go each way in no order a predictor can
 * learn (256 KiB of them: more outcomes than any predictor holds), over
 * zeros it never goes. The same instructions run in both; the difference
 * over the half that a predictor must miss is the cost of one mispredict:
 * refetching from the right path and waiting again for the load and the
 * compare that decide the branch (a compare of loaded data is what most
 * unpredictable branches are). `record --model` prices simulated
 * mispredicts by it.
 *
 * The same for an indirect jump (gx_pk_indirect, 16 targets, each of
 * which branches on its own first, as an interpreter's handlers do): to
 * one target always, to a sequence of 13 repeated, and at random. Whether
 * the sequence is missed like the random targets or hit like the single
 * one says whether this core predicts an indirect jump's target from the
 * path that led to it (Haswell, Zen and later do) or from the last
 * target alone (Valgrind's simulator does): `record --model` prices the
 * simulator's indirect mispredicts by it. The handlers' branches are that
 * path: without them Zen 3 missed 93% of the sequence (kern-x86-sse.S).
 */
#include "config.h"

#include "peak-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BRANCH_BYTES ((size_t)256 << 10)

/* One run over buf, in ns an iteration; *best keeps the fastest. */
static void sample(pk_fn fn, void *buf, double *best)
{
	uint64_t t0 = gx_now_ns();
	double ns;

	fn(BRANCH_BYTES, buf);
	ns = (double)(gx_now_ns() - t0) / (double)BRANCH_BYTES;
	if (!(*best > 0) || ns < *best)
		*best = ns;
}

int pk_branch_run(struct pk_run *run, struct peak_result *res, char **cause)
{
	pk_fn fn = pk_branch_kernel();
	unsigned samples = run->o->quick ? 15 : 61;
	unsigned char *rnd, *zero, *pat;
	uint64_t seed = 0x2545F4914F6CDD1Dull;
	double ghz, t_rnd = 0, t_zero = 0;

	if (!fn)
		return 0;
	rnd = malloc(BRANCH_BYTES);
	zero = calloc(1, BRANCH_BYTES);
	if (!rnd || !zero) {
		free(rnd);
		free(zero);
		return gx_fail(cause, -ENOMEM, "the branch test's buffers");
	}
	for (size_t i = 0; i < BRANCH_BYTES; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		rnd[i] = (unsigned char)(seed >> 40 & 1);
	}
	pk_progress(run, "branch mispredict");
	fn(BRANCH_BYTES, zero);	/* both in the cache, the code warm */
	fn(BRANCH_BYTES, rnd);
	ghz = pk_run__clock(run);
	/* in turns, so that both see the same machine (a shared VM's load
	 * comes and goes) */
	for (unsigned s = 0; s < samples; s++) {
		sample(fn, zero, &t_zero);
		sample(fn, rnd, &t_rnd);
	}
	ghz = (ghz + pk_run__clock(run)) / 2;
	res->branch.predicted = t_zero * ghz;
	res->branch.random = t_rnd * ghz;
	/* half the random branches are mispredicted, at best */
	res->branch.mispredict = 2 * (res->branch.random - res->branch.predicted);
	if (res->branch.mispredict < 0)
		res->branch.mispredict = 0;
	res->has_branch = true;
	fn = pk_indirect_kernel();
	if (fn) {
		double t_same = 0, t_pat = 0, t_any = 0, excess;

		pk_progress(run, "indirect mispredict");
		/* rnd: 16 targets at random; zero: one; pat: 13 in turn */
		for (size_t i = 0; i < BRANCH_BYTES; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			rnd[i] = (unsigned char)(seed >> 40 & 15);
		}
		pat = malloc(BRANCH_BYTES);
		if (!pat) {
			free(rnd);
			free(zero);
			return gx_fail(cause, -ENOMEM, "the branch test's buffers");
		}
		for (size_t i = 0; i < BRANCH_BYTES; i++)
			pat[i] = (unsigned char)((i % 13 * 5 + 3) % 16);
		fn(BRANCH_BYTES, pat);
		ghz = pk_run__clock(run);
		for (unsigned s = 0; s < samples; s++) {
			sample(fn, zero, &t_same);
			sample(fn, pat, &t_pat);
			sample(fn, rnd, &t_any);
		}
		ghz = (ghz + pk_run__clock(run)) / 2;
		res->branch.ind_same = t_same * ghz;
		res->branch.ind_pattern = t_pat * ghz;
		res->branch.ind_random = t_any * ghz;
		excess = res->branch.ind_random - res->branch.ind_same;
		/* 15 of 16 random targets are missed: the pattern's excess over
		 * that of a missed jump */
		res->branch.ind_pattern_missed = excess > 0 ?
			(res->branch.ind_pattern - res->branch.ind_same) / (excess * 16 / 15) : 0;
		if (res->branch.ind_pattern_missed < 0)
			res->branch.ind_pattern_missed = 0;
		if (res->branch.ind_pattern_missed > 1)
			res->branch.ind_pattern_missed = 1;
		res->branch.has_indirect = true;
		free(pat);
	}
	free(rnd);
	free(zero);
	return 0;
}
