/*
 * report-mem.c: where the loads wait (issue 43). Memory-access samples
 * (perf mem, perf c2c, record --mem) or a modelled result's loads, as
 * tables: per data source (perf mem report's "Memory access" column:
 * samples, summed and mean latency), per data object (the variable or
 * the kind of memory each address fell in) and per cache line, the lines
 * that more than one thread's HITM loads touched first (perf c2c's false
 * sharing). JSON: `data_sources`, `memory` and each function row's own
 * `data_sources`.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"

static double mean(uint64_t weight, uint64_t samples)
{
	return samples ? (double)weight / (double)samples : 0;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static const char *what(struct gx_result *in)
{
	return gx_result__modelled(in) ? "modelled loads" : "memory-access samples";
}

static size_t shown(const struct report_opts *o, size_t nr)
{
	return o->limit && o->limit < nr ? o->limit : nr;
}

static void text_more(struct strbuf *sb, const struct report_opts *o, size_t nr)
{
	if (shown(o, nr) < nr)
		strbuf__addf(sb, "  (%zu more; --limit 0 shows all)\n", nr - shown(o, nr));
}

static void text_sources(struct strbuf *sb, struct gx_result *in, const struct report_opts *o,
			 const struct profile_mem_totals *t)
{
	struct profile_mem_source *src;
	size_t nr = profile__mem_sources(gx_result__profile(in), PROFILE_BY_FUNCTION, UINT32_MAX,
					 &src);
	char a[32], b[32];

	strbuf__addf(sb, "\nData sources (%s: %s, latency %s cycles)\n", what(in),
		     report__thousands(t->samples, a, sizeof(a)),
		     report__thousands(t->weight, b, sizeof(b)));
	if (!t->has_source) {
		strbuf__addstr(sb, "  (no sample says where it was served: no data_src)\n");
		free(src);
		return;
	}
	strbuf__addstr(sb, "   share    samples        weight      mean  memory access\n");
	for (size_t i = 0; i < shown(o, nr); i++)
		strbuf__addf(sb, "  %5.1f%%  %9s  %12s  %8.1f  %s\n",
			     share(src[i].weight, t->weight),
			     report__thousands(src[i].samples, a, sizeof(a)),
			     report__thousands(src[i].weight, b, sizeof(b)),
			     mean(src[i].weight, src[i].samples), gx_esc(src[i].name));
	text_more(sb, o, nr);
	free(src);
}

static void text_objects(struct strbuf *sb, struct gx_result *in, const struct report_opts *o,
			 const struct profile_mem_totals *t)
{
	size_t nr;
	const struct profile_mem_object *ob = profile__mem_objects(gx_result__profile(in), &nr);
	char a[32], b[32];

	strbuf__addf(sb, "\nData objects (%s with a data address)\n", what(in));
	if (!nr) {
		strbuf__addstr(sb, "  (no data addresses: record with --mem or -d)\n");
		return;
	}
	strbuf__addstr(sb, "   share    samples        weight      mean  kind    object  (module)\n");
	for (size_t i = 0; i < shown(o, nr); i++) {
		strbuf__addf(sb, "  %5.1f%%  %9s  %12s  %8.1f  %-6s  %s",
			     t->weight ? share(ob[i].weight, t->weight) : share(ob[i].samples, t->samples),
			     report__thousands(ob[i].samples, a, sizeof(a)),
			     report__thousands(ob[i].weight, b, sizeof(b)),
			     mean(ob[i].weight, ob[i].samples), profile_mem_kind__name(ob[i].kind),
			     gx_esc(ob[i].name));
		if (ob[i].module[0])
			strbuf__addf(sb, "  (%s)", gx_esc(report__base(ob[i].module)));
		strbuf__addstr(sb, "\n");
	}
	text_more(sb, o, nr);
}

static void words_str(char *buf, size_t size, uint8_t words)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < 8 && n + 6 < size; i++)
		if (words >> i & 1)
			n += (size_t)snprintf(buf + n, size - n, "%s0x%x", n ? "," : "", i * 8);
}

static void text_lines(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	size_t nr, shared = 0;
	const struct profile_mem_line *l = profile__mem_lines(gx_result__profile(in), &nr);
	char a[32], w[64];

	for (size_t i = 0; i < nr; i++)
		shared += l[i].nr_tids > 1;
	strbuf__addf(sb, "\nCache lines (%zu touched; %zu with HITM loads from more than one thread: "
		     "shared, falsely when they touch different bytes)\n", nr, shared);
	if (!nr) {
		strbuf__addstr(sb, "  (no data addresses: record with --mem or -d)\n");
		return;
	}
	strbuf__addstr(sb, "            line      pid  threads  hitm(lcl/rmt)    loads   stores  "
			   "offsets          object\n");
	for (size_t i = 0; i < shown(o, nr); i++) {
		char h[32];

		words_str(w, sizeof(w), l[i].words);
		snprintf(h, sizeof(h), "%" PRIu64 "/%" PRIu64, l[i].hitm_local, l[i].hitm_remote);
		strbuf__addf(sb, "  %#14" PRIx64 "  %7u  %7u  %13s  %7s  %7" PRIu64 "  %-15s  %s%s\n",
			     l[i].addr, l[i].pid, l[i].nr_tids, h,
			     report__thousands(l[i].loads, a, sizeof(a)), l[i].stores, w,
			     gx_esc(l[i].object ? l[i].object : "?"),
			     l[i].nr_tids > 1 ? "  SHARED" : "");
	}
	text_more(sb, o, nr);
}

struct row_lat {
	const struct profile_row *r;
	uint64_t samples, weight;
	const char *top;
};

static int row_lat_cmp(const void *a, const void *b)
{
	const struct row_lat *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->r->index < y->r->index ? -1 : x->r->index > y->r->index;
}

/* The function or line rows by their loads' latency: samples, weight, mean
 * and the source with most of it. */
