#include "config.h"

#include "cmd.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int cmd_help_exec(int argc, char **argv)
{
	const struct cmd_entry *e;
	bool ambiguous;

	if (argc < 2) {
		printf("usage: gexplore [record options] -- CMD [ARGS]\n"
		       "       gexplore COMMAND [options]\n\n"
		       "Record CMD under the CPU's performance counters and explain where and why it\n"
		       "is slow. Commands (any unique prefix works):\n\n");
		for (const struct cmd_entry *const *c = cmd_table; *c; c++)
			printf("  %-10s %s\n", (*c)->name, (*c)->summary);
		printf("\n'gexplore help COMMAND' shows a command's options; the manual is gexplore(1).\n");
		return GX_EXIT_OK;
	}
	e = cmd_find(argv[1], &ambiguous);
	if (!e) {
		cmd_error("%s command '%s'", ambiguous ? "ambiguous" : "unknown", argv[1]);
		return GX_EXIT_USAGE;
	}
	/* The full text is the man page; fall back to the usage line. */
	if (isatty(STDOUT_FILENO) && access("/usr/bin/man", X_OK) == 0) {
		char page[64];

		snprintf(page, sizeof(page), "gexplore-%s", e->name);
		execlp("man", "man", page, (char *)NULL);
	}
	printf("usage: gexplore %s\n\n%s\n\nSee gexplore-%s(1) for every option.\n",
	       e->usage, e->summary, e->name);
	return GX_EXIT_OK;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.usage = "help [COMMAND]",
	.summary = "list the commands, or show one command's usage",
	.exec = cmd_help_exec,
};
