/*
 * wl-offcpu: threads that wait in known ways, for the off-CPU view
 * (record --off-cpu; tests/e2e/offcpu.sh). Each thread measures its own
 * truth, the wall time of its function less the CPU time it used (that is
 * its time off the CPU), and prints it:
 *
 *   truth NAME OFF_MS REASON FUNCTION
 *
 * sleeper: wait_sleep() sleeps in nanosleep (sleep); piper: wait_pipe()
 * reads a pipe the main thread writes late (io); locker: wait_lock()
 * takes a mutex the main thread holds (lock); hog1 and hog2: spin_pinned()
 * on the same CPU, each runnable while the other runs (cpu). The main
 * thread joins them all and last a lingerer it starts after the waits end,
 * which sleeps WAIT_MS/4: a join that blocks however early the others ended
 * (on a busy machine they can all be done before main joins them).
 *
 * Usage: wl-offcpu [WAIT_MS [SPIN_MS]]   (default 400, 0)
 *
 * SPIN_MS: the sleeper first spins that long under the name it was born
 * with (the program's), so its samples are all from before it names
 * itself: a thread known by two names (offcpu.sh).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static unsigned wait_ms = 400, spin_ms;
static int pipefd[2];
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int pinned_cpu;

static double now_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct truth {
	const char *name, *reason, *function;
	double wall0, cpu0;
};

static void truth_begin(struct truth *t, const char *name, const char *reason,
			const char *function)
{
	t->name = name;
	t->reason = reason;
	t->function = function;
	pthread_setname_np(pthread_self(), name);
	t->wall0 = now_ms(CLOCK_MONOTONIC);
	t->cpu0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
}

static void truth_end(const struct truth *t)
{
	double off = (now_ms(CLOCK_MONOTONIC) - t->wall0) -
		     (now_ms(CLOCK_THREAD_CPUTIME_ID) - t->cpu0);

	pthread_mutex_lock(&out_lock);
	printf("truth %s %.1f %s %s\n", t->name, off, t->reason, t->function);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

__attribute__((noinline)) static void wait_sleep(void)
{
	struct timespec ts = { wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void wait_pipe(void)
{
	char c;

	if (read(pipefd[0], &c, 1) != 1)
		perror("wl-offcpu: read");
}

__attribute__((noinline)) static void wait_lock(void)
{
	pthread_mutex_lock(&held);
	pthread_mutex_unlock(&held);
}

/* Spin until this thread used ms of CPU, on pinned_cpu with another. */
__attribute__((noinline)) static void spin_pinned(unsigned ms)
{
	volatile unsigned long x = 1;
	double end = now_ms(CLOCK_THREAD_CPUTIME_ID) + ms;

	while (now_ms(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			x = x * 2862933555777941757UL + 3037000493UL;
}

static void *sleeper(void *arg)
{
	struct truth t;

	(void)arg;
	if (spin_ms) {
		double end = now_ms(CLOCK_MONOTONIC) + spin_ms;
		volatile unsigned long x = 1;

		while (now_ms(CLOCK_MONOTONIC) < end)
			x = x * 6364136223846793005UL + 1;
	}
	truth_begin(&t, "sleeper", "sleep", "wait_sleep");
	wait_sleep();
	truth_end(&t);
	return NULL;
}

static void *piper(void *arg)
{
	struct truth t;

	(void)arg;
	truth_begin(&t, "piper", "io", "wait_pipe");
	wait_pipe();
	truth_end(&t);
	return NULL;
}

static void *locker(void *arg)
{
	struct truth t;

	(void)arg;
	truth_begin(&t, "locker", "lock", "wait_lock");
	wait_lock();
	truth_end(&t);
	return NULL;
}

static void *hog(void *arg)
{
	struct truth t;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(pinned_cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("wl-offcpu: sched_setaffinity");
	truth_begin(&t, (const char *)arg, "cpu", "spin_pinned");
	spin_pinned(wait_ms / 2);
	truth_end(&t);
	return NULL;
}

static void *lingerer(void *arg)
{
	unsigned ms = wait_ms / 4;
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	(void)arg;
	nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[6];
	cpu_set_t set;
	struct timespec ts;

	if (argc > 1)
		wait_ms = (unsigned)strtoul(argv[1], NULL, 10);
	if (argc > 2)
		spin_ms = (unsigned)strtoul(argv[2], NULL, 10);
	if (pipe(pipefd) != 0)
		return 1;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (pinned_cpu = 0; pinned_cpu < CPU_SETSIZE; pinned_cpu++)
			if (CPU_ISSET(pinned_cpu, &set))
				break;
	pthread_mutex_lock(&held);
	pthread_create(&th[0], NULL, sleeper, NULL);
	pthread_create(&th[1], NULL, piper, NULL);
	pthread_create(&th[2], NULL, locker, NULL);
	pthread_create(&th[3], NULL, hog, "hog1");
	pthread_create(&th[4], NULL, hog, "hog2");
	ts.tv_sec = wait_ms / 1000;
	ts.tv_nsec = (long)(wait_ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	pthread_mutex_unlock(&held);
	pthread_create(&th[5], NULL, lingerer, NULL);
	for (int i = 0; i < 6; i++)
		pthread_join(th[i], NULL);
	return 0;
}
