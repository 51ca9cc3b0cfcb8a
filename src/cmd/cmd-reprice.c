/*
 * cmd-reprice.c: a modelled result priced again with another machine
 * description, for report --model-machine and for check and diff of
 * results priced by two (issue 40): src/model's re-pricing behind
 * src/result's gx_reprice.
 */
#include "config.h"

#include "cmd-int.h"

#include <inttypes.h>
#include <string.h>

#include "ci/ci.h"
#include "model/model.h"
#include "result/result.h"
#include "util/util.h"

static int rp_begin(void *ctx, const char *dir, char **cause)
{
	struct cmd_reprice *c = ctx;

	if (!dir)
		return gx_fail(cause, GX_E_USAGE, "a bare perf.data has no model terms to price again");
	model_reprice__delete(c->m);
	c->m = NULL;
	return model_reprice__new(&c->m, dir, c->machine, c->like, cause);
}

static int rp_slot(void *ctx, const char *event)
{
	(void)ctx;
	return model_reprice__slot(event);
}

static size_t rp_sample(void *ctx, int slot, const struct pd_sample *s,
			struct gx_reprice_out *out)
{
	struct cmd_reprice *c = ctx;
	struct model_rp_out o[MODEL_RP_NR];
	size_t n = model_reprice__sample(c->m, slot, s->ip, s->period, s->data_src, o);

	_Static_assert(MODEL_RP_NR <= GX_REPRICE_MAX, "a sample's outputs fit in the result's");
	for (size_t i = 0; i < n && i < MODEL_RP_NR; i++)
		out[i] = (struct gx_reprice_out){ .slot = o[i].slot, .period = o[i].period,
						  .weight = o[i].weight };
	return n;
}

static void rp_meta(void *ctx, struct gx_meta *m)
{
	model_reprice__meta(((struct cmd_reprice *)ctx)->m, m);
}

static double rp_flow(void *ctx, uint32_t module, uint64_t addr, double cycles)
{
	return model_reprice__flow_cycles(((struct cmd_reprice *)ctx)->m, module, addr, cycles);
}

static void init(struct cmd_reprice *c)
{
	c->rp = (struct gx_reprice){ .ctx = c, .begin = rp_begin, .slot = rp_slot,
				     .sample = rp_sample, .meta = rp_meta, .flow_cycles = rp_flow };
}

void cmd_reprice__init_name(struct cmd_reprice *c, const char *machine)
{
	memset(c, 0, sizeof(*c));
	c->machine = machine;
	init(c);
}

void cmd_reprice__init_like(struct cmd_reprice *c, const char *dir)
{
	memset(c, 0, sizeof(*c));
	c->like = dir;
	init(c);
}

const char *cmd_reprice__from(const struct cmd_reprice *c)
{
	return c->m ? model_reprice__from(c->m)->name : "?";
}

const char *cmd_reprice__to(const struct cmd_reprice *c)
{
	return c->m ? model_reprice__to(c->m)->name : c->machine ? c->machine : "?";
}

void cmd_reprice__exit(struct cmd_reprice *c)
{
	model_reprice__delete(c->m);
	memset(c, 0, sizeof(*c));
}

/* meta.json's modelled cycles */
static uint64_t cycles_of(const struct gx_result *r)
{
	const struct gx_meta *m = gx_result__meta(r);

	for (uint32_t k = 0; m && k < m->nr_events; k++)
		if (m->events[k].name && !strcmp(m->events[k].name, "cycles:modelled"))
			return m->events[k].count;
	return 0;
}

int cmd_reprice_like(struct gx_result **res, const char *path, const struct gx_result_opts *oo,
		     const struct gx_result *like, char **note, char **cause)
{
	struct gx_result_opts o = *oo;
	struct gx_result *again = NULL;
	struct cmd_reprice rp;
	char *why = NULL, *whynot = NULL;
	int err;

	*note = NULL;
	why = ci_same_predictor(*res, like);	/* counts, not prices: no re-pricing */
	if (!why)
		why = ci_same_rules(*res, like);	/* its own rules, whatever the prices */
	if (why) {
		err = gx_fail(cause, GX_E_USAGE, "%s", why);
		free(why);
		return err;
	}
	why = ci_same_machine(*res, like);
	if (!why)	/* not both modelled, or priced alike */
		return 0;
	if (!gx_result__dir(like)) {	/* a modelled result is a directory */
		err = gx_fail(cause, GX_E_USAGE, "%s", why);
		free(why);
		return err;
	}
	cmd_reprice__init_like(&rp, gx_result__dir(like));
	o.reprice = &rp.rp;
	err = gx_result__open(&again, path, &o, &whynot);
	if (err) {
		err = gx_fail(cause, GX_E_USAGE, "%s; priced again, %s", why, whynot);
	} else {	/* a line for cmd_warn, which escapes it */
		*note = xasprintf("%s priced again with machine description '%s', as %s is (it was "
				  "recorded with '%s'): %" PRIu64 " cycles where it had %" PRIu64,
				  gx_result__path(again), cmd_reprice__to(&rp),
				  gx_result__path(like), cmd_reprice__from(&rp),
				  cycles_of(again), cycles_of(*res));
		gx_result__delete(*res);
		*res = again;
	}
	free(why);
	free(whynot);
	cmd_reprice__exit(&rp);
	return err;
}
