/*
 * buildid.c: GNU build-ids of ELF files (libelf), and the walk that finds
 * which mapped files samples hit so the BUILD_ID feature can name them.
 */
#include "config.h"

#include "perfdata/perfdata-int.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* Find NT_GNU_BUILD_ID in a buffer of ELF notes (4-byte aligned). */
static int notes_find_build_id(const uint8_t *p, size_t len, uint8_t id[20], uint8_t *size)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_off, desc_off;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name_off = off + 12;
		if (namesz > len - name_off)
			break;
		desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		if (desc_off > len || descsz > len - desc_off)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p + name_off, "GNU", 4) == 0 &&
		    descsz > 0) {
			*size = descsz > 20 ? 20 : (uint8_t)descsz;
			memset(id, 0, 20);
			memcpy(id, p + desc_off, *size);
			return 0;
		}
		off = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
	}
	return GX_E_FORMAT;
}

/*
 * The build-id from the PT_NOTE segments of a 64-bit ELF file of this
 * machine's byte order, with a few preads: where loaded code's build-id
 * is. libelf mapped the whole file and converted its section headers
 * (and unmapped it), 5% of a record of /bin/true for its three files
 * (issue 26, part 4). GX_E_FORMAT: another kind of file, or none found.
 */
static int phdr_build_id(int fd, uint8_t id[20], uint8_t *size)
{
	static const uint8_t host_data =
		__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	/* the file's first 4 KiB: the header, and in a linked file its
	 * program headers and notes too (one read, where a read each was a
	 * dozen system calls a file) */
	uint8_t head[4096], notes[4096];
	Elf64_Phdr phs[256];
	Elf64_Ehdr eh;
	ssize_t got = pread(fd, head, sizeof(head), 0);
	size_t table;

	if (got < (ssize_t)sizeof(eh))
		return GX_E_FORMAT;
	memcpy(&eh, head, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != host_data || eh.e_phentsize != sizeof(phs[0]) ||
	    eh.e_phnum > ARRAY_SIZE(phs))
		return GX_E_FORMAT;
	table = (size_t)eh.e_phnum * sizeof(phs[0]);
	if (eh.e_phoff <= (uint64_t)got && table <= (size_t)got - eh.e_phoff)
		memcpy(phs, head + eh.e_phoff, table);
	else if (pread(fd, phs, table, (off_t)eh.e_phoff) != (ssize_t)table)
		return GX_E_FORMAT;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &phs[i];
		const uint8_t *p = notes;
		ssize_t n;

		if (ph->p_type != PT_NOTE || ph->p_filesz > sizeof(notes))
			continue;
		if (ph->p_offset <= (uint64_t)got && ph->p_filesz <= (uint64_t)got - ph->p_offset) {
			p = head + ph->p_offset;
			n = (ssize_t)ph->p_filesz;
		} else {
			n = pread(fd, notes, ph->p_filesz, (off_t)ph->p_offset);
		}
		if (n == (ssize_t)ph->p_filesz && notes_find_build_id(p, (size_t)n, id, size) == 0)
			return 0;
	}
	return GX_E_FORMAT;
}

int pd_read_build_id(const char *path, uint8_t id[20], uint8_t *size)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	int fd, err = GX_E_FORMAT;
	struct stat st;

	/* never block on a FIFO or read a device: regular files only */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return GX_E_FORMAT;
	}
	if (phdr_build_id(fd, id, size) == 0) {
		close(fd);
		return 0;
	}
	/* libelf only for what the preads could not read (util's lazy-elf.c) */
	if (gx_libelf__open(NULL)) {
		err = GX_E_NOTSUP;
		goto out_close;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		goto out_close;
	if (elf_kind(elf) != ELF_K_ELF)
		goto out_end;
	while ((scn = elf_nextscn(elf, scn)) != NULL && err) {
		GElf_Shdr shdr;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			err = notes_find_build_id(d->d_buf, d->d_size, id, size);
	}
	if (err) {
		/* stripped of section headers: try the PT_NOTE segments */
		size_t nph = 0;

		if (elf_getphdrnum(elf, &nph) == 0) {
			for (size_t i = 0; i < nph && err; i++) {
				GElf_Phdr ph;
				Elf_Data *d;

				if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
					continue;
				d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
							 ELF_T_NHDR);
				if (d && d->d_buf)
					err = notes_find_build_id(d->d_buf, d->d_size, id, size);
			}
		}
	}
out_end:
	elf_end(elf);
out_close:
	close(fd);
	return err;
}

static int kernel_build_id(uint8_t id[20], uint8_t *size)
{
	uint8_t buf[4096];
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return GX_E_FORMAT;
	return notes_find_build_id(buf, (size_t)n, id, size);
}

void pd_reader__add_build_id(struct pd_env *env, size_t *cap, int32_t pid, uint16_t misc,
			     const uint8_t *id, uint8_t size, const char *filename)
{
	struct pd_build_id *b;

	env->build_ids = xgrow(env->build_ids, cap, env->nr_build_ids + 1, sizeof(*b));
	b = &env->build_ids[env->nr_build_ids++];
	memset(b, 0, sizeof(*b));
	b->pid = pid;
	b->misc = misc;
	b->size = size > 20 ? 20 : size;
	memcpy(b->id, id, b->size);
	b->filename = xstrdup(filename);
}

