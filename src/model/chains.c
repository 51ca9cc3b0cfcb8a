/*
 * chains.c: loads that wait for one another (issue 40), which the model
 * prices at each miss's whole latency (dep_load).
 *
 * Within one block: a load whose address comes from its own last value
 * round the block (a loop's body), through other loads and spilled
 * registers too, each miss waiting for the one before; and a gather (its
 * address from another load of the block) whose value decides the
 * block's branch: bzip2's block[ptr[i] + d], each byte compared, cost
 * its L2 latency a miss natively (perf: about 29 M cycles, 1.5 M misses),
 * as each mispredict waits for the byte. A gather into a sum
 * (s += a[order[k]]) is no chain: its misses overlap from turn to turn
 * (wl-model's scatter_lines: 42 cycles a line natively, memory's latency
 * 380). A loop whose body spans
 * blocks hides the same chain: xz's binary tree of
 * matches loads the next node's index in one block, computes its address
 * in another (lea (%r9,%rax,4),%rbx) and loads it in a third, each turn's
 * address from the last turn's load. Such a load is marked dep_load here:
 * walking back from it along the paths callgrind saw taken (its jumps,
 * and the fall-through to the next instruction), following the registers
 * its address is computed from through the instructions that wrote them,
 * the walk comes back to the load itself. A register another load wrote
 * ends its trail (that value came from memory, not from the chain), as
 * does a call (it clobbers the registers the ABI lets it). Where the walk
 * meets another load instead (but a stack slot's reload), and the load's
 * value decides its block's branch, it is a gather across blocks, and
 * waits as one within a block does: gzip's compare of the window's byte
 * at a match (cmpb %r10b, (%rax,%rsi)), its address from the chain
 * through prev[] in the block before, 18.4 M misses that L2 serves, 39%
 * of gzip's samples natively (about 255 M cycles): the compare was
 * modelled at 27 M cycles, its misses taken to overlap; its block is now
 * at 129 M (8.3 M of the misses come in a stride, priced by bandwidth).
 *
 * Registers are x86-64's sixteen general ones; an instruction's reads
 * and writes are read from llvm's AT&T text (the last operand the one
 * written, but by compares and tests). Only loads that miss L1 are
 * looked at: a chain of hits costs its latencies, which llvm-mca has.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model-int.h"
#include "flow/flow.h"
#include "util/util.h"

#define CHAIN_STEPS 512		/* instructions one walk may visit */
#define CHAIN_STACK 256		/* paths it keeps to follow */
#define CHAIN_SEEN 64		/* (meeting point, registers) pairs it remembers */
#define RSP (1u << 4)		/* the stack pointer: not a chain's */

/* ---- a chain within a block ------------------------------------------------ */

/* The comma before an AT&T instruction's last operand, or NULL: not one
 * within a memory operand's parentheses ("movq %rax, (%r13,%rsi)" stores:
 * its last comma is the address's). */
static const char *last_comma(const char *t)
{
	const char *comma = NULL;
	int depth = 0;

	for (; *t; t++)
		if (*t == '(')
			depth++;
		else if (*t == ')' && depth > 0)
			depth--;
		else if (*t == ',' && !depth)
			comma = t;
	return comma;
}

static bool starts(const char *t, const char *w)
{
	return !strncmp(t, w, strlen(w));
}

bool model_insn_is_load(const char *t)
{
	const char *comma = last_comma(t);
	const char *paren = strchr(t, '(');

	if (!paren || !comma || starts(t, "lea") || starts(t, "nop"))
		return false;
	/* a memory source operand: the "(" before the last comma; or a
	 * compare's or a test's memory, which it reads wherever it is (gzip's
	 * "cmpb %r10b, (%rax,%rsi)", the window's byte at a match) */
	return paren < comma ||
	       ((starts(t, "cmp") || starts(t, "test")) && !starts(t, "cmpxchg"));
}

/* ---- what an instruction reads and writes --------------------------------- */

