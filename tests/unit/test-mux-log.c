/*
 * test-mux-log: the slice log, scaling, MUX reliability, intervals and
 * the -e list rewriting, on synthetic logs with known answers.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mux/mux.h"
#include "perfdata/perfdata.h"
#include "tap.h"
#include "topdown/topdown.h"

#define MS 1000000ULL

/* Events: 0 reference (always on), 1-2 group 0, 3 group 1. Slices of
 * 10 ms alternate g0/g1; the reference counts 10 per ms; event 1 counts
 * rate1 per ms, event 2 twice that, event 3 rate3 per ms. */
static struct mux_log *steady_log(size_t nslices, double rate1, double rate3)
{
	static const int group_of[] = { -1, 0, 0, 1 };
	struct mux_log *l = mux_log__new(4, group_of, 0, 10 * MS);

	for (size_t i = 0; i < nslices; i++) {
		uint32_t g = (uint32_t)(i % 2);
		uint64_t d[4] = { 100, 0, 0, 0 };

		/* a little noise, deterministic */
		double wobble = 1.0 + 0.02 * (double)((i * 7) % 5) - 0.04;

		if (g == 0) {
			d[1] = (uint64_t)(rate1 * 10 * wobble);
			d[2] = 2 * d[1];
		} else {
			d[3] = (uint64_t)(rate3 * 10 * wobble);
		}
		mux_log__add(l, g, i * 10 * MS, (i + 1) * 10 * MS, 0, d);
	}
	return l;
}

static double ratio_1_3(void *ctx, const double *est, size_t nr)
{
	(void)ctx;
	return nr > 3 && est[3] > 0 ? est[1] / est[3] : NAN;
}

static void test_reliability(void)
{
	double f[2] = { 0.5, 0.5 }, c[2];

	c[0] = 50, c[1] = 50;
	is_double(mux_reliability(c, f, 2), 1.0, 1e-12, "proportional: reliability 1");
	c[0] = 100, c[1] = 0;
	is_double(mux_reliability(c, f, 2), 0.0, 1e-12, "all in one group's slices: reliability 0");
	c[0] = 60, c[1] = 40;
	/* rho = 1.2, 0.8: rms 0.2 */
	is_double(mux_reliability(c, f, 2), 0.8, 1e-12, "60/40 over equal shares: 1 - rms(0.2, -0.2) = 0.8");
	c[0] = 0, c[1] = 0;
	ok(isnan(mux_reliability(c, f, 2)), "an empty row is n/a");
	f[0] = 0.75, f[1] = 0.25;
	c[0] = 75, c[1] = 25;
	is_double(mux_reliability(c, f, 2), 1.0, 1e-12, "unequal shares, proportional: 1");
	is_str(mux_reliability_word(0.95), "reliable", "0.95 is reliable");
	is_str(mux_reliability_word(0.8), "fair", "0.8 is fair");
	is_str(mux_reliability_word(0.5), "unreliable", "0.5 is unreliable");
	is_str(mux_reliability_word(NAN), "n/a", "NAN is n/a");
}

/* A row's reference period per group, as a profile with slot_of =
 * mux_log__group_at collects it (profile_row.slot_period). */
static void slot_add(uint64_t *slot, struct mux_log *l, uint64_t t, uint64_t period)
{
	int g = mux_log__group_at(l, t);

	if (g >= 0)
		slot[g] += period;
}

static void test_rows(void)
{
	struct mux_log *l = steady_log(100, 5, 3);	/* 1 s */
	uint64_t steady[2] = { 0 }, phase[2] = { 0 }, sparse[2] = { 0 }, none[2] = { 0 };

	is_int(mux_log__nr_groups(l), 2, "two groups");
	is_int(mux_log__find(l, 0), 0, "t=0 is in slice 0");
	is_int(mux_log__find(l, 10 * MS + 1), 1, "just after 10 ms is slice 1");
	is_int(mux_log__find(l, 999 * MS), 99, "999 ms is the last slice");
	is_int(mux_log__find(l, 2000 * MS), -1, "after the run: no slice");
	is_int(mux_log__group_at(l, 15 * MS), 1, "15 ms: group 1 counts");
	is_int(mux_log__group_at(l, 2000 * MS), -1, "after the run: no group");
	is_int(mux_log__run_ns(l), 1000 * MS, "run time: the slices' sum");
	is_int(mux_log__group_ns(l, 0), 500 * MS, "group 0's time");
	for (uint64_t t = 0; t < 1000 * MS; t += MS / 4)	/* 4 kHz, whole run */
		slot_add(steady, l, t, 1);
	for (uint64_t t = 0; t < 1000 * MS; t += MS / 4)	/* only in g0's slices */
		if ((t / (10 * MS)) % 2 == 0)
			slot_add(phase, l, t, 1);
	slot_add(sparse, l, 5 * MS, 1);
	slot_add(sparse, l, 25 * MS, 1);
	slot_add(sparse, l, 45 * MS, 1);
	ok(mux_log__row_reliability(l, steady) >= 0.99, "steady row: reliability >= 0.99 (%.3f)",
	   mux_log__row_reliability(l, steady));
	ok(mux_log__row_reliability(l, phase) < 0.1, "row seen by one group only: reliability < 0.1 (%.3f)",
	   mux_log__row_reliability(l, phase));
	ok(mux_log__row_reliability(l, sparse) < 0.7, "row with three samples: unreliable (%.3f)",
	   mux_log__row_reliability(l, sparse));
	ok(isnan(mux_log__row_reliability(l, none)), "row without reference samples: n/a");
	ok(isnan(mux_log__row_reliability(l, NULL)), "row without slot periods: n/a");
	mux_log__delete(l);
}

