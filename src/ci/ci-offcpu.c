/*
 * ci-offcpu.c: off_cpu_share, the off-CPU metric of check and diff, from a
 * result recorded with --off-cpu (see ci.h).
 */
#include "config.h"

#include "ci.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "result/result.h"

bool ci_is_offcpu_metric(const char *metric)
{
	return !strcasecmp(metric, "off_cpu_share");
}

static uint64_t life_ns(const struct profile_off_thread *t)
{
	uint64_t l = t->end > t->start ? t->end - t->start : 0;

	return l > t->off_ns ? l : t->off_ns;
}

/* The comm of the process pid: its main thread's, else "". */
static const char *proc_comm(struct profile_offcpu *oc, uint32_t pid)
{
	for (size_t i = 0; i < profile_offcpu__nr_threads(oc); i++) {
		const struct profile_off_thread *t = profile_offcpu__thread(oc, i);

		if (t->tid == pid)
			return t->comm;
	}
	return "";
}

int ci_offcpu_metric(struct gx_result *r, const struct ci_row *row, const char *metric,
		     double *value, char **cause)
{
	struct profile_offcpu *oc = gx_result__offcpu(r);
	uint64_t life = 0, off = 0, all = 0;

	*value = NAN;
	if (!ci_is_offcpu_metric(metric))
		return -ENOENT;
	if (!oc || !profile_offcpu__has_switches(oc))
		return gx_fail(cause, CI_CANNOT_MEASURE, "%s: %s has no context switches; record "
			       "it with --off-cpu", metric, gx_result__path(r));
	for (size_t i = 0; i < profile_offcpu__nr_threads(oc); i++) {
		const struct profile_off_thread *t = profile_offcpu__thread(oc, i);
		bool in;

		all += life_ns(t);
		switch (row->scope) {
		case CI_SCOPE_THREAD:
			in = t->tid == row->tid;
			break;
		case CI_SCOPE_PROCESS:	/* rows by command: every process so named */
			in = !strcmp(proc_comm(oc, t->pid), row->name);
			break;
		default:
			in = true;
			break;
		}
		if (in) {
			life += life_ns(t);
			off += t->off_ns;
		}
	}
	if (row->scope == CI_SCOPE_FUNCTION) {
		/* the function row's own off-CPU value, with its callees */
		off = row->prow ? row->prow->total_period[gx_result__offcpu_value(r)] : 0;
		life = all;
	} else if (row->scope == CI_SCOPE_MODULE) {
		return gx_fail(cause, CI_CANNOT_MEASURE, "%s: not measured per module (run, "
			       "process, thread or function)", metric);
	}
	if (!life)
		return gx_fail(cause, CI_CANNOT_MEASURE, "%s: %s has no thread time", metric,
			       row->name && *row->name ? row->name : "the run");
	*value = (double)off / (double)life;
	return 0;
}
