/*
 * wl-collect-misc MODE [ARG]: small behaviours for the collect tests.
 *   exit N     spin 30 ms, exit with status N
 *   segv       spin 30 ms, raise(SIGSEGV)
 *   killself   raise(SIGKILL)
 *   spin MS    spin MS milliseconds, exit 0
 *   sigstate   exit 0 when no signal is blocked and SIGPIPE is default,
 *              else 1
 *   faults N [T]  touch N fresh anonymous pages (N page faults); with T,
 *              sleep 30 ms, then touch T more on each CPU in turn (the
 *              kernel reports samples lost in a CPU's buffer with the next
 *              record written there), exit 0
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spin.h"

void spin_for(unsigned ms);
void spin_for(unsigned ms)
{
	WL_SPIN_BODY(ms);
}

static int touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long arg = argc > 2 ? atol(argv[2]) : 0;

	if (!strcmp(mode, "exit")) {
		spin_for(30);
		return (int)arg;
	}
	if (!strcmp(mode, "segv")) {
		spin_for(30);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return 1;
	}
	if (!strcmp(mode, "killself")) {
		raise(SIGKILL);
		return 1;
	}
	if (!strcmp(mode, "sigstate")) {
		sigset_t set;
		struct sigaction sa;

		sigprocmask(SIG_SETMASK, NULL, &set);
		sigaction(SIGPIPE, NULL, &sa);
		return sigisemptyset(&set) && sa.sa_handler == SIG_DFL ? 0 : 1;
	}
	if (!strcmp(mode, "spin")) {
		spin_for((unsigned)arg);
		return 0;
	}
	if (!strcmp(mode, "faults")) {
		if (touch_pages(arg))
			return 1;
		if (argc > 3) {
			long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

			usleep(30000);
			for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++) {
				cpu_set_t set;

				CPU_ZERO(&set);
				CPU_SET((int)c, &set);
				if (sched_setaffinity(0, sizeof(set), &set) == 0 &&
				    touch_pages(atol(argv[3])))
					return 1;
			}
		}
		return 0;
	}
	fprintf(stderr, "usage: wl-collect-misc exit N|segv|killself|sigstate|spin MS|faults N [T]\n");
	return 2;
}
