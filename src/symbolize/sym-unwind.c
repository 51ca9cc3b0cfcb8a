/*
 * sym-unwind.c: offline DWARF unwinding of a sample's copied user stack
 * (--call-graph dwarf) with libunwind's remote API. The "remote process"
 * is an address space whose memory is the sample's stack copy plus the
 * bytes of the mapped ELF files, whose registers are the sample's
 * registers, and whose unwind tables are each file's .eh_frame_hdr binary
 * search table (handed to libunwind as a UNW_INFO_FORMAT_REMOTE_TABLE).
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(HAVE_LIBUNWIND) && defined(__x86_64__)
#define SYM_HAVE_UNWIND 1
#include <libunwind.h>

/* Exported by libunwind but not declared in its headers. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					       unw_dyn_info_t *di, unw_proc_info_t *pi,
					       int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

/*
 * libunwind is opened the first time a sample is unwound, not linked: only
 * a --call-graph dwarf result needs it (issue 26, part 4). Its functions
 * are macros for UNW_OBJ(name) (_Ux86_64_step): each is defined here under
 * that name, as a call through the address gx_lazylib__open resolved.
 */
#define UNW_FNS(X, V, D) \
	X(unw_addr_space_t, unw_create_addr_space, (unw_accessors_t *a, int order), (a, order)) \
	V(unw_destroy_addr_space, (unw_addr_space_t as), (as)) \
	X(int, unw_set_caching_policy, (unw_addr_space_t as, unw_caching_policy_t p), (as, p)) \
	X(int, unw_set_cache_size, (unw_addr_space_t as, size_t size, int flag), (as, size, flag)) \
	V(unw_flush_cache, (unw_addr_space_t as, unw_word_t lo, unw_word_t hi), (as, lo, hi)) \
	X(int, unw_init_remote, (unw_cursor_t *c, unw_addr_space_t as, void *arg), (c, as, arg)) \
	X(int, unw_step, (unw_cursor_t *c), (c)) \
	X(int, unw_get_reg, (unw_cursor_t *c, int reg, unw_word_t *v), (c, reg, v)) \
	X(int, dwarf_search_unwind_table, (unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di, \
					   unw_proc_info_t *pi, int need, void *arg), \
	  (as, ip, di, pi, need, arg))

GX_LAZYLIB_DEFINE(libunwind, UNW_FNS, "libunwind-x86_64.so.8", "libunwind8")

#define NR_PERF_REGS 24
#define MAX_KNOWN 16
#define SYNTH_BASE 0x4000000000000000ull	/* synthetic search tables (below) */

/* How far above sp a read still counts as the thread's stack (its default
 * size is 8 MiB; a larger one is rarer than the frames it would cost). */
#define STACK_REACH (64ull << 20)

struct unwind_ctx {
	struct sym_session *s;
	const struct sym_unwind_input *in;
	uint64_t regs[NR_PERF_REGS];
	uint32_t have;			/* bit per perf register */
	uint64_t sp;
	bool past_copy;			/* a read above the stack copy was asked */
	/* modules met so far with their load bias (process addr - ELF vaddr) */
	struct {
		struct sym_dso *dso;
		uint64_t bias;
	} known[MAX_KNOWN];
	size_t nr_known;
	/* the last mapping find_map gave: frames of one module ask in a row */
	struct sym_dso *last_dso;
	uint64_t last_start, last_end, last_bias;
};

struct sym_unwinder {
	struct sym_session *s;
	struct sym_cfi *cfi;		/* the rows of the modules' CFI met so far */
	bool libunwind;			/* GX_UNWIND=libunwind: libunwind steps */
	unw_addr_space_t as;
	uint64_t space;			/* the address space its cache is about */
	struct unwind_ctx c;		/* per call, reused: no allocation per sample */
	uint64_t unwinds, frames;	/* for the session's stats */
};

