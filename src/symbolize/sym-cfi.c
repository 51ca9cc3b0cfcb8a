/*
 * sym-cfi.c: one step of DWARF unwinding from a module's call frame
 * information, read with libdw (dwarf_getcfi_elf, dwarf_cfi_addrframe).
 * What libdw says for an address (the CFA's expression, each register's
 * rule) is kept as a row in the unwinder's own table, keyed by module and
 * ELF address: valid in every process that maps the module, and read
 * without a lock or a system call. libdw is asked only on a miss, under
 * the session's lock (its own caches are not thread-safe).
 *
 * Registers are numbered as in DWARF for x86-64 (0 rax, 1 rdx, 2 rcx,
 * 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 the return address).
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define CFI_STACK 32		/* the expression evaluator's stack */

enum cfi_kind {
	CFI_UNDEF,		/* cannot be recovered */
	CFI_SAME,		/* the frame left it alone */
	CFI_LOC,		/* at the address the ops compute */
	CFI_VAL,		/* the value the ops compute */
};

struct cfi_rule {
	uint8_t kind;		/* enum cfi_kind */
	uint32_t ops, nops;	/* in sym_cfi.ops */
};

struct cfi_row {
	bool found;		/* false: no CFI covers the address */
	bool signal;		/* a signal frame: the caller's pc is exact */
	uint8_t ra;		/* the return address column */
	uint32_t cfa_ops, cfa_nops;
	struct cfi_rule reg[SYM_CFI_NREGS];
};

struct sym_cfi {
	struct u64map idx;	/* (module index, address) -> row */
	struct cfi_row *rows;
	size_t nr_rows, cap_rows;
	Dwarf_Op *ops;
	size_t nr_ops, cap_ops;
};

struct sym_cfi *sym_cfi__new(void)
{
	struct sym_cfi *c = xzalloc(sizeof(*c));

	u64map__init(&c->idx);
	return c;
}

void sym_cfi__delete(struct sym_cfi *c)
{
	if (!c)
		return;
	u64map__exit(&c->idx);
	free(c->rows);
	free(c->ops);
	free(c);
}

static uint32_t keep_ops(struct sym_cfi *c, const Dwarf_Op *ops, size_t n)
{
	uint32_t at = (uint32_t)c->nr_ops;

	c->ops = xgrow(c->ops, &c->cap_ops, c->nr_ops + n + 1, sizeof(*c->ops));
	if (n)
		memcpy(c->ops + at, ops, n * sizeof(*ops));
	c->nr_ops += n;
	return at;
}

/* What libdw says for vaddr in dso, as a row (called under the lock). */
static void make_row(struct sym_cfi *c, struct sym_dso *dso, uint64_t vaddr, struct cfi_row *row)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	int ra;

	memset(row, 0, sizeof(*row));
	if (!dso->cfi || dwarf_cfi_addrframe(dso->cfi, vaddr, &frame) != 0 || !frame)
		return;
	ra = dwarf_frame_info(frame, NULL, NULL, &row->signal);
	if (ra < 0 || ra >= SYM_CFI_NREGS || dwarf_frame_cfa(frame, &ops, &nops) != 0 || !nops)
		goto out;
	row->ra = (uint8_t)ra;
	row->cfa_ops = keep_ops(c, ops, nops);
	row->cfa_nops = (uint32_t)nops;
	for (int r = 0; r < SYM_CFI_NREGS; r++) {
		Dwarf_Op mem[3];
		struct cfi_rule *rule = &row->reg[r];

		if (dwarf_frame_register(frame, r, mem, &ops, &nops) != 0) {
			rule->kind = CFI_UNDEF;
			continue;
		}
		if (!nops) {
			rule->kind = ops ? CFI_UNDEF : CFI_SAME;
			continue;
		}
		if (ops[nops - 1].atom == DW_OP_stack_value) {
			rule->kind = CFI_VAL;
			nops--;
		} else {
			rule->kind = CFI_LOC;
		}
		rule->ops = keep_ops(c, ops, nops);
		rule->nops = (uint32_t)nops;
	}
	row->found = true;
