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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-int.h"
#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "report/report-ci.h"
#include "result/result.h"
#include "topdown/topdown.h"
#include "util/util.h"

struct check_cmd {
	struct ci_spec spec;
	struct gx_result_opts open;
	struct cmd_symopts sym;
	struct profile_opts prof;	/* open.sym: points into sym */
	const char *baseline;
	const char *junit;
	const char *record;	/* --record 'OPTS' for --repeat */
	bool json, github, quiet;
	unsigned repeat;
	char **results;		/* positional RESULTs (borrowed from argv) */
	size_t nr_results;
	char **cmd;		/* after "--" (borrowed), NULL-terminated */
	bool has_scope;
};

static void check_cmd__exit(struct check_cmd *c)
{
	ci_spec__exit(&c->spec);
	free(c->results);
}

static int set_scope(struct check_cmd *c, enum ci_scope s, const char *opt)
{
	if (c->has_scope && c->spec.scope != s) {
		cmd_error("%s: checks apply to one scope at a time (run, process, module or function)",
			  opt);
		return -1;
	}
	c->has_scope = true;
	c->spec.scope = s;
	return 0;
}

static int add_name(struct check_cmd *c, enum ci_scope s, const char *opt, const char *name)
{
	if (set_scope(c, s, opt))
		return -1;
	c->spec.names = xrealloc(c->spec.names, (c->spec.nr_names + 1) * sizeof(char *));
	c->spec.names[c->spec.nr_names++] = xstrdup(name);
	return 0;
}

static int parse_number(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out >= lo && *out <= hi)) {
		cmd_error("%s: '%s' is not a number in [%g, %g]", opt, s, lo, hi);
		return -1;
	}
	return 0;
}

/* Parse argv[0..argc) (argv[0] is the command name); "--" ends the options
 * and what follows is the command for --repeat. */
static int parse_check_opts(int argc, char **argv, struct check_cmd *c)
{
	static const struct option longopts[] = {
		{ "max", required_argument, NULL, 'M' },
		{ "min", required_argument, NULL, 'm' },
		{ "max-regress", required_argument, NULL, 'R' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "function", required_argument, NULL, 'f' },
		{ "process", required_argument, NULL, 'p' },
		{ "module", required_argument, NULL, 'd' },
		{ "top", required_argument, NULL, 't' },
		{ "per", required_argument, NULL, 'P' },
		{ "min-samples", required_argument, NULL, 's' },
		{ "min-reliability", required_argument, NULL, 'r' },
		{ "confidence", required_argument, NULL, 'c' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "record", required_argument, NULL, 'e' },
		{ "cpu", required_argument, NULL, 'C' },
		CMD_SYMOPTS_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "junit", required_argument, NULL, 'J' },
		{ "github", no_argument, NULL, 'g' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *cause = NULL;
	int dd = argc, opt;
	double x;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dd = i;
			break;
		}
	c->cmd = dd < argc ? argv + dd + 1 : NULL;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(dd, argv, "qh", longopts, NULL)) != -1) {
		enum ci_op op = CI_MAX;
		int k = cmd_symopts__parse(&c->sym, opt, optarg);

		if (k < 0)
			return -1;
		if (k)
			continue;
		switch (opt) {
		case 'm':
		case 'R':
		case 'M':
			op = opt == 'M' ? CI_MAX : opt == 'm' ? CI_MIN : CI_MAX_REGRESS;
			if (ci_spec__add(&c->spec, op, optarg, &cause)) {
				cmd_error("--%s: %s", op == CI_MAX ? "max" : op == CI_MIN ? "min" :
						      "max-regress", cause);
				free(cause);
				return -1;
			}
			break;
		case 'b':
			c->baseline = optarg;
			break;
		case 'f':
			if (add_name(c, CI_SCOPE_FUNCTION, "--function", optarg))
				return -1;
			break;
		case 'p':
			if (add_name(c, CI_SCOPE_PROCESS, "--process", optarg))
				return -1;
			break;
		case 'd':
			if (add_name(c, CI_SCOPE_MODULE, "--module", optarg))
				return -1;
			break;
		case 't':
			if (parse_number("--top", optarg, 1, 1e6, &x))
				return -1;
			c->spec.top = (size_t)x;
			break;
		case 'P': {
			enum ci_scope s = !strcmp(optarg, "function") ? CI_SCOPE_FUNCTION :
					  !strcmp(optarg, "process") ? CI_SCOPE_PROCESS :
					  !strcmp(optarg, "module") ? CI_SCOPE_MODULE :
					  !strcmp(optarg, "run") ? CI_SCOPE_RUN : CI_SCOPE_NR_;

			if (s == CI_SCOPE_NR_) {
				cmd_error("--per: '%s' is not run, process, module or function", optarg);
				return -1;
			}
			if (set_scope(c, s, "--per"))
				return -1;
			break;
		}
		case 's':
			if (parse_number("--min-samples", optarg, 0, 1e12, &x))
				return -1;
			c->spec.min_samples = (uint64_t)x;
			break;
		case 'r':
			if (parse_number("--min-reliability", optarg, 0, 1, &c->spec.min_reliability))
				return -1;
			break;
		case 'c':
			if (parse_number("--confidence", optarg, 0.5, 0.999, &c->spec.confidence))
				return -1;
			break;
		case 'n':
			if (parse_number("--repeat", optarg, 1, 1000, &x))
				return -1;
			c->repeat = (unsigned)x;
			break;
		case 'e':
			c->record = optarg;
			break;
		case 'C':
			c->open.cpu = optarg;
			break;
		case 'j':
			c->json = true;
			break;
		case 'J':
			c->junit = optarg;
			break;
		case 'g':
			c->github = true;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'h':
			printf("usage: gexplore %s\n", cmd_check_entry.usage);
			exit(GX_EXIT_OK);
		default:
			if (optopt)
				cmd_error("option -%c: unknown or missing its argument", optopt);
			else
				cmd_error("unknown option or missing argument: '%s'", argv[optind - 1]);
			return -1;
		}
	}
	/* --top alone means the hottest functions */
	if (c->spec.top && !c->has_scope)
		c->spec.scope = CI_SCOPE_FUNCTION;
	c->results = xcalloc((size_t)(dd - optind) + 1, sizeof(char *));
	for (int i = optind; i < dd; i++)
		c->results[c->nr_results++] = argv[i];
	cmd_symopts__apply(&c->sym, &c->prof);
	c->open.sym = &c->prof;
	return 0;
}

