/*
 * Memory-access samples: the fields of a data_src (union perf_mem_data_src
 * in the kernel's uapi) in the words Linux perf prints them with (perf
 * script's data_src column, perf mem report's "Memory access", "Snoop",
 * "TLB access", "Locked" and "Blocked" columns), so that rows named here
 * line up with perf's; and a sample's weight split as the kernel packs
 * PERF_SAMPLE_WEIGHT_STRUCT.
 *
 * The texts follow perf 6.1 (Debian's), checked against it by
 * tests/e2e/mem-perf.sh: the level bits first, "Remote " before them and
 * the hop count in their place, then the level number, " or " between
 * names, " hit" and " miss" last.
 */
#include "config.h"

#include "perfdata.h"

#include <stdio.h>
#include <string.h>

/* A bounded writer into a caller's buffer: never past size - 1, always
 * terminated. */
struct out {
	char *buf;
	size_t size, len;
};

static void out_add(struct out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->size == 0)
		return;
	if (o->len + n >= o->size)
		n = o->size - 1 - o->len;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* Names of a bit field, lowest bit first; the bits in skip are not named;
 * " or " between them. How many were written. */
static int out_bits(struct out *o, uint64_t bits, uint64_t skip, const char *const *names,
		    size_t nr, int printed)
{
	for (size_t i = 0; i < nr; i++) {
		if (!(bits >> i & 1) || (skip >> i & 1))
			continue;
		if (printed++)
			out_add(o, " or ");
		out_add(o, names[i]);
	}
	return printed;
}

/* perf's " hit" and " miss" after a level or a TLB: both when both bits are */
static void out_hit_miss(struct out *o, bool hit, bool miss)
{
	if (hit)
		out_add(o, " hit");
	if (miss)
		out_add(o, " miss");
}

static uint64_t field(uint64_t ds, unsigned shift, unsigned width)
{
	return ds >> shift & ((1ull << width) - 1);
}

#define FIELD(ds, what, width) field(ds, PERF_MEM_##what##_SHIFT, width)
#define NR(a) (sizeof(a) / sizeof((a)[0]))

static const char *const lvl_names[] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
	"Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
	"Remote Cache (2 hops)", "I/O", "Uncached",
};

/* PERF_MEM_LVLNUM_*: 1-4 are "L<n>"; others unnamed print as "L<n>" too */
static const char *lvlnum_name(unsigned n)
{
	switch (n) {
	case 0x09: return "CXL";
	case 0x0a: return "I/O";
	case 0x0b: return "Any cache";
	case 0x0c: return "LFB/MAB";
	case 0x0d: return "RAM";
	case 0x0e: return "PMEM";
	case 0x0f: return "N/A";
	default: return NULL;
	}
}

static const char *const hops_names[] = {
	"N/A", "core, same node", "node, same socket", "socket, same board", "board",
};

static void mem_lvl(struct out *o, uint64_t ds)
{
	uint64_t lvl = FIELD(ds, LVL, 14), num = FIELD(ds, LVLNUM, 4);
	uint64_t hops = FIELD(ds, HOPS, 3);
	int printed = 0;

	if (FIELD(ds, REMOTE, 1))
		out_add(o, "Remote ");
	if (hops) {
		out_add(o, hops < NR(hops_names) ? hops_names[hops] : "N/A");
		out_add(o, " ");
	} else {
		printed = out_bits(o, lvl, PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS, lvl_names,
				   NR(lvl_names), 0);
	}
	if (num) {
		const char *name = lvlnum_name((unsigned)num);
		char l[8];

		if (printed++)
			out_add(o, " or ");
		if (!name) {
			snprintf(l, sizeof(l), "L%u", (unsigned)num);
			name = l;
		}
		out_add(o, name);
	}
	if (o->len == 0)
		out_add(o, "N/A");
	out_hit_miss(o, lvl & PERF_MEM_LVL_HIT, lvl & PERF_MEM_LVL_MISS);
}

static void mem_op(struct out *o, uint64_t ds)
{
	uint64_t op = FIELD(ds, OP, 5);

	out_add(o, op & PERF_MEM_OP_NA ? "N/A" : op & PERF_MEM_OP_LOAD ? "LOAD"
		   : op & PERF_MEM_OP_STORE ? "STORE" : op & PERF_MEM_OP_PFETCH ? "PFETCH"
		   : op & PERF_MEM_OP_EXEC ? "EXEC" : "No");
}

static void mem_snoop(struct out *o, uint64_t ds)
{
	static const char *const snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx[] = { "Fwd", "Peer" };
	int printed = out_bits(o, FIELD(ds, SNOOP, 5), 0, snoop, NR(snoop), 0);

	printed = out_bits(o, FIELD(ds, SNOOPX, 2), 0, snoopx, NR(snoopx), printed);
	if (!printed)
		out_add(o, "N/A");
}

