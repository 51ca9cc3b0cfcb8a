/*
 * model: a result where there is no PMU (issue 28). The workload runs
 * under Valgrind's callgrind (cache and branch simulation, this machine's
 * cache geometry); its exact per-instruction counts become perf.data
 * samples whose period is the count at that address, and each address is
 * given modelled cycles: its basic block's steady-state cycles from
 * llvm-mca (one batched run, LLVM-MCA-BEGIN/END regions) times the
 * block's executions, plus its simulated misses priced by the latency or
 * bandwidth `gexplore peak` measured, plus its mispredicts times a
 * penalty. The same terms make a modelled top-down tree
 * (events/modelled.json).
 *
 * Nothing here prints: what a run has to say goes to the caller's say
 * callback, errors come back through `char **cause`.
 */
#ifndef GX_MODEL_H
#define GX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "perfdata/perfdata.h"

/* ---- callgrind's output (callgrind.c) ------------------------------------ */

/* The columns gexplore reads, in callgrind's --cache-sim --branch-sim names. */
enum cg_col {
	CG_IR, CG_DR, CG_DW, CG_I1MR, CG_D1MR, CG_D1MW, CG_ILMR, CG_DLMR, CG_DLMW,
	CG_BC, CG_BCM, CG_BI, CG_BIM,
	CG_D1MS,	/* gxgrind's: D1 misses in a stride (callgrind's files: 0) */
	CG_D1MN,	/* gxgrind's: D1 misses not so, but near the one before (0: the same) */
	CG_NR
};

/* One instruction's self counts (calls' inclusive costs are not added). */
struct cg_insn {
	uint32_t obj;		/* index into objs */
	uint32_t fn;		/* index into fns + 1 (the last function it was listed under), 0: none */
	uint32_t src;		/* its source file: index into srcs + 1, 0: none */
	uint32_t line;		/* its source line, 0: none */
	uint64_t addr;		/* as callgrind wrote it (see model.c: relative or not) */
	uint64_t c[CG_NR];
};

/* A jump callgrind recorded (--collect-jumps=yes): from the instruction at
 * from to the one at to, both in obj; count times taken, of execs times
 * executed (a conditional jump's "jcnd=", else execs == count). */
struct cg_jump {
	uint32_t obj;
	bool cond;
	uint64_t from, to, count, execs;
};

/* A call: the instruction at site in obj, in function caller (index into
 * fns + 1, 0: none), called function fn (index into fns), entered at entry
 * in cobj, count times, in file part (index into parts); incl: the
 * callee's inclusive instructions (Ir) from that site. */
struct cg_call {
	uint32_t obj, cobj, fn, caller, part;
	uint64_t site, entry, count, incl;
};

/* One file read: a thread of a process (--separate-threads, the out file's
 * %p), as its header says: pid (0: none given), callgrind's thread number
 * (1 the main thread; 0: none given), the dump's number (part:, 0: none
 * given), whether a --dump-before/after wrote it (not the program's end)
 * and the command line (NULL: none). */
struct cg_part {
	uint32_t pid, thread, dump;
	bool dumped;
	bool own;		/* gxgrind's (--gx-first): a forked child's counts its own */
	char *cmd;
};

/* An instruction's self counts in one part (insn: index into insns). */
struct cg_pinsn {
	uint32_t part, insn;
	uint64_t c[CG_NR];
};

struct cg_profile {
	char **objs;		/* object file names, "???" when callgrind had none */
	size_t nr_objs;
	struct cg_insn *insns;	/* in order of first appearance */
	size_t nr_insns, cap;
	char **fns;		/* function names, callgrind's recursion mark ('2) dropped */
	size_t nr_fns;
	char **srcs;		/* source file names (fl=, fi=, fe=) */
	size_t nr_srcs;
	struct cg_jump *jumps;	/* in the files' order, one per line (not merged) */
	size_t nr_jumps, cap_jumps;
	struct cg_call *calls;
	size_t nr_calls, cap_calls;
	struct cg_part *parts;	/* a file each, in the order read */
	size_t nr_parts;
	struct cg_pinsn *pins;	/* insns' counts per part: their sums are insns' */
	size_t nr_pins, cap_pins;
	uint64_t totals[CG_NR];
	unsigned files;		/* files read (one a thread with --separate-threads) */
	/* private: (obj, addr) -> index + 1, and the name tables */
	void *priv;
};

