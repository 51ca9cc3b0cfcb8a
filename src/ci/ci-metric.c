/*
 * ci-metric.c: the rows of an opened result (src/result) that checks and
 * diffs look at — the run, its processes, modules and functions — and the
 * evaluation of one metric on one row, with the result's top-down model.
 *
 * Whole-run event totals come from meta.json: the multiplexing estimate
 * when there is one, else the exact counting reads, else the summed
 * sample periods; rows use their sample periods,
 * scaled by run time over the time the event's group was active.
 */
#include "config.h"

#include "ci.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mux/mux.h"
#include "result/result.h"
#include "topdown/topdown.h"

const char *ci_scope_name(enum ci_scope s)
{
	static const char *const names[] = { "run", "process", "module", "function", "thread" };

	return s < CI_SCOPE_NR_ ? names[s] : "?";
}

double ci_row_reliability(const struct gx_result *r, const struct ci_row *row)
{
	const struct gx_meta *meta = gx_result__meta(r);

	if (!meta || !meta->mux.mode)
		return 1.0;
	if (row && row->prow && gx_result__mux(r)) {
		double rel = gx_result__row_reliability(r, row->prow);

		if (!isnan(rel))
			return rel;
	}
	return isnan(meta->mux.reliability) ? 1.0 : meta->mux.reliability;
}

/* ---- rows ------------------------------------------------------------- */

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool scope_by(enum ci_scope scope, enum profile_by *by)
{
	switch (scope) {
	case CI_SCOPE_PROCESS:
		/* by command: the processes of one program are one row, and
		 * rows match across runs (pids differ) */
		*by = PROFILE_BY_COMMAND;
		return true;
	case CI_SCOPE_MODULE:
		*by = PROFILE_BY_MODULE;
		return true;
	case CI_SCOPE_THREAD:
		*by = PROFILE_BY_THREAD;
		return true;
	case CI_SCOPE_FUNCTION:
		*by = PROFILE_BY_FUNCTION;
		return true;
	default:
		return false;
	}
}

/* --off-cpu: threads that were never sampled (they waited) are rows too,
 * without a profile row: only off_cpu_share measures them. So is a thread
 * whose samples all came before it named itself (a sleeper sampled while
 * it started, under a load): its rows carry the old name, and its own was
 * "no thread with samples" (check exit 2). */
static void offcpu_threads(struct gx_result *r, struct ci_row **rows, size_t *nr, size_t cap)
{
	struct profile_offcpu *oc = gx_result__offcpu(r);
	size_t nt = oc ? profile_offcpu__nr_threads(oc) : 0, have = *nr;

	if (!nt)
		return;
	*rows = xrealloc(*rows, (cap + nt + 1) * sizeof(**rows));
	for (size_t i = 0; i < nt; i++) {
		const struct profile_off_thread *t = profile_offcpu__thread(oc, i);
		bool seen = false;

		for (size_t j = 0; j < have && !seen; j++)
			seen = (*rows)[j].tid == t->tid &&
			       (!t->comm || !(*rows)[j].name || !strcmp((*rows)[j].name, t->comm));
		if (seen)
			continue;
		(*rows)[*nr] = (struct ci_row){ .scope = CI_SCOPE_THREAD, .name = t->comm,
						.pid = t->pid, .tid = t->tid };
		(*nr)++;
	}
}

