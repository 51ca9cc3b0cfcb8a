/*
 * Every model agrees with its authorities (issue 14). A model lists the
 * upstream files it follows ("upstream_files" in events/<id>.json, each
 * with the formula variant it is for); every node names its upstream
 * counterpart ("upstream") or says why it is this project's own ("own").
 * For each file and each node with a counterpart, upstream's formula is
 * parsed here (by a parser of this test's own, not the one under test) and
 * evaluated next to td_eval() on many random count vectors: they must agree
 * to 1e-9. The forms read:
 *   - Intel perfmon: "Formula" over the single letters of Events[].Alias
 *     and Constants[].Alias (smt_on, threads), in percent when
 *     UnitOfMeasure is "percent";
 *   - perf's MetricExpr (Intel tma_* / AMD pipeline.json): event names,
 *     other metrics of the file by name, d_ratio(), cpu@EVENT\,cmask\=N@;
 *   - Arm telemetry: "formula" over event names, in percent when the
 *     units start with "percent".
 * Upstream event names resolve through each event's "upstream" name, else
 * td_model__find_event().
 * A negative control perturbs one formula and checks the comparison fails.
 */
#include "config.h"

#include "topdown/topdown.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static const char *dir = GX_SRC_EVENTS_DIR;
/* $GX_UPSTREAM_DIR, else ../shared/fixtures/upstream-metrics beside the tree */
static char fixtures[1024];
#define TRIALS 300
#define TOL 1e-9

/* ---- the upstream file ----------------------------------------------------- */
enum form { FORM_INTEL, FORM_PERF, FORM_ARM };

struct upstream {
	enum form form;
	json_t *root;
	json_t *metrics;	/* Intel: array; perf: array; Arm: object */
};

static json_t *up_metric(const struct upstream *u, const char *name)
{
	size_t i;
	json_t *o;

	if (u->form == FORM_ARM)
		return json_object_get(u->metrics, name);
	json_array_foreach(u->metrics, i, o) {
		if (strcmp(json_string_value(json_object_get(o, "MetricName")), name) == 0)
			return o;
	}
	return NULL;
}

/* ---- a small evaluator of upstream's expressions ----------------------------- */
struct env {
	const struct upstream *u;
	json_t *metric;			/* Intel: the metric whose aliases apply */
	const struct td_model *m;
	const double *counts;
	bool smt_on;
	int depth;
	char *unresolved;		/* first name that did not resolve (owned) */
};

struct parser {
	const char *s;
	struct env *env;
};

static double eval_metric(struct env *env, const char *name);

