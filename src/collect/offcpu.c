/*
 * offcpu.c: the off-CPU prober (record --off-cpu).
 *
 * The kernel's context-switch records say when each thread left the CPU
 * and came back, at any perf_event_paranoid; what it waited on they do
 * not say. At paranoid 2 a sample at switch-out is refused (it happens in
 * the kernel), but a process may read these files of its descendants:
 * /proc/TID/stat (the state), /proc/TID/schedstat (how many times it ran:
 * the same count twice is the same wait), /proc/TID/wchan (the kernel
 * function it sleeps in), /proc/TID/syscall (the syscall, user SP and PC)
 * and /proc/PID/mem (the user stack above SP). This thread looks at the
 * workload's threads every probe interval and hands each new wait of a
 * sleeping thread to the sink once.
 *
 * A pass costs O(threads) (issue 45: it was O(threads²), each probe
 * rereading /proc/PID/maps, which holds a line per thread's stack: 96% of
 * 3,000 threads' waits went unprobed): a process's executable mappings are
 * read once a pass, and the thread list, the processes and the table of
 * waits seen grow with the workload, with no cap that drops threads.
 *
 * The user stack is scanned, not unwound: the registers but SP and PC are
 * unknown there. Every word above SP that points into an executable
 * mapping just after a call instruction is taken as a return address, up
 * to COLLECT_OFFCPU_FRAMES. A stale return address left in a live frame
 * can add a frame; the callers of the wait are all found.
 */
#include "config.h"

#include "collect-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEEN_MIN 8192		/* slots of tid -> times run when last probed, at first */
#define MAX_MAPS 512		/* executable mappings of a process */
#define CHILDREN_BYTES 65536	/* a thread's children file, read whole */
#define STACK_BYTES 16384	/* user stack scanned above SP */

struct xmap {
	uint64_t start, end;
};

struct seen {
	uint32_t tid;
	uint64_t runs;
};

struct offcpu_prober {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	pid_t root;
	uint64_t interval_ns;
	struct collect_offcpu_sink *sink;
	uint64_t probes, passes;
	uint32_t (*tasks)[2];		/* pid, tid: this pass's threads */
	size_t nr_tasks, cap_tasks;
	uint32_t *procs;		/* this pass's processes, breadth first */
	size_t cap_procs;
	char *children;			/* CHILDREN_BYTES */
	struct seen *seen;		/* open addressing, at most half full */
	size_t nr_seen, cap_seen;
	struct xmap maps[MAX_MAPS];
	size_t nr_maps;
	uint32_t maps_pid;		/* whose maps, */
	uint64_t maps_pass;		/* read in which pass (0: none) */
	uint64_t stack[STACK_BYTES / 8];
	uint64_t ips[COLLECT_OFFCPU_FRAMES];
};

/* The whole of a small /proc file into buf (NUL-terminated); its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static void add_task(struct offcpu_prober *p, uint32_t pid, uint32_t tid)
{
	p->tasks = xgrow(p->tasks, &p->cap_tasks, p->nr_tasks + 1, sizeof(*p->tasks));
	p->tasks[p->nr_tasks][0] = pid;
	p->tasks[p->nr_tasks][1] = tid;
	p->nr_tasks++;
}

/* The threads of root and of its descendants (through each thread's
 * children file), breadth first. */
static void list_tasks(struct offcpu_prober *p)
{
	size_t nr_procs = 1, next = 0;

	p->nr_tasks = 0;
	p->procs = xgrow(p->procs, &p->cap_procs, 1, sizeof(*p->procs));
	p->procs[0] = (uint32_t)p->root;
	while (next < nr_procs) {
		uint32_t pid = p->procs[next++];
		char path[64];
		struct dirent *de;
		DIR *d;
		size_t first = p->nr_tasks;

		snprintf(path, sizeof(path), "/proc/%u/task", pid);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d)) != NULL) {
			char *end;
			unsigned long tid = strtoul(de->d_name, &end, 10);

			if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && !*end)
				add_task(p, pid, (uint32_t)tid);
		}
		closedir(d);
		for (size_t i = first; i < p->nr_tasks; i++) {
			char *s = p->children, *end;

			snprintf(path, sizeof(path), "/proc/%u/task/%u/children", pid,
				 p->tasks[i][1]);
			if (read_small(path, p->children, CHILDREN_BYTES) <= 0)
				continue;
			for (;;) {
				unsigned long c = strtoul(s, &end, 10);

				if (end == s)
					break;
				p->procs = xgrow(p->procs, &p->cap_procs, nr_procs + 1,
						 sizeof(*p->procs));
				p->procs[nr_procs++] = (uint32_t)c;
				s = end;
			}
		}
	}
}

