/*
 * valgrind.c: the programs a modelled recording runs, and where what they
 * write goes (issue 39, parts 1 to 3).
 *
 * Every file Valgrind and llvm's tools write lies in a private directory
 * of the result directory (.gx-model-XXXXXX, 0700, made here and opened
 * without following a link), named to them by an absolute path: a
 * workload that changes directory writes its profile there all the same,
 * and nothing is written through its working directory or a name another
 * user can plant. What is read is removed; at the end the directory goes
 * (with --keep-valgrind, Valgrind's files move into the result first,
 * 0600).
 *
 * Valgrind runs under the recording's keeper (collect_child): SIGINT,
 * SIGTERM and SIGHUP caught here are passed to it and to every process
 * under the keeper (Valgrind's children too); Valgrind ends the guest as
 * the signal's default action would, and its tool writes what the guest
 * ran so far: the model of an interrupted run. A gexplore killed leaves
 * the keeper to kill the tree. llvm's tools die with gexplore
 * (PR_SET_PDEATHSIG).
 */
#include "config.h"

#include "model.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "model-int.h"
#include "util/util.h"

char *model_which(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *found = NULL;

	if (!path || !*path)
		return NULL;
	copy = xstrdup(path);
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", *d ? d : ".", prog);

		if (access(f, X_OK) == 0)
			found = f;
		else
			free(f);
	}
	free(copy);
	return found;
}

/* ---- the stop signals ------------------------------------------------------ */

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t stop_first, stop_count;
static int stop_pipe[2] = { -1, -1 };
static struct sigaction stop_old[ARRAY_SIZE(stop_signals)];
static bool stop_caught;

static void on_stop(int sig)
{
	int e = errno;
	unsigned char c = (unsigned char)sig;

	if (!stop_first)
		stop_first = sig;
	stop_count++;
	if (stop_pipe[1] >= 0 && write(stop_pipe[1], &c, 1) < 0) {
		/* full: the count says it */
	}
	errno = e;
}

void model_stop__catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	stop_first = stop_count = 0;
	stop_caught = true;
	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		stop_pipe[0] = stop_pipe[1] = -1;
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		sigaction(stop_signals[i], NULL, &stop_old[i]);
		/* one ignored by whoever started gexplore stays ignored */
		if (stop_old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

void model_stop__restore(void)
{
	if (!stop_caught)
		return;
	stop_caught = false;
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &stop_old[i], NULL);
	for (int i = 0; i < 2; i++) {
		if (stop_pipe[i] >= 0)
			close(stop_pipe[i]);
		stop_pipe[i] = -1;
	}
}

int model_stop__signal(void)
{
	return stop_first;
}

unsigned model_stop__count(void)
{
	return (unsigned)stop_count;
}

/* The signals caught since the last call, in order, into sig[] (at most
 * max); how many. */
static size_t stop_take(int *sig, size_t max)
{
	unsigned char c[16];
	size_t n = 0;
	ssize_t k;

	while (stop_pipe[0] >= 0 && n < max &&
	       (k = read(stop_pipe[0], c, max - n < sizeof(c) ? max - n : sizeof(c))) > 0)
		for (ssize_t i = 0; i < k; i++)
			sig[n++] = c[i];
	return n;
}

/* ---- the private directory --------------------------------------------------- */

/* Valgrind's files: what --keep-valgrind keeps. */
static bool valgrind_file(const char *name)
{
	return !strncmp(name, "callgrind", 9) || !strncmp(name, "cachegrind", 10) ||
	       !strncmp(name, "gxgrind", 7);
}

/* An old result's Valgrind files (record --force) are not this run's. */
static void remove_old(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d)) != NULL)
		if (valgrind_file(de->d_name))
			unlinkat(dirfd, de->d_name, 0);
	if (d)
		closedir(d);
}

