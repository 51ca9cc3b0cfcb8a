/*
 * Event totals from text: numbers in several locales, the three input
 * formats, name resolution (model id, libpfm4 name, perf spelling, raw
 * config, modifiers), averaging of repeated events, missing counts and
 * errors that name file:line.
 */
#include "config.h"

#include "topdown/topdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static const struct {
	int line;
	const char *text;
	double want;	/* NAN: rejected */
} numbers[] = {
	{ __LINE__, "1234567", 1234567 },
	{ __LINE__, "1,234,567", 1234567 },
	{ __LINE__, "1.234.567", 1234567 },
	{ __LINE__, "1 234 567", 1234567 },
	{ __LINE__, "1\xe2\x80\xaf" "234\xe2\x80\xaf" "567", 1234567 },	/* U+202F */
	{ __LINE__, "1\xc2\xa0" "234", 1234 },					/* U+00A0 */
	{ __LINE__, "1'234'567", 1234567 },
	{ __LINE__, "1,234.56", 1234.56 },
	{ __LINE__, "1.234,56", 1234.56 },
	{ __LINE__, "0,5", 0.5 },
	{ __LINE__, "12.5", 12.5 },
	{ __LINE__, "1,234", 1234 },	/* three digits after a single mark: grouping */
	{ __LINE__, "1e3", 1000 },
	{ __LINE__, "2.5e+06", 2.5e6 },
	{ __LINE__, "-3", -3 },
	{ __LINE__, "", NAN },
	{ __LINE__, "abc", NAN },
	{ __LINE__, "12abc", NAN },
	{ __LINE__, "1,2,3.4,5", NAN },
};

static struct td_model *model;

static double count(const double *c, const char *name)
{
	int i = td_model__find_event(model, name);

	return i < 0 ? -1 : c[i];
}

static void parse_ok(int line, const char *text, const char *ev, double want)
{
	size_t n = td_model__nr_events(model), unknown = 0;
	double *c = xcalloc(n, sizeof(double));
	char *cause = NULL;
	int err = td_counts_parse(model, text, "in.txt", c, &unknown, &cause);

	if (ok_at(err == 0, __FILE__, line, "parses (%s)", cause ? cause : "ok")) {
		if (isnan(want))
			ok_at(isnan(count(c, ev)), __FILE__, line, "%s is missing", ev);
		else
			is_double_at(count(c, ev), want, 1e-9, line, "%s", ev);
	}
	free(cause);
	free(c);
}

static void parse_err(int line, const char *text, const char *msg)
{
	size_t n = td_model__nr_events(model);
	double *c = xcalloc(n, sizeof(double));
	char *cause = NULL;

	ok_at(td_counts_parse(model, text, "in.txt", c, NULL, &cause) < 0, __FILE__, line,
	      "rejected");
	is_str_at(cause, msg, line, "message");
	free(cause);
	free(c);
}

/* Rows of one text: the whole run first, then per interval/entity. */
static struct td_counts *rows_of(struct td_model *m, int line, const char *text)
{
	struct td_counts *c = NULL;
	char *cause = NULL;

	ok_at(td_counts__parse(m, text, "in.txt", &c, &cause) == 0, __FILE__, line, "parses (%s)",
	      cause ? cause : "ok");
	free(cause);
	return c;
}

static double row_count(struct td_model *m, const struct td_counts *c, size_t r, const char *ev)
{
	int i = td_model__find_event(m, ev);

	return !c || r >= c->nr_rows || i < 0 ? -1 : c->rows[r].counts[i];
}

