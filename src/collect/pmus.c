/*
 * pmus.c: the core PMUs of a hybrid machine, and an event list opened on
 * every one of them, as perf does.
 *
 * An Intel hybrid part has one PMU per core type (cpu_core for the
 * P-cores, cpu_atom for the E-cores, cpu_lowpower on some), each with its
 * dynamic type and its CPUs in /sys/bus/event_source/devices/NAME/{type,
 * cpus}. A generic hardware event (cycles, instructions, a cache event)
 * then exists once per core PMU: its PMU type goes in the config's upper
 * 32 bits (PERF_PMU_TYPE_SHIFT) and it is opened only on that PMU's CPUs.
 * A raw encoding describes one core type's event: it goes to cpu_core.
 * GX_SYSFS replaces /sys (tests build a fake tree).
 */
#include "config.h"

#include "collect/collect-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const core_names[] = { "cpu_core", "cpu_atom", "cpu_lowpower" };

static const char *sysfs_root(void)
{
	const char *s = getenv("GX_SYSFS");

	return s && *s ? s : "/sys";
}

char *collect_pmu_file(const char *pmu, const char *file)
{
	char *path = xasprintf("%s/bus/event_source/devices/%s/%s", sysfs_root(), pmu, file);
	char *s = gx_read_file(path, 1 << 16);

	free(path);
	return s;
}

static int parse_cpus(const char *list, int **cpus, size_t *nr)
{
	const char *p = list;
	size_t n = 0, cap = 0;
	int *v = NULL;
	long a, b;

	while (gx_cpulist_next(&p, &a, &b))
		for (long c = a; c <= b; c++) {
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			v[n++] = (int)c;
		}
	*cpus = v;
	*nr = n;
	return n ? 0 : -1;
}

void collect_core_pmus__free(struct collect_core_pmu *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].cpus);
	free(p);
}

size_t collect_core_pmus(struct collect_core_pmu **out)
{
	struct collect_core_pmu *v = NULL;
	size_t n = 0;

	*out = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(core_names); i++) {
		char *type = collect_pmu_file(core_names[i], "type");
		char *cpus = type ? collect_pmu_file(core_names[i], "cpus") : NULL;
		struct collect_core_pmu p = { .name = core_names[i] };

		if (type && cpus && parse_cpus(cpus, &p.cpus, &p.nr_cpus) == 0) {
			p.type = (uint32_t)strtoul(type, NULL, 10);
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = p;
		}
		free(type);
		free(cpus);
	}
	if (n < 2) {		/* one core type: not hybrid */
		collect_core_pmus__free(v, n);
		return 0;
	}
	*out = v;
	return n;
}

static bool generic_hw(const struct perf_event_attr *a)
{
	return (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE) &&
	       !(a->config >> 32);
}

/* The core PMU event e names already ("cpu_atom/cycles/", a cpu_core
 * raw type), or -1. */
static int bound_pmu(const struct collect_event *e, const struct collect_core_pmu *p, size_t np)
{
	const struct perf_event_attr *a = &e->attr;

	for (size_t i = 0; i < np; i++) {
		if ((a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE) &&
		    a->config >> 32 == p[i].type)
			return (int)i;
		if (a->type == p[i].type)
			return (int)i;
	}
	return -1;
}

/* Give copy c of event e PMU p: its type, name and CPUs (an event bound
 * to p already keeps its attr and name). */
