/*
 * cmd: the command line. One cmd-*.c per subcommand exports a
 * `const struct cmd_entry`; main.c holds the table and the unique-prefix
 * lookup. Only this module prints or exits.
 */
#ifndef GX_CMD_H
#define GX_CMD_H

#include <stdbool.h>
#include <stddef.h>

/* Exit codes (documented in gexplore(1)). */
enum {
	GX_EXIT_OK = 0,
	GX_EXIT_FAIL = 1,	/* the operation failed (I/O, measurement) / check violated */
	GX_EXIT_USAGE = 2,	/* bad usage or bad input */
	GX_EXIT_SKIP = 77,	/* cannot measure (Automake's SKIP) */
};

struct cmd_option;

struct cmd_entry {
	const char *name;
	const char *usage;	/* the arguments after "[options]": "[--] CMD [ARGS]" */
	const char *summary;	/* one line for `gexplore help` */
	int (*exec)(int argc, char **argv);	/* argv[0] is the subcommand name */
	/* The options (cmd-options.c): they drive the parser, `--help` and
	 * `gexplore help NAME`, and tests/e2e/options.sh holds the man page
	 * to them. */
	const struct cmd_option *options;
	int max_args;		/* positional arguments allowed; -1: any */
	bool stop_at_arg;	/* options end at the first argument (a command's argv) */
};

/*
 * Define command ID's entry: cmd_ID_exec and ID_options, its usage line,
 * how many arguments it takes (-1: any) and its one-line summary.
 */
#define GX_COMMAND(id, use, nargs, line)                                          \
	const struct cmd_entry cmd_##id##_entry = { .name = #id, .usage = use,    \
		.exec = cmd_##id##_exec, .options = id##_options, .max_args = nargs, \
		.summary = line }

extern const struct cmd_entry cmd_record_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_version_entry;
extern const struct cmd_entry cmd_help_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_topdown_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_diff_entry;
extern const struct cmd_entry cmd_tui_entry;
extern const struct cmd_entry cmd_peak_entry;
extern const struct cmd_entry cmd_archive_entry;

/* The table, NULL-terminated. */
extern const struct cmd_entry *const cmd_table[];

/* Print "gexplore: <message>" to stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "gexplore: warning: <message>" to stderr. */
void cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Flush stdout; when it (or an earlier write) failed, say "writing WHAT:
 * No space left on device" and return GX_EXIT_FAIL, else 0. */
int cmd_flush_stdout(const char *what);
/* Write buf[0..len) to stdout and flush it, saying what failed as
 * cmd_flush_stdout() does. */
int cmd_write_stdout(const char *buf, size_t len, const char *what);
/* Print the usage line of e to stderr and return GX_EXIT_USAGE. */
int cmd_usage(const struct cmd_entry *e);
/* Print e's usage line and one line per option to stdout (`--help`). */
void cmd_help_print(const struct cmd_entry *e);
/* e's options alone, a line each, as cmd_help_print shows them. */
void cmd_help_print_options(const struct cmd_entry *e);
/* Find a command by unique prefix; NULL with *ambiguous set when several match. */
const struct cmd_entry *cmd_find(const char *name, bool *ambiguous);

#endif /* GX_CMD_H */
