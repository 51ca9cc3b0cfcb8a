/*
 * tui-gen DIR BINARY NSAMPLES: write DIR/perf.data with NSAMPLES cpu-clock
 * samples over 4 threads and 10 s, at addresses inside BINARY's functions
 * (60% hot_inner, 30% hot_outer, the rest anywhere in .text), each with
 * its call chain (hot_inner <- hot_outer <- main, as frame pointers give
 * it), for bench/tui: the call tree and flame views get call paths. The binary is mapped with file offset == address, as gcc
 * lays out small PIE files.
 */
#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "tests/gen/gen-records.h"
#include "util/util.h"

#define BASE 0x555555554000ull

static uint64_t sym_lo[4], sym_hi[4];	/* hot_inner, hot_outer, .text, main */

static void find_syms(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;

	if (gx_libelf__open(NULL)) {	/* util's table: opened before any elf_* */
		fprintf(stderr, "tui-gen: libelf cannot be loaded\n");
		exit(1);
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t str;

		gelf_getshdr(scn, &sh);
		elf_getshdrstrndx(e, &str);
		if (!strcmp(elf_strptr(e, str, sh.sh_name), ".text")) {
			sym_lo[2] = sh.sh_addr;
			sym_hi[2] = sh.sh_addr + sh.sh_size;
		}
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			gelf_getsym(d, (int)i, &s);
			n = elf_strptr(e, sh.sh_link, s.st_name);
			for (int k = 0; k < 4 && n; k++)
				if (k != 2 && !strcmp(n, k == 0 ? "hot_inner" : k == 1 ? "hot_outer" :
						      "main")) {
					sym_lo[k] = s.st_value;
					sym_hi[k] = s.st_value + s.st_size;
				}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}

static void put(struct perf_writer *w, const void *rec, size_t len)
{
	if (perf_writer__write(w, rec, len) != 0) {
		fprintf(stderr, "tui-gen: write failed\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct pd_evsel ev = { 0 };
	struct perf_writer *w;
	struct pd_env env = { 0 };
	char *cause = NULL, *path;
	uint64_t n, seed = 42;
	struct stat st;

	if (argc != 4) {
		fprintf(stderr, "usage: tui-gen DIR BINARY NSAMPLES\n");
		return 2;
	}
	n = strtoull(argv[3], NULL, 10);
	find_syms(argv[2]);
	if (!sym_hi[0] || !sym_hi[1] || !sym_hi[2] || !sym_hi[3] || stat(argv[2], &st) != 0) {
		fprintf(stderr, "tui-gen: %s lacks hot_inner/hot_outer/main/.text\n", argv[2]);
		return 2;
	}
	mkdir(argv[1], 0755);
	path = xasprintf("%s/perf.data", argv[1]);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.attr.sample_period = 100000;
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	ev.name = "cpu-clock";
	if (perf_writer__new(&w, path, &ev, 1, &cause) != 0) {
		fprintf(stderr, "tui-gen: %s\n", cause);
		return 2;
	}
	for (uint32_t t = 0; t < 4; t++) {
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			char comm[16];
		} c = { { PERF_RECORD_COMM, 0, sizeof(c) }, 1000, 1000 + t, "wl-spin" };

		if (t)
			snprintf(c.comm, sizeof(c.comm), "worker-%u", t);
		put(w, &c, sizeof(c));
	}
	{
		struct gen_mmap2 m;

		gen_mmap2(&m, 1000, BASE, ((uint64_t)st.st_size + 4095) & ~4095ull, argv[2]);
		put(w, &m, m.h.size);
	}
	for (uint64_t i = 0; i < n; i++) {
		struct {
			struct perf_event_header h;
			uint64_t ip;
			uint32_t pid, tid;
			uint64_t time, period;
			uint64_t nr, chain[4];
		} s;
		uint64_t r, k;
		size_t len;

		memset(&s, 0, sizeof(s));
		s.h.type = PERF_RECORD_SAMPLE;
		s.h.misc = PERF_RECORD_MISC_USER;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		r = seed >> 33;
		k = r % 10 < 6 ? 0 : r % 10 < 9 ? 1 : 2;
		s.ip = BASE + sym_lo[k] + (r / 16) % (sym_hi[k] - sym_lo[k]);
		s.pid = 1000;
		s.tid = 1000 + (uint32_t)(r % 4);
		s.time = 1000000000ull + i * (10000000000ull / (n ? n : 1));
		s.period = 100000;
		/* PERF_CONTEXT_USER, the ip, then return addresses: in hot_outer
		 * (hot_inner's caller) and in main */
		s.chain[s.nr++] = 0xfffffffffffffe00ull;
		s.chain[s.nr++] = s.ip;
		if (k == 0)
			s.chain[s.nr++] = BASE + sym_lo[1] + (sym_hi[1] - sym_lo[1]) / 2;
		s.chain[s.nr++] = BASE + sym_lo[3] + (sym_hi[3] - sym_lo[3]) / 2;
		len = offsetof(__typeof__(s), chain) + s.nr * sizeof(uint64_t);
		s.h.size = (uint16_t)len;
		put(w, &s, len);
		if (i % 10000 == 9999)
			perf_writer__finished_round(w);
	}
	pd_env__from_system(&env, argc, argv);
	if (perf_writer__finish(w, &env, &cause) != 0) {
		fprintf(stderr, "tui-gen: %s\n", cause);
		return 2;
	}
	perf_writer__delete(w);
	pd_env__exit(&env);
	free(path);
	return 0;
}
