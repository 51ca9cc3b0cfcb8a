#ifndef GX_CMD_INT_H
#define GX_CMD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "result/result.h"

struct cmd_entry;

/*
 * Option tables (cmd-options.c). A command declares each option once: its
 * names, argument, one-line help, default and where the value goes (an
 * offset into the command's options struct) or a callback. cmd_parse()
 * parses argv with it, `--help` and `gexplore help CMD` print it, and
 * tests/e2e/options.sh checks it against the man page.
 */
enum cmd_opt_kind {
	CMD_OPTK_END = 0,
	CMD_OPTK_BOOL,		/* bool: set to true */
	CMD_OPTK_STRING,	/* const char *: the argument, borrowed from argv */
	CMD_OPTK_LIST,		/* struct cmd_strv: each occurrence, in order */
	CMD_OPTK_UINT,		/* an unsigned integer of .size bytes in [.min, .max] */
	CMD_OPTK_DOUBLE,	/* double in [.dmin, .dmax] */
	CMD_OPTK_ENUM,		/* an int-sized enum: the value of the name given */
	CMD_OPTK_CALLBACK,	/* .cb(opt, base, arg, &cause) */
	CMD_OPTK_INCLUDE,	/* .sub's options, their targets at base + .off */
};

enum cmd_opt_arg { CMD_ARG_NONE, CMD_ARG_REQUIRED, CMD_ARG_OPTIONAL };

/* A repeatable option's values (borrowed), NULL-terminated. */
#define CMD_MAX_LIST 32
struct cmd_strv {
	size_t n;
	const char *v[CMD_MAX_LIST + 1];
};

struct cmd_enum {
	const char *name;
	int value;
};

struct cmd_option {
	enum cmd_opt_kind kind;
	char short_name;		/* 0: none */
	const char *long_name;		/* NULL: none */
	enum cmd_opt_arg arg;
	const char *argh;		/* the argument in help: "DIR" */
	const char *help;		/* one line */
	const char *def;		/* the default, as help shows it; NULL: none */
	size_t off, size;		/* the target: offsetof and sizeof in the struct */
	uint64_t min, max;		/* CMD_OPTK_UINT */
	double dmin, dmax;		/* CMD_OPTK_DOUBLE */
	const char *what;		/* numbers, in errors: "a number of milliseconds" */
	const struct cmd_enum *names;	/* CMD_OPTK_ENUM: NULL-name terminated */
	/* CMD_OPTK_CALLBACK: 0, or -1 with *cause (allocated; the caller
	 * prefixes the option's name). arg is NULL for an option without one. */
	int (*cb)(const struct cmd_option *opt, void *base, const char *arg, char **cause);
	/* CMD_ARG_OPTIONAL: whether the next word is the argument ("--opt x"
	 * as well as "--opt=x"); NULL: only "--opt=x" */
	bool (*takes)(const char *next);
	const struct cmd_option *sub;	/* CMD_OPTK_INCLUDE */
	int data;			/* for the callback */
};

#define CMD_OPT_TARGET_(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)
#define CMD_OPT_BOOL(s, l, T, m, h) \
	{ .kind = CMD_OPTK_BOOL, .short_name = s, .long_name = l, .help = h, CMD_OPT_TARGET_(T, m) }
#define CMD_OPT_STRING(s, l, T, m, a, h, d) \
	{ .kind = CMD_OPTK_STRING, .short_name = s, .long_name = l, .arg = CMD_ARG_REQUIRED, \
	  .argh = a, .help = h, .def = d, CMD_OPT_TARGET_(T, m) }
#define CMD_OPT_LIST(s, l, T, m, a, h) \
	{ .kind = CMD_OPTK_LIST, .short_name = s, .long_name = l, .arg = CMD_ARG_REQUIRED, \
	  .argh = a, .help = h, CMD_OPT_TARGET_(T, m) }
#define CMD_OPT_UINT(s, l, T, m, a, h, d, lo, hi, w) \
	{ .kind = CMD_OPTK_UINT, .short_name = s, .long_name = l, .arg = CMD_ARG_REQUIRED, \
	  .argh = a, .help = h, .def = d, CMD_OPT_TARGET_(T, m), .min = lo, .max = hi, .what = w }
#define CMD_OPT_DOUBLE(s, l, T, m, a, h, d, lo, hi, w) \
	{ .kind = CMD_OPTK_DOUBLE, .short_name = s, .long_name = l, .arg = CMD_ARG_REQUIRED, \
	  .argh = a, .help = h, .def = d, CMD_OPT_TARGET_(T, m), .dmin = lo, .dmax = hi, .what = w }
#define CMD_OPT_ENUM(s, l, T, m, n, h, d) \
	{ .kind = CMD_OPTK_ENUM, .short_name = s, .long_name = l, .arg = CMD_ARG_REQUIRED, \
	  .names = n, .help = h, .def = d, CMD_OPT_TARGET_(T, m) }
