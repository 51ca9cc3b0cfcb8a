/*
 * regions.c: regions.bin, the workload's markers in a result directory
 * (format in perfdata.h and gexplore-result(5)).
 */
#include "config.h"

#include "perfdata-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#define HEADER_SIZE 64

_Static_assert(sizeof(struct pd_marker) == 128, "regions.bin records are 128 bytes");

struct regions_header {
	char magic[8];
	uint32_t version, record_size;
	uint64_t nr, lost;
	uint32_t clock;
	char zero[28];
};
_Static_assert(sizeof(struct regions_header) == HEADER_SIZE, "regions.bin header is 64 bytes");

struct pd_regions_writer {
	struct pd_side_writer s;
};

int pd_regions_writer__new(struct pd_regions_writer **out, int dirfd, const char *path,
			   char **cause)
{
	struct regions_header h = { .version = PD_REGIONS_VERSION,
				    .record_size = sizeof(struct pd_marker), .clock = 1 };
	struct pd_regions_writer *w = xzalloc(sizeof(*w));
	int err;

	*out = NULL;
	memcpy(h.magic, PD_REGIONS_MAGIC, 8);
	err = pd_side_writer__init(&w->s, dirfd, path, &h, sizeof(h), cause);
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int pd_regions_writer__add(struct pd_regions_writer *w, uint64_t time, uint32_t pid, uint32_t tid,
			   uint16_t kind, uint16_t depth, const char *name)
{
	struct pd_marker m = { .time = time, .pid = pid, .tid = tid, .kind = kind, .depth = depth };
	size_t n = name ? strnlen(name, PD_REGIONS_NAME - 1) : 0;

	memcpy(m.name, name, n);
	return pd_side_writer__add(&w->s, &m, sizeof(m), NULL, 0);
}

int pd_regions_writer__finish(struct pd_regions_writer *w, uint64_t lost, char **cause)
{
	struct { uint64_t nr, lost; } counts = { w->s.nr, lost };

	return pd_side_writer__finish(&w->s, &counts, sizeof(counts),
				      offsetof(struct regions_header, nr), cause);
}

void pd_regions_writer__delete(struct pd_regions_writer *w)
{
	if (!w)
		return;
	pd_side_writer__exit(&w->s);
	free(w);
}

int pd_regions__read(const char *path, struct pd_marker **out, size_t *nr, uint64_t *lost,
		     char **cause)
{
	struct regions_header h;
	struct pd_marker *v = NULL;
	struct stat st;
	uint64_t n;
	ssize_t got;
	int fd, err = 0;

	*out = NULL;
	*nr = 0;
	*lost = 0;
	/* a FIFO or a device in its place is refused, not waited on; a link
	 * is not followed */
	fd = gx_open_regular_nofollow(path, NULL, cause);
	if (fd == -ENOENT && cause) {	/* no file: no regions, no message */
		free(*cause);
		*cause = NULL;
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, PD_REGIONS_MAGIC, 8) != 0) {
		err = gx_fail(cause, GX_E_FORMAT, "%s is not a regions file", path);
		goto out;
	}
	if (h.version != PD_REGIONS_VERSION || h.record_size != sizeof(struct pd_marker)) {
		err = gx_fail(cause, GX_E_VERSION, "%s: version %u with %u-byte records; this "
				"gexplore reads version %d", path, h.version, h.record_size,
				PD_REGIONS_VERSION);
		goto out;
	}
	/* a recording that was killed never wrote the counts: trust the size */
	n = ((uint64_t)st.st_size - sizeof(h)) / sizeof(struct pd_marker);
	if (h.nr && h.nr < n)
		n = h.nr;
	v = xcalloc(n + 1, sizeof(*v));
	got = n ? pread(fd, v, n * sizeof(*v), sizeof(h)) : 0;
	if (got < 0) {
		err = gx_fail(cause, -errno, "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	n = (uint64_t)got / sizeof(*v);
	for (uint64_t i = 0; i < n; i++)
		v[i].name[PD_REGIONS_NAME - 1] = 0;
	*out = v;
	*nr = n;
	*lost = h.lost;
	v = NULL;
out:
	free(v);
	close(fd);
	return err;
}
