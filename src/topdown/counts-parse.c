/*
 * counts-parse.c: struct td_counts, the rows of a perf stat output (or
 * "EVENT VALUE" lines): whole run, intervals (-I), entities (-A,
 * --per-core, --per-socket, --per-thread ...), with each event's running
 * share and why a count is missing.
 *
 * Every layout perf stat 6.x prints is one of
 *	text:	[TIME] [ENTITY [NR]] VALUE [UNIT] EVENT [# metric] [(PCT%)]
 *	-x SEP:	[TIME SEP] [ENTITY SEP [NR SEP]] VALUE SEP UNIT SEP EVENT SEP
 *		[VARIANCE% SEP] RUNTIME SEP PCT [SEP metric SEP metric-unit]
 *	-j:	{"interval":.., "cpu"|"core"|"socket"|..: .., "counter-value": "..",
 *		 "event": .., "event-runtime": .., "pcnt-running": ..}
 * An event such as "cpu/event=0x9c,umask=0x1/" holds the separator: it
 * runs to its closing '/' (or '@', with \, escapes).
 */
#include "config.h"

#include "topdown-int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *td_missing_str(enum td_missing w)
{
	return w == TD_MISSING_NOT_COUNTED ? "not counted" :
	       w == TD_MISSING_NOT_SUPPORTED ? "not supported" : NULL;
}

/* The copies of one event in one row. */
struct copy_acc {
	char pmu[32];		/* the PMU whose copies are kept */
	double vw, w;		/* sum of value x weight, sum of weights */
	double run;		/* summed running share (NAN unknown) */
	unsigned n;
	unsigned char missing;
};

/* One row (interval and entity) being read; its events' copy_accs are
 * found through counts_parse.acc_of. */
struct row_acc {
	char *entity;
	double time;
	size_t next;		/* the next row of the same hash, or SIZE_MAX */
};

/*
 * Rows and their events are found by hash, so reading is linear in the
 * lines, and a row keeps only the events it has (a dense array per row
 * made 100 k rows cost gigabytes before they were printed).
 */
struct counts_parse {
	const struct td_model *m;
	const char *file;
	size_t lineno, ne;
	struct row_acc *rows;
	size_t nr_rows, alloc;
	struct u64map row_of;	/* hash of (time, entity) -> first row */
	size_t last;		/* the row of the previous line (SIZE_MAX: none) */
	struct copy_acc *accs;
	size_t nr_accs, alloc_accs;
	struct u64map acc_of;	/* row * ne + event -> accs index */
	size_t unknown;
	bool lenient;		/* perf stat's header or a perf layout seen: skip notes */
	bool intervals;
	const char *entity_kind;
	char *dropped_pmu;
};

/* One count as a line gives it. */
struct line_count {
	double time;		/* NAN: none */
	char *entity;		/* or NULL */
	const char *kind;	/* entity kind, or NULL */
	char *event;
	bool missing;
	unsigned char why;
	double value;
	double runtime;		/* NAN: none */
	double pct;		/* NAN: none */
};

static void line_count__exit(struct line_count *lc)
{
	free(lc->entity);
	free(lc->event);
}

static bool row_is(const struct row_acc *r, double time, const char *entity)
{
	return ((isnan(time) && isnan(r->time)) || time == r->time) &&
	       ((!entity && !r->entity) || (entity && r->entity && !strcmp(entity, r->entity)));
}

static uint64_t row_hash(double time, const char *entity)
{
	uint64_t bits = 0, h;

	if (!isnan(time))
		memcpy(&bits, &time, sizeof(bits));
	h = (entity ? gx_hash(entity, strlen(entity)) : 0) ^ (bits * 0x9e3779b97f4a7c15ULL);
	return h == UINT64_MAX ? 0 : h;	/* UINT64_MAX: u64map's reserved key */
}

/* The row of (time, entity), made when new: its index, or SIZE_MAX past
 * TD_COUNTS_MAX_ROWS. */
