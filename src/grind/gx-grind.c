/*
 * gx-grind.c: gexplore's Valgrind tool (gxgrind), the model's Valgrind
 * pass. With --gx-first=yes it counts, by instruction and thread, what
 * callgrind counts for the model's first pass (--cache-sim=yes
 * --branch-sim=yes --collect-jumps=yes --dump-instr=yes
 * --separate-threads=yes): Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm
 * Bi Bim, each instruction's jumps and calls (a call's inclusive Ir), and
 * beside them a second hierarchy that was the model's second pass: L2
 * over every data access, its misses to a cache of pages and to one as
 * large as the TLB's reach. Without it, that hierarchy alone, as the
 * second pass (a process a file, copies of a parent's counts in a forked
 * child as callgrind's --dump-after=_Fork leaves them).
 *
 * It simulates the caches as callgrind's --cache-sim does (I1 and D1,
 * each backed by one last level: LRU sets, an access that crosses a line
 * looks up both) and the branch predictors as its --branch-sim does, and
 * reads superblocks as callgrind does (no chasing: a basic block each).
 * Callgrind keeps a cost for each instruction in each calling context and
 * calls its simulator for every fetch and access; this tool keeps one
 * counter set an instruction a thread, and counts inline a fetch within
 * the line its predecessor in the superblock was fetched from or to the
 * most recent line of its I1 set, an access to the most recent line of
 * its D1 set (where no cache changes in either), and a
 * jump whose target is known as it is translated: the counts of both of
 * callgrind's passes in a third of its time. A PLT stub's work is counted
 * at the instruction that reached it, as callgrind's --skip-plt counts it.
 * It writes callgrind's format, for the model's one reader (callgrind.c).
 *
 * Built against the installed Valgrind's libraries (its package ships
 * them: configure.ac), statically, as Valgrind's own tools are; run by
 * Valgrind's launcher from a directory of links to Valgrind's files that
 * holds it too (valgrind.c), so that a traced child's exec finds it.
 *
 * Options: --gx-out-file=TEMPLATE (%p: the pid, as Valgrind expands it;
 * -NN, the thread, added with --gx-first), --gx-first=yes,
 * --gx-l2-file= and --gx-tlb-file=TEMPLATE (the second hierarchy's, with
 * pages or the TLB as its last level), --I1=, --D1=, --LL=, --L2=, --PG=,
 * --TL=SIZE,ASSOC,LINE (callgrind's syntax; each level's sets a power of
 * two, as callgrind requires).
 */
#include "gx-grind.h"

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
#define MAX_SB_CHUNKS 16

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
	/* the running thread's chunks this superblock counts in inline */
	UInt chunk_ix[MAX_SB_CHUNKS];
	IRExpr *chunk[MAX_SB_CHUNKS];
	Int nr_chunks;
};

/* Whether D1's most recent line in its set can be counted inline: a hit
 * there changes no cache (L2, where simulated, sees the same accesses
 * with its sets each within one of D1's: that line is its most recent
 * too) */
static Bool fast_d;

static IRExpr *tmp(IRSB *out, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(out->tyenv, ty);

	addStmtToIRSB(out, IRStmt_WrTmp(t, e));
	return IRExpr_RdTmp(t);
}

static IRExpr *word(UWord w)
{
	return mkIRExpr_HWord((HWord)w);
}

static void call3(IRSB *out, const HChar *name, void *fn, struct insn *in, IRExpr *a,
		  IRExpr *b, IRExpr *guard)
{
	IRExpr **args = mkIRExprVec_3(word((UWord)in), a, b);
	IRDirty *d = unsafeIRDirty_0_N(3, name, VG_(fnptr_to_fnentry)(fn), args);

	if (guard)
		d->guard = guard;
	addStmtToIRSB(out, IRStmt_Dirty(d));
}

/* The running thread's counter col of in (not a PLT stub's: counted
 * where it is, inline), in its chunk made at the superblock's start */
