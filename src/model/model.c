/*
 * model.c: a modelled recording. The workload runs under callgrind with
 * this machine's cache geometry; its self costs per instruction are priced
 * in cycles (llvm-mca per hot basic block, misses by the latencies and
 * bandwidths of a machine description, description.c, mispredicts by
 * its penalty) and written as a
 * normal result: perf.data samples whose period is the count at that
 * address, meta.json with "modelled": true and the model "modelled".
 */
#include "config.h"

#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model-int.h"
#include "perfdata/perfdata.h"
#include "util/util.h"

/* ---- objects: where callgrind's addresses lie in the files ---------------- */

static void obj_read_elf(struct model_obj *o)
{
	int fd = o->path[0] == '/' ? open(o->path, O_RDONLY | O_CLOEXEC) : -1;
	Elf *e = NULL;
	GElf_Ehdr eh;
	size_t n;

	if (fd < 0)
		return;
	if (gx_libelf__open(NULL))	/* opened when first needed (util) */
		goto out;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n))
		goto out;
	for (size_t i = 0; i < n && o->nr_load < 8; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->load[o->nr_load].vaddr = ph.p_vaddr;
		o->load[o->nr_load].memsz = ph.p_memsz;
		o->load[o->nr_load].offset = ph.p_offset;
		o->load[o->nr_load].flags = ph.p_flags;
		o->nr_load++;
	}
	o->file = o->nr_load > 0;
	/* callgrind writes addresses relative to the object when Valgrind read
	 * its symbols; else as they were (a PIE main program without symbols
	 * sits at Valgrind's 0x108000) */
	if (o->file) {
		uint64_t vlo = o->load[0].vaddr & ~0xfffULL;
		uint64_t vhi = o->load[o->nr_load - 1].vaddr + o->load[o->nr_load - 1].memsz;

		if (o->lo >= vlo && o->hi < vhi)
			o->bias = 0;
		else if (eh.e_type == ET_DYN && o->lo >= 0x108000 + vlo && o->hi < 0x108000 + vhi)
			o->bias = 0x108000;
		else
			o->file = false;
	}
out:
	if (e)
		elf_end(e);
	close(fd);
}

/* ---- basic blocks and llvm-mca --------------------------------------------- */

struct model_insn {
	size_t cg;		/* index into the cg_profile's insns */
	uint32_t obj;		/* its object and address: the sort key */
	uint64_t addr;
	char *text;		/* AT&T assembly, NULL: not disassembled */
	int block;		/* -1: none */
	bool dep_load;		/* a load whose address a load in its block gave */
};

struct model_block {
	size_t first, n;	/* into the sorted model_insn array */
	uint64_t execs;
	double cyc;		/* llvm-mca's cycles an execution; NAN: not modelled */
	int region;		/* -1: not in the batch */
};

struct model_state {
	/* cg2 or cl2: the second pass (D1 = L2, LL = pages: second_pass),
	 * callgrind's instructions or cachegrind's lines, or empty; pass_l2
	 * and pass_pages: its L2 misses and first touches at each of cg's
	 * instructions (pass_take, pass_spread) */
	struct cg_profile cg, cg2;
	struct cg_lines cl2;
	uint64_t *pass_l2, *pass_pages;
	enum model_pass pass2_how;	/* how it ran */
	bool pass2_forced;		/* by GX_MODEL_SECOND */
	bool have_l2, have_pages;	/* L2's misses, pages' first touches: from the second pass */
	/* first touches counted natively (faults.c): a native run's page
	 * faults, as run (have_native_run) and at each cg insn (native_pages,
	 * after model_code); they win over the second pass's */
	struct model_faults nf;
	bool have_native_run, have_native;
	uint64_t *native_pages;
	/* the workload's stdin, for the second pass to read again: a file's
	 * offset at the start (-1: no file); why it may not (NULL: it can) */
	off_t stdin_at;
	const char *stdin_why;
	struct model_vg pass2;		/* the second pass, started early (.c NULL: not) */
	const struct model_scratch *scratch;	/* where the tools write */
	struct model_obj *objs;
	struct model_insn *ins;		/* sorted by (obj, addr) */
	size_t nr_ins;
	struct model_block *blocks;
	size_t nr_blocks;
	struct machine_costs mc;
	struct cache_geo geo[GEO_NR];
	struct model_machine machine;	/* every price (description.c) */
	const char *mcpu;		/* machine.mcpu */
	double width;
	char **notes;			/* for meta.json's warnings */
	size_t nr_notes;
	double cpi_rest;		/* cycles an instruction outside the modelled blocks */
	double dram_chase;		/* cycles of chased loads served by memory */
	double tlb_misses, tlb_cycles;	/* address translation's, as priced (tlb.c) */
	/* per cg insn: the modelled terms */
	double *base, *fe, *bad, *mem, *core;
	/* per cg insn: its conditional mispredicts as priced (bias_bound) */
	double *bcm;
	uint64_t bcm_over;		/* callgrind's, beyond the bound */
	/* where conditional mispredicts' cycles go (bad_path): shares of a
	 * branch's, from it to the instructions a profile shows them at */
	struct bad_move { size_t from, to; double share; } *moves;
	size_t nr_moves;
	uint64_t *l2miss;		/* L2's misses as priced */
	uint64_t *pages;		/* first touches of pages as priced (pass_pages) */
	double fault_cycles;		/* what they were priced at, summed */
	pid_t pid;			/* the workload's (valgrind's) */
	int stopped;			/* the signal that stopped the run, -1: --duration */
};

