/*
 * description.c: a machine description, the one input of record
 * --model's pricing besides the program and its input (issue 40): a
 * file of every price the model uses, each with where its figure comes
 * from, shipped for the CPUs gexplore knows (machines/NAME.json, chosen by
 * their match rules) or written by `gexplore peak --save`. Nothing else
 * (no cache of peak's, no environment) changes a price.
 */
#include "config.h"

#include "model.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model-int.h"
#include "util/util.h"

#ifndef GX_MACHINES_DIR
#define GX_MACHINES_DIR "/usr/share/gexplore/machines"
#endif

/* Each price's key and the range a description may give it. The caches'
 * sizes and the TLB's reach are what Valgrind is asked to simulate, a tag
 * a line or a page: bounded so that its tags fit in memory (a reach of
 * 1e14 bytes asked gxgrind for 137 GB of them, and Valgrind aborted with
 * its map of memory, read as "valgrind could not run" the workload). The
 * bounds are far past any core's: 16 MiB of L1, 256 MiB of L2, 2 GiB of
 * L3 (a 3D V-Cache CCD holds 96 MiB), 1 GiB of reach (262,144 pages of 4
 * KiB; Zen 5's L2 TLB has 4,096). */
static const struct {
	const char *key;
	double lo, hi;
} prices[MP_NR] = {
	[MP_GHZ] = { "ghz", 0.1, 10 },
	[MP_L1_LAT] = { "l1_latency", 0, 1e4 },
	[MP_L2_LAT] = { "l2_latency", 0, 1e4 },
	[MP_L3_LAT] = { "l3_latency", 0, 1e4 },
	[MP_DRAM_LAT] = { "dram_latency", 0, 1e5 },
	[MP_DRAM_BYTES] = { "dram_latency_bytes", 0, 1e15 },
	[MP_DRAM_NEAR_LAT] = { "dram_near_latency", 0, 1e5 },
	[MP_DRAM_NEAR_BYTES] = { "dram_near_bytes", 0, 1e15 },
	[MP_L1_BW] = { "l1_bandwidth", 0.01, 1e4 },
	[MP_L2_BW] = { "l2_bandwidth", 0.01, 1e4 },
	[MP_L3_BW] = { "l3_bandwidth", 0.01, 1e4 },
	[MP_DRAM_BW] = { "dram_bandwidth", 0.01, 1e4 },
	[MP_TLB_REACH] = { "tlb_reach", 0, 1 << 30 },
	[MP_TLB_WALK] = { "tlb_walk", 0, 1e5 },
	[MP_MISPREDICT] = { "mispredict", 0, 1e3 },
	[MP_INDIRECT] = { "indirect_missed", 0, 1 },
	[MP_IMISS] = { "icache_miss", 0, 1e4 },
	[MP_ISEQ] = { "icache_seq_miss", 0, 1e4 },
	[MP_FAULT] = { "page_fault", 0, 1e8 },
	[MP_FMA] = { "fma_throughput", 0, 100 },
	[MP_ADD] = { "add_throughput", 0, 100 },
	[MP_L1I_SIZE] = { "l1i_size", 1024, 1 << 24 },
	[MP_L1I_WAYS] = { "l1i_ways", 1, 1024 },
	[MP_L1D_SIZE] = { "l1d_size", 1024, 1 << 24 },
	[MP_L1D_WAYS] = { "l1d_ways", 1, 1024 },
	[MP_L2_SIZE] = { "l2_size", 1024, 1 << 28 },
	[MP_L2_WAYS] = { "l2_ways", 1, 1024 },
	[MP_L3_SIZE] = { "l3_size", 0, 1u << 31 },
	[MP_L3_WAYS] = { "l3_ways", 1, 1024 },
	[MP_LINE] = { "line_size", 16, 1024 },
};

const char *model_price_key(enum model_price p)
{
	return p < MP_NR ? prices[p].key : "?";
}

bool model_machine__measured(const struct model_machine *mm, enum model_price p)
{
	return p < MP_NR && mm->source[p] && !strncmp(mm->source[p], "measured", 8);
}

