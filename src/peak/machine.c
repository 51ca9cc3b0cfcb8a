/*
 * What this machine is: instruction sets usable by this process (CPUID and
 * XGETBV on x86-64, HWCAP on aarch64), caches and topology from sysfs, the
 * CPUs we may run on (physical cores first), hypervisor and cpufreq state.
 */
#include "config.h"

#include "peak-int.h"

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static unsigned isa_detect_hw(int *sve_bits)
{
	unsigned a, b, c, d, isa = PK_BASE | PK_SSE2;
	unsigned max = __get_cpuid_max(0, NULL);
	uint64_t xcr0 = 0;
	bool osxsave;

	*sve_bits = 0;
	if (max < 1)
		return isa;
	__cpuid(1, a, b, c, d);
	osxsave = c & (1u << 27);
	if (osxsave)
		xcr0 = xgetbv0();
	/* The OS must save xmm and ymm state (XCR0 bits 1, 2) for any VEX code. */
	if ((c & (1u << 28)) && osxsave && (xcr0 & 0x6) == 0x6) {
		isa |= PK_AVX;
		if (c & (1u << 12))
			isa |= PK_FMA;
	}
	if (max >= 7 && (isa & PK_AVX)) {
		__cpuid_count(7, 0, a, b, c, d);
		if (b & (1u << 5))
			isa |= PK_AVX2;
		/* AVX-512 also needs opmask, ZMM_Hi256 and Hi16_ZMM state (0xE6). */
		if ((b & (1u << 16)) && (xcr0 & 0xE6) == 0xE6) {
			isa |= PK_AVX512F;
			if (b & (1u << 30))
				isa |= PK_AVX512BW;
			if (c & (1u << 11))
				isa |= PK_AVX512VNNI;
		}
	}
	return isa;
}

bool pk_cpuid_hypervisor(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 1)
		return false;
	__cpuid(1, a, b, c, d);
	return c & (1u << 31);
}

#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1 << 22)
#endif
uint64_t gx_pk_sve_vl_bytes(void);

static unsigned isa_detect_hw(int *sve_bits)
{
	unsigned long hw = getauxval(AT_HWCAP);
	unsigned isa = PK_BASE;

	*sve_bits = 0;
	if (hw & HWCAP_ASIMD)
		isa |= PK_NEON;
	if (hw & HWCAP_SVE) {
		isa |= PK_SVE;
		*sve_bits = (int)gx_pk_sve_vl_bytes() * 8;
	}
	return isa;
}

bool pk_cpuid_hypervisor(void)
{
	return false;
}

#else
static unsigned isa_detect_hw(int *sve_bits)
{
	*sve_bits = 0;
	return PK_BASE;
}

bool pk_cpuid_hypervisor(void)
{
	return false;
}
#endif

static const struct { unsigned bit; const char *name; } isa_names[] = {
	{ PK_SSE2, "sse2" }, { PK_AVX, "avx" }, { PK_FMA, "fma" }, { PK_AVX2, "avx2" },
	{ PK_AVX512F, "avx512f" }, { PK_AVX512BW, "avx512bw" },
	{ PK_AVX512VNNI, "avx512vnni" }, { PK_NEON, "neon" }, { PK_SVE, "sve" },
};

/*
 * $GX_PEAK_DISABLE (comma-separated feature names, e.g. "avx512f,avx2")
 * hides features, as if the CPU lacked them: to compare code paths on one
 * machine, and to test that what is missing is listed as skipped. Features
 * that depend on a hidden one go too (AVX-512 BW and VNNI on AVX512F; FMA and
 * AVX2 on AVX).
 */
unsigned pk_isa_detect(int *sve_bits)
{
	unsigned isa = isa_detect_hw(sve_bits);
	const char *env = getenv("GX_PEAK_DISABLE");
	char *copy, *tok, *save = NULL;

	if (!env || !*env)
		return isa;
	copy = xstrdup(env);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < ARRAY_SIZE(isa_names); i++)
			if (!strcasecmp(tok, isa_names[i].name))
				isa &= ~isa_names[i].bit;
	free(copy);
	if (!(isa & PK_AVX))
		isa &= ~(PK_FMA | PK_AVX2 | PK_AVX512F);
	if (!(isa & PK_AVX512F))
		isa &= ~(PK_AVX512BW | PK_AVX512VNNI);
	if (!(isa & PK_SVE))
		*sve_bits = 0;
	return isa;
}

