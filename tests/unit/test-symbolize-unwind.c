/*
 * test-symbolize-unwind: DWARF unwinding of a copied stack, as for a
 * --call-graph dwarf sample. Built -O2 -fomit-frame-pointer: the chain
 * main -> f3 -> f2 -> f1 -> capture can only be found from .eh_frame.
 * capture() saves its registers (perf's PERF_REG_X86_* order) and a copy
 * of the stack above its SP; sym_unwind then walks that copy against this
 * process's own /proc/self/maps, and the frames must symbolize to
 * capture, f1, f2, f3, main in that order.
 */
#include "config.h"

#include "symbolize/symbolize.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define STACK_MAX (16 * 1024)

struct map {
	uint64_t start, end, pgoff;
	struct sym_dso *dso;
};

static struct map maps[512];
static size_t nr_maps;
/* every mapping's range: the stack copy ends where sp's mapping ends */
static uint64_t ranges[1024][2];
static size_t nr_ranges;

/* Filled by capture(). perf's order: AX BX CX DX SI DI BP SP IP ... R8..R15 */
static uint64_t regs[24];
static unsigned char stack_copy[STACK_MAX];
static uint64_t stack_size;
volatile int sink;

/*
 * Copy raw stack words. The stack holds AddressSanitizer's redzones, which
 * a perf-like copy reads on purpose: no instrumentation, no memcpy.
 */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint64_t sp, size_t n)
{
	const volatile uint64_t *src = (const volatile uint64_t *)(uintptr_t)sp;
	size_t i;

	for (i = 0; i < n / 8; i++) {
		uint64_t w = src[i];

		memcpy(stack_copy + 8 * i, &w, 8);
	}
}

__attribute__((noinline, noclone)) int capture(int x);
__attribute__((noinline, noclone)) int capture(int x)
{
	uint64_t *r = regs;
	uint64_t sp;

	__asm__ volatile(
		"movq %%rax, 0(%0)\n\t"
		"movq %%rbx, 8(%0)\n\t"
		"movq %%rcx, 16(%0)\n\t"
		"movq %%rdx, 24(%0)\n\t"
		"movq %%rsi, 32(%0)\n\t"
		"movq %%rdi, 40(%0)\n\t"
		"movq %%rbp, 48(%0)\n\t"
		"movq %%rsp, 56(%0)\n\t"
		"leaq 0(%%rip), %%rax\n\t"	/* an ip inside capture */
		"movq %%rax, 64(%0)\n\t"
		"movq %%r8, 128(%0)\n\t"
		"movq %%r9, 136(%0)\n\t"
		"movq %%r10, 144(%0)\n\t"
		"movq %%r11, 152(%0)\n\t"
		"movq %%r12, 160(%0)\n\t"
		"movq %%r13, 168(%0)\n\t"
		"movq %%r14, 176(%0)\n\t"
		"movq %%r15, 184(%0)\n\t"
		: : "r"(r) : "rax", "memory");
	sp = regs[7];
	stack_size = 0;
	for (size_t i = 0; i < nr_ranges; i++)
		if (sp >= ranges[i][0] && sp < ranges[i][1])
			stack_size = ranges[i][1] - sp < STACK_MAX ? ranges[i][1] - sp : STACK_MAX;
	stack_size &= ~(uint64_t)7;
	copy_stack(sp, stack_size);
	return x + sink;
}

__attribute__((noinline, noclone)) int f1(int x);
__attribute__((noinline, noclone)) int f1(int x)
{
	return capture(x + 1) * 3 + sink;
}

__attribute__((noinline, noclone)) int f2(int x);
__attribute__((noinline, noclone)) int f2(int x)
{
	return f1(x * 5) * 7 + sink;
}

__attribute__((noinline, noclone)) int f3(int x);
__attribute__((noinline, noclone)) int f3(int x)
{
	return f2(x - 2) * 11 + sink;
}

static int read_maps(struct sym_session *s)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && nr_maps < ARRAY_SIZE(maps)) {
		unsigned long long start, end, pgoff;
		char perms[8], path[4096] = "";
		int n;

		n = sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &pgoff,
			   path);
		if (n < 4)
			continue;
		if (nr_ranges < ARRAY_SIZE(ranges)) {
			ranges[nr_ranges][0] = start;
			ranges[nr_ranges++][1] = end;
		}
		if (path[0] != '/')
			continue;
		maps[nr_maps].start = start;
		maps[nr_maps].end = end;
		maps[nr_maps].pgoff = pgoff;
		maps[nr_maps].dso = sym_session__dso(s, path, NULL, 0);
		nr_maps++;
	}
	fclose(f);
	return nr_ranges ? 0 : -1;
}

static int find_map(void *ctx, uint64_t addr, struct sym_dso **dso, uint64_t *start,
		    uint64_t *len, uint64_t *pgoff)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < nr_maps; i++) {
		if (addr >= maps[i].start && addr < maps[i].end) {
			*dso = maps[i].dso;
			*start = maps[i].start;
			*len = maps[i].end - maps[i].start;
			*pgoff = maps[i].pgoff;
			return 0;
		}
	}
	return -1;
}

