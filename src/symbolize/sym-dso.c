/*
 * sym-dso.c: one mapped module — finding its file (symfs, recorded path,
 * search paths by build-id and basename, /usr/lib/debug by build-id),
 * checking its build-id, and resolving file offsets to functions, inline
 * chains and lines with libdwfl (which also finds separate debug files
 * through .gnu_debuglink, .build-id trees and debuginfod).
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

static enum sym_dso_kind classify(const char *path)
{
	if (has_prefix(path, "[kernel.kallsyms]") || has_prefix(path, "[guest.kernel") ||
	    has_suffix(path, ".ko") || has_suffix(path, ".ko.xz") || has_suffix(path, ".ko.zst") ||
	    has_suffix(path, ".ko.gz"))
		return SYM_DSO_KERNEL;
	if (!path[0] || path[0] == '[' || has_prefix(path, "//anon") || has_prefix(path, "/memfd:") ||
	    has_prefix(path, "/dev/zero") || has_prefix(path, "/SYSV"))
		return SYM_DSO_SPECIAL;
	return SYM_DSO_FILE;
}

struct sym_dso *sym_dso__new(struct sym_session *s, const char *path,
			     const uint8_t *build_id, size_t build_id_size)
{
	struct sym_dso *dso = xzalloc(sizeof(*dso));
	const char *base = strrchr(path, '/');

	dso->s = s;
	dso->path_id = sym_session__intern(s, path);
	dso->kind = classify(path);
	dso->short_id = sym_session__intern(s, base && base[1] && dso->kind != SYM_DSO_SPECIAL ?
					       base + 1 : path);
	if (build_id_size)
		memcpy(dso->build_id, build_id, build_id_size);
	dso->build_id_size = build_id_size;
	dso->fd = -1;
	u64map__init(&dso->cache);
	return dso;
}

static void close_file(struct sym_dso *dso)
{
	if (dso->cfi)
		dwarf_cfi_end(dso->cfi);
	dso->cfi = NULL;
	if (dso->elf)
		elf_end(dso->elf);
	if (dso->image)
		munmap((void *)dso->image, dso->image_size);
	if (dso->fd >= 0)
		close(dso->fd);
	dso->elf = NULL;
	dso->image = NULL;
	dso->fd = -1;
}

void sym_dso__delete(struct sym_dso *dso)
{
	if (!dso)
		return;
	if (dso->dwfl)
		dwfl_end(dso->dwfl);
	close_file(dso);
	u64map__exit(&dso->cache);
	GX_FREE(dso->loads, dso->problem, dso->found_path, dso->dwfl_path, dso->fsyms,
		dso->osyms, dso->fdes, dso->franges, dso->eh_synth, dso);
}

const char *sym_dso__name(const struct sym_dso *dso)
{
	return sym_session__str(dso->s, dso->path_id);
}

const char *sym_dso__problem(const struct sym_dso *dso)
{
	return dso->problem;
}

const char *sym_dso__found_path(const struct sym_dso *dso)
{
	return dso->found_path;
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

/*
 * Try one candidate file: 0 and the dso's file fields set when it is an
 * ELF with the expected build-id; otherwise a negative code, and *why (when
 * still empty) says what was wrong with it.
 */