out:
	free(frame);
}

static const struct cfi_row *find_row(struct sym_cfi *c, struct sym_dso *dso, uint64_t vaddr)
{
	uint64_t key = (uint64_t)dso->index << 44 ^ vaddr, *slot;
	struct cfi_row row;

	slot = key != UINT64_MAX ? u64map__find(&c->idx, key) : NULL;
	if (slot && *slot)
		return &c->rows[*slot - 1];
	pthread_mutex_lock(&dso->s->lock);
	make_row(c, dso, vaddr, &row);
	pthread_mutex_unlock(&dso->s->lock);
	c->rows = xgrow(c->rows, &c->cap_rows, c->nr_rows + 1, sizeof(*c->rows));
	c->rows[c->nr_rows++] = row;
	/* an address past 2^44 shares its key with another module's: not kept */
	if (key != UINT64_MAX && vaddr < (1ull << 44))
		*u64map__findnew(&c->idx, key, 0) = c->nr_rows;
	return &c->rows[c->nr_rows - 1];
}

/* A binary operator of DWARF's stack machine on a (below) and b (top). */
static uint64_t binop(uint8_t o, uint64_t a, uint64_t b)
{
	switch (o) {
	case DW_OP_plus: return a + b;
	case DW_OP_minus: return a - b;
	case DW_OP_mul: return a * b;
	case DW_OP_and: return a & b;
	case DW_OP_or: return a | b;
	case DW_OP_xor: return a ^ b;
	case DW_OP_shl: return b < 64 ? a << b : 0;
	case DW_OP_shr: return b < 64 ? a >> b : 0;
	case DW_OP_shra: {	/* arithmetic: the sign bit shifted in */
		uint64_t r = b < 64 ? a >> b : 0;

		if ((a >> 63) && b)
			r |= b < 64 ? ~(UINT64_MAX >> b) : UINT64_MAX;
		return r;
	}
	case DW_OP_eq: return a == b;
	case DW_OP_ne: return a != b;
	case DW_OP_lt: return (int64_t)a < (int64_t)b;
	case DW_OP_le: return (int64_t)a <= (int64_t)b;
	case DW_OP_gt: return (int64_t)a > (int64_t)b;
	default: return (int64_t)a >= (int64_t)b;
	}
}

static bool is_binop(uint8_t o)
{
	switch (o) {
	case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and: case DW_OP_or:
	case DW_OP_xor: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
	case DW_OP_eq: case DW_OP_ne: case DW_OP_lt: case DW_OP_le: case DW_OP_gt:
	case DW_OP_ge:
		return true;
	default:
		return false;
	}
}

/* The value an op pushes of its own, a literal, a constant or a register (DW_OP_reg*,
 * DW_OP_breg* with its offset): 1 with it in *v, 0 when op is none of these, -1 when
 * the register is not known. */
static int operand(const Dwarf_Op *op, const struct sym_cfi_regs *regs, uint64_t *v)
{
	uint8_t o = op->atom;

	switch (o) {
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts:
		*v = op->number;
		return 1;
	default:
		break;
	}
	if (o >= DW_OP_lit0 && o <= DW_OP_lit31) {
		*v = (uint64_t)(o - DW_OP_lit0);
		return 1;
	}
	bool breg = (o >= DW_OP_breg0 && o <= DW_OP_breg31) || o == DW_OP_bregx;
	bool reg = (o >= DW_OP_reg0 && o <= DW_OP_reg31) || o == DW_OP_regx;
	unsigned r;

	if (breg)
		r = o == DW_OP_bregx ? (unsigned)op->number : (unsigned)(o - DW_OP_breg0);
	else if (reg)
		r = o == DW_OP_regx ? (unsigned)op->number : (unsigned)(o - DW_OP_reg0);
	else
		return 0;
	if (r >= SYM_CFI_NREGS || !(regs->have & (1u << r)))
		return -1;
	*v = regs->r[r];
	if (breg)
		*v += o == DW_OP_bregx ? op->number2 : op->number;
	return 1;
}

