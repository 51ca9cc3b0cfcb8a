/*
 * test-symbolize-lookup: file offsets of tests/workloads/wl-sym-inline (and
 * of the vector_static_gcc fixture when present) resolve to the functions,
 * inline chains and marked source lines they hold; stripped copies, wrong
 * build-ids, --symfs, --search-path, special mappings and kernel addresses
 * behave as documented; repeated lookups come from the cache.
 */
#include "config.h"

#include "symbolize/symbolize.h"
#include "util/util.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

/* Paths here are short temporary names; a truncated one just fails a check. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static char wl[4096], wl_src[4096], tmpdir[4096];

/* ---- helpers: read the test binary like nm/readelf would ---------------- */

static Elf *elf_open(const char *path, int *fd)
{
	*fd = -1;
	if (gx_libelf__open(NULL))	/* util's table: opened before any elf_* */
		return NULL;
	*fd = open(path, O_RDONLY);
	if (*fd < 0)
		return NULL;
	return elf_begin(*fd, ELF_C_READ, NULL);
}

static int elf_sym(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	int fd, found = -1;
	Elf *elf = elf_open(path, &fd);

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, i, &sym))
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name) && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
				*addr = sym.st_value;
				*size = sym.st_size;
				found = 0;
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* File offset of an ELF address, through the program headers. */
static uint64_t elf_off(const char *path, uint64_t addr)
{
	uint64_t off = UINT64_MAX;
	size_t n, i;
	int fd;
	Elf *elf = elf_open(path, &fd);

	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz)
				off = ph.p_offset + (addr - ph.p_vaddr);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return off;
}

static size_t elf_build_id(const char *path, uint8_t *out)
{
	const void *bid;
	ssize_t n = -1;
	int fd;
	Elf *elf = elf_open(path, &fd);

	if (elf)
		n = dwelf_elf_gnu_build_id(elf, &bid);
	if (n > 0 && n <= 20)
		memcpy(out, bid, n);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n > 0 && n <= 20 ? (size_t)n : 0;
}

/* The line number of the source line carrying "LINE:<tag>". */
static unsigned marked_line(const char *tag)
{
	char line[1024], want[64];
	unsigned n = 0;
	FILE *f = fopen(wl_src, "r");

	snprintf(want, sizeof(want), "LINE:%s ", tag);
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, want)) {
			fclose(f);
			return n;
		}
	}
	if (f)
		fclose(f);
	return 0;
}