static void test_estimates(void)
{
	struct mux_log *l = steady_log(100, 5, 3);
	struct mux_estimate est;
	struct strbuf sb = STRBUF_INIT;
	const char *names[] = { "cpu-clock", "a", "b", "c" };
	double lo, hi, truth1 = 0, truth3 = 0;
	char *hint;

	/* what each event would have counted all run (same wobble) */
	for (size_t i = 0; i < 100; i++) {
		double wobble = 1.0 + 0.02 * (double)((i * 7) % 5) - 0.04;

		truth1 += (double)(uint64_t)(5 * 10 * wobble);
		truth3 += (double)(uint64_t)(3 * 10 * wobble);
	}
	is_double(mux_log__scale(l, 0), 1.0, 1e-12, "always-on events are not scaled");
	is_double(mux_log__scale(l, 1), 2.0, 1e-12, "a group active half the run scales by 2");
	is_int(mux_log__estimate(l, &est, NULL), 0, "estimate");
	is_double(est.ev[0].value, 10000, 1e-9, "the reference is its count");
	ok(fabs(est.ev[1].value / truth1 - 1) < 0.03, "group 0 event within 3%% of what it counted all run");
	ok(fabs(est.ev[3].value / truth3 - 1) < 0.03, "group 1 event within 3%% of what it counted all run");
	ok(est.ev[1].lo <= est.ev[1].value && est.ev[1].value <= est.ev[1].hi, "the interval holds the estimate");
	ok(est.ev[1].lo <= truth1 && truth1 <= est.ev[1].hi, "the 95%% interval holds the truth");
	ok(est.ev[1].hi - est.ev[1].lo > 0, "a group event's interval has a width");
	is_double(est.ev[0].hi - est.ev[0].lo, 0, 0, "an always-on event's interval is exact");
	is_double(est.reliability, 1.0, 1e-9, "whole run of a steady log: reliability 1");
	is_int(est.min_slices, 50, "50 slices per group");
	ok(mux_estimate__hint(&est, 10) == NULL, "no hint with 50 slices per group");
	mux_log__interval(l, ratio_1_3, NULL, 0.95, 300, 7, &lo, &hi);
	ok(lo <= truth1 / truth3 && truth1 / truth3 <= hi, "a cross-group ratio's interval [%.3f, %.3f] holds %.3f",
	   lo, hi, truth1 / truth3);
	mux_estimate__render(&est, names, &sb);
	ok(sb.buf && strstr(sb.buf, "MUX reliability: 1.00 (reliable"), "the text block shows the reliability");
	ok(sb.buf && strstr(sb.buf, "x2.00"), "the text block shows the scale");
	strbuf__exit(&sb);
	{
		json_t *j = mux_estimate__to_json(&est, names);

		ok(json_is_array(json_object_get(j, "events")) &&
		   json_array_size(json_object_get(j, "events")) == 4, "JSON lists the events");
		{
			json_t *e0 = json_array_get(json_object_get(j, "events"), 0);

			ok(json_object_get(e0, "estimate") && json_object_get(e0, "estimate_lo") &&
			   json_object_get(e0, "estimate_hi") && !json_object_get(e0, "lo"),
			   "an estimate's keys are meta.json's: estimate, estimate_lo, estimate_hi");
		}
		json_decref(j);
	}
	mux_estimate__exit(&est);
	mux_log__delete(l);

	l = steady_log(6, 5, 3);
	mux_log__estimate(l, &est, NULL);
	hint = mux_estimate__hint(&est, 10);
	ok(hint && strstr(hint, "--mux-runs"), "3 slices per group: a hint to run longer or use --mux-runs");
	free(hint);
	mux_estimate__exit(&est);
	mux_log__delete(l);

	mux_format_interval(&sb, 0.412, 0.389, 0.435, true);
	is_str(sb.buf, "41.2% [38.9-43.5]", "a fraction with its interval");
	strbuf__exit(&sb);
	mux_format_interval(&sb, 1234, NAN, NAN, false);
	is_str(sb.buf, "1234", "no interval when n/a");
	strbuf__exit(&sb);
}

/* A reference whose rate changes between groups: scaling goes by the
 * workload's time (the reference), not by the wall clock. */
static void test_reference_scaling(void)
{
	static const int group_of[] = { -1, 0, 1 };
	struct mux_log *l = mux_log__new(3, group_of, 0, 10 * MS);
	struct mux_estimate est;

	for (size_t i = 0; i < 40; i++) {
		/* the workload gets the CPU half the time in g1's slices */
		uint64_t ref = i % 2 ? 50 : 100;
		uint64_t d[3] = { ref, i % 2 ? 0 : 2 * ref, i % 2 ? 3 * ref : 0 };

		mux_log__add(l, (uint32_t)(i % 2), i * 10 * MS, (i + 1) * 10 * MS, 0, d);
	}
	mux_log__estimate(l, &est, NULL);
	/* all-run truth: 2 and 3 per reference unit over 20*100 + 20*50 */
	is_double(est.ev[1].value, 2.0 * 3000, 1e-6, "event of g0 scaled by the reference's share");
	is_double(est.ev[2].value, 3.0 * 3000, 1e-6, "event of g1 scaled by the reference's share");
	ok(est.reliability < 0.9, "a reference that moves with the groups lowers reliability (%.3f)",
	   est.reliability);
	mux_estimate__exit(&est);
	mux_log__delete(l);
}

/* GXSLICE2: slices weighed by the workload's time in them (task_ns), the
 * always-on events' counts from the totals record, not from the slices. */
