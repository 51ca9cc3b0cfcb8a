/*
 * model.c: loading a CPU model from events/<id>.json, resolving formula
 * names to events and metrics, rejecting reference cycles, and the
 * read-only accessors.
 */
#include "config.h"

#include "topdown-int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

const char *td_events_dir(void)
{
	return gx_data_dir("GX_EVENTS_DIR", GX_SRC_EVENTS_DIR, GX_EVENTS_DIR);
}

static void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void td_strv_free(char **v)
{
	strv_free(v);
}

void td_model__delete(struct td_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_events; i++) {
		struct td_event *e = &m->events[i];

		free((char *)e->id);
		free((char *)e->pfm);
		free((char *)e->perf);
		free((char *)e->group_hint);
		free((char *)e->desc);
		free((char *)e->upstream);
		free((char *)e->generic);
	}
	free(m->events);
	for (size_t i = 0; i < m->nr_nodes; i++) {
		struct td_node *n = &m->nodes[i];

		free((char *)n->name);
		free((char *)n->parent);
		free((char *)n->formula);
		free((char *)n->threshold);
		free((char *)n->desc);
		free((char *)n->hint);
		free((char *)n->locate);
		free((char *)n->upstream);
		free((char *)n->own);
		if (m->formula)
			td_expr__delete(m->formula[i]);
		if (m->thresh)
			td_expr__delete(m->thresh[i]);
		for (size_t v = 0; v < m->nr_variants; v++) {
			if (m->alt_src && m->alt_src[i])
				free(m->alt_src[i][v]);
			if (m->alt && m->alt[i])
				td_expr__delete(m->alt[i][v]);
		}
		if (m->alt_src)
			free(m->alt_src[i]);
		if (m->alt)
			free(m->alt[i]);
	}
	GX_FREE(m->nodes, m->formula, m->thresh, m->alt_src, m->alt);
	for (size_t i = 0; i < m->nr_match; i++) {
		free(m->match[i].vendor);
		free(m->match[i].models);
		free(m->match[i].parts);
	}
	free(m->match);
	strv_free(m->aliases);
	strv_free(m->variants);
	GX_FREE(m->rev_from, m->rev_variant, m->fallback_variant, m->id, m->name, m->file,
		m->threshold_note, m->smt_note, m->upstream_none, m);
}

/* ---- JSON helpers ---------------------------------------------------------- */
struct loader {
	struct td_model *m;
	const char *file;
	char **cause;
};

static char *opt_str(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static int get_str(struct loader *ld, json_t *obj, const char *key, const char *where,
		   char **out)
{
	*out = opt_str(obj, key);
	if (!*out)
		return gx_fail(ld->cause, GX_E_FORMAT, "%s: %s: missing string \"%s\"", ld->file,
			       where, key);
	return 0;
}

/* Integers may be written as JSON numbers or as strings ("0x8000"). */
static int get_u64(json_t *v, uint64_t *out)
{
	char *end;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);

		errno = 0;
		*out = strtoull(s, &end, 0);
		if (*s && !*end && errno == 0)
			return 0;
	}
	return -1;
}

static int get_uint_array(json_t *arr, unsigned **out, size_t *nr)
{
	size_t i;
	json_t *v;
	uint64_t x;

	*out = NULL;
	*nr = 0;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return -1;
	*out = xcalloc(json_array_size(arr) + 1, sizeof(**out));
	json_array_foreach(arr, i, v) {
		if (get_u64(v, &x) < 0)
			return -1;
		(*out)[(*nr)++] = (unsigned)x;
	}
	return 0;
}

static char **get_strv(json_t *arr)
{
	char **v = xcalloc(json_array_size(arr) + 1, sizeof(*v));
	size_t i, n = 0;
	json_t *s;

	json_array_foreach(arr, i, s)
		if (json_is_string(s))
			v[n++] = xstrdup(json_string_value(s));
	return v;
}