/* perf stat's layouts (as perf 6.1 prints them) and its event spellings. */
static void layouts(void)
{
	struct td_model *skl = NULL, *zen4 = NULL;
	struct td_counts *c;
	char *cause = NULL;
	int e;

	if (td_model__load("skl", GX_SRC_EVENTS_DIR, &skl, &cause) < 0 ||
	    td_model__load("zen4", GX_SRC_EVENTS_DIR, &zen4, &cause) < 0) {
		ok(0, "load: %s", cause);
		free(cause);
		return;
	}
	/* the two real Zen 4 term spellings: a named event with cmask on top */
	c = rows_of(zen4, __LINE__,
		    "100000,,cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/,600,66.67,,\n");
	is_double(row_count(zen4, c, 0, "de_no_dispatch_per_slot.no_ops_from_frontend:c6"), 100000,
		  0, "zen4: cpu/NAMED_EVENT,cmask=0x6/ is the :c6 event");
	td_counts__delete(c);
	c = rows_of(zen4, __LINE__,
		    "  100,000  cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x6@\n");
	is_double(row_count(zen4, c, 0, "de_no_dispatch_per_slot.no_ops_from_frontend:c6"), 100000,
		  0, "zen4: perf's metric spelling cpu@EVENT\\,cmask\\=0x6@");
	td_counts__delete(c);
	c = rows_of(zen4, __LINE__, "7 cpu/de_no_dispatch_per_slot.no_ops_from_frontend/u\n"
				    "8 cpu/event=0xa0,umask=0x1,cmask=6/\n");
	is_double(row_count(zen4, c, 0, "de_no_dispatch_per_slot.no_ops_from_frontend"), 7, 0,
		  "zen4: a named event without terms, with :u");
	ok(isnan(row_count(zen4, c, 0, "de_no_dispatch_per_slot.no_ops_from_frontend:c6")),
	   "zen4: event=0xa0 is not event=0x1a0 (AMD's extended event bits)");
	td_counts__delete(c);
	/* Intel terms: any, edge, inv, cmask on named and numeric events */
	c = rows_of(skl, __LINE__, "5 cpu/event=0x3c,umask=0x0,any=1/\n"
				   "6 cpu/INT_MISC.RECOVERY_CYCLES,any/k\n"
				   "9 cpu/event=0xc3,umask=0x1,edge,cmask=1/\n"
				   "4 r4c2:u\n");
	is_double(row_count(skl, c, 0, "CPU_CLK_UNHALTED.THREAD_ANY"), 5, 0, "skl: any=1");
	is_double(row_count(skl, c, 0, "INT_MISC.RECOVERY_CYCLES_ANY"), 6, 0,
		  "skl: a named event with a bare 'any' term");
	is_double(row_count(skl, c, 0, "MACHINE_CLEARS.COUNT"), 9, 0, "skl: bare edge, cmask=1");
	is_double(row_count(skl, c, 0, "UOPS_RETIRED.MACRO_FUSED"), 4, 0, "skl: rXXXX:u");
	td_counts__delete(c);
	/* -x with the interval column: a row per interval plus their sum */
	c = rows_of(skl, __LINE__,
		    "     0.100093262,100,,cycles,50000000,50.00,,\n"
		    "     0.100093262,<not counted>,,instructions,0,0.00,,\n"
		    "     0.200186520,300,,cycles,50000000,50.00,,\n"
		    "     0.200186520,80,,instructions,50000000,50.00,,\n");
	if (c) {
		is_int(c->nr_rows, 3, "-I -x,: whole run and two intervals");
		ok(c->intervals && !c->entity_kind, "-I -x,: intervals, no entity");
		is_double(c->rows[1].time, 0.100093262, 1e-12, "-I -x,: the first interval's time");
		is_double(row_count(skl, c, 0, "cycles"), 400, 0, "-I -x,: the whole run is the sum");
		is_double(row_count(skl, c, 2, "cycles"), 300, 0, "-I -x,: the second interval");
		is_int(c->rows[1].missing[td_model__find_event(skl, "instructions")],
		       TD_MISSING_NOT_COUNTED, "-I -x,: <not counted> keeps its reason");
		is_double(td_counts_row__min_run(c, 2), 0.5, 1e-12, "-I -x,: running share 50%");
	}
	td_counts__delete(c);
	/* -j, -A, --per-core and --per-thread */
	c = rows_of(skl, __LINE__,
		    "{\"cpu\" : \"0\", \"counter-value\" : \"100.000000\", \"unit\" : \"\", "
		    "\"event\" : \"cycles\", \"event-runtime\" : 1000, \"pcnt-running\" : 100.00, "
		    "\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n"
		    "{\"cpu\" : \"1\", \"counter-value\" : \"<not supported>\", \"unit\" : \"\", "
		    "\"event\" : \"cycles\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, "
		    "\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n");
	if (c) {
		is_int(c->nr_rows, 3, "-j -A: the aggregate and two CPUs");
		is_str(c->entity_kind, "cpu", "-j -A: entities are CPUs");
		is_str(c->rows[1].entity, "CPU0", "-j -A: CPU0 named as perf's text names it");
		is_int(c->rows[2].missing[td_model__find_event(skl, "cycles")],
		       TD_MISSING_NOT_SUPPORTED, "-j: <not supported> keeps its reason");
	}
	td_counts__delete(c);
	c = rows_of(skl, __LINE__, "S0-D0-C0,2,100,,cycles,1000,100.00,,\n"
				   "S0-D0-C1,2,300,,cycles,1000,100.00,,\n");
	if (c) {
		is_str(c->entity_kind, "core", "--per-core -x,: cores");
		is_double(row_count(skl, c, 2, "cycles"), 300, 0, "--per-core -x,: the value after NR");
		is_double(row_count(skl, c, 0, "cycles"), 400, 0, "--per-core: the aggregate sums");
	}
	td_counts__delete(c);
	c = rows_of(skl, __LINE__, "     0.119963342 CPU0            1.234,5      cycles   (50,00%)\n"
				   "     0.119963342 CPU1              7.000      cycles   (50,00%)\n");
	if (c) {
		is_int(c->nr_rows, 3, "-I -A text (de): the whole run and CPU0, CPU1");
		is_double(row_count(skl, c, 1, "cycles"), 1234.5, 1e-9, "-I -A text: decimal comma");
		is_double(row_count(skl, c, 2, "cycles"), 7000, 0, "-I -A text: grouping dot");
		is_str(c->rows[2].entity, "CPU1", "-I -A text: its entity");
	}
	td_counts__delete(c);
	c = rows_of(skl, __LINE__, "       cc1-5759          1,000      cycles\n");
	if (c)
		is_str(c->entity_kind, "thread", "--per-thread: a command-pid entity");
	td_counts__delete(c);
	/* copies: same PMU weighted by running time; other PMUs left out */
	c = rows_of(skl, __LINE__, "100,,cycles,1000,25.00,,\n300,,cycles,3000,75.00,,\n");
	is_double(row_count(skl, c, 0, "cycles"), 250, 1e-9,
		  "copies weighted by running time: (100*1000 + 300*3000) / 4000");
	is_double(td_counts_row__min_run(c, 0), 1, 1e-12, "two copies cover the run");
	td_counts__delete(c);
	c = rows_of(skl, __LINE__, "   100   cpu_core/cycles/   (50.00%)\n"
				   "   900   cpu_atom/cycles/   (50.00%)\n"
				   "   300   cpu_core/cycles/   (50.00%)\n");
	if (c) {
		is_double(row_count(skl, c, 0, "cycles"), 200, 1e-9,
			  "hybrid: cpu_core copies averaged, cpu_atom's left out");
		is_str(c->dropped_pmu, "cpu_atom", "hybrid: the PMU left out is named");
	}
	td_counts__delete(c);
	/* the one scaling rule (issue 26, part 1): perf printed the value
	 * scaled, with its running time and share; the share comes from the
	 * rule, a share of 0 is never counted */
	c = rows_of(skl, __LINE__, "800,,instructions,533300000,53.33,,\n"
				   "100,,cycles,1000,100.00,,\n"
				   "5,,cpu/event=0x9c,umask=0x1/,0,0.00,,\n");
	if (c) {
		int ins = td_model__find_event(skl, "instructions");
		int cyc = td_model__find_event(skl, "cycles");
		int idq = td_model__find_event(skl, "IDQ_UOPS_NOT_DELIVERED.CORE");

		is_double(c->rows[0].counts[ins], 800, 1e-9, "53.33%: the printed value, scaled once");
		is_double(c->rows[0].run[ins], 0.5333, 1e-12, "53.33%: its running share");
		is_double(c->rows[0].run[cyc], 1, 0, "100%: all of the time");
		ok(isnan(c->rows[0].counts[idq]), "0.00%: no value (never counted)");
		is_int(c->rows[0].missing[idq], TD_MISSING_NOT_COUNTED, "0.00%: not counted");
		is_double(c->rows[0].run[idq], 0, 0, "0.00%: a share of 0");
	}
	td_counts__delete(c);
	td_model__delete(skl);
	td_model__delete(zen4);
}

