/*
 * collect: starting or attaching to the workload, perf_event_open, ring
 * buffers, and draining records into a sink.
 *
 * The drain loop never allocates and never symbolizes: records are copied
 * (wrapped ones through a preallocated bounce buffer) into the sink.
 * Nothing here prints; problems come back through *cause, and non-fatal
 * ones (fallbacks) as warnings on the session.
 */
#ifndef GX_COLLECT_H
#define GX_COLLECT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum collect_callgraph {
	COLLECT_CG_NONE,
	COLLECT_CG_FP,		/* -g: kernel frame-pointer callchains */
	COLLECT_CG_DWARF,	/* --call-graph dwarf: user regs + stack copy */
};

struct collect_opts {
	const char *events;	/* -e list; NULL: cycles,instructions, or
				   cpu-clock when there is no PMU */
	uint64_t sav;		/* -c: sample-after value for every event; 0 = event default */
	uint32_t freq;		/* -F: frequency mode in Hz; 0 = off */
	double rate;		/* --rate: multiplies every SAV; 1.0 = as is */
	enum collect_callgraph callgraph;
	/* -b / --branch-filter: every sampling event on a hardware PMU
	 * records branch stacks (PERF_SAMPLE_BRANCH_STACK) with this
	 * attr.branch_sample_type (PERF_SAMPLE_BRANCH_*); 0: none */
	uint64_t branch_sample_type;
	uint32_t stack_size;	/* dwarf: bytes of user stack to copy (default 8192) */
	pid_t pid;		/* -p: attach; 0 = start argv */
	bool system_wide;	/* -a: every CPU */
	char *const *argv;	/* the workload when pid == 0 and !system_wide,
				   or the command bounding an -a recording */
	uint32_t mmap_pages;	/* data pages per ring buffer (power of 2); 0 = default */
	bool no_inherit;	/* do not follow children and new threads */
	uint32_t round_ms;	/* the drain loop wakes (and calls round_end())
				   at least this often; 0 = 100 ms */
	/* Multiplexing by rotation (src/mux plans it): with two or more
	 * {groups}, only one group counts at a time, for slice_ms (0 = 10),
	 * in turn, switched from the drain loop; events outside every group
	 * (the reference) count all run. Every slice goes to slice_sink
	 * when it is set (src/mux's slice log: mux_log_sink__new). */
	bool rotate;
	uint32_t slice_ms;
	struct collect_slice_sink *slice_sink;
	/* The kernel's multiplexing, observed: without rotation, and with
	 * some event on a PMU (software events never leave their counter),
	 * every event is read each slice_ms and each period goes to
	 * slice_sink with what every event counted and the time it ran
	 * (collect_slice.running). */
	bool kernel_slices;
	/* A line for the user, from the drain loop (never from a signal
	 * handler): SIGINT came a second time and the workload still runs
	 * (it ignores or handles SIGINT; the line says SIGTERM stops it).
	 * msg is valid during the call. NULL: nothing is said. */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
	/* Regions (gexplore-regions(3)): with marker_sink set, a launched
	 * workload gets GEXPLORE_REGIONS naming a shared-memory ring its
	 * markers go into; the drain loop hands them to marker_sink. The
	 * ring also carries the in-process control (gx_pause/gx_resume). */
	struct collect_marker_sink *marker_sink;
	/* --control fifo:CTL[,ACK]: descriptors the drain loop reads
	 * "enable\n"/"disable\n" from and answers "ack\n" on (perf's
	 * protocol); has_control false: none. */
	bool has_control;
	int ctl_fd, ack_fd;		/* ack_fd -1: no answer */
	/* --delay: start with every event disabled and enable them after
	 * delay_ms; -1: until an "enable" arrives; 0: no delay */
	int delay_ms;
	/* --off-cpu: context-switch records (attr.context_switch on the
	 * first event: PERF_RECORD_SWITCH, allowed at perf_event_paranoid 2)
	 * and, with offcpu_sink set and a launched workload, a prober thread
	 * that every offcpu_probe_us (0: 2000) reads what the workload's
	 * sleeping threads wait on from /proc (collect_offcpu_probe) */
	bool off_cpu;
	uint32_t offcpu_probe_us;
	struct collect_offcpu_sink *offcpu_sink;
	/* -d/--data: every event's samples carry the data address (ADDR)
	 * and the data mappings are recorded (mmap_data), as perf record
	 * -d; --mem (collect_mem_events) also the latency (WEIGHT) and the
	 * data source (DATA_SRC), as perf record -W -d */
	bool data_addr;
	bool mem;
};

