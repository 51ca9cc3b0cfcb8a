/*
 * util: the small pieces every module uses — allocation that aborts on
 * out-of-memory, the project's error codes, error messages returned to the
 * caller (`char **cause`), a growable string, and two hash tables.
 *
 * Nothing here prints or exits except the x* allocators, which abort on OOM
 * (there is no useful recovery from that inside a profiler).
 */
#ifndef GX_UTIL_H
#define GX_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GX_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- errors ------------------------------------------------------------
 * Fallible functions return 0 or a negative code: -errno, or one of the
 * project codes below (all below -4096 so they never collide with errno).
 */
#define GX_ERRORS(X)                                                        \
	X(GX_E_USAGE, "invalid usage")                                      \
	X(GX_E_FORMAT, "malformed input")                                   \
	X(GX_E_TRUNCATED, "truncated input")                                \
	X(GX_E_VERSION, "unsupported format version")                       \
	X(GX_E_NOPMU, "hardware performance counters are unavailable")      \
	X(GX_E_EVENT, "unknown or unsupported event")                       \
	X(GX_E_PERM, "not permitted to measure")                            \
	X(GX_E_NOTSUP, "not supported by this build")                       \
	X(GX_E_NODATA, "no data")                                           \
	X(GX_E_CHILD, "the workload could not be started")                  \
	X(GX_E_INTERNAL, "internal error")

enum gx_error {
	GX_E_BASE_ = -5000,
#define GX_ERR_ENUM(name, text) name,
	GX_ERRORS(GX_ERR_ENUM)
#undef GX_ERR_ENUM
	GX_E_LAST_
};

/* A static description of err (negative errno or GX_E_*). Never NULL. */
const char *gx_strerror(int err);

/*
 * Set *cause (when cause is not NULL) to a newly allocated message; any
 * previous message is freed. Returns err so callers can write
 * `return gx_fail(cause, -EINVAL, "bad %s", x);`.
 */
int gx_fail(char **cause, int err, const char *fmt, ...) GX_PRINTF(3, 4);

/* ---- allocation (abort on OOM) ------------------------------------------ */
void *xmalloc(size_t n);
void *xzalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow an array to hold at least `need` elements of size `elem`, doubling. */
void *xgrow(void *p, size_t *cap, size_t need, size_t elem);
/* Free each of v[0..n), then v itself (either may be NULL). */
void gx_free_strv(char **v, size_t n);
/* free() each of n pointers; GX_FREE(a->x, a->y, ...) lists them. */
void gx_free_each(void *const *p, size_t n);
#define GX_FREE(...)                                  \
	gx_free_each((void *const[]){ __VA_ARGS__ }, \
		     sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))
/* Append a formatted string to the array *v of *n strings. */
void gx_strv_addf(char ***v, size_t *n, const char *fmt, ...) GX_PRINTF(3, 4);
void gx_strv_vaddf(char ***v, size_t *n, const char *fmt, va_list ap) GX_PRINTF(3, 0);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) GX_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);

/*
 * qsort() for arrays that may be empty: an empty array is often never
 * allocated, and qsort(NULL, 0, ...) is undefined behaviour (UBSan stops
 * on it).
 */
static inline void gx_qsort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/*
 * x, or +0 where printf would show it as a zero with `decimals` digits
 * (0..6): "%.1f" prints -0.04 as "-0.0", which reads as a sign where there
 * is none. NAN stays NAN.
 */
static inline double gx_zero_below(double x, int decimals)
{
	static const double half[] = { 0.5, 0.05, 0.005, 5e-4, 5e-5, 5e-6, 5e-7 };
	double h = half[decimals < 0 ? 0 : decimals > 6 ? 6 : decimals];

	return x > -h && x < h ? 0.0 : x;
}

/* ---- a growable NUL-terminated string ----------------------------------- */
struct strbuf {
	char *buf;	/* always NUL-terminated once anything was added */
	size_t len;
	size_t cap;
};
#define STRBUF_INIT { NULL, 0, 0 }
void strbuf__add(struct strbuf *sb, const void *data, size_t len);
void strbuf__addstr(struct strbuf *sb, const char *s);
void strbuf__addf(struct strbuf *sb, const char *fmt, ...) GX_PRINTF(2, 3);
/* Return the buffer (caller frees; "" when empty) and reset sb. */
char *strbuf__detach(struct strbuf *sb);
void strbuf__exit(struct strbuf *sb);

