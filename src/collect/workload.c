/*
 * workload.c: fork the command and hold it before execvp() until every
 * counter is open. The child blocks reading the "go" pipe; the parent's
 * write end is close-on-exec so a gexplore that execs or dies never leaves
 * it waiting. A failed execvp() sends errno back through a second
 * close-on-exec pipe: EOF there means the exec happened.
 *
 * The workload never outlives gexplore, and neither do the processes it
 * starts. Between the two stands a keeper: a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so every process the workload leaves behind
 * becomes its child, and that starts the workload. The keeper is
 * gx-keeper, a program without a C library (src/keeper/gx-keeper.c),
 * started as posix_spawn() does (keeper_spawn): a fork of gexplore
 * write-protected every page gexplore had written, and each one gexplore
 * wrote afterwards faulted (issue 26, part 4: with the fork and the copy's
 * exit, 1.5 ms of a 12 ms record of /bin/true). Where gx-keeper is not
 * built or cannot run, the keeper is a forked copy of gexplore that does
 * the same (keeper_run, which starts the workload with workload_run); the
 * protocol below is the same for both.
 * The keeper reads one end of a pipe whose other end only gexplore holds:
 * end of file there, without the release byte, means gexplore is gone (a
 * SIGKILL included) or gave up, and the keeper kills the workload and all
 * its descendants, then exits. After a normal end gexplore sends the
 * release byte, and what the workload left running is left alone, as perf
 * leaves it. The keeper reports the workload's wait status through a
 * second pipe, and ignores the terminal's and kill's signals (restored for
 * the workload) so that it outlives a gexplore they stop.
 *
 * The workload itself asks for SIGKILL when its parent (the keeper) dies
 * (PR_SET_PDEATHSIG, kept across execve() of an ordinary program), then
 * checks that the keeper is still its parent, for a keeper killed between
 * its clone and prctl(). Attaching with -p starts no child and only
 * detaches.
 *
 * The keeper has a name of its own (issue 30, part 5): comm "gx-keeper"
 * and the command line "gx-keeper: keeper of PID N for PID M". As a copy
 * of gexplore with its name and argv it died with gexplore in a
 * `pkill -9 gexplore`, and what the workload had started ran on (5 of 5).
 * With no "gexplore" in either, pkill by name, exact name (-x) or command
 * line (-f) spares it, and it cleans up as after any death of gexplore.
 * The keeper itself killed: the workload follows (PDEATHSIG), its
 * descendants are left running (gexplore-record(1), SIGNALS).
 */
#include "config.h"

#include "collect/collect-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The byte that tells the keeper gexplore ended normally. */
#define KEEPER_RELEASE 'R'

/* The signals the keeper ignores and the workload gets back as they were. */
static const int keeper_ignores[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE };

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The file execvp() would run for name (one without '/': the first
 * executable file of $PATH), malloc'd; NULL when there is none. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return executable(name) ? xstrdup(name) : NULL;
	copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", *dir ? dir : ".", name);

		if (executable(full))
			found = full;
		else
			free(full);
	}
	free(copy);
	return found;
}

int workload__check(char *const *argv, char **cause)
{
	const char *name;
	char *found;
	int err;

	if (!argv || !argv[0] || !*argv[0])
		return gx_fail(cause, GX_E_USAGE, "no command to run");
	name = argv[0];
	found = find_program(name);
	if (found) {
		free(found);
		return 0;
	}
	if (strchr(name, '/')) {
		err = access(name, F_OK) == 0 ? EACCES : ENOENT;
		return gx_fail(cause, GX_E_CHILD, "cannot run '%s': %s; %s", name, strerror(err),
			       err == EACCES ? "make it executable (`chmod +x`) or name the program that runs it" :
			       "check the path of the command after `--` (relative to this directory)");
	}
	return gx_fail(cause, GX_E_CHILD, "cannot run '%s': command not found in PATH; give its path (`./%s`) or add its directory to PATH",
		       name, name);
}

