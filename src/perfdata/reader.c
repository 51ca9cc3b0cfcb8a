/*
 * reader.c: opening perf.data — the file header, the attrs and their ids,
 * and the header feature sections (file mode), or the header records at
 * the start of a pipe-mode stream. Every size and offset is checked
 * against the file before it is used; messages name the byte offset.
 */
#include "config.h"

#include "perfdata/perfdata-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PD_MAX_WARNINGS 32

void pd_reader__warn(struct perf_reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr_warnings > PD_MAX_WARNINGS)
		return;
	r->warnings = xgrow(r->warnings, &r->cap_warnings, r->nr_warnings + 1, sizeof(char *));
	if (r->nr_warnings == PD_MAX_WARNINGS) {
		r->warnings[r->nr_warnings++] = xstrdup("perf.data: further warnings suppressed");
		return;
	}
	va_start(ap, fmt);
	r->warnings[r->nr_warnings++] = xvasprintf(fmt, ap);
	va_end(ap);
}

const char *pd_record_name(uint32_t type)
{
	static const char *const kernel[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE", [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES", [PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT", [PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	};
	static const char *const user[] = {
		"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
		"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
		"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
	};

	if (type < ARRAY_SIZE(kernel) && kernel[type])
		return kernel[type];
	if (type >= 64 && type - 64 < ARRAY_SIZE(user))
		return user[type - 64];
	return "unknown";
}

/* ---- a bounds-checked cursor over a feature section -------------------- */

struct cur {
	const uint8_t *p;
	size_t len, pos;
	uint64_t base;			/* file offset of p[0] */
	bool bad;
};

static bool cur_need(struct cur *c, size_t n)
{
	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return false;
	}
	return true;
}

static uint32_t cur_u32(struct cur *c)
{
	uint32_t v = 0;

	if (cur_need(c, 4)) {
		memcpy(&v, c->p + c->pos, 4);
		c->pos += 4;
	}
	return v;
}

/* perf's do_read_string: u32 length, then that many bytes (NUL-padded). */
static char *cur_string(struct cur *c)
{
	uint32_t n = cur_u32(c);
	char *s;

	if (!cur_need(c, n))
		return NULL;
	s = xstrndup((const char *)c->p + c->pos, n);
	c->pos += n;
	return s;
}

static void set_str(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

/* ---- evsels ------------------------------------------------------------ */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

char *pd_default_name(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw_names))
		return xstrdup(hw_names[a->config]);
	if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw_names))
		return xstrdup(sw_names[a->config]);
	if (a->type == PERF_TYPE_RAW)
		return xasprintf("r%llx", (unsigned long long)a->config);
	return xasprintf("type%u:0x%llx", a->type, (unsigned long long)a->config);
}

/* sample_type bits this reader knows how to walk */
#define PD_KNOWN_SAMPLE_TYPE ((uint64_t)PERF_SAMPLE_MAX - 1)

int pd_reader__add_attr(struct perf_reader *r, const void *attr, size_t attr_len,
			const uint64_t *ids, size_t nr_ids, uint64_t off, char **cause)
{
	struct pd_evsel *e;
	size_t idx = r->nr_evsels;

	if (attr_len < PERF_ATTR_SIZE_VER0)
		return gx_fail(cause, GX_E_FORMAT,
			       "perf.data: attr at byte %llu is %zu bytes (at least %d expected)",
			       (unsigned long long)off, attr_len, PERF_ATTR_SIZE_VER0);
	if (idx >= 4096)
		return gx_fail(cause, GX_E_FORMAT, "perf.data: too many events (attr at byte %llu)",
			       (unsigned long long)off);
	r->evsels = xgrow(r->evsels, &r->cap_evsels, idx + 1, sizeof(*r->evsels));
	e = &r->evsels[idx];
	memset(e, 0, sizeof(*e));
	memcpy(&e->attr, attr, attr_len < sizeof(e->attr) ? attr_len : sizeof(e->attr));
	if (e->attr.sample_type & ~PD_KNOWN_SAMPLE_TYPE)
		return gx_fail(cause, GX_E_FORMAT,
			       "perf.data: attr at byte %llu has sample_type bits 0x%llx unknown to this reader",
			       (unsigned long long)off,
			       (unsigned long long)(e->attr.sample_type & ~PD_KNOWN_SAMPLE_TYPE));
	r->nr_evsels++;
	e->nr_ids = nr_ids;
	e->ids = xcalloc(nr_ids ? nr_ids : 1, sizeof(uint64_t));
	if (nr_ids)
		memcpy(e->ids, ids, nr_ids * sizeof(uint64_t));
	for (size_t i = 0; i < nr_ids; i++)
		if (e->ids[i] != UINT64_MAX)
			*u64map__findnew(&r->id_map, e->ids[i], idx) = idx;
	pd_reader__update_id_pos(r);
	return 0;
}

