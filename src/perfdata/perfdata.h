/*
 * perfdata: the result directory and what it holds — the perf.data file
 * (writer and reader, file and pipe mode) and meta.json.
 *
 * The reader follows Linux perf's perf_tool pattern: records are parsed in
 * place and handed to callbacks, so recorded and live data share one path.
 * Nothing here prints; errors come back as negative codes with a message in
 * *cause (caller frees).
 */
#ifndef GX_PERFDATA_H
#define GX_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ======================================================================
 * Events as stored in perf.data
 * ==================================================================== */

struct pd_evsel {
	struct perf_event_attr attr;	/* attr.size as stored; unknown tail dropped */
	char *name;			/* EVENT_DESC name, or a generated one */
	uint64_t *ids;			/* sample ids that belong to this event */
	size_t nr_ids;
};

struct pd_pmu {				/* PMU_MAPPINGS entry */
	uint32_t type;			/* perf_event_attr.type of the PMU */
	char *name;			/* "cpu", "cpu_core", "armv8_pmuv3_0", ... */
};

struct pd_group {			/* GROUP_DESC entry */
	char *name;			/* may be NULL or "" */
	uint32_t leader_idx;		/* index of the leader in the evsel list */
	uint32_t nr_members;
};

struct pd_build_id {
	int32_t pid;			/* -1 for the kernel / any */
	uint16_t misc;			/* PERF_RECORD_MISC_KERNEL/USER ... */
	uint8_t size;			/* bytes used in id[] (20 for SHA-1) */
	uint8_t id[20];
	char *filename;
};

/* Facts stored in the header feature sections. Strings may be NULL. */
struct pd_env {
	char *hostname, *osrelease, *version, *arch;
	char *cpudesc, *cpuid;
	uint32_t nr_cpus_online, nr_cpus_avail;
	char **cmdline;			/* argv of the recording command */
	uint32_t nr_cmdline;
	struct pd_build_id *build_ids;
	size_t nr_build_ids;
	struct pd_group *groups;
	size_t nr_groups;
	struct pd_pmu *pmus;		/* PMU_MAPPINGS: dynamic PMU types */
	size_t nr_pmus;
};

/* Fill env with this machine's facts (uname, /proc/cpuinfo, sysconf) and
 * a copy of argv. Build ids and groups are left empty. 0 or -errno. */
int pd_env__from_system(struct pd_env *env, int argc, char *const *argv);
void pd_env__exit(struct pd_env *env);

/* The GNU build-id of the ELF file at path (preads, else libelf). 0, or a
 * negative code (-ENOENT, GX_E_FORMAT when it is not ELF or has no
 * build-id, GX_E_NOTSUP when only libelf could read it and it is missing). */
int pd_read_build_id(const char *path, uint8_t id[20], uint8_t *size);

/* ======================================================================
 * Writer: header and attrs first (data size 0), records appended, data
 * size re-written at every flush, features at the end. A killed or
 * full-disk recording is therefore readable up to the last flush.
 * ==================================================================== */

struct perf_writer;

/* Create path (gx_create_at(): a new file, 0600, never through a symlink;
 * one already there is replaced) and write the header and the attr section
 * for the nr evsels. The evsels are copied. On success *out owns the file
 * until perf_writer__delete(). */
int perf_writer__new(struct perf_writer **out, const char *path,
		     const struct pd_evsel *evsels, size_t nr, char **cause);
/* The same with path relative to the directory dirfd (the result's). */
int perf_writer__new_at(struct perf_writer **out, int dirfd, const char *path,
			const struct pd_evsel *evsels, size_t nr, char **cause);

/* Append one or more complete records (each starts with a
 * perf_event_header). Buffered; never allocates after __new. */
int perf_writer__write(struct perf_writer *w, const void *rec, size_t len);

/* Append a PERF_RECORD_FINISHED_ROUND marker (end of one drain of every
 * ring buffer), then flush. */
int perf_writer__finished_round(struct perf_writer *w);

/* Write buffered records and update the header's data size. */
int perf_writer__flush(struct perf_writer *w);

/* Records that never reached the file: those buffered when a write failed
 * and every one given after (the writer's error is sticky). */
uint64_t perf_writer__dropped(const struct perf_writer *w);
/* Whether any record data reached the file: the data size written in the
 * header, or bytes past the data offset that a failed write left (a
 * reader takes a data size of 0 as "up to the end of the file"). */
bool perf_writer__has_data(const struct perf_writer *w);

/* Bytes of record data written so far. */
uint64_t perf_writer__data_size(const struct perf_writer *w);

