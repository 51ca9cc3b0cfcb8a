/*
 * mux: multiplexing — packing events into groups that fit the counters,
 * the time-slice rotation's log, scaling, MUX reliability and confidence
 * intervals.
 *
 * mux never opens a counter: collect does that on its behalf (it rotates
 * the groups from its drain loop and writes the slice log described
 * below through mux_log_writer). mux plans before a recording and
 * analyses after it.
 *
 *	record:  mux_counters__detect() -> mux_plan__model() -> mux_plan__spec()
 *	         (or mux_spec_normalize() for an explicit -e '{a,b},{c,d}')
 *	         -> collect (rotation, DIR/slices.bin)
 *	analyse: mux_log__read(DIR/slices.bin) -> mux_log__estimate() (whole run)
 *	         per row: a profile with slot_of = mux_log__group_at splits
 *	         the reference event's samples by group (slot_period), then
 *	         mux_log__row_reliability(); event estimates of a row are
 *	         sample periods x mux_log__scale(event)
 *	         mux_estimate__render() / __to_json() for the report
 *
 * MUX reliability (gexplore-mux(7)): with f_g the fraction of the run during
 * which group g was active, C_r the reference event's count in row r and
 * C_rg the part of it that fell in g's slices,
 *	rho_rg = C_rg / (f_g C_r)
 *	reliability_r = 1 - min(1, sqrt(mean_g (rho_rg - 1)^2))
 * 1 is ideal, >= 0.9 reliable, < 0.7 unreliable. A row with no reference
 * count has reliability NAN (n/a).
 *
 * Nothing here prints; errors come back as negative codes with *cause.
 */
#ifndef GX_MUX_H
#define GX_MUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "util/util.h"

struct td_model;
struct td_ctx;

#define MUX_RELIABLE 0.9	/* >= : reliable */
#define MUX_UNRELIABLE 0.7	/* < : not */
#define MUX_DEFAULT_SLICE_MS 10
/* Fewer slices than this per group make a "run longer" hint. */
#define MUX_MIN_SLICES 10

enum mux_mode {
	MUX_MODE_NONE,		/* one group (or none): nothing rotates */
	MUX_MODE_GEXPLORE,	/* gexplore rotates the groups in time slices */
	MUX_MODE_KERNEL,	/* everything open; the kernel rotates */
	MUX_MODE_RUNS,		/* one run of the workload per group */
};
/* "none", "gexplore", "kernel", "runs". */
const char *mux_mode_name(enum mux_mode m);
/* Parse "gexplore" / "kernel" (as given to --mux); -EINVAL otherwise. */
int mux_mode_parse(const char *s, enum mux_mode *out);

/* ======================================================================
 * Scaling: the one rule is util's gx_scale (src/util/scale.c), below
 * topdown, whose perf stat input goes through it too
 * ==================================================================== */

/* ======================================================================
 * Counters and the planner
 * ==================================================================== */

struct mux_counters {
	int gp;			/* general counters usable per logical CPU */
	int fixed;		/* fixed counters */
	bool smt;		/* SMT on (the gp figure already accounts for it) */
	bool nmi_watchdog;	/* the watchdog holds one general counter (gp is
				   already one less) */
	const char *source;	/* "cpuid", "model" (static string) */
};

/*
 * Counters available for model m: CPUID leaf 0xA when the host is an
 * Intel CPU that m describes and CPUID reports counters (not in most VMs),
 * else the model's gp_smt_on / gp_smt_off; one general counter fewer when
 * nmi_watchdog (pass mux_nmi_watchdog_active() for this host). host: the
 * model was detected on this machine (not --cpu).
 */
void mux_counters__detect(struct mux_counters *c, const struct td_model *m, bool smt,
			  bool nmi_watchdog, bool host);
/* /proc/sys/kernel/nmi_watchdog is 1. */
bool mux_nmi_watchdog_active(void);

