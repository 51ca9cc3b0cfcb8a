#include "config.h"

#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

static void test_errors(void)
{
	char *cause = NULL;

	is_str(gx_strerror(GX_E_TRUNCATED), "truncated input", "project code text");
	is_str(gx_strerror(-ENOENT), strerror(ENOENT), "errno text");
	is_str(gx_strerror(GX_E_LAST_), "unknown error", "out of range");
	is_int(gx_fail(&cause, -EINVAL, "bad %s", "thing"), -EINVAL, "gx_fail returns err");
	is_str(cause, "bad thing", "gx_fail sets cause");
	gx_fail(&cause, -EIO, "second");
	is_str(cause, "second", "gx_fail replaces cause");
	free(cause);
	is_int(gx_fail(NULL, -EIO, "x"), -EIO, "NULL cause allowed");
}

/* A library opened when first needed: its errors name the package, in one
 * line; libelf's table (lazy-elf.c) works in a program that links no
 * libelf, with its version set by gx_libelf__open. */
static void test_lazylib(void)
{
	static const char *const absent_names[] = { "gx_absent" };
	static const char *const elf_names[] = { "elf_version", "gx_no_such_function" };
	void *fns[2];
	struct gx_lazylib absent = { .soname = "libgx-absent.so.9", .package = "gx-absent9",
				     .names = absent_names, .fns = fns, .nr = 1 };
	struct gx_lazylib short_elf = { .soname = "libelf.so.1", .package = "libelf1",
					.names = elf_names, .fns = fns, .nr = 2 };
	char *cause = NULL;
	Elf *e = NULL;
	int fd;

	is_int(gx_lazylib__open(&absent, &cause), GX_E_NOTSUP, "a missing library: GX_E_NOTSUP");
	ok(cause && strstr(cause, "libgx-absent.so.9") &&
	   strstr(cause, "install the Debian package gx-absent9") && !strchr(cause, '\n'),
	   "... one line naming it and its package");
	ok(!absent.handle, "... nothing kept");
	free(cause);
	cause = NULL;
	is_int(gx_lazylib__open(&short_elf, &cause), GX_E_NOTSUP, "a missing symbol: GX_E_NOTSUP");
	ok(cause && strstr(cause, "gx_no_such_function") && strstr(cause, "libelf1"),
	   "... naming the symbol and the package");
	free(cause);
	cause = NULL;

	is_int(gx_libelf__open(&cause), 0, "libelf opened");
	is_int(gx_libelf__open(&cause), 0, "... and again (once)");
	ok(!cause, "... no message");
	is_int((int)elf_version(EV_NONE), EV_CURRENT, "... its version set to EV_CURRENT");
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		e = elf_begin(fd, ELF_C_READ, NULL);
	ok(e && elf_kind(e) == ELF_K_ELF, "elf_begin and elf_kind through the table: this test is ELF");
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
}

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	strbuf__addstr(&sb, "abc");
	strbuf__addf(&sb, "-%d-", 42);
	for (int i = 0; i < 1000; i++)
		strbuf__add(&sb, "x", 1);
	is_int(sb.len, 3 + 4 + 1000, "length");
	ok(strncmp(sb.buf, "abc-42-xx", 9) == 0, "content");
	s = strbuf__detach(&sb);
	ok(sb.buf == NULL && sb.len == 0, "detach resets");
	free(s);
	s = strbuf__detach(&sb);
	is_str(s, "", "empty detach");
	free(s);
}

static void test_u64map(void)
{
	struct u64map m;
	int bad = 0;

	u64map__init(&m);
	ok(u64map__find(&m, 1) == NULL, "empty find");
	for (uint64_t k = 0; k < 100000; k++)
		*u64map__findnew(&m, k * 7919, 0) += k;
	for (uint64_t k = 0; k < 100000; k++) {
		uint64_t *v = u64map__find(&m, k * 7919);

		if (!v || *v != k)
			bad++;
	}
	is_int(bad, 0, "100000 keys round-trip");
	is_int(m.nr, 100000, "count");
	ok(u64map__find(&m, 3) == NULL, "absent key");
	u64map__exit(&m);
}

