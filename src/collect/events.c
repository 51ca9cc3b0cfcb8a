/*
 * events.c: the -e syntax -> perf_event_attr, without opening anything.
 *
 * Accepted, comma-separated, optionally grouped with {a,b}:
 *   perf generic names     cycles, instructions, cpu-clock, page-faults, ...
 *   libpfm4 names          INST_RETIRED:ANY_P, skl::CYCLE_ACTIVITY:STALLS_TOTAL
 *   raw                    r1c2 (PERF_TYPE_RAW, hex config)
 *   PMU terms              cpu/event=0x3c,umask=0x0/, msr/config=0x1/,
 *                          with period=N for that event's SAV (0: count only)
 * each with perf's modifiers :u :k :p :pp :ppp :P. After a group's '}':
 * S (leader sampling: the leader's samples read the group, members have
 * no period) and u / k (for every member), as perf spells them.
 *
 * Default sample-after values (before --rate), when -c is not given:
 *   cycles, instructions, ref-cycles, bus-cycles   2000003 (perf's usual)
 *   other hardware, raw, PMU-term and libpfm4      100003 (rarer events)
 *   cpu-clock, task-clock                           250000 ns (4 kHz); inside
 *                                                   a group of a list of two
 *                                                   or more, 2500000 (400 Hz)
 *   page-faults and the other software counters     frequency mode, 4000 Hz
 *                                                   (divided by --rate)
 * The software counters follow perf's default (-F 4000): the kernel adapts
 * the period so that a counter samples about 4000 times a second of the
 * task's time, whatever its rate. Sampled on every occurrence (period 1,
 * the default before) a fault-heavy workload ran 35% slower, and slower
 * in the slices of the group that held the faults, which biased the
 * multiplexed estimates by several percent.
 * Software counters sampled with a fixed period > 1 carry no
 * PERF_SAMPLE_PERIOD (see config_attr()): their period is
 * attr.sample_period. In frequency mode they keep it (the period varies).
 */
#include "config.h"

#include "collect/collect-int.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAV_CYCLES 2000003ULL
#define SAV_PMU 100003ULL
/* Marks a SAV set by the event's own period= term: it wins over -c and -F,
 * as in perf (only --rate still scales it). */
#define SAV_TERM (1ULL << 63)
#define SAV_CLOCK 250000ULL
/* A clock inside a group of a list with two or more groups (they rotate,
 * or the kernel multiplexes them): 400 Hz, a tenth of the always-on
 * reference's rate. A clock's sample is a timer interrupt (tens of us in
 * a VM); at 4 kHz in one group's slices only it slowed the workload there
 * against the other groups' and biased every estimate weighted by the
 * workload's time by several percent. */
#define SAV_CLOCK_GROUPS 2500000ULL
/* Marks the default of a software counter: frequency mode at FREQ_SW Hz
 * (divided by --rate) unless -c, -F or a period= term says otherwise. */
#define SAV_FREQ (1ULL << 62)
#define FREQ_SW 4000.0

/* The registers perf copies for --call-graph dwarf. */
#if defined(__x86_64__)
/* PERF_REG_X86_AX..R15 (bits 0-23) without DS, ES, FS, GS (12-15). */
#define COLLECT_REGS_USER 0xff0fffULL
#elif defined(__aarch64__)
/* x0..x30, sp, pc (PERF_REG_ARM64_MAX = 33). */
#define COLLECT_REGS_USER 0x1ffffffffULL
#else
#define COLLECT_REGS_USER 0ULL
#endif

struct generic_event {
	const char *name;
	uint32_t type;
	uint64_t config;
	uint64_t sav;
};

static const struct generic_event generic_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, SAV_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, SAV_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, SAV_CYCLES },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, SAV_PMU },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, SAV_PMU },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, SAV_PMU },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, SAV_PMU },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, SAV_PMU },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, SAV_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, SAV_PMU },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, SAV_PMU },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, SAV_PMU },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, SAV_PMU },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, SAV_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, SAV_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, SAV_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, SAV_FREQ },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, SAV_FREQ },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, SAV_FREQ },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, SAV_FREQ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, SAV_FREQ },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, SAV_FREQ },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, SAV_FREQ },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, SAV_FREQ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, SAV_FREQ },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, SAV_FREQ },
};