static void test_task_time(void)
{
	static const int group_of[] = { -1, 0, 1 };
	struct mux_log *l = mux_log__new(3, group_of, 0, 10 * MS);
	struct mux_estimate est;
	uint64_t totals[3] = { 123456, 999, 999 };

	for (size_t i = 0; i < 40; i++) {
		/* the workload runs 8 ms of g0's slices and 2 ms of g1's */
		uint64_t task = i % 2 ? 2 * MS : 8 * MS;
		uint64_t d[3] = { 0, i % 2 ? 0 : 5 * task, i % 2 ? 7 * task : 0 };

		mux_log__add(l, (uint32_t)(i % 2), i * 10 * MS, (i + 1) * 10 * MS, task, d);
	}
	mux_log__set_totals(l, totals);
	is_int(mux_log__estimate(l, &est, NULL), 0, "estimates from task-time slices");
	/* truth: 5 and 7 per ns of the workload's 20 * (8 + 2) ms */
	is_double(est.ev[1].value, 5.0 * 200 * MS, 1e-6, "g0's event scaled by the workload's time");
	is_double(est.ev[2].value, 7.0 * 200 * MS, 1e-6, "g1's event scaled by the workload's time");
	is_double(est.ev[0].value, 123456, 0, "always-on event: the totals, not its slice deltas");
	is_double(est.ev[0].lo, 123456, 0, "always-on event: exact");
	ok(est.reliability < 0.7, "the workload's time moving with the groups is unreliable (%.3f)",
	   est.reliability);
	is_double(mux_log__scale(l, 1), 2.0, 1e-9, "row scale stays wall-clock: run / group time");
	mux_estimate__exit(&est);
	mux_log__delete(l);

	/* steady: the same share of CPU in every slice is reliable */
	l = mux_log__new(3, group_of, 0, 10 * MS);
	for (size_t i = 0; i < 40; i++) {
		uint64_t task = 9 * MS + (i * 37 % 5) * 10000;
		uint64_t d[3] = { 0, i % 2 ? 0 : task / 100, i % 2 ? task / 50 : 0 };

		mux_log__add(l, (uint32_t)(i % 2), i * 10 * MS, (i + 1) * 10 * MS, task, d);
	}
	mux_log__estimate(l, &est, NULL);
	ok(est.reliability >= 0.99, "steady task time is reliable (%.4f)", est.reliability);
	is_double(est.ev[0].value, 0, 0, "no totals record: the always-on slice deltas (0)");
	mux_estimate__exit(&est);
	mux_log__delete(l);
}

static void test_file2(void)
{
	char path[] = "/tmp/test-mux-log2.XXXXXX";
	int fd = mkstemp(path);
	static const int group_of[] = { -1, 0, 1 };
	struct {
		char magic[8];
		uint32_t nr, ref;
		uint64_t slice_ns;
	} h = { "GXSLICE2", 3, 0, 10 * MS };
	struct {
		uint32_t group, flags;
		uint64_t start, end, task;
		uint64_t d[3];
	} rec;
	struct mux_log *l = NULL;
	struct mux_estimate est;
	char *cause = NULL;

	ok(fd >= 0, "temp file");
	write(fd, &h, sizeof(h));
	for (uint32_t i = 0; i < 6; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.group = i % 2;
		rec.start = i * 10 * MS;
		rec.end = (i + 1) * 10 * MS;
		rec.task = i % 2 ? 4 * MS : 8 * MS;
		rec.d[1 + i % 2] = rec.task / 1000;
		write(fd, &rec, sizeof(rec));
	}
	memset(&rec, 0, sizeof(rec));
	rec.flags = MUX_SLICE_TOTALS;
	rec.d[0] = 36 * MS;
	write(fd, &rec, sizeof(rec));
	write(fd, &rec, 30);	/* torn */
	close(fd);
	is_int(mux_log__read(&l, path, &cause), 0, "read a GXSLICE2 log");
	is_int(mux_log__nr_slices(l), 6, "six slices: the totals record and a torn one are not slices");
	is_int(mux_log__slice(l, 1)->task_ns, 4 * MS, "task_ns read back");
	mux_log__set_groups(l, group_of, 3);
	mux_log__estimate(l, &est, NULL);
	is_double(est.ev[0].value, 36 * MS, 0, "always-on event from the totals record");
	is_double(est.ev[1].value, 36 * MS / 1000.0, 1e-6, "g0 per workload time over the run");
	is_double(est.ev[2].value, 36 * MS / 1000.0, 1e-6, "g1 per workload time over the run");
	mux_estimate__exit(&est);
	mux_log__delete(l);
	{
		/* a link to the same log is not followed (another user's
		 * result could aim it at any file) */
		char link[sizeof(path) + 8];

		snprintf(link, sizeof(link), "%s.link", path);
		unlink(link);
		ok(symlink(path, link) == 0, "a link to the log");
		l = NULL;
		free(cause);
		cause = NULL;
		ok(mux_log__read(&l, link, &cause) < 0 && !l, "a link is refused");
		ok(cause && strstr(cause, "symbolic link"), "... and says so: %s", cause ? cause : "");
		free(cause);
		cause = NULL;
		unlink(link);
	}
	unlink(path);
}

/* The writer collect uses, read back by mux_log__read: the layout of
 * test_file2 byte for byte, more slices than one buffer holds, a new
 * 0600 file that replaces a symlink rather than writing through it. */
