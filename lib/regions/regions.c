/*
 * libgexplore-regions: markers from a program to gexplore record
 * (<gexplore/regions.h>). Depends on libc only.
 *
 * The first call looks for GEXPLORE_REGIONS; without it (the program runs
 * outside gexplore) the library stays off and every call is one load and
 * one branch. With it ("fd:R,C,A", descriptors gexplore record left open
 * across exec), the ring (regions-shm.h) is mapped once; a marker
 * is then a clock read and a slot claimed by compare-and-swap. The
 * thread's id is cached per thread (reset in a forked child, by
 * pthread_atfork), and so is the stack of open region names, so an end
 * carries its region's name.
 */
#define _GNU_SOURCE
#include "gexplore/regions.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "regions-shm.h"

#define GX_API __attribute__((visibility("default")))
#define MAX_DEPTH 64

enum { ST_UNINIT, ST_OFF, ST_ON };

static int state;			/* atomic */
static struct gx_ring_header *ring;
static struct gx_ring_slot *slots;
static uint64_t mask;
static uint32_t version;		/* the ring's (regions-shm.h) */
static pid_t pid;			/* this process (reset after fork) */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static int ctl_fd = -1, ack_fd = -1;

struct thread_state {
	pid_t tid;			/* 0: not known yet */
	unsigned depth;
	const char *names[MAX_DEPTH];
};
static __thread struct thread_state ts;

static void after_fork_child(void)
{
	pid = (pid_t)syscall(SYS_getpid);
	ts.tid = 0;
}

static int open_fifo(const char *dir, const char *name)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -1;
	/* O_RDWR: never blocks on a FIFO (there is always a reader and a writer) */
	return open(path, O_RDWR | O_CLOEXEC);
}

/* "fd:R,C,A": descriptors inherited from gexplore record (the ring, the
 * write end of ctl, the read end of ack). 0 with them set, -1 when the
 * value is not of that form. */
static int parse_fds(const char *v, int *ring_fd, int *c, int *a)
{
	char end;

	if (strncmp(v, "fd:", 3) || sscanf(v + 3, "%d,%d,%d%c", ring_fd, c, a, &end) != 3 ||
	    *ring_fd < 0 || *c < 0 || *a < 0)
		return -1;
	return 0;
}