static size_t row_findnew(struct counts_parse *cp, double time, const char *entity)
{
	uint64_t h, *first;
	size_t i;

	if (cp->last != SIZE_MAX && row_is(&cp->rows[cp->last], time, entity))
		return cp->last;
	h = row_hash(time, entity);
	first = u64map__find(&cp->row_of, h);
	for (i = first ? (size_t)*first : SIZE_MAX; i != SIZE_MAX; i = cp->rows[i].next)
		if (row_is(&cp->rows[i], time, entity))
			return cp->last = i;
	if (cp->nr_rows == TD_COUNTS_MAX_ROWS)
		return SIZE_MAX;
	if (cp->nr_rows == cp->alloc) {
		cp->alloc = cp->alloc ? 2 * cp->alloc : 8;
		cp->rows = xrealloc(cp->rows, cp->alloc * sizeof(*cp->rows));
	}
	i = cp->nr_rows++;
	first = u64map__findnew(&cp->row_of, h, SIZE_MAX);
	cp->rows[i] = (struct row_acc){
		.entity = entity ? xstrdup(entity) : NULL,
		.time = time,
		.next = (size_t)*first,
	};
	*first = i;	/* the newest heads its chain */
	return cp->last = i;
}

/* The copies of event k in row r: NULL when none was read (unless make). */
static struct copy_acc *acc_find(struct counts_parse *cp, size_t r, size_t k, bool make)
{
	uint64_t key = (uint64_t)r * cp->ne + k, *at = u64map__find(&cp->acc_of, key);

	if (at)
		return &cp->accs[*at];
	if (!make)
		return NULL;
	if (cp->nr_accs == cp->alloc_accs) {
		cp->alloc_accs = cp->alloc_accs ? 2 * cp->alloc_accs : 64;
		cp->accs = xrealloc(cp->accs, cp->alloc_accs * sizeof(*cp->accs));
	}
	cp->accs[cp->nr_accs] = (struct copy_acc){ .run = NAN };
	*u64map__findnew(&cp->acc_of, key, 0) = cp->nr_accs;
	return &cp->accs[cp->nr_accs++];
}

/* The core PMU (unprefixed, cpu, cpu_core) wins over another (cpu_atom ...). */
static int pmu_rank(const char *pmu)
{
	return !strcmp(pmu, "cpu") || !strcmp(pmu, "cpu_core") ? 0 : 1;
}

static void note_dropped(struct counts_parse *cp, const char *pmu)
{
	if (!cp->dropped_pmu)
		cp->dropped_pmu = xstrdup(pmu);
}

static int counts_parse__add(struct counts_parse *cp, const struct line_count *lc,
			     char **cause)
{
	char pmu[32];
	int idx = td_counts_resolve(cp->m, lc->event, pmu, sizeof(pmu));
	size_t r;
	struct copy_acc *a;
	struct gx_scaled sc;
	double w, run, enabled = 0, running = NAN;

	if (idx < 0) {
		cp->unknown++;
		return 0;
	}
	/* what perf cannot print: a negative count or running time, or a
	 * running share past 100% (running > enabled) */
	if (!lc->missing && !(lc->value >= 0 && isfinite(lc->value)))
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: %s count %g is impossible (a count is "
			       "0 or more)", cp->file, cp->lineno, lc->event, lc->value);
	if (!isnan(lc->runtime) && !(lc->runtime >= 0 && isfinite(lc->runtime)))
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: %s running time %g is impossible",
			       cp->file, cp->lineno, lc->event, lc->runtime);
	if (!isnan(lc->pct) && !(lc->pct >= 0 && lc->pct <= 100.005))
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: %s running share %g%% is impossible "
			       "(0 to 100%%: it cannot run longer than it was enabled)", cp->file,
			       cp->lineno, lc->event, lc->pct);
	if (!isnan(lc->time))
		cp->intervals = true;
	if (lc->kind && !cp->entity_kind)
		cp->entity_kind = lc->kind;
	r = row_findnew(cp, lc->time, lc->entity);
	if (r == SIZE_MAX)
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: more than %d rows (intervals x %ss): "
			       "more than topdown evaluates at once; give a longer perf stat -I "
			       "interval or fewer entities", cp->file, cp->lineno,
			       TD_COUNTS_MAX_ROWS, lc->kind ? lc->kind : "entitie");
	a = acc_find(cp, r, (size_t)idx, true);
	if (!strcmp(pmu, "cpu_atom") || !strcmp(pmu, "cpu_lowpower")) {
		note_dropped(cp, pmu);	/* E-cores: no model describes them */
		return 0;
	}
	if (a->pmu[0] && strcmp(a->pmu, pmu) != 0) {
		if (pmu_rank(pmu) >= pmu_rank(a->pmu)) {
			note_dropped(cp, pmu);
			return 0;
		}
		note_dropped(cp, a->pmu);
		*a = (struct copy_acc){ .run = NAN };
	}
	snprintf(a->pmu, sizeof(a->pmu), "%s", pmu);
	if (lc->missing) {
		if (!a->missing || lc->why == TD_MISSING_NOT_SUPPORTED)
			a->missing = lc->why;
		return 0;
	}
	/*
	 * perf stat printed count x enabled / running (its -c scaling) with
	 * the running time and running / enabled as a percentage: the one
	 * rule (gx_scale_printed) gives the value and its running share, as
	 * for gexplore's and the kernel's multiplexing. The text layout has
	 * the share alone: enabled 1, running the share.
	 */
	if (!isnan(lc->pct) && lc->pct > 0 && !isnan(lc->runtime) && lc->runtime > 0) {
		running = lc->runtime;
		enabled = lc->runtime * 100.0 / lc->pct;
	} else if (!isnan(lc->pct)) {
		running = lc->pct / 100.0;
		enabled = 1.0;
	}
	gx_scale_printed(lc->value, enabled, running, &sc);
	if (isnan(sc.value)) {	/* enabled, never running: perf's <not counted> */
		if (!a->missing)
			a->missing = TD_MISSING_NOT_COUNTED;
		return 0;
	}
	run = sc.running;
	/* weight: running time, else the running share, else 1 */
	w = !isnan(lc->runtime) && lc->runtime > 0 ? lc->runtime : !isnan(run) && run > 0 ? run : 1;
	a->vw += sc.value * w;
	a->w += w;
	a->n++;
	if (!isnan(run))
		a->run = isnan(a->run) ? run : a->run + run;
	return 0;
}

