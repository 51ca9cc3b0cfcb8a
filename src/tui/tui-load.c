/*
 * tui-load.c: an opened result (src/result) into the TUI model. The
 * result walks perf.data once into its profile (rows per process, thread,
 * module, function, line and call path) while a thin tap beside it keeps
 * every sample's time, thread and ip (32 bytes each) for the timeline and
 * the disassembly. A time range or a region asks the result for a
 * profile of the samples inside it, which the result totals in memory
 * from the samples its profile kept (keep_samples).
 */
#include "config.h"

#include "tui-int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mux/mux.h"
#include "perfdata/perfdata.h"
#include "profile/profile.h"
#include "result/result.h"

struct tap_tool {
	struct pd_tool tool;		/* first: the reader passes &tool */
	struct tui_model *m;
	struct tui_real *real;
	size_t cap_ts, cap_maps;
};

static int tap_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct tap_tool *tt = (struct tap_tool *)t;
	struct tui_model *m = tt->m;
	struct tui_tsample *x;

	m->ts = xgrow(m->ts, &tt->cap_ts, m->nr_ts + 1, sizeof(*m->ts));
	x = &m->ts[m->nr_ts++];
	x->time = s->time;
	x->ip = s->ip;
	x->pid = s->pid;
	x->tid = s->tid;
	x->evsel = s->evsel;
	x->period_lo = s->period > UINT32_MAX ? UINT32_MAX : (uint32_t)s->period;
	if (s->time && (!m->t_first || s->time < m->t_first))
		m->t_first = s->time;
	if (s->time > m->t_last)
		m->t_last = s->time;
	return 0;
}

static int tap_mmap(struct pd_tool *t, const struct pd_mmap *mm)
{
	struct tap_tool *tt = (struct tap_tool *)t;
	struct tui_real *r = tt->real;
	struct tui_mmap *x;

	r->maps = xgrow(r->maps, &tt->cap_maps, r->nr_maps + 1, sizeof(*r->maps));
	x = &r->maps[r->nr_maps++];
	memset(x, 0, sizeof(*x));
	x->pid = mm->pid;
	x->start = mm->start;
	x->len = mm->len;
	x->pgoff = mm->pgoff;
	x->path = xstrdup(mm->filename ? mm->filename : "");
	if (mm->has_build_id) {
		x->build_id_size = mm->build_id_size > 20 ? 20 : mm->build_id_size;
		memcpy(x->build_id, mm->build_id, x->build_id_size);
	}
	return 0;
}

static void copy_counts(const struct tui_real *real, struct tui_model *m, struct tui_row *row,
			const struct profile_row *pr)
{
	const struct gx_result *res = real ? real->res : NULL;

	for (size_t e = 0; e < m->nr_events; e++) {
		/* multiplexed events saw part of the run: scaled up */
		row->period[e] = res ? gx_result__row_value(res, pr, e) : (double)pr->period[e];
		if (isnan(row->period[e]))	/* counted, never sampled */
			row->period[e] = (double)pr->period[e];
		row->samples[e] = pr->samples[e];
	}
	/* --off-cpu: the off-CPU value with the row anywhere on the stack
	 * (threads: theirs), as every value of the table is carried */
	if (m->off_ev >= 0)
		row->off_s = (double)pr->total_period[m->off_ev] / 1e9;
	/* total: scaled as the row's own period was */
	row->total = (double)pr->total_period[m->clk];
	if (pr->period[m->clk])
		row->total *= row->period[m->clk] / (double)pr->period[m->clk];
	if (res && gx_result__mux(res) && pr->slot_period) {
		double rel = gx_result__row_reliability(res, pr);

		if (!isnan(rel)) {
			row->reliability = rel;
			m->has_mux_rows = true;
		}
	}
}

static void fill_simple(const struct tui_real *real, struct tui_model *m, struct tui_table *tab,
			struct profile *p, enum tui_kind k, enum profile_by by)
{
	size_t nr;
	const struct profile_row *const *rows = profile__rows(p, by, m->clk, &nr);