/* Where an event goes. */
enum mux_slot {
	MUX_SLOT_ALWAYS,	/* fixed counter outside the rotation (always on) */
	MUX_SLOT_GROUP,		/* member of a rotating group */
};

struct mux_plan_event {
	int event;		/* model event index */
	int group;		/* group index, -1 for MUX_SLOT_ALWAYS */
	enum mux_slot slot;
	uint32_t counter_mask;	/* general counters it may use (bit i = counter i) */
};

struct mux_plan_group {
	int *events;		/* model event indexes, leader first */
	size_t nr;
	bool perf_metrics;	/* led by slots, holds the PERF_METRICS events */
	int gp_used;		/* general counters taken */
};

struct mux_plan {
	struct mux_counters counters;
	struct mux_plan_event *ev;	/* one per planned (needed) event */
	size_t nr_ev;
	struct mux_plan_group *groups;
	size_t nr_groups;
	int *always;		/* model events always on (fixed counters) */
	size_t nr_always;
	int reference;		/* model event index of the reference (cycles), or -1 */
	char **hints;		/* NULL-terminated, owned */
};

/*
 * Pack the events model m needs under ctx (td_model__needed_events, every
 * level) into groups for counters c:
 *  - fixed-counter events (instructions, cycles, ref-cycles) stay on all
 *    run, outside the rotation; cycles is the reference event;
 *  - PERF_METRICS events (group_hint "perf_metrics") go into one group led
 *    by the model's slots event, and only there;
 *  - events one metric formula names directly are kept in one group where
 *    they fit together (largest sets first);
 *  - every group fits: its general events can be given distinct counters
 *    within their counter masks (Intel's per-event restrictions, from a
 *    built-in table);
 *  - an event that fits nowhere alone (its mask is empty) is an error.
 * *plan is filled (free with mux_plan__exit()). Hints: the NMI watchdog's
 * counter and how to free it, the number of groups and what it costs.
 */
int mux_plan__model(struct mux_plan *plan, const struct td_model *m, const struct td_ctx *ctx,
		    const struct mux_counters *c, char **cause);
void mux_plan__exit(struct mux_plan *plan);

/* General counters event i of model m may use (bit per counter), from the
 * built-in restriction table; all gp counters when unrestricted. */
uint32_t mux_event_counter_mask(const struct td_model *m, size_t i, int gp);

enum mux_spelling {
	MUX_SPELL_COLLECT,	/* gexplore record -e: raw encodings, period=SAV */
	MUX_SPELL_PERF,		/* perf stat -e: perf's names (slots, topdown-*) */
};

/*
 * The plan as an event list: the always-on events first (the reference
 * first of all), then each group in braces, e.g.
 * "cycles,instructions,{slots,topdown-retiring,...},{r1c2,...}" in perf's
 * spelling. Newly allocated.
 */
char *mux_plan__spec(const struct mux_plan *plan, const struct td_model *m, enum mux_spelling sp);
/* The plan as text (what `gexplore list` prints), appended to sb. */
void mux_plan__render(const struct mux_plan *plan, const struct td_model *m, struct strbuf *sb);

/*
 * An explicit -e list made ready for rotation: events outside braces
 * first (the first of them is the reference), then the groups in order.
 * When no event stands outside a group, `reference` ("cycles", or
 * "cpu-clock" without a PMU) is put first. *nr_groups gets the number of
 * groups. Newly allocated; GX_E_EVENT for a list collect cannot parse.
 */
int mux_spec_normalize(const char *spec, const char *reference, char **out, size_t *nr_groups,
		       char **cause);
/*
 * For --mux-runs: one -e list per group of a normalized spec, each with
 * the always-on events and that one group ("cpu-clock,{a,b}"). *runs is a
 * NULL-terminated array (free with td-style mux_strv_free()).
 */
int mux_spec_split_runs(const char *spec, char ***runs, size_t *nr, char **cause);
void mux_strv_free(char **v);