static int try_file(struct sym_dso *dso, const char *path, char **why)
{
	const void *bid;
	struct stat st;
	ssize_t n;
	void *img;
	Elf *elf;
	int fd;

	/* a perf.data may name a FIFO or a device: O_NONBLOCK so opening one
	 * does not wait for a writer, and nothing but a regular file is read */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return GX_E_FORMAT;
	}
	img = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED) {
		close(fd);
		return -errno;
	}
	elf = elf_memory(img, st.st_size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (!*why)
			*why = xasprintf("%s: not an ELF file", path);
		goto fail;
	}
	n = dwelf_elf_gnu_build_id(elf, &bid);
	if (dso->build_id_size && n > 0 &&
	    ((size_t)n != dso->build_id_size || memcmp(bid, dso->build_id, n))) {
		if (!*why) {
			char want[41], got[41];

			hex(want, dso->build_id, dso->build_id_size);
			hex(got, bid, (size_t)n > 20 ? 20 : (size_t)n);
			/* an archived copy that is not the recorded file: a
			 * hard link (gexplore before issue 41 linked a user's
			 * build) rewritten in place by `cp newbuild app` */
			if (strstr(path, "/.build-id/"))
				*why = xasprintf("%s: build-id mismatch: the result's archived copy "
						 "holds %s, the recording %s (the program was "
						 "overwritten in place after a hard link archived it): "
						 "its samples are [unknown] (give the old file with "
						 "--search-path)", sym_dso__name(dso), got, want);
			else
				*why = xasprintf("%s: build-id mismatch: %s on disk, %s in the "
						 "recording, and no archived copy: its samples are "
						 "[unknown] (rebuilt since the recording? keep its "
						 "result's .build-id archive, or give the old file "
						 "with --search-path)", sym_dso__name(dso), got, want);
		}
		elf_end(elf);
		munmap(img, st.st_size);
		close(fd);
		return -ESTALE;
	}
	dso->fd = fd;
	dso->elf = elf;
	dso->image = img;
	dso->image_size = st.st_size;
	dso->found_path = xstrdup(path);
	return 0;
fail:
	if (elf)
		elf_end(elf);
	munmap(img, st.st_size);
	close(fd);
	return GX_E_FORMAT;
}

/*
 * By build-id through libdwfl: its .build-id lookup under the debuginfo
 * path, then debuginfod when DEBUGINFOD_URLS is set (libdwfl's own client,
 * bounded by DEBUGINFOD_TIMEOUT). A throwaway module carries the build-id.
 */
static int find_by_build_id(struct sym_dso *dso, char **why)
{
	struct sym_session *s = dso->s;
	char *file = NULL;
	Dwfl_Module *m;
	Elf *elf = NULL;
	int fd, err = -ENOENT;
	Dwfl *d;

	d = dwfl_begin(&s->callbacks);
	if (!d)
		return -ENOENT;
	dwfl_report_begin(d);
	m = dwfl_report_module(d, sym_session__str(s, dso->short_id), 0, 1);
	if (m && dwfl_module_report_build_id(m, dso->build_id, dso->build_id_size, 0) == 0) {
		fd = dwfl_build_id_find_elf(m, NULL, sym_dso__name(dso), 0, &file, &elf);
		if (elf)
			elf_end(elf);
		if (fd >= 0 && !file) {
			/* debuginfod hands back a descriptor into its cache */
			char link[64], target[4096];
			ssize_t n;

			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = 0;
				file = xstrdup(target);
			}
		}
		if (fd >= 0)
			close(fd);
		if (fd >= 0 && file)
			err = try_file(dso, file, why);
	}
	dwfl_report_end(d, NULL, NULL);
	free(file);
	dwfl_end(d);
	return err;
}

