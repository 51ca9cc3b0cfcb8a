/*
 * result.c: open a recording once — name, meta.json, slice log, perf.data
 * walked into a profile, top-down model — and keep the one event table
 * every view reads.
 */
#include "config.h"

#include "result.h"
#include "result-int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mux/mux.h"
#include "symbolize/symbolize.h"
#include "topdown/topdown.h"
#include "util/util.h"

struct gx_result {
	char *path;			/* dir, or the perf.data file */
	char *dir;			/* NULL for a bare perf.data */
	char *data;			/* the perf.data path ("-": stdin) */
	char *archive;			/* where its .build-id archive is (dir, or data's) */
	struct gx_meta meta;
	bool have_meta;
	struct mux_log *log;		/* slice log, or NULL */
	struct perf_reader *reader;
	struct profile_opts po;		/* the profile's options (for range walks) */
	struct profile *profile;
	/* the event table */
	struct gx_event *events;
	char **own;			/* owned strings the table points to, 2 per event */
	size_t nr_events;		/* the value table: the recorded events, then... */
	size_t nr_evsels;		/* ...after these, the off-CPU values */
	size_t off0;			/* the first off-CPU value; SIZE_MAX: none */
	size_t sort_event;
	bool sort_is_cycles;
	enum gx_kind model_kind;	/* of the model's values */
	/* the model */
	char *model_id;
	struct td_model *model;		/* loaded, or NULL */
	char *model_why;		/* why there is no top-down, or NULL */
	char *model_err;		/* why the model could not be loaded, or NULL */
	struct td_ctx ctx;
	int *ev;			/* event -> model event, -1 */
	size_t nr_matched;
	char *model_note;		/* the core types the model does not cover */
	char **notes;
	size_t nr_notes;
	/* regions.bin, and the region the result is narrowed to */
	struct gx_regions *regions;
	char *region;
	size_t region_idx;
	uint64_t *run_samples;		/* narrowed: every sample per event, in or out */
	char *incomplete;		/* why the recording is not whole, or NULL */
	/* off-CPU time: the first event records context switches */
	struct pd_offcpu *probes;	/* offcpu.bin, or NULL */
	struct profile_offcpu *offcpu;
	int cs_evsel;			/* the context-switches event sampled at each switch-out */
	struct gx_flow *flow;		/* gx_result__flow's, once asked */
	bool flow_tried;
	char *flow_why;			/* why it could not be loaded, or NULL */
	/* weight values (GX_SOURCE_WEIGHT), after the off-CPU values: the
	 * first, and per recorded event its value index (UINT32_MAX) */
	size_t w0;
	uint32_t *weight_of;
};

static void add_note(struct gx_result *r, char *msg)
{
	r->notes = xrealloc(r->notes, (r->nr_notes + 1) * sizeof(*r->notes));
	r->notes[r->nr_notes++] = msg;
}

/* ---- a modelled result priced again (gx_reprice) ------------------------- */

/* A modelled result priced again: rp begun on its directory, and its
 * tool in front of *inner. */
static int reprice_tool__open(struct reprice_tool *rt, struct gx_result *r,
			      const struct gx_reprice *rp, struct pd_tool **inner, char **cause)
{
	int err;

	if (!r->have_meta || !r->meta.modelled)
		return gx_fail(cause, GX_E_USAGE, "%s is not a modelled result: it has no prices "
			       "to change", r->path);
	err = rp->begin(rp->ctx, r->dir, cause);
	if (err)
		return err;
	reprice_tool__init(rt, r->reader, r->nr_evsels, rp, *inner);
	*inner = &rt->tool;
	return 0;
}

/* The re-priced events' counts are their new samples' sums; then the
 * rest of meta.json as the model says, and the control flow's cycles
 * priced again too, while the re-pricing is at hand. */
static void reprice_tool__finish(struct reprice_tool *rt, struct gx_result *r)
{
	char *why = NULL;

	reprice_tool__counts(rt, &r->meta);
	rt->rp->meta(rt->rp->ctx, &r->meta);
	r->flow_tried = true;
	if (gx_flow__load(&r->flow, r->dir, r->profile, rt->rp, &why))
		r->flow_why = why;
	else
		free(why);
}

/* ---- a tool that shows every record to a tap, then to the profile ------- */

struct tee_tool {
	struct pd_tool tool;		/* first: the reader passes &tool */
	struct pd_tool *tap, *inner;
};

#define TEE(name, type)                                                            \
	static int tee_##name(struct pd_tool *t, const type *e)                    \
	{                                                                           \
		struct tee_tool *tt = (struct tee_tool *)t;                         \
		int err = tt->tap->name ? tt->tap->name(tt->tap, e) : 0;            \
                                                                                    \
		if (err)                                                            \
			return err;                                                 \
		return tt->inner->name ? tt->inner->name(tt->inner, e) : 0;         \
	}
TEE(sample, struct pd_sample)
TEE(mmap, struct pd_mmap)
TEE(comm, struct pd_comm)
TEE(fork, struct pd_task)
TEE(exit, struct pd_task)
TEE(lost, struct pd_lost)
#undef TEE

static int tee_other(struct pd_tool *t, const struct perf_event_header *h, uint64_t off)
{
	struct tee_tool *tt = (struct tee_tool *)t;
	int err = tt->tap->other ? tt->tap->other(tt->tap, h, off) : 0;

	if (err)
		return err;
	return tt->inner->other ? tt->inner->other(tt->inner, h, off) : 0;
}

static void tee_tool__init(struct tee_tool *tt, struct pd_tool *tap, struct pd_tool *inner)
{
	*tt = (struct tee_tool){
		.tool = { tee_sample, tee_mmap, tee_comm, tee_fork, tee_exit, tee_lost,
			  tee_other },
		.tap = tap,
		.inner = inner,
	};
}

/* A tool that forwards only samples inside [lo, hi]. */
struct range_tool {
	struct tee_tool tee;		/* first */
	uint64_t lo, hi;
	const struct profile *p;	/* what it feeds: its span values */
};

static int range_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct range_tool *rt = (struct range_tool *)t;

	if (!s->read && profile__is_span(rt->p, s->evsel)) {
		/* a wait: its overlap with the range, as profile__subset */
		struct pd_sample c = *s;

		c.period = profile_span_overlap(s->time, s->period, rt->lo, rt->hi);
		return c.period && rt->tee.inner->sample ? rt->tee.inner->sample(rt->tee.inner, &c)
							 : 0;
	}
	if (s->time < rt->lo || s->time > rt->hi)
		return 0;
	return rt->tee.inner->sample ? rt->tee.inner->sample(rt->tee.inner, s) : 0;
}

/* A tool that forwards only the samples inside a region. */
struct region_tool {
	struct tee_tool tee;		/* first */
	const struct gx_regions *g;
	size_t idx;
	uint64_t *seen;			/* samples per event before the filter, or NULL */
	size_t nr_seen;
};