static void mem_tlb(struct out *o, uint64_t ds)
{
	static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	uint64_t m = FIELD(ds, TLB, 7);

	if (!out_bits(o, m, PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS, tlb, NR(tlb), 0))
		out_add(o, "N/A");
	out_hit_miss(o, m & PERF_MEM_TLB_HIT, m & PERF_MEM_TLB_MISS);
}

static void mem_lock(struct out *o, uint64_t ds)
{
	uint64_t m = FIELD(ds, LOCK, 2);

	out_add(o, m & PERF_MEM_LOCK_NA ? "N/A" : m & PERF_MEM_LOCK_LOCKED ? "Yes" : "No");
}

static void mem_blk(struct out *o, uint64_t ds)
{
	uint64_t m = FIELD(ds, BLK, 3);

	if (!m || (m & PERF_MEM_BLK_NA)) {
		out_add(o, " N/A");
		return;
	}
	if (m & PERF_MEM_BLK_DATA)
		out_add(o, " Data");
	if (m & PERF_MEM_BLK_ADDR)
		out_add(o, " Addr");
}

const char *pd_mem_str(uint64_t data_src, enum pd_mem_field f, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	switch (f) {
	case PD_MEM_OP: mem_op(&o, data_src); break;
	case PD_MEM_LVL: mem_lvl(&o, data_src); break;
	case PD_MEM_SNOOP: mem_snoop(&o, data_src); break;
	case PD_MEM_TLB: mem_tlb(&o, data_src); break;
	case PD_MEM_LOCK: mem_lock(&o, data_src); break;
	case PD_MEM_BLK: mem_blk(&o, data_src); break;
	}
	return buf;
}

const char *pd_mem_script(uint64_t data_src, char *buf, size_t size)
{
	static const char *const tag[] = { "|OP ", "|LVL ", "|SNP ", "|TLB ", "|LCK ", "|BLK " };
	static const enum pd_mem_field order[] = { PD_MEM_OP, PD_MEM_LVL, PD_MEM_SNOOP,
						   PD_MEM_TLB, PD_MEM_LOCK, PD_MEM_BLK };
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < NR(order); i++) {
		char part[128];

		out_add(&o, tag[i]);
		out_add(&o, pd_mem_str(data_src, order[i], part, sizeof(part)));
	}
	return buf;
}

enum pd_mem_hitm pd_mem_hitm(uint64_t data_src)
{
	uint64_t lvl = FIELD(data_src, LVL, 14), snoop = FIELD(data_src, SNOOP, 5);
	/* the remote bit without a hop count: a remote cache (perf c2c's
	 * reading; with hops, Power's other core of the same node) */
	bool remote = FIELD(data_src, REMOTE, 1) && !FIELD(data_src, HOPS, 3);

	if (!(FIELD(data_src, OP, 5) & PERF_MEM_OP_LOAD) || !(snoop & PERF_MEM_SNOOP_HITM))
		return PD_HITM_NONE;
	if ((lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) || remote)
		return PD_HITM_REMOTE;
	if ((lvl & PERF_MEM_LVL_HIT) && (lvl & (PERF_MEM_LVL_L2 | PERF_MEM_LVL_L3)))
		return PD_HITM_LOCAL;
	return PD_HITM_NONE;
}

bool pd_mem_is_load(uint64_t data_src)
{
	uint64_t op = FIELD(data_src, OP, 5);

	return (op & PERF_MEM_OP_LOAD) && !(op & PERF_MEM_OP_NA);
}

bool pd_mem_is_store(uint64_t data_src)
{
	uint64_t op = FIELD(data_src, OP, 5);

	return (op & PERF_MEM_OP_STORE) && !(op & (PERF_MEM_OP_NA | PERF_MEM_OP_LOAD));
}

void pd_weight__split(const struct pd_sample *s, struct pd_weight *w)
{
	memset(w, 0, sizeof(*w));
	if (s->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
		/* the uapi orders the struct by byte order so that, read as
		 * one u64 on any host, var1 is the low 32 bits, var2 the next
		 * 16 and var3 the top 16 */
		w->latency = (uint32_t)s->weight;
		w->var2 = (uint16_t)(s->weight >> 32);
		w->var3 = (uint16_t)(s->weight >> 48);
		w->is_struct = true;
	} else if (s->sample_type & PERF_SAMPLE_WEIGHT) {
		w->latency = s->weight;
	}
}

void pd_weight_names(const char *arch, const char **var2, const char **var3)
{
	/* Power's var3 is the pipeline stage cycles; Intel's (Sapphire
	 * Rapids on) the retire latency; var2 is the instruction latency
	 * everywhere it is set */
	bool power = arch && !strncmp(arch, "ppc", 3);

	*var2 = "ins_lat";
	*var3 = power ? "p_stage_cyc" : "retire_lat";
}
