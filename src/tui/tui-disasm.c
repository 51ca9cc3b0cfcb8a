/*
 * tui-disasm.c: the instructions of a function with per-instruction
 * sample counts, for the disassembly view. The function's bytes come from
 * its ELF file (libelf), instructions from capstone, source lines from
 * src/symbolize, counts from the samples the model kept.
 *
 * libcapstone is opened (dlopen) the first time something is
 * disassembled, not linked: its 77,000 relocations were the larger part of
 * what loading gexplore cost every command, a record of /bin/true
 * included (issue 26, part 4).
 */
#include "config.h"

#include "tui-int.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#include <dlfcn.h>
#endif

#include "profile/profile.h"
#include "result/result.h"
#include "symbolize/symbolize.h"

#define MAX_FUNC_BYTES (256 * 1024)

#ifdef HAVE_CAPSTONE
#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)
/* The library of the headers this was built with (its soname). */
#define CS_SONAME "libcapstone.so." CS_STR(CS_API_MAJOR)

/* The capstone functions used here, from the library once it is open. */
static struct {
	int state;	/* 0: not tried, 1: open, -1: cannot be opened */
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
} cs;

static bool cs_load(void)
{
	void *h;

	if (cs.state)
		return cs.state > 0;
	cs.state = -1;
	h = dlopen(CS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	*(void **)&cs.open = dlsym(h, "cs_open");
	*(void **)&cs.option = dlsym(h, "cs_option");
	*(void **)&cs.malloc = dlsym(h, "cs_malloc");
	*(void **)&cs.disasm_iter = dlsym(h, "cs_disasm_iter");
	*(void **)&cs.free = dlsym(h, "cs_free");
	*(void **)&cs.close = dlsym(h, "cs_close");
	if (!cs.open || !cs.option || !cs.malloc || !cs.disasm_iter || !cs.free || !cs.close) {
		dlclose(h);
		return false;
	}
	cs.state = 1;
	return true;
}

/* Loads and direct branch targets from the operands. */
static void classify_x86(const cs_insn *in, struct tui_insn *x)
{
	const cs_x86 *d = &in->detail->x86;

	for (uint8_t o = 0; o < d->op_count; o++) {
		const cs_x86_op *op = &d->operands[o];

		if (op->type == X86_OP_MEM && (op->access & CS_AC_READ) &&
		    in->id != X86_INS_LEA && in->id != X86_INS_NOP)
			x->is_load = true;
		if (x->is_branch && op->type == X86_OP_IMM)
			x->target = (uint64_t)op->imm;
	}
}

static void classify_arm64(const cs_insn *in, struct tui_insn *x)
{
	const cs_arm64 *d = &in->detail->arm64;

	/* A64 names its loads: ldr, ldp, ldur, ldar, ldxr, ld1-4, the ld<op>
	 * atomics; cas and swp read too. (capstone 4 marks a store's address
	 * operand as read, so the operands cannot tell.) */
	x->is_load = !strncmp(in->mnemonic, "ld", 2) || !strncmp(in->mnemonic, "cas", 3) ||
		     !strncmp(in->mnemonic, "swp", 3);
	for (uint8_t o = 0; o < d->op_count; o++) {
		const cs_arm64_op *op = &d->operands[o];

		if (x->is_branch && op->type == ARM64_OP_IMM)
			x->target = (uint64_t)op->imm;
	}
}
#endif

int tui_disasm_bytes(int machine, const uint8_t *code, size_t n, uint64_t addr,
		     struct tui_disasm *out)
{
#ifdef HAVE_CAPSTONE
	csh h;
	cs_insn *in;
	const uint8_t *p = code;
	size_t left = n, cap = 0;
	uint64_t pc = addr;
	cs_err e;

	if (machine != EM_X86_64 && machine != EM_AARCH64)
		return GX_E_NOTSUP;
	if (!cs_load())
		return GX_E_NODATA;
	if (machine == EM_X86_64)
		e = cs.open(CS_ARCH_X86, CS_MODE_64, &h);
	else
		e = cs.open(CS_ARCH_ARM64, CS_MODE_ARM, &h);
	if (e != CS_ERR_OK)
		return GX_E_NOTSUP;
	cs.option(h, CS_OPT_DETAIL, CS_OPT_ON);
	/* One instruction at a time into one cs_insn: cs_disasm() allocates
	 * a detail per instruction and grows its array by realloc, which
	 * under ASan costs seconds for a function of 40,000 instructions. */
	in = cs.malloc(h);
	out->insns = NULL;
	out->nr = 0;
	while (in && cs.disasm_iter(h, &p, &left, &pc, in)) {
		struct tui_insn *x;
		const cs_detail *d = in->detail;

		if (out->nr + 1 >= cap) {
			cap = cap ? 2 * cap : 1024;
			out->insns = xrealloc(out->insns, cap * sizeof(*out->insns));
		}
		x = &out->insns[out->nr++];
		memset(x, 0, sizeof(*x));
		x->addr = in->address;
		snprintf(x->text, sizeof(x->text), "%.15s%s%.46s", in->mnemonic,
			 in->op_str[0] ? " " : "", in->op_str);
		if (!d)
			continue;
		for (uint8_t g = 0; g < d->groups_count; g++)
			if (d->groups[g] == CS_GRP_JUMP || d->groups[g] == CS_GRP_CALL ||
			    d->groups[g] == CS_GRP_RET)
				x->is_branch = true;
		if (machine == EM_X86_64)
			classify_x86(in, x);
		else
			classify_arm64(in, x);
	}
	if (!out->insns)
		out->insns = xcalloc(1, sizeof(*out->insns));
	else	/* a zeroed entry past the last, as there always was */
		memset(&out->insns[out->nr], 0, sizeof(*out->insns));
	if (in)
		cs.free(in, 1);
	cs.close(&h);
	return 0;
#else
	(void)machine;
	(void)code;
	(void)n;
	(void)addr;
	(void)out;
	return GX_E_NOTSUP;
#endif
}

const char *tui_disasm_missing(void)
{
#ifdef HAVE_CAPSTONE
	return cs_load() ? NULL : "cannot load " CS_SONAME " (Debian package libcapstone" CS_STR(CS_API_MAJOR) "): no disassembly";
#else
	return "this gexplore was built without capstone: no disassembly";
#endif
}

static int cmp_hit(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;	/* addr first */

	return (x > y) - (x < y);
}

/* Read [start, start+size) from the executable section holding it; its
 * file offset goes to *off (for symbolizing). */
static uint8_t *read_code(const char *path, uint64_t start, uint64_t *size, uint64_t *off,
			  int *machine, bool *found_size, const char **why)
{
	int fd = gx_open_regular(path, NULL, NULL);	/* never waits on a FIFO */
	Elf *e;
	Elf_Scn *scn = NULL;
	uint8_t *buf = NULL;
	GElf_Ehdr eh;

	if (fd < 0) {
		*why = "the binary is not on this machine: no disassembly";
		return NULL;
	}
	if (gx_libelf__open(NULL)) {	/* opened when first needed (util) */
		*why = "libelf cannot be loaded (install the Debian package libelf1): no disassembly";
		close(fd);
		return NULL;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		*why = "not an ELF file: no disassembly";
		goto out;
	}
	if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) {
		*why = "disassembly is supported for x86-64 and aarch64 binaries only";
		goto out;
	}
	*machine = eh.e_machine;
	/* The function's size from the symbol table, when there is one. */
	*found_size = false;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			if (gelf_getsym(d, (int)i, &s) && s.st_value == start && s.st_size &&
			    GELF_ST_TYPE(s.st_info) == STT_FUNC) {
				*size = s.st_size < MAX_FUNC_BYTES ? s.st_size : MAX_FUNC_BYTES;
				*found_size = true;
				break;
			}
		}
		if (*found_size)
			break;
	}
	scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    sh.sh_type != SHT_PROGBITS || start < sh.sh_addr ||
		    start >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			break;
		if (start + *size > sh.sh_addr + sh.sh_size)
			*size = sh.sh_addr + sh.sh_size - start;
		buf = xmalloc(*size + 1);
		memcpy(buf, (const uint8_t *)d->d_buf + (start - sh.sh_addr), *size);
		*off = start - sh.sh_addr + sh.sh_offset;
		break;
	}
	if (!buf)
		*why = "the function's code is not in the binary's sections";
