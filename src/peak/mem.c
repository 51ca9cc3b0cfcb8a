/*
 * Memory: read, write, copy and triad bandwidth at working sets sized from
 * the caches in sysfs (half of each level; DRAM at 4x the last level), on
 * one core and on every core (threads pinned physical cores first, each
 * touching its own buffers first), per-core bandwidth with 1..N cores
 * active (contention), and the pointer-chase latency ladder (up to 4x the
 * last level, at least 256 MiB).
 */
#include "config.h"

#include "peak-int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { K_READ, K_WRITE, K_COPY, K_TRIAD, K_NR };
static const char *const kname[K_NR] = { "read", "write", "copy", "triad" };

struct level {
	char name[8];
	size_t size;		/* capacity (whole, for a shared level) */
	bool shared;
};

struct job {
	const struct pk_bwk *k;
	int kernel;
	size_t ws;		/* per thread: bytes over all its arrays */
	uint64_t reps;
	unsigned samples;
	unsigned segs;		/* DRAM: each sample covers one of segs parts, in turn */
	int threads;
	const int *cpus;
	pthread_barrier_t bar;
	uint64_t *start, *end;	/* [sample * threads + t] */
	int err;
};

struct worker {
	struct job *job;
	int t;
};

static void *alloc_big(size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, 2u << 20, n ? n : 1))
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

static size_t round_to(size_t n, size_t a)
{
	size_t r = n / a * a;

	return r ? r : a;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct job *j = w->job;
	size_t arr = j->kernel == K_COPY ? j->ws / 2 : j->kernel == K_TRIAD ? j->ws / 3 : j->ws;
	char *a, *b = NULL, *c = NULL;

	arr = round_to(arr, 4096);
	pk_pin(j->cpus[w->t]);
	/* First touch by the thread that uses it; never the zero page. */
	a = alloc_big(arr);
	if (j->kernel >= K_COPY)
		b = alloc_big(arr);
	if (j->kernel == K_TRIAD)
		c = alloc_big(arr);
	if (!a || (j->kernel >= K_COPY && !b) || (j->kernel == K_TRIAD && !c))
		j->err = -ENOMEM;
	else {
		memset(a, 1, arr);
		if (b)
			memset(b, 2, arr);
		if (c)
			memset(c, 3, arr);
	}
	pthread_barrier_wait(&j->bar);
	for (unsigned s = 0; s < j->samples && !j->err; s++) {
		uint64_t *st = &j->start[s * j->threads + w->t], *en = &j->end[s * j->threads + w->t];
		size_t seg = arr / j->segs / 4096 * 4096, off = (s % j->segs) * seg;

		pthread_barrier_wait(&j->bar);
		*st = gx_now_ns();
		switch (j->kernel) {
		case K_READ:
			j->k->read(a + off, seg, j->reps);
			break;
		case K_WRITE:
			j->k->write(a + off, seg, j->reps);
			break;
		case K_COPY:
			j->k->copy(a + off, b + off, seg, j->reps);
			break;
		default:
			j->k->triad(a + off, b + off, c + off, seg, j->reps, 1.5);
			break;
		}
		*en = gx_now_ns();
	}
	free(a);
	free(b);
	free(c);
	return NULL;
}

