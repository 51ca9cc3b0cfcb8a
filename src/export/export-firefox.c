/*
 * export-firefox.c: a result in the Firefox Profiler's processed profile
 * format (the format of profiler.firefox.com's own files and of samply's;
 * gecko version 24, processed version 49, which the profiler upgrades on
 * load), symbolicated so that the viewer needs no symbol server.
 *
 * Every thread with samples of the chosen event is a thread of the file
 * with its own tables (strings, resources, native symbols, functions,
 * frames, stacks, samples, markers), as that version keeps them. A frame
 * is one level of an address's inline chain (inlineDepth 0 the
 * out-of-line function); frames in a mapped file carry the address within
 * it, a native symbol and the library (its build-id as codeId and
 * breakpadId), which the assembly view asks for. The thread's waits off
 * the CPU (record --off-cpu) and its regions (gexplore-regions(3)) are
 * interval markers; the other events' samples are counter tracks of their
 * process. Times are milliseconds from the first sample.
 */
#include "config.h"

#include "export.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-int.h"
#include "profile/profile.h"
#include "result/result.h"
#include "symbolize/symbolize.h"

#define FF_GECKO_VERSION 24
#define FF_PROCESSED_VERSION 49

enum { CAT_OTHER, CAT_USER, CAT_KERNEL };

/* One thread's tables while it is built; each column a JSON array. */
struct ff_thread {
	struct strtab strs;
	struct u32seq res_keys, sym_keys, func_keys, frame_keys, stack_keys;
	json_t *strings;
	json_t *res_lib, *res_name;
	json_t *sym_lib, *sym_addr, *sym_name;
	json_t *fn_name, *fn_res, *fn_file;
	json_t *fr_addr, *fr_depth, *fr_cat, *fr_func, *fr_sym, *fr_line;
	json_t *st_frame, *st_prefix, *st_cat;
	json_t *mk_name, *mk_start, *mk_end;
};

static void ff_thread__init(struct ff_thread *t)
{
	json_t **cols[] = { &t->strings,  &t->res_lib,	 &t->res_name, &t->sym_lib, &t->sym_addr,
			    &t->sym_name, &t->fn_name,	 &t->fn_res,   &t->fn_file, &t->fr_addr,
			    &t->fr_depth, &t->fr_cat,	 &t->fr_func,  &t->fr_sym,  &t->fr_line,
			    &t->st_frame, &t->st_prefix, &t->st_cat,   &t->mk_name, &t->mk_start,
			    &t->mk_end };

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		*cols[i] = json_array();
	strtab__init(&t->strs);
	u32seq__init(&t->res_keys);
	u32seq__init(&t->sym_keys);
	u32seq__init(&t->func_keys);
	u32seq__init(&t->frame_keys);
	u32seq__init(&t->stack_keys);
}

static void ff_thread__exit(struct ff_thread *t)
{
	strtab__exit(&t->strs);
	u32seq__exit(&t->res_keys);
	u32seq__exit(&t->sym_keys);
	u32seq__exit(&t->func_keys);
	u32seq__exit(&t->frame_keys);
	u32seq__exit(&t->stack_keys);
}

/* The thread's string index of s (stringArray). */
static json_int_t str_of(struct ff_thread *t, const char *s)
{
	size_t before = t->strs.nr;
	uint32_t id = strtab__intern(&t->strs, s);

	if (t->strs.nr != before)
		json_array_append_new(t->strings, json_string(gx_utf8(s)));
	return id;
}

/* Interned key -> dense index; *fresh when it is new (the caller appends
 * the row). */
