/*
 * counts.c: numbers in any locale, and event names as perf stat prints
 * them (modifiers, PMU terms, raw encodings, hybrid prefixes) resolved to
 * a model's events. counts-parse.c reads whole perf stat outputs.
 */
#include "config.h"

#include "topdown-int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

size_t td_group_sep_len(const char *s)
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
		size_t g = td_group_sep_len(s + i);
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

/* Bits a term sets on top of an event's own encoding (Intel and AMD layouts). */
struct term_mods {
	uint64_t set;		/* cmask, inv, edge, any */
	bool any_set;
};

static bool parse_term_mod(const char *key, const char *val, struct term_mods *mods)
{
	uint64_t v = val ? strtoull(val, NULL, 0) : 1;

	if (!strcasecmp(key, "cmask") || !strcasecmp(key, "c"))
		mods->set |= (v & 0xff) << 24;
	else if (!strcasecmp(key, "inv"))
		mods->set |= (v & 1) << 23;
	else if (!strcasecmp(key, "edge"))
		mods->set |= (v & 1) << 18;
	else if (!strcasecmp(key, "any"))
		mods->set |= (v & 1) << 21;
	else
		return false;
	mods->any_set = true;
	return true;
}

/* The raw config of model event e (its raw encoding or its perf spelling), or -1. */
static int event_config(const struct td_event *e, uint64_t *c, uint64_t *c1)
{
	if (e->has_raw && e->raw_type == 4) {
		*c = e->raw_config;
		*c1 = e->raw_config1;
		return 0;
	}
	return td_perf_config(e->perf, c, c1);
}

static int resolve_plain(const struct td_model *m, char *buf);

/*
 * "pmu/terms/mods" with terms split at ',': name=X, event=/umask=/config=
 * numbers, or a symbolic event ("de_no_dispatch_per_slot.no_ops_from_frontend")
 * with cmask/inv/edge/any on top of its encoding.
 */
static int resolve_terms(const struct td_model *m, char *terms)
{
	struct term_mods mods = { 0 };
	char *base = NULL, *name = NULL, *save = NULL;
	uint64_t config = 0, config1 = 0, ev;
	bool numeric = false, raw = false;
	int idx;

	for (char *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');

		if (eq)
			*eq++ = '\0';
		if (!strcasecmp(t, "name") && eq) {
			name = eq;
		} else if (parse_term_mod(t, eq, &mods)) {
			;
		} else if (eq && !strcasecmp(t, "event")) {
			ev = strtoull(eq, NULL, 0);	/* AMD: event bits 8-11 at 32-35 */
			config |= (ev & 0xff) | ((ev >> 8) & 0xf) << 32;
			numeric = true;
		} else if (eq && !strcasecmp(t, "umask")) {
			config |= (strtoull(eq, NULL, 0) & 0xff) << 8;
			numeric = true;
		} else if (eq && !strcasecmp(t, "config")) {
			config = strtoull(eq, NULL, 0);
			numeric = raw = true;
		} else if (eq && !strcasecmp(t, "config1")) {
			config1 = strtoull(eq, NULL, 0);
			numeric = true;
		} else if (!eq && !base) {
			base = t;
		}
		/* period=, freq=, ldlat= ...: no bearing on what is counted */
	}
	if (name && (idx = resolve_plain(m, name)) >= 0)
		return idx;
	if (base) {
		idx = resolve_plain(m, base);
		if (idx < 0 || !mods.any_set)
			return idx;
		if (event_config(td_model__event(m, (size_t)idx), &config, &config1) < 0)
			return -1;
		config &= ~((0xffull << 24) | (1ull << 23) | (1ull << 18) | (1ull << 21));
		return find_by_raw(m, config | mods.set, config1);
	}
	if (numeric)
		return find_by_raw(m, raw ? config : config | mods.set, config1);
	return -1;
}

/* A name without a PMU: "cycles:u", "L1D_PEND_MISS.FB_FULL:c1", "r4c2:k". */
static int resolve_plain(const struct td_model *m, char *buf)
{
	int idx;

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

int td_counts_resolve(const struct td_model *m, const char *name, char *pmu, size_t pmu_len)
{
	char buf[512], *slash;
	size_t n = 0;
	int idx;

	/* unescape perf's metric spelling: cpu@ev\,cmask\=0x6@ -> cpu/ev,cmask=0x6/ */
	for (const char *p = name; *p && n + 1 < sizeof(buf); p++) {
		if (*p == '\\' && p[1]) {
			buf[n++] = *++p;
			continue;
		}
		buf[n++] = *p == '@' ? '/' : *p;
	}
	buf[n] = '\0';
	if (pmu && pmu_len)
		snprintf(pmu, pmu_len, "cpu");
	slash = strchr(buf, '/');
	if (slash && slash != buf) {
		char *terms = slash + 1, *end = strchr(terms, '/');
		char whole[1040];

		if (pmu && pmu_len)
			snprintf(pmu, pmu_len, "%.*s", (int)(slash - buf), buf);
		if (end)
			*end = '\0';
		*slash = '\0';
		/* the whole spelling first: a model event's perf name ("cpu/event=0x3c/") */
		snprintf(whole, sizeof(whole), "%s/%s/", buf, terms);
		idx = td_model__find_event(m, whole);
		if (idx >= 0)
			return idx;
		if (strchr(terms, '=') || strchr(terms, ','))
			return resolve_terms(m, terms);
		return resolve_plain(m, terms);	/* "cpu_core/topdown-retiring/" */
	}
	return resolve_plain(m, buf);
}
