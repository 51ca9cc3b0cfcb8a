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

/* ---- session.c ----------------------------------------------------------- */
/* One control channel: commands read from rfd, "ack\n" written to wfd. */
struct ctl_chan {
	int rfd, wfd;
	char buf[64];
	size_t len;
};

struct collect_session {
	struct collect_opts o;
	struct collect_event *ev;
	size_t nr_ev;
	int *cpus;
	size_t nr_cpus;
	pid_t *tids;		/* targets; { -1 } for -a */
	size_t nr_tids;
	int *fds;		/* [ev][tid][cpu]; -1 where a thread vanished */
	uint64_t *fd_ids;	/* kernel id of each fd */
	size_t nr_fds;
	struct ring *rings;
	size_t nr_rings;
	char *bounce;		/* COLLECT_MAX_RECORD bytes, for wrapped records */
	struct workload wl;
	bool has_workload;
	char **warnings;
	size_t nr_warnings, cap_warnings;
	struct collect_stats stats;
	bool ran;
	/* rotation (opts.rotate with two or more groups) */
	size_t *rot_leader;	/* event index of each group's leader */
	size_t nr_rot, rot_cur;
	uint64_t rot_start, rot_next, rot_ns;
	size_t *rot_order, rot_pos;	/* this turn's order of the groups, rot_cur's place */
	uint64_t rot_rng;	/* the orders' draws */
	uint64_t *rot_prev;	/* last counting read per event */
	uint64_t *rot_prev_run;	/* last running time per group */
	uint64_t *rot_delta;	/* one slice's (or the totals') counts per event */
	uint64_t *rot_buf;	/* one PERF_FORMAT_GROUP read */
	size_t rot_buf_len;
	struct collect_slice_sink *rot_log;	/* where slices go, NULL: nowhere */
	/* the kernel's multiplexing read in periods (opts.kernel_slices): the
	 * rot_* clock, rot_prev and rot_delta serve it too */
	bool kper;
	uint64_t *kper_prev_run;	/* last running time per event */
	uint64_t *kper_run;		/* one period's running times */
	uint64_t *kper_prev_en;		/* last largest one-descriptor enabled time per event */
	uint64_t *kper_en;		/* one period's enabled times */
	/* regions and control (gexplore-regions(3), --control, --delay) */
	struct marker_ring mr;
	struct ctl_chan ctl[2];	/* --control, then the workload's gx_pause() */
	size_t nr_ctl;
	bool paused;		/* every event disabled by a control or --delay */
	bool missed_maps;	/* the workload ran while disabled: maps to redo */
	uint64_t delay_at;	/* --delay: when to enable (0: no timer) */
	struct collect_sink *sink;	/* during __run: for the synthesized maps */
};

/* The index in fds and fd_ids of event e's descriptor for target t on the
 * c-th CPU. */
static inline size_t collect_session__fd_index(const struct collect_session *s, size_t e,
					       size_t t, size_t c)
{
	return (e * s->nr_tids + t) * s->nr_cpus + c;
}

/* collect_session__read_event, and in *copy_max the largest time enabled
 * of one descriptor (the tasks' time: read_counts). */
int collect_session__read_copies(const struct collect_session *s, size_t e, uint64_t *count,
				 uint64_t *enabled, uint64_t *running, uint64_t *copy_max);

/* ---- rotation.c ----------------------------------------------------------
 * Multiplexing by rotation (opts.rotate: one group on at a time, switched
 * by the drain loop) and the kernel's own read in periods
 * (opts.kernel_slices).
 */
/* Before the events open: with two or more groups and opts.rotate, each
 * leader starts disabled (s->nr_rot set); else s->nr_rot is 0. */
void rotation__prepare(struct collect_session *s);
/* After they open: the rotation's or the kernel periods' buffers, and the
 * slice log begun. 0, or the slice sink's error with *cause. */
int rotation__setup(struct collect_session *s, char **cause);
/* The first group enabled (unless paused) and the clock started. */
int rotation__start(struct collect_session *s);
/* The current slice starts now; its end set --slice later. */
void rotation__next(struct collect_session *s);
/* The end of a slice or of a kernel period; last: the recording's. No
 * allocation (the drain loop calls it). */
int rotation__period_end(struct collect_session *s, bool last);

/* workload.c: the parent of process pid (a decimal name under /proc), or
 * -1; the keeper's kill of a tree and collect_child's walk ask it. */
pid_t collect_ppid_of(const char *pid);

#endif /* GX_COLLECT_INT_H */