/* libunwind x86-64 register number -> perf's PERF_REG_X86_* */
static const int8_t unw_to_perf[] = {
	[UNW_X86_64_RAX] = SYM_X86_AX, [UNW_X86_64_RDX] = SYM_X86_DX,
	[UNW_X86_64_RCX] = SYM_X86_CX, [UNW_X86_64_RBX] = SYM_X86_BX,
	[UNW_X86_64_RSI] = SYM_X86_SI, [UNW_X86_64_RDI] = SYM_X86_DI,
	[UNW_X86_64_RBP] = SYM_X86_BP, [UNW_X86_64_RSP] = SYM_X86_SP,
	[UNW_X86_64_R8] = SYM_X86_R8, [UNW_X86_64_R9] = SYM_X86_R9,
	[UNW_X86_64_R10] = SYM_X86_R10, [UNW_X86_64_R11] = SYM_X86_R11,
	[UNW_X86_64_R12] = SYM_X86_R12, [UNW_X86_64_R13] = SYM_X86_R13,
	[UNW_X86_64_R14] = SYM_X86_R14, [UNW_X86_64_R15] = SYM_X86_R15,
	[UNW_X86_64_RIP] = SYM_X86_IP,
};

static void probe_eh_frame_hdr(struct sym_dso *dso);

/*
 * The module opened with its unwind table probed, for any thread: the first
 * unwinder that needs it does both under the session's lock.
 */
static bool dso_ready(struct sym_session *s, struct sym_dso *dso)
{
	if (!__atomic_load_n(&dso->unwind_ready, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&s->lock);
		if (!dso->unwind_ready) {
			sym_dso__open(dso);
			if (dso->elf && !dso->unwind_probed)
				probe_eh_frame_hdr(dso);
			if (dso->elf && !dso->cfi)
				dso->cfi = dwarf_getcfi_elf(dso->elf);
			__atomic_store_n(&dso->unwind_ready, true, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&s->lock);
	}
	return dso->open_err == 0 && dso->elf;
}

/*
 * The module mapped at a process address and its load bias. The mapping
 * asked last answers first; then the caller's maps. A module seen earlier
 * in this unwind also answers for its segments that were not recorded as
 * mappings (perf records only executable mappings, while .eh_frame_hdr
 * often sits in a read-only one).
 */
static struct sym_dso *dso_at(struct unwind_ctx *c, uint64_t addr, uint64_t *bias)
{
	uint64_t start, len, pgoff, vaddr;
	struct sym_dso *dso = NULL;
	size_t i;

	if (c->last_dso && addr >= c->last_start && addr < c->last_end) {
		*bias = c->last_bias;
		return c->last_dso;
	}
	if (c->in->find_map(c->in->ctx, addr, &dso, &start, &len, &pgoff) == 0 && dso &&
	    dso_ready(c->s, dso) &&
	    sym_dso__offset_to_addr(dso, sym_map_offset(addr, start, pgoff), &vaddr)) {
		*bias = addr - vaddr;
		c->last_dso = dso;
		c->last_start = start;
		c->last_end = start + len;
		c->last_bias = *bias;
		for (i = 0; i < c->nr_known; i++)
			if (c->known[i].dso == dso && c->known[i].bias == *bias)
				return dso;
		if (c->nr_known < MAX_KNOWN) {
			c->known[c->nr_known].dso = dso;
			c->known[c->nr_known++].bias = *bias;
		}
		return dso;
	}
	return NULL;
}

static int read_word(struct unwind_ctx *c, uint64_t addr, uint64_t *val)
{
	struct sym_dso *dso;
	uint64_t bias;
	size_t i;

	if (addr >= c->sp && addr + 8 <= c->sp + c->in->stack_size && addr + 8 > addr) {
		memcpy(val, (const char *)c->in->stack + (addr - c->sp), 8);
		return 0;
	}
	/* the caller's frame lies above what the kernel copied: the stack
	 * (8 MiB by default) goes on where the copy ends */
	if (addr >= c->sp + c->in->stack_size && addr - c->sp < STACK_REACH)
		c->past_copy = true;
	if (addr >= SYNTH_BASE && addr < SYNTH_BASE + ((uint64_t)c->s->nr_dsos << 32)) {
		struct sym_dso *d = c->s->dsos[(addr - SYNTH_BASE) >> 32];
		uint64_t off = (addr - SYNTH_BASE) & 0xffffffffull;

		if (!d->eh_synth || off + 8 > d->eh_table_entries * 8)
			return -1;
		memcpy(val, (const char *)d->eh_synth + off, 8);
		return 0;
	}
	dso = dso_at(c, addr, &bias);
	if (dso && sym_dso__read_vaddr(dso, addr - bias, val, 8))
		return 0;
	for (i = 0; i < c->nr_known; i++)
		if (sym_dso__read_vaddr(c->known[i].dso, addr - c->known[i].bias, val, 8))
			return 0;
	return -1;
}

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
			  void *arg)
{
	uint64_t v;

	if (write)
		return -UNW_EINVAL;
	if (read_word(arg, addr, &v)) {
		*valp = 0;
		return -UNW_EINVAL;
	}
	*valp = v;
	return 0;
}

