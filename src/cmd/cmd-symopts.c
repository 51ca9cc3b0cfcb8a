/*
 * cmd-symopts.c: the options that say where a result's files and symbols
 * are (--symfs, --search-path, --kallsyms, --no-inline), shared by every
 * command that reads a result: report, check, diff and tui.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd-int.h"
#include "profile/profile.h"

int cmd_symopts__parse(struct cmd_symopts *so, int c, const char *arg)
{
	switch (c) {
	case CMD_OPT_SYMFS:
		so->symfs = arg;
		return 1;
	case CMD_OPT_SEARCH:
		if (so->nr_search_paths == CMD_MAX_SEARCH_PATHS) {
			cmd_error("--search-path: at most %d directories", CMD_MAX_SEARCH_PATHS);
			return -GX_EXIT_USAGE;
		}
		so->search_paths[so->nr_search_paths++] = arg;
		return 1;
	case CMD_OPT_KALLSYMS:
		/* asked for by name: a file that cannot be read is an error,
		 * not a silent `[kernel]` */
		if (access(arg, R_OK) != 0) {
			cmd_error("--kallsyms %s: %s", arg, strerror(errno));
			return -GX_EXIT_USAGE;
		}
		so->kallsyms = arg;
		return 1;
	case CMD_OPT_NO_INLINE:
		so->no_inline = true;
		return 1;
	default:
		return 0;
	}
}

void cmd_symopts__apply(const struct cmd_symopts *so, struct profile_opts *po)
{
	po->symfs = so->symfs;
	po->kallsyms = so->kallsyms;
	po->search_paths = so->nr_search_paths ? so->search_paths : NULL;
	po->nr_search_paths = so->nr_search_paths;
	po->no_inline = so->no_inline;
}
