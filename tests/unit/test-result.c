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
#include "fake-sysfs.h"
#include "perfdata/perfdata.h"
#include "ci/ci.h"
#include "report/report.h"
#include "result/result.h"
#include "result/result-int.h"
#include "topdown/topdown.h"
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

/* The last round, the features and the file closed; a failure ends the test. */
static void finish_file(struct perf_writer *w, const struct pd_env *env)
{
	char *cause = NULL;

	perf_writer__finished_round(w);
	if (perf_writer__finish(w, env, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	perf_writer__delete(w);
}

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
	env.pmus = pmus;
	env.nr_pmus = 2;
	finish_file(w, &env);
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

/*
 * Two copies of cycles (as two groups record it) and an E-core copy: the
 * model's count is the copies' mean, not their sum, and cpu_atom's copy
 * is left out (issue 14, part 7).
 */
static void test_copies(void)
{
	static uint64_t ids[4] = { 41, 42, 43, 44 };
	char *path = xasprintf("%s/copies.data", tmpdir), *cause = NULL;
	struct gx_result_opts o = { .cpu = "skl" };
	struct pd_pmu pmus[] = { { 4, (char *)"cpu_core" }, { 8, (char *)"cpu_atom" } };
	struct pd_env env = { 0 };
	struct pd_evsel ev[4];
	struct perf_writer *w;
	struct gx_result *r = NULL;
	double v[4] = { 1000, 3000, 500, 90000 }, c[128];
	int cyc;

	evsel(&ev[0], PERF_TYPE_HARDWARE, 4ULL << 32 | PERF_COUNT_HW_CPU_CYCLES, 1000,
	      "cpu_core/cycles/", &ids[0]);
	evsel(&ev[1], PERF_TYPE_HARDWARE, 4ULL << 32 | PERF_COUNT_HW_CPU_CYCLES, 1000,
	      "cpu_core/cycles/", &ids[1]);
	evsel(&ev[2], PERF_TYPE_HARDWARE, 4ULL << 32 | PERF_COUNT_HW_INSTRUCTIONS, 0,
	      "cpu_core/instructions/", &ids[2]);
	evsel(&ev[3], PERF_TYPE_HARDWARE, 8ULL << 32 | PERF_COUNT_HW_CPU_CYCLES, 1000,
	      "cpu_atom/cycles/", &ids[3]);
	if (perf_writer__new(&w, path, ev, 4, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	perf_writer__finished_round(w);
	env.pmus = pmus;
	env.nr_pmus = 2;
	if (perf_writer__finish(w, &env, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	perf_writer__delete(w);
	if (!ok(gx_result__open(&r, path, &o, &cause) == 0 && gx_result__model_loaded(r),
		"copies: opens with model skl")) {
		diag("%s", cause ? cause : "");
		skip(2, "not opened");
		goto out;
	}
	if (!ok(td_model__nr_events(gx_result__model_loaded(r)) <= ARRAY_SIZE(c),
		"copies: the model fits the test's array")) {
		skip(2, "model too big");
		goto out;
	}
	gx_result__model_counts(r, v, c);
	cyc = td_model__find_event(gx_result__model_loaded(r), "cycles");
	is_double(c[cyc], 2000, 1e-9, "two cpu_core copies of cycles: their mean, not their sum");
	is_double(c[td_model__find_event(gx_result__model_loaded(r), "instructions")], 500, 1e-9,
		  "one copy: itself");
out:
	gx_result__delete(r);
	unlink(path);
	free(cause);
	free(path);
}

/* ---- a leader-sampled group: perf record -e '{cycles,instructions}:S' ---- */

struct group_rec {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time, period;
	uint64_t nr;				/* PERF_FORMAT_GROUP | PERF_FORMAT_ID */
	struct { uint64_t value, id; } v[2];
};

#define GROUP_PID 4000001u

/*
 * 20 samples of the leader in thread GROUP_PID, alternating between
 * fast_fn (2000 instructions per 1000 cycles: CPI 0.5) and slow_fn (250
 * per 1000: CPI 4), and 5 in a second thread of the same process (an
 * inherited counter: the same ids, its own values) in slow_fn with 500
 * instructions per 1000 cycles. The functions are named by a JIT map under
 * symfs_dir/tmp.
 */
static void write_group(const char *path, const char *symfs_dir)
{
	static uint64_t ids[2] = { 21, 22 };
	struct pd_evsel ev[2];
	struct perf_writer *w;
	struct pd_env env = { 0 };
	struct pd_group grp = { (char *)"", 0, 2 };
	char *cause = NULL, *map;
	uint64_t cyc[2] = { 0, 0 }, ins[2] = { 0, 0 };
	FILE *f;

	map = xasprintf("mkdir -p %s/tmp", symfs_dir);
	if (system(map) != 0)
		diag("%s failed", map);
	free(map);
	map = xasprintf("%s/tmp/perf-%u.map", symfs_dir, GROUP_PID);
	f = fopen(map, "w");
	if (f) {
		fprintf(f, "10000 100 fast_fn\n20000 100 slow_fn\n");
		fclose(f);
	}
	free(map);
	evsel(&ev[0], PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000, "cycles", &ids[0]);
	evsel(&ev[1], PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, "instructions", &ids[1]);
	for (int i = 0; i < 2; i++) {
		ev[i].attr.sample_type |= PERF_SAMPLE_READ;
		ev[i].attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	}
	if (perf_writer__new(&w, path, ev, 2, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	for (int i = 0; i < 25; i++) {
		int t = i >= 20;	/* the second thread */
		bool fast = !t && i % 2 == 0;
		struct group_rec s = {
			.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
			.id = 21, .ip = fast ? 0x10010 : 0x20010, .pid = GROUP_PID,
			.tid = GROUP_PID + (uint32_t)t, .time = 1000000 + (uint64_t)i * 1000,
			.period = 1000, .nr = 2,
		};

		cyc[t] += 1000;
		ins[t] += t ? 500 : fast ? 2000 : 250;
		s.v[0].value = cyc[t];
		s.v[0].id = 21;
		s.v[1].value = ins[t];
		s.v[1].id = 22;
		perf_writer__write(w, &s, sizeof(s));
	}
	perf_writer__finished_round(w);
	env.groups = &grp;
	env.nr_groups = 1;
	if (perf_writer__finish(w, &env, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	perf_writer__delete(w);
}

static const struct profile_row *function_row(struct gx_result *r, const char *name)
{
	size_t nr;
	const struct profile_row *const *rows =
		profile__rows(gx_result__profile(r), PROFILE_BY_FUNCTION, 0, &nr);

	for (size_t i = 0; i < nr; i++)
		if (!strcmp(rows[i]->name, name))
			return rows[i];
	return NULL;
}

/*
 * perf report reads the same group: fast_fn's address gets 10000 cycles
 * and 20000 instructions. (fast_fn only: perf before 6.12 keeps one
 * previous value per counter, not per thread, so the second thread's
 * samples in slow_fn differ there.)
 */
static void perf_agrees(const char *path)
{
	const char *perf = getenv("PERF");
	char *cmd;

	if (!perf || !*perf) {
		skip(1, "PERF is not set");
		return;
	}
	cmd = xasprintf("'%s' report -i '%s' --stdio -F period,sym 2>/dev/null | "
			"grep -Eq ' 10000 +20000 +\\[\\.\\] 0x0*10010$'", perf, path);
	ok(system(cmd) == 0, "perf report: the same cycles and instructions at fast_fn");
	free(cmd);
}

static void test_group_read(void)
{
	char *path = xasprintf("%s/group.data", tmpdir), *cause = NULL;
	char *symfs = xasprintf("%s/symfs", tmpdir);
	struct profile_opts po = { .symfs = symfs };
	struct gx_result_opts o = { .sym = &po };
	struct gx_result *r = NULL;
	const struct profile_row *fast, *slow;
	struct strbuf sb = STRBUF_INIT;
	struct report_opts ro = { .limit = 10 };
	char *rm;

	write_group(path, symfs);
	is_int(gx_result__open(&r, path, &o, &cause), 0, "a leader-sampled group opens");
	if (!r) {
		diag("%s", cause);
		skip(12, "not opened");
		free(cause);
		goto out;
	}
	ok(gx_result__event(r, 1)->sampled, "instructions, read by the leader's samples, has per-row values");
	is_int(gx_result__event(r, 1)->samples, 25, "every leader sample read it");
	is_double(gx_result__event(r, 1)->run_value, 10 * 2000 + 10 * 250 + 5 * 500, 1e-9,
		  "its whole-run value: the last value of each thread's counter, summed");
	is_double(gx_result__event(r, 0)->run_value, 25000, 1e-9, "cycles: 25 x 1000");
	fast = function_row(r, "fast_fn");
	slow = function_row(r, "slow_fn");
	ok(fast && slow, "both functions named");
	if (fast && slow) {
		is_int(fast->period[1], 20000, "fast_fn: 10 x 2000 instructions");
		is_int(fast->period[0], 10000, "fast_fn: 10 x 1000 cycles");
		is_int(slow->period[1], 10 * 250 + 5 * 500,
		       "slow_fn: the second thread's counts are its own (not the first thread's)");
		is_double(gx_result__row_cpi(r, fast), 0.5, 1e-9, "fast_fn CPI 0.5");
		is_double(gx_result__row_cpi(r, slow), 15000.0 / 5000.0, 1e-9, "slow_fn CPI 3");
	} else {
		skip(5, "no function rows");
	}
	ro.sort_event = gx_result__sort_event(r);
	report_json(&sb, r, &ro);
	ok(sb.buf && strstr(sb.buf, "\"cpi\": 0.5"), "report --json: per-function CPI");
	strbuf__exit(&sb);
	report_text(&sb, r, &ro);
	ok(sb.buf && strstr(sb.buf, "CPI") && strstr(sb.buf, "0.50"),
	   "the text report: a CPI column in the functions table");
	if (sb.buf && !strstr(sb.buf, "0.50"))
		diag("%s", sb.buf);
	strbuf__exit(&sb);
	gx_result__delete(r);
	perf_agrees(path);
out:
	unlink(path);
	rm = xasprintf("rm -rf %s", symfs);
	if (system(rm) != 0)
		diag("%s failed", rm);
	free(rm);
	free(symfs);
	free(path);
}

/* A group read with its times (PERF_FORMAT_TOTAL_TIME_ENABLED|RUNNING). */
struct timed_rec {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time, period;
	uint64_t nr, enabled, running;
	struct { uint64_t value, id; } v[2];
};

/*
 * A group the kernel multiplexed (perf record -e '{cycles,instructions}:S'
 * with more events than counters): 10 leader samples, each read 1000
 * cycles and 3000 instructions more while the group ran 1 us of the 2 us
 * it was enabled. mux's one rule scales both by 2.
 */
static void test_group_read_timed(void)
{
	static uint64_t ids[2] = { 31, 32 };
	char *path = xasprintf("%s/timed.data", tmpdir), *cause = NULL;
	struct pd_evsel ev[2];
	struct perf_writer *w;
	struct pd_env env = { 0 };
	struct pd_group grp = { (char *)"", 0, 2 };
	struct gx_result *r = NULL;
	struct gx_result_opts o = { 0 };
	struct strbuf sb = STRBUF_INIT;
	struct report_opts ro = { .limit = 10 };

	evsel(&ev[0], PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000, "cycles", &ids[0]);
	evsel(&ev[1], PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, "instructions", &ids[1]);
	for (int i = 0; i < 2; i++) {
		ev[i].attr.sample_type |= PERF_SAMPLE_READ;
		ev[i].attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
					 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	if (perf_writer__new(&w, path, ev, 2, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	for (uint64_t i = 1; i <= 10; i++) {
		struct timed_rec s = {
			.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
			.id = 31, .ip = 0x10010, .pid = GROUP_PID, .tid = GROUP_PID,
			.time = 1000000 + i * 2000, .period = 1000, .nr = 2,
			.enabled = 2000 * i, .running = 1000 * i,
		};

		s.v[0].value = 1000 * i;
		s.v[0].id = 31;
		s.v[1].value = 3000 * i;
		s.v[1].id = 32;
		perf_writer__write(w, &s, sizeof(s));
	}
	perf_writer__finished_round(w);
	env.groups = &grp;
	env.nr_groups = 1;
	if (perf_writer__finish(w, &env, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	perf_writer__delete(w);
	is_int(gx_result__open(&r, path, &o, &cause), 0, "a multiplexed group read opens");
	if (!r) {
		diag("%s", cause);
		skip(7, "not opened");
		free(cause);
		goto out;
	}
	is_double(gx_result__event(r, 1)->running, 0.5, 1e-9,
		  "instructions counted half the time its group was enabled (the reads' times)");
	ok(gx_result__event(r, 1)->multiplexed, "so it is multiplexed");
	is_double(gx_result__event(r, 1)->scale, 2.0, 1e-9, "scaled by enabled/running");
	is_double(gx_result__event(r, 1)->run_value, 60000, 1e-9,
		  "its whole-run value: 30000 counted, x2");
	is_double(gx_result__event(r, 0)->run_value, 20000, 1e-9, "cycles: 10000 counted, x2");
	ro.sort_event = gx_result__sort_event(r);
	report_text(&sb, r, &ro);
	ok(sb.buf && strstr(sb.buf, "(50.00%)"), "the text report shows the running share");
	if (sb.buf && !strstr(sb.buf, "(50.00%)"))
		diag("%s", sb.buf);
	strbuf__exit(&sb);
	report_json(&sb, r, &ro);
	ok(sb.buf && strstr(sb.buf, "\"running\": 0.5"), "and the JSON report");
	strbuf__exit(&sb);
	gx_result__delete(r);
out:
	unlink(path);
	free(path);
}

/*
 * Both core types sampled: cycles and instructions on cpu_core (30 samples
 * each, periods 1000 and 2000) and on cpu_atom (20 each, 1000 and 500).
 */
static void write_hybrid_both(const char *path)
{
	static uint64_t ids[4] = { 31, 32, 33, 34 };
	static const struct { uint64_t pmu, config, period; int n; const char *name; } e[4] = {
		{ 4, PERF_COUNT_HW_CPU_CYCLES, 1000, 30, "cpu_core/cycles/" },
		{ 8, PERF_COUNT_HW_CPU_CYCLES, 1000, 20, "cpu_atom/cycles/" },
		{ 4, PERF_COUNT_HW_INSTRUCTIONS, 2000, 30, "cpu_core/instructions/" },
		{ 8, PERF_COUNT_HW_INSTRUCTIONS, 500, 20, "cpu_atom/instructions/" },
	};
	struct pd_evsel ev[4];
	struct perf_writer *w;
	struct pd_env env = { 0 };
	struct pd_pmu pmus[] = { { 4, (char *)"cpu_core" }, { 8, (char *)"cpu_atom" } };
	char *cause = NULL;
	uint64_t t = 1000000;

	for (int k = 0; k < 4; k++)
		evsel(&ev[k], PERF_TYPE_HARDWARE, e[k].pmu << 32 | e[k].config, e[k].period,
		      e[k].name, &ids[k]);
	if (perf_writer__new(&w, path, ev, 4, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	for (int k = 0; k < 4; k++) {
		for (int i = 0; i < e[k].n; i++) {
			struct sample_rec s = {
				.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
				.id = ids[k], .ip = 0x401000, .pid = 100, .tid = 100,
				.time = t += 1000, .period = e[k].period,
			};

			perf_writer__write(w, &s, sizeof(s));
		}
	}
	env.pmus = pmus;
	env.nr_pmus = 2;
	finish_file(w, &env);
}

static double run_metric(struct gx_result *r, const char *metric)
{
	struct ci_row run = { .scope = CI_SCOPE_RUN, .name = "", .share = 1.0 };
	double v = NAN;
	char *why = NULL;

	if (ci_metric(r, &run, metric, 0, &v, &why) != 0)
		diag("%s: %s", metric, why ? why : "?");
	free(why);
	return v;
}

static void test_hybrid_both(void)
{
	char *path = xasprintf("%s/hybrid2.data", tmpdir), *cause = NULL;
	struct gx_result *r = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct report_opts ro = { .limit = 10 };
	const char **dm;
	bool has_cycles = false;

	write_hybrid_both(path);
	is_int(gx_result__open(&r, path, NULL, &cause), 0, "a hybrid recording with both core types opens");
	if (!r) {
		diag("%s", cause);
		skip(11, "not opened");
		free(cause);
		free(path);
		return;
	}
	ok(gx_result__model(r) != NULL, "top-down: the model takes the cpu_core events");
	ok(gx_result__event(r, 0)->model_event >= 0 && gx_result__event(r, 2)->model_event >= 0,
	   "cpu_core cycles and instructions are the model's");
	ok(gx_result__event(r, 1)->model_event < 0 && gx_result__event(r, 3)->model_event < 0,
	   "cpu_atom copies are no model's");
	ok(gx_result__model_note(r) && strstr(gx_result__model_note(r), "cpu_atom") &&
	   strstr(gx_result__model_note(r), "no top-down model for this core type"),
	   "the E-cores: 'no model for this core type', clearly");
	is_double(run_metric(r, "cycles"), 50000, 1e-9, "check 'cycles': both core types summed");
	is_double(run_metric(r, "instructions"), 70000, 1e-9, "check 'instructions': summed, not averaged");
	is_double(run_metric(r, "cycles/instructions"), 50000.0 / 70000.0, 1e-9,
		  "an event ratio of the sums");
	is_double(run_metric(r, "CPI"), 0.5, 1e-9, "the model's CPI: P-cores only (30000 / 60000)");
	dm = ci_default_metrics(r);
	for (size_t i = 0; dm[i]; i++)
		has_cycles |= !strcmp(dm[i], "cycles");
	ok(has_cycles, "default metrics: 'cycles' sums the per-PMU copies");
	free(dm);
	ro.sort_event = gx_result__sort_event(r);
	report_text(&sb, r, &ro);
	ok(sb.buf && strstr(sb.buf, "cpu_core/cycles/") && strstr(sb.buf, "cpu_atom/cycles/") &&
	   strstr(sb.buf, "no top-down model for this core type"),
	   "report: each PMU's copy in the events, the E-core note under top-down");
	strbuf__exit(&sb);
	gx_result__delete(r);
	unlink(path);
	free(path);
}

/* ---- many processes: a build's short-lived compilers ---------------------- */

struct comm_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[16];
};

/* 40 processes of cc1 (3 samples each), 2 of make (5 each). */
static void write_many(const char *path)
{
	static uint64_t id = 41;
	struct pd_evsel ev;
	struct perf_writer *w;
	struct pd_env env = { 0 };
	char *cause = NULL;
	uint64_t t = 1000000;

	evsel(&ev, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 250000, "cpu-clock", &id);
	ev.attr.sample_id_all = 0;
	if (perf_writer__new(&w, path, &ev, 1, &cause) != 0) {
		diag("%s", cause);
		exit(1);
	}
	for (uint32_t p = 0; p < 42; p++) {
		uint32_t pid = 5000 + p;
		bool cc1 = p < 40;
		struct comm_rec c = { { PERF_RECORD_COMM, 0, sizeof(c) }, pid, pid, "" };

		snprintf(c.comm, sizeof(c.comm), "%s", cc1 ? "cc1" : "make");
		perf_writer__write(w, &c, sizeof(c));
		for (int i = 0; i < (cc1 ? 3 : 5); i++) {
			struct sample_rec s = {
				.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
				.id = id, .ip = 0x401000, .pid = pid, .tid = pid,
				.time = t += 1000, .period = 250000,
			};

			perf_writer__write(w, &s, sizeof(s));
		}
	}
	finish_file(w, &env);
}

static void test_many_processes(void)
{
	char *path = xasprintf("%s/many.data", tmpdir), *cause = NULL;
	struct gx_result *r = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct report_opts ro = { .limit = 10 };
	const struct profile_row *const *rows;
	size_t nr = 0;

	write_many(path);
	is_int(gx_result__open(&r, path, NULL, &cause), 0, "42 processes open");
	if (!r) {
		diag("%s", cause);
		skip(6, "not opened");
		free(cause);
		free(path);
		return;
	}
	rows = profile__rows(gx_result__profile(r), PROFILE_BY_COMMAND, 0, &nr);
	is_int(nr, 2, "two commands");
	ok(nr == 2 && !strcmp(rows[0]->name, "cc1") && rows[0]->nr_procs == 40 &&
	   rows[0]->samples[0] == 120, "cc1: one row, 40 processes, every sample");
	ok(nr == 2 && !strcmp(rows[1]->name, "make") && rows[1]->nr_procs == 2,
	   "make: 2 processes");
	report_text(&sb, r, &ro);
	ok(sb.buf && strstr(sb.buf, "one row per command") && strstr(sb.buf, "       40  cc1") &&
	   strstr(sb.buf, "        2  make\n\nThreads"),
	   "the text report: one row per command with its process count");
	strbuf__exit(&sb);
	report_json(&sb, r, &ro);
	ok(sb.buf && strstr(sb.buf, "\"processes\": 40"), "JSON: the count of processes");
	strbuf__exit(&sb);
	ro.by_given = true;
	ro.by = PROFILE_BY_PROCESS;
	report_text(&sb, r, &ro);
	ok(sb.buf && strstr(sb.buf, "(32 more"), "--by process: one row per pid (10 shown, 32 more)");
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
	struct pd_env env;
	bool core = false, atom = false;

	fake_sysfs_pmu_file(root, "cpu_core", "type", "4\n");
	fake_sysfs_pmu_file(root, "cpu_atom", "type", "10\n");
	fake_sysfs_pmu_file(root, "software", "type", "1\n");
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

/* A weight value's name: the event without PMU, terms or modifiers. */
static void test_weight_names(void)
{
	static const char *const cases[][2] = {
		{ "cpu/mem-loads,ldlat=30/P", "mem-loads:weight" },
		{ "cpu_core/mem-loads,ldlat=3/", "mem-loads:weight" },
		{ "mem-loads:modelled", "mem-loads:weight" },
		{ "cpu/mem-stores/P", "mem-stores:weight" },
		{ "ibs_op//", "ibs_op:weight" },
		{ "arm_spe_0/ts_enable=1/", "arm_spe_0:weight" },
		{ "cycles:u", "cycles:weight" },
		{ "", "weight" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = gx_weight_name(cases[i][0]);

		is_str(n, cases[i][1], "weight value of '%s'", cases[i][0]);
		free(n);
	}
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_hybrid();
	test_group_read();
	test_group_read_timed();
	test_hybrid_both();
	test_copies();
	test_many_processes();
	test_errors();
	test_pmu_mappings();
	test_weight_names();
	rmdir(tmpdir);
	return done_testing();
}
