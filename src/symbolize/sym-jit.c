/*
 * sym-jit.c: symbols of JIT-compiled code from /tmp/perf-PID.map, the file
 * a JIT writes for perf (node --perf-basic-prof, the JVM's
 * perf-map-agent, LuaJIT, .NET): one line per function, "START SIZE NAME"
 * in hex, code in anonymous memory that no ELF file describes.
 *
 * The file is untrusted: /tmp is everyone's, so it is read only when it is
 * a regular file owned by root or by us (as perf does), never through a
 * symlink, never a FIFO, at most 256 MiB; malformed lines are skipped.
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#define JIT_MAP_MAX (256u << 20)

struct jit_sym {
	uint64_t start, end;
	uint32_t name;			/* string id */
	uint32_t module, module_short;	/* the map's or the jitdump's path */
	uint32_t seq;			/* order in its file: a later load wins */
	const uint8_t *code;		/* jitdump: its bytes in jit_map.dump; else NULL */
};

struct jit_map {			/* one process's perf-PID.map and jitdump */
	uint32_t module, module_short;	/* string ids of its path */
	struct jit_sym *syms;		/* sorted by start */
	size_t nr, cap;
	struct u64map cache;		/* ip -> sym_result */
	char *dump_path;		/* jit-PID.dump as mapped, or NULL */
	bool dump_loaded;
	uint8_t *dump;			/* its bytes (code of the loads) */
	uint16_t e_machine;		/* the jitdump header's elf_mach */
};

struct jit_maps {
	struct u64map by_pid;		/* pid -> index + 1 into maps */
	struct jit_map *maps;
	size_t nr, cap;
};
static int cmp_sym(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The file's bytes (NUL-ended) when it may be trusted, else NULL. */
static char *read_map_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid()) || (uint64_t)st.st_size > JIT_MAP_MAX)
		goto out;
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = 0;
	*len = got;
out:
	close(fd);
	return buf;
}

static struct jit_sym *add_sym(struct jit_map *m)
{
	struct jit_sym *js;

	m->syms = xgrow(m->syms, &m->cap, m->nr + 1, sizeof(*m->syms));
	js = &m->syms[m->nr++];
	memset(js, 0, sizeof(*js));
	js->seq = (uint32_t)m->nr;
	return js;
}

/* Parse "START SIZE NAME" lines into m. */
static void parse_map(struct sym_session *s, struct jit_map *m, char *text, size_t len)
{
	char *line = text, *end = text + len;

	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line)), *p, *q;
		uint64_t start, size;

		if (nl)
			*nl = 0;
		start = strtoull(line, &p, 16);
		size = p > line && *p == ' ' ? strtoull(p + 1, &q, 16) : 0;
		if (p > line && *p == ' ' && q > p + 1 && *q == ' ' && q[1] && size &&
		    start + size > start) {
			struct jit_sym *js = add_sym(m);

			js->start = start;
			js->end = start + size;
			js->name = sym_session__intern(s, q + 1);
			js->module = m->module;
			js->module_short = m->module_short;
		}
		line = nl ? nl + 1 : end;
	}
}

/* ---- jitdump: perf's jit-PID.dump (tools/perf/util/jitdump.h) -----------
 * A 40-byte header (magic "JiTD" as u32 0x4A695444, version, header size,
 * elf_mach, pad, pid, timestamp, flags), then records: u32 id, u32 total
 * size, u64 timestamp, and per id a body. CODE_LOAD (0): u32 pid, u32 tid,
 * u64 vma, u64 code_addr, u64 code_size, u64 code_index, the NUL-ended
 * name, then code_size bytes of code. CODE_MOVE (1): pid, tid, vma,
 * old_code_addr, new_code_addr, code_size, code_index. Other records
 * (debug info, unwinding info, close) are skipped. Records of another
 * byte order are not read. Timestamps are not used: where code was loaded
 * twice at one address, the later record names it.
 */
