/*
 * scale.c: the one scaling rule of multiplexed counts (util.h). Every path
 * that turns what an event saw while it counted into an estimate of the
 * whole run comes here: gexplore's rotation (the run's time over its
 * group's), the kernel's (a counting read's enabled over running), group
 * reads carried by samples (PERF_SAMPLE_READ), results written by perf,
 * and perf stat's printed counts (topdown --counts).
 */
#include "config.h"

#include "util/util.h"

#include <math.h>

void gx_scale(double count, double enabled, double running, struct gx_scaled *out)
{
	out->value = out->scale = out->running = NAN;
	out->multiplexed = false;
	if (!(enabled > 0) || isnan(running)) {
		/* no times: a count that never left its counter as far as
		 * anyone can tell */
		out->value = count;
		out->scale = 1.0;
		return;
	}
	if (!(running > 0))
		return;		/* enabled but never counted: n/a */
	if (running >= enabled) {
		/* a clock read a little apart from another can pass it */
		out->value = count;
		out->scale = 1.0;
		out->running = 1.0;
		return;
	}
	out->scale = enabled / running;
	out->value = count * out->scale;
	out->running = running / enabled;
	out->multiplexed = out->running < GX_FULL_RUNNING;
}

void gx_scale_printed(double value, double enabled, double running, struct gx_scaled *out)
{
	double count = value;

	/* perf scaled exactly when gx_scale does: running < enabled */
	if (enabled > 0 && running > 0 && running < enabled)
		count = value * (running / enabled);
	gx_scale(count, enabled, running, out);
}

double gx_scale_factor(double enabled, double running)
{
	struct gx_scaled s;

	gx_scale(1.0, enabled, running, &s);
	return s.scale;
}

char *gx_running_warning(const char *name, double running)
{
	if (isnan(running) || running >= GX_LOW_RUNNING)
		return NULL;
	return xasprintf("%s counted only %.2f%% of the run (multiplexed): its estimate "
			 "extrapolates from that share; give it fewer companions (fewer events "
			 "or groups) or --mux-runs", name, 100 * running);
}

void gx_format_running(struct strbuf *sb, double running)
{
	if (!isnan(running) && running < GX_FULL_RUNNING)
		strbuf__addf(sb, "(%.2f%%)", 100 * running);
}