const char *model_machines_dir(void)
{
	return gx_data_dir("GX_MACHINES_DIR", GX_SRC_MACHINES_DIR, GX_MACHINES_DIR);
}

void model_machine__exit(struct model_machine *mm)
{
	GX_FREE(mm->name, mm->title, mm->file, mm->mcpu, mm->mcpu_source);
	for (int p = 0; p < MP_NR; p++)
		free(mm->source[p]);
	memset(mm, 0, sizeof(*mm));
}

/* A name of letters, digits, '_', '-' and '.', 1 to 64 of them. */
static bool name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && !strchr("_-.", s[n]))
			return false;
	return n > 0 && n <= 64;
}

/* prices.mcpu into mm: a name llvm-mca takes. */
static int parse_mcpu(struct model_machine *mm, json_t *e, const char *name, char **cause)
{
	json_t *v = json_object_get(e, "value"), *s = json_object_get(e, "source");

	if (!json_is_string(v) || !name_ok(json_string_value(v)))
		return gx_fail(cause, GX_E_FORMAT, "%s: prices.mcpu's value is not an llvm-mca "
			       "CPU name", gx_esc(name));
	if (!json_is_string(s) || !*json_string_value(s))
		return gx_fail(cause, GX_E_FORMAT, "%s: prices.mcpu has no source", gx_esc(name));
	mm->mcpu = xstrdup(json_string_value(v));
	mm->mcpu_source = xstrdup(json_string_value(s));
	return 0;
}

void model_machine__one_dram(struct model_machine *mm, const char *why)
{
	for (int p = MP_DRAM_NEAR_LAT; p <= MP_DRAM_NEAR_BYTES; p++) {
		mm->price[p] = mm->price[p - 2];
		free(mm->source[p]);
		mm->source[p] = xasprintf("%s's: one latency for every set (%s): %s",
					  prices[p - 2].key, why, mm->source[p - 2]);
	}
}

/* Every price of pr into mm; one unknown, missing or out of range is the error. */
static int parse_prices(struct model_machine *mm, json_t *pr, const char *name, char **cause)
{
	const char *key;
	json_t *e;
	int p;

	json_object_foreach(pr, key, e) {
		json_t *v = json_object_get(e, "value"), *s = json_object_get(e, "source");

		if (!strcmp(key, "mcpu")) {
			int err = parse_mcpu(mm, e, name, cause);

			if (err)
				return err;
			continue;
		}
		for (p = 0; p < MP_NR && strcmp(prices[p].key, key); p++)
			;
		if (p == MP_NR)
			return gx_fail(cause, GX_E_FORMAT, "%s: prices.%s is no price gexplore "
				       "knows", gx_esc(name), gx_esc(key));
		if (!json_is_number(v) || json_number_value(v) < prices[p].lo ||
		    json_number_value(v) > prices[p].hi)
			return gx_fail(cause, GX_E_FORMAT, "%s: prices.%s's value is not a number "
				       "from %.10g to %.10g", gx_esc(name), key, prices[p].lo,
				       prices[p].hi);
		if (!json_is_string(s) || !*json_string_value(s))
			return gx_fail(cause, GX_E_FORMAT, "%s: prices.%s has no source (a "
				       "documented value or where it was measured)", gx_esc(name), key);
		mm->price[p] = json_number_value(v);
		free(mm->source[p]);
		mm->source[p] = xstrdup(json_string_value(s));
	}
	if (!mm->mcpu)
		return gx_fail(cause, GX_E_FORMAT, "%s: prices.mcpu is missing", gx_esc(name));
	/* a description from before a miss on a sequential path was priced
	 * apart (a result's, a user's file): every miss at icache_miss, as it
	 * was priced */
	if (!mm->source[MP_ISEQ] && mm->source[MP_IMISS]) {
		mm->price[MP_ISEQ] = mm->price[MP_IMISS];
		mm->source[MP_ISEQ] = xasprintf("icache_miss's (a description from before a "
						"miss on a sequential path was priced apart): %s",
						mm->source[MP_IMISS]);
	}
	/* one from before memory's latency by the set's size: one latency
	 * for every set, as it was priced (each near price two after its
	 * own: machine.c's --save relies on it too) */
	_Static_assert(MP_DRAM_NEAR_LAT - 2 == MP_DRAM_LAT && MP_DRAM_NEAR_BYTES - 2 ==
		       MP_DRAM_BYTES, "a near price two after memory's");
	if (!mm->source[MP_DRAM_NEAR_LAT] && !mm->source[MP_DRAM_NEAR_BYTES] &&
	    mm->source[MP_DRAM_LAT] && mm->source[MP_DRAM_BYTES])
		model_machine__one_dram(mm, "a description from before memory's latency by the "
					"set's size");
	for (p = 0; p < MP_NR; p++)
		if (!mm->source[p])
			return gx_fail(cause, GX_E_FORMAT, "%s: prices.%s is missing (a description "
				       "gives every price%s)", gx_esc(name), prices[p].key,
				       p >= MP_L1I_SIZE ? "; one saved before the caches were "
				       "a description's: `gexplore peak --save` it again" : "");
	return 0;
}