static struct seen *seen_find(struct seen *v, size_t cap, uint32_t tid)
{
	size_t h = (tid * 2654435761U) % cap;

	for (;;) {	/* never full: at most half */
		struct seen *e = &v[h];

		if (e->tid == tid || e->tid == 0)
			return e;
		h = (h + 1) % cap;
	}
}

/* tid's slot (a new one has tid 0), the table doubled when half full:
 * every thread the workload ever had keeps its own. */
static struct seen *seen_slot(struct offcpu_prober *p, uint32_t tid)
{
	struct seen *e;

	if (2 * (p->nr_seen + 1) > p->cap_seen) {
		size_t cap = p->cap_seen ? 2 * p->cap_seen : SEEN_MIN;
		struct seen *v = xcalloc(cap, sizeof(*v));

		for (size_t i = 0; i < p->cap_seen; i++)
			if (p->seen[i].tid)
				*seen_find(v, cap, p->seen[i].tid) = p->seen[i];
		free(p->seen);
		p->seen = v;
		p->cap_seen = cap;
	}
	e = seen_find(p->seen, p->cap_seen, tid);
	if (!e->tid)
		p->nr_seen++;
	return e;
}

/* Times the thread was put on a CPU (/proc/TID/schedstat's third field), or
 * UINT64_MAX when unknown (no schedstats in this kernel). */