/* Where the sample id sits (perf's evlist id_pos / is_pos, from the first
 * event: perf requires every event to agree on that layout). */
void pd_reader__update_id_pos(struct perf_reader *r)
{
	uint64_t t;

	r->id_pos = r->is_pos = -1;
	if (!r->nr_evsels)
		return;
	t = r->evsels[0].attr.sample_type;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		r->id_pos = 0;
		r->is_pos = 1;
	} else if (t & PERF_SAMPLE_ID) {
		r->id_pos = !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
			    !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR);
		r->is_pos = 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);
	}
}

/* ---- features ---------------------------------------------------------- */

static int feat_build_ids(struct perf_reader *r, struct cur *c)
{
	while (c->len - c->pos >= 8) {
		struct perf_event_header h;

		memcpy(&h, c->p + c->pos, sizeof(h));
		if (h.size < 8 || h.size > c->len - c->pos) {
			pd_reader__warn(r, "perf.data: build-id entry at byte %llu has size %u (section ends at %llu); rest skipped",
					(unsigned long long)(c->base + c->pos), h.size,
					(unsigned long long)(c->base + c->len));
			return 0;
		}
		/* perf leaves these entries' header type 0: inside the BUILD_ID
		 * section every entry is one, whatever its type says */
		pd_reader__build_id_rec(r, (const uint8_t *)pd_reader__aligned(r,
					(const struct perf_event_header *)(c->p + c->pos)),
					h.size, c->base + c->pos);
		c->pos += h.size;
	}
	return 0;
}

static void feat_event_desc(struct perf_reader *r, struct cur *c)
{
	uint32_t nr = cur_u32(c), attr_size = cur_u32(c);

	if (c->bad || attr_size < PERF_ATTR_SIZE_VER0)
		goto bad;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids;
		char *name;

		if (!cur_need(c, attr_size))
			goto bad;
		c->pos += attr_size;
		nr_ids = cur_u32(c);
		name = cur_string(c);
		if (c->bad || (size_t)nr_ids > (c->len - c->pos) / 8) {
			free(name);
			goto bad;
		}
		c->pos += (size_t)nr_ids * 8;
		if (i < r->nr_evsels && name && name[0])
			set_str(&r->evsels[i].name, name);
		else
			free(name);
	}
	return;
bad:
	pd_reader__warn(r, "perf.data: EVENT_DESC at byte %llu is malformed; event names may be generic",
			(unsigned long long)c->base);
}

/*
 * A feature that is a table: u32 nr, then nr entries of at least `min`
 * bytes each, read by one(). A pipe can repeat a feature: what an earlier
 * copy left is freed first (clear). False when malformed (the entries read
 * so far are kept, *n of them).
 */
