/*
 * test-model: src/model's parsers. The callgrind parser on a checked-in
 * callgrind.out (name and position compression, a call's inclusive cost
 * not counted as the caller's own, jumps and calls, each instruction's
 * source file and line) against a golden of its counts (GX_REGEN_GOLDEN=1
 * rewrites it: read the diff); malformed files give a message naming the
 * line; a cachegrind file's lines (the model's second pass); llvm-mca's batched output (three regions) and
 * the -mcpu table; the L3 a model simulates where CPUID's figure is more
 * than one core can use, where temporary files go; the machine
 * descriptions (every shipped one reads, the CPU picks its own, a
 * malformed one is one line) and one measured from peak's documents (a
 * farther level never cheaper, a figure whose runs disagree refused).
 * Threads and processes: each file's pid, thread and command, its own
 * counts, splits that keep totals exact, tids, a forked child's copy of
 * its parent's counts taken off; -g's stacks from the calls (callers'
 * shares by inclusive cost, recursion once a stack).
 */
#include "config.h"

#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "model/model-int.h"
#include "util/util.h"
#include "tap.h"

static char *src_path(const char *rel)
{
	const char *d = getenv("GX_SRCDIR");

	return xasprintf("%s/%s", d ? d : ".", rel);
}

/* Every instruction's non-zero columns, one a line. */
static char *dump(const struct cg_profile *p)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < p->nr_insns; i++) {
		const struct cg_insn *in = &p->insns[i];

		strbuf__addf(&sb, "%s 0x%llx %s %s:%u", p->objs[in->obj],
			     (unsigned long long)in->addr, in->fn ? p->fns[in->fn - 1] : "-",
			     in->src ? p->srcs[in->src - 1] : "-", in->line);
		for (int c = 0; c < CG_NR; c++)
			if (in->c[c])
				strbuf__addf(&sb, " %s=%llu", cg_col_name(c),
					     (unsigned long long)in->c[c]);
		strbuf__addstr(&sb, "\n");
	}
	for (size_t i = 0; i < p->nr_jumps; i++) {
		const struct cg_jump *j = &p->jumps[i];

		strbuf__addf(&sb, "%s %s 0x%llx -> 0x%llx %llu/%llu\n", p->objs[j->obj],
			     j->cond ? "jcnd" : "jump", (unsigned long long)j->from,
			     (unsigned long long)j->to, (unsigned long long)j->count,
			     (unsigned long long)j->execs);
	}
	for (size_t i = 0; i < p->nr_calls; i++) {
		const struct cg_call *c = &p->calls[i];

		strbuf__addf(&sb, "call %s 0x%llx -> %s %s 0x%llx x%llu\n", p->objs[c->obj],
			     (unsigned long long)c->site, p->objs[c->cobj], p->fns[c->fn],
			     (unsigned long long)c->entry, (unsigned long long)c->count);
	}
	strbuf__addf(&sb, "totals Ir=%llu Bc=%llu Bcm=%llu files=%u\n",
		     (unsigned long long)p->totals[CG_IR], (unsigned long long)p->totals[CG_BC],
		     (unsigned long long)p->totals[CG_BCM], p->files);
	return strbuf__detach(&sb);
}

static void test_golden(void)
{
	char *in = src_path("tests/golden/model/callgrind.out");
	char *gold = src_path("tests/golden/model/callgrind.txt");
	struct cg_profile p;
	char *cause = NULL, *got, *want;

	cg_profile__init(&p);
	is_int(cg_profile__read(&p, in, &cause), 0, "callgrind.out parses (%s)",
	       cause ? cause : "ok");
	got = dump(&p);
	if (getenv("GX_REGEN_GOLDEN"))
		gx_replace_file(gold, got, strlen(got));
	want = gx_read_file(gold, 1 << 20);
	is_str(got, want ? want : "(no golden)", "the counts match %s", gold);
	is_int(p.nr_objs, 2, "two objects, named once each");
	is_int((long)p.totals[CG_IR], 400036, "a call's inclusive cost is not the caller's own");
	free(got);
	free(want);
	free(cause);
	cg_profile__exit(&p);
	free(in);
	free(gold);
}

static const struct {
	int line;
	const char *text;
	const char *why;	/* in the message */
} bad[] = {
	{ __LINE__, "garbage\n", "not a callgrind output file" },
	{ __LINE__, "events: Ir\nfn=(1) f\n0x10 zz\n", ":3: bad cost" },
	{ __LINE__, "events: Ir\npositions: line\n10 5\n", "--dump-instr=yes" },
	{ __LINE__, "events: Ir\nob=(7)\n0x10 1\n", ":2: object id used before its name" },
	{ __LINE__, "events: Ir\nob=(x) a\n", ":2: bad compressed name" },
	{ __LINE__, "events: Ir\n0x10 1 2 3\n", ":2: bad cost" },
	{ __LINE__, "events: Ir\n%%%\n", ":2: not a callgrind line" },
	{ __LINE__, "events: Ir\nfn=(3)\n", ":2: function id used before its name" },
	{ __LINE__, "events: Ir\n0x10 1\njcnd=5/3 +4\n", ":3: bad conditional jump count" },
	{ __LINE__, "events: Ir\n0x10 1\njcnd=5 +4\n", ":3: bad conditional jump count" },
	{ __LINE__, "events: Ir\n0x10 1\njump=x +4\n", ":3: bad jump or call count" },
	{ __LINE__, "events: Ir\n0x10 1\ncalls=2\n", ":3: a jump or call without its target" },
	{ __LINE__, "events: Ir\n0x10 1\njump=\n4 +1\n", ":3: bad jump or call count" },
	{ __LINE__, "events: Ir\n0x10 1\njcnd=4/\n", ":3: bad conditional jump count" },
	{ __LINE__, "events: Ir\nfn=(99999999) f\n", ":2: bad compressed name" },
};

/* Jumps and calls: a target's relative position counts from the last
 * position and leaves it (the cost line after names the source: the
 * jump's own address), a recursion mark ('2) is its function's. */
static void test_paths(void)
{
	static const char text[] = "events: Ir Bc Bcm\n"
				   "ob=(1) /bin/a\n"
				   "fn=(1) msort'2\n"
				   "0x100 1\n"
				   "+2 1\n"
				   "cfn=(2) cmp\n"
				   "calls=10 0x200\n"
				   "* 50\n"
				   "+3 10 10 4\n"
				   "jcnd=6/10 -5\n"
				   "*\n"
				   "+2 4\n"
				   "jump=4 +20\n"
				   "*\n"
				   "fn=(1)\n"
				   "0x107 3\n"
				   "fn=(2)\n"
				   "0x200 10\n"
				   "fn=(3) msort\n"
				   "0x100 2\n";
	struct cg_profile p;
	char *cause = NULL;

	cg_profile__init(&p);
	is_int(cg_profile__parse(&p, text, strlen(text), "paths", &cause), 0, "parses (%s)",
	       cause ? cause : "");
	is_int((int)p.nr_fns, 2, "msort'2 and msort are one function, cmp another");
	ok(p.nr_insns == 5 && p.insns[0].fn && !strcmp(p.fns[p.insns[0].fn - 1], "msort") &&
	   p.insns[0].c[CG_IR] == 3, "0x100 is msort's, listed under both names");
	is_int((int)p.nr_calls, 1, "one call");
	ok(p.nr_calls == 1 && p.calls[0].site == 0x102 && p.calls[0].entry == 0x200 &&
	   p.calls[0].count == 10 && !strcmp(p.fns[p.calls[0].fn], "cmp") && p.calls[0].cobj == 0,
	   "the call: from 0x102 to cmp at 0x200 in the same object, 10 times");
	ok(p.nr_insns == 5 && p.insns[1].addr == 0x102 && p.insns[1].c[CG_IR] == 1,
	   "a call's inclusive cost is not its site's own");
	is_int((int)p.nr_jumps, 2, "two jumps");
	ok(p.nr_jumps == 2 && p.jumps[0].cond && p.jumps[0].from == 0x105 &&
	   p.jumps[0].to == 0x100 && p.jumps[0].count == 6 && p.jumps[0].execs == 10,
	   "jcnd: from 0x105 back to 0x100, taken 6 of 10 (its target left the position)");
	ok(p.nr_jumps == 2 && !p.jumps[1].cond && p.jumps[1].from == 0x107 &&
	   p.jumps[1].to == 0x107 + 20 && p.jumps[1].count == 4 && p.jumps[1].execs == 4,
	   "jump: from 0x107, 4 times");
	free(cause);
	cg_profile__exit(&p);
}

/* Which way a branch's mispredicts went, callgrind counting only how many */
static void test_miss_split(void)
{
	is_double(model_miss_split(500, 1000), 0.5, 1e-12, "a 50:50 branch: missed either way alike");
	is_double(model_miss_split(501, 1000) + model_miss_split(499, 1000), 1, 1e-12,
		  "symmetric");
	ok(fabs(model_miss_split(501, 1000) - 0.5) < 0.01,
	   "about 50:50 stays about 50:50 (%.4f)", model_miss_split(501, 1000));
	ok(model_miss_split(99, 100) < 0.02, "a loop's back edge, taken 99 in 100: missed on its "
	   "exit (%.4f taken)", model_miss_split(99, 100));
	ok(model_miss_split(1, 100) > 0.98, "taken 1 in 100: missed when taken (%.4f)",
	   model_miss_split(1, 100));
	is_double(model_miss_split(100, 100), 1, 1e-12, "always taken: the taken way");
	is_double(model_miss_split(0, 100), 0, 1e-12, "never taken: the other");
	is_double(model_miss_split(0, 0), 0.5, 0, "never executed: 0.5");
	/* the counter predicts taken 84.5% of the time: 700 x 0.155 missed
	 * taken, 300 x 0.845 not */
	is_double(model_miss_split(700, 1000), 108.6 / (108.6 + 253.5), 0.002,
		  "taken 70%%: more missed on the rarer way");
}

/* TLB misses as estimated from L2's (tlb.c): a random walk's over its
 * working set F misses a cache of C bytes 1 - C/F of the time */
/* A block's loads priced at each miss's whole latency, from llvm's AT&T
 * text: those that wait for their own last value round the loop (a load
 * that feeds itself, two that feed each other, one through an lea or a
 * spilled register), and a gather whose value decides a branch of the
 * block (bzip2's block[ptr[i] + d], each byte compared); not a gather
 * fed by a stream of indices into a sum (a[order[k]]), whose misses
 * overlap, nor a load whose base register was loaded afresh between
 * (python3's walk of a list's items, without its branch). */