static int load_match(struct loader *ld, json_t *arr)
{
	struct td_model *m = ld->m;
	size_t i;
	json_t *r;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return gx_fail(ld->cause, GX_E_FORMAT, "%s: \"match\" must be an array", ld->file);
	m->match = xcalloc(json_array_size(arr) + 1, sizeof(*m->match));
	json_array_foreach(arr, i, r) {
		struct td_match *t = &m->match[m->nr_match++];
		uint64_t x = 0;

		if (json_object_get(r, "implementer")) {
			t->arm = true;
			if (get_u64(json_object_get(r, "implementer"), &x) < 0 ||
			    get_uint_array(json_object_get(r, "parts"), &t->parts, &t->nr_parts) < 0)
				goto bad;
			t->implementer = (unsigned)x;
		} else {
			t->vendor = opt_str(r, "vendor");
			if (!t->vendor || get_u64(json_object_get(r, "family"), &x) < 0 ||
			    get_uint_array(json_object_get(r, "models"), &t->models, &t->nr_models) < 0)
				goto bad;
			t->family = (unsigned)x;
		}
	}
	return 0;
bad:
	return gx_fail(ld->cause, GX_E_FORMAT, "%s: match rule %zu is malformed", ld->file, i + 1);
}

static int load_events(struct loader *ld, json_t *arr)
{
	struct td_model *m = ld->m;
	size_t i;
	json_t *o;
	int err;

	if (!json_is_array(arr))
		return gx_fail(ld->cause, GX_E_FORMAT, "%s: missing array \"events\"", ld->file);
	m->events = xcalloc(json_array_size(arr) + 1, sizeof(*m->events));
	json_array_foreach(arr, i, o) {
		struct td_event *e = &m->events[m->nr_events];
		json_t *raw, *v;
		char where[48];
		uint64_t x;

		snprintf(where, sizeof(where), "event %zu", i + 1);
		err = get_str(ld, o, "id", where, (char **)&e->id);
		if (err)
			return err;
		m->nr_events++;
		e->pfm = opt_str(o, "pfm");
		e->perf = opt_str(o, "perf");
		e->desc = opt_str(o, "desc");
		e->upstream = opt_str(o, "upstream");
		e->group_hint = opt_str(o, "group");
		v = json_object_get(o, "generic");
		if (v) {
			struct strbuf g = STRBUF_INIT;
			size_t k;
			json_t *name;

			if (!json_is_array(v))
				return gx_fail(ld->cause, GX_E_FORMAT,
					       "%s: event %s: \"generic\" is a list of names",
					       ld->file, e->id);
			json_array_foreach(v, k, name) {
				if (!json_is_string(name) || strchr(json_string_value(name), ' ')) {
					strbuf__exit(&g);
					return gx_fail(ld->cause, GX_E_FORMAT,
						       "%s: event %s: bad generic name", ld->file,
						       e->id);
				}
				strbuf__addf(&g, "%s%s", k ? " " : "", json_string_value(name));
			}
			e->generic = strbuf__detach(&g);
		}
		e->precise = json_is_true(json_object_get(o, "precise"));
		e->fixed = json_is_true(json_object_get(o, "fixed"));
		v = json_object_get(o, "sav");
		if (v && get_u64(v, &e->sav) < 0)
			return gx_fail(ld->cause, GX_E_FORMAT, "%s: event %s: bad \"sav\"", ld->file,
				       e->id);
		raw = json_object_get(o, "raw");
		if (raw) {
			if (get_u64(json_object_get(raw, "type"), &x) < 0 ||
			    get_u64(json_object_get(raw, "config"), &e->raw_config) < 0)
				return gx_fail(ld->cause, GX_E_FORMAT,
					       "%s: event %s: \"raw\" needs type and config", ld->file,
					       e->id);
			e->raw_type = (uint32_t)x;
			v = json_object_get(raw, "config1");
			if (v && get_u64(v, &e->raw_config1) < 0)
				return gx_fail(ld->cause, GX_E_FORMAT, "%s: event %s: bad config1",
					       ld->file, e->id);
			e->has_raw = true;
		}
		if (!e->pfm && !e->has_raw && !e->perf)
			return gx_fail(ld->cause, GX_E_FORMAT,
				       "%s: event %s: needs \"pfm\", \"raw\" or \"perf\"", ld->file,
				       e->id);
		for (size_t j = 0; j < m->nr_events - 1; j++)
			if (strcmp(m->events[j].id, e->id) == 0)
				return gx_fail(ld->cause, GX_E_FORMAT, "%s: event %s defined twice",
					       ld->file, e->id);
	}
	return 0;
}

