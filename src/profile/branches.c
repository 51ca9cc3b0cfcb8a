/*
 * branches.c: the branch stacks of a recording's samples (LBR, BRBE,
 * BRS, ETM's synthesised ones) into src/flow's range and branch counts,
 * each address as its module's own (what objdump prints). A speculative
 * wrong-path entry (AMD's spec field) is no part of the path the program
 * ran: left out. Kernel addresses have no module here: their spans are
 * not counted.
 */
#include "config.h"

#include "profile.h"

#include <elf.h>
#include <string.h>
#include <sys/utsname.h>

#include "flow/flow.h"
#include "profile-int.h"
#include "symbolize/symbolize.h"
#include "util/util.h"

#define MAX_ENTRIES 256
#define BR_SPEC_WRONG_PATH 1	/* PERF_BR_SPEC_WRONG_PATH */
#define MAX_BLOCK_BYTES 4096	/* a longer block's instructions are not counted */

/* addr in proc as (module, the module's own address); FLOW_NO_MODULE
 * where no file maps it. */
static uint32_t map_addr(struct profile *p, const struct mproc *proc, uint64_t addr,
			 uint64_t *out)
{
	const struct mmap_ent *e = proc ? mproc__find_map(proc, addr) : NULL;
	uint64_t off;

	*out = addr;
	if (!e || !e->dso)
		return FLOW_NO_MODULE;
	off = sym_map_offset(addr, e->start, e->pgoff);
	if (sym_dso__open(e->dso) || !sym_dso__offset_to_addr(e->dso, off, out))
		*out = off;
	*u64map__findnew(&p->flow_dso, e->module, 0) = (uint64_t)(uintptr_t)e->dso;
	return e->module;
}

void profile__branches(struct profile *p, const struct pd_sample *s)
{
	struct flow_entry v[MAX_ENTRIES];
	const uint64_t *pi;
	const struct mproc *proc;
	size_t n = 0;

	if (!s->nr_branches || !s->branches)
		return;
	pi = u64map__find(&p->machine.proc_idx, s->pid);
	proc = pi ? &p->machine.procs[*pi] : NULL;
	if (!p->flow) {
		p->flow = flow_stacks__new();
		u64map__init(&p->flow_dso);
	}
	for (uint64_t i = 0; i < s->nr_branches && n < MAX_ENTRIES; i++) {
		uint64_t raw[3], flags;

		memcpy(raw, &s->branches[i], sizeof(raw));	/* from, to, flags */
		flags = raw[2];
		if (((flags >> 24) & 3) == BR_SPEC_WRONG_PATH) {
			p->flow_wrong_path++;
			continue;
		}
		v[n].mod_from = map_addr(p, proc, raw[0], &v[n].from);
		v[n].mod_to = map_addr(p, proc, raw[1], &v[n].to);
		v[n].mispred = flags & 1;
		v[n].cycles = (uint16_t)(flags >> 4);
		n++;
	}
	flow_stacks__add(p->flow, v, n);
}

const struct flow_stacks *profile__branch_stacks(const struct profile *p, uint64_t *wrong_path)
{
	*wrong_path = p->flow_wrong_path;
	return p->flow;
}

const char *profile__string(const struct profile *p, uint32_t id)
{
	return id < p->machine.strs.nr ? strtab__str(&p->machine.strs, id) : "[unknown]";
}

/* Whether the recording's code is x86's (its env, else this machine's). */
static bool x86(const struct profile *p)
{
	struct utsname u;
	const char *arch = p->env ? p->env->arch : NULL;

	if (!arch && !uname(&u))
		return !strcmp(u.machine, "x86_64");
	return arch && (!strcmp(arch, "x86_64") || !strcmp(arch, "x86") || !strcmp(arch, "i686"));
}

/* The machine of the recording's code, as an ELF e_machine (0: neither). */
static int machine(const struct profile *p)
{
	const char *arch = p->env ? p->env->arch : NULL;

	if (x86(p))
		return EM_X86_64;
	return arch && !strcmp(arch, "aarch64") ? EM_AARCH64 : 0;
}

uint64_t profile__block_insns(const struct profile *p, uint32_t module, uint64_t start,
			      uint64_t end)
{
	const uint64_t *d = u64map__find(&p->flow_dso, module);
	uint8_t code[MAX_BLOCK_BYTES + 16];
	size_t len = end - start + 1;
	int em = machine(p);

	if (!d || !em || end < start || end - start >= MAX_BLOCK_BYTES)
		return 0;
	/* the last instruction whole: up to 15 bytes past its start, fewer
	 * where the file's bytes end */
	for (size_t more = 15; ; more = more > 1 ? more / 2 : 0) {
		if (sym_dso__read_vaddr((const struct sym_dso *)(uintptr_t)*d, start, code,
					len + more))
			return flow_count_insns(em, code, len + more, start, end);
		if (!more)
			return 0;
	}
}

size_t profile__branch_insn(void *ctx, uint32_t module, uint64_t addr, enum flow_kind *kind)
{
	const struct profile *p = ctx;
	const uint64_t *d = u64map__find(&p->flow_dso, module);
	uint8_t code[16];

	*kind = FLOW_PLAIN;
	if (!d || !x86(p))
		return 0;
	for (size_t n = sizeof(code); n >= 2; n /= 2)
		if (sym_dso__read_vaddr((const struct sym_dso *)(uintptr_t)*d, addr, code, n))
			return flow_x86_branch_len(code, n, kind);
	return 0;
}
