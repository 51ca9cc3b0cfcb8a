/*
 * Evaluation: per-model cases with counts chosen by hand and expected
 * values worked out by hand from the published formulas (the arithmetic
 * is in the comments), invariants on random consistent count sets, and
 * the flag / bottleneck / mismeasured rules on a synthetic model.
 */
#include "config.h"

#include "topdown/topdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static const char *dir = GX_SRC_EVENTS_DIR;

struct kv {
	const char *name;
	double v;
};

struct tcase {
	int line;
	const char *model;
	enum td_smt smt;
	bool core_wide;
	const char *variant;
	struct kv counts[40];
	struct kv want[32];	/* metric values; NAN = n/a */
	const char *bottleneck;	/* NULL: none */
};

static const struct tcase cases[] = {
	/*
	 * Skylake, SMT off: CLKS 1e6, SLOTS 4e6.
	 * FE 0.8e6/4e6 = .2; Fetch_Latency 4*1e5/4e6 = .1; BW .1.
	 * Bad (1.8e6 - 1.4e6 + 4*5e4)/4e6 = .15; Ret 1.4e6/4e6 = .35;
	 * BE 1 - .2 - (1.8e6 + 2e5)/4e6 = .3.
	 * BrM 3e4/4e4 * .15 = .1125; MC .0375.
	 * MB (3e5+1e5)/(5e5 + 2e5 + .35*2e5 + 1e5) * .3 = 4/8.7*.3; Core .3 - MB.
	 * L1 (3e5-2e5)/1e6 = .1; H = 9e3*(1+2e3/2e4) = 9900; L2 9900/1e4 * .08 = .0792;
	 * L3 .07; DRAM .05 + .08 - .0792 = .0508; Store .1.
	 * Heavy (1.4e6 + 5e4 - 1.25e6)/4e6 = .05; Light .3; CPI .8.
	 * Flags: FE, BE, Core_Bound (.162 > .10); MB .138 < .20 so its children are not flagged.
	 */
	{ __LINE__, "skl", TD_SMT_OFF, false, NULL,
	  { { "cycles", 1e6 }, { "IDQ_UOPS_NOT_DELIVERED.CORE", 8e5 },
	    { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 1e5 }, { "UOPS_ISSUED.ANY", 1.8e6 },
	    { "UOPS_RETIRED.RETIRE_SLOTS", 1.4e6 }, { "INT_MISC.RECOVERY_CYCLES", 5e4 },
	    { "BR_MISP_RETIRED.ALL_BRANCHES", 3e4 }, { "MACHINE_CLEARS.COUNT", 1e4 },
	    { "CYCLE_ACTIVITY.STALLS_MEM_ANY", 3e5 }, { "EXE_ACTIVITY.BOUND_ON_STORES", 1e5 },
	    { "CYCLE_ACTIVITY.STALLS_TOTAL", 5e5 }, { "EXE_ACTIVITY.1_PORTS_UTIL", 2e5 },
	    { "EXE_ACTIVITY.2_PORTS_UTIL", 2e5 }, { "CYCLE_ACTIVITY.STALLS_L1D_MISS", 2e5 },
	    { "CYCLE_ACTIVITY.STALLS_L2_MISS", 1.2e5 }, { "CYCLE_ACTIVITY.STALLS_L3_MISS", 5e4 },
	    { "MEM_LOAD_RETIRED.L2_HIT", 9e3 }, { "MEM_LOAD_RETIRED.FB_HIT", 2e3 },
	    { "MEM_LOAD_RETIRED.L1_MISS", 2e4 }, { "L1D_PEND_MISS.FB_FULL:c1", 100 },
	    { "instructions", 1.25e6 }, { "UOPS_RETIRED.MACRO_FUSED", 5e4 } },
	  { { "SLOTS", 4e6 }, { "Frontend_Bound", .2 }, { "Fetch_Latency", .1 },
	    { "Fetch_Bandwidth", .1 }, { "Bad_Speculation", .15 }, { "Branch_Mispredicts", .1125 },
	    { "Machine_Clears", .0375 }, { "Backend_Bound", .3 }, { "Memory_Bound", 4 / 8.7 * .3 },
	    { "Core_Bound", .3 - 4 / 8.7 * .3 }, { "L1_Bound", .1 }, { "L2_Bound", .0792 },
	    { "L3_Bound", .07 }, { "DRAM_Bound", .0508 }, { "Store_Bound", .1 }, { "Retiring", .35 },
	    { "Heavy_Operations", .05 }, { "Light_Operations", .3 }, { "CPI", .8 }, { "IPC", 1.25 } },
	  "Core_Bound" },
	/*
	 * Skylake, SMT on, per-thread estimate: CORE_CLKS = 1e6/2 * (1 + 2.5e5/5e5)
	 * = 7.5e5, SLOTS 3e6; Recovery = 8e4/2 = 4e4.
	 * FE .8e6/3e6; Bad (4e5 + 1.6e5)/3e6; Ret 1.4e6/3e6; BE 1 - FE - 1.96e6/3e6 = .08.
	 * Bottleneck: FE .2667 and Bad .1867 flagged; FE has no flagged child
	 * (Fetch_Latency 4e5/3e6 = .1333 is, Fetch_Bandwidth .1333 is not > .2) -> Fetch_Latency.
	 */
	{ __LINE__, "skl", TD_SMT_ON, false, NULL,
	  { { "CPU_CLK_UNHALTED.THREAD", 1e6 }, { "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 2.5e5 },
	    { "CPU_CLK_UNHALTED.REF_XCLK", 5e5 }, { "IDQ_UOPS_NOT_DELIVERED.CORE", 8e5 },
	    { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 1e5 }, { "UOPS_ISSUED.ANY", 1.8e6 },
	    { "UOPS_RETIRED.RETIRE_SLOTS", 1.4e6 }, { "INT_MISC.RECOVERY_CYCLES_ANY", 8e4 },
	    { "INT_MISC.RECOVERY_CYCLES", 1 /* ignored with SMT on */ },
	    { "BR_MISP_RETIRED.ALL_BRANCHES", 3e4 }, { "MACHINE_CLEARS.COUNT", 1e4 },
	    { "INST_RETIRED.ANY", 1.25e6 } },
	  { { "SLOTS", 3e6 }, { "Frontend_Bound", .8 / 3 }, { "Bad_Speculation", .56 / 3 },
	    { "Retiring", 1.4 / 3 }, { "Backend_Bound", .08 }, { "Fetch_Latency", .4 / 3 },
	    { "Fetch_Bandwidth", .4 / 3 }, { "Branch_Mispredicts", .75 * .56 / 3 },
	    { "Memory_Bound", NAN }, { "CPI", .8 } },
	  "Fetch_Latency" },
	/*
	 * Skylake, SMT on, core wide: CORE_CLKS = 1.6e6/2 = 8e5, SLOTS 3.2e6.
	 * FE .25; Ret .4375; Bad 5.6e5/3.2e6 = .175; BE 1 - .25 - 1.96e6/3.2e6 = .1375.
	 * Bad's children: BrM .75*.175 = .13125, MC .04375 -> BrM; FE .25 > Bad .175 wins level 1:
	 * Fetch_Latency 4e5/3.2e6 = .125 flagged, Fetch_Bandwidth .125 not -> Fetch_Latency.
	 */
	{ __LINE__, "skl", TD_SMT_ON, true, NULL,
	  { { "CPU_CLK_UNHALTED.THREAD", 1e6 }, { "CPU_CLK_UNHALTED.THREAD_ANY", 1.6e6 },
	    { "IDQ_UOPS_NOT_DELIVERED.CORE", 8e5 },
	    { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 1e5 }, { "UOPS_ISSUED.ANY", 1.8e6 },
	    { "UOPS_RETIRED.RETIRE_SLOTS", 1.4e6 }, { "INT_MISC.RECOVERY_CYCLES_ANY", 8e4 },
	    { "BR_MISP_RETIRED.ALL_BRANCHES", 3e4 }, { "MACHINE_CLEARS.COUNT", 1e4 } },
	  { { "SLOTS", 3.2e6 }, { "Frontend_Bound", .25 }, { "Bad_Speculation", .175 },
	    { "Retiring", .4375 }, { "Backend_Bound", .1375 }, { "Branch_Mispredicts", .13125 },
	    { "Machine_Clears", .04375 }, { "CPI", NAN } },
	  "Fetch_Latency" },
	/*
	 * Ice Lake: SLOTS 5e6, PM_SUM 5e6. FE 1e6/5e6 - 1e5/5e6 = .18;
	 * BE 1.5e6/5e6 + 5*2e4/5e6 = .32; Ret .4; Bad 1 - .9 = .1.
	 * Fetch_Latency (5*1.2e5 - 1e5)/5e6 = .1, BW .08; BrM .8*.1; MC .02;
	 * MB 5e5/(6e5 + 1.5e5 + .4*2.5e5 + 1e5) * .32 = 5/9.5*.32; Core the rest;
	 * Heavy per TMA: MS 2.1e6/2.8e6 * 4e5/5e6 = .06 + Ret .4 * (3e5 - 2e5)/1e6 = .1,
	 * Light .3; CPI 1e6/1.6e6.
	 * BE .32 beats FE .18; Core .1516 flagged, MB .168 not -> Core_Bound.
	 */
	{ __LINE__, "icl", TD_SMT_OFF, false, NULL,
	  { { "slots", 5e6 }, { "topdown-retiring", 2e6 }, { "topdown-bad-spec", 5e5 },
	    { "topdown-fe-bound", 1e6 }, { "topdown-be-bound", 1.5e6 },
	    { "INT_MISC.UOP_DROPPING", 1e5 }, { "INT_MISC.CLEARS_COUNT", 2e4 },
	    { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 1.2e5 },
	    { "BR_MISP_RETIRED.ALL_BRANCHES", 8e3 }, { "MACHINE_CLEARS.COUNT", 2e3 },
	    { "CYCLE_ACTIVITY.STALLS_MEM_ANY", 4e5 }, { "EXE_ACTIVITY.BOUND_ON_STORES", 1e5 },
	    { "CYCLE_ACTIVITY.STALLS_TOTAL", 6e5 }, { "EXE_ACTIVITY.1_PORTS_UTIL", 1.5e5 },
	    { "EXE_ACTIVITY.2_PORTS_UTIL", 2.5e5 }, { "UOPS_RETIRED.SLOTS", 2.1e6 },
	    { "UOPS_ISSUED.ANY", 2.8e6 }, { "IDQ.MS_UOPS", 4e5 }, { "UOPS_DECODED.DEC0", 3e5 },
	    { "UOPS_DECODED.DEC0:c1", 2e5 }, { "IDQ.MITE_UOPS", 1e6 },
	    { "INST_RETIRED.ANY", 1.6e6 }, { "cycles", 1e6 } },
	  { { "Frontend_Bound", .18 }, { "Backend_Bound", .32 }, { "Retiring", .4 },
	    { "Bad_Speculation", .1 }, { "Fetch_Latency", .1 }, { "Fetch_Bandwidth", .08 },
	    { "Branch_Mispredicts", .08 }, { "Machine_Clears", .02 },
	    { "Memory_Bound", 5 / 9.5 * .32 }, { "Core_Bound", .32 - 5 / 9.5 * .32 },
	    { "Heavy_Operations", .1 }, { "Light_Operations", .3 }, { "CPI", .625 } },
	  "Core_Bound" },
	/*
	 * Sapphire Rapids, PERF_METRICS: SLOTS 6e6 = PM_SUM. FE .2 - 6e4/6e6 = .19;
	 * BE .4; Ret .3; Bad 1 - .89 = .11; Heavy .05, Light .25; BrM .07, MC .04;
	 * Fetch_Latency .15 - .01 = .14, BW .05; MB .25, Core .15.
	 * Level 3 per CLKS 1e6: L1 (3e5 - 2e5)/1e6 = .1; L2 .05; L3 .03; DRAM .12; Store .05.
	 * BE .4 -> MB .25 vs Core .15 (gap .10) -> MB -> DRAM .12 only flagged child.
	 */
	{ __LINE__, "spr", TD_SMT_OFF, false, NULL,
	  { { "slots", 6e6 }, { "topdown-retiring", 1.8e6 }, { "topdown-bad-spec", 6e5 },
	    { "topdown-fe-bound", 1.2e6 }, { "topdown-be-bound", 2.4e6 },
	    { "topdown-heavy-ops", 3e5 }, { "topdown-br-mispredict", 4.2e5 },
	    { "topdown-fetch-lat", 9e5 }, { "topdown-mem-bound", 1.5e6 },
	    { "INT_MISC.UOP_DROPPING", 6e4 }, { "cycles", 1e6 }, { "instructions", 2e6 },
	    { "EXE_ACTIVITY.BOUND_ON_LOADS", 3e5 }, { "MEMORY_ACTIVITY.STALLS_L1D_MISS", 2e5 },
	    { "MEMORY_ACTIVITY.STALLS_L2_MISS", 1.5e5 }, { "MEMORY_ACTIVITY.STALLS_L3_MISS", 1.2e5 },
	    { "EXE_ACTIVITY.BOUND_ON_STORES", 5e4 } },
	  { { "Frontend_Bound", .19 }, { "Backend_Bound", .4 }, { "Retiring", .3 },
	    { "Bad_Speculation", .11 }, { "Heavy_Operations", .05 }, { "Light_Operations", .25 },
	    { "Branch_Mispredicts", .07 }, { "Machine_Clears", .04 }, { "Fetch_Latency", .14 },
	    { "Fetch_Bandwidth", .05 }, { "Memory_Bound", .25 }, { "Core_Bound", .15 },
	    { "L1_Bound", .1 }, { "L2_Bound", .05 }, { "L3_Bound", .03 }, { "L3_Miss_Bound", .12 },
	    { "Store_Bound", .05 }, { "CPI", .5 } },
	  "L3_Miss_Bound" },
	/*
	 * Sapphire Rapids, general-counter variant: FE (1.2e6 - 6e4)/6e6 = .19;
	 * BE 2.4e6/6e6 = .4; Ret .3; Bad .11; MB 1.2e6/6e6 = .2 (not > .20); BrM 4.2e5/6e6 = .07.
	 * Without PERF_METRICS the default formulas are n/a.
	 */
	{ __LINE__, "spr", TD_SMT_OFF, false, "gp",
	  { { "slots", 6e6 }, { "IDQ_BUBBLES.CORE", 1.2e6 }, { "INT_MISC.UOP_DROPPING", 6e4 },
	    { "TOPDOWN.BACKEND_BOUND_SLOTS", 2.4e6 }, { "UOPS_RETIRED.SLOTS", 1.8e6 },
	    { "TOPDOWN.MEMORY_BOUND_SLOTS", 1.2e6 }, { "TOPDOWN.BR_MISPREDICT_SLOTS", 4.2e5 },
	    { "UOPS_RETIRED.HEAVY", 3e5 } },
	  { { "Frontend_Bound", .19 }, { "Backend_Bound", .4 }, { "Retiring", .3 },
	    { "Bad_Speculation", .11 }, { "Memory_Bound", .2 }, { "Core_Bound", .2 },
	    { "Branch_Mispredicts", .07 }, { "Heavy_Operations", .05 } },
	  "Core_Bound" },	/* MB .2 is not > .20; Core .2 is the only flagged child */
	{ __LINE__, "spr", TD_SMT_OFF, false, NULL,
	  { { "slots", 6e6 }, { "IDQ_BUBBLES.CORE", 1.2e6 }, { "UOPS_RETIRED.SLOTS", 1.8e6 } },
	  { { "Frontend_Bound", NAN }, { "Retiring", NAN }, { "Bad_Speculation", NAN } },
	  NULL },
	/*
	 * Zen 4: SLOTS 6 * 1e6. FE 1.2e6/6e6 = .2; FE latency 6*1.5e5/6e6 = .15, BW .05;
	 * Bad (2.7e6 - 2.4e6)/6e6 = .05; BE 1.8e6/6e6 = .3; SMT 3e5/6e6 = .05; Ret .4.
	 * BrM .05 * 3e4/4e4 = .0375; restarts .0125; MB .3 * 4e5/5e5 = .24, CPU .06;
	 * microcode .4 * 2.4e5/2.4e6 = .04, fastpath .36; CPI .5.
	 * BE .3 -> MB .24 (CPU .06 not flagged) -> Memory_Bound.
	 */
	{ __LINE__, "zen4", TD_SMT_ON, false, NULL,
	  { { "ls_not_halted_cyc", 1e6 }, { "de_no_dispatch_per_slot.no_ops_from_frontend", 1.2e6 },
	    { "de_no_dispatch_per_slot.no_ops_from_frontend:c6", 1.5e5 },
	    { "de_src_op_disp.all", 2.7e6 }, { "ex_ret_ops", 2.4e6 },
	    { "de_no_dispatch_per_slot.backend_stalls", 1.8e6 },
	    { "de_no_dispatch_per_slot.smt_contention", 3e5 }, { "ex_ret_brn_misp", 3e4 },
	    { "resyncs_or_nc_redirects", 1e4 }, { "ex_no_retire.not_complete", 5e5 },
	    { "ex_no_retire.load_not_complete", 4e5 }, { "ex_ret_ucode_ops", 2.4e5 },
	    { "ex_ret_instr", 2e6 } },
	  { { "SLOTS", 6e6 }, { "Frontend_Bound", .2 }, { "Frontend_Latency", .15 },
	    { "Frontend_Bandwidth", .05 }, { "Bad_Speculation", .05 },
	    { "Branch_Mispredicts", .0375 }, { "Pipeline_Restarts", .0125 },
	    { "Backend_Bound", .3 }, { "Memory_Bound", .24 }, { "CPU_Bound", .06 },
	    { "SMT_Contention", .05 }, { "Retiring", .4 }, { "Retiring_Microcode", .04 },
	    { "Retiring_Fastpath", .36 }, { "CPI", .5 }, { "IPC", 2 } },
	  "Memory_Bound" },
	/*
	 * Neoverse N2 r0p0-r0p2 formulas (width 5): SLOTS 5e6; mispredicts M/C = .02
	 * move slots from the front-end (1x) and back-end (3x) to Bad_Speculation (4x).
	 * FE (2e6 - 1e6)/5e6 - .02 = .18; BE 1.5e6/5e6 - .06 = .24;
	 * busy = 1 - (3.5e6 - 1e6)/5e6 = .5; Ret .9 * .5 = .45; Bad .1 * .5 + .08 = .13;
	 * CPI 1e6/1.25e6.
	 */
	{ __LINE__, "n2", TD_SMT_UNKNOWN, false, NULL,
	  { { "CPU_CYCLES", 1e6 }, { "STALL_SLOT_FRONTEND", 2e6 }, { "STALL_SLOT_BACKEND", 1.5e6 },
	    { "STALL_SLOT", 3.5e6 }, { "OP_RETIRED", 1.8e6 }, { "OP_SPEC", 2e6 },
	    { "BR_MIS_PRED", 2e4 }, { "INST_RETIRED", 1.25e6 } },
	  { { "Frontend_Bound", .18 }, { "Backend_Bound", .24 }, { "Retiring", .45 },
	    { "Bad_Speculation", .13 }, { "CPI", .8 } },
	  "Backend_Bound" },
	/* N2 r0p3: FE 2e6/5e6 - .02 = .38; busy 1 - .7 = .3; Ret .27; Bad .03 + .08; BE .24. */
	{ __LINE__, "n2", TD_SMT_UNKNOWN, false, "r0p3",
	  { { "CPU_CYCLES", 1e6 }, { "STALL_SLOT_FRONTEND", 2e6 }, { "STALL_SLOT_BACKEND", 1.5e6 },
	    { "STALL_SLOT", 3.5e6 }, { "OP_RETIRED", 1.8e6 }, { "OP_SPEC", 2e6 },
	    { "BR_MIS_PRED", 2e4 } },
	  { { "Frontend_Bound", .38 }, { "Backend_Bound", .24 }, { "Retiring", .27 },
	    { "Bad_Speculation", .11 } },
	  "Frontend_Bound" },
	/* generic: CPI 3e6/1.5e6 = 2, IPC .5; no tree, no bottleneck. */
	{ __LINE__, "generic", TD_SMT_UNKNOWN, false, NULL,
	  { { "cycles", 3e6 }, { "instructions", 1.5e6 } },
	  { { "CPI", 2 }, { "IPC", .5 } },
	  NULL },
};

static struct td_model *load(const char *id)
{
	struct td_model *m = NULL;
	char *cause = NULL;

	if (td_model__load(id, dir, &m, &cause) < 0) {
		diag("cannot load %s: %s", id, cause);
		free(cause);
		exit(1);
	}
	return m;
}

static double *counts_new(const struct td_model *m)
{
	double *c = xcalloc(td_model__nr_events(m) + 1, sizeof(double));

	for (size_t i = 0; i < td_model__nr_events(m); i++)
		c[i] = NAN;
	return c;
}

static bool set(const struct td_model *m, double *c, const char *name, double v)
{
	int i = td_model__find_event(m, name);

	if (i < 0)
		return false;
	c[i] = v;
	return true;
}

static double value(const struct td_model *m, const struct td_result *r, const char *name)
{
	int i = td_model__find_node(m, name);

	return i < 0 ? -999 : r->v[i].value;
}

static void run_case(const struct tcase *t)
{
	struct td_model *m = load(t->model);
	struct td_ctx ctx = { .smt = t->smt, .core_wide = t->core_wide, .variant = t->variant };
	double *c = counts_new(m);
	struct td_result r;
	char *cause = NULL;

	for (const struct kv *k = t->counts; k->name; k++)
		if (!set(m, c, k->name, k->v))
			ok_at(0, __FILE__, t->line, "%s: unknown event %s", t->model, k->name);
	if (!ok_at(td_eval(m, c, &ctx, &r, &cause) == 0, __FILE__, t->line, "%s evaluates", t->model))
		goto out;
	for (const struct kv *k = t->want; k->name; k++) {
		int i = td_model__find_node(m, k->name);

		if (!ok_at(i >= 0, __FILE__, t->line, "%s: node %s exists", t->model, k->name))
			continue;
		if (isnan(k->v))
			ok_at(r.v[i].na, __FILE__, t->line, "%s: %s is n/a", t->model, k->name);
		else
			is_double_at(r.v[i].value, k->v, 1e-9, t->line, "%s%s%s: %s", t->model,
				     t->variant ? "/" : "", t->variant ? t->variant : "", k->name);
	}
	is_str_at(r.bottleneck >= 0 ? td_model__node(m, (size_t)r.bottleneck)->name : NULL,
		  t->bottleneck, t->line, "%s: bottleneck", t->model);
	if (t->smt == TD_SMT_ON)
		ok_at(r.hints[0] && strstr(r.hints[0], "SMT is on"), __FILE__, t->line,
		      "%s: SMT hint", t->model);
	td_result__exit(&r);
out:
	free(c);
	free(cause);
	td_model__delete(m);
}

/* ---- invariants on random consistent counts ------------------------------ */
static unsigned long long rng = 88172645463325252ull;

static double urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* Four or five random shares summing to 1. */
static void shares(double *s, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += (s[i] = 0.02 + urand());
	for (int i = 0; i < n; i++)
		s[i] /= sum;
}

static const char *const pairs[][3] = {
	/* parent, child, child: children defined to add up to the parent */
	{ "Frontend_Bound", "Fetch_Latency", "Fetch_Bandwidth" },
	{ "Bad_Speculation", "Branch_Mispredicts", "Machine_Clears" },
	{ "Backend_Bound", "Memory_Bound", "Core_Bound" },
	{ "Retiring", "Heavy_Operations", "Light_Operations" },
	{ "Frontend_Bound", "Frontend_Latency", "Frontend_Bandwidth" },
	{ "Bad_Speculation", "Branch_Mispredicts", "Pipeline_Restarts" },
	{ "Backend_Bound", "Memory_Bound", "CPU_Bound" },
	{ "Retiring", "Retiring_Microcode", "Retiring_Fastpath" },
};

static void fill_random(const char *id, const struct td_model *m, double *c, enum td_smt smt)
{
	double s[5], cyc = 1e5 + urand() * 1e8;

	for (size_t i = 0; i < td_model__nr_events(m); i++)
		c[i] = floor(urand() * cyc);	/* anything else: random */
	if (strcmp(id, "skl") == 0) {
		double core = smt == TD_SMT_ON ? cyc * (0.5 + 0.5 * urand()) : cyc, S, rec;

		shares(s, 4);	/* fe bs be ret */
		set(m, c, "cycles", cyc);
		if (smt == TD_SMT_ON) {
			/* CORE_CLKS = cyc/2 * (1 + x) with x = ONE_THREAD_ACTIVE / REF_XCLK */
			set(m, c, "CPU_CLK_UNHALTED.REF_XCLK", 1e6);
			set(m, c, "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 1e6 * (2 * core / cyc - 1));
		}
		S = 4 * core;
		rec = s[1] * S / 4 * urand();
		set(m, c, "IDQ_UOPS_NOT_DELIVERED.CORE", s[0] * S);
		set(m, c, "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", s[0] * S / 4 * urand());
		set(m, c, "UOPS_RETIRED.RETIRE_SLOTS", s[3] * S);
		set(m, c, smt == TD_SMT_ON ? "INT_MISC.RECOVERY_CYCLES_ANY" : "INT_MISC.RECOVERY_CYCLES",
		    smt == TD_SMT_ON ? 2 * rec : rec);
		set(m, c, "UOPS_ISSUED.ANY", s[3] * S + s[1] * S - 4 * rec);
		set(m, c, "INST_RETIRED.ANY", s[3] * S * (0.5 + 0.5 * urand()));
		set(m, c, "UOPS_RETIRED.MACRO_FUSED", 0);
		set(m, c, "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0.3 * cyc * urand());
		set(m, c, "CYCLE_ACTIVITY.STALLS_TOTAL", 0.5 * cyc);
	} else if (strcmp(id, "spr") == 0 || strcmp(id, "icl") == 0) {
		double S = (strcmp(id, "spr") == 0 ? 6 : 5) * cyc, drop, dec0;

		shares(s, 4);	/* ret bs fe be */
		drop = s[1] * S * urand() * 0.05;
		set(m, c, "slots", S);
		set(m, c, "topdown-retiring", s[0] * S);
		set(m, c, "topdown-bad-spec", s[1] * S);
		set(m, c, "topdown-fe-bound", s[2] * S);
		set(m, c, "topdown-be-bound", s[3] * S);
		set(m, c, "topdown-heavy-ops", s[0] * S * urand());
		set(m, c, "topdown-br-mispredict", s[1] * S * urand() * 0.5);
		set(m, c, "topdown-fetch-lat", s[2] * S * urand());
		set(m, c, "topdown-mem-bound", s[3] * S * urand());
		set(m, c, "INT_MISC.UOP_DROPPING", drop * 0.5);
		set(m, c, "INT_MISC.CLEARS_COUNT", drop * 0.5 / 5 * 0.5);
		set(m, c, "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", s[2] * S / 5 * urand());
		set(m, c, "UOPS_RETIRED.SLOTS", s[0] * S);
		/* ICL Heavy_Operations: each of its two terms at most half of Retiring */
		set(m, c, "UOPS_ISSUED.ANY", s[0] * S / (0.8 + 0.2 * urand()));
		set(m, c, "IDQ.MS_UOPS", s[0] * S * 0.5 * urand());
		set(m, c, "IDQ.MITE_UOPS", 2 * cyc);
		dec0 = cyc * urand();
		set(m, c, "UOPS_DECODED.DEC0", dec0);
		set(m, c, "UOPS_DECODED.DEC0:c1", dec0 * urand());
		set(m, c, "INST_RETIRED.ANY", s[0] * S * (0.5 + 0.5 * urand()));
		set(m, c, "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0.3 * cyc * urand());
		set(m, c, "CYCLE_ACTIVITY.STALLS_TOTAL", 0.5 * cyc);
	} else if (strcmp(id, "zen4") == 0) {
		double S = 6 * cyc, ret;

		shares(s, 5);	/* fe bs be smt ret */
		ret = s[4] * S;
		set(m, c, "ls_not_halted_cyc", cyc);
		set(m, c, "de_no_dispatch_per_slot.no_ops_from_frontend", s[0] * S);
		set(m, c, "de_no_dispatch_per_slot.no_ops_from_frontend:c6", s[0] * cyc * urand());
		set(m, c, "ex_ret_ops", ret);
		set(m, c, "de_src_op_disp.all", ret + s[1] * S);
		set(m, c, "de_no_dispatch_per_slot.backend_stalls", s[2] * S);
		set(m, c, "de_no_dispatch_per_slot.smt_contention", s[3] * S);
		set(m, c, "ex_ret_ucode_ops", ret * urand());
		set(m, c, "ex_no_retire.not_complete", cyc * 0.5);
		set(m, c, "ex_no_retire.load_not_complete", cyc * 0.5 * urand());
		set(m, c, "ex_ret_instr", ret * (0.5 + 0.5 * urand()));
	} else if (strcmp(id, "n2") == 0 || strcmp(id, "v2") == 0) {
		double w = strcmp(id, "n2") == 0 ? 5 : 8, extra = strcmp(id, "n2") == 0 ? cyc : 0;
		double S = w * cyc, spec = 1e6 + urand() * 1e8;

		shares(s, 3);	/* fe be busy */
		set(m, c, "CPU_CYCLES", cyc);
		set(m, c, "STALL_SLOT_FRONTEND", s[0] * S + extra);
		set(m, c, "STALL_SLOT_BACKEND", s[1] * S);
		set(m, c, "STALL_SLOT", (s[0] + s[1]) * S + extra);
		set(m, c, "OP_SPEC", spec);
		set(m, c, "OP_RETIRED", spec * urand());
		/* Arm's corrections take M/C from FE and 3M/C from BE: keep both >= 0 */
		set(m, c, "BR_MIS_PRED", cyc * fmin(s[0], s[1] / 3) * urand());
		set(m, c, "INST_RETIRED", cyc * 4 * urand() + 1);
	}
}

static void invariants(const char *id, enum td_smt smt, int n)
{
	struct td_model *m = load(id);
	double *c = counts_new(m);
	struct td_ctx ctx = { .smt = smt };
	size_t bad_sum = 0, bad_child = 0, bad_mis = 0;

	for (int k = 0; k < n; k++) {
		struct td_result r;
		double sum = 0;

		fill_random(id, m, c, smt);
		if (td_eval(m, c, &ctx, &r, NULL) < 0)
			continue;
		for (size_t i = 0; i < r.nr; i++) {
			if (td_model__node(m, i)->level == 1)
				sum += r.v[i].value;
			if (td_model__node(m, i)->level <= 2 && r.v[i].mismeasured && bad_mis++ < 3)
				diag("%s: %s mismeasured: %g", id, td_model__node(m, i)->name,
				     r.v[i].value);
		}
		if (!(fabs(sum - 1) <= 0.05) && bad_sum++ < 3)
			diag("%s: level-1 sum %g", id, sum);
		for (size_t p = 0; p < ARRAY_SIZE(pairs); p++) {
			if (td_model__find_node(m, pairs[p][0]) < 0 ||
			    td_model__find_node(m, pairs[p][1]) < 0 ||
			    td_model__find_node(m, pairs[p][2]) < 0)
				continue;
			double d = value(m, &r, pairs[p][0]) - value(m, &r, pairs[p][1]) -
				   value(m, &r, pairs[p][2]);

			if (!(fabs(d) < 1e-9) && bad_child++ < 3)
				diag("%s: %s != %s + %s (by %g)", id, pairs[p][0], pairs[p][1],
				     pairs[p][2], d);
		}
		td_result__exit(&r);
	}
	ok(bad_sum == 0, "%s SMT %s: level 1 sums to 1 +- 0.05 on %d random count sets", id,
	   smt == TD_SMT_ON ? "on" : "off", n);
	ok(bad_child == 0, "%s SMT %s: level-2 children add up to their parent", id,
	   smt == TD_SMT_ON ? "on" : "off");
	ok(bad_mis == 0, "%s SMT %s: consistent counts are never mismeasured", id,
	   smt == TD_SMT_ON ? "on" : "off");
	free(c);
	td_model__delete(m);
}

/* ---- flags and the bottleneck on a synthetic tree ------------------------- */
static const char synth[] =
	"{\"id\":\"synth\",\"width\":4,\"events\":["
	"{\"id\":\"x\",\"perf\":\"r1\"},{\"id\":\"y\",\"perf\":\"r2\"},{\"id\":\"x1\",\"perf\":\"r3\"},"
	"{\"id\":\"x2\",\"perf\":\"r4\"},{\"id\":\"x1a\",\"perf\":\"r5\"},{\"id\":\"x1b\",\"perf\":\"r6\"}],"
	"\"metrics\":["
	"{\"name\":\"X\",\"level\":1,\"formula\":\"x\",\"threshold\":\"X > 0.1\"},"
	"{\"name\":\"X1\",\"parent\":\"X\",\"level\":2,\"formula\":\"x1\",\"threshold\":\"X1 > 0.1\"},"
	"{\"name\":\"X1a\",\"parent\":\"X1\",\"level\":3,\"formula\":\"x1a\",\"threshold\":\"X1a > 0.05\"},"
	"{\"name\":\"X1b\",\"parent\":\"X1\",\"level\":3,\"formula\":\"x1b\",\"threshold\":\"X1b > 0.05\"},"
	"{\"name\":\"X2\",\"parent\":\"X\",\"level\":2,\"formula\":\"x2\",\"threshold\":\"X2 > 0.1\"},"
	"{\"name\":\"Y\",\"level\":1,\"formula\":\"y\",\"threshold\":\"Y > 0.1\"}]}";

static const struct {
	int line;
	double x, y, x1, x2, x1a, x1b;	/* NAN: missing */
	const char *bottleneck;
	const char *flagged;	/* names of flagged nodes, space separated */
	const char *mismeasured;
} bcases[] = {
	/* X1 and X2 within 0.05 of each other: stop at their parent */
	{ __LINE__, .6, .4, .30, .28, .2, .1, "X", "X X1 X1a X1b X2 Y", "" },
	/* a clear winner at each level */
	{ __LINE__, .6, .4, .35, .25, .2, .1, "X1a", "X X1 X1a X1b X2 Y", "" },
	/* the tie rule compares flagged siblings only: X2 (.09) is below its threshold */
	{ __LINE__, .6, .4, .11, .09, .02, .01, "X1", "X X1 Y", "" },
	/* 0.06 apart is not a tie */
	{ __LINE__, .6, .4, .36, .30, .0, .0, "X1", "X X1 X2 Y", "" },
	/* level 1 has no tie rule: the larger wins */
	{ __LINE__, .41, .40, .0, .0, .0, .0, "X", "X Y", "" },
	/* a mismeasured node keeps its value but loses its flag */
	{ __LINE__, 1.2, .3, .5, .1, .0, .0, "Y", "Y", "X" },
	{ __LINE__, .3, .2, -.06, .1, .0, .0, "X", "X Y", "X1" },
	/* children of an unflagged parent are never flagged */
	{ __LINE__, .05, .2, .5, .5, .5, .5, "Y", "Y", "" },
	/* nothing above threshold */
	{ __LINE__, .05, .05, .05, .05, .01, .01, NULL, "", "" },
	/* missing events: n/a, never flagged */
	{ __LINE__, NAN, .5, NAN, .2, .2, .2, "Y", "Y", "" },
};

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static void bottleneck_cases(void)
{
	struct td_model *m;
	char *cause = NULL;

	if (td_model__load_string(synth, "synth.json", &m, &cause) < 0) {
		ok(0, "synthetic model: %s", cause);
		free(cause);
		return;
	}
	for (size_t k = 0; k < ARRAY_SIZE(bcases); k++) {
		double c[6] = { bcases[k].x, bcases[k].y, bcases[k].x1, bcases[k].x2, bcases[k].x1a,
				bcases[k].x1b };
		struct td_ctx ctx = { .smt = TD_SMT_OFF };
		struct td_result r;
		char flagged[128] = "", mis[64] = "";

		td_eval(m, c, &ctx, &r, NULL);
		is_str_at(r.bottleneck >= 0 ? td_model__node(m, (size_t)r.bottleneck)->name : NULL,
			  bcases[k].bottleneck, bcases[k].line, "bottleneck");
		for (size_t i = 0; i < r.nr; i++) {
			const char *name = td_model__node(m, i)->name;

			if (r.v[i].flagged)
				snprintf(flagged + strlen(flagged), sizeof(flagged) - strlen(flagged),
					 "%s%s", *flagged ? " " : "", name);
			if (r.v[i].mismeasured)
				snprintf(mis + strlen(mis), sizeof(mis) - strlen(mis), "%s%s",
					 *mis ? " " : "", name);
			if (r.v[i].mismeasured)
				ok_at(!isnan(r.v[i].value), __FILE__, bcases[k].line,
				      "%s keeps its value", name);
		}
		/* compare as sets, in model order */
		{
			char want[128] = "";

			for (size_t i = 0; i < r.nr; i++)
				if (in_list(bcases[k].flagged, td_model__node(m, i)->name))
					snprintf(want + strlen(want), sizeof(want) - strlen(want),
						 "%s%s", *want ? " " : "", td_model__node(m, i)->name);
			is_str_at(flagged, want, bcases[k].line, "flagged nodes");
		}
		is_str_at(mis, bcases[k].mismeasured, bcases[k].line, "mismeasured nodes");
		if (*bcases[k].mismeasured) {
			bool hinted = false;

			for (char **h = r.hints; *h; h++)
				hinted |= strstr(*h, "mismeasured") != NULL;
			ok_at(hinted, __FILE__, bcases[k].line, "hint names the mismeasured node");
		}
		td_result__exit(&r);
	}
	td_model__delete(m);
}

/* Text and JSON renderings carry the marks the user reads. */
static void rendering(void)
{
	struct td_model *m;
	struct td_ctx ctx = { .smt = TD_SMT_ON };
	double c[6] = { .6, .4, .35, .25, .2, NAN };
	struct strbuf sb = STRBUF_INIT;
	struct td_result r;
	json_t *j;

	if (td_model__load_string(synth, "synth.json", &m, NULL) < 0)
		return;
	td_eval(m, c, &ctx, &r, NULL);
	td_result__print(m, &r, &sb, TD_PRINT_ALL);
	ok(sb.buf && strstr(sb.buf, "X1a") && strstr(sb.buf, "20.0%  <=="), "bottleneck marked");
	ok(strstr(sb.buf, "X1b") && strstr(sb.buf, "n/a"), "n/a shown");
	ok(strstr(sb.buf, "Bottleneck: X1a"), "bottleneck line");
	ok(strstr(sb.buf, "SMT is on"), "SMT hint printed");
	j = td_result__to_json(m, &r, &ctx);
	is_str(json_string_value(json_object_get(j, "bottleneck")), "X1a", "JSON bottleneck");
	is_str(json_string_value(json_object_get(j, "smt")), "on", "JSON smt");
	ok(json_is_null(json_object_get(json_array_get(json_object_get(j, "metrics"), 3), "value")),
	   "JSON n/a is null");
	json_decref(j);
	strbuf__exit(&sb);
	td_result__exit(&r);
	td_model__delete(m);
}

/*
 * td_ctx.clamp (values without sampling error, record --model): a fraction
 * out of [0, 1] is shown at the bound, marked clamped, hinted once, never
 * mismeasured; -0 and a rounding error are not clamped; without clamp the
 * same counts are mismeasured and keep their value.
 */
static void clamping(void)
{
	struct td_model *m;
	/* X 108%, Y -4.3% (ld.so brk), X1 a -0, X2 .03% over 1, X1a inside */
	double c[6] = { 1.08, -0.043, -0.0, 1.0003, .2, NAN };
	struct td_ctx ctx = { .smt = TD_SMT_OFF, .clamp = true };
	struct strbuf sb = STRBUF_INIT;
	struct td_result r;
	size_t hints = 0;
	json_t *j;

	if (td_model__load_string(synth, "synth.json", &m, NULL) < 0) {
		ok(0, "synthetic model");
		return;
	}
	td_eval(m, c, &ctx, &r, NULL);
	is_double(r.v[0].value, 1.0, 0, "clamp: X 108%% is shown as 100%%");
	ok(r.v[0].clamped && !r.v[0].mismeasured, "clamp: X is clamped, not mismeasured");
	is_double(r.v[5].value, 0.0, 0, "clamp: Y -4.3%% is shown as 0%%");
	ok(r.v[5].clamped && !signbit(r.v[5].value), "clamp: Y clamped to +0");
	ok(!r.v[1].clamped && r.v[1].value == 0 && !signbit(r.v[1].value),
	   "clamp: a -0 is +0, not clamped");
	ok(!r.v[4].clamped && r.v[4].value == 1.0, "clamp: 100.03%% is 100%%, not clamped (rounding)");
	ok(!r.v[2].clamped && r.v[2].value == .2, "clamp: a value inside stays");
	for (char **h = r.hints; *h; h++)
		hints += strstr(*h, "clamped") != NULL;
	is_int((long long)hints, 1, "clamp: one hint says so");
	for (char **h = r.hints; *h; h++)
		if (strstr(*h, "clamped"))
			ok(strstr(*h, "2 fractions") && strstr(*h, "X, Y"),
			   "clamp: the hint counts and names them (%s)", *h);
	td_result__print(m, &r, &sb, TD_PRINT_ALL);
	ok(strstr(sb.buf, "(clamped)") != NULL, "clamp: the text marks them");
	ok(!strstr(sb.buf, "-0.0") && !strstr(sb.buf, "108.0"), "clamp: no -0.0 nor 108.0%% printed");
	j = td_result__to_json(m, &r, &ctx);
	ok(json_is_true(json_object_get(json_array_get(json_object_get(j, "metrics"), 0), "clamped")),
	   "clamp: JSON says clamped");
	json_decref(j);
	td_result__exit(&r);
	ctx.clamp = false;
	td_eval(m, c, &ctx, &r, NULL);
	ok(r.v[0].mismeasured && !r.v[0].clamped && r.v[0].value == 1.08,
	   "no clamp (sampled): X mismeasured, its value kept");
	td_result__exit(&r);
	strbuf__exit(&sb);
	td_model__delete(m);
	/* the rule every view's numbers pass through */
	ok(!signbit(gx_zero_below(-0.04, 1)) && gx_zero_below(-0.04, 1) == 0, "-0.04 at .1f: +0");
	ok(gx_zero_below(-0.06, 1) == -0.06 && gx_zero_below(-0.004, 2) == 0 &&
	   gx_zero_below(-0.0, 0) == 0 && !signbit(gx_zero_below(-0.0, 0)), "gx_zero_below");
	ok(isnan(gx_zero_below(NAN, 1)), "gx_zero_below: NAN stays");
}

int main(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
	invariants("skl", TD_SMT_OFF, 500);
	invariants("skl", TD_SMT_ON, 500);
	invariants("icl", TD_SMT_OFF, 500);
	invariants("spr", TD_SMT_OFF, 500);
	invariants("zen4", TD_SMT_ON, 500);
	invariants("n2", TD_SMT_OFF, 500);
	invariants("v2", TD_SMT_OFF, 500);
	bottleneck_cases();
	rendering();
	clamping();
	return done_testing();
}
