/*
 * The run: the clock, the instruction tests and the mixes; memory is in
 * mem.c. Every figure is the minimum (with median and p90) of many short
 * samples, each a few tens of microseconds so that most escape interrupts,
 * and the clock is measured again around every test.
 */
#include "config.h"

#include "peak-int.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t pk_time(pk_fn fn, uint64_t iters, void *buf)
{
	uint64_t t0 = gx_now_ns();

	fn(iters, buf);
	return gx_now_ns() - t0;
}

uint64_t pk_calibrate(pk_fn fn, void *buf, uint64_t ns)
{
	uint64_t iters = 1;

	/* Powers of two: the first that lasts long enough, twice in a row. */
	while (iters < (1ull << 40)) {
		if (pk_time(fn, iters, buf) >= ns && pk_time(fn, iters, buf) >= ns)
			break;
		iters *= 2;
	}
	return iters;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void pk_stat(double *v, unsigned n, struct peak_stat *st)
{
	memset(st, 0, sizeof(*st));
	if (!n)
		return;
	gx_qsort(v, n, sizeof(*v), cmp_double);
	st->min = v[0];
	st->median = v[n / 2];
	st->p90 = v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1];
	st->n = n;
}

/* Nanoseconds per instruction of fn: min/median/p90 of `samples` samples. */
static void sample_ns(pk_fn fn, void *buf, unsigned per_iter, unsigned samples, uint64_t len_ns,
		      struct peak_stat *st)
{
	enum { MAX_BATCHES = 4 };
	uint64_t iters = pk_calibrate(fn, buf, len_ns);
	double *v = xcalloc((size_t)samples * MAX_BATCHES, sizeof(*v)), *sorted;
	unsigned n = 0;

	sorted = xcalloc((size_t)samples * MAX_BATCHES, sizeof(*sorted));
	for (int batch = 0; batch < MAX_BATCHES; batch++) {
		if (batch)	/* let a burst next door pass: 2, 4, 6 ms */
			nanosleep(&(struct timespec){ 0, 2000000L * batch }, NULL);
		for (unsigned i = 0; i < samples; i++) {
			/*
			 * Spread the samples over time (a short sleep every 8): on a
			 * shared host an SMT sibling's burst can outlast them all.
			 */
			if (i && i % 8 == 0 && samples > 1)
				nanosleep(&(struct timespec){ 0, 300000 }, NULL);
			v[n++] = (double)pk_time(fn, iters, buf) / ((double)iters * per_iter);
		}
		memcpy(sorted, v, n * sizeof(*v));
		pk_stat(sorted, n, st);
		/* A quiet machine: the median is within 3% of the minimum. Else sample more. */
		if (samples == 1 || st->median <= 1.03 * st->min)
			break;
	}
	free(sorted);
	free(v);
}

double peak_measure_clock(unsigned samples, struct peak_stat *st)
{
	pk_fn fn = pk_clock_kernel();
	struct peak_stat ns;

	if (!fn) {
		memset(st, 0, sizeof(*st));
		return 0;
	}
	/* ~10 us samples: long against the timer, short against interrupts. */
	sample_ns(fn, NULL, PK_BODY, samples, samples == 1 ? 1000000 : 10000, &ns);
	st->min = 1 / ns.min;		/* fastest sample = the true clock */
	st->median = 1 / ns.median;
	st->p90 = 1 / ns.p90;
	st->n = ns.n;
	return st->min;
}

double pk_run__clock(struct pk_run *run)
{
	struct peak_stat st;
	double ghz = peak_measure_clock(run->clock_samples, &st);

	run->clocks = xgrow(run->clocks, &run->cap_clocks, run->nr_clocks + 1,
			    sizeof(*run->clocks));
	run->clocks[run->nr_clocks++] = ghz;
	return ghz;
}

void pk_progress(struct pk_run *run, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!run->o->progress)
		return;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	run->o->progress(run->o->progress_arg, s);
	free(s);
}

void pk_skip(struct peak_result *res, const char *name, const char *why)
{
	res->skipped = xrealloc(res->skipped, (res->nr_skipped + 1) * sizeof(*res->skipped));
	res->skipped[res->nr_skipped++] = (struct peak_skip){ name, why };
}

static void add_warning(struct peak_result *res, char *w)
{
	res->warnings = xrealloc(res->warnings, (res->nr_warnings + 1) * sizeof(*res->warnings));
	res->warnings[res->nr_warnings++] = w;
}

