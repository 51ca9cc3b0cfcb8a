/*
 * tlb.c: what a page walk costs. A ring of N cache lines, N half of L2's
 * (so that L2 serves every load, whatever the pages), spread over P pages
 * of 4 KiB, N / P lines a page, for P from N / 16 to N: a load's cycles
 * grow with P as the TLB's misses do, and with nothing else. The latency
 * ladder cannot say it: its chases past L2 differ in their bytes too, and
 * the last level they share with every other core moves under them (a
 * shared Zen 3 VM's 4 MiB chase took 57 to 102 cycles between runs, its 16
 * MiB one 147 to 368, where this ring over 4096 pages took 77 to 95).
 * Where a ring's pages and their page tables lie, and a shared host's
 * load, move its cost (by up to a quarter between processes on that VM):
 * each P is timed over several rings, each in memory of its own, the sizes
 * taking turns; each ring's fastest sample is its figure, as interference
 * only adds time, and P's is the median of its rings'. The fastest ring's
 * was the figure before: on a shared Zen 5 VM two runs in five read
 * 126-132 cycles a load past 8,192 pages where the others read 169-177 (one
 * fast ring of nine is enough for that), and a busy spell lifted a
 * whole run's, so that gexplore peak --save's three runs gave walks of
 * 227 to 393 cycles. The median of nine rings, spread over the test, is
 * not moved by one ring's luck; a busy spell over a whole run still moves
 * it (three runs: 257 to 309 cycles). The model's description reads a
 * walk off it (src/model/machine.c).
 */
#include "config.h"

#include "peak-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TLB_PAGE 4096
#define TLB_LINE 64
#define TLB_SLOTS (TLB_PAGE / TLB_LINE)
#define TLB_STEPS 5		/* P from N / 16 to N, doubling */

/* Line i of the ring's N over P pages: page i % P, the (i / P)th of its
 * k lines; page p's lines start at slot p % 64 and lie 64 / k apart, so
 * that the lines spread over the cache's sets as the pages go on. */
static char *line_at(char *base, size_t i, size_t pages, size_t k)
{
	size_t p = i % pages, j = i / pages;

	return base + p * TLB_PAGE + ((p + j * (TLB_SLOTS / k)) % TLB_SLOTS) * TLB_LINE;
}

/* One ring of lines over pages, in memory of its own: ns a load, the
 * fastest of the samples. */
static int one_ring(struct pk_run *run, size_t lines, size_t pages, uint64_t seed, double *ns)
{
	size_t k = lines / pages, bytes = pages * TLB_PAGE, *perm;
	pk_chase_fn fn = (pk_chase_fn)(void (*)(void))pk_chase_kernel();
	unsigned samples = run->o->quick ? 5 : 9;
	char *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t iters;
	void *p;

	if (base == MAP_FAILED)
		return -errno;
#ifdef MADV_NOHUGEPAGE
	/* pages of 4 KiB, as the TLB's reach is counted in */
	madvise(base, bytes, MADV_NOHUGEPAGE);
#endif
	perm = pk_shuffle(lines, seed);
	for (size_t i = 0; i < lines; i++)
		*(void **)line_at(base, perm[i], pages, k) =
			line_at(base, perm[(i + 1) % lines], pages, k);
	free(perm);
	/* calibrated first, then a lap, the samples going on from its end:
	 * as memory's chase (mem.c), so that no sample starts over the pages
	 * the calibration's runs have just put in the TLB */
	p = line_at(base, 0, pages, k);
	iters = pk_calibrate(pk_chase_kernel(), p, run->o->quick ? 100000 : 300000);
	p = fn(lines / PK_BODY + 1, p);	/* a lap to warm it */
	*ns = 0;
	for (unsigned s = 0; s < samples; s++) {
		uint64_t t0 = gx_now_ns();
		double v;

		p = fn(iters, p);
		v = (double)(gx_now_ns() - t0) / ((double)iters * PK_BODY);
		if (!(*ns > 0) || v < *ns)
			*ns = v;
	}
	munmap(base, bytes);
	return 0;
}

/* L2's size from the caches sysfs gave, else CPUID's (most VMs have no
 * sysfs cache directories: a Zen 5 VM's rings, sized by an assumed 256
 * KiB, spanned at most 2048 pages, within its L2 TLB's 4096, and no walk
 * was measured), else 256 KiB, the smallest of any current core's. */
static size_t l2_size(const struct peak_machine *m)
{
	long cpuid;

	for (int i = 0; i < m->nr_caches; i++)
		if (m->caches[i].level == 2 && m->caches[i].size >= 64 * 1024)
			return m->caches[i].size;
	cpuid = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return cpuid >= 64 * 1024 ? (size_t)cpuid : 256 * 1024;
}

int pk_tlb_run(struct pk_run *run, struct peak_result *res, char **cause)
{
	size_t lines = l2_size(&res->machine) / 2 / TLB_LINE, n = 0;
	unsigned rings = run->o->quick ? 5 : 9;
	double v[TLB_STEPS][9], ghz;

	if (!pk_chase_kernel()) {
		pk_skip(res, "tlb", "no chase kernel on this architecture");
		return 0;
	}
	/* N / 16 must be whole pages of whole lines, k a power of two */
	lines &= ~(size_t)(16 * 16 - 1);
	pk_pin(run->cpus[0]);
	pk_progress(run, "tlb");
	ghz = pk_run__clock(run);
	/* round after round of one ring a size: each size's rings spread over
	 * the test, so that a neighbour's load on a shared host falls on every
	 * size alike */
	for (unsigned r = 0; r < rings; r++) {
		n = 0;
		for (size_t pages = lines / 16; pages <= lines; pages *= 2, n++) {
			int err = one_ring(run, lines, pages, 0x9E3779B97F4A7C15ull + r, &v[n][r]);

			if (err)
				return gx_fail(cause, err, "the TLB test's ring over %zu pages: %s",
					       pages, strerror(-err));
		}
	}
	ghz = (ghz + pk_run__clock(run)) / 2;
	res->tlb = xcalloc(n, sizeof(*res->tlb));
	for (size_t i = 0, pages = lines / 16; i < n; i++, pages *= 2) {
		struct peak_stat st;

		pk_stat(v[i], rings, &st);	/* each ring's fastest sample */
		res->tlb[res->nr_tlb++] = (struct peak_tlb){ pages, lines, st.median,
							     st.median * ghz };
	}
	return 0;
}