static const char *base(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

static int sh(const char *cmd)
{
	int r = system(cmd);

	return r == 0 ? 0 : -1;
}

/* ---- tests ------------------------------------------------------------- */

static const struct sym_result *lookup_sym(struct sym_session *s, struct sym_dso *dso,
					   const char *path, const char *name, uint64_t delta)
{
	uint64_t addr, size;

	if (elf_sym(path, name, &addr, &size))
		return NULL;
	return sym_session__lookup(s, dso, elf_off(path, addr + delta));
}

static void test_functions(void)
{
	struct sym_session *s;
	struct sym_dso *dso;
	const struct sym_result *r;
	struct sym_stats st0, st1;
	uint8_t bid[20];
	size_t nbid = elf_build_id(wl, bid);
	char *cause = NULL;
	uint64_t addr, size, a;
	unsigned line_inner = marked_line("inner"), line_call = marked_line("call");
	unsigned line_plain = marked_line("plain");
	int found_chain = 0;

	ok(nbid == 20, "workload has a 20-byte build-id");
	ok(line_inner && line_call && line_plain, "LINE markers found in %s", wl_src);
	unsetenv("DEBUGINFOD_TIMEOUT");
	is_int(sym_session__new(&s, NULL, &cause), 0, "session");
	is_str(getenv("DEBUGINFOD_TIMEOUT"), "10", "debuginfod gets a time limit");
	dso = sym_session__dso(s, wl, bid, nbid);
	ok(dso == sym_session__dso(s, wl, bid, nbid), "dso is interned");
	is_int(sym_dso__open(dso), 0, "workload opens");

	r = lookup_sym(s, dso, wl, "main", 0);
	ok(r && !(r->flags & SYM_F_UNKNOWN), "main resolves");
	if (r) {
		is_str(sym_session__str(s, r->symbol), "main", "main: name");
		is_int(r->sym_offset, 0, "main: symbol offset 0 at its entry");
		is_str(base(sym_session__str(s, r->frames[0].file)), "wl-sym-inline.c", "main: file");
		is_str(sym_session__str(s, r->module_short), "wl-sym-inline", "main: module");
	}

	r = lookup_sym(s, dso, wl, "plain", 0);
	ok(r != NULL, "plain resolves");
	/* the marked line is plain's body: look for it within the function */
	if (!elf_sym(wl, "plain", &addr, &size)) {
		int hit = 0;

		for (a = addr; a < addr + size; a++) {
			r = sym_session__lookup(s, dso, elf_off(wl, a));
			if (r->frames[0].line == line_plain &&
			    !strcmp(sym_session__str(s, r->symbol), "plain"))
				hit = 1;
		}
		ok(hit, "plain: some address is on LINE:plain (%u)", line_plain);
	}

	r = lookup_sym(s, dso, wl, "_ZN3foo3barEv", 4);
	ok(r != NULL, "mangled symbol resolves");
#ifdef HAVE_DEMANGLE
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "foo::bar()", "demangled name");
#else
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "_ZN3foo3barEv", "mangled name (no demangler)");
#endif
	if (r)
		is_int(r->sym_offset, 4, "symbol offset");

	/* an address inside the inlined loop: hot_inner <- outer */
	if (!elf_sym(wl, "outer", &addr, &size)) {
		for (a = addr; a < addr + size && !found_chain; a++) {
			r = sym_session__lookup(s, dso, elf_off(wl, a));
			if (r->nr_frames == 2 && r->frames[0].line == line_inner &&
			    !strcmp(sym_session__str(s, r->frames[0].function), "hot_inner"))
				found_chain = 1;
		}
	}
	ok(found_chain, "an address in outer is hot_inner at LINE:inner (%u)", line_inner);
	if (found_chain) {
		ok(r->flags & SYM_F_INLINED, "inlined flag");
		is_str(sym_session__str(s, r->frames[1].function), "outer", "caller frame is outer");
		is_int(r->frames[1].line, line_call, "call site is LINE:call");
		is_str(base(sym_session__str(s, r->frames[1].file)), "wl-sym-inline.c", "call site file");
		is_str(sym_session__str(s, r->symbol), "outer", "symbol is the out-of-line function");
	} else {
		skip(5, "no inline chain");
	}

	/* the cache: the same offset again walks nothing */
	r = lookup_sym(s, dso, wl, "main", 8);
	sym_session__stats(s, &st0);
	ok(r == lookup_sym(s, dso, wl, "main", 8), "same result pointer");
	sym_session__stats(s, &st1);
	is_int(st1.resolves, st0.resolves, "second lookup resolves nothing");
	is_int(st1.cache_hits, st0.cache_hits + 1, "second lookup is a cache hit");

	/* an offset outside every segment */
	r = sym_session__lookup(s, dso, 1ull << 40);
	ok(r->flags & SYM_F_UNKNOWN, "offset past the file is [unknown]");
	is_str(sym_session__str(s, r->module_short), "wl-sym-inline", "... and keeps its module");

	/* special mappings and unmapped addresses */
	r = sym_session__lookup(s, sym_session__dso(s, "[vdso]", NULL, 0), 0x123);
	is_str(sym_session__str(s, r->symbol), "[unknown]", "[vdso] is [unknown]");
	is_str(sym_session__str(s, r->module_short), "[vdso]", "... in module [vdso]");
	is_int(r->sym_offset, 0x123, "... keeping the offset");
	r = sym_session__lookup(s, sym_session__dso(s, "//anon", NULL, 0), 0x10);
	is_str(sym_session__str(s, r->module_short), "//anon", "//anon module");
	ok(sym_dso__problem(sym_session__dso(s, "//anon", NULL, 0)) != NULL, "//anon has a reason");
	r = sym_session__lookup(s, NULL, 0x10);
	is_str(sym_session__str(s, r->symbol), "[unknown]", "unmapped is [unknown]");

	/* not an ELF file */
	dso = sym_session__dso(s, wl_src, NULL, 0);
	is_int(sym_dso__open(dso), GX_E_FORMAT, "a C source is not ELF");
	ok(sym_dso__problem(dso) && strstr(sym_dso__problem(dso), "not an ELF"), "... says so: %s",
	   sym_dso__problem(dso) ? sym_dso__problem(dso) : "(none)");

	/* a missing file */
	dso = sym_session__dso(s, "/nonexistent/dir/libnothing.so", NULL, 0);
	is_int(sym_dso__open(dso), -ENOENT, "missing file: -ENOENT");
	r = sym_session__lookup(s, dso, 0x1234);
	is_str(sym_session__str(s, r->module_short), "libnothing.so", "missing: module kept");
	is_int(r->sym_offset, 0x1234, "missing: offset kept");
	sym_session__delete(s);
}