/* Does the comma-separated glob list pick a test with this name and group? */
static bool wanted(const char *list, const char *name, const char *group)
{
	char *copy, *tok, *save = NULL;
	bool hit = false;

	if (!list)
		return true;
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
		hit = !fnmatch(tok, name, 0) || (group && !strcmp(tok, group)) ||
		      !strcmp(tok, "all");
	free(copy);
	return hit;
}

static const char *why_missing(unsigned need)
{
	const char *env = getenv("GX_PEAK_DISABLE");

	if (env && *env)
		return "hidden by $GX_PEAK_DISABLE, or not supported here";
	if (need & (PK_AVX512F | PK_AVX512BW | PK_AVX512VNNI))
		return "no usable AVX-512 (CPUID, or XCR0 & 0xE6 not enabled by the OS)";
	if (need & (PK_AVX | PK_FMA | PK_AVX2))
		return "no usable AVX/FMA/AVX2 (CPUID, or XCR0 ymm state off)";
	if (need & PK_SVE)
		return "no SVE (HWCAP)";
	if (need & PK_NEON)
		return "no Advanced SIMD (HWCAP)";
	return "not supported here";
}

struct tbuf {
	void *mem;
	uint64_t *p;
};

/* An L1-resident buffer for the load/store kernels; word 0 points at itself. */
static void tbuf_reset(struct tbuf *b)
{
	memset(b->p, 0, 8192);
	b->p[0] = (uint64_t)(uintptr_t)b->p;
}

static void warm_up(pk_fn fn, void *buf, uint64_t ns)
{
	uint64_t end = gx_now_ns() + ns;

	/* Wide vector units power up on first use (AVX-512 licence, Zen 4 too). */
	while (gx_now_ns() < end)
		fn(64, buf);
}

static void run_insn(struct pk_run *run, const struct pk_test *t, int sve_bits, struct tbuf *b,
		     struct peak_insn *out)
{
	unsigned samples = run->o->single_sample ? 1 : run->o->quick ? 40 : 200;
	uint64_t len = run->o->single_sample ? 1000000 : run->o->quick ? 20000 : 40000;
	struct peak_stat lat = { 0 }, tput = { 0 }, ref = { 0 };
	double g0, g1, ghz;
	int bits = t->bits ? t->bits : sve_bits;

	memset(out, 0, sizeof(*out));
	out->name = t->name;
	out->group = t->group;
	out->isa = t->isa_name;
	out->insn = t->insn;
	out->bits = bits;
	if (t->lane_bits)
		out->flops = t->flops_per_lane * (t->bits == 32 || t->bits == 64 ? 1 :
						  (double)bits / t->lane_bits);
	if (t->mem)
		out->bytes = bits / 8.0;
	pk_progress(run, "%s", t->name);
	tbuf_reset(b);
	warm_up(t->tput, b->p, bits >= 256 ? (run->o->quick ? 1000000 : 10000000) : 200000);
	g0 = pk_run__clock(run);
	if (t->lat) {
		tbuf_reset(b);
		sample_ns(t->lat, b->p, PK_BODY, samples, len, &lat);
		out->has_lat = true;
	}
	sample_ns(t->tput, b->p, t->tput_body ? t->tput_body : PK_BODY, samples, len, &tput);
	if (t->ref)
		sample_ns(t->ref, b->p, t->tput_body ? t->tput_body : PK_BODY, samples, len, &ref);
	g1 = pk_run__clock(run);
	ghz = (g0 + g1) / 2;
	out->drift = fabs(g1 - g0) / fmin(g0, g1);
	/* ns -> cycles with the clock of this very test. */
	out->lat = (struct peak_stat){ lat.min * ghz, lat.median * ghz, lat.p90 * ghz, lat.n };
	out->tput = (struct peak_stat){ tput.min * ghz, tput.median * ghz, tput.p90 * ghz, tput.n };
	if (t->ref) {
		out->ref_insn = t->ref_insn;
		out->ref = (struct peak_stat){ ref.min * ghz, ref.median * ghz, ref.p90 * ghz,
					       ref.n };
	}
}

static void run_mix(struct pk_run *run, const struct pk_mixk *k, struct tbuf *b,
		    struct peak_mix *out)
{
	unsigned samples = run->o->single_sample ? 1 : run->o->quick ? 30 : 150;
	uint64_t len = run->o->single_sample ? 1000000 : run->o->quick ? 20000 : 40000;
	struct peak_stat a, bb, ab;
	double ghz;

