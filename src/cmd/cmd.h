/*
 * cmd: the command line. One cmd-*.c per subcommand exports a
 * `const struct cmd_entry`; main.c holds the table and the unique-prefix
 * lookup. Only this module prints or exits.
 */
#ifndef GX_CMD_H
#define GX_CMD_H

#include <stdbool.h>

/* Exit codes (documented in gexplore(1)). */
enum {
	GX_EXIT_OK = 0,
	GX_EXIT_FAIL = 1,	/* the operation failed (I/O, measurement) / check violated */
	GX_EXIT_USAGE = 2,	/* bad usage or bad input */
	GX_EXIT_SKIP = 77,	/* cannot measure (Automake's SKIP) */
};

struct cmd_entry {
	const char *name;
	const char *usage;	/* "record [options] -- CMD [ARGS]" */
	const char *summary;	/* one line for `gexplore help` */
	int (*exec)(int argc, char **argv);	/* argv[0] is the subcommand name */
};

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

/* The table, NULL-terminated. */
extern const struct cmd_entry *const cmd_table[];

/* Print "gexplore: <message>" to stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "gexplore: warning: <message>" to stderr. */
void cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the usage line of e to stderr and return GX_EXIT_USAGE. */
int cmd_usage(const struct cmd_entry *e);
/* Find a command by unique prefix; NULL with *ambiguous set when several match. */
const struct cmd_entry *cmd_find(const char *name, bool *ambiguous);

#endif /* GX_CMD_H */