static void test_writer(void)
{
	char dir[] = "/tmp/test-mux-writer.XXXXXX";
	char *path, *target;
	struct mux_log_writer *w = NULL;
	struct mux_log *l = NULL;
	struct stat st;
	uint64_t d[3], totals[3] = { 36 * MS, 0, 0 };
	char *cause = NULL, *bytes;
	size_t len = 0, rec = 32 + 3 * 8, nslices = 3000;
	int fd, err, same = 1;

	ok(mkdtemp(dir) != NULL, "temp dir");
	path = xasprintf("%s/slices.bin", dir);
	target = xasprintf("%s/target", dir);
	fd = open(target, O_WRONLY | O_CREAT, 0644);
	close(fd);
	ok(symlink(target, path) == 0, "a symlink where the log goes");

	is_int(mux_log_writer__new(&w, AT_FDCWD, path, 3, 0, 10 * MS, &cause), 0, "writer: new");
	for (size_t i = 0; i < nslices; i++) {
		struct mux_slice sl = {
			.group = (uint32_t)(i % 2),
			.start_ns = i * 10 * MS,
			.end_ns = (i + 1) * 10 * MS,
			.task_ns = i % 2 ? 4 * MS : 8 * MS,
			.delta = d,
		};

		memset(d, 0, sizeof(d));
		d[1 + i % 2] = sl.task_ns / 1000;
		if (mux_log_writer__slice(w, &sl) != 0)
			break;
	}
	is_int(mux_log_writer__totals(w, totals), 0, "writer: totals, flushed");
	mux_log_writer__delete(w);

	ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "the symlink was replaced by a file");
	is_int(st.st_mode & 0777, 0600, "mode 0600");
	ok(stat(target, &st) == 0 && st.st_size == 0, "the symlink's target is untouched");
	bytes = gx_read_file(path, 1 << 24);
	ok(stat(path, &st) == 0 && (size_t)st.st_size == 24 + (nslices + 1) * rec,
	   "header, %zu slices and the totals record", nslices);
	len = (size_t)st.st_size;
	/* the layout mux.h documents, as test_file2 writes it by hand */
	for (size_t i = 0; bytes && i < nslices + 1 && same; i++) {
		const char *r = bytes + 24 + i * rec;
		uint32_t g, flags;
		uint64_t v[6];

		memcpy(&g, r, 4);
		memcpy(&flags, r + 4, 4);
		memcpy(v, r + 8, sizeof(v));
		if (i == nslices)
			same = flags == MUX_SLICE_TOTALS && g == 0 && v[0] == 0 && v[3] == 36 * MS;
		else
			same = flags == 0 && g == i % 2 && v[0] == i * 10 * MS &&
			       v[1] == (i + 1) * 10 * MS && v[2] == (i % 2 ? 4 : 8) * MS &&
			       v[3] == 0 && v[4 + i % 2] == v[2] / 1000 && v[5 - i % 2] == 0;
	}
	ok(bytes && len > 24 && !memcmp(bytes, "GXSLICE2", 8) && same,
	   "records at mux.h's offsets");
	free(bytes);

	is_int(mux_log__read(&l, path, &cause), 0, "read back");
	is_int(mux_log__nr_slices(l), nslices, "every slice read back");
	is_int(mux_log__reference(l), 0, "reference");
	is_int(mux_log__slice(l, 1)->task_ns, 4 * MS, "task_ns");
	is_int(mux_log__slice(l, 2)->delta[1], 8 * MS / 1000, "a delta");
	mux_log__delete(l);

	err = mux_log_writer__new(&w, AT_FDCWD, path, 0, -1, 10 * MS, &cause);
	ok(err < 0 && !w && cause, "no events: refused (%s)", cause);
	free(cause);
	unlink(path);
	unlink(target);
	rmdir(dir);
	free(path);
	free(target);
}

static void test_file(void)
{
	char path[] = "/tmp/test-mux-log.XXXXXX";
	int fd = mkstemp(path);
	struct {
		char magic[8];
		uint32_t nr, ref;
		uint64_t slice_ns;
	} h = { "GXSLICE1", 2, 0, 10 * MS };
	uint64_t rec[3 + 2];
	struct mux_log *l = NULL;
	char *cause = NULL;

	ok(fd >= 0, "temp file");
	write(fd, &h, sizeof(h));
	for (int i = 0; i < 4; i++) {
		rec[0] = (uint64_t)(i % 2);
		rec[1] = (uint64_t)i * 10 * MS;
		rec[2] = (uint64_t)(i + 1) * 10 * MS;
		rec[3] = 100;
		rec[4] = 7;
		write(fd, rec, sizeof(rec));
	}
	write(fd, rec, 20);	/* a torn last slice */
	close(fd);
	is_int(mux_log__read(&l, path, &cause), 0, "read the slice log");
	is_int(mux_log__nr_slices(l), 4, "four complete slices, the torn one dropped");
	is_int(mux_log__reference(l), 0, "reference from the header");
	is_int(mux_log__nr_groups(l), 2, "groups from the slices");
	mux_log__delete(l);
	fd = open(path, O_WRONLY | O_TRUNC);
	write(fd, "garbage!garbage!garbage!", 24);
	close(fd);
	ok(mux_log__read(&l, path, &cause) == GX_E_FORMAT && cause, "garbage is refused: %s", cause);
	free(cause);
	unlink(path);
}

static void test_spec(void)
{
	char *out = NULL, **runs = NULL;
	size_t ng = 0, nr = 0;

	is_int(mux_spec_normalize("{page-faults,context-switches},{minor-faults,task-clock}", NULL,
				  &out, &ng, NULL), 0, "normalize");
	is_str(out, "cpu-clock,{page-faults,context-switches},{minor-faults,task-clock}",
	       "software groups get cpu-clock as the reference");
	is_int(ng, 2, "two groups");
	is_int(mux_spec_split_runs(out, &runs, &nr, NULL), 0, "split into runs");
	is_int(nr, 2, "one run per group");
	is_str(runs[0], "cpu-clock,{page-faults,context-switches}", "run 1");
	is_str(runs[1], "cpu-clock,{minor-faults,task-clock}", "run 2");
	mux_strv_free(runs);
	free(out);
	mux_spec_normalize("{r1c2,r10e},task-clock,{r3c}", NULL, &out, &ng, NULL);
	is_str(out, "task-clock,{r1c2,r10e},{r3c}", "events outside groups go first, no reference added");
	free(out);
	mux_spec_normalize("{r1c2,r10e},{r3c}", NULL, &out, &ng, NULL);
	is_str(out, "cycles,{r1c2,r10e},{r3c}", "hardware groups get cycles as the reference");
	free(out);
	mux_spec_normalize("{page-faults,minor-faults}", NULL, &out, &ng, NULL);
	is_str(out, "{page-faults,minor-faults}", "one group: nothing to rotate, unchanged");
	free(out);
	ok(mux_spec_normalize("{a,", NULL, &out, &ng, NULL) < 0, "a broken list is an error");
}

