/* model-int.h: private to src/model. */
#ifndef GX_MODEL_INT_H
#define GX_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model.h"

#define MIB ((uint64_t)1 << 20)

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
	bool penalty_measured;	/* by `gexplore peak` (else documented, by vendor) */
	/* the share of callgrind's indirect mispredicts priced: what share of
	 * a repeating sequence of targets, all of which callgrind's
	 * last-target simulator misses, `gexplore peak` measured this core
	 * to miss (1 where peak measured none) */
	double ind_missed;
	bool ind_measured;
	bool measured;		/* from `gexplore peak`'s stored results */
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

/* What peak measured of this machine (its stored results), each level's
 * latency at half that level's size in g; documented figures where it
 * measured nothing; the mispredict penalty peak measured, else a
 * documented one by vendor. */
void model_machine_costs(struct machine_costs *mc, const struct cache_geo g[GEO_NR],
			 const char *vendor);

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

/* ---- the programs it runs, and their files (valgrind.c) --------------------- */

/* The Valgrind runs: the first pass, and the second's two ways (second_pass). */
enum model_pass {
	PASS_FULL,		/* callgrind, jumps and branches: callgrind.out.PID-NN */
	PASS_INSNS,		/* callgrind, caches only: callgrind-l2.out.PID-NN */
	PASS_LINES,		/* cachegrind: cachegrind-l2.out.PID */
};

/* The private directory every tool writes in: DIR/.gx-model-XXXXXX, 0700,
 * made by this process and held open (fd); path is its absolute name, for
 * the tools. */
struct model_scratch {
	int fd, parent;		/* it, and the result directory (borrowed) */
	char *name, *path;
	bool keep;		/* --keep-valgrind: Valgrind's files move to parent at the end */
};

/* Make it in the result directory dirfd. 0, or a negative code with *cause. */
int model_scratch__create(struct model_scratch *s, int dirfd, bool keep, char **cause);
/* A new file name in it, read-write, 0600: its descriptor or -errno. */
int model_scratch__open(const struct model_scratch *s, const char *name);
/* len bytes into its file name: that file's absolute path (allocated), or
 * NULL with *err. */
char *model_scratch__put(const struct model_scratch *s, const char *name, const void *data,
			 size_t len, int *err);
/* Remove it and what is in it (with keep, Valgrind's files moved into the
 * result directory first, 0600). s zeroed; a zeroed s: nothing. */
void model_scratch__exit(struct model_scratch *s);

/* Run argv (llvm's tools, found on PATH) with stdin /dev/null, its output
 * and errors through files of s into *out and *err_text (NULL: not wanted),
 * allocated (NULL when empty or unreadable). It dies with gexplore. Its exit status
 * (128+N for signal N), or a negative errno when it could not be started. */
int model_tool(const struct model_scratch *s, char *const *argv, char **out, char **err_text);

/* SIGINT, SIGTERM and SIGHUP caught from __catch to __restore (one
 * ignored at the start stays so): model_vg__wait passes them on. */
void model_stop__catch(void);
void model_stop__restore(void);
/* The first caught, 0: none. */
int model_stop__signal(void);
/* How many were caught. */
unsigned model_stop__count(void);

/* One Valgrind run, under the keeper (collect_child). */
struct model_vg {
	struct collect_child *c;
	enum model_pass how;
	pid_t pid;		/* Valgrind's (the workload's), 0 once ended */
};

/* Start a run of o->argv, its files in s, geo[] its I1, D1 and LL (size 0:
 * Valgrind's default); only the first pass shows the workload's output.
 * 0, or a negative code with *cause. */
int model_vg__start(struct model_vg *v, const char *valgrind, const struct model_opts *o,
		    const struct model_scratch *s, enum model_pass how,
		    const struct cache_geo geo[3], char **cause);
/* Wait for it to end: a stop signal caught meanwhile goes to it and every
 * process under its keeper (again every half second; the third: SIGKILL),
 * and at deadline (gx_now_ns()'s clock; 0: none) SIGTERM does; once it
 * ended, what is left under the keeper gets SIGTERM, then SIGKILL. *stopped
 * gets the first signal caught, or -1 when the deadline stopped it; one
 * set already on the call (a stopped run's second pass) stops it at once.
 * The workload's status (128+N: killed by N), or -ECHILD. */
int model_vg__wait(struct model_vg *v, uint64_t deadline, int *stopped);
/* Its output files into p (callgrind's) or l (cachegrind's), each removed
 * once read unless s->keep. GX_E_CHILD when there are none. */
int model_vg__read(struct model_vg *v, const struct model_opts *o, const struct model_scratch *s,
		   struct cg_profile *p, struct cg_lines *l, char **cause);
/* After a run that ended by SIGILL: GX_E_CHILD with a one-line *cause
 * naming the instruction and its address where a log of it says Valgrind
 * could not run it (and a process died of it), else 0. */
int model_vg__unrecognised(const struct model_vg *v, const struct model_scratch *s,
			   char **cause);
/* Let go: killed with its tree when it still runs. */
void model_vg__exit(struct model_vg *v);

#endif /* GX_MODEL_INT_H */