out:
	if (e)
		elf_end(e);
	close(fd);
	return buf;
}

/* The clock event's samples the views keep, by (ip, pid), sorted by ip:
 * the model's index for the whole run, else a histogram of the time range
 * or region (*own, which the caller frees). */
static const struct tui_iphist *kept_ips(struct tui_model *m, size_t *n, struct tui_iphist **own)
{
	*own = NULL;
	if (m->range_hi || m->region >= 0) {
		*n = tui_model__ip_histogram(m, m->range_lo, m->range_hi, true, own);
		return *own;
	}
	tui_model__index_ips(m);
	*n = m->nr_ips;
	return m->ips;
}

/* A JIT function named by a jitdump (module jit-PID.dump): its bytes are
 * in the dump's code load record. false when f is no such function. */
static bool disasm_jit(struct tui_model *m, const struct tui_row *f, struct sym_session *sym,
		       struct tui_disasm *out)
{
	const char *base = strrchr(f->module, '/');
	struct tui_iphist *own;
	const struct tui_iphist *ips;
	uint64_t start = 0, size = 0;
	const uint8_t *code = NULL;
	size_t nips, n;
	int machine = 0;

	base = base ? base + 1 : f->module;
	n = strlen(base);
	if (strncmp(base, "jit-", 4) || n < 9 || strcmp(base + n - 5, ".dump"))
		return false;
	ips = kept_ips(m, &nips, &own);
	for (size_t i = 0; i < nips && !code; i++) {
		const struct sym_result *res = sym_session__lookup_jit(sym, ips[i].pid, ips[i].ip);

		if (res && !strcmp(sym_session__str(sym, res->symbol), f->name) &&
		    !strcmp(sym_session__str(sym, res->module), f->module))
			sym_session__jit_code(sym, ips[i].pid, ips[i].ip, &code, &start, &size,
					      &machine);
	}
	if (!code) {
		free(own);
		return false;
	}
	if (size > MAX_FUNC_BYTES)
		size = MAX_FUNC_BYTES;
	if (tui_disasm_bytes(machine, code, size, start, out) != 0)
		out->why = "no disassembly for this JIT's machine (x86-64 and aarch64 only, "
			   "with capstone)";
	else if (!out->nr)
		out->why = "capstone decoded no instruction here";
	/* ips and instructions are both by address: one pass counts them */
	for (size_t i = 0, j = 0; i < out->nr; i++) {
		struct tui_insn *x = &out->insns[i];

		while (j < nips && ips[j].ip < x->addr)
			j++;
		for (; j < nips && ips[j].ip == x->addr; j++) {
			x->samples += ips[j].count;
			x->period += ips[j].period;
		}
	}
	free(own);
	return true;
}

