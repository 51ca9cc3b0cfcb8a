/*
 * markers.c: the shared-memory ring a workload's markers come through
 * (gexplore-regions(3); the layout is lib/regions/regions-shm.h) and the
 * pipes of its in-process control.
 *
 * The ring is a memfd and ctl/ack two pipes, made before the workload is
 * forked and inherited by it (GEXPLORE_REGIONS=fd:RING,CTL,ACK names the
 * descriptors): nothing is named in /dev/shm or /tmp, so a gexplore
 * killed by SIGKILL leaves nothing behind. The drain loop takes every
 * published slot (never allocating) and hands it to the marker sink.
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
#include <sys/syscall.h>
#include <unistd.h>

#include "regions/regions-shm.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

static int ring_fd_new(void)
{
#ifdef SYS_memfd_create
	int fd = (int)syscall(SYS_memfd_create, "gexplore-regions", MFD_CLOEXEC);

	if (fd >= 0 || errno != ENOSYS)
		return fd < 0 ? -errno : fd;
#endif
	{
		/* no memfd (Linux < 3.17): a file unlinked at once */
		char path[] = "/dev/shm/gexplore-regions-XXXXXX";
		int tmp = mkostemp(path, O_CLOEXEC);

		if (tmp < 0)
			return -errno;
		unlink(path);
		return tmp;
	}
}

int marker_ring__create(struct marker_ring *m, char **cause)
{
	size_t len = GX_RING_HEADER + (size_t)GX_RING_SLOTS * sizeof(struct gx_ring_slot);
	int ctl[2] = { -1, -1 }, ack[2] = { -1, -1 };
	void *map;
	int fd, err;

	memset(m, 0, sizeof(*m));
	m->ctl_fd = m->ack_fd = -1;
	m->child_fds[0] = m->child_fds[1] = m->child_fds[2] = -1;
	fd = ring_fd_new();
	if (fd < 0)
		return gx_fail(cause, fd, "regions: cannot make the marker ring: %s", strerror(-fd));
	m->child_fds[0] = fd;
	if (ftruncate(fd, (off_t)len) < 0) {
		err = gx_fail(cause, -errno, "regions: cannot size the marker ring: %s",
			      strerror(errno));
		goto fail;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		err = gx_fail(cause, -errno, "regions: cannot map the marker ring: %s",
			      strerror(errno));
		goto fail;
	}
	m->hdr = map;
	m->len = len;
	/* every slot i holds seq i as it is, all zeros (regions-shm.h):
	 * nothing to write into them, no page faulted in */
	m->hdr->version = GX_RING_VERSION;
	m->hdr->slot_size = sizeof(struct gx_ring_slot);
	m->hdr->nr_slots = GX_RING_SLOTS;
	/* the magic last: a library never maps a half-made ring (it is not
	 * started before this returns anyway) */
	memcpy(m->hdr->magic, GX_RING_MAGIC, 8);
	if (pipe2(ctl, O_CLOEXEC) < 0 || pipe2(ack, O_CLOEXEC) < 0) {
		err = gx_fail(cause, -errno, "regions: cannot make the control pipes: %s",
			      strerror(errno));
		goto fail_pipes;
	}
	fcntl(ctl[0], F_SETFL, O_NONBLOCK);
	fcntl(ack[1], F_SETFL, O_NONBLOCK);
	m->ctl_fd = ctl[0];
	m->ack_fd = ack[1];
	m->child_fds[1] = ctl[1];
	m->child_fds[2] = ack[0];
	m->env = xasprintf("%s=fd:%d,%d,%d", GX_REGIONS_ENV, m->child_fds[0], m->child_fds[1],
			   m->child_fds[2]);
	return 0;
fail_pipes:
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (ack[i] >= 0)
			close(ack[i]);
	}
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
		uint64_t i = m->tail & (GX_RING_SLOTS - 1), bias = gx_ring_bias(GX_RING_VERSION, i);
		struct gx_ring_slot *sl = &slots[i];
		struct collect_marker mk;
		char name[GX_RING_NAME];

		if (__atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE) != m->tail + 1 + bias)
			break;
		memcpy(name, sl->name, sizeof(name));
		name[sizeof(name) - 1] = 0;	/* the workload may have written anything */
		mk = (struct collect_marker){ .time = sl->time, .pid = sl->pid, .tid = sl->tid,
					      .kind = sl->kind, .depth = sl->depth, .name = name };
		__atomic_store_n(&sl->seq, m->tail + GX_RING_SLOTS + bias, __ATOMIC_RELEASE);
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
	if (m->hdr)
		munmap(m->hdr, m->len);
	if (m->ctl_fd >= 0)
		close(m->ctl_fd);
	if (m->ack_fd >= 0)
		close(m->ack_fd);
	for (size_t i = 0; i < ARRAY_SIZE(m->child_fds); i++)
		if (m->child_fds[i] > 0)
			close(m->child_fds[i]);
	free(m->env);
	memset(m, 0, sizeof(*m));
	m->ctl_fd = m->ack_fd = -1;
	m->child_fds[0] = m->child_fds[1] = m->child_fds[2] = -1;
}