/* ======================================================================
 * The slice log: DIR/slices.bin, written through mux_log_writer (as
 * collect's slice sink) during the run, read by mux_log__read
 * ==================================================================== */

/*
 * Layout (host byte order, all fields 64-bit aligned):
 *   header:  char magic[8] = "GXSLICE2"; u32 nr_events; u32 reference
 *            (event index, UINT32_MAX when none); u64 slice_ns (the
 *            requested slice length)
 *   slice:   u32 group; u32 flags; u64 start_ns; u64 end_ns; u64 task_ns;
 *            u64 delta[nr_events]
 * delta[e] is how much event e counted during the slice: the group's
 * counting reads (PERF_FORMAT_GROUP) taken at each switch, differenced;
 * events of other groups and always-on events have 0 (reading an
 * always-on event of a running task costs a cross-CPU call). task_ns is
 * the workload's time in the slice: the group's running time summed over
 * its descriptors (the weight of the slice). A last record with flags
 * MUX_SLICE_TOTALS holds the always-on events' counts at the end of the
 * run in delta[] (group, start, end, task_ns 0).
 * "GXSLICE1" logs (no task_ns; the always-on events read every slice)
 * are still read.
 */
#define MUX_LOG_MAGIC "GXSLICE2"
#define MUX_SLICE_TOTALS 1u
/*
 * The kernel's rotation (--mux=kernel, more ungrouped events than
 * counters) leaves no slices of its own: collect reads every event each
 * slice length instead, and each such period is two records with group
 * UINT32_MAX (which earlier readers stop at): flags MUX_SLICE_KERNEL,
 * task_ns the tasks' time in the period (their events' time enabled),
 * delta[e] what event e counted in the period, then flags
 * MUX_SLICE_KERNEL | MUX_SLICE_RUNNING, delta[e] the nanoseconds event e
 * was on a counter in it (the reads' time running, differenced), then
 * (when known) flags MUX_SLICE_KERNEL | MUX_SLICE_ENABLED, delta[e] the
 * tasks' time in it read with event e (its time enabled).
 */
#define MUX_SLICE_KERNEL 2u
#define MUX_SLICE_RUNNING 4u
#define MUX_SLICE_ENABLED 8u
#define MUX_KERNEL_GROUP UINT32_MAX

struct mux_slice {
	uint32_t group;
	uint64_t start_ns, end_ns;
	uint64_t task_ns;	/* the workload's time in it; 0 when unknown */
	const uint64_t *delta;	/* nr_events values, inside the log */
	const uint64_t *running;	/* a kernel period's running ns per event
					   (group MUX_KERNEL_GROUP); else NULL */
	const uint64_t *enabled;	/* and its enabled ns per event, or NULL */
};

/*
 * Writing a slice log. collect (through the sink) calls __slice and
 * __totals from its drain loop: they never allocate (records go into a buffer allocated by __new
 * and are written when it fills, and by __totals and __flush).
 */
struct mux_log_writer;

/*
 * Create name in the directory dirfd (AT_FDCWD: name is a path; a new
 * file, 0600, never through a symlink; a file already there is replaced)
 * and write the header: nr_events events (1..4096),
 * reference event index or -1, the requested slice length. *out is owned
 * by the caller: free with mux_log_writer__delete(). 0, or a negative
 * errno with *cause naming the file.
 */
int mux_log_writer__new(struct mux_log_writer **out, int dirfd, const char *name,
			size_t nr_events, int reference, uint64_t slice_ns, char **cause);
/* Append one slice; s->delta holds nr_events values (copied, not kept);
 * with s->running set, a kernel period (its two records).
 * 0, or the -errno of a failed write (the records buffered before this
 * one are dropped then; this one stays buffered). */
int mux_log_writer__slice(struct mux_log_writer *w, const struct mux_slice *s);
/* Append the last record (MUX_SLICE_TOTALS): count[e] for every event;
 * readers keep those of the always-on events. Writes everything buffered.
 * 0 or -errno. */
