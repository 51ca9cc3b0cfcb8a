/*
 * gx-grind.h: gxgrind's parts, shared. gx-sim.c simulates the caches and
 * the branch predictors and keeps each instruction's counters in each
 * thread; gx-calls.c classifies jumps and calls as callgrind does;
 * gx-grind.c instruments Valgrind's superblocks (and is the tool's entry:
 * options, forks); gx-out.c writes the files. Valgrind's library only
 * (VG_()): no gexplore code runs inside Valgrind.
 */
#ifndef GX_GRIND_H
#define GX_GRIND_H

#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
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
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

/* ---- the caches (gx-sim.c) ------------------------------------------------ */

struct cache {
	const HChar *name;
	ULong size;
	UInt assoc, line;
	UInt line_bits;
	UWord set_mask;
	UWord *tags;		/* a set's blocks, the most recently used first */
};

/* I1, D1 and LL as callgrind's; the second hierarchy (h2: --L2 given):
 * L2 over every data access, its misses to PG (pages) and TL (the TLB's
 * reach, tl: --TL given) */
extern struct cache I1, D1, LL, L2, PG, TL;
/* --gx-zero-fill=yes: the first touch of a page of anonymous memory (a
 * miss of PG) puts the page's lines in each cache, as the kernel's fault
 * that wrote its zeros does; no, as callgrind, a miss like any (gx-sim.c) */
extern Bool zero_fill;
extern Bool h2, tl;

/* "SIZE,ASSOC,LINE" into c: False where it is not that */
Bool parse_geo(const HChar *s, struct cache *c);
void cache_init(struct cache *c);
/* [a, a + len)'s lines out of c, as though never touched (no cache: nothing) */
void cache_forget(struct cache *c, Addr a, SizeT len);
/* the client's mappings, as the cache of pages follows them (gx-sim.c) */
void gx_mem_new(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle);
void gx_mem_brk(Addr a, SizeT len, ThreadId tid);
void gx_mem_remap(Addr from, Addr to, SizeT len);
void gx_syscall_pre(ThreadId tid, UInt no, UWord *args, UInt nr);
void gx_syscall_post(ThreadId tid, UInt no, UWord *args, UInt nr, SysRes res);

/* ---- the branch predictors (gx-sim.c) ------------------------------------- */

#define HIST_BITS 7
#define IADDR_BITS 7
#define BTAC_BITS 9

extern UWord history;
/* --gx-predictor=tage: conditional branches by a tagged predictor over
 * long histories (gx-sim.c), each through sim_cond; else cachegrind's */
extern Bool tage;
/* The tagged predictor's start (its base counters weakly taken): once,
 * after the options, where tage is set. */
void tage_init(void);
extern UChar bc_ctr[1 << (HIST_BITS + IADDR_BITS)];

/* A map of two words to three counts, open addressing */
struct pair_ent {
	UWord a, b;
	ULong x, y, z;
	Bool used;
};

struct pair_map {
	struct pair_ent *v;
	UInt cap, n;
};

/* The entry of (a, b), made where make and it is not there (NULL: not
 * there); a made one's counts 0. The map moves as it grows. */
struct pair_ent *pair_get(struct pair_map *m, UWord a, UWord b, Bool make);

/* ---- what each instruction counted, in each thread (gx-sim.c) ------------- */

/* The columns: callgrind's, then the second hierarchy's (L2's misses,
 * PG's) */
enum { C_IR, C_DR, C_DW, C_I1MR, C_D1MR, C_D1MW, C_ILMR, C_DLMR, C_DLMW, C_BC, C_BCM, C_BI,
       C_BIM, C_L2MR, C_L2MW, C_PGMR, C_PGMW, C_TLMR, C_TLMW,
       C_J0, C_J1,	/* times its jumps to jt[0], jt[1] were taken */
       /* D1's misses (read or write) a constant stride of lines, under
        * a page, from the instruction's miss before, as the one before
        * was from its own (a stream a stride prefetcher follows); D1's
        * misses not so but within NEAR_LINES lines of it, up or down (a
        * run of lines a streamer follows whatever the stride: a scan of
        * text lines of any length); and the state that finds them: the
        * line of its last miss, the stride to it (the thread's own: not
        * summed into anything written) */
       C_D1MS, C_D1MN, C_MLINE, C_MSTRIDE,
       C_NR };

struct insn {
	struct insn *next;	/* VgHashNode's first two */
	UWord key;		/* its address */
	UWord at;		/* its address as callgrind writes it: in its object's file */
	UInt idx;		/* its counters' index (by_idx) */
	UInt obj, fn, file;	/* names[] indices (fn: ~0u, no symbol) */
	UInt line, len;
	Addr jt[2];		/* its jumps' targets counted inline (C_J0, C_J1), 0: none */
	Addr ctx;		/* without a symbol: the entry of the function it ran in last */
	Bool jcond[2];		/* each a conditional one's */
	Bool plt;		/* in a PLT section: counted at its caller's call */
	Bool pop_on_jump;	/* in _dl_runtime_resolve*: its jump ends its call (below) */
	UShort run;		/* a conditional one's: its last outcome (bit 15) and how
				 * many times in a row it went so, to STEADY (gx-sim.c) */
};

