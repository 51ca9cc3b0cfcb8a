/*
 * topdown: CPU models (events/<id>.json), the metric formula language, and
 * evaluation of the top-down tree on the event estimates of any row (whole
 * run, process, thread, module, function, line: the engine does not care
 * what a row is).
 *
 * Typical use (record):
 *	td_detect_model(id, sizeof(id));                 // or --cpu
 *	td_model__load(id, NULL, &m, &cause);
 *	td_model__needed_events(m, variant, &idx, &n);    // what to open
 *	td_model__event(m, idx[i])->raw / ->pfm / ->sav
 * Typical use (report), once per row:
 *	double v[td_model__nr_events(m)];  // NAN = not measured
 *	td_eval(m, v, &ctx, &res, &cause);
 *	td_result__print(m, &res, &sb, opts); / td_result__to_json(m, &res)
 *	td_result__exit(&res);
 *
 * Nothing here prints, exits or makes system calls except the few
 * functions documented as reading files (model loading, host detection).
 */
#ifndef GX_TOPDOWN_H
#define GX_TOPDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/util.h"

struct td_model;	/* opaque, immutable after loading */
struct td_ctx;

/* ---- events ------------------------------------------------------------- */
struct td_event {
	const char *id;		/* name used in formulas ("CPU_CLK_UNHALTED.THREAD") */
	const char *pfm;	/* libpfm4 name ("skl::CPU_CLK_UNHALTED:THREAD_P"), or NULL */
	const char *perf;	/* perf spelling ("cpu/event=0x3c/", "cycles"), or NULL */
	bool has_raw;		/* raw encoding below is valid (preferred over pfm) */
	uint32_t raw_type;	/* perf_event_attr.type (4 = PERF_TYPE_RAW, 8 = Arm core PMU...) */
	uint64_t raw_config, raw_config1;
	uint64_t sav;		/* default sample-after value; 0 = count only */
	bool precise;		/* accepts precise_ip > 0 (PEBS/IBS-style attribution) */
	bool fixed;		/* lives on a fixed counter (no general counter needed) */
	/*
	 * "perf_metrics": must be in one group led by the event of that
	 * group with fixed == true (TOPDOWN.SLOTS); such events cannot sample
	 * (sav 0). NULL otherwise.
	 */
	const char *group_hint;
	const char *desc;	/* one line, or NULL */
	/* The authority's name for it ("TOPDOWN.SLOTS:perf_metrics"), or NULL. */
	const char *upstream;
	/*
	 * perf's generic names this event counts on the model's CPU, space
	 * separated ("cycles cpu-cycles"), or NULL: the kernel maps
	 * PERF_TYPE_HARDWARE cycles, instructions, branches, branch-misses
	 * and cache-misses to these encodings.
	 */
	const char *generic;
};

/* ---- metric nodes ------------------------------------------------------- */
enum td_unit {
	TD_UNIT_FRACTION,	/* share of slots/cycles, shown in % */
	TD_UNIT_RATIO,		/* CPI, IPC, ... */
	TD_UNIT_COUNT,		/* SLOTS, CLKS ... */
};

struct td_node {
	const char *name;	/* "Backend_Bound" */
	const char *parent;	/* parent's name, NULL at level 0/1 */
	int parent_idx;		/* index in the model's node array, -1 when none */
	int level;		/* 1..3 for tree nodes; 0 for info metrics (CPI, IPC, SLOTS) */
	const char *formula;	/* as written in the model */
	const char *threshold;	/* expression, NULL when none */
	bool threshold_parent;	/* flag only when the parent is flagged too */
	enum td_unit unit;
	const char *desc;	/* one-line description */
	const char *hint;	/* tuning hint, may be NULL */
	const char *locate;	/* event id to sample to find it in code, or NULL */
	bool hidden;		/* helper metric (CLKS, CORE_CLKS): not printed by default */
	/*
	 * The authority's name for this node (Intel TMA "Heavy_Operations",
	 * Arm "backend_bound", perf "frontend_bound_latency"), or NULL; then
	 * `own` says why the node is this project's own definition.
	 */
	const char *upstream;
	const char *own;
};

/* ---- loading ------------------------------------------------------------- */

/*
 * The directory holding the model files: $GX_EVENTS_DIR, else the source
 * tree's events/ when it exists (running from the build tree), else the
 * installed one. Static string or getenv() storage: do not free.
 */
const char *td_events_dir(void);

/*
 * Load the model whose id or alias is `name` (case-insensitive) from `dir`
 * (NULL: td_events_dir()). Reads every *.json in dir to resolve aliases.
 * On success *out owns the model: free it with td_model__delete(). Errors
 * (-ENOENT for an unknown model, GX_E_FORMAT for a bad file) set *cause,
 * which names the file, metric and column of a formula syntax error and
 * the metrics of a reference cycle.
 */
