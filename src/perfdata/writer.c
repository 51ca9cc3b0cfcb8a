/*
 * writer.c: perf.data in file mode, written so that it is readable at any
 * moment after __new.
 *
 * Layout: header (104 bytes) | ids of every evsel | attrs {attr, ids
 * section} | data ... | feature table | feature contents. The header's
 * data.size is rewritten after every flush, and only ever counts bytes that
 * were fully written: a recording killed by SIGKILL, or stopped by a full
 * disk, keeps every record up to the last successful flush.
 */
#include "config.h"

#include "perfdata/perfdata-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PD_WRITER_BUF (1u << 20)

struct perf_writer {
	int fd;
	struct pd_evsel *evsels;
	size_t nr;
	struct pd_file_header hdr;
	uint8_t *buf;
	size_t buf_len;
	int error;			/* sticky write error, or 0 */
	uint64_t buf_records;		/* records in buf */
	uint64_t nr_dropped;		/* records that never reached the file */
};

int perf_writer__new(struct perf_writer **out, const char *path,
		     const struct pd_evsel *evsels, size_t nr, char **cause)
{
	return perf_writer__new_at(out, AT_FDCWD, path, evsels, nr, cause);
}

int perf_writer__new_at(struct perf_writer **out, int dirfd, const char *path,
			const struct pd_evsel *evsels, size_t nr, char **cause)
{
	struct perf_writer *w;
	struct pd_file_section *ids_sec;
	uint64_t off;
	int err;

	if (nr == 0)
		return gx_fail(cause, GX_E_USAGE, "%s: a perf.data file needs at least one event", path);
	w = xzalloc(sizeof(*w));
	w->fd = gx_create_at(dirfd, path);
	if (w->fd < 0) {
		err = gx_fail(cause, w->fd, "%s: %s", path, strerror(-w->fd));
		goto out_free;
	}
	w->nr = nr;
	w->evsels = xcalloc(nr, sizeof(*w->evsels));
	ids_sec = xcalloc(nr, sizeof(*ids_sec));

	/* ids of every evsel right after the header, then the attrs */
	off = PD_FILE_HEADER_SIZE;
	for (size_t i = 0; i < nr; i++) {
		struct pd_evsel *e = &w->evsels[i];

		e->attr = evsels[i].attr;
		e->attr.size = sizeof(struct perf_event_attr);
		e->name = evsels[i].name && evsels[i].name[0] ? xstrdup(evsels[i].name) :
			  pd_default_name(&e->attr);
		e->nr_ids = evsels[i].nr_ids;
		e->ids = xcalloc(e->nr_ids ? e->nr_ids : 1, sizeof(uint64_t));
		if (e->nr_ids)
			memcpy(e->ids, evsels[i].ids, e->nr_ids * sizeof(uint64_t));
		ids_sec[i].offset = off;
		ids_sec[i].size = e->nr_ids * sizeof(uint64_t);
		err = gx_pwrite_all(w->fd, e->ids, ids_sec[i].size, off);
		if (err)
			goto out_write;
		off += ids_sec[i].size;
	}
	w->hdr.magic = PD_MAGIC2;
	w->hdr.size = PD_FILE_HEADER_SIZE;
	w->hdr.attr_size = sizeof(struct perf_event_attr) + sizeof(struct pd_file_section);
	w->hdr.attrs.offset = off;
	w->hdr.attrs.size = nr * w->hdr.attr_size;
	for (size_t i = 0; i < nr; i++) {
		err = gx_pwrite_all(w->fd, &w->evsels[i].attr, sizeof(struct perf_event_attr), off);
		if (!err)
			err = gx_pwrite_all(w->fd, &ids_sec[i], sizeof(ids_sec[i]),
					    off + sizeof(struct perf_event_attr));
		if (err)
			goto out_write;
		off += w->hdr.attr_size;
	}
	w->hdr.data.offset = pd_align8(off);
	w->hdr.data.size = 0;
	err = gx_pwrite_all(w->fd, &w->hdr, sizeof(w->hdr), 0);
	if (err)
		goto out_write;
	free(ids_sec);
	w->buf = xmalloc(PD_WRITER_BUF);
	*out = w;
	return 0;

out_write:
	gx_fail(cause, err, "%s: writing the header: %s", path, gx_strerror(err));
	free(ids_sec);
	unlinkat(dirfd, path, 0);
out_free:
	perf_writer__delete(w);
	return err;
}