static int cmp_ins(const void *a, const void *b)
{
	const struct model_insn *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* AT&T text cleaned for llvm-mca: tabs to spaces, no comment, no <sym>. */
static char *clean_insn(const char *s, size_t n)
{
	char *t = xstrndup(s, n), *c;

	for (c = t; *c; c++)
		if (*c == '\t')
			*c = ' ';
	if ((c = strchr(t, '#')))
		*c = 0;
	if ((c = strstr(t, " <")))
		*c = 0;
	for (c = t + strlen(t); c > t && c[-1] == ' '; c--)
		c[-1] = 0;
	return t;
}

/* Disassemble object k's range and attach the text to its instructions. */
static void disassemble(struct model_state *st, uint32_t k, size_t i0, size_t i1)
{
	const struct model_obj *o = &st->objs[k];
	char *start = xasprintf("--start-address=0x%" PRIx64, o->lo - o->bias);
	char *stop = xasprintf("--stop-address=0x%" PRIx64, o->hi - o->bias + 1);
	char *argv[] = { "llvm-objdump", "-d", "--no-show-raw-insn", start, stop,
			 (char *)o->path, NULL };
	char *text = NULL;
	struct u64map at;

	u64map__init(&at);
	if (model_tool(st->scratch, argv, &text, NULL) != 0)
		goto out;
	for (size_t i = i0; i < i1; i++)
		*u64map__findnew(&at, st->cg.insns[st->ins[i].cg].addr - o->bias, 0) = i + 1;
	for (char *s = text; s && *s;) {
		char *nl = strchr(s, '\n'), *e;
		uint64_t addr;
		uint64_t *v;

		if (nl)
			*nl = 0;
		while (*s == ' ')
			s++;
		addr = strtoull(s, &e, 16);
		if (e != s && *e == ':' && (v = u64map__find(&at, addr)) != NULL) {
			char *t = e + 1;

			while (*t == ' ' || *t == '\t')
				t++;
			if (*t && !strstr(t, "<unknown>") && !strstr(t, "(bad)"))
				st->ins[*v - 1].text = clean_insn(t, strlen(t));
		}
		s = nl ? nl + 1 : NULL;
	}
out:
	u64map__exit(&at);
	free(text);
	free(start);
	free(stop);
}

/* The base and index registers of text's memory operand ("(%rax" ->
 * "rax", "(%r11,%rdx,2)" -> "r11" and "rdx"), or "". */
static void mem_regs(const char *t, char base[8], char index[8])
{
	const char *p = strchr(t, '(');
	size_t n = 0;

	base[0] = index[0] = 0;
	if (!p)
		return;
	p++;
	if (*p == '%') {
		p++;
		while (n < 7 && p[n] && p[n] != ',' && p[n] != ')')
			n++;
		memcpy(base, p, n);
		base[n] = 0;
		p += n;
	}
	if (p[0] != ',' || p[1] != '%')
		return;
	p += 2;
	for (n = 0; n < 7 && p[n] && p[n] != ',' && p[n] != ')';)
		n++;
	memcpy(index, p, n);
	index[n] = 0;
}

/* The destination register of an AT&T instruction ("...,%rax" -> "rax"), or "". */
static void dest_reg(const char *t, char reg[8])
{
	const char *p = strrchr(t, ',');
	size_t n = 0;

	reg[0] = 0;
	if (!p) {	/* one operand: "pop %rax" */
		p = strchr(t, ' ');
		if (!p)
			return;
	}
	while (*++p == ' ')
		;
	if (*p != '%')
		return;
	p++;
	while (n < 7 && p[n] && p[n] != ' ')
		n++;
	memcpy(reg, p, n);
	reg[n] = 0;
}

/* A 32-bit name of a 64-bit register counts as the same ("eax" in "rax"). */
static bool same_reg(const char *a, const char *b)
{
	if (!*a || !*b)
		return false;
	if (!strcmp(a, b))
		return true;
	return strlen(a) == 3 && strlen(b) == 3 && (a[0] == 'r' || a[0] == 'e') &&
	       (b[0] == 'r' || b[0] == 'e') && !strcmp(a + 1, b + 1);
}

static bool is_load(const char *t)
{
	const char *comma = strrchr(t, ',');
	const char *paren = strchr(t, '(');

	/* a memory source operand: the "(" before the last comma */
	return paren && comma && paren < comma && strncmp(t, "lea", 3) && strncmp(t, "nop", 3);
}

/* Loads whose address a load of the same block wrote, through the base
 * register (a pointer chase) or the index (a chain through an array:
 * gzip's prev[cur_match & wmask]): each miss waits for the one before. */
static void mark_dependent(struct model_state *st, const struct model_block *b)
{
	for (size_t i = b->first; i < b->first + b->n; i++) {
		char base[8], index[8];
		const char *t = st->ins[i].text;

		if (!t || !is_load(t))
			continue;
		mem_regs(t, base, index);
		/* every load of the block, itself included (the loop's next turn) */
		for (size_t j = b->first; j < b->first + b->n; j++) {
			char d[8];
			const char *u = st->ins[j].text;

			if (!u || !is_load(u))
				continue;
			dest_reg(u, d);
			if (same_reg(d, base) || same_reg(d, index))
				st->ins[i].dep_load = true;
		}
	}
}

static bool ends_block(const char *t)
{
	return t && (!strncmp(t, "call", 4) || !strncmp(t, "ret", 3) || !strncmp(t, "jmp", 3) ||
		     !strncmp(t, "bl ", 3) || !strncmp(t, "b ", 2));
}

static int cmp_block_weight(const void *a, const void *b)
{
	const struct model_block *x = a, *y = b;
	double wx = (double)x->execs * (double)x->n, wy = (double)y->execs * (double)y->n;

	return wx > wy ? -1 : wx < wy;
}

#define MODEL_MAX_BLOCKS 3000
#define MODEL_MAX_BLOCK_LEN 256

/* Basic blocks: runs of consecutive disassembled instructions with the
 * same execution count, ended by a call, return or jump. */
static void find_blocks(struct model_state *st)
{
	size_t cap = 0;

	for (size_t i = 0; i < st->nr_ins;) {
		struct model_block b = { .first = i, .n = 1, .region = -1, .cyc = NAN };
		const struct cg_insn *c0 = &st->cg.insns[st->ins[i].cg];

		b.execs = c0->c[CG_IR];
		while (i + b.n < st->nr_ins && b.n < MODEL_MAX_BLOCK_LEN) {
			const struct model_insn *prev = &st->ins[i + b.n - 1], *m = &st->ins[i + b.n];
			const struct cg_insn *c = &st->cg.insns[m->cg];

			if (!prev->text || !m->text || c->obj != c0->obj || c->c[CG_IR] != b.execs ||
			    c->addr - st->cg.insns[prev->cg].addr > 16 || ends_block(prev->text))
				break;
			b.n++;
		}
		for (size_t k = i; k < i + b.n; k++)
			st->ins[k].block = (int)st->nr_blocks;
		st->blocks = xgrow(st->blocks, &cap, st->nr_blocks + 1, sizeof(*st->blocks));
		st->blocks[st->nr_blocks++] = b;
		i += b.n;
	}
}

static void note(struct model_state *st, const char *fmt, ...) GX_PRINTF(2, 3);
static void note(struct model_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gx_strv_vaddf(&st->notes, &st->nr_notes, fmt, ap);
	va_end(ap);
}

/* A rep-prefixed string instruction: callgrind counts each of its
 * iterations as one instruction, llvm-mca prices it as a whole run (100
 * cycles): it is priced per iteration instead (REP_CYCLES). */
static bool is_rep(const char *t)
{
	return !strncmp(t, "rep", 3);
}

/* Cycles of one iteration of a rep string instruction: fast strings move
 * 16-32 bytes a cycle, one iteration is 1-8 bytes. */
#define REP_CYCLES 0.1

/* A calibration region: 12 independent vfmadd231pd ymm chains, to set
 * llvm-mca's FMA throughput beside the one `gexplore peak` measured. */
static void add_fma_region(char ***lines, size_t *n, size_t region)
{
	gx_strv_addf(lines, n, "# LLVM-MCA-BEGIN b%zu", region);
	for (int r = 0; r < 12; r++)
		gx_strv_addf(lines, n, "vfmadd231pd %%ymm15, %%ymm14, %%ymm%d", r);
	gx_strv_addf(lines, n, "# LLVM-MCA-END b%zu", region);
}

/* A calibration region: 12 independent integer adds, to set llvm-mca's
 * integer throughput beside the one `gexplore peak` measured (x86). */
static void add_int_region(char ***lines, size_t *n, size_t region)
{
	static const char *const reg[12] = { "rax", "rcx", "rdx", "rbx", "rsi", "rdi",
					     "r8", "r9", "r10", "r11", "r12", "r13" };

	gx_strv_addf(lines, n, "# LLVM-MCA-BEGIN b%zu", region);
	for (int r = 0; r < 12; r++)
		gx_strv_addf(lines, n, "add $1, %%%s", reg[r]);
	gx_strv_addf(lines, n, "# LLVM-MCA-END b%zu", region);
}

static bool has_fma(const struct model_state *st, const struct model_block *b)
{
	for (size_t i = b->first; i < b->first + b->n; i++)
		if (st->ins[i].text && strstr(st->ins[i].text, "vfma"))
			return true;
	return false;
}

/* Whether a block uses vector or FP registers (then its resources are
 * not only the integer units peak's add calibrates). */
static bool has_vec(const struct model_state *st, const struct model_block *b)
{
	for (size_t i = b->first; i < b->first + b->n; i++) {
		const char *t = st->ins[i].text;

		if (t && (strstr(t, "%xmm") || strstr(t, "%ymm") || strstr(t, "%zmm")))
			return true;
	}
	return false;
}

/* Whether a block is a loop: it ends in a jump back to its first
 * instruction ("jne 0x1190", the file's address). */
static bool is_loop(const struct model_state *st, const struct model_block *b)
{
	const struct model_insn *last = &st->ins[b->first + b->n - 1];
	const struct cg_insn *first = &st->cg.insns[st->ins[b->first].cg];
	const char *t = last->text, *sp;
	uint64_t target;

	if (!t || t[0] != 'j' || !(sp = strchr(t, ' ')))
		return false;
	while (*sp == ' ')
		sp++;
	if (strncmp(sp, "0x", 2))
		return false;
	target = strtoull(sp, NULL, 16);
	return target + st->objs[first->obj].bias == first->addr;
}

/* The hot blocks through llvm-mca in one run; cpi_rest from what it said. */
static void model_blocks(struct model_state *st)
{
	struct model_block *order = xcalloc(st->nr_blocks + 1, sizeof(*order));
	char **lines = NULL, *cause = NULL;
	size_t nl = 0, nr = 0, dropped = 0, nb = st->nr_blocks;
	uint64_t total = st->cg.totals[CG_IR], covered = 0;
	double *cyc, *rt = NULL, fma_mca = NAN, sum_cyc = 0, sum_ir = 0, fma_scale = 1;
	double add_mca, add_scale = 1;
	int *region_block;

	memcpy(order, st->blocks, nb * sizeof(*order));
	for (size_t k = 0; k < nb; k++)
		order[k].region = (int)k;	/* its index in st->blocks */
	gx_qsort(order, nb, sizeof(*order), cmp_block_weight);
	region_block = xcalloc(nb + 2, sizeof(*region_block));
	for (size_t k = 0; k < nb && nr < MODEL_MAX_BLOCKS; k++) {
		struct model_block *b = &st->blocks[order[k].region];

		if (covered >= total - total / 1000 || !st->ins[b->first].text)
			continue;
		gx_strv_addf(&lines, &nl, "# LLVM-MCA-BEGIN b%zu", nr);
		for (size_t i = b->first; i < b->first + b->n; i++)
			if (st->ins[i].text && !is_rep(st->ins[i].text))
				gx_strv_addf(&lines, &nl, "%s", st->ins[i].text);
		gx_strv_addf(&lines, &nl, "# LLVM-MCA-END b%zu", nr);
		b->region = (int)nr;
		region_block[nr++] = order[k].region;
		covered += b->execs * b->n;
	}
	/* the calibrations are x86 code: elsewhere llvm-mca would drop their
	 * lines, and the result would count them among the hot ones */
	if (strncmp(st->mcpu, "neoverse", 8) && strncmp(st->mcpu, "cortex", 6)) {
		add_fma_region(&lines, &nl, nr);
		add_int_region(&lines, &nl, nr + 1);
	}
	cyc = xcalloc(nr + 3, sizeof(*cyc));
	rt = xcalloc(nr + 3, sizeof(*rt));
	if (mca_run(st->scratch, st->mcpu, lines, nl, nr + 2, cyc, rt, &st->width, &dropped,
		    &cause) != 0) {
		note(st, "model: llvm-mca gave no cycles (%s): every instruction priced at "
		     "one cycle", cause);
		st->cpi_rest = 1;
		goto out;
	}
	if (dropped)
		note(st, "model: llvm-mca could not read %zu of the hot instructions; their "
		     "blocks are modelled without them", dropped);
	fma_mca = cyc[nr] / 12;
	if (st->mc.fma_tput > 0 && fma_mca > 0 &&
	    fabs(st->mc.fma_tput - fma_mca) > 0.1 * st->mc.fma_tput) {
		fma_scale = st->mc.fma_tput / fma_mca;
		note(st, "model: llvm-mca's %s gives one vfmadd231pd ymm every %.2f cycles where "
		     "machine description '%s' gives %.2f: the description wins; blocks with FMAs "
		     "are scaled by %.2f", st->mcpu, fma_mca, st->machine.name, st->mc.fma_tput,
		     fma_scale);
	}
	/* the same for the integer units, which set the pace of most code:
	 * llvm 14's znver3 has 4 ALUs where Zen 5 has 6 (peak: 5.2 adds a
	 * cycle); a block bound by its resources runs at the measured pace,
	 * a chain of dependencies at its latencies, unscaled */
	add_mca = cyc[nr + 1] / 12;
	if (st->mc.add_tput > 0 && add_mca > 0 &&
	    fabs(st->mc.add_tput - add_mca) > 0.1 * st->mc.add_tput) {
		add_scale = st->mc.add_tput / add_mca;
		note(st, "model: llvm-mca's %s runs an independent add r64 every %.2f cycles where "
		     "machine description '%s' gives %.2f: the description wins; integer blocks "
		     "bound by their resources (not by a chain of dependencies) are scaled by %.2f",
		     st->mcpu, add_mca, st->machine.name, st->mc.add_tput, add_scale);
	}
	for (size_t r = 0; r < nr; r++) {
		struct model_block *b = &st->blocks[region_block[r]];

		if (!(cyc[r] >= 0))
			continue;
		/* llvm-mca repeats a block as if it were a loop: in one that is
		 * not, a chain through its registers from one run to the next
		 * is not there, and the out-of-order core overlaps it with
		 * what follows: its resources' bound, not the chain */
		b->cyc = is_loop(st, b) || !(rt[r] > 0) ? cyc[r] : rt[r];
		if (has_fma(st, b))
			b->cyc *= fma_scale;
		else if (rt[r] > 0 && b->cyc <= 1.05 * rt[r] && !has_vec(st, b))
			b->cyc *= add_scale;	/* its integer resources' bound */
		sum_cyc += b->cyc * (double)b->execs;
		sum_ir += (double)b->execs * (double)b->n;
	}
	st->cpi_rest = sum_ir > 0 ? sum_cyc / sum_ir : 1;
out:
	if (!(st->width > 0))
		st->width = 4;
	free(cause);
	free(cyc);
	free(rt);
	free(region_block);
	gx_free_strv(lines, nl);
	free(order);
}

/* ---- the terms of each instruction ----------------------------------------- */

/* Misses in flight at once for independent loads: the line fill buffers
 * (Intel 10-16, AMD's miss address buffers 22-24; 10 is what one core's
 * random loads reach in practice). */
#define MODEL_MLP 10.0

/* ---- the second pass's lines, given to the first pass's instructions ------ */

/* A source line's key in the first pass: its file, function and line as
 * cachegrind names them (callgrind's "0x..." for a function without a
 * symbol is cachegrind's "???"). */
static const char *insn_src(const struct cg_profile *p, const struct cg_insn *c)
{
	return c->src ? p->srcs[c->src - 1] : "???";
}

static const char *insn_fn(const struct cg_profile *p, const struct cg_insn *c)
{
	const char *f = c->fn ? p->fns[c->fn - 1] : "???";

	return strncmp(f, "0x", 2) || f[2 + strspn(f + 2, "0123456789abcdef")] ? f : "???";
}

static uint64_t line_key(const char *file, const char *fn, uint32_t line)
{
	uint64_t h = gx_hash(file, strlen(file)) * 0x9e3779b97f4a7c15ULL;

	if (fn)
		h ^= gx_hash(fn, strlen(fn)) * 0xc2b2ae3d27d4eb4fULL;
	return h ^ ((uint64_t)line + 1) * 0x165667b19e3779f9ULL;
}

struct keyed {
	uint64_t h;
	uint32_t k;		/* the first pass's instruction */
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* Whether instruction k is at file:line in fn (NULL: any function). */
static bool insn_at(const struct cg_profile *p, uint32_t k, const char *file, const char *fn,
		    uint32_t line)
{
	const struct cg_insn *c = &p->insns[k];

	return c->line == line && !strcmp(insn_src(p, c), file) &&
	       (!fn || !strcmp(insn_fn(p, c), fn));
}

/* The first entry of v (n, sorted) whose instruction is at file:line in
 * fn: its index, or n. */
static size_t find_keyed(const struct cg_profile *p, const struct keyed *v, size_t n,
			 const char *file, const char *fn, uint32_t line)
{
	uint64_t h = line_key(file, fn, line);
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].h < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].h == h; lo++)
		if (insn_at(p, v[lo].k, file, fn, line))
			return lo;
	return n;
}

