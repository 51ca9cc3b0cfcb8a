/*
 * machine.c: what record --model knows of this machine: its caches'
 * geometry (sysfs, else CPUID), the costs a machine description gives
 * (description.c), and a description measured here from `gexplore
 * peak`'s documents (peak --save).
 */
#include "config.h"

#include "model.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "model-int.h"
#include "util/util.h"

/* ---- this machine's caches ------------------------------------------------ */

uint64_t model_l3_plausible(const char *vendor, uint64_t l3, bool from_sysfs, char **note)
{
	*note = NULL;
	if (from_sysfs || !vendor || l3 <= 96 * MIB ||
	    (strcmp(vendor, "AuthenticAMD") && strcmp(vendor, "HygonGenuine")))
		return l3;
	*note = xasprintf("model: CPUID (no sysfs cache directories) gives an L3 of %" PRIu64
			  " MiB, more than one AMD CCD has (32 MiB, 96 MiB with 3D V-Cache) and "
			  "one core uses only its own CCD's: simulated as 32 MiB", l3 / MIB);
	return 32 * MIB;
}

/* A level as callgrind's simulator takes it: a line (64 where none is
 * known), ways (8 for L1, 16 beyond), and sets a power of two, rounded
 * down (a 30 MiB 15-way L3 is simulated as 15 MiB). A size of 0: no level. */
static void geo_round(struct cache_geo *g, int k)
{
	uint64_t sets;

	if (!g->size)
		return;
	if (!g->line)
		g->line = 64;
	if (!g->assoc)
		g->assoc = k < GEO_L2 ? 8 : 16;
	sets = g->size / ((uint64_t)g->assoc * g->line);
	while (sets & (sets - 1))
		sets &= sets - 1;
	if (!sets)
		sets = 1;
	g->size = sets * g->assoc * g->line;
}

void model_cache_geometry(struct cache_geo g[GEO_NR], bool from_sysfs[GEO_NR],
			  const char *vendor, char **note)
{
	static const int sc[GEO_NR][3] = {
		{ _SC_LEVEL1_ICACHE_SIZE, _SC_LEVEL1_ICACHE_ASSOC, _SC_LEVEL1_ICACHE_LINESIZE },
		{ _SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL1_DCACHE_ASSOC, _SC_LEVEL1_DCACHE_LINESIZE },
		{ _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL2_CACHE_ASSOC, _SC_LEVEL2_CACHE_LINESIZE },
		{ _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL3_CACHE_ASSOC, _SC_LEVEL3_CACHE_LINESIZE },
	};

	memset(g, 0, sizeof(*g) * GEO_NR);
	const char *root = getenv("GX_TEST_MODEL_SYSFS");	/* tests only: a fake sysfs */

	memset(from_sysfs, 0, sizeof(*from_sysfs) * GEO_NR);
	if (!root || !*root)
		root = "/sys/devices/system/cpu/cpu0/cache";
	{
		struct gx_sysfs_cache caches[16];
		int nc = gx_sysfs_caches(root, caches, 16);

		for (int i = 0; i < nc; i++) {
			int k = -1;

			if (caches[i].level == 1)
				k = !strcmp(caches[i].type, "Instruction") ? GEO_I1 :
				    !strcmp(caches[i].type, "Data") ? GEO_D1 : -1;
			else if (caches[i].level == 2 || caches[i].level == 3)
				k = caches[i].level == 2 ? GEO_L2 : GEO_L3;
			if (k >= 0) {
				g[k].size = caches[i].size;
				g[k].assoc = caches[i].ways;
				g[k].line = caches[i].line;
				from_sysfs[k] = g[k].size > 0;
			}
		}
	}
	for (int k = 0; k < GEO_NR; k++) {
		if (!g[k].size) {
			long s = sysconf(sc[k][0]), a = sysconf(sc[k][1]), l = sysconf(sc[k][2]);

			g[k].size = s > 0 ? (uint64_t)s : 0;
			g[k].assoc = a > 0 ? (unsigned)a : 0;
			g[k].line = l > 0 ? (unsigned)l : 0;
		}
		if (k == GEO_L3 && g[k].size)
			g[k].size = model_l3_plausible(vendor, g[k].size, from_sysfs[k], note);
		geo_round(&g[k], k);
	}
}

