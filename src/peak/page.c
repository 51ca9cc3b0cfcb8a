/*
 * page.c: what the first touch of a page costs the program's own time. On
 * bare metal a page fault is the kernel's (system time) and this is near
 * 0; a VM whose hypervisor keeps the guest's page tables (shadow paging,
 * as PVM) charges part of it to the user instruction that made it: 4-16 us
 * on this project's machines, moving with the host's load. `record
 * --model` prices each page its workload touches first by it.
 *
 * How a fault's time splits between user and system cannot be read from
 * the process's accounting: Linux splits CPU time by the tick (4 ms at
 * HZ=250), a few dozen ticks over the quick test, and five runs read 3.6
 * to 5.5 us of user time a page (peak --save refused the figure);
 * sampling the task-clock in user space at 10 kHz doubled the faults'
 * time in a VM. So the test takes the fault apart instead: the kernel
 * fills fresh pages' tables first (MADV_POPULATE_WRITE: the fault's
 * kernel side, without a trap), and the first user touch of those pages,
 * timed by the clock, less a touch of the same pages again, is what a
 * fault leaves to the user instruction (on a Zen 5 VM 5.1 us, against
 * 0.7 us for the kernel's filling and 11 us a whole fault; on bare metal
 * a TLB miss). A whole fault (a touch of fresh pages, by the clock) less
 * that is the system's side. Each figure is the fastest round's, as
 * peak's others are the fastest of their samples: interference only adds
 * time. A kernel without MADV_POPULATE_WRITE (before 5.14) gets the old
 * split: a child's user and system time over its touches (first_touch),
 * by the tick, said in peak_page.split.
 */
#include "config.h"

#include "peak-int.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* One pass over the pages of p, a byte each. volatile: each store made,
 * in order. */
static void touch(volatile unsigned char *p, size_t bytes, size_t pg)
{
	for (size_t off = 0; off < bytes; off += pg)
		p[off] = 1;
}

static double tv_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e9 + (double)tv->tv_usec * 1e3;
}

/* The first touch of bytes of fresh memory in a child of its own: Linux
 * scales a task's user and system time by the ticks of its whole life
 * (and keeps each from going down), so a split read around the touch in
 * a process that ran seconds of user code before is skewed; a new
 * process's is its touch's. *user and *sys in ns; 0 or -errno. */
static int first_touch(size_t bytes, size_t pg, double *user, double *sys)
{
	struct rusage ru;
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		/* no transparent huge pages: a fault a page, as most of a
		 * program's heap gets */
		madvise(p, bytes, MADV_NOHUGEPAGE);
		touch(p, bytes, pg);
		_exit(0);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -ENOMEM;
	*user = tv_ns(&ru.ru_utime);
	*sys = tv_ns(&ru.ru_stime);
	return 0;
}

/* Fresh pages of their own, without transparent huge pages (a fault a
 * page, as most of a program's heap gets); NULL on failure, errno set. */
static unsigned char *fresh(size_t bytes)
{
	unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_NOHUGEPAGE);
	return p;
}

/* ns a page of touch(p) */
static double timed_touch(unsigned char *p, size_t bytes, size_t pg)
{
	uint64_t t0 = gx_now_ns();

	touch(p, bytes, pg);
	return (double)(gx_now_ns() - t0) / (double)(bytes / pg);
}

static void keep_min(double *best, double v)
{
	if (!(*best > 0) || v < *best)
		*best = v;
}

/* One round of the split by the kernel's filling: *whole a fault's ns a
 * page, *first a populated page's first user touch, *again its second.
 * 0, 1 where the kernel cannot populate, or -errno. */
static int split_round(size_t bytes, size_t pg, double *whole, double *first, double *again)
{
	unsigned char *p = fresh(bytes);
	int err = 0;

	if (!p)
		return -errno;
	*whole = timed_touch(p, bytes, pg);
	munmap(p, bytes);
	p = fresh(bytes);
	if (!p)
		return -errno;
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0) {
		*first = timed_touch(p, bytes, pg);
		*again = timed_touch(p, bytes, pg);
	} else {
		err = errno == EINVAL ? 1 : -errno;
	}
#else
	err = 1;
#endif
	munmap(p, bytes);
	return err;
}

/* The tick's split (kernels without MADV_POPULATE_WRITE): a child's user
 * and system time over its first touches, the fastest round's whole, the
 * split of all rounds together (hundreds of ticks). */
static int tick_split(size_t bytes, size_t pg, unsigned rounds, double *user_ns,
		      double *sys_ns, char **cause)
{
	double user = 0, sys = 0, best = 0, share, again;
	unsigned char *p;

	for (unsigned r = 0; r < rounds; r++) {
		double u = 0, s = 0;
		int err = first_touch(bytes, pg, &u, &s);

		if (err)
			return gx_fail(cause, err, "the page test's %zu MiB child: %s",
				       bytes >> 20, strerror(-err));
		user += u;
		sys += s;
		keep_min(&best, (u + s) / (double)(bytes / pg));
	}
	/* what touching a page that is there costs (its TLB miss): all user
	 * time, timed here by the clock */
	p = fresh(bytes);
	if (!p)
		return gx_fail(cause, -errno, "the page test's %zu MiB: %s", bytes >> 20,
			       strerror(errno));
	touch(p, bytes, pg);
	again = timed_touch(p, bytes, pg);
	munmap(p, bytes);
	share = user + sys > 0 ? user / (user + sys) : 0;
	*user_ns = best * share - again;
	*sys_ns = best * (1 - share);
	return 0;
}

int pk_page_run(struct pk_run *run, struct peak_result *res, char **cause)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = (run->o->quick ? (size_t)16 : (size_t)32) << 20;
	unsigned rounds = run->o->quick ? 4 : 8;
	double whole = 0, first = 0, again = 0, ghz;
	int err = 0;

	if (!(pg >= 4096))
		pg = 4096;
	pk_progress(run, "page first touch");
	ghz = pk_run__clock(run);
	for (unsigned r = 0; r < rounds && !err; r++) {
		double w = 0, f = 0, a = 0;

		err = split_round(bytes, pg, &w, &f, &a);
		if (err < 0)
			return gx_fail(cause, err, "the page test's %zu MiB: %s", bytes >> 20,
				       strerror(-err));
		keep_min(&whole, w);
		keep_min(&first, f);
		keep_min(&again, a);
	}
	res->page.by_populate = !err;
	if (!err) {
		res->page.user_ns = first - again;
		res->page.system_ns = whole - first;
	} else {
		err = tick_split(bytes, pg, rounds, &res->page.user_ns, &res->page.system_ns,
				 cause);
		if (err < 0)
			return err;
	}
	ghz = (ghz + pk_run__clock(run)) / 2;
	res->page.pages = (double)rounds * (double)(bytes / pg);
	if (res->page.user_ns < 0)
		res->page.user_ns = 0;
	if (res->page.system_ns < 0)
		res->page.system_ns = 0;
	res->page.cycles = res->page.user_ns * ghz;
	res->has_page = true;
	return 0;
}
