/*
 * export-pprof.c: export a result as a pprof profile (gzip-compressed
 * profile.proto), the format Parca, Pyroscope and Grafana ingest.
 *
 * The samples are walked once through src/profile, which tracks the
 * processes and their maps, collects each sample's stack (frame-pointer
 * chains, or the offline DWARF unwinder for --call-graph dwarf) and
 * symbolizes it; its on_stack hook hands us every stack, and identical
 * (process, stack) pairs are folded into one sample carrying one value per
 * recorded event (summed periods). Each distinct (mapping, address) is a
 * location whose lines are its inline chain, innermost first; each
 * distinct mapped file range a mapping with its build-id.
 *
 * Encoding goes through protobuf-c's generated code and zlib's gzip
 * stream (export-gzip.c): no hand-written wire format.
 */
#include "config.h"

#include "export.h"

#include "result/result.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_PPROF

#include "export/export-int.h"
#include "export/profile.pb-c.h"
#include "symbolize/symbolize.h"

/*
 * libprotobuf-c is opened by export_pprof__write, not linked: only this
 * export needs it, and loading it was a share of every command (issue 26,
 * part 4). The generated code's calls land here, each a call through the
 * address gx_lazylib__open resolved. The empty string its initializers
 * name is ours: this export only packs, and packing reads it as "".
 */
#define PB_FNS(X, V, D) \
	X(size_t, protobuf_c_message_get_packed_size, (const ProtobufCMessage *m), (m)) \
	X(size_t, protobuf_c_message_pack, (const ProtobufCMessage *m, uint8_t *out), (m, out)) \
	X(size_t, protobuf_c_message_pack_to_buffer, (const ProtobufCMessage *m, ProtobufCBuffer *b), (m, b)) \
	X(ProtobufCMessage *, protobuf_c_message_unpack, (const ProtobufCMessageDescriptor *d, \
	  ProtobufCAllocator *a, size_t len, const uint8_t *data), (d, a, len, data)) \
	V(protobuf_c_message_free_unpacked, (ProtobufCMessage *m, ProtobufCAllocator *a), (m, a))

GX_LAZYLIB_DEFINE(libprotobuf_c, PB_FNS, "libprotobuf-c.so.1", "libprotobuf-c1")

const char protobuf_c_empty_string[] = "";

#define MAX_FRAMES 128
#define KERNEL_START 0xffff800000000000ULL

/* A table of records deduplicated by content: hash -> index + 1. */
struct dedup {
	struct u64map idx;
};

struct ploc {
	uint64_t mapping, address;
	const struct sym_result *res;
};

struct pfunc {
	uint32_t name, file;
};

struct psample {
	uint32_t pid, comm;
	size_t nlocs, off;	/* into exp.stacks */
	int64_t *values;
};

struct pmapping {
	uint64_t start, end, pgoff;
	uint32_t file, build_id;
	bool lines;
};

struct exporter {
	const struct gx_result *res;	/* set by export_pprof__write */
	const struct pd_env *env;
	struct sym_session *sym;	/* the profile's: strings of sym_results */
	size_t nr_events;
	struct strtab strs;		/* pprof's string_table; id 0 = "" */
	struct pmapping *mappings;
	size_t nr_mappings, mappings_cap;
	struct dedup mapping_idx;
	uint64_t kernel_mapping;
	struct ploc *locs;
	size_t nr_locs, locs_cap;
	struct dedup loc_idx;
	struct pfunc *funcs;
	size_t nr_funcs, funcs_cap;
	struct dedup func_idx;
	struct psample *samples;
	size_t nr_samples, samples_cap;
	struct dedup sample_idx;
	uint64_t *stacks;		/* location ids of every sample, back to back */
	size_t nr_stacks, stacks_cap;
	uint64_t first_time, last_time;
};

/* ---- dedup tables ------------------------------------------------------ */

typedef bool (*dedup_eq_fn)(const struct exporter *x, size_t idx, const void *key);

