/*
 * gx-grind.c: gexplore's Valgrind tool (gxgrind), the model's second pass
 * (src/model/passes.c). It simulates the caches as callgrind's --cache-sim
 * does (I1 and D1, each backed by one last level: LRU sets, an access
 * that crosses a line looks up both) and counts, by instruction, what
 * callgrind counts: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw. It writes them
 * in callgrind's format, a process a file, for the model's one reader
 * (callgrind.c). Callgrind keeps a cost for each instruction in each
 * calling context and simulates every fetch; this tool keeps one counter
 * set an instruction, counts a fetch inline where it cannot miss (within
 * the line its predecessor in the superblock was fetched from, still the
 * most recent), and calls its simulator for the rest: the same counts in
 * a third to a half of callgrind's time. A PLT stub's work is counted at
 * the instruction that reached it, as callgrind's --skip-plt counts it.
 * A forked child's file holds a copy of its parent's counts since the
 * parent's last fork, as callgrind's with --dump-after=_Fork (the first
 * pass's) do: the files' sum is the first pass's, and the model takes
 * copies off the same way for every pass (tasks.c).
 *
 * Built against the installed Valgrind's libraries (its package ships
 * them: configure.ac), statically, as Valgrind's own tools are; run by
 * Valgrind's launcher from a directory of links to Valgrind's files that
 * holds it too (valgrind.c), so that a traced child's exec finds it.
 *
 * Options: --gx-out-file=TEMPLATE (%p: the pid, as Valgrind expands it),
 * --I1=, --D1=, --LL=SIZE,ASSOC,LINE (callgrind's syntax; each level's
 * sets a power of two, as callgrind requires).
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_xarray.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_vki.h"

/* ---- the caches ----------------------------------------------------------- */

struct cache {
	const HChar *name;
	ULong size;
	UInt assoc, line;
	UInt line_bits;
	UWord set_mask;
	UWord *tags;		/* a set's blocks, the most recently used first */
};

static struct cache I1 = { .name = "I1", .size = 32768, .assoc = 8, .line = 64 },
		    D1 = { .name = "D1", .size = 32768, .assoc = 8, .line = 64 },
		    LL = { .name = "LL", .size = 8388608, .assoc = 16, .line = 64 };

static Bool pow2(ULong x)
{
	return x && !(x & (x - 1));
}

static UInt log2u(ULong x)
{
	UInt n = 0;

	while (x > 1)
		x >>= 1, n++;
	return n;
}

/* "SIZE,ASSOC,LINE" into c: False where it is not that */
static Bool parse_geo(const HChar *s, struct cache *c)
{
	HChar *e;
	Long v[3];

	for (Int i = 0; i < 3; i++) {
		v[i] = VG_(strtoll10)(s, &e);
		if (e == s || v[i] <= 0 || (i < 2 ? *e != ',' : *e != 0))
			return False;
		s = e + 1;
	}
	c->size = (ULong)v[0], c->assoc = (UInt)v[1], c->line = (UInt)v[2];
	return True;
}

static void cache_init(struct cache *c)
{
	ULong sets;

	if (c->assoc == 0 || c->line < 16 || !pow2(c->line) || c->size % ((ULong)c->line * c->assoc))
		VG_(fmsg_bad_option)("--I1, --D1 or --LL", "%s: %llu bytes, %u ways, %u-byte "
				     "lines is no cache\n", c->name, c->size, c->assoc, c->line);
	sets = c->size / c->line / c->assoc;
	if (!pow2(sets))
		VG_(fmsg_bad_option)("--I1, --D1 or --LL", "%s: %llu sets: not a power of two\n",
				     c->name, sets);
	c->line_bits = log2u(c->line);
	c->set_mask = (UWord)sets - 1;
	c->tags = VG_(malloc)("gx.cache", (SizeT)sets * c->assoc * sizeof(UWord));
	for (ULong i = 0; i < sets * c->assoc; i++)
		c->tags[i] = ~(UWord)0;		/* no block's number */
}