/* Evaluate a DWARF expression of the frame (regs, its cfa) to *out. */
static bool eval(const struct sym_cfi *c, uint32_t at, uint32_t n, const struct sym_cfi_regs *regs,
		 uint64_t cfa, bool have_cfa, sym_cfi_read_fn read, void *arg, uint64_t *out)
{
	uint64_t st[CFI_STACK], a, b;
	size_t sp = 0;

#define PUSH(v) do { if (sp == CFI_STACK) return false; st[sp++] = (v); } while (0)
#define POP(v) do { if (!sp) return false; (v) = st[--sp]; } while (0)
	for (uint32_t i = 0; i < n; i++) {
		const Dwarf_Op *op = &c->ops[at + i];
		uint8_t o = op->atom;

		switch (operand(op, regs, &a)) {
		case -1:
			return false;
		case 1:
			PUSH(a);
			continue;
		}
		if (is_binop(o)) {
			POP(b);
			POP(a);
			PUSH(binop(o, a, b));
			continue;
		}
		switch (o) {
		case DW_OP_call_frame_cfa:
			if (!have_cfa)
				return false;
			PUSH(cfa);
			break;
		case DW_OP_plus_uconst:
			POP(a);
			PUSH(a + op->number);
			break;
		case DW_OP_deref:
			POP(a);
			if (!read(arg, a, &b))
				return false;
			PUSH(b);
			break;
		case DW_OP_dup:
			POP(a);
			PUSH(a);
			PUSH(a);
			break;
		case DW_OP_drop:
			POP(a);
			break;
		case DW_OP_over:
			if (sp < 2)
				return false;
			a = st[sp - 2];
			PUSH(a);
			break;
		case DW_OP_swap:
			POP(a);
			POP(b);
			PUSH(a);
			PUSH(b);
			break;
		case DW_OP_neg: case DW_OP_not:
			POP(a);
			PUSH(o == DW_OP_neg ? -a : ~a);
			break;
		case DW_OP_nop:
			break;
		default:
			return false;	/* not met in CFI as compilers write it */
		}
	}
	if (!sp)
		return false;
	*out = st[sp - 1];
	return true;
#undef PUSH
#undef POP
}

int sym_cfi__step(struct sym_cfi *c, struct sym_dso *dso, uint64_t vaddr,
		  struct sym_cfi_regs *regs, uint64_t *ra, bool *signal, sym_cfi_read_fn read,
		  void *arg)
{
	const struct cfi_row *row = find_row(c, dso, vaddr);
	struct sym_cfi_regs out;
	uint64_t cfa;

	if (!row->found)
		return 0;
	if (!eval(c, row->cfa_ops, row->cfa_nops, regs, 0, false, read, arg, &cfa))
		return -1;
	memset(&out, 0, sizeof(out));
	for (int r = 0; r < SYM_CFI_NREGS; r++) {
		const struct cfi_rule *rule = &row->reg[r];
		uint64_t v;

		switch (rule->kind) {
		case CFI_SAME:
			if (regs->have & (1u << r)) {
				out.r[r] = regs->r[r];
				out.have |= 1u << r;
			}
			break;
		case CFI_LOC:
			if (eval(c, rule->ops, rule->nops, regs, cfa, true, read, arg, &v) &&
			    read(arg, v, &out.r[r]))
				out.have |= 1u << r;
			break;
		case CFI_VAL:
			if (eval(c, rule->ops, rule->nops, regs, cfa, true, read, arg, &v)) {
				out.r[r] = v;
				out.have |= 1u << r;
			}
			break;
		default:
			break;
		}
	}
	if (!(out.have & (1u << row->ra)))
		return -1;	/* the end of the chain: no return address */
	*ra = out.r[row->ra];
	*signal = row->signal;
	/* the caller's stack pointer is the CFA unless a rule says otherwise */
	if (!(out.have & (1u << SYM_CFI_SP))) {
		out.r[SYM_CFI_SP] = cfa;
		out.have |= 1u << SYM_CFI_SP;
	}
	*regs = out;
	return 1;
}
