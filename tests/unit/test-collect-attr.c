/*
 * test-collect-attr: the perf_event_attr collect_parse_events() builds for
 * a table of option sets, compared field by field with the goldens in
 * tests/golden/attr/NAME (`key = value` lines, as perf's tests/attr).
 * Each case runs in a forked child so that LIBPFM_FORCE_PMU is set before
 * libpfm4 initializes. Events "model:ID" are what `gexplore record` opens
 * by default on that CPU model (the multiplexing planner's groups for SMT
 * off, no NMI watchdog), so every model's attrs have a golden. Regenerate with `make golden-attr` (or
 * GX_REGEN_GOLDEN=1).
 */
#include "config.h"

#include "collect/collect.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mux/mux.h"
#include "topdown/topdown.h"
#include "util/util.h"
#include "tap.h"
#include "fake-sysfs.h"

struct attr_case {
	int line;
	const char *name;	/* golden file */
	const char *events;
	const char *force_pmu;	/* LIBPFM_FORCE_PMU */
	uint64_t sav;
	uint32_t freq;
	double rate;
	enum collect_callgraph cg;
	uint32_t stack_size;
	pid_t pid;
	bool system_wide;
	bool no_inherit;
	bool hybrid;		/* a fake sysfs: cpu_core on CPUs 0-3, cpu_atom on 4-7 */
	const char *branch;	/* -j/--branch-filter (issue 42), NULL: none */
};

/* sysfs trees for the children: one hybrid, one without core PMUs, so no
 * golden depends on the machine running the test */
static char sysfs_hybrid[] = "/tmp/gx-attr-hybrid-XXXXXX";
static char sysfs_plain[] = "/tmp/gx-attr-plain-XXXXXX";
/* memory sampling (record --mem, "mem:NAME" cases): Intel's mem-loads on
 * cpu (intel), with Sapphire Rapids' mem-loads-aux (spr), AMD's ibs_op
 * (amd), on a hybrid part's cpu_core (hybrid), none (a VM) */
static char sysfs_intel[] = "/tmp/gx-attr-intel-XXXXXX";
static char sysfs_spr[] = "/tmp/gx-attr-spr-XXXXXX";
static char sysfs_amd[] = "/tmp/gx-attr-amd-XXXXXX";

