/*
 * gen-memdata: writes a perf.data of memory-access samples with known
 * fields, as Intel's load-latency event (cpu/mem-loads,ldlat=30/P) would
 * record them, for tests on machines without such a PMU.
 *
 *   gen-memdata -o FILE [-b BINARY] [-s] < SPEC
 *
 * -s: the weight is PERF_SAMPLE_WEIGHT_STRUCT (latency, var2, var3), else
 * PERF_SAMPLE_WEIGHT. Each process maps BINARY's PT_LOAD segments as the
 * kernel does (a PIE at 0x555555554000, its .bss past the file's pages as
 * an anonymous map), with MMAP2 records of the data maps too (perf record
 * -d's mmap_data).
 *
 * SPEC lines:
 *   process PID COMM        samples below belong to it (its main thread)
 *   thread TID              ... to its thread TID
 *   map START LEN PROT NAME another MMAP2 of the process ("[heap]",
 *                           "[stack]", "//anon"; PROT 3 read-write)
 *   sample CODE DATA WEIGHT DATA_SRC [VAR2 VAR3] [xN]
 *       CODE: FUNCTION or FUNCTION+OFFSET of BINARY, or 0xADDRESS
 *       DATA: &SYMBOL or &SYMBOL+OFFSET of BINARY, or 0xADDRESS
 *       DATA_SRC: the raw union perf_mem_data_src value (0x...)
 *       xN: N such samples
 */
#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

#define PIE_BASE 0x555555554000ULL
#define PAGE 4096ULL
#define ID 1000

struct seg {
	uint64_t vaddr, memsz, filesz, offset;
	uint32_t prot;
};

static struct {
	Elf *e;
	int fd;
	uint64_t base;
	struct seg segs[8];
	size_t nr_segs;
} bin;

static int die(const char *what, const char *detail)
{
	fprintf(stderr, "gen-memdata: %s: %s\n", what, detail ? detail : "failed");
	exit(2);
}