static int region_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct region_tool *rt = (struct region_tool *)t;

	if (rt->seen && s->evsel < rt->nr_seen)
		rt->seen[s->evsel]++;
	if (!gx_regions__contains(rt->g, rt->idx, s->tid, s->time))
		return 0;
	return rt->tee.inner->sample ? rt->tee.inner->sample(rt->tee.inner, s) : 0;
}

/* profile__subset's filter: rt's region holds the sample. */
static bool in_region(void *ctx, uint32_t tid, uint64_t time)
{
	const struct region_tool *rt = ctx;

	return gx_regions__contains(rt->g, rt->idx, tid, time);
}

static void region_tool__init(struct region_tool *rt, const struct gx_regions *g, size_t idx,
			      struct pd_tool *inner)
{
	static struct pd_tool none;

	tee_tool__init(&rt->tee, &none, inner);
	rt->tee.tool.sample = region_sample;
	rt->g = g;
	rt->idx = idx;
	rt->seen = NULL;
	rt->nr_seen = 0;
}

/* ---- the model ---------------------------------------------------------- */

/* The id of a recording's model: `cpu` (--cpu), meta.json's, the one
 * perf's x86 CPUID feature ("GenuineIntel,6,85,4") matches, else
 * "generic". Allocated. */
static char *model_id(const struct pd_env *env, const struct gx_meta *meta, const char *cpu)
{
	struct td_cpu c = { 0 };
	char vendor[16];
	unsigned fam, mod;

	if (cpu)
		return xstrdup(cpu);
	if (meta && meta->cpu_model)
		return xstrdup(meta->cpu_model);
	if (env && env->cpuid && sscanf(env->cpuid, "%15[^,],%u,%u", vendor, &fam, &mod) == 3) {
		c.arch = TD_CPU_X86;
		snprintf(c.vendor, sizeof(c.vendor), "%s", vendor);
		c.family = fam;
		c.model = mod;
		return td_model_match(&c, NULL);
	}
	return xstrdup("generic");
}

static int load_model(struct gx_result *r, const struct gx_result_opts *o, char **cause)
{
	const struct gx_meta *meta = gx_result__meta(r);
	char *mcause = NULL;

	r->model_id = model_id(perf_reader__env(r->reader), meta, o->cpu);
	if (td_model__load(r->model_id, NULL, &r->model, &mcause) != 0) {
		r->model = NULL;
		if (o->cpu) {	/* the user named it: that is an error */
			int err = gx_fail(cause, -EINVAL, "--cpu %s: %s", o->cpu, mcause);

			free(mcause);
			return err;
		}
		r->model_why = xasprintf("top-down not available: %s", mcause);
		r->model_err = mcause;
	}
	r->ctx.smt = o->smt ? o->smt :
		     !meta || meta->smt < 0 ? TD_SMT_UNKNOWN :
		     meta->smt ? TD_SMT_ON : TD_SMT_OFF;
	r->ctx.variant = meta ? meta->cpu_variant : NULL;
	/* system-wide: every SMT sibling was measured, per-core events are exact */
	r->ctx.core_wide = meta && meta->system_wide;
	return 0;
}

/* ---- the event table ------------------------------------------------------ */

static bool attr_sampled(const struct perf_event_attr *a)
{
	return a->freq || a->sample_period > 0;
}

/* The name of a dynamic PMU type from the file's PMU mappings, else
 * "type N" written into buf. */
static const char *pmu_of_type(const struct pd_env *env, uint32_t type, char *buf, size_t len)
{
	for (size_t i = 0; i < env->nr_pmus; i++)
		if (env->pmus[i].type == type)
			return env->pmus[i].name;
	snprintf(buf, len, "type %u", type);
	return buf;
}

/* The PMU an event was opened on: the "pmu/" prefix of its name, the
 * extended type of a hardware event (hybrid), its dynamic type's name, or
 * the kind of a fixed type. Static, the env's, or written into buf. */
static const char *event_pmu(const struct pd_env *env, const struct pd_evsel *e, char *buf,
			     size_t len)
{
	const struct perf_event_attr *a = &e->attr;
	const char *slash = e->name ? strchr(e->name, '/') : NULL;

	if (slash && slash > e->name && (size_t)(slash - e->name) < len &&
	    strchr(slash + 1, '/')) {
		snprintf(buf, len, "%.*s", (int)(slash - e->name), e->name);
		return buf;
	}
	switch (a->type) {
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_TRACEPOINT:
		return "tracepoint";
	case PERF_TYPE_BREAKPOINT:
		return "breakpoint";
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		if (a->config >> 32)	/* PERF_PMU_TYPE_SHIFT: a hybrid core PMU */
			return pmu_of_type(env, (uint32_t)(a->config >> 32), buf, len);
		return "cpu";
	case PERF_TYPE_RAW:
		for (size_t k = 0; k < env->nr_pmus; k++)
			if (env->pmus[k].type == PERF_TYPE_RAW)
				return env->pmus[k].name;
		return "cpu";
	default:
		return pmu_of_type(env, a->type, buf, len);
	}
}

static bool is_hw_cycles(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE && (a->config & 0xffffffff) == PERF_COUNT_HW_CPU_CYCLES;
}

/* gexplore rotated the groups itself (meta.json's mux mode). */
static bool rotated(const struct gx_meta *meta)
{
	return meta && meta->mux.mode && !strcmp(meta->mux.mode, "gexplore");
}

/*
 * How event i is scaled (mux's one rule, gx_scale): *sc from the slice
 * log of gexplore's rotation (the run's time over its group's), else
 * meta.json's counting read (time enabled over running: the kernel
 * multiplexed it), else the samples' group reads, else meta.json's scale
 * (--mux-runs, logs that did not survive), else 1.
 */
static void event_scaling(const struct gx_result *r, size_t i, struct gx_scaled *sc)
{
	const struct gx_meta *meta = gx_result__meta(r);
	const struct gx_meta_event *e = meta && i < meta->nr_events ? &meta->events[i] : NULL;
	uint64_t en, run;

	gx_scale(1.0, 0, 0, sc);		/* no times: 1 */
	if (r->log && i < mux_log__nr_events(r->log)) {
		/* it saw the run only while its group was on */
		double s = mux_log__scale(r->log, i);

		if (s > 0)
			gx_scale(1.0, s, 1.0, sc);
		return;
	}
	if (e && e->has_estimate && isfinite(e->scale) && e->scale > 0 && rotated(meta)) {
		gx_scale(1.0, e->scale, 1.0, sc);	/* the log did not survive */
		return;
	}
	if (e && e->has_count && e->time_enabled) {
		gx_scale(1.0, (double)e->time_enabled, (double)e->time_running, sc);
		if (isnan(sc->scale))
			gx_scale(1.0, 0, 0, sc);	/* never counted: its samples stand */
		return;
	}
	if (profile__read_times(r->profile, i, &en, &run)) {
		gx_scale(1.0, (double)en, (double)run, sc);
		return;
	}
	if (e && e->has_estimate && isfinite(e->scale) && e->scale > 0)
		gx_scale(1.0, e->scale, 1.0, sc);
}

