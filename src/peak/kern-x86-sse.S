/*
 * x86-64 baseline kernels (SSE2, always present): integer add/multiply,
 * scalar and 128-bit SSE FP add/multiply, SSE2 integer add and
 * multiply-add, GPR and xmm loads and stores, the pointer chase, SSE2
 * bandwidth kernels. No VEX encoding here: these run on every x86-64 CPU.
 */
#if defined(__x86_64__)	/* assembled empty elsewhere, as kern-arm64.S is on x86 */
#include "kern-x86.h"

/* ---- integer: 12 chains in rax..r14, source r15 (callee-saved pushed) --- */
	.macro PUSH6
	push %rbx
	push %rbp
	push %r12
	push %r13
	push %r14
	push %r15
	.endm
	.macro POP6
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbp
	pop %rbx
	.endm
	.macro ZGPR
	.irp r, rax,rcx,rdx,r8,r9,r10,r11,rbx,rbp,r12,r13,r14
	xor %\r, %\r
	.endr
	mov $1, %r15
	.endm

	.macro ILAT name, op
	PK_BEGIN gx_pk_\name\()_lat
	PUSH6
	ZGPR
1:	.rept 96
	\op %r15, %rax
	.endr
	dec %rdi
	jnz 1b
	POP6
	PK_END gx_pk_\name\()_lat
	.endm

	.macro IPAIR name, op
	ILAT \name, \op
	PK_BEGIN gx_pk_\name\()_tput
	PUSH6
	ZGPR
1:	.rept 8
	.irp r, rax,rcx,rdx,r8,r9,r10,r11,rbx,rbp,r12,r13,r14
	\op %r15, %\r
	.endr
	.endr
	dec %rdi
	jnz 1b
	POP6
	PK_END gx_pk_\name\()_tput
	.endm

/*
 * int.add throughput, written for the front end as much as for the ALUs.
 * 96 adds of 3 bytes gave Zen 3 3.96 adds per cycle (4 x 96/97: the fused
 * dec/jnz takes an ALU slot, branches issue on the ALU pipes) and a Zen 5
 * guest 5.26 of 6, blamed first on the op cache (at most 6 ops a cycle,
 * never from two 32- or 64-byte windows in one cycle). So:
 *  - every 32-byte window of the loop holds exactly 6 ops (one of 6 ALUs a
 *    cycle either way; Zen 3/4 and Intel fetch more than that per window),
 *    `add %r15, reg` padded to 5 or 6 bytes with ignored DS prefixes
 *    (5+5+5+5+6+6): register operands, no immediates to fill op-cache slots;
 *  - 48 windows per iteration, 287 adds and the fused dec/jnz: the loop
 *    costs 1 ALU slot in 288 (0.35%);
 *  - 12 chains, twice the ALUs of the widest core at latency 1.
 * kernels.c counts PK_ADD_TPUT_BODY adds per iteration for this kernel.
 * On a Zen 5 (EPYC, family 26) it still reads 5.3: so does every other
 * layout tried (3-byte adds, 96 or 288 a loop; `add $1` on 14 chains, 560
 * a loop; 6 to 14 chains; or, sub, lea, not), while `mov $1, reg`, an ALU
 * operation with no source register, runs 5.95 (gx_pk_alu_movi_tput below,
 * int.add's reference). Six ALUs are there and the front end feeds them;
 * what Zen 5 does not sustain is six operations a cycle that read registers
 * (lea from a register no one writes: 5.49), and peak says so beside the
 * figure (peak_limit()).
 */
	.macro ADDP r, pad
	.rept \pad
	.byte 0x3e
	.endr
	add %r15, %\r
	.endm
	.macro WIN6 a, b, c, d, e, f
	ADDP \a, 2
	ADDP \b, 2
	ADDP \c, 2
	ADDP \d, 2
	ADDP \e, 3
	ADDP \f, 3
	.endm

	ILAT int_add, add
	PK_BEGIN gx_pk_int_add_tput
	PUSH6
	ZGPR
	.p2align 6
1:	.rept 23
	WIN6 rax, rcx, rdx, r8, r9, r10
	WIN6 r11, rbx, rbp, r12, r13, r14
	.endr
	WIN6 rax, rcx, rdx, r8, r9, r10
	ADDP r11, 2
	ADDP rbx, 2
	ADDP rbp, 2
	ADDP r12, 2
	ADDP r13, 0
	.if (. - 1b) != 48 * 32 - 9
	.error "int_add_tput: the loop must end a 32-byte window with its dec/jnz"
	.endif
	dec %rdi
	jnz 1b
	POP6
	PK_END gx_pk_int_add_tput

/*
 * int.add's reference: PK_ADD_TPUT_BODY ALU operations that read no
 * register (mov of an immediate into 14 registers in turn), so nothing
 * waits on a result: what the ALUs deliver when dependences do not count.
 */
	PK_BEGIN gx_pk_alu_movi_tput
	PUSH6
1:	.rept 20
	.irp r, rax,rcx,rdx,rsi,r8,r9,r10,r11,rbx,rbp,r12,r13,r14,r15
	mov $1, %\r
	.endr
	.endr
	.irp r, rax,rcx,rdx,rsi,r8,r9,r10
	mov $1, %\r
	.endr
	dec %rdi
	jnz 1b
	POP6
	PK_END gx_pk_alu_movi_tput

	IPAIR int_imul, imul

