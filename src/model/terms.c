/*
 * terms.c: what a modelled result was priced from, kept in the result
 * (model.terms), so that it can be priced again with another machine
 * description (report --model-machine, check --baseline and diff of
 * results priced by different descriptions; issue 40).
 *
 * The cycles are a function of callgrind's counts, llvm-mca's cycles per
 * block and the description's prices. model.terms keeps the first two and
 * the description: each instruction's counts, the sample address its
 * samples carry, its conditional mispredicts as priced (bias_bound), L2's
 * misses and first touches as counted; each block's instructions,
 * executions, llvm-mca's cycles before the description's throughputs and
 * L1 latency set them, and the loads of a loop's chain; where
 * mispredicts' cycles were moved (bad_path); the caches callgrind
 * simulated and llvm-mca's -mcpu. Another description with the
 * same caches and -mcpu prices the same counts anew (model_price); one
 * with other caches or another -mcpu would need another Valgrind or
 * llvm-mca run, and is refused, saying which.
 *
 * The file: a header, then fixed-size little-endian records (the
 * counts as 64-bit integers, the rest as IEEE doubles), every count and
 * index checked against the file's size before anything is allocated.
 */
#include "config.h"

#include "model.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model-int.h"
#include "util/util.h"

/* GXTERMS7 adds each instruction's misses near the one before (gxgrind's
 * D1mn), priced by bandwidth, a chain's at L2's latency; GXTERMS6 is
 * GXTERMS5 priced by the misses in flight between two
 * mispredicts, every miss not in a stride at random where the run counted
 * strides (st->window), and adds each instruction's share of its counts
 * that are the run's own (st->net); GXTERMS5 adds each instruction's
 * strided misses (gxgrind's D1ms);
 * GXTERMS4 llvm-mca's load latency and each block's chain through its
 * loads; GXTERMS3 the walks the second pass counted (the TLB as its last
 * level). The older files are read too: a chain's cycles llvm-mca's
 * there, no miss strided, as they were priced. */
#define TERMS_MAGIC "GXTERMS7"	/* the older read: GXTERMS2 to GXTERMS6 */
#define TERMS_MAX (1ULL << 31)		/* bytes: far beyond any program's */
#define TERMS_TEXT_MAX (1U << 20)	/* a description, -mcpu */

enum { TF_HAVE_L2 = 1, TF_HAVE_PAGES = 2, TF_HAVE_TLB = 4 };

/* ---- writing -------------------------------------------------------------- */

struct tbuf {
	char *p;
	size_t n, cap;
};