static double run_value(const struct gx_result *r, size_t i, bool *counted)
{
	const struct gx_meta *meta = gx_result__meta(r);
	const struct gx_meta_event *e = meta && i < meta->nr_events ? &meta->events[i] : NULL;
	struct gx_scaled sc;

	*counted = false;
	if (e && e->unsupported)
		return NAN;	/* opened and read 0: the PMU lacks it */
	if (r->region)
		e = NULL;	/* counting reads and estimates are the whole run's */
	if (e && e->has_estimate && isfinite(e->estimate) && rotated(meta)) {
		*counted = true;	/* rotated by gexplore: the slice log's estimate */
		return e->estimate;
	}
	if (e && e->has_count) {
		gx_scale((double)e->count, (double)e->time_enabled, (double)e->time_running, &sc);
		if (isnan(sc.value))
			return NAN;	/* never counted */
		*counted = true;
		return sc.value;
	}
	if (e && e->has_estimate && isfinite(e->estimate)) {
		*counted = true;
		return e->estimate;
	}
	if (!r->events[i].sampled)
		return NAN;
	/* the samples' periods, scaled when their group reads were multiplexed */
	return (double)profile__total_period(r->profile, i) * r->events[i].scale;
}

/* The E-core PMUs of Intel hybrid parts: no top-down model describes them. */
static bool pmu_is_other_core(const char *pmu)
{
	return !strcmp(pmu, "cpu_atom") || !strcmp(pmu, "cpu_lowpower");
}

/*
 * The model event an event counts, -1 for none. On a hybrid machine the
 * model is the P-cores' (cpu_core): a hardware event's PMU type in the
 * upper config bits and cpu_core's own dynamic type are the core PMU
 * (PERF_TYPE_RAW for the model). E-core copies (cpu_atom) count for no
 * model; *other_core names their PMU.
 */
static int model_event_of(const struct gx_result *r, const struct gx_event *e,
			  const char **other_core)
{
	const struct perf_event_attr *a = e->attr;
	uint32_t type = a->type;
	uint64_t config = a->config;

	if (!r->model || type == PERF_TYPE_SOFTWARE)
		return -1;
	if (pmu_is_other_core(e->pmu)) {
		if (e->samples || !*other_core)
			*other_core = e->pmu;
		return -1;
	}
	if (!strcmp(e->pmu, "cpu_core")) {
		if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE)
			config &= 0xffffffff;
		else
			type = PERF_TYPE_RAW;
	}
	return td_model__find_event_attr(r->model, type, config, a->config1);
}

const char *gx_kind_name(enum gx_kind k)
{
	return k == GX_KIND_EXACT ? "exact" : k == GX_KIND_MODELLED ? "modelled" : "sampled";
}

enum gx_kind gx_kind_join(enum gx_kind a, enum gx_kind b)
{
	if (a == GX_KIND_SAMPLED || b == GX_KIND_SAMPLED)
		return GX_KIND_SAMPLED;
	return a == GX_KIND_MODELLED || b == GX_KIND_MODELLED ? GX_KIND_MODELLED : GX_KIND_EXACT;
}

/* What an event's values are: record --model names them "NAME:exact" and
 * "NAME:modelled"; any other event of a modelled result came from the
 * model too. A name alone says nothing: a perf.data from elsewhere is
 * measured whatever its events are called. */
static enum gx_kind event_kind(const struct gx_result *r, const char *name)
{
	size_t n = strlen(name);

	if (!gx_result__modelled(r))
		return GX_KIND_SAMPLED;
	if (n > 6 && !strcmp(name + n - 6, ":exact"))
		return GX_KIND_EXACT;
	return GX_KIND_MODELLED;
}

/* The join of the kinds of the events the model reads; sampled when none. */
static enum gx_kind model_kind(const struct gx_result *r)
{
	enum gx_kind k = GX_KIND_SAMPLED;
	bool any = false;

	for (size_t i = 0; i < r->nr_events; i++) {
		if (r->ev[i] < 0)
			continue;
		k = any ? gx_kind_join(k, r->events[i].kind) : r->events[i].kind;
		any = true;
	}
	return k;
}

/* Software clock events count nanoseconds, others events. */
static const char *event_unit(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK) ?
	       "ns" : "events";
}

/* What an off-CPU value's attr says to a view that asks one: a software
 * event of no kind perf has (config ~0), never sampled by the PMU. */
static const struct perf_event_attr offcpu_attr = {
	.type = PERF_TYPE_SOFTWARE,
	.size = sizeof(struct perf_event_attr),
	.config = ~0ull,
};

/* What every value credited beside the events has: no counter, group nor
 * model event, every row's values sampled and unscaled, its totals the
 * profile's. */
static void value_totals(struct gx_result *r, size_t i)
{
	struct gx_event *e = &r->events[i];

	e->group = -1;
	e->model_event = r->ev[i] = -1;
	e->samples = profile__total_samples(r->profile, i);
	e->sampled = true;
	e->scale = 1.0;
	e->running = 1.0;
	e->run_value = (double)profile__total_period(r->profile, i);
}

/* Value i of the table, an off-CPU value: "off-cpu" or "off-cpu:REASON",
 * in ns, measured from the kernel's switch records (sampled: it varies
 * from run to run as any measurement does), its per-row values the
 * waits' time, scale 1. */
static void offcpu_value(struct gx_result *r, size_t i)
{
	struct gx_event *e = &r->events[i];
	size_t k = i - r->off0;

	e->name = profile_off_value__name(k);
	e->pmu = "software";
	e->attr = &offcpu_attr;
	e->unit = "ns";
	e->source = GX_SOURCE_OFFCPU;
	e->reason = k ? (int)k - 1 : -1;
	e->kind = GX_KIND_SAMPLED;
	value_totals(r, i);
}

/* Value i of the table, the weight value of recorded event ev: its
 * samples' weights (cycles of latency) summed, of the event's kind, its
 * per-row values the weights, scale 1 (as perf mem sums them). */
