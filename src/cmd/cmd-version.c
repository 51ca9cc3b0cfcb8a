#include "config.h"

#include "cmd.h"

#include <stddef.h>
#include <stdio.h>

#include "cmd-int.h"

struct version_opts {
	bool build;
};

static const struct cmd_option version_options[] = {
	CMD_OPT_BOOL(0, "build-options", struct version_opts, build,
		     "also the host and the optional features this build has"),
	CMD_OPT_END(),
};

static int cmd_version_exec(int argc, char **argv)
{
	struct version_opts o = { 0 };
	struct cmd_args a;

	if (cmd_parse(&cmd_version_entry, &o, argc, argv, &a))
		return a.exit;
	printf("gexplore %s\n", PACKAGE_VERSION);
	if (o.build) {
		printf("host: %s\n", GX_HOST);
		printf("options: %s\n", GX_BUILD_OPTIONS);
	}
	return GX_EXIT_OK;
}

GX_COMMAND(version, "", 0,
	   "print the version (and the features this build has)");
