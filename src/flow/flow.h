/*
 * flow: machine code's control flow as its branches tell it, and the loops
 * in it. Two ways in, one graph out:
 *
 * - branch stacks (a sampled LBR, BRBE or BRS stack, newest entry first):
 *   flow_stacks__add turns each into AutoFDO's range counts (a span of
 *   straight-line code between two taken branches, counted once per
 *   occurrence) and taken-branch counts, with mispredicts and cycles where
 *   the hardware gives them;
 * - exact counts (the model: callgrind's executions per instruction and
 *   its jumps): flow_graph__add_insn and flow_graph__add_edge.
 *
 * flow_graph__finish then cuts basic blocks, counts their executions,
 * finds natural loops from back edges (a branch to a block that dominates
 * it) and gives each loop its entries, iterations and trips. Addresses are
 * a module's own (what objdump prints); a module is the caller's number
 * (a string id). Nothing here prints; flow stands on util alone.
 */
#ifndef GX_FLOW_H
#define GX_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLOW_NO_MODULE UINT32_MAX

/* ---- instructions ---------------------------------------------------------- */

enum flow_kind {
	FLOW_PLAIN,	/* goes on to the next instruction */
	FLOW_JUMP,	/* an unconditional direct jump */
	FLOW_COND,	/* a conditional direct jump */
	FLOW_CALL,	/* a call (comes back to the next instruction) */
	FLOW_RET,	/* a return */
	FLOW_IND,	/* an indirect jump */
};

/* What an instruction of objdump's or capstone's text does ("jne 0x1190",
 * "callq 0x1030 <f>", "ret", "b.ne 0x4005d0", "bl 0x400400"), and a
 * direct branch's target in *target (the text's address; 0: none). */
enum flow_kind flow_insn_kind(const char *text, uint64_t *target);

/* Whether the instruction ends a straight-line run for the model's
 * pricing (a call, return or unconditional jump: x86's and Arm's). */
bool flow_insn_ends_run(const char *text);

/* The length of the x86-64 branch instruction (jcc, jmp, call, ret, an
 * indirect jmp or call, syscall, with their prefixes) that starts at
 * code[0 .. n), and its kind; 0 (FLOW_PLAIN) where it is none of these.
 * A branch stack's source is one; the code after it is where its
 * not-taken way (or a call's return) goes. */
size_t flow_x86_branch_len(const uint8_t *code, size_t n, enum flow_kind *kind);

/* The instructions that start in [addr, last] of code (n bytes from
 * addr, the last instruction whole within them; last its address or any
 * byte of it, as a block cut by the next one's start ends) for the ELF
 * machine: EM_X86_64 decoded by capstone (opened when first needed),
 * EM_AARCH64 4 bytes each. A block's length in instructions; 0 where it
 * cannot tell (another machine, no capstone, bytes it cannot decode). */
uint64_t flow_count_insns(int machine, const uint8_t *code, size_t n, uint64_t addr,
			  uint64_t last);

/* ---- branch stacks --------------------------------------------------------- */

/* One entry of a stack, its addresses already the modules' own. */
struct flow_entry {
	uint32_t mod_from, mod_to;	/* FLOW_NO_MODULE: unmapped, kernel */
	uint64_t from, to;
	bool mispred;
	uint16_t cycles;		/* since the previous entry; 0: not timed */
};

/* A span [start, end] run straight through: end is the address of the
 * branch that left it. cycles: summed over the timed occurrences. */
struct flow_range {
	uint32_t module;
	uint64_t start, end;
	uint64_t count, cycles, timed;
};

/* A taken branch. cycles: the time since the branch before it, summed
 * over timed occurrences (the span that led to it). paired: the times it
 * was counted with the range it began (every entry but the newest), the
 * count that agrees with the ranges' (the graph's edges), and of those
 * paired_mispred mispredicted. */
struct flow_branch {
	uint32_t module;
	uint64_t from, to;
	uint64_t count, mispred, cycles, timed;
	uint64_t paired, paired_mispred;
};

struct flow_stacks;

struct flow_stacks *flow_stacks__new(void);
void flow_stacks__delete(struct flow_stacks *fs);

/*
 * One stack, e[0] the newest, as AutoFDO's perf reader counts it: e[0]'s
 * branch counted; for each older entry i, the span from its target to the
 * next newer entry's source counted as a range and its own branch
 * counted, unless the span runs backwards or over 1 MiB (a bogus entry:
 * neither counted), or it is e[1] repeating e[0] (Intel's duplicated
 * first entry: skipped) unless that is a back edge of at most 4 KiB (a
 * short loop that may really repeat). Where a span's two ends lie in
 * different modules it is bogus too. The newest entry's
 * span (its target to the sampled ip) is not counted. A span's module is
 * its start's; a branch counts where its source's and target's modules
 * are one.
 */