int td_model__load(const char *name, const char *dir, struct td_model **out, char **cause);
/* Load one model file. Same ownership and errors as td_model__load(). */
int td_model__load_file(const char *path, struct td_model **out, char **cause);
/* Parse a model from JSON text; `file` is only used in messages. */
int td_model__load_string(const char *text, const char *file, struct td_model **out,
			  char **cause);
void td_model__delete(struct td_model *m);

/*
 * The ids of every model in dir (NULL: td_events_dir()), sorted, as a
 * NULL-terminated array the caller frees with td_strv_free().
 */
int td_model_list(const char *dir, char ***ids, char **cause);
void td_strv_free(char **v);

/* ---- model accessors (borrowed pointers, valid as long as the model) ----- */
const char *td_model__id(const struct td_model *m);
const char *td_model__name(const struct td_model *m);	/* "Intel Skylake / Cascade Lake" */
const char *td_model__file(const struct td_model *m);
const char *const *td_model__aliases(const struct td_model *m);	/* NULL-terminated */
int td_model__width(const struct td_model *m);			/* issue slots per cycle */
/* General counters per logical CPU (SMT on / off) and fixed counters. */
void td_model__counters(const struct td_model *m, int *gp_smt_on, int *gp_smt_off, int *fixed);
const char *td_model__threshold_note(const struct td_model *m);	/* or NULL */
/* Why no vendor's file is the authority for some of its formulas (the
 * model's "upstream_none"), or NULL when every formula has one. */
const char *td_model__upstream_none(const struct td_model *m);
/* Names of formula variants besides the default ("gp" on spr), NULL-terminated. */
const char *const *td_model__variants(const struct td_model *m);
/* The variant to fall back on when the default's events are missing, or NULL. */
const char *td_model__fallback_variant(const struct td_model *m);

size_t td_model__nr_events(const struct td_model *m);
const struct td_event *td_model__event(const struct td_model *m, size_t i);
/*
 * Index of the event called `name`: its id, libpfm4 name (with or without
 * "pmu::"), perf name, or one of its generic names ("cpu-cycles"),
 * case-insensitively; '.' and ':' are equivalent. -1 when none matches.
 */
int td_model__find_event(const struct td_model *m, const char *name);

/*
 * Index of the event a recorded perf_event_attr counts (type, config,
 * config1), for perf.data readers: raw encodings, the config a perf
 * spelling selects (PERF_TYPE_RAW), and PERF_TYPE_HARDWARE's cycles,
 * instructions, cache-misses, branches and branch-misses through the
 * events' generic names. Other PMU types (Arm's dynamic type, hybrid cpu_core)
 * should be passed as 4 when they are the CPU's core PMU. -1 when none.
 */
int td_model__find_event_attr(const struct td_model *m, uint32_t type, uint64_t config,
			      uint64_t config1);

size_t td_model__nr_nodes(const struct td_model *m);
const struct td_node *td_model__node(const struct td_model *m, size_t i);
int td_model__find_node(const struct td_model *m, const char *name);	/* -1: none */
/* Formula of node i under `variant` (NULL = default). Borrowed. */
const char *td_model__node_formula(const struct td_model *m, size_t i, const char *variant);

/*
 * Events referenced (directly or through other metrics and thresholds)
 * by the tree nodes of level <= max_level (-1: all levels) and by the
 * non-hidden info metrics (CPI, IPC, SLOTS), as sorted event indexes.
 * ctx picks the variant and folds `#smt_on` / `#core_wide` conditionals
 * so only the branch that will be evaluated counts; ctx NULL keeps both
 * branches of every conditional and uses the default formulas. *idx is
 * newly allocated (caller frees). -EINVAL for an unknown variant.
 * Record uses this to open what a row needs, e.g. max_level 1 while only
 * one group can be measured.
 */
int td_model__needed_events(const struct td_model *m, const struct td_ctx *ctx, int max_level,
			    int **idx, size_t *n);

/*
 * Append event e to spec in the collector's -e syntax (perf's): raw
 * encodings as cpu/config=0x..[,config1=0x..],period=SAV/, perf PMU-term
 * spellings with period=SAV added, cycles/instructions by name, else the
 * libpfm4 name.
 */
void td_event__spec(const struct td_event *e, struct strbuf *spec);

/*
 * Events a precise sampler should use to locate flagged nodes in code
 * (the nodes' "locate" events), sorted, newly allocated.
 */
