/*
 * test-perfdata-rw: the perf.data writer and reader against each other —
 * round trips over many sample_type layouts and group reads, a recording
 * killed before it finished, truncation at every byte, random corruption,
 * ordered delivery, pipe mode from a real pipe, build-id collection, speed,
 * and Linux perf reading what the writer wrote ($PERF; skipped without).
 */
#include "config.h"

#include "perfdata/perfdata.h"
#include "util/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBZSTD
#include <zstd.h>
#endif

#include "tap.h"

static char tmpdir[] = "/tmp/gx-perfdata-XXXXXX";

static char *tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* ---- a record builder ---------------------------------------------------- */

struct rec {
	uint64_t w[8192];
	size_t n;			/* u64 words */
};

static void rec_start(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	r->n = 0;
	memcpy(&r->w[r->n++], &h, 8);
}

static void rec_u64(struct rec *r, uint64_t v)
{
	r->w[r->n++] = v;
}

static void rec_u32x2(struct rec *r, uint32_t a, uint32_t b)
{
	r->w[r->n++] = (uint64_t)a | (uint64_t)b << 32;
}

static void rec_bytes(struct rec *r, const void *p, size_t len)
{
	size_t words = (len + 7) / 8;

	memset(&r->w[r->n], 0, words * 8);
	memcpy(&r->w[r->n], p, len);
	r->n += words;
}

static void rec_str(struct rec *r, const char *s)
{
	rec_bytes(r, s, strlen(s) + 1);
}

static size_t rec_end(struct rec *r)
{
	struct perf_event_header h;

	memcpy(&h, &r->w[0], 8);
	h.size = (uint16_t)(r->n * 8);
	memcpy(&r->w[0], &h, 8);
	return r->n * 8;
}

/* What a test sample holds; written in the kernel's field order. */
struct tsample {
	uint64_t id, ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu;
	uint64_t read_values[4];
	uint64_t read_ids[4];
	uint32_t nr_read;
	uint64_t callchain[4];
	uint32_t nr_callchain;
	uint32_t raw_size;
	uint64_t nr_branches;
	uint64_t weight, data_src, transaction, phys_addr;
	uint64_t stack_size;
};

static void put_id_trailer(struct rec *r, const struct perf_event_attr *a, uint32_t pid,
			   uint64_t time, uint64_t id, uint32_t cpu)
{
	uint64_t t = a->sample_type;

	if (!a->sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID)
		rec_u32x2(r, pid, pid);
	if (t & PERF_SAMPLE_TIME)
		rec_u64(r, time);
	if (t & PERF_SAMPLE_ID)
		rec_u64(r, id);
	if (t & PERF_SAMPLE_STREAM_ID)
		rec_u64(r, id);
	if (t & PERF_SAMPLE_CPU)
		rec_u32x2(r, cpu, 0);
	if (t & PERF_SAMPLE_IDENTIFIER)
		rec_u64(r, id);
}

