/*
 * wl-model-graph: threads, a forked child and a call chain for record
 * --model (tests/e2e/model-graph.sh): three threads, alive together, run
 * worker(), a child
 * forked without exec runs child_work(), then main calls a(), which calls
 * b(), and rec(), which calls itself 4 times. The loops' counts are fixed
 * (b's 3 times a's own), small enough for Valgrind.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

volatile unsigned long wl_sink;
static pthread_barrier_t started;	/* the threads live at once: a Valgrind thread each */

static void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		wl_sink += i;
}

__attribute__((noinline)) void b(void);
__attribute__((noinline)) void b(void)
{
	work(300000);
}

__attribute__((noinline)) void a(void);
__attribute__((noinline)) void a(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		wl_sink += i;
	b();
}

__attribute__((noinline)) void rec(int d);
__attribute__((noinline)) void rec(int d)
{
	for (unsigned long i = 0; i < 20000; i++)
		wl_sink += i;
	if (d > 0)
		rec(d - 1);
}

__attribute__((noinline)) void *worker(void *arg);
__attribute__((noinline)) void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	work(50000);
	return NULL;
}

__attribute__((noinline)) void child_work(void);
__attribute__((noinline)) void child_work(void)
{
	work(80000);
}

int main(void)
{
	pthread_t t[3];
	int st = 1;
	pid_t pid;

	pthread_barrier_init(&started, NULL, 4);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	pthread_barrier_wait(&started);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_work();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	a();
	rec(4);
	return 0;
}
