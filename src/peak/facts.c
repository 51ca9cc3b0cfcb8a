/*
 * Documented latency and throughput of a few instructions per CPU family
 * (vendor optimisation manuals, uops.info, Agner Fog's tables), so that
 * tests and users can see whether a measurement is sane. Only families
 * whose figures we are sure of are listed; elsewhere peak_expected() says
 * "unknown" and the sanity test skips.
 */
#include "config.h"

#include "peak-int.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

enum fam { F_NONE, F_ZEN3, F_ZEN4, F_ZEN5, F_SKL, F_ICL };
static const char *const fam_name[] = { "", "Zen 3", "Zen 4", "Zen 5", "Skylake", "Ice Lake" };

struct fact {
	unsigned fams;		/* bit per enum fam */
	const char *insn;
	double lat, ipc;	/* 0 = not documented */
};
#define B(f) (1u << (f))
#define ZEN (B(F_ZEN3) | B(F_ZEN4))
#define INTEL (B(F_SKL) | B(F_ICL))
#define ALL (ZEN | INTEL)

static const struct fact facts[] = {
	{ ALL, "int.add", 1, 4 },
	/* Zen 5: six ALUs; of its other figures only this one is listed yet. */
	{ B(F_ZEN5), "int.add", 1, 6 },
	{ ALL, "int.imul", 3, 1 },
	/* Zen: FADD and FMUL latency 3 on two pipes each; Intel: 4 on p0/p1. */
	{ ZEN, "add.f32.s", 3, 2 },
	{ INTEL, "add.f32.s", 4, 2 },
	{ ZEN, "add.f32.128", 3, 2 },
	{ INTEL, "add.f32.128", 4, 2 },
	{ ZEN, "add.f32.256", 3, 2 },
	{ INTEL, "add.f32.256", 4, 2 },
	{ ZEN, "add.f64.s", 3, 2 },
	{ INTEL, "add.f64.s", 4, 2 },
	{ ZEN, "add.f64.128", 3, 2 },
	{ INTEL, "add.f64.128", 4, 2 },
	{ ZEN, "add.f64.256", 3, 2 },
	{ INTEL, "add.f64.256", 4, 2 },
	{ ZEN, "mul.f32.s", 3, 2 },
	{ INTEL, "mul.f32.s", 4, 2 },
	{ ZEN, "mul.f32.128", 3, 2 },
	{ INTEL, "mul.f32.128", 4, 2 },
	{ ZEN, "mul.f32.256", 3, 2 },
	{ INTEL, "mul.f32.256", 4, 2 },
	{ ZEN, "mul.f64.s", 3, 2 },
	{ INTEL, "mul.f64.s", 4, 2 },
	{ ZEN, "mul.f64.128", 3, 2 },
	{ INTEL, "mul.f64.128", 4, 2 },
	{ ZEN, "mul.f64.256", 3, 2 },
	{ INTEL, "mul.f64.256", 4, 2 },
	{ ALL, "fma.f32.s", 4, 2 },
	{ ALL, "fma.f32.128", 4, 2 },
	{ ALL, "fma.f32.256", 4, 2 },
	{ ALL, "fma.f64.s", 4, 2 },
	{ ALL, "fma.f64.128", 4, 2 },
	{ ALL, "fma.f64.256", 4, 2 },
	/* Zen 4 runs 512-bit operations as two 256-bit halves. */
	{ B(F_ZEN4), "add.f32.512", 3, 1 },
	{ B(F_ZEN4), "add.f64.512", 3, 1 },
	{ B(F_ZEN4), "mul.f32.512", 3, 1 },
	{ B(F_ZEN4), "mul.f64.512", 3, 1 },
	{ B(F_ZEN4), "fma.f32.512", 4, 1 },
	{ B(F_ZEN4), "fma.f64.512", 4, 1 },
	/* Load-to-use latency of a pointer chase hitting L1. */
	{ ZEN, "load.gpr", 4, 3 },
	{ INTEL, "load.gpr", 4, 2 },
};

static enum fam host_family(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d, base, fam, model;
	char vendor[13];

	if (__get_cpuid_max(0, NULL) < 1)
		return F_NONE;
	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	__cpuid(1, a, b, c, d);
	base = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	fam = base == 0xf ? base + ((a >> 20) & 0xff) : base;
	if (base == 0xf || base == 6)
		model |= ((a >> 16) & 0xf) << 4;
	if (!strcmp(vendor, "AuthenticAMD") && fam == 0x19) {
		if (model <= 0x0f || (model >= 0x20 && model <= 0x5f))
			return F_ZEN3;
		return F_ZEN4;	/* 0x10-0x1f, 0x60-0x7f, 0xa0-0xaf */
	}
	if (!strcmp(vendor, "AuthenticAMD") && fam == 0x1a &&
	    (model <= 0x2f || (model >= 0x40 && model <= 0x4f) || (model >= 0x60 && model <= 0x7f)))
		return F_ZEN5;
	if (!strcmp(vendor, "GenuineIntel") && fam == 6) {
		switch (model) {
		case 0x4e: case 0x5e: case 0x8e: case 0x9e: case 0x55: case 0xa5: case 0xa6:
			return F_SKL;
		case 0x7d: case 0x7e: case 0x6a: case 0x6c: case 0x8c: case 0x8d:
			return F_ICL;
		}
	}
#endif
	return F_NONE;
}

bool peak_expected(const char *insn_name, const char **family, double *lat, double *ipc)
{
	enum fam f = host_family();

	*family = fam_name[f];
	*lat = *ipc = 0;
	if (f == F_NONE)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(facts); i++)
		if ((facts[i].fams & B(f)) && !strcmp(facts[i].insn, insn_name)) {
			*lat = facts[i].lat;
			*ipc = facts[i].ipc;
			return true;
		}
	return false;
}

char *pk_limit_text(const struct peak_insn *in, const char *family, double ipc)
{
	double got, ref;

	if (!in->ref_insn || !(in->tput.min > 0) || !(in->ref.min > 0) || !(ipc > 0))
		return NULL;
	got = 1 / in->tput.min;
	ref = 1 / in->ref.min;
	if (got >= 0.98 * ipc)
		return NULL;
	if (ref >= 0.98 * ipc)
		return xasprintf("%s: %.2f a cycle of the %g documented (%s); %s, which reads no "
				 "register, runs %.2f a cycle on the same units: they are all there "
				 "and the front end feeds them; what falls short is issuing %g a cycle "
				 "of operations that read registers", in->name, got, ipc,
				 family, in->ref_insn, ref, ipc);
	return xasprintf("%s: %.2f a cycle of the %g documented (%s); %s, which reads no "
			 "register, falls short too (%.2f a cycle): something else takes the "
			 "units' slots (another thread on the core, the host)", in->name, got, ipc,
			 family, in->ref_insn, ref);
}

char *peak_limit(const struct peak_insn *in)
{
	const char *fam;
	double lat, ipc;

	if (!peak_expected(in->name, &fam, &lat, &ipc))
		return NULL;
	return pk_limit_text(in, fam, ipc);
}