int ci_rows(struct gx_result *r, enum ci_scope scope, struct ci_row **rows,
		    size_t *nr, char **cause)
{
	const struct profile_row *const *pr;
	uint64_t total = profile__total_samples(gx_result__profile(r), gx_result__sort_event(r));
	/* an exact or modelled sort event has one sample an address: its
	 * share is by period */
	bool md = gx_result__nr_events(r) &&
		  gx_kind_fixed(gx_result__event(r, gx_result__sort_event(r))->kind);
	uint64_t total_p = md ? profile__total_period(gx_result__profile(r),
						      gx_result__sort_event(r)) : 0;
	enum profile_by by;
	size_t n, off = gx_result__offcpu_value(r);

	if (scope == CI_SCOPE_RUN) {
		*rows = xcalloc(1, sizeof(**rows));
		(*rows)[0].scope = CI_SCOPE_RUN;
		(*rows)[0].name = "";
		(*rows)[0].share = 1.0;
		if (gx_result__narrowed(r)) {	/* a region: its share of the run */
			uint64_t all = gx_result__run_samples(r, gx_result__sort_event(r));

			(*rows)[0].share = all ? (double)total / (double)all : 0;
		}
		*nr = 1;
		return 0;
	}
	if (!scope_by(scope, &by))
		return gx_fail(cause, GX_E_NOTSUP, "rows per %s are not available in this build",
			       ci_scope_name(scope));
	pr = profile__rows(gx_result__profile(r), by, gx_result__sort_event(r), &n);
	*rows = xcalloc(n + 1, sizeof(**rows));
	*nr = 0;
	for (size_t i = 0; i < n; i++) {
		struct ci_row *row = &(*rows)[*nr];

		/* a row that only waited is a row (off-CPU values) */
		if (!pr[i]->samples[gx_result__sort_event(r)] &&
		    (off == SIZE_MAX || !pr[i]->total_samples[off]))
			continue;
		row->scope = scope;
		row->name = pr[i]->name;
		row->pid = pr[i]->pid;
		row->tid = pr[i]->tid;
		row->prow = pr[i];
		if (md)
			row->share = total_p ? (double)pr[i]->period[gx_result__sort_event(r)] /
					       (double)total_p : 0;
		else
			row->share = total ? (double)pr[i]->samples[gx_result__sort_event(r)] /
					     (double)total : 0;
		if (scope == CI_SCOPE_FUNCTION) {
			/* where an annotation points: the function's hottest line */
			const struct profile_row *l = profile__hot_line(gx_result__profile(r), pr[i]->index,
									gx_result__sort_event(r));

			if (l && l->file && l->file[0] && l->line) {
				row->file = l->file;
				row->line = l->line;
			}
		}
		(*nr)++;
	}
	if (scope == CI_SCOPE_THREAD)
		offcpu_threads(r, rows, nr, n);
	return 0;
}

int ci_find_row(struct gx_result *r, enum ci_scope scope, const char *name,
			struct ci_row *row, char **cause)
{
	struct ci_row *rows;
	size_t nr;
	int err = ci_rows(r, scope, &rows, &nr, cause);

	if (err)
		return err;
	err = -ENOENT;
	/* exact name first, then a module's basename */
	for (int pass = 0; pass < 2 && err; pass++)
		for (size_t i = 0; i < nr; i++)
			if (!strcmp(pass ? basename_of(rows[i].name) : rows[i].name, name)) {
				*row = rows[i];
				err = 0;
				break;
			}
	free(rows);
	if (err)
		gx_fail(cause, -ENOENT, "%s: no %s '%s' with samples", gx_result__path(r),
			ci_scope_name(scope), name);
	return err;
}

/* ---- event values ------------------------------------------------------ */

/* The estimate of evsel i on a row, NAN when not measured; *samples is the
 * number of samples it rests on (UINT64_MAX for a counting read). */
static double evsel_value(const struct gx_result *r, const struct ci_row *row, size_t i,
			  uint64_t *samples)
{
	const struct gx_event *e = gx_result__event(r, i);
	double v;

	*samples = 0;
	if (!row->prow) {
		*samples = e->counted || e->source == GX_SOURCE_OFFCPU ? UINT64_MAX : e->samples;
		return e->run_value;
	}
	v = gx_result__row_value(r, row->prow, i);
	/* a wait's time is its whole, measured from two switch records, not
	 * a sample of it: no minimum of samples */
	if (!isnan(v))
		*samples = e->source == GX_SOURCE_OFFCPU ? UINT64_MAX : row->prow->samples[i];
	return v;
}