#define CMD_OPT_CALLBACK(s, l, a, f, h, d) \
	{ .kind = CMD_OPTK_CALLBACK, .short_name = s, .long_name = l, \
	  .arg = (a) ? CMD_ARG_REQUIRED : CMD_ARG_NONE, .argh = a, .help = h, .def = d, .cb = f }
#define CMD_OPT_CALLBACK_DATA(s, l, a, f, x, h, d) \
	{ .kind = CMD_OPTK_CALLBACK, .short_name = s, .long_name = l, \
	  .arg = (a) ? CMD_ARG_REQUIRED : CMD_ARG_NONE, .argh = a, .help = h, .def = d, .cb = f, \
	  .data = x }
#define CMD_OPT_CALLBACK_OPTARG(l, a, f, t, h) \
	{ .kind = CMD_OPTK_CALLBACK, .long_name = l, .arg = CMD_ARG_OPTIONAL, .argh = a, \
	  .help = h, .cb = f, .takes = t }
#define CMD_OPT_INCLUDE(T, m, table) \
	{ .kind = CMD_OPTK_INCLUDE, .sub = table, .off = offsetof(T, m) }
#define CMD_OPT_END() { .kind = CMD_OPTK_END }

/* What cmd_parse() leaves: the positional arguments and its verdict. */
struct cmd_args {
	int argc;
	char **argv;	/* the arguments, NULL-terminated (borrowed) */
	char **rest;	/* what followed "--" (without stop_at_arg); NULL without "--" */
	int exit;	/* when cmd_parse() returns 1: the command's exit status */
};

/*
 * Parse argv[1..argc) with e's options into base (the struct its targets
 * are offsets into). Long options take "--opt=x" and "--opt x" and unique
 * prefixes; short ones bundle ("-fq", "-oDIR"); "--" ends the options; so
 * does the first argument where e->stop_at_arg, else options and arguments
 * mix (the arguments are moved to the front of argv). Returns 0, or 1 when
 * the command should return a->exit: after -h/--help (0), or after an
 * error printed as "gexplore CMD: --opt: ..." (GX_EXIT_USAGE).
 */
int cmd_parse(const struct cmd_entry *e, void *base, int argc, char **argv, struct cmd_args *a);

/* Words split at blanks ('...' and "..." group), for option strings such
 * as `record --check 'SPEC'`; what cmd_parse_words() parses keeps
 * pointers into it. */
struct cmd_words {
	char *buf;
	char **argv;	/* argv[0] the command's name */
	int argc;
};
/* Parse the option string s with e's table into base; w owns the words
 * (cmd_words__exit when base is done with). 0, or GX_EXIT_USAGE after
 * printing why. */
int cmd_parse_words(const struct cmd_entry *e, void *base, const char *s, struct cmd_words *w);
void cmd_words__exit(struct cmd_words *w);

/* A decimal (or 0x hexadecimal) unsigned integer, all of s, in [min, max]:
 * 0, or -1. What CMD_OPTK_UINT uses, for callbacks that parse a part. */