void pk_isa_names(unsigned isa, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(isa_names); i++) {
		if (!(isa & isa_names[i].bit))
			continue;
		int n = snprintf(buf + off, len - off, "%s%s", off ? " " : "", isa_names[i].name);

		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
}

/* "0-3,8" style list: is cpu in it? Also returns the first CPU listed. */
static bool cpulist_has(const char *s, int cpu, int *first)
{
	bool found = false;
	long lo, hi;

	*first = -1;
	while (gx_cpulist_next(&s, &lo, &hi)) {
		if (*first < 0)
			*first = (int)lo;
		if (cpu >= lo && cpu <= hi)
			found = true;
	}
	return found;
}

int *pk_cpu_order(int *n, int *cores)
{
	cpu_set_t set;
	int total = 0, k = 0, *out, *later;
	size_t nl = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		out = xmalloc(sizeof(*out));
		out[0] = 0;
		*n = *cores = 1;
		return out;
	}
	total = CPU_COUNT(&set);
	out = xcalloc((size_t)total, sizeof(*out));
	later = xcalloc((size_t)total, sizeof(*later));
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		char path[96], *sib;
		int first = cpu;

		if (!CPU_ISSET(cpu, &set))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
		sib = gx_read_file(path, 256);
		if (sib)
			cpulist_has(sib, cpu, &first);
		free(sib);
		/* The first sibling we may use stands for the core. */
		if (first == cpu || first < 0 || !CPU_ISSET(first, &set))
			out[k++] = cpu;
		else
			later[nl++] = cpu;
	}
	*cores = k;
	for (size_t i = 0; i < nl; i++)
		out[k++] = later[i];
	*n = k;
	free(later);
	return out;
}

int pk_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

static void cpu_model(char *buf, size_t len)
{
	char *text = gx_read_file("/proc/cpuinfo", 1 << 20), *line;
	unsigned impl = 0, part = 0;

	snprintf(buf, len, "unknown");
	if (!text)
		return;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "model name", 10)) {
			snprintf(buf, len, "%s", colon + 2);
			trim(buf);
			break;
		}
		if (!strncmp(line, "CPU implementer", 15))
			impl = (unsigned)strtoul(colon + 1, NULL, 0);
		if (!strncmp(line, "CPU part", 8)) {
			part = (unsigned)strtoul(colon + 1, NULL, 0);
			snprintf(buf, len, "implementer 0x%02x part 0x%03x", impl, part);
			break;
		}
	}
	free(text);
}

void peak_machine_detect(struct peak_machine *m)
{
	struct utsname u;
	int *cpus, n, cores;
	unsigned isa;
	char *s;

	memset(m, 0, sizeof(*m));
	if (gethostname(m->hostname, sizeof(m->hostname) - 1) != 0)
		snprintf(m->hostname, sizeof(m->hostname), "localhost");
	cpu_model(m->cpu, sizeof(m->cpu));
	if (uname(&u) == 0)
		snprintf(m->arch, sizeof(m->arch), "%.15s", u.machine);
	isa = pk_isa_detect(&m->sve_bits);
	pk_isa_names(isa, m->isa, sizeof(m->isa));
	cpus = pk_cpu_order(&n, &cores);
	m->logical_cpus = n;
	m->cores = cores;
	{
		struct gx_sysfs_cache sc[16];
		char dir[64];
		int nc;

		snprintf(dir, sizeof(dir), "/sys/devices/system/cpu/cpu%d/cache", cpus[0]);
		nc = gx_sysfs_caches(dir, sc, 16);
		for (int i = 0; i < nc && m->nr_caches < 8; i++) {
			struct peak_cache *c = &m->caches[m->nr_caches];

			if (!strcmp(sc[i].type, "Instruction") || !sc[i].size)
				continue;
			c->level = sc[i].level;
			snprintf(c->type, sizeof(c->type), "%s", sc[i].type);
			c->size = (size_t)sc[i].size;
			c->shared = sc[i].shared;
			m->nr_caches++;
		}
	}
	m->hypervisor = pk_cpuid_hypervisor();
	s = gx_read_file("/sys/hypervisor/type", 64);
	if (s) {
		m->hypervisor = true;
		free(s);
	}
	s = gx_read_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", 64);
	if (s) {
		snprintf(m->governor, sizeof(m->governor), "%s", s);
		trim(m->governor);
		free(s);
	}
	free(cpus);
}