static void weight_value(struct gx_result *r, size_t i, size_t ev)
{
	struct gx_event *e = &r->events[i];

	e->name = r->own[2 * i + 1] = gx_weight_name(r->events[ev].name);
	e->pmu = r->events[ev].pmu;
	/* a second of one name (hybrid: cpu_atom's after cpu_core's) says
	 * its PMU: a value is found by its whole name */
	for (size_t j = r->w0; j < i; j++)
		if (!strcmp(r->events[j].name, e->name)) {
			char *two = xasprintf("%s/%s", e->pmu, e->name);

			free(r->own[2 * i + 1]);
			e->name = r->own[2 * i + 1] = two;
			break;
		}
	e->attr = &offcpu_attr;		/* no counter of its own either */
	e->unit = "cycles";
	e->source = GX_SOURCE_WEIGHT;
	e->reason = -1;
	e->kind = r->events[ev].kind;
	value_totals(r, i);
}

/* The weight values: one per recorded event whose samples carry a weight
 * (perf mem's, record --mem's, a modelled run's mem-loads:modelled),
 * after the off-CPU values; r->po credits them. */
static void weight_values(struct gx_result *r)
{
	r->w0 = r->nr_events;
	r->weight_of = xcalloc(r->nr_evsels + 1, sizeof(*r->weight_of));
	for (size_t i = 0; i < r->nr_evsels; i++) {
		const struct perf_event_attr *a = &perf_reader__evsel(r->reader, i)->attr;

		r->weight_of[i] = UINT32_MAX;
		if (a->sample_type & PERF_SAMPLE_WEIGHT_TYPE)
			r->weight_of[i] = (uint32_t)r->nr_events++;
	}
	r->po.weight_of = r->weight_of;
	r->po.nr_weight_of = r->nr_evsels;
}

static void build_events(struct gx_result *r)
{
	const struct gx_meta *meta = gx_result__meta(r);
	int cyc = r->model ? td_model__find_event(r->model, "cycles") : -1;
	size_t n = r->nr_events;
	ssize_t model_clk = -1, hw_clk = -1, first = -1;

	const char *other_core = NULL;

	r->events = xcalloc(n + 1, sizeof(*r->events));
	r->own = xcalloc(2 * n + 1, sizeof(char *));
	r->ev = xcalloc(n + 1, sizeof(*r->ev));
	for (size_t i = r->nr_evsels; i < r->w0; i++)
		offcpu_value(r, i);
	for (size_t i = 0; i < r->nr_evsels; i++) {
		const struct pd_evsel *pe = perf_reader__evsel(r->reader, i);
		struct gx_event *e = &r->events[i];
		char buf[64];
		const char *pmu = event_pmu(perf_reader__env(r->reader), pe, buf, sizeof(buf));

		if (pmu == buf)
			pmu = r->own[2 * i] = xstrdup(buf);
		if (pe->name && *pe->name)
			e->name = pe->name;
		else
			e->name = r->own[2 * i + 1] = xasprintf("type%u/0x%llx", pe->attr.type,
								(unsigned long long)pe->attr.config);
		e->attr = &pe->attr;
		e->pmu = pmu;
		e->unit = event_unit(&pe->attr);
		e->source = GX_SOURCE_PERIOD;
		e->reason = -1;
		e->kind = event_kind(r, e->name);
		e->group = meta && i < meta->nr_events ? meta->events[i].group : -1;
		e->samples = profile__total_samples(r->profile, i);
		/* a member of a leader-sampled group has no period of its own,
		 * but the leader's samples read it: it has per-row values */
		e->sampled = attr_sampled(&pe->attr) || e->samples;
		r->ev[i] = model_event_of(r, e, &other_core);
		e->model_event = r->ev[i];
		if (r->ev[i] >= 0)
			r->nr_matched++;
	}
	for (size_t i = 0; i < r->nr_evsels; i++) {
		struct gx_event *e = &r->events[i];

		struct gx_scaled sc;

		event_scaling(r, i, &sc);
		e->scale = sc.scale;
		e->running = sc.running;
		e->multiplexed = sc.multiplexed;
		e->run_value = run_value(r, i, &e->counted);
		if (!e->sampled || !e->samples)
			continue;
		if (model_clk < 0 && cyc >= 0 && r->ev[i] == cyc)
			model_clk = (ssize_t)i;
		if (hw_clk < 0 && is_hw_cycles(e->attr))
			hw_clk = (ssize_t)i;
		if (first < 0)
			first = (ssize_t)i;
	}
	for (size_t i = 0; i < r->nr_evsels; i++)
		if (r->weight_of[i] != UINT32_MAX)
			weight_value(r, r->weight_of[i], i);
	r->model_kind = model_kind(r);
	r->sort_is_cycles = model_clk >= 0;
	r->sort_event = model_clk >= 0 ? (size_t)model_clk : hw_clk >= 0 ? (size_t)hw_clk :
			first >= 0 ? (size_t)first : 0;
	if (r->model && other_core)
		r->model_note = xasprintf("%s: no top-down model for this core type (E-cores); "
					  "top-down covers the cpu_core (P-core) events only",
					  other_core);
	if (r->model && !r->nr_matched && !r->model_why && other_core)
		r->model_why = xasprintf("%s: no top-down model for this core type (E-cores), "
					 "and no cpu_core (P-core) event was recorded", other_core);
	if (r->model && !r->nr_matched && !r->model_why)
		r->model_why = xstrdup("top-down needs hardware counters: this recording has none "
				       "of the CPU model's events (the time hotspots do not need them)");
}

/* ---- opening -------------------------------------------------------------- */

/*
 * The slice log of a result gexplore multiplexed itself (meta.json names
 * it), with its events' groups from meta. 0 with *out NULL when there is
 * none or no reference event; an error when it cannot be read.
 */
static int open_slice_log(struct gx_result *r, char **cause)
{
	const struct gx_meta *meta = &r->meta;
	char *path;
	int *group, err;

	if (!meta->mux.slice_log || meta->mux.reference < 0)
		return 0;
	/* a name inside the result directory, never a path out of it */
	if (!*meta->mux.slice_log || strchr(meta->mux.slice_log, '/') ||
	    !strcmp(meta->mux.slice_log, ".") || !strcmp(meta->mux.slice_log, ".."))
		return gx_fail(cause, GX_E_FORMAT, "meta.json: slice log '%s' is not a file name "
			       "in the result directory", meta->mux.slice_log);
	path = xasprintf("%s/%s", r->dir, meta->mux.slice_log);
	err = mux_log__read(&r->log, path, cause);
	free(path);
	if (err)
		return err;
	group = xcalloc(meta->nr_events + 1, sizeof(*group));
	for (size_t i = 0; i < meta->nr_events; i++)
		group[i] = meta->events[i].group;
	mux_log__set_groups(r->log, group, meta->nr_events);
	free(group);
	return 0;
}