static void test_stripped(void)
{
	char cmd[3 * 4096], dbg[4096 + 32], all[4096 + 32];
	struct sym_session *s;
	const struct sym_result *r;
	struct sym_dso *dso;
	uint64_t addr, size;

	snprintf(dbg, sizeof(dbg), "%s/wl-nodebug", tmpdir);
	snprintf(all, sizeof(all), "%s/wl-stripped", tmpdir);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-debug '%s' '%s' && objcopy --strip-all '%s' '%s'",
		 wl, dbg, wl, all);
	if (sh(cmd)) {
		skip(10, "objcopy failed or absent");
		return;
	}
	sym_session__new(&s, NULL, NULL);
	dso = sym_session__dso(s, dbg, NULL, 0);
	r = lookup_sym(s, dso, dbg, "plain", 2);
	ok(r != NULL, "symtab-only: plain found in .symtab");
	if (r) {
		is_str(sym_session__str(s, r->symbol), "plain", "symtab-only: name");
		ok((r->flags & SYM_F_NO_LINES) && r->frames[0].file == SYM_STR_NONE &&
		   !r->frames[0].line, "symtab-only: no file:line");
	} else {
		skip(2, "no symbol");
	}

	elf_sym(wl, "plain", &addr, &size);	/* addresses are unchanged by strip */
	dso = sym_session__dso(s, all, NULL, 0);
	r = sym_session__lookup(s, dso, elf_off(wl, addr + 2));
	{
		/* one row per function: its FDE's start, where nm puts plain */
		const char *name = sym_session__str(s, r->symbol);
		uint64_t lo = 0;

		ok(!strncmp(name, "wl-stripped+0x", 14) && (lo = strtoull(name + 14, NULL, 16)) &&
		   lo == addr,
		   "fully stripped: wl-stripped+0xSTART, plain's start (%s, plain at 0x%llx)",
		   name, (unsigned long long)addr);
		ok(r->flags & SYM_F_UNKNOWN, "fully stripped: still no known function");
		is_str(sym_session__str(s, r->module_short), "wl-stripped", "fully stripped: module");
		is_int(r->sym_offset, addr + 2 - lo, "fully stripped: offset from the range's start");
		is_int(r->addr, addr + 2, "fully stripped: the ELF address");
	}
	r = sym_session__lookup(s, dso, elf_off(wl, addr + 3));
	ok(!strcmp(sym_session__str(s, r->symbol), sym_session__str(s, sym_session__lookup(
		   s, dso, elf_off(wl, addr + 2))->symbol)), "fully stripped: one row per function");
	{
		/* _ZN3foo3barEv ends 0x10 below plain: one page, two rows */
		uint64_t other, osize;
		char want[64];

		if (elf_sym(wl, "_ZN3foo3barEv", &other, &osize) == 0) {
			r = sym_session__lookup(s, dso, elf_off(wl, other + 1));
			snprintf(want, sizeof(want), "wl-stripped+0x%llx", (unsigned long long)other);
			is_str(sym_session__str(s, r->symbol), want,
			       "fully stripped: the function before plain is its own row");
		} else {
			skip(1, "no _ZN3foo3barEv in wl-sym-inline");
		}
	}
	sym_session__delete(s);
}

