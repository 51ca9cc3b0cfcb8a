/*
 * eval.c: evaluating a model on one row's event estimates: values,
 * mismeasured flags, thresholds with the parent chain rule, the bottleneck
 * path and hints; plus the text and JSON renderings of a result.
 */
#include "config.h"

#include "topdown-int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct eval_state {
	const struct td_model *m;
	struct td_eval_env env;
	int v;			/* variant slot */
	double *val;
	char *state;		/* 0 new, 1 computing, 2 done */
};

static double node_value(void *arg, int i)
{
	struct eval_state *s = arg;

	if (s->state[i] == 2)
		return s->val[i];
	if (s->state[i] == 1)	/* cycles are rejected at load; be safe anyway */
		return NAN;
	s->state[i] = 1;
	s->val[i] = td_expr__eval(td_model__tree(s->m, (size_t)i, s->v), &s->env);
	if (isinf(s->val[i]))
		s->val[i] = NAN;
	s->state[i] = 2;
	return s->val[i];
}

static bool uses_smt(const struct td_expr *e)
{
	if (!e)
		return false;
	if (e->op == TD_OP_SMT_ON || e->op == TD_OP_CORE_WIDE)
		return true;
	return uses_smt(e->a) || uses_smt(e->b) || uses_smt(e->c);
}

static bool model_uses_smt(const struct td_model *m)
{
	for (size_t i = 0; i < m->nr_nodes; i++)
		if (uses_smt(m->formula[i]))
			return true;
	return false;
}

static void add_hint(char ***hints, size_t *n, char *h)
{
	*hints = xrealloc(*hints, (*n + 2) * sizeof(char *));
	(*hints)[(*n)++] = h;
	(*hints)[*n] = NULL;
}

