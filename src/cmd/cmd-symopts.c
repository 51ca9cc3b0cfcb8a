/*
 * cmd-symopts.c: the options that say where a result's files and symbols
 * are (--symfs, --search-path, --kallsyms, --no-inline), how they are read
 * (--jobs) and whose result root reads (--any-owner), shared by every
 * command that reads a result: report, check, diff and tui.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd-int.h"
#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "util/util.h"

/* asked for by name: a file that cannot be read is an error, not a silent
 * `[kernel]` */
static int opt_kallsyms(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	struct cmd_symopts *so = base;

	(void)opt;
	if (access(arg, R_OK) != 0) {
		*cause = xasprintf("%s: %s", arg, strerror(errno));
		return -1;
	}
	so->kallsyms = arg;
	return 0;
}

const struct cmd_option cmd_symopts_options[] = {
	CMD_OPT_STRING(0, "symfs", struct cmd_symopts, symfs, "DIR",
		       "look for the recorded files under DIR (a copy of the recording machine's /)",
		       NULL),
	CMD_OPT_LIST(0, "search-path", struct cmd_symopts, search_paths, "DIR",
		     "also look for binaries and debug files in DIR (up to 32 times)"),
	CMD_OPT_CALLBACK(0, "kallsyms", "FILE", opt_kallsyms,
			 "kernel symbols from FILE (a copy of /proc/kallsyms)", NULL),
	CMD_OPT_BOOL(0, "no-inline", struct cmd_symopts, no_inline,
		     "do not expand inlined functions (faster)"),
	CMD_OPT_BOOL(0, "off-cpu-kernel", struct cmd_symopts, offcpu_kernel,
		     "an off-CPU wait's self time on its kernel frame (schedule), not on the "
		     "user function that waited"),
	CMD_OPT_UINT(0, "jobs", struct cmd_symopts, jobs, "N",
		     "unwind --call-graph dwarf stacks on N threads (the same numbers as 1)",
		     "the online CPUs, at most 16", 1, 256, "a number of threads"),
	CMD_OPT_BOOL(0, "any-owner", struct cmd_symopts, any_owner,
		     "as root, read a result another user owns (its links are still refused)"),
	CMD_OPT_END(),
};

void cmd_symopts__apply(const struct cmd_symopts *so, struct profile_opts *po)
{
	po->symfs = so->symfs;
	po->kallsyms = so->kallsyms;
	po->search_paths = so->search_paths.n ? so->search_paths.v : NULL;
	po->nr_search_paths = so->search_paths.n;
	po->no_inline = so->no_inline;
	po->offcpu_kernel = so->offcpu_kernel;
	po->jobs = so->jobs;
	if (!po->jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		po->jobs = n < 1 ? 1 : n > 16 ? 16 : (unsigned)n;
	}
	pd_result_dir__set_any_owner(so->any_owner);
}
