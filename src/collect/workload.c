/*
 * workload.c: fork the command and hold it before execvp() until every
 * counter is open. The child blocks reading the "go" pipe; the parent's
 * write end is close-on-exec so a gexplore that execs or dies never leaves
 * it waiting. A failed execvp() sends errno back through a second
 * close-on-exec pipe: EOF there means the exec happened.
 *
 * The workload never outlives gexplore: the child asks for SIGKILL when its
 * parent dies (PR_SET_PDEATHSIG, kept across execve() of an ordinary
 * program), then checks that the parent it was forked from is still its
 * parent, for a gexplore killed between fork() and prctl(). Attaching with
 * -p starts no child and only detaches.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int workload__check(char *const *argv, char **cause)
{
	const char *name, *path;
	char *copy, *dir, *save = NULL;
	bool found = false;
	int err;

	if (!argv || !argv[0] || !*argv[0])
		return gx_fail(cause, GX_E_USAGE, "no command to run");
	name = argv[0];
	if (strchr(name, '/')) {
		if (executable(name))
			return 0;
		err = access(name, F_OK) == 0 ? EACCES : ENOENT;
		return gx_fail(cause, GX_E_CHILD, "cannot run '%s': %s; %s", name, strerror(err),
			       err == EACCES ? "make it executable (`chmod +x`) or name the program that runs it" :
			       "check the path of the command after `--` (relative to this directory)");
	}
	path = getenv("PATH");
	copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", *dir ? dir : ".", name);

		found = executable(full);
		free(full);
	}
	free(copy);
	if (!found)
		return gx_fail(cause, GX_E_CHILD, "cannot run '%s': command not found in PATH; give its path (`./%s`) or add its directory to PATH",
			       name, name);
	return 0;
}

int workload__start(struct workload *w, char *const *argv, const char *env,
		    const int *inherit, size_t nr_inherit, char **cause)
{
	int go[2], errp[2], err;
	pid_t pid, parent = getpid();

	memset(w, 0, sizeof(*w));
	w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return gx_fail(cause, -errno, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(errp, O_CLOEXEC) < 0) {
		err = gx_fail(cause, -errno, "cannot create a pipe: %s", strerror(errno));
		goto out_close_go;
	}
	pid = fork();
	if (pid < 0) {
		err = gx_fail(cause, -errno, "cannot fork: %s", strerror(errno));
		goto out_close_err;
	}
	if (pid == 0) {
		sigset_t none;
		char c;
		ssize_t n;
		int e;

		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127);	/* gexplore is already gone */
		close(go[1]);
		close(errp[0]);
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);	/* the parent gave up */
		close(go[0]);
		/* run as if started directly: gexplore's blocked signals and an
		 * ignored SIGPIPE (usual in a writer) are not the workload's */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (env)
			putenv((char *)env);
		for (size_t i = 0; i < nr_inherit; i++)
			if (inherit[i] >= 0)
				fcntl(inherit[i], F_SETFD, 0);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = errp[0];
	w->argv0 = xstrdup(argv[0]);
	return 0;
out_close_err:
	close(errp[0]);
	close(errp[1]);
out_close_go:
	close(go[0]);
	close(go[1]);
	return err;
}

int workload__release(struct workload *w, char **cause)
{
	char c = 1;
	int e = 0;
	ssize_t n;

	if (gx_write_all(w->go_fd, &c, 1) < 0) {
		workload__kill(w);
		return gx_fail(cause, GX_E_CHILD, "cannot run '%s': the child is gone", w->argv0);
	}
	close(w->go_fd);
	w->go_fd = -1;
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		int st;

		while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
			;
		w->pid = 0;
		return gx_fail(cause, GX_E_CHILD, "cannot run '%s': %s", w->argv0, strerror(e));
	}
	return 0;
}

void workload__kill(struct workload *w)
{
	int st;

	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
			;
		w->pid = 0;
	}
}

void workload__exit(struct workload *w)
{
	workload__kill(w);
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	free(w->argv0);
	w->argv0 = NULL;
}
