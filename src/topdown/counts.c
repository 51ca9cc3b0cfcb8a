/*
 * counts.c: event totals measured elsewhere, from `perf stat` default
 * output (any locale's digit grouping), `perf stat -x,` CSV, or plain
 * "EVENT VALUE" lines, matched to a model's events.
 */
#include "config.h"

#include "topdown-int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Length of a digit-group separator at s (0 when none): ' ', '\'', U+00A0, U+2009, U+202F. */
static size_t group_space(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] == ' ' || u[0] == '\'')
		return 1;
	if (u[0] == 0xc2 && u[1] == 0xa0)
		return 2;
	if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xaf || u[2] == 0x89))
		return 3;
	return 0;
}

int td_parse_number(const char *s, size_t len, double *out)
{
	char buf[128];
	size_t n = 0, nd = 0, marks = 0, last_mark = 0, after;
	char last = 0;
	bool have_comma = false, have_dot = false, exp = false;
	char decimal;
	char *end;

	for (size_t i = 0; i < len;) {
		size_t g = group_space(s + i);
		char c = s[i];

		if (g) {
			i += g;
			continue;
		}
		if (n + 2 >= sizeof(buf))
			return GX_E_FORMAT;
		if (c == ',' || c == '.') {
			have_comma |= c == ',';
			have_dot |= c == '.';
			last = c;
			last_mark = n;
			marks++;
		} else if (c == 'e' || c == 'E') {
			exp = true;
		} else if (!isdigit((unsigned char)c) && !(c == '-' && n == 0) &&
			   !(c == '+' && n == 0) && !((c == '-' || c == '+') && exp)) {
			return GX_E_FORMAT;
		} else if (isdigit((unsigned char)c)) {
			nd++;
		}
		buf[n++] = c;
		i++;
	}
	buf[n] = '\0';
	if (nd == 0)
		return GX_E_FORMAT;
	/*
	 * Which mark is the decimal one: with both kinds, the last; with one
	 * kind used several times, none (grouping); used once, decimal unless
	 * exactly three digits follow it ("1,234" and "1.234" are counts).
	 */
	if (have_comma && have_dot) {
		decimal = last;
	} else if (marks == 1) {
		after = 0;
		for (size_t k = last_mark + 1; k < n && isdigit((unsigned char)buf[k]); k++)
			after++;
		decimal = (after == 3 && last_mark + 4 == n) ? 0 : last;
	} else {
		decimal = 0;
	}
	{
		char clean[128];
		size_t m = 0;

		for (size_t k = 0; k < n; k++) {
			if (buf[k] == ',' || buf[k] == '.') {
				if (buf[k] == decimal && k == last_mark)
					clean[m++] = '.';
				else if (buf[k] == decimal)
					return GX_E_FORMAT;	/* "1,2,3" with a decimal comma */
				continue;
			}
			clean[m++] = buf[k];
		}
		clean[m] = '\0';
		errno = 0;
		*out = strtod(clean, &end);
		if (*end || end == clean || errno == ERANGE)
			return GX_E_FORMAT;
	}
	return 0;
}

struct acc {
	double *sum;
	unsigned *nr;
	bool *missing;
};

static bool is_modifier_suffix(const char *s)
{
	return *s && s[strspn(s, "ukhHGIpPSDWe")] == '\0';
}

/* Value of key= inside a "pmu/a=1,b=2/" term list, or NULL. */
static bool term_value(const char *terms, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	const char *p = terms;

	while (*p) {
		const char *end = strpbrk(p, ",/");
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > kl && strncasecmp(p, key, kl) == 0 && p[kl] == '=') {
			size_t vl = len - kl - 1 < n - 1 ? len - kl - 1 : n - 1;

			memcpy(out, p + kl + 1, vl);
			out[vl] = '\0';
			return true;
		}
		if (!end || *end == '/')
			break;
		p = end + 1;
	}
	return false;
}

