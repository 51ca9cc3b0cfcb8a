/*
 * meta.json: what perf.data cannot hold (the workload's argv and exit
 * status, SAVs, SMT, lost counts, gexplore's own CPU time, warnings).
 * Schema: gexplore-result(5).
 */
#include "config.h"

#include "perfdata.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata-int.h"
#include "util/util.h"

void gx_meta__init(struct gx_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->version_major = GX_META_VERSION_MAJOR;
	m->version_minor = GX_META_VERSION_MINOR;
	m->smt = -1;
	m->rate = 1.0;
	m->mux.reference = -1;
	m->mux.reliability = NAN;
	m->sample_cost_ns = NAN;
	m->sampling_s = NAN;
	m->model_run_s = NAN;
}

void gx_meta__exit(struct gx_meta *m)
{
	gx_free_strv(m->argv, m->argc);
	GX_FREE(m->gexplore_version, m->cpu_desc, m->cpu_model, m->cpu_variant, m->callgraph,
		m->status, m->sample_cost_from, m->off_cpu, m->model_predictor);
	for (size_t i = 0; i < m->nr_events; i++) {
		free(m->events[i].name);
		free(m->events[i].encoding);
	}
	free(m->events);
	gx_free_strv(m->warnings, m->nr_warnings);
	GX_FREE(m->mux.mode, m->mux.slice_log);
	gx_meta_machine__exit(&m->machine);
	memset(m, 0, sizeof(*m));
}

void gx_meta__add_warning(struct gx_meta *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gx_strv_vaddf(&m->warnings, &m->nr_warnings, fmt, ap);
	va_end(ap);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(gx_utf8(s)) : json_null();
}

static json_t *strv(char **v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(gx_utf8(v[i])));
	return a;
}

