/*
 * test-record: src/record as a library. gx_record() records the workloads
 * in tests/workloads with software events (no PMU needed) and leaves a
 * result directory; what it has to say reaches the notice callback, and
 * not one byte goes to stdout or stderr (only src/cmd prints). Errors come
 * back as codes with a cause and leave no directory behind; record_repeat
 * makes one result a run and refuses a failing workload. Skips when
 * perf_event_open of a software event is not permitted.
 */
#include "config.h"

#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/util.h"
#include "tap.h"

static char *builddir;

static char *wl(const char *name)
{
	return xasprintf("%s/tests/workloads/%s", builddir, name);
}

/* ---- what a recording says -------------------------------------------------------- */

#define MAX_NOTES 64
struct notes {
	size_t n;
	enum record_level level[MAX_NOTES];
	char *msg[MAX_NOTES];
};

static void note(void *arg, enum record_level level, const char *msg)
{
	struct notes *ns = arg;

	if (ns->n < MAX_NOTES) {
		ns->level[ns->n] = level;
		ns->msg[ns->n++] = xstrdup(msg);
	}
}

static void notes__exit(struct notes *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->msg[i]);
	ns->n = 0;
}

/* The first note at level that contains s, or NULL. */
static const char *notes__find(const struct notes *ns, enum record_level level, const char *s)
{
	for (size_t i = 0; i < ns->n; i++)
		if (ns->level[i] == level && strstr(ns->msg[i], s))
			return ns->msg[i];
	return NULL;
}

/* ---- stdout and stderr, caught ---------------------------------------------------- */

struct caught {
	int saved[2];
	char path[64];
	int fd;
};

static void catch_output(struct caught *c)
{
	strcpy(c->path, "caught-XXXXXX");
	fflush(stdout);
	fflush(stderr);
	c->fd = mkstemp(c->path);
	c->saved[0] = dup(1);
	c->saved[1] = dup(2);
	dup2(c->fd, 1);
	dup2(c->fd, 2);
}

/* Put stdout and stderr back; what went to them meanwhile (allocated). */
static char *release_output(struct caught *c)
{
	char *got;

	fflush(stdout);
	fflush(stderr);
	dup2(c->saved[0], 1);
	dup2(c->saved[1], 2);
	close(c->saved[0]);
	close(c->saved[1]);
	close(c->fd);
	got = gx_read_file(c->path, 1 << 20);
	unlink(c->path);
	return got ? got : xstrdup("(unreadable)");
}

/* ---- helpers ---------------------------------------------------------------------- */

static bool exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;
	bool ok = stat(p, &st) == 0;

	free(p);
	return ok;
}

/* How many entries the current directory holds (the test's own). */
static int nr_entries(void)
{
	int n = 0;
	FILE *f = popen("ls -A | wc -l", "r");

	if (f) {
		char buf[32];

		if (fgets(buf, sizeof(buf), f))
			n = atoi(buf);
		pclose(f);
	}
	return n;
}

static void opts_for(struct record_opts *ro, char **argv, const char *events)
{
	record_opts__init(ro);
	ro->collect.argv = argv;
	ro->collect.events = events;
	ro->no_archive = true;
}

/* ---- the tests -------------------------------------------------------------------- */

static void test_record(void)
{
	char *spin = wl("wl-spin");
	char *argv[] = { spin, "30", NULL };
	struct notes ns = { 0 };
	struct record_notice nt = { note, &ns };
	struct record_opts ro;
	struct record_result res;
	struct caught c;
	char *cause = NULL, *out, *meta;
	int err;

	opts_for(&ro, argv, "cpu-clock");
	ro.output = "r1";
	catch_output(&c);
	err = gx_record(&ro, &nt, 2, argv, &res, &cause);
	out = release_output(&c);
	is_int(err, 0, "gx_record of wl-spin under cpu-clock");
	if (err)
		diag("%s", cause ? cause : "(no cause)");
	is_str(out, "", "nothing on stdout or stderr: what it says goes to the notice");
	is_str(res.dir, "r1", "the result is -o's directory");
	is_int(res.status, 0, "the workload's status");
	is_int(res.err, 0, "finished whole");
	ok(exists("r1", "perf.data") && exists("r1", "meta.json"), "perf.data and meta.json written");
	ok(!exists("r1", "regions.bin"), "no regions.bin for a workload without markers");
	ok(notes__find(&ns, RECORD_INFO, "recorded r1: "), "the summary line is an INFO notice");
	meta = gx_read_file("r1/meta.json", 1 << 20);
	ok(meta && strstr(meta, "\"cpu-clock\"") && strstr(meta, "wl-spin"),
	   "meta.json names the event and the workload");
	free(meta);
	record_result__exit(&res);
	notes__exit(&ns);

	free(out);

	/* quiet: no summary */
	ro.output = "r3";
	ro.quiet = true;
	err = gx_record(&ro, &nt, 2, argv, &res, &cause);
	is_int(err, 0, "-q");
	ok(!notes__find(&ns, RECORD_INFO, "recorded r3"), "-q: no summary line");
	record_result__exit(&res);
	notes__exit(&ns);
	free(spin);
}