static int find_file(struct sym_dso *dso, char **why)
{
	struct sym_session *s = dso->s;
	const char *recorded = sym_dso__name(dso), *base;
	char bid[41], *cand, path[4096];
	int err, first = -ENOENT;
	size_t i, k, n = strlen(recorded);

	/* a file replaced while mapped: its new version, if the build-id agrees */
	if (has_suffix(recorded, " (deleted)"))
		n -= strlen(" (deleted)");
	snprintf(path, sizeof(path), "%.*s", (int)n, recorded);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	hex(bid, dso->build_id, dso->build_id_size);

#define TRY(...)							\
	do {								\
		cand = xasprintf(__VA_ARGS__);				\
		err = try_file(dso, cand, why);				\
		free(cand);						\
		if (!err)						\
			return 0;					\
		if (first == -ENOENT)					\
			first = err;					\
	} while (0)

	/* the result's own copy first: it has the recorded build-id */
	if (s->archive && dso->build_id_size)
		TRY("%s/.build-id/%.2s/%s/elf", s->archive, bid, bid + 2);
	TRY("%s%s", s->symfs ? s->symfs : "", path);
	for (i = 0; i < s->nr_search_paths; i++) {
		const char *d = s->search_paths[i];

		if (dso->build_id_size) {
			TRY("%s/.build-id/%.2s/%s", d, bid, bid + 2);
			TRY("%s/.build-id/%.2s/%s/elf", d, bid, bid + 2);
		}
		TRY("%s/%s", d, base);
		if (s->symfs)
			TRY("%s%s/%s", s->symfs, d, base);
	}
	if (dso->build_id_size && find_by_build_id(dso, why) == 0)
		return 0;
	/* last resort: a separate debug file has symbols, DWARF and phdrs */
	if (dso->build_id_size) {
		for (i = 0; i < s->nr_search_paths; i++)
			TRY("%s/.build-id/%.2s/%s.debug", s->search_paths[i], bid, bid + 2);
		for (k = 0; k < 2; k++)
			TRY("%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			    k ? "" : (s->symfs ? s->symfs : ""), bid, bid + 2);
	}
#undef TRY
	return first;
}

static int read_loads(struct sym_dso *dso)
{
	GElf_Ehdr ehdr;
	size_t phnum, i;

	if (!gelf_getehdr(dso->elf, &ehdr) || elf_getphdrnum(dso->elf, &phnum) < 0)
		return GX_E_FORMAT;
	dso->e_type = ehdr.e_type;
	dso->loads = xcalloc(phnum ? phnum : 1, sizeof(*dso->loads));
	dso->text_lo = UINT64_MAX;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		struct sym_load *l;

		if (!gelf_getphdr(dso->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		l = &dso->loads[dso->nr_loads++];
		l->offset = ph.p_offset;
		l->filesz = ph.p_filesz;
		l->vaddr = ph.p_vaddr;
		l->memsz = ph.p_memsz;
		l->exec = ph.p_flags & PF_X;
		if (l->exec) {
			if (ph.p_vaddr < dso->text_lo)
				dso->text_lo = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > dso->text_hi)
				dso->text_hi = ph.p_vaddr + ph.p_memsz;
		}
	}
	return 0;
}

/*
 * [vdso]: a copy kept by the user under a search path (perf's build-id
 * cache keeps one), or, for a local recording, this process's own vdso —
 * the same kernel's image; the recorded build-id must match either way.
 */
static int find_vdso(struct sym_dso *dso, char **why)
{
	struct sym_session *s = dso->s;
	const Elf64_Ehdr *eh;
	char path[64];
	size_t size;
	int fd, err;

	if (dso->build_id_size) {
		bool had_why = *why != NULL;

		err = find_file(dso, why);
		if (!err)
			return 0;
		if (!had_why) {	/* "[vdso]" itself is no file: forget that miss */
			free(*why);
			*why = NULL;
		}
	}
	if (!s->local) {
		if (!*why)
			*why = xstrdup("[vdso]: not found (a foreign recording's vdso is only "
				       "read from --search-path DIR/.build-id)");
		return GX_E_NODATA;
	}
	eh = (const Elf64_Ehdr *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64) {
		if (!*why)
			*why = xstrdup("[vdso]: this process has no 64-bit vdso to read");
		return GX_E_NODATA;
	}
	/* the image ends with its section headers */
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size > 16 * 1024 * 1024 || size < sizeof(*eh))
		return GX_E_FORMAT;
	fd = memfd_create("gx-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (gx_write_all(fd, eh, size)) {
		close(fd);
		return -EIO;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = try_file(dso, path, why);
	close(fd);	/* try_file holds its own descriptor */
	if (!err) {
		free(dso->found_path);
		dso->found_path = xstrdup("[vdso] (this process's copy)");
		/* libdwfl opens the file by name: keep one the name can reach */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", dso->fd);
		dso->dwfl_path = xstrdup(path);
	}
	return err;
}

int sym_dso__open(struct sym_dso *dso)
{
	struct sym_session *s = dso->s;
	char *why = NULL;
	int err;

	if (dso->opened)
		return dso->open_err;
	dso->opened = true;
	if (dso->kind == SYM_DSO_KERNEL) {
		err = 0;
		goto out;
	}
	/* libelf: opened (and its version set) by sym_session__new */
	if (!strcmp(sym_dso__name(dso), "[vdso]")) {
		err = find_vdso(dso, &why);
		if (err)
			goto out;
		goto found;
	}
	if (dso->kind == SYM_DSO_SPECIAL) {
		why = xasprintf("%s: no file to read", sym_dso__name(dso));
		err = GX_E_NODATA;
		goto out;
	}
	err = find_file(dso, &why);
	if (err) {
		if (!why)
			why = xasprintf("%s: %s", sym_dso__name(dso),
					err == -ENOENT ? "not found (try --symfs or --search-path)"
						       : gx_strerror(err));
		goto out;
	}
found:
	free(why);
	why = NULL;
	err = read_loads(dso);
	if (err) {
		why = xasprintf("%s: bad ELF program headers", dso->found_path);
		goto out_close;
	}
	dso->dwfl = dwfl_begin(&s->callbacks);
	if (!dso->dwfl) {
		why = xasprintf("libdwfl: %s", dwfl_errmsg(-1));
		err = GX_E_INTERNAL;
		goto out_close;
	}
	dwfl_report_begin(dso->dwfl);
	/*
	 * base 0 with add_p_vaddr: module addresses are the ELF's own virtual
	 * addresses (bias 0) for executables and shared objects alike.
	 */
	dso->mod = dwfl_report_elf(dso->dwfl, sym_session__str(s, dso->short_id),
				   dso->dwfl_path ? dso->dwfl_path : dso->found_path, -1, 0, true);
	dwfl_report_end(dso->dwfl, NULL, NULL);
	if (dso->mod) {	/* sym_dso__find_debuginfo finds its dso there */
		void **ud = NULL;

		dwfl_module_info(dso->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		if (ud)
			*ud = dso;
	}
	if (!dso->mod) {
		why = xasprintf("%s: %s", dso->found_path, dwfl_errmsg(-1));
		err = GX_E_FORMAT;
		goto out_dwfl;
	}
	s->stats.dsos_opened++;
	err = 0;
	goto out;

out_dwfl:
	dwfl_end(dso->dwfl);
	dso->dwfl = NULL;
out_close:
	close_file(dso);
out:
	if (err)
		s->stats.dsos_missing++;
	dso->open_err = err;
	dso->problem = why;
	return err;
}

bool sym_dso__stale(const struct sym_dso *dso)
{
	return dso->opened && dso->open_err == -ESTALE;
}

int sym_dso__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			    GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct sym_dso *dso = userdata ? *userdata : NULL;

	if (dso && dso->s->archive && dso->build_id_size) {
		char bid[41], *path;
		int fd;

		hex(bid, dso->build_id, dso->build_id_size);
		path = xasprintf("%s/.build-id/%.2s/%s/debug", dso->s->archive, bid, bid + 2);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			*debuginfo_file_name = path;	/* libdwfl frees it */
			return fd;
		}
		free(path);
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

bool sym_dso__offset_to_addr(const struct sym_dso *dso, uint64_t offset, uint64_t *addr)
{
	size_t i;

	for (i = 0; i < dso->nr_loads; i++) {
		const struct sym_load *l = &dso->loads[i];

		if (offset >= l->offset && offset < l->offset + l->filesz) {
			*addr = l->vaddr + (offset - l->offset);
			return true;
		}
	}
	if (!dso->nr_loads && dso->elf) {	/* relocatable: offsets are addresses */
		*addr = offset;
		return true;
	}
	return false;
}

bool sym_dso__addr_to_offset(const struct sym_dso *dso, uint64_t addr, uint64_t *offset)
{
	for (size_t i = 0; i < dso->nr_loads; i++) {
		const struct sym_load *l = &dso->loads[i];

		if (addr >= l->vaddr && addr - l->vaddr < l->filesz) {
			*offset = l->offset + (addr - l->vaddr);
			return true;
		}
	}
	if (!dso->nr_loads && dso->elf) {
		*offset = addr;
		return true;
	}
	return false;
}

bool sym_dso__read_vaddr(const struct sym_dso *dso, uint64_t vaddr, void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < dso->nr_loads; i++) {
		const struct sym_load *l = &dso->loads[i];

		/* compared without sums that a hostile header could wrap */
		if (vaddr >= l->vaddr && len <= l->filesz && vaddr - l->vaddr <= l->filesz - len) {
			uint64_t off = l->offset + (vaddr - l->vaddr);

			if (off < l->offset || off > dso->image_size || len > dso->image_size - off)
				return false;
			memcpy(buf, dso->image + off, len);
			return true;
		}
	}
	return false;
}

/* ---- resolving ---------------------------------------------------------- */

static struct sym_frame *scratch_frame(struct sym_session *s, size_t n)
{
	s->scratch = xgrow(s->scratch, &s->scratch_cap, n + 1, sizeof(*s->scratch));
	memset(&s->scratch[n], 0, sizeof(s->scratch[n]));
	return &s->scratch[n];
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
	return name;
}

/* Fold "." and ".." segments and repeated slashes of a path, in place. */
static void fold_path(char *out)
{
	bool abs = out[0] == '/';
	char *w = out, *p = out;

	if (abs)
		w = p = out + 1;
	while (*p) {
		char *seg = p;
		size_t len;
		bool more;

		while (*p && *p != '/')
			p++;
		len = p - seg;
		more = *p == '/';
		if (more)
			p++;
		if (len == 0 || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			char *start = abs ? out + 1 : out, *back = w;

			if (back > start && back[-1] == '/')
				back--;
			while (back > start && back[-1] != '/')
				back--;
			if (back < w && strncmp(back, "../", 3) && strcmp(back, "..")) {
				w = back;	/* drop the previous segment */
				continue;
			}
			if (abs)
				continue;	/* "/.." is "/" */
		}
		memmove(w, seg, len);
		w += len;
		if (more)
			*w++ = '/';
	}
	if (w > out + 1 && w[-1] == '/')
		w--;
	if (w == out)
		*w++ = '.';
	*w = 0;
}

/*
 * Intern a source path as the user can open it: relative names joined to
 * the CU's compilation directory, "." and ".." segments folded lexically.
 */
static uint32_t src_file(struct sym_session *s, Dwarf_Die *cu, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	const char *comp = NULL;
	Dwarf_Attribute at;
	uint32_t id;
	char *out;

	if (!name || !*name)
		return SYM_STR_NONE;
	if (name[0] != '/' && cu)
		comp = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	if (!comp && !strstr(name, "/."))
		return sym_session__intern(s, name);
	if (comp) {
		strbuf__addstr(&sb, comp);
		strbuf__addstr(&sb, "/");
	}
	strbuf__addstr(&sb, name);
	out = strbuf__detach(&sb);
	fold_path(out);
	id = sym_session__intern(s, out);
	free(out);
	return id;
}

static uint32_t cu_file(struct sym_session *s, Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t nfiles;

	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return SYM_STR_NONE;
	return src_file(s, cu, dwarf_filesrc(files, idx, NULL, NULL));
}

/*
 * Fill the scratch frames with the inline chain at addr, innermost first;
 * returns how many (0 when there is no DWARF scope for addr).
 */
/* ---- the function index ---------------------------------------------------
 * dwarf_getscopes walks a CU from its start for every address, which costs
 * ~1M instructions per lookup in a large CU (glibc's). Instead the
 * module's subprograms' pc ranges are indexed once, and an address only
 * walks the DIE subtree of its own function.
 */
static int frange_cmp(const void *a, const void *b)
{
	const struct sym_frange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_scope(struct sym_dso *dso, Dwarf_Die *parent, size_t *cap)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t o = 0;

			while ((o = dwarf_ranges(&child, o, &base, &lo, &hi)) > 0) {
				struct sym_frange *r;

				if (hi <= lo)
					continue;
				dso->franges = xgrow(dso->franges, cap, dso->nr_franges + 1,
						     sizeof(*dso->franges));
				r = &dso->franges[dso->nr_franges++];
				r->lo = lo;
				r->hi = hi;
				r->die = dwarf_dieoffset(&child);
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_module) {
			index_scope(dso, &child, cap);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void index_functions(struct sym_dso *dso)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t cap = 0;

	dso->franges_loaded = true;
	dso->dw = dwfl_module_getdwarf(dso->mod, &dso->dwbias);
	if (!dso->dw)
		return;
	while ((cu = dwfl_module_nextcu(dso->mod, cu, &bias)))
		index_scope(dso, cu, &cap);
	if (dso->nr_franges)
		gx_qsort(dso->franges, dso->nr_franges, sizeof(*dso->franges), frange_cmp);
}

static bool has_pc_attr(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/*
 * The child of parent (looking through blocks that carry no addresses)
 * whose code contains pc and that may hold an inlined call.
 */
static bool child_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block &&
		    tag != DW_TAG_try_block && tag != DW_TAG_catch_block)
			continue;
		if (has_pc_attr(&child)) {
			if (dwarf_haspc(&child, pc) > 0) {
				*out = child;
				return true;
			}
		} else if (child_at(&child, pc, out, depth + 1)) {
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Scopes at pc, innermost first, in the session's scratch; -1: not indexed. */
static int indexed_scopes(struct sym_dso *dso, Dwarf_Addr pc, Dwarf_Die **out)
{
	struct sym_session *s = dso->s;
	size_t lo = 0, hi, n = 0, i;
	Dwarf_Die die;

	if (!dso->franges_loaded)
		index_functions(dso);
	hi = dso->nr_franges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dso->franges[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= dso->franges[lo - 1].hi ||
	    !dwarf_offdie(dso->dw, dso->franges[lo - 1].die, &die))
		return -1;
	do {
		s->scopes = xgrow(s->scopes, &s->scopes_cap, n + 1, sizeof(*s->scopes));
		s->scopes[n++] = die;
	} while (n < 256 && child_at(&s->scopes[n - 1], pc, &die, 0));
	for (i = 0; i < n / 2; i++) {	/* innermost first */
		Dwarf_Die tmp = s->scopes[i];

		s->scopes[i] = s->scopes[n - 1 - i];
		s->scopes[n - 1 - i] = tmp;
	}
	*out = s->scopes;
	return (int)n;
}

/*
 * Fill the scratch frames with the inline chain at addr, innermost first;
 * returns how many (0 when there is no DWARF scope for addr).
 */
static size_t inline_chain(struct sym_dso *dso, uint64_t addr, uint32_t file, uint32_t line,
			   uint32_t col)
{
	struct sym_session *s = dso->s;
	Dwarf_Die *scopes = NULL, *allocated = NULL, cu_die, *cu = NULL;
	Dwarf_Addr bias;
	size_t n = 0;
	int nscopes, i;

	nscopes = indexed_scopes(dso, addr - dso->dwbias, &scopes);
	if (nscopes > 0) {
		cu = dwarf_diecu(&scopes[0], &cu_die, NULL, NULL);
	} else {
		/*
		 * Not in the index: dwarf_getscopes. It continues from an
		 * inlined instance into the scopes of the inlined function's
		 * abstract definition; the DIE tree around the innermost scope
		 * (dwarf_getscopes_die) has the callers instead.
		 */
		cu = dwfl_module_addrdie(dso->mod, addr, &bias);
		if (!cu)
			return 0;
		nscopes = dwarf_getscopes(cu, addr - bias, &allocated);
		if (nscopes > 0) {
			Dwarf_Die inner = allocated[0];

			free(allocated);
			allocated = NULL;
			nscopes = dwarf_getscopes_die(&inner, &allocated);
		}
		scopes = allocated;
	}
	for (i = 0; i < nscopes; i++) {
		Dwarf_Die *d = &scopes[i];
		int tag = dwarf_tag(d);
		struct sym_frame *f;
		Dwarf_Attribute at;
		Dwarf_Word w;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		f = scratch_frame(s, n++);
		f->function = sym_session__intern_name(s, die_name(d));
		f->file = file;
		f->line = line;
		f->column = col;
		if (tag == DW_TAG_subprogram || s->no_inline)
			break;
		/* the caller's location is this inline instance's call site */
		file = SYM_STR_NONE;
		line = col = 0;
		if (dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &at), &w) == 0)
			file = cu_file(s, cu, w);
		if (dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &at), &w) == 0)
			line = (uint32_t)w;
		if (dwarf_formudata(dwarf_attr(d, DW_AT_call_column, &at), &w) == 0)
			col = (uint32_t)w;
	}
	free(allocated);
	return n;
}

