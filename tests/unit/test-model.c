/*
 * test-model: src/model's parsers. The callgrind parser on a checked-in
 * callgrind.out (name and position compression, a call's inclusive cost
 * not counted as the caller's own, jumps and calls, each instruction's
 * source file and line) against a golden of its counts (GX_REGEN_GOLDEN=1
 * rewrites it: read the diff); malformed files give a message naming the
 * line; a cachegrind file's lines (the model's second pass); llvm-mca's batched output (three regions) and
 * the -mcpu table; the L3 a model simulates where CPUID's figure is more
 * than one core can use, where temporary files go, and the machine's
 * costs read from peak's stored results (a farther level never cheaper).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "model/model-int.h"
#include "peak/peak.h"
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

/* peak's stored results with L3 measured faster than L2 and L3's
 * bandwidth above L2's (noise): the costs grow with the level anyway,
 * and memory's latency says the working set it was measured over. */
static void test_costs(void)
{
	char *dir = xasprintf("%s/gx-test-model-XXXXXX", gx_tmpdir());
	struct cache_geo g[GEO_NR] = {
		[GEO_I1] = { 32 << 10, 8, 64 }, [GEO_D1] = { 32 << 10, 8, 64 },
		[GEO_L2] = { 1 << 20, 8, 64 }, [GEO_L3] = { 32 << 20, 16, 64 },
	};
	struct machine_costs mc;
	char *path, *slash;
	FILE *f;

	if (!mkdtemp(dir)) {
		skip(12, "no temporary directory");
		free(dir);
		return;
	}
	setenv("XDG_CACHE_HOME", dir, 1);
	path = peak_cache_path();
	slash = strrchr(path, '/');
	*slash = 0;
	gx_mkdir_p(path);
	*slash = '/';
	f = fopen(path, "w");
	fputs("{\"clock\": {\"ghz\": 2.0}, \"latency\": ["
	      "{\"bytes\": 16384, \"cycles\": 4}, {\"bytes\": 262144, \"cycles\": 40},"
	      "{\"bytes\": 8388608, \"cycles\": 30}, {\"bytes\": 134217728, \"cycles\": 300}],"
	      "\"bandwidth\": [{\"level\": \"L2\", \"kernel\": \"read\", \"threads\": 1,"
	      " \"gbps\": 40}, {\"level\": \"L3\", \"kernel\": \"read\", \"threads\": 1,"
	      " \"gbps\": 60}]}", f);
	fclose(f);
	model_machine_costs(&mc, g, "AuthenticAMD");
	ok(mc.measured, "peak's stored results read");
	is_double(mc.lat[1], 40, 0, "L2's latency: the chase at half its size");
	is_double(mc.lat[2], 40, 0, "L3's, measured faster than L2's: L2's");
	is_double(mc.lat[3], 300, 0, "memory's: the largest chase");
	is_double(mc.lat_bytes, 134217728, 0, "... and the working set it was measured over");
	is_double(mc.bw[2], mc.bw[1], 0, "L3's bandwidth, measured above L2's: L2's");
	ok(!mc.penalty_measured && mc.penalty == 14,
	   "a result without peak's branch test: AMD's documented mispredict penalty (%.1f)",
	   mc.penalty);
	ok(!mc.fault_measured && mc.fault == 0,
	   "a result without peak's page test: first touches priced at nothing");
	ok(!mc.imiss_measured && mc.imiss == 36,
	   "... without its icache test: an I1 miss at L2's latency less L1's (%.1f)", mc.imiss);
	/* the mispredict's cost as peak measured it (Zen 5 in a VM: 28-29
	 * cycles, where the documented 14 left sort's modelled cycles at half
	 * the measured): the model prices mispredicts by it */
	f = fopen(path, "w");
	fputs("{\"clock\": {\"ghz\": 2.0}, \"latency\": [{\"bytes\": 16384, \"cycles\": 4}],"
	      " \"branch\": {\"predicted_cycles\": 1.5, \"random_cycles\": 15.25,"
	      " \"mispredict_cycles\": 27.5}, \"page\": {\"pages\": 16384, \"user_ns\": 8000,"
	      " \"cycles\": 16000, \"system_ns\": 6000}, \"icache\": {\"hit_cycles\": 0.5,"
	      " \"miss_cycles\": 2.75, \"l1i_miss_cycles\": 2.25}}", f);
	fclose(f);
	model_machine_costs(&mc, g, "AuthenticAMD");
	ok(mc.penalty_measured && mc.penalty == 27.5, "peak's measured mispredict: %.1f cycles",
	   mc.penalty);
	/* a first touch's user time as peak's page test measured it (6-16 us
	 * on this project's VMs, whose hypervisor charges a fault to the user
	 * instruction that made it): what each page the workload touches
	 * first is priced at */
	ok(mc.fault_measured && mc.fault == 16000, "peak's page test: a first touch %.0f cycles",
	   mc.fault);
	/* an I1 miss on a predicted path as peak's icache test measured it (2
	 * cycles on Zen 5, where L2's data latency less L1's is 10: the front
	 * end fetches ahead and overlaps the fill) */
	ok(mc.imiss_measured && mc.imiss == 2.25, "peak's icache test: an I1 miss %.2f cycles",
	   mc.imiss);
	unlink(path);
	*slash = 0;
	rmdir(path);
	rmdir(dir);
	free(dir);
	free(path);
	unsetenv("XDG_CACHE_HOME");
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

int main(void)
{
	test_golden();
	test_sources();
	test_cachegrind();
	test_bad();
	test_paths();
	test_miss_split();
	test_miss_bound();
	test_bias_bound();
	test_mca();
	test_l3();
	test_costs();
	return done_testing();
}