/* Run one bandwidth job; fills out (GB/s over all threads). */
static int bw_job(struct pk_run *run, const struct pk_bwk *k, int kernel, const struct level *lv,
		  int threads, struct peak_bw *out)
{
	bool dram = !strcmp(lv->name, "DRAM");
	struct job j = { .k = k, .kernel = kernel, .threads = threads, .cpus = run->cpus };
	struct worker *w = xcalloc((size_t)threads, sizeof(*w));
	pthread_t *tid = xcalloc((size_t)threads, sizeof(*tid));
	double *v;
	size_t bytes, target;
	int started = 0, err = 0;

	/* Half a level; a shared level (and DRAM's 4x LLC) split between the threads. */
	j.ws = dram ? lv->size : lv->size / 2;
	if (dram || lv->shared)
		j.ws /= (size_t)threads;
	j.ws = round_to(j.ws, kernel == K_TRIAD ? 3 * 4096 : kernel == K_COPY ? 2 * 4096 : 4096);
	/* A sample moves at least ~4 MiB (quick) so it lasts well over the timer's cost. */
	target = run->o->quick ? (4u << 20) : (16u << 20);
	j.reps = j.ws >= target ? 1 : target / j.ws;
	/*
	 * DRAM: a pass over the whole set lasts milliseconds, long enough to be
	 * preempted on a busy machine. Each sample covers one eighth instead, in
	 * turn: the part it reads was last touched seven eighths (3.5x the last
	 * cache) ago, so it still comes from memory, and many short samples give
	 * a minimum that interruptions do not reach.
	 */
	j.segs = dram ? 8 : 1;
	j.samples = dram ? (run->o->quick ? 16 : 64) : (run->o->quick ? 12 : 60);
	j.start = xcalloc((size_t)j.samples * threads, sizeof(uint64_t));
	j.end = xcalloc((size_t)j.samples * threads, sizeof(uint64_t));
	pthread_barrier_init(&j.bar, NULL, (unsigned)threads);
	for (int t = 0; t < threads; t++) {
		w[t] = (struct worker){ &j, t };
		if (pthread_create(&tid[t], NULL, worker_main, &w[t]) != 0) {
			err = -EAGAIN;
			break;
		}
		started++;
	}
	if (started < threads) {
		/* Workers wait on a barrier that can never fill: cannot recover cleanly. */
		abort();
	}
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_barrier_destroy(&j.bar);
	if (!err)
		err = j.err;
	if (!err) {
		struct peak_stat st;
		size_t arr = kernel == K_COPY ? j.ws / 2 : kernel == K_TRIAD ? j.ws / 3 : j.ws;

		arr = round_to(arr, 4096);
		bytes = arr / j.segs / 4096 * 4096 * (kernel == K_COPY ? 2 : kernel == K_TRIAD ? 3 : 1) *
			j.reps * threads;
		v = xcalloc(j.samples, sizeof(*v));
		for (unsigned s = 0; s < j.samples; s++) {
			uint64_t lo = UINT64_MAX, hi = 0;

			for (int t = 0; t < threads; t++) {
				if (j.start[s * threads + t] < lo)
					lo = j.start[s * threads + t];
				if (j.end[s * threads + t] > hi)
					hi = j.end[s * threads + t];
			}
			v[s] = (double)(hi - lo);
		}
		pk_stat(v, j.samples, &st);
		free(v);
		*out = (struct peak_bw){ kname[kernel], NULL, j.ws, threads, bytes / st.min,
					 bytes / st.median, bytes / st.p90 };
	}
	free(j.start);
	free(j.end);
	free(w);
	free(tid);
	return err;
}

static size_t levels_of(const struct peak_machine *m, struct level *lv, size_t max)
{
	size_t n = 0, llc = 0;

	for (int l = 1; l <= 4 && n + 1 < max; l++)
		for (int i = 0; i < m->nr_caches; i++)
			if (m->caches[i].level == l) {
				snprintf(lv[n].name, sizeof(lv[n].name), "L%d", l);
				lv[n].size = m->caches[i].size;
				lv[n].shared = m->caches[i].shared > 1;
				llc = lv[n].size;
				n++;
				break;
			}
	if (!llc)
		llc = 8u << 20;	/* no sysfs: assume 8 MiB so DRAM is still out of cache */
	snprintf(lv[n].name, sizeof(lv[n].name), "DRAM");
	lv[n].size = 4 * llc;
	lv[n].shared = true;
	return n + 1;
}

static void push_bw(struct peak_bw **v, size_t *n, const struct peak_bw *b, const char *level)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n] = *b;
	(*v)[*n].level = level;
	(*n)++;
}

/* The level names live in a static table so results can point at them. */
static const char *level_name(const char *s)
{
	static const char *const names[] = { "L1", "L2", "L3", "L4", "DRAM" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(names[i], s))
			return names[i];
	return "?";
}

/* A random order of 0 .. n - 1 (Fisher-Yates, xorshift from seed): the
 * rings of the chase and of the TLB test. Newly allocated. */
size_t *pk_shuffle(size_t n, uint64_t seed)
{
	size_t *perm = xcalloc(n ? n : 1, sizeof(*perm));

	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n ? n - 1 : 0; i > 0; i--) {
		size_t j, t = perm[i];

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		j = seed % (i + 1);
		perm[i] = perm[j];
		perm[j] = t;
	}
	return perm;
}

/*
 * The smallest working set of the chase's last step. 4x the last level
 * alone is not enough: without sysfs (a VM) the last level is assumed to
 * be 8 MiB, and a 32 MiB chase then ran inside a Zen CCD's 32 MiB L3. 256
 * MiB is beyond any one core's last level today (a 3D V-Cache CCD's 96
 * MiB) and pays the TLB misses a large working set has; --quick spends
 * about a second more on it (its faults and its ring).
 */
#define CHASE_DRAM_MIN ((size_t)256 << 20)

/* Load-to-use latency over a random ring of cache lines of `bytes`, in
 * pages of 4 KiB: past the TLB's reach it pays the walks a program's heap
 * pays, which record --model prices apart (it takes them off this
 * latency, src/model/machine.c); huge pages would pay next to none, and
 * those taken off would be taken twice. */
