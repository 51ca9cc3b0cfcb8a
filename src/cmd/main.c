#include "config.h"

#include "cmd.h"

#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <jansson.h>

#include "util/util.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_record_entry,
	&cmd_report_entry,
	&cmd_list_entry,
	&cmd_topdown_entry,
	&cmd_check_entry,
	&cmd_diff_entry,
	&cmd_tui_entry,
	&cmd_peak_entry,
	&cmd_archive_entry,
	&cmd_version_entry,
	&cmd_help_entry,
	NULL,
};

/* A message may hold names from files and argv: one line, escaped (util.h). */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char *m = xvasprintf(fmt, ap);

	fflush(stdout);
	fprintf(stderr, "gexplore: %s%s\n", prefix, gx_esc(m));
	free(m);
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void cmd_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int cmd_usage(const struct cmd_entry *e)
{
	fprintf(stderr, "usage: gexplore %s [options]%s%s\n", e->name, *e->usage ? " " : "",
		e->usage);
	fprintf(stderr, "       see 'gexplore help %s' or gexplore-%s(1)\n", e->name, e->name);
	return GX_EXIT_USAGE;
}

const struct cmd_entry *cmd_find(const char *name, bool *ambiguous)
{
	const struct cmd_entry *found = NULL;
	size_t len = strlen(name);

	*ambiguous = false;
	for (const struct cmd_entry *const *e = cmd_table; *e; e++) {
		if (strcmp((*e)->name, name) == 0)
			return *e;
		if (len && strncmp((*e)->name, name, len) == 0) {
			if (found)
				*ambiguous = true;
			found = *e;
		}
	}
	return *ambiguous ? NULL : found;
}

static void list_candidates(const char *name)
{
	size_t len = strlen(name);

	fprintf(stderr, "gexplore: ambiguous command '%s', could be:", name);
	for (const struct cmd_entry *const *e = cmd_table; *e; e++)
		if (strncmp((*e)->name, name, len) == 0)
			fprintf(stderr, " %s", (*e)->name);
	fputc('\n', stderr);
}

/* Whether name is an executable on PATH. */
static bool is_program(const char *name)
{
	const char *path = getenv("PATH");
	bool found = false;
	char *dirs, *save = NULL;

	if (!path || !*name)
		return false;
	dirs = xstrdup(path);
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", *d ? d : ".", name);

		found = access(f, X_OK) == 0;
		free(f);
	}
	free(dirs);
	return found;
}

/* An unknown command: the nearest one by spelling ("reprot"), or, for a
 * program, the '--' that records it ("gexplore ./prog"). */
static void unknown_command(const char *name)
{
	const struct cmd_entry *best = NULL;
	size_t bd = 3;

	for (const struct cmd_entry *const *e = cmd_table; *e; e++) {
		size_t d = gx_edit_distance(name, (*e)->name, 2);

		if (d < bd)
			bd = d, best = *e;
	}
	if (best && !strchr(name, '/'))
		cmd_error("unknown command '%s'; did you mean '%s'?%s%s", gx_esc(name),
			  best->name, is_program(name) ? " To record the program, put '--' before "
			  "it: gexplore -- " : " (see 'gexplore help')",
			  is_program(name) ? gx_esc(name) : "");
	else if (strchr(name, '/') || is_program(name))
		cmd_error("unknown command '%s'; to record a program, put '--' before it: "
			  "gexplore -- %s", gx_esc(name), gx_esc(name));
	else
		cmd_error("unknown command '%s'; see 'gexplore help'", gx_esc(name));
}

int cmd_flush_stdout(const char *what)
{
	int err;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	err = errno;
	/* said once: the check at exit finds the error cleared */
	clearerr(stdout);
	if (err)
		cmd_error("writing %s: %s", what, strerror(err));
	else
		cmd_error("writing %s failed (an earlier write to standard output failed)", what);
	return GX_EXIT_FAIL;
}

int cmd_write_stdout(const char *buf, size_t len, const char *what)
{
	int err;

	errno = 0;
	if (!len || fwrite(buf, 1, len, stdout) == len)
		return cmd_flush_stdout(what);
	err = errno ? errno : EIO;
	clearerr(stdout);
	cmd_error("writing %s: %s", what, strerror(err));
	return GX_EXIT_FAIL;
}

/* Whatever a command wrote to stdout reached it: a full disk, a closed
 * pipe's EIO or a quota is said, and the exit status says so. */
static int finish(int ret)
{
	if (cmd_flush_stdout("standard output") != 0 && ret == GX_EXIT_OK)
		return GX_EXIT_FAIL;
	return ret;
}

int main(int argc, char **argv)
{
	const struct cmd_entry *e;
	bool ambiguous;
	uint32_t seed;

	/* jansson's hash seed (against colliding keys in a JSON file) from one
	 * system call: left to itself, jansson opens /dev/urandom to read it */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed) && seed)
		json_object_seed((size_t)seed);
	if (argc < 2) {
		/* `gexplore` alone: the list of commands. */
		char *hargv[] = { "help", NULL };

		return cmd_help_entry.exec(1, hargv);
	}
	/* `gexplore [record options] -- CMD`: record, then report. */
	if (argv[1][0] == '-') {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			char *hargv[] = { "help", NULL };

			return cmd_help_entry.exec(1, hargv);
		}
		if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
			char *vargv[] = { "version", NULL };

			return cmd_version_entry.exec(1, vargv);
		}
		argv[0] = "run";
		return cmd_record_entry.exec(argc, argv);
	}
	e = cmd_find(argv[1], &ambiguous);
	if (!e) {
		if (ambiguous)
			list_candidates(argv[1]);
		else
			unknown_command(argv[1]);
		return GX_EXIT_USAGE;
	}
	return finish(e->exec(argc - 1, argv + 1));
}
