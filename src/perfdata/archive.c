/*
 * archive.c: a result's own copies of the files its samples hit, keyed by
 * build-id in perf's build-id cache layout (DIR/.build-id/xx/rest/elf and
 * .../debug), so the result symbolizes on another machine or after a
 * rebuild. A file only root can change and that a package manager
 * replaces (renames a new file over it) is hard-linked where the file
 * system allows; every other file is copied (issue 41: `cp newbuild app`
 * over a recorded, hard-linked app rewrote the "archived" copy, and the
 * report showed 99% [unknown]).
 */
#include "config.h"

#include "perfdata/perfdata-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

static void warn(const struct pd_archive_opts *o, const char *fmt, ...) GX_PRINTF(2, 3);
static void warn(const struct pd_archive_opts *o, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!o->warn)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	o->warn(o->ctx, msg);
	free(msg);
}

/*
 * mkdir -p of rel under the directory dfd, one component at a time, each
 * opened O_NOFOLLOW under the one before: a link anywhere on the way (a
 * .build-id aimed at another user's directory) fails with ELOOP and
 * nothing is created through it. New directories are 0700: the archive
 * holds the workload's binaries. The last directory's fd, else a negative
 * code.
 */
static int mkdirs_at(int dfd, const char *rel)
{
	char *p = xstrdup(rel), *s = p;
	int fd = dup(dfd);

	if (fd < 0) {
		free(p);
		return -errno;
	}
	for (;;) {
		char *slash = strchr(s, '/');
		int next;

		if (slash)
			*slash = 0;
		if (mkdirat(fd, s, 0700) != 0 && errno != EEXIST) {
			close(fd);
			fd = -errno;
			break;
		}
		next = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next < 0 ? -errno : next;
		if (fd < 0 || !slash)
			break;
		s = slash + 1;
	}
	free(p);
	return fd;
}

/*
 * Copy what in holds to name under dfd (a new file, 0600: no setuid or
 * setgid bit is ever copied), through name.part linked to name once
 * whole: an archive killed mid-copy (Ctrl-C) left a truncated elf that
 * the next one took for archived.
 */
static int copy_at(int in, int dfd, const char *name)
{
	char buf[65536], tmp[64];
	int out, err = 0;
	ssize_t n;

	snprintf(tmp, sizeof(tmp), "%s.part", name);
	unlinkat(dfd, tmp, 0);	/* what a killed archive left */
	out = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (gx_write_all(out, buf, (size_t)n) != 0) {
			err = -EIO;
			break;
		}
	if (n < 0)
		err = -errno;
	if (close(out) != 0 && !err)
		err = -errno;
	if (!err && linkat(dfd, tmp, dfd, name, 0) != 0)
		err = -errno;	/* EEXIST: name is there already, kept */
	unlinkat(dfd, tmp, 0);
	return err;
}

/* Directories whose root-owned files a package manager installs, and
 * replaces by renaming a new file over the old: never written in place. */
static const char *const system_dirs[] = { "/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/",
					   "/bin/", "/sbin/", "/opt/" };

/*
 * Whether a hard link to path (st its status) is safe: the file cannot be
 * rewritten in place by anyone but root (owned by root, no group or other
 * write bit), and, when we are root (who can write anything), it lies in
 * a system directory. A user's build output (`cp newbuild app` writes the
 * same inode) is copied.
 */
static bool may_link(const char *path, const struct stat *st)
{
	if (st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH | S_ISUID | S_ISGID)))
		return false;
	if (geteuid() != 0)
		return true;
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (!strncmp(path, system_dirs[i], strlen(system_dirs[i])))
			return true;
	return false;
}

/*
 * Hard link src as name under dfd where may_link allows it
 * (sys: src's path as the recording named it), or copy it; *linked says
 * which. The file opened is the one linked (through /proc/self/fd), so
 * what was checked is what lands in the result; a setuid or setgid file
 * is copied, never linked: a link would keep that program, bits and all,
 * in the result's owner's hands after an upgrade replaced it.
 */
