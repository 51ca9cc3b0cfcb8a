/*
 * Every model in events/: loads, names resolve (load checks formulas),
 * the tree is well formed, ids and aliases select the right file, CPU
 * match rules pick the right model, and every event's encoding agrees
 * between libpfm4 (forced PMU, inactive encoding allowed), the raw
 * encoding and the perf spelling.
 */
#include "config.h"

#include "topdown/topdown.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

static const char *dir = GX_SRC_EVENTS_DIR;

static const struct {
	int line;
	const char *name;
	const char *id;
} names[] = {
	{ __LINE__, "skl", "skl" }, { __LINE__, "skx", "skl" }, { __LINE__, "clx", "skl" },
	{ __LINE__, "SKX", "skl" }, { __LINE__, "icl", "icl" }, { __LINE__, "icx", "icx" },
	{ __LINE__, "spr", "spr" }, { __LINE__, "zen3", "zen3" }, { __LINE__, "zen4", "zen4" },
	{ __LINE__, "zen5", "zen5" }, { __LINE__, "n1", "n1" }, { __LINE__, "v1", "v1" },
	{ __LINE__, "n2", "n2" }, { __LINE__, "v2", "v2" }, { __LINE__, "generic", "generic" },
	{ __LINE__, "amd64_fam19h_zen3", "zen3" }, { __LINE__, "amd64_fam19h_zen4", "zen4" },
	{ __LINE__, "amd64_fam1ah_zen5", "zen5" }, { __LINE__, "arm_n1", "n1" },
	{ __LINE__, "arm_v1", "v1" }, { __LINE__, "arm_n2", "n2" }, { __LINE__, "arm_v2", "v2" },
};

static const struct {
	int line;
	int arch;
	const char *vendor;
	unsigned family, model, impl, part;
	const char *want;
} cpus[] = {
	{ __LINE__, TD_CPU_X86, "GenuineIntel", 6, 85, 0, 0, "skl" },	/* Skylake-SP / Cascade Lake */
	{ __LINE__, TD_CPU_X86, "GenuineIntel", 6, 94, 0, 0, "skl" },
	{ __LINE__, TD_CPU_X86, "GenuineIntel", 6, 126, 0, 0, "icl" },
	{ __LINE__, TD_CPU_X86, "GenuineIntel", 6, 140, 0, 0, "icl" },	/* Tiger Lake */
	{ __LINE__, TD_CPU_X86, "GenuineIntel", 6, 106, 0, 0, "icx" },
	{ __LINE__, TD_CPU_X86, "GenuineIntel", 6, 143, 0, 0, "spr" },
	{ __LINE__, TD_CPU_X86, "GenuineIntel", 6, 1, 0, 0, "generic" },
	{ __LINE__, TD_CPU_X86, "AuthenticAMD", 0x19, 0x01, 0, 0, "zen3" },
	{ __LINE__, TD_CPU_X86, "AuthenticAMD", 0x19, 0x11, 0, 0, "zen4" },
	{ __LINE__, TD_CPU_X86, "AuthenticAMD", 0x19, 0x61, 0, 0, "zen4" },	/* missed by libpfm4 4.13 */
	{ __LINE__, TD_CPU_X86, "AuthenticAMD", 0x1a, 0x02, 0, 0, "zen5" },
	{ __LINE__, TD_CPU_X86, "AuthenticAMD", 0x17, 0x31, 0, 0, "generic" },
	{ __LINE__, TD_CPU_ARM, "", 0, 0, 0x41, 0xd0c, "n1" },
	{ __LINE__, TD_CPU_ARM, "", 0, 0, 0x41, 0xd40, "v1" },
	{ __LINE__, TD_CPU_ARM, "", 0, 0, 0x41, 0xd49, "n2" },
	{ __LINE__, TD_CPU_ARM, "", 0, 0, 0x41, 0xd4f, "v2" },
	{ __LINE__, TD_CPU_ARM, "", 0, 0, 0x51, 0xd49, "generic" },
};