/*
 * GPR loads, 12 per round, each in its own line and 8 bytes further into it
 * than the last (72-byte stride): at one offset they all hit the same L1D
 * bank and Zen 4 managed 2.7 loads per cycle instead of 3. GPR stores go to
 * consecutive 8-byte slots: Zen 3/4 commit two stores per cycle only to the
 * same line (1 per cycle with a 64-byte stride).
 */
	PK_BEGIN gx_pk_ld_gpr_tput
	PUSH6
1:	.rept 8
	.set .Lo, 0
	.irp r, rax,rcx,rdx,r8,r9,r10,r11,rbx,rbp,r12,r13,r14
	mov .Lo(%rsi), %\r
	.set .Lo, .Lo + 72
	.endr
	.endr
	dec %rdi
	jnz 1b
	POP6
	PK_END gx_pk_ld_gpr_tput

	PK_BEGIN gx_pk_st_gpr_tput
	xor %rax, %rax
1:	.rept 8
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11
	mov %rax, \r*8(%rsi)
	.endr
	.endr
	dec %rdi
	jnz 1b
	PK_END gx_pk_st_gpr_tput

	CHASE gx_pk_ld_gpr_lat

/* ---- SSE FP and SSE2 integer ---------------------------------------------- */
	VPAIR add_f32_s, F2, addss, xmm, Z2, pxor, 0
	VPAIR add_f64_s, F2, addsd, xmm, Z2, pxor, 0
	VPAIR mul_f32_s, F2, mulss, xmm, Z2, pxor, 0
	VPAIR mul_f64_s, F2, mulsd, xmm, Z2, pxor, 0
	VPAIR add_f32_128, F2, addps, xmm, Z2, pxor, 0
	VPAIR add_f64_128, F2, addpd, xmm, Z2, pxor, 0
	VPAIR mul_f32_128, F2, mulps, xmm, Z2, pxor, 0
	VPAIR mul_f64_128, F2, mulpd, xmm, Z2, pxor, 0
	VPAIR vadd_i32_128, F2, paddd, xmm, Z2, pxor, 0
	VPAIR vmadd_i16_128, F2, pmaddwd, xmm, Z2, pxor, 0
	VTPUT ld_128, LD, movaps, xmm, Z2, pxor, 0
	VTPUT st_128, ST, movaps, xmm, Z2, pxor, 0

	BW_RW sse, xmm, 16, movaps, movaps, 0

	PK_BEGIN gx_pk_bw_triad_sse
	unpcklpd %xmm0, %xmm0
2:	xor %rax, %rax
1:	.irp r, 1,2,3,4,5,6,7,8
	movapd (\r-1)*16(%rdx,%rax), %xmm\r
	mulpd %xmm0, %xmm\r
	addpd (\r-1)*16(%rsi,%rax), %xmm\r
	movapd %xmm\r, (\r-1)*16(%rdi,%rax)
	.endr
	add $128, %rax
	cmp %rcx, %rax
	jb 1b
	dec %r8
	jnz 2b
	PK_END gx_pk_bw_triad_sse

/* ---- a conditional branch on each byte of buf (the mispredict's cost) ----
 * void gx_pk_branch(uint64_t bytes, const void *buf): the branch's
 * condition is a byte loaded from L1, as a compare of loaded data is;
 * either way the same instructions run (one add is skipped or not). */
	PK_BEGIN gx_pk_branch
	xor %eax, %eax
	xor %ecx, %ecx
1:	cmpb $0, (%rsi,%rcx)
	jne 2f
	add $1, %rax
2:	add $1, %rcx
	cmp %rdi, %rcx
	jne 1b
	PK_END gx_pk_branch

/* ---- an indirect jump each iteration, to one of 16 targets --------------
 * void gx_pk_indirect(uint64_t bytes, const void *buf): byte i of buf
 * (low 4 bits) picks the target, as an interpreter's dispatch does; every
 * target, as an interpreter's handler, branches on its own (here on the
 * bits of its number: always the same way, so always predicted), adds 1
 * and jumps back. Those branches are the history a core's predictor of
 * indirect targets reads the path from: without them every jump came
 * from the same history, and Zen 3's missed 93% of a repeated sequence
 * that it misses 9% of with them. */
	PK_BEGIN gx_pk_indirect
	xor %eax, %eax
	xor %ecx, %ecx
	lea 3f(%rip), %r8
1:	movzbl (%rsi,%rcx), %edx
	and $15, %edx
	shl $6, %edx
	add %r8, %rdx
	jmp *%rdx
	.p2align 6
3:	.irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	mov $\k, %r9d
	test $1, %r9b
	jz 4f
	add $1, %rax
4:	test $2, %r9b
	jz 5f
	add $1, %rax
5:	test $4, %r9b
	jz 6f
	add $1, %rax
6:	test $8, %r9b
	jz 7f
	add $1, %rax
7:	add $1, %rax
	jmp 2f
	.p2align 6
	.endr
2:	add $1, %rcx
	cmp %rdi, %rcx
	jne 1b
	PK_END gx_pk_indirect

	.section .note.GNU-stack, "", @progbits
#endif