static int cmp_desc(const void *a, const void *b, void *arg)
{
	const struct td_value *v = arg;
	double x = v[*(const int *)a].value, y = v[*(const int *)b].value;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Flagged children of parent (-1: level-1 nodes), largest first. */
static size_t flagged_children(const struct td_model *m, const struct td_value *v, int parent,
			       int *out)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct td_node *d = &m->nodes[i];

		if (d->level == 0 || d->parent_idx != parent || !v[i].flagged)
			continue;
		out[n++] = (int)i;
	}
	/* insertion sort: a handful of siblings */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_desc(&out[j - 1], &out[j], (void *)v) > 0; j--) {
			int t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static void find_bottleneck(const struct td_model *m, struct td_result *res)
{
	int *kids = xcalloc(m->nr_nodes + 1, sizeof(int));
	size_t n = flagged_children(m, res->v, -1, kids);
	int cur;

	res->bottleneck = -1;
	if (n == 0)
		goto out;
	cur = kids[0];	/* level 1: the largest flagged category, no tie rule */
	res->v[cur].on_path = true;
	for (;;) {
		n = flagged_children(m, res->v, cur, kids);
		if (n == 0)
			break;
		if (n >= 2 && res->v[kids[0]].value - res->v[kids[1]].value < TD_TIE_MARGIN)
			break;	/* too close to call: the parent is the answer */
		cur = kids[0];
		res->v[cur].on_path = true;
	}
	res->bottleneck = cur;
out:
	free(kids);
}

/* td_ctx.clamp: a fraction into [0, 1]. Beyond what shows at 0.1% it is
 * marked clamped (counted in *n); a -0 or a rounding error is not. */
static void clamp(struct td_value *v, size_t *n)
{
	double x = v->value;

	v->value = x > 1 ? 1.0 : x > 0 ? x : 0.0;	/* 0.0, never -0.0 */
	if (x < -TD_CLAMP_SLACK || x > 1 + TD_CLAMP_SLACK) {
		v->clamped = true;
		(*n)++;
	}
}

/* The hint that says which fractions were clamped (the first few). */
static char *clamp_hint(const struct td_model *m, const struct td_result *res, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t shown = 0;

	strbuf__addf(&sb, "%zu fraction%s fell outside [0%%, 100%%] and %s shown clamped to it (",
		     n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
	for (size_t i = 0; i < m->nr_nodes && shown < 3; i++)
		if (res->v[i].clamped)
			strbuf__addf(&sb, "%s%s", shown++ ? ", " : "", m->nodes[i].name);
	strbuf__addf(&sb, "%s): exact and modelled values have no sampling error, so a share "
		     "out of range is the model's error, not noise", n > shown ? ", ..." : "");
	return strbuf__detach(&sb);
}

int td_eval(const struct td_model *m, const double *counts, const struct td_ctx *ctx,
	    struct td_result *res, char **cause)
{
	static const struct td_ctx dflt;
	struct eval_state s = { .m = m };
	size_t nh = 0, nr_clamped = 0;

	memset(res, 0, sizeof(*res));
	if (!m || !counts)
		return gx_fail(cause, -EINVAL, "td_eval: no model or counts");
	if (!ctx)
		ctx = &dflt;
	s.v = td_model__variant_idx(m, ctx->variant);
	if (ctx->variant && s.v < 0)
		return gx_fail(cause, -EINVAL, "model %s has no formula variant '%s'", m->id,
			       ctx->variant);
	s.env.metric = node_value;
	s.env.arg = &s;
	s.env.counts = counts;
	s.env.smt_on = ctx->smt == TD_SMT_ON;
	/* perf's rule: with SMT off every measurement is core wide */
	s.env.core_wide = !s.env.smt_on || ctx->core_wide;
	s.env.width = m->width;
	s.val = xcalloc(m->nr_nodes + 1, sizeof(double));
	s.state = xcalloc(m->nr_nodes + 1, 1);

	res->nr = m->nr_nodes;
	res->v = xcalloc(m->nr_nodes + 1, sizeof(*res->v));
	res->variant = s.v >= 0 ? m->variants[s.v] : NULL;
	for (size_t i = 0; i < m->nr_nodes; i++) {
		struct td_value *v = &res->v[i];

		v->value = node_value(&s, (int)i);
		v->na = isnan(v->value);
		if (!v->na && m->nodes[i].unit == TD_UNIT_FRACTION && ctx->clamp)
			clamp(v, &nr_clamped);
		else if (!v->na && m->nodes[i].unit == TD_UNIT_FRACTION)
			v->mismeasured = v->value < TD_MISMEASURED_LO || v->value > TD_MISMEASURED_HI;
	}
	/* thresholds after all values: they may name other metrics */
	for (size_t i = 0; i < m->nr_nodes; i++) {
		struct td_value *v = &res->v[i];
		const struct td_node *d = &m->nodes[i];
		double t;

		if (!m->thresh[i] || v->na)
			continue;
		t = td_expr__eval(m->thresh[i], &s.env);
		v->over = !isnan(t) && t != 0;
		v->flagged = v->over && !v->mismeasured;
		/* parents come first in the file, so their flag is final */
		if (v->flagged && d->threshold_parent && d->parent_idx >= 0)
			v->flagged = res->v[d->parent_idx].flagged;
	}
	find_bottleneck(m, res);

	if (ctx->smt == TD_SMT_ON)
		add_hint(&res->hints, &nh,
			 xstrdup(m->smt_note ? m->smt_note
					     : "SMT is on: the other hardware thread of each core competes for "
					       "the same pipeline, so the level-1 shares describe a contended core."));
	else if (ctx->smt == TD_SMT_UNKNOWN && model_uses_smt(m))
		add_hint(&res->hints, &nh,
			 xstrdup("SMT state unknown: formulas were evaluated for SMT off "
				 "(pass --smt on|off)."));
	for (size_t i = 0; i < m->nr_nodes; i++)
		if (res->v[i].mismeasured)
			add_hint(&res->hints, &nh,
				 xasprintf("%s is mismeasured (%.1f%% is outside [%.0f%%, %.0f%%]): "
					   "its events were probably counted at different times "
					   "(multiplexing) or the run was too short; it is shown but "
					   "never flagged.",
					   m->nodes[i].name, 100 * res->v[i].value,
					   100 * TD_MISMEASURED_LO, 100 * TD_MISMEASURED_HI));
	if (nr_clamped)
		add_hint(&res->hints, &nh, clamp_hint(m, res, nr_clamped));
	for (size_t i = 0; i < m->nr_nodes; i++)
		if (res->v[i].na && m->nodes[i].level == 1) {
			add_hint(&res->hints, &nh,
				 xstrdup("Some metrics are n/a: an event they need was not measured, "
					 "or a denominator was zero."));
			break;
		}
	if (!res->hints)
		res->hints = xcalloc(1, sizeof(char *));
	free(s.val);
	free(s.state);
	return 0;
}

void td_result__exit(struct td_result *res)
{
	if (!res)
		return;
	free(res->v);
	if (res->hints)
		for (char **h = res->hints; *h; h++)
			free(*h);
	free(res->hints);
	memset(res, 0, sizeof(*res));
	res->bottleneck = -1;
}

/* ---- rendering ------------------------------------------------------------ */
static void format_value(const struct td_node *d, const struct td_value *v, char *buf, size_t n)
{
	if (v->na)
		snprintf(buf, n, "n/a");
	else if (d->unit == TD_UNIT_FRACTION)
		snprintf(buf, n, "%.1f%%", gx_zero_below(100 * v->value, 1));
	else if (d->unit == TD_UNIT_RATIO)
		snprintf(buf, n, "%.2f", gx_zero_below(v->value, 2));
	else
		snprintf(buf, n, "%.0f", v->value);
}

void td_result__print(const struct td_model *m, const struct td_result *res, struct strbuf *sb,
		      unsigned flags)
{
	bool info = false, tree = false;

	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct td_node *d = &m->nodes[i];
		const struct td_value *v = &res->v[i];
		char val[32], name[64];
		int indent;

		if (d->level == 0)
			continue;
		/* by default: level 1, and children of flagged nodes */
		if (!(flags & TD_PRINT_ALL) && d->level > 1 &&
		    !(d->parent_idx >= 0 && res->v[d->parent_idx].flagged))
			continue;
		indent = 2 * (d->level - 1);
		snprintf(name, sizeof(name), "%*s%s", indent, "", d->name);
		format_value(d, v, val, sizeof(val));
		strbuf__addf(sb, "%-34s %8s", name, val);
		tree = true;
		if ((int)i == res->bottleneck)
			strbuf__addstr(sb, "  <==");
		else if (v->mismeasured)
			strbuf__addstr(sb, "  (mismeasured)");
		else if (v->clamped)
			strbuf__addstr(sb, "  (clamped)");
		else if (!v->na && m->thresh[i] && !v->flagged)
			strbuf__addstr(sb, "  <");
		strbuf__addstr(sb, "\n");
		if ((flags & TD_PRINT_DESC) && v->flagged && d->desc) {
			strbuf__addf(sb, "%*s    %s\n", indent, "", d->desc);
			if (d->hint)
				strbuf__addf(sb, "%*s    hint: %s\n", indent, "", d->hint);
		}
	}
	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct td_node *d = &m->nodes[i];
		char val[32];

		if (d->level != 0 || (d->hidden && !(flags & TD_PRINT_HIDDEN)))
			continue;
		if (!info)
			strbuf__addstr(sb, tree ? "\nInfo:\n" : "Info:\n");
		info = true;
		format_value(d, &res->v[i], val, sizeof(val));
		strbuf__addf(sb, "%-34s %8s\n", d->name, val);
	}
	if (res->bottleneck >= 0)
		strbuf__addf(sb, "\nBottleneck: %s\n", m->nodes[res->bottleneck].name);
	else
		strbuf__addstr(sb, "\nBottleneck: none above its threshold\n");
	if (res->bottleneck >= 0 && m->nodes[res->bottleneck].hint)
		strbuf__addf(sb, "  %s\n", m->nodes[res->bottleneck].hint);
	if (res->hints && res->hints[0]) {
		strbuf__addstr(sb, "\nHints:\n");
		for (char **h = res->hints; *h; h++)
			strbuf__addf(sb, "  - %s\n", *h);
	}
}