static int open_files(struct gx_result *r, const char *arg, const struct gx_result_opts *o,
		      char **cause)
{
	char *mcause = NULL, *skipped = NULL;
	int err;

	err = pd_result_dir__resolve(arg, o->parent, &r->dir, &r->data, &skipped, cause);
	if (err)
		return err;
	if (skipped)
		add_note(r, skipped);
	r->path = xstrdup(r->dir ? r->dir : r->data);
	if (r->dir) {
		err = gx_meta__read(&r->meta, r->dir, cause);
		if (err == 0)
			r->have_meta = true;
		else if (err != -ENOENT)
			return err;
		free(*cause);
		*cause = NULL;
		if (r->have_meta)
			r->incomplete = gx_meta__incomplete(&r->meta);
		else	/* record writes meta.json last */
			r->incomplete = xstrdup(pd_result_dir__locked(r->dir) ?
						"being recorded (no meta.json yet)" :
						"cut short (no meta.json)");
	}
	if (r->have_meta && open_slice_log(r, &mcause) != 0) {
		add_note(r, xasprintf("%s; MUX reliability per row is n/a", mcause));
		free(mcause);
		mcause = NULL;
	}
	if (r->dir && gx_regions__load(&r->regions, r->dir, r->have_meta ? r->meta.end_ns : 0,
				       &mcause) != 0) {
		add_note(r, xasprintf("%s; no regions", mcause));
		free(mcause);
		mcause = NULL;
	} else if (r->have_meta && r->meta.markers > gx_regions__nr_markers(r->regions)) {
		/* one file checked against the other: a damaged or cut
		 * regions.bin is said, not shown as "none recorded" */
		add_note(r, xasprintf("%s: %zu of the %" PRIu64 " markers meta.json counts: "
				      "damaged or cut short; regions may be missing",
				      PD_REGIONS_FILE, gx_regions__nr_markers(r->regions),
				      r->meta.markers));
	}
	if (r->log && r->meta.mux.nr_slices > mux_log__nr_slices(r->log))
		add_note(r, xasprintf("%s: %zu of the %" PRIu64 " slices meta.json counts: "
				      "damaged or cut short", r->meta.mux.slice_log,
				      mux_log__nr_slices(r->log), r->meta.mux.nr_slices));
	if (o->region) {
		if (gx_regions__find(r->regions, o->region, &r->region_idx) != 0) {
			struct strbuf sb = STRBUF_INIT;

			for (size_t i = 0; i < gx_regions__nr_names(r->regions); i++)
				strbuf__addf(&sb, "%s%s", i ? ", " : "",
					    gx_regions__name(r->regions, i)->name);
			err = gx_fail(cause, -ENOENT, "no region '%s' in %s (%s%s)", o->region,
				      r->path, sb.len ? "regions: " : "no regions recorded",
				      sb.len ? sb.buf : "");
			strbuf__exit(&sb);
			return err;
		}
		r->region = xstrdup(o->region);
	}
	/* a result's perf.data is a regular file: a FIFO there is refused */
	return perf_reader__open(&r->reader, r->data, PD_ORDERED | (r->dir ? PD_REGULAR | PD_NOFOLLOW : 0),
				 cause);
}

/* The profile's options: the user's symbol options, the recording's
 * environment, and the time slots of the slice log. */
static void profile_options(struct gx_result *r, const struct gx_result_opts *o)
{
	if (o->sym)
		r->po = *o->sym;
	r->po.env = perf_reader__env(r->reader);
	if (r->dir) {
		r->archive = xstrdup(r->dir);
	} else if (strcmp(r->data, "-")) {	/* a bare perf.data: gexplore archive's place */
		const char *slash = strrchr(r->data, '/');

		r->archive = slash ? xstrndup(r->data, (size_t)(slash - r->data + (slash == r->data)))
				   : xstrdup(".");
	}
	r->po.archive = r->archive;
	r->po.keep_samples = false;	/* the walks again keep nothing */
	r->po.on_stack = NULL;
	r->po.stack_ctx = NULL;
	r->po.slot_of = NULL;
	r->po.slot_ctx = NULL;
	r->po.nr_slots = 0;
	if (r->log && (size_t)r->meta.mux.reference >= perf_reader__nr_evsels(r->reader)) {
		mux_log__delete(r->log);	/* its reference is not in the file */
		r->log = NULL;
	}
	if (r->log) {
		r->po.slot_of = mux_log__group_at;
		r->po.slot_ctx = r->log;
		r->po.nr_slots = mux_log__nr_groups(r->log);
		r->po.slot_event = (size_t)r->meta.mux.reference;
	}
}

/* Modules whose file changed since the recording: a note each (their
 * samples are [unknown], not the new file's functions). */
static void stale_notes(struct gx_result *r)
{
	struct sym_session *s = profile__symbolizer(r->profile);

	for (size_t i = 0; s && i < sym_session__nr_dsos(s); i++) {
		struct sym_dso *d = sym_session__dso_at(s, i);

		if (sym_dso__stale(d) && sym_dso__problem(d))
			add_note(r, xstrdup(sym_dso__problem(d)));
	}
}

/* With context-switch records (the first event's attr.context_switch:
 * record --off-cpu, perf record --switch-events), an off-CPU analysis in
 * front of *inner, with the prober's offcpu.bin when there is one. */
/* Whether the recording has context-switch records (the first event's
 * attr.context_switch: record --off-cpu, perf's --switch-events), whose
 * waits become the off-CPU values; not in a result narrowed to a region. */
static bool has_switches(const struct gx_result *r)
{
	const struct pd_evsel *e0 = r->nr_evsels ? perf_reader__evsel(r->reader, 0) : NULL;

	return e0 && e0->attr.context_switch && !r->region;
}

/* An off-CPU analysis in front of inner, crediting p's off-CPU values. */
static int offcpu_new(struct gx_result *r, struct profile_offcpu **out, struct pd_tool *inner,
		      struct profile *p, char **cause)
{
	return profile_offcpu__new(out, inner, &perf_reader__evsel(r->reader, 0)->attr, r->probes,
				   r->cs_evsel, p, r->off0, r->po.offcpu_kernel,
				   r->have_meta ? r->meta.start_ns : 0,
				   r->have_meta ? r->meta.end_ns : 0, cause);
}

/* With context-switch records, an off-CPU analysis in front of *inner,
 * with the prober's offcpu.bin when there is one, crediting the profile's
 * off-CPU values. */
static int offcpu_open(struct gx_result *r, struct pd_tool **inner, char **cause)
{
	char *why = NULL;
	int err, cs = -1;

	if (r->off0 == SIZE_MAX)
		return 0;
	if (r->dir) {
		char *path = xasprintf("%s/%s", r->dir, PD_OFFCPU_FILE);

		err = pd_offcpu__read(path, &r->probes, &why);
		free(path);
		if (err && err != -ENOENT)
			add_note(r, xasprintf("off-CPU: %s; waits have no reasons nor stacks", why));
		free(why);
	}
	for (size_t i = 0; i < r->nr_evsels; i++) {
		const struct perf_event_attr *a = &perf_reader__evsel(r->reader, i)->attr;

		if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
		    !a->freq && a->sample_period == 1)
			cs = (int)i;
	}
	r->cs_evsel = cs;
	err = offcpu_new(r, &r->offcpu, *inner, r->profile, cause);
	if (err)
		return err;
	*inner = profile_offcpu__tool(r->offcpu);
	return 0;
}

