/*
 * collect-int.h: what the collect module's files share. Not for other
 * modules.
 */
#ifndef GX_COLLECT_INT_H
#define GX_COLLECT_INT_H

#include "collect/collect.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"

#define COLLECT_DEFAULT_PAGES 128
#define COLLECT_DEFAULT_STACK 8192

/* Largest record the kernel writes (header.size is 16 bits). */
#define COLLECT_MAX_RECORD 65536

/* ---- events.c ---------------------------------------------------------- */

/* Kind of event, for defaults and fallbacks. */
bool collect_attr__is_pmu(const struct perf_event_attr *a);

/* perf_event_open(2); returns the fd or -errno. */
int collect_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			    unsigned long flags);

/* /proc/sys/kernel/perf_event_paranoid, or 2 when unreadable. */
int collect_paranoid(void);
/* Root, CAP_PERFMON or CAP_SYS_ADMIN in the effective set. */
bool collect_privileged(void);

/* ---- pmus.c ------------------------------------------------------------- */

/* A file of a PMU in sysfs (GX_SYSFS replaces /sys), or NULL; allocated. */
char *collect_pmu_file(const char *pmu, const char *file);

struct collect_core_pmu {
	const char *name;	/* "cpu_core", "cpu_atom", "cpu_lowpower" */
	uint32_t type;
	int *cpus;
	size_t nr_cpus;
};

/* The core PMUs of a hybrid machine, P-cores first; 0 (and *out NULL)
 * when the machine has one core type. */
size_t collect_core_pmus(struct collect_core_pmu **out);
void collect_core_pmus__free(struct collect_core_pmu *p, size_t n);
/* Replace *ev by its copies on every core PMU of a hybrid machine (no
 * change elsewhere). 0. */
int collect_events__hybrid(struct collect_event **ev, size_t *nr);

/* ---- ring.c --------------------------------------------------------------
 * One mmapped perf ring buffer (a metadata page + 2^n data pages).
 */
struct ring {
	int fd;			/* the descriptor that owns the mapping */
	int cpu;
	struct perf_event_mmap_page *meta;	/* NULL: not mapped */
	char *data;
	uint64_t size;		/* data bytes, power of two */
	size_t len;		/* whole mapping */
};

/* Map pages data pages of fd; 0 or -errno (r untouched on error). */
int ring__map(struct ring *r, int fd, uint32_t pages);
void ring__unmap(struct ring *r);
/* Hand every complete record to sink->record (wrapped ones through bounce,
 * COLLECT_MAX_RECORD bytes), count them and PERF_RECORD_LOST in st, and
 * free the space. Never allocates. Returns 0 or the sink's error. */
int ring__drain(struct ring *r, char *bounce, struct collect_sink *sink,
		struct collect_stats *st);

/* ---- offcpu.c -------------------------------------------------------------
 * The off-CPU prober: a thread reading the waits of root's threads and
 * descendants from /proc every interval_us (0: 2000) into sink.
 */
struct offcpu_prober;
int offcpu_prober__start(struct offcpu_prober **out, pid_t root, uint32_t interval_us,
			 struct collect_offcpu_sink *sink);
/* Stop and free p (NULL: nothing), adding its counts. */
void offcpu_prober__stop(struct offcpu_prober *p, uint64_t *probes, uint64_t *passes);

/* ---- workload.c ---------------------------------------------------------
 * A forked child held before execvp() until released.
 */
struct workload {
	pid_t pid;		/* the workload; 0: none, or ended */
	pid_t keeper;		/* its parent, the child subreaper; 0: none */
	int go_fd;		/* write end: one byte releases the child */
	int err_fd;		/* read end: errno of a failed execvp, or EOF */
	int life_fd;		/* write end: EOF without the release byte kills the tree */
	int status_fd;		/* read end: the workload's pid, then its wait status */
	char *argv0;
};

/* Check that argv[0] can be executed (PATH search as execvp does). */
int workload__check(char *const *argv, char **cause);
/* env: one "NAME=VALUE" added to the child's environment, or NULL. */
/* Fork the workload, held before exec; env ("NAME=value") is added to its
 * environment and the nr_inherit descriptors inherit[] lose FD_CLOEXEC
 * in it (the regions ring and its pipes), NULL/0: none. */
