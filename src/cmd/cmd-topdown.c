#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd-int.h"
#include "mux/mux.h"
#include "topdown/topdown.h"

/*
 * `gexplore topdown`: evaluate a model's tree on event totals measured
 * elsewhere (perf stat output, CSV, or EVENT VALUE lines).
 */

/* The most --counts may hold: perf stat's output of 100 k rows of 64
 * events is about 400 MiB less than this bound needs; more is refused
 * before it is read rather than held in memory. */
#define COUNTS_MAX_BYTES ((size_t)256 << 20)

/* The text of --counts (path "-": stdin), or NULL with *cause: a
 * directory, binary data (a NUL byte: /dev/zero) or more than
 * COUNTS_MAX_BYTES is said so, and a read error by its name. */
static char *read_input(const char *path, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	struct stat st;
	char buf[8192];
	size_t n;

	if (!f) {
		gx_fail(cause, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		gx_fail(cause, -EISDIR, "%s is a directory; --counts takes a file of perf stat "
			"output, CSV or NAME VALUE lines", path);
		goto fail;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		const char *nul = memchr(buf, 0, n);

		if (nul) {
			gx_fail(cause, GX_E_FORMAT, "%s: a NUL byte at offset %zu: not text (perf "
				"stat output, CSV or NAME VALUE lines)", path,
				sb.len + (size_t)(nul - buf));
			goto fail;
		}
		if (sb.len + n > COUNTS_MAX_BYTES) {
			gx_fail(cause, GX_E_FORMAT, "%s: more than %zu MiB of counts; give fewer "
				"rows (a longer perf stat -I interval, or no -A)", path,
				COUNTS_MAX_BYTES >> 20);
			goto fail;
		}
		strbuf__add(&sb, buf, n);
	}
	if (ferror(f)) {
		gx_fail(cause, -errno, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	if (f != stdin)
		fclose(f);
	return strbuf__detach(&sb);
fail:
	if (f != stdin)
		fclose(f);
	strbuf__exit(&sb);
	return NULL;
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

/* Evaluate one row, falling back on the general-counter variant (spr) when
 * the default's level-1 events are absent; res is always initialized. */
static void eval_row(const struct td_model *m, const double *counts, struct td_ctx *ctx,
		     bool chosen_variant, struct td_result *res)
{
	*res = (struct td_result){ .bottleneck = -1 };
	if (td_eval(m, counts, ctx, res, NULL) != 0)
		return;
	if (!chosen_variant && td_model__fallback_variant(m) && level1_missing(m, res)) {
		struct td_ctx alt_ctx = *ctx;
		struct td_result alt = { .bottleneck = -1 };

		alt_ctx.variant = td_model__fallback_variant(m);
		if (td_eval(m, counts, &alt_ctx, &alt, NULL) == 0 && !level1_missing(m, &alt)) {
			td_result__exit(res);
			*res = alt;
		} else {
			td_result__exit(&alt);
		}
	}
}

/* "whole run", "CPU3", "0.200 s", "0.200 s CPU3" */
static char *row_label(const struct td_counts *c, size_t r)
{
	const struct td_counts_row *row = &c->rows[r];

	if (r == 0)
		return xstrdup(c->nr_rows > 1 ? (c->entity_kind && c->intervals ?
						  "whole run, every interval and entity" :
						  c->entity_kind ? "every entity (aggregate)" :
						  "whole run (every interval)") : "whole run");
	if (!isnan(row->time) && row->entity)
		return xasprintf("interval ending %.3f s, %s", row->time, row->entity);
	if (!isnan(row->time))
		return xasprintf("interval ending %.3f s", row->time);
	return xasprintf("%s %s", c->entity_kind ? c->entity_kind : "entity",
			 row->entity ? row->entity : "?");
}

/* Events the tree needs that this row lacks, with perf's reason. */
static void missing_events(const struct td_model *m, const struct td_ctx *ctx,
			   const struct td_counts_row *row, struct strbuf *sb, json_t *arr)
{
	int *idx = NULL;
	size_t n = 0;

	if (td_model__needed_events(m, ctx, -1, &idx, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *why = td_missing_str((enum td_missing)row->missing[idx[i]]);

		if (!isnan(row->counts[idx[i]]))
			continue;
		if (!why)
			why = "absent from the input";
		if (sb)
			strbuf__addf(sb, "%s  %s (%s)\n", sb->len ? "" : "n/a because:\n",
				     td_model__event(m, (size_t)idx[i])->id, why);
		if (arr)
			json_array_append_new(arr, json_pack("{s:s,s:s}", "event",
							    td_model__event(m, (size_t)idx[i])->id,
							    "reason", why));
	}
	free(idx);
}

static bool any_na(const struct td_model *m, const struct td_result *res)
{
	for (size_t i = 0; i < res->nr; i++)
		if (res->v[i].na && !td_model__node(m, i)->hidden)
			return true;
	return false;
}

/*
 * Without --smt the counts are evaluated as SMT off; the nodes SMT on would
 * move by more than a point are listed with both values.
 */
static void smt_both(const struct td_model *m, const double *counts, const struct td_ctx *ctx,
		     bool chosen_variant, const struct td_result *off, struct strbuf *sb,
		     json_t *arr)
{
	struct td_ctx on_ctx = *ctx;
	struct td_result on;

	on_ctx.smt = TD_SMT_ON;
	on_ctx.variant = off->variant;
	eval_row(m, counts, &on_ctx, chosen_variant || off->variant, &on);
	for (size_t i = 0; on.v && i < off->nr; i++) {
		const struct td_node *nd = td_model__node(m, i);
		double a = off->v[i].value, b = on.v[i].value;

		if (nd->hidden || nd->unit != TD_UNIT_FRACTION || isnan(a) || isnan(b) ||
		    fabs(a - b) <= 0.01)
			continue;
		if (sb)
			strbuf__addf(sb, "%s  %-22s %6.1f%% with SMT off, %6.1f%% with SMT on\n",
				     sb->len ? "" : "SMT changes (pass --smt on|off to choose):\n",
				     nd->name, 100 * a, 100 * b);
		if (arr)
			json_array_append_new(arr, json_pack("{s:s,s:f,s:f}", "name", nd->name,
							    "smt_off", a, "smt_on", b));
	}
	td_result__exit(&on);
}

/* Whether an event of the row counted less than all of the time. */
static bool row_multiplexed(const struct td_counts *c, size_t r)
{
	const struct td_counts_row *row = &c->rows[r];

	for (size_t k = 0; k < c->nr_events; k++)
		if (!isnan(row->counts[k]) && !isnan(row->run[k]) && row->run[k] < GX_FULL_RUNNING)
			return true;
	return false;
}

/*
 * The row's events as perf stat prints them when one was multiplexed:
 * the value (scaled by the one rule, gx_scale_printed) and the running
 * share beside each event that did not count all of the time; then a
 * warning for each under GX_LOW_RUNNING.
 */
static void row_events_text(const struct td_model *m, const struct td_counts *c, size_t r,
			    struct strbuf *sb)
{
	const struct td_counts_row *row = &c->rows[r];
	struct strbuf warn = STRBUF_INIT;

	if (!row_multiplexed(c, r))
		return;
	strbuf__addstr(sb, "Events (scaled by enabled/running; running share when multiplexed):\n");
	for (size_t k = 0; k < c->nr_events; k++) {
		const char *id = td_model__event(m, k)->id;
		char *w;

		if (isnan(row->counts[k]))
			continue;
		strbuf__addf(sb, "  %-36s %18.0f", gx_esc(id), row->counts[k]);
		if (!isnan(row->run[k]) && row->run[k] < GX_FULL_RUNNING) {
			strbuf__addstr(sb, "  ");
			gx_format_running(sb, row->run[k]);
		}
		strbuf__addstr(sb, "\n");
		w = gx_running_warning(id, row->run[k]);
		if (w)
			strbuf__addf(&warn, "warning: %s\n", gx_esc(w));
		free(w);
	}
	strbuf__addstr(sb, warn.buf ? warn.buf : "");
	strbuf__exit(&warn);
}

/* The row's events for JSON: [{event, value, running, multiplexed}], and
 * the warnings of those under GX_LOW_RUNNING into warnings. */
static json_t *row_events_json(const struct td_model *m, const struct td_counts *c, size_t r,
			       json_t *warnings)
{
	const struct td_counts_row *row = &c->rows[r];
	json_t *arr = json_array();

	for (size_t k = 0; k < c->nr_events; k++) {
		const char *id = td_model__event(m, k)->id;
		double run = row->run[k];
		char *w;

		if (isnan(row->counts[k]))
			continue;
		json_array_append_new(arr, json_pack("{s:s,s:f,s:o,s:b}", "event", gx_utf8(id),
						    "value", row->counts[k], "running",
						    isnan(run) ? json_null() : json_real(run),
						    "multiplexed", !isnan(run) && run < GX_FULL_RUNNING));
		w = gx_running_warning(id, run);
		if (w)
			json_array_append_new(warnings, json_string(gx_utf8(w)));
		free(w);
	}
	return arr;
}

static void print_row(const struct td_model *m, const struct td_counts *c, size_t r,
		      struct td_ctx *ctx, bool chosen_variant, bool smt_given, bool brief)
{
	const struct td_counts_row *row = &c->rows[r];
	struct td_result res;
	struct strbuf sb = STRBUF_INIT, na = STRBUF_INIT, smt = STRBUF_INIT;
	double run = td_counts_row__min_run(c, r);
	char *label = row_label(c, r);

	eval_row(m, row->counts, ctx, chosen_variant, &res);
	if (c->nr_rows > 1)
		printf("%s== %s ==\n", r ? "\n" : "", label);
	if (!isnan(run) && run < 1)
		printf("MUX: some events were counted only %.2f%% of the time (reliability %.2f, %s)\n",
		       100 * run, run, mux_reliability_word(run));
	row_events_text(m, c, r, &sb);
	td_result__print(m, &res, &sb, brief ? 0 : TD_PRINT_ALL);
	fputs(sb.buf ? sb.buf : "", stdout);
	if (any_na(m, &res)) {
		struct td_ctx used = *ctx;

		used.variant = res.variant;
		missing_events(m, &used, row, &na, NULL);
		fputs(na.buf ? na.buf : "", stdout);
	}
	if (!smt_given) {
		smt_both(m, row->counts, ctx, chosen_variant, &res, &smt, NULL);
		fputs(smt.buf ? smt.buf : "", stdout);
	}
	strbuf__exit(&sb);
	strbuf__exit(&na);
	strbuf__exit(&smt);
	td_result__exit(&res);
	free(label);
}

static json_t *row_json(const struct td_model *m, const struct td_counts *c, size_t r,
			struct td_ctx *ctx, bool chosen_variant, bool smt_given)
{
	const struct td_counts_row *row = &c->rows[r];
	struct td_result res;
	struct td_ctx used = *ctx;
	json_t *o, *miss = json_array(), *warnings;
	double run = td_counts_row__min_run(c, r);

	eval_row(m, row->counts, ctx, chosen_variant, &res);
	used.variant = res.variant;
	o = td_result__to_json(m, &res, &used);
	if (r) {
		json_object_set_new(o, "time", isnan(row->time) ? json_null() : json_real(row->time));
		json_object_set_new(o, "entity", row->entity ? json_string(gx_utf8(row->entity)) : json_null());
	}
	missing_events(m, &used, row, NULL, miss);
	json_object_set_new(o, "missing_events", miss);
	json_object_set_new(o, "mux_reliability", isnan(run) ? json_null() : json_real(run));
	warnings = json_array();
	json_object_set_new(o, "events", row_events_json(m, c, r, warnings));
	json_object_set_new(o, "warnings", warnings);
	if (!smt_given) {
		json_t *both = json_array();

		smt_both(m, row->counts, ctx, chosen_variant, &res, NULL, both);
		json_object_set_new(o, "smt_changes", both);
	}
	td_result__exit(&res);
	return o;
}

/* s, a row's JSON, indented as a member of "rows" (a JSON string holds no
 * raw newline, so each newline is layout) */
static void put_row(const char *s)
{
	for (const char *c = s, *nl; *c; c = nl + 1) {
		nl = strchr(c, '\n');
		if (!nl) {
			fputs(c, stdout);
			break;
		}
		fwrite(c, 1, (size_t)(nl - c), stdout);
		fputs("\n    ", stdout);
	}
}

static int print_json(struct td_model *m, struct td_counts *counts, struct td_ctx *ctx,
		      bool chosen_variant, bool smt_given)
{
	json_t *root = row_json(m, counts, 0, ctx, chosen_variant, smt_given);
	char *s, *tail;

	json_object_set_new(root, "unknown_events",
			    json_integer((json_int_t)counts->nr_unknown));
	json_object_set_new(root, "smt_assumed", smt_given ? json_null() : json_string("off"));
	json_object_set_new(root, "intervals", json_boolean(counts->intervals));
	json_object_set_new(root, "entity_kind", counts->entity_kind ?
				 json_string(counts->entity_kind) : json_null());
	json_object_set_new(root, "dropped_pmu", counts->dropped_pmu ?
				 json_string(counts->dropped_pmu) : json_null());
	/* the rows are written one at a time, never held as one tree:
	 * memory stays that of one row whatever their number */
	json_object_set_new(root, "rows", json_array());
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	if (!s || !(tail = strstr(s, "\"rows\": []"))) {
		free(s);
		cmd_error("topdown: cannot write the JSON");
		return GX_EXIT_FAIL;
	}
	printf("%.*s\"rows\": [", (int)(tail - s), s);
	for (size_t r = 1; r < counts->nr_rows; r++) {
		json_t *row = row_json(m, counts, r, ctx, chosen_variant, smt_given);
		char *rs = json_dumps(row, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				      JSON_REAL_PRECISION(10));

		fputs(r > 1 ? ",\n    " : "\n    ", stdout);
		put_row(rs ? rs : "null");
		free(rs);
		json_decref(row);
	}
	printf("%s]%s\n", counts->nr_rows > 1 ? "\n  " : "", tail + strlen("\"rows\": []"));
	free(s);
	return GX_EXIT_OK;
}

static void print_text(struct td_model *m, struct td_counts *counts, struct td_ctx *ctx,
		       bool chosen_variant, bool smt_given, bool brief)
{
	struct td_result res;

	eval_row(m, counts->rows[0].counts, ctx, chosen_variant, &res);
	printf("Model %s%s%s, SMT %s\n", td_model__id(m), res.variant ? ", variant " : "",
	       res.variant ? res.variant : "",
	       ctx->smt == TD_SMT_ON ? "on" : ctx->smt == TD_SMT_OFF ? "off" :
	       "unknown: assumed off (--smt on|off)");
	td_result__exit(&res);
	if (counts->dropped_pmu)
		printf("%s: copies of events on this PMU left out (no model describes it)\n",
		       counts->dropped_pmu);
	printf("\n");
	for (size_t r = 0; r < counts->nr_rows; r++)
		print_row(m, counts, r, ctx, chosen_variant, smt_given, brief);
	printf("\n(< below threshold, <== bottleneck, n/a not measured)\n");
}

static int cmd_topdown_exec(int argc, char **argv)
{
	struct topdown_opts o = { .smt = TD_SMT_UNKNOWN };
	struct td_ctx ctx = { .smt = TD_SMT_UNKNOWN };
	const char *cpu, *path;
	char *detected = NULL, *cause = NULL, *text = NULL;
	struct td_model *m = NULL;
	struct td_counts *counts = NULL;
	bool json, brief, chosen_variant, smt_given;
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
	smt_given = ctx.smt != TD_SMT_UNKNOWN;
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
	chosen_variant = ctx.variant != NULL;
	text = read_input(path, &cause);
	if (!text) {
		cmd_error("topdown: %s", cause);
		ret = GX_EXIT_USAGE;
		goto out;
	}
	err = td_counts__parse(m, text, strcmp(path, "-") == 0 ? "<stdin>" : path, &counts,
			       &cause);
	if (err) {
		cmd_error("topdown: %s", cause);
		ret = GX_EXIT_USAGE;
		goto out;
	}
	if (json)
		ret = print_json(m, counts, &ctx, chosen_variant, smt_given);
	else
		print_text(m, counts, &ctx, chosen_variant, smt_given, brief);
out:
	td_counts__delete(counts);
	free(text);
	td_model__delete(m);
	free(detected);
	free(cause);
	return ret;
}

GX_COMMAND(topdown, "--counts FILE", 0,
	   "evaluate the top-down tree on event counts measured elsewhere");
