/*
 * record-mux.c: multiplexing around a recording — the --slice, --mux
 * and --mux-runs options turned into collect options before the run, and
 * the slice log turned into estimates, reliability and warnings in
 * meta.json after it. The analysis itself is src/mux's.
 */
#include "config.h"

#include "record.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record-int.h"
#include "collect/collect.h"
#include "mux/mux.h"
#include "perfdata/perfdata.h"
#include "util/util.h"

struct record_mux {
	enum mux_mode mode;
	uint32_t slice_ms;
	char *spec;		/* the event list the (first) session opens */
	char **runs;		/* --mux-runs: one list per group */
	size_t nr_runs;
	size_t nr_groups;
	char *slice_path;
	struct collect_slice_sink *sink;	/* collect writes the slice log through it */
	bool watch;		/* no groups: the kernel's multiplexing, if any, observed */
	struct record_opts ro;	/* for the other --mux-runs runs */
	const struct record_notice *nt;	/* __finish's */
};

/* The kernel's multiplexing read every slice length into the slice log. */
static void kernel_log(struct record_mux *rm, struct record_opts *ro, const char *dir, int dirfd)
{
	rm->slice_path = xasprintf("%s/slices.bin", dir);
	ro->collect.kernel_slices = true;
	ro->collect.slice_ms = rm->slice_ms;
	rm->sink = mux_log_sink__new(dirfd, "slices.bin");
	ro->collect.slice_sink = rm->sink;
	/* the drain loop wakes for each period itself, only when it logs */
}

int record_mux__setup(struct record_mux **out, struct record_opts *ro, const char *dir, int dirfd,
		      char **cause)
{
	struct record_mux *rm;
	enum mux_mode mode = MUX_MODE_GEXPLORE;
	char *spec = NULL;
	size_t ng = 0;

	*out = NULL;
	if (ro->mux && mux_mode_parse(ro->mux, &mode) != 0)
		return gx_fail(cause, GX_E_USAGE, "--mux: '%s' is not gexplore or kernel", ro->mux);
	if (ro->mux && ro->mux_runs)
		return gx_fail(cause, GX_E_USAGE, "--mux and --mux-runs exclude each other: "
			       "--mux-runs does not multiplex");
	if (ro->mux_runs)
		mode = MUX_MODE_RUNS;
	if (!ro->collect.events)
		return 0;
	if (mux_spec_normalize(ro->collect.events, NULL, &spec, &ng, cause) != 0)
		return GX_E_USAGE;
	if (ng < 2) {
		free(spec);
		/* one group or none: nothing rotates, but more events than
		 * counters are the kernel's to multiplex: its periods are
		 * logged (collect does when some event is on a PMU) */
		if (mode == MUX_MODE_RUNS || !strchr(ro->collect.events, ','))
			return 0;
		rm = xzalloc(sizeof(*rm));
		rm->mode = MUX_MODE_NONE;
		rm->watch = true;
		rm->slice_ms = ro->slice_ms ? ro->slice_ms : MUX_DEFAULT_SLICE_MS;
		kernel_log(rm, ro, dir, dirfd);
		rm->ro = *ro;
		*out = rm;
		return 0;
	}
	rm = xzalloc(sizeof(*rm));
	rm->mode = mode;
	rm->nr_groups = ng;
	rm->slice_ms = ro->slice_ms ? ro->slice_ms : MUX_DEFAULT_SLICE_MS;
	rm->spec = spec;
	if (mode == MUX_MODE_RUNS) {
		if (mux_spec_split_runs(spec, &rm->runs, &rm->nr_runs, cause) != 0) {
			record_mux__delete(rm);
			return GX_E_USAGE;
		}
		ro->collect.events = rm->runs[0];
	} else {
		ro->collect.events = rm->spec;
	}
	if (mode == MUX_MODE_GEXPLORE) {
		rm->slice_path = xasprintf("%s/slices.bin", dir);
		ro->collect.rotate = true;
		ro->collect.slice_ms = rm->slice_ms;
		rm->sink = mux_log_sink__new(dirfd, "slices.bin");
		ro->collect.slice_sink = rm->sink;
		/* wake at least once per slice even when no sample arrives */
		if (!ro->collect.round_ms || ro->collect.round_ms > rm->slice_ms)
			ro->collect.round_ms = rm->slice_ms;
	} else if (mode == MUX_MODE_KERNEL) {
		kernel_log(rm, ro, dir, dirfd);
	}
	rm->ro = *ro;
	*out = rm;
	return 0;
}