/* Flush, then write the feature sections from env (BUILD_ID, HOSTNAME,
 * OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID, CMDLINE, EVENT_DESC,
 * GROUP_DESC, and the rest perf needs to read without warnings) and the
 * final header. The file is complete after this returns 0. */
int perf_writer__finish(struct perf_writer *w, const struct pd_env *env, char **cause);

/* Close the file (without finishing it if __finish was not called) and
 * free w. NULL is a no-op. */
void perf_writer__delete(struct perf_writer *w);

/* ======================================================================
 * Reader
 * ==================================================================== */

struct pd_read_value {
	uint64_t value, id, lost;
	/* the event it counts: by id with PERF_FORMAT_ID, else by position
	 * (the sampled event, then the group's next events in the file's
	 * order); UINT32_MAX when the id is not in the file */
	uint32_t evsel;
};

#define PD_MAX_READ_VALUES 64

struct pd_read {			/* PERF_SAMPLE_READ payload */
	uint64_t time_enabled, time_running;
	uint32_t nr;			/* 1 without PERF_FORMAT_GROUP */
	struct pd_read_value values[PD_MAX_READ_VALUES];
};

/* One PERF_RECORD_SAMPLE, parsed in place. Pointers point into the
 * reader's buffer and are valid only during the callback. Fields absent
 * from the event's sample_type are 0 / NULL. */
struct pd_sample {
	uint32_t evsel;			/* index of the event (by id or the only one) */
	uint16_t misc;			/* header misc: PERF_RECORD_MISC_CPUMODE_MASK */
	uint64_t sample_type;
	uint64_t id, ip, time, addr, stream_id;
	uint64_t period;		/* from the record, else attr.sample_period */
	uint32_t pid, tid, cpu;
	uint64_t weight, data_src, transaction, phys_addr;
	uint64_t nr_callchain;
	const uint64_t *callchain;	/* includes PERF_CONTEXT_* markers */
	uint32_t raw_size;
	const void *raw;
	const struct pd_read *read;	/* NULL without PERF_SAMPLE_READ */
	uint64_t nr_branches;
	const struct perf_branch_entry *branches;
	uint64_t user_abi;		/* PERF_SAMPLE_REGS_ABI_*, 0 = none */
	uint64_t user_regs_mask;
	const uint64_t *user_regs;	/* popcount(mask) values */
	uint64_t stack_size;		/* bytes in stack[] */
	const void *stack;
	uint64_t stack_dyn_size;	/* bytes of stack[] that are valid */
};

struct pd_mmap {			/* PERF_RECORD_MMAP or MMAP2 */
	uint32_t pid, tid;
	uint16_t misc;
	uint64_t start, len, pgoff;
	bool is_mmap2;
	bool has_build_id;		/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	uint8_t build_id[20];
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	const char *filename;		/* valid during the callback */
	uint64_t time;			/* from sample_id_all, else 0 */
};

struct pd_comm {
	uint32_t pid, tid;
	bool exec;			/* PERF_RECORD_MISC_COMM_EXEC */
	const char *comm;		/* valid during the callback */
	uint64_t time;
};

struct pd_task {			/* PERF_RECORD_FORK / EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct pd_lost {			/* PERF_RECORD_LOST, LOST_SAMPLES */
	uint64_t id;
	uint64_t lost;
	bool samples;			/* from PERF_RECORD_LOST_SAMPLES */
};

/* Callbacks; NULL ones are skipped. A non-zero return stops processing and
 * is returned by perf_reader__process(). Embed in a larger struct and use
 * container_of-style casts for state (as perf_tool). */
struct pd_tool {
	int (*sample)(struct pd_tool *t, const struct pd_sample *s);
	int (*mmap)(struct pd_tool *t, const struct pd_mmap *m);
	int (*comm)(struct pd_tool *t, const struct pd_comm *c);
	int (*fork)(struct pd_tool *t, const struct pd_task *e);
	int (*exit)(struct pd_tool *t, const struct pd_task *e);
	int (*lost)(struct pd_tool *t, const struct pd_lost *l);
	/* every other record, raw (decompressed), with its file offset */
	int (*other)(struct pd_tool *t, const struct perf_event_header *h, uint64_t offset);
};

struct pd_stats {
	uint64_t nr_records;
	uint64_t nr_samples;
	uint64_t nr_lost_records;	/* PERF_RECORD_LOST records */
	uint64_t nr_lost;		/* events lost, summed */
	uint64_t nr_lost_samples;	/* from PERF_RECORD_LOST_SAMPLES */
	uint64_t nr_by_type[PERF_RECORD_MAX];
	uint64_t data_bytes;		/* bytes of data processed */
	uint64_t truncated_at;		/* file offset where reading stopped early, or 0 */
	uint64_t first_time, last_time;	/* sample time range (0 when absent) */
	/* a file read through its window (perf_reader__set_window): the
	 * buffer's size at the end (it grows for a record larger than the
	 * window), and the bytes read through it */
	uint64_t window_peak, window_read;
};

