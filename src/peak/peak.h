/*
 * peak: what this processor can do, measured by micro-benchmarks (the
 * MegPeak idea, in cycles): instruction latency and throughput, memory
 * bandwidth per cache level and under contention, load latency, and
 * whether instruction pairs issue together. No PMU needed: the clock is
 * measured with a dependent add chain (one cycle per add) and every figure
 * is the minimum (and median, p90) of many short samples.
 *
 * Typical use:
 *	struct peak_opts o = { .quick = true };
 *	struct peak_result r;
 *	peak_run(&o, &r, &cause);
 *	peak_result__print(&r, &sb);  json = peak_result__to_json(&r);
 *	peak_result__exit(&r);
 *
 * Kernels are assembly (kern-*.S) chosen at run time from CPUID + XGETBV
 * (x86-64) or HWCAP (aarch64), so one binary serves every CPU. Nothing here
 * prints or exits; the optional progress callback is how a caller shows
 * what runs.
 */
#ifndef GX_PEAK_H
#define GX_PEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/util.h"

#define GX_PEAK_SCHEMA "gexplore-peak 1"

struct peak_opts {
	bool quick;		/* fewer samples and sizes: < 10 s in all */
	const char *tests;	/* comma-separated globs over test names or groups
				   ("fp", "fma.*", "mem"); NULL = everything */
	int max_threads;	/* 0 = every CPU we may run on */
	/*
	 * MegPeak-style timing for comparison (bench/peak): one timed run of
	 * ~1 ms per kernel and one for the clock, no minimum over samples.
	 */
	bool single_sample;
	/* Called before each test with its name; may be NULL. */
	void (*progress)(void *arg, const char *what);
	void *progress_arg;
};

/* Summary of many samples of one quantity. */
struct peak_stat {
	double min, median, p90;
	unsigned n;
};

/* One instruction: latency (dependent chain) and throughput (12 chains). */
struct peak_insn {
	const char *name;	/* "fma.f64.256" (static) */
	const char *group;	/* "int", "fp", "vec", "load", "store" */
	const char *isa;	/* "sse2", "avx2", "avx512f", "neon", "sve", ... */
	const char *insn;	/* "vfmadd231pd ymm" */
	int bits;		/* vector width, 64 for GPR/scalar */
	double flops;		/* floating-point operations per instruction */
	double bytes;		/* bytes moved per instruction (loads/stores) */
	bool has_lat;
	struct peak_stat lat;	/* cycles per instruction, dependent */
	struct peak_stat tput;	/* cycles per instruction, independent */
	double drift;		/* relative clock change around this test */
	/* the reference kernel, when the test has one: the same units with
	 * operations that read no register ("mov r64, imm32" for int.add) */
	const char *ref_insn;	/* NULL: none */
	struct peak_stat ref;	/* cycles per operation */
};

/* Bandwidth of one kernel at one working set with `threads` threads. */
struct peak_bw {
	const char *kernel;	/* "read", "write", "copy", "triad" */
	const char *level;	/* "L1", "L2", "L3", "DRAM" */
	size_t ws;		/* working set per thread, bytes */
	int threads;
	double gbps;		/* best (from the shortest sample), all threads */
	double gbps_median, gbps_p90;	/* from the median and p90 time */
};

/* Dependent-load latency at one working-set size. */
struct peak_chase {
	size_t bytes;
	double ns, cycles;	/* per load (min of samples) */
};

/* A ring of `lines` cache lines (half of L2) over `pages` pages of 4 KiB:
 * a load's cost, the fastest sample of the fastest of several rings. */
struct peak_tlb {
	size_t pages, lines;
	double ns, cycles;
};

/* Two instruction kinds alone and together (cycles per round). */
struct peak_mix {
	const char *name;	/* "fma+load" */
	double a, b, ab;	/* cycles per round of A only, B only, A and B */
	double ratio;		/* (a + b) / ab: 2 = fully parallel, 1 = shared */
	const char *verdict;	/* "yes", "partly", "no" */
};

/* What a mispredicted conditional branch costs: a loop whose branch is
 * taken on the bytes of a buffer (a byte loaded from L1 is its
 * condition), over random bytes (half taken: a predictor can do no better
 * than miss half) and over zeros (never taken: always predicted). */
struct peak_branch {
	double predicted;	/* cycles an iteration, zeros (min of samples) */
	double random;		/* cycles an iteration, random bytes */
	double mispredict;	/* 2 x (random - predicted): cycles a mispredict */
	/* An indirect jump to one of 16 targets (an interpreter's dispatch):
	 * always the same one, a sequence of 13 repeated (each target unlike
	 * the one before: a predictor of the last target misses every one,
	 * one that follows the path hits), and at random (15 in 16 missed by
	 * any predictor). Cycles an iteration; has_indirect: measured. */
	bool has_indirect;
	double ind_same, ind_pattern, ind_random;
	/* the share of the sequence's jumps this core missed, from 0 (it
	 * predicts indirect targets from the path) to 1 (the last target
	 * only: as Valgrind's simulator) */
	double ind_pattern_missed;
};

