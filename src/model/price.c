/*
 * The terms of each instruction (issue 40): its base cycles, front end,
 * mispredicts and memory, from the counts and a machine description's
 * prices. model_price is the whole pricing: a result priced again
 * (terms.c) goes through it as the record did.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model-int.h"
#include "util/util.h"

/* Misses in flight at once for independent loads at most: the line fill
 * buffers (Intel 10-16, AMD's miss address buffers 22-24; 10 is what one
 * core's random loads reach in practice). */
#define MODEL_MLP 10.0

/*
 * How many of a run's misses at random are in flight at once (issue 40):
 * those past L2 that come between two mispredicts, MODEL_MLP at most, one
 * at least. A mispredict empties the window: what the core fetched past
 * it is thrown away, and where its branch waits for a load's line (a
 * compare's key, a match's candidate: the result of a call, which no
 * block's chain shows) that miss overlaps nothing after it. sort -k's
 * keycompare loads each key's end at random, 0.26 misses past L2 a
 * mispredict: natively 30-40% of the run, most of it on the two
 * instructions after those loads, where ten misses in flight priced it
 * at 15%. A gather that decides no branch (eval-kernels' walks) keeps
 * MODEL_MLP.
 */
double model_in_flight(double misses, double mispredicts)
{
	double m;

	if (!(mispredicts > 0))
		return MODEL_MLP;
	m = misses / mispredicts;
	return m > MODEL_MLP ? MODEL_MLP : m < 1 ? 1 : m;
}

/* An instruction's TLB misses (tlb.c), from the last level's misses where
 * it missed a quarter of its accesses or more (a set past it, past the
 * reach; fewer are conflicts in a set within it). Not from L2's or L1's:
 * a chase around a fixed ring misses an LRU cache smaller than the ring
 * every time, whatever the ring's size (wl-model's chase over 8 MiB, the
 * reach, missed L2 on every load), so their misses do not say whether
 * the set is within the reach. */
static double tlb_of(const struct model_state *st, double acc, double m3)
{
	double ll = (double)model_ll_size(st), r = st->mc.reach;

	if (m3 >= 0.25 * acc && m3 > 0 && ll > r)
		return model_tlb_misses(acc, m3, ll, r);
	return 0;
}

/* The share of an instruction's D1 misses at random: those not in a
 * stride (gxgrind's D1ms, a sweep a stride prefetcher follows) nor, but
 * a chain's, near the miss before (D1mn: a run of lines a streamer
 * follows, as a scan of text lines of any length; a chain's next line
 * is known only once its load is done, and a chain that jumps a few
 * lines, as gzip's through prev[], waits for each); of another's where
 * the run counted strides (strides), else where they are half its
 * accesses or more (callgrind counts no stride: fewer are taken as a
 * stream the prefetchers follow; a result priced before st->window, the
 * same). */
static double random_share(const struct cg_insn *c, double m1, double acc, bool chain,
			   bool strides)
{
	double ms = (double)c->c[CG_D1MS] + (chain ? 0 : (double)c->c[CG_D1MN]);

	if (!chain && !strides && !(acc > 0 && m1 >= 0.5 * acc))
		return 0;
	return !(m1 > 0) ? 1 : ms >= m1 ? 0 : 1 - ms / m1;
}

/* Instruction k's D1, L2 and last-level misses as priced: L2's the
 * pass's, or the last level's or L1's as how says */
static void misses_of(const struct model_state *st, size_t k, enum l2_split how, double m[3])
{
	const struct cg_insn *c = &st->cg.insns[k];

	m[0] = (double)(c->c[CG_D1MR] + c->c[CG_D1MW]);
	m[2] = (double)(c->c[CG_DLMR] + c->c[CG_DLMW]);
	m[1] = how == SPLIT_PASS && st->have_l2 ? (double)st->pass_l2[k] :
	       how == SPLIT_L2 ? m[2] : m[0];
	if (m[1] > m[0])
		m[1] = m[0];
	if (m[2] > m[1])
		m[2] = m[1];
}

/* st->strides and st->in_flight for this pricing: the misses past L2 at
 * random but a chain's (each waits for the one before anyway) against
 * every mispredict, conditional (as priced) and indirect, each
 * instruction's by the share of its counts that are the run's own
 * (st->net: a forked child's copy of its parent's, callgrind's, would
 * count the parent's code once a child) */