/* Level-3 memory nodes the issue asks for (TMA 4+ calls SPR's DRAM_Bound L3_Miss_Bound). */
static const char *const memory_l3[] = { "L1_Bound", "L2_Bound", "L3_Bound", "DRAM_Bound",
					 "Store_Bound" };
static const char *const memory_l3_spr[] = { "L1_Bound", "L2_Bound", "L3_Bound",
					     "L3_Miss_Bound", "Store_Bound" };

static void check_model(const struct td_model *m)
{
	const char *id = td_model__id(m);
	size_t l1 = 0, l2 = 0, bad = 0;
	bool generic = strcmp(id, "generic") == 0;
	/* record --model's tree: cycles, not slots; events of its own */
	bool modelled = strcmp(id, "modelled") == 0;

	for (size_t i = 0; i < td_model__nr_nodes(m); i++) {
		const struct td_node *d = td_model__node(m, i);

		if (!d->desc || !*d->desc)
			bad++, diag("%s: %s has no description", id, d->name);
		if (d->level >= 1 && (!d->threshold || !d->hint))
			bad++, diag("%s: %s needs a threshold and a hint", id, d->name);
		if (d->level >= 1 && d->unit != TD_UNIT_FRACTION)
			bad++, diag("%s: %s: tree nodes are fractions", id, d->name);
		l1 += d->level == 1;
		l2 += d->level == 2;
	}
	ok(bad == 0, "%s: every node described, tree nodes have thresholds and hints", id);
	ok(td_model__find_node(m, "CPI") >= 0 && td_model__find_node(m, "IPC") >= 0,
	   "%s: CPI and IPC", id);
	if (!generic) {
		ok(l1 >= 4, "%s: level 1 (%zu nodes)", id, l1);
		if (modelled)
			ok(td_model__find_node(m, "SLOTS") < 0 && td_model__width(m) == 0,
			   "%s: shares of cycles, no SLOTS", id);
		else
			ok(td_model__find_node(m, "SLOTS") >= 0 && td_model__width(m) > 0,
			   "%s: SLOTS and width", id);
		ok(td_model__threshold_note(m) != NULL, "%s: documents its thresholds", id);
	}
	if (modelled)
		ok(l2 == 2 && td_model__find_node(m, "Memory_Bound") >= 0 &&
		   td_model__find_node(m, "Core_Bound") >= 0, "%s: Memory_Bound and Core_Bound", id);
	else if (!generic && strcmp(id, "zen3") && id[0] != 'n' && id[0] != 'v')
		ok(l2 >= 6, "%s: level 2 (%zu nodes)", id, l2);
	if (strcmp(id, "skl") == 0 || strcmp(id, "spr") == 0)
		for (size_t k = 0; k < ARRAY_SIZE(memory_l3); k++) {
			const char *want = id[0] == 's' && id[1] == 'p' ? memory_l3_spr[k] : memory_l3[k];
			int n = td_model__find_node(m, want);

			ok(n >= 0 && td_model__node(m, (size_t)n)->level == 3, "%s: level-3 %s", id, want);
		}
	for (size_t i = 0; i < td_model__nr_events(m); i++) {
		const struct td_event *e = td_model__event(m, i);

		/* the model's events are written by gexplore (src/model), not
		 * opened: no perf spelling */
		if (!e->perf && !modelled)
			bad++, diag("%s: event %s has no perf spelling", id, e->id);
		if (!e->pfm && !e->has_raw)
			bad++, diag("%s: event %s has neither libpfm4 name nor raw encoding", id, e->id);
		if (td_model__find_event(m, e->id) != (int)i)
			bad++, diag("%s: event %s does not resolve to itself", id, e->id);
	}
	ok(bad == 0, "%s: events have perf spellings and an encoding", id);
	{
		int *need;
		size_t n;

		is_int(td_model__needed_events(m, NULL, -1, &need, &n), 0, "%s: needed events", id);
		ok(n >= 2, "%s: needs %zu events", id, n);
		free(need);
		for (const char *const *v = td_model__variants(m); *v; v++) {
			struct td_ctx ctx = { .variant = *v };

			ok(td_model__needed_events(m, &ctx, -1, &need, &n) == 0 && n >= 2,
			   "%s: variant %s needs %zu events", id, *v, n);
			free(need);
		}
	}
}