static void test_block_chains(void)
{
	static const struct {
		const char *t[6];
		const char *dep;	/* which are chains: 1 a character each */
		const char *what;
	} B[] = {
		{ { "movq (%rax), %rax" }, "1", "a pointer chase waits for its own last turn" },
		{ { "movzwl (%r8,%rcx,2), %ecx" }, "1", "a chain through an array (gzip's prev[])" },
		{ { "movq 8(%rax), %rdx", "movq (%rdx), %rax", "addq $1, %rcx", "jne 0x10" },
		  "1100", "two loads that feed each other" },
		{ { "movq (%rax), %rdx", "leaq 8(%rdx), %rax" }, "10", "a chase through an lea" },
		{ { "movq 8(%rsp), %rax", "movq (%rax), %rdx", "movq %rdx, 8(%rsp)", "jne 0x10" },
		  "0100", "a chase through a spilled register" },
		{ { "movq 8(%rsp), %rsi", "addq (%rsi), %rdi" }, "00",
		  "a reload of a slot nothing stores to: no chain" },
		{ { "movl (%rax), %edx", "shlq $6, %rdx", "addq (%r8,%rdx), %rdi", "addq $4, %rax" },
		  "0000", "a gather fed by a stream of indices: no chain" },
		{ { "movl (%rax), %edx", "movl (%rbx,%rdx,4), %eax" }, "11",
		  "a load indexed by another load's value, its own address from it in turn" },
		{ { "movl (%rax), %edx", "movl (%rbx,%rdx,4), %ecx" }, "00",
		  "... not where its value goes elsewhere" },
		{ { "movq 24(%r13), %rax", "movq (%rax,%rbx,8), %rbp", "movq 8(%rbp), %rax",
		    "subq $1, %rbx" }, "0000", "python3's list walk: rax reloaded between, no chain" },
		{ { "movl (%r11), %esi", "leal (%rbx,%rsi), %eax", "movzbl (%r13,%rax), %eax",
		    "subl %r9d, %eax", "testl %eax, %eax", "je 0x3dd0" }, "001000",
		  "a gather whose byte decides the block's branch (bzip2)" },
		{ { "movq (%rax,%rbx,8), %rbp", "movq 8(%rbp), %rax", "movq %rax, (%rdi)",
		    "xorl %eax, %eax", "testl %eax, %eax", "je 0x10" }, "000000",
		  "... not where the value is stored, and the flags come from a zeroed register" },
		{ { "movl -4(%rbx,%rcx,4), %esi", "movq %rax, (%r13,%rsi)" }, "00",
		  "a store to an indexed address is no load, whatever its address's commas" },
		{ { "leaq 8(%rax,%rbx), %rax" }, "0", "lea reads no memory" },
		{ { "movq (%rdi), %rax", "cmpb %r10b, (%rax,%rsi)", "jne 0x10" }, "010",
		  "a compare of memory is a load: a gather whose flags decide the branch (gzip)" },
		{ { "movq (%rdi), %rax", "cmpb %r10b, (%rax,%rsi)", "sete %cl", "jmp 0x10" }, "0000",
		  "... not where no conditional branch reads them" },
		{ { "movq (%rdi), %rax", "cmpxchgq %rcx, (%rax)", "jne 0x10" }, "000",
		  "cmpxchg writes its memory: not taken for a compare's load" },
	};

	for (size_t k = 0; k < ARRAY_SIZE(B); k++) {
		struct model_state st = { 0 };
		struct model_insn ins[6];
		struct model_block b = { .first = 0 };
		char got[7] = "";

		memset(ins, 0, sizeof(ins));
		while (b.n < 6 && B[k].t[b.n]) {
			ins[b.n].text = (char *)B[k].t[b.n];
			b.n++;
		}
		st.ins = ins, st.nr_ins = b.n;
		model_mark_dependent(&st, &b);
		for (size_t i = 0; i < b.n; i++)
			got[i] = ins[i].dep_load ? '1' : '0';
		is_str(got, B[k].dep, "model_mark_dependent: %s", B[k].what);
	}
}

static void test_chain_scale(void)
{
	struct model_block b[5] = {
		{ .n = 3, .execs = 1, .cyc_mca = 5.03, .chain = 1 },	/* a chase */
		{ .n = 20, .execs = 1, .cyc_mca = 20, .chain = 1 },	/* another bound */
		{ .n = 8, .execs = 1, .cyc_mca = 12, .chain = 2 },
		{ .n = 3, .execs = 1, .cyc_mca = 5.03, .chain = 0 },	/* no chain */
		{ .n = 6, .execs = 1, .cyc_mca = 9, .chain = 3 },	/* by at most their share */
	};
	struct model_state st = { .blocks = b, .nr_blocks = 5, .load_mca = 5 };

	st.mc.lat[0] = 4;
	is_int(model_block_scale(&st, NULL, NULL), 3, "three loops' chains set by the L1 latency");
	is_double(b[0].cyc, 4.03, 1e-9, "a chase of one load: a cycle less a turn (5.03 -> 4.03)");
	is_double(b[1].cyc, 20, 0, "a loop whose load takes under half its cycles: as llvm-mca says");
	is_double(b[2].cyc, 10, 1e-9, "two loads of a chain: two cycles less");
	is_double(b[3].cyc, 5.03, 0, "a loop without a chain through loads: as llvm-mca says");
	is_double(b[4].cyc, 9 * 4.0 / 5, 1e-9, "at most the loads' share less (9 -> 7.2, not 6)");
	st.load_mca = 4.3;
	is_int(model_block_scale(&st, NULL, NULL), 0, "llvm-mca's latency within 10%: none set");
	is_double(b[0].cyc, 5.03, 0, "... the chase as llvm-mca says");
	st.load_mca = NAN;
	is_int(model_block_scale(&st, NULL, NULL), 0, "no calibration (an older result): none set");
}

/* Misses at random in flight at once (price.c): those between two
 * mispredicts, 10 at most, one at least; priced so by a record and a
 * GXTERMS6 file, ten at a time by an older one (st.window false); misses
 * near the one before, by bandwidth but a chain's (at L2's latency). */
static void test_in_flight(void)
{
	struct cg_insn cg[2];
	struct model_insn ins[2] = { { .cg = 0 }, { .cg = 1 } };
	struct model_block bl = { .first = 0, .n = 2, .execs = 1000000, .cyc = 0.002 };
	double bcm[2] = { 0, 95000 }, total;
	struct model_state st = { .ins = ins, .nr_ins = 2, .blocks = &bl, .nr_blocks = 1,
				  .bcm = bcm, .width = 4, .cpi_rest = 1 };

	is_double(model_in_flight(0, 0), 10, 0, "no mispredict: 10 misses in flight");
	is_double(model_in_flight(300, 100), 3, 1e-12, "3 misses past L2 a mispredict: 3");
	is_double(model_in_flight(20, 100), 1, 0, "fewer misses than mispredicts: 1, each alone");
	is_double(model_in_flight(1e9, 10), 10, 0, "... and 10 at most");
	is_double(model_in_flight(5, NAN), 10, 0, "no count of mispredicts: 10");

	/* a load that misses L1 on a fifth of its million accesses, 5% of
	 * them a stride from the miss before, all served by L3 (46 cycles
	 * past L1's), and a branch mispredicted 95,000 times: 190,000 misses
	 * at random, 2 a mispredict */
	memset(cg, 0, sizeof(cg));
	cg[0].c[CG_IR] = cg[0].c[CG_DR] = 1000000;
	cg[0].c[CG_D1MR] = 200000;
	cg[0].c[CG_D1MS] = 10000;
	cg[1].c[CG_IR] = 1000000;
	st.cg.insns = cg, st.cg.nr_insns = 2;
	st.geo[GEO_D1].line = 64, st.geo[GEO_L3].size = 1 << 22;
	st.mc.lat[0] = 4, st.mc.lat[1] = 14, st.mc.lat[2] = 50, st.mc.lat[3] = 400;
	for (int l = 0; l < 4; l++)
		st.mc.bw[l] = 64;	/* a line a cycle: 200,000 cycles for them all */
	st.mc.penalty = 10, st.mc.ind_missed = 1;
	st.window = true;
	total = model_price(&st, SPLIT_L3);
	is_double(st.in_flight, 2, 1e-12, "a record: 190,000 misses at random past L2 over "
		  "95,000 mispredicts, 2 in flight");
	ok(st.strides, "... the run counted strides");
	/* 10,000 in a stride by bandwidth, 190,000 at 46 cycles over 2,
	 * less the block's own 2 x 0.001 x 10^6 cycles (the roofline) */
	is_double(st.mem[0], 10000 + 190000 * 46 / 2.0 - 2000, 1e-6,
		  "... the load's memory cycles: its misses at random at L3's latency over 2");
	{	/* half the branch's counts a forked child's copy of its parent's */
		double net[2] = { 1, 0.5 };

		st.net = net;
		model_price(&st, SPLIT_L3);
		is_double(st.in_flight, 4, 1e-12, "... half the branch's counts a forked child's "
			  "copy: its own 47,500 mispredicts, 4 in flight");
		st.net = NULL;
		total = model_price(&st, SPLIT_L3);
	}
	is_double(total, 2000 + 95000 * 10 + st.mem[0], 1e-6, "... the total: base, "
		  "mispredicts and memory");
	st.window = false;
	model_price(&st, SPLIT_L3);
	is_double(st.in_flight, 10, 0, "an older result's terms: 10 in flight, as priced then");
	is_double(st.mem[0], 200000 - 2000, 1e-6, "... and a load that misses under half its "
		  "accesses a stream, by bandwidth");
	st.window = true;
	cg[0].c[CG_D1MS] = 0;
	model_price(&st, SPLIT_L3);
	ok(!st.strides && fabs(st.mem[0] - 198000) < 1e-6,
	   "no stride counted anywhere (callgrind's files): the load a stream, as in an older "
	   "result");
	cg[0].c[CG_D1MS] = 10000;
	bcm[1] = 0;
	model_price(&st, SPLIT_L3);
	is_double(st.in_flight, 10, 0, "no mispredict: 10 in flight");
	is_double(st.mem[0], 10000 + 190000 * 46 / 10.0 - 2000, 1e-6,
		  "... the misses at random at L3's latency over 10");
	/* 40,000 of the misses near the one before (gxgrind's D1mn, a run
	 * of lines the L2 streamer follows): by bandwidth with the strided */
	cg[0].c[CG_D1MN] = 40000;
	model_price(&st, SPLIT_L3);
	is_double(st.mem[0], 50000 + 150000 * 46 / 10.0 - 2000, 1e-6,
		  "misses near the one before: by bandwidth, the rest at random");
	/* the load a chain's: its near misses wait for L2 (10 cycles past
	 * L1's), the rest but the strided for L3; the strided 10,000 by
	 * bandwidth, beyond the block's 2,000 cycles */
	ins[0].dep_load = true;
	model_price(&st, SPLIT_L3);
	is_double(st.mem[0], 150000 * 46.0 + 40000 * 10.0 + 8000, 1e-6,
		  "a chain's misses near the one before at L2's latency, the rest at L3's");
	cg[0].c[CG_D1MN] = 0;
	model_price(&st, SPLIT_L3);
	is_double(st.mem[0], 190000 * 46.0 + 8000, 1e-6, "... none near: all but the strided at L3's");
	ins[0].dep_load = false;
	free(st.base), free(st.fe), free(st.bad), free(st.mem), free(st.core);
	free(st.l2miss), free(st.pages);
}

/* What an instruction reads and writes (chains.c), as register masks:
 * bit 0 rax, 1 rcx, 2 rdx, 3 rbx, 4 rsp, 5 rbp, 6 rsi, 7 rdi, 8-15 r8-r15. */