	for (size_t i = 0; i < nr; i++) {
		struct tui_row *r = tui_table__add_row(m, &tab[k], rows[i]->name);

		r->pid = rows[i]->pid;
		r->tid = rows[i]->tid;
		r->nr_procs = rows[i]->nr_procs;
		copy_counts(real, m, r, rows[i]);
	}
}

/* Row i's memory-access samples (issue 43): its loads' mean latency and
 * the data source with most of it. */
static void mem_of(struct tui_model *m, struct tui_row *r, struct profile *p, enum profile_by by,
		   uint32_t i)
{
	struct profile_mem_source *src;
	size_t n = profile__mem_sources(p, by, i, &src);
	const struct profile_row *pr = profile__row(p, by, i);
	uint64_t w = pr ? profile__row_weight(p, pr) : 0, s = 0;

	/* the weight is the row's value, the loads the sources' */
	for (size_t k = 0; k < n; k++)
		s += src[k].samples;
	if (s) {
		r->mem_lat = (double)w / (double)s;
		r->mem_src = tui_model__str(m, src[0].name);
		m->has_mem = true;
	}
	free(src);
}

/* Row i of a function or line table, with its module and counts; NULL
 * (the row named "?") when the profile has no row i. */
static struct tui_row *add_code_row(const struct tui_real *real, struct tui_model *m,
				    struct tui_table *tab, struct profile *p, enum tui_kind k,
				    enum profile_by by, uint32_t i)
{
	const struct profile_row *pr = profile__row(p, by, i);
	struct tui_row *r = tui_table__add_row(m, &tab[k], pr ? pr->name : "?");

	if (!pr)
		return NULL;
	r->module = tui_model__str(m, pr->module);
	copy_counts(real, m, r, pr);
	mem_of(m, r, p, by, i);
	return r;
}

/* The clock event's period of a profile row, scaled as the rows are. */
static double real_value(const struct tui_real *real, struct tui_model *m,
			 const struct profile_row *pr)
{
	double v = real ? gx_result__row_value(real->res, pr, m->clk) : NAN;

	return isnan(v) ? (double)pr->period[m->clk] : v;
}

/* The model's copy of a command name; consecutive paths of one process
 * share it. */
static const char *comm_of(struct tui_model *m, const char *name)
{
	if (m->nr_paths > 1 && !strcmp(m->paths[m->nr_paths - 2].comm, name))
		return m->paths[m->nr_paths - 2].comm;
	return tui_model__str(m, name);
}

/* Function and line rows into tab[]. */
static void fill_code(const struct tui_real *real, struct tui_model *m, struct tui_table *tab,
		      struct profile *p)
{
	size_t nf, nl;

	profile__rows(p, PROFILE_BY_FUNCTION, m->clk, &nf);
	/* Function rows in index order, so line rows can name theirs. */
	for (uint32_t i = 0; i < nf; i++)
		add_code_row(real, m, tab, p, TK_FUNC, PROFILE_BY_FUNCTION, i);
	profile__rows(p, PROFILE_BY_LINE, m->clk, &nl);
	for (uint32_t i = 0; i < nl; i++) {
		const struct profile_row *pr = profile__row(p, PROFILE_BY_LINE, i);
		struct tui_row *r = add_code_row(real, m, tab, p, TK_LINE, PROFILE_BY_LINE, i);

		if (!r)
			continue;
		r->file = tui_model__str(m, pr->file);
		r->line = pr->line;
		r->func = (int32_t)pr->function;
	}
}

static void fill_hotspots(const struct tui_real *real, struct tui_model *m, struct profile *p)
{
	size_t nc;

	fill_code(real, m, m->tab, p);
	m->has_callchains = profile__has_callchains(p);
	profile__rows(p, PROFILE_BY_CALLPATH, m->clk, &nc);
	m->paths = xcalloc(nc + 1, sizeof(*m->paths));
	for (uint32_t i = 0, nf_all = 0, pass = 0; pass < 2; pass++) {
		/* pass 0 sizes the block of function indexes, pass 1 fills it */
		if (pass == 1)
			m->path_funcs = xcalloc(nf_all + 1, sizeof(*m->path_funcs));
		nf_all = 0;
		for (i = 0; i < nc; i++) {
			const struct profile_row *pr = profile__row(p, PROFILE_BY_CALLPATH, i);
			struct tui_path *tp;

			if (!pr || !pr->period[m->clk] || !pr->path_len)
				continue;
			if (pass == 0) {
				nf_all += pr->path_len;
				continue;
			}
			tp = &m->paths[m->nr_paths++];
			memcpy(m->path_funcs + nf_all, pr->path, pr->path_len * sizeof(*pr->path));
			tp->func = m->path_funcs + nf_all;
			tp->len = pr->path_len;
			nf_all += pr->path_len;
			tp->comm = comm_of(m, pr->name);
			tp->period = real_value(real, m, pr);
			tp->samples = pr->samples[m->clk];
		}
	}
}

