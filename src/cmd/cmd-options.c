/*
 * cmd-options.c: one parser over the commands' option tables (perf's
 * parse_options, git's parse-options): it parses, prints `--help` and
 * says what went wrong in the option's own words.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-int.h"
#include "util/util.h"

void cmd_error_in(const char *name, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "gexplore %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* An option found in a table, with the base its target is relative to. */
struct found {
	const struct cmd_option *opt;
	char *base;
};

/* Walk the table and its includes; f returns nonzero to stop. */
static int walk(const struct cmd_option *t, char *base,
		int (*f)(const struct cmd_option *o, char *base, void *arg), void *arg)
{
	int r;

	for (; t && t->kind != CMD_OPTK_END; t++) {
		if (t->kind == CMD_OPTK_INCLUDE)
			r = walk(t->sub, base ? base + t->off : NULL, f, arg);
		else
			r = f(t, base, arg);
		if (r)
			return r;
	}
	return 0;
}

struct lookup {
	const char *name;	/* a long name (or prefix) of len chars; NULL: short */
	size_t len;
	char c;
	struct found exact, prefix;
	int nr_prefix;
};

static int lookup_one(const struct cmd_option *o, char *base, void *arg)
{
	struct lookup *l = arg;

	if (!l->name) {
		if (o->short_name && o->short_name == l->c) {
			l->exact = (struct found){ o, base };
			return 1;
		}
		return 0;
	}
	if (!o->long_name || strncmp(o->long_name, l->name, l->len))
		return 0;
	if (!o->long_name[l->len]) {
		l->exact = (struct found){ o, base };
		return 1;
	}
	l->prefix = (struct found){ o, base };
	l->nr_prefix++;
	return 0;
}

struct candidates {
	const char *name;
	size_t len;
	struct strbuf sb;
};

static int add_candidate(const struct cmd_option *o, char *base, void *arg)
{
	struct candidates *c = arg;

	(void)base;
	if (o->long_name && !strncmp(o->long_name, c->name, c->len))
		strbuf__addf(&c->sb, "%s--%s", c->sb.len ? ", " : "", o->long_name);
	return 0;
}

/* "a, b or c" of an enum's names. */
static void enum_names(const struct cmd_enum *n, struct strbuf *sb, const char *last_sep)
{
	for (size_t i = 0; n[i].name; i++)
		strbuf__addf(sb, "%s%s", i == 0 ? "" : !n[i + 1].name ? last_sep : ", ", n[i].name);
}

static void store_uint(void *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, sizeof(v)); break;
	}
}

int cmd_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	int base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;

	if (!(s[0] >= '0' && s[0] <= '9'))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	return errno || end == s || *end || *out < min || *out > max ? -1 : 0;
}

/* Apply one option; 0, or -1 with *cause. */
static int apply(const struct found *f, const char *arg, char **cause)
{
	const struct cmd_option *o = f->opt;
	void *p = f->base + o->off;
	struct strbuf sb = STRBUF_INIT;
	uint64_t u;
	double d;
	char *end;

	switch (o->kind) {
	case CMD_OPTK_BOOL:
		*(bool *)p = true;
		return 0;
	case CMD_OPTK_STRING:
		*(const char **)p = arg;
		return 0;
	case CMD_OPTK_LIST: {
		struct cmd_strv *v = p;

		if (v->n == CMD_MAX_LIST) {
			*cause = xasprintf("given more than %d times", CMD_MAX_LIST);
			return -1;
		}
		v->v[v->n++] = arg;
		v->v[v->n] = NULL;
		return 0;
	}
	case CMD_OPTK_UINT:
		if (cmd_parse_u64(arg, o->min, o->max, &u)) {
			if (o->max == UINT64_MAX)
				*cause = xasprintf("expected %s of at least %" PRIu64 ", got '%s'",
						   o->what, o->min, arg);
			else
				*cause = xasprintf("expected %s from %" PRIu64 " to %" PRIu64
						   ", got '%s'", o->what, o->min, o->max, arg);
			return -1;
		}
		store_uint(p, o->size, u);
		return 0;
	case CMD_OPTK_DOUBLE:
		errno = 0;
		d = strtod(arg, &end);
		if (errno || end == arg || *end || !(d >= o->dmin && d <= o->dmax)) {
			*cause = xasprintf("expected %s from %g to %g, got '%s'", o->what, o->dmin,
					   o->dmax, arg);
			return -1;
		}
		*(double *)p = d;
		return 0;
	case CMD_OPTK_ENUM:
		for (const struct cmd_enum *n = o->names; n->name; n++)
			if (!strcmp(n->name, arg)) {
				int v = n->value;

				memcpy(p, &v, sizeof(v));
				return 0;
			}
		enum_names(o->names, &sb, " or ");
		*cause = xasprintf("expected %s, got '%s'", sb.buf, arg);
		strbuf__exit(&sb);
		return -1;
	case CMD_OPTK_CALLBACK:
		return o->cb(o, f->base, arg, cause);
	default:
		return 0;
	}
}