enum pd_flags {
	PD_ORDERED = 1 << 0,	/* deliver records sorted by time within
				   FINISHED_ROUND windows, as perf does */
	PD_REGULAR = 1 << 1,	/* a file of a result: anything but a regular
				   file (a FIFO, a device) is refused unread */
	PD_NOFOLLOW = 1 << 2,	/* a file of a result directory: opened through
				   gx_open_regular_nofollow, never through a link */
};

struct perf_reader;

/* Open a perf.data file (file mode PERFILE2 or pipe mode; path "-" reads
 * stdin in pipe mode). Validates the header and attrs; reads the feature
 * sections. Refuses the old PERFFILE v1 format, garbage and unknown
 * versions with a message naming the byte offset. */
int perf_reader__open(struct perf_reader **out, const char *path, unsigned flags,
		      char **cause);

/*
 * A file's data section is walked through a window: read(2) into a buffer
 * of `bytes` (records still queued for ordered delivery are copied out of
 * it), so a walk holds the window and the queue, not the file. 0: walk
 * the file's mapping instead (its pages stay resident as they are read).
 * The default is PD_WINDOW_DEFAULT. A pipe is always read in a buffer.
 */
#define PD_WINDOW_DEFAULT (4u << 20)
void perf_reader__set_window(struct perf_reader *r, size_t bytes);

size_t perf_reader__nr_evsels(const struct perf_reader *r);
const struct pd_evsel *perf_reader__evsel(const struct perf_reader *r, size_t i);
const struct pd_env *perf_reader__env(const struct perf_reader *r);
bool perf_reader__is_pipe(const struct perf_reader *r);

/* Walk the data section once, calling tool. Truncated or corrupt data
 * stops the walk at the last complete record: that is a warning (see
 * __warnings), not an error, when anything was read. */
int perf_reader__process(struct perf_reader *r, struct pd_tool *tool, char **cause);

const struct pd_stats *perf_reader__stats(const struct perf_reader *r);
/* Non-fatal problems found so far ("truncated at byte N; 98% of data kept"). */
size_t perf_reader__nr_warnings(const struct perf_reader *r);
const char *perf_reader__warning(const struct perf_reader *r, size_t i);

void perf_reader__delete(struct perf_reader *r);

/* Walk the data of an open reader and add to env a build-id entry for
 * every file that MMAP/MMAP2 records name and that samples hit (read with
 * pd_read_build_id, or taken from MMAP2 build ids). Used by `record` to
 * complete the BUILD_ID feature before perf_writer__finish(). */
int pd_collect_build_ids(struct perf_reader *r, struct pd_env *env, char **cause);
/* The same for the perf.data file at path (a result's: a regular file,
 * not reached through a link), read in time order, opened and closed here. */
int pd_collect_build_ids_file(const char *path, struct pd_env *env, char **cause);

/* ---- the archive: a result's copies of its binaries ----------------------
 *
 * DIR/.build-id/xx/rest/elf is the file with build-id xxrest (hex), and
 * .../debug its separate debug file when one was found, perf's build-id
 * cache layout. Symbolization reads them before the recorded paths.
 */
/* The cap gexplore puts on an archive unless told (--archive-max). */
#define PD_ARCHIVE_MAX_DEFAULT (512ULL << 20)
struct pd_archive_opts {
	uint64_t max_bytes;		/* stop adding files past this; 0: no cap */
	const char *symfs;		/* prefix of every recorded path, or NULL */
	/* each file not archived and why (mismatch, missing, over the cap) */
	void (*warn)(void *ctx, const char *msg);
	void *ctx;
	/* asked before each file: true stops the archive there (what was
	 * archived stays); NULL: never */
	bool (*stop)(void *ctx);
};

struct pd_archive_stats {
	size_t files;			/* files added (binaries and debug files) */
	size_t linked;			/* of which hard links */
	size_t present;			/* build-ids already in the archive */
	size_t skipped;			/* not added: missing, changed, over the cap */
	uint64_t bytes;			/* size of the files added */
	size_t listed;			/* entries of the BUILD_ID list */
};

