#include "config.h"

#include "cmd.h"

#include <getopt.h>
#include <stdio.h>

static int cmd_version_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "build-options", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	bool build = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (c == 'b')
			build = true;
		else
			return cmd_usage(&cmd_version_entry);
	}
	if (optind != argc)
		return cmd_usage(&cmd_version_entry);
	printf("gexplore %s\n", PACKAGE_VERSION);
	if (build) {
		printf("host: %s\n", GX_HOST);
		printf("options: %s\n", GX_BUILD_OPTIONS);
	}
	return GX_EXIT_OK;
}

const struct cmd_entry cmd_version_entry = {
	.name = "version",
	.usage = "version [--build-options]",
	.summary = "print the version (and the features this build has)",
	.exec = cmd_version_exec,
};