static int writer__write_data(struct perf_writer *w, const void *p, size_t len)
{
	uint64_t size;
	int err;

	if (!len)
		return 0;
	err = gx_pwrite_all(w->fd, p, len, w->hdr.data.offset + w->hdr.data.size);
	if (err)
		return err;
	/* only now are these bytes part of the data section */
	size = w->hdr.data.size + len;
	err = gx_pwrite_all(w->fd, &size, sizeof(size),
			    offsetof(struct pd_file_header, data.size));
	if (err)
		return err;
	w->hdr.data.size = size;
	return 0;
}

int perf_writer__flush(struct perf_writer *w)
{
	int err;

	if (w->error)
		return w->error;
	err = writer__write_data(w, w->buf, w->buf_len);
	/* on error the buffered records are dropped: data.size still
	 * describes what is complete on disk */
	w->buf_len = 0;
	if (err) {
		w->error = err;
		w->nr_dropped += w->buf_records;
	}
	w->buf_records = 0;
	return err;
}

/* Records (perf_event_headers) in rec[0..len), our own FINISHED_ROUND
 * markers left out: the kernel's records are the ones counted. */
static uint64_t count_records(const void *rec, size_t len)
{
	const char *p = rec;
	uint64_t n = 0;

	for (size_t off = 0; off + sizeof(struct perf_event_header) <= len;) {
		const struct perf_event_header *h = (const void *)(p + off);

		if (h->size < sizeof(*h))
			return n + 1;
		n += h->type != PD_REC_FINISHED_ROUND;
		off += h->size;
	}
	return n;
}

int perf_writer__write(struct perf_writer *w, const void *rec, size_t len)
{
	uint64_t n = count_records(rec, len);
	int err;

	if (w->error) {
		w->nr_dropped += n;
		return w->error;
	}
	if (len > PD_WRITER_BUF - w->buf_len) {
		err = perf_writer__flush(w);
		if (err) {
			w->nr_dropped += n;
			return err;
		}
	}
	if (len > PD_WRITER_BUF) {
		err = writer__write_data(w, rec, len);
		if (err) {
			w->error = err;
			w->nr_dropped += n;
		}
		return err;
	}
	memcpy(w->buf + w->buf_len, rec, len);
	w->buf_len += len;
	w->buf_records += n;
	return 0;
}

bool perf_writer__has_data(const struct perf_writer *w)
{
	struct stat st;

	return w->hdr.data.size > 0 ||
	       (fstat(w->fd, &st) == 0 && (uint64_t)st.st_size > w->hdr.data.offset);
}

uint64_t perf_writer__dropped(const struct perf_writer *w)
{
	return w->nr_dropped;
}

int perf_writer__finished_round(struct perf_writer *w)
{
	struct perf_event_header h = { .type = PD_REC_FINISHED_ROUND, .size = sizeof(h) };
	int err = perf_writer__write(w, &h, sizeof(h));

	return err ? err : perf_writer__flush(w);
}

uint64_t perf_writer__data_size(const struct perf_writer *w)
{
	return w->hdr.data.size + w->buf_len;
}

/* ---- feature sections ---------------------------------------------------- */

static void put_u32(struct strbuf *sb, uint32_t v)
{
	strbuf__add(sb, &v, sizeof(v));
}

static void put_u64(struct strbuf *sb, uint64_t v)
{
	strbuf__add(sb, &v, sizeof(v));
}