/* ---- fields ----------------------------------------------------------------- */

static bool is_unit(const char *s)
{
	static const char *const units[] = { "msec", "ms", "ns", "us", "sec", "s", "Joules",
					     "MiB", "W", "%", NULL };

	for (const char *const *u = units; *u; u++)
		if (!strcmp(s, *u))
			return true;
	return false;
}

static bool is_missing(const char *s, unsigned char *why)
{
	if (!strncmp(s, "<not counted>", 13)) {
		*why = TD_MISSING_NOT_COUNTED;
		return true;
	}
	if (!strncmp(s, "<not supported>", 15)) {
		*why = TD_MISSING_NOT_SUPPORTED;
		return true;
	}
	return false;
}

static bool all_numeric(const char *s)
{
	double v;

	return *s && td_parse_number(s, strlen(s), &v) == 0;
}

/* "CPU3" -> cpu, "S0-D0-C1" -> core, "S0-D0" -> die, "S0" -> socket, "N0" -> node. */
static const char *entity_kind(const char *e)
{
	unsigned a, b, c;
	char tail;

	if (sscanf(e, "CPU%u%c", &a, &tail) == 1)
		return "cpu";
	if (sscanf(e, "S%u-D%u-C%u%c", &a, &b, &c, &tail) == 3)
		return "core";
	if (sscanf(e, "S%u-D%u%c", &a, &b, &tail) == 2)
		return "die";
	if (sscanf(e, "S%u%c", &a, &tail) == 1)
		return "socket";
	if (sscanf(e, "N%u%c", &a, &tail) == 1)
		return "node";
	return "thread";
}

/* Split a CSV line at sep; an event's "pmu/.../" or "pmu@...@" is one field. */
static size_t split_csv(char *line, char sep, char **f, size_t max)
{
	size_t n = 0;
	char *p = line, close = 0;

	f[n++] = p;
	for (; *p && n < max; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (close) {
			if (*p == close)
				close = 0;
			continue;
		}
		/* an event's terms, not "K/sec" after it */
		if ((*p == '/' || *p == '@') && p > f[n - 1] && isalpha((unsigned char)*f[n - 1]) &&
		    !memchr(f[n - 1], ' ', (size_t)(p - f[n - 1])) && strchr(p + 1, *p)) {
			close = *p;
			continue;
		}
		if (*p == sep) {
			*p = '\0';
			f[n++] = p + 1;
		}
	}
	return n;
}

static bool event_like(const char *s)
{
	return (isalpha((unsigned char)*s) || *s == '_') && !strchr(s, ' ');
}

/*
 * A perf stat -x line; 0 when it is one (lc filled), 1 when it is not,
 * or an error for a bad count.
 */
