/*
 * tui-model.c: what the views show — rows per kind with per-event
 * estimates, their top-down results (evaluated lazily, on first view),
 * grid columns, sort and filter state. Knows nothing of the views; the
 * real result is loaded by tui-load.c, the tests build one by hand.
 */
#include "config.h"

#include "tui-int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tui_kind_name(enum tui_kind k)
{
	static const char *const n[TK_NR_] = { "functions", "lines", "modules", "threads",
						 "processes" };

	return (unsigned)k < TK_NR_ ? n[k] : "?";
}

struct tui_model *tui_model__new(size_t nr_events, const char *const *names)
{
	struct tui_model *m = xzalloc(sizeof(*m));

	m->nr_events = nr_events;
	m->event_names = xcalloc(nr_events + 1, sizeof(char *));
	m->precise = xcalloc(nr_events + 1, sizeof(int));
	m->fixed = xcalloc(nr_events + 1, sizeof(bool));
	for (size_t i = 0; i < nr_events; i++)
		m->event_names[i] = xstrdup(names[i] ? names[i] : "?");
	m->focus_node = -1;
	m->region = -1;
	m->off_ev = -1;
	return m;
}

void tui_model__set_events(struct tui_model *m, size_t nr_events, const char *const *names)
{
	gx_free_strv(m->event_names, m->nr_events);
	free(m->precise);
	free(m->fixed);
	m->nr_events = nr_events;
	m->event_names = xcalloc(nr_events + 1, sizeof(char *));
	m->precise = xcalloc(nr_events + 1, sizeof(int));
	m->fixed = xcalloc(nr_events + 1, sizeof(bool));
	for (size_t i = 0; i < nr_events; i++)
		m->event_names[i] = xstrdup(names[i] ? names[i] : "?");
}

const char *tui_model__str(struct tui_model *m, const char *s)
{
	if (m->nr_owned == m->cap_owned) {
		m->cap_owned = m->cap_owned ? 2 * m->cap_owned : 64;
		m->owned = xrealloc(m->owned, m->cap_owned * sizeof(char *));
	}
	m->owned[m->nr_owned] = xstrdup(s ? s : "");
	return m->owned[m->nr_owned++];
}

struct tui_row *tui_model__add_row(struct tui_model *m, enum tui_kind k, const char *name)
{
	return tui_table__add_row(m, &m->tab[k], name);
}

struct tui_row *tui_table__add_row(struct tui_model *m, struct tui_table *t, const char *name)
{
	struct tui_row *r;

	/* Tables grow by powers of two: nr is the size. */
	if ((t->nr & (t->nr - 1)) == 0)
		t->rows = xrealloc(t->rows, (t->nr ? 2 * t->nr : 1) * sizeof(*t->rows));
	r = &t->rows[t->nr++];
	memset(r, 0, sizeof(*r));
	r->name = tui_model__str(m, name);
	r->module = r->file = "";
	r->func = -1;
	r->reliability = NAN;
	r->total = NAN;
	r->off_s = NAN;
	r->mem_lat = NAN;
	r->period = xcalloc(m->nr_events + 1, sizeof(double));
	r->samples = xcalloc(m->nr_events + 1, sizeof(uint64_t));
	return r;
}

void tui_model__add_hint(struct tui_model *m, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	strbuf__addstr(&sb, buf);
	m->hints = xrealloc(m->hints, (m->nr_hints + 2) * sizeof(char *));
	m->hints[m->nr_hints++] = strbuf__detach(&sb);
	m->hints[m->nr_hints] = NULL;
}

void tui_model__add_confidence(struct tui_model *m, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	m->confidence = xrealloc(m->confidence, (m->nr_confidence + 1) * sizeof(char *));
	m->confidence[m->nr_confidence++] = xstrdup(buf);
}

void tui_model__set_topdown(struct tui_model *m, const struct td_model *td, const int *ev_map,
			    const double *run_counts)
{
	m->td = td;
	m->ev_map = xcalloc(m->nr_events + 1, sizeof(int));
	memcpy(m->ev_map, ev_map, m->nr_events * sizeof(int));
	m->run_ok = td_eval(td, run_counts, &m->ctx, &m->run, NULL) == 0;
	if (m->run_ok) {
		for (char **h = m->run.hints; h && *h; h++)
			tui_model__add_hint(m, "%s", *h);
		m->focus_node = m->run.bottleneck;
	}
}

static void row__exit(struct tui_row *r)
{
	free(r->period);
	free(r->samples);
	if (r->td_done && r->td_ok)
		td_result__exit(&r->td);
}

void tui_table__clear(struct tui_table *t)
{
	for (size_t i = 0; i < t->nr; i++)
		row__exit(&t->rows[i]);
	free(t->rows);
	t->rows = NULL;
	t->nr = 0;
}

static void tree_free(struct tui_tree **t)
{
	if (*t) {
		tui_tree__exit(*t);
		free(*t);
		*t = NULL;
	}
}

