/*
 * markers.c: the shared-memory ring a workload's markers come through
 * (gexplore-regions(3); the layout is lib/regions/regions-shm.h) and the
 * FIFOs of its in-process control.
 *
 * One directory, made 0700 under /dev/shm (else $TMPDIR or /tmp) before
 * the workload is forked, named to it by GEXPLORE_REGIONS, removed when
 * the session ends: ring, ctl, ack. The drain loop takes every published
 * slot (never allocating) and hands it to the marker sink.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "regions/regions-shm.h"

static char *path_in(const struct marker_ring *m, const char *name)
{
	return xasprintf("%s/%s", m->dir, name);
}

static int make_dir(struct marker_ring *m)
{
	const char *tmp = getenv("TMPDIR");
	const char *bases[] = { "/dev/shm", tmp && *tmp ? tmp : "/tmp", "/tmp" };

	for (size_t i = 0; i < ARRAY_SIZE(bases); i++) {
		char *d = xasprintf("%s/gexplore-regions-XXXXXX", bases[i]);

		if (mkdtemp(d)) {
			m->dir = d;
			return 0;
		}
		free(d);
	}
	return -errno;
}

static int open_fifo(const struct marker_ring *m, const char *name)
{
	char *p = path_in(m, name);
	int fd = -1;

	if (mkfifo(p, 0600) == 0)
		fd = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	free(p);
	return fd < 0 ? -errno : fd;
}

int marker_ring__create(struct marker_ring *m, char **cause)
{
	size_t len = GX_RING_HEADER + (size_t)GX_RING_SLOTS * sizeof(struct gx_ring_slot);
	struct gx_ring_slot *slots;
	char *p;
	void *map;
	int fd, err;

	memset(m, 0, sizeof(*m));
	m->ctl_fd = m->ack_fd = -1;
	err = make_dir(m);
	if (err)
		return gx_fail(cause, err, "regions: cannot make a directory for the marker ring: %s",
			       strerror(-err));
	p = path_in(m, "ring");
	fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	free(p);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		err = gx_fail(cause, -errno, "regions: cannot create the marker ring in %s: %s",
			      m->dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		err = gx_fail(cause, -errno, "regions: cannot map the marker ring: %s",
			      strerror(errno));
		goto fail;
	}
	m->hdr = map;
	m->len = len;
	slots = (struct gx_ring_slot *)((char *)map + GX_RING_HEADER);
	for (uint64_t i = 0; i < GX_RING_SLOTS; i++)
		slots[i].seq = i;
	m->hdr->version = GX_RING_VERSION;
	m->hdr->slot_size = sizeof(struct gx_ring_slot);
	m->hdr->nr_slots = GX_RING_SLOTS;
	/* the magic last: a library never maps a half-made ring (it is not
	 * started before this returns anyway) */
	memcpy(m->hdr->magic, GX_RING_MAGIC, 8);
	m->ctl_fd = open_fifo(m, "ctl");
	m->ack_fd = open_fifo(m, "ack");
	if (m->ctl_fd < 0 || m->ack_fd < 0) {
		err = gx_fail(cause, m->ctl_fd < 0 ? m->ctl_fd : m->ack_fd,
			      "regions: cannot make the control FIFOs in %s", m->dir);
		goto fail;
	}
	m->env = xasprintf("%s=%s", GX_REGIONS_ENV, m->dir);
	return 0;
fail:
	marker_ring__destroy(m);
	return err;
}

int marker_ring__drain(struct marker_ring *m, struct collect_marker_sink *k,
		       struct collect_stats *st)
{
	struct gx_ring_slot *slots;
	int err = 0;

	if (!m->hdr)
		return 0;
	slots = (struct gx_ring_slot *)((char *)m->hdr + GX_RING_HEADER);
	for (;;) {
		struct gx_ring_slot *sl = &slots[m->tail & (GX_RING_SLOTS - 1)];
		struct collect_marker mk;
		char name[GX_RING_NAME];

		if (__atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE) != m->tail + 1)
			break;
		memcpy(name, sl->name, sizeof(name));
		name[sizeof(name) - 1] = 0;	/* the workload may have written anything */
		mk = (struct collect_marker){ .time = sl->time, .pid = sl->pid, .tid = sl->tid,
					      .kind = sl->kind, .depth = sl->depth, .name = name };
		__atomic_store_n(&sl->seq, m->tail + GX_RING_SLOTS, __ATOMIC_RELEASE);
		m->tail++;
		if (k && !m->sink_failed && !err) {
			err = k->marker(k, &mk);
			if (err)
				m->sink_failed = true;
		}
		if (m->sink_failed)
			st->markers_lost++;
		else
			st->markers++;
	}
	return err;
}

uint64_t marker_ring__lost(const struct marker_ring *m)
{
	return m->hdr ? __atomic_load_n(&m->hdr->lost, __ATOMIC_RELAXED) : 0;
}

void marker_ring__destroy(struct marker_ring *m)
{
	static const char *const files[] = { "ring", "ctl", "ack" };

	if (m->hdr)
		munmap(m->hdr, m->len);
	if (m->ctl_fd >= 0)
		close(m->ctl_fd);
	if (m->ack_fd >= 0)
		close(m->ack_fd);
	if (m->dir) {
		for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
			char *p = path_in(m, files[i]);

			unlink(p);
			free(p);
		}
		rmdir(m->dir);
	}
	free(m->dir);
	free(m->env);
	memset(m, 0, sizeof(*m));
	m->ctl_fd = m->ack_fd = -1;
}