int model_machine__parse(struct model_machine *mm, const char *text, size_t len,
			 const char *name, char **cause)
{
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *v;
	int err = 0;

	memset(mm, 0, sizeof(*mm));
	if (!doc)
		return gx_fail(cause, GX_E_FORMAT, "%s: not a machine description: not valid JSON "
			       "at line %d, column %d", gx_esc(name), jerr.line, jerr.column);
	v = json_object_get(doc, "schema");
	if (!json_is_string(v) || strcmp(json_string_value(v), MODEL_MACHINE_SCHEMA)) {
		err = gx_fail(cause, GX_E_FORMAT, "%s: not a machine description: its schema is "
			      "not \"" MODEL_MACHINE_SCHEMA "\"", gx_esc(name));
		goto out;
	}
	v = json_object_get(doc, "name");
	if (!json_is_string(v) || !name_ok(json_string_value(v))) {
		err = gx_fail(cause, GX_E_FORMAT, "%s: its name is missing or not 1 to 64 letters, "
			      "digits, '_', '-' or '.'", gx_esc(name));
		goto out;
	}
	mm->name = xstrdup(json_string_value(v));
	v = json_object_get(doc, "title");
	if (json_is_string(v))
		mm->title = xstrdup(json_string_value(v));
	v = json_object_get(doc, "prices");
	if (!json_is_object(v)) {
		err = gx_fail(cause, GX_E_FORMAT, "%s: it has no prices object", gx_esc(name));
		goto out;
	}
	err = parse_prices(mm, v, name, cause);
out:
	if (err)
		model_machine__exit(mm);
	json_decref(doc);
	return err;
}

/* ---- this CPU ------------------------------------------------------------ */

/* Is word one of the space-separated words of list? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

void model_cpu_detect(struct model_cpu *c)
{
	char *t = gx_read_file("/proc/cpuinfo", 1 << 20);

	memset(c, 0, sizeof(*c));
	for (char *s = t; s && *s;) {
		char *nl = strchr(s, '\n'), *colon;

		if (nl)
			*nl = 0;
		colon = strchr(s, ':');
		if (colon) {
			const char *val = colon + 1 + (colon[1] == ' ');

			if (!strncmp(s, "vendor_id", 9) && !c->vendor[0])
				snprintf(c->vendor, sizeof(c->vendor), "%s", val);
			else if (!strncmp(s, "cpu family", 10) && !c->family)
				c->family = atoi(val);
			else if (!strncmp(s, "model\t", 6) && !c->model)
				c->model = atoi(val);
			else if (!strncmp(s, "CPU implementer", 15) && !c->implementer)
				c->implementer = (unsigned)strtoul(val, NULL, 0);
			else if (!strncmp(s, "CPU part", 8) && !c->part)
				c->part = (unsigned)strtoul(val, NULL, 0);
			else if (!strncmp(s, "flags", 5))
				c->guest = has_word(val, "hypervisor");
		}
		/* x86's flags come after its model; the first CPU's are enough */
		if (!nl || (c->vendor[0] && c->family && c->model && !strncmp(s, "flags", 5)) ||
		    c->part)
			break;
		s = nl + 1;
	}
	free(t);
}

