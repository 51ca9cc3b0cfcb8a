/*
 * reprice.c: a modelled result priced again (gx_reprice, result.h): a tool
 * in front of the profile that turns each sample of a re-priced event
 * into the samples the model says it becomes, and sums them per event
 * for meta.json's counts.
 */
#include "config.h"

#include "result-int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static int reprice_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct reprice_tool *rt = (struct reprice_tool *)t;
	struct gx_reprice_out out[GX_REPRICE_MAX];
	int slot = s->evsel < rt->nr_evsels ? rt->slot[s->evsel] : -1;
	size_t n;

	if (slot < 0)
		return rt->inner->sample(rt->inner, s);
	n = rt->rp->sample(rt->rp->ctx, slot, s, out);
	for (size_t i = 0; i < n && i < GX_REPRICE_MAX; i++) {
		struct pd_sample c = *s;
		size_t e = out[i].slot >= 0 && (size_t)out[i].slot < rt->nr_slots ?
			   rt->evsel_of[out[i].slot] : SIZE_MAX;
		const struct pd_evsel *ev;
		int err;

		if (e == SIZE_MAX)
			continue;
		ev = perf_reader__evsel(rt->reader, e);
		c.evsel = (uint32_t)e;
		c.id = ev->nr_ids ? ev->ids[0] : s->id;
		c.period = out[i].period;
		if (out[i].weight != UINT64_MAX)
			c.weight = out[i].weight;
		if (rt->sum[e] + c.period < rt->sum[e])
			continue;	/* would overflow: the profile leaves it out too */
		rt->sum[e] += c.period;
		err = rt->inner->sample(rt->inner, &c);
		if (err)
			return err;
	}
	return 0;
}

#define FWD(name, type)                                                            \
	static int fwd_##name(struct pd_tool *t, const type *e)                    \
	{                                                                          \
		struct reprice_tool *rt = (struct reprice_tool *)t;                \
		return rt->inner->name ? rt->inner->name(rt->inner, e) : 0;        \
	}
FWD(mmap, struct pd_mmap)
FWD(comm, struct pd_comm)
FWD(fork, struct pd_task)
FWD(exit, struct pd_task)
FWD(lost, struct pd_lost)

static int fwd_other(struct pd_tool *t, const struct perf_event_header *h, uint64_t off)
{
	struct reprice_tool *rt = (struct reprice_tool *)t;

	return rt->inner->other ? rt->inner->other(rt->inner, h, off) : 0;
}

void reprice_tool__init(struct reprice_tool *rt, struct perf_reader *reader, size_t nr_evsels,
			const struct gx_reprice *rp, struct pd_tool *inner)
{
	*rt = (struct reprice_tool){
		.tool = { reprice_sample, fwd_mmap, fwd_comm, fwd_fork, fwd_exit, fwd_lost,
			  fwd_other },
		.inner = inner, .rp = rp, .reader = reader, .nr_evsels = nr_evsels,
		.slot = xcalloc(nr_evsels + 1, sizeof(int)),
		.sum = xcalloc(nr_evsels + 1, sizeof(uint64_t)),
	};
	for (size_t i = 0; i < nr_evsels; i++) {
		rt->slot[i] = rp->slot(rp->ctx, perf_reader__evsel(reader, i)->name);
		if (rt->slot[i] >= 0 && (size_t)rt->slot[i] + 1 > rt->nr_slots)
			rt->nr_slots = (size_t)rt->slot[i] + 1;
	}
	rt->evsel_of = xcalloc(rt->nr_slots + 1, sizeof(size_t));
	for (size_t k = 0; k < rt->nr_slots; k++)
		rt->evsel_of[k] = SIZE_MAX;
	for (size_t i = nr_evsels; i-- > 0;)
		if (rt->slot[i] >= 0)
			rt->evsel_of[rt->slot[i]] = i;
}

void reprice_tool__counts(const struct reprice_tool *rt, struct gx_meta *m)
{
	for (size_t i = 0; i < rt->nr_evsels; i++) {
		const char *name = perf_reader__evsel(rt->reader, i)->name;

		if (rt->slot[i] < 0 || !name)
			continue;
		for (uint32_t k = 0; k < m->nr_events; k++)
			if (m->events[k].name && !strcmp(m->events[k].name, name))
				m->events[k].count = rt->sum[i];
	}
}

void reprice_tool__exit(struct reprice_tool *rt)
{
	GX_FREE(rt->slot, rt->sum, rt->evsel_of);
	rt->slot = NULL;
	rt->sum = NULL;
	rt->evsel_of = NULL;
}
