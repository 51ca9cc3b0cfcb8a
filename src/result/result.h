/*
 * result: a recording opened once, the way every view takes it.
 *
 * A result is a gexplore result directory (perf.data, meta.json, the slice
 * log) or a bare perf.data from any tool. gx_result__open() resolves the
 * name, reads meta.json and the slice log, opens perf.data, walks its
 * records once into a symbolized profile, loads the CPU's top-down model
 * and builds ONE event table: for every recorded event its display name,
 * its PMU, the model event it is, how it is scaled and its whole-run value,
 * plus the default sort event. report, check, diff, the exports, the
 * roofline and the TUI all read the recording through this object; none of
 * them opens a file of the result again.
 *
 * Like perf's perf_session: nothing here prints; errors come back as
 * negative codes with a message in *cause (the caller frees it).
 */
#ifndef GX_RESULT_H
#define GX_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow/flow.h"
#include "perfdata/perfdata.h"
#include "profile/profile.h"

struct gx_result;
struct mux_log;
struct sym_session;
struct td_model;
struct td_ctx;

/*
 * A modelled result priced again with another machine description (report
 * --model-machine; check and diff of results priced by two): the model
 * says, per sample of the events it prices, the samples it becomes
 * (src/model's model_reprice__sample); the result feeds those to the
 * profile, sets each such event's meta.json count to their sum, then lets
 * meta() say the rest (the description, the duration, a warning).
 */
struct gx_reprice_out {
	int slot;
	uint64_t period;
	uint64_t weight;	/* UINT64_MAX: the sample's own */
};
#define GX_REPRICE_MAX 16

struct gx_reprice {
	void *ctx;
	/* before the walk: the result directory to price again (0, or a
	 * negative code with *cause: the open fails with it) */
	int (*begin)(void *ctx, const char *dir, char **cause);
	/* the event's slot, -1: kept as recorded */
	int (*slot)(void *ctx, const char *event);
	/* what a sample of slot's event becomes (at most GX_REPRICE_MAX) */
	size_t (*sample)(void *ctx, int slot, const struct pd_sample *s,
			 struct gx_reprice_out *out);
	void (*meta)(void *ctx, struct gx_meta *m);
	/* flow.json's instruction of module (its index there) at a file
	 * address: its cycles priced again (NULL: as recorded) */
	double (*flow_cycles)(void *ctx, uint32_t module, uint64_t addr, double cycles);
};

struct gx_result_opts {
	const char *parent;	/* where the newest gxNNN is looked up; NULL: "." */
	const char *cpu;	/* --cpu: top-down model instead of the recorded one */
	int smt;		/* enum td_smt override; 0: the recording's */
	/*
	 * Symbol options (symfs, search paths, kallsyms, no_inline,
	 * max_stack), copied; env and the time slots are set by the result.
	 * NULL: none.
	 */
	const struct profile_opts *sym;
	/*
	 * Optional: every sample's resolved stack (the pprof exporter), and
	 * a call before the records are walked, when the reader and its env
	 * are open but the event table is not built yet.
	 */
	profile_stack_fn on_stack;
	void (*on_begin)(void *stack_ctx, const struct gx_result *r);
	void *stack_ctx;
	/*
	 * Optional: a tool that sees every record of the first walk before
	 * the profile does (the TUI keeps sample times and maps). Its
	 * callbacks must not stop the walk; borrowed during gx_result__open.
	 */
	struct pd_tool *tap;
	/*
	 * Optional: narrow the result to one region (gexplore-regions(3)):
	 * only the samples taken on a thread while it was inside an instance
	 * of this region make the profile, and every event's whole-run value
	 * is its samples' (a counting read covers the whole run). Opening
	 * fails when the result has no such region.
	 */
	const char *region;
	/*
	 * Keep every sample's time and rows (16 bytes a sample) so that
	 * gx_result__profile_range and gx_result__profile_region total in
	 * memory instead of walking perf.data again (the TUI's time ranges
	 * and regions). Not with region, whose profile has only its samples.
	 */
	bool keep_samples;
	/* Optional: price a modelled result again (struct gx_reprice); only
	 * for a result directory with meta.json */
	const struct gx_reprice *reprice;
};

