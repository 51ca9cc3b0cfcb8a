/*
 * perfdata-int.h: the on-disk layout of perf.data and the reader's private
 * state, shared by writer.c, reader.c, reader-data.c and buildid.c.
 * Not included from other modules.
 */
#ifndef GX_PERFDATA_INT_H
#define GX_PERFDATA_INT_H

#include "perfdata/perfdata.h"
#include "util/util.h"

#include <stdint.h>

/* "PERFILE2" read as a little-endian u64, and the same bytes swapped. */
#define PD_MAGIC2	0x32454c4946524550ULL
#define PD_MAGIC2_SWAP	0x50455246494c4532ULL
/* "PERFFILE", the v1 magic (perf before Linux 2.6.3x). */
#define PD_MAGIC1	0x454c494646524550ULL

#define PD_FILE_HEADER_SIZE 104
#define PD_PIPE_HEADER_SIZE 16
#define PD_NAME_ALIGN 64

/* Header feature bits (perf's HEADER_*). */
enum pd_feat {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_CPU_TOPOLOGY = 13,
	PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15,
	PD_FEAT_PMU_MAPPINGS = 16,
	PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_BITS = 256,
};

/* perf's user record types (PERF_RECORD_USER_TYPE_START = 64). */
enum pd_user_type {
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_EVENT_TYPE = 65,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_HEADER_BUILD_ID = 67,
	PD_REC_FINISHED_ROUND = 68,
	PD_REC_ID_INDEX = 69,
	PD_REC_AUXTRACE_INFO = 70,
	PD_REC_AUXTRACE = 71,
	PD_REC_AUXTRACE_ERROR = 72,
	PD_REC_THREAD_MAP = 73,
	PD_REC_CPU_MAP = 74,
	PD_REC_STAT_CONFIG = 75,
	PD_REC_STAT = 76,
	PD_REC_STAT_ROUND = 77,
	PD_REC_EVENT_UPDATE = 78,
	PD_REC_TIME_CONV = 79,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_COMPRESSED = 81,
	PD_REC_FINISHED_INIT = 82,
	PD_REC_COMPRESSED2 = 83,
};

/* BUILD_ID entries: misc bit saying data[20] of build_id holds the size. */
#define PD_MISC_BUILD_ID_SIZE (1 << 15)

struct pd_file_section {
	uint64_t offset, size;
};

struct pd_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct pd_file_section attrs, data, event_types;
	uint64_t features[PD_FEAT_BITS / 64];
};

_Static_assert(sizeof(struct pd_file_header) == PD_FILE_HEADER_SIZE, "perf.data header");

/* One record queued for ordered delivery. */
struct pd_qent {
	uint64_t time;
	uint64_t seq;		/* arrival order: the sort is stable */
	uint64_t offset;	/* file offset (for messages and tool->other) */
	const void *ptr;	/* stable pointer (mmap), or NULL: see arena_off */
	size_t arena_off;
};

struct perf_reader {
	int fd;
	bool pipe;
	bool streaming;		/* pipe read with read(2), not mmap */
	unsigned flags;
	char *path;

	const uint8_t *map;	/* whole file (mmap), or NULL */
	size_t map_size;
	size_t window;		/* perf_reader__set_window */
	bool file_stream;	/* a mapped file's data walked through buf */
	uint64_t stream_end;	/* file_stream: where the data ends */

	/* streaming input: buf[head, tail) is unread data at file offset
	 * buf_off + head */
	uint8_t *buf;
	size_t buf_cap, head, tail;
	uint64_t buf_off;
	bool eof;

	struct pd_file_header hdr;
	uint64_t data_begin, data_end;	/* the part of the file walked */
	bool data_to_eof;		/* data size unknown: stop at bad record */

	struct pd_evsel *evsels;
	size_t nr_evsels, cap_evsels;
	struct u64map id_map;		/* sample id -> evsel index */
	int id_pos;			/* u64 index of the id in a sample, -1 */
	int is_pos;			/* u64 index from the end, -1 */

	struct pd_env env;
	size_t cap_build_ids;
	uint32_t comp_mmap_len;

	struct pd_stats stats;
	char **warnings;
	size_t nr_warnings, cap_warnings;

	struct pd_read read_buf;	/* PERF_SAMPLE_READ scratch */

	/* zstd stream and its output; output holds a partial record that
	 * continues in the next compressed record */
	void *zstd;
	uint8_t *dbuf;
	size_t dbuf_cap, dbuf_len;

