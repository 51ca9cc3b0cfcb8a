/*
 * The weight values' names (GX_SOURCE_WEIGHT): a weighted event's samples
 * (memory-access samples' latencies) summed as a value beside it, named
 * by the event without its PMU, terms or modifiers, so that a command
 * line can say it: "cpu/mem-loads,ldlat=30/P" gives "mem-loads:weight",
 * "mem-loads:modelled" too (its kind says it is modelled), "ibs_op//"
 * "ibs_op:weight", "arm_spe_0/ts_enable=1/" "arm_spe_0:weight".
 */
#include "config.h"

#include <string.h>

#include "result/result-int.h"
#include "util/util.h"

char *gx_weight_name(const char *event)
{
	const char *s = event ? event : "", *slash = strchr(s, '/'), *b = s;
	size_t n = strcspn(s, ":/");

	if (slash) {
		size_t t = strcspn(slash + 1, ",/:");

		/* "pmu/event,terms/": the event; "pmu/term=v/", "pmu//": the PMU */
		if (t && !memchr(slash + 1, '=', t)) {
			b = slash + 1;
			n = t;
		}
	}
	if (!n)
		return xstrdup("weight");
	return xasprintf("%.*s:weight", (int)n, b);
}