int collect_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			    unsigned long flags)
{
	long r = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return r < 0 ? -errno : (int)r;
}

/* collect_no_pmu's answer, once a process: -errno of its cycles, 0 when
 * it opened, 1 before the first question */
static int no_pmu_err = 1;

bool collect_no_pmu(void)
{
	struct perf_event_attr a;
	int fd;

	if (no_pmu_err <= 0)
		return no_pmu_err == -ENOENT || no_pmu_err == -EOPNOTSUPP || no_pmu_err == -ENODEV;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = collect_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	no_pmu_err = fd >= 0 ? 0 : fd;
	return collect_no_pmu();
}

const char *collect_no_pmu_why(void)
{
	return no_pmu_err < 0 ? strerror(-no_pmu_err) : NULL;
}

int collect_paranoid(void)
{
	char *s = gx_read_file("/proc/sys/kernel/perf_event_paranoid", 64);
	int v = 2;

	if (s) {
		v = atoi(s);
		free(s);
	}
	return v;
}

bool collect_privileged(void)
{
	char *s, *p;
	bool r = false;

	if (geteuid() == 0)
		return true;
	s = gx_read_file("/proc/self/status", 1 << 16);
	if (!s)
		return false;
	p = strstr(s, "\nCapEff:");
	if (p) {
		unsigned long long caps = strtoull(p + 8, NULL, 16);

		/* CAP_SYS_ADMIN 21, CAP_PERFMON 38 */
		r = (caps & (1ULL << 21)) || (caps & (1ULL << 38));
	}
	free(s);
	return r;
}

bool collect_attr__is_pmu(const struct perf_event_attr *a)
{
	switch (a->type) {
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		return false;
	default:
		return true;
	}
}

/* ---- libpfm4 ------------------------------------------------------------ */

/*
 * libpfm4 is opened (dlopen) the first time an event name needs it, not
 * linked: its 41,000 relocations cost every gexplore command, a record of
 * the default events or of /bin/true included (issue 26, part 4).
 */
static struct {
	int state;	/* 0: not tried, 1: ready, -1: no library, <0: pfm error */
	char soname[32];	/* the library of the headers built with */
	pfm_err_t (*initialize)(void);
	pfm_err_t (*encode)(const char *, int, pfm_os_t, void *);
	const char *(*strerror)(int);
} pfm;

