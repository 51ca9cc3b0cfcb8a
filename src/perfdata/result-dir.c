/*
 * The result directory: gx001, gx002, ... (like VTune's r000ge), or the
 * directory -o names. Commands that read a result default to the newest.
 */
#include "config.h"

#include "perfdata.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

/* The number N of a name "gxNNN" (three or more digits), or -1. */
static long result_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "gx", 2) != 0 || strlen(name) < 5)
		return -1;
	for (const char *p = name + 2; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	n = strtol(name + 2, &end, 10);
	return *end ? -1 : n;
}

/* Highest gxNNN number under parent (0 when none), and its name. */
static long newest_result(const char *parent, char **name_out)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	long best = 0;

	if (name_out)
		*name_out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long n = result_number(de->d_name);

		if (n > best) {
			best = n;
			if (name_out) {
				free(*name_out);
				*name_out = xstrdup(de->d_name);
			}
		}
	}
	closedir(d);
	return best;
}

/* Whether the directory open at fd holds nothing but . and .. */
static bool fd_is_empty(int fd)
{
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	bool empty = true;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return false;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

/*
 * Open the directory path and take its lock (flock, exclusive, not
 * waiting): a second gexplore writing there fails here. Then, unless
 * reuse, it must be empty: checked under the lock, so no other run can
 * fill it between the check and the use; and it is made private (0700)
 * like one mkdir made, since an empty directory the user made may be
 * open to others and the result will hold their program's memory.
 */
static int open_locked(const char *path, bool reuse, int *fd_out, char **cause)
{
	/* never through a link: one planted in a shared directory (where
	 * protected_symlinks is 0) would aim the result anywhere */
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err;

	if (fd < 0 && errno == ELOOP)
		return gx_fail(cause, -ELOOP, "%s is a symbolic link: not followed (nothing written "
			       "through it); -o names the result directory itself", gx_esc(path));
	if (fd < 0) {
		if (errno == ENOTDIR)
			return gx_fail(cause, -ENOTDIR, "%s exists and is not a directory; "
				       "-o names the result directory to create", path);
		return gx_fail(cause, -errno, "cannot open result directory %s: %s", path,
			       strerror(errno));
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		err = errno == EWOULDBLOCK ?
		      gx_fail(cause, -EBUSY, "result directory %s is being written by another "
			      "gexplore; name another with -o", path) :
		      gx_fail(cause, -errno, "cannot lock result directory %s: %s", path,
			      strerror(errno));
		close(fd);
		return err;
	}
	if (!reuse && !fd_is_empty(fd)) {
		close(fd);
		return gx_fail(cause, -EEXIST, "result directory %s exists and is not empty; "
			       "overwrite it with -f (--force), remove it or name another with -o",
			       path);
	}
	/* the result this one replaces ends here: renaming the new meta.json
	 * over the old one made ext4 write the new one out there and then
	 * (auto_da_alloc), 1 to 2 ms of every forced record (issue 26, part 4) */
	if (reuse)
		unlinkat(fd, "meta.json", 0);
	if (!reuse && fchmod(fd, 0700) != 0) {
		err = gx_fail(cause, -errno, "cannot make result directory %s private (mode "
			      "0700): %s; name one of your own with -o", path, strerror(errno));
		close(fd);
		return err;
	}
	*fd_out = fd;
	return 0;
}

int pd_result_dir__create(const char *dir, const char *parent, unsigned flags,
			  char **path_out, int *dirfd_out, char **cause)
{
	char *path;
	int err, fd = -1;

	*path_out = NULL;
	if (dirfd_out)
		*dirfd_out = -1;
	if (dir) {
		char *bare = xstrdup(dir);
		size_t n = strlen(bare);
		struct stat lst;
		bool link;

		while (n > 1 && bare[n - 1] == '/')	/* "link/" would follow it */
			bare[--n] = 0;
		link = lstat(bare, &lst) == 0 && S_ISLNK(lst.st_mode);
		free(bare);
		if (link)
			return gx_fail(cause, -ELOOP, "%s is a symbolic link: not followed (nothing "
				       "written through it); -o names the result directory itself",
				       gx_esc(dir));
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return gx_fail(cause, -errno, "cannot create result directory %s: %s", dir,
				       strerror(errno));
		path = xstrdup(dir);
	} else {
		if (!parent)
			parent = ".";
		/* Next free number; mkdir's EEXIST settles a race with another run. */
		for (long n = newest_result(parent, NULL) + 1;; n++) {
			path = strcmp(parent, ".") ? xasprintf("%s/gx%03ld", parent, n)
						   : xasprintf("gx%03ld", n);
			if (mkdir(path, 0700) == 0)
				break;
			free(path);
			if (errno != EEXIST)
				return gx_fail(cause, -errno,
					       "cannot create a result directory in %s: %s",
					       parent, strerror(errno));
		}
	}
	err = open_locked(path, flags & PD_RESULT_DIR_REUSE, &fd, cause);
	if (err) {
		free(path);
		return err;
	}
	if (dirfd_out)
		*dirfd_out = fd;
	else
		close(fd);
	*path_out = path;
	return 0;
}

void pd_result_dir__discard(int dirfd, const char *path)
{
	/* flow.json and model.terms: a modelled run's (src/model) */
	static const char *const names[] = { "perf.data", "meta.json", ".meta.json.tmp",
					     "slices.bin", PD_REGIONS_FILE, PD_OFFCPU_FILE,
					     "flow.json", "model.terms" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		unlinkat(dirfd, names[i], 0);
	rmdir(path);	/* only when nothing else is in it */
}

static bool any_owner;

void pd_result_dir__set_any_owner(bool any)
{
	any_owner = any;
}

/* As root: whether uid is root's or the invoking user's. */
static bool owner_ok(uid_t uid)
{
	const char *sudo = getenv("SUDO_UID");
	char *end;
	long v;

	if (geteuid() != 0 || any_owner || uid == 0 || uid == getuid())
		return true;
	if (!sudo || !*sudo)
		return false;
	v = strtol(sudo, &end, 10);
	return !*end && v >= 0 && (uid_t)v == uid;
}

/* As root, a directory (or file) st at path that another user controls:
 * the one-line refusal, else 0. */
static int refuse_foreign(const char *path, const struct stat *st, char **cause)
{
	if (geteuid() != 0 || any_owner)
		return 0;
	if (!owner_ok(st->st_uid))
		return gx_fail(cause, -EPERM, "%s is owned by uid %u, neither root nor you: not "
			       "read as root (its links could aim anywhere); --any-owner reads it "
			       "all the same", gx_esc(path), (unsigned)st->st_uid);
	if (S_ISDIR(st->st_mode) && (st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(st->st_mode & S_ISVTX))
		return gx_fail(cause, -EPERM, "%s is writable by other users (mode %04o): not read "
			       "as root; --any-owner reads it all the same", gx_esc(path),
			       (unsigned)(st->st_mode & 07777));
	return 0;
}

/* refuse_foreign of dir/rel */
static int refuse_foreign_at(const char *dir, const char *rel, const struct stat *st,
			     char **cause)
{
	char *path = xasprintf("%s/%s", dir, rel);
	int err = refuse_foreign(path, st, cause);

	free(path);
	return err;
}

/* A link at rel under dfd (dir's): the refusal, else 0. */
static int refuse_link(int dfd, const char *dir, const char *rel, struct stat *st, char **cause)
{
	if (fstatat(dfd, rel, st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? -ENOENT : 0;	/* unreadable: its open says why */
	if (S_ISLNK(st->st_mode))
		return gx_fail(cause, -ELOOP, "%s/%s is a symbolic link: a result's files are "
			       "never followed out of it", gx_esc(dir), gx_esc(rel));
	return 0;
}

/* The .build-id tree under dfd: no link in its first three levels, its
 * directories owned as the result's must be (as root). */
static int check_build_ids(int dfd, const char *dir, char **cause)
{
	struct stat st;
	int err, fd;
	DIR *d;
	struct dirent *de;

	err = refuse_link(dfd, dir, ".build-id", &st, cause);
	if (err == -ENOENT)
		return 0;
	if (err || !S_ISDIR(st.st_mode))
		return err;
	fd = openat(dfd, ".build-id", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* unreadable: nothing is read from it either */
	if (!(d = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	while (!err && (de = readdir(d))) {
		char *rel;
		int sfd;
		DIR *sd;
		struct dirent *se;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		rel = xasprintf(".build-id/%s", de->d_name);
		err = refuse_link(dfd, dir, rel, &st, cause);
		if (!err && S_ISDIR(st.st_mode))
			err = refuse_foreign_at(dir, rel, &st, cause);
		if (err || !S_ISDIR(st.st_mode)) {
			free(rel);
			err = err == -ENOENT ? 0 : err;
			continue;
		}
		sfd = openat(dfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		sd = sfd >= 0 ? fdopendir(sfd) : NULL;
		if (!sd && sfd >= 0)
			close(sfd);
		while (!err && sd && (se = readdir(sd))) {
			char *r2;

			if (!strcmp(se->d_name, ".") || !strcmp(se->d_name, ".."))
				continue;
			r2 = xasprintf("%s/%s", rel, se->d_name);
			err = refuse_link(dfd, dir, r2, &st, cause);
			if (!err && S_ISDIR(st.st_mode)) {
				err = refuse_foreign_at(dir, r2, &st, cause);
				for (int k = 0; !err && k < 2; k++) {	/* its elf, its debug */
					char *r3 = xasprintf("%s/%s", r2, k ? "debug" : "elf");

					err = refuse_link(dfd, dir, r3, &st, cause);
					free(r3);
					err = err == -ENOENT ? 0 : err;
				}
			}
			err = err == -ENOENT ? 0 : err;
			free(r2);
		}
		if (sd)
			closedir(sd);
		free(rel);
	}
	closedir(d);
	return err;
}

int pd_result_dir__check(const char *dir, char **cause)
{
	static const char *const files[] = { "perf.data", "meta.json", "slices.bin",
					     PD_REGIONS_FILE, PD_OFFCPU_FILE };
	struct stat st;
	int dfd, err = 0;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;	/* what stops it being read is said by its open */
	if (fstat(dfd, &st) == 0)
		err = refuse_foreign(dir, &st, cause);
	for (size_t i = 0; !err && i < ARRAY_SIZE(files); i++) {
		err = refuse_link(dfd, dir, files[i], &st, cause);
		if (err == -ENOENT)
			err = 0;
	}
	if (!err)
		err = check_build_ids(dfd, dir, cause);
	close(dfd);
	return err;
}

/* Why the result directory path is not one to open by default (NULL: it
 * is): empty, still being recorded, cut short, another user's (as root),
 * a link out of it. Allocated. */
static char *not_whole(const char *path)
{
	struct gx_meta m;
	char *data, *why = NULL, *cause = NULL;
	int fd, err;

	if (pd_result_dir__check(path, &cause) != 0) {
		why = cause;	/* "PATH is ...": the reason, with the path */
		return why;
	}
	data = xasprintf("%s/perf.data", path);
	fd = gx_open_regular(data, NULL, &cause);
	/* a FIFO, a device or an unreadable file is skipped, never waited on */
	if (fd == -ENOENT)
		why = xstrdup("no perf.data");
	else if (fd < 0)
		why = xasprintf("perf.data: %s", fd == -EACCES ? "permission denied" :
				fd == GX_E_FORMAT ? "not a regular file" : gx_strerror(fd));
	else if (pd_result_dir__locked(path))
		why = xstrdup("being recorded");
	if (fd >= 0)
		close(fd);
	free(data);
	free(cause);
	cause = NULL;
	if (why)
		return why;
	gx_meta__init(&m);
	err = gx_meta__read(&m, path, &cause);
	if (err == -ENOENT)
		why = xstrdup("no readable meta.json: cut short?");
	else if (err)
		why = xasprintf("meta.json: %s", err == -EACCES ? "permission denied" :
				err == GX_E_FORMAT ? "not a regular file or not valid JSON" :
				gx_strerror(err));
	else
		why = gx_meta__incomplete(&m);
	free(cause);
	gx_meta__exit(&m);
	return why;
}

/* The newest gxNNN under parent that is whole; those skipped on the way
 * are named in *note. */
static int newest_whole(const char *parent, char **dir_out, char **note)
{
	struct strbuf sb = STRBUF_INIT;
	long n = newest_result(parent, NULL);

	for (; n > 0; n--) {
		char *path = strcmp(parent, ".") ? xasprintf("%s/gx%03ld", parent, n) :
						   xasprintf("gx%03ld", n);
		struct stat st;
		char *why;

		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		why = not_whole(path);
		if (!why) {
			*dir_out = path;
			break;
		}
		strbuf__addf(&sb, "%s%s (%s)", sb.len ? ", " : "skipped ", path, why);
		free(why);
		free(path);
	}
	if (sb.len && note) {
		strbuf__addstr(&sb, n > 0 ? "; named, it opens all the same" : "");
		*note = strbuf__detach(&sb);
	}
	strbuf__exit(&sb);
	return n > 0 ? 0 : -ENOENT;
}

int pd_result_dir__resolve(const char *arg, const char *parent, char **dir_out, char **data_out,
			   char **note, char **cause)
{
	struct stat st;
	int fd;

	*dir_out = *data_out = NULL;
	if (note)
		*note = NULL;
	if (!parent)
		parent = ".";
	if (!arg) {
		char *skipped = NULL;

		if (newest_whole(parent, dir_out, &skipped) != 0) {
			int err = gx_fail(cause, -ENOENT,
				       "no %sresult in %s (gx001, gx002, ...)%s%s: record one with "
				       "'gexplore record -- CMD', or name a result or a perf.data file",
				       skipped ? "whole " : "",
				       strcmp(parent, ".") ? parent : "the current directory",
				       skipped ? "; " : "", skipped ? skipped : "");

			free(skipped);
			return err;
		}
		if (note)
			*note = skipped;
		else
			free(skipped);
		*data_out = xasprintf("%s/perf.data", *dir_out);
		return 0;
	}
	if (strcmp(arg, "-") == 0) {	/* perf.data in pipe mode on stdin */
		*data_out = xstrdup("-");
		return 0;
	}
	if (stat(arg, &st) != 0)
		return gx_fail(cause, -errno, "%s: %s", arg, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		int err = pd_result_dir__check(arg, cause);

		if (err)
			return err;
		*dir_out = xstrdup(arg);
		*data_out = xasprintf("%s/perf.data", arg);
		/* what stops it being read: absent, permission denied, a FIFO */
		fd = gx_open_regular(*data_out, NULL, cause);
		if (fd >= 0) {
			close(fd);
		} else {
			err = fd == -ENOENT ?
			      gx_fail(cause, -ENOENT, "%s: not a gexplore result (no perf.data "
				      "in it)", arg) : fd;
			free(*dir_out);
			free(*data_out);
			*dir_out = *data_out = NULL;
			return err;
		}
		return 0;
	}
	/* a bare perf.data is the file named, read as it is (perf's own, a
	 * fixture of another user's checkout): no owner to check */
	*data_out = xstrdup(arg);
	return 0;
}

bool pd_result_dir__locked(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool locked;

	if (fd < 0)
		return false;
	locked = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return locked;
}