/* x shared among m instructions ks[] by weights w[] (indexed by
 * instruction), added to out[]: each its share rounded so that the
 * shares add up to x. Where every weight is 0, by alt[] (NULL: nothing
 * given). Returns whether x was given. */
static bool share_out(uint64_t x, const uint32_t *ks, size_t m, const uint64_t *w,
		      const uint64_t *alt, uint64_t *out)
{
	double sum = 0, cum = 0;
	uint64_t given = 0;

	for (size_t i = 0; i < m; i++)
		sum += (double)w[ks[i]];
	if (!(sum > 0))
		return alt && x ? share_out(x, ks, m, alt, NULL, out) : !x;
	for (size_t i = 0; i < m; i++) {
		uint64_t upto;

		/* truncated: the floor of a share (no libm: lazy-math.c) */
		cum += (double)w[ks[i]];
		upto = i + 1 == m ? x : (uint64_t)(cum / sum * (double)x);
		if (upto < given)
			upto = given;
		if (upto > x)
			upto = x;
		out[ks[i]] += upto - given;
		given = upto;
	}
	return true;
}

/*
 * Cachegrind counts by source line, callgrind by instruction: the second
 * pass's L2 misses and first touches of each line (of a function, in a
 * file) are given to the first pass's instructions at that line, in
 * proportion to what the first pass simulated there. A line's L2 misses
 * are its instructions' last-level misses (each an L2 miss too) and the
 * rest of them, its L2-or-L3 hits told apart, shared by those hits (D1
 * misses the last level served); its first touches by last-level misses
 * (a page's first touch misses every level). Where the function's name
 * differs (an alias: memcpy and mempcpy at one address), by file and line
 * alone. Without debug information a line is the whole function (line 0
 * of "???"). An instruction at no line the pass counted a miss at keeps
 * its last-level misses as L2's. Sets pass_l2 and pass_pages; what no
 * instruction took, by share, into *lost.
 */
static void pass_spread(struct model_state *st, double *lost)
{
	const struct cg_profile *p = &st->cg;
	const struct cg_lines *cl = &st->cl2;
	size_t n = p->nr_insns, n2 = 0;
	struct keyed *v1 = xcalloc(n + 1, sizeof(*v1)), *v2 = xcalloc(n + 1, sizeof(*v2));
	uint64_t *x2 = xcalloc(n + 1, sizeof(*x2)), *xp = xcalloc(n + 1, sizeof(*xp));
	uint64_t *y2 = xcalloc(n + 1, sizeof(*y2)), *yp = xcalloc(n + 1, sizeof(*yp));
	uint64_t *m1 = xcalloc(n + 1, sizeof(*m1)), *m3 = xcalloc(n + 1, sizeof(*m3));
	uint64_t *hits = xcalloc(n + 1, sizeof(*hits)), *ir = xcalloc(n + 1, sizeof(*ir));
	uint32_t *ks = xcalloc(n + 1, sizeof(*ks));
	bool *covered = xcalloc(n + 1, sizeof(*covered));
	uint64_t miss = 0, all = 0;

	free(st->pass_l2), free(st->pass_pages);
	st->pass_l2 = xcalloc(n + 1, sizeof(uint64_t));
	st->pass_pages = xcalloc(n + 1, sizeof(uint64_t));
	for (size_t k = 0; k < n; k++) {
		const struct cg_insn *c = &p->insns[k];
		const char *file = insn_src(p, c);

		m1[k] = c->c[CG_D1MR] + c->c[CG_D1MW];
		m3[k] = c->c[CG_DLMR] + c->c[CG_DLMW];
		hits[k] = m1[k] > m3[k] ? m1[k] - m3[k] : 0;
		ir[k] = c->c[CG_IR];
		v1[k] = (struct keyed){ line_key(file, insn_fn(p, c), c->line), (uint32_t)k };
		if (c->line && strcmp(file, "???"))
			v2[n2++] = (struct keyed){ line_key(file, NULL, c->line), (uint32_t)k };
	}
	gx_qsort(v1, n, sizeof(*v1), cmp_keyed);
	gx_qsort(v2, n2, sizeof(*v2), cmp_keyed);
	/* each line's counts to the first entry of its group */
	for (size_t r = 0; r < cl->n; r++) {
		const struct cgl_line *l = &cl->v[r];
		const char *file = cl->names[l->file], *fn = cl->names[l->fn];
		uint64_t a = l->c[CG_D1MR] + l->c[CG_D1MW], b = l->c[CG_DLMR] + l->c[CG_DLMW];
		size_t g;

		all += a + b;
		if (!a && !b)
			continue;
		g = find_keyed(p, v1, n, file, fn, l->line);
		if (g < n) {
			x2[g] += a, xp[g] += b;
			continue;
		}
		g = l->line && strcmp(file, "???") ? find_keyed(p, v2, n2, file, NULL, l->line) : n2;
		if (g < n2)
			y2[g] += a, yp[g] += b;
		else
			miss += a + b;
	}
	/* each group's, shared among its instructions */
	for (size_t g = 0; g < n; g++) {
		const struct cg_insn *c = &p->insns[v1[g].k];
		const char *file = insn_src(p, c), *fn = insn_fn(p, c);
		uint64_t s3 = 0;
		size_t m = 0;

		if (!x2[g] && !xp[g])
			continue;
		for (size_t i = g; i < n && v1[i].h == v1[g].h; i++)
			if (insn_at(p, v1[i].k, file, fn, c->line))
				ks[m++] = v1[i].k;
		for (size_t i = 0; i < m; i++)
			s3 += m3[ks[i]], covered[ks[i]] = true;
		if (x2[g] >= s3) {
			for (size_t i = 0; i < m; i++)
				st->pass_l2[ks[i]] += m3[ks[i]];
			if (!share_out(x2[g] - s3, ks, m, hits, ir, st->pass_l2))
				miss += x2[g] - s3;
		} else if (!share_out(x2[g], ks, m, m3, ir, st->pass_l2)) {
			miss += x2[g];
		}
		if (!share_out(xp[g], ks, m, m3, m1, st->pass_pages) &&
		    !share_out(xp[g], ks, m, ir, NULL, st->pass_pages))
			miss += xp[g];
	}
	for (size_t g = 0; g < n2; g++) {
		const struct cg_insn *c = &p->insns[v2[g].k];
		const char *file = insn_src(p, c);
		size_t m = 0;

		if (!y2[g] && !yp[g])
			continue;
		for (size_t i = g; i < n2 && v2[i].h == v2[g].h; i++)
			if (insn_at(p, v2[i].k, file, NULL, c->line))
				ks[m++] = v2[i].k, covered[v2[i].k] = true;
		if (!share_out(y2[g], ks, m, m1, ir, st->pass_l2))
			miss += y2[g];
		if (!share_out(yp[g], ks, m, m3, m1, st->pass_pages) &&
		    !share_out(yp[g], ks, m, ir, NULL, st->pass_pages))
			miss += yp[g];
	}
	/* a line it counted no miss at: its last-level misses are L2's too */
	for (size_t k = 0; k < n; k++)
		if (!covered[k])
			st->pass_l2[k] = m3[k];
	*lost = all ? (double)miss / (double)all : 0;
	free(v1), free(v2), free(x2), free(xp), free(y2), free(yp);
	free(m1), free(m3), free(hits), free(ir), free(ks), free(covered);
}

/* The second pass's L2 misses and first touches where callgrind ran it:
 * at the same instructions (its objects named in its own order: by
 * name). */
static void pass_take(struct model_state *st)
{
	const struct cg_profile *p = &st->cg, *p2 = &st->cg2;
	uint32_t *to = xcalloc(p2->nr_objs + 1, sizeof(*to));
	bool *seen = xcalloc(p->nr_insns + 1, sizeof(*seen));
	struct u64map at;

	free(st->pass_l2), free(st->pass_pages);
	st->pass_l2 = xcalloc(p->nr_insns + 1, sizeof(uint64_t));
	st->pass_pages = xcalloc(p->nr_insns + 1, sizeof(uint64_t));
	u64map__init(&at);
	for (size_t k = 0; k < p->nr_insns; k++)
		*u64map__findnew(&at, (uint64_t)p->insns[k].obj << 48 | p->insns[k].addr, 0) = k + 1;
	for (size_t k = 0; k < p2->nr_objs; k++) {
		to[k] = UINT32_MAX;
		for (size_t j = 0; j < p->nr_objs; j++)
			if (!strcmp(p2->objs[k], p->objs[j]))
				to[k] = (uint32_t)j;
	}
	for (size_t i = 0; i < p2->nr_insns; i++) {
		const struct cg_insn *c = &p2->insns[i];
		uint64_t *v;

		if (to[c->obj] == UINT32_MAX)
			continue;
		v = u64map__find(&at, (uint64_t)to[c->obj] << 48 | c->addr);
		if (!v)
			continue;
		/* its D1 is L2: its D1 misses are L2's; its LL has a page a
		 * line: its misses are first touches */
		st->pass_l2[*v - 1] += c->c[CG_D1MR] + c->c[CG_D1MW];
		st->pass_pages[*v - 1] += c->c[CG_DLMR] + c->c[CG_DLMW];
		seen[*v - 1] = true;
	}
	/* one it did not run: its last-level misses are L2's too */
	for (size_t k = 0; k < p->nr_insns; k++)
		if (!seen[k])
			st->pass_l2[k] = p->insns[k].c[CG_DLMR] + p->insns[k].c[CG_DLMW];
	u64map__exit(&at);
	free(seen);
	free(to);
}