void cg_profile__init(struct cg_profile *p);
void cg_profile__exit(struct cg_profile *p);
/* Add the self costs of the callgrind file at path (format version 1,
 * positions "instr" or "instr line") to p, with its jumps and calls. A malformed line is an error
 * naming its line number: GX_E_FORMAT with *cause (allocated). */
int cg_profile__read(struct cg_profile *p, const char *path, char **cause);
/* The same from text in memory (name for messages): text[len] is read, and
 * must be a NUL (as cg_profile__read's buffer has it): the lines are
 * parsed with the C string functions. */
int cg_profile__parse(struct cg_profile *p, const char *text, size_t len, const char *name,
		      char **cause);
/* Column name ("Ir", "D1mr", ...), static. */
const char *cg_col_name(enum cg_col c);

/* One source line's self counts in a cachegrind output file: a line of
 * a function in a file (names: indices into names), as cachegrind gives
 * them (a function without debug information is one line 0 of file
 * "???"; an unknown function's name is "???"). */
struct cgl_line {
	uint32_t file, fn, line;
	uint64_t c[CG_NR];
};

struct cg_lines {
	struct cgl_line *v;	/* in the files' order, not merged */
	size_t n, cap;
	char **names;		/* files' and functions' names */
	size_t nr_names;
	uint64_t totals[CG_NR];
	unsigned files;		/* files read */
	void *priv;
};

void cg_lines__init(struct cg_lines *p);
void cg_lines__exit(struct cg_lines *p);
/* Add the cachegrind file at path (its events: line; fl=, fn= and
 * "LINE COSTS..." lines) to p. A malformed line is GX_E_FORMAT with
 * *cause naming its number. */
int cg_lines__read(struct cg_lines *p, const char *path, char **cause);
/* The same from text in memory, text[len] a NUL (as cg_profile__parse). */
int cg_lines__parse(struct cg_lines *p, const char *text, size_t len, const char *name,
		    char **cause);

/* ---- llvm-mca (mca.c) ----------------------------------------------------- */

/*
 * Parse llvm-mca's output for nr regions (named bK, K their index, as
 * model.c names them; else in order, "[k] Code Region"
 * headers or a single unnamed one): each region's cycles per iteration
 * (Total Cycles / Iterations) into cyc[k]; a region absent from the text
 * gets NAN; the dispatch width into *width (NULL: not wanted; 0 when
 * absent). 0, or GX_E_FORMAT with *cause when no region is found.
 */
int mca_parse(const char *text, double *cyc, size_t nr, double *width, char **cause);
/* The same, and each region's Block RThroughput (its resources' bound,
 * dependencies left out) into rt[] (NULL: not wanted). */
int mca_parse_rt(const char *text, double *cyc, double *rt, size_t nr, double *width,
		 char **cause);
/*
 * Run llvm-mca -mcpu=cpu over lines (assembly with nr LLVM-MCA-BEGIN/END
 * regions): each region's cycles per iteration into cyc[], its Block
 * RThroughput into rt[] (NULL: not wanted), its instructions' latencies
 * into lat[] (NULL: not wanted), the dispatch width into *width,
 * its files in the private directory scratch (model-int.h). A line llvm-mca cannot assemble is dropped and the
 * run repeated (at most 8 times); *dropped counts them. 0, or a negative
 * code with *cause.
 */
struct model_scratch;
/* a region's instructions' latencies, in its order (llvm-mca's
 * Instruction Info); v allocated */
struct mca_lat {
	double *v;
	size_t n, cap;
};
/* The latencies of text's regions' instructions (llvm-mca's Instruction
 * Info table) into lat[] (zeroed by the caller); how many regions had
 * cycles. */
size_t mca_parse_lat(const char *text, struct mca_lat *lat, size_t nr);
int mca_run(const struct model_scratch *scratch, const char *cpu, char **lines, size_t nr_lines,
	    size_t nr, double *cyc, double *rt, struct mca_lat *lat, double *width,
	    size_t *dropped, char **cause);
/* The -mcpu for this CPU (the CPU's model name and vendor/family/model as
 * /proc/cpuinfo says them, or arm64's part number), and a note when the
 * CPU is newer than llvm 14 knows (allocated, or NULL). Static string. */
const char *mca_cpu_for(const char *vendor, int family, int model, unsigned arm_part,
			char **note);

/* ---- a machine description (description.c) -------------------------------- */