static uint64_t thread_runs(uint32_t pid, uint32_t tid)
{
	char path[64], buf[128];
	unsigned long long run, wait, n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/schedstat", pid, tid);
	if (read_small(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu %llu", &run, &wait, &n) != 3)
		return UINT64_MAX;
	return n;
}

/* The state letter of /proc/PID/task/TID/stat, or 0. */
static char thread_state(uint32_t pid, uint32_t tid)
{
	char path[64], buf[512], *rp;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid, tid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

/* pid's executable mappings, read once a pass (the threads of a process
 * are listed together, so each is read once) */
static void load_maps(struct offcpu_prober *p, uint32_t pid)
{
	char path[64], line[512];
	FILE *f;

	if (p->maps_pass == p->passes && p->maps_pid == pid)
		return;
	p->maps_pass = p->passes;
	p->maps_pid = pid;
	p->nr_maps = 0;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (p->nr_maps < MAX_MAPS && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		char perm[8];

		if (sscanf(line, "%llx-%llx %7s", &a, &b, perm) == 3 && perm[2] == 'x') {
			p->maps[p->nr_maps].start = a;
			p->maps[p->nr_maps].end = b;
			p->nr_maps++;
		}
		if (!strchr(line, '\n')) {	/* a long path: skip the rest */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
	}
	fclose(f);
}

static bool in_text(const struct offcpu_prober *p, uint64_t a)
{
	for (size_t i = 0; i < p->nr_maps; i++)
		if (a >= p->maps[i].start && a < p->maps[i].end)
			return true;
	return false;
}

/* Whether the instruction before return address ret is a call. */
static bool after_call(int memfd, uint64_t ret)
{
	uint8_t b[8];

	if (ret < 8 || pread(memfd, b, sizeof(b), (off_t)(ret - 8)) != (ssize_t)sizeof(b))
		return false;
#if defined(__x86_64__) || defined(__i386__)
	/* e8 rel32; ff /2 with a modrm of 0, 1, 4 or 5 bytes after */
	if (b[3] == 0xe8)
		return true;
	if (b[6] == 0xff && (b[7] & 0x38) == 0x10 && (b[7] & 0xc0) == 0xc0)
		return true;	/* call *%reg */
	if (b[5] == 0xff && (b[6] & 0x38) == 0x10)
		return true;	/* call *(%reg), *disp8(%reg), with sib */
	if (b[4] == 0xff && (b[5] & 0x38) == 0x10)
		return true;
	if (b[2] == 0xff && (b[3] & 0x38) == 0x10)
		return true;	/* call *disp32(%rip), *disp32(%reg) */
	if (b[1] == 0xff && (b[2] & 0x38) == 0x10)
		return true;
	return false;
#elif defined(__aarch64__)
	{
		uint32_t insn;

		memcpy(&insn, b + 4, 4);
		return (insn & 0xfc000000U) == 0x94000000U ||	/* bl */
		       (insn & 0xfffffc1fU) == 0xd63f0000U ||	/* blr */
		       (insn & 0xfffff800U) == 0xd63f0800U;	/* blraa/blrab */
	}
#else
	(void)memfd;
	return true;
#endif
}

/* The user pc and the return addresses above sp; how many in p->ips. */
static uint32_t scan_stack(struct offcpu_prober *p, uint32_t pid, uint64_t sp, uint64_t pc)
{
	char path[64];
	uint32_t n = 0;
	size_t got = 0;
	int fd;

	p->ips[n++] = pc;
	snprintf(path, sizeof(path), "/proc/%u/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return n;
	/* page by page: the stack's mapping ends somewhere above */
	while (got < sizeof(p->stack)) {
		size_t want = 4096 - ((sp + got) & 4095);
		ssize_t k;

		if (want > sizeof(p->stack) - got)
			want = sizeof(p->stack) - got;
		k = pread(fd, (char *)p->stack + got, want, (off_t)(sp + got));
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	load_maps(p, pid);
	for (size_t i = 0; i < got / 8 && n < COLLECT_OFFCPU_FRAMES; i++) {
		uint64_t w = p->stack[i];

		if (in_text(p, w) && after_call(fd, w))
			p->ips[n++] = w;
	}
	close(fd);
	return n;
}

/* Read one sleeping thread's wait; hand it to the sink unless it ran
 * while being read. 0 or the sink's error. */
static int probe_thread(struct offcpu_prober *p, uint32_t pid, uint32_t tid, char state,
			uint64_t runs)
{
	struct collect_offcpu_probe pr = { .pid = pid, .tid = tid, .state = state,
					   .syscall = -1, .ips = p->ips };
	char path[64], sys[256], wchan[64] = "";
	unsigned long long v[9];
	int nv;

	pr.time = gx_now_ns();
	snprintf(path, sizeof(path), "/proc/%u/task/%u/syscall", pid, tid);
	if (read_small(path, sys, sizeof(sys)) <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/wchan", pid, tid);
	if (read_small(path, wchan, sizeof(wchan)) < 0 || strcmp(wchan, "0") == 0)
		wchan[0] = '\0';
	pr.wchan = wchan;
	/* "nr a1..a6 sp pc", "-1 sp pc" (not in a syscall) or "running" */
	nv = sscanf(sys, "%lld %llx %llx %llx %llx %llx %llx %llx %llx", (long long *)&v[0],
		    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]);
	if (nv == 9) {
		pr.syscall = (int32_t)(long long)v[0];
		pr.nr_ips = scan_stack(p, pid, v[7], v[8]);
	} else if (nv == 3) {
		pr.nr_ips = scan_stack(p, pid, v[1], v[2]);
	}
	/* it ran meanwhile: what was read may be of the next wait */
	if (runs != UINT64_MAX && thread_runs(pid, tid) != runs)
		return 0;
	p->probes++;
	return p->sink->probe(p->sink, &pr);
}

static int probe_pass(struct offcpu_prober *p)
{
	list_tasks(p);
	p->passes++;
	for (size_t i = 0; i < p->nr_tasks; i++) {
		uint32_t pid = p->tasks[i][0], tid = p->tasks[i][1];
		char st = thread_state(pid, tid);
		struct seen *e;
		uint64_t runs;
		int err;

		if (st != 'S' && st != 'D')
			continue;
		runs = thread_runs(pid, tid);
		e = seen_slot(p, tid);
		if (e->tid == tid && runs != UINT64_MAX && e->runs == runs)
			continue;	/* the wait probed already */
		e->tid = tid;
		e->runs = runs;
		err = probe_thread(p, pid, tid, st, runs);
		if (err)
			return err;
	}
	return 0;
}

static void *prober_main(void *arg)
{
	struct offcpu_prober *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		pthread_mutex_unlock(&p->lock);
		if (probe_pass(p) != 0) {
			pthread_mutex_lock(&p->lock);
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += (long)p->interval_ns;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_mutex_lock(&p->lock);
		while (!p->stop &&
		       pthread_cond_timedwait(&p->cond, &p->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int offcpu_prober__start(struct offcpu_prober **out, pid_t root, uint32_t interval_us,
			 struct collect_offcpu_sink *sink)
{
	struct offcpu_prober *p = xzalloc(sizeof(*p));
	pthread_condattr_t ca;
	int err;

	*out = NULL;
	p->root = root;
	p->sink = sink;
	p->children = xmalloc(CHILDREN_BYTES);
	p->interval_ns = (uint64_t)(interval_us ? interval_us : 2000) * 1000;
	if (p->interval_ns > 999999999)
		p->interval_ns = 999999999;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	err = -pthread_create(&p->thread, NULL, prober_main, p);
	if (err) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free(p->children);
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

void offcpu_prober__stop(struct offcpu_prober *p, uint64_t *probes, uint64_t *passes)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	*probes += p->probes;
	*passes += p->passes;
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->tasks);
	free(p->procs);
	free(p->children);
	free(p->seen);
	free(p);
}