static int link_or_copy(const char *src, const char *sys, int dfd, const char *name,
			bool *linked)
{
	char proc[64];
	struct stat st;
	int in, err;

	*linked = false;
	in = open(src, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		err = GX_E_FORMAT;
		goto out;
	}
	if (may_link(sys, &st)) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", in);
		*linked = linkat(AT_FDCWD, proc, dfd, name, AT_SYMLINK_FOLLOW) == 0;
		if (*linked) {
			err = 0;
			goto out;
		}
		if (errno == EEXIST) {
			err = -EEXIST;
			goto out;
		}
	}
	err = copy_at(in, dfd, name);
out:
	close(in);
	return err;
}

/* A regular file of the expected build-id: its size, else a negative code. */
static int64_t check_file(const char *path, const uint8_t *id, uint8_t size, uint8_t got[20],
			  uint8_t *got_size)
{
	struct stat st;
	int err;

	if (stat(path, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return GX_E_FORMAT;
	err = pd_read_build_id(path, got, got_size);
	if (err)
		return err;
	if (*got_size != size || memcmp(got, id, size))
		return -ESTALE;
	return st.st_size;
}

/* A .gnu_debuglink section's bytes as a name: NUL-terminated, no slash. */
static char *debuglink_name(const char *d, size_t n)
{
	if (n > 4 && memchr(d, 0, n) && d[0] && !strchr(d, '/'))
		return xstrdup(d);
	return NULL;
}

/*
 * The .gnu_debuglink name of a 64-bit ELF file of this machine's byte
 * order, read with a few preads (the archive of every record looks for
 * it, and libelf was the load of a library and the mapping of the whole
 * file: issue 26, part 4). 0 with *name (NULL: none), or GX_E_FORMAT for
 * another kind of file, which libelf reads.
 */
static int shdr_debuglink(int fd, char **name)
{
	static const uint8_t host_data =
		__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	static const char want[] = ".gnu_debuglink";
	Elf64_Ehdr eh;
	Elf64_Shdr strs, *sh = NULL;
	char sname[sizeof(want)], data[4096], *tab = NULL;
	size_t bytes;
	int err = GX_E_FORMAT;

	*name = NULL;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != host_data)
		return GX_E_FORMAT;
	if (eh.e_shoff == 0 || eh.e_shnum == 0)
		return 0;	/* no section headers: no link */
	if (eh.e_shentsize != sizeof(*sh) || eh.e_shstrndx == SHN_UNDEF ||
	    eh.e_shstrndx >= eh.e_shnum)
		return GX_E_FORMAT;	/* SHN_XINDEX and the like: libelf's */
	bytes = (size_t)eh.e_shnum * sizeof(*sh);
	sh = xmalloc(bytes);
	if (pread(fd, sh, bytes, (off_t)eh.e_shoff) != (ssize_t)bytes)
		goto out;
	strs = sh[eh.e_shstrndx];
	/* the section names in one read (libc's are 0.3 KiB: a read each was
	 * sixty system calls); a table larger than 64 KiB, name by name */
	if (strs.sh_size && strs.sh_size <= 65536 && strs.sh_type != SHT_NOBITS) {
		tab = xmalloc(strs.sh_size);
		if (pread(fd, tab, strs.sh_size, (off_t)strs.sh_offset) != (ssize_t)strs.sh_size) {
			free(tab);
			tab = NULL;
		}
	}
	for (size_t i = 0; i < eh.e_shnum; i++) {
		ssize_t n;

		if (sh[i].sh_name >= strs.sh_size || strs.sh_size - sh[i].sh_name < sizeof(want))
			continue;
		if (tab ? memcmp(tab + sh[i].sh_name, want, sizeof(want)) != 0 :
			  pread(fd, sname, sizeof(want), (off_t)(strs.sh_offset + sh[i].sh_name)) !=
				  (ssize_t)sizeof(want) || memcmp(sname, want, sizeof(want)) != 0)
			continue;
		if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_size < sizeof(data)) {
			n = pread(fd, data, sh[i].sh_size, (off_t)sh[i].sh_offset);
			if (n == (ssize_t)sh[i].sh_size)
				*name = debuglink_name(data, (size_t)n);
		}
		break;
	}
	err = 0;
out:
	free(tab);
	free(sh);
	return err;
}

