/*
 * The kernel tables: which assembly kernel measures which instruction,
 * what it needs from the CPU, and how many FLOPs or bytes one instruction
 * is worth. One table per architecture; the other's kernels are not even
 * declared, so an x86 build never references aarch64 symbols.
 */
#include "config.h"

#include "peak-int.h"

#include <stddef.h>

#define PAIR(n) void gx_pk_##n##_lat(uint64_t, void *); void gx_pk_##n##_tput(uint64_t, void *);
#define TPUT(n) void gx_pk_##n##_tput(uint64_t, void *);
#define MIX(n) void gx_pk_mix_##n##_a(uint64_t, void *); void gx_pk_mix_##n##_b(uint64_t, void *); \
	void gx_pk_mix_##n##_ab(uint64_t, void *);
#define BW(i) void gx_pk_bw_read_##i(void *, size_t, uint64_t); \
	void gx_pk_bw_write_##i(void *, size_t, uint64_t); \
	void gx_pk_bw_copy_##i(void *, const void *, size_t, uint64_t); \
	void gx_pk_bw_triad_##i(void *, const void *, const void *, size_t, uint64_t, double);

/* Table rows: name, group, isa, isa name, instruction, bits, flops/lane, lane bits, mem, kernels */
#define L(n) gx_pk_##n##_lat, gx_pk_##n##_tput, 0, NULL, NULL
#define T(n) NULL, gx_pk_##n##_tput, 0, NULL, NULL
/* body instructions per tput lap; r: a reference kernel (pk_test.ref) and its instruction */
#define LBR(n, body, r, ri) gx_pk_##n##_lat, gx_pk_##n##_tput, body, gx_pk_##r##_tput, ri
#define BWROW(i, bit, al) { #i, bit, al, gx_pk_bw_read_##i, gx_pk_bw_write_##i, \
	gx_pk_bw_copy_##i, gx_pk_bw_triad_##i }
#define MIXROW(s, n, bit) { s, bit, gx_pk_mix_##n##_a, gx_pk_mix_##n##_b, gx_pk_mix_##n##_ab }

#if defined(__x86_64__)
PAIR(int_add) PAIR(int_imul) PAIR(ld_gpr) TPUT(st_gpr) TPUT(alu_movi)
PAIR(add_f32_s) PAIR(add_f64_s) PAIR(mul_f32_s) PAIR(mul_f64_s) PAIR(fma_f32_s) PAIR(fma_f64_s)
PAIR(add_f32_128) PAIR(add_f64_128) PAIR(mul_f32_128) PAIR(mul_f64_128)
PAIR(fma_f32_128) PAIR(fma_f64_128)
PAIR(add_f32_256) PAIR(add_f64_256) PAIR(mul_f32_256) PAIR(mul_f64_256)
PAIR(fma_f32_256) PAIR(fma_f64_256)
PAIR(add_f32_512) PAIR(add_f64_512) PAIR(mul_f32_512) PAIR(mul_f64_512)
PAIR(fma_f32_512) PAIR(fma_f64_512)
PAIR(vadd_i32_128) PAIR(vmadd_i16_128) PAIR(vadd_i32_256) PAIR(vmadd_i16_256)
PAIR(vadd_i32_512) PAIR(vmadd_i16_512) PAIR(vnni_i8_512)
TPUT(ld_128) TPUT(st_128) TPUT(ld_256) TPUT(st_256) TPUT(ld_512) TPUT(st_512)
MIX(fma_load) MIX(fma_fadd) MIX(fma_store) MIX(load_store)
BW(sse) BW(avx) BW(avx512)