#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_HDR 40
enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1 };

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void parse_dump(struct sym_session *s, struct jit_map *m, const uint8_t *b, size_t len,
		       uint32_t module, uint32_t module_short)
{
	size_t off;

	if (len < JITDUMP_HDR || rd32(b) != JITDUMP_MAGIC || rd32(b + 8) < JITDUMP_HDR ||
	    rd32(b + 8) > len)
		return;
	m->e_machine = (uint16_t)rd32(b + 12);
	for (off = rd32(b + 8); len - off >= 16;) {
		uint32_t id = rd32(b + off), size = rd32(b + off + 4);
		const uint8_t *r = b + off + 16;
		size_t body;

		if (size < 16 || size > len - off)
			break;
		body = size - 16;
		if (id == JIT_CODE_LOAD && body > 40) {
			uint64_t addr = rd64(r + 16), csize = rd64(r + 24);
			const char *name = (const char *)r + 40;
			const uint8_t *nul = memchr(name, 0, body - 40);
			struct jit_sym *js;

			if (nul && csize && addr + csize > addr &&
			    csize <= (uint64_t)(b + off + size - (nul + 1))) {
				js = add_sym(m);
				js->start = addr;
				js->end = addr + csize;
				js->name = sym_session__intern(s, *name ? name : "[jit]");
				js->code = nul + 1;
				js->module = module;
				js->module_short = module_short;
			}
		} else if (id == JIT_CODE_MOVE && body >= 48) {
			uint64_t from = rd64(r + 16), to = rd64(r + 24), csize = rd64(r + 32);

			for (size_t i = m->nr; i-- > 0;) {
				if (m->syms[i].start != from || m->syms[i].module != module)
					continue;
				if (csize && to + csize > to) {
					struct jit_sym old = m->syms[i], *js = add_sym(m);
					uint32_t seq = js->seq;

					*js = old;
					js->seq = seq;
					js->start = to;
					js->end = to + csize;
				}
				break;
			}
		}
		off += size;
	}
}

/* The jitdump named by an MMAP record of pid, read now (once). */
static void load_dump(struct sym_session *s, struct jit_map *m)
{
	char *real, *text;
	const char *base;
	size_t len = 0;
	uint32_t module, module_short;

	m->dump_loaded = true;
	if (!m->dump_path || (!s->symfs && !s->local))
		return;
	real = xasprintf("%s%s", s->symfs ? s->symfs : "", m->dump_path);
	text = read_map_file(real, &len);
	free(real);
	if (!text)
		return;
	base = strrchr(m->dump_path, '/');
	module = sym_session__intern(s, m->dump_path);
	module_short = sym_session__intern(s, base ? base + 1 : m->dump_path);
	m->dump = (uint8_t *)text;
	parse_dump(s, m, m->dump, len, module, module_short);
	gx_qsort(m->syms, m->nr, sizeof(*m->syms), cmp_sym);
}

static struct jit_map *jit_map_of(struct sym_session *s, uint32_t pid)
{
	struct jit_maps *jm = s->jit;
	uint64_t *slot;
	struct jit_map *m;
	char *path, *text;
	size_t len = 0;

	if (!jm) {
		jm = s->jit = xzalloc(sizeof(*jm));
		u64map__init(&jm->by_pid);
	}
	slot = u64map__find(&jm->by_pid, pid);
	if (slot)
		return &jm->maps[*slot - 1];
	jm->maps = xgrow(jm->maps, &jm->cap, jm->nr + 1, sizeof(*jm->maps));
	m = &jm->maps[jm->nr++];
	*u64map__findnew(&jm->by_pid, pid, 0) = jm->nr;
	memset(m, 0, sizeof(*m));
	u64map__init(&m->cache);
	path = xasprintf("/tmp/perf-%u.map", pid);
	m->module = sym_session__intern(s, path);
	m->module_short = sym_session__intern(s, path + 5);
	if (s->symfs || s->local) {	/* a foreign recording's pids are not ours */
		char *real = xasprintf("%s%s", s->symfs ? s->symfs : "", path);

		text = read_map_file(real, &len);
		free(real);
		if (text)
			parse_map(s, m, text, len);
		free(text);
		if (m->nr)
			gx_qsort(m->syms, m->nr, sizeof(*m->syms), cmp_sym);
	}
	free(path);
	return m;
}

