/*
 * reader-data.c: walking the data section — records parsed in place and
 * handed to a pd_tool, zstd-compressed records, pipe-mode header records,
 * and ordered delivery between FINISHED_ROUND markers.
 *
 * Ordering follows perf's ordered_events: records with a time are queued;
 * at each FINISHED_ROUND those not later than the newest time of the
 * previous round are delivered, sorted by time (stable). A file without
 * FINISHED_ROUND is therefore sorted as a whole at the end. Records
 * without a time (no sample_id_all) are delivered when they are read.
 *
 * No allocation per record: the queue, its copy arena and the zstd output
 * grow geometrically and are reused.
 */
#include "config.h"

#include "perfdata/perfdata-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBZSTD
#include <zstd.h>

/*
 * libzstd opened at the first compressed record, not linked (issue 26,
 * part 4): a record or a report of an uncompressed perf.data never calls
 * it. Each ZSTD_* function below is a call through the address
 * gx_lazylib__open resolved; decompress() opens it.
 */
#define PD_ZSTD_FNS(X, V, D) \
	X(ZSTD_DStream *, ZSTD_createDStream, (void), ()) \
	X(size_t, ZSTD_decompressStream, (ZSTD_DStream *zds, ZSTD_outBuffer *out, ZSTD_inBuffer *in), (zds, out, in)) \
	X(size_t, ZSTD_freeDStream, (ZSTD_DStream *zds), (zds)) \
	X(const char *, ZSTD_getErrorName, (size_t code), (code)) \
	X(size_t, ZSTD_initDStream, (ZSTD_DStream *zds), (zds)) \
	X(unsigned, ZSTD_isError, (size_t code), (code))

GX_LAZYLIB_DEFINE(libzstd, PD_ZSTD_FNS, "libzstd.so.1", "libzstd1")
#endif

#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1ULL << 19)
#endif

#define NO_TIME UINT64_MAX
#define PD_MAX_DECOMP (256u << 20)

/* ---- the input: mmap or a streamed pipe --------------------------------- */

/* Make n unread bytes available in the stream buffer: 0, or -errno. */
static int stream_fill(struct perf_reader *r, size_t n)
{
	while (r->tail - r->head < n && !r->eof) {
		ssize_t got;
		size_t room;

		if (r->buf_cap - r->head < n) {
			memmove(r->buf, r->buf + r->head, r->tail - r->head);
			r->buf_off += r->head;
			r->tail -= r->head;
			r->head = 0;
			if (r->buf_cap < n)
				r->buf = xgrow(r->buf, &r->buf_cap, n, 1);
		}
		room = r->buf_cap - r->tail;
		if (r->file_stream && room > r->stream_end - (r->buf_off + r->tail))
			room = (size_t)(r->stream_end - (r->buf_off + r->tail));	/* the data's end */
		got = room ? read(r->fd, r->buf + r->tail, room) : 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			r->eof = true;
		r->tail += (size_t)got;
		r->stats.window_read += (uint64_t)got;
	}
	return 0;
}

static void truncated(struct perf_reader *r, uint64_t off)
{
	r->stats.truncated_at = off;
	if (r->pipe || r->data_to_eof || !r->hdr.data.size)
		pd_reader__warn(r, "perf.data: truncated at byte %llu; the data up to there was read",
				(unsigned long long)off);
	else
		pd_reader__warn(r, "perf.data: truncated at byte %llu; %.1f%% of the data section read",
				(unsigned long long)off,
				100.0 * (double)(off - r->data_begin) /
					(double)(r->hdr.data.size ? r->hdr.data.size : 1));
}

/* Skip payload bytes that follow a record (TRACING_DATA, AUXTRACE). */
static int skip_payload(struct perf_reader *r)
{
	uint64_t n = r->pending_skip;

	r->pending_skip = 0;
	if (!r->streaming) {
		if (n > r->data_end - r->pos) {
			truncated(r, r->pos);
			r->pos = r->data_end;
			return 1;
		}
		r->pos += n;
		return 0;
	}
	while (n) {
		size_t have = r->tail - r->head, take;
		int err;

		if (!have) {
			err = stream_fill(r, 1);
			if (err)
				return err;
			have = r->tail - r->head;
			if (!have) {
				truncated(r, r->buf_off + r->head);
				return 1;
			}
		}
		take = have < n ? have : (size_t)n;
		r->head += take;
		n -= take;
	}
	return 0;
}

/*
 * The record at the current position: 1 with *hp and *off set, 0 at the
 * end (truncation and corruption are warnings), or a negative error.
 * *hp is valid until the next call.
 */
