/*
 * gexplore tui [RESULT]: the interactive drill-down. On something that is
 * not a terminal (or TERM=dumb) it prints the text report instead.
 * --keys and --dump run the views headless and print the screen: for
 * tests, benchmarks and bug reports.
 */
#include "config.h"

#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd-int.h"

#ifdef HAVE_NCURSESW
#include "profile/profile.h"
#include "tui/tui.h"
#include "util/util.h"

/* Apply a key script and print the final screen (text, then styles). */
static int dump(struct tui_model *m, const char *keys, int w, int h, bool styles, bool timing)
{
	struct strbuf out = STRBUF_INIT;
	struct tui_dump_stats st;
	char *cause = NULL;
	int ret = GX_EXIT_OK;

	if (tui_dump(m, keys, w, h, styles, &out, &st, &cause) != 0) {
		cmd_error("%s", cause);
		ret = GX_EXIT_USAGE;
	}
	if (out.len)
		fwrite(out.buf, 1, out.len, stdout);
	if (timing && st.nr_keys)
		fprintf(stderr, "keys: %zu, mean %.3f ms, worst %.3f ms (%s) per key (handle + draw)\n",
			st.nr_keys, st.mean_ms, st.worst_ms, st.worst_key);
	strbuf__exit(&out);
	free(cause);
	return ret;
}

int tui_open_result(const char *result, const char *parent, const char *cpu,
		    const struct cmd_symopts *sym, const char *baseline)
{
	struct tui_open_opts o = { .result = result, .parent = parent ? parent : ".", .cpu = cpu,
				   .baseline = baseline };
	struct profile_opts prof = { 0 };
	struct tui_model *m = NULL;
	const char *why;
	char *cause = NULL;
	int ret = GX_EXIT_OK;

	if (!tui_usable(&why)) {
		cmd_warn("%s: printing the text report instead of the TUI", why);
		return report_print_sym(result, parent, sym);
	}
	if (sym) {
		cmd_symopts__apply(sym, &prof);
		o.sym = &prof;
	}
	if (tui_model__open(&m, &o, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return GX_EXIT_USAGE;
	}
	if (tui_run(m, &cause) != 0) {
		cmd_error("%s", cause);
		ret = GX_EXIT_FAIL;
	}
	free(cause);
	tui_model__delete(m);
	return ret;
}
#endif

static int cmd_tui_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "keys", required_argument, NULL, 'k' },
		{ "dump", required_argument, NULL, 'd' },
		{ "styles", no_argument, NULL, 'S' },
		{ "timing", no_argument, NULL, 'T' },
		{ "baseline", required_argument, NULL, 'b' },
		CMD_SYMOPTS_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cpu = NULL, *keys = NULL, *input = NULL, *baseline = NULL;
	struct cmd_symopts sym = { 0 };
	bool dumping = false, styles = false, timing = false;
	int c, w = 80, h = 24;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		int k = cmd_symopts__parse(&sym, c, optarg);

		if (k < 0)
			return -k;
		if (k)
			continue;
		switch (c) {
		case 'C':
			cpu = optarg;
			break;
		case 'k':
			keys = optarg;
			dumping = true;
			break;
		case 'd':
			if (sscanf(optarg, "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 1000 ||
			    h > 1000) {
				cmd_error("--dump: '%s' is not WIDTHxHEIGHT", optarg);
				return GX_EXIT_USAGE;
			}
			dumping = true;
			break;
		case 'S':
			styles = true;
			break;
		case 'b':
			baseline = optarg;
			break;
		case 'T':
			timing = true;
			break;
		case 'h':
			printf("usage: gexplore %s\n", cmd_tui_entry.usage);
			return GX_EXIT_OK;
		default:
			if (optopt)
				cmd_error("option -%c: unknown or missing its argument", optopt);
			else
				cmd_error("unknown option '%s'", argv[optind - 1]);
			return cmd_usage(&cmd_tui_entry);
		}
	}
	if (optind < argc) {
		if (optind + 1 < argc)
			return cmd_usage(&cmd_tui_entry);
		input = argv[optind];
	}
#ifdef HAVE_NCURSESW
	if (dumping) {
		struct tui_open_opts o = { .result = input, .parent = ".", .cpu = cpu,
					   .baseline = baseline };
		struct profile_opts prof = { 0 };
		struct tui_model *m = NULL;
		char *cause = NULL;
		struct timespec t0, t1;
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &t0);

		cmd_symopts__apply(&sym, &prof);
		o.sym = &prof;
		if (tui_model__open(&m, &o, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			return GX_EXIT_USAGE;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (timing)
			fprintf(stderr, "open: %.3f s, %zu samples\n",
				(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
				tui_model__nr_samples(m));
		ret = dump(m, keys, w, h, styles, timing);
		tui_model__delete(m);
		return ret;
	}
	return tui_open_result(input, ".", cpu, &sym, baseline);
#else
	(void)cpu;
	(void)input;
	(void)baseline;
	(void)keys;
	(void)dumping;
	(void)styles;
	(void)timing;
	(void)w;
	(void)h;
	cmd_error("this gexplore was built without the TUI (ncursesw missing or --with-tui=no); "
		  "'gexplore report' prints the same result as text");
	return GX_EXIT_FAIL;
#endif
}

const struct cmd_entry cmd_tui_entry = {
	.name = "tui",
	.usage = "tui [--cpu MODEL] " CMD_SYMOPTS_USAGE "\n"
		 "           [--baseline RESULT] [--keys KEYS --dump WxH [--styles] [--timing]] [RESULT]",
	.summary = "explore a result interactively: summary, functions, lines, instructions",
	.exec = cmd_tui_exec,
};
