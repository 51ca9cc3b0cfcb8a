/*
 * plan.c: pack a model's events into groups that fit the counters.
 *
 * Counters: CPUID leaf 0xA on an Intel host (per logical CPU, so SMT is
 * already accounted for) or AMD's PerfMonV2 / PerfCtrExtCore bits, else the model's gp_smt_on / gp_smt_off figures
 * (libpfm4's tables are wrong for several CPUs). The NMI watchdog keeps one
 * general counter for itself.
 *
 * Packing is greedy and deterministic (goldens in tests/golden/mux):
 *  1. fixed-counter events stay on all run, outside the rotation; the
 *     cycles event is the reference (on a CPU without a fixed cycles
 *     counter it takes a general counter in every group instead);
 *  2. PERF_METRICS events form one group led by slots;
 *  3. the general events each metric formula names directly are placed
 *     together, largest sets first, into the first group where they all
 *     fit, else a new group (a set larger than a group is split);
 *  4. the rest go first-fit;
 *  "fit" = the group's general events can be given distinct counters
 *  inside their counter masks (a small bipartite matching).
 */
#include "config.h"

#include "mux/mux.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topdown/topdown.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

bool mux_nmi_watchdog_active(void)
{
	char *s = gx_read_file("/proc/sys/kernel/nmi_watchdog", 16);
	bool on = s && s[0] == '1';

	free(s);
	return on;
}

/* CPUID: general counters per logical CPU and fixed counters of an Intel
 * (leaf 0xA) or AMD host; false when not available (Arm, VMs without a
 * virtual PMU). */
static bool cpuid_counters(int *gp, int *fixed)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char vendor[13];

	if (!__get_cpuid(0, &a, &b, &c, &d) || a < 0xa)
		return false;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (!strcmp(vendor, "AuthenticAMD")) {
		unsigned max;

		/* PerfMonV2 (leaf 0x80000022) says how many core counters;
		 * PerfCtrExtCore (0x80000001 ECX bit 23) means 6. Neither (a
		 * VM without a virtual PMU): leave it to the model. */
		if (!__get_cpuid(0x80000000, &max, &b, &c, &d))
			return false;
		*fixed = 0;
		if (max >= 0x80000022) {
			__cpuid(0x80000022, a, b, c, d);
			if ((a & 1) && (b & 0xf)) {
				*gp = (int)(b & 0xf);
				return true;
			}
		}
		__cpuid(0x80000001, a, b, c, d);
		if (c & (1u << 23)) {
			*gp = 6;
			return true;
		}
		return false;
	}
	if (strcmp(vendor, "GenuineIntel"))
		return false;
	__cpuid(0xa, a, b, c, d);
	if ((a & 0xff) == 0 || ((a >> 8) & 0xff) == 0)
		return false;
	*gp = (int)((a >> 8) & 0xff);
	*fixed = (a & 0xff) > 1 ? (int)(d & 0x1f) : 0;
	return true;
#else
	(void)gp;
	(void)fixed;
	return false;
#endif
}

void mux_counters__detect(struct mux_counters *c, const struct td_model *m, bool smt,
			  bool nmi_watchdog, bool host)
{
	int on = 0, off = 0, fixed = 0, gp, fx;

	td_model__counters(m, &on, &off, &fixed);
	memset(c, 0, sizeof(*c));
	c->gp = smt ? on : off;
	c->fixed = fixed;
	c->source = "model";
	/* only an x86 host answers, and its detected model is its vendor's */
	if (host && cpuid_counters(&gp, &fx)) {
		c->gp = gp;
		c->fixed = fx;
		c->source = "cpuid";
	}
	c->smt = smt;
	c->nmi_watchdog = nmi_watchdog;
	if (nmi_watchdog && c->gp > 1)
		c->gp--;
}

/* ---- counter restrictions -------------------------------------------------------- */

struct restriction {
	const char *models;	/* space-separated model ids */
	const char *prefix;	/* event id prefix */
	uint32_t mask;
};

/* From the "Counter" column of Intel's event lists: on Ice Lake and
 * later these stall and pending-miss events only count on counters 0-3. */
static const struct restriction restrictions[] = {
	{ "icl icx spr", "CYCLE_ACTIVITY.", 0x0f },
	{ "icl icx spr", "L1D_PEND_MISS.", 0x0f },
	{ "icl icx spr", "MEMORY_ACTIVITY.", 0x0f },
};