static void text_rows(struct strbuf *sb, struct gx_result *in, const struct report_opts *o,
		      enum profile_by by)
{
	struct profile *p = gx_result__profile(in);
	size_t nr, n = 0;
	const struct profile_row *const *rows = profile__rows(p, by, o->sort_event, &nr);
	struct row_lat *v = xcalloc(nr + 1, sizeof(*v));
	char a[32], b[32];

	for (size_t i = 0; i < nr; i++) {
		struct profile_mem_source *src;
		size_t k = profile__mem_sources(p, by, rows[i]->index, &src);

		if (k) {
			v[n] = (struct row_lat){ rows[i], 0, 0, src[0].name };
			for (size_t j = 0; j < k; j++) {
				v[n].samples += src[j].samples;
				v[n].weight += src[j].weight;
			}
			n++;
		}
		free(src);
	}
	gx_qsort(v, n, sizeof(*v), row_lat_cmp);
	strbuf__addf(sb, "\n%s by the latency of their loads\n", by == PROFILE_BY_LINE ? "Lines" :
		     "Functions");
	strbuf__addstr(sb, "   samples        weight      mean  most from                  where\n");
	for (size_t i = 0; i < shown(o, n); i++) {
		strbuf__addf(sb, "  %8s  %12s  %8.1f  %-25s  %s",
			     report__thousands(v[i].samples, a, sizeof(a)),
			     report__thousands(v[i].weight, b, sizeof(b)),
			     mean(v[i].weight, v[i].samples), gx_esc(v[i].top), gx_esc(v[i].r->name));
		if (by == PROFILE_BY_LINE && v[i].r->line)
			strbuf__addf(sb, " (%s:%u)", gx_esc(report__base(v[i].r->file)), v[i].r->line);
		strbuf__addstr(sb, "\n");
	}
	text_more(sb, o, n);
	free(v);
}

int report__text_mem(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	struct profile_mem_totals t;

	if (!profile__mem(gx_result__profile(in), &t)) {
		strbuf__addstr(sb, "\nNo memory-access samples: record them with `gexplore record "
				   "--mem` (or perf mem record), or model them with `--model`.\n");
		return 0;
	}
	if (o->mem_by == REPORT_MEM_SOURCE) {
		text_sources(sb, in, o, &t);
		if (t.has_source) {
			text_rows(sb, in, o, PROFILE_BY_FUNCTION);
			text_rows(sb, in, o, PROFILE_BY_LINE);
		}
	}
	else if (o->mem_by == REPORT_MEM_OBJECT)
		text_objects(sb, in, o, &t);
	else
		text_lines(sb, in, o);
	return 0;
}