/* CPI of the generic model with cycles always on and instructions in one
 * of two rotating groups: its interval holds the all-run truth. */
static void test_node_intervals(void)
{
	static const int group_of[] = { -1, 0, 1 };
	struct td_model *m = NULL;
	struct mux_log *l;
	struct td_ctx ctx = { .smt = TD_SMT_OFF };
	char *cause = NULL;
	double cycles = 0, instr = 0, *lo, *hi;
	int map[3], cpi;

	if (td_model__load("generic", NULL, &m, &cause)) {
		skip(3, "no generic model");
		free(cause);
		return;
	}
	map[0] = td_model__find_event(m, "cycles");
	map[1] = td_model__find_event(m, "instructions");
	map[2] = -1;
	l = mux_log__new(3, group_of, 0, 10 * MS);
	for (size_t i = 0; i < 200; i++) {
		uint64_t c = 1000000 + (i * 7919) % 50000;
		uint64_t in = (uint64_t)((double)c * (1.5 + 0.1 * (double)((i * 13) % 7) / 7));
		uint64_t d[3] = { c, i % 2 ? 0 : in, i % 2 ? 5 : 0 };

		cycles += (double)c;
		instr += (double)in;	/* what instructions counted, had it run all the time */
		mux_log__add(l, (uint32_t)(i % 2), i * 10 * MS, (i + 1) * 10 * MS, 0, d);
	}
	cpi = td_model__find_node(m, "CPI");
	lo = calloc(td_model__nr_nodes(m), sizeof(*lo));
	hi = calloc(td_model__nr_nodes(m), sizeof(*hi));
	is_int(mux_log__node_intervals(l, m, &ctx, map, 0.95, 200, lo, hi, &cause), 0,
	       "intervals for every node of the generic model");
	ok(cpi >= 0 && lo[cpi] <= cycles / instr && cycles / instr <= hi[cpi],
	   "CPI's 95%% interval [%.4f, %.4f] holds %.4f", cpi >= 0 ? lo[cpi] : NAN,
	   cpi >= 0 ? hi[cpi] : NAN, cycles / instr);
	ok(cpi >= 0 && hi[cpi] - lo[cpi] > 0 && hi[cpi] - lo[cpi] < 0.1 * cycles / instr,
	   "... and is narrow with 100 slices per group");
	free(lo);
	free(hi);
	mux_log__delete(l);
	td_model__delete(m);
}

static void test_row_intervals(void)
{
	struct td_model *m = NULL;
	struct td_ctx ctx = { .smt = TD_SMT_OFF };
	double *counts, *sd, *lo, *hi;
	size_t ne;
	int cpi, cyc, ins;

	if (td_model__load("generic", NULL, &m, NULL)) {
		skip(4, "no generic model");
		return;
	}
	ne = td_model__nr_events(m);
	counts = calloc(ne, sizeof(*counts));
	sd = calloc(ne, sizeof(*sd));
	lo = calloc(td_model__nr_nodes(m), sizeof(*lo));
	hi = calloc(td_model__nr_nodes(m), sizeof(*hi));
	for (size_t i = 0; i < ne; i++)
		counts[i] = NAN;
	cyc = td_model__find_event(m, "cycles");
	ins = td_model__find_event(m, "instructions");
	cpi = td_model__find_node(m, "CPI");
	counts[cyc] = 2e9;
	counts[ins] = 1e9;
	sd[cyc] = 0;
	sd[ins] = mux_row_rel_sd(10000, 1.0);	/* 1% */
	is_double(sd[ins], 0.01, 1e-12, "10000 samples, reliability 1: 1% relative error");
	is_double(mux_row_rel_sd(10000, 0.9), sqrt(0.0001 + 0.01), 1e-12, "reliability 0.9 adds 10%");
	is_int(mux_row_node_intervals(m, &ctx, counts, sd, 0.95, 400, 1, lo, hi, NULL), 0,
	       "row intervals");
	ok(lo[cpi] > 1.94 && lo[cpi] < 1.98 && hi[cpi] > 2.02 && hi[cpi] < 2.06,
	   "CPI 2.00 with 1%% error on instructions: [%.3f, %.3f], about +-2%%", lo[cpi], hi[cpi]);
	free(counts);
	free(sd);
	free(lo);
	free(hi);
	td_model__delete(m);
}