/* Separate debug files: .gnu_debuglink beside the binary, and a
 * .build-id/xx/rest.debug tree in a search path. */
static void test_debug_files(void)
{
	char cmd[6 * 4096], dir[4096 + 32], hexid[41];
	const char *paths[1];
	struct sym_options o = { 0 };
	struct sym_session *s;
	const struct sym_result *r;
	struct sym_dso *dso;
	uint8_t bid[20];
	size_t nbid = elf_build_id(wl, bid), i;
	unsigned line_plain = marked_line("plain");

	for (i = 0; i < nbid; i++)
		sprintf(hexid + 2 * i, "%02x", bid[i]);
	snprintf(dir, sizeof(dir), "%s/dbg", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/.build-id/%.2s' && cd '%s' && "
		 "objcopy --only-keep-debug '%s' wl-sym-inline.debug && "
		 "objcopy --strip-debug --add-gnu-debuglink=wl-sym-inline.debug '%s' wl-linked && "
		 "objcopy --strip-debug '%s' wl-bare && "
		 "cp wl-sym-inline.debug '.build-id/%.2s/%s.debug'",
		 dir, hexid, dir, wl, wl, wl, hexid, hexid + 2);
	if (sh(cmd)) {
		skip(4, "objcopy failed or absent");
		return;
	}
	sym_session__new(&s, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "%s/wl-linked", dir);
	dso = sym_session__dso(s, cmd, bid, nbid);
	r = lookup_sym(s, dso, wl, "plain", 4);
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "plain", ".gnu_debuglink: symbol");
	is_int(r ? r->frames[0].line : 0, line_plain, ".gnu_debuglink: line from the debug file");
	sym_session__delete(s);

	paths[0] = dir;
	o.search_paths = paths;
	o.nr_search_paths = 1;
	sym_session__new(&s, &o, NULL);
	snprintf(cmd, sizeof(cmd), "%s/wl-bare", dir);
	dso = sym_session__dso(s, cmd, bid, nbid);
	r = lookup_sym(s, dso, wl, "plain", 4);
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "plain", ".build-id/*.debug: symbol");
	is_int(r ? r->frames[0].line : 0, line_plain, ".build-id/*.debug: line from the debug file");
	sym_session__delete(s);
}