#define COLLECT_OFFCPU_FRAMES 64	/* most ips of a probe */

/* What a sleeping thread of the workload waited on, read from /proc while
 * it was off the CPU (see offcpu.c). Valid during the call. */
struct collect_offcpu_probe {
	uint64_t time;			/* CLOCK_MONOTONIC, the samples' clock */
	uint32_t pid, tid;
	int32_t syscall;		/* /proc/TID/syscall's number; -1: none */
	char state;			/* /proc/TID/stat's: 'S' or 'D' */
	const char *wchan;		/* the kernel wait function, "" unknown */
	const uint64_t *ips;		/* user pc then return addresses found on
					   the stack (a scan: see offcpu.c) */
	uint32_t nr_ips;
};

/* Where probes go (record's offcpu.bin writer). Called from the prober
 * thread only; 0 or a negative errno (an error stops the probes). */
struct collect_offcpu_sink {
	int (*probe)(struct collect_offcpu_sink *k, const struct collect_offcpu_probe *p);
};

/* One marker of the workload (gexplore-regions(3)), valid during the call. */
struct collect_marker {
	uint64_t time;			/* CLOCK_MONOTONIC, the samples' clock */
	uint32_t pid, tid;
	uint16_t kind;			/* GX_MARK_* of lib/regions/regions-shm.h */
	uint16_t depth;
	const char *name;
};

/* Where markers go (record's regions.bin writer). Called from the drain
 * loop: marker() must not allocate. flush() once at the end with the
 * markers the workload dropped (ring full, nesting too deep). 0 or a
 * negative errno; an error stops taking markers, not the recording. */
struct collect_marker_sink {
	int (*marker)(struct collect_marker_sink *k, const struct collect_marker *m);
	int (*flush)(struct collect_marker_sink *k, uint64_t lost);
};

/* One rotation slice: the group that counted, when, the workload's time
 * in it (its weight; 0 when unknown) and what each event counted in it
 * (0 for events of other groups and always-on events). */
struct collect_slice {
	uint32_t group;
	uint64_t start_ns, end_ns;
	uint64_t task_ns;
	const uint64_t *delta;		/* one value per event, valid during the call */
	/* a period of the kernel's multiplexing (kernel_slices): every event's
	 * running ns in it, valid during the call; NULL for a rotation slice */
	const uint64_t *running;
	/* and every event's time enabled in it: the largest growth of one
	 * descriptor's (the tasks' time, as read_counts finds it) */
	const uint64_t *enabled;
};

/*
 * Where rotation's slices go. collect knows no file format: src/mux
 * implements this (the slice log). Each call returns 0 or a negative
 * errno; an error ends the recording as a failed write does.
 */
struct collect_slice_sink {
	/* once the events are open: how many, the index of the always-on
	 * reference event (-1: none) and the requested slice length */
	int (*begin)(struct collect_slice_sink *k, size_t nr_events, int reference,
		     uint64_t slice_ns, char **cause);
	/* every slice, from the drain loop: must not allocate */
	int (*slice)(struct collect_slice_sink *k, const struct collect_slice *s);
	/* at the end: the always-on events' counts (count[nr_events]) */
	int (*totals)(struct collect_slice_sink *k, const uint64_t *count);
	/* the session ends (also after an error): write what is buffered */
	int (*flush)(struct collect_slice_sink *k);
};