static bool in_list(json_t *a, int x)
{
	size_t i;
	json_t *e;

	json_array_foreach(a, i, e)
		if (json_is_integer(e) && json_integer_value(e) == x)
			return true;
	return false;
}

static bool in_ranges(json_t *a, int x)
{
	size_t i;
	json_t *e;

	json_array_foreach(a, i, e)
		if (json_array_size(e) == 2 && json_integer_value(json_array_get(e, 0)) <= x &&
		    x <= json_integer_value(json_array_get(e, 1)))
			return true;
	return false;
}

/* Whether one match rule fits: vendor, family and the model among models
 * or model_ranges (neither: any), or the Arm implementer and a part. */
static bool rule_fits(json_t *r, const char *vendor, int family, int model,
		      unsigned implementer, unsigned part)
{
	json_t *v = json_object_get(r, "vendor"), *ms = json_object_get(r, "models");
	json_t *rs = json_object_get(r, "model_ranges");

	if (json_is_integer(json_object_get(r, "implementer")))
		return implementer && (unsigned)json_integer_value(json_object_get(r, "implementer"))
				      == implementer && in_list(json_object_get(r, "parts"), (int)part);
	if (!json_is_string(v) || !vendor || strcmp(json_string_value(v), vendor) ||
	    json_integer_value(json_object_get(r, "family")) != family)
		return false;
	if (!ms && !rs)
		return true;
	return in_list(ms, model) || in_ranges(rs, model);
}

static int json_file(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 && !strcmp(de->d_name + n - 5, ".json");
}

char *model_machine_match(const char *dir, const char *vendor, int family, int model,
			  unsigned implementer, unsigned part)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, json_file, alphasort);
	char *found = NULL;

	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]->d_name);
		json_t *doc = found ? NULL : json_load_file(path, 0, NULL), *r;
		size_t k;

		json_array_foreach(json_object_get(doc, "match"), k, r) {
			if (!found && rule_fits(r, vendor, family, model, implementer, part))
				found = xstrndup(names[i]->d_name, strlen(names[i]->d_name) - 5);
		}
		json_decref(doc);
		free(path);
		free(names[i]);
	}
	free(names);
	return found ? found : xstrdup("generic");
}

/* ---- loading ------------------------------------------------------------- */

static bool ends_json(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && !strcmp(s + n - 5, ".json");
}

/* mcpu "host": this CPU's closest llvm-mca model, and the source says which. */
static void resolve_host(struct model_machine *mm, const struct model_cpu *c)
{
	char *note = NULL, *src;
	const char *cpu;

	if (strcmp(mm->mcpu, "host"))
		return;
	cpu = mca_cpu_for(c->vendor[0] ? c->vendor : NULL, c->family, c->model, c->part, &note);
	src = xasprintf("%s: %s here%s%s", mm->mcpu_source, cpu, note ? "; " : "",
			note ? note : "");
	free(mm->mcpu);
	free(mm->mcpu_source);
	mm->mcpu = xstrdup(cpu);
	mm->mcpu_source = src;
	free(note);
}

static int read_file(struct model_machine *mm, const char *path, char **cause)
{
	char *text, *why = NULL;
	size_t len = 0;
	int err = 0;

	text = gx_read_regular(path, 1 << 20, &len, &err, &why);
	if (!text) {
		err = gx_fail(cause, GX_E_USAGE, "--model=%s: %s", gx_esc(path),
			      why ? why : "cannot be read");
		free(why);
		return err;
	}
	err = model_machine__parse(mm, text, len, path, cause);
	free(text);
	if (!err)
		mm->file = xstrdup(path);
	return err;
}