/* The general register a name after '%' is (0-15, one of its names:
 * "eax", "al", "r8d"), its length into *len; -1: none (xmm0, rip, fs). */
static int reg_id(const char *p, size_t *len)
{
	static const char *const names[][5] = {
		{ "rax", "eax", "ax", "al", "ah" }, { "rcx", "ecx", "cx", "cl", "ch" },
		{ "rdx", "edx", "dx", "dl", "dh" }, { "rbx", "ebx", "bx", "bl", "bh" },
		{ "rsp", "esp", "sp", "spl", NULL }, { "rbp", "ebp", "bp", "bpl", NULL },
		{ "rsi", "esi", "si", "sil", NULL }, { "rdi", "edi", "di", "dil", NULL },
	};
	size_t n = 0;

	while (p[n] >= 'a' && p[n] <= 'z' ? 1 : p[n] >= '0' && p[n] <= '9')
		n++;
	*len = n;
	if (n >= 2 && p[0] == 'r' && p[1] >= '0' && p[1] <= '9') {	/* r8 .. r15[dwb] */
		int r = p[1] - '0';
		size_t k = 2;

		if (p[2] >= '0' && p[2] <= '9')
			r = r * 10 + p[k++] - '0';
		if (r < 8 || r > 15 || (n > k && (n != k + 1 || !strchr("dwb", p[k]))))
			return -1;
		return r;
	}
	for (int r = 0; r < 8; r++)
		for (int k = 0; k < 5 && names[r][k]; k++)
			if (strlen(names[r][k]) == n && !strncmp(p, names[r][k], n))
				return r;
	return -1;
}

/* The registers named in text [p, end), as a mask. */
static unsigned regs_in(const char *p, const char *end)
{
	unsigned m = 0;

	for (; p < end; p++)
		if (*p == '%') {
			size_t len;
			int r = reg_id(p + 1, &len);

			if (r >= 0)
				m |= 1u << r;
			p += len;
		}
	return m;
}

#define CALL_CLOBBERS 0x0fc7u	/* rax rcx rdx rsi rdi r8-r11 */

void model_insn_rw(const char *t, unsigned *reads, unsigned *writes, bool *load)
{
	const char *ops = strchr(t, ' '), *last, *end = t + strlen(t);
	unsigned all, dst = 0;
	bool one;		/* one operand */

	*reads = *writes = 0;
	*load = false;
	if (starts(t, "call")) {
		*writes = CALL_CLOBBERS;
		return;
	}
	if (starts(t, "cqto") || starts(t, "cltd") || starts(t, "cltq") || starts(t, "cwtl")) {
		*reads = 0x1;	/* rax into rdx's sign, or its own */
		*writes = starts(t, "cltq") || starts(t, "cwtl") ? 0x1 : 0x4;
		return;
	}
	if (!ops)
		return;
	while (*ops == ' ')
		ops++;
	last = last_comma(ops);
	one = !last;
	last = last ? last + 1 : ops;
	while (*last == ' ')
		last++;
	all = regs_in(ops, end);
	if (*last == '%') {
		size_t len;
		int r = reg_id(last + 1, &len);

		if (r >= 0)
			dst = 1u << r;
	}
	*load = model_insn_is_load(t);
	*reads = all;
	if (starts(t, "cmp") || starts(t, "test") || starts(t, "bt ") || starts(t, "btl") ||
	    starts(t, "btq") || starts(t, "ucomis") || starts(t, "comis") || starts(t, "push") ||
	    starts(t, "j") || starts(t, "vucomis") || starts(t, "vcomis") || starts(t, "ptest"))
		return;
	/* one operand: the integer multiply and divide (mulsd's has two) */
	if (one && (starts(t, "mul") || starts(t, "div") || starts(t, "idiv") ||
		    starts(t, "imul"))) {
		*reads |= 0x5;	/* rax, rdx */
		*writes = 0x5;
		return;
	}
	if (starts(t, "xchg") || starts(t, "xadd"))
		*writes = regs_in(ops, last - 1 > ops ? last - 1 : ops) | dst;
	else
		*writes = dst;
	/* a register's own old value is not read by a move, a load of an
	 * address, a set or a pop; nor by a zero idiom (xor %eax, %eax) */
	if (starts(t, "mov") || starts(t, "lea") || starts(t, "set") || starts(t, "pop"))
		*reads &= ~dst | regs_in(ops, last);
	if ((starts(t, "xor") || starts(t, "sub")) && !one && dst &&
	    regs_in(ops, end) == dst && !strchr(ops, '('))
		*reads = 0;
}

