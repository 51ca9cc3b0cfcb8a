/*
 * The guest's workload of known instruction count (tests/pmu/wl-loop.c):
 * each function runs x0 iterations of exactly 8 instructions (6 adds, subs,
 * b.ne) and returns; x0 = 0 is not allowed. Hand-written so no compiler
 * can change the count: hot_loop(n) retires 8n + 1 instructions (the ret),
 * cold_loop likewise.
 */
	.text
	.macro LOOP name
	.p2align 4
	.globl \name
	.type \name, %function
\name:
1:	add x1, x1, #1
	add x2, x2, #1
	add x3, x3, #1
	add x4, x4, #1
	add x5, x5, #1
	add x6, x6, #1
	subs x0, x0, #1
	b.ne 1b
	ret
	.size \name, .-\name
	.endm

	LOOP hot_loop
	LOOP cold_loop

	.section .note.GNU-stack, "", %progbits
