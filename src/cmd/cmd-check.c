/*
 * gexplore check [RESULT] --max M=V --min M=V [--baseline B --max-regress M=X%] ...
 * gexplore check --repeat N [check options] -- CMD [ARGS]
 *
 * Exit: 0 pass, 1 a threshold violated, 2 usage or input error, 77 cannot
 * measure (Automake's SKIP).
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
#include "ci/ci.h"
#include "export/export.h"
#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "record/record.h"
#include "result/result.h"
#include "topdown/topdown.h"
#include "util/util.h"

struct check_cmd_opts {
	struct ci_spec spec;
	struct gx_result_opts open;
	struct cmd_symopts sym;
	struct profile_opts prof;	/* open.sym: points into sym */
	const char *baseline;
	const char *junit;
	const char *html;		/* --html FILE */
	struct export_samples *samples;	/* --html: the first run's, for its timeline */
	struct record_opts rec;		/* --record 'OPTS' for --repeat */
	struct cmd_words rec_words;	/* what rec points into */
	struct cmd_words spec_words;	/* record --check 'SPEC': what this points into */
	bool json, github, quiet;
	unsigned repeat;
	char **results;		/* positional RESULTs (borrowed from argv) */
	size_t nr_results;
	char **cmd;		/* after "--" (borrowed), NULL-terminated */
	bool has_scope;
};

static void check_cmd_opts__init(struct check_cmd_opts *c)
{
	memset(c, 0, sizeof(*c));
	ci_spec__init(&c->spec);
	record_opts__init(&c->rec);
}

static void check_cmd_opts__exit(struct check_cmd_opts *c)
{
	ci_spec__exit(&c->spec);
	export_samples__delete(c->samples);
	cmd_words__exit(&c->rec_words);
	cmd_words__exit(&c->spec_words);
}

static int set_scope(struct check_cmd_opts *c, enum ci_scope s, char **cause)
{
	if (c->has_scope && c->spec.scope != s) {
		*cause = xstrdup("checks apply to one scope at a time (run, process, thread, module "
				 "or function)");
		return -1;
	}
	c->has_scope = true;
	c->spec.scope = s;
	return 0;
}

/* --max, --min, --max-regress METRIC=V: opt->data is the enum ci_op */
static int opt_threshold(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct check_cmd_opts *c = base;

	return ci_spec__add(&c->spec, (enum ci_op)opt->data, arg, cause) ? -1 : 0;
}

/* --function, --process, --module NAME: opt->data is the enum ci_scope */
static int opt_name(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct check_cmd_opts *c = base;

	if (set_scope(c, (enum ci_scope)opt->data, cause))
		return -1;
	c->spec.names = xrealloc(c->spec.names, (c->spec.nr_names + 1) * sizeof(char *));
	c->spec.names[c->spec.nr_names++] = xstrdup(arg);
	return 0;
}

static int opt_per(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct check_cmd_opts *c = base;
	enum ci_scope s = !strcmp(arg, "function") ? CI_SCOPE_FUNCTION :
			  !strcmp(arg, "process") ? CI_SCOPE_PROCESS :
			  !strcmp(arg, "module") ? CI_SCOPE_MODULE :
			  !strcmp(arg, "thread") ? CI_SCOPE_THREAD :
			  !strcmp(arg, "run") ? CI_SCOPE_RUN : CI_SCOPE_NR_;

	(void)opt;
	if (s == CI_SCOPE_NR_) {
		*cause = xasprintf("expected run, process, thread, module or function, got '%s'",
				   arg);
		return -1;
	}
	return set_scope(c, s, cause);
}

/* --record 'OPTS': a recording's options, parsed now by their own table
 * (record's own, --check and --repeat among them, are not in it) */
static int opt_record(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct check_cmd_opts *c = base;

	(void)opt;
	cmd_words__exit(&c->rec_words);
	record_opts__init(&c->rec);
	if (cmd_parse_words(&cmd_recopts_entry, &c->rec, arg, &c->rec_words) != 0) {
		*cause = xasprintf("'%s' is not a set of record options (gexplore-record(1))", arg);
		return -1;
	}
	return record_opts__check(&c->rec, cause);
}

