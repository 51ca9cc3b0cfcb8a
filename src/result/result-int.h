/*
 * result-int.h: what the result module's files share. Not for other
 * modules.
 */
#ifndef GX_RESULT_INT_H
#define GX_RESULT_INT_H

#include "result/result.h"

/* ---- regions.c: regions.bin loaded, instances matched, lookups ---------- */
struct gx_regions;

/* Read DIR/regions.bin. 0 with *out NULL when there is none; end_ns
 * ends the instances never ended (0: their last marker's thread's last
 * marker time). */
int gx_regions__load(struct gx_regions **out, const char *dir, uint64_t end_ns, char **cause);
void gx_regions__delete(struct gx_regions *g);
size_t gx_regions__nr(const struct gx_regions *g);
const struct gx_region *gx_regions__get(const struct gx_regions *g, size_t i);
size_t gx_regions__nr_names(const struct gx_regions *g);
const struct gx_region_name *gx_regions__name(const struct gx_regions *g, size_t i);
size_t gx_regions__nr_markers(const struct gx_regions *g);
uint64_t gx_regions__lost(const struct gx_regions *g);
int gx_regions__find(const struct gx_regions *g, const char *name, size_t *idx);
bool gx_regions__contains(const struct gx_regions *g, size_t name_idx, uint32_t tid, uint64_t t);

/* ---- flow.c: the control flow (gx_result__flow) -------------------------- */

/* From DIR/flow.json (a modelled run; dir NULL: none), else p's branch
 * stacks: 0 with *out NULL when there is neither. rp (NULL: none): the
 * modelled result priced again, its instructions' cycles through
 * rp->flow_cycles. */
struct gx_reprice;
int gx_flow__load(struct gx_flow **out, const char *dir, struct profile *p,
		  const struct gx_reprice *rp, char **cause);
void gx_flow__delete(struct gx_flow *f);

/* ---- reprice.c: a modelled result priced again (gx_reprice) ---------------- */

/* The tool: each sample of an event rp prices (its slot) becomes what
 * rp->sample says, fed to inner; the rest passes as it is. */
struct reprice_tool {
	struct pd_tool tool;		/* first: the reader passes &tool */
	struct pd_tool *inner;
	const struct gx_reprice *rp;
	struct perf_reader *reader;
	size_t nr_evsels;
	int *slot;			/* per evsel, -1: as recorded */
	size_t *evsel_of;		/* per slot: its evsel, SIZE_MAX: none */
	size_t nr_slots;
	uint64_t *sum;			/* per evsel: the periods fed on */
};
void reprice_tool__init(struct reprice_tool *rt, struct perf_reader *reader, size_t nr_evsels,
			const struct gx_reprice *rp, struct pd_tool *inner);
/* m's counts of the re-priced events: their new samples' sums */
void reprice_tool__counts(const struct reprice_tool *rt, struct gx_meta *m);
void reprice_tool__exit(struct reprice_tool *rt);

/* ---- weight.c: the weight values' names ---------------------------------- */

/* The name of event's weight value: "mem-loads:weight" for
 * "cpu/mem-loads,ldlat=30/P" or "mem-loads:modelled". Allocated. */
char *gx_weight_name(const char *event);

#endif /* GX_RESULT_INT_H */