/* ---- scaling: the one rule of multiplexed counts (scale.c) ---------------
 * An event that counted for `running` of the `enabled` time it was meant
 * to cover saw only that share of the work: its estimate is
 *	value = count x enabled / running
 * (perf stat's rule). Every path uses this one: gexplore's rotation passes
 * the run's time and the time its group was on (mux_log__scale), the
 * kernel's multiplexing a counting read's time enabled and running
 * (--mux=kernel, more events than counters, group reads carried by
 * samples, results written by perf), and perf stat's own output read by
 * `topdown --counts` (gx_scale_printed). Row estimates are sample periods
 * x scale, for the same reason. It lives here, the lowest module, so that
 * topdown (below mux) and mux share it.
 */
struct gx_scaled {
	double value;		/* the estimate; NAN when it never counted */
	double scale;		/* enabled / running: 1 when it never left its
				   counter (or no times are known); NAN never ran */
	double running;		/* running / enabled in (0, 1]; NAN when the
				   times are unknown or it never ran */
	bool multiplexed;	/* it counted less than GX_FULL_RUNNING of the time */
};

/* A share of the time at least this is "all of it" (clocks read apart). */
#define GX_FULL_RUNNING 0.999
/* An event that counted less than this share of the run gets a warning. */
#define GX_LOW_RUNNING 0.10

/* The rule above into *out. enabled <= 0 (or running NAN): no times, the
 * count stands (scale 1, running NAN); running <= 0 < enabled: never
 * counted (value, scale and running NAN); running >= enabled: scale 1. */
void gx_scale(double count, double enabled, double running, struct gx_scaled *out);
/*
 * The rule for a value printed already scaled by it (perf stat prints
 * count x enabled / running beside the running time and the percentage
 * running / enabled): the count it was made from is taken back
 * (value x running / enabled) and scaled again by gx_scale, so that the
 * value, its running share and whether it was multiplexed come from the
 * same rule as every other path's. `enabled`/`running` as for gx_scale.
 */
void gx_scale_printed(double value, double enabled, double running, struct gx_scaled *out);
/* The factor alone: gx_scale(1, enabled, running).scale. */
double gx_scale_factor(double enabled, double running);
/* The warning for an event `name` that counted `running` (a share) of the
 * run when that is below GX_LOW_RUNNING, else NULL. Newly allocated. */
char *gx_running_warning(const char *name, double running);
/* perf stat's "(53.33%)" appended to sb for a share below
 * GX_FULL_RUNNING; nothing for 1 or NAN. */
void gx_format_running(struct strbuf *sb, double running);

/* ---- a library opened when first needed (lazylib.c) ----------------------
 * A module that uses a heavy library only for some commands (libdw to
 * symbolize, libunwind to unwind, ncursesw for the TUI) links none of it:
 * it lists the functions it calls (GX_LAZYLIB_FN below defines each as a
 * call through the table) and opens the library where its work starts.
 */
struct gx_lazylib {
	const char *soname;		/* "libdw.so.1" */
	const char *package;		/* the Debian package an error names */
	const char *const *names;	/* the symbols to resolve, nr of them */
	void **fns;			/* their addresses, filled by __open */
	size_t nr;
	void *handle;			/* NULL until opened */
};
/*
 * Open l and resolve every name (once: later calls return 0 at once).
 * 0, or GX_E_NOTSUP with a message in *cause naming the library and its
 * package when it or one of its symbols is missing (nothing is kept).
 * Thread-safe. The library stays loaded until exit.
 */
int gx_lazylib__open(struct gx_lazylib *l, char **cause);
/*
 * The definition of a function `name` of a lazily opened library whose
 * table is `lib_fns` and index `idx`: a call through the address resolved
 * by gx_lazylib__open, with the prototype of the library's own header (the
 * compiler checks the two agree). Called before the library was opened it
 * calls NULL: each module opens its library where its work starts.
 */
#define GX_LAZYLIB_FN(lib_fns, idx, ret, name, params, args) \
	ret name params { return ((ret (*) params)(lib_fns)[idx]) args; }