static void test_insn_rw(void)
{
	static const struct {
		const char *t;
		unsigned r, w;
		bool load;
	} v[] = {
		{ "movl 4(%rbx), %esi", 1u << 3, 1u << 6, true },
		{ "leaq (%r9,%rax,4), %rbx", 1u << 9 | 1u, 1u << 3, false },
		{ "addl %esi, %eax", 1u << 6 | 1u, 1u, false },
		{ "movl %eax, %eax", 1u, 1u, false },
		{ "movq %rdx, %rdi", 1u << 2, 1u << 7, false },
		{ "cmovbl %edi, %eax", 1u << 7 | 1u, 1u, false },
		{ "movl %esi, (%r15)", 1u << 6 | 1u << 15, 0, false },
		{ "cmpb %r8b, %r10b", 1u << 8 | 1u << 10, 0, false },
		{ "setae %dil", 0, 1u << 7, false },
		{ "xorl %eax, %eax", 0, 1u, false },
		{ "movzbl (%rdi,%r8), %r10d", 1u << 7 | 1u << 8, 1u << 10, true },
		{ "imulq %rdi, %rcx", 1u << 7 | 1u << 1, 1u << 1, false },
		{ "divq %rcx", 1u << 1 | 1u | 1u << 2, 1u | 1u << 2, false },
		{ "callq 0x1030", 0, 0x0fc7, false },
		{ "mulsd %xmm1, %xmm0", 0, 0, false },
		{ "cltq", 1u, 1u, false },
		{ "cqto", 1u, 1u << 2, false },
		{ "jne 0x15c90", 0, 0, false },
	};

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		unsigned r, w;
		bool load;

		model_insn_rw(v[k].t, &r, &w, &load);
		ok(r == v[k].r && w == v[k].w && load == v[k].load,
		   "%s: reads %#x, writes %#x%s", v[k].t, v[k].r, v[k].w, v[k].load ? ", a load" : "");
		if (r != v[k].r || w != v[k].w)
			diag("  got reads %#x, writes %#x", r, w);
	}
	{	/* what a disassembler may print: read, whatever it is */
		static const char *const odd[] = { "", "(bad)", "nop", "ret", ",,,", "mov ((%",
						   "rep stosb %al, %es:(%rdi)", "movq %r99, %r8q",
						   "lock cmpxchgq %rcx, (%rdx)", "movl %r15dx, %eax" };
		unsigned r, w, all = 0;
		bool load;

		for (size_t k = 0; k < sizeof(odd) / sizeof(odd[0]); k++) {
			model_insn_rw(odd[k], &r, &w, &load);
			all |= w;
		}
		ok(!(all & ~0xffffu), "odd texts read: no register beyond the sixteen");
	}
}

/* A loop's chain of latencies (model_loop_recurrence): eval-kernels'
 * imul_chain with llvm 14 znver3's latencies is 4 cycles a turn (the
 * eliminated move, the multiply, the xor), where llvm-mca's schedule
 * says 5.03 (its shift on the multiplier's ALU); a compare feeding a
 * conditional move through the flags is 2; a text without a latency is
 * NAN. */
static void test_recurrence(void)
{
	static const char *const imul[] = { "movq %rax, %rcx", "addq $1, %rdx", "shrq $31, %rax",
					     "imulq %rdi, %rcx", "xorq %rcx, %rax",
					     "cmpq %rdx, %rsi", "jne 0x18" };
	static const double imul_lat[] = { 0, 1, 1, 3, 1, 1, 1 };
	static const char *const cmov[] = { "cmpq %rax, %rdx", "cmovlq %rdx, %rax", "decq %rcx",
					    "jne 0x10" };
	static const double ones[] = { 1, 1, 1, 1 }, none[] = { 1, NAN, 1, 1 };

	is_double(model_loop_recurrence(imul, imul_lat, 7), 4, 1e-9,
		  "imul_chain's loop: 4 cycles a turn by its latencies");
	is_double(model_loop_recurrence(cmov, ones, 4), 2, 1e-9,
		  "a compare into a conditional move, through the flags: 2 a turn");
	ok(isnan(model_loop_recurrence(cmov, none, 4)), "an instruction without a latency: NAN");
}

/* xz's binary tree of matches (liblzma 5.4.1, 0x15b60-0x15be3): the next
 * node's index loaded in one block (15b73 or 15bde), its address made in
 * another (15bae), the load in the third: each of the two loads chases
 * itself round the loop, the bytes compared (15bc4, 15bc9) do not; the
 * node's byte (15bc4, its address from the index's load) gathers, its
 * value deciding the block's je, the current string's (15bc9) not. */
static void test_chains(void)
{
	static const struct {
		uint64_t a;
		const char *t;
	} code[] = {
		{ 0x15b60, "movq -40(%rsp), %rcx" }, { 0x15b65, "movl %eax, %r13d" },
		{ 0x15b68, "movl %esi, (%rcx)" }, { 0x15b6a, "leaq 4(%rbx), %rsi" },
		{ 0x15b6e, "movq %rsi, -40(%rsp)" }, { 0x15b73, "movl 4(%rbx), %esi" },
		{ 0x15b76, "movl -24(%rsp), %ecx" }, { 0x15b7a, "subl %esi, %ecx" },
		{ 0x15b7c, "cmpl %r14d, %ecx" }, { 0x15b7f, "setae %dil" },
		{ 0x15b83, "testl %r11d, %r11d" }, { 0x15b86, "sete %al" },
		{ 0x15b89, "subl $1, %r11d" }, { 0x15b8d, "orb %dil, %al" },
		{ 0x15b90, "jne 0x15c90" }, { 0x15b96, "movl -20(%rsp), %eax" },
		{ 0x15b9a, "addl %esi, %eax" }, { 0x15b9c, "cmpl %ecx, -28(%rsp)" },
		{ 0x15ba0, "leal (%rax,%r14), %edi" }, { 0x15ba4, "cmovbl %edi, %eax" },
		{ 0x15ba7, "movq %rdx, %rdi" }, { 0x15baa, "addl %eax, %eax" },
		{ 0x15bac, "movl %eax, %eax" }, { 0x15bae, "leaq (%r9,%rax,4), %rbx" },
		{ 0x15bb2, "movl %ecx, %eax" }, { 0x15bb4, "subq %rax, %rdi" },
		{ 0x15bb7, "cmpl %r12d, %r13d" }, { 0x15bba, "movl %r12d, %eax" },
		{ 0x15bbd, "cmovbel %r13d, %eax" }, { 0x15bc1, "movl %eax, %r8d" },
		{ 0x15bc4, "movzbl (%rdi,%r8), %r10d" }, { 0x15bc9, "movzbl (%rdx,%r8), %r8d" },
		{ 0x15bce, "cmpb %r8b, %r10b" }, { 0x15bd1, "je 0x15be8" },
		{ 0x15bd3, "cmpb %r8b, %r10b" }, { 0x15bd6, "jb 0x15b60" },
		{ 0x15bd8, "movl %esi, (%r15)" }, { 0x15bdb, "movl %eax, %r12d" },
		{ 0x15bde, "movl (%rbx), %esi" }, { 0x15be0, "movq %rbx, %r15" },
		{ 0x15be3, "jmp 0x15b76" },
	};
	size_t n = sizeof(code) / sizeof(code[0]);
	struct cg_jump jumps[] = {
		{ .from = 0x15b90, .to = 0x15c90, .count = 1000, .execs = 2161839, .cond = true },
		{ .from = 0x15bd1, .to = 0x15be8, .count = 1000, .execs = 2161839, .cond = true },
		{ .from = 0x15bd6, .to = 0x15b60, .count = 1077241, .execs = 2161837, .cond = true },
		{ .from = 0x15be3, .to = 0x15b76, .count = 1084596, .execs = 1084596 },
		{ .from = 0x15b5a, .to = 0x15b96, .count = 1000, .execs = 1000 },	/* from elsewhere */
	};
	struct model_state st = { 0 };
	struct model_insn *ins = xcalloc(n, sizeof(*ins));
	struct cg_insn *cg = xcalloc(n, sizeof(*cg));
	/* the block of the bytes compared: 15b96 (a jump's target) to the
	 * je at 15bd1 */
	struct model_block blk = { .first = 15, .n = 19 };
	size_t marked, gathers;
	bool got[4] = { false, false, false, false };

	for (size_t i = 0; i < n; i++) {
		ins[i] = (struct model_insn){ .cg = i, .addr = code[i].a,
					      .block = i >= 15 && i < 34 ? 0 : -1,
					      .text = (char *)code[i].t };
		cg[i].addr = code[i].a;
		cg[i].c[CG_IR] = 1000000;
		if (model_insn_is_load(code[i].t) && strstr(code[i].t, "%rsp") == NULL) {
			cg[i].c[CG_DR] = 1000000;	/* the tree's and the bytes': misses */
			cg[i].c[CG_D1MR] = 400000;
		}
	}
	st.ins = ins, st.nr_ins = n;
	st.cg.insns = cg, st.cg.nr_insns = n;
	st.cg.jumps = jumps, st.cg.nr_jumps = sizeof(jumps) / sizeof(jumps[0]);
	st.blocks = &blk, st.nr_blocks = 1;
	is_int(code[15].a, 0x15b96, "(the block's first)");
	is_int(code[33].a, 0x15bd1, "(its last)");
	marked = model_mark_chains(&st, &gathers);
	for (size_t i = 0; i < n; i++) {
		if (code[i].a == 0x15b73)
			got[0] = ins[i].dep_load;
		else if (code[i].a == 0x15bde)
			got[1] = ins[i].dep_load;
		else if (code[i].a == 0x15bc4)
			got[2] = ins[i].dep_load;
		else if (code[i].a == 0x15bc9)
			got[3] = ins[i].dep_load;
	}
	is_int(marked, 2, "xz's tree: two loads chase across the loop's blocks");
	ok(got[0] && got[1], "... the next node's index, from either block (15b73, 15bde)");
	is_int(gathers, 1, "... and one byte compared gathers: the node's (15bc4), its address "
	       "from the index's load and its value deciding the block's je");
	ok(got[2] && !got[3], "... not the current string's (15bc9): its address from no load");
	for (size_t i = 0; i < n; i++)
		ins[i].dep_load = false;
	ins[33].text = (char *)"jmp 0x15be8";
	model_mark_chains(&st, &gathers);
	ok(gathers == 0 && !ins[30].dep_load && !ins[31].dep_load,
	   "... not where the block ends in no conditional branch");
	ins[33].text = (char *)code[33].t;
	/* without the jump back from the right subtree's block, 15bde's
	 * value reaches its address no more */
	for (size_t i = 0; i < n; i++)
		ins[i].dep_load = false;
	st.cg.nr_jumps = 3;
	is_int(model_mark_chains(&st, NULL), 1, "... without the jump back from 15be3: one (15b73)");
	ok(st.nr_notes >= 2 && strstr(st.notes[st.nr_notes - 2], "1 load chase across") &&
	   strstr(st.notes[st.nr_notes - 1], "1 load has an address from another block's load"),
	   "... and notes say how many chase and how many gather");
	gx_free_strv(st.notes, st.nr_notes);
	free(cg);
	free(ins);
}

