/*
 * Unit tests of the check formats that need no result: threshold parsing,
 * the t quantiles behind --repeat's interval, exit status precedence, and
 * the JUnit and GitHub renderings of outcomes (escaping included).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ci/ci.h"
#include "tap.h"

static const struct {
	int line;
	enum ci_op op;
	const char *arg;
	int err;		/* 0 or negative */
	const char *metric;
	double limit;
	bool percent;
	bool time;
} spec_cases[] = {
	{ __LINE__, CI_MAX, "cpi=1.2", 0, "cpi", 1.2, false },
	{ __LINE__, CI_MIN, "ipc=0.8", 0, "ipc", 0.8, false },
	{ __LINE__, CI_MAX, "Backend_Bound=40%", 0, "Backend_Bound", 0.4, true },
	{ __LINE__, CI_MAX_REGRESS, "cpi=5%", 0, "cpi", 0.05, true },
	{ __LINE__, CI_MAX_REGRESS, "cpi=0.1", 0, "cpi", 0.1, false },
	{ __LINE__, CI_MAX, "branch-misses/branches=0.02", 0, "branch-misses/branches", 0.02, false },
	{ __LINE__, CI_MAX, "cpi", -22, NULL, 0, false },
	{ __LINE__, CI_MAX, "=1", -22, NULL, 0, false },
	{ __LINE__, CI_MAX, "cpi=", -22, NULL, 0, false },
	{ __LINE__, CI_MAX, "cpi=1.2x", -22, NULL, 0, false },
	{ __LINE__, CI_MAX, "cpi=nan", -22, NULL, 0, false },
	{ __LINE__, CI_MAX_REGRESS, "cpi=-5%", -22, NULL, 0, false },
	/* times in nanoseconds */
	{ __LINE__, CI_MAX, "cpu-clock=2s", 0, "cpu-clock", 2e9, false, true },
	{ __LINE__, CI_MAX, "cpu-clock=500ms", 0, "cpu-clock", 5e8, false, true },
	{ __LINE__, CI_MIN, "task-clock=1.5us", 0, "task-clock", 1500, false, true },
	{ __LINE__, CI_MAX, "cpu-clock=100ns", 0, "cpu-clock", 100, false, true },
	{ __LINE__, CI_MAX_REGRESS, "cpu-clock=20ms", 0, "cpu-clock", 2e7, false, true },
	{ __LINE__, CI_MAX, "cpu-clock=2e9", 0, "cpu-clock", 2e9, false, false },
	{ __LINE__, CI_MAX, "share=5%", 0, "share", 0.05, true, false },
	{ __LINE__, CI_MAX, "cpu-clock=2sec", -22, NULL, 0, false },
	{ __LINE__, CI_MAX, "cpu-clock=2 s", -22, NULL, 0, false },
	{ __LINE__, CI_MAX, "cpu-clock=s", -22, NULL, 0, false },
	{ __LINE__, CI_MAX, "cpu-clock=2%s", -22, NULL, 0, false },
};

static void test_spec(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(spec_cases); i++) {
		struct ci_spec s;
		char *cause = NULL;
		int err;

		ci_spec__init(&s);
		err = ci_spec__add(&s, spec_cases[i].op, spec_cases[i].arg, &cause);
		is_int_at(err, spec_cases[i].err, spec_cases[i].line, "spec '%s': status",
			  spec_cases[i].arg);
		if (!err) {
			is_str_at(s.checks[0].metric, spec_cases[i].metric, spec_cases[i].line,
				  "spec '%s': metric", spec_cases[i].arg);
			is_double_at(s.checks[0].limit, spec_cases[i].limit, 1e-12, spec_cases[i].line,
				     "spec '%s': limit", spec_cases[i].arg);
			is_int_at(s.checks[0].percent, spec_cases[i].percent, spec_cases[i].line,
				  "spec '%s': percent", spec_cases[i].arg);
			is_int_at(s.checks[0].time, spec_cases[i].time, spec_cases[i].line,
				  "spec '%s': time", spec_cases[i].arg);
		} else {
			ok(cause && *cause, "spec '%s': a message", spec_cases[i].arg);
		}
		free(cause);
		ci_spec__exit(&s);
	}
}

static const struct {
	int line;
	enum ci_unit u;
	bool sign;
	int extra;
	double x;
	const char *want;
} human_cases[] = {
	{ __LINE__, CI_UNIT_NS, false, 0, 2.289e9, "2.29 s" },
	{ __LINE__, CI_UNIT_NS, false, 0, 1.865e9, "1.86 s" },
	{ __LINE__, CI_UNIT_NS, false, 1, 1.865e9, "1.865 s" },
	{ __LINE__, CI_UNIT_NS, false, 0, 5e8, "500 ms" },
	{ __LINE__, CI_UNIT_NS, true, 0, 2.5e4, "+25 us" },
	{ __LINE__, CI_UNIT_NS, false, 0, 100, "100 ns" },
	{ __LINE__, CI_UNIT_FRACTION, false, 0, 0.432, "43.2%" },
	{ __LINE__, CI_UNIT_FRACTION, true, 1, 0.0512, "+5.12%" },
	{ __LINE__, CI_UNIT_COUNT, false, 0, 1234567, "1.235 M" },
	{ __LINE__, CI_UNIT_RATIO, false, 0, 1.25, "1.25" },
	{ __LINE__, CI_UNIT_RATIO, false, 0, NAN, "-" },
};