void model_machine_geometry(struct cache_geo g[GEO_NR], const struct model_machine *mm)
{
	for (int k = 0; k < GEO_NR; k++) {
		g[k].size = (uint64_t)mm->price[MP_L1I_SIZE + 2 * k];
		g[k].assoc = (unsigned)mm->price[MP_L1I_WAYS + 2 * k];
		g[k].line = (unsigned)mm->price[MP_LINE];
		geo_round(&g[k], k);
	}
}

/* ---- a description measured here: `gexplore peak`'s documents ------------- */

/* The latency of the largest chase at or under bytes (the first above when none). */
static double chase_at(json_t *lat, double bytes)
{
	double best = NAN, first = NAN;
	size_t i;
	json_t *e;

	json_array_foreach(lat, i, e) {
		double b = json_number_value(json_object_get(e, "bytes"));
		double c = json_number_value(json_object_get(e, "cycles"));

		if (c <= 0)
			continue;
		if (b <= bytes)
			best = c;
		else if (isnan(first))
			first = c;
	}
	return !isnan(best) ? best : first;
}

/* doc's test.key into *v where it is a number not below 0: whether it was. */
static bool peak_figure(json_t *doc, const char *test, const char *key, double *v)
{
	json_t *c = json_object_get(json_object_get(doc, test), key);

	if (!json_is_number(c) || json_number_value(c) < 0)
		return false;
	*v = json_number_value(c);
	return true;
}

/*
 * The L3 this core gets, as peak's latency ladder says: a chase of a set
 * past L2 and within half the L3 that sysfs or CPUID gives costs an L3
 * hit's latency, far under memory's (the ladder's smallest set past the
 * L3: the largest pays more walks, its page tables' entries missing too).
 * Where one costs half memory's or more, the L3 held little of it:
 * its lines went to memory, because other cores (a VM's neighbours on a
 * shared host: a 16 MiB chase cost 508-515 cycles a load on a Zen 5 VM
 * whose 32 MiB L3 others share, memory's 370) keep the rest. A random
 * ring over S bytes misses a cache of C bytes 1 - C/S of the time, so
 * one under half memory's latency and the next, 4 times larger, at half
 * or over say C between half the former and twice it: the former is
 * taken. l3->held is the L3's size where no chase within half of it paid
 * half memory's latency, the largest that paid less where one did (L2's
 * size where none did: an L3 that holds nothing of a chase past L2).
 */
struct l3_held {
	double held, over, past;		/* bytes */
	double over_c, under_c, mem;		/* the chases' cycles */
};

static void peak_l3_held(json_t *lat, const struct cache_geo g[GEO_NR], struct l3_held *l3)
{
	double l2 = (double)g[GEO_L2].size, size = (double)g[GEO_L3].size, under = 0;
	json_t *e;
	size_t i;

	memset(l3, 0, sizeof(*l3));
	l3->held = size;
	json_array_foreach(lat, i, e) {
		double b = json_number_value(json_object_get(e, "bytes"));
		double c = json_number_value(json_object_get(e, "cycles"));

		if (c > 0 && b > size && (!l3->past || b < l3->past))
			l3->past = b, l3->mem = c;
	}
	if (!(size > l2) || !(l2 > 0) || !l3->past)
		return;		/* no L3, or no chase past it to tell memory's latency */
	json_array_foreach(lat, i, e) {
		double b = json_number_value(json_object_get(e, "bytes"));
		double c = json_number_value(json_object_get(e, "cycles"));

		if (c >= l3->mem / 2 && b > l2 && b <= size / 2 && (!l3->over || b < l3->over))
			l3->over = b, l3->over_c = c;
	}
	if (!l3->over)
		return;
	json_array_foreach(lat, i, e) {
		double b = json_number_value(json_object_get(e, "bytes"));
		double c = json_number_value(json_object_get(e, "cycles"));

		if (c > 0 && c < l3->mem / 2 && b > l2 && b < l3->over && b > under)
			under = b, l3->under_c = c;
	}
	l3->held = under > 0 ? under : l2;
}

