/*
 * tasks.c: a modelled run's threads and processes. Callgrind writes a file
 * a thread (--separate-threads) of each process (%p in its out file);
 * each becomes a task of the result with its own counts, so that the
 * thread and process rows, and `check --per`, work as on a native run.
 */
#include "config.h"

#include "model-int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* The leftover units of a split: one each to the largest remainders
 * (ties to the lower index). */
static void give_left(uint64_t left, const double *rem, size_t n, uint64_t *out)
{
	bool *got = xcalloc(n + 1, sizeof(*got));

	while (left > 0) {
		size_t best = n;

		for (size_t i = 0; i < n; i++)
			if (!got[i] && (best == n || rem[i] > rem[best]))
				best = i;
		if (best == n) {	/* more left than shares: the first takes it */
			out[0] += left;
			break;
		}
		got[best] = true;
		out[best]++;
		left--;
	}
	free(got);
}

void model_split(uint64_t total, const uint64_t *w, size_t n, uint64_t *out)
{
	unsigned __int128 sum = 0;
	uint64_t given = 0;
	double *rem;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		sum += w[i];
	memset(out, 0, n * sizeof(*out));
	if (!sum) {
		out[0] = total;
		return;
	}
	rem = xcalloc(n, sizeof(*rem));
	for (size_t i = 0; i < n; i++) {
		unsigned __int128 x = (unsigned __int128)total * w[i];

		out[i] = (uint64_t)(x / sum);
		rem[i] = (double)(x % sum) / (double)sum;
		given += out[i];
	}
	give_left(total - given, rem, n, out);
	free(rem);
}

void model_split_d(uint64_t total, const double *w, size_t n, uint64_t *out)
{
	double sum = 0, *rem;
	uint64_t given = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		sum += w[i] > 0 ? w[i] : 0;
	memset(out, 0, n * sizeof(*out));
	if (!(sum > 0)) {
		out[0] = total;
		return;
	}
	rem = xcalloc(n, sizeof(*rem));
	for (size_t i = 0; i < n; i++) {
		double x = w[i] > 0 ? (double)total * (w[i] / sum) : 0;

		out[i] = x >= (double)total ? total : (uint64_t)x;
		if (given + out[i] > total)	/* rounding: never more than total */
			out[i] = total - given;
		rem[i] = x - (double)out[i];
		given += out[i];
	}
	give_left(total - given, rem, n, out);
	free(rem);
}

/* The program's file name: the command line's first word's last part. */
static char *prog_name(const char *cmd, const char *dflt)
{
	const char *s = cmd, *e, *b;

	if (!s)
		return xstrdup(dflt);
	while (*s == ' ')
		s++;
	e = s + strcspn(s, " ");
	if (e == s)
		return xstrdup(dflt);
	for (b = e; b > s && b[-1] != '/'; b--)
		;
	return b < e ? xstrndup(b, (size_t)(e - b)) : xstrdup(dflt);
}

/* The parent pid Valgrind's log for pid names ("==PID== Parent PID: N"),
 * 0 when none. */
static uint32_t log_parent(const char *prefix, uint32_t pid)
{
	char *path, *text, *at;
	size_t len;
	int err = 0;
	char *why = NULL;
	uint32_t parent = 0;

	if (!prefix)
		return 0;
	path = xasprintf("%s%u", prefix, pid);
	text = gx_read_regular(path, (size_t)1 << 20, &len, &err, &why);
	free(why);
	free(path);
	if (!text)
		return 0;
	at = strstr(text, "== Parent PID: ");
	if (at) {
		unsigned long v = strtoul(at + 15, NULL, 10);

		parent = v <= UINT32_MAX ? (uint32_t)v : 0;
	}
	free(text);
	return parent;
}