struct collect_event {
	char *name;		/* as written by the user, or the default's name */
	struct perf_event_attr attr;	/* as opened (after any fallback) */
	uint64_t *ids;		/* kernel sample ids, one per opened fd */
	size_t nr_ids;
	int group;		/* index of the group, -1 when the event is alone */
	bool leader;
	/* {a,b}:S, leader sampling (perf's spelling): only the leader
	 * samples, and every sample reads the whole group's counts
	 * (PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_ID); members
	 * have no period of their own */
	bool leader_sampling;
	char group_mods[8];	/* the group's modifiers as written ("S", "Su"), "" */
	/* the CPUs it is opened on: a hybrid machine's core PMU's (see
	 * collect_parse_events); NULL: every online CPU */
	int *cpus;
	size_t nr_cpus;
	/* counting read taken after the workload ended (summed over CPUs);
	 * for tasks, time_enabled is the tasks' time (the largest summed
	 * running time of the session's events), so enabled/running is the
	 * multiplexing factor whatever the number of CPUs */
	bool has_count;
	uint64_t count, time_enabled, time_running;
};

struct collect_stats {
	uint64_t records;	/* records handed to the sink */
	uint64_t samples;	/* of which PERF_RECORD_SAMPLE */
	uint64_t bytes;
	uint64_t lost_records;	/* PERF_RECORD_LOST seen */
	uint64_t lost_events;	/* events they say were lost */
	uint64_t wakeups;
	pid_t child;		/* the workload's pid (0 with -p) */
	bool exited;		/* the workload exited ... */
	int exit_code;		/* ... with this code */
	int term_signal;	/* or was killed by this signal (0 if not) */
	bool keeper_died;	/* the keeper was killed before the workload ended:
				 * its status unknown, what it started may run on */
	int stop_signal;	/* the first SIGINT/SIGTERM/SIGHUP caught (0: none) */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC around the run */
	uint64_t slices;	/* rotation: slices logged */
	uint32_t nr_groups;	/* rotation: groups rotated (0: no rotation) */
	uint64_t markers;	/* regions: markers handed to the marker sink */
	uint64_t markers_lost;	/* dropped by the workload or by a failed sink */
	uint64_t controls;	/* enable/disable/ping commands obeyed */
	uint64_t controls_unknown;	/* other lines on a control channel, not obeyed */
	uint64_t offcpu_probes;	/* --off-cpu: waits the prober read */
	uint64_t offcpu_passes;	/* its passes over the workload's threads */
};

/* Where drained records go. Called from the drain loop: must not block for
 * long. record() gets whole records (one perf_event_header each);
 * round_end() is called after every full pass over the ring buffers. A
 * non-zero return stops the recording (the workload keeps running and is
 * waited for); it is returned by collect_session__run(). */
struct collect_sink {
	int (*record)(struct collect_sink *s, const void *rec, size_t len);
	int (*round_end)(struct collect_sink *s);
	/* optional: called once, when the workload was let go and executes
	 * its program, before the first drain: work that needs nothing of the
	 * run goes there, beside the exec, instead of after the run */
	void (*released)(struct collect_sink *s);
};

struct collect_session;

/*
 * Parse the events, fork the workload (held before exec until __run) or
 * find the target, open every counter (falling back to cpu-clock, with a
 * warning, when hardware events do not exist here) and map the ring
 * buffers. Errors name the event and the fix (perf_event_paranoid value,
 * CAP_PERFMON) in *cause. On failure any forked child is killed and reaped.
 */
int collect_session__new(struct collect_session **out, const struct collect_opts *o,
			 char **cause);

size_t collect_session__nr_events(const struct collect_session *s);
/* Borrowed; valid until collect_session__delete(). */
const struct collect_event *collect_session__event(const struct collect_session *s, size_t i);

size_t collect_session__nr_warnings(const struct collect_session *s);
const char *collect_session__warning(const struct collect_session *s, size_t i);