/*
 * Open `arg`: a result directory, a perf.data file, "-" (pipe-mode
 * perf.data on stdin), or NULL for the newest gxNNN in o->parent. A
 * missing model, or none of its events recorded, is not an error (see
 * gx_result__model_why); an unknown --cpu model is. On success *out owns
 * everything until gx_result__delete().
 */
int gx_result__open(struct gx_result **out, const char *arg, const struct gx_result_opts *o,
		    char **cause);
void gx_result__delete(struct gx_result *r);

/* ---- what was opened (borrowed, valid as long as r) ----------------------- */

/* The directory, or the perf.data file when a bare file was named. */
const char *gx_result__path(const struct gx_result *r);
/* The result directory, NULL for a bare perf.data. */
const char *gx_result__dir(const struct gx_result *r);
/* meta.json, NULL when there is none (a bare perf.data). */
const struct gx_meta *gx_result__meta(const struct gx_result *r);
/* Whether its cycles are modelled, not measured (record --model). A view
 * asks the event instead (gx_event.kind): what each value is. */
bool gx_result__modelled(const struct gx_result *r);
struct perf_reader *gx_result__reader(const struct gx_result *r);
const struct pd_env *gx_result__env(const struct gx_result *r);
/* ---- control flow (issue 42; result/flow.c) ------------------------------ */

/* What the branches say: exact (a modelled run's flow.json: every
 * instruction's executions, callgrind's jumps) or from the samples'
 * branch stacks (AutoFDO's range and branch counts). Addresses are the
 * modules' own (what objdump prints); a module is a number for
 * gx_flow__module. */
struct gx_flow {
	bool exact;
	const struct flow_range *ranges;	/* none when exact */
	size_t nr_ranges;
	const struct flow_branch *branches;
	size_t nr_branches;
	struct flow_graph graph;		/* blocks, edges, loops */
	/* branch stacks: read, entries, spans dropped as bogus, duplicated
	 * first entries skipped, wrong-path entries left out */
	uint64_t stacks, entries, bogus, dups, wrong_path;
	/* private */
	char **modules;
	size_t nr_modules;
	struct flow_branch *own_branches;
	struct profile *prof;
};

/* The result's flow, loaded on the first call; NULL when it has none (no
 * branch stacks, not modelled) or flow.json is unreadable (*cause then,
 * when cause is not NULL). */
const struct gx_flow *gx_result__flow(struct gx_result *r, char **cause);
/* A module number's path as recorded. */
const char *gx_flow__module(const struct gx_flow *f, uint32_t module);
/* The function, source file ("" unknown) and line (0) at a module's
 * address; false when its file could not be read. */
bool gx_flow__where(const struct gx_flow *f, uint32_t module, uint64_t addr, const char **fn,
		    const char **file, uint32_t *line);

/* The symbolized profile of every sample. Not const: it sorts on demand. */
struct profile *gx_result__profile(const struct gx_result *r);
struct sym_session *gx_result__symbolizer(const struct gx_result *r);
/* The off-CPU analysis of a recording with context-switch records (record
 * --off-cpu, perf's --switch-events), else NULL: its threads and spans.
 * Its time per row is the value table's (gx_result__offcpu_value). */
struct profile_offcpu *gx_result__offcpu(const struct gx_result *r);
/* The event index of the value "off-cpu" (its reasons' follow it, in
 * enum profile_off_reason's order), SIZE_MAX without switch records. */
size_t gx_result__offcpu_value(const struct gx_result *r);
/* The slice log of a recording gexplore multiplexed itself, else NULL. */
const struct mux_log *gx_result__mux(const struct gx_result *r);
/* NULL when the result is whole, else why not, for a first line: meta.json
 * says the recording was interrupted, stopped by a signal or cut short by
 * a full disk (and how many records it dropped), or a result directory has
 * no meta.json: still being recorded (its directory is locked) or cut
 * short (gexplore killed). Owned by r. A bare perf.data file: NULL. */
