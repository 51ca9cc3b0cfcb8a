/*
 * gx-sim.c: gxgrind's simulators, as callgrind's: the caches (--cache-sim:
 * I1 and D1, each backed by one last level, LRU sets; an access that
 * crosses a line looks up both) with the second hierarchy beside them,
 * and cachegrind's branch predictors (--branch-sim), or a tagged one for
 * conditional branches (--gx-predictor=tage); each instruction's
 * counters in each thread, and its names. The helpers the translations
 * call (gx-grind.c) count where the translations could not.
 */
#include "gx-grind.h"

/* ---- the caches ----------------------------------------------------------- */

struct cache I1 = { .name = "I1", .size = 32768, .assoc = 8, .line = 64 },
	     D1 = { .name = "D1", .size = 32768, .assoc = 8, .line = 64 },
	     LL = { .name = "LL", .size = 8388608, .assoc = 16, .line = 64 };

/* The second hierarchy (--L2 given): L2 sees every data access, as a
 * first level would, and its misses go to two last levels apart: PG, a
 * cache of pages (its misses first touches), and TL, as large as the
 * TLB's reach (--TL given: its misses walks); I1's misses go to them as
 * well. The model's second pass was this hierarchy with one of them. */
struct cache L2 = { .name = "L2" },
	     PG = { .name = "PG", .size = 1073741824, .assoc = 16, .line = 4096 },
	     TL = { .name = "TL" };
Bool h2, tl, zero_fill;

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
Bool parse_geo(const HChar *s, struct cache *c)
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

void cache_init(struct cache *c)
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

/* block out of c: its set's later blocks move up, the last way left empty */
static void block_forget(struct cache *c, UWord block)
{
	UWord *t = c->tags + (block & c->set_mask) * c->assoc;

	for (UInt i = 0; i < c->assoc; i++)
		if (t[i] == block) {
			for (; i + 1 < c->assoc; i++)
				t[i] = t[i + 1];
			t[c->assoc - 1] = ~(UWord)0;
			return;
		}
}

/* The lines of [a, a + len) out of c, as though never touched, block by
 * block; a range of more lines than c holds, by c's blocks instead. */
void cache_forget(struct cache *c, Addr a, SizeT len)
{
	UWord lo = a >> c->line_bits, hi, n = ((UWord)c->set_mask + 1) * c->assoc;

	if (!c->tags || !len)
		return;
	hi = (a + len - 1) >> c->line_bits;
	if (hi - lo < n) {
		for (UWord b = lo;; b++) {
			block_forget(c, b);
			if (b == hi)
				break;
		}
		return;
	}
	for (UWord s = 0; s <= c->set_mask; s++) {
		UWord *t = c->tags + s * c->assoc;
		UInt k = 0;

		for (UInt i = 0; i < c->assoc; i++)
			if (t[i] == ~(UWord)0 || t[i] < lo || t[i] > hi)
				t[k++] = t[i];
		for (; k < c->assoc; k++)
			t[k] = ~(UWord)0;
	}
}

/* Whether block is in c (its recency unchanged). */
static Bool block_in(const struct cache *c, UWord block)
{
	const UWord *t = c->tags + (block & c->set_mask) * c->assoc;

	for (UInt i = 0; i < c->assoc; i++)
		if (t[i] == block)
			return True;
	return False;
}

/*
 * The cache of pages follows the client's mappings, as a native run's page
 * faults do: a page mapped afresh (mmap, brk, a range madvise dropped) is
 * untouched again, and its next touch a first one. It sees L2's misses
 * only, so the range leaves L2 too (the second hierarchy's, not
 * callgrind's D1 and LL): a page unmapped and mapped again at once (as a
 * loop of mmap, touch, munmap does) was still in L2, and a native run's
 * 2,603 faults were 332 first touches here. A range mremap moved keeps its
 * pages, touched where they were (glibc's realloc of a large block moves
 * it so, and no page faults natively).
 */
static void forget_range(Addr a, SizeT len)
{
	if (!h2)
		return;
	cache_forget(&PG, a, len);
	cache_forget(&L2, a, len);
}

void gx_mem_new(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	(void)rr, (void)ww, (void)xx, (void)di_handle;
	forget_range(a, len);
}

void gx_mem_brk(Addr a, SizeT len, ThreadId tid)
{
	(void)tid;
	forget_range(a, len);
}