/* version and help are in gexplore(1) */
static const char *man_page(const struct cmd_entry *e)
{
	static char buf[64];

	if (e == &cmd_version_entry || e == &cmd_help_entry)
		return "gexplore(1)";
	snprintf(buf, sizeof(buf), "gexplore-%s(1)", e->name);
	return buf;
}

/* One line: "gexplore CMD: <message>" (the tests hold errors to one). */
static int fail(const struct cmd_entry *e, struct cmd_args *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(const struct cmd_entry *e, struct cmd_args *a, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	cmd_error_in(e->name, "%s", msg ? msg : fmt);
	free(msg);
	a->exit = GX_EXIT_USAGE;
	return 1;
}

/* The nearest long option by spelling (within 2 edits), for "did you mean". */
struct nearest {
	const char *name;
	const char *best;
	size_t bd;
};

static int near_one(const struct cmd_option *o, char *base, void *arg)
{
	struct nearest *n = arg;
	size_t d;

	(void)base;
	if (!o->long_name)
		return 0;
	d = gx_edit_distance(n->name, o->long_name, 2);
	if (d < n->bd)
		n->bd = d, n->best = o->long_name;
	return 0;
}

/* An unknown option: another command's ("report -g": record's), or the
 * nearest of this command's by spelling; "" when neither. Static. */
static const char *unknown_hint(const struct cmd_entry *e, const char *lname, size_t len,
				char c)
{
	static char buf[160];
	char *name = lname ? xstrndup(lname, len) : NULL;
	struct nearest n = { .name = name, .bd = 3 };

	buf[0] = 0;
	if (name) {
		walk(e->options, NULL, near_one, &n);
		if (n.best)
			snprintf(buf, sizeof(buf), "; did you mean '--%s'?", n.best);
	}
	for (const struct cmd_entry *const *o = cmd_table; !buf[0] && *o; o++) {
		struct lookup l = { .name = name, .len = len, .c = c };

		if (*o == e || !strcmp((*o)->name, e->name))
			continue;
		walk((*o)->options, NULL, lookup_one, &l);
		if (l.exact.opt)
			snprintf(buf, sizeof(buf), "; it is an option of 'gexplore %s'%s",
				 (*o)->name, !strcmp((*o)->name, "record") ?
				 " (record with it, then report the result)" : "");
	}
	free(name);
	return buf;
}

static int is_help(const char *s)
{
	return !strcmp(s, "-h") || !strcmp(s, "--help");
}

/* A long option at argv[*i] ("--name" or "--name=value"). */
static int parse_long(const struct cmd_entry *e, char *base, int argc, char **argv, int *i,
		      struct cmd_args *a)
{
	const char *s = argv[*i] + 2, *eq = strchr(s, '='), *arg = NULL;
	struct lookup l = { .name = s, .len = eq ? (size_t)(eq - s) : strlen(s) };
	struct found f;
	char *cause = NULL;
	int r;

	walk(e->options, base, lookup_one, &l);
	if (l.exact.opt) {
		f = l.exact;
	} else if (l.nr_prefix == 1) {
		f = l.prefix;
	} else if (l.nr_prefix > 1) {
		struct candidates c = { .name = s, .len = l.len, .sb = STRBUF_INIT };

		walk(e->options, NULL, add_candidate, &c);
		r = fail(e, a, "option '--%.*s' is ambiguous: %s", (int)l.len, s, c.sb.buf);
		strbuf__exit(&c.sb);
		return r;
	} else {
		return fail(e, a, "unknown option '--%.*s'%s", (int)l.len, s,
			    unknown_hint(e, s, l.len, 0));
	}
	if (eq) {
		if (f.opt->arg == CMD_ARG_NONE)
			return fail(e, a, "--%s takes no argument", f.opt->long_name);
		arg = eq + 1;
	} else if (f.opt->arg == CMD_ARG_REQUIRED) {
		if (*i + 1 >= argc)
			return fail(e, a, "--%s needs an argument (%s)", f.opt->long_name,
				    f.opt->argh ? f.opt->argh : "a value");
		arg = argv[++*i];
	} else if (f.opt->arg == CMD_ARG_OPTIONAL && f.opt->takes && *i + 1 < argc &&
		   f.opt->takes(argv[*i + 1])) {
		arg = argv[++*i];
	}
	if (apply(&f, arg, &cause)) {
		r = fail(e, a, "--%s: %s", f.opt->long_name, cause);
		free(cause);
		return r;
	}
	return 0;
}

/* Short options bundled at argv[*i] ("-fq", "-oDIR", "-o DIR"). */
static int parse_short(const struct cmd_entry *e, char *base, int argc, char **argv, int *i,
		       struct cmd_args *a)
{
	for (const char *p = argv[*i] + 1; *p; p++) {
		struct lookup l = { .c = *p };
		const char *arg = NULL;
		char *cause = NULL;
		int r;

		walk(e->options, base, lookup_one, &l);
		if (!l.exact.opt && *p == 'h') {	/* "-qh" as well as "-h" */
			cmd_help_print(e);
			a->exit = GX_EXIT_OK;
			return 1;
		}
		if (!l.exact.opt)
			return fail(e, a, "unknown option '-%c'%s", *p, unknown_hint(e, NULL, 0, *p));
		if (l.exact.opt->arg != CMD_ARG_NONE) {
			if (p[1]) {
				arg = p + 1;
			} else if (l.exact.opt->arg == CMD_ARG_REQUIRED) {
				if (*i + 1 >= argc)
					return fail(e, a, "-%c needs an argument (%s)", *p,
						    l.exact.opt->argh ? l.exact.opt->argh : "a value");
				arg = argv[++*i];
			}
		}
		if (apply(&l.exact, arg, &cause)) {
			r = fail(e, a, "-%c: %s", *p, cause);
			free(cause);
			return r;
		}
		if (arg)
			break;
	}
	return 0;
}

int cmd_parse(const struct cmd_entry *e, void *base, int argc, char **argv, struct cmd_args *a)
{
	int i, np = 0;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		int r;

		if (!strcmp(s, "--")) {
			i++;
			if (!e->stop_at_arg)
				a->rest = argv + i;
			break;
		}
		if (s[0] != '-' || !s[1]) {	/* an argument ("-" is one: stdin) */
			if (e->stop_at_arg)
				break;
			argv[1 + np++] = argv[i];
			continue;
		}
		if (is_help(s)) {
			cmd_help_print(e);
			a->exit = GX_EXIT_OK;
			return 1;
		}
		r = s[1] == '-' ? parse_long(e, base, argc, argv, &i, a) :
				  parse_short(e, base, argc, argv, &i, a);
		if (r)
			return r;
	}
	if (e->stop_at_arg) {
		a->argv = argv + i;
		a->argc = argc - i;
	} else {
		a->argv = argv + 1;
		a->argc = np;
		if (!a->rest)
			i = argc;
		/* argv[1 + np] is at most the "--" slot: free to end the list */
		argv[1 + np] = NULL;
	}
	if (e->max_args >= 0 && a->argc > e->max_args) {
		return fail(e, a, e->max_args ? "too many arguments: '%s'" : "unexpected argument '%s'",
			    a->argv[e->max_args]);
	}
	return 0;
}

