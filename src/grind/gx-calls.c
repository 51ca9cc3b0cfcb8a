/*
 * gx-calls.c: gxgrind's jumps and calls (--gx-first), classified as
 * callgrind's setup does at each basic block, and each call's cost.
 */
#include "gx-grind.h"

/* ---- jumps and calls (--gx-first), as callgrind records them -------------- */

/*
 * Callgrind (--collect-jumps=yes, its call graph) classifies each passage
 * from a basic block to the next: a call, a return, a jump (a conditional
 * one's jcnd) or nothing (a fall-through). A jump or a fall-through into
 * a function's first instruction, into another object or another kind of
 * section, and a return that matches no call are calls ("emulated"); a
 * passage that leaves stack frames (SP above their entry's) returns from
 * them. A PLT stub is skipped: a call into it is not one; the stub's jump
 * to its function is a call from the instruction that called the stub.
 * A call's cost is the instructions its thread ran from the callee's
 * first to the return. Jumps whose target is known as the code is
 * translated are counted inline (C_J0, C_J1 at their instruction); the
 * rest, and calls and returns, here.
 */

/* What a target is: its object (names[] index), section kind, whether a
 * function's first instruction, its address in its object's file */
static struct pair_map targets;

struct target target_of(Addr a)
{
	struct pair_ent *e = pair_get(&targets, a, 0, False);
	struct target t;

	if (!e) {
		DiEpoch ep = VG_(current_DiEpoch)();
		DebugInfo *di = VG_(find_DebugInfo)(ep, a);
		const HChar *fn;

		e = pair_get(&targets, a, 0, True);
		e->x = intern(di && VG_(DebugInfo_get_filename)(di) ?
			      VG_(DebugInfo_get_filename)(di) : "???");
		e->y = (ULong)VG_(DebugInfo_sect_kind)(NULL, a) << 1 |
		       (VG_(get_fnname_if_entry)(ep, a, &fn) ? 1 : 0);
		e->z = a - (di ? (Addr)VG_(DebugInfo_get_text_bias)(di) : 0);
	}
	t.obj = (UInt)e->x, t.sect = (UInt)(e->y >> 1), t.entry = e->y & 1, t.at = (UWord)e->z;
	return t;
}

/* Whether passing from the instruction in to a is a call (emulated) */
Bool enters(struct insn *in, Addr a)
{
	struct target t = target_of(a);

	return t.entry || t.obj != in->obj ||
	       t.sect != (UInt)VG_(DebugInfo_sect_kind)(NULL, in->key);
}

static struct thread *cur_thread(void)
{
	return &threads[cur_tid];
}

void pop(struct thread *t)
{
	struct frame *f = &t->st[--t->depth];

	t->nonskipped = f->nonskipped;
	cur_ctx = f->ctx;
	if (f->site)
		pair_get(t->calls, f->site - 1, f->entry, False)->y += ir_now - f->enter;
}

/* The frames a signal's handler may leave: those above its start's */
static UInt floor_of(const struct thread *t)
{
	return !t->nr_sig ? 0 : t->sig_depth[(t->nr_sig > 8 ? 8 : t->nr_sig) - 1];
}

/* Pop the frames left (their SP below sp), and min more at sp: how many */
static UInt unwind(struct thread *t, Addr sp, UInt min)
{
	UInt n = 0, floor = floor_of(t);

	while (t->depth > floor) {
		struct frame *f = &t->st[t->depth - 1];

		if (!(f->sp < sp || (f->sp == sp && min > 0)))
			break;
		if (min > 0)
			min--;
		pop(t);
		n++;
	}
	return n;
}

