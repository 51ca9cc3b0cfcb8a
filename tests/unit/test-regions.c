/*
 * test-regions: regions.bin (src/perfdata/regions.c) written and read
 * back — counts, lost markers, long names, a file whose recording was
 * killed (zero counts, a torn last record), not a regions file — and the
 * matching of begins and ends into instances (src/result/regions.c):
 * nesting, an end with no begin open, a thread that never ends its
 * region, the same name on two threads, and the per-thread lookup.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "perfdata/perfdata.h"
#include "result/result-int.h"
#include "util/util.h"

static char dir[] = "/tmp/gx-regions-XXXXXX";

#define BAIL_OUT(...) do { diag(__VA_ARGS__); exit(1); } while (0)
static char path[4096];

struct mk {
	uint64_t time;
	uint32_t tid;
	uint16_t kind, depth;
	const char *name;
};

static void write_file(const struct mk *v, size_t n, uint64_t lost)
{
	struct pd_regions_writer *w;
	char *cause = NULL;

	if (pd_regions_writer__new(&w, AT_FDCWD, path, &cause) != 0)
		BAIL_OUT("%s", cause);
	for (size_t i = 0; i < n; i++)
		if (pd_regions_writer__add(w, v[i].time, 7, v[i].tid, v[i].kind, v[i].depth,
					   v[i].name) != 0)
			BAIL_OUT("add");
	if (pd_regions_writer__finish(w, lost, &cause) != 0)
		BAIL_OUT("%s", cause);
	pd_regions_writer__delete(w);
}

static const struct gx_region *inst(const struct gx_regions *g, const char *name, uint32_t tid,
				    size_t nth)
{
	for (size_t i = 0; i < gx_regions__nr(g); i++) {
		const struct gx_region *x = gx_regions__get(g, i);

		if (!strcmp(x->name, name) && x->tid == tid && !nth--)
			return x;
	}
	return NULL;
}

static void test_file(void)
{
	char longname[200];
	const struct mk v[] = {
		{ 100, 1, PD_MARK_BEGIN, 1, "a" }, { 200, 1, PD_MARK_POINT, 1, "tick" },
		{ 300, 1, PD_MARK_END, 1, "a" },
	};
	struct pd_marker *m;
	size_t n;
	uint64_t lost;
	char *cause = NULL;
	FILE *f;

	write_file(v, 3, 5);
	is_int(pd_regions__read(path, &m, &n, &lost, &cause), 0, "read back");
	is_int((long)n, 3, "three markers");
	is_int((long)lost, 5, "lost markers from the header");
	ok(m[1].time == 200 && m[1].kind == PD_MARK_POINT && m[1].pid == 7 && m[1].tid == 1 &&
	   !strcmp(m[1].name, "tick"), "a marker's fields");
	free(m);

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	write_file(&(struct mk){ 1, 1, PD_MARK_POINT, 0, longname }, 1, 0);
	pd_regions__read(path, &m, &n, &lost, &cause);
	is_int((long)strlen(m[0].name), PD_REGIONS_NAME - 1, "a long name is cut to %d bytes",
	       PD_REGIONS_NAME - 1);
	free(m);

	/* killed: the header's counts are zero and the last record torn */
	write_file(v, 3, 0);
	f = fopen(path, "r+");
	fseek(f, 16, SEEK_SET);
	fwrite("\0\0\0\0\0\0\0\0", 1, 8, f);	/* nr = 0 */
	fclose(f);
	if (truncate(path, 64 + 3 * 128 - 10) != 0)
		BAIL_OUT("truncate");
	is_int(pd_regions__read(path, &m, &n, &lost, &cause), 0, "a killed recording's file reads");
	is_int((long)n, 2, "... to its last whole record");
	free(m);

	f = fopen(path, "w");
	fputs("not regions at all, not at all, not at all, not at all, not at all", f);
	fclose(f);
	is_int(pd_regions__read(path, &m, &n, &lost, &cause), GX_E_FORMAT, "not a regions file");
	ok(cause && strstr(cause, "is not a regions file"), "... said (%s)", cause);
	free(cause);
	cause = NULL;
	unlink(path);
	is_int(pd_regions__read(path, &m, &n, &lost, &cause), -ENOENT, "no file: -ENOENT");
}

