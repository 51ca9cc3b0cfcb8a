/*
 * gexplore diff [A [B]]: compare two results per scope and metric. Without
 * arguments A and B are the two newest gxNNN results here (A the older);
 * with one, A is it and B the newest.
 */
#include "config.h"

#include "cmd.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-int.h"
#include "profile/profile.h"
#include "report/report-ci.h"
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

static int cmd_diff_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "limit", required_argument, NULL, 'l' },
		{ "metric", required_argument, NULL, 'm' },
		{ "scope", required_argument, NULL, 's' },
		{ "min-samples", required_argument, NULL, 'S' },
		{ "cpu", required_argument, NULL, 'C' },
		CMD_SYMOPTS_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ci_diff_opts o = { 0 };
	struct gx_result_opts oo = { 0 };
	struct cmd_symopts sym = { 0 };
	struct profile_opts prof = { 0 };
	struct gx_result *a = NULL, *b = NULL;
	struct ci_diff d = { 0 };
	struct strbuf out = STRBUF_INIT;
	const char **metrics = NULL;
	char *pa = NULL, *pb = NULL, *cause = NULL, *end;
	size_t nm = 0, text_limit = 40;
	bool json = false, csv = false;
	int c, ret = GX_EXIT_USAGE;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "m:h", longopts, NULL)) != -1) {
		int k = cmd_symopts__parse(&sym, c, optarg);

		if (k < 0)
			goto out;
		if (k)
			continue;
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'c':
			csv = true;
			break;
		case 'l':
			text_limit = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-') {
				cmd_error("--limit: '%s' is not a number of lines", optarg);
				goto out;
			}
			break;
		case 'm':
			metrics = xrealloc(metrics, (nm + 2) * sizeof(*metrics));
			metrics[nm++] = optarg;
			metrics[nm] = NULL;
			break;
		case 's': {
			enum ci_scope s;

			for (s = 0; s < CI_SCOPE_NR_ && strcmp(ci_scope_name(s), optarg); s++)
				;
			if (s == CI_SCOPE_NR_) {
				cmd_error("--scope: '%s' is not run, process, module or function", optarg);
				goto out;
			}
			if (o.nr_scopes < CI_SCOPE_NR_)
				o.scopes[o.nr_scopes++] = s;
			break;
		}
		case 'S':
			o.min_samples = strtoull(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-') {
				cmd_error("--min-samples: '%s' is not a number", optarg);
				goto out;
			}
			break;
		case 'C':
			oo.cpu = optarg;
			break;
		case 'h':
			printf("usage: gexplore %s\n", cmd_diff_entry.usage);
			ret = GX_EXIT_OK;
			goto out;
		default:
			if (optopt)
				cmd_error("option -%c: unknown or missing its argument", optopt);
			else
				cmd_error("unknown option or missing argument: '%s'", argv[optind - 1]);
			ret = cmd_usage(&cmd_diff_entry);
			goto out;
		}
	}
	if (json && csv) {
		cmd_error("--json and --csv exclude each other");
		goto out;
	}
	if (argc - optind > 2) {
		ret = cmd_usage(&cmd_diff_entry);
		goto out;
	}
	if (argc - optind == 2) {
		pa = xstrdup(argv[optind]);
		pb = xstrdup(argv[optind + 1]);
	} else if (newest_two(".", argc - optind == 1 ? &cause : &pa, &pb) != 0) {
		cmd_error("diff needs two results: name them, or record two (gx001, gx002, ...) here");
		goto out;
	} else if (argc - optind == 1) {
		free(cause);
		cause = NULL;
		pa = xstrdup(argv[optind]);
	}
	o.metrics = metrics;
	cmd_symopts__apply(&sym, &prof);
	oo.sym = &prof;
	if (gx_result__open(&a, pa, &oo, &cause) || gx_result__open(&b, pb, &oo, &cause)) {
		cmd_error("%s", cause);
		goto out;
	}
	if (ci_diff_run(a, b, &o, &d, &cause)) {
		cmd_error("%s", cause);
		goto out;
	}
	if (json)
		ci_diff__json(&d, &out);
	else if (csv)
		ci_diff__csv(&d, &out);
	else
		ci_diff__text(&d, &out, text_limit);
	fwrite(out.buf ? out.buf : "", 1, out.len, stdout);
	ret = fflush(stdout) == 0 ? GX_EXIT_OK : GX_EXIT_FAIL;
out:
	ci_diff__exit(&d);
	gx_result__delete(a);
	gx_result__delete(b);
	strbuf__exit(&out);
	free(metrics);
	free(pa);
	free(pb);
	free(cause);
	return ret;
}

const struct cmd_entry cmd_diff_entry = {
	.name = "diff",
	.usage = "diff [--json | --csv] [--metric M]... [--scope S]... [--limit N] [--cpu MODEL]\n"
		 "            " CMD_SYMOPTS_USAGE " [A [B]]",
	.summary = "compare two results per scope and metric, biggest changes first",
	.exec = cmd_diff_exec,
};
