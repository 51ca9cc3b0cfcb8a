/*
 * gx-keeper: the process between gexplore and its workload (issue 26,
 * part 4; issue 30, part 5). What it does is what src/collect/workload.c
 * says of the keeper; this is the same keeper as a program of its own,
 * which gexplore starts as posix_spawn() would (a clone that shares its
 * memory, then this execve), instead of a fork of gexplore.
 *
 * Why a program of its own, and why without a C library: a fork of
 * gexplore write-protects every page gexplore has written, and each page
 * gexplore writes afterwards costs a fault (15 to 45 us in a VM); the
 * fork, those faults and the copy's exit were 1.5 to 2 ms of the 12 ms a
 * record of /bin/true cost. A program linked statically with glibc spends
 * as much in its start-up (1.6 ms here). This one starts at _start, makes
 * only system calls, and touches a handful of pages: 0.6 ms.
 *
 * Its arguments, from gexplore (workload.c, keeper_argv):
 *   gx-keeper PAD GO,ERR,LIFE,STATUS INHERIT PATH ARGV0 ARGS...
 * PAD is room for the title written over the command line once the
 * workload runs; GO, ERR, LIFE, STATUS the four pipe ends (the workload's
 * go and exec errno, gexplore's life line, the status reports); INHERIT
 * the descriptors the workload keeps (comma-separated, "-" for none);
 * PATH the program to execute (gexplore searched $PATH); ARGV0 and ARGS
 * its argument vector. The environment is the workload's.
 *
 * The workload is started in the keeper's memory (k_spawn, as
 * posix_spawn() does) and waits for the go byte before its execve, so
 * that gexplore can open its counters on its pid first. What it leaves behind becomes the
 * keeper's (PR_SET_CHILD_SUBREAPER); when gexplore goes without the
 * release byte, the keeper kills the workload and every descendant.
 *
 * Only x86-64 and arm64 have the system call layer below; configure
 * builds this program there, and gexplore forks a keeper of its own
 * elsewhere, or when this one cannot be executed.
 */
#include <stddef.h>
#include <stdint.h>

#include <asm/unistd.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/poll.h>
#include <linux/prctl.h>
#include <linux/wait.h>

#ifndef __NR_fcntl
#define __NR_fcntl __NR3264_fcntl
#endif

/* ---- system calls: the result, or -errno ------------------------------- */

#if defined(__x86_64__)
static long sc(long n, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call keeper_main\n"
	"	hlt\n");

/* k_spawn(stack_top, fn, arg): clone(CLONE_VM | CLONE_VFORK | SIGCHLD)
 * onto stack_top, the child calling fn(arg), which never returns; fn and
 * arg wait in callee-saved registers, which the kernel keeps in both */
__asm__(".text\n"
	".global k_spawn\n"
	"k_spawn:\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	mov %rsi, %rbx\n"
	"	mov %rdx, %r12\n"
	"	and $-16, %rdi\n"
	"	mov %rdi, %rsi\n"
	"	mov $0x4111, %edi\n"
	"	xor %edx, %edx\n"
	"	xor %r10d, %r10d\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	xor %ebp, %ebp\n"
	"	mov %r12, %rdi\n"
	"	call *%rbx\n"
	"	hlt\n"
	"1:	pop %r12\n"
	"	pop %rbx\n"
	"	ret\n");
#elif defined(__aarch64__)
static long sc(long n, long a, long b, long c, long d, long e)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;

	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4)
			 : "memory", "cc");
	return x0;
}

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, sp\n"
	"	bl keeper_main\n"
	"	brk #0\n");

__asm__(".text\n"
	".global k_spawn\n"
	"k_spawn:\n"
	"	stp x19, x20, [sp, #-16]!\n"
	"	mov x19, x1\n"
	"	mov x20, x2\n"
	"	and x1, x0, #0xfffffffffffffff0\n"
	"	mov x0, #0x4111\n"
	"	mov x2, xzr\n"
	"	mov x3, xzr\n"
	"	mov x4, xzr\n"
	"	mov x8, #220\n"
	"	svc #0\n"
	"	cbnz x0, 1f\n"
	"	mov x29, xzr\n"
	"	mov x30, xzr\n"
	"	mov x0, x20\n"
	"	blr x19\n"
	"	brk #0\n"
	"1:	ldp x19, x20, [sp], #16\n"
	"	ret\n");
#else
#error "gx-keeper has no system call layer for this architecture (configure builds it on x86-64 and arm64)"
#endif
long k_spawn(void *stack_top, void (*fn)(void *), void *arg);