/* The function's samples by address: each distinct address once, its
 * samples and period summed, with the start of its symbol and the module
 * the last one fell in. */
struct fn_hits {
	struct fn_hit {
		uint64_t addr;	/* first: cmp_hit sorts by it */
		uint64_t n, period;
		uint64_t mem_n, mem_w;	/* memory-access samples (whole run) */
	} *v;
	size_t n;
	uint64_t start, maxaddr;
	struct sym_dso *dso;
	const struct profile *prof;	/* the run's memory-access samples, or NULL */
};

/* The maps of f's module, each with its dso in the result's own session:
 * same files, options and caches. */
static size_t module_maps(struct tui_real *real, struct sym_session *sym, const struct tui_row *f,
			  struct tui_mmap ***mapsp, struct sym_dso ***dsosp)
{
	struct tui_mmap **maps = NULL;
	struct sym_dso **dsos = NULL;
	size_t nmaps = 0;

	for (size_t i = 0; i < real->nr_maps; i++)
		if (!strcmp(real->maps[i].path, f->module)) {
			maps = xrealloc(maps, (nmaps + 1) * sizeof(*maps));
			dsos = xrealloc(dsos, (nmaps + 1) * sizeof(*dsos));
			maps[nmaps] = &real->maps[i];
			dsos[nmaps++] = sym_session__dso(sym, real->maps[i].path,
							 real->maps[i].build_id,
							 real->maps[i].build_id_size);
		}
	*mapsp = maps;
	*dsosp = dsos;
	return nmaps;
}