/* How the D1 misses that the last level served are split between L2 and
 * L3: by the second pass's misses, or all priced as one level's hits
 * (where that pass did not run). Pricing is monotone in the split, so the
 * pass's answer lies between SPLIT_L2's and SPLIT_L3's. */
enum l2_split { SPLIT_PASS, SPLIT_L2, SPLIT_L3 };

static uint64_t ll_size(const struct model_state *st);

/* An instruction's TLB misses (tlb.c), from the last level's misses where
 * it missed a quarter of its accesses or more (a set past it, past the
 * reach; fewer are conflicts in a set within it). Not from L2's or L1's:
 * a chase around a fixed ring misses an LRU cache smaller than the ring
 * every time, whatever the ring's size (wl-model's chase over 8 MiB, the
 * reach, missed L2 on every load), so their misses do not say whether
 * the set is within the reach. */
static double tlb_of(const struct model_state *st, double acc, double m3)
{
	double ll = (double)ll_size(st), r = st->mc.reach;

	if (m3 >= 0.25 * acc && m3 > 0 && ll > r)
		return model_tlb_misses(acc, m3, ll, r);
	return 0;
}

/* Every instruction's terms; the modelled cycles, summed. Called again,
 * it prices afresh. */
static double price(struct model_state *st, enum l2_split how)
{
	const struct machine_costs *mc = &st->mc;
	size_t n = st->cg.nr_insns;
	bool pass = how == SPLIT_PASS && st->have_l2;
	/* L3's latency, measured by peak at half its size, less the walks
	 * that chase paid past the TLB's reach (priced apart) */
	double lat2 = mc->lat[2] - (mc->l3_measured ? model_tlb_in_latency(
					    (double)ll_size(st) / 2, mc->reach, mc->walk) : 0);
	double total = 0;

	if (lat2 < mc->lat[1])
		lat2 = mc->lat[1];

	if (!st->base) {
		st->base = xcalloc(n + 1, sizeof(double));
		st->fe = xcalloc(n + 1, sizeof(double));
		st->bad = xcalloc(n + 1, sizeof(double));
		st->mem = xcalloc(n + 1, sizeof(double));
		st->core = xcalloc(n + 1, sizeof(double));
		st->l2miss = xcalloc(n + 1, sizeof(uint64_t));
		st->pages = xcalloc(n + 1, sizeof(uint64_t));
	}
	memset(st->mem, 0, (n + 1) * sizeof(double));	/* the roofline adds to it */
	st->dram_chase = 0;
	st->fault_cycles = 0;
	st->tlb_misses = st->tlb_cycles = 0;
	for (size_t b = 0; b < st->nr_blocks; b++) {
		struct model_block *bl = &st->blocks[b];
		double stream = 0, basesum = 0;

		for (size_t i = bl->first; i < bl->first + bl->n; i++) {
			size_t k = st->ins[i].cg;
			const struct cg_insn *c = &st->cg.insns[k];
			double ir = (double)c->c[CG_IR];
			double m1 = (double)(c->c[CG_D1MR] + c->c[CG_D1MW]);
			double m3 = (double)(c->c[CG_DLMR] + c->c[CG_DLMW]), m2 = m1;
			double ret = ir / st->width, acc, tlb;

			if (pass) {
				m2 = (double)st->pass_l2[k];
			} else if (how == SPLIT_L2) {
				m2 = m3;
			}
			if (m2 > m1)
				m2 = m1;
			if (m3 > m2)
				m3 = m2;
			st->l2miss[k] = (uint64_t)m2;	/* as priced: the pass's, or the choice */
			st->pages[k] = st->have_native ? st->native_pages[k] :
				       st->have_pages ? st->pass_pages[k] : 0;
			if (st->ins[i].text && is_rep(st->ins[i].text))
				st->base[k] = ir * REP_CYCLES;
			else
				st->base[k] = !isnan(bl->cyc) ? bl->cyc * ir / (double)bl->n :
								ir * st->cpi_rest;
			basesum += st->base[k];
			st->core[k] = st->base[k] > ret ? st->base[k] - ret : 0;
			/* callgrind's indirect mispredicts are a last-target
			 * predictor's: priced at the share a core that
			 * follows the path misses (machine.c) */
			st->bad[k] = (st->bcm[k] + (double)c->c[CG_BIM] * mc->ind_missed) *
				     mc->penalty;
			st->fe[k] = (double)c->c[CG_I1MR] * mc->imiss +
				    (double)c->c[CG_ILMR] * (mc->lat[3] - mc->lat[1]);
			acc = (double)(c->c[CG_DR] + c->c[CG_DW]);
			/* accesses at random past the TLB's reach walk its page
			 * tables: a chain's or a miss nearly every access's
			 * (a stream's walk is one a page, hidden by its lines) */
			tlb = st->ins[i].dep_load || (acc > 0 && m1 >= 0.5 * acc) ?
			      tlb_of(st, acc, m3) * mc->walk : 0;
			st->tlb_misses += mc->walk > 0 ? tlb / mc->walk : 0;
			if (st->ins[i].dep_load) {	/* each miss waits for the one before */
				st->mem[k] = (m1 - m2) * (mc->lat[1] - mc->lat[0]) +
					     (m2 - m3) * (lat2 - mc->lat[0]) +
					     m3 * (mc->lat[3] - mc->lat[0]) + tlb;
				st->dram_chase += m3 * (mc->lat[3] - mc->lat[0]);
				st->tlb_cycles += tlb;
			} else {		/* misses overlap */
				double line = st->geo[GEO_D1].line ? st->geo[GEO_D1].line : 64;
				double bw = line * ((m1 - m2) / mc->bw[1] + (m2 - m3) / mc->bw[2] +
						    m3 / mc->bw[3]);

				/* a miss nearly every access is no stream the
				 * prefetchers follow: each costs its level's
				 * latency over the misses in flight */
				if (acc > 0 && m1 >= 0.5 * acc) {
					double lat = ((m1 - m2) * (mc->lat[1] - mc->lat[0]) +
						      (m2 - m3) * (lat2 - mc->lat[0]) +
						      m3 * (mc->lat[3] - mc->lat[0]) + tlb) / MODEL_MLP;

					if (lat > bw)
						bw = lat;
					st->tlb_cycles += tlb / MODEL_MLP;
				}
				stream += bw;
			}
			/* a first touch waits for its page: the user time a
			 * fault costs (peak's page test), beyond the roofline:
			 * the core does nothing else meanwhile */
			st->mem[k] += (double)st->pages[k] * mc->fault;
			st->fault_cycles += (double)st->pages[k] * mc->fault;
		}
		/* the roofline: a block's streaming misses cost what the
		 * memory takes beyond its own cycles */
		if (stream > basesum) {
			double extra = stream - basesum, tot = 0;

			for (size_t i = bl->first; i < bl->first + bl->n; i++) {
				const struct cg_insn *c = &st->cg.insns[st->ins[i].cg];

				if (!st->ins[i].dep_load)
					tot += (double)(c->c[CG_D1MR] + c->c[CG_D1MW]);
			}
			for (size_t i = bl->first; i < bl->first + bl->n && tot > 0; i++) {
				const struct cg_insn *c = &st->cg.insns[st->ins[i].cg];

				if (!st->ins[i].dep_load)
					st->mem[st->ins[i].cg] += extra *
						(double)(c->c[CG_D1MR] + c->c[CG_D1MW]) / tot;
			}
		}
	}
	/* conditional mispredicts' cycles where a profile shows them (bad_path) */
	for (size_t m = 0; m < st->nr_moves; m++) {
		const struct bad_move *mv = &st->moves[m];
		double amt = st->bcm[mv->from] * mc->penalty * mv->share;

		st->bad[mv->from] -= amt;
		st->bad[mv->to] += amt;
	}
	for (size_t i = 0; i < n; i++)
		total += st->base[i] + st->fe[i] + st->bad[i] + st->mem[i];
	return total;
}

/* The priced run's perf.data (write.c); run's instructions and cycles as
 * written (a forked child's copy of its parent's counts not among them). */
static int write_priced(const struct model_state *st, const struct model_opts *o, uint64_t t0,
			uint64_t t1, struct gx_meta *m, struct model_run *run, char **cause)
{
	/* the first pass's logs: a forked child's names its parent */
	char *logs = xasprintf("%s/callgrind.log.", st->scratch->path);
	struct model_priced pr = {
		.cg = &st->cg, .objs = st->objs, .base = st->base, .fe = st->fe, .bad = st->bad,
		.mem = st->mem, .core = st->core, .bcm = st->bcm, .l2miss = st->l2miss,
		.lat = st->mc.lat,
		.pages = st->pages, .ind_missed = st->mc.ind_missed, .pid = (uint32_t)st->pid,
		.log_prefix = logs,
	};
	int err = model_write_result(&pr, o, t0, t1, m, cause);

	for (uint32_t k = 0; !err && k < m->nr_events; k++)
		if (!strcmp(m->events[k].name, "instructions:exact"))
			run->instructions = m->events[k].count;
		else if (!strcmp(m->events[k].name, "cycles:modelled"))
			run->cycles = (double)m->events[k].count;
	free(logs);
	return err;
}

static void model_state__exit(struct model_state *st)
{
	cg_profile__exit(&st->cg);
	cg_profile__exit(&st->cg2);
	cg_lines__exit(&st->cl2);
	free(st->pass_l2);
	free(st->pass_pages);
	free(st->native_pages);
	model_faults__exit(&st->nf);
	for (size_t i = 0; i < st->nr_ins; i++)
		free(st->ins[i].text);
	free(st->ins);
	free(st->objs);
	free(st->blocks);
	free(st->base);
	free(st->fe);
	free(st->bad);
	free(st->moves);
	free(st->mem);
	free(st->core);
	free(st->bcm);
	free(st->l2miss);
	free(st->pages);
	model_machine__exit(&st->machine);
	gx_free_strv(st->notes, st->nr_notes);
}