/* Split a --check / --record string into words at blanks ('...' and "..."
 * group). The words live in *buf; the array is NULL-terminated. */
static char **split_words(const char *s, char **buf, int *n)
{
	char **v = xcalloc(strlen(s) / 2 + 2, sizeof(char *));
	char *p = *buf = xstrdup(s), *w = p;

	*n = 0;
	while (*p) {
		char q = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		v[(*n)++] = w = p;
		for (char *d = p; ; p++) {
			if (q && *p == q) {
				q = 0;
			} else if (!q && (*p == '\'' || *p == '"')) {
				q = *p;
			} else if (!*p || (!q && (*p == ' ' || *p == '\t' || *p == '\n'))) {
				bool end = !*p;

				*d = 0;
				if (!end)
					p++;
				break;
			} else {
				*d++ = *p;
			}
		}
		(void)w;
	}
	v[*n] = NULL;
	return v;
}

/* Record cmd nr times into new gxNNN results; *dirs gets their names. */
static int record_runs(struct check_cmd *c, char ***dirs_out)
{
	char *buf = NULL, **recopts, **dirs = xcalloc(c->repeat + 1, sizeof(char *));
	int nrec = 0, ret = 0;
	size_t ncmd = 0;

	recopts = split_words(c->record ? c->record : "", &buf, &nrec);
	while (c->cmd[ncmd])
		ncmd++;
	for (unsigned k = 0; k < c->repeat; k++) {
		char *cause = NULL, **argv = xcalloc((size_t)nrec + ncmd + 8, sizeof(char *));
		int argc = 0, rc;

		if (pd_result_dir__create(NULL, ".", &dirs[k], &cause)) {
			cmd_error("%s", cause);
			free(cause);
			free(argv);
			ret = GX_EXIT_FAIL;
			break;
		}
		argv[argc++] = "record";
		argv[argc++] = "-q";
		argv[argc++] = "--no-report";
		argv[argc++] = "-o";
		argv[argc++] = dirs[k];
		for (int i = 0; i < nrec; i++)
			argv[argc++] = recopts[i];
		argv[argc++] = "--";
		for (size_t i = 0; i < ncmd; i++)
			argv[argc++] = c->cmd[i];
		if (!c->quiet)
			fprintf(stderr, "gexplore: check: run %u/%u -> %s\n", k + 1, c->repeat, dirs[k]);
		rc = record_run(argc, argv, false);
		free(argv);
		if (rc != 0) {
			cmd_error("check: run %u of '%s' exited with status %d; not checking it", k + 1,
				  c->cmd[0], rc);
			ret = GX_EXIT_USAGE;
			break;
		}
	}
	free(recopts);
	free(buf);
	*dirs_out = dirs;
	return ret;
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

/* Evaluate c on results[0..n) and print; the exit status. */
static int check_results(struct check_cmd *c, char **results, size_t n)
{
	struct gx_result **runs = xcalloc(n + 1, sizeof(*runs)), *base = NULL;
	struct ci_report rep;
	struct strbuf out = STRBUF_INIT, x = STRBUF_INIT;
	char *cause = NULL, cwd[4096];
	int ret = GX_EXIT_USAGE, err;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	for (size_t i = 0; i < (n ? n : 1); i++)
		if (gx_result__open(&runs[i], n ? results[i] : NULL, &c->open, &cause)) {
			cmd_error("%s", cause);
			goto out;
		}
	if (c->baseline && gx_result__open(&base, c->baseline, &c->open, &cause)) {
		cmd_error("--baseline: %s", cause);
		goto out;
	}
	err = ci_check_run(runs, n ? n : 1, base, &c->spec, &rep, &cause);
	if (err) {
		cmd_error("%s", cause);
		goto out;
	}
	ret = ci_report__exit_status(&rep);
	/* annotations name repository paths: relative to the checkout */
	rep.source_root = getenv("GITHUB_WORKSPACE") ? getenv("GITHUB_WORKSPACE") :
			  getenv("CI_PROJECT_DIR") ? getenv("CI_PROJECT_DIR") : cwd;
	if (c->json)
		ci_report__json(&rep, &out);
	else if (!c->quiet || ret)
		ci_report__text(&rep, &out);
	if (c->github)
		ci_report__github(&rep, &out);
	fwrite(out.buf ? out.buf : "", 1, out.len, stdout);
	fflush(stdout);
	if (c->json)	/* the reasons still reach a human */
		for (size_t i = 0; i < rep.nr; i++)
			if (rep.outcomes[i].status == CI_SKIP)
				cmd_error("%s", rep.outcomes[i].message);
	if (c->junit) {
		ci_report__junit(&rep, &x);
		if (write_file(c->junit, &x))
			ret = GX_EXIT_USAGE;
	}
	ci_report__exit(&rep);
out:
	for (size_t i = 0; i < (n ? n : 1); i++)
		gx_result__delete(runs[i]);
	free(runs);
	gx_result__delete(base);
	strbuf__exit(&out);
	strbuf__exit(&x);
	free(cause);
	return ret;
}

static int check_main(struct check_cmd *c)
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
	ret = record_runs(c, &dirs);
	if (!ret)
		ret = check_results(c, dirs, c->repeat);
	for (unsigned k = 0; dirs && k < c->repeat; k++)
		free(dirs[k]);
	free(dirs);
	return ret;
}