/*
 * Add to dir's archive every file of env's BUILD_ID list (absolute paths;
 * not the kernel or [vdso]) whose file still has the recorded build-id,
 * with its debug file (/usr/lib/debug/.build-id, or .gnu_debuglink's name
 * beside the file, in its .debug/ or under /usr/lib/debug). Hard links
 * where possible, else copies (0600, O_EXCL, never through a symlink);
 * files are added in the list's order while their sizes fit max_bytes.
 * Files that cannot be added are warnings, not errors. 0, or a negative
 * code with *cause when dir's archive cannot be written.
 */
int pd_archive(const char *dir, const struct pd_env *env, const struct pd_archive_opts *o,
	       struct pd_archive_stats *st, char **cause);
/* The same for the BUILD_ID list of the perf.data file at data (a
 * recording without one, perf record --no-buildid, archives nothing:
 * st->listed is 0). Also an error when data is no perf.data. */
int pd_archive_file(const char *data, const char *dir, const struct pd_archive_opts *o,
		    struct pd_archive_stats *st, char **cause);

/* ---- memory-access samples: data_src and weight (mem.c) ------------------
 *
 * A load or store sampled by the CPU's memory sampling (Intel's load
 * latency, AMD IBS op, Arm SPE) carries its data address (ADDR,
 * PHYS_ADDR), its latency (WEIGHT, or WEIGHT_STRUCT's three parts) and
 * where it was served (DATA_SRC: union perf_mem_data_src). The texts are
 * Linux perf's (6.1): a row named here is the row perf mem report shows.
 */
enum pd_mem_field {
	PD_MEM_OP,		/* "LOAD", "STORE", "PFETCH", "EXEC", "N/A", "No" */
	PD_MEM_LVL,		/* perf mem's "Memory access": "L1 hit", "LFB/MAB hit",
				   "Local RAM or RAM hit", "Remote Cache (1 hop) hit" */
	PD_MEM_SNOOP,		/* "None", "Hit", "Miss", "HitM", "Fwd", "Peer", "N/A" */
	PD_MEM_TLB,		/* "L1 or L2 hit", "Walker miss", "N/A" */
	PD_MEM_LOCK,		/* "Yes", "No", "N/A" */
	PD_MEM_BLK,		/* " Data", " Addr", " N/A" (perf's leading space) */
};

/* Field f of data_src as perf prints it, into buf (size bytes, always
 * terminated; 128 hold any); returns buf. */
const char *pd_mem_str(uint64_t data_src, enum pd_mem_field f, char *buf, size_t size);
/* perf script's data_src text: "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2
 * hit|LCK No|BLK  N/A" (512 bytes hold any); returns buf. */
const char *pd_mem_script(uint64_t data_src, char *buf, size_t size);

enum pd_mem_hitm {
	PD_HITM_NONE,
	PD_HITM_LOCAL,		/* a load served by a modified line in another core's
				   cache of this socket (L2/L3 hit, snoop HitM) */
	PD_HITM_REMOTE,		/* ... of another socket's cache */
};
/* Whether the load of data_src hit a line another core had modified, as
 * perf c2c counts its HITMs: the sign of sharing a cache line. */
enum pd_mem_hitm pd_mem_hitm(uint64_t data_src);
bool pd_mem_is_load(uint64_t data_src);
bool pd_mem_is_store(uint64_t data_src);

/* A sample's weight: with PERF_SAMPLE_WEIGHT_STRUCT, var1 is the latency
 * (Intel: the load's cache latency, AMD IBS: the data cache miss latency),
 * var2 and var3 the vendor's other two (pd_weight_names); with
 * PERF_SAMPLE_WEIGHT the whole u64 is the latency. All 0 without either. */
struct pd_weight {
	uint64_t latency;
	uint16_t var2, var3;
	bool is_struct;
};
void pd_weight__split(const struct pd_sample *s, struct pd_weight *w);
/* What var2 and var3 mean on the recording's architecture (pd_env.arch,
 * may be NULL): "ins_lat" (the instruction's latency), and "retire_lat"
 * (Intel) or "p_stage_cyc" (Power's pipeline stage cycles). Static. */
void pd_weight_names(const char *arch, const char **var2, const char **var3);

/* ======================================================================
 * The result directory and meta.json
 * ==================================================================== */

#define GX_META_VERSION_MAJOR 1
#define GX_META_VERSION_MINOR 4