#define GX_LAZYLIB_VOID(lib_fns, idx, name, params, args) \
	void name params { ((void (*) params)(lib_fns)[idx]) args; }
/* A macro's expansion as a string ("_Ux86_64_step" for unw_step). */
#define GX_STR_(x) #x
#define GX_XSTR(x) GX_STR_(x)
/*
 * A module's table of one lazily opened library, from FNS(X, V, D): X(ret,
 * name, (params), (args)) a function, V(name, (params), (args)) a void
 * function, D(name) a data object (its address in gx_lz_fns_[GX_LZ_name]).
 * Defines the static struct gx_lazylib `var` and every function of the
 * list; one table a source file.
 */
#define GX_LZ_ENUM_(ret, name, params, args) GX_LZ_##name,
#define GX_LZ_ENUM_V_(name, params, args) GX_LZ_##name,
#define GX_LZ_ENUM_D_(name) GX_LZ_##name,
#define GX_LZ_NAME_(ret, name, params, args) GX_XSTR(name),
#define GX_LZ_NAME_V_(name, params, args) GX_XSTR(name),
#define GX_LZ_NAME_D_(name) #name,
#define GX_LZ_DEF_(ret, name, params, args) \
	GX_LAZYLIB_FN(gx_lz_fns_, GX_LZ_##name, ret, name, params, args)
#define GX_LZ_DEF_V_(name, params, args) GX_LAZYLIB_VOID(gx_lz_fns_, GX_LZ_##name, name, params, args)
#define GX_LZ_NONE_(name)
#define GX_LAZYLIB_DEFINE(var, FNS, so, pkg) \
	enum { FNS(GX_LZ_ENUM_, GX_LZ_ENUM_V_, GX_LZ_ENUM_D_) GX_LZ_NR_ }; \
	static const char *const gx_lz_names_[] = { FNS(GX_LZ_NAME_, GX_LZ_NAME_V_, GX_LZ_NAME_D_) }; \
	static void *gx_lz_fns_[GX_LZ_NR_]; \
	static struct gx_lazylib var = { .soname = so, .package = pkg, .names = gx_lz_names_, \
					 .fns = gx_lz_fns_, .nr = GX_LZ_NR_ }; \
	FNS(GX_LZ_DEF_, GX_LZ_DEF_V_, GX_LZ_NONE_)

/*
 * libelf, opened when first needed (lazy-elf.c: the one table of the elf_*
 * and gelf_* functions gexplore calls). Every path to an elf_* call opens
 * it first; it also calls elf_version(EV_CURRENT), once. 0, or GX_E_NOTSUP
 * with a one-line message naming the Debian package (libelf1).
 */
int gx_libelf__open(char **cause);

/* ---- text for a terminal ------------------------------------------------
 * The one rule for an untrusted string (a name from a file, a workload's
 * comm or argv, a path) printed as text: printable ASCII and valid UTF-8
 * stay as they are; a control byte (newline and tab included), DEL, a C1
 * control and every byte of invalid UTF-8 become a visible escape (\n, \t,
 * \r, \x1b), a bidirectional formatting character its code point (\u202e),
 * and a backslash doubles (\\), so nothing a name holds can move the cursor,
 * set the title, clear the screen, start a line of its own, reorder the
 * text around it or pass for an escape. JSON has its own escaping
 * and the TUI draws through its canvas; neither uses this.
 */
/* The edit distance of a and b (case-insensitive; an insertion, a deletion,
 * a change or two neighbours swapped cost one), or cap + 1 when it is over
 * cap (names over 64 bytes: always cap + 1). For "did you mean". */
size_t gx_edit_distance(const char *a, const char *b, size_t cap);
/* Append s[0..len) to sb, escaped. */
void gx_escape(struct strbuf *sb, const char *s, size_t len);
/* Append the NUL-terminated s (NULL: nothing) to sb, escaped. */
void strbuf__addesc(struct strbuf *sb, const char *s);
/* Append s to sb as XML/HTML text or attribute value: <, >, &, " and '
 * as entities (the roofline's SVG, the HTML report). */
void strbuf__addxml(struct strbuf *sb, const char *s);
/*
 * s escaped, for a printf argument: s itself when nothing needs escaping
 * (NULL stays NULL), else a copy owned by a ring of GX_ESC_RING buffers,
 * valid until GX_ESC_RING further calls. Not thread-safe; the printing
 * paths are single-threaded.
 */
#define GX_ESC_RING 16
const char *gx_esc(const char *s);
/*
 * s for a JSON string, which must be valid UTF-8 (jansson refuses anything
 * else, and a key whose value it refused vanished): s itself when it is
 * valid (NULL stays NULL), else a copy with each byte of invalid UTF-8
 * written as the four characters \xNN, from the same kind of ring as
 * gx_esc(). Names are bytes: nothing is dropped.
 */
const char *gx_utf8(const char *s);

/* ---- u64 -> u64 hash table (open addressing, key UINT64_MAX reserved) --- */
struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	size_t cap;	/* power of two */
	size_t nr;
};
void u64map__init(struct u64map *m);
void u64map__exit(struct u64map *m);
/* Pointer to the value for key, inserting it with value `init` if absent. */
uint64_t *u64map__findnew(struct u64map *m, uint64_t key, uint64_t init);
/* Pointer to the value for key, or NULL. Valid until the next insertion. */
uint64_t *u64map__find(const struct u64map *m, uint64_t key);