int pd_reader__cur_record(struct perf_reader *r, const struct perf_event_header **hp,
			  uint64_t *off, char **cause)
{
	struct perf_event_header h;
	int err;

	if (r->pending_skip) {
		err = skip_payload(r);
		if (err)
			return err > 0 ? 0 : gx_fail(cause, err, "%s: %s", r->path, strerror(-err));
	}
	if (r->streaming) {
		err = stream_fill(r, 8);
		if (err)
			return gx_fail(cause, err, "%s: %s", r->path, strerror(-err));
		*off = r->buf_off + r->head;
		if (r->tail - r->head < 8) {
			if (r->tail != r->head)
				truncated(r, *off);
			return 0;
		}
		memcpy(&h, r->buf + r->head, 8);
		if (h.size < 8)
			goto bad_size;
		err = stream_fill(r, h.size);
		if (err)
			return gx_fail(cause, err, "%s: %s", r->path, strerror(-err));
		if (r->tail - r->head < h.size) {
			truncated(r, *off);
			return 0;
		}
		*hp = (const struct perf_event_header *)(r->buf + r->head);
		return 1;
	}
	*off = r->pos;
	if (r->pos >= r->data_end)
		return 0;
	if (r->data_end - r->pos < 8) {
		if (!r->data_to_eof)
			truncated(r, r->pos);
		return 0;
	}
	memcpy(&h, r->map + r->pos, 8);
	if (h.size < 8)
		goto bad_size;
	if (h.size > r->data_end - r->pos) {
		truncated(r, r->pos);
		return 0;
	}
	*hp = (const struct perf_event_header *)(r->map + r->pos);
	return 1;

bad_size:
	r->stats.truncated_at = *off;
	if (r->data_to_eof && h.size == 0 && h.type == 0)
		return 0;	/* zeros after a killed recording: its end */
	pd_reader__warn(r, "perf.data: record at byte %llu has size %u (smaller than its header); data after it skipped",
			(unsigned long long)*off, h.size);
	return 0;
}

void pd_reader__advance(struct perf_reader *r, const struct perf_event_header *hp)
{
	struct perf_event_header h;

	memcpy(&h, hp, sizeof(h));
	if (h.type == PD_REC_HEADER_TRACING_DATA && h.size >= 12) {
		uint32_t n;

		memcpy(&n, (const uint8_t *)hp + 8, 4);
		r->pending_skip = pd_align8(n);
	} else if (h.type == PD_REC_AUXTRACE && h.size >= 16) {
		memcpy(&r->pending_skip, (const uint8_t *)hp + 8, 8);
	}
	if (r->streaming)
		r->head += h.size;
	else
		r->pos += h.size;
}

/* Records are 8-aligned in files perf writes, but a pipe-mode stream may
 * hold odd-sized header records: copy a misaligned record so that callers
 * get aligned fields. Reads only h's first 8 bytes before the copy. */
const struct perf_event_header *pd_reader__aligned(struct perf_reader *r,
						   const struct perf_event_header *h)
{
	uint16_t size;

	if (!((uintptr_t)h & 7))
		return h;
	if (!r->scratch)
		r->scratch = xmalloc(65536);
	memcpy(&size, (const uint8_t *)h + 6, 2);
	memcpy(r->scratch, h, size);
	return (const struct perf_event_header *)r->scratch;
}

/* ---- header records (pipe mode, and BUILD_ID feature entries) ----------- */

bool pd_is_header_record(uint32_t type)
{
	switch (type) {
	case PD_REC_HEADER_ATTR:
	case PD_REC_HEADER_EVENT_TYPE:
	case PD_REC_HEADER_TRACING_DATA:
	case PD_REC_HEADER_BUILD_ID:
	case PD_REC_ID_INDEX:
	case PD_REC_AUXTRACE_INFO:
	case PD_REC_THREAD_MAP:
	case PD_REC_CPU_MAP:
	case PD_REC_STAT_CONFIG:
	case PD_REC_EVENT_UPDATE:
	case PD_REC_TIME_CONV:
	case PD_REC_HEADER_FEATURE:
	case PD_REC_FINISHED_INIT:
		return true;
	default:
		return false;
	}
}

static int header_attr(struct perf_reader *r, const uint8_t *p, size_t len, uint64_t off,
		       char **cause)
{
	uint32_t asz;
	size_t nr_ids;
	uint64_t *ids;
	int err;

	if (len < 8 + PERF_ATTR_SIZE_VER0)
		return gx_fail(cause, GX_E_FORMAT, "perf.data: HEADER_ATTR at byte %llu is %zu bytes",
			       (unsigned long long)off, len);
	memcpy(&asz, p + 8 + offsetof(struct perf_event_attr, size), 4);
	if (asz == 0)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > len - 8)
		return gx_fail(cause, GX_E_FORMAT,
			       "perf.data: HEADER_ATTR at byte %llu: attr size %u does not fit its record (%zu bytes)",
			       (unsigned long long)off, asz, len);
	nr_ids = (len - 8 - asz) / 8;
	ids = xcalloc(nr_ids ? nr_ids : 1, 8);
	memcpy(ids, p + 8 + asz, nr_ids * 8);
	err = pd_reader__add_attr(r, p + 8, asz, ids, nr_ids, off, cause);
	free(ids);
	if (!err && !r->evsels[r->nr_evsels - 1].name)
		r->evsels[r->nr_evsels - 1].name = NULL;	/* named at open or below */
	return err;
}

void pd_reader__build_id_rec(struct perf_reader *r, const uint8_t *p, size_t len, uint64_t off)
{
	struct perf_event_header h;
	int32_t pid;
	uint8_t size = 20;
	const uint8_t *id = p + 12;
	const char *name = (const char *)p + 36;
	char *fname;

	memcpy(&h, p, 8);
	if (len < 36) {
		pd_reader__warn(r, "perf.data: build-id record at byte %llu is %zu bytes", (unsigned long long)off, len);
		return;
	}
	memcpy(&pid, p + 8, 4);
	if (h.misc & PD_MISC_BUILD_ID_SIZE)
		size = id[20] <= 20 ? id[20] : 20;
	fname = xstrndup(name, len - 36);
	pd_reader__add_build_id(&r->env, &r->cap_build_ids, pid,
				(uint16_t)(h.misc & ~PD_MISC_BUILD_ID_SIZE), id, size, fname);
	free(fname);
}

