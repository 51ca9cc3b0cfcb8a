/*
 * detect.c: which model fits this CPU, by CPUID (x86) or MIDR (Arm), on
 * our own match rules rather than libpfm4's detection (which misses some
 * Zen 4 models and every Zen 5 in 4.13). And whether SMT is active.
 */
#include "config.h"

#include "topdown-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void td_cpu_from_cpuid(struct td_cpu *cpu, const char *vendor, uint32_t eax)
{
	unsigned fam = (eax >> 8) & 0xf, mod = (eax >> 4) & 0xf;

	memset(cpu, 0, sizeof(*cpu));
	snprintf(cpu->vendor, sizeof(cpu->vendor), "%s", vendor);
	/* the extended fields count only for families 6 and 15 (SDM / APM rules) */
	if (fam == 0xf)
		fam += (eax >> 20) & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		mod |= ((eax >> 16) & 0xf) << 4;
	cpu->arch = TD_CPU_X86;
	cpu->family = fam;
	cpu->model = mod;
}

void td_cpu_from_midr(struct td_cpu *cpu, uint64_t midr)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->arch = TD_CPU_ARM;
	cpu->implementer = (unsigned)((midr >> 24) & 0xff);
	cpu->part = (unsigned)((midr >> 4) & 0xfff);
	cpu->variant = (unsigned)((midr >> 20) & 0xf);
	cpu->revision = (unsigned)(midr & 0xf);
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static void detect_x86(struct td_cpu *cpu)
{
	unsigned a, b, c, d;
	char vendor[13];

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	td_cpu_from_cpuid(cpu, vendor, a);
}
#endif

/* "CPU implementer : 0x41" style lines of /proc/cpuinfo. */
static bool cpuinfo_field(const char *text, const char *key, unsigned *out)
{
	const char *p = strstr(text, key);

	if (!p)
		return false;
	p = strchr(p, ':');
	if (!p)
		return false;
	*out = (unsigned)strtoul(p + 1, NULL, 0);
	return true;
}

int td_cpu_from_cpuinfo(struct td_cpu *cpu, const char *text)
{
	memset(cpu, 0, sizeof(*cpu));
	if (!cpuinfo_field(text, "CPU implementer", &cpu->implementer) ||
	    !cpuinfo_field(text, "CPU part", &cpu->part))
		return -ENOENT;
	cpuinfo_field(text, "CPU variant", &cpu->variant);
	cpuinfo_field(text, "CPU revision", &cpu->revision);
	cpu->arch = TD_CPU_ARM;
	return 0;
}

static void detect_arm(struct td_cpu *cpu)
{
	char *s = gx_read_file("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", 4096);

	if (s) {
		td_cpu_from_midr(cpu, strtoull(s, NULL, 0));
		free(s);
		return;
	}
	s = gx_read_file("/proc/cpuinfo", 1 << 20);
	if (s)
		td_cpu_from_cpuinfo(cpu, s);
	free(s);
}

void td_cpu_detect(struct td_cpu *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
#if defined(__x86_64__) || defined(__i386__)
	detect_x86(cpu);
#else
	detect_arm(cpu);
#endif
	(void)detect_arm;
}

static bool rule_matches(const struct td_match *r, const struct td_cpu *cpu)
{
	if (r->arm) {
		if (cpu->arch != TD_CPU_ARM || cpu->implementer != r->implementer)
			return false;
		for (size_t i = 0; i < r->nr_parts; i++)
			if (r->parts[i] == cpu->part)
				return true;
		return r->nr_parts == 0;
	}
	if (cpu->arch != TD_CPU_X86 || strcmp(r->vendor, cpu->vendor) != 0 ||
	    r->family != cpu->family)
		return false;
	for (size_t i = 0; i < r->nr_models; i++)
		if (r->models[i] == cpu->model)
			return true;
	return r->nr_models == 0;
}

/* Whether a model's text may hold a rule for this CPU, before it is
 * parsed: the vendor's name (or an Arm implementer) in it, and for x86 a
 * "family" whose number is this CPU's or is not a plain decimal. */
static bool may_match(const char *text, const struct td_cpu *cpu)
{
	const char *p = text;

	if (cpu->arch == TD_CPU_ARM)
		return strstr(text, "\"implementer\"") != NULL;
	if (cpu->arch != TD_CPU_X86 || !strstr(text, cpu->vendor))
		return false;	/* no rule can match (rule_matches) */
	while ((p = strstr(p, "\"family\""))) {
		char *end;
		unsigned long f;

		p += strlen("\"family\"");
		p += strspn(p, " \t\r\n");
		if (*p != ':')
			continue;
		p += 1 + strspn(p + 1, " \t\r\n");
		if (*p < '0' || *p > '9')
			return true;	/* another spelling: the parser decides */
		f = strtoul(p, &end, 10);
		if (f == cpu->family || (*end && strchr("xX.eE", *end)))
			return true;
	}
	return false;
}

char *td_model_match(const struct td_cpu *cpu, const char *dir)
{
	char **ids = NULL, *found = NULL;

	if (!dir)
		dir = td_events_dir();
	if (td_model_list(dir, &ids, NULL) < 0)
		return xstrdup("generic");
	for (char **id = ids; *id && !found; id++) {
		char *path = xasprintf("%s/%s.json", dir, *id);
		char *text = gx_read_file(path, 4 << 20);
		struct td_model *m;

		/* only the rules: every model loaded whole was most of what a
		 * record of /bin/true cost (issue 26, part 4); and only of the
		 * files that may hold a rule for this CPU */
		if (text && may_match(text, cpu) && td_model__load_rules(text, path, &m) == 0) {
			for (size_t i = 0; i < m->nr_match && !found; i++)
				if (rule_matches(&m->match[i], cpu))
					found = xstrdup(m->id);
			td_model__delete(m);
		}
		free(text);
		free(path);
	}
	td_strv_free(ids);
	return found ? found : xstrdup("generic");
}

const char *td_model__cpu_variant(const struct td_model *m, const struct td_cpu *cpu)
{
	const char *best = NULL;
	unsigned have = cpu->variant << 4 | cpu->revision, best_from = 0;

	if (cpu->arch != TD_CPU_ARM)
		return NULL;
	for (size_t i = 0; i < m->nr_rev; i++)
		if (m->rev_from[i] <= have && (!best || m->rev_from[i] >= best_from))
			best = m->rev_variant[i], best_from = m->rev_from[i];
	return best;
}

char *td_detect_model(void)
{
	struct td_cpu cpu;

	td_cpu_detect(&cpu);
	return td_model_match(&cpu, NULL);
}

enum td_smt td_smt_detect(void)
{
	const char *root = getenv("GX_SYSFS") ? getenv("GX_SYSFS") : "/sys";
	char *path = xasprintf("%s/devices/system/cpu/smt/active", root);
	char *s = gx_read_file(path, 64);
	enum td_smt r = TD_SMT_UNKNOWN;

	free(path);

	if (s) {
		if (s[0] == '1')
			r = TD_SMT_ON;
		else if (s[0] == '0')
			r = TD_SMT_OFF;
		free(s);
	}
	return r;
}
