#include "config.h"

#include "cmd.h"

static int cmd_report_exec(int argc, char **argv)
{
	cmd_error("report: not built yet");
	return GX_EXIT_FAIL;
}

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "report [options] [RESULT]",
	.summary = "print a result: events, processes, threads, modules",
	.exec = cmd_report_exec,
};
