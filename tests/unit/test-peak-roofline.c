/*
 * The roofline model on a synthetic peak document: roofs chosen, points
 * placed, attainable performance, the three renderings, and the event
 * classification that turns sampled periods into FLOPs, bytes and seconds.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/roofline.h"
#include "tap.h"

static const char peak_doc[] =
	"{\"schema\": \"gexplore-peak 1\", \"machine\": {\"cpu\": \"Test CPU <1>\"},"
	" \"clock\": {\"ghz\": 3.0},"
	" \"tests\": ["
	"  {\"name\": \"fma.f64.256\", \"bits\": 256, \"gflops\": 48.0},"
	"  {\"name\": \"fma.f32.256\", \"bits\": 256, \"gflops\": 96.0},"
	"  {\"name\": \"add.f64.s\", \"bits\": 64, \"gflops\": 6.0},"
	"  {\"name\": \"int.add\", \"bits\": 64}],"
	" \"bandwidth\": ["
	"  {\"kernel\": \"read\", \"level\": \"L1\", \"threads\": 1, \"gbps\": 200.0},"
	"  {\"kernel\": \"copy\", \"level\": \"L1\", \"threads\": 1, \"gbps\": 220.0},"
	"  {\"kernel\": \"read\", \"level\": \"L1\", \"threads\": 2, \"gbps\": 400.0},"
	"  {\"kernel\": \"read\", \"level\": \"L2\", \"threads\": 1, \"gbps\": 100.0},"
	"  {\"kernel\": \"read\", \"level\": \"DRAM\", \"threads\": 1, \"gbps\": 20.0}]}";

int main(void)
{
	struct roofline rl;
	struct roofline_events ev;
	struct strbuf sb = STRBUF_INIT;
	json_t *doc = json_loads(peak_doc, 0, NULL);
	char *cause = NULL;
	const char *why;
	double f, b, s;

	plan(29);
	is_int(roofline__init_from_peak(&rl, doc, &cause), 0, "roofs from a peak document");
	is_int(rl.nr_compute, 3, "FP32, FP64 and scalar FP64 roofs");
	is_double(rl.compute[0].value, 96.0, 1e-9, "highest compute roof first");
	ok(strstr(rl.compute[0].name, "fma.f32.256") != NULL, "roof named after its test");
	is_int(rl.nr_memory, 3, "a roof per level measured on one core");
	is_double(rl.memory[0].value, 220.0, 1e-9, "L1: the best single-core kernel");
	is_str(rl.memory[2].name, "DRAM", "DRAM last");
	is_double(roofline__attainable(&rl, 1.0), 20.0, 1e-9, "memory-bound at 1 FLOP/byte");
	is_double(roofline__attainable(&rl, 100.0), 96.0, 1e-9, "compute-bound at 100 FLOP/byte");

	ok(roofline__add_point(&rl, "daxpy", 2e9, 24e9, 1.5), "add a point");
	ok(!roofline__add_point(&rl, "nothing", 0, 1, 1), "a point without FLOPs is refused");
	is_double(rl.points[0].ai, 2.0 / 24, 1e-12, "arithmetic intensity");
	is_double(rl.points[0].gflops, 2.0 / 1.5, 1e-12, "achieved GFLOP/s");
	roofline__note(&rl, "a note with %d", 42);

	roofline__text(&rl, &sb, 64, 20);
	ok(strstr(sb.buf, "GFLOP/s") && strstr(sb.buf, "arithmetic intensity"), "chart axes");
	ok(strstr(sb.buf, "A daxpy") != NULL, "the point in the legend");
	ok(strchr(sb.buf, '=') && strchr(sb.buf, 'D'), "compute (=) and DRAM (D) roofs drawn");
	ok(strstr(sb.buf, "note: a note with 42") != NULL, "notes under the chart");
	strbuf__exit(&sb);

	roofline__svg(&rl, &sb);
	ok(!strncmp(sb.buf, "<svg", 4) && strstr(sb.buf, "</svg>\n"), "SVG document");
	ok(strstr(sb.buf, "Test CPU &lt;1&gt;") != NULL, "SVG text is escaped");
	ok(strstr(sb.buf, "<circle") != NULL, "SVG point");
	strbuf__exit(&sb);
	roofline__html(&rl, &sb);
	ok(strstr(sb.buf, "<!DOCTYPE html>") && strstr(sb.buf, "<svg") &&
	   strstr(sb.buf, "daxpy"), "HTML page with the chart and the points");
	strbuf__exit(&sb);
	roofline__exit(&rl);

	{
		const char *const none[] = { "cpu-clock" };
		const char *const zen[] = { "cpu-clock", "fp_ret_sse_avx_ops.all",
					    "ls_any_fills_from_sys.dram_io_all" };
		const char *const intel[] = { "FP_ARITH_INST_RETIRED.256B_PACKED_DOUBLE",
					      "FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", "cycles",
					      "LONGEST_LAT_CACHE.MISS" };
		uint64_t zp[] = { 2000000000ull, 8000000000ull, 100000000ull };
		uint64_t ip[] = { 1000, 10, 3000000000ull, 100 };

		ok(!roofline_events_classify(none, 1, 3.0, &ev, &why) &&
		   strstr(why, "neither FP-operation nor memory-traffic"),
		   "cpu-clock only: no points, and why");
		ok(roofline_events_classify(zen, 3, 3.0, &ev, &why), "Zen events classify");
		roofline_events__totals(&ev, zp, &f, &b, &s);
		ok(f == 8e9 && b == 6.4e9 && fabs(s - 2.0) < 1e-12, "Zen: FLOPs, bytes, seconds");
		ok(roofline_events_classify(intel, 4, 3.0, &ev, &why), "Intel events classify");
		roofline_events__totals(&ev, ip, &f, &b, &s);
		ok(f == 4010 && b == 6400 && fabs(s - 1.0) < 1e-12,
		   "Intel: lanes weighted, time from cycles at the clock");
	}
	{
		/* A profile of two modules: app does FP work, libc only moves memory. */
		const char *const names[] = { "cpu-clock", "fp_ret_sse_avx_ops.all",
					      "ls_any_fills_from_sys.dram_io_all" };
		struct profile *p = profile__new(3);
		struct pd_tool *tool = profile__tool(p);
		struct pd_comm c = { .pid = 10, .tid = 10, .comm = "app", .exec = true };
		struct pd_mmap m1 = { .pid = 10, .tid = 10, .start = 0x400000, .len = 0x10000,
				      .filename = "/usr/bin/app", .misc = PERF_RECORD_MISC_USER };
		struct pd_mmap m2 = { .pid = 10, .tid = 10, .start = 0x7f0000000000,
				      .len = 0x10000, .filename = "/lib/libc.so.6",
				      .misc = PERF_RECORD_MISC_USER };
		struct { uint32_t ev; uint64_t ip, period; } smp[] = {
			{ 0, 0x401000, 1000000000 }, { 1, 0x401000, 4000000000ull },
			{ 2, 0x401000, 10000000 }, { 0, 0x7f0000001000, 500000000 },
			{ 2, 0x7f0000001000, 50000000 },
		};
		size_t added;

		tool->comm(tool, &c);
		tool->mmap(tool, &m1);
		tool->mmap(tool, &m2);
		for (size_t i = 0; i < ARRAY_SIZE(smp); i++) {
			struct pd_sample sm = { .evsel = smp[i].ev, .pid = 10, .tid = 10,
						.ip = smp[i].ip, .period = smp[i].period,
						.misc = PERF_RECORD_MISC_USER };

			tool->sample(tool, &sm);
		}
		roofline__init_from_peak(&rl, doc, &cause);
		added = roofline__add_profile_points(&rl, names, 3, p, PROFILE_BY_MODULE, 10, 3.0,
						     &why);
		is_int(added, 2, "points: the whole run and app (libc has no FLOPs)");
		ok(rl.nr_points == 2 && !strcmp(rl.points[0].name, "whole run") &&
		   fabs(rl.points[0].ai - 4e9 / 3.84e9) < 1e-9 &&
		   fabs(rl.points[0].gflops - 4.0 / 1.5) < 1e-9, "whole run: AI and GFLOP/s");
		ok(rl.nr_points == 2 && strstr(rl.points[1].name, "app") &&
		   fabs(rl.points[1].ai - 4e9 / 6.4e8) < 1e-9 && fabs(rl.points[1].gflops - 4) < 1e-9,
		   "app module: AI and GFLOP/s");
		roofline__exit(&rl);
		profile__delete(p);
	}
	json_decref(doc);
	return tap_failed_ ? 1 : 0;
}