/* The config a "pmu/event=..,umask=../" term list selects (Intel and AMD layouts). */
static bool terms_config(const char *terms, uint64_t *config, uint64_t *config1)
{
	char val[64];
	uint64_t c = 0, c1 = 0, ev;

	if (!strchr(terms, '='))
		return false;
	if (term_value(terms, "event", val, sizeof(val))) {
		ev = strtoull(val, NULL, 0);
		c |= (ev & 0xff) | ((ev >> 8) & 0xf) << 32;	/* AMD: event bits 8-11 at 32-35 */
	}
	if (term_value(terms, "umask", val, sizeof(val)))
		c |= (strtoull(val, NULL, 0) & 0xff) << 8;
	if (term_value(terms, "cmask", val, sizeof(val)) || term_value(terms, "c", val, sizeof(val)))
		c |= (strtoull(val, NULL, 0) & 0xff) << 24;
	if (term_value(terms, "inv", val, sizeof(val)))
		c |= (strtoull(val, NULL, 0) & 1) << 23;
	if (term_value(terms, "edge", val, sizeof(val)))
		c |= (strtoull(val, NULL, 0) & 1) << 18;
	if (term_value(terms, "any", val, sizeof(val)))
		c |= (strtoull(val, NULL, 0) & 1) << 21;
	if (term_value(terms, "config", val, sizeof(val)))
		c = strtoull(val, NULL, 0);
	if (term_value(terms, "config1", val, sizeof(val)))
		c1 = strtoull(val, NULL, 0);
	*config = c;
	*config1 = c1;
	return true;
}

int td_perf_config(const char *spelling, uint64_t *config, uint64_t *config1)
{
	const char *slash = spelling ? strchr(spelling, '/') : NULL;

	if (slash && slash != spelling && terms_config(slash + 1, config, config1))
		return 0;
	if (spelling && spelling[0] == 'r' && spelling[1] &&
	    strspn(spelling + 1, "0123456789abcdefABCDEF") == strlen(spelling + 1)) {
		*config = strtoull(spelling + 1, NULL, 16);
		*config1 = 0;
		return 0;
	}
	return -EINVAL;
}

static int find_by_raw(const struct td_model *m, uint64_t config, uint64_t config1)
{
	for (size_t i = 0; i < td_model__nr_events(m); i++) {
		const struct td_event *e = td_model__event(m, i);
		uint64_t c, c1;

		if (e->has_raw && e->raw_type != 0 && e->raw_config == config &&
		    e->raw_config1 == config1)
			return (int)i;
		if (td_perf_config(e->perf, &c, &c1) == 0 && c == config && c1 == config1)
			return (int)i;
	}
	return -1;
}

/* PERF_COUNT_HW_* by config: the generic names the models list. */
static const char *const hw_names[] = {
	[0] = "cycles", [1] = "instructions", [3] = "cache-misses", [4] = "branches",
	[5] = "branch-misses",
};

int td_model__find_event_attr(const struct td_model *m, uint32_t type, uint64_t config,
			      uint64_t config1)
{
	for (size_t i = 0; i < td_model__nr_events(m); i++) {
		const struct td_event *e = td_model__event(m, i);
		uint64_t c, c1;

		if (e->has_raw && e->raw_type == type && e->raw_config == config &&
		    e->raw_config1 == config1)
			return (int)i;
		/* perf spellings were checked against libpfm4's encodings by the tests */
		if (type == 4 /* PERF_TYPE_RAW */ && td_perf_config(e->perf, &c, &c1) == 0 &&
		    c == config && c1 == config1)
			return (int)i;
	}
	/* PERF_TYPE_HARDWARE: the kernel's generic events, by name */
	if (type == 0 && config1 == 0 && config < ARRAY_SIZE(hw_names) && hw_names[config])
		return td_model__find_event(m, hw_names[config]);
	return -1;
}

/* Resolve a name as perf prints it: "cycles:u", "cpu/event=0x3c/", "cpu_core/slots/", "r3c". */
static int resolve_event(const struct td_model *m, const char *name)
{
	char buf[256], val[64];
	const char *slash;
	int idx;

	snprintf(buf, sizeof(buf), "%s", name);
	slash = strchr(buf, '/');
	if (slash && slash != buf) {
		char *terms = (char *)slash + 1;
		uint64_t config = 0, config1 = 0;

		if (term_value(terms, "name", val, sizeof(val))) {
			idx = resolve_event(m, val);
			if (idx >= 0)
				return idx;
		}
		if (!strchr(terms, '='))	{	/* "cpu/topdown-retiring/" */
			char *end = strchr(terms, '/');

			if (end)
				*end = '\0';
			return resolve_event(m, terms);
		}
		if (!terms_config(terms, &config, &config1))
			return -1;
		return find_by_raw(m, config, config1);
	}
	for (;;) {
		char *colon;

		idx = td_model__find_event(m, buf);
		if (idx >= 0)
			return idx;
		colon = strrchr(buf, ':');
		if (!colon || !is_modifier_suffix(colon + 1))
			break;
		*colon = '\0';
	}
	if (buf[0] == 'r' && buf[1] && strspn(buf + 1, "0123456789abcdefABCDEF") == strlen(buf + 1))
		return find_by_raw(m, strtoull(buf + 1, NULL, 16), 0);
	return -1;
}