static void tb_put(struct tbuf *b, const void *v, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 4096;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void tb_u64(struct tbuf *b, uint64_t v)
{
	v = htole64(v);
	tb_put(b, &v, 8);
}

static void tb_f64(struct tbuf *b, double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	tb_u64(b, v);
}

static void tb_text(struct tbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	tb_u64(b, n);
	tb_put(b, s ? s : "", n);
}

int model_terms_write(const struct model_state *st, const struct model_priced *pr, double cycles,
		      int dirfd, char **cause)
{
	struct tbuf b = { 0 };
	json_t *desc = model_machine__to_json(&st->machine);
	char *text = json_dumps(desc, JSON_COMPACT | JSON_SORT_KEYS);
	size_t n = st->cg.nr_insns;
	int fd, err = 0;

	tb_put(&b, TERMS_MAGIC, 8);
	tb_u64(&b, (uint64_t)st->split);
	tb_u64(&b, (st->have_l2 ? TF_HAVE_L2 : 0) |
		   (st->have_native || st->have_pages ? TF_HAVE_PAGES : 0) |
		   (st->have_tlb && st->pass_tlb ? TF_HAVE_TLB : 0));
	tb_f64(&b, st->width);
	tb_f64(&b, st->fma_mca);
	tb_f64(&b, st->add_mca);
	tb_f64(&b, st->load_mca);
	tb_f64(&b, cycles);
	for (int g = 0; g < GEO_NR; g++) {
		tb_u64(&b, st->geo[g].size);
		tb_u64(&b, st->geo[g].assoc);
		tb_u64(&b, st->geo[g].line);
	}
	tb_u64(&b, st->tlb_geo.size);
	tb_u64(&b, st->tlb_geo.assoc);
	tb_u64(&b, st->tlb_geo.line);
	tb_text(&b, st->mcpu);
	tb_text(&b, text);
	tb_u64(&b, n);
	tb_u64(&b, st->nr_ins);
	tb_u64(&b, st->nr_blocks);
	tb_u64(&b, st->nr_moves);
	for (size_t k = 0; k < n; k++) {
		const struct cg_insn *c = &st->cg.insns[k];

		tb_u64(&b, model_sample_ip(pr, c->obj, c->addr));
		tb_u64(&b, c->obj);
		tb_u64(&b, c->addr - pr->objs[c->obj].bias);	/* flow.json's address */
		for (int j = 0; j < CG_NR; j++)
			tb_u64(&b, c->c[j]);
		tb_f64(&b, st->bcm ? st->bcm[k] : 0);
		tb_u64(&b, st->have_l2 && st->pass_l2 ? st->pass_l2[k] : 0);
		tb_u64(&b, st->pages ? st->pages[k] : 0);
		tb_u64(&b, st->have_tlb && st->pass_tlb ? st->pass_tlb[k] : 0);
		tb_f64(&b, st->net ? st->net[k] : 1);
	}
	for (size_t i = 0; i < st->nr_ins; i++) {
		tb_u64(&b, st->ins[i].cg);
		tb_u64(&b, (st->ins[i].dep_load ? 1 : 0) | (st->ins[i].rep ? 2 : 0));
	}
	for (size_t k = 0; k < st->nr_blocks; k++) {
		const struct model_block *bl = &st->blocks[k];

		tb_u64(&b, bl->first);
		tb_u64(&b, bl->n);
		tb_u64(&b, bl->execs);
		tb_f64(&b, bl->cyc_mca);
		tb_u64(&b, (uint64_t)bl->scale);
		tb_u64(&b, bl->chain);
	}
	for (size_t m = 0; m < st->nr_moves; m++) {
		tb_u64(&b, st->moves[m].from);
		tb_u64(&b, st->moves[m].to);
		tb_f64(&b, st->moves[m].share);
	}
	fd = openat(dirfd, MODEL_TERMS_FILE,
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		err = gx_fail(cause, -errno, "%s: %s", MODEL_TERMS_FILE, strerror(errno));
	else if (gx_write_all(fd, b.p, b.n) | close(fd))
		err = gx_fail(cause, -EIO, "%s: cannot write (a full disk?)", MODEL_TERMS_FILE);
	free(b.p);
	free(text);
	json_decref(desc);
	return err;
}

/* ---- reading -------------------------------------------------------------- */

struct tread {
	const char *p;
	size_t n, at;
	bool bad;
	int ver;	/* 2: no walks counted; 3: no chains; 4: no strided misses; 5: MODEL_MLP;
			 * 6: no near misses */
};

/* The counts an instruction has in the file: every column from
 * GXTERMS7, all but CG_D1MN in GXTERMS5 and 6, all but CG_D1MS too before */
static int terms_cols(const struct tread *r)
{
	return r->ver < 5 ? CG_D1MS : r->ver < 7 ? CG_D1MN : CG_NR;
}

static uint64_t rd_u64(struct tread *r)
{
	uint64_t v;

	if (r->bad || r->n - r->at < 8) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p + r->at, 8);
	r->at += 8;
	return le64toh(v);
}

static double rd_f64(struct tread *r)
{
	uint64_t v = rd_u64(r);
	double d;

	memcpy(&d, &v, 8);
	return d;
}

/* A text of at most TERMS_TEXT_MAX bytes, allocated (NULL: bad). */
static char *rd_text(struct tread *r)
{
	uint64_t n = rd_u64(r);
	char *s;

	if (r->bad || n > TERMS_TEXT_MAX || n > r->n - r->at) {
		r->bad = true;
		return NULL;
	}
	s = xmalloc(n + 1);
	memcpy(s, r->p + r->at, n);
	s[n] = '\0';
	r->at += n;
	return s;
}

/* Whether nr records of size bytes each fit in what is left. */
static bool fits(const struct tread *r, uint64_t nr, size_t size)
{
	return !r->bad && nr <= (r->n - r->at) / size;
}

/* A non-negative finite figure, or NAN where nan_ok. */
static bool good_f64(double d, bool nan_ok)
{
	return (nan_ok && isnan(d)) || (isfinite(d) && d >= 0);
}

/* The header: the pricing's figures and the description into st and
 * *mm, the recorded cycles into *cycles, the tables' sizes into n[4]
 * (instructions, sorted instructions, blocks, moves). */
static int terms_header(struct tread *r, struct model_state *st, struct model_machine *mm,
			double *cycles, uint64_t n[4], char **cause)
{
	uint64_t flags, split;
	char *desc;
	int err;

	/* GXTERMS2 to GXTERMS7 */
	r->ver = r->n >= 8 && !memcmp(r->p, TERMS_MAGIC, 7) && r->p[7] >= '2' && r->p[7] <= '7' ?
		 r->p[7] - '0' : 0;
	if (!r->ver)
		return gx_fail(cause, GX_E_FORMAT, "%s: not a terms file of this gexplore",
			       MODEL_TERMS_FILE);
	r->at = 8;
	st->window = r->ver >= 6;	/* an older file priced as it was */
	split = rd_u64(r);
	flags = rd_u64(r);
	st->width = rd_f64(r);
	st->fma_mca = rd_f64(r);
	st->add_mca = rd_f64(r);
	st->load_mca = r->ver >= 4 ? rd_f64(r) : NAN;
	*cycles = rd_f64(r);
	for (int g = 0; g < GEO_NR; g++) {
		st->geo[g].size = rd_u64(r);
		st->geo[g].assoc = (unsigned)rd_u64(r);
		st->geo[g].line = (unsigned)rd_u64(r);
	}
	if (r->ver >= 3) {
		st->tlb_geo.size = rd_u64(r);
		st->tlb_geo.assoc = (unsigned)rd_u64(r);
		st->tlb_geo.line = (unsigned)rd_u64(r);
	}
	st->mcpu = rd_text(r);
	desc = rd_text(r);
	for (int k = 0; k < 4; k++)
		n[k] = rd_u64(r);
	if (r->bad || split > SPLIT_L3 || !(st->width > 0 && isfinite(st->width)) ||
	    !good_f64(st->fma_mca, true) || !good_f64(st->add_mca, true) ||
	    !good_f64(st->load_mca, true) || !good_f64(*cycles, false)) {
		free(desc);
		return gx_fail(cause, GX_E_FORMAT, "%s: its header is damaged", MODEL_TERMS_FILE);
	}
	err = model_machine__parse(mm, desc, strlen(desc), MODEL_TERMS_FILE, cause);
	free(desc);
	st->split = (enum l2_split)split;
	st->have_l2 = flags & TF_HAVE_L2;
	st->have_native = flags & TF_HAVE_PAGES;
	st->have_tlb = flags & TF_HAVE_TLB && r->ver >= 3;
	if (st->have_tlb && (!st->tlb_geo.size || !st->tlb_geo.line) && !err)
		err = gx_fail(cause, GX_E_FORMAT, "%s: its header is damaged (walks counted "
			      "by no TLB)", MODEL_TERMS_FILE);
	return err;
}

/* nc instructions' records (their size checked) */
static void terms_insns(struct tread *r, struct model_state *st, uint64_t **faddr, uint64_t nc)
{
	st->cg.nr_insns = nc;
	st->cg.insns = xcalloc(nc + 1, sizeof(*st->cg.insns));
	st->bcm = xcalloc(nc + 1, sizeof(*st->bcm));
	st->pass_l2 = xcalloc(nc + 1, sizeof(*st->pass_l2));
	st->native_pages = xcalloc(nc + 1, sizeof(*st->native_pages));
	st->pass_tlb = xcalloc(nc + 1, sizeof(*st->pass_tlb));
	st->net = r->ver < 6 ? NULL : xcalloc(nc + 1, sizeof(*st->net));
	*faddr = xcalloc(nc + 1, sizeof(**faddr));
	for (size_t k = 0; k < nc; k++) {
		struct cg_insn *c = &st->cg.insns[k];
		uint64_t obj;

		c->addr = rd_u64(r);	/* the sample address (terms' own use) */
		obj = rd_u64(r);
		c->obj = obj > UINT32_MAX ? UINT32_MAX : (uint32_t)obj;
		(*faddr)[k] = rd_u64(r);
		for (int j = 0; j < terms_cols(r); j++)
			c->c[j] = rd_u64(r);
		st->bcm[k] = rd_f64(r);
		st->pass_l2[k] = rd_u64(r);
		st->native_pages[k] = rd_u64(r);
		st->pass_tlb[k] = r->ver < 3 ? 0 : rd_u64(r);
		if (st->net)
			st->net[k] = rd_f64(r);
		if (!good_f64(st->bcm[k], false) || (st->net && !(st->net[k] >= 0 && st->net[k] <= 1)))
			r->bad = true;
	}
}

/* The state model_price needs, from a terms file's text; the recorded
 * description into *mm, the cycles it gave into *cycles, each
 * instruction's address in its file into *faddr (allocated). */
static int terms_parse(struct model_state *st, struct model_machine *mm, double *cycles,
		       uint64_t **faddr, const char *p, size_t len, char **cause)
{
	struct tread r = { .p = p, .n = len };
	uint64_t n[4], nc, ni, nb, nm;
	int err = terms_header(&r, st, mm, cycles, n, cause);

	if (err)
		return err;
	nc = n[0], ni = n[1], nb = n[2], nm = n[3];
	if (!fits(&r, nc, 8 * ((size_t)terms_cols(&r) + (r.ver < 3 ? 6 : r.ver < 6 ? 7 : 8))))
		return gx_fail(cause, GX_E_FORMAT, "%s: %" PRIu64 " instructions do not fit in "
			       "its %zu bytes", MODEL_TERMS_FILE, nc, len);
	terms_insns(&r, st, faddr, nc);
	if (!fits(&r, ni, 16))
		return gx_fail(cause, GX_E_FORMAT, "%s: damaged at its instructions", MODEL_TERMS_FILE);
	st->nr_ins = ni;
	st->ins = xcalloc(ni + 1, sizeof(*st->ins));
	for (size_t i = 0; i < ni; i++) {
		uint64_t k = rd_u64(&r), f = rd_u64(&r);

		if (k >= nc)
			r.bad = true;
		st->ins[i].cg = k;
		st->ins[i].block = -1;
		st->ins[i].dep_load = f & 1;
		st->ins[i].rep = f & 2;
	}
	if (!fits(&r, nb, r.ver < 4 ? 40 : 48))
		return gx_fail(cause, GX_E_FORMAT, "%s: damaged at its blocks", MODEL_TERMS_FILE);
	st->nr_blocks = nb;
	st->blocks = xcalloc(nb + 1, sizeof(*st->blocks));
	for (size_t k = 0; k < nb; k++) {
		struct model_block *bl = &st->blocks[k];
		uint64_t scale, chain;

		bl->first = rd_u64(&r);
		bl->n = rd_u64(&r);
		bl->execs = rd_u64(&r);
		bl->cyc_mca = rd_f64(&r);
		scale = rd_u64(&r);
		chain = r.ver < 4 ? 0 : rd_u64(&r);
		bl->chain = (unsigned)chain;
		bl->cyc = NAN;
		bl->region = -1;
		bl->scale = scale == BLOCK_FMA ? BLOCK_FMA : scale == BLOCK_INT ? BLOCK_INT :
			    BLOCK_UNSCALED;
		if (bl->first > ni || bl->n > ni - bl->first || scale > BLOCK_INT ||
		    chain > bl->n || !good_f64(bl->cyc_mca, true))
			r.bad = true;
	}
	if (!fits(&r, nm, 24))
		return gx_fail(cause, GX_E_FORMAT, "%s: damaged at its mispredicts' moves",
			       MODEL_TERMS_FILE);
	st->nr_moves = nm;
	st->moves = xcalloc(nm + 1, sizeof(*st->moves));
	for (size_t m = 0; m < nm; m++) {
		st->moves[m].from = rd_u64(&r);
		st->moves[m].to = rd_u64(&r);
		st->moves[m].share = rd_f64(&r);
		if (st->moves[m].from >= nc || st->moves[m].to >= nc ||
		    !(st->moves[m].share >= 0 && st->moves[m].share <= 1))
			r.bad = true;
	}
	if (r.bad || r.at != len)
		return gx_fail(cause, GX_E_FORMAT, "%s: damaged (%s)", MODEL_TERMS_FILE,
			       r.at != len && !r.bad ? "bytes after its end" : "a figure out of range");
	return 0;
}

/* ---- pricing again ---------------------------------------------------------- */

struct model_reprice {
	struct model_state st;
	struct model_machine from, to;
	double from_cycles;		/* as recorded */
	/* per cg insn: its modelled events, priced by from and by to */
	double (*old)[MODEL_RP_NR], (*new)[MODEL_RP_NR];
	/* per cg insn and event: what rounding the samples so far left over,
	 * carried into the next (an instruction's samples sum to its value) */
	double (*carry)[MODEL_RP_NR];
	double lat_new[4];
	struct u64map at;			/* sample address -> cg index + 1 */
	uint64_t *faddr;		/* per cg insn: its address in its file */
	struct u64map fat;		/* (object, file address) -> cg index + 1 */
	double totals[2];		/* cycles: as recorded (priced again), anew */
};

/* st priced with mm: the total cycles, and each instruction's modelled
 * values into out (model_insn_values, as write.c writes them). */
static double price_with(struct model_state *st, const struct model_machine *mm,
			 double (*out)[MODEL_RP_NR])
{
	double total;

	model_machine_costs(&st->mc, mm);
	model_block_scale(st, NULL, NULL);
	total = model_price(st, st->split);	/* which makes st's arrays */
	{
		const struct model_priced pr = {
			.cg = &st->cg, .base = st->base, .fe = st->fe, .bad = st->bad,
			.mem = st->mem, .core = st->core, .bcm = st->bcm, .l2miss = st->l2miss,
			.pages = st->pages, .ind_missed = st->mc.ind_missed,
		};

		for (size_t k = 0; k < st->cg.nr_insns; k++)
			model_insn_values(&pr, k, out[k]);
	}
	return total;
}

static const char *const geo_names[GEO_NR] = { "L1I", "L1D", "L2", "L3" };

/* Why to's description cannot price what from's run counted, or NULL. */
static char *cannot(const struct model_reprice *rp)
{
	struct cache_geo g[GEO_NR];

	if (strcmp(rp->st.mcpu, rp->to.mcpu))
		return xasprintf("its blocks were priced by llvm-mca -mcpu=%s, description '%s' "
				 "uses -mcpu=%s (record again with --model=%s)", rp->st.mcpu,
				 rp->to.name, rp->to.mcpu, rp->to.name);
	model_machine_geometry(g, &rp->to);
	for (int k = 0; k < GEO_NR; k++)
		if (g[k].size != rp->st.geo[k].size || g[k].assoc != rp->st.geo[k].assoc ||
		    g[k].line != rp->st.geo[k].line)
			return xasprintf("callgrind simulated %s as %" PRIu64 " KiB, %u-way, where "
					 "description '%s' has %" PRIu64 " KiB, %u-way: its misses "
					 "would differ (record again with --model=%s)",
					 geo_names[k], rp->st.geo[k].size >> 10,
					 rp->st.geo[k].assoc, rp->to.name, g[k].size >> 10,
					 g[k].assoc, rp->to.name);
	if (rp->st.have_tlb) {	/* the walks counted are a TLB of the recorded reach's */
		struct cache_geo t;

		model_tlb_geometry(&t, rp->to.price[MP_TLB_REACH], rp->st.tlb_geo.line);
		if (t.size != rp->st.tlb_geo.size || t.assoc != rp->st.tlb_geo.assoc)
			return xasprintf("the second pass counted the walks of a TLB of %" PRIu64
					 " KiB's reach, %u-way, where description '%s' has %"
					 PRIu64 " KiB, %u-way: its misses would differ (record "
					 "again with --model=%s)", rp->st.tlb_geo.size >> 10,
					 rp->st.tlb_geo.assoc, rp->to.name, t.size >> 10, t.assoc,
					 rp->to.name);
	}
	if (!rp->st.have_native && rp->to.price[MP_FAULT] > 0 && rp->from.price[MP_FAULT] <= 0)
		return xasprintf("description '%s' prices a page's first touch, which the run did "
				 "not count (its description '%s' priced none; record again with "
				 "--model=%s)", rp->to.name, rp->from.name, rp->to.name);
	return NULL;
}

/* dir's model.terms, whole (allocated, *len its length), or NULL with
 * *err and *cause. */
static char *terms_read(const char *dir, size_t *len, int *err, char **cause)
{
	char *path = xasprintf("%s/%s", dir, MODEL_TERMS_FILE), *text = NULL;
	uint64_t size;
	/* a file of the result: a link there is refused, not followed */
	int fd = gx_open_regular_nofollow(path, &size, cause);

	*err = 0;
	if (fd >= 0)
		text = gx_read_fd(fd, path, size, TERMS_MAX, len, err, cause);
	else
		*err = fd;
	free(path);
	if (!text && *err == -ENOENT) {
		free(*cause);
		*cause = NULL;
		*err = gx_fail(cause, -ENOENT, "%s has no %s (not recorded by record --model, or "
			       "by a gexplore that did not keep it): it cannot be priced again", dir,
			       MODEL_TERMS_FILE);
	}
	return text;
}

static int terms_load(struct model_reprice *rp, const char *dir, char **cause)
{
	size_t len;
	int err;
	char *text = terms_read(dir, &len, &err, cause);

	if (!text)
		return err;
	err = terms_parse(&rp->st, &rp->from, &rp->from_cycles, &rp->faddr, text, len, cause);
	free(text);
	return err;
}

/* The key of an object's instruction at a file address (checked on a hit:
 * two may share one). */
static uint64_t file_key(uint32_t obj, uint64_t addr)
{
	uint64_t k[2] = { obj, addr };

	return gx_hash(k, sizeof(k));
}

int model_terms_machine(const char *dir, struct model_machine *mm, char **cause)
{
	struct model_state st = { 0 };
	struct tread r = { 0 };
	uint64_t n[4];
	double cycles;
	int err;

	memset(mm, 0, sizeof(*mm));
	r.p = terms_read(dir, &r.n, &err, cause);
	if (!r.p)
		return err;
	err = terms_header(&r, &st, mm, &cycles, n, cause);	/* the header only */
	free((char *)r.p);
	free((char *)st.mcpu);
	if (err)
		model_machine__exit(mm);
	return err;
}

int model_reprice__new(struct model_reprice **out, const char *dir, const char *machine,
		       const char *like, char **cause)
{
	struct model_reprice *rp = xzalloc(sizeof(*rp));
	size_t n;
	double again;
	char *why;
	int err;

	*out = NULL;
	u64map__init(&rp->at);
	u64map__init(&rp->fat);
	err = terms_load(rp, dir, cause);
	if (!err)
		err = like ? model_terms_machine(like, &rp->to, cause) :
			     model_machine__load(&rp->to, machine, cause);
	if (err)
		goto fail;
	why = cannot(rp);
	if (why) {
		err = gx_fail(cause, GX_E_USAGE, "%s cannot be priced by description '%s': %s", dir,
			      rp->to.name, why);
		free(why);
		goto fail;
	}
	n = rp->st.cg.nr_insns;
	rp->old = xcalloc(n + 1, sizeof(*rp->old));
	rp->new = xcalloc(n + 1, sizeof(*rp->new));
	rp->carry = xcalloc(n + 1, sizeof(*rp->carry));
	again = price_with(&rp->st, &rp->from, rp->old);
	/* the terms must give what the run recorded, or they are not its */
	if (fabs(again - rp->from_cycles) > 1e-6 * rp->from_cycles + 1) {
		err = gx_fail(cause, GX_E_FORMAT, "%s: its %s gives %.0f cycles where the run was "
			      "priced at %.0f: not this result's terms", dir, MODEL_TERMS_FILE,
			      again, rp->from_cycles);
		goto fail;
	}
	rp->totals[0] = again;
	rp->totals[1] = price_with(&rp->st, &rp->to, rp->new);
	memcpy(rp->lat_new, rp->st.mc.lat, sizeof(rp->lat_new));
	for (size_t k = 0; k < n; k++) {
		u64map__findnew(&rp->at, rp->st.cg.insns[k].addr, k + 1);
		u64map__findnew(&rp->fat, file_key(rp->st.cg.insns[k].obj, rp->faddr[k]), k + 1);
	}
	*out = rp;
	return 0;
fail:
	model_reprice__delete(rp);
	return err;
}

void model_reprice__delete(struct model_reprice *rp)
{
	struct model_state *st;

	if (!rp)
		return;
	st = &rp->st;
	free((char *)st->mcpu);	/* the terms' own (a run's is its description's) */
	model_state__exit(st);
	model_machine__exit(&rp->from);
	model_machine__exit(&rp->to);
	free(rp->old);
	free(rp->new);
	free(rp->carry);
	u64map__exit(&rp->at);
	u64map__exit(&rp->fat);
	free(rp->faddr);
	free(rp);
}

const struct model_machine *model_reprice__from(const struct model_reprice *rp)
{
	return &rp->from;
}

const struct model_machine *model_reprice__to(const struct model_reprice *rp)
{
	return &rp->to;
}

static const char *const rp_names[MODEL_RP_NR] = {
	[MODEL_RP_CYCLES] = "cycles:modelled",
	[MODEL_RP_BRMISS] = "branch-misses:modelled",
	[MODEL_RP_L2] = "l2-misses:modelled",
	[MODEL_RP_FE] = "model-frontend-cycles:modelled",
	[MODEL_RP_BAD] = "model-bad-spec-cycles:modelled",
	[MODEL_RP_MEM] = "model-memory-cycles:modelled",
	[MODEL_RP_CORE] = "model-core-cycles:modelled",
	[MODEL_RP_FAULTS] = "page-faults:modelled",
	[MODEL_RP_INSNS] = "instructions:exact",
	[MODEL_RP_LOADS] = MODEL_MEM_EVENT,
};

int model_reprice__slot(const char *event)
{
	for (int k = 0; k < MODEL_RP_NR; k++)
		if (event && !strcmp(event, rp_names[k]))
			return k;
	return -1;
}

/* A level's latency as the loads' samples carry it (datasrc.c). */
static uint64_t lat_weight(double lat)
{
	return (uint64_t)llround(lat > 0 ? lat : 0);
}

/* v rounded, what rounding left carried on in *carry */
static uint64_t carried(double v, double *carry)
{
	double r = llround(v + *carry) > 0 ? (double)llround(v + *carry) : 0;

	*carry += v - r;
	return (uint64_t)r;
}

size_t model_reprice__sample(struct model_reprice *rp, int slot, uint64_t ip,
			     uint64_t period, uint64_t data_src, struct model_rp_out out[MODEL_RP_NR])
{
	uint64_t *at = u64map__find(&rp->at, ip);
	size_t k, n = 0;

	out[0] = (struct model_rp_out){ .slot = slot, .period = period, .weight = UINT64_MAX };
	if (!at || slot < 0)
		return 1;
	k = *at - 1;
	if (slot == MODEL_RP_LOADS) {	/* its level's latency, anew */
		uint64_t lvl = data_src >> PERF_MEM_LVL_SHIFT;
		int l = lvl & PERF_MEM_LVL_L1 ? 0 : lvl & PERF_MEM_LVL_L2 ? 1 :
			lvl & PERF_MEM_LVL_L3 ? 2 : lvl & PERF_MEM_LVL_LOC_RAM ? 3 : -1;

		if (l >= 0)
			out[0].weight = lat_weight(rp->lat_new[l]);
		return 1;
	}
	if (slot == MODEL_RP_INSNS) {
		/* the events the run had none of here, where they now have a
		 * value: this sample's share of it, by its instructions */
		double ir = (double)rp->st.cg.insns[k].c[CG_IR];

		n = 1;
		for (int e = 0; e < MODEL_RP_INSNS && ir > 0; e++)
			if (llround(rp->old[k][e]) == 0 && llround(rp->new[k][e]) > 0) {
				uint64_t v = carried(rp->new[k][e] * (double)period / ir,
						     &rp->carry[k][e]);

				if (v)
					out[n++] = (struct model_rp_out){ .slot = e, .period = v,
									  .weight = UINT64_MAX };
			}
		return n;
	}
	if (llround(rp->old[k][slot]) == 0)	/* written where it rounded to 0 */
		return 1;
	/* the run wrote the instruction's value rounded, shared among its
	 * samples: each takes its share of the new value */
	out[0].period = carried((double)period * rp->new[k][slot] /
					(double)llround(rp->old[k][slot]),
				&rp->carry[k][slot]);
	return out[0].period ? 1 : 0;
}

double model_reprice__flow_cycles(const struct model_reprice *rp, uint32_t obj, uint64_t addr,
				  double cycles)
{
	const uint64_t *at = u64map__find(&rp->fat, file_key(obj, addr));
	size_t k;

	if (!at)
		return cycles;
	k = *at - 1;
	if (rp->st.cg.insns[k].obj != obj || rp->faddr[k] != addr)
		return cycles;	/* another instruction under its key */
	return rp->new[k][MODEL_RP_CYCLES];
}

void model_reprice__meta(const struct model_reprice *rp, struct gx_meta *m)
{
	uint64_t cycles = 0;

	for (uint32_t k = 0; k < m->nr_events; k++)
		if (!strcmp(m->events[k].name, "cycles:modelled"))
			cycles = m->events[k].count;
	gx_meta_machine__exit(&m->machine);
	model_machine__to_meta(&rp->to, &m->machine);
	if (rp->to.price[MP_GHZ] > 0)
		m->duration_s = (double)cycles / (rp->to.price[MP_GHZ] * 1e9);
	gx_meta__add_warning(m, "model: priced again with machine description '%s' (recorded "
			     "with '%s'): %.0f cycles where the recording had %.0f",
			     rp->to.name, rp->from.name, rp->totals[1], rp->totals[0]);
}
