/*
 * regions-shm.h: the shared-memory ring between libgexplore-regions (the
 * producers: every thread and forked child of the workload) and gexplore
 * record (the one consumer). Private to the two: not installed. The file
 * format gexplore writes from it (regions.bin) is another thing, see
 * src/perfdata/perfdata.h and gexplore-result(5).
 *
 * GEXPLORE_REGIONS is "fd:R,C,A", three descriptors the workload inherits
 * from gexplore record (nothing named in a file system, so nothing is
 * left behind when gexplore is killed):
 *   R  this ring, a memfd mapped MAP_SHARED by both sides
 *   C  a pipe gx_pause()/gx_resume() write "disable\n"/"enable\n" to
 *   A  a pipe gexplore answers "ack\n" on
 * (Any other value is a directory holding ring, ctl and ack FIFOs, the
 * form of earlier versions; the library still reads it.)
 *
 * The ring is a bounded multi-producer queue (D. Vyukov's): slot i starts
 * with seq = i; a producer claims position p when slot[p & mask].seq == p
 * by a compare-and-swap of head, fills it and publishes seq = p + 1; the
 * consumer takes slot p when seq == p + 1 and frees it with
 * seq = p + nr_slots. A producer that finds seq < p knows the ring is
 * full: it adds one to `lost` and drops the marker. One CAS and one clock
 * read per marker, no lock, no system call.
 *
 * Since version 2 a slot keeps seq - i (its index) in its seq field, not
 * seq: a ring fresh from ftruncate, all zeros, is then the ring whose slot
 * i holds seq = i, and gexplore touches none of its 4 MiB before the
 * workload writes them (writing every slot's seq faulted in all 1024 pages,
 * 5 to 30 ms of every recording, markers or not). Version 1 kept seq
 * itself: the library reads both (gx_ring_bias).
 */
#ifndef GX_REGIONS_SHM_H
#define GX_REGIONS_SHM_H

#include <stdint.h>

#define GX_REGIONS_ENV "GEXPLORE_REGIONS"
#define GX_RING_MAGIC "GXRING1"		/* 8 bytes with the NUL */
#define GX_RING_VERSION 2		/* 1: seq kept as is */
#define GX_RING_HEADER 4096		/* slots start one page in */
#define GX_RING_SLOTS 32768		/* power of two: 4 MiB of slots */
#define GX_RING_NAME 96			/* name bytes per slot, NUL included */

enum gx_marker_kind {
	GX_MARK_BEGIN = 1,
	GX_MARK_END = 2,
	GX_MARK_POINT = 3,		/* gx_mark() */
	GX_MARK_PAUSE = 4,
	GX_MARK_RESUME = 5,
};

struct gx_ring_slot {			/* 128 bytes */
	uint64_t seq;
	uint64_t time;			/* CLOCK_MONOTONIC ns */
	uint32_t pid, tid;
	uint16_t kind;			/* enum gx_marker_kind */
	uint16_t depth;			/* regions open on the thread, this one included */
	uint32_t reserved;
	char name[GX_RING_NAME];	/* NUL-terminated, truncated */
};

struct gx_ring_header {
	char magic[8];
	uint32_t version;
	uint32_t slot_size;		/* sizeof(struct gx_ring_slot) */
	uint64_t nr_slots;
	uint64_t pad0[5];
	uint64_t head;			/* producers: next position to claim */
	uint64_t pad1[7];
	uint64_t lost;			/* producers: markers dropped (ring full, too deep) */
	uint64_t pad2[7];
};

/* What version's slot i holds in its seq field less the seq it stands for. */
static inline uint64_t gx_ring_bias(uint32_t version, uint64_t i)
{
	return version >= 2 ? (uint64_t)0 - i : 0;
}

#endif /* GX_REGIONS_SHM_H */
