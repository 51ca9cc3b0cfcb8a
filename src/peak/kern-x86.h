/*
 * kern-x86.h: GAS macros shared by the x86-64 peak kernels (included by the
 * kern-x86-*.S files through cpp). Every kernel has the C signature
 *	void gx_pk_NAME_{lat,tput}(uint64_t iters, void *buf);
 * and runs `iters` iterations of a body of PK_BODY (96) instructions under
 * test; the loop adds one fused dec/jnz per iteration. Latency bodies are
 * one dependent chain; throughput bodies are 12 independent chains (enough
 * for 4 pipes of latency 3 or 2 pipes of latency 5-6). Sources are registers
 * 14 and 15, chains use 0..11. Nothing here can be removed by a compiler:
 * it is assembled as written.
 */
#ifndef GX_PEAK_KERN_X86_H
#define GX_PEAK_KERN_X86_H

	.macro PK_BEGIN name
	.text
	.p2align 6
	.globl \name
	.type \name, @function
\name:
	.endm

	.macro PK_END name, vz=0
	.if \vz
	vzeroupper
	.endif
	ret
	.size \name, .-\name
	.endm

/* Operand forms; r is the chain register number, p the register prefix. */
	.macro F2 op, p, r		/* SSE: r = r op 15 */
	\op %\p\()15, %\p\r
	.endm
	.macro F3 op, p, r		/* VEX/EVEX: r = r op 15 */
	\op %\p\()15, %\p\r, %\p\r
	.endm
	.macro FM op, p, r		/* accumulate: r += 14 * 15 (FMA, VNNI) */
	\op %\p\()15, %\p\()14, %\p\r
	.endm
	.macro LD op, p, r		/* independent loads from distinct lines */
	\op \r*64(%rsi), %\p\r
	.endm
	.macro ST op, p, r		/* independent stores to distinct lines */
	\op %\p\()15, \r*64(%rsi)
	.endm

	.macro Z2 zop, p		/* zero registers 0..15 (SSE) */
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	\zop %\p\r, %\p\r
	.endr
	.endm
	.macro Z3 zop, p		/* zero registers 0..15 (VEX/EVEX) */
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	\zop %\p\r, %\p\r, %\p\r
	.endr
	.endm

	.macro BODY_LAT form, op, p
	.rept 96
	\form \op, \p, 0
	.endr
	.endm
	.macro BODY_TPUT form, op, p
	.rept 8
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11
	\form \op, \p, \r
	.endr
	.endr
	.endm

/* gx_pk_NAME: zform zeroes the registers, then iterations of body. */
	.macro VKERN name, body, form, op, p, zform, zop, vz
	PK_BEGIN gx_pk_\name
	\zform \zop, \p
1:	\body \form, \op, \p
	dec %rdi
	jnz 1b
	PK_END gx_pk_\name, \vz
	.endm

/* gx_pk_NAME_lat and gx_pk_NAME_tput for a vector instruction. */
	.macro VPAIR name, form, op, p, zform, zop, vz
	VKERN \name\()_lat, BODY_LAT, \form, \op, \p, \zform, \zop, \vz
	VTPUT \name, \form, \op, \p, \zform, \zop, \vz
	.endm

/* Throughput only (loads and stores have no register chain). */
	.macro VTPUT name, form, op, p, zform, zop, vz
	VKERN \name\()_tput, BODY_TPUT, \form, \op, \p, \zform, \zop, \vz
	.endm

/*
 * Bandwidth kernels over [buf, buf + bytes), `reps` passes, 8 vectors of
 * W bytes per loop iteration (bytes must be a multiple of 8 * W):
 *	gx_pk_bw_read_ISA(buf, bytes, reps)
 *	gx_pk_bw_write_ISA(buf, bytes, reps)
 *	gx_pk_bw_copy_ISA(dst, src, bytes, reps)
 *	gx_pk_bw_triad_ISA(a, b, c, bytes, reps, double s)	a = b + s * c
 */
	.macro BW_RW isa, p, W, ld, st, vz
	PK_BEGIN gx_pk_bw_read_\isa
2:	mov %rdi, %rax
	lea (%rdi,%rsi), %rcx
1:	.irp r, 0,1,2,3,4,5,6,7
	\ld \r*\W(%rax), %\p\r
	.endr
	add $8*\W, %rax
	cmp %rcx, %rax
	jb 1b
	dec %rdx
	jnz 2b
	PK_END gx_pk_bw_read_\isa, \vz

	PK_BEGIN gx_pk_bw_write_\isa
2:	mov %rdi, %rax
	lea (%rdi,%rsi), %rcx
1:	.irp r, 0,1,2,3,4,5,6,7
	\st %\p\()0, \r*\W(%rax)
	.endr
	add $8*\W, %rax
	cmp %rcx, %rax
	jb 1b
	dec %rdx
	jnz 2b
	PK_END gx_pk_bw_write_\isa, \vz

	PK_BEGIN gx_pk_bw_copy_\isa
2:	xor %rax, %rax
1:	.irp r, 0,1,2,3,4,5,6,7
	\ld \r*\W(%rsi,%rax), %\p\r
	.endr
	.irp r, 0,1,2,3,4,5,6,7
	\st %\p\r, \r*\W(%rdi,%rax)
	.endr
	add $8*\W, %rax
	cmp %rdx, %rax
	jb 1b
	dec %rcx
	jnz 2b
	PK_END gx_pk_bw_copy_\isa, \vz
	.endm

/* gx_pk_bw_triad_ISA with VEX/EVEX three-operand forms, W-byte vectors. */
	.macro BW_TRIAD_VEX isa, p, W
	PK_BEGIN gx_pk_bw_triad_\isa
	vbroadcastsd %xmm0, %\p\()0
2:	xor %rax, %rax
1:	.irp r, 1,2,3,4,5,6,7,8
	vmulpd (\r-1)*\W(%rdx,%rax), %\p\()0, %\p\r
	vaddpd (\r-1)*\W(%rsi,%rax), %\p\r, %\p\r
	vmovapd %\p\r, (\r-1)*\W(%rdi,%rax)
	.endr
	add $8*\W, %rax
	cmp %rcx, %rax
	jb 1b
	dec %r8
	jnz 2b
	PK_END gx_pk_bw_triad_\isa, 1
	.endm

/* Dependent GPR loads: the pointer chase (buf[i] holds the next address);
 * returns (rax) the address it stopped at. */
	.macro CHASE name
	PK_BEGIN \name
	mov %rsi, %rax
1:	.rept 96
	mov (%rax), %rax
	.endr
	dec %rdi
	jnz 1b
	PK_END \name
	.endm

#endif
