/*
 * libFuzzer target for the formula parser: any byte string must parse or
 * fail with a message, never crash, leak or read out of bounds; a parsed
 * tree must evaluate (names are left unresolved and evaluate as n/a).
 * Build and run: make fuzz-formula && tests/fuzz/fuzz-formula -max_len=256
 */
#include "config.h"

#include "topdown/topdown-int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1);
	struct td_expr *e = NULL;
	char *cause = NULL;
	struct td_eval_env env = { .smt_on = size & 1, .core_wide = size & 2, .width = 4 };

	if (!src)
		return 0;
	memcpy(src, data, size);
	src[size] = '\0';
	if (td_expr__parse(src, &e, &cause) == 0) {
		(void)td_expr__eval(e, &env);
		td_expr__delete(e);
	} else if (!cause) {
		abort();	/* every failure carries a message */
	}
	free(cause);
	free(src);
	return 0;
}