static bool feat_table(struct cur *c, void **arr, size_t *n, size_t elem, size_t min,
		       bool (*one)(struct cur *c, void *e), void (*clear)(void *arr, size_t n))
{
	uint32_t nr = cur_u32(c);

	clear(*arr, *n);
	*arr = NULL;
	*n = 0;
	if (c->bad || nr > (c->len - c->pos) / min)
		return false;
	*arr = xcalloc(nr ? nr : 1, elem);
	for (uint32_t i = 0; i < nr; i++) {
		if (!one(c, (char *)*arr + i * elem))
			return false;
		(*n)++;
	}
	return true;
}

static bool group_one(struct cur *c, void *e)
{
	struct pd_group *g = e;

	g->name = cur_string(c);
	g->leader_idx = cur_u32(c);
	g->nr_members = cur_u32(c);
	if (!c->bad)
		return true;
	free(g->name);
	g->name = NULL;
	return false;
}

static bool pmu_one(struct cur *c, void *e)
{
	struct pd_pmu *m = e;

	m->type = cur_u32(c);
	m->name = cur_string(c);
	if (!c->bad && m->name)
		return true;
	free(m->name);
	m->name = NULL;
	return false;
}

static void feat_group_desc(struct perf_reader *r, struct cur *c)
{
	struct pd_env *env = &r->env;

	if (!feat_table(c, (void **)&env->groups, &env->nr_groups, sizeof(*env->groups), 12,
			group_one, pd_groups__free))
		pd_reader__warn(r, "perf.data: GROUP_DESC at byte %llu is malformed",
				(unsigned long long)c->base);
}

/* PMU_MAPPINGS: u32 nr, then nr times { u32 type; string name }. */
static void feat_pmu_mappings(struct perf_reader *r, struct cur *c)
{
	struct pd_env *env = &r->env;

	if (!feat_table(c, (void **)&env->pmus, &env->nr_pmus, sizeof(*env->pmus), 8, pmu_one,
			pd_pmus__free))
		pd_reader__warn(r, "perf.data: PMU_MAPPINGS at byte %llu is malformed",
				(unsigned long long)c->base);
}

static void feat_cmdline(struct perf_reader *r, struct cur *c)
{
	uint32_t nr = cur_u32(c);
	struct pd_env *env = &r->env;

	gx_free_strv(env->cmdline, env->nr_cmdline);
	env->cmdline = NULL;
	env->nr_cmdline = 0;
	if (c->bad || nr > (c->len - c->pos) / 4)
		goto bad;
	env->cmdline = xcalloc(nr ? nr : 1, sizeof(char *));
	for (uint32_t i = 0; i < nr; i++) {
		char *s = cur_string(c);

		if (!s)
			goto bad;
		env->cmdline[env->nr_cmdline++] = s;
	}
	return;
bad:
	pd_reader__warn(r, "perf.data: CMDLINE at byte %llu is malformed", (unsigned long long)c->base);
}

/* Features that are lists, each read by its own routine. */
static const struct {
	int feat;
	void (*read)(struct perf_reader *r, struct cur *c);
} list_feats[] = {
	{ PD_FEAT_CMDLINE, feat_cmdline },
	{ PD_FEAT_EVENT_DESC, feat_event_desc },
	{ PD_FEAT_GROUP_DESC, feat_group_desc },
	{ PD_FEAT_PMU_MAPPINGS, feat_pmu_mappings },
};