static size_t put_sample(struct rec *r, const struct perf_event_attr *a, const struct tsample *s)
{
	uint64_t t = a->sample_type, rf = a->read_format;

	rec_start(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (t & PERF_SAMPLE_IDENTIFIER)
		rec_u64(r, s->id);
	if (t & PERF_SAMPLE_IP)
		rec_u64(r, s->ip);
	if (t & PERF_SAMPLE_TID)
		rec_u32x2(r, s->pid, s->tid);
	if (t & PERF_SAMPLE_TIME)
		rec_u64(r, s->time);
	if (t & PERF_SAMPLE_ADDR)
		rec_u64(r, s->addr);
	if (t & PERF_SAMPLE_ID)
		rec_u64(r, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		rec_u64(r, s->stream_id);
	if (t & PERF_SAMPLE_CPU)
		rec_u32x2(r, s->cpu, 0);
	if (t & PERF_SAMPLE_PERIOD)
		rec_u64(r, s->period);
	if (t & PERF_SAMPLE_READ) {
		if (rf & PERF_FORMAT_GROUP)
			rec_u64(r, s->nr_read);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			rec_u64(r, 1000);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			rec_u64(r, 500);
		for (uint32_t i = 0; i < ((rf & PERF_FORMAT_GROUP) ? s->nr_read : 1); i++) {
			rec_u64(r, s->read_values[i]);
			if (rf & PERF_FORMAT_ID)
				rec_u64(r, s->read_ids[i]);
			if (rf & PERF_FORMAT_LOST)
				rec_u64(r, 7);
		}
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		rec_u64(r, s->nr_callchain);
		for (uint32_t i = 0; i < s->nr_callchain; i++)
			rec_u64(r, s->callchain[i]);
	}
	if (t & PERF_SAMPLE_RAW) {
		uint8_t raw[64] = { 0 };
		uint32_t sz = s->raw_size;	/* 4 + sz is a multiple of 8 */

		memcpy(raw, &sz, 4);
		memset(raw + 4, 0xab, sz);
		rec_bytes(r, raw, 4 + sz);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		rec_u64(r, s->nr_branches);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			rec_u64(r, (uint64_t)-1);
		for (uint64_t i = 0; i < s->nr_branches; i++) {
			rec_u64(r, 0x1000 + i);
			rec_u64(r, 0x2000 + i);
			rec_u64(r, 0);
		}
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		rec_u64(r, PERF_SAMPLE_REGS_ABI_64);
		for (int i = 0; i < __builtin_popcountll(a->sample_regs_user); i++)
			rec_u64(r, 100 + (uint64_t)i);
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		rec_u64(r, s->stack_size);
		for (uint64_t i = 0; i < s->stack_size / 8; i++)
			rec_u64(r, 0x5555);
		if (s->stack_size)
			rec_u64(r, s->stack_size / 2);
	}
	if (t & PERF_SAMPLE_WEIGHT_TYPE)
		rec_u64(r, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		rec_u64(r, s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		rec_u64(r, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR) {
		rec_u64(r, PERF_SAMPLE_REGS_ABI_64);
		for (int i = 0; i < __builtin_popcountll(a->sample_regs_intr); i++)
			rec_u64(r, 200 + (uint64_t)i);
	}
	if (t & PERF_SAMPLE_PHYS_ADDR)
		rec_u64(r, s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		rec_u64(r, 1);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		rec_u64(r, 4096);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		rec_u64(r, 4096);
	if (t & PERF_SAMPLE_AUX) {
		rec_u64(r, 8);
		rec_u64(r, 0);
	}
	return rec_end(r);
}

static size_t put_comm(struct rec *r, const struct perf_event_attr *a, uint32_t pid,
		       const char *comm, uint64_t time, uint64_t id)
{
	rec_start(r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	rec_u32x2(r, pid, pid);
	rec_str(r, comm);
	put_id_trailer(r, a, pid, time, id, 0);
	return rec_end(r);
}

static size_t put_mmap2(struct rec *r, const struct perf_event_attr *a, uint32_t pid,
			uint64_t start, uint64_t len, uint64_t pgoff, const char *file,
			uint64_t time, uint64_t id)
{
	rec_start(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	rec_u32x2(r, pid, pid);
	rec_u64(r, start);
	rec_u64(r, len);
	rec_u64(r, pgoff);
	rec_u32x2(r, 8, 1);		/* maj, min */
	rec_u64(r, 1234);		/* ino */
	rec_u64(r, 0);			/* ino_generation */
	rec_u32x2(r, 5 /* PROT_READ|PROT_EXEC */, 2 /* MAP_PRIVATE */);
	rec_str(r, file);
	put_id_trailer(r, a, pid, time, id, 0);
	return rec_end(r);
}

static size_t put_lost(struct rec *r, const struct perf_event_attr *a, uint64_t id, uint64_t n)
{
	rec_start(r, PERF_RECORD_LOST, 0);
	rec_u64(r, id);
	rec_u64(r, n);
	put_id_trailer(r, a, 0, 0, id, 0);
	return rec_end(r);
}

/* ---- a tool that keeps what it was given --------------------------------- */

#define MAX_KEEP 64

struct keep_tool {
	struct pd_tool tool;
	uint64_t samples, mmaps, comms, lost_records, lost;
	struct pd_sample s[MAX_KEEP];
	struct pd_read rd[MAX_KEEP];
	uint64_t cc0[MAX_KEEP], br_to0[MAX_KEEP], reg0[MAX_KEEP];
	uint64_t times[4096];
	char mmap_file[256];
	uint64_t mmap_time;
	bool comm_exec;
};

static int keep_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct keep_tool *k = (struct keep_tool *)t;

	if (k->samples < MAX_KEEP) {
		k->s[k->samples] = *s;
		if (s->read)
			k->rd[k->samples] = *s->read;
		k->cc0[k->samples] = s->nr_callchain ? s->callchain[0] : 0;
		k->br_to0[k->samples] = s->nr_branches ? s->branches[0].to : 0;
		k->reg0[k->samples] = s->user_regs ? s->user_regs[0] : 0;
	}
	if (k->samples < ARRAY_SIZE(k->times))
		k->times[k->samples] = s->time;
	k->samples++;
	return 0;
}

static int keep_mmap(struct pd_tool *t, const struct pd_mmap *m)
{
	struct keep_tool *k = (struct keep_tool *)t;

	k->mmaps++;
	snprintf(k->mmap_file, sizeof(k->mmap_file), "%s", m->filename);
	k->mmap_time = m->time;
	return 0;
}

static int keep_comm(struct pd_tool *t, const struct pd_comm *c)
{
	struct keep_tool *k = (struct keep_tool *)t;

	k->comms++;
	k->comm_exec = c->exec;
	return 0;
}

static int keep_lost(struct pd_tool *t, const struct pd_lost *l)
{
	struct keep_tool *k = (struct keep_tool *)t;

	k->lost_records++;
	k->lost += l->lost;
	return 0;
}

static void keep_init(struct keep_tool *k)
{
	memset(k, 0, sizeof(*k));
	k->tool.sample = keep_sample;
	k->tool.mmap = keep_mmap;
	k->tool.comm = keep_comm;
	k->tool.lost = keep_lost;
}

/* Open path and walk it; returns the error of open or process. */
static int read_file(const char *path, unsigned flags, struct keep_tool *k, char **cause,
		     size_t *nr_warnings, char **warnings)
{
	struct perf_reader *r;
	int err;

	keep_init(k);
	err = perf_reader__open(&r, path, flags, cause);
	if (err)
		return err;
	err = perf_reader__process(r, &k->tool, cause);
	if (nr_warnings)
		*nr_warnings = perf_reader__nr_warnings(r);
	if (warnings) {
		/* all of them, one a line */
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < perf_reader__nr_warnings(r); i++)
			strbuf__addf(&sb, "%s\n", perf_reader__warning(r, i));
		*warnings = sb.len ? strbuf__detach(&sb) : NULL;
	}
	perf_reader__delete(r);
	return err;
}

/* ---- round trips ------------------------------------------------------- */

static const struct layout {
	int line;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	int nr_evsels;
} layouts[] = {
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD, 0, 0, 1 },
	{ __LINE__, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD, 0, 0, 2 },
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD, 0, 0, 3 },
	{ __LINE__, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		    PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD,
	  PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		    PERF_FORMAT_TOTAL_TIME_RUNNING, 0, 3 },
	{ __LINE__, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		    PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST, 0, 2 },
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_READ,
	  PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED, 0, 1 },
	{ __LINE__, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		    PERF_SAMPLE_ADDR | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
		    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |
		    PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
		    PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
		    PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX, 0, PERF_SAMPLE_BRANCH_HW_INDEX, 2 },
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
		    PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT_STRUCT, 0, 0, 1 },
};

static void make_evsels(struct pd_evsel *ev, int nr, const struct layout *l, uint64_t *ids)
{
	static char names[8][16];

	memset(ev, 0, sizeof(*ev) * (size_t)nr);
	for (int i = 0; i < nr; i++) {
		struct perf_event_attr *a = &ev[i].attr;

		a->size = sizeof(*a);
		a->type = PERF_TYPE_HARDWARE;
		a->config = (uint64_t)i;
		a->sample_period = 1000;
		a->sample_type = l->sample_type;
		a->read_format = l->read_format;
		a->branch_sample_type = l->branch_sample_type;
		a->sample_regs_user = 0x7;
		a->sample_regs_intr = 0x3;
		a->sample_stack_user = 64;
		a->sample_id_all = 1;
		a->exclude_kernel = 1;
		snprintf(names[i], sizeof(names[i]), "ev%d", i);
		ev[i].name = names[i];
		ids[2 * i] = 100 + 10 * (uint64_t)i;
		ids[2 * i + 1] = 101 + 10 * (uint64_t)i;
		ev[i].ids = &ids[2 * i];
		ev[i].nr_ids = 2;
	}
}

static void fill_sample(struct tsample *s, int i, int nr_evsels, uint64_t ids_base)
{
	memset(s, 0, sizeof(*s));
	s->id = ids_base + 10 * (uint64_t)(i % nr_evsels) + (uint64_t)(i & 1);
	s->ip = 0x400000 + (uint64_t)i;
	s->pid = 42;
	s->tid = 43 + (uint32_t)i;
	s->time = 1000000 + (uint64_t)i * 10;
	s->addr = 0xdead0000 + (uint64_t)i;
	s->stream_id = s->id;
	s->period = 1000 + (uint64_t)i;
	s->cpu = (uint32_t)i % 4;
	s->nr_read = (uint32_t)nr_evsels;
	for (int j = 0; j < nr_evsels; j++) {
		s->read_values[j] = 5000 * (uint64_t)(j + 1) + (uint64_t)i;
		s->read_ids[j] = ids_base + 10 * (uint64_t)j;
	}
	s->nr_callchain = 3;
	s->callchain[0] = PERF_CONTEXT_USER;
	s->callchain[1] = s->ip;
	s->callchain[2] = 0x400100;
	s->raw_size = 12;
	s->nr_branches = 2;
	s->weight = 33;
	s->data_src = 44;
	s->transaction = 55;
	s->phys_addr = 66;
	s->stack_size = 32;
}

static void test_round_trip(const struct layout *l)
{
	char *path = tmp_path("rt.data"), *cause = NULL;
	struct pd_evsel ev[8];
	uint64_t ids[16];
	struct perf_writer *w;
	struct rec rec;
	struct keep_tool k;
	struct pd_env env;
	const int n = 20;
	int err, bad = 0;

	make_evsels(ev, l->nr_evsels, l, ids);
	err = perf_writer__new(&w, path, ev, (size_t)l->nr_evsels, &cause);
	is_int_at(err, 0, l->line, "writer opens (layout 0x%llx)", (unsigned long long)l->sample_type);
	if (err) {
		diag("%s", cause);
		free(cause);
		free(path);
		return;
	}
	perf_writer__write(w, &rec.w, put_comm(&rec, &ev[0].attr, 42, "work", 999, 100));
	perf_writer__write(w, &rec.w, put_mmap2(&rec, &ev[0].attr, 42, 0x400000, 0x1000, 0,
						"/bin/true", 999, 100));
	for (int i = 0; i < n; i++) {
		struct tsample s;

		fill_sample(&s, i, l->nr_evsels, 100);
		perf_writer__write(w, &rec.w, put_sample(&rec, &ev[0].attr, &s));
	}
	perf_writer__write(w, &rec.w, put_lost(&rec, &ev[0].attr, 100, 17));
	perf_writer__finished_round(w);
	pd_env__from_system(&env, 0, NULL);
	err = perf_writer__finish(w, &env, &cause);
	pd_env__exit(&env);
	perf_writer__delete(w);
	is_int_at(err, 0, l->line, "writer finishes");

	err = read_file(path, 0, &k, &cause, NULL, NULL);
	is_int_at(err, 0, l->line, "reads back");
	is_int_at(k.samples, n, l->line, "sample count");
	is_int_at(k.lost, 17, l->line, "lost count");
	ok_at(k.mmaps == 1 && strcmp(k.mmap_file, "/bin/true") == 0 && k.comms == 1 && k.comm_exec,
	      __FILE__, l->line, "mmap2 and comm");
	ok_at(k.mmap_time == 999, __FILE__, l->line, "mmap time from the sample_id_all trailer");
	for (int i = 0; i < n && i < MAX_KEEP; i++) {
		struct tsample s;
		const struct pd_sample *g = &k.s[i];
		uint64_t t = l->sample_type;

		fill_sample(&s, i, l->nr_evsels, 100);
		if (g->ip != s.ip || g->pid != s.pid || g->tid != s.tid || g->time != s.time)
			bad |= 1;
		if (l->nr_evsels > 1 && (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) &&
		    g->evsel != (uint32_t)(i % l->nr_evsels))
			bad |= 2;
		if ((t & PERF_SAMPLE_PERIOD) && g->period != s.period)
			bad |= 4;
		if ((t & PERF_SAMPLE_CPU) && g->cpu != s.cpu)
			bad |= 8;
		if (t & PERF_SAMPLE_READ) {
			const struct pd_read *rd = &k.rd[i];
			uint32_t want = (l->read_format & PERF_FORMAT_GROUP) ? s.nr_read : 1;

			if (!g->read || rd->nr != want || rd->values[0].value != s.read_values[0] ||
			    ((l->read_format & PERF_FORMAT_ID) && rd->values[0].id != s.read_ids[0]) ||
			    (want > 1 && rd->values[want - 1].value != s.read_values[want - 1]) ||
			    ((l->read_format & PERF_FORMAT_LOST) && rd->values[0].lost != 7) ||
			    ((l->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) && rd->time_enabled != 1000))
				bad |= 16;
		}
		if ((t & PERF_SAMPLE_CALLCHAIN) &&
		    (g->nr_callchain != 3 || k.cc0[i] != PERF_CONTEXT_USER))
			bad |= 32;
		if ((t & PERF_SAMPLE_RAW) && g->raw_size != 12)
			bad |= 64;
		if ((t & PERF_SAMPLE_BRANCH_STACK) && (g->nr_branches != 2 || k.br_to0[i] != 0x2000))
			bad |= 128;
		if ((t & PERF_SAMPLE_REGS_USER) &&
		    (g->user_abi != PERF_SAMPLE_REGS_ABI_64 || k.reg0[i] != 100))
			bad |= 256;
		if ((t & PERF_SAMPLE_STACK_USER) && (g->stack_size != 32 || g->stack_dyn_size != 16))
			bad |= 512;
		if ((t & PERF_SAMPLE_WEIGHT_TYPE) && g->weight != 33)
			bad |= 1024;
		if ((t & PERF_SAMPLE_PHYS_ADDR) && (g->phys_addr != 66 || g->data_src != 44 ||
						     g->transaction != 55))
			bad |= 2048;
		if ((t & PERF_SAMPLE_ADDR) && g->addr != s.addr)
			bad |= 4096;
	}
	is_int_at(bad, 0, l->line, "every field read back (bit mask of mismatches)");
	free(cause);
	free(path);
}

/* A simple single-event file; returns its size, or 0. */
static const uint64_t simple_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

static void simple_evsel(struct pd_evsel *ev, uint64_t *id)
{
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev->attr.sample_period = 100000;
	ev->attr.sample_type = simple_type;
	ev->attr.sample_id_all = 1;
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	ev->attr.disabled = 1;
	ev->attr.enable_on_exec = 1;
	ev->name = "cpu-clock";
	*id = 7;
	ev->ids = id;
	ev->nr_ids = 1;
}

static void write_simple_records(struct perf_writer *w, const struct perf_event_attr *a,
				 int from, int to, uint32_t pid)
{
	struct rec rec;

	for (int i = from; i < to; i++) {
		struct tsample s = { 0 };

		s.id = 7;
		s.ip = 0x555555554000ULL + 0x1100 + (uint64_t)(i % 64) * 4;
		s.pid = s.tid = pid;
		s.time = 2000000 + (uint64_t)i * 1000;
		s.cpu = 0;
		s.period = 100000;
		perf_writer__write(w, &rec.w, put_sample(&rec, a, &s));
	}
}

static size_t write_simple(const char *path, int nr_samples, bool finish, uint32_t pid)
{
	struct pd_evsel ev;
	uint64_t id;
	struct perf_writer *w;
	struct rec rec;
	struct pd_env env;
	char *cause = NULL;
	char *argv[] = { "gexplore", "record", "/bin/true" };
	struct stat st;
	uint8_t bid[20], bid_size;

	simple_evsel(&ev, &id);
	if (perf_writer__new(&w, path, &ev, 1, &cause)) {
		diag("%s", cause);
		free(cause);
		return 0;
	}
	perf_writer__write(w, &rec.w, put_comm(&rec, &ev.attr, pid, "true", 1000000, 7));
	perf_writer__write(w, &rec.w, put_mmap2(&rec, &ev.attr, pid, 0x555555554000ULL, 0x10000, 0,
						"/bin/true", 1000000, 7));
	write_simple_records(w, &ev.attr, 0, nr_samples, pid);
	perf_writer__finished_round(w);
	if (finish) {
		pd_env__from_system(&env, 3, argv);
		if (pd_read_build_id("/bin/true", bid, &bid_size) == 0) {
			env.build_ids = xcalloc(1, sizeof(*env.build_ids));
			env.build_ids[0].pid = -1;
			env.build_ids[0].misc = PERF_RECORD_MISC_USER;
			env.build_ids[0].size = bid_size;
			memcpy(env.build_ids[0].id, bid, sizeof(bid));
			env.build_ids[0].filename = xstrdup("/bin/true");
			env.nr_build_ids = 1;
		}
		perf_writer__finish(w, &env, &cause);
		pd_env__exit(&env);
	}
	perf_writer__delete(w);
	free(cause);
	return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

static void test_killed(void)
{
	char *path = tmp_path("killed.data"), *cause = NULL, *warn = NULL;
	struct pd_evsel ev;
	uint64_t id;
	struct perf_writer *w;
	struct rec rec;
	struct keep_tool k;
	size_t nw = 0;
	int err, fd;

	/* 50 samples flushed, 30 more buffered when the "kill" comes */
	simple_evsel(&ev, &id);
	err = perf_writer__new(&w, path, &ev, 1, &cause);
	ok(!err, "writer opens");
	if (err)
		goto out;
	perf_writer__write(w, &rec.w, put_comm(&rec, &ev.attr, 1, "true", 1, 7));
	write_simple_records(w, &ev.attr, 0, 50, 1);
	perf_writer__flush(w);
	write_simple_records(w, &ev.attr, 50, 80, 1);
	/* a COMM of 56 bytes and 80 samples of 56 bytes */
	is_int(perf_writer__data_size(w), 81 * 56, "data size counts buffered records");
	/* simulate SIGKILL: __delete never flushes, so the buffered records
	 * are lost and nothing is finished, as when the process dies */
	perf_writer__delete(w);
	err = read_file(path, 0, &k, &cause, &nw, &warn);
	is_int(err, 0, "killed recording reads");
	is_int(k.samples, 50, "every flushed sample is read");
	ok(nw >= 1 && warn && strstr(warn, "not finished"), "with a warning: %s", warn ? warn : "(none)");
	free(warn);
	warn = NULL;

	/* data size never written (killed before the first flush): records
	 * after the header are still found, up to the end of the file */
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		uint64_t zero = 0;

		(void)!pwrite(fd, &zero, 8, 48);	/* header data.size */
		/* plus a partial record at the end */
		(void)!pwrite(fd, "\x09\x00\x00\x00\x02\x00\x38\x00\x07", 9, lseek(fd, 0, SEEK_END));
		close(fd);
	}
	err = read_file(path, 0, &k, &cause, &nw, &warn);
	is_int(err, 0, "data size 0: reads");
	is_int(k.samples, 50, "data size 0: every complete record");
	ok(nw >= 1, "data size 0: with a warning");
	free(warn);
out:
	free(cause);
	free(path);
}

static void test_truncation(void)
{
	char *path = tmp_path("full.data"), *tpath = tmp_path("trunc.data"), *cause = NULL;
	size_t size = write_simple(path, 10, true, 100);
	uint8_t *buf = size ? xmalloc(size) : NULL;
	int fd, fails = 0, open_fails = 0, max_samples_bad = 0;
	uint64_t data_off = 0;
	uint64_t prev = 0;

	ok(size > 0, "small file written (%zu bytes)", size);
	if (!size)
		goto out;
	fd = open(path, O_RDONLY);
	(void)!read(fd, buf, size);
	close(fd);
	memcpy(&data_off, buf + 40, 8);
	for (size_t len = 0; len <= size; len++) {
		struct keep_tool k;
		int err;

		fd = open(tpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		(void)!write(fd, buf, len);
		close(fd);
		err = read_file(tpath, 0, &k, &cause, NULL, NULL);
		if (len >= data_off && err) {
			if (!fails++)
				diag("length %zu: %s", len, cause);
		}
		if (len < data_off && err)
			open_fails++;
		if (len >= data_off && !err) {
			if (k.samples < prev)
				max_samples_bad++;
			prev = k.samples;
		}
	}
	is_int(fails, 0, "every truncation after header+attrs reads without error");
	ok(open_fails > 0, "truncations inside the header are refused");
	is_int(max_samples_bad, 0, "longer prefixes never give fewer samples");
	{
		struct keep_tool k;

		read_file(path, 0, &k, &cause, NULL, NULL);
		is_int(k.samples, 10, "the whole file has all samples");
	}
out:
	free(buf);
	free(cause);
	free(path);
	free(tpath);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void corrupt_file(const char *src, size_t size, const char *tpath, int iters)
{
	uint8_t *buf = xmalloc(size), *copy = xmalloc(size);
	int fd = open(src, O_RDONLY), opened = 0, silent = 0;

	(void)!read(fd, buf, size);
	close(fd);
	for (int it = 0; it < iters; it++) {
		struct keep_tool k;
		char *cause = NULL;
		int flips = 1 + (int)(rng() % 8);

		memcpy(copy, buf, size);
		for (int f = 0; f < flips; f++) {
			size_t at = (size_t)(rng() % size);

			if (rng() & 1)
				copy[at] ^= (uint8_t)(1u << (rng() % 8));
			else
				copy[at] = (uint8_t)rng();
		}
		fd = open(tpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		(void)!write(fd, copy, size);
		close(fd);
		if (read_file(tpath, it & 1 ? PD_ORDERED : 0, &k, &cause, NULL, NULL) == 0)
			opened++;
		else if (!cause || !*cause)
			silent++;	/* refused without saying why */
		free(cause);
	}
	/* reaching here means no crash (ASan in CI); a few flipped bytes in a
	 * whole file leave most copies readable, and every refusal says why */
	ok(opened > 0 && silent == 0, "%d corrupted copies of %s: no crash, %d read, %d refused "
	   "without a message", iters, src, opened, silent);
	free(buf);
	free(copy);
}

static void test_corruption(void)
{
	char *path = tmp_path("corrupt-src.data"), *tpath = tmp_path("corrupt.data");
	size_t size = write_simple(path, 20, true, 100);
	const char *dir = getenv("GX_FIXTURES");

	corrupt_file(path, size, tpath, 1500);
	if (dir && *dir) {
		static const char *const files[] = {
			"quipper-lost_samples-4.4.perf.data",
			"quipper-group_desc-4.14.perf.data",
			"quipper-piped.header_features-4.16.perf.data",
			"lpd-sleep.compressed.perf.data",
			"hotspot-true.v2.perf.data",
		};

		for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
			char *f = xasprintf("%s/%s", dir, files[i]);
			struct stat st;

			if (stat(f, &st) == 0)
				corrupt_file(f, (size_t)st.st_size, tpath, 300);
			else
				skip(1, "fixture missing");
			free(f);
		}
	} else {
		skip(5, "GX_FIXTURES not set");
	}
	free(path);
	free(tpath);
}

/* Found by the fuzzer: an id equal to the id map's reserved key. */
static void test_unknown_ids(void)
{
	char *path = tmp_path("ids.data"), *cause = NULL, *warn = NULL;
	struct pd_evsel ev[2];
	uint64_t ids[4];
	struct perf_writer *w;
	struct rec rec;
	struct keep_tool k;
	size_t nw = 0;
	static const uint64_t bad_ids[] = { UINT64_MAX, 0, 12345, 100 };

	make_evsels(ev, 2, &layouts[1], ids);
	if (perf_writer__new(&w, path, ev, 2, &cause)) {
		skip(3, "writer");
		free(cause);
		free(path);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad_ids); i++) {
		struct tsample s = { .id = bad_ids[i], .ip = 1, .pid = 1, .tid = 1, .time = 5 };

		perf_writer__write(w, &rec.w, put_sample(&rec, &ev[0].attr, &s));
	}
	perf_writer__finish(w, NULL, &cause);
	perf_writer__delete(w);
	is_int(read_file(path, 0, &k, &cause, &nw, &warn), 0, "unknown ids: reads");
	is_int(k.samples, 1, "unknown ids: only the sample with a known id");
	ok(warn && strstr(warn, "matches no event"), "unknown ids: warned (%s)", warn ? warn : "none");
	free(warn);
	unlink(path);
	free(cause);
	free(path);
}

/* Found by the fuzzer: a RAW size that is not padded to 8 bytes would
 * misalign the fields after it; such a sample is skipped with a warning. */
static void test_bad_raw(void)
{
	char *path = tmp_path("raw-pad.data"), *cause = NULL, *warn = NULL;
	struct pd_evsel ev[1];
	uint64_t ids[2];
	struct layout l = { __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW |
			    PERF_SAMPLE_REGS_USER, 0, 0, 1 };
	struct perf_writer *w;
	struct rec rec;
	struct keep_tool k;

	make_evsels(ev, 1, &l, ids);
	if (perf_writer__new(&w, path, ev, 1, &cause)) {
		skip(3, "writer");
		free(cause);
		free(path);
		return;
	}
	for (uint32_t raw = 12; raw <= 13; raw++) {
		struct tsample s = { .ip = raw, .pid = 1, .tid = 1, .raw_size = raw };

		perf_writer__write(w, rec.w, put_sample(&rec, &ev[0].attr, &s));
	}
	perf_writer__finish(w, NULL, NULL);
	perf_writer__delete(w);
	is_int(read_file(path, 0, &k, &cause, NULL, &warn), 0, "unpadded RAW: reads");
	ok(k.samples == 1 && k.s[0].ip == 12 && k.reg0[0] == 100, "unpadded RAW: only the good sample");
	ok(warn && strstr(warn, "its RAW field is malformed"), "unpadded RAW: warned: %s", warn ? warn : "");
	free(warn);
	unlink(path);
	free(cause);
	free(path);
}

/*
 * A file built by hand with an attr of attr_len bytes (64 = the first
 * ABI, larger = from a newer perf, with a non-zero unknown tail), and
 * 3 samples. The header magic and a record can be spoiled.
 */
static int write_raw(const char *path, uint32_t attr_len, uint64_t magic, uint16_t bad_size)
{
	uint8_t buf[4096] = { 0 };
	struct perf_event_attr a = { 0 };
	uint64_t hdr[13] = { 0 }, off = 104, data_off;
	struct rec rec;
	int fd;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.size = attr_len;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	memcpy(buf + off, &a, attr_len < sizeof(a) ? attr_len : sizeof(a));
	if (attr_len > sizeof(a))
		memset(buf + off + sizeof(a), 0xee, attr_len - sizeof(a));
	hdr[0] = magic;
	hdr[1] = 104;
	hdr[2] = attr_len + 16;
	hdr[3] = off;				/* attrs */
	hdr[4] = attr_len + 16;
	off += attr_len;
	memcpy(buf + off, (uint64_t[]){ 0, 0 }, 16);	/* no ids */
	off += 16;
	data_off = off;
	for (int i = 0; i < 3; i++) {
		struct tsample s = { .ip = 10 + (uint64_t)i, .pid = 1, .tid = 2, .time = 100 };
		size_t len = put_sample(&rec, &a, &s);

		if (i == 1 && bad_size) {
			struct perf_event_header h;

			memcpy(&h, rec.w, 8);
			h.size = bad_size;
			memcpy(rec.w, &h, 8);
		}
		memcpy(buf + off, rec.w, len);
		off += len;
	}
	hdr[5] = data_off;
	hdr[6] = off - data_off;
	memcpy(buf, hdr, 104);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	(void)!write(fd, buf, off);
	close(fd);
	return (int)data_off;
}

static void test_raw_layouts(void)
{
	char *path = tmp_path("raw.data"), *cause = NULL, *warn = NULL;
	struct perf_reader *r;
	struct keep_tool k;
	static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136, 160 };
	const uint64_t magic2 = 0x32454c4946524550ULL;
	size_t nw;
	int data_off;

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		write_raw(path, sizes[i], magic2, 0);
		is_int(read_file(path, 0, &k, &cause, NULL, NULL), 0, "attr size %u: reads", sizes[i]);
		ok(k.samples == 3 && k.s[2].ip == 12 && k.s[2].tid == 2 && k.s[2].time == 100,
		   "attr size %u: samples", sizes[i]);
	}
	write_raw(path, 64, __builtin_bswap64(magic2), 0);
	is_int(perf_reader__open(&r, path, 0, &cause), GX_E_NOTSUP, "byte-swapped file refused");
	ok(cause && strstr(cause, "byte order"), "byte order named: %s", cause ? cause : "");
	write_raw(path, 64, 0x1234, 0);
	is_int(perf_reader__open(&r, path, 0, &cause), GX_E_FORMAT, "garbage refused");
	ok(cause && strstr(cause, "not a perf.data file"), "garbage named: %s", cause ? cause : "");
	data_off = write_raw(path, 64, magic2, 4);
	is_int(read_file(path, 0, &k, &cause, &nw, &warn), 0, "record of size 4: a warning, not an error");
	is_int(k.samples, 1, "record of size 4: the records before it are kept");
	{
		char want[128];

		snprintf(want, sizeof(want), "record at byte %d has size 4 (smaller than its header)",
			 data_off + 32);
		ok(warn && strstr(warn, want), "message names the byte: %s", warn ? warn : "(none)");
	}
	free(warn);
	unlink(path);
	free(cause);
	free(path);
}