static void event_update(struct perf_reader *r, const uint8_t *p, size_t len)
{
	uint64_t type, id, *idx;

	if (len < 24)
		return;
	memcpy(&type, p + 8, 8);
	memcpy(&id, p + 16, 8);
	idx = id == UINT64_MAX ? NULL : u64map__find(&r->id_map, id);
	if (type == 2 /* PERF_EVENT_UPDATE__NAME; 0 unit, 1 scale, 3 cpus */ && idx && *idx < r->nr_evsels && len > 24) {
		free(r->evsels[*idx].name);
		r->evsels[*idx].name = xstrndup((const char *)p + 24, len - 24);
	}
}

int pd_reader__header_record(struct perf_reader *r, const struct perf_event_header *h,
			     uint64_t off, char **cause)
{
	const uint8_t *p = (const uint8_t *)h;
	size_t len = h->size;

	switch (h->type) {
	case PD_REC_HEADER_ATTR:
		return header_attr(r, p, len, off, cause);
	case PD_REC_HEADER_BUILD_ID:
		pd_reader__build_id_rec(r, p, len, off);
		return 0;
	case PD_REC_EVENT_UPDATE:
		event_update(r, p, len);
		return 0;
	case PD_REC_HEADER_FEATURE: {
		uint64_t feat;

		if (len < 16)
			return 0;
		memcpy(&feat, p + 8, 8);
		if (feat < PD_FEAT_BITS)
			pd_reader__feature(r, (int)feat, p + 16, len - 16, off + 16, cause);
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- samples ------------------------------------------------------------ */

struct rcur {
	const uint8_t *p, *end;
};

static inline bool rneed(struct rcur *c, uint64_t n)
{
	return n <= (uint64_t)(c->end - c->p);
}

static inline bool ru64(struct rcur *c, uint64_t *v)
{
	if (!rneed(c, 8))
		return false;
	memcpy(v, c->p, 8);
	c->p += 8;
	return true;
}

static int sample_evsel(struct perf_reader *r, const uint8_t *p, size_t len, uint32_t *idx)
{
	uint64_t id, *v;

	if (r->nr_evsels == 1 || r->id_pos < 0) {
		*idx = 0;
		return 0;
	}
	if ((uint64_t)(r->id_pos + 1) * 8 > len - 8)
		return -1;
	memcpy(&id, p + 8 + (size_t)r->id_pos * 8, 8);
	if (id == UINT64_MAX)	/* the map's reserved key */
		return -1;
	v = u64map__find(&r->id_map, id);
	if (!v || *v >= r->nr_evsels)
		return -1;
	*idx = (uint32_t)*v;
	return 0;
}

/* The event a read value counts (see pd_read_value.evsel). */
static uint32_t read_value_evsel(const struct perf_reader *r, uint64_t rf, uint32_t sampled,
				 uint64_t i, uint64_t id)
{
	const uint64_t *v;

	if (!(rf & PERF_FORMAT_ID))
		return sampled + i < r->nr_evsels ? (uint32_t)(sampled + i) : UINT32_MAX;
	v = id == UINT64_MAX ? NULL : u64map__find(&r->id_map, id);
	return v && *v < r->nr_evsels ? (uint32_t)*v : UINT32_MAX;
}

/* PERF_SAMPLE_READ in read_format rf of the sampled event, into rd
 * (PD_MAX_READ_VALUES values kept, the rest skipped). */
static bool sample_read(const struct perf_reader *r, struct rcur *c, uint64_t rf,
			uint32_t sampled, struct pd_read *rd)
{
	uint64_t nr = 1, dummy, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	memset(rd, 0, offsetof(struct pd_read, values));
	if (rf & PERF_FORMAT_GROUP) {
		if (!ru64(c, &nr))
			return false;
	}
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED && !ru64(c, &rd->time_enabled))
		return false;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING && !ru64(c, &rd->time_running))
		return false;
	if (nr > (uint64_t)(c->end - c->p) / 8 / per)
		return false;
	rd->nr = nr < PD_MAX_READ_VALUES ? (uint32_t)nr : PD_MAX_READ_VALUES;
	for (uint64_t i = 0; i < nr; i++) {
		struct pd_read_value *val = i < PD_MAX_READ_VALUES ? &rd->values[i] : NULL;

		ru64(c, val ? &val->value : &dummy);
		if (rf & PERF_FORMAT_ID)
			ru64(c, val ? &val->id : &dummy);
		if (rf & PERF_FORMAT_LOST)
			ru64(c, val ? &val->lost : &dummy);
		if (val && !(rf & PERF_FORMAT_ID))
			val->id = 0;
		if (val && !(rf & PERF_FORMAT_LOST))
			val->lost = 0;
		if (val)
			val->evsel = read_value_evsel(r, rf, sampled, i, val->id);
	}
	return true;
}

static bool sample_raw(struct rcur *c, struct pd_sample *s)
{
	uint32_t n;

	if (!rneed(c, 4))
		return false;
	memcpy(&n, c->p, 4);
	c->p += 4;
	/* the kernel pads {size, data} to 8 bytes; anything else would
	 * leave the u64 fields after it misaligned */
	if (!rneed(c, n) || ((4 + (uint64_t)n) & 7))
		return false;
	s->raw_size = n;
	s->raw = c->p;
	c->p += n;
	return true;
}

static bool sample_branches(struct rcur *c, const struct perf_event_attr *a, struct pd_sample *s)
{
	uint64_t v;

	if (!ru64(c, &s->nr_branches))
		return false;
	if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX && !ru64(c, &v))
		return false;
	if (s->nr_branches > (uint64_t)(c->end - c->p) / sizeof(struct perf_branch_entry))
		return false;
	s->branches = (const struct perf_branch_entry *)c->p;
	c->p += s->nr_branches * sizeof(struct perf_branch_entry);
	if (a->branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS) {
		if (s->nr_branches > (uint64_t)(c->end - c->p) / 8)
			return false;
		c->p += s->nr_branches * 8;
	}
	return true;
}