static int parse_csv(struct counts_parse *cp, const char *line, struct line_count *lc,
		     char **cause)
{
	static const char seps[] = ",;|\t";

	for (const char *sp = seps; *sp; sp++) {
		char *copy = xstrdup(line), *f[64];
		size_t n = split_csv(copy, *sp, f, ARRAY_SIZE(f)), v, k;
		int err = 1;

		for (v = 0; v + 4 < n && v <= 3; v++) {
			unsigned char why = 0;

			if (!*f[v] || (strchr(f[v], ' ') && !is_missing(f[v], &why)))
				continue;
			if ((*f[v + 1] && !isalpha((unsigned char)*f[v + 1]) &&
				       strcmp(f[v + 1], "%")) ||
			    strchr(f[v + 1], ' ') || !event_like(f[v + 2]))
				continue;
			/* the prefix: [time] [entity [aggregate number]] */
			for (k = 0; k < v; k++)
				if (!*f[k] || strchr(f[k], ' '))
					break;
			if (k < v)
				continue;
			err = 0;
			break;
		}
		if (err) {
			free(copy);
			continue;
		}
		k = 0;
		if (k < v && all_numeric(f[k])) {
			td_parse_number(f[k], strlen(f[k]), &lc->time);
			k++;
		}
		if (k < v && !all_numeric(f[k])) {
			lc->entity = xstrdup(f[k]);
			lc->kind = entity_kind(f[k]);
		}
		lc->event = xstrdup(f[v + 2]);
		if (is_missing(f[v], &lc->why)) {
			lc->missing = true;
		} else if (td_parse_number(f[v], strlen(f[v]), &lc->value) < 0) {
			err = gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad count '%s'", cp->file,
				      cp->lineno, f[v]);
			free(copy);
			return err;
		}
		k = v + 3;
		if (k < n && *f[k] && f[k][strlen(f[k]) - 1] == '%')
			k++;	/* -r: the variance */
		if (k < n && all_numeric(f[k]))
			td_parse_number(f[k], strlen(f[k]), &lc->runtime);
		if (k + 1 < n && all_numeric(f[k + 1]))
			td_parse_number(f[k + 1], strlen(f[k + 1]), &lc->pct);
		free(copy);
		return 0;
	}
	return 1;
}

/* A perf stat -j line; 0, or an error. */
static int parse_json(struct counts_parse *cp, const char *line, struct line_count *lc,
		      char **cause)
{
	static const char *const kinds[] = { "cpu", "core", "die", "socket", "node", "thread",
					     NULL };
	json_error_t jerr;
	json_t *o = json_loads(line, 0, &jerr), *v;
	const char *s;
	int err = 0;

	if (!json_is_object(o)) {
		json_decref(o);
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad JSON: %s", cp->file, cp->lineno,
			       jerr.text);
	}
	if (!json_is_string(json_object_get(o, "event")))
		goto out;	/* a metric-only line */
	lc->event = xstrdup(json_string_value(json_object_get(o, "event")));
	v = json_object_get(o, "interval");
	if (json_is_number(v))
		lc->time = json_number_value(v);
	for (const char *const *k = kinds; *k; k++) {
		v = json_object_get(o, *k);
		if (!v)
			continue;
		s = json_string_value(v);
		if (!strcmp(*k, "cpu"))
			lc->entity = json_is_integer(v) ?
				     xasprintf("CPU%lld", (long long)json_integer_value(v)) :
				     xasprintf("CPU%s", s ? s : "?");
		else
			lc->entity = xstrdup(s ? s : "?");
		lc->kind = *k;
		break;
	}
	v = json_object_get(o, "counter-value");
	s = json_string_value(v);
	if (s && is_missing(s, &lc->why))
		lc->missing = true;
	else if (s && td_parse_number(s, strlen(s), &lc->value) == 0)
		;
	else if (json_is_number(v))
		lc->value = json_number_value(v);
	else
		err = gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad counter-value", cp->file, cp->lineno);
	v = json_object_get(o, "event-runtime");
	if (json_is_number(v))
		lc->runtime = json_number_value(v);
	v = json_object_get(o, "pcnt-running");
	if (json_is_number(v))
		lc->pct = json_number_value(v);
out:
	json_decref(o);
	return err;
}

/* ---- the default text layout ---------------------------------------------- */