void record_mux__delete(struct record_mux *rm)
{
	if (!rm)
		return;
	mux_strv_free(rm->runs);
	mux_log_sink__delete(rm->sink);
	GX_FREE(rm->spec, rm->slice_path, rm);
}

static void warn(const struct record_mux *rm, struct gx_meta *meta, bool quiet, const char *msg)
{
	if (!quiet)
		record_notice__say(rm->nt, RECORD_WARN, "%s", msg);
	gx_meta__add_warning(meta, "%s", msg);
}

/* ---- the modes -------------------------------------------------------------------- */

static int finish_rotation(struct record_mux *rm, const struct collect_session *s,
			   struct gx_meta *meta, const char *dir, bool quiet)
{
	size_t n = collect_session__nr_events(s);
	int *group = xcalloc(n + 1, sizeof(*group));
	struct mux_log *log = NULL;
	struct mux_estimate est;
	char *cause = NULL, *hint;
	int err;

	for (size_t i = 0; i < n; i++)
		group[i] = collect_session__event(s, i)->group;
	err = mux_log__read(&log, rm->slice_path, &cause);
	if (err)
		goto out_err;
	mux_log__set_groups(log, group, n);
	err = mux_log__estimate(log, &est, &cause);
	if (err)
		goto out_err;
	meta->mux.slice_log = xstrdup("slices.bin");
	meta->mux.nr_slices = mux_log__nr_slices(log);
	meta->mux.min_slices = (uint32_t)est.min_slices;
	meta->mux.reference = mux_log__reference(log);
	meta->mux.reliability = est.reliability;
	for (size_t e = 0; e < n && e < meta->nr_events && e < est.nr_events; e++) {
		struct gx_meta_event *me = &meta->events[e];

		me->has_estimate = true;
		me->estimate = est.ev[e].value;
		me->estimate_lo = est.ev[e].lo;
		me->estimate_hi = est.ev[e].hi;
		me->scale = est.ev[e].scale;
	}
	hint = mux_estimate__hint(&est, rm->slice_ms);
	if (hint)
		warn(rm, meta, quiet, hint);
	free(hint);
	if (!isnan(est.reliability) && est.reliability < MUX_UNRELIABLE) {
		char *w = xasprintf("MUX reliability %.2f is low: the workload changed while the groups took turns; run longer, use shorter slices (--slice), or --mux-runs",
				    est.reliability);

		warn(rm, meta, quiet, w);
		free(w);
	}
	if (!quiet) {
		if (isnan(est.reliability))
			record_notice__say(rm->nt, RECORD_INFO, "multiplexed %zu groups in %zu slices of %u ms; MUX reliability n/a (no reference event)",
				est.nr_groups, mux_log__nr_slices(log), rm->slice_ms);
		else
			record_notice__say(rm->nt, RECORD_INFO, "multiplexed %zu groups in %zu slices of %u ms; MUX reliability %.2f (%s)",
				est.nr_groups, mux_log__nr_slices(log), rm->slice_ms, est.reliability,
				mux_reliability_word(est.reliability));
	}
	mux_estimate__exit(&est);
	mux_log__delete(log);
	free(group);
	return 0;
out_err:
	{
		char *w = xasprintf("multiplexing: no estimates: %s", cause ? cause : gx_strerror(err));

		warn(rm, meta, quiet, w);
		free(w);
	}
	mux_log__delete(log);
	free(cause);
	free(group);
	return 0;
}