static const struct {
	const char *name;
	uint64_t config;
} hw_names[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

/* "cycles:u" and "cycles" name the same counter for our purpose. */
static bool name_eq(const char *recorded, const char *want)
{
	size_t n = strlen(want);

	return recorded && !strncasecmp(recorded, want, n) &&
	       (!recorded[n] || recorded[n] == ':' || recorded[n] == '/');
}

/* Does evsel i count the event called name? */
static bool evsel_is(const struct gx_result *r, size_t i, const char *name, int model_ev)
{
	const struct gx_event *e = gx_result__event(r, i);

	if (e->source != GX_SOURCE_PERIOD)	/* a value by its whole name */
		return !strcasecmp(e->name, name);
	if (name_eq(e->name, name))
		return true;
	if (model_ev >= 0 && gx_result__model_map(r)[i] == model_ev)
		return true;
	for (size_t k = 0; k < ARRAY_SIZE(hw_names); k++)
		if (!strcasecmp(hw_names[k].name, name))
			return e->attr->type == PERF_TYPE_HARDWARE &&
			       (e->attr->config & 0xffffffff) == hw_names[k].config;
	return false;
}

/* Linux's software events: names a recording may lack without the name
 * being a mistake. */
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "faults", "minor-faults", "major-faults",
	"context-switches", "cs", "cpu-migrations", "migrations", "alignment-faults",
	"emulation-faults",
};

static bool known_event_name(const struct gx_result *r, const char *name)
{
	for (size_t k = 0; k < ARRAY_SIZE(hw_names); k++)
		if (!strcasecmp(hw_names[k].name, name))
			return true;
	for (size_t k = 0; k < ARRAY_SIZE(sw_names); k++)
		if (!strcasecmp(sw_names[k], name))
			return true;
	for (size_t i = 0; i < gx_result__nr_events(r); i++)
		if (evsel_is(r, i, name, -1))
			return true;
	return gx_result__model_loaded(r) && td_model__find_event(gx_result__model_loaded(r), name) >= 0;
}

static char *event_list(const struct gx_result *r)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < gx_result__nr_events(r); i++) {
		const char *n = gx_result__event(r, i)->name;

		strbuf__addf(&sb, "%s%s", i ? ", " : "", n ? n : "?");
	}
	return strbuf__detach(&sb);
}

static const char *no_pmu_note(const struct gx_result *r)
{
	return gx_result__meta(r) && !gx_result__meta(r)->pmu ?
	       " (no PMU: hardware counters were unavailable where it was recorded; "
	       "`gexplore record --model` models CPI without them)" : "";
}

/* Is evsel i the same counter as an earlier one (mux's reference event is
 * often also a member of a group)? Then only the first is used; different
 * counters of one event (hybrid PMUs) add up. */
static bool evsel_repeats(const struct gx_result *r, size_t i)
{
	const struct perf_event_attr *a = gx_result__event(r, i)->attr;

	if (gx_result__event(r, i)->source != GX_SOURCE_PERIOD)
		return false;	/* values share no counter */
	for (size_t j = 0; j < i; j++) {
		const struct perf_event_attr *b = gx_result__event(r, j)->attr;

		if (a->type == b->type && a->config == b->config && a->config1 == b->config1)
			return true;
	}
	return false;
}

/*
 * Sum of every evsel counting `name` on a row: the copies of one event on
 * several core PMUs (hybrid cpu_core and cpu_atom) add up, values and
 * samples, never averaged. 0, or CI_CANNOT_MEASURE.
 */
static int event_value(const struct gx_result *r, const struct ci_row *row, const char *name,
		       double *value, uint64_t *samples, char **cause)
{
	int mev = gx_result__model_loaded(r) ? td_model__find_event(gx_result__model_loaded(r), name) : -1;
	bool found = false;

	*value = 0;
	*samples = 0;
	for (size_t i = 0; i < gx_result__nr_events(r); i++) {
		uint64_t s;
		double x;

		if (!evsel_is(r, i, name, mev) || evsel_repeats(r, i))
			continue;
		x = evsel_value(r, row, i, &s);
		if (isnan(x))
			continue;
		found = true;
		*value += x;
		*samples = s > UINT64_MAX - *samples ? UINT64_MAX : *samples + s;
	}
	if (!found) {
		char *list = event_list(r);

		gx_fail(cause, CI_CANNOT_MEASURE, "%s has no '%s' event (it has: %s)%s", gx_result__path(r),
			name, list, no_pmu_note(r));
		free(list);
		return CI_CANNOT_MEASURE;
	}
	return 0;
}