enum tok_kind { TOK_NUM, TOK_MISS, TOK_WORD };

struct tok {
	enum tok_kind kind;
	const char *s;
	size_t len;
	unsigned char why;
};

/*
 * Tokens of a text line up to '#' or a trailing "(...)": numbers keep
 * their single group spaces ("1 234 567").
 */
static size_t tokenize(const char *s, struct tok *t, size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		unsigned char why = 0;
		const char *b;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#' || *s == '(')
			break;
		b = s;
		if (is_missing(s, &why)) {
			s = strchr(s, '>') + 1;
			t[n++] = (struct tok){ TOK_MISS, b, (size_t)(s - b), why };
			continue;
		}
		if (isdigit((unsigned char)*s) || ((*s == '-' || *s == '.') &&
						   isdigit((unsigned char)s[1]))) {
			while (*s && *s != '\t') {
				size_t g = td_group_sep_len(s);

				if (*s == ' ' && !(isdigit((unsigned char)s[-1]) &&
						   isdigit((unsigned char)s[1])))
					break;
				if (g > 1 && !isdigit((unsigned char)s[g]))
					break;
				s += g ? g : 1;
			}
			t[n++] = (struct tok){ TOK_NUM, b, (size_t)(s - b), 0 };
			continue;
		}
		while (*s && *s != ' ' && *s != '\t')
			s++;
		t[n++] = (struct tok){ TOK_WORD, b, (size_t)(s - b), 0 };
	}
	return n;
}

static bool is_val(const struct tok *t)
{
	return t->kind == TOK_NUM || t->kind == TOK_MISS;
}

/* The running share perf prints last: "(50.00%)", "(50,00%)"; NAN when none. */
static double trailing_pct(const char *s)
{
	const char *open = strrchr(s, '(');
	const char *pct = open ? strchr(open, '%') : NULL;
	double v;

	if (!open || !pct || pct[1] != ')' || strstr(open, "+-"))
		return NAN;
	open++;
	while (*open == ' ')
		open++;
	return td_parse_number(open, (size_t)(pct - open), &v) == 0 ? v : NAN;
}

static int bad_count(struct counts_parse *cp, const struct tok *t, char **cause)
{
	return gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad count '%.*s'", cp->file, cp->lineno,
		       (int)t->len, t->s);
}

/*
 * perf stat's default layout, or "EVENT VALUE" ("EVENT = VALUE", "EVENT:
 * VALUE"). 0 with lc->event set, 0 with nothing (a note to skip), or an
 * error.
 */
static int parse_text(struct counts_parse *cp, const char *s, struct line_count *lc,
		      char **cause)
{
	struct tok t[16];
	size_t n = tokenize(s, t, ARRAY_SIZE(t)), i = 0;
	const struct tok *val, *ev;

	if (n == 0)
		return 0;
	if (t[0].kind == TOK_WORD && (n == 1 || !is_val(&t[1]) || n == 2)) {
		/* "EVENT VALUE" */
		const char *q = t[0].s + t[0].len;
		size_t len = t[0].len;
		double v;

		if (len > 1 && (t[0].s[len - 1] == ':' || t[0].s[len - 1] == '='))
			len--;
		while (*q == ' ' || *q == '\t' || *q == '=' || *q == ':')
			q++;
		if (is_missing(q, &lc->why)) {
			lc->missing = true;
		} else if (td_parse_number(q, strlen(q), &v) == 0) {
			lc->value = v;
		} else {
			if (cp->lenient)
				return 0;	/* perf's notes, "TopdownL1 (cpu_core)" */
			return gx_fail(cause, GX_E_FORMAT,
				       "%s:%zu: expected 'EVENT VALUE', perf stat or CSV output",
				       cp->file, cp->lineno);
		}
		lc->event = xstrndup(t[0].s, len);
		return 0;
	}
	/* [TIME] [ENTITY [NR]] VALUE [UNIT] EVENT */
	if (t[0].kind == TOK_NUM && n > 2 &&
	    (is_val(&t[1]) || (t[1].kind == TOK_WORD && is_val(&t[2])))) {
		if (td_parse_number(t[0].s, t[0].len, &lc->time) < 0)
			return bad_count(cp, &t[0], cause);
		i = 1;
	}
	if (i + 1 < n && t[i].kind == TOK_WORD && is_val(&t[i + 1])) {
		lc->entity = xstrndup(t[i].s, t[i].len);
		lc->kind = entity_kind(lc->entity);
		i++;
		if (i + 1 < n && t[i].kind == TOK_NUM && is_val(&t[i + 1]))
			i++;	/* how many CPUs the entity aggregates */
	}
	if (i >= n || !is_val(&t[i]))
		return cp->lenient ? 0 : gx_fail(cause, GX_E_FORMAT,
						 "%s:%zu: expected 'EVENT VALUE', perf stat or CSV output",
						 cp->file, cp->lineno);
	val = &t[i++];
	if (i >= n)
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: a count without an event name",
			       cp->file, cp->lineno);
	ev = &t[i];
	if (i + 1 < n && t[i + 1].kind == TOK_WORD) {
		char *u = xstrndup(t[i].s, t[i].len);

		if (is_unit(u))
			ev = &t[i + 1];
		free(u);
	}
	if (val->kind == TOK_MISS) {
		lc->missing = true;
		lc->why = val->why;
	} else if (td_parse_number(val->s, val->len, &lc->value) < 0) {
		return bad_count(cp, val, cause);
	}
	lc->event = xstrndup(ev->s, ev->len);
	lc->pct = trailing_pct(s);
	return 0;
}

