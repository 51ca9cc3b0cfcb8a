/*
 * The formula language: values, precedence, n/a propagation, and the exact
 * text of syntax errors, unknown names and reference cycles.
 */
#include "config.h"

#include "topdown/topdown-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* Leaves: events A=2, B=3, Z=0, M (missing); no metrics. */
static double eval_str(const char *src, bool smt_on, bool core_wide, int *err)
{
	static const char *const names[] = { "A", "B", "Z", "M", "CPU_CLK.THREAD", "topdown-retiring",
					     "L1D.FB_FULL:c1", "cpu@x@" };
	static const double vals[] = { 2, 3, 0, NAN, 10, 7, 5, 11 };
	struct td_eval_env env = { .counts = vals, .smt_on = smt_on, .core_wide = core_wide,
				   .width = 4 };
	struct td_expr *e;
	char *cause = NULL;
	double v;

	*err = td_expr__parse(src, &e, &cause);
	free(cause);
	if (*err)
		return NAN;
	/* resolve names to the fixed table */
	struct stack { struct td_expr *n[64]; int sp; } st = { .sp = 0 };
	st.n[st.sp++] = e;
	while (st.sp) {
		struct td_expr *x = st.n[--st.sp];

		if (x->op == TD_OP_NAME) {
			x->idx = -1;
			for (size_t i = 0; i < ARRAY_SIZE(names); i++)
				if (strcmp(names[i], x->name) == 0)
					x->idx = (int)i;
			if (x->idx < 0) {
				*err = -1;
				td_expr__delete(e);
				return NAN;
			}
			x->op = TD_OP_EVENT;
		}
		if (x->a && st.sp < 62)
			st.n[st.sp++] = x->a;
		if (x->b && st.sp < 62)
			st.n[st.sp++] = x->b;
		if (x->c && st.sp < 62)
			st.n[st.sp++] = x->c;
	}
	v = td_expr__eval(e, &env);
	td_expr__delete(e);
	return v;
}

static const struct {
	int line;
	const char *src;
	bool smt, core_wide;
	double want;	/* NAN: n/a */
} cases[] = {
	{ __LINE__, "1 + 2 * 3", 0, 0, 7 },
	{ __LINE__, "(1 + 2) * 3", 0, 0, 9 },
	{ __LINE__, "10 - 4 - 3", 0, 0, 3 },
	{ __LINE__, "8 / 4 / 2", 0, 0, 1 },
	{ __LINE__, "-A + B", 0, 0, 1 },
	{ __LINE__, "- -A", 0, 0, 2 },
	{ __LINE__, "2 * -A", 0, 0, -4 },
	{ __LINE__, "1e3 + .5", 0, 0, 1000.5 },
	{ __LINE__, "2.5e-1 * 4", 0, 0, 1 },
	{ __LINE__, "A / Z", 0, 0, NAN },
	{ __LINE__, "d_ratio(A, Z)", 0, 0, 0 },
	{ __LINE__, "d_ratio(B, A)", 0, 0, 1.5 },
	{ __LINE__, "M + 1", 0, 0, NAN },
	{ __LINE__, "min(A, B) + max(A, B)", 0, 0, 5 },
	{ __LINE__, "max(A - B, 0)", 0, 0, 0 },
	{ __LINE__, "A < B", 0, 0, 1 },
	{ __LINE__, "A > B", 0, 0, 0 },
	{ __LINE__, "A <= 2", 0, 0, 1 },
	{ __LINE__, "A >= 3", 0, 0, 0 },
	{ __LINE__, "A == 2", 0, 0, 1 },
	{ __LINE__, "A + 1 > B - 1", 0, 0, 1 },
	{ __LINE__, "A > 1 and B > 4", 0, 0, 0 },
	{ __LINE__, "A > 1 or B > 4", 0, 0, 1 },
	{ __LINE__, "M > 1 or B > 2", 0, 0, 1 },	/* or: a true side wins over n/a */
	{ __LINE__, "M > 1 and B > 4", 0, 0, 0 },	/* and: a false side wins over n/a */
	{ __LINE__, "M > 1 or B > 4", 0, 0, NAN },
	{ __LINE__, "A if #smt_on else B", 1, 0, 2 },
	{ __LINE__, "A if #smt_on else B", 0, 0, 3 },
	{ __LINE__, "M if #smt_on else B", 0, 0, 3 },	/* untaken branch is not evaluated */
	{ __LINE__, "(A if #core_wide else B) if #smt_on else 1", 1, 0, 3 },
	{ __LINE__, "(A if #core_wide else B) if #smt_on else 1", 1, 1, 2 },
	{ __LINE__, "1 + A if A > B else 2 + B", 0, 0, 5 },	/* if binds loosest */
	{ __LINE__, "A if B > 2 else B if A > 5 else 0", 0, 0, 2 },
	{ __LINE__, "#slots * A", 0, 0, 8 },
	{ __LINE__, "#width", 0, 0, 4 },
	{ __LINE__, "CPU_CLK.THREAD / 5", 0, 0, 2 },
	{ __LINE__, "topdown\\-retiring", 0, 0, 7 },
	{ __LINE__, "L1D.FB_FULL:c1 * 2", 0, 0, 10 },
	{ __LINE__, "cpu@x@", 0, 0, 11 },
	{ __LINE__, "M if A > 1 else 0", 0, 0, NAN },
	{ __LINE__, "A if M > 1 else 0", 0, 0, NAN },	/* unknown condition */
};

