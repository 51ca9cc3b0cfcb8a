/*
 * profile: turns a recording's records into rows a user reads. It tracks
 * processes, threads (names from COMM, inheritance from FORK, address
 * spaces reset on exec) and their memory maps (MMAP/MMAP2), symbolizes
 * every sample (src/symbolize) and aggregates it into rows per process,
 * thread, module, function, source line and call path with, per event, the
 * number of samples and the estimated count (the sum of the sample periods),
 * both "self" (the sample's own location) and "total" (anywhere on the
 * sample's call stack; the same as self without call stacks).
 *
 * Inlined functions: a sample inside code inlined into another function
 * counts as self for the innermost inlined function (perf report --inline
 * does the same); the functions it was inlined into get it as total, and
 * call paths list them as frames. With profile_opts.no_inline only the
 * out-of-line function is seen.
 *
 * Feed it through perf_reader__process() with the tool from
 * profile__tool(). Nothing here prints. Per sample, after every function,
 * line and path has been seen once, nothing is allocated.
 */
#ifndef GX_PROFILE_H
#define GX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"

enum profile_by {
	PROFILE_BY_PROCESS,
	PROFILE_BY_THREAD,
	PROFILE_BY_MODULE,
	PROFILE_BY_FUNCTION,
	PROFILE_BY_LINE,
	PROFILE_BY_CALLPATH,
	/* processes grouped by command (comm): a build's thousands of short
	 * processes are one row per program; pid is the first process's */
	PROFILE_BY_COMMAND,
	PROFILE_BY_NR_,
};

/* Row orders for profile__sort(). Ties go to the next key, then the name. */
enum profile_sort {
	PROFILE_SORT_SELF,	/* self period of the event, highest first */
	PROFILE_SORT_TOTAL,	/* total period of the event, highest first */
	PROFILE_SORT_SAMPLES,	/* self samples of the event, highest first */
	PROFILE_SORT_NAME,	/* name, then module/file/line, ascending */
};

struct profile_row {
	/*
	 * process/thread: the comm; module: its path as recorded; function:
	 * the (demangled) function, "[unknown]" or "[kernel]"; line: the
	 * function the line belongs to; callpath: the comm of the process.
	 * Owned by the profile.
	 */
	const char *name;
	uint32_t pid, tid;	/* pid for process rows; tid (and its pid) for threads */
	uint64_t *samples;	/* [nr_events] self samples */
	uint64_t *period;	/* [nr_events] summed sample periods (self) */
	uint64_t *total_samples;	/* [nr_events] samples with the row on the stack */
	uint64_t *total_period;	/* [nr_events] their summed periods */
	/* function and line rows: */
	const char *module;	/* module path as recorded ("" for other rows) */
	const char *file;	/* line rows: source file (DWARF path), "" when unknown */
	uint32_t line;		/* line rows: line number, 0 when unknown */
	uint32_t function;	/* line rows: index of the function row (profile__row) */
	/* callpath rows: function row indexes, root first */
	const uint32_t *path;
	uint32_t path_len;
	uint32_t index;		/* this row's index within its kind (stable) */
	uint32_t nr_procs;	/* command rows: the processes (pids) that ran it */
	/*
	 * With profile_opts.slot_of: the self period of the slot event split
	 * by the time slot its samples fell in ([nr_slots]); NULL otherwise.
	 * Multiplexed recordings use it for MUX reliability per row.
	 */
	uint64_t *slot_period;
};

struct profile;
struct sym_result;
struct sym_session;

/*
 * One frame of a sample's stack as the profile resolved it, leaf first,
 * for exporters that keep stacks whole (pprof). addr is the address looked
 * up: the sampled ip, or a return address - 1 for callers.
 */
struct profile_frame {
	uint64_t addr;
	bool kernel;
	const struct sym_result *sym;	/* never NULL; owned by the session */
	/* the user mapping the address fell in; map_file NULL when none */
	const char *map_file;
	uint64_t map_start, map_end, map_pgoff;
	const uint8_t *build_id;	/* its build-id, build_id_size bytes (0: unknown) */
	size_t build_id_size;
};