/* ---- the workload (a child of the keeper) -------------------------------- */

struct launch {
	char *const *argv;
	char **envp;		/* gexplore's environment with env, or NULL */
	const int *inherit;
	size_t nr_inherit;
	int go_rd, err_wr, status_wr;
	pid_t keeper;
	struct sigaction old[ARRAY_SIZE(keeper_ignores)];
};

/*
 * The workload's side, from its clone to its execvpe(). It runs on its own
 * stack in the keeper's memory (CLONE_VM | CLONE_VFORK), the keeper
 * stopped until the exec, as posix_spawn() does: no copy of the page
 * tables, no copy-on-write faults, and an exec that has no copied memory
 * to tear down (issue 26, part 4: the fork and the exec of a forked copy
 * of gexplore were 3 of a record's 16 ms). So it calls only system calls
 * and execvpe(), and touches nothing of the keeper's but l. Every signal
 * is blocked from before the clone until just before the exec, and a
 * handler the keeper inherited from gexplore is made the default first,
 * so no handler ever runs here.
 */
static int workload_run(void *arg)
{
	const struct launch *l = arg;
	struct sigaction dfl = { .sa_handler = SIG_DFL }, sa;
	sigset_t none;
	pid_t self = getpid();
	char c;
	ssize_t n;
	int e;

	/* the workload says its own pid: the keeper waits for the exec */
	if (write(l->status_wr, &self, sizeof(self)) != (ssize_t)sizeof(self))
		_exit(127);	/* gexplore is gone */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != l->keeper)
		_exit(127);	/* the keeper is already gone */
	for (int sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL &&
		    sa.sa_handler != SIG_IGN)
			sigaction(sig, &dfl, NULL);
	do
		n = read(l->go_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* gexplore gave up */
	close(l->go_rd);
	/* run as if started directly: gexplore's signal dispositions, not
	 * the keeper's (a handler as the default: the exec makes it so); no
	 * blocked signals; SIGPIPE not ignored (usual in a writer, not the
	 * workload's) */
	for (size_t i = 0; i < ARRAY_SIZE(keeper_ignores); i++) {
		sa = l->old[i];
		if (sa.sa_handler != SIG_IGN)
			sa = dfl;
		sigaction(keeper_ignores[i], &sa, NULL);
	}
	sigaction(SIGPIPE, &dfl, NULL);
	for (size_t i = 0; i < l->nr_inherit; i++)
		if (l->inherit[i] >= 0)
			fcntl(l->inherit[i], F_SETFD, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvpe(l->argv[0], l->argv, l->envp ? l->envp : environ);
	e = errno;
	if (write(l->err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* ---- the keeper ------------------------------------------------------------ */

/* The parent pid in /proc/PID/stat, or -1. (gexplore does not run
 * threads while it records, so the keeper may allocate.) */
pid_t collect_ppid_of(const char *pid)
{
	char path[300], *buf, *p;
	pid_t ppid = -1;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	buf = gx_read_file(path, 4096);
	p = buf ? strrchr(buf, ')') : NULL;	/* the comm may hold anything, ')' too */
	if (p && strlen(p) >= 4)
		ppid = (pid_t)strtol(p + 4, NULL, 10);	/* ") S PPID" */
	free(buf);
	return ppid;
}

/*
 * Kill every descendant: the workload first, then rounds that kill the
 * keeper's children (what reparented to the keeper), whose own children
 * then reparent to it for the next round; done when none is left. A
 * workload that leaves nothing behind (one killed before its exec, when
 * the counters could not open) costs no reading of /proc: on a busy
 * machine that is hundreds of files.
 */
static void kill_tree(pid_t child)
{
	pid_t self = getpid();
	struct timespec ms = { 0, 1000000 };

	/* child: the workload not reaped yet (so its pid is still its own),
	 * or 0; its children are the keeper's once it is reaped */
	if (child > 0) {
		kill(child, SIGKILL);
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (int round = 0; round < 100000; round++) {
		DIR *d;
		struct dirent *de;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			return;
		if (round)
			nanosleep(&ms, NULL);
		d = opendir("/proc");
		while (d && (de = readdir(d)))
			if (de->d_name[0] >= '1' && de->d_name[0] <= '9' && collect_ppid_of(de->d_name) == self)
				kill((pid_t)strtol(de->d_name, NULL, 10), SIGKILL);
		if (d)
			closedir(d);
	}
}

/*
 * Name the keeper (after the workload's exec, so its own argv is untouched):
 * its comm, and its command line written over gexplore's argv strings,
 * found through /proc/self/stat's arg_start and arg_end (fields 48 and
 * 49), cut to their length.
 */
static void keeper_name(pid_t child)
{
	unsigned long long start = 0, end = 0;
	char title[96], *st, *p;

	prctl(PR_SET_NAME, "gx-keeper", 0, 0, 0);
	snprintf(title, sizeof(title), "gx-keeper: keeper of PID %d for PID %d", (int)child,
		 (int)getppid());
	st = gx_read_file("/proc/self/stat", 4096);
	p = st ? strrchr(st, ')') : NULL;	/* then " S PPID ...": field 3 on */
	for (int field = 2; p && field < 48; field++) {
		p = strchr(p + 1, ' ');
	}
	if (p && sscanf(p + 1, "%llu %llu", &start, &end) == 2 && end > start &&
	    end - start < (1u << 20)) {
		char *area = (char *)(uintptr_t)start;
		size_t len = (size_t)(end - start), n = strlen(title);

		memset(area, 0, len);
		memcpy(area, title, n < len ? n : len - 1);
	}
	free(st);
}

/* Reap what ended; the workload's status goes to gexplore once. */
static void keeper_reap(pid_t child, int status_wr, bool *reported)
{
	pid_t r;
	int st;

	while ((r = waitpid(-1, &st, WNOHANG)) > 0)
		if (r == child && !*reported) {
			*reported = true;
			if (write(status_wr, &st, sizeof(st)) < 0)
				continue;	/* gexplore is gone: the life pipe says so */
		}
}

/*
 * The stack of the workload's side until its exec (workload_run): room
 * for execvpe(), which builds each candidate path (a $PATH entry and the
 * name, at most PATH_MAX + NAME_MAX) and, for a script without #!, a copy
 * of argv's pointers on the stack: a long argument list needs more.
 */
static size_t workload_stack_size(char *const *argv)
{
	size_t n = 64 * 1024 + PATH_MAX + NAME_MAX, page = 4096;

	for (char *const *a = argv; *a; a++)
		n += sizeof(*a);
	return (n + sizeof(*argv) * 2 + page - 1) / page * page;
}

static void __attribute__((noreturn)) keeper_run(struct launch *l, int life_rd, int status_wr)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	bool reported = false;
	sigset_t chld, all, keep;
	size_t stack_size;
	pid_t child;
	char *stack;
	int sfd;

	for (size_t i = 0; i < ARRAY_SIZE(keeper_ignores); i++)
		sigaction(keeper_ignores[i], &ign, &l->old[i]);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		_exit(127);
	stack_size = workload_stack_size(l->argv);
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		_exit(127);
	l->status_wr = status_wr;
	l->keeper = getpid();
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &keep);
	/* back when the workload has exec'd or exited */
	child = clone(workload_run, stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, l);
	sigprocmask(SIG_SETMASK, &keep, NULL);
	munmap(stack, stack_size);
	if (child < 0)
		_exit(127);	/* gexplore reads no pid: it says so */
	keeper_name(child);
	close(l->go_rd);
	close(l->err_wr);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC);
	for (;;) {
		struct pollfd p[2] = { { .fd = life_rd, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN } };
		struct signalfd_siginfo si;
		char c;
		ssize_t n;

		keeper_reap(child, status_wr, &reported);
		/* without a signalfd, look for ended children every 100 ms */
		if (poll(p, sfd >= 0 ? 2 : 1, sfd >= 0 ? -1 : 100) < 0 && errno != EINTR)
			break;
		if (sfd >= 0 && (p[1].revents & POLLIN) && read(sfd, &si, sizeof(si)) < 0)
			continue;
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(life_rd, &c, 1);
		if (n == 1 && c == KEEPER_RELEASE)
			_exit(0);	/* a normal end: leftovers are left alone */
		if (n == 0 || (n < 0 && errno != EINTR))
			break;		/* gexplore is gone or gave up */
	}
	kill_tree(reported ? 0 : child);
	_exit(0);
}

/* ---- gx-keeper: the keeper as a program of its own ------------------------ */

/*
 * gx-keeper's path (src/keeper/gx-keeper.c): the one beside gexplore's
 * executable (a build tree), else where make install put it; NULL where
 * there is none, and with GX_TEST_KEEPER=fork (tests only, HACKING.md):
 * then gexplore forks the keeper above.
 */
static char *keeper_program(void)
{
#ifdef HAVE_KEEPER_PROGRAM
	const char *test = getenv("GX_TEST_KEEPER");
	char *beside;

	if (test && !strcmp(test, "fork"))
		return NULL;
	beside = gx_beside_self("gx-keeper");
	if (beside && executable(beside))
		return beside;
	free(beside);
	if (executable(GX_KEEPER_PROGRAM))
		return xstrdup(GX_KEEPER_PROGRAM);
#endif
	return NULL;
}

/* What gx-keeper is executed with, in a clone that shares gexplore's
 * memory until its execve (keeper_exec). */
struct keeper_exec {
	const char *prog;
	char **argv, **envp;
	int keep[8];		/* made inheritable: the keeper's pipes, the workload's */
	size_t nr_keep;
	int err;		/* errno of a failed execve, written by the clone */
};

/* "A,B,..." of n descriptors, or "-" for none. */
static char *fd_list(const int *fd, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		strbuf__addf(&sb, "%s%d", i ? "," : "", fd[i]);
	if (!n)
		strbuf__addf(&sb, "-");
	return strbuf__detach(&sb);
}

/*
 * gx-keeper's arguments (its parse()): PAD GO,ERR,LIFE,STATUS INHERIT PATH
 * and the workload's argv. PAD is room for its title ("gx-keeper: keeper
 * of PID N for PID M", written over its command line).
 */
static char **keeper_argv(const char *path, char *const *argv, const int *pipes,
			  const int *inherit, size_t nr_inherit)
{
	size_t n = 0, k = 0;
	char **v;

	while (argv[n])
		n++;
	v = xcalloc(n + 6, sizeof(*v));
	v[k++] = xstrdup("gx-keeper");
	v[k++] = xasprintf("%40s", "");
	v[k++] = fd_list(pipes, 4);
	v[k++] = fd_list(inherit, nr_inherit);
	v[k++] = xstrdup(path);
	for (size_t i = 0; i < n; i++)
		v[k++] = argv[i];	/* not copied: freed up to here */
	return v;
}

static void keeper_argv_free(char **v)
{
	for (size_t i = 0; i < 5; i++)
		free(v[i]);
	free(v);
}

/* The clone's side, as workload_run's: system calls and execve only. */
static int keeper_exec(void *arg)
{
	struct keeper_exec *k = arg;

	for (size_t i = 0; i < k->nr_keep; i++)
		fcntl(k->keep[i], F_SETFD, 0);
	execve(k->prog, k->argv, k->envp);
	k->err = errno ? errno : ENOEXEC;
	_exit(127);
}

/*
 * Start gx-keeper as posix_spawn() would: a clone that shares gexplore's
 * memory (no copy of its page tables, and so no fault on every page
 * gexplore writes afterwards: issue 26, part 4), every signal blocked
 * until its execve. Its pid, or -1 when it could not be executed (then
 * gexplore forks a keeper). l's descriptors: the four pipe ends it holds.
 */
static pid_t keeper_spawn(const char *prog, const struct launch *l, int life_rd)
{
	const int pipes[4] = { l->go_rd, l->err_wr, life_rd, l->status_wr };
	struct keeper_exec k = { .prog = prog, .envp = l->envp ? l->envp : environ };
	size_t size = 64 * 1024;
	sigset_t all, keep;
	char *path, *stack;
	pid_t pid;

	if (l->nr_inherit > ARRAY_SIZE(k.keep) - 4)
		return -1;
	path = find_program(l->argv[0]);
	if (!path)
		return -1;
	memcpy(k.keep, pipes, sizeof(pipes));
	for (size_t i = 0; i < l->nr_inherit; i++)
		if (l->inherit[i] >= 0)
			k.keep[4 + k.nr_keep++] = l->inherit[i];
	k.argv = keeper_argv(path, l->argv, pipes, k.keep + 4, k.nr_keep);
	k.nr_keep += 4;
	free(path);
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		     -1, 0);
	if (stack == MAP_FAILED) {
		keeper_argv_free(k.argv);
		return -1;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &keep);
	/* back when gx-keeper runs, or the execve failed */
	pid = clone(keeper_exec, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, &k);
	sigprocmask(SIG_SETMASK, &keep, NULL);
	munmap(stack, size);
	keeper_argv_free(k.argv);
	if (pid > 0 && k.err) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		pid = -1;
	}
	return pid;
}

