/*
 * test-result: the opened result (src/result) — its one event table
 * (names, PMUs, sampled, samples, whole-run values), the default sort
 * event, finding events by name, and what the reports built on it show.
 * Inputs are perf.data files written here: a hybrid recording (cycles on
 * cpu_atom without samples before cycles on cpu_core with samples, plus a
 * counted instructions event), with the PMU mappings perf writes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "perfdata/perfdata.h"
#include "report/report.h"
#include "result/result.h"
#include "util/util.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static char tmpdir[] = "/tmp/gx-result-XXXXXX";

struct sample_rec {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time, period;
};

static void evsel(struct pd_evsel *e, uint32_t type, uint64_t config, uint64_t period,
		  const char *name, uint64_t *id)
{
	memset(e, 0, sizeof(*e));
	e->attr.size = sizeof(e->attr);
	e->attr.type = type;
	e->attr.config = config;
	e->attr.sample_period = period;
	e->attr.sample_type = SAMPLE_TYPE;
	e->attr.sample_id_all = 1;
	e->name = (char *)name;
	e->ids = id;
	e->nr_ids = 1;
}

/* A hybrid recording: atom cycles (no samples), core cycles (n samples of
 * period 1000), instructions (counted only). */
static void write_hybrid(const char *path, int n)
{
	static uint64_t ids[3] = { 11, 12, 13 };
	struct pd_evsel ev[3];
	struct perf_writer *w;
	struct pd_env env = { 0 };
	struct pd_pmu pmus[] = { { 4, (char *)"cpu_core" }, { 8, (char *)"cpu_atom" } };
	char *cause = NULL;

	evsel(&ev[0], PERF_TYPE_HARDWARE, 8ULL << 32 | PERF_COUNT_HW_CPU_CYCLES, 1000,
	      "cpu_atom/cycles/", &ids[0]);
	evsel(&ev[1], PERF_TYPE_HARDWARE, 4ULL << 32 | PERF_COUNT_HW_CPU_CYCLES, 1000,
	      "cpu_core/cycles/", &ids[1]);
	evsel(&ev[2], PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, "", &ids[2]);
	if (perf_writer__new(&w, path, ev, 3, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		struct sample_rec s = {
			.h = { PERF_RECORD_SAMPLE, 0, sizeof(s) },
			.id = 12, .ip = 0x401000 + (uint64_t)(i % 8) * 16, .pid = 100, .tid = 100,
			.time = 1000000 + (uint64_t)i * 1000, .period = 1000,
		};

		s.h.misc = PERF_RECORD_MISC_USER;
		perf_writer__write(w, &s, sizeof(s));
	}
	perf_writer__finished_round(w);
	env.pmus = pmus;
	env.nr_pmus = 2;
	if (perf_writer__finish(w, &env, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	perf_writer__delete(w);
}

static void test_hybrid(void)
{
	char *path = xasprintf("%s/hybrid.data", tmpdir), *cause = NULL;
	struct gx_result *r = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct report_opts ro = { .limit = 10 };
	size_t idx = 99;

	write_hybrid(path, 50);
	is_int(gx_result__open(&r, path, NULL, &cause), 0, "a bare perf.data opens");
	if (!r) {
		diag("%s", cause);
		skip(16, "not opened");
		free(cause);
		free(path);
		return;
	}
	ok(gx_result__dir(r) == NULL && gx_result__meta(r) == NULL, "no directory, no meta.json");
	is_str(gx_result__path(r), path, "its path is the file");
	is_int(gx_result__nr_events(r), 3, "three events");
	is_str(gx_result__event(r, 0)->pmu, "cpu_atom", "cycles of the E-cores: cpu_atom");
	is_str(gx_result__event(r, 1)->pmu, "cpu_core", "cycles of the P-cores: cpu_core");
	is_str(gx_result__event(r, 2)->pmu, "cpu", "a plain hardware event: the core PMU");
	is_str(gx_result__event(r, 2)->name, "instructions", "an empty name: named from its attr");
	ok(gx_result__event(r, 1)->sampled && !gx_result__event(r, 2)->sampled,
	   "sampled and counted events told apart");
	is_int(gx_result__event(r, 0)->samples, 0, "cpu_atom/cycles has no samples");
	is_int(gx_result__event(r, 1)->samples, 50, "cpu_core/cycles has 50");
	is_double(gx_result__event(r, 1)->run_value, 50000, 1e-9, "its run value: the periods");
	ok(isnan(gx_result__event(r, 2)->run_value), "counted with no read: not measured (NAN)");
	is_int(gx_result__sort_event(r), 1, "the sort event is the cycles with samples");
	ok(gx_result__find_event(r, "cycles", &idx) == 0 && idx == 1,
	   "'cycles': the copy with most samples");
	ok(gx_result__find_event(r, "cpu_atom/cycles", &idx) == 0 && idx == 0,
	   "'cpu_atom/cycles': that PMU's copy");
	is_int(gx_result__find_event(r, "branches", &idx), -ENOENT, "an absent event: -ENOENT");
	ro.sort_event = gx_result__sort_event(r);
	report_text(&sb, r, &ro);
	ok(sb.buf && !strstr(sb.buf, "No samples") && strstr(sb.buf, "by cpu_core/cycles/"),
	   "the text report shows the rows, by the event with samples");
	if (sb.buf && strstr(sb.buf, "No samples"))
		diag("%s", sb.buf);
	strbuf__exit(&sb);
	gx_result__delete(r);
	unlink(path);
	free(path);
}

static void test_errors(void)
{
	char *cause = NULL, *empty = xasprintf("%s/empty", tmpdir);
	struct gx_result *r = NULL;
	struct gx_result_opts o = { .parent = tmpdir, .cpu = "no-such-model" };
	char *path = xasprintf("%s/ok.data", tmpdir);

	ok(gx_result__open(&r, "/nonexistent/perf.data", NULL, &cause) < 0 && !r && cause &&
	   strstr(cause, "/nonexistent/perf.data"), "a missing file: an error naming it");
	free(cause);
	cause = NULL;
	mkdir(empty, 0700);
	ok(gx_result__open(&r, empty, NULL, &cause) < 0 && cause && strstr(cause, "not a gexplore result"),
	   "a directory without perf.data: not a result");
	free(cause);
	cause = NULL;
	ok(gx_result__open(&r, NULL, &o, &cause) < 0 && cause && strstr(cause, "no result in"),
	   "no gxNNN in the parent: says so");
	free(cause);
	cause = NULL;
	write_hybrid(path, 3);
	ok(gx_result__open(&r, path, &o, &cause) == -EINVAL && cause && strstr(cause, "--cpu"),
	   "an unknown --cpu model is an error");
	free(cause);
	unlink(path);
	rmdir(empty);
	free(path);
	free(empty);
}

/* pd_env__from_system reads the PMUs from sysfs (GX_SYSFS in tests). */
static void test_pmu_mappings(void)
{
	char *root = xasprintf("%s/sys", tmpdir), *p;
	const char *names[] = { "cpu_core", "cpu_atom", "software" };
	const unsigned types[] = { 4, 10, 1 };
	struct pd_env env;
	bool core = false, atom = false;

	for (size_t i = 0; i < 3; i++) {
		FILE *f;

		p = xasprintf("mkdir -p %s/bus/event_source/devices/%s", root, names[i]);
		if (system(p) != 0)
			diag("%s failed", p);
		free(p);
		p = xasprintf("%s/bus/event_source/devices/%s/type", root, names[i]);
		f = fopen(p, "w");
		if (f) {
			fprintf(f, "%u\n", types[i]);
			fclose(f);
		}
		free(p);
	}
	setenv("GX_SYSFS", root, 1);
	pd_env__from_system(&env, 0, NULL);
	unsetenv("GX_SYSFS");
	for (size_t i = 0; i < env.nr_pmus; i++) {
		core |= !strcmp(env.pmus[i].name, "cpu_core") && env.pmus[i].type == 4;
		atom |= !strcmp(env.pmus[i].name, "cpu_atom") && env.pmus[i].type == 10;
	}
	is_int(env.nr_pmus, 3, "every PMU of the sysfs tree");
	ok(core && atom, "cpu_core is type 4, cpu_atom type 10");
	pd_env__exit(&env);
	p = xasprintf("rm -rf %s", root);
	if (system(p) != 0)
		diag("%s failed", p);
	free(p);
	free(root);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_hybrid();
	test_errors();
	test_pmu_mappings();
	rmdir(tmpdir);
	return done_testing();
}
