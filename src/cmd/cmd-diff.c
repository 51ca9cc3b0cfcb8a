/*
 * gexplore diff [A [B]]: compare two results per scope and metric. Without
 * arguments A and B are the two newest gxNNN results here (A the older);
 * with one, A is it and B the newest. With --runs N, A and B are N
 * results each (repeated runs), named in that order.
 */
#include "config.h"

#include "cmd.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-int.h"
#include "ci/ci.h"
#include "diff/diff.h"
#include "export/export.h"
#include "profile/profile.h"
#include "result/result.h"
#include "util/util.h"

/* The two highest-numbered gxNNN results (with a perf.data) in dir. */
static int newest_two(const char *dir, char **older, char **newer)
{
	long best[2] = { -1, -1 };
	char names[2][32] = { "", "" };
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end, path[300];
		long n;

		if (strncmp(de->d_name, "gx", 2) || strlen(de->d_name) < 5 ||
		    strlen(de->d_name) > 20)
			continue;
		n = strtol(de->d_name + 2, &end, 10);
		if (*end || n < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/perf.data", dir, de->d_name);
		if (access(path, R_OK) != 0)
			continue;
		if (n > best[0]) {
			best[1] = best[0];
			memcpy(names[1], names[0], sizeof(names[0]));
			best[0] = n;
			snprintf(names[0], sizeof(names[0]), "%s", de->d_name);
		} else if (n > best[1]) {
			best[1] = n;
			snprintf(names[1], sizeof(names[1]), "%s", de->d_name);
		}
	}
	closedir(d);
	if (best[1] < 0)
		return -ENOENT;
	*older = xstrdup(names[1]);
	*newer = xstrdup(names[0]);
	return 0;
}

struct diff_cli {
	struct diff_opts o;
	const char *cpu;
	const char *region;	/* --region NAME: the same region of both */
	struct cmd_symopts sym;
	struct cmd_strv metrics;
	struct cmd_strv match;	/* --match-module A=B */
	size_t text_limit;
	unsigned runs;		/* results a side */
	bool json, csv;
	bool html;		/* --format html */
	const char *format, *output;	/* --format FMT, -o FILE */
};

static int opt_scope(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct diff_cli *c = base;
	enum ci_scope s;

	(void)opt;
	for (s = 0; s < CI_SCOPE_NR_ && strcmp(ci_scope_name(s), arg); s++)
		;
	if (s == CI_SCOPE_NR_) {
		*cause = xasprintf("expected run, process, module or function, got '%s'", arg);
		return -1;
	}
	if (c->o.nr_scopes < CI_SCOPE_NR_)
		c->o.scopes[c->o.nr_scopes++] = s;
	return 0;
}

static const struct cmd_option diff_options[] = {
	CMD_OPT_BOOL(0, "json", struct diff_cli, json, "print JSON"),
	CMD_OPT_BOOL(0, "csv", struct diff_cli, csv, "print CSV"),
	CMD_OPT_STRING(0, "format", struct diff_cli, format, "FMT",
		       "text, json, csv or html (one self-contained page; needs -o)", "text"),
	CMD_OPT_STRING('o', "output", struct diff_cli, output, "FILE",
		       "write the --format output to FILE", "standard output"),
	CMD_OPT_LIST('m', "metric", struct diff_cli, metrics, "METRIC",
		     "only this metric (repeatable)"),
	CMD_OPT_LIST(0, "match-module", struct diff_cli, match, "A=B",
		     "module (file name) A of the first result is B of the second (the main "
		     "programs are matched by themselves)"),
	CMD_OPT_CALLBACK(0, "scope", "SCOPE", opt_scope,
			 "only run, process, module or function rows (repeatable)", "all"),
	CMD_OPT_UINT(0, "limit", struct diff_cli, text_limit, "N",
		     "at most N lines of text; 0 prints all", "40", 0, UINT32_MAX,
		     "a number of lines"),
	CMD_OPT_UINT(0, "runs", struct diff_cli, runs, "N",
		     "each side is N repeated runs: N results of A, then N of B", "1", 1, 10000,
		     "a number of runs"),
	CMD_OPT_UINT(0, "min-samples", struct diff_cli, o.min_samples, "N",
		     "leave out rows with fewer samples on both sides", "0", 0, UINT64_MAX,
		     "a number of samples"),
	CMD_OPT_STRING(0, "region", struct diff_cli, region, "NAME",
		       "compare only the samples inside region NAME of both (gexplore-regions(3))",
		       "the whole runs"),
	CMD_OPT_STRING(0, "cpu", struct diff_cli, cpu, "MODEL",
		       "evaluate the top-down tree with this model", "the recordings'"),
	CMD_OPT_INCLUDE(struct diff_cli, sym, cmd_symopts_options),
	CMD_OPT_END(),
};

/* --format FMT [-o FILE]: the flag it stands for, and where it goes; 0,
 * or -1 after saying why. */
