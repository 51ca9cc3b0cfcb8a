/*
 * insn.c: what an instruction does to the flow, from a disassembler's
 * text (objdump's, capstone's: the model and the TUI) or from x86-64
 * bytes at a branch stack's source (the report, which has no
 * disassembler: only branch instructions need decoding there).
 */
#include "config.h"

#include "flow.h"

#include <stdlib.h>
#include <string.h>

static bool starts(const char *t, const char *w)
{
	return !strncmp(t, w, strlen(w));
}

/* The first operand's address ("jne 0x1190 <f+0x20>" -> 0x1190), or 0. */
static uint64_t operand_addr(const char *t)
{
	const char *sp = strchr(t, ' ');

	if (!sp)
		return 0;
	while (*sp == ' ')
		sp++;
	if (*sp == '#')		/* Arm's "b #0x40" in some spellings */
		sp++;
	return strncmp(sp, "0x", 2) ? 0 : strtoull(sp, NULL, 16);
}

enum flow_kind flow_insn_kind(const char *t, uint64_t *target)
{
	uint64_t a;

	*target = 0;
	if (!t || !*t)
		return FLOW_PLAIN;
	if (starts(t, "ret") || starts(t, "iret") || starts(t, "lret") || starts(t, "eret"))
		return FLOW_RET;
	a = operand_addr(t);
	if (starts(t, "call") || starts(t, "bl ") || starts(t, "blr")) {
		*target = a;
		return FLOW_CALL;
	}
	if (starts(t, "jmp") || starts(t, "b ") || starts(t, "br ") || starts(t, "ljmp")) {
		*target = a;
		return a ? FLOW_JUMP : FLOW_IND;
	}
	/* x86's jcc, loop, jrcxz; Arm's b.cond, cbz, cbnz, tbz, tbnz */
	if (t[0] == 'j' || starts(t, "loop") || starts(t, "b.") || starts(t, "cbz") ||
	    starts(t, "cbnz") || starts(t, "tbz") || starts(t, "tbnz")) {
		/* cbz x0, 0x40; tbz w1, #3, 0x40: the last operand */
		const char *c = strrchr(t, ',');

		*target = c ? operand_addr(c) : a;
		if (c && !*target) {
			while (*++c == ' ')
				;
			*target = strncmp(c, "0x", 2) ? 0 : strtoull(c, NULL, 16);
		}
		return *target ? FLOW_COND : FLOW_IND;
	}
	return FLOW_PLAIN;
}

bool flow_insn_ends_run(const char *t)
{
	return t && (!strncmp(t, "call", 4) || !strncmp(t, "ret", 3) || !strncmp(t, "jmp", 3) ||
		     !strncmp(t, "bl ", 3) || !strncmp(t, "b ", 2));
}

/* The bytes a ModRM byte and what follows it take (SIB, displacement). */
static size_t modrm_len(const uint8_t *p, size_t n)
{
	unsigned mod, rm;
	size_t len = 1;

	if (!n)
		return 0;
	mod = p[0] >> 6, rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;
	} else if (mod == 0 && rm == 5) {
		len += 4;	/* rip-relative */
	}
	len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	return len <= n ? len : 0;
}

static bool is_prefix(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x3e ||
	       b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65 || b == 0xf0;
}

size_t flow_x86_branch_len(const uint8_t *code, size_t n, enum flow_kind *kind)
{
	size_t i = 0, m;
	uint8_t op;

	*kind = FLOW_PLAIN;
	while (i < n && i < 14 && is_prefix(code[i]))
		i++;
	if (i < n && (code[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i >= n)
		return 0;
	op = code[i++];
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) {
		*kind = FLOW_COND;
		return i + 1 <= n ? i + 1 : 0;
	}
	switch (op) {
	case 0xeb:
		*kind = FLOW_JUMP;
		return i + 1 <= n ? i + 1 : 0;
	case 0xe9:
	case 0xe8:
		*kind = op == 0xe8 ? FLOW_CALL : FLOW_JUMP;
		return i + 4 <= n ? i + 4 : 0;
	case 0xc3:
	case 0xcb:
	case 0xcf:
		*kind = FLOW_RET;
		return i;
	case 0xc2:
	case 0xca:
		*kind = FLOW_RET;
		return i + 2 <= n ? i + 2 : 0;
	case 0xcd:	/* int n */
		*kind = FLOW_CALL;
		return i + 1 <= n ? i + 1 : 0;
	case 0x0f:
		if (i >= n)
			return 0;
		op = code[i++];
		if (op >= 0x80 && op <= 0x8f) {
			*kind = FLOW_COND;
			return i + 4 <= n ? i + 4 : 0;
		}
		if (op == 0x05 || op == 0x34) {	/* syscall, sysenter */
			*kind = FLOW_CALL;
			return i;
		}
		if (op == 0x07 || op == 0x35) {	/* sysret, sysexit */
			*kind = FLOW_RET;
			return i;
		}
		return 0;
	case 0xff: {
		unsigned reg;

		if (i >= n)
			return 0;
		reg = (code[i] >> 3) & 7;
		if (reg < 2 || reg > 5)
			return 0;
		m = modrm_len(code + i, n - i);
		if (!m)
			return 0;
		*kind = reg <= 3 ? FLOW_CALL : FLOW_IND;
		return i + m;
	}
	default:
		return 0;
	}
}