int model_scratch__create(struct model_scratch *s, int dirfd, bool keep, char **cause)
{
	char self[64], real[4096];
	struct stat a, b;
	ssize_t n;
	int err = 0;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->parent = dirfd;
	s->keep = keep;
	remove_old(dirfd);
	for (int tries = 0; tries < 100 && s->fd < 0; tries++) {
		uint64_t seed = gx_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)tries;
		uint64_t r = gx_hash(&seed, sizeof(seed));

		free(s->name);
		s->name = xasprintf(".gx-model-%06" PRIx64, (r ^ (r >> 24)) & 0xffffff);
		if (mkdirat(dirfd, s->name, 0700) < 0) {
			if (errno == EEXIST)
				continue;
			err = gx_fail(cause, -errno, "--model: cannot make its private directory "
				      "in the result directory: %s", strerror(errno));
			goto fail;
		}
		/* made just now by this process: nobody else's and no link */
		s->fd = openat(dirfd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s->fd < 0) {
			err = gx_fail(cause, -errno, "--model: cannot open its private directory: %s",
				      strerror(errno));
			unlinkat(dirfd, s->name, AT_REMOVEDIR);
			goto fail;
		}
	}
	if (s->fd < 0) {
		err = gx_fail(cause, -EEXIST, "--model: no free name for its private directory");
		goto fail;
	}
	/* its absolute path (the kernel's name for the result directory),
	 * which must name this directory: what the tools are given */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", dirfd);
	n = readlink(self, real, sizeof(real) - 1);
	if (n > 0 && real[0] == '/') {
		real[n] = 0;
		s->path = xasprintf("%s/%s", real, s->name);
	}
	if (!s->path || stat(s->path, &a) < 0 || fstat(s->fd, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		err = gx_fail(cause, -EIO, "--model: the result directory has no absolute path "
			      "that names it (is /proc mounted?)");
		goto fail;
	}
	return 0;
fail:
	model_scratch__exit(s);
	return err;
}