static int parse_formula(struct loader *ld, const char *metric, const char *what,
			 const char *src, struct td_expr **out)
{
	char *why = NULL;
	int err = td_expr__parse(src, out, &why);

	if (err) {
		gx_fail(ld->cause, err, "%s: metric %s: %s%s", ld->file, metric, what, why);
		free(why);
	}
	return err;
}

/* "revision_variants": [{"from": "r0p3", "variant": "r0p3"}] (Arm MIDR revisions). */
static int load_revision_variants(struct loader *ld, json_t *arr)
{
	struct td_model *m = ld->m;
	size_t i;
	json_t *o;

	if (!arr)
		return 0;
	m->rev_from = xcalloc(json_array_size(arr) + 1, sizeof(*m->rev_from));
	m->rev_variant = xcalloc(json_array_size(arr) + 1, sizeof(*m->rev_variant));
	json_array_foreach(arr, i, o) {
		const char *from = json_string_value(json_object_get(o, "from"));
		const char *var = json_string_value(json_object_get(o, "variant"));
		unsigned r, p;
		int vi = var ? td_model__variant_idx(m, var) : -1;

		if (!from || sscanf(from, "r%up%u", &r, &p) != 2 || r > 15 || p > 15 || vi < 0)
			return gx_fail(ld->cause, GX_E_FORMAT,
				       "%s: revision_variants %zu: needs \"from\": \"rNpM\" and a "
				       "known \"variant\"", ld->file, i + 1);
		m->rev_from[m->nr_rev] = r << 4 | p;
		m->rev_variant[m->nr_rev++] = m->variants[vi];
	}
	return 0;
}

static int load_nodes(struct loader *ld, json_t *arr)
{
	struct td_model *m = ld->m;
	size_t i, n;
	json_t *o;
	int err;

	if (!json_is_array(arr))
		return gx_fail(ld->cause, GX_E_FORMAT, "%s: missing array \"metrics\"", ld->file);
	n = json_array_size(arr);
	m->nodes = xcalloc(n + 1, sizeof(*m->nodes));
	m->formula = xcalloc(n + 1, sizeof(*m->formula));
	m->thresh = xcalloc(n + 1, sizeof(*m->thresh));
	m->alt_src = xcalloc(n + 1, sizeof(*m->alt_src));
	m->alt = xcalloc(n + 1, sizeof(*m->alt));
	json_array_foreach(arr, i, o) {
		struct td_node *d = &m->nodes[m->nr_nodes];
		char where[48];
		const char *unit;
		json_t *v, *alts;

		snprintf(where, sizeof(where), "metric %zu", i + 1);
		err = get_str(ld, o, "name", where, (char **)&d->name);
		if (err)
			return err;
		m->nr_nodes++;
		d->parent_idx = -1;
		d->parent = opt_str(o, "parent");
		d->threshold = opt_str(o, "threshold");
		d->desc = opt_str(o, "desc");
		d->hint = opt_str(o, "hint");
		d->locate = opt_str(o, "locate");
		d->hidden = json_is_true(json_object_get(o, "hidden"));
		d->upstream = opt_str(o, "upstream");
		d->own = opt_str(o, "own");
		if (d->upstream && d->own)
			return gx_fail(ld->cause, GX_E_FORMAT,
				       "%s: metric %s: \"upstream\" and \"own\" exclude each other",
				       ld->file, d->name);
		v = json_object_get(o, "level");
		d->level = json_is_integer(v) ? (int)json_integer_value(v) : 0;
		if (d->level < 0 || d->level > 6)
			return gx_fail(ld->cause, GX_E_FORMAT, "%s: metric %s: bad level", ld->file,
				       d->name);
		v = json_object_get(o, "threshold_parent");
		d->threshold_parent = v ? json_is_true(v) : d->level >= 2;
		unit = json_string_value(json_object_get(o, "unit"));
		if (!unit || strcmp(unit, "fraction") == 0)
			d->unit = TD_UNIT_FRACTION;
		else if (strcmp(unit, "ratio") == 0)
			d->unit = TD_UNIT_RATIO;
		else if (strcmp(unit, "count") == 0)
			d->unit = TD_UNIT_COUNT;
		else
			return gx_fail(ld->cause, GX_E_FORMAT, "%s: metric %s: unknown unit \"%s\"",
				       ld->file, d->name, unit);
		err = get_str(ld, o, "formula", d->name, (char **)&d->formula);
		if (err)
			return err;
		err = parse_formula(ld, d->name, "", d->formula, &m->formula[i]);
		if (err)
			return err;
		if (d->threshold) {
			err = parse_formula(ld, d->name, "threshold: ", d->threshold, &m->thresh[i]);
			if (err)
				return err;
		}
		m->alt_src[i] = xcalloc(m->nr_variants + 1, sizeof(char *));
		m->alt[i] = xcalloc(m->nr_variants + 1, sizeof(struct td_expr *));
		alts = json_object_get(o, "variants");
		if (alts) {
			const char *key;

			if (!json_is_object(alts))
				return gx_fail(ld->cause, GX_E_FORMAT,
					       "%s: metric %s: \"variants\" must be an object",
					       ld->file, d->name);
			json_object_foreach(alts, key, v) {
				int vi = td_model__variant_idx(m, key);
				char what[64];

				if (vi < 0 || !json_is_string(v))
					return gx_fail(ld->cause, GX_E_FORMAT,
						       "%s: metric %s: unknown variant \"%s\"",
						       ld->file, d->name, key);
				m->alt_src[i][vi] = xstrdup(json_string_value(v));
				snprintf(what, sizeof(what), "variant %s: ", key);
				err = parse_formula(ld, d->name, what, m->alt_src[i][vi],
						    &m->alt[i][vi]);
				if (err)
					return err;
			}
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(m->nodes[j].name, d->name) == 0)
				return gx_fail(ld->cause, GX_E_FORMAT, "%s: metric %s defined twice",
					       ld->file, d->name);
	}
	return 0;
}