static uint32_t key_of(struct u32seq *keys, const uint32_t *k, size_t n, bool *fresh)
{
	size_t before = keys->nr;
	uint32_t id = u32seq__intern(keys, k, n);

	*fresh = keys->nr != before;
	return id;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The resource (a library) of lib index li. */
static uint32_t resource_of(struct ff_thread *t, const struct export_samples *x, uint32_t li)
{
	bool fresh;
	uint32_t id = key_of(&t->res_keys, &li, 1, &fresh);

	if (fresh) {
		json_array_append_new(t->res_lib, json_integer(li));
		json_array_append_new(t->res_name,
				      json_integer(str_of(t, base_name(x->libs[li].path))));
	}
	return id;
}

/* The native symbol of a location in a library: its function's start. */
static json_t *native_of(struct ff_thread *t, struct sym_session *sym, const struct xs_loc *l)
{
	const struct sym_result *res = l->sym;
	uint64_t start = res->addr - res->sym_offset;
	uint32_t k[3] = { l->lib - 1, (uint32_t)start, (uint32_t)(start >> 32) };
	bool fresh;
	uint32_t id = key_of(&t->sym_keys, k, 3, &fresh);

	if (fresh) {
		json_array_append_new(t->sym_lib, json_integer(l->lib - 1));
		json_array_append_new(t->sym_addr, json_integer((json_int_t)start));
		json_array_append_new(t->sym_name,
				      json_integer(str_of(t, sym_session__str(sym, res->symbol))));
	}
	return json_integer(id);
}

static uint32_t func_of(struct ff_thread *t, const struct export_samples *x,
			struct sym_session *sym, const struct xs_loc *l, const struct sym_frame *f)
{
	const char *name = f->function ? sym_session__str(sym, f->function) : "[unknown]";
	uint32_t k[3] = { (uint32_t)str_of(t, name), UINT32_MAX, l->lib ? 0 : UINT32_MAX };
	bool fresh;
	uint32_t id;

	if (f->file != SYM_STR_NONE)
		k[1] = (uint32_t)str_of(t, sym_session__str(sym, f->file));
	if (l->lib)
		k[2] = resource_of(t, x, l->lib - 1);
	id = key_of(&t->func_keys, k, 3, &fresh);
	if (fresh) {
		json_array_append_new(t->fn_name, json_integer(k[0]));
		json_array_append_new(t->fn_res,
				      json_integer(k[2] == UINT32_MAX ? -1 : (json_int_t)k[2]));
		json_array_append_new(t->fn_file,
				      k[1] == UINT32_MAX ? json_null() : json_integer(k[1]));
	}
	return id;
}

/* The frame of inline level k of location loc (depth 0: out of line). */
static uint32_t frame_of(struct ff_thread *t, const struct export_samples *x,
			 struct sym_session *sym, uint32_t loc, uint32_t k)
{
	const struct xs_loc *l = &x->locs[loc];
	const struct sym_frame *f = &l->sym->frames[k];
	uint32_t key[2] = { loc, k };
	bool fresh;
	uint32_t id = key_of(&t->frame_keys, key, 2, &fresh);

	if (fresh) {
		json_array_append_new(t->fr_addr,
				      json_integer(l->lib ? (json_int_t)l->sym->addr : -1));
		json_array_append_new(t->fr_depth, json_integer(l->sym->nr_frames - 1 - k));
		json_array_append_new(t->fr_cat, json_integer(l->kernel ? CAT_KERNEL : CAT_USER));
		json_array_append_new(t->fr_func, json_integer(func_of(t, x, sym, l, f)));
		json_array_append_new(t->fr_sym, l->lib ? native_of(t, sym, l) : json_null());
		json_array_append_new(t->fr_line, f->line ? json_integer(f->line) : json_null());
	}
	return id;
}

/* The stack of a sample: its locations root first, each location's inline
 * chain outermost first; returns the leaf's stack index, -1 for none. */
static json_int_t stack_of(struct ff_thread *t, const struct export_samples *x,
			   struct sym_session *sym, const struct xs_sample *s)
{
	size_t n;
	const uint32_t *ids = export_samples__stack(x, s, &n);
	json_int_t prefix = -1;

	for (size_t j = n; j-- > 0;) {
		const struct xs_loc *l = &x->locs[ids[j]];

		for (uint32_t k = l->sym->nr_frames; k-- > 0;) {
			uint32_t frame = frame_of(t, x, sym, ids[j], k);
			uint32_t key[2] = { (uint32_t)(prefix + 1), frame };
			bool fresh;
			uint32_t id = key_of(&t->stack_keys, key, 2, &fresh);

			if (fresh) {
				json_array_append_new(t->st_frame, json_integer(frame));
				json_array_append_new(t->st_prefix, prefix < 0
									    ? json_null()
									    : json_integer(prefix));
				json_array_append_new(
					t->st_cat, json_integer(l->kernel ? CAT_KERNEL : CAT_USER));
			}
			prefix = id;
		}
	}
	return prefix;
}

/* A column of n copies of v (taken). */
static json_t *repeat(json_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append(a, v);
	json_decref(v);
	return a;
}

static double ms_since(uint64_t t, uint64_t origin)
{
	return t >= origin ? (double)(t - origin) / 1e6 : -((double)(origin - t) / 1e6);
}

/* The thread's waits off the CPU and its regions, as interval markers. */
static void thread_markers(struct ff_thread *t, struct gx_result *r, const struct xs_thread *th,
			   uint64_t origin)
{
	struct profile_offcpu *oc = gx_result__offcpu(r);
	size_t n = 0;
	const struct profile_off_span *sp = oc ? profile_offcpu__spans(oc, &n) : NULL;

	for (size_t i = 0; i < n; i++) {
		char *name;

		if (sp[i].tid != th->tid)
			continue;
		name = xasprintf("off-CPU: %s", profile_off_reason__name(sp[i].reason));
		json_array_append_new(t->mk_name, json_integer(str_of(t, name)));
		json_array_append_new(t->mk_start, json_real(ms_since(sp[i].start, origin)));
		json_array_append_new(t->mk_end, json_real(ms_since(sp[i].end, origin)));
		free(name);
	}
	for (size_t i = 0; i < gx_result__nr_regions(r); i++) {
		const struct gx_region *g = gx_result__region(r, i);

		if (g->tid != th->tid || g->pid != th->pid)
			continue;
		json_array_append_new(t->mk_name, json_integer(str_of(t, g->name)));
		json_array_append_new(t->mk_start, json_real(ms_since(g->begin, origin)));
		json_array_append_new(t->mk_end, json_real(ms_since(g->end, origin)));
	}
}

/* A table object: its columns (taken) and length. */
static json_t *table(size_t len, const char *const *names, json_t *const *cols, size_t n)
{
	json_t *o = json_pack("{s:I}", "length", (json_int_t)len);

	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, names[i], cols[i]);
	return o;
}