void gx_mem_remap(Addr from, Addr to, SizeT len)
{
	UWord pages, b;

	if (!h2 || !len || from == to)
		return;
	pages = ((from + len - 1) >> PG.line_bits) - (from >> PG.line_bits) + 1;
	cache_forget(&PG, to, len);
	for (UWord i = 0; i < pages; i++) {
		b = (from >> PG.line_bits) + i;
		if (block_in(&PG, b))
			block_ref(&PG, (to >> PG.line_bits) + i);
	}
	cache_forget(&PG, from, len);
}

/* nothing before a system call (Valgrind takes both or neither) */
void gx_syscall_pre(ThreadId tid, UInt no, UWord *args, UInt nr)
{
	(void)tid, (void)no, (void)args, (void)nr;
}

/* The lines of [from, end) into D1, LL and (the second hierarchy's) L2,
 * in order: as the kernel writes a page's zeros */
static void lines_in(Addr from, Addr end)
{
	for (Addr l = from & ~(Addr)(D1.line - 1); l < end; l += D1.line) {
		cache_ref(&D1, l, 1);
		cache_ref(&LL, l, 1);
		if (h2)
			cache_ref(&L2, l, 1);
	}
}

/* MAP_POPULATE, as Linux numbers it on amd64 (no VKI_ name) */
#define GX_MAP_POPULATE 0x8000

/*
 * An anonymous mapping MAP_POPULATE filled: the kernel wrote each page's
 * zeros in the mmap, in order, and none faults later (where zero_fill:
 * no first touch, no fill at the first access, as at a fault). Of the
 * lines, the last LL holds are what the caches keep (consecutive lines
 * fill the sets alike): those alone are put in, however large the range.
 */
static void populated(Addr a, SizeT len)
{
	Addr start = a & ~(Addr)(PG.line - 1), end = a + len, from = start;

	if (!zero_fill || !len)
		return;
	if (end - start > LL.size)
		from = (end - LL.size) & ~(Addr)(PG.line - 1);
	for (Addr p = start; h2 && p < end; p += PG.line)
		cache_ref(&PG, p, 1);
	lines_in(from, end);
}

/* madvise's MADV_DONTNEED (4) and MADV_REMOVE (9), as Linux numbers them
 * on every architecture gxgrind builds for: the range's next touches
 * fault; an anonymous mmap with MAP_POPULATE: populated */
void gx_syscall_post(ThreadId tid, UInt no, UWord *args, UInt nr, SysRes res)
{
	(void)tid;
	if (no == __NR_madvise && nr >= 3 && !sr_isError(res) && (args[2] == 4 || args[2] == 9))
		forget_range(args[0], args[1]);
	if (no == __NR_mmap && nr >= 4 && !sr_isError(res) && (args[3] & VKI_MAP_ANONYMOUS) &&
	    (args[3] & GX_MAP_POPULATE))
		populated(sr_Res(res), args[1]);
}

/* ---- the branch predictors ------------------------------------------------ */

/*
 * Cachegrind's, which callgrind's --branch-sim uses: a conditional
 * branch is predicted by a 2-bit saturating counter, one of 2^14 chosen
 * by the last 7 outcomes of any conditional branch and the low 7 bits of
 * the branch's address; an indirect one by the last target of the branch
 * whose address has the same low 9 bits.
 */

UWord history;
UChar bc_ctr[1 << (HIST_BITS + IADDR_BITS)];
static Addr btac[1 << BTAC_BITS];

static Bool bimodal_missed(Addr a, Bool taken)
{
	UWord i = (history & ((1 << HIST_BITS) - 1)) << IADDR_BITS | (a & ((1 << IADDR_BITS) - 1));
	Bool predicted = bc_ctr[i] >= 2;

	history = history << 1 | (taken ? 1 : 0);
	if (taken && bc_ctr[i] < 3)
		bc_ctr[i]++;
	else if (!taken && bc_ctr[i] > 0)
		bc_ctr[i]--;
	return predicted != taken;
}