/* ---- name resolution and cycles ------------------------------------------ */
struct resolve_ctx {
	struct loader *ld;
	const char *metric;
	int err;
};

static void resolve_leaf(struct td_expr *e, void *arg)
{
	struct resolve_ctx *rc = arg;
	struct td_model *m = rc->ld->m;

	if (e->op != TD_OP_NAME || rc->err)
		return;
	for (size_t i = 0; i < m->nr_events; i++) {
		if (strcmp(m->events[i].id, e->name) == 0) {
			e->op = TD_OP_EVENT;
			e->idx = (int)i;
			return;
		}
	}
	for (size_t i = 0; i < m->nr_nodes; i++) {
		if (strcmp(m->nodes[i].name, e->name) == 0) {
			e->op = TD_OP_METRIC;
			e->idx = (int)i;
			return;
		}
	}
	rc->err = gx_fail(rc->ld->cause, GX_E_FORMAT,
			  "%s: metric %s: column %d: unknown event or metric '%s'", rc->ld->file,
			  rc->metric, e->col, e->name);
}

static int resolve(struct loader *ld)
{
	struct td_model *m = ld->m;

	for (size_t i = 0; i < m->nr_nodes; i++) {
		struct resolve_ctx rc = { ld, m->nodes[i].name, 0 };
		struct td_node *d = &m->nodes[i];

		td_expr__walk(m->formula[i], resolve_leaf, &rc);
		td_expr__walk(m->thresh[i], resolve_leaf, &rc);
		for (size_t v = 0; v < m->nr_variants; v++)
			td_expr__walk(m->alt[i][v], resolve_leaf, &rc);
		if (rc.err)
			return rc.err;
		if (d->parent) {
			d->parent_idx = td_model__find_node(m, d->parent);
			if (d->parent_idx < 0 || (size_t)d->parent_idx >= i)
				return gx_fail(ld->cause, GX_E_FORMAT,
					       "%s: metric %s: parent %s must be defined before it",
					       ld->file, d->name, d->parent);
			if (m->nodes[d->parent_idx].level != d->level - 1)
				return gx_fail(ld->cause, GX_E_FORMAT,
					       "%s: metric %s: level %d under a level %d parent",
					       ld->file, d->name, d->level,
					       m->nodes[d->parent_idx].level);
		} else if (d->level > 1) {
			return gx_fail(ld->cause, GX_E_FORMAT, "%s: metric %s: level %d needs a parent",
				       ld->file, d->name, d->level);
		}
		if (d->locate && td_model__find_event(m, d->locate) < 0)
			return gx_fail(ld->cause, GX_E_FORMAT, "%s: metric %s: unknown locate event %s",
				       ld->file, d->name, d->locate);
	}
	return 0;
}