static const char *name_of(struct sym_session *s, uint64_t ip)
{
	struct sym_dso *dso;
	uint64_t start, len, pgoff;

	if (find_map(NULL, ip, &dso, &start, &len, &pgoff))
		return "(unmapped)";
	return sym_session__str(s, sym_session__lookup(s, dso, sym_map_offset(ip, start, pgoff))->symbol);
}

int main(void)
{
	static const char *const want[] = { "capture", "f1", "f2", "f3", "main" };
	struct sym_unwind_input in = { 0 };
	struct sym_session *s;
	struct sym_stats st;
	uint64_t ips[64], user_regs[24];
	char *cause = NULL;
	size_t nr = 0, i, k;
	int err;

#if !defined(__x86_64__)
	plan_skip_all("x86-64 only");
#endif
	sym_session__new(&s, NULL, NULL);
	if (read_maps(s))
		plan_skip_all("cannot read /proc/self/maps");
	sink = f3(4) > 0 ? 0 : 0;

	in.abi = SYM_REGS_ABI_64;
	/* all of perf's user registers except DS/ES/FS/GS and FLAGS/CS/SS */
	in.regs_mask = 0;
	for (i = 0, k = 0; i < 24; i++) {
		if ((i >= SYM_X86_FLAGS && i <= SYM_X86_GS))
			continue;
		in.regs_mask |= 1ull << i;
		user_regs[k++] = regs[i];
	}
	in.regs = user_regs;
	in.stack = stack_copy;
	in.stack_size = stack_size;
	in.find_map = find_map;

	if (!stack_size)
		plan_skip_all("the stack pointer is in no mapping of /proc/self/maps");
	err = sym_unwind(s, &in, ips, ARRAY_SIZE(ips), &nr, &cause);
#ifndef HAVE_LIBUNWIND
	is_int(err, GX_E_NOTSUP, "without libunwind: GX_E_NOTSUP");
	ok(cause && strstr(cause, "libunwind"), "... and the cause names libunwind");
	free(cause);
	sym_session__delete(s);
	return done_testing();
#endif
	is_int(err, 0, "sym_unwind: %s", cause ? cause : "ok");
	ok(nr >= ARRAY_SIZE(want), "at least %zu frames (got %zu)", ARRAY_SIZE(want), nr);
	for (i = 0; i < nr; i++)
		diag("frame %zu: %#llx %s", i, (unsigned long long)ips[i],
		     name_of(s, i ? ips[i] - 1 : ips[i]));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		is_str(i < nr ? name_of(s, i ? ips[i] - 1 : ips[i]) : NULL, want[i], "frame %zu", i);

	sym_session__stats(s, &st);
	is_int(st.unwinds, 1, "stats count the unwind");

	/* too few registers: an error, not a crash */
	in.regs_mask = 1ull << SYM_X86_IP;
	is_int(sym_unwind(s, &in, ips, ARRAY_SIZE(ips), &nr, &cause), -EINVAL,
	       "missing SP/BP is -EINVAL");
	in.regs_mask = SYM_X86_64_REGS_MIN;
	in.abi = SYM_REGS_ABI_32;
	is_int(sym_unwind(s, &in, ips, ARRAY_SIZE(ips), &nr, &cause), GX_E_NOTSUP,
	       "32-bit ABI is not supported");

	/* a stack copy cut short: the chain stops, nothing crashes */
	in.abi = SYM_REGS_ABI_64;
	in.regs_mask = 0;
	for (i = 0, k = 0; i < 24; i++) {
		if ((i >= SYM_X86_FLAGS && i <= SYM_X86_GS))
			continue;
		in.regs_mask |= 1ull << i;
	}
	in.stack_size = 16;
	is_int(sym_unwind(s, &in, ips, ARRAY_SIZE(ips), &nr, &cause), 0, "short stack: ok");
	ok(nr >= 1 && nr < ARRAY_SIZE(want) + 3, "short stack: a short chain (%zu)", nr);

	/* garbage on the stack and in the ip: bounded, no crash */
	{
		uint64_t x = 88172645463325252ull;

		for (i = 0; i < sizeof(stack_copy) / 8; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(stack_copy + 8 * i, &x, 8);
		}
		in.stack_size = sizeof(stack_copy);
		is_int(sym_unwind(s, &in, ips, ARRAY_SIZE(ips), &nr, &cause), 0, "random stack: ok");
		ok(nr >= 1 && nr <= ARRAY_SIZE(ips), "random stack: %zu frames", nr);
		user_regs[SYM_X86_IP] = 0x10;	/* regs[] holds IP at index 8 here too */
		is_int(sym_unwind(s, &in, ips, ARRAY_SIZE(ips), &nr, &cause), 0, "unmapped ip: ok");
		/* libunwind may still guess a frame or two through rbp */
		ok(nr >= 1 && nr < ARRAY_SIZE(ips), "unmapped ip: a short chain (%zu)", nr);
	}
	free(cause);
	sym_session__delete(s);
	return done_testing();
}
