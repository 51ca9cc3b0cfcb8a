/*
 * gexplore tui [RESULT]: the interactive drill-down. On something that is
 * not a terminal (or TERM=dumb) it prints the text report instead.
 * --keys and --dump run the views headless and print the screen: for
 * tests, benchmarks and bug reports.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd-int.h"
#include "util/util.h"

#ifdef HAVE_NCURSESW
#include "profile/profile.h"
#include "tui/tui.h"
#include "util/util.h"

/* Apply a key script and print the final screen (text, then styles). */
static int dump(struct tui_session *s, const char *keys, int w, int h, bool styles, bool timing)
{
	struct strbuf out = STRBUF_INIT;
	struct tui_dump_stats st;
	char *cause = NULL;
	int ret = GX_EXIT_OK;

	if (tui_dump(s, keys, w, h, styles, &out, &st, &cause) != 0) {
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
		    const struct cmd_symopts *sym, const char *baseline, const char *region)
{
	struct tui_open_opts o = { .result = result, .parent = parent ? parent : ".", .cpu = cpu,
				   .baseline = baseline, .region = region };
	struct profile_opts prof = { 0 };
	struct tui_session *s = NULL;
	const char *why;
	char *cause = NULL;
	int ret = GX_EXIT_OK, err;

	if (!tui_usable(&why)) {
		cmd_warn("%s: printing the text report instead of the TUI", why);
		return report_print_sym(result, parent, sym);
	}
	{
		static const struct cmd_symopts none;	/* after record: the defaults */

		cmd_symopts__apply(sym ? sym : &none, &prof);
		o.sym = &prof;
	}
	if (tui_session__open(&s, &o, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return GX_EXIT_USAGE;
	}
	err = tui_run(s, &cause);
	if (err == -EINTR) {
		ret = 128 + SIGINT;	/* Ctrl-C: as a shell says it */
	} else if (err) {
		cmd_error("%s", cause);
		ret = GX_EXIT_FAIL;
	}
	free(cause);
	tui_session__delete(s);
	return ret;
}
#endif

struct tui_cli {
	const char *cpu, *keys, *baseline, *region;
	struct cmd_symopts sym;
	bool dumping, styles, timing;
	int w, h;
};

static int opt_keys(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct tui_cli *c = base;

	(void)opt;
	(void)cause;
	c->keys = arg;
	c->dumping = true;
	return 0;
}

static int opt_dump(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct tui_cli *c = base;
	char x, end;

	(void)opt;
	if (sscanf(arg, "%4d%c%4d%c", &c->w, &x, &c->h, &end) != 3 || x != 'x' || c->w < 1 ||
	    c->h < 1 || c->w > 1000 || c->h > 1000) {
		*cause = xasprintf("expected WIDTHxHEIGHT, each from 1 to 1000, got '%s'", arg);
		return -1;
	}
	c->dumping = true;
	return 0;
}

static const struct cmd_option tui_options[] = {
	CMD_OPT_STRING(0, "cpu", struct tui_cli, cpu, "MODEL",
		       "evaluate the top-down tree with this model", "the recording's"),
	CMD_OPT_INCLUDE(struct tui_cli, sym, cmd_symopts_options),
	CMD_OPT_STRING(0, "baseline", struct tui_cli, baseline, "RESULT",
		       "show each value's change from RESULT", NULL),
	CMD_OPT_STRING(0, "region", struct tui_cli, region, "NAME",
		       "open narrowed to the instances of region NAME", NULL),
	CMD_OPT_CALLBACK(0, "keys", "KEYS", opt_keys,
			 "apply these keys headless and print the screen", NULL),
	CMD_OPT_CALLBACK(0, "dump", "WxH", opt_dump, "the headless screen's size", "80x24"),
	CMD_OPT_BOOL(0, "styles", struct tui_cli, styles,
		     "with --keys, also print each cell's style"),
	CMD_OPT_BOOL(0, "timing", struct tui_cli, timing,
		     "with --keys, print the time per key on stderr"),
	CMD_OPT_END(),
};

static int cmd_tui_exec(int argc, char **argv)
{
	struct tui_cli cli = { .w = 80, .h = 24 };
	const char *cpu, *keys, *input, *baseline;
	struct cmd_symopts sym;
	bool dumping, styles, timing;
	int w, h;
	struct cmd_args a;

	if (cmd_parse(&cmd_tui_entry, &cli, argc, argv, &a))
		return a.exit;
	cpu = cli.cpu;
	keys = cli.keys;
	input = a.argc ? a.argv[0] : NULL;
	baseline = cli.baseline;
	sym = cli.sym;
	dumping = cli.dumping;
	styles = cli.styles;
	timing = cli.timing;
	w = cli.w;
	h = cli.h;
#ifdef HAVE_NCURSESW
	if (dumping) {
		struct tui_open_opts o = { .result = input, .parent = ".", .cpu = cpu,
					   .baseline = baseline, .region = cli.region };
		struct profile_opts prof = { 0 };
		struct tui_session *s = NULL;
		char *cause = NULL;
		struct timespec t0, t1;
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &t0);

		cmd_symopts__apply(&sym, &prof);
		o.sym = &prof;
		if (tui_session__open(&s, &o, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			return GX_EXIT_USAGE;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (timing)
			fprintf(stderr, "open: %.3f s, %zu samples\n",
				(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
				tui_session__nr_samples(s));
		ret = dump(s, keys, w, h, styles, timing);
		tui_session__delete(s);
		return ret;
	}
	return tui_open_result(input, ".", cpu, &sym, baseline, cli.region);
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

GX_COMMAND(tui, "[RESULT]", 1,
	   "explore a result interactively: summary, functions, lines, instructions");