static bool sample_regs_user(struct rcur *c, const struct perf_event_attr *a, struct pd_sample *s)
{
	uint64_t n;

	if (!ru64(c, &s->user_abi))
		return false;
	if (!s->user_abi)
		return true;
	n = (uint64_t)__builtin_popcountll(a->sample_regs_user);
	if (!rneed(c, n * 8))
		return false;
	s->user_regs_mask = a->sample_regs_user;
	s->user_regs = (const uint64_t *)c->p;
	c->p += n * 8;
	return true;
}

static bool sample_stack_user(struct rcur *c, struct pd_sample *s)
{
	if (!ru64(c, &s->stack_size) || !rneed(c, s->stack_size) || (s->stack_size & 7))
		return false;	/* the kernel rounds it to 8 bytes */
	if (!s->stack_size)
		return true;
	s->stack = c->p;
	c->p += s->stack_size;
	if (!ru64(c, &s->stack_dyn_size))
		return false;
	if (s->stack_dyn_size > s->stack_size)
		s->stack_dyn_size = s->stack_size;
	return true;
}

/* Registers not kept (REGS_INTR): an abi word, then one u64 per bit of mask
 * unless the abi is 0. */
static bool sample_skip_regs(struct rcur *c, uint64_t mask)
{
	uint64_t abi, n;

	if (!ru64(c, &abi))
		return false;
	if (!abi)
		return true;
	n = (uint64_t)__builtin_popcountll(mask);
	if (!rneed(c, n * 8))
		return false;
	c->p += n * 8;
	return true;
}

/* A u64 size, then that many bytes, not kept (AUX). */
static bool sample_skip_sized(struct rcur *c)
{
	uint64_t n;

	if (!ru64(c, &n) || !rneed(c, n))
		return false;
	c->p += n;
	return true;
}

/* Parse a PERF_RECORD_SAMPLE. Returns false naming the field that overran. */
static bool parse_sample(struct perf_reader *r, const struct perf_event_header *h,
			 struct pd_sample *s, const char **field)
{
	const struct pd_evsel *e;
	const struct perf_event_attr *a;
	struct rcur c = { (const uint8_t *)h + 8, (const uint8_t *)h + h->size };
	uint64_t t, v;