/* Called once per symbolized sample with its whole stack (borrowed, valid
 * during the call), its process id and the process's comm. */
typedef void (*profile_stack_fn)(void *ctx, const struct pd_sample *s, uint32_t pid,
				 const char *comm, const struct profile_frame *frames, size_t n);

/* Symbolization and call-stack options (all optional). */
struct profile_opts {
	const char *symfs;			/* --symfs DIR */
	const char *kallsyms;			/* --kallsyms FILE */
	const char *const *search_paths;	/* --search-path DIR... */
	size_t nr_search_paths;
	bool no_inline;				/* --no-inline */
	bool offcpu_kernel;			/* --off-cpu-kernel: a wait's self on its kernel leaf */
	const char *archive;			/* the result's archive dir (sym_options) */
	/*
	 * The recording's environment: its BUILD_ID entries name the build-id
	 * of files whose MMAP records carry none, and its hostname/osrelease
	 * decide whether local kallsyms may be used (profile_env_is_local).
	 * Borrowed; must stay valid while records are processed. May be NULL.
	 */
	const struct pd_env *env;
	unsigned max_stack;			/* frames per sample; 0 = 127 */
	/*
	 * Optional time slots: slot_of(slot_ctx, sample time) names the slot
	 * (0..nr_slots-1, or -1 for none) of each sample of event slot_event,
	 * and every row keeps that event's self period per slot
	 * (profile_row.slot_period). For multiplexing: the slot is the group
	 * that was counting.
	 */
	int (*slot_of)(void *slot_ctx, uint64_t time);
	void *slot_ctx;
	size_t nr_slots;
	size_t slot_event;
	/* Optional: every sample's resolved stack (see profile_frame). */
	profile_stack_fn on_stack;
	void *stack_ctx;
	/*
	 * Keep every sample's time and rows (16 bytes a sample, plus each
	 * distinct stack once) for profile__subset: a time range or a region
	 * re-totalled in memory, without the records or the symbolizer.
	 */
	bool keep_samples;
	/*
	 * Threads that unwind --call-graph dwarf stacks (0 or 1: the walking
	 * thread alone). With more, samples are queued and unwound together,
	 * then credited in their order: the same rows and numbers as one
	 * thread, once profile__finish has run.
	 */
	unsigned jobs;
	/* memory-access samples: each stands for its period's accesses (a
	 * modelled result's), not one */
	bool mem_periods;
	/*
	 * Weight values (GX_SOURCE_WEIGHT): weight_of[e], for a recorded
	 * event e < nr_weight_of, is the value index its samples' weights
	 * (PERF_SAMPLE_WEIGHT or WEIGHT_STRUCT's latency, times the period
	 * with mem_periods) are credited to, as a second credit of the same
	 * sample; UINT32_MAX: none. Copied.
	 */
	const uint32_t *weight_of;
	size_t nr_weight_of;
};

/* A profile for nr_events events (the reader's evsels, in order), with
 * default options. Never fails. */
struct profile *profile__new(size_t nr_events);

/*
 * A profile with options (copied; env and evsels are borrowed). Returns 0
 * and sets *out, or a negative code with a message in *cause.
 */
int profile__new_opts(struct profile **out, size_t nr_events, const struct profile_opts *o,
		      char **cause);
void profile__delete(struct profile *p);

/*
 * The end of a walk: the samples still queued for unwinding (jobs > 1)
 * are credited. Call it after perf_reader__process, before reading the
 * rows; harmless otherwise.
 */
void profile__finish(struct profile *p);

/* The symbolizer options a profile with these options uses (symfs, search
 * paths, kallsyms, no_inline; local from env), for a caller that opens a
 * symbolizer of its own over the same files (the TUI's disassembly). */
struct sym_options;
void profile_opts__sym(const struct profile_opts *o, struct sym_options *so);

/* True when env describes this machine (same hostname and kernel release
 * as uname(2) says), so kernel addresses may resolve via /proc/kallsyms. */
bool profile_env_is_local(const struct pd_env *env);

/* The symbolizer of a profile made by profile__new_opts (strings of the
 * sym_results it hands out); borrowed, NULL for profile__new. */
struct sym_session *profile__symbolizer(const struct profile *p);

