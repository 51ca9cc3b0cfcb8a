#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "cmd-int.h"
#include "topdown/topdown.h"

/*
 * `gexplore topdown`: evaluate a model's tree on event totals measured
 * elsewhere (perf stat output, CSV, or EVENT VALUE lines).
 */

static char *read_input(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char buf[8192];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf__add(&sb, buf, n);
	if (ferror(f)) {
		if (f != stdin)
			fclose(f);
		strbuf__exit(&sb);
		errno = EIO;
		return NULL;
	}
	if (f != stdin)
		fclose(f);
	return strbuf__detach(&sb);
}

/* True when every level-1 node is n/a (the events of this variant are absent). */
static bool level1_missing(const struct td_model *m, const struct td_result *res)
{
	bool any = false;

	for (size_t i = 0; i < res->nr; i++) {
		if (td_model__node(m, i)->level != 1)
			continue;
		any = true;
		if (!res->v[i].na)
			return false;
	}
	return any;
}

struct topdown_opts {
	const char *cpu, *counts, *variant;
	int smt;	/* enum td_smt */
	bool core_wide, json, brief;
};

static const struct cmd_enum smt_names[] = {
	{ "on", TD_SMT_ON }, { "off", TD_SMT_OFF }, { NULL, 0 },
};

static const struct cmd_option topdown_options[] = {
	CMD_OPT_STRING(0, "cpu", struct topdown_opts, cpu, "MODEL", "the model to evaluate",
		       "this CPU's"),
	CMD_OPT_STRING(0, "counts", struct topdown_opts, counts, "FILE",
		       "the event counts: perf stat output, CSV or NAME VALUE lines; - for stdin",
		       NULL),
	CMD_OPT_ENUM(0, "smt", struct topdown_opts, smt, smt_names,
		     "whether SMT was on where the counts were taken", "unknown: as off"),
	CMD_OPT_BOOL(0, "core-wide", struct topdown_opts, core_wide,
		     "every SMT sibling was measured (system-wide), so per-core events count"),
	CMD_OPT_STRING(0, "variant", struct topdown_opts, variant, "NAME",
		       "the formulas of one of the model's variants", "default"),
	CMD_OPT_BOOL(0, "json", struct topdown_opts, json, "print JSON"),
	CMD_OPT_BOOL(0, "brief", struct topdown_opts, brief, "only level 1 and the children of flagged nodes"),
	CMD_OPT_END(),
};

static int cmd_topdown_exec(int argc, char **argv)
{
	struct topdown_opts o = { .smt = TD_SMT_UNKNOWN };
	struct td_ctx ctx = { .smt = TD_SMT_UNKNOWN };
	struct td_result res = { .bottleneck = -1 };
	const char *cpu, *path;
	char *detected = NULL, *cause = NULL, *text = NULL;
	struct td_model *m = NULL;
	double *counts = NULL;
	bool json, brief;
	size_t unknown = 0;
	int err, ret = GX_EXIT_OK;
	struct cmd_args a;

	if (cmd_parse(&cmd_topdown_entry, &o, argc, argv, &a))
		return a.exit;
	if (!o.counts) {
		cmd_error_in("topdown", "--counts FILE: the counts to evaluate");
		return cmd_usage(&cmd_topdown_entry);
	}
	cpu = o.cpu;
	path = o.counts;
	ctx.smt = (enum td_smt)o.smt;
	ctx.core_wide = o.core_wide;
	ctx.variant = o.variant;
	json = o.json;
	brief = o.brief;
	if (!cpu)
		cpu = detected = td_detect_model();
	err = td_model__load(cpu, NULL, &m, &cause);
	if (err) {
		cmd_error("topdown: %s", cause);
		ret = err == -ENOENT ? GX_EXIT_USAGE : GX_EXIT_FAIL;
		goto out;
	}
	if (detected && !ctx.variant) {	/* this CPU's revision (N2 r0p3) */
		struct td_cpu c;

		td_cpu_detect(&c);
		ctx.variant = td_model__cpu_variant(m, &c);
	}
	text = read_input(path);
	if (!text) {
		cmd_error("topdown: %s: %s", path, strerror(errno));
		ret = GX_EXIT_USAGE;
		goto out;
	}
	counts = calloc(td_model__nr_events(m) + 1, sizeof(double));
	if (!counts) {
		ret = GX_EXIT_FAIL;
		goto out;
	}
	err = td_counts_parse(m, text, strcmp(path, "-") == 0 ? "<stdin>" : path, counts, &unknown,
			      &cause);
	if (err) {
		cmd_error("topdown: %s", cause);
		ret = GX_EXIT_USAGE;
		goto out;
	}
	err = td_eval(m, counts, &ctx, &res, &cause);
	if (err) {
		cmd_error("topdown: %s", cause);
		ret = GX_EXIT_USAGE;
		goto out;
	}
	/* PERF_METRICS absent but the general-counter events present: use them */
	if (!ctx.variant && td_model__fallback_variant(m) && level1_missing(m, &res)) {
		struct td_result alt;

		ctx.variant = td_model__fallback_variant(m);
		if (td_eval(m, counts, &ctx, &alt, NULL) == 0 && !level1_missing(m, &alt)) {
			td_result__exit(&res);
			res = alt;
		} else {
			if (alt.v)
				td_result__exit(&alt);
			ctx.variant = NULL;
		}
	}
	if (json) {
		json_t *root = td_result__to_json(m, &res, &ctx);
		char *s;

		json_object_set_new(root, "unknown_events", json_integer((json_int_t)unknown));
		s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		printf("%s\n", s);
		free(s);
		json_decref(root);
	} else {
		struct strbuf sb = STRBUF_INIT;

		printf("Model %s%s%s, SMT %s\n\n", td_model__id(m), res.variant ? ", variant " : "",
		       res.variant ? res.variant : "",
		       ctx.smt == TD_SMT_ON ? "on" : ctx.smt == TD_SMT_OFF ? "off" : "unknown");
		td_result__print(m, &res, &sb, brief ? 0 : TD_PRINT_ALL);
		fputs(sb.buf ? sb.buf : "", stdout);
		strbuf__exit(&sb);
		printf("\n(< below threshold, <== bottleneck, n/a not measured)\n");
	}
out:
	td_result__exit(&res);
	free(counts);
	free(text);
	td_model__delete(m);
	free(detected);
	free(cause);
	return ret;
}

const struct cmd_entry cmd_topdown_entry = {
	.name = "topdown", .usage = "--counts FILE",
	.exec = cmd_topdown_exec, .options = topdown_options, .max_args = 0,
	.summary = "evaluate the top-down tree on event counts measured elsewhere",
};
