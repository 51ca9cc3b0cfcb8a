/*
 * machine.c: what record --model knows of this machine: its caches'
 * geometry (sysfs, else CPUID) and what `gexplore peak` measured of it
 * (latencies, bandwidths, the clock, FMA throughput), else documented
 * typical figures.
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
#include "peak/peak.h"
#include "util/util.h"

/* ---- this machine's caches ------------------------------------------------ */

static uint64_t read_u64(const char *dir, const char *f)
{
	char *p = xasprintf("%s/%s", dir, f), *t = gx_read_file(p, 64);
	uint64_t v = 0;
	char *e;

	if (t) {
		v = strtoull(t, &e, 10);
		if (*e == 'K')
			v <<= 10;
		else if (*e == 'M')
			v <<= 20;
	}
	free(t);
	free(p);
	return v;
}

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
	for (int i = 0; i < 10; i++) {
		char *d = xasprintf("%s/index%d", root, i);
		char *ty = xasprintf("%s/type", d), *t = gx_read_file(ty, 64);
		uint64_t lvl = read_u64(d, "level");
		int k = -1;

		if (t && lvl == 1)
			k = !strncmp(t, "Instruction", 11) ? GEO_I1 : !strncmp(t, "Data", 4) ? GEO_D1 : -1;
		else if (t && (lvl == 2 || lvl == 3))
			k = lvl == 2 ? GEO_L2 : GEO_L3;
		if (k >= 0) {
			g[k].size = read_u64(d, "size");
			g[k].assoc = (unsigned)read_u64(d, "ways_of_associativity");
			g[k].line = (unsigned)read_u64(d, "coherency_line_size");
			from_sysfs[k] = g[k].size > 0;
		}
		free(t);
		free(ty);
		free(d);
	}
	for (int k = 0; k < GEO_NR; k++) {
		uint64_t sets;

		if (!g[k].size) {
			long s = sysconf(sc[k][0]), a = sysconf(sc[k][1]), l = sysconf(sc[k][2]);

			g[k].size = s > 0 ? (uint64_t)s : 0;
			g[k].assoc = a > 0 ? (unsigned)a : 0;
			g[k].line = l > 0 ? (unsigned)l : 0;
		}
		if (k == GEO_L3 && g[k].size)
			g[k].size = model_l3_plausible(vendor, g[k].size, from_sysfs[k], note);
		if (!g[k].size)
			continue;
		if (!g[k].line)
			g[k].line = 64;
		if (!g[k].assoc)
			g[k].assoc = k < GEO_L2 ? 8 : 16;
		sets = g[k].size / ((uint64_t)g[k].assoc * g[k].line);
		while (sets & (sets - 1))
			sets &= sets - 1;
		if (!sets)
			sets = 1;
		g[k].size = sets * g[k].assoc * g[k].line;
	}
}

/* ---- the measured machine: `gexplore peak`'s stored results --------------- */

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

void model_machine_costs(struct machine_costs *mc, const struct cache_geo g[GEO_NR],
			 const char *vendor)
{
	static const char *const lvl[4] = { "L1", "L2", "L3", "DRAM" };
	char *path = peak_cache_path();
	json_t *doc = path ? json_load_file(path, 0, NULL) : NULL, *a, *e;
	size_t i;

	/* documented typical figures: Zen 3/4, Skylake-class (cycles, B/cycle) */
	*mc = (struct machine_costs){ .ghz = 3.0, .lat = { 4, 14, 50, 300 },
				      .bw = { 64, 32, 16, 6 }, .penalty = 16, .ind_missed = 1 };
	if (vendor && !strcmp(vendor, "AuthenticAMD"))
		mc->penalty = 14;	/* AMD's software optimization guide: 11-18 */
	else if (!vendor || !*vendor)
		mc->penalty = 11;	/* Neoverse N1/V1 guides */
	if (!doc)
		goto out;
	mc->ghz = json_number_value(json_object_get(json_object_get(doc, "clock"), "ghz"));
	if (!(mc->ghz > 0.1))
		mc->ghz = 3.0;
	a = json_object_get(doc, "latency");
	if (json_array_size(a)) {
		double sz[4] = { (double)g[GEO_D1].size / 2, (double)g[GEO_L2].size / 2,
				 (double)g[GEO_L3].size / 2, 1e30 };

		for (int k = 0; k < 4; k++) {
			double c = chase_at(a, sz[k]);

			if (c > 0)
				mc->lat[k] = c;
		}
		json_array_foreach(a, i, e) {
			double b = json_number_value(json_object_get(e, "bytes"));

			if (json_number_value(json_object_get(e, "cycles")) > 0 && b > mc->lat_bytes)
				mc->lat_bytes = b;
		}
		mc->measured = true;
	}
	json_array_foreach(json_object_get(doc, "bandwidth"), i, e) {
		const char *lv = json_string_value(json_object_get(e, "level"));
		const char *kn = json_string_value(json_object_get(e, "kernel"));
		double gbps = json_number_value(json_object_get(e, "gbps"));

		if (!lv || !kn || strcmp(kn, "read") || json_integer_value(json_object_get(e, "threads")) != 1)
			continue;
		for (int k = 0; k < 4; k++)
			if (!strcmp(lv, lvl[k]) && gbps > 0)
				mc->bw[k] = gbps / mc->ghz;
	}
	/* peak's mispredict: a branch on loaded data, refetched and decided
	 * again (src/peak/branch.c); older results have none */
	{
		double p = json_number_value(json_object_get(json_object_get(doc, "branch"),
							     "mispredict_cycles"));

		json_t *ind = json_object_get(json_object_get(doc, "branch"), "indirect");

		if (p > 0) {
			mc->penalty = p;
			mc->penalty_measured = true;
		}
		p = json_number_value(json_object_get(ind, "pattern_missed"));
		if (json_is_number(json_object_get(ind, "pattern_missed")) && p >= 0 && p <= 1) {
			mc->ind_missed = p;
			mc->ind_measured = true;
		}
	}
	/* peak's icache and page tests (src/peak/icache.c, page.c); older
	 * results have neither */
	mc->imiss_measured = peak_figure(doc, "icache", "l1i_miss_cycles", &mc->imiss);
	mc->fault_measured = peak_figure(doc, "page", "cycles", &mc->fault);
	json_array_foreach(json_object_get(doc, "tests"), i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));

		if (n && !strcmp(n, "fma.f64.256"))
			mc->fma_tput = json_number_value(json_object_get(e, "cycles_per_instr"));
		else if (n && !strcmp(n, "int.add"))
			mc->add_tput = json_number_value(json_object_get(e, "cycles_per_instr"));
	}
	/* a farther level is no faster than a nearer one (a measurement's
	 * noise can say otherwise): so pricing grows with the level that
	 * serves a miss, and the L2/L3 split is bounded by its two ends */
	for (int k = 1; k < 4; k++) {
		if (mc->lat[k] < mc->lat[k - 1])
			mc->lat[k] = mc->lat[k - 1];
		if (mc->bw[k] > mc->bw[k - 1])
			mc->bw[k] = mc->bw[k - 1];
	}
out:
	if (!mc->imiss_measured)
		mc->imiss = mc->lat[1] - mc->lat[0];
	json_decref(doc);
	free(path);
}
