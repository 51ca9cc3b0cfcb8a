/*
 * test-mux-hw: the hardware path without a PMU. A synthetic perf.data
 * with hardware attributes (cycles as the always-on reference, raw events
 * in two rotating groups) and a slice log with 250 ms slices is written
 * with perf_writer, read back with perf_reader, and analysed as record
 * and report do: rows per thread from the reference's samples, event
 * estimates of a row = its sample periods x mux_log__scale().
 *
 *   tid 100: steady all run (1 s)        -> reliability ~1
 *   tid 200: only during the first 250 ms -> seen by group 0 only: < 0.7
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mux/mux.h"
#include "perfdata/perfdata.h"
#include "tap.h"

#define MS 1000000ULL
#define NEV 4
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_PERIOD)

/* cycles (ref), {INST_RETIRED.ANY_P r00c0, BR_MISP r00c5}, {UOPS_ISSUED r010e} */
static const uint32_t types[NEV] = { PERF_TYPE_HARDWARE, PERF_TYPE_RAW, PERF_TYPE_RAW, PERF_TYPE_RAW };
static const uint64_t configs[NEV] = { PERF_COUNT_HW_CPU_CYCLES, 0xc0, 0xc5, 0x10e };
static const int group_of[NEV] = { -1, 0, 0, 1 };

struct rows {
	struct pd_tool tool;
	struct mux_log *log;
	uint64_t slot[2][2];		/* tid 100, 200: cycles' period per group */
	double periods[2][NEV];		/* sample periods per row and event */
	uint64_t samples;
};

static int on_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct rows *r = (struct rows *)t;
	int k = s->tid == 100 ? 0 : s->tid == 200 ? 1 : -1;

	r->samples++;
	if (k < 0 || s->evsel >= NEV)
		return 0;
	r->periods[k][s->evsel] += (double)s->period;
	if (s->evsel == 0 && mux_log__group_at(r->log, s->time) >= 0)
		r->slot[k][mux_log__group_at(r->log, s->time)] += s->period;
	return 0;
}

static void put_sample(struct perf_writer *w, uint64_t id, uint32_t tid, uint64_t t, uint64_t period)
{
	uint64_t rec[6];
	struct perf_event_header *h = (struct perf_event_header *)rec;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(rec);
	rec[1] = id;
	rec[2] = 0x401000 + tid;
	rec[3] = (uint64_t)tid << 32 | tid;	/* pid, tid */
	rec[4] = t;
	rec[5] = period;
	perf_writer__write(w, rec, sizeof(rec));
}