/* One block looked up in its set, made the most recent: whether it hit. */
static inline Bool block_ref(struct cache *c, UWord block)
{
	UWord *t = c->tags + (block & c->set_mask) * c->assoc;
	UInt i;
	Bool hit;

	if (t[0] == block)
		return True;
	for (i = 1; i < c->assoc && t[i] != block; i++)
		;
	hit = i < c->assoc;
	if (!hit)
		i--;			/* a miss: the least recent goes */
	for (; i > 0; i--)
		t[i] = t[i - 1];
	t[0] = block;
	return hit;
}

/* An access of size bytes at a: a hit when every line it touches hits
 * (each is looked up) */
static inline Bool cache_ref(struct cache *c, Addr a, UWord size)
{
	UWord b = a >> c->line_bits, last = (a + (size ? size : 1) - 1) >> c->line_bits;
	Bool hit = block_ref(c, b);

	while (b != last)
		hit &= block_ref(c, ++b);
	return hit;
}

/* ---- what each instruction counted ---------------------------------------- */

enum { C_IR, C_DR, C_DW, C_I1MR, C_D1MR, C_D1MW, C_ILMR, C_DLMR, C_DLMW, C_NR };

struct insn {
	struct insn *next;	/* VgHashNode's first two */
	UWord key;		/* its address */
	ULong c[C_NR];		/* since the process's last fork */
	ULong before[C_NR];	/* until then (the parent's, each fork) */
	UWord at;		/* its address as callgrind writes it: in its object's file */
	UInt obj, fn;		/* names[] indices */
	Bool plt;		/* in a PLT section: counted at its caller's call */
};

/* The instruction outside a PLT section whose jump may have reached a
 * PLT stub (a call, a tail call, an indirect jump), set as its superblock
 * leaves: callgrind (--skip-plt, its default) counts a stub's work there,
 * and the first pass is callgrind's */
static struct insn *caller;

static VgHashTable *insns;
static ULong nr_insns;

/* Object and function names, each once */
static HChar **names;
static UInt nr_names, cap_names;
static UInt *name_slots;	/* open addressing: names[] index + 1 */
static UInt nr_slots;

static UInt str_hash(const HChar *s)
{
	UInt h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (UChar)*s) * 16777619u;
	return h;
}

static UInt intern(const HChar *s)
{
	UInt h, k;

	if (nr_names * 2 >= nr_slots) {
		UInt n = nr_slots ? nr_slots * 2 : 4096;
		UInt *v = VG_(calloc)("gx.names", n, sizeof(UInt));

		for (UInt i = 0; i < nr_slots; i++)
			if (name_slots[i]) {
				for (k = str_hash(names[name_slots[i] - 1]) & (n - 1); v[k];
				     k = (k + 1) & (n - 1))
					;
				v[k] = name_slots[i];
			}
		if (name_slots)
			VG_(free)(name_slots);
		name_slots = v, nr_slots = n;
	}
	h = str_hash(s);
	for (k = h & (nr_slots - 1); name_slots[k]; k = (k + 1) & (nr_slots - 1))
		if (!VG_(strcmp)(names[name_slots[k] - 1], s))
			return name_slots[k] - 1;
	if (nr_names == cap_names) {
		cap_names = cap_names ? cap_names * 2 : 1024;
		names = VG_(realloc)("gx.names", names, cap_names * sizeof(*names));
	}
	names[nr_names] = VG_(strdup)("gx.name", s);
	name_slots[k] = nr_names + 1;
	return nr_names++;
}

/* The instruction at a, made when first translated: its object and
 * function are named then (an object unloaded before the exit is named
 * still). */
static struct insn *insn_at(Addr a)
{
	struct insn *in = VG_(HT_lookup)(insns, a);
	DiEpoch ep;
	DebugInfo *di;
	const HChar *fn;

	if (in)
		return in;
	in = VG_(calloc)("gx.insn", 1, sizeof(*in));
	in->key = a;
	ep = VG_(current_DiEpoch)();
	di = VG_(find_DebugInfo)(ep, a);
	in->obj = intern(di && VG_(DebugInfo_get_filename)(di) ?
			 VG_(DebugInfo_get_filename)(di) : "???");
	in->at = a - (di ? (Addr)VG_(DebugInfo_get_text_bias)(di) : 0);
	in->fn = intern(VG_(get_fnname)(ep, a, &fn) ? fn : "???");
	in->plt = VG_(DebugInfo_sect_kind)(NULL, a) == Vg_SectPLT;
	VG_(HT_add_node)(insns, in);
	nr_insns++;
	return in;
}

