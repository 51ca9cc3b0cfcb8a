/*
 * flow.c: a result's control flow (issue 42): from its samples' branch
 * stacks (the profile's range and branch counts, blocks cut where the
 * ranges and the branches' lengths say), or exactly from a modelled run's
 * flow.json (every instruction's executions and callgrind's jumps). The
 * blocks and loops come from src/flow either way.
 */
#include "config.h"

#include "result/result.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flow.h"
#include "profile/profile.h"
#include "result-int.h"
#include "symbolize/symbolize.h"
#include "util/util.h"

#define FLOW_JSON_MAX ((size_t)1 << 30)

static int cmp_branch(const void *a, const void *b)
{
	const struct flow_branch *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* callgrind's jumps merged by (module, from, to): the branches table. */
static void exact_branches(struct gx_flow *f, json_t *jumps)
{
	size_t n = json_array_size(jumps), k = 0;
	struct flow_branch *b = xcalloc(n + 1, sizeof(*b));

	for (size_t i = 0; i < n; i++) {
		json_int_t m, from, to, c;

		if (json_unpack(json_array_get(jumps, i), "[IIII]", &m, &from, &to, &c) ||
		    m < 0 || (size_t)m >= f->nr_modules || c < 0)
			continue;
		b[k++] = (struct flow_branch){ .module = (uint32_t)m, .from = (uint64_t)from,
					       .to = (uint64_t)to, .count = (uint64_t)c,
					       .paired = (uint64_t)c };
	}
	gx_qsort(b, k, sizeof(*b), cmp_branch);
	f->nr_branches = 0;
	for (size_t i = 0; i < k; i++)
		if (f->nr_branches && !cmp_branch(&b[f->nr_branches - 1], &b[i]))
			b[f->nr_branches - 1].count += b[i].count;
		else
			b[f->nr_branches++] = b[i];
	f->own_branches = b;
	f->branches = b;
}

static int load_exact(struct gx_flow *f, json_t *root, const struct gx_reprice *rp,
		      char **cause)
{
	json_t *mods = json_object_get(root, "modules"), *ins = json_object_get(root, "insns");
	json_t *jumps = json_object_get(root, "jumps");

	if (!json_is_array(mods) || !json_is_array(ins) || !json_is_array(jumps))
		return gx_fail(cause, GX_E_FORMAT, "flow.json: no modules, insns and jumps");
	f->nr_modules = json_array_size(mods);
	f->modules = xcalloc(f->nr_modules + 1, sizeof(*f->modules));
	for (size_t i = 0; i < f->nr_modules; i++) {
		const char *s = json_string_value(json_array_get(mods, i));

		f->modules[i] = xstrdup(s ? s : "[unknown]");
	}
	for (size_t i = 0; i < json_array_size(ins); i++) {
		json_int_t m, addr, len, execs, mis;
		int kind;
		double cyc;

		if (json_unpack(json_array_get(ins, i), "[IIIiIFI]", &m, &addr, &len, &kind, &execs,
				&cyc, &mis) || m < 0 || (size_t)m >= f->nr_modules || len < 0 ||
		    len > 15 || kind < FLOW_PLAIN || kind > FLOW_IND || execs < 0 || mis < 0 ||
		    !(cyc >= 0))
			return gx_fail(cause, GX_E_FORMAT, "flow.json: instruction %zu is not "
					   "[module, address, length, kind, executions, cycles, "
					   "mispredicts]", i);
		if (rp && rp->flow_cycles)
			cyc = rp->flow_cycles(rp->ctx, (uint32_t)m, (uint64_t)addr, cyc);
		flow_graph__add_insn(&f->graph, (uint32_t)m, (uint64_t)addr, (uint32_t)len,
				     (enum flow_kind)kind, (uint64_t)execs, cyc, (uint64_t)mis);
	}
	exact_branches(f, jumps);
	for (size_t i = 0; i < f->nr_branches; i++)
		flow_graph__add_edge(&f->graph, f->branches[i].module, f->branches[i].from,
				     f->branches[i].to, f->branches[i].count, 0);
	f->exact = true;
	return 0;
}

static int load_json(struct gx_flow *f, const char *dir, const struct gx_reprice *rp,
		     char **cause)
{
	char *path = xasprintf("%s/flow.json", dir), *text;
	size_t len;
	int err = 0;
	json_t *root;
	json_error_t je;

	text = gx_read_regular(path, FLOW_JSON_MAX, &len, &err, cause);
	free(path);
	if (!text && err == -ENOENT) {	/* none: not a modelled run */
		free(*cause);
		*cause = NULL;
		return 1;
	}
	if (!text)
		return err;
	root = json_loadb(text, len, 0, &je);
	free(text);
	if (!root)
		return gx_fail(cause, GX_E_FORMAT, "flow.json: %s (line %d)", je.text, je.line);
	err = load_exact(f, root, rp, cause);
	json_decref(root);
	return err;
}

void gx_flow__delete(struct gx_flow *f)
{
	if (!f)
		return;
	flow_graph__exit(&f->graph);
	gx_free_strv(f->modules, f->nr_modules);
	free(f->own_branches);
	free(f);
}

int gx_flow__load(struct gx_flow **out, const char *dir, struct profile *p,
		  const struct gx_reprice *rp, char **cause)
{
	struct gx_flow *f = xcalloc(1, sizeof(*f));
	const struct flow_stacks *fs = p ? profile__branch_stacks(p, &f->wrong_path) : NULL;
	int err;

	*out = NULL;
	f->prof = p;
	flow_graph__init(&f->graph);
	err = dir ? load_json(f, dir, rp, cause) : 1;
	if (err < 0 || (err > 0 && !fs)) {
		gx_flow__delete(f);
		return err < 0 ? err : 0;
	}
	if (!f->exact) {
		f->ranges = flow_stacks__ranges(fs, &f->nr_ranges);
		f->branches = flow_stacks__branches(fs, &f->nr_branches);
		flow_stacks__stats(fs, &f->stacks, &f->entries, &f->bogus, &f->dups);
		flow_graph__from_stacks(&f->graph, fs, profile__branch_insn, p);
	}
	flow_graph__finish(&f->graph);
	/* a block from the stacks is two addresses: its instructions from
	 * its bytes, for report's instructions and IPC */
	for (size_t i = 0; !f->exact && i < f->graph.nr_blocks; i++) {
		struct flow_block *b = &f->graph.blocks[i];

		if (b->execs && !b->insns)
			b->insns = profile__block_insns(p, b->module, b->start, b->end);
	}
	*out = f;
	return 0;
}

const char *gx_flow__module(const struct gx_flow *f, uint32_t module)
{
	if (f->exact)
		return module < f->nr_modules ? f->modules[module] : "[unknown]";
	return f->prof ? profile__string(f->prof, module) : "[unknown]";
}

bool gx_flow__where(const struct gx_flow *f, uint32_t module, uint64_t addr, const char **fn,
		    const char **file, uint32_t *line)
{
	struct sym_session *s = f->prof ? profile__symbolizer(f->prof) : NULL;
	const char *name = gx_flow__module(f, module);
	const struct sym_result *r;
	const struct sym_frame *fr;
	uint64_t off;

	*fn = "[unknown]", *file = "", *line = 0;
	for (size_t i = 0; s && i < sym_session__nr_dsos(s); i++) {
		struct sym_dso *d = sym_session__dso_at(s, i);

		if (strcmp(sym_dso__name(d), name) || sym_dso__open(d) ||
		    !sym_dso__addr_to_offset(d, addr, &off))
			continue;
		r = sym_session__lookup(s, d, off);
		fr = &r->frames[0];
		*fn = sym_session__str(s, r->symbol);
		if (fr->file != SYM_STR_NONE)
			*file = sym_session__str(s, fr->file);
		*line = fr->line;
		return true;
	}
	return false;
}