struct gx_meta_event {
	char *name;			/* as given or defaulted */
	char *encoding;			/* e.g. "type=0 config=0x0" */
	uint64_t sav;			/* sample-after value, 0 in frequency mode */
	uint32_t freq;			/* Hz in frequency mode, else 0 */
	int precise;			/* precise_ip used */
	int group;			/* group index, -1 when alone */
	bool has_count;
	uint64_t count, time_enabled, time_running;	/* counting read at the end */
	/* 1.2: the CPU's PMU does not implement it (it opened and read 0):
	 * not a measurement */
	bool unsupported;
	/* 1.1: multiplexed whole-run estimate with its 95% interval and the
	 * factor applied to what the event saw (run time / its group's time) */
	bool has_estimate;
	double estimate, estimate_lo, estimate_hi, scale;
	/* 1.3: the kernel multiplexed it and its periods were logged
	 * (gexplore-mux(7), Kernel multiplexing): its MUX reliability */
	bool has_reliability;
	double reliability;
};

/* 1.1: the "mux" section (mode NULL: none). Per-row reliability is not
 * stored: readers compute it for any row from the slice log. */
struct gx_meta_mux {
	char *mode;			/* "gexplore", "kernel", "runs", "none" */
	uint32_t slice_ms;
	uint32_t nr_groups;
	uint64_t nr_slices;
	uint32_t min_slices;		/* fewest slices a group got */
	char *slice_log;		/* file in the result dir ("slices.bin"), or NULL */
	int reference;			/* event index of the reference event, -1 */
	double reliability;		/* whole run; NAN: n/a */
};

/* The longest time meta.json's durations may hold (about 116 days). */
#define GX_META_MAX_SECONDS 1e7
/* The largest meta.json read (a real one is a few kB; the event list is
 * bounded by the counters a machine can have). */
#define GX_META_MAX_SIZE (16u << 20)

/* One price of a machine description (gexplore-record(1), MODELLED
 * RESULTS): its key ("l2_latency"), its value and where the figure comes
 * from; text (llvm-mca's -mcpu) instead of a number where not NULL. */
struct gx_meta_price {
	char *key;
	double value;
	char *text;
	char *source;
};

/* The machine description a modelled result was priced with: its name,
 * title and the file it was read from, and every price, in the file's
 * order; name NULL: none (a measured result, or one recorded before
 * descriptions). */
struct gx_meta_machine {
	char *name, *title, *file;
	struct gx_meta_price *prices;
	size_t nr_prices;
};

struct gx_meta {
	uint32_t version_major, version_minor;
	char *gexplore_version;
	char **argv;			/* the workload command, or NULL for -p / -a */
	uint32_t argc;
	int32_t target_pid;		/* -p, else 0 */
	bool system_wide;
	bool exited;			/* the workload exited normally */
	int exit_code;			/* its exit code, when exited */
	int term_signal;		/* the signal that killed it, or 0 */
	char *cpu_desc;			/* model name */
	char *cpu_model;		/* top-down model id, or NULL */
	char *cpu_variant;		/* its formula variant ("gp"), or NULL for the default */
	int smt;			/* 1 on, 0 off, -1 unknown */
	bool pmu;			/* hardware counters opened */
	/* 1.4: no counter counted this: the workload ran under Valgrind and
	 * cycles are modelled (gexplore-record(1) --model); instructions and
	 * branches are exact, misses and mispredicts simulated */
	bool modelled;
	char *callgraph;		/* "none", "fp", "dwarf,8192" */
	double rate;
	struct gx_meta_event *events;
	size_t nr_events;
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC, same as sample times */
	double duration_s;		/* wall-clock of the workload; NAN: unknown */
	uint64_t lost_records, lost_events;
	/* 1.2: how the recording ended (GX_META_STATUS_*; NULL when read from
	 * an older result: complete), and the records that never reached
	 * perf.data (a write failed: full disk) */
	char *status;
	uint64_t dropped_records;
	/* regions (gexplore-regions(3)): markers written to regions.bin and
	 * markers lost (the ring was full, nesting too deep); 0/0: none */
	uint64_t markers, markers_lost;
	/* --off-cpu (optional): how the waits were taken ("switch": the kernel's
	 * context-switch records only; "switch+proc": and the prober's reads
	 * of /proc; NULL: not recorded), the probes written to offcpu.bin,
	 * the probe interval and --off-cpu-min, in us */
	char *off_cpu;
	uint64_t off_cpu_probes;
	uint32_t off_cpu_probe_us, off_cpu_min_us;
	double self_cpu_s;		/* gexplore's own user+system CPU time; NAN: unknown */
	/* 1.3: the kernel's cost of sampling, charged to the workload:
	 * samples taken x the cost of one, calibrated at the end of the
	 * recording (collect_sample_cost); NAN: not measured */
	uint64_t sample_records;	/* PERF_RECORD_SAMPLE records written */
	double sample_cost_ns;		/* one sample's cost in the kernel */
	double sampling_s;		/* sample_records x sample_cost_ns */
	/* where sample_cost_ns came from: GX_META_COST_*; NULL: not said */
	char *sample_cost_from;
	char **warnings;
	size_t nr_warnings;
	struct gx_meta_mux mux;		/* 1.1 */
	/* a modelled result's machine description (model_machine), and the
	 * model run's own wall-clock time (model_run_s; NAN: not said):
	 * duration_s is then the program's modelled time, cycles over the
	 * description's clock */
	struct gx_meta_machine machine;
	double model_run_s;
	/* the conditional branch predictor the model simulated
	 * (model_predictor: GX_PREDICTOR_*); NULL when not said: results
	 * before it was recorded ran callgrind's (GX_PREDICTOR_2BIT) */
	char *model_predictor;
	/* the revision of the model's pricing rules (model_rules,
	 * GX_MODEL_RULES); 0 when not said: results before revision 1 */
	int model_rules;
};