/*
 * The kernel's multiplexing: every count scaled by the one rule; an event
 * it multiplexed gets its interval and MUX reliability from the periods
 * collect logged (mux_log__kernel_estimate), one it never did is exact.
 * Without the log (no PMU event, a failed read) the multiplexed ones get
 * no interval. With rm->watch (no groups) nothing is kept unless the
 * kernel multiplexed something. The run's reliability is the first
 * multiplexed event's (the list's first, cycles, when it was).
 */
static void finish_kernel(struct record_mux *rm, struct gx_meta *meta, bool quiet)
{
	struct mux_log *log = NULL;
	char *cause = NULL;
	bool any = false;

	meta->mux.reliability = NAN;
	for (size_t e = 0; e < meta->nr_events; e++) {
		const struct gx_meta_event *me = &meta->events[e];
		struct gx_scaled sc;

		if (!me->has_count)
			continue;
		gx_scale((double)me->count, (double)me->time_enabled, (double)me->time_running, &sc);
		any |= sc.multiplexed;
	}
	if (rm->slice_path && access(rm->slice_path, F_OK) == 0) {
		if (rm->watch && !any) {
			unlink(rm->slice_path);	/* the kernel multiplexed nothing */
		} else if (mux_log__read(&log, rm->slice_path, &cause) != 0) {
			char *w = xasprintf("multiplexing: no intervals: %s", cause);

			warn(rm, meta, quiet, w);
			free(w);
			free(cause);
			log = NULL;
		}
	}
	if (rm->watch && !any)
		return;
	if (rm->watch) {
		free(meta->mux.mode);
		meta->mux.mode = xstrdup(mux_mode_name(MUX_MODE_KERNEL));
		meta->mux.nr_groups = 0;
	}
	meta->mux.reference = -1;
	if (log) {
		meta->mux.slice_ms = rm->slice_ms;
		meta->mux.slice_log = xstrdup("slices.bin");
		meta->mux.nr_slices = mux_log__nr_kernel(log);
	}
	for (size_t e = 0; e < meta->nr_events; e++) {
		struct gx_meta_event *me = &meta->events[e];
		struct mux_kernel_estimate ke;
		struct gx_scaled sc;

		if (!me->has_count)
			continue;
		gx_scale((double)me->count, (double)me->time_enabled, (double)me->time_running, &sc);
		me->has_estimate = true;
		me->scale = sc.scale;
		me->estimate = sc.value;
		/* exact when it never left its counter; else its interval from
		 * the periods, none without them */
		me->estimate_lo = me->estimate_hi = sc.multiplexed ? NAN : sc.value;
		if (!log || !sc.multiplexed || e >= mux_log__nr_events(log))
			continue;
		mux_log__kernel_estimate(log, e, (double)me->count, (double)me->time_enabled,
					 (double)me->time_running, &ke);
		me->estimate_lo = ke.lo;
		me->estimate_hi = ke.hi;
		me->has_reliability = true;
		me->reliability = ke.reliability;
		if (isnan(meta->mux.reliability))
			meta->mux.reliability = ke.reliability;
	}
	mux_log__delete(log);
}

static int null_record(struct collect_sink *s, const void *rec, size_t len)
{
	(void)s;
	(void)rec;
	(void)len;
	return 0;
}

static double differs(double a, double b)
{
	return a > 0 ? fabs(b - a) / a : (b > 0 ? 1.0 : 0.0);
}

static int finish_runs(struct record_mux *rm, const struct collect_session *s0,
		       struct gx_meta *meta, bool quiet)
{
	const struct collect_stats *st0 = collect_session__stats(s0);
	double dur0 = (double)(st0->end_ns - st0->start_ns) / 1e9;
	const struct collect_event *ref0 = collect_session__event(s0, 0);
	double refc0 = ref0 && ref0->has_count ? (double)ref0->count : 0;
	int ret = 0;