	pk_progress(run, "mix %s", k->name);
	tbuf_reset(b);
	warm_up(k->ab, b->p, run->o->quick ? 500000 : 5000000);
	ghz = pk_run__clock(run);
	sample_ns(k->a, b->p, PK_MIX_ROUNDS, samples, len, &a);
	sample_ns(k->b, b->p, PK_MIX_ROUNDS, samples, len, &bb);
	sample_ns(k->ab, b->p, PK_MIX_ROUNDS, samples, len, &ab);
	ghz = (ghz + pk_run__clock(run)) / 2;
	out->name = k->name;
	out->a = a.min * ghz;
	out->b = bb.min * ghz;
	out->ab = ab.min * ghz;
	out->ratio = (out->a + out->b) / out->ab;
	/* Parallel: together as fast as the slower alone; shared: the sum. */
	out->verdict = out->ratio >= 1.75 ? "yes" : out->ratio >= 1.25 ? "partly" : "no";
}

/* Does the --tests list pick anything at all? Notes which memory tests it
 * wants in run. */
static bool picks_any(struct pk_run *run, const struct peak_opts *o)
{
	size_t nt, nm;
	const struct pk_test *tests = pk_tests(&nt);
	const struct pk_mixk *mixes = pk_mixes(&nm);
	bool any = false;

	for (size_t i = 0; i < nt; i++)
		any |= wanted(o->tests, tests[i].name, tests[i].group);
	for (size_t i = 0; i < nm; i++)
		any |= wanted(o->tests, mixes[i].name, "mix");
	run->want_bw = wanted(o->tests, "bandwidth", "mem");
	run->want_chase = wanted(o->tests, "latency", "mem");
	run->want_contention = wanted(o->tests, "contention", "mem");
	run->want_branch = wanted(o->tests, "branch", NULL);
	run->want_page = wanted(o->tests, "page", "mem");
	run->want_icache = wanted(o->tests, "icache", NULL);
	run->want_tlb = wanted(o->tests, "tlb", "mem");
	return any || run->want_bw || run->want_chase || run->want_contention || run->want_branch ||
	       run->want_page || run->want_icache || run->want_tlb ||
	       wanted(o->tests, "clock", NULL);
}

/* Settle the clock: run the chain until two calibrations agree; then the
 * first calibration kept. */
static void settle_clock(struct pk_run *run, const struct peak_opts *o)
{
	if (pk_clock_kernel())
		warm_up(pk_clock_kernel(), NULL, o->quick ? 5000000 : 20000000);
	for (int i = 0; i < 5; i++) {
		double a = pk_run__clock(run), c = pk_run__clock(run);

		if (fabs(a - c) / a < 0.005)
			break;
	}
	run->nr_clocks = 0;
	run->ghz = pk_run__clock(run);
}

/* The instruction tests and the mixes the list picks, skipping those the
 * CPU lacks the instruction set for. */
static void run_kernels(struct pk_run *run, struct peak_result *res, int sve_bits,
			struct tbuf *b)
{
	const struct peak_opts *o = run->o;
	size_t nt, nm;
	const struct pk_test *tests = pk_tests(&nt);
	const struct pk_mixk *mixes = pk_mixes(&nm);

	for (size_t i = 0; i < nt; i++) {
		const struct pk_test *t = &tests[i];

		if (!wanted(o->tests, t->name, t->group))
			continue;
		if ((t->isa & run->isa) != t->isa) {
			pk_skip(res, t->name, why_missing(t->isa & ~run->isa));
			continue;
		}
		res->insns = xrealloc(res->insns, (res->nr_insns + 1) * sizeof(*res->insns));
		run_insn(run, t, sve_bits, b, &res->insns[res->nr_insns]);
		if (res->insns[res->nr_insns].drift > 0.02)
			add_warning(res, xasprintf("%s: the clock moved %.1f%% during the test",
						   t->name, 100 * res->insns[res->nr_insns].drift));
		res->nr_insns++;
	}
	for (size_t i = 0; i < nm; i++) {
		const struct pk_mixk *k = &mixes[i];

		if (!wanted(o->tests, k->name, "mix"))
			continue;
		if ((k->isa & run->isa) != k->isa) {
			pk_skip(res, k->name, why_missing(k->isa & ~run->isa));
			continue;
		}
		res->mixes = xrealloc(res->mixes, (res->nr_mixes + 1) * sizeof(*res->mixes));
		run_mix(run, k, b, &res->mixes[res->nr_mixes++]);
	}
}