/*
 * --gx-predictor=tage: a tagged predictor over long histories, as the
 * cores gexplore models have (Seznec's TAGE, which AMD and Intel describe
 * their conditional predictors after). A base table of 2-bit counters by
 * the branch's address; TAGE_TABLES tables of TAGE_SIZE entries, each
 * indexed and tagged by the address and the last TAGE_LEN[t] outcomes of
 * conditional branches (a multiply's mix of both, tage_hash; the longer
 * histories folded as they come, fold_push, so that a branch costs the
 * same whatever the lengths: half of gxgrind's run where each was hashed
 * anew, zstd -19's 8.0 s then, 6.0 s now); the
 * longest whose tag matches predicts, the next longest (or the base) where
 * its entry is new and weak. A miss allocates an entry in a longer table
 * whose entry is not useful; none free, theirs age. What it is measured
 * against: a branch on a fixed random pattern of 1, 16 or 64 Ki outcomes,
 * repeated, costs Zen 5 no mispredicts, 3% and 40% natively (by time:
 * bench/predictor), this predictor 0%, 0.2% and 41%, cachegrind's one in
 * two each; the tables hold 6 x 4,096 entries and 8,192 base counters.
 */
#define TAGE_TABLES 6
#define TAGE_LOG 12
#define TAGE_SIZE (1 << TAGE_LOG)
#define TAGE_TAG 11
#define TAGE_BASE_LOG 13
#define TAGE_HIST 256		/* outcomes kept: more than the longest length (UChar's wrap) */

static const UInt TAGE_LEN[TAGE_TABLES] = { 5, 11, 22, 44, 88, 176 };

struct tage_ent {
	UShort tag;
	Char ctr;		/* -4 .. 3: taken where >= 0 (VEX's Char is signed) */
	UChar u;		/* 0 .. 3: how useful */
};

/* The history each table is indexed by: the last 64 outcomes as they
 * are (recent, the newest at bit 0), of which a table over fewer takes
 * the low bits; a longer table's folded into FOLD_BITS bits, kept as
 * each outcome comes (a circular shift register, as Seznec's TAGE keeps
 * its): the outcome i branches ago at bit i mod FOLD_BITS, XORed. An odd
 * width, so that a loop's outcomes a turn (a pattern's branch and the
 * loop's, every other bit) do not fall on every other bit of it. */
#define FOLD_BITS 63
#define LONG_FIRST 4		/* the first table over more than 63 outcomes */

static struct {
	struct tage_ent t[TAGE_TABLES][TAGE_SIZE];
	UChar base[1 << TAGE_BASE_LOG];
	UChar ring[TAGE_HIST];		/* outcomes, 0 or 1, the newest at ring[at] */
	UChar at;			/* wraps at TAGE_HIST */
	ULong recent;			/* the last 64 outcomes, the newest bit 0 */
	ULong fold[TAGE_TABLES - LONG_FIRST];	/* the longer tables' last TAGE_LEN[t], folded */
	ULong ticks, seed;
} tg;
Bool tage;

void tage_init(void)
{
	for (UInt i = 0; i < (1u << TAGE_BASE_LOG); i++)
		tg.base[i] = 2;	/* weakly taken, as cachegrind's start */
	tg.seed = 0x2545f4914f6cdd1dULL;
}

/* Table t's history: its last TAGE_LEN[t] outcomes, or their fold */
static inline ULong table_hist(UInt t)
{
	return t < LONG_FIRST ? tg.recent & ((1ULL << TAGE_LEN[t]) - 1) : tg.fold[t - LONG_FIRST];
}

/* Table t's hash of branch a (mixed: am) and its history: a multiply's
 * top bits, which every bit of both moves; the index the top TAGE_LOG,
 * the tag the TAGE_TAG below */
static inline ULong tage_hash(ULong am, UInt t)
{
	return ((am + t) ^ table_hist(t)) * 0x94d049bb133111ebULL;
}

/* the outcome i branches ago (0: the newest) */
static inline ULong hist_bit(UInt i)
{
	return tg.ring[(UChar)(tg.at + i)];
}

/* A longer table's fold as outcome in comes and the one TAGE_LEN[t] - 1
 * branches ago leaves: that one at TAGE_LEN[t] mod FOLD_BITS once the
 * fold turns */
static inline void fold_push(UInt t, ULong in)
{
	ULong f = tg.fold[t - LONG_FIRST] << 1 | in;

	f ^= hist_bit(TAGE_LEN[t] - 1) << (TAGE_LEN[t] % FOLD_BITS);
	tg.fold[t - LONG_FIRST] = (f ^ f >> FOLD_BITS) & ((1ULL << FOLD_BITS) - 1);
}

/* The outcome into the history and the longer tables' folds: the
 * outcome TAGE_LEN[t] branches ago leaves table t's */
