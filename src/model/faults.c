/*
 * faults.c: the pages a workload touches first, counted natively (issue
 * 40). A page's first touch is a page fault; the page-faults software
 * event counts each where it happened, in user space (the model sees no
 * kernel code), with no PMU and at the program's own speed. One run of
 * the workload under collect, a sample a fault, each given to the file
 * and offset of the instruction that made it (the run's MMAP2 records):
 * model.c turns those into callgrind's instructions. What a second
 * Valgrind pass (pages as its last level) estimated, this counts.
 */
#include "config.h"

#include "model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "collect/collect.h"
#include "model-int.h"
#include "util/util.h"

#ifndef PERF_RECORD_MISC_COMM_EXEC
#define PERF_RECORD_MISC_COMM_EXEC (1 << 13)
#endif

/* a mapping of a file, as a MMAP2 record gave it (pid 0: gone at an exec) */
struct fmap {
	uint32_t pid;
	uint64_t start, len, pgoff;
	uint32_t path;			/* into faults->paths */
};

struct fsink {
	struct collect_sink sink;
	uint64_t sample_type;
	struct model_faults *f;
	struct fmap *maps;
	size_t nr_maps, cap_maps;
	struct { uint32_t pid, ppid; } *forks;
	size_t nr_forks, cap_forks;
	struct u64map at;		/* (path << 40 | offset) -> index into f->v + 1 */
};

static uint32_t path_of(struct model_faults *f, const char *name)
{
	for (size_t i = 0; i < f->nr_paths; i++)
		if (!strcmp(f->paths[i], name))
			return (uint32_t)i;
	f->paths = xrealloc(f->paths, (f->nr_paths + 1) * sizeof(*f->paths));
	f->paths[f->nr_paths] = xstrdup(name);
	return (uint32_t)f->nr_paths++;
}

static void on_mmap2(struct fsink *k, const unsigned char *b, size_t len)
{
	struct fmap m;
	uint32_t pid;
	const char *name = (const char *)b + 72;

	if (len < 80 || !memchr(name, 0, len - 72))
		return;
	memcpy(&pid, b + 8, 4);
	memcpy(&m.start, b + 16, 8);
	memcpy(&m.len, b + 24, 8);
	memcpy(&m.pgoff, b + 32, 8);
	if (name[0] != '/')		/* [heap], [vdso], anonymous: no file */
		return;
	m.pid = pid;
	m.path = path_of(k->f, name);
	if (k->nr_maps == k->cap_maps) {
		k->cap_maps = k->cap_maps ? 2 * k->cap_maps : 64;
		k->maps = xrealloc(k->maps, k->cap_maps * sizeof(*k->maps));
	}
	k->maps[k->nr_maps++] = m;
}

/* The mapping of pid's that holds ip, the newest first; a forked child's
 * are its parent's until it maps its own. */
static const struct fmap *find_map(const struct fsink *k, uint32_t pid, uint64_t ip)
{
	for (int depth = 0; depth < 64 && pid; depth++) {
		size_t j;

		for (size_t i = k->nr_maps; i-- > 0;)
			if (k->maps[i].pid == pid && ip - k->maps[i].start < k->maps[i].len)
				return &k->maps[i];
		for (j = 0; j < k->nr_forks && k->forks[j].pid != pid; j++)
			;
		pid = j < k->nr_forks ? k->forks[j].ppid : 0;
	}
	return NULL;
}