static const struct sym_result *make_result(struct sym_dso *dso, uint64_t offset, uint64_t addr,
					    uint32_t symbol, uint64_t sym_offset, uint32_t flags,
					    size_t nr_frames)
{
	struct sym_session *s = dso->s;
	struct sym_result *r = sym_session__alloc(s, sizeof(*r));
	struct sym_frame *f = sym_session__alloc(s, nr_frames * sizeof(*f));

	memcpy(f, s->scratch, nr_frames * sizeof(*f));
	memset(r, 0, sizeof(*r));
	r->dso = dso;
	r->module = dso->path_id;
	r->module_short = dso->short_id;
	r->symbol = symbol;
	r->flags = flags | (nr_frames > 1 ? SYM_F_INLINED : 0);
	r->addr = addr;
	r->offset = offset;
	r->sym_offset = sym_offset;
	r->nr_frames = nr_frames;
	r->frames = f;
	return r;
}

static const struct sym_result *unknown_result(struct sym_dso *dso, uint64_t offset, uint64_t addr)
{
	struct sym_frame *f = scratch_frame(dso->s, 0);

	f->function = dso->s->id_unknown;
	return make_result(dso, offset, addr, dso->s->id_unknown, offset,
			   SYM_F_UNKNOWN | SYM_F_NO_LINES, 1);
}