/* ---- pd_collect_build_ids ---------------------------------------------- */

struct bid_map {
	uint64_t start, end;
	uint32_t name;			/* strtab id */
	uint32_t next;			/* next map of the same pid, or UINT32_MAX */
	bool kernel;
	bool has_build_id;
	uint8_t build_id_size;
	uint8_t build_id[20];
};

struct bid_tool {
	struct pd_tool tool;
	struct strtab names;
	struct bid_map *maps;
	size_t nr_maps, cap_maps;
	struct u64map heads;		/* pid -> first map index */
	uint32_t last;			/* cache: last map hit */
	uint32_t last_pid;
};

static int bid_mmap(struct pd_tool *t, const struct pd_mmap *m)
{
	struct bid_tool *bt = (struct bid_tool *)t;
	struct bid_map *map;
	uint64_t *head;
	uint16_t mode = m->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (!m->filename || !m->filename[0] || m->len == 0)
		return 0;
	bt->maps = xgrow(bt->maps, &bt->cap_maps, bt->nr_maps + 1, sizeof(*bt->maps));
	map = &bt->maps[bt->nr_maps];
	memset(map, 0, sizeof(*map));
	map->start = m->start;
	map->end = m->start + m->len;
	map->name = strtab__intern(&bt->names, m->filename);
	map->kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
	map->has_build_id = m->has_build_id;
	map->build_id_size = m->build_id_size;
	memcpy(map->build_id, m->build_id, sizeof(map->build_id));
	head = u64map__findnew(&bt->heads, map->kernel ? UINT32_MAX : m->pid, UINT32_MAX);
	/* newest first: a later mapping of the same range hides older ones */
	map->next = (uint32_t)*head;
	*head = bt->nr_maps++;
	bt->last = UINT32_MAX;
	return 0;
}

static int bid_sample(struct pd_tool *t, const struct pd_sample *s)
{
	struct bid_tool *bt = (struct bid_tool *)t;
	uint16_t mode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint32_t key = mode == PERF_RECORD_MISC_KERNEL ? UINT32_MAX : s->pid;
	uint64_t *head;

	if (bt->last != UINT32_MAX && bt->last_pid == key &&
	    s->ip >= bt->maps[bt->last].start && s->ip < bt->maps[bt->last].end)
		return 0;
	head = u64map__find(&bt->heads, key);
	if (!head)
		return 0;
	for (uint32_t i = (uint32_t)*head; i != UINT32_MAX; i = bt->maps[i].next) {
		struct bid_map *m = &bt->maps[i];

		if (s->ip >= m->start && s->ip < m->end) {
			uint64_t *slot;

			bt->last = i;
			bt->last_pid = key;
			slot = u64map__findnew(&bt->heads, (1ULL << 40) + m->name, 0);
			*slot = 1;
			return 0;
		}
	}
	return 0;
}

int pd_collect_build_ids(struct perf_reader *r, struct pd_env *env, char **cause)
{
	struct bid_tool bt;
	size_t cap = env->nr_build_ids;
	bool *done;
	int err;

	memset(&bt, 0, sizeof(bt));
	bt.tool.mmap = bid_mmap;
	bt.tool.sample = bid_sample;
	bt.last = UINT32_MAX;
	strtab__init(&bt.names);
	u64map__init(&bt.heads);
	err = perf_reader__process(r, &bt.tool, cause);
	if (err)
		goto out;
	done = xcalloc(bt.names.nr + 1, sizeof(bool));
	for (size_t i = 0; i < bt.nr_maps; i++) {
		struct bid_map *m = &bt.maps[i];
		const char *name = strtab__str(&bt.names, m->name);
		uint8_t id[20], size = 0;
		int e;

		if (done[m->name] || !u64map__find(&bt.heads, (1ULL << 40) + m->name))
			continue;
		done[m->name] = true;
		if (m->has_build_id && m->build_id_size) {
			memcpy(id, m->build_id, sizeof(id));
			size = m->build_id_size;
			e = 0;
		} else if (m->kernel && name[0] == '[' && strncmp(name, "[kernel.kallsyms]", 17) == 0) {
			e = kernel_build_id(id, &size);
			name = "[kernel.kallsyms]";
		} else if (name[0] != '/') {
			continue;	/* [vdso], [heap], anon, //anon ... */
		} else {
			e = pd_read_build_id(name, id, &size);
		}
		if (e)
			continue;	/* missing or not ELF: nothing to record */
		pd_reader__add_build_id(env, &cap, -1,
					m->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
					id, size, name);
	}
	free(done);
out:
	free(bt.maps);
	u64map__exit(&bt.heads);
	strtab__exit(&bt.names);
	return err;
}

int pd_collect_build_ids_file(const char *path, struct pd_env *env, char **cause)
{
	struct perf_reader *r;
	/* in time order, as a report reads it: a drain of the ring buffers
	 * may write one CPU's samples of a new program before the MMAP that
	 * names it, from another CPU's buffer; in file order those samples
	 * hit no map, the program got no build-id and no archived copy (a
	 * rebuild in place then renamed the recording's functions, without a
	 * warning) */
	int err = perf_reader__open(&r, path, PD_ORDERED | PD_REGULAR | PD_NOFOLLOW, cause);

	if (err)
		return err;
	err = pd_collect_build_ids(r, env, cause);
	perf_reader__delete(r);
	return err;
}