static void test_meta_render(void)
{
	struct gx_meta meta;
	struct gx_meta_event ev[2];
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	gx_meta__init(&meta);
	mux_meta__render(&meta, &sb);
	ok(sb.len == 0, "no block for a run that was not multiplexed");
	memset(ev, 0, sizeof(ev));
	ev[0].name = "cpu-clock";
	ev[0].group = -1;
	ev[0].has_estimate = true;
	ev[0].estimate = ev[0].estimate_lo = ev[0].estimate_hi = 1000;
	ev[1].name = "page-faults";
	ev[1].group = 0;
	ev[1].has_estimate = true;
	ev[1].estimate = 2000;
	ev[1].estimate_lo = 1900;
	ev[1].estimate_hi = 2100;
	ev[1].scale = 2;
	meta.events = ev;
	meta.nr_events = 2;
	meta.mux.mode = "gexplore";
	meta.mux.nr_groups = 2;
	meta.mux.nr_slices = 40;
	meta.mux.slice_ms = 10;
	meta.mux.min_slices = 20;
	meta.mux.reliability = 0.5;
	mux_meta__render(&meta, &sb);
	ok(sb.buf && strstr(sb.buf, "MUX reliability: 0.50 (unreliable)"), "the block shows the reliability");
	ok(sb.buf && strstr(sb.buf, "2000 [1900-2100]"), "... the estimates with their intervals");
	ok(sb.buf && strstr(sb.buf, "group 1, x2.00") && strstr(sb.buf, "always on"),
	   "... each event's group and scale");
	strbuf__exit(&sb);
	j = mux_meta__to_json(&meta);
	ok(j && json_array_size(json_object_get(j, "events")) == 2 &&
	   json_real_value(json_object_get(j, "reliability")) == 0.5, "the same as JSON");
	ok(j && !json_object_get(j, "rows"), "no stored rows: readers compute them");
	json_decref(j);
}

/* The one scaling rule (gx_scale), every case. */
static void test_scale(void)
{
	static const struct {
		int line;
		double count, enabled, running;
		double value, scale, share;	/* NAN: NAN expected */
		bool multiplexed;
	} t[] = {
		{ __LINE__, 26853388, 1000, 533.3, 26853388.0 * 1000 / 533.3, 1000 / 533.3, 0.5333, true },
		{ __LINE__, 100, 2e9, 2e9, 100, 1, 1, false },		/* never left its counter */
		{ __LINE__, 100, 2e9, 2.0001e9, 100, 1, 1, false },	/* clocks read apart */
		{ __LINE__, 100, 1e9, 0.9995e9, 100 / 0.9995, 1 / 0.9995, 0.9995, false },
		{ __LINE__, 100, 0, 0, 100, 1, NAN, false },		/* no times: it stands */
		{ __LINE__, 100, 1e9, 0, NAN, NAN, NAN, false },	/* never counted */
		{ __LINE__, 0, 1e9, 1e8, 0, 10, 0.1, true },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gx_scaled s;

		gx_scale(t[i].count, t[i].enabled, t[i].running, &s);
		ok_at(isnan(t[i].value) ? isnan(s.value) : fabs(s.value - t[i].value) <= 1e-9 * fabs(t[i].value) + 1e-9,
		      __FILE__, t[i].line, "gx_scale value %g", s.value);
		ok_at(isnan(t[i].scale) ? isnan(s.scale) : fabs(s.scale - t[i].scale) < 1e-9,
		      __FILE__, t[i].line, "gx_scale scale %g", s.scale);
		ok_at(isnan(t[i].share) ? isnan(s.running) : fabs(s.running - t[i].share) < 1e-9,
		      __FILE__, t[i].line, "gx_scale running %g", s.running);
		ok_at(s.multiplexed == t[i].multiplexed, __FILE__, t[i].line, "gx_scale multiplexed");
	}
	is_double(gx_scale_factor(3e9, 1e9), 3.0, 1e-12, "the factor alone");
	{
		char *w = gx_running_warning("r11", 0.05), *none = gx_running_warning("r11", 0.5);
		struct strbuf sb = STRBUF_INIT;

		ok(w && strstr(w, "r11 counted only 5.00% of the run"), "a warning below 10%%");
		ok(!none, "none at half the run");
		gx_format_running(&sb, 0.53333);
		is_str(sb.buf, "(53.33%)", "perf stat's running share");
		strbuf__exit(&sb);
		gx_format_running(&sb, 1.0);
		ok(!sb.len, "nothing for the whole run");
		strbuf__exit(&sb);
		free(w);
		free(none);
	}
}

/*
 * Issue 26: task-clock in a rotating group counts exactly the group's
 * running time, so every slice's ratio is 1 and the bootstrap saw no
 * spread; the workload's time between slices was in no slice, and the
 * estimate came out short inside an interval of zero width. Here the
 * workload runs all the time (task = wall), 9.9 ms slices with 0.1 ms
 * gaps: the truth is the whole 40 x 10 ms.
 */
static void test_gaps(void)
{
	static const int group_of[] = { -1, 0, 1 };
	struct mux_log *l = mux_log__new(3, group_of, 0, 10 * MS);
	struct mux_estimate est;
	double truth = 40 * 10 * MS - 0.1 * MS;	/* first start to last end */

	for (size_t i = 0; i < 40; i++) {
		uint64_t t0 = i * 10 * MS, task = 99 * MS / 10;
		uint64_t d[3] = { 0, i % 2 ? 0 : 3 * task, i % 2 ? task : 0 };

		mux_log__add(l, (uint32_t)(i % 2), t0, t0 + task, task, d);
	}
	is_int(mux_log__estimate(l, &est, NULL), 0, "estimates from slices with gaps");
	diag("task-clock-like: [%.0f %.0f %.0f], truth %.0f", est.ev[2].lo, est.ev[2].value,
	     est.ev[2].hi, truth);
	ok(est.ev[2].hi > est.ev[2].lo, "a constant ratio still has an interval of some width");
	ok(est.ev[2].lo <= truth && truth <= est.ev[2].hi, "and it holds the truth (gaps included)");
	ok(est.ev[2].value > 40 * 99 * MS / 10, "the estimate counts some of the gaps' time");
	ok(est.ev[1].lo <= 3 * truth && 3 * truth <= est.ev[1].hi, "so does g0's event's");
	mux_estimate__exit(&est);
	mux_log__delete(l);

	/* one slice per group: no interval, rather than one of zero width */
	l = mux_log__new(3, group_of, 0, 10 * MS);
	for (size_t i = 0; i < 2; i++) {
		uint64_t d[3] = { 0, i ? 0 : 5 * MS, i ? 7 * MS : 0 };

		mux_log__add(l, (uint32_t)i, i * 10 * MS, (i + 1) * 10 * MS, 10 * MS, d);
	}
	mux_log__estimate(l, &est, NULL);
	ok(isnan(est.ev[1].lo) && isnan(est.ev[1].hi), "one slice: no interval (n/a)");
	mux_estimate__exit(&est);
	mux_log__delete(l);
}