/* ---- gexplore's side -------------------------------------------------------- */

/* gexplore's environment with "NAME=value" env set in it, built before
 * the forks: a putenv() in the workload's child allocated and copied there
 * (2% of a record of /bin/true, issue 26, part 4). */
static char **env_with(const char *env)
{
	size_t n = 0, k = 0, name = strcspn(env, "=") + 1;
	char **v;

	while (environ && environ[n])
		n++;
	v = xcalloc(n + 2, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], env, name) != 0)
			v[k++] = environ[i];
	v[k] = (char *)env;
	return v;
}

/* Close both ends of the first n pipes of p. */
static void close_pipes(int (*p)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
}

int workload__start(struct workload *w, char *const *argv, const char *env,
		    const int *inherit, size_t nr_inherit, char **cause)
{
	struct launch l = { .argv = argv, .envp = env ? env_with(env) : NULL, .inherit = inherit,
			    .nr_inherit = nr_inherit };
	/* go: releases the exec; err: errno of a failed exec; life: only
	 * gexplore holds its write end; status: the keeper's reports */
	enum { GO, ERR, LIFE, STATUS, NR_PIPES };
	int p[NR_PIPES][2];
	pid_t keeper, child;
	char *prog;
	ssize_t n;

	memset(w, 0, sizeof(*w));
	w->go_fd = w->err_fd = w->life_fd = w->status_fd = -1;
	for (size_t i = 0; i < NR_PIPES; i++)
		if (pipe2(p[i], O_CLOEXEC) < 0) {
			int err = gx_fail(cause, -errno, "cannot create a pipe: %s", strerror(errno));

			close_pipes(p, i);
			free(l.envp);
			return err;
		}
	l.go_rd = p[GO][0];
	l.err_wr = p[ERR][1];
	l.status_wr = p[STATUS][1];
	keeper = -1;
	prog = keeper_program();
	if (prog)
		keeper = keeper_spawn(prog, &l, p[LIFE][0]);
	free(prog);
	if (keeper < 0)	/* none here, or it could not run: a fork of gexplore */
		keeper = fork();
	if (keeper < 0) {
		int err = gx_fail(cause, -errno, "cannot fork: %s", strerror(errno));

		close_pipes(p, NR_PIPES);
		free(l.envp);
		return err;
	}
	if (keeper == 0) {
		close(p[GO][1]);
		close(p[ERR][0]);
		close(p[LIFE][1]);
		close(p[STATUS][0]);
		keeper_run(&l, p[LIFE][0], p[STATUS][1]);
	}
	free(l.envp);	/* the keeper has its copy */
	close(p[GO][0]);
	close(p[ERR][1]);
	close(p[LIFE][0]);
	close(p[STATUS][1]);
	w->keeper = keeper;
	w->go_fd = p[GO][1];
	w->err_fd = p[ERR][0];
	w->life_fd = p[LIFE][1];
	w->status_fd = p[STATUS][0];
	w->argv0 = xstrdup(argv[0]);
	do
		n = read(w->status_fd, &child, sizeof(child));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(child) || child <= 0) {
		workload__exit(w);
		return gx_fail(cause, GX_E_CHILD, "cannot run '%s': the process that starts it "
			       "failed (fork, clone or PR_SET_CHILD_SUBREAPER)", argv[0]);
	}
	w->pid = child;
	return 0;
}