static void record(const struct td_model *m, struct acc *a, const char *name, bool missing,
		   double v, size_t *unknown)
{
	int idx = resolve_event(m, name);

	if (idx < 0) {
		(*unknown)++;
		return;
	}
	if (missing) {
		a->missing[idx] = true;
		return;
	}
	a->sum[idx] += v;
	a->nr[idx]++;
}

static bool starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static const char *const units[] = { "msec", "ms", "ns", "us", "sec", "s", "Joules", "MiB", "W",
				     NULL };

/*
 * A line of perf stat's CSV output ("VALUE,UNIT,EVENT,RUNTIME,PCT,...");
 * false when the line is not CSV. An event such as "cpu/event=0x9c,umask=0x1/"
 * contains the separator itself: it runs to its closing '/'.
 */
static bool try_csv(const char *line, char **value, char **name)
{
	static const char seps[] = ",;";

	for (const char *sp = seps; *sp; sp++) {
		const char *unit, *ev, *end, *slash;

		if (!isdigit((unsigned char)line[0]) && line[0] != '<' && line[0] != '.' &&
		    line[0] != '-')
			return false;
		unit = strchr(line, *sp);
		if (!unit)
			continue;
		ev = strchr(unit + 1, *sp);
		if (!ev)
			continue;
		ev++;
		/* the event name never starts with a digit */
		if (!isalpha((unsigned char)ev[0]) && ev[0] != '_')
			continue;
		/* nothing before it has spaces, except "<not counted>" */
		if (memchr(line[0] == '<' ? unit : line, ' ', (size_t)(ev - (line[0] == '<' ? unit : line))))
			continue;
		end = strchr(ev, *sp);
		slash = strchr(ev, '/');
		if (slash && (!end || slash < end)) {
			const char *close = strchr(slash + 1, '/');

			if (close)
				end = strchr(close, *sp);
		}
		*value = xstrndup(line, (size_t)(unit - line));
		*name = end ? xstrndup(ev, (size_t)(end - ev)) : xstrdup(ev);
		return true;
	}
	return false;
}

/* Scan a number with digit grouping at the start of s; returns its length. */
static size_t scan_number(const char *s)
{
	size_t i = 0;

	while (s[i]) {
		size_t g = group_space(s + i);

		if (isdigit((unsigned char)s[i]) || s[i] == ',' || s[i] == '.' ||
		    (i == 0 && s[i] == '-')) {
			i++;
		} else if (g && i > 0 && isdigit((unsigned char)s[i - 1]) &&
			   isdigit((unsigned char)s[i + g])) {
			i += g;
		} else {
			break;
		}
	}
	return i;
}

static char *next_word(const char **p)
{
	const char *s = *p, *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s;
	while (*e && *e != ' ' && *e != '\t')
		e++;
	*p = e;
	return e > s ? xstrndup(s, (size_t)(e - s)) : NULL;
}

/* Where td_counts_parse is. */
struct counts_parse {
	const struct td_model *m;
	struct acc a;
	const char *file;
	size_t lineno;
	size_t unknown;
	bool perf_header;	/* perf stat's "Performance counter stats" seen */
};

static void counts_parse__record(struct counts_parse *cp, const char *name, bool missing,
				 double v)
{
	record(cp->m, &cp->a, name, missing, v, &cp->unknown);
}

/* A CSV line (perf stat -x), already split. */
static int parse_csv_line(struct counts_parse *cp, const char *value, const char *name,
			  char **cause)
{
	bool missing = value[0] == '<';
	double v = 0;

	if (!missing && td_parse_number(value, strlen(value), &v) < 0)
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad count '%s'", cp->file, cp->lineno,
			       value);
	counts_parse__record(cp, name, missing, v);
	return 0;
}