/* Clock summary: the fastest calibration is the clock (drift is the
 * spread); then the machine's warnings. */
static void summarize(const struct pk_run *run, struct peak_result *res)
{
	double *v = xcalloc(run->nr_clocks ? run->nr_clocks : 1, sizeof(*v));

	for (size_t i = 0; i < run->nr_clocks; i++)
		v[i] = -run->clocks[i];
	pk_stat(v, (unsigned)run->nr_clocks, &res->clock_ghz);
	res->clock_ghz = (struct peak_stat){ -res->clock_ghz.min, -res->clock_ghz.median,
					     -res->clock_ghz.p90, res->clock_ghz.n };
	free(v);
	res->ghz = res->clock_ghz.median;
	res->max_drift = res->clock_ghz.n ?
		(res->clock_ghz.min - res->clock_ghz.p90) / res->clock_ghz.min : 0;
	for (size_t i = 0; i < res->nr_insns; i++)
		if (res->insns[i].drift > res->max_drift)
			res->max_drift = res->insns[i].drift;
	if (res->machine.hypervisor)
		add_warning(res, xstrdup("running under a hypervisor: other guests and the host can "
					 "steal cycles; figures are the minimum of many samples"));
	if (res->machine.governor[0] && strcmp(res->machine.governor, "performance"))
		add_warning(res, xasprintf("cpufreq governor '%s': the frequency can change during "
					   "the run (use 'performance' for stable figures)",
					   res->machine.governor));
}

int peak_run(const struct peak_opts *o, struct peak_result *res, char **cause)
{
	static const struct peak_opts defaults;
	struct pk_run run = { 0 };
	cpu_set_t saved;
	bool have_saved;
	struct tbuf b = { 0 };
	uint64_t t0 = gx_now_ns();
	int sve_bits, err = 0;

	if (!o)
		o = &defaults;
	memset(res, 0, sizeof(*res));
	run.o = o;
	peak_machine_detect(&res->machine);
	res->quick = o->quick;
	run.isa = pk_isa_detect(&sve_bits);
	run.cpus = pk_cpu_order(&run.nr_cpus, &run.cores);
	if (o->max_threads > 0 && o->max_threads < run.nr_cpus)
		run.nr_cpus = o->max_threads;
	if (run.cores > run.nr_cpus)
		run.cores = run.nr_cpus;
	run.clock_samples = o->single_sample ? 1 : o->quick ? 150 : 1000;

	if (!picks_any(&run, o)) {
		err = gx_fail(cause, -EINVAL, "--tests %s: matches no test (see `gexplore peak --list`)",
			      o->tests);
		goto out;
	}

	have_saved = sched_getaffinity(0, sizeof(saved), &saved) == 0;
	pk_pin(run.cpus[0]);
	if (posix_memalign(&b.mem, 4096, 8192)) {
		err = gx_fail(cause, -ENOMEM, "cannot allocate the test buffer");
		goto out_pin;
	}
	b.p = b.mem;

	settle_clock(&run, o);
	run_kernels(&run, res, sve_bits, &b);
	err = run.want_branch ? pk_branch_run(&run, res, cause) : 0;
	if (!err && run.want_icache)
		err = pk_icache_run(&run, res, cause);
	if (!err && run.want_page)
		err = pk_page_run(&run, res, cause);
	if (!err && run.want_tlb)
		err = pk_tlb_run(&run, res, cause);
	if (!err)
		err = pk_mem_run(&run, res, cause);
	if (err)
		goto out_buf;
	summarize(&run, res);
	res->seconds = (gx_now_ns() - t0) / 1e9;
out_buf:
	free(b.mem);
out_pin:
	if (have_saved)
		sched_setaffinity(0, sizeof(saved), &saved);
out:
	free(run.cpus);
	free(run.clocks);
	if (err)
		peak_result__exit(res);
	return err;
}

void peak_result__exit(struct peak_result *res)
{
	free(res->insns);
	free(res->bw);
	free(res->contention);
	free(res->chase);
	free(res->tlb);
	free(res->mixes);
	free(res->skipped);
	gx_free_strv(res->warnings, res->nr_warnings);
	memset(res, 0, sizeof(*res));
}