static void test_status_and_archive(void)
{
	char *argv[] = { "/bin/sh", "-c", "exit 3", NULL };
	char *spin = wl("wl-spin");
	char *sargv[] = { spin, "30", NULL };
	struct notes ns = { 0 };
	struct record_notice nt = { note, &ns };
	struct record_opts ro;
	struct record_result res;
	char *cause = NULL;
	int err;

	opts_for(&ro, argv, "cpu-clock");
	ro.output = "st";
	err = gx_record(&ro, &nt, 3, argv, &res, &cause);
	is_int(err, 0, "a workload that fails is recorded");
	is_int(res.status, 3, "... and its status is the result's");
	ok(notes__find(&ns, RECORD_INFO, "recorded st"), "... with the summary line");
	record_result__exit(&res);
	notes__exit(&ns);

	opts_for(&ro, sargv, "cpu-clock");
	ro.output = "ar";
	ro.no_archive = false;
	err = gx_record(&ro, &nt, 2, sargv, &res, &cause);
	is_int(err, 0, "recorded with the archive");
	ok(exists("ar", ".build-id"), "... the sampled files are in .build-id");
	ok(notes__find(&ns, RECORD_INFO, "archived ") && notes__find(&ns, RECORD_INFO, " in ar/.build-id"),
	   "... and the archive's line is a notice");
	record_result__exit(&res);
	notes__exit(&ns);
	free(spin);
}

static void test_mux(void)
{
	char *spin = wl("wl-spin");
	char *argv[] = { spin, "60", NULL };
	struct notes ns = { 0 };
	struct record_notice nt = { note, &ns };
	struct record_opts ro;
	struct record_result res;
	struct caught c;
	char *cause = NULL, *out;
	int err;

	opts_for(&ro, argv, "{cpu-clock},{task-clock}");
	ro.output = "mx";
	catch_output(&c);
	err = gx_record(&ro, &nt, 2, argv, &res, &cause);
	out = release_output(&c);
	is_int(err, 0, "two groups of software events, rotated");
	if (err)
		diag("%s", cause ? cause : "(no cause)");
	is_str(out, "", "... printing nothing");
	ok(exists("mx", "slices.bin"), "... with a slice log");
	ok(notes__find(&ns, RECORD_INFO, "multiplexed 2 groups in "),
	   "... and the multiplexing summary as a notice");
	free(out);
	record_result__exit(&res);
	notes__exit(&ns);

	ro.output = "mx2";
	ro.mux = "nobody";
	err = gx_record(&ro, &nt, 2, argv, &res, &cause);
	is_int(err, GX_E_USAGE, "--mux nobody: a usage error");
	ok(cause && strstr(cause, "'nobody' is not gexplore or kernel"), "... with the cause");
	ok(!exists(".", "mx2"), "... and no result directory left");
	free(cause);
	cause = NULL;
	notes__exit(&ns);
	free(spin);
}

