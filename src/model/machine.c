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

/* peak's chases: each level's latency at half that level's size in g, and
 * the largest working set (memory's was measured over). */
static void peak_latencies(json_t *doc, const struct cache_geo g[GEO_NR], double f[MP_NR],
			   bool have[MP_NR])
{
	json_t *a = json_object_get(doc, "latency"), *e;
	double sz[4] = { (double)g[GEO_D1].size / 2, (double)g[GEO_L2].size / 2,
			 (double)g[GEO_L3].size / 2, 1e30 };
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
			 double f[MP_NR], bool have[MP_NR])
{
	static const char *const lvl[4] = { "L1", "L2", "L3", "DRAM" };
	json_t *e, *ind = json_object_get(json_object_get(doc, "branch"), "indirect");
	size_t i;

	memset(have, 0, sizeof(*have) * MP_NR);
	memset(f, 0, sizeof(*f) * MP_NR);
	have[MP_GHZ] = peak_figure(doc, "clock", "ghz", &f[MP_GHZ]) && f[MP_GHZ] > 0.1;
	if (!have[MP_GHZ])
		return;		/* no clock, no cycles */
	peak_latencies(doc, g, f, have);
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

void model_machine__from_peak(struct model_machine *mm, const struct model_machine *base,
			      json_t *const *docs, size_t nr, double bound, const char *name,
			      char ***notes, size_t *nr_notes)
{
	struct cache_geo g[GEO_NR];
	bool from_sysfs[GEO_NR], have[MP_NR];
	char *l3_note = NULL, *where;
	double (*f)[MP_NR] = xcalloc(nr ? nr : 1, sizeof(*f)), *v = xcalloc(nr + 1, sizeof(*v));
	unsigned runs_with[MP_NR] = { 0 };
	json_t *mach = nr ? json_object_get(docs[0], "machine") : NULL;
	struct model_cpu c;

	model_cpu_detect(&c);
	model_cache_geometry(g, from_sysfs, c.vendor[0] ? c.vendor : NULL, &l3_note);
	free(l3_note);
	for (size_t r = 0; r < nr; r++) {
		peak_figures(docs[r], g, base->price[MP_TLB_REACH], f[r], have);
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
	peak_geometry(mm, g, from_sysfs);
	for (int p = 0; p < MP_NR; p++)
		if (!mm->source[p])
			mm->source[p] = xstrdup(base->source[p]);
	free(where);
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
	mc->fma_tput = mm->price[MP_FMA];
	mc->add_tput = mm->price[MP_ADD];
	/* a farther level is no faster than a nearer one (a measurement's
	 * noise or a hand-written file can say otherwise): so pricing grows
	 * with the level that serves a miss */
	/* a chase measured past the TLB's reach paid walks that the model
	 * prices apart (tlb.c) */
	if (model_machine__measured(mm, MP_DRAM_LAT))
		mc->lat[3] -= model_tlb_in_latency(mc->lat_bytes, mc->reach, mc->walk);
	for (int k = 1; k < 4; k++) {
		if (mc->lat[k] < mc->lat[k - 1])
			mc->lat[k] = mc->lat[k - 1];
		if (mc->bw[k] > mc->bw[k - 1])
			mc->bw[k] = mc->bw[k - 1];
	}
}
