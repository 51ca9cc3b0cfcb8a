/*
 * fuzz-counts: libFuzzer target for perf stat counts (td_counts_parse:
 * perf stat default output in any locale, -x CSV, "EVENT VALUE" lines)
 * against the Skylake model, then the evaluation of the tree on them.
 * Seeds: the .txt files in tests/topdown.
 */
#include "config.h"

#include "topdown/topdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static struct td_model *model;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *cause = NULL;

	(void)argc;
	(void)argv;
	if (td_model__load("skl", GX_SRC_EVENTS_DIR, &model, &cause) != 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = td_model__nr_events(model), unknown = 0;
	double *counts = xcalloc(n + 1, sizeof(double));
	char *text = xstrndup((const char *)data, size), *cause = NULL;

	if (td_counts_parse(model, text, "fuzz", counts, &unknown, &cause) == 0) {
		volatile double sink = 0;

		for (size_t i = 0; i < n; i++)
			if (!isnan(counts[i]))
				sink += counts[i];
		(void)sink;
	}
	free(cause);
	free(text);
	free(counts);
	return 0;
}
