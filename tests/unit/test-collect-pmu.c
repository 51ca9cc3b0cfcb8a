/*
 * test-collect-pmu: which Arm common events the core PMU implements, from
 * a fake sysfs tree: the arm_pmu driver lists exactly those in events/.
 */
#include "config.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "fake-sysfs.h"
#include "collect/collect.h"
#include "util/util.h"

static bool lacks(uint32_t type, uint64_t config)
{
	struct perf_event_attr a = { .type = type, .config = config };

	return collect_pmu_lacks_event(&a);
}

int main(void)
{
	char root[] = "/tmp/gx-sysfs-XXXXXX", *cmd;

	if (!mkdtemp(root))
		return 1;
	fake_sysfs_pmu_file(root, "armv8_pmuv3", "type", "8\n");
	fake_sysfs_pmu_file(root, "armv8_pmuv3", "events/cpu_cycles", "event=0x0011\n");
	fake_sysfs_pmu_file(root, "armv8_pmuv3", "events/inst_retired", "event=0x0008\n");
	fake_sysfs_pmu_file(root, "cpu", "type", "4\n");
	setenv("GX_SYSFS", root, 1);
	ok(!lacks(8, 0x11), "CPU_CYCLES is listed: implemented");
	ok(!lacks(8, 0x08), "INST_RETIRED is listed: implemented");
	ok(lacks(8, 0x23), "STALL_FRONTEND is not listed: the PMU lacks it");
	ok(lacks(PERF_TYPE_RAW, 0x24), "a raw event goes to the core PMU too");
	ok(!lacks(8, 0x1234), "an IMPLEMENTATION DEFINED event: cannot be told, assumed there");
	fake_sysfs_pmu_file(root, "arm_cmn_0", "type", "10\n");
	ok(!lacks(10, 0x23), "another PMU (an interconnect's): never judged");
	ok(!lacks(PERF_TYPE_SOFTWARE, 0x2), "software events: never judged");
	cmd = xasprintf("rm -f %s/bus/event_source/devices/armv8_pmuv3/events/*; "
			"rmdir %s/bus/event_source/devices/armv8_pmuv3/events", root, root);
	if (system(cmd) != 0)
		diag("%s failed", cmd);
	free(cmd);
	ok(!lacks(8, 0x23), "no events/ directory: nothing to go by");
	cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("%s failed", cmd);
	free(cmd);
	return done_testing();
}
