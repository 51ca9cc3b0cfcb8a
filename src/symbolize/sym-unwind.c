/* sym-unwind.c: offline DWARF unwinding (placeholder until libunwind lands). */
#include "config.h"

#include "symbolize/symbolize-int.h"

int sym_unwind(struct sym_session *s, const struct sym_unwind_input *in,
	       uint64_t *ips, size_t max, size_t *nr, char **cause)
{
	*nr = 0;
	return gx_fail(cause, GX_E_NOTSUP, "DWARF unwinding is not implemented yet");
}

void sym_unwind__exit(struct sym_session *s)
{
}