static int is_fifo(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

static void init(void)
{
	const char *v = getenv(GX_REGIONS_ENV);
	char path[4096];
	struct stat st;
	bool inherited;
	int fd, c = -1, a = -1;
	void *p;

	if (!v || !*v)
		goto off;
	inherited = parse_fds(v, &fd, &c, &a) == 0;
	if (!inherited) {
		/* a directory holding ring, ctl and ack (gexplore 0.x before
		 * the inherited descriptors) */
		if ((size_t)snprintf(path, sizeof(path), "%s/ring", v) >= sizeof(path))
			goto off;
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			goto off;
	}
	/* an inherited descriptor may have been closed and reused by the
	 * program: the size, the magic and the layout must be the ring's */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < GX_RING_HEADER) {
		if (!inherited)
			close(fd);
		goto off;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* an inherited ring stays open: programs it execs mark into it too */
	if (!inherited)
		close(fd);
	if (p == MAP_FAILED)
		goto off;
	ring = p;
	if (memcmp(ring->magic, GX_RING_MAGIC, 8) || ring->version < 1 ||
	    ring->version > GX_RING_VERSION ||
	    ring->slot_size != sizeof(struct gx_ring_slot) || !ring->nr_slots ||
	    (ring->nr_slots & (ring->nr_slots - 1)) ||
	    GX_RING_HEADER + ring->nr_slots * sizeof(struct gx_ring_slot) > (uint64_t)st.st_size) {
		munmap(p, (size_t)st.st_size);
		ring = NULL;
		goto off;
	}
	slots = (struct gx_ring_slot *)((char *)p + GX_RING_HEADER);
	mask = ring->nr_slots - 1;
	version = ring->version;
	if (inherited) {
		ctl_fd = is_fifo(c) ? c : -1;
		ack_fd = is_fifo(a) ? a : -1;
	} else {
		ctl_fd = open_fifo(v, "ctl");
		ack_fd = open_fifo(v, "ack");
	}
	pid = (pid_t)syscall(SYS_getpid);
	pthread_atfork(NULL, NULL, after_fork_child);
	__atomic_store_n(&state, ST_ON, __ATOMIC_RELEASE);
	return;
off:
	__atomic_store_n(&state, ST_OFF, __ATOMIC_RELEASE);
}

static inline int on(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	if (__builtin_expect(s == ST_UNINIT, 0)) {
		pthread_once(&once, init);
		s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	}
	return s == ST_ON;
}

static void put(enum gx_marker_kind kind, unsigned depth, const char *name)
{
	uint64_t pos = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
	struct gx_ring_slot *sl;
	struct timespec now;
	size_t n;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!ts.tid)
		ts.tid = (pid_t)syscall(SYS_gettid);
	for (;;) {
		int64_t diff;

		sl = &slots[pos & mask];
		diff = (int64_t)(__atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE) -
				 gx_ring_bias(version, pos & mask) - pos);
		if (diff == 0) {
			if (__atomic_compare_exchange_n(&ring->head, &pos, pos + 1, 1,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				break;
		} else if (diff < 0) {
			__atomic_fetch_add(&ring->lost, 1, __ATOMIC_RELAXED);
			return;
		} else {
			pos = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
		}
	}
	sl->time = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	sl->pid = (uint32_t)pid;
	sl->tid = (uint32_t)ts.tid;
	sl->kind = (uint16_t)kind;
	sl->depth = (uint16_t)depth;
	sl->reserved = 0;
	n = name ? strnlen(name, GX_RING_NAME - 1) : 0;
	memcpy(sl->name, name ? name : "", n);
	sl->name[n] = 0;
	__atomic_store_n(&sl->seq, pos + 1 + gx_ring_bias(version, pos & mask), __ATOMIC_RELEASE);
}

GX_API void gx_region_begin(const char *name)
{
	if (!on())
		return;
	if (ts.depth >= MAX_DEPTH) {
		ts.depth++;		/* still matched by its end */
		__atomic_fetch_add(&ring->lost, 1, __ATOMIC_RELAXED);
		return;
	}
	ts.names[ts.depth++] = name;
	put(GX_MARK_BEGIN, ts.depth, name);
}

GX_API void gx_region_end(void)
{
	if (!on() || !ts.depth)
		return;
	if (ts.depth > MAX_DEPTH) {
		ts.depth--;
		return;
	}
	put(GX_MARK_END, ts.depth, ts.names[ts.depth - 1]);
	ts.depth--;
}

GX_API void gx_mark(const char *name)
{
	if (on())
		put(GX_MARK_POINT, ts.depth, name);
}

/* Ask gexplore to disable or enable collection, and wait (up to a second)
 * for its "ack\n", as a perf --control client does. */
static void control(const char *cmd)
{
	char buf[16];

	if (ctl_fd < 0 || ack_fd < 0)
		return;
	pthread_mutex_lock(&ctl_lock);
	if (write(ctl_fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd)) {
		struct pollfd p = { .fd = ack_fd, .events = POLLIN };

		if (poll(&p, 1, 1000) > 0 && read(ack_fd, buf, sizeof(buf)) < 0)
			buf[0] = 0;
	}
	pthread_mutex_unlock(&ctl_lock);
}

GX_API void gx_pause(void)
{
	if (!on())
		return;
	put(GX_MARK_PAUSE, ts.depth, "pause");
	control("disable\n");
}

GX_API void gx_resume(void)
{
	if (!on())
		return;
	control("enable\n");
	put(GX_MARK_RESUME, ts.depth, "resume");
}

GX_API int gx_regions_active(void)
{
	return on();
}
