/*
 * gexplore archive [options] FILE
 *
 * Copy the binaries and debug files a recording's samples hit into
 * DIR/.build-id (perf archive's build-id layout), so that the result
 * symbolizes elsewhere and after a rebuild. `record` does the same at the
 * end of every recording (src/record); this command is for a
 * perf.data from perf, or a result recorded with --no-archive.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-int.h"
#include "perfdata/perfdata.h"
#include "util/util.h"

int cmd_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;

	if (!*p)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > UINT64_MAX / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return -1;
	switch (*p | 0x20) {
	case 'k': mul = 1ULL << 10; p++; break;
	case 'm': mul = 1ULL << 20; p++; break;
	case 'g': mul = 1ULL << 30; p++; break;
	case 't': mul = 1ULL << 40; p++; break;
	default: break;
	}
	if (*p == 'i' || *p == 'I')
		p++;
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

int cmd_opt_archive_max(const struct cmd_option *opt, void *base, const char *arg, char **cause)
{
	uint64_t *max = (uint64_t *)((char *)base + opt->data);

	if (cmd_parse_size(arg, max)) {
		*cause = xasprintf("expected a size (bytes, or with K, M, G: 512M), 0 for no cap, "
				   "got '%s'", arg);
		return -1;
	}
	if (!*max)
		*max = UINT64_MAX;	/* 0: no cap; unset stays 0, the default */
	return 0;
}

struct archive_opts {
	const char *output;
	const char *symfs;
	uint64_t max;
	bool quiet;
	bool any_owner;
};

static const struct cmd_option archive_options[] = {
	CMD_OPT_STRING('o', "output", struct archive_opts, output, "DIR",
		       "put the archive in DIR/.build-id",
		       "the result directory, or the perf.data file's directory"),
	CMD_OPT_CALLBACK_DATA(0, "archive-max", "SIZE", cmd_opt_archive_max,
			      offsetof(struct archive_opts, max),
			      "archive at most SIZE bytes of files (K, M, G suffixes; 0: no cap)",
			      "512M"),
	CMD_OPT_STRING(0, "symfs", struct archive_opts, symfs, "DIR",
		       "read the recorded files under DIR (a copy of the recording machine's /)",
		       NULL),
	CMD_OPT_BOOL('q', "quiet", struct archive_opts, quiet, "no summary line"),
	CMD_OPT_BOOL(0, "any-owner", struct archive_opts, any_owner,
		     "as root, archive into a result another user owns (its links are still "
		     "refused; setuid files are copied without the bits)"),
	CMD_OPT_END(),
};

static void warn_cmd(void *ctx, const char *msg)
{
	bool *quiet = ctx;

	if (!*quiet)
		cmd_warn("%s", msg);
}

static int cmd_archive_exec(int argc, char **argv)
{
	struct archive_opts o = { 0 };
	struct pd_archive_opts po = { .warn = warn_cmd };
	struct pd_archive_stats st;
	char *dir = NULL, *data = NULL, *cause = NULL;
	const char *out;
	struct cmd_args a;
	int ret = GX_EXIT_FAIL;

	if (cmd_parse(&cmd_archive_entry, &o, argc, argv, &a))
		return a.exit;
	if (a.argc != 1) {
		cmd_error("archive: give one perf.data file or result directory");
		return cmd_usage(&cmd_archive_entry);
	}
	po.ctx = &o.quiet;
	po.symfs = o.symfs;
	po.max_bytes = !o.max ? PD_ARCHIVE_MAX_DEFAULT : o.max == UINT64_MAX ? 0 : o.max;
	pd_result_dir__set_any_owner(o.any_owner);
	if (pd_result_dir__resolve(a.argv[0], ".", &dir, &data, NULL, &cause) != 0) {
		cmd_error("%s", cause);
		ret = GX_EXIT_USAGE;
		goto out;
	}
	if (o.output) {
		out = o.output;
	} else if (dir) {
		out = dir;
	} else {
		char *slash = strrchr(data, '/');

		dir = slash ? xstrndup(data, (size_t)(slash - data + (slash == data))) : xstrdup(".");
		out = dir;
	}
	if (pd_archive_file(data, out, &po, &st, &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	if (!st.listed && !o.quiet)
		/* perf record --no-buildid: a copy could not be told from the
		 * rebuilt file, so none is made */
		cmd_warn("%s names no build-ids (perf record --no-buildid?): nothing to archive; "
			 "reports read the files at their recorded paths", data);
	if (!o.quiet)
		fprintf(stderr, "gexplore: archived %zu file%s (%.1f MiB, %zu hard link%s) in "
			"%s/.build-id; %zu already there, %zu not archived\n",
			st.files, st.files == 1 ? "" : "s", (double)st.bytes / (1 << 20), st.linked,
			st.linked == 1 ? "" : "s", gx_esc(out), st.present, st.skipped);
	ret = GX_EXIT_OK;
out:
	free(dir);
	free(data);
	free(cause);
	return ret;
}

GX_COMMAND(archive, "FILE", 1,
	   "copy a recording's binaries and debug files into it, by build-id");