int mux_log_writer__totals(struct mux_log_writer *w, const uint64_t *count);
/* Write what is buffered; 0 or -errno. */
int mux_log_writer__flush(struct mux_log_writer *w);
/* Write what is still buffered (an error is lost: __flush first to see
 * it), close the file and free w. NULL is a no-op. */
void mux_log_writer__delete(struct mux_log_writer *w);

/*
 * The slice log as collect's slice sink (collect_opts.slice_sink): the
 * writer for name in dirfd (borrowed: keep it open while collect runs)
 * is created when collect begins, and every slice and the
 * totals are written through it. Free with mux_log_sink__delete (which
 * writes what is still buffered).
 */
struct collect_slice_sink;
struct collect_slice_sink *mux_log_sink__new(int dirfd, const char *name);
void mux_log_sink__delete(struct collect_slice_sink *k);

struct mux_log;

/* Read and check a slice log; truncated trailing slices are dropped. */
int mux_log__read(struct mux_log **out, const char *path, char **cause);
/*
 * Build a log in memory (tests, synthetic data): nr_events events whose
 * group is group_of[e] (-1: always on), reference event index or -1.
 */
struct mux_log *mux_log__new(size_t nr_events, const int *group_of, int reference,
			     uint64_t slice_ns);
void mux_log__add(struct mux_log *l, uint32_t group, uint64_t start_ns, uint64_t end_ns,
		  uint64_t task_ns, const uint64_t *delta);
/* The always-on events' whole-run counts (count[e] for every event; only
 * those of events in no group are kept; without it their slice deltas are
 * summed). The log's totals record sets them. */
void mux_log__set_totals(struct mux_log *l, const uint64_t *count);
/* Set the group of each event (mux_log__read cannot know it: pass the
 * events' group indexes from meta.json; -1 = always on). */
void mux_log__set_groups(struct mux_log *l, const int *group_of, size_t nr);
void mux_log__delete(struct mux_log *l);

size_t mux_log__nr_slices(const struct mux_log *l);
const struct mux_slice *mux_log__slice(const struct mux_log *l, size_t i);
size_t mux_log__nr_events(const struct mux_log *l);
size_t mux_log__nr_groups(const struct mux_log *l);
int mux_log__reference(const struct mux_log *l);
/* Slice holding time t (binary search), or -1 outside every slice. */
ssize_t mux_log__find(const struct mux_log *l, uint64_t t);
/* Total ns of slices / of group g's slices; fraction f_g. */
uint64_t mux_log__run_ns(const struct mux_log *l);
uint64_t mux_log__group_ns(const struct mux_log *l, uint32_t g);
/* The factor that turns what event e saw in a row into the row's
 * estimate: run time (the slices and the gaps between them) / time its
 * group was active (wall clock; 1 for always-on events; 0 when the group
 * never ran), through gx_scale. Row estimates = sample periods x this
 * (DESIGN section 4). */
double mux_log__scale(const struct mux_log *l, size_t e);

/*
 * The kernel's periods (records MUX_SLICE_KERNEL): the tasks' time in one
 * period (task_ns, their events' time enabled; 0 unknown), count[e] and
 * running[e] (ns on a counter) of every event in it.
 */
void mux_log__add_kernel(struct mux_log *l, uint64_t start_ns, uint64_t end_ns, uint64_t task_ns,
			 const uint64_t *count, const uint64_t *running);
/* The tasks' time in the last period added as read with each event
 * (enabled[e]): used instead of its task_ns for that event. */
void mux_log__set_kernel_enabled(struct mux_log *l, const uint64_t *enabled);
size_t mux_log__nr_kernel(const struct mux_log *l);