/*
 * The kernel's multiplexing from a synthetic log of periods (10 ms each,
 * the task running all of it): event 0 never left its counter, event 1
 * counted at a steady rate (+-2%, deterministic) for 3-7 ms of each
 * period, event 2 the same but its rate quadrupled half way through, event
 * 3 like 1 but it ran in no period. The truth: each period's rate over
 * the whole period.
 */
#define KP 200
static struct mux_log *kernel_log(double *truth1, double *truth2, double *run1, double *run2,
				  double *cnt1, double *cnt2)
{
	static const int group_of[] = { -1, -1, -1, -1 };
	struct mux_log *l = mux_log__new(4, group_of, -1, 10 * MS);

	*truth1 = *truth2 = *run1 = *run2 = *cnt1 = *cnt2 = 0;
	for (size_t p = 0; p < KP; p++) {
		double wobble = 1.0 + 0.01 * (double)((p * 7) % 5) - 0.02;
		double r1 = 1000 * wobble, r2 = (p < KP / 2 ? 500 : 2000) * wobble;
		uint64_t u = (3 + p % 5) * MS, u2 = (7 - p % 5) * MS;
		uint64_t c[4] = { 10 * MS, (uint64_t)(r1 * (double)u / MS),
				  (uint64_t)(r2 * (double)u2 / MS), 0 };
		uint64_t run[4] = { 10 * MS, u, u2, 0 };

		mux_log__add_kernel(l, p * 10 * MS, (p + 1) * 10 * MS, 10 * MS, c, run);
		*truth1 += r1 * 10;
		*truth2 += r2 * 10;
		*run1 += (double)u;
		*run2 += (double)u2;
		*cnt1 += (double)c[1];
		*cnt2 += (double)c[2];
	}
	return l;
}

static void test_kernel(void)
{
	double truth1, truth2, run1, run2, cnt1, cnt2, en = (double)KP * 10 * MS;
	struct mux_log *l = kernel_log(&truth1, &truth2, &run1, &run2, &cnt1, &cnt2), *back = NULL;
	struct mux_kernel_estimate k, k2;
	char dir[] = "/tmp/test-mux-kernel.XXXXXX", *path, *cause = NULL;
	struct mux_log_writer *w = NULL;
	int same = 1;

	is_int(mux_log__nr_kernel(l), KP, "kernel: %d periods", KP);
	is_int(mux_log__nr_slices(l), 0, "kernel: no rotation slices");

	mux_log__kernel_estimate(l, 0, en, en, en, &k);
	ok(k.exact && k.lo == k.value && k.hi == k.value && isnan(k.reliability),
	   "kernel: an event never multiplexed is exact, no reliability");

	mux_log__kernel_estimate(l, 1, cnt1, en, run1, &k);
	diag("steady: %.0f [%.0f-%.0f], truth %.0f, reliability %.3f", k.value, k.lo, k.hi, truth1,
	     k.reliability);
	ok(!k.exact && k.periods == KP, "kernel steady: multiplexed, in every period");
	is_double(k.value, cnt1 * en / run1, 1e-6, "kernel steady: the one rule's estimate");
	ok(k.lo <= truth1 && truth1 <= k.hi, "kernel steady: the interval holds the truth");
	ok(k.hi > k.lo && (k.hi - k.lo) / k.value < 0.05,
	   "kernel steady: the interval has some width, under 5%% (%.3f%%)",
	   100 * (k.hi - k.lo) / k.value);
	ok(k.reliability > 0.95, "kernel steady: reliability near 1 (%.3f)", k.reliability);

	mux_log__kernel_estimate(l, 2, cnt2, en, run2, &k);
	diag("phases: %.0f [%.0f-%.0f], truth %.0f, reliability %.3f", k.value, k.lo, k.hi, truth2,
	     k.reliability);
	ok(k.reliability < MUX_UNRELIABLE, "kernel phases: the rate changed, reliability drops (%.3f)",
	   k.reliability);
	ok(k.lo <= truth2 && truth2 <= k.hi, "kernel phases: the interval holds the truth");

	{
		/* the kernel gave the event 80% of each period while its rate
		 * was low, 20% once it quadrupled: the one rule is far low,
		 * the periods' own scaling is not, and the interval spans both */
		static const int g4[] = { -1 };
		struct mux_log *b = mux_log__new(1, g4, -1, 10 * MS);
		double cnt = 0, run = 0, truth = 0;

		for (size_t p = 0; p < KP; p++) {
			uint64_t u = (p < KP / 2 ? 8 : 2) * MS, c = (p < KP / 2 ? 500 : 2000) * (u / MS);

			mux_log__add_kernel(b, p * 10 * MS, (p + 1) * 10 * MS, 10 * MS, &c, &u);
			cnt += (double)c;
			run += (double)u;
			truth += (p < KP / 2 ? 500 : 2000) * 10.0;
		}
		mux_log__kernel_estimate(b, 0, cnt, en, run, &k);
		diag("biased shares: %.0f [%.0f-%.0f], periods' scaling %.0f, truth %.0f", k.value, k.lo,
		     k.hi, k.stratified, truth);
		ok(k.value < 0.7 * truth, "kernel shares follow the phases: the one rule is low");
		is_double(k.stratified, truth, 1e-9 * truth, "... the periods' own scaling is the truth");
		ok(k.lo <= truth && truth <= k.hi, "... and the interval holds it");
		mux_log__delete(b);
	}

	mux_log__kernel_estimate(l, 3, 0, en, 0, &k);
	ok(isnan(k.value) && isnan(k.lo) && isnan(k.reliability) && !k.exact,
	   "kernel: an event that never ran has no estimate");

	{
		double c[3] = { 100, 100, 400 }, u[3] = { 1, 1, 1 }, c1[2] = { 5, 10 }, u1[2] = { 1, 2 };

		is_double(mux_kernel_reliability(c1, u1, 2), 1.0, 1e-12,
			  "reliability: one rate however long it ran");
		/* R = 200; rho = .5, .5, 2: sqrt((.25 + .25 + 1) / 3) */
		is_double(mux_kernel_reliability(c, u, 3), 1 - sqrt(1.5 / 3), 1e-12,
			  "reliability: the definition");
		ok(isnan(mux_kernel_reliability(c, u, 0)), "reliability: no periods, n/a");
	}

	/* the log's kernel records: written through the writer, read back */
	ok(mkdtemp(dir) != NULL, "kernel: temp dir");
	path = xasprintf("%s/slices.bin", dir);
	is_int(mux_log_writer__new(&w, AT_FDCWD, path, 4, -1, 10 * MS, &cause), 0, "kernel: writer");
	for (size_t p = 0; p < KP; p++) {
		uint64_t c[4], run[4];
		/* the tasks' time read with each event: 10 ms, but 20 ms the
		 * task_ns says (taken over every event); the per-event wins */
		uint64_t en10[4] = { 10 * MS, 10 * MS, 10 * MS, 10 * MS };
		struct mux_slice sl = { .group = 0, .start_ns = p * 10 * MS,
					.end_ns = (p + 1) * 10 * MS, .task_ns = 20 * MS, .delta = c,
					.running = run, .enabled = en10 };

		c[0] = run[0] = 10 * MS;
		run[1] = (3 + p % 5) * MS;
		run[2] = (7 - p % 5) * MS;
		run[3] = c[3] = 0;
		c[1] = 1000 * (run[1] / MS);
		c[2] = 3000 * (run[2] / MS);
		if (mux_log_writer__slice(w, &sl) != 0)
			same = 0;
	}
	mux_log_writer__delete(w);
	is_int(mux_log__read(&back, path, &cause), 0, "kernel: read back");
	is_int(back ? mux_log__nr_kernel(back) : 0, KP, "kernel: every period read back");
	is_int(back ? mux_log__nr_slices(back) : 1, 0, "kernel: none taken for a rotation slice");
	if (back) {
		mux_log__kernel_estimate(back, 1, 1000.0 * 5 * KP, en, 5.0 * MS * KP, &k);
		mux_log__kernel_estimate(back, 2, 3000.0 * 5 * KP, en, 5.0 * MS * KP, &k2);
		ok(same && k.periods == KP && k.reliability > 0.999 && k2.reliability > 0.999,
		   "kernel: the periods' counts and running times as written");
		is_double(k.stratified, 1000.0 * 10 * KP, 1e-6,
			  "kernel: and the tasks' times read with each event");
	}
	mux_log__delete(back);
	unlink(path);
	rmdir(dir);
	free(path);
	free(cause);
	mux_log__delete(l);
}