static void open_binary(const char *path)
{
	GElf_Ehdr eh;
	size_t nph;

	bin.fd = open(path, O_RDONLY);
	if (bin.fd < 0 || gx_libelf__open(NULL))
		die(path, "cannot read");
	bin.e = elf_begin(bin.fd, ELF_C_READ, NULL);
	if (!bin.e || !gelf_getehdr(bin.e, &eh) || elf_getphdrnum(bin.e, &nph))
		die(path, "not ELF");
	bin.base = eh.e_type == ET_DYN ? PIE_BASE : 0;
	for (size_t i = 0; i < nph && bin.nr_segs < 8; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(bin.e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		bin.segs[bin.nr_segs++] = (struct seg){
			ph.p_vaddr, ph.p_memsz, ph.p_filesz, ph.p_offset,
			(ph.p_flags & PF_R ? 1u : 0) | (ph.p_flags & PF_W ? 2u : 0) |
			(ph.p_flags & PF_X ? 4u : 0) };
	}
}

/* The address of symbol name (+offset) of the binary, loaded. */
static uint64_t symbol(const char *spec)
{
	char name[128];
	const char *plus = strchr(spec, '+');
	size_t n = plus ? (size_t)(plus - spec) : strlen(spec);
	Elf_Scn *scn = NULL;

	if (spec[0] == '0' && spec[1] == 'x')
		return strtoull(spec, NULL, 16);
	snprintf(name, sizeof(name), "%.*s", (int)n, spec);
	while ((scn = elf_nextscn(bin.e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
			GElf_Sym sym;
			const char *sn;

			if (gelf_getsym(d, (int)i, &sym) && sym.st_shndx != SHN_UNDEF &&
			    (sn = elf_strptr(bin.e, sh.sh_link, sym.st_name)) && !strcmp(sn, name))
				return bin.base + sym.st_value +
				       (plus ? strtoull(plus + 1, NULL, 0) : 0);
		}
	}
	die("no such symbol in the binary", name);
	return 0;
}

static void put(struct perf_writer *w, const void *rec, size_t len)
{
	if (perf_writer__write(w, rec, len) != 0)
		die("write", NULL);
}

static uint64_t now = 1000000;

/* An MMAP2 record with its sample_id_all trailer (TID, TIME, CPU,
 * IDENTIFIER), laid out as the kernel writes it: pid, tid, addr, len,
 * pgoff, maj, min, ino, ino_generation, prot, flags, the name padded to 8
 * bytes. */
static void put_map(struct perf_writer *w, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, uint32_t prot, const char *name)
{
	uint64_t rec[64] = { 0 }, *q = rec + 1;
	size_t nl = strlen(name) + 1, n;
	struct perf_event_header h = { PERF_RECORD_MMAP2,
		(uint16_t)(PERF_RECORD_MISC_USER | (prot & 4 ? 0 : PERF_RECORD_MISC_MMAP_DATA)), 0 };

	if (nl > 256)
		die("map name too long", name);
	*q++ = (uint64_t)pid << 32 | pid;
	*q++ = start;
	*q++ = len;
	*q++ = pgoff;
	*q++ = 0;						/* maj, min */
	*q++ = name[0] == '/' && name[1] != '/';		/* ino */
	*q++ = 0;						/* ino_generation */
	*q++ = (uint64_t)2 << 32 | prot;			/* flags MAP_PRIVATE, prot */
	memcpy(q, name, nl);
	q += (nl + 7) / 8;
	*q++ = (uint64_t)pid << 32 | pid;			/* the trailer */
	*q++ = now++;
	*q++ = 0;
	*q++ = ID;
	n = (size_t)(q - rec) * sizeof(*rec);
	h.size = (uint16_t)n;
	memcpy(rec, &h, sizeof(h));
	put(w, rec, n);
}

static void put_process(struct perf_writer *w, uint32_t pid, const char *comm, const char *path)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		uint64_t tr[4];
	} c;

	memset(&c, 0, sizeof(c));
	c.h = (struct perf_event_header){ PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(c) };
	c.pid = c.tid = pid;
	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	c.tr[0] = (uint64_t)pid << 32 | pid;
	c.tr[1] = now++;
	c.tr[3] = ID;
	put(w, &c, sizeof(c));
	for (size_t i = 0; i < bin.nr_segs; i++) {
		const struct seg *s = &bin.segs[i];
		uint64_t start = (bin.base + s->vaddr) & ~(PAGE - 1);
		uint64_t file_end = (bin.base + s->vaddr + s->filesz + PAGE - 1) & ~(PAGE - 1);
		uint64_t end = (bin.base + s->vaddr + s->memsz + PAGE - 1) & ~(PAGE - 1);

		put_map(w, pid, start, file_end - start, s->offset & ~(PAGE - 1), s->prot, path);
		if (end > file_end)	/* .bss past the file's last page */
			put_map(w, pid, file_end, end - file_end, 0, s->prot, "//anon");
	}
}

struct msample {
	struct perf_event_header h;
	uint64_t identifier, ip;
	uint32_t pid, tid;
	uint64_t time, addr;
	uint32_t cpu, res;
	uint64_t period, weight, data_src, phys_addr;
};

static void put_samples(struct perf_writer *w, const char *line, uint32_t pid, uint32_t tid,
			bool wstruct)
{
	char code[160], data[160], rest[64] = "";
	unsigned long long weight, ds, v2 = 0, v3 = 0, n = 1;
	int k = sscanf(line, "sample %159s %159s %llu %llx %63[^\n]", code, data, &weight, &ds, rest);
	struct msample s;
	const char *x;

	if (k < 4)
		die("bad sample line", line);
	if ((x = strchr(rest, 'x')))
		n = strtoull(x + 1, NULL, 10);
	if (sscanf(rest, "%llu %llu", &v2, &v3) != 2)
		v2 = v3 = 0;
	memset(&s, 0, sizeof(s));
	s.h = (struct perf_event_header){ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) };
	s.identifier = ID;
	s.ip = symbol(code);
	s.pid = pid;
	s.tid = tid;
	s.addr = symbol(data[0] == '&' ? data + 1 : data);
	s.period = 1;
	s.weight = wstruct ? (weight & 0xffffffffULL) | v2 << 32 | v3 << 48 : weight;
	s.data_src = ds;
	s.phys_addr = 0x100000000ULL + (s.addr & 0xfffffff);
	for (unsigned long long i = 0; i < n; i++) {
		s.time = now++;
		put(w, &s, sizeof(s));
	}
}

