/*
 * log.c: the slice log (DIR/slices.bin), scaling, MUX reliability per row,
 * whole-run estimates and bootstrap confidence intervals.
 */
#include "config.h"

#include "mux/mux-int.h"

#include "perfdata/perfdata.h"
#include "topdown/topdown.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mux_log {
	size_t nr_events;
	int reference;
	uint64_t slice_ns;
	int *group_of;		/* per event, -1 = always on */
	size_t nr_groups;
	struct mux_slice *slices;
	size_t nr, cap;
	uint64_t *deltas;	/* nr * nr_events */
	uint64_t *total;	/* an always-on event's whole-run count, from the log's totals record */
	bool *has_total;
	/* sums kept as slices are added: rows ask for them once each */
	uint64_t run_ns;
	uint64_t *group_ns;	/* nr_group_ns values */
	size_t nr_group_ns;
	/* the kernel's periods: nr_k * nr_events counts and running ns */
	uint64_t *k_count, *k_run, *k_task, *k_en;	/* k_en: per event, 0 unknown */
	size_t nr_k, cap_k;
};

const char *mux_mode_name(enum mux_mode m)
{
	switch (m) {
	case MUX_MODE_GEXPLORE: return "gexplore";
	case MUX_MODE_KERNEL: return "kernel";
	case MUX_MODE_RUNS: return "runs";
	default: return "none";
	}
}

int mux_mode_parse(const char *s, enum mux_mode *out)
{
	if (!strcmp(s, "gexplore"))
		*out = MUX_MODE_GEXPLORE;
	else if (!strcmp(s, "kernel"))
		*out = MUX_MODE_KERNEL;
	else
		return -EINVAL;
	return 0;
}

/* ---- building and reading ------------------------------------------------ */

static void log__count_groups(struct mux_log *l)
{
	size_t n = 0;

	for (size_t e = 0; e < l->nr_events; e++)
		if (l->group_of[e] >= 0 && (size_t)l->group_of[e] + 1 > n)
			n = (size_t)l->group_of[e] + 1;
	for (size_t i = 0; i < l->nr; i++)
		if ((size_t)l->slices[i].group + 1 > n)
			n = (size_t)l->slices[i].group + 1;
	l->nr_groups = n;
}

struct mux_log *mux_log__new(size_t nr_events, const int *group_of, int reference,
			     uint64_t slice_ns)
{
	struct mux_log *l = xzalloc(sizeof(*l));

	l->nr_events = nr_events;
	l->reference = reference;
	l->slice_ns = slice_ns;
	l->group_of = xcalloc(nr_events + 1, sizeof(*l->group_of));
	l->total = xcalloc(nr_events + 1, sizeof(*l->total));
	l->has_total = xcalloc(nr_events + 1, sizeof(*l->has_total));
	for (size_t e = 0; e < nr_events; e++)
		l->group_of[e] = group_of ? group_of[e] : -1;
	log__count_groups(l);
	return l;
}

void mux_log__set_groups(struct mux_log *l, const int *group_of, size_t nr)
{
	for (size_t e = 0; e < l->nr_events && e < nr; e++)
		l->group_of[e] = group_of[e];
	log__count_groups(l);
}

void mux_log__add(struct mux_log *l, uint32_t group, uint64_t start_ns, uint64_t end_ns,
		  uint64_t task_ns, const uint64_t *delta)
{
	size_t old = l->cap;

	l->slices = xgrow(l->slices, &l->cap, l->nr + 1, sizeof(*l->slices));
	if (l->cap != old)
		l->deltas = xrealloc(l->deltas, (l->cap * l->nr_events + 1) * sizeof(*l->deltas));
	memcpy(l->deltas + l->nr * l->nr_events, delta, l->nr_events * sizeof(*delta));
	l->slices[l->nr].group = group;
	l->slices[l->nr].start_ns = start_ns;
	l->slices[l->nr].end_ns = end_ns < start_ns ? start_ns : end_ns;
	l->slices[l->nr].task_ns = task_ns;
	if (group >= l->nr_group_ns) {
		l->group_ns = xrealloc(l->group_ns, ((size_t)group + 1) * sizeof(*l->group_ns));
		memset(l->group_ns + l->nr_group_ns, 0,
		       ((size_t)group + 1 - l->nr_group_ns) * sizeof(*l->group_ns));
		l->nr_group_ns = (size_t)group + 1;
	}
	l->group_ns[group] += l->slices[l->nr].end_ns - start_ns;
	l->run_ns += l->slices[l->nr].end_ns - start_ns;
	l->nr++;
	/* the array may have moved: repoint every slice */
	for (size_t i = 0; i < l->nr; i++)
		l->slices[i].delta = l->deltas + i * l->nr_events;
	if ((size_t)group + 1 > l->nr_groups)
		l->nr_groups = (size_t)group + 1;
}

void mux_log__set_totals(struct mux_log *l, const uint64_t *count)
{
	for (size_t e = 0; e < l->nr_events; e++) {
		if (l->group_of[e] >= 0)
			continue;
		l->total[e] = count[e];
		l->has_total[e] = true;
	}
}

