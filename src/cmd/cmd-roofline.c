/*
 * gexplore report --roofline [FILE.svg|FILE.html]: the machine's roofs from
 * its stored `gexplore peak` results (measured now with --quick when there
 * are none), and the recording's points when it has FP-operation and
 * memory-traffic events: the whole run and each module. Per-function points
 * will use the function rows of the profile once it has them.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-int.h"
#include "peak/peak.h"
#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "result/result.h"
#include "roofline/roofline.h"
#include "util/util.h"

/* The stored peak document, or a fresh --quick measurement (saved). */
static json_t *load_peak(struct roofline *rl)
{
	char *path = peak_cache_path(), *cause = NULL;
	struct peak_opts o = { .quick = true };
	struct peak_result res;
	json_t *doc = path ? json_load_file(path, 0, NULL) : NULL;

	if (doc) {
		roofline__note(rl, "roofs from %s", path);
		free(path);
		return doc;
	}
	fprintf(stderr, "gexplore: no stored peak results for this machine: running "
		"`gexplore peak --quick` (a few seconds)\n");
	if (peak_run(&o, &res, &cause) != 0) {
		cmd_error("peak: %s", cause ? cause : "failed");
		free(cause);
		free(path);
		return NULL;
	}
	doc = peak_result__to_json(&res);
	peak_result__exit(&res);
	if (path && peak_save(doc, path, &cause) == 0)
		roofline__note(rl, "roofs measured now by `gexplore peak --quick`, saved to %s", path);
	else
		roofline__note(rl, "roofs measured now by `gexplore peak --quick` (not saved%s%s)",
			       cause ? ": " : "", cause ? cause : "");
	free(cause);
	free(path);
	return doc;
}

/* Points of the recording: the whole run and its hottest functions. */
static void add_points(struct roofline *rl, const char *result, const char *parent, double ghz)
{
	struct gx_result_opts oo = { .parent = parent };
	struct gx_result *res = NULL;
	struct roofline_events ev;
	char *cause = NULL;
	const char **names = NULL, *why;
	size_t n;

	if (gx_result__open(&res, result, &oo, &cause) != 0) {
		roofline__note(rl, "no points: %s", cause ? cause : "no recording");
		goto out;
	}
	n = gx_result__nr_events(res);
	names = xcalloc(n ? n : 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = gx_result__event(res, i)->name;
	if (!roofline_events_classify(names, n, ghz, &ev, &why)) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < n; i++)
			strbuf__addf(&sb, "%s%s", i ? ", " : "", names[i]);
		roofline__note(rl, "no points: %s (it has: %s). Record FLOPs and memory lines, "
			       "e.g. `gexplore record -e fp_ret_sse_avx_ops.all,"
			       "ls_any_fills_from_sys.dram_io_all,cpu-clock` on Zen 4 or -e "
			       "FP_ARITH_INST_RETIRED.*,LONGEST_LAT_CACHE.MISS on Intel; see "
			       "`gexplore list`", why, sb.buf ? sb.buf : "nothing");
		strbuf__exit(&sb);
		goto out;
	}
	if (!roofline__add_profile_points(rl, names, n, gx_result__profile(res), PROFILE_BY_FUNCTION,
					  12, ghz, &why)) {
		roofline__note(rl, "no points: %s", why);
		goto out;
	}
	roofline__note(rl, "points are the whole run and its hottest functions; FLOPs and bytes "
		       "are sample estimates, bytes count memory lines (64 B) only");
out:
	free(names);
	gx_result__delete(res);
	free(cause);
}

int report_roofline(const char *result, const char *parent, const char *file)
{
	struct roofline rl = { 0 }, notes = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;
	json_t *doc = load_peak(&notes);
	double ghz;
	int ret = GX_EXIT_FAIL;

	if (!doc)
		goto out;
	if (roofline__init_from_peak(&rl, doc, &cause) != 0) {
		cmd_error("roofline: %s", cause);
		goto out;
	}
	for (size_t i = 0; i < notes.nr_notes; i++)
		roofline__note(&rl, "%s", notes.notes[i]);
	ghz = json_real_value(json_object_get(json_object_get(doc, "clock"), "ghz"));
	add_points(&rl, result, parent, ghz);
	roofline__text(&rl, &sb, 64, 20);
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf__exit(&sb);
	if (file) {
		const char *dot = strrchr(file, '.');
		FILE *f;

		if (dot && !strcmp(dot, ".html"))
			roofline__html(&rl, &sb);
		else
			roofline__svg(&rl, &sb);
		f = fopen(file, "w");
		if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len || fclose(f) != 0) {
			cmd_error("writing %s: %s", file, strerror(errno));
			goto out;
		}
		printf("\nWrote %s\n", file);
	}
	ret = GX_EXIT_OK;
out:
	strbuf__exit(&sb);
	roofline__exit(&rl);
	roofline__exit(&notes);
	json_decref(doc);
	free(cause);
	return ret;
}