/* What an L1 instruction-cache miss that L2 serves costs on a predicted
 * path: a chain of direct jumps, each to a line of its own in a shuffled
 * order, over 4096 lines (beyond any L1I) and over 64 (within it). */
struct peak_icache {
	double hit_cycles;	/* cycles a jump, the lines in L1I (min of samples) */
	double miss_cycles;	/* cycles a jump, each to a line L1I does not hold */
	double l1i_miss;	/* the difference: cycles an L1I miss costs */
	/* straight code, a line at a time: in L1I, in L2 only, and the
	 * difference, what a miss on a sequential path costs */
	double seq_hit_cycles, seq_miss_cycles, l1i_seq_miss;
};

/* What the first touch of a page (a page fault) costs the program's own
 * time: the user time of the first touch of anonymous pages the kernel
 * has filled, a byte each, less that of touching them again, a page
 * (page.c). */
struct peak_page {
	double pages;		/* touched first, over all rounds */
	double user_ns;		/* user time a first touch adds */
	double cycles;		/* the same at the measured clock */
	double system_ns;	/* the kernel's time a first touch */
	bool by_populate;	/* split by a touch of pages the kernel filled
				 * (page.c), else by the tick */
};

struct peak_cache {
	int level;
	char type[16];		/* "Data", "Unified" */
	size_t size;
	int shared;		/* CPUs sharing it */
};

struct peak_skip {
	const char *name;	/* test or ISA */
	const char *why;	/* static: "no AVX-512 (CPUID/XCR0)" */
};

struct peak_machine {
	char hostname[64];
	char cpu[128];		/* model name */
	char arch[16];		/* "x86_64", "aarch64" */
	char isa[160];		/* "sse2 avx fma avx2 avx512f ..." */
	int logical_cpus, cores;	/* we may run on; physical cores */
	int sve_bits;		/* SVE vector length, 0 when none */
	struct peak_cache caches[8];
	int nr_caches;
	bool hypervisor;
	char governor[32];	/* cpufreq governor, "" when none is visible */
};

struct peak_result {
	struct peak_machine machine;
	bool quick;
	struct peak_stat clock_ghz;	/* every calibration: min/median/p90 */
	double ghz;			/* the clock used for cycles */
	double max_drift;
	double seconds;			/* how long the run took */
	struct peak_insn *insns;	size_t nr_insns;
	struct peak_bw *bw;		size_t nr_bw;
	struct peak_bw *contention;	size_t nr_contention;
	struct peak_chase *chase;	size_t nr_chase;
	struct peak_tlb *tlb;		size_t nr_tlb;
	struct peak_mix *mixes;		size_t nr_mixes;
	bool has_branch;
	struct peak_branch branch;
	bool has_icache;
	struct peak_icache icache;
	bool has_page;
	struct peak_page page;
	struct peak_skip *skipped;	size_t nr_skipped;
	char **warnings;		size_t nr_warnings;	/* owned */
};

/*
 * Run the benchmarks o asks for (NULL: everything, full length). Fills *res
 * (free with peak_result__exit()). Errors: -EINVAL for a --tests list that
 * matches nothing (with *cause naming it), -ENOMEM when buffers cannot be
 * had. Pins the calling thread while it runs and restores its affinity.
 */
int peak_run(const struct peak_opts *o, struct peak_result *res, char **cause);
void peak_result__exit(struct peak_result *res);

/* The terminal table, appended to sb. */
void peak_result__print(const struct peak_result *res, struct strbuf *sb);

/* The JSON document (schema in gexplore-peak(1)): a new reference. */
json_t *peak_result__to_json(const struct peak_result *res);

/*
 * Where this machine's results are kept:
 * peak-<hostname>-<hash of the CPU model>.json in gx_cache_dir()
 * ($XDG_CACHE_HOME/gexplore, ~/.cache/gexplore, or a private directory
 * under $TMPDIR). Newly allocated; NULL when there is none.
 */
char *peak_cache_path(void);

/* Write json to path (creating its directory); 0 or -errno with *cause. */
int peak_save(const json_t *json, const char *path, char **cause);

/* Names of every test this build knows, for `--tests help`; static, NULL-ended. */
const char *const *peak_test_names(void);

/* Machine description only (no measurement), for the roofline's notes. */
void peak_machine_detect(struct peak_machine *m);

/*
 * Why a measured throughput falls more than 2% short of the documented
 * one, when its reference kernel tells: "int.add: 5.30 a cycle of the 6
 * documented (Zen 5); mov r64, imm32 ... runs 5.95 on the same ALUs: ...".
 * NULL when the figure is within 2%, nothing is documented, or the test
 * has no reference. Newly allocated.
 */
char *peak_limit(const struct peak_insn *in);

/*
 * The expected latency/throughput of an instruction on this host's CPU
 * family, from a table of documented figures. Returns false when the
 * family is not in the table (or the instruction is not), true with
 * *lat (cycles, 0 = not documented) and *ipc (per cycle, 0 = idem).
 * `family` names it ("Zen 4").
 */
bool peak_expected(const char *insn_name, const char **family, double *lat, double *ipc);

/* Clock in GHz from the dependent add chain, min of `samples` samples. */
double peak_measure_clock(unsigned samples, struct peak_stat *st);

#endif /* GX_PEAK_H */