#define AVX512 (PK_AVX512F)
static const struct pk_test tests[] = {
	{ "int.add", "int", PK_BASE, "x86-64", "add r64", 64, 0, 0, 0,
	  LBR(int_add, PK_ADD_TPUT_BODY, alu_movi, "mov r64, imm32") },
	{ "int.imul", "int", PK_BASE, "x86-64", "imul r64", 64, 0, 0, 0, L(int_imul) },
	{ "add.f32.s", "fp", PK_SSE2, "sse2", "addss", 32, 1, 32, 0, L(add_f32_s) },
	{ "add.f64.s", "fp", PK_SSE2, "sse2", "addsd", 64, 1, 64, 0, L(add_f64_s) },
	{ "mul.f32.s", "fp", PK_SSE2, "sse2", "mulss", 32, 1, 32, 0, L(mul_f32_s) },
	{ "mul.f64.s", "fp", PK_SSE2, "sse2", "mulsd", 64, 1, 64, 0, L(mul_f64_s) },
	{ "fma.f32.s", "fp", PK_FMA, "fma", "vfmadd231ss", 32, 2, 32, 0, L(fma_f32_s) },
	{ "fma.f64.s", "fp", PK_FMA, "fma", "vfmadd231sd", 64, 2, 64, 0, L(fma_f64_s) },
	{ "add.f32.128", "fp", PK_SSE2, "sse2", "addps xmm", 128, 1, 32, 0, L(add_f32_128) },
	{ "add.f64.128", "fp", PK_SSE2, "sse2", "addpd xmm", 128, 1, 64, 0, L(add_f64_128) },
	{ "mul.f32.128", "fp", PK_SSE2, "sse2", "mulps xmm", 128, 1, 32, 0, L(mul_f32_128) },
	{ "mul.f64.128", "fp", PK_SSE2, "sse2", "mulpd xmm", 128, 1, 64, 0, L(mul_f64_128) },
	{ "fma.f32.128", "fp", PK_FMA, "fma", "vfmadd231ps xmm", 128, 2, 32, 0, L(fma_f32_128) },
	{ "fma.f64.128", "fp", PK_FMA, "fma", "vfmadd231pd xmm", 128, 2, 64, 0, L(fma_f64_128) },
	{ "add.f32.256", "fp", PK_AVX, "avx", "vaddps ymm", 256, 1, 32, 0, L(add_f32_256) },
	{ "add.f64.256", "fp", PK_AVX, "avx", "vaddpd ymm", 256, 1, 64, 0, L(add_f64_256) },
	{ "mul.f32.256", "fp", PK_AVX, "avx", "vmulps ymm", 256, 1, 32, 0, L(mul_f32_256) },
	{ "mul.f64.256", "fp", PK_AVX, "avx", "vmulpd ymm", 256, 1, 64, 0, L(mul_f64_256) },
	{ "fma.f32.256", "fp", PK_FMA, "fma", "vfmadd231ps ymm", 256, 2, 32, 0, L(fma_f32_256) },
	{ "fma.f64.256", "fp", PK_FMA, "fma", "vfmadd231pd ymm", 256, 2, 64, 0, L(fma_f64_256) },
	{ "add.f32.512", "fp", AVX512, "avx512f", "vaddps zmm", 512, 1, 32, 0, L(add_f32_512) },
	{ "add.f64.512", "fp", AVX512, "avx512f", "vaddpd zmm", 512, 1, 64, 0, L(add_f64_512) },
	{ "mul.f32.512", "fp", AVX512, "avx512f", "vmulps zmm", 512, 1, 32, 0, L(mul_f32_512) },
	{ "mul.f64.512", "fp", AVX512, "avx512f", "vmulpd zmm", 512, 1, 64, 0, L(mul_f64_512) },
	{ "fma.f32.512", "fp", AVX512, "avx512f", "vfmadd231ps zmm", 512, 2, 32, 0, L(fma_f32_512) },
	{ "fma.f64.512", "fp", AVX512, "avx512f", "vfmadd231pd zmm", 512, 2, 64, 0, L(fma_f64_512) },
	{ "vadd.i32.128", "vec", PK_SSE2, "sse2", "paddd xmm", 128, 0, 0, 0, L(vadd_i32_128) },
	{ "vmadd.i16.128", "vec", PK_SSE2, "sse2", "pmaddwd xmm", 128, 0, 0, 0, L(vmadd_i16_128) },
	{ "vadd.i32.256", "vec", PK_AVX2, "avx2", "vpaddd ymm", 256, 0, 0, 0, L(vadd_i32_256) },
	{ "vmadd.i16.256", "vec", PK_AVX2, "avx2", "vpmaddwd ymm", 256, 0, 0, 0, L(vmadd_i16_256) },
	{ "vadd.i32.512", "vec", AVX512, "avx512f", "vpaddd zmm", 512, 0, 0, 0, L(vadd_i32_512) },
	{ "vmadd.i16.512", "vec", PK_AVX512BW, "avx512bw", "vpmaddwd zmm", 512, 0, 0, 0,
	  L(vmadd_i16_512) },
	{ "vnni.i8.512", "vec", PK_AVX512VNNI, "avx512vnni", "vpdpbusd zmm", 512, 0, 0, 0,
	  L(vnni_i8_512) },
	{ "load.gpr", "load", PK_BASE, "x86-64", "mov r64, [m]", 64, 0, 0, 1, L(ld_gpr) },
	{ "load.128", "load", PK_SSE2, "sse2", "movaps xmm, [m]", 128, 0, 0, 1, T(ld_128) },
	{ "load.256", "load", PK_AVX, "avx", "vmovaps ymm, [m]", 256, 0, 0, 1, T(ld_256) },
	{ "load.512", "load", AVX512, "avx512f", "vmovaps zmm, [m]", 512, 0, 0, 1, T(ld_512) },
	{ "store.gpr", "store", PK_BASE, "x86-64", "mov [m], r64", 64, 0, 0, 1, T(st_gpr) },
	{ "store.128", "store", PK_SSE2, "sse2", "movaps [m], xmm", 128, 0, 0, 1, T(st_128) },
	{ "store.256", "store", PK_AVX, "avx", "vmovaps [m], ymm", 256, 0, 0, 1, T(st_256) },
	{ "store.512", "store", AVX512, "avx512f", "vmovaps [m], zmm", 512, 0, 0, 1, T(st_512) },
};

