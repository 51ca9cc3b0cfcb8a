/*
 * sym-session.c: the symbolization session — options, interned strings,
 * the arena that holds results for the session's lifetime, module
 * interning, and the per-sample lookup entry points.
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SYM_CHUNK_SIZE (64 * 1024)

#ifdef HAVE_DEMANGLE
/*
 * libiberty's demangler. Declared here rather than through
 * <libiberty/demangle.h>, whose libiberty.h declares xmalloc & co. with
 * the same names as util's allocators.
 */
extern char *cplus_demangle(const char *mangled, int options);
#define SYM_DMGL_PARAMS (1 << 0)
#define SYM_DMGL_ANSI (1 << 1)
#define SYM_DMGL_AUTO (1 << 8)
#endif

void *sym_session__alloc(struct sym_session *s, size_t n)
{
	struct sym_chunk *c;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (n > s->arena_left) {
		size_t size = n > SYM_CHUNK_SIZE / 4 ? n : SYM_CHUNK_SIZE;

		c = xmalloc(sizeof(*c) + size);
		c->size = size;
		c->next = s->chunks;
		s->chunks = c;
		if (size == n)	/* a big one-off: keep the current chunk's tail */
			return c->data;
		s->arena = c->data;
		s->arena_left = size;
	}
	p = s->arena;
	s->arena += n;
	s->arena_left -= n;
	return p;
}

uint32_t sym_session__intern(struct sym_session *s, const char *str)
{
	return strtab__intern(&s->strs, str ? str : "");
}

/* Intern a symbol name as the user should read it: demangled when mangled. */
uint32_t sym_session__intern_name(struct sym_session *s, const char *raw)
{
	uint32_t id;
	uint64_t *slot;

	if (!raw || !*raw)
		return s->id_unknown;
	/* "_ZN3foo3barEv@plt" (sym-plt.c): the demangled name, then "@plt" */
	{
		size_t n = strlen(raw);

		if (n > 4 && !strcmp(raw + n - 4, "@plt") && !strchr(raw, ' ')) {
			char *base = xstrndup(raw, n - 4), *full;

			full = xasprintf("%s@plt", strtab__str(&s->strs, sym_session__intern_name(s, base)));
			id = strtab__intern(&s->strs, full);
			free(full);
			free(base);
			return id;
		}
	}
	/* "memcpy@@GLIBC_2.14": the symbol version is not part of the name */
	{
		const char *at = strchr(raw + 1, '@');

		id = at ? strtab__intern_n(&s->strs, raw, at - raw) : strtab__intern(&s->strs, raw);
		raw = strtab__str(&s->strs, id);
	}
	if (s->no_demangle || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return id;
	slot = u64map__find(&s->demangled, id);
	if (slot)
		return (uint32_t)*slot;
	{
		uint32_t out = id;
#ifdef HAVE_DEMANGLE
		char *d = cplus_demangle(raw, SYM_DMGL_PARAMS | SYM_DMGL_ANSI | SYM_DMGL_AUTO);

		if (d) {
			out = strtab__intern(&s->strs, d);
			free(d);
		}
#endif
		*u64map__findnew(&s->demangled, id, out) = out;
		return out;
	}
}

static char *build_debuginfo_path(const struct sym_session *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	/*
	 * libdwfl's syntax: '-' skips CRC checks of .gnu_debuglink files
	 * (build-ids are checked instead); "" = the binary's own directory,
	 * ".debug" = its .debug subdirectory, absolute entries are roots with
	 * a .build-id tree.
	 */
	strbuf__addstr(&sb, "-:.debug");
	if (s->symfs)
		strbuf__addf(&sb, ":%s/usr/lib/debug", s->symfs);
	else
		strbuf__addstr(&sb, ":/usr/lib/debug");
	for (i = 0; i < s->nr_search_paths; i++)
		strbuf__addf(&sb, ":%s", s->search_paths[i]);
	return strbuf__detach(&sb);
}

int sym_session__new(struct sym_session **out, const struct sym_options *opts, char **cause)
{
	struct sym_session *s;
	size_t i;
	int err;

	/* libelf and libdw are opened here, not linked: only a symbolizing
	 * command loads them (libelf first: libdw's own libelf.so.1 is then
	 * the instance util's table resolved) */
	err = gx_libelf__open(cause);
	if (err)
		return err;
	err = sym_libdw__open(cause);
	if (err)
		return err;
	s = xzalloc(sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	strtab__init(&s->strs);
	strtab__intern(&s->strs, "");	/* id 0 == SYM_STR_NONE */
	s->id_unknown = strtab__intern(&s->strs, "[unknown]");
	s->id_kernel = strtab__intern(&s->strs, "[kernel]");
	s->id_kernel_module = strtab__intern(&s->strs, "[kernel.kallsyms]");
	u64map__init(&s->demangled);
	u64map__init(&s->dso_index);
	u64map__init(&s->kcache);

	if (opts) {
		if (opts->symfs && *opts->symfs) {
			size_t n = strlen(opts->symfs);

			while (n > 1 && opts->symfs[n - 1] == '/')
				n--;
			s->symfs = xstrndup(opts->symfs, n);
		}
		if (opts->nr_search_paths) {
			s->search_paths = xcalloc(opts->nr_search_paths, sizeof(char *));
			for (i = 0; i < opts->nr_search_paths; i++)
				s->search_paths[i] = xstrdup(opts->search_paths[i]);
			s->nr_search_paths = opts->nr_search_paths;
		}
		s->archive = opts->archive && *opts->archive ? xstrdup(opts->archive) : NULL;
		s->local = opts->local;
		s->kallsyms_path = opts->kallsyms ? xstrdup(opts->kallsyms) : NULL;
		s->no_inline = opts->no_inline;
		s->no_demangle = opts->no_demangle;
	}
	if (!getenv("DEBUGINFOD_TIMEOUT")) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%u",
			 opts && opts->debuginfod_timeout_s ? opts->debuginfod_timeout_s : 10);
		setenv("DEBUGINFOD_TIMEOUT", buf, 0);
	}

	s->debuginfo_path = build_debuginfo_path(s);
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = sym_dso__find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;

	*out = s;
	return 0;
}

