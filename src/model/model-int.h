/* model-int.h: private to src/model. */
#ifndef GX_MODEL_INT_H
#define GX_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

/* Run argv with stdin from /dev/null, stdout to out_path and stderr to
 * err_path (NULL: /dev/null). The exit status (128+N for signal N), or a
 * negative errno when it could not be started. */
int model_spawn(char *const *argv, const char *out_path, const char *err_path);

#define MIB ((uint64_t)1 << 20)

/* ---- this CPU (description.c) --------------------------------------------- */

/* /proc/cpuinfo's vendor, family and model (x86), or Arm's implementer
 * and part; zeros where it says none. */
struct model_cpu {
	char vendor[16];
	int family, model;
	unsigned implementer, part;
};

void model_cpu_detect(struct model_cpu *c);

/* ---- this machine (machine.c) ---------------------------------------------- */

struct cache_geo {
	uint64_t size;
	unsigned assoc, line;
};

enum { GEO_I1, GEO_D1, GEO_L2, GEO_L3, GEO_NR };

/* sysfs' cpu0 caches (GX_TEST_MODEL_SYSFS: another directory, tests
 * only), else glibc's (CPUID), the L3 through model_l3_plausible (*note:
 * its note or NULL, allocated); sets rounded down to a power of two, as
 * callgrind's simulator wants. from_sysfs[k]: level k came from sysfs. */
void model_cache_geometry(struct cache_geo g[GEO_NR], bool from_sysfs[GEO_NR],
			  const char *vendor, char **note);

struct machine_costs {
	double ghz;
	double lat[4];		/* cycles of a dependent load served by L1, L2, L3, DRAM */
	double lat_bytes;	/* the working set DRAM's was measured over, 0: documented */
	double bw[4];		/* bytes a cycle, one core reading from that level */
	double penalty;		/* cycles a mispredict costs */
	bool penalty_measured;	/* the description says measured (else documented) */
	/* the share of callgrind's indirect mispredicts priced: what share of
	 * a repeating sequence of targets, all of which callgrind's
	 * last-target simulator misses, `gexplore peak` measured this core
	 * to miss (1 where peak measured none) */
	double ind_missed;
	bool ind_measured;
	bool measured;		/* latencies measured (by `gexplore peak --save`) */
	double fma_tput;	/* peak's cycles per vfmadd231pd ymm, 0: none */
	double add_tput;	/* peak's cycles per independent add r64, 0: none */
	/* cycles of the program's own (user) time a page's first touch costs,
	 * as peak's page test measured (near 0 on bare metal, where the
	 * kernel's time is the fault's); 0 where it measured none */
	double fault;
	bool fault_measured;
	/* cycles an L1I miss that L2 serves costs on a predicted path, as
	 * peak's icache test measured; L2's data latency less L1's where it
	 * measured none */
	double imiss;
	bool imiss_measured;
};

/* The costs description mm gives; the flags say which figures it says
 * were measured; a farther level's latency is raised to a nearer one's,
 * its bandwidth lowered to it. */
void model_machine_costs(struct machine_costs *mc, const struct model_machine *mm);

/* The L3 size to simulate: l3 itself, unless it came from CPUID (not
 * sysfs: from_sysfs false) on an AMD CPU and is more than one CCD's L3
 * can be (96 MiB, 3D V-Cache's): one core uses its own CCD's L3 only, so
 * a figure summed over the package (a VM's CPUID said 508 MiB) is
 * simulated as 32 MiB, Zen 3 to 5's CCD, and *note (allocated) says so;
 * else *note is NULL. */
uint64_t model_l3_plausible(const char *vendor, uint64_t l3, bool from_sysfs, char **note);

/* ---- where a mispredict's cycles show (model.c) ---------------------------- */

/* The share of a conditional branch's mispredicts made on its taken way,
 * taken of its execs executions taken: callgrind's predictor (2-bit
 * counters) on outcomes each independent of the last. A 50:50 random
 * branch is missed either way alike (0.5), a predictable one on its rarer
 * way (a loop's exit, taken 99 times in 100: 0.01). 0.5 when execs is 0. */
double model_miss_split(uint64_t taken, uint64_t execs);

/* A conditional branch's mispredicts as priced: callgrind's misses, at
 * most its rarer way's count (taken of execs executions taken; taken
 * over execs counts as execs), what predicting its more frequent way
 * misses. */
double model_miss_bound(uint64_t misses, uint64_t taken, uint64_t execs);

/* Each of p's instructions' conditional mispredicts as priced, into
 * bcm[0 .. p->nr_insns): model_miss_bound of its count, its jumps' taken
 * count (none: never taken) and its executions; as counted where p has no
 * jumps at all. Returns how many were beyond the bound, summed. */
uint64_t model_bias_bound(const struct cg_profile *p, double *bcm);

#endif /* GX_MODEL_INT_H */