/*
 * How a sample of value e weighs in the viewer: a sampled event's sample
 * counts one (no weight column: "samples", from which the profiler also
 * draws its traced time); a value whose samples carry their own amount
 * (off-CPU waits: a wait's ns) weighs that amount, a time in ms
 * ("tracing-ms", the profiler's weight of traced time), a count as
 * "samples" with weights. NULL: no weights.
 */
static const char *weight_type(const struct gx_result *r, size_t e)
{
	if (gx_result__event(r, e)->source == GX_SOURCE_PERIOD)
		return NULL;
	return !strcmp(export_unit(r, e), "nanoseconds") ? "tracing-ms" : "samples";
}

static json_t *thread_tables(struct ff_thread *t, json_t *stack, json_t *time, json_t *weight,
			     const char *wtype)
{
	size_t nf = json_array_size(t->fr_func), ns = json_array_size(t->st_frame);
	size_t nfn = json_array_size(t->fn_name), nm = json_array_size(t->mk_name);
	size_t nsa = json_array_size(stack);
	json_t *o = json_object();

	json_object_set_new(o, "samples",
			    table(nsa, (const char *[]){ "stack", "time", "weight", "weightType" },
				  (json_t *[]){ stack, time, weight ? weight : json_null(),
						json_string(wtype ? wtype : "samples") },
				  4));
	json_object_set_new(o, "stackTable",
			    table(ns,
				  (const char *[]){ "frame", "prefix", "category", "subcategory" },
				  (json_t *[]){ t->st_frame, t->st_prefix, t->st_cat,
						repeat(json_integer(0), ns) },
				  4));
	json_object_set_new(
		o, "frameTable",
		table(nf,
		      (const char *[]){ "address", "inlineDepth", "category", "subcategory", "func",
					"nativeSymbol", "innerWindowID", "implementation", "line",
					"column" },
		      (json_t *[]){ t->fr_addr, t->fr_depth, t->fr_cat, repeat(json_integer(0), nf),
				    t->fr_func, t->fr_sym, repeat(json_integer(0), nf),
				    repeat(json_null(), nf), t->fr_line, repeat(json_null(), nf) },
		      10));
	json_object_set_new(
		o, "funcTable",
		table(nfn,
		      (const char *[]){ "name", "isJS", "relevantForJS", "resource", "fileName",
					"lineNumber", "columnNumber" },
		      (json_t *[]){ t->fn_name, repeat(json_false(), nfn),
				    repeat(json_false(), nfn), t->fn_res, t->fn_file,
				    repeat(json_null(), nfn), repeat(json_null(), nfn) },
		      7));
	json_object_set_new(
		o, "resourceTable",
		table(json_array_size(t->res_lib),
		      (const char *[]){ "lib", "name", "host", "type" },
		      (json_t *[]){ t->res_lib, t->res_name,
				    repeat(json_null(), json_array_size(t->res_lib)),
				    repeat(json_integer(1), json_array_size(t->res_lib)) },
		      4));
	json_object_set_new(o, "nativeSymbols",
			    table(json_array_size(t->sym_lib),
				  (const char *[]){ "libIndex", "address", "name", "functionSize" },
				  (json_t *[]){ t->sym_lib, t->sym_addr, t->sym_name,
						repeat(json_null(), json_array_size(t->sym_lib)) },
				  4));
	json_object_set_new(
		o, "markers",
		table(nm,
		      (const char *[]){ "data", "name", "startTime", "endTime", "phase",
					"category" },
		      (json_t *[]){ repeat(json_null(), nm), t->mk_name, t->mk_start, t->mk_end,
				    repeat(json_integer(1), nm), repeat(json_integer(0), nm) },
		      6));
	json_object_set_new(o, "stringArray", t->strings);
	return o;
}