/*
 * Every price the model uses, as a machine description file gives it
 * (machines/NAME.json, gexplore-record(1) MODELLED RESULTS): the clock,
 * each level's latency (cycles) and one core's read bandwidth (bytes a
 * cycle), the working set memory's latency was measured over (bytes, 0:
 * documented), memory's latency over a smaller set past the last level
 * and that set (memory's latency by the set's size; the same latency at
 * the same set, or a set of 0: one latency for every set), the TLB's
 * reach (bytes) and a walk (cycles), a mispredict, the share of
 * callgrind's indirect mispredicts priced, an I-cache miss, a page's
 * first touch (cycles), and the throughputs that calibrate llvm-mca
 * (cycles a vfmadd231pd ymm, an add r64; 0: none),
 * and the caches callgrind simulates: each level's size (bytes; an L3 of
 * 0: none) and ways, and the line. The caches are the description's, not
 * this machine's sysfs: two runners with one description simulate the
 * same caches.
 */
enum model_price {
	MP_GHZ, MP_L1_LAT, MP_L2_LAT, MP_L3_LAT, MP_DRAM_LAT, MP_DRAM_BYTES,
	MP_DRAM_NEAR_LAT, MP_DRAM_NEAR_BYTES,
	MP_L1_BW, MP_L2_BW, MP_L3_BW, MP_DRAM_BW, MP_TLB_REACH, MP_TLB_WALK,
	MP_MISPREDICT, MP_INDIRECT, MP_IMISS, MP_ISEQ, MP_FAULT, MP_FMA, MP_ADD,
	MP_L1I_SIZE, MP_L1I_WAYS, MP_L1D_SIZE, MP_L1D_WAYS, MP_L2_SIZE, MP_L2_WAYS,
	MP_L3_SIZE, MP_L3_WAYS, MP_LINE, MP_NR
};

#define MODEL_MACHINE_SCHEMA "gexplore-machine 1"

struct model_machine {
	char *name;		/* "zen3" */
	char *title;		/* one line, or NULL */
	char *file;		/* the file it was read from, or NULL */
	char *mcpu;		/* llvm-mca's -mcpu ("host": this CPU's, resolved on load) */
	char *mcpu_source;
	double price[MP_NR];
	char *source[MP_NR];	/* where each figure comes from */
};

/* The key of price p in a description ("l2_latency"), static. */
const char *model_price_key(enum model_price p);
/* Whether price p's figure was measured (its source says "measured"). */
bool model_machine__measured(const struct model_machine *mm, enum model_price p);

/*
 * Load a description: arg NULL or "" is the one whose match rules fit
 * this CPU (/proc/cpuinfo), else "generic"; an arg with a '/' or ending
 * in ".json" is a file; any other is a shipped description's name
 * (model_machines_dir()/NAME.json). mcpu "host" is resolved to this CPU's
 * closest llvm-mca model. 0, or GX_E_USAGE (no such name) / GX_E_FORMAT
 * (a file that is no description: the first fault, one line) with *cause.
 * Free with model_machine__exit.
 */
int model_machine__load(struct model_machine *mm, const char *arg, char **cause);
/* The same from a JSON document (name for messages). */
int model_machine__parse(struct model_machine *mm, const char *text, size_t len,
			 const char *name, char **cause);
void model_machine__exit(struct model_machine *mm);
/* mm as a description document (a new reference). */
json_t *model_machine__to_json(const struct model_machine *mm);
/* mm into meta.json's model_machine (allocated copies). */
void model_machine__to_meta(const struct model_machine *mm, struct gx_meta_machine *out);

/* Where the shipped descriptions are: $GX_MACHINES_DIR, else the source
 * tree's machines/ when it exists, else the installed one. Static. */
const char *model_machines_dir(void);
/* The shipped description whose match rules fit this vendor, family and
 * model (x86) or Arm implementer and part, in dir; "generic" when none
 * does. Allocated. */
char *model_machine_match(const char *dir, const char *vendor, int family, int model,
			  unsigned implementer, unsigned part);

/*
 * A description measured here: the figures of nr `gexplore peak` JSON
 * documents (runs of the same tests), each the median of its runs where
 * every run measured it and its runs lie within bound of one another
 * (max - min over the median; a share within bound absolute), else
 * base's figure and source; *notes (nr_notes) says what each refused
 * figure varied by, one line each (allocated). name names it.
 */
void model_machine__from_peak(struct model_machine *mm, const struct model_machine *base,
			      json_t *const *docs, size_t nr, double bound, const char *name,
			      char ***notes, size_t *nr_notes);

/* ---- a modelled recording (model.c) --------------------------------------- */