static inline void tage_push(Bool taken)
{
	ULong in = taken ? 1 : 0;

#pragma GCC unroll 8
	for (UInt t = LONG_FIRST; t < TAGE_TABLES; t++)
		fold_push(t, in);
	tg.recent = tg.recent << 1 | in;
	tg.ring[--tg.at] = (UChar)in;
}

/* A branch passes: usefulness ages (halved every 256 K branches), and
 * its outcome goes into the histories */
static inline void tage_tick(Bool taken)
{
	if (!(++tg.ticks & ((1u << 18) - 1)))
		for (UInt t = 0; t < TAGE_TABLES; t++)
			for (UInt i = 0; i < TAGE_SIZE; i++)
				tg.t[t][i].u >>= 1;
	tage_push(taken);
}

static Bool tage_missed(Addr a, Bool taken)
{
	UInt b = (UInt)((a ^ (a >> TAGE_BASE_LOG)) & ((1u << TAGE_BASE_LOG) - 1));
	struct tage_ent *ent[TAGE_TABLES];	/* each table's entry for a */
	UShort tag[TAGE_TABLES];
	Int prov = -1, alt = -1;
	UInt hits = 0;
	Bool pred, alt_pred, prov_pred = False;
	ULong am = (ULong)a * 0xff51afd7ed558ccdULL;

	/* every table's tag compared, then the longest two that match
	 * (no branch on each: which match is anyone's guess) */
#pragma GCC unroll 8
	for (UInt t = 0; t < TAGE_TABLES; t++) {
		ULong h = tage_hash(am, t);

		ent[t] = &tg.t[t][h >> (64 - TAGE_LOG)];
		tag[t] = (UShort)(h >> (64 - TAGE_LOG - TAGE_TAG) & ((1u << TAGE_TAG) - 1));
		hits |= (UInt)(ent[t]->tag == tag[t]) << t;
	}
	if (hits) {
		prov = 31 - __builtin_clz(hits);
		hits &= ~(1u << prov);
		alt = hits ? 31 - __builtin_clz(hits) : -1;
	}
	alt_pred = alt >= 0 ? ent[alt]->ctr >= 0 : tg.base[b] >= 2;
	pred = alt_pred;
	if (prov >= 0) {
		struct tage_ent *e = ent[prov];

		prov_pred = e->ctr >= 0;
		/* a new entry, still weak, is trusted less than the next */
		if (e->u || (e->ctr != 0 && e->ctr != -1))
			pred = prov_pred;
		if (prov_pred != alt_pred)
			e->u = prov_pred == taken ? (e->u < 3 ? e->u + 1 : 3) : (e->u ? e->u - 1 : 0);
		e->ctr = taken ? (e->ctr < 3 ? e->ctr + 1 : 3) : (e->ctr > -4 ? e->ctr - 1 : -4);
	} else {
		tg.base[b] = taken ? (tg.base[b] < 3 ? tg.base[b] + 1 : 3) :
				     (tg.base[b] ? tg.base[b] - 1 : 0);
	}
	/* a miss: an entry in a longer table, one not useful (from a random
	 * one of the first two such: no table always wins) */
	if (pred != taken && prov < TAGE_TABLES - 1) {
		Int free[TAGE_TABLES], nf = 0;

		for (Int t = prov + 1; t < TAGE_TABLES; t++)
			if (!ent[t]->u)
				free[nf++] = t;
		tg.seed ^= tg.seed << 13, tg.seed ^= tg.seed >> 7, tg.seed ^= tg.seed << 17;
		if (nf) {
			Int t = free[nf > 1 && (tg.seed & 1) ? 1 : 0];

			*ent[t] = (struct tage_ent){ tag[t], taken ? 0 : -1, 0 };
		} else {
			for (Int t = prov + 1; t < TAGE_TABLES; t++)
				ent[t]->u--;
		}
	}
	tage_tick(taken);
	return pred != taken;
}

/*
 * A branch that went the same way its last STEADY times, more than the
 * longest history, and goes so again: predicted so, the tables not
 * looked at. A branch that never missed has no tagged entries (they are
 * made by misses): the base counter, saturated, predicts it and nothing
 * changes but the histories; one with entries left from its misses (a
 * loop's exit) finds none under a history of one outcome that long.
 * The tables' lookup is most of the predictor's time, and most branches
 * are steady: bench/model's sum_stream (100 M turns of a loop) 2.0 -> 1.2
 * s under gxgrind, zstd -19 76% of its branches, 3.8 -> 3.2 s; the
 * same mispredicts within 0.2%, bench/predictor's the same.
 * Run by in: the instruction's (a PLT stub's: its caller's, which
 * shares the run where it is a branch itself: a run of both, or none).
 */