/* The call tree is rebuilt: the old one stays while a view may hold it. */
static void retire_calltree(struct tui_model *m)
{
	if (!m->calltree)
		return;
	if (m->old_calltree)
		tree_free(&m->calltree);
	m->old_calltree = m->calltree;
	m->calltree = NULL;
}

void tui_model__clear_tables(struct tui_model *m)
{
	/* The views hold rows of the tables they last saw: those wait for
	 * tui_model__drop_old; tables made since (two rebuilds between two
	 * syncs) no view has seen. */
	if (!m->has_old) {
		memcpy(m->old_tab, m->tab, sizeof(m->tab));
		memset(m->tab, 0, sizeof(m->tab));
		m->has_old = true;
	}
	for (int k = 0; k < TK_NR_; k++)
		tui_table__clear(&m->tab[k]);
	free(m->paths);
	free(m->path_funcs);
	m->paths = NULL;
	m->path_funcs = NULL;
	m->nr_paths = 0;
	retire_calltree(m);
}

void tui_model__drop_old(struct tui_model *m)
{
	for (int k = 0; k < TK_NR_; k++)
		tui_table__clear(&m->old_tab[k]);
	m->has_old = false;
	tree_free(&m->old_calltree);
}

const struct tui_table *tui_model__old_table(const struct tui_model *m, enum tui_kind k)
{
	return m->has_old ? &m->old_tab[k] : &m->tab[k];
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

void tui_rkey__of(struct tui_rkey *k, enum tui_kind kind, const struct tui_row *r)
{
	k->kind = kind;
	k->name = r->name;
	k->module = nz(r->module);
	k->file = nz(r->file);
	k->line = r->line;
	/* a command's row: its first process differs from range to range */
	k->tid = kind == TK_THREAD ? r->tid : 0;
}

bool tui_rkey__is(const struct tui_rkey *k, const struct tui_row *r)
{
	return (k->kind != TK_THREAD || r->tid == k->tid) && r->line == k->line &&
	       !strcmp(r->name, k->name) && !strcmp(nz(r->module), k->module) &&
	       !strcmp(nz(r->file), k->file);
}

int tui_table__find(const struct tui_table *t, const struct tui_rkey *k)
{
	for (size_t i = 0; i < t->nr; i++)
		if (tui_rkey__is(k, &t->rows[i]))
			return (int)i;
	return -1;
}

void tui_model__old_fkey(const struct tui_model *m, size_t func, struct tui_rkey *k)
{
	const struct tui_table *t = tui_model__old_table(m, TK_FUNC);

	memset(k, 0, sizeof(*k));
	k->kind = TK_FUNC;
	k->name = k->module = k->file = "";
	if (func < t->nr)
		tui_rkey__of(k, TK_FUNC, &t->rows[func]);
}

int tui_model__refind_func(const struct tui_model *m, size_t func)
{
	struct tui_rkey k;

	tui_model__old_fkey(m, func, &k);
	return tui_table__find(&m->tab[TK_FUNC], &k);
}

static double compute_total(const struct tui_model *m);

void tui_model__tables_changed(struct tui_model *m)
{
	m->total_clk = compute_total(m);
	m->generation++;
	retire_calltree(m);
	for (int k = 0; k < TK_NR_; k++)
		for (size_t i = 0; i < m->tab[k].nr; i++) {
			struct tui_row *r = &m->tab[k].rows[i];

			if (r->td_done && r->td_ok)
				td_result__exit(&r->td);
			r->td_done = false;
		}
}

void tui_model__delete(struct tui_model *m)
{
	if (!m)
		return;
	tui_model__clear_tables(m);
	tui_model__drop_old(m);
	gx_free_strv(m->event_names, m->nr_events);
	free(m->precise);
	free(m->fixed);
	free(m->offspans);
	gx_free_strv(m->hints, m->nr_hints);
	gx_free_strv(m->confidence, m->nr_confidence);
	if (m->run_ok)
		td_result__exit(&m->run);
	td_model__delete(m->td_own);
	free(m->ev_map);
	free(m->ev_weight);
	free(m->run_lo);
	free(m->run_hi);
	free(m->td_why);
	free(m->ts);
	free(m->threads);
	for (char **n = m->thread_names; n && *n; n++)
		free(*n);
	free(m->thread_names);
	free(m->regions);
	free(m->region_names);
	free(m->thr_times);
	free(m->thr_off);
	free(m->ips);
	free(m->ts_ip);
	tui_disasm__exit(&m->disasm_last);
	tui_model__delete(m->base);
	free(m->base_title);
	for (size_t i = 0; i < m->nr_src; i++) {
		for (char **l = m->src_lines[i]; l && *l; l++)
			free(*l);
		free(m->src_lines[i]);
		free(m->src_names[i]);
	}
	free(m->src_lines);
	free(m->src_why);
	free(m->src_names);
	gx_free_strv(m->owned, m->nr_owned);
	free(m->title);
	free(m->command);
	free(m->ended);
	free(m->cpu_desc);
	free(m->model_id);
	free(m->smt);
	free(m->mux);
	free(m);
}

const struct td_result *tui_row__td(struct tui_model *m, struct tui_row *r)
{
	double *c, *w;
	size_t ne;

	if (!m->td)
		return NULL;
	if (r->td_done)
		return r->td_ok ? &r->td : NULL;
	ne = td_model__nr_events(m->td);
	c = xcalloc(ne + 1, sizeof(double));
	for (size_t i = 0; i < ne; i++)
		c[i] = NAN;
	/* copies of one event (in several groups) each estimate the whole:
	 * their mean, weighted by the share of the run each counted */
	w = xcalloc(ne + 1, sizeof(double));
	for (size_t e = 0; e < m->nr_events; e++) {
		int me = m->ev_map[e];
		double we = m->ev_weight ? m->ev_weight[e] : 1.0;

		if (me < 0)
			continue;
		c[me] = isnan(c[me]) ? we * r->period[e] : c[me] + we * r->period[e];
		w[me] += we;
	}
	for (size_t i = 0; i < ne; i++)
		if (!isnan(c[i]) && w[i] > 0)
			c[i] /= w[i];
	free(w);
	r->td_ok = td_eval(m->td, c, &m->ctx, &r->td, NULL) == 0;
	r->td_done = true;
	free(c);
	return r->td_ok ? &r->td : NULL;
}

double tui_model__total(const struct tui_model *m)
{
	return m->total_clk;
}

static double compute_total(const struct tui_model *m)
{
	double t = 0;

	/* The process table covers every sample once. */
	for (size_t i = 0; i < m->tab[TK_PROCESS].nr; i++)
		t += m->tab[TK_PROCESS].rows[i].period[m->clk];
	if (t == 0)
		for (size_t i = 0; i < m->tab[TK_FUNC].nr; i++)
			t += m->tab[TK_FUNC].rows[i].period[m->clk];
	return t;
}

double tui_row__share(const struct tui_model *m, const struct tui_row *r)
{
	double t = tui_model__total(m);

	return t > 0 ? r->period[m->clk] / t : 0;
}

bool tui_row__significant(const struct tui_model *m, const struct tui_row *r)
{
	return td_row_significant(r->period[m->clk], tui_model__total(m));
}

bool tui_model__imprecise(const struct tui_model *m)
{
	return m->nr_events && m->precise[m->clk] == 0 && !m->fixed[m->clk];
}

char **tui_model__source(struct tui_model *m, struct tui_loader *ld, const char *file,
			 const char **why)
{
	char **lines;

	for (size_t i = 0; i < m->nr_src; i++)
		if (!strcmp(m->src_names[i], file)) {
			*why = m->src_why[i];
			return m->src_lines[i];
		}
	*why = "no source available";
	lines = ld && ld->source ? ld->source(ld, file, why) : NULL;
	if (lines)
		*why = NULL;
	m->src_names = xrealloc(m->src_names, (m->nr_src + 1) * sizeof(char *));
	m->src_lines = xrealloc(m->src_lines, (m->nr_src + 1) * sizeof(char **));
	m->src_why = xrealloc(m->src_why, (m->nr_src + 1) * sizeof(char *));
	m->src_why[m->nr_src] = *why;
	m->src_names[m->nr_src] = xstrdup(file);
	m->src_lines[m->nr_src++] = lines;
	return lines;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Index in m->threads of tid, or m->nr_threads. */
static size_t thread_index(const struct tui_model *m, uint32_t tid)
{
	size_t lo = 0, hi = m->nr_threads;

	while (lo < hi) {	/* threads are sorted by tid */
		size_t mid = (lo + hi) / 2;

		if (m->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr_threads && m->threads[lo].tid == tid ? lo : m->nr_threads;
}

/* Whether m->ts is in time order: one pass per number of samples. */
static bool ts_sorted(struct tui_model *m)
{
	if (m->ts_checked != m->nr_ts + 1) {
		m->ts_sorted = true;
		for (size_t i = 1; i < m->nr_ts && m->ts_sorted; i++)
			m->ts_sorted = m->ts[i].time >= m->ts[i - 1].time;
		m->ts_checked = m->nr_ts + 1;
	}
	return m->ts_sorted;
}

void tui_model__index_times(struct tui_model *m)
{
	size_t nt = m->nr_threads, *fill;
	uint32_t last_tid = UINT32_MAX;
	size_t last = nt;

	if (m->thr_off)
		return;
	m->ts_sorted = true;	/* found out in the pass below */
	m->thr_off = xcalloc(nt + 2, sizeof(size_t));
	/* counting sort by thread: samples come in time order, mostly */
	for (int pass = 0; pass < 2; pass++) {
		fill = pass ? xcalloc(nt + 1, sizeof(size_t)) : NULL;
		if (pass) {
			for (size_t t = 0; t < nt; t++)
				m->thr_off[t + 1] += m->thr_off[t];
			memcpy(fill, m->thr_off, nt * sizeof(size_t));
			m->thr_times = xcalloc(m->thr_off[nt] + 1, sizeof(uint64_t));
		}
		for (size_t i = 0; i < m->nr_ts; i++) {
			const struct tui_tsample *x = &m->ts[i];

			if (!pass && i && x->time < x[-1].time)
				m->ts_sorted = false;
			if (x->evsel != m->clk || !x->time)
				continue;
			if (x->tid != last_tid) {
				last_tid = x->tid;
				last = thread_index(m, x->tid);
			}
			if (last == nt)
				continue;
			if (pass)
				m->thr_times[fill[last]++] = x->time;
			else
				m->thr_off[last + 1]++;
		}
		free(fill);
	}
	m->ts_checked = m->nr_ts + 1;
	for (size_t t = 0; t < nt; t++) {
		uint64_t *a = m->thr_times + m->thr_off[t];
		size_t n = m->thr_off[t + 1] - m->thr_off[t];

		for (size_t i = 1; i < n; i++)
			if (a[i] < a[i - 1]) {
				gx_qsort(a, n, sizeof(*a), cmp_u64);
				break;
			}
	}
}

static uint64_t ip_hash(uint64_t ip, uint32_t pid)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ pid;

	return h ^ (h >> 31);
}

/* An entry of the address index while it is made: its insertion order. */
struct ipent {
	struct tui_iphist h;
	uint32_t id;
};

static int cmp_ipent(const void *a, const void *b)
{
	const struct tui_iphist *x = &((const struct ipent *)a)->h;
	const struct tui_iphist *y = &((const struct ipent *)b)->h;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* (ip, pid)'s entry in the open-addressing table h of cap entries. */
static struct ipent *ipent_find(struct ipent *h, size_t cap, uint64_t ip, uint32_t pid)
{
	size_t k = ip_hash(ip, pid) & (cap - 1);

	while (h[k].h.count && (h[k].h.ip != ip || h[k].h.pid != pid))
		k = (k + 1) & (cap - 1);
	return &h[k];
}

void tui_model__index_ips(struct tui_model *m)
{
	size_t cap = 4096, n = 0;
	struct ipent *h;
	uint32_t *pos;

	if (m->ips)
		return;
	/* one pass: each clock sample's entry by insertion order, then the
	 * entries sorted by address and the samples' ids made positions */
	h = xcalloc(cap, sizeof(*h));
	m->ts_ip = xmalloc((m->nr_ts + 1) * sizeof(*m->ts_ip));
	for (size_t i = 0; i < m->nr_ts; i++) {
		const struct tui_tsample *x = &m->ts[i];
		struct ipent *e;

		m->ts_ip[i] = UINT32_MAX;
		if (x->evsel != m->clk)
			continue;
		if (2 * (n + 1) > cap) {	/* grow: rehash the entries */
			struct ipent *old = h;

			h = xcalloc(2 * cap, sizeof(*h));
			for (size_t j = 0; j < cap; j++)
				if (old[j].h.count)
					*ipent_find(h, 2 * cap, old[j].h.ip, old[j].h.pid) = old[j];
			cap *= 2;
			free(old);
		}
		e = ipent_find(h, cap, x->ip, x->pid);
		if (!e->h.count) {
			e->h.ip = x->ip;
			e->h.pid = x->pid;
			e->id = (uint32_t)n++;
		}
		e->h.count++;
		e->h.period += x->period_lo;
		m->ts_ip[i] = e->id;
	}
	for (size_t j = 0, k = 0; j < cap; j++)	/* pack */
		if (h[j].h.count)
			h[k++] = h[j];
	gx_qsort(h, n, sizeof(*h), cmp_ipent);
	pos = xmalloc((n + 1) * sizeof(*pos));
	m->ips = xcalloc(n + 1, sizeof(*m->ips));
	for (size_t k = 0; k < n; k++) {
		m->ips[k] = h[k].h;
		pos[h[k].id] = (uint32_t)k;
	}
	m->nr_ips = n;
	for (size_t i = 0; i < m->nr_ts; i++)
		if (m->ts_ip[i] != UINT32_MAX)
			m->ts_ip[i] = pos[m->ts_ip[i]];
	free(pos);
	free(h);
}

/* First sample at or after time t, when the samples are in time order. */
static size_t first_at(const struct tui_model *m, uint64_t t)
{
	size_t lo = 0, hi = m->nr_ts;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->ts[mid].time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t tui_model__ip_histogram(struct tui_model *m, uint64_t lo, uint64_t hi, bool narrowed,
			       struct tui_iphist **out)
{
	size_t from = 0, to = m->nr_ts, nr = 0;
	/* in time order, [from, to) is the range; a region is per thread */
	bool keeps_all = m->region < 0 && (!m->range_hi || (m->range_lo == lo && m->range_hi == hi));
	bool check = (narrowed && !keeps_all) || (hi && !ts_sorted(m));
	uint32_t *count;
	uint64_t *period;
	struct tui_iphist *h;

	tui_model__index_ips(m);
	if (hi && ts_sorted(m)) {
		from = first_at(m, lo);
		to = first_at(m, hi + 1);
	}
	/* a count per entry of the whole run's index */
	count = xcalloc(m->nr_ips + 1, sizeof(*count));
	period = xcalloc(m->nr_ips + 1, sizeof(*period));
	for (size_t i = from; i < to; i++) {
		uint32_t x = m->ts_ip[i];
		const struct tui_tsample *s;

		if (x == UINT32_MAX)
			continue;
		s = &m->ts[i];
		if (check && ((hi && (s->time < lo || s->time > hi)) ||
			      (narrowed && !tui_model__keeps(m, s->tid, s->time))))
			continue;
		count[x]++;
		period[x] += s->period_lo;
	}
	h = xcalloc(m->nr_ips + 1, sizeof(*h));
	for (size_t j = 0; j < m->nr_ips; j++)
		if (count[j]) {
			h[nr] = m->ips[j];
			h[nr].period = period[j];
			h[nr++].count = count[j];
		}
	free(count);
	free(period);
	*out = h;
	return nr;
}

static void disasm_copy(struct tui_disasm *to, const struct tui_disasm *from)
{
	memset(to, 0, sizeof(*to));
	to->nr = from->nr;
	to->flow = from->flow;
	to->insns = xcalloc(from->nr + 1, sizeof(*to->insns));
	if (from->nr)
		memcpy(to->insns, from->insns, from->nr * sizeof(*from->insns));
	if (from->why_owned) {
		to->why_owned = xstrdup(from->why_owned);
		to->why = to->why_owned;
	} else {
		to->why = from->why;
	}
}

int tui_model__disasm(struct tui_model *m, struct tui_loader *ld, size_t func,
		      struct tui_disasm *out)
{
	memset(out, 0, sizeof(*out));
	if (!ld || !ld->disasm)
		return -1;
	if (!m->disasm_cached || m->disasm_func != func || m->disasm_gen != m->generation) {
		tui_disasm__exit(&m->disasm_last);
		if (ld->disasm(ld, m, func, &m->disasm_last) != 0) {
			m->disasm_cached = false;
			return -1;
		}
		m->disasm_cached = true;
		m->disasm_func = func;
		m->disasm_gen = m->generation;
	}
	disasm_copy(out, &m->disasm_last);
	return 0;
}

void tui_disasm__exit(struct tui_disasm *d)
{
	free(d->insns);
	free(d->why_owned);
	memset(d, 0, sizeof(*d));
}

int tui_disasm__culprit(const struct tui_disasm *d, size_t i, const char **why)
{
	if (i > 0 && d->insns[i - 1].is_load) {
		*why = "the load";
		return (int)i - 1;
	}
	for (size_t k = 0; k < d->nr; k++)
		if (d->insns[k].is_branch && d->insns[k].target == d->insns[i].addr && k + 1 != i) {
			*why = "a branch to it";
			return (int)k;
		}
	if (i > 0 && d->insns[i - 1].is_branch) {
		*why = "the branch before it";
		return (int)i - 1;
	}
	return -1;
}

/* ---- grid columns ------------------------------------------------------- */

void tui_short_node_name(const char *name, char *buf, size_t n)
{
	size_t l = strlen(name);

	if (l > 6 && !strcmp(name + l - 6, "_Bound"))
		l -= 6;
	else if (!strcmp(name, "Bad_Speculation"))
		l = 8;
	snprintf(buf, n, "%.*s", (int)l, name);
}

/* The delta column of cols[src] right after it, when there is a baseline. */
static void add_delta_col(struct tui_model *m, struct tui_col *cols, size_t *n, size_t max,
			  size_t src)
{
	char name[sizeof(cols->name)];

	if (!m->base || *n >= max)
		return;
	if (cols[src].kind == TC_NODE &&
	    (!m->base->td || strcmp(td_model__id(m->base->td), td_model__id(m->td))))
		return;	/* another model: its nodes are not ours */
	snprintf(name, sizeof(name), "d%.10s", cols[src].name);
	cols[*n] = cols[src];
	cols[*n].delta = true;
	memcpy(cols[*n].name, name, sizeof(name));
	cols[*n].prio = 1;
	(*n)++;
}

static void add_node_col(struct tui_model *m, struct tui_col *cols, size_t *n, size_t max,
			 int node, int prio)
{
	const struct td_node *nd = td_model__node(m->td, (size_t)node);

	for (size_t i = 0; i < *n; i++)
		if (cols[i].kind == TC_NODE && cols[i].node == node)
			return;
	if (*n >= max)
		return;
	cols[*n].kind = TC_NODE;
	cols[*n].node = node;
	tui_short_node_name(nd->name, cols[*n].name, sizeof(cols[*n].name));
	cols[*n].width = 9;
	cols[*n].prio = prio;
	(*n)++;
}

static void add_text_cols(struct tui_model *m, enum tui_kind k, struct tui_col *cols,
			  size_t *n, size_t max)
{
	(void)m;
	if ((k == TK_FUNC || k == TK_LINE) && *n + 1 < max) {
		cols[*n].kind = TC_MODULE;
		snprintf(cols[*n].name, sizeof(cols[*n].name), "Module");
		cols[*n].width = 14;
		cols[(*n)++].prio = 3;
	}
	if (*n < max) {
		cols[*n].kind = TC_NAME;
		snprintf(cols[*n].name, sizeof(cols[*n].name), "name");
		cols[*n].width = 0;
		cols[(*n)++].prio = 0;
	}
}

static size_t number_cols(struct tui_model *m, enum tui_kind k, struct tui_col *cols,
			  size_t max);

size_t tui_model__columns(struct tui_model *m, enum tui_kind k, struct tui_col *cols,
			  size_t max)
{
	size_t n;

	if (max < 4)
		return 0;
	memset(cols, 0, max * sizeof(*cols));
	n = number_cols(m, k, cols, max - 2);
	add_text_cols(m, k, cols, &n, max);
	return n;
}

static size_t number_cols(struct tui_model *m, enum tui_kind k, struct tui_col *cols,
			  size_t max)
{
	size_t n = 0;
	int cpi;

	cols[n].kind = TC_SHARE;
	snprintf(cols[n].name, sizeof(cols[n].name), "%s", m->clk_is_cycles ? "Cycles%" : "Time%");
	cols[n].width = 8;
	cols[n++].prio = 0;
	add_delta_col(m, cols, &n, max, 0);
	/* with call stacks: the share with the row anywhere on the stack */
	if (m->has_callchains && (k == TK_FUNC || k == TK_LINE || k == TK_MODULE) && n < max) {
		cols[n].kind = TC_TOTAL;
		snprintf(cols[n].name, sizeof(cols[n].name), "Total%%");
		cols[n].width = 8;
		cols[n++].prio = 1;
	}
	cols[n].kind = TC_SAMPLES;
	snprintf(cols[n].name, sizeof(cols[n].name), "Samples");
	cols[n].width = 7;
	cols[n++].prio = 3;
	if (m->has_offcpu && (k == TK_FUNC || k == TK_THREAD) && n < max) {
		cols[n].kind = TC_OFFCPU;
		snprintf(cols[n].name, sizeof(cols[n].name), "OffCPU");
		cols[n].width = 8;
		cols[n++].prio = 2;
	}
	if (m->has_mux_rows && n < max) {
		cols[n].kind = TC_MUX;
		snprintf(cols[n].name, sizeof(cols[n].name), "MUX");
		cols[n].width = 5;
		cols[n++].prio = 3;
	}
	if (!m->td || !m->run_ok)
		return n;
	cpi = td_model__find_node(m->td, "CPI");
	if (cpi >= 0) {
		add_node_col(m, cols, &n, max, cpi, 1);
		if (n && cols[n - 1].kind == TC_NODE && cols[n - 1].node == cpi)
			add_delta_col(m, cols, &n, max, n - 1);
	}
	for (size_t i = 0; i < td_model__nr_nodes(m->td); i++) {
		const struct td_node *nd = td_model__node(m->td, i);

		if (nd->level == 1 && !nd->hidden)
			add_node_col(m, cols, &n, max, (int)i, 2);
	}
	if (m->focus_node >= 0)
		for (size_t i = 0; i < td_model__nr_nodes(m->td); i++) {
			const struct td_node *nd = td_model__node(m->td, i);

			if (nd->parent_idx == m->focus_node && !nd->hidden)
				add_node_col(m, cols, &n, max, (int)i, 4);
		}
	return n;
}

double tui_model__cell(struct tui_model *m, struct tui_row *r, const struct tui_col *c,
		       bool *hot, bool *dim)
{
	const struct td_result *res;
	const struct td_value *x;

	*hot = *dim = false;
	if (c->delta) {
		struct tui_col plain = *c;
		bool h, d;
		double a, b;

		plain.delta = false;
		if (!m->base || !r->base) {
			*dim = true;
			return INFINITY;	/* not in the baseline: "new" */
		}
		a = tui_model__cell(m, r, &plain, &h, &d);
		b = tui_model__cell(m->base, r->base, &plain, &h, &d);
		*dim = isnan(a) || isnan(b) || a == b;
		return a - b;
	}
	switch (c->kind) {
	case TC_SHARE:
		return tui_row__share(m, r);
	case TC_TOTAL:
		return tui_model__total(m) > 0 ?
		       (isnan(r->total) ? r->period[m->clk] : r->total) / tui_model__total(m) : 0;
	case TC_MODULE:
	case TC_NAME:
		return NAN;	/* text: see tui_model__order */
	case TC_SAMPLES:
		return (double)r->samples[m->clk];
	case TC_MUX:
		*dim = isnan(r->reliability) || r->reliability < 0.7;
		return r->reliability;
	case TC_OFFCPU:
		*dim = isnan(r->off_s);
		return r->off_s;
	case TC_NODE:
		res = tui_row__td(m, r);
		if (!res) {
			*dim = true;
			return NAN;
		}
		x = &res->v[c->node];
		if (x->na) {
			*dim = true;
			return NAN;
		}
		*hot = x->flagged && tui_row__significant(m, r);
		*dim = !x->flagged;
		return x->value;
	}
	return NAN;
}

void tui_model__cell_text(const struct tui_model *m, const struct tui_col *c, double v,
			  char *buf, size_t n)
{
	if (isnan(v) || (c->delta && isinf(v))) {
		snprintf(buf, n, isnan(v) ? "n/a" : "new");
		return;
	}
	if (c->delta) {
		if (c->kind == TC_SHARE ||
		    (c->kind == TC_NODE &&
		     td_model__node(m->td, (size_t)c->node)->unit == TD_UNIT_FRACTION))
			snprintf(buf, n, "%+.1f", gx_zero_below(100 * v, 1));	/* points */
		else
			snprintf(buf, n, "%+.2f", gx_zero_below(v, 2));
		return;
	}
	switch (c->kind) {
	case TC_SHARE:
	case TC_TOTAL:
		snprintf(buf, n, "%.1f%%", 100 * v);
		break;
	case TC_MODULE:
	case TC_NAME:
		snprintf(buf, n, "%s", "");
		break;
	case TC_SAMPLES:
		snprintf(buf, n, "%.0f", v);
		break;
	case TC_MUX:
		snprintf(buf, n, "%.2f", v);
		break;
	case TC_OFFCPU:
		snprintf(buf, n, "%.3fs", v);
		break;
	case TC_NODE:
		if (td_model__node(m->td, (size_t)c->node)->unit == TD_UNIT_FRACTION)
			snprintf(buf, n, "%.1f%%", gx_zero_below(100 * v, 1));
		else
			snprintf(buf, n, "%.2f", gx_zero_below(v, 2));
		break;
	}
}

void tui_fmt_value(char *buf, size_t n, const struct td_node *nd, const struct td_value *x)
{
	if (x->na)
		snprintf(buf, n, "n/a");
	else if (nd->unit == TD_UNIT_FRACTION)
		snprintf(buf, n, "%.1f%%", gx_zero_below(100 * x->value, 1));
	else if (nd->unit == TD_UNIT_COUNT)
		snprintf(buf, n, "%.4g", x->value);
	else
		snprintf(buf, n, "%.2f", x->value);
}

/* ---- sort and filter ---------------------------------------------------- */

struct sort_ctx {
	struct tui_model *m;
	struct tui_table *t;
	const struct tui_col *col;
	double *key;
	bool asc;
};

static struct sort_ctx *sort_ctx_;	/* qsort has no context argument */

static int cmp_rows(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = sort_ctx_->key[i], y = sort_ctx_->key[j];
	int c;

	if (tui_col__text(sort_ctx_->col)) {
		const struct tui_row *a_ = &sort_ctx_->t->rows[i], *b_ = &sort_ctx_->t->rows[j];

		c = sort_ctx_->col->kind == TC_MODULE ?
		    strcmp(tui_base_name(a_->module), tui_base_name(b_->module)) :
		    strcmp(a_->name, b_->name);
		if (!c && sort_ctx_->col->kind == TC_MODULE)
			c = strcmp(a_->name, b_->name);
		if (!c)
			c = (a_->line > b_->line) - (a_->line < b_->line);
		if (!c)
			c = (i > j) - (i < j);
		return sort_ctx_->asc ? c : -c;
	}
	/* n/a sorts last in either direction. */
	if (isnan(x) || isnan(y))
		c = isnan(x) - isnan(y);
	else if (x != y)
		c = (x < y ? -1 : 1) * (sort_ctx_->asc ? 1 : -1);
	else
		c = strcmp(sort_ctx_->t->rows[i].name, sort_ctx_->t->rows[j].name);
	if (!c)
		c = (sort_ctx_->t->rows[i].line > sort_ctx_->t->rows[j].line) -
		    (sort_ctx_->t->rows[i].line < sort_ctx_->t->rows[j].line);
	if (!c)
		c = (i > j) - (i < j);
	return c;
}

bool tui_match(const char *s, const char *pattern)
{
	bool fold = true;
	size_t n = strlen(pattern);

	for (const char *p = pattern; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			fold = false;	/* smart case: an upper-case letter means it */
	if (!fold)
		return strstr(s, pattern) != NULL;
	for (; *s; s++) {
		size_t i = 0;

		while (i < n && s[i] && (s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]) == pattern[i])
			i++;
		if (i == n)
			return true;
	}
	return n == 0;
}

static bool row_matches(const struct tui_row *r, const char *f)
{
	return !*f || tui_match(r->name, f) || (r->file && tui_match(r->file, f)) ||
	       (r->module && tui_match(r->module, f));
}

void tui_order__exit(struct tui_order *o)
{
	free(o->idx);
	o->idx = NULL;
	o->nr = 0;
}

void tui_model__order(struct tui_model *m, struct tui_table *t, const struct tui_col *cols,
		      size_t ncols, struct tui_order *o)
{
	struct sort_ctx sc = { m, t, NULL, NULL, o->asc };
	bool hot, dim;

	if (o->sort_col < 0 || (size_t)o->sort_col >= ncols)
		o->sort_col = 0;
	sc.col = &cols[o->sort_col];
	free(o->idx);
	o->idx = xcalloc(t->nr + 1, sizeof(size_t));
	o->nr = 0;
	sc.key = xcalloc(t->nr + 1, sizeof(double));
	for (size_t i = 0; i < t->nr; i++) {
		struct tui_row *r = &t->rows[i];

		/* Rows without a sample of the clock event are noise here,
		 * unless they waited (issue 45: a function that only waited
		 * had no row) */
		if (!r->samples[m->clk] && r->period[m->clk] == 0 && !(r->off_s > 0))
			continue;
		if (!row_matches(r, o->filter))
			continue;
		sc.key[i] = tui_model__cell(m, r, sc.col, &hot, &dim);
		o->idx[o->nr++] = i;
	}
	sort_ctx_ = &sc;
	gx_qsort(o->idx, o->nr, sizeof(size_t), cmp_rows);
	sort_ctx_ = NULL;
	free(sc.key);
}

/* ---- a baseline to compare with ----------------------------------------- */

const char *tui_base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s && s[1] ? s + 1 : path ? path : "";
}

/* A row's identity across results: name, module and source line; with
 * short, file names instead of paths (a module row's name included), so
 * one program built in another directory is the same. */
static void row_key(const struct tui_row *r, enum tui_kind k, bool short_names,
		    struct strbuf *sb)
{
	sb->len = 0;
	if (!short_names)
		strbuf__addf(sb, "%s\x1f%s\x1f%s:%u", r->name, r->module ? r->module : "",
			     r->file ? r->file : "", r->line);
	else
		strbuf__addf(sb, "%s\x1f%s\x1f%s:%u", k == TK_MODULE ? tui_base_name(r->name) : r->name,
			     tui_base_name(r->module), tui_base_name(r->file), r->line);
}

/* Point every row of a without a base yet at its baseline row in b by
 * the key (the hottest of equal keys). */
static void match_pass(struct tui_table *a, const struct tui_table *b, enum tui_kind k,
		       bool short_names, struct strbuf *key)
{
	struct strtab st;
	uint32_t *first = NULL;	/* key id -> baseline row + 1 */
	size_t cap = 0, nr = 0;

	strtab__init(&st);
	for (size_t i = 0; i < b->nr; i++) {
		uint32_t id;

		row_key(&b->rows[i], k, short_names, key);
		id = strtab__intern(&st, key->buf);
		if (id >= nr) {
			first = xgrow(first, &cap, (size_t)id + 1, sizeof(*first));
			memset(first + nr, 0, ((size_t)id + 1 - nr) * sizeof(*first));
			nr = (size_t)id + 1;
		}
		if (!first[id])	/* the first (hottest) of equal names */
			first[id] = (uint32_t)i + 1;
	}
	for (size_t i = 0; i < a->nr; i++) {
		uint32_t id;

		if (a->rows[i].base)
			continue;
		row_key(&a->rows[i], k, short_names, key);
		id = strtab__intern(&st, key->buf);
		a->rows[i].base = id < nr && first[id] ? &b->rows[first[id] - 1] : NULL;
	}
	free(first);
	strtab__exit(&st);
}

void tui_model__match_base(struct tui_model *m)
{
	struct strbuf key = STRBUF_INIT;

	if (!m->base)
		return;
	for (int k = 0; k < TK_NR_; k++) {
		struct tui_table *a = &m->tab[k];

		for (size_t i = 0; i < a->nr; i++)
			a->rows[i].base = NULL;
		/* the same paths first, then the same file names */
		match_pass(a, &m->base->tab[k], (enum tui_kind)k, false, &key);
		match_pass(a, &m->base->tab[k], (enum tui_kind)k, true, &key);
	}
	strbuf__exit(&key);
}

void tui_model__set_base(struct tui_model *m, struct tui_model *base, const char *title)
{
	tui_model__delete(m->base);
	free(m->base_title);
	m->base = base;
	m->base_title = title ? xstrdup(title) : NULL;
	tui_model__match_base(m);
}
