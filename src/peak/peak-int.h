/* Private to src/peak: the kernel tables, ISA detection, timing helpers. */
#ifndef GX_PEAK_INT_H
#define GX_PEAK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "peak.h"

/* Every kernel: `iters` iterations of PK_BODY instructions over buf. */
typedef void (*pk_fn)(uint64_t iters, void *buf);
#define PK_BODY 96		/* instructions per iteration (kern-*.S) */
#define PK_ADD_TPUT_BODY 287	/* except x86 int.add throughput (kern-x86-sse.S) */
#define PK_MIX_ROUNDS 8		/* rounds per iteration in the mix kernels */

/* Instruction-set features (bits); PK_BASE is always present. */
enum {
	PK_BASE = 1u << 0,
	PK_SSE2 = 1u << 1,
	PK_AVX = 1u << 2,
	PK_FMA = 1u << 3,
	PK_AVX2 = 1u << 4,
	PK_AVX512F = 1u << 5,
	PK_AVX512BW = 1u << 6,
	PK_AVX512VNNI = 1u << 7,
	PK_NEON = 1u << 8,
	PK_SVE = 1u << 9,
};

struct pk_test {
	const char *name;	/* "fma.f64.256" */
	const char *group;
	unsigned isa;		/* features all required */
	const char *isa_name;
	const char *insn;
	int bits;		/* 0 = the SVE vector length */
	double flops_per_lane;	/* 1 add/mul, 2 FMA, 0 not FP */
	int lane_bits;		/* 32 or 64 for FP; 0 otherwise */
	int mem;		/* 1 = moves `bits` bytes/8 per instruction */
	pk_fn lat, tput;	/* lat NULL: throughput only */
	unsigned tput_body;	/* instructions per iteration of tput; 0 = PK_BODY */
	/* NULL, or a kernel on the same units whose operations read no
	 * register (tput_body of them an iteration): what the units deliver
	 * when nothing waits on a result (peak_limit) */
	pk_fn ref;
	const char *ref_insn;
};

struct pk_mixk {
	const char *name;
	unsigned isa;
	pk_fn a, b, ab;
};

typedef void (*pk_bw_rw)(void *buf, size_t bytes, uint64_t reps);
typedef void (*pk_bw_copy)(void *dst, const void *src, size_t bytes, uint64_t reps);
typedef void (*pk_bw_triad)(void *a, const void *b, const void *c, size_t bytes, uint64_t reps,
			    double s);
struct pk_bwk {
	const char *isa_name;
	unsigned isa;
	size_t align;		/* bytes must be a multiple of this */
	pk_bw_rw read, write;
	pk_bw_copy copy;
	pk_bw_triad triad;
};

/* Tables for this architecture (static storage). */
const struct pk_test *pk_tests(size_t *n);
const struct pk_mixk *pk_mixes(size_t *n);
/* The widest bandwidth kernels the CPU supports. */
const struct pk_bwk *pk_bw_kernels(unsigned isa);
/* The dependent add chain used as the clock (1 cycle per add). */
pk_fn pk_clock_kernel(void);
/*
 * Dependent GPR loads through a pointer ring (the chase). The kernel also
 * returns where it stopped: call it through pk_chase_fn to go on from there.
 */
pk_fn pk_chase_kernel(void);
typedef void *(*pk_chase_fn)(uint64_t iters, void *start);
/* A conditional branch on each of `iters` bytes of buf (taken where the
 * byte is not 0), for the mispredict's cost (branch.c); NULL: none here. */
pk_fn pk_branch_kernel(void);
/* An indirect jump on each of `iters` bytes of buf to one of 16 targets
 * (the byte's low 4 bits); NULL: none here. */
pk_fn pk_indirect_kernel(void);

/* peak_limit() for a documented throughput of ipc a cycle on family. */
char *pk_limit_text(const struct peak_insn *in, const char *family, double ipc);

/* Features of this CPU usable by this process (CPUID + XGETBV / HWCAP). */
unsigned pk_isa_detect(int *sve_bits);
/* Space-separated names of the features in isa, into buf. */
void pk_isa_names(unsigned isa, char *buf, size_t len);
/* Was this x86 CPU's CPUID hypervisor bit set (false elsewhere). */
bool pk_cpuid_hypervisor(void);

/*
 * CPUs we may run on, physical cores first (the first thread of each core
 * in order, then the SMT siblings). Newly allocated; *n entries; *cores
 * the number of physical cores among them.
 */
int *pk_cpu_order(int *n, int *cores);
/* Pin the calling thread to cpu; 0 or -errno. */
int pk_pin(int cpu);

/* Nanoseconds one call of fn(iters, buf) takes. */
uint64_t pk_time(pk_fn fn, uint64_t iters, void *buf);
/* The smallest iters (power of two) for which one call lasts >= ns. */
uint64_t pk_calibrate(pk_fn fn, void *buf, uint64_t ns);
/* Sort v[0..n) and fill st (min, median, p90). */
void pk_stat(double *v, unsigned n, struct peak_stat *st);

/* A random order of 0 .. n - 1 from seed (mem.c); newly allocated. */
size_t *pk_shuffle(size_t n, uint64_t seed);

/* The memory part: bandwidth, contention, the chase (mem.c). */
struct pk_run;
int pk_mem_run(struct pk_run *run, struct peak_result *res, char **cause);

/* The mispredicted branch's cost (branch.c): fills res->branch. */
struct pk_run;
int pk_branch_run(struct pk_run *run, struct peak_result *res, char **cause);

/* An instruction-cache miss's cost on a predicted path (icache.c): fills
 * res->icache, or notes it skipped. */
int pk_icache_run(struct pk_run *run, struct peak_result *res, char **cause);

/* Notes a test skipped, and why (static strings). */
void pk_skip(struct peak_result *res, const char *name, const char *why);

/* The first touch of a page's cost (page.c): fills res->page. */
int pk_page_run(struct pk_run *run, struct peak_result *res, char **cause);

/* A page walk's cost: rings in L2 over more and more pages (tlb.c);
 * fills res->tlb. */
int pk_tlb_run(struct pk_run *run, struct peak_result *res, char **cause);

/* Shared state of one run (peak.c). */
struct pk_run {
	const struct peak_opts *o;
	unsigned isa;
	int *cpus;		/* physical cores first */
	int nr_cpus, cores;
	double ghz;
	unsigned clock_samples;
	double *clocks;		/* every clock measurement, for the summary */
	size_t nr_clocks, cap_clocks;
	bool want_bw, want_chase, want_contention, want_branch, want_page, want_icache, want_tlb;
};
/* Measure the clock again (and remember it); GHz. */
double pk_run__clock(struct pk_run *run);
void pk_progress(struct pk_run *run, const char *fmt, ...) GX_PRINTF(2, 3);

#endif