static json_t *json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *td_result__to_json(const struct td_model *m, const struct td_result *res,
			   const struct td_ctx *ctx)
{
	static const char *const smt[] = { "unknown", "off", "on" };
	static const char *const unit[] = { "fraction", "ratio", "count" };
	json_t *root = json_object(), *arr = json_array(), *hints = json_array();

	json_object_set_new(root, "schema", json_string("gexplore-topdown/1"));
	json_object_set_new(root, "model", json_string(m->id));
	json_object_set_new(root, "variant", json_str_or_null(res->variant));
	json_object_set_new(root, "smt", json_string(smt[ctx ? ctx->smt : 0]));
	json_object_set_new(root, "core_wide", json_boolean(ctx && ctx->core_wide));
	json_object_set_new(root, "bottleneck",
			    json_str_or_null(res->bottleneck >= 0 ? m->nodes[res->bottleneck].name
								  : NULL));
	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct td_node *d = &m->nodes[i];
		const struct td_value *v = &res->v[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(d->name));
		json_object_set_new(o, "parent", json_str_or_null(d->parent));
		json_object_set_new(o, "level", json_integer(d->level));
		json_object_set_new(o, "unit", json_string(unit[d->unit]));
		json_object_set_new(o, "value", v->na ? json_null() : json_real(v->value));
		json_object_set_new(o, "mismeasured", json_boolean(v->mismeasured));
		json_object_set_new(o, "clamped", json_boolean(v->clamped));
		json_object_set_new(o, "over_threshold", json_boolean(v->over));
		json_object_set_new(o, "flagged", json_boolean(v->flagged));
		json_object_set_new(o, "on_bottleneck_path", json_boolean(v->on_path));
		json_object_set_new(o, "threshold", json_str_or_null(d->threshold));
		json_object_set_new(o, "hidden", json_boolean(d->hidden));
		json_object_set_new(o, "upstream", json_str_or_null(d->upstream));
		json_object_set_new(o, "own", json_str_or_null(d->own));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "metrics", arr);
	if (res->hints)
		for (char **h = res->hints; *h; h++)
			json_array_append_new(hints, json_string(*h));
	json_object_set_new(root, "hints", hints);
	return root;
}