int td_model__locate_events(const struct td_model *m, int **idx, size_t *n);

/* ---- CPU detection -------------------------------------------------------- */
struct td_cpu {
	enum { TD_CPU_UNKNOWN, TD_CPU_X86, TD_CPU_ARM } arch;
	char vendor[16];	/* "GenuineIntel", "AuthenticAMD" */
	unsigned family, model;	/* display family/model (extended fields folded in) */
	unsigned implementer, part;	/* Arm MIDR fields */
	unsigned variant, revision;	/* Arm MIDR: the "r0p3" of a part (r<variant>p<revision>) */
};

/* Decode CPUID leaf 1 EAX (display family/model rules) for `vendor`. */
void td_cpu_from_cpuid(struct td_cpu *cpu, const char *vendor, uint32_t eax);
/* Decode an Arm MIDR_EL1 value. */
void td_cpu_from_midr(struct td_cpu *cpu, uint64_t midr);
/* Arm: "CPU implementer" / "CPU part" of /proc/cpuinfo text; -ENOENT if absent. */
int td_cpu_from_cpuinfo(struct td_cpu *cpu, const char *text);
/* Fill *cpu for this host (CPUID; MIDR from sysfs or /proc/cpuinfo on Arm). */
void td_cpu_detect(struct td_cpu *cpu);
/*
 * The id of the model in dir (NULL: default) whose match rules accept cpu;
 * "generic" when none does. Returns a newly allocated string.
 */
char *td_model_match(const struct td_cpu *cpu, const char *dir);
/* Convenience: td_cpu_detect + td_model_match. Caller frees. */
char *td_detect_model(void);
/*
 * The formula variant m's "revision_variants" pick for cpu (Arm: the
 * latest rule whose "from" revision, "r0p3", is <= the MIDR's), or NULL
 * for the default formulas. Borrowed from the model.
 */
const char *td_model__cpu_variant(const struct td_model *m, const struct td_cpu *cpu);

enum td_smt { TD_SMT_UNKNOWN = 0, TD_SMT_OFF, TD_SMT_ON };
/* /sys/devices/system/cpu/smt/active ($GX_SYSFS replaces /sys for tests). */
enum td_smt td_smt_detect(void);

/* ---- evaluation ---------------------------------------------------------- */
struct td_ctx {
	enum td_smt smt;	/* unknown evaluates as off, with a hint */
	bool core_wide;		/* every SMT sibling measured (system-wide) */
	const char *variant;	/* formula variant, NULL = default */
	/* Clamp a fraction outside [0, 1] into it (td_value.clamped says
	 * so, and a hint once): values without sampling error (record
	 * --model), where out of range is the model's error, not noise to
	 * flag as mismeasured. */
	bool clamp;
};

/* Bounds outside which a fraction is "mismeasured" (toplev's rule). */
#define TD_MISMEASURED_LO (-0.05)
#define TD_MISMEASURED_HI 1.05
/* td_ctx.clamp marks a fraction clamped when it was out of [0, 1] by more
 * than this (what shows at 0.1%). */
#define TD_CLAMP_SLACK 0.0005
/* Siblings closer than this make the bottleneck stop at their parent. */
#define TD_TIE_MARGIN 0.05

struct td_value {
	double value;		/* NAN when n/a */
	bool na;		/* a needed event was missing, or 0/0 */
	bool mismeasured;	/* fraction outside [lo, hi]; value kept, flag dropped */
	bool clamped;		/* td_ctx.clamp: a fraction outside [0, 1], shown at the bound */
	bool over;		/* its own threshold expression is true */
	bool flagged;		/* over, not mismeasured, parent chain flagged if required */
	bool on_path;		/* on the bottleneck path */
};

struct td_result {
	size_t nr;		/* == td_model__nr_nodes() */
	struct td_value *v;	/* per node */
	int bottleneck;		/* node index, -1 when nothing is flagged */
	char **hints;		/* NULL-terminated, owned */
	const char *variant;	/* the variant used (borrowed from the model) */
};

/*
 * Evaluate every node of m on one row. counts[i] is the estimate for event
 * i (td_model__nr_events() entries), NAN when not measured. Fills *res
 * (free with td_result__exit()). Errors only for bad arguments; missing
 * data is n/a, never an error.
 */
int td_eval(const struct td_model *m, const double *counts, const struct td_ctx *ctx,
	    struct td_result *res, char **cause);
void td_result__exit(struct td_result *res);

/*
 * VTune's grid rule: a row's cell is highlighted when its node is flagged
 * and the row holds more than 5% of the run's cycles.
 */