/* Raw encodings must agree with the perf spelling ("cpu/event=..,umask=../", "rNNN"). */
static void check_raw(const struct td_model *m)
{
	size_t bad = 0, checked = 0;

	for (size_t i = 0; i < td_model__nr_events(m); i++) {
		const struct td_event *e = td_model__event(m, i);
		uint64_t c, c1;

		if (!e->has_raw || e->raw_type == 0)
			continue;
		if (td_perf_config(e->perf, &c, &c1) < 0)
			continue;	/* symbolic: "slots", "topdown-retiring" */
		checked++;
		if (c != e->raw_config || c1 != e->raw_config1)
			bad++, diag("%s: %s raw 0x%llx but perf spelling %s gives 0x%llx",
				    td_model__id(m), e->id, (unsigned long long)e->raw_config, e->perf,
				    (unsigned long long)c);
	}
	ok(bad == 0, "%s: %zu raw encodings agree with their perf spelling", td_model__id(m),
	   checked);
}

/*
 * libpfm4 encodes every "pmu::EVENT" name, and the result matches the
 * perf spelling. Run in a child per model: the forced PMU is chosen
 * through the environment before pfm_initialize().
 */
static int pfm_child(const struct td_model *m)
{
	int bad = 0;

	for (size_t i = 0; i < td_model__nr_events(m); i++) {
		const struct td_event *e = td_model__event(m, i);
		struct perf_event_attr attr;
		pfm_perf_encode_arg_t arg;
		uint64_t c, c1, mask = 0xffffffffull | (0xfull << 32);
		int ret;

		if (!e->pfm)
			continue;
		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.attr = &attr;
		ret = pfm_get_os_event_encoding(e->pfm, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
		if (ret != PFM_SUCCESS) {
			printf("# %s: libpfm4 cannot encode %s: %s\n", td_model__id(m), e->pfm,
			       pfm_strerror(ret));
			bad++;
			continue;
		}
		if (td_perf_config(e->perf, &c, &c1) == 0 &&
		    ((attr.config & mask) != (c & mask))) {
			printf("# %s: %s encodes 0x%llx, perf spelling %s means 0x%llx\n",
			       td_model__id(m), e->pfm, (unsigned long long)attr.config, e->perf,
			       (unsigned long long)c);
			bad++;
		}
	}
	fflush(stdout);
	return bad ? 1 : 0;
}

static void check_pfm(const struct td_model *m)
{
	const char *pmu = NULL;
	pid_t pid;
	int status;
	size_t n = 0;

	for (size_t i = 0; i < td_model__nr_events(m); i++)
		if (td_model__event(m, i)->pfm) {
			n++;
			pmu = td_model__event(m, i)->pfm;
		}
	if (!n) {
		skip(1, "no libpfm4-named events");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char name[64];
		const char *sep = strstr(pmu, "::");

		snprintf(name, sizeof(name), "%.*s", sep ? (int)(sep - pmu) : 0, pmu);
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
		setenv("LIBPFM_FORCE_PMU", name, 1);
		if (pfm_initialize() != PFM_SUCCESS)
			_exit(2);
		_exit(pfm_child(m));
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		ok(0, "%s: libpfm4 child ran", td_model__id(m));
		return;
	}
	if (WEXITSTATUS(status) == 2) {
		skip(1, "pfm_initialize failed");
		return;
	}
	ok(WEXITSTATUS(status) == 0, "%s: libpfm4 encodes all %zu named events as spelled",
	   td_model__id(m), n);
}

/* What record would open: conditionals folded for the SMT state, levels cut. */
static const struct {
	int line;
	const char *model;
	enum td_smt smt;
	bool core_wide;
	const char *variant;
	int max_level;
	const char *in, *out;	/* space-separated event ids that must / must not be needed */
} needs[] = {
	{ __LINE__, "skl", TD_SMT_OFF, false, NULL, -1,
	  "CPU_CLK_UNHALTED.THREAD INT_MISC.RECOVERY_CYCLES CYCLE_ACTIVITY.STALLS_L3_MISS INST_RETIRED.ANY",
	  "CPU_CLK_UNHALTED.THREAD_ANY CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE INT_MISC.RECOVERY_CYCLES_ANY MEM_LOAD_RETIRED.L1_HIT" },
	{ __LINE__, "skl", TD_SMT_ON, false, NULL, -1,
	  "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE CPU_CLK_UNHALTED.REF_XCLK INT_MISC.RECOVERY_CYCLES_ANY",
	  "CPU_CLK_UNHALTED.THREAD_ANY INT_MISC.RECOVERY_CYCLES" },
	{ __LINE__, "skl", TD_SMT_ON, true, NULL, -1, "CPU_CLK_UNHALTED.THREAD_ANY",
	  "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE" },
	{ __LINE__, "skl", TD_SMT_OFF, false, NULL, 1,
	  "IDQ_UOPS_NOT_DELIVERED.CORE UOPS_ISSUED.ANY UOPS_RETIRED.RETIRE_SLOTS INT_MISC.RECOVERY_CYCLES",
	  "CYCLE_ACTIVITY.STALLS_TOTAL BR_MISP_RETIRED.ALL_BRANCHES" },
	{ __LINE__, "spr", TD_SMT_OFF, false, NULL, 1,
	  "TOPDOWN.SLOTS topdown-retiring topdown-be-bound topdown-heavy-ops", "UOPS_RETIRED.SLOTS" },
	{ __LINE__, "spr", TD_SMT_OFF, false, "gp", 2,
	  "TOPDOWN.SLOTS TOPDOWN.BACKEND_BOUND_SLOTS UOPS_RETIRED.SLOTS IDQ_BUBBLES.CORE",
	  "topdown-retiring topdown-be-bound topdown-mem-bound" },
};

static bool needed(const int *idx, size_t n, int e)
{
	for (size_t i = 0; i < n; i++)
		if (idx[i] == e)
			return true;
	return false;
}

static void check_needs(void)
{
	for (size_t k = 0; k < ARRAY_SIZE(needs); k++) {
		struct td_ctx ctx = { .smt = needs[k].smt, .core_wide = needs[k].core_wide,
				      .variant = needs[k].variant };
		struct td_model *m = NULL;
		int *idx = NULL;
		size_t n = 0;
		char buf[512], *tok, *save;

		if (td_model__load(needs[k].model, dir, &m, NULL) < 0 ||
		    td_model__needed_events(m, &ctx, needs[k].max_level, &idx, &n) < 0) {
			ok_at(0, __FILE__, needs[k].line, "needed events of %s", needs[k].model);
			td_model__delete(m);
			continue;
		}
		for (int pass = 0; pass < 2; pass++) {
			snprintf(buf, sizeof(buf), "%s", pass ? needs[k].out : needs[k].in);
			for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
				int e = td_model__find_event(m, tok);

				ok_at(e >= 0 && needed(idx, n, e) == !pass, __FILE__, needs[k].line,
				      "%s: %s %sneeded", needs[k].model, tok, pass ? "not " : "");
			}
		}
		free(idx);
		td_model__delete(m);
	}
	{
		struct td_model *m = NULL;
		int *idx = NULL;
		size_t n = 0;

		if (td_model__load("skl", dir, &m, NULL) == 0 && td_model__locate_events(m, &idx, &n) == 0) {
			ok(n >= 5 && needed(idx, n, td_model__find_event(m, "MEM_LOAD_RETIRED.L3_MISS")),
			   "skl: %zu locate events", n);
			size_t imprecise = 0;

			for (size_t i = 0; i < n; i++)
				if (!td_model__event(m, (size_t)idx[i])->precise)
					imprecise++, diag("locate event %s is not precise",
							  td_model__event(m, (size_t)idx[i])->id);
			ok(imprecise == 0, "skl: locate events are precise");
		}
		free(idx);
		td_model__delete(m);
	}
}