static IRExpr *counter(struct instr_state *s, struct insn *in, Int col)
{
	UInt ci = in->idx >> CHUNK_BITS;

	for (Int i = 0; i < s->nr_chunks; i++)
		if (s->chunk_ix[i] == ci)
			return tmp(s->out, Ity_I64,
				   IRExpr_Binop(Iop_Add64, s->chunk[i],
						IRExpr_Const(IRConst_U64(
							((in->idx & (CHUNK - 1)) * C_NR + col) *
							sizeof(ULong)))));
	VG_(tool_panic)("gxgrind: an instruction's chunk was not made");
	return NULL;
}

/* *counter += by (an I64 atom) */
static void count_by(struct instr_state *s, struct insn *in, Int col, IRExpr *by)
{
	IRExpr *at = counter(s, in, col);
	IRExpr *v = tmp(s->out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));
	IRExpr *w = tmp(s->out, Ity_I64, IRExpr_Binop(Iop_Add64, v, by));

	addStmtToIRSB(s->out, IRStmt_Store(Iend_LE, at, w));
}

static void count_inline(struct instr_state *s, struct insn *in, Int col)
{
	count_by(s, in, col, IRExpr_Const(IRConst_U64(1)));
}

/* At the superblock's start: the running thread's chunk of each
 * instruction counted inline, made where it has none */
static void make_chunks(struct instr_state *s, struct insn **v, Int n)
{
	IRExpr *tab = NULL;

	for (Int k = 0; k < n; k++) {
		UInt ci = v[k]->idx >> CHUNK_BITS;
		IRExpr *at, *c, *none;
		IRDirty *d;
		Int i;

		for (i = 0; i < s->nr_chunks && s->chunk_ix[i] != ci; i++)
			;
		if (i < s->nr_chunks)
			continue;
		if (s->nr_chunks == MAX_SB_CHUNKS)
			VG_(tool_panic)("gxgrind: a superblock's instructions in too many chunks");
		if (!tab)
			tab = tmp(s->out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, word((UWord)&cur_tab)));
		at = tmp(s->out, Ity_I64, IRExpr_Binop(Iop_Add64, tab,
						       IRExpr_Const(IRConst_U64(ci * sizeof(void *)))));
		c = tmp(s->out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));
		none = tmp(s->out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, c, IRExpr_Const(IRConst_U64(0))));
		d = unsafeIRDirty_0_N(1, "make_chunk", VG_(fnptr_to_fnentry)(make_chunk),
				      mkIRExprVec_1(word(ci)));
		d->guard = none;
		addStmtToIRSB(s->out, IRStmt_Dirty(d));
		s->chunk_ix[s->nr_chunks] = ci;
		s->chunk[s->nr_chunks++] = tmp(s->out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));
	}
}

/* Whether a jump's constant target lies in a PLT section */
static Addr const_addr(const IRConst *c)
{
	return c->tag == Ico_U64 ? (Addr)c->Ico.U64 : c->tag == Ico_U32 ? (Addr)c->Ico.U32 : 0;
}

static Bool to_plt(const IRConst *c)
{
	Addr a = const_addr(c);

	return a && VG_(DebugInfo_sect_kind)(NULL, a) == Vg_SectPLT;
}

/* caller = in, as the superblock leaves (a store of constants) */
static void set_caller(IRSB *out, struct insn *in)
{
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, word((UWord)&caller), word((UWord)in)));
}

/* One access, its line looked up inline in D1's set: where it is the
 * most recent there (and the access within it), the access is counted
 * and nothing else changes; else the rest of the simulation is called */
