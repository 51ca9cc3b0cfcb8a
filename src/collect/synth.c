/*
 * synth.c: COMM and MMAP2 records for tasks that were running before the
 * counters opened (-p, -a), read from /proc, laid out as the kernel would
 * write them, with the tracking event's sample_id_all trailer (time 0, so
 * they sort before every sample). FORK records are not synthesized: a
 * reader learns the threads of a process from the COMM records.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The 8 bytes at v after p when sample_type st has bit; where the next field goes. */
static char *put8_if(char *p, uint64_t st, uint64_t bit, const void *v)
{
	if (!(st & bit))
		return p;
	memcpy(p, v, 8);
	return p + 8;
}

static size_t put_id_trailer(struct synth_ctx *c, char *p, pid_t pid, pid_t tid)
{
	char *s = p;
	uint64_t st = c->sample_type, zero = 0;
	uint32_t v[2] = { (uint32_t)pid, (uint32_t)tid };

	/* the order the kernel writes sample_id_all fields in */
	p = put8_if(p, st, PERF_SAMPLE_TID, v);
	p = put8_if(p, st, PERF_SAMPLE_TIME, &zero);
	p = put8_if(p, st, PERF_SAMPLE_ID, &c->id);
	p = put8_if(p, st, PERF_SAMPLE_STREAM_ID, &c->id);
	p = put8_if(p, st, PERF_SAMPLE_CPU, &zero);
	p = put8_if(p, st, PERF_SAMPLE_IDENTIFIER, &c->id);
	return (size_t)(p - s);
}

static int emit(struct synth_ctx *c, size_t len)
{
	int r;

	((struct perf_event_header *)c->buf)->size = (uint16_t)len;
	r = c->sink->record(c->sink, c->buf, len);
	if (r)
		return r;
	c->records++;
	c->bytes += len;
	return 0;
}

static int synth_comm(struct synth_ctx *c, pid_t pid, pid_t tid, const char *comm)
{
	struct perf_event_header *h = (void *)c->buf;
	char *p = c->buf + sizeof(*h);
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };
	size_t n = strnlen(comm, 15), padded = (n + 1 + 7) & ~(size_t)7;

	h->type = PERF_RECORD_COMM;
	h->misc = 0;
	memcpy(p, ids, 8);
	p += 8;
	memset(p, 0, padded);
	memcpy(p, comm, n);
	p += padded;
	p += put_id_trailer(c, p, pid, tid);
	return emit(c, (size_t)(p - c->buf));
}

struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

static int synth_maps(struct synth_ctx *c, pid_t pid)
{
	char path[64], *maps, *line, *save = NULL;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = gx_read_file(path, 64 << 20);
	if (!maps)
		return -errno;
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct perf_event_header *h = (void *)c->buf;
		struct mmap2_body b = { 0 };
		unsigned long long start, end, pgoff, ino;
		unsigned int maj, min;
		char perms[8];
		int off = 0;
		const char *name;
		size_t n, padded;
		bool exec;
		char *p;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj,
			   &min, &ino, &off) < 7 || !off)
			continue;
		name = line + off;
		while (*name == ' ')
			name++;
		if (!*name || strlen(perms) < 4)
			continue;
		exec = perms[2] == 'x';
		/* a data mapping only of a file (or the stack): perf's dwarf
		 * unwinder reads .eh_frame_hdr at its address in the file's
		 * read-only segment, next to the code */
		if (!exec && (!c->data_maps || (name[0] != '/' && strcmp(name, "[stack]"))))
			continue;
		n = strlen(name);
		if (n >= 4096)
			continue;
		padded = (n + 1 + 7) & ~(size_t)7;
		b.pid = b.tid = (uint32_t)pid;
		b.addr = start;
		b.len = end - start;
		b.pgoff = pgoff;
		b.maj = maj;
		b.min = min;
		b.ino = ino;
		b.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 (exec ? PROT_EXEC : 0);
		b.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		h->type = PERF_RECORD_MMAP2;
		h->misc = PERF_RECORD_MISC_USER | (exec ? 0 : PERF_RECORD_MISC_MMAP_DATA);
		p = c->buf + sizeof(*h);
		memcpy(p, &b, sizeof(b));
		p += sizeof(b);
		memset(p, 0, padded);
		memcpy(p, name, n);
		p += padded;
		p += put_id_trailer(c, p, pid, pid);
		err = emit(c, (size_t)(p - c->buf));
		if (err)
			break;
	}
	free(maps);
	return err;
}