/* The tool to pass to perf_reader__process(); borrowed from p. */
struct pd_tool *profile__tool(struct profile *p);

size_t profile__nr_events(const struct profile *p);
/*
 * Value e's periods are time spans, each from its sample's time on
 * (record --off-cpu's waits: a wait's ns from its start): a time range
 * credits each span by its overlap with the range (profile_span_overlap),
 * not by where it starts. Set before the samples come.
 */
void profile__set_span(struct profile *p, size_t e);
bool profile__is_span(const struct profile *p, size_t e);
/* The ns of the span [t, t + len) within the time range [lo, hi]: of a
 * span that covers the range, hi - lo. */
static inline uint64_t profile_span_overlap(uint64_t t, uint64_t len, uint64_t lo, uint64_t hi)
{
	uint64_t end = t + len < t ? UINT64_MAX : t + len;
	uint64_t a = t > lo ? t : lo, b = end < hi ? end : hi;

	return b > a ? b - a : 0;
}
/* Totals over every sample of event e. */
uint64_t profile__total_samples(const struct profile *p, size_t e);
uint64_t profile__total_period(const struct profile *p, size_t e);
/* Samples left out because adding their period would overflow the 64-bit
 * total of their event (a damaged or hostile perf.data). */
uint64_t profile__nr_overflowed(const struct profile *p);

/*
 * Samples of event e whose self went to an inlined function (the code they
 * fell in was inlined into another function; see above), and with period
 * their summed periods. 0 with profile_opts.no_inline.
 */
uint64_t profile__inlined(const struct profile *p, size_t e, uint64_t *period);

/*
 * Event e's time enabled and running as the samples' group reads
 * (PERF_SAMPLE_READ with PERF_FORMAT_TOTAL_TIME_*) carried them: each
 * counter's growth from its thread's first read to its last, summed. What
 * scales its values when the kernel multiplexed it (gx_scale). false
 * (both 0) when no read carried times.
 */
bool profile__read_times(const struct profile *p, size_t e, uint64_t *enabled, uint64_t *running);

/* Whether any sample had a call stack (frame-pointer chain or unwound). */
bool profile__has_callchains(const struct profile *p);

/*
 * Rows of one kind, sorted by the period of event `sort_event` (then by
 * samples, then by name) highest first. The array and its rows are owned
 * by p and valid until the next call that sorts or until profile__delete.
 * Every kind, functions and lines included, has samples/period and
 * total_samples/total_period arrays for every event.
 */
const struct profile_row *const *profile__rows(struct profile *p, enum profile_by by,
					       size_t sort_event, size_t *nr);

/* As profile__rows, in the order `sort` of event `sort_event`. */
const struct profile_row *const *profile__sort(struct profile *p, enum profile_by by,
					       size_t sort_event, enum profile_sort sort,
					       size_t *nr);

/* Row `index` of a kind (profile_row.index, .function, .path[]), or NULL. */
const struct profile_row *profile__row(const struct profile *p, enum profile_by by,
				       uint32_t index);

/*
 * The line row of function row `function` with the most self period of
 * event e (ties: most samples, then the lowest file/line), or NULL when no
 * sample landed on a known line in it. Owned by p.
 */
const struct profile_row *profile__hot_line(struct profile *p, uint32_t function, size_t e);

/*
 * A new profile of the samples p kept (profile_opts.keep_samples) with
 * time in [lo, hi] and, when keep is not NULL, keep(ctx, tid, time) true:
 * the rows, their indexes and every counter are those of a profile fed
 * only these samples (the same records, a reader tool filtering them).
 * Nothing is read or symbolized again. The new profile's strings are p's
 * (valid while p is) and it takes no records. Returns 0 and sets *out
 * (the caller's: profile__delete), or -ENOTSUP when p kept no samples: not
 * asked to, or the recording has group reads (PERF_SAMPLE_READ), whose
 * credits depend on the samples left out.
 */
int profile__subset(const struct profile *p, uint64_t lo, uint64_t hi,
		    bool (*keep)(void *ctx, uint32_t tid, uint64_t time), void *ctx,
		    struct profile **out);