/* ---- the simulator, called from the translations -------------------------- */

/* An access through the first level l1 (I1 or D1), counted in in's
 * columns: the accesses, l1's misses, the last level's. A PLT stub's
 * instruction given here is one reached from another superblock: counted
 * at caller, the instruction whose jump left that one. */
static inline void sim(struct cache *l1, struct insn *in, Addr a, UWord size, Int ref,
		       Int l1m, Int llm)
{
	if (in->plt && caller)
		in = caller;
	in->c[ref]++;
	if (cache_ref(l1, a, size))
		return;
	in->c[l1m]++;
	if (!cache_ref(&LL, a, size))
		in->c[llm]++;
}

static VG_REGPARM(3) void sim_fetch(struct insn *in, Addr a, UWord len)
{
	sim(&I1, in, a, len, C_IR, C_I1MR, C_ILMR);
}

static VG_REGPARM(3) void sim_read(struct insn *in, Addr a, UWord size)
{
	sim(&D1, in, a, size, C_DR, C_D1MR, C_DLMR);
}

/* a write, or a read and a write of the same bytes (the second access
 * hits: one is simulated, counted a write, as cachegrind counts it) */
static VG_REGPARM(3) void sim_write(struct insn *in, Addr a, UWord size)
{
	sim(&D1, in, a, size, C_DW, C_D1MW, C_DLMW);
}

/* ---- instrumentation ------------------------------------------------------ */

/* An instruction's data accesses, simulated after its statements (they
 * are flat: the addresses are atoms, defined by then), in their order */
enum ev_kind { EV_R, EV_W };

struct ev {
	enum ev_kind kind;
	IRExpr *addr;
	Int size;
	IRExpr *guard;		/* NULL: always */
};

#define MAX_EVS 16

struct instr_state {
	IRSB *out;
	struct insn *in;	/* where the instruction's counts go: its own, or
				 * a PLT stub's the instruction that reached it
				 * in this superblock (sim: else caller) */
	struct insn *own;	/* the last instruction outside a PLT, this superblock */
	Bool plt;		/* the instruction is a PLT stub's */
	struct ev ev[MAX_EVS];
	Int nr_ev;
	UWord last_block;	/* the I1 block the last fetch ended in, this superblock */
	Bool have_block;
};

static void call3(IRSB *out, const HChar *name, void *fn, struct insn *in, IRExpr *a,
		  Int n, IRExpr *guard)
{
	IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)in), a, mkIRExpr_HWord((HWord)n));
	IRDirty *d = unsafeIRDirty_0_N(3, name, VG_(fnptr_to_fnentry)(fn), args);

	if (guard)
		d->guard = guard;
	addStmtToIRSB(out, IRStmt_Dirty(d));
}

/* Whether a jump's constant target lies in a PLT section */
static Bool to_plt(const IRConst *c)
{
	Addr a = c->tag == Ico_U64 ? (Addr)c->Ico.U64 : c->tag == Ico_U32 ? (Addr)c->Ico.U32 : 0;

	return a && VG_(DebugInfo_sect_kind)(NULL, a) == Vg_SectPLT;
}

/* caller = in, as the superblock leaves (a store of constants) */
static void set_caller(IRSB *out, struct insn *in)
{
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&caller),
					mkIRExpr_HWord((HWord)in)));
}

static void flush(struct instr_state *s)
{
	for (Int i = 0; i < s->nr_ev; i++) {
		struct ev *e = &s->ev[i];

		if (e->kind == EV_R)
			call3(s->out, "sim_read", sim_read, s->in, e->addr, e->size, e->guard);
		else
			call3(s->out, "sim_write", sim_write, s->in, e->addr, e->size, e->guard);
	}
	s->nr_ev = 0;
}

static Bool same_atom(IRExpr *x, IRExpr *y)
{
	if (x->tag == Iex_RdTmp && y->tag == Iex_RdTmp)
		return x->Iex.RdTmp.tmp == y->Iex.RdTmp.tmp;
	if (x->tag == Iex_Const && y->tag == Iex_Const)
		return eqIRConst(x->Iex.Const.con, y->Iex.Const.con);
	return False;
}

