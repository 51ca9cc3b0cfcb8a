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

/* ---- callgrind's output (callgrind.c) ------------------------------------ */

/* The columns gexplore reads, in callgrind's --cache-sim --branch-sim names. */
enum cg_col {
	CG_IR, CG_DR, CG_DW, CG_I1MR, CG_D1MR, CG_D1MW, CG_ILMR, CG_DLMR, CG_DLMW,
	CG_BC, CG_BCM, CG_BI, CG_BIM, CG_NR
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

/* A call: the instruction at site in obj called function fn (index into
 * fns), entered at entry in cobj, count times. */
struct cg_call {
	uint32_t obj, cobj, fn;
	uint64_t site, entry, count;
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
/* The same from text in memory (name for messages). */
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
 * RThroughput into rt[] (NULL: not wanted), the dispatch width into *width,
 * its files in the private directory scratch (model-int.h). A line llvm-mca cannot assemble is dropped and the
 * run repeated (at most 8 times); *dropped counts them. 0, or a negative
 * code with *cause.
 */
struct model_scratch;
int mca_run(const struct model_scratch *scratch, const char *cpu, char **lines, size_t nr_lines,
	    size_t nr, double *cyc, double *rt, double *width, size_t *dropped, char **cause);
/* The -mcpu for this CPU (the CPU's model name and vendor/family/model as
 * /proc/cpuinfo says them, or arm64's part number), and a note when the
 * CPU is newer than llvm 14 knows (allocated, or NULL). Static string. */
const char *mca_cpu_for(const char *vendor, int family, int model, unsigned arm_part,
			char **note);

/* ---- a modelled recording (model.c) --------------------------------------- */

struct model_opts {
	char *const *argv;	/* the workload, NULL-terminated */
	const char *dir;	/* the result directory, made and empty */
	int dirfd;		/* open on dir (its files are created in it) */
	int argc;		/* gexplore's own command line, for perf.data */
	char **cmdline;
	bool quiet;
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

/* Whether valgrind (or llvm-mca) is on PATH; its full path allocated, or NULL. */
char *model_which(const char *prog);

#endif /* GX_MODEL_H */