/* One line, without its end of line. */
static int parse_line(struct counts_parse *cp, char *s, char **cause)
{
	struct line_count lc = { .time = NAN, .runtime = NAN, .pct = NAN };
	size_t l = strlen(s);
	int err;

	while (l && (s[l - 1] == '\r' || s[l - 1] == ' ' || s[l - 1] == '\t'))
		s[--l] = '\0';
	if (cp->lineno == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;	/* UTF-8 byte order mark */
	while (*s == ' ' || *s == '\t')
		s++;
	l = strlen(s);
	if (!*s || (*s == '(' && s[l - 1] == ')'))
		return 0;
	if (*s == '#') {	/* perf stat -I's column header */
		cp->lenient |= strstr(s, "counts") != NULL;
		return 0;
	}
	if (strstr(s, "Performance counter stats")) {
		cp->lenient = true;
		return 0;
	}
	if (strstr(s, "seconds time elapsed") || strstr(s, "seconds user") ||
	    strstr(s, "seconds sys"))
		return 0;
	if (strchr(",;|", *s) && s[1] == *s)
		return 0;	/* -x: a metric without a count (",,,,,19.6,%  tma_...") */
	if (*s == '{') {
		err = parse_json(cp, s, &lc, cause);
		cp->lenient = true;
	} else {
		err = parse_csv(cp, s, &lc, cause);
		if (err == 0)
			cp->lenient = true;	/* perf stat -x: its notes follow */
		if (err == 1)
			err = parse_text(cp, s, &lc, cause);
	}
	if (!err && lc.event)
		err = counts_parse__add(cp, &lc, cause);
	line_count__exit(&lc);
	return err;
}

/* ---- rows ------------------------------------------------------------------- */

static void row__init(struct td_counts_row *r, size_t ne)
{
	r->counts = xcalloc(ne + 1, sizeof(double));
	r->run = xcalloc(ne + 1, sizeof(double));
	r->missing = xcalloc(ne + 1, 1);
	for (size_t k = 0; k < ne; k++)
		r->counts[k] = r->run[k] = NAN;
}

static void row_from_acc(struct td_counts_row *r, struct counts_parse *cp, size_t i)
{
	static const struct copy_acc none = { .run = NAN };
	size_t ne = cp->ne;

	row__init(r, ne);
	r->entity = cp->rows[i].entity;
	r->time = cp->rows[i].time;
	for (size_t k = 0; k < ne; k++) {
		const struct copy_acc *c = acc_find(cp, i, k, false);

		if (!c)
			c = &none;
		if (c->n && c->w > 0)
			r->counts[k] = c->vw / c->w;
		else
			r->missing[k] = c->missing;
		r->run[k] = c->n ? (isnan(c->run) ? NAN : fmin(1.0, c->run)) :
				   c->missing == TD_MISSING_NOT_COUNTED ? 0 : NAN;
	}
}

/* rows[0]: the sum over every interval and entity; running shares averaged. */
static void row_sum(struct td_counts *c)
{
	struct td_counts_row *t = &c->rows[0];
	size_t ne = c->nr_events;

	row__init(t, ne);
	t->time = NAN;
	for (size_t k = 0; k < ne; k++) {
		double run = 0;
		size_t nrun = 0;

		for (size_t i = 1; i < c->nr_rows; i++) {
			const struct td_counts_row *r = &c->rows[i];

			if (!isnan(r->counts[k]))
				t->counts[k] = isnan(t->counts[k]) ? r->counts[k] :
								     t->counts[k] + r->counts[k];
			else if (r->missing[k] && !t->missing[k])
				t->missing[k] = r->missing[k];
			if (!isnan(r->run[k])) {
				run += r->run[k];
				nrun++;
			} else if (r->missing[k] == TD_MISSING_NOT_COUNTED) {
				nrun++;
			}
		}
		if (!isnan(t->counts[k]))
			t->missing[k] = TD_MISSING_NONE;
		t->run[k] = nrun ? run / (double)nrun : NAN;
	}
}

void td_counts__delete(struct td_counts *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_rows; i++) {
		free((char *)c->rows[i].entity);
		free(c->rows[i].counts);
		free(c->rows[i].run);
		free(c->rows[i].missing);
	}
	free(c->rows);
	free(c->dropped_pmu);
	free(c);
}

