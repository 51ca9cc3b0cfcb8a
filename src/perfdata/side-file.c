/*
 * side-file.c: the one writer of a result's side files (regions.bin,
 * offcpu.bin): a new file (0600, no symlink followed) that starts with its
 * header, records appended through a buffer, and at the end the counts
 * written over the header's. The formats are the callers'.
 */
#include "config.h"

#include "perfdata-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

int pd_side_writer__init(struct pd_side_writer *w, int dirfd, const char *path,
			 const void *hdr, size_t len, char **cause)
{
	int fd = gx_create_at(dirfd, path);	/* new, 0600, no symlink (util.h) */

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (fd < 0)
		return gx_fail(cause, fd, "cannot create %s: %s", path, strerror(-fd));
	if (gx_write_all(fd, hdr, len) < 0) {
		int err = gx_fail(cause, -errno, "cannot write %s: %s", path, strerror(errno));

		close(fd);
		return err;
	}
	w->fd = fd;
	w->path = xstrdup(path);
	w->buf = xmalloc(PD_SIDE_BUF);
	return 0;
}

static int flush_buf(struct pd_side_writer *w)
{
	if (w->used && !w->err && gx_write_all(w->fd, w->buf, w->used) < 0)
		w->err = -errno;
	w->used = 0;
	return w->err;
}

int pd_side_writer__add(struct pd_side_writer *w, const void *a, size_t alen, const void *b,
			size_t blen)
{
	if (w->err)
		return w->err;
	if (alen + blen > PD_SIDE_BUF)
		return w->err = -EINVAL;
	if (w->used + alen + blen > PD_SIDE_BUF && flush_buf(w))
		return w->err;
	memcpy(w->buf + w->used, a, alen);
	if (blen)
		memcpy(w->buf + w->used + alen, b, blen);
	w->used += alen + blen;
	w->nr++;
	return 0;
}

int pd_side_writer__finish(struct pd_side_writer *w, const void *counts, size_t len, off_t off,
			   char **cause)
{
	int err = flush_buf(w);

	if (!err && gx_pwrite_all(w->fd, counts, len, off) < 0)
		err = -errno;
	if (err)
		return gx_fail(cause, err, "cannot write %s: %s", w->path, strerror(-err));
	return 0;
}

void pd_side_writer__exit(struct pd_side_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->path);
	free(w->buf);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}