const char *gx_result__incomplete(const struct gx_result *r);
/* "stopped with Ctrl-C (SIGINT)" when the user stopped the run (the result
 * is whole up to the stop, and checked as any), else NULL. Static. */
const char *gx_result__stopped(const struct gx_result *r);
/* How the recording ended, for JSON: meta.json's status ("complete",
 * "interrupted", "killed", "no-space", ...), "cut-short" or "being-recorded"
 * for a result directory without meta.json, "unknown" for a bare
 * perf.data. Static or owned by r. */
const char *gx_result__status(const struct gx_result *r);
/* Non-fatal problems met while opening (an unreadable slice log), in
 * order; the views show them with the reader's warnings. */
size_t gx_result__nr_notes(const struct gx_result *r);
const char *gx_result__note(const struct gx_result *r, size_t i);

/*
 * The build-id the recording gives a module (its BUILD_ID feature, for a
 * path as MMAP records name it): 0 with id (borrowed) and size, -ENOENT.
 */
int gx_result__build_id(const struct gx_result *r, const char *path, const uint8_t **id,
			size_t *size);

/* ---- the event table ---------------------------------------------------- */

/*
 * What an event's values are (issue 45, one profile, many values): a view
 * asks the event, never the run. SAMPLED: measured by the PMU or the
 * kernel (sampled or counted), so uncertain by sampling and run-to-run
 * noise: a view gives it an interval. EXACT: counted without error
 * (record --model's instructions:exact, branches:exact); MODELLED: computed
 * by a model from such counts (cycles:modelled, the simulated misses).
 * Neither of the last two has an interval, and a change of one is a
 * change, never noise.
 */
enum gx_kind {
	GX_KIND_SAMPLED,
	GX_KIND_EXACT,
	GX_KIND_MODELLED,
};
/* "sampled", "exact", "modelled" (static). */
const char *gx_kind_name(enum gx_kind k);
/* The kind of a value that rests on values of kinds a and b: sampled when
 * either is, else modelled when either is, else exact. */
enum gx_kind gx_kind_join(enum gx_kind a, enum gx_kind b);
/* Whether a value of kind k is deterministic: exact or modelled. */
static inline bool gx_kind_fixed(enum gx_kind k)
{
	return k != GX_KIND_SAMPLED;
}

/*
 * Where a value of the table comes from. The table is the recorded events
 * (each its samples' periods), then the values credited beside them
 * through the profile's one sample path, each a value index of the
 * profile's rows: a view reads value i of a row as it reads event i's and
 * need not know which it is.
 */
enum gx_source {
	GX_SOURCE_PERIOD,	/* a recorded event's sample periods */
	GX_SOURCE_WEIGHT,	/* a recorded event's sample weights (memory latency) */
	GX_SOURCE_OFFCPU,	/* the waits of context-switch records, in ns */
};

struct gx_event {
	const char *name;	/* display name: EVENT_DESC, else from the attr;
				   a value's: "off-cpu", "off-cpu:lock" */
	/* its PMU: "cpu", "cpu_core", "cpu_atom", "armv8_pmuv3_0",
	 * "software", "tracepoint", "breakpoint", or the dynamic type's
	 * name from the file's PMU mappings ("type 42" when unknown) */
	const char *pmu;
	const struct perf_event_attr *attr;
	/* has a sample period or frequency, or values read by another
	 * event's samples (a leader-sampled group member): per-row values */
	bool sampled;
	int model_event;	/* index of the model's event it counts, -1 */
	int group;		/* gexplore's multiplexing group, -1: always on */
	/* run time / the time its group was active: what its samples are
	 * multiplied by (1 when it was never rotated) */
	double scale;
	/* the share of the run it counted (gx_scale's running): < 1 when
	 * multiplexed (gexplore's rotation, the kernel's, group reads),
	 * NAN when not known; multiplexed: below GX_FULL_RUNNING */
	double running;
	bool multiplexed;
	/* whole-run value: the multiplexed estimate, the counting read
	 * (scaled by enabled/running), else the summed periods; NAN when not
	 * measured. counted: from a counting read or estimate. */
	double run_value;
	bool counted;
	uint64_t samples;	/* samples of it in the recording */
	/* what its values are: from its name's ":exact" or ":modelled"
	 * together with meta.json's "modelled" (record --model) */
	enum gx_kind kind;
	const char *unit;	/* "ns" (clocks, off-CPU time) or "events"; static */
	enum gx_source source;
	/* GX_SOURCE_OFFCPU: the reason (enum profile_off_reason) of an
	 * "off-cpu:REASON" value, -1 for "off-cpu" itself; else -1 */
	int reason;
};

