/*
 * src/flow: instruction kinds, x86 branch lengths, AutoFDO's range counts
 * of branch stacks, and blocks and loops from exact counts and from
 * stacks of a loop nest with known trips (outer 1000 x inner 37).
 */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flow.h"

#include "tap.h"

static void test_kinds(void)
{
	static const struct {
		const char *text;
		enum flow_kind kind;
		uint64_t target;
	} rows[] = {
		{ "jne 0x1190 <f+0x20>", FLOW_COND, 0x1190 },
		{ "jmp 0x4005d0 <main+0x10>", FLOW_JUMP, 0x4005d0 },
		{ "jmpq *%rax", FLOW_IND, 0 },
		{ "callq 0x1030 <puts@plt>", FLOW_CALL, 0x1030 },
		{ "call *0x8(%rax)", FLOW_CALL, 0 },
		{ "retq", FLOW_RET, 0 },
		{ "ret", FLOW_RET, 0 },
		{ "b.ne 0x400600 <loop>", FLOW_COND, 0x400600 },
		{ "cbz x0, 0x400640", FLOW_COND, 0x400640 },
		{ "tbnz w1, #3, 0x400650", FLOW_COND, 0x400650 },
		{ "bl 0x400400 <f>", FLOW_CALL, 0x400400 },
		{ "b 0x400700", FLOW_JUMP, 0x400700 },
		{ "addq $0x1, %rax", FLOW_PLAIN, 0 },
		{ "bswap %eax", FLOW_PLAIN, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t t;
		enum flow_kind k = flow_insn_kind(rows[i].text, &t);

		ok(k == rows[i].kind && t == rows[i].target, "kind of '%s': %d 0x%llx", rows[i].text,
		   (int)k, (unsigned long long)t);
	}
	ok(flow_insn_ends_run("callq 0x10") && flow_insn_ends_run("jmp 0x10") &&
	   !flow_insn_ends_run("jne 0x10") && !flow_insn_ends_run(NULL),
	   "a run ends at calls, returns and jumps, not at a conditional branch");
}

static void test_x86(void)
{
	static const struct {
		uint8_t code[16];
		size_t n, len;
		enum flow_kind kind;
		const char *what;
	} rows[] = {
		{ { 0x75, 0xfe }, 2, 2, FLOW_COND, "jne rel8" },
		{ { 0x0f, 0x85, 1, 2, 3, 4 }, 6, 6, FLOW_COND, "jne rel32" },
		{ { 0xe8, 1, 2, 3, 4 }, 5, 5, FLOW_CALL, "call rel32" },
		{ { 0xe9, 1, 2, 3, 4 }, 5, 5, FLOW_JUMP, "jmp rel32" },
		{ { 0xeb, 0x10 }, 2, 2, FLOW_JUMP, "jmp rel8" },
		{ { 0xc3 }, 1, 1, FLOW_RET, "ret" },
		{ { 0xf3, 0xc3 }, 2, 2, FLOW_RET, "rep ret" },
		{ { 0xc2, 8, 0 }, 3, 3, FLOW_RET, "ret imm16" },
		{ { 0xff, 0xe0 }, 2, 2, FLOW_IND, "jmp *%rax" },
		{ { 0x3e, 0xff, 0xe0 }, 3, 3, FLOW_IND, "notrack jmp *%rax" },
		{ { 0x41, 0xff, 0xd3 }, 3, 3, FLOW_CALL, "call *%r11" },
		{ { 0xff, 0x14, 0xc5, 1, 2, 3, 4 }, 7, 7, FLOW_CALL, "call *disp32(,%rax,8)" },
		{ { 0xff, 0x25, 1, 2, 3, 4 }, 6, 6, FLOW_IND, "jmp *rip+disp32" },
		{ { 0xff, 0x50, 0x08 }, 3, 3, FLOW_CALL, "call *0x8(%rax)" },
		{ { 0x0f, 0x05 }, 2, 2, FLOW_CALL, "syscall" },
		{ { 0x48, 0x89, 0xc0 }, 3, 0, FLOW_PLAIN, "mov: no branch" },
		{ { 0x0f, 0x85, 1, 2 }, 4, 0, FLOW_COND, "jne rel32 cut short" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum flow_kind k;
		size_t len = flow_x86_branch_len(rows[i].code, rows[i].n, &k);

		ok(len == rows[i].len && (!len || k == rows[i].kind), "x86 %s: %zu bytes, kind %d",
		   rows[i].what, len, (int)k);
	}
}

static const struct flow_range *range_of(const struct flow_stacks *fs, uint64_t s, uint64_t e)
{
	size_t n;
	const struct flow_range *r = flow_stacks__ranges(fs, &n);

	for (size_t i = 0; i < n; i++)
		if (r[i].start == s && r[i].end == e)
			return &r[i];
	return NULL;
}

static void test_stacks(void)
{
	struct flow_stacks *fs = flow_stacks__new();
	/* newest first: 0x200 -> 0x300 (the sample's own span dropped),
	 * 0x180 -> 0x1f0, 0x120 -> 0x150, 0x170 -> 0x100 */
	struct flow_entry s1[] = {
		{ 0, 0, 0x200, 0x300, false, 7 },
		{ 0, 0, 0x180, 0x1f0, true, 5 },
		{ 0, 0, 0x120, 0x150, false, 3 },
		{ 0, 0, 0x170, 0x100, false, 0 },
	};
	/* a span backwards (0x400 -> 0x380 after 0x500's target), one over
	 * 1 MiB, and a span into another module */
	struct flow_entry s2[] = {
		{ 0, 0, 0x380, 0x10, false, 0 },
		{ 0, 0, 0x90, 0x400, false, 0 },
		{ 0, 0, 0x200000, 0x50, false, 0 },
		{ 1, 0, 0x10, 0x20, false, 0 },
	};
	/* Intel's duplicate: a long back edge's skipped, a short one's kept */
	struct flow_entry s3[] = {
		{ 0, 0, 0x3000, 0x1000, false, 0 },
		{ 0, 0, 0x3000, 0x1000, false, 0 },
		{ 0, 0, 0x2f0, 0x2e0, false, 0 },
	};
	struct flow_entry s4[] = {
		{ 0, 0, 0x6f0, 0x6e0, false, 0 },
		{ 0, 0, 0x6f0, 0x6e0, false, 0 },
		{ 0, 0, 0x6a0, 0x690, false, 0 },
	};
	const struct flow_range *r;
	const struct flow_branch *b;
	uint64_t st, en, bogus, dups, total = 0;
	size_t n;

	flow_stacks__add(fs, s1, 4);
	flow_stacks__add(fs, s1, 4);
	flow_stacks__add(fs, s2, 4);
	flow_stacks__add(fs, s3, 3);
	flow_stacks__add(fs, s4, 3);
	r = flow_stacks__ranges(fs, &n);
	for (size_t i = 0; i < n; i++)
		total += r[i].count;
	/* s1: 3 ranges twice; s2: none (0x10..0x90 is good but its newer
	 * is 0x90's: [0x400, 0x380] backwards, [0x50, 0x90] good, [0x20,
	 * 0x200000] over 1 MiB, no: module 1's source */
	ok(range_of(fs, 0x1f0, 0x200) && range_of(fs, 0x1f0, 0x200)->count == 2,
	   "the span from an entry's target to the newer one's source is counted per occurrence");
	ok(range_of(fs, 0x150, 0x180) && range_of(fs, 0x100, 0x120), "every older entry gives a range");
	ok(!range_of(fs, 0x300, 0x300) && !range_of(fs, 0x300, 0x200),
	   "the newest entry's span is not counted");
	r = range_of(fs, 0x1f0, 0x200);
	ok(r && r->timed == 2 && r->cycles == 14, "a range's cycles are the newer entry's: %llu",
	   r ? (unsigned long long)r->cycles : 0ULL);
	ok(range_of(fs, 0x50, 0x90) && !range_of(fs, 0x400, 0x380),
	   "a span that runs backwards is dropped, the next counted");
	ok(!range_of(fs, 0x20, 0x200000), "a span over 1 MiB is dropped");
	ok(!range_of(fs, 0x1000, 0x3000) && range_of(fs, 0x2e0, 0x3000) &&
	   range_of(fs, 0x690, 0x6f0) && range_of(fs, 0x6e0, 0x6f0),
	   "a duplicated first entry is skipped, unless a back edge of at most 4 KiB");
	flow_stacks__stats(fs, &st, &en, &bogus, &dups);
	ok(st == 5 && en == 18 && bogus == 2 && dups == 1,
	   "stats: %llu stacks %llu entries %llu bogus %llu duplicates", (unsigned long long)st,
	   (unsigned long long)en, (unsigned long long)bogus, (unsigned long long)dups);
	ok(total == 6 + 1 + 1 + 2, "ranges counted: %llu", (unsigned long long)total);
	b = flow_stacks__branches(fs, &n);
	for (size_t i = 0; i < n; i++)
		if (b[i].from == 0x180)
			ok(b[i].count == 2 && b[i].mispred == 2 && b[i].cycles == 10,
			   "a branch's count, mispredicts and cycles");
	flow_stacks__delete(fs);
}

/* The loop nest: entry 0x100; outer head 0x104; inner 0x108..0x10c (jne
 * 0x108); outer latch 0x10e..0x112 (jne 0x104); ret at 0x114. */
#define OUTER 1000
#define INNER 37

static const struct flow_loop *loop_at(const struct flow_graph *g, uint64_t head)
{
	for (size_t i = 0; i < g->nr_loops; i++)
		if (g->blocks[g->loops[i].head].start == head)
			return &g->loops[i];
	return NULL;
}

static void test_exact(void)
{
	struct flow_graph g;
	const struct flow_loop *in, *out;

	flow_graph__init(&g);
	flow_graph__add_insn(&g, 0, 0x100, 4, FLOW_PLAIN, 1, 1, 0);
	flow_graph__add_insn(&g, 0, 0x104, 4, FLOW_PLAIN, OUTER, OUTER, 0);
	flow_graph__add_insn(&g, 0, 0x108, 4, FLOW_PLAIN, OUTER * INNER, OUTER * INNER, 0);
	flow_graph__add_insn(&g, 0, 0x10c, 2, FLOW_COND, OUTER * INNER, OUTER * INNER, OUTER);
	flow_graph__add_insn(&g, 0, 0x10e, 4, FLOW_PLAIN, OUTER, OUTER, 0);
	flow_graph__add_insn(&g, 0, 0x112, 2, FLOW_COND, OUTER, OUTER, 1);
	flow_graph__add_insn(&g, 0, 0x114, 1, FLOW_RET, 1, 1, 0);
	flow_graph__add_edge(&g, 0, 0x10c, 0x108, OUTER * (INNER - 1), 0);
	flow_graph__add_edge(&g, 0, 0x112, 0x104, OUTER - 1, 0);
	flow_graph__finish(&g);
	is_int(g.nr_blocks, 5, "five blocks");
	is_int(g.nr_loops, 2, "two loops");
	in = loop_at(&g, 0x108), out = loop_at(&g, 0x104);
	ok(in && in->entries == OUTER && in->iterations == OUTER * INNER &&
	   flow_loop__trips(in) == INNER,
	   "inner loop: %llu entries, %llu iterations", in ? (unsigned long long)in->entries : 0ULL,
	   in ? (unsigned long long)in->iterations : 0ULL);
	ok(out && out->entries == 1 && out->iterations == OUTER && out->depth == 1,
	   "outer loop: %llu entries, %llu iterations", out ? (unsigned long long)out->entries : 0ULL,
	   out ? (unsigned long long)out->iterations : 0ULL);
	ok(in && out && in->parent == out - g.loops && in->depth == 2 && out->parent == -1,
	   "the inner loop nests in the outer");
	ok(in && in->exits == OUTER && in->exit_mispred == OUTER, "inner exits and their mispredicts");
	ok(g.loops[0].head == (uint32_t)flow_graph__block_at(&g, 0, 0x108), "hottest loop first");
	ok(in && in->cycles == 2.0 * OUTER * INNER, "loop cycles: %g", in ? in->cycles : 0);
	ok(g.blocks[flow_graph__block_at(&g, 0, 0x10a)].loop == in - g.loops,
	   "a block's loop is its innermost");
	flow_graph__exit(&g);
}

/* The nest's taken branches in order, as a core would record them. */
static size_t nest_trace(struct flow_entry *t)
{
	size_t n = 0;

	for (int o = 0; o < OUTER; o++) {
		for (int i = 0; i < INNER - 1; i++)
			t[n++] = (struct flow_entry){ 0, 0, 0x10c, 0x108, i == 0, 4 };
		if (o < OUTER - 1)
			t[n++] = (struct flow_entry){ 0, 0, 0x112, 0x104, false, 9 };
	}
	return n;
}

static size_t nest_len(void *ctx, uint32_t module, uint64_t addr, enum flow_kind *kind)
{
	(void)ctx, (void)module;
	*kind = FLOW_COND;
	return addr == 0x10c || addr == 0x112 ? 2 : 0;
}

static void test_from_stacks(void)
{
	size_t cap = (size_t)OUTER * INNER, n;
	struct flow_entry *t = calloc(cap, sizeof(*t)), st[16];
	struct flow_stacks *fs = flow_stacks__new();
	struct flow_graph g;
	const struct flow_loop *in, *out;
	unsigned seed = 1;

	n = nest_trace(t);
	for (size_t at = 40; at < n; at += 97 + (seed = seed * 1103515245 + 12345) % 13) {
		for (size_t k = 0; k < 16; k++)	/* newest first */
			st[k] = t[at - k];
		flow_stacks__add(fs, st, 16);
	}
	flow_graph__init(&g);
	flow_graph__from_stacks(&g, fs, nest_len, NULL);
	flow_graph__finish(&g);
	in = loop_at(&g, 0x108), out = loop_at(&g, 0x104);
	ok(in && flow_loop__trips(in) > INNER * 0.95 && flow_loop__trips(in) < INNER * 1.05,
	   "from stacks: inner trips %.2f (37)", in ? flow_loop__trips(in) : 0);
	ok(out && in && in->parent == out - g.loops, "from stacks: the inner loop nests in the outer");
	ok(in && in->cycles / (double)in->iterations > 3.5 && in->cycles / (double)in->iterations < 5,
	   "from stacks: inner cycles per iteration %.2f (4)",
	   in ? in->cycles / (double)in->iterations : 0);
	flow_graph__exit(&g);
	flow_stacks__delete(fs);
	free(t);
}

/* A loop that calls f, which another place calls too: 0x104 calls f
 * (0x400, ret at 0x410), which returns to 0x109; 0x10c jne 0x100; after
 * the loop 0x300 calls f, which returns to 0x305, and 0x306 jumps back to
 * 0xf0, which runs into 0x100: the loop is entered 100 times, 10 turns
 * each, inside an outer one. The call's block
 * goes on to the one after it, so the loop holds f's return point and is
 * found; f's return is no edge of the loop. */
static size_t call_len(void *ctx, uint32_t module, uint64_t addr, enum flow_kind *kind)
{
	(void)ctx, (void)module;
	*kind = addr == 0x104 || addr == 0x300 ? FLOW_CALL : addr == 0x410 ? FLOW_RET :
		addr == 0x306 ? FLOW_JUMP : FLOW_COND;
	return addr == 0x104 || addr == 0x300 ? 5 : addr == 0x410 ? 1 : 2;
}

static void test_calls_in_loop(void)
{
	struct flow_entry t[4000], st[8];
	struct flow_stacks *fs = flow_stacks__new();
	struct flow_graph g;
	const struct flow_loop *l;
	size_t n = 0;

	for (int e = 0; e < 100; e++) {
		t[n++] = (struct flow_entry){ 0, 0, 0x306, 0xf0, false, 0 };
		for (int i = 0; i < 10; i++) {
			t[n++] = (struct flow_entry){ 0, 0, 0x104, 0x400, false, 0 };
			t[n++] = (struct flow_entry){ 0, 0, 0x410, 0x109, false, 0 };
			if (i < 9)
				t[n++] = (struct flow_entry){ 0, 0, 0x10c, 0x100, false, 0 };
		}
		t[n++] = (struct flow_entry){ 0, 0, 0x300, 0x400, false, 0 };
		t[n++] = (struct flow_entry){ 0, 0, 0x410, 0x305, false, 0 };
	}
	for (size_t at = 8; at < n; at += 3) {
		for (size_t k = 0; k < 8; k++)
			st[k] = t[at - k];
		flow_stacks__add(fs, st, 8);
	}
	flow_graph__init(&g);
	flow_graph__from_stacks(&g, fs, call_len, NULL);
	flow_graph__finish(&g);
	l = loop_at(&g, 0x100);
	ok(l && flow_loop__trips(l) > 9 && flow_loop__trips(l) < 11,
	   "a loop that calls a function called elsewhere too: found, trips %.2f (10)",
	   l ? flow_loop__trips(l) : 0);
	ok(!loop_at(&g, 0x400), "the function it calls is no loop of its own");
	ok(l && loop_at(&g, 0xf0) && l->parent == loop_at(&g, 0xf0) - g.loops,
	   "the loop nests in the one around it, through the second call");
	flow_graph__exit(&g);
	flow_stacks__delete(fs);
}

/* A block's instructions from its bytes: x86-64 through capstone, aarch64
 * by its fixed length; a block that ends at its last instruction's
 * address or at the byte before the next block's start counts the same. */
static void test_count(void)
{
	/* mov rax,[rdi]; add rcx,rax; add rdi,8; cmp rdi,rsi; jne -15; ret */
	static const uint8_t x86[] = {
		0x48, 0x8b, 0x07, 0x48, 0x01, 0xc1, 0x48, 0x83, 0xc7, 0x08,
		0x48, 0x39, 0xf7, 0x75, 0xf1, 0xc3,
	};
	static const uint8_t a64[12] = { 0 };
	static const struct {
		int line, machine;
		size_t n;
		uint64_t addr, last, want;
		bool capstone;
		const char *what;
	} t[] = {
		{ __LINE__, EM_AARCH64, sizeof(a64), 0x400, 0x408, 3, false, "aarch64: 4 bytes each" },
		{ __LINE__, EM_AARCH64, sizeof(a64), 0x400, 0x40c, 0, false, "past its bytes" },
		{ __LINE__, EM_RISCV, sizeof(x86), 0x1000, 0x100d, 0, false, "another machine" },
		{ __LINE__, EM_X86_64, sizeof(x86), 0x1000, 0x100d, 5, true, "x86-64: to its jne" },
		{ __LINE__, EM_X86_64, sizeof(x86), 0x1000, 0x100e, 5, true, "to the jne's last byte" },
		{ __LINE__, EM_X86_64, sizeof(x86), 0x1003, 0x1003, 1, true, "one instruction" },
		{ __LINE__, EM_X86_64, 14, 0x1000, 0x100d, 0, true, "the jne cut short: unknown" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const uint8_t *code = t[i].machine == EM_AARCH64 ? a64 : x86;

#ifndef HAVE_CAPSTONE
		if (t[i].capstone) {
			skip(1, "built without capstone: no x86 block lengths");
			continue;
		}
#endif
		is_int_at((long)flow_count_insns(t[i].machine, code, t[i].n, t[i].addr, t[i].last),
			  (long)t[i].want, t[i].line, "instructions of a block: %s", t[i].what);
	}
}

int main(void)
{
	test_count();
	test_kinds();
	test_x86();
	test_stacks();
	test_exact();
	test_from_stacks();
	test_calls_in_loop();
	return done_testing();
}