static void access_inline(struct instr_state *s, struct ev *e)
{
	IRSB *out = s->out;
	IRExpr *blk, *last, *set, *at, *tag, *miss;

	count_inline(s, s->in, e->kind == EV_R ? C_DR : C_DW);
	blk = tmp(out, Ity_I64, IRExpr_Binop(Iop_Shr64, e->addr, IRExpr_Const(IRConst_U8(D1.line_bits))));
	last = tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, e->addr,
					      IRExpr_Const(IRConst_U64((ULong)(e->size ? e->size : 1) - 1))));
	last = tmp(out, Ity_I64, IRExpr_Binop(Iop_Shr64, last, IRExpr_Const(IRConst_U8(D1.line_bits))));
	set = tmp(out, Ity_I64, IRExpr_Binop(Iop_And64, blk, IRExpr_Const(IRConst_U64(D1.set_mask))));
	set = tmp(out, Ity_I64, IRExpr_Binop(Iop_Mul64, set,
					     IRExpr_Const(IRConst_U64((ULong)D1.assoc * sizeof(UWord)))));
	at = tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, set, IRExpr_Const(IRConst_U64((ULong)(UWord)D1.tags))));
	tag = tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));
	tag = tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, tag, blk));
	last = tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, last, blk));
	miss = tmp(out, Ity_I1, IRExpr_Binop(Iop_Or1, tag, last));
	if (e->kind == EV_R)
		call3(out, "sim_read_rest", sim_read_rest, s->in, e->addr, word((UWord)e->size), miss);
	else
		call3(out, "sim_write_rest", sim_write_rest, s->in, e->addr, word((UWord)e->size), miss);
}

static void flush(struct instr_state *s)
{
	for (Int i = 0; i < s->nr_ev; i++) {
		struct ev *e = &s->ev[i];

		if (fast_d && !e->guard && !s->in->plt)
			access_inline(s, e);
		else if (e->kind == EV_R)
			call3(s->out, "sim_read", sim_read, s->in, e->addr, word((UWord)e->size), e->guard);
		else
			call3(s->out, "sim_write", sim_write, s->in, e->addr, word((UWord)e->size), e->guard);
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

static void fetch(struct instr_state *s, Addr a, UInt len)
{
	UWord first_b = a >> I1.line_bits, last_b = (a + (len ? len : 1) - 1) >> I1.line_bits;

	if (s->in->plt) {	/* counted where only known as it runs (sim) */
		call3(s->out, "sim_fetch", sim_fetch, s->in, word(a), word(len), NULL);
		s->have_block = False;
		return;
	}
	if (s->have_block && first_b == s->last_block && last_b == s->last_block) {
		count_inline(s, s->in, C_IR);
		return;
	}
	s->last_block = last_b, s->have_block = True;
	if (first_b != last_b) {
		call3(s->out, "sim_fetch", sim_fetch, s->in, word(a), word(len), NULL);
		return;
	}
	/* a line of one block: where it is the most recent of its I1 set, a
	 * hit that changes nothing, counted inline (as a D1 access is) */
	{
		UWord *mru = I1.tags + (first_b & I1.set_mask) * I1.assoc;
		IRExpr *tag = tmp(s->out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, word((UWord)mru)));
		IRExpr *miss = tmp(s->out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, tag,
							       IRExpr_Const(IRConst_U64(first_b))));

		count_inline(s, s->in, C_IR);
		call3(s->out, "sim_fetch_rest", sim_fetch_rest, s->in, word(a), word(len), miss);
	}
}

/*
 * A conditional branch at a, taken (an I64 atom, 0 or 1), predicted
 * inline as cond_missed does, counted at s->in (not a PLT stub's)
 */