size_t gx_result__nr_events(const struct gx_result *r);
/* The recorded events: the first of the table (perf.data's evsels, what
 * the slice log and meta.json count), the values credited beside them
 * after. */
size_t gx_result__nr_recorded(const struct gx_result *r);
const struct gx_event *gx_result__event(const struct gx_result *r, size_t i);
/*
 * The event named `name`: its display name (":u" and "/" suffixes
 * ignored), "PMU/NAME" for one PMU's copy, or a model event id. -ENOENT
 * when none; several copies on different PMUs: the one with most samples.
 */
int gx_result__find_event(const struct gx_result *r, const char *name, size_t *idx);
/*
 * The default sort event: the model's cycles event where it was sampled
 * and has samples, else hardware cycles with samples, else the first
 * sampled event with samples, else the first event. Every view orders its
 * rows by it unless the user names another (--event).
 */
size_t gx_result__sort_event(const struct gx_result *r);
/* Whether the sort event is the model's cycles (a clock for top-down). */
bool gx_result__sort_is_cycles(const struct gx_result *r);
/* The kind of the top-down model's values: the join of the kinds of the
 * events it reads (GX_KIND_SAMPLED when none). A row's share of the sort
 * event is the sort event's kind. */
enum gx_kind gx_result__model_kind(const struct gx_result *r);

/* Event i's value on one row: the row's summed periods times the event's
 * scale; NAN for an event that was only counted. */
double gx_result__row_value(const struct gx_result *r, const struct profile_row *row, size_t i);
/*
 * A row's cycles per instruction: its cycles over its instructions, each
 * summed over every copy of the event with per-row values (the core PMUs
 * of a hybrid machine; leader-sampled group members included). NAN when
 * either is not measured per row or no instruction was counted.
 */
double gx_result__row_cpi(const struct gx_result *r, const struct profile_row *row);
/* Whether rows have a CPI: cycles and instructions both have per-row values. */
bool gx_result__has_row_cpi(const struct gx_result *r);
/* MUX reliability of a row (gexplore-mux(7)) from the slice log; NAN when
 * the recording was not multiplexed by gexplore or the row saw no
 * reference sample. */
double gx_result__row_reliability(const struct gx_result *r, const struct profile_row *row);

/* ---- the top-down model --------------------------------------------------- */

/* The model id chosen (--cpu, meta.json's, perf's CPUID, else "generic"). */
const char *gx_result__model_id(const struct gx_result *r);
/* The model when it loaded and some recorded event is its own; else NULL
 * with the reason in gx_result__model_why(). */
const struct td_model *gx_result__model(const struct gx_result *r);
const char *gx_result__model_why(const struct gx_result *r);
/* What the model leaves out on a hybrid machine ("cpu_atom: no top-down
 * model for this core type ..."), or NULL. */
const char *gx_result__model_note(const struct gx_result *r);
/* Why the model could not be loaded (NULL when it was). */
const char *gx_result__model_error(const struct gx_result *r);
/* The model loaded, even when no recorded event is its own (NULL when it
 * could not be loaded). */
