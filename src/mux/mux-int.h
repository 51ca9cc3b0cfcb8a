/*
 * mux-int.h: what the mux module's files share. Not for other modules.
 */
#ifndef GX_MUX_INT_H
#define GX_MUX_INT_H

#include "mux/mux.h"

#include <stdint.h>

/* The slice log's records as they lie in slices.bin (mux.h describes the
 * layout); log.c reads them, log-writer.c writes them. */
struct log_header {
	char magic[8];
	uint32_t nr_events;
	uint32_t reference;	/* UINT32_MAX: none */
	uint64_t slice_ns;
};

struct log_slice {
	uint32_t group;
	uint32_t flags;		/* MUX_SLICE_TOTALS, MUX_SLICE_KERNEL[|RUNNING] */
	uint64_t start_ns, end_ns;
	uint64_t task_ns;	/* GXSLICE2 only */
	/* then u64 delta[nr_events] */
};

#endif /* GX_MUX_INT_H */