static int few_samples(const struct gx_result *r, const struct ci_row *row, uint64_t samples,
		       uint64_t min_samples, enum gx_kind kind, char **cause)
{
	/* exact and modelled counts: one sample an address, no sampling error */
	if (samples >= min_samples || gx_kind_fixed(kind))
		return 0;
	gx_fail(cause, CI_CANNOT_MEASURE, "too few samples: %llu in %s%s%s (--min-samples %llu)",
		(unsigned long long)samples, row->prow ? ci_scope_name(row->scope) : "the run",
		row->prow ? " " : "", row->prow ? row->name : "",
		(unsigned long long)min_samples);
	return CI_CANNOT_MEASURE;
}

/* A node of the model on a row. */
static int node_value(struct gx_result *r, const struct ci_row *row, int node,
		      uint64_t min_samples, double *value, char **cause)
{
	size_t ne = td_model__nr_events(gx_result__model_loaded(r)), n = gx_result__nr_events(r);
	double *c = xcalloc(ne + 1, sizeof(double)), *x = xcalloc(n + 1, sizeof(double));
	const struct td_value *v;
	struct td_result res;
	uint64_t ref_samples = UINT64_MAX;
	int ret = 0;

	/* every event's value on the row; copies of one event combine as the
	 * result combines them (one PMU, weighted by running share) */
	for (size_t i = 0; i < n; i++) {
		uint64_t s;

		x[i] = gx_result__model_map(r)[i] < 0 ? NAN : evsel_value(r, row, i, &s);
		if (i == gx_result__sort_event(r) && gx_result__model_map(r)[i] >= 0)
			ref_samples = s;
	}
	gx_result__model_counts(r, x, c);
	free(x);
	if (td_eval(gx_result__model_loaded(r), c, gx_result__ctx(r), &res, cause) != 0) {
		free(c);
		return -EINVAL;
	}
	v = &res.v[node];
	if (v->na) {
		ret = gx_fail(cause, CI_CANNOT_MEASURE,
			      "%s is n/a: %s lacks events the %s model needs for it%s",
			      td_model__node(gx_result__model_loaded(r), (size_t)node)->name, gx_result__path(r),
			      td_model__id(gx_result__model_loaded(r)), no_pmu_note(r));
	} else if (gx_result__model_map(r)[gx_result__sort_event(r)] >= 0 &&
		   (ret = few_samples(r, row, ref_samples, min_samples,
					  gx_result__model_kind(r), cause)) == 0) {
		*value = v->value;
	} else if (gx_result__model_map(r)[gx_result__sort_event(r)] < 0) {
		*value = v->value;
	}
	td_result__exit(&res);
	free(c);
	return ret;
}

/* Is name a node of any model? For the message that tells a metric this
 * recording cannot measure from a metric nobody has heard of. */
static bool node_of_any_model(const char *name)
{
	char **ids = NULL, *cause = NULL;
	bool found = false;

	if (td_model_list(NULL, &ids, &cause) != 0) {
		free(cause);
		return false;
	}
	for (size_t i = 0; ids[i] && !found; i++) {
		struct td_model *m;

		if (td_model__load(ids[i], NULL, &m, &cause) == 0) {
			found = td_model__find_node(m, name) >= 0;
			td_model__delete(m);
		}
		free(cause);
		cause = NULL;
	}
	td_strv_free(ids);
	return found;
}

/* Keep cand as the suggestion for metric when it is nearer: a name that
 * metric begins ("Frontend": Frontend_Bound) before one within 2 edits. */
static void suggest_one(const char *metric, const char *cand, char **best, size_t *bd)
{
	size_t len = strlen(metric), d;

	if (!cand)
		return;
	d = !strncasecmp(cand, metric, len) && len >= 3 ? 0 : 1 + gx_edit_distance(metric, cand, 2);
	if (d < *bd || (d == *bd && d == 0 && *best && strlen(cand) < strlen(*best))) {
		free(*best);
		*best = xstrdup(cand);
		*bd = d;
	}
}