/* N2 r0p3 and later use Arm's r0p3 formulas; earlier revisions the default. */
static void revision_variants(void)
{
	static const struct {
		int line;
		uint64_t midr;
		const char *want;
	} revs[] = {
		{ __LINE__, 0x410fd490, NULL },		/* r0p0 */
		{ __LINE__, 0x410fd492, NULL },		/* r0p2 */
		{ __LINE__, 0x410fd493, "r0p3" },
		{ __LINE__, 0x411fd490, "r0p3" },	/* r1p0 */
	};
	struct td_model *m;
	struct td_cpu cpu;
	char *cause = NULL;

	if (td_model__load("n2", dir, &m, &cause)) {
		ok(0, "n2 loads: %s", cause);
		free(cause);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(revs); i++) {
		const char *v;

		td_cpu_from_midr(&cpu, revs[i].midr);
		v = td_model__cpu_variant(m, &cpu);
		is_str_at(v ? v : "default", revs[i].want ? revs[i].want : "default", revs[i].line,
			  "MIDR 0x%llx (r%up%u): n2 variant", (unsigned long long)revs[i].midr,
			  cpu.variant, cpu.revision);
	}
	ok(td_cpu_from_cpuinfo(&cpu, "CPU implementer\t: 0x41\nCPU variant\t: 0x0\n"
				     "CPU part\t: 0xd49\nCPU revision\t: 3\n") == 0 &&
	   td_model__cpu_variant(m, &cpu) && !strcmp(td_model__cpu_variant(m, &cpu), "r0p3"),
	   "cpuinfo r0p3 picks n2's r0p3 formulas");
	td_cpu_from_cpuid(&cpu, "GenuineIntel", 0x000906ea);
	ok(td_model__cpu_variant(m, &cpu) == NULL, "x86 never picks an Arm revision");
	td_model__delete(m);
}