/* A call from site (a call instruction's, real) to a, SP then sp */
static void call(struct thread *t, struct insn *site, Addr a, Addr sp, Bool real)
{
	struct target to = target_of(a);
	struct frame *f;

	if (unwind(t, sp, 0) > 0)
		return;		/* it left frames: a return */
	if (!real && site->pop_on_jump && t->depth > 0 && t->st[t->depth - 1].site) {
		/* the resolver's jump to what it resolved: a call from its caller */
		site = by_idx[t->st[t->depth - 1].site - 1];
		real = True;
		pop(t);
	}
	if (!real && t->depth > 0)
		sp = t->st[t->depth - 1].sp;	/* an emulated call shares its caller's frame */
	if (t->depth == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->st = VG_(realloc)("gx.stack", t->st, t->cap * sizeof(*t->st));
	}
	f = &t->st[t->depth++];
	f->sp = sp, f->enter = ir_now, f->nonskipped = t->nonskipped, f->ctx = cur_ctx;
	f->ret = 0;
	if (to.sect == Vg_SectPLT) {	/* a stub: skipped */
		f->site = 0;
		if (!t->nonskipped)
			t->nonskipped = site;
		if (real)
			f->ret = site->key + site->len;
		return;
	}
	if (t->nonskipped) {	/* from the stub's caller */
		site = t->nonskipped;
		real = True;
	}
	if (real)
		f->ret = site->key + site->len;
	{
		struct pair_ent *e;

		if (!t->calls)
			t->calls = VG_(calloc)("gx.calls", 1, sizeof(*t->calls));
		e = pair_get(t->calls, site->idx, a, True);
		e->x++;
		f->site = site->idx + 1, f->entry = a;
	}
	t->nonskipped = NULL;
	cur_ctx = a;
}

VG_REGPARM(3) void do_call(struct insn *site, Addr a, Addr sp)
{
	call(cur_thread(), site, a, sp, True);
}

VG_REGPARM(3) void do_emulated(struct insn *site, Addr a, Addr sp)
{
	call(cur_thread(), site, a, sp, False);
}

/* A return from site to a, SP then sp */
VG_REGPARM(3) void do_ret(struct insn *site, Addr a, Addr sp)
{
	struct thread *t = cur_thread();
	UInt floor = floor_of(t), pops = 1;
	Int k;

	if (t->depth <= floor)
		return;		/* below what it saw called: nothing to return from */
	k = (Int)t->depth - 1;
	if (sp < t->st[k].sp) {
		pops = 0;
	} else if (sp == t->st[k].sp) {
		/* SP kept: a return only to a call's return address */
		for (;;) {
			if (t->st[k].ret == a)
				break;
			if (k > (Int)floor && t->st[k - 1].sp == sp) {
				k--, pops++;
				continue;
			}
			pops = 0;
			break;
		}
	}
	if (!pops)
		call(t, site, a, sp, False);	/* a return without its call */
	else
		unwind(t, sp, pops);
}

/* An indirect jump from site to a (its conditional branch's where cond),
 * SP then sp; and the indirect branch predicted */
static void jump_to(struct insn *site, Addr a, Addr sp, Bool cond)
{
	struct thread *t = cur_thread();
	struct pair_ent *e;

	if (enters(site, a)) {
		call(t, site, a, sp, False);
		return;
	}
	if (unwind(t, sp, 0) > 0 || site->plt)
		return;
	if (!t->jumps)
		t->jumps = VG_(calloc)("gx.jumps", 1, sizeof(*t->jumps));
	e = pair_get(t->jumps, site->idx, a, True);
	e->x++;
	e->y = cond;
}

VG_REGPARM(3) void do_jump(struct insn *site, Addr a, Addr sp)
{
	sim_ind(site, a, site->key);
	jump_to(site, a, sp, False);
}

VG_REGPARM(3) void do_jump_cond(struct insn *site, Addr a, Addr sp)
{
	sim_ind(site, a, site->key);
	jump_to(site, a, sp, True);
}

VG_REGPARM(3) void do_call_ind(struct insn *site, Addr a, Addr sp)
{
	sim_ind(site, a, site->key);
	call(cur_thread(), site, a, sp, True);
}

/* A signal's handler starts no call and ends none of those before it */
void gx_pre_signal(ThreadId tid, Int sig, Bool alt)
{
	struct thread *t = &threads[tid];

	if (t->nr_sig < 8)
		t->sig_depth[t->nr_sig] = t->depth;
	t->nr_sig++;
}

void gx_post_signal(ThreadId tid, Int sig)
{
	struct thread *t = &threads[tid];

	if (!t->nr_sig)
		return;
	t->nr_sig--;
	if (t->nr_sig < 8)
		while (t->depth > t->sig_depth[t->nr_sig])
			pop(t);
}

/* A jump whose target was known as it was translated, not counted
 * inline (its instruction's two counted already) */
VG_REGPARM(3) void do_jump_known(struct insn *site, Addr a, Addr sp)
{
	jump_to(site, a, sp, False);
}

VG_REGPARM(3) void do_jump_known_cond(struct insn *site, Addr a, Addr sp)
{
	jump_to(site, a, sp, True);
}
