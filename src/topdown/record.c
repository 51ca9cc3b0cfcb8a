/*
 * record.c: a model event in the collector's -e syntax (perf's), with its
 * own SAV.
 */
#include "config.h"

#include "topdown-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void td_event__spec(const struct td_event *e, struct strbuf *spec)
{
	if (e->has_raw && e->raw_type == 4 /* PERF_TYPE_RAW: the core PMU */) {
		strbuf__addf(spec, "cpu/config=0x%" PRIx64, e->raw_config);
		if (e->raw_config1)
			strbuf__addf(spec, ",config1=0x%" PRIx64, e->raw_config1);
		strbuf__addf(spec, ",period=%" PRIu64 "/", e->sav);
	} else if (e->perf && !strncmp(e->perf, "cpu/", 4) &&
		   e->perf[strlen(e->perf) - 1] == '/') {
		strbuf__add(spec, e->perf, strlen(e->perf) - 1);
		strbuf__addf(spec, ",period=%" PRIu64 "/", e->sav);
	} else if (e->perf && (!strcmp(e->perf, "cycles") || !strcmp(e->perf, "instructions"))) {
		strbuf__addstr(spec, e->perf);	/* the collector's default SAV */
	} else if (e->pfm) {
		strbuf__addstr(spec, e->pfm);
	} else {
		strbuf__addstr(spec, e->id);
	}
}