static void test_tlb(void)
{
	double n = 1e6, l2 = 512 << 10, reach = 8 << 20;

	/* 16 MiB at random: L2 misses 31/32, a TLB of 8 MiB half */
	/* 128 MiB: a 32 MiB last level misses 3 in 4, the TLB 15 in 16 */
	is_double(model_tlb_misses(n, n * 3 / 4, 32 << 20, reach), n * 15 / 16, 1e-6,
		  "from a last level larger than the reach: 128 MiB at random");
	is_double(model_tlb_misses(n, n * 511 / 512, 32 << 10, reach), n / 2, 1e-6,
		  "from L1's misses: 16 MiB at random");
	is_double(model_tlb_misses(n, n * 31 / 32, l2, reach), n / 2, 1e-6,
		  "16 MiB at random past an 8 MiB reach: half the accesses walk");
	is_double(model_tlb_misses(n, n * 7 / 8, l2, reach), 0, 0,
		  "4 MiB at random, within the reach: no walk");
	is_double(model_tlb_misses(n, n * 1023 / 1024, l2, reach), n * (1 - 8.0 / 512), 1e-6,
		  "512 MiB: nearly every access");
	is_double(model_tlb_misses(n, n / 8, l2, reach), 0, 0, "a stream's misses, one in 8: none");
	ok(model_tlb_misses(n, n, l2, reach) <= n, "no more than its accesses");
	is_double(model_tlb_misses(n, n, l2, 0), 0, 0, "no reach described: none");
	is_double(model_tlb_in_latency(256 << 20, reach, 30), 30 * (1 - 1.0 / 32), 1e-9,
		  "a chase over 256 MiB paid a walk on 31 loads in 32");
	is_double(model_tlb_in_latency(4 << 20, reach, 30), 0, 0, "over 4 MiB, none");

	/* the set an instruction's accesses span (model_set_bytes), a last
	 * level of 4 MiB, a TLB of 16 MiB */
	{
		double ll = 4 << 20, tr = 16 << 20;

		is_double(model_set_bytes(n, n * 3 / 4, ll, -1, tr, 1e12), 16 << 20, 1e-6,
			  "3 in 4 missing a 4 MiB last level: 16 MiB at random");
		is_double(model_set_bytes(n, n, ll, -1, tr, 128 << 20), 128 << 20, 0,
			  "a ring missed at every step: the bytes the program touched first");
		is_double(model_set_bytes(n, n, ll, 0, tr, 20 << 20), 20 << 20, 0,
			  "... within the reach, as the TLB counted: those bytes too");
		ok(isinf(model_set_bytes(n, n, ll, n, tr, 0)),
		   "... its pages populated by the kernel (no first touch) and every access a "
		   "walk: past any set");
		is_double(model_set_bytes(n, n, ll, n / 2, tr, 1 << 20), 32 << 20, 1e-6,
			  "... half its accesses walking a 16 MiB TLB: 32 MiB");
		is_double(model_set_bytes(n, n / 8, ll, -1, tr, 1e12), ll * 8 / 7, 1e-6,
			  "a stream's misses, one in 8: the last level's size and a little");
		is_double(model_set_bytes(n, 0, ll, -1, tr, 1e12), ll, 0, "no miss: the last level");
		is_double(model_set_bytes(0, 0, ll, -1, tr, 0), ll, 0, "no access: the last level");
	}
	/* memory's latency by the set's size (model_dram_at): 400 cycles
	 * over 16 MiB, 800 over 256 MiB, between them with the set's log */
	{
		struct machine_costs mc = { .lat = { 4, 14, 50, 800 }, .lat_bytes = 256 << 20,
					    .near_lat = 400, .near_bytes = 16 << 20 };

		is_double(model_dram_at(&mc, 64 << 20), 600, 1e-9, "64 MiB: half way (%.1f)",
			  model_dram_at(&mc, 64 << 20));
		is_double(model_dram_at(&mc, 32 << 20), 500, 1e-9, "32 MiB: a quarter way");
		is_double(model_dram_at(&mc, 8 << 20), 400, 0, "8 MiB: the near latency");
		is_double(model_dram_at(&mc, 1e12), 800, 0, "1 TB: memory's");
		is_double(model_dram_at(&mc, INFINITY), 800, 0, "past any set: memory's");
		mc.near_bytes = 0;
		is_double(model_dram_at(&mc, 16 << 20), 800, 0, "no near set: one latency");
		mc.near_bytes = 256 << 20;
		is_double(model_dram_at(&mc, 16 << 20), 800, 0, "the near set memory's: one latency");
	}

	/* the cache of pages the second pass simulates as the TLB */
	{
		struct cache_geo g;

		model_tlb_geometry(&g, 8 << 20, 4096);
		ok(g.size == 8 << 20 && g.assoc == 16 && g.line == 4096,
		   "Zen's 2048 entries: 8 MiB, 16-way (%" PRIu64 ", %u)", g.size, g.assoc);
		model_tlb_geometry(&g, 1536.0 * 4096, 4096);
		ok(g.size == 1536 * 4096 && g.assoc == 12,
		   "Intel's 1536 entries: 12-way, 128 sets (%" PRIu64 ", %u)", g.size, g.assoc);
		model_tlb_geometry(&g, 3000.0 * 4096, 4096);
		ok(g.size == 2048 * 4096 && g.assoc == 8,
		   "3000 entries: 2048, 8-way, sets a power of two (%" PRIu64 ", %u)", g.size,
		   g.assoc);
		model_tlb_geometry(&g, 3 * 4096, 4096);
		ok(g.size == 2 * 4096 && g.assoc == 2,
		   "3 entries: 2, 2-way (%" PRIu64 ", %u)", g.size, g.assoc);
		model_tlb_geometry(&g, 4096, 4096);
		ok(g.size == 0, "one entry: none");
		model_tlb_geometry(&g, 0, 4096);
		ok(g.size == 0, "no reach: none");
		model_tlb_geometry(&g, 1e300, 4096);
		ok(g.size == 0, "an absurd reach: none");
	}
}

/* A conditional branch's mispredicts as priced: at most its rarer way's
 * count (callgrind's untagged counters miss a biased branch that shares
 * one with another, and patterns a history predictor learns) */
static void test_miss_bound(void)
{
	is_double(model_miss_bound(60170, 122024, 122024), 0, 0,
		  "always taken, missed by a shared counter: priced at none");
	is_double(model_miss_bound(43364, 0, 480211), 0, 0, "never taken (no jump record): none");
	is_double(model_miss_bound(500, 500, 1000), 500, 0, "a 50:50 random branch: as counted");
	is_double(model_miss_bound(300, 500, 1000), 300, 0, "under the bound: as counted");
	is_double(model_miss_bound(400, 700, 1000), 300, 0, "taken 70%%: at most the 30%% not taken");
	is_double(model_miss_bound(400, 300, 1000), 300, 0, "taken 30%%: at most the 30%% taken");
	is_double(model_miss_bound(50, 1200, 1000), 0, 0, "taken more than executed: as always");
	is_double(model_miss_bound(0, 0, 0), 0, 0, "never executed: none");
}

/* The bound on a parsed profile: each branch's taken count from its jumps */
static void test_bias_bound(void)
{
	static const char text[] = "events: Ir Bc Bcm\n"
				   "ob=(1) /bin/a\n"
				   "fn=(1) f\n"
				   "0x100 10 10 5\n"	/* always taken, missed 5 */
				   "jcnd=10/10 +8\n"
				   "*\n"
				   "+2 10 10 4\n"	/* never taken: no jump record */
				   "+2 10 10 5\n"	/* 50:50 */
				   "jcnd=5/10 +4\n"
				   "*\n"
				   "ob=(2) /bin/b\n"
				   "0x100 10 10 3\n"	/* another object's 0x100, 70:30 */
				   "jcnd=7/10 +4\n"
				   "*\n";
	static const char nojumps[] = "events: Ir Bc Bcm\nob=(1) /bin/a\nfn=(1) f\n"
				      "0x100 10 10 5\n";
	struct cg_profile p;
	char *cause = NULL;
	double bcm[8];

	cg_profile__init(&p);
	is_int(cg_profile__parse(&p, text, strlen(text), "bound", &cause), 0, "parses (%s)",
	       cause ? cause : "");
	ok(p.nr_insns == 4, "four branches");
	if (p.nr_insns == 4) {
		is_int((int)model_bias_bound(&p, bcm), 5 + 4, "9 mispredicts beyond the bound");
		is_double(bcm[0], 0, 0, "always taken: none priced");
		is_double(bcm[1], 0, 0, "never taken: none priced");
		is_double(bcm[2], 5, 0, "50:50: as counted");
		is_double(bcm[3], 3, 0, "/bin/b's 0x100, taken 7 of 10: its own jumps, 3");
	}
	cg_profile__exit(&p);
	cg_profile__init(&p);
	is_int(cg_profile__parse(&p, nojumps, strlen(nojumps), "nojumps", &cause), 0, "parses");
	is_int((int)model_bias_bound(&p, bcm), 0, "no jumps collected: nothing beyond");
	is_double(bcm[0], 5, 0, "... and the branch as counted");
	free(cause);
	cg_profile__exit(&p);
}

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cg_profile p;
		char *cause = NULL;
		int err;

		cg_profile__init(&p);
		err = cg_profile__parse(&p, bad[i].text, strlen(bad[i].text), "f", &cause);
		ok(err == GX_E_FORMAT && cause && strstr(cause, bad[i].why),
		   "line %d: refused with '%s' (%s)", bad[i].line, bad[i].why,
		   cause ? cause : "no message");
		free(cause);
		cg_profile__exit(&p);
	}
}

static void test_mca(void)
{
	char *path = src_path("tests/golden/model/mca.out"), *text = gx_read_file(path, 1 << 20);
	double cyc[4], width = 0;
	char *cause = NULL, *note = NULL;

	ok(text != NULL, "mca.out read");
	is_int(mca_parse(text ? text : "", cyc, 4, &width, &cause), 0, "llvm-mca's output parses");
	is_double(cyc[0], 6.03, 1e-9, "region 0: the mulsd/addsd chain, 603 cycles / 100");
	is_double(cyc[1], 1.05, 1e-9, "region 1: the loop's counter, 105 / 100");
	is_double(cyc[2], 5.03, 1e-9, "region 2: the pointer chase, 503 / 100");
	ok(isnan(cyc[3]), "a region absent from the output is NAN");
	is_double(width, 6, 0, "the dispatch width");
	free(cause);
	cause = NULL;
	/* llvm-mca leaves an empty region out (a block of rep instructions
	 * only, which model.c prices itself) and numbers the rest in turn:
	 * by their names, not their numbers (every later block was given the
	 * next one's cycles, and the FMA and add calibrations none) */
	is_int(mca_parse("[0] Code Region - b0\nIterations:        100\nTotal Cycles:      103\n"
			 "[1] Code Region - b2\nIterations:        100\nTotal Cycles:      250\n",
			 cyc, 3, NULL, &cause), 0, "output without region b1 parses");
	ok(cyc[0] == 1.03 && isnan(cyc[1]) && cyc[2] == 2.5,
	   "an empty region left out: b2 is [1] there, and gets its own cycles (%g %g %g)",
	   cyc[0], cyc[1], cyc[2]);
	is_int(mca_parse("nothing here\n", cyc, 1, NULL, &cause), GX_E_FORMAT,
	       "output without a region is refused");
	free(cause);
	{	/* the Instruction Info table: each instruction's latency */
		struct mca_lat lat[2] = { { 0 } };
		size_t n = mca_parse_lat(
			"[0] Code Region - b1\n\nIterations:        100\nInstructions:      300\n"
			"Total Cycles:      503\n\nInstruction Info:\n[1]: #uOps\n[2]: Latency\n"
			"[6]: HasSideEffects (U)\n\n[1]    [2]    [3]    [4]    [5]    [6]    "
			"Instructions:\n 1      0     0.17                        movq\t%rax, %rcx\n"
			" 1      3     1.00                        imulq\t%rdi, %rcx\n"
			" 2      6     0.50    *                   addq\t(%rdi), %rax\n\n"
			"Timeline view:\n 1 2 3\n", lat, 2);

		ok(n == 1 && lat[0].n == 0 && lat[1].n == 3 && lat[1].v[0] == 0 &&
		   lat[1].v[1] == 3 && lat[1].v[2] == 6,
		   "Instruction Info: region b1's three latencies, 0 3 6, and nothing after");
		free(lat[1].v);
	}
	is_str(mca_cpu_for("AuthenticAMD", 0x19, 0x01, 0, &note), "znver3", "Zen 3: znver3");
	ok(!note, "Zen 3: no note");
	is_str(mca_cpu_for("AuthenticAMD", 0x19, 0x61, 0, &note), "znver3",
	       "Zen 4: znver3 (llvm 14 has no znver4)");
	ok(note && strstr(note, "znver4"), "Zen 4: the note says so");
	free(note);
	is_str(mca_cpu_for("AuthenticAMD", 0x1a, 0x02, 0, &note), "znver3", "Zen 5: znver3");
	ok(note && strstr(note, "Zen 5"), "Zen 5: the note says so");
	free(note);
	is_str(mca_cpu_for("GenuineIntel", 6, 0x8f, 0, &note), "sapphirerapids", "SPR");
	is_str(mca_cpu_for("GenuineIntel", 6, 0x6a, 0, &note), "icelake-server", "ICX");
	is_str(mca_cpu_for("GenuineIntel", 6, 0x55, 0, &note), "skylake-avx512", "SKX");
	is_str(mca_cpu_for(NULL, 0, 0, 0xd0c, &note), "neoverse-n1", "Neoverse N1");
	is_str(mca_cpu_for(NULL, 0, 0, 0xd40, &note), "neoverse-v1", "Neoverse V1");
	is_str(mca_cpu_for(NULL, 0, 0, 0xd07, &note), "cortex-a57", "the arm64 guest's A57");
	free(text);
	free(path);
}