static void cond_inline(struct instr_state *s, Addr a, IRExpr *taken)
{
	IRSB *out = s->out;
	IRExpr *hist, *idx, *at, *c, *pred, *miss, *inc, *dec, *nc;

	hist = tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, word((UWord)&history)));
	idx = tmp(out, Ity_I64, IRExpr_Binop(Iop_And64, hist,
					     IRExpr_Const(IRConst_U64((1 << HIST_BITS) - 1))));
	idx = tmp(out, Ity_I64, IRExpr_Binop(Iop_Shl64, idx, IRExpr_Const(IRConst_U8(IADDR_BITS))));
	at = tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, idx, IRExpr_Const(IRConst_U64(
		(ULong)(UWord)bc_ctr + (a & ((1 << IADDR_BITS) - 1))))));
	c = tmp(out, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, at));
	c = tmp(out, Ity_I64, IRExpr_Unop(Iop_8Uto64, c));
	/* predicted taken: the counter 2 or 3 */
	pred = tmp(out, Ity_I64, IRExpr_Binop(Iop_Shr64, c, IRExpr_Const(IRConst_U8(1))));
	miss = tmp(out, Ity_I64, IRExpr_Binop(Iop_Xor64, pred, taken));
	hist = tmp(out, Ity_I64, IRExpr_Binop(Iop_Shl64, hist, IRExpr_Const(IRConst_U8(1))));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, word((UWord)&history),
					tmp(out, Ity_I64, IRExpr_Binop(Iop_Or64, hist, taken))));
	/* up where taken and below 3, down where not and above 0 */
	inc = tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, c, IRExpr_Const(IRConst_U64(3))));
	inc = tmp(out, Ity_I64, IRExpr_Unop(Iop_1Uto64, inc));
	inc = tmp(out, Ity_I64, IRExpr_Binop(Iop_And64, inc, taken));
	dec = tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, c, IRExpr_Const(IRConst_U64(0))));
	dec = tmp(out, Ity_I64, IRExpr_Unop(Iop_1Uto64, dec));
	dec = tmp(out, Ity_I64, IRExpr_Binop(Iop_And64, dec, tmp(out, Ity_I64, IRExpr_Binop(
		Iop_Xor64, taken, IRExpr_Const(IRConst_U64(1))))));
	nc = tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, c, inc));
	nc = tmp(out, Ity_I64, IRExpr_Binop(Iop_Sub64, nc, dec));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, tmp(out, Ity_I8, IRExpr_Unop(Iop_64to8, nc))));
	count_inline(s, s->in, C_BC);
	count_by(s, s->in, C_BCM, miss);
}

/* ir_now += by (an I64 atom) */
static void add_ir(IRSB *out, IRExpr *by)
{
	IRExpr *at = word((UWord)&ir_now);
	IRExpr *v = tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));

	addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, tmp(out, Ity_I64,
							 IRExpr_Binop(Iop_Add64, v, by))));
}

static void call_guarded(IRSB *out, const HChar *name, void *fn, struct insn *in, Addr a,
			 IRExpr *to, IRExpr *sp, IRExpr *guard)
{
	call3(out, name, fn, in, to ? to : word(a), sp, guard);
}

/*
 * Passing from site to a, known as it is translated (jk the exit's kind;
 * none: to the instruction after it; cond: a conditional branch's, as
 * callgrind reads the exits), done where guard holds (NULL: always),
 * times (an I64 atom, 0 or 1) the count: a call, a return, a call
 * emulated, or a jump counted inline at site (its first two targets).
 */
static void known_exit(struct instr_state *s, struct insn *site, Addr a, IRJumpKind jk,
		       Bool none, Bool cond, IRExpr *guard, IRExpr *times, IRExpr *sp)
{
	if (jk == Ijk_Call) {
		call_guarded(s->out, "do_call", do_call, site, a, NULL, sp, guard);
		return;
	}
	if (jk == Ijk_Ret) {
		call_guarded(s->out, "do_ret", do_ret, site, a, NULL, sp, guard);
		return;
	}
	if (enters(site, a)) {
		call_guarded(s->out, "do_emulated", do_emulated, site, a, NULL, sp, guard);
		return;
	}
	if (none || site->plt)
		return;
	for (Int j = 0; j < 2; j++)
		if (!site->jt[j] || (site->jt[j] == a && site->jcond[j] == cond)) {
			site->jt[j] = a, site->jcond[j] = cond;
			count_by(s, site, C_J0 + j, times);
			return;
		}
	if (cond)
		call_guarded(s->out, "do_jump_known_cond", do_jump_known_cond, site, a, NULL, sp,
			     guard);
	else
		call_guarded(s->out, "do_jump_known", do_jump_known, site, a, NULL, sp, guard);
}