static void fill_tables(const struct tui_real *real, struct tui_model *m, struct profile *p)
{
	/* one row per command */
	fill_simple(real, m, m->tab, p, TK_PROCESS, PROFILE_BY_COMMAND);
	fill_simple(real, m, m->tab, p, TK_THREAD, PROFILE_BY_THREAD);
	fill_simple(real, m, m->tab, p, TK_MODULE, PROFILE_BY_MODULE);
	fill_hotspots(real, m, p);
	tui_model__tables_changed(m);
}

static int refilter(struct tui_loader *ld, struct tui_model *m, uint64_t lo, uint64_t hi,
		    char **cause)
{
	struct tui_real *real = (struct tui_real *)ld;
	struct profile *p;
	int err = gx_result__profile_range(real->res, lo, hi, &p, cause);

	if (err)
		return err;
	tui_model__clear_tables(m);
	fill_tables(real, m, p);
	tui_model__match_base(m);
	m->range_lo = lo;
	m->range_hi = hi;
	m->region = -1;
	profile__delete(p);
	return 0;
}

struct thread_ctx {
	const struct tui_model *m;
	uint32_t tid;
};

static bool keep_thread(void *ctx, uint32_t tid, uint64_t time)
{
	const struct thread_ctx *c = ctx;

	/* the time range is profile__subset's own (a wait that began before
	 * it counts its part inside it); a region (never with a range) here */
	return tid == c->tid && (c->m->region < 0 || tui_model__keeps(c->m, tid, time));
}

/* Thread tid's function, line and module rows in the views' time range
 * and region: the samples the result kept, totalled again. */
static int thread_rows(struct tui_loader *ld, struct tui_model *m, uint32_t tid,
		       struct tui_table *tab, char **cause)
{
	struct tui_real *real = (struct tui_real *)ld;
	struct thread_ctx c = { m, tid };
	struct profile *p;

	if (profile__subset(gx_result__profile(real->res), m->range_hi ? m->range_lo : 0,
			    m->range_hi ? m->range_hi : UINT64_MAX, keep_thread, &c, &p) != 0)
		return gx_fail(cause, GX_E_NOTSUP, "this recording's samples are not kept one by "
			       "one (group reads)");
	fill_simple(real, m, tab, p, TK_MODULE, PROFILE_BY_MODULE);
	fill_code(real, m, tab, p);
	profile__delete(p);
	return 0;
}

/* Narrow every view to the instances of one region (-1: whole run). */
static int renarrow(struct tui_loader *ld, struct tui_model *m, int name_idx, char **cause)
{
	struct tui_real *real = (struct tui_real *)ld;
	struct profile *p;
	size_t idx;
	int err;

	if (name_idx < 0)
		return refilter(ld, m, 0, 0, cause);
	if ((size_t)name_idx >= m->nr_region_names ||
	    gx_result__find_region(real->res, m->region_names[name_idx], &idx) != 0)
		return gx_fail(cause, -EINVAL, "no region %d", name_idx);
	err = gx_result__profile_region(real->res, idx, &p, cause);
	if (err)
		return err;
	tui_model__clear_tables(m);
	fill_tables(real, m, p);
	tui_model__match_base(m);
	m->range_lo = m->range_hi = 0;
	m->region = name_idx;
	profile__delete(p);
	return 0;
}