/* ---- string interning ---------------------------------------------------
 * strtab__intern returns a stable id (>= 0) for a string; strtab__str maps
 * it back. Strings are copied once and live as long as the table.
 */
struct strtab {
	char **strs;
	size_t nr, cap;
	uint32_t *slots;	/* hash slots holding id + 1; 0 = empty */
	size_t nslots;
};
void strtab__init(struct strtab *t);
void strtab__exit(struct strtab *t);
uint32_t strtab__intern(struct strtab *t, const char *s);
uint32_t strtab__intern_n(struct strtab *t, const char *s, size_t len);
static inline const char *strtab__str(const struct strtab *t, uint32_t id)
{
	return t->strs[id];
}

/* ---- interned u32 sequences ---------------------------------------------
 * u32seq__intern returns a stable id (>= 0, dense) for a sequence of u32,
 * one id per distinct sequence; u32seq__get gives the sequence back. For
 * small records deduplicated per sample (a stack as rows, a thread's rows):
 * copied once, nothing allocated when the sequence is known.
 */
struct u32seq {
	uint32_t *pool;		/* the sequences back to back */
	size_t nr_pool, cap_pool;
	size_t *off;		/* [nr + 1]: sequence id is pool[off[id]..off[id + 1]) */
	size_t nr, cap;
	uint32_t *slots;	/* hash slots holding id + 1; 0 = empty */
	size_t nslots;
};
void u32seq__init(struct u32seq *t);
void u32seq__exit(struct u32seq *t);
uint32_t u32seq__intern(struct u32seq *t, const uint32_t *v, size_t n);
/* Sequence id (borrowed, valid until the next intern); *n its length. */
static inline const uint32_t *u32seq__get(const struct u32seq *t, uint32_t id, size_t *n)
{
	*n = t->off[id + 1] - t->off[id];
	return t->pool + t->off[id];
}

/* 64-bit FNV-1a over len bytes. */
uint64_t gx_hash(const void *data, size_t len);
/* The next number of a splitmix64 sequence whose state is *s: small and
 * fast, for resampling and jitter, never for secrets. */
uint64_t gx_rand_next(uint64_t *s);

/* ---- time and files ----------------------------------------------------- */
/* CLOCK_MONOTONIC in nanoseconds (the clock collect asks the kernel to
 * stamp samples with, through use_clockid). */
uint64_t gx_now_ns(void);
/* Read a whole small text file (sysfs, /proc) into a new string; NULL on error. */
char *gx_read_file(const char *path, size_t max);
/* name beside gexplore's own executable ("DIR/name", allocated: a build
 * tree's helper, gx-keeper or grind/), whether or not it is there; NULL
 * where /proc/self/exe cannot be read. */
char *gx_beside_self(const char *name);
/*
 * Open path read-only as a file of a result, or any file a user may have
 * replaced: O_NONBLOCK, so a FIFO or a device never blocks the open, then
 * fstat, so anything but a regular file is refused before it is read.
 * Returns the fd (the caller closes it) or a negative code with *cause
 * saying what happened ("PATH: Permission denied", "PATH is a FIFO, not a
 * regular file", "PATH is a directory"); -ENOENT when it is absent.
 * *size_out (may be NULL) gets the file's size.
 */