	/* ordered delivery */
	struct pd_qent *q;
	size_t nr_q, cap_q;
	uint8_t *arena, *arena2;
	size_t arena_len, arena_cap, arena2_cap;
	uint64_t seq;
	uint64_t next_flush, max_time;
	bool processed;
	uint64_t header_seen_end;	/* pipe header records before this offset
					   were already taken in */
	uint64_t pos;			/* mmap: offset of the next record */
	uint64_t pending_skip;		/* payload after the last record */
	size_t nr_open_warnings;
	uint64_t *scratch;		/* 64 KiB: misaligned records copied here */
	uint64_t nr_bad_samples, nr_unknown_id;
};

/* reader.c */
void pd_reader__warn(struct perf_reader *r, const char *fmt, ...) GX_PRINTF(2, 3);
int pd_reader__add_attr(struct perf_reader *r, const void *attr, size_t attr_len,
			const uint64_t *ids, size_t nr_ids, uint64_t off, char **cause);
void pd_reader__update_id_pos(struct perf_reader *r);
int pd_reader__feature(struct perf_reader *r, int feat, const uint8_t *p, size_t len,
		       uint64_t off, char **cause);
void pd_reader__add_build_id(struct pd_env *env, size_t *cap, int32_t pid, uint16_t misc,
			     const uint8_t *id, uint8_t size, const char *filename);
const char *pd_record_name(uint32_t type);
/* perf's name for a common event ("cycles", "cpu-clock"), else "rNNN" /
 * "typeT:0xC"; allocated. */
char *pd_default_name(const struct perf_event_attr *a);

/* reader-data.c */
int pd_reader__cur_record(struct perf_reader *r, const struct perf_event_header **hp,
			  uint64_t *off, char **cause);
void pd_reader__advance(struct perf_reader *r, const struct perf_event_header *h);
/* One BUILD_ID entry (perf's build_id_event: header, pid, id[24],
 * filename) added to the reader's env; bad entries are warned about. */
void pd_reader__build_id_rec(struct perf_reader *r, const uint8_t *p, size_t len, uint64_t off);
int pd_reader__header_record(struct perf_reader *r, const struct perf_event_header *h,
			     uint64_t off, char **cause);
bool pd_is_header_record(uint32_t type);
const struct perf_event_header *pd_reader__aligned(struct perf_reader *r,
						   const struct perf_event_header *h);
void pd_reader__free_data(struct perf_reader *r);

static inline uint64_t pd_align8(uint64_t x)
{
	return (x + 7) & ~(uint64_t)7;
}

/* env.c: free an array of n pd_group / pd_pmu and their names */
void pd_groups__free(void *arr, size_t n);
void pd_pmus__free(void *arr, size_t n);

/*
 * side-file.c: the writer of a result's side files (regions.bin,
 * offcpu.bin). __init creates path under dirfd (new, 0600, no symlink)
 * and writes its header: 0, or a negative errno with *cause. __add
 * appends one record of a and b (either may be empty), buffered, and
 * counts it in nr: 0, or the first write error (kept). __finish flushes
 * and writes counts over the header's at off: 0, or the error with
 * *cause. __exit closes and frees (the file stays).
 */
#define PD_SIDE_BUF 65536
struct pd_side_writer {
	int fd;
	char *path;
	uint64_t nr;		/* records added */
	size_t used;
	int err;
	char *buf;		/* PD_SIDE_BUF bytes */
};
int pd_side_writer__init(struct pd_side_writer *w, int dirfd, const char *path,
			 const void *hdr, size_t len, char **cause);
int pd_side_writer__add(struct pd_side_writer *w, const void *a, size_t alen, const void *b,
			size_t blen);
int pd_side_writer__finish(struct pd_side_writer *w, const void *counts, size_t len, off_t off,
			   char **cause);
void pd_side_writer__exit(struct pd_side_writer *w);

/* meta.json's model_machine (meta-machine.c): mm as a JSON object (a new
 * reference; NULL when mm names none), and back (an object that is not
 * one: mm left empty, a warning through warn on m). */
#include <jansson.h>
json_t *pd_meta_machine__to_json(const struct gx_meta_machine *mm);
void pd_meta_machine__from_json(struct gx_meta *m, json_t *o);

#endif /* GX_PERFDATA_INT_H */
