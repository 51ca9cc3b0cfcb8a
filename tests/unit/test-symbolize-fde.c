/*
 * test-symbolize-fde: the FDE table behind symbol-less function names
 * (sym-fde.c). A table with an overlap and a duplicate made disjoint;
 * lookups inside ranges, between two FDEs, before, after and at an end;
 * hand-made .eh_frame (zR, zPLR, an unknown augmentation, a discarded
 * FDE, entries past the terminator) and .debug_frame (version 4, 64-bit
 * DWARF) sections walked to the code ranges they hold; and a stripped
 * copy of tests/workloads/wl-fde, whose functions resolve to one
 * "wls+0xSTART" each, START being nm's address of the unstripped one.
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static void test_table(void)
{
	struct sym_fde t[] = {
		{ 0x3000, 0x3100 },
		{ 0x1000, 0x1080 },
		{ 0x2000, 0x2040 },
		{ 0x1000, 0x1040 },	/* the same start again, shorter: dropped */
		{ 0x2020, 0x2060 },	/* overlaps the one before: that one ends here */
		{ 0x4000, 0x4000 },	/* empty */
	};
	static const struct {
		uint64_t addr, lo;	/* lo 0: no FDE holds addr */
		int line;
	} cases[] = {
		{ 0x0fff, 0, __LINE__ },	/* before every FDE */
		{ 0x1000, 0x1000, __LINE__ },	/* a start */
		{ 0x107f, 0x1000, __LINE__ },	/* the last byte */
		{ 0x1080, 0, __LINE__ },	/* an end is outside */
		{ 0x1800, 0, __LINE__ },	/* between two FDEs */
		{ 0x201f, 0x2000, __LINE__ },
		{ 0x2020, 0x2020, __LINE__ },	/* where the overlap was cut */
		{ 0x205f, 0x2020, __LINE__ },
		{ 0x2060, 0, __LINE__ },
		{ 0x30ff, 0x3000, __LINE__ },
		{ 0x4000, 0, __LINE__ },	/* the empty range holds nothing */
		{ UINT64_MAX, 0, __LINE__ },	/* after every FDE */
	};
	size_t n = sym_fde__sort(t, sizeof(t) / sizeof(t[0])), i;

	is_int(n, 4, "sorted: four disjoint ranges");
	ok(t[0].lo == 0x1000 && t[0].hi == 0x1080, "the longer of two FDEs at one start is kept");
	ok(t[1].lo == 0x2000 && t[1].hi == 0x2020, "an overlapping range ends where the next starts");
	for (i = 1; i < n; i++)
		if (t[i].lo < t[i - 1].hi)
			break;
	is_int(i, n, "sorted and disjoint");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sym_fde *f = sym_fde__find(t, n, cases[i].addr);

		is_int_at(f ? f->lo : 0, cases[i].lo, cases[i].line, "find 0x%llx",
			  (unsigned long long)cases[i].addr);
	}
	is_int(sym_fde__upper(t, n, 0x1800), 1, "upper between two FDEs: the one below");
	is_int(sym_fde__upper(t, n, 0x0fff), 0, "upper before every FDE: 0");
	ok(sym_fde__find(t, 0, 0x1000) == NULL, "an empty table holds nothing");
	is_int(sym_fde__sort(t, 0), 0, "sorting nothing");
}

/* ---- hand-made sections -------------------------------------------------- */

struct buf {
	uint8_t b[1024];
	size_t n;
};

static void put(struct buf *b, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b->b[b->n++] = (uint8_t)(v >> (8 * i));
}

static void puts_(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(b->b + b->n, s, n);
	b->n += n;
}

/* Start an entry with a 32-bit length; end_entry fills it in. */
static size_t begin(struct buf *b)
{
	size_t at = b->n;

	put(b, 0, 4);
	return at;
}

static void end_entry(struct buf *b, size_t at)
{
	uint64_t len = b->n - at - 4;

	for (size_t i = 0; i < 4; i++)
		b->b[at + i] = (uint8_t)(len >> (8 * i));
}

#define EH_VADDR 0x2000ull

/* An .eh_frame FDE of [lo, lo + len) under the CIE at cie. */
static void eh_fde(struct buf *b, size_t cie, uint64_t lo, uint64_t len)
{
	size_t at = begin(b);

	put(b, b->n - cie, 4);			/* CIE pointer: back from here */
	put(b, lo - (EH_VADDR + b->n), 4);	/* pcrel|sdata4 */
	put(b, len, 4);
	put(b, 0, 1);				/* augmentation data length */
	end_entry(b, at);
}