static bool same_cmd(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The first part of cg with part i's pid and thread: their group. */
static size_t group_of(const struct model_tasks *t, const struct cg_profile *cg, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (t->pid[k] == t->pid[i] && cg->parts[k].thread == cg->parts[i].thread)
			return k;
	return i;
}

/* Part i's parent part: the first of its parent process's same thread,
 * when i is a forked child's (its log names a parent of the same
 * command); -1 when not. */
static int32_t parent_part(const struct model_tasks *t, const struct cg_profile *cg, size_t i,
			   const char *log_prefix, uint32_t *ppid)
{
	for (size_t k = 0; k < i && !ppid[i]; k++)	/* a process's log is read once */
		if (t->pid[k] == t->pid[i])
			ppid[i] = ppid[k];
	if (!ppid[i])
		ppid[i] = log_parent(log_prefix, t->pid[i]);
	for (size_t k = 0; k < t->nr && ppid[i] && ppid[i] != t->pid[i]; k++)
		if (t->pid[k] == ppid[i] && cg->parts[k].thread == cg->parts[i].thread &&
		    same_cmd(cg->parts[k].cmd, cg->parts[i].cmd))
			return (int32_t)group_of(t, cg, k);
	return -1;
}

/*
 * A forked child's parts. With callgrind's --dump-after=_Fork, the child's
 * first dump (each thread's part of it) is its copy of its parent's counts
 * at the fork: dropped; a thread it dumped was zeroed there, so what it
 * has later is its own (the forking thread's). A thread it did not dump
 * (one that had ended) never ran in the child: a copy, whatever the
 * parent's same thread has is taken off. Without a dump, the forking
 * thread is not known: every thread has its parent's taken off.
 */
static void take_copies(struct model_tasks *t, const struct cg_profile *cg, const char *log_prefix)
{
	struct u64map sum;	/* group << 32 | insn -> index into sums + 1 */
	uint64_t (*sums)[CG_NR] = xcalloc(cg->nr_pins + 1, sizeof(*sums));
	uint32_t *ppid = xcalloc(cg->nr_parts + 1, sizeof(*ppid));
	bool *drop = xcalloc(cg->nr_parts + 1, sizeof(*drop));
	size_t nsums = 0;

	u64map__init(&sum);
	for (size_t j = 0; j < cg->nr_pins; j++) {
		uint64_t key = (uint64_t)group_of(t, cg, cg->pins[j].part) << 32 | cg->pins[j].insn;
		uint64_t *v = u64map__findnew(&sum, key, 0);

		if (!*v)
			*v = ++nsums;
		for (int c = 0; c < CG_NR; c++)
			sums[*v - 1][c] += cg->pins[j].c[c];
	}
	for (size_t i = 0; i < t->nr; i++)
		t->parent[i] = parent_part(t, cg, i, log_prefix, ppid);
	/* a forked process's first dump, every thread's part of it: the copy */
	for (size_t i = 0; i < t->nr; i++) {
		uint32_t first = UINT32_MAX;

		if (t->parent[i] < 0 || !cg->parts[i].dumped)
			continue;
		for (size_t k = 0; k < t->nr; k++)
			if (t->pid[k] == t->pid[i] && cg->parts[k].dumped && cg->parts[k].dump < first)
				first = cg->parts[k].dump;
		drop[i] = cg->parts[i].dump == first;
	}
	/* a thread dumped there was zeroed: what it has later is its own */
	for (size_t i = 0; i < t->nr; i++)
		for (size_t k = 0; k < t->nr; k++)
			if (drop[k] && !drop[i] && t->pid[k] == t->pid[i] &&
			    cg->parts[k].thread == cg->parts[i].thread)
				t->parent[i] = -1;
	for (size_t j = 0; j < cg->nr_pins; j++) {
		const struct cg_pinsn *pi = &cg->pins[j];
		int32_t k = t->parent[pi->part];
		uint64_t *v;

		if (drop[pi->part]) {
			memset(t->c[j], 0, sizeof(t->c[j]));
			continue;
		}
		/* gxgrind's: a child's counts are its own already */
		v = k < 0 || cg->parts[pi->part].own ? NULL :
		    u64map__find(&sum, (uint64_t)k << 32 | pi->insn);
		for (int c = 0; v && c < CG_NR; c++)
			t->c[j][c] -= t->c[j][c] < sums[*v - 1][c] ? t->c[j][c] : sums[*v - 1][c];
	}
	for (size_t i = 0; i < t->nr; i++)
		if (drop[i])
			t->parent[i] = (int32_t)i;	/* a copy: nothing of it is its own */
	u64map__exit(&sum);
	free(sums);
	free(ppid);
	free(drop);
}

/* part x before part y: by pid, then by callgrind's thread number */
static bool part_before(const struct model_tasks *t, uint32_t x, uint32_t y)
{
	if (t->pid[x] != t->pid[y])
		return t->pid[x] < t->pid[y];
	return t->tid[x] != t->tid[y] ? t->tid[x] < t->tid[y] : x < y;
}

/* tids: a process's thread 1 (or unnumbered) its pid, others the next
 * numbers above it that no pid and no tid given has. */
static void give_tids(struct model_tasks *t)
{
	uint32_t *ord = xcalloc(t->nr + 1, sizeof(*ord)), *thread = xcalloc(t->nr + 1, sizeof(*thread));
	struct u64map used;

	u64map__init(&used);
	for (size_t i = 0; i < t->nr; i++) {
		ord[i] = (uint32_t)i;
		*u64map__findnew(&used, t->pid[i], 0) = 1;
	}
	for (size_t i = 1; i < t->nr; i++)	/* a few files: an insertion sort */
		for (size_t j = i; j > 0 && part_before(t, ord[j], ord[j - 1]); j--) {
			uint32_t x = ord[j];

			ord[j] = ord[j - 1];
			ord[j - 1] = x;
		}
	for (size_t x = 0; x < t->nr;) {
		uint32_t pid = t->pid[ord[x]], next = pid;

		for (; x < t->nr && t->pid[ord[x]] == pid; x++) {
			uint32_t i = ord[x], th = t->tid[i];

			if (th <= 1) {
				t->tid[i] = pid;
				continue;
			}
			if (x > 0 && t->pid[ord[x - 1]] == pid && th == thread[ord[x - 1]]) {
				t->tid[i] = t->tid[ord[x - 1]];	/* another dump of that thread */
				thread[i] = th;
				continue;
			}
			do
				next++;
			while (next && u64map__find(&used, next));
			*u64map__findnew(&used, next, 0) = 1;
			t->tid[i] = next;
			thread[i] = th;
		}
	}
	u64map__exit(&used);
	free(ord);
	free(thread);
}

void model_tasks__build(struct model_tasks *t, const struct cg_profile *cg, uint32_t dflt_pid,
			const char *dflt_comm, const char *log_prefix)
{
	size_t n = cg->nr_parts;

	memset(t, 0, sizeof(*t));
	t->nr = n;
	t->pid = xcalloc(n + 1, sizeof(*t->pid));
	t->tid = xcalloc(n + 1, sizeof(*t->tid));
	t->comm = xcalloc(n + 1, sizeof(*t->comm));
	t->parent = xcalloc(n + 1, sizeof(*t->parent));
	t->empty = xcalloc(n + 1, sizeof(*t->empty));
	t->c = xcalloc(cg->nr_pins + 1, sizeof(*t->c));
	for (size_t i = 0; i < n; i++) {
		t->pid[i] = cg->parts[i].pid ? cg->parts[i].pid : dflt_pid;
		t->tid[i] = cg->parts[i].thread;	/* give_tids makes it a tid */
		t->comm[i] = prog_name(cg->parts[i].cmd, dflt_comm);
		t->parent[i] = -1;
		t->empty[i] = true;
	}
	for (size_t j = 0; j < cg->nr_pins; j++)
		memcpy(t->c[j], cg->pins[j].c, sizeof(t->c[j]));
	take_copies(t, cg, log_prefix);
	for (size_t j = 0; j < cg->nr_pins; j++)
		for (int c = 0; c < CG_NR && t->empty[cg->pins[j].part]; c++)
			if (t->c[j][c])
				t->empty[cg->pins[j].part] = false;
	give_tids(t);
	for (size_t i = 0; i < n; i++) {
		bool new_pid = true, new_tid = true;

		t->nr_copies += t->parent[i] >= 0 && t->parent[i] != (int32_t)i;
		if (t->empty[i])
			continue;
		for (size_t k = 0; k < i; k++)
			if (!t->empty[k] && t->pid[k] == t->pid[i]) {
				new_pid = false;
				new_tid = new_tid && t->tid[k] != t->tid[i];
			}
		t->nr_procs += new_pid;
		t->nr_threads += new_tid;
	}
}

void model_tasks__exit(struct model_tasks *t)
{
	if (t->comm)
		gx_free_strv(t->comm, t->nr);
	free(t->pid);
	free(t->tid);
	free(t->parent);
	free(t->empty);
	free(t->c);
	memset(t, 0, sizeof(*t));
}