/* ---- a chain within a block, in order ------------------------------------ */

/* t's memory operand ("8(%rsp)" in "movq 8(%rsp), %rax"), its length
 * into *n; NULL: none */
static const char *mem_operand(const char *t, size_t *n)
{
	const char *paren = strchr(t, '('), *p, *close;

	if (!paren || !(close = strchr(paren, ')')))
		return NULL;
	for (p = paren; p > t && p[-1] != ' ' && p[-1] != ','; p--)
		;
	*n = (size_t)(close + 1 - p);
	return p;
}

/* Whether t loads (or stores, store) the stack slot slot[0..n) (a spilled
 * register: a chain's value may pass through one between its loads) */
static bool at_slot(const char *t, bool store, const char *slot, size_t n)
{
	size_t m;
	const char *op = mem_operand(t, &m);

	return op && m == n && !memcmp(op, slot, n) && memmem(slot, n, "(%rsp)", 6) &&
	       model_insn_is_load(t) != store;
}

enum { FROM_NONE, FROM_ITSELF, FROM_LOAD };

/*
 * Where load i of block b has its address from: walking back from it
 * round the block (to its first instruction, then from its last: the
 * loop's last turn), each instruction that writes a register its address
 * comes from followed taking it off and adding what it reads, a load's
 * address too, and a reload of a stack slot followed to the store that
 * spilled it: FROM_ITSELF where i itself writes one (a chain), else
 * FROM_LOAD where another load wrote one on the way (a gather:
 * a[order[k]]).
 */
static int address_from(const struct model_state *st, const struct model_block *b, size_t i)
{
	const char *t = st->ins[i].text, *paren = strchr(t, '('), *slot = NULL;
	unsigned regs = regs_in(paren, paren + strcspn(paren, ")")) & ~RSP;
	size_t len = 0;
	int from = FROM_NONE;

	for (size_t step = 1; step <= b->n && (regs || slot); step++) {
		size_t k = b->first + (i - b->first + b->n - step) % b->n;
		const char *u = st->ins[k].text;
		unsigned rd, wr;
		bool ld;

		if (!u)
			return from;
		model_insn_rw(u, &rd, &wr, &ld);
		if (slot && at_slot(u, true, slot, len)) {
			regs |= rd & ~RSP;	/* the register spilled there */
			slot = NULL;
		}
		if (!(wr & regs))
			continue;
		if (k == i)
			return FROM_ITSELF;
		if (ld)
			from = FROM_LOAD;
		regs = (regs & ~wr) | (rd & ~RSP);
		if (ld && !slot && (slot = mem_operand(u, &len)) && !at_slot(u, false, slot, len))
			slot = NULL;
	}
	return from;
}

static bool reads_flags(const char *t);
static bool keeps_flags(const char *t);

/* Whether load i's value decides a conditional branch of block b after
 * it, through the registers and the flags it flows into */