static IRSB *gx_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo,
			   IRType gw, IRType hw)
{
	struct instr_state s = { 0 };
	IRTypeEnv *env = in->tyenv;
	struct insn *inl[128], *own = NULL, *cur = NULL;
	Int i = 0, n_inl = 0, exits = 0, exit_no = 0, n_imarks = 0;
	Addr at = 0, after = 0;
	Bool inverted = False;
	IRExpr *ctx = NULL;	/* cur_ctx, loaded where code without a symbol needs it */

	if (gw != hw)
		VG_(tool_panic)("gxgrind: the host's word is not the guest's");
	s.out = deepCopyIRSBExceptStmts(in);
	for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(s.out, in->stmts[i]);
	/* the instructions counted inline, and the last conditional jump:
	 * VEX inverts one (callgrind's reading, which turns chasing off:
	 * the last exit, in the last instruction, to the instruction after
	 * it) */
	for (Int k = i; k < in->stmts_used; k++) {
		IRStmt *st = in->stmts[k];

		if (st->tag == Ist_IMark) {
			struct insn *x = insn_at((Addr)st->Ist.IMark.addr);

			at = (Addr)st->Ist.IMark.addr, after = at + st->Ist.IMark.len;
			inverted = False;
			if (!x->plt)
				own = x;
			else if (own)
				x = own;
			else
				continue;	/* counted as it runs */
			if (n_inl < 128 && (!n_inl || inl[n_inl - 1] != x))
				inl[n_inl++] = x;
		} else if (st->tag == Ist_Exit) {
			exits++;
			inverted = const_addr(st->Ist.Exit.dst) == after;
		}
	}
	make_chunks(&s, inl, n_inl);
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		switch (st->tag) {
		case Ist_IMark:
			flush(&s);
			cur = insn_at((Addr)st->Ist.IMark.addr);
			cur->len = st->Ist.IMark.len;
			n_imarks++;
			if (first && cur->fn == ~0u) {	/* named by the function it runs in */
				if (!ctx)
					ctx = tmp(s.out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
									word((UWord)&cur_ctx)));
				addStmtToIRSB(s.out, IRStmt_Store(Iend_LE, word((UWord)&cur->ctx), ctx));
			}
			s.in = cur;
			/* a PLT stub's instruction: counted at the instruction
			 * that reached it, this superblock's or, where the
			 * stub begins it, the one that left the last */
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
		case Ist_Exit: {
			IRJumpKind jk = st->Ist.Exit.jk;

			/* what ran before a side exit is simulated before it;
			 * one into a PLT stub says where it came from */
			flush(&s);
			exit_no++;
			if (first && (jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret)) {
				IRExpr *taken = tmp(s.out, Ity_I64,
						    IRExpr_Unop(Iop_1Uto64, st->Ist.Exit.guard));

				if (exit_no == exits && inverted)
					taken = tmp(s.out, Ity_I64,
						    IRExpr_Binop(Iop_Xor64, taken,
								 IRExpr_Const(IRConst_U64(1))));
				/* counted where only known as it runs; the tagged
				 * predictor's too */
				if (s.in->plt || tage)
					call3(s.out, "sim_cond", sim_cond, s.in, taken, word(cur->key),
					      NULL);
				else
					cond_inline(&s, cur->key, taken);
			}
			if (first) {
				IRExpr *g = tmp(s.out, Ity_I64, IRExpr_Unop(Iop_1Uto64, st->Ist.Exit.guard));
				IRExpr *sp = tmp(s.out, Ity_I64, IRExpr_Get(layout->offset_SP, Ity_I64));
				Addr dst = const_addr(st->Ist.Exit.dst);
				Bool last_inv = exit_no == exits && inverted;

				/* the instructions run when it is taken */
				add_ir(s.out, tmp(s.out, Ity_I64, IRExpr_Binop(Iop_Mul64, g,
						IRExpr_Const(IRConst_U64((ULong)n_imarks)))));
				/* VEX's inverted branch: this exit is its not taken */
				known_exit(&s, cur, dst, jk, last_inv || dst == cur->key + cur->len,
					   !last_inv, st->Ist.Exit.guard, g, sp);
			}
			if (s.own && !s.plt && to_plt(st->Ist.Exit.dst))
				set_caller(s.out, s.own);
			break;
		}
		default:
			break;
		}
		addStmtToIRSB(s.out, st);
	}
	flush(&s);
	if (first && cur) {
		IRExpr *sp;

		add_ir(s.out, IRExpr_Const(IRConst_U64((ULong)n_imarks)));
		sp = tmp(s.out, Ity_I64, IRExpr_Get(layout->offset_SP, Ity_I64));
		/* VEX's inverted branch: the end is its taken, conditional */
		if (in->next->tag == Iex_Const) {
			Addr a = const_addr(in->next->Iex.Const.con);

			known_exit(&s, cur, a, in->jumpkind, a == after, inverted && exits > 0, NULL,
				   IRExpr_Const(IRConst_U64(1)), sp);
		} else if (in->jumpkind == Ijk_Call) {
			call3(s.out, "do_call_ind", do_call_ind, cur, in->next, sp, NULL);
		} else if (in->jumpkind == Ijk_Ret) {
			call3(s.out, "do_ret", do_ret, cur, in->next, sp, NULL);
		} else if (in->jumpkind == Ijk_Boring) {
			if (inverted && exits > 0)
				call3(s.out, "do_jump_cond", do_jump_cond, cur, in->next, sp, NULL);
			else
				call3(s.out, "do_jump", do_jump, cur, in->next, sp, NULL);
		}
	}
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

