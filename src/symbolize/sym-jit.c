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
};

struct jit_map {			/* one process's perf-PID.map */
	uint32_t module, module_short;	/* string ids of its path */
	struct jit_sym *syms;		/* sorted by start */
	size_t nr;
	struct u64map cache;		/* ip -> sym_result */
};

struct jit_maps {
	struct u64map by_pid;		/* pid -> index + 1 into maps */
	struct jit_map *maps;
	size_t nr, cap;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The file's text when it may be trusted, else NULL. */
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

/* Parse "START SIZE NAME" lines into m. */
static void parse_map(struct sym_session *s, struct jit_map *m, char *text, size_t len)
{
	size_t cap = 0;
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
			m->syms = xgrow(m->syms, &cap, m->nr + 1, sizeof(*m->syms));
			m->syms[m->nr].start = start;
			m->syms[m->nr].end = start + size;
			m->syms[m->nr++].name = sym_session__intern(s, q + 1);
		}
		line = nl ? nl + 1 : end;
	}
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
	}
	free(path);
	return m;
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
	r->module = m->module;
	r->module_short = m->module_short;
	r->symbol = js->name;
	r->flags = SYM_F_NO_LINES;
	r->addr = r->offset = ip;
	r->sym_offset = ip - js->start;
	r->nr_frames = 1;
	r->frames = f;
	return r;
}

const struct sym_result *sym_session__lookup_jit(struct sym_session *s, uint32_t pid, uint64_t ip)
{
	struct jit_map *m = jit_map_of(s, pid);
	const struct jit_sym *js = NULL;
	const struct sym_result *r;
	uint64_t *slot;
	size_t lo = 0, hi;

	if (!m->nr)
		return NULL;
	slot = u64map__find(&m->cache, ip);
	if (slot)
		return (const struct sym_result *)(uintptr_t)*slot;
	/* the last symbol starting at or below ip */
	for (hi = m->nr; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ip < m->syms[lo - 1].end)
		js = &m->syms[lo - 1];
	r = js ? jit_result(s, m, js, ip) : NULL;
	*u64map__findnew(&m->cache, ip, 0) = (uint64_t)(uintptr_t)r;
	return r;
}

void sym_jit__exit(struct sym_session *s)
{
	struct jit_maps *jm = s->jit;

	if (!jm)
		return;
	for (size_t i = 0; i < jm->nr; i++) {
		free(jm->maps[i].syms);
		u64map__exit(&jm->maps[i].cache);
	}
	free(jm->maps);
	u64map__exit(&jm->by_pid);
	free(jm);
	s->jit = NULL;
}
