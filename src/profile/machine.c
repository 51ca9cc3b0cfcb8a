/*
 * The machine a recording was made on, as the records describe it: its
 * threads (tid -> pid, name) and each process's memory maps.
 */
#include "config.h"

#include "profile-int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void machine__init(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	u64map__init(&m->thread_idx);
	u64map__init(&m->proc_idx);
	strtab__init(&m->strs);
	m->str_unknown = strtab__intern(&m->strs, "[unknown]");
	m->str_kernel = strtab__intern(&m->strs, "[kernel.kallsyms]");
	m->str_hv = strtab__intern(&m->strs, "[hypervisor]");
}

void machine__exit(struct machine *m)
{
	for (size_t i = 0; i < m->nr_procs; i++)
		free(m->procs[i].maps);
	free(m->procs);
	free(m->kernel.maps);
	free(m->threads);
	u64map__exit(&m->thread_idx);
	u64map__exit(&m->proc_idx);
	strtab__exit(&m->strs);
}

struct mproc *machine__findnew_proc(struct machine *m, uint32_t pid)
{
	uint64_t *slot = u64map__findnew(&m->proc_idx, pid, UINT64_MAX);

	if (*slot == UINT64_MAX) {
		m->procs = xgrow(m->procs, &m->procs_cap, m->nr_procs + 1, sizeof(*m->procs));
		memset(&m->procs[m->nr_procs], 0, sizeof(*m->procs));
		m->procs[m->nr_procs].pid = pid;
		m->procs[m->nr_procs].comm = m->str_unknown;
		m->procs[m->nr_procs].space = ++m->last_space;
		*slot = m->nr_procs++;
	}
	return &m->procs[*slot];
}

struct mthread *machine__findnew_thread(struct machine *m, uint32_t pid, uint32_t tid)
{
	uint64_t *slot = u64map__findnew(&m->thread_idx, tid, UINT64_MAX);
	struct mthread *t;

	if (*slot == UINT64_MAX) {
		m->threads = xgrow(m->threads, &m->threads_cap, m->nr_threads + 1,
				   sizeof(*m->threads));
		t = &m->threads[m->nr_threads];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->pid = pid;
		t->comm = machine__findnew_proc(m, pid)->comm;
		t->row[0] = t->row[1] = t->row[2] = UINT32_MAX;
		*slot = m->nr_threads++;
	}
	t = &m->threads[*slot];
	if (pid != t->pid && pid != UINT32_MAX && pid != 0)
		t->pid = pid;	/* tid reuse across processes: the latest wins */
	return t;
}

/* Insert [start, end) for a process, trimming what it overlaps. */
static void mproc__insert(struct mproc *p, const struct mmap_ent *e)
{
	size_t i, o = 0;
	struct mmap_ent split;
	bool has_split = false;

	for (i = 0; i < p->nr_maps; i++) {
		struct mmap_ent cur = p->maps[i];

		if (cur.end <= e->start || cur.start >= e->end) {
			p->maps[o++] = cur;
			continue;
		}
		if (cur.start < e->start && cur.end > e->end) {	/* e splits cur */
			split = cur;
			split.pgoff += e->end - cur.start;
			split.start = e->end;
			has_split = true;
			cur.end = e->start;
			p->maps[o++] = cur;
		} else if (cur.start < e->start) {
			cur.end = e->start;
			p->maps[o++] = cur;
		} else if (cur.end > e->end) {
			cur.pgoff += e->end - cur.start;
			cur.start = e->end;
			p->maps[o++] = cur;
		}
	}
	p->nr_maps = o;
	p->maps = xgrow(p->maps, &p->maps_cap, p->nr_maps + 2, sizeof(*p->maps));
	if (has_split)
		p->maps[p->nr_maps++] = split;
	/* Keep sorted by start: insertion sort of the new entry. */
	i = p->nr_maps++;
	while (i > 0 && p->maps[i - 1].start > e->start) {
		p->maps[i] = p->maps[i - 1];
		i--;
	}
	p->maps[i] = *e;
	if (has_split) {
		/* the split piece was appended before e; re-sort the tail */
		for (size_t k = 1; k < p->nr_maps; k++)
			for (size_t j = k; j > 0 && p->maps[j - 1].start > p->maps[j].start; j--) {
				struct mmap_ent t = p->maps[j];

				p->maps[j] = p->maps[j - 1];
				p->maps[j - 1] = t;
			}
	}
}

void machine__add_mmap(struct machine *m, const struct pd_mmap *mm, struct sym_dso *dso,
		       const uint8_t *build_id, size_t build_id_size)
{
	struct mproc *p;
	struct mmap_ent e = {
		.dso = dso,
		.start = mm->start,
		.end = mm->start + mm->len,
		.pgoff = mm->pgoff,
	};

	if (build_id && build_id_size) {
		e.build_id_size = (uint8_t)(build_id_size > 20 ? 20 : build_id_size);
		memcpy(e.build_id, build_id, e.build_id_size);
	}

	if (mm->len == 0 || e.end < e.start)
		return;
	if (mm->filename && !strncmp(mm->filename, "[kernel.kallsyms]", 17))
		e.module = m->str_kernel;	/* "[kernel.kallsyms]_text" */
	else
		e.module = strtab__intern(&m->strs, mm->filename ? mm->filename : "[unknown]");
	if ((mm->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
	    mm->pid == UINT32_MAX) {
		/* kernel and module maps: one shared address space */
		mproc__insert(&m->kernel, &e);
		return;
	}
	p = machine__findnew_proc(m, mm->pid);
	mproc__insert(p, &e);
	p->space = ++m->last_space;
}

const struct mmap_ent *mproc__find_map(const struct mproc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else if (p->maps[mid].start > addr)
			hi = mid;
		else
			return &p->maps[mid];
	}
	return NULL;
}

void machine__comm(struct machine *m, const struct pd_comm *c)
{
	uint32_t id = strtab__intern(&m->strs, c->comm);
	struct mthread *t = machine__findnew_thread(m, c->pid, c->tid);
	struct mproc *p = machine__findnew_proc(m, c->pid);

	t->comm = id;
	t->own_comm = true;
	if (c->pid == c->tid || p->comm == m->str_unknown)
		p->comm = id;
	if (c->exec && c->pid == c->tid) {
		p->nr_maps = 0;	/* exec replaced the address space */
		p->space = ++m->last_space;
	}
}

void machine__fork(struct machine *m, const struct pd_task *f)
{
	struct mthread *parent = machine__findnew_thread(m, f->ppid, f->ptid);
	uint32_t comm = parent->own_comm ? parent->comm : machine__findnew_proc(m, parent->pid)->comm;
	struct mthread *child = machine__findnew_thread(m, f->pid, f->tid);

	child->comm = comm;
	child->own_comm = true;
	if (f->pid != f->ppid) {
		/* a new process: it starts with a copy of the parent's maps */
		struct mproc *pp = machine__findnew_proc(m, f->ppid);
		struct mproc *cp = machine__findnew_proc(m, f->pid);

		pp = machine__findnew_proc(m, f->ppid);	/* cp may have moved the array */
		cp->comm = comm;
		cp->maps = xgrow(cp->maps, &cp->maps_cap, pp->nr_maps, sizeof(*cp->maps));
		if (pp->nr_maps)
			memcpy(cp->maps, pp->maps, pp->nr_maps * sizeof(*cp->maps));
		cp->nr_maps = pp->nr_maps;
		cp->space = pp->space;	/* the same code where the parent has it */
	}
}