/* SMT from sysfs (record's meta.json, list): GX_SYSFS stands for /sys. */
static void smt_detect(void)
{
	static const struct {
		int line;
		const char *active;	/* NULL: no file */
		enum td_smt want;
	} cases[] = {
		{ __LINE__, "1\n", TD_SMT_ON },
		{ __LINE__, "0\n", TD_SMT_OFF },
		{ __LINE__, NULL, TD_SMT_UNKNOWN },
	};
	char root[] = "/tmp/gx-smt-XXXXXX";

	if (!mkdtemp(root)) {
		skip(ARRAY_SIZE(cases), "mkdtemp");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *dir = xasprintf("%s/c%zu/devices/system/cpu/smt", root, i);
		char *cmd = xasprintf("mkdir -p '%s'", dir), *file = xasprintf("%s/active", dir);
		char *base = xasprintf("%s/c%zu", root, i);

		if (system(cmd) == 0 && cases[i].active) {
			FILE *f = fopen(file, "w");

			if (f) {
				fputs(cases[i].active, f);
				fclose(f);
			}
		}
		setenv("GX_SYSFS", base, 1);
		is_int_at(td_smt_detect(), cases[i].want, cases[i].line, "smt/active %.1s",
			  cases[i].active ? cases[i].active : "absent");
		unsetenv("GX_SYSFS");
		free(dir);
		free(cmd);
		free(file);
		free(base);
	}
	{
		char *cmd = xasprintf("rm -rf '%s'", root);

		if (system(cmd) != 0)
			diag("could not remove %s", root);
		free(cmd);
	}
}

