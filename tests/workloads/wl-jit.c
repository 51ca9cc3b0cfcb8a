/*
 * wl-jit: a tiny JIT. Copies a count-down loop into anonymous executable
 * memory, announces it in /tmp/perf-PID.map as perf's JIT convention
 * wants ("START SIZE NAME", hex), and runs it.
 *
 *	wl-jit ITERATIONS [MAPFILE]
 *	wl-jit --jitdump DIR ITERATIONS
 *
 * MAPFILE (default /tmp/perf-PID.map) lets a test point the map
 * elsewhere; the file is left behind for the report, as JITs do.
 *
 * --jitdump DIR writes DIR/jit-PID.dump instead, perf's jitdump format
 * (tools/perf/util/jitdump.h): a header and one JIT_CODE_LOAD record with
 * the function's name and code bytes, and maps the file executable as
 * perf's JVMTI agent does, so that the recording's MMAP record names it.
 * No perf map is written then: names come from the dump alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* loop: dec %rdi; jnz loop; ret */
static const unsigned char code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
#elif defined(__aarch64__)
/* loop: subs x0, x0, #1; b.ne loop; ret */
static const uint32_t code[] = { 0xf1000400, 0x54ffffe1, 0xd65f03c0 };
#else
#error "wl-jit: no code for this architecture"
#endif

#if defined(__x86_64__)
#define WL_MACH EM_X86_64
#else
#define WL_MACH EM_AARCH64
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* DIR/jit-PID.dump with one code load of code at mem, mapped PROT_EXEC. */
static int write_jitdump(const char *dir, void *mem)
{
	static const char name[] = "jit_dump_count_down";
	struct {
		uint32_t magic, version, total_size, elf_mach, pad1, pid;
		uint64_t timestamp, flags;
	} hdr = { 0x4A695444, 1, sizeof(hdr), WL_MACH, 0, (uint32_t)getpid(), now_ns(), 0 };
	struct {
		uint32_t id, total_size;
		uint64_t timestamp;
		uint32_t pid, tid;
		uint64_t vma, code_addr, code_size, code_index;
	} load = { 0, 0, now_ns(), (uint32_t)getpid(), (uint32_t)getpid(),
		   (uint64_t)(uintptr_t)mem, (uint64_t)(uintptr_t)mem, sizeof(code), 1 };
	char path[4096];
	FILE *f;
	void *m;
	int fd;

	load.total_size = sizeof(load) + sizeof(name) + sizeof(code);
	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w+")))
		return -1;
	/* the mapping is what puts the file in the recording */
	m = mmap(NULL, sizeof(hdr), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		perror("wl-jit: mmap of the jitdump (a noexec file system?)");
		fclose(f);
		return -1;
	}
	fwrite(&hdr, sizeof(hdr), 1, f);
	fwrite(&load, sizeof(load), 1, f);
	fwrite(name, sizeof(name), 1, f);
	fwrite(code, sizeof(code), 1, f);
	return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *jitdump = NULL, *map;
	unsigned long long n;
	char path[64];
	void *mem;
	FILE *f;
	void (*fn)(unsigned long long);

	if (argc > 2 && !strcmp(argv[1], "--jitdump")) {
		jitdump = argv[2];
		argv += 2;
		argc -= 2;
	}
	n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000ULL;
	map = argc > 2 ? argv[2] : path;
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	__builtin___clear_cache((char *)mem, (char *)mem + sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	if (jitdump) {
		if (write_jitdump(jitdump, mem) != 0)
			return 1;
	} else {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(map, "w");
		if (!f)
			return 1;
		fprintf(f, "%lx %zx jit_count_down\n", (unsigned long)(uintptr_t)mem,
			sizeof(code));
		fclose(f);
	}
	fn = (void (*)(unsigned long long))mem;
	fn(n ? n : 1);
	printf("%d\n", (int)getpid());
	return 0;
}
