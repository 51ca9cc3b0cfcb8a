#include "config.h"

#include "cmd.h"

static int cmd_record_exec(int argc, char **argv)
{
	cmd_error("record: not built yet");
	return GX_EXIT_FAIL;
}

const struct cmd_entry cmd_record_entry = {
	.name = "record",
	.usage = "record [options] -- CMD [ARGS]",
	.summary = "run a command under the performance counters and write a result",
	.exec = cmd_record_exec,
};