static void test_strtab(void)
{
	struct strtab t;
	uint32_t a, b, c;
	char name[32];
	int bad = 0;

	strtab__init(&t);
	a = strtab__intern(&t, "main");
	b = strtab__intern(&t, "worker");
	c = strtab__intern_n(&t, "mainly", 4);
	is_int(a, c, "same string same id");
	ok(a != b, "different strings differ");
	is_str(strtab__str(&t, b), "worker", "lookup");
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "sym%d", i);
		if (strtab__intern(&t, name) != (uint32_t)i + 2)
			bad++;
	}
	is_int(bad, 0, "ids are dense and stable across rehash");
	is_int(strtab__intern(&t, "worker"), b, "stable after growth");
	strtab__exit(&t);
}

static void test_u32seq(void)
{
	struct u32seq t;
	uint32_t abc[] = { 1, 2, 3 }, ab[] = { 1, 2 }, v[3];
	uint32_t a, b, e;
	const uint32_t *got;
	size_t n;
	int bad = 0;

	u32seq__init(&t);
	a = u32seq__intern(&t, abc, 3);
	b = u32seq__intern(&t, ab, 2);
	e = u32seq__intern(&t, NULL, 0);
	is_int(u32seq__intern(&t, abc, 3), a, "same sequence same id");
	ok(a != b && b != e && a != e, "a prefix and the empty sequence differ");
	got = u32seq__get(&t, b, &n);
	ok(n == 2 && got[0] == 1 && got[1] == 2, "lookup");
	u32seq__get(&t, e, &n);
	is_int(n, 0, "the empty sequence");
	for (uint32_t i = 0; i < 5000; i++) {
		v[0] = i;
		v[1] = i * 7;
		v[2] = ~i;
		if (u32seq__intern(&t, v, 3) != i + 3)
			bad++;
	}
	is_int(bad, 0, "ids are dense and stable across rehash");
	got = u32seq__get(&t, 4999 + 3, &n);
	ok(n == 3 && got[0] == 4999 && got[2] == ~4999u, "the last one back");
	is_int(u32seq__intern(&t, ab, 2), b, "stable after growth");
	u32seq__exit(&t);
}

/* The cache directory, and files replaced whole in directories made on the way. */
/* gx_cache_dir without $XDG_CACHE_HOME: the home's when it may be written,
 * else a private directory under $TMPDIR, never one someone else could
 * have made (issue 26, part 4: nobody calibrated on every record). */