/* ip in f: true with its address added to h, or false where it is in no map
 * of f's module, or in another function */
static bool hit_of(struct sym_session *sym, const struct tui_row *f, struct tui_mmap **maps,
		   struct sym_dso **dsos, size_t nmaps, const struct tui_iphist *ip,
		   struct fn_hits *h)
{
	for (size_t k = 0; k < nmaps; k++) {
		const struct tui_mmap *mp = maps[k];
		const struct sym_result *res;

		if (mp->pid != ip->pid || ip->ip < mp->start || ip->ip >= mp->start + mp->len)
			continue;
		res = sym_session__lookup(sym, dsos[k], sym_map_offset(ip->ip, mp->start, mp->pgoff));
		if (strcmp(sym_session__str(sym, res->symbol), f->name) &&
		    strcmp(sym_session__str(sym, res->frames[0].function), f->name))
			return false;
		h->start = res->addr - res->sym_offset;
		h->dso = dsos[k];
		h->v[h->n].addr = res->addr;
		h->v[h->n].period = ip->period;
		if (h->prof)
			profile__mem_at(h->prof, ip->pid, ip->ip, &h->v[h->n].mem_n,
					&h->v[h->n].mem_w);
		h->v[h->n++].n = ip->count;
		if (res->addr > h->maxaddr)
			h->maxaddr = res->addr;
		return true;
	}
	return false;
}

static void fn_hits(struct sym_session *sym, const struct tui_row *f, struct tui_mmap **maps,
		    struct sym_dso **dsos, size_t nmaps, const struct tui_iphist *ips, size_t nsrc,
		    struct fn_hits *h)
{
	uint64_t last_ip = 0;
	uint32_t last_pid = 0;
	bool last_ok = false;

	h->v = xcalloc(nsrc + 1, sizeof(*h->v));
	for (size_t i = 0; i < nsrc; i++) {
		if (h->n && ips[i].ip == last_ip && ips[i].pid == last_pid) {
			if (last_ok) {
				h->v[h->n - 1].n += ips[i].count;
				h->v[h->n - 1].period += ips[i].period;
			}
			continue;
		}
		last_ip = ips[i].ip;
		last_pid = ips[i].pid;
		last_ok = hit_of(sym, f, maps, dsos, nmaps, &ips[i], h);
	}
}

/* each instruction its line and the samples at its address */
static void count_hits(struct tui_disasm *out, struct sym_session *sym, struct fn_hits *h,
		       uint64_t off)
{
	gx_qsort(h->v, h->n, sizeof(*h->v), cmp_hit);
	for (size_t i = 0, j = 0; i < out->nr; i++) {
		struct tui_insn *x = &out->insns[i];
		const struct sym_result *res = sym_session__lookup(sym, h->dso,
								   off + (x->addr - h->start));

		x->line = res->frames[0].line;
		while (j < h->n && h->v[j].addr < x->addr)
			j++;
		while (j < h->n && h->v[j].addr == x->addr) {
			x->mem_samples += h->v[j].mem_n;
			x->mem_weight += h->v[j].mem_w;
			x->period += h->v[j].period;
			x->samples += h->v[j++].n;
		}
	}
}

/* The blocks and loops of the result's flow over d's instructions of
 * module (issue 42): branch stacks' estimates or the model's exact. */