/* ---- words ---- */

/* Split s at blanks; '...' and "..." group. */
static void split_words(struct cmd_words *w, const char *name, const char *s)
{
	char *p;

	w->buf = p = xstrdup(s);
	w->argv = xcalloc(strlen(s) / 2 + 3, sizeof(char *));
	w->argc = 0;
	w->argv[w->argc++] = (char *)name;
	while (*p) {
		char q = 0, *d;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		w->argv[w->argc++] = d = p;
		for (;; p++) {
			if (q && *p == q) {
				q = 0;
			} else if (!q && (*p == '\'' || *p == '"')) {
				q = *p;
			} else if (!*p || (!q && (*p == ' ' || *p == '\t' || *p == '\n'))) {
				bool end = !*p;

				*d = 0;
				if (!end)
					p++;
				break;
			} else {
				*d++ = *p;
			}
		}
	}
	w->argv[w->argc] = NULL;
}

int cmd_parse_words(const struct cmd_entry *e, void *base, const char *s, struct cmd_words *w)
{
	struct cmd_args a;

	split_words(w, e->name, s);
	if (cmd_parse(e, base, w->argc, w->argv, &a))
		return a.exit ? a.exit : GX_EXIT_USAGE;	/* --help inside: not here */
	if (a.argc || a.rest) {
		cmd_error_in(e->name, "'%s': only options here", s);
		return GX_EXIT_USAGE;
	}
	return 0;
}

