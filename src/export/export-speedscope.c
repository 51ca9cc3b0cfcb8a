/*
 * export-speedscope.c: a result in speedscope's file format (its published
 * JSON schema, https://www.speedscope.app/file-format-schema.json): one
 * "sampled" profile per thread, its samples in time order, each a stack
 * of indexes into the shared frames, root first, weighted by the sample's
 * period of the chosen event (nanoseconds for the clocks, a count
 * otherwise). A frame is a function with its source file and the lowest
 * line the samples saw in it (near its start); inlined functions are
 * frames of their own, as the call paths of report show them.
 */
#include "config.h"

#include "export.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-int.h"
#include "result/result.h"
#include "symbolize/symbolize.h"

struct ss_frames {
	struct u32seq keys; /* (function, file) string ids -> frame index */
	json_t *arr;	    /* the shared frames */
	uint32_t *line;	    /* lowest line seen per frame */
	size_t nr, cap;
};

/* The frame index of one symbolized function (inline level k of res). */
static uint32_t frame_of(struct ss_frames *fr, struct sym_session *sym,
			 const struct sym_result *res, uint32_t k)
{
	const struct sym_frame *f = &res->frames[k];
	uint32_t key[2] = { f->function, f->file != SYM_STR_NONE ? f->file : res->module };
	uint32_t id = u32seq__intern(&fr->keys, key, 2);

	if (id == fr->nr) {
		const char *name = f->function ? sym_session__str(sym, f->function) : "[unknown]";
		json_t *o = json_pack("{s:s}", "name", gx_utf8(name));

		if (key[1] != SYM_STR_NONE)
			json_object_set_new(o, "file",
					    json_string(gx_utf8(sym_session__str(sym, key[1]))));
		json_array_append_new(fr->arr, o);
		fr->line = xgrow(fr->line, &fr->cap, fr->nr + 1, sizeof(*fr->line));
		fr->line[fr->nr++] = 0;
	}
	if (f->line && (!fr->line[id] || f->line < fr->line[id]))
		fr->line[id] = f->line;
	return id;
}

/* One thread's profile: its samples' stacks (root first) and weights. */
static json_t *thread_profile(struct export_samples *x, const struct xs_thread *th,
			      struct ss_frames *fr, struct sym_session *sym, const char *unit,
			      const char *event)
{
	json_t *samples = json_array(), *weights = json_array(), *o;
	char *name = xasprintf("%s (%u): %s, %zu samples", gx_utf8(th->name), th->tid,
			       gx_utf8(event), th->nr);
	uint64_t sum = 0;

	for (size_t i = 0; i < th->nr; i++) {
		const struct xs_sample *s = &x->samples[th->idx[i]];
		size_t n;
		const uint32_t *ids = export_samples__stack(x, s, &n);
		json_t *st = json_array();

		for (size_t j = n; j-- > 0;) {
			const struct sym_result *res = x->locs[ids[j]].sym;

			for (uint32_t k = res->nr_frames; k-- > 0;)
				json_array_append_new(st, json_integer(frame_of(fr, sym, res, k)));
		}
		json_array_append_new(samples, st);
		json_array_append_new(weights, json_integer((json_int_t)s->period));
		sum += s->period;
	}
	o = json_pack("{s:s, s:s, s:s, s:i, s:I, s:o, s:o}", "type", "sampled", "name", name,
		      "unit", unit, "startValue", 0, "endValue", (json_int_t)sum, "samples",
		      samples, "weights", weights);
	free(name);
	return o;
}

int export_speedscope__write(struct export_samples *x, struct gx_result *r, size_t e,
			     const char *path, char **cause)
{
	struct ss_frames fr = { .arr = json_array() };
	struct sym_session *sym = gx_result__symbolizer(r);
	const char *event = gx_result__event(r, e)->name;
	json_t *root, *profiles = json_array();
	json_int_t heaviest = 0, most = -1;
	char *text;
	int err;

	u32seq__init(&fr.keys);
	export_samples__threads(x, r, e);
	for (size_t t = 0; t < x->nr_threads; t++) {
		json_t *p = thread_profile(x, &x->threads[t], &fr, sym, export_unit(r, e), event);
		json_int_t w = json_integer_value(json_object_get(p, "endValue"));

		if (w > most) {
			most = w;
			heaviest = (json_int_t)t;
		}
		json_array_append_new(profiles, p);
	}
	for (size_t i = 0; i < fr.nr; i++)
		if (fr.line[i])
			json_object_set_new(json_array_get(fr.arr, i), "line",
					    json_integer(fr.line[i]));
	/* speedscope opens on the thread with the most of the event */
	root = json_pack("{s:s, s:{s:o}, s:o, s:s, s:I, s:s}", "$schema",
			 "https://www.speedscope.app/file-format-schema.json", "shared", "frames",
			 fr.arr, "profiles", profiles, "name", gx_utf8(gx_result__path(r)),
			 "activeProfileIndex", heaviest, "exporter", "gexplore " PACKAGE_VERSION);
	text = json_dumps(root, JSON_COMPACT);
	err = export_write_file(path, text, strlen(text), cause);
	free(text);
	json_decref(root);
	free(fr.line);
	u32seq__exit(&fr.keys);
	return err;
}
