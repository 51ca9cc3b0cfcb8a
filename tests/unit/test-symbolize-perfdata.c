/*
 * test-symbolize-perfdata: sym_unwind on real `perf record --call-graph
 * dwarf` samples — the vector_static_gcc fixture (45 samples, Broadwell,
 * static binary found through --search-path). A minimal perf.data walk
 * (first attr; MMAP/MMAP2 and SAMPLE records) feeds each sample's
 * registers and stack copy to the unwinder; most chains must reach main and
 * symbolize to the functions the fixture names. Skips when the fixture is
 * absent. (The full reader is src/perfdata's; this keeps the test
 * independent of it.)
 */
#include "config.h"

#include "symbolize/symbolize.h"
#include "util/util.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

struct map {
	uint32_t pid;
	uint64_t start, len, pgoff;
	struct sym_dso *dso;
};

static struct map maps[256];
static size_t nr_maps;
static uint32_t cur_pid;

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int find_map(void *ctx, uint64_t addr, struct sym_dso **dso, uint64_t *start,
		    uint64_t *len, uint64_t *pgoff)
{
	size_t i;

	for (i = nr_maps; i-- > 0;) {	/* newest first */
		const struct map *m = &maps[i];

		if (m->pid == cur_pid && addr >= m->start && addr < m->start + m->len) {
			*dso = m->dso;
			*start = m->start;
			*len = m->len;
			*pgoff = m->pgoff;
			return 0;
		}
	}
	return -1;
}

static const struct sym_result *sym_at(struct sym_session *s, uint64_t ip)
{
	struct sym_dso *dso;
	uint64_t start, len, pgoff;

	if (find_map(NULL, ip, &dso, &start, &len, &pgoff))
		return sym_session__lookup(s, NULL, ip);
	return sym_session__lookup(s, dso, sym_map_offset(ip, start, pgoff));
}