static bool word_in(const char *word, const char *list)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

uint32_t mux_event_counter_mask(const struct td_model *m, size_t i, int gp)
{
	const struct td_event *e = td_model__event(m, i);
	uint32_t all = gp >= 32 ? UINT32_MAX : (1u << gp) - 1;

	for (size_t k = 0; k < ARRAY_SIZE(restrictions); k++)
		if (word_in(td_model__id(m), restrictions[k].models) &&
		    !strncmp(e->id, restrictions[k].prefix, strlen(restrictions[k].prefix)))
			return restrictions[k].mask & all;
	return all;
}

/* ---- fitting ------------------------------------------------------------------------ */

static bool augment(const uint32_t *mask, size_t e, int *owner, bool *seen, int gp)
{
	for (int c = 0; c < gp; c++) {
		if (!(mask[e] & (1u << c)) || seen[c])
			continue;
		seen[c] = true;
		if (owner[c] < 0 || augment(mask, (size_t)owner[c], owner, seen, gp)) {
			owner[c] = (int)e;
			return true;
		}
	}
	return false;
}

/* Can these general events all have a counter of their own? */
static bool fits(const uint32_t *mask, size_t n, int gp)
{
	int owner[32];

	if ((int)n > gp || gp > 32)
		return (int)n <= gp;
	for (int c = 0; c < gp; c++)
		owner[c] = -1;
	for (size_t e = 0; e < n; e++) {
		bool seen[32] = { false };

		if (!augment(mask, e, owner, seen, gp))
			return false;
	}
	return true;
}

struct packer {
	struct mux_plan *plan;
	const struct td_model *m;
	const int *need;	/* the model events needed */
	size_t nr_need;
	bool metrics;		/* some are PERF_METRICS events */
	uint32_t *mask;		/* per model event */
	int *where;		/* per model event: group, -1 unplaced, -2 always,
				   -3 not needed */
	int cap;		/* general counters a group may use */
};

/* Would group g take these extra events? */
static bool group_takes(struct packer *p, size_t g, const int *ev, size_t n)
{
	struct mux_plan_group *gr = &p->plan->groups[g];
	uint32_t masks[64];
	size_t k = 0;

	for (size_t i = 0; i < gr->nr && k < 64; i++)
		if (p->mask[gr->events[i]])	/* general events only */
			masks[k++] = p->mask[gr->events[i]];
	for (size_t i = 0; i < n && k < 64; i++)
		masks[k++] = p->mask[ev[i]];
	return k <= 64 && fits(masks, k, p->cap);
}

static size_t new_group(struct mux_plan *plan)
{
	plan->groups = xrealloc(plan->groups, (plan->nr_groups + 1) * sizeof(*plan->groups));
	memset(&plan->groups[plan->nr_groups], 0, sizeof(*plan->groups));
	return plan->nr_groups++;
}

static void group_add(struct packer *p, size_t g, int ev)
{
	struct mux_plan_group *gr = &p->plan->groups[g];

	gr->events = xrealloc(gr->events, (gr->nr + 1) * sizeof(*gr->events));
	gr->events[gr->nr++] = ev;
	if (p->mask[ev])
		gr->gp_used++;
	p->where[ev] = (int)g;
}

/* Place events together: an existing group, else a new one; false when
 * they do not fit together even in an empty group. */
static bool place_together(struct packer *p, const int *ev, size_t n)
{
	size_t g;

	for (g = 0; g < p->plan->nr_groups; g++)
		if (group_takes(p, g, ev, n))
			break;
	if (g == p->plan->nr_groups) {
		g = new_group(p->plan);
		if (!group_takes(p, g, ev, n)) {
			p->plan->nr_groups--;
			free(p->plan->groups[g].events);
			return false;
		}
	}
	for (size_t i = 0; i < n; i++)
		group_add(p, g, ev[i]);
	return true;
}

/* General events named directly by a formula, not yet placed. */
static size_t formula_events(const struct td_model *m, const char *f, const int *where,
			     const uint32_t *mask, int *out, size_t max)
{
	size_t n = 0;

	while (f && *f) {
		const char *s = f;
		char tok[128];
		int e;

		while (*f && (isalnum((unsigned char)*f) || strchr("_.:", *f)))
			f++;
		if (f == s) {
			f++;
			continue;
		}
		if ((size_t)(f - s) >= sizeof(tok))
			continue;
		memcpy(tok, s, (size_t)(f - s));
		tok[f - s] = '\0';
		e = td_model__find_event(m, tok);
		if (e < 0 || where[e] != -1 || !mask[e])
			continue;
		for (size_t i = 0; i < n; i++)
			if (out[i] == e)
				goto next;
		if (n < max)
			out[n++] = e;
next:;
	}
	return n;
}

