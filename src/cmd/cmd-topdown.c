#include "config.h"

#include "cmd.h"

static int cmd_topdown_exec(int argc, char **argv)
{
	cmd_error("topdown: not built yet");
	return GX_EXIT_FAIL;
}

const struct cmd_entry cmd_topdown_entry = {
	.name = "topdown",
	.usage = "topdown --cpu MODEL --counts FILE [--smt on|off] [--json]",
	.summary = "evaluate the top-down tree on event counts measured elsewhere",
	.exec = cmd_topdown_exec,
};