static int pfm_ready(void)
{
	void *h;
	int r;

	if (pfm.state)
		return pfm.state;
	pfm.state = -1;
	snprintf(pfm.soname, sizeof(pfm.soname), "libpfm.so.%d", LIBPFM_VERSION >> 16);
	h = dlopen(pfm.soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return pfm.state;
	*(void **)&pfm.initialize = dlsym(h, "pfm_initialize");
	*(void **)&pfm.encode = dlsym(h, "pfm_get_os_event_encoding");
	*(void **)&pfm.strerror = dlsym(h, "pfm_strerror");
	if (!pfm.initialize || !pfm.encode || !pfm.strerror) {
		dlclose(h);
		return pfm.state;
	}
	r = pfm.initialize();
	pfm.state = r == PFM_SUCCESS ? 1 : (r < 0 ? r : PFM_ERR_NOINIT);
	return pfm.state;
}

static const char *pfm_error(int r)
{
	static char msg[64];

	if (pfm.strerror)
		return pfm.strerror(r);
	snprintf(msg, sizeof(msg), "cannot load %s", pfm.soname);
	return msg;
}

/* ---- one event ------------------------------------------------------------ */

struct mods {
	bool u, k;
	int precise;
	bool precise_max;	/* :P */
};

static bool is_modifier_string(const char *s)
{
	return *s && s[strspn(s, "ukpP")] == '\0';
}

static int parse_mods(const char *s, struct mods *m)
{
	for (; *s; s++) {
		switch (*s) {
		case 'u': m->u = true; break;
		case 'k': m->k = true; break;
		case 'p': m->precise++; break;
		case 'P': m->precise_max = true; break;
		}
	}
	if (m->precise > 3)
		return -1;
	return 0;
}

static int unknown(char **cause, const char *name, const char *why)
{
	return gx_fail(cause, GX_E_EVENT, "unknown event '%s'%s%s%s; run `gexplore list` to see the events of this CPU",
		       name, why ? " (" : "", why ? why : "", why ? ")" : "");
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

/* pmu/term=value,.../ : the core PMU's x86 layout for "cpu" (it may be
 * absent from sysfs in a VM, and PERF_TYPE_RAW reaches it anyway), plain
 * config/config1/config2 for any PMU listed in sysfs. */
static int parse_pmu_terms(const char *name, const char *pmu, size_t pmulen, const char *terms,
			   size_t tlen, struct perf_event_attr *a, uint64_t *sav, char **cause)
{
	char *p = xstrndup(pmu, pmulen), *t = xstrndup(terms, tlen), *save = NULL, *tok;
	bool core = strcmp(p, "cpu") == 0;
	uint64_t ev = 0, umask = 0, cmask = 0, inv = 0, edge = 0, any = 0;
	int err = 0;

	if (core) {
		a->type = PERF_TYPE_RAW;
	} else {
		char *s;

		s = collect_pmu_file(p, "type");
		if (!s) {
			err = unknown(cause, name, "no such PMU");
			goto out_free;
		}
		a->type = (uint32_t)atoi(s);
		free(s);
	}
	for (tok = strtok_r(t, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v = 1;

		if (eq) {
			*eq = '\0';
			if (!parse_u64(eq + 1, &v)) {
				err = unknown(cause, name, "bad term value");
				goto out_free;
			}
		}
		if (!strcmp(tok, "config"))
			a->config = v;
		else if (!strcmp(tok, "config1"))
			a->config1 = v;
		else if (!strcmp(tok, "config2"))
			a->config2 = v;
		else if (!strcmp(tok, "period"))
			*sav = (v & ~SAV_TERM) | SAV_TERM;	/* this event's SAV; 0 = count only */
		else if (core && !strcmp(tok, "event"))
			ev = v;
		else if (core && !strcmp(tok, "umask"))
			umask = v;
		else if (core && (!strcmp(tok, "cmask") || !strcmp(tok, "c")))
			cmask = v;
		else if (core && !strcmp(tok, "inv"))
			inv = v;
		else if (core && !strcmp(tok, "edge"))
			edge = v;
		else if (core && !strcmp(tok, "any"))
			any = v;
		else {
			err = gx_fail(cause, GX_E_EVENT, "event '%s': unknown term '%s'", name, tok);
			goto out_free;
		}
	}
	if (core && (ev || umask || cmask || inv || edge || any))
		a->config |= (ev & 0xff) | ((ev >> 8) & 0xf) << 32 | (umask & 0xff) << 8 |
			     (edge & 1) << 18 | (any & 1) << 21 | (inv & 1) << 23 | (cmask & 0xff) << 24;
out_free:
	free(p);
	free(t);
	return err;
}

/* "cpu_core/cycles/": a generic hardware event on one core PMU of a
 * hybrid machine (its type in the config's upper bits). */
static bool core_pmu_generic(const char *pmu, size_t pmulen, const char *ev, size_t evlen,
			     struct perf_event_attr *a, uint64_t *sav)
{
	char *p = xstrndup(pmu, pmulen), *type;
	bool hit = false;

	if (strcmp(p, "cpu_core") && strcmp(p, "cpu_atom") && strcmp(p, "cpu_lowpower")) {
		free(p);
		return false;
	}
	type = collect_pmu_file(p, "type");
	for (size_t i = 0; type && i < ARRAY_SIZE(generic_events) && !hit; i++) {
		if (generic_events[i].type != PERF_TYPE_HARDWARE ||
		    strlen(generic_events[i].name) != evlen ||
		    strncmp(generic_events[i].name, ev, evlen))
			continue;
		a->type = PERF_TYPE_HARDWARE;
		a->config = generic_events[i].config | (uint64_t)strtoul(type, NULL, 10) << 32;
		*sav = generic_events[i].sav;
		hit = true;
	}
	free(type);
	free(p);
	return hit;
}

static int encode_pfm(const char *name, const char *str, const struct mods *m,
		      struct perf_event_attr *a, char **cause)
{
	struct perf_event_attr pa;
	pfm_perf_encode_arg_t arg;
	int plm = PFM_PLM0 | PFM_PLM3, r;

	r = pfm_ready();
	if (r < 0)
		return gx_fail(cause, GX_E_EVENT, "event '%s': libpfm4 failed to initialize (%s)", name,
			       pfm_error(r));
	if (m->u && !m->k)
		plm = PFM_PLM3;
	else if (m->k && !m->u)
		plm = PFM_PLM0;
	memset(&pa, 0, sizeof(pa));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &pa;
	arg.size = sizeof(arg);
	r = pfm.encode(str, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS)
		return unknown(cause, name, r == PFM_ERR_NOTFOUND ? NULL : pfm_error(r));
	a->type = pa.type;
	a->config = pa.config;
	a->config1 = pa.config1;
	a->config2 = pa.config2;
	a->exclude_user |= pa.exclude_user;
	a->exclude_kernel |= pa.exclude_kernel;
	if (pa.precise_ip > a->precise_ip)
		a->precise_ip = pa.precise_ip;
	return 0;
}

/* Fill e->attr's identity (type, config, exclusions, precise) and the
 * default SAV from one event as written. */
static int parse_one(const char *tok, struct collect_event *e, uint64_t *sav, char **cause)
{
	struct perf_event_attr *a = &e->attr;
	struct mods m = { 0 };
	const char *slash = strchr(tok, '/'), *colon;
	char *base;
	size_t len = strlen(tok);
	int err = 0;

	/* modifiers: the last ':' part (after a closing '/' for PMU terms) */
	colon = strrchr(slash ? strrchr(tok, '/') : tok, ':');
	if (colon && colon > tok && colon[-1] != ':' && is_modifier_string(colon + 1)) {
		if (parse_mods(colon + 1, &m) < 0)
			return gx_fail(cause, GX_E_EVENT, "event '%s': too many 'p' modifiers", tok);
		len = (size_t)(colon - tok);
	}
	base = xstrndup(tok, len);
	if (!*base) {
		err = gx_fail(cause, GX_E_EVENT, "empty event name in the event list");
		goto out_free;
	}
	a->precise_ip = m.precise_max ? 3 : (uint8_t)m.precise;
	if (m.u && !m.k)
		a->exclude_kernel = a->exclude_hv = 1;
	if (m.k && !m.u)
		a->exclude_user = a->exclude_hv = 1;

	for (size_t i = 0; i < ARRAY_SIZE(generic_events); i++) {
		if (!strcmp(base, generic_events[i].name)) {
			a->type = generic_events[i].type;
			a->config = generic_events[i].config;
			*sav = generic_events[i].sav;
			goto out_free;
		}
	}
	*sav = SAV_PMU;
	if (base[0] == 'r' && base[1] && strspn(base + 1, "0123456789abcdefABCDEF") == len - 1) {
		a->type = PERF_TYPE_RAW;
		a->config = strtoull(base + 1, NULL, 16);
		goto out_free;
	}
	if (slash) {
		const char *bs = strchr(base, '/'), *end = bs ? strchr(bs + 1, '/') : NULL;

		if (!bs || !end || end[1]) {
			err = unknown(cause, tok, "expected pmu/term=value,.../");
			goto out_free;
		}
		if (core_pmu_generic(base, (size_t)(bs - base), bs + 1, (size_t)(end - bs - 1), a,
				     sav))
			goto out_free;
		err = parse_pmu_terms(tok, base, (size_t)(bs - base), bs + 1, (size_t)(end - bs - 1),
				      a, sav, cause);
		goto out_free;
	}
	err = encode_pfm(tok, base, &m, a, cause);
out_free:
	free(base);
	return err;
}

/* ---- attr defaults ---------------------------------------------------------- */

/* Whether any of ev[0 .. n) records branch stacks. */
static bool branch_stacks_in(const struct collect_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			return true;
	return false;
}

static void config_attr(struct collect_event *e, uint64_t dflt_sav, bool first,
			const struct collect_opts *o)
{
	struct perf_event_attr *a = &e->attr;
	bool launch = !o->pid && !o->system_wide;
	bool member = e->group >= 0 && !e->leader;
	double rate = o->rate > 0 ? o->rate : 1.0;
	uint64_t o_sav = o->sav, o_freq = o->freq;

	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (o->callgraph == COLLECT_CG_FP) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	} else if (o->callgraph == COLLECT_CG_DWARF) {
		uint32_t st = o->stack_size ? o->stack_size : COLLECT_DEFAULT_STACK;

		/* as perf: kernel part of the chain from the kernel, user part
		 * unwound offline from the registers and the stack copy */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = COLLECT_REGS_USER;
		st = (st + 7) & ~7U;
		if (st > 65528)
			st = 65528;
		a->sample_stack_user = st;
	}
	/* branch stacks (issue 42): a software event has none to give */
	if (o->branch_sample_type && a->type != PERF_TYPE_SOFTWARE &&
	    a->type != PERF_TYPE_TRACEPOINT) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_sample_type;
	}
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (e->group >= 0)
		a->read_format |= PERF_FORMAT_GROUP;
	a->sample_id_all = 1;
	/* sample times on gx_now_ns()'s clock, so they compare with the
	 * session's start/end and the multiplexing slice log */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->disabled = launch && !member;
	a->enable_on_exec = launch && !member;
	a->inherit = !o->no_inherit && !o->system_wide;
	a->exclude_guest = 1;
	if (dflt_sav & SAV_TERM) {
		dflt_sav &= ~SAV_TERM;
		o_sav = 0;
		o_freq = 0;
	}
	if (o_freq) {
		a->freq = 1;
		a->sample_freq = o_freq;
	} else if (!o_sav && (dflt_sav & SAV_FREQ)) {
		double f = FREQ_SW / rate;

		/* PERF_SAMPLE_PERIOD stays: with attr.freq the kernel samples
		 * by period_left and reports the period each sample stands for */
		a->freq = 1;
		a->sample_freq = f < 1.0 ? 1 : f > 1e6 ? 1000000 : (uint64_t)(f + 0.5);
	} else if (!o_sav && !dflt_sav) {
		a->sample_period = 0;	/* period=0: counted, never sampled */
	} else {
		double p = (double)(o_sav ? o_sav : dflt_sav) * rate;

		a->sample_period = p < 1.0 ? 1 : (uint64_t)(p + 0.5);
		/* The kernel samples a software counter (page-faults, cs, ...;
		 * not the hrtimer-driven cpu-clock/task-clock) on every
		 * occurrence when PERF_SAMPLE_PERIOD is asked for, whatever the
		 * period. Leave it out there: a reader takes the period from
		 * attr.sample_period, as perf does. */
		if (a->type == PERF_TYPE_SOFTWARE && a->config != PERF_COUNT_SW_CPU_CLOCK &&
		    a->config != PERF_COUNT_SW_TASK_CLOCK && a->sample_period > 1)
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	}
	if (first) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->context_switch = o->off_cpu;
		/* as perf record --call-graph dwarf: the unwinder of perf
		 * script/report finds a module's .eh_frame_hdr through the
		 * mapping of its read-only segment, which the kernel reports
		 * only with mmap_data; without it perf shows the leaf alone */
		a->mmap_data = o->callgraph == COLLECT_CG_DWARF || o->data_addr || o->mem;
	}
	if (o->data_addr || o->mem)
		a->sample_type |= PERF_SAMPLE_ADDR;
	if (o->mem)
		a->sample_type |= PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
}