static void on_sample(struct fsink *k, const unsigned char *b, size_t len)
{
	size_t at = 8;
	uint64_t ip = 0, key, *v;
	uint32_t pid = 0;
	const struct fmap *m;

	if (k->sample_type & PERF_SAMPLE_IDENTIFIER)
		at += 8;
	if (!(k->sample_type & PERF_SAMPLE_IP) || !(k->sample_type & PERF_SAMPLE_TID) ||
	    at + 16 > len)
		return;
	memcpy(&ip, b + at, 8);
	memcpy(&pid, b + at + 8, 4);
	k->f->total++;
	m = find_map(k, pid, ip);
	if (!m || m->pgoff + (ip - m->start) >= (1ULL << 40)) {
		k->f->unmapped++;
		return;
	}
	key = (uint64_t)m->path << 40 | (m->pgoff + (ip - m->start));
	v = u64map__findnew(&k->at, key, 0);
	if (!*v) {
		k->f->v = xrealloc(k->f->v, (k->f->nr + 1) * sizeof(*k->f->v));
		k->f->v[k->f->nr] = (struct model_fault){ .path = m->path,
							   .off = m->pgoff + (ip - m->start) };
		*v = ++k->f->nr;
	}
	k->f->v[*v - 1].n++;
}

static int fsink_record(struct collect_sink *s, const void *rec, size_t len)
{
	struct fsink *k = (struct fsink *)s;
	const struct perf_event_header *h = rec;
	const unsigned char *b = rec;

	if (len < sizeof(*h))
		return 0;
	if (h->type == PERF_RECORD_MMAP2) {
		on_mmap2(k, b, len);
	} else if (h->type == PERF_RECORD_SAMPLE) {
		on_sample(k, b, len);
	} else if (h->type == PERF_RECORD_FORK && len >= 16) {
		uint32_t pid, ppid;

		memcpy(&pid, b + 8, 4);
		memcpy(&ppid, b + 12, 4);
		if (pid == ppid)	/* a thread: its process's mappings */
			return 0;
		if (k->nr_forks == k->cap_forks) {
			k->cap_forks = k->cap_forks ? 2 * k->cap_forks : 16;
			k->forks = xrealloc(k->forks, k->cap_forks * sizeof(*k->forks));
		}
		k->forks[k->nr_forks].pid = pid;
		k->forks[k->nr_forks].ppid = ppid;
		k->nr_forks++;
	} else if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
		   len >= 16) {
		uint32_t pid;

		memcpy(&pid, b + 8, 4);
		/* an exec: the process's mappings before it are gone */
		for (size_t i = 0; i < k->nr_maps; i++)
			if (k->maps[i].pid == pid)
				k->maps[i].pid = 0;
		for (size_t j = 0; j < k->nr_forks; j++)
			if (k->forks[j].pid == pid)
				k->forks[j].ppid = 0;
	}
	return 0;
}

static int fsink_round(struct collect_sink *s)
{
	(void)s;
	return 0;
}

int model_faults__native(char *const *argv, struct model_faults *f, int *stop_sig,
			 char **cause)
{
	struct collect_opts co = { .events = "page-faults:u", .sav = 1, .argv = argv,
				   .callgraph = COLLECT_CG_NONE, .rate = 1.0 };
	struct fsink k = { .sink = { .record = fsink_record, .round_end = fsink_round }, .f = f };
	struct collect_session *s = NULL;
	const struct collect_stats *cs;
	int err;

	memset(f, 0, sizeof(*f));
	*stop_sig = 0;
	u64map__init(&k.at);
	err = collect_session__new(&s, &co, cause);
	if (err)
		goto out;
	k.sample_type = collect_session__event(s, 0)->attr.sample_type;
	err = collect_session__run(s, &k.sink, cause);
	cs = collect_session__stats(s);
	*stop_sig = cs->stop_signal;
	if (!err && cs->stop_signal)
		err = gx_fail(cause, -EINTR, "stopped by %s", strsignal(cs->stop_signal));
	if (!err && (cs->lost_events || cs->keeper_died))
		err = gx_fail(cause, -EIO, "%s", cs->keeper_died ? "its keeper died" :
			      "the kernel lost some of its page faults");
out:
	collect_session__delete(s);
	u64map__exit(&k.at);
	free(k.maps);
	free(k.forks);
	if (err)
		model_faults__exit(f);
	return err;
}

void model_faults__exit(struct model_faults *f)
{
	for (size_t i = 0; i < f->nr_paths; i++)
		free(f->paths[i]);
	free(f->paths);
	free(f->v);
	memset(f, 0, sizeof(*f));
}