static void set_regions(struct tui_model *m, const struct gx_result *res)
{
	size_t n = gx_result__nr_regions(res);

	/* names first, in the result's order (of first begin) */
	for (size_t i = 0; i < gx_result__nr_region_names(res); i++)
		if (tui_model__find_region(m, gx_result__region_name(res, i)->name) < 0) {
			m->region_names = xrealloc(m->region_names, (m->nr_region_names + 1) *
						   sizeof(*m->region_names));
			m->region_names[m->nr_region_names++] =
				tui_model__str(m, gx_result__region_name(res, i)->name);
		}
	for (size_t i = 0; i < n; i++) {
		const struct gx_region *x = gx_result__region(res, i);

		tui_model__add_region(m, x->name, x->tid, x->begin, x->end, x->depth);
	}
	tui_model__regions_done(m);
}

static char **read_source(struct tui_loader *ld, const char *file, const char **why)
{
	FILE *f;
	char **lines = NULL;
	size_t n = 0, nalloc = 0;
	int fd;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;

	(void)ld;
	if (!file || !*file) {
		*why = "no line information: the binary has no DWARF (stripped, or built "
		       "without -g)";
		return NULL;
	}
	/* a FIFO or a device named by the debug info is not waited on */
	fd = gx_open_regular(file, NULL, NULL);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		*why = "the source file is not on this machine (moved, or built elsewhere)";
		return NULL;
	}
	while ((len = getline(&buf, &cap, f)) >= 0) {
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = 0;
		/* doubling: a realloc per line is quadratic where realloc
		 * always moves (ASan's does; sqlite3.c has 250,000 lines) */
		if (n + 2 > nalloc) {
			nalloc = nalloc ? 2 * nalloc : 256;
			lines = xrealloc(lines, nalloc * sizeof(char *));
		}
		lines[n++] = xstrdup(buf);
	}
	free(buf);
	fclose(f);
	if (!lines)
		lines = xcalloc(1, sizeof(char *));
	lines[n] = NULL;
	return lines;
}



static void real_free(struct tui_loader *ld)
{
	struct tui_real *real = (struct tui_real *)ld;

	if (!real)
		return;
	for (size_t i = 0; i < real->nr_maps; i++)
		free(real->maps[i].path);
	free(real->maps);
	gx_result__delete(real->res);
	if (real->base)
		real->base->free(real->base);
	free(real);
}

static const struct tui_loader real_loader = {
	.source = read_source,
	.disasm = tui_disasm_real,
	.refilter = refilter,
	.renarrow = renarrow,
	.thread_rows = thread_rows,
	.loops = tui_loops_real,
	.free = real_free,
};

/* ---- top-down ----------------------------------------------------------- */

static void setup_topdown(struct tui_model *m, const struct gx_result *res)
{
	const struct td_model *td = gx_result__model(res);
	const struct mux_log *log = gx_result__mux(res);
	double *c;

	m->model_id = xstrdup(gx_result__model_id(res));
	if (!td) {
		m->td_why = xstrdup(gx_result__model_why(res) ? gx_result__model_why(res) :
				    "top-down not available");
		return;
	}
	if (gx_result__model_note(res))
		tui_model__add_hint(m, "%s", gx_result__model_note(res));
	m->ctx = *gx_result__ctx(res);
	if (m->ctx.variant)
		m->ctx.variant = tui_model__str(m, m->ctx.variant);
	c = xcalloc(td_model__nr_events(td) + 1, sizeof(double));
	gx_result__run_counts(res, c);
	tui_model__set_topdown(m, td, gx_result__model_map(res), c);
	m->ev_weight = xcalloc(m->nr_events + 1, sizeof(double));
	for (size_t i = 0; i < m->nr_events; i++) {
		double sc = gx_result__event(res, i)->scale;

		m->ev_weight[i] = isfinite(sc) && sc > 0 ? 1.0 / sc : 1.0;
	}
	free(c);
	if (log && m->run_ok && mux_log__nr_events(log) == gx_result__nr_recorded(res)) {
		size_t nn = td_model__nr_nodes(td);

		m->run_lo = xcalloc(nn + 1, sizeof(double));
		m->run_hi = xcalloc(nn + 1, sizeof(double));
		if (mux_log__node_intervals(log, td, &m->ctx, gx_result__model_map(res), 0.95, 0,
					    m->run_lo, m->run_hi, NULL) != 0) {
			free(m->run_lo);
			free(m->run_hi);
			m->run_lo = m->run_hi = NULL;
		}
	}
}

