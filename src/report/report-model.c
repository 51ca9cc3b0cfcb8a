/*
 * report-model.c: what every view of a result needs before it can show a
 * top-down tree — which CPU model the recording belongs to, which of its
 * events are the model's, and each event's value for the whole run or for
 * one row. Shared by the report, check/diff and the TUI.
 */
#include "config.h"

#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mux/mux.h"
#include "topdown/topdown.h"
#include "util/util.h"

bool report_evsel_sampled(const struct perf_event_attr *a)
{
	return a->freq || a->sample_period > 0;
}

char *report_model_id(const struct pd_env *env, const struct gx_meta *meta, const char *cpu)
{
	struct td_cpu c = { 0 };
	char vendor[16];
	unsigned fam, mod;

	if (cpu)
		return xstrdup(cpu);
	if (meta && meta->cpu_model)
		return xstrdup(meta->cpu_model);
	/* perf's x86 CPUID feature: "GenuineIntel,6,85,4" */
	if (env && env->cpuid && sscanf(env->cpuid, "%15[^,],%u,%u", vendor, &fam, &mod) == 3) {
		c.arch = TD_CPU_X86;
		snprintf(c.vendor, sizeof(c.vendor), "%s", vendor);
		c.family = fam;
		c.model = mod;
		return td_model_match(&c, NULL);
	}
	return xstrdup("generic");
}

int report_model__init(struct report_model *rm, struct perf_reader *r, const struct gx_meta *meta,
		       const char *cpu, int smt, char **cause)
{
	size_t n = perf_reader__nr_evsels(r);
	char *id = report_model_id(perf_reader__env(r), meta, cpu);
	int cyc, err;

	memset(rm, 0, sizeof(*rm));
	rm->clk_evsel = -1;
	rm->id = id;
	err = td_model__load(id, NULL, &rm->model, cause);
	if (err)
		return err;
	rm->ctx.smt = smt != TD_SMT_UNKNOWN ? smt :
		      !meta || meta->smt < 0 ? TD_SMT_UNKNOWN :
		      meta->smt ? TD_SMT_ON : TD_SMT_OFF;
	rm->ctx.variant = meta ? meta->cpu_variant : NULL;
	rm->nr_evsels = n;
	rm->ev = xcalloc(n + 1, sizeof(*rm->ev));
	cyc = td_model__find_event(rm->model, "cycles");
	for (size_t i = 0; i < n; i++) {
		const struct perf_event_attr *a = &perf_reader__evsel(r, i)->attr;

		rm->ev[i] = a->type == PERF_TYPE_SOFTWARE ? -1 :
			    td_model__find_event_attr(rm->model, a->type, a->config, a->config1);
		if (rm->ev[i] < 0)
			continue;
		rm->nr_matched++;
		if (rm->ev[i] == cyc && rm->clk_evsel < 0 && report_evsel_sampled(a))
			rm->clk_evsel = (int)i;
	}
	return rm->nr_matched ? 0 : 1;
}

void report_model__exit(struct report_model *rm)
{
	td_model__delete(rm->model);
	free(rm->ev);
	free(rm->id);
	memset(rm, 0, sizeof(*rm));
}

double report_evsel_run_value(struct perf_reader *r, const struct gx_meta *meta,
			      struct profile *p, size_t i, bool *counted)
{
	const struct gx_meta_event *e = meta && i < meta->nr_events ? &meta->events[i] : NULL;
	double x;

	*counted = false;
	if (e && e->has_estimate && isfinite(e->estimate)) {
		*counted = true;	/* rotated by gexplore: the slice log's estimate */
		return e->estimate;
	}
	if (e && e->has_count) {
		if (!e->time_running)
			return NAN;	/* never counted */
		*counted = true;
		x = (double)e->count;
		if (e->time_running < e->time_enabled)	/* the kernel multiplexed it */
			x *= (double)e->time_enabled / (double)e->time_running;
		return x;
	}
	if (!report_evsel_sampled(&perf_reader__evsel(r, i)->attr))
		return NAN;
	return (double)profile__total_period(p, i);
}

double report_evsel_row_value(struct perf_reader *r, const struct gx_meta *meta,
			      const struct mux_log *mux, const struct profile_row *row, size_t i)
{
	const struct gx_meta_event *e = meta && i < meta->nr_events ? &meta->events[i] : NULL;
	double scale = 1.0;

	if (!report_evsel_sampled(&perf_reader__evsel(r, i)->attr))
		return NAN;	/* counted, never sampled: no per-row value */
	/* multiplexed: the row was seen only while the event's group was on */
	if (mux)
		scale = mux_log__scale(mux, i);
	else if (e && e->has_estimate && isfinite(e->scale) && e->scale > 0)
		scale = e->scale;
	return (double)row->period[i] * scale;
}

void report_model__counts(const struct report_model *rm, const double *evsel_values, double *c)
{
	for (size_t i = 0; i < td_model__nr_events(rm->model); i++)
		c[i] = NAN;
	for (size_t i = 0; i < rm->nr_evsels; i++) {
		int k = rm->ev[i];

		if (k < 0 || isnan(evsel_values[i]))
			continue;
		c[k] = isnan(c[k]) ? evsel_values[i] : c[k] + evsel_values[i];
	}
}

double report_row_reliability(const struct report_input *in, const struct profile_row *r)
{
	return in->mux ? mux_log__row_reliability(in->mux, r->slot_period) : NAN;
}

int report_mux_open(const char *dir, const struct gx_meta *meta, size_t nr_evsels,
		    struct mux_log **out, char **cause)
{
	char *path;
	int *group, err;

	*out = NULL;
	if (!dir || !meta || !meta->mux.slice_log || meta->mux.reference < 0 ||
	    (size_t)meta->mux.reference >= nr_evsels)
		return 0;
	path = xasprintf("%s/%s", dir, meta->mux.slice_log);
	err = mux_log__read(out, path, cause);
	free(path);
	if (err)
		return err;
	group = xcalloc(meta->nr_events + 1, sizeof(*group));
	for (size_t i = 0; i < meta->nr_events; i++)
		group[i] = meta->events[i].group;
	mux_log__set_groups(*out, group, meta->nr_events);
	free(group);
	return 0;
}

void report_mux_slots(struct mux_log *l, const struct gx_meta *meta, struct profile_opts *po)
{
	po->slot_of = mux_log__group_at;
	po->slot_ctx = l;
	po->nr_slots = mux_log__nr_groups(l);
	po->slot_event = (size_t)meta->mux.reference;
}