int gx_open_regular(const char *path, uint64_t *size_out, char **cause);
/*
 * gx_open_regular, for a file that must be path itself and not a symbolic
 * link (a file of a result): after the open, path is named again without
 * following it, and must be no link and the file opened (a link swapped in
 * or out meanwhile fails too): -ELOOP with *cause.
 */
int gx_open_regular_nofollow(const char *path, uint64_t *size_out, char **cause);
/*
 * The whole of the regular file path (opened as gx_open_regular does) in a
 * new NUL-terminated buffer, its length in *len_out (may be NULL); NULL
 * with *err_out and *cause set when it cannot be opened or read or is
 * larger than max bytes.
 */
char *gx_read_regular(const char *path, size_t max, size_t *len_out, int *err_out,
		      char **cause);
/* The same from fd, open already on path (named in messages) of size
 * bytes; fd is closed. */
char *gx_read_fd(int fd, const char *path, uint64_t size, size_t max, size_t *len_out,
		 int *err_out, char **cause);
/* What a file of mode m is, for a message: "a FIFO", "a directory", ... */
const char *gx_file_kind(unsigned mode);
/*
 * One item of a CPU list ("0-3,8", as sysfs writes them) at *s: sets
 * *lo..*hi and moves *s past the item and its comma. false at the end of
 * the list (NUL or newline) or at anything that is not a number; an item
 * not followed by a comma is the last.
 */
bool gx_cpulist_next(const char **s, long *lo, long *hi);

/* Where a data folder of gexplore's is: $env when set and not empty, else
 * the source tree's src (a build run in place) where it is a directory,
 * else the installed one. Static strings, or env's value. */
const char *gx_data_dir(const char *env, const char *src, const char *installed);

/* One CPU's cache as sysfs describes it (DIR/indexN/: level, type, size,
 * ways_of_associativity, coherency_line_size, shared_cpu_list); a field
 * sysfs leaves out is 0 (shared: 1). */
struct gx_sysfs_cache {
	int level;
	char type[16];		/* "Data", "Instruction", "Unified" */
	uint64_t size;		/* bytes */
	unsigned ways, line;
	int shared;		/* CPUs that share it */
};
/* The caches under dir (/sys/devices/system/cpu/cpuN/cache, or a test's
 * copy), in index order, at most max into out: how many. peak and the
 * model read the geometry through this one reader. */
int gx_sysfs_caches(const char *dir, struct gx_sysfs_cache *out, int max);
/* Write all of buf to fd, retrying on EINTR/short writes; 0 or -errno. */
int gx_write_all(int fd, const void *buf, size_t len);
/*
 * Create the file name in the directory dirfd (AT_FDCWD: name is a path)
 * for writing, as perf creates its output: a new file only, never through
 * a symlink (O_EXCL | O_NOFOLLOW), mode 0600, close-on-exec. A file or
 * symlink already there (record --force into an old result, or planted)
 * is unlinked first: unlink removes a symlink itself, never its target.
 * The new descriptor, or -errno.
 */
int gx_create_at(int dirfd, const char *name);
/* pwrite variant of gx_write_all. */
int gx_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);
/*
 * gexplore's cache directory: $XDG_CACHE_HOME/gexplore when that is set,
 * else $HOME/.cache/gexplore when this user may write there (not made
 * here), else gexplore-cache-UID in gx_tmpdir(), made 0700
 * here and used only when it is this user's own and closed to others.
 * Newly allocated; NULL when none of these serves.
 */
char *gx_cache_dir(void);
/* Where temporary files go: $TMPDIR when it is an absolute path, else
 * /tmp. Static or the environment's; never NULL. */
const char *gx_tmpdir(void);
/* Make dir and whatever directories above it are missing (mode 0755);
 * 0 (it exists) or -errno. */
int gx_mkdir_p(const char *dir);
/*
 * Put len bytes at path in one step: written to a file beside it (mode
 * 0644), then renamed over it, so a reader sees the old file or the whole
 * new one, never a part. Makes the directory when missing. 0 or -errno
 * (nothing left behind).
 */
int gx_replace_file(const char *path, const void *data, size_t len);

#endif /* GX_UTIL_H */