static const struct {
	int line;
	const char *src;
	const char *msg;
} errors[] = {
	{ __LINE__, "(A + B", "column 7: expected ')'" },
	{ __LINE__, "A + ", "column 5: unexpected end of formula" },
	{ __LINE__, "A B", "column 3: expected an operator or the end" },
	{ __LINE__, "A + B)", "column 6: unbalanced ')'" },
	{ __LINE__, "min(A B)", "column 7: expected ','" },
	{ __LINE__, "A if B", "column 7: expected 'else'" },
	{ __LINE__, "#foo", "column 2: unknown constant (known: #smt_on, #core_wide, #slots, #width)" },
	{ __LINE__, "A $ B", "column 3: unexpected character '$'" },
	{ __LINE__, "", "column 1: empty formula" },
	{ __LINE__, "A < B < 3", "column 7: comparisons do not chain; add parentheses" },
	{ __LINE__, "4X", "column 1: bad number" },
	{ __LINE__, "A = B", "column 3: unexpected character '='" },
	{ __LINE__, "* A", "column 1: expected a number, a name or '('" },
	{ __LINE__, "A\\", "column 2: '\\' at the end of the formula" },
};

/* A small model around one formula, for load-time errors. */
static char *model_json(const char *bb_formula, const char *extra_metric)
{
	return xasprintf("{\"id\":\"t\",\"width\":4,\"events\":[{\"id\":\"E\",\"perf\":\"cycles\"}],"
			 "\"metrics\":[{\"name\":\"Backend_Bound\",\"level\":1,\"formula\":\"%s\"}%s%s]}",
			 bb_formula, extra_metric ? "," : "", extra_metric ? extra_metric : "");
}

static void load_error(int line, const char *formula, const char *extra, const char *want)
{
	char *json = model_json(formula, extra), *cause = NULL;
	struct td_model *m = NULL;
	int err = td_model__load_string(json, "events/test.json", &m, &cause);

	ok_at(err == GX_E_FORMAT && m == NULL, __FILE__, line, "load fails: %s", formula);
	is_str_at(cause, want, line, "message for %s", formula);
	free(cause);
	free(json);
	td_model__delete(m);
}

int main(void)
{
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double v = eval_str(cases[i].src, cases[i].smt, cases[i].core_wide, &err);

		if (!ok_at(err == 0, __FILE__, cases[i].line, "parses: %s", cases[i].src))
			continue;
		if (isnan(cases[i].want))
			ok_at(isnan(v), __FILE__, cases[i].line, "%s is n/a (got %g)", cases[i].src, v);
		else
			is_double_at(v, cases[i].want, 1e-12, cases[i].line, "%s", cases[i].src);
	}
	for (size_t i = 0; i < ARRAY_SIZE(errors); i++) {
		struct td_expr *e = NULL;
		char *cause = NULL;

		err = td_expr__parse(errors[i].src, &e, &cause);
		ok_at(err == GX_E_FORMAT && e == NULL, __FILE__, errors[i].line, "rejects '%s'",
		      errors[i].src);
		is_str_at(cause, errors[i].msg, errors[i].line, "message for '%s'", errors[i].src);
		free(cause);
		td_expr__delete(e);
	}

	/* errors name the file, the metric and the column */
	load_error(__LINE__, "1 - (E + E / 2", NULL,
		   "events/test.json: metric Backend_Bound: column 15: expected ')'");
	load_error(__LINE__, "E / Cycles", NULL,
		   "events/test.json: metric Backend_Bound: column 5: unknown event or metric 'Cycles'");
	load_error(__LINE__, "E / X", "{\"name\":\"X\",\"formula\":\"Y + 1\"},{\"name\":\"Y\",\"formula\":\"X * 2\"}",
		   "events/test.json: metric X: reference cycle: X -> Y -> X");
	load_error(__LINE__, "Backend_Bound + 1", NULL,
		   "events/test.json: metric Backend_Bound: reference cycle: Backend_Bound -> Backend_Bound");
	load_error(__LINE__, "E", "{\"name\":\"X\",\"formula\":\"1\",\"threshold\":\"X >\"}",
		   "events/test.json: metric X: threshold: column 4: unexpected end of formula");
	load_error(__LINE__, "E", "{\"name\":\"X\",\"level\":2,\"formula\":\"1\"}",
		   "events/test.json: metric X: level 2 needs a parent");

	/* a threshold may refer to its own metric without being a cycle */
	{
		char *json = model_json("E / 2", "{\"name\":\"X\",\"formula\":\"E\",\"threshold\":\"X > 1 and Backend_Bound > 0\"}");
		struct td_model *m;
		char *cause = NULL;

		is_int(td_model__load_string(json, "t.json", &m, &cause), 0, "self-referencing threshold loads");
		if (cause)
			diag("%s", cause);
		td_model__delete(m);
		free(cause);
		free(json);
	}
	return done_testing();
}