const HChar *out_template = "gxgrind.out.%p";
const HChar *l2_template = NULL, *tl_template = NULL;

static Bool gx_option(const HChar *arg)
{
	/* the caches' options, and what each turns on */
	static const struct {
		const HChar *name;
		struct cache *c;
		Bool *on;
	} geo[] = { { "--I1", &I1, NULL }, { "--D1", &D1, NULL }, { "--LL", &LL, NULL },
		    { "--L2", &L2, &h2 }, { "--PG", &PG, NULL }, { "--TL", &TL, &tl } };

	const HChar *pred;

	if (VG_STR_CLO(arg, "--gx-predictor", pred)) {
		if (!VG_(strcmp)(pred, "tage"))
			tage = True;
		else if (!VG_(strcmp)(pred, "2bit"))
			tage = False;
		else
			VG_(fmsg_bad_option)(arg, "tage or 2bit\n");
		return True;
	}
	if (VG_STR_CLO(arg, "--gx-out-file", out_template) ||
	    VG_STR_CLO(arg, "--gx-l2-file", l2_template) ||
	    VG_STR_CLO(arg, "--gx-tlb-file", tl_template) || VG_BOOL_CLO(arg, "--gx-first", first) ||
	    VG_BOOL_CLO(arg, "--gx-zero-fill", zero_fill))
		return True;
	for (UInt i = 0; i < sizeof(geo) / sizeof(geo[0]); i++) {
		SizeT n = VG_(strlen)(geo[i].name);

		if (!VG_(strncmp)(arg, geo[i].name, n) && arg[n] == '=') {
			if (!parse_geo(arg + n + 1, geo[i].c))
				VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE\n");
			if (geo[i].on)
				*geo[i].on = True;
			return True;
		}
	}
	return False;
}

static void gx_usage(void)
{
	VG_(printf)("    --gx-out-file=FILE        the counts' file [gxgrind.out.%%p]\n"
		    "    --gx-first=yes            every column, and jumps and calls: a file a\n"
		    "                              thread (FILE-NN), a child's counts its own [no]\n"
		    "    --gx-l2-file=FILE         the second hierarchy's counts with PG (--L2)\n"
		    "    --gx-tlb-file=FILE        the same with TL (--L2, --TL)\n"
		    "    --gx-predictor=tage|2bit  conditional branches by a tagged predictor\n"
		    "                              over long histories, or cachegrind's [2bit]\n"
		    "    --gx-zero-fill=yes        a first touch of anonymous memory (PG's miss)\n"
		    "                              puts its page's lines in each cache, a hit [no]\n"
		    "    --I1=, --D1=, --LL=SIZE,ASSOC,LINE   the caches simulated\n"
		    "    --L2=, --PG=, --TL=SIZE,ASSOC,LINE   the second hierarchy's\n");
}