	memset(s, 0, sizeof(*s));
	*field = "id";
	if (sample_evsel(r, (const uint8_t *)h, h->size, &s->evsel) < 0)
		return false;
	e = &r->evsels[s->evsel];
	a = &e->attr;
	t = a->sample_type;
	s->sample_type = t;
	s->misc = h->misc;

#define U64(bit, dst, name)                                  \
	if (t & (bit)) {                                     \
		*field = name;                               \
		if (!ru64(&c, &(dst)))                       \
			return false;                        \
	}
	U64(PERF_SAMPLE_IDENTIFIER, s->id, "IDENTIFIER");
	U64(PERF_SAMPLE_IP, s->ip, "IP");
	if (t & PERF_SAMPLE_TID) {
		*field = "TID";
		if (!ru64(&c, &v))
			return false;
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	U64(PERF_SAMPLE_TIME, s->time, "TIME");
	U64(PERF_SAMPLE_ADDR, s->addr, "ADDR");
	U64(PERF_SAMPLE_ID, s->id, "ID");
	U64(PERF_SAMPLE_STREAM_ID, s->stream_id, "STREAM_ID");
	if (t & PERF_SAMPLE_CPU) {
		*field = "CPU";
		if (!ru64(&c, &v))
			return false;
		s->cpu = (uint32_t)v;
	}
	U64(PERF_SAMPLE_PERIOD, s->period, "PERIOD");
	if (!(t & PERF_SAMPLE_PERIOD) && !a->freq)
		s->period = a->sample_period;	/* fixed period: not in the record (as perf) */
	if (t & PERF_SAMPLE_READ) {
		*field = "READ";
		if (!sample_read(r, &c, a->read_format, s->evsel, &r->read_buf))
			return false;
		s->read = &r->read_buf;
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		*field = "CALLCHAIN";
		if (!ru64(&c, &s->nr_callchain) || s->nr_callchain > (uint64_t)(c.end - c.p) / 8)
			return false;
		s->callchain = (const uint64_t *)c.p;
		c.p += s->nr_callchain * 8;
	}
	if (t & PERF_SAMPLE_RAW) {
		*field = "RAW";
		if (!sample_raw(&c, s))
			return false;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		*field = "BRANCH_STACK";
		if (!sample_branches(&c, a, s))
			return false;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		*field = "REGS_USER";
		if (!sample_regs_user(&c, a, s))
			return false;
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		*field = "STACK_USER";
		if (!sample_stack_user(&c, s))
			return false;
	}
	U64(PERF_SAMPLE_WEIGHT_TYPE, s->weight, "WEIGHT");
	U64(PERF_SAMPLE_DATA_SRC, s->data_src, "DATA_SRC");
	U64(PERF_SAMPLE_TRANSACTION, s->transaction, "TRANSACTION");
	if (t & PERF_SAMPLE_REGS_INTR) {
		*field = "REGS_INTR";
		if (!sample_skip_regs(&c, a->sample_regs_intr))
			return false;
	}
	U64(PERF_SAMPLE_PHYS_ADDR, s->phys_addr, "PHYS_ADDR");
	U64(PERF_SAMPLE_CGROUP, v, "CGROUP");
	U64(PERF_SAMPLE_DATA_PAGE_SIZE, v, "DATA_PAGE_SIZE");
	U64(PERF_SAMPLE_CODE_PAGE_SIZE, v, "CODE_PAGE_SIZE");
	if (t & PERF_SAMPLE_AUX) {
		*field = "AUX";
		if (!sample_skip_sized(&c))
			return false;
	}
#undef U64
	return true;
}

/* ---- other kernel records ----------------------------------------------- */

/* The time in a non-sample record's sample_id_all trailer, or NO_TIME. */
static uint64_t trailer_time(const struct perf_reader *r, const struct perf_event_header *h)
{
	const struct perf_event_attr *a;
	uint64_t t, time;
	size_t from_end;

	if (!r->nr_evsels)
		return NO_TIME;
	a = &r->evsels[0].attr;
	t = a->sample_type;
	if (!a->sample_id_all || !(t & PERF_SAMPLE_TIME))
		return NO_TIME;
	from_end = 1 + !!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_CPU) +
		   !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_ID);
	if ((size_t)h->size - 8 < (from_end + !!(t & PERF_SAMPLE_TID)) * 8)
		return NO_TIME;
	memcpy(&time, (const uint8_t *)h + h->size - from_end * 8, 8);
	return time;
}

static uint64_t record_time(struct perf_reader *r, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_SAMPLE) {
		uint32_t idx;
		uint64_t t, time;
		size_t pos;

		if (sample_evsel(r, (const uint8_t *)h, h->size, &idx) < 0)
			return NO_TIME;
		t = r->evsels[idx].attr.sample_type;
		if (!(t & PERF_SAMPLE_TIME))
			return NO_TIME;
		pos = !!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID);
		if ((pos + 1) * 8 > (size_t)h->size - 8)
			return NO_TIME;
		memcpy(&time, (const uint8_t *)h + 8 + pos * 8, 8);
		return time;
	}
	return trailer_time(r, h);
}