static const struct cmd_option check_options[] = {
	CMD_OPT_CALLBACK_DATA(0, "max", "METRIC=V", opt_threshold, CI_MAX,
			      "fail when METRIC is above V (V% for a share)", NULL),
	CMD_OPT_CALLBACK_DATA(0, "min", "METRIC=V", opt_threshold, CI_MIN,
			      "fail when METRIC is below V", NULL),
	CMD_OPT_STRING(0, "baseline", struct check_cmd_opts, baseline, "RESULT",
		       "the result --max-regress compares with", NULL),
	CMD_OPT_CALLBACK_DATA(0, "max-regress", "METRIC=X[%]", opt_threshold, CI_MAX_REGRESS,
			      "fail when METRIC got worse than the baseline by more than X", NULL),
	CMD_OPT_CALLBACK_DATA(0, "function", "NAME", opt_name, CI_SCOPE_FUNCTION,
			      "check this function (repeatable)", "the whole run"),
	CMD_OPT_CALLBACK_DATA(0, "process", "NAME", opt_name, CI_SCOPE_PROCESS,
			      "check this process (repeatable)", NULL),
	CMD_OPT_CALLBACK_DATA(0, "module", "NAME", opt_name, CI_SCOPE_MODULE,
			      "check this module (repeatable)", NULL),
	CMD_OPT_CALLBACK_DATA(0, "thread", "NAME", opt_name, CI_SCOPE_THREAD,
			      "check this thread, by name (repeatable)", NULL),
	CMD_OPT_STRING(0, "region", struct check_cmd_opts, open.region, "NAME",
		       "check only the samples inside region NAME (gexplore-regions(3))",
		       "the whole run"),
	CMD_OPT_UINT(0, "top", struct check_cmd_opts, spec.top, "N",
		     "check the N hottest rows of the --per scope", NULL, 1, 1000000,
		     "a number of rows"),
	CMD_OPT_CALLBACK(0, "per", "SCOPE", opt_per,
			 "--top's scope: run, process, thread, module or function", "function"),
	CMD_OPT_UINT(0, "min-samples", struct check_cmd_opts, spec.min_samples, "N",
		     "a row with fewer samples cannot be measured", "20", 0, 1000000000000ULL,
		     "a number of samples"),
	CMD_OPT_DOUBLE(0, "min-reliability", struct check_cmd_opts, spec.min_reliability, "R",
		       "a row with lower MUX reliability cannot be measured", "0.7", 0, 1,
		       "a reliability"),
	CMD_OPT_DOUBLE(0, "confidence", struct check_cmd_opts, spec.confidence, "LEVEL",
		       "the confidence level of intervals over runs", "0.95", 0.5, 0.999,
		       "a level"),
	CMD_OPT_UINT(0, "repeat", struct check_cmd_opts, repeat, "N",
		     "record the command after -- N times and check the runs together", NULL, 1,
		     1000, "a number of runs"),
	CMD_OPT_CALLBACK(0, "record", "OPTS", opt_record,
			 "--repeat records with these gexplore record options", NULL),
	CMD_OPT_STRING(0, "cpu", struct check_cmd_opts, open.cpu, "MODEL",
		       "evaluate the top-down tree with this model", "the recording's"),
	CMD_OPT_INCLUDE(struct check_cmd_opts, sym, cmd_symopts_options),
	CMD_OPT_BOOL(0, "json", struct check_cmd_opts, json, "print the verdict as JSON"),
	CMD_OPT_STRING(0, "junit", struct check_cmd_opts, junit, "FILE",
		       "also write a JUnit XML report to FILE", NULL),
	CMD_OPT_STRING(0, "html", struct check_cmd_opts, html, "FILE",
		       "also write one self-contained HTML page: the verdicts and the report",
		       NULL),
	CMD_OPT_BOOL(0, "github", struct check_cmd_opts, github,
		     "also print GitHub Actions annotations"),
	CMD_OPT_BOOL(0, "allow-incomplete", struct check_cmd_opts, spec.allow_incomplete,
		     "check a result cut short as it is (else: exit status 2)"),
	CMD_OPT_BOOL('q', "quiet", struct check_cmd_opts, quiet, "print nothing when every check passes"),
	CMD_OPT_END(),
};

/* What parsing leaves to settle once every option is in. */
static void check_cmd_opts__finish(struct check_cmd_opts *c)
{
	/* --top alone means the hottest functions */
	if (c->spec.top && !c->has_scope)
		c->spec.scope = CI_SCOPE_FUNCTION;
	cmd_symopts__apply(&c->sym, &c->prof);
	c->open.sym = &c->prof;
}

/* Record the command nr times into new gxNNN results; *dirs gets their
 * names. 0 or the exit code. */
static int record_runs(struct check_cmd_opts *c, int argc, char **argv, char ***dirs)
{
	char *cause = NULL;
	int err = record_repeat(&c->rec, c->cmd, c->repeat, c->quiet, &cmd_record_notice, argc,
				argv, dirs, &cause);

	if (!err)
		return GX_EXIT_OK;
	cmd_error("%s", cause);
	free(cause);
	return cmd_record_exit(err);
}

