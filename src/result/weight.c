/*
 * The weight values' names (GX_SOURCE_WEIGHT): a weighted event's samples
 * (memory-access samples' latencies) summed as a value beside it, named
 * by the event without its PMU, terms or modifiers, so that a command
 * line can say it: "cpu/mem-loads,ldlat=30/P" gives "mem-loads:weight",
 * "mem-loads:modelled" too (its kind says it is modelled), "ibs_op//"
 * "ibs_op:weight".
 */
#include "config.h"

#include <string.h>

#include "result/result-int.h"
#include "util/util.h"

char *gx_weight_name(const char *event)
{
	const char *s = event ? event : "", *slash = strchr(s, '/'), *b = s;
	size_t n;

	if (slash && slash[1] && slash[1] != '/' && slash[1] != ',') {
		b = slash + 1;
		n = strcspn(b, ",/:");
	} else {
		n = slash ? (size_t)(slash - s) : strcspn(s, ":");
	}
	if (!n)
		return xstrdup("weight");
	return xasprintf("%.*s:weight", (int)n, b);
}