static char *read_comm(pid_t pid, pid_t tid)
{
	char path[64], *s;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	s = gx_read_file(path, 64);
	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

int synth__process(struct synth_ctx *c, pid_t pid, bool all_threads)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int err = 0;

	if (all_threads) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		d = opendir(path);
		if (!d)
			return -errno;
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			char *comm;

			if (tid <= 0)
				continue;
			comm = read_comm(pid, tid);
			if (!comm)
				continue;	/* the thread ended meanwhile */
			err = synth_comm(c, pid, tid, comm);
			free(comm);
			if (err)
				break;
		}
		closedir(d);
	} else {
		char *comm = read_comm(pid, pid);

		if (!comm)
			return -ESRCH;
		err = synth_comm(c, pid, pid, comm);
		free(comm);
	}
	if (err)
		return err;
	err = synth_maps(c, pid);
	/* a process that vanished meanwhile is not an error */
	return err == -ENOENT || err == -ESRCH ? 0 : err;
}

int synth__all(struct synth_ctx *c)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		err = synth__process(c, pid, true);
		if (err == -ENOENT || err == -ESRCH || err == -EACCES)
			err = 0;
		if (err)
			break;
	}
	closedir(d);
	return err;
}

/* The address of a kernel symbol from /proc/kallsyms, or 0 when hidden
 * (kptr_restrict) or absent. */
static uint64_t kallsyms_addr(const char *want)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	uint64_t addr, found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, want)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

static int synth_kernel_mmap(struct synth_ctx *c, const char *name, uint64_t start,
			     uint64_t len, uint64_t pgoff)
{
	struct perf_event_header *h = (void *)c->buf;
	char *p = c->buf + sizeof(*h);
	uint32_t ids[2] = { UINT32_MAX, 0 };	/* pid -1: the host kernel */
	uint64_t v[3] = { start, len, pgoff };
	size_t n = strnlen(name, 255), padded = (n + 1 + 7) & ~(size_t)7;

	h->type = PERF_RECORD_MMAP;
	h->misc = PERF_RECORD_MISC_KERNEL;
	memcpy(p, ids, 8);
	p += 8;
	memcpy(p, v, sizeof(v));
	p += sizeof(v);
	memset(p, 0, padded);
	memcpy(p, name, n);
	p += padded;
	p += put_id_trailer(c, p, -1, 0);
	return emit(c, (size_t)(p - c->buf));
}

int synth__kernel(struct synth_ctx *c)
{
	uint64_t text = kallsyms_addr("_text");
	char line[512], mod[160];
	FILE *f;
	int err;

	if (!text)
		text = kallsyms_addr("_stext");
	if (!text) {
		c->kernel_hidden = true;
		return 0;	/* hidden: readers show kernel samples as [kernel] */
	}
	/* As perf record writes it: the map starts at _text, runs to the end
	 * of the address space, and pgoff carries _text's address so readers
	 * can relocate kallsyms ("ref_reloc_sym"). */
	err = synth_kernel_mmap(c, "[kernel.kallsyms]_text", text, ~0ULL - text, text);
	if (err)
		return err;
	f = fopen("/proc/modules", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		uint64_t size, addr;
		char name[128];

		if (sscanf(line, "%127s %" SCNu64 " %*s %*s %*s %" SCNx64, name, &size, &addr) != 3 ||
		    !addr || !size)
			continue;
		snprintf(mod, sizeof(mod), "[%s]", name);
		err = synth_kernel_mmap(c, mod, addr, size, 0);
		if (err)
			break;
	}
	fclose(f);
	return err;
}