int pd_reader__feature(struct perf_reader *r, int feat, const uint8_t *p, size_t len,
		       uint64_t off, char **cause)
{
	struct cur c = { .p = p, .len = len, .base = off };
	struct pd_env *env = &r->env;
	char **str = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(list_feats); i++)
		if (list_feats[i].feat == feat) {
			list_feats[i].read(r, &c);	/* malformed: a warning, not an error */
			return 0;
		}
	switch (feat) {
	case PD_FEAT_HOSTNAME: str = &env->hostname; break;
	case PD_FEAT_OSRELEASE: str = &env->osrelease; break;
	case PD_FEAT_VERSION: str = &env->version; break;
	case PD_FEAT_ARCH: str = &env->arch; break;
	case PD_FEAT_CPUDESC: str = &env->cpudesc; break;
	case PD_FEAT_CPUID: str = &env->cpuid; break;
	case PD_FEAT_NRCPUS:
		env->nr_cpus_avail = cur_u32(&c);
		env->nr_cpus_online = cur_u32(&c);
		break;
	case PD_FEAT_BUILD_ID:
		return feat_build_ids(r, &c);
	case PD_FEAT_COMPRESSED:
		cur_u32(&c);	/* version */
		cur_u32(&c);	/* type */
		cur_u32(&c);	/* level */
		cur_u32(&c);	/* ratio */
		r->comp_mmap_len = cur_u32(&c);
		break;
	default:
		return 0;	/* unknown or unused: skipped */
	}
	if (str) {
		char *s = cur_string(&c);

		if (s)
			set_str(str, s);
	}
	if (c.bad)
		pd_reader__warn(r, "perf.data: header feature %d at byte %llu is malformed (%zu bytes)",
				feat, (unsigned long long)off, len);
	return 0;
}

static void read_features(struct perf_reader *r)
{
	uint64_t table = r->hdr.data.offset + r->hdr.data.size;
	size_t nr = 0, i = 0;

	for (int b = 0; b < PD_FEAT_BITS; b++)
		if (r->hdr.features[b / 64] & (1ULL << (b % 64)))
			nr++;
	if (!nr)
		return;
	if (table > r->map_size || nr * 16 > r->map_size - table) {
		pd_reader__warn(r, "perf.data: the header feature table at byte %llu lies past the end of the file (%zu bytes); header features not read",
				(unsigned long long)table, r->map_size);
		return;
	}
	for (int b = 0; b < PD_FEAT_BITS; b++) {
		struct pd_file_section s;

		if (!(r->hdr.features[b / 64] & (1ULL << (b % 64))))
			continue;
		memcpy(&s, r->map + table + 16 * i++, sizeof(s));
		if (s.offset > r->map_size || s.size > r->map_size - s.offset) {
			pd_reader__warn(r, "perf.data: header feature %d at byte %llu (%llu bytes) lies past the end of the file; skipped",
					b, (unsigned long long)s.offset, (unsigned long long)s.size);
			continue;
		}
		pd_reader__feature(r, b, r->map + s.offset, (size_t)s.size, s.offset, NULL);
	}
}

/* ---- open -------------------------------------------------------------- */

