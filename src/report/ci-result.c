/*
 * ci-result.c: a result opened for checks, diffs and exports — its profile,
 * meta.json and top-down model — and the evaluation of one metric on one
 * row (the whole run, a process, a module, a function).
 *
 * Whole-run event totals come from meta.json: the multiplexing estimate
 * when there is one, else the exact counting reads, else the summed
 * sample periods; rows use their sample periods,
 * scaled by run time over the time the event's group was active.
 */
#include "config.h"

#include "report-ci.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mux/mux.h"
#include "report.h"
#include "topdown/topdown.h"

struct ci_result {
	char *path;			/* dir, or the perf.data file */
	char *dir;			/* NULL for a bare perf.data */
	struct gx_meta meta;
	bool have_meta;
	struct perf_reader *reader;
	struct profile *profile;
	struct td_model *model;		/* NULL when none could be loaded */
	struct td_ctx ctx;
	int *ev;			/* evsel -> model event, -1 */
	size_t nr_evsels, nr_matched;
	size_t ref;			/* reference evsel */
	struct mux_log *log;		/* its slice log (per-row reliability), or NULL */
	const char **defaults;		/* NULL-terminated default metrics */
};

const char *ci_scope_name(enum ci_scope s)
{
	static const char *const names[] = { "run", "process", "module", "function" };

	return s < CI_SCOPE_NR_ ? names[s] : "?";
}

static void map_events(struct ci_result *r)
{
	int cyc = r->model ? td_model__find_event(r->model, "cycles") : -1;
	bool have_ref = false;

	r->ev = xcalloc(r->nr_evsels + 1, sizeof(*r->ev));
	for (size_t i = 0; i < r->nr_evsels; i++) {
		const struct perf_event_attr *a = &perf_reader__evsel(r->reader, i)->attr;

		r->ev[i] = !r->model || a->type == PERF_TYPE_SOFTWARE ? -1 :
			   td_model__find_event_attr(r->model, a->type, a->config, a->config1);
		if (r->ev[i] >= 0)
			r->nr_matched++;
		if (!have_ref && ((r->ev[i] >= 0 && r->ev[i] == cyc) ||
				  (a->type == PERF_TYPE_HARDWARE &&
				   (a->config & 0xffffffff) == PERF_COUNT_HW_CPU_CYCLES))) {
			r->ref = i;
			have_ref = true;
		}
	}
	if (!have_ref)	/* first sampled event: cpu-clock on a machine without PMU */
		for (size_t i = 0; i < r->nr_evsels; i++)
			if (report_evsel_sampled(&perf_reader__evsel(r->reader, i)->attr)) {
				r->ref = i;
				break;
			}
}

int ci_result__open(struct ci_result **out, const char *arg, const char *parent,
		    const struct ci_open_opts *o, char **cause)
{
	struct ci_result *r = xzalloc(sizeof(*r));
	char *data = NULL, *id, *mcause = NULL;
	int err;

	gx_meta__init(&r->meta);
	err = gx_result__resolve(arg, parent, &r->dir, &data, cause);
	if (err)
		goto fail;
	r->path = xstrdup(r->dir ? r->dir : data);
	if (r->dir) {
		err = gx_meta__read(&r->meta, r->dir, cause);
		if (err == 0)
			r->have_meta = true;
		else if (err != -ENOENT)
			goto fail;
		free(*cause);
		*cause = NULL;
	}
	err = perf_reader__open(&r->reader, data, PD_ORDERED, cause);
	if (err)
		goto fail;
	r->nr_evsels = perf_reader__nr_evsels(r->reader);
	{
		/* the recording's build-ids and host decide what symbolizes */
		struct profile_opts po = o && o->sym ? *o->sym : (struct profile_opts){ 0 };

		po.env = perf_reader__env(r->reader);

		/* multiplexed by gexplore: every row gets its MUX reliability
		 * (an unreadable log leaves the whole run's) */
		if (r->have_meta &&
		    report_mux_open(r->dir, &r->meta, r->nr_evsels, &r->log, &mcause) == 0 && r->log)
			report_mux_slots(r->log, &r->meta, &po);
		free(mcause);
		mcause = NULL;
		err = profile__new_opts(&r->profile, r->nr_evsels, &po, cause);
	}
	if (err)
		goto fail;
	err = perf_reader__process(r->reader, profile__tool(r->profile), cause);
	if (err)
		goto fail;
	id = report_model_id(perf_reader__env(r->reader), r->have_meta ? &r->meta : NULL,
			     o ? o->cpu : NULL);
	if (td_model__load(id, NULL, &r->model, &mcause) != 0) {
		if (o && o->cpu) {	/* the user named it: that is an error */
			err = gx_fail(cause, -EINVAL, "--cpu %s: %s", id, mcause);
			free(id);
			free(mcause);
			goto fail;
		}
		r->model = NULL;
	}
	free(mcause);
	free(id);
	r->ctx.smt = o && o->smt ? o->smt :
		     !r->have_meta || r->meta.smt < 0 ? TD_SMT_UNKNOWN :
		     r->meta.smt ? TD_SMT_ON : TD_SMT_OFF;
	r->ctx.variant = r->have_meta ? r->meta.cpu_variant : NULL;
	map_events(r);
	free(data);
	*out = r;
	return 0;
fail:
	free(data);
	ci_result__delete(r);
	return err;
}