/* A full disk: writes fail (EFBIG under RLIMIT_FSIZE, as ENOSPC would) and
 * the file still reads up to the last flush that succeeded. */
static void test_full_disk(void)
{
	char *path = tmp_path("full-disk.data"), *cause = NULL;
	struct keep_tool k;
	int status, fds[2];
	uint64_t flushed = 0;
	pid_t pid;

	if (pipe(fds) < 0) {
		skip(3, "pipe");
		free(path);
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 64 << 10, 64 << 10 };
		struct pd_evsel ev;
		uint64_t id, good = 0;
		struct perf_writer *w;
		int err = 0;

		signal(SIGXFSZ, SIG_IGN);
		close(fds[0]);
		simple_evsel(&ev, &id);
		if (perf_writer__new(&w, path, &ev, 1, NULL))
			_exit(2);
		setrlimit(RLIMIT_FSIZE, &rl);
		for (int i = 0; i < 100 && !err; i++) {
			write_simple_records(w, &ev.attr, i * 100, i * 100 + 100, 1);
			err = perf_writer__finished_round(w);
			if (!err)
				good = (uint64_t)(i + 1) * 100;
		}
		(void)!write(fds[1], &good, sizeof(good));
		_exit(err ? 0 : 3);
	}
	close(fds[1]);
	(void)!read(fds[0], &flushed, sizeof(flushed));
	close(fds[0]);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer saw the write error");
	is_int(read_file(path, 0, &k, &cause, NULL, NULL), 0, "full disk: file reads");
	is_int(k.samples, flushed, "full disk: every sample of every successful flush");
	unlink(path);
	free(cause);
	free(path);
}