/*
 * gx_scale_printed is gx_scale on what perf stat prints: a count scaled by
 * the same rule (count x enabled / running when running < enabled) reads
 * back as gx_scale's value, share and flag.
 */
static void scale_printed(void)
{
	static const struct {
		int line;
		double count, enabled, running;
	} t[] = {
		{ __LINE__, 1000, 2000, 1000 },
		{ __LINE__, 26853388, 1e9, 533.3e6 },
		{ __LINE__, 7, 1e9, 75e6 },
		{ __LINE__, 500, 1000, 1000 },
		{ __LINE__, 500, 1000, 1001 },	/* running past enabled: 1 */
		{ __LINE__, 500, 0, NAN },	/* no times */
		{ __LINE__, 0, 1000, 0 },	/* never ran */
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gx_scaled want, got;
		double printed = t[i].count;

		if (t[i].enabled > 0 && t[i].running > 0 && t[i].running < t[i].enabled)
			printed = t[i].count * t[i].enabled / t[i].running;
		gx_scale(t[i].count, t[i].enabled, t[i].running, &want);
		gx_scale_printed(printed, t[i].enabled, t[i].running, &got);
		ok_at((isnan(want.value) && isnan(got.value)) ||
		      fabs(got.value - want.value) <= 1e-9 * fabs(want.value), __FILE__, t[i].line,
		      "printed %g: value %g (gx_scale %g)", printed, got.value, want.value);
		ok_at((isnan(want.running) && isnan(got.running)) || got.running == want.running,
		      __FILE__, t[i].line, "printed %g: running %g", printed, got.running);
		ok_at(got.multiplexed == want.multiplexed, __FILE__, t[i].line, "multiplexed");
	}
}

