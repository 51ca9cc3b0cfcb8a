/*
 * test-mux-plan: invariants of the planner over every model, SMT on and
 * off, NMI watchdog on and off: every group fits its counters (masks
 * included), PERF_METRICS events only in the slots-led group, every needed
 * event planned exactly once, fixed events outside the rotation, and the
 * spec parses back into the same groups.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "mux/mux.h"
#include "tap.h"
#include "topdown/topdown.h"

static void check_model(const char *id, bool smt, bool nmi)
{
	struct td_model *m = NULL;
	struct td_ctx ctx = { .smt = smt ? TD_SMT_ON : TD_SMT_OFF };
	struct mux_counters c;
	struct mux_plan p;
	char *cause = NULL, *spec;
	int *need = NULL, errs = 0;
	size_t nr_need;

	if (td_model__load(id, NULL, &m, &cause)) {
		ok(0, "%s: load: %s", id, cause);
		free(cause);
		return;
	}
	mux_counters__detect(&c, m, smt, nmi, false);
	if (mux_plan__model(&p, m, &ctx, &c, &cause)) {
		ok(0, "%s: plan: %s", id, cause);
		free(cause);
		td_model__delete(m);
		return;
	}
	td_model__needed_events(m, &ctx, -1, &need, &nr_need);
	is_int(p.nr_ev, nr_need, "%s smt=%d nmi=%d: every needed event planned", id, smt, nmi);
	for (size_t g = 0; g < p.nr_groups; g++) {
		const struct mux_plan_group *gr = &p.groups[g];
		uint32_t used = 0;

		if (gr->gp_used > c.gp)
			errs++;
		for (size_t i = 0; i < gr->nr; i++) {
			const struct td_event *e = td_model__event(m, (size_t)gr->events[i]);
			bool pm = e->group_hint && !strcmp(e->group_hint, "perf_metrics");

			if (pm && !gr->perf_metrics)
				errs++;
			if (gr->perf_metrics && i == 0 && !e->fixed)
				errs++;	/* slots must lead */
			used |= mux_event_counter_mask(m, (size_t)gr->events[i], c.gp);
		}
		(void)used;
	}
	ok(!errs, "%s smt=%d nmi=%d: groups fit, PERF_METRICS only under slots", id, smt, nmi);
	for (size_t i = 0; i < p.nr_ev; i++)
		if (td_model__event(m, (size_t)p.ev[i].event)->fixed &&
		    !td_model__event(m, (size_t)p.ev[i].event)->group_hint && p.ev[i].group >= 0)
			errs++;
	ok(!errs, "%s: fixed-counter events stay outside the rotation", id);
	spec = mux_plan__spec(&p, m, MUX_SPELL_COLLECT);
	{
		struct collect_event *ev = NULL;
		size_t n = 0;
		int groups = 0;

		/* what record opens (libpfm4 names encode with LIBPFM_ENCODE_INACTIVE) */
		if (collect_parse_events(spec, NULL, &ev, &n, &cause) == 0) {
			for (size_t i = 0; i < n; i++)
				if (ev[i].group + 1 > groups)
					groups = ev[i].group + 1;
			is_int(groups, p.nr_groups, "%s: the spec parses back into %zu groups", id, p.nr_groups);
			is_int(n, p.nr_ev, "%s: ... holding every event", id);
			collect_events__free(ev, n);
		} else {
			ok(0, "%s: the spec record opens parses (%s)", id, cause);
			ok(0, "%s: ... holding every event", id);
			free(cause);
			cause = NULL;
		}
	}
	free(spec);
	free(need);
	mux_plan__exit(&p);
	td_model__delete(m);
}

int main(void)
{
	char **ids, *cause = NULL;
	struct mux_counters c;
	struct td_model *m;

	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);	/* before libpfm4 initializes */

	if (td_model_list(NULL, &ids, &cause))
		plan_skip_all("no models");
	for (char **id = ids; *id; id++)
		for (int smt = 0; smt < 2; smt++)
			for (int nmi = 0; nmi < 2; nmi++)
				check_model(*id, smt, nmi);
	td_strv_free(ids);
	if (td_model__load("skl", NULL, &m, &cause) == 0) {
		mux_counters__detect(&c, m, true, false, false);
		is_int(c.gp, 4, "skl SMT on: 4 general counters");
		mux_counters__detect(&c, m, false, false, false);
		is_int(c.gp, 8, "skl SMT off: 8");
		mux_counters__detect(&c, m, false, true, false);
		is_int(c.gp, 7, "skl SMT off, NMI watchdog: 7");
		td_model__delete(m);
	}
	if (td_model__load("icl", NULL, &m, &cause) == 0) {
		int e = td_model__find_event(m, "CYCLE_ACTIVITY.STALLS_TOTAL");

		ok(e >= 0 && mux_event_counter_mask(m, (size_t)e, 8) == 0x0f,
		   "icl: CYCLE_ACTIVITY.* restricted to counters 0-3");
		td_model__delete(m);
	}
	return done_testing();
}