struct got {
	uint64_t lo[16], len[16], off[16];
	size_t n;
};

static void collect(void *arg, uint64_t off, uint64_t lo, uint64_t len)
{
	struct got *g = arg;

	if (g->n < 16) {
		g->off[g->n] = off;
		g->lo[g->n] = lo;
		g->len[g->n] = len;
	}
	g->n++;
}

static void test_eh_frame(void)
{
	struct buf b = { .n = 0 };
	struct got g = { .n = 0 };
	size_t cie_a, cie_b, cie_x, at, fde_first;

	cie_a = begin(&b);			/* "zR", pcrel|sdata4 */
	put(&b, 0, 4);
	put(&b, 1, 1);
	puts_(&b, "zR");
	put(&b, 1, 1);
	put(&b, 0x78, 1);			/* data alignment -8 */
	put(&b, 16, 1);
	put(&b, 1, 1);
	put(&b, 0x1b, 1);
	end_entry(&b, cie_a);
	fde_first = b.n;
	eh_fde(&b, cie_a, 0x1000, 0x40);

	cie_b = begin(&b);			/* "zPLR": a personality to skip first */
	put(&b, 0, 4);
	put(&b, 3, 1);
	puts_(&b, "zPLR");
	put(&b, 1, 1);
	put(&b, 0x78, 1);
	put(&b, 16, 1);				/* version 3: uleb128 */
	put(&b, 7, 1);
	put(&b, 0x9b, 1);			/* indirect|pcrel|sdata4 */
	put(&b, 0x12345678, 4);
	put(&b, 0x1b, 1);
	put(&b, 0x1b, 1);
	end_entry(&b, cie_b);
	eh_fde(&b, cie_b, 0x1040, 0x60);
	eh_fde(&b, cie_a, 0x1100, 0x80);
	eh_fde(&b, cie_a, 0, 0x10);		/* discarded: address 0 */

	cie_x = begin(&b);			/* an augmentation no one knows */
	put(&b, 0, 4);
	put(&b, 1, 1);
	puts_(&b, "zQ");
	put(&b, 1, 1);
	put(&b, 0x78, 1);
	put(&b, 16, 1);
	put(&b, 1, 1);
	put(&b, 0, 1);
	end_entry(&b, cie_x);
	eh_fde(&b, cie_x, 0x1200, 0x10);

	put(&b, 0, 4);				/* the terminator */
	eh_fde(&b, cie_a, 0x1300, 0x10);	/* past it: not read */

	is_int(sym_fde__walk(b.b, b.n, EH_VADDR, true, 8, collect, &g), 3,
	       ".eh_frame: three readable FDEs");
	ok(g.n == 3 && g.lo[0] == 0x1000 && g.len[0] == 0x40 && g.off[0] == fde_first,
	   "zR: pcrel start, length and the FDE's offset");
	ok(g.n == 3 && g.lo[1] == 0x1040 && g.len[1] == 0x60, "zPLR: the personality skipped");
	ok(g.n == 3 && g.lo[2] == 0x1100 && g.len[2] == 0x80, "a later FDE of the first CIE");

	/* cut short anywhere: never past the bytes given, never a crash */
	for (at = 0; at < b.n; at++) {
		struct got h = { .n = 0 };

		sym_fde__walk(b.b, at, EH_VADDR, true, 8, collect, &h);
		if (h.n > 3)
			break;
	}
	is_int(at, b.n, "every truncation reads at most the three FDEs");
	g.n = 0;
	is_int(sym_fde__walk(b.b, b.n, EH_VADDR, true, 3, collect, &g), 0,
	       "an address size other than 4 or 8: nothing");
}