static void add_ev(struct instr_state *s, enum ev_kind kind, IRExpr *addr, Int size,
		   IRExpr *guard)
{
	/* a write of what the same instruction just read: one access,
	 * counted a write */
	if (kind == EV_W && !guard && s->nr_ev && s->ev[s->nr_ev - 1].kind == EV_R &&
	    !s->ev[s->nr_ev - 1].guard && s->ev[s->nr_ev - 1].size == size &&
	    same_atom(s->ev[s->nr_ev - 1].addr, addr)) {
		s->ev[s->nr_ev - 1].kind = EV_W;
		return;
	}
	if (s->nr_ev == MAX_EVS)
		flush(s);
	s->ev[s->nr_ev++] = (struct ev){ kind, addr, size, guard };
}

/* Ir++ inline: a fetch that cannot miss (its line the last fetch's, in
 * this superblock, with no other fetch between: still the most recent) */
static void count_inline(IRSB *out, ULong *counter)
{
	IRTemp t1 = newIRTemp(out->tyenv, Ity_I64), t2 = newIRTemp(out->tyenv, Ity_I64);
	IRExpr *at = mkIRExpr_HWord((HWord)counter);

	addStmtToIRSB(out, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, at)));
	addStmtToIRSB(out, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
							   IRExpr_Const(IRConst_U64(1)))));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, IRExpr_RdTmp(t2)));
}

static void fetch(struct instr_state *s, Addr a, UInt len)
{
	UWord first = a >> I1.line_bits, last = (a + (len ? len : 1) - 1) >> I1.line_bits;

	if (s->in->plt) {	/* counted where only known as it runs (sim) */
		call3(s->out, "sim_fetch", sim_fetch, s->in, mkIRExpr_HWord(a), (Int)len, NULL);
		s->have_block = False;
		return;
	}
	if (s->have_block && first == s->last_block && last == s->last_block) {
		count_inline(s->out, &s->in->c[C_IR]);
		return;
	}
	call3(s->out, "sim_fetch", sim_fetch, s->in, mkIRExpr_HWord(a), (Int)len, NULL);
	s->last_block = last, s->have_block = True;
}

static IRSB *gx_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo,
			   IRType gw, IRType hw)
{
	struct instr_state s = { 0 };
	IRTypeEnv *env = in->tyenv;
	Int i = 0;

	if (gw != hw)
		VG_(tool_panic)("gxgrind: the host's word is not the guest's");
	s.out = deepCopyIRSBExceptStmts(in);
	for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(s.out, in->stmts[i]);
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		switch (st->tag) {
		case Ist_IMark:
			flush(&s);
			s.in = insn_at((Addr)st->Ist.IMark.addr);
			/* a PLT stub's instruction: counted at the instruction
			 * that reached it, this superblock's (a call Valgrind
			 * followed into the stub) or, where the stub begins it,
			 * the one that left the last */
			s.plt = s.in->plt;
			if (!s.in->plt)
				s.own = s.in;
			else if (s.own)
				s.in = s.own;
			fetch(&s, (Addr)st->Ist.IMark.addr, st->Ist.IMark.len);
			break;
		case Ist_WrTmp:
			if (st->Ist.WrTmp.data->tag == Iex_Load)
				add_ev(&s, EV_R, st->Ist.WrTmp.data->Iex.Load.addr,
				       sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty), NULL);
			break;
		case Ist_Store:
			add_ev(&s, EV_W, st->Ist.Store.addr,
			       sizeofIRType(typeOfIRExpr(env, st->Ist.Store.data)), NULL);
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;

			add_ev(&s, EV_W, sg->addr, sizeofIRType(typeOfIRExpr(env, sg->data)),
			       sg->guard);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType wide = Ity_INVALID, narrow = Ity_INVALID;

			typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
			add_ev(&s, EV_R, lg->addr, sizeofIRType(narrow), lg->guard);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;

			if (d->mFx != Ifx_None) {
				/* callgrind's bound: a helper's access of more
				 * than a minimal line is simulated as one of it */
				Int n = d->mSize > 16 ? 16 : d->mSize;

				if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
					add_ev(&s, EV_R, d->mAddr, n, NULL);
				if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
					add_ev(&s, EV_W, d->mAddr, n, NULL);
			}
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int n = sizeofIRType(typeOfIRExpr(env, cas->dataLo)) * (cas->dataHi ? 2 : 1);

			add_ev(&s, EV_R, cas->addr, n, NULL);
			add_ev(&s, EV_W, cas->addr, n, NULL);
			break;
		}
		case Ist_LLSC:
			if (!st->Ist.LLSC.storedata)
				add_ev(&s, EV_R, st->Ist.LLSC.addr,
				       sizeofIRType(typeOfIRTemp(env, st->Ist.LLSC.result)), NULL);
			else
				add_ev(&s, EV_W, st->Ist.LLSC.addr,
				       sizeofIRType(typeOfIRExpr(env, st->Ist.LLSC.storedata)), NULL);
			break;
		case Ist_Exit:
			/* what ran before a side exit is simulated before it;
			 * one into a PLT stub says where it came from */
			flush(&s);
			if (s.own && !s.plt && to_plt(st->Ist.Exit.dst))
				set_caller(s.out, s.own);
			break;
		default:
			break;
		}
		addStmtToIRSB(s.out, st);
	}
	flush(&s);
	/* where it goes may be a PLT stub: a jump or call there, or one
	 * whose target is known only as it runs (a return is not); or a
	 * stub it followed a call into goes on in another superblock */
	if (s.own && (s.plt || (in->jumpkind != Ijk_Ret &&
				(in->next->tag != Iex_Const ||
				 to_plt(in->next->Iex.Const.con)))))
		set_caller(s.out, s.own);
	return s.out;
}