static const struct pk_mixk mixes[] = {
	MIXROW("fma+load", fma_load, PK_FMA | PK_AVX),
	MIXROW("fma+fadd", fma_fadd, PK_FMA | PK_AVX),
	MIXROW("fma+store", fma_store, PK_FMA | PK_AVX),
	MIXROW("load+store", load_store, PK_AVX),
};

static const struct pk_bwk bwks[] = {	/* widest first */
	BWROW(avx512, PK_AVX512F, 512),
	BWROW(avx, PK_AVX, 256),
	BWROW(sse, PK_SSE2, 128),
};
#define CLOCK_KERNEL gx_pk_int_add_lat
#define CHASE_KERNEL gx_pk_ld_gpr_lat
#define BRANCH_KERNEL gx_pk_branch
#define INDIRECT_KERNEL gx_pk_indirect

#elif defined(__aarch64__)
PAIR(int_add) PAIR(int_imul) PAIR(ld_gpr) TPUT(st_gpr)
PAIR(add_f32_s) PAIR(add_f64_s) PAIR(mul_f32_s) PAIR(mul_f64_s) PAIR(fma_f32_s) PAIR(fma_f64_s)
PAIR(add_f32_128) PAIR(add_f64_128) PAIR(mul_f32_128) PAIR(mul_f64_128)
PAIR(fma_f32_128) PAIR(fma_f64_128) PAIR(vadd_i32_128) PAIR(vmadd_i32_128)
TPUT(ld_128) TPUT(st_128)
PAIR(add_f32_sve) PAIR(add_f64_sve) PAIR(mul_f32_sve) PAIR(mul_f64_sve)
PAIR(fma_f32_sve) PAIR(fma_f64_sve) PAIR(vadd_i32_sve) PAIR(vmadd_i32_sve)
TPUT(ld_sve) TPUT(st_sve)
MIX(fma_load) MIX(fma_fadd) MIX(fma_store) MIX(load_store)
BW(neon)

static const struct pk_test tests[] = {
	{ "int.add", "int", PK_BASE, "a64", "add x", 64, 0, 0, 0, L(int_add) },
	{ "int.imul", "int", PK_BASE, "a64", "mul x", 64, 0, 0, 0, L(int_imul) },
	{ "add.f32.s", "fp", PK_NEON, "fp", "fadd s", 32, 1, 32, 0, L(add_f32_s) },
	{ "add.f64.s", "fp", PK_NEON, "fp", "fadd d", 64, 1, 64, 0, L(add_f64_s) },
	{ "mul.f32.s", "fp", PK_NEON, "fp", "fmul s", 32, 1, 32, 0, L(mul_f32_s) },
	{ "mul.f64.s", "fp", PK_NEON, "fp", "fmul d", 64, 1, 64, 0, L(mul_f64_s) },
	{ "fma.f32.s", "fp", PK_NEON, "fp", "fmadd s", 32, 2, 32, 0, L(fma_f32_s) },
	{ "fma.f64.s", "fp", PK_NEON, "fp", "fmadd d", 64, 2, 64, 0, L(fma_f64_s) },
	{ "add.f32.128", "fp", PK_NEON, "neon", "fadd v.4s", 128, 1, 32, 0, L(add_f32_128) },
	{ "add.f64.128", "fp", PK_NEON, "neon", "fadd v.2d", 128, 1, 64, 0, L(add_f64_128) },
	{ "mul.f32.128", "fp", PK_NEON, "neon", "fmul v.4s", 128, 1, 32, 0, L(mul_f32_128) },
	{ "mul.f64.128", "fp", PK_NEON, "neon", "fmul v.2d", 128, 1, 64, 0, L(mul_f64_128) },
	{ "fma.f32.128", "fp", PK_NEON, "neon", "fmla v.4s", 128, 2, 32, 0, L(fma_f32_128) },
	{ "fma.f64.128", "fp", PK_NEON, "neon", "fmla v.2d", 128, 2, 64, 0, L(fma_f64_128) },
	{ "add.f32.sve", "fp", PK_SVE, "sve", "fadd z.s", 0, 1, 32, 0, L(add_f32_sve) },
	{ "add.f64.sve", "fp", PK_SVE, "sve", "fadd z.d", 0, 1, 64, 0, L(add_f64_sve) },
	{ "mul.f32.sve", "fp", PK_SVE, "sve", "fmul z.s", 0, 1, 32, 0, L(mul_f32_sve) },
	{ "mul.f64.sve", "fp", PK_SVE, "sve", "fmul z.d", 0, 1, 64, 0, L(mul_f64_sve) },
	{ "fma.f32.sve", "fp", PK_SVE, "sve", "fmla z.s", 0, 2, 32, 0, L(fma_f32_sve) },
	{ "fma.f64.sve", "fp", PK_SVE, "sve", "fmla z.d", 0, 2, 64, 0, L(fma_f64_sve) },
	{ "vadd.i32.128", "vec", PK_NEON, "neon", "add v.4s", 128, 0, 0, 0, L(vadd_i32_128) },
	{ "vmadd.i32.128", "vec", PK_NEON, "neon", "mla v.4s", 128, 0, 0, 0, L(vmadd_i32_128) },
	{ "vadd.i32.sve", "vec", PK_SVE, "sve", "add z.s", 0, 0, 0, 0, L(vadd_i32_sve) },
	{ "vmadd.i32.sve", "vec", PK_SVE, "sve", "mla z.s", 0, 0, 0, 0, L(vmadd_i32_sve) },
	{ "load.gpr", "load", PK_BASE, "a64", "ldr x", 64, 0, 0, 1, L(ld_gpr) },
	{ "load.128", "load", PK_NEON, "neon", "ldr q", 128, 0, 0, 1, T(ld_128) },
	{ "load.sve", "load", PK_SVE, "sve", "ldr z", 0, 0, 0, 1, T(ld_sve) },
	{ "store.gpr", "store", PK_BASE, "a64", "str x", 64, 0, 0, 1, T(st_gpr) },
	{ "store.128", "store", PK_NEON, "neon", "str q", 128, 0, 0, 1, T(st_128) },
	{ "store.sve", "store", PK_SVE, "sve", "str z", 0, 0, 0, 1, T(st_sve) },
};

