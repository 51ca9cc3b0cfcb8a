/*
 * wl-fork [N [MS]]: forks N children (default 3, at most 16); child i
 * renames itself "wl-fork-<i>" (so a COMM record names it) and spins for
 * MS milliseconds (default 150) in child_spin(). Exits 0 when every child
 * did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin.h"

void child_spin(unsigned ms);
void child_spin(unsigned ms)
{
	WL_SPIN_BODY(ms);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, bad = 0;
	unsigned ms = argc > 2 ? (unsigned)atoi(argv[2]) : 150;

	if (n < 1 || n > 16) {
		fprintf(stderr, "wl-fork: N must be 1..16\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("wl-fork: fork");
			return 1;
		}
		if (pid == 0) {
			char name[16];

			snprintf(name, sizeof(name), "wl-fork-%d", i);
			prctl(PR_SET_NAME, name, 0, 0, 0);
			child_spin(ms);
			_exit(0);
		}
	}
	for (int i = 0; i < n; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	return bad ? 1 : 0;
}
