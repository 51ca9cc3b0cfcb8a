/*
 * mem.c: this CPU's memory sampling (record --mem, issue 43): the events
 * whose samples carry a load's data address, latency and data source, as
 * perf mem record opens them.
 *
 * Intel: the load-latency event (mem-loads: event 0xcd umask 0x1, its
 * latency threshold ldlat in config1) and the precise stores (mem-stores:
 * event 0xd0 umask 0x82), both PEBS (:pp); a hybrid part has them on
 * cpu_core; Sapphire Rapids and later (mem-loads-aux in sysfs) need the
 * auxiliary event as the loads' group leader. AMD: IBS op (the ibs_op
 * PMU), which cannot leave the kernel out. Arm: SPE writes an AUX trace
 * that gexplore does not decode. Every other CPU, and a VM without a
 * PMU: none, and record --model is the way.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_file(const char *pmu, const char *file)
{
	char *s = collect_pmu_file(pmu, file);

	free(s);
	return s != NULL;
}

int collect_mem_events(unsigned ldlat, bool check, char **spec, char **cause)
{
	static const char *const cores[] = { "cpu", "cpu_core" };
	char name[32];

	*spec = NULL;
	if (!ldlat || ldlat > 0xffff)
		return gx_fail(cause, GX_E_USAGE, "--ldlat: a latency threshold of 1 to 65535 "
			       "cycles, got %u", ldlat);
	for (size_t i = 0; i < sizeof(cores) / sizeof(cores[0]); i++) {
		const char *c = cores[i];

		if (!has_file(c, "events/mem-loads"))
			continue;
		if (has_file(c, "events/mem-loads-aux")) {
			/* the loads sample; the auxiliary event leads their
			 * group and only counts (perf's mem-loads-aux rule) */
			*spec = xasprintf("{%s/config=0x8203,period=0/,"
					  "%s/config=0x1cd,config1=%u/:pp},%s/config=0x82d0/:pp",
					  c, c, ldlat, c);
		} else {
			*spec = xasprintf("%s/config=0x1cd,config1=%u/:pp,%s/config=0x82d0/:pp",
					  c, ldlat, c);
		}
		return 0;
	}
	if (has_file("ibs_op", "type")) {
		if (check && !collect_privileged() && collect_paranoid() > 1)
			return gx_fail(cause, GX_E_PERM,
				       "AMD IBS op samples memory accesses but cannot leave the kernel "
				       "out, which perf_event_paranoid=%d forbids: run `sysctl "
				       "kernel.perf_event_paranoid=1`, or grant CAP_PERFMON "
				       "(or `--model` models each load instead)", collect_paranoid());
		*spec = xstrdup("ibs_op/config=0/");
		return 0;
	}
	for (int k = 0; k < 4; k++) {
		snprintf(name, sizeof(name), "arm_spe_%d", k);
		if (has_file(name, "type"))
			return gx_fail(cause, GX_E_NOTSUP,
				       "this CPU samples memory accesses with Arm SPE (%s), whose AUX "
				       "trace gexplore does not decode: record with `perf mem record` "
				       "and read its perf.data with `gexplore report`, or model the "
				       "loads with `--model`", name);
	}
	return gx_fail(cause, GX_E_NOPMU,
		       "no memory-access sampling here (no Intel mem-loads event, AMD ibs_op or Arm "
		       "SPE PMU in /sys/bus/event_source/devices: a VM or another CPU); `gexplore "
		       "record --model -- CMD` models where each load was served instead");
}