int main(void)
{
	char dir[] = "/tmp/test-mux-hw.XXXXXX", *data, *slices, *cause = NULL;
	struct pd_evsel ev[NEV];
	uint64_t ids[NEV];
	struct perf_writer *w = NULL;
	struct perf_reader *rd = NULL;
	struct mux_log *log;
	struct rows r = { .tool = { .sample = on_sample } };
	struct pd_env env;
	FILE *f;
	double rel0, rel1;

	if (!mkdtemp(dir))
		plan_skip_all("no temporary directory");
	data = xasprintf("%s/perf.data", dir);
	slices = xasprintf("%s/slices.bin", dir);
	memset(ev, 0, sizeof(ev));
	for (int e = 0; e < NEV; e++) {
		ev[e].attr.size = sizeof(ev[e].attr);
		ev[e].attr.type = types[e];
		ev[e].attr.config = configs[e];
		ev[e].attr.sample_period = e == 0 ? 2000003 : 100003;
		ev[e].attr.sample_type = ST;
		ev[e].attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
					 PERF_FORMAT_TOTAL_TIME_RUNNING |
					 (group_of[e] >= 0 ? PERF_FORMAT_GROUP : 0);
		ev[e].attr.sample_id_all = 1;
		ev[e].name = (char *)(e == 0 ? "cycles" : e == 1 ? "r00c0" : e == 2 ? "r00c5" : "r010e");
		ids[e] = 1000 + (uint64_t)e;
		ev[e].ids = &ids[e];
		ev[e].nr_ids = 1;
	}
	ok(perf_writer__new(&w, data, ev, NEV, &cause) == 0, "perf_writer__new with hardware attrs");

	/* 1 s of run, slices of 250 ms: g0 [0,250) g1 [250,500) g0 [500,750) g1 [750,1000).
	 * Cycles at 4 GHz per thread: a sample every 0.5 ms per running thread.
	 * In each group's slices its events sample at a steady rate. */
	log = mux_log__new(NEV, group_of, 0, 250 * MS);
	f = fopen(slices, "wb");
	{
		struct { char m[8]; uint32_t n, ref; uint64_t ns; } h = { "GXSLICE1", NEV, 0, 250 * MS };

		fwrite(&h, sizeof(h), 1, f);
	}
	for (int s = 0; s < 4; s++) {
		uint64_t t0 = (uint64_t)s * 250 * MS, t1 = t0 + 250 * MS, rec[3 + NEV] = { 0 };
		uint32_t g = (uint32_t)(s % 2);

		for (uint64_t t = t0; t < t1; t += MS / 2) {
			put_sample(w, ids[0], 100, t, 2000003);
			rec[3 + 0] += 2000003;
			if (s == 0) {	/* tid 200 runs only now */
				put_sample(w, ids[0], 200, t + 1000, 2000003);
				rec[3 + 0] += 2000003;
			}
			if (g == 0 && (t / (MS / 2)) % 4 == 0) {
				put_sample(w, ids[1], 100, t + 2000, 100003);
				rec[3 + 1] += 100003;
				if (s == 0) {
					put_sample(w, ids[1], 200, t + 3000, 100003);
					rec[3 + 1] += 100003;
				}
			}
			if (g == 1 && (t / (MS / 2)) % 8 == 0) {
				put_sample(w, ids[3], 100, t + 2000, 100003);
				rec[3 + 3] += 100003;
			}
		}
		rec[0] = g;
		rec[1] = t0;
		rec[2] = t1;
		fwrite(rec, sizeof(rec), 1, f);
	}
	fclose(f);
	perf_writer__finished_round(w);
	pd_env__from_system(&env, 0, NULL);
	ok(perf_writer__finish(w, &env, &cause) == 0, "perf.data finished");
	pd_env__exit(&env);
	perf_writer__delete(w);
	mux_log__delete(log);

	ok(mux_log__read(&log, slices, &cause) == 0, "slice log read back");
	mux_log__set_groups(log, group_of, NEV);
	is_int(mux_log__nr_slices(log), 4, "four slices");
	is_double(mux_log__scale(log, 1), 2.0, 1e-9, "group 0 active half the run: row scale 2");
	r.log = log;
	ok(perf_reader__open(&rd, data, 0, &cause) == 0, "perf_reader opens it");
	if (rd) {
		is_int(perf_reader__nr_evsels(rd), NEV, "four events");
		is_int(perf_reader__evsel(rd, 1)->attr.type, PERF_TYPE_RAW, "raw hardware event kept");
		ok(perf_reader__process(rd, &r.tool, &cause) == 0, "samples walked");
		perf_reader__delete(rd);
	}
	ok(r.samples > 2500, "samples read (%llu)", (unsigned long long)r.samples);
	rel0 = mux_log__row_reliability(log, r.slot[0]);
	rel1 = mux_log__row_reliability(log, r.slot[1]);
	ok(rel0 >= 0.9, "steady thread: reliability %.3f >= 0.9", rel0);
	ok(rel1 < 0.7, "thread of the first slice only: reliability %.3f < 0.7", rel1);
	{
		/* tid 100's r00c0: counted at 1 per 4 cycles samples in g0's slices;
		 * all-run truth = the same rate over the whole second */
		double est = r.periods[0][1] * mux_log__scale(log, 1);
		double truth = 1000.0 * 2 / 4 * 100003;	/* a tick per 0.5 ms, 1 in 4 */

		ok(fabs(est / truth - 1) < 0.05, "steady row's group-0 estimate within 5%% (%.0f vs %.0f)",
		   est, truth);
		ok(r.slot[1][1] == 0, "tid 200 ran in no group-1 slice");
	}
	{
		struct mux_estimate e;

		is_int(mux_log__estimate(log, &e, NULL), 0, "whole-run estimate");
		ok(e.reliability < 0.9, "whole run with a one-phase thread: reliability %.3f below 0.9",
		   e.reliability);
		mux_estimate__exit(&e);
	}
	mux_log__delete(log);
	unlink(data);
	unlink(slices);
	rmdir(dir);
	free(data);
	free(slices);
	free(cause);
	return done_testing();
}