/* Number of samples whose address was in no known mapping. */
uint64_t profile__unmapped_samples(const struct profile *p);

/* Number of samples whose DWARF unwinding failed or was not possible
 * (their stack is just the sampled ip), and the first reason. */
uint64_t profile__unwind_failures(const struct profile *p, const char **why);
/* Of the samples unwound from a stack copy (--call-graph dwarf, *total),
 * how many stopped because their callers lay above the copy (the copy's
 * size, *copy bytes, cut them short). */
uint64_t profile__stacks_cut(const struct profile *p, uint64_t *total, uint64_t *copy);

/* ---- memory-access samples (mem.c) -----------------------------------------
 *
 * Samples that carry a data source, a weight or a data address (perf mem,
 * perf c2c, record --mem; a modelled result's loads) are also kept, beside
 * the rows: per data source (perf mem's "Memory access" text) the
 * samples and their summed weight (latency, in cycles), for the whole run
 * and per function and line row; the data object each address fell in;
 * and each cache line (64 bytes) touched. A measured sample is one
 * access; with profile_opts.mem_periods (a modelled result) a sample is
 * its period's accesses, each of its weight. Whole-run only: a
 * profile__subset has none.
 */
struct profile_mem_totals {
	uint64_t samples, weight;	/* accesses and their summed latency */
	uint64_t loads, stores;		/* by the data source's op */
	uint64_t hitm;			/* loads that hit a modified line elsewhere */
	uint64_t var2, var3;		/* WEIGHT_STRUCT's other two, summed */
	bool has_source, has_addr, has_struct;
};
/* false (t zeroed) when no sample had any of these fields. */
bool profile__mem(const struct profile *p, struct profile_mem_totals *t);

struct profile_mem_source {
	const char *name;		/* "L1 hit", "Local RAM or RAM hit": perf's */
	uint64_t samples, weight;
};
/* The data sources of the run (row UINT32_MAX) or of row `row` of kind by
 * (PROFILE_BY_FUNCTION or PROFILE_BY_LINE), most weight first, in *out
 * (the caller frees; NULL when none); how many. */
size_t profile__mem_sources(const struct profile *p, enum profile_by by, uint32_t row,
			    struct profile_mem_source **out);

enum profile_mem_kind {
	PROFILE_MEM_UNKNOWN,	/* in no mapping the recording saw */
	PROFILE_MEM_GLOBAL,	/* a global variable of its module */
	PROFILE_MEM_STATIC,	/* a static one (local binding) */
	PROFILE_MEM_FILE,	/* a mapped file, no variable there */
	PROFILE_MEM_STACK,	/* the main thread's [stack] */
	PROFILE_MEM_HEAP,	/* [heap] or anonymous memory (thread stacks too) */
};
/* "unknown", "global", "static", "file", "stack", "heap". */
const char *profile_mem_kind__name(enum profile_mem_kind k);

struct profile_mem_object {
	const char *name;		/* the variable, or "[heap]", "[stack]", "[data]", "[unknown]" */
	const char *module;		/* its module's path, "" for none */
	enum profile_mem_kind kind;
	uint64_t start, size;		/* a variable's address in the process and size */
	uint64_t samples, weight;
};
/* The data objects, most weight first; owned by p, valid until the next
 * call or profile__delete. */
const struct profile_mem_object *profile__mem_objects(struct profile *p, size_t *nr);

/* A row's weight values summed (its loads' latency: the value table's
 * GX_SOURCE_WEIGHT values, profile_opts.weight_of), self; 0 without. The
 * data sources above split the same weight by a second dimension. */
uint64_t profile__row_weight(const struct profile *p, const struct profile_row *row);

/* The memory-access samples (with a data source) at address ip of process
 * pid, and their weight; false (both 0) when none. */
bool profile__mem_at(const struct profile *p, uint32_t pid, uint64_t ip, uint64_t *samples,
		     uint64_t *weight);

