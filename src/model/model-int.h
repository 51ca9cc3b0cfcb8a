/* model-int.h: private to src/model. */
#ifndef GX_MODEL_INT_H
#define GX_MODEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "model.h"
#include "util/util.h"

#define MIB ((uint64_t)1 << 20)

/* ---- this CPU (description.c) --------------------------------------------- */

/* /proc/cpuinfo's vendor, family and model (x86), or Arm's implementer
 * and part; zeros where it says none. */
struct model_cpu {
	char vendor[16];
	int family, model;
	unsigned implementer, part;
	bool guest;		/* x86's "hypervisor" flag: a virtual machine */
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
/* The caches description mm gives, as callgrind simulates them (sets
 * rounded down to a power of two; an L3 of size 0: none). What record
 * --model simulates: never this machine's. */
void model_machine_geometry(struct cache_geo g[GEO_NR], const struct model_machine *mm);

struct machine_costs {
	double ghz;
	double lat[4];		/* cycles of a dependent load served by L1, L2, L3, DRAM */
	double lat_bytes;	/* the working set DRAM's was measured over, 0: documented */
	/* memory's latency over a set of near_bytes, past the last level:
	 * lat[3] over lat_bytes, the larger (memory's latency by the set's
	 * size: model_dram_at); near_bytes 0: lat[3] for every set */
	double near_lat, near_bytes;
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
	double imiss;		/* an I1 miss at a block's first instruction */
	double iseq;		/* one inside a block: on a sequential path */
	bool imiss_measured;
	/* the bytes the TLB maps, and the cycles a walk costs (0: none
	 * priced); lat[3] is the measured latency less the walks it had */
	double reach, walk;
	bool l3_measured;	/* by peak, over half the last level... */
	bool l3_held;		/* ... or over all of it, where peak measured its size */
};

/* The costs description mm gives; the flags say which figures it says
 * were measured; a farther level's latency is raised to a nearer one's,
 * its bandwidth lowered to it. */
void model_machine_costs(struct machine_costs *mc, const struct model_machine *mm);
/* Memory's one latency for every set in mm: its near prices memory's own,
 * their sources saying so and why (description.c). */
void model_machine__one_dram(struct model_machine *mm, const char *why);

/* The L3 size to simulate: l3 itself, unless it came from CPUID (not
 * sysfs: from_sysfs false) on an AMD CPU and is more than one CCD's L3
 * can be (96 MiB, 3D V-Cache's): one core uses its own CCD's L3 only, so
 * a figure summed over the package (a VM's CPUID said 508 MiB) is
 * simulated as 32 MiB, Zen 3 to 5's CCD, and *note (allocated) says so;
 * else *note is NULL. */
uint64_t model_l3_plausible(const char *vendor, uint64_t l3, bool from_sysfs, char **note);

/* ---- address translation (tlb.c) ----------------------------------------- */

/* The TLB misses of an instruction that made acc data accesses, miss of
 * them missing a cache of `cache` bytes, as accesses at random would have
 * them, for a TLB that maps reach bytes: none where its working set so
 * estimated is within the reach; at most acc. */
double model_tlb_misses(double acc, double miss, double cache, double reach);

/* The cycles of walks in the latency a random chase over bytes measured:
 * walk times the share of its loads beyond the reach. */
double model_tlb_in_latency(double bytes, double reach, double walk);

/* The bytes an instruction's data accesses span, as far as its counts
 * tell: acc accesses, m3 of them missing a last level of ll bytes, tlb
 * of them missing a TLB that maps reach bytes as counted (-1: not
 * counted), of a program whose first touches came to `touched` bytes. */
double model_set_bytes(double acc, double m3, double ll, double tlb, double reach,
		       double touched);

/* Memory's latency (cycles) for a load of a set of `set` bytes. */
double model_dram_at(const struct machine_costs *mc, double set);

/* Whether AT&T instruction t reads memory into a register (a memory
 * operand before its last). */
bool model_insn_is_load(const char *t);

/* chains.c: the general registers (bit 0 rax ... 15 r15) AT&T instruction
 * t reads and writes, and whether it is a load (model_insn_is_load). */
void model_insn_rw(const char *t, unsigned *reads, unsigned *writes, bool *load);
/* chains.c: a loop body's cycles a turn by its chain of latencies alone
 * (no unit busy): its n instructions (AT&T text) each at lat[i] cycles
 * after the last of the general registers and flags it reads is
 * written, followed round the loop until each turn adds the same; NAN
 * where an instruction has no text or latency. Loads are at their
 * latency from every register they read (an overestimate where a chain
 * runs through the other operand of a load-op). */
double model_loop_recurrence(const char *const *text, const double *lat, size_t n);

/* The cache of pages the second pass simulates as the TLB: reach / page
 * entries, its sets a power of two (size 0: none). */
void model_tlb_geometry(struct cache_geo *g, double reach, unsigned page);

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

/* ---- objects: where callgrind's addresses lie in the files --------------- */

struct model_obj {
	const char *path;	/* callgrind's name (borrowed) */
	bool file;		/* an ELF file we could read */
	uint64_t bias;		/* callgrind's address - the file's vaddr */
	uint64_t base;		/* where the samples put it: its own 1 TiB */
	struct { uint64_t vaddr, memsz, offset, filesz; uint32_t flags; } load[8];
	int nr_load;
	uint16_t machine;	/* its ELF e_machine */
	uint64_t lo, hi;	/* callgrind addresses of its instructions */
	bool hot;
};

/* ---- threads and processes (tasks.c) -------------------------------------- */

/* total shared out over out[0 .. n) in proportion to w[] by the largest
 * remainder: the shares sum to total exactly (ties to the lower index);
 * all w 0: everything to out[0]. */
void model_split(uint64_t total, const uint64_t *w, size_t n, uint64_t *out);
/* The same for fractional weights (their sum need not be 1). */
void model_split_d(uint64_t total, const double *w, size_t n, uint64_t *out);

/*
 * Each part (callgrind file) of cg as a task of the result: its pid (the
 * file's, else dflt_pid), a tid (the pid for callgrind's thread 1, else
 * the next number above the pid that no process and no other thread has:
 * callgrind numbers threads, it does not know their tids; a thread's dumps
 * share one), its program's name (the command line's first word's file
 * name, else dflt_comm); and each part's own counts of its instructions
 * (c, per pin of cg), less a forked child's copy of its parent's:
 * Valgrind copies the parent's costs into a child it forks (callgrind does
 * not zero them). A child whose Valgrind log (log_prefix and its pid:
 * "DIR/callgrind.log.PID") names a parent of the same command has its
 * first dump (--dump-after=_Fork: the copy) dropped, and its parent's
 * counts of a thread taken off a thread that dump did not zero (one that
 * had ended: a copy); without a dump, off every thread (what both ran
 * after the fork at one instruction is taken off too: the child's is low
 * there by at most the parent's). A part left with nothing is empty.
 */
struct model_tasks {
	size_t nr;		/* cg's parts */
	uint32_t *pid, *tid;	/* per part */
	char **comm;		/* per part: the program's file name */
	int32_t *parent;	/* per part: the part its counts were taken off, -1: none */
	bool *empty;		/* per part: nothing left (a copy only) */
	uint64_t (*c)[CG_NR];	/* per pin of cg */
	/* processes and threads that ran something; parts that had a copy
	 * of their parent's counts taken off */
	unsigned nr_procs, nr_threads, nr_copies;
};

void model_tasks__build(struct model_tasks *t, const struct cg_profile *cg, uint32_t dflt_pid,
			const char *dflt_comm, const char *log_prefix);
void model_tasks__exit(struct model_tasks *t);
/* The workload's program name for model_tasks__build: its command's first
 * word's file name. */
static inline const char *model_argv0(const struct model_opts *o)
{
	const char *slash = strrchr(o->argv[0], '/');

	return slash ? slash + 1 : o->argv[0];
}

/* ---- call stacks from callgrind's calls (callgraph.c) --------------------- */

/*
 * The stacks a function's self cost is shared over, in one part: its
 * callers share it in proportion to their calls' inclusive instructions
 * (as gprof and KCachegrind do), and theirs up to a function nobody called
 * (the thread's root); a caller already on the stack (recursion) is left
 * out, so a function is on a stack once; a path leading only into
 * recursion is dropped and the others scaled up. At most MODEL_STACK_DEPTH
 * deep; a path under 0.1% of the function's cost, or found once it has
 * MODEL_STACKS, ends where it is.
 */
#define MODEL_STACK_DEPTH 64
#define MODEL_STACKS 64

struct model_stack {
	double w;		/* its share, a function's summing to 1 */
	uint32_t first, depth;	/* its calls, innermost first: frames[first .. + depth) */
};

/* callgrind's calls merged by (part, callee fn, caller, site): incl less
 * what the part's parent (a forked child's: tasks) had of it, raw as read */
struct model_edge {
	uint32_t part, fn, caller, obj;
	uint64_t site, incl, raw, count;
};

struct model_graph {
	const struct cg_profile *cg;
	const struct model_tasks *tasks;
	struct model_edge *edges;	/* sorted by (part, fn, caller, obj, site) */
	size_t nr_edges;
	uint32_t *frames;	/* indices into edges */
	size_t nr_frames, cap_frames;
	struct model_stack *stacks;
	size_t nr_stacks, cap_stacks;
	void *priv;
};

void model_graph__init(struct model_graph *g, const struct cg_profile *cg,
		       const struct model_tasks *t);
void model_graph__exit(struct model_graph *g);
/* fn's (index into cg's fns) stacks in part: *n of them. */
const struct model_stack *model_graph__stacks(struct model_graph *g, uint32_t part, uint32_t fn,
					      size_t *n);

/* ---- the result (write.c) ------------------------------------------------- */

/* What write_result needs of a priced run: per cg instruction the terms. */
struct model_priced {
	const struct cg_profile *cg;
	const struct model_obj *objs;
	const double *base, *fe, *bad, *mem, *core, *bcm;
	const uint64_t *l2miss, *pages;
	const double *lat;	/* a load's cycles from L1, L2, L3, DRAM (machine_costs) */
	double ind_missed;
	uint32_t pid;		/* the workload's */
	const char *log_prefix;	/* Valgrind's log files: this and a pid (NULL: none) */
};

/* Instruction i's modelled values, unrounded, by enum model_rp_slot
 * (MODEL_RP_CYCLES to MODEL_RP_FAULTS): what write.c writes, rounded, what
 * loops.c gives flow.json and terms.c prices again. */
void model_insn_values(const struct model_priced *pr, size_t i, double v[MODEL_RP_NR]);

/* Where an instruction's samples go: its object's base plus its file vaddr. */
static inline uint64_t model_sample_ip(const struct model_priced *pr, uint32_t obj, uint64_t addr)
{
	return pr->objs[obj].base + (addr - pr->objs[obj].bias);
}

/* ---- the loads as memory-access samples (datasrc.c) ----------------------- */

#define MODEL_MEM_EVENT "mem-loads:modelled"
#define MODEL_MEM_LEVELS 4	/* L1, L2, L3, DRAM */
/* The loads of a pin (its counts c) served by each level: L1's misses
 * (D1mr), the loads' share of its instruction's priced L2 misses (l2miss,
 * of insn_d1m L1 misses of loads and stores) and the last level's (DLmr).
 * They sum to c[CG_DR]. */
void model_mem_levels(const uint64_t c[CG_NR], uint64_t l2miss, uint64_t insn_d1m,
		      uint64_t n[MODEL_MEM_LEVELS]);
/* The event of those samples (its attr; id the caller's). */
struct pd_evsel;
struct perf_writer;
void model_mem_evsel(struct pd_evsel *ev, uint64_t *id);
/* Each pin's loads, a sample per level (period: the loads; weight: the
 * level's latency; data_src: the level), with sample id id at times from
 * *time on (advanced). The loads written. */
uint64_t model_mem_put(struct perf_writer *w, uint64_t id, const struct model_priced *pr,
		       const struct model_tasks *tk, uint64_t *time);

struct gx_meta;
struct model_opts;
/* dir's perf.data: a sample per instruction and event in each thread (with
 * o->callgraph, per stack too), and m's events, times and warnings. */
int model_write_result(const struct model_priced *pr, const struct model_opts *o, uint64_t t0,
		       uint64_t t1, struct gx_meta *m, char **cause);

/* ---- first touches, counted natively (faults.c) ----------------------------- */

/* The page faults a native run took in user space at one instruction: its
 * file (an index into paths) and offset in that file. */
struct model_fault {
	uint32_t path;
	uint64_t off, n;
};

struct model_faults {
	struct model_fault *v;
	size_t nr;
	char **paths;
	size_t nr_paths;
	uint64_t total;		/* faults sampled */
	uint64_t unmapped;	/* of them at no file's instruction (JIT code, none known) */
};

/* Run argv natively once under the page-faults software event (user
 * space, a sample a fault) and count each fault at its instruction's
 * file and offset: 0, or a negative code with *cause (-EINTR where a
 * signal stopped it: *stop_sig, which collect passed on to the workload). */
int model_faults__native(char *const *argv, struct model_faults *f, int *stop_sig,
			 char **cause);
void model_faults__exit(struct model_faults *f);
/* dirfd's flow.json: pr's instructions that text (per cg instruction,
 * NULL: not disassembled) names and that ran, with their kinds,
 * executions, cycles and conditional mispredicts as priced, and
 * callgrind's jumps; the files' own addresses (loops.c). */
int model_loops_write(const struct model_priced *pr, const char *const *text, int dirfd,
		      char **cause);

/* ---- the programs it runs, and their files (valgrind.c) --------------------- */

/* The Valgrind runs: the first pass, and the second's two ways (second_pass). */
enum model_pass {
	PASS_FULL,		/* callgrind, jumps and branches: callgrind.out.PID-NN */
	PASS_INSNS,		/* callgrind, caches only: callgrind-l2.out.PID-NN */
	PASS_LINES,		/* cachegrind: cachegrind-l2.out.PID */
	PASS_GRIND,		/* gxgrind, caches only: gxgrind-l2.out.PID */
	/* gxgrind, the first pass alone: callgrind's counts, jumps and calls
	 * (callgrind.out.PID-NN) and the second hierarchy's counts, L2 and
	 * pages (gxgrind-l2.out.PID) or the TLB (gxgrind-tlb.out.PID) */
	PASS_GFIRST,
	PASS_GTLB,		/* gxgrind-tlb.out.PID (read only) */
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

/* ---- LLVM's disassembler, in process (disasm.c) ----------------------------- */

/* An instruction's AT&T text as llvm-objdump prints it (s[0 .. n)) cleaned
 * for llvm-mca: tabs to spaces, no comment, no <sym>, no trailing space.
 * Allocated. */
char *model_insn_clean(const char *s, size_t n);
/* A disassembler for ELF machine e_machine from libLLVM, or NULL (not
 * x86-64, no libLLVM found, or GX_MODEL_DISASM=objdump): llvm-objdump then. */
void *model_disasm__open(uint16_t e_machine);
void model_disasm__close(void *dc);
/* The instruction at pc, bytes[0 .. n) its bytes and those after it: its
 * text into out as llvm-objdump prints it (tabs as spaces, a relative
 * branch's target as an address) and its length, or 0 where it does not
 * decode. */
size_t model_disasm__insn(void *dc, const uint8_t *bytes, size_t n, uint64_t pc, char *out,
			  size_t outsz);

/* Run argv (llvm's tools, found on PATH) with stdin /dev/null, its output
 * and errors through files of s into *out and *err_text (NULL: not wanted),
 * allocated (NULL when empty or unreadable). It dies with gexplore. Its exit status
 * (128+N for signal N), or a negative errno when it could not be started. */
int model_tool(const struct model_scratch *s, char *const *argv, char **out, char **err_text);
/* The same in two steps, so that several run at once: started with its
 * output to NAME.out and NAME.err in the scratch directory (its pid, or a
 * negative code), then waited for (its status, or the start's negative
 * code) and its output taken. */
pid_t model_tool__start(const struct model_scratch *s, char *const *argv, const char *name);
int model_tool__finish(const struct model_scratch *s, pid_t pid, const char *name, char **out,
		       char **err_text);

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

/* Whether gxgrind's first pass predicts conditional branches by its tagged
 * predictor (--gx-predictor=tage), as a core of these years does
 * (bench/predictor); not where GX_MODEL_PREDICTOR=2bit asks for
 * cachegrind's 2-bit counters (callgrind's counts, to compare with
 * callgrind's). */
bool model_vg__tage(void);
bool model_vg__zero_fill(void);
/* Start a run of o->argv, its files in s, geo[] its I1, D1 and LL (size 0:
 * Valgrind's default), and under PASS_GFIRST h2[] the second hierarchy's
 * L2, pages and TLB (size 0: not simulated), env ("VALGRIND_LIB=...":
 * model_grind_env; NULL: none) in its environment; only the first pass
 * shows the workload's output. 0, or a negative code with *cause. */
int model_vg__start(struct model_vg *v, const char *valgrind, const struct model_opts *o,
		    const struct model_scratch *s, enum model_pass how,
		    const struct cache_geo geo[3], const struct cache_geo *h2, const char *env,
		    char **cause);
/*
 * gxgrind (src/grind/), where it was built and its directory
 * holds it and Valgrind's files, and the valgrind on PATH is the version
 * it was built with: "VALGRIND_LIB=DIR" (allocated), what every Valgrind
 * run of the record is given, so that each pass's workload has the same
 * environment; else NULL, with *why (static) unless it was not built or
 * GX_MODEL_GRIND=no.
 */
char *model_grind_env(const char *valgrind, const struct model_scratch *s, const char **why);
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
/* The same, its files left to be read again */
int model_vg__peek(struct model_vg *v, const struct model_opts *o, const struct model_scratch *s,
		   struct cg_profile *p, char **cause);
/* After a run that ended by SIGILL: GX_E_CHILD with a one-line *cause
 * naming the instruction and its address where a log of it says Valgrind
 * could not run it (and a process died of it), else 0. */
int model_vg__unrecognised(const struct model_vg *v, const struct model_scratch *s,
			   char **cause);
/* Let go: killed with its tree when it still runs. */
void model_vg__exit(struct model_vg *v);

/* ---- a modelled run's state (model.c; passes.c) ------------------------------ */

struct model_insn {
	size_t cg;		/* index into the cg_profile's insns */
	uint32_t obj;		/* its object and address: the sort key */
	uint64_t addr;
	char *text;		/* AT&T assembly, NULL: not disassembled */
	int block;		/* -1: none */
	bool dep_load;		/* a load whose address a load in its block gave, or
				 * its own last value round a loop (chains.c) */
	bool rep;		/* a rep-prefixed string instruction (priced apart) */
};

struct model_block {
	size_t first, n;	/* into the sorted model_insn array */
	uint64_t execs;
	double cyc;		/* llvm-mca's cycles an execution; NAN: not modelled */
	int region;		/* -1: not in the batch */
	/* llvm-mca's, before the description's throughputs scale it (cyc:
	 * model_block_scale), and which scale: */
	double cyc_mca;
	enum { BLOCK_UNSCALED, BLOCK_FMA, BLOCK_INT } scale;
	/* a loop's loads that wait for one another's results (dep_load): a
	 * chain through memory, each paying llvm-mca's load latency */
	unsigned chain;
};

/* How the D1 misses that the last level served are split between L2 and
 * L3: by the second pass's misses, or all priced as one level's hits
 * (where that pass did not run). Pricing is monotone in the split, so the
 * pass's answer lies between SPLIT_L2's and SPLIT_L3's. */
enum l2_split { SPLIT_PASS, SPLIT_L2, SPLIT_L3 };

struct model_state {
	/* cg2 or cl2: the second pass (D1 = L2, LL = pages: second_pass),
	 * callgrind's instructions or cachegrind's lines, or empty; pass_l2
	 * and pass_pages: its L2 misses and first touches at each of cg's
	 * instructions (pass_take, pass_spread) */
	struct cg_profile cg, cg2;
	struct cg_lines cl2;
	uint64_t *pass_l2, *pass_pages;
	enum model_pass pass2_how;	/* how it ran */
	bool pass2_forced;		/* by GX_MODEL_SECOND */
	bool have_l2, have_pages;	/* L2's misses, pages' first touches: from the second pass */
	/* the second pass's last level the TLB (tlb_geo) where no first
	 * touch is counted by it (pass2_tlb); its misses then the walks at
	 * each of cg's instructions (pass_tlb, have_tlb) */
	bool pass2_tlb, have_tlb;
	struct cache_geo tlb_geo;
	uint64_t *pass_tlb;
	/* first touches counted natively (faults.c): a native run's page
	 * faults, as run (have_native_run) and at each cg insn (native_pages,
	 * after model_code); they win over the second pass's */
	struct model_faults nf;
	bool have_native_run, have_native;
	uint64_t *native_pages;
	/* the workload's stdin, for the second pass to read again: a file's
	 * offset at the start (-1: no file); why it may not (NULL: it can) */
	off_t stdin_at;
	const char *stdin_why;
	struct model_vg pass2;		/* the second pass, started early (.c NULL: not) */
	const struct model_scratch *scratch;	/* where the tools write */
	char *vg_env;		/* model_grind_env's: every Valgrind run's, NULL: none */
	/* the first pass ran under gxgrind (PASS_GFIRST): the second
	 * pass's counts came with it, no second run */
	bool first_grind;
	struct cache_geo first_h2[3];	/* its second hierarchy: L2, pages, TLB */
	struct model_obj *objs;
	struct model_insn *ins;		/* sorted by (obj, addr) */
	size_t nr_ins;
	struct model_block *blocks;
	size_t nr_blocks;
	struct machine_costs mc;
	struct cache_geo geo[GEO_NR];
	struct model_machine machine;	/* every price (description.c) */
	const char *mcpu;		/* machine.mcpu */
	double width;
	char **notes;			/* for meta.json's warnings */
	size_t nr_notes;
	double cpi_rest;		/* cycles an instruction outside the modelled blocks */
	/* llvm-mca's cycles a vfmadd231pd ymm and an add r64 (its
	 * calibration regions; NAN: none), which the description's
	 * throughputs scale blocks by (model_block_scale) */
	double fma_mca, add_mca;
	/* llvm-mca's load-to-use latency, from a chase of 12 loads (0 or
	 * NAN: none), by which the description's L1 latency sets a chain's */
	double load_mca;
	enum l2_split split;		/* how the cycles were priced (terms.c) */
	double dram_chase;		/* cycles of chased loads served by memory */
	double tlb_misses, tlb_cycles;	/* address translation's, as priced (tlb.c) */
	/* misses at random priced by how many are in flight at once, from
	 * those between two mispredicts (price.c), and every miss not in a
	 * stride at random where the run counted strides: a record's, a
	 * GXTERMS6 file's or later (false: MODEL_MLP, as priced before) */
	bool window;
	bool strides;			/* this pricing's: the run counted strides */
	double in_flight;		/* this pricing's misses in flight */
	/* per cg insn: the share of its counts that are the run's own (a
	 * forked child's copy of its parent's, callgrind's, not: model_net),
	 * which the misses in flight are counted by; NULL: all */
	double *net;
	double in_flight_misses, in_flight_bad;	/* what it came from */
	/* per cg insn: the modelled terms */
	double *base, *fe, *bad, *mem, *core;
	/* per cg insn: its conditional mispredicts as priced (bias_bound) */
	double *bcm;
	uint64_t bcm_over;		/* callgrind's, beyond the bound */
	/* where conditional mispredicts' cycles go (bad_path): shares of a
	 * branch's, from it to the instructions a profile shows them at */
	struct bad_move { size_t from, to; double share; } *moves;
	size_t nr_moves;
	uint64_t *l2miss;		/* L2's misses as priced */
	uint64_t *pages;		/* first touches of pages as priced (pass_pages) */
	double fault_cycles;		/* what they were priced at, summed */
	pid_t pid;			/* the workload's (valgrind's) */
	int stopped;			/* the signal that stopped the run, -1: --duration */
};

/* Each modelled block's cycles from llvm-mca's and the description's
 * throughputs (fma_tput, add_tput against llvm-mca's fma_mca, add_mca)
 * and L1 latency (against load_mca, in a loop whose chain runs through
 * its loads), and cpi_rest; *fma_scale, *add_scale: the scales (NULL:
 * not wanted). Returns how many blocks the L1 latency set. */
size_t model_block_scale(struct model_state *st, double *fma_scale, double *add_scale);

/* chains.c: b's loads whose address comes from their own last value
 * round the block, through the base register (a pointer chase) or the
 * index (a chain through an array: gzip's prev[cur_match & wmask]),
 * through other loads (two that feed each other) and spilled registers,
 * and its gathers whose value decides its branch, marked dep_load: each
 * miss waits for the one before. A store is no load, whatever commas its
 * address holds ("movq %rax, (%r13,%rsi)"). */
void model_mark_dependent(struct model_state *st, const struct model_block *b);
/* chains.c: loads that miss L1 and whose address comes from their own last value
 * along the paths callgrind saw (a chase across a loop's blocks) marked
 * dep_load, how many returned; and those whose address comes from
 * another load's value and whose value decides their block's branch (a
 * gather across blocks), how many into *gathers (NULL: not wanted); a
 * note says each. */
size_t model_mark_chains(struct model_state *st, size_t *gathers);
/* chains.c: model_loop_recurrence for block b's instructions as given to
 * llvm-mca (not a rep string's), with its latencies; NAN where their
 * numbers differ (a line llvm-mca dropped). */
double model_block_recurrence(const struct model_state *st, const struct model_block *b,
			      const struct mca_lat *lat);

/* Everything st holds freed (a zeroed state's parts too). */
void model_state__exit(struct model_state *st);

/* The result's model.terms (terms.c): what cycles (as priced) came from. */
int model_terms_write(const struct model_state *st, const struct model_priced *pr, double cycles,
		      int dirfd, char **cause);

/* A note for meta.json's warnings (and record's output). */
void model_note(struct model_state *st, const char *fmt, ...) GX_PRINTF(2, 3);
/* passes.c: how gxgrind counted first touches of anonymous memory (the
 * kernel's zeros in the caches, or GX_MODEL_ZERO_FILL=no's misses), said
 * in a note */
void model_zero_fill_note(struct model_state *st);
/* the first pass's misses in a stride (gxgrind's D1ms) said in a note,
 * or, with GX_MODEL_STRIDES=none, set aside (callgrind's files count
 * none). */
void model_strides(struct model_state *st);
/* Cycles of one iteration of a rep string instruction: fast strings move
 * 16-32 bytes a cycle, one iteration is 1-8 bytes. */
#define REP_CYCLES 0.1
/* price.c: the modelled cycles, every instruction priced, with L2's hits
 * as how says. */
double model_price(struct model_state *st, enum l2_split how);
/* price.c: misses at random in flight at once, from those that come
 * between two mispredicts: MODEL_MLP (10) at most, one at least */
double model_in_flight(double misses, double mispredicts);
/* The most the walks of D1 misses the last level served can cost, as
 * priced where the second pass counts them (0: a TLB that reaches past
 * the last level, whose walks are estimated from its misses alone). */
double model_tlb_bound(const struct model_state *st);
/* Index into st->ins of obj's instruction at addr, or SIZE_MAX. */
size_t model_ins_at(const struct model_state *st, uint32_t obj, uint64_t addr);
/* The last level callgrind simulated (bytes). */
uint64_t model_ll_size(const struct model_state *st);

/* passes.c */
/* GX_MODEL_PASSES: 1, 2, or auto (0, also when unset); -1: another value. */
int model_passes(void);
void model_stdin_state(struct model_state *st);
void model_native_run(struct model_state *st, const struct model_opts *o);
void model_native_pages(struct model_state *st, const struct model_opts *opts);
/* Whether the first pass runs under gxgrind alone (sets tlb_geo), and
 * the second hierarchy it simulates then in h2[] (L2, pages, TLB). */
bool model_first_grind(struct model_state *st, struct cache_geo h2[3]);
void model_second_pass_early(struct model_state *st, const char *valgrind,
			     const struct model_opts *o, int passes);
double model_second_pass(struct model_state *st, const char *valgrind,
			 const struct model_opts *o, int passes);
void model_pages_note(struct model_state *st, double total);

#endif /* GX_MODEL_INT_H */