/* Index of the record equal to key, or (size_t)-1 after reserving its slot
 * for `next` (the caller then appends it). */
static size_t dedup__find(struct dedup *d, const struct exporter *x, uint64_t hash,
			  const void *key, dedup_eq_fn eq, size_t next)
{
	for (uint64_t h = hash & ~(1ULL << 63);; h = (h * 31 + 7) & ~(1ULL << 63)) {
		uint64_t *v = u64map__findnew(&d->idx, h, 0);

		if (!*v) {
			*v = next + 1;
			return (size_t)-1;
		}
		if (eq(x, (size_t)(*v - 1), key))
			return (size_t)(*v - 1);
	}
}

/* ---- processes and mappings --------------------------------------------- */

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* The BUILD_ID feature's id for a file. Files written by perf before the
 * entry had a size field say 0: the id is then SHA-1's 20 bytes. */
static void env_build_id(const struct pd_env *env, const char *file, const uint8_t **bid,
			 size_t *size)
{
	for (size_t i = 0; i < env->nr_build_ids; i++) {
		const struct pd_build_id *b = &env->build_ids[i];

		if (b->filename && !strcmp(b->filename, file)) {
			*bid = b->id;
			*size = b->size && b->size <= 20 ? b->size : 20;
			return;
		}
	}
}

static bool mapping_eq(const struct exporter *x, size_t i, const void *key)
{
	const struct pmapping *a = &x->mappings[i], *b = key;

	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->file == b->file && a->build_id == b->build_id;
}

static uint64_t mapping_of(struct exporter *x, const struct pmapping *m)
{
	uint64_t h = gx_hash(m, offsetof(struct pmapping, lines));
	size_t i = dedup__find(&x->mapping_idx, x, h, m, mapping_eq, x->nr_mappings);

	if (i != (size_t)-1)
		return i + 1;
	x->mappings = xgrow(x->mappings, &x->mappings_cap, x->nr_mappings + 1,
			    sizeof(*x->mappings));
	x->mappings[x->nr_mappings++] = *m;
	return x->nr_mappings;
}

/* ---- locations and samples ---------------------------------------------- */

static bool loc_eq(const struct exporter *x, size_t i, const void *key)
{
	const struct ploc *a = &x->locs[i], *b = key;

	return a->mapping == b->mapping && a->address == b->address;
}

/* The mapping id of a frame's user mapping (0: none). */
static uint64_t user_mapping(struct exporter *x, const struct profile_frame *f)
{
	struct pmapping pm = { .start = f->map_start, .end = f->map_end, .pgoff = f->map_pgoff,
			       .file = strtab__intern(&x->strs, f->map_file) };
	char bhex[41];

	if (f->build_id_size) {
		hex(bhex, f->build_id, f->build_id_size > 20 ? 20 : f->build_id_size);
		pm.build_id = strtab__intern(&x->strs, bhex);
	}
	return mapping_of(x, &pm);
}

/* The kernel's one mapping, made on first use. */
static uint64_t kernel_mapping(struct exporter *x)
{
	if (!x->kernel_mapping) {
		struct pmapping km = { .start = KERNEL_START, .end = UINT64_MAX,
				       .file = strtab__intern(&x->strs, "[kernel.kallsyms]") };
		const uint8_t *bid = NULL;
		size_t n = 0;
		char bhex[41];

		env_build_id(x->env, "[kernel.kallsyms]", &bid, &n);
		if (n) {
			hex(bhex, bid, n);
			km.build_id = strtab__intern(&x->strs, bhex);
		}
		x->kernel_mapping = mapping_of(x, &km);
	}
	return x->kernel_mapping;
}

