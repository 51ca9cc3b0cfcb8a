/*
 * passes.c: what the first pass cannot tell. A second Valgrind pass (L2
 * as its first data cache, pages as its last level) tells L2's hits from
 * L3's and counts first touches, or, where they are not wanted of it, the
 * TLB's misses (its last level then as large as the TLB's reach), run
 * only where that can matter; a
 * native run under the page-faults software event counts first touches
 * where a description prices them (faults.c), so that the second pass
 * runs for L2's hits only. Both are given to the first pass's
 * instructions (by instruction, or by source line under cachegrind).
 */
#include "config.h"

#include "model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model-int.h"
#include "util/util.h"

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
 * (a page's first touch misses every level), or its walks where that
 * level is the TLB, by D1 misses. Where the function's name
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
	/* a line's last-level misses: first touches by the first pass's
	 * last-level misses (a first touch misses every level), walks (the
	 * TLB's misses) by its D1 misses */
	const uint64_t *pw = st->pass2_tlb ? m1 : m3, *pw2 = st->pass2_tlb ? ir : m1;
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
		if (!share_out(xp[g], ks, m, pw, pw2, st->pass_pages) &&
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
		if (!share_out(yp[g], ks, m, pw, pw2, st->pass_pages) &&
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

/* The second pass's L2 misses and first touches where callgrind or
 * gxgrind ran it: at the same instructions (its objects named in its own
 * order: by name). */
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

/* total faults over the instructions callgrind ran in object obj (all of
 * them where obj is UINT32_MAX), in proportion to their last-level data
 * misses: a page's first touch is one, but where gxgrind took a page of
 * no file for the kernel's zeros (seen: the first touches it counted,
 * NULL: none). Adds to pages; false where none of them missed. */
static bool spread_by_misses(const struct cg_profile *p, uint32_t obj, uint64_t total,
			     const uint64_t *seen, uint64_t *pages)
{
	uint64_t *w = xcalloc(p->nr_insns + 1, sizeof(*w));
	uint64_t *out = xcalloc(p->nr_insns + 1, sizeof(*out));
	uint64_t sum = 0;

	for (size_t i = 0; i < p->nr_insns; i++)
		if (obj == UINT32_MAX || p->insns[i].obj == obj) {
			w[i] = p->insns[i].c[CG_DLMR] + p->insns[i].c[CG_DLMW] +
			       (seen ? seen[i] : 0);
			sum += w[i];
		}
	if (sum) {
		model_split(total, w, p->nr_insns, out);
		for (size_t i = 0; i < p->nr_insns; i++)
			pages[i] += out[i];
	}
	free(w);
	free(out);
	return sum > 0;
}

/* Whether gxgrind's one pass counts first touches: its second hierarchy
 * has the cache of pages (model_first_grind) */
static bool grind_pages(const struct model_state *st)
{
	return st->first_grind && st->first_h2[1].size;
}

/* The first touches gxgrind's cache of pages counted by instruction (its
 * second hierarchy's file, read again later for the pass), where a first
 * touch of anonymous memory is no miss; NULL where it counted none. */
static uint64_t *grind_first_touches(struct model_state *st, const struct model_opts *opts)
{
	struct model_vg v = { .how = PASS_GRIND };
	uint64_t *seen = NULL;
	char *why = NULL;

	if (!grind_pages(st) || !model_vg__zero_fill())
		return NULL;
	if (model_vg__peek(&v, opts, st->scratch, &st->cg2, &why) >= 0 && st->cg2.nr_insns) {
		pass_take(st);
		seen = st->pass_pages;
		st->pass_pages = NULL;
		free(st->pass_l2);	/* the pass's, once it is read */
		st->pass_l2 = NULL;
	}
	cg_profile__exit(&st->cg2);
	cg_profile__init(&st->cg2);
	free(why);
	return seen;
}

/* The native run's faults at callgrind's instructions: a fault's file
 * offset to the vaddr of the load segment that maps it, plus where
 * callgrind put the object. A fault at code Valgrind did not run is
 * code that took another way natively, most of it an ifunc's variant
 * that Valgrind hides (AVX-512: zstd -19's 20,700 faults in
 * __memset_avx512_unaligned_erms, where callgrind ran the AVX2 memset):
 * those are given to the instructions callgrind ran in the same file in
 * proportion to their last-level data misses and the first touches
 * gxgrind counted (a first touch of a file's page is a miss), and those at
 * no file's code, or in a file callgrind saw miss nothing, to all its
 * instructions alike; said. */
void model_native_pages(struct model_state *st, const struct model_opts *opts)
{
	uint64_t missed = 0, n = 0, rest = st->nf.unmapped, unpriced = 0, *obj_missed, *seen;
	uint32_t nobj = st->cg.nr_objs;

	if (!st->have_native_run)
		return;
	seen = grind_first_touches(st, opts);
	st->native_pages = xcalloc(st->cg.nr_insns + 1, sizeof(uint64_t));
	obj_missed = xcalloc(nobj + 1, sizeof(*obj_missed));
	for (size_t i = 0; i < st->nf.nr; i++) {
		const struct model_fault *f = &st->nf.v[i];
		size_t at = SIZE_MAX;
		uint32_t in = UINT32_MAX;

		for (uint32_t k = 0; k < nobj && at == SIZE_MAX; k++) {
			const struct model_obj *o = &st->objs[k];

			if (!o->file || strcmp(o->path, st->nf.paths[f->path]))
				continue;
			in = k;
			for (int l = 0; l < o->nr_load && at == SIZE_MAX; l++)
				if (f->off >= o->load[l].offset &&
				    f->off - o->load[l].offset < o->load[l].memsz)
					at = model_ins_at(st, k, f->off - o->load[l].offset +
								 o->load[l].vaddr + o->bias);
		}
		if (at == SIZE_MAX) {
			missed += f->n;
			if (in != UINT32_MAX)
				obj_missed[in] += f->n;
			else
				rest += f->n;
			continue;
		}
		st->native_pages[st->ins[at].cg] += f->n;
		n += f->n;
	}
	for (uint32_t k = 0; k < nobj; k++)
		if (obj_missed[k] &&
		    !spread_by_misses(&st->cg, k, obj_missed[k], seen, st->native_pages))
			rest += obj_missed[k];
	if (rest && !spread_by_misses(&st->cg, UINT32_MAX, rest, seen, st->native_pages))
		unpriced = rest;
	free(obj_missed);
	free(seen);
	st->have_native = true;
	model_note(st, "model: the workload touched %" PRIu64 " pages first in a native run (the "
	           "page-faults software event in user space, a sample a fault)",
	           n + missed + st->nf.unmapped);
	if (unpriced)
		model_note(st, "model: %" PRIu64 " of the native run's %" PRIu64 " page faults "
		           "were at no instruction Valgrind ran, which missed nothing to give them "
		           "to: not priced", unpriced, st->nf.total);
	else if (missed + st->nf.unmapped)
		model_note(st, "model: %" PRIu64 " of the native run's %" PRIu64 " page faults "
		           "were at no instruction Valgrind ran (code that took another way "
		           "natively, as an ifunc's variant Valgrind hides; %" PRIu64 " in no "
		           "file's code): priced at the instructions Valgrind ran in the same "
		           "file, by their last-level data misses and first touches (%" PRIu64
		           " at those of the whole run)", missed + st->nf.unmapped, st->nf.total,
		           st->nf.unmapped, rest);
}

/* GX_MODEL_PASSES: 1, 2, or auto (0, also when unset); GX_MODEL_ONE_PASS=1
 * is 1. -1: another value. */
int model_passes(void)
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
void model_stdin_state(struct model_state *st)
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
 * given to the instruction that touched it. Where first touches are
 * counted natively or priced at nothing, that level is the TLB instead
 * (tlb_mode): its misses are walks.
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
 * under callgrind, whose counts are the instructions'. Where gexplore's
 * own tool can run (st->vg_env), neither: gxgrind counts by instruction
 * what callgrind does, faster than cachegrind. GX_MODEL_SECOND: gxgrind,
 * callgrind or cachegrind, else auto.
 */
#define MODEL_LINES_UNKNOWN 0.05
/* instructions the two passes may differ by, beyond 1%, on the same path */
#define MODEL_PASS_SLACK 20000.0

static enum model_pass second_how(const struct model_state *st, bool *forced)
{
	const char *e = getenv("GX_MODEL_SECOND");
	uint64_t m1 = 0, m3 = 0, u1 = 0, u3 = 0;

	*forced = e && (!strcmp(e, "callgrind") || !strcmp(e, "cachegrind") ||
			(!strcmp(e, "gxgrind") && st->vg_env));
	if (*forced)
		return !strcmp(e, "callgrind") ? PASS_INSNS : !strcmp(e, "gxgrind") ? PASS_GRIND :
		       PASS_LINES;
	if (st->vg_env)
		return PASS_GRIND;
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

/* This machine's page: the second pass's line for pages */
static unsigned page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg >= 4096 && pg <= 65536 ? (unsigned)pg : 4096;
}

/* Says how gxgrind counted first touches of anonymous memory, where its
 * cache of pages saw them */
void model_zero_fill_note(struct model_state *st)
{
	if (grind_pages(st))
		model_note(st, model_vg__zero_fill() ?
			   "model: a first touch of a page of memory of no file is no miss, nor "
			   "are the page's other lines while they stay in the caches (the "
			   "kernel's fault wrote them there)" :
			   "model: a first touch of a page of memory of no file, and its page's "
			   "other lines, missed as any (GX_MODEL_ZERO_FILL=no)");
}

void model_strides(struct model_state *st)
{
	const char *e = getenv("GX_MODEL_STRIDES");
	uint64_t m1 = st->cg.totals[CG_D1MR] + st->cg.totals[CG_D1MW];
	uint64_t ms = st->cg.totals[CG_D1MS], mn = st->cg.totals[CG_D1MN];

	if (!ms && !mn)
		return;
	if (!e || strcmp(e, "none")) {
		if (ms)
			model_note(st, "model: %" PRIu64 " of the %" PRIu64 " D1 misses came a "
				   "constant stride under a page from their instruction's miss "
				   "before (a sweep a stride prefetcher follows): priced by "
				   "bandwidth, not latency", ms, m1);
		if (mn)
			model_note(st, "model: %" PRIu64 " of the %" PRIu64 " D1 misses came "
				   "within four lines of their instruction's miss before, not a "
				   "stride (a run of lines a streamer follows): priced by "
				   "bandwidth, a chain's at L2's latency", mn, m1);
		return;
	}
	for (size_t k = 0; k < st->cg.nr_insns; k++)
		st->cg.insns[k].c[CG_D1MS] = st->cg.insns[k].c[CG_D1MN] = 0;
	model_note(st, "model: %" PRIu64 " D1 misses in a stride and %" PRIu64 " near the one "
		   "before priced as any others (GX_MODEL_STRIDES=none)", ms, mn);
	st->cg.totals[CG_D1MS] = st->cg.totals[CG_D1MN] = 0;
}

/*
 * Whether the second pass's last level is the TLB (st->tlb_geo, set
 * here): where that pass is not wanted for first touches (counted in a
 * native run, or priced at nothing; gxgrind's first pass counts both, a
 * file each) and either gxgrind counted the walks beside the pages, or
 * the TLB reaches less than the last level (a set past the last level is
 * past the reach too: its walks are estimated from the first pass's
 * misses alone, as before). Where the TLB reaches further than the last
 * level (a shared VM's core gets 4 MiB of L3, where Zen 5's L2 TLB
 * reaches 16 MiB) that estimate finds no walk at all, and a random walk
 * over 128 MiB, a walk a load natively, was priced as memory's latency
 * alone; gxgrind's count has no such bound.
 * GX_MODEL_TLB=estimate keeps the estimate (the ninth round's pricing).
 */
static bool tlb_mode(struct model_state *st, unsigned page)
{
	const char *e = getenv("GX_MODEL_TLB");
	bool counted = grind_pages(st) && st->first_h2[2].size;

	model_tlb_geometry(&st->tlb_geo, st->mc.reach, page);
	if ((e && !strcmp(e, "estimate")) || !st->tlb_geo.size ||
	    (!st->have_native_run && st->mc.fault > 0 && !counted))
		return false;
	return (counted || st->tlb_geo.size < model_ll_size(st)) && st->mc.walk > 0;
}

/*
 * Whether the first pass runs under gxgrind, alone (PASS_GFIRST): where
 * it can run (st->vg_env), unless GX_MODEL_FIRST=callgrind. Its second
 * hierarchy in h2[]: the second pass's L2 and pages, and the TLB where it
 * can be wanted (tlb_mode, once the native run is known).
 */
bool model_first_grind(struct model_state *st, struct cache_geo h2[3])
{
	const char *e = getenv("GX_MODEL_FIRST");

	memset(h2, 0, 3 * sizeof(*h2));
	if (!st->vg_env || (e && !strcmp(e, "callgrind")))
		return false;
	if (model_passes() == 1)
		return true;	/* no second hierarchy */
	h2[0] = st->geo[GEO_L2].size ? st->geo[GEO_L2] : st->geo[GEO_D1];
	h2[1] = (struct cache_geo){ MODEL_PAGE_CACHE, 16, page_size() };
	model_tlb_geometry(&st->tlb_geo, st->mc.reach, page_size());
	h2[2] = st->tlb_geo;
	return true;
}

/* Starts the second pass into st->pass2, its standard input a file again
 * from where the first began: 0, or a negative code with *cause set. */
static int spawn_second(struct model_state *st, const char *valgrind,
			const struct model_opts *o, char **cause)
{
	struct cache_geo geo[3] = {
		st->geo[GEO_I1], st->geo[GEO_L2].size ? st->geo[GEO_L2] : st->geo[GEO_D1],
		{ MODEL_PAGE_CACHE, 16, page_size() } };

	if (st->stdin_at >= 0 && lseek(STDIN_FILENO, st->stdin_at, SEEK_SET) < 0)
		return gx_fail(cause, -errno, "its standard input could not be read again: %s",
			       strerror(errno));
	st->pass2_how = second_how(st, &st->pass2_forced);
	st->pass2_tlb = tlb_mode(st, page_size());
	if (st->pass2_tlb)
		geo[2] = st->tlb_geo;
	return model_vg__start(&st->pass2, valgrind, o, st->scratch, st->pass2_how, geo, NULL,
			       st->vg_env, cause);
}

/* The second pass at once, where it will be wanted: it runs while the
 * code is read and modelled (llvm-objdump, llvm-mca: 3.5 s of sqlite3's
 * 21). Wanted: GX_MODEL_PASSES=2, or in auto where the first touches
 * alone can cost 2% of the cycles if the program ran an instruction a
 * cycle (most run faster: their share is then larger, and the pass would
 * run anyway; a slower one's pass is used, not wasted). */
void model_second_pass_early(struct model_state *st, const char *valgrind,
			      const struct model_opts *o, int passes)
{
	double faults = faults_bound(st);
	char *why = NULL;

	if (passes == 1 || st->stopped || st->first_grind ||
	    (passes == 0 && !(faults > 0 && faults >= MODEL_SPLIT_SHARE *
						(double)st->cg.totals[CG_IR])))
		return;
	if (spawn_second(st, valgrind, o, &why) != 0)
		model_vg__exit(&st->pass2);
	free(why);	/* second_pass tries again and says why */
}

double model_second_pass(struct model_state *st, const char *valgrind,
			  const struct model_opts *o, int passes)
{
	bool split = st->geo[GEO_L3].size && st->geo[GEO_L2].size;
	double hi, lo, bound, faults, tlb, lost, slack;
	uint64_t ran, ir2, *walks = NULL;
	char *why = NULL;
	bool started = st->pass2.c != NULL;
	int s2, err = 0;

	hi = split ? model_price(st, SPLIT_L3) : 0;
	lo = model_price(st, SPLIT_L2);
	if (!split)
		hi = lo;
	faults = faults_bound(st);
	/* and the walks it would count, where its last level is the TLB */
	tlb = tlb_mode(st, page_size()) ? model_tlb_bound(st) : 0;
	bound = hi - lo + faults + tlb;
	/* a stopped run is modelled as far as it went, at once (the first
	 * pass's under gxgrind: its counts came with it) */
	if (passes == 1 || (!started && !st->first_grind &&
			    (st->stopped || (passes == 0 && bound < MODEL_SPLIT_SHARE * lo)))) {
		if (split || faults > 0)
			model_note(st, "model: the second pass (L2 as its first data cache, which "
			           "tells L2 hits from L3 hits, and pages as its last level, "
			           "which counts %s) was skipped (%s): %s%s%s; "
			           "modelled cycles are low by at most %.0f (%.2f%%)",
			           tlb_mode(st, page_size()) ? "the TLB's misses" :
			           "their first touches",
			           st->stopped ? "the run was stopped" :
			           passes == 1 ? "GX_MODEL_PASSES=1" :
			           "it could change them by less than 2%",
			           split ? "the D1 misses L2 or L3 served are priced as L2 hits" : "",
			           faults > 0 ? (split ? ", and no first touch of a page is priced" :
			                         "no first touch of a page is priced") : "",
			           tlb > 0 ? (split || faults > 0 ?
			                      ", and no walk of theirs (TLB misses within the last "
			                      "level) is priced" :
			                      "no walk of a set within the last level is priced") : "",
			           bound, lo > 0 ? 100 * bound / lo : 0.0);
		return lo;
	}
	if (st->first_grind) {
		struct model_vg v = { .how = PASS_GTLB };

		st->pass2_how = PASS_GRIND;
		st->pass2_tlb = tlb_mode(st, page_size());
		/* the walks wanted: the TLB's file first, its misses kept
		 * aside, then the pages' (priced where the description prices
		 * a first touch; kept in the terms for another that does) */
		if (st->pass2_tlb && grind_pages(st)) {
			s2 = model_vg__read(&v, o, st->scratch, &st->cg2, NULL, &why);
			if (s2 >= 0 && st->cg2.nr_insns) {
				pass_take(st);
				walks = st->pass_pages;
				st->pass_pages = NULL;
			}
			cg_profile__exit(&st->cg2);
			cg_profile__init(&st->cg2);
			free(why);
			why = NULL;
			st->pass2_tlb = false;
		}
		v.how = st->pass2_tlb ? PASS_GTLB : PASS_GRIND;
		s2 = model_vg__read(&v, o, st->scratch, &st->cg2, NULL, &why);
		goto read;
	}
	if (!started)
		err = spawn_second(st, valgrind, o, &why);
	if (err) {
		model_vg__exit(&st->pass2);
		model_note(st, "model: the second pass was not run (%s): the D1 misses L2 or L3 "
		           "served are priced as L2 hits%s%s", why,
		           st->have_native_run ? "" :
		           ", and no first touch of a page is priced",
		           st->pass2_tlb ? ", and the TLB's misses are estimated from last-level misses" : "");
		free(why);
		return model_price(st, SPLIT_L2);
	}
	/* one stopped while the code was modelled is stopped at once */
	s2 = model_vg__wait(&st->pass2, 0, &st->stopped);
	if (s2 >= 0 && st->stopped)
		s2 = gx_fail(&why, -EINTR, "stopped by %s", st->stopped < 0 ? "--duration" :
			     strsignal(st->stopped));
	if (s2 >= 0)
		s2 = model_vg__read(&st->pass2, o, st->scratch, &st->cg2, &st->cl2, &why);
	model_vg__exit(&st->pass2);
read:
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
		model_note(st, "model: the second pass ran %" PRIu64 " instructions where the "
		           "first ran %" PRIu64 " (the workload took another path: %s); its "
		           "counts are not used: the D1 misses L2 or L3 served are priced as L2 "
		           "hits%s%s", ir2, st->cg.totals[CG_IR],
		           st->stdin_why ? st->stdin_why :
		           "its input, the clock or a random seed",
		           st->have_native_run ? "" :
		           ", and no first touch of a page is priced",
		           st->pass2_tlb ? ", and the TLB's misses are estimated from last-level misses" : "");
		free(why);
		free(walks);
		return model_price(st, SPLIT_L2);
	}
	st->have_pages = s2 >= 0 && ran && !st->pass2_tlb;
	st->have_tlb = s2 >= 0 && ran && (st->pass2_tlb || walks);
	st->have_l2 = (st->have_pages || st->have_tlb) && st->geo[GEO_L2].size;
	if (!st->have_pages && !st->have_tlb) {
		model_note(st, "model: %s failed (%s): %s%s", st->first_grind ?
		           "reading gxgrind's second hierarchy" : "the second pass",
		           why ? why : "no output",
		           split && !st->have_native_run ?
		           "L2 and L3 hits are priced as L3's, and no first touch of a page is priced" :
		           split ? "L2 and L3 hits are priced as L3's" :
		           st->have_native_run ? "nothing of it is used" :
		           "no first touch of a page is priced",
		           st->pass2_tlb ? ", and the TLB's misses are estimated from last-level misses" : "");
		free(why);
		free(walks);
		return split ? model_price(st, SPLIT_L3) : model_price(st, SPLIT_L2);
	}
	free(why);
	if (st->first_grind)
		model_note(st, "model: one Valgrind pass, under gxgrind, gexplore's Valgrind tool: "
		           "callgrind's counts, jumps and calls, with L2 and %s simulated beside "
		           "its caches", walks ? "pages and the TLB" : st->pass2_tlb ? "the TLB" :
		           "pages");
	else
		model_note(st, "model: the second pass ran under %s",
		           st->pass2_how == PASS_GRIND ?
		           "gxgrind, gexplore's Valgrind tool (callgrind's cache simulation, "
		           "counted by instruction)" :
		           st->pass2_how == PASS_LINES ?
		           "cachegrind (half callgrind's time): its counts by source line are "
		           "shared among each line's instructions by the first pass's misses" :
		           st->pass2_forced ? "callgrind (GX_MODEL_SECOND=callgrind)" :
		           "callgrind: functions without a symbol, one line to cachegrind, hold "
		           "over 5% of the first pass's data misses");
	if (st->pass2_how == PASS_LINES) {
		pass_spread(st, &lost);
		if (lost > 0.01)
			model_note(st, "model: %.1f%% of the second pass's L2 misses and first "
			           "touches were at source lines the first pass did not run: not "
			           "priced", 100 * lost);
	} else {
		pass_take(st);
	}
	if (st->have_tlb) {	/* its last level's misses are the TLB's */
		free(st->pass_tlb);
		st->pass_tlb = walks ? walks : st->pass_pages;
		if (!walks)
			st->pass_pages = NULL;
		walks = NULL;
	}
	free(walks);
	return model_price(st, SPLIT_PASS);
}

/* What the first touches as priced cost (the native run's, or the second
 * pass's), said once the cycles are known. */
void model_pages_note(struct model_state *st, double total)
{
	uint64_t n = 0;

	if (!st->pages)
		return;
	for (size_t i = 0; i < st->cg.nr_insns; i++)
		n += st->pages[i];
	if (st->mc.fault > 0 && (st->have_native || st->have_pages))
		model_note(st, "model: the workload touched %" PRIu64 " pages first (page faults "
		           "natively, %s), each priced at %.0f cycles of its own time, as "
		           "%s%s%s: %.1f%% of the modelled cycles (Backend Bound, Memory)%s", n,
		           st->have_native ? "as counted in a native run" :
		           st->first_grind ? "as gxgrind's cache of pages counted them, those "
		           "of pages the kernel filled first too, as a read()'s buffer" :
		           "as the second pass estimated them",
		           st->mc.fault, st->mc.fault_measured ?
		           "`gexplore peak` measured a first touch to cost here" :
		           "machine description '", st->mc.fault_measured ? "" : st->machine.name,
		           st->mc.fault_measured ? "" : "' prices a first touch",
		           total > 0 ? 100 * st->fault_cycles / total : 0.0,
		           st->have_native ? "" :
		           "; a page touched after the workload's first 1 GiB may be counted again");
	else if (n)
		model_note(st, "model: the workload touched %" PRIu64 " pages first (page faults "
		           "natively), priced at nothing: machine description '%s' says what a "
		           "first touch costs (`gexplore peak --save` measures it here)", n,
		           st->machine.name);
}

/* What counts the first touches where no native run does */
static const char *counter_of(const struct model_state *st)
{
	return st->first_grind ? "gxgrind's cache of pages" : "the second pass";
}

/*
 * First touches counted natively (faults.c), where a first touch has a
 * price (a measured description's page_fault: the shipped ones price
 * none, and the run is skipped) and the workload's input can be given
 * again; the second pass then runs only where L2's hits matter.
 * GX_MODEL_FAULTS=valgrind leaves them to the second pass, as before.
 * A run bounded by --duration is not run again: the native one would run
 * to its end.
 *
 * Not where gxgrind's one pass counts them (its cache of pages, which
 * follows the client's mmap, munmap, brk and madvise as the kernel's page
 * tables do; GX_MODEL_FAULTS=native runs it all the same): what `gexplore
 * peak` prices is a page's first touch by the program, which its page
 * test measures on pages the kernel filled first, and a native run's
 * faults leave those out. A buffer read() filled (the kernel faults its
 * pages in, copying) is touched first by the program after: in a VM
 * that still costs the program its time (sort's memchr over the file it
 * read: 12% of its user time natively, 1,017 of its 1,751 first touches,
 * where its native run counted 692 faults in all).
 */
void model_native_run(struct model_state *st, const struct model_opts *o)
{
	const char *e = getenv("GX_MODEL_FAULTS");
	char *why = NULL;
	int sig = 0;

	if (st->stopped || st->mc.fault <= 0 || (e && !strcmp(e, "valgrind")))
		return;
	if (grind_pages(st) && !(e && !strcmp(e, "native")))
		return;		/* gxgrind's cache of pages counts them */
	if (o->duration_s > 0 || st->stdin_why) {
		model_note(st, "model: first touches were not counted natively (%s): %s counts "
		           "them", o->duration_s > 0 ? "--duration bounds the run" : st->stdin_why,
		           counter_of(st));
		return;
	}
	if (st->stdin_at >= 0 && lseek(STDIN_FILENO, st->stdin_at, SEEK_SET) < 0) {
		model_note(st, "model: first touches were not counted natively (its standard "
		           "input could not be read again: %s): %s counts them",
		           strerror(errno), counter_of(st));
		return;
	}
	if (model_faults__native(o->argv, &st->nf, &sig, &why) == 0)
		st->have_native_run = true;
	else if (sig)
		st->stopped = sig;
	else
		model_note(st, "model: the native run that counts first touches failed (%s): %s "
		           "counts them", why ? why : "no reason given", counter_of(st));
	free(why);
}