/*
 * A kernel-multiplexed event's estimate (gexplore-mux(7), Kernel
 * multiplexing): the one rule on its whole-run read (count, enabled,
 * running), and from the periods, where it counted c_p in u_p ns on a
 * counter, with R = sum c_p / sum u_p its rate while running:
 *  - the interval: the ratio estimator's standard error over the periods,
 *	se(R) = sqrt(sum (c_p - R u_p)^2 / (n (n-1))) / mean(u_p)
 *    times the share of the run it did not see, sqrt(1 - running/enabled),
 *    t(n-1) of it either way, and MUX_KERNEL_SLACK of it, around both the
 *    estimate and the periods' own scaling, sum c_p T_p / u_p over the
 *    periods (T_p the tasks' time in p, read with the event when the log
 *    has it; R T_p where it did not run), when
 *    the tasks' times are known: the kernel may give an event more of
 *    its counter in one phase of the run than in another;
 *  - the reliability: 1 - min(1, sqrt(sum u_p (rho_p - 1)^2 / sum u_p))
 *    with rho_p = (c_p / u_p) / R: 1 when its rate was the same whenever it
 *    ran, lower as the rate changed between periods.
 * An event that never left its counter is exact (lo = hi = value,
 * reliability NAN); fewer than 2 periods in which it ran: no interval
 * (NAN), reliability NAN.
 */
struct mux_kernel_estimate {
	double value, lo, hi;
	double reliability;
	double stratified;	/* sum c_p T_p / u_p; NAN when unknown */
	size_t periods;		/* periods in which it ran */
	bool exact;		/* never multiplexed */
};

/* The share of the estimate its interval spans beyond the periods'
 * spread: the kernel's times enabled and running, on which the one rule
 * rests, are not the event's own time to that precision. In the arm64
 * guest of tests/pmu (13 events on 7 counters, a steady loop whose count
 * is exact) the estimates came out 0.54% (instructions:u) and 0.90%
 * (cycles:u) low, steady from run to run, while the periods' spread was
 * 0.5%; the periods' own scaling did not move them. */
#define MUX_KERNEL_SLACK 0.015

void mux_log__kernel_estimate(const struct mux_log *l, size_t e, double count, double enabled,
			      double running, struct mux_kernel_estimate *out);
/* The reliability above from n periods' counts and running ns. */
double mux_kernel_reliability(const double *count, const double *running, size_t n);

/* ======================================================================
 * Rows and reliability
 * ==================================================================== */

/* The definition above from raw numbers: C_rg per group and f_g per
 * group; NAN when the row holds nothing. */
double mux_reliability(const double *c_rg, const double *f_g, size_t nr_groups);
/* The same for a row whose reference-event period per group is
 * slot_period[mux_log__nr_groups(l)] (profile_row.slot_period); NAN when
 * it holds nothing or the log has no groups. */
double mux_log__row_reliability(const struct mux_log *l, const uint64_t *slot_period);
/* The group counting at time t, or -1 outside every slice: a
 * profile_opts.slot_of classifier over a log (ctx). */
int mux_log__group_at(void *log, uint64_t t);
/* "reliable", "fair", "unreliable", "n/a". */
const char *mux_reliability_word(double rel);

/* ======================================================================
 * Whole-run estimates with confidence intervals
 * ==================================================================== */

/*
 * Whole-run estimates come from the counting reads of every slice. An
 * event's slices are weighted by the reference event's count in them (the
 * workload's own time: CPU time or cycles), so a change in the workload's
 * share of the CPU between slices does not bias them; without a reference
 * (or when a group's slices saw none of it), by wall-clock time.
 */
struct mux_event_estimate {
	double value;		/* scaled whole-run count */
	double lo, hi;		/* 95% interval (bootstrap over slices, widened
				   for few slices and the gaps' time; NAN when
				   none can be given: never zero width around an
				   estimate that is not exact) */
	double raw;		/* counted while active */
	double scale;		/* value / raw */
	size_t slices;		/* slices its group got */
};

struct mux_estimate {
	size_t nr_events;
	struct mux_event_estimate *ev;
	double reliability;	/* whole-run row, from the reference deltas */
	uint64_t run_ns;
	size_t nr_groups;
	size_t min_slices;	/* fewest slices any group got */
};

