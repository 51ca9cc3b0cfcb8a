/*
 * log-writer.c: writing the slice log (DIR/slices.bin) while collect
 * rotates the groups. The layout is mux-int.h's, the one log.c reads.
 *
 * collect calls __slice and __totals from its drain loop, so they never
 * allocate: records are packed into a buffer allocated by __new and
 * written when it fills, by __totals (the last record) and by __flush.
 * Needs nothing but util: collect links it without the rest of mux.
 */
#include "config.h"

#include "mux/mux-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"

/* Records are written in chunks of about this many bytes. */
#define LOG_WRITER_CHUNK 65536

struct mux_log_writer {
	int fd;
	size_t nr_events;
	size_t rec_len;		/* one slice: struct log_slice + nr_events deltas */
	char *buf;
	size_t len, cap;
};


static void writer__put(struct mux_log_writer *w, const void *p, size_t n)
{
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

int mux_log_writer__new(struct mux_log_writer **out, int dirfd, const char *name,
			size_t nr_events, int reference, uint64_t slice_ns, char **cause)
{
	struct mux_log_writer *w;
	struct log_header h;
	int fd;

	*out = NULL;
	if (nr_events == 0 || nr_events > 4096 || reference >= (int)nr_events)
		return gx_fail(cause, -EINVAL, "%s: cannot log %zu events (reference %d)", name,
			       nr_events, reference);
	fd = gx_create_at(dirfd, name);	/* new, 0600, no symlink (util.h) */
	if (fd < 0)
		return gx_fail(cause, fd, "%s: %s", name, strerror(-fd));
	w = xzalloc(sizeof(*w));
	w->fd = fd;
	w->nr_events = nr_events;
	w->rec_len = sizeof(struct log_slice) + nr_events * sizeof(uint64_t);
	w->cap = LOG_WRITER_CHUNK + w->rec_len;
	w->buf = xmalloc(w->cap);

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, MUX_LOG_MAGIC, sizeof(h.magic));
	h.nr_events = (uint32_t)nr_events;
	h.reference = reference < 0 ? UINT32_MAX : (uint32_t)reference;
	h.slice_ns = slice_ns;
	writer__put(w, &h, sizeof(h));
	*out = w;
	return 0;
}

int mux_log_writer__flush(struct mux_log_writer *w)
{
	int err = gx_write_all(w->fd, w->buf, w->len);

	w->len = 0;
	return err;
}

/* One record: a slice, or the totals (flags MUX_SLICE_TOTALS). */
static int writer__record(struct mux_log_writer *w, uint32_t group, uint32_t flags,
			  uint64_t start_ns, uint64_t end_ns, uint64_t task_ns,
			  const uint64_t *delta)
{
	struct log_slice r;
	int err = 0;

	if (w->len + w->rec_len > w->cap)
		err = mux_log_writer__flush(w);
	memset(&r, 0, sizeof(r));
	r.group = group;
	r.flags = flags;
	r.start_ns = start_ns;
	r.end_ns = end_ns;
	r.task_ns = task_ns;
	writer__put(w, &r, sizeof(r));
	writer__put(w, delta, w->nr_events * sizeof(*delta));
	return err;
}

int mux_log_writer__slice(struct mux_log_writer *w, const struct mux_slice *s)
{
	int err, err2;

	if (!s->running)
		return writer__record(w, s->group, 0, s->start_ns, s->end_ns, s->task_ns, s->delta);
	/* a kernel period: its counts, then its running times */
	err = writer__record(w, MUX_KERNEL_GROUP, MUX_SLICE_KERNEL, s->start_ns, s->end_ns,
			     s->task_ns, s->delta);
	err2 = writer__record(w, MUX_KERNEL_GROUP, MUX_SLICE_KERNEL | MUX_SLICE_RUNNING,
			      s->start_ns, s->end_ns, 0, s->running);
	if (!err)
		err = err2;
	if (s->enabled) {
		err2 = writer__record(w, MUX_KERNEL_GROUP, MUX_SLICE_KERNEL | MUX_SLICE_ENABLED,
				      s->start_ns, s->end_ns, 0, s->enabled);
		if (!err)
			err = err2;
	}
	return err;
}

int mux_log_writer__totals(struct mux_log_writer *w, const uint64_t *count)
{
	int err = writer__record(w, 0, MUX_SLICE_TOTALS, 0, 0, 0, count);
	int ferr = mux_log_writer__flush(w);

	return err ? err : ferr;
}

void mux_log_writer__delete(struct mux_log_writer *w)
{
	if (!w)
		return;
	mux_log_writer__flush(w);
	close(w->fd);
	free(w->buf);
	free(w);
}

/* ---- the writer as collect's slice sink ---------------------------------- */

struct log_sink {
	struct collect_slice_sink sink;	/* first: collect passes &sink */
	int dirfd;
	char *name;
	struct mux_log_writer *w;
};

static int sink_begin(struct collect_slice_sink *k, size_t nr_events, int reference,
		      uint64_t slice_ns, char **cause)
{
	struct log_sink *ls = (struct log_sink *)k;

	mux_log_writer__delete(ls->w);
	ls->w = NULL;
	return mux_log_writer__new(&ls->w, ls->dirfd, ls->name, nr_events, reference, slice_ns,
				   cause);
}

static int sink_slice(struct collect_slice_sink *k, const struct collect_slice *s)
{
	struct log_sink *ls = (struct log_sink *)k;
	struct mux_slice m = { .group = s->group, .start_ns = s->start_ns, .end_ns = s->end_ns,
			       .task_ns = s->task_ns, .delta = s->delta,
			       .running = s->running, .enabled = s->enabled };

	return mux_log_writer__slice(ls->w, &m);
}

static int sink_totals(struct collect_slice_sink *k, const uint64_t *count)
{
	return mux_log_writer__totals(((struct log_sink *)k)->w, count);
}

static int sink_flush(struct collect_slice_sink *k)
{
	struct log_sink *ls = (struct log_sink *)k;

	return ls->w ? mux_log_writer__flush(ls->w) : 0;
}

struct collect_slice_sink *mux_log_sink__new(int dirfd, const char *name)
{
	struct log_sink *ls = xzalloc(sizeof(*ls));

	ls->sink = (struct collect_slice_sink){ sink_begin, sink_slice, sink_totals, sink_flush };
	ls->dirfd = dirfd;
	ls->name = xstrdup(name);
	return &ls->sink;
}

void mux_log_sink__delete(struct collect_slice_sink *k)
{
	struct log_sink *ls = (struct log_sink *)k;

	if (!ls)
		return;
	mux_log_writer__delete(ls->w);
	GX_FREE(ls->name, ls);
}