static int chase(struct pk_run *run, size_t bytes, struct peak_chase *out)
{
	size_t lines = bytes / 64, *perm;
	char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t seed = 0x9E3779B97F4A7C15ull, iters;
	unsigned samples = run->o->quick ? 9 : 31;
	pk_chase_fn fn = (pk_chase_fn)(void (*)(void))pk_chase_kernel();
	void *p = buf;
	double *v, ghz;
	struct peak_stat st;

	if (buf == MAP_FAILED)
		return -ENOMEM;
#ifdef MADV_NOHUGEPAGE
	madvise(buf, bytes, MADV_NOHUGEPAGE);
#endif
	perm = pk_shuffle(lines, seed);
	for (size_t i = 0; i < lines; i++)
		*(void **)(buf + perm[i] * 64) = buf + perm[(i + 1) % lines] * 64;
	free(perm);
	/* The calibration's runs each start at buf, and leave its first
	 * lines cached; then a lap, which ends where they begin, and has
	 * pushed them out where the ring is larger than the caches: the
	 * samples go on from there. Calibrated after the lap, the first
	 * sample ran over the lines the calibration had just read, and the
	 * fastest sample was theirs: memory's latency over 256 MiB read 140
	 * to 213 cycles on a Zen 5 VM whose loads there take 690. */
	iters = pk_calibrate(pk_chase_kernel(), buf, run->o->quick ? 100000 : 300000);
	p = fn(lines / PK_BODY + 1, p);	/* one lap to warm it */
	ghz = pk_run__clock(run);
	v = xcalloc(samples, sizeof(*v));
	/* Each sample goes on where the last stopped: no line is revisited early. */
	for (unsigned s = 0; s < samples; s++) {
		uint64_t t0 = gx_now_ns();

		p = fn(iters, p);
		v[s] = (double)(gx_now_ns() - t0) / ((double)iters * PK_BODY);
	}
	pk_stat(v, samples, &st);
	free(v);
	munmap(buf, bytes);
	*out = (struct peak_chase){ bytes, st.min, st.min * ghz };
	return 0;
}

int pk_mem_run(struct pk_run *run, struct peak_result *res, char **cause)
{
	const struct pk_bwk *k = pk_bw_kernels(run->isa);
	struct level lv[6];
	size_t nl = levels_of(&res->machine, lv, ARRAY_SIZE(lv));
	struct peak_bw b;
	int err;

	if (run->want_bw && k) {
		int tv[2] = { 1, run->cores };

		for (int ti = 0; ti < (run->cores > 1 ? 2 : 1); ti++)
			for (size_t l = 0, t = (size_t)tv[ti]; l < nl; l++)
				for (int kk = 0; kk < K_NR; kk++) {
					pk_progress(run, "bandwidth %s %s x%zu", kname[kk], lv[l].name, t);
					err = bw_job(run, k, kk, &lv[l], (int)t, &b);
					if (err)
						return gx_fail(cause, err, "bandwidth %s at %s: %s",
							       kname[kk], lv[l].name, gx_strerror(err));
					push_bw(&res->bw, &res->nr_bw, &b, level_name(lv[l].name));
				}
	}
	if (run->want_contention && k) {
		/* The shared levels: the last cache and DRAM. */
		for (size_t l = nl >= 2 ? nl - 2 : 0; l < nl; l++) {
			if (!lv[l].shared)
				continue;
			for (int t = 1; t <= run->nr_cpus; t++) {
				pk_progress(run, "contention %s x%d", lv[l].name, t);
				err = bw_job(run, k, K_READ, &lv[l], t, &b);
				if (err)
					return gx_fail(cause, err, "contention at %s: %s", lv[l].name,
						       gx_strerror(err));
				push_bw(&res->contention, &res->nr_contention, &b,
					level_name(lv[l].name));
			}
		}
	}
	if (run->want_chase && pk_chase_kernel()) {
		/* memory's latency over a set no cache of any current CPU holds:
		 * 4x the last level, and at least CHASE_DRAM_MIN (the model
		 * prices misses of the last level by it) */
		size_t top = lv[nl - 1].size > CHASE_DRAM_MIN ? lv[nl - 1].size : CHASE_DRAM_MIN;
		size_t s, next;

		pk_pin(run->cpus[0]);
		for (s = 4096; s <= top; s = next) {
			/* Doubling (quick: x4), always ending at DRAM's working set. */
			next = s * (run->o->quick ? 4 : 2);
			/* Quick: from the last cache straight to DRAM's size. */
			if ((next > top || (run->o->quick && next > top / 4)) && s < top)
				next = top;
			pk_progress(run, "latency %zu KiB", s >> 10);
			res->chase = xrealloc(res->chase, (res->nr_chase + 1) * sizeof(*res->chase));
			err = chase(run, s, &res->chase[res->nr_chase]);
			if (err)
				return gx_fail(cause, err, "latency at %zu bytes: %s", s,
					       gx_strerror(err));
			res->nr_chase++;
		}
	}
	pk_pin(run->cpus[0]);
	return 0;
}
