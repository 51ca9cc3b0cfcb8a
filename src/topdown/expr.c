/*
 * expr.c: the metric formula language, a subset of Linux perf's MetricExpr.
 *
 *	expr    := or ['if' or 'else' expr]
 *	or      := and ('or' and)*
 *	and     := cmp ('and' cmp)*
 *	cmp     := sum [('<' | '>' | '<=' | '>=' | '==') sum]
 *	sum     := term (('+' | '-') term)*
 *	term    := unary (('*' | '/') unary)*
 *	unary   := '-' unary | primary
 *	primary := NUMBER | NAME | '#' NAME | '(' expr ')'
 *	         | ('min' | 'max' | 'd_ratio') '(' expr ',' expr ')'
 *
 * Names are perf's: letters, digits, '_', '.', ':', '@', '?', and any
 * character escaped with a backslash (`topdown\-retiring`). Values are
 * doubles; NAN means "n/a" and propagates, so a missing event or 0/0 makes
 * every metric depending on it n/a instead of failing.
 */
#include "config.h"

#include "topdown-int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum tok {
	T_END, T_NUM, T_NAME, T_HASH, T_LP, T_RP, T_COMMA,
	T_PLUS, T_MINUS, T_STAR, T_SLASH,
	T_LT, T_GT, T_LE, T_GE, T_EQ,
	T_IF, T_ELSE, T_AND, T_OR, T_MIN, T_MAX, T_DRATIO,
};

static const struct {
	const char *name;
	enum tok tok;
} keywords[] = {
	{ "if", T_IF }, { "else", T_ELSE }, { "and", T_AND }, { "or", T_OR },
	{ "min", T_MIN }, { "max", T_MAX }, { "d_ratio", T_DRATIO },
};

struct parser {
	const char *src;
	size_t pos;		/* start of the next token */
	enum tok tok;		/* current token */
	size_t tok_pos;
	double num;
	struct strbuf name;
	char **cause;
	int depth;
};

static bool name_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '@' || c == '?';
}

static int fail_at(struct parser *p, size_t pos, const char *msg)
{
	return gx_fail(p->cause, GX_E_FORMAT, "column %zu: %s", pos + 1, msg);
}

/* The operator just read is tok, or tok_eq when '=' follows it. */
static int op_maybe_eq(struct parser *p, enum tok tok, enum tok tok_eq)
{
	if (p->src[p->pos] == '=') {
		p->pos++;
		tok = tok_eq;
	}
	p->tok = tok;
	return 0;
}

static int next(struct parser *p)
{
	const char *s = p->src;
	size_t i = p->pos;

	while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
		i++;
	p->tok_pos = i;
	if (!s[i]) {
		p->tok = T_END;
		p->pos = i;
		return 0;
	}
	if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
		char *end;

		errno = 0;
		p->num = strtod(s + i, &end);
		if (end == s + i || errno == ERANGE)
			return fail_at(p, i, "bad number");
		/* "4X" is a typo, not a number followed by a name */
		if (name_char((unsigned char)*end) && *end != '.' && *end != ':')
			return fail_at(p, i, "bad number");
		p->tok = T_NUM;
		p->pos = (size_t)(end - s);
		return 0;
	}
	if (isalpha((unsigned char)s[i]) || s[i] == '_' || s[i] == '\\') {
		p->name.len = 0;
		if (p->name.buf)
			p->name.buf[0] = '\0';
		while (s[i] && (name_char((unsigned char)s[i]) || s[i] == '\\')) {
			if (s[i] == '\\') {
				if (!s[i + 1])
					return fail_at(p, i, "'\\' at the end of the formula");
				i++;
			}
			strbuf__add(&p->name, s + i, 1);
			i++;
		}
		p->pos = i;
		p->tok = T_NAME;
		for (size_t k = 0; k < ARRAY_SIZE(keywords); k++)
			if (strcmp(p->name.buf, keywords[k].name) == 0)
				p->tok = keywords[k].tok;
		return 0;
	}
	p->pos = i + 1;
	switch (s[i]) {
	case '#': p->tok = T_HASH; return 0;
	case '(': p->tok = T_LP; return 0;
	case ')': p->tok = T_RP; return 0;
	case ',': p->tok = T_COMMA; return 0;
	case '+': p->tok = T_PLUS; return 0;
	case '-': p->tok = T_MINUS; return 0;
	case '*': p->tok = T_STAR; return 0;
	case '/': p->tok = T_SLASH; return 0;
	case '<':
		return op_maybe_eq(p, T_LT, T_LE);
	case '>':
		return op_maybe_eq(p, T_GT, T_GE);
	case '=':
		if (s[i + 1] == '=') {
			p->pos++;
			p->tok = T_EQ;
			return 0;
		}
		break;
	default:
		break;
	}
	return gx_fail(p->cause, GX_E_FORMAT, "column %zu: unexpected character '%c'", i + 1,
		       isprint((unsigned char)s[i]) ? s[i] : '?');
}

