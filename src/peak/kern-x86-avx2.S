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

	.macro MIX3 name, a, b
	PK_BEGIN gx_pk_mix_\name\()_a
	Z3 vxorps, ymm
1:	.rept 8
	.irp r, 0,1,2,3,4,5,6,7,8,9
	\a \r
	.endr
	.endr
	dec %rdi
	jnz 1b
	PK_END gx_pk_mix_\name\()_a, 1
	PK_BEGIN gx_pk_mix_\name\()_b
	Z3 vxorps, ymm
1:	.rept 8
	.irp r, 0,1,2,3,4,5,6,7,8,9
	\b \r
	.endr
	.endr
	dec %rdi
	jnz 1b
	PK_END gx_pk_mix_\name\()_b, 1
	PK_BEGIN gx_pk_mix_\name\()_ab
	Z3 vxorps, ymm
1:	.rept 8
	.irp r, 0,1,2,3,4,5,6,7,8,9
	\a \r
	\b \r
	.endr
	.endr
	dec %rdi
	jnz 1b
	PK_END gx_pk_mix_\name\()_ab, 1
	.endm

	MIX3 fma_load, A_FMA, B_LD
	MIX3 fma_store, A_FMA, B_ST
	MIX3 load_store, A_LD, B_ST

	PK_BEGIN gx_pk_mix_fma_fadd_a
	Z3 vxorps, ymm
1:	.rept 8
	.irp r, 0,1,2,3,4,5,6
	A_FMA7 \r
	.endr
	.endr
	dec %rdi
	jnz 1b
	PK_END gx_pk_mix_fma_fadd_a, 1
	PK_BEGIN gx_pk_mix_fma_fadd_b
	Z3 vxorps, ymm
1:	.rept 8
	.irp r, 7,8,9,10,11,12,13
	B_ADD7 \r
	.endr
	.endr
	dec %rdi
	jnz 1b
	PK_END gx_pk_mix_fma_fadd_b, 1
	PK_BEGIN gx_pk_mix_fma_fadd_ab
	Z3 vxorps, ymm
1:	.rept 8
	.irp r, 0,1,2,3,4,5,6
	A_FMA7 \r
	.endr
	.irp r, 7,8,9,10,11,12,13
	B_ADD7 \r
	.endr
	.endr
	dec %rdi
	jnz 1b
	PK_END gx_pk_mix_fma_fadd_ab, 1

	BW_RW avx, ymm, 32, vmovaps, vmovaps, 1

	PK_BEGIN gx_pk_bw_triad_avx
	vbroadcastsd %xmm0, %ymm0
2:	xor %rax, %rax
1:	.irp r, 1,2,3,4,5,6,7,8
	vmulpd (\r-1)*32(%rdx,%rax), %ymm0, %ymm\r
	vaddpd (\r-1)*32(%rsi,%rax), %ymm\r, %ymm\r
	vmovapd %ymm\r, (\r-1)*32(%rdi,%rax)
	.endr
	add $256, %rax
	cmp %rcx, %rax
	jb 1b
	dec %r8
	jnz 2b
	PK_END gx_pk_bw_triad_avx, 1

	.section .note.GNU-stack, "", @progbits
#endif
