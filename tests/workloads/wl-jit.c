/*
 * wl-jit: a tiny JIT. Copies a count-down loop into anonymous executable
 * memory, announces it in /tmp/perf-PID.map as perf's JIT convention
 * wants ("START SIZE NAME", hex), and runs it.
 *
 *	wl-jit ITERATIONS [MAPFILE]
 *
 * MAPFILE (default /tmp/perf-PID.map) lets a test point the map
 * elsewhere; the file is left behind for the report, as JITs do.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

int main(int argc, char **argv)
{
	unsigned long long n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000ULL;
	char path[64];
	const char *map = argc > 2 ? argv[2] : path;
	void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *f;
	void (*fn)(unsigned long long);

	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	__builtin___clear_cache((char *)mem, (char *)mem + sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_count_down\n", (unsigned long)(uintptr_t)mem, sizeof(code));
	fclose(f);
	fn = (void (*)(unsigned long long))mem;
	fn(n ? n : 1);
	printf("%d\n", (int)getpid());
	return 0;
}