int model_scratch__open(const struct model_scratch *s, const char *name)
{
	int fd;

	unlinkat(s->fd, name, 0);
	fd = openat(s->fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

char *model_scratch__put(const struct model_scratch *s, const char *name, const void *data,
			 size_t len, int *err)
{
	int fd = model_scratch__open(s, name);

	*err = fd < 0 ? fd : gx_write_all(fd, data, len);
	if (fd >= 0)
		close(fd);
	return *err ? NULL : xasprintf("%s/%s", s->path, name);
}

/* Whether the file name of s is kept: a regular file (never through a
 * link), made 0600 and moved into the result directory. */
static bool keep_file(const struct model_scratch *s, const char *name)
{
	int fd = openat(s->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	bool kept;

	if (fd < 0)
		return false;
	kept = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && fchmod(fd, 0600) == 0 &&
	       renameat(s->fd, name, s->parent, name) == 0;
	close(fd);
	return kept;
}

void model_scratch__exit(struct model_scratch *s)
{
	int fd = s->fd >= 0 ? openat(s->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	struct dirent *de;
	size_t n = 0;

	if (!d && fd >= 0)
		close(fd);
	/* the names first: none is removed while the directory is read */
	while (d && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			gx_strv_addf(&names, &n, "%s", de->d_name);
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		if (!(s->keep && valgrind_file(names[i]) && keep_file(s, names[i])))
			unlinkat(s->fd, names[i], 0);
	gx_free_strv(names, n);
	if (s->fd >= 0)
		close(s->fd);
	if (s->name && s->parent >= 0)
		unlinkat(s->parent, s->name, AT_REMOVEDIR);
	free(s->name);
	free(s->path);
	memset(s, 0, sizeof(*s));
	s->fd = s->parent = -1;
}

/* ---- llvm's tools ------------------------------------------------------------------ */

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* The scratch file name whole, or NULL. */
static char *read_file(const struct model_scratch *s, const char *name, size_t max)
{
	int fd = openat(s->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), err = 0;
	char *text = NULL;
	struct stat sb;

	if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		text = gx_read_fd(fd, name, (uint64_t)sb.st_size, max, NULL, &err, NULL);
	else if (fd >= 0)
		close(fd);
	return text;
}

/* The same, and the file removed. */
static char *take_file(const struct model_scratch *s, const char *name, size_t max)
{
	char *text = read_file(s, name, max);

	unlinkat(s->fd, name, 0);
	return text;
}

pid_t model_tool__start(const struct model_scratch *s, char *const *argv, const char *name)
{
	char *exe = model_which(argv[0]);
	char *fout = xasprintf("%s.out", name), *ferr = xasprintf("%s.err", name);
	int fo = -1, fe = -1;
	pid_t pid = -ENOENT;

	if (!exe)
		goto out;
	fo = model_scratch__open(s, fout);
	fe = model_scratch__open(s, ferr);
	if (fo < 0 || fe < 0) {
		pid = fo < 0 ? fo : fe;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		pid = -errno;
		goto out;
	}
	if (!pid) {
		int in = open("/dev/null", O_RDONLY);

		/* dies with gexplore, whatever kills it */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || in < 0 || dup2(in, 0) < 0 ||
		    dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(127);
		execv(exe, argv);
		_exit(127);
	}
out:
	if (fo >= 0)
		close(fo);
	if (fe >= 0)
		close(fe);
	free(fout);
	free(ferr);
	free(exe);
	return pid;
}

int model_tool__finish(const struct model_scratch *s, pid_t pid, const char *name, char **out,
		       char **err_text)
{
	char *fout = xasprintf("%s.out", name), *ferr = xasprintf("%s.err", name);
	int st = pid > 0 ? wait_status(pid) : (int)pid;

	*out = take_file(s, fout, (size_t)1 << 30);
	if (err_text)
		*err_text = take_file(s, ferr, 1 << 24);
	else
		unlinkat(s->fd, ferr, 0);
	free(fout);
	free(ferr);
	return st;
}

int model_tool(const struct model_scratch *s, char *const *argv, char **out, char **err_text)
{
	if (err_text)
		*err_text = NULL;
	return model_tool__finish(s, model_tool__start(s, argv, "tool"), "tool", out, err_text);
}

/* ---- Valgrind --------------------------------------------------------------------- */

static const char *const pass_prefix[] = { "callgrind", "callgrind-l2", "cachegrind-l2",
					   "gxgrind-l2", "callgrind", "gxgrind-tlb" };

static void add_geo_arg(char ***av, size_t *n, const char *opt, const struct cache_geo *g)
{
	gx_strv_addf(av, n, "--%s=%" PRIu64 ",%u,%u", opt, g->size, g->assoc, g->line);
}

/* path with Valgrind's '%' escaped ("%%"), for --log-file and the like */
static char *vg_path(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = path; *p; p++)
		strbuf__add(&sb, *p == '%' ? "%%" : p, *p == '%' ? 2 : 1);
	return strbuf__detach(&sb);
}

int model_vg__start(struct model_vg *v, const char *valgrind, const struct model_opts *o,
		    const struct model_scratch *s, enum model_pass how,
		    const struct cache_geo geo[3], const struct cache_geo *h2, const char *env,
		    char **cause)
{
	bool gfirst = how == PASS_GFIRST, full = how == PASS_FULL || gfirst;
	bool lines = how == PASS_LINES, grind = how == PASS_GRIND || gfirst;
	const char *tool = lines ? "cachegrind" : grind ? "gxgrind" : "callgrind";
	char *at = vg_path(s->path), **av = NULL;
	size_t n = 0;
	int err;

	memset(v, 0, sizeof(*v));
	v->how = how;
	gx_strv_addf(&av, &n, "%s", valgrind);
	gx_strv_addf(&av, &n, "--tool=%s", tool);
	if (!lines && !grind) {
		gx_strv_addf(&av, &n, "--dump-instr=yes");
		gx_strv_addf(&av, &n, "--collect-jumps=%s", full ? "yes" : "no");
		gx_strv_addf(&av, &n, "--separate-threads=yes");
		/* a forked child starts with a copy of its parent's counts:
		 * a dump as fork returns sets it apart (tasks.c) */
		gx_strv_addf(&av, &n, "--dump-after=_Fork");
	}
	if (!grind) {	/* gxgrind simulates the caches, by instruction, always */
		gx_strv_addf(&av, &n, "--cache-sim=yes");
		gx_strv_addf(&av, &n, "--branch-sim=%s", full ? "yes" : "no");
	}
	/* a script's exec of the program, and children, are followed: each
	 * process its own files, in the private directory by its absolute
	 * path (a child that changes directory writes there too) */
	gx_strv_addf(&av, &n, "--trace-children=yes");
	/* no gdb server: its pipes would be made in TMPDIR, and left by a SIGKILL */
	gx_strv_addf(&av, &n, "--vgdb=no");
	gx_strv_addf(&av, &n, "--%s-out-file=%s/%s.out.%%p", grind ? "gx" : tool, at,
		     pass_prefix[how]);
	if (gfirst) {
		/* a file a thread (%p-NN), jumps and calls, every column;
		 * the second hierarchy's files beside them */
		gx_strv_addf(&av, &n, "--gx-first=yes");
		gx_strv_addf(&av, &n, "--gx-predictor=%s", model_vg__tage() ? "tage" : "2bit");
		gx_strv_addf(&av, &n, "--gx-zero-fill=%s", model_vg__zero_fill() ? "yes" : "no");
		gx_strv_addf(&av, &n, "--gx-l2-file=%s/%s.out.%%p", at, pass_prefix[PASS_GRIND]);
		gx_strv_addf(&av, &n, "--gx-tlb-file=%s/%s.out.%%p", at, pass_prefix[PASS_GTLB]);
		if (h2[0].size)
			add_geo_arg(&av, &n, "L2", &h2[0]);
		if (h2[0].size && h2[1].size)
			add_geo_arg(&av, &n, "PG", &h2[1]);
		if (h2[0].size && h2[2].size)
			add_geo_arg(&av, &n, "TL", &h2[2]);
	}
	gx_strv_addf(&av, &n, "--log-file=%s/%s.log.%%p", at, pass_prefix[how]);
	if (geo[0].size)
		add_geo_arg(&av, &n, "I1", &geo[0]);
	if (geo[1].size)
		add_geo_arg(&av, &n, "D1", &geo[1]);
	if (geo[2].size)
		add_geo_arg(&av, &n, "LL", &geo[2]);
	for (size_t i = 0; o->argv[i]; i++)
		gx_strv_addf(&av, &n, "%s", o->argv[i]);
	av = xrealloc(av, (n + 1) * sizeof(*av));
	av[n] = NULL;
	/* the second pass's output is the first's again: not shown twice */
	err = collect_child__start(&v->c, av, env, !full, cause);
	if (!err)
		v->pid = collect_child__pid(v->c);
	gx_free_strv(av, n);
	free(at);
	return err;
}

/* Milliseconds to wait in poll(): until the deadline (0: none) or forever. */
static int poll_ms(uint64_t deadline)
{
	uint64_t now = gx_now_ns();

	if (!deadline)
		return -1;
	if (now >= deadline)
		return 0;
	return (deadline - now) / 1000000 > 60000 ? 60000 : (int)((deadline - now) / 1000000) + 1;
}

/* A stopped run's other processes, once Valgrind's first ended: SIGTERM
 * (one that ignores SIGINT, as a shell's background job does), each
 * 100 ms for MODEL_STOP_GRACE_MS, then SIGKILL; done when none is left
 * under the keeper, so that their profiles are written before they are
 * read. */
#define MODEL_STOP_GRACE_MS 3000

static void stop_rest(struct model_vg *v, int sig)
{
	struct timespec ms100 = { 0, 100000000 };

	for (int t = 0; t < MODEL_STOP_GRACE_MS / 100 + 10; t++) {
		if (t >= MODEL_STOP_GRACE_MS / 100)
			sig = SIGKILL;
		if (!collect_child__signal(v->c, sig == SIGKILL ? SIGKILL : SIGTERM))
			return;
		nanosleep(&ms100, NULL);
	}
}

/*
 * While stopped, the signal is passed on again every STOP_AGAIN_MS:
 * Valgrind drops one that comes while it starts (a process of the
 * workload that was just forked and executes), and a second is harmless
 * (its tool's dump is not cut short).
 */
#define STOP_AGAIN_MS 500

int model_vg__wait(struct model_vg *v, uint64_t deadline, int *stopped)
{
	/* sig: the one passed on, 0: none yet; a run stopped already (the
	 * second pass) is stopped at once */
	int status = -1, sig = *stopped ? SIGTERM : 0;

	if (sig)
		collect_child__signal(v->c, sig);
	while (!collect_child__wait(v->c, false, &status)) {
		struct pollfd p[2] = { { .fd = collect_child__fd(v->c), .events = POLLIN },
				       { .fd = stop_pipe[0], .events = POLLIN } };
		int got[16];
		size_t k;

		poll(p, 2, sig ? STOP_AGAIN_MS : poll_ms(deadline));
		if (!sig && deadline && gx_now_ns() >= deadline) {
			/* --duration: stopped as `timeout` stops a program */
			sig = SIGTERM;
			if (!*stopped)
				*stopped = -1;
		}
		k = stop_take(got, ARRAY_SIZE(got));
		for (size_t i = 0; i < k; i++) {
			if (!*stopped || *stopped < 0)
				*stopped = got[i];
			sig = got[i];
		}
		/* the third: Valgrind is not waited for any more */
		if (stop_count >= 3)
			sig = SIGKILL;
		if (sig)
			collect_child__signal(v->c, sig);
	}
	if (sig)
		stop_rest(v, sig);
	v->pid = 0;
	if (status == -1)
		return -ECHILD;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* PREFIX.out.PID-NN (callgrind's, a thread a file), else PREFIX.out.PID
 * (cachegrind's and gxgrind's, a process a file), sorted (the order the profile is read
 * in, so that two runs write the same samples); the empty PREFIX.out.PID
 * that --separate-threads leaves are removed. */
static void list_outputs(const struct model_scratch *s, const char *prefix, bool threads,
			 char ***names, size_t *nn)
{
	int fd = openat(s->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char *pre = xasprintf("%s.out.", prefix);
	struct dirent *de;

	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, pre, strlen(pre)))
			continue;
		if (!threads || strchr(de->d_name + strlen(pre), '-'))
			gx_strv_addf(names, nn, "%s", de->d_name);
		else
			unlinkat(s->fd, de->d_name, 0);
	}
	if (d)
		closedir(d);
	free(pre);
	gx_qsort(*names, *nn, sizeof(**names), cmp_str);
}

static int vg_read(struct model_vg *v, const struct model_opts *o, const struct model_scratch *s,
		   struct cg_profile *p, struct cg_lines *l, bool keep, char **cause)
{
	char **names = NULL;
	size_t nn = 0;
	int err = 0;

	list_outputs(s, pass_prefix[v->how],
		     v->how == PASS_FULL || v->how == PASS_INSNS || v->how == PASS_GFIRST,
		     &names, &nn);
	if (!nn)
		err = gx_fail(cause, GX_E_CHILD, "valgrind could not run '%s'",
			      gx_esc(o->argv[0]));
	for (size_t i = 0; i < nn && !err; i++) {
		char *f = xasprintf("%s/%s", s->path, names[i]);

		err = v->how == PASS_LINES ? cg_lines__read(l, f, cause) :
		      cg_profile__read(p, f, cause);
		free(f);
		if (!err && !s->keep && !keep)
			unlinkat(s->fd, names[i], 0);	/* read: not kept */
	}
	gx_free_strv(names, nn);
	return err;
}

int model_vg__read(struct model_vg *v, const struct model_opts *o, const struct model_scratch *s,
		   struct cg_profile *p, struct cg_lines *l, char **cause)
{
	return vg_read(v, o, s, p, l, false, cause);
}

int model_vg__peek(struct model_vg *v, const struct model_opts *o, const struct model_scratch *s,
		   struct cg_profile *p, char **cause)
{
	return vg_read(v, o, s, p, NULL, true, cause);
}

/* ---- gxgrind --------------------------------------------------------------------- */

#ifdef HAVE_GXGRIND
/* Its directory: grind/ beside gexplore's executable (a build tree), else
 * where make install put it; NULL where neither is there. */
static char *grind_dir(void)
{
	char *dir = gx_beside_self("grind");

	if (dir && access(dir, F_OK) == 0)
		return dir;
	free(dir);
	return access(GX_GRIND_DIR, F_OK) == 0 ? xstrdup(GX_GRIND_DIR) : NULL;
}
#endif

bool model_vg__tage(void)
{
	const char *e = getenv("GX_MODEL_PREDICTOR");

	return !e || strcmp(e, "2bit");
}

/* Whether gxgrind takes a first touch of anonymous memory for the
 * kernel's zeros, its page's lines in each cache (GX_MODEL_ZERO_FILL=no:
 * a miss, as callgrind counts it) */
bool model_vg__zero_fill(void)
{
	const char *e = getenv("GX_MODEL_ZERO_FILL");

	return !e || strcmp(e, "no");
}

char *model_grind_env(const char *valgrind, const struct model_scratch *s, const char **why)
{
#ifdef HAVE_GXGRIND
	const char *e = getenv("GX_MODEL_GRIND");
	/* the launcher's version: the one on PATH (model_tool's search), as
	 * valgrind is the first of PATH's */
	char *argv[] = { "valgrind", "--version", NULL }, *out = NULL, *dir, *tool, *core;
	char *env = NULL;
	bool ok;

	*why = NULL;
	if (!valgrind || (e && !strcmp(e, "no")))
		return NULL;
	dir = grind_dir();
	if (!dir) {
		*why = "its directory (" GX_GRIND_DIR ") is not there";
		return NULL;
	}
	/* the tool, and Valgrind's own file every run loads (a link into
	 * Valgrind's directory: broken once that Valgrind is gone) */
	tool = xasprintf("%s/gxgrind-amd64-linux", dir);
	core = xasprintf("%s/vgpreload_core-amd64-linux.so", dir);
	ok = access(tool, X_OK) == 0 && access(core, R_OK) == 0;
	free(tool);
	free(core);
	if (!ok) {
		*why = "its directory does not hold it and Valgrind's files";
	} else if (model_tool(s, argv, &out, NULL) != 0 || !out ||
		   strcmp(out, "valgrind-" GX_VALGRIND_VERSION "\n")) {
		/* Valgrind's core is built into it: another version's
		 * files are not its own */
		*why = "the valgrind on PATH is not version " GX_VALGRIND_VERSION ", the one it "
		       "was built with";
	} else {
		env = xasprintf("VALGRIND_LIB=%s", dir);
	}
	free(out);
	free(dir);
	return env;
#else
	(void)valgrind, (void)s;
	*why = NULL;
	return NULL;
#endif
}

void model_vg__exit(struct model_vg *v)
{
	collect_child__delete(v->c);
	memset(v, 0, sizeof(*v));
}

/* ---- an instruction Valgrind cannot run ----------------------------------------- */

/* The rest of the line at p (after prefix), allocated, without "\n". */
static char *line_after(const char *p, const char *prefix)
{
	p += strlen(prefix);
	return xstrndup(p, strcspn(p, "\n"));
}

/* llvm-mc's name of the instruction Valgrind's bytes ("0xF 0x38 0xCB
 * ...") begin with, allocated; NULL when it cannot tell. */
static char *decode(const struct model_scratch *s, const char *bytes)
{
	char *argv[] = { "llvm-mc", "--disassemble", "-triple=x86_64", NULL, NULL };
	char *out = NULL, *name = NULL, *p;
	int err;

	argv[3] = model_scratch__put(s, "insn.txt", bytes, strlen(bytes), &err);
	if (argv[3] && model_tool(s, argv, &out, NULL) >= 0 && out) {
		/* "\t.text\n\tsha256rnds2\t%xmm0, 3787(%rip), %xmm1\n" */
		for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
			if (*p == '\t' && p[1] != '.' && p[1] != '\n') {
				name = xstrndup(p + 1, strcspn(p + 1, "\t \n"));
				break;
			}
	}
	unlinkat(s->fd, "insn.txt", 0);
	free(argv[3]);
	free(out);
	return name;
}

/* One log's instruction, said in *cause; 0 when the log has none that
 * killed its process. */
static int unrecognised(const struct model_scratch *s, const char *text, char **cause)
{
	const char *u = strstr(text, "valgrind: Unrecognised instruction at address ");
	const char *vex = strstr(text, "unhandled instruction bytes: ");
	const char *at = u ? strstr(u, "   at 0x") : NULL;
	char *addr, *where = NULL, *bytes = NULL, *name = NULL;
	int err;

	if (!u || !strstr(u, "Process terminating with default action of signal 4"))
		return 0;
	addr = line_after(u, "valgrind: Unrecognised instruction at address ");
	if (addr[0] && addr[strlen(addr) - 1] == '.')
		addr[strlen(addr) - 1] = 0;
	if (at && (at = strchr(at, ':')) != NULL)
		where = line_after(at, ": ");		/* "main (in /tmp/prog)" */
	if (vex && vex < u) {
		bytes = line_after(vex, "unhandled instruction bytes: ");
		if (strstr(text, "vex amd64->IR"))
			name = decode(s, bytes);
	}
	err = gx_fail(cause, GX_E_CHILD, "Valgrind cannot run the instruction %s%s%s at %s%s%s "
		      "(bytes from there: %s), and raised SIGILL where the CPU runs it: the run under Valgrind "
		      "is not the workload's: no result written", name ? "'" : "",
		      name ? gx_esc(name) : "", name ? "'" : "", gx_esc(addr),
		      where ? " in " : "", where ? gx_esc(where) : "", bytes ? gx_esc(bytes) : "?");
	free(addr);
	free(where);
	free(bytes);
	free(name);
	return err;
}

int model_vg__unrecognised(const struct model_vg *v, const struct model_scratch *s,
			   char **cause)
{
	int fd = openat(s->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char *pre = xasprintf("%s.log.", pass_prefix[v->how]);
	struct dirent *de;

	if (!d && fd >= 0)
		close(fd);
	while (d && !err && (de = readdir(d)) != NULL) {
		char *text;

		if (strncmp(de->d_name, pre, strlen(pre)))
			continue;
		text = read_file(s, de->d_name, 1 << 24);
		if (text)
			err = unrecognised(s, text, cause);
		free(text);
	}
	if (d)
		closedir(d);
	free(pre);
	return err;
}