struct cycle_ctx {
	const struct td_model *m;
	char *state;	/* 0 new, 1 on the stack, 2 done */
	int *stack;
	size_t depth;
	int found;	/* node index closing the cycle, or -1 */
};

static void visit(struct cycle_ctx *c, int i);

static void visit_leaf(struct td_expr *e, void *arg)
{
	struct cycle_ctx *c = arg;

	if (e->op == TD_OP_METRIC && c->found < 0)
		visit(c, e->idx);
}

static void visit(struct cycle_ctx *c, int i)
{
	const struct td_model *m = c->m;

	if (c->state[i] == 2 || c->found >= 0)
		return;
	if (c->state[i] == 1) {
		c->found = i;
		return;
	}
	c->state[i] = 1;
	c->stack[c->depth++] = i;
	td_expr__walk(m->formula[i], visit_leaf, c);
	for (size_t v = 0; v < m->nr_variants && c->found < 0; v++)
		td_expr__walk(m->alt[i][v], visit_leaf, c);
	if (c->found >= 0)
		return;
	c->depth--;
	c->state[i] = 2;
}

static int check_cycles(struct loader *ld)
{
	const struct td_model *m = ld->m;
	struct cycle_ctx c = { m, xcalloc(m->nr_nodes + 1, 1),
			       xcalloc(m->nr_nodes + 1, sizeof(int)), 0, -1 };
	int err = 0;

	for (size_t i = 0; i < m->nr_nodes && c.found < 0; i++)
		visit(&c, (int)i);
	if (c.found >= 0) {
		struct strbuf sb = STRBUF_INIT;
		size_t start = 0;

		while (c.stack[start] != c.found)
			start++;
		for (size_t k = start; k < c.depth; k++)
			strbuf__addf(&sb, "%s -> ", m->nodes[c.stack[k]].name);
		strbuf__addstr(&sb, m->nodes[c.found].name);
		err = gx_fail(ld->cause, GX_E_FORMAT, "%s: metric %s: reference cycle: %s", ld->file,
			      m->nodes[c.found].name, sb.buf);
		strbuf__exit(&sb);
	}
	free(c.state);
	free(c.stack);
	return err;
}