static void test_find(void)
{
	char cmd[4 * 4096], dir[4096 + 32], hexid[41], fake[4096];
	const char *paths[1];
	struct sym_options o = { 0 };
	struct sym_session *s;
	const struct sym_result *r;
	struct sym_dso *dso;
	uint8_t bid[20], wrong[20];
	size_t nbid = elf_build_id(wl, bid), i;

	for (i = 0; i < nbid; i++)
		sprintf(hexid + 2 * i, "%02x", bid[i]);

	/* a recorded build-id that the file does not have */
	memset(wrong, 0x11, sizeof(wrong));
	sym_session__new(&s, NULL, NULL);
	dso = sym_session__dso(s, wl, wrong, sizeof(wrong));
	ok(dso != sym_session__dso(s, wl, bid, nbid), "(path, build-id) pairs are distinct");
	is_int(sym_dso__open(dso), -ESTALE, "build-id mismatch: -ESTALE");
	ok(sym_dso__problem(dso) && strstr(sym_dso__problem(dso), "build-id mismatch"),
	   "mismatch reason: %s", sym_dso__problem(dso) ? sym_dso__problem(dso) : "(none)");
	r = lookup_sym(s, dso, wl, "main", 0);
	ok(r && (r->flags & SYM_F_UNKNOWN), "mismatched file gives [unknown]");
	sym_session__delete(s);

	/* a binary replaced while it ran: "PATH (deleted)" */
	sym_session__new(&s, NULL, NULL);
	snprintf(fake, sizeof(fake), "%s (deleted)", wl);
	r = lookup_sym(s, sym_session__dso(s, fake, bid, nbid), wl, "plain", 1);
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "plain", "(deleted): the path still resolves");
	r = lookup_sym(s, sym_session__dso(s, fake, wrong, sizeof(wrong)), wl, "plain", 1);
	ok(r && (r->flags & SYM_F_UNKNOWN), "(deleted) with another build-id: [unknown]");
	sym_session__delete(s);

	/* --search-path DIR with DIR/.build-id/xx/rest */
	snprintf(dir, sizeof(dir), "%s/sp", tmpdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.build-id/%.2s' && cp '%s' '%s/.build-id/%.2s/%s'",
		 dir, hexid, wl, dir, hexid, hexid + 2);
	if (sh(cmd)) {
		skip(9, "cannot build the search path");
		return;
	}
	paths[0] = dir;
	o.search_paths = paths;
	o.nr_search_paths = 1;
	sym_session__new(&s, &o, NULL);
	dso = sym_session__dso(s, "/elsewhere/bin/wl-renamed", bid, nbid);
	is_int(sym_dso__open(dso), 0, "found by build-id in the search path");
	ok(sym_dso__found_path(dso) && strstr(sym_dso__found_path(dso), "/.build-id/"),
	   "found path %s", sym_dso__found_path(dso) ? sym_dso__found_path(dso) : "(none)");
	r = lookup_sym(s, dso, wl, "plain", 1);
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "plain", "search path: symbol");
	is_str(r ? sym_session__str(s, r->module_short) : NULL, "wl-renamed",
	       "search path: module keeps the recorded name");
	sym_session__delete(s);

	/* perf's build-id cache layout: DIR/.build-id/xx/rest/elf */
	snprintf(dir, sizeof(dir), "%s/perfcache", tmpdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.build-id/%.2s/%s' && cp '%s' '%s/.build-id/%.2s/%s/elf'",
		 dir, hexid, hexid + 2, wl, dir, hexid, hexid + 2);
	sh(cmd);
	paths[0] = dir;
	sym_session__new(&s, &o, NULL);
	dso = sym_session__dso(s, "/elsewhere/bin/wl-renamed", bid, nbid);
	r = lookup_sym(s, dso, wl, "plain", 1);
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "plain", "perf build-id cache layout");
	sym_session__delete(s);
	snprintf(dir, sizeof(dir), "%s/sp", tmpdir);
	paths[0] = dir;

	/* --search-path DIR with DIR/<basename> */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/wl-sym-inline'", wl, dir);
	sh(cmd);
	sym_session__new(&s, &o, NULL);
	dso = sym_session__dso(s, "/elsewhere/bin/wl-sym-inline", NULL, 0);
	r = lookup_sym(s, dso, wl, "plain", 1);
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "plain", "search path by basename");
	sym_session__delete(s);

	/* --symfs ROOT: ROOT + recorded path */
	snprintf(dir, sizeof(dir), "%s/root", tmpdir);
	snprintf(fake, sizeof(fake), "/opt/app/bin/wl-sym-inline");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/opt/app/bin' && cp '%s' '%s%s'", dir, wl, dir, fake);
	sh(cmd);
	memset(&o, 0, sizeof(o));
	o.symfs = dir;
	sym_session__new(&s, &o, NULL);
	dso = sym_session__dso(s, fake, bid, nbid);
	r = lookup_sym(s, dso, wl, "outer", 0);
	is_str(r ? sym_session__str(s, r->symbol) : NULL, "outer", "symfs: symbol");
	is_str(r ? sym_session__str(s, r->module) : NULL, fake, "symfs: module is the recorded path");
	dso = sym_session__dso(s, wl, NULL, 0);	/* exists only outside the symfs */
	is_int(sym_dso__open(dso), -ENOENT, "symfs: paths are looked up under it only");
	sym_session__delete(s);
}