static int open_file_mode(struct perf_reader *r, char **cause)
{
	struct pd_file_header *h = &r->hdr;
	uint64_t fsize = r->map_size, nr_attrs, asz;
	bool has_features = false;
	int err;

	memset(h, 0, sizeof(*h));
	if (fsize < 72)
		return gx_fail(cause, GX_E_TRUNCATED,
			       "perf.data: the file is %llu bytes, shorter than its header (104 bytes)",
			       (unsigned long long)fsize);
	memcpy(h, r->map, (size_t)(fsize < sizeof(*h) ? fsize : sizeof(*h)));
	if (h->size != PD_FILE_HEADER_SIZE && h->size != 72)
		return gx_fail(cause, GX_E_FORMAT,
			       "perf.data: header size at byte 8 is %llu (expected 104, or 16 for pipe mode)",
			       (unsigned long long)h->size);
	if (h->size == 72)
		memset(h->features, 0, sizeof(h->features));
	else if (fsize < PD_FILE_HEADER_SIZE)
		return gx_fail(cause, GX_E_TRUNCATED,
			       "perf.data: the file is %llu bytes, shorter than its header (104 bytes)",
			       (unsigned long long)fsize);
	asz = h->attr_size;
	if (asz < PERF_ATTR_SIZE_VER0 + 16 || asz > 4096)
		return gx_fail(cause, GX_E_FORMAT,
			       "perf.data: attr size at byte 16 is %llu (expected %d..4096)",
			       (unsigned long long)asz, PERF_ATTR_SIZE_VER0 + 16);
	if (h->attrs.offset > fsize || h->attrs.size > fsize - h->attrs.offset)
		return gx_fail(cause, GX_E_TRUNCATED,
			       "perf.data: the attr section (byte %llu, %llu bytes) lies past the end of the file (%llu bytes)",
			       (unsigned long long)h->attrs.offset, (unsigned long long)h->attrs.size,
			       (unsigned long long)fsize);
	nr_attrs = h->attrs.size / asz;
	if (nr_attrs == 0)
		return gx_fail(cause, GX_E_FORMAT, "perf.data: the attr section at byte %llu holds no event",
			       (unsigned long long)h->attrs.offset);
	if (h->attrs.size % asz)
		pd_reader__warn(r, "perf.data: the attr section at byte %llu is not a multiple of the attr size %llu",
				(unsigned long long)h->attrs.offset, (unsigned long long)asz);
	for (uint64_t i = 0; i < nr_attrs; i++) {
		uint64_t off = h->attrs.offset + i * asz;
		const uint8_t *a = r->map + off;
		struct pd_file_section ids;
		uint32_t stored;
		size_t alen = (size_t)asz - 16;

		memcpy(&ids, a + asz - 16, sizeof(ids));
		memcpy(&stored, a + offsetof(struct perf_event_attr, size), 4);
		/* the attr's own size says how much of the slot is the attr */
		if (stored >= PERF_ATTR_SIZE_VER0 && stored < alen)
			alen = stored;
		if (ids.offset > fsize || ids.size > fsize - ids.offset)
			return gx_fail(cause, GX_E_TRUNCATED,
				       "perf.data: the ids of event %llu (byte %llu, %llu bytes) lie past the end of the file",
				       (unsigned long long)i, (unsigned long long)ids.offset,
				       (unsigned long long)ids.size);
		/* ids need not be 8-aligned in the file: copy them */
		{
			size_t n = (size_t)(ids.size / 8);
			uint64_t *tmp = xcalloc(n ? n : 1, 8);

			if (n)
				memcpy(tmp, r->map + ids.offset, n * 8);
			err = pd_reader__add_attr(r, a, alen, tmp, n, off, cause);
			free(tmp);
		}
		if (err)
			return err;
	}

	for (int w = 0; w < PD_FEAT_BITS / 64; w++)
		has_features |= h->features[w] != 0;
	if (h->data.offset < PD_FILE_HEADER_SIZE && h->size == PD_FILE_HEADER_SIZE)
		return gx_fail(cause, GX_E_FORMAT, "perf.data: data section offset %llu (at byte 40) is inside the header",
			       (unsigned long long)h->data.offset);
	if (h->data.offset > fsize)
		return gx_fail(cause, GX_E_TRUNCATED,
			       "perf.data: the data section starts at byte %llu, past the end of the file (%llu bytes)",
			       (unsigned long long)h->data.offset, (unsigned long long)fsize);
	r->data_begin = h->data.offset;
	if (h->data.size == 0 && !has_features && fsize > h->data.offset) {
		/* the writer was killed before its first flush or before
		 * finishing: read what is there */
		r->data_to_eof = true;
		r->data_end = fsize;
		pd_reader__warn(r, "perf.data: the recording was not finished (data size 0 in the header); reading the data up to the end of the file");
	} else if (h->data.size > fsize - h->data.offset) {
		r->data_end = fsize;
	} else {
		r->data_end = h->data.offset + h->data.size;
		if (!has_features && h->size == PD_FILE_HEADER_SIZE)
			pd_reader__warn(r, "perf.data: the recording was not finished (no header features); data read up to its last flush (%llu bytes)",
					(unsigned long long)h->data.size);
	}
	if (has_features && !r->data_to_eof)
		read_features(r);
	return 0;
}