/* perf's do_write_string: u32 length (NUL included, padded to 64), bytes */
static void put_string(struct strbuf *sb, const char *s)
{
	static const char zeros[PD_NAME_ALIGN];
	size_t n = strlen(s ? s : "") + 1;
	size_t padded = (n + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;

	put_u32(sb, (uint32_t)padded);
	strbuf__add(sb, s ? s : "", n - 1);
	strbuf__add(sb, zeros, padded - n + 1);
}

static void put_build_ids(struct strbuf *sb, const struct pd_env *env)
{
	static const char zeros[PD_NAME_ALIGN];

	for (size_t i = 0; i < env->nr_build_ids; i++) {
		const struct pd_build_id *b = &env->build_ids[i];
		const char *name = b->filename ? b->filename : "";
		size_t n = strlen(name) + 1;
		size_t padded = (n + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
		struct perf_event_header h;
		uint8_t id[24] = { 0 };
		int32_t pid = b->pid;

		/* {header, pid, build_id[24], filename[]}: 36 bytes + name */
		h.type = PD_REC_HEADER_BUILD_ID;
		h.misc = (uint16_t)(b->misc | PD_MISC_BUILD_ID_SIZE);
		h.size = (uint16_t)(sizeof(h) + sizeof(pid) + sizeof(id) + padded);
		memcpy(id, b->id, b->size <= 20 ? b->size : 20);
		id[20] = b->size <= 20 ? b->size : 20;
		strbuf__add(sb, &h, sizeof(h));
		strbuf__add(sb, &pid, sizeof(pid));
		strbuf__add(sb, id, sizeof(id));
		strbuf__add(sb, name, n - 1);
		strbuf__add(sb, zeros, padded - n + 1);
	}
}

static void put_event_desc(struct strbuf *sb, const struct perf_writer *w)
{
	put_u32(sb, (uint32_t)w->nr);
	put_u32(sb, sizeof(struct perf_event_attr));
	for (size_t i = 0; i < w->nr; i++) {
		const struct pd_evsel *e = &w->evsels[i];

		strbuf__add(sb, &e->attr, sizeof(e->attr));
		put_u32(sb, (uint32_t)e->nr_ids);
		put_string(sb, e->name);
		strbuf__add(sb, e->ids, e->nr_ids * sizeof(uint64_t));
	}
}

static void put_cmdline(struct strbuf *sb, const struct pd_env *env)
{
	put_u32(sb, env->nr_cmdline);
	for (uint32_t i = 0; i < env->nr_cmdline; i++)
		put_string(sb, env->cmdline[i]);
}

static void put_group_desc(struct strbuf *sb, const struct pd_env *env)
{
	put_u32(sb, (uint32_t)env->nr_groups);
	for (size_t i = 0; i < env->nr_groups; i++) {
		put_string(sb, env->groups[i].name);
		put_u32(sb, env->groups[i].leader_idx);
		put_u32(sb, env->groups[i].nr_members);
	}
}

static void put_pmu_mappings(struct strbuf *sb, const struct pd_env *env)
{
	put_u32(sb, (uint32_t)env->nr_pmus);
	for (size_t i = 0; i < env->nr_pmus; i++) {
		put_u32(sb, env->pmus[i].type);
		put_string(sb, env->pmus[i].name);
	}
}

static uint64_t total_mem_kb(void)
{
	char *s = gx_read_file("/proc/meminfo", 4096);
	unsigned long long kb = 0;

	if (s) {
		char *p = strstr(s, "MemTotal:");

		if (p)
			kb = strtoull(p + 9, NULL, 10);
		free(s);
	}
	return kb;
}

/* Append feature `feat` to contents; false when there is nothing to write. */
static bool put_feature(struct strbuf *sb, int feat, const struct perf_writer *w,
			const struct pd_env *env)
{
	switch (feat) {
	case PD_FEAT_BUILD_ID:
		put_build_ids(sb, env);
		return true;
	case PD_FEAT_HOSTNAME:
		put_string(sb, env->hostname);
		return true;
	case PD_FEAT_OSRELEASE:
		put_string(sb, env->osrelease);
		return true;
	case PD_FEAT_VERSION:
		put_string(sb, env->version ? env->version : PACKAGE_NAME " " PACKAGE_VERSION);
		return true;
	case PD_FEAT_ARCH:
		put_string(sb, env->arch);
		return true;
	case PD_FEAT_NRCPUS:
		put_u32(sb, env->nr_cpus_avail);
		put_u32(sb, env->nr_cpus_online);
		return true;
	case PD_FEAT_CPUDESC:
		put_string(sb, env->cpudesc);
		return true;
	case PD_FEAT_CPUID:
		put_string(sb, env->cpuid);
		return true;
	case PD_FEAT_TOTAL_MEM: {
		uint64_t kb = total_mem_kb();

		if (!kb)
			return false;
		put_u64(sb, kb);
		return true;
	}
	case PD_FEAT_CMDLINE:
		put_cmdline(sb, env);
		return true;
	case PD_FEAT_EVENT_DESC:
		put_event_desc(sb, w);
		return true;
	case PD_FEAT_GROUP_DESC:
		if (!env->nr_groups)
			return false;
		put_group_desc(sb, env);
		return true;
	case PD_FEAT_PMU_MAPPINGS:
		if (!env->nr_pmus)
			return false;
		put_pmu_mappings(sb, env);
		return true;
	default:
		return false;
	}
}

int perf_writer__finish(struct perf_writer *w, const struct pd_env *env, char **cause)
{
	static const int feats[] = {
		PD_FEAT_BUILD_ID, PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE, PD_FEAT_VERSION,
		PD_FEAT_ARCH, PD_FEAT_NRCPUS, PD_FEAT_CPUDESC, PD_FEAT_CPUID,
		PD_FEAT_TOTAL_MEM, PD_FEAT_CMDLINE, PD_FEAT_EVENT_DESC, PD_FEAT_PMU_MAPPINGS,
		PD_FEAT_GROUP_DESC,
	};
	struct pd_file_section table[ARRAY_SIZE(feats)];
	struct strbuf contents = STRBUF_INIT;
	struct pd_env empty = { 0 };
	uint64_t table_off, off;
	size_t nr = 0;
	int err;

	if (!env)
		env = &empty;
	err = perf_writer__flush(w);
	if (err)
		goto out_err;

	memset(w->hdr.features, 0, sizeof(w->hdr.features));
	table_off = w->hdr.data.offset + w->hdr.data.size;
	for (size_t i = 0; i < ARRAY_SIZE(feats); i++) {
		size_t before = contents.len;

		if (!put_feature(&contents, feats[i], w, env))
			continue;
		table[nr].offset = before;	/* made absolute below */
		table[nr].size = contents.len - before;
		w->hdr.features[feats[i] / 64] |= 1ULL << (feats[i] % 64);
		nr++;
	}
	off = table_off + nr * sizeof(table[0]);
	for (size_t i = 0; i < nr; i++)
		table[i].offset += off;
	err = gx_pwrite_all(w->fd, table, nr * sizeof(table[0]), table_off);
	if (!err && contents.len)
		err = gx_pwrite_all(w->fd, contents.buf, contents.len, off);
	if (!err && ftruncate(w->fd, (off_t)(off + contents.len)) < 0)
		err = -errno;
	if (!err)
		err = gx_pwrite_all(w->fd, &w->hdr, sizeof(w->hdr), 0);
	if (err)
		goto out_err;
	strbuf__exit(&contents);
	return 0;

out_err:
	strbuf__exit(&contents);
	return gx_fail(cause, err, "perf.data: %s", gx_strerror(err));
}

void perf_writer__delete(struct perf_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->nr && w->evsels; i++) {
		free(w->evsels[i].name);
		free(w->evsels[i].ids);
	}
	free(w->evsels);
	free(w->buf);
	free(w);
}