static void test_kernel(void)
{
	struct sym_options o = { 0 };
	struct sym_session *s;
	const struct sym_result *r;
	char line[512], name[256], pick[256] = "";
	unsigned long long addr, prev = 0, pick_addr = 0;
	char type, prev_name[256] = "";
	int prev_unique = 0, dup = 0;
	FILE *f;

	sym_session__new(&s, &o, NULL);
	r = sym_session__lookup_kernel(s, 0xffffffff81000010ull);
	ok(!strncmp(sym_session__str(s, r->symbol), "[kernel: recorded on another machine", 36) &&
	   strstr(sym_session__str(s, r->symbol), "--kallsyms"),
	   "foreign kernel: one row that says why and how: %s", sym_session__str(s, r->symbol));
	is_str(sym_session__str(s, r->module), "[kernel.kallsyms]", "foreign kernel: module");
	ok(r->flags & SYM_F_KERNEL, "kernel flag");
	r = sym_session__lookup(s, sym_session__dso(s, "[kernel.kallsyms]_text", NULL, 0),
				0xffffffff81000010ull);
	ok(!strncmp(sym_session__str(s, r->symbol), "[kernel: ", 9),
	   "kernel dso lookups go to the kernel");
	sym_session__delete(s);

	/* a text symbol whose address no other symbol shares */
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (addr == prev) {
			dup = 1;
			continue;
		}
		if (addr > prev && prev && prev_unique && !dup && addr - prev > 1) {
			snprintf(pick, sizeof(pick), "%s", prev_name);
			pick_addr = prev;
			break;
		}
		prev_unique = addr > prev;
		dup = 0;
		prev = addr;
		snprintf(prev_name, sizeof(prev_name), "%s", name);
	}
	if (f)
		fclose(f);
	if (!pick_addr) {
		skip(2, "/proc/kallsyms unreadable or hides addresses");
		return;
	}
	o.local = true;
	sym_session__new(&s, &o, NULL);
	r = sym_session__lookup_kernel(s, pick_addr + 1);
	is_str(sym_session__str(s, r->symbol), pick, "local kallsyms: function name");
	is_int(r->sym_offset, 1, "local kallsyms: offset");
	sym_session__delete(s);
}

/* --kallsyms: a copy of another machine's kallsyms, with modules, data
 * symbols, lines out of order and junk. */