/* The .gnu_debuglink name of an ELF file, or NULL. */
static char *debuglink_of(const char *path)
{
	Elf_Scn *scn = NULL;
	char *name = NULL;
	size_t shstrndx;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (shdr_debuglink(fd, &name) == 0) {
		close(fd);
		return name;
	}
	/* another class or byte order: libelf (util's lazy-elf.c); without
	 * it no link, and the .build-id path stays */
	if (gx_libelf__open(NULL)) {
		close(fd);
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto out;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *sn;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sn = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(sn, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			name = debuglink_name(d->d_buf, d->d_size);
		break;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return name;
}

/*
 * The separate debug file of path (build-id id), as gdb and libdwfl look
 * for it: /usr/lib/debug/.build-id/xx/rest.debug, then the .gnu_debuglink
 * name in the file's directory, its .debug/ and /usr/lib/debug/DIR/. The
 * candidate must carry the same build-id. NULL when there is none.
 */
static char *find_debug(const char *root, const char *path, const char *bid,
			const uint8_t *id, uint8_t size, int64_t *bytes)
{
	char *link = debuglink_of(path), *cand, *dir;
	uint8_t got[20], got_size;
	const char *slash;
	int64_t n;

	cand = xasprintf("%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, bid, bid + 2);
	if ((n = check_file(cand, id, size, got, &got_size)) >= 0)
		goto found;
	free(cand);
	cand = NULL;
	if (!link)
		return NULL;
	slash = strrchr(path, '/');
	dir = xstrndup(path, slash ? (size_t)(slash - path) : 0);
	for (int k = 0; k < 3 && !cand; k++) {
		cand = k == 0 ? xasprintf("%s/%s", dir, link) :
		       k == 1 ? xasprintf("%s/.debug/%s", dir, link) :
				xasprintf("%s/usr/lib/debug%s/%s", root,
					  dir + strlen(root), link);
		if (strcmp(cand, path) && (n = check_file(cand, id, size, got, &got_size)) >= 0)
			break;
		free(cand);
		cand = NULL;
	}
	free(dir);
	free(link);
	return cand;
found:
	free(link);
	*bytes = n;
	return cand;
}

/* One archiving of a result: where, from where, and what it came to. */
struct archive_run {
	int dfd;			/* the result's directory */
	const char *dir, *root;		/* its name; --symfs or "" */
	const struct pd_archive_opts *o;
	struct pd_archive_stats *st;
	struct strbuf over;		/* the files left out by the cap */
	size_t nr_over;
};

/* whether build-id i is one an earlier entry has: one copy per build-id */
static bool seen_before(const struct pd_env *env, size_t i)
{
	const struct pd_build_id *b = &env->build_ids[i];

	for (size_t j = 0; j < i; j++)
		if (env->build_ids[j].size == b->size &&
		    !memcmp(env->build_ids[j].id, b->id, b->size))
			return true;
	return false;
}

/* src (size bytes) and its debug file dbg (dsize bytes, or NULL) linked or
 * copied into lfd, the build-id's directory */
static void archive_store(struct archive_run *ar, int lfd, const struct pd_build_id *b,
			  const char *src, int64_t size, const char *dbg, int64_t dsize)
{
	struct pd_archive_stats *st = ar->st;
	bool linked;
	int e = link_or_copy(src, b->filename, lfd, "elf", &linked);

	if (e) {
		warn(ar->o, "%s: not archived: %s", b->filename, gx_strerror(e));
		st->skipped++;
		return;
	}
	st->files++;
	st->linked += linked;
	st->bytes += (uint64_t)size;
	if (dbg && link_or_copy(dbg, dbg + strlen(ar->root), lfd, "debug", &linked) == 0) {
		st->files++;
		st->linked += linked;
		st->bytes += (uint64_t)dsize;
	}
}

/* One build-id's file into the result, unless it is there already, has
 * changed or would pass the cap. 0, or an error that ends the archiving. */
static int archive_one(struct archive_run *ar, const struct pd_build_id *b, char **cause)
{
	const struct pd_archive_opts *o = ar->o;
	struct pd_archive_stats *st = ar->st;
	char bid[41], *src, *rel, *dbg = NULL;
	uint8_t got[20], got_size = 0;
	int64_t size, dsize = 0;
	struct stat sst;
	int e, lfd, err = 0;

	hex(bid, b->id, b->size);
	rel = xasprintf(".build-id/%.2s/%s", bid, bid + 2);
	src = xasprintf("%s/elf", rel);	/* its directory alone is not it */
	e = fstatat(ar->dfd, src, &sst, AT_SYMLINK_NOFOLLOW);
	free(src);
	if (e == 0) {
		st->present++;
		free(rel);
		return 0;
	}
	src = xasprintf("%s%s", ar->root, b->filename);
	size = check_file(src, b->id, b->size, got, &got_size);
	if (size == -ESTALE) {
		char now[41];

		hex(now, got, got_size);
		warn(o, "%s: not archived: its build-id is now %s, the recording's %s "
		     "(rebuilt since?)", b->filename, now, bid);
	} else if (size < 0) {
		warn(o, "%s: not archived: %s", b->filename, gx_strerror((int)size));
	}
	if (size < 0) {
		st->skipped++;
		goto out;
	}
	dbg = find_debug(ar->root, src, bid, b->id, b->size, &dsize);
	if (o->max_bytes && st->bytes + (uint64_t)size + (uint64_t)dsize > o->max_bytes) {
		strbuf__addf(&ar->over, "%s%s", ar->nr_over++ ? ", " : "", b->filename);
		st->skipped++;
		goto out;
	}
	lfd = mkdirs_at(ar->dfd, rel);
	if (lfd < 0) {
		err = gx_fail(cause, lfd, "%s/%s: %s", gx_esc(ar->dir), rel,
			      lfd == -ELOOP ? "a symbolic link on the way: not followed" :
			      gx_strerror(lfd));
		goto out;
	}
	archive_store(ar, lfd, b, src, size, dbg, dsize);
	close(lfd);
out:
	free(dbg);
	free(src);
	free(rel);
	return err;
}

int pd_archive(const char *dir, const struct pd_env *env, const struct pd_archive_opts *o,
	       struct pd_archive_stats *st, char **cause)
{
	struct archive_run ar = {
		.dir = dir, .root = o->symfs ? o->symfs : "", .o = o, .st = st,
		.over = STRBUF_INIT,
	};
	int err = 0;

	memset(st, 0, sizeof(*st));
	st->listed = env->nr_build_ids;
	/* another user's result (as root), or links out of it: refused */
	err = pd_result_dir__check(dir, cause);
	if (err)
		return err;
	ar.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ar.dfd < 0)
		return gx_fail(cause, -errno, "%s: %s", gx_esc(dir), strerror(errno));
	for (size_t i = 0; i < env->nr_build_ids && !err; i++) {
		const struct pd_build_id *b = &env->build_ids[i];

		if (o->stop && o->stop(o->ctx))
			break;
		if (!b->filename || b->filename[0] != '/' || !b->size)
			continue;	/* the kernel, [vdso]: not files */
		if (seen_before(env, i))
			continue;
		err = archive_one(&ar, b, cause);
	}
	if (ar.nr_over)
		warn(o, "%zu file%s not archived, over the %" PRIu64 " MiB cap (--archive-max): %s",
		     ar.nr_over, ar.nr_over == 1 ? "" : "s", o->max_bytes >> 20, ar.over.buf);
	strbuf__exit(&ar.over);
	close(ar.dfd);
	return err;
}

int pd_archive_file(const char *data, const char *dir, const struct pd_archive_opts *o,
		    struct pd_archive_stats *st, char **cause)
{
	struct perf_reader *r;
	int err;

	memset(st, 0, sizeof(*st));
	err = perf_reader__open(&r, data, PD_REGULAR, cause);	/* a FIFO is never waited on */
	if (err)
		return err;
	err = pd_archive(dir, perf_reader__env(r), o, st, cause);
	perf_reader__delete(r);
	return err;
}