/* Whole-run estimates from the log (deterministic: fixed bootstrap seed). */
int mux_log__estimate(const struct mux_log *l, struct mux_estimate *est, char **cause);
void mux_estimate__exit(struct mux_estimate *est);

/*
 * A confidence interval for any metric of whole-run event estimates:
 * `metric` computes the value from one estimate per event (NAN allowed);
 * the slices are resampled per group nboot times (0: 200) and the
 * (1-level)/2 and (1+level)/2 quantiles returned (level 0: 0.95).
 * Deterministic for a given seed. *lo and *hi are NAN when the metric is n/a.
 */
typedef double (*mux_metric_fn)(void *ctx, const double *estimates, size_t nr);
void mux_log__interval(const struct mux_log *l, mux_metric_fn metric, void *ctx, double level,
		       unsigned nboot, uint64_t seed, double *lo, double *hi);

/*
 * Intervals for every node of a top-down model at once (the same
 * replicates for all): model_event[e] is the model event index of log
 * event e (-1: none). lo[] and hi[] have td_model__nr_nodes() entries,
 * NAN where the node is n/a. 0, or td_eval's error.
 */
int mux_log__node_intervals(const struct mux_log *l, const struct td_model *m,
			    const struct td_ctx *ctx, const int *model_event, double level,
			    unsigned nboot, double *lo, double *hi, char **cause);

/*
 * Intervals for every node of one row (process, thread, module, function,
 * line) by error propagation, Monte Carlo style as toplev's UVal does it
 * analytically: each event estimate counts[i] (model event order, NAN =
 * not measured) is drawn n times (0: 200) from a normal distribution with
 * relative standard deviation rel_sd[i] (NULL or NAN: exact), the tree
 * evaluated, and the level's quantiles taken. lo/hi as above.
 */
int mux_row_node_intervals(const struct td_model *m, const struct td_ctx *ctx,
			   const double *counts, const double *rel_sd, double level, unsigned n,
			   uint64_t seed, double *lo, double *hi, char **cause);
/* The relative standard deviation of a row's event estimate built from
 * nsamples samples in a row of MUX reliability `reliability`:
 * sqrt(1/nsamples + (1 - reliability)^2) (NAN reliability counts as 1);
 * NAN without samples. */
double mux_row_rel_sd(uint64_t nsamples, double reliability);

/* "41.2% [38.9-43.5]" (fraction) or "1.23e+06 [1.2e+06-1.3e+06]" appended to sb. */
void mux_format_interval(struct strbuf *sb, double value, double lo, double hi, bool fraction);

/*
 * The block the report shows next to metric sets: mode, groups, slices,
 * reliability (with its word) and each event's estimate with interval;
 * names[e] labels event e. Hints (too few slices) end it.
 */
void mux_estimate__render(const struct mux_estimate *est, const char *const *names,
			  struct strbuf *sb);
/* The same as JSON (new reference): {"reliability":..,"events":[{name,
 * estimate, estimate_lo, estimate_hi, scale, slices}], "min_slices":..,
 * "run_ns":..}: an estimate's keys are meta.json's everywhere. */
json_t *mux_estimate__to_json(const struct mux_estimate *est, const char *const *names);

/* A hint when some group got fewer than MUX_MIN_SLICES slices, else NULL
 * (newly allocated). */
char *mux_estimate__hint(const struct mux_estimate *est, uint32_t slice_ms);

/*
 * For the report, from a result's meta.json alone: the multiplexing block
 * (mode, groups, slices, MUX reliability with its word, each event's
 * estimate [interval] and scale). Rows' reliability needs the slice log
 * and the samples: report_row_reliability(). Nothing is appended when the run was not multiplexed. The JSON variant
 * returns a new reference (the "mux" object plus "events"), or NULL.
 */
struct gx_meta;
void mux_meta__render(const struct gx_meta *meta, struct strbuf *sb);
json_t *mux_meta__to_json(const struct gx_meta *meta);

#endif /* GX_MUX_H */