static const struct attr_case cases[] = {
	{ __LINE__, "cpu-clock", "cpu-clock", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "page-faults-c10", "page-faults", NULL, 10, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "freq-999", "cpu-clock", NULL, 0, 999, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "callgraph-fp", "cpu-clock", NULL, 0, 0, 1.0, COLLECT_CG_FP, 0, 0, false, false },
	{ __LINE__, "callgraph-dwarf-4096", "cpu-clock", NULL, 0, 0, 1.0, COLLECT_CG_DWARF, 4096, 0, false, false },
	{ __LINE__, "cycles-instructions", "cycles,instructions", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "modifiers", "cycles:upp,instructions:k,branch-misses:P,task-clock:u", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "rate-half", "cycles,cpu-clock,page-faults", NULL, 0, 0, 0.5, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "software-all", "task-clock,faults,minor-faults,major-faults,cs,cpu-migrations,alignment-faults,emulation-faults", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	/* software counters in rotating groups: frequency mode (4000 Hz),
	 * clocks inside the groups 400 Hz, the reference 4 kHz; with one
	 * group nothing rotates and a clock keeps 4 kHz */
	{ __LINE__, "software-groups", "cpu-clock,{page-faults,context-switches},{minor-faults,task-clock}", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "software-one-group", "{page-faults,task-clock}", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "hardware-all", "cache-references,cache-misses,branches,branch-instructions,bus-cycles,ref-cycles,stalled-cycles-frontend,stalled-cycles-backend", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "group", "{cycles,instructions},cpu-clock", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "group-spaces", " { cycles:u , instructions } , cpu-clock ", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	/* leader sampling: perf record -e '{cycles,instructions}:S' */
	{ __LINE__, "leader-sampling", "{cycles,instructions}:S,cpu-clock", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "leader-sampling-freq-u", "{cycles,instructions,branches}:Su", NULL, 0, 999, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	/* a hybrid machine: every generic hardware event on both core PMUs,
	 * each on its CPUs; a group once per PMU; a raw encoding on cpu_core;
	 * a copy named by its PMU stays there */
	{ __LINE__, "hybrid", "cycles,cpu-clock,{instructions,branches}:S,r1c2,cpu_atom/cycles/:u", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false, true },
	{ __LINE__, "attach", "cpu-clock", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 1, false, false },
	{ __LINE__, "system-wide", "cpu-clock", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, true, false },
	{ __LINE__, "no-inherit", "cpu-clock", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, true },
	{ __LINE__, "raw", "r1c2,r01c2:u", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "pmu-terms", "cpu/event=0x3c,umask=0x0/,cpu/event=0xa3,umask=0x4,cmask=4/:u,cpu/config=0x1c2,config1=0x3/", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "pmu-period", "cpu/config=0x3c,period=2000003/,cpu/config=0x2c2,period=0/", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	/* an event's own period= term wins over -c and -F (perf's rule) */
	{ __LINE__, "period-term-c", "cpu-clock,software/config=1,period=0/,software/config=2,period=7/", NULL, 100000, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "period-term-freq", "cpu-clock,software/config=1,period=0/", NULL, 0, 999, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-skl", "model:skl", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-icl", "model:icl", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-icx", "model:icx", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-spr", "model:spr", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-zen3", "model:zen3", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-zen4", "model:zen4", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-zen5", "model:zen5", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-n1", "model:n1", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-v1", "model:v1", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-n2", "model:n2", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-v2", "model:v2", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "model-generic", "model:generic", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "skl-inst-retired", "INST_RETIRED:ANY_P", "skl", 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "skl-stalls-total", "skl::CYCLE_ACTIVITY:STALLS_TOTAL", "skl", 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "skl-mixed", "cycles,INST_RETIRED:ANY_P:pp,L1D_PEND_MISS:FB_FULL:c=1:u,UOPS_RETIRED:RETIRE_SLOTS", "skl", 0, 0, 1.0, COLLECT_CG_FP, 0, 0, false, false },
	/* branch stacks: -b on the hardware events only; -j cond,u on a
	 * forced Skylake's (LBR) */
	{ __LINE__, "branch-any", "cycles,cpu-clock,instructions", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false, false, "any" },
	{ __LINE__, "branch-skl-cond-u", "cycles,INST_RETIRED:ANY_P", "skl", 0, 0, 1.0, COLLECT_CG_FP, 0, 0, false, false, false, "cond,u" },
	{ __LINE__, "branch-zen4-calls", "cycles:u", "amd64_fam19h_zen4", 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false, false, "any_call,any_ret" },
	/* record --mem: what collect_mem_events picks, with the samples'
	 * address, weight and data source; -d: the address on any event */
	{ __LINE__, "mem-intel", "mem:intel", "skl", 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "mem-spr", "mem:spr", "spr", 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "mem-amd", "mem:amd", "amd64_fam19h_zen4", 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "mem-hybrid", "mem:hybrid", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false, true },
	{ __LINE__, "mem-none", "mem:plain", NULL, 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "data-page-faults", "data:page-faults", NULL, 1, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "zen4-retired-ops", "RETIRED_OPS", "amd64_fam19h_zen4", 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
	{ __LINE__, "zen4-dispatch-stalls", "amd64_fam19h_zen4::DISPATCH_STALLS_1:FE_NO_OPS:c=6,amd64_fam19h_zen4::CYCLES_NOT_IN_HALT", "amd64_fam19h_zen4", 0, 0, 1.0, COLLECT_CG_NONE, 0, 0, false, false },
};

#define F(field) strbuf__addf(sb, "%s = %" PRIu64 "\n", #field, (uint64_t)a->field)
#define X(field) strbuf__addf(sb, "%s = 0x%" PRIx64 "\n", #field, (uint64_t)a->field)

static void dump_attr(struct strbuf *sb, const struct collect_event *e, size_t i)
{
	const struct perf_event_attr *a = &e->attr;

	strbuf__addf(sb, "[event %zu: %s]\n", i, e->name);
	strbuf__addf(sb, "group = %d\nleader = %d\n", e->group, e->leader);
	if (e->cpus) {
		strbuf__addstr(sb, "cpus =");
		for (size_t k = 0; k < e->nr_cpus; k++)
			strbuf__addf(sb, " %d", e->cpus[k]);
		strbuf__addstr(sb, "\n");
	}
	F(type);
	X(config);
	X(config1);
	X(config2);
	if (a->freq)
		F(sample_freq);
	else
		F(sample_period);
	X(sample_type);
	if (a->branch_sample_type)
		X(branch_sample_type);
	X(read_format);
	F(disabled);
	F(inherit);
	F(pinned);
	F(exclusive);
	F(exclude_user);
	F(exclude_kernel);
	F(exclude_hv);
	F(exclude_idle);
	F(exclude_host);
	F(exclude_guest);
	F(mmap);
	F(mmap2);
	F(mmap_data);
	F(comm);
	F(comm_exec);
	F(freq);
	F(enable_on_exec);
	F(task);
	F(sample_id_all);
	F(use_clockid);
	F(clockid);
	F(precise_ip);
	F(exclude_callchain_kernel);
	F(exclude_callchain_user);
	X(sample_regs_user);
	F(sample_stack_user);
	F(wakeup_events);
}

/* Parse one case in a child; its dump (or error) comes back on a pipe. */
static char *run_case(const struct attr_case *c)
{
	struct strbuf sb = STRBUF_INIT;
	int p[2];
	pid_t pid;
	char buf[4096];
	ssize_t n;
	int st;

	if (pipe(p) < 0)
		return NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct collect_opts o = {
			.sav = c->sav, .freq = c->freq, .rate = c->rate, .callgraph = c->cg,
			.stack_size = c->stack_size, .pid = c->pid, .system_wide = c->system_wide,
			.no_inherit = c->no_inherit,
		};
		struct collect_event *ev;
		size_t nr;
		char *cause = NULL, *out;
		struct strbuf d = STRBUF_INIT;
		int err;

		if (c->branch && collect_branch_filter(c->branch, &o.branch_sample_type, &cause))
			_exit(3);
		close(p[0]);
		setenv("GX_SYSFS", c->hybrid ? sysfs_hybrid : sysfs_plain, 1);
		if (c->force_pmu)
			setenv("LIBPFM_FORCE_PMU", c->force_pmu, 1);
		if (!strncmp(c->events, "mem:", 4)) {
			const char *t = c->events + 4;
			char *spec = NULL;

			setenv("GX_SYSFS", !strcmp(t, "intel") ? sysfs_intel : !strcmp(t, "spr") ?
			       sysfs_spr : !strcmp(t, "amd") ? sysfs_amd : !strcmp(t, "hybrid") ?
			       sysfs_hybrid : sysfs_plain, 1);
			o.mem = true;
			err = collect_mem_events(COLLECT_MEM_LDLAT, false, &spec, &cause);
			err = err ? err : collect_parse_events(spec, &o, &ev, &nr, &cause);
			if (!err)
				strbuf__addf(&d, "# mem spec: %s\n", spec);
			free(spec);
		} else if (!strncmp(c->events, "data:", 5)) {
			o.data_addr = true;
			err = collect_parse_events(c->events + 5, &o, &ev, &nr, &cause);
		} else if (!strncmp(c->events, "model:", 6)) {
			/* what record opens without -e: the planner's groups */
			struct td_ctx ctx = { .smt = TD_SMT_OFF };
			struct mux_counters mc;
			struct mux_plan plan;
			struct td_model *m;
			char *spec = NULL;

			setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
			err = td_model__load(c->events + 6, NULL, &m, &cause);
			if (!err) {
				mux_counters__detect(&mc, m, false, false, false);
				err = mux_plan__model(&plan, m, &ctx, &mc, &cause);
				if (!err) {
					spec = mux_plan__spec(&plan, m, MUX_SPELL_COLLECT);
					mux_plan__exit(&plan);
				}
				td_model__delete(m);
			}
			err = err ? err : collect_parse_events(spec, &o, &ev, &nr, &cause);
			if (!err)
				strbuf__addf(&d, "# model spec: %s\n", spec);
			free(spec);
		} else {
			err = collect_parse_events(c->events, &o, &ev, &nr, &cause);
		}
		if (err) {
			strbuf__addf(&d, "error %d: %s\n", err, cause ? cause : "");
		} else {
			strbuf__addf(&d, "# events: %s\n", c->events);
			for (size_t i = 0; i < nr; i++)
				dump_attr(&d, &ev[i], i);
			collect_events__free(ev, nr);
		}
		free(cause);
		out = strbuf__detach(&d);
		gx_write_all(p[1], out, strlen(out));
		free(out);
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		strbuf__add(&sb, buf, (size_t)n);
	close(p[0]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		strbuf__exit(&sb);
		return NULL;
	}
	return strbuf__detach(&sb);
}

/* First differing line, for the diagnostic. */
static void diag_diff(const char *got, const char *want)
{
	int line = 1;

	while (*got && *got == *want) {
		if (*got == '\n')
			line++;
		got++;
		want++;
	}
	diag("  first difference at line %d: got '%.*s', want '%.*s'", line,
	     (int)strcspn(got, "\n"), got, (int)strcspn(want, "\n"), want);
}

static void test_goldens(const char *dir, bool regen)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct attr_case *c = &cases[i];
		char *path = xasprintf("%s/%s", dir, c->name);
		char *got = run_case(c), *want;

		if (!got) {
			ok_at(0, __FILE__, c->line, "%s: parse child crashed", c->name);
			free(path);
			continue;
		}
		if (regen) {
			FILE *f = fopen(path, "w");

			ok_at(f && fputs(got, f) >= 0 && fclose(f) == 0, __FILE__, c->line,
			      "%s: golden written", c->name);
		} else {
			want = gx_read_file(path, 1 << 20);
			if (!ok_at(want && !strcmp(got, want), __FILE__, c->line, "%s matches %s", c->name,
				   path)) {
				if (want)
					diag_diff(got, want);
				else
					diag("  cannot read %s", path);
			}
			free(want);
		}
		/* no memory sampling (a VM): its golden is the message */
		if (!strcmp(c->events, "mem:plain"))
			ok_at(strstr(got, "--model") != NULL, __FILE__, c->line,
			      "%s: the error points to --model", c->name);
		else
			ok_at(strncmp(got, "error", 5) != 0, __FILE__, c->line, "%s parses", c->name);
		free(got);
		free(path);
	}
}

struct err_case {
	int line;
	const char *events;
	const char *in_cause;	/* must appear in the message */
};

static const struct err_case err_cases[] = {
	{ __LINE__, "no-such-event", "'no-such-event'" },
	{ __LINE__, "cpu-clock,BOGUS_EVENT:XYZ", "gexplore list" },
	{ __LINE__, "{cycles,instructions", "missing '}'" },
	{ __LINE__, "cycles}", "unbalanced" },
	{ __LINE__, "{cycles,instructions}:X", "unknown group modifier 'X'" },
	{ __LINE__, "cycles:pppp", "too many" },
	{ __LINE__, "cycles,,instructions", "empty event name" },
	{ __LINE__, "cpu/bogus=1/", "unknown term 'bogus'" },
	{ __LINE__, "nosuchpmu/config=1/", "no such PMU" },
	{ __LINE__, "", "empty event list" },
};

static void test_errors(void)
{
	struct collect_opts o = { .rate = 1.0 };

	for (size_t i = 0; i < ARRAY_SIZE(err_cases); i++) {
		const struct err_case *c = &err_cases[i];
		struct collect_event *ev = NULL;
		size_t nr = 0;
		char *cause = NULL;
		int err = collect_parse_events(c->events, &o, &ev, &nr, &cause);

		is_int_at(err, GX_E_EVENT, c->line, "'%s' is GX_E_EVENT", c->events);
		if (!ok_at(cause && strstr(cause, c->in_cause) && !strchr(cause, '\n'), __FILE__, c->line,
			   "'%s': one-line cause says \"%s\"", c->events, c->in_cause))
			diag("  cause: %s", cause ? cause : "(null)");
		ok_at(ev == NULL && nr == 0, __FILE__, c->line, "'%s': nothing returned", c->events);
		free(cause);
	}
}

/* -j's words as perf spells them; a software event has no branch stack */
static void test_branch_filter(void)
{
	struct collect_opts o = { .rate = 1.0 };
	struct collect_event *ev = NULL;
	size_t nr = 0;
	uint64_t v = 0;
	char *cause = NULL;

	ok(!collect_branch_filter("any_call,any_ret,u", &v, &cause) &&
	   v == (PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_USER),
	   "-j any_call,any_ret,u: its bits");
	ok(!collect_branch_filter("u,k", &v, &cause) &&
	   v == (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_ANY),
	   "-j u,k: levels alone mean any branch (perf's rule)");
	ok(collect_branch_filter("cond,jcc", &v, &cause) == GX_E_USAGE && cause &&
	   strstr(cause, "'jcc'"), "-j cond,jcc: refused, naming jcc");
	free(cause);
	cause = NULL;
	o.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	ok(collect_parse_events("cpu-clock,page-faults", &o, &ev, &nr, &cause) == GX_E_NOPMU &&
	   cause && strstr(cause, "hardware event"), "-b with software events only: refused, saying why");
	free(cause);
}

static void make_sysfs(void)
{
	if (!mkdtemp(sysfs_hybrid) || !mkdtemp(sysfs_plain) || !mkdtemp(sysfs_intel) ||
	    !mkdtemp(sysfs_spr) || !mkdtemp(sysfs_amd))
		diag("mkdtemp failed");
	fake_sysfs_pmu_file(sysfs_intel, "cpu", "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	fake_sysfs_pmu_file(sysfs_intel, "cpu", "events/mem-stores", "event=0xd0,umask=0x82\n");
	fake_sysfs_pmu_file(sysfs_spr, "cpu", "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	fake_sysfs_pmu_file(sysfs_spr, "cpu", "events/mem-loads-aux", "event=0x03,umask=0x82\n");
	fake_sysfs_pmu_file(sysfs_amd, "ibs_op", "type", "11\n");
	fake_sysfs_pmu_file(sysfs_hybrid, "cpu_core", "events/mem-loads",
			    "event=0xcd,umask=0x1,ldlat=3\n");
	fake_sysfs_pmu_file(sysfs_plain, "software", "type", "1\n");
	fake_sysfs_pmu_file(sysfs_hybrid, "software", "type", "1\n");
	/* Alder Lake's numbers: cpu_core is type 4, cpu_atom a dynamic 10 */
	fake_sysfs_pmu_file(sysfs_hybrid, "cpu_core", "type", "4\n");
	fake_sysfs_pmu_file(sysfs_hybrid, "cpu_core", "cpus", "0-3\n");
	fake_sysfs_pmu_file(sysfs_hybrid, "cpu_atom", "type", "10\n");
	fake_sysfs_pmu_file(sysfs_hybrid, "cpu_atom", "cpus", "4-7\n");
}

static void remove_sysfs(void)
{
	char *cmd = xasprintf("rm -rf %s %s %s %s %s", sysfs_hybrid, sysfs_plain, sysfs_intel,
			      sysfs_spr, sysfs_amd);

	if (system(cmd) != 0)
		diag("%s failed", cmd);
	free(cmd);
}

int main(void)
{
	const char *src = getenv("GX_SRCDIR");
	const char *regen = getenv("GX_REGEN_GOLDEN");
	char *dir = xasprintf("%s/tests/golden/attr", src && *src ? src : ".");

	make_sysfs();
	test_goldens(dir, regen && *regen == '1');
	test_errors();
	test_branch_filter();
	remove_sysfs();
	free(dir);
	return done_testing();
}
