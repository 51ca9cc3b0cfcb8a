/* flow-int.h: private to src/flow. */
#ifndef GX_FLOW_INT_H
#define GX_FLOW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"

/* An instruction of exact counts (flow_graph__add_insn). */
struct flow_ins {
	uint32_t module, len;
	uint8_t kind;
	uint64_t addr, execs, mispred;
	double cycles;
};

/* A taken edge as added (flow_graph__add_edge). */
struct flow_in {
	uint32_t module;
	uint64_t from, to, count, mispred;
};

/* A block's last instruction: its kind, executions, mispredicts and the
 * address after it (0: unknown). */
struct flow_last {
	uint8_t kind;
	uint64_t execs, mispred, next;
};

struct flow_priv {
	bool exact;		/* counts added (else from stacks) */
	struct flow_ins *ins;
	size_t nr_ins, cap_ins;
	struct flow_in *in;
	size_t nr_in, cap_in;
	struct flow_last *last;	/* per block */
	size_t cap_last;
};

/* A block and its last instruction, an edge (none when count is 0); cap:
 * the caller's capacity of g's array. */
void flow_push_block(struct flow_graph *g, size_t *cap, const struct flow_block *b,
		     const struct flow_last *last);
void flow_push_edge(struct flow_graph *g, size_t *cap, uint32_t src, uint32_t dst,
		    uint64_t count, uint64_t mispred, bool taken);

/* Loops of g's blocks and edges (loops.c), and each block's innermost. */
void flow_loops(struct flow_graph *g);

#endif
