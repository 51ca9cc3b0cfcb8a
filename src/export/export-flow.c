/*
 * export-flow.c: a recording's branch stacks for the optimisers that read
 * LBR profiles today (issue 42): AutoFDO's text profile (its
 * TextSampleReaderWriter: the range counts, the address counts, the
 * branch counts, each section led by its number of lines, addresses hex)
 * and BOLT's pre-aggregated format (perf2bolt --pa: `B FROM TO COUNT
 * MISPREDICTS` per taken branch, `F START END COUNT` per range run
 * straight through). Both describe one binary: the module with the most
 * branch counts, addresses its own (what objdump prints, no build-id
 * prefix: BOLT's main binary).
 */
#include "config.h"

#include "export.h"

#include <errno.h>
#include <inttypes.h>

#include "flow/flow.h"
#include "result/result.h"

/* The module with the most taken branches counted. */
static uint32_t main_module(const struct gx_flow *f)
{
	uint32_t best = FLOW_NO_MODULE;
	uint64_t most = 0, sum = 0;

	for (size_t i = 0; i < f->nr_branches; i++) {
		sum += f->branches[i].count;
		if (i + 1 == f->nr_branches || f->branches[i + 1].module != f->branches[i].module) {
			if (sum > most)
				most = sum, best = f->branches[i].module;
			sum = 0;
		}
	}
	return best;
}

static int flow_of(struct gx_result *in, const struct gx_flow **f, uint32_t *mod, char **cause)
{
	char *why = NULL;

	*f = gx_result__flow(in, &why);
	if (!*f) {
		int err = gx_fail(cause, GX_E_NODATA, "%s: no branch stacks%s%s (record with -b "
				  "where the PMU has them)", gx_result__path(in), why ? ": " : "",
				  why ? why : "");

		free(why);
		return err;
	}
	*mod = main_module(*f);
	return 0;
}

int export_autofdo(struct strbuf *out, struct gx_result *in, const char **module, char **cause)
{
	const struct gx_flow *f;
	uint32_t mod;
	size_t n = 0;
	int err = flow_of(in, &f, &mod, cause);

	if (err)
		return err;
	if (f->exact)
		return gx_fail(cause, GX_E_NOTSUP, "%s: a modelled result has no branch stacks to "
			       "count ranges from", gx_result__path(in));
	*module = mod == FLOW_NO_MODULE ? NULL : gx_flow__module(f, mod);
	for (size_t i = 0; i < f->nr_ranges; i++)
		n += f->ranges[i].module == mod;
	strbuf__addf(out, "%zu\n", n);
	for (size_t i = 0; i < f->nr_ranges; i++)
		if (f->ranges[i].module == mod)
			strbuf__addf(out, "%" PRIx64 "-%" PRIx64 ":%" PRIu64 "\n", f->ranges[i].start,
				     f->ranges[i].end, f->ranges[i].count);
	strbuf__addstr(out, "0\n");	/* address counts: the ranges say more */
	n = 0;
	for (size_t i = 0; i < f->nr_branches; i++)
		n += f->branches[i].module == mod;
	strbuf__addf(out, "%zu\n", n);
	for (size_t i = 0; i < f->nr_branches; i++)
		if (f->branches[i].module == mod)
			strbuf__addf(out, "%" PRIx64 "->%" PRIx64 ":%" PRIu64 "\n",
				     f->branches[i].from, f->branches[i].to, f->branches[i].count);
	return 0;
}

int export_bolt(struct strbuf *out, struct gx_result *in, const char **module, char **cause)
{
	const struct gx_flow *f;
	uint32_t mod;
	int err = flow_of(in, &f, &mod, cause);

	if (err)
		return err;
	*module = mod == FLOW_NO_MODULE ? NULL : gx_flow__module(f, mod);
	for (size_t i = 0; i < f->nr_branches; i++)
		if (f->branches[i].module == mod)
			strbuf__addf(out, "B %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				     f->branches[i].from, f->branches[i].to, f->branches[i].count,
				     f->branches[i].mispred);
	for (size_t i = 0; i < f->nr_ranges; i++)
		if (f->ranges[i].module == mod)
			strbuf__addf(out, "F %" PRIx64 " %" PRIx64 " %" PRIu64 "\n", f->ranges[i].start,
				     f->ranges[i].end, f->ranges[i].count);
	return 0;
}