/*
 * perf's generic names on every model: cycles/cpu-cycles and instructions
 * give CPI and IPC; branches, branch-misses and cache-misses resolve to the
 * model's events, by name and as PERF_TYPE_HARDWARE attrs.
 */
static const char *const all_models[] = {
	"generic", "skl", "icl", "icx", "spr", "zen3", "zen4", "zen5", "n1", "n2", "v1", "v2",
};

static void generic_names(void)
{
	static const char *const names[] = { "cycles", "instructions", "cache-misses", "branches",
					     "branch-misses" };
	static const int hw[] = { 0, 1, 3, 4, 5 };

	for (size_t i = 0; i < ARRAY_SIZE(all_models); i++) {
		struct td_model *m = NULL;
		struct td_ctx ctx = { .smt = TD_SMT_OFF };
		struct td_result res = { .bottleneck = -1 };
		char *cause = NULL;
		double *c;
		int cpi, ipc;

		if (!ok(td_model__load(all_models[i], GX_SRC_EVENTS_DIR, &m, &cause) == 0,
			"%s: loads (%s)", all_models[i], cause ? cause : "ok")) {
			free(cause);
			continue;
		}
		c = xcalloc(td_model__nr_events(m) + 1, sizeof(double));
		for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
			int e = td_model__find_event(m, names[k]);

			ok(e >= 0, "%s: %s is one of the model's events", all_models[i], names[k]);
			is_int(td_model__find_event_attr(m, 0, (uint64_t)hw[k], 0), e,
			       "%s: PERF_TYPE_HARDWARE %d is %s", all_models[i], hw[k], names[k]);
		}
		is_int(td_model__find_event(m, "cpu-cycles"), td_model__find_event(m, "cycles"),
		       "%s: cpu-cycles is cycles", all_models[i]);
		ok(td_counts_parse(m, "cpu-cycles:u 3000\ninstructions:u 1500\n", "in.txt", c, NULL,
				   &cause) == 0, "%s: generic names parse (%s)", all_models[i],
		   cause ? cause : "ok");
		ok(td_eval(m, c, &ctx, &res, &cause) == 0, "%s: evaluates", all_models[i]);
		cpi = td_model__find_node(m, "CPI");
		ipc = td_model__find_node(m, "IPC");
		if (ok(cpi >= 0 && ipc >= 0 && res.v, "%s: has CPI and IPC", all_models[i])) {
			is_double(res.v[cpi].value, 2.0, 1e-12, "%s: CPI from cpu-cycles and instructions",
				  all_models[i]);
			is_double(res.v[ipc].value, 0.5, 1e-12, "%s: IPC", all_models[i]);
		}
		td_result__exit(&res);
		free(c);
		free(cause);
		td_model__delete(m);
	}
}

