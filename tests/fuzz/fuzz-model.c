/*
 * fuzz-model: libFuzzer target for the event model JSON (match rules,
 * counters, events, nodes and their formulas, thresholds), loaded by
 * td_model__load_string. Seeds: the models in events/.
 */
#include "config.h"

#include "topdown/topdown.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size), *cause = NULL;
	struct td_model *m = NULL;

	if (td_model__load_string(text, "fuzz.json", &m, &cause) == 0) {
		volatile size_t sink = 0;

		for (size_t i = 0; i < td_model__nr_nodes(m); i++)
			sink += strlen(td_model__node(m, i)->name);
		(void)sink;
		td_model__delete(m);
	}
	free(cause);
	free(text);
	return 0;
}