static void test_debug_frame(void)
{
	struct buf b = { .n = 0 };
	struct got g = { .n = 0 };
	size_t cie, at, cie64;

	cie = begin(&b);			/* version 4: address and segment sizes */
	put(&b, 0xffffffff, 4);
	put(&b, 4, 1);
	puts_(&b, "");
	put(&b, 8, 1);
	put(&b, 0, 1);
	put(&b, 1, 1);
	put(&b, 0x78, 1);
	put(&b, 16, 1);
	end_entry(&b, cie);
	at = begin(&b);
	put(&b, cie, 4);			/* CIE pointer: an offset in the section */
	put(&b, 0x5000, 8);
	put(&b, 0x30, 8);
	end_entry(&b, at);

	cie64 = b.n;				/* 64-bit DWARF, version 3 */
	put(&b, 0xffffffff, 4);
	put(&b, 8 + 1 + 1 + 3, 8);
	put(&b, ~0ull, 8);
	put(&b, 3, 1);
	puts_(&b, "");
	put(&b, 1, 1);
	put(&b, 0x78, 1);
	put(&b, 16, 1);
	put(&b, 0xffffffff, 4);
	put(&b, 8 + 8 + 8, 8);
	put(&b, cie64, 8);
	put(&b, 0x6000, 8);
	put(&b, 0x20, 8);

	is_int(sym_fde__walk(b.b, b.n, 0, false, 8, collect, &g), 2, ".debug_frame: two FDEs");
	ok(g.n == 2 && g.lo[0] == 0x5000 && g.len[0] == 0x30, "version 4, absolute 8-byte start");
	ok(g.n == 2 && g.lo[1] == 0x6000 && g.len[1] == 0x20, "64-bit DWARF lengths and CIE pointer");
	g.n = 0;
	is_int(sym_fde__walk(b.b, b.n, 0, true, 8, collect, &g), 0,
	       "read as .eh_frame, its CIE ids are FDEs of no CIE: nothing");
}

static void test_encoded(void)
{
	static const uint8_t sleb[] = { 0x7f };		/* -1 */
	static const uint8_t pc[] = { 0xf0, 0xff, 0xff, 0xff };	/* -16 */
	const uint8_t *p;
	uint64_t v = 0;

	p = sleb;
	ok(sym_fde__read_encoded(&p, sleb + 1, 0x09, 0, 8, &v) && v == UINT64_MAX && p == sleb + 1,
	   "sleb128 -1");
	p = pc;
	ok(sym_fde__read_encoded(&p, pc + 4, 0x1b, 0x1000, 8, &v) && v == 0xff0,
	   "pcrel|sdata4 -16 at 0x1000");
	p = pc;
	ok(!sym_fde__read_encoded(&p, pc + 3, 0x1b, 0x1000, 8, &v) && p == pc,
	   "a value past the end: false, nothing read");
	ok(!sym_fde__read_encoded(&p, pc + 4, 0x3b, 0, 8, &v), "datarel: not handled");
	ok(!sym_fde__read_encoded(&p, pc + 4, 0xff, 0, 8, &v), "omit: false");
}

/* ---- a stripped workload -------------------------------------------------- */

/* nm's address of function fn in path; 0 when absent. */
static uint64_t nm_addr(const char *path, const char *fn)
{
	char cmd[8192], line[512], name[256], type;
	uint64_t addr = 0, a;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) == 3 &&
		    (type == 'T' || type == 't') && !strcmp(name, fn))
			addr = a;
	pclose(f);
	return addr;
}

/* The file offset of ELF address addr in an opened module. */
static uint64_t addr_off(const struct sym_dso *dso, uint64_t addr)
{
	for (size_t i = 0; i < dso->nr_loads; i++)
		if (addr >= dso->loads[i].vaddr && addr < dso->loads[i].vaddr + dso->loads[i].filesz)
			return dso->loads[i].offset + (addr - dso->loads[i].vaddr);
	return UINT64_MAX;
}