void report__text_mem_summary(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	struct profile_mem_totals t;
	struct report_opts so = *o;

	if (!profile__mem(gx_result__profile(in), &t) || !t.has_source)
		return;
	so.limit = 5;
	text_sources(sb, in, &so, &t);
}

/* ---- JSON ----------------------------------------------------------------- */

static json_t *json_sources(struct gx_result *in, enum profile_by by, uint32_t row)
{
	struct profile_mem_source *src;
	size_t nr = profile__mem_sources(gx_result__profile(in), by, row, &src);
	json_t *a = json_array();

	for (size_t i = 0; i < nr; i++)
		json_array_append_new(a, json_pack("{s:s,s:o,s:o}", "source", src[i].name,
						   "samples", report__json_u64(src[i].samples),
						   "weight", report__json_u64(src[i].weight)));
	free(src);
	return a;
}

void report__json_mem_row(json_t *row, struct gx_result *in, enum profile_by by, uint32_t index)
{
	struct profile_mem_totals t;

	if (profile__mem(gx_result__profile(in), &t) && t.has_source)
		json_object_set_new(row, "data_sources", json_sources(in, by, index));
}

static json_t *json_objects(struct gx_result *in, const struct report_opts *o)
{
	size_t nr;
	const struct profile_mem_object *ob = profile__mem_objects(gx_result__profile(in), &nr);
	json_t *a = json_array();

	for (size_t i = 0; i < shown(o, nr); i++) {
		json_t *x = json_pack("{s:s,s:s,s:o,s:o}", "object", gx_utf8(ob[i].name),
				      "kind", profile_mem_kind__name(ob[i].kind),
				      "samples", report__json_u64(ob[i].samples),
				      "weight", report__json_u64(ob[i].weight));

		json_object_set_new(x, "module", ob[i].module[0] ?
				    json_string(gx_utf8(ob[i].module)) : json_null());
		if (ob[i].kind == PROFILE_MEM_GLOBAL || ob[i].kind == PROFILE_MEM_STATIC) {
			json_object_set_new(x, "address", report__json_u64(ob[i].start));
			json_object_set_new(x, "size", report__json_u64(ob[i].size));
		}
		json_array_append_new(a, x);
	}
	return a;
}

static json_t *json_lines(struct gx_result *in, const struct report_opts *o)
{
	size_t nr;
	const struct profile_mem_line *l = profile__mem_lines(gx_result__profile(in), &nr);
	json_t *a = json_array();

	for (size_t i = 0; i < shown(o, nr); i++) {
		json_t *tids = json_array(), *offs = json_array();

		for (uint32_t k = 0; k < l[i].nr_tids && k < PROFILE_MEM_TIDS; k++)
			json_array_append_new(tids, json_integer(l[i].tids[k]));
		for (unsigned k = 0; k < 8; k++)
			if (l[i].words >> k & 1)
				json_array_append_new(offs, json_integer(k * 8));
		json_array_append_new(a, json_pack(
			"{s:o,s:i,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:i,s:o,s:o,s:b}",
			"address", report__json_u64(l[i].addr), "pid", (int)l[i].pid,
			"object", gx_utf8(l[i].object ? l[i].object : "?"),
			"samples", report__json_u64(l[i].samples),
			"weight", report__json_u64(l[i].weight),
			"loads", report__json_u64(l[i].loads), "stores", report__json_u64(l[i].stores),
			"hitm_local", report__json_u64(l[i].hitm_local),
			"hitm_remote", report__json_u64(l[i].hitm_remote),
			"hitm_threads", (int)l[i].nr_tids, "tids", tids, "offsets", offs,
			"shared", l[i].nr_tids > 1));
	}
	return a;
}

void report__json_mem(json_t *root, struct gx_result *in, const struct report_opts *o)
{
	struct profile_mem_totals t;
	json_t *m;

	if (!profile__mem(gx_result__profile(in), &t))
		return;
	json_object_set_new(root, "data_sources", t.has_source ?
			    json_sources(in, PROFILE_BY_FUNCTION, UINT32_MAX) : json_array());
	m = json_pack("{s:b,s:o,s:o,s:o,s:o,s:o}", "modelled", gx_result__modelled(in),
		      "samples", report__json_u64(t.samples), "weight", report__json_u64(t.weight),
		      "loads", report__json_u64(t.loads), "stores", report__json_u64(t.stores),
		      "hitm", report__json_u64(t.hitm));
	if (t.has_struct) {
		const struct pd_env *env = gx_result__env(in);
		const char *v2, *v3;

		pd_weight_names(env ? env->arch : NULL, &v2, &v3);
		json_object_set_new(m, v2, report__json_u64(t.var2));
		json_object_set_new(m, v3, report__json_u64(t.var3));
	}
	json_object_set_new(m, "data_objects", json_objects(in, o));
	json_object_set_new(m, "cache_lines", json_lines(in, o));
	json_object_set_new(root, "memory", m);
}

