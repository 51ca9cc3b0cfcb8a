/*
 * record: one recording. gx_record() makes the result directory, runs the
 * workload (or attaches to a process, or records every CPU) through
 * src/collect, writes its records through the perf.data writer, then the
 * features, build-ids, the archive of the sampled files, the markers
 * (regions.bin), the multiplexing estimates and meta.json.
 *
 * It prints nothing: what a recording has to say (collect's notices,
 * warnings, the summary line) goes to the caller's notice callback, and
 * an error that leaves no result comes back through `char **cause`.
 */
#ifndef GX_RECORD_H
#define GX_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/collect.h"

/* What to record and how: the options of `gexplore record` less what
 * only the command line does with a result (show it, check it). */
struct record_opts {
	struct collect_opts collect;	/* collect.argv: the workload, NULL-terminated */
	const char *output;	/* the result directory; NULL: the next free gxNNN here */
	const char *cpu;	/* the top-down model of another CPU; NULL: this CPU's */
	bool force;		/* reuse a non-empty output directory */
	/* say only errors, the answers to Ctrl-C and that a result is
	 * incomplete: no warning (meta.json keeps them) nor summary, with
	 * --model too */
	bool quiet;
	/* multiplexing (record-mux.c) */
	const char *mux;	/* "gexplore" or "kernel"; NULL = gexplore */
	uint32_t slice_ms;	/* each group's turn; 0 = 10 */
	bool mux_runs;		/* run the workload once per group instead */
	/* perf's --control fifo:CTL[,ACK] | fd:CTL[,ACK]; NULL: none. The
	 * delay is collect.delay_ms. */
	const char *control;
	/* the archive of the sampled files */
	uint64_t archive_max;	/* 0: PD_ARCHIVE_MAX_DEFAULT, UINT64_MAX: no cap */
	bool no_archive;
	/* --off-cpu-min: waits shorter than this get no stack (their time
	 * still counts); the prober looks every max(2 ms, half of it) */
	uint32_t off_cpu_min_us;
	/* --model: run the workload under Valgrind and model its cycles
	 * (src/model) instead of counting them: no PMU needed */
	bool model;
	/* --model=NAME|FILE: the machine description that prices it
	 * (gexplore-record(1) MODELLED RESULTS); NULL: this CPU's */
	const char *model_machine;
	bool keep_valgrind;	/* --keep-valgrind: Valgrind's raw files stay in the result */
	double duration_s;
	/* --ldlat: with --mem, the loads sampled take more cycles than
	 * this; 0: COLLECT_MEM_LDLAT (perf mem's 30) */
	uint32_t ldlat;	/* --duration: stop a --model workload after this long; 0: none */
};

/* The defaults (rate 1, 8 KiB dwarf stacks). */
void record_opts__init(struct record_opts *ro);
/* What the options cannot be together (-c with -F, -p with -a): 0, or -1
 * with *cause (allocated). */
int record_opts__check(const struct record_opts *ro, char **cause);

enum record_level {
	RECORD_ERROR,	/* something failed; the recording goes on where it can */
	RECORD_WARN,	/* something to know about the run or the result */
	RECORD_INFO,	/* progress and the summary line */
};

/* Where a recording's messages go. say gets one line, unescaped (names
 * from argv and the system are in it as they are), borrowed for the
 * call; a NULL say drops them. */
struct record_notice {
	void (*say)(void *arg, enum record_level level, const char *msg);
	void *arg;
};

/* What a recording left. */
struct record_result {
	char *dir;	/* the result directory (owned) */
	int status;	/* the workload's: its exit code, 128+N when signal N ended it;
			   0 with -p and -a */
	int err;	/* 0, or why the result could not be finished (said already
			   through the notice); what was written stays */
	bool abandoned;	/* a third SIGINT cut the wrap-up: the result is left
			   with status incomplete (said); err is -EINTR */
};

/*
 * Record what ro says into a new result directory; argv is the command
 * line kept in perf.data. Returns 0 when a result was written (res says
 * how it went; record_result__exit frees it), else a negative code with
 * *cause (allocated) and nothing left on disk: GX_E_USAGE for options or
 * events that cannot be recorded, GX_E_CHILD when the workload could not
 * be started, another code when the recording failed.
 */
int gx_record(const struct record_opts *ro, const struct record_notice *nt, int argc,
	      char **argv, struct record_result *res, char **cause);
void record_result__exit(struct record_result *res);

/*
 * Record the workload cmd n times with ro's options, each into a new gxNNN
 * result here, recorded only; progress through nt unless quiet. *dirs gets
 * the names made (NULL-terminated; free each and the array), also on
 * failure. 0, or a negative code with *cause: GX_E_USAGE when a run could
 * not be recorded or its workload failed (nothing to check), another code
 * when a result directory could not be made.
 */
int record_repeat(const struct record_opts *ro, char *const *cmd, unsigned n, bool quiet,
		  const struct record_notice *nt, int argc, char **argv, char ***dirs,
		  char **cause);

#endif /* GX_RECORD_H */