static void test_cache_fallback(const char *dir)
{
	char *home = xasprintf("%s/home", dir), *tmp = xasprintf("%s/tmp", dir);
	char *mine = xasprintf("%s/gexplore-cache-%u", tmp, (unsigned)geteuid());
	char *want = xasprintf("%s/.cache/gexplore", home), *p;
	struct stat st;

	mkdir(home, 0700);
	mkdir(tmp, 0700);
	setenv("HOME", home, 1);
	p = gx_cache_dir();
	is_str(p, want, "... else $HOME/.cache/gexplore, where the home may be written");
	free(p);
	setenv("TMPDIR", tmp, 1);
	setenv("HOME", "/nonexistent/gx-test", 1);
	p = gx_cache_dir();
	is_str(p, mine, "... a home that is not there: $TMPDIR/gexplore-cache-UID");
	ok(stat(mine, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	   "... made, mode 0700");
	free(p);
	unsetenv("HOME");
	p = gx_cache_dir();
	is_str(p, mine, "... no HOME: the same, found again");
	free(p);
	rmdir(mine);
	mkdir(mine, 0700);
	chmod(mine, 0755);
	ok(!gx_cache_dir(), "... not when others may enter it (made by someone else first)");
	rmdir(mine);
	ok(symlink(home, mine) == 0, "a link in its place");
	ok(!gx_cache_dir(), "... is not followed");
	unlink(mine);
	if (geteuid() == 0) {
		mkdir(mine, 0700);
		ok(chown(mine, 65534, 65534) == 0, "another user's directory in its place");
		ok(!gx_cache_dir(), "... is not used");
		rmdir(mine);
	} else {
		skip(2, "not root: no other user's directory to plant");
	}
	unsetenv("TMPDIR");
	free(want);
	free(mine);
	free(tmp);
	free(home);
}

static void test_files(void)
{
	char dir[] = "/tmp/gx-test-util-XXXXXX", *p, *q, *text;
	struct stat st;

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	p = gx_cache_dir();
	is_str(p, "/x/cache/gexplore", "cache dir: $XDG_CACHE_HOME/gexplore");
	free(p);
	unsetenv("XDG_CACHE_HOME");
	setenv("TMPDIR", "/some/where", 1);
	is_str(gx_tmpdir(), "/some/where", "TMPDIR is where temporary files go");
	setenv("TMPDIR", "", 1);
	is_str(gx_tmpdir(), "/tmp", "an empty TMPDIR: /tmp");
	setenv("TMPDIR", "rel", 1);
	is_str(gx_tmpdir(), "/tmp", "a relative TMPDIR: /tmp");
	unsetenv("TMPDIR");
	is_str(gx_tmpdir(), "/tmp", "no TMPDIR: /tmp");

	if (!mkdtemp(dir)) {
		skip(20, "no temporary directory");
		return;
	}
	test_cache_fallback(dir);
	p = xasprintf("%s/a/b/c", dir);
	is_int(gx_mkdir_p(p), 0, "mkdir -p of a new path");
	is_int(gx_mkdir_p(p), 0, "... and again, it exists");
	free(p);
	p = xasprintf("%s/d/e/file", dir);
	is_int(gx_replace_file(p, "one\n", 4), 0, "a file written, its directories made");
	is_int(gx_replace_file(p, "two\n", 4), 0, "... and replaced");
	text = gx_read_file(p, 100);
	is_str(text, "two\n", "... holding the new text only");
	free(text);
	free(p);
	p = xasprintf("%s/file", dir);
	q = xasprintf("%s/file/x", dir);	/* a file where a directory must be */
	is_int(gx_replace_file(p, "", 0), 0, "an empty file");
	ok(gx_replace_file(q, "x", 1) < 0 && stat(q, &st) != 0,
	   "a path through a file fails, writes nothing");
	free(q);
	/* a file of a result: itself, never through a link (issue 30) */
	{
		char *link = xasprintf("%s/link", dir), *cause = NULL;
		uint64_t size = 1;
		int fd = gx_open_regular_nofollow(p, &size, &cause);

		ok(fd >= 0 && size == 0, "open no-follow: a regular file opens");
		if (fd >= 0)
			close(fd);
		ok(symlink(p, link) == 0, "a link to it");
		fd = gx_open_regular_nofollow(link, NULL, &cause);
		is_int(fd, -ELOOP, "open no-follow: the link is refused");
		ok(cause && strstr(cause, "is a symbolic link"), "... saying so");
		free(cause);
		free(link);
	}
	free(p);
	p = xasprintf("rm -rf '%s'", dir);
	if (system(p) != 0)
		diag("could not remove %s", dir);
	free(p);
}

static void test_edit_distance(void)
{
	static const struct {
		int line;
		const char *a, *b;
		size_t cap, want;
	} t[] = {
		{ __LINE__, "report", "report", 2, 0 },
		{ __LINE__, "reprot", "report", 2, 1 },	/* a swap is one */
		{ __LINE__, "repot", "report", 2, 1 },
		{ __LINE__, "REPORT", "report", 2, 0 },	/* case-insensitive */
		{ __LINE__, "Retirng", "Retiring", 2, 1 },
		{ __LINE__, "backend_bnd", "Backend_Bound", 2, 2 },
		{ __LINE__, "xyzzy", "report", 2, 3 },	/* over the cap: cap + 1 */
		{ __LINE__, "a", "abcdef", 2, 3 },	/* lengths alone over it */
		{ __LINE__, "", "ab", 2, 2 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_int((long)gx_edit_distance(t[i].a, t[i].b, t[i].cap), (long)t[i].want,
		       "line %d: distance of '%s' and '%s'", t[i].line, t[i].a, t[i].b);
}

int main(void)
{
	test_edit_distance();
	test_errors();
	test_files();
	test_lazylib();
	test_strbuf();
	test_u64map();
	test_strtab();
	test_u32seq();
	return done_testing();
}