#ifdef HAVE_LIBZSTD
/* Records compressed into one zstd frame, stored as PERF_RECORD_COMPRESSED
 * (81, unpadded, so what follows is misaligned) or as COMPRESSED2 (83,
 * padded) records, the frame split across several of them so that records
 * straddle compressed records. */
static void write_compressed(const char *path, uint32_t type, size_t nr_parts, int nr_samples)
{
	struct pd_evsel ev;
	uint64_t id;
	struct perf_writer *w;
	struct rec rec;
	struct strbuf plain = STRBUF_INIT;
	size_t cap, clen, done = 0;
	uint8_t *comp;

	simple_evsel(&ev, &id);
	strbuf__add(&plain, rec.w, put_comm(&rec, &ev.attr, 9, "zz", 1, 7));
	for (int i = 0; i < nr_samples; i++) {
		struct tsample s = { .id = 7, .ip = 0x1000 + (uint64_t)i, .pid = 9, .tid = 9,
				     .time = 10 + (uint64_t)i, .period = 1 };

		strbuf__add(&plain, rec.w, put_sample(&rec, &ev.attr, &s));
	}
	cap = ZSTD_compressBound(plain.len);
	comp = xmalloc(cap);
	clen = ZSTD_compress(comp, cap, plain.buf, plain.len, 3);
	if (perf_writer__new(&w, path, &ev, 1, NULL))
		goto out;
	for (size_t part = 0; part < nr_parts; part++) {
		size_t n = part + 1 == nr_parts ? clen - done : clen / nr_parts;
		uint8_t buf[65536];
		struct perf_event_header h = { .type = type, .size = 0 };
		size_t hl = type == 83 ? 16 : 8, total = hl + n;

		if (type == 83)
			total = (total + 7) & ~(size_t)7;
		h.size = (uint16_t)total;
		memset(buf, 0, total);
		memcpy(buf, &h, 8);
		if (type == 83)
			memcpy(buf + 8, &(uint64_t){ n }, 8);
		memcpy(buf + hl, comp + done, n);
		done += n;
		perf_writer__write(w, buf, total);
	}
	/* an uncompressed record after them */
	{
		struct tsample s = { .id = 7, .ip = 0x2000, .pid = 9, .tid = 9, .time = 999 };

		perf_writer__write(w, rec.w, put_sample(&rec, &ev.attr, &s));
	}
	perf_writer__finish(w, NULL, NULL);
	perf_writer__delete(w);
out:
	free(comp);
	strbuf__exit(&plain);
}