/* ---- facts and hints ------------------------------------------------------ */

static void set_facts(struct tui_model *m, const struct gx_result *res)
{
	const struct gx_meta *meta = gx_result__meta(res);
	struct perf_reader *r = gx_result__reader(res);
	const struct pd_env *env = gx_result__env(res);
	const struct pd_stats *st = perf_reader__stats(r);
	struct strbuf sb = STRBUF_INIT;

	m->title = xstrdup(gx_result__path(res));
	if (meta && meta->argv)
		for (uint32_t i = 0; i < meta->argc; i++)
			strbuf__addf(&sb, "%s%s", i ? " " : "", meta->argv[i]);
	else if (meta && meta->target_pid)
		strbuf__addf(&sb, "-p %d", meta->target_pid);
	else if (meta && meta->system_wide)
		strbuf__addstr(&sb, "-a (system-wide)");
	else
		for (uint32_t i = 0; i < env->nr_cmdline; i++)
			strbuf__addf(&sb, "%s%s", i ? " " : "", env->cmdline[i]);
	m->command = sb.len ? strbuf__detach(&sb) : xstrdup("?");
	strbuf__exit(&sb);
	if (meta && meta->term_signal && !gx_result__stopped(res))
		m->ended = xasprintf("killed by SIG%s", sigabbrev_np(meta->term_signal) ?
				     sigabbrev_np(meta->term_signal) : "?");
	else if (meta && meta->exited && meta->exit_code)
		m->ended = xasprintf("exit %d", meta->exit_code);
	m->cpu_desc = xstrdup(meta && meta->cpu_desc ? meta->cpu_desc :
			      env->cpudesc ? env->cpudesc : "unknown CPU");
	m->smt = xstrdup(!meta || meta->smt < 0 ? "unknown" : meta->smt ? "on" : "off");
	if (meta && meta->mux.mode && !isnan(meta->mux.reliability)) {
		double rel = meta->mux.reliability;

		m->mux = xasprintf("%.2f (%s; %s, %u groups, %llu slices)", rel,
				   rel >= 0.9 ? "reliable" : rel >= 0.7 ? "fair" : "unreliable",
				   meta->mux.mode, meta->mux.nr_groups,
				   (unsigned long long)meta->mux.nr_slices);
		if (rel < 0.7)
			tui_model__add_hint(m, "MUX reliability %.2f is below 0.7: groups saw different "
					       "phases of the run; record longer, use --mux-runs, or "
					       "fewer events.", rel);
	} else if (meta && meta->mux.mode && strcmp(meta->mux.mode, "none")) {
		m->mux = xasprintf("n/a (%s)", meta->mux.mode);
	}
	/* Multiplexed whole-run estimates with their 95% intervals (when
	 * known) and the share of the run each counted, as perf stat's. */
	for (size_t i = 0; i < gx_result__nr_events(res); i++) {
		const struct gx_event *ge = gx_result__event(res, i);
		const struct gx_meta_event *e = meta && i < meta->nr_events ? &meta->events[i] : NULL;
		struct strbuf run = STRBUF_INIT;
		char *w;

		if (!ge->multiplexed)
			continue;
		gx_format_running(&run, ge->running);
		if (e && e->has_estimate && e->estimate_hi > e->estimate_lo)
			tui_model__add_confidence(m, "%s %.4g [%.4g-%.4g] x%.2f %s", ge->name,
						  ge->run_value, e->estimate_lo, e->estimate_hi,
						  ge->scale, run.buf ? run.buf : "");
		else
			tui_model__add_confidence(m, "%s %.4g x%.2f %s", ge->name, ge->run_value,
						  ge->scale, run.buf ? run.buf : "");
		strbuf__exit(&run);
		w = gx_running_warning(ge->name, ge->running);
		if (w)
			tui_model__add_hint(m, "%s", w);
		free(w);
	}
	m->nr_samples = st->nr_samples;
	m->lost = st->nr_lost + st->nr_lost_samples;
	if (meta && meta->lost_events > m->lost)
		m->lost = meta->lost_events;
	m->pmu = meta ? meta->pmu : false;
	if (meta && meta->duration_s > 0)
		m->duration_s = meta->duration_s;
	else if (st->last_time > st->first_time)
		m->duration_s = (double)(st->last_time - st->first_time) / 1e9;
	if (gx_result__incomplete(res))
		tui_model__add_hint(m, "Incomplete recording: %s.", gx_result__incomplete(res));
	else if (gx_result__stopped(res))
		tui_model__add_hint(m, "The recording was %s: whole up to then.",
				    gx_result__stopped(res));
	for (size_t i = 0; i < gx_result__nr_notes(res); i++)
		tui_model__add_hint(m, "%s", gx_result__note(res, i));
	for (size_t i = 0; i < perf_reader__nr_warnings(r); i++)
		tui_model__add_hint(m, "%s", perf_reader__warning(r, i));
	if (meta)
		for (size_t i = 0; i < meta->nr_warnings; i++)
			tui_model__add_hint(m, "%s", meta->warnings[i]);
}