/* An AMD L3 from CPUID that no CCD has is simulated as one CCD's, said in
 * a note; sysfs' figure, Intel's (a socket's L3 is every core's) and a
 * plausible one are kept. */
static void test_l3(void)
{
	static const struct {
		int line;
		const char *vendor;
		uint64_t l3;
		bool sysfs;
		uint64_t want;
	} t[] = {
		{ __LINE__, "AuthenticAMD", 532676608, false, 32 << 20 },	/* the Zen 5 VM */
		{ __LINE__, "HygonGenuine", 256u << 20, false, 32 << 20 },
		{ __LINE__, "AuthenticAMD", 532676608, true, 532676608 },	/* sysfs: trusted */
		{ __LINE__, "AuthenticAMD", 96u << 20, false, 96u << 20 },	/* 3D V-Cache */
		{ __LINE__, "AuthenticAMD", 32u << 20, false, 32u << 20 },
		{ __LINE__, "GenuineIntel", 504u << 20, false, 504u << 20 },	/* Granite Rapids */
		{ __LINE__, NULL, 512u << 20, false, 512u << 20 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *note = (char *)"unset";
		uint64_t got = model_l3_plausible(t[i].vendor, t[i].l3, t[i].sysfs, &note);

		ok(got == t[i].want, "line %d: L3 %llu MiB simulated as %llu MiB", t[i].line,
		   (unsigned long long)(t[i].l3 >> 20), (unsigned long long)(got >> 20));
		if (got != t[i].l3)
			ok(note && strstr(note, "CPUID") && strstr(note, "simulated as 32 MiB") &&
			   (t[i].l3 != 532676608 || strstr(note, "508 MiB")),
			   "line %d: the note says so (%s)", t[i].line, note ? note : "(none)");
		else
			ok(note == NULL, "line %d: no note", t[i].line);
		if (note && strcmp(note, "unset"))
			free(note);
	}
}

/* Every shipped description reads, gives every price with a source,
 * and is named as its file is. */
static void test_shipped(void)
{
	static const char *const names[] = { "generic", "zen3", "zen4", "zen5", "skl", "icl",
					     "spr", "n1", "v1" };
	char *dir = src_path("machines");

	setenv("GX_MACHINES_DIR", dir, 1);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct model_machine mm;
		char *cause = NULL;
		int err = model_machine__load(&mm, names[i], &cause);
		bool all = !err;

		for (int p = 0; !err && p < MP_NR; p++)
			all = all && mm.source[p] && *mm.source[p];
		ok(!err && !strcmp(mm.name, names[i]) && all && mm.mcpu && strcmp(mm.mcpu, "host") &&
		   mm.price[MP_GHZ] > 0, "machines/%s.json: every price with its source (%s)",
		   names[i], cause ? cause : "read");
		if (!err)
			model_machine__exit(&mm);
		free(cause);
	}
	free(dir);
	/* a description from before a sequential I1 miss was priced apart
	 * (a result's meta.json, a user's file): read, every miss at
	 * icache_miss, as it was priced */
	{
		char *path = src_path("machines/zen3.json"), *text, *cause = NULL;
		json_t *doc = json_load_file(path, 0, NULL);
		struct model_machine mm;
		int err;

		json_object_del(json_object_get(doc, "prices"), "icache_seq_miss");
		text = json_dumps(doc, 0);
		err = model_machine__parse(&mm, text, strlen(text), "old.json", &cause);
		ok(!err && mm.price[MP_ISEQ] == mm.price[MP_IMISS] &&
		   strstr(mm.source[MP_ISEQ], "icache_miss's (a description from before"),
		   "a description without icache_seq_miss: icache_miss's %.1f, said (%s)",
		   err ? -1 : mm.price[MP_ISEQ], err ? cause : mm.source[MP_ISEQ]);
		if (!err)
			model_machine__exit(&mm);
		free(cause);
		free(text);
		cause = NULL;
		/* one from before memory's latency by the set's size */
		json_object_set_new(json_object_get(json_object_get(doc, "prices"), "dram_latency_bytes"),
				    "value", json_real(268435456));
		json_object_del(json_object_get(doc, "prices"), "dram_near_latency");
		json_object_del(json_object_get(doc, "prices"), "dram_near_bytes");
		text = json_dumps(doc, 0);
		err = model_machine__parse(&mm, text, strlen(text), "old.json", &cause);
		ok(!err && mm.price[MP_DRAM_NEAR_LAT] == mm.price[MP_DRAM_LAT] &&
		   mm.price[MP_DRAM_NEAR_BYTES] == 268435456 &&
		   strstr(mm.source[MP_DRAM_NEAR_LAT], "dram_latency's: one latency for every set (a "
			  "description from before") &&
		   strstr(mm.source[MP_DRAM_NEAR_BYTES], "dram_latency_bytes's"),
		   "a description without dram_near_*: memory's one latency for every set, said (%s)",
		   err ? cause : mm.source[MP_DRAM_NEAR_LAT]);
		if (!err) {
			struct machine_costs mc;

			model_machine_costs(&mc, &mm);
			is_double(model_dram_at(&mc, 16 << 20), mc.lat[3], 0,
				  "... and priced so: 16 MiB at memory's latency");
			model_machine__exit(&mm);
		}
		free(cause);
		free(text);
		json_decref(doc);
		free(path);
	}
}

/* The CPU picks its description by the files' match rules. */
static void test_match(void)
{
	static const struct {
		int line;
		const char *vendor;
		int family, model;
		unsigned impl, part;
		const char *want;
	} t[] = {
		{ __LINE__, "AuthenticAMD", 25, 1, 0, 0, "zen3" },	/* Milan */
		{ __LINE__, "AuthenticAMD", 25, 0x21, 0, 0, "zen3" },	/* Vermeer */
		{ __LINE__, "AuthenticAMD", 25, 0x11, 0, 0, "zen4" },	/* Genoa */
		{ __LINE__, "AuthenticAMD", 25, 0x61, 0, 0, "zen4" },	/* Raphael */
		{ __LINE__, "AuthenticAMD", 26, 2, 0, 0, "zen5" },
		{ __LINE__, "AuthenticAMD", 23, 0x31, 0, 0, "generic" },	/* Zen 2 */
		{ __LINE__, "GenuineIntel", 6, 0x55, 0, 0, "skl" },
		{ __LINE__, "GenuineIntel", 6, 0x6a, 0, 0, "icl" },
		{ __LINE__, "GenuineIntel", 6, 0x8f, 0, 0, "spr" },
		{ __LINE__, "GenuineIntel", 6, 0x97, 0, 0, "generic" },	/* Alder Lake */
		{ __LINE__, NULL, 0, 0, 0x41, 0xd0c, "n1" },
		{ __LINE__, NULL, 0, 0, 0x41, 0xd40, "v1" },
		{ __LINE__, NULL, 0, 0, 0x41, 0xd49, "generic" },
	};
	char *dir = src_path("machines");

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char *got = model_machine_match(dir, t[i].vendor, t[i].family, t[i].model,
						t[i].impl, t[i].part);

		is_str(got, t[i].want, "line %d: the CPU's description", t[i].line);
		free(got);
	}
	free(dir);
}

/* A malformed description is one line naming its fault. */
static void test_desc_bad(void)
{
	static const struct {
		int line;
		const char *text, *want;
	} t[] = {
		{ __LINE__, "{", "not valid JSON" },
		{ __LINE__, "{\"schema\": \"x\"}", "schema" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a b\"}", "name" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\"}", "no prices" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\", \"prices\": "
			    "{\"mcpu\": {\"value\": \"znver3\", \"source\": \"s\"}}}",
		  "prices.ghz is missing" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\", \"prices\": "
			    "{\"ghz\": {\"value\": -1, \"source\": \"s\"}}}", "prices.ghz's value" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\", \"prices\": "
			    "{\"ghz\": {\"value\": 3}}}", "prices.ghz has no source" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\", \"prices\": "
			    "{\"l2_latncy\": {\"value\": 3, \"source\": \"s\"}}}",
		  "prices.l2_latncy is no price" },
		/* what Valgrind would be asked to simulate, past what fits */
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\", \"prices\": "
			    "{\"tlb_reach\": {\"value\": 1e14, \"source\": \"s\"}}}",
		  "prices.tlb_reach's value is not a number from 0 to 1073741824" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\", \"prices\": "
			    "{\"l3_size\": {\"value\": 1e11, \"source\": \"s\"}}}",
		  "prices.l3_size's value is not a number from 0 to 2147483648" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\", \"prices\": "
			    "{\"l2_size\": {\"value\": 1e10, \"source\": \"s\"}}}",
		  "prices.l2_size's value" },
		{ __LINE__, "{\"schema\": \"gexplore-machine 1\", \"name\": \"a\", \"prices\": "
			    "{\"l1d_size\": {\"value\": 1e9, \"source\": \"s\"}}}",
		  "prices.l1d_size's value" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct model_machine mm;
		char *cause = NULL;
		int err = model_machine__parse(&mm, t[i].text, strlen(t[i].text), "m.json", &cause);

		ok(err == GX_E_FORMAT && cause && strstr(cause, t[i].want) && !strchr(cause, '\n') &&
		   !strncmp(cause, "m.json: ", 8), "line %d: %s", t[i].line,
		   cause ? cause : "(accepted)");
		free(cause);
	}
}

/* Two results' descriptions as meta.json stores them: the same name and
 * prices compare, another price or name or none stops the comparison,
 * in one line naming both. */
static void test_differs(void)
{
	char *zen3 = src_path("machines/zen3.json"), *cause = NULL, *why;
	struct model_machine mm;
	struct gx_meta_machine a, b, none = { 0 };

	if (model_machine__load(&mm, zen3, &cause) != 0) {
		skip(5, "machines/zen3.json does not read");
		free(cause);
		free(zen3);
		return;
	}
	model_machine__to_meta(&mm, &a);
	model_machine__to_meta(&mm, &b);
	ok(gx_meta_machine__differs(&a, "r1", &b, "r2") == NULL, "the same description: compared");
	mm.price[MP_MISPREDICT] = 20;
	gx_meta_machine__exit(&b);
	model_machine__to_meta(&mm, &b);
	why = gx_meta_machine__differs(&a, "r1", &b, "r2");
	ok(why && strstr(why, "r1 was priced with machine description 'zen3'") &&
	   strstr(why, "r2 with 'zen3'") && strstr(why, "mispredict 14 against 20") &&
	   !strchr(why, '\n'), "another mispredict: one line naming both (%s)", why ? why : "none");
	free(why);
	mm.price[MP_MISPREDICT] = 14;
	gx_meta_machine__exit(&b);
	model_machine__to_meta(&mm, &b);
	free(b.name);
	b.name = xstrdup("other");
	why = gx_meta_machine__differs(&a, "r1", &b, "r2");
	ok(why && strstr(why, "same prices, another name"), "another name: not compared (%s)",
	   why ? why : "none");
	free(why);
	why = gx_meta_machine__differs(&a, "r1", &none, "r2");
	ok(why && strstr(why, "no machine description"), "a result without one: not compared (%s)",
	   why ? why : "none");
	free(why);
	ok(gx_meta_machine__differs(&none, "r1", &none, "r2") == NULL,
	   "neither has one (measured results): compared");
	gx_meta_machine__exit(&a);
	gx_meta_machine__exit(&b);
	model_machine__exit(&mm);
	free(zen3);
}