/* The kernel's block in the report: exact events, reliabilities. */
static void test_kernel_render(void)
{
	struct gx_meta meta;
	struct gx_meta_event ev[2];
	struct strbuf sb = STRBUF_INIT;
	json_t *j, *e1;

	gx_meta__init(&meta);
	memset(ev, 0, sizeof(ev));
	ev[0].name = "cpu-clock";
	ev[0].group = -1;
	ev[0].has_estimate = true;
	ev[0].estimate = ev[0].estimate_lo = ev[0].estimate_hi = 1000;
	ev[0].scale = 1;
	ev[1].name = "instructions";
	ev[1].group = -1;
	ev[1].has_estimate = true;
	ev[1].estimate = 2000;
	ev[1].estimate_lo = 1900;
	ev[1].estimate_hi = 2100;
	ev[1].scale = 2;
	ev[1].has_reliability = true;
	ev[1].reliability = 0.93;
	meta.events = ev;
	meta.nr_events = 2;
	meta.mux.mode = "kernel";
	meta.mux.nr_slices = 40;
	meta.mux.slice_ms = 10;
	meta.mux.reliability = 0.93;
	mux_meta__render(&meta, &sb);
	diag("%s", sb.buf ? sb.buf : "");
	ok(sb.buf && strstr(sb.buf, "kernel (more events than counters), read in 40 periods of 10 ms"),
	   "kernel block: its periods");
	ok(sb.buf && strstr(sb.buf, "2000 [1900-2100]") && strstr(sb.buf, "reliability 0.93 (reliable)"),
	   "kernel block: a multiplexed event's interval and reliability");
	ok(sb.buf && strstr(sb.buf, " exact"), "kernel block: the event never multiplexed is exact");
	strbuf__exit(&sb);
	j = mux_meta__to_json(&meta);
	e1 = j ? json_array_get(json_object_get(j, "events"), 1) : NULL;
	ok(e1 && json_real_value(json_object_get(e1, "reliability")) == 0.93 &&
	   json_is_false(json_object_get(e1, "exact")) &&
	   json_is_true(json_object_get(json_array_get(json_object_get(j, "events"), 0), "exact")),
	   "kernel block as JSON: reliability, exact");
	json_decref(j);
}

int main(void)
{
	test_kernel();
	test_kernel_render();
	test_scale();
	test_gaps();
	test_reliability();
	test_rows();
	test_estimates();
	test_reference_scaling();
	test_file();
	test_task_time();
	test_file2();
	test_writer();
	test_spec();
	test_node_intervals();
	test_row_intervals();
	test_meta_render();
	return done_testing();
}