void ci_result__delete(struct ci_result *r)
{
	if (!r)
		return;
	free(r->defaults);
	mux_log__delete(r->log);
	free(r->ev);
	td_model__delete(r->model);
	profile__delete(r->profile);
	perf_reader__delete(r->reader);
	gx_meta__exit(&r->meta);
	free(r->dir);
	free(r->path);
	free(r);
}

const char *ci_result__path(const struct ci_result *r) { return r->path; }
const char *ci_result__model(const struct ci_result *r) { return r->model ? td_model__id(r->model) : NULL; }
struct profile *ci_result__profile(const struct ci_result *r) { return r->profile; }
struct perf_reader *ci_result__reader(const struct ci_result *r) { return r->reader; }
const struct gx_meta *ci_result__meta(const struct ci_result *r) { return r->have_meta ? &r->meta : NULL; }
size_t ci_result__ref_event(const struct ci_result *r) { return r->ref; }

double ci_result__reliability(const struct ci_result *r, const struct ci_row *row)
{
	const struct gx_meta_mux *x = &r->meta.mux;

	if (!r->have_meta || !x->mode)
		return 1.0;
	if (row && row->prow && r->log) {
		double rel = mux_log__row_reliability(r->log, row->prow->slot_period);

		if (!isnan(rel))
			return rel;
	}
	return isnan(x->reliability) ? 1.0 : x->reliability;
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
		*by = PROFILE_BY_PROCESS;
		return true;
	case CI_SCOPE_MODULE:
		*by = PROFILE_BY_MODULE;
		return true;
	case CI_SCOPE_FUNCTION:
		*by = PROFILE_BY_FUNCTION;
		return true;
	default:
		return false;
	}
}

int ci_result__rows(struct ci_result *r, enum ci_scope scope, struct ci_row **rows,
		    size_t *nr, char **cause)
{
	const struct profile_row *const *pr;
	uint64_t total = profile__total_samples(r->profile, r->ref);
	enum profile_by by;
	size_t n;

	if (scope == CI_SCOPE_RUN) {
		*rows = xcalloc(1, sizeof(**rows));
		(*rows)[0].scope = CI_SCOPE_RUN;
		(*rows)[0].name = "";
		(*rows)[0].share = 1.0;
		*nr = 1;
		return 0;
	}
	if (!scope_by(scope, &by))
		return gx_fail(cause, GX_E_NOTSUP, "rows per %s are not available in this build",
			       ci_scope_name(scope));
	pr = profile__rows(r->profile, by, r->ref, &n);
	*rows = xcalloc(n + 1, sizeof(**rows));
	*nr = 0;
	for (size_t i = 0; i < n; i++) {
		struct ci_row *row = &(*rows)[*nr];

		if (!pr[i]->samples[r->ref])
			continue;
		row->scope = scope;
		row->name = pr[i]->name;
		row->pid = pr[i]->pid;
		row->prow = pr[i];
		row->share = total ? (double)pr[i]->samples[r->ref] / (double)total : 0;
		if (scope == CI_SCOPE_FUNCTION) {
			/* where an annotation points: the function's hottest line */
			const struct profile_row *l = profile__hot_line(r->profile, pr[i]->index,
									r->ref);

			if (l && l->file && l->file[0] && l->line) {
				row->file = l->file;
				row->line = l->line;
			}
		}
		(*nr)++;
	}
	return 0;
}

int ci_result__find_row(struct ci_result *r, enum ci_scope scope, const char *name,
			struct ci_row *row, char **cause)
{
	struct ci_row *rows;
	size_t nr;
	int err = ci_result__rows(r, scope, &rows, &nr, cause);

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
		gx_fail(cause, -ENOENT, "%s: no %s '%s' with samples", r->path,
			ci_scope_name(scope), name);
	return err;
}

/* ---- event values ------------------------------------------------------ */