int workload__release(struct workload *w, char **cause)
{
	char c = 1;

	if (gx_write_all(w->go_fd, &c, 1) < 0) {
		workload__kill(w);
		return gx_fail(cause, GX_E_CHILD, "cannot run '%s': the child is gone", w->argv0);
	}
	close(w->go_fd);
	w->go_fd = -1;
	return 0;
}

int workload__execd(struct workload *w, char **cause)
{
	int e = 0, st;
	ssize_t n;

	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		workload__wait(w, true, &st);
		return gx_fail(cause, GX_E_CHILD, "cannot run '%s': %s", w->argv0, strerror(e));
	}
	return 0;
}

int workload__event_fd(const struct workload *w)
{
	return w->pid > 0 ? w->status_fd : -1;
}

bool workload__wait(struct workload *w, bool block, int *status)
{
	struct pollfd p = { .fd = w->status_fd, .events = POLLIN };
	ssize_t n;
	int st;

	*status = -1;
	if (w->pid <= 0)
		return true;
	if (!block && poll(&p, 1, 0) <= 0)
		return false;
	do
		n = read(w->status_fd, &st, sizeof(st));
	while (n < 0 && errno == EINTR);
	/* end of file: the keeper died, and the workload with it (PDEATHSIG) */
	if (n == (ssize_t)sizeof(st))
		*status = st;
	w->pid = 0;
	return true;
}