#define STEADY 255

static inline Bool steady(struct insn *in, Bool taken)
{
	UShort r = in->run;

	if ((r >> 15) != taken) {
		in->run = (UShort)(taken << 15 | 1);
		return False;
	}
	if ((r & 0x7fff) >= STEADY) {
		tage_tick(taken);
		return True;
	}
	in->run = (UShort)(r + 1);
	return False;
}

static Bool cond_missed(struct insn *in, Addr a, Bool taken)
{
	if (!tage)
		return bimodal_missed(a, taken);
	return !steady(in, taken) && tage_missed(a, taken);
}

static Bool ind_missed(Addr a, Addr to)
{
	UWord i = a & ((1 << BTAC_BITS) - 1);
	Bool missed = btac[i] != to;

	btac[i] = to;
	return missed;
}

static UWord pair_hash(UWord a, UWord b)
{
	return (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^ (b >> 29);
}

struct pair_ent *pair_get(struct pair_map *m, UWord a, UWord b, Bool make)
{
	UInt k;

	if (make && (m->n + 1) * 2 > m->cap) {
		struct pair_map old = *m;

		m->cap = m->cap ? m->cap * 2 : 256;
		m->v = VG_(calloc)("gx.map", m->cap, sizeof(*m->v));
		m->n = 0;
		for (UInt i = 0; i < old.cap; i++)
			if (old.v[i].used) {
				struct pair_ent *e = pair_get(m, old.v[i].a, old.v[i].b, True);

				e->x = old.v[i].x, e->y = old.v[i].y, e->z = old.v[i].z;
			}
		if (old.v)
			VG_(free)(old.v);
	}
	if (!m->cap)
		return NULL;
	for (k = pair_hash(a, b) & (m->cap - 1); m->v[k].used; k = (k + 1) & (m->cap - 1))
		if (m->v[k].a == a && m->v[k].b == b)
			return &m->v[k];
	if (!make)
		return NULL;
	m->v[k] = (struct pair_ent){ .a = a, .b = b, .used = True };
	m->n++;
	return &m->v[k];
}

/* ---- what each instruction counted, in each thread ------------------------ */

VgHashTable *insns;
struct insn **by_idx;
UInt nr_insns;
static UInt cap_idx;

struct thread *threads;	/* by Valgrind's thread id, VG_N_THREADS */
UInt cap_chunks;
ULong **cur_tab;
ThreadId cur_tid;

/* The instruction outside a PLT section whose jump may have reached a
 * PLT stub (a call, a tail call, an indirect jump), set as its superblock
 * leaves: callgrind (--skip-plt, its default) counts a stub's work there,
 * and the first pass is callgrind's */
struct insn *caller;

/* --gx-first=yes: the model's first pass (every column, a file a thread,
 * a forked child's counts its own) */
Bool first;

ULong **new_tab(void)
{
	return VG_(calloc)("gx.tab", cap_chunks, sizeof(ULong *));
}

static ULong **grow_tab(ULong **tab, UInt from, UInt to)
{
	tab = VG_(realloc)("gx.tab", tab, to * sizeof(ULong *));
	VG_(memset)(tab + from, 0, (to - from) * sizeof(ULong *));
	return tab;
}

/* Room in every table for nr chunks */
static void grow_chunks(UInt nr)
{
	UInt n = cap_chunks;

	if (nr <= n)
		return;
	while (n < nr)
		n *= 2;
	for (UInt t = 0; t < VG_N_THREADS; t++) {
		if (threads[t].tab)
			threads[t].tab = grow_tab(threads[t].tab, cap_chunks, n);
		if (threads[t].before)
			threads[t].before = grow_tab(threads[t].before, cap_chunks, n);
	}
	cap_chunks = n;
	if (cur_tid)
		cur_tab = threads[cur_tid].tab;
}

/* The running thread's instructions (--gx-first: counted as its
 * superblocks leave), for the calls' inclusive costs */
ULong ir_now;

/* The entry of the function the running thread runs in, as callgrind
 * reads it: the one the last call it is in entered (a PLT stub's not), or
 * where the thread started. Code without a symbol is named by it. */
Addr cur_ctx;

/* A thread starts to run: its table the translations' */
void gx_start_client(ThreadId tid, ULong blocks)
{
	if (tid == cur_tid || tid >= VG_N_THREADS)
		return;
	if (cur_tid) {
		threads[cur_tid].caller = caller;
		threads[cur_tid].ir = ir_now;
		threads[cur_tid].ctx = cur_ctx;
	}
	cur_tid = tid;
	if (!threads[tid].tab) {
		threads[tid].tab = new_tab();
		threads[tid].ctx = VG_(get_IP)(tid);	/* where it starts */
	}
	cur_tab = threads[tid].tab;
	caller = threads[tid].caller;
	ir_now = threads[tid].ir;
	cur_ctx = threads[tid].ctx;
}

/* A superblock's chunk made where the running thread has none */
VG_REGPARM(1) void make_chunk(UWord ci)
{
	chunk_of(cur_tab, (UInt)ci << CHUNK_BITS);
}

/* Object and function names, each once */
HChar **names;
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

UInt intern(const HChar *s)
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
struct insn *insn_at(Addr a)
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
	in->fn = VG_(get_fnname)(ep, a, &fn) ? intern(fn) : ~0u;
	in->pop_on_jump = in->fn != ~0u && !VG_(strncmp)(fn, "_dl_runtime_resolve", 19);
	in->plt = VG_(DebugInfo_sect_kind)(NULL, a) == Vg_SectPLT;
	{
		const HChar *file, *dir;
		UInt line;

		if (VG_(get_filename_linenum)(ep, a, &file, &dir, &line)) {
			HChar *path = VG_(malloc)("gx.path", VG_(strlen)(dir) + VG_(strlen)(file) + 2);

			if (*dir && *file != '/')
				VG_(sprintf)(path, "%s/%s", dir, file);
			else
				VG_(strcpy)(path, file);
			in->file = intern(path);
			in->line = line;
			VG_(free)(path);
		} else {
			in->file = intern("???");
		}
	}
	VG_(HT_add_node)(insns, in);
	if (nr_insns == cap_idx) {
		cap_idx = cap_idx ? cap_idx * 2 : 65536;
		by_idx = VG_(realloc)("gx.idx", by_idx, cap_idx * sizeof(*by_idx));
	}
	in->idx = nr_insns;
	by_idx[nr_insns++] = in;
	grow_chunks((nr_insns + CHUNK - 1) >> CHUNK_BITS);
	return in;
}