struct set {
	int ev[64];
	size_t n;
	size_t order;
};

static int cmp_set(const void *a, const void *b)
{
	const struct set *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool is_perf_metrics(const struct td_event *e)
{
	return e->group_hint && !strcmp(e->group_hint, "perf_metrics");
}

static int find_reference(const struct td_model *m, const int *need, size_t n)
{
	static const char *const names[] = { "cycles", "CPU_CLK_UNHALTED.THREAD", "CPU_CYCLES",
					     "ls_not_halted_cyc" };

	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		int e = td_model__find_event(m, names[k]);

		for (size_t i = 0; e >= 0 && i < n; i++)
			if (need[i] == e)
				return e;
	}
	return -1;
}

static void add_always(struct mux_plan *plan, int e)
{
	plan->always = xrealloc(plan->always, (plan->nr_always + 1) * sizeof(*plan->always));
	plan->always[plan->nr_always++] = e;
}

static void add_hint(struct mux_plan *plan, char *h)
{
	size_t n = 0;

	while (plan->hints && plan->hints[n])
		n++;
	plan->hints = xrealloc(plan->hints, (n + 2) * sizeof(*plan->hints));
	plan->hints[n] = h;
	plan->hints[n + 1] = NULL;
}

/* 1. Fixed counters (and the reference) outside the rotation. */
static void plan_always(struct packer *p, const struct mux_counters *c)
{
	struct mux_plan *plan = p->plan;
	size_t fixed_used = 0;

	for (size_t k = 0; k < p->nr_need; k++) {
		const struct td_event *e = td_model__event(p->m, (size_t)p->need[k]);

		if (e->fixed && !(p->metrics && is_perf_metrics(e))) {
			p->where[p->need[k]] = -2;
			fixed_used++;
		}
	}
	if (plan->reference >= 0) {
		if (p->where[plan->reference] != -2) {
			/* Arm's dedicated cycle counter when the model has a fixed
			 * counter left, else a general counter in every group --
			 * unless that leaves none: then it rotates like the rest
			 * and reliability is n/a */
			if ((int)fixed_used >= c->fixed && p->cap > 1) {
				p->cap--;
				p->where[plan->reference] = -2;
			} else if ((int)fixed_used < c->fixed) {
				p->where[plan->reference] = -2;
			} else {
				plan->reference = -1;
			}
		}
		if (plan->reference >= 0)
			add_always(plan, plan->reference);
	}
	for (size_t k = 0; k < p->nr_need; k++)
		if (p->where[p->need[k]] == -2 && p->need[k] != plan->reference)
			add_always(plan, p->need[k]);
}

/* The general counters each rotating event may use; an error when none is
 * left for the groups, or an event fits none. */
static int plan_masks(struct packer *p, const struct mux_counters *c, char **cause)
{
	const struct td_model *m = p->m;

	if (p->cap < 1)
		return gx_fail(cause, GX_E_EVENT, "model %s: no general counter is left for the groups (%d usable%s)",
			       td_model__id(m), c->gp,
			       c->nmi_watchdog ? ", one held by the NMI watchdog" : "");
	for (size_t k = 0; k < p->nr_need; k++) {
		int ev = p->need[k];
		const struct td_event *e = td_model__event(m, (size_t)ev);

		if (p->where[ev] != -1 || e->fixed || is_perf_metrics(e))
			continue;
		p->mask[ev] = mux_event_counter_mask(m, (size_t)ev, p->cap);
		if (!p->mask[ev])
			return gx_fail(cause, GX_E_EVENT, "model %s: event %s fits no counter of %d",
				       td_model__id(m), e->id, p->cap);
	}
	return 0;
}

/* 2. The PERF_METRICS group: slots, then the metrics. */
static void plan_perf_metrics(struct packer *p)
{
	size_t g = new_group(p->plan);

	p->plan->groups[g].perf_metrics = true;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < p->nr_need; k++) {
			const struct td_event *e = td_model__event(p->m, (size_t)p->need[k]);

			if (is_perf_metrics(e) && (pass == 0) == e->fixed)
				group_add(p, g, p->need[k]);
		}
}

