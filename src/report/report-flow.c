/*
 * report-flow.c: what the branches say (issue 42): `report --by
 * block|loop|branch` in text, and the tables ranges, branches, blocks and
 * loops in --json (gexplore-report(1)). Addresses are the modules' own,
 * as objdump prints them.
 */
#include "config.h"

#include "report-int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flow.h"
#include "result/result.h"
#include "util/util.h"

static json_t *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

static json_t *ratio(double num, double den)
{
	return den > 0 ? json_real(num / den) : json_null();
}

/* Indices 0 .. n ordered by weight w, highest first (ties by index). */
static const double *sort_w;

static int cmp_w(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_w[x] != sort_w[y])
		return sort_w[x] > sort_w[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static size_t *order_by(const double *w, size_t n)
{
	size_t *v = xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = i;
	sort_w = w;
	gx_qsort(v, n, sizeof(*v), cmp_w);
	return v;
}

static size_t shown(const struct report_opts *o, size_t n)
{
	return o->limit && o->limit < n ? o->limit : n;
}

/* A block's weight: its cycles where timed, else executions by size. */
static double block_weight(const struct flow_block *b)
{
	if (b->timed)
		return b->cycles / (double)b->timed * (double)b->execs;
	return (double)b->execs * (double)(b->insns ? b->insns : b->end - b->start + 1);
}

static void where_json(json_t *o, const struct gx_flow *f, uint32_t module, uint64_t addr)
{
	const char *fn, *file;
	uint32_t line;

	gx_flow__where(f, module, addr, &fn, &file, &line);
	json_object_set_new(o, "module", json_string(gx_utf8(gx_flow__module(f, module))));
	json_object_set_new(o, "function", json_string(gx_utf8(fn)));
	json_object_set_new(o, "file", json_string(gx_utf8(file)));
	json_object_set_new(o, "line", json_integer(line));
}

static json_t *json_ranges(const struct gx_flow *f, const struct report_opts *o)
{
	json_t *a = json_array();
	double *w = xcalloc(f->nr_ranges + 1, sizeof(*w));
	size_t *ord;

	for (size_t i = 0; i < f->nr_ranges; i++)
		w[i] = (double)f->ranges[i].count;
	ord = order_by(w, f->nr_ranges);
	for (size_t k = 0; k < shown(o, f->nr_ranges); k++) {
		const struct flow_range *r = &f->ranges[ord[k]];
		json_t *e = json_object();

		json_object_set_new(e, "module", json_string(gx_utf8(gx_flow__module(f, r->module))));
		json_object_set_new(e, "start", hex(r->start));
		json_object_set_new(e, "end", hex(r->end));
		json_object_set_new(e, "count", report__json_u64(r->count));
		json_object_set_new(e, "cycles", ratio((double)r->cycles, (double)r->timed));
		json_array_append_new(a, e);
	}
	free(ord), free(w);
	return a;
}

static json_t *json_branches(const struct gx_flow *f, const struct report_opts *o)
{
	json_t *a = json_array();
	double *w = xcalloc(f->nr_branches + 1, sizeof(*w));
	size_t *ord;

	for (size_t i = 0; i < f->nr_branches; i++)
		w[i] = (double)f->branches[i].count;
	ord = order_by(w, f->nr_branches);
	for (size_t k = 0; k < shown(o, f->nr_branches); k++) {
		const struct flow_branch *b = &f->branches[ord[k]];
		json_t *e = json_object();

		json_object_set_new(e, "module", json_string(gx_utf8(gx_flow__module(f, b->module))));
		json_object_set_new(e, "from", hex(b->from));
		json_object_set_new(e, "to", hex(b->to));
		json_object_set_new(e, "count", report__json_u64(b->count));
		json_object_set_new(e, "mispredicted", f->exact ? json_null() :
				    report__json_u64(b->mispred));
		json_object_set_new(e, "cycles", ratio((double)b->cycles, (double)b->timed));
		json_array_append_new(a, e);
	}
	free(ord), free(w);
	return a;
}

static json_t *json_blocks(const struct gx_flow *f, const struct report_opts *o)
{
	const struct flow_graph *g = &f->graph;
	json_t *a = json_array();
	double *w = xcalloc(g->nr_blocks + 1, sizeof(*w));
	size_t *ord, n = 0;

	for (size_t i = 0; i < g->nr_blocks; i++)
		w[i] = block_weight(&g->blocks[i]);
	ord = order_by(w, g->nr_blocks);
	for (size_t k = 0; k < g->nr_blocks && n < shown(o, g->nr_blocks); k++) {
		const struct flow_block *b = &g->blocks[ord[k]];
		double cyc = b->timed ? b->cycles / (double)b->timed : 0;
		json_t *e = json_object();

		if (!b->execs)
			break;
		where_json(e, f, b->module, b->start);
		json_object_set_new(e, "start", hex(b->start));
		json_object_set_new(e, "end", hex(b->end));
		json_object_set_new(e, "executions", report__json_u64(b->execs));
		json_object_set_new(e, "instructions", b->insns ? json_integer((json_int_t)b->insns) :
							      json_null());
		json_object_set_new(e, "cycles", b->timed ? json_real(cyc) : json_null());
		json_object_set_new(e, "ipc", b->insns && cyc > 0 ? json_real((double)b->insns / cyc) :
								 json_null());
		json_object_set_new(e, "loop", b->loop >= 0 ? json_integer(b->loop) : json_null());
		json_array_append_new(a, e);
		n++;
	}
	free(ord), free(w);
	return a;
}

static json_t *json_loops(const struct gx_flow *f, const struct report_opts *o)
{
	const struct flow_graph *g = &f->graph;
	json_t *a = json_array();

	for (size_t i = 0; i < shown(o, g->nr_loops); i++) {
		const struct flow_loop *l = &g->loops[i];
		const struct flow_block *h = &g->blocks[l->head];
		json_t *e = json_object();

		where_json(e, f, l->module, h->start);
		json_object_set_new(e, "head", hex(h->start));
		json_object_set_new(e, "entries", report__json_u64(l->entries));
		json_object_set_new(e, "iterations", report__json_u64(l->iterations));
		json_object_set_new(e, "trips", ratio((double)l->iterations, (double)l->entries));
		json_object_set_new(e, "cycles_per_iteration",
				    l->cycles > 0 ? ratio(l->cycles, (double)l->iterations) : json_null());
		json_object_set_new(e, "exits", report__json_u64(l->exits));
		json_object_set_new(e, "exit_mispredict_rate",
				    ratio((double)l->exit_mispred, (double)l->exits));
		json_object_set_new(e, "blocks", json_integer(l->nr_blocks));
		json_object_set_new(e, "depth", json_integer(l->depth));
		json_object_set_new(e, "parent", l->parent >= 0 ? json_integer(l->parent) : json_null());
		json_array_append_new(a, e);
	}
	return a;
}

void report__json_flow(json_t *root, struct gx_result *in, const struct report_opts *o)
{
	char *why = NULL;
	const struct gx_flow *f = gx_result__flow(in, &why);
	json_t *s;
	uint64_t total = 0;

	if (!f) {
		if (why)
			json_object_set_new(root, "flow_unavailable", json_string(gx_utf8(why)));
		free(why);
		return;
	}
	s = json_object();
	for (size_t i = 0; i < f->nr_ranges; i++)
		total += f->ranges[i].count;
	json_object_set_new(s, "source", json_string(f->exact ? "exact" : "branch stacks"));
	json_object_set_new(s, "stacks", report__json_u64(f->stacks));
	json_object_set_new(s, "entries", report__json_u64(f->entries));
	json_object_set_new(s, "ranges", json_integer((json_int_t)f->nr_ranges));
	json_object_set_new(s, "range_count", report__json_u64(total));
	json_object_set_new(s, "branches", json_integer((json_int_t)f->nr_branches));
	json_object_set_new(s, "bogus_spans", report__json_u64(f->bogus));
	json_object_set_new(s, "duplicate_entries", report__json_u64(f->dups));
	json_object_set_new(s, "wrong_path_entries", report__json_u64(f->wrong_path));
	json_object_set_new(root, "flow", s);
	json_object_set_new(root, "ranges", json_ranges(f, o));
	json_object_set_new(root, "branches", json_branches(f, o));
	json_object_set_new(root, "blocks", json_blocks(f, o));
	json_object_set_new(root, "loops", json_loops(f, o));
}

/* ---- text ----------------------------------------------------------------- */

static void text_where(struct strbuf *sb, const struct gx_flow *f, uint32_t module, uint64_t addr)
{
	const char *fn, *file;
	uint32_t line;

	gx_flow__where(f, module, addr, &fn, &file, &line);
	strbuf__addf(sb, "%s", gx_esc(fn));
	if (*file)
		strbuf__addf(sb, " (%s:%u)", gx_esc(report__base(file)), line);
	strbuf__addf(sb, " [%s]", gx_esc(report__base(gx_flow__module(f, module))));
}

static void text_more(struct strbuf *sb, size_t n, size_t all)
{
	if (n < all)
		strbuf__addf(sb, "  (%zu more; --limit 0 shows all)\n", all - n);
}

static void text_branches(struct strbuf *sb, const struct gx_flow *f, const struct report_opts *o)
{
	double *w = xcalloc(f->nr_branches + 1, sizeof(*w));
	size_t *ord, n = shown(o, f->nr_branches);

	for (size_t i = 0; i < f->nr_branches; i++)
		w[i] = (double)f->branches[i].count;
	ord = order_by(w, f->nr_branches);
	strbuf__addf(sb, "\nTaken branches (%s)\n  %12s %8s %8s  %-14s %-14s %s\n",
		     f->exact ? "exact" : "from branch stacks", "count", "mispred", "cycles",
		     "from", "to", "in");
	for (size_t k = 0; k < n; k++) {
		const struct flow_branch *b = &f->branches[ord[k]];
		char mis[24] = "-", cyc[24] = "-", a[24], t[24];

		if (!f->exact)
			snprintf(mis, sizeof(mis), "%.1f%%", 100.0 * (double)b->mispred / (double)b->count);
		if (b->timed)
			snprintf(cyc, sizeof(cyc), "%.1f", (double)b->cycles / (double)b->timed);
		snprintf(a, sizeof(a), "0x%" PRIx64, b->from);
		snprintf(t, sizeof(t), "0x%" PRIx64, b->to);
		strbuf__addf(sb, "  %12" PRIu64 " %8s %8s  %-14s %-14s ", b->count, mis, cyc, a, t);
		text_where(sb, f, b->module, b->from);
		strbuf__addstr(sb, "\n");
	}
	text_more(sb, n, f->nr_branches);
	free(ord), free(w);
}

static void text_blocks(struct strbuf *sb, const struct gx_flow *f, const struct report_opts *o)
{
	const struct flow_graph *g = &f->graph;
	double *w = xcalloc(g->nr_blocks + 1, sizeof(*w));
	size_t *ord, n = 0, ran = 0;

	for (size_t i = 0; i < g->nr_blocks; i++) {
		w[i] = block_weight(&g->blocks[i]);
		ran += g->blocks[i].execs > 0;
	}
	ord = order_by(w, g->nr_blocks);
	strbuf__addf(sb, "\nBasic blocks (%s), hottest first\n  %12s %6s %8s %6s  %-22s %s\n",
		     f->exact ? "exact" : "from branch stacks", "executions", "insns", "cycles",
		     "IPC", "block", "in");
	for (size_t k = 0; k < g->nr_blocks && n < shown(o, ran); k++, n++) {
		const struct flow_block *b = &g->blocks[ord[k]];
		double cyc = b->timed ? b->cycles / (double)b->timed : 0;
		char ins[24] = "-", c[24] = "-", ipc[24] = "-", at[48];

		if (b->insns)
			snprintf(ins, sizeof(ins), "%" PRIu64, b->insns);
		if (cyc > 0)
			snprintf(c, sizeof(c), "%.1f", cyc);
		if (cyc > 0 && b->insns)
			snprintf(ipc, sizeof(ipc), "%.2f", (double)b->insns / cyc);
		snprintf(at, sizeof(at), "0x%" PRIx64 "-0x%" PRIx64, b->start, b->end);
		strbuf__addf(sb, "  %12" PRIu64 " %6s %8s %6s  %-22s ", b->execs, ins, c, ipc, at);
		text_where(sb, f, b->module, b->start);
		strbuf__addstr(sb, "\n");
	}
	text_more(sb, n, ran);
	free(ord), free(w);
}

static void text_loops(struct strbuf *sb, const struct gx_flow *f, const struct report_opts *o)
{
	const struct flow_graph *g = &f->graph;
	size_t n = shown(o, g->nr_loops);

	strbuf__addf(sb, "\nLoops (%s), most iterations first\n  %12s %10s %9s %10s %8s %5s  %-12s %s\n",
		     f->exact ? "exact" : "from branch stacks", "iterations", "entries", "trips",
		     "cyc/iter", "exit-mp", "depth", "head", "in");
	for (size_t i = 0; i < n; i++) {
		const struct flow_loop *l = &g->loops[i];
		char cyc[24] = "-", mp[24] = "-", head[24];

		if (l->cycles > 0 && l->iterations)
			snprintf(cyc, sizeof(cyc), "%.1f", l->cycles / (double)l->iterations);
		if (l->exits)
			snprintf(mp, sizeof(mp), "%.1f%%", 100.0 * (double)l->exit_mispred /
							   (double)l->exits);
		snprintf(head, sizeof(head), "0x%" PRIx64, g->blocks[l->head].start);
		strbuf__addf(sb, "  %12" PRIu64 " %10" PRIu64 " %9.2f %10s %8s %5u  %-12s ",
			     l->iterations, l->entries, flow_loop__trips(l), cyc, mp, l->depth, head);
		text_where(sb, f, l->module, g->blocks[l->head].start);
		strbuf__addstr(sb, "\n");
	}
	text_more(sb, n, g->nr_loops);
}

void report__text_flow_hint(struct strbuf *sb, struct gx_result *in)
{
	uint64_t wrong, stacks, entries, bogus, dups;
	const struct flow_stacks *fs = profile__branch_stacks(gx_result__profile(in), &wrong);

	if (!fs)
		return;
	flow_stacks__stats(fs, &stacks, &entries, &bogus, &dups);
	strbuf__addf(sb, "\nBranch stacks: %" PRIu64 " samples carry %" PRIu64 " branch records; "
		     "report --by loop, --by block or --by branch shows what they say\n",
		     stacks, entries);
}

int report__text_flow(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	char *why = NULL;
	const struct gx_flow *f = gx_result__flow(in, &why);

	if (!f) {
		strbuf__addf(sb, "\nNo branch stacks in this result%s%s: record with -b "
			     "(--branch-filter) where the PMU has them, or --model\n",
			     why ? ": " : "", why ? gx_esc(why) : "");
		free(why);
		return 0;
	}
	if (!f->exact)
		strbuf__addf(sb, "\n%" PRIu64 " branch stacks, %" PRIu64 " entries: %zu ranges, "
			     "%zu branches (%" PRIu64 " bogus spans, %" PRIu64 " duplicated "
			     "entries, %" PRIu64 " wrong-path entries left out)\n",
			     f->stacks, f->entries, f->nr_ranges, f->nr_branches, f->bogus, f->dups,
			     f->wrong_path);
	if (o->by_flow == REPORT_FLOW_BRANCH)
		text_branches(sb, f, o);
	else if (o->by_flow == REPORT_FLOW_BLOCK)
		text_blocks(sb, f, o);
	else
		text_loops(sb, f, o);
	return 0;
}