static void test_kallsyms_file(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t early_fn\n"
		"ffffffff81200000 D some_data\n"		/* data: not a function */
		"ffffffff81000400 T later_fn\n"		/* out of order */
		"ffffffff81000200 W weak_fn\n"
		"not a line at all\n"
		"ffffffffc0001000 t mod_fn\t[e1000]\n"
		"ffffffffc0001100 t mod_fn2\t[e1000]\n"
		"ffffffffc0002000 t other_mod_fn\t[xfs]\n"
		"ffffffffc0003000 t last_fn";			/* no final newline */
	char path[] = "/tmp/test-kallsyms.XXXXXX";
	struct sym_options o = { 0 };
	struct sym_session *s;
	const struct sym_result *r, *r2;
	int fd = mkstemp(path);

	ok(fd >= 0 && write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1), "kallsyms copy");
	close(fd);
	o.kallsyms = path;	/* not local: only the file speaks */
	sym_session__new(&s, &o, NULL);
	r = sym_session__lookup_kernel(s, 0xffffffff81000105ull);
	is_str(sym_session__str(s, r->symbol), "early_fn", "kallsyms file: function");
	is_int(r->sym_offset, 5, "... offset into it");
	is_str(sym_session__str(s, r->module), "[kernel.kallsyms]", "... the kernel's module");
	r = sym_session__lookup_kernel(s, 0xffffffff81000300ull);
	is_str(sym_session__str(s, r->symbol), "weak_fn", "weak symbols count, lines sorted by address");
	r = sym_session__lookup_kernel(s, 0xffffffff81200010ull);
	is_str(sym_session__str(s, r->symbol), "later_fn", "data symbols are not functions");
	r = sym_session__lookup_kernel(s, 0xffffffffc0001180ull);
	is_str(sym_session__str(s, r->symbol), "mod_fn2", "module function");
	is_str(sym_session__str(s, r->module), "[e1000]", "... in its module");
	r = sym_session__lookup_kernel(s, 0xffffffffc0002001ull);
	is_str(sym_session__str(s, r->module), "[xfs]", "another module");
	r = sym_session__lookup_kernel(s, 0xffffffffc0003004ull);
	is_str(sym_session__str(s, r->symbol), "last_fn", "the last line without a newline");
	r = sym_session__lookup_kernel(s, 0xffffffff80000000ull);
	is_str(sym_session__str(s, r->symbol), "[kernel]", "before the first symbol: [kernel]");
	r = sym_session__lookup_kernel(s, 0xffffffff81000101ull);
	r2 = sym_session__lookup_kernel(s, 0xffffffff81000102ull);
	ok(r->symbol == r2->symbol, "one name id per symbol");
	sym_session__delete(s);

	/* kptr_restrict's zeros: nothing to resolve with */
	fd = open(path, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && write(fd, "0000000000000000 T _stext\n0000000000000000 t f\n", 48) == 48,
	   "hidden addresses");
	close(fd);
	sym_session__new(&s, &o, NULL);
	r = sym_session__lookup_kernel(s, 0xffffffff81000105ull);
	ok(strstr(sym_session__str(s, r->symbol), "shows no addresses (copied under kptr_restrict)") &&
	   strstr(sym_session__str(s, r->symbol), path),
	   "zero addresses: a row naming the file and why: %s", sym_session__str(s, r->symbol));
	r2 = sym_session__lookup_kernel(s, 0xffffffff82000000ull);
	ok(r2->symbol == r->symbol, "every hidden kernel address: the same one row");
	sym_session__delete(s);
	unlink(path);
}

/* [vdso]: this process's own copy for a local session, [unknown] otherwise. */
static void test_vdso(void)
{
	struct sym_options o = { 0 };
	unsigned long long start = 0, end = 0;
	struct sym_session *s;
	struct sym_dso *dso;
	const struct sym_result *r;
	char line[1024];
	uint64_t off;
	int named = 0, hits = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]"))
			sscanf(line, "%llx-%llx", &start, &end);
	if (f)
		fclose(f);
	if (!end) {
		skip(4, "no [vdso] mapping");
		return;
	}
	sym_session__new(&s, &o, NULL);
	dso = sym_session__dso(s, "[vdso]", NULL, 0);
	r = sym_session__lookup(s, dso, 0x100);
	ok((r->flags & SYM_F_UNKNOWN) && sym_dso__problem(dso), "foreign [vdso]: [unknown] (%s)",
	   sym_dso__problem(dso) ? sym_dso__problem(dso) : "no reason");
	sym_session__delete(s);

	o.local = true;
	sym_session__new(&s, &o, NULL);
	dso = sym_session__dso(s, "[vdso]", NULL, 0);
	is_int(sym_dso__open(dso), 0, "local [vdso]: this process's copy opens");
	for (off = 0; off < end - start; off++) {
		r = sym_session__lookup(s, dso, off);
		if (!(r->flags & SYM_F_UNKNOWN)) {
			hits++;
			named |= strstr(sym_session__str(s, r->symbol), "clock_gettime") != NULL;
		}
	}
	ok(hits > 0, "local [vdso]: %d offsets resolve", hits);
	ok(named, "local [vdso]: clock_gettime is among them");
	sym_session__delete(s);
}