#define sc0(n) sc(n, 0, 0, 0, 0, 0)
#define sc1(n, a) sc(n, (long)(a), 0, 0, 0, 0)
#define sc2(n, a, b) sc(n, (long)(a), (long)(b), 0, 0, 0)
#define sc3(n, a, b, c) sc(n, (long)(a), (long)(b), (long)(c), 0, 0)
#define sc4(n, a, b, c, d) sc(n, (long)(a), (long)(b), (long)(c), (long)(d), 0)
#define sc5(n, a, b, c, d, e) sc(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))

/* The same numbers on both architectures (asm-generic and x86). */
#define K_SIGHUP 1
#define K_SIGINT 2
#define K_SIGQUIT 3
#define K_SIGKILL 9
#define K_SIGPIPE 13
#define K_SIGTERM 15
#define K_SIGCHLD 17
#define K_NSIG 64
#define K_SIG_DFL ((void *)0)
#define K_SIG_IGN ((void *)1)
#define K_SFD_CLOEXEC O_CLOEXEC

/* The kernel's struct sigaction on both (SA_RESTORER layout). */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

struct kdirent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

struct ktimespec {
	long sec, nsec;
};

/* The byte that tells the keeper gexplore ended normally (workload.c). */
#define KEEPER_RELEASE 'R'

/* The signals the keeper ignores and the workload gets back as they were. */
static const int ignores[] = { K_SIGINT, K_SIGQUIT, K_SIGTERM, K_SIGHUP, K_SIGPIPE };
#define NR_IGNORES (sizeof(ignores) / sizeof(ignores[0]))

static void __attribute__((noreturn)) k_exit(int code)
{
	for (;;)
		sc1(__NR_exit_group, code);
}

/* The compiler may call these for an assignment or an initialisation. */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

void *memset(void *d, int c, size_t n)
{
	volatile unsigned char *p = d;

	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	volatile unsigned char *p = d;
	const unsigned char *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

static size_t k_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* A decimal at *s up to a byte that is not a digit; -1 for none. */
static long k_num(const char **s)
{
	long v = 0;
	int digits = 0;

	while (**s >= '0' && **s <= '9' && digits < 18) {
		v = v * 10 + (**s - '0');
		(*s)++;
		digits++;
	}
	return digits ? v : -1;
}

/* n in decimal at p; the end. */
static char *k_utoa(char *p, unsigned long n)
{
	char tmp[24];
	int k = 0;

	do
		tmp[k++] = (char)('0' + n % 10);
	while (n /= 10);
	while (k)
		*p++ = tmp[--k];
	return p;
}

static long k_read(int fd, void *buf, size_t n)
{
	long r;

	do
		r = sc3(__NR_read, fd, buf, n);
	while (r == -EINTR);
	return r;
}

static void k_sigaction(int sig, void *handler, struct ksigaction *old)
{
	struct ksigaction sa = { .handler = handler };

	sc4(__NR_rt_sigaction, sig, &sa, old, 8);
}

static void k_sigmask(uint64_t mask)
{
	sc4(__NR_rt_sigprocmask, 2 /* SIG_SETMASK */, &mask, 0, 8);
}

static int k_wait(int pid, int *status, int options)
{
	long r;

	do
		r = sc4(__NR_wait4, pid, status, options, 0);
	while (r == -EINTR);
	return (int)r;
}

/* ---- the arguments --------------------------------------------------------- */

struct args {
	int go, err, life, status;
	int inherit[16];
	int nr_inherit;
	char *path;
	char **argv;		/* the workload's */
	char **envp;
	char *area, *area_end;	/* the command line's bytes */
	struct ksigaction old[NR_IGNORES];
};

/* "A,B,C,..." into v (at most max); the number, or -1 on a malformed list. */
static int parse_fds(const char *s, int *v, int max)
{
	int n = 0;

	if (s[0] == '-' && !s[1])
		return 0;
	for (;;) {
		long fd = k_num(&s);

		if (fd < 0 || fd > 0x7fffffff || n == max)
			return -1;
		v[n++] = (int)fd;
		if (!*s)
			return n;
		if (*s++ != ',')
			return -1;
	}
}

static int parse(long *sp, struct args *a)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	int fds[4];

	if (argc < 6)
		return -1;
	a->envp = argv + argc + 1;
	if (parse_fds(argv[2], fds, 4) != 4)
		return -1;
	a->go = fds[0];
	a->err = fds[1];
	a->life = fds[2];
	a->status = fds[3];
	a->nr_inherit = parse_fds(argv[3], a->inherit, 16);
	if (a->nr_inherit < 0)
		return -1;
	a->path = argv[4];
	a->argv = argv + 5;
	a->area = argv[0];
	a->area_end = argv[argc - 1] + k_strlen(argv[argc - 1]) + 1;
	return 0;
}

