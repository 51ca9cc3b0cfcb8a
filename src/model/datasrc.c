/*
 * datasrc.c: a modelled run's loads as memory-access samples (issue 43).
 * The cache simulation says, per load instruction and thread, how many of
 * its loads missed L1 (callgrind's D1mr), L2 (the priced split: the
 * second pass's, or the level the model chose) and the last level (DLmr):
 * its loads served by L1, L2, L3 and DRAM. Each level with loads becomes
 * one sample of the event mem-loads:modelled: its period the exact number
 * of loads, its weight the level's priced latency (the machine
 * description's, in cycles), its data source the level as the kernel
 * encodes it (union perf_mem_data_src), so that reports name them as perf
 * mem does. A report reads the period as that many loads
 * (profile_opts.mem_periods).
 */
#include "config.h"

#include "model-int.h"

#include <math.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

#define MEM_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | \
			 PERF_SAMPLE_DATA_SRC)

/* A load that hit at level lvl (PERF_MEM_LVL_*), as Intel's load latency
 * event reports one: no snoop, the TLB and lock not known. */
static uint64_t data_src(uint64_t lvl)
{
	return (uint64_t)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT |
	       (lvl | PERF_MEM_LVL_HIT) << PERF_MEM_LVL_SHIFT |
	       (uint64_t)PERF_MEM_SNOOP_NA << PERF_MEM_SNOOP_SHIFT |
	       (uint64_t)PERF_MEM_TLB_NA << PERF_MEM_TLB_SHIFT |
	       (uint64_t)PERF_MEM_LOCK_NA << PERF_MEM_LOCK_SHIFT;
}

static const uint64_t levels[MODEL_MEM_LEVELS] = {
	PERF_MEM_LVL_L1, PERF_MEM_LVL_L2, PERF_MEM_LVL_L3, PERF_MEM_LVL_LOC_RAM,
};

void model_mem_levels(const uint64_t c[CG_NR], uint64_t l2miss, uint64_t insn_d1m,
		      uint64_t n[MODEL_MEM_LEVELS])
{
	uint64_t dr = c[CG_DR], m1 = c[CG_D1MR], m3 = c[CG_DLMR], m2;

	/* the loads' share of the instruction's priced L2 misses (they are
	 * priced for loads and stores together, over every thread) */
	m2 = insn_d1m ? (uint64_t)llround((double)l2miss * (double)m1 / (double)insn_d1m) : 0;
	if (m1 > dr)
		m1 = dr;
	if (m2 > m1)
		m2 = m1;
	if (m3 > m2)
		m3 = m2;
	n[0] = dr - m1;
	n[1] = m1 - m2;
	n[2] = m2 - m3;
	n[3] = m3;
}

void model_mem_evsel(struct pd_evsel *ev, uint64_t *id)
{
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = PERF_TYPE_RAW;
	ev->attr.config = 0x4758000005ULL;	/* gexplore's own, as the model's other cycles */
	ev->attr.sample_period = 1;
	ev->attr.sample_type = MEM_SAMPLE_TYPE;
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	ev->name = (char *)MODEL_MEM_EVENT;
	ev->ids = id;
	ev->nr_ids = 1;
}

static int put(struct perf_writer *w, uint64_t id, uint64_t ip, uint32_t pid, uint32_t tid,
	       uint64_t time, uint64_t n, uint64_t weight, uint64_t ds)
{
	uint64_t buf[9];
	struct perf_event_header *h = (void *)buf;

	buf[1] = id;
	buf[2] = ip;
	buf[3] = (uint64_t)tid << 32 | pid;
	buf[4] = time;
	buf[5] = n;
	buf[6] = weight;
	buf[7] = ds;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = 8 * sizeof(*buf);
	return perf_writer__write(w, buf, 8 * sizeof(*buf));
}

uint64_t model_mem_put(struct perf_writer *w, uint64_t id, const struct model_priced *pr,
		       const struct model_tasks *tk, uint64_t *time)
{
	const struct cg_profile *cg = pr->cg;
	uint64_t total = 0;

	for (size_t j = 0; j < cg->nr_pins; j++) {
		const struct cg_pinsn *pin = &cg->pins[j];
		const struct cg_insn *c = &cg->insns[pin->insn];
		uint64_t n[MODEL_MEM_LEVELS];

		if (!tk->c[j][CG_DR])
			continue;
		model_mem_levels(tk->c[j], pr->l2miss[pin->insn], c->c[CG_D1MR] + c->c[CG_D1MW], n);
		for (int k = 0; k < MODEL_MEM_LEVELS; k++) {
			if (!n[k])
				continue;
			put(w, id, model_sample_ip(pr, c->obj, c->addr), tk->pid[pin->part],
			    tk->tid[pin->part], (*time)++, n[k],
			    (uint64_t)llround(pr->lat[k] > 0 ? pr->lat[k] : 0), data_src(levels[k]));
			total += n[k];
		}
	}
	return total;
}