/* 3. What each metric names, kept together: largest sets first, each in
 * one group where it fits, else event by event. */
static void plan_formula_sets(struct packer *p, const struct td_ctx *ctx)
{
	const struct td_model *m = p->m;
	struct set *sets = NULL;
	size_t nsets = 0;

	for (size_t i = 0; i < td_model__nr_nodes(m); i++) {
		struct set s = { .order = i };

		s.n = formula_events(m, td_model__node_formula(m, i, ctx ? ctx->variant : NULL),
				     p->where, p->mask, s.ev, ARRAY_SIZE(s.ev));
		if (s.n < 2)
			continue;
		sets = xrealloc(sets, (nsets + 1) * sizeof(*sets));
		sets[nsets++] = s;
	}
	if (nsets)
		gx_qsort(sets, nsets, sizeof(*sets), cmp_set);
	for (size_t i = 0; i < nsets; i++) {
		int left[64];
		size_t n = 0;

		for (size_t k = 0; k < sets[i].n; k++)
			if (p->where[sets[i].ev[k]] == -1)
				left[n++] = sets[i].ev[k];
		if (n && !place_together(p, left, n))
			for (size_t k = 0; k < n; k++)
				place_together(p, &left[k], 1);
	}
	free(sets);
}

/* The per-event view and the hints. */
static void plan_finish(struct packer *p, const struct mux_counters *c)
{
	struct mux_plan *plan = p->plan;

	plan->ev = xcalloc(p->nr_need + 1, sizeof(*plan->ev));
	for (size_t k = 0; k < p->nr_need; k++) {
		struct mux_plan_event *pe = &plan->ev[plan->nr_ev++];

		pe->event = p->need[k];
		pe->group = p->where[p->need[k]] >= 0 ? p->where[p->need[k]] : -1;
		pe->slot = pe->group >= 0 ? MUX_SLOT_GROUP : MUX_SLOT_ALWAYS;
		pe->counter_mask = p->mask[p->need[k]];
	}
	if (c->nmi_watchdog)
		add_hint(plan, xasprintf("the NMI watchdog holds a general counter: `sysctl kernel.nmi_watchdog=0` frees it (%d instead of %d per group)",
					 c->gp + 1, c->gp));
	if (plan->nr_groups > 1)
		add_hint(plan, xasprintf("%zu groups rotate: each is counted about 1/%zu of the run; runs shorter than %zu ms give a group fewer than %d slices of %d ms (use --mux-runs for short runs)",
					 plan->nr_groups, plan->nr_groups,
					 plan->nr_groups * MUX_MIN_SLICES * MUX_DEFAULT_SLICE_MS,
					 MUX_MIN_SLICES, MUX_DEFAULT_SLICE_MS));
}

int mux_plan__model(struct mux_plan *plan, const struct td_model *m, const struct td_ctx *ctx,
		    const struct mux_counters *c, char **cause)
{
	size_t nev = td_model__nr_events(m), nr_need = 0;
	int *need = NULL, err;
	struct packer p = { .plan = plan, .m = m };

	memset(plan, 0, sizeof(*plan));
	plan->counters = *c;
	plan->reference = -1;
	err = td_model__needed_events(m, ctx, -1, &need, &nr_need);
	if (err)
		return gx_fail(cause, err, "model %s: unknown variant '%s'", td_model__id(m),
			       ctx && ctx->variant ? ctx->variant : "");
	p.need = need;
	p.nr_need = nr_need;
	p.mask = xcalloc(nev + 1, sizeof(*p.mask));
	p.where = xcalloc(nev + 1, sizeof(*p.where));
	for (size_t i = 0; i < nev; i++)
		p.where[i] = -3;	/* not needed */
	for (size_t k = 0; k < nr_need; k++) {
		p.where[need[k]] = -1;
		p.metrics |= is_perf_metrics(td_model__event(m, (size_t)need[k]));
	}
	p.cap = c->gp;
	plan->reference = find_reference(m, need, nr_need);

	plan_always(&p, c);
	err = plan_masks(&p, c, cause);
	if (err)
		goto out_free;
	if (p.metrics)
		plan_perf_metrics(&p);
	plan_formula_sets(&p, ctx);
	/* 4. the rest, first fit */
	for (size_t k = 0; k < nr_need; k++)
		if (p.where[need[k]] == -1 && !place_together(&p, &need[k], 1)) {
			err = gx_fail(cause, GX_E_EVENT, "model %s: event %s fits no group",
				      td_model__id(m), td_model__event(m, (size_t)need[k])->id);
			goto out_free;
		}
	plan_finish(&p, c);
out_free:
	if (err)
		mux_plan__exit(plan);
	free(p.mask);
	free(p.where);
	free(need);
	return err;
}