/* The location id of a resolved frame. */
static uint64_t location_of(struct exporter *x, const struct profile_frame *f)
{
	struct ploc l = { 0 };
	uint64_t h;
	size_t i;

	l.mapping = f->kernel || f->addr >= KERNEL_START ? kernel_mapping(x) :
		    f->map_file ? user_mapping(x, f) : 0;
	l.address = f->addr;
	h = gx_hash(&l, 2 * sizeof(uint64_t));
	i = dedup__find(&x->loc_idx, x, h, &l, loc_eq, x->nr_locs);
	if (i != (size_t)-1)
		return i + 1;
	l.res = f->sym;
	if (l.mapping && !(l.res->flags & SYM_F_NO_LINES))
		x->mappings[l.mapping - 1].lines = true;
	x->locs = xgrow(x->locs, &x->locs_cap, x->nr_locs + 1, sizeof(*x->locs));
	x->locs[x->nr_locs++] = l;
	return x->nr_locs;
}

struct sample_key {
	uint32_t pid, comm;
	size_t n;
	const uint64_t *ids;
};

static bool sample_eq(const struct exporter *x, size_t i, const void *key)
{
	const struct psample *s = &x->samples[i];
	const struct sample_key *k = key;

	return s->pid == k->pid && s->comm == k->comm && s->nlocs == k->n &&
	       !memcmp(x->stacks + s->off, k->ids, k->n * sizeof(uint64_t));
}

static void on_stack(void *ctx, const struct pd_sample *s, uint32_t pid, const char *comm_name,
		     const struct profile_frame *frames, size_t n)
{
	struct exporter *x = ctx;
	uint64_t ids[MAX_FRAMES];
	uint32_t comm = strtab__intern(&x->strs, comm_name);
	struct sample_key k = { .pid = pid, .comm = comm, .ids = ids };
	uint64_t h;
	size_t i;

	if (s->evsel >= x->nr_events)
		return;
	if (s->time) {
		if (!x->first_time || s->time < x->first_time)
			x->first_time = s->time;
		if (s->time > x->last_time)
			x->last_time = s->time;
	}
	for (k.n = 0; k.n < n && k.n < MAX_FRAMES; k.n++)
		ids[k.n] = location_of(x, &frames[k.n]);
	h = gx_hash(ids, k.n * sizeof(uint64_t)) ^ ((uint64_t)pid << 32 | comm);
	i = dedup__find(&x->sample_idx, x, h, &k, sample_eq, x->nr_samples);
	if (i == (size_t)-1) {
		struct psample *ns;

		x->samples = xgrow(x->samples, &x->samples_cap, x->nr_samples + 1,
				   sizeof(*x->samples));
		ns = &x->samples[x->nr_samples];
		ns->pid = pid;
		ns->comm = comm;
		ns->nlocs = k.n;
		x->stacks = xgrow(x->stacks, &x->stacks_cap, x->nr_stacks + k.n, sizeof(uint64_t));
		ns->off = x->nr_stacks;
		memcpy(x->stacks + x->nr_stacks, ids, k.n * sizeof(uint64_t));
		x->nr_stacks += k.n;
		ns->values = xcalloc(x->nr_events, sizeof(int64_t));
		i = x->nr_samples++;
	}
	x->samples[i].values[s->evsel] += (int64_t)(s->period ? s->period : 1);
}

/* ---- functions ---------------------------------------------------------- */

static bool func_eq(const struct exporter *x, size_t i, const void *key)
{
	const struct pfunc *a = &x->funcs[i], *b = key;

	return a->name == b->name && a->file == b->file;
}

static uint64_t function_of(struct exporter *x, const char *name, const char *file)
{
	struct pfunc f = { strtab__intern(&x->strs, name), strtab__intern(&x->strs, file) };
	size_t i = dedup__find(&x->func_idx, x, gx_hash(&f, sizeof(f)), &f, func_eq, x->nr_funcs);

	if (i != (size_t)-1)
		return i + 1;
	x->funcs = xgrow(x->funcs, &x->funcs_cap, x->nr_funcs + 1, sizeof(*x->funcs));
	x->funcs[x->nr_funcs++] = f;
	return x->nr_funcs;
}