static int diff_format(struct diff_cli *c)
{
	const char *f = c->format ? c->format : "text";

	if (!strcmp(f, "json"))
		c->json = true;
	else if (!strcmp(f, "csv"))
		c->csv = true;
	else if (!strcmp(f, "html"))
		c->html = true;
	else if (strcmp(f, "text")) {
		cmd_error("--format: '%s' is not one of text, json, csv, html", gx_esc(f));
		return -1;
	}
	if (c->html && (!c->output || !strcmp(c->output, "-"))) {
		cmd_error("--format html writes a page: name it with -o FILE");
		return -1;
	}
	if (!c->html && c->output && strcmp(c->output, "-") && !freopen(c->output, "w", stdout)) {
		cmd_error("%s: %s", gx_esc(c->output), strerror(errno));
		return -1;
	}
	return 0;
}

/* The results to compare, 2 * runs of them, from the arguments (or the
 * newest results here): 0, or -1 after saying why. */
static int diff_paths(int argc, char **argv, unsigned runs, char **paths)
{
	char *ignored = NULL;

	if (runs > 1 && (size_t)argc != 2 * (size_t)runs) {
		cmd_error("--runs %u takes %zu results, %u of A then %u of B; got %d", runs,
			  2 * (size_t)runs, runs, runs, argc);
		return -1;
	}
	if (argc > 2 && runs == 1) {
		cmd_error("too many arguments: '%s' (repeated runs of A and B: --runs N)",
			  gx_esc(argv[2]));
		return -1;
	}
	if (runs > 1 || argc == 2) {
		for (size_t i = 0; i < 2 * (size_t)runs; i++)
			paths[i] = xstrdup(argv[i]);
		return 0;
	}
	if (newest_two(".", argc == 1 ? &ignored : &paths[0], &paths[1]) != 0) {
		cmd_error("diff needs two results: name them, or record two (gx001, gx002, ...) here");
		return -1;
	}
	if (argc == 1) {
		free(ignored);
		paths[0] = xstrdup(argv[0]);
	}
	return 0;
}

static int cmd_diff_exec(int argc, char **argv)
{
	struct diff_cli cli = { .text_limit = 40, .runs = 1 };
	struct diff_opts o;
	struct gx_result_opts oo = { 0 };
	struct profile_opts prof = { 0 };
	struct gx_result **res = NULL;
	struct diff d = { 0 };
	struct strbuf out = STRBUF_INIT;
	char **paths = NULL, *cause = NULL;
	size_t nr = 0;
	int ret = GX_EXIT_USAGE;
	struct cmd_args args;

	if (cmd_parse(&cmd_diff_entry, &cli, argc, argv, &args))
		return args.exit;
	o = cli.o;
	oo.cpu = cli.cpu;
	oo.region = cli.region;
	if (diff_format(&cli))
		goto out;
	if (cli.json + cli.csv + cli.html > 1) {
		cmd_error("--json, --csv and --format html exclude each other");
		goto out;
	}
	nr = 2 * (size_t)cli.runs;
	paths = xcalloc(nr, sizeof(*paths));
	res = xcalloc(nr, sizeof(*res));
	if (diff_paths(args.argc, args.argv, cli.runs, paths))
		goto out;
	o.metrics = cli.metrics.n ? cli.metrics.v : NULL;
	o.match = cli.match.v;
	o.nr_match = cli.match.n;
	cmd_symopts__apply(&cli.sym, &prof);
	oo.sym = &prof;
	for (size_t i = 0; i < nr; i++) {
		if (gx_result__open(&res[i], paths[i], &oo, &cause)) {
			cmd_error("%s", cause);
			goto out;
		}
		if (gx_result__incomplete(res[i]))	/* its counts are partial */
			cmd_warn("%s is incomplete: %s; its numbers cover only what was recorded",
				 gx_result__path(res[i]), gx_result__incomplete(res[i]));
	}
	/* modelled results priced by other descriptions than B's (the first
	 * of the new side): priced again with B's, or exit 2 saying why not */
	for (size_t i = 0; i < nr; i++) {
		char *note = NULL;

		if (i == (size_t)cli.runs)
			continue;
		if (cmd_reprice_like(&res[i], paths[i], &oo, res[cli.runs], &note, &cause)) {
			cmd_error("%s", cause);
			goto out;
		}
		if (note)
			cmd_warn("%s", note);
		free(note);
	}
	if (diff_run(res, cli.runs, cli.runs, &o, &d, &cause)) {
		cmd_error("%s", cause);
		goto out;
	}
	if (cli.html) {
		diff__json(&d, &out);
		if (export_html_diff__write(out.buf, res[0], res[cli.runs], cli.output, &cause)) {
			cmd_error("%s", cause);
			ret = GX_EXIT_FAIL;
		} else {
			ret = GX_EXIT_OK;
		}
		goto out;
	}
	if (cli.json)
		diff__json(&d, &out);
	else if (cli.csv)
		diff__csv(&d, &out);
	else
		diff__text(&d, &out, cli.text_limit);
	ret = cmd_write_stdout(out.buf, out.len, "the diff") == 0 ? GX_EXIT_OK : GX_EXIT_FAIL;
out:
	diff__exit(&d);
	for (size_t i = 0; i < nr; i++) {
		gx_result__delete(res[i]);
		free(paths[i]);
	}
	free(res);
	free(paths);
	strbuf__exit(&out);
	free(cause);
	return ret;
}

GX_COMMAND(diff, "[A [B]] | --runs N A1..AN B1..BN", -1,
	   "compare two results per scope and metric, biggest changes first");