/* ---- options, fork, output ------------------------------------------------ */

static const HChar *out_template = "gxgrind.out.%p";

static Bool gx_option(const HChar *arg)
{
	const HChar *v;

	if (VG_STR_CLO(arg, "--gx-out-file", out_template)) {
	} else if (VG_STR_CLO(arg, "--I1", v)) {
		if (!parse_geo(v, &I1))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE\n");
	} else if (VG_STR_CLO(arg, "--D1", v)) {
		if (!parse_geo(v, &D1))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE\n");
	} else if (VG_STR_CLO(arg, "--LL", v)) {
		if (!parse_geo(v, &LL))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE\n");
	} else {
		return False;
	}
	return True;
}

static void gx_usage(void)
{
	VG_(printf)("    --gx-out-file=FILE        the counts' file [gxgrind.out.%%p]\n"
		    "    --I1=, --D1=, --LL=SIZE,ASSOC,LINE   the caches simulated\n");
}

static void gx_debug_usage(void)
{
}

/* A fork: the parent's counts until now set aside, as callgrind's
 * --dump-after=_Fork dumps and zeroes them; the child keeps its copy of
 * those since the last fork only, as callgrind's child does */
static void gx_atfork_parent(ThreadId tid)
{
	struct insn *in;

	VG_(HT_ResetIter)(insns);
	while ((in = VG_(HT_Next)(insns)) != NULL)
		for (Int k = 0; k < C_NR; k++)
			in->before[k] += in->c[k], in->c[k] = 0;
}

static void gx_atfork_child(ThreadId tid)
{
	struct insn *in;

	VG_(HT_ResetIter)(insns);
	while ((in = VG_(HT_Next)(insns)) != NULL)
		VG_(memset)(in->before, 0, sizeof(in->before));
}

static void gx_post_clo_init(void)
{
	cache_init(&I1);
	cache_init(&D1);
	cache_init(&LL);
}

struct out {
	Int fd;
	Bool failed;
	UInt n;
	HChar buf[65536];
};

static void out_flush(struct out *o)
{
	if (o->n && !o->failed && VG_(write)(o->fd, o->buf, o->n) != (Int)o->n)
		o->failed = True;
	o->n = 0;
}