/* A fake sysfs cache directory: L1D 32 KiB, L2 1 MiB, L3 32 MiB. */
static char *fake_sysfs(const char *tmp)
{
	static const struct {
		const char *type;
		int level;
		const char *size;
	} c[] = { { "Data", 1, "32K" }, { "Instruction", 1, "32K" }, { "Unified", 2, "1024K" },
		  { "Unified", 3, "32768K" } };
	char *root = xasprintf("%s/cache", tmp);

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		char *d = xasprintf("%s/index%zu", root, i);
		static const char *const f[] = { "type", "level", "size", "ways_of_associativity",
						 "coherency_line_size" };

		gx_mkdir_p(d);
		for (size_t k = 0; k < ARRAY_SIZE(f); k++) {
			char *p = xasprintf("%s/%s", d, f[k]);
			FILE *o = fopen(p, "w");

			if (o) {
				if (k == 0)
					fprintf(o, "%s\n", c[i].type);
				else if (k == 1)
					fprintf(o, "%d\n", c[i].level);
				else
					fprintf(o, "%s\n", k == 2 ? c[i].size : k == 3 ? "8" : "64");
				fclose(o);
			}
			free(p);
		}
		free(d);
	}
	return root;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static json_t *doc(const char *text)
{
	return json_loads(text, 0, NULL);
}

/* three runs' documents, each text's, in place of d's */
static void docs3(json_t *d[3], const char *text)
{
	for (int r = 0; r < 3; r++) {
		json_decref(d[r]);
		d[r] = doc(text);
	}
}

/* peak's documents with L3 measured faster than L2 and L3's bandwidth
 * above L2's (noise): the costs grow with the level anyway, and memory's
 * latency says the working set it was measured over; what peak did not
 * measure is the base description's, and a figure its runs disagree on
 * is refused. */