json_t *pd_json_real(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *mux_to_json(const struct gx_meta_mux *x)
{
	json_t *o = json_object();

	json_object_set_new(o, "mode", json_string(x->mode));
	json_object_set_new(o, "slice_ms", json_integer(x->slice_ms));
	json_object_set_new(o, "groups", json_integer(x->nr_groups));
	json_object_set_new(o, "slices", json_integer((json_int_t)x->nr_slices));
	json_object_set_new(o, "min_slices", json_integer(x->min_slices));
	json_object_set_new(o, "slice_log", str_or_null(x->slice_log));
	json_object_set_new(o, "reference", json_integer(x->reference));
	json_object_set_new(o, "reliability", pd_json_real(x->reliability));
	return o;
}

static json_t *meta_to_json(const struct gx_meta *m)
{
	json_t *root = json_object(), *evs = json_array(), *wl = json_object();

	json_object_set_new(root, "format", json_sprintf("gexplore-result %u.%u",
							 m->version_major, m->version_minor));
	json_object_set_new(root, "version_major", json_integer(m->version_major));
	json_object_set_new(root, "version_minor", json_integer(m->version_minor));
	json_object_set_new(root, "gexplore_version", str_or_null(m->gexplore_version));

	json_object_set_new(wl, "argv", m->argv ? strv(m->argv, m->argc) : json_null());
	json_object_set_new(wl, "pid", json_integer(m->target_pid));
	json_object_set_new(wl, "system_wide", json_boolean(m->system_wide));
	json_object_set_new(wl, "exited", json_boolean(m->exited));
	json_object_set_new(wl, "exit_code", json_integer(m->exit_code));
	json_object_set_new(wl, "term_signal", json_integer(m->term_signal));
	json_object_set_new(root, "workload", wl);

	json_object_set_new(root, "cpu_desc", str_or_null(m->cpu_desc));
	json_object_set_new(root, "cpu_model", str_or_null(m->cpu_model));
	json_object_set_new(root, "cpu_variant", str_or_null(m->cpu_variant));
	json_object_set_new(root, "smt", m->smt < 0 ? json_null() : json_boolean(m->smt));
	json_object_set_new(root, "pmu", json_boolean(m->pmu));
	if (m->modelled)
		json_object_set_new(root, "modelled", json_true());
	json_object_set_new(root, "callgraph", str_or_null(m->callgraph));
	json_object_set_new(root, "rate", json_real(m->rate));

	for (size_t i = 0; i < m->nr_events; i++) {
		const struct gx_meta_event *e = &m->events[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", str_or_null(e->name));
		json_object_set_new(o, "encoding", str_or_null(e->encoding));
		json_object_set_new(o, "sav", json_integer((json_int_t)e->sav));
		json_object_set_new(o, "freq", json_integer(e->freq));
		json_object_set_new(o, "precise", json_integer(e->precise));
		json_object_set_new(o, "group", json_integer(e->group));
		if (e->unsupported)
			json_object_set_new(o, "unsupported", json_true());
		if (e->has_count) {
			json_object_set_new(o, "count", json_integer((json_int_t)e->count));
			json_object_set_new(o, "time_enabled", json_integer((json_int_t)e->time_enabled));
			json_object_set_new(o, "time_running", json_integer((json_int_t)e->time_running));
		}
		if (e->has_estimate) {
			json_object_set_new(o, "estimate", pd_json_real(e->estimate));
			json_object_set_new(o, "estimate_lo", pd_json_real(e->estimate_lo));
			json_object_set_new(o, "estimate_hi", pd_json_real(e->estimate_hi));
			json_object_set_new(o, "scale", pd_json_real(e->scale));
		}
		if (e->has_reliability)
			json_object_set_new(o, "mux_reliability", pd_json_real(e->reliability));
		json_array_append_new(evs, o);
	}
	json_object_set_new(root, "events", evs);
	json_object_set_new(root, "start_ns", json_integer((json_int_t)m->start_ns));
	json_object_set_new(root, "end_ns", json_integer((json_int_t)m->end_ns));
	json_object_set_new(root, "duration_s", pd_json_real(m->duration_s));
	json_object_set_new(root, "lost_records", json_integer((json_int_t)m->lost_records));
	json_object_set_new(root, "status", str_or_null(m->status));
	json_object_set_new(root, "dropped_records", json_integer((json_int_t)m->dropped_records));
	json_object_set_new(root, "lost_events", json_integer((json_int_t)m->lost_events));
	if (m->markers || m->markers_lost) {
		json_t *rg = json_object();

		json_object_set_new(rg, "markers", json_integer((json_int_t)m->markers));
		json_object_set_new(rg, "lost", json_integer((json_int_t)m->markers_lost));
		json_object_set_new(root, "regions", rg);
	}
	if (m->off_cpu) {
		json_t *oc = json_object();

		json_object_set_new(oc, "method", json_string(m->off_cpu));
		json_object_set_new(oc, "probes", json_integer((json_int_t)m->off_cpu_probes));
		json_object_set_new(oc, "probe_us", json_integer(m->off_cpu_probe_us));
		json_object_set_new(oc, "min_us", json_integer(m->off_cpu_min_us));
		json_object_set_new(root, "off_cpu", oc);
	}
	json_object_set_new(root, "self_cpu_s", pd_json_real(m->self_cpu_s));
	json_object_set_new(root, "sample_records", json_integer((json_int_t)m->sample_records));
	json_object_set_new(root, "sample_cost_ns", pd_json_real(m->sample_cost_ns));
	json_object_set_new(root, "sampling_s", pd_json_real(m->sampling_s));
	if (m->sample_cost_from)
		json_object_set_new(root, "sample_cost_from", json_string(m->sample_cost_from));
	json_object_set_new(root, "warnings", strv(m->warnings, m->nr_warnings));
	if (m->mux.mode)
		json_object_set_new(root, "mux", mux_to_json(&m->mux));
	if (m->machine.name)
		json_object_set_new(root, "model_machine", pd_meta_machine__to_json(&m->machine));
	if (!isnan(m->model_run_s))
		json_object_set_new(root, "model_run_s", json_real(m->model_run_s));
	if (m->model_predictor)
		json_object_set_new(root, "model_predictor", json_string(gx_utf8(m->model_predictor)));
	if (m->model_rules > 0)
		json_object_set_new(root, "model_rules", json_integer(m->model_rules));
	return root;
}

int gx_meta__write(const struct gx_meta *m, const char *dir, char **cause)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (dfd < 0)
		return gx_fail(cause, -errno, "%s: %s", dir, strerror(errno));
	err = gx_meta__write_at(m, dfd, dir, cause);
	close(dfd);
	return err;
}

int gx_meta__write_at(const struct gx_meta *m, int dirfd, const char *dir, char **cause)
{
	static const char tmp[] = ".meta.json.tmp";
	json_t *root = meta_to_json(m);
	/* one write (json_dumpfd writes every token on its own) */
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	int fd = gx_create_at(dirfd, tmp), err = 0;

	if (fd < 0) {
		err = gx_fail(cause, fd, "%s/%s: %s", dir, tmp, strerror(-fd));
		goto out;
	}
	/* no fsync: perf.data is not synced either, so it promised nothing
	 * after a crash, and it waited 1 to 12 ms on the disk in every record
	 * (issue 26, part 4); the rename still replaces meta.json whole */
	errno = 0;
	if (!text || gx_write_all(fd, text, strlen(text)) != 0) {
		err = gx_fail(cause, errno ? -errno : -EIO, "%s/%s: cannot write: %s", dir, tmp,
			      strerror(errno ? errno : EIO));
		close(fd);
		unlinkat(dirfd, tmp, 0);
		goto out;
	}
	close(fd);
	/* rename replaces a meta.json symlink itself, never its target */
	if (renameat(dirfd, tmp, dirfd, "meta.json") != 0) {
		err = gx_fail(cause, -errno, "%s/meta.json: %s", dir, strerror(errno));
		unlinkat(dirfd, tmp, 0);
	}
out:
	free(text);
	json_decref(root);
	return err;
}

static char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static int64_t get_int(json_t *o, const char *key, int64_t def)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

/*
 * An integer that must lie in [lo, hi]: def when absent, and def with a
 * warning on m when it is not an integer or out of range (a hand-edited or
 * damaged meta.json): a group of INT_MAX would size an allocation, a count
 * of -1 would print as 18446744073709551615.
 */
static int64_t get_range(struct gx_meta *m, json_t *o, const char *what, const char *key,
			 int64_t lo, int64_t hi, int64_t def)
{
	json_t *v = json_object_get(o, key);
	int64_t x;

	if (!v || json_is_null(v))
		return def;
	x = json_is_integer(v) ? (int64_t)json_integer_value(v) : lo - 1;
	if (!json_is_integer(v) || x < lo || x > hi) {
		char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		gx_meta__add_warning(m, "meta.json: %s%s%s %.40s is out of range (%" PRId64 " to %"
				     PRId64 "): ignored", what ? what : "", what ? " " : "", key,
				     text ? text : "?", lo, hi);
		free(text);
		return def;
	}
	return x;
}

static double get_real(json_t *o, const char *key, double def)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : def;
}