void flow_stacks__add(struct flow_stacks *fs, const struct flow_entry *e, size_t n);

/* The tables, sorted by (module, start/from, end/to). Owned by fs. */
const struct flow_range *flow_stacks__ranges(const struct flow_stacks *fs, size_t *n);
const struct flow_branch *flow_stacks__branches(const struct flow_stacks *fs, size_t *n);
/* Stacks added; entries seen; spans dropped as bogus; duplicates skipped. */
void flow_stacks__stats(const struct flow_stacks *fs, uint64_t *stacks, uint64_t *entries,
			uint64_t *bogus, uint64_t *dups);

/* ---- the graph ------------------------------------------------------------- */

struct flow_block {
	uint32_t module;
	uint64_t start, end;	/* the first and the last instruction's address */
	uint64_t execs;		/* times its first instruction ran */
	uint64_t insns;		/* instructions it runs each time, 0: unknown */
	double cycles;		/* summed over the executions timed */
	uint64_t timed;		/* executions with cycles (0: none) */
	int32_t loop;		/* the innermost loop it is in, -1: none */
};

struct flow_edge {
	uint32_t src, dst;	/* blocks */
	uint64_t count, mispred;
	bool taken;		/* a taken branch (else the way on) */
};

struct flow_loop {
	uint32_t module;
	uint32_t head;		/* its header block */
	uint64_t entries;	/* times it was entered from outside */
	uint64_t iterations;	/* times its header ran */
	uint64_t exits;		/* taken branches out of it */
	uint64_t exit_mispred;	/* of those, mispredicted */
	double cycles;		/* its blocks' cycles: each's per timed execution times executions */
	uint32_t nr_blocks;
	int32_t parent;		/* the loop it is nested in, -1: none */
	uint32_t depth;		/* 1: outermost */
};

struct flow_graph {
	struct flow_block *blocks;	/* sorted by (module, start) */
	size_t nr_blocks;
	struct flow_edge *edges;	/* sorted by (src, dst) */
	size_t nr_edges;
	struct flow_loop *loops;	/* hottest (most iterations) first */
	size_t nr_loops;
	void *priv;
};

void flow_graph__init(struct flow_graph *g);
void flow_graph__exit(struct flow_graph *g);

/*
 * Exact counts: an instruction at addr of kind kind, len bytes, that ran
 * execs times for cycles in all, a branch mispredicted mispred times (its
 * blocks are cut where the kind, a branch target, a gap or a change of
 * count says; a call's block goes on to the next, as the call returns),
 * and a taken edge from a branch's address to its target, count times
 * (a call's or a return's is no edge of its function's graph). Each
 * instruction once. Then flow_graph__finish.
 */
void flow_graph__add_insn(struct flow_graph *g, uint32_t module, uint64_t addr, uint32_t len,
			  enum flow_kind kind, uint64_t execs, double cycles, uint64_t mispred);
void flow_graph__add_edge(struct flow_graph *g, uint32_t module, uint64_t from, uint64_t to,
			  uint64_t count, uint64_t mispred);

/*
 * From branch stacks: blocks begin at the ranges' starts and the
 * instruction after each range's last one (len(ctx, module, addr, &kind)
 * is the length and kind of the branch instruction at addr, 0: unknown,
 * then the next start), end at the ranges' ends; a call's block goes on to
 * the one after the call as often as it called; a block's executions are the ranges'
 * counts that cover its start, its cycles the ranges' spread over the
 * blocks they cover by their instructions' share (bytes where unknown).
 * Then flow_graph__finish.
 */
void flow_graph__from_stacks(struct flow_graph *g, const struct flow_stacks *fs,
			     size_t (*len)(void *ctx, uint32_t module, uint64_t addr,
					   enum flow_kind *kind),
			     void *ctx);

/* Blocks, edges and loops from what was added. */
void flow_graph__finish(struct flow_graph *g);

/* The block of module that holds addr, or -1. */
long flow_graph__block_at(const struct flow_graph *g, uint32_t module, uint64_t addr);

/* Average trips per entry of a loop (iterations / entries; 0: none). */
double flow_loop__trips(const struct flow_loop *l);

#endif
