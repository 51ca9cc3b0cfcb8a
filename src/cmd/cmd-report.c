/*
 * gexplore report [RESULT]: events, processes, threads, modules and the
 * hotspots (functions, source lines, call paths) of a result directory or
 * of any perf.data file, as text, JSON, CSV or folded stacks.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-int.h"
#include "perfdata/perfdata.h"
#include "mux/mux.h"
#include "profile/profile.h"
#include "report/report.h"
#include "report/report-ci.h"
#include "result/result.h"
#include "topdown/topdown.h"
#include "util/util.h"

/* roofline (issue 8): src/cmd/cmd-roofline.c */
int report_roofline(const char *result, const char *parent, const char *file);

enum report_format { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_FOLDED };

struct report_cmd_opts {
	enum report_format format;
	const char *cpu;	/* --cpu MODEL */
	int smt;		/* --smt: enum td_smt */
	const char *event;	/* --event: the event ordering the rows */
	struct report_opts r;
	struct profile_opts prof;
	struct cmd_symopts sym;	/* what prof's symbol options point into */
};

/* The options a result is opened with for this report. */
static struct gx_result_opts open_opts(const char *parent, const struct report_cmd_opts *o)
{
	return (struct gx_result_opts){ .parent = parent, .cpu = o->cpu, .smt = o->smt,
					.sym = &o->prof };
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
	switch (o->format) {
	case FMT_JSON:
		err = report_json(&out, res, &ropts);
		break;
	case FMT_CSV:
		err = report_csv(&out, res, &ropts);
		break;
	case FMT_FOLDED:
		err = report_folded(&out, res, &ropts);
		break;
	default:
		err = report_text(&out, res, &ropts);
		break;
	}
	if (err) {
		cmd_error("report: %s", gx_strerror(err));
		goto out;
	}
	if (out.len)
		fwrite(out.buf, 1, out.len, stdout);
	if (fflush(stdout) != 0) {
		cmd_error("writing the report: %s", strerror(errno));
		goto out;
	}
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

/* --format pprof -o FILE: the exporter watches the walk of the result. */
static int export_pprof(const char *input, const char *output, const struct report_cmd_opts *o)
{
	struct ci_pprof *x = ci_pprof__new();
	struct gx_result_opts oo = open_opts(".", o);
	struct gx_result *res = NULL;
	char *cause = NULL;
	int err, ret = GX_EXIT_USAGE;

	ci_pprof__hook(x, &oo);
	err = gx_result__open(&res, input, &oo, &cause);
	if (!err) {
		warn_notes(res);
		err = ci_pprof__write(x, res, output, &cause);
		if (err == GX_E_NOTSUP)
			ret = GX_EXIT_FAIL;
	}
	if (err)
		cmd_error("%s", cause);
	else
		ret = GX_EXIT_OK;
	free(cause);
	gx_result__delete(res);
	ci_pprof__delete(x);
	return ret;
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
 * --format FMT [-o FILE]: the exports. pprof is written by src/report's
 * exporter; the others are the report's own renderers (--json, --csv, --folded), sent
 * to FILE.
 */
static int report_format(const char *input, const char *format, const char *output,
			 struct report_cmd_opts *o)
{
	enum report_format f = FMT_TEXT;

	if (!strcmp(format, "pprof")) {
		if (!output) {
			cmd_error("--format pprof writes a binary file: name it with -o FILE");
			return GX_EXIT_USAGE;
		}
		return export_pprof(input, output, o);
	}
	if (!strcmp(format, "json"))
		f = FMT_JSON;
	else if (!strcmp(format, "csv"))
		f = FMT_CSV;
	else if (!strcmp(format, "folded"))
		f = FMT_FOLDED;
	else if (strcmp(format, "text")) {
		cmd_error("--format: '%s' is not pprof, json, csv, folded or text", format);
		return GX_EXIT_USAGE;
	}
	if (set_format(o, f, "--format"))
		return GX_EXIT_USAGE;
	if (output && strcmp(output, "-") && !freopen(output, "w", stdout)) {
		cmd_error("%s: %s", output, strerror(errno));
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

static int cmd_report_exec(int argc, char **argv)
{
	enum {
		OPT_BY = 256, OPT_EVENT, OPT_CSV, OPT_FOLDED,
	};
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "by", required_argument, NULL, OPT_BY },
		{ "limit", required_argument, NULL, 'l' },
		{ "percent-limit", required_argument, NULL, 'P' },
		{ "sort", required_argument, NULL, 's' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "smt", required_argument, NULL, 'S' },
		{ "event", required_argument, NULL, OPT_EVENT },
		CMD_SYMOPTS_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "roofline", optional_argument, NULL, 'R' },	/* roofline (issue 8) */
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const by_aliases[] = { "processes", "threads", "modules", "functions",
						  "lines", "callpaths", NULL };
	struct report_cmd_opts o = { .r = { .limit = 10 } };
	bool roofline = false;			/* roofline (issue 8) */
	const char *roofline_file = NULL;	/* roofline (issue 8) */
	const char *input = NULL, *format = NULL, *output = NULL;
	char *end;
	int c, k;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:s:o:h", longopts, NULL)) != -1) {
		k = cmd_symopts__parse(&o.sym, c, optarg);
		if (k < 0)
			return -k;
		if (k)
			continue;
		switch (c) {
		case 'F':	/* --format pprof|json|text|folded|csv (gexplore-report(1)) */
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case 'j':
			if (set_format(&o, FMT_JSON, "--json"))
				return GX_EXIT_USAGE;
			break;
		case OPT_CSV:
			if (set_format(&o, FMT_CSV, "--csv"))
				return GX_EXIT_USAGE;
			break;
		case OPT_FOLDED:
			if (set_format(&o, FMT_FOLDED, "--folded"))
				return GX_EXIT_USAGE;
			break;
		case OPT_BY:
			k = name_index(report_by_names, optarg);
			if (k < 0)
				k = name_index(by_aliases, optarg);
			if (k < 0) {
				cmd_error("--by: '%s' is not function, line, module, thread, process "
					  "or callpath", optarg);
				return GX_EXIT_USAGE;
			}
			o.r.by = (enum profile_by)k;
			o.r.by_given = true;
			break;
		case 'l':
			o.r.limit = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-') {
				cmd_error("--limit: '%s' is not a number of rows", optarg);
				return GX_EXIT_USAGE;
			}
			break;
		case 'P':
			o.r.percent_limit = strtod(optarg, &end);
			if (*end || end == optarg || o.r.percent_limit < 0 || o.r.percent_limit > 100) {
				cmd_error("--percent-limit: '%s' is not a percentage", optarg);
				return GX_EXIT_USAGE;
			}
			break;
		case 's':
			k = name_index(report_sort_names, optarg);
			if (k >= 0)
				o.r.sort = (enum profile_sort)k;
			else
				o.event = optarg;	/* before 0.2, --sort named the event */
			break;
		case OPT_EVENT:
			o.event = optarg;
			break;
		case 'C':
			o.cpu = optarg;
			break;
		case 'S':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				cmd_error("--smt: '%s' is not on or off", optarg);
				return GX_EXIT_USAGE;
			}
			o.smt = !strcmp(optarg, "on") ? TD_SMT_ON : TD_SMT_OFF;
			break;
		case 'h':
			printf("usage: gexplore %s\n", cmd_report_entry.usage);
			return GX_EXIT_OK;
		/* ---- roofline (issue 8, src/cmd/cmd-roofline.c) ---- */
		case 'R':
			roofline = true;
			roofline_file = optarg;
			/* `--roofline out.svg` as well as `--roofline=out.svg` */
			if (!optarg && optind < argc && (strstr(argv[optind], ".svg") ||
							 strstr(argv[optind], ".html")))
				roofline_file = argv[optind++];
			break;
		/* ---- end roofline ---- */
		default:
			if (optopt)
				cmd_error("option -%c: unknown or missing its argument", optopt);
			else
				cmd_error("unknown option '%s'", argv[optind - 1]);
			return cmd_usage(&cmd_report_entry);
		}
	}
	cmd_symopts__apply(&o.sym, &o.prof);
	if (optind < argc) {
		if (input || optind + 1 < argc)
			return cmd_usage(&cmd_report_entry);
		input = argv[optind];
	}
	if (roofline)	/* roofline (issue 8) */
		return report_roofline(input, ".", roofline_file);
	if (format || output)
		return report_format(input, format ? format : "text", output, &o);
	return report_print(input, ".", &o);
}

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "report [--json | --csv | --folded] [--by function|line|module|thread|process|callpath]\n"
		 "       [--sort self|total|samples|name] [--event EVENT] [--limit N] [--percent-limit P]\n"
		 "       " CMD_SYMOPTS_USAGE "\n"
		 "       [--cpu MODEL] [--smt on|off]\n"
		 "       [--roofline [FILE]] [--format pprof|json|csv|folded|text -o FILE] [RESULT | -i FILE]",
	.summary = "print a result: events, processes, threads, modules and hotspots",
	.exec = cmd_report_exec,
};