struct profile_offcpu *gx_result__offcpu(const struct gx_result *r)
{
	return r->offcpu;
}

size_t gx_result__offcpu_value(const struct gx_result *r)
{
	return r->off0;
}

int gx_result__open(struct gx_result **out, const char *arg, const struct gx_result_opts *o,
		    char **cause)
{
	static const struct gx_result_opts none = { 0 };
	struct gx_result *r = xzalloc(sizeof(*r));
	struct profile_opts po;
	struct tee_tool tee;
	struct region_tool rt;
	struct reprice_tool rpt = { 0 };
	struct pd_tool *inner;
	int err;

	*out = NULL;
	if (!o)
		o = &none;
	gx_meta__init(&r->meta);
	err = open_files(r, arg, o, cause);
	if (err)
		goto fail;
	r->nr_events = r->nr_evsels = perf_reader__nr_evsels(r->reader);
	r->off0 = SIZE_MAX;
	if (has_switches(r)) {
		r->off0 = r->nr_evsels;
		r->nr_events += PROFILE_OFF_VALUES;
	}
	profile_options(r, o);
	weight_values(r);
	/* a modelled load sample is its period's loads (issue 43) */
	r->po.mem_periods = r->have_meta && r->meta.modelled;
	if (o->on_begin)
		o->on_begin(o->stack_ctx, r);
	po = r->po;
	po.on_stack = o->on_stack;
	po.stack_ctx = o->stack_ctx;
	po.keep_samples = o->keep_samples && !r->region;
	err = profile__new_opts(&r->profile, r->nr_events, &po, cause);
	if (err)
		goto fail;
	inner = profile__tool(r->profile);
	if (o->reprice) {
		err = reprice_tool__open(&rpt, r, o->reprice, &inner, cause);
		if (err)
			goto fail;
	}
	if (r->region) {
		region_tool__init(&rt, r->regions, r->region_idx, inner);
		r->run_samples = xcalloc(r->nr_events + 1, sizeof(*r->run_samples));
		rt.seen = r->run_samples;
		rt.nr_seen = r->nr_evsels;
		inner = &rt.tee.tool;
	}
	err = offcpu_open(r, &inner, cause);
	if (err)
		goto fail;
	if (o->tap) {
		tee_tool__init(&tee, o->tap, inner);
		err = perf_reader__process(r->reader, &tee.tool, cause);
	} else {
		err = perf_reader__process(r->reader, inner, cause);
	}
	/* the waits still open end with the run, then what is queued for
	 * unwinding is credited */
	if (!err && r->offcpu)
		profile_offcpu__finish(r->offcpu, 0);
	profile__finish(r->profile);
	if (o->reprice && !err)
		reprice_tool__finish(&rpt, r);
	reprice_tool__exit(&rpt);
	if (err)
		goto fail;
	if (r->offcpu && profile_offcpu__dropped(r->offcpu))
		add_note(r, xasprintf("off-CPU: %" PRIu64 " switch, fork or exit record%s dropped: "
				      "%s time lies outside the recording's (a damaged perf.data?)",
				      profile_offcpu__dropped(r->offcpu),
				      profile_offcpu__dropped(r->offcpu) == 1 ? "" : "s",
				      profile_offcpu__dropped(r->offcpu) == 1 ? "its" : "their"));
	if (profile__nr_overflowed(r->profile))
		add_note(r, xasprintf("%" PRIu64 " sample%s left out: adding %s period would "
				      "overflow the 64-bit total (a damaged perf.data?)",
				      profile__nr_overflowed(r->profile),
				      profile__nr_overflowed(r->profile) == 1 ? "" : "s",
				      profile__nr_overflowed(r->profile) == 1 ? "its" : "their"));
	stale_notes(r);
	err = load_model(r, o, cause);
	if (err)
		goto fail;
	build_events(r);
	/* a fraction computed from exact and modelled counts is clamped to
	 * [0, 1]: outside it the model is off, not the measurement */
	r->ctx.clamp = gx_kind_fixed(r->model_kind);
	*out = r;
	return 0;
fail:
	reprice_tool__exit(&rpt);
	gx_result__delete(r);
	return err;
}

const struct gx_flow *gx_result__flow(struct gx_result *r, char **cause)
{
	char *why = NULL;

	if (!r->flow_tried) {
		r->flow_tried = true;
		if (gx_flow__load(&r->flow, r->dir, r->profile, NULL, &why))
			r->flow_why = why;
		else
			free(why);
	}
	if (!r->flow && r->flow_why && cause)
		*cause = xstrdup(r->flow_why);
	return r->flow;
}

void gx_result__delete(struct gx_result *r)
{
	if (!r)
		return;
	gx_free_strv(r->notes, r->nr_notes);
	gx_flow__delete(r->flow);
	free(r->flow_why);
	gx_regions__delete(r->regions);
	free(r->region);
	free(r->run_samples);
	free(r->weight_of);
	free(r->incomplete);
	gx_free_strv(r->own, r->own ? 2 * r->nr_events : 0);	/* NULL past the evsels */
	free(r->ev);
	free(r->model_why);
	free(r->model_note);
	free(r->model_err);
	free(r->model_id);
	td_model__delete(r->model);
	free(r->events);
	profile_offcpu__delete(r->offcpu);
	pd_offcpu__delete(r->probes);
	profile__delete(r->profile);
	perf_reader__delete(r->reader);
	mux_log__delete(r->log);
	gx_meta__exit(&r->meta);
	free(r->data);
	free(r->archive);
	free(r->dir);
	free(r->path);
	free(r);
}

/* The part of the run a view narrowed to, when no sample was kept: the
 * file walked again through tool (a filter in front of p's; with switch
 * records an off-CPU analysis in front of it, so that the waits are
 * values of p as of the whole run's profile), p finished into *out, or
 * deleted on an error. */
static int walk_into(struct gx_result *r, struct pd_tool *tool, struct profile *p,
		     struct profile **out, char **cause)
{
	struct profile_offcpu *oc = NULL;
	int err = 0;

	if (r->off0 != SIZE_MAX && !r->region) {
		err = offcpu_new(r, &oc, tool, p, cause);
		if (!err)
			tool = profile_offcpu__tool(oc);
	}
	if (!err)
		err = perf_reader__process(r->reader, tool, cause);
	if (!err && oc)
		profile_offcpu__finish(oc, 0);
	profile__finish(p);
	profile_offcpu__delete(oc);
	if (err) {
		profile__delete(p);
		return err;
	}
	*out = p;
	return 0;
}