static int open_pipe_mode(struct perf_reader *r, char **cause)
{
	const struct perf_event_header *h;
	uint64_t off;
	int ret;

	r->pipe = true;
	r->data_begin = PD_PIPE_HEADER_SIZE;
	r->data_end = r->streaming ? UINT64_MAX : r->map_size;
	r->pos = r->data_begin;
	/* take in the header records at the start of the stream */
	while ((ret = pd_reader__cur_record(r, &h, &off, cause)) > 0) {
		const struct perf_event_header *ah = pd_reader__aligned(r, h);

		if (!pd_is_header_record(ah->type))
			break;
		ret = pd_reader__header_record(r, ah, off, cause);
		if (ret)
			return ret;
		r->header_seen_end = off + 1;
		pd_reader__advance(r, h);
		if (ah->type == PD_REC_FINISHED_INIT)
			break;
	}
	if (ret < 0)
		return ret;
	if (!r->nr_evsels)
		return gx_fail(cause, GX_E_FORMAT,
			       "perf.data (pipe mode): no event attributes (HEADER_ATTR) before byte %llu",
			       (unsigned long long)off);
	if (!r->streaming)
		r->data_begin = r->pos;
	return 0;
}

static int read_start(struct perf_reader *r, uint8_t *start, size_t want)
{
	size_t got = 0;

	while (got < want) {
		ssize_t n = read(r->fd, start + got, want - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (int)got;
}

/* Open path ("-": stdin) and map it, or set up streaming for a pipe or a
 * stdin positioned inside a file. */
static int reader__open_input(struct perf_reader *r, const char *path, char **cause)
{
	struct stat st;
	off_t start;
	void *m;

	if (strcmp(path, "-") == 0) {
		r->fd = dup(STDIN_FILENO);
		if (r->fd < 0)
			return gx_fail(cause, -errno, "stdin: %s", strerror(errno));
	} else if (r->flags & (PD_REGULAR | PD_NOFOLLOW)) {
		r->fd = r->flags & PD_NOFOLLOW ? gx_open_regular_nofollow(path, NULL, cause) :
						 gx_open_regular(path, NULL, cause);
		if (r->fd < 0)
			return r->fd;
	} else {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0)
			return gx_fail(cause, -errno, "%s: %s", path, strerror(errno));
	}
	if (fstat(r->fd, &st) < 0)
		return gx_fail(cause, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode)) {
		r->streaming = true;
		return 0;
	}
	start = strcmp(path, "-") == 0 ? lseek(r->fd, 0, SEEK_CUR) : 0;
	if (start != 0) {
		/* stdin positioned inside a file: stream it */
		r->streaming = true;
		return 0;
	}
	if (st.st_size == 0)
		return gx_fail(cause, GX_E_FORMAT, "%s: empty file, not a perf.data file", path);
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED)
		return gx_fail(cause, -errno, "%s: mmap: %s", path, strerror(errno));
	r->map = m;
	r->map_size = (size_t)st.st_size;
	return 0;
}

/* The magic and header size (0 when not there) at the start. */
static int reader__read_magic(struct perf_reader *r, const char *path, uint64_t *magic,
			      uint64_t *size, char **cause)
{
	int n;

	*magic = *size = 0;
	if (!r->streaming) {
		if (r->map_size < 8)
			return gx_fail(cause, GX_E_TRUNCATED, "%s: %zu bytes, too short for a perf.data header",
				       path, r->map_size);
		memcpy(magic, r->map, 8);
		if (r->map_size >= 16)
			memcpy(size, r->map + 8, 8);
		return 0;
	}
	r->buf_cap = 1 << 20;
	r->buf = xmalloc(r->buf_cap);
	n = read_start(r, r->buf, PD_PIPE_HEADER_SIZE);
	if (n < 0)
		return gx_fail(cause, n, "%s: %s", path, strerror(-n));
	r->tail = (size_t)n;
	if (n >= 8)
		memcpy(magic, r->buf, 8);
	if (n >= 16)
		memcpy(size, r->buf + 8, 8);
	if (n < 8)
		return gx_fail(cause, GX_E_TRUNCATED, "%s: %d bytes, too short for a perf.data header", path, n);
	return 0;
}