/*
 * A time in seconds that a view prints: NAN (unknown) when absent or null,
 * and, with a warning on m, when it is not a number or out of
 * [0, GX_META_MAX_SECONDS] (a hand-edited or damaged meta.json): "duration
 * -5.000 s" or a 300-digit CPU time would be shown as if measured.
 */
static double get_seconds(struct gx_meta *m, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	double d;

	if (!v || json_is_null(v))
		return NAN;
	d = json_is_number(v) ? json_number_value(v) : NAN;
	if (!isfinite(d) || d < 0 || d > GX_META_MAX_SECONDS) {
		char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		gx_meta__add_warning(m, "meta.json: %s %.40s is out of range (0 to %.0f s): shown as unknown",
				     key, text ? text : "?", GX_META_MAX_SECONDS);
		free(text);
		return NAN;
	}
	return d;
}

/*
 * s as written before gx_utf8() (util.h): each \xNN of a byte 80-ff back to
 * that byte. Left as read, report's escaping doubled the backslash and
 * printed a\\xffb for the recorded a\xffb. Allocated.
 */
static char *bytes_of(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *q = out;

	while (*s) {
		unsigned v;

		if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1 && v >= 0x80 &&
		    isxdigit((unsigned char)s[2]) && isxdigit((unsigned char)s[3])) {
			*q++ = (char)v;
			s += 4;
		} else {
			*q++ = *s++;
		}
	}
	*q = 0;
	return out;
}