static bool decides_branch(const struct model_state *st, const struct model_block *b, size_t i)
{
	unsigned rd, wr, regs;
	bool ld, flags;

	model_insn_rw(st->ins[i].text, &rd, &wr, &ld);
	regs = wr & ~RSP;
	flags = !keeps_flags(st->ins[i].text);	/* a compare's of memory, an add's */
	for (size_t k = i + 1; k < b->first + b->n && (regs || flags); k++) {
		const char *u = st->ins[k].text;
		bool tainted;

		if (!u)
			return false;
		if (starts(u, "j") && !starts(u, "jmp")) {
			if (flags)
				return true;
			continue;
		}
		model_insn_rw(u, &rd, &wr, &ld);
		tainted = (rd & regs) || (flags && reads_flags(u));
		if (!keeps_flags(u))
			flags = tainted;
		regs = tainted ? (regs | wr) & ~RSP : regs & ~wr;
	}
	return false;
}

void model_mark_dependent(struct model_state *st, const struct model_block *b)
{
	for (size_t i = b->first; i < b->first + b->n; i++) {
		int from;

		if (st->ins[i].dep_load || !st->ins[i].text || !model_insn_is_load(st->ins[i].text))
			continue;
		from = address_from(st, b, i);
		st->ins[i].dep_load = from == FROM_ITSELF ||
				      (from == FROM_LOAD && decides_branch(st, b, i));
	}
}

/* ---- the paths, backwards ------------------------------------------------- */

struct preds {
	size_t *at, *v;		/* ins i's predecessors: v[at[i] .. at[i + 1]) */
};