static int acc_access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write,
			  void *arg)
{
	struct unwind_ctx *c = arg;
	int r;

	if (write)
		return -UNW_EREADONLYREG;
	if (regnum < 0 || (size_t)regnum >= ARRAY_SIZE(unw_to_perf))
		return -UNW_EBADREG;
	r = unw_to_perf[regnum];
	if (!(c->have & (1u << r)))
		return -UNW_EBADREG;
	*valp = c->regs[r];
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write,
			    void *arg)
{
	return -UNW_EINVAL;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap, void *arg)
{
	return -UNW_ENOINFO;
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static void synth_eh_table(struct sym_dso *dso);

/* Read a DW_EH_PE-encoded 4-byte value of .eh_frame_hdr. */
static bool hdr_u32(const struct sym_dso *dso, uint64_t vaddr, int32_t *v)
{
	return sym_dso__read_vaddr(dso, vaddr, v, 4);
}

/*
 * Locate .eh_frame_hdr through PT_GNU_EH_FRAME (present in stripped files
 * too) and its search table. Only the layout every GNU linker writes is
 * accepted: eh_frame_ptr pcrel|sdata4, fde_count udata4, table
 * datarel|sdata4 pairs.
 */
static void probe_eh_frame_hdr(struct sym_dso *dso)
{
	uint8_t h[4];
	size_t phnum, i;
	int32_t count;

	dso->unwind_probed = true;
	if (!dso->elf || elf_getphdrnum(dso->elf, &phnum) < 0)
		return;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(dso->elf, i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (!sym_dso__read_vaddr(dso, ph.p_vaddr, h, 4) || h[0] != 1 ||
		    h[1] != 0x1b || h[2] != 0x03 || h[3] != 0x3b ||
		    !hdr_u32(dso, ph.p_vaddr + 8, &count) || count <= 0)
			return;
		dso->have_eh_hdr = true;
		dso->eh_hdr_vaddr = ph.p_vaddr;
		dso->eh_table_vaddr = ph.p_vaddr + 12;
		dso->eh_table_entries = (uint32_t)count;
		return;
	}
	synth_eh_table(dso);
}

/*
 * Files linked without --eh-frame-hdr (static glibc binaries often are)
 * have .eh_frame but no search table. Build one as the linker would:
 * (initial location, FDE address) pairs relative to .eh_frame's start,
 * sorted; libunwind reads it through access_mem at a synthetic address
 * no process can map (SYNTH_BASE + module index << 32).
 */

static int synth_cmp(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

struct synth {
	int32_t *tab;
	size_t n, cap;
	uint64_t sec_vaddr;
};

static void synth_add(void *arg, uint64_t fde_off, uint64_t lo, uint64_t len)
{
	struct synth *t = arg;

	t->tab = xgrow(t->tab, &t->cap, 2 * (t->n + 1), sizeof(*t->tab));
	t->tab[2 * t->n] = (int32_t)(lo - t->sec_vaddr);
	t->tab[2 * t->n + 1] = (int32_t)fde_off;
	t->n++;
}

static void synth_eh_table(struct sym_dso *dso)
{
	struct synth t = { 0 };
	const uint8_t *sec;
	uint64_t sec_size = 0;

	sec = sym_fde__section(dso, ".eh_frame", &t.sec_vaddr, &sec_size);
	if (!sec)
		return;
	sym_fde__walk(sec, sec_size, t.sec_vaddr, true, 8, synth_add, &t);
	if (!t.n) {
		free(t.tab);
		return;
	}
	gx_qsort(t.tab, t.n, 2 * sizeof(*t.tab), synth_cmp);
	dso->eh_synth = t.tab;
	dso->have_eh_hdr = true;
	dso->eh_hdr_vaddr = t.sec_vaddr;	/* segbase: entries are relative to it */
	dso->eh_table_vaddr = 0;
	dso->eh_table_entries = t.n;
}

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	struct unwind_ctx *c = arg;
	unw_dyn_info_t di;
	struct sym_dso *dso;
	uint64_t bias;

	dso = dso_at(c, ip, &bias);
	if (!dso || !dso->have_eh_hdr)
		return -UNW_ENOINFO;

	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = dso->text_lo + bias;
	di.end_ip = dso->text_hi + bias;
	di.u.rti.segbase = dso->eh_hdr_vaddr + bias;
	di.u.rti.table_data = dso->eh_synth ? SYNTH_BASE + ((uint64_t)dso->index << 32)
					    : dso->eh_table_vaddr + bias;
	di.u.rti.table_len = dso->eh_table_entries * 8 / sizeof(unw_word_t);
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static unw_accessors_t accessors = {
	.find_proc_info = acc_find_proc_info,
	.put_unwind_info = acc_put_unwind_info,
	.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
	.access_mem = acc_access_mem,
	.access_reg = acc_access_reg,
	.access_fpreg = acc_access_fpreg,
	.resume = acc_resume,
	.get_proc_name = NULL,
};

int sym_unwinder__new(struct sym_unwinder **out, struct sym_session *s, char **cause)
{
	struct sym_unwinder *u;
	int ret;

	*out = NULL;
	u = xzalloc(sizeof(*u));
	u->s = s;
	u->cfi = sym_cfi__new();
	u->libunwind = getenv("GX_UNWIND") && !strcmp(getenv("GX_UNWIND"), "libunwind");
	if (!u->libunwind) {
		*out = u;	/* libdw's CFI steps: libunwind is not loaded */
		return 0;
	}
	ret = gx_lazylib__open(&libunwind, cause);
	if (!ret)
		u->as = unw_create_addr_space(&accessors, 0);
	if (ret || !u->as) {
		sym_cfi__delete(u->cfi);
		free(u);
		return ret ? ret : gx_fail(cause, GX_E_INTERNAL, "libunwind: cannot create an address space");
	}
	/*
	 * Rules cached by ip in the address space's cache (without a cache
	 * every step parses its FDE again from pools locked with signals
	 * masked: 60 sigprocmask calls a sample). The cache is flushed when
	 * the address space changes (unwinder_space). Its lock still masks
	 * signals twice a step; UNW_CACHE_PER_THREAD would not, but Debian's
	 * libunwind, built without __thread, makes it UNW_CACHE_GLOBAL.
	 */
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	unw_set_cache_size(u->as, 4096, 0);
	*out = u;
	return 0;
}

void sym_unwinder__delete(struct sym_unwinder *u)
{
	if (!u)
		return;
	u->s->stats.unwinds += u->unwinds;
	u->s->stats.unwind_frames += u->frames;
	sym_cfi__delete(u->cfi);
	if (u->as)
		unw_destroy_addr_space(u->as);
	free(u);
}

/* What the cache learnt holds only for the address space it learnt it in. */
static void unwinder_space(struct sym_unwinder *u, uint64_t space)
{
	if (space && space == u->space)
		return;
	if (u->as)
		unw_flush_cache(u->as, 0, 0);
	u->space = space;
}

static bool cfi_read(void *arg, uint64_t addr, uint64_t *val)
{
	return read_word(arg, addr, val) == 0;
}

/*
 * No CFI for the frame: the frame-pointer chain, as libunwind falls back
 * to (the caller's rbp at [rbp], its pc at [rbp + 8]); an rbp that does not
 * grow ends the chain.
 */
static int fp_step(struct unwind_ctx *c, struct sym_cfi_regs *regs, uint64_t *ra)
{
	uint64_t bp = regs->r[SYM_CFI_BP], bp1, ip;

	if (!(regs->have & (1u << SYM_CFI_BP)) || !bp || read_word(c, bp, &bp1) ||
	    read_word(c, bp + 8, &ip) || (bp1 && bp1 <= bp))
		return -1;
	regs->have = 1u << SYM_CFI_BP | 1u << SYM_CFI_SP | 1u << SYM_CFI_RA;
	regs->r[SYM_CFI_BP] = bp1;
	regs->r[SYM_CFI_SP] = bp + 16;
	regs->r[SYM_CFI_RA] = ip;
	*ra = ip;
	return 1;
}

/*
 * The chain through each module's .eh_frame (sym-cfi.c): what libunwind
 * does with its rules cached, without its locks, whose signal masking
 * was half of a report's time. Stops where libunwind's loop stops.
 */
static size_t unwind_cfi(struct sym_unwinder *u, struct unwind_ctx *c, uint64_t *ips, size_t max)
{
	struct sym_cfi_regs regs;
	uint64_t pc, sp;
	bool exact = true;	/* the sampled pc itself, not a return address */
	size_t n = 0;

	memset(&regs, 0, sizeof(regs));
	for (int r = 0; r < SYM_CFI_NREGS; r++)
		if (c->have & (1u << unw_to_perf[r])) {
			regs.r[r] = c->regs[unw_to_perf[r]];
			regs.have |= 1u << r;
		}
	pc = regs.r[SYM_CFI_RA];
	sp = regs.r[SYM_CFI_SP];
	ips[n++] = pc;
	while (n < max) {
		uint64_t look = exact ? pc : pc - 1, bias, ra = 0;
		struct sym_dso *dso = dso_at(c, look, &bias);
		bool signal = false;
		int ret = 0;

		if (dso && dso->cfi)
			ret = sym_cfi__step(u->cfi, dso, look - bias, &regs, &ra, &signal, cfi_read, c);
		if (ret == 0)
			ret = fp_step(c, &regs, &ra);
		if (ret <= 0 || !ra || !(regs.have & (1u << SYM_CFI_SP)))
			break;
		if (regs.r[SYM_CFI_SP] < c->sp)
			break;	/* the stack grows down: callers sit above */
		if (ra == pc && regs.r[SYM_CFI_SP] == sp)
			break;	/* no progress */
		ips[n++] = ra;
		pc = ra;
		sp = regs.r[SYM_CFI_SP];
		regs.r[SYM_CFI_RA] = ra;
		regs.have |= 1u << SYM_CFI_RA;
		exact = signal;
	}
	return n;
}

int sym_unwinder__unwind(struct sym_unwinder *u, const struct sym_unwind_input *in,
			 uint64_t *ips, size_t max, size_t *nr, char **cause)
{
	struct unwind_ctx *c = &u->c;
	unw_cursor_t cur;
	size_t n = 0, k = 0;
	int bit, ret;

	*nr = 0;
	u->unwinds++;
	if (in->abi != SYM_REGS_ABI_64)
		return gx_fail(cause, GX_E_NOTSUP, "DWARF unwinding supports 64-bit x86 user "
				"stacks only (register ABI %llu)", (unsigned long long)in->abi);
	if ((in->regs_mask & SYM_X86_64_REGS_MIN) != SYM_X86_64_REGS_MIN || !in->regs ||
	    !in->find_map)
		return gx_fail(cause, -EINVAL, "sample registers lack IP, SP or BP");
	if (!max)
		return 0;
	unwinder_space(u, in->space);

	memset(c, 0, sizeof(*c));
	c->s = u->s;
	c->in = in;
	for (bit = 0; bit < 64; bit++) {
		if (!(in->regs_mask & (1ull << bit)))
			continue;
		if (bit < NR_PERF_REGS) {
			c->regs[bit] = in->regs[k];
			c->have |= 1u << bit;
		}
		k++;
	}
	c->sp = c->regs[SYM_X86_SP];

	if (!u->libunwind) {
		n = unwind_cfi(u, c, ips, max);
		*nr = n;
		u->frames += n;
		if (in->cut)
			*in->cut = c->past_copy && n < max;
		return 0;
	}
	ips[n++] = c->regs[SYM_X86_IP];
	ret = unw_init_remote(&cur, u->as, c);
	while (!ret && n < max) {
		unw_word_t ip, sp;

		if (unw_step(&cur) <= 0)
			break;
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) || !ip)
			break;
		if (unw_get_reg(&cur, UNW_REG_SP, &sp) || sp < c->sp)
			break;	/* the stack grows down: callers sit above */
		ips[n++] = ip;
	}
	*nr = n;
	u->frames += n;
	if (in->cut)
		*in->cut = c->past_copy && n < max;
	return 0;
}