/*
 * True when this machine has no hardware counter for this process: cycles
 * cannot be opened (ENOENT, EOPNOTSUPP, ENODEV: a VM without a virtual
 * PMU). False when it opens, and for any other refusal (permissions),
 * which opening the events says better. Starts nothing; asked once a
 * process (a record asked it twice, and its events tried cycles again).
 */
bool collect_no_pmu(void);
/* After collect_no_pmu: why cycles did not open (strerror), or NULL. */
const char *collect_no_pmu_why(void);

/* True when the events opened are hardware (PMU) events. */
bool collect_session__has_pmu(const struct collect_session *s);

/*
 * Synthesize COMM/MMAP2 (and FORK) records for tasks that already run (-p,
 * -a), release the workload, drain the ring buffers until it exits (or, for
 * -p / -a without a command, until SIGINT/SIGTERM), then drain what is
 * left and take the counting reads. While running, SIGINT, SIGTERM and
 * SIGHUP are forwarded to the workload. Returns 0 or a negative code.
 */
int collect_session__run(struct collect_session *s, struct collect_sink *sink, char **cause);

const struct collect_stats *collect_session__stats(const struct collect_session *s);

/*
 * Enable or disable event i on every CPU and target from a sink's
 * round_end(); a group leader takes its whole group (PERF_IOC_FLAG_GROUP),
 * and inherited copies in threads and children follow. A workload's events
 * are enabled by its exec, so act from the first round_end() on. 0 or
 * -errno. (opts.rotate does the rotation itself, toggling leaders only.)
 */
int collect_session__enable_event(struct collect_session *s, size_t i, bool enable);

/* A counting read of event i now, summed over CPUs and targets (what
 * __run stores in collect_event at the end). 0, -ENODATA when nothing
 * could be read, -EINVAL for a bad index. */
int collect_session__read_event(const struct collect_session *s, size_t i, uint64_t *count,
				uint64_t *enabled, uint64_t *running);

/* Where collect_session__sample_cost found its figure. */
enum collect_cost_from {
	COLLECT_COST_NONE,	/* nowhere: *ns is NAN */
	COLLECT_COST_MEASURED,	/* calibrated now */
	COLLECT_COST_CACHED,	/* read from the cache, calibrated by an earlier run */
};

/*
 * What one sample cost the workload in the kernel, in ns (*ns; NAN when
 * it could not be measured): call after __run. The calling thread spins a
 * fixed amount of work, three times without and three times with a
 * cpu-clock event sampling it every 20 us in samples shaped like the
 * first sampling event's (sample_type, call chain, user stack copy); the
 * difference of the fastest runs over the samples taken is the cost.
 * About 30 ms of CPU. It is a timer interrupt's sample: a software
 * counter's (taken in the faulting or switching path) costs less, a
 * hardware counter's NMI about as much.
 *
 * cache_dir (NULL: none) keeps the figure: a file per machine (the text
 * `machine` names it, the CPU model and the kernel release) and sample
 * shape, read instead of the spin when it is there, written (the
 * directory made) after a spin; a cache that cannot be read or written is
 * no error. *from says which. 0, or a negative errno (no sampling event,
 * perf_event_open or mmap refused).
 */
int collect_session__sample_cost(const struct collect_session *s, const char *cache_dir,
				 const char *machine, double *ns, enum collect_cost_from *from);

/* Close everything; kills and reaps a workload that never ran. */
void collect_session__delete(struct collect_session *s);

/*
 * Resolve an event list (-e syntax: comma-separated; libpfm4 names such as
 * INST_RETIRED:ANY_P or skl::INST_RETIRED:ANY_P, perf generic names such as
 * cycles, instructions, cpu-clock, task-clock, page-faults, with :u :k :p
 * :pp :ppp modifiers; {a,b} groups, {a,b}:S for leader sampling, and :u
 * or :k after a group for all its events) into attrs filled as they would be opened with opts
 * (sample_type, read_format, period or freq, precise_ip, callchain bits),
 * without opening anything. Used by record, by `gexplore list` and by the
 * perf_event_attr golden tests. *out is an allocated array of *nr events;
 * free with collect_events__free(). Not applied here, but by
 * collect_session__new(): exclude_kernel/exclude_hv when
 * perf_event_paranoid >= 2 and the process is not privileged (with a
 * warning), and the precise_ip the kernel accepts. Software counters
 * (page-faults, ...) sampled with a period > 1 have no PERF_SAMPLE_PERIOD
 * in sample_type: their period is attr.sample_period. Errors: GX_E_EVENT
 * with a one-line cause naming the event.
 */