/* peak's chases: each level's latency at half that level's size in g (L3's
 * at the size it holds, where that is less: peak_l3_held), and the largest
 * working set (memory's was measured over). */
static void peak_latencies(json_t *doc, const struct cache_geo g[GEO_NR], double l3_held,
			   double f[MP_NR], bool have[MP_NR])
{
	json_t *a = json_object_get(doc, "latency"), *e;
	double sz[4] = { (double)g[GEO_D1].size / 2, (double)g[GEO_L2].size / 2,
			 l3_held < (double)g[GEO_L3].size ? l3_held : (double)g[GEO_L3].size / 2,
			 1e30 };
	double last = g[GEO_L3].size ? (l3_held < (double)g[GEO_L3].size ? l3_held :
					 (double)g[GEO_L3].size) : (double)g[GEO_L2].size;
	size_t i;

	if (!json_array_size(a))
		return;
	for (int k = 0; k < 4; k++) {
		double c = chase_at(a, sz[k]);

		if (c > 0) {
			f[MP_L1_LAT + k] = c;
			have[MP_L1_LAT + k] = true;
		}
	}
	json_array_foreach(a, i, e) {
		double b = json_number_value(json_object_get(e, "bytes"));

		if (json_number_value(json_object_get(e, "cycles")) > 0 && b > f[MP_DRAM_BYTES]) {
			f[MP_DRAM_BYTES] = b;
			have[MP_DRAM_BYTES] = true;
		}
	}
	/* memory's latency over a smaller set: the smallest chase of at
	 * least 4 times the last level (a ring that an LRU cache misses at
	 * every step, as Valgrind's does; real ones hit it at most a
	 * quarter of the time there), where it is not memory's own */
	json_array_foreach(a, i, e) {
		double b = json_number_value(json_object_get(e, "bytes"));
		double c = json_number_value(json_object_get(e, "cycles"));

		if (c > 0 && last > 0 && b >= 4 * last && b < f[MP_DRAM_BYTES] &&
		    (!have[MP_DRAM_NEAR_BYTES] || b < f[MP_DRAM_NEAR_BYTES])) {
			f[MP_DRAM_NEAR_BYTES] = b;
			f[MP_DRAM_NEAR_LAT] = c;
			have[MP_DRAM_NEAR_BYTES] = have[MP_DRAM_NEAR_LAT] = true;
		}
	}
}

/*
 * A page walk's cycles from peak's TLB test (src/peak/tlb.c): rings of the
 * same lines, all in L2, over more and more pages of 4 KiB. Its fewest
 * pages (within the reach) and its most (past it) differ by the walks of
 * the latter's loads past the reach, a share of 1 - reach / its span of
 * them (tlb.c). Not the latency ladder's chases within and past the reach:
 * they differ in their bytes too, and a shared last level (a VM's, its
 * neighbours') moved them by 2x between runs, which was read as walks of
 * 82 to 496 cycles. A VM's nested paging makes a walk dearer than the
 * documented figure.
 */
static void peak_walk(json_t *doc, double reach, double f[MP_NR], bool have[MP_NR])
{
	double rp = reach / 4096, in_p = 0, in_c = 0, out_p = 0, out_c = 0;
	json_t *e;
	size_t i;

	if (!(rp > 0))
		return;
	json_array_foreach(json_object_get(doc, "tlb"), i, e) {
		double p = json_number_value(json_object_get(e, "pages"));
		double c = json_number_value(json_object_get(e, "cycles"));

		if (!(c > 0) || !(p > 0))
			continue;
		if (p <= rp / 2 && (!in_p || p < in_p))
			in_p = p, in_c = c;
		if (p >= rp * 1.25 && p > out_p)
			out_p = p, out_c = c;
	}
	if (in_p > 0 && out_p > 0 && out_c > in_c) {
		f[MP_TLB_WALK] = (out_c - in_c) / (1 - rp / out_p);
		have[MP_TLB_WALK] = true;
	}
}