/* The comm of process pid (its process row), else the thread's. */
static const char *process_name(struct gx_result *r, const struct xs_thread *th)
{
	size_t nr;
	const struct profile_row *const *rows =
		profile__rows(gx_result__profile(r), PROFILE_BY_PROCESS, 0, &nr);

	for (size_t i = 0; i < nr; i++)
		if (rows[i]->pid == th->pid)
			return rows[i]->name;
	return th->name;
}

static json_t *thread_json(struct export_samples *x, struct gx_result *r, size_t e,
			   const struct xs_thread *th)
{
	struct sym_session *sym = gx_result__symbolizer(r);
	const char *wtype = weight_type(r, e);
	struct ff_thread t;
	json_t *stack = json_array(), *time = json_array(), *o;
	json_t *weight = wtype ? json_array() : NULL;
	char pid[16], tid[16];

	ff_thread__init(&t);
	for (size_t i = 0; i < th->nr; i++) {
		const struct xs_sample *s = &x->samples[th->idx[i]];
		json_int_t st = stack_of(&t, x, sym, s);

		json_array_append_new(stack, st < 0 ? json_null() : json_integer(st));
		json_array_append_new(time, json_real(ms_since(s->time, x->first)));
		if (weight)
			json_array_append_new(weight, !strcmp(wtype, "tracing-ms")
							      ? json_real((double)s->period / 1e6)
							      : json_integer((json_int_t)s->period));
	}
	thread_markers(&t, r, th, x->first);
	o = thread_tables(&t, stack, time, weight, wtype);
	snprintf(pid, sizeof(pid), "%u", th->pid);
	snprintf(tid, sizeof(tid), "%u", th->tid);
	json_object_update_new(
		o, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:i, s:n, s:f, s:n, s:[]}", "name",
			     gx_utf8(th->name), "processName", gx_utf8(process_name(r, th)),
			     "processType", "default", "pid", pid, "tid", tid, "isMainThread",
			     th->tid == th->pid, "processStartupTime", 0, "processShutdownTime",
			     "registerTime", ms_since(th->first, x->first), "unregisterTime",
			     "pausedRanges"));
	ff_thread__exit(&t);
	return o;
}

