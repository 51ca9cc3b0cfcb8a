/*
 * fuzz-result: libFuzzer target for the whole result open
 * (gx_result__open: meta.json, the slice log, perf.data, symbolization,
 * the model and the event table), then the accessors a view reads.
 *
 * An input is "META_LEN SLICES_LEN\n", then META_LEN bytes of meta.json,
 * SLICES_LEN bytes of slices.bin, and the rest is perf.data (lengths past
 * the end are cut). tests/fuzz/seed-result.sh packs a result this way.
 * Symbols resolve under an empty --symfs, so no file of this machine is
 * read for a mapped name; debuginfod is off.
 *
 * Build and run: make fuzz-smoke (every target, a few seconds each).
 */
#include "config.h"

#include "result/result.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "util/util.h"

static char dir[256], symfs[272];

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[320];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	if (!p)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	if (gx_write_all(fd, p, n) != 0)
		abort();
	close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	unsetenv("DEBUGINFOD_URLS");
	/* TMPDIR=/dev/shm keeps the three files of an input off the disk */
	snprintf(dir, sizeof(dir), "%s/gx-fuzz-result.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(symfs, sizeof(symfs), "%s.symfs", dir);
	mkdir(symfs, 0700);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size < 64 ? size : 64);
	struct profile_opts po = { .symfs = symfs, .no_inline = true };
	struct gx_result_opts o = { .sym = &po };
	unsigned long lm = 0, ls = 0;
	struct gx_result *r = NULL;
	char head[65] = "", *cause = NULL;
	size_t off;

	if (!nl)
		return 0;
	memcpy(head, data, (size_t)(nl - data));
	if (sscanf(head, "%lu %lu", &lm, &ls) != 2)
		return 0;
	off = (size_t)(nl - data) + 1;
	lm = lm < size - off ? lm : size - off;
	put("meta.json", lm ? data + off : NULL, lm);
	off += lm;
	ls = ls < size - off ? ls : size - off;
	put("slices.bin", ls ? data + off : NULL, ls);
	off += ls;
	put("perf.data", data + off, size - off);
	if (gx_result__open(&r, dir, &o, &cause) == 0) {
		volatile size_t sink = 0;

		for (size_t i = 0; i < gx_result__nr_events(r); i++)
			sink += strlen(gx_result__event(r, i)->name);
		for (size_t i = 0; i < gx_result__nr_notes(r); i++)
			sink += strlen(gx_result__note(r, i));
		if (gx_result__incomplete(r))
			sink += strlen(gx_result__incomplete(r));
		(void)sink;
		gx_result__delete(r);
	}
	free(cause);
	return 0;
}