void sym_session__delete(struct sym_session *s)
{
	struct sym_chunk *c, *next;
	size_t i;

	if (!s)
		return;
	sym_unwind__exit(s);
	sym_jit__exit(s);
	for (i = 0; i < s->nr_dsos; i++)
		sym_dso__delete(s->dsos[i]);
	free(s->dsos);
	sym_kernel__exit(s);
	free(s->kallsyms_path);
	for (c = s->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	gx_free_strv(s->search_paths, s->nr_search_paths);
	GX_FREE(s->symfs, s->archive, s->debuginfo_path, s->scratch, s->scopes);
	u64map__exit(&s->demangled);
	u64map__exit(&s->dso_index);
	u64map__exit(&s->kcache);
	strtab__exit(&s->strs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const char *sym_session__str(const struct sym_session *s, uint32_t id)
{
	if (id >= s->strs.nr)
		return "";
	return strtab__str(&s->strs, id);
}

static uint64_t dso_key(const char *path, const uint8_t *bid, size_t bid_size)
{
	uint64_t h = gx_hash(path, strlen(path));

	if (bid_size)
		h ^= gx_hash(bid, bid_size) * 0x9e3779b97f4a7c15ull;
	return h == UINT64_MAX ? 0 : h;
}

static bool dso_is(const struct sym_dso *d, const struct sym_session *s, const char *path,
		   const uint8_t *bid, size_t bid_size)
{
	return d->build_id_size == bid_size && (!bid_size || !memcmp(d->build_id, bid, bid_size)) &&
	       !strcmp(strtab__str(&s->strs, d->path_id), path);
}

struct sym_dso *sym_session__dso(struct sym_session *s, const char *path,
				 const uint8_t *build_id, size_t build_id_size)
{
	struct sym_dso *dso;
	uint64_t key, *slot;
	size_t i;

	if (!path)
		path = "";
	if (!build_id)
		build_id_size = 0;
	if (build_id_size > 20)
		build_id_size = 20;
	/* an all-zero build-id is perf's "none" */
	for (i = 0; i < build_id_size && !build_id[i]; i++)
		;
	if (i == build_id_size)
		build_id_size = 0;

	key = dso_key(path, build_id, build_id_size);
	slot = u64map__find(&s->dso_index, key);
	if (slot) {
		dso = s->dsos[*slot - 1];
		if (dso_is(dso, s, path, build_id, build_id_size))
			return dso;
		for (i = 0; i < s->nr_dsos; i++)	/* hash collision: rare */
			if (dso_is(s->dsos[i], s, path, build_id, build_id_size))
				return s->dsos[i];
	}
	dso = sym_dso__new(s, path, build_id, build_id_size);
	dso->index = (uint32_t)s->nr_dsos;
	s->dsos = xgrow(s->dsos, &s->cap_dsos, s->nr_dsos + 1, sizeof(*s->dsos));
	s->dsos[s->nr_dsos++] = dso;
	if (!slot)
		*u64map__findnew(&s->dso_index, key, 0) = s->nr_dsos;
	return dso;
}

static const struct sym_result *unmapped_result(struct sym_session *s, uint64_t offset)
{
	struct sym_result *r;
	struct sym_frame *f;

	r = sym_session__alloc(s, sizeof(*r));
	f = sym_session__alloc(s, sizeof(*f));
	memset(r, 0, sizeof(*r));
	memset(f, 0, sizeof(*f));
	f->function = s->id_unknown;
	r->module = r->module_short = s->id_unknown;
	r->symbol = s->id_unknown;
	r->flags = SYM_F_UNKNOWN | SYM_F_NO_LINES;
	r->addr = r->offset = r->sym_offset = offset;
	r->nr_frames = 1;
	r->frames = f;
	return r;
}

/* Whether key is cached (UINT64_MAX never is): *r, counted as a hit. */
static bool cache_find(struct sym_session *s, const struct u64map *cache, uint64_t key,
		       const struct sym_result **r)
{
	uint64_t *slot = key != UINT64_MAX ? u64map__find(cache, key) : NULL;

	if (!slot)
		return false;
	s->stats.cache_hits++;
	*r = (const struct sym_result *)(uintptr_t)*slot;
	return true;
}

/* Count a resolve and cache its result r under key (UINT64_MAX: not cached). */
static const struct sym_result *cache_resolved(struct sym_session *s, struct u64map *cache,
					       uint64_t key, const struct sym_result *r)
{
	s->stats.resolves++;
	if (key != UINT64_MAX)
		*u64map__findnew(cache, key, 0) = (uint64_t)(uintptr_t)r;
	return r;
}

const struct sym_result *sym_session__lookup(struct sym_session *s, struct sym_dso *dso,
					     uint64_t offset)
{
	const struct sym_result *r;

	s->stats.lookups++;
	if (!dso) {
		/* one shared row: the caller knows the address, we know nothing */
		if (!s->unmapped)
			s->unmapped = (struct sym_result *)unmapped_result(s, 0);
		s->stats.cache_hits++;
		return s->unmapped;
	}
	if (dso->kind == SYM_DSO_KERNEL)
		return sym_session__lookup_kernel(s, offset);
	if (cache_find(s, &dso->cache, offset, &r))
		return r;
	return cache_resolved(s, &dso->cache, offset, sym_dso__resolve(dso, offset));
}

const struct sym_result *sym_session__lookup_kernel(struct sym_session *s, uint64_t ip)
{
	const struct sym_result *r;

	s->stats.lookups++;
	if (cache_find(s, &s->kcache, ip, &r))
		return r;
	return cache_resolved(s, &s->kcache, ip, sym_kernel__resolve(s, ip));
}

void sym_session__stats(const struct sym_session *s, struct sym_stats *out)
{
	*out = s->stats;
}

size_t sym_session__nr_dsos(const struct sym_session *s)
{
	return s->nr_dsos;
}

struct sym_dso *sym_session__dso_at(const struct sym_session *s, size_t i)
{
	return i < s->nr_dsos ? s->dsos[i] : NULL;
}
