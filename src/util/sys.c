#include "config.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t gx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

char *gx_read_file(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	ssize_t n;

	if (fd < 0)
		return NULL;
	while (sb.len < max && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			strbuf__exit(&sb);
			return NULL;
		}
		strbuf__add(&sb, buf, (size_t)n);
	}
	close(fd);
	return strbuf__detach(&sb);
}

const char *gx_file_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	default: return "not a regular file";
	}
}

int gx_open_regular(const char *path, uint64_t *size_out, char **cause)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;
	struct stat st;

	if (size_out)
		*size_out = 0;
	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			return gx_fail(cause, -ENOENT, "%s: no such file", path);
		return gx_fail(cause, -err, "%s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) != 0) {
		err = errno;
		close(fd);
		return gx_fail(cause, -err, "%s: %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		if (S_ISDIR(st.st_mode))
			return gx_fail(cause, -EISDIR, "%s is a directory, not a file", path);
		return gx_fail(cause, GX_E_FORMAT, "%s is %s, not a regular file: not read",
			       path, gx_file_kind(st.st_mode));
	}
	if (size_out)
		*size_out = (uint64_t)st.st_size;
	return fd;
}

int gx_open_regular_nofollow(const char *path, uint64_t *size_out, char **cause)
{
	struct stat ls, fs;
	int fd = gx_open_regular(path, size_out, cause);

	if (fd < 0)
		return fd;
	/* named again, not followed: a link, or another file now */
	if (lstat(path, &ls) != 0 || fstat(fd, &fs) != 0 || S_ISLNK(ls.st_mode) ||
	    ls.st_dev != fs.st_dev || ls.st_ino != fs.st_ino) {
		close(fd);
		return gx_fail(cause, -ELOOP, "%s is a symbolic link, or was replaced while "
			       "opened: not followed", gx_esc(path));
	}
	return fd;
}

char *gx_read_regular(const char *path, size_t max, size_t *len_out, int *err_out,
		      char **cause)
{
	uint64_t size;
	int fd = gx_open_regular(path, &size, cause);

	if (len_out)
		*len_out = 0;
	*err_out = 0;
	if (fd < 0) {
		*err_out = fd;
		return NULL;
	}
	return gx_read_fd(fd, path, size, max, len_out, err_out, cause);
}

char *gx_read_fd(int fd, const char *path, uint64_t size, size_t max, size_t *len_out,
		 int *err_out, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	ssize_t n;

	if (len_out)
		*len_out = 0;
	*err_out = 0;
	if (size > max)
		goto too_big;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			*err_out = gx_fail(cause, -errno, "%s: cannot read: %s", path,
					   strerror(errno));
			goto fail;
		}
		if (sb.len + (size_t)n > max)
			goto too_big;	/* it grew while read */
		strbuf__add(&sb, buf, (size_t)n);
	}
	close(fd);
	if (len_out)
		*len_out = sb.len;
	return strbuf__detach(&sb);
too_big:
	*err_out = gx_fail(cause, GX_E_FORMAT, "%s: larger than the %zu bytes such a file may "
			   "hold: not read", path, max);
fail:
	close(fd);
	strbuf__exit(&sb);
	return NULL;
}

bool gx_cpulist_next(const char **s, long *lo, long *hi)
{
	const char *p = *s;
	char *end;

	if (!p || !*p || *p == '\n')
		return false;
	*lo = *hi = strtol(p, &end, 10);
	if (end == p)
		return false;
	if (*end == '-')
		*hi = strtol(end + 1, &end, 10);
	*s = *end == ',' ? end + 1 : "";
	return true;
}

/* write() when off is NO_OFF, else pwrite() at off onwards. */
#define NO_OFF UINT64_MAX

static int write_all_at(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = off == NO_OFF ? write(fd, p, len) : pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
		if (off != NO_OFF)
			off += (uint64_t)n;
	}
	return 0;
}

int gx_write_all(int fd, const void *buf, size_t len)
{
	return write_all_at(fd, buf, len, NO_OFF);
}

int gx_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	return write_all_at(fd, buf, len, off);
}

int gx_create_at(int dirfd, const char *name)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(dirfd, name, flags, 0600);

	if (fd < 0 && errno == EEXIST && unlinkat(dirfd, name, 0) == 0)
		fd = openat(dirfd, name, flags, 0600);
	return fd < 0 ? -errno : fd;
}

const char *gx_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t == '/' ? t : "/tmp";
}

/* May this user make files in dir (write and enter it)? */
static bool writable_dir(const char *dir)
{
	return access(dir, W_OK | X_OK) == 0;
}

