/*
 * aarch64 peak kernels: integer add/multiply, scalar and NEON FP add,
 * multiply and FMA, NEON integer add and multiply-add, loads and stores,
 * the pointer chase, the mixes, NEON bandwidth kernels, and SVE kernels at
 * the vector length of the running CPU (read with cntb). Same C signature as
 * on x86: void gx_pk_NAME_{lat,tput}(uint64_t iters, void *buf), 96
 * instructions per iteration, 12 chains for throughput. Chains live in
 * caller-saved registers only (x2..x13, v16..v27 / z16..z27; sources x14,
 * v28/v29, z28/z29). Assembled only for aarch64: x86 builds see nothing.
 */
#if defined(__aarch64__)
	.arch armv8.2-a+sve

	.macro PK_BEGIN name
	.text
	.p2align 6
	.globl \name
	.type \name, %function
\name:
	.endm
	.macro PK_END name
	ret
	.size \name, .-\name
	.endm

	.macro LOOP_END
	subs x0, x0, #1
	b.ne 1b
	.endm

/* Forms: r is the chain register number, t the arrangement or size. */
	.macro GADD op, t, r
	\op x\r, x\r, x14
	.endm
	.macro NS3 op, t, r		/* scalar FP: r = r op 28 (t = s or d) */
	\op \t\r, \t\r, \t\()28
	.endm
	.macro NS4 op, t, r		/* scalar FMA: r = 28 * 29 + r */
	\op \t\r, \t\()28, \t\()29, \t\r
	.endm
	.macro NV3 op, t, r		/* NEON: r = r op 28 */
	\op v\r\().\t, v\r\().\t, v28.\t
	.endm
	.macro NVM op, t, r		/* NEON accumulate: r += 28 * 29 */
	\op v\r\().\t, v28.\t, v29.\t
	.endm
	.macro NLD op, t, r
	ldr q\r, [x1, #(\r-16)*64]
	.endm
	.macro NST op, t, r
	str q28, [x1, #(\r-16)*64]
	.endm
	.macro GLD op, t, r
	ldr x\r, [x1, #(\r-2)*72]
	.endm
	.macro GST op, t, r
	str x14, [x1, #(\r-2)*8]
	.endm
	.macro SV3 op, t, r		/* SVE unpredicated: r = r op 28 */
	\op z\r\().\t, z\r\().\t, z28.\t
	.endm
	.macro SVP op, t, r		/* SVE predicated: r = r op 28 */
	\op z\r\().\t, p0/m, z\r\().\t, z28.\t
	.endm
	.macro SVM op, t, r		/* SVE accumulate: r += 28 * 29 */
	\op z\r\().\t, p0/m, z28.\t, z29.\t
	.endm
	.macro SLD op, t, r
	ldr z\r, [x1, #(\r-16), mul vl]
	.endm
	.macro SST op, t, r
	str z28, [x1, #(\r-16), mul vl]
	.endm

	.macro MOVI0 r
	movi v\r\().16b, #0
	.endm
	.macro ZV			/* zero v16..v29 (and so z16..z29) */
	.irp r, 16,17,18,19,20,21,22,23,24,25,26,27,28,29
	MOVI0 \r
	.endr
	.endm
	.macro ZX
	mov x2, #0
	mov x3, #0
	mov x4, #0
	mov x5, #0
	mov x6, #0
	mov x7, #0
	mov x8, #0
	mov x9, #0
	mov x10, #0
	mov x11, #0
	mov x12, #0
	mov x13, #0
	mov x14, #1
	.endm

/*
 * gx_pk_NAME_lat (unless lat=0): 96 dependent instructions on chain base;
 * gx_pk_NAME_tput: 8 rounds over the 12 independent chains from base (2
 * for GPRs, 16 for vectors). z zeroes the registers; sve sets p0 first.
 */
	.macro KPAIR sve, name, form, op, t, z, lat, base
	.if \lat
	PK_BEGIN gx_pk_\name\()_lat
	\z
	.if \sve
	ptrue p0.b
	.endif
1:	.rept 96
	\form \op, \t, \base
	.endr
	LOOP_END
	PK_END gx_pk_\name\()_lat
	.endif
	PK_BEGIN gx_pk_\name\()_tput
	\z
	.if \sve
	ptrue p0.b
	.endif
1:	.rept 8
	.if \base == 2
	.irp r, 2,3,4,5,6,7,8,9,10,11,12,13
	\form \op, \t, \r
	.endr
	.else
	.irp r, 16,17,18,19,20,21,22,23,24,25,26,27
	\form \op, \t, \r
	.endr
	.endif
	.endr
	LOOP_END
	PK_END gx_pk_\name\()_tput
	.endm

	.macro APAIR name, form, op, t, z, lat=1, base=16
	KPAIR 1, \name, \form, \op, \t, \z, \lat, \base
	.endm

/* NEON and GPR kernels: no SVE instruction (ptrue) may run on them. */
	.macro NPAIR name, form, op, t, z, lat=1, base=16
	KPAIR 0, \name, \form, \op, \t, \z, \lat, \base
	.endm

/* ---- base (GPR) and NEON -------------------------------------------------- */
	NPAIR int_add, GADD, add, x, ZX, 1, 2
	NPAIR int_imul, GADD, mul, x, ZX, 1, 2
	NPAIR ld_gpr, GLD, ldr, x, ZX, 0, 2
	NPAIR st_gpr, GST, str, x, ZX, 0, 2
	NPAIR add_f32_s, NS3, fadd, s, ZV
	NPAIR add_f64_s, NS3, fadd, d, ZV
	NPAIR mul_f32_s, NS3, fmul, s, ZV
	NPAIR mul_f64_s, NS3, fmul, d, ZV
	NPAIR fma_f32_s, NS4, fmadd, s, ZV
	NPAIR fma_f64_s, NS4, fmadd, d, ZV
	NPAIR add_f32_128, NV3, fadd, 4s, ZV
	NPAIR add_f64_128, NV3, fadd, 2d, ZV
	NPAIR mul_f32_128, NV3, fmul, 4s, ZV
	NPAIR mul_f64_128, NV3, fmul, 2d, ZV
	NPAIR fma_f32_128, NVM, fmla, 4s, ZV
	NPAIR fma_f64_128, NVM, fmla, 2d, ZV
	NPAIR vadd_i32_128, NV3, add, 4s, ZV
	NPAIR vmadd_i32_128, NVM, mla, 4s, ZV
	NPAIR ld_128, NLD, ldr, q, ZV, 0
	NPAIR st_128, NST, str, q, ZV, 0

	PK_BEGIN gx_pk_ld_gpr_lat
	mov x2, x1
1:	.rept 96
	ldr x2, [x2]
	.endr
	LOOP_END
	mov x0, x2			/* where the chase stopped */
	PK_END gx_pk_ld_gpr_lat

/* ---- mixes (see kern-x86-avx2.S): 10 of A and/or B per round ------------- */
	.macro A_FMA r
	fmla v\r\().4s, v28.4s, v29.4s
	.endm
	.macro A_FADD r
	fadd v\r\().4s, v\r\().4s, v28.4s
	.endm
	.macro B_LD r
	ldr q30, [x1, #(\r-16)*64]
	.endm
	.macro B_ST r
	str q29, [x1, #1024+(\r-16)*64]
	.endm
/* gx_pk_mix_NAME: z zeroes, then iterations of 8 rounds `round a, b`
 * (a or b may be empty). */
	.macro MIXK name, z, round, a, b
	PK_BEGIN gx_pk_mix_\name
	\z
1:	.rept 8
	\round \a, \b
	.endr
	LOOP_END
	PK_END gx_pk_mix_\name
	.endm
	.macro ROUND10 a, b		/* A and B interleaved on chains 16..25 */
	.irp r, 16,17,18,19,20,21,22,23,24,25
	.ifnb \a
	\a \r
	.endif
	.ifnb \b
	\b \r
	.endif
	.endr
	.endm
	.macro MIX3 name, a, b
	MIXK \name\()_a, ZV, ROUND10, \a
	MIXK \name\()_b, ZV, ROUND10, , \b
	MIXK \name\()_ab, ZV, ROUND10, \a, \b
	.endm
	.macro A_LD r
	ldr q30, [x1, #(\r-16)*64]
	.endm
	.macro B_FADD r			/* chains v0..v7, v30, v31: keep off 16..25 */
	fadd v\r\().4s, v\r\().4s, v28.4s
	.endm
	MIX3 fma_load, A_FMA, B_LD
	MIX3 fma_store, A_FMA, B_ST
	MIX3 load_store, A_LD, B_ST

	/* fma + fadd: 10 FMA chains in v16..v25, 10 FADD chains in v0..v7, v30, v31 */
	.macro ROUND_FF a, b		/* A on v16..v25, then B on v0..v7, v30, v31 */
	.ifnb \a
	.irp r, 16,17,18,19,20,21,22,23,24,25
	\a \r
	.endr
	.endif
	.ifnb \b
	.irp r, 0,1,2,3,4,5,6,7,30,31
	\b \r
	.endr
	.endif
	.endm
	.macro ZV_FF			/* ZV, and the FADD chains */
	ZV
	.irp r, 0,1,2,3,4,5,6,7,30,31
	MOVI0 \r
	.endr
	.endm
	MIXK fma_fadd_a, ZV, ROUND_FF, A_FMA
	MIXK fma_fadd_b, ZV_FF, ROUND_FF, , B_FADD
	MIXK fma_fadd_ab, ZV_FF, ROUND_FF, A_FMA, B_FADD

/* ---- NEON bandwidth: 8 q registers (128 B) per iteration ---------------- */
	PK_BEGIN gx_pk_bw_read_neon
2:	mov x3, x0
	add x4, x0, x1
1:	ldp q0, q1, [x3]
	ldp q2, q3, [x3, #32]
	ldp q4, q5, [x3, #64]
	ldp q6, q7, [x3, #96]
	add x3, x3, #128
	cmp x3, x4
	b.lo 1b
	subs x2, x2, #1
	b.ne 2b
	PK_END gx_pk_bw_read_neon

	PK_BEGIN gx_pk_bw_write_neon
	movi v0.16b, #0
	movi v1.16b, #0
2:	mov x3, x0
	add x4, x0, x1
1:	stp q0, q1, [x3]
	stp q0, q1, [x3, #32]
	stp q0, q1, [x3, #64]
	stp q0, q1, [x3, #96]
	add x3, x3, #128
	cmp x3, x4
	b.lo 1b
	subs x2, x2, #1
	b.ne 2b
	PK_END gx_pk_bw_write_neon

	PK_BEGIN gx_pk_bw_copy_neon	/* (dst x0, src x1, bytes x2, reps x3) */
2:	mov x4, #0
1:	add x5, x1, x4
	add x6, x0, x4
	ldp q0, q1, [x5]
	ldp q2, q3, [x5, #32]
	ldp q4, q5, [x5, #64]
	ldp q6, q7, [x5, #96]
	stp q0, q1, [x6]
	stp q2, q3, [x6, #32]
	stp q4, q5, [x6, #64]
	stp q6, q7, [x6, #96]
	add x4, x4, #128
	cmp x4, x2
	b.lo 1b
	subs x3, x3, #1
	b.ne 2b
	PK_END gx_pk_bw_copy_neon

	PK_BEGIN gx_pk_bw_triad_neon	/* (a x0, b x1, c x2, bytes x3, reps x4, s d0) */
	dup v31.2d, v0.d[0]
2:	mov x5, #0
1:	add x6, x2, x5
	add x7, x1, x5
	ldp q0, q1, [x6]
	ldp q2, q3, [x6, #32]
	ldp q4, q5, [x7]
	ldp q6, q7, [x7, #32]
	fmla v4.2d, v0.2d, v31.2d
	fmla v5.2d, v1.2d, v31.2d
	fmla v6.2d, v2.2d, v31.2d
	fmla v7.2d, v3.2d, v31.2d
	add x6, x0, x5
	stp q4, q5, [x6]
	stp q6, q7, [x6, #32]
	add x5, x5, #64
	cmp x5, x3
	b.lo 1b
	subs x4, x4, #1
	b.ne 2b
	PK_END gx_pk_bw_triad_neon

/* ---- SVE: the vector length is whatever the CPU has --------------------- */
	PK_BEGIN gx_pk_sve_vl_bytes
	cntb x0
	PK_END gx_pk_sve_vl_bytes

	APAIR add_f32_sve, SV3, fadd, s, ZV
	APAIR add_f64_sve, SV3, fadd, d, ZV
	APAIR mul_f32_sve, SV3, fmul, s, ZV
	APAIR mul_f64_sve, SV3, fmul, d, ZV
	APAIR fma_f32_sve, SVM, fmla, s, ZV
	APAIR fma_f64_sve, SVM, fmla, d, ZV
	APAIR vadd_i32_sve, SV3, add, s, ZV
	APAIR vmadd_i32_sve, SVM, mla, s, ZV
	APAIR ld_sve, SLD, ldr, b, ZV, 0
	APAIR st_sve, SST, str, b, ZV, 0

/* ---- a conditional branch on each byte of buf (kern-x86-sse.S) --------- */
	PK_BEGIN gx_pk_branch
	mov x2, #0
	mov x3, #0
1:	ldrb w4, [x1, x2]
	cbnz w4, 2f
	add x3, x3, #1
2:	add x2, x2, #1
	cmp x2, x0
	b.ne 1b
	mov x0, x3
	PK_END gx_pk_branch

/* ---- an indirect branch each iteration (kern-x86-sse.S): each target
 * branches on the bits of its number before it goes back ---------------- */
	PK_BEGIN gx_pk_indirect
	mov x2, #0
	mov x3, #0
	adr x5, 3f
1:	ldrb w4, [x1, x2]
	and x4, x4, #15
	add x6, x5, x4, lsl #6
	br x6
	.p2align 6
3:	.irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	mov x7, #\k
	tbz x7, #0, 4f
	add x3, x3, #1
4:	tbz x7, #1, 5f
	add x3, x3, #1
5:	tbz x7, #2, 6f
	add x3, x3, #1
6:	tbz x7, #3, 7f
	add x3, x3, #1
7:	add x3, x3, #1
	b 2f
	.p2align 6
	.endr
2:	add x2, x2, #1
	cmp x2, x0
	b.ne 1b
	mov x0, x3
	PK_END gx_pk_indirect

	.section .note.GNU-stack, "", %progbits
#endif