int td_model__load_string(const char *text, const char *file, struct td_model **out,
			  char **cause)
{
	struct td_model *m = xzalloc(sizeof(*m));
	struct loader ld = { m, file, cause };
	json_error_t jerr;
	json_t *root, *v;
	int err;

	*out = NULL;
	root = json_loads(text, 0, &jerr);
	if (!root) {
		err = gx_fail(cause, GX_E_FORMAT, "%s:%d:%d: %s", file, jerr.line, jerr.column,
			      jerr.text);
		goto out_model;
	}
	m->file = xstrdup(file);
	err = get_str(&ld, root, "id", "model", &m->id);
	if (err)
		goto out_json;
	m->name = opt_str(root, "name");
	if (!m->name)
		m->name = xstrdup(m->id);
	m->threshold_note = opt_str(root, "threshold_note");
	m->upstream_none = opt_str(root, "upstream_none");
	m->smt_note = opt_str(root, "smt_note");
	m->fallback_variant = opt_str(root, "fallback_variant");
	v = json_object_get(root, "aliases");
	m->aliases = json_is_array(v) ? get_strv(v) : xcalloc(1, sizeof(char *));
	v = json_object_get(root, "variants");
	m->variants = json_is_array(v) ? get_strv(v) : xcalloc(1, sizeof(char *));
	while (m->variants[m->nr_variants])
		m->nr_variants++;
	if (m->fallback_variant && td_model__variant_idx(m, m->fallback_variant) < 0) {
		err = gx_fail(cause, GX_E_FORMAT, "%s: fallback_variant %s is not a variant", file,
			      m->fallback_variant);
		goto out_json;
	}
	err = load_revision_variants(&ld, json_object_get(root, "revision_variants"));
	if (err)
		goto out_json;
	v = json_object_get(root, "width");
	m->width = json_is_integer(v) ? (int)json_integer_value(v) : 0;
	if (m->width < 0 || m->width > 64) {
		err = gx_fail(cause, GX_E_FORMAT, "%s: bad width", file);
		goto out_json;
	}
	v = json_object_get(root, "counters");
	m->gp_smt_on = (int)json_integer_value(json_object_get(v, "gp_smt_on"));
	m->gp_smt_off = (int)json_integer_value(json_object_get(v, "gp_smt_off"));
	m->fixed = (int)json_integer_value(json_object_get(v, "fixed"));
	if (m->gp_smt_off <= 0)
		m->gp_smt_off = m->gp_smt_on > 0 ? m->gp_smt_on : 4;
	if (m->gp_smt_on <= 0)
		m->gp_smt_on = m->gp_smt_off;
	err = load_match(&ld, json_object_get(root, "match"));
	if (!err)
		err = load_events(&ld, json_object_get(root, "events"));
	if (!err)
		err = load_nodes(&ld, json_object_get(root, "metrics"));
	if (!err)
		err = resolve(&ld);
	if (!err)
		err = check_cycles(&ld);
	if (err)
		goto out_json;
	json_decref(root);
	*out = m;
	return 0;

out_json:
	json_decref(root);
out_model:
	td_model__delete(m);
	return err;
}

int td_model__load_rules(const char *text, const char *file, struct td_model **out)
{
	struct td_model *m = xzalloc(sizeof(*m));
	struct loader ld = { m, file, NULL };
	json_t *root = json_loads(text, 0, NULL);
	int err = GX_E_FORMAT;

	*out = NULL;
	if (root && get_str(&ld, root, "id", "model", &m->id) == 0)
		err = load_match(&ld, json_object_get(root, "match"));
	json_decref(root);
	if (err) {
		td_model__delete(m);
		return err;
	}
	*out = m;
	return 0;
}