/* ---- CSV ------------------------------------------------------------------ */

static void csv_sources(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	struct profile_mem_source *src;
	size_t nr = profile__mem_sources(gx_result__profile(in), PROFILE_BY_FUNCTION, UINT32_MAX,
					 &src);

	strbuf__addstr(sb, "source,samples,weight,mean\n");
	for (size_t i = 0; i < shown(o, nr); i++) {
		report__csv_field(sb, src[i].name);
		strbuf__addf(sb, ",%" PRIu64 ",%" PRIu64 ",%.4f\n", src[i].samples, src[i].weight,
			     mean(src[i].weight, src[i].samples));
	}
	free(src);
}

static void csv_objects(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	size_t nr;
	const struct profile_mem_object *ob = profile__mem_objects(gx_result__profile(in), &nr);

	strbuf__addstr(sb, "object,kind,module,address,size,samples,weight,mean\n");
	for (size_t i = 0; i < shown(o, nr); i++) {
		bool var = ob[i].kind == PROFILE_MEM_GLOBAL || ob[i].kind == PROFILE_MEM_STATIC;

		report__csv_field(sb, ob[i].name);
		strbuf__addf(sb, ",%s,", profile_mem_kind__name(ob[i].kind));
		report__csv_field(sb, ob[i].module);
		if (var)
			strbuf__addf(sb, ",%#" PRIx64 ",%" PRIu64, ob[i].start, ob[i].size);
		else
			strbuf__addstr(sb, ",,");
		strbuf__addf(sb, ",%" PRIu64 ",%" PRIu64 ",%.4f\n", ob[i].samples, ob[i].weight,
			     mean(ob[i].weight, ob[i].samples));
	}
}

static void csv_lines(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	size_t nr;
	const struct profile_mem_line *l = profile__mem_lines(gx_result__profile(in), &nr);

	strbuf__addstr(sb, "address,pid,object,samples,weight,loads,stores,hitm_local,hitm_remote,"
			   "hitm_threads,shared\n");
	for (size_t i = 0; i < shown(o, nr); i++) {
		strbuf__addf(sb, "%#" PRIx64 ",%u,", l[i].addr, l[i].pid);
		report__csv_field(sb, l[i].object ? l[i].object : "?");
		strbuf__addf(sb, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
			     PRIu64 ",%u,%d\n", l[i].samples, l[i].weight, l[i].loads, l[i].stores,
			     l[i].hitm_local, l[i].hitm_remote, l[i].nr_tids, l[i].nr_tids > 1);
	}
}

int report__csv_mem(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	if (o->mem_by == REPORT_MEM_SOURCE)
		csv_sources(sb, in, o);
	else if (o->mem_by == REPORT_MEM_OBJECT)
		csv_objects(sb, in, o);
	else
		csv_lines(sb, in, o);
	return 0;
}

bool report_mem_by_name(const char *arg, struct report_opts *o)
{
	static const struct {
		const char *name;
		enum report_mem_by by;
	} names[] = {
		{ "data-source", REPORT_MEM_SOURCE }, { "data-sources", REPORT_MEM_SOURCE },
		{ "source", REPORT_MEM_SOURCE }, { "data-object", REPORT_MEM_OBJECT },
		{ "data-objects", REPORT_MEM_OBJECT }, { "object", REPORT_MEM_OBJECT },
		{ "cacheline", REPORT_MEM_LINE }, { "cachelines", REPORT_MEM_LINE },
		{ "c2c", REPORT_MEM_LINE },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(arg, names[i].name))
			continue;
		o->mem_by = names[i].by;
		o->by_given = o->by_region = o->by_tree = false;
		return true;
	}
	return false;
}