/* ---- the workload (the keeper's child, until its execve) ------------------ */

struct spawn_arg {
	struct args *a;
	int keeper;
};

static void __attribute__((noreturn)) workload(struct args *a, int keeper)
{
	int self = (int)sc0(__NR_getpid), e;
	char c;

	/* the workload says its own pid: gexplore opens its counters on it */
	if (sc3(__NR_write, a->status, &self, sizeof(self)) != (long)sizeof(self))
		k_exit(127);	/* gexplore is gone */
	if (sc2(__NR_prctl, PR_SET_PDEATHSIG, K_SIGKILL) != 0 || sc0(__NR_getppid) != keeper)
		k_exit(127);	/* the keeper is already gone */
	if (k_read(a->go, &c, 1) != 1)
		k_exit(127);	/* gexplore gave up */
	sc1(__NR_close, a->go);
	/* as gexplore had them: ignored stays ignored, else the default; SIGPIPE
	 * the default (usual in a writer, not the workload's); no signal blocked */
	for (size_t i = 0; i < NR_IGNORES; i++)
		k_sigaction(ignores[i], a->old[i].handler == K_SIG_IGN && ignores[i] != K_SIGPIPE ?
				    K_SIG_IGN : K_SIG_DFL, 0);
	k_sigmask(0);
	e = (int)sc3(__NR_execve, a->path, a->argv, a->envp);
	if (e == -ENOEXEC) {
		/* a script without #!: the shell runs it, as execvp() does */
		char sh[] = "/bin/sh";

		a->argv[-1] = sh;
		a->argv[0] = a->path;
		e = (int)sc3(__NR_execve, sh, a->argv - 1, a->envp);
	}
	e = -e;
	sc3(__NR_write, a->err, &e, sizeof(e));
	k_exit(127);
}

static void workload_start(void *arg)
{
	struct spawn_arg *sa = arg;

	workload(sa->a, sa->keeper);
}

/* ---- the keeper ---------------------------------------------------------- */