static void test_stripped(const char *wl, const char *dir)
{
	static const char *const fns[] = { "fde_one", "fde_two", "fde_three", "main" };
	uint32_t names[4] = { 0 };
	char cmd[3 * 4096], path[4096 + 8], want[64];
	const struct sym_result *r;
	struct sym_session *s;
	struct sym_dso *dso;
	size_t i;

	snprintf(path, sizeof(path), "%s/wls", dir);
	snprintf(cmd, sizeof(cmd), "strip -o '%s' '%s' 2>/dev/null", path, wl);
	if (system(cmd)) {
		skip(19, "strip failed or is absent (Debian package binutils)");
		return;
	}
	sym_session__new(&s, NULL, NULL);
	dso = sym_session__dso(s, path, NULL, 0);
	is_int(sym_dso__open(dso), 0, "the stripped wls opens");
	for (i = 0; i < 4; i++) {
		uint64_t a = nm_addr(wl, fns[i]);

		if (!a) {
			skip(4, "nm does not list the function");
			continue;
		}
		r = sym_session__lookup(s, dso, addr_off(dso, a + 3));
		snprintf(want, sizeof(want), "wls+0x%" PRIx64, a);
		is_str(sym_session__str(s, r->symbol), want, "%s: named after its start", fns[i]);
		is_int(r->sym_offset, 3, "%s: offset from its start", fns[i]);
		ok((r->flags & SYM_F_UNKNOWN) && (r->flags & SYM_F_NO_LINES) &&
		   r->frames[0].file == SYM_STR_NONE && !r->frames[0].line, "%s: no lines", fns[i]);
		ok(sym_fde__find(dso->fdes, dso->nr_fdes, a) &&
		   sym_fde__find(dso->fdes, dso->nr_fdes, a)->lo == a, "%s: an FDE starts there",
		   fns[i]);
		names[i] = r->symbol;
	}
	ok(names[0] != names[1] && names[1] != names[2] && names[0] != names[2],
	   "three functions, three rows");
	/* code between two FDEs (alignment padding): from the end of the one below */
	for (i = 1; i < dso->nr_fdes; i++)
		if (dso->fdes[i - 1].hi < dso->fdes[i].lo)
			break;
	if (i < dso->nr_fdes) {
		uint64_t gap = dso->fdes[i - 1].hi;

		r = sym_session__lookup(s, dso, addr_off(dso, gap));
		snprintf(want, sizeof(want), "wls+0x%" PRIx64, gap);
		is_str(sym_session__str(s, r->symbol), want,
		       "between two FDEs: from where the one below ends");
	} else {
		skip(1, "no gap between FDEs in this build");
	}
	sym_session__delete(s);
}

/*
 * A stripped copy without section headers (as sstrip leaves a file): its
 * .eh_frame is found through PT_GNU_EH_FRAME's .eh_frame_hdr.
 */
static void test_no_sections(const char *wl, const char *dir)
{
	char path[4096 + 16], src[4096 + 8], want[64];
	const struct sym_result *r;
	struct sym_session *s;
	struct sym_dso *dso;
	uint64_t a = nm_addr(wl, "fde_two");
	Elf64_Ehdr eh;
	FILE *in, *out;
	int c;

	snprintf(src, sizeof(src), "%s/wls", dir);
	snprintf(path, sizeof(path), "%s/wls-noshdr", dir);
	in = fopen(src, "rb");
	out = fopen(path, "wb");
	if (!in || !out || !a || fread(&eh, sizeof(eh), 1, in) != 1) {
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		skip(3, "no stripped copy to rewrite");
		return;
	}
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shstrndx = 0;
	fwrite(&eh, sizeof(eh), 1, out);
	while ((c = getc(in)) != EOF)
		putc(c, out);
	fclose(in);
	fclose(out);
	sym_session__new(&s, NULL, NULL);
	dso = sym_session__dso(s, path, NULL, 0);
	is_int(sym_dso__open(dso), 0, "a file without section headers opens");
	r = sym_session__lookup(s, dso, addr_off(dso, a + 1));
	snprintf(want, sizeof(want), "wls-noshdr+0x%" PRIx64, a);
	is_str(sym_session__str(s, r->symbol), want, "no section headers: fde_two by its FDE");
	ok(dso->nr_fdes >= 4, "... through .eh_frame_hdr: %zu FDEs", dso->nr_fdes);
	sym_session__delete(s);
}

int main(void)
{
	const char *b = getenv("GX_BUILDDIR");
	char wl[4096], dir[4096 + 64], cmd[8192];

	test_table();
	test_eh_frame();
	test_debug_frame();
	test_encoded();

	snprintf(wl, sizeof(wl), "%s/tests/workloads/wl-fde", b ? b : ".");
	snprintf(dir, sizeof(dir), "%s/tests/tmp", b ? b : ".");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	strcat(dir, "/symbolize-fde.XXXXXX");
	if (access(wl, R_OK) || system(cmd) || !mkdtemp(dir)) {
		skip(22, "wl-fde not built, or no temporary directory");
	} else {
		test_stripped(wl, dir);
		test_no_sections(wl, dir);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			diag("could not remove %s", dir);
	}
	return done_testing();
}