static struct td_expr *node_new(enum td_op op, size_t pos)
{
	struct td_expr *e = xzalloc(sizeof(*e));

	e->op = op;
	e->col = (int)pos + 1;
	return e;
}

void td_expr__delete(struct td_expr *e)
{
	if (!e)
		return;
	td_expr__delete(e->a);
	td_expr__delete(e->b);
	td_expr__delete(e->c);
	GX_FREE(e->name, e);
}

static int parse_expr(struct parser *p, struct td_expr **out);

static int expect(struct parser *p, enum tok t, const char *what)
{
	char msg[64];

	if (p->tok != t) {
		snprintf(msg, sizeof(msg), "expected %s", what);
		return fail_at(p, p->tok_pos, msg);
	}
	return next(p);
}

/* `what`, then an expression into *out. */
static int expect_expr(struct parser *p, enum tok t, const char *what, struct td_expr **out)
{
	int err = expect(p, t, what);

	return err ? err : parse_expr(p, out);
}

static int parse_primary(struct parser *p, struct td_expr **out)
{
	struct td_expr *e = NULL;
	size_t pos = p->tok_pos;
	enum tok t = p->tok;
	int err;

	switch (t) {
	case T_NUM:
		e = node_new(TD_OP_NUM, pos);
		e->num = p->num;
		err = next(p);
		break;
	case T_NAME:
		e = node_new(TD_OP_NAME, pos);
		e->name = xstrdup(p->name.buf);
		err = next(p);
		break;
	case T_HASH:
		err = next(p);
		if (err)
			break;
		if (p->tok != T_NAME) {
			err = fail_at(p, p->tok_pos, "expected a name after '#'");
			break;
		}
		if (strcmp(p->name.buf, "smt_on") == 0) {
			e = node_new(TD_OP_SMT_ON, pos);
		} else if (strcmp(p->name.buf, "core_wide") == 0) {
			e = node_new(TD_OP_CORE_WIDE, pos);
		} else if (strcmp(p->name.buf, "slots") == 0 || strcmp(p->name.buf, "width") == 0) {
			e = node_new(TD_OP_WIDTH, pos);
		} else {
			err = fail_at(p, p->tok_pos,
				      "unknown constant (known: #smt_on, #core_wide, #slots, #width)");
			break;
		}
		err = next(p);
		break;
	case T_LP:
		err = next(p);
		if (!err)
			err = parse_expr(p, &e);
		if (!err)
			err = expect(p, T_RP, "')'");
		break;
	case T_MIN:
	case T_MAX:
	case T_DRATIO:
		e = node_new(t == T_MIN ? TD_OP_MIN : t == T_MAX ? TD_OP_MAX : TD_OP_DRATIO, pos);
		err = next(p);
		if (!err)
			err = expect_expr(p, T_LP, "'('", &e->a);
		if (!err)
			err = expect_expr(p, T_COMMA, "','", &e->b);
		if (!err)
			err = expect(p, T_RP, "')'");
		break;
	case T_END:
		err = fail_at(p, pos, "unexpected end of formula");
		break;
	default:
		err = fail_at(p, pos, "expected a number, a name or '('");
		break;
	}
	if (err) {
		td_expr__delete(e);
		return err;
	}
	*out = e;
	return 0;
}