int main(int argc, char **argv)
{
	const char *out = NULL, *binary = "/bin/true";
	char line[512], comm[64] = "", *cause = NULL;
	uint32_t pid = 0, tid = 0;
	bool wstruct = false;
	struct perf_writer *w;
	struct pd_evsel ev;
	struct pd_env env = { 0 };
	int c;

	while ((c = getopt(argc, argv, "o:b:s")) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'b')
			binary = optarg;
		else if (c == 's')
			wstruct = true;
		else
			return 2;
	}
	if (!out)
		die("usage", "gen-memdata -o FILE [-b BINARY] [-s] < SPEC");
	open_binary(binary);
	memset(&ev, 0, sizeof(ev));
	ev.attr.size = PERF_ATTR_SIZE_VER7;
	ev.attr.type = PERF_TYPE_RAW;
	ev.attr.config = 0x1cd;		/* mem-loads */
	ev.attr.config1 = 30;		/* ldlat */
	ev.attr.sample_period = 1;
	ev.attr.precise_ip = 2;
	ev.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |
			      (wstruct ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT);
	ev.attr.mmap = ev.attr.comm = ev.attr.task = ev.attr.mmap2 = ev.attr.mmap_data = 1;
	ev.attr.sample_id_all = 1;
	ev.attr.exclude_kernel = 1;
	ev.name = xstrdup("cpu/mem-loads,ldlat=30/P");
	ev.ids = xcalloc(1, sizeof(uint64_t));
	ev.ids[0] = ID;
	ev.nr_ids = 1;
	if (perf_writer__new(&w, out, &ev, 1, &cause))
		die(out, cause);
	while (fgets(line, sizeof(line), stdin)) {
		char a[64], name[256];
		unsigned long long x, y, z;

		if (sscanf(line, "%63s", a) != 1 || a[0] == '#')
			continue;
		if (!strcmp(a, "process")) {
			if (sscanf(line, "process %llu %63s", &x, comm) != 2)
				die("bad process line", line);
			pid = tid = (uint32_t)x;
			put_process(w, pid, comm, binary);
		} else if (!strcmp(a, "thread") && pid) {
			if (sscanf(line, "thread %llu", &x) != 1)
				die("bad thread line", line);
			tid = (uint32_t)x;
		} else if (!strcmp(a, "map") && pid) {
			if (sscanf(line, "map %llx %llx %llu %255s", &x, &y, &z, name) != 4)
				die("bad map line", line);
			put_map(w, pid, x, y, 0, (uint32_t)z, name);
		} else if (!strcmp(a, "sample") && pid) {
			put_samples(w, line, pid, tid, wstruct);
		} else {
			die("bad line (a process first)", line);
		}
	}
	env.hostname = xstrdup("synthetic");
	env.osrelease = xstrdup("6.0.0-synthetic");
	env.arch = xstrdup("x86_64");
	env.cpudesc = xstrdup("GenuineIntel synthetic");
	env.cpuid = xstrdup("GenuineIntel,6,143,8");
	env.nr_cpus_online = env.nr_cpus_avail = 1;
	if (perf_writer__finish(w, &env, &cause))
		die(out, cause);
	perf_writer__delete(w);
	pd_env__exit(&env);
	free(ev.name);
	free(ev.ids);
	elf_end(bin.e);
	close(bin.fd);
	return 0;
}
