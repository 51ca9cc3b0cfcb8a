#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topdown/topdown.h"

/*
 * `gexplore list`: the model, its metric tree and its events. The group
 * column is a plain greedy packing into the model's counter limits, a
 * stand-in until the multiplexing planner (src/mux) decides real groups.
 */

enum { GROUP_NONE = -1, GROUP_FIXED = -2, GROUP_METRICS = -3 };

/* Assign a group to each needed event: fixed counters, the PERF_METRICS group, or 1..n. */
static int pack_groups(const struct td_model *m, const int *need, size_t nr_need, int gp,
		       int *group)
{
	int cur = 0, used = 0;

	for (size_t i = 0; i < td_model__nr_events(m); i++)
		group[i] = GROUP_NONE;
	for (size_t k = 0; k < nr_need; k++) {
		const struct td_event *e = td_model__event(m, (size_t)need[k]);

		if (e->group_hint && strcmp(e->group_hint, "perf_metrics") == 0) {
			group[need[k]] = GROUP_METRICS;
		} else if (e->fixed) {
			group[need[k]] = GROUP_FIXED;
		} else {
			if (cur == 0 || used == gp) {
				cur++;
				used = 0;
			}
			group[need[k]] = cur;
			used++;
		}
	}
	return cur;
}

static void encoding(const struct td_event *e, char *buf, size_t n)
{
	if (e->has_raw && e->raw_config1)
		snprintf(buf, n, "raw type=%u config=0x%llx config1=0x%llx", e->raw_type,
			 (unsigned long long)e->raw_config, (unsigned long long)e->raw_config1);
	else if (e->has_raw)
		snprintf(buf, n, "raw type=%u config=0x%llx", e->raw_type,
			 (unsigned long long)e->raw_config);
	else
		snprintf(buf, n, "%s", e->pfm ? e->pfm : "-");
}

static const char *perf_name(const struct td_event *e, char *buf, size_t n)
{
	if (e->perf)
		return e->perf;
	if (e->has_raw && e->raw_type == 4) {
		snprintf(buf, n, "r%llx", (unsigned long long)e->raw_config);
		return buf;
	}
	return e->id;
}

static void print_perf(const struct td_model *m, const int *group, int nr_groups)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[64];
	struct strbuf mg = STRBUF_INIT;

	/* the PERF_METRICS group: slots (the fixed one) leads, then the metrics */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < td_model__nr_events(m); i++) {
			const struct td_event *e = td_model__event(m, i);

			if (group[i] != GROUP_METRICS || (pass == 0) != e->fixed)
				continue;
			strbuf__addf(&mg, "%s%s", mg.len ? "," : "", perf_name(e, buf, sizeof(buf)));
		}
	if (mg.len)
		strbuf__addf(&sb, "{%s}", mg.buf);
	strbuf__exit(&mg);
	for (int g = 1; g <= nr_groups; g++) {
		strbuf__addf(&sb, "%s{", sb.len ? "," : "");
		for (size_t i = 0, k = 0; i < td_model__nr_events(m); i++)
			if (group[i] == g)
				strbuf__addf(&sb, "%s%s", k++ ? "," : "",
					     perf_name(td_model__event(m, i), buf, sizeof(buf)));
		strbuf__addstr(&sb, "}");
	}
	for (size_t i = 0; i < td_model__nr_events(m); i++)
		if (group[i] == GROUP_FIXED)
			strbuf__addf(&sb, "%s%s", sb.len ? "," : "",
				     perf_name(td_model__event(m, i), buf, sizeof(buf)));
	printf("perf stat -e '%s'\n", sb.buf ? sb.buf : "");
	strbuf__exit(&sb);
}