/* perf stat's "VALUE [unit] EVENT ..." */
static int parse_perf_line(struct counts_parse *cp, const char *s, char **cause)
{
	size_t nl = scan_number(s);
	const char *q = s + nl;
	char *name;
	double v;

	if (td_parse_number(s, nl, &v) < 0)
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad count '%.*s'", cp->file, cp->lineno,
			       (int)nl, s);
	name = next_word(&q);
	for (const char *const *u = units; name && *u; u++)
		if (strcmp(name, *u) == 0) {
			free(name);
			name = next_word(&q);
			break;
		}
	if (!name)
		return gx_fail(cause, GX_E_FORMAT, "%s:%zu: a count without an event name",
			       cp->file, cp->lineno);
	counts_parse__record(cp, name, false, v);
	free(name);
	return 0;
}

/* "EVENT VALUE" (or "EVENT = VALUE", "EVENT: VALUE"). */
static int parse_pair_line(struct counts_parse *cp, const char *s, char **cause)
{
	const char *q = s;
	char *name = next_word(&q);
	double v;
	int err = 0;

	while (*q == ' ' || *q == '\t' || *q == '=' || *q == ':')
		q++;
	if (starts_with(q, "<not counted>") || starts_with(q, "<not supported>")) {
		counts_parse__record(cp, name, true, 0);
	} else if (td_parse_number(q, strlen(q), &v) == 0) {
		counts_parse__record(cp, name, false, v);
	} else if (!cp->perf_header) {
		/* perf's notes ("Some events weren't counted...") are skipped */
		err = gx_fail(cause, GX_E_FORMAT,
			      "%s:%zu: expected 'EVENT VALUE', perf stat or CSV output", cp->file,
			      cp->lineno);
	}
	free(name);
	return err;
}

/* One line, without its end of line. */
static int parse_line(struct counts_parse *cp, char *s, char **cause)
{
	char *value = NULL, *name = NULL;
	size_t l = strlen(s);
	int err = 0;

	while (l && (s[l - 1] == '\r' || s[l - 1] == ' ' || s[l - 1] == '\t'))
		s[--l] = '\0';
	if (cp->lineno == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;	/* UTF-8 byte order mark */
	while (*s == ' ' || *s == '\t')
		s++;
	l = strlen(s);
	if (!*s || *s == '#' || (*s == '(' && s[l - 1] == ')'))
		return 0;
	if (strstr(s, "Performance counter stats")) {
		cp->perf_header = true;
		return 0;
	}
	if (strstr(s, "seconds time elapsed") || strstr(s, "seconds user") ||
	    strstr(s, "seconds sys"))
		return 0;
	if (try_csv(s, &value, &name)) {
		err = parse_csv_line(cp, value, name, cause);
	} else if (starts_with(s, "<not counted>") || starts_with(s, "<not supported>")) {
		const char *q = strchr(s, '>') + 1;

		name = next_word(&q);
		if (name)
			counts_parse__record(cp, name, true, 0);
	} else if (isdigit((unsigned char)*s) || *s == '.' || *s == '-') {
		err = parse_perf_line(cp, s, cause);
	} else {
		err = parse_pair_line(cp, s, cause);
	}
	free(value);
	free(name);
	return err;
}

int td_counts_parse(const struct td_model *m, const char *text, const char *file,
		    double *counts, size_t *nr_unknown, char **cause)
{
	size_t ne = td_model__nr_events(m), known = 0;
	struct counts_parse cp = {
		.m = m,
		.a = { xcalloc(ne + 1, sizeof(double)), xcalloc(ne + 1, sizeof(unsigned)),
		       xcalloc(ne + 1, sizeof(bool)) },
		.file = file,
	};
	const char *p = text;
	int err = 0;

	while (*p && !err) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, len);

		cp.lineno++;
		p += len + (eol ? 1 : 0);
		err = parse_line(&cp, line, cause);
		free(line);
	}
	for (size_t i = 0; i < ne; i++) {
		counts[i] = cp.a.nr[i] ? cp.a.sum[i] / cp.a.nr[i] : NAN;
		if (cp.a.nr[i] || cp.a.missing[i])
			known++;
	}
	if (!err && known == 0)
		err = gx_fail(cause, GX_E_NODATA, "%s: no counts for any event of model %s", file,
			      td_model__id(m));
	if (nr_unknown)
		*nr_unknown = cp.unknown;
	free(cp.a.sum);
	free(cp.a.nr);
	free(cp.a.missing);
	return err;
}