/* "; did you mean 'Frontend_Bound'?" for an unknown metric: the nearest
 * of every model's metrics, cpi, ipc and r's events; "" when none is near.
 * Allocated. */
static char *suggest_metric(const struct gx_result *r, const char *metric)
{
	char **ids = NULL, *cause = NULL, *best = NULL, *s;
	size_t bd = 4;

	suggest_one(metric, "cpi", &best, &bd);
	suggest_one(metric, "ipc", &best, &bd);
	for (size_t i = 0; i < gx_result__nr_events(r); i++)
		suggest_one(metric, gx_result__event(r, i)->name, &best, &bd);
	if (td_model_list(NULL, &ids, &cause) == 0) {
		for (size_t i = 0; ids[i]; i++) {
			struct td_model *m;

			if (td_model__load(ids[i], NULL, &m, &cause) != 0)
				continue;
			for (size_t k = 0; k < td_model__nr_nodes(m); k++)
				suggest_one(metric, td_model__node(m, k)->name, &best, &bd);
			td_model__delete(m);
		}
		td_strv_free(ids);
	}
	free(cause);
	s = best ? xasprintf("; did you mean '%s'?", best) : xstrdup("");
	free(best);
	return s;
}

bool ci_metric_higher_is_better(const char *metric)
{
	return !strcasecmp(metric, "ipc") || !strcasecmp(metric, "retiring");
}

enum ci_unit ci_metric_unit(const struct gx_result *r, const char *metric)
{
	const struct td_model *m = gx_result__model_loaded(r);
	int node = m ? td_model__find_node(m, metric) : -1;
	size_t i;

	if (!strcasecmp(metric, "share") || ci_is_offcpu_metric(metric))
		return CI_UNIT_FRACTION;
	if (node >= 0)
		return td_model__node(m, (size_t)node)->unit == TD_UNIT_FRACTION ? CI_UNIT_FRACTION :
		       td_model__node(m, (size_t)node)->unit == TD_UNIT_COUNT ? CI_UNIT_COUNT :
									   CI_UNIT_RATIO;
	if (strchr(metric, '/') || !strcasecmp(metric, "cpi") || !strcasecmp(metric, "ipc"))
		return CI_UNIT_RATIO;
	if (gx_result__find_event(r, metric, &i) == 0 && !strcmp(gx_result__event(r, i)->unit, "ns"))
		return CI_UNIT_NS;
	return CI_UNIT_COUNT;
}

/* The join of the kinds of the events counting name; sampled when none. */
static enum gx_kind event_kind(const struct gx_result *r, const char *name)
{
	int mev = gx_result__model_loaded(r) ? td_model__find_event(gx_result__model_loaded(r), name) :
					       -1;
	enum gx_kind k = GX_KIND_SAMPLED;
	bool found = false;

	for (size_t i = 0; i < gx_result__nr_events(r); i++) {
		if (!evsel_is(r, i, name, mev))
			continue;
		k = found ? gx_kind_join(k, gx_result__event(r, i)->kind) : gx_result__event(r, i)->kind;
		found = true;
	}
	return k;
}

enum gx_kind ci_metric_kind(const struct gx_result *r, const char *metric)
{
	const struct td_model *m = gx_result__model_loaded(r);
	const char *slash = strchr(metric, '/');
	enum gx_kind k;

	if (!strcasecmp(metric, "share"))
		return gx_result__nr_events(r) ?
		       gx_result__event(r, gx_result__sort_event(r))->kind : GX_KIND_SAMPLED;
	if (ci_is_offcpu_metric(metric))
		return GX_KIND_SAMPLED;
	if (slash) {
		char *num = xstrndup(metric, (size_t)(slash - metric));

		k = gx_kind_join(event_kind(r, num), event_kind(r, slash + 1));
		free(num);
		return k;
	}
	if (m && td_model__find_node(m, metric) >= 0)
		return gx_result__model_kind(r);
	if (!strcasecmp(metric, "cpi") || !strcasecmp(metric, "ipc"))	/* no such node */
		return gx_kind_join(event_kind(r, "cycles"), event_kind(r, "instructions"));
	return event_kind(r, metric);
}