static void add_hints(struct tui_model *m, struct gx_result *res)
{
	const struct profile *p = gx_result__profile(res);
	const struct gx_meta *meta = gx_result__meta(res);
	uint64_t inl, total = profile__total_period(p, m->clk);
	bool said = false;	/* the recording's own warning said it: once is enough */
	bool fixed = m->nr_events && m->fixed[m->clk];	/* exact or modelled: no noise */

	for (size_t i = 0; meta && i < meta->nr_warnings && !said; i++)
		said = !strncmp(meta->warnings[i], "hardware counters are unavailable", 33);
	{
		uint64_t ndw, copy, ncut = profile__stacks_cut(p, &ndw, &copy);

		if (ncut && ncut * 100 >= ndw)
			tui_model__add_hint(m, "%.0f%% of the stacks stop short at the %llu-byte stack "
					    "copy: record with a larger --call-graph dwarf,SIZE.",
					    100.0 * (double)ncut / (double)ndw,
					    (unsigned long long)copy);
	}
	if (!m->pmu && !m->modelled && !said)
		tui_model__add_hint(m, "No PMU: the recording sampled software events (time "
				       "hotspots only); top-down needs hardware counters.");
	if (m->ctx.clamp)
		tui_model__add_hint(m, "Top-down fractions of exact and modelled values are clamped "
				       "to [0%%, 100%%]: out of range is the model's error, not noise "
				       "(gexplore report marks each with ~).");
	if (m->smt && !strcmp(m->smt, "on"))
		tui_model__add_hint(m, "SMT is on: level-1 shares are per core, contended by the "
				       "sibling thread.");
	if (m->nr_samples && !fixed && (m->duration_s < 1.0 || m->nr_samples < 1000))
		tui_model__add_hint(m, "Short run (%.2f s, %llu samples): small shares are noise; "
				       "record longer or at a higher rate.", m->duration_s,
				    (unsigned long long)m->nr_samples);
	if (m->nr_events && tui_model__imprecise(m))
		tui_model__add_hint(m, "Skid: %s was sampled with precise_ip=0, so samples may "
				       "land after the instruction responsible (see disassembly).",
				    m->event_names[m->clk]);
	if (m->lost)
		tui_model__add_hint(m, "Lost %llu samples/records: shares may be biased; lower the "
				       "rate.", (unsigned long long)m->lost);
	/* as the report's note says it (gexplore-report(1)) */
	if (profile__inlined(p, m->clk, &inl))
		tui_model__add_hint(m, "Inlined code is credited to the inlined function (%.1f%% of "
				       "%s here); --no-inline credits the function it was inlined "
				       "into, as perf report's symbol view does.",
				    total ? 100.0 * (double)inl / (double)total : 0.0,
				    m->event_names[m->clk]);
}

/* ---- off-CPU time (record --off-cpu) --------------------------------------- */