static int parse_unary(struct parser *p, struct td_expr **out)
{
	struct td_expr *e;
	size_t pos = p->tok_pos;
	int err;

	if (p->tok != T_MINUS)
		return parse_primary(p, out);
	if (++p->depth > 200)
		return fail_at(p, pos, "formula nested too deeply");
	err = next(p);
	if (err)
		return err;
	e = node_new(TD_OP_NEG, pos);
	err = parse_unary(p, &e->a);
	p->depth--;
	if (err) {
		td_expr__delete(e);
		return err;
	}
	*out = e;
	return 0;
}

/* Left-associative binary level: operand parser `sub`, operators from map. */
struct binop {
	enum tok tok;
	enum td_op op;
};

static int parse_binary(struct parser *p, struct td_expr **out,
			int (*sub)(struct parser *, struct td_expr **),
			const struct binop *ops, size_t nr_ops, bool once)
{
	struct td_expr *lhs = NULL;
	int err = sub(p, &lhs);

	while (!err) {
		size_t i;
		struct td_expr *e;

		for (i = 0; i < nr_ops; i++)
			if (p->tok == ops[i].tok)
				break;
		if (i == nr_ops)
			break;
		e = node_new(ops[i].op, p->tok_pos);
		e->a = lhs;
		lhs = e;
		err = next(p);
		if (!err)
			err = sub(p, &e->b);
		if (once && !err && (p->tok == T_LT || p->tok == T_GT || p->tok == T_LE ||
				     p->tok == T_GE || p->tok == T_EQ))
			err = fail_at(p, p->tok_pos, "comparisons do not chain; add parentheses");
	}
	if (err) {
		td_expr__delete(lhs);
		return err;
	}
	*out = lhs;
	return 0;
}

static int parse_term(struct parser *p, struct td_expr **out)
{
	static const struct binop ops[] = { { T_STAR, TD_OP_MUL }, { T_SLASH, TD_OP_DIV } };

	return parse_binary(p, out, parse_unary, ops, ARRAY_SIZE(ops), false);
}

static int parse_sum(struct parser *p, struct td_expr **out)
{
	static const struct binop ops[] = { { T_PLUS, TD_OP_ADD }, { T_MINUS, TD_OP_SUB } };

	return parse_binary(p, out, parse_term, ops, ARRAY_SIZE(ops), false);
}

static int parse_cmp(struct parser *p, struct td_expr **out)
{
	static const struct binop ops[] = {
		{ T_LT, TD_OP_LT }, { T_GT, TD_OP_GT }, { T_LE, TD_OP_LE },
		{ T_GE, TD_OP_GE }, { T_EQ, TD_OP_EQ },
	};

	return parse_binary(p, out, parse_sum, ops, ARRAY_SIZE(ops), true);
}

static int parse_and(struct parser *p, struct td_expr **out)
{
	static const struct binop ops[] = { { T_AND, TD_OP_AND } };

	return parse_binary(p, out, parse_cmp, ops, ARRAY_SIZE(ops), false);
}

static int parse_or(struct parser *p, struct td_expr **out)
{
	static const struct binop ops[] = { { T_OR, TD_OP_OR } };

	return parse_binary(p, out, parse_and, ops, ARRAY_SIZE(ops), false);
}

static int parse_expr(struct parser *p, struct td_expr **out)
{
	struct td_expr *val = NULL, *e;
	size_t pos;
	int err;

	if (++p->depth > 200)
		return fail_at(p, p->tok_pos, "formula nested too deeply");
	err = parse_or(p, &val);
	if (err || p->tok != T_IF)
		goto out;
	pos = p->tok_pos;
	e = node_new(TD_OP_IF, pos);
	e->a = val;
	val = e;
	err = next(p);
	if (!err)
		err = parse_or(p, &e->b);
	if (!err)
		err = expect_expr(p, T_ELSE, "'else'", &e->c);
out:
	p->depth--;
	if (err) {
		td_expr__delete(val);
		return err;
	}
	*out = val;
	return 0;
}

