/*
 * Memory-access samples' fields (src/perfdata/mem.c): every data_src below
 * with the text Linux perf 6.1's `perf script -F data_src` printed for it
 * (encodings written by tests/gen/gen-memdata: each field, the newer
 * level numbers, remote, hops, snoop ext, blocked; not a hop count past
 * perf's table, which it prints from past its end), perf c2c's HITMs and
 * the weight's parts.
 */
#include "config.h"

#include <string.h>

#include "perfdata/perfdata.h"
#include "tests/tap.h"

static const struct {
	int line;
	uint64_t ds;
	const char *perf;
} script[] = {
	{ __LINE__, 0x0, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x2, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x8, "|OP PFETCH|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x10, "|OP EXEC|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0xc2, "|OP LOAD|LVL N/A hit miss|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x144, "|OP STORE|LVL L1 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x184, "|OP STORE|LVL L1 miss|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x2042, "|OP LOAD|LVL Remote RAM (1 hop) hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x20042, "|OP LOAD|LVL I/O hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x40042, "|OP LOAD|LVL Uncached hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x100242, "|OP LOAD|LVL LFB/MAB hit|SNP None|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x201042, "|OP LOAD|LVL Local RAM hit|SNP Hit|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x600002, "|OP LOAD|LVL N/A|SNP Hit or Miss|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x800442, "|OP LOAD|LVL L2 hit|SNP HitM|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x800842, "|OP LOAD|LVL L3 hit|SNP HitM|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x808042, "|OP LOAD|LVL Remote Cache (1 hop) hit|SNP HitM|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x6a100142, "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK Yes|BLK  N/A" },
	{ __LINE__, 0x90000002, "|OP LOAD|LVL N/A|SNP N/A|TLB Walker miss|LCK No|BLK  N/A" },
	{ __LINE__, 0x110000002, "|OP LOAD|LVL N/A|SNP N/A|TLB Fault miss|LCK No|BLK  N/A" },
	{ __LINE__, 0x600000042, "|OP LOAD|LVL L3 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0xa00000042, "|OP LOAD|LVL L5 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x1200000042, "|OP LOAD|LVL CXL hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x1800000042, "|OP LOAD|LVL LFB/MAB hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x1a00001842, "|OP LOAD|LVL L3 or Local RAM or RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x1e00000042, "|OP LOAD|LVL N/A hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x2000010082, "|OP LOAD|LVL Remote Remote Cache (2 hops) miss|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x2000800442, "|OP LOAD|LVL Remote L2 hit|SNP HitM|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x4000000002, "|OP LOAD|LVL N/A|SNP Fwd|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x8000800842, "|OP LOAD|LVL L3 hit|SNP HitM or Peer|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x10005080021, "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A" },
	{ __LINE__, 0x20000000002, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Data" },
	{ __LINE__, 0x60000000002, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Data Addr" },
	{ __LINE__, 0x82000000442, "|OP LOAD|LVL Remote core, same node  hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x103a00000042, "|OP LOAD|LVL Remote node, same socket RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ __LINE__, 0x202000004042, "|OP LOAD|LVL Remote board  hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
};

static uint64_t ds(unsigned op, unsigned lvl, unsigned snoop, unsigned num, unsigned remote,
		   unsigned hops)
{
	return op | (uint64_t)lvl << PERF_MEM_LVL_SHIFT | (uint64_t)snoop << PERF_MEM_SNOOP_SHIFT |
	       (uint64_t)num << PERF_MEM_LVLNUM_SHIFT | (uint64_t)remote << PERF_MEM_REMOTE_SHIFT |
	       (uint64_t)hops << PERF_MEM_HOPS_SHIFT;
}

int main(void)
{
	size_t nr = sizeof(script) / sizeof(script[0]);
	char buf[512], small[8];
	struct pd_sample s;
	struct pd_weight w;
	const char *v2, *v3;

	plan((int)nr + 16);
	for (size_t i = 0; i < nr; i++)
		is_str_at(pd_mem_script(script[i].ds, buf, sizeof(buf)), script[i].perf,
			  script[i].line, "data_src %#llx as perf script", (unsigned long long)script[i].ds);
	is_str(pd_mem_str(ds(2, 0x22, 0, 0, 0, 0), PD_MEM_LVL, buf, sizeof(buf)), "L2 hit",
	       "one field: perf mem's Memory access");
	is_str(pd_mem_str(ds(2, 0x42, 0x10, 0, 0, 0), PD_MEM_SNOOP, buf, sizeof(buf)), "HitM",
	       "snoop HitM");
	is_str(pd_mem_str(ds(2, 0x42, 0x10, 0, 0, 0), PD_MEM_LVL, small, sizeof(small)), "L3 hit",
	       "a small buffer holds what fits");
	is_str(pd_mem_str(ds(2, 0x402, 0x10, 0, 0, 0), PD_MEM_LVL, small, 4), "Rem",
	       "cut at the buffer, terminated");
	/* perf c2c's HITMs */
	is_int(pd_mem_hitm(ds(2, 0x42, 0x10, 0, 0, 0)), PD_HITM_LOCAL, "L3 hit HitM: local");
	is_int(pd_mem_hitm(ds(2, 0x22, 0x10, 0, 0, 0)), PD_HITM_LOCAL, "L2 hit HitM: local");
	is_int(pd_mem_hitm(ds(2, 0x402, 0x10, 0, 0, 0)), PD_HITM_REMOTE, "remote cache HitM");
	is_int(pd_mem_hitm(ds(2, 0x42, 0x10, 0, 1, 0)), PD_HITM_REMOTE,
	       "the remote bit without hops: remote");
	is_int(pd_mem_hitm(ds(2, 0x42, 0x4, 0, 0, 0)), PD_HITM_NONE, "a snoop hit is no HITM");
	is_int(pd_mem_hitm(ds(4, 0x42, 0x10, 0, 0, 0)), PD_HITM_NONE, "a store is no HITM load");
	ok(pd_mem_is_load(ds(2, 0x0a, 0, 0, 0, 0)) && !pd_mem_is_store(ds(2, 0x0a, 0, 0, 0, 0)) &&
	   pd_mem_is_store(ds(4, 0x0a, 0, 0, 0, 0)) && !pd_mem_is_load(ds(1, 0, 0, 0, 0, 0)),
	   "loads and stores");
	/* weights */
	memset(&s, 0, sizeof(s));
	s.sample_type = PERF_SAMPLE_WEIGHT;
	s.weight = 0x123456789ULL;
	pd_weight__split(&s, &w);
	ok(w.latency == 0x123456789ULL && !w.var2 && !w.var3 && !w.is_struct,
	   "WEIGHT: the whole u64 is the latency");
	s.sample_type = PERF_SAMPLE_WEIGHT_STRUCT;
	s.weight = 0x0007002a00000131ULL;
	pd_weight__split(&s, &w);
	ok(w.latency == 0x131 && w.var2 == 0x2a && w.var3 == 7 && w.is_struct,
	   "WEIGHT_STRUCT: var1 low 32 bits, var2 and var3 above");
	s.sample_type = 0;
	pd_weight__split(&s, &w);
	ok(!w.latency && !w.is_struct, "no weight: 0");
	pd_weight_names("x86_64", &v2, &v3);
	ok(!strcmp(v2, "ins_lat") && !strcmp(v3, "retire_lat"), "Intel's var2 and var3");
	pd_weight_names("ppc64le", &v2, &v3);
	ok(!strcmp(v3, "p_stage_cyc"), "Power's var3");
	return exit_status();
}