extern VgHashTable *insns;
extern struct insn **by_idx;
extern UInt nr_insns;

/*
 * Each thread's counters: a table of chunks of CHUNK instructions' C_NR
 * counters, a chunk made when the thread first runs one of its
 * instructions (a superblock's chunks are made before it runs). Every
 * thread's table has cap_chunks entries. The running thread's is
 * cur_tab, which the translations read.
 */
#define CHUNK_BITS 7
#define CHUNK (1u << CHUNK_BITS)

struct frame {
	Addr sp, ret;		/* SP at the callee's entry, the return address (0: none) */
	ULong enter;		/* the thread's instructions then */
	/* its call in the thread's calls: the site's index + 1 (0: a
	 * skipped function's) and the entry (the map moves as it grows) */
	UInt site;
	Addr entry;
	Addr ctx;		/* the function the thread ran in before (cur_ctx) */
	struct insn *nonskipped;	/* as it was before the call */
};

struct thread {
	ULong **tab;		/* NULL: the thread never ran */
	ULong **before;		/* set aside at forks (the second pass's files) */
	struct insn *caller;	/* its caller (below) while it does not run */
	ULong ir;		/* instructions it ran (ir_now while it runs) */
	Addr ctx;		/* the function it runs in (cur_ctx while it runs) */
	struct frame *st;	/* its call stack */
	UInt depth, cap, sig_depth[8], nr_sig;
	/* the call whose site called a skipped function (a PLT stub) it is
	 * in, NULL: none */
	struct insn *nonskipped;
	struct pair_map *calls;	/* (site idx, entry) -> count, inclusive Ir */
	struct pair_map *jumps;	/* (site idx, target) -> count, conditional */
};

extern struct thread *threads;	/* by Valgrind's thread id, VG_N_THREADS */
extern UInt cap_chunks;
extern ULong **cur_tab;
extern ThreadId cur_tid;
/* the instruction outside a PLT section whose jump may have reached a
 * PLT stub, where a stub's work is counted */
extern struct insn *caller;
/* --gx-first=yes: the model's first pass */
extern Bool first;
/* the running thread's instructions; the entry of the function it runs in */
extern ULong ir_now;
extern Addr cur_ctx;

static inline ULong *chunk_of(ULong **tab, UInt idx)
{
	ULong **c = &tab[idx >> CHUNK_BITS];

	if (!*c)
		*c = VG_(calloc)("gx.counts", (SizeT)CHUNK * C_NR, sizeof(ULong));
	return *c;
}

static inline ULong *counts(ULong **tab, UInt idx)
{
	return chunk_of(tab, idx) + (idx & (CHUNK - 1)) * C_NR;
}

ULong **new_tab(void);
/* a thread starts to run: its table the translations' */
void gx_start_client(ThreadId tid, ULong blocks);
VG_REGPARM(1) void make_chunk(UWord ci);

/* object, function and file names, each once: an index into names */
extern HChar **names;
UInt intern(const HChar *s);
/* the instruction at a, made when first translated */
struct insn *insn_at(Addr a);

/* the simulator, called from the translations */
VG_REGPARM(3) void sim_fetch(struct insn *in, Addr a, UWord len);
VG_REGPARM(3) void sim_fetch_rest(struct insn *in, Addr a, UWord len);
VG_REGPARM(3) void sim_read(struct insn *in, Addr a, UWord size);
VG_REGPARM(3) void sim_write(struct insn *in, Addr a, UWord size);
VG_REGPARM(3) void sim_read_rest(struct insn *in, Addr a, UWord size);
VG_REGPARM(3) void sim_write_rest(struct insn *in, Addr a, UWord size);
VG_REGPARM(3) void sim_cond(struct insn *in, UWord taken, UWord at);
VG_REGPARM(3) void sim_ind(struct insn *in, Addr to, UWord at);

/* ---- jumps and calls (gx-calls.c) ----------------------------------------- */

struct target {
	UInt obj, sect;
	Bool entry;
	UWord at;
};

struct target target_of(Addr a);
/* whether passing from in to a is a call (emulated) */
Bool enters(struct insn *in, Addr a);
/* the top of t's call stack ends (its call's cost counted) */
void pop(struct thread *t);
/* called from the translations: from site to a, SP then sp */
VG_REGPARM(3) void do_call(struct insn *site, Addr a, Addr sp);
VG_REGPARM(3) void do_emulated(struct insn *site, Addr a, Addr sp);
VG_REGPARM(3) void do_ret(struct insn *site, Addr a, Addr sp);
VG_REGPARM(3) void do_jump(struct insn *site, Addr a, Addr sp);
VG_REGPARM(3) void do_jump_cond(struct insn *site, Addr a, Addr sp);
VG_REGPARM(3) void do_call_ind(struct insn *site, Addr a, Addr sp);
VG_REGPARM(3) void do_jump_known(struct insn *site, Addr a, Addr sp);
VG_REGPARM(3) void do_jump_known_cond(struct insn *site, Addr a, Addr sp);
void gx_pre_signal(ThreadId tid, Int sig, Bool alt);
void gx_post_signal(ThreadId tid, Int sig);

/* ---- the files (gx-out.c) ------------------------------------------------- */

extern const HChar *out_template, *l2_template, *tl_template;
void gx_fini(Int exitcode);

#endif