static void test_compressed(void)
{
	char *path = tmp_path("zstd.data"), *cause = NULL, *warn = NULL;
	struct keep_tool k;
	static const struct {
		int line;
		uint32_t type;
		size_t parts;
		int samples;
	} cases[] = {
		{ __LINE__, 81, 1, 40 },
		{ __LINE__, 81, 3, 400 },
		{ __LINE__, 83, 1, 40 },
		{ __LINE__, 83, 5, 400 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		for (unsigned flags = 0; flags <= PD_ORDERED; flags += PD_ORDERED) {
			int bad = 0;

			write_compressed(path, cases[i].type, cases[i].parts, cases[i].samples);
			is_int_at(read_file(path, flags, &k, &cause, NULL, &warn), 0, cases[i].line,
				  "COMPRESSED%s in %zu parts: reads", cases[i].type == 83 ? "2" : "",
				  cases[i].parts);
			is_int_at(k.samples, cases[i].samples + 1, cases[i].line, "every sample");
			for (int j = 0; j < cases[i].samples && j < MAX_KEEP; j++)
				if (k.s[j].ip != 0x1000 + (uint64_t)j)
					bad++;
			ok_at(!bad && k.comms == 1, __FILE__, cases[i].line,
			      "decompressed samples in order, COMM seen%s%s", warn ? ": " : "",
			      warn ? warn : "");
			free(warn);
			warn = NULL;
		}
	}
	unlink(path);
	free(cause);
	free(path);
}
#else
static void test_compressed(void)
{
	skip(24, "built without libzstd (Debian package libzstd-dev)");
}
#endif

static void test_ordered(void)
{
	char *path = tmp_path("ordered.data"), *cause = NULL;
	struct pd_evsel ev;
	uint64_t id;
	struct perf_writer *w;
	struct rec rec;
	struct keep_tool k;
	int sorted = 1, err;
	/* two "ring buffers" drained in turn: times interleave across rounds */
	static const uint64_t times[] = { 10, 30, 50, 20, 40, 60, 0, 70, 90, 65, 80, 95 };

	simple_evsel(&ev, &id);
	if (perf_writer__new(&w, path, &ev, 1, &cause)) {
		skip(4, "writer");
		free(cause);
		free(path);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(times); i++) {
		struct tsample s = { .id = 7, .ip = 1, .pid = 1, .tid = 1, .time = times[i] };

		if (times[i] == 0) {
			perf_writer__finished_round(w);
			continue;
		}
		perf_writer__write(w, &rec.w, put_sample(&rec, &ev.attr, &s));
	}
	perf_writer__finish(w, NULL, &cause);
	perf_writer__delete(w);
	err = read_file(path, PD_ORDERED, &k, &cause, NULL, NULL);
	is_int(err, 0, "ordered read");
	is_int(k.samples, ARRAY_SIZE(times) - 1, "ordered: every sample");
	for (uint64_t i = 1; i < k.samples; i++)
		if (k.times[i] < k.times[i - 1])
			sorted = 0;
	ok(sorted, "ordered: delivered by time");
	read_file(path, 0, &k, &cause, NULL, NULL);
	ok(k.times[0] == 10 && k.times[1] == 30 && k.times[3] == 20, "unordered: file order");
	free(cause);
	free(path);
}

/* Stream a fixture through a real pipe on stdin, at most limit bytes. */
static int pipe_read(const char *path, size_t limit, struct keep_tool *k, char **cause,
		     char **warnings)
{
	int fds[2], saved, status, err;
	pid_t pid;

	if (pipe(fds) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDONLY);
		char buf[37];	/* odd chunks: records straddle reads */
		ssize_t n;
		size_t sent = 0;

		close(fds[0]);
		while (fd >= 0 && sent < limit && (n = read(fd, buf, sizeof(buf))) > 0) {
			if ((size_t)n > limit - sent)
				n = (ssize_t)(limit - sent);
			(void)!write(fds[1], buf, (size_t)n);
			sent += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	saved = dup(STDIN_FILENO);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	err = read_file("-", 0, k, cause, NULL, warnings);
	dup2(saved, STDIN_FILENO);
	close(saved);
	waitpid(pid, &status, 0);
	return err;
}

static void test_pipe(void)
{
	const char *dir = getenv("GX_FIXTURES");
	char *path, *cause = NULL, *warn = NULL;
	struct keep_tool k;
	struct stat st;
	int err;

	if (!dir || !*dir) {
		skip(6, "GX_FIXTURES not set");
		return;
	}
	path = xasprintf("%s/quipper-piped.header_features-4.16.perf.data", dir);
	if (stat(path, &st) != 0) {
		skip(6, "fixture missing");
		free(path);
		return;
	}
	err = pipe_read(path, SIZE_MAX, &k, &cause, NULL);
	is_int(err, 0, "pipe mode from a pipe: %s", err ? cause : "ok");
	is_int(k.samples, 2, "pipe mode from a pipe: samples");
	is_int(k.mmaps, 32, "pipe mode from a pipe: MMAP + MMAP2");
	err = pipe_read(path, (size_t)st.st_size / 2, &k, &cause, &warn);
	is_int(err, 0, "truncated pipe: no error");
	ok(k.mmaps > 0 && k.mmaps < 32, "truncated pipe: the complete records (%llu mmaps)",
	   (unsigned long long)k.mmaps);
	ok(warn && strstr(warn, "truncated at byte"), "truncated pipe: warned: %s", warn ? warn : "");
	free(warn);
	free(cause);
	free(path);
}

/* A 64-bit ELF file of this machine's byte order holding only a header,
 * its program headers at phoff and a GNU build-id note at noteoff. */
static int write_elf_with_note(const char *path, uint64_t phoff, uint64_t noteoff,
			       const uint8_t id[20])
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	uint8_t note[36] = { 4, 0, 0, 0, 20, 0, 0, 0, NT_GNU_BUILD_ID, 0, 0, 0, 'G', 'N', 'U', 0 };
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), ok = 1;

	if (fd < 0)
		return -1;
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_phoff = phoff;
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	ph.p_type = PT_NOTE;
	ph.p_offset = noteoff;
	ph.p_filesz = sizeof(note);
	memcpy(note + 16, id, 20);
	ok &= pwrite(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh);
	ok &= pwrite(fd, &ph, sizeof(ph), (off_t)phoff) == (ssize_t)sizeof(ph);
	ok &= pwrite(fd, note, sizeof(note), (off_t)noteoff) == (ssize_t)sizeof(note);
	close(fd);
	return ok ? 0 : -1;
}