int main(void)
{
	const char *fx = getenv("GX_FIXTURES");
	char dir[4096], path[4096 + 32];
	const char *paths[1];
	struct sym_options o = { 0 };
	struct perf_event_attr attr;
	struct sym_session *s;
	unsigned char *buf = NULL;
	uint64_t attr_size, attrs_off, data_off, data_size, off;
	size_t size = 0, nregs = 0, samples = 0, to_main = 0, named = 0, deep = 0;
	long fsize;
	FILE *f;

#ifndef HAVE_LIBUNWIND
	plan_skip_all("built without libunwind (Debian package libunwind-dev)");
#endif
	snprintf(dir, sizeof(dir), "%s/vector_static_gcc", fx ? fx : "/nonexistent");
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	f = fopen(path, "rb");
	if (!f)
		plan_skip_all("vector_static_gcc fixture absent");
	fseek(f, 0, SEEK_END);
	fsize = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (fsize > 0) {
		size = (size_t)fsize;
		buf = xmalloc(size);
		if (fread(buf, 1, size, f) != size)
			size = 0;
	}
	fclose(f);
	if (size < 104 || memcmp(buf, "PERFILE2", 8))
		plan_skip_all("fixture perf.data unreadable");

	attr_size = rd64(buf + 16);
	attrs_off = rd64(buf + 24);
	data_off = rd64(buf + 40);
	data_size = rd64(buf + 48);
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, buf + attrs_off,
	       attr_size - 16 < sizeof(attr) ? attr_size - 16 : sizeof(attr));
	if (!(attr.sample_type & PERF_SAMPLE_REGS_USER) || !(attr.sample_type & PERF_SAMPLE_STACK_USER))
		plan_skip_all("fixture has no --call-graph dwarf samples");
	nregs = __builtin_popcountll(attr.sample_regs_user);

	paths[0] = dir;
	o.search_paths = paths;
	o.nr_search_paths = 1;
	sym_session__new(&s, &o, NULL);

	for (off = data_off; off + 8 <= data_off + data_size && off + 8 <= size;) {
		const unsigned char *r = buf + off, *p = r + 8;
		uint32_t type = rd32(r);
		uint16_t rsize;

		memcpy(&rsize, r + 6, 2);
		if (!rsize || off + rsize > size)
			break;
		off += rsize;
		if ((type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) && nr_maps < ARRAY_SIZE(maps)) {
			struct map *m = &maps[nr_maps];
			const char *name = (const char *)p + (type == PERF_RECORD_MMAP ? 32 : 64);

			m->pid = rd32(p);
			m->start = rd64(p + 8);
			m->len = rd64(p + 16);
			m->pgoff = rd64(p + 24);
			if (name[0] == '/') {
				m->dso = sym_session__dso(s, name, NULL, 0);
				nr_maps++;
			}
			continue;
		}
		if (type != PERF_RECORD_SAMPLE)
			continue;
		{
			struct sym_unwind_input in = { 0 };
			uint64_t ips[128], abi, st = attr.sample_type;
			size_t nr = 0, i;
			int has_main = 0;

			if (st & PERF_SAMPLE_IDENTIFIER)
				p += 8;
			if (st & PERF_SAMPLE_IP)
				p += 8;
			if (st & PERF_SAMPLE_TID) {
				cur_pid = rd32(p);
				p += 8;
			}
			if (st & PERF_SAMPLE_TIME)
				p += 8;
			if (st & PERF_SAMPLE_ADDR)
				p += 8;
			if (st & PERF_SAMPLE_ID)
				p += 8;
			if (st & PERF_SAMPLE_STREAM_ID)
				p += 8;
			if (st & PERF_SAMPLE_CPU)
				p += 8;
			if (st & PERF_SAMPLE_PERIOD)
				p += 8;
			if (st & PERF_SAMPLE_READ)
				goto unsupported;
			if (st & PERF_SAMPLE_CALLCHAIN)
				p += 8 + 8 * rd64(p);
			if (st & PERF_SAMPLE_RAW)
				p += 4 + rd32(p);
			if (st & PERF_SAMPLE_BRANCH_STACK)
				goto unsupported;
			abi = rd64(p);
			p += 8;
			if (!abi)
				continue;	/* a kernel-only sample */
			in.abi = abi;
			in.regs_mask = attr.sample_regs_user;
			in.regs = (const uint64_t *)p;	/* 8-aligned inside the record */
			p += 8 * nregs;
			{
				uint64_t ssize = rd64(p);

				in.stack = p + 8;
				in.stack_size = ssize ? rd64(p + 8 + ssize) : 0;
			}
			in.find_map = find_map;
			samples++;
			if (sym_unwind(s, &in, ips, ARRAY_SIZE(ips), &nr, NULL))
				continue;
			deep += nr >= 3;
			for (i = 0; i < nr; i++) {
				const struct sym_result *res = sym_at(s, i ? ips[i] - 1 : ips[i]);
				const char *name = sym_session__str(s, res->symbol);

				if (!strcmp(name, "main"))
					has_main = 1;
				if (i == 0 && !(res->flags & SYM_F_UNKNOWN))
					named++;
				if (samples <= 3)
					diag("sample %zu frame %zu: %s", samples, i, name);
			}
			to_main += has_main;
		}
		continue;
unsupported:
		plan_skip_all("fixture sample layout not handled by this test");
	}

	diag("%zu user samples, %zu named, %zu with >= 3 frames, %zu reach main", samples, named,
	     deep, to_main);
	ok(samples >= 30, "user samples with registers and stack (%zu)", samples);
	ok(named * 10 >= samples * 9, "sampled ips symbolize (%zu of %zu)", named, samples);
	ok(deep * 10 >= samples * 8, "chains are deeper than FP would give here (%zu of %zu)", deep,
	   samples);
	ok(to_main * 10 >= samples * 8, "chains reach main (%zu of %zu)", to_main, samples);
	sym_session__delete(s);
	free(buf);
	return done_testing();
}