/* The estimate of evsel i on a row, NAN when not measured; *samples is the
 * number of samples it rests on (UINT64_MAX for a counting read). */
static double evsel_value(const struct ci_result *r, const struct ci_row *row, size_t i,
			  uint64_t *samples)
{
	const struct gx_meta *meta = r->have_meta ? &r->meta : NULL;
	bool counted;
	double v;

	*samples = 0;
	if (!row->prow) {
		v = report_evsel_run_value(r->reader, meta, r->profile, i, &counted);
		*samples = counted ? UINT64_MAX : profile__total_samples(r->profile, i);
		return v;
	}
	v = report_evsel_row_value(r->reader, meta, NULL, row->prow, i);
	if (!isnan(v))
		*samples = row->prow->samples[i];
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
static bool evsel_is(const struct ci_result *r, size_t i, const char *name, int model_ev)
{
	const struct pd_evsel *e = perf_reader__evsel(r->reader, i);

	if (name_eq(e->name, name))
		return true;
	if (model_ev >= 0 && r->ev[i] == model_ev)
		return true;
	for (size_t k = 0; k < ARRAY_SIZE(hw_names); k++)
		if (!strcasecmp(hw_names[k].name, name))
			return e->attr.type == PERF_TYPE_HARDWARE &&
			       (e->attr.config & 0xffffffff) == hw_names[k].config;
	return false;
}

/* Linux's software events: names a recording may lack without the name
 * being a mistake. */
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "faults", "minor-faults", "major-faults",
	"context-switches", "cs", "cpu-migrations", "migrations", "alignment-faults",
	"emulation-faults",
};

static bool known_event_name(const struct ci_result *r, const char *name)
{
	for (size_t k = 0; k < ARRAY_SIZE(hw_names); k++)
		if (!strcasecmp(hw_names[k].name, name))
			return true;
	for (size_t k = 0; k < ARRAY_SIZE(sw_names); k++)
		if (!strcasecmp(sw_names[k], name))
			return true;
	for (size_t i = 0; i < r->nr_evsels; i++)
		if (name_eq(perf_reader__evsel(r->reader, i)->name, name))
			return true;
	return r->model && td_model__find_event(r->model, name) >= 0;
}

static char *event_list(const struct ci_result *r)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < r->nr_evsels; i++) {
		const char *n = perf_reader__evsel(r->reader, i)->name;

		strbuf__addf(&sb, "%s%s", i ? ", " : "", n ? n : "?");
	}
	return strbuf__detach(&sb);
}

static const char *no_pmu_note(const struct ci_result *r)
{
	return r->have_meta && !r->meta.pmu ?
	       " (no PMU: hardware counters were unavailable where it was recorded)" : "";
}

/* Is evsel i the same counter as an earlier one (mux's reference event is
 * often also a member of a group)? Then only the first is used; different
 * counters of one event (hybrid PMUs) add up. */
static bool evsel_repeats(const struct ci_result *r, size_t i)
{
	const struct perf_event_attr *a = &perf_reader__evsel(r->reader, i)->attr;

	for (size_t j = 0; j < i; j++) {
		const struct perf_event_attr *b = &perf_reader__evsel(r->reader, j)->attr;

		if (a->type == b->type && a->config == b->config && a->config1 == b->config1)
			return true;
	}
	return false;
}

/* Sum of every evsel counting `name` on a row. 0, or CI_CANNOT_MEASURE. */
static int event_value(const struct ci_result *r, const struct ci_row *row, const char *name,
		       double *value, uint64_t *samples, char **cause)
{
	int mev = r->model ? td_model__find_event(r->model, name) : -1;
	bool found = false;

	*value = 0;
	*samples = UINT64_MAX;
	for (size_t i = 0; i < r->nr_evsels; i++) {
		uint64_t s;
		double x;

		if (!evsel_is(r, i, name, mev) || evsel_repeats(r, i))
			continue;
		x = evsel_value(r, row, i, &s);
		if (isnan(x))
			continue;
		found = true;
		*value += x;
		if (s < *samples)
			*samples = s;
	}
	if (!found) {
		char *list = event_list(r);

		gx_fail(cause, CI_CANNOT_MEASURE, "%s has no '%s' event (it has: %s)%s", r->path,
			name, list, no_pmu_note(r));
		free(list);
		return CI_CANNOT_MEASURE;
	}
	return 0;
}