static int cmp_offspan(const void *a, const void *b)
{
	const struct tui_offspan *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The spans for the timeline, and a hint when the program mostly waits.
 * The OffCPU column is the value table's "off-cpu" (copy_counts). */
static void set_offcpu(struct tui_model *m, struct gx_result *res)
{
	static const char letters[PROFILE_OFF_NR_] = { 's', 'i', 'l', 'c', 'j', 'h', 'o' };
	struct profile_offcpu *oc = gx_result__offcpu(res);
	const struct profile_off_span *sp;
	uint64_t life = 0, off = 0, reason_ns[PROFILE_OFF_NR_] = { 0 };
	size_t n;
	int dom = PROFILE_OFF_OTHER;

	if (!oc || !profile_offcpu__has_switches(oc))
		return;
	m->has_offcpu = true;
	sp = profile_offcpu__spans(oc, &n);
	m->offspans = xcalloc(n + 1, sizeof(*m->offspans));
	for (size_t i = 0; i < n; i++)
		m->offspans[i] = (struct tui_offspan){ sp[i].start, sp[i].end, sp[i].tid,
						       letters[sp[i].reason < PROFILE_OFF_NR_ ?
							       sp[i].reason : PROFILE_OFF_OTHER] };
	m->nr_offspans = n;
	qsort(m->offspans, n, sizeof(*m->offspans), cmp_offspan);
	for (size_t i = 0; i < profile_offcpu__nr_threads(oc); i++) {
		const struct profile_off_thread *t = profile_offcpu__thread(oc, i);
		uint64_t l = t->end > t->start ? t->end - t->start : 0;

		life += l > t->off_ns ? l : t->off_ns;
		off += t->off_ns;
		for (int k = 0; k < PROFILE_OFF_NR_; k++)
			reason_ns[k] += t->reason_ns[k];
	}
	for (int k = 0; k < PROFILE_OFF_NR_; k++)
		if (reason_ns[k] > reason_ns[dom])
			dom = k;
	if (life && 2 * off > life)
		tui_model__add_hint(m, "The program mostly waits: its threads were off the CPU "
				    "%.0f%% of their time, most of it %s (%.3f s). The timeline "
				    "shows the waits by reason, the grid an OffCPU column.",
				    100.0 * (double)off / (double)life,
				    profile_off_reason__name(dom), (double)reason_ns[dom] / 1e9);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct tui_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * One timeline row a thread (issue 45: a thread that exec'd, sh then
 * sleep, had a row under each name, and the samples and waits of its tid
 * were drawn on the first): the rows of one tid, next to each other once
 * sorted, become one named by all its names ("sh, sleep": the table's
 * rows keep no order of their exec).
 */
static void merge_exec(struct tui_model *m)
{
	size_t k = 0, nn = 0;

	m->thread_names = xcalloc(m->nr_threads + 1, sizeof(*m->thread_names));
	for (size_t i = 0; i < m->nr_threads; i++) {
		struct tui_thread *t = &m->threads[k - (k && m->threads[k - 1].tid == m->threads[i].tid)];

		if (k && t == &m->threads[k - 1]) {	/* the same tid again */
			char *n = xasprintf("%s, %s", t->name, m->threads[i].name);

			if (nn && m->thread_names[nn - 1] == t->name)
				free(m->thread_names[--nn]);
			m->thread_names[nn++] = n;
			t->name = n;
			if (isnan(t->reliability))
				t->reliability = m->threads[i].reliability;
			continue;
		}
		m->threads[k++] = m->threads[i];
	}
	m->nr_threads = k;
}

static void set_threads(struct tui_model *m)
{
	struct tui_table *t = &m->tab[TK_THREAD];

	m->threads = xcalloc(t->nr + 1, sizeof(*m->threads));
	for (size_t i = 0; i < t->nr; i++) {
		m->threads[i].tid = t->rows[i].tid;
		m->threads[i].pid = t->rows[i].pid;
		m->threads[i].name = t->rows[i].name;
		m->threads[i].reliability = t->rows[i].reliability;
	}
	m->nr_threads = t->nr;
	gx_qsort(m->threads, m->nr_threads, sizeof(*m->threads), cmp_thread);
	merge_exec(m);
}

/* The model of a result and its loader (*ld_out, a struct tui_real). */
static int open_model(struct tui_model **out, struct tui_loader **ld_out,
		      const struct tui_open_opts *o, char **cause)
{
	struct tui_real *real = xzalloc(sizeof(*real));
	struct tap_tool tt = { .tool = { .sample = tap_sample, .mmap = tap_mmap }, .real = real };
	struct gx_result_opts ro = { .parent = o->parent, .cpu = o->cpu, .sym = o->sym,
				     .tap = &tt.tool, .keep_samples = true };
	struct tui_model *m = NULL;
	struct gx_result *res;
	const char **names = NULL;
	size_t n;
	int err;

	/* The tap fills the model while the result is walked: make it first,
	 * sized by nothing; the events are known after the open. */
	tt.m = m = tui_model__new(0, NULL);
	err = gx_result__open(&res, o->result, &ro, cause);
	if (err)
		goto fail;
	real->res = res;
	n = gx_result__nr_events(res);
	names = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		names[i] = gx_result__event(res, i)->name;
	tui_model__set_events(m, n, names);
	free(names);
	for (size_t i = 0; i < n; i++) {
		m->precise[i] = gx_result__event(res, i)->attr->precise_ip;
		m->fixed[i] = gx_kind_fixed(gx_result__event(res, i)->kind);
		m->modelled |= gx_result__event(res, i)->kind == GX_KIND_MODELLED;
	}
	m->clk = gx_result__sort_event(res);
	m->off_ev = gx_result__offcpu_value(res) == SIZE_MAX ? -1 :
		    (int)gx_result__offcpu_value(res);
	for (size_t i = n; i-- > 0;)
		if (gx_result__event(res, i)->source == GX_SOURCE_WEIGHT)
			m->weight_ev = (int)i;
	m->clk_is_cycles = gx_result__sort_is_cycles(res);
	real->ld = real_loader;
	set_facts(m, res);
	setup_topdown(m, res);
	fill_tables(real, m, gx_result__profile(res));
	set_offcpu(m, res);
	add_hints(m, res);
	set_threads(m);
	/* the indexes the keys use, made now rather than on a key */
	tui_model__index_times(m);
	tui_model__index_ips(m);
	set_regions(m, res);
	if (o->region) {
		int r = tui_model__find_region(m, o->region);
		struct strbuf sb = STRBUF_INIT;

		if (r < 0) {
			for (size_t i = 0; i < m->nr_region_names; i++)
				strbuf__addf(&sb, "%s%s", i ? ", " : "", m->region_names[i]);
			*cause = m->nr_region_names ?
				xasprintf("no region '%s' in %s (regions: %s)", o->region,
					  gx_result__path(res), sb.buf) :
				xasprintf("no region '%s': %s has no regions (the program marks "
					  "none; gexplore-regions(3))", o->region, gx_result__path(res));
			strbuf__exit(&sb);
			err = GX_E_USAGE;
			goto fail;
		}
		err = renarrow(&real->ld, m, r, cause);
		if (err)
			goto fail;
	}
	if (o->baseline) {
		struct tui_open_opts bo = *o;
		struct tui_model *base = NULL;
		char *bcause = NULL;

		bo.result = o->baseline;
		bo.baseline = NULL;
		/* the baseline's loader lives as long as ours: its model's
		 * rows are read, never reloaded */
		err = open_model(&base, &real->base, &bo, &bcause);
		if (err) {
			*cause = xasprintf("baseline %s", bcause);
			free(bcause);
			goto fail;
		}
		tui_model__set_base(m, base, o->baseline);
	}
	*out = m;
	*ld_out = &real->ld;
	return 0;
fail:
	tui_model__delete(m);
	real_free(&real->ld);
	return err;
}

int tui_session__open(struct tui_session **out, const struct tui_open_opts *o, char **cause)
{
	struct tui_session *s = xzalloc(sizeof(*s));
	int err = open_model(&s->m, &s->ld, o, cause);

	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void tui_session__delete(struct tui_session *s)
{
	if (!s)
		return;
	/* the model first: its rows may point into what the loader holds */
	tui_model__delete(s->m);
	if (s->ld && s->ld->free)
		s->ld->free(s->ld);
	free(s);
}

size_t tui_session__nr_samples(const struct tui_session *s)
{
	return s->m->nr_ts;
}
