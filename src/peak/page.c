/*
 * page.c: what the first touch of a page costs the program's own time. A
 * child process touches fresh anonymous memory a byte a page and exits;
 * its user CPU time over the pages, less what touching a page that is
 * there costs, is what one page fault adds to the user time of the
 * instruction that made it. On bare metal the fault is the kernel's
 * (system time) and this is near 0; a VM whose hypervisor keeps the
 * guest's page tables (shadow paging, as PVM) charges part of it to the
 * user instruction: 6-16 us on this project's machines, moving with the
 * host's load. `record --model` prices each page its workload touches
 * first by it. The fastest round's CPU time is taken, as peak's other
 * figures are the fastest of their samples; Linux splits CPU time between
 * user and system by the tick, so that split is the one of all rounds
 * together (hundreds of ticks), and each round is a process of its own
 * (first_touch).
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

int pk_page_run(struct pk_run *run, struct peak_result *res, char **cause)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = (run->o->quick ? (size_t)16 : (size_t)32) << 20;
	unsigned rounds = run->o->quick ? 4 : 8;
	double user = 0, sys = 0, pages = 0, best = 0, again, ghz, share;
	unsigned char *p;
	uint64_t t0;

	if (!(pg >= 4096))
		pg = 4096;
	pk_progress(run, "page first touch");
	ghz = pk_run__clock(run);
	for (unsigned r = 0; r < rounds; r++) {
		double u = 0, s = 0, n = (double)(bytes / pg);
		int err = first_touch(bytes, pg, &u, &s);

		if (err)
			return gx_fail(cause, err, "the page test's %zu MiB child: %s",
				       bytes >> 20, strerror(-err));
		user += u;
		sys += s;
		pages += n;
		/* the fastest round, as peak's other figures: interference
		 * (a shared host's load) only adds time; its user and system
		 * time together are the scheduler's clock, exact */
		if (!(best > 0) || (u + s) / n < best)
			best = (u + s) / n;
	}
	/* what touching a page that is there costs (its TLB miss): all user
	 * time, timed here by the clock */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return gx_fail(cause, -errno, "the page test's %zu MiB: %s", bytes >> 20,
			       strerror(errno));
	madvise(p, bytes, MADV_NOHUGEPAGE);
	touch(p, bytes, pg);
	t0 = gx_now_ns();
	touch(p, bytes, pg);
	again = (double)(gx_now_ns() - t0) / (double)(bytes / pg);
	munmap(p, bytes);
	ghz = (ghz + pk_run__clock(run)) / 2;
	/* the split between user and system is the tick's: over all rounds */
	share = user + sys > 0 ? user / (user + sys) : 0;
	res->page.pages = pages;
	res->page.user_ns = best * share - again;
	if (res->page.user_ns < 0)
		res->page.user_ns = 0;
	res->page.system_ns = best * (1 - share);
	res->page.cycles = res->page.user_ns * ghz;
	res->has_page = true;
	return 0;
}