static void set_in_flight(struct model_state *st, enum l2_split how)
{
	size_t n = st->cg.nr_insns;
	double rnd = 0, bad = 0;

	st->strides = false;
	st->in_flight = MODEL_MLP;
	st->in_flight_misses = st->in_flight_bad = 0;
	if (!st->window)
		return;
	for (size_t k = 0; k < n && !st->strides; k++)
		st->strides = st->cg.insns[k].c[CG_D1MS] + st->cg.insns[k].c[CG_D1MN] > 0;
	for (size_t b = 0; b < st->nr_blocks; b++) {
		const struct model_block *bl = &st->blocks[b];

		for (size_t i = bl->first; i < bl->first + bl->n; i++) {
			size_t k = st->ins[i].cg;
			const struct cg_insn *c = &st->cg.insns[k];
			double m[3];

			double w = st->net ? st->net[k] : 1;

			bad += w * (st->bcm[k] + (double)c->c[CG_BIM] * st->mc.ind_missed);
			if (st->ins[i].dep_load)
				continue;
			misses_of(st, k, how, m);
			rnd += w * random_share(c, m[0], (double)(c->c[CG_DR] + c->c[CG_DW]), false,
						st->strides) * m[1];
		}
	}
	st->in_flight = model_in_flight(rnd, bad);
	st->in_flight_misses = rnd;
	st->in_flight_bad = bad;
}

/* The share of a chain's D1 misses near its miss before (D1mn): a
 * streamer has fetched their lines into L2 (wl-model's hop_lines, a chain
 * over 64 MiB whose every hop is 1 to 4 lines on: 18 cycles a hop on Zen
 * 5, where memory's latency is about 500), at most the share r not in a
 * stride */
static double near_share(const struct cg_insn *c, double m1, double r)
{
	double q = m1 > 0 ? (double)c->c[CG_D1MN] / m1 : 0;

	return q < r ? q : r;
}

/* Instruction i's data misses as priced: the share r of a chase's each
 * wait for the one before (its memory cycles and the chase's share), of
 * which the share q near the one before waits for L2 only; misses that
 * overlap give what their lines take from each level's bandwidth, or, the
 * share r at random, their latency over the misses in flight (tlb: their
 * walks'): returned, for the block's roofline. */
static double price_data(struct model_state *st, size_t i, double m1, double m2, double m3,
			 double r, double q, double tlb, double lat2, double lat3)
{
	const struct machine_costs *mc = &st->mc;

	double line = st->geo[GEO_D1].line ? st->geo[GEO_D1].line : 64, rnd;
	double lat = (m1 - m2) * (mc->lat[1] - mc->lat[0]) + (m2 - m3) * (lat2 - mc->lat[0]) +
		     m3 * (lat3 - mc->lat[0]) + tlb;
	double bw = line * ((m1 - m2) / mc->bw[1] + (m2 - m3) / mc->bw[2] + m3 / mc->bw[3]);

	if (st->ins[i].dep_load) {	/* each miss waits for the one before */
		st->mem[st->ins[i].cg] = (r - q) * (lat - tlb) + q * m1 * (mc->lat[1] - mc->lat[0]) +
					 tlb;
		st->dram_chase += (r - q) * m3 * (lat3 - mc->lat[0]);
		st->tlb_cycles += tlb;
		return (1 - r) * bw;
	}
	if (!(r > 0))
		return bw;
	rnd = (r * (lat - tlb) + tlb) / st->in_flight;
	st->tlb_cycles += tlb / st->in_flight;
	return (1 - r) * bw + (rnd > r * bw ? rnd : r * bw);
}

/* Instruction i's misses that overlap: a chain's in a stride, all of
 * another's */
static double overlapping(const struct model_state *st, size_t i)
{
	const struct cg_insn *c = &st->cg.insns[st->ins[i].cg];
	double m = (double)(c->c[CG_D1MR] + c->c[CG_D1MW]);

	return st->ins[i].dep_load ? m * (1 - random_share(c, m, 0, true, false)) : m;
}

/* The roofline: a block's streaming misses cost what the memory takes
 * beyond its own cycles, shared by its instructions' misses. */
static void roofline(struct model_state *st, const struct model_block *bl, double stream,
		     double basesum)
{
	double extra = stream - basesum, tot = 0;

	if (stream <= basesum)
		return;
	for (size_t i = bl->first; i < bl->first + bl->n; i++)
		tot += overlapping(st, i);
	for (size_t i = bl->first; i < bl->first + bl->n && tot > 0; i++)
		st->mem[st->ins[i].cg] += extra * overlapping(st, i) / tot;
}