static char **get_strv(json_t *o, const char *key, size_t *n)
{
	json_t *a = json_object_get(o, key), *v;
	char **out;
	size_t i, k = 0;

	*n = 0;
	if (!json_is_array(a))
		return NULL;
	out = xcalloc(json_array_size(a) + 1, sizeof(*out));
	json_array_foreach(a, i, v)
		if (json_is_string(v))
			out[k++] = bytes_of(json_string_value(v));
	*n = k;
	return out;
}

/* meta.json's text parsed: its root object, or NULL with *err and *cause
 * set */
static json_t *meta_load(const char *path, int *err, char **cause)
{
	char *text;
	json_error_t jerr;
	json_t *root;
	size_t len;

	/* a FIFO or a device in its place is refused, not waited on; a link
	 * is not followed */
	{
		uint64_t size;
		int fd = gx_open_regular_nofollow(path, &size, cause);

		if (fd < 0) {
			*err = fd;
			return NULL;
		}
		text = gx_read_fd(fd, path, size, GX_META_MAX_SIZE, &len, err, cause);
	}
	if (!text)
		return NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!root) {
		/* where, never what: meta.json may be a link to a file the
		 * user cannot read, and jansson quotes the text it stopped at */
		char *near = strstr(jerr.text, " near ");

		if (near)
			*near = 0;
		*err = gx_fail(cause, GX_E_FORMAT, "%s: not valid JSON at line %d, column %d: %s",
			       path, jerr.line, jerr.column, jerr.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		*err = gx_fail(cause, GX_E_FORMAT, "%s: not a JSON object", path);
		json_decref(root);
		return NULL;
	}
	return root;
}

static void read_workload(struct gx_meta *m, json_t *wl)
{
	size_t n;

	m->argv = get_strv(wl, "argv", &n);
	m->argc = (uint32_t)n;
	m->target_pid = (int32_t)get_range(m, wl, "workload", "pid", -1, INT32_MAX, 0);
	m->system_wide = json_is_true(json_object_get(wl, "system_wide"));
	m->exited = json_is_true(json_object_get(wl, "exited"));
	m->exit_code = (int)get_range(m, wl, "workload", "exit_code", -255, 255, 0);
	m->term_signal = (int)get_range(m, wl, "workload", "term_signal", 0, 64, 0);
}

/* event i of the nev in "events" */
static void read_event(struct gx_meta *m, struct gx_meta_event *e, json_t *v, size_t i, size_t nev)
{
	char what[32];

	e->name = get_str(v, "name");
	e->encoding = get_str(v, "encoding");
	snprintf(what, sizeof(what), "event %zu", i);
	e->sav = (uint64_t)get_range(m, v, what, "sav", 0, INT64_MAX, 0);
	e->freq = (uint32_t)get_range(m, v, what, "freq", 0, UINT32_MAX, 0);
	e->precise = (int)get_range(m, v, what, "precise", 0, 3, 0);
	/* a group is one of the events' own: at most one per event */
	e->group = (int)get_range(m, v, what, "group", -1, (int64_t)nev - 1, -1);
	e->unsupported = json_is_true(json_object_get(v, "unsupported"));
	e->count = (uint64_t)get_range(m, v, what, "count", 0, INT64_MAX, -1);
	e->has_count = json_object_get(v, "count") != NULL && e->count != UINT64_MAX;
	if (!e->has_count)
		e->count = 0;
	e->time_enabled = (uint64_t)get_range(m, v, what, "time_enabled", 0, INT64_MAX, 0);
	e->time_running = (uint64_t)get_range(m, v, what, "time_running", 0, INT64_MAX, 0);
	if (e->time_running > e->time_enabled) {
		gx_meta__add_warning(m, "meta.json: %s ran %" PRIu64 " ns of %" PRIu64
				     " enabled: impossible, its times are ignored",
				     what, e->time_running, e->time_enabled);
		e->time_enabled = e->time_running = 0;
	}
	e->has_estimate = json_object_get(v, "estimate") != NULL;
	e->estimate = get_real(v, "estimate", NAN);
	e->estimate_lo = get_real(v, "estimate_lo", NAN);
	e->estimate_hi = get_real(v, "estimate_hi", NAN);
	e->scale = get_real(v, "scale", NAN);
	e->has_reliability = json_object_get(v, "mux_reliability") != NULL;
	e->reliability = get_real(v, "mux_reliability", NAN);
}