static void annotate_flow(struct gx_result *res, const char *module, struct tui_disasm *d)
{
	const struct gx_flow *f = gx_result__flow(res, NULL);
	const struct flow_graph *g = f ? &f->graph : NULL;
	uint32_t mod = FLOW_NO_MODULE;

	for (size_t b = 0; g && b < g->nr_blocks && mod == FLOW_NO_MODULE; b++)
		if (!strcmp(gx_flow__module(f, g->blocks[b].module), module))
			mod = g->blocks[b].module;
	if (mod == FLOW_NO_MODULE)
		return;
	for (size_t i = 0; i < d->nr; i++) {
		struct tui_insn *x = &d->insns[i];
		long b = flow_graph__block_at(g, mod, x->addr);
		const struct flow_block *blk = b >= 0 ? &g->blocks[b] : NULL;

		if (!blk)
			continue;
		if (blk->start == x->addr) {
			x->block_execs = blk->execs;
			x->block_cycles = blk->timed ? blk->cycles / (double)blk->timed : 0;
		}
		if (blk->loop >= 0) {
			const struct flow_loop *l = &g->loops[blk->loop];

			x->loop_depth = (uint8_t)(l->depth < 9 ? l->depth : 9);
			x->loop_head = l->head == (uint32_t)b && blk->start == x->addr;
		}
		d->flow |= blk->execs > 0;
	}
}

int tui_disasm_real(struct tui_loader *ld, struct tui_model *m, size_t func,
		    struct tui_disasm *out)
{
	struct tui_real *real = (struct tui_real *)ld;
	const struct tui_row *f = &m->tab[TK_FUNC].rows[func];
	struct tui_mmap **maps = NULL;
	struct sym_dso **dsos = NULL;
	struct fn_hits h = { 0 };
	size_t nmaps, nsrc;
	uint64_t size, off = 0;
	struct tui_iphist *range_ips = NULL;
	const struct tui_iphist *ips;
	uint8_t *code = NULL;
	const char *path, *why = NULL;
	bool found_size = false;
	int machine = EM_X86_64;
	struct sym_session *sym = gx_result__symbolizer(real->res);

	memset(out, 0, sizeof(*out));
	if (!strcmp(f->name, "[unknown]")) {
		out->why = "no symbol for these addresses (stripped binary?): no disassembly";
		return 0;
	}
	if (disasm_jit(m, f, sym, out))
		return 0;
	if (f->module[0] == '[' || !f->module[0]) {
		out->why = "kernel or anonymous code: no disassembly";
		return 0;
	}
	nmaps = module_maps(real, sym, f, &maps, &dsos);
	/* Each distinct address once: the whole run from the model's index,
	 * a time range from a histogram of its samples (a few thousand
	 * lookups, not one per sample). */
	ips = kept_ips(m, &nsrc, &range_ips);
	/* the loads' latency is the whole run's: none in a time range */
	if (m->has_mem && !range_ips)
		h.prof = gx_result__profile(real->res);
	fn_hits(sym, f, maps, dsos, nmaps, ips, nsrc, &h);
	if (!h.n) {
		out->why = "no sample of this function maps into its binary: no disassembly";
		goto out;
	}
	sym_dso__open(h.dso);
	path = sym_dso__found_path(h.dso) ? sym_dso__found_path(h.dso) : f->module;
	size = h.maxaddr - h.start + 16;
	code = read_code(path, h.start, &size, &off, &machine, &found_size, &why);
	if (!code) {
		out->why = why;
		goto out;
	}
	if (tui_disasm_bytes(machine, code, size, h.start, out) != 0) {
		out->why = tui_disasm_missing() ? tui_disasm_missing() :
			   "no disassembly for this machine (x86-64 and aarch64 only)";
		goto out;
	}
	count_hits(out, sym, &h, off);
	annotate_flow(real->res, f->module, out);
	if (!out->nr)
		out->why = "capstone decoded no instruction here";
out:
	free(code);
	free(h.v);
	free(range_ips);
	free(maps);
	free(dsos);
	return 0;
}