int cmd_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* cmd_error() for a command: "gexplore NAME: <message>". */
void cmd_error_in(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The archive (cmd-archive.c). cmd_parse_size: "512M", "2G", "100000"
 * (K, M, G, T binary multiples): 0 or -1. cmd_opt_archive_max: the
 * --archive-max callback, its uint64_t target at base + opt->data (0
 * stays the default, PD_ARCHIVE_MAX_DEFAULT; "0" is UINT64_MAX, no cap).
 */
int cmd_parse_size(const char *s, uint64_t *out);
int cmd_opt_archive_max(const struct cmd_option *opt, void *base, const char *arg, char **cause);

/*
 * A recording's options (cmd-recopts.c), their target a struct
 * record_opts (src/record): record includes cmd_recopts_options in its
 * table; check --record 'OPTS' parses OPTS with cmd_recopts_entry
 * (record's name, these options only). cmd_record_notice prints what a
 * recording says on stderr ("gexplore: MSG", warnings as cmd_warn);
 * cmd_record_exit is the exit code of gx_record's or record_repeat's
 * error: 2 for GX_E_USAGE and GX_E_EVENT, 127 for GX_E_CHILD, else 1.
 */
extern const struct cmd_option cmd_recopts_options[];
extern const struct cmd_entry cmd_recopts_entry;
struct record_notice;
extern const struct record_notice cmd_record_notice;
int cmd_record_exit(int err);

/*
 * Where a result's files and symbols are (cmd-symopts.c): report, check,
 * diff and tui include cmd_symopts_options in their tables, with the
 * target a struct cmd_symopts in their options struct. __apply points a
 * profile's options into so (which must outlive them), and sets who
 * may own a result read as root (--any-owner).
 */
struct cmd_symopts {
	const char *symfs, *kallsyms;
	struct cmd_strv search_paths;
	bool no_inline;
	bool offcpu_kernel;	/* --off-cpu-kernel */
	unsigned jobs;		/* --jobs; 0: the online CPUs (at most 16) */
	bool any_owner;		/* as root, read another user's result */
};
extern const struct cmd_option cmd_symopts_options[];

struct profile_opts;
void cmd_symopts__apply(const struct cmd_symopts *so, struct profile_opts *po);

/* record's --slice, --mux and --mux-runs (cmd-mux.c); targets in struct record_opts */
extern const struct cmd_option record_mux_options[];

struct report_cmd_opts;
/* Print the text report of a result (NULL opts: defaults); exit code. */
int report_print(const char *result, const char *parent, const struct report_cmd_opts *o);
/* Print the report of an opened result (NULL opts: defaults); exit code. */
struct gx_result;
int report_print_result(struct gx_result *res, const struct report_cmd_opts *o);
/* The text report right after its recording (`gexplore -- CMD`): the
 * recording's warnings, when said as it ran (said), are counted, not
 * repeated. */
int report_print_recorded(struct gx_result *res, bool said);
/* The same with the default options but sym's (NULL: none). */
int report_print_sym(const char *result, const char *parent, const struct cmd_symopts *sym);
/*
 * The HTML page of res (export_html__write) to path: report's JSON with
 * r's options (NULL: the defaults) and event e, the timeline from x (NULL:
 * none), check's verdicts from check_json (NULL: none). 0 or a negative
 * code with *cause (the caller frees it).
 */
struct export_samples;
struct report_opts;
int report_html_write(struct gx_result *res, struct export_samples *x, size_t e,
		      const struct report_opts *r, const char *check_json, const char *path,
		      char **cause);
/* report --roofline (cmd-roofline.c): this machine's roofline with the
 * points of a result, as text, and as SVG or HTML into file (NULL: none);
 * exit code. */
int report_roofline(const char *result, const char *parent, const char *file);

/*
 * cmd-check.c: check's options, for `record --check 'SPEC'`. __new parses
 * spec with check's option table (options only: the results are record's);
 * GX_EXIT_USAGE after printing why. check_run() checks results[0..n) (n 0:
 * the newest result here) and prints the verdict; its exit code.
 */
struct check_cmd_opts;
int check_cmd_opts__new(struct check_cmd_opts **out, const char *spec);
void check_cmd_opts__delete(struct check_cmd_opts *c);
bool check_cmd_opts__quiet(const struct check_cmd_opts *c);
int check_run(struct check_cmd_opts *c, char **results, size_t n);
/* The options check opens a result with (--cpu, --smt, symbol options),
 * and check_run on a result already opened with them (record --check:
 * the end-of-run report and the check read one opened result). */
struct gx_result_opts;
const struct gx_result_opts *check_cmd_opts__open(const struct check_cmd_opts *c);
int check_run_result(struct check_cmd_opts *c, struct gx_result *res);
/* Open the TUI on a result (the text report when it cannot run); sym and
 * baseline (a result to compare with) may be NULL; exit code. */
int tui_open_result(const char *result, const char *parent, const char *cpu,
		    const struct cmd_symopts *sym, const char *baseline, const char *region);

/*
 * A modelled result priced again (cmd-reprice.c): rp goes into
 * gx_result_opts.reprice. init_name: with the description machine names
 * (a name or a file, as --model takes); init_like: with the one result
 * dir was priced by (its model.terms). from and to: the descriptions'
 * names once a result was opened with it.
 */
struct cmd_reprice {
	struct gx_reprice rp;
	const char *machine;	/* borrowed */
	const char *like;	/* borrowed */
	struct model_reprice *m;
};
void cmd_reprice__init_name(struct cmd_reprice *c, const char *machine);
void cmd_reprice__init_like(struct cmd_reprice *c, const char *dir);
const char *cmd_reprice__from(const struct cmd_reprice *c);
const char *cmd_reprice__to(const struct cmd_reprice *c);
void cmd_reprice__exit(struct cmd_reprice *c);
/*
 * *res (opened from path with oo) priced like `like`: where both are
 * modelled and priced by different descriptions, *res is opened again,
 * priced with like's, and *note says so (allocated; NULL: nothing
 * changed). GX_E_USAGE with *cause naming both descriptions and why it
 * cannot be priced again (another -mcpu, other caches, no model.terms),
 * or both branch predictors where the two simulated different ones.
 */
int cmd_reprice_like(struct gx_result **res, const char *path, const struct gx_result_opts *oo,
		     const struct gx_result *like, char **note, char **cause);

#endif
