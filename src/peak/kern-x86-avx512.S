/*
 * x86-64 AVX-512 kernels (EVEX, zmm): FP add, multiply and FMA at 512 bits,
 * integer add (F), multiply-add (BW) and VNNI dot product, zmm loads and
 * stores, and the AVX-512 bandwidth kernels. Called only when CPUID says
 * AVX512F (BW, VNNI) and XCR0 has the opmask and upper-zmm state enabled
 * (XCR0 & 0xE6 == 0xE6).
 */
#if defined(__x86_64__)	/* assembled empty elsewhere, as kern-arm64.S is on x86 */
#include "kern-x86.h"

	VPAIR add_f32_512, F3, vaddps, zmm, Z3, vpxord, 1
	VPAIR add_f64_512, F3, vaddpd, zmm, Z3, vpxord, 1
	VPAIR mul_f32_512, F3, vmulps, zmm, Z3, vpxord, 1
	VPAIR mul_f64_512, F3, vmulpd, zmm, Z3, vpxord, 1
	VPAIR fma_f32_512, FM, vfmadd231ps, zmm, Z3, vpxord, 1
	VPAIR fma_f64_512, FM, vfmadd231pd, zmm, Z3, vpxord, 1
	VPAIR vadd_i32_512, F3, vpaddd, zmm, Z3, vpxord, 1
	VPAIR vmadd_i16_512, F3, vpmaddwd, zmm, Z3, vpxord, 1
	VPAIR vnni_i8_512, FM, vpdpbusd, zmm, Z3, vpxord, 1
	VTPUT ld_512, LD, vmovaps, zmm, Z3, vpxord, 1
	VTPUT st_512, ST, vmovaps, zmm, Z3, vpxord, 1

	BW_RW avx512, zmm, 64, vmovaps, vmovaps, 1

	BW_TRIAD_VEX avx512, zmm, 64

	.section .note.GNU-stack, "", @progbits
#endif