	for (size_t e = 0; e < meta->nr_events; e++) {
		meta->events[e].has_estimate = meta->events[e].has_count;
		meta->events[e].estimate = meta->events[e].estimate_lo =
			meta->events[e].estimate_hi = (double)meta->events[e].count;
		meta->events[e].scale = 1.0;
	}
	for (size_t r = 1; r < rm->nr_runs; r++) {
		struct record_opts ro = rm->ro;
		struct collect_session *s = NULL;
		struct collect_sink sink = { null_record, NULL, NULL };
		char *cause = NULL;
		const struct collect_stats *st;
		double dur, refc;

		ro.collect.events = rm->runs[r];
		ro.collect.rotate = false;
		if (collect_session__new(&s, &ro.collect, &cause) != 0 ||
		    collect_session__run(s, &sink, &cause) != 0) {
			record_notice__say(rm->nt, RECORD_ERROR, "--mux-runs: run %zu: %s", r + 1,
					   cause ? cause : "failed");
			free(cause);
			collect_session__delete(s);
			ret = -EIO;
			continue;
		}
		st = collect_session__stats(s);
		dur = (double)(st->end_ns - st->start_ns) / 1e9;
		refc = 0;
		for (size_t i = 0; i < collect_session__nr_events(s); i++) {
			const struct collect_event *ce = collect_session__event(s, i);
			struct gx_meta_event *me;

			if (ce->group < 0) {
				if (i == 0 && ce->has_count)
					refc = (double)ce->count;
				continue;
			}
			meta->events = xrealloc(meta->events,
						(meta->nr_events + 2) * sizeof(*meta->events));
			me = &meta->events[meta->nr_events++];
			memset(me, 0, sizeof(*me));
			me->name = xstrdup(ce->name);
			me->encoding = xasprintf("type=%u config=0x%" PRIx64, ce->attr.type,
						 (uint64_t)ce->attr.config);
			me->sav = ce->attr.freq ? 0 : ce->attr.sample_period;
			me->group = (int)r;
			me->has_count = ce->has_count;
			me->count = ce->count;
			me->time_enabled = ce->time_enabled;
			me->time_running = ce->time_running;
			me->has_estimate = ce->has_count;
			me->estimate = me->estimate_lo = me->estimate_hi = (double)ce->count;
			me->scale = 1.0;
		}
		if (differs(dur0, dur) > 0.10 || differs(refc0, refc) > 0.10) {
			char *w = xasprintf("--mux-runs: run %zu differs from run 1 by more than 10%% (%.3f s vs %.3f s, reference %.0f vs %.0f): the workload does not repeat itself, so the groups' counts do not combine well",
					    r + 1, dur, dur0, refc, refc0);

			warn(rm, meta, quiet, w);
			free(w);
		}
		if (st->term_signal || (st->exited && st->exit_code))
			gx_meta__add_warning(meta, "--mux-runs: run %zu ended with status %d",
					     r + 1, st->term_signal ? 128 + st->term_signal : st->exit_code);
		collect_session__delete(s);
	}
	return ret;
}

int record_mux__finish(struct record_mux *rm, const struct collect_session *s,
		       struct gx_meta *meta, const char *dir, bool quiet,
		       const struct record_notice *nt)
{
	const struct collect_stats *st = collect_session__stats(s);
	int ret = 0;

	rm->nt = nt;
	if (rm->watch) {
		finish_kernel(rm, meta, quiet);
		return 0;
	}
	meta->mux.mode = xstrdup(mux_mode_name(rm->mode));
	meta->mux.nr_groups = (uint32_t)rm->nr_groups;
	meta->mux.reference = 0;
	switch (rm->mode) {
	case MUX_MODE_GEXPLORE:
		meta->mux.slice_ms = rm->slice_ms;
		if (st->nr_groups)
			ret = finish_rotation(rm, s, meta, dir, quiet);
		break;
	case MUX_MODE_KERNEL:
		finish_kernel(rm, meta, quiet);
		break;
	case MUX_MODE_RUNS:
		ret = finish_runs(rm, s, meta, quiet);
		break;
	default:
		break;
	}
	return ret;
}