#define PROFILE_MEM_TIDS 8
struct profile_mem_line {
	uint32_t pid;
	uint64_t addr;			/* the line's first byte */
	const char *object;		/* the data object of its first sample */
	uint64_t samples, weight, loads, stores;
	uint64_t hitm_local, hitm_remote;	/* HITM loads (pd_mem_hitm) */
	uint8_t words;			/* bit i: bytes [8i, 8i+8) were touched */
	uint32_t nr_tids;		/* threads with HITM loads on it */
	uint32_t tids[PROFILE_MEM_TIDS];	/* the first of them */
};
/* The cache lines: those with HITM loads from most threads first (false
 * or true sharing: perf c2c's), then most HITMs, then weight. Owned by p,
 * valid until the next call or profile__delete. */
struct profile_mem_line *profile__mem_lines(struct profile *p, size_t *nr);

/* ---- off-CPU time (record --off-cpu; offcpu.c) ---------------------------
 *
 * The context-switch records give every thread's spans off the CPU; each
 * span gets a reason and a stack: switched out while runnable (the
 * kernel's preempt flag) is `cpu`, with the stack of the thread's last
 * sample before it; else the prober's read of that wait (offcpu.bin: its
 * syscall and kernel wait function give the reason, its scanned user
 * stack the functions), or `other` without a stack when no probe saw it.
 * The spans' time is credited to the profile it stands in front of, as
 * values after the recording's events (the value table, issue 45): the
 * value "off-cpu" (ns) and "off-cpu:REASON" beside it, each through the
 * profile's one sample path (a sample whose evsel is the value and whose
 * period is the wait), so that every row, range, region, call path and
 * export carries them as it carries an event's periods.
 */
enum profile_off_reason {
	PROFILE_OFF_SLEEP,	/* nanosleep, poll/select/epoll, pause, sigwait */
	PROFILE_OFF_IO,		/* read/write on files, pipes, sockets; disk waits */
	PROFILE_OFF_LOCK,	/* futex: mutexes, condition variables */
	PROFILE_OFF_CPU,	/* preempted while runnable */
	PROFILE_OFF_JOIN,	/* a thread's join (pthread_join, from its user stack) */
	PROFILE_OFF_CHILD,	/* a child process waited for (wait4, waitpid, waitid) */
	PROFILE_OFF_OTHER,	/* anything else, or not seen by a probe */
	PROFILE_OFF_NR_,
};

/* The off-CPU values: "off-cpu", then "off-cpu:<reason>" per reason. */
#define PROFILE_OFF_VALUES (1 + PROFILE_OFF_NR_)
/* The name of off-CPU value k (0: "off-cpu", 1 + r: reason r's); static. */
const char *profile_off_value__name(size_t k);

/* "sleep", "io", "lock", "cpu", "join", "child", "other". */
const char *profile_off_reason__name(enum profile_off_reason r);
/* The reason of a wait in syscall number nr (-1: none) of the machine
 * named ("x86_64", "aarch64"; uname -m), sleeping in kernel function wchan
 * ("" unknown). Never PROFILE_OFF_CPU. */
enum profile_off_reason profile_off_reason__classify(const char *machine, int32_t nr,
						     const char *wchan);

/* The reason of a wait from one kernel function of its stack at the
 * switch-out (sampled where the kernel allows it): futex and lock
 * functions lock, pipe, socket and file reads and writes io, nanosleep and
 * the poll family sleep; PROFILE_OFF_OTHER for the scheduler's own and
 * anything else (the caller tries the next frame). */
enum profile_off_reason profile_off_reason__classify_kernel(const char *function);

struct profile_off_thread {
	uint32_t pid, tid;
	const char *comm;		/* owned by the profile_offcpu */
	uint64_t start, end;		/* its lifetime: first and last record */
	uint64_t off_ns;		/* off the CPU within it */
	uint64_t reason_ns[PROFILE_OFF_NR_];
	uint64_t waits;			/* spans off the CPU */
	uint64_t short_ns;		/* of off_ns, waits under --off-cpu-min */
	uint64_t probed_ns;		/* of off_ns, waits with a stack */
	uint64_t switch_ns;		/* of off_ns, waits with a switch-out sample */
	/* private: the open span, the last sample and the last switch-out
	 * sample (a copy each) */
	uint64_t out_time;
	bool out, preempt, exited, switched;
	bool before;		/* the open wait began before the recording (-p) */
	size_t next_probe;
	struct profile_off_kept {
		struct pd_sample s;
		bool has;
		uint64_t *chain, *regs;
		uint8_t *stack;
	} last, sw;
};