static void on_pmu(struct collect_event *c, const struct collect_event *e,
		   const struct collect_core_pmu *p, bool bound)
{
	const char *slash = strchr(e->name, '/');

	*c = *e;
	if (bound) {
		c->name = xstrdup(e->name);
	} else if (generic_hw(&e->attr)) {
		c->attr.config |= (uint64_t)p->type << 32;
	} else if (e->attr.type == PERF_TYPE_RAW) {
		c->attr.type = p->type;
	}
	/* "cycles:u" -> "cpu_core/cycles/:u"; "cpu/event=.../" -> "cpu_core/event=.../" */
	if (bound)
		;
	else if (slash && !strncmp(e->name, "cpu/", 4))
		c->name = xasprintf("%s%s", p->name, slash);
	else {
		const char *colon = strchr(e->name, ':');
		int len = colon ? (int)(colon - e->name) : (int)strlen(e->name);

		c->name = xasprintf("%s/%.*s/%s", p->name, len, e->name, colon ? colon : "");
	}
	c->ids = NULL;
	c->nr_ids = 0;
	c->cpus = xmalloc((p->nr_cpus ? p->nr_cpus : 1) * sizeof(*c->cpus));
	memcpy(c->cpus, p->cpus, p->nr_cpus * sizeof(*c->cpus));
	c->nr_cpus = p->nr_cpus;
}

/* Does events [a, b) have a copy on every core PMU (all generic hardware
 * or software), or only on cpu_core (a raw encoding among them)? */
static bool every_core(const struct collect_event *ev, size_t a, size_t b)
{
	for (size_t i = a; i < b; i++)
		if (collect_attr__is_pmu(&ev[i].attr) && !generic_hw(&ev[i].attr))
			return false;
	return true;
}

static bool any_pmu(const struct collect_event *ev, size_t a, size_t b)
{
	for (size_t i = a; i < b; i++)
		if (collect_attr__is_pmu(&ev[i].attr))
			return true;
	return false;
}

int collect_events__hybrid(struct collect_event **evp, size_t *nrp)
{
	struct collect_core_pmu *pmus;
	size_t np = collect_core_pmus(&pmus), n = *nrp, k = 0, cap = 0;
	struct collect_event *ev = *evp, *out = NULL;
	int ngroups = 0;

	if (!np)
		return 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		bool grouped = ev[i].group >= 0;

		if (grouped)	/* a whole group at a time */
			while (j < n && ev[j].group == ev[i].group && !ev[j].leader)
				j++;
		if (!any_pmu(ev, i, j)) {
			/* software: as it is, moved */
			for (size_t x = i; x < j; x++) {
				out = xgrow(out, &cap, k + 1, sizeof(*out));
				out[k] = ev[x];
				if (out[k].group >= 0)
					out[k].group = ngroups;
				k++;
				memset(&ev[x], 0, sizeof(ev[x]));
			}
			if (grouped)
				ngroups++;
			i = j;
			continue;
		}
		int bound = -1;

		for (size_t x = i; x < j && bound < 0; x++)
			bound = bound_pmu(&ev[x], pmus, np);
		for (size_t pi = bound >= 0 ? (size_t)bound : 0; pi < np; pi++) {
			if (bound >= 0 ? pi != (size_t)bound : pi && !every_core(ev, i, j))
				break;	/* raw encodings: the P-cores (cpu_core, first) */
			for (size_t x = i; x < j; x++) {
				out = xgrow(out, &cap, k + 1, sizeof(*out));
				if (collect_attr__is_pmu(&ev[x].attr)) {
					on_pmu(&out[k], &ev[x], &pmus[pi],
					       bound_pmu(&ev[x], pmus, np) >= 0);
				} else {
					out[k] = ev[x];
					out[k].name = xstrdup(ev[x].name);
					out[k].ids = NULL;
					out[k].cpus = xmalloc(pmus[pi].nr_cpus * sizeof(int));
					memcpy(out[k].cpus, pmus[pi].cpus, pmus[pi].nr_cpus * sizeof(int));
					out[k].nr_cpus = pmus[pi].nr_cpus;
				}
				/* the first event's mmap/comm/task records stay on
				 * each of its copies: together they cover every CPU */
				if (ev[x].group >= 0)
					out[k].group = ngroups;
				k++;
			}
			if (grouped)
				ngroups++;
		}
		i = j;
	}
	/* the originals' strings were moved or copied */
	for (size_t i = 0; i < n; i++) {
		free(ev[i].name);
		free(ev[i].ids);
		free(ev[i].cpus);
	}
	free(ev);
	collect_core_pmus__free(pmus, np);
	*evp = out;
	*nrp = k;
	return 0;
}
