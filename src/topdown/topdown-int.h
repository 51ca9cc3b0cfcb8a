/*
 * topdown-int.h: what the files of src/topdown share. Not for other modules.
 */
#ifndef GX_TOPDOWN_INT_H
#define GX_TOPDOWN_INT_H

#include "topdown/topdown.h"

/* ---- formula trees (expr.c) ----------------------------------------------- */
enum td_op {
	TD_OP_NUM,
	TD_OP_NAME,	/* unresolved reference (right after parsing) */
	TD_OP_EVENT,	/* idx = event index */
	TD_OP_METRIC,	/* idx = node index */
	TD_OP_SMT_ON,
	TD_OP_CORE_WIDE,
	TD_OP_WIDTH,
	TD_OP_NEG,
	TD_OP_ADD, TD_OP_SUB, TD_OP_MUL, TD_OP_DIV,
	TD_OP_LT, TD_OP_GT, TD_OP_LE, TD_OP_GE, TD_OP_EQ,
	TD_OP_AND, TD_OP_OR,
	TD_OP_IF,	/* a if cond(b) else c */
	TD_OP_MIN, TD_OP_MAX, TD_OP_DRATIO,
};

struct td_expr {
	enum td_op op;
	double num;
	int idx;
	int col;		/* 1-based column of the token, for messages */
	char *name;		/* TD_OP_NAME/EVENT/METRIC: the unescaped name */
	struct td_expr *a, *b, *c;
};

/*
 * Parse `src` into a tree (*out, free with td_expr__delete()). On a syntax
 * error returns -GX_E_FORMAT with *cause "column N: message".
 */
int td_expr__parse(const char *src, struct td_expr **out, char **cause);
void td_expr__delete(struct td_expr *e);

/* What evaluation needs to resolve leaves. */
struct td_eval_env {
	double (*metric)(void *arg, int idx);	/* value of node idx (NAN = n/a) */
	void *arg;
	const double *counts;
	bool smt_on, core_wide;
	double width;
};
double td_expr__eval(const struct td_expr *e, const struct td_eval_env *env);

/* Call fn on every EVENT/METRIC/NAME leaf of e. */
void td_expr__walk(struct td_expr *e, void (*fn)(struct td_expr *leaf, void *arg), void *arg);

/* ---- models (model.c) ------------------------------------------------------ */
struct td_match {
	bool arm;
	char *vendor;
	unsigned family;
	unsigned *models;	/* empty = any model of the family */
	size_t nr_models;
	unsigned implementer;
	unsigned *parts;
	size_t nr_parts;
};

struct td_model {
	char *id, *name, *file, *threshold_note, *smt_note, *upstream_none;
	char **aliases;		/* NULL-terminated */
	char **variants;	/* NULL-terminated */
	char *fallback_variant;
	int width, gp_smt_on, gp_smt_off, fixed;
	struct td_match *match;
	size_t nr_match;
	struct td_event *events;
	size_t nr_events;
	struct td_node *nodes;
	size_t nr_nodes;
	struct td_expr **formula;	/* per node, default */
	char ***alt_src;		/* per node: per variant source or NULL */
	struct td_expr ***alt;		/* per node: per variant tree or NULL */
	struct td_expr **thresh;	/* per node, NULL when none */
	size_t nr_variants;
	/* "revision_variants": from revision (variant << 4 | revision) -> variant */
	unsigned *rev_from;
	char **rev_variant;		/* borrowed from variants[] */
	size_t nr_rev;
};

/* A model's id and match rules only, from its file's text (for detection:
 * no events, metrics or formulas). 0 or GX_E_FORMAT. */
int td_model__load_rules(const char *text, const char *file, struct td_model **out);

/* Variant slot of `variant` in m (-1: default / unknown). */
int td_model__variant_idx(const struct td_model *m, const char *variant);
/* The tree used for node i under variant slot v (-1 = default). */
const struct td_expr *td_model__tree(const struct td_model *m, size_t i, int v);

/* ---- perf stat names (counts.c) -------------------------------------------- */
/*
 * Length of the digit-group separator perf stat's locale may print at s
 * (' ', '\'', U+00A0, U+2009, U+202F), 0 when none; reads at most 3 bytes
 * of a NUL-terminated s.
 */
size_t td_group_sep_len(const char *s);

/*
 * The model event perf's spelling `name` counts, -1 for none: "cycles:u",
 * "cpu_core/cycles/", "cpu/event=0x9c,umask=0x1,cmask=4/",
 * "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/" (a named
 * event with terms on top of its encoding), perf's metric spelling
 * "cpu@EVENT\\,cmask\\=0x6@", "r4c2". pmu (when not NULL) receives the PMU
 * prefix ("cpu_core"), "cpu" when there is none.
 */
int td_counts_resolve(const struct td_model *m, const char *name, char *pmu, size_t pmu_len);

#endif /* GX_TOPDOWN_INT_H */