/* The figures one peak document measured (have[p]: it measured p). */
static void peak_figures(json_t *doc, const struct cache_geo g[GEO_NR], double reach,
			 double f[MP_NR], bool have[MP_NR], struct l3_held *l3)
{
	static const char *const lvl[4] = { "L1", "L2", "L3", "DRAM" };
	json_t *e, *ind = json_object_get(json_object_get(doc, "branch"), "indirect");
	size_t i;

	memset(have, 0, sizeof(*have) * MP_NR);
	memset(f, 0, sizeof(*f) * MP_NR);
	peak_l3_held(json_object_get(doc, "latency"), g, l3);
	have[MP_GHZ] = peak_figure(doc, "clock", "ghz", &f[MP_GHZ]) && f[MP_GHZ] > 0.1;
	if (!have[MP_GHZ])
		return;		/* no clock, no cycles */
	peak_latencies(doc, g, l3->held, f, have);
	peak_walk(doc, reach, f, have);
	json_array_foreach(json_object_get(doc, "bandwidth"), i, e) {
		const char *lv = json_string_value(json_object_get(e, "level"));
		const char *kn = json_string_value(json_object_get(e, "kernel"));
		double gbps = json_number_value(json_object_get(e, "gbps"));

		if (!lv || !kn || strcmp(kn, "read") ||
		    json_integer_value(json_object_get(e, "threads")) != 1)
			continue;
		for (int k = 0; k < 4; k++)
			if (!strcmp(lv, lvl[k]) && gbps > 0) {
				f[MP_L1_BW + k] = gbps / f[MP_GHZ];
				have[MP_L1_BW + k] = true;
			}
	}
	/* peak's mispredict: a branch on loaded data, refetched and decided
	 * again (src/peak/branch.c) */
	{
		json_t *m = json_object_get(json_object_get(doc, "branch"), "mispredict_cycles");

		if (json_is_number(m) && json_number_value(m) > 0) {
			f[MP_MISPREDICT] = json_number_value(m);
			have[MP_MISPREDICT] = true;
		}
		m = json_object_get(ind, "pattern_missed");
		if (json_is_number(m) && json_number_value(m) >= 0 && json_number_value(m) <= 1) {
			f[MP_INDIRECT] = json_number_value(m);
			have[MP_INDIRECT] = true;
		}
	}
	/* peak's icache and page tests (src/peak/icache.c, page.c) */
	have[MP_IMISS] = peak_figure(doc, "icache", "l1i_miss_cycles", &f[MP_IMISS]);
	have[MP_ISEQ] = peak_figure(doc, "icache", "l1i_seq_miss_cycles", &f[MP_ISEQ]);
	have[MP_FAULT] = peak_figure(doc, "page", "cycles", &f[MP_FAULT]);
	json_array_foreach(json_object_get(doc, "tests"), i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		double c = json_number_value(json_object_get(e, "cycles_per_instr"));
		int p = n && !strcmp(n, "fma.f64.256") ? MP_FMA : n && !strcmp(n, "int.add") ?
			MP_ADD : -1;

		if (p >= 0 && c > 0) {
			f[p] = c;
			have[p] = true;
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A sequential I1 miss's cycles, near 0, agree within this many cycles:
 * a fraction of a cycle a line is the measurement's grain there */
#define ISEQ_BOUND 1.0

/* Runs' figures of price p: the median into *med, and whether they agree
 * within bound (relative; a share, absolute; a sequential I1 miss, within
 * ISEQ_BOUND cycles). */
static bool runs_agree(double *v, size_t nr, enum model_price p, double bound, double *med,
		       double *spread)
{
	gx_qsort(v, nr, sizeof(*v), cmp_double);
	*med = nr % 2 ? v[nr / 2] : (v[nr / 2 - 1] + v[nr / 2]) / 2;
	*spread = v[nr - 1] - v[0];
	if (p == MP_INDIRECT)
		return *spread <= bound;
	if (p == MP_ISEQ)
		return *spread <= ISEQ_BOUND;
	if (*med > 0)
		*spread /= *med;
	else if (*spread > 0)
		*spread = INFINITY;
	return *spread <= bound;
}

/* GX_TEST_PEAK_VARY=KEY (tests only): run r's figure KEY times 1 + r / 2,
 * so that a figure that varies between runs is seen refused. */
static void test_vary(double f[MP_NR], size_t r)
{
	const char *k = getenv("GX_TEST_PEAK_VARY");

	for (int p = 0; k && p < MP_NR; p++)
		if (!strcmp(k, model_price_key(p)))
			f[p] = p == MP_INDIRECT ? (r % 2 ? 1.0 : 0.0) : f[p] * (1 + 0.5 * (double)r);
}

/* This machine's caches (g, as sysfs or CPUID give them) into mm, each
 * level said read where; the base's where neither gave one. */
static void peak_geometry(struct model_machine *mm, const struct cache_geo g[GEO_NR],
			  const bool from_sysfs[GEO_NR])
{
	char host[256] = "this machine";

	if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "this machine");
	for (int k = 0; k < GEO_NR; k++) {
		int ps = MP_L1I_SIZE + 2 * k;

		if (!g[k].size)
			continue;
		mm->price[ps] = (double)g[k].size;
		mm->price[ps + 1] = g[k].assoc;
		for (int p = ps; p <= ps + 1; p++) {
			free(mm->source[p]);
			mm->source[p] = xasprintf("read by gexplore peak --save on %s from %s (sets "
						  "rounded down to a power of two, as callgrind "
						  "simulates)", gx_esc(host), from_sysfs[k] ?
						  "sysfs" : "CPUID");
		}
		if (k == GEO_D1 && g[k].line) {
			mm->price[MP_LINE] = g[k].line;
			free(mm->source[MP_LINE]);
			mm->source[MP_LINE] = xasprintf("read by gexplore peak --save on %s from %s",
							gx_esc(host), from_sysfs[k] ? "sysfs" :
							"CPUID");
		}
	}
}

/* The runs' figures x[0..nr) as "A" or "A-B" (their least and most, whole). */
static char *range_of(const double *x, size_t nr)
{
	double lo = INFINITY, hi = 0;

	for (size_t r = 0; r < nr; r++) {
		lo = x[r] < lo ? x[r] : lo;
		hi = x[r] > hi ? x[r] : hi;
	}
	return lround(lo) == lround(hi) ? xasprintf("%.0f", lo) : xasprintf("%.0f-%.0f", lo, hi);
}

/* The L3's size in mm: the size it holds of a chase (peak_l3_held) where
 * every run says the same size, less than g's; the runs disagreeing, g's,
 * and said. */
static void peak_l3_size(struct model_machine *mm, const struct l3_held *l3, size_t nr,
			 const struct cache_geo g[GEO_NR], const bool from_sysfs[GEO_NR],
			 const char *host, const char *cpu, char ***notes, size_t *nr_notes)
{
	double size = (double)g[GEO_L3].size, lo = INFINITY, hi = 0, *x[3];
	const char *from = from_sysfs[GEO_L3] ? "sysfs" : "CPUID";
	char *c[3], *kept;

	for (size_t r = 0; r < nr; r++) {
		lo = l3[r].held < lo ? l3[r].held : lo;
		hi = l3[r].held > hi ? l3[r].held : hi;
	}
	if (!nr || lo >= size)
		return;
	if (lo != hi) {
		gx_strv_addf(notes, nr_notes, "l3_size: the L3 this core gets, by the latency "
			     "ladder's chases, varied between %zu runs (%.0f to %.0f KiB; other cores, "
			     "a VM's neighbours, share it): not saved, %s's %.0f KiB kept", nr,
			     lo / 1024, hi / 1024, from, size / 1024);
		return;
	}
	for (int k = 0; k < 3; k++) {
		x[k] = xcalloc(nr, sizeof(double));
		for (size_t r = 0; r < nr; r++)
			x[k][r] = k == 0 ? l3[r].over_c : k == 1 ? l3[r].under_c : l3[r].mem;
		c[k] = range_of(x[k], nr);
	}
	kept = l3[0].under_c > 0 ?
		xasprintf("one over %.0f KiB %s, the largest under half", lo / 1024, c[1]) :
		xstrdup("none past L2 under half: L2's size, an L3 that holds none of it");
	mm->price[MP_L3_SIZE] = lo;
	free(mm->source[MP_L3_SIZE]);
	mm->source[MP_L3_SIZE] =
		xasprintf("measured on %s (%s) by gexplore peak --save, the same in its %zu runs: "
			  "the L3 this core gets, less than the %.0f KiB %s gives (other cores, a "
			  "VM's neighbours, keep the rest): a chase over %.0f KiB cost %s cycles a "
			  "load, at least half of one over %.0f KiB, past the L3 (%s: memory's); %s",
			  gx_esc(host), gx_esc(cpu), nr, size / 1024, from, l3[0].over / 1024, c[0],
			  l3[0].past / 1024, c[2], kept);
	free(kept);
	for (int k = 0; k < 3; k++) {
		free(c[k]);
		free(x[k]);
	}
}

void model_machine__from_peak(struct model_machine *mm, const struct model_machine *base,
			      json_t *const *docs, size_t nr, double bound, const char *name,
			      char ***notes, size_t *nr_notes)
{
	struct cache_geo g[GEO_NR];
	bool from_sysfs[GEO_NR], have[MP_NR];
	char *l3_note = NULL, *where;
	double (*f)[MP_NR] = xcalloc(nr ? nr : 1, sizeof(*f)), *v = xcalloc(nr + 1, sizeof(*v));
	struct l3_held *l3 = xcalloc(nr ? nr : 1, sizeof(*l3));
	unsigned runs_with[MP_NR] = { 0 };
	bool one_dram;
	json_t *mach = nr ? json_object_get(docs[0], "machine") : NULL;
	struct model_cpu c;

	model_cpu_detect(&c);
	model_cache_geometry(g, from_sysfs, c.vendor[0] ? c.vendor : NULL, &l3_note);
	free(l3_note);
	for (size_t r = 0; r < nr; r++) {
		peak_figures(docs[r], g, base->price[MP_TLB_REACH], f[r], have, &l3[r]);
		test_vary(f[r], r);
		for (int p = 0; p < MP_NR; p++)
			runs_with[p] += have[p];
	}
	where = xasprintf("measured on %s (%s) by gexplore peak --save: the median of %zu runs, "
			  "within %.0f%% of one another",
			  json_string_value(json_object_get(mach, "hostname")) ?: "this machine",
			  json_string_value(json_object_get(mach, "cpu")) ?: "?", nr, 100 * bound);
	memset(mm, 0, sizeof(*mm));
	mm->name = xstrdup(name);
	mm->title = xasprintf("measured here, over %s", base->name);
	mm->mcpu = xstrdup(base->mcpu);
	mm->mcpu_source = xstrdup(base->mcpu_source);
	for (int p = 0; p < MP_NR; p++) {
		double med, spread;

		mm->price[p] = base->price[p];
		if (!nr || runs_with[p] != nr)
			continue;
		for (size_t r = 0; r < nr; r++)
			v[r] = f[r][p];
		if (runs_agree(v, nr, p, bound, &med, &spread)) {
			mm->price[p] = med;
			mm->source[p] = p == MP_ISEQ ? xasprintf("%s (this one within %g cycle)",
								  where, ISEQ_BOUND) :
				xstrdup(where);
		} else if (p == MP_ISEQ) {
			gx_strv_addf(notes, nr_notes, "%s varied %.2f cycles between %zu runs (%g to "
				     "%g), beyond the bound of %g cycle: not saved, %s's figure (%g) "
				     "kept", model_price_key(p), spread, nr, v[0], v[nr - 1],
				     ISEQ_BOUND, base->name, base->price[p]);
		} else {
			gx_strv_addf(notes, nr_notes, "%s varied %.0f%s between %zu runs (%g to %g), "
				     "beyond the bound of %.0f%s: not saved, %s's figure (%g) kept",
				     model_price_key(p), 100 * spread,
				     p == MP_INDIRECT ? " points" : "%", nr, v[0], v[nr - 1],
				     100 * bound, p == MP_INDIRECT ? " points" : "%", base->name,
				     base->price[p]);
		}
	}
	/* memory's latency by the set's size where both of its latencies
	 * were saved; else one for every set, the one saved or kept */
	one_dram = !mm->source[MP_DRAM_LAT] || !mm->source[MP_DRAM_NEAR_LAT] ||
		   !mm->source[MP_DRAM_NEAR_BYTES];
	peak_geometry(mm, g, from_sysfs);
	peak_l3_size(mm, l3, nr, g, from_sysfs,
		     json_string_value(json_object_get(mach, "hostname")) ?: "this machine",
		     json_string_value(json_object_get(mach, "cpu")) ?: "?", notes, nr_notes);
	for (int p = 0; p < MP_NR; p++)
		if (!mm->source[p])
			mm->source[p] = xstrdup(base->source[p]);
	if (one_dram)
		model_machine__one_dram(mm, "memory's latency by the set's size is saved where "
					"both of its latencies are");
	free(where);
	free(l3);
	free(v);
	free(f);
}

/* ---- the costs a description gives ----------------------------------------- */

void model_machine_costs(struct machine_costs *mc, const struct model_machine *mm)
{
	memset(mc, 0, sizeof(*mc));
	mc->ghz = mm->price[MP_GHZ];
	for (int k = 0; k < 4; k++) {
		mc->lat[k] = mm->price[MP_L1_LAT + k];
		mc->bw[k] = mm->price[MP_L1_BW + k];
	}
	mc->lat_bytes = mm->price[MP_DRAM_BYTES];
	mc->near_lat = mm->price[MP_DRAM_NEAR_LAT];
	mc->near_bytes = mm->price[MP_DRAM_NEAR_BYTES];
	mc->measured = model_machine__measured(mm, MP_DRAM_LAT) ||
		       model_machine__measured(mm, MP_L2_LAT);
	mc->penalty = mm->price[MP_MISPREDICT];
	mc->penalty_measured = model_machine__measured(mm, MP_MISPREDICT);
	mc->ind_missed = mm->price[MP_INDIRECT];
	mc->ind_measured = model_machine__measured(mm, MP_INDIRECT);
	mc->imiss = mm->price[MP_IMISS];
	mc->imiss_measured = model_machine__measured(mm, MP_IMISS);
	mc->iseq = mm->price[MP_ISEQ];
	mc->fault = mm->price[MP_FAULT];
	mc->fault_measured = model_machine__measured(mm, MP_FAULT);
	mc->reach = mm->price[MP_TLB_REACH];
	mc->walk = mm->price[MP_TLB_WALK];
	mc->l3_measured = model_machine__measured(mm, MP_L3_LAT);
	/* peak measured L3's latency over the size it holds where it measured
	 * that (peak_l3_held), else over half the size given */
	mc->l3_held = model_machine__measured(mm, MP_L3_SIZE);
	mc->fma_tput = mm->price[MP_FMA];
	mc->add_tput = mm->price[MP_ADD];
	/* a farther level is no faster than a nearer one (a measurement's
	 * noise or a hand-written file can say otherwise): so pricing grows
	 * with the level that serves a miss */
	/* a chase measured past the TLB's reach paid walks that the model
	 * prices apart (tlb.c) */
	if (model_machine__measured(mm, MP_DRAM_LAT))
		mc->lat[3] -= model_tlb_in_latency(mc->lat_bytes, mc->reach, mc->walk);
	if (model_machine__measured(mm, MP_DRAM_NEAR_LAT))
		mc->near_lat -= model_tlb_in_latency(mc->near_bytes, mc->reach, mc->walk);
	for (int k = 1; k < 4; k++) {
		if (mc->lat[k] < mc->lat[k - 1])
			mc->lat[k] = mc->lat[k - 1];
		if (mc->bw[k] > mc->bw[k - 1])
			mc->bw[k] = mc->bw[k - 1];
	}
	/* and a larger set no faster than a smaller one */
	if (mc->near_lat < mc->lat[2])
		mc->near_lat = mc->lat[2];
	if (mc->near_lat > mc->lat[3])
		mc->near_lat = mc->lat[3];
}
