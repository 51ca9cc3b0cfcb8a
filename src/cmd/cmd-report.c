/*
 * gexplore report [RESULT]: events, processes, threads, modules and the
 * hotspots (functions, source lines, call paths) of a result directory or
 * of any perf.data file, as text, JSON, CSV or folded stacks.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-int.h"
#include "export/export.h"
#include "perfdata/perfdata.h"
#include "mux/mux.h"
#include "profile/profile.h"
#include "report/report.h"
#include "result/result.h"
#include "topdown/topdown.h"
#include "util/util.h"

enum report_format { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_FOLDED };

struct report_cmd_opts {
	enum report_format format;
	const char *cpu;	/* --cpu MODEL */
	int smt;		/* --smt: enum td_smt */
	const char *event;	/* --event: the event ordering the rows */
	const char *region;	/* --region NAME: only its samples */
	const char *model_machine;	/* --model-machine: price a modelled result again */
	const struct gx_reprice *reprice;	/* its re-pricing, while the report runs */
	struct report_opts r;
	struct profile_opts prof;
	struct cmd_symopts sym;	/* what prof's symbol options point into */
};

/* The options a result is opened with for this report. */
static struct gx_result_opts open_opts(const char *parent, const struct report_cmd_opts *o)
{
	return (struct gx_result_opts){ .parent = parent, .cpu = o->cpu, .smt = o->smt,
					.sym = &o->prof, .region = o->region,
					.reprice = o->reprice };
}

/* Warnings met while opening (an unreadable slice log) go to stderr. */
static void warn_notes(const struct gx_result *res)
{
	for (size_t i = 0; i < gx_result__nr_notes(res); i++)
		cmd_warn("%s", gx_result__note(res, i));
}

int report_print_result(struct gx_result *res, const struct report_cmd_opts *o)
{
	static const struct report_cmd_opts defaults = { .r = { .limit = 10 } };
	struct strbuf out = STRBUF_INIT;
	struct report_opts ropts;
	int err, ret = GX_EXIT_FAIL;

	if (!o)
		o = &defaults;
	ropts = o->r;
	ropts.sort_event = gx_result__sort_event(res);
	if (o->event && gx_result__find_event(res, o->event, &ropts.sort_event) != 0) {
		cmd_error("--event: no event '%s' in %s", o->event, gx_result__path(res));
		return GX_EXIT_USAGE;
	}
	if (o->r.by_flow && (o->format == FMT_CSV || o->format == FMT_FOLDED)) {
		cmd_error("--by block, loop and branch are text tables; --json has them all");
		return GX_EXIT_USAGE;
	}
	switch (o->format) {
	case FMT_JSON:
		err = report_json(&out, res, &ropts);
		break;
	case FMT_CSV:
		err = report_csv(&out, res, &ropts);
		break;
	case FMT_FOLDED:
		err = export_folded(&out, res, ropts.sort_event);
		break;
	default:
		err = report_text(&out, res, &ropts);
		break;
	}
	if (err) {
		cmd_error("report: %s", gx_strerror(err));
		goto out;
	}
	if (cmd_write_stdout(out.buf, out.len, "the report") != 0)
		goto out;
	ret = GX_EXIT_OK;
out:
	strbuf__exit(&out);
	return ret;
}