static void hex(char *out, const uint8_t *id, size_t n, bool upper)
{
	static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
	const char *d = upper ? up : lo;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[id[i] >> 4];
		out[2 * i + 1] = d[id[i] & 15];
	}
	out[2 * n] = 0;
}

/*
 * A library: path and name, and from an ELF build-id the two ids symbol
 * servers know it by: codeId, the build-id in hex, and breakpadId, its
 * first 16 bytes as a GUID (the first three fields little-endian, as
 * Breakpad reads them) followed by the age, 0.
 */
static json_t *lib_json(const struct xs_lib *l)
{
	char code[41] = "", bp[34] = "";
	json_t *o;

	if (l->build_id_size) {
		uint8_t g[16] = { 0 };
		static const uint8_t order[16] = { 3, 2, 1,  0,	 5,  4,	 7,  6,
						   8, 9, 10, 11, 12, 13, 14, 15 };

		hex(code, l->build_id, l->build_id_size, false);
		for (size_t i = 0; i < 16 && i < l->build_id_size; i++)
			g[i] = l->build_id[order[i]];
		hex(bp, g, 16, true);
		strcat(bp, "0");
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", gx_utf8(base_name(l->path)), "path",
		      gx_utf8(l->path), "debugName", gx_utf8(base_name(l->path)), "debugPath",
		      gx_utf8(l->path), "breakpadId", bp, "arch", "");
	json_object_set_new(o, "codeId", *code ? json_string(code) : json_null());
	return o;
}

static json_t *meta_json(struct gx_result *r, size_t e)
{
	const struct perf_event_attr *a = gx_result__event(r, e)->attr;
	double interval = 1;
	const struct gx_meta *m = gx_result__meta(r);
	char *product = m && m->argv && m->argv[0]
				? xasprintf("gexplore: %s", base_name(m->argv[0]))
				: xstrdup("gexplore");
	json_t *o;

	if (!strcmp(export_unit(r, e), "nanoseconds"))
		interval = a->freq	   ? (a->sample_freq ? 1000.0 / (double)a->sample_freq : 1)
			   : a->sample_period ? (double)a->sample_period / 1e6
					      : 1; /* a value of no period (off-CPU) */
	o = json_pack("{s:i, s:i, s:f, s:i, s:s, s:i, s:b, s:b, s:i, s:[], s:b, s:b, s:b, s:b,"
		      " s:{s:i, s:[], s:[], s:[]}, s:s}",
		      "version", FF_GECKO_VERSION, "preprocessedProfileVersion",
		      FF_PROCESSED_VERSION, "interval", interval, "startTime", 0, "product",
		      gx_utf8(product), "processType", 0, "symbolicated", true, "debug", false,
		      "stackwalk", 1, "markerSchema", "usesOnlyOneStackType", true,
		      "doesNotUseFrameImplementation", true, "sourceCodeIsNotOnSearchfox", true,
		      "presymbolicated", true, "extensions", "length", 0, "id", "baseURL", "name",
		      "importedFrom", "gexplore " PACKAGE_VERSION);
	json_object_set_new(o, "categories",
			    json_pack("[{s:s, s:s, s:[s]}, {s:s, s:s, s:[s]}, {s:s, s:s, s:[s]}]",
				      "name", "Other", "color", "grey", "subcategories", "Other",
				      "name", "User", "color", "yellow", "subcategories", "Other",
				      "name", "Kernel", "color", "orange", "subcategories",
				      "Other"));
	free(product);
	return o;
}