static int few_samples(const struct ci_result *r, const struct ci_row *row, uint64_t samples,
		       uint64_t min_samples, char **cause)
{
	if (samples >= min_samples)
		return 0;
	gx_fail(cause, CI_CANNOT_MEASURE, "too few samples: %llu in %s%s%s (--min-samples %llu)",
		(unsigned long long)samples, row->prow ? ci_scope_name(row->scope) : "the run",
		row->prow ? " " : "", row->prow ? row->name : "",
		(unsigned long long)min_samples);
	return CI_CANNOT_MEASURE;
}

/* A node of the model on a row. */
static int node_value(struct ci_result *r, const struct ci_row *row, int node,
		      uint64_t min_samples, double *value, char **cause)
{
	size_t ne = td_model__nr_events(r->model);
	double *c = xcalloc(ne + 1, sizeof(double));
	const struct td_value *v;
	struct td_result res;
	uint64_t ref_samples = UINT64_MAX;
	int ret = 0;

	for (size_t i = 0; i < ne; i++)
		c[i] = NAN;
	for (size_t i = 0; i < r->nr_evsels; i++) {
		uint64_t s;
		double x;

		if (r->ev[i] < 0 || evsel_repeats(r, i))
			continue;
		x = evsel_value(r, row, i, &s);
		if (i == r->ref)
			ref_samples = s;
		if (!isnan(x))
			c[r->ev[i]] = isnan(c[r->ev[i]]) ? x : c[r->ev[i]] + x;
	}
	if (td_eval(r->model, c, &r->ctx, &res, cause) != 0) {
		free(c);
		return -EINVAL;
	}
	v = &res.v[node];
	if (v->na) {
		ret = gx_fail(cause, CI_CANNOT_MEASURE,
			      "%s is n/a: %s lacks events the %s model needs for it%s",
			      td_model__node(r->model, (size_t)node)->name, r->path,
			      td_model__id(r->model), no_pmu_note(r));
	} else if (r->ev[r->ref] >= 0 &&
		   (ret = few_samples(r, row, ref_samples, min_samples, cause)) == 0) {
		*value = v->value;
	} else if (r->ev[r->ref] < 0) {
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

bool ci_metric_higher_is_better(const char *metric)
{
	return !strcasecmp(metric, "ipc") || !strcasecmp(metric, "retiring");
}

int ci_result__metric(struct ci_result *r, const struct ci_row *row, const char *metric,
		      uint64_t min_samples, double *value, char **cause)
{
	const char *slash = strchr(metric, '/');
	bool cpi = !strcasecmp(metric, "cpi"), ipc = !strcasecmp(metric, "ipc");
	int node = r->model ? td_model__find_node(r->model, metric) : -1;
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
			err = few_samples(r, row, sa < sb ? sa : sb, min_samples, cause);
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
				cpi ? "CPI" : "IPC", r->path, list, no_pmu_note(r));
			free(list);
			return CI_CANNOT_MEASURE;
		}
		err = few_samples(r, row, sa < sb ? sa : sb, min_samples, cause);
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
			err = few_samples(r, row, sa, min_samples, cause);
		if (!err)
			*value = a;
		return err;
	}
	if (node_of_any_model(metric))
		return gx_fail(cause, CI_CANNOT_MEASURE, "%s: the %s model of %s has no metric %s%s",
			       metric, r->model ? td_model__id(r->model) : "(none)", r->path,
			       metric, no_pmu_note(r));
	return gx_fail(cause, -EINVAL,
		       "unknown metric '%s': use a metric of the model (gexplore list), cpi, ipc, "
		       "an event or EVENT/EVENT", metric);
}

const char *const *ci_result__default_metrics(struct ci_result *r)
{
	size_t n = 0, cap;

	if (r->defaults)
		return r->defaults;
	cap = 4 + r->nr_evsels + (r->model ? td_model__nr_nodes(r->model) : 0);
	r->defaults = xcalloc(cap, sizeof(char *));
	r->defaults[n++] = "share";
	/* each recorded event's estimate: absolute time or counts per row */
	for (size_t i = 0; i < r->nr_evsels; i++) {
		const char *name = perf_reader__evsel(r->reader, i)->name;

		if (name && *name && !strchr(name, '/') && !strchr(name, '=') &&
		    !evsel_repeats(r, i))
			r->defaults[n++] = name;
	}
	if (r->model && r->nr_matched) {
		if (td_model__find_node(r->model, "CPI") >= 0)
			r->defaults[n++] = "CPI";
		if (td_model__find_node(r->model, "IPC") >= 0)
			r->defaults[n++] = "IPC";
		for (size_t i = 0; i < td_model__nr_nodes(r->model); i++) {
			const struct td_node *nd = td_model__node(r->model, i);

			if (nd->level == 1 && !nd->hidden)
				r->defaults[n++] = nd->name;
		}
	}
	return r->defaults;
}