static void test_fixture(void)
{
	const char *fx = getenv("GX_FIXTURES");
	static const char *const funcs[] = { "main", "__cos_fma", "__sin_fma", "__hypot" };
	char bin[4096], dirname_[4096];
	const char *paths[1];
	struct sym_options o = { 0 };
	struct sym_session *s;
	struct sym_dso *dso;
	uint8_t bid[20];
	size_t nbid, i;

	snprintf(dirname_, sizeof(dirname_), "%s/vector_static_gcc", fx ? fx : "/nonexistent");
	snprintf(bin, sizeof(bin), "%s/vector_static_gcc_v9.1.0", dirname_);
	if (access(bin, R_OK)) {
		skip(7, "vector_static_gcc fixture absent");
		return;
	}
	nbid = elf_build_id(bin, bid);
	paths[0] = dirname_;
	o.search_paths = paths;
	o.nr_search_paths = 1;
	sym_session__new(&s, &o, NULL);
	/* recorded on another machine under another directory */
	dso = sym_session__dso(s, "/home/user/perfparser/vector_static_gcc_v9.1.0", bid, nbid);
	is_int(sym_dso__open(dso), 0, "fixture found by --search-path");
	for (i = 0; i < ARRAY_SIZE(funcs); i++) {
		const struct sym_result *r = lookup_sym(s, dso, bin, funcs[i], 8);

		is_str(r ? sym_session__str(s, r->symbol) : NULL, funcs[i], "fixture: %s", funcs[i]);
	}
	{
		const struct sym_result *r = lookup_sym(s, dso, bin, "main", 8);

		is_str(r ? base(sym_session__str(s, r->frames[0].file)) : NULL, "vector.cpp",
		       "fixture: main is in vector.cpp");
		ok(r && r->frames[0].line > 0, "fixture: main line %u", r ? r->frames[0].line : 0);
	}
	sym_session__delete(s);
}

int main(void)
{
	const char *b = getenv("GX_BUILDDIR"), *src = getenv("GX_SRCDIR");

	snprintf(wl, sizeof(wl), "%s/tests/workloads/wl-sym-inline", b ? b : ".");
	snprintf(wl_src, sizeof(wl_src), "%s/tests/workloads/wl-sym-inline.c", src ? src : ".");
	if (access(wl, R_OK) || access(wl_src, R_OK))
		plan_skip_all("wl-sym-inline or its source not found (set GX_BUILDDIR/GX_SRCDIR)");
	snprintf(tmpdir, sizeof(tmpdir), "%s/tests/tmp/symbolize-lookup.XXXXXX", b ? b : ".");
	{
		char cmd[4096 + 32];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s/tests/tmp'", b ? b : ".");
		sh(cmd);
	}
	if (!mkdtemp(tmpdir))
		plan_skip_all("cannot create a temporary directory");

	{	/* libdw is opened by a session (not linked): the first opens it
		 * for this test's own build-id reads too */
		struct sym_session *s0 = NULL;
		char *c0 = NULL;

		if (sym_session__new(&s0, NULL, &c0))
			plan_skip_all(c0 ? c0 : "libdw cannot be opened");
		sym_session__delete(s0);
	}
	test_functions();
	test_stripped();
	test_debug_files();
	test_find();
	test_kernel();
	test_kallsyms_file();
	test_vdso();
	test_fixture();

	{
		char cmd[4096 + 32];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		sh(cmd);
	}
	return done_testing();
}