/*
 * The other sampled events as counter tracks, one per event and process
 * that has a thread in the file: each sample a point at its time whose
 * count is its period (a track the profiler draws above the process).
 */
static json_t *counters_json(struct export_samples *x, struct gx_result *r, size_t e)
{
	json_t *out = json_array();
	size_t *idx = xcalloc(x->nr_samples + 1, sizeof(*idx));

	for (size_t ev = 0; ev < gx_result__nr_events(r); ev++)
		for (size_t t = 0; ev != e && t < x->nr_threads; t++) {
			uint32_t pid = x->threads[t].pid;
			json_t *time, *count;
			size_t n = 0, seen = 0;
			char spid[16];

			while (seen < t && x->threads[seen].pid != pid)
				seen++;
			if (seen < t)
				continue; /* one track per process: its first thread's */
			time = json_array();
			count = json_array();
			for (size_t i = 0; i < x->nr_samples; i++)
				if (x->samples[i].evsel == ev && x->samples[i].pid == pid)
					idx[n++] = i;
			export_samples__sort(x, idx, n);
			for (size_t i = 0; i < n; i++) {
				const struct xs_sample *s = &x->samples[idx[i]];

				json_array_append_new(time, json_real(ms_since(s->time, x->first)));
				json_array_append_new(count, json_integer((json_int_t)s->period));
			}
			if (!n) {
				json_decref(time);
				json_decref(count);
				continue;
			}
			snprintf(spid, sizeof(spid), "%u", pid);
			json_array_append_new(
				out,
				json_pack("{s:s, s:s, s:s, s:s, s:I, s:{s:I, s:o, s:o, s:o}}",
					  "name", gx_utf8(gx_result__event(r, ev)->name),
					  "category", "gexplore", "description",
					  "the event's samples (their periods) over time", "pid",
					  spid, "mainThreadIndex", (json_int_t)t, "samples",
					  "length", (json_int_t)n, "time", time, "count", count,
					  "number", repeat(json_integer(1), n)));
		}
	free(idx);
	return out;
}

/* The threads that only waited (off the CPU, no sample of the event): a
 * thread each with its markers and no samples, so no wait goes missing. */
static void waiting_threads(struct export_samples *x, struct gx_result *r, size_t e,
			    json_t *threads)
{
	struct profile_offcpu *oc = gx_result__offcpu(r);
	size_t n = oc ? profile_offcpu__nr_threads(oc) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct profile_off_thread *ot = profile_offcpu__thread(oc, i);
		struct xs_thread th = {
			.pid = ot->pid, .tid = ot->tid, .name = ot->comm, .first = ot->start
		};
		size_t t = 0;

		while (t < x->nr_threads && x->threads[t].tid != ot->tid)
			t++;
		if (t == x->nr_threads && ot->waits)
			json_array_append_new(threads, thread_json(x, r, e, &th));
	}
}

int export_firefox__write(struct export_samples *x, struct gx_result *r, size_t e, const char *path,
			  char **cause)
{
	json_t *root, *threads = json_array(), *libs = json_array();
	char *text;
	int err;

	export_samples__threads(x, r, e);
	for (size_t i = 0; i < x->nr_libs; i++)
		json_array_append_new(libs, lib_json(&x->libs[i]));
	for (size_t t = 0; t < x->nr_threads; t++)
		json_array_append_new(threads, thread_json(x, r, e, &x->threads[t]));
	waiting_threads(x, r, e, threads);
	root = json_pack("{s:o, s:o, s:o, s:o, s:[], s:[]}", "meta", meta_json(r, e), "libs", libs,
			 "threads", threads, "counters", counters_json(x, r, e), "pages",
			 "profilerOverhead");
	text = json_dumps(root, JSON_COMPACT);
	err = export_write_file(path, text, strlen(text), cause);
	free(text);
	json_decref(root);
	return err;
}