/* NUL-terminated string field at p within the record; NULL if it has none. */
static const char *rec_string(const struct perf_event_header *h, const uint8_t *p)
{
	const uint8_t *end = (const uint8_t *)h + h->size;

	if (p >= end || !memchr(p, 0, (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

static int bad_record(struct perf_reader *r, const struct perf_event_header *h, uint64_t off,
		      const char *what)
{
	r->nr_bad_samples++;
	pd_reader__warn(r, "perf.data: %s record at byte %llu (%u bytes): its %s field is malformed or runs past its end; record skipped",
			pd_record_name(h->type), (unsigned long long)off, h->size, what);
	return 0;
}

/* PERF_RECORD_SAMPLE: parsed, counted, timed, handed to tool->sample. */
static int deliver_sample(struct perf_reader *r, struct pd_tool *tool,
			  const struct perf_event_header *h, uint64_t off)
{
	struct pd_sample s;
	const char *field;

	if (!parse_sample(r, h, &s, &field)) {
		if (strcmp(field, "id") == 0) {
			if (!r->nr_unknown_id++)
				pd_reader__warn(r, "perf.data: sample at byte %llu has an id that matches no event; such samples are skipped",
						(unsigned long long)off);
			return 0;
		}
		return bad_record(r, h, off, field);
	}
	r->stats.nr_samples++;
	if (s.time) {
		if (!r->stats.first_time || s.time < r->stats.first_time)
			r->stats.first_time = s.time;
		if (s.time > r->stats.last_time)
			r->stats.last_time = s.time;
	}
	return tool->sample ? tool->sample(tool, &s) : 0;
}

/* PERF_RECORD_MMAP and MMAP2. */
static int deliver_mmap(struct perf_reader *r, struct pd_tool *tool,
			const struct perf_event_header *h, uint64_t off)
{
	const uint8_t *p = (const uint8_t *)h;
	size_t len = h->size;
	struct pd_mmap m;
	size_t fixed = h->type == PERF_RECORD_MMAP ? 40 : 72;

	if (len < fixed)
		return bad_record(r, h, off, "mapping");
	memset(&m, 0, sizeof(m));
	memcpy(&m.pid, p + 8, 4);
	memcpy(&m.tid, p + 12, 4);
	memcpy(&m.start, p + 16, 8);
	memcpy(&m.len, p + 24, 8);
	memcpy(&m.pgoff, p + 32, 8);
	m.misc = h->misc;
	if (h->type == PERF_RECORD_MMAP2) {
		m.is_mmap2 = true;
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m.has_build_id = true;
			m.build_id_size = p[40] <= 20 ? p[40] : 20;
			memcpy(m.build_id, p + 44, 20);
		} else {
			memcpy(&m.maj, p + 40, 4);
			memcpy(&m.min, p + 44, 4);
			memcpy(&m.ino, p + 48, 8);
			memcpy(&m.ino_generation, p + 56, 8);
		}
		memcpy(&m.prot, p + 64, 4);
		memcpy(&m.flags, p + 68, 4);
	}
	m.filename = rec_string(h, p + fixed);
	if (!m.filename)
		return bad_record(r, h, off, "file name");
	m.time = trailer_time(r, h);
	if (m.time == NO_TIME)
		m.time = 0;
	return tool->mmap ? tool->mmap(tool, &m) : 0;
}

/* PERF_RECORD_COMM. */
static int deliver_comm(struct perf_reader *r, struct pd_tool *tool,
			const struct perf_event_header *h, uint64_t off)
{
	const uint8_t *p = (const uint8_t *)h;
	size_t len = h->size;
	struct pd_comm cm;

	if (len < 16)
		return bad_record(r, h, off, "comm");
	memcpy(&cm.pid, p + 8, 4);
	memcpy(&cm.tid, p + 12, 4);
	cm.exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
	cm.comm = rec_string(h, p + 16);
	if (!cm.comm)
		return bad_record(r, h, off, "comm");
	cm.time = trailer_time(r, h);
	if (cm.time == NO_TIME)
		cm.time = 0;
	return tool->comm ? tool->comm(tool, &cm) : 0;
}

/* PERF_RECORD_FORK and EXIT. */
static int deliver_task(struct perf_reader *r, struct pd_tool *tool,
			const struct perf_event_header *h, uint64_t off)
{
	const uint8_t *p = (const uint8_t *)h;
	size_t len = h->size;
	struct pd_task t;

	if (len < 32)
		return bad_record(r, h, off, "task");
	memcpy(&t.pid, p + 8, 4);
	memcpy(&t.ppid, p + 12, 4);
	memcpy(&t.tid, p + 16, 4);
	memcpy(&t.ptid, p + 20, 4);
	memcpy(&t.time, p + 24, 8);
	if (h->type == PERF_RECORD_FORK)
		return tool->fork ? tool->fork(tool, &t) : 0;
	return tool->exit ? tool->exit(tool, &t) : 0;
}

/* PERF_RECORD_LOST and LOST_SAMPLES: counted, then handed on. */
static int deliver_lost(struct perf_reader *r, struct pd_tool *tool,
			const struct perf_event_header *h, uint64_t off)
{
	const uint8_t *p = (const uint8_t *)h;
	size_t len = h->size;
	struct pd_lost l = { 0 };

	if (h->type == PERF_RECORD_LOST) {
		if (len < 24)
			return bad_record(r, h, off, "count");
		memcpy(&l.id, p + 8, 8);
		memcpy(&l.lost, p + 16, 8);
		r->stats.nr_lost_records++;
		r->stats.nr_lost += l.lost;
	} else {
		if (len < 16)
			return bad_record(r, h, off, "count");
		memcpy(&l.lost, p + 8, 8);
		l.samples = true;
		r->stats.nr_lost_samples += l.lost;
	}
	return tool->lost ? tool->lost(tool, &l) : 0;
}

static int deliver(struct perf_reader *r, struct pd_tool *tool,
		   const struct perf_event_header *h, uint64_t off)
{
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return deliver_sample(r, tool, h, off);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return deliver_mmap(r, tool, h, off);
	case PERF_RECORD_COMM:
		return deliver_comm(r, tool, h, off);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return deliver_task(r, tool, h, off);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return deliver_lost(r, tool, h, off);
	default:
		return tool->other ? tool->other(tool, h, off) : 0;
	}
}

/* ---- ordered delivery --------------------------------------------------- */

static int qent_cmp(const void *a, const void *b)
{
	const struct pd_qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void enqueue(struct perf_reader *r, const struct perf_event_header *h, uint64_t off,
		    uint64_t time, bool stable)
{
	struct pd_qent *q;

	r->q = xgrow(r->q, &r->cap_q, r->nr_q + 1, sizeof(*r->q));
	q = &r->q[r->nr_q++];
	q->time = time;
	q->seq = r->seq++;
	q->offset = off;
	if (stable) {
		q->ptr = h;
	} else {
		q->ptr = NULL;
		r->arena = xgrow(r->arena, &r->arena_cap, r->arena_len + pd_align8(h->size), 1);
		q->arena_off = r->arena_len;
		memcpy(r->arena + r->arena_len, h, h->size);
		r->arena_len += pd_align8(h->size);
	}
	if (time > r->max_time)
		r->max_time = time;
}

/* Deliver queued records with time <= limit, in time order. */
static int flush_queue(struct perf_reader *r, struct pd_tool *tool, uint64_t limit)
{
	size_t n = 0, keep;
	int ret = 0;

	if (!r->nr_q)
		return 0;
	gx_qsort(r->q, r->nr_q, sizeof(*r->q), qent_cmp);
	while (n < r->nr_q && r->q[n].time <= limit) {
		const struct pd_qent *q = &r->q[n++];
		const struct perf_event_header *h = q->ptr ? q->ptr :
			(const struct perf_event_header *)(r->arena + q->arena_off);

		ret = deliver(r, tool, h, q->offset);
		if (ret)
			break;
	}
	keep = r->nr_q - n;
	memmove(r->q, r->q + n, keep * sizeof(*r->q));
	r->nr_q = keep;
	/* compact the arena: copy what is still queued into the spare one */
	if (r->arena_len) {
		size_t len = 0;

		for (size_t i = 0; i < keep; i++) {
			struct pd_qent *q = &r->q[i];
			const struct perf_event_header *h;

			if (q->ptr)
				continue;
			h = (const struct perf_event_header *)(r->arena + q->arena_off);
			r->arena2 = xgrow(r->arena2, &r->arena2_cap, len + pd_align8(h->size), 1);
			memcpy(r->arena2 + len, h, h->size);
			q->arena_off = len;
			len += pd_align8(h->size);
		}
		{
			uint8_t *t = r->arena;
			size_t c = r->arena_cap;

			r->arena = r->arena2;
			r->arena_cap = r->arena2_cap;
			r->arena2 = t;
			r->arena2_cap = c;
			r->arena_len = len;
		}
	}
	return ret;
}

/* ---- the walk ----------------------------------------------------------- */

static int handle(struct perf_reader *r, struct pd_tool *tool,
		  const struct perf_event_header *h, uint64_t off, bool stable, char **cause);

#ifdef HAVE_LIBZSTD
static int decompress(struct perf_reader *r, struct pd_tool *tool,
		      const struct perf_event_header *h, uint64_t off, char **cause)
{
	const uint8_t *src = (const uint8_t *)h + 8;
	size_t src_len = h->size - 8, pos = 0;
	ZSTD_inBuffer in;
	int ret = 0;

	if (h->type == PD_REC_COMPRESSED2) {
		uint64_t n;

		if (h->size < 16)
			return bad_record(r, h, off, "data size");
		memcpy(&n, src, 8);
		src += 8;
		if (n > (uint64_t)h->size - 16)
			return bad_record(r, h, off, "compressed data");
		src_len = (size_t)n;
	}
	if (!r->zstd) {
		int err = gx_lazylib__open(&libzstd, cause);

		if (err)
			return err;
		r->zstd = ZSTD_createDStream();
		if (!r->zstd)
			return gx_fail(cause, -ENOMEM, "zstd: cannot create a decompression stream");
		ZSTD_initDStream(r->zstd);
	}
	in.src = src;
	in.size = src_len;
	in.pos = 0;
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		size_t z;

		if (r->dbuf_cap - r->dbuf_len < (64u << 10)) {
			if (r->dbuf_cap >= PD_MAX_DECOMP) {
				pd_reader__warn(r, "perf.data: compressed record at byte %llu expands past %u MiB; skipped",
						(unsigned long long)off, PD_MAX_DECOMP >> 20);
				r->dbuf_len = 0;
				ZSTD_initDStream(r->zstd);
				return 0;
			}
			r->dbuf = xgrow(r->dbuf, &r->dbuf_cap, r->dbuf_len + (256u << 10), 1);
		}
		out.dst = r->dbuf + r->dbuf_len;
		out.size = r->dbuf_cap - r->dbuf_len;
		out.pos = 0;
		z = ZSTD_decompressStream(r->zstd, &out, &in);
		if (ZSTD_isError(z)) {
			pd_reader__warn(r, "perf.data: compressed record at byte %llu: zstd: %s; skipped",
					(unsigned long long)off, ZSTD_getErrorName(z));
			r->dbuf_len = 0;
			ZSTD_initDStream(r->zstd);
			return 0;
		}
		r->dbuf_len += out.pos;
		if (out.pos == 0 && in.pos < in.size && out.size > 0)
			break;	/* no progress */
	}
	/* records that are complete; a partial one waits for the next */
	while (r->dbuf_len - pos >= 8) {
		struct perf_event_header ih;

		memcpy(&ih, r->dbuf + pos, 8);
		if (ih.size < 8) {
			pd_reader__warn(r, "perf.data: compressed record at byte %llu holds a record of size %u; rest skipped",
					(unsigned long long)off, ih.size);
			pos = r->dbuf_len;
			break;
		}
		if (ih.size > r->dbuf_len - pos)
			break;
		if (ih.type == PD_REC_COMPRESSED || ih.type == PD_REC_COMPRESSED2 ||
		    ih.type == PD_REC_HEADER_TRACING_DATA || ih.type == PD_REC_AUXTRACE) {
			pos += ih.size;
			continue;	/* nested or with payload: not expected here */
		}
		ret = handle(r, tool, pd_reader__aligned(r, (const struct perf_event_header *)(r->dbuf + pos)),
			     off, false, cause);
		if (ret)
			break;
		pos += ih.size;
	}
	/* dbuf is still NULL when a record decompressed to nothing */
	if (pos < r->dbuf_len)
		memmove(r->dbuf, r->dbuf + pos, r->dbuf_len - pos);
	r->dbuf_len -= pos;
	return ret;
}
#endif

static int handle(struct perf_reader *r, struct pd_tool *tool,
		  const struct perf_event_header *h, uint64_t off, bool stable, char **cause)
{
	uint64_t time;

	r->stats.nr_records++;
	if (h->type < PERF_RECORD_MAX)
		r->stats.nr_by_type[h->type]++;
	if (h->type == PD_REC_COMPRESSED || h->type == PD_REC_COMPRESSED2) {
#ifdef HAVE_LIBZSTD
		return decompress(r, tool, h, off, cause);
#else
		return gx_fail(cause, GX_E_NOTSUP,
			       "perf.data: record at byte %llu: zstd-compressed records: this gexplore was built without libzstd",
			       (unsigned long long)off);
#endif
	}
	if (h->type >= 64) {
		if (pd_is_header_record(h->type)) {
			int err;

			if (off < r->header_seen_end)
				return tool->other ? tool->other(tool, h, off) : 0;
			r->header_seen_end = off + 1;
			err = pd_reader__header_record(r, h, off, cause);
			if (err)
				return err;
		}
		if (h->type == PD_REC_FINISHED_ROUND && (r->flags & PD_ORDERED)) {
			int ret = flush_queue(r, tool, r->next_flush);

			r->next_flush = r->max_time;
			if (ret)
				return ret;
		}
		return tool->other ? tool->other(tool, h, off) : 0;
	}
	if (r->flags & PD_ORDERED) {
		time = record_time(r, h);
		if (time != NO_TIME) {
			enqueue(r, h, off, time, stable);
			return 0;
		}
	}
	return deliver(r, tool, h, off);
}

int perf_reader__process(struct perf_reader *r, struct pd_tool *tool, char **cause)
{
	const struct perf_event_header *h;
	struct pd_tool none = { 0 };
	uint64_t off = r->data_begin;
	int ret;

	if (!tool)
		tool = &none;
	if (r->processed && r->streaming)
		return gx_fail(cause, GX_E_USAGE, "%s: a pipe can be read only once", r->path);
	/* start over: forget what an earlier walk found */
	for (size_t i = r->nr_open_warnings; i < r->nr_warnings; i++)
		free(r->warnings[i]);
	r->nr_warnings = r->nr_open_warnings;
	memset(&r->stats, 0, sizeof(r->stats));
	r->nr_q = r->arena_len = r->dbuf_len = 0;
	r->next_flush = r->max_time = 0;
	r->nr_bad_samples = r->nr_unknown_id = 0;
	r->pending_skip = 0;
	r->pos = r->data_begin;
	r->processed = true;
	if (r->map && r->window) {
		size_t want = r->window;

		/*
		 * A mapped file's data is read through a buffer of the window's
		 * size: touching the mapping faults its pages in one by one
		 * (a quarter of a report's time on a 1 GB file, in a VM) and
		 * keeps them resident; read(2) into one buffer does neither.
		 */
		if (lseek(r->fd, (off_t)r->data_begin, SEEK_SET) < 0)
			return gx_fail(cause, -errno, "%s: %s", r->path, strerror(errno));
		r->streaming = r->file_stream = true;
		r->stream_end = r->data_end;
		/* no bigger than the data (a record of /bin/true: 3 KB of a
		 * 4 MB window, its own mmap and munmap); stream_fill grows it
		 * for a record longer than that */
		if (r->data_end - r->data_begin < want)
			want = r->data_end - r->data_begin < (64u << 10) ? (64u << 10) :
			       (size_t)(r->data_end - r->data_begin);
		if (r->buf_cap < want)
			r->buf = xgrow(r->buf, &r->buf_cap, want, 1);
		r->buf_off = r->data_begin;
		r->head = r->tail = 0;
		r->eof = false;
	}
#ifdef HAVE_LIBZSTD
	if (r->zstd)
		ZSTD_initDStream(r->zstd);
#endif

	while ((ret = pd_reader__cur_record(r, &h, &off, cause)) > 0) {
		const struct perf_event_header *ah = pd_reader__aligned(r, h);

		ret = handle(r, tool, ah, off, !r->streaming && ah == h, cause);
		if (ret)
			break;
		pd_reader__advance(r, h);
	}
	if (ret < 0 || ret > 0)
		goto out;
	if (r->flags & PD_ORDERED)
		ret = flush_queue(r, tool, UINT64_MAX);
out:
	r->stats.data_bytes = (r->streaming ? r->buf_off + r->head : r->pos) - r->data_begin;
	if (r->file_stream) {
		r->stats.window_peak = r->buf_cap;
		r->streaming = r->file_stream = false;	/* the next walk reads again */
	}
	if (r->nr_unknown_id > 1)
		pd_reader__warn(r, "perf.data: %llu samples matched no event and were skipped",
				(unsigned long long)r->nr_unknown_id);
	return ret;
}

void pd_reader__free_data(struct perf_reader *r)
{
#ifdef HAVE_LIBZSTD
	if (r->zstd)
		ZSTD_freeDStream(r->zstd);
#endif
	r->zstd = NULL;
	free(r->dbuf);
	free(r->q);
	free(r->arena);
	free(r->arena2);
	free(r->scratch);
}
