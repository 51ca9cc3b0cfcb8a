/*
 * gexplore peak: measure what this processor can do (instruction latency
 * and throughput, bandwidth per cache level, load latency, instruction
 * mixes), print it, and keep it per machine for `gexplore report --roofline`.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak/peak.h"
#include "util/util.h"

static void progress(void *arg, const char *what)
{
	(void)arg;
	fprintf(stderr, "\r\033[K  measuring %s", what);
	fflush(stderr);
}

static int cmd_peak_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "tests", required_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-save", no_argument, NULL, 'n' },
		{ "list", no_argument, NULL, 'l' },
		{ "single-sample", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct peak_opts o = { 0 };
	struct peak_result res;
	struct strbuf sb = STRBUF_INIT;
	bool json = false, save = true;
	const char *output = NULL;
	char *cause = NULL, *path = NULL, *end;
	json_t *doc;
	int c, err, ret = GX_EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+qjt:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o.quick = true;
			break;
		case 'j':
			json = true;
			break;
		case 't':
			o.tests = optarg;
			break;
		case 'T':
			o.max_threads = (int)strtol(optarg, &end, 10);
			if (*end || o.max_threads < 1) {
				cmd_error("--threads: '%s' is not a positive number", optarg);
				return GX_EXIT_USAGE;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'n':
			save = false;
			break;
		case 'S':
			o.single_sample = true;
			break;
		case 'l':
			for (const char *const *n = peak_test_names(); *n; n++)
				printf("%s\n", *n);
			printf("fma+load\nfma+fadd\nfma+store\nload+store\n");
			printf("bandwidth\ncontention\nlatency\n");
			printf("groups: int fp vec load store mix mem\n");
			return GX_EXIT_OK;
		case 'h':
			printf("usage: gexplore %s\n", cmd_peak_entry.usage);
			return GX_EXIT_OK;
		default:
			if (optopt)
				cmd_error("option -%c: unknown or missing its argument", optopt);
			else
				cmd_error("unknown option '%s'", argv[optind - 1]);
			return cmd_usage(&cmd_peak_entry);
		}
	}
	if (optind != argc)
		return cmd_usage(&cmd_peak_entry);
	if (isatty(STDERR_FILENO)) {
		o.progress = progress;
		fprintf(stderr, "gexplore peak: pinning to one CPU; keep the machine otherwise idle\n");
	}
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

const struct cmd_entry cmd_peak_entry = {
	.name = "peak",
	.usage = "peak [--quick] [--json] [--tests LIST] [--threads N] [-o FILE] [--no-save] [--list] "
		 "[--single-sample]",
	.summary = "measure this processor's peaks (latency, throughput, bandwidth)",
	.exec = cmd_peak_exec,
};
