/*
 * record.c: what a recording opens for a model — the event list, in the
 * collector's -e syntax (perf's), each event with its own SAV.
 */
#include "config.h"

#include "topdown-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void td_event__spec(const struct td_event *e, struct strbuf *spec)
{
	if (e->has_raw && e->raw_type == 4 /* PERF_TYPE_RAW: the core PMU */) {
		strbuf__addf(spec, "cpu/config=0x%" PRIx64, e->raw_config);
		if (e->raw_config1)
			strbuf__addf(spec, ",config1=0x%" PRIx64, e->raw_config1);
		strbuf__addf(spec, ",period=%" PRIu64 "/", e->sav);
	} else if (e->perf && !strncmp(e->perf, "cpu/", 4) &&
		   e->perf[strlen(e->perf) - 1] == '/') {
		strbuf__add(spec, e->perf, strlen(e->perf) - 1);
		strbuf__addf(spec, ",period=%" PRIu64 "/", e->sav);
	} else if (e->perf && (!strcmp(e->perf, "cycles") || !strcmp(e->perf, "instructions"))) {
		strbuf__addstr(spec, e->perf);	/* the collector's default SAV */
	} else if (e->pfm) {
		strbuf__addstr(spec, e->pfm);
	} else {
		strbuf__addstr(spec, e->id);
	}
}

int td_model__record_events(const struct td_model *m, const struct td_ctx *ctx, int max_level,
			    char **spec_out, size_t *nr_left_out, char **cause)
{
	struct strbuf spec = STRBUF_INIT;
	int *idx = NULL, gp, fixed, gp_used = 0, fixed_used = 0;
	size_t n = 0, left = 0;
	int err;

	*spec_out = NULL;
	err = td_model__needed_events(m, ctx, max_level, &idx, &n);
	if (err)
		return gx_fail(cause, err, "model %s: cannot list its events", m->id);
	gp = ctx && ctx->smt == TD_SMT_ON ? m->gp_smt_on : m->gp_smt_off;
	fixed = m->fixed;
	for (size_t i = 0; i < n; i++) {
		const struct td_event *e = &m->events[idx[i]];

		/* PERF_METRICS events need a slots-led group that cannot
		 * sample: left to the multiplexing planner. */
		if (e->group_hint) {
			left++;
			continue;
		}
		if (e->fixed && fixed_used < fixed) {
			fixed_used++;
		} else if (gp_used < gp) {
			gp_used++;
		} else {
			left++;
			continue;
		}
		if (spec.len)
			strbuf__addstr(&spec, ",");
		td_event__spec(e, &spec);
	}
	free(idx);
	if (!spec.len)
		return gx_fail(cause, -ENOENT, "model %s: no event fits the counters", m->id);
	*spec_out = strbuf__detach(&spec);
	if (nr_left_out)
		*nr_left_out = left;
	return 0;
}