/*
 * Group modifiers after '}' for events [first, n): S makes the leader's
 * samples read the group (perf's leader sampling, configured as perf's
 * evsel__config does), u / k restrict every member.
 */
static int group_mods(const char *mods, size_t len, struct collect_event *ev, size_t first,
		      size_t n, char **cause)
{
	bool S = false, u = false, k = false;

	for (size_t i = 0; i < len; i++) {
		switch (mods[i]) {
		case 'S': S = true; break;
		case 'u': u = true; break;
		case 'k': k = true; break;
		default:
			return gx_fail(cause, GX_E_EVENT,
				       "unknown group modifier '%.*s' (S, u and k are known)",
				       (int)len, mods);
		}
	}
	if (len >= sizeof(ev[first].group_mods))
		return gx_fail(cause, GX_E_EVENT, "too many group modifiers '%.*s'", (int)len, mods);
	for (size_t i = first; i < n; i++) {
		struct perf_event_attr *a = &ev[i].attr;

		memcpy(ev[i].group_mods, mods, len);
		ev[i].group_mods[len] = '\0';
		if (u && !k)
			a->exclude_kernel = a->exclude_hv = 1;
		if (k && !u)
			a->exclude_user = a->exclude_hv = 1;
		if (!S)
			continue;
		ev[i].leader_sampling = true;
		a->sample_type |= PERF_SAMPLE_READ;
		a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_GROUP;
		if (!ev[i].leader) {
			a->freq = 0;
			a->sample_freq = 0;	/* sample_period shares the union */
		}
	}
	return 0;
}