static void say(const struct model_opts *o, bool warn, const char *fmt, ...) GX_PRINTF(3, 4);
static void say(const struct model_opts *o, bool warn, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!o->say || (o->quiet && !warn))
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	o->say(o->say_arg, warn, msg);
	free(msg);
}

/* Objects: their ELF files, where callgrind put them, a base of their own. */
static void place_objects(struct model_state *st)
{
	st->objs = xcalloc(st->cg.nr_objs + 1, sizeof(*st->objs));
	for (size_t k = 0; k < st->cg.nr_objs; k++) {
		st->objs[k].path = st->cg.objs[k];
		st->objs[k].lo = UINT64_MAX;
		st->objs[k].base = (uint64_t)(k + 1) << 40;
	}
	for (size_t i = 0; i < st->cg.nr_insns; i++) {
		struct model_obj *ob = &st->objs[st->cg.insns[i].obj];
		uint64_t a = st->cg.insns[i].addr;

		if (a < ob->lo)
			ob->lo = a;
		if (a > ob->hi)
			ob->hi = a;
	}
	for (size_t k = 0; k < st->cg.nr_objs; k++)
		if (st->objs[k].lo != UINT64_MAX)
			obj_read_elf(&st->objs[k]);
	/* an address that is no file's stays where callgrind put it */
	for (size_t k = 0; k < st->cg.nr_objs; k++)
		if (!st->objs[k].file)
			st->objs[k].base = 0, st->objs[k].bias = 0;
}

static void bias_bound(struct model_state *st);
static void bad_path(struct model_state *st);

static void model_code(struct model_state *st)
{
	st->nr_ins = st->cg.nr_insns;
	st->ins = xcalloc(st->nr_ins + 1, sizeof(*st->ins));
	for (size_t i = 0; i < st->nr_ins; i++) {
		st->ins[i].cg = i;
		st->ins[i].obj = st->cg.insns[i].obj;
		st->ins[i].addr = st->cg.insns[i].addr;
		st->ins[i].block = -1;
	}
	gx_qsort(st->ins, st->nr_ins, sizeof(*st->ins), cmp_ins);
	for (size_t i = 0; i < st->nr_ins;) {
		uint32_t k = st->cg.insns[st->ins[i].cg].obj;
		size_t j = i;
		uint64_t ir = 0;

		while (j < st->nr_ins && st->cg.insns[st->ins[j].cg].obj == k)
			ir += st->cg.insns[st->ins[j++].cg].c[CG_IR];
		/* objects with at least 0.1% of the instructions */
		if (st->objs[k].file && ir * 1000 >= st->cg.totals[CG_IR])
			disassemble(st, k, i, j);
		i = j;
	}
	find_blocks(st);
	for (size_t b = 0; b < st->nr_blocks; b++)
		mark_dependent(st, &st->blocks[b]);
	model_blocks(st);
	bias_bound(st);
	bad_path(st);
}

/* ---- where a mispredict's cycles show ------------------------------------- */

double model_miss_split(uint64_t taken, uint64_t execs)
{
	double p, r, q, t, n;

	if (!execs || taken > execs)
		return 0.5;
	p = (double)taken / (double)execs;
	/* a 2-bit counter on outcomes taken at rate p, each independent of
	 * the last: its states k = 0..3 (2, 3 predict taken) are held in
	 * proportion to r^k, r = p / (1 - p); q, the rate it predicts taken */
	if (p >= 0.5) {
		r = (1 - p) / p;	/* 1/r, so that p = 1 stays finite */
		q = (1 + r) / (1 + r + r * r + r * r * r);
	} else {
		r = p / (1 - p);
		q = (r * r + r * r * r) / (1 + r + r * r + r * r * r);
	}
	t = (double)taken * (1 - q);	/* taken, predicted not */
	n = (double)(execs - taken) * q;
	if (!(t + n > 0))	/* one way only */
		return taken == execs ? 1 : 0;
	return t / (t + n);
}

double model_miss_bound(uint64_t misses, uint64_t taken, uint64_t execs)
{
	uint64_t rare;

	if (taken > execs)
		taken = execs;
	rare = taken < execs - taken ? taken : execs - taken;
	return (double)(misses < rare ? misses : rare);
}