/* s, or a name (each one line of the file: a line break in it is '?') */
static void out_put(struct out *o, const HChar *s, Bool name)
{
	for (; *s; s++) {
		if (o->n == sizeof(o->buf))
			out_flush(o);
		o->buf[o->n++] = name && (*s == '\n' || *s == '\r') ? '?' : *s;
	}
}

static void out_str(struct out *o, const HChar *s)
{
	out_put(o, s, False);
}

static void out_name(struct out *o, const HChar *s)
{
	out_put(o, s, True);
}

static Int cmp_insn(const void *a, const void *b)
{
	const struct insn *x = *(struct insn *const *)a, *y = *(struct insn *const *)b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static void gx_fini(Int exitcode)
{
	HChar *file = VG_(expand_file_name)("--gx-out-file", out_template);
	SysRes sr = VG_(open)(file, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
	struct out *o;
	struct insn **v, *in;
	HChar line[256];
	UInt obj = ~0u, fn = ~0u, k = 0;

	if (sr_isError(sr)) {
		VG_(umsg)("gxgrind: cannot create %s\n", file);
		VG_(free)(file);
		return;
	}
	o = VG_(malloc)("gx.out", sizeof(*o));
	o->fd = (Int)sr_Res(sr), o->failed = False, o->n = 0;
	v = VG_(malloc)("gx.sort", (nr_insns + 1) * sizeof(*v));
	VG_(HT_ResetIter)(insns);
	while ((in = VG_(HT_Next)(insns)) != NULL) {
		for (Int j = 0; j < C_NR; j++)
			in->c[j] += in->before[j], in->before[j] = 0;
		if (in->c[C_IR])
			v[k++] = in;
	}
	VG_(ssort)(v, k, sizeof(*v), cmp_insn);
	VG_(sprintf)(line, "# callgrind format\nversion: 1\ncreator: gxgrind\npid: %d\ncmd: ",
		     VG_(getpid)());
	out_str(o, line);
	out_name(o, VG_(args_the_exename) ? VG_(args_the_exename) : "???");
	for (Word i = 0; VG_(args_for_client) && i < VG_(sizeXA)(VG_(args_for_client)); i++) {
		out_str(o, " ");
		out_name(o, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
	}
	out_str(o, "\npositions: instr\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n");
	for (UInt i = 0; i < k; i++) {
		in = v[i];
		/* names compressed as callgrind's are, "(id) name": a name
		 * that begins with '(' ("(below main)") is read as the name */
		if (in->obj != obj) {
			VG_(sprintf)(line, "ob=(%u) ", in->obj + 1);
			out_str(o, line);
			out_name(o, names[in->obj]);
			out_str(o, "\n");
			obj = in->obj, fn = ~0u;
		}
		if (in->fn != fn) {
			VG_(sprintf)(line, "fn=(%u) ", in->fn + 1);
			out_str(o, line);
			out_name(o, names[in->fn]);
			out_str(o, "\n");
			fn = in->fn;
		}
		VG_(sprintf)(line, "0x%lx %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", in->at,
			     in->c[C_IR], in->c[C_DR], in->c[C_DW], in->c[C_I1MR], in->c[C_D1MR],
			     in->c[C_D1MW], in->c[C_ILMR], in->c[C_DLMR], in->c[C_DLMW]);
		out_str(o, line);
	}
	out_flush(o);
	if (o->failed)
		VG_(umsg)("gxgrind: cannot write %s\n", file);
	VG_(close)(o->fd);
	VG_(free)(v);
	VG_(free)(o);
	VG_(free)(file);
}

static void gx_pre_clo_init(void)
{
	VG_(details_name)("gxgrind");
	VG_(details_version)(NULL);
	VG_(details_description)("gexplore's cache counts by instruction");
	VG_(details_copyright_author)("the gexplore authors");
	VG_(details_bug_reports_to)("the gexplore project");
	VG_(details_avg_translation_sizeB)(500);
	VG_(basic_tool_funcs)(gx_post_clo_init, gx_instrument, gx_fini);
	VG_(needs_command_line_options)(gx_option, gx_usage, gx_debug_usage);
	VG_(atfork)(NULL, gx_atfork_parent, gx_atfork_child);
	insns = VG_(HT_construct)("gx.insns");
}

VG_DETERMINE_INTERFACE_VERSION(gx_pre_clo_init)