bool sym_session__jitdump(struct sym_session *s, uint32_t pid, const char *path)
{
	const char *base = strrchr(path, '/');
	struct jit_map *m;
	char want[32];

	snprintf(want, sizeof(want), "jit-%u.dump", pid);
	if (strcmp(base ? base + 1 : path, want))
		return false;
	m = jit_map_of(s, pid);
	if (m->dump_path)
		return true;	/* the first one mapped: a JIT writes one per process */
	m->dump_path = xstrdup(path);
	u64map__exit(&m->cache);	/* what was unnamed may be named now */
	u64map__init(&m->cache);
	return true;
}

static const struct sym_result *jit_result(struct sym_session *s, const struct jit_map *m,
					   const struct jit_sym *js, uint64_t ip)
{
	struct sym_result *r = sym_session__alloc(s, sizeof(*r));
	struct sym_frame *f = sym_session__alloc(s, sizeof(*f));

	memset(r, 0, sizeof(*r));
	memset(f, 0, sizeof(*f));
	f->function = js->name;
	f->file = SYM_STR_NONE;
	r->module = js->module;
	r->module_short = js->module_short;
	r->symbol = js->name;
	r->flags = SYM_F_NO_LINES;
	r->addr = r->offset = ip;
	r->sym_offset = ip - js->start;
	r->nr_frames = 1;
	r->frames = f;
	return r;
}

/* The symbol at ip: the last one starting at or below it that covers it. */
static const struct jit_sym *find_sym(const struct jit_map *m, uint64_t ip)
{
	size_t lo = 0, hi;

	for (hi = m->nr; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < m->syms[lo - 1].end ? &m->syms[lo - 1] : NULL;
}

const struct sym_result *sym_session__lookup_jit(struct sym_session *s, uint32_t pid, uint64_t ip)
{
	struct jit_map *m = jit_map_of(s, pid);
	const struct jit_sym *js;
	const struct sym_result *r;
	uint64_t *slot;

	if (!m->dump_loaded && m->dump_path)
		load_dump(s, m);
	if (!m->nr)
		return NULL;
	slot = u64map__find(&m->cache, ip);
	if (slot)
		return (const struct sym_result *)(uintptr_t)*slot;
	js = find_sym(m, ip);
	r = js ? jit_result(s, m, js, ip) : NULL;
	*u64map__findnew(&m->cache, ip, 0) = (uint64_t)(uintptr_t)r;
	return r;
}

bool sym_session__jit_code(struct sym_session *s, uint32_t pid, uint64_t ip,
			   const uint8_t **code, uint64_t *start, uint64_t *size, int *machine)
{
	const struct jit_sym *js;
	struct jit_map *m;

	if (!sym_session__lookup_jit(s, pid, ip))
		return false;
	m = jit_map_of(s, pid);
	js = find_sym(m, ip);
	if (!js || !js->code)
		return false;
	*code = js->code;
	*start = js->start;
	*size = js->end - js->start;
	*machine = m->e_machine;
	return true;
}

void sym_jit__exit(struct sym_session *s)
{
	struct jit_maps *jm = s->jit;

	if (!jm)
		return;
	for (size_t i = 0; i < jm->nr; i++) {
		free(jm->maps[i].syms);
		free(jm->maps[i].dump);
		free(jm->maps[i].dump_path);
		u64map__exit(&jm->maps[i].cache);
	}
	free(jm->maps);
	u64map__exit(&jm->by_pid);
	free(jm);
	s->jit = NULL;
}