double model_tlb_bound(const struct model_state *st)
{
	double ll = (double)model_ll_size(st), bound = 0;
	double d1 = (double)st->geo[GEO_D1].size;

	if (!(st->mc.walk > 0) || !(st->mc.reach > 0) || ll <= st->mc.reach || !(d1 > 0))
		return 0;
	for (size_t b = 0; b < st->nr_blocks; b++) {
		const struct model_block *bl = &st->blocks[b];

		for (size_t i = bl->first; i < bl->first + bl->n; i++) {
			const struct cg_insn *c = &st->cg.insns[st->ins[i].cg];
			double m1 = (double)(c->c[CG_D1MR] + c->c[CG_D1MW]);
			double m3 = (double)(c->c[CG_DLMR] + c->c[CG_DLMW]);
			double acc = (double)(c->c[CG_DR] + c->c[CG_DW]);

			/* the walks of D1 misses the last level served: at most
			 * those of accesses at random over the set L1's misses
			 * say (a ring's, missed every time, all of them; a set
			 * that L1's hits say is within the reach, none), as
			 * price_data prices a walk: a chain's whole, a miss
			 * nearly every access's over the misses in flight */
			double t = model_tlb_misses(acc, m1, d1, st->mc.reach) - m3;

			if (!(t > 0))
				continue;
			bound += random_share(c, m1, acc, st->ins[i].dep_load, st->strides) * t *
				 st->mc.walk / (st->ins[i].dep_load ? 1 : st->in_flight);
		}
	}
	return bound;
}

double model_price(struct model_state *st, enum l2_split how)
{
	const struct machine_costs *mc = &st->mc;
	size_t n = st->cg.nr_insns;
	bool tlb_pass = how == SPLIT_PASS && st->have_tlb && st->pass_tlb;
	double total = 0, touched = 0, ll = (double)model_ll_size(st);
	double code = model_dram_at(mc, ll);	/* a code miss's: a set near the last level */
	/* L3's latency, measured by peak (over half its size, or over the
	 * size it holds), less the walks that chase paid past the TLB's reach
	 * (priced apart) */
	double lat2 = mc->lat[2] - (mc->l3_measured ? model_tlb_in_latency(
					    ll / (mc->l3_held ? 1 : 2), mc->reach, mc->walk) : 0);

	if (lat2 < mc->lat[1])
		lat2 = mc->lat[1];
	st->split = how;
	/* the bytes first touched bound a set (model_set_bytes) */
	for (size_t k = 0; k < n && (st->have_native || st->have_pages); k++)
		touched += (double)(st->have_native ? st->native_pages[k] : st->pass_pages[k]) *
			   (st->tlb_geo.line ? st->tlb_geo.line : 4096);

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
	set_in_flight(st, how);
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
			double ret = ir / st->width, acc, tlb, r, q, m[3], m1, m2, m3;

			misses_of(st, k, how, m);
			m1 = m[0], m2 = m[1], m3 = m[2];
			st->l2miss[k] = (uint64_t)m2;	/* as priced: the pass's, or the choice */
			st->pages[k] = st->have_native ? st->native_pages[k] :
				       st->have_pages ? st->pass_pages[k] : 0;
			if (st->ins[i].rep)
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
			/* an I1 miss where a jump or a branch led (a block's
			 * first instruction) waits for its line; one on the
			 * way on into the next line was fetched ahead */
			st->fe[k] = (double)c->c[CG_I1MR] * (i == bl->first ? mc->imiss : mc->iseq) +
				    (double)c->c[CG_ILMR] * (code - mc->lat[1]);
			acc = (double)(c->c[CG_DR] + c->c[CG_DW]);
			r = random_share(c, m1, acc, st->ins[i].dep_load, st->strides);
			q = st->ins[i].dep_load ? near_share(c, m1, r) : 0;
			/* accesses at random past the TLB's reach walk its page
			 * tables (a stream's walk is one a page, hidden by its
			 * lines, as a chain's hop to a line near): the walks the
			 * second pass counted, else estimated */
			tlb = !(r - q > 0) ? 0 :
			      (r - q) * (tlb_pass ? (double)st->pass_tlb[k] * mc->walk :
				   tlb_of(st, acc, m3) * mc->walk);
			st->tlb_misses += mc->walk > 0 ? tlb / mc->walk : 0;
			stream += price_data(st, i, m1, m2, m3, r, q, tlb, lat2, !(m3 > 0) ? 0 :
					     model_dram_at(mc, model_set_bytes(acc, m3, ll,
						tlb_pass ? (double)st->pass_tlb[k] : -1, mc->reach,
						touched)));
			/* a first touch waits for its page: the user time a
			 * fault costs (peak's page test), beyond the roofline:
			 * the core does nothing else meanwhile */
			st->mem[k] += (double)st->pages[k] * mc->fault;
			st->fault_cycles += (double)st->pages[k] * mc->fault;
		}
		roofline(st, bl, stream, basesum);
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