static void skip_ws(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

static bool accept(struct parser *p, const char *tok)
{
	size_t n = strlen(tok);

	skip_ws(p);
	if (strncmp(p->s, tok, n))
		return false;
	if (isalpha((unsigned char)tok[0]) && (isalnum((unsigned char)p->s[n]) || p->s[n] == '_'))
		return false;	/* "if" is not the start of "iffy" */
	p->s += n;
	return true;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' || c == '\\';
}

/* A name as upstream spells it: escapes kept, cpu@...@ whole. */
static char *read_name(struct parser *p)
{
	const char *b = p->s;

	if (strncmp(p->s, "cpu@", 4) == 0) {
		const char *e = strchr(p->s + 4, '@');

		p->s = e ? e + 1 : p->s + strlen(p->s);
	} else {
		while (*p->s && is_name_char(*p->s)) {
			if (*p->s == '\\' && p->s[1])
				p->s++;
			p->s++;
		}
	}
	return strndup(b, (size_t)(p->s - b));
}

static void unresolved(struct env *env, const char *name)
{
	if (!env->unresolved)
		env->unresolved = strdup(name);
}

static double event_value(struct env *env, const char *name)
{
	const struct td_model *m = env->m;

	for (size_t i = 0; i < td_model__nr_events(m); i++) {
		const struct td_event *e = td_model__event(m, i);

		if (e->upstream && strcmp(e->upstream, name) == 0)
			return env->counts[i];
	}
	{
		int i = td_model__find_event(m, name);

		if (i >= 0)
			return env->counts[i];
	}
	unresolved(env, name);
	return NAN;
}

/* An identifier: Intel alias letter or constant, perf metric or event, Arm event. */
static double name_value(struct env *env, const char *name)
{
	if (env->u->form == FORM_INTEL) {
		json_t *o;
		size_t i;

		json_array_foreach(json_object_get(env->metric, "Events"), i, o) {
			if (strcmp(json_string_value(json_object_get(o, "Alias")), name) == 0)
				return event_value(env, json_string_value(json_object_get(o, "Name")));
		}
		json_array_foreach(json_object_get(env->metric, "Constants"), i, o) {
			const char *c = json_string_value(json_object_get(o, "Name"));

			if (strcmp(json_string_value(json_object_get(o, "Alias")), name))
				continue;
			if (strcmp(c, "HYPERTHREADING_ON") == 0)
				return env->smt_on;
			if (strcmp(c, "THREADS_PER_CORE") == 0)
				return env->smt_on ? 2 : 1;
			unresolved(env, c);
			return NAN;
		}
		unresolved(env, name);
		return NAN;
	}
	if (env->u->form == FORM_PERF && up_metric(env->u, name))
		return eval_metric(env, name);
	return event_value(env, name);
}

static double parse_cond(struct parser *p);

static double parse_primary(struct parser *p)
{
	double v;

	skip_ws(p);
	if (accept(p, "(")) {
		v = parse_cond(p);
		if (!accept(p, ")"))
			unresolved(p->env, "missing )");
		return v;
	}
	if (accept(p, "-"))
		return -parse_primary(p);
	if (isdigit((unsigned char)*p->s)) {
		char *end;

		v = strtod(p->s, &end);
		p->s = end;
		return v;
	}
	{
		char *name = read_name(p);

		if (!*name) {
			unresolved(p->env, p->s);
			free(name);
			p->s += strlen(p->s);
			return NAN;
		}
		if (accept(p, "(")) {		/* max, min, d_ratio */
			double a = parse_cond(p), b;

			accept(p, ",");
			b = parse_cond(p);
			accept(p, ")");
			if (strcmp(name, "max") == 0)
				v = a > b ? a : b;
			else if (strcmp(name, "min") == 0)
				v = a < b ? a : b;
			else if (strcmp(name, "d_ratio") == 0)
				v = b == 0 ? 0 : a / b;
			else
				unresolved(p->env, name), v = NAN;
		} else {
			v = name_value(p->env, name);
		}
		free(name);
		return v;
	}
}

static double parse_term(struct parser *p)
{
	double v = parse_primary(p);

	for (;;) {
		if (accept(p, "*"))
			v *= parse_primary(p);
		else if (accept(p, "/"))
			v /= parse_primary(p);
		else
			return v;
	}
}

static double parse_sum(struct parser *p)
{
	double v = parse_term(p);

	for (;;) {
		if (accept(p, "+"))
			v += parse_term(p);
		else if (accept(p, "-"))
			v -= parse_term(p);
		else
			return v;
	}
}

static double parse_cmp(struct parser *p)
{
	double v = parse_sum(p);

	if (accept(p, "<="))
		return v <= parse_sum(p);
	if (accept(p, ">="))
		return v >= parse_sum(p);
	if (accept(p, "<"))
		return v < parse_sum(p);
	if (accept(p, ">"))
		return v > parse_sum(p);
	if (accept(p, "=="))
		return v == parse_sum(p);
	return v;
}

static double parse_logic(struct parser *p)
{
	double v = parse_cmp(p);

	for (;;) {
		if (accept(p, "&") || accept(p, "and"))
			v = (parse_cmp(p) != 0) && v != 0;
		else if (accept(p, "|") || accept(p, "or"))
			v = (parse_cmp(p) != 0) || v != 0;
		else
			return v;
	}
}

/* a if cond else b (Python's order, as perf and perfmon write it). */
static double parse_cond(struct parser *p)
{
	double v = parse_logic(p);

	if (accept(p, "if")) {
		double c = parse_logic(p), w;

		if (!accept(p, "else"))
			unresolved(p->env, "if without else");
		w = parse_cond(p);
		return c != 0 ? v : w;
	}
	return v;
}

static double eval_string(struct env *env, const char *src)
{
	struct parser p = { src, env };
	double v = parse_cond(&p);

	skip_ws(&p);
	if (*p.s)
		unresolved(env, p.s);
	return v;
}

/* Upstream's value of metric `name` as a fraction or ratio (percent undone). */
static double eval_metric(struct env *env, const char *name)
{
	json_t *o = up_metric(env->u, name), *saved = env->metric;
	const char *units;
	double v;

	if (!o || env->depth > 16) {
		unresolved(env, name);
		return NAN;
	}
	env->depth++;
	env->metric = o;
	switch (env->u->form) {
	case FORM_INTEL:
		v = eval_string(env, json_string_value(json_object_get(o, "Formula")));
		units = json_string_value(json_object_get(o, "UnitOfMeasure"));
		if (units && strcmp(units, "percent") == 0)
			v /= 100;
		break;
	case FORM_ARM:
		v = eval_string(env, json_string_value(json_object_get(o, "formula")));
		units = json_string_value(json_object_get(o, "units"));
		if (units && strncmp(units, "percent", 7) == 0)
			v /= 100;
		break;
	default:
		v = eval_string(env, json_string_value(json_object_get(o, "MetricExpr")));
		break;
	}
	env->metric = saved;
	env->depth--;
	return v;
}

/* ---- the comparison ------------------------------------------------------------ */
static bool close_enough(double a, double b)
{
	double mag = fmax(1, fmax(fabs(a), fabs(b)));

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= TOL * mag;
}

static int load_upstream(const char *file, struct upstream *u)
{
	char *path;
	json_error_t jerr;

	if (asprintf(&path, "%s/%s", fixtures, file) < 0)
		return -1;
	u->root = json_load_file(path, 0, &jerr);
	free(path);
	if (!u->root)
		return -1;
	if (json_is_array(u->root)) {
		u->form = FORM_PERF;
		u->metrics = u->root;
	} else if (json_object_get(u->root, "Metrics")) {
		u->form = FORM_INTEL;
		u->metrics = json_object_get(u->root, "Metrics");
	} else {
		u->form = FORM_ARM;
		u->metrics = json_object_get(u->root, "metrics");
	}
	return u->metrics ? 0 : -1;
}

static double rnd(unsigned *seed)
{
	/* log-uniform in [1e5, 1e9]: counts of a few ms to a few s */
	return pow(10, 5 + 4 * (rand_r(seed) / (double)RAND_MAX));
}

/*
 * Nodes of m that disagree with file under variant/SMT; *checked counts the
 * nodes compared. A diag names the first counter-example of each.
 */
static size_t compare(const struct td_model *m, const char *file, const char *variant,
		      bool smt_on, size_t *checked, bool quiet)
{
	size_t nn = td_model__nr_nodes(m), ne = td_model__nr_events(m), bad = 0;
	struct upstream u;
	double *counts = calloc(ne + 1, sizeof(double));
	bool *seen_bad = calloc(nn + 1, sizeof(bool));
	unsigned seed = 14;

	*checked = 0;
	if (load_upstream(file, &u) < 0) {
		diag("%s: cannot read %s", td_model__id(m), file);
		free(counts);
		free(seen_bad);
		return 1;
	}
	for (size_t i = 0; i < nn; i++)
		if (td_model__node(m, i)->upstream)
			(*checked)++;
	for (int t = 0; t < TRIALS; t++) {
		struct td_ctx ctx = { .smt = smt_on ? TD_SMT_ON : TD_SMT_OFF, .core_wide = true,
				      .variant = variant };
		struct td_result res;
		char *cause = NULL;

		for (size_t i = 0; i < ne; i++)
			counts[i] = rnd(&seed);
		if (td_eval(m, counts, &ctx, &res, &cause)) {
			diag("%s: td_eval: %s", td_model__id(m), cause);
			free(cause);
			bad++;
			break;
		}
		for (size_t i = 0; i < nn; i++) {
			const struct td_node *d = td_model__node(m, i);
			struct env env = { .u = &u, .m = m, .counts = counts, .smt_on = smt_on };
			double want, got;

			if (!d->upstream || seen_bad[i])
				continue;
			want = eval_metric(&env, d->upstream);
			got = res.v[i].na ? NAN : res.v[i].value;
			if (env.unresolved) {
				if (!quiet)
					diag("%s %s: %s -> %s: upstream name %s does not resolve",
					     td_model__id(m), file, d->name, d->upstream,
					     env.unresolved);
				free(env.unresolved);
				seen_bad[i] = true, bad++;
				continue;
			}
			if (!close_enough(got, want)) {
				if (!quiet)
					diag("%s%s%s (smt %s) %s: ours %.12g, %s %s gives %.12g",
					     td_model__id(m), variant ? "/" : "", variant ? variant : "",
					     smt_on ? "on" : "off", d->name, got, file, d->upstream,
					     want);
				seen_bad[i] = true, bad++;
			}
		}
		td_result__exit(&res);
	}
	json_decref(u.root);
	free(counts);
	free(seen_bad);
	return bad;
}

/* Every node is either mapped or owned, with a reason. */
static void check_coverage(const struct td_model *m, size_t *nr_up, size_t *nr_own)
{
	size_t bad = 0;

	*nr_up = *nr_own = 0;
	for (size_t i = 0; i < td_model__nr_nodes(m); i++) {
		const struct td_node *d = td_model__node(m, i);

		if (d->upstream)
			(*nr_up)++;
		else if (d->own && *d->own) {
			(*nr_own)++;
			diag("%s: %s is gexplore's own: %s", td_model__id(m), d->name, d->own);
		} else
			bad++, diag("%s: %s has neither \"upstream\" nor \"own\"", td_model__id(m),
				    d->name);
	}
	ok(bad == 0, "%s: every node names its upstream counterpart or why it has none (%zu, %zu own)",
	   td_model__id(m), *nr_up, *nr_own);
}

static void check_model(const char *id, size_t *total_up, size_t *total_own)
{
	struct td_model *m;
	char *cause = NULL, path[1024];
	json_t *root, *files, *f;
	json_error_t jerr;
	size_t i, nr_up, nr_own;

	if (td_model__load(id, dir, &m, &cause)) {
		ok(0, "%s loads: %s", id, cause);
		free(cause);
		return;
	}
	check_coverage(m, &nr_up, &nr_own);
	*total_up += nr_up;
	*total_own += nr_own;
	snprintf(path, sizeof(path), "%s", td_model__file(m));
	root = json_load_file(path, 0, &jerr);
	files = json_object_get(root, "upstream_files");
	if (!json_array_size(files)) {
		ok(nr_up == 0 && json_is_string(json_object_get(root, "upstream_none")),
		   "%s: no upstream file, and says why", id);
		json_decref(root);
		td_model__delete(m);
		return;
	}
	json_array_foreach(files, i, f) {
		const char *file = json_string_value(json_object_get(f, "file"));
		const char *variant = json_string_value(json_object_get(f, "variant"));

		for (int smt = 0; smt <= 1; smt++) {
			size_t checked, bad = compare(m, file, variant, smt, &checked, false);

			ok(bad == 0 && checked > 0,
			   "%s%s%s agrees with %s, SMT %s: %zu nodes x %d count vectors",
			   id, variant ? "/" : "", variant ? variant : "", file, smt ? "on" : "off",
			   checked, TRIALS);
		}
	}
	json_decref(root);
	td_model__delete(m);
}

/*
 * The negative control: v2 with Arm's branch-mispredict correction dropped
 * from Backend_Bound must disagree with Arm's file.
 */
static void check_perturbed(void)
{
	char path[1100], *text, *p, *cause = NULL;
	struct td_model *m;
	FILE *fp;
	long n;
	size_t checked, bad;
	static const char from[] = "BR_MIS_PRED * 3 / CPU_CYCLES";

	snprintf(path, sizeof(path), "%s/v2.json", dir);
	fp = fopen(path, "r");
	if (!fp) {
		ok(0, "read %s", path);
		return;
	}
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	text = calloc((size_t)n + 1, 1);
	if (fread(text, 1, (size_t)n, fp) != (size_t)n)
		n = 0;
	fclose(fp);
	p = strstr(text, from);
	ok(p != NULL, "v2: Backend_Bound carries %s", from);
	if (p) {
		memcpy(p, "BR_MIS_PRED * 2 / CPU_CYCLES", sizeof(from) - 1);
		if (td_model__load_string(text, "v2-perturbed.json", &m, &cause) == 0) {
			bad = compare(m, "arm-neoverse-v2.json", NULL, false, &checked, true);
			is_int((int)bad, 1, "a perturbed formula (v2 Backend_Bound, 3 -> 2) is caught");
			td_model__delete(m);
		} else {
			ok(0, "perturbed v2 loads: %s", cause);
			free(cause);
		}
	}
	free(text);
}

int main(void)
{
	char **ids, *cause = NULL;
	size_t up = 0, own = 0;
	char sources[1100];
	FILE *fp;

	if (getenv("GX_UPSTREAM_DIR"))
		snprintf(fixtures, sizeof(fixtures), "%s", getenv("GX_UPSTREAM_DIR"));
	else
		snprintf(fixtures, sizeof(fixtures), "%s/../../shared/fixtures/upstream-metrics", dir);
	snprintf(sources, sizeof(sources), "%s/SOURCES.md", fixtures);
	fp = fopen(sources, "r");
	if (!fp)
		plan_skip_all("no ../shared/fixtures/upstream-metrics next to the source tree");
	fclose(fp);
	if (td_model_list(dir, &ids, &cause)) {
		ok(0, "list models: %s", cause);
		return exit_status();
	}
	for (char **id = ids; *id; id++)
		check_model(*id, &up, &own);
	diag("%zu nodes checked against upstream, %zu gexplore's own", up, own);
	td_strv_free(ids);
	check_perturbed();
	return done_testing();
}
