/*
 * x86-64 AVX, FMA and AVX2 kernels (VEX encoding, xmm and ymm): FP add,
 * multiply and FMA at 128 and 256 bits, scalar FMA, AVX2 integer add and
 * multiply-add, ymm loads and stores, the instruction mixes and the AVX
 * bandwidth kernels. Called only when CPUID and XGETBV say AVX (and FMA,
 * AVX2 for those tests) is usable; every function ends with vzeroupper.
 */
#if defined(__x86_64__)	/* assembled empty elsewhere, as kern-arm64.S is on x86 */
#include "kern-x86.h"

	VPAIR add_f32_256, F3, vaddps, ymm, Z3, vxorps, 1
	VPAIR add_f64_256, F3, vaddpd, ymm, Z3, vxorps, 1
	VPAIR mul_f32_256, F3, vmulps, ymm, Z3, vxorps, 1
	VPAIR mul_f64_256, F3, vmulpd, ymm, Z3, vxorps, 1
	VPAIR fma_f32_s, FM, vfmadd231ss, xmm, Z3, vxorps, 1
	VPAIR fma_f64_s, FM, vfmadd231sd, xmm, Z3, vxorps, 1
	VPAIR fma_f32_128, FM, vfmadd231ps, xmm, Z3, vxorps, 1
	VPAIR fma_f64_128, FM, vfmadd231pd, xmm, Z3, vxorps, 1
	VPAIR fma_f32_256, FM, vfmadd231ps, ymm, Z3, vxorps, 1
	VPAIR fma_f64_256, FM, vfmadd231pd, ymm, Z3, vxorps, 1
	VPAIR vadd_i32_256, F3, vpaddd, ymm, Z3, vxorps, 1
	VPAIR vmadd_i16_256, F3, vpmaddwd, ymm, Z3, vxorps, 1
	VTPUT ld_256, LD, vmovaps, ymm, Z3, vxorps, 1
	VTPUT st_256, ST, vmovaps, ymm, Z3, vxorps, 1

/*
 * Mixes: gx_pk_mix_NAME_{a,b,ab}(iters, buf). Each iteration is 8 rounds;
 * a round holds N instructions of kind A (_a), of kind B (_b), or both
 * (_ab, A and B interleaved). The same chains in all three, so the ratio
 * (t_a + t_b) / t_ab says whether A and B issue in parallel (2) or share
 * the same ports (1). N is 10 (7 for fma+fadd, which needs a chain per
 * FADD as well as per FMA within 16 registers).
 */
	.macro A_FMA r
	vfmadd231ps %ymm15, %ymm14, %ymm\r
	.endm
	.macro B_LD r
	vmovaps \r*64(%rsi), %ymm12
	.endm
	.macro B_ST r
	vmovaps %ymm15, 1024+\r*64(%rsi)
	.endm
	.macro A_LD r
	vmovaps \r*64(%rsi), %ymm12
	.endm
	.macro A_FMA7 r			/* chains 0..6 */
	vfmadd231ps %ymm15, %ymm14, %ymm\r
	.endm
	.macro B_ADD7 r			/* chains 7..13 */
	vaddps %ymm15, %ymm\r, %ymm\r
	.endm

/* gx_pk_mix_NAME: iterations of 8 rounds `round a, b` (a or b may be empty). */
	.macro MIXK name, round, a, b
	PK_BEGIN gx_pk_mix_\name
	Z3 vxorps, ymm
1:	.rept 8
	\round \a, \b
	.endr
	dec %rdi
	jnz 1b
	PK_END gx_pk_mix_\name, 1
	.endm

/* A round of 10: A and B interleaved on chains 0..9. */
	.macro ROUND10 a, b
	.irp r, 0,1,2,3,4,5,6,7,8,9
	.ifnb \a
	\a \r
	.endif
	.ifnb \b
	\b \r
	.endif
	.endr
	.endm

/* A round of 7: A on chains 0..6, then B on chains 7..13. */
	.macro ROUND7 a, b
	.ifnb \a
	.irp r, 0,1,2,3,4,5,6
	\a \r
	.endr
	.endif
	.ifnb \b
	.irp r, 7,8,9,10,11,12,13
	\b \r
	.endr
	.endif
	.endm

	.macro MIX3 name, round, a, b
	MIXK \name\()_a, \round, \a
	MIXK \name\()_b, \round, , \b
	MIXK \name\()_ab, \round, \a, \b
	.endm

	MIX3 fma_load, ROUND10, A_FMA, B_LD
	MIX3 fma_store, ROUND10, A_FMA, B_ST
	MIX3 load_store, ROUND10, A_LD, B_ST
	MIX3 fma_fadd, ROUND7, A_FMA7, B_ADD7

	BW_RW avx, ymm, 32, vmovaps, vmovaps, 1

	BW_TRIAD_VEX avx, ymm, 32

	.section .note.GNU-stack, "", @progbits
#endif
