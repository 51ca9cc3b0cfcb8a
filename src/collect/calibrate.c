/*
 * calibrate.c: what one sample costs the workload in the kernel.
 *
 * gexplore's own CPU time (getrusage) leaves out the larger part of a
 * recording's cost at a high sampling rate: every sample is taken in the
 * workload's context (a timer interrupt, an NMI, the faulting path), so
 * its cost shows up as the workload's slowdown. It is measured here once,
 * after the run: the calling thread spins a fixed amount of work with and
 * without a cpu-clock event sampling it every CALIB_PERIOD_NS into a ring
 * buffer, in samples shaped like the recording's (sample_type, call
 * chain, user stack copy), and the difference of the fastest runs is
 * divided by the samples taken.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define CALIB_PERIOD_NS 20000ULL	/* 50 kHz: the hrtimer's floor is 10 us */
#define CALIB_WORK_NS 4000000ULL	/* each spin, without sampling */
#define CALIB_REPS 3
#define CALIB_MAX_PAGES 1024		/* 4 MiB of ring */

static volatile uint64_t calib_sink;

static uint64_t spin(uint64_t n)
{
	uint64_t t0 = gx_now_ns(), h = calib_sink;

	for (uint64_t i = 0; i < n; i++)
		h = (h ^ i) * 0x100000001b3ULL;
	calib_sink = h;
	return gx_now_ns() - t0;
}

/* A sample's size in the ring, roughly, to size the ring for them all. */
static size_t sample_size(const struct perf_event_attr *a)
{
	size_t sz = 8 + 8 * 8;

	if (a->sample_type & PERF_SAMPLE_CALLCHAIN)
		sz += 8 * 128;
	if (a->sample_type & PERF_SAMPLE_REGS_USER)
		sz += 8 + 8 * (size_t)__builtin_popcountll(a->sample_regs_user);
	if (a->sample_type & PERF_SAMPLE_STACK_USER)
		sz += 16 + a->sample_stack_user;
	return sz;
}

int collect_session__sample_cost(const struct collect_session *s, double *ns)
{
	const struct collect_event *like = NULL;
	struct perf_event_attr a;
	uint64_t n = 1 << 16, plain = UINT64_MAX, sampled = UINT64_MAX, samples = 0, count;
	size_t pages = 1, len;
	void *ring = MAP_FAILED;
	int fd, err = 0;

	*ns = NAN;
	for (size_t i = 0; i < collect_session__nr_events(s) && !like; i++) {
		const struct collect_event *e = collect_session__event(s, i);

		if (e->attr.freq || e->attr.sample_period)
			like = e;
	}
	if (!like)
		return -ENOENT;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = CALIB_PERIOD_NS;
	a.sample_type = like->attr.sample_type & ~(uint64_t)PERF_SAMPLE_READ;
	a.sample_regs_user = like->attr.sample_regs_user;
	a.sample_stack_user = like->attr.sample_stack_user;
	a.exclude_callchain_user = like->attr.exclude_callchain_user;
	a.exclude_kernel = like->attr.exclude_kernel;
	a.exclude_hv = like->attr.exclude_hv;
	a.sample_id_all = 1;
	a.use_clockid = like->attr.use_clockid;
	a.clockid = like->attr.clockid;
	a.disabled = 1;
	fd = collect_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;

	/* the work: about CALIB_WORK_NS unsampled */
	while (spin(n) < CALIB_WORK_NS / 4 && n < (1ULL << 40))
		n *= 2;
	n = (uint64_t)((double)n * (double)CALIB_WORK_NS / (double)(spin(n) | 1));

	/* a ring for every sample of one run, with room to spare */
	while (pages < CALIB_MAX_PAGES &&
	       (uint64_t)pages * 4096 < 3 * (CALIB_WORK_NS / CALIB_PERIOD_NS) * sample_size(&a))
		pages *= 2;
	len = (pages + 1) * (size_t)sysconf(_SC_PAGESIZE);
	ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	for (int r = 0; r < CALIB_REPS; r++) {
		struct perf_event_mmap_page *meta = ring;
		uint64_t t, c0 = 0;

		t = spin(n);
		plain = t < plain ? t : plain;
		if (read(fd, &c0, sizeof(c0)) != sizeof(c0))
			c0 = 0;
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		t = spin(n);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		/* samples taken (written or lost): the timer's expirations */
		if (read(fd, &count, sizeof(count)) != sizeof(count)) {
			err = -EIO;
			goto out_unmap;
		}
		if (t < sampled) {
			sampled = t;
			samples = (count - c0) / CALIB_PERIOD_NS;
		}
		/* empty the ring for the next run */
		__atomic_store_n(&meta->data_tail, __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	if (!samples) {
		err = -ENODATA;
		goto out_unmap;
	}
	*ns = sampled > plain ? (double)(sampled - plain) / (double)samples : 0.0;
out_unmap:
	munmap(ring, len);
out_close:
	close(fd);
	return err;
}