/* ---- the simulator, called from the translations -------------------------- */

/* where in's counts go: a PLT stub's instruction given here is one
 * reached from another superblock: counted at caller, the instruction
 * whose jump left that one */
static inline ULong *cost_of(struct insn *in)
{
	if (in->plt && caller)
		in = caller;
	return counts(cur_tab, in->idx);
}

/* A fetch past I1's most recent line of its set (or any, where c[C_IR] is
 * counted here): I1, its misses to LL and the second hierarchy */
static inline void fetch_rest(ULong *c, Addr a, UWord len)
{
	if (cache_ref(&I1, a, len))
		return;
	c[C_I1MR]++;
	if (!cache_ref(&LL, a, len))
		c[C_ILMR]++;
	if (h2)
		cache_ref(&PG, a, len);	/* a fetch I1 missed reaches them too */
	if (tl)
		cache_ref(&TL, a, len);
}

VG_REGPARM(3) void sim_fetch(struct insn *in, Addr a, UWord len)
{
	ULong *c = cost_of(in);

	c[C_IR]++;
	fetch_rest(c, a, len);
}

VG_REGPARM(3) void sim_fetch_rest(struct insn *in, Addr a, UWord len)
{
	fetch_rest(counts(cur_tab, in->idx), a, len);
}

/* A miss this many lines or fewer from its instruction's miss before,
 * up or down, is near (C_D1MN): AMD's and Intel's L2 streamers follow a
 * run of lines within a page whatever the stride */
#define NEAR_LINES 4

/* A D1 miss at a's line: whether it is the instruction's stride from its
 * last miss, the stride that miss had (C_D1MS), or else near it (C_D1MN) */