static void test_from_peak(void)
{
	static const char lat[] =
		"{\"clock\": {\"ghz\": 2.0}, \"latency\": ["
		"{\"bytes\": 16384, \"cycles\": 4}, {\"bytes\": 262144, \"cycles\": 40},"
		"{\"bytes\": 8388608, \"cycles\": 30}, {\"bytes\": 134217728, \"cycles\": 300}],"
		"\"bandwidth\": [{\"level\": \"L2\", \"kernel\": \"read\", \"threads\": 1,"
		" \"gbps\": 40}, {\"level\": \"L3\", \"kernel\": \"read\", \"threads\": 1,"
		" \"gbps\": 60}]}";
	static const char br[] =
		"{\"clock\": {\"ghz\": 2.0}, \"latency\": [{\"bytes\": 16384, \"cycles\": 4}],"
		" \"branch\": {\"mispredict_cycles\": %g}, \"page\": {\"cycles\": 16000},"
		" \"icache\": {\"l1i_miss_cycles\": 2.25, \"l1i_seq_miss_cycles\": 0.5}}";
	char *tmp = xasprintf("%s/gx-test-model-XXXXXX", gx_tmpdir()), *sys, *zen3;
	struct model_machine base, mm;
	struct machine_costs mc;
	json_t *d[3];
	char **notes = NULL, *cause = NULL, text[512];
	size_t nr_notes = 0, nr_notes_was;

	if (!mkdtemp(tmp)) {
		skip(30, "no temporary directory");
		free(tmp);
		return;
	}
	sys = fake_sysfs(tmp);
	setenv("GX_TEST_MODEL_SYSFS", sys, 1);
	zen3 = src_path("machines/zen3.json");
	if (model_machine__load(&base, zen3, &cause) != 0) {
		skip(30, "machines/zen3.json does not read");
		goto out;
	}
	for (int r = 0; r < 3; r++)
		d[r] = doc(lat);
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	model_machine_costs(&mc, &mm);
	ok(mc.measured && model_machine__measured(&mm, MP_L2_LAT), "peak's latencies: measured");
	is_double(mc.lat[1], 40, 0, "L2's latency: the chase at half its size");
	is_double(mm.price[MP_L3_LAT], 30, 0, "L3's as measured in the description (30)...");
	is_double(mc.lat[2], 40, 0, "... and priced no faster than L2's");
	is_double(mm.price[MP_DRAM_LAT], 300, 0, "memory's: the largest chase");
	is_double(mc.lat[3], 300 - mc.walk * (1 - mc.reach / mc.lat_bytes), 1e-9,
		  "... priced less the walks it paid past the TLB's reach (%.1f)", mc.lat[3]);
	is_double(mc.lat_bytes, 134217728, 0, "... and the working set it was measured over");
	is_double(mc.bw[2], mc.bw[1], 0, "L3's bandwidth, measured above L2's: L2's");
	ok(!mc.penalty_measured && mc.penalty == base.price[MP_MISPREDICT] &&
	   !strcmp(mm.source[MP_MISPREDICT], base.source[MP_MISPREDICT]),
	   "no branch test: zen3's documented mispredict and its source (%.1f)", mc.penalty);
	ok(!mc.fault_measured && mc.fault == 0 && !mc.imiss_measured &&
	   mc.imiss == base.price[MP_IMISS], "no page or icache test: zen3's figures");
	ok(nr_notes == 0, "runs that agree: nothing refused");
	model_machine__exit(&mm);
	for (int r = 0; r < 3; r++) {
		json_decref(d[r]);
		snprintf(text, sizeof(text), br, 27.5);
		d[r] = doc(text);
	}
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	model_machine_costs(&mc, &mm);
	ok(mc.penalty_measured && mc.penalty == 27.5, "peak's mispredict: %.1f cycles", mc.penalty);
	ok(mc.fault_measured && mc.fault == 16000, "peak's page test: a first touch %.0f cycles",
	   mc.fault);
	ok(mc.imiss_measured && mc.imiss == 2.25, "peak's icache test: an I1 miss %.2f cycles",
	   mc.imiss);
	ok(model_machine__measured(&mm, MP_ISEQ) && mc.iseq == 0.5 &&
	   strstr(mm.source[MP_ISEQ], "within 1 cycle"),
	   "... one on a sequential path %.2f cycles (%s)", mc.iseq, mm.source[MP_ISEQ]);
	model_machine__exit(&mm);
	/* one run of three 45% off: the mispredict is refused, the rest kept */
	json_decref(d[2]);
	snprintf(text, sizeof(text), br, 40.0);
	d[2] = doc(text);
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	ok(mm.price[MP_MISPREDICT] == base.price[MP_MISPREDICT] &&
	   !model_machine__measured(&mm, MP_MISPREDICT) && model_machine__measured(&mm, MP_FAULT),
	   "a mispredict that varies 45%% between runs: zen3's kept, the page test's saved");
	ok(nr_notes == 1 && strstr(notes[0], "mispredict varied 45%") &&
	   strstr(notes[0], "not saved"), "... and said (%s)", nr_notes ? notes[0] : "nothing");
	model_machine__exit(&mm);
	/* the TLB test: its rings over 256 pages (within zen3's 2048-page
	 * reach) and over 4096 (half past it) differ by half a walk; the
	 * latency ladder's chases within and past the reach (which differ in
	 * their bytes too) say nothing of it */
	docs3(d, "{\"clock\": {\"ghz\": 2.0}, \"latency\": ["
		   "{\"bytes\": 4194304, \"cycles\": 100}, {\"bytes\": 16777216, \"cycles\": 300},"
		   "{\"bytes\": 268435456, \"cycles\": 800}], \"tlb\": ["
		   "{\"pages\": 256, \"lines\": 4096, \"cycles\": 20},"
		   "{\"pages\": 1024, \"lines\": 4096, \"cycles\": 22},"
		   "{\"pages\": 2048, \"lines\": 4096, \"cycles\": 35},"
		   "{\"pages\": 4096, \"lines\": 4096, \"cycles\": 80}]}");
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	ok(model_machine__measured(&mm, MP_TLB_WALK) && mm.price[MP_TLB_WALK] == 120,
	   "a walk from the TLB test's fewest pages and its most: %.0f cycles",
	   mm.price[MP_TLB_WALK]);
	model_machine_costs(&mc, &mm);
	is_double(mc.lat[3], 800 - 120 * (1 - 1 / 32.0), 1e-9,
		  "memory's latency less its walks (%.1f)", mc.lat[3]);
	model_machine__exit(&mm);
	docs3(d, "{\"clock\": {\"ghz\": 2.0}, \"latency\": ["
		   "{\"bytes\": 4194304, \"cycles\": 100}, {\"bytes\": 16777216, \"cycles\": 300},"
		   "{\"bytes\": 268435456, \"cycles\": 800}], \"tlb\": ["
		   "{\"pages\": 256, \"lines\": 4096, \"cycles\": 20},"
		   "{\"pages\": 2048, \"lines\": 4096, \"cycles\": 35}]}");
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	ok(!model_machine__measured(&mm, MP_TLB_WALK) &&
	   mm.price[MP_TLB_WALK] == base.price[MP_TLB_WALK],
	   "no ring past the reach, only the ladder's chases: zen3's walk kept (%.0f)",
	   mm.price[MP_TLB_WALK]);
	model_machine__exit(&mm);
	/* the L3 this core gets: the fake sysfs gives 32 MiB, but a chase over
	 * 16 MiB costs memory's latency (the 64 MiB chase's, the nearest past
	 * the L3) and one over 4 MiB an L3's (a Zen 5 VM's ladder, whose
	 * neighbours share its L3) */
	for (int r = 0; r < 3; r++) {
		json_decref(d[r]);
		snprintf(text, sizeof(text), "{\"clock\": {\"ghz\": 2.0}, \"latency\": ["
			 "{\"bytes\": 262144, \"cycles\": 14}, {\"bytes\": 4194304, \"cycles\": %d},"
			 "{\"bytes\": 16777216, \"cycles\": %d}, {\"bytes\": 67108864, \"cycles\": 379},"
			 "{\"bytes\": 268435456, \"cycles\": 369}]}", 72 + r, 508 - r);
		d[r] = doc(text);
	}
	nr_notes_was = nr_notes;
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	ok(mm.price[MP_L3_SIZE] == 4194304 && model_machine__measured(&mm, MP_L3_SIZE) &&
	   strstr(mm.source[MP_L3_SIZE], "over 16384 KiB cost 506-508 cycles") &&
	   strstr(mm.source[MP_L3_SIZE], "one over 65536 KiB, past the L3 (379: memory's); "
			  "one over 4096 KiB 72-74, the largest under half"),
	   "a 16 MiB chase at memory's latency: the L3 this core gets, 4 MiB (%s)",
	   mm.source[MP_L3_SIZE]);
	ok(mm.price[MP_L3_LAT] == 73 && model_machine__measured(&mm, MP_L3_LAT),
	   "... and L3's latency the chase over that (%.0f)", mm.price[MP_L3_LAT]);
	ok(nr_notes == nr_notes_was, "... nothing refused");
	model_machine__exit(&mm);
	/* a bare machine's ladder: 16 MiB, half the L3, an L3 hit and a walk */
	json_decref(d[1]);
	d[1] = doc("{\"clock\": {\"ghz\": 2.0}, \"latency\": ["
		   "{\"bytes\": 4194304, \"cycles\": 50}, {\"bytes\": 16777216, \"cycles\": 90},"
		   "{\"bytes\": 268435456, \"cycles\": 369}]}");
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	ok(mm.price[MP_L3_SIZE] == 33554432 && !model_machine__measured(&mm, MP_L3_SIZE) &&
	   nr_notes > nr_notes_was && strstr(notes[nr_notes - 1], "l3_size: the L3 this core gets") &&
	   strstr(notes[nr_notes - 1], "4096 to 32768 KiB"),
	   "one run of three whose 16 MiB chase is an L3 hit: sysfs's 32 MiB kept, and said (%s)",
	   nr_notes > nr_notes_was ? notes[nr_notes - 1] : "nothing");
	model_machine__exit(&mm);
	/* memory's latency by the set's size: the smallest chase of 4 times
	 * the L3 this core gets (4 MiB) or more, and the largest */
	docs3(d, "{\"clock\": {\"ghz\": 2.0}, \"latency\": ["
		   "{\"bytes\": 262144, \"cycles\": 14}, {\"bytes\": 4194304, \"cycles\": 72},"
		   "{\"bytes\": 16777216, \"cycles\": 493}, {\"bytes\": 67108864, \"cycles\": 677},"
		   "{\"bytes\": 268435456, \"cycles\": 858}]}");
	nr_notes_was = nr_notes;
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	model_machine_costs(&mc, &mm);
	ok(mm.price[MP_DRAM_NEAR_LAT] == 493 && mm.price[MP_DRAM_NEAR_BYTES] == 16777216 &&
	   model_machine__measured(&mm, MP_DRAM_NEAR_LAT) && mm.price[MP_DRAM_LAT] == 858 &&
	   nr_notes == nr_notes_was, "a chase over 16 MiB (493) and one over 256 MiB (858): "
	   "memory's latency by the set's size (%.0f over %.0f bytes)",
	   mm.price[MP_DRAM_NEAR_LAT], mm.price[MP_DRAM_NEAR_BYTES]);
	is_double(mc.near_lat, 493 - model_tlb_in_latency(16777216, mc.reach, mc.walk), 1e-9,
		  "... each priced less the walks it paid (%.1f, %.1f)", mc.near_lat, mc.lat[3]);
	is_double(model_dram_at(&mc, 67108864), (mc.near_lat + mc.lat[3]) / 2, 1e-9,
		  "... a set of 64 MiB half way between them");
	model_machine__exit(&mm);
	setenv("GX_TEST_PEAK_VARY", "dram_near_latency", 1);
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	unsetenv("GX_TEST_PEAK_VARY");
	model_machine_costs(&mc, &mm);
	ok(mm.price[MP_DRAM_NEAR_LAT] == 858 && mm.price[MP_DRAM_NEAR_BYTES] == 268435456 &&
	   strstr(mm.source[MP_DRAM_NEAR_LAT], "one latency for every set") &&
	   model_dram_at(&mc, 16777216) == mc.lat[3] && nr_notes == nr_notes_was + 1 &&
	   strstr(notes[nr_notes - 1], "dram_near_latency varied"),
	   "the near chase varying between runs: one latency for every set, memory's (%s)",
	   mm.source[MP_DRAM_NEAR_LAT]);
	model_machine__exit(&mm);
	/* no chase past L2 under half memory's latency: an L3 of L2's size */
	docs3(d, "{\"clock\": {\"ghz\": 2.0}, \"latency\": ["
		   "{\"bytes\": 262144, \"cycles\": 14}, {\"bytes\": 4194304, \"cycles\": 300},"
		   "{\"bytes\": 16777216, \"cycles\": 500},"
		   "{\"bytes\": 268435456, \"cycles\": 369}]}");
	nr_notes_was = nr_notes;
	model_machine__from_peak(&mm, &base, d, 3, 0.1, "here", &notes, &nr_notes);
	ok(mm.price[MP_L3_SIZE] == 1048576 &&
	   strstr(mm.source[MP_L3_SIZE], "none past L2 under half: L2's size") &&
	   nr_notes == nr_notes_was, "every chase past L2 at memory's latency: an L3 of L2's "
	   "size (%s)", mm.source[MP_L3_SIZE]);
	model_machine__exit(&mm);
	for (int r = 0; r < 3; r++)
		json_decref(d[r]);
	gx_free_strv(notes, nr_notes);
	model_machine__exit(&base);
out:
	unsetenv("GX_TEST_MODEL_SYSFS");
	nftw(tmp, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(cause);
	free(zen3);
	free(sys);
	free(tmp);
}

/* A source line's file is the last fl=, fi= or fe= (a call's cfi= and a
 * jump's jfi= name the target's, in the same name space, and leave it);
 * the line is the second position. */
static void test_sources(void)
{
	static const char text[] = "version: 1\n"
				   "positions: instr line\n"
				   "events: Ir D1mr\n"
				   "ob=(1) /bin/a\n"
				   "fl=(1) a.c\n"
				   "fn=(1) f\n"
				   "0x100 10 1\n"
				   "fi=(2) inl.h\n"
				   "+4 +90 2 1\n"
				   "cfi=(3) b.c\n"
				   "cfn=(2) g\n"
				   "calls=1 0x300 5\n"
				   "+2 -80 1\n"
				   "jfi=(4) c.c\n"
				   "jump=1 0x400 7\n"
				   "+2 * 1\n"
				   "fe=(1)\n"
				   "+2 +1 1\n"
				   "fl=(3)\n"
				   "fn=(2)\n"
				   "0x300 5 1\n"
				   "fi=(4)\n"
				   "0x302 7 1\n";
	static const struct { uint64_t addr; const char *src; unsigned line; } want[] = {
		{ 0x100, "a.c", 10 }, { 0x104, "inl.h", 100 }, { 0x108, "inl.h", 20 },
		{ 0x10a, "a.c", 21 }, { 0x300, "b.c", 5 }, { 0x302, "c.c", 7 },
	};
	struct cg_profile p;
	char *cause = NULL;

	cg_profile__init(&p);
	is_int(cg_profile__parse(&p, text, sizeof(text) - 1, "src", &cause), 0,
	       "fl, fi, fe, cfi and jfi parse (%s)", cause ? cause : "ok");
	is_int((long)p.nr_insns, 6, "six instructions (a call's line is its inclusive cost)");
	for (size_t i = 0; i < p.nr_insns && i < 6; i++) {
		const struct cg_insn *c = &p.insns[i];

		is_int((long)c->addr, (long)want[i].addr, "instruction %zu at 0x%llx", i,
		       (unsigned long long)want[i].addr);
		is_str(c->src ? p.srcs[c->src - 1] : "-", want[i].src, "... in %s", want[i].src);
		is_int((long)c->line, (long)want[i].line, "... line %u", want[i].line);
	}
	free(cause);
	cg_profile__exit(&p);
}

/* cachegrind's output: a function's lines in a file, self costs by the
 * events line's names; two files add up; malformed lines name their
 * number. */
static void test_cachegrind(void)
{
	static const char text[] = "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
				   "desc: D1 cache: 1048576 B, 64 B, 8-way associative\n"
				   "cmd: ./a\n"
				   "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
				   "fl=a.c\n"
				   "fn=main\n"
				   "10 5 0 0 2 1 1 1 0 0\n"
				   "11 3 0 0 1 0 0 2 2 1\n"
				   "fn=helper\n"
				   "20 1\n"
				   "fl=???\n"
				   "fn=???\n"
				   "0 7 0 0 3 3 0\n"
				   "summary: 16 0 0 6 4 1 3 3 1\n";
	static const struct {
		int line;
		const char *text, *why;
	} bad_cg[] = {
		{ __LINE__, "events: Ir\n10 1\n", ":2: a cost line before its events, file or function" },
		{ __LINE__, "events: Ir\nfl=a\nfn=b\n99999999999 1\n", ":4: bad line number" },
		{ __LINE__, "events: Ir\nfl=a\nfn=b\n10 1 2\n", ":4: bad cost" },
		{ __LINE__, "events: Ir\nfl=a\nfn=b\n10 x\n", ":4: bad cost" },
		{ __LINE__, "events: Ir\n%%%\n", ":2: not a cachegrind line" },
		{ __LINE__, "# callgrind format\n", "not a cachegrind output file" },
	};
	struct cg_lines p;
	char *cause = NULL;

	cg_lines__init(&p);
	is_int(cg_lines__parse(&p, text, sizeof(text) - 1, "cg", &cause), 0,
	       "a cachegrind file parses (%s)", cause ? cause : "ok");
	is_int(cg_lines__parse(&p, text, sizeof(text) - 1, "cg2", &cause), 0, "... twice");
	is_int((long)p.n, 8, "four lines a file, not merged");
	is_str(p.names[p.v[1].file], "a.c", "a line's file");
	is_str(p.names[p.v[1].fn], "main", "... its function");
	is_int((long)p.v[1].line, 11, "... its number");
	is_int((long)(p.v[1].c[CG_D1MW] + p.v[1].c[CG_DLMW]), 3, "... its D1mw and DLmw");
	is_str(p.names[p.v[2].fn], "helper", "a function after another in one file");
	is_int((long)p.v[2].c[CG_IR], 1, "... trailing columns left out are 0");
	is_str(p.names[p.v[3].fn], "???", "a function without a symbol");
	is_int((long)p.totals[CG_IR], 32, "Ir summed over both files");
	is_int((long)p.totals[CG_D1MR], 8, "D1mr summed");
	is_int((long)p.nr_names, 4, "names kept once each (\"???\" a file's and a function's)");
	is_int(p.files, 2, "two files read");
	cg_lines__exit(&p);
	for (size_t i = 0; i < sizeof(bad_cg) / sizeof(bad_cg[0]); i++) {
		int err;

		free(cause);
		cause = NULL;
		cg_lines__init(&p);
		err = cg_lines__parse(&p, bad_cg[i].text, strlen(bad_cg[i].text), "f", &cause);
		ok(err == GX_E_FORMAT && cause && strstr(cause, bad_cg[i].why),
		   "line %d: %s (%s)", bad_cg[i].line, bad_cg[i].why, cause ? cause : "no error");
		cg_lines__exit(&p);
	}
	free(cause);
	cause = NULL;
	/* cachegrind writes the command's arguments as they are: one with a
	 * newline carries its rest onto lines of their own (issue 39) */
	{
		static const char nl[] = "desc: I1 cache: 32768 B\n"
					 "cmd: ./a x\n12 y\nz: %%\nq\n"
					 "events: Ir\nfl=a.c\nfn=main\n3 7\n";

		cg_lines__init(&p);
		is_int(cg_lines__parse(&p, nl, sizeof(nl) - 1, "nl", &cause), 0,
		       "an argument with newlines in cmd: parses (%s)", cause ? cause : "ok");
		is_int((long)p.totals[CG_IR], 7, "... and its costs are read");
		cg_lines__exit(&p);
		free(cause);
	}
}

/* Largest remainder: the shares sum to the total exactly. */
static void test_split(void)
{
	uint64_t w3[3] = { 1, 1, 1 }, w0[2] = { 0, 0 }, out[3], big[2] = { UINT64_MAX / 3, 1 };
	double d[3] = { 0.25, 0.5, 0.25 };

	model_split(10, w3, 3, out);
	ok(out[0] == 4 && out[1] == 3 && out[2] == 3, "10 over 1:1:1: 4 3 3 (%llu %llu %llu)",
	   (unsigned long long)out[0], (unsigned long long)out[1], (unsigned long long)out[2]);
	model_split(7, w0, 2, out);
	ok(out[0] == 7 && out[1] == 0, "no weights: all to the first");
	model_split(UINT64_MAX - 1, big, 2, out);
	ok(out[0] + out[1] == UINT64_MAX - 1, "huge weights and total: the sum exact");
	model_split_d(3, d, 3, out);
	ok(out[0] + out[1] + out[2] == 3 && out[1] >= 1, "3 over .25:.5:.25: %llu %llu %llu",
	   (unsigned long long)out[0], (unsigned long long)out[1], (unsigned long long)out[2]);
	model_split_d(1000003, d, 3, out);
	ok(out[0] + out[1] + out[2] == 1000003, "fractional weights: the sum exact");
}

/* The files of a run: pid 100's threads 1 and 2; pid 101, forked by 100
 * (its log says so), with its copy dumped as _Fork returned, then its own. */
static const char *const run_files[] = {
	"version: 1\npid: 100\ncmd:  /usr/bin/prog -x\npart: 1\nthread: 1\nevents: Ir Bc\n"
	"ob=(1) /usr/bin/prog\nfn=(1) main\n0x10 100 10\n0x11 50 0\n",
	"version: 1\npid: 100\ncmd:  /usr/bin/prog -x\npart: 1\nthread: 2\nevents: Ir Bc\n"
	"ob=(1) /usr/bin/prog\nfn=(2) worker\n0x20 30 3\n",
	"version: 1\npid: 101\ncmd:  /usr/bin/prog -x\npart: 1\nthread: 1\n"
	"desc: Trigger: --dump-after=_Fork\nevents: Ir Bc\n"
	"ob=(1) /usr/bin/prog\nfn=(1) main\n0x10 60 6\n",
	"version: 1\npid: 101\ncmd:  /usr/bin/prog -x\npart: 2\nthread: 1\n"
	"desc: Trigger: Program termination\nevents: Ir Bc\n"
	"ob=(1) /usr/bin/prog\nfn=(1) main\n0x10 7 1\n0x11 5 0\n",
	"version: 1\npid: 101\ncmd:  /usr/bin/prog -x\npart: 2\nthread: 2\nevents: Ir Bc\n"
	"ob=(1) /usr/bin/prog\nfn=(2) worker\n0x20 30 3\n",
};

static void test_tasks(void)
{
	struct cg_profile p;
	struct model_tasks t;
	char dir[] = "/tmp/gx-test-model-XXXXXX", *log, *prefix, *cause = NULL;
	FILE *f;
	uint64_t per[5] = { 0 }, ir = 0;

	cg_profile__init(&p);
	for (size_t i = 0; i < ARRAY_SIZE(run_files); i++)
		is_int(cg_profile__parse(&p, run_files[i], strlen(run_files[i]), "run", &cause), 0,
		       "file %zu parses (%s)", i, cause ? cause : "");
	is_int((int)p.nr_parts, 5, "a part a file");
	ok(p.parts[0].pid == 100 && p.parts[1].thread == 2 && p.parts[3].dump == 2 &&
	   p.parts[2].dumped && !p.parts[3].dumped, "pid, thread, dump number and trigger read");
	is_str(p.parts[0].cmd, "/usr/bin/prog -x", "the command line");
	for (size_t j = 0; j < p.nr_pins; j++) {
		per[p.pins[j].part] += p.pins[j].c[CG_IR];
		if (p.pins[j].insn == 0)
			ir += p.pins[j].c[CG_IR];
	}
	ok(per[0] == 150 && per[1] == 30 && per[2] == 60 && per[3] == 12 && per[4] == 30,
	   "each part's own instructions");
	is_int((int)ir, (int)p.insns[0].c[CG_IR], "0x10: the parts' counts sum to the merged one");
	if (!mkdtemp(dir)) {
		skip(1, "no temporary directory");
		cg_profile__exit(&p);
		return;
	}
	log = xasprintf("%s/callgrind.log.101", dir);
	f = fopen(log, "w");
	if (f) {
		fputs("==101== Command: /usr/bin/prog -x\n==101== Parent PID: 100\n==101== \n", f);
		fclose(f);
	}
	prefix = xasprintf("%s/callgrind.log.", dir);
	model_tasks__build(&t, &p, 1, "dflt", prefix);
	is_str(t.comm[0], "prog", "the program's name from cmd:");
	ok(t.tid[0] == 100 && t.tid[1] == 102, "thread 2's tid skips pid 101: %u %u", t.tid[0],
	   t.tid[1]);
	ok(t.tid[3] == 101 && t.tid[4] == t.tid[1] + 1, "the child's threads: %u %u", t.tid[3],
	   t.tid[4]);
	ok(t.empty[2] && t.empty[4] && !t.empty[3], "the child's copies empty, its own not");
	ok(t.c[p.nr_pins - 2][CG_IR] + t.c[p.nr_pins - 3][CG_IR] == 12,
	   "the forking thread's own counts kept whole");
	ok(t.nr_procs == 2 && t.nr_threads == 3, "2 processes, 3 threads ran (%u, %u)", t.nr_procs,
	   t.nr_threads);
	model_tasks__exit(&t);
	model_tasks__build(&t, &p, 1, "dflt", NULL);
	ok(!t.empty[2] && t.nr_procs == 2, "no logs: no parent known, nothing taken off");
	model_tasks__exit(&t);
	unlink(log);
	rmdir(dir);
	free(log);
	free(prefix);
	free(cause);
	cg_profile__exit(&p);
}

/* root -> main -> a -> c, main -> c (c's self 3:1 to a's path), main -> r
 * -> r (recursion), main -> x -> y -> x (mutual). */
static void test_graph(void)
{
	static const char text[] =
		"events: Ir\nob=(1) /bin/p\n"
		"fn=(1) root\n0x10 1\ncfn=(2) main\ncalls=1 0x100\n0x11 1000\n"
		"fn=(2)\n0x100 10\ncfn=(3) a\ncalls=1 0x200\n0x101 400\n"
		"cfn=(4) c\ncalls=1 0x300\n0x102 100\n"
		"cfn=(5) r\ncalls=1 0x400\n0x103 50\n"
		"cfn=(6) x\ncalls=1 0x500\n0x104 20\n"
		"fn=(3)\n0x200 100\ncfn=(4)\ncalls=1 0x300\n0x201 300\n"
		"fn=(4)\n0x300 400\n"
		"fn=(5)\n0x400 10\ncfn=(5)\ncalls=4 0x400\n0x401 40\n"
		"fn=(6)\n0x500 5\ncfn=(7) y\ncalls=1 0x600\n0x501 15\n"
		"fn=(7)\n0x600 5\ncfn=(6)\ncalls=1 0x500\n0x601 10\n";
	struct cg_profile p;
	struct model_tasks t;
	struct model_graph g;
	const struct model_stack *st;
	char *cause = NULL;
	size_t n;

	cg_profile__init(&p);
	is_int(cg_profile__parse(&p, text, strlen(text), "graph", &cause), 0, "parses (%s)",
	       cause ? cause : "");
	ok(p.nr_calls == 9 && p.calls[1].caller == 2 && p.calls[1].incl == 400,
	   "a call's caller and inclusive instructions");
	model_tasks__build(&t, &p, 1, "p", NULL);
	model_graph__init(&g, &p, &t);
	st = model_graph__stacks(&g, 0, 3, &n);	/* c */
	is_int((int)n, 2, "c: two stacks");
	for (size_t s = 0; s < n; s++) {
		const struct model_edge *e = &g.edges[g.frames[st[s].first]];

		if (st[s].depth == 3)
			ok(e->site == 0x201 && st[s].w > 0.749 && st[s].w < 0.751,
			   "root;main;a;c: a's call site, 3/4");
		else
			ok(st[s].depth == 2 && e->site == 0x102 && st[s].w > 0.249 && st[s].w < 0.251,
			   "root;main;c: main's call site, 1/4");
	}
	st = model_graph__stacks(&g, 0, 4, &n);	/* r */
	ok(n == 1 && st[0].depth == 2 && st[0].w == 1, "r: once, under main (its own calls cut)");
	st = model_graph__stacks(&g, 0, 5, &n);	/* x */
	ok(n == 1 && st[0].depth == 2 && g.edges[g.frames[st[0].first]].site == 0x104 &&
	   st[0].w == 1, "x: under main only (y's call leads back into x)");
	st = model_graph__stacks(&g, 0, 0, &n);	/* root */
	ok(n == 1 && st[0].depth == 0, "root: a stack of itself");
	model_graph__exit(&g);
	model_tasks__exit(&t);
	free(cause);
	cg_profile__exit(&p);
}

/* LLVM's disassembler in process (disasm.c): llvm-objdump's text for the
 * bytes, a relative branch's target made an address as it prints it */
static void test_disasm(void)
{
	static const struct {
		uint8_t b[16];
		size_t n, len;
		uint64_t pc;
		const char *text;
	} c[] = {
		{ { 0x48, 0x89, 0xe5 }, 3, 3, 0x1000, "movq %rsp, %rbp" },
		{ { 0x75, 0xf4 }, 2, 2, 0x1000, "jne 0xff6" },
		{ { 0xe8, 0x00, 0x01, 0x00, 0x00 }, 5, 5, 0x401000, "callq 0x401105" },
		{ { 0xff, 0xd0 }, 2, 2, 0x1000, "callq *%rax" },
		/* llvm-objdump: "rep\t\tstosq\t...", its tabs made spaces */
		{ { 0xf3, 0x48, 0xab }, 3, 3, 0x1000, "rep  stosq %rax, %es:(%rdi)" },
		{ { 0x83, 0xc0, 0x01 }, 3, 3, 0x1000, "addl $1, %eax" },
		{ { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 }, 7, 7, 0x1000,
		  "movq 16(%rip), %rax" },
		{ { 0x06 }, 1, 0, 0x1000, NULL },		/* push %es: none in 64-bit mode */
		{ { 0x48, 0x89 }, 2, 0, 0x1000, NULL },	/* cut short */
	};
	void *dc = model_disasm__open(62);

	if (!dc) {
		skip(1 + 2 * (int)(sizeof(c) / sizeof(c[0])), "no libLLVM loads here");
		return;
	}
	ok(model_disasm__open(40) == NULL, "an ARM (32-bit) object: llvm-objdump's, not here");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char out[160] = "";
		size_t len = model_disasm__insn(dc, c[i].b, c[i].n, c[i].pc, out, sizeof(out));

		is_int((long long)len, (long long)c[i].len, "disasm %zu: length", i);
		if (c[i].text)
			is_str(out, c[i].text, "disasm %zu: the text llvm-objdump prints", i);
		else
			ok(len == 0, "disasm %zu: no instruction", i);
	}
	model_disasm__close(dc);
}

int main(void)
{
	test_golden();
	test_sources();
	test_cachegrind();
	test_bad();
	test_paths();
	test_miss_split();
	test_miss_bound();
	test_tlb();
	test_block_chains();
	test_chain_scale();
	test_in_flight();
	test_insn_rw();
	test_chains();
	test_recurrence();
	test_bias_bound();
	test_mca();
	test_l3();
	test_shipped();
	test_match();
	test_desc_bad();
	test_differs();
	test_from_peak();
	test_split();
	test_tasks();
	test_graph();
	test_disasm();
	return done_testing();
}