int mux_log__read(struct mux_log **out, const char *path, char **cause)
{
	/* a FIFO or a device in its place is refused, not waited on; a link
	 * is not followed (another user's result could aim it anywhere) */
	int fd = gx_open_regular_nofollow(path, NULL, cause);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	struct log_header h;
	struct log_slice s;
	struct mux_log *l;
	uint64_t *delta = NULL, *kcount = NULL;
	uint64_t ktask = 0;
	bool have_kcount = false, kadded = false;
	size_t slice_len;
	bool v1;
	int err = 0;

	*out = NULL;
	if (fd < 0)
		return fd;
	if (!f) {
		close(fd);
		return gx_fail(cause, -errno, "%s: %s", path, strerror(errno));
	}
	if (fread(&h, sizeof(h), 1, f) != 1 ||
	    (memcmp(h.magic, MUX_LOG_MAGIC, 8) != 0 && memcmp(h.magic, "GXSLICE1", 8) != 0)) {
		err = gx_fail(cause, GX_E_FORMAT, "%s: not a gexplore slice log", path);
		goto out_close;
	}
	/* GXSLICE1 (earlier builds): no task_ns; the always-on events were read
	 * at every switch, so the reference weighs the slices */
	v1 = memcmp(h.magic, "GXSLICE1", 8) == 0;
	slice_len = v1 ? offsetof(struct log_slice, task_ns) : sizeof(s);
	if (h.nr_events == 0 || h.nr_events > 4096 ||
	    (h.reference != UINT32_MAX && h.reference >= h.nr_events)) {
		err = gx_fail(cause, GX_E_FORMAT, "%s: bad header (%u events, reference %u)", path,
			      h.nr_events, h.reference);
		goto out_close;
	}
	l = mux_log__new(h.nr_events, NULL, h.reference == UINT32_MAX ? -1 : (int)h.reference,
			 h.slice_ns);
	delta = xcalloc(h.nr_events, sizeof(*delta));
	kcount = xcalloc(h.nr_events, sizeof(*kcount));
	memset(&s, 0, sizeof(s));
	while (fread(&s, slice_len, 1, f) == 1) {
		if (fread(delta, sizeof(*delta), h.nr_events, f) != h.nr_events)
			break;	/* truncated: keep the complete slices */
		if (s.flags & MUX_SLICE_TOTALS) {
			/* the always-on events' counts at the end (no group is
			 * known yet: kept for every event) */
			mux_log__set_totals(l, delta);
			continue;
		}
		if (s.flags & MUX_SLICE_KERNEL) {
			/* a kernel period: counts, then running times */
			if (s.flags & MUX_SLICE_ENABLED) {
				if (kadded)
					mux_log__set_kernel_enabled(l, delta);
				kadded = false;
			} else if (!(s.flags & MUX_SLICE_RUNNING)) {
				memcpy(kcount, delta, h.nr_events * sizeof(*delta));
				ktask = s.task_ns;
				have_kcount = true;
				kadded = false;
			} else if (have_kcount) {
				mux_log__add_kernel(l, s.start_ns, s.end_ns, ktask, kcount, delta);
				have_kcount = false;
				kadded = true;
			}
			continue;
		}
		if (s.group > 4096)
			break;
		mux_log__add(l, s.group, s.start_ns, s.end_ns, s.task_ns, delta);
	}
	free(delta);
	free(kcount);
	*out = l;
out_close:
	fclose(f);
	return err;
}

void mux_log__delete(struct mux_log *l)
{
	if (!l)
		return;
	GX_FREE(l->group_of, l->total, l->has_total, l->group_ns, l->slices, l->deltas, l->k_count,
		l->k_run, l->k_task, l->k_en, l);
}

size_t mux_log__nr_slices(const struct mux_log *l) { return l->nr; }
size_t mux_log__nr_events(const struct mux_log *l) { return l->nr_events; }
size_t mux_log__nr_groups(const struct mux_log *l) { return l->nr_groups; }
int mux_log__reference(const struct mux_log *l) { return l->reference; }

const struct mux_slice *mux_log__slice(const struct mux_log *l, size_t i)
{
	return i < l->nr ? &l->slices[i] : NULL;
}

