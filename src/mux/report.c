/*
 * report.c: the multiplexing block a report shows next to its metric
 * sets, rendered from meta.json alone (so any reader of a result can show
 * it without the slice log).
 */
#include "config.h"

#include "mux/mux.h"

#include <math.h>
#include <string.h>

#include "perfdata/perfdata.h"

void mux_meta__render(const struct gx_meta *meta, struct strbuf *sb)
{
	const struct gx_meta_mux *x = &meta->mux;

	if (!x->mode || !strcmp(x->mode, "none"))
		return;
	if (!strcmp(x->mode, "kernel") && !x->nr_groups)
		strbuf__addstr(sb, "Multiplexing: kernel (more events than counters)");
	else
		strbuf__addf(sb, "Multiplexing: %s, %u groups", x->mode, x->nr_groups);
	if (!strcmp(x->mode, "kernel") && x->nr_slices)
		strbuf__addf(sb, ", read in %llu periods of %u ms",
			     (unsigned long long)x->nr_slices, x->slice_ms);
	if (!strcmp(x->mode, "gexplore"))
		strbuf__addf(sb, ", %llu slices of %u ms (fewest per group: %u)",
			     (unsigned long long)x->nr_slices, x->slice_ms, x->min_slices);
	strbuf__addstr(sb, "\n");
	strbuf__addstr(sb, "MUX reliability: ");
	if (isnan(x->reliability))
		strbuf__addstr(sb, "n/a");
	else
		strbuf__addf(sb, "%.2f", x->reliability);
	strbuf__addf(sb, " (%s)\n", mux_reliability_word(x->reliability));
	for (size_t e = 0; e < meta->nr_events; e++) {
		const struct gx_meta_event *me = &meta->events[e];
		struct strbuf v = STRBUF_INIT;

		if (!me->has_estimate)
			continue;
		mux_format_interval(&v, me->estimate,
				    me->estimate_lo == me->estimate_hi ? NAN : me->estimate_lo,
				    me->estimate_lo == me->estimate_hi ? NAN : me->estimate_hi, false);
		strbuf__addf(sb, "  %-24s %-36s", me->name ? me->name : "?", v.buf ? v.buf : "");
		if (!strcmp(x->mode, "kernel")) {
			/* the kernel's multiplexing: exact, or its reliability */
			if (me->estimate_lo == me->estimate_hi && me->estimate_lo == me->estimate)
				strbuf__addstr(sb, " exact");
			else
				strbuf__addf(sb, " x%.2f", me->scale);
			if (me->has_reliability && !isnan(me->reliability))
				strbuf__addf(sb, ", reliability %.2f (%s)", me->reliability,
					     mux_reliability_word(me->reliability));
			else if (!(me->estimate_lo == me->estimate_hi))
				strbuf__addstr(sb, ", reliability n/a");
		} else if (me->group >= 0) {
			strbuf__addf(sb, " group %d, x%.2f", me->group + 1, me->scale);
		} else {
			strbuf__addstr(sb, " always on");
		}
		strbuf__addstr(sb, "\n");
		strbuf__exit(&v);
	}
}


json_t *mux_meta__to_json(const struct gx_meta *meta)
{
	const struct gx_meta_mux *x = &meta->mux;
	json_t *o, *evs;

	if (!x->mode)
		return NULL;
	o = json_object();
	evs = json_array();
	json_object_set_new(o, "mode", json_string(x->mode));
	json_object_set_new(o, "groups", json_integer(x->nr_groups));
	json_object_set_new(o, "slice_ms", json_integer(x->slice_ms));
	json_object_set_new(o, "slices", json_integer((json_int_t)x->nr_slices));
	json_object_set_new(o, "min_slices", json_integer(x->min_slices));
	json_object_set_new(o, "reliability", pd_json_real(x->reliability));
	json_object_set_new(o, "reliability_word", json_string(mux_reliability_word(x->reliability)));
	for (size_t e = 0; e < meta->nr_events; e++) {
		const struct gx_meta_event *me = &meta->events[e];
		json_t *j;

		if (!me->has_estimate)
			continue;
		j = json_object();
		json_object_set_new(j, "name", json_string(me->name ? me->name : ""));
		json_object_set_new(j, "group", json_integer(me->group));
		json_object_set_new(j, "estimate", pd_json_real(me->estimate));
		/* the keys meta.json gives them (gexplore-result(5)) */
		json_object_set_new(j, "estimate_lo", pd_json_real(me->estimate_lo));
		json_object_set_new(j, "estimate_hi", pd_json_real(me->estimate_hi));
		json_object_set_new(j, "scale", pd_json_real(me->scale));
		/* exact: the count itself (never multiplexed, or --mux-runs) */
		json_object_set_new(j, "exact", json_boolean(me->estimate_lo == me->estimate &&
							     me->estimate_hi == me->estimate));
		if (me->has_reliability)
			json_object_set_new(j, "reliability", pd_json_real(me->reliability));
		json_array_append_new(evs, j);
	}
	json_object_set_new(o, "events", evs);
	return o;
}