static void read_events(struct gx_meta *m, json_t *evs)
{
	json_t *v;
	size_t i;

	m->events = xcalloc(json_array_size(evs) + 1, sizeof(*m->events));
	json_array_foreach(evs, i, v) {
		if (!json_is_object(v))
			continue;
		read_event(m, &m->events[m->nr_events], v, i, json_array_size(evs));
		m->nr_events++;
	}
}

/* the recording's end, its losses and its regions' markers */
static void read_tally(struct gx_meta *m, json_t *root)
{
	json_t *v;

	m->start_ns = (uint64_t)get_range(m, root, NULL, "start_ns", 0, INT64_MAX, 0);
	m->end_ns = (uint64_t)get_range(m, root, NULL, "end_ns", 0, INT64_MAX, 0);
	if (m->end_ns && m->end_ns < m->start_ns) {
		gx_meta__add_warning(m, "meta.json: end_ns %" PRIu64 " is before start_ns %" PRIu64
				     ": both ignored", m->end_ns, m->start_ns);
		m->start_ns = m->end_ns = 0;
	}
	m->duration_s = get_seconds(m, root, "duration_s");
	m->lost_records = (uint64_t)get_range(m, root, NULL, "lost_records", 0, INT64_MAX, 0);
	m->status = get_str(root, "status");	/* NULL before 1.2: complete */
	m->dropped_records = (uint64_t)get_range(m, root, NULL, "dropped_records", 0, INT64_MAX, 0);
	m->lost_events = (uint64_t)get_range(m, root, NULL, "lost_events", 0, INT64_MAX, 0);
	v = json_object_get(root, "regions");
	if (json_is_object(v)) {
		m->markers = (uint64_t)get_range(m, v, "regions", "markers", 0, INT64_MAX, 0);
		m->markers_lost = (uint64_t)get_range(m, v, "regions", "lost", 0, INT64_MAX, 0);
	}
}

static void read_off_cpu(struct gx_meta *m, json_t *v)
{
	m->off_cpu = get_str(v, "method");
	m->off_cpu_probes = (uint64_t)get_range(m, v, "off_cpu", "probes", 0, INT64_MAX, 0);
	m->off_cpu_probe_us = (uint32_t)get_range(m, v, "off_cpu", "probe_us", 0,
						  UINT32_MAX, 0);
	m->off_cpu_min_us = (uint32_t)get_range(m, v, "off_cpu", "min_us", 0, UINT32_MAX,
						0);
}

static void read_mux(struct gx_meta *m, json_t *v)
{
	m->mux.mode = get_str(v, "mode");
	m->mux.slice_ms = (uint32_t)get_range(m, v, "mux", "slice_ms", 0, 3600000, 0);
	m->mux.nr_groups = (uint32_t)get_range(m, v, "mux", "groups", 0,
					       (int64_t)m->nr_events, 0);
	m->mux.nr_slices = (uint64_t)get_range(m, v, "mux", "slices", 0, INT64_MAX, 0);
	m->mux.min_slices = (uint32_t)get_range(m, v, "mux", "min_slices", 0, UINT32_MAX, 0);
	m->mux.slice_log = get_str(v, "slice_log");
	m->mux.reference = (int)get_range(m, v, "mux", "reference", -1,
					  (int64_t)m->nr_events - 1, -1);
	m->mux.reliability = get_real(v, "reliability", NAN);
}