int gx_result__profile_range(struct gx_result *r, uint64_t lo, uint64_t hi,
			     struct profile **out, char **cause)
{
	struct range_tool rt;
	struct profile *p;
	int err;

	*out = NULL;
	if (profile__subset(r->profile, lo, hi ? hi : UINT64_MAX, NULL, NULL, out) == 0)
		return 0;	/* kept samples: no walk */
	err = profile__new_opts(&p, r->nr_events, &r->po, cause);
	if (err)
		return err;
	tee_tool__init(&rt.tee, &(struct pd_tool){ 0 }, profile__tool(p));
	rt.tee.tool.sample = range_sample;
	rt.lo = lo;
	rt.hi = hi ? hi : UINT64_MAX;
	rt.p = p;
	/* rt.tee.tap points at a compound literal of this scope: only the
	 * walk below uses it */
	return walk_into(r, &rt.tee.tool, p, out, cause);
}

int gx_result__profile_region(struct gx_result *r, size_t name_idx, struct profile **out,
			      char **cause)
{
	struct region_tool rt;
	struct profile *p;
	int err;

	*out = NULL;
	if (name_idx >= gx_regions__nr_names(r->regions))
		return gx_fail(cause, -EINVAL, "no region %zu", name_idx);
	rt.g = r->regions;
	rt.idx = name_idx;
	if (profile__subset(r->profile, 0, UINT64_MAX, in_region, &rt, out) == 0)
		return 0;	/* kept samples: no walk */
	err = profile__new_opts(&p, r->nr_events, &r->po, cause);
	if (err)
		return err;
	region_tool__init(&rt, r->regions, name_idx, profile__tool(p));
	return walk_into(r, &rt.tee.tool, p, out, cause);
}

size_t gx_result__nr_regions(const struct gx_result *r) { return gx_regions__nr(r->regions); }
const struct gx_region *gx_result__region(const struct gx_result *r, size_t i)
{
	return gx_regions__get(r->regions, i);
}
size_t gx_result__nr_region_names(const struct gx_result *r)
{
	return gx_regions__nr_names(r->regions);
}
const struct gx_region_name *gx_result__region_name(const struct gx_result *r, size_t i)
{
	return gx_regions__name(r->regions, i);
}
int gx_result__find_region(const struct gx_result *r, const char *name, size_t *idx)
{
	return gx_regions__find(r->regions, name, idx);
}
size_t gx_result__nr_markers(const struct gx_result *r) { return gx_regions__nr_markers(r->regions); }
uint64_t gx_result__markers_lost(const struct gx_result *r) { return gx_regions__lost(r->regions); }
const char *gx_result__narrowed(const struct gx_result *r) { return r->region; }
uint64_t gx_result__run_samples(const struct gx_result *r, size_t e)
{
	if (r->run_samples)
		return e < r->nr_events ? r->run_samples[e] : 0;
	return profile__total_samples(r->profile, e);
}

/* ---- accessors -------------------------------------------------------------- */

const char *gx_result__path(const struct gx_result *r) { return r->path; }
const char *gx_result__dir(const struct gx_result *r) { return r->dir; }
const struct gx_meta *gx_result__meta(const struct gx_result *r)
{
	return r->have_meta ? &r->meta : NULL;
}

bool gx_result__modelled(const struct gx_result *r)
{
	return r->have_meta && r->meta.modelled;
}
struct perf_reader *gx_result__reader(const struct gx_result *r) { return r->reader; }
const struct pd_env *gx_result__env(const struct gx_result *r) { return perf_reader__env(r->reader); }
struct profile *gx_result__profile(const struct gx_result *r) { return r->profile; }
struct sym_session *gx_result__symbolizer(const struct gx_result *r)
{
	return profile__symbolizer(r->profile);
}
const struct mux_log *gx_result__mux(const struct gx_result *r) { return r->log; }
size_t gx_result__nr_notes(const struct gx_result *r) { return r->nr_notes; }
const char *gx_result__incomplete(const struct gx_result *r) { return r->incomplete; }
const char *gx_result__stopped(const struct gx_result *r)
{
	return r->have_meta ? gx_meta__stopped(&r->meta) : NULL;
}

const char *gx_result__status(const struct gx_result *r)
{
	if (r->have_meta)
		return r->meta.status ? r->meta.status : GX_META_STATUS_COMPLETE;
	if (!r->dir)
		return "unknown";
	return r->incomplete && strstr(r->incomplete, "being recorded") ? "being-recorded" :
	       "cut-short";
}
const char *gx_result__note(const struct gx_result *r, size_t i) { return r->notes[i]; }

size_t gx_result__nr_events(const struct gx_result *r) { return r->nr_events; }
size_t gx_result__nr_recorded(const struct gx_result *r) { return r->nr_evsels; }
const struct gx_event *gx_result__event(const struct gx_result *r, size_t i)
{
	return &r->events[i];
}
size_t gx_result__sort_event(const struct gx_result *r) { return r->sort_event; }
bool gx_result__sort_is_cycles(const struct gx_result *r) { return r->sort_is_cycles; }
enum gx_kind gx_result__model_kind(const struct gx_result *r) { return r->model_kind; }

int gx_result__build_id(const struct gx_result *r, const char *path, const uint8_t **id,
			size_t *size)
{
	const struct pd_env *env = perf_reader__env(r->reader);

	for (size_t i = 0; path && i < env->nr_build_ids; i++) {
		const struct pd_build_id *b = &env->build_ids[i];

		if (b->size && b->filename && !strcmp(b->filename, path)) {
			*id = b->id;
			*size = b->size;
			return 0;
		}
	}
	return -ENOENT;
}

/* "cycles:u" and "cycles/..." name "cycles" for our purpose. */
static bool name_is(const char *have, const char *want, size_t n)
{
	return !strncmp(have, want, n) && (!have[n] || have[n] == ':' || have[n] == '/');
}

/* Does event e answer to `want` without a PMU: its name, or the event
 * inside "pmu/event/"? */
static bool event_is(const struct gx_event *e, const char *want, size_t n)
{
	const char *slash = strchr(e->name, '/');

	return name_is(e->name, want, n) || (slash && name_is(slash + 1, want, n));
}