void mux_plan__exit(struct mux_plan *plan)
{
	for (size_t g = 0; g < plan->nr_groups; g++)
		free(plan->groups[g].events);
	free(plan->groups);
	free(plan->ev);
	free(plan->always);
	mux_strv_free(plan->hints);
	memset(plan, 0, sizeof(*plan));
	plan->reference = -1;
}

/* ---- output ------------------------------------------------------------------------- */

/* perf's spelling of an event, for `perf stat -e`. */
static void perf_name(const struct td_event *e, struct strbuf *sb)
{
	if (e->perf)
		strbuf__addstr(sb, e->perf);
	else if (e->has_raw && e->raw_type == 4)
		strbuf__addf(sb, "r%llx", (unsigned long long)e->raw_config);
	else
		strbuf__addstr(sb, e->pfm ? e->pfm : e->id);
}

char *mux_plan__spec(const struct mux_plan *plan, const struct td_model *m, enum mux_spelling sp)
{
	struct strbuf sb = STRBUF_INIT;
	/* The collector's spelling: raw encodings with each event's SAV, so
	 * the slots-led PERF_METRICS group (SAV 0) counts without sampling,
	 * as the kernel requires. perf's: its names (slots, topdown-*). */
	void (*spell)(const struct td_event *, struct strbuf *) =
		sp == MUX_SPELL_PERF ? perf_name : td_event__spec;

	for (size_t i = 0; i < plan->nr_always; i++) {
		if (sb.len)
			strbuf__addstr(&sb, ",");
		spell(td_model__event(m, (size_t)plan->always[i]), &sb);
	}
	for (size_t g = 0; g < plan->nr_groups; g++) {
		strbuf__addstr(&sb, sb.len ? ",{" : "{");
		for (size_t i = 0; i < plan->groups[g].nr; i++) {
			if (i)
				strbuf__addstr(&sb, ",");
			spell(td_model__event(m, (size_t)plan->groups[g].events[i]), &sb);
		}
		strbuf__addstr(&sb, "}");
	}
	return strbuf__detach(&sb);
}

void mux_plan__render(const struct mux_plan *plan, const struct td_model *m, struct strbuf *sb)
{
	const struct mux_counters *c = &plan->counters;

	strbuf__addf(sb, "Multiplexing plan for %s: %d general counter%s per logical CPU (SMT %s, from the %s%s), %d fixed\n",
		     td_model__id(m), c->gp, c->gp == 1 ? "" : "s", c->smt ? "on" : "off", c->source,
		     c->nmi_watchdog ? "; one fewer: NMI watchdog" : "", c->fixed);
	strbuf__addstr(sb, "  always on (outside the rotation):");
	for (size_t i = 0; i < plan->nr_always; i++)
		strbuf__addf(sb, "%s %s%s", i ? "," : "", td_model__event(m, (size_t)plan->always[i])->id,
			     plan->always[i] == plan->reference ? " (reference)" : "");
	if (!plan->nr_always)
		strbuf__addstr(sb, " none (no reference event: reliability n/a)");
	strbuf__addstr(sb, "\n");
	for (size_t g = 0; g < plan->nr_groups; g++) {
		const struct mux_plan_group *gr = &plan->groups[g];

		strbuf__addf(sb, "  group %zu (%d general%s):", g + 1, gr->gp_used,
			     gr->perf_metrics ? ", PERF_METRICS led by slots" : "");
		for (size_t i = 0; i < gr->nr; i++)
			strbuf__addf(sb, "%s %s", i ? "," : "", td_model__event(m, (size_t)gr->events[i])->id);
		strbuf__addstr(sb, "\n");
	}
	for (char **h = plan->hints; h && *h; h++)
		strbuf__addf(sb, "  hint: %s\n", *h);
}
