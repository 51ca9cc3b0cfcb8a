/*
 * fuzz-perfdata: libFuzzer target for the perf.data reader. Each input is
 * read as a file (through a memfd, so the reader mmaps it as it would a
 * real file), in both delivery orders, and once more streamed from a pipe
 * on stdin (pipe mode). The callbacks touch every byte a sample points at
 * so AddressSanitizer sees any pointer that escapes the record.
 *
 * Build and run: make fuzz [FUZZ_SECONDS=60]
 */
#include "config.h"

#include "perfdata/perfdata.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile uint64_t sink;

static int touch_sample(struct pd_tool *t, const struct pd_sample *s)
{
	uint64_t x = s->ip ^ s->time;

	for (uint64_t i = 0; i < s->nr_callchain; i++)
		x += s->callchain[i];
	for (uint32_t i = 0; i < s->raw_size; i++)
		x += ((const uint8_t *)s->raw)[i];
	for (uint64_t i = 0; i < s->nr_branches; i++)
		x += s->branches[i].from + s->branches[i].to;
	for (int i = 0; s->user_regs && i < __builtin_popcountll(s->user_regs_mask); i++)
		x += s->user_regs[i];
	for (uint64_t i = 0; i < s->stack_size; i++)
		x += ((const uint8_t *)s->stack)[i];
	if (s->read)
		for (uint32_t i = 0; i < s->read->nr; i++)
			x += s->read->values[i].value;
	sink += x;
	return 0;
}

static int touch_mmap(struct pd_tool *t, const struct pd_mmap *m)
{
	sink += strlen(m->filename) + m->start;
	return 0;
}

static int touch_comm(struct pd_tool *t, const struct pd_comm *c)
{
	sink += strlen(c->comm);
	return 0;
}

static int touch_other(struct pd_tool *t, const struct perf_event_header *h, uint64_t off)
{
	sink += ((const uint8_t *)h)[h->size - 1];
	return 0;
}

static void read_one(const char *path, unsigned flags)
{
	struct pd_tool tool = {
		.sample = touch_sample, .mmap = touch_mmap, .comm = touch_comm,
		.other = touch_other,
	};
	struct perf_reader *r;
	char *cause = NULL;

	if (perf_reader__open(&r, path, flags, &cause) == 0) {
		const struct pd_env *env = perf_reader__env(r);

		for (size_t i = 0; i < perf_reader__nr_evsels(r); i++)
			sink += strlen(perf_reader__evsel(r, i)->name);
		for (size_t i = 0; i < env->nr_build_ids; i++)
			sink += strlen(env->build_ids[i].filename);
		perf_reader__process(r, &tool, &cause);
		if (!perf_reader__is_pipe(r))
			perf_reader__process(r, &tool, &cause);	/* a second walk */
		for (size_t i = 0; i < perf_reader__nr_warnings(r); i++)
			sink += strlen(perf_reader__warning(r, i));
		perf_reader__delete(r);
	}
	free(cause);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-perfdata", MFD_CLOEXEC);
	char path[64];
	int fds[2];

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	read_one(path, 0);
	read_one(path, PD_ORDERED);
	close(fd);

	/* pipe mode: the whole input fits in the pipe (max_len 65536) */
	if (size <= 65536 && pipe(fds) == 0) {
		int saved = dup(STDIN_FILENO);

		fcntl(fds[1], F_SETPIPE_SZ, 1 << 17);
		if (size && write(fds[1], data, size) != (ssize_t)size)
			size = 0;
		close(fds[1]);
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		read_one("-", PD_ORDERED);
		dup2(saved, STDIN_FILENO);
		close(saved);
	}
	return 0;
}