int main(void)
{
	char *cause = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++) {
		double v = -42;
		int err = td_parse_number(numbers[i].text, strlen(numbers[i].text), &v);

		if (isnan(numbers[i].want))
			ok_at(err < 0, __FILE__, numbers[i].line, "'%s' rejected", numbers[i].text);
		else if (ok_at(err == 0, __FILE__, numbers[i].line, "'%s' accepted", numbers[i].text))
			is_double_at(v, numbers[i].want, 1e-9, numbers[i].line, "'%s'", numbers[i].text);
	}
	if (td_model__load("skl", GX_SRC_EVENTS_DIR, &model, &cause) < 0) {
		ok(0, "load skl: %s", cause);
		return done_testing();
	}
	/* names: model id, libpfm4 name (with or without pmu::), perf spelling, raw, modifiers */
	parse_ok(__LINE__, "UOPS_ISSUED.ANY 5\n", "UOPS_ISSUED.ANY", 5);
	parse_ok(__LINE__, "uops_issued:any 6\n", "UOPS_ISSUED.ANY", 6);
	parse_ok(__LINE__, "skl::UOPS_ISSUED:ANY 7\n", "UOPS_ISSUED.ANY", 7);
	parse_ok(__LINE__, "cpu/event=0xe,umask=0x1/u 8\n", "UOPS_ISSUED.ANY", 8);
	parse_ok(__LINE__, "cpu/event=0x0e,umask=0x01,name=whatever/ 9\n", "UOPS_ISSUED.ANY", 9);
	parse_ok(__LINE__, "cpu/umask=0x1,event=0xe/ 9\n", "UOPS_ISSUED.ANY", 9);
	parse_ok(__LINE__, "cpu/name=UOPS_ISSUED.ANY,event=0x3c/ 10\n", "UOPS_ISSUED.ANY", 10);
	parse_ok(__LINE__, "re 11\nr4c2 12\n", "UOPS_RETIRED.MACRO_FUSED", 12);
	parse_ok(__LINE__, "cycles:u 13\n", "cycles", 13);
	parse_ok(__LINE__, "cycles:ukpp 14\n", "cycles", 14);
	parse_ok(__LINE__, "instructions = 15\n", "instructions", 15);
	parse_ok(__LINE__, "L1D_PEND_MISS.FB_FULL:c1 16\n", "L1D_PEND_MISS.FB_FULL:c1", 16);
	/* averaged when listed several times; <not counted> copies do not count */
	parse_ok(__LINE__, "cycles 10\ncycles 20\ncycles <not counted>\n", "cycles", 15);
	parse_ok(__LINE__, "     <not counted>      cycles\ninstructions 1\n", "cycles", NAN);
	parse_ok(__LINE__, "<not supported>,,cycles,0,0.00,,\ninstructions 1\n", "cycles", NAN);
	parse_ok(__LINE__, "<not supported>,,cycles,0,100.00,,\n", "cycles", NAN);	/* alone: still known */
	/* perf stat layouts */
	parse_ok(__LINE__, " Performance counter stats for 'x':\n\n   1,234,567      cycles   # 3 GHz  (50.00%)\n",
		 "cycles", 1234567);
	parse_ok(__LINE__, "   1.234.567      cycles:u       (50,00%)\n", "cycles", 1234567);
	parse_ok(__LINE__, "   1 234 567      cycles\n", "cycles", 1234567);
	parse_ok(__LINE__, "1234567,,cycles,100,100.00,,\n", "cycles", 1234567);
	parse_ok(__LINE__, "1234567;;cycles;100;100.00;;\n", "cycles", 1234567);
	parse_ok(__LINE__, "77,,cpu/event=0xe,umask=0x1/,100,100.00,1.2,insn per cycle\n",
		 "UOPS_ISSUED.ANY", 77);
	parse_ok(__LINE__, "\xef\xbb\xbf" "cycles 1\r\ninstructions 2\r\n", "cycles", 1);
	/* perf 6.x -x: metric-only lines, and a metric group's name line */
	parse_ok(__LINE__, "5,,cycles,100,100.00,,\n,,,,,19.6,%  tma_frontend_bound\n"
			   "       TopdownL1 (cpu_core)\n", "cycles", 5);
	parse_ok(__LINE__, " Performance counter stats for 'x':\n  Some events weren't counted. Try:\n 5 cycles\n",
		 "cycles", 5);
	/* perf's multiplexing footnotes and indented notes are skipped */
	parse_ok(__LINE__, "        (scaled from 50%)\ncycles 3\n", "cycles", 3);
	/* errors name file:line */
	parse_err(__LINE__, "cycles 1\ninstructions 12abc\n",
		  "in.txt:2: expected 'EVENT VALUE', perf stat or CSV output");
	parse_err(__LINE__, "cycles 1\n\n 1,2,3.4,5 instructions\n", "in.txt:3: bad count '1,2,3.4,5'");
	parse_err(__LINE__, "12x,,cycles,1,1,,\n", "in.txt:1: bad count '12x'");
	parse_err(__LINE__, "   42\n", "in.txt:1: a count without an event name");
	parse_err(__LINE__, "task-clock 1\n", "in.txt: no counts for any event of model skl");
	/* perf.data attrs back to model events */
	is_int(td_model__find_event_attr(model, 4, 0x0c0004a3, 0), -1, "attr with another cmask: none");
	is_int(td_model__find_event_attr(model, 4, 0x040004a3, 0),
	       td_model__find_event(model, "CYCLE_ACTIVITY.STALLS_TOTAL"), "attr raw 0x40004a3");
	is_int(td_model__find_event_attr(model, 4, 0x4c2, 0),
	       td_model__find_event(model, "UOPS_RETIRED.MACRO_FUSED"), "attr raw 0x4c2");
	is_int(td_model__find_event_attr(model, 0, 1, 0), td_model__find_event(model, "INST_RETIRED.ANY"),
	       "attr hardware instructions");
	is_int(td_model__find_event_attr(model, 0, 0, 0), td_model__find_event(model, "cycles"),
	       "attr hardware cycles");
	is_int(td_model__find_event_attr(model, 1, 0, 0), -1, "attr software cpu-clock: none");
	td_model__delete(model);
	generic_names();
	layouts();
	scale_printed();
	free(cause);
	return done_testing();
}