void ci_human(char *buf, size_t len, enum ci_unit u, bool sign, int extra, double x)
{
	static const char *const si[] = { "", " k", " M", " G", " T" };
	const char *plus = sign && x > 0 ? "+" : "";
	double ax = fabs(x);
	size_t k = 0;

	if (isnan(x)) {
		snprintf(buf, len, "-");
		return;
	}
	switch (u) {
	case CI_UNIT_FRACTION:
		x = gx_zero_below(100 * x, 1 + extra);	/* no "-0.0%" */
		snprintf(buf, len, "%s%.*f%%", x > 0 ? plus : "", 1 + extra, x);
		return;
	case CI_UNIT_NS:
		if (ax >= 1e9)
			snprintf(buf, len, "%s%.*g s", plus, 3 + extra, x / 1e9);
		else if (ax >= 1e6)
			snprintf(buf, len, "%s%.*g ms", plus, 3 + extra, x / 1e6);
		else if (ax >= 1e3)
			snprintf(buf, len, "%s%.*g us", plus, 3 + extra, x / 1e3);
		else
			snprintf(buf, len, "%s%.*g ns", plus, 3 + extra, x);
		return;
	case CI_UNIT_COUNT:
		while (ax >= 1000 && k + 1 < sizeof(si) / sizeof(si[0])) {
			ax /= 1000;
			x /= 1000;
			k++;
		}
		snprintf(buf, len, "%s%.*g%s", plus, 4 + extra, x, si[k]);
		return;
	default:
		snprintf(buf, len, "%s%.*g", plus, 4 + extra, x);
		return;
	}
}

int ci_metric(struct gx_result *r, const struct ci_row *row, const char *metric,
		      uint64_t min_samples, double *value, char **cause)
{
	const char *slash = strchr(metric, '/');
	bool cpi = !strcasecmp(metric, "cpi"), ipc = !strcasecmp(metric, "ipc");
	int node = gx_result__model_loaded(r) ? td_model__find_node(gx_result__model_loaded(r), metric) : -1;
	uint64_t sa, sb;
	double a, b;
	int err;

	*value = NAN;
	if (!*metric)
		return gx_fail(cause, -EINVAL, "empty metric name");
	if (!strcasecmp(metric, "share")) {
		*value = row->share;
		return 0;
	}
	if (ci_is_offcpu_metric(metric))
		return ci_offcpu_metric(r, row, metric, value, cause);
	if (row->scope != CI_SCOPE_RUN && !row->prow)	/* a thread that only waited */
		return gx_fail(cause, CI_CANNOT_MEASURE, "%s: %s %s has no samples", metric,
			       ci_scope_name(row->scope), row->name);
	if (slash) {			/* event ratio A/B */
		char *num = xstrndup(metric, (size_t)(slash - metric));

		if (!*num || !slash[1] || strchr(slash + 1, '/')) {
			free(num);
			return gx_fail(cause, -EINVAL, "'%s': a ratio is EVENT/EVENT", metric);
		}
		err = event_value(r, row, num, &a, &sa, cause);
		free(num);
		if (!err)
			err = event_value(r, row, slash + 1, &b, &sb, cause);
		if (!err)
			err = few_samples(r, row, sa < sb ? sa : sb, min_samples,
					  ci_metric_kind(r, metric), cause);
		if (err)
			return err;
		if (b == 0)
			return gx_fail(cause, CI_CANNOT_MEASURE, "%s: the denominator is 0", metric);
		*value = a / b;
		return 0;
	}
	if (node >= 0) {
		err = node_value(r, row, node, min_samples, value, cause);
		if (err != CI_CANNOT_MEASURE || !(cpi || ipc))
			return err;
		free(*cause);
		*cause = NULL;
	}
	if (cpi || ipc) {		/* no model node: cycles and instructions */
		if (event_value(r, row, "cycles", &a, &sa, cause) ||
		    event_value(r, row, "instructions", &b, &sb, cause)) {
			char *list = event_list(r);

			free(*cause);
			*cause = NULL;
			gx_fail(cause, CI_CANNOT_MEASURE,
				"%s needs the cycles and instructions counters; %s has only %s%s",
				cpi ? "CPI" : "IPC", gx_result__path(r), list, no_pmu_note(r));
			free(list);
			return CI_CANNOT_MEASURE;
		}
		err = few_samples(r, row, sa < sb ? sa : sb, min_samples, ci_metric_kind(r, metric),
				  cause);
		if (err)
			return err;
		if ((cpi ? b : a) == 0)
			return gx_fail(cause, CI_CANNOT_MEASURE, "%s: no %s counted", metric,
				       cpi ? "instructions" : "cycles");
		*value = cpi ? a / b : b / a;
		return 0;
	}
	if (known_event_name(r, metric)) {
		err = event_value(r, row, metric, &a, &sa, cause);
		if (!err)
			err = few_samples(r, row, sa, min_samples, ci_metric_kind(r, metric),
					  cause);
		if (!err)
			*value = a;
		return err;
	}
	if (node_of_any_model(metric))
		return gx_fail(cause, CI_CANNOT_MEASURE, "%s: the %s model of %s has no metric %s%s",
			       metric, gx_result__model_loaded(r) ? td_model__id(gx_result__model_loaded(r)) : "(none)", gx_result__path(r),
			       metric, no_pmu_note(r));
	{
		char *hint = suggest_metric(r, metric);
		int e = gx_fail(cause, -EINVAL, "unknown metric '%s': use a metric of the model "
				"(gexplore list), cpi, ipc, an event or EVENT/EVENT%s", gx_esc(metric),
				hint);

		free(hint);
		return e;
	}
}