static inline void miss_stride(ULong *c, Addr a)
{
	ULong line = a >> D1.line_bits;
	Long d = (Long)(line - c[C_MLINE]);
	Long most = (Long)(4096 >> D1.line_bits);

	if (d != 0 && d == (Long)c[C_MSTRIDE] && d > -most && d < most)
		c[C_D1MS]++;
	else if (d != 0 && d >= -NEAR_LINES && d <= NEAR_LINES)
		c[C_D1MN]++;
	c[C_MSTRIDE] = (ULong)d;
	c[C_MLINE] = line;
}

/*
 * The first touch of a page of anonymous memory (the heap, the stack, a
 * mapping of no file): the kernel's fault wrote the page's zeros (or
 * mapped its page of zeros, to be copied at the first write) before the
 * access ran again, and so every line of it is in each cache, the
 * accessed one the most recent; the access hits. A page of a file is the
 * page cache's, not read by the core. Natively a program that fills the
 * memory it allocates misses none of it: jq's object allocator's stores
 * into fresh heap, 128 K lines, were priced as misses at memory's
 * latency, 17% of its cycles where 0.4% of its time was spent there.
 */
static Bool zero_filled(Addr a)
{
	NSegment const *s = VG_(am_find_nsegment)(a);

	return s && s->kind == SkAnonC;
}

static void fill_page(Addr a)
{
	Addr page = a & ~(Addr)(PG.line - 1);

	lines_in(page, page + PG.line);
	lines_in(a, a + 1);	/* the accessed line the most recent */
}

/* A data access: D1 (its misses to LL), and L2 (its misses to PG: a
 * first touch, of anonymous memory a hit in each, fill_page) */
static inline void sim_data(ULong *c, Addr a, UWord size, Int m1, Int mll, Int m2, Int mpg,
			    Int mtl)
{
	Bool miss1 = !cache_ref(&D1, a, size), miss3 = miss1 && !cache_ref(&LL, a, size);
	Bool filled = False;

	if (h2 && !cache_ref(&L2, a, size)) {
		if (!cache_ref(&PG, a, size)) {
			c[mpg]++;
			if (zero_fill && zero_filled(a)) {
				fill_page(a);
				filled = True;
			}
		}
		if (!filled)
			c[m2]++;
		/* the walk of an access after its fault: the fault's, as the
		 * page tables it reads were just written */
		if (tl && !cache_ref(&TL, a, size) && !filled)
			c[mtl]++;
	}
	if (miss1 && !filled) {
		c[m1]++;
		miss_stride(c, a);
		if (miss3)
			c[mll]++;
	}
}

VG_REGPARM(3) void sim_read(struct insn *in, Addr a, UWord size)
{
	ULong *c = cost_of(in);

	c[C_DR]++;
	sim_data(c, a, size, C_D1MR, C_DLMR, C_L2MR, C_PGMR, C_TLMR);
}

/* a write, or a read and a write of the same bytes (the second access
 * hits: one is simulated, counted a write, as cachegrind counts it) */
VG_REGPARM(3) void sim_write(struct insn *in, Addr a, UWord size)
{
	ULong *c = cost_of(in);

	c[C_DW]++;
	sim_data(c, a, size, C_D1MW, C_DLMW, C_L2MW, C_PGMW, C_TLMW);
}

/* The same, the access counted already (inline): called where it is not
 * the most recent line of its D1 set */
VG_REGPARM(3) void sim_read_rest(struct insn *in, Addr a, UWord size)
{
	sim_data(counts(cur_tab, in->idx), a, size, C_D1MR, C_DLMR, C_L2MR, C_PGMR, C_TLMR);
}

VG_REGPARM(3) void sim_write_rest(struct insn *in, Addr a, UWord size)
{
	sim_data(counts(cur_tab, in->idx), a, size, C_D1MW, C_DLMW, C_L2MW, C_PGMW, C_TLMW);
}

/* A conditional branch: taken or not; at its own address */
VG_REGPARM(3) void sim_cond(struct insn *in, UWord taken, UWord at)
{
	Bool missed = cond_missed(in, at, taken != 0);
	ULong *c = cost_of(in);

	c[C_BC]++;
	if (missed)
		c[C_BCM]++;
}

/* An indirect jump or call to to */
VG_REGPARM(3) void sim_ind(struct insn *in, Addr to, UWord at)
{
	Bool missed = ind_missed(at, to);
	ULong *c = cost_of(in);

	c[C_BI]++;
	if (missed)
		c[C_BIM]++;
}