static int cmp_jump_to(const void *a, const void *b)
{
	const struct cg_jump *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Each disassembled instruction's predecessors: the instructions whose
 * jumps callgrind saw go to it, and the one before it where that one can
 * go on to it (not an unconditional or indirect jump, nor a return). */
static void build_preds(const struct model_state *st, struct preds *p)
{
	size_t n = st->nr_ins, nj = st->cg.nr_jumps, *cnt = xcalloc(n + 1, sizeof(*cnt));
	struct cg_jump *j = xcalloc(nj + 1, sizeof(*j));
	size_t *from = xcalloc(nj + 1, sizeof(*from)), *to = xcalloc(nj + 1, sizeof(*to));
	size_t *fall = xcalloc(n + 1, sizeof(*fall));

	memcpy(j, st->cg.jumps, nj * sizeof(*j));
	gx_qsort(j, nj, sizeof(*j), cmp_jump_to);
	for (size_t k = 0; k < nj; k++) {
		from[k] = j[k].count ? model_ins_at(st, j[k].obj, j[k].from) : SIZE_MAX;
		to[k] = from[k] != SIZE_MAX ? model_ins_at(st, j[k].obj, j[k].to) : SIZE_MAX;
		if (to[k] != SIZE_MAX)
			cnt[to[k]]++;
	}
	for (size_t i = 1; i < n; i++) {
		const struct model_insn *a = &st->ins[i - 1], *b = &st->ins[i];
		uint64_t target;
		enum flow_kind k;

		fall[i] = SIZE_MAX;
		if (!a->text || !b->text || a->obj != b->obj || b->addr - a->addr > 16)
			continue;
		k = flow_insn_kind(a->text, &target);
		if (k == FLOW_JUMP || k == FLOW_RET || k == FLOW_IND)
			continue;
		fall[i] = i - 1;
		cnt[i]++;
	}
	p->at = xcalloc(n + 2, sizeof(*p->at));
	for (size_t i = 0; i < n; i++)
		p->at[i + 1] = p->at[i] + cnt[i];
	p->v = xcalloc(p->at[n] + 1, sizeof(*p->v));
	memset(cnt, 0, (n + 1) * sizeof(*cnt));
	for (size_t k = 0; k < nj; k++)
		if (to[k] != SIZE_MAX)
			p->v[p->at[to[k]] + cnt[to[k]]++] = from[k];
	for (size_t i = 1; i < n; i++)
		if (fall[i] != SIZE_MAX)
			p->v[p->at[i] + cnt[i]++] = fall[i];
	free(fall);
	free(to);
	free(from);
	free(j);
	free(cnt);
}

struct walk {
	size_t at;
	unsigned regs;
};

/* Whether t reloads a stack slot (a spilled register: where its value
 * came from the walk across blocks does not follow) */
static bool reloads_slot(const char *t)
{
	size_t m;
	const char *op = mem_operand(t, &m);

	return op && memmem(op, m, "(%rsp)", 6);
}

/* Where load l's address (registers addr) comes from along the paths to
 * it: from l's predecessors back, each instruction that writes a register
 * followed taking it off and adding what it read, but a load's (that
 * value came from memory): FROM_ITSELF where l's own last value is one
 * on some path (a chase), else FROM_LOAD where another load's is (a
 * gather; a reload of a spilled register is none), else FROM_NONE. */
static int address_across(const struct model_state *st, const struct preds *p, const unsigned *rd,
			  const unsigned *wr, const bool *ld, size_t l, unsigned addr)
{
	struct walk stack[CHAIN_STACK], seen[CHAIN_SEEN];
	size_t sp = 0, ns = 0, steps = 0;
	int from = FROM_NONE;

	for (size_t k = p->at[l]; k < p->at[l + 1] && sp < CHAIN_STACK; k++)
		stack[sp++] = (struct walk){ p->v[k], addr };
	while (sp && steps++ < CHAIN_STEPS) {
		struct walk w = stack[--sp];
		size_t i = w.at, np = p->at[i + 1] - p->at[i];
		bool dup = false;

		if (!st->ins[i].text)
			continue;
		if (wr[i] & w.regs) {
			if (i == l)
				return FROM_ITSELF;
			if (ld[i] && !reloads_slot(st->ins[i].text))
				from = FROM_LOAD;
			w.regs &= ~wr[i];
			if (!ld[i])
				w.regs |= rd[i] & ~RSP;
			if (!w.regs)
				continue;
		}
		if (np != 1 || p->v[p->at[i]] != i - 1) {	/* where paths meet */
			for (size_t k = 0; k < ns && !dup; k++)
				dup = seen[k].at == i && seen[k].regs == w.regs;
			if (dup)
				continue;
			if (ns < CHAIN_SEEN)
				seen[ns++] = w;
		}
		for (size_t k = p->at[i]; k < p->at[i + 1] && sp < CHAIN_STACK; k++)
			stack[sp++] = (struct walk){ p->v[k], w.regs };
	}
	return from;
}

size_t model_mark_chains(struct model_state *st, size_t *gathers)
{
	size_t n = st->nr_ins, marked = 0, gathered = 0;
	unsigned *rd = xcalloc(n + 1, sizeof(*rd)), *wr = xcalloc(n + 1, sizeof(*wr));
	bool *ld = xcalloc(n + 1, sizeof(*ld));
	struct preds p;

	for (size_t i = 0; i < n; i++)
		if (st->ins[i].text)
			model_insn_rw(st->ins[i].text, &rd[i], &wr[i], &ld[i]);
	build_preds(st, &p);
	for (size_t i = 0; i < n; i++) {
		const struct cg_insn *c = &st->cg.insns[st->ins[i].cg];
		const char *t = st->ins[i].text, *paren;
		unsigned addr;
		int from;

		if (!t || !ld[i] || st->ins[i].dep_load || !c->c[CG_D1MR] ||
		    c->c[CG_D1MR] * 100 < c->c[CG_DR])
			continue;
		paren = strchr(t, '(');
		addr = regs_in(paren, paren + strcspn(paren, ")")) & ~RSP;
		from = addr ? address_across(st, &p, rd, wr, ld, i, addr) : FROM_NONE;
		/* a gather whose value decides its block's branch waits as
		 * one within a block does (model_mark_dependent): gzip's
		 * byte of the window at a match, its address from the chain
		 * through prev[] in the block before */
		if (from == FROM_ITSELF) {
			st->ins[i].dep_load = true;
			marked++;
		} else if (from == FROM_LOAD && st->ins[i].block >= 0 &&
			   decides_branch(st, &st->blocks[st->ins[i].block], i)) {
			st->ins[i].dep_load = true;
			gathered++;
		}
	}
	if (marked)
		model_note(st, "model: %zu %s chase across %s loop's blocks (an address from the "
		           "load's own last value): each miss waits for the one before", marked,
		           marked == 1 ? "load" : "loads", marked == 1 ? "its" : "their");
	if (gathered)
		model_note(st, "model: %zu %s an address from another block's load and a value "
		           "that decides %s block's branch: each miss waits", gathered,
		           gathered == 1 ? "load has" : "loads have", gathered == 1 ? "its" : "their");
	if (gathers)
		*gathers = gathered;
	free(p.at);
	free(p.v);
	free(ld);
	free(wr);
	free(rd);
	return marked;
}

/* ---- a loop's chain of latencies ------------------------------------------ */

#define FLAGS (1u << 16)	/* the flags, as a register of their own */
#define REC_TURNS 16		/* turns of the loop followed */

/* Whether AT&T instruction t reads the flags as data (not a branch's). */
static bool reads_flags(const char *t)
{
	return starts(t, "cmov") || starts(t, "set") || starts(t, "adc") || starts(t, "sbb") ||
	       starts(t, "rcl") || starts(t, "rcr");
}

/* Whether it leaves the flags alone (moves, address loads, the stack,
 * jumps, sets and conditional moves); every other one is taken to set
 * them. */
static bool keeps_flags(const char *t)
{
	return starts(t, "mov") || starts(t, "lea") || starts(t, "push") || starts(t, "pop") ||
	       starts(t, "j") || starts(t, "call") || starts(t, "nop") || starts(t, "set") ||
	       starts(t, "cmov") || starts(t, "not") || starts(t, "bswap") || starts(t, "xchg") ||
	       starts(t, "prefetch");
}

double model_loop_recurrence(const char *const *text, const double *lat, size_t n)
{
	double ready[17] = { 0 }, half = 0, end = 0;
	unsigned *rd = xcalloc(n + 1, sizeof(*rd)), *wr = xcalloc(n + 1, sizeof(*wr));

	/* what each reads and writes, read once */
	for (size_t i = 0; i < n; i++) {
		bool load;

		if (!text[i] || !(lat[i] >= 0)) {
			free(rd);
			free(wr);
			return NAN;
		}
		model_insn_rw(text[i], &rd[i], &wr[i], &load);
		if (reads_flags(text[i]))
			rd[i] |= FLAGS;
		if (!keeps_flags(text[i]))
			wr[i] |= FLAGS;
		/* the stack engine keeps rsp: not a chain's */
		rd[i] &= ~RSP;
		wr[i] &= ~RSP;
	}
	for (unsigned turn = 1; turn <= REC_TURNS; turn++) {
		for (size_t i = 0; i < n; i++) {
			double t = 0;

			for (unsigned r = 0; r < 17; r++)
				if (rd[i] & (1u << r) && ready[r] > t)
					t = ready[r];
			t += lat[i];
			for (unsigned r = 0; r < 17; r++)
				if (wr[i] & (1u << r))
					ready[r] = t;
		}
		for (unsigned r = 0; r < 17; r++)
			if (ready[r] > end)
				end = ready[r];
		if (turn == REC_TURNS / 2)
			half = end;
	}
	free(rd);
	free(wr);
	return (end - half) / (REC_TURNS / 2);
}

double model_block_recurrence(const struct model_state *st, const struct model_block *b,
			      const struct mca_lat *lat)
{
	const char **text = xcalloc(b->n + 1, sizeof(*text));
	size_t n = 0;
	double r;

	/* the instructions model_blocks gave llvm-mca, in its order */
	for (size_t i = b->first; i < b->first + b->n; i++)
		if (st->ins[i].text && !st->ins[i].rep)
			text[n++] = st->ins[i].text;
	r = n && n == lat->n ? model_loop_recurrence(text, lat->v, n) : NAN;
	free(text);
	return r;
}