/* The build-id wherever the file puts its program headers and notes: in
 * its first 4 KiB (read at once) or beyond them (read where they are). */
static void test_build_id_layouts(void)
{
	static const struct { uint64_t phoff, noteoff; const char *what; } L[] = {
		{ 64, 0x200, "headers and note in the first 4 KiB" },
		{ 64, 12288, "note beyond the first 4 KiB" },
		{ 8192, 12288, "program headers and note beyond the first 4 KiB" },
		{ 64, 4096 - 20, "note across the first 4 KiB's end" },
	};
	char *path = tmp_path("bid.elf");
	uint8_t want[20], id[20], size;

	for (int i = 0; i < 20; i++)
		want[i] = (uint8_t)(0x31 * i + 7);
	for (size_t k = 0; k < ARRAY_SIZE(L); k++) {
		memset(id, 0, sizeof(id));
		size = 0;
		if (write_elf_with_note(path, L[k].phoff, L[k].noteoff, want) != 0) {
			skip(1, "cannot write the ELF file");
			continue;
		}
		ok(pd_read_build_id(path, id, &size) == 0 && size == 20 &&
		   memcmp(id, want, 20) == 0, "pd_read_build_id: %s", L[k].what);
	}
	unlink(path);
	free(path);
}

/* pid 3's MMAP2 of /nonexistent/libgone.so at 0x7000000 (time 4), its
 * build-id in the record (bid: the size word, then 20 bytes) */