struct model_opts {
	char *const *argv;	/* the workload, NULL-terminated */
	const char *dir;	/* the result directory, made and empty */
	int dirfd;		/* open on dir (its files are created in it) */
	int argc;		/* gexplore's own command line, for perf.data */
	char **cmdline;
	bool quiet;
	/* --model=NAME|FILE: the machine description; NULL: this CPU's */
	const char *machine;
	/* -g: stacks from callgrind's calls (each sample a callchain) */
	bool callgraph;
	bool keep_valgrind;	/* Valgrind's raw files kept in dir (0600) */
	double duration_s;	/* --duration: SIGTERM after this long; 0: none */
	/* what a run says (one line, unescaped); NULL drops it */
	void (*say)(void *arg, bool warn, const char *msg);
	void *say_arg;
};

struct model_run {
	int status;		/* the workload's: exit code, 128+N when killed by N */
	int stopped;		/* the stop signal it ended by, -1: --duration, 0: none */
	uint64_t instructions;	/* exact, summed */
	double cycles;		/* modelled */
};

/*
 * Run argv under callgrind and write dir's perf.data and meta.json
 * ("modelled": true). GX_E_USAGE with a one-line *cause naming the Debian
 * package when valgrind is not on PATH; GX_E_CHILD when the workload could
 * not be run; another code when the result could not be written.
 */
int model_record(const struct model_opts *o, struct model_run *run, char **cause);

/* ---- pricing a modelled result again (terms.c) ---------------------------- */

/* What a modelled result was priced from: callgrind's counts, llvm-mca's
 * cycles per block, the caches simulated and the description. */
#define MODEL_TERMS_FILE "model.terms"

/* The events a re-pricing touches: the modelled ones, and the exact
 * instructions and the loads, which carry what the run had none of. */
enum model_rp_slot {
	MODEL_RP_CYCLES, MODEL_RP_BRMISS, MODEL_RP_L2, MODEL_RP_FE, MODEL_RP_BAD, MODEL_RP_MEM,
	MODEL_RP_CORE, MODEL_RP_FAULTS, MODEL_RP_INSNS, MODEL_RP_LOADS, MODEL_RP_NR
};

struct model_rp_out {
	int slot;		/* enum model_rp_slot */
	uint64_t period;
	uint64_t weight;	/* UINT64_MAX: the sample's own */
};

struct model_reprice;
/*
 * Price result dir's model.terms again with the description result like
 * was priced with (its model.terms), or, like NULL, the one machine names
 * (as --model takes it). The terms must give the cycles the
 * result recorded with its own description (else GX_E_FORMAT); another
 * -mcpu, other caches, or first touches priced where the run counted none
 * cannot be priced from the counts: GX_E_USAGE saying which. -ENOENT: no
 * model.terms. Free with model_reprice__delete.
 */
int model_reprice__new(struct model_reprice **out, const char *dir, const char *machine,
		       const char *like, char **cause);
void model_reprice__delete(struct model_reprice *rp);
/* The description dir's model.terms was priced with, from its header
 * (model_machine__exit). */
int model_terms_machine(const char *dir, struct model_machine *mm, char **cause);
const struct model_machine *model_reprice__from(const struct model_reprice *rp);
const struct model_machine *model_reprice__to(const struct model_reprice *rp);
/* The slot of the event named so, -1: none (kept as recorded). */
int model_reprice__slot(const char *event);
/*
 * A sample of slot's event at ip (its period and data source) as priced
 * again: the samples it becomes, into out (their count returned; 0: it
 * drops). A modelled event's period scaled by its instruction's new
 * value over the old (rounded, what rounding leaves carried into the
 * instruction's next sample); an exact instructions sample also carries its share
 * of any modelled value its instruction now has and had none of; a load's
 * weight is its level's new latency.
 */
size_t model_reprice__sample(struct model_reprice *rp, int slot, uint64_t ip,
			     uint64_t period, uint64_t data_src,
			     struct model_rp_out out[MODEL_RP_NR]);
/* The cycles, priced again, of object obj's instruction at file address
 * addr (flow.json's, loops.c); cycles (as recorded) where there is none. */
double model_reprice__flow_cycles(const struct model_reprice *rp, uint32_t obj, uint64_t addr,
				  double cycles);
/* meta.json as priced again: its description, its modelled duration (from
 * m's cycles:modelled count, the new samples' sum), and a warning saying so. */
void model_reprice__meta(const struct model_reprice *rp, struct gx_meta *m);

/* Whether valgrind (or llvm-mca) is on PATH; its full path allocated, or NULL. */
char *model_which(const char *prog);

#endif /* GX_MODEL_H */