#define GX_PREDICTOR_TAGE "tage"	/* gxgrind's tagged predictor */
#define GX_PREDICTOR_2BIT "2bit"	/* callgrind's: 16 K two-bit counters */
/* The model's pricing rules: 1, misses at random in flight between two
 * mispredicts (model.terms GXTERMS6); 2, misses near their instruction's
 * miss before counted apart and priced by bandwidth, but a chain's
 * (GXTERMS7); 3, a first touch of a page of memory of no file no miss,
 * its lines in each cache (gxgrind's counts). Results of two revisions
 * price the same program differently: they are not compared. */
#define GX_MODEL_RULES 3

#define GX_META_STATUS_COMPLETE "complete"		/* ran to its end */
#define GX_META_STATUS_INTERRUPTED "interrupted"	/* SIGINT reached gexplore: the user
							 * stopped the run; whole */
#define GX_META_STATUS_KILLED "killed"			/* SIGTERM or SIGHUP did */
#define GX_META_STATUS_NOSPACE "no-space"		/* a write failed: disk full */
#define GX_META_STATUS_WRITE_ERROR "write-error"	/* a write failed otherwise */
#define GX_META_STATUS_FAILED "failed"			/* the collection failed */
#define GX_META_STATUS_INCOMPLETE "incomplete"	/* a third SIGINT cut the wrap-up */
#define GX_META_STATUS_KEEPER "keeper-killed"	/* the keeper was killed under the run */

#define GX_META_COST_MEASURED "measured"	/* calibrated by this recording */
#define GX_META_COST_CACHED "cached"		/* calibrated earlier on this machine and kernel */

/* The price key of mm (NULL: none there). */
const struct gx_meta_price *gx_meta_machine__price(const struct gx_meta_machine *mm,
						   const char *key);
/*
 * Whether two modelled results were priced alike: NULL when a and b name
 * the same description with the same prices, else one line saying which
 * descriptions and the first price that differs (or that one has none),
 * allocated; not escaped (the printer escapes it). an and bn name the
 * results in it.
 */
char *gx_meta_machine__differs(const struct gx_meta_machine *a, const char *an,
			       const struct gx_meta_machine *b, const char *bn);
/*
 * Whether two modelled results simulated the same branch predictor: NULL
 * when they did, else one line naming both (allocated; not escaped: the
 * names are meta.json's, the printer escapes them). Mispredicts are
 * counts, not prices: no description can price one like the other.
 */
char *gx_meta__predictor_differs(const struct gx_meta *a, const char *an,
				 const struct gx_meta *b, const char *bn);
/* The same for the model's pricing rules (model_rules): NULL when alike
 * or either is measured. */
char *gx_meta__rules_differ(const struct gx_meta *a, const char *an, const struct gx_meta *b,
			    const char *bn);
void gx_meta_machine__exit(struct gx_meta_machine *mm);

/* NULL when m says its recording is complete (a run the user stopped with
 * Ctrl-C included: whole up to the stop), else a short phrase for a first
 * line: "stopped by SIGTERM or SIGHUP", "cut short: the disk was full,
 * 120 records dropped". Owned by the caller. */
char *gx_meta__incomplete(const struct gx_meta *m);
/* A static phrase when the user stopped m's run (Ctrl-C, SIGINT) and its
 * result is whole up to the stop: "stopped with Ctrl-C (SIGINT)"; else
 * NULL. */
const char *gx_meta__stopped(const struct gx_meta *m);