/* Magics we recognise but cannot read say so; anything else is no perf.data. */
static int check_magic(uint64_t magic, const char *path, char **cause)
{
	if (magic == PD_MAGIC1)
		return gx_fail(cause, GX_E_VERSION,
			       "%s uses the v1 perf.data format from before Linux 2.6.3x (magic \"PERFFILE\"); re-record it with a current perf or gexplore",
			       path);
	if (magic == PD_MAGIC2_SWAP)
		return gx_fail(cause, GX_E_NOTSUP,
			       "%s was recorded on a machine of the other byte order (big-endian); only native little-endian perf.data files are supported",
			       path);
	if (magic != PD_MAGIC2)
		return gx_fail(cause, GX_E_FORMAT, "%s: not a perf.data file (bad magic at byte 0)", path);
	return 0;
}

int perf_reader__open(struct perf_reader **out, const char *path, unsigned flags,
		      char **cause)
{
	struct perf_reader *r = xzalloc(sizeof(*r));
	uint64_t magic, size;
	int err;

	r->fd = -1;
	r->flags = flags;
	r->window = PD_WINDOW_DEFAULT;
	r->path = xstrdup(path);
	u64map__init(&r->id_map);
	r->id_pos = r->is_pos = -1;
	err = reader__open_input(r, path, cause);
	if (!err)
		err = reader__read_magic(r, path, &magic, &size, cause);
	if (!err)
		err = check_magic(magic, path, cause);
	if (err)
		goto out_err;
	if (size == PD_PIPE_HEADER_SIZE) {
		if (r->streaming) {
			r->head = PD_PIPE_HEADER_SIZE;
			r->buf_off = 0;
		}
		err = open_pipe_mode(r, cause);
	} else if (r->streaming) {
		err = gx_fail(cause, GX_E_FORMAT,
			      "%s: a file-mode perf.data (header size %llu at byte 8) cannot be read from a pipe",
			      path, (unsigned long long)size);
	} else {
		err = open_file_mode(r, cause);
	}
	if (err)
		goto out_err;
	for (size_t i = 0; i < r->nr_evsels; i++)
		if (!r->evsels[i].name)
			r->evsels[i].name = pd_default_name(&r->evsels[i].attr);
	r->nr_open_warnings = r->nr_warnings;
	*out = r;
	return 0;

out_err:
	perf_reader__delete(r);
	return err;
}

void perf_reader__set_window(struct perf_reader *r, size_t bytes)
{
	r->window = bytes;
}

size_t perf_reader__nr_evsels(const struct perf_reader *r)
{
	return r->nr_evsels;
}

const struct pd_evsel *perf_reader__evsel(const struct perf_reader *r, size_t i)
{
	return i < r->nr_evsels ? &r->evsels[i] : NULL;
}

const struct pd_env *perf_reader__env(const struct perf_reader *r)
{
	return &r->env;
}

bool perf_reader__is_pipe(const struct perf_reader *r)
{
	return r->pipe;
}

const struct pd_stats *perf_reader__stats(const struct perf_reader *r)
{
	return &r->stats;
}

size_t perf_reader__nr_warnings(const struct perf_reader *r)
{
	return r->nr_warnings;
}

const char *perf_reader__warning(const struct perf_reader *r, size_t i)
{
	return i < r->nr_warnings ? r->warnings[i] : NULL;
}

void perf_reader__delete(struct perf_reader *r)
{
	if (!r)
		return;
	pd_reader__free_data(r);
	if (r->map)
		munmap((void *)r->map, r->map_size);
	if (r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->nr_evsels; i++) {
		free(r->evsels[i].name);
		free(r->evsels[i].ids);
	}
	free(r->evsels);
	u64map__exit(&r->id_map);
	pd_env__exit(&r->env);
	gx_free_strv(r->warnings, r->nr_warnings);
	free(r->buf);
	free(r->path);
	free(r);
}
