/*
 * test-collect-ring: the marker ring (src/collect/markers.c) against the
 * real libgexplore-regions. A new ring is made without touching its 4 MiB
 * of slots (no page of them resident: writing each slot's seq faulted them
 * all in, 5 to 30 ms of every recording); markers written through the
 * library come out of the drain, a full ring drops and counts the rest,
 * and the slots serve the next lap as the first.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "collect/collect-int.h"
#include "gexplore/regions.h"
#include "regions/regions-shm.h"

struct sink {
	struct collect_marker_sink k;
	uint64_t n, bad;
	char first[GX_RING_NAME];
};

static int sink_marker(struct collect_marker_sink *k, const struct collect_marker *m)
{
	struct sink *s = (struct sink *)k;

	if (!s->n++)
		snprintf(s->first, sizeof(s->first), "%s", m->name);
	if (m->pid != (uint32_t)getpid())
		s->bad++;
	return 0;
}

static uint64_t drain(struct marker_ring *m, struct sink *s)
{
	struct collect_stats st;

	memset(&st, 0, sizeof(st));
	s->n = 0;
	marker_ring__drain(m, &s->k, &st);
	return st.markers;
}

/* Pages of [p, p + len) resident in memory. */
static long resident(void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE), n = 0;
	size_t pages = (len + (size_t)page - 1) / (size_t)page;
	unsigned char *v = calloc(pages, 1);

	if (!v || mincore(p, len, v) != 0) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < pages; i++)
		n += v[i] & 1;
	free(v);
	return n;
}

int main(void)
{
	struct sink s = { .k = { .marker = sink_marker } };
	struct marker_ring m;
	char *cause = NULL;
	uint64_t n;

	if (marker_ring__create(&m, &cause) != 0) {
		diag("%s", cause);
		return 1;
	}
	is_int(m.hdr->version, GX_RING_VERSION, "the ring says its version");
	ok(m.hdr->version >= 2, "... one whose zeroed slots are the empty ring");
	is_int(resident((char *)m.hdr + GX_RING_HEADER, m.len - GX_RING_HEADER), 0,
	       "no page of the slots is touched before a marker is written");

	/* the library finds the ring as a workload does */
	setenv(GX_REGIONS_ENV, strchr(m.env, '=') + 1, 1);
	ok(gx_regions_active(), "the library maps the ring");
	gx_region_begin("solve");
	gx_region_end();
	is_int(drain(&m, &s), 2, "a begin and an end come out of the drain");
	is_str(s.first, "solve", "... in order, with the region's name");

	/* a full ring: every slot taken, the rest dropped and counted */
	for (int i = 0; i < GX_RING_SLOTS + 3; i++)
		gx_mark("m");
	is_int(m.hdr->lost, 3, "a full ring drops the markers past its slots");
	is_int(drain(&m, &s), GX_RING_SLOTS, "... and keeps every slot's");
	is_int(s.bad, 0, "... each from this process");
	/* the slots, freed once, serve the next lap too */
	for (int i = 0; i < 5; i++)
		gx_mark("again");
	n = drain(&m, &s);
	is_int(n, 5, "after a lap the freed slots take markers again");
	is_str(s.first, "again", "... the new ones");
	marker_ring__destroy(&m);
	return done_testing();
}