/* Index into st->ins of obj's instruction at addr, or SIZE_MAX. */
static size_t ins_at(const struct model_state *st, uint32_t obj, uint64_t addr)
{
	size_t lo = 0, hi = st->nr_ins;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct model_insn *m = &st->ins[mid];

		if (m->obj < obj || (m->obj == obj && m->addr < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nr_ins && st->ins[lo].obj == obj && st->ins[lo].addr == addr ? lo :
										       SIZE_MAX;
}

/* The instruction after st->ins[i] in its object (an instruction is at
 * most 15 bytes), or SIZE_MAX. */
static size_t ins_next(const struct model_state *st, size_t i)
{
	if (i == SIZE_MAX || i + 1 >= st->nr_ins || st->ins[i + 1].obj != st->ins[i].obj ||
	    st->ins[i + 1].addr - st->ins[i].addr > 15)
		return SIZE_MAX;
	return i + 1;
}

/* The native run's faults at callgrind's instructions: a fault's file
 * offset to the vaddr of the load segment that maps it, plus where
 * callgrind put the object. One at no instruction callgrind ran (code
 * that took another path natively) is counted apart, and said. */
static void native_pages(struct model_state *st)
{
	uint64_t missed = 0, n = 0;

	if (!st->have_native_run)
		return;
	st->native_pages = xcalloc(st->cg.nr_insns + 1, sizeof(uint64_t));
	for (size_t i = 0; i < st->nf.nr; i++) {
		const struct model_fault *f = &st->nf.v[i];
		size_t at = SIZE_MAX;

		for (uint32_t k = 0; k < st->cg.nr_objs && at == SIZE_MAX; k++) {
			const struct model_obj *o = &st->objs[k];

			if (!o->file || strcmp(o->path, st->nf.paths[f->path]))
				continue;
			for (int l = 0; l < o->nr_load; l++)
				if (f->off >= o->load[l].offset &&
				    f->off - o->load[l].offset < o->load[l].memsz)
					at = ins_at(st, k, f->off - o->load[l].offset +
						    o->load[l].vaddr + o->bias);
		}
		if (at == SIZE_MAX) {
			missed += f->n;
			continue;
		}
		st->native_pages[st->ins[at].cg] += f->n;
		n += f->n;
	}
	st->have_native = true;
	note(st, "model: the workload touched %" PRIu64 " pages first in a native run (the "
	     "page-faults software event in user space, a sample a fault)", n);
	if (missed + st->nf.unmapped)
		note(st, "model: %" PRIu64 " of the native run's %" PRIu64 " page faults were at "
		     "no instruction callgrind ran (%" PRIu64 " in no file's code): not priced",
		     missed + st->nf.unmapped, st->nf.total, st->nf.unmapped);
}

struct succ {
	size_t *to;		/* into st->ins */
	double *w;
	size_t n, cap, cap_w;
};

static void succ_add(struct succ *s, size_t to, double w)
{
	if (to == SIZE_MAX || !(w > 0))
		return;
	for (size_t k = 0; k < s->n; k++)
		if (s->to[k] == to) {
			s->w[k] += w;
			return;
		}
	s->to = xgrow(s->to, &s->cap, s->n + 1, sizeof(*s->to));
	s->w = xgrow(s->w, &s->cap_w, s->n + 1, sizeof(*s->w));
	s->to[s->n] = to;
	s->w[s->n++] = w;
}

static int cmp_call_site(const void *a, const void *b)
{
	const struct cg_call *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

static int cmp_call_fn(const void *a, const void *b)
{
	const struct cg_call *x = a, *y = b;

	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

static int cmp_jump_from(const void *a, const void *b)
{
	const struct cg_jump *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The run of v's n sorted entries whose key equals key's: its first in
 * *first, their number returned. */
static size_t run_of(const void *v, size_t n, size_t size, const void *key,
		     int (*cmp)(const void *, const void *), size_t *first)
{
	size_t lo = 0, hi = n, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp((const char *)v + mid * size, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < n && !cmp((const char *)v + k * size, key);)
		k++;
	*first = lo;
	return k - lo;
}

/* Where the path goes after st->ins[i] (its successors, weighted by how
 * often callgrind saw each): a call's callees, a jump's targets (and a
 * conditional one's next instruction), a return's sites (the instruction
 * after each call of its function), else the next instruction. */
static void successors(const struct model_state *st, const struct cg_call *by_site,
		       const struct cg_call *by_fn, const struct cg_jump *jumps, size_t i,
		       struct succ *s)
{
	const struct cg_insn *c = &st->cg.insns[st->ins[i].cg];
	size_t n = st->cg.nr_calls, first, k, cnt;
	struct cg_call ck = { .obj = c->obj, .site = c->addr };
	struct cg_jump jk = { .obj = c->obj, .from = c->addr };
	const char *t = st->ins[i].text;

	s->n = 0;
	cnt = run_of(by_site, n, sizeof(*by_site), &ck, cmp_call_site, &first);
	for (k = first; k < first + cnt; k++)
		succ_add(s, ins_at(st, by_site[k].cobj, by_site[k].entry), (double)by_site[k].count);
	if (cnt)
		return;
	cnt = run_of(jumps, st->cg.nr_jumps, sizeof(*jumps), &jk, cmp_jump_from, &first);
	for (k = first; k < first + cnt; k++) {
		succ_add(s, ins_at(st, jumps[k].obj, jumps[k].to), (double)jumps[k].count);
		if (jumps[k].cond)
			succ_add(s, ins_next(st, i), (double)(jumps[k].execs - jumps[k].count));
	}
	if (cnt)
		return;
	if (t && !strncmp(t, "ret", 3) && c->fn) {
		ck.fn = c->fn - 1;
		cnt = run_of(by_fn, n, sizeof(*by_fn), &ck, cmp_call_fn, &first);
		for (k = first; k < first + cnt; k++)
			succ_add(s, ins_next(st, ins_at(st, by_fn[k].obj, by_fn[k].site)),
				 (double)by_fn[k].count);
		return;
	}
	succ_add(s, ins_next(st, i), 1);
}

/*
 * Callgrind's conditional predictor is one table of 16 K two-bit
 * counters, untagged, indexed by the branch's address and the outcomes of
 * the last few branches: a hot branch that always goes one way misses
 * where another branch shares its counter and goes the other way. A
 * core's predictor tags its entries: it misses at most about what
 * predicting each branch's more frequent way would, the rarer way's
 * count (a 50:50 random branch's half; a branch that always goes one way,
 * none). sqlite3: sqlite3_free's `jne`, taken 122024 times of 122024, was
 * missed 60170 times, and 23% of all its conditional mispredicts were
 * beyond that bound; sort's cmp_u32 and branchy's random branches are at
 * it (2% and 0.6% beyond, in ld.so and libc). So each branch's
 * mispredicts are priced at most at its rarer way's count, taken from
 * callgrind's jumps (a branch with no jump record was never taken); where
 * callgrind collected no jumps at all, as counted.
 */
uint64_t model_bias_bound(const struct cg_profile *p, double *bcm)
{
	size_t nj = p->nr_jumps;
	struct cg_jump *jumps = xcalloc(nj + 1, sizeof(*jumps));
	uint64_t over = 0;

	if (nj)
		memcpy(jumps, p->jumps, nj * sizeof(*jumps));
	gx_qsort(jumps, nj, sizeof(*jumps), cmp_jump_from);
	for (size_t i = 0; i < p->nr_insns; i++) {
		const struct cg_insn *c = &p->insns[i];
		struct cg_jump jk = { .obj = c->obj, .from = c->addr };
		uint64_t taken = 0;
		size_t first, cnt;

		bcm[i] = (double)c->c[CG_BCM];
		if (!c->c[CG_BCM] || !nj)
			continue;
		cnt = run_of(jumps, nj, sizeof(*jumps), &jk, cmp_jump_from, &first);
		for (size_t k = first; k < first + cnt; k++)
			if (jumps[k].cond)
				taken += jumps[k].count;
		bcm[i] = model_miss_bound(c->c[CG_BCM], taken, c->c[CG_BC]);
		over += c->c[CG_BCM] - (uint64_t)bcm[i];
	}
	free(jumps);
	return over;
}

static void bias_bound(struct model_state *st)
{
	st->bcm = xcalloc(st->cg.nr_insns + 1, sizeof(double));
	st->bcm_over = model_bias_bound(&st->cg, st->bcm);
}

/*
 * A mispredict's cycles pass while the core fetches the right path again:
 * until the first instruction after the branch (the path it took) retires.
 * A sampling profile (a timer's, or a counter's overflow without precise
 * sampling) takes its interrupt there and reports the next instruction to
 * run: the path's second. Measured on this repository's kernels with a
 * cpu-clock profile: branchy's random branch puts 31-32% of its samples on
 * the second instruction of each way and none on either first; glibc's
 * msort calling cmp_u32, whose `jb` returns at once one way, 62% of
 * cmp_u32's on the second instruction of the other way (none on its
 * first) and 56% of msort's on the one after the call (5% of cmp_u32's on
 * its `ret`, the first of the way that returns). So each conditional branch's mispredicts go
 * to the second instruction of each way it goes, split between the ways
 * by model_miss_split (callgrind counts a branch's mispredicts, not which
 * way each went); where callgrind saw no path on (no jump records,
 * a return no call of which it saw) they stay at the branch. Indirect
 * jumps' stay at the jump (their targets' share of the misses unknown).
 */
static void bad_path(struct model_state *st)
{
	size_t nc = st->cg.nr_calls, nj = st->cg.nr_jumps, cap = 0;
	struct cg_call *by_site = xcalloc(nc + 1, sizeof(*by_site));
	struct cg_call *by_fn = xcalloc(nc + 1, sizeof(*by_fn));
	struct cg_jump *jumps = xcalloc(nj + 1, sizeof(*jumps));
	struct succ s1 = { 0 }, s2 = { 0 };

	if (nc) {
		memcpy(by_site, st->cg.calls, nc * sizeof(*by_site));
		memcpy(by_fn, st->cg.calls, nc * sizeof(*by_fn));
	}
	if (nj)
		memcpy(jumps, st->cg.jumps, nj * sizeof(*jumps));
	gx_qsort(by_site, nc, sizeof(*by_site), cmp_call_site);
	gx_qsort(by_fn, nc, sizeof(*by_fn), cmp_call_fn);
	gx_qsort(jumps, nj, sizeof(*jumps), cmp_jump_from);
	for (size_t i = 0; i < st->nr_ins; i++) {
		const struct cg_insn *c = &st->cg.insns[st->ins[i].cg];
		struct cg_jump jk = { .obj = c->obj, .from = c->addr };
		uint64_t taken = 0, execs = 0;
		size_t first, cnt;
		double tshare;

		if (!c->c[CG_BCM])
			continue;
		cnt = run_of(jumps, nj, sizeof(*jumps), &jk, cmp_jump_from, &first);
		for (size_t k = first; k < first + cnt; k++)
			if (jumps[k].cond)
				taken += jumps[k].count, execs += jumps[k].execs;
		if (!execs)
			continue;
		tshare = model_miss_split(taken, execs);
		/* each way's first instruction, then what follows it */
		successors(st, by_site, by_fn, jumps, i, &s1);
		for (size_t a = 0; a < s1.n; a++) {
			bool way_taken = s1.to[a] != ins_next(st, i);
			double wsum = 0, share;

			/* a way's share of the mispredicts, over its targets */
			for (size_t b = 0; b < s1.n; b++)
				if ((s1.to[b] != ins_next(st, i)) == way_taken)
					wsum += s1.w[b];
			share = (way_taken ? tshare : 1 - tshare) * s1.w[a] / wsum;
			if (!(share > 0))
				continue;
			successors(st, by_site, by_fn, jumps, s1.to[a], &s2);
			if (!s2.n)
				succ_add(&s2, s1.to[a], 1);
			wsum = 0;
			for (size_t b = 0; b < s2.n; b++)
				wsum += s2.w[b];
			for (size_t b = 0; b < s2.n; b++) {
				st->moves = xgrow(st->moves, &cap, st->nr_moves + 1, sizeof(*st->moves));
				st->moves[st->nr_moves++] = (struct bad_move){
					.from = st->ins[i].cg, .to = st->ins[s2.to[b]].cg,
					.share = share * s2.w[b] / wsum };
			}
		}
	}
	free(s1.to), free(s1.w), free(s2.to), free(s2.w);
	free(by_site);
	free(by_fn);
	free(jumps);
}

/* The last level callgrind simulated. */
static uint64_t ll_size(const struct model_state *st)
{
	return st->geo[GEO_L3].size ? st->geo[GEO_L3].size : st->geo[GEO_L2].size;
}

/* GX_MODEL_PASSES: 1, 2, or auto (0, also when unset); GX_MODEL_ONE_PASS=1
 * is 1. -1: another value. */
static int model_passes(void)
{
	const char *p = getenv("GX_MODEL_PASSES"), *one = getenv("GX_MODEL_ONE_PASS");

	if (p && *p)
		return !strcmp(p, "1") ? 1 : !strcmp(p, "2") ? 2 : !strcmp(p, "auto") ? 0 : -1;
	return one && *one && strcmp(one, "0") ? 1 : 0;
}

/* Whether the second pass can give the workload its standard input again:
 * a regular file from the offset it had (the first pass reads it on), a
 * terminal, a device such as /dev/null or no stdin at all as they are; a
 * pipe or a socket is gone once read (a workload that reads none runs
 * the same: second_pass finds out by its instructions). */
static void stdin_state(struct model_state *st)
{
	struct stat sb;

	st->stdin_at = -1;
	st->stdin_why = NULL;
	if (fstat(STDIN_FILENO, &sb) < 0)
		return;
	if (S_ISREG(sb.st_mode)) {
		st->stdin_at = lseek(STDIN_FILENO, 0, SEEK_CUR);
		if (st->stdin_at < 0)
			st->stdin_why = "its standard input, a file that cannot seek";
	} else if (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)) {
		st->stdin_why = "its standard input is a pipe or a socket, which a second run "
				"cannot read again: redirect it from a file";
	}
}

/* The second pass, under cachegrind (pass_spread). Its D1 is L2, so that its D1 misses are
 * L2's (simulated on every access, where L2 sees L1's misses only: LRU
 * kept on the whole stream, as by a cache inclusive of L1), and its last
 * level is a cache of pages (a line a page, 1 GiB of them): each line it
 * misses is a page touched for the first time, a page fault natively,
 * given to the instruction that touched it.
 *
 * A D1 miss the first pass's last level served is an L2 or an L3 hit;
 * Valgrind's two levels tell them apart only by this pass. A page touched
 * first costs the user time `gexplore peak`'s page test measured. In
 * auto (passes 0) the pass runs when either can matter: the cycles with
 * every L2/L3 hit priced as L3's less those with every one priced as
 * L2's, plus the most the first touches can cost (a page's first touch
 * misses every level: at most one a last-level miss), are at least
 * MODEL_SPLIT_SHARE of the latter; else the hits are priced as L2's and
 * no page at all (the modelled cycles then low by at most that bound),
 * and a note says so. The modelled cycles, every instruction priced. */
#define MODEL_SPLIT_SHARE 0.02
#define MODEL_PAGE_CACHE ((uint64_t)1 << 30)

/* The most the first touches can cost: a page's first touch misses every
 * level, so at most one a last-level data miss, at peak's price. */
static double faults_bound(const struct model_state *st)
{
	if (st->have_native_run)
		return 0;	/* counted natively: priced at every split alike */
	return (double)(st->cg.totals[CG_DLMR] + st->cg.totals[CG_DLMW]) * st->mc.fault;
}

/*
 * How the second pass runs. Cachegrind takes half callgrind's time, but
 * counts by source line (of a function, in a file): pass_spread shares a
 * line's among its instructions. A function without a symbol is "???" to
 * cachegrind, all such functions one line: where they hold more than
 * MODEL_LINES_UNKNOWN of the first pass's data misses (a stripped
 * program's static functions), or of its last-level misses, the pass runs
 * under callgrind, whose counts are the instructions'. GX_MODEL_SECOND:
 * callgrind or cachegrind, else auto.
 */
#define MODEL_LINES_UNKNOWN 0.05
/* instructions the two passes may differ by, beyond 1%, on the same path */
#define MODEL_PASS_SLACK 20000.0

static enum model_pass second_how(const struct model_state *st, bool *forced)
{
	const char *e = getenv("GX_MODEL_SECOND");
	uint64_t m1 = 0, m3 = 0, u1 = 0, u3 = 0;

	*forced = e && (!strcmp(e, "callgrind") || !strcmp(e, "cachegrind"));
	if (*forced)
		return !strcmp(e, "callgrind") ? PASS_INSNS : PASS_LINES;
	for (size_t k = 0; k < st->cg.nr_insns; k++) {
		const struct cg_insn *c = &st->cg.insns[k];
		uint64_t a = c->c[CG_D1MR] + c->c[CG_D1MW], b = c->c[CG_DLMR] + c->c[CG_DLMW];

		m1 += a, m3 += b;
		if (!strcmp(insn_fn(&st->cg, c), "???"))
			u1 += a, u3 += b;
	}
	return (double)u1 > MODEL_LINES_UNKNOWN * (double)m1 ||
	       (double)u3 > MODEL_LINES_UNKNOWN * (double)m3 ? PASS_INSNS : PASS_LINES;
}

/* Starts the second pass into st->pass2, its standard input a file again
 * from where the first began: 0, or a negative code with *cause set. */
static int spawn_second(struct model_state *st, const char *valgrind,
			const struct model_opts *o, char **cause)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct cache_geo geo[3] = {
		st->geo[GEO_I1], st->geo[GEO_L2].size ? st->geo[GEO_L2] : st->geo[GEO_D1],
		{ MODEL_PAGE_CACHE, 16, pg >= 4096 && pg <= 65536 ? (unsigned)pg : 4096 } };

	if (st->stdin_at >= 0 && lseek(STDIN_FILENO, st->stdin_at, SEEK_SET) < 0)
		return gx_fail(cause, -errno, "its standard input could not be read again: %s",
			       strerror(errno));
	st->pass2_how = second_how(st, &st->pass2_forced);
	return model_vg__start(&st->pass2, valgrind, o, st->scratch, st->pass2_how, geo, cause);
}

/* The second pass at once, where it will be wanted: it runs while the
 * code is read and modelled (llvm-objdump, llvm-mca: 3.5 s of sqlite3's
 * 21). Wanted: GX_MODEL_PASSES=2, or in auto where the first touches
 * alone can cost 2% of the cycles if the program ran an instruction a
 * cycle (most run faster: their share is then larger, and the pass would
 * run anyway; a slower one's pass is used, not wasted). */
static void second_pass_early(struct model_state *st, const char *valgrind,
			      const struct model_opts *o, int passes)
{
	double faults = faults_bound(st);
	char *why = NULL;

	if (passes == 1 || st->stopped ||
	    (passes == 0 && !(faults > 0 && faults >= MODEL_SPLIT_SHARE *
						(double)st->cg.totals[CG_IR])))
		return;
	if (spawn_second(st, valgrind, o, &why) != 0)
		model_vg__exit(&st->pass2);
	free(why);	/* second_pass tries again and says why */
}

static double second_pass(struct model_state *st, const char *valgrind,
			  const struct model_opts *o, int passes)
{
	bool split = st->geo[GEO_L3].size && st->geo[GEO_L2].size;
	double hi, lo, bound, faults, lost, slack;
	uint64_t ran, ir2;
	char *why = NULL;
	bool started = st->pass2.c != NULL;
	int s2, err = 0;

	hi = split ? price(st, SPLIT_L3) : 0;
	lo = price(st, SPLIT_L2);
	if (!split)
		hi = lo;
	faults = faults_bound(st);
	bound = hi - lo + faults;
	/* a stopped run is modelled as far as it went, at once */
	if (!started && (passes == 1 || st->stopped ||
			 (passes == 0 && bound < MODEL_SPLIT_SHARE * lo))) {
		if (split || faults > 0)
			note(st, "model: the second pass (L2 as its first data cache, which tells L2 "
			     "hits from L3 hits, and pages as its last level, which counts their first "
			     "touches) was skipped (%s): %s%s; modelled cycles are low by at most "
			     "%.0f (%.2f%%)",
			     st->stopped ? "the run was stopped" : passes == 1 ? "GX_MODEL_PASSES=1" :
			     "it could change them by less than 2%",
			     split ? "the D1 misses L2 or L3 served are priced as L2 hits" : "",
			     faults > 0 ? (split ? ", and no first touch of a page is priced" :
					   "no first touch of a page is priced") : "",
			     bound, lo > 0 ? 100 * bound / lo : 0.0);
		return lo;
	}
	if (!started)
		err = spawn_second(st, valgrind, o, &why);
	if (err) {
		model_vg__exit(&st->pass2);
		note(st, "model: the second pass was not run (%s): the D1 misses L2 or L3 "
		     "served are priced as L2 hits%s", why, st->have_native_run ? "" :
		     ", and no first touch of a page is priced");
		free(why);
		return price(st, SPLIT_L2);
	}
	/* one stopped while the code was modelled is stopped at once */
	s2 = model_vg__wait(&st->pass2, 0, &st->stopped);
	if (s2 >= 0 && st->stopped)
		s2 = gx_fail(&why, -EINTR, "stopped by %s", st->stopped < 0 ? "--duration" :
			     strsignal(st->stopped));
	if (s2 >= 0)
		s2 = model_vg__read(&st->pass2, o, st->scratch, &st->cg2, &st->cl2, &why);
	model_vg__exit(&st->pass2);
	ran = st->pass2_how == PASS_LINES ? st->cl2.n : st->cg2.nr_insns;
	ir2 = st->pass2_how == PASS_LINES ? st->cl2.totals[CG_IR] : st->cg2.totals[CG_IR];
	/* a workload that took another path the second time (its input, the
	 * clock, a random seed) ran other instructions: its misses are not
	 * the first pass's (cachegrind counts the exit's 1-2 K instructions
	 * more than callgrind: a small program's difference) */
	slack = 0.01 * (double)st->cg.totals[CG_IR];
	if (slack < MODEL_PASS_SLACK)
		slack = MODEL_PASS_SLACK;
	if (s2 >= 0 && ran && fabs((double)ir2 - (double)st->cg.totals[CG_IR]) > slack) {
		note(st, "model: the second pass ran %" PRIu64 " instructions where the first "
		     "ran %" PRIu64 " (the workload took another path: %s); its counts are not used: "
		     "the D1 misses L2 or L3 served are priced as L2 hits%s", ir2,
		     st->cg.totals[CG_IR], st->stdin_why ? st->stdin_why :
		     "its input, the clock or a random seed", st->have_native_run ? "" :
		     ", and no first touch of a page is priced");
		free(why);
		return price(st, SPLIT_L2);
	}
	st->have_pages = s2 >= 0 && ran;
	st->have_l2 = st->have_pages && st->geo[GEO_L2].size;
	if (!st->have_pages) {
		note(st, "model: the second pass failed (%s): %s", why ? why : "no output",
		     split && !st->have_native_run ? "L2 and L3 hits are priced as L3's, and no "
		     "first touch of a page is priced" : split ? "L2 and L3 hits are priced as L3's" :
		     st->have_native_run ? "nothing of it is used" :
		     "no first touch of a page is priced");
		free(why);
		return split ? price(st, SPLIT_L3) : price(st, SPLIT_L2);
	}
	free(why);
	note(st, "model: the second pass ran under %s", st->pass2_how == PASS_LINES ?
	     "cachegrind (half callgrind's time): its counts by source line are shared among each "
	     "line's instructions by the first pass's misses" : st->pass2_forced ?
	     "callgrind (GX_MODEL_SECOND=callgrind)" :
	     "callgrind: functions without a symbol, one line to cachegrind, hold over 5% of the "
	     "first pass's data misses");
	if (st->pass2_how == PASS_LINES) {
		pass_spread(st, &lost);
		if (lost > 0.01)
			note(st, "model: %.1f%% of the second pass's L2 misses and first touches were "
			     "at source lines the first pass did not run: not priced", 100 * lost);
	} else {
		pass_take(st);
	}
	return price(st, SPLIT_PASS);
}

/* What the first touches as priced cost (the native run's, or the second
 * pass's), said once the cycles are known. */
static void pages_note(struct model_state *st, double total)
{
	uint64_t n = 0;

	if (!st->pages)
		return;
	for (size_t i = 0; i < st->cg.nr_insns; i++)
		n += st->pages[i];
	if (st->mc.fault_measured && (st->have_native || st->have_pages))
		note(st, "model: the workload touched %" PRIu64 " pages first (page faults "
		     "natively, %s), each priced at %.0f cycles of its own time, as `gexplore peak` "
		     "measured a first touch to cost here: %.1f%% of the modelled cycles (Backend "
		     "Bound, Memory)%s", n, st->have_native ? "as counted in a native run" :
		     "as the second pass estimated them", st->mc.fault,
		     total > 0 ? 100 * st->fault_cycles / total : 0.0, st->have_native ? "" :
		     "; a page touched after the workload's first 1 GiB may be counted again");
	else if (n)
		note(st, "model: the workload touched %" PRIu64 " pages first (page faults "
		     "natively), priced at nothing: machine description '%s' says what a first "
		     "touch costs (`gexplore peak --save` measures it here)", n,
		     st->machine.name);
}

/*
 * First touches counted natively (faults.c), where a first touch has a
 * price (a measured description's page_fault: the shipped ones price
 * none, and the run is skipped) and the workload's input can be given
 * again; the second pass then runs only where L2's hits matter.
 * GX_MODEL_FAULTS=valgrind leaves them to the second pass, as before.
 * A run bounded by --duration is not run again: the native one would run
 * to its end.
 */
static void native_run(struct model_state *st, const struct model_opts *o)
{
	const char *e = getenv("GX_MODEL_FAULTS");
	char *why = NULL;
	int sig = 0;

	if (st->stopped || st->mc.fault <= 0 || (e && !strcmp(e, "valgrind")))
		return;
	if (o->duration_s > 0 || st->stdin_why) {
		note(st, "model: first touches were not counted natively (%s): the second pass "
		     "counts them", o->duration_s > 0 ? "--duration bounds the run" :
		     st->stdin_why);
		return;
	}
	if (st->stdin_at >= 0 && lseek(STDIN_FILENO, st->stdin_at, SEEK_SET) < 0) {
		note(st, "model: first touches were not counted natively (its standard input "
		     "could not be read again: %s): the second pass counts them", strerror(errno));
		return;
	}
	if (model_faults__native(o->argv, &st->nf, &sig, &why) == 0)
		st->have_native_run = true;
	else if (sig)
		st->stopped = sig;
	else
		note(st, "model: the native run that counts first touches failed (%s): the "
		     "second pass counts them", why ? why : "no reason given");
	free(why);
}

/* What stopped a run: "SIGINT", "--duration". */
static const char *stop_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" :
	       "--duration";
}

/* meta.json's status of a run stopped by sig (0: none), as native
 * record's: SIGTERM and SIGHUP killed it, SIGINT (and --duration)
 * interrupted it. */
static const char *stop_status(int sig)
{
	return !sig ? GX_META_STATUS_COMPLETE : sig == SIGTERM || sig == SIGHUP ?
	       GX_META_STATUS_KILLED : GX_META_STATUS_INTERRUPTED;
}

/* The first pass, until the workload ends or is stopped (st->stopped):
 * its profile in st->cg. The workload's status, or a negative code with
 * *cause: one naming the instruction where Valgrind could not run one. */
static int first_pass(struct model_state *st, const char *valgrind, const struct model_opts *o,
		      char **cause)
{
	struct cache_geo geo[3] = { st->geo[GEO_I1], st->geo[GEO_D1],
				    st->geo[GEO_L3].size ? st->geo[GEO_L3] : st->geo[GEO_L2] };
	uint64_t deadline = o->duration_s > 0 ? gx_now_ns() + (uint64_t)(o->duration_s * 1e9) : 0;
	struct model_vg v;
	int status, err;

	err = model_vg__start(&v, valgrind, o, st->scratch, PASS_FULL, geo, cause);
	if (err)
		return err;
	st->pid = v.pid;
	status = model_vg__wait(&v, deadline, &st->stopped);
	if (status == 128 + SIGILL)
		err = model_vg__unrecognised(&v, st->scratch, cause);
	if (!err && status < 0)
		err = gx_fail(cause, GX_E_CHILD, "valgrind ended without a status (its keeper "
			      "died)");
	if (!err)
		err = model_vg__read(&v, o, st->scratch, &st->cg, NULL, cause);
	if (model_stop__count() >= 3)
		err = gx_fail(cause, -EINTR, "--model: a third signal killed Valgrind: no result");
	else if (err && st->stopped && status != 128 + SIGILL)
		err = gx_fail(cause, -EINTR, "--model: %s stopped the run before Valgrind wrote "
			      "what the workload ran: no result", stop_name(st->stopped));
	model_vg__exit(&v);
	return err ? err : status;
}

int model_record(const struct model_opts *o, struct model_run *run, char **cause)
{
	struct model_state st = { 0 };
	struct model_scratch scratch = { .fd = -1, .parent = -1 };
	struct gx_meta m;
	char *valgrind = model_which("valgrind"), *mca = model_which("llvm-mca");
	uint64_t t0, t1;
	int status, err = 0, passes;
	double cycles = 0;
	double full;

	memset(run, 0, sizeof(*run));
	gx_meta__init(&m);
	cg_profile__init(&st.cg);
	cg_profile__init(&st.cg2);
	cg_lines__init(&st.cl2);
	if (!valgrind) {
		err = gx_fail(cause, GX_E_USAGE, "--model: valgrind not found on PATH: install "
			      "the Debian package valgrind");
		goto out;
	}
	if (!mca) {
		err = gx_fail(cause, GX_E_USAGE, "--model: llvm-mca not found on PATH: install "
			      "the Debian package llvm");
		goto out;
	}
	passes = model_passes();
	if (passes < 0) {
		err = gx_fail(cause, GX_E_USAGE, "--model: GX_MODEL_PASSES is 1, 2 or auto, not "
			      "'%s'", gx_esc(getenv("GX_MODEL_PASSES")));
		goto out;
	}
	err = model_machine__load(&st.machine, o->machine, cause);
	if (err)
		goto out;
	err = model_scratch__create(&scratch, o->dirfd, o->keep_valgrind, cause);
	if (err)
		goto out;
	st.scratch = &scratch;
	model_stop__catch();
	st.mcpu = st.machine.mcpu;
	model_machine_geometry(st.geo, &st.machine);
	model_machine_costs(&st.mc, &st.machine);
	say(o, false, "--model: running under valgrind (callgrind, the caches of machine "
	    "description '%s': I1 %" PRIu64 " KiB, D1 %" PRIu64 " KiB, LL %" PRIu64 " KiB); "
	    "expect it 100 to 300 times slower", st.machine.name,
	    st.geo[GEO_I1].size >> 10, st.geo[GEO_D1].size >> 10,
	    (st.geo[GEO_L3].size ? st.geo[GEO_L3].size : st.geo[GEO_L2].size) >> 10);
	stdin_state(&st);
	t0 = gx_now_ns();
	status = first_pass(&st, valgrind, o, cause);
	t1 = gx_now_ns();
	if (status < 0) {
		err = status;
		goto out;
	}
	run->status = status;
	note(&st, "model: priced with machine description '%s'%s%s%s (llvm-mca -mcpu=%s: %s)",
	     st.machine.name, st.machine.file ? " (" : "", st.machine.file ? st.machine.file : "",
	     st.machine.file ? ")" : "", st.mcpu, st.machine.mcpu_source);
	if (st.mc.imiss_measured)
		note(&st, "model: an instruction-cache miss that L2 serves is priced at %.1f cycles, as "
		     "`gexplore peak` measured one on a predicted path (its icache test: the front end "
		     "fetches ahead of the path and overlaps the fill), not at L2's data latency less "
		     "L1's (%.0f)", st.mc.imiss, st.mc.lat[1] - st.mc.lat[0]);
	if (!st.mc.measured)
		note(&st, "model: memory priced by description '%s''s documented latencies, not "
		     "measured ones (`gexplore peak --save FILE`, then --model=FILE, prices by this "
		     "machine's)", st.machine.name);
	native_run(&st, o);
	second_pass_early(&st, valgrind, o, passes);
	place_objects(&st);
	model_code(&st);
	native_pages(&st);
	if (!st.stopped)
		st.stopped = model_stop__signal();	/* came while the code was modelled */
	cycles = second_pass(&st, valgrind, o, passes);
	pages_note(&st, cycles);
	if (model_stop__count() >= 3) {
		err = gx_fail(cause, -EINTR, "--model: a third signal: no result");
		goto out;
	}
	if (st.stopped)
		note(&st, "model: %s stopped the run: the result is what the workload ran until "
		     "then", stop_name(st.stopped));
	/* a chase that misses a last level at least as large as peak's
	 * largest working set chases a larger one than any peak measured */
	if (st.dram_chase > 0.02 * cycles && st.mc.lat_bytes > 0 &&
	    (double)ll_size(&st) >= st.mc.lat_bytes)
		note(&st, "model: loads chasing a working set larger than the last level (%" PRIu64
		     " KiB) are priced at the latency `gexplore peak` measured over its largest, "
		     "%.0f KiB (%.0f cycles); a larger one waits longer (TLB misses): their %.0f%% "
		     "of the modelled cycles is a lower bound", ll_size(&st) >> 10,
		     st.mc.lat_bytes / 1024, st.mc.lat[3], 100 * st.dram_chase / cycles);
	if (st.tlb_cycles > 0.005 * cycles)
		note(&st, "model: %.0f TLB misses estimated (callgrind simulates no TLB: accesses "
		     "that miss the last level, as at random over a set past it and past the TLB's "
		     "reach of %.0f KiB), each priced at a walk of %.0f cycles: %.1f%% of the modelled "
		     "cycles",
		     st.tlb_misses, st.mc.reach / 1024, st.mc.walk, 100 * st.tlb_cycles / cycles);
	/* callgrind's indirect mispredicts: a simulator that predicts the
	 * last target, where this core follows the path */
	full = (double)st.cg.totals[CG_BIM] * (1 - st.mc.ind_missed) * st.mc.penalty;
	if (full > 0.01 * cycles) {
		note(&st, "model: callgrind's simulator predicts an indirect jump's last target only "
		     "and missed %" PRIu64 " of %" PRIu64 "; machine description '%s' says this core "
		     "misses %.0f%% of a repeated sequence of targets that simulator misses every one "
		     "of, so they are priced at %.0f%% (a jump whose targets follow no path is missed "
		     "by both: priced in full they would add %.0f cycles, %.1f%%)",
		     st.cg.totals[CG_BIM], st.cg.totals[CG_BI], st.machine.name, 100 * st.mc.ind_missed,
		     100 * st.mc.ind_missed, full, cycles > 0 ? 100 * full / cycles : 0.0);
	}
	if (st.bcm_over)
		note(&st, "model: callgrind's predictor (16 K two-bit counters, untagged) missed %"
		     PRIu64 " conditional branches, %" PRIu64 " of them beyond what predicting each "
		     "branch's more frequent way misses (a branch sharing another's counter): a "
		     "core's tagged predictor is priced at that bound",
		     st.cg.totals[CG_BCM], st.bcm_over);
	m.gexplore_version = xstrdup(PACKAGE_VERSION);
	for (m.argc = 0; o->argv[m.argc]; m.argc++)
		;
	m.argv = xcalloc(m.argc + 1, sizeof(*m.argv));
	for (uint32_t i = 0; i < m.argc; i++)
		m.argv[i] = xstrdup(o->argv[i]);
	m.exited = status < 128;
	m.exit_code = status < 128 ? status : 0;
	m.term_signal = status >= 128 ? status - 128 : 0;
	m.cpu_model = xstrdup("modelled");
	m.smt = -1;
	m.pmu = false;
	m.modelled = true;
	m.callgraph = xstrdup(o->callgraph ? "callgrind" : "none");
	m.rate = 1;
	/* the program's modelled time; the model run's own beside it */
	m.duration_s = cycles / (st.mc.ghz * 1e9);
	m.model_run_s = (double)(t1 - t0) / 1e9;
	model_machine__to_meta(&st.machine, &m.machine);
	m.self_cpu_s = NAN;
	m.sampling_s = NAN;
	m.sample_cost_ns = NAN;
	gx_meta__add_warning(&m, "modelled: no PMU counted this run; it ran under Valgrind "
			     "(callgrind), instructions and branches are exact counts, misses and "
			     "mispredicts simulated, cycles modelled (machine description '%s': "
			     "llvm-mca -mcpu=%s, memory priced by %s, mispredicts x %.0f cycles, %s)",
			     st.machine.name, st.mcpu, st.mc.measured ? "measured latencies" :
			     "documented latencies", st.mc.penalty,
			     st.mc.penalty_measured ? "measured" : "documented");
	for (size_t i = 0; i < st.nr_notes; i++)
		gx_meta__add_warning(&m, "%s", st.notes[i]);
	err = write_priced(&st, o, t0, t1, &m, run, cause);
	if (err)
		goto out;
	m.status = xstrdup(stop_status(st.stopped));
	run->stopped = st.stopped;
	err = gx_meta__write_at(&m, o->dirfd, o->dir, cause);
	if (!err) {
		for (size_t i = 0; i < st.nr_notes; i++)
			say(o, true, "%s", st.notes[i]);
		say(o, false, "recorded %s (modelled%s%s): %" PRIu64 " instructions (exact), %.0f "
		    "cycles (modelled, CPI %.2f); 'gexplore report %s' to see it", o->dir,
		    st.stopped ? ", stopped by " : "", st.stopped ? stop_name(st.stopped) : "",
		    run->instructions, run->cycles, run->instructions ?
		    run->cycles / (double)run->instructions : 0.0, o->dir);
	}
out:
	model_vg__exit(&st.pass2);
	model_scratch__exit(&scratch);
	model_stop__restore();
	gx_meta__exit(&m);
	model_state__exit(&st);
	free(valgrind);
	free(mca);
	return err;
}