static void gx_debug_usage(void)
{
}

/* A fork. The second pass's files (not --gx-first): the parent's counts
 * until now set aside, as callgrind's --dump-after=_Fork dumps and zeroes
 * them; the child keeps its copy of those since the last fork only, as
 * callgrind's child does. The first pass's: a child counts its own work
 * only. */
static void gx_atfork_parent(ThreadId tid)
{
	if (first)
		return;
	for (UInt t = 0; t < VG_N_THREADS; t++) {
		struct thread *th = &threads[t];

		if (!th->tab)
			continue;
		if (!th->before)
			th->before = new_tab();
		for (UInt ci = 0; ci < cap_chunks; ci++) {
			ULong *c = th->tab[ci], *b;

			if (!c)
				continue;
			b = chunk_of(th->before, ci << CHUNK_BITS);
			for (UInt k = 0; k < CHUNK * C_NR; k++)
				b[k] += c[k], c[k] = 0;
		}
	}
}

static void zero_tab(ULong **tab)
{
	for (UInt ci = 0; tab && ci < cap_chunks; ci++)
		if (tab[ci])
			VG_(memset)(tab[ci], 0, (SizeT)CHUNK * C_NR * sizeof(ULong));
}

static void zero_map(struct pair_map *m)
{
	for (UInt i = 0; m && i < m->cap; i++)
		m->v[i].x = m->v[i].y = 0;
}

static void gx_atfork_child(ThreadId tid)
{
	for (UInt t = 0; t < VG_N_THREADS; t++) {
		struct thread *th = &threads[t];

		zero_tab(th->before);
		if (!first)
			continue;
		/* its own work only: the calls it is in cost from now on; the
		 * other threads are not its */
		zero_tab(th->tab);
		zero_map(th->calls);
		zero_map(th->jumps);
		for (UInt k = 0; k < th->depth; k++)
			th->st[k].enter = t == tid ? ir_now : th->ir;
		if (t != tid)
			th->depth = 0;
	}
}

static void gx_post_clo_init(void)
{
	cache_init(&I1);
	cache_init(&D1);
	cache_init(&LL);
	tl = tl && h2;
	if (h2) {
		cache_init(&L2);
		cache_init(&PG);
	}
	if (tl)
		cache_init(&TL);
	if (tage)
		tage_init();
	/* D1's most recent line is L2's too where each L2 set lies within
	 * one of D1's: as many sets or more, lines of one size */
	fast_d = !h2 || (L2.line == D1.line && L2.set_mask >= D1.set_mask);
	/* callgrind's superblocks: a basic block each (its jumps and its
	 * conditional branches are read so) */
	VG_(clo_vex_control).iropt_unroll_thresh = 0;
	VG_(clo_vex_control).guest_chase = False;
	threads = VG_(calloc)("gx.threads", VG_N_THREADS, sizeof(*threads));
	cap_chunks = 64;
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
	VG_(track_start_client_code)(gx_start_client);
	VG_(track_pre_deliver_signal)(gx_pre_signal);
	VG_(track_post_deliver_signal)(gx_post_signal);
	VG_(track_new_mem_mmap)(gx_mem_new);
	VG_(track_new_mem_brk)(gx_mem_brk);
	VG_(track_copy_mem_remap)(gx_mem_remap);
	VG_(needs_syscall_wrapper)(gx_syscall_pre, gx_syscall_post);
	insns = VG_(HT_construct)("gx.insns");
}

VG_DETERMINE_INTERFACE_VERSION(gx_pre_clo_init)