void collect_events__free(struct collect_event *ev, size_t nr)
{
	if (!ev)
		return;
	for (size_t i = 0; i < nr; i++) {
		free(ev[i].name);
		free(ev[i].ids);
		free(ev[i].cpus);
	}
	free(ev);
}

int collect_parse_events(const char *spec, const struct collect_opts *o,
			 struct collect_event **out, size_t *nr, char **cause)
{
	struct collect_event *ev = NULL;
	size_t n = 0, cap = 0;
	const char *p = spec;
	int group = -1, ngroups = 0, err = 0;
	bool group_open = false, groups = false;
	size_t group_first = 0;

	static const struct collect_opts dflt = { .rate = 1.0 };

	if (!o)
		o = &dflt;
	*out = NULL;
	*nr = 0;
	if (!spec || !*spec)
		return gx_fail(cause, GX_E_EVENT, "empty event list");
	/* two or more groups: a '{' after the first ('{' is in no event name) */
	groups = strchr(spec, '{') && strchr(strchr(spec, '{') + 1, '{');
	while (*p) {
		const char *start;
		bool in_slash = false;
		uint64_t sav = SAV_PMU;
		char *tok;
		struct collect_event *e;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '{') {
			if (group_open) {
				err = gx_fail(cause, GX_E_EVENT, "nested '{' in the event list '%s'", spec);
				goto out_free;
			}
			group_open = true;
			group = ngroups++;
			group_first = n;
			p++;
			while (isspace((unsigned char)*p))
				p++;
		}
		start = p;
		while (*p && (in_slash || (*p != ',' && *p != '}'))) {
			if (*p == '/')
				in_slash = !in_slash;
			p++;
		}
		tok = xstrndup(start, (size_t)(p - start));
		while (*tok && isspace((unsigned char)tok[strlen(tok) - 1]))
			tok[strlen(tok) - 1] = '\0';
		ev = xgrow(ev, &cap, n + 1, sizeof(*ev));
		e = &ev[n++];
		memset(e, 0, sizeof(*e));
		e->name = tok;
		e->group = group_open ? group : -1;
		e->leader = group_open && (n == 1 || ev[n - 2].group != group);
		err = parse_one(tok, e, &sav, cause);
		if (err)
			goto out_free;
		if (groups && e->group >= 0 && sav == SAV_CLOCK)
			sav = SAV_CLOCK_GROUPS;
		config_attr(e, sav, n == 1, o);
		if (*p == '}') {
			if (!group_open) {
				err = gx_fail(cause, GX_E_EVENT, "unbalanced '}' in the event list '%s'", spec);
				goto out_free;
			}
			group_open = false;
			p++;
			if (*p == ':') {
				size_t ml = strcspn(++p, ", \t");

				err = group_mods(p, ml, ev, group_first, n, cause);
				if (err)
					goto out_free;
				p += ml;
			}
		}
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',')
			p++;
		else if (*p) {
			err = gx_fail(cause, GX_E_EVENT, "unexpected '%c' in the event list '%s'", *p, spec);
			goto out_free;
		}
	}
	if (group_open) {
		err = gx_fail(cause, GX_E_EVENT, "missing '}' in the event list '%s'", spec);
		goto out_free;
	}
	if (o->branch_sample_type && !branch_stacks_in(ev, n)) {
		err = gx_fail(cause, GX_E_NOPMU, "branch stacks (-b, --branch-filter) come with a "
			      "hardware event's samples (cycles, instructions): '%s' has none (without "
			      "-e: this machine has no PMU to sample)", spec);
		goto out_free;
	}
	collect_events__hybrid(&ev, &n);
	*out = ev;
	*nr = n;
	return 0;
