#include "config.h"

#include "cmd.h"

static int cmd_list_exec(int argc, char **argv)
{
	cmd_error("list: not built yet");
	return GX_EXIT_FAIL;
}

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.usage = "list [--cpu MODEL] [--perf]",
	.summary = "show the metric tree and the events for this (or another) CPU",
	.exec = cmd_list_exec,
};