int sym_unwind(struct sym_session *s, const struct sym_unwind_input *in,
	       uint64_t *ips, size_t max, size_t *nr, char **cause)
{
	int err;

	if (!s->unwinder) {
		err = sym_unwinder__new(&s->unwinder, s, cause);
		if (err) {
			*nr = 0;
			s->stats.unwinds++;
			return err;
		}
	}
	err = sym_unwinder__unwind(s->unwinder, in, ips, max, nr, cause);
	s->stats.unwinds += s->unwinder->unwinds;	/* counted now, not at the end */
	s->stats.unwind_frames += s->unwinder->frames;
	s->unwinder->unwinds = s->unwinder->frames = 0;
	return err;
}

void sym_unwind__exit(struct sym_session *s)
{
	sym_unwinder__delete(s->unwinder);
	s->unwinder = NULL;
}

#else /* !SYM_HAVE_UNWIND */

int sym_unwind(struct sym_session *s, const struct sym_unwind_input *in,
	       uint64_t *ips, size_t max, size_t *nr, char **cause)
{
	*nr = 0;
	s->stats.unwinds++;
#ifdef HAVE_LIBUNWIND
	return gx_fail(cause, GX_E_NOTSUP, "DWARF unwinding is implemented for x86-64 only");
#else
	return gx_fail(cause, GX_E_NOTSUP, "this gexplore was built without libunwind: "
			"install the Debian package libunwind-dev and rebuild for --call-graph dwarf");
#endif
}

void sym_unwind__exit(struct sym_session *s)
{
}

int sym_unwinder__new(struct sym_unwinder **out, struct sym_session *s, char **cause)
{
	char *ignored = NULL;
	size_t nr;
	int err;

	*out = NULL;
	err = sym_unwind(s, &(struct sym_unwind_input){ 0 }, NULL, 0, &nr, cause ? cause : &ignored);
	s->stats.unwinds--;
	free(ignored);
	return err;
}

int sym_unwinder__unwind(struct sym_unwinder *u, const struct sym_unwind_input *in,
			 uint64_t *ips, size_t max, size_t *nr, char **cause)
{
	*nr = 0;
	return gx_fail(cause, GX_E_NOTSUP, "no DWARF unwinder in this build");
}

void sym_unwinder__delete(struct sym_unwinder *u)
{
}

#endif