int td_model__load_file(const char *path, struct td_model **out, char **cause)
{
	char *text = gx_read_file(path, 4 << 20);
	int err;

	*out = NULL;
	if (!text)
		return gx_fail(cause, errno ? -errno : -EIO, "%s: %s", path,
			       gx_strerror(errno ? -errno : -EIO));
	err = td_model__load_string(text, path, out, cause);
	free(text);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted *.json file names of dir. */
static int list_files(const char *dir, char ***names, char **cause)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return gx_fail(cause, -errno, "events directory %s: %s", dir, gx_strerror(-errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
			continue;
		v = xgrow(v, &cap, n + 2, sizeof(*v));
		v[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (!v)
		v = xcalloc(1, sizeof(*v));
	v[n] = NULL;
	gx_qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	return 0;
}

int td_model_list(const char *dir, char ***ids, char **cause)
{
	char **files;
	int err;

	if (!dir)
		dir = td_events_dir();
	err = list_files(dir, &files, cause);
	if (err)
		return err;
	for (char **f = files; *f; f++)
		(*f)[strlen(*f) - 5] = '\0';
	*ids = files;
	return 0;
}

static bool model_has_name(const struct td_model *m, const char *name)
{
	if (strcasecmp(m->id, name) == 0)
		return true;
	for (char **a = m->aliases; *a; a++)
		if (strcasecmp(*a, name) == 0)
			return true;
	return false;
}

int td_model__load(const char *name, const char *dir, struct td_model **out, char **cause)
{
	struct strbuf known = STRBUF_INIT;
	char **files = NULL, *path, *broken = NULL;
	int err;

	*out = NULL;
	if (!dir)
		dir = td_events_dir();
	/* the common case: the file is named after the id */
	path = xasprintf("%s/%s.json", dir, name);
	if (strchr(name, '/') == NULL && access(path, R_OK) == 0) {
		err = td_model__load_file(path, out, cause);
		free(path);
		return err;
	}
	free(path);
	err = list_files(dir, &files, cause);
	if (err)
		return err;
	for (char **f = files; *f; f++) {
		struct td_model *m;
		char *why = NULL;

		path = xasprintf("%s/%s", dir, *f);
		err = td_model__load_file(path, &m, &why);
		free(path);
		if (err) {
			/* one broken file must not hide the others; say so if nothing matches */
			if (!broken)
				broken = why;
			else
				free(why);
			continue;
		}
		if (model_has_name(m, name)) {
			*out = m;
			goto out_files;
		}
		strbuf__addf(&known, "%s%s", known.len ? ", " : "", m->id);
		td_model__delete(m);
	}
	err = gx_fail(cause, -ENOENT, "unknown CPU model '%s' (known: %s)%s%s", name,
		      known.buf ? known.buf : "none", broken ? "; not loaded: " : "",
		      broken ? broken : "");
out_files:
	free(broken);
	strbuf__exit(&known);
	strv_free(files);
	return err;
}

/* ---- accessors ---------------------------------------------------------- */
const char *td_model__id(const struct td_model *m) { return m->id; }
const char *td_model__name(const struct td_model *m) { return m->name; }
const char *td_model__file(const struct td_model *m) { return m->file; }
const char *const *td_model__aliases(const struct td_model *m) { return (const char *const *)m->aliases; }
int td_model__width(const struct td_model *m) { return m->width; }
const char *td_model__threshold_note(const struct td_model *m) { return m->threshold_note; }
const char *td_model__upstream_none(const struct td_model *m) { return m->upstream_none; }
const char *const *td_model__variants(const struct td_model *m) { return (const char *const *)m->variants; }
const char *td_model__fallback_variant(const struct td_model *m) { return m->fallback_variant; }
size_t td_model__nr_events(const struct td_model *m) { return m->nr_events; }
size_t td_model__nr_nodes(const struct td_model *m) { return m->nr_nodes; }

void td_model__counters(const struct td_model *m, int *gp_smt_on, int *gp_smt_off, int *fixed)
{
	if (gp_smt_on)
		*gp_smt_on = m->gp_smt_on;
	if (gp_smt_off)
		*gp_smt_off = m->gp_smt_off;
	if (fixed)
		*fixed = m->fixed;
}

const struct td_event *td_model__event(const struct td_model *m, size_t i)
{
	return i < m->nr_events ? &m->events[i] : NULL;
}

const struct td_node *td_model__node(const struct td_model *m, size_t i)
{
	return i < m->nr_nodes ? &m->nodes[i] : NULL;
}

int td_model__find_node(const struct td_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_nodes; i++)
		if (strcasecmp(m->nodes[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Compare event names: case-insensitive, '.' == ':', "pmu::" prefix optional. */
static bool name_eq(const char *a, const char *b)
{
	const char *p;

	if (!a || !b)
		return false;
	p = strstr(a, "::");
	if (p && !strstr(b, "::"))
		a = p + 2;
	for (; *a && *b; a++, b++) {
		int x = tolower((unsigned char)*a), y = tolower((unsigned char)*b);

		if (x == ':')
			x = '.';
		if (y == ':')
			y = '.';
		if (x != y)
			return false;
	}
	return *a == *b;
}

/* Is name one of the space-separated words of list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, " ");

		if (l == n && strncasecmp(p, name, n) == 0)
			return true;
		p += l + (p[l] == ' ');
	}
	return false;
}

int td_model__find_event(const struct td_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_events; i++)
		if (name_eq(m->events[i].id, name))
			return (int)i;
	for (size_t i = 0; i < m->nr_events; i++)
		if (name_eq(m->events[i].pfm, name) || name_eq(m->events[i].perf, name))
			return (int)i;
	for (size_t i = 0; i < m->nr_events; i++)
		if (in_list(m->events[i].generic, name))
			return (int)i;
	return -1;
}

int td_model__variant_idx(const struct td_model *m, const char *variant)
{
	if (!variant)
		return -1;
	for (size_t v = 0; v < m->nr_variants; v++)
		if (strcmp(m->variants[v], variant) == 0)
			return (int)v;
	return -1;
}

const struct td_expr *td_model__tree(const struct td_model *m, size_t i, int v)
{
	if (v >= 0 && m->alt[i][v])
		return m->alt[i][v];
	return m->formula[i];
}

const char *td_model__node_formula(const struct td_model *m, size_t i, const char *variant)
{
	int v = td_model__variant_idx(m, variant);

	if (i >= m->nr_nodes)
		return NULL;
	if (v >= 0 && m->alt_src[i][v])
		return m->alt_src[i][v];
	return m->nodes[i].formula;
}

struct needed_ctx {
	const struct td_model *m;
	int v;
	bool fold;		/* fold #smt_on / #core_wide with env */
	struct td_eval_env env;
	char *ev_seen, *node_seen;
};

static void needed_node(struct needed_ctx *c, size_t i);

static void needed_expr(struct needed_ctx *c, const struct td_expr *e)
{
	if (!e)
		return;
	if (e->op == TD_OP_EVENT) {
		c->ev_seen[e->idx] = 1;
		return;
	}
	if (e->op == TD_OP_METRIC) {
		needed_node(c, (size_t)e->idx);
		return;
	}
	if (e->op == TD_OP_IF && c->fold) {
		/* a condition made of constants only evaluates without counts */
		double cond = td_expr__eval(e->b, &c->env);

		if (!isnan(cond)) {
			needed_expr(c, cond != 0 ? e->a : e->c);
			return;
		}
	}
	needed_expr(c, e->a);
	needed_expr(c, e->b);
	needed_expr(c, e->c);
}

static void needed_node(struct needed_ctx *c, size_t i)
{
	if (c->node_seen[i])
		return;
	c->node_seen[i] = 1;
	needed_expr(c, td_model__tree(c->m, i, c->v));
	needed_expr(c, c->m->thresh[i]);
}

int td_model__needed_events(const struct td_model *m, const struct td_ctx *ctx, int max_level,
			    int **idx, size_t *n)
{
	struct needed_ctx c = { .m = m, .v = -1 };

	if (ctx) {
		c.v = td_model__variant_idx(m, ctx->variant);
		if (ctx->variant && c.v < 0)
			return -EINVAL;
		c.fold = true;
		c.env.smt_on = ctx->smt == TD_SMT_ON;
		c.env.core_wide = !c.env.smt_on || ctx->core_wide;
		c.env.width = m->width;
	}
	c.ev_seen = xcalloc(m->nr_events + 1, 1);
	c.node_seen = xcalloc(m->nr_nodes + 1, 1);
	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct td_node *d = &m->nodes[i];

		if (d->level == 0 ? !d->hidden : (max_level < 0 || d->level <= max_level))
			needed_node(&c, i);
	}
	*idx = xcalloc(m->nr_events + 1, sizeof(**idx));
	*n = 0;
	for (size_t i = 0; i < m->nr_events; i++)
		if (c.ev_seen[i])
			(*idx)[(*n)++] = (int)i;
	free(c.ev_seen);
	free(c.node_seen);
	return 0;
}

int td_model__locate_events(const struct td_model *m, int **idx, size_t *n)
{
	char *seen = xcalloc(m->nr_events + 1, 1);

	for (size_t i = 0; i < m->nr_nodes; i++) {
		int e = m->nodes[i].locate ? td_model__find_event(m, m->nodes[i].locate) : -1;

		if (e >= 0)
			seen[e] = 1;
	}
	*idx = xcalloc(m->nr_events + 1, sizeof(**idx));
	*n = 0;
	for (size_t i = 0; i < m->nr_events; i++)
		if (seen[i])
			(*idx)[(*n)++] = (int)i;
	free(seen);
	return 0;
}