/*
 * The per-user fallback under $TMPDIR (else /tmp): made 0700 when missing,
 * and used only when it is a directory (not a link) of this user's that
 * no one else may enter; in a world-writable directory the name may have
 * been taken first by someone else.
 */
static char *tmp_cache_dir(void)
{
	char *dir = xasprintf("%s/gexplore-cache-%u", gx_tmpdir(), (unsigned)geteuid());
	struct stat st;

	if ((mkdir(dir, 0700) != 0 && errno != EEXIST) || lstat(dir, &st) != 0 ||
	    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		free(dir);
		return NULL;
	}
	return dir;
}

char *gx_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir;

	if (xdg && *xdg)
		return xasprintf("%s/gexplore", xdg);
	if (home && *home) {
		/* a home that is not there or not this user's to write in
		 * (nobody's /nonexistent, a daemon's /) keeps no cache: every
		 * record calibrated its sample cost again, 100 ms and more
		 * (issue 26, part 4) */
		dir = xasprintf("%s/.cache", home);
		if (writable_dir(dir) || (access(dir, F_OK) != 0 && writable_dir(home))) {
			free(dir);
			return xasprintf("%s/.cache/gexplore", home);
		}
		free(dir);
	}
	return tmp_cache_dir();
}

int gx_mkdir_p(const char *dir)
{
	char *d = xstrdup(dir);
	int err = 0;

	for (char *p = d + 1; *p && !err; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(d, 0755) != 0 && errno != EEXIST)
			err = -errno;
		*p = '/';
	}
	if (!err && mkdir(d, 0755) != 0 && errno != EEXIST)
		err = -errno;
	free(d);
	return err;
}

int gx_replace_file(const char *path, const void *data, size_t len)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *tmp = NULL;
	int fd, err = 0;

	if (slash && slash != dir) {
		*slash = '\0';
		err = gx_mkdir_p(dir);
		if (err)
			goto out;
	}
	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = gx_write_all(fd, data, len);
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) != 0)
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(tmp);
	free(dir);
	return err;
}

/* sysfs's size of a cache ("32K", "1024K", "32M"), in bytes */
static uint64_t sysfs_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'G')
		v <<= 30;
	return (uint64_t)v;
}

/* dir/name read whole (at most max bytes), its trailing blanks cut; NULL
 * when absent. */
static char *sysfs_read(const char *dir, const char *name, size_t max)
{
	char *p = xasprintf("%s/%s", dir, name), *t = gx_read_file(p, max);
	size_t n = t ? strlen(t) : 0;

	free(p);
	while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
		t[--n] = '\0';
	return t;
}

int gx_sysfs_caches(const char *dir, struct gx_sysfs_cache *out, int max)
{
	int n = 0;

	for (int i = 0; i < 16 && n < max; i++) {
		char *d = xasprintf("%s/index%d", dir, i), *lvl = sysfs_read(d, "level", 64), *s;
		struct gx_sysfs_cache *c = &out[n];
		long lo, hi;
		const char *l;

		if (!lvl) {	/* indexes may skip one (a CPU's offline cache) */
			free(d);
			continue;
		}
		memset(c, 0, sizeof(*c));
		c->level = atoi(lvl);
		free(lvl);
		s = sysfs_read(d, "type", 64);
		snprintf(c->type, sizeof(c->type), "%s", s ? s : "");
		free(s);
		s = sysfs_read(d, "size", 64);
		c->size = s ? sysfs_size(s) : 0;
		free(s);
		s = sysfs_read(d, "ways_of_associativity", 64);
		c->ways = s ? (unsigned)strtoul(s, NULL, 10) : 0;
		free(s);
		s = sysfs_read(d, "coherency_line_size", 64);
		c->line = s ? (unsigned)strtoul(s, NULL, 10) : 0;
		free(s);
		s = sysfs_read(d, "shared_cpu_list", 1024);
		c->shared = s ? 0 : 1;
		for (l = s; l && gx_cpulist_next(&l, &lo, &hi);)
			c->shared += (int)(hi - lo + 1);
		if (s && !c->shared)
			c->shared = 1;
		free(s);
		free(d);
		n++;
	}
	return n;
}

const char *gx_data_dir(const char *env, const char *src, const char *installed)
{
	const char *e = getenv(env);
	struct stat st;

	if (e && *e)
		return e;
	if (stat(src, &st) == 0 && S_ISDIR(st.st_mode))
		return src;
	return installed;
}

char *gx_beside_self(const char *name)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = 0;
	slash = strrchr(self, '/');
	return slash ? xasprintf("%.*s/%s", (int)(slash - self), self, name) : NULL;
}