struct profile_offcpu;

/*
 * An off-CPU analysis in front of inner (the run's profile tool, or a
 * filter in front of it, which gets every record as before, and every
 * wait as two samples: value0's, the off-CPU time, and value0 + 1 +
 * reason's; values the profile must have). into: that profile, whose
 * symbolizer and maps name a wait's kernel and user functions. probes may
 * be NULL (switch records only); borrowed, as is the attr of the
 * recording's first event (its sample_id_all layout). cs_evsel: the event
 * sampled at every switch-out (context-switches, period 1: where the
 * kernel allowed it), whose sample gives a wait its stack before a probe
 * does; -1 none. kernel_self: a wait's self on its kernel leaf
 * (--off-cpu-kernel). lo_ns..hi_ns: the recording's times (0, 0: not
 * known): a switch record outside them is dropped and counted. 0, or a
 * negative code with *cause.
 */
int profile_offcpu__new(struct profile_offcpu **out, struct pd_tool *inner,
			const struct perf_event_attr *attr0, const struct pd_offcpu *probes,
			int cs_evsel, struct profile *into, size_t value0, bool kernel_self,
			uint64_t lo_ns, uint64_t hi_ns, char **cause);
void profile_offcpu__delete(struct profile_offcpu *oc);
/* The tool to pass to perf_reader__process() instead of inner. */
struct pd_tool *profile_offcpu__tool(struct profile_offcpu *oc);
/* After the walk: spans still open end at end_ns (0: the last record). */
void profile_offcpu__finish(struct profile_offcpu *oc, uint64_t end_ns);
/* Whether any context-switch record was seen. */
bool profile_offcpu__has_switches(const struct profile_offcpu *oc);
/* Threads in order of tid's first record; borrowed. */
size_t profile_offcpu__nr_threads(const struct profile_offcpu *oc);
const struct profile_off_thread *profile_offcpu__thread(const struct profile_offcpu *oc,
							size_t i);
/* Every span off the CPU, in the order they ended (each thread's in time
 * order), for a timeline; borrowed. */
struct profile_off_span {
	uint64_t start, end;
	uint32_t tid;
	uint32_t reason;		/* enum profile_off_reason */
};
const struct profile_off_span *profile_offcpu__spans(const struct profile_offcpu *oc,
						     size_t *nr);
/* Switch records dropped: their time lay outside the recording (a damaged
 * or mutated file), or before the thread's previous switch. */
uint64_t profile_offcpu__dropped(const struct profile_offcpu *oc);

/*
 * The function at user address addr of process pid as p's maps and
 * symbolizer name it (borrowed, valid as long as p), or NULL when none
 * maps it. For the off-CPU reasons read from user frames.
 */
const char *profile__user_function(struct profile *p, uint32_t pid, uint64_t addr);

/* ---- branch stacks (branches.c; issue 42) --------------------------------
 *
 * Every sample's branch stack (PERF_SAMPLE_BRANCH_STACK) goes into
 * src/flow's range and branch counts, addresses the modules' own, a
 * module named by a string id (profile__string). NULL when no sample had
 * one; *wrong_path: entries left out as speculative (AMD's spec field).
 */
struct flow_stacks;
enum flow_kind;
const struct flow_stacks *profile__branch_stacks(const struct profile *p, uint64_t *wrong_path);
/* A string id's string (a module's path as recorded). */
const char *profile__string(const struct profile *p, uint32_t id);
/* For flow_graph__from_stacks (ctx: the profile): the length and kind of
 * the x86 branch at a module's address, from its file; 0 elsewhere. */
size_t profile__branch_insn(void *ctx, uint32_t module, uint64_t addr, enum flow_kind *kind);
/* The instructions of the block [start, end] of a module the branch
 * stacks named, from its file's bytes (flow_count_insns); 0: unknown. */
uint64_t profile__block_insns(const struct profile *p, uint32_t module, uint64_t start,
			      uint64_t end);

#endif /* GX_PROFILE_H */