/* The shipped descriptions' names, for an error. */
static char *shipped(const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, json_file, alphasort);
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < n; i++) {
		strbuf__addf(&sb, "%s%.*s", i ? ", " : "", (int)strlen(names[i]->d_name) - 5,
			     names[i]->d_name);
		free(names[i]);
	}
	free(names);
	if (n <= 0) {
		strbuf__exit(&sb);
		return xstrdup("none");
	}
	return strbuf__detach(&sb);
}

int model_machine__load(struct model_machine *mm, const char *arg, char **cause)
{
	const char *dir = model_machines_dir();
	struct model_cpu c;
	char *name, *path;
	int err;

	memset(mm, 0, sizeof(*mm));
	model_cpu_detect(&c);
	if (arg && *arg && (strchr(arg, '/') || ends_json(arg))) {
		err = read_file(mm, arg, cause);
		if (!err)
			resolve_host(mm, &c);
		return err;
	}
	if (arg && *arg && !name_ok(arg))
		return gx_fail(cause, GX_E_USAGE, "--model=%s: not a description's name, nor a "
			       "file (a path with a '/' or ending in .json)", gx_esc(arg));
	name = arg && *arg ? xstrdup(arg) : model_machine_match(dir, c.vendor, c.family, c.model,
								c.implementer, c.part);
	path = xasprintf("%s/%s.json", dir, name);
	if (access(path, F_OK) != 0) {
		char *list = shipped(dir);

		err = gx_fail(cause, GX_E_USAGE, "--model=%s: no such machine description in %s "
			      "(there: %s); a file is given with a '/'", gx_esc(name), gx_esc(dir),
			      list);
		free(list);
	} else {
		err = read_file(mm, path, cause);
	}
	if (!err)
		resolve_host(mm, &c);
	free(path);
	free(name);
	return err;
}

/* ---- writing ------------------------------------------------------------- */

static json_t *price_json(json_t *v, const char *source)
{
	json_t *e = json_object();

	json_object_set_new(e, "value", v);
	json_object_set_new(e, "source", json_string(gx_utf8(source ? source : "")));
	return e;
}

json_t *model_machine__to_json(const struct model_machine *mm)
{
	json_t *doc = json_object(), *pr = json_object();

	json_object_set_new(doc, "schema", json_string(MODEL_MACHINE_SCHEMA));
	json_object_set_new(doc, "name", json_string(gx_utf8(mm->name)));
	if (mm->title)
		json_object_set_new(doc, "title", json_string(gx_utf8(mm->title)));
	json_object_set_new(pr, "mcpu", price_json(json_string(gx_utf8(mm->mcpu)),
						   mm->mcpu_source));
	for (int p = 0; p < MP_NR; p++) {
		double v = mm->price[p];
		/* whole figures as integers: a byte count keeps every digit */
		json_t *j = v == (double)(json_int_t)v && fabs(v) < 9e15 ?
			    json_integer((json_int_t)v) : json_real(v);

		json_object_set_new(pr, prices[p].key, price_json(j, mm->source[p]));
	}
	json_object_set_new(doc, "prices", pr);
	return doc;
}

static void meta_price(struct gx_meta_price *q, const char *key, double v, const char *text,
		       const char *source)
{
	q->key = xstrdup(key);
	q->value = v;
	q->text = text ? xstrdup(text) : NULL;
	q->source = xstrdup(source ? source : "");
}

void model_machine__to_meta(const struct model_machine *mm, struct gx_meta_machine *out)
{
	memset(out, 0, sizeof(*out));
	out->name = xstrdup(mm->name);
	out->title = mm->title ? xstrdup(mm->title) : NULL;
	out->file = mm->file ? xstrdup(mm->file) : NULL;
	out->prices = xcalloc(MP_NR + 1, sizeof(*out->prices));
	meta_price(&out->prices[out->nr_prices++], "mcpu", NAN, mm->mcpu, mm->mcpu_source);
	for (int p = 0; p < MP_NR; p++)
		meta_price(&out->prices[out->nr_prices++], prices[p].key, mm->price[p], NULL,
			   mm->source[p]);
}