/* The parent pid in /proc/PID/stat ("PID (COMM) S PPID ..."), or -1. */
static int ppid_of(int proc, const char *pid)
{
	char path[40], buf[512], *p = path, *close = NULL;
	size_t n = k_strlen(pid);
	long r;
	int fd;

	if (n > 20)
		return -1;
	memcpy(p, pid, n);
	memcpy(p + n, "/stat", 6);
	fd = (int)sc4(__NR_openat, proc, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	r = k_read(fd, buf, sizeof(buf) - 1);
	sc1(__NR_close, fd);
	if (r <= 0)
		return -1;
	buf[r] = 0;
	for (long i = 0; i < r; i++)	/* the comm may hold anything, ')' too */
		if (buf[i] == ')')
			close = buf + i;
	if (!close || close + 4 >= buf + r)
		return -1;
	p = close + 4;	/* ") S PPID" */
	return (int)k_num((const char **)&p);
}

/*
 * Kill every descendant: the workload first (not reaped yet, so its pid is
 * its own), then rounds that kill the keeper's children, whose own
 * children then come to the keeper for the next round; done when none is
 * left. /proc is read only when something is left.
 */
static void kill_tree(int child)
{
	int self = (int)sc0(__NR_getpid);
	struct ktimespec ms = { 0, 1000000 };
	uint64_t buf[512];	/* getdents64's records are 8-byte aligned */

	if (child > 0) {
		sc2(__NR_kill, child, K_SIGKILL);
		k_wait(child, 0, 0);
	}
	for (int round = 0; round < 100000; round++) {
		int proc;
		long n;

		while (k_wait(-1, 0, WNOHANG) > 0)
			;
		if (k_wait(-1, 0, WNOHANG) == -ECHILD)
			return;
		if (round)
			sc2(__NR_nanosleep, &ms, 0);
		proc = (int)sc4(__NR_openat, AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
		if (proc < 0)
			continue;
		while ((n = sc3(__NR_getdents64, proc, buf, sizeof(buf))) > 0)
			for (long off = 0; off < n;) {
				struct kdirent64 *de = (struct kdirent64 *)((char *)buf + off);
				const char *s = de->name;

				off += de->reclen;
				if (de->name[0] >= '1' && de->name[0] <= '9' &&
				    ppid_of(proc, de->name) == self)
					sc2(__NR_kill, (int)k_num(&s), K_SIGKILL);
			}
		sc1(__NR_close, proc);
	}
}

/* "gx-keeper: keeper of PID N for PID M" over the command line, cut to
 * its room (gexplore gives a pad for it). */
static void name(struct args *a, int child, int parent)
{
	char title[80], *p = title;
	size_t len = (size_t)(a->area_end - a->area), n;

	memcpy(p, "gx-keeper: keeper of PID ", 25);
	p = k_utoa(p + 25, (unsigned long)child);
	memcpy(p, " for PID ", 9);
	p = k_utoa(p + 9, (unsigned long)parent);
	n = (size_t)(p - title);
	memset(a->area, 0, len);
	memcpy(a->area, title, n < len ? n : len - 1);
}

/* Reap what ended; the workload's status goes to gexplore once. */
static void reap(int child, int status, int *reported)
{
	int r, st;

	while ((r = k_wait(-1, &st, WNOHANG)) > 0)
		if (r == child && !*reported) {
			*reported = 1;
			sc3(__NR_write, status, &st, sizeof(st));
		}
}

void keeper_main(long *sp) __attribute__((noreturn, used));

void keeper_main(long *sp)
{
	/* The workload's side runs on this part of the keeper's stack, the
	 * keeper stopped until its execve (k_spawn), as posix_spawn() does: no
	 * copy of the keeper's pages to make and to tear down. Only system
	 * calls until the execve. Here and not in .bss, and no initialized
	 * data anywhere: gx-keeper has no writable segment, so its execve maps
	 * one segment and zeroes no partial page (a copy-on-write fault). */
	char workload_stack[16 * 1024] __attribute__((aligned(16)));
	struct spawn_arg sa;
	struct args a;
	int self, child, sfd, reported = 0;
	uint64_t chld = 1ULL << (K_SIGCHLD - 1);

	memset(&a, 0, sizeof(a));
	if (parse(sp, &a) != 0)
		k_exit(127);	/* not started by gexplore: gexplore reads no pid */
	/* the dispositions gexplore left (exec made its handlers the default) */
	for (size_t i = 0; i < NR_IGNORES; i++)
		k_sigaction(ignores[i], K_SIG_IGN, &a.old[i]);
	k_sigmask(chld);
	if (sc2(__NR_prctl, PR_SET_CHILD_SUBREAPER, 1) != 0)
		k_exit(127);
	/* only the workload keeps these (its execve closes the rest) */
	sc3(__NR_fcntl, a.go, F_SETFD, FD_CLOEXEC);
	sc3(__NR_fcntl, a.err, F_SETFD, FD_CLOEXEC);
	sc3(__NR_fcntl, a.life, F_SETFD, FD_CLOEXEC);
	sc3(__NR_fcntl, a.status, F_SETFD, FD_CLOEXEC);
	self = (int)sc0(__NR_getpid);
	sa.a = &a;
	sa.keeper = self;
	/* back when the workload executes its program, or has exited */
	child = (int)k_spawn(workload_stack + sizeof(workload_stack), workload_start, &sa);
	if (child < 0)
		k_exit(127);	/* gexplore reads no pid: it says so */
	sc1(__NR_close, a.go);
	sc1(__NR_close, a.err);
	for (int i = 0; i < a.nr_inherit; i++)
		sc1(__NR_close, a.inherit[i]);
	name(&a, child, (int)sc0(__NR_getppid));
	sfd = (int)sc4(__NR_signalfd4, -1, &chld, 8, K_SFD_CLOEXEC);
	for (;;) {
		struct pollfd p[2] = { { .fd = a.life, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN } };
		struct ktimespec tenth = { 0, 100000000 };
		char si[128], c;
		long n;

		reap(child, a.status, &reported);
		/* without a signalfd, look for ended children every 100 ms */
		n = sc5(__NR_ppoll, p, sfd >= 0 ? 2 : 1, sfd >= 0 ? 0 : (long)&tenth, 0, 8);
		if (n < 0 && n != -EINTR)
			break;
		if (n <= 0)
			continue;
		if (sfd >= 0 && (p[1].revents & POLLIN))
			sc3(__NR_read, sfd, si, sizeof(si));
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = sc3(__NR_read, a.life, &c, 1);
		if (n == 1 && c == KEEPER_RELEASE)
			k_exit(0);	/* a normal end: leftovers are left alone */
		if (n == 0 || (n < 0 && n != -EINTR))
			break;		/* gexplore is gone or gave up */
	}
	kill_tree(reported ? 0 : child);
	k_exit(0);
}