static void put_mmap2_bid(struct perf_writer *w, const struct perf_event_attr *a,
			  const uint8_t bid[24])
{
	struct rec rec;

	rec_start(&rec, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	rec_u32x2(&rec, 3, 3);
	rec_u64(&rec, 0x7000000);
	rec_u64(&rec, 0x1000);
	rec_u64(&rec, 0);
	rec_bytes(&rec, bid, 24);
	rec_u32x2(&rec, 5, 2);
	rec_str(&rec, "/nonexistent/libgone.so");
	put_id_trailer(&rec, a, 3, 4, 7, 0);
	perf_writer__write(w, rec.w, rec_end(&rec));
}

static void test_build_ids(void)
{
	char *path = tmp_path("bid.data"), *cause = NULL;
	struct perf_reader *r;
	struct pd_env env = { 0 };
	uint8_t id[20], size = 0;
	int err;

	if (pd_read_build_id("/bin/true", id, &size) != 0) {
		skip(3, "/bin/true has no build-id");
		free(path);
		return;
	}
	ok(size == 20, "pd_read_build_id: SHA-1 size");
	is_int(pd_read_build_id("/nonexistent/x", id, &size), -ENOENT, "missing file: -ENOENT");
	write_simple(path, 5, false, 55);
	err = perf_reader__open(&r, path, 0, &cause);
	if (!err) {
		uint8_t want[20];

		pd_read_build_id("/bin/true", want, &size);
		err = pd_collect_build_ids(r, &env, &cause);
		ok(!err && env.nr_build_ids == 1 && strcmp(env.build_ids[0].filename, "/bin/true") == 0 &&
		   memcmp(env.build_ids[0].id, want, 20) == 0, "pd_collect_build_ids finds /bin/true");
		perf_reader__delete(r);
	} else {
		skip(1, "open");
	}
	pd_env__exit(&env);

	/* MMAP2 carrying its build-id (PERF_RECORD_MISC_MMAP_BUILD_ID): the
	 * id comes from the record; the file need not exist */
	{
		struct pd_evsel ev;
		uint64_t eid;
		struct perf_writer *w;
		struct rec rec;
		struct tsample s = { .id = 7, .ip = 0x7000010, .pid = 3, .tid = 3, .time = 5 };
		uint8_t bid[24] = { 20, 0, 0, 0 };

		for (int i = 0; i < 20; i++)
			bid[4 + i] = (uint8_t)(0xa0 + i);
		simple_evsel(&ev, &eid);
		memset(&env, 0, sizeof(env));
		if (perf_writer__new(&w, path, &ev, 1, &cause) == 0) {
			put_mmap2_bid(w, &ev.attr, bid);
			perf_writer__write(w, rec.w, put_sample(&rec, &ev.attr, &s));
			perf_writer__finish(w, NULL, NULL);
			perf_writer__delete(w);
		}
		err = perf_reader__open(&r, path, 0, &cause);
		if (!err) {
			err = pd_collect_build_ids(r, &env, &cause);
			ok(!err && env.nr_build_ids == 1 && env.build_ids[0].size == 20 &&
			   memcmp(env.build_ids[0].id, bid + 4, 20) == 0 &&
			   strcmp(env.build_ids[0].filename, "/nonexistent/libgone.so") == 0,
			   "build-id taken from an MMAP2 build-id record");
			perf_reader__delete(r);
		} else {
			skip(1, "open");
		}
		pd_env__exit(&env);

		/* a drain of the ring buffers that wrote one CPU's sample
		 * (time 5) before the other CPU's MMAP2 of its file (time 4),
		 * in one round: the sample still names the file */
		memset(&env, 0, sizeof(env));
		if (perf_writer__new(&w, path, &ev, 1, &cause) == 0) {
			perf_writer__write(w, rec.w, put_sample(&rec, &ev.attr, &s));
			put_mmap2_bid(w, &ev.attr, bid);
			perf_writer__finished_round(w);
			perf_writer__flush(w);
			err = pd_collect_build_ids_file(path, &env, &cause);
			ok(!err && env.nr_build_ids == 1 &&
			   strcmp(env.build_ids[0].filename, "/nonexistent/libgone.so") == 0,
			   "a sample written before the MMAP2 of its file (time order): its build-id");
			perf_writer__finish(w, NULL, NULL);
			perf_writer__delete(w);
		} else {
			skip(1, "writer");
		}
		pd_env__exit(&env);
	}
	free(cause);
	free(path);
}

static double now_s(void)
{
	return (double)gx_now_ns() / 1e9;
}

static void test_speed(void)
{
	char *path = tmp_path("big.data"), *cause = NULL;
	struct pd_evsel ev;
	uint64_t id;
	struct perf_writer *w;
	struct keep_tool k;
	double t0, t1;
	const int n = 1000000;

	simple_evsel(&ev, &id);
	if (perf_writer__new(&w, path, &ev, 1, &cause)) {
		skip(2, "writer");
		free(cause);
		free(path);
		return;
	}
	t0 = now_s();
	for (int i = 0; i < n; i += 10000) {
		write_simple_records(w, &ev.attr, i, i + 10000, 1);
		perf_writer__finished_round(w);
	}
	perf_writer__finish(w, NULL, &cause);
	perf_writer__delete(w);
	t1 = now_s();
	diag("wrote 1M samples in %.3f s", t1 - t0);
	read_file(path, 0, &k, &cause, NULL, NULL);
	t0 = now_s();
	read_file(path, 0, &k, &cause, NULL, NULL);
	t1 = now_s();
	is_int(k.samples, n, "1M samples read");
	diag("read 1M samples in %.3f s", t1 - t0);
	/* generous bound: sanitizer builds are several times slower */
	ok(t1 - t0 < 3.0, "1M samples read in %.3f s", t1 - t0);
	t0 = now_s();
	read_file(path, PD_ORDERED, &k, &cause, NULL, NULL);
	t1 = now_s();
	diag("read 1M samples ordered in %.3f s", t1 - t0);
	unlink(path);
	free(cause);
	free(path);
}

/* Run cmd with stderr captured to errfile and stdout to outfile. */
static int run_perf(const char *perf, const char *const args[], const char *outfile,
		    const char *errfile)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int o = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		const char *argv[16];
		int n = 0;

		dup2(o, 1);
		dup2(e, 2);
		argv[n++] = perf;
		while (*args && n < 15)
			argv[n++] = *args++;
		argv[n] = NULL;
		setenv("PAGER", "cat", 1);
		execv(perf, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_lines(const char *file, const char *needle, int *bad, char **first_bad)
{
	char *s = gx_read_file(file, 1 << 24), *p, *line;
	int n = 0;

	if (!s)
		return -1;
	for (line = s; line && *line; line = p) {
		p = strchr(line, '\n');
		if (p)
			*p++ = 0;
		if (needle && strstr(line, needle))
			n++;
		if (bad && (strstr(line, "WARNING") || strstr(line, "failed") ||
			    strstr(line, "unknown") || strstr(line, "Warning"))) {
			(*bad)++;
			if (first_bad && !*first_bad)
				*first_bad = xstrdup(line);
		}
	}
	free(s);
	return n;
}

static void test_perf_reads_it(void)
{
	const char *perf = getenv("PERF");
	char *path = tmp_path("for-perf.data"), *out = tmp_path("perf.out"), *err = tmp_path("perf.err");
	const int n = 200;
	int bad = 0, rc, lines;
	char *first_bad = NULL;

	if (!perf || !*perf) {
		skip(6, "PERF is not set");
		goto out;
	}
	write_simple(path, n, true, 4242);
	{
		const char *args[] = { "script", "-i", path, "-F", "comm,pid,tid,time,ip,event", NULL };

		rc = run_perf(perf, args, out, err);
		is_int(rc, 0, "perf script exits 0");
		lines = count_lines(out, "cpu-clock", NULL, NULL);
		is_int(lines, n, "perf script sees every sample");
		count_lines(err, NULL, &bad, &first_bad);
		is_int(bad, 0, "perf script: no warning on stderr%s%s", first_bad ? ": " : "",
		       first_bad ? first_bad : "");
		free(first_bad);
		first_bad = NULL;
		bad = 0;
	}
	{
		const char *args[] = { "report", "-i", path, "--stdio", "--sort", "comm", NULL };

		rc = run_perf(perf, args, out, err);
		is_int(rc, 0, "perf report exits 0");
		lines = count_lines(out, "of event 'cpu-clock'", NULL, NULL);
		{
			char *s = gx_read_file(out, 1 << 20);
			char want[64];

			snprintf(want, sizeof(want), "# Samples: %d ", n);
			ok(s && strstr(s, want), "perf report counts %d samples", n);
			free(s);
		}
		count_lines(err, NULL, &bad, &first_bad);
		is_int(bad, 0, "perf report: no warning on stderr%s%s", first_bad ? ": " : "",
		       first_bad ? first_bad : "");
		free(first_bad);
	}
out:
	free(path);
	free(out);
	free(err);
}

static void cleanup(void)
{
	static const char *const names[] = {
		"rt.data", "killed.data", "full.data", "trunc.data", "corrupt-src.data",
		"corrupt.data", "ordered.data", "bid.data", "big.data", "for-perf.data",
		"perf.out", "perf.err",
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = tmp_path(names[i]);

		unlink(p);
		free(p);
	}
	rmdir(tmpdir);
}

/* ---- the window ----------------------------------------------------------- */

struct hash_tool {
	struct pd_tool tool;
	uint64_t n, hash, last_time;
	bool ordered;
};

static int hash_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct hash_tool *h = (struct hash_tool *)t;
	uint64_t v[3] = { s->time, s->ip, s->pid };

	h->hash = (h->hash ^ gx_hash(v, sizeof(v))) * 0x100000001b3ULL;
	if (s->time < h->last_time)
		h->ordered = false;
	h->last_time = s->time;
	h->n++;
	return 0;
}

static int walk_window(const char *path, size_t window, struct hash_tool *h, struct pd_stats *st)
{
	struct perf_reader *r;
	char *cause = NULL;
	int err;

	memset(h, 0, sizeof(*h));
	h->tool.sample = hash_sample;
	h->ordered = true;
	err = perf_reader__open(&r, path, PD_ORDERED, &cause);
	if (err) {
		diag("%s", cause);
		free(cause);
		return err;
	}
	perf_reader__set_window(r, window);
	err = perf_reader__process(r, &h->tool, &cause);
	if (err) {
		diag("%s", cause);
		free(cause);
	}
	*st = *perf_reader__stats(r);
	perf_reader__delete(r);
	return err;
}

/*
 * A file many times its window, in rounds whose samples come newest first:
 * read through a 4 KiB buffer, records that straddle two reads are put
 * together and the records still queued for ordering are copied out before
 * the buffer is refilled, so the walk delivers exactly what a walk of the
 * whole mapped file delivers.
 */
static void test_window(void)
{
	enum { ROUNDS = 300, PER_ROUND = 100 };
	char *path = tmp_path("window.data");
	struct pd_evsel ev;
	struct perf_writer *w;
	struct hash_tool whole, win;
	struct pd_stats sw, sn;
	char *cause = NULL;
	struct stat st;
	uint64_t id;
	struct rec rec;

	simple_evsel(&ev, &id);
	if (perf_writer__new(&w, path, &ev, 1, &cause)) {
		diag("%s", cause);
		free(cause);
		free(path);
		return;
	}
	for (int k = 0; k < ROUNDS; k++) {
		for (int i = PER_ROUND - 1; i >= 0; i--) {
			struct tsample s = { 0 };

			s.id = 7;
			s.ip = 0x555555554000ULL + (uint64_t)((k * PER_ROUND + i) % 4096) * 4;
			s.pid = s.tid = 50 + (uint32_t)(i % 3);
			s.time = 1000000 + ((uint64_t)k * PER_ROUND + (uint64_t)i) * 1000;
			s.period = 100000;
			perf_writer__write(w, &rec.w, put_sample(&rec, &ev.attr, &s));
		}
		perf_writer__finished_round(w);
	}
	perf_writer__finish(w, NULL, &cause);
	perf_writer__delete(w);
	free(cause);
	if (stat(path, &st) != 0)
		st.st_size = 0;
	ok(st.st_size > 256 * 4096,
	   "window: a file of %lld bytes, over 256 times a 4 KiB window", (long long)st.st_size);
	is_int(walk_window(path, 0, &whole, &sn), 0, "window: the whole file walked");
	is_int(walk_window(path, 4096, &win, &sw), 0, "window: walked through 4 KiB");
	is_int(win.n, (int64_t)ROUNDS * PER_ROUND, "window: every sample delivered");
	ok(win.hash == whole.hash, "window: the same samples in the same order as the whole file");
	ok(win.ordered, "window: in time order");
	ok(sw.window_read == sw.data_bytes && sw.data_bytes > (uint64_t)st.st_size / 2,
	   "window: the data section read through it (%llu of %llu bytes)",
	   (unsigned long long)sw.window_read, (unsigned long long)sw.data_bytes);
	is_int(sw.window_peak, 4096, "window: a buffer of 4 KiB, never grown");
	is_int(sn.window_read, 0, "window 0: the mapping walked");
	free(path);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		plan_skip_all("cannot create a temporary directory");
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++)
		test_round_trip(&layouts[i]);
	test_killed();
	test_truncation();
	test_corruption();
	test_unknown_ids();
	test_raw_layouts();
	test_bad_raw();
	test_compressed();
	test_full_disk();
	test_ordered();
	test_window();
	test_pipe();
	test_build_ids();
	test_build_id_layouts();
	test_speed();
	test_perf_reads_it();
	if (!getenv("GX_KEEP_TMP"))
		cleanup();
	else
		diag("kept %s", tmpdir);
	return done_testing();
}