ssize_t mux_log__find(const struct mux_log *l, uint64_t t)
{
	size_t lo = 0, hi = l->nr;

	/* slices are in time order: the last one starting at or before t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->slices[mid].start_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || t > l->slices[lo - 1].end_ns)
		return -1;
	return (ssize_t)(lo - 1);
}

uint64_t mux_log__run_ns(const struct mux_log *l)
{
	return l->run_ns;
}

uint64_t mux_log__group_ns(const struct mux_log *l, uint32_t g)
{
	return g < l->nr_group_ns ? l->group_ns[g] : 0;
}

/*
 * How long a slice lasted, in the workload's time: the tasks' running
 * time in it (GXSLICE2), or the reference event's count in it (logs that
 * read the reference every slice, and logs built in memory), when every
 * group saw some; else wall-clock ns. Counting the workload's own time
 * keeps a change in its share of the CPU between slices (a loaded
 * machine, sleeps) from biasing the estimates.
 */
enum weight_by { BY_WALL, BY_TASK, BY_REFERENCE };

static bool log__every_group_has(const struct mux_log *l, enum weight_by by)
{
	if (l->nr_groups == 0 || (by == BY_REFERENCE && l->reference < 0))
		return false;
	for (size_t g = 0; g < l->nr_groups; g++) {
		uint64_t c = 0;

		for (size_t i = 0; i < l->nr; i++)
			if (l->slices[i].group == g)
				c += by == BY_TASK ? l->slices[i].task_ns :
					l->slices[i].delta[l->reference];
		if (!c)
			return false;
	}
	return true;
}

static enum weight_by log__weight_by(const struct mux_log *l)
{
	if (log__every_group_has(l, BY_TASK))
		return BY_TASK;
	if (log__every_group_has(l, BY_REFERENCE))
		return BY_REFERENCE;
	return BY_WALL;
}

static double slice_weight(const struct mux_log *l, const struct mux_slice *s, enum weight_by by)
{
	switch (by) {
	case BY_TASK: return (double)s->task_ns;
	case BY_REFERENCE: return (double)s->delta[l->reference];
	default: return (double)(s->end_ns - s->start_ns);
	}
}

/* Total weight of the run, and of group g's slices (g < 0: all). */
static double log__weight(const struct mux_log *l, int g, enum weight_by by)
{
	double w = 0;

	for (size_t i = 0; i < l->nr; i++)
		if (g < 0 || l->slices[i].group == (uint32_t)g)
			w += slice_weight(l, &l->slices[i], by);
	return w;
}

/*
 * The workload's time between slices, which no group counted: while
 * gexplore stops one group, reads it and starts the next, the workload
 * runs on (measured in a loaded VM: 0.4-0.7% of its time at 10 ms
 * slices, and every estimate came out that much low, task-clock's among
 * them with an interval of zero width). Each gap's wall-clock length
 * times the workload's share of the CPU in the slices on either side
 * (1 for wall-clock weights).
 */
static double log__gap_weight(const struct mux_log *l, enum weight_by by)
{
	double w = 0;

	for (size_t i = 0; i + 1 < l->nr; i++) {
		const struct mux_slice *a = &l->slices[i], *b = &l->slices[i + 1];
		double gap, wall, share;

		if (b->start_ns <= a->end_ns)
			continue;
		gap = (double)(b->start_ns - a->end_ns);
		wall = (double)(a->end_ns - a->start_ns) + (double)(b->end_ns - b->start_ns);
		share = by == BY_WALL ? 1.0 :
			wall > 0 ? (slice_weight(l, a, by) + slice_weight(l, b, by)) / wall : 0;
		w += gap * share;
	}
	return w;
}

/*
 * The run's whole weight: every slice's and the gaps'. How much of a gap
 * the workload ran is not measured: between none (gexplore's switch took
 * its CPU, or it slept) and about its share in the slices around (found
 * from 0.1 to 1.4 times that share's estimate on a loaded VM); the point
 * takes half of it, the intervals span none to twice (widen()).
 */
static double log__run_weight(const struct mux_log *l, enum weight_by by)
{
	double gap = log__gap_weight(l, by);

	return log__weight(l, -1, by) + (by == BY_WALL ? gap : gap / 2);
}

double mux_log__scale(const struct mux_log *l, size_t e)
{
	double gw;

	if (e >= l->nr_events || l->group_of[e] < 0)
		return 1.0;
	gw = log__weight(l, l->group_of[e], BY_WALL);
	/* the one rule: the run's time is what it was enabled for, its
	 * group's time what it ran */
	return gw > 0 ? gx_scale_factor(log__run_weight(l, BY_WALL), gw) : 0.0;
}

/* ---- reliability ------------------------------------------------------------ */

double mux_reliability(const double *c_rg, const double *f_g, size_t nr_groups)
{
	double c_r = 0, sum = 0;
	size_t n = 0;

	for (size_t g = 0; g < nr_groups; g++)
		if (f_g[g] > 0)
			c_r += c_rg[g];
	if (!(c_r > 0))
		return NAN;
	for (size_t g = 0; g < nr_groups; g++) {
		double rho;

		if (!(f_g[g] > 0))
			continue;
		rho = c_rg[g] / (f_g[g] * c_r);
		sum += (rho - 1) * (rho - 1);
		n++;
	}
	if (!n)
		return NAN;
	return 1.0 - fmin(1.0, sqrt(sum / (double)n));
}

const char *mux_reliability_word(double rel)
{
	if (isnan(rel))
		return "n/a";
	if (rel >= MUX_RELIABLE)
		return "reliable";
	if (rel < MUX_UNRELIABLE)
		return "unreliable";
	return "fair";
}

static double *log__fractions(const struct mux_log *l)
{
	double *f = xcalloc(l->nr_groups + 1, sizeof(*f));
	uint64_t run = mux_log__run_ns(l);

	for (size_t g = 0; g < l->nr_groups && run; g++)
		f[g] = (double)mux_log__group_ns(l, (uint32_t)g) / (double)run;
	return f;
}

/* ---- estimates and the bootstrap --------------------------------------------- */

/* Point estimates of every event from the slices listed per group. */
static void log__point(const struct mux_log *l, double *est)
{
	enum weight_by by = log__weight_by(l);
	double run = log__run_weight(l, by);

	for (size_t e = 0; e < l->nr_events; e++) {
		double raw = 0, gw = 0;

		for (size_t i = 0; i < l->nr; i++) {
			if (l->group_of[e] >= 0 && l->slices[i].group != (uint32_t)l->group_of[e])
				continue;
			raw += (double)l->slices[i].delta[e];
			gw += slice_weight(l, &l->slices[i], by);
		}
		if (l->group_of[e] < 0)
			est[e] = l->has_total[e] ? (double)l->total[e] : raw;
		else
			est[e] = gw > 0 ? raw * gx_scale_factor(run, gw) : NAN;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Resampling state: each group's slice indexes. */
struct boot {
	size_t ng;
	size_t **idx, *cnt;
	double *always, *sum, run;
	enum weight_by by;
	uint64_t rng;
};

static void boot__init(struct boot *b, const struct mux_log *l, uint64_t seed)
{
	b->ng = l->nr_groups;
	b->idx = xcalloc(b->ng + 1, sizeof(*b->idx));
	b->cnt = xcalloc(b->ng + 1, sizeof(*b->cnt));
	b->always = xcalloc(l->nr_events + 1, sizeof(*b->always));
	b->sum = xcalloc(l->nr_events + 1, sizeof(*b->sum));
	b->by = log__weight_by(l);
	b->run = log__run_weight(l, b->by);
	b->rng = seed ? seed : 0x6765786cULL;
	for (size_t i = 0; i < l->nr; i++) {
		uint32_t g = l->slices[i].group;

		b->idx[g] = xrealloc(b->idx[g], (b->cnt[g] + 1) * sizeof(**b->idx));
		b->idx[g][b->cnt[g]++] = i;
	}
	log__point(l, b->always);
}

static void boot__exit(struct boot *b)
{
	for (size_t g = 0; g < b->ng; g++)
		free(b->idx[g]);
	free(b->idx);
	free(b->cnt);
	free(b->always);
	free(b->sum);
}

/* One bootstrap replicate of every event's estimate into est. */
static void boot__replicate(struct boot *b, const struct mux_log *l, double *est)
{
	for (size_t e = 0; e < l->nr_events; e++)
		est[e] = l->group_of[e] < 0 ? b->always[e] : NAN;
	for (size_t g = 0; g < b->ng; g++) {
		double w = 0;

		if (!b->cnt[g])
			continue;
		memset(b->sum, 0, l->nr_events * sizeof(*b->sum));
		for (size_t k = 0; k < b->cnt[g]; k++) {
			const struct mux_slice *s = &l->slices[b->idx[g][gx_rand_next(&b->rng) % b->cnt[g]]];

			w += slice_weight(l, s, b->by);
			for (size_t e = 0; e < l->nr_events; e++)
				b->sum[e] += (double)s->delta[e];
		}
		for (size_t e = 0; e < l->nr_events; e++)
			if (l->group_of[e] == (int)g)
				est[e] = w > 0 ? b->sum[e] * b->run / w : NAN;
	}
}

/* The level's quantiles of n values (sorted here); NAN when fewer than
 * half of the replicates gave a value. */
static void quantiles(double *vals, size_t nv, unsigned nboot, double level, double *lo, double *hi)
{
	size_t a, z;

	if (!nv || nv < nboot / 2) {
		*lo = *hi = NAN;
		return;
	}
	gx_qsort(vals, nv, sizeof(*vals), cmp_double);
	a = (size_t)floor((1 - level) / 2 * (double)(nv - 1));
	z = (size_t)ceil((1 + level) / 2 * (double)(nv - 1));
	*lo = vals[a];
	*hi = vals[z < nv ? z : nv - 1];
}

void mux_log__interval(const struct mux_log *l, mux_metric_fn metric, void *ctx, double level,
		       unsigned nboot, uint64_t seed, double *lo, double *hi)
{
	struct boot b;
	double *est = xcalloc(l->nr_events + 1, sizeof(*est)), *vals;
	size_t nv = 0;

	if (!nboot)
		nboot = 200;
	if (!(level > 0 && level < 1))
		level = 0.95;
	vals = xcalloc(nboot, sizeof(*vals));
	boot__init(&b, l, seed);
	for (unsigned r = 0; r < nboot; r++) {
		double v;

		boot__replicate(&b, l, est);
		v = metric(ctx, est, l->nr_events);
		if (!isnan(v))
			vals[nv++] = v;
	}
	quantiles(vals, nv, nboot, level, lo, hi);
	boot__exit(&b);
	free(est);
	free(vals);
}

/*
 * Per-node intervals of the top-down tree over n draws of its event counts
 * (0: 200), at level (outside (0, 1): 0.95): draw(arg, counts) fills the
 * model's events for one draw. NAN intervals where td_eval fails.
 */
static int node_intervals(const struct td_model *m, const struct td_ctx *ctx,
			  void (*draw)(void *arg, double *counts), void *arg, double level,
			  unsigned n, double *lo, double *hi, char **cause)
{
	size_t nn = td_model__nr_nodes(m), ne = td_model__nr_events(m);
	double *c = xcalloc(ne + 1, sizeof(*c)), *vals, *col;
	size_t *nv = xcalloc(nn + 1, sizeof(*nv));
	int err = 0;

	if (!n)
		n = 200;
	if (!(level > 0 && level < 1))
		level = 0.95;
	vals = xcalloc(nn * n + 1, sizeof(*vals));
	col = xcalloc(n + 1, sizeof(*col));
	for (unsigned r = 0; r < n && !err; r++) {
		struct td_result res;

		draw(arg, c);
		err = td_eval(m, c, ctx, &res, cause);
		if (err)
			break;
		for (size_t k = 0; k < nn && k < res.nr; k++)
			if (!res.v[k].na && !isnan(res.v[k].value))
				vals[k * n + nv[k]++] = res.v[k].value;
		td_result__exit(&res);
	}
	for (size_t k = 0; k < nn; k++) {
		memcpy(col, &vals[k * n], nv[k] * sizeof(*col));
		if (err)
			lo[k] = hi[k] = NAN;
		else
			quantiles(col, nv[k], n, level, &lo[k], &hi[k]);
	}
	free(c);
	free(nv);
	free(vals);
	free(col);
	return err;
}

/* A bootstrap replicate of the slices, mapped onto the model's events. */
struct boot_draw {
	struct boot b;
	const struct mux_log *l;
	double *est;			/* [l->nr_events] */
	const int *model_event;
	size_t nme;
};

static void boot_draw(void *arg, double *counts)
{
	struct boot_draw *d = arg;

	boot__replicate(&d->b, d->l, d->est);
	for (size_t k = 0; k < d->nme; k++)
		counts[k] = NAN;
	for (size_t e = 0; e < d->l->nr_events; e++)
		if (d->model_event[e] >= 0 && (size_t)d->model_event[e] < d->nme)
			counts[d->model_event[e]] = d->est[e];
}

int mux_log__node_intervals(const struct mux_log *l, const struct td_model *m,
			    const struct td_ctx *ctx, const int *model_event, double level,
			    unsigned nboot, double *lo, double *hi, char **cause)
{
	struct boot_draw d = {
		.l = l,
		.est = xcalloc(l->nr_events + 1, sizeof(double)),
		.model_event = model_event,
		.nme = td_model__nr_events(m),
	};
	int err;

	boot__init(&d.b, l, 0x746f70ULL);
	err = node_intervals(m, ctx, boot_draw, &d, level, nboot, lo, hi, cause);
	boot__exit(&d.b);
	free(d.est);
	return err;
}

static double metric_one(void *ctx, const double *est, size_t nr)
{
	size_t e = *(const size_t *)ctx;

	return e < nr ? est[e] : NAN;
}

/* The run's time known to this share either way (widen()). */
#define MUX_RUN_SLACK 0.02

/* Student's t quantile for 95% two-sided at nu degrees of freedom
 * (Cornish-Fisher from the normal's 1.96; within 0.5% for nu >= 3). */
static double t95(double nu)
{
	const double z = 1.959964;

	if (nu < 1)
		return NAN;
	if (nu < 3)
		return nu < 2 ? 12.706 : 4.303;
	return z + (z * z * z + z) / (4 * nu) +
	       (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * nu * nu);
}

/*
 * What the bootstrap over one group's slices leaves out, added to a group
 * event's interval (gexplore-mux(7), Confidence):
 *  - few slices: the percentile bootstrap is too narrow by about
 *    t(n-1) / 1.96 x sqrt(n / (n-1)); its half-widths are stretched so;
 *  - the run's weight: the workload's time in the gaps between slices is
 *    estimated (log__gap_weight), not measured; the interval spans that
 *    part from none of it to twice the estimate, and MUX_RUN_SLACK of the
 *    run either side: the slices' summed running times and the task's own
 *    clock (task-clock counted all run) differed by up to 0.13% over 60
 *    runs of a steady workload, and by up to 1.5% (more running time than
 *    task time) on one that sleeps in bursts (tests/slow/mux-coverage.sh,
 *    on a loaded machine);
 *  - fewer than 2 slices, or a bootstrap that found no spread at all
 *    around an estimate that is not exact: no interval (NAN), never one
 *    of zero width.
 */
static void widen(const struct mux_log *l, struct mux_event_estimate *v)
{
	enum weight_by by = log__weight_by(l);
	double n = (double)v->slices, k, s, gap, run;

	if (v->slices < 2 || isnan(v->lo) || isnan(v->hi) || isnan(v->value)) {
		v->lo = v->hi = NAN;
		return;
	}
	k = t95(n - 1) / 1.959964 * sqrt(n / (n - 1));
	v->lo = v->value - k * (v->value - v->lo);
	v->hi = v->value + k * (v->hi - v->value);
	gap = by == BY_WALL ? 0 : log__gap_weight(l, by);
	s = log__weight(l, -1, by);
	run = s + gap / 2;		/* log__run_weight's */
	if (run > 0) {
		v->lo *= s * (1 - MUX_RUN_SLACK) / run;
		v->hi *= (s + 2 * gap) * (1 + MUX_RUN_SLACK) / run;
	}
	if (!(v->hi > v->lo) && v->value != 0)
		v->lo = v->hi = NAN;
}

/* ---- the kernel's rotation ------------------------------------------------ */

void mux_log__add_kernel(struct mux_log *l, uint64_t start_ns, uint64_t end_ns, uint64_t task_ns,
			 const uint64_t *count, const uint64_t *running)
{
	(void)start_ns;
	(void)end_ns;
	if (l->nr_k + 1 > l->cap_k) {
		l->cap_k = l->cap_k ? 2 * l->cap_k : 64;
		l->k_count = xrealloc(l->k_count, l->cap_k * l->nr_events * sizeof(*l->k_count));
		l->k_run = xrealloc(l->k_run, l->cap_k * l->nr_events * sizeof(*l->k_run));
		l->k_task = xrealloc(l->k_task, l->cap_k * sizeof(*l->k_task));
		l->k_en = xrealloc(l->k_en, l->cap_k * l->nr_events * sizeof(*l->k_en));
	}
	l->k_task[l->nr_k] = task_ns;
	memset(l->k_en + l->nr_k * l->nr_events, 0, l->nr_events * sizeof(*l->k_en));
	memcpy(l->k_count + l->nr_k * l->nr_events, count, l->nr_events * sizeof(*count));
	memcpy(l->k_run + l->nr_k * l->nr_events, running, l->nr_events * sizeof(*running));
	l->nr_k++;
}

void mux_log__set_kernel_enabled(struct mux_log *l, const uint64_t *enabled)
{
	if (l->nr_k)
		memcpy(l->k_en + (l->nr_k - 1) * l->nr_events, enabled,
		       l->nr_events * sizeof(*enabled));
}

size_t mux_log__nr_kernel(const struct mux_log *l)
{
	return l->nr_k;
}

double mux_kernel_reliability(const double *count, const double *running, size_t n)
{
	double c = 0, u = 0, r, ss = 0;

	for (size_t p = 0; p < n; p++) {
		if (!(running[p] > 0))
			continue;
		c += count[p];
		u += running[p];
	}
	if (!(u > 0) || !(c > 0))
		return NAN;
	r = c / u;
	for (size_t p = 0; p < n; p++) {
		double rho;

		if (!(running[p] > 0))
			continue;
		rho = count[p] / running[p] / r;
		ss += running[p] * (rho - 1) * (rho - 1);
	}
	return 1 - fmin(1.0, sqrt(ss / u));
}

void mux_log__kernel_estimate(const struct mux_log *l, size_t e, double count, double enabled,
			      double running, struct mux_kernel_estimate *out)
{
	struct gx_scaled sc;
	double *c, *u, sc_sum = 0, su = 0, r, d2 = 0, n = 0, rel, f, half, strat = 0, lo, hi;
	bool tasks = l->nr_k > 0;

	memset(out, 0, sizeof(*out));
	gx_scale(count, enabled, running, &sc);
	out->value = sc.value;
	out->lo = out->hi = out->reliability = out->stratified = NAN;
	if (!sc.multiplexed) {
		out->exact = !isnan(sc.value);
		out->lo = out->hi = sc.value;
		return;
	}
	if (e >= l->nr_events || isnan(sc.value))
		return;
	c = xcalloc(l->nr_k + 1, sizeof(*c));
	u = xcalloc(l->nr_k + 1, sizeof(*u));
	for (size_t p = 0; p < l->nr_k; p++) {
		c[p] = (double)l->k_count[p * l->nr_events + e];
		u[p] = (double)l->k_run[p * l->nr_events + e];
		if (u[p] > 0) {
			sc_sum += c[p];
			su += u[p];
			n++;
		}
	}
	out->periods = (size_t)n;
	out->reliability = mux_kernel_reliability(c, u, l->nr_k);
	if (n < 2 || !(su > 0) || !(sc_sum > 0))
		goto out;
	r = sc_sum / su;
	for (size_t p = 0; p < l->nr_k; p++)
		if (u[p] > 0)
			d2 += (c[p] - r * u[p]) * (c[p] - r * u[p]);
	rel = sqrt(d2 / (n * (n - 1))) / (su / n) / r;
	f = sc.running;
	half = t95(n - 1) * rel * sqrt(isnan(f) || f > 1 ? 0 : 1 - f) + MUX_KERNEL_SLACK;
	/* the periods' own scaling, each by the tasks' time in it */
	for (size_t p = 0; p < l->nr_k && tasks; p++) {
		double t = (double)(l->k_en[p * l->nr_events + e] ? l->k_en[p * l->nr_events + e] :
				    l->k_task[p]);

		if (t <= 0)
			tasks = false;
		else
			strat += u[p] > 0 ? c[p] * fmax(t, u[p]) / u[p] : r * t;
	}
	lo = hi = sc.value;
	if (tasks) {
		out->stratified = strat;
		lo = fmin(lo, strat);
		hi = fmax(hi, strat);
	}
	out->lo = lo * (1 - half);
	out->hi = hi * (1 + half);
	if (out->lo < 0)
		out->lo = 0;
out:
	free(c);
	free(u);
}

int mux_log__estimate(const struct mux_log *l, struct mux_estimate *est, char **cause)
{
	double *point, *f;
	double *c_rg;
	enum weight_by by;

	memset(est, 0, sizeof(*est));
	est->reliability = NAN;
	if (!l->nr)
		return gx_fail(cause, GX_E_NODATA, "the slice log holds no slice");
	est->nr_events = l->nr_events;
	est->ev = xcalloc(l->nr_events + 1, sizeof(*est->ev));
	est->run_ns = mux_log__run_ns(l);
	est->nr_groups = l->nr_groups;
	point = xcalloc(l->nr_events + 1, sizeof(*point));
	log__point(l, point);
	for (size_t e = 0; e < l->nr_events; e++) {
		struct mux_event_estimate *v = &est->ev[e];

		v->value = point[e];
		for (size_t i = 0; i < l->nr; i++) {
			if (l->group_of[e] < 0 || l->slices[i].group == (uint32_t)l->group_of[e]) {
				v->slices++;
				v->raw += (double)l->slices[i].delta[e];
			}
		}
		if (l->group_of[e] < 0 && l->has_total[e])
			v->raw = (double)l->total[e];
		v->scale = v->raw > 0 ? v->value / v->raw : mux_log__scale(l, e);
		if (l->group_of[e] < 0) {
			v->lo = v->hi = v->value;	/* counted all the time: exact */
		} else {
			size_t ctx = e;

			mux_log__interval(l, metric_one, &ctx, 0.95, 200, 0x5eed + e, &v->lo, &v->hi);
			widen(l, v);
		}
	}
	est->min_slices = SIZE_MAX;
	for (size_t g = 0; g < l->nr_groups; g++) {
		size_t n = 0;

		for (size_t i = 0; i < l->nr; i++)
			n += l->slices[i].group == g;
		if (n < est->min_slices)
			est->min_slices = n;
	}
	if (est->min_slices == SIZE_MAX)
		est->min_slices = l->nr;
	/* the whole run's row: how the workload's own time fell into the
	 * groups' slices against their share of wall-clock time */
	by = log__weight_by(l);
	if (by != BY_WALL) {
		f = log__fractions(l);
		c_rg = xcalloc(l->nr_groups + 1, sizeof(*c_rg));
		for (size_t i = 0; i < l->nr; i++)
			c_rg[l->slices[i].group] += slice_weight(l, &l->slices[i], by);
		est->reliability = mux_reliability(c_rg, f, l->nr_groups);
		free(c_rg);
		free(f);
	}
	free(point);
	return 0;
}

void mux_estimate__exit(struct mux_estimate *est)
{
	free(est->ev);
	memset(est, 0, sizeof(*est));
}

/* ---- rendering -------------------------------------------------------------- */

static void add_num(struct strbuf *sb, double v, bool fraction)
{
	if (isnan(v))
		strbuf__addstr(sb, "n/a");
	else if (fraction)
		strbuf__addf(sb, "%.1f", 100 * v);
	else if (fabs(v) >= 1e7)
		strbuf__addf(sb, "%.3g", v);
	else
		strbuf__addf(sb, "%.0f", v);
}

void mux_format_interval(struct strbuf *sb, double value, double lo, double hi, bool fraction)
{
	add_num(sb, value, fraction);
	if (fraction && !isnan(value))
		strbuf__addstr(sb, "%");
	if (isnan(lo) || isnan(hi))
		return;
	strbuf__addstr(sb, " [");
	add_num(sb, lo, fraction);
	strbuf__addstr(sb, "-");
	add_num(sb, hi, fraction);
	strbuf__addstr(sb, "]");
}

char *mux_estimate__hint(const struct mux_estimate *est, uint32_t slice_ms)
{
	if (est->nr_groups < 2 || est->min_slices >= MUX_MIN_SLICES)
		return NULL;
	return xasprintf("the run is too short for multiplexing: a group got only %zu slice%s of %u ms (want %d or more); run longer, use shorter slices (--slice), or measure one group per run (--mux-runs)",
			 est->min_slices, est->min_slices == 1 ? "" : "s", slice_ms, MUX_MIN_SLICES);
}

void mux_estimate__render(const struct mux_estimate *est, const char *const *names,
			  struct strbuf *sb)
{
	strbuf__addf(sb, "MUX reliability: ");
	if (isnan(est->reliability))
		strbuf__addstr(sb, "n/a");
	else
		strbuf__addf(sb, "%.2f", est->reliability);
	strbuf__addf(sb, " (%s; %zu groups, %.3f s, fewest slices per group %zu)\n",
		     mux_reliability_word(est->reliability), est->nr_groups,
		     (double)est->run_ns / 1e9, est->min_slices);
	for (size_t e = 0; e < est->nr_events; e++) {
		const struct mux_event_estimate *v = &est->ev[e];
		struct strbuf val = STRBUF_INIT;

		mux_format_interval(&val, v->value, v->lo, v->hi, false);
		strbuf__addf(sb, "  %-24s %-36s x%.2f, %zu slices\n", names && names[e] ? names[e] : "?",
			     val.buf ? val.buf : "", v->scale, v->slices);
		strbuf__exit(&val);
	}
}


json_t *mux_estimate__to_json(const struct mux_estimate *est, const char *const *names)
{
	json_t *o = json_object(), *a = json_array();

	json_object_set_new(o, "reliability", pd_json_real(est->reliability));
	json_object_set_new(o, "reliability_word", json_string(mux_reliability_word(est->reliability)));
	json_object_set_new(o, "run_ns", json_integer((json_int_t)est->run_ns));
	json_object_set_new(o, "groups", json_integer((json_int_t)est->nr_groups));
	json_object_set_new(o, "min_slices", json_integer((json_int_t)est->min_slices));
	for (size_t e = 0; e < est->nr_events; e++) {
		const struct mux_event_estimate *v = &est->ev[e];
		json_t *x = json_object();

		json_object_set_new(x, "name", names && names[e] ? json_string(names[e]) : json_null());
		/* the keys meta.json and the report give them */
		json_object_set_new(x, "estimate", pd_json_real(v->value));
		json_object_set_new(x, "estimate_lo", pd_json_real(v->lo));
		json_object_set_new(x, "estimate_hi", pd_json_real(v->hi));
		json_object_set_new(x, "scale", pd_json_real(v->scale));
		json_object_set_new(x, "slices", json_integer((json_int_t)v->slices));
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "events", a);
	return o;
}

/* ---- rows: error propagation ------------------------------------------------- */

double mux_row_rel_sd(uint64_t nsamples, double reliability)
{
	double mux = isnan(reliability) ? 0 : 1 - reliability;

	if (!nsamples)
		return NAN;
	return sqrt(1.0 / (double)nsamples + mux * mux);
}

/* A standard normal deviate (Box-Muller). */
static double normal(uint64_t *rng)
{
	double u1 = ((double)(gx_rand_next(rng) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((double)(gx_rand_next(rng) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The counts, each off by a normal error of its relative sd. */
struct row_draw {
	const double *counts, *rel_sd;	/* [ne] */
	size_t ne;
	uint64_t rng;
};

static void row_draw(void *arg, double *c)
{
	struct row_draw *d = arg;

	for (size_t i = 0; i < d->ne; i++) {
		double sd = d->rel_sd && !isnan(d->rel_sd[i]) ? d->rel_sd[i] : 0;

		c[i] = d->counts[i] * (1 + sd * normal(&d->rng));
		if (c[i] < 0 && !isnan(d->counts[i]))
			c[i] = 0;
	}
}

int mux_row_node_intervals(const struct td_model *m, const struct td_ctx *ctx,
			   const double *counts, const double *rel_sd, double level, unsigned n,
			   uint64_t seed, double *lo, double *hi, char **cause)
{
	struct row_draw d = {
		.counts = counts,
		.rel_sd = rel_sd,
		.ne = td_model__nr_events(m),
		.rng = seed ? seed : 0x726f77ULL,
	};

	return node_intervals(m, ctx, row_draw, &d, level, n, lo, hi, cause);
}

double mux_log__row_reliability(const struct mux_log *l, const uint64_t *slot_period)
{
	size_t ng = l ? mux_log__nr_groups(l) : 0;
	uint64_t run = l ? mux_log__run_ns(l) : 0;
	double c[64], f[64];

	if (!ng || ng > 64 || !run || !slot_period)
		return NAN;
	for (size_t g = 0; g < ng; g++) {
		c[g] = (double)slot_period[g];
		f[g] = (double)mux_log__group_ns(l, (uint32_t)g) / (double)run;
	}
	return mux_reliability(c, f, ng);
}

int mux_log__group_at(void *log, uint64_t t)
{
	const struct mux_log *l = log;
	ssize_t i = mux_log__find(l, t);

	return i < 0 ? -1 : (int)mux_log__slice(l, (size_t)i)->group;
}