out_free:
	collect_events__free(ev, n);
	return err;
}

/*
 * Arm's PMU driver lists in its sysfs events/ directory exactly the common
 * architectural events the core implements (PMCEID0/1). Any other common
 * event opens and counts 0, which must not be taken for a measurement.
 */
static bool arm_lists_event(const char *dir, uint64_t config)
{
	char *path = xasprintf("%s/events", dir);
	DIR *d = opendir(path);
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d))) {
		char *f, *text;
		unsigned long long v;

		if (de->d_name[0] == '.')
			continue;
		f = xasprintf("%s/%s", path, de->d_name);
		text = gx_read_file(f, 256);
		free(f);
		found = text && sscanf(text, "event=%llx", &v) == 1 && v == config;
		free(text);
	}
	if (d)
		closedir(d);
	free(path);
	return found;
}

bool collect_pmu_lacks_event(const struct perf_event_attr *a)
{
	const char *root = getenv("GX_SYSFS") ? getenv("GX_SYSFS") : "/sys";
	uint64_t ev = a->config & 0xffff;
	char *devs = xasprintf("%s/bus/event_source/devices", root);
	DIR *d = NULL;
	struct dirent *de;
	bool lacks = false;

	/* an armv8 PMU's own event: raw or of its dynamic type (a software
	 * event, cpu-clock, went through the directory for nothing); common
	 * events only: 0x00-0x3f and the extended 0x4000-0x403f */
	if ((a->type < PERF_TYPE_MAX && a->type != PERF_TYPE_RAW) ||
	    !(ev < 0x40 || (ev >= 0x4000 && ev < 0x4040)) || a->config >> 16)
		goto out;
	d = opendir(devs);
	while (d && (de = readdir(d))) {
		char *dir, *path, *text;
		unsigned long type;

		if (strncmp(de->d_name, "armv8_", 6) && strncmp(de->d_name, "armv9_", 6))
			continue;
		dir = xasprintf("%s/%s", devs, de->d_name);
		path = xasprintf("%s/type", dir);
		text = gx_read_file(path, 32);
		free(path);
		type = text ? strtoul(text, NULL, 10) : ~0UL;
		free(text);
		if (type == a->type || (a->type == PERF_TYPE_RAW && type != ~0UL)) {
			char *events = xasprintf("%s/events", dir);
			DIR *e = opendir(events);

			if (e) {	/* no events/ dir: nothing to go by */
				closedir(e);
				lacks = !arm_lists_event(dir, ev);
			}
			free(events);
			free(dir);
			break;
		}
		free(dir);
	}
out:
	if (d)
		closedir(d);
	free(devs);
	return lacks;
}