double td_counts_row__min_run(const struct td_counts *c, size_t r)
{
	double lo = NAN;

	for (size_t k = 0; r < c->nr_rows && k < c->nr_events; k++) {
		double v = c->rows[r].run[k];

		if (!isnan(c->rows[r].counts[k]) && !isnan(v))
			lo = isnan(lo) ? v : fmin(lo, v);
	}
	return lo;
}

int td_counts__parse(const struct td_model *m, const char *text, const char *file,
		     struct td_counts **out, char **cause)
{
	struct counts_parse cp = { .m = m, .file = file, .ne = td_model__nr_events(m),
				   .last = SIZE_MAX };
	struct td_counts *c = xcalloc(1, sizeof(*c));
	const char *p = text;
	size_t known = 0;
	int err = 0;

	u64map__init(&cp.row_of);
	u64map__init(&cp.acc_of);
	while (*p && !err) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, len);

		cp.lineno++;
		p += len + (eol ? 1 : 0);
		err = parse_line(&cp, line, cause);
		free(line);
	}
	c->nr_events = cp.ne;
	c->nr_unknown = cp.unknown;
	c->intervals = cp.intervals;
	c->entity_kind = cp.entity_kind;
	c->dropped_pmu = cp.dropped_pmu;
	if (err) {	/* nothing to build: the entity strings are freed here */
		for (size_t i = 0; i < cp.nr_rows; i++)
			free(cp.rows[i].entity);
	} else if (cp.nr_rows == 1 && isnan(cp.rows[0].time) && !cp.rows[0].entity) {
		c->nr_rows = 1;
		c->rows = xcalloc(1, sizeof(*c->rows));
		row_from_acc(&c->rows[0], &cp, 0);
	} else {
		c->nr_rows = cp.nr_rows + 1;
		c->rows = xcalloc(c->nr_rows, sizeof(*c->rows));
		for (size_t i = 0; i < cp.nr_rows; i++)
			row_from_acc(&c->rows[i + 1], &cp, i);
		row_sum(c);
	}
	free(cp.rows);	/* the entity strings moved to c */
	free(cp.accs);
	u64map__exit(&cp.row_of);
	u64map__exit(&cp.acc_of);
	for (size_t k = 0; !err && k < cp.ne; k++)
		if (!isnan(c->rows[0].counts[k]) || c->rows[0].missing[k])
			known++;
	if (!err && known == 0)
		err = gx_fail(cause, GX_E_NODATA, "%s: no counts for any event of model %s", file,
			      td_model__id(m));
	if (err) {
		td_counts__delete(c);
		return err;
	}
	*out = c;
	return 0;
}

int td_counts_parse(const struct td_model *m, const char *text, const char *file,
		    double *counts, size_t *nr_unknown, char **cause)
{
	struct td_counts *c = NULL;
	size_t ne = td_model__nr_events(m);
	int err = td_counts__parse(m, text, file, &c, cause);

	for (size_t k = 0; k < ne; k++)
		counts[k] = err ? NAN : c->rows[0].counts[k];
	if (nr_unknown)
		*nr_unknown = err ? 0 : c->nr_unknown;
	td_counts__delete(c);
	return err;
}