int gx_meta__read(struct gx_meta *m, const char *dir, char **cause)
{
	char *path = xasprintf("%s/meta.json", dir);
	json_t *root, *v;
	int err = 0;

	gx_meta__init(m);
	root = meta_load(path, &err, cause);
	if (!root)
		goto out;
	m->version_major = (uint32_t)get_int(root, "version_major", 0);
	m->version_minor = (uint32_t)get_int(root, "version_minor", 0);
	if (m->version_major != GX_META_VERSION_MAJOR) {
		err = gx_fail(cause, GX_E_VERSION,
			      "%s: result format %u.%u is not supported by this gexplore (reads %u.x)",
			      path, m->version_major, m->version_minor, GX_META_VERSION_MAJOR);
		goto out_root;
	}
	m->gexplore_version = get_str(root, "gexplore_version");
	m->warnings = get_strv(root, "warnings", &m->nr_warnings);
	v = json_object_get(root, "workload");
	if (json_is_object(v))
		read_workload(m, v);
	m->cpu_desc = get_str(root, "cpu_desc");
	m->cpu_model = get_str(root, "cpu_model");
	m->cpu_variant = get_str(root, "cpu_variant");
	v = json_object_get(root, "smt");
	m->smt = json_is_boolean(v) ? json_is_true(v) : -1;
	m->pmu = json_is_true(json_object_get(root, "pmu"));
	m->modelled = json_is_true(json_object_get(root, "modelled"));
	m->callgraph = get_str(root, "callgraph");
	m->rate = get_real(root, "rate", 1.0);
	v = json_object_get(root, "events");
	if (json_is_array(v))
		read_events(m, v);
	read_tally(m, root);
	v = json_object_get(root, "off_cpu");
	if (json_is_object(v))
		read_off_cpu(m, v);
	m->self_cpu_s = get_seconds(m, root, "self_cpu_s");
	m->sample_records = (uint64_t)get_range(m, root, NULL, "sample_records", 0, INT64_MAX, 0);
	m->sampling_s = get_seconds(m, root, "sampling_s");
	m->sample_cost_ns = get_real(root, "sample_cost_ns", NAN);
	if (!(m->sample_cost_ns >= 0 && m->sample_cost_ns <= 1e9))	/* NAN too */
		m->sample_cost_ns = NAN;
	m->sample_cost_from = get_str(root, "sample_cost_from");
	v = json_object_get(root, "mux");
	if (json_is_object(v))
		read_mux(m, v);
	v = json_object_get(root, "model_machine");
	if (v)
		pd_meta_machine__from_json(m, v);
	m->model_run_s = get_seconds(m, root, "model_run_s");
	m->model_predictor = get_str(root, "model_predictor");
	m->model_rules = (int)get_range(m, root, NULL, "model_rules", 0, 1000, 0);
out_root:
	json_decref(root);
out:
	free(path);
	return err;
}

const char *gx_meta__stopped(const struct gx_meta *m)
{
	return m->status && !strcmp(m->status, GX_META_STATUS_INTERRUPTED) ?
	       "stopped with Ctrl-C (SIGINT)" : NULL;
}

char *gx_meta__incomplete(const struct gx_meta *m)
{
	static const struct {
		const char *status, *phrase;
	} phrases[] = {
		{ GX_META_STATUS_KILLED, "stopped by SIGTERM or SIGHUP" },
		{ GX_META_STATUS_NOSPACE, "cut short: the disk was full" },
		{ GX_META_STATUS_WRITE_ERROR, "cut short: writing perf.data failed" },
		{ GX_META_STATUS_FAILED, "cut short: the collection failed" },
		{ GX_META_STATUS_KEEPER, "cut short: the keeper (gx-keeper) was killed, the "
					 "workload with it; what it started may still run" },
		{ GX_META_STATUS_INCOMPLETE, "left incomplete: a third interrupt cut its "
					     "wrap-up (no build-ids, archive or estimates)" },
	};
	const char *phrase = NULL;
	char *s;

	if ((!m->status || !strcmp(m->status, GX_META_STATUS_COMPLETE) ||
	     !strcmp(m->status, GX_META_STATUS_INTERRUPTED)) && !m->dropped_records)
		return NULL;	/* a run stopped with Ctrl-C is whole up to the stop */
	for (size_t i = 0; m->status && i < ARRAY_SIZE(phrases); i++)
		if (!strcmp(m->status, phrases[i].status))
			phrase = phrases[i].phrase;
	if (phrase)
		s = xstrdup(phrase);
	else if (m->status && strcmp(m->status, GX_META_STATUS_COMPLETE) &&
		 strcmp(m->status, GX_META_STATUS_INTERRUPTED))
		s = xasprintf("status '%s'", m->status);
	else
		s = xstrdup("complete");
	if (m->dropped_records) {
		char *t = xasprintf("%s, %" PRIu64 " record%s dropped", s, m->dropped_records,
				    m->dropped_records == 1 ? "" : "s");

		free(s);
		s = t;
	}
	return s;
}
