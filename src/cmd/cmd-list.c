#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-int.h"
#include "mux/mux.h"
#include "topdown/topdown.h"
#include "util/util.h"

/*
 * `gexplore list`: the model, its metric tree, its events and the groups
 * the multiplexing planner (src/mux) packs them into for this CPU's
 * counters (or --cpu/--smt/--nmi-watchdog's).
 */

/* Group column: F fixed / always on, 1..n the group, - not needed. */
static void plan_columns(const struct td_model *m, const struct mux_plan *plan, int *group)
{
	for (size_t i = 0; i < td_model__nr_events(m); i++)
		group[i] = 0;
	for (size_t k = 0; k < plan->nr_ev; k++)
		group[plan->ev[k].event] = plan->ev[k].group >= 0 ? plan->ev[k].group + 1 : -1;
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

static void print_perf(const struct td_model *m, const struct mux_plan *plan)
{
	char *spec = mux_plan__spec(plan, m, MUX_SPELL_PERF);

	printf("perf stat -e '%s'\n", spec);
	free(spec);
}

static void print_model(const struct td_model *m, const char *variant,
			const struct mux_plan *plan, const int *group)
{
	struct strbuf sb = STRBUF_INIT;
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
	if (td_model__width(m) > 0) {
		printf("Width:     %d slots per cycle\n", td_model__width(m));
		printf("Counters:  %d general per logical CPU with SMT on, %d with SMT off, %d fixed\n",
		       on, off, fixed);
	} else {	/* record --model's tree: shares of modelled cycles */
		printf("Width:     none (shares of cycles, not of issue slots)\n");
		printf("Counters:  none (its events are written by record --model, not counted)\n");
	}
	if (td_model__upstream_none(m))
		printf("Authority: none: %s\n", td_model__upstream_none(m));
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
		if (d->upstream)
			printf("%*s  upstream: %s\n", ind, "", d->upstream);
		else if (d->own)
			printf("%*s  gexplore's own: %s\n", ind, "", d->own);
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
			printf("  %-16s = %s%s%s%s\n", d->name, td_model__node_formula(m, i, variant),
			       d->hidden ? "  (helper)" : "", d->upstream ? "  upstream: " : "",
			       d->upstream ? d->upstream : d->own ? "  (gexplore's own)" : "");
	}

	printf("\nEvents (group: the multiplexing plan below; F = always on, outside the rotation;\n"
	       "- = only sampled to locate a bottleneck; %zu group(s)):\n", plan->nr_groups);
	printf("  %-46s %-5s %-10s %-7s %s\n", "EVENT", "GROUP", "SAV", "PRECISE", "ENCODING / PERF");
	for (size_t i = 0; i < td_model__nr_events(m); i++) {
		const struct td_event *e = td_model__event(m, i);
		char enc[128], g[16], sav[24], pbuf[64];

		encoding(e, enc, sizeof(enc));
		if (group[i] < 0)
			snprintf(g, sizeof(g), "F");
		else if (group[i] == 0)
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
		if (e->generic)	/* what perf stat -e cycles ... counts on this CPU */
			printf("  %-46s %-5s %-10s %-7s generic: %s\n", "", "", "", "", e->generic);
	}
	mux_plan__render(plan, m, &sb);
	printf("\n%s", sb.buf ? sb.buf : "");
	strbuf__exit(&sb);
}

struct list_opts {
	const char *cpu, *variant;
	bool perf, models, plan;
	int smt;	/* enum td_smt */
	int nmi;	/* -1: as this machine's */
};

static const struct cmd_enum on_off_smt[] = {
	{ "on", TD_SMT_ON }, { "off", TD_SMT_OFF }, { NULL, 0 },
};
static const struct cmd_enum on_off[] = { { "on", 1 }, { "off", 0 }, { NULL, 0 } };

static const struct cmd_option list_options[] = {
	CMD_OPT_STRING(0, "cpu", struct list_opts, cpu, "MODEL", "the model of another CPU",
		       "this CPU's"),
	CMD_OPT_BOOL(0, "perf", struct list_opts, perf,
		     "only the plan's perf stat command line"),
	CMD_OPT_BOOL(0, "plan", struct list_opts, plan, "only the multiplexing plan"),
	CMD_OPT_ENUM(0, "smt", struct list_opts, smt, on_off_smt,
		     "plan for SMT on or off", "as this machine"),
	CMD_OPT_ENUM(0, "nmi-watchdog", struct list_opts, nmi, on_off,
		     "plan with the NMI watchdog holding a counter or not", "as this machine"),
	CMD_OPT_STRING(0, "variant", struct list_opts, variant, "NAME",
		       "the formulas of one of the model's variants", "default"),
	CMD_OPT_BOOL(0, "models", struct list_opts, models, "list the model ids and exit"),
	CMD_OPT_END(),
};

static int cmd_list_exec(int argc, char **argv)
{
	struct list_opts o = { .smt = td_smt_detect(), .nmi = -1 };
	const char *cpu, *variant;
	char *detected = NULL, *cause = NULL;
	struct td_model *m = NULL;
	enum td_smt smt;
	bool perf, models, only_plan, nmi;
	int ret = GX_EXIT_OK, err, *group = NULL;
	struct mux_plan plan = { .reference = -1 };
	struct mux_counters counters;
	struct cmd_args a;

	if (cmd_parse(&cmd_list_entry, &o, argc, argv, &a))
		return a.exit;
	cpu = o.cpu;
	variant = o.variant;
	smt = (enum td_smt)o.smt;
	perf = o.perf;
	models = o.models;
	only_plan = o.plan;
	nmi = o.nmi < 0 ? mux_nmi_watchdog_active() : o.nmi;
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
	if (detected && !variant) {	/* this CPU's revision (N2 r0p3) */
		struct td_cpu c;

		td_cpu_detect(&c);
		variant = td_model__cpu_variant(m, &c);
	}
	mux_counters__detect(&counters, m, smt == TD_SMT_ON, nmi, detected != NULL);
	{
		struct td_ctx ctx = { .smt = smt, .variant = variant };

		err = mux_plan__model(&plan, m, &ctx, &counters, &cause);
	}
	if (err) {
		cmd_error("list: %s", cause);
		ret = err == -EINVAL ? GX_EXIT_USAGE : GX_EXIT_FAIL;
		goto out;
	}
	group = xcalloc(td_model__nr_events(m) + 1, sizeof(int));
	plan_columns(m, &plan, group);
	if (perf) {
		print_perf(m, &plan);
	} else if (only_plan) {
		struct strbuf sb = STRBUF_INIT;

		mux_plan__render(&plan, m, &sb);
		printf("%s", sb.buf ? sb.buf : "");
		strbuf__exit(&sb);
	} else {
		print_model(m, variant, &plan, group);
	}
out:
	free(group);
	mux_plan__exit(&plan);
	td_model__delete(m);
	free(detected);
	free(cause);
	return ret;
}

GX_COMMAND(list, "", 0,
	   "show the metric tree and the events for this (or another) CPU");