int main(void)
{
	char **ids = NULL, *cause = NULL;
	size_t nr = 0;

	if (td_model_list(dir, &ids, &cause) < 0) {
		ok(0, "list models: %s", cause);
		return done_testing();
	}
	for (char **id = ids; *id; id++)
		nr++;
	ok(nr >= 12, "%zu model files", nr);
	for (char **id = ids; *id; id++) {
		char *path = xasprintf("%s/%s.json", dir, *id);
		struct td_model *m = NULL;

		if (!ok(td_model__load_file(path, &m, &cause) == 0, "%s loads", *id)) {
			diag("%s", cause);
		} else {
			is_str(td_model__id(m), *id, "%s: file named after its id", *id);
			check_model(m);
			check_raw(m);
			check_pfm(m);
		}
		td_model__delete(m);
		free(path);
	}
	td_strv_free(ids);

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct td_model *m = NULL;

		if (ok_at(td_model__load(names[i].name, dir, &m, &cause) == 0, __FILE__, names[i].line,
			  "load by name %s", names[i].name))
			is_str_at(td_model__id(m), names[i].id, names[i].line, "%s is %s",
				  names[i].name, names[i].id);
		td_model__delete(m);
	}
	{
		struct td_model *m = NULL;

		is_int(td_model__load("pentium4", dir, &m, &cause), -ENOENT, "unknown model");
		ok(cause && strstr(cause, "unknown CPU model 'pentium4'") && strstr(cause, "skl"),
		   "message lists the known models: %s", cause ? cause : "");
	}
	for (size_t i = 0; i < ARRAY_SIZE(cpus); i++) {
		struct td_cpu cpu = { .arch = cpus[i].arch, .family = cpus[i].family,
				      .model = cpus[i].model, .implementer = cpus[i].impl,
				      .part = cpus[i].part };
		char *id;

		snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", cpus[i].vendor);
		id = td_model_match(&cpu, dir);
		is_str_at(id, cpus[i].want, cpus[i].line, "%s %u/%u 0x%x/0x%x -> %s", cpus[i].vendor,
			  cpus[i].family, cpus[i].model, cpus[i].impl, cpus[i].part, cpus[i].want);
		free(id);
	}
	{
		char *id = td_detect_model();
		struct td_model *m = NULL;

		ok(td_model__load(id, dir, &m, NULL) == 0, "this host's model (%s) loads", id);
		td_model__delete(m);
		free(id);
	}
	check_needs();
	{
		/* detection decoding: CPUID signatures and Arm identification */
		static const struct {
			int line;
			const char *vendor;
			uint32_t eax;
			const char *want;
		} sigs[] = {
			{ __LINE__, "GenuineIntel", 0x00050654, "skl" },	/* Skylake-SP */
			{ __LINE__, "GenuineIntel", 0x00050657, "skl" },	/* Cascade Lake */
			{ __LINE__, "GenuineIntel", 0x000606a6, "icx" },
			{ __LINE__, "GenuineIntel", 0x000806f8, "spr" },
			{ __LINE__, "AuthenticAMD", 0x00a10f11, "zen4" },
			{ __LINE__, "AuthenticAMD", 0x00a00f11, "zen3" },
			{ __LINE__, "AuthenticAMD", 0x00b00f21, "zen5" },
			{ __LINE__, "AuthenticAMD", 0x00830f10, "generic" },	/* Zen 2 */
		};
		struct td_cpu cpu;
		char *id;

		for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
			td_cpu_from_cpuid(&cpu, sigs[i].vendor, sigs[i].eax);
			id = td_model_match(&cpu, dir);
			is_str_at(id, sigs[i].want, sigs[i].line, "CPUID %s 0x%08x (family 0x%x model 0x%x)",
				  sigs[i].vendor, sigs[i].eax, cpu.family, cpu.model);
			free(id);
		}
		td_cpu_from_midr(&cpu, 0x413fd0c1);
		id = td_model_match(&cpu, dir);
		is_str(id, "n1", "MIDR 0x413fd0c1 is Neoverse N1");
		free(id);
		ok(td_cpu_from_cpuinfo(&cpu, "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"
					     "CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd49\n") == 0,
		   "cpuinfo parsed");
		id = td_model_match(&cpu, dir);
		is_str(id, "n2", "cpuinfo part 0xd49 is Neoverse N2");
		free(id);
		ok(td_cpu_from_cpuinfo(&cpu, "processor : 0\nvendor_id : GenuineIntel\n") < 0,
		   "x86 cpuinfo has no Arm fields");
		revision_variants();
		smt_detect();
	}
	free(cause);
	return done_testing();
}
