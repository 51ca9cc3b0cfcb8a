/*
 * child.c: a command started under the keeper with no counter open on it,
 * for a program that counts the workload itself (record --model runs
 * Valgrind so). The keeper is the recording's (workload.c): the workload
 * dies with it (PR_SET_PDEATHSIG), and a gexplore gone without a word (a
 * SIGKILL included) makes it kill the workload and every process the
 * workload started.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct collect_child {
	struct workload wl;
};

/* Put fd over 1 and 2 (saved into keep[]), or them back (fd -1). */
static void swap_output(int fd, int keep[2])
{
	for (int i = 0; i < 2; i++) {
		if (fd >= 0) {
			keep[i] = fcntl(STDOUT_FILENO + i, F_DUPFD_CLOEXEC, 3);
			if (keep[i] >= 0)	/* never one that cannot be put back */
				dup2(fd, STDOUT_FILENO + i);
		} else if (keep[i] >= 0) {
			dup2(keep[i], STDOUT_FILENO + i);
			close(keep[i]);
		}
	}
}

int collect_child__start(struct collect_child **out, char *const *argv, const char *env,
			 bool quiet, char **cause)
{
	struct collect_child *c;
	int keep[2] = { -1, -1 }, null = -1, err;

	*out = NULL;
	err = workload__check(argv, cause);
	if (err)
		return err;
	c = xzalloc(sizeof(*c));
	/* the keeper and the workload inherit 1 and 2 as they are at its
	 * start: /dev/null there for that moment (gexplore runs no thread) */
	if (quiet)
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0)
		swap_output(null, keep);
	err = workload__start(&c->wl, argv, env, NULL, 0, cause);
	if (null >= 0) {
		swap_output(-1, keep);
		close(null);
	}
	if (!err)
		err = workload__release(&c->wl, cause);
	if (!err)
		err = workload__execd(&c->wl, cause);
	if (err) {
		workload__exit(&c->wl);
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

pid_t collect_child__pid(const struct collect_child *c)
{
	return c->wl.pid;
}

int collect_child__fd(const struct collect_child *c)
{
	return workload__event_fd(&c->wl);
}

bool collect_child__wait(struct collect_child *c, bool block, int *status)
{
	return workload__wait(&c->wl, block, status);
}

/*
 * Every process under the keeper, found in /proc: its children (the
 * workload and what reparented to it) and theirs, to any depth. The
 * keeper itself ignores the signals sent, and is left out.
 */
size_t collect_child__signal(struct collect_child *c, int sig)
{
	pid_t *pid = NULL, *ppid = NULL;
	size_t n = 0, cap = 0, cap2 = 0;
	bool *in;
	DIR *d;
	struct dirent *de;
	bool grew = true;
	size_t sent = 0;

	if (c->wl.keeper <= 0)
		return 0;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = xgrow(pid, &cap, n + 1, sizeof(*pid));
		ppid = xgrow(ppid, &cap2, n + 1, sizeof(*ppid));
		pid[n] = (pid_t)strtol(de->d_name, NULL, 10);
		ppid[n++] = collect_ppid_of(de->d_name);
	}
	if (d)
		closedir(d);
	in = xcalloc(n + 1, sizeof(*in));
	/* a process is under the keeper when its parent is the keeper or
	 * under it: rounds until none is added */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			if (in[i])
				continue;
			for (size_t j = 0; j < n && !in[i]; j++)
				in[i] = ppid[i] == c->wl.keeper || (in[j] && ppid[i] == pid[j]);
			grew |= in[i];
		}
	}
	if (c->wl.pid > 0 && kill(c->wl.pid, sig) == 0)
		sent++;		/* found or not (a read of /proc that failed) */
	for (size_t i = 0; i < n; i++)
		if (in[i] && pid[i] != c->wl.pid && kill(pid[i], sig) == 0)
			sent++;
	free(in);
	free(pid);
	free(ppid);
	return sent;
}

void collect_child__delete(struct collect_child *c)
{
	int st;

	if (!c)
		return;
	/* one that ended meanwhile is a normal end */
	if (c->wl.pid > 0 && !workload__wait(&c->wl, false, &st))
		workload__kill(&c->wl);	/* still running: the keeper kills the tree */
	else
		workload__ended(&c->wl);
	workload__exit(&c->wl);
	free(c);
}