int gx_result__find_event(const struct gx_result *r, const char *name, size_t *idx)
{
	const char *slash = strchr(name, '/');
	ssize_t best = -1;

	for (size_t i = 0; i < r->nr_events; i++)
		if (r->events[i].source != GX_SOURCE_PERIOD && !strcmp(r->events[i].name, name)) {
			*idx = i;	/* a value by its whole name: "off-cpu", not its reasons */
			return 0;
		}
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct gx_event *e = &r->events[i];
		bool hit = e->source == GX_SOURCE_PERIOD &&	/* values: by their whole name */
			   (!strcmp(e->name, name) || event_is(e, name, strlen(name)));

		/* "cpu_core/cycles" or "cpu_core/cycles/": one PMU's copy */
		if (!hit && slash && strlen(e->pmu) == (size_t)(slash - name) &&
		    !strncmp(name, e->pmu, (size_t)(slash - name))) {
			const char *ev = slash + 1, *end = strchr(ev, '/');

			hit = event_is(e, ev, end ? (size_t)(end - ev) : strlen(ev));
		}
		if (!hit && r->model && e->model_event >= 0)
			hit = !strcasecmp(td_model__event(r->model, (size_t)e->model_event)->id, name);
		if (hit && (best < 0 || e->samples > r->events[best].samples))
			best = (ssize_t)i;
	}
	if (best < 0)
		return -ENOENT;
	*idx = (size_t)best;
	return 0;
}

double gx_result__row_value(const struct gx_result *r, const struct profile_row *row, size_t i)
{
	const struct gx_meta *meta = gx_result__meta(r);

	if (!r->events[i].sampled)
		return NAN;	/* counted, never sampled: no per-row value */
	if (meta && i < meta->nr_events && meta->events[i].unsupported)
		return NAN;	/* the PMU lacks it */
	return (double)row->period[i] * r->events[i].scale;
}

/* 1: the event counts cycles, 2: instructions, 0: neither. */
static int cpi_kind(const struct gx_result *r, size_t i)
{
	const struct perf_event_attr *a = r->events[i].attr;
	int k = r->ev[i];

	if (a->type == PERF_TYPE_HARDWARE) {
		if ((a->config & 0xffffffff) == PERF_COUNT_HW_CPU_CYCLES)
			return 1;
		if ((a->config & 0xffffffff) == PERF_COUNT_HW_INSTRUCTIONS)
			return 2;
		return 0;
	}
	if (!r->model || k < 0)
		return 0;
	if (k == td_model__find_event(r->model, "cycles"))
		return 1;
	return k == td_model__find_event(r->model, "instructions") ? 2 : 0;
}

bool gx_result__has_row_cpi(const struct gx_result *r)
{
	bool c = false, n = false;

	for (size_t i = 0; i < r->nr_events; i++) {
		int k = r->events[i].sampled && r->events[i].samples ? cpi_kind(r, i) : 0;

		c |= k == 1;
		n |= k == 2;
	}
	return c && n;
}

double gx_result__row_cpi(const struct gx_result *r, const struct profile_row *row)
{
	double cyc = 0, ins = 0;
	bool c = false, n = false;

	for (size_t i = 0; i < r->nr_events; i++) {
		int k = r->events[i].sampled ? cpi_kind(r, i) : 0;

		if (k == 1) {
			cyc += gx_result__row_value(r, row, i);
			c = true;
		} else if (k == 2) {
			ins += gx_result__row_value(r, row, i);
			n = true;
		}
	}
	return c && n && ins > 0 ? cyc / ins : NAN;
}

double gx_result__row_reliability(const struct gx_result *r, const struct profile_row *row)
{
	return r->log ? mux_log__row_reliability(r->log, row->slot_period) : NAN;
}

const char *gx_result__model_id(const struct gx_result *r) { return r->model_id; }
const struct td_model *gx_result__model(const struct gx_result *r)
{
	return r->nr_matched ? r->model : NULL;
}
const struct td_model *gx_result__model_loaded(const struct gx_result *r) { return r->model; }
const char *gx_result__model_why(const struct gx_result *r) { return r->model_why; }
const char *gx_result__model_error(const struct gx_result *r) { return r->model_err; }
const char *gx_result__model_note(const struct gx_result *r) { return r->model_note; }
const struct td_ctx *gx_result__ctx(const struct gx_result *r) { return &r->ctx; }
const int *gx_result__model_map(const struct gx_result *r) { return r->ev; }

/* The core PMU (cpu, cpu_core) wins when copies of an event differ in PMU. */
static int pmu_rank(const char *pmu)
{
	return !pmu || !strcmp(pmu, "cpu") || !strcmp(pmu, "cpu_core") ? 0 : 1;
}

void gx_result__model_counts(const struct gx_result *r, const double *v, double *c)
{
	size_t ne;
	double *w;
	const char **pmu;

	if (!r->model)
		return;
	ne = td_model__nr_events(r->model);
	w = xcalloc(ne + 1, sizeof(double));
	pmu = xcalloc(ne + 1, sizeof(char *));
	for (size_t k = 0; k < ne; k++)
		c[k] = NAN;
	/*
	 * Copies of one event (in several groups) each estimate the whole:
	 * combine those of one PMU, weighted by the share of the run each was
	 * counted (1 / scale); never add them, never mix PMUs.
	 */
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct gx_event *e = &r->events[i];
		int k = r->ev[i];
		double wi;

		if (k < 0 || isnan(v[i]))
			continue;
		if (pmu[k] && strcmp(pmu[k], e->pmu ? e->pmu : "cpu") != 0) {
			if (pmu_rank(e->pmu) >= pmu_rank(pmu[k]))
				continue;
			c[k] = NAN;	/* a core-PMU copy replaces another PMU's */
			w[k] = 0;
		}
		pmu[k] = e->pmu ? e->pmu : "cpu";
		wi = isfinite(e->scale) && e->scale > 0 ? 1.0 / e->scale : 1.0;
		c[k] = isnan(c[k]) ? v[i] * wi : c[k] + v[i] * wi;
		w[k] += wi;
	}
	for (size_t k = 0; k < ne; k++)
		if (!isnan(c[k]) && w[k] > 0)
			c[k] /= w[k];
	free(w);
	free(pmu);
}

void gx_result__run_counts(const struct gx_result *r, double *c)
{
	double *v = xcalloc(r->nr_events + 1, sizeof(double));

	for (size_t i = 0; i < r->nr_events; i++)
		v[i] = r->events[i].run_value;
	gx_result__model_counts(r, v, c);
	free(v);
}

void gx_result__profile_counts(const struct gx_result *r, const struct profile *p, double *c)
{
	const struct gx_meta *meta = gx_result__meta(r);
	double *v = xcalloc(r->nr_events + 1, sizeof(double));

	for (size_t i = 0; i < r->nr_events; i++)
		v[i] = r->ev[i] < 0 || !r->events[i].sampled ||
		       (meta && i < meta->nr_events && meta->events[i].unsupported) ? NAN :
		       (double)profile__total_period(p, i) * r->events[i].scale;
	gx_result__model_counts(r, v, c);
	free(v);
}

void gx_result__row_counts(const struct gx_result *r, const struct profile_row *row, double *c)
{
	double *v = xcalloc(r->nr_events + 1, sizeof(double));

	for (size_t i = 0; i < r->nr_events; i++)
		v[i] = r->ev[i] < 0 ? NAN : gx_result__row_value(r, row, i);
	gx_result__model_counts(r, v, c);
	free(v);
}