/* ---- encoding ------------------------------------------------------------ */

/* The protobuf-c messages of one profile, allocated by the encode_*
 * helpers below and freed by pb__exit; strings point into the exporter. */
struct pb {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType *vt, **vtp, period_type;
	Perftools__Profiles__Sample *sm, **smp;
	Perftools__Profiles__Label *lb, **lbp;
	Perftools__Profiles__Location *lc, **lcp;
	Perftools__Profiles__Line *ln, **lnp;
	Perftools__Profiles__Function *fn, **fnp;
	Perftools__Profiles__Mapping *mp, **mpp;
	uint32_t s_pid, s_comm, s_count, s_ns;	/* string ids */
};

static void pb__exit(struct pb *pb)
{
	free(pb->mp);
	free(pb->mpp);
	free(pb->fn);
	free(pb->fnp);
	free(pb->ln);
	free(pb->lnp);
	free(pb->lc);
	free(pb->lcp);
	free(pb->lb);
	free(pb->lbp);
	free(pb->sm);
	free(pb->smp);
	free(pb->vt);
	free(pb->vtp);
}

/* Sample types: one per event; the default and the period type. */
static void encode_sample_types(struct exporter *x, struct pb *pb)
{
	Perftools__Profiles__Profile *prof = &pb->prof;
	size_t e_count = x->nr_events;

	pb->vt = xcalloc(e_count + 1, sizeof(*pb->vt));
	pb->vtp = xcalloc(e_count + 1, sizeof(*pb->vtp));
	for (size_t i = 0; i < e_count; i++) {
		const struct gx_event *e = gx_result__event(x->res, i);

		perftools__profiles__value_type__init(&pb->vt[i]);
		pb->vt[i].type = strtab__intern(&x->strs, e->name);
		pb->vt[i].unit = !strcmp(e->unit, "ns") ? pb->s_ns : pb->s_count;
		pb->vtp[i] = &pb->vt[i];
	}
	prof->n_sample_type = e_count;
	prof->sample_type = pb->vtp;
	/* viewers open on the result's sort event (cycles when sampled) */
	if (e_count)
		prof->default_sample_type = pb->vt[gx_result__sort_event(x->res)].type;
	perftools__profiles__value_type__init(&pb->period_type);
	if (e_count) {
		const struct perf_event_attr *a0 = gx_result__event(x->res, 0)->attr;

		pb->period_type = pb->vt[0];
		prof->period_type = &pb->period_type;
		prof->period = a0->freq ? 0 : (int64_t)a0->sample_period;
	}
}

/* Samples with pid and comm labels. */
static void encode_samples(struct exporter *x, struct pb *pb)
{
	pb->sm = xcalloc(x->nr_samples + 1, sizeof(*pb->sm));
	pb->smp = xcalloc(x->nr_samples + 1, sizeof(*pb->smp));
	pb->lb = xcalloc(2 * x->nr_samples + 1, sizeof(*pb->lb));
	pb->lbp = xcalloc(2 * x->nr_samples + 1, sizeof(*pb->lbp));
	for (size_t i = 0; i < x->nr_samples; i++) {
		const struct psample *s = &x->samples[i];
		Perftools__Profiles__Sample *sm = &pb->sm[i];
		Perftools__Profiles__Label *lb = &pb->lb[2 * i];

		perftools__profiles__sample__init(sm);
		sm->n_location_id = s->nlocs;
		sm->location_id = x->stacks + s->off;
		sm->n_value = x->nr_events;
		sm->value = s->values;
		perftools__profiles__label__init(&lb[0]);
		perftools__profiles__label__init(&lb[1]);
		lb[0].key = pb->s_pid;
		lb[0].num = s->pid;
		lb[1].key = pb->s_comm;
		lb[1].str = s->comm;
		pb->lbp[2 * i] = &lb[0];
		pb->lbp[2 * i + 1] = &lb[1];
		sm->n_label = s->comm ? 2 : 1;
		sm->label = &pb->lbp[2 * i];
		pb->smp[i] = sm;
	}
	pb->prof.n_sample = x->nr_samples;
	pb->prof.sample = pb->smp;
}

