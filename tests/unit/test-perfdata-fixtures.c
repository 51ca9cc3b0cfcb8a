/*
 * test-perfdata-fixtures: real perf.data files recorded by Linux perf parse
 * with the sample counts perf itself reports (`perf report -D`, verified by
 * hand; lpd-sleep* with perf 6.1 on a copy whose attr.size was patched to
 * 128, since perf 6.1 refuses 136-byte attrs).
 */
#include "config.h"

#include "perfdata/perfdata.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

struct count_tool {
	struct pd_tool tool;
	uint64_t samples, lost, mmaps, comms;
	uint64_t last_time;
	bool unordered;
};

static int count_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct count_tool *c = (struct count_tool *)t;

	c->samples++;
	if (s->time < c->last_time)
		c->unordered = true;
	c->last_time = s->time;
	return 0;
}

static int count_mmap(struct pd_tool *t, const struct pd_mmap *m)
{
	((struct count_tool *)t)->mmaps++;
	return 0;
}

static int count_lost(struct pd_tool *t, const struct pd_lost *l)
{
	((struct count_tool *)t)->lost++;
	return 0;
}

static const struct fixture {
	int line;
	const char *file;
	int nr_evsels;
	uint64_t samples;
	uint64_t lost_records;		/* LOST + LOST_SAMPLES */
	int groups;
	bool pipe, zstd;
} fixtures[] = {
	{ __LINE__, "quipper-busy.1-3.4.perf.data", 6, 11778, 0, 0, false, false },
	{ __LINE__, "quipper-callgraph-3.8.perf.data", 1, 1768, 0, 0, false, false },
	{ __LINE__, "quipper-lost_samples-4.4.perf.data", 3, 191, 2, 1, false, false },
	{ __LINE__, "quipper-group_desc-4.14.perf.data", 2, 13, 0, 1, false, false },
	{ __LINE__, "quipper-piped.header_features-4.16.perf.data", 1, 2, 0, 0, true, false },
	{ __LINE__, "vector_static_gcc/perf.data", 1, 45, 0, 0, false, false },
	{ __LINE__, "lpd-sleep.perf.data", 1, 7, 0, 0, false, false },
	{ __LINE__, "lpd-sleep.compressed.perf.data", 1, 8, 0, 0, false, true },
	{ __LINE__, "hotspot-true.v2.perf.data", 1, 1, 0, 0, false, false },
};

static void test_fixture(const char *dir, const struct fixture *f, unsigned flags)
{
	char *path = xasprintf("%s/%s", dir, f->file), *cause = NULL;
	struct perf_reader *r = NULL;
	struct count_tool c = { .tool = { .sample = count_sample, .mmap = count_mmap,
					  .lost = count_lost } };
	int err;

#ifndef HAVE_LIBZSTD
	if (f->zstd) {
		skip(4, "built without libzstd (Debian package libzstd-dev)");
		free(path);
		return;
	}
#endif
	err = perf_reader__open(&r, path, flags, &cause);
	is_int_at(err, 0, f->line, "%s opens%s", f->file, flags ? " (ordered)" : "");
	if (err) {
		diag("%s", cause);
		skip(3, "not opened");
		goto out;
	}
	is_int_at(perf_reader__nr_evsels(r), f->nr_evsels, f->line, "%s: events", f->file);
	err = perf_reader__process(r, &c.tool, &cause);
	if (err)
		diag("%s", cause);
	is_int_at(c.samples, f->samples, f->line, "%s: samples%s", f->file, flags ? " (ordered)" : "");
	is_int_at(c.lost, f->lost_records, f->line, "%s: lost records", f->file);
	for (size_t i = 0; i < perf_reader__nr_warnings(r); i++)
		diag("warning: %s", perf_reader__warning(r, i));
	if (!flags) {
		is_int_at(perf_reader__env(r)->nr_groups, f->groups, f->line, "%s: groups", f->file);
		is_int_at(perf_reader__is_pipe(r), f->pipe, f->line, "%s: pipe mode", f->file);
		is_int_at(perf_reader__stats(r)->nr_samples, f->samples, f->line, "%s: stats", f->file);
	} else {
		ok(!c.unordered, "%s: ordered delivery is sorted by time", f->file);
	}
out:
	perf_reader__delete(r);
	free(cause);
	free(path);
}

int main(void)
{
	const char *dir = getenv("GX_FIXTURES");
	struct perf_reader *r = NULL;
	char *path, *cause = NULL;
	int err;

	if (!dir || !*dir || access(dir, R_OK) != 0)
		plan_skip_all("GX_FIXTURES is not set or missing");
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		test_fixture(dir, &fixtures[i], 0);
		test_fixture(dir, &fixtures[i], PD_ORDERED);
	}

	path = xasprintf("%s/hotspot-true.v1.perf.data", dir);
	err = perf_reader__open(&r, path, 0, &cause);
	is_int(err, GX_E_VERSION, "v1 perf.data is refused");
	ok(cause && strstr(cause, "v1 perf.data format") && strstr(cause, "re-record"),
	   "v1 refusal says why: %s", cause ? cause : "(null)");
	free(cause);
	free(path);

	/* the BUILD_ID feature of a file perf wrote (entries of header type 0) */
	cause = NULL;
	path = xasprintf("%s/vector_static_gcc/perf.data", dir);
	err = perf_reader__open(&r, path, 0, &cause);
	if (!err) {
		const struct pd_env *env = perf_reader__env(r);
		static const uint8_t want[] = { 0xdb, 0x3f, 0x64, 0xe2, 0x3e, 0x81, 0xc6, 0x29, 0x54, 0xfc,
						0xff, 0x03, 0x88, 0xac, 0xee, 0x87, 0x97, 0x60, 0x12, 0x0f };
		bool found = false;

		is_int(env->nr_build_ids, 3, "vector_static_gcc: 3 build-ids (kernel, binary, vdso)");
		for (size_t i = 0; i < env->nr_build_ids; i++)
			if (env->build_ids[i].filename &&
			    strstr(env->build_ids[i].filename, "vector_static_gcc_v9.1.0") &&
			    env->build_ids[i].size == 20 && !memcmp(env->build_ids[i].id, want, 20))
				found = true;
		ok(found, "vector_static_gcc: the binary's build-id as perf buildid-list shows it");
		perf_reader__delete(r);
		r = NULL;
	} else {
		ok(0, "vector_static_gcc opens: %s", cause);
		ok(0, "(build-ids)");
	}
	free(cause);
	free(path);

	/* group descriptions */
	cause = NULL;
	path = xasprintf("%s/quipper-group_desc-4.14.perf.data", dir);
	err = perf_reader__open(&r, path, 0, &cause);
	if (!err) {
		const struct pd_env *env = perf_reader__env(r);

		ok(env->nr_groups == 1 && env->groups[0].leader_idx == 0 &&
		   env->groups[0].nr_members == 2, "GROUP_DESC: one group of 2 led by event 0");
		is_str(perf_reader__evsel(r, 1)->name, "branch-misses", "EVENT_DESC names");
		perf_reader__delete(r);
	} else {
		skip(2, "not opened");
	}
	free(path);
	free(cause);
	return done_testing();
}