int report_print(const char *result, const char *parent, const struct report_cmd_opts *o)
{
	static const struct report_cmd_opts defaults = { .r = { .limit = 10 } };
	struct gx_result_opts oo;
	struct gx_result *res = NULL;
	char *cause = NULL;
	int ret;

	if (!o)
		o = &defaults;
	oo = open_opts(parent, o);
	if (gx_result__open(&res, result, &oo, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return GX_EXIT_USAGE;
	}
	warn_notes(res);
	ret = report_print_result(res, o);
	gx_result__delete(res);
	return ret;
}

int report_print_recorded(struct gx_result *res, bool said)
{
	struct report_cmd_opts o = { .r = { .limit = 10, .warnings_said = said } };

	return report_print_result(res, &o);
}

/* --format pprof -o FILE: the exporter watches the walk of the result. */
static int write_pprof(const char *input, const char *output, const struct report_cmd_opts *o)
{
	struct export_pprof *x = export_pprof__new();
	struct gx_result_opts oo = open_opts(".", o);
	struct gx_result *res = NULL;
	char *cause = NULL;
	int err, ret = GX_EXIT_USAGE;

	export_pprof__hook(x, &oo);
	err = gx_result__open(&res, input, &oo, &cause);
	if (!err) {
		warn_notes(res);
		err = export_pprof__write(x, res, output, &cause);
		if (err == GX_E_NOTSUP)
			ret = GX_EXIT_FAIL;
	}
	if (err)
		cmd_error("%s", cause);
	else
		ret = GX_EXIT_OK;
	free(cause);
	gx_result__delete(res);
	export_pprof__delete(x);
	return ret;
}

/*
 * The exports that take every sample in time order (speedscope, firefox,
 * html): a collector watches the walk, then the writer of the format
 * turns it and the result into FILE (write NULL: the HTML page, which
 * draws report's JSON too). --event picks the event.
 */
typedef int (*samples_writer_fn)(struct export_samples *x, struct gx_result *r, size_t event,
				 const char *path, char **cause);

static int write_samples(const char *input, const char *output, const struct report_cmd_opts *o,
			 samples_writer_fn write)
{
	struct export_samples *x = export_samples__new();
	struct gx_result_opts oo = open_opts(".", o);
	struct gx_result *res = NULL;
	char *cause = NULL;
	size_t e;
	int ret = GX_EXIT_USAGE;

	export_samples__hook(x, &oo);
	if (gx_result__open(&res, input, &oo, &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	warn_notes(res);
	e = gx_result__sort_event(res);
	if (o->event && gx_result__find_event(res, o->event, &e) != 0) {
		cmd_error("--event: no event '%s' in %s", gx_esc(o->event),
			  gx_esc(gx_result__path(res)));
		goto out;
	}
	if ((write ? write(x, res, e, output, &cause) :
		     report_html_write(res, x, e, &o->r, NULL, output, &cause)) != 0) {
		cmd_error("%s", cause);
		ret = GX_EXIT_FAIL;
		goto out;
	}
	ret = GX_EXIT_OK;
out:
	free(cause);
	gx_result__delete(res);
	export_samples__delete(x);
	return ret;
}

static int write_speedscope(const char *input, const char *output, const struct report_cmd_opts *o)
{
	return write_samples(input, output, o, export_speedscope__write);
}

static int write_firefox(const char *input, const char *output, const struct report_cmd_opts *o)
{
	return write_samples(input, output, o, export_firefox__write);
}

static int write_html(const char *input, const char *output, const struct report_cmd_opts *o)
{
	return write_samples(input, output, o, NULL);
}

#define HTML_VALUES 4	/* values with sections of their own, at most */

int report_html_write(struct gx_result *res, struct export_samples *x, size_t e,
		      const struct report_opts *r, const char *check_json, const char *path,
		      char **cause)
{
	struct report_opts ro = r ? *r : (struct report_opts){ .limit = 10 };
	struct strbuf js = STRBUF_INIT, vjs[HTML_VALUES];
	struct export_html_value vals[HTML_VALUES];
	struct export_html_in in = { .res = res, .event = e, .samples = x,
				     .check_json = check_json, .values = vals };
	int err;

	ro.sort_event = e;
	err = report_json(&js, res, &ro);
	/* the values beside the events (off-cpu): report's rows by each */
	for (size_t v = 0; !err && v < gx_result__nr_events(res) && in.nr_values < HTML_VALUES;
	     v++) {
		if (!export_html__own_value(res, e, v))
			continue;
		vjs[in.nr_values] = (struct strbuf)STRBUF_INIT;
		ro.sort_event = v;
		err = report_json(&vjs[in.nr_values], res, &ro);
		vals[in.nr_values] = (struct export_html_value){ v, vjs[in.nr_values].buf };
		in.nr_values++;
	}
	if (!err) {
		in.report_json = js.buf;
		err = export_html__write(&in, path, cause);
	} else {
		err = gx_fail(cause, err, "report: %s", gx_strerror(err));
	}
	for (size_t i = 0; i < in.nr_values; i++)
		strbuf__exit(&vjs[i]);
	strbuf__exit(&js);
	return err;
}

/* --format autofdo|bolt [-o FILE]: a binary's branch profile (issue 42). */
static int write_flow(const char *input, const char *output, const struct report_cmd_opts *o,
		      int (*fn)(struct strbuf *, struct gx_result *, const char **, char **))
{
	struct gx_result_opts oo = open_opts(".", o);
	struct gx_result *res = NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *module = NULL;
	char *cause = NULL;
	FILE *f = stdout;
	int ret = GX_EXIT_FAIL;

	if (gx_result__open(&res, input, &oo, &cause) || fn(&sb, res, &module, &cause)) {
		cmd_error("%s", cause);
	} else if (output && strcmp(output, "-") && !(f = fopen(output, "w"))) {
		cmd_error("%s: %s", gx_esc(output), strerror(errno));
	} else {
		bool short_write = fwrite(sb.buf, 1, sb.len, f) != sb.len;

		ret = (f == stdout ? fflush(f) : fclose(f)) || short_write ? GX_EXIT_FAIL : GX_EXIT_OK;
		if (ret)
			cmd_error("%s: %s", output && strcmp(output, "-") ? gx_esc(output) :
				  "standard output", strerror(errno ? errno : EIO));
		else if (module)
			fprintf(stderr, "gexplore report: the branches of %s\n", gx_esc(module));
	}
	free(cause);
	strbuf__exit(&sb);
	gx_result__delete(res);
	return ret;
}

static int write_autofdo(const char *input, const char *output, const struct report_cmd_opts *o)
{
	return write_flow(input, output, o, export_autofdo);
}

static int write_bolt(const char *input, const char *output, const struct report_cmd_opts *o)
{
	return write_flow(input, output, o, export_bolt);
}

static int name_index(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static int set_format(struct report_cmd_opts *o, enum report_format f, const char *opt)
{
	if (o->format != FMT_TEXT && o->format != f) {
		cmd_error("%s: only one of --json, --csv and --folded", opt);
		return -1;
	}
	o->format = f;
	return 0;
}

/*
 * The exports of --format FMT [-o FILE], one entry each (issue 45: a new
 * format is a line here): a renderer of the report (text, --json, --csv,
 * --folded) sent to FILE, or a writer of its own file (write: pprof, from
 * src/export), which needs -o when the file is binary.
 */
static const struct report_export {
	const char *name;
	enum report_format fmt;		/* a renderer's */
	int (*write)(const char *input, const char *output, const struct report_cmd_opts *o);
	bool binary;			/* write needs -o FILE */
} report_exports[] = {
	{ "text", FMT_TEXT, NULL, false },
	{ "json", FMT_JSON, NULL, false },
	{ "csv", FMT_CSV, NULL, false },
	{ "folded", FMT_FOLDED, NULL, false },
	{ "pprof", FMT_TEXT, write_pprof, true },
	{ "speedscope", FMT_TEXT, write_speedscope, true },
	{ "firefox", FMT_TEXT, write_firefox, true },
	{ "html", FMT_TEXT, write_html, true },
	{ "autofdo", FMT_TEXT, write_autofdo, false },	/* issue 42 */
	{ "bolt", FMT_TEXT, write_bolt, false },
};

static int report_format(const char *input, const char *format, const char *output,
			 struct report_cmd_opts *o)
{
	const struct report_export *x = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(report_exports) && !x; i++)
		if (!strcmp(report_exports[i].name, format))
			x = &report_exports[i];
	if (!x) {
		struct strbuf names = STRBUF_INIT;

		for (size_t i = 0; i < ARRAY_SIZE(report_exports); i++)
			strbuf__addf(&names, "%s%s", i ? ", " : "", report_exports[i].name);
		cmd_error("--format: '%s' is not one of %s", gx_esc(format), names.buf);
		strbuf__exit(&names);
		return GX_EXIT_USAGE;
	}
	if (x->write) {
		if (x->binary && !output) {
			cmd_error("--format %s writes a binary file: name it with -o FILE", x->name);
			return GX_EXIT_USAGE;
		}
		return x->write(input, output, o);
	}
	if (set_format(o, x->fmt, "--format"))
		return GX_EXIT_USAGE;
	if (output && strcmp(output, "-") && !freopen(output, "w", stdout)) {
		cmd_error("%s: %s", gx_esc(output), strerror(errno));
		return GX_EXIT_USAGE;
	}
	return report_print(input, ".", o);
}

int report_print_sym(const char *result, const char *parent, const struct cmd_symopts *sym)
{
	struct report_cmd_opts o = { .r = { .limit = 10 } };

	if (sym)
		o.sym = *sym;
	cmd_symopts__apply(&o.sym, &o.prof);
	return report_print(result, parent, &o);
}

/* The command line of `gexplore report`: the report's options and the
 * command's own. */
struct report_cli {
	struct report_cmd_opts o;
	const char *input, *format, *output;
	bool roofline;			/* roofline (issue 8) */
	const char *roofline_file;	/* roofline (issue 8) */
};

static int opt_format(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct report_cli *c = base;

	(void)arg;
	if (c->o.format != FMT_TEXT && c->o.format != (enum report_format)opt->data) {
		*cause = xstrdup("only one of --json, --csv and --folded");
		return -1;
	}
	c->o.format = (enum report_format)opt->data;
	return 0;
}

static const struct {
	const char *name, *plural;
	enum report_flow_by by;
} flow_kinds[] = {
	{ "block", "blocks", REPORT_FLOW_BLOCK },
	{ "loop", "loops", REPORT_FLOW_LOOP },
	{ "branch", "branches", REPORT_FLOW_BRANCH },
};

static int opt_by(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	static const char *const by_aliases[] = { "processes", "threads", "modules", "functions",
						  "lines", "callpaths", NULL };
	struct report_cli *c = base;
	int k = name_index(report_by_names, arg);

	(void)opt;
	c->o.r.by_tree = false;
	c->o.r.by_flow = REPORT_FLOW_NONE;
	c->o.r.mem_by = REPORT_MEM_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(flow_kinds); i++)	/* issue 42 */
		if (!strcmp(arg, flow_kinds[i].name) || !strcmp(arg, flow_kinds[i].plural)) {
			c->o.r.by_flow = flow_kinds[i].by;
			c->o.r.by_given = false;
			c->o.r.by_region = false;
			return 0;
		}
	if (report_mem_by_name(arg, &c->o.r)) /* issue 43: memory tables */
		return 0;
	if (!strcmp(arg, "region") || !strcmp(arg, "regions")) {
		c->o.r.by_region = true;	/* gexplore-regions(3) */
		c->o.r.by_given = false;
		return 0;
	}
	if (!strcmp(arg, "calltree") || !strcmp(arg, "tree")) {
		c->o.r.by_tree = true;		/* the call tree, text */
		c->o.r.by_given = false;
		c->o.r.by_region = false;
		return 0;
	}
	if (k < 0)
		k = name_index(by_aliases, arg);
	if (k < 0) {
		*cause = xasprintf("expected function, line, module, thread, process, callpath, "
				   "calltree, region, block, loop, branch, data-source, data-object "
				   "or cacheline, got '%s'", arg);
		return -1;
	}
	c->o.r.by = (enum profile_by)k;
	c->o.r.by_given = true;
	c->o.r.by_region = false;
	return 0;
}

static int opt_sort(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct report_cli *c = base;
	int k = name_index(report_sort_names, arg);

	(void)opt;
	(void)cause;
	if (k >= 0)
		c->o.r.sort = (enum profile_sort)k;
	else
		c->o.event = arg;	/* before 0.2, --sort named the event */
	return 0;
}

/* ---- roofline (issue 8, src/cmd/cmd-roofline.c) ---- */
static int opt_roofline(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct report_cli *c = base;

	(void)opt;
	(void)cause;
	c->roofline = true;
	c->roofline_file = arg;
	return 0;
}

/* `--roofline out.svg` as well as `--roofline=out.svg` */
static bool roofline_takes(const char *next)
{
	return strstr(next, ".svg") || strstr(next, ".html");
}
/* ---- end roofline ---- */

static const struct cmd_enum smt_names[] = {
	{ "on", TD_SMT_ON }, { "off", TD_SMT_OFF }, { NULL, 0 },
};

static const struct cmd_option report_options[] = {
	CMD_OPT_STRING('i', "input", struct report_cli, input, "FILE",
		       "read FILE (- is standard input)", "the newest gxNNN result here"),
	CMD_OPT_CALLBACK_DATA(0, "json", NULL, opt_format, FMT_JSON, "print one JSON object", NULL),
	CMD_OPT_CALLBACK_DATA(0, "csv", NULL, opt_format, FMT_CSV, "print one CSV table", NULL),
	CMD_OPT_CALLBACK_DATA(0, "folded", NULL, opt_format, FMT_FOLDED,
			      "print folded stacks for flame graphs", NULL),
	CMD_OPT_CALLBACK(0, "by", "KIND", opt_by,
			 "the table: function, line, module, thread, process, callpath, calltree, "
			 "region, block, loop, branch, data-source, data-object or cacheline",
			 NULL),
	CMD_OPT_STRING(0, "region", struct report_cli, o.region, "NAME",
		       "only the samples inside region NAME (gexplore-regions(3))", "all samples"),
	CMD_OPT_CALLBACK('s', "sort", "COLUMN", opt_sort,
			 "order rows by self, total, samples or name", "self"),
	CMD_OPT_STRING(0, "event", struct report_cli, o.event, "EVENT",
		       "the event that orders and filters the rows", "the first"),
	CMD_OPT_UINT(0, "limit", struct report_cli, o.r.limit, "N",
		     "at most N rows per table; 0 shows all", "10", 0, UINT32_MAX,
		     "a number of rows"),
	CMD_OPT_DOUBLE(0, "percent-limit", struct report_cli, o.r.percent_limit, "P",
		       "hide rows under P percent of the sorting event", "0", 0, 100,
		       "a percentage"),
	CMD_OPT_INCLUDE(struct report_cli, o.sym, cmd_symopts_options),
	CMD_OPT_STRING(0, "cpu", struct report_cli, o.cpu, "MODEL",
		       "evaluate the top-down tree with this model", "the recording's"),
	CMD_OPT_ENUM(0, "smt", struct report_cli, o.smt, smt_names,
		     "evaluate the SMT forms of the formulas, or not", "as recorded"),
	CMD_OPT_STRING(0, "model-machine", struct report_cli, o.model_machine, "NAME|FILE",
		       "price a modelled result again with this machine description",
		       "the recording's"),
	CMD_OPT_CALLBACK_OPTARG("roofline", "FILE", opt_roofline, roofline_takes,
				"draw the roofline instead (to an .svg or .html FILE)"),
	CMD_OPT_STRING(0, "format", struct report_cli, format, "FMT",
		       "export as pprof, speedscope, firefox, html, json, csv, folded, text, autofdo "
		       "or bolt", "text"),
	CMD_OPT_STRING('o', "output", struct report_cli, output, "FILE",
		       "write the --format export to FILE", "standard output"),
	CMD_OPT_END(),
};

static int cmd_report_exec(int argc, char **argv)
{
	struct report_cli c = { .o = { .r = { .limit = 10 } } };
	struct report_cmd_opts o;
	struct cmd_reprice rp;
	struct cmd_args a;
	const char *input;
	int ret;

	if (cmd_parse(&cmd_report_entry, &c, argc, argv, &a))
		return a.exit;
	if (a.argc && c.input)
		return cmd_usage(&cmd_report_entry);
	input = a.argc ? a.argv[0] : c.input;
	o = c.o;
	cmd_symopts__apply(&o.sym, &o.prof);
	if (c.roofline && o.model_machine) {
		cmd_error("--model-machine prices a report, not a roofline (its points are the "
			  "recording's)");
		return GX_EXIT_USAGE;
	}
	if (c.roofline)	/* roofline (issue 8) */
		return report_roofline(input, ".", c.roofline_file);
	cmd_reprice__init_name(&rp, o.model_machine);
	if (o.model_machine)
		o.reprice = &rp.rp;
	if (c.format || c.output)
		ret = report_format(input, c.format ? c.format : "text", c.output, &o);
	else
		ret = report_print(input, ".", &o);
	cmd_reprice__exit(&rp);
	return ret;
}

GX_COMMAND(report, "[RESULT]", 1,
	   "print a result: events, processes, threads, modules and hotspots");