static inline bool td_row_significant(double row_clks, double total_clks)
{
	return total_clks > 0 && row_clks > 0.05 * total_clks;
}

/* Text rendering, toplev style, appended to sb. */
enum {
	TD_PRINT_ALL = 1 << 0,		/* also nodes below threshold (marked) */
	TD_PRINT_HIDDEN = 1 << 1,	/* also helper metrics */
	TD_PRINT_DESC = 1 << 2,		/* descriptions and hints of flagged nodes */
};
void td_result__print(const struct td_model *m, const struct td_result *res,
		      struct strbuf *sb, unsigned flags);
/*
 * JSON rendering (schema in gexplore-topdown(1)): a new reference the
 * caller owns (json_decref).
 */
json_t *td_result__to_json(const struct td_model *m, const struct td_result *res,
			   const struct td_ctx *ctx);

/* ---- event totals measured elsewhere ------------------------------------ */
/* Why an event has no count in a row. */
enum td_missing {
	TD_MISSING_NONE,		/* counted, or never listed */
	TD_MISSING_NOT_COUNTED,		/* perf: <not counted> (never scheduled) */
	TD_MISSING_NOT_SUPPORTED,	/* perf: <not supported> (the PMU lacks it) */
};
/* "not counted", "not supported", or NULL. */
const char *td_missing_str(enum td_missing w);

/* One row of counts: the whole run, one interval, one entity, or both. */
struct td_counts_row {
	const char *entity;	/* "CPU3", "S0-D0-C1", "S0", "cc1-5759"; NULL: all of them */
	double time;		/* end of the interval in seconds (perf stat -I); NAN: whole run */
	double *counts;		/* per model event; NAN: not measured */
	double *run;		/* per event: share of the time it was counted, 0..1; NAN: unknown */
	unsigned char *missing;	/* per event: enum td_missing when counts[] is NAN */
};

/* The most rows (intervals x entities) td_counts__parse() reads: each costs
 * a few bytes per model event, so memory stays bounded; past it the input
 * is refused with the reason. */
#define TD_COUNTS_MAX_ROWS 200000

struct td_counts {
	size_t nr_events;	/* == td_model__nr_events() */
	size_t nr_rows;
	/*
	 * rows[0] is the whole run over every entity (the sum of the other
	 * rows when there are several); then one row per interval and entity
	 * in input order.
	 */
	struct td_counts_row *rows;
	size_t nr_unknown;	/* lines naming no event of the model */
	bool intervals;		/* perf stat -I */
	/* "cpu" (-A), "core", "die", "socket", "node", "thread", or NULL */
	const char *entity_kind;
	/* Copies of an event from another PMU that were left out ("cpu_atom"), or NULL. */
	char *dropped_pmu;
};

/*
 * Parse event totals from `text`: perf stat's default output in any
 * locale, -x SEP (with or without the -I interval column), -j JSON lines,
 * -I, -A, --per-core/-die/-socket/-node/-thread, or "EVENT VALUE" lines.
 * Copies of one event (perf prints one line per group) are combined only
 * when they come from the same PMU, weighted by their running time (the
 * core PMU's win over an E-core's: cpu_atom copies are left out). On
 * success *out owns the counts (td_counts__delete()). Errors: GX_E_FORMAT
 * with *cause "FILE:LINE: message", GX_E_NODATA when no event of the
 * model is listed.
 */
int td_counts__parse(const struct td_model *m, const char *text, const char *file,
		     struct td_counts **out, char **cause);
void td_counts__delete(struct td_counts *c);
/*
 * The smallest share of the run any event with a count in row r was
 * scheduled (1 when nothing was multiplexed), NAN when perf printed no
 * running shares: what a perf stat input can say of MUX reliability
 * (<not counted> events are n/a instead).
 */
double td_counts_row__min_run(const struct td_counts *c, size_t r);

/*
 * The whole-run counts only (rows[0] of td_counts__parse()) into counts[]
 * (td_model__nr_events() entries). Same errors.
 */
int td_counts_parse(const struct td_model *m, const char *text, const char *file,
		    double *counts, size_t *nr_unknown, char **cause);
/*
 * The raw config selected by a perf spelling: "cpu/event=0x9c,umask=0x1,cmask=4/"
 * (Intel and AMD layouts: AMD event bits 8-11 go to config bits 32-35),
 * "cpu/config=0x400/" or "r1a0". -EINVAL for symbolic names ("cycles").
 */
int td_perf_config(const char *spelling, uint64_t *config, uint64_t *config1);
/* Parse one number with any thousands separator / decimal comma. */
int td_parse_number(const char *s, size_t len, double *out);

#endif /* GX_TOPDOWN_H */