static const struct pk_mixk mixes[] = {
	MIXROW("fma+load", fma_load, PK_NEON),
	MIXROW("fma+fadd", fma_fadd, PK_NEON),
	MIXROW("fma+store", fma_store, PK_NEON),
	MIXROW("load+store", load_store, PK_NEON),
};

static const struct pk_bwk bwks[] = {
	BWROW(neon, PK_NEON, 128),
};
#define CLOCK_KERNEL gx_pk_int_add_lat
#define CHASE_KERNEL gx_pk_ld_gpr_lat
#define BRANCH_KERNEL gx_pk_branch
#define INDIRECT_KERNEL gx_pk_indirect

#else
/* No kernels for this architecture: everything is listed as skipped. */
static const struct pk_test tests[1];
static const struct pk_mixk mixes[1];
static const struct pk_bwk bwks[1];
#define PK_NO_KERNELS 1
#endif

const struct pk_test *pk_tests(size_t *n)
{
#ifdef PK_NO_KERNELS
	*n = 0;
#else
	*n = ARRAY_SIZE(tests);
#endif
	return tests;
}

const struct pk_mixk *pk_mixes(size_t *n)
{
#ifdef PK_NO_KERNELS
	*n = 0;
#else
	*n = ARRAY_SIZE(mixes);
#endif
	return mixes;
}

const struct pk_bwk *pk_bw_kernels(unsigned isa)
{
#ifndef PK_NO_KERNELS
	for (size_t i = 0; i < ARRAY_SIZE(bwks); i++)
		if ((bwks[i].isa & isa) == bwks[i].isa)
			return &bwks[i];
#endif
	(void)isa;
	return NULL;
}

pk_fn pk_clock_kernel(void)
{
#ifdef PK_NO_KERNELS
	return NULL;
#else
	return CLOCK_KERNEL;
#endif
}

pk_fn pk_chase_kernel(void)
{
#ifdef PK_NO_KERNELS
	return NULL;
#else
	return CHASE_KERNEL;
#endif
}

#ifndef PK_NO_KERNELS
void gx_pk_branch(uint64_t bytes, void *buf);
void gx_pk_indirect(uint64_t bytes, void *buf);
#endif

pk_fn pk_indirect_kernel(void)
{
#ifdef PK_NO_KERNELS
	return NULL;
#else
	return INDIRECT_KERNEL;
#endif
}

pk_fn pk_branch_kernel(void)
{
#ifdef PK_NO_KERNELS
	return NULL;
#else
	return BRANCH_KERNEL;
#endif
}

const char *const *peak_test_names(void)
{
	static const char *names[ARRAY_SIZE(tests) + 1];
	size_t n;
	const struct pk_test *t = pk_tests(&n);

	for (size_t i = 0; i < n; i++)
		names[i] = t[i].name;
	names[n] = NULL;
	return names;
}