int workload__start(struct workload *w, char *const *argv, const char *env,
		    const int *inherit, size_t nr_inherit, char **cause);
/* Let the child exec (the go byte); GX_E_CHILD with a cause when the
 * child is gone. */
int workload__release(struct workload *w, char **cause);
/* After __release: wait for the exec; GX_E_CHILD with a cause when execvp
 * failed (the child is reaped then). Work that needs nothing of the run
 * can go between the two, while the child executes. */
int workload__execd(struct workload *w, char **cause);
/* Whether the workload ended (block: wait until it does); *status is its
 * wait status, -1 when unknown. */
bool workload__wait(struct workload *w, bool block, int *status);
/* A descriptor that polls readable when the workload ends; -1: none. */
int workload__event_fd(const struct workload *w);
/* Kill the workload, held or running, and every process it started. */
void workload__kill(struct workload *w);
/* The workload ended (workload__wait said so): tell the keeper it was a
 * normal end now, so that it exits while gexplore writes the result;
 * workload__exit reaps it. Nothing when the workload still runs. */
void workload__ended(struct workload *w);
void workload__exit(struct workload *w);

/* ---- markers.c -----------------------------------------------------------
 * The regions ring shared with the workload and its control pipes
 * (gexplore-regions(3), lib/regions/regions-shm.h). Nothing has a name in
 * a file system: the ring is a memfd and the control channel two pipes,
 * inherited by the workload, so a gexplore killed by SIGKILL leaves
 * nothing behind (the kernel frees them with their last user).
 */
struct marker_ring {
	char *env;		/* "GEXPLORE_REGIONS=fd:R,C,A", for the workload; NULL: none */
	struct gx_ring_header *hdr;
	size_t len;
	uint64_t tail;		/* next position to take */
	bool sink_failed;	/* the sink refused one: the rest are counted lost */
	int ctl_fd, ack_fd;	/* gexplore's ends: ctl's read end (non-blocking), ack's write end */
	/* the workload's (inherited; kept open here too, so that neither
	 * pipe ever reads EOF or breaks): ring, ctl's write end, ack's read end */
	int child_fds[3];
};

int marker_ring__create(struct marker_ring *m, char **cause);
/* Every published marker to k (NULL: dropped), counted in st. Never
 * allocates. 0, or the sink's first error. */
int marker_ring__drain(struct marker_ring *m, struct collect_marker_sink *k,
		       struct collect_stats *st);
/* Markers the workload dropped so far. */
uint64_t marker_ring__lost(const struct marker_ring *m);
/* Unmap and close everything; m may be zeroed or half made. */
void marker_ring__destroy(struct marker_ring *m);

/* ---- cpus --------------------------------------------------------------- */
/* Online CPUs from /sys/devices/system/cpu/online; allocated array. */
int collect_online_cpus(int **cpus, size_t *nr);

/* ---- synth.c -------------------------------------------------------------
 * Records for tasks that already run, in the kernel's layout, with the
 * sample_id_all trailer of the tracking event (sample_type, id).
 */
struct synth_ctx {
	struct collect_sink *sink;
	uint64_t sample_type;	/* of the tracking event */
	uint64_t id;		/* its first kernel id */
	bool data_maps;		/* its attr.mmap_data: file data mappings too */
	char *buf;		/* COLLECT_MAX_RECORD bytes */
	uint64_t records, bytes;
	bool kernel_hidden;	/* /proc/kallsyms shows no addresses (kptr_restrict) */
};

/* COMM for every thread and MMAP2 for every executable mapping of pid, and
 * with data_maps for every mapping of a file and the stack. */
int synth__process(struct synth_ctx *c, pid_t pid, bool all_threads);
/* The same for every process in /proc. */
int synth__all(struct synth_ctx *c);
/* MMAP records for the kernel image and its modules, as perf record writes
 * them; nothing when /proc/kallsyms hides addresses. */
int synth__kernel(struct synth_ctx *c);

#endif /* GX_COLLECT_INT_H */