/* ---- the function symbol table ------------------------------------------
 * libdwfl's dwfl_module_addrsym scans every symbol on each call; a report
 * resolves thousands of distinct addresses, so the module's function
 * symbols are sorted once and binary-searched.
 */
/*
 * Which of several names at one address to show: Linux perf's choice, so
 * function rows line up with `perf report`: non-weak over weak, global
 * over local, fewer leading underscores, then the longer name.
 */
static int fsym_cmp(const void *a, const void *b)
{
	const struct sym_fsym *x = a, *y = b;
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	size_t lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? 1 : -1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? -1 : 1;
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void load_symbols(struct sym_dso *dso)
{
	size_t cap = 0, i, w;
	int n, k;

	dso->fsyms_loaded = true;
	n = dwfl_module_getsymtab(dso->mod);
	for (k = 1; k < n; k++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name;
		struct sym_fsym *f;
		int type;

		name = dwfl_module_getsym_info(dso->mod, k, &sym, &addr, NULL, NULL, NULL);
		type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		dso->fsyms = xgrow(dso->fsyms, &cap, dso->nr_fsyms + 1, sizeof(*dso->fsyms));
		f = &dso->fsyms[dso->nr_fsyms++];
		f->addr = addr;
		f->size = sym.st_size;
		f->name = name;
		f->bind = GELF_ST_BIND(sym.st_info);
	}
	sym_plt__add_symbols(dso, &cap);	/* "memcpy@plt", not _init */
	if (!dso->nr_fsyms)
		return;
	gx_qsort(dso->fsyms, dso->nr_fsyms, sizeof(*dso->fsyms), fsym_cmp);
	for (i = 1, w = 1; i < dso->nr_fsyms; i++) {	/* one name per address: the best */
		if (dso->fsyms[i].addr == dso->fsyms[w - 1].addr) {
			if (dso->fsyms[i].size > dso->fsyms[w - 1].size && !dso->fsyms[w - 1].size)
				dso->fsyms[w - 1].size = dso->fsyms[i].size;
			continue;
		}
		dso->fsyms[w++] = dso->fsyms[i];
	}
	dso->nr_fsyms = w;
}

static const char *find_symbol(struct sym_dso *dso, uint64_t addr, uint64_t *off)
{
	const struct sym_fsym *f;
	size_t lo = 0, hi;

	if (!dso->fsyms_loaded)
		load_symbols(dso);
	hi = dso->nr_fsyms;
	while (lo < hi) {	/* last symbol starting at or before addr */
		size_t mid = lo + (hi - lo) / 2;

		if (dso->fsyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &dso->fsyms[lo - 1];
	/* sized symbols end where they say; unsized ones at the next symbol */
	if (f->size && addr >= f->addr + f->size)
		return NULL;
	if (!f->size && (addr < dso->text_lo || addr >= dso->text_hi))
		return NULL;
	*off = addr - f->addr;
	return f->name;
}

/*
 * Code no symbol covers (a stripped binary, a static function of a
 * library that keeps only .dynsym): one row per function, named
 * "module+0xSTART" after the ELF address where it starts. The function is
 * its FDE's range (.eh_frame, .debug_frame), cut where a symbol before it
 * ends; code outside every FDE is one range from the last boundary below
 * it (the end of an FDE or symbol, or the start of its executable
 * section). START is where disassembly can begin. NULL outside executable
 * code.
 */
static const struct sym_result *range_result(struct sym_dso *dso, uint64_t offset,
					     uint64_t addr)
{
	struct sym_session *s = dso->s;
	const struct sym_fde *fde;
	uint64_t lo = dso->text_lo;
	Elf_Scn *scn = NULL;
	bool in_text = false;
	struct sym_frame *f;
	size_t nlo = 0, nhi, k;
	char *name;

	while ((scn = elf_nextscn(dso->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
		    addr >= sh.sh_addr + sh.sh_size)
			continue;
		in_text = true;
		lo = sh.sh_addr;
		break;
	}
	if (!in_text && (addr < dso->text_lo || addr >= dso->text_hi))
		return NULL;
	if (!dso->fdes_loaded)
		sym_fde__load(dso);
	k = sym_fde__upper(dso->fdes, dso->nr_fdes, addr);
	fde = k && addr < dso->fdes[k - 1].hi ? &dso->fdes[k - 1] : NULL;
	if (fde)
		lo = fde->lo;
	else if (k && dso->fdes[k - 1].hi > lo)
		lo = dso->fdes[k - 1].hi;
	for (nhi = dso->nr_fsyms; nlo < nhi;) {	/* the symbol before addr */
		size_t mid = nlo + (nhi - nlo) / 2;

		if (dso->fsyms[mid].addr <= addr)
			nlo = mid + 1;
		else
			nhi = mid;
	}
	if (nlo) {
		const struct sym_fsym *p = &dso->fsyms[nlo - 1];

		if (p->size && p->addr + p->size <= addr && p->addr + p->size > lo)
			lo = p->addr + p->size;
	}
	name = xasprintf("%s+0x%" PRIx64, sym_session__str(s, dso->short_id), lo);
	f = scratch_frame(s, 0);
	f->function = sym_session__intern(s, name);
	free(name);
	return make_result(dso, offset, addr, f->function, addr - lo,
			   SYM_F_UNKNOWN | SYM_F_NO_LINES, 1);
}

const struct sym_result *sym_dso__resolve(struct sym_dso *dso, uint64_t offset)
{
	struct sym_session *s = dso->s;
	uint32_t symbol = SYM_STR_NONE, file = SYM_STR_NONE, line = 0, col = 0;
	uint64_t addr = offset, sym_off = 0;
	const char *name;
	Dwfl_Line *ln;
	uint64_t off;
	size_t n;
	int l, c;

	if (sym_dso__open(dso) || !dso->mod)
		return unknown_result(dso, offset, offset);
	if (!sym_dso__offset_to_addr(dso, offset, &addr))
		return unknown_result(dso, offset, offset);

	name = find_symbol(dso, addr, &off);
	if (name) {
		symbol = sym_session__intern_name(s, name);
		sym_off = off;
	}
	ln = dwfl_module_getsrc(dso->mod, addr);
	if (ln) {
		const char *src = dwfl_lineinfo(ln, NULL, &l, &c, NULL, NULL);
		Dwarf_Addr bias;

		if (src) {
			file = src_file(s, dwfl_module_addrdie(dso->mod, addr, &bias), src);
			line = l > 0 ? (uint32_t)l : 0;
			col = c > 0 ? (uint32_t)c : 0;
		}
	}
	n = ln ? inline_chain(dso, addr, file, line, col) : 0;
	if (n && symbol == SYM_STR_NONE)
		symbol = s->scratch[n - 1].function;
	if (symbol == SYM_STR_NONE) {
		const struct sym_result *r = range_result(dso, offset, addr);

		return r ? r : unknown_result(dso, offset, addr);
	}
	if (!n) {
		struct sym_frame *f = scratch_frame(s, 0);

		f->function = symbol;
		f->file = file;
		f->line = line;
		f->column = col;
		n = 1;
	} else {
		/* the out-of-line frame is named like the ELF symbol */
		s->scratch[n - 1].function = symbol;
	}
	return make_result(dso, offset, addr, symbol, sym_off, file ? 0 : SYM_F_NO_LINES, n);
}