const struct td_model *gx_result__model_loaded(const struct gx_result *r);
/* SMT state and formula variant of the recording (with the --smt override). */
const struct td_ctx *gx_result__ctx(const struct gx_result *r);
/* event -> model event index (-1), gx_result__nr_events() entries. */
const int *gx_result__model_map(const struct gx_result *r);
/*
 * Per-event values (NAN: not measured) into the model's event counts
 * c[td_model__nr_events()] (NAN where nothing was measured). Copies of one
 * model event are combined only within one PMU (the core PMU's win),
 * weighted by the share of the run each was counted.
 */
void gx_result__model_counts(const struct gx_result *r, const double *event_values, double *c);
/* The whole run's model event counts (every event's run_value). */
void gx_result__run_counts(const struct gx_result *r, double *c);
/* The model event counts of a whole profile of this result (a region's,
 * a time range's): each sampled event's total period times its scale,
 * NAN for one counted only or unsupported. */
void gx_result__profile_counts(const struct gx_result *r, const struct profile *p, double *c);
/* One row's model event counts (gx_result__row_value of every event). */
void gx_result__row_counts(const struct gx_result *r, const struct profile_row *row, double *c);

/* ---- regions (gexplore-regions(3), regions.bin) ---------------------------
 * Loaded once with the result. An instance is one begin..end of a region
 * on one thread (an end matches the thread's innermost open begin; one
 * never ended ends with the recording). A sample is in a region when its
 * thread was inside one of the region's instances at the sample's time.
 */
struct gx_region {			/* one instance */
	const char *name;
	size_t name_idx;		/* into gx_result__region_name */
	uint32_t pid, tid;
	uint64_t begin, end;		/* ns, the samples' clock */
	uint16_t depth;			/* 1: outermost */
	bool unended;			/* no end marker: ended with the recording */
};

struct gx_region_name {			/* a region over its instances */
	const char *name;
	size_t instances;
	uint64_t total_ns;		/* summed over instances (threads overlap) */
	size_t threads;			/* distinct threads it ran on */
	uint64_t first, last;		/* first begin, last end */
};

/* Instances, by begin time; borrowed, valid as long as r. */
size_t gx_result__nr_regions(const struct gx_result *r);
const struct gx_region *gx_result__region(const struct gx_result *r, size_t i);
/* Distinct region names, in order of first begin. */
size_t gx_result__nr_region_names(const struct gx_result *r);
const struct gx_region_name *gx_result__region_name(const struct gx_result *r, size_t i);
/* The name's index; -ENOENT when the result has no region of that name. */
int gx_result__find_region(const struct gx_result *r, const char *name, size_t *idx);
/* How many markers were recorded (gx_mark points and pauses included). */
size_t gx_result__nr_markers(const struct gx_result *r);
/* Markers the workload dropped (lost like samples). */
uint64_t gx_result__markers_lost(const struct gx_result *r);
/* The region the result was narrowed to (gx_result_opts.region), or NULL. */
const char *gx_result__narrowed(const struct gx_result *r);
/* Samples of event e in the whole run, also when narrowed to a region. */
uint64_t gx_result__run_samples(const struct gx_result *r, size_t e);
/* A new profile of the samples in region name_idx (the caller's:
 * profile__delete). Opened with keep_samples: totalled in memory, its
 * names borrowed from the result (valid as long as r); else perf.data is
 * walked again, which a pipe-mode input cannot. */
int gx_result__profile_region(struct gx_result *r, size_t name_idx, struct profile **out,
			      char **cause);

/* ---- walking again -------------------------------------------------------- */

/*
 * A new profile of the samples with time in [lo, hi] (hi 0: no end; the
 * TUI's time range). On success *out is the caller's (profile__delete).
 * Opened with keep_samples: totalled in memory from the kept samples,
 * its names borrowed from the result (valid as long as r); else perf.data
 * is walked again and symbolized by the result's session options, which
 * a pipe-mode input cannot.
 */
int gx_result__profile_range(struct gx_result *r, uint64_t lo, uint64_t hi,
			     struct profile **out, char **cause);

#endif /* GX_RESULT_H */
