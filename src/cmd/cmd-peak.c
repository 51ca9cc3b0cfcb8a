/*
 * gexplore peak: measure what this processor can do (instruction latency
 * and throughput, bandwidth per cache level, load latency, instruction
 * mixes), print it, and keep it per machine for `gexplore report --roofline`.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-int.h"
#include "model/model.h"
#include "peak/peak.h"
#include "util/util.h"

static void progress(void *arg, const char *what)
{
	(void)arg;
	fprintf(stderr, "\r\033[K  measuring %s", what);
	fflush(stderr);
}

struct peak_cmd_opts {
	struct peak_opts peak;
	bool json, no_save, list;
	const char *output;
	const char *save;	/* --save FILE: a machine description */
};

static const struct cmd_option peak_options[] = {
	CMD_OPT_BOOL('q', "quick", struct peak_cmd_opts, peak.quick,
		     "fewer samples and sizes; finishes in a few seconds"),
	CMD_OPT_BOOL('j', "json", struct peak_cmd_opts, json, "print the JSON document instead of the table"),
	CMD_OPT_STRING('t', "tests", struct peak_cmd_opts, peak.tests, "LIST",
		       "only the tests matching these comma-separated patterns or groups", "all"),
	CMD_OPT_UINT(0, "threads", struct peak_cmd_opts, peak.max_threads, "N",
		     "use at most N CPUs for the all-core and contention tests", "every CPU",
		     1, 65536, "a number of CPUs"),
	CMD_OPT_STRING('o', "output", struct peak_cmd_opts, output, "FILE",
		       "save the JSON document to FILE instead of the cache", NULL),
	CMD_OPT_BOOL(0, "no-save", struct peak_cmd_opts, no_save,
		     "do not save the results"),
	CMD_OPT_STRING(0, "save", struct peak_cmd_opts, save, "FILE",
		       "write a machine description for record --model=FILE: the figures of "
		       "3 runs, each kept only where its runs agree within 10%", NULL),
	CMD_OPT_BOOL(0, "list", struct peak_cmd_opts, list, "list the test names and groups"),
	CMD_OPT_BOOL(0, "single-sample", struct peak_cmd_opts, peak.single_sample,
		     "time every kernel once: no minimum over samples"),
	CMD_OPT_END(),
};

/* How many runs --save takes, and how far apart their figures may lie
 * (a share: 10 points). */
#define SAVE_RUNS 3
#define SAVE_BOUND 0.10

/* --save FILE: SAVE_RUNS runs, their figures over this CPU's shipped
 * description, written as a description of its own. */
static int save_machine(struct peak_opts *o, const char *file)
{
	struct model_machine base, mm;
	json_t *docs[SAVE_RUNS] = { 0 }, *out;
	char *cause = NULL, **notes = NULL, *name;
	size_t nr_notes = 0, runs = 0;
	int err, ret = GX_EXIT_FAIL, measured = 0;

	err = model_machine__load(&base, NULL, &cause);
	if (err) {
		cmd_error("--save: %s", cause);
		free(cause);
		return GX_EXIT_FAIL;
	}
	for (; runs < SAVE_RUNS; runs++) {
		struct peak_result res;

		err = peak_run(o, &res, &cause);
		if (o->progress)
			fprintf(stderr, "\r\033[K");
		if (err) {
			cmd_error("%s", cause ? cause : gx_strerror(err));
			ret = err == -EINVAL ? GX_EXIT_USAGE : GX_EXIT_FAIL;
			goto out;
		}
		docs[runs] = peak_result__to_json(&res);
		peak_result__exit(&res);
	}
	name = xasprintf("%s-measured", base.name);
	model_machine__from_peak(&mm, &base, docs, runs, SAVE_BOUND, name, &notes, &nr_notes);
	free(name);
	for (size_t i = 0; i < nr_notes; i++)
		cmd_warn("%s", notes[i]);
	for (int p = 0; p < MP_NR; p++)
		measured += model_machine__measured(&mm, p);
	out = model_machine__to_json(&mm);
	err = peak_save(out, file, &cause);
	json_decref(out);
	if (err) {
		cmd_error("--save: %s", cause);
	} else {
		printf("Saved machine description '%s' to %s: %d figures measured here (%zu "
		       "refused), the rest %s's; record --model=%s prices by it\n", mm.name,
		       gx_esc(file), measured, nr_notes, base.name, gx_esc(file));
		ret = GX_EXIT_OK;
	}
	model_machine__exit(&mm);
	gx_free_strv(notes, nr_notes);
out:
	for (size_t i = 0; i < runs; i++)
		json_decref(docs[i]);
	model_machine__exit(&base);
	free(cause);
	return ret;
}

static int cmd_peak_exec(int argc, char **argv)
{
	struct peak_cmd_opts po = { 0 };
	struct peak_opts o;
	struct peak_result res;
	struct strbuf sb = STRBUF_INIT;
	bool json, save;
	const char *output;
	char *cause = NULL, *path = NULL;
	json_t *doc;
	int err, ret = GX_EXIT_FAIL;
	struct cmd_args a;

	if (cmd_parse(&cmd_peak_entry, &po, argc, argv, &a))
		return a.exit;
	if (po.list) {
		for (const char *const *n = peak_test_names(); *n; n++)
			printf("%s\n", *n);
		printf("fma+load\nfma+fadd\nfma+store\nload+store\n");
		printf("bandwidth\ncontention\nlatency\ntlb\nbranch\nicache\npage\n");
		printf("groups: int fp vec load store mix mem\n");
		return GX_EXIT_OK;
	}
	o = po.peak;
	json = po.json;
	save = !po.no_save;
	output = po.output;
	if (isatty(STDERR_FILENO)) {
		o.progress = progress;
		fprintf(stderr, "gexplore peak: pinning to one CPU; keep the machine otherwise idle\n");
	}
	if (po.save)
		return save_machine(&o, po.save);
	err = peak_run(&o, &res, &cause);
	if (o.progress)
		fprintf(stderr, "\r\033[K");
	if (err) {
		cmd_error("%s", cause ? cause : gx_strerror(err));
		ret = err == -EINVAL ? GX_EXIT_USAGE : GX_EXIT_FAIL;
		goto out;
	}
	doc = peak_result__to_json(&res);
	if (json) {
		char *s = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(6));

		printf("%s\n", s);
		free(s);
	} else {
		peak_result__print(&res, &sb);
		fwrite(sb.buf, 1, sb.len, stdout);
	}
	ret = GX_EXIT_OK;
	/* A partial run (--tests) is not the machine's full picture: keep only full ones. */
	if (output)
		path = xstrdup(output);
	else if (save && !o.tests && !o.single_sample)
		path = peak_cache_path();
	if (path) {
		err = peak_save(doc, path, &cause);
		if (err) {
			cmd_warn("not saved: %s", cause);
		} else if (!json) {
			printf("\nSaved to %s\n", path);
		}
	}
	json_decref(doc);
	peak_result__exit(&res);
out:
	strbuf__exit(&sb);
	free(path);
	free(cause);
	fflush(stdout);
	return ret;
}

GX_COMMAND(peak, "", 0,
	   "measure this processor's peaks (latency, throughput, bandwidth)");