static void test_human(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(human_cases); i++) {
		char b[48];

		ci_human(b, sizeof(b), human_cases[i].u, human_cases[i].sign, human_cases[i].extra,
			 human_cases[i].x);
		is_str_at(b, human_cases[i].want, human_cases[i].line, "human units of %g",
			  human_cases[i].x);
	}
}

static void test_quantiles(void)
{
	is_double(ci_t_quantile(0.95, 1), 12.706, 1e-3, "t(0.95, 1)");
	is_double(ci_t_quantile(0.95, 4), 2.776, 1e-3, "t(0.95, 4)");
	is_double(ci_t_quantile(0.99, 9), 3.250, 1e-3, "t(0.99, 9)");
	is_double(ci_t_quantile(0.90, 30), 1.697, 1e-3, "t(0.90, 30)");
	is_double(ci_t_quantile(0.95, 1000), 1.960, 1e-3, "large df: the normal quantile");
	ok(isinf(ci_t_quantile(0.95, 0)), "no degrees of freedom: infinite");
}

static void test_outputs(void)
{
	struct ci_check c1 = { .op = CI_MAX, .metric = "cpi", .limit = 1.2 };
	struct ci_check c2 = { .op = CI_MAX_REGRESS, .metric = "cpi", .limit = 0.05, .percent = true };
	struct ci_check c3 = { .op = CI_MAX, .metric = "cpu-clock", .limit = 2e9, .time = true };
	struct ci_outcome o[4] = {
		{ .check = &c1, .scope = CI_SCOPE_FUNCTION, .row = "a<b>&\"c\"", .file = "/ws/src/x,y:z.c",
		  .line = 42, .status = CI_FAIL, .value = 1.25, .nr_values = 1, .limit_value = 1.2,
		  .message = "cpi of function a<b> = 1.25 > max 1.2: 100% over\nnext" },
		{ .check = &c2, .scope = CI_SCOPE_RUN, .row = "", .status = CI_SKIP, .value = NAN,
		  .message = "cannot measure cpi of the run: no PMU" },
		{ .check = &c1, .scope = CI_SCOPE_PROCESS, .row = "app", .pid = 7, .status = CI_PASS,
		  .value = 1.0, .nr_values = 1, .message = "ok" },
		{ .check = &c3, .scope = CI_SCOPE_RUN, .row = "", .status = CI_FAIL, .value = 2.289e9,
		  .nr_values = 1, .limit_value = 2e9, .has_baseline = true, .baseline = 1.865e9,
		  .unit = CI_UNIT_NS, .message = "time" },
	};
	struct ci_report rep = { .result = "gx001", .nr_runs = 1, .outcomes = o, .nr = 4,
				 .nr_pass = 1, .nr_fail = 1, .nr_skip = 1, .source_root = "/ws/" };
	struct strbuf sb = STRBUF_INIT;

	is_int(ci_report__exit_status(&rep), 1, "a failure wins over a skip");
	rep.nr_fail = 0;
	is_int(ci_report__exit_status(&rep), 77, "a skip and passes: 77");
	rep.nr_skip = 0;
	is_int(ci_report__exit_status(&rep), 0, "passes only: 0");
	rep.nr_fail = rep.nr_skip = 1;

	ci_report__junit(&rep, &sb);
	ok(strstr(sb.buf, "<testsuites name=\"gexplore check\" tests=\"4\" failures=\"1\" errors=\"0\" "
			  "skipped=\"1\"") != NULL, "junit: testsuites counts");
	ok(strstr(sb.buf, "name=\"cpi max 1.2 [function a&lt;b&gt;&amp;&quot;c&quot;]\"") != NULL,
	   "junit: names are escaped");
	ok(strstr(sb.buf, "file=\"src/x,y:z.c\" line=\"42\"") != NULL,
	   "junit: file (relative to the source root) and line");
	ok(strstr(sb.buf, "<failure type=\"threshold\" message=\"cpi of function a&lt;b&gt; = 1.25 > max"
			  "") == NULL, "junit: no raw > in attributes");
	ok(strstr(sb.buf, "&#10;next") != NULL, "junit: newlines in a message are character references");
	ok(strstr(sb.buf, "<skipped message=\"cannot measure cpi of the run: no PMU\"/>") != NULL,
	   "junit: skipped with the reason");
	ok(strstr(sb.buf, "name=\"cpi max-regress 5% [run]\"") != NULL, "junit: relative limit in %");
	ok(strstr(sb.buf, "name=\"cpu-clock max 2 s [run]\"") != NULL, "junit: a time limit in s");
	ok(strstr(sb.buf, "value: 2.289 s&#10;limit: 2 s&#10;baseline: 1.865 s") != NULL,
	   "junit: value, limit and baseline of a time in s");
	ok(strstr(sb.buf, "classname=\"gexplore.check.process\" time=") != NULL &&
	   strstr(sb.buf, "[process app (7)]\"") != NULL, "junit: a passing process case");
	strbuf__exit(&sb);

	ci_report__github(&rep, &sb);
	is_str(sb.buf,
	       "::error file=src/x%2Cy%3Az.c,line=42,title=gexplore check::cpi of function a<b> = "
	       "1.25 > max 1.2: 100%25 over%0Anext\n"
	       "::warning title=gexplore check::cannot measure cpi of the run: no PMU\n"
	       "::error title=gexplore check::time\n",
	       "github: annotations with escaped properties and data; passes are silent");
	strbuf__exit(&sb);
}

int main(void)
{
	test_spec();
	test_human();
	test_quantiles();
	test_outputs();
	return done_testing();
}