static int cmd_check_exec(int argc, char **argv)
{
	struct check_cmd c = { 0 };
	int ret;

	ci_spec__init(&c.spec);
	if (parse_check_opts(argc, argv, &c) != 0) {
		check_cmd__exit(&c);
		return GX_EXIT_USAGE;
	}
	ret = check_main(&c);
	check_cmd__exit(&c);
	return ret;
}

int check_after_record(const char *spec, const char *dir)
{
	char *buf = NULL, **words;
	char **argv;
	int n, ret;

	words = split_words(spec, &buf, &n);
	argv = xcalloc((size_t)n + 3, sizeof(char *));
	argv[0] = "check";
	for (int i = 0; i < n; i++)
		argv[i + 1] = words[i];
	argv[n + 1] = (char *)dir;
	ret = cmd_check_exec(n + 2, argv);
	free(argv);
	free(words);
	free(buf);
	return ret;
}

int check_record_repeat(const char *spec, unsigned repeat, int argc, char **argv, int idx)
{
	struct strbuf rec = STRBUF_INIT;
	struct check_cmd c = { 0 };
	char *buf = NULL, **words, **cargv;
	int n, ret;

	/* the record options, less those that name one result or ask for this */
	for (int i = 1; i < idx; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "--check") || !strcmp(a, "--repeat") || !strcmp(a, "-o") ||
		    !strcmp(a, "--output")) {
			i++;
			continue;
		}
		if (!strncmp(a, "--check=", 8) || !strncmp(a, "--repeat=", 9) ||
		    !strncmp(a, "--output=", 9) || (!strncmp(a, "-o", 2) && a[2]) ||
		    !strcmp(a, "--no-report") || !strcmp(a, "-q") || !strcmp(a, "--quiet") ||
		    !strcmp(a, "-f") || !strcmp(a, "--force"))
			continue;
		strbuf__addf(&rec, "%s'%s'", rec.len ? " " : "", a);
	}
	ci_spec__init(&c.spec);
	words = split_words(spec, &buf, &n);
	cargv = xcalloc((size_t)n + 2, sizeof(char *));
	cargv[0] = "check";
	for (int i = 0; i < n; i++)
		cargv[i + 1] = words[i];
	if (parse_check_opts(n + 1, cargv, &c) != 0) {
		ret = GX_EXIT_USAGE;
		goto out;
	}
	c.repeat = repeat;
	c.record = rec.buf;
	c.cmd = argv + idx;
	ret = check_main(&c);
out:
	check_cmd__exit(&c);
	strbuf__exit(&rec);
	free(cargv);
	free(words);
	free(buf);
	return ret;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "check [RESULT...] [--max|--min METRIC=V]... [--baseline B --max-regress METRIC=X%]...\n"
		 "                [--function NAME | --process NAME | --module NAME | --top N [--per SCOPE]]\n"
		 "                [--min-samples N] [--min-reliability R] [--cpu MODEL]\n"
		 "                " CMD_SYMOPTS_USAGE "\n"
		 "                [--json] [--junit FILE] [--github] [--repeat N [--record OPTS] -- CMD]",
	.summary = "check metrics against thresholds for CI (exit 0 pass, 1 fail, 77 cannot measure)",
	.exec = cmd_check_exec,
};