static void test_errors(void)
{
	char *missing[] = { "./no-such-binary", NULL };
	char *spin = wl("wl-spin");
	char *argv[] = { spin, "10", NULL };
	struct notes ns = { 0 };
	struct record_notice nt = { note, &ns };
	struct record_opts ro;
	struct record_result res;
	struct caught c;
	char *cause = NULL, *out;
	int before = nr_entries(), err;

	opts_for(&ro, NULL, "cpu-clock");
	err = gx_record(&ro, &nt, 0, NULL, &res, &cause);
	is_int(err, GX_E_USAGE, "nothing to record: a usage error");
	ok(cause && strstr(cause, "nothing to record"), "... saying so");
	free(cause);
	cause = NULL;

	opts_for(&ro, argv, "cpu-clock");
	ro.collect.pid = getpid();
	err = gx_record(&ro, &nt, 2, argv, &res, &cause);
	is_int(err, GX_E_USAGE, "-p with a command: a usage error");
	free(cause);
	cause = NULL;

	opts_for(&ro, missing, "cpu-clock");
	catch_output(&c);
	err = gx_record(&ro, &nt, 1, missing, &res, &cause);
	out = release_output(&c);
	is_int(err, GX_E_CHILD, "a missing binary: GX_E_CHILD");
	ok(cause && strstr(cause, "no-such-binary"), "... naming it");
	is_str(out, "", "... printing nothing");
	free(out);
	free(cause);
	cause = NULL;

	opts_for(&ro, argv, "no-such-event");
	err = gx_record(&ro, &nt, 2, argv, &res, &cause);
	ok(err == GX_E_EVENT || err == GX_E_USAGE, "an unknown event: an error of the options");
	ok(cause && strstr(cause, "no-such-event"), "... naming it");
	free(cause);
	cause = NULL;

	opts_for(&ro, argv, "cpu-clock");
	ro.control = "fd:x";
	err = gx_record(&ro, &nt, 2, argv, &res, &cause);
	is_int(err, GX_E_USAGE, "--control fd:x: a usage error");
	ok(cause && strstr(cause, "expected descriptors"), "... with the cause");
	free(cause);
	cause = NULL;

	is_int(nr_entries(), before, "the failures left no result directory");
	notes__exit(&ns);
	free(spin);
}

static void test_repeat(void)
{
	char *spin = wl("wl-spin");
	char *argv[] = { spin, "10", NULL };
	char *fails[] = { "/bin/sh", "-c", "exit 4", NULL };
	struct notes ns = { 0 };
	struct record_notice nt = { note, &ns };
	struct record_opts ro;
	char *cause = NULL, **dirs = NULL;
	int err;

	opts_for(&ro, NULL, "cpu-clock");
	err = record_repeat(&ro, argv, 2, false, &nt, 2, argv, &dirs, &cause);
	is_int(err, 0, "record_repeat: two runs");
	if (err)
		diag("%s", cause ? cause : "(no cause)");
	ok(dirs && dirs[0] && dirs[1] && !dirs[2], "... two result names");
	ok(dirs && dirs[1] && exists(dirs[0], "meta.json") && exists(dirs[1], "meta.json"),
	   "... each a result");
	ok(notes__find(&ns, RECORD_INFO, "check: run 2/2 -> "), "... saying each run");
	ok(!notes__find(&ns, RECORD_INFO, "recorded "), "... recorded quietly");
	for (size_t k = 0; dirs && dirs[k]; k++)
		free(dirs[k]);
	free(dirs);
	notes__exit(&ns);

	err = record_repeat(&ro, fails, 2, true, &nt, 3, fails, &dirs, &cause);
	is_int(err, GX_E_USAGE, "record_repeat of a failing workload: GX_E_USAGE");
	ok(cause && strstr(cause, "exited with status 4; not checking it"), "... with its status");
	ok(!notes__find(&ns, RECORD_INFO, "check: run"), "quiet: no progress");
	ok(dirs && dirs[0] && !dirs[1], "... it stopped after the first run");
	for (size_t k = 0; dirs && dirs[k]; k++)
		free(dirs[k]);
	free(dirs);
	free(cause);
	notes__exit(&ns);
	free(spin);
}

static void skip_unless_permitted(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0 && (errno == EACCES || errno == EPERM))
		plan_skip_all("perf_event_open of a software event is not permitted here");
	if (fd < 0 && errno == ENOSYS)
		plan_skip_all("no perf_event_open in this kernel");
	if (fd >= 0)
		close((int)fd);
}

int main(void)
{
	const char *b = getenv("GX_BUILDDIR");
	char tmpl[] = "/tmp/test-record-XXXXXX", *cwd;
	char *rm;

	skip_unless_permitted();
	cwd = getcwd(NULL, 0);
	builddir = b && *b ? xstrdup(b) : xstrdup(cwd ? cwd : ".");
	if (builddir[0] != '/') {
		char *abs = xasprintf("%s/%s", cwd, builddir);

		free(builddir);
		builddir = abs;
	}
	if (!mkdtemp(tmpl) || chdir(tmpl) != 0)
		plan_skip_all("no temporary directory");
	test_record();
	test_status_and_archive();
	test_mux();
	test_errors();
	test_repeat();
	if (chdir("/") == 0) {
		rm = xasprintf("rm -rf '%s'", tmpl);
		if (system(rm) != 0)
			diag("could not remove %s", tmpl);
		free(rm);
	}
	free(builddir);
	free(cwd);
	return done_testing();
}