/* ---- branch stacks (issue 42) ------------------------------------------------ */

static const struct {
	const char *name;
	uint64_t bit;
} branch_modes[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER },
	{ "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV },
	{ "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "hw_index", PERF_SAMPLE_BRANCH_HW_INDEX },
	{ "no_flags", PERF_SAMPLE_BRANCH_NO_FLAGS },
	{ "no_cycles", PERF_SAMPLE_BRANCH_NO_CYCLES },
};

int collect_branch_filter(const char *spec, uint64_t *bits, char **cause)
{
	const uint64_t levels = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL |
				PERF_SAMPLE_BRANCH_HV;
	char *copy = xstrdup(spec ? spec : ""), *save = NULL;
	uint64_t v = 0;
	int err = 0;

	for (char *w = strtok_r(copy, ",", &save); w && !err; w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < ARRAY_SIZE(branch_modes) && strcmp(branch_modes[i].name, w))
			i++;
		if (i == ARRAY_SIZE(branch_modes))
			err = gx_fail(cause, GX_E_USAGE, "'%s' is no branch filter (any, any_call, "
				      "any_ret, ind_call, ind_jmp, call, cond, u, k, hv, ...)", w);
		else
			v |= branch_modes[i].bit;
	}
	free(copy);
	if (err)
		return err;
	if (!v)
		return gx_fail(cause, GX_E_USAGE, "an empty branch filter");
	if (!(v & ~levels))
		v |= PERF_SAMPLE_BRANCH_ANY;
	*bits = v;
	return 0;
}