/* Locations: lines are the inline chain, innermost first. Interns the
 * functions they name (encode_functions then lists them). */
static void encode_locations(struct exporter *x, struct pb *pb)
{
	size_t nlines = 0;

	for (size_t i = 0; i < x->nr_locs; i++)
		nlines += x->locs[i].res->nr_frames;
	pb->lc = xcalloc(x->nr_locs + 1, sizeof(*pb->lc));
	pb->lcp = xcalloc(x->nr_locs + 1, sizeof(*pb->lcp));
	pb->ln = xcalloc(nlines + 1, sizeof(*pb->ln));
	pb->lnp = xcalloc(nlines + 1, sizeof(*pb->lnp));
	nlines = 0;
	for (size_t i = 0; i < x->nr_locs; i++) {
		const struct ploc *l = &x->locs[i];
		Perftools__Profiles__Location *lc = &pb->lc[i];

		perftools__profiles__location__init(lc);
		lc->id = i + 1;
		lc->mapping_id = l->mapping;
		lc->address = l->address;
		lc->n_line = l->res->nr_frames;
		lc->line = &pb->lnp[nlines];
		for (uint32_t k = 0; k < l->res->nr_frames; k++) {
			const struct sym_frame *f = &l->res->frames[k];
			Perftools__Profiles__Line *ln = &pb->ln[nlines];

			perftools__profiles__line__init(ln);
			ln->function_id = function_of(x, f->function ?
						      sym_session__str(x->sym, f->function) :
						      "[unknown]",
						      sym_session__str(x->sym, f->file));
			ln->line = f->line;
			pb->lnp[nlines++] = ln;
		}
		pb->lcp[i] = lc;
	}
	pb->prof.n_location = x->nr_locs;
	pb->prof.location = pb->lcp;
}

static void encode_functions(struct exporter *x, struct pb *pb)
{
	pb->fn = xcalloc(x->nr_funcs + 1, sizeof(*pb->fn));
	pb->fnp = xcalloc(x->nr_funcs + 1, sizeof(*pb->fnp));
	for (size_t i = 0; i < x->nr_funcs; i++) {
		Perftools__Profiles__Function *fn = &pb->fn[i];

		perftools__profiles__function__init(fn);
		fn->id = i + 1;
		fn->name = fn->system_name = x->funcs[i].name;
		fn->filename = x->funcs[i].file;
		pb->fnp[i] = fn;
	}
	pb->prof.n_function = x->nr_funcs;
	pb->prof.function = pb->fnp;
}

static void encode_mappings(struct exporter *x, struct pb *pb)
{
	pb->mp = xcalloc(x->nr_mappings + 1, sizeof(*pb->mp));
	pb->mpp = xcalloc(x->nr_mappings + 1, sizeof(*pb->mpp));
	for (size_t i = 0; i < x->nr_mappings; i++) {
		const struct pmapping *m = &x->mappings[i];
		Perftools__Profiles__Mapping *mp = &pb->mp[i];

		perftools__profiles__mapping__init(mp);
		mp->id = i + 1;
		mp->memory_start = m->start;
		mp->memory_limit = m->end;
		mp->file_offset = m->pgoff;
		mp->filename = m->file;
		mp->build_id = m->build_id;
		mp->has_functions = true;
		mp->has_filenames = mp->has_line_numbers = m->lines;
		mp->has_inline_frames = m->lines;
		pb->mpp[i] = mp;
	}
	pb->prof.n_mapping = x->nr_mappings;
	pb->prof.mapping = pb->mpp;
}

/* The profile message, packed and written gzip-compressed to path. The
 * helpers run in this order so that strings get the same ids every time:
 * the label keys and units first, then event names, then functions. */