static void test_matching(void)
{
	/* thread 1: outer { inner { } } then a stray end; thread 2: work
	 * twice, the second never ended; thread 3: an end first, then a
	 * region nested in itself */
	const struct mk v[] = {
		{ 100, 1, PD_MARK_BEGIN, 1, "outer" }, { 110, 2, PD_MARK_BEGIN, 1, "work" },
		{ 120, 1, PD_MARK_BEGIN, 2, "inner" }, { 130, 3, PD_MARK_END, 1, "ghost" },
		{ 140, 2, PD_MARK_END, 1, "work" }, { 150, 1, PD_MARK_END, 2, "inner" },
		{ 160, 3, PD_MARK_BEGIN, 1, "rec" }, { 170, 3, PD_MARK_BEGIN, 2, "rec" },
		{ 180, 1, PD_MARK_END, 1, "outer" }, { 185, 2, PD_MARK_BEGIN, 1, "work" },
		{ 190, 1, PD_MARK_END, 0, "stray" }, { 200, 3, PD_MARK_END, 2, "rec" },
		{ 210, 3, PD_MARK_END, 1, "rec" }, { 220, 2, PD_MARK_POINT, 1, "tick" },
	};
	const struct gx_region *x;
	struct gx_regions *g;
	char *cause = NULL;
	size_t idx;

	write_file(v, ARRAY_SIZE(v), 0);
	is_int(gx_regions__load(&g, dir, 1000, &cause), 0, "load");
	is_int((long)gx_regions__nr_markers(g), ARRAY_SIZE(v), "every marker kept");
	is_int((long)gx_regions__nr(g), 6, "six instances (ends without a begin make none)");
	x = inst(g, "outer", 1, 0);
	ok(x && x->begin == 100 && x->end == 180 && x->depth == 1 && !x->unended,
	   "outer: 100..180");
	x = inst(g, "inner", 1, 0);
	ok(x && x->begin == 120 && x->end == 150 && x->depth == 2, "nested inner: 120..150");
	x = inst(g, "work", 2, 0);
	ok(x && x->begin == 110 && x->end == 140 && !x->unended, "work, first: 110..140");
	x = inst(g, "work", 2, 1);
	ok(x && x->begin == 185 && x->end == 1000 && x->unended,
	   "work never ended: ends with the recording (1000)");
	x = inst(g, "rec", 3, 0);
	ok(x && x->begin == 160 && x->end == 210, "rec: an end closes the innermost begin");
	x = inst(g, "rec", 3, 1);
	ok(x && x->begin == 170 && x->end == 200, "rec nested in itself: 170..200");
	ok(!inst(g, "ghost", 3, 0) && !inst(g, "stray", 1, 0), "stray ends are ignored");

	is_int(gx_regions__find(g, "work", &idx), 0, "find work");
	ok(gx_regions__name(g, idx)->instances == 2 && gx_regions__name(g, idx)->threads == 1,
	   "work: two instances on one thread");
	ok(gx_regions__contains(g, idx, 2, 120) && !gx_regions__contains(g, idx, 2, 160) &&
	   gx_regions__contains(g, idx, 2, 900) && !gx_regions__contains(g, idx, 1, 120),
	   "contains: per thread and time, the unended one to the end");
	gx_regions__find(g, "rec", &idx);
	ok(gx_regions__name(g, idx)->total_ns == 50 + 30 && gx_regions__contains(g, idx, 3, 205),
	   "rec: overlapping instances merged for the lookup");
	is_int(gx_regions__find(g, "nope", &idx), -ENOENT, "an unknown name: -ENOENT");
	gx_regions__delete(g);

	/* end_ns 0: an unended region ends at its thread's last marker */
	is_int(gx_regions__load(&g, dir, 0, &cause), 0, "load without an end time");
	x = inst(g, "work", 2, 1);
	ok(x && x->end == 220, "work never ended: ends at its thread's last marker (220)");
	gx_regions__delete(g);

	unlink(path);
	is_int(gx_regions__load(&g, dir, 0, &cause), 0, "no regions.bin: not an error");
	ok(!g, "... and no regions");
}

/* A symlink planted where regions.bin goes is replaced, never followed,
 * and the file is private (0600) like the rest of the result. */
static void test_symlink(void)
{
	char target[4200];
	struct stat st;
	int fd;

	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	ok(symlink(target, path) == 0, "a symlink planted where regions.bin goes");
	write_file((const struct mk[]){ { 100, 1, PD_MARK_BEGIN, 1, "a" } }, 1, 0);
	ok(stat(target, &st) == 0 && st.st_size == 0, "its target is untouched");
	ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "regions.bin is a file of its own");
	is_int((int)(st.st_mode & 07777), 0600, "regions.bin is 0600");
	unlink(target);
	unlink(path);
}

int main(void)
{
	if (!mkdtemp(dir))
		BAIL_OUT("mkdtemp");
	snprintf(path, sizeof(path), "%s/" PD_REGIONS_FILE, dir);
	test_symlink();
	test_file();
	test_matching();
	unlink(path);
	rmdir(dir);
	return done_testing();
}