void cmd_words__exit(struct cmd_words *w)
{
	free(w->buf);
	free(w->argv);
	w->buf = NULL;
	w->argv = NULL;
}

/* ---- help ---- */

static int help_line(const struct cmd_option *o, char *base, void *arg)
{
	struct strbuf sb = STRBUF_INIT;

	(void)base;
	(void)arg;
	if (o->short_name && o->long_name)
		strbuf__addf(&sb, "  -%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		strbuf__addf(&sb, "  -%c", o->short_name);
	else
		strbuf__addf(&sb, "      --%s", o->long_name);
	if (o->arg != CMD_ARG_NONE) {
		bool opt = o->arg == CMD_ARG_OPTIONAL;

		strbuf__addstr(&sb, opt ? "[=" : " ");
		if (o->argh)
			strbuf__addstr(&sb, o->argh);
		for (size_t i = 0; !o->argh && o->names && o->names[i].name; i++)
			strbuf__addf(&sb, "%s%s", i ? "|" : "", o->names[i].name);
		strbuf__addstr(&sb, opt ? "]" : "");
	}
	if (sb.len < 28)	/* two blanks at least: tests/e2e/options.sh splits there */
		printf("%-30s%s", sb.buf, o->help);
	else
		printf("%s\n%30s%s", sb.buf, "", o->help);
	if (o->def)
		printf(" (default: %s)", o->def);
	putchar('\n');
	strbuf__exit(&sb);
	return 0;
}

void cmd_help_print_options(const struct cmd_entry *e)
{
	walk(e->options, NULL, help_line, NULL);
}

void cmd_help_print(const struct cmd_entry *e)
{
	printf("usage: gexplore %s [options]%s%s\n", e->name, e->usage && *e->usage ? " " : "",
	       e->usage ? e->usage : "");
	printf("%s\n\n", e->summary);
	walk(e->options, NULL, help_line, NULL);
	help_line(&(struct cmd_option){ .short_name = 'h', .long_name = "help",
					.help = "this text" }, NULL, NULL);
	printf("\nThe manual is %s.\n", man_page(e));
}
