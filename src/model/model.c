/*
 * model.c: a modelled recording. The workload runs under callgrind with
 * the machine description's caches; its self costs per instruction are priced
 * in cycles (llvm-mca per hot basic block, misses by the latencies and
 * bandwidths of a machine description, description.c, mispredicts by
 * its penalty) and written as a
 * normal result: perf.data samples whose period is the count at that
 * address, meta.json with "modelled": true and the model "modelled".
 * What the first pass cannot tell (L2's hits, first touches) is passes.c's.
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

#include "flow/flow.h"
#include "model-int.h"
#include "perfdata/perfdata.h"
#include "util/util.h"

/* ---- objects: where callgrind's addresses lie in the files ---------------- */

/* An object's file by its absolute path, or a negative code: what is there
 * now may have been swapped since the program ran it (a FIFO would block
 * the open, a device read forever): util's open of a regular file. */
static int open_regular(const char *path)
{
	return path[0] == '/' ? gx_open_regular(path, NULL, NULL) : -ENOENT;
}

static void obj_read_elf(struct model_obj *o)
{
	int fd = open_regular(o->path);
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
	o->machine = eh.e_machine;
	for (size_t i = 0; i < n && o->nr_load < 8; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->load[o->nr_load].vaddr = ph.p_vaddr;
		o->load[o->nr_load].memsz = ph.p_memsz;
		o->load[o->nr_load].offset = ph.p_offset;
		o->load[o->nr_load].filesz = ph.p_filesz;
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

static int cmp_ins(const void *a, const void *b)
{
	const struct model_insn *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A rep-prefixed string instruction: callgrind counts each of its
 * iterations as one instruction, llvm-mca prices it as a whole run (100
 * cycles): it is priced per iteration instead (REP_CYCLES). */
static bool is_rep(const char *t)
{
	return !strncmp(t, "rep", 3);
}

/* The text of object k's executed instructions ins[i0 .. i1), sorted by
 * address, by LLVM's disassembler in process (disasm.c), from the file's
 * bytes read a window at a time; false where it cannot be used (then
 * llvm-objdump). */
static bool disassemble_here(struct model_state *st, uint32_t k, size_t i0, size_t i1)
{
	const struct model_obj *o = &st->objs[k];
	enum { WIN = 1 << 16, MAXLEN = 15 };
	uint8_t *win;
	uint64_t wlo = 0, whi = 0;	/* file offsets the window holds */
	void *dc;
	int fd;

	if (o->path[0] != '/' || !(dc = model_disasm__open(o->machine)))
		return false;
	fd = open_regular(o->path);
	if (fd < 0) {
		model_disasm__close(dc);
		return false;
	}
	win = xmalloc(WIN);
	for (size_t i = i0; i < i1; i++) {
		uint64_t addr = st->cg.insns[st->ins[i].cg].addr - o->bias, off = 0, n = 0;
		char text[160];

		for (int s = 0; s < o->nr_load; s++) {
			if ((o->load[s].flags & PF_X) && addr >= o->load[s].vaddr &&
			    addr - o->load[s].vaddr < o->load[s].filesz) {
				off = o->load[s].offset + (addr - o->load[s].vaddr);
				n = o->load[s].filesz - (addr - o->load[s].vaddr);
				break;
			}
		}
		if (!n)
			continue;
		if (n > MAXLEN)
			n = MAXLEN;
		if (off < wlo || off + n > whi) {
			ssize_t got = pread(fd, win, WIN, (off_t)off);

			wlo = off;
			whi = got > 0 ? off + (uint64_t)got : off;
		}
		if (off + n > whi)
			n = whi > off ? whi - off : 0;
		if (n && model_disasm__insn(dc, win + (off - wlo), n, addr, text, sizeof(text))) {
			st->ins[i].text = xstrdup(text);
			st->ins[i].rep = is_rep(text);
		}
	}
	free(win);
	close(fd);
	model_disasm__close(dc);
	return true;
}

static void disassemble_tool(struct model_state *st, uint32_t k, size_t i0, size_t i1);

/* Disassemble object k's executed instructions and attach the text to them. */
static void disassemble(struct model_state *st, uint32_t k, size_t i0, size_t i1)
{
	if (!disassemble_here(st, k, i0, i1))
		disassemble_tool(st, k, i0, i1);
}

/* The same by llvm-objdump, over the range from the lowest executed address
 * to the highest. */
static void disassemble_tool(struct model_state *st, uint32_t k, size_t i0, size_t i1)
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
			if (*t && !strstr(t, "<unknown>") && !strstr(t, "(bad)")) {
				st->ins[*v - 1].text = model_insn_clean(t, strlen(t));
				st->ins[*v - 1].rep = is_rep(st->ins[*v - 1].text);
			}
		}
		s = nl ? nl + 1 : NULL;
	}
out:
	u64map__exit(&at);
	free(text);
	free(start);
	free(stop);
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
		struct model_block b = { .first = i, .n = 1, .region = -1, .cyc = NAN, .cyc_mca = NAN };
		const struct cg_insn *c0 = &st->cg.insns[st->ins[i].cg];

		b.execs = c0->c[CG_IR];
		while (i + b.n < st->nr_ins && b.n < MODEL_MAX_BLOCK_LEN) {
			const struct model_insn *prev = &st->ins[i + b.n - 1], *m = &st->ins[i + b.n];
			const struct cg_insn *c = &st->cg.insns[m->cg];

			if (!prev->text || !m->text || c->obj != c0->obj || c->c[CG_IR] != b.execs ||
			    c->addr - st->cg.insns[prev->cg].addr > 16 || flow_insn_ends_run(prev->text))
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

void model_note(struct model_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gx_strv_vaddf(&st->notes, &st->nr_notes, fmt, ap);
	va_end(ap);
}

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

/* A calibration region: a chase of 12 loads, each the next's address, to
 * set llvm-mca's load latency beside the description's L1 latency (x86). */
static void add_load_region(char ***lines, size_t *n, size_t region)
{
	gx_strv_addf(lines, n, "# LLVM-MCA-BEGIN b%zu", region);
	for (int r = 0; r < 12; r++)
		gx_strv_addf(lines, n, "movq (%%rax), %%rax");
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
	uint64_t target;
	enum flow_kind k = flow_insn_kind(last->text, &target);

	return (k == FLOW_COND || k == FLOW_JUMP) && last->text[0] == 'j' &&
	       target + st->objs[first->obj].bias == first->addr;
}

/* A throughput's scale: the description's over llvm-mca's, where they
 * differ by over 10%; else 1. */
static double tput_scale(double desc, double mca)
{
	return desc > 0 && mca > 0 && fabs(desc - mca) > 0.1 * desc ? desc / mca : 1;
}

/* A loop's cycles where its chain runs through loads: each of them at the
 * description's L1 latency (lat1), where llvm-mca gives a load `load`
 * (llvm 14's znver3: 5 cycles where AMD documents 4 and peak measures
 * 4.0; wl-model's chase_l1 ran at 3.8 cycles a load measured, 5.03
 * modelled). Only where the chain's loads take half its cycles or more
 * (else another chain or its resources bound it), and by at most their
 * share. */
static double chain_cycles(double cyc, unsigned chain, double load, double lat1)
{
	double through = chain * load, set;

	if (!chain || !(load > 0) || !(lat1 > 0) || fabs(lat1 - load) <= 0.1 * lat1 ||
	    through < 0.5 * cyc)
		return cyc;
	set = cyc + chain * (lat1 - load);
	return set < cyc * lat1 / load ? cyc * lat1 / load : set;
}

size_t model_block_scale(struct model_state *st, double *fma_scale, double *add_scale)
{
	double fs = tput_scale(st->mc.fma_tput, st->fma_mca);
	double as = tput_scale(st->mc.add_tput, st->add_mca), sum_cyc = 0, sum_ir = 0;
	size_t chains = 0;

	for (size_t k = 0; k < st->nr_blocks; k++) {
		struct model_block *b = &st->blocks[k];
		double c;

		if (isnan(b->cyc_mca))
			continue;
		c = chain_cycles(b->cyc_mca, b->chain, st->load_mca, st->mc.lat[0]);
		chains += c != b->cyc_mca;
		b->cyc = c * (b->scale == BLOCK_FMA ? fs : b->scale == BLOCK_INT ? as : 1);
		sum_cyc += b->cyc * (double)b->execs;
		sum_ir += (double)b->execs * (double)b->n;
	}
	st->cpi_rest = sum_ir > 0 ? sum_cyc / sum_ir : 1;
	if (fma_scale)
		*fma_scale = fs;
	if (add_scale)
		*add_scale = as;
	return chains;
}

/* The hot blocks through llvm-mca in one run; cpi_rest from what it said. */
static void model_blocks(struct model_state *st)
{
	struct model_block *order = xcalloc(st->nr_blocks + 1, sizeof(*order));
	char **lines = NULL, *cause = NULL;
	size_t nl = 0, nr = 0, dropped = 0, nb = st->nr_blocks;
	uint64_t total = st->cg.totals[CG_IR], covered = 0;
	double *cyc, *rt = NULL, fma_scale = 1, add_scale = 1;
	int *region_block;
	size_t chains, bound = 0;
	bool x86 = strncmp(st->mcpu, "neoverse", 8) && strncmp(st->mcpu, "cortex", 6);
	struct mca_lat *lat = NULL;

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
	if (x86) {
		add_fma_region(&lines, &nl, nr);
		add_int_region(&lines, &nl, nr + 1);
		add_load_region(&lines, &nl, nr + 2);
	}
	cyc = xcalloc(nr + 4, sizeof(*cyc));
	rt = xcalloc(nr + 4, sizeof(*rt));
	if (x86)	/* the chain of latencies is read in x86 code only */
		lat = xcalloc(nr + 4, sizeof(*lat));
	if (mca_run(st->scratch, st->mcpu, lines, nl, nr + 3, cyc, rt, lat, &st->width, &dropped,
		    &cause) != 0) {
		model_note(st, "model: llvm-mca gave no cycles (%s): every instruction priced at "
		           "one cycle", cause);
		st->cpi_rest = 1;
		goto out;
	}
	if (dropped)
		model_note(st, "model: llvm-mca could not read %zu of the hot instructions; their "
		           "blocks are modelled without them", dropped);
	st->fma_mca = cyc[nr] / 12;
	st->add_mca = cyc[nr + 1] / 12;
	st->load_mca = cyc[nr + 2] / 12;
	for (size_t r = 0; r < nr; r++) {
		struct model_block *b = &st->blocks[region_block[r]];

		if (!(cyc[r] >= 0))
			continue;
		/* llvm-mca repeats a block as if it were a loop: in one that is
		 * not, a chain through its registers from one run to the next
		 * is not there, and the out-of-order core overlaps it with
		 * what follows: its resources' bound, not the chain */
		b->cyc_mca = is_loop(st, b) || !(rt[r] > 0) ? cyc[r] : rt[r];
		/* a loop slower in llvm-mca's schedule than both its units'
		 * bound and its chain of latencies: its scheduler's choice of
		 * a unit (eval-kernels' imul_chain: a shift on the only ALU
		 * that multiplies, 5 cycles a turn where Zen 3 and 5 take 4);
		 * the larger of the two */
		if (lat && is_loop(st, b) && rt[r] > 0 && !has_vec(st, b)) {
			double rec = model_block_recurrence(st, b, &lat[r]);
			double most = rec > rt[r] ? rec : rt[r];

			if (!isnan(rec) && cyc[r] > 1.05 * most)
				b->cyc_mca = most, bound++;
		}
		b->scale = has_fma(st, b) ? BLOCK_FMA :
			   rt[r] > 0 && b->cyc_mca <= 1.05 * rt[r] && !has_vec(st, b) ?
			   BLOCK_INT : BLOCK_UNSCALED;	/* its integer resources' bound */
		if (is_loop(st, b))
			for (size_t i = b->first; i < b->first + b->n; i++)
				b->chain += st->ins[i].dep_load;
	}
	chains = model_block_scale(st, &fma_scale, &add_scale);
	if (bound)
		model_note(st, "model: %zu %s ran slower in llvm-mca's schedule than both %s "
		           "units' bound and %s chain of latencies: priced at the larger of the "
		           "two", bound, bound == 1 ? "loop" : "loops", bound == 1 ? "its" : "their",
		           bound == 1 ? "its" : "their");
	if (chains)
		model_note(st, "model: llvm-mca's %s gives a load %.2f cycles of latency where "
		           "machine description '%s' gives L1 %.2f: the description wins in "
		           "%zu %s whose chain runs through %s loads", st->mcpu, st->load_mca,
		           st->machine.name, st->mc.lat[0], chains, chains == 1 ? "loop" : "loops",
		           chains == 1 ? "its" : "their");
	if (fma_scale != 1)
		model_note(st, "model: llvm-mca's %s gives one vfmadd231pd ymm every %.2f cycles "
		           "where machine description '%s' gives %.2f: the description wins; "
		           "blocks with FMAs are scaled by %.2f", st->mcpu, st->fma_mca,
		           st->machine.name, st->mc.fma_tput, fma_scale);
	/* the same for the integer units, which set the pace of most code:
	 * llvm 14's znver3 has 4 ALUs where Zen 5 has 6 (peak: 5.2 adds a
	 * cycle); a block bound by its resources runs at the measured pace,
	 * a chain of dependencies at its latencies, unscaled */
	if (add_scale != 1)
		model_note(st, "model: llvm-mca's %s runs an independent add r64 every %.2f "
		           "cycles where machine description '%s' gives %.2f: the description "
		           "wins; integer blocks bound by their resources (not by a chain of "
		           "dependencies) are scaled by %.2f", st->mcpu, st->add_mca,
		           st->machine.name, st->mc.add_tput, add_scale);
out:
	if (!(st->width > 0))
		st->width = 4;
	free(cause);
	free(cyc);
	free(rt);
	for (size_t r = 0; lat && r < nr + 4; r++)
		free(lat[r].v);
	free(lat);
	free(region_block);
	gx_free_strv(lines, nl);
	free(order);
}

/* The first pass's logs, each named by this prefix and its pid: a forked
 * child's names its parent (model_tasks). Allocated. */
static char *first_logs(const struct model_state *st)
{
	return xasprintf("%s/callgrind.log.", st->scratch->path);
}

/* The priced run's perf.data (write.c); run's instructions and cycles as
 * written (a forked child's copy of its parent's counts not among them). */
static int write_priced(const struct model_state *st, const struct model_opts *o, uint64_t t0,
			uint64_t t1, double cycles, struct gx_meta *m, struct model_run *run,
			char **cause)
{
	char *logs = first_logs(st);
	struct model_priced pr = {
		.cg = &st->cg, .objs = st->objs, .base = st->base, .fe = st->fe, .bad = st->bad,
		.mem = st->mem, .core = st->core, .bcm = st->bcm, .l2miss = st->l2miss,
		.lat = st->mc.lat,
		.pages = st->pages, .ind_missed = st->mc.ind_missed, .pid = (uint32_t)st->pid,
		.log_prefix = logs,
	};
	const char **text = xcalloc(st->cg.nr_insns + 1, sizeof(*text));
	int err = model_write_result(&pr, o, t0, t1, m, cause);

	for (size_t i = 0; i < st->nr_ins; i++)	/* the loops table (loops.c) */
		text[st->ins[i].cg] = st->ins[i].text;
	if (!err)
		err = model_loops_write(&pr, text, o->dirfd, cause);
	if (!err)
		err = model_terms_write(st, &pr, cycles, o->dirfd, cause);
	free(text);
	for (uint32_t k = 0; !err && k < m->nr_events; k++)
		if (!strcmp(m->events[k].name, "instructions:exact"))
			run->instructions = m->events[k].count;
		else if (!strcmp(m->events[k].name, "cycles:modelled"))
			run->cycles = (double)m->events[k].count;
	free(logs);
	return err;
}

void model_state__exit(struct model_state *st)
{
	cg_profile__exit(&st->cg);
	cg_profile__exit(&st->cg2);
	cg_lines__exit(&st->cl2);
	free(st->pass_l2);
	free(st->pass_pages);
	free(st->pass_tlb);
	free(st->native_pages);
	free(st->net);
	free(st->vg_env);
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

/* A forked child's copy of its parent's counts (callgrind's) is taken off
 * per part when the result is written (model_tasks); what is left of each
 * instruction's is its share the run's own (st->net). */
static void model_net(struct model_state *st, const struct model_opts *o)
{
	struct model_tasks tk;
	double *own = xcalloc(st->cg.nr_insns + 1, sizeof(*own));
	char *logs = first_logs(st);

	model_tasks__build(&tk, &st->cg, (uint32_t)st->pid, model_argv0(o), logs);
	free(logs);
	for (size_t j = 0; j < st->cg.nr_pins; j++)
		own[st->cg.pins[j].insn] += (double)tk.c[j][CG_IR];
	for (size_t k = 0; k < st->cg.nr_insns; k++) {
		double ir = (double)st->cg.insns[k].c[CG_IR];

		own[k] = ir > 0 && own[k] < ir ? own[k] / ir : 1;
	}
	model_tasks__exit(&tk);
	free(st->net);
	st->net = own;
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
		model_mark_dependent(st, &st->blocks[b]);
	model_mark_chains(st, NULL);
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
size_t model_ins_at(const struct model_state *st, uint32_t obj, uint64_t addr)
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
		succ_add(s, model_ins_at(st, by_site[k].cobj, by_site[k].entry), (double)by_site[k].count);
	if (cnt)
		return;
	cnt = run_of(jumps, st->cg.nr_jumps, sizeof(*jumps), &jk, cmp_jump_from, &first);
	for (k = first; k < first + cnt; k++) {
		succ_add(s, model_ins_at(st, jumps[k].obj, jumps[k].to), (double)jumps[k].count);
		if (jumps[k].cond)
			succ_add(s, ins_next(st, i), (double)(jumps[k].execs - jumps[k].count));
	}
	if (cnt)
		return;
	if (t && !strncmp(t, "ret", 3) && c->fn) {
		ck.fn = c->fn - 1;
		cnt = run_of(by_fn, n, sizeof(*by_fn), &ck, cmp_call_fn, &first);
		for (k = first; k < first + cnt; k++)
			succ_add(s, ins_next(st, model_ins_at(st, by_fn[k].obj, by_fn[k].site)),
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
uint64_t model_ll_size(const struct model_state *st)
{
	return st->geo[GEO_L3].size ? st->geo[GEO_L3].size : st->geo[GEO_L2].size;
}

/* What the cycles' pricing leaves to be said: chases past the largest set
 * peak measured, TLB misses, callgrind's indirect and conditional
 * mispredicts as priced. */
static void cost_notes(struct model_state *st, double cycles)
{
	struct model_cpu cpu;
	double full;

	/* a chase that misses a last level at least as large as peak's
	 * largest working set chases a larger one than any peak measured */
	if (st->dram_chase > 0.02 * cycles && st->mc.lat_bytes > 0 &&
	    (double)model_ll_size(st) >= st->mc.lat_bytes)
		model_note(st, "model: loads chasing a working set larger than the last level (%"
		           PRIu64 " KiB) are priced at the latency `gexplore peak` measured over "
		           "its largest, %.0f KiB (%.0f cycles); a larger one waits longer (TLB "
		           "misses): their %.0f%% of the modelled cycles is a lower bound",
		           model_ll_size(st) >> 10, st->mc.lat_bytes / 1024, st->mc.lat[3],
		           100 * st->dram_chase / cycles);
	if (st->tlb_cycles > 0.005 * cycles && st->have_tlb && st->split == SPLIT_PASS)
		model_note(st, "model: %.0f TLB misses counted (%s last level a "
		           "cache of %" PRIu64 " pages, %u-way: the TLB's reach of %.0f KiB, "
		           "seen by L2's misses), each priced at a walk of %.0f cycles: %.1f%% "
		           "of the modelled cycles", st->tlb_misses,
		           st->first_grind ? "gxgrind's second hierarchy's" : "the second pass's",
		           st->tlb_geo.line ? st->tlb_geo.size / st->tlb_geo.line : 0,
		           st->tlb_geo.assoc, st->mc.reach / 1024, st->mc.walk,
		           100 * st->tlb_cycles / cycles);
	else if (st->tlb_cycles > 0.005 * cycles)
		model_note(st, "model: %.0f TLB misses estimated (callgrind simulates no TLB: "
		           "accesses that miss the last level, as at random over a set past it "
		           "and past the TLB's reach of %.0f KiB), each priced at a walk of %.0f "
		           "cycles: %.1f%% of the modelled cycles", st->tlb_misses,
		           st->mc.reach / 1024, st->mc.walk, 100 * st->tlb_cycles / cycles);
	if (st->in_flight_misses > 0)
		model_note(st, "model: %.0f misses past L2 at random (not a chain's, not in a "
		           "stride) against %.0f mispredicts: %.1f in flight at once (those "
		           "between two mispredicts, at most 10: a mispredict empties the window, "
		           "and a branch that waits for a line overlaps it with nothing)",
		           st->in_flight_misses, st->in_flight_bad, st->in_flight);
	model_cpu_detect(&cpu);
	if (cpu.guest && st->tlb_cycles > 0.005 * cycles &&
	    !model_machine__measured(&st->machine, MP_TLB_WALK))
		model_note(st, "model: this is a virtual machine, where a page walk goes through "
		           "the host's page tables too and costs several times a bare machine's "
		           "(90-190 cycles on a shared Zen 3 VM): description '%s' prices one at "
		           "%.0f cycles (`gexplore peak --save FILE` measures one here)",
		           st->machine.name, st->mc.walk);
	if (cpu.guest && !(st->mc.fault > 0) && !st->mc.fault_measured)
		model_note(st, "model: this is a virtual machine, whose hypervisor may charge part "
		           "of each page fault to the instruction that made it (0 to 24,000 cycles "
		           "on this project's shared VMs, by host): description '%s' prices a "
		           "first touch at nothing (`gexplore peak --save FILE` measures one here)",
		           st->machine.name);
	/* callgrind's indirect mispredicts: a simulator that predicts the
	 * last target, where this core follows the path */
	full = (double)st->cg.totals[CG_BIM] * (1 - st->mc.ind_missed) * st->mc.penalty;
	if (full > 0.01 * cycles) {
		model_note(st, "model: callgrind's simulator predicts an indirect jump's last "
		           "target only and missed %" PRIu64 " of %" PRIu64 "; machine "
		           "description '%s' says this core misses %.0f%% of a repeated sequence "
		           "of targets that simulator misses every one of, so they are priced at "
		           "%.0f%% (a jump whose targets follow no path is missed by both: priced "
		           "in full they would add %.0f cycles, %.1f%%)", st->cg.totals[CG_BIM],
		           st->cg.totals[CG_BI], st->machine.name, 100 * st->mc.ind_missed,
		           100 * st->mc.ind_missed, full, cycles > 0 ? 100 * full / cycles : 0.0);
	}
	if (st->bcm_over || st->first_grind)
		model_note(st, "model: %s missed %" PRIu64 " conditional branches, %" PRIu64 " of "
		           "them beyond what predicting each branch's more frequent way misses: "
		           "priced at that bound", st->first_grind && model_vg__tage() ?
		           "gxgrind's tagged predictor (6 x 4 K entries over the last 5 to 176 "
		           "outcomes, as TAGE; GX_MODEL_PREDICTOR=2bit: callgrind's)" :
		           "callgrind's predictor (16 K two-bit counters, untagged)",
		           st->cg.totals[CG_BCM], st->bcm_over);
}

/* meta.json of the modelled run: its command, status, times (the
 * program's modelled duration; the model run's own beside it), the
 * description and the warning that says what was modelled. */
static void fill_meta(const struct model_state *st, const struct model_opts *o,
		      struct gx_meta *m, int status, double cycles, uint64_t t0, uint64_t t1)
{
	m->gexplore_version = xstrdup(PACKAGE_VERSION);
	for (m->argc = 0; o->argv[m->argc]; m->argc++)
		;
	m->argv = xcalloc(m->argc + 1, sizeof(*m->argv));
	for (uint32_t i = 0; i < m->argc; i++)
		m->argv[i] = xstrdup(o->argv[i]);
	m->exited = status < 128;
	m->exit_code = status < 128 ? status : 0;
	m->term_signal = status >= 128 ? status - 128 : 0;
	m->cpu_model = xstrdup("modelled");
	m->smt = -1;
	m->pmu = false;
	m->modelled = true;
	m->callgraph = xstrdup(o->callgraph ? "callgrind" : "none");
	m->rate = 1;
	/* the program's modelled time; the model run's own beside it */
	m->duration_s = cycles / (st->mc.ghz * 1e9);
	m->model_run_s = (double)(t1 - t0) / 1e9;
	model_machine__to_meta(&st->machine, &m->machine);
	m->model_predictor = xstrdup(st->first_grind && model_vg__tage() ? GX_PREDICTOR_TAGE :
				     GX_PREDICTOR_2BIT);
	m->model_rules = GX_MODEL_RULES;
	m->self_cpu_s = NAN;
	m->sampling_s = NAN;
	m->sample_cost_ns = NAN;
	gx_meta__add_warning(m, "modelled: no PMU counted this run; it ran under Valgrind "
			     "(%s), instructions and branches are exact counts, misses and "
			     "mispredicts simulated, cycles modelled (machine description '%s': "
			     "llvm-mca -mcpu=%s, memory priced by %s, mispredicts x %.0f cycles, %s)",
			     st->first_grind ? "gxgrind" : "callgrind", st->machine.name, st->mcpu,
			     st->mc.measured ? "measured latencies" :
			     "documented latencies", st->mc.penalty,
			     st->mc.penalty_measured ? "measured" : "documented");
}

/* Which prices the run is priced with, said in the result. */
static void price_notes(struct model_state *st)
{
	model_note(st, "model: priced with machine description '%s'%s%s%s (llvm-mca -mcpu=%s: %s)",
	           st->machine.name, st->machine.file ? " (" : "",
	           st->machine.file ? st->machine.file : "", st->machine.file ? ")" : "",
	           st->mcpu, st->machine.mcpu_source);
	if (st->mc.imiss_measured)
		model_note(st, "model: an instruction-cache miss that L2 serves is priced at %.1f "
		           "cycles, as `gexplore peak` measured one on a predicted path (its "
		           "icache test: the front end fetches ahead of the path and overlaps the "
		           "fill), not at L2's data latency less L1's (%.0f)", st->mc.imiss,
		           st->mc.lat[1] - st->mc.lat[0]);
	model_note(st, "model: an instruction-cache miss where a jump or a branch led (a "
	           "block's first instruction) is priced at %.1f cycles, one on the way on into "
	           "a block's next line at %.1f (the front end fetches a sequential path "
	           "ahead; %s)", st->mc.imiss, st->mc.iseq,
	           model_machine__measured(&st->machine, MP_ISEQ) ?
	           "`gexplore peak` measured it here" : "the description's figure");
	if (!st->mc.measured)
		model_note(st, "model: memory priced by description '%s''s documented latencies, "
		           "not measured ones (`gexplore peak --save FILE`, then --model=FILE, "
		           "prices by this machine's)", st->machine.name);
}

/* Valgrind and llvm-mca found, GX_MODEL_PASSES understood (*passes). */
static int tools_ready(const char *valgrind, const char *mca, int *passes, char **cause)
{
	if (!valgrind)
		return gx_fail(cause, GX_E_USAGE, "--model: valgrind not found on PATH: install "
			       "the Debian package valgrind");
	if (!mca)
		return gx_fail(cause, GX_E_USAGE, "--model: llvm-mca not found on PATH: install "
			       "the Debian package llvm");
	*passes = model_passes();
	if (*passes < 0)
		return gx_fail(cause, GX_E_USAGE, "--model: GX_MODEL_PASSES is 1, 2 or auto, not "
			       "'%s'", gx_esc(getenv("GX_MODEL_PASSES")));
	return 0;
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

	err = model_vg__start(&v, valgrind, o, st->scratch,
			      st->first_grind ? PASS_GFIRST : PASS_FULL, geo, st->first_h2, st->vg_env,
			      cause);
	if (err)
		return err;
	st->pid = v.pid;
	status = model_vg__wait(&v, deadline, &st->stopped);
	if (status == 128 + SIGILL)
		err = model_vg__unrecognised(&v, st->scratch, cause);
	if (!err && status < 0)
		err = gx_fail(cause, GX_E_CHILD, "valgrind ended without a status (its keeper "
			      "died)");
	if (!err && !(err = model_vg__read(&v, o, st->scratch, &st->cg, NULL, cause))) {
		model_zero_fill_note(st);
		model_strides(st);
	}
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
	const char *why = NULL;
	uint64_t t0, t1;
	int status, err = 0, passes = 0;
	double cycles = 0;

	memset(run, 0, sizeof(*run));
	gx_meta__init(&m);
	cg_profile__init(&st.cg);
	cg_profile__init(&st.cg2);
	cg_lines__init(&st.cl2);
	err = tools_ready(valgrind, mca, &passes, cause);
	if (err)
		goto out;
	err = model_machine__load(&st.machine, o->machine, cause);
	if (err)
		goto out;
	err = model_scratch__create(&scratch, o->dirfd, o->keep_valgrind, cause);
	if (err)
		goto out;
	st.scratch = &scratch;
	st.vg_env = model_grind_env(valgrind, &scratch, &why);
	if (why)
		model_note(&st, "model: gxgrind, gexplore's Valgrind tool, cannot run (%s): the "
		           "workload runs under callgrind, the second pass, where it runs, "
		           "under cachegrind or callgrind", why);
	model_stop__catch();
	st.mcpu = st.machine.mcpu;
	st.window = true;	/* misses in flight between two mispredicts (price.c) */
	model_machine_geometry(st.geo, &st.machine);
	model_machine_costs(&st.mc, &st.machine);
	st.first_grind = model_first_grind(&st, st.first_h2);
	say(o, false, "--model: running under valgrind (%s, the caches of machine "
	    "description '%s': I1 %" PRIu64 " KiB, D1 %" PRIu64 " KiB, LL %" PRIu64 " KiB); "
	    "expect it %s times slower", st.first_grind ? "gxgrind" : "callgrind", st.machine.name,
	    st.geo[GEO_I1].size >> 10, st.geo[GEO_D1].size >> 10,
	    (st.geo[GEO_L3].size ? st.geo[GEO_L3].size : st.geo[GEO_L2].size) >> 10,
	    st.first_grind ? "5 to 300" : "100 to 300");
	model_stdin_state(&st);
	t0 = gx_now_ns();
	status = first_pass(&st, valgrind, o, cause);
	t1 = gx_now_ns();
	if (status < 0) {
		err = status;
		goto out;
	}
	run->status = status;
	price_notes(&st);
	model_net(&st, o);
	model_native_run(&st, o);
	model_second_pass_early(&st, valgrind, o, passes);
	place_objects(&st);
	model_code(&st);
	model_native_pages(&st, o);
	if (!st.stopped)
		st.stopped = model_stop__signal();	/* came while the code was modelled */
	cycles = model_second_pass(&st, valgrind, o, passes);
	model_pages_note(&st, cycles);
	if (model_stop__count() >= 3) {
		err = gx_fail(cause, -EINTR, "--model: a third signal: no result");
		goto out;
	}
	if (st.stopped)
		model_note(&st, "model: %s stopped the run: the result is what the workload ran "
		           "until then", stop_name(st.stopped));
	cost_notes(&st, cycles);
	fill_meta(&st, o, &m, status, cycles, t0, t1);
	for (size_t i = 0; i < st.nr_notes; i++)
		gx_meta__add_warning(&m, "%s", st.notes[i]);
	err = write_priced(&st, o, t0, t1, cycles, &m, run, cause);
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