int collect_parse_events(const char *spec, const struct collect_opts *o,
			 struct collect_event **out, size_t *nr, char **cause);
void collect_events__free(struct collect_event *ev, size_t nr);

/*
 * Whether the event is an Arm common architectural event that this
 * machine's core PMU does not implement: the arm_pmu driver lists the
 * implemented ones (PMCEID) in its sysfs events/ directory, and any other
 * opens and reads 0. False wherever that cannot be told (other PMUs, an
 * IMPLEMENTATION DEFINED event, no events/ directory). GX_SYSFS replaces
 * /sys for tests.
 */
bool collect_pmu_lacks_event(const struct perf_event_attr *a);

/*
 * This CPU's memory-access sampling (mem.c), as an event list for
 * collect_opts.events (*spec, the caller's), loads above ldlat cycles:
 * Intel's load-latency and store events, AMD's IBS op. An error with a
 * *cause that says what there is and what to do: GX_E_PERM (with check:
 * IBS, unprivileged under a perf_event_paranoid above 1), GX_E_NOTSUP
 * (Arm SPE), GX_E_NOPMU (none: `--model`). GX_SYSFS replaces /sys.
 */
#define COLLECT_MEM_LDLAT 30
int collect_mem_events(unsigned ldlat, bool check, char **spec, char **cause);

/* ---- a command under the keeper, counted by nothing (child.c) -------------
 * For a program that counts the workload itself (record --model's
 * Valgrind): started as record starts a workload, under the keeper, so
 * that a gexplore gone without a word (a SIGKILL included) leaves nothing
 * of it running.
 */
struct collect_child;

/*
 * Start argv now (execvp's PATH search), env ("NAME=value", NULL: none)
 * added to its environment, its standard output and error /dev/null when
 * quiet, else gexplore's. GX_E_CHILD with a cause when it cannot be run.
 * *out is freed by collect_child__delete().
 */
int collect_child__start(struct collect_child **out, char *const *argv, const char *env,
			 bool quiet, char **cause);
/* The command's pid; 0 once collect_child__wait() said it ended. */
pid_t collect_child__pid(const struct collect_child *c);
/* A descriptor that polls readable when the command ends; -1 once it did. */
int collect_child__fd(const struct collect_child *c);
/* Whether the command ended (block: wait until it does); *status is its
 * wait status, -1 when unknown (the keeper died). */
bool collect_child__wait(struct collect_child *c, bool block, int *status);
/* Send sig to the command and to every process under the keeper (what it
 * started, and what reparented to the keeper, also once the command
 * ended), found in /proc; how many it was sent to (0: none is left). */
size_t collect_child__signal(struct collect_child *c, int sig);
/* The command still running: killed with everything under the keeper;
 * ended: the keeper told so and reaped (what it left running is left, as
 * after a native record). NULL: nothing. */
void collect_child__delete(struct collect_child *c);

/*
 * perf's -j/--branch-filter: MODE[,MODE...] of any, any_call, any_ret,
 * ind_call, ind_jmp, call, cond, abort_tx, in_tx, no_tx, save_type,
 * stack, hw_index, no_flags, no_cycles and the levels u, k, hv, as
 * PERF_SAMPLE_BRANCH_* bits into *bits; levels alone mean any of them
 * (perf's rule). 0, or GX_E_USAGE with *cause naming the bad word.
 */
int collect_branch_filter(const char *spec, uint64_t *bits, char **cause);

#endif /* GX_COLLECT_H */