/*
 * The release byte to the keeper. A keeper killed already makes it EPIPE,
 * never a SIGPIPE: that killed gexplore before it wrote meta.json (exit
 * 141) when the keeper alone was killed.
 */
static bool keeper_release(int fd)
{
	struct timespec zero = { 0, 0 };
	char c = KEEPER_RELEASE;
	sigset_t pipe_set, old;
	bool sent;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	sent = write(fd, &c, 1) == 1;
	if (!sent && errno == EPIPE)	/* the SIGPIPE it raised, taken back */
		while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
			;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return sent;
}

/* Tell the keeper to go (release: a normal end, else it kills what the
 * workload left) and reap it. */
static void keeper_end(struct workload *w, bool release)
{
	int st;

	if (w->life_fd >= 0) {
		if (release && !keeper_release(w->life_fd))
			release = false;
		close(w->life_fd);
		w->life_fd = -1;
	}
	if (w->keeper > 0) {
		while (waitpid(w->keeper, &st, 0) < 0 && errno == EINTR)
			;
		w->keeper = 0;
	}
}

void workload__ended(struct workload *w)
{
	if (w->pid > 0 || w->life_fd < 0)
		return;
	if (!keeper_release(w->life_fd)) {
		/* the keeper is gone already, and its work with it */
	}
	close(w->life_fd);
	w->life_fd = -1;
}

void workload__kill(struct workload *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		w->pid = 0;
	}
	keeper_end(w, false);
}

void workload__exit(struct workload *w)
{
	if (w->pid > 0)
		workload__kill(w);
	keeper_end(w, true);
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	if (w->status_fd >= 0)
		close(w->status_fd);
	w->go_fd = w->err_fd = w->status_fd = -1;
	free(w->argv0);
	w->argv0 = NULL;
}
