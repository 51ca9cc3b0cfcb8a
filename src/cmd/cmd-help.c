#include "config.h"

#include "cmd.h"

#include <stdio.h>
#include <string.h>

#include "cmd-int.h"

static const struct cmd_option help_options[] = {
	CMD_OPT_END(),
};

static int cmd_help_exec(int argc, char **argv)
{
	const struct cmd_entry *e;
	struct cmd_args a;
	bool ambiguous;

	if (cmd_parse(&cmd_help_entry, NULL, argc, argv, &a))
		return a.exit;
	if (a.argc < 1) {
		printf("usage: gexplore [record options] -- CMD [ARGS]\n"
		       "       gexplore COMMAND [options]\n\n"
		       "Record CMD under the CPU's performance counters and explain where and why it\n"
		       "is slow. Commands (any unique prefix works):\n\n");
		for (const struct cmd_entry *const *c = cmd_table; *c; c++)
			printf("  %-10s %s\n", (*c)->name, (*c)->summary);
		printf("\nRecord options (gexplore [record options] -- CMD records, then shows the "
		       "result;\n'gexplore record' takes the same):\n\n");
		cmd_help_print_options(&cmd_record_entry);
		printf("\n'gexplore help COMMAND' shows a command's options; the manual is gexplore(1)\n"
		       "(before installing: man ./man/gexplore.1).\n");
		return GX_EXIT_OK;
	}
	e = cmd_find(a.argv[0], &ambiguous);
	if (!e) {
		cmd_error("%s command '%s'", ambiguous ? "ambiguous" : "unknown", a.argv[0]);
		return GX_EXIT_USAGE;
	}
	/* the same text as `gexplore COMMAND --help`, from its option table */
	cmd_help_print(e);
	return GX_EXIT_OK;
}

GX_COMMAND(help, "[COMMAND]", 1,
	   "list the commands, or show one command's options");