static int encode(struct exporter *x, const char *path, char **cause)
{
	struct pb pb = { .prof = PERFTOOLS__PROFILES__PROFILE__INIT };
	size_t len;
	uint8_t *buf;
	int err;

	pb.s_pid = strtab__intern(&x->strs, "pid");
	pb.s_comm = strtab__intern(&x->strs, "comm");
	pb.s_count = strtab__intern(&x->strs, "count");
	pb.s_ns = strtab__intern(&x->strs, "nanoseconds");
	encode_sample_types(x, &pb);
	encode_samples(x, &pb);
	encode_locations(x, &pb);
	encode_functions(x, &pb);
	encode_mappings(x, &pb);
	pb.prof.n_string_table = x->strs.nr;
	pb.prof.string_table = x->strs.strs;
	if (x->last_time > x->first_time)
		pb.prof.duration_nanos = (int64_t)(x->last_time - x->first_time);

	len = perftools__profiles__profile__get_packed_size(&pb.prof);
	buf = xmalloc(len + 1);
	perftools__profiles__profile__pack(&pb.prof, buf);
	err = export_gzip__write(path, buf, len, cause);
	free(buf);
	pb__exit(&pb);
	return err;
}

/* Before the walk: the file's events and build-ids are known. */
static void on_begin(void *ctx, const struct gx_result *r)
{
	struct exporter *x = ctx;

	x->env = gx_result__env(r);
	x->nr_events = gx_result__nr_events(r);	/* the value table: events, off-CPU values */
}

struct export_pprof *export_pprof__new(void)
{
	struct exporter *x = xzalloc(sizeof(*x));

	strtab__init(&x->strs);
	strtab__intern(&x->strs, "");	/* string_table[0] must be "" */
	u64map__init(&x->mapping_idx.idx);
	u64map__init(&x->loc_idx.idx);
	u64map__init(&x->func_idx.idx);
	u64map__init(&x->sample_idx.idx);
	return (struct export_pprof *)x;
}

void export_pprof__hook(struct export_pprof *p, struct gx_result_opts *o)
{
	o->on_begin = on_begin;
	o->on_stack = on_stack;
	o->stack_ctx = p;
}

int export_pprof__write(struct export_pprof *p, const struct gx_result *r, const char *path,
			char **cause)
{
	struct exporter *x = (struct exporter *)p;
	int err = gx_lazylib__open(&libprotobuf_c, cause);

	if (err)
		return err;
	x->res = r;
	x->sym = gx_result__symbolizer(r);
	return encode(x, path, cause);
}

void export_pprof__delete(struct export_pprof *p)
{
	struct exporter *x = (struct exporter *)p;

	if (!x)
		return;
	for (size_t i = 0; i < x->nr_samples; i++)
		free(x->samples[i].values);
	free(x->samples);
	free(x->stacks);
	free(x->locs);
	free(x->funcs);
	free(x->mappings);
	u64map__exit(&x->mapping_idx.idx);
	u64map__exit(&x->loc_idx.idx);
	u64map__exit(&x->func_idx.idx);
	u64map__exit(&x->sample_idx.idx);
	strtab__exit(&x->strs);
	free(x);
}

#else /* !HAVE_PPROF */

struct export_pprof *export_pprof__new(void)
{
	return NULL;
}

void export_pprof__hook(struct export_pprof *p, struct gx_result_opts *o)
{
	(void)p;
	(void)o;
}

int export_pprof__write(struct export_pprof *p, const struct gx_result *r, const char *path,
			char **cause)
{
	(void)p;
	(void)r;
	(void)path;
	return gx_fail(cause, GX_E_NOTSUP, "this gexplore was built without protobuf-c and zlib: "
			"no pprof export (install libprotobuf-c-dev, protobuf-c-compiler and "
			"zlib1g-dev, then rebuild)");
}

void export_pprof__delete(struct export_pprof *p)
{
	(void)p;
}

#endif /* HAVE_PPROF */