void gx_meta__init(struct gx_meta *m);
void gx_meta__exit(struct gx_meta *m);
void gx_meta__add_warning(struct gx_meta *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Write m as DIR/meta.json (via a temporary file and rename). */
int gx_meta__write(const struct gx_meta *m, const char *dir, char **cause);
/* The same in the directory dirfd (named dir in messages): the temporary
 * file is created with gx_create_at() (0600, no symlink followed), synced,
 * and renamed over meta.json. */
int gx_meta__write_at(const struct gx_meta *m, int dirfd, const char *dir, char **cause);
/* Read DIR/meta.json. Unknown fields are ignored; a newer major version is
 * refused. A duration or CPU time that is absent, not a number or out of
 * [0, GX_META_MAX_SECONDS] reads as NAN (unknown), with a warning in
 * m->warnings when present but wrong. */
int gx_meta__read(struct gx_meta *m, const char *dir, char **cause);

/*
 * Create the result directory: `dir` when given (it must not exist or be
 * empty; with PD_RESULT_DIR_REUSE, record --force, it may hold an old
 * result), else the next free gxNNN under `parent`. A directory created
 * here is 0700. It is opened and locked (flock, exclusive) before the
 * emptiness check: a second run naming it fails with -EBUSY; a regular
 * file there fails with -ENOTDIR. *path_out is allocated; *dirfd_out
 * (when not NULL) is the open directory, holding the lock until closed
 * (the files of the result are created relative to it); with NULL the
 * lock is let go at once.
 */
#define PD_RESULT_DIR_REUSE 1u
int pd_result_dir__create(const char *dir, const char *parent, unsigned flags,
			  char **path_out, int *dirfd_out, char **cause);

/* Remove what a failed record created in the result directory dirfd
 * (perf.data, meta.json and its temporary file, slices.bin), then the
 * directory path itself when that left it empty. */
void pd_result_dir__discard(int dirfd, const char *path);

/* Whether a gexplore record holds the lock of the result directory path
 * (it is being recorded now). */
bool pd_result_dir__locked(const char *path);

/*
 * Who may own a result read as root: root or the invoking user (its uid,
 * or SUDO_UID under sudo); true: anyone (report's --any-owner). Process-
 * wide, set by src/cmd from the command line before a result is opened.
 */
void pd_result_dir__set_any_owner(bool any);

/*
 * Whether the result directory dir may be read or archived into, without
 * following a link out of it: perf.data, meta.json, slices.bin,
 * regions.bin and .build-id (and every entry of .build-id, two levels
 * down) must not be symbolic links; as root, dir and the directories of
 * .build-id must be owned by root or the invoking user (unless
 * pd_result_dir__set_any_owner) and writable by no one else. 0, or a
 * negative code with a one-line *cause.
 */
int pd_result_dir__check(const char *dir, char **cause);

/* Resolve a RESULT argument: a result directory, a perf.data file, or NULL
 * for the newest whole gxNNN in `parent`: one with perf.data and a
 * meta.json that says it is complete, not locked by a record; the newer
 * ones skipped are named in *note (allocated, or NULL; note may be NULL).
 * *data_out is the perf.data path; *dir_out the result directory or NULL
 * when a bare perf.data was named. Both allocated. A directory must pass
 * pd_result_dir__check (the newest search skips one that does not). */
int pd_result_dir__resolve(const char *arg, const char *parent, char **dir_out,
			   char **data_out, char **note, char **cause);

/* ---- regions.bin: the workload's markers (gexplore-regions(3)) ------------
 *
 * Written by record from the markers its workload sent, in the order they
 * were drained (per thread in time order; across threads not sorted).
 * Little-endian, as the host wrote it (gexplore-result(5)):
 *
 *   header, 64 bytes: magic "GXREGNS1", u32 version (1), u32 record size
 *     (128), u64 markers, u64 markers lost, u32 clock id (1:
 *     CLOCK_MONOTONIC, the samples' clock), 28 bytes zero
 *   then one 128-byte record per marker: struct pd_marker
 */
#define PD_REGIONS_FILE "regions.bin"
#define PD_REGIONS_MAGIC "GXREGNS1"
#define PD_REGIONS_VERSION 1
#define PD_REGIONS_NAME 104

enum pd_marker_kind {
	PD_MARK_BEGIN = 1,		/* gx_region_begin */
	PD_MARK_END = 2,		/* gx_region_end: name of the region it ends */
	PD_MARK_POINT = 3,		/* gx_mark */
	PD_MARK_PAUSE = 4,		/* gx_pause */
	PD_MARK_RESUME = 5,		/* gx_resume */
};

struct pd_marker {			/* 128 bytes */
	uint64_t time;			/* ns, CLOCK_MONOTONIC */
	uint32_t pid, tid;
	uint16_t kind;			/* enum pd_marker_kind */
	uint16_t depth;			/* the thread's open regions, this one included */
	uint32_t reserved;
	char name[PD_REGIONS_NAME];	/* NUL-terminated */
};

struct pd_regions_writer;

/* Create path in the directory dirfd (AT_FDCWD: path as it is): a new
 * file, 0600, never through a symlink (gx_create_at). *out is the
 * caller's until __delete. */
int pd_regions_writer__new(struct pd_regions_writer **out, int dirfd, const char *path,
			   char **cause);
/* Buffer one marker; never allocates; writes when the buffer is full. 0
 * or -errno. name is truncated to PD_REGIONS_NAME - 1 bytes. */
int pd_regions_writer__add(struct pd_regions_writer *w, uint64_t time, uint32_t pid, uint32_t tid,
			   uint16_t kind, uint16_t depth, const char *name);
/* Write what is buffered and the header with the counts. */
int pd_regions_writer__finish(struct pd_regions_writer *w, uint64_t lost, char **cause);
void pd_regions_writer__delete(struct pd_regions_writer *w);

/* Read a regions.bin: *out (caller frees) holds *nr markers; *lost the
 * markers the workload dropped. Names are NUL-terminated whatever the
 * file says. -ENOENT when there is no file, GX_E_FORMAT when it is not
 * one (with *cause). */
int pd_regions__read(const char *path, struct pd_marker **out, size_t *nr, uint64_t *lost,
		     char **cause);

/* ---- offcpu.bin: what the workload's threads waited on (--off-cpu) -------
 *
 * Written by record from collect's off-CPU prober: one probe per wait it
 * saw, in the order taken (time order). Little-endian, as the host wrote
 * it (gexplore-result(5)):
 *
 *   header, 64 bytes: magic "GXOFFCP1", u32 version (1), u32 probe
 *     interval in us, u64 probes, 16 bytes machine (uname -m, for the
 *     syscall numbers), u32 --off-cpu-min in us, 20 bytes zero
 *   then per probe a 64-byte struct pd_offcpu_probe and its nr_ips u64
 *   addresses (the user pc, then the return addresses found above SP)
 */
#define PD_OFFCPU_FILE "offcpu.bin"
#define PD_OFFCPU_MAGIC "GXOFFCP1"
#define PD_OFFCPU_VERSION 1
#define PD_OFFCPU_MAX_IPS 64
#define PD_OFFCPU_WCHAN 36

struct pd_offcpu_probe {		/* 64 bytes */
	uint64_t time;			/* ns, CLOCK_MONOTONIC */
	uint32_t pid, tid;
	int32_t syscall;		/* -1: not in a syscall, or unknown */
	uint16_t nr_ips;
	char state;			/* 'S' or 'D' */
	uint8_t reserved;
	char wchan[PD_OFFCPU_WCHAN];	/* NUL-terminated; "" unknown */
};

struct pd_offcpu_writer;

/* Create path in dirfd (as pd_regions_writer__new) for probes taken every
 * probe_us, waits under min_us to be left out of stacks. */
int pd_offcpu_writer__new(struct pd_offcpu_writer **out, int dirfd, const char *path,
			  uint32_t probe_us, uint32_t min_us, char **cause);
/* One probe (ips beyond PD_OFFCPU_MAX_IPS dropped); buffered. 0 or -errno. */
int pd_offcpu_writer__add(struct pd_offcpu_writer *w, const struct pd_offcpu_probe *p,
			  const uint64_t *ips);
int pd_offcpu_writer__finish(struct pd_offcpu_writer *w, char **cause);
void pd_offcpu_writer__delete(struct pd_offcpu_writer *w);

/* An offcpu.bin read whole. */
struct pd_offcpu {
	uint32_t probe_us, min_us;
	char machine[16];		/* NUL-terminated */
	struct pd_offcpu_probe *probes;	/* nr */
	uint64_t **ips;			/* ips[i]: probes[i].nr_ips addresses */
	size_t nr;
};

/* Read path into *out (the caller's: pd_offcpu__delete). -ENOENT (no
 * message) when there is none; GX_E_FORMAT or GX_E_VERSION with *cause.
 * A probe cut short at the end is left out. */
int pd_offcpu__read(const char *path, struct pd_offcpu **out, char **cause);
void pd_offcpu__delete(struct pd_offcpu *o);

/* A number for a JSON document: v, or null where it is not one (NaN, an
 * infinity), as meta.json, the slice log and the reports write them. A
 * new reference (jansson's json_t). */
struct json_t;
struct json_t *pd_json_real(double v);

#endif /* GX_PERFDATA_H */