/* A hardware event on one core PMU (hybrid): its generic name, once, as
 * the metric that sums every core PMU's copy. */
static size_t add_generic_name(const struct gx_result *r, size_t i, const char **out, size_t n)
{
	const struct perf_event_attr *a = gx_result__event(r, i)->attr;

	if (a->type != PERF_TYPE_HARDWARE)
		return n;
	for (size_t k = 0; k < ARRAY_SIZE(hw_names); k++) {
		if ((a->config & 0xffffffff) != hw_names[k].config)
			continue;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(out[j], hw_names[k].name))
				return n;
		out[n++] = hw_names[k].name;
		return n;
	}
	return n;
}

const char **ci_default_metrics(const struct gx_result *r)
{
	const struct td_model *m = gx_result__model(r);
	size_t n = 0, cap = 5 + gx_result__nr_events(r) + (m ? td_model__nr_nodes(m) : 0);
	const char **out = xcalloc(cap, sizeof(char *));

	out[n++] = "share";
	/* each recorded event's estimate: absolute time or counts per row */
	for (size_t i = 0; i < gx_result__nr_events(r); i++) {
		const char *name = gx_result__event(r, i)->name;

		if (gx_result__event(r, i)->source != GX_SOURCE_PERIOD &&
		    !gx_result__event(r, i)->samples)
			continue;	/* a value nothing credited: off-cpu:child of no child */
		if (*name && !strchr(name, '/') && !strchr(name, '=') && !evsel_repeats(r, i))
			out[n++] = name;
		else if (strchr(name, '/'))
			n = add_generic_name(r, i, out, n);	/* cpu_core/cycles/: "cycles" */
	}
	if (m) {
		if (td_model__find_node(m, "CPI") >= 0)
			out[n++] = "CPI";
		if (td_model__find_node(m, "IPC") >= 0)
			out[n++] = "IPC";
		for (size_t i = 0; i < td_model__nr_nodes(m); i++) {
			const struct td_node *nd = td_model__node(m, i);

			if (nd->level == 1 && !nd->hidden)
				out[n++] = nd->name;
		}
	}
	if (gx_result__offcpu(r))	/* record --off-cpu */
		out[n++] = "off_cpu_share";
	return out;
}
