/*
 * tui-flow.c: a real result's loops for the loops view (issue 42): the
 * result's flow (branch stacks' estimates, or the model's exact counts)
 * with each loop's function and source line, whole run.
 */
#include "config.h"

#include "tui-int.h"

#include <math.h>
#include <stdlib.h>

#include "flow/flow.h"
#include "result/result.h"

int tui_loops_real(struct tui_loader *ld, struct tui_model *m, struct tui_loops *out)
{
	struct tui_real *real = (struct tui_real *)ld;
	char *why = NULL;
	const struct gx_flow *f = gx_result__flow(real->res, &why);
	const struct flow_graph *g = f ? &f->graph : NULL;

	out->v = NULL;
	out->nr = 0;
	out->exact = f && f->exact;
	out->why = NULL;
	if (!f) {
		out->why = why ? tui_model__str(m, why) :
			   "no branch stacks in this result: record with -b where the PMU has "
			   "them, or --model";
		free(why);
		return 0;
	}
	if (!g->nr_loops)
		out->why = "the branches close no loop";
	out->v = xcalloc(g->nr_loops + 1, sizeof(*out->v));
	for (size_t i = 0; i < g->nr_loops; i++) {
		const struct flow_loop *l = &g->loops[i];
		struct tui_loop *t = &out->v[out->nr++];
		const char *fn, *file;
		uint32_t line;

		t->head = g->blocks[l->head].start;
		gx_flow__where(f, l->module, t->head, &fn, &file, &line);
		t->func = tui_model__str(m, fn);
		t->file = tui_model__str(m, file);
		t->module = tui_model__str(m, gx_flow__module(f, l->module));
		t->line = line;
		t->entries = l->entries;
		t->iterations = l->iterations;
		t->cyc_iter = l->cycles > 0 && l->iterations ? l->cycles / (double)l->iterations : NAN;
		t->exit_mp = l->exits ? (double)l->exit_mispred / (double)l->exits : NAN;
		t->depth = l->depth;
	}
	return 0;
}