int td_expr__parse(const char *src, struct td_expr **out, char **cause)
{
	struct parser p = { .src = src, .cause = cause };
	struct td_expr *e = NULL;
	int err;

	*out = NULL;
	/* bounds the depth of the tree, hence recursion in eval and delete */
	if (strlen(src) > 8192)
		return gx_fail(cause, GX_E_FORMAT, "column 8193: formula longer than 8192 characters");
	err = next(&p);
	if (!err && p.tok == T_END)
		err = fail_at(&p, p.tok_pos, "empty formula");
	if (!err)
		err = parse_expr(&p, &e);
	if (!err && p.tok != T_END) {
		err = fail_at(&p, p.tok_pos,
			      p.tok == T_RP ? "unbalanced ')'" : "expected an operator or the end");
		td_expr__delete(e);
	}
	strbuf__exit(&p.name);
	if (err)
		return err;
	*out = e;
	return 0;
}

static double truth(bool b)
{
	return b ? 1.0 : 0.0;
}

double td_expr__eval(const struct td_expr *e, const struct td_eval_env *env)
{
	double a, b;

	switch (e->op) {
	case TD_OP_NUM:
		return e->num;
	case TD_OP_NAME:
		return NAN;
	case TD_OP_EVENT:
		return env->counts ? env->counts[e->idx] : NAN;
	case TD_OP_METRIC:
		return env->metric ? env->metric(env->arg, e->idx) : NAN;
	case TD_OP_SMT_ON:
		return truth(env->smt_on);
	case TD_OP_CORE_WIDE:
		return truth(env->core_wide);
	case TD_OP_WIDTH:
		return env->width;
	case TD_OP_NEG:
		return -td_expr__eval(e->a, env);
	case TD_OP_IF:
		/* lazy: the branch not taken may name events never measured */
		b = td_expr__eval(e->b, env);
		if (isnan(b))
			return NAN;
		return td_expr__eval(b != 0 ? e->a : e->c, env);
	case TD_OP_AND:
		a = td_expr__eval(e->a, env);
		if (a == 0)
			return 0;
		b = td_expr__eval(e->b, env);
		if (b == 0)
			return 0;
		return isnan(a) || isnan(b) ? NAN : 1;
	case TD_OP_OR:
		a = td_expr__eval(e->a, env);
		if (!isnan(a) && a != 0)
			return 1;
		b = td_expr__eval(e->b, env);
		if (!isnan(b) && b != 0)
			return 1;
		return isnan(a) || isnan(b) ? NAN : 0;
	default:
		break;
	}
	a = td_expr__eval(e->a, env);
	b = td_expr__eval(e->b, env);
	if (e->op == TD_OP_DRATIO) {
		if (isnan(a) || isnan(b))
			return NAN;
		return b == 0 ? 0 : a / b;
	}
	if (isnan(a) || isnan(b))
		return NAN;
	switch (e->op) {
	case TD_OP_ADD: return a + b;
	case TD_OP_SUB: return a - b;
	case TD_OP_MUL: return a * b;
	case TD_OP_DIV: return b == 0 ? NAN : a / b;
	case TD_OP_LT: return truth(a < b);
	case TD_OP_GT: return truth(a > b);
	case TD_OP_LE: return truth(a <= b);
	case TD_OP_GE: return truth(a >= b);
	case TD_OP_EQ: return truth(a == b);
	case TD_OP_MIN: return a < b ? a : b;
	case TD_OP_MAX: return a > b ? a : b;
	default: return NAN;
	}
}

void td_expr__walk(struct td_expr *e, void (*fn)(struct td_expr *leaf, void *arg), void *arg)
{
	if (!e)
		return;
	if (e->op == TD_OP_NAME || e->op == TD_OP_EVENT || e->op == TD_OP_METRIC)
		fn(e, arg);
	td_expr__walk(e->a, fn, arg);
	td_expr__walk(e->b, fn, arg);
	td_expr__walk(e->c, fn, arg);
}