static void print_model(const struct td_model *m, const char *variant, enum td_smt smt,
			const int *group, int nr_groups, int gp)
{
	const char *const *al = td_model__aliases(m);
	const char *const *vars = td_model__variants(m);
	int on, off, fixed;

	td_model__counters(m, &on, &off, &fixed);
	printf("Model:     %s (%s)\n", td_model__id(m), td_model__name(m));
	printf("File:      %s\n", td_model__file(m));
	if (al && al[0]) {
		printf("Aliases:  ");
		for (; *al; al++)
			printf(" %s", *al);
		printf("\n");
	}
	printf("Width:     %d slots per cycle\n", td_model__width(m));
	printf("Counters:  %d general per logical CPU with SMT on, %d with SMT off, %d fixed\n", on,
	       off, fixed);
	if (vars && vars[0]) {
		printf("Variants:  default");
		for (; *vars; vars++)
			printf(", %s", *vars);
		printf(" (showing %s)\n", variant ? variant : "default");
	}
	if (td_model__threshold_note(m))
		printf("Thresholds: %s\n", td_model__threshold_note(m));

	printf("\nMetric tree (flag = threshold; \"under flagged parent\" = the parent must be flagged too):\n");
	for (size_t i = 0; i < td_model__nr_nodes(m); i++) {
		const struct td_node *d = td_model__node(m, i);
		int ind = d->level > 0 ? 2 * d->level : 2;

		if (d->level == 0)
			continue;
		printf("%*s%s\n", ind, "", d->name);
		printf("%*s  = %s\n", ind, "", td_model__node_formula(m, i, variant));
		if (d->threshold)
			printf("%*s  flag: %s%s\n", ind, "", d->threshold,
			       d->threshold_parent && d->parent ? " (under flagged parent)" : "");
		if (d->locate)
			printf("%*s  locate with: %s\n", ind, "", d->locate);
		if (d->desc)
			printf("%*s  %s\n", ind, "", d->desc);
	}
	printf("\nInfo metrics:\n");
	for (size_t i = 0; i < td_model__nr_nodes(m); i++) {
		const struct td_node *d = td_model__node(m, i);

		if (d->level == 0)
			printf("  %-16s = %s%s\n", d->name, td_model__node_formula(m, i, variant),
			       d->hidden ? "  (helper)" : "");
	}

	printf("\nEvents (group: greedy packing into %d general counters for SMT %s -- a placeholder,\n"
	       "not the multiplexing planner, and blind to the NMI watchdog's counter; F = fixed counter,\n"
	       "M = PERF_METRICS group led by slots, "
	       "- = only sampled to locate a bottleneck; %d group(s)):\n",
	       gp, smt == TD_SMT_ON ? "on" : "off", nr_groups);
	printf("  %-46s %-5s %-10s %-7s %s\n", "EVENT", "GROUP", "SAV", "PRECISE", "ENCODING / PERF");
	for (size_t i = 0; i < td_model__nr_events(m); i++) {
		const struct td_event *e = td_model__event(m, i);
		char enc[128], g[8], sav[24], pbuf[64];

		encoding(e, enc, sizeof(enc));
		if (group[i] == GROUP_FIXED)
			snprintf(g, sizeof(g), "F");
		else if (group[i] == GROUP_METRICS)
			snprintf(g, sizeof(g), "M");
		else if (group[i] == GROUP_NONE)
			snprintf(g, sizeof(g), "-");
		else
			snprintf(g, sizeof(g), "%d", group[i]);
		if (e->sav)
			snprintf(sav, sizeof(sav), "%llu", (unsigned long long)e->sav);
		else
			snprintf(sav, sizeof(sav), "-");
		printf("  %-46s %-5s %-10s %-7s %s\n", e->id, g, sav, e->precise ? "yes" : "no", enc);
		printf("  %-46s %-5s %-10s %-7s perf: %s\n", "", "", "", "",
		       perf_name(e, pbuf, sizeof(pbuf)));
	}
}

static int cmd_list_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "perf", no_argument, NULL, 'p' },
		{ "smt", required_argument, NULL, 's' },
		{ "variant", required_argument, NULL, 'v' },
		{ "models", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cpu = NULL, *variant = NULL;
	char *detected = NULL, *cause = NULL;
	struct td_model *m = NULL;
	enum td_smt smt;
	bool perf = false, models = false;
	int c, ret = GX_EXIT_OK, gp, nr_groups, err, *need = NULL, *group = NULL;
	size_t nr_need;

	smt = td_smt_detect();
	optind = 1;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': cpu = optarg; break;
		case 'p': perf = true; break;
		case 'v': variant = optarg; break;
		case 'm': models = true; break;
		case 's':
			if (strcmp(optarg, "on") == 0)
				smt = TD_SMT_ON;
			else if (strcmp(optarg, "off") == 0)
				smt = TD_SMT_OFF;
			else {
				cmd_error("list: --smt takes on or off, not '%s'", optarg);
				return GX_EXIT_USAGE;
			}
			break;
		default:
			return cmd_usage(&cmd_list_entry);
		}
	}
	if (optind != argc)
		return cmd_usage(&cmd_list_entry);
	if (models) {
		char **ids;

		err = td_model_list(NULL, &ids, &cause);
		if (err) {
			cmd_error("list: %s", cause);
			free(cause);
			return GX_EXIT_FAIL;
		}
		for (char **id = ids; *id; id++)
			printf("%s\n", *id);
		td_strv_free(ids);
		return GX_EXIT_OK;
	}
	if (!cpu)
		cpu = detected = td_detect_model();
	err = td_model__load(cpu, NULL, &m, &cause);
	if (err) {
		cmd_error("list: %s", cause);
		ret = err == -ENOENT ? GX_EXIT_USAGE : GX_EXIT_FAIL;
		goto out;
	}
	{
		struct td_ctx ctx = { .smt = smt, .variant = variant };

		err = td_model__needed_events(m, &ctx, -1, &need, &nr_need);
	}
	if (err) {
		cmd_error("list: model %s has no variant '%s'", td_model__id(m), variant);
		ret = GX_EXIT_USAGE;
		goto out;
	}
	td_model__counters(m, &gp, NULL, NULL);
	if (smt != TD_SMT_ON)
		td_model__counters(m, NULL, &gp, NULL);
	group = calloc(td_model__nr_events(m) + 1, sizeof(int));
	if (!group) {
		ret = GX_EXIT_FAIL;
		goto out;
	}
	nr_groups = pack_groups(m, need, nr_need, gp, group);
	if (perf)
		print_perf(m, group, nr_groups);
	else
		print_model(m, variant, smt, group, nr_groups, gp);
out:
	free(group);
	free(need);
	td_model__delete(m);
	free(detected);
	free(cause);
	return ret;
}

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.usage = "list [--cpu MODEL] [--perf] [--smt on|off] [--variant NAME] [--models]",
	.summary = "show the metric tree and the events for this (or another) CPU",
	.exec = cmd_list_exec,
};
