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
 *
 * That takes some 30 ms of CPU, more than the rest of a short recording:
 * so the figure is kept in a cache file per machine (the caller's text:
 * CPU model and kernel release) and sample shape, and measured only when
 * the cache has none.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define CALIB_PERIOD_NS 20000ULL	/* 50 kHz: the hrtimer's floor is 10 us */
#define CALIB_WORK_NS 4000000ULL	/* each spin, without sampling */
#define CALIB_REPS 3
#define CALIB_MAX_PAGES 1024		/* 4 MiB of ring */
#define CALIB_CACHE_HEAD "gexplore sample cost 1\n"	/* the file's first line */

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

static int measure(const struct perf_event_attr *like, double *ns)
{
	struct perf_event_attr a;
	uint64_t n = 1 << 16, plain = UINT64_MAX, sampled = UINT64_MAX, samples = 0, count;
	size_t pages = 1, len;
	void *ring = MAP_FAILED;
	int fd, err = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = CALIB_PERIOD_NS;
	a.sample_type = like->sample_type & ~(uint64_t)PERF_SAMPLE_READ;
	a.sample_regs_user = like->sample_regs_user;
	a.sample_stack_user = like->sample_stack_user;
	a.exclude_callchain_user = like->exclude_callchain_user;
	a.exclude_kernel = like->exclude_kernel;
	a.exclude_hv = like->exclude_hv;
	a.sample_id_all = 1;
	a.use_clockid = like->use_clockid;
	a.clockid = like->clockid;
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

/*
 * The cache file's text up to the figure: its first line, the machine and
 * the shape of the samples, each on a line of its own (control characters
 * of the machine's text made '?'), then "ns ".
 */
static char *cache_head(const struct perf_event_attr *a, const char *machine)
{
	char *m = xstrdup(machine ? machine : ""), *head;

	for (char *p = m; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	head = xasprintf(CALIB_CACHE_HEAD "machine %s\nshape sample_type=%#llx regs_user=%#llx "
			 "stack_user=%u exclude_callchain_user=%u exclude_kernel=%u exclude_hv=%u "
			 "clockid=%d\nns ", m, (unsigned long long)a->sample_type,
			 (unsigned long long)a->sample_regs_user, a->sample_stack_user,
			 (unsigned)a->exclude_callchain_user, (unsigned)a->exclude_kernel,
			 (unsigned)a->exclude_hv, a->use_clockid ? a->clockid : -1);
	free(m);
	return head;
}

/* Is there a figure in the cache file at path, written for head? (*ns) */
static bool cache_read(const char *path, const char *head, double *ns)
{
	char *text = gx_read_file(path, 4096), *end;
	size_t n = strlen(head);
	bool hit = false;
	double v;

	if (!text || strncmp(text, head, n))
		goto out;
	v = strtod(text + n, &end);
	hit = end != text + n && (*end == '\n' || !*end) && v > 0 && v <= 1e9;
	if (hit)
		*ns = v;
out:
	free(text);
	return hit;
}

int collect_session__sample_cost(const struct collect_session *s, const char *cache_dir,
				 const char *machine, double *ns, enum collect_cost_from *from)
{
	const struct collect_event *like = NULL;
	char *head = NULL, *path = NULL, *text;
	int err;

	*ns = NAN;
	*from = COLLECT_COST_NONE;
	for (size_t i = 0; i < collect_session__nr_events(s) && !like; i++) {
		const struct collect_event *e = collect_session__event(s, i);

		if (e->attr.freq || e->attr.sample_period)
			like = e;
	}
	if (!like)
		return -ENOENT;
	if (cache_dir) {
		head = cache_head(&like->attr, machine);
		path = xasprintf("%s/sample-cost-%016llx", cache_dir,
				 (unsigned long long)gx_hash(head, strlen(head)));
		if (cache_read(path, head, ns)) {
			*from = COLLECT_COST_CACHED;
			err = 0;
			goto out;
		}
	}
	err = measure(&like->attr, ns);
	if (err)
		goto out;
	*from = COLLECT_COST_MEASURED;
	/* a zero (noise hid the cost) is not kept; nor is a failure to write
	 * the cache any of the recording's business */
	if (path && *ns > 0) {
		text = xasprintf("%s%.6g\n", head, *ns);
		gx_replace_file(path, text, strlen(text));
		free(text);
	}
out:
	free(path);
	free(head);
	return err;
}