static int write_file(const char *path, const struct strbuf *sb)
{
	FILE *f = fopen(path, "w");
	int written;

	if (!f) {
		cmd_error("%s: %s", path, strerror(errno));
		return -1;
	}
	/* fclose() once, whether or not the write went through */
	written = fwrite(sb->buf, 1, sb->len, f) == sb->len;
	if (fclose(f) != 0 || !written) {
		cmd_error("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* --html FILE: the first run's report with the verdicts; 0 or -1 (said). */
static int write_html(struct check_cmd_opts *c, struct gx_result *res, const struct ci_report *rep)
{
	struct strbuf js = STRBUF_INIT;
	char *cause = NULL;
	int err;

	ci_report__json(rep, &js);
	err = report_html_write(res, c->samples, gx_result__sort_event(res), NULL, js.buf, c->html,
				&cause);
	if (err)
		cmd_error("--html: %s", cause);
	free(cause);
	strbuf__exit(&js);
	return err ? -1 : 0;
}

/* Evaluate c on the opened runs[0..n) (n >= 1) and print; the exit status. */
static int check_opened(struct check_cmd_opts *c, struct gx_result *const *runs, size_t n)
{
	struct gx_result *base = NULL;
	struct ci_report rep;
	struct strbuf out = STRBUF_INIT, x = STRBUF_INIT, gh = STRBUF_INIT;
	char *cause = NULL, cwd[4096];
	int ret = GX_EXIT_USAGE, err;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	if (c->baseline && gx_result__open(&base, c->baseline, &c->open, &cause)) {
		cmd_error("--baseline: %s", cause);
		goto out;
	}
	/* a modelled baseline priced by another description: priced again
	 * with the run's, or exit 2 saying why it cannot be */
	if (base) {
		char *note = NULL;

		if (cmd_reprice_like(&base, c->baseline, &c->open, runs[0], &note, &cause)) {
			cmd_error("--baseline: %s", cause);
			goto out;
		}
		if (note && !c->quiet)
			cmd_warn("--baseline: %s", note);
		free(note);
	}
	err = ci_check_run(runs, n, base, &c->spec, &rep, &cause);
	if (err) {
		cmd_error("%s", cause);
		goto out;
	}
	ret = ci_report__exit_status(&rep);
	/* a result cut short is said first (on stderr beside --json); its
	 * partial counts pass no gate unless --allow-incomplete */
	for (size_t i = 0; i < n; i++) {
		const char *why = gx_result__incomplete(runs[i]);
		const char *then = c->spec.allow_incomplete ? "checked as it is (--allow-incomplete)" :
				   "exit status 2 (--allow-incomplete checks it as it is)";

		if (!why && gx_result__stopped(runs[i]))	/* whole: checked */
			cmd_warn("%s was %s: checked over what it ran until then",
				 gx_esc(gx_result__path(runs[i])), gx_result__stopped(runs[i]));
		else if (why && c->json)
			cmd_warn("%s is incomplete: %s; %s", gx_result__path(runs[i]), why, then);
		else if (why)
			strbuf__addf(&out, "gexplore check: %s is INCOMPLETE: %s; %s\n",
				     gx_esc(gx_result__path(runs[i])), gx_esc(why), then);
	}
	/* annotations name repository paths: relative to the checkout */
	rep.source_root = getenv("GITHUB_WORKSPACE") ? getenv("GITHUB_WORKSPACE") :
			  getenv("CI_PROJECT_DIR") ? getenv("CI_PROJECT_DIR") : cwd;
	if (c->json)
		ci_report__json(&rep, &out);
	else if (!c->quiet || ret)
		ci_report__text(&rep, &out);
	/* with --json, stdout holds one JSON document: the annotations go to
	 * stderr, which the Actions runner reads as well */
	if (c->github)
		ci_report__github(&rep, c->json ? &gh : &out);
	if (cmd_write_stdout(out.buf, out.len, "the verdict") != 0)
		ret = GX_EXIT_USAGE;	/* the verdict did not reach its reader */
	if (gh.len)
		fwrite(gh.buf, 1, gh.len, stderr);
	if (c->json)	/* the reasons still reach a human */
		for (size_t i = 0; i < rep.nr; i++)
			if (rep.outcomes[i].status == CI_SKIP)
				cmd_error("%s", rep.outcomes[i].message);
	if (c->junit) {
		ci_report__junit(&rep, &x);
		if (write_file(c->junit, &x))
			ret = GX_EXIT_USAGE;
	}
	if (c->html && write_html(c, runs[0], &rep))
		ret = GX_EXIT_USAGE;
	ci_report__exit(&rep);
out:
	gx_result__delete(base);
	strbuf__exit(&out);
	strbuf__exit(&x);
	strbuf__exit(&gh);
	free(cause);
	return ret;
}

/* Open results[0..n) (n 0: the newest), then check them; the exit status. */
static int check_results(struct check_cmd_opts *c, char **results, size_t n)
{
	size_t nr = n ? n : 1;
	struct gx_result **runs = xcalloc(nr + 1, sizeof(*runs));
	char *cause = NULL;
	int ret = GX_EXIT_USAGE;

	for (size_t i = 0; i < nr; i++) {
		struct gx_result_opts oo = c->open;

		if (c->html && !i) {	/* the page's timeline: the first run's samples */
			export_samples__delete(c->samples);
			c->samples = export_samples__new();
			export_samples__hook(c->samples, &oo);
		}
		if (gx_result__open(&runs[i], n ? results[i] : NULL, &oo, &cause)) {
			cmd_error("%s", cause);
			goto out;
		}
	}
	ret = check_opened(c, runs, nr);
out:
	for (size_t i = 0; i < nr; i++)
		gx_result__delete(runs[i]);
	free(runs);
	free(cause);
	return ret;
}

static int check_main(struct check_cmd_opts *c, int argc, char **argv)
{
	char **dirs = NULL;
	int ret;

	if (!c->spec.nr_checks) {
		cmd_error("nothing to check: give --max, --min or --max-regress METRIC=VALUE");
		return cmd_usage(&cmd_check_entry);
	}
	if (c->cmd && !c->repeat)
		c->repeat = 1;
	if (!c->repeat)
		return check_results(c, c->results, c->nr_results);
	if (!c->cmd || !c->cmd[0]) {
		cmd_error("--repeat N records a command: give it after '--'");
		return GX_EXIT_USAGE;
	}
	if (c->nr_results) {
		cmd_error("--repeat records new results: name no RESULT");
		return GX_EXIT_USAGE;
	}
	ret = record_runs(c, argc, argv, &dirs);
	if (!ret)
		ret = check_results(c, dirs, c->repeat);
	for (unsigned k = 0; dirs && k < c->repeat; k++)
		free(dirs[k]);
	free(dirs);
	return ret;
}

static int cmd_check_exec(int argc, char **argv)
{
	struct check_cmd_opts c;
	struct cmd_args a;
	int ret;

	check_cmd_opts__init(&c);
	if (cmd_parse(&cmd_check_entry, &c, argc, argv, &a)) {
		check_cmd_opts__exit(&c);
		return a.exit;
	}
	c.results = a.argv;
	c.nr_results = (size_t)a.argc;
	c.cmd = a.rest;
	check_cmd_opts__finish(&c);
	ret = check_main(&c, argc, argv);
	check_cmd_opts__exit(&c);
	return ret;
}

int check_cmd_opts__new(struct check_cmd_opts **out, const char *spec)
{
	struct check_cmd_opts *c = xzalloc(sizeof(*c));
	int ret;

	*out = NULL;
	check_cmd_opts__init(c);
	ret = cmd_parse_words(&cmd_check_entry, c, spec, &c->spec_words);
	if (!ret && (c->repeat || c->rec_words.buf)) {
		cmd_error_in("check", "'%s': --repeat and --record are record's own here: "
			     "record --repeat N --check SPEC", spec);
		ret = GX_EXIT_USAGE;
	}
	if (ret) {
		check_cmd_opts__delete(c);
		return ret;
	}
	check_cmd_opts__finish(c);
	*out = c;
	return 0;
}

void check_cmd_opts__delete(struct check_cmd_opts *c)
{
	if (!c)
		return;
	check_cmd_opts__exit(c);
	free(c);
}

bool check_cmd_opts__quiet(const struct check_cmd_opts *c)
{
	return c && c->quiet;
}

static int check_spec_given(const struct check_cmd_opts *c)
{
	if (c->spec.nr_checks)
		return 0;
	cmd_error("nothing to check: give --max, --min or --max-regress METRIC=VALUE");
	return cmd_usage(&cmd_check_entry);
}

int check_run(struct check_cmd_opts *c, char **results, size_t n)
{
	return check_spec_given(c) ? GX_EXIT_USAGE : check_results(c, results, n);
}

const struct gx_result_opts *check_cmd_opts__open(const struct check_cmd_opts *c)
{
	return &c->open;
}

int check_run_result(struct check_cmd_opts *c, struct gx_result *res)
{
	return check_spec_given(c) ? GX_EXIT_USAGE : check_opened(c, &res, 1);
}

GX_COMMAND(check, "[RESULT...] [-- CMD [ARGS]]", -1,
	   "check metrics against thresholds for CI (exit 0 pass, 1 fail, 77 cannot measure)");
