/*
 * wl-model [KERNEL [SCALE]]: deterministic kernels for record --model
 * (tests/e2e/model.sh, bench/model): the same instructions every run, no
 * clock read, data from a fixed LCG. KERNEL is one of lat_chain,
 * indep_fp, fp_add (independent adds), chase_l1, chase_l2, chase_idx_l2 (chase_l2's ring as array
 * indices), chase_l3, chase_dram, stream_l1,
 * stream_dram, sweep_lines and scatter_lines (a load a line over 64 MiB, in order or not,
 * SCALE times), decide_lines (scatter_lines, each line's bit deciding the next line),
 * text_lines (the first word of each line of text 64-255 bytes long over 64 MiB, SCALE
 * times), hop_lines (the same lines as a chain),
 * chase_seq (a chase through 64 MiB in address order), branchy, pattern,
 * pattern16k, pattern64k (branchy on a fixed pattern of 1, 16 or 64 Ki random bits,
 * repeated), long_loop (a loop of 1,000 turns, SCALE x 1,000 times), touch (the first touch of SCALE MiB, a byte a page), touch_variant
 * (the same, by another function under Valgrind), touch_read (SCALE MiB read() filled, then
 * read a byte a page), touch_remap (1 MiB mapped, touched, unmapped, SCALE times),
 * fill_lines (SCALE x 16 MiB mapped afresh, every line written, the pages in
 * a random order), scan_file (4 MiB of a file mapped, every line read, the
 * pages out of order, SCALE times), sort (SCALE sorts of 64 Ki keys), interp (a switch's dispatch over a repeated
 * program), bigcode (straight code past any L1I), threads (three of lat_chain), clock (10
 * cycles an iteration), or "all" (default: each at SCALE, 1 by
 * default, small enough for a test under Valgrind).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

volatile double wl_dsink;
volatile uint64_t wl_sink;

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 17;
}

/* one long dependency chain: each multiply-add waits for the last */
__attribute__((noinline)) double lat_chain(long n)
{
	double x = 1.0;

	for (long i = 0; i < n; i++)
		x = x * 0.999999 + 1e-7;
	return x;
}

/* eight independent chains in registers: the FP ports, not the latency,
 * limit (an array would chain through memory: store to load forwarding) */
__attribute__((noinline)) double indep_fp(long n)
{
	double a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, a6 = 7, a7 = 8;

	for (long i = 0; i < n; i++) {
		a0 = a0 * 0.999999 + 1e-7;
		a1 = a1 * 0.999999 + 1e-7;
		a2 = a2 * 0.999999 + 1e-7;
		a3 = a3 * 0.999999 + 1e-7;
		a4 = a4 * 0.999999 + 1e-7;
		a5 = a5 * 0.999999 + 1e-7;
		a6 = a6 * 0.999999 + 1e-7;
		a7 = a7 * 0.999999 + 1e-7;
	}
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

/* eight independent vector FP adds an iteration: the FP adders'
 * throughput limits, not their latency (record --model scales integer
 * blocks by peak's add throughput, not this one) */
__attribute__((noinline)) double fp_add(long n)
{
	double x = 0;

	for (long i = 0; i < n; i++) {
#if defined(__x86_64__)
		__asm__ volatile("addpd %%xmm8, %%xmm0\n\taddpd %%xmm8, %%xmm1\n\t"
				 "addpd %%xmm8, %%xmm2\n\taddpd %%xmm8, %%xmm3\n\t"
				 "addpd %%xmm8, %%xmm4\n\taddpd %%xmm8, %%xmm5\n\t"
				 "addpd %%xmm8, %%xmm6\n\taddpd %%xmm8, %%xmm7" : : :
				 "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
#else
		x += 1e-7;
#endif
	}
	return x;
}

/* the clock: ten dependent integer adds an iteration, one cycle each on
 * every core gexplore knows (gexplore peak's method); bench/model runs it
 * beside each kernel to turn CPU time into cycles */
__attribute__((noinline)) uint64_t clock_chain(long n)
{
	uint64_t x = 0;

	for (long i = 0; i < n; i++) {
#if defined(__x86_64__)
		__asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
				 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
				 "add $1, %0\n\tadd $1, %0" : "+r"(x));
#elif defined(__aarch64__)
		__asm__ volatile("add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\t"
				 "add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\t"
				 "add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\t"
				 "add %0, %0, #1" : "+r"(x));
#else
		x += (uint64_t)i;
#endif
	}
	return x;
}

/* Memory faulted in by the kernel at once (MAP_POPULATE): first touches
 * in a VM cost more than the kernels themselves, and the model sees no
 * kernel time; here they are system time in mmap, outside every function. */
static void *big_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	return p;
}

/* a random cycle through bytes of memory, one pointer a 64-byte line */
static void **make_ring(size_t bytes)
{
	size_t n = bytes / 64, *perm = big_alloc(n * sizeof(size_t));
	void **mem = big_alloc(n * 64);
	uint64_t s = 42;

	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = lcg(&s) % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		mem[perm[i] * 8] = &mem[perm[(i + 1) % n] * 8];
	munmap(perm, n * sizeof(size_t));
	return mem;
}

__attribute__((noinline)) void *chase(void **p, long steps)
{
	for (long i = 0; i < steps; i++)
		p = *p;
	return p;
}

/* a ring through bytes in address order, one pointer a line: a chase
 * whose next address a stride prefetcher predicts */
static void chase_seq_kernel(size_t bytes, long steps)
{
	size_t n = bytes / 64;
	void **mem = big_alloc(n * 64);

	for (size_t i = 0; i < n; i++)
		mem[i * 8] = &mem[(i + 1) % n * 8];
	wl_sink = (uint64_t)(uintptr_t)chase(mem, steps);
	munmap(mem, n * 64);
}

static void chase_kernel(size_t bytes, long steps)
{
	void **ring = make_ring(bytes);

	wl_sink = (uint64_t)(uintptr_t)chase(ring, steps);
	munmap(ring, bytes / 64 * 64);
}

/* the same ring as indices into an array: the chain runs through the
 * load's index register (mov (%rdi,%rax,4),%eax), as gzip's prev[] */
__attribute__((noinline)) uint32_t chase_index(const uint32_t *next, long steps)
{
	uint32_t i = 0;

	for (long k = 0; k < steps; k++)
		i = next[i];
	return i;
}

static void chase_index_kernel(size_t bytes, long steps)
{
	void **ring = make_ring(bytes);
	uint32_t *next = big_alloc(bytes);

	for (size_t l = 0; l < bytes / 64; l++)
		next[l * 16] = (uint32_t)(((void **)ring[l * 8] - ring) / 8 * 16);
	wl_sink = chase_index(next, steps);
	munmap(next, bytes);
	munmap(ring, bytes / 64 * 64);
}

__attribute__((noinline)) uint64_t stream_sum(const uint64_t *a, size_t n, int reps)
{
	uint64_t s = 0;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < n; i++)
			s += a[i];
	return s;
}

static void stream_kernel(size_t bytes, int reps)
{
	size_t n = bytes / 8;
	uint64_t *a = big_alloc(bytes);

	for (size_t i = 0; i < n; i++)
		a[i] = i;
	wl_sink = stream_sum(a, n, reps);
	munmap(a, bytes);
}

/* A load a line over bytes, in order (a sweep the prefetchers follow,
 * missed every access) or in a random order (independent loads, no
 * chain): the model prices the first by bandwidth, the second by latency
 * over the misses in flight. */
__attribute__((noinline)) uint64_t sweep_lines(const uint64_t *a, size_t lines, int reps)
{
	uint64_t s = 0;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < lines; i++)
			s += a[i * 8];
	return s;
}

__attribute__((noinline)) uint64_t scatter_lines(const uint64_t *a, const uint32_t *order,
						 size_t lines, int reps)
{
	uint64_t s = 0;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < lines; i++)
			s += a[(size_t)order[i] * 8];
	return s;
}

/* Lines at random, each line's random bit deciding, in another function
 * (as strcoll decides for sort's keycompare), which line is next (a
 * merge's, a search's): half of them mispredicted, and the wrong path
 * fetches the line not taken, so each miss waits for the one before */
__attribute__((noinline)) bool decide(uint64_t v)
{
	return v & 1;
}

__attribute__((noinline)) uint64_t decide_lines(const uint64_t *a, const uint32_t *order,
						size_t lines, int reps)
{
	uint64_t s = 0;
	size_t j = 0;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < lines; i++) {
			uint64_t v = a[(size_t)order[j] * 8];

			if (decide(v)) {
				s += v >> 3;
				j = i;
				__asm__ volatile("" ::: "memory");	/* a branch, no cmov */
			} else {
				s ^= v * 7;
				j = lines - 1 - i;
			}
		}
	return s;
}

static void lines_kernel(size_t bytes, int reps, bool random, bool branch)
{
	size_t n = bytes / 64;
	uint64_t *a = big_alloc(bytes), s = 7;
	uint32_t *order = random ? big_alloc(n * sizeof(uint32_t)) : NULL;

	for (size_t i = 0; order && i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n - 1; order && i > 0; i--) {
		size_t j = lcg(&s) % (i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	/* written first, outside the kernels: a first touch of a page is no
	 * miss (the kernel's fault wrote its zeros into the caches) */
	for (size_t i = 0; i < n; i++)
		a[i * 8] = branch ? lcg(&s) : i;
	wl_sink = branch ? decide_lines(a, order, n, reps) :
		  random ? scatter_lines(a, order, n, reps) : sweep_lines(a, n, reps);
	if (order)
		munmap(order, n * sizeof(uint32_t));
	munmap(a, bytes);
}

/* The first word of each line of text 64 to 255 bytes long, over bytes
 * (as memchr starts once a line): each miss 1 to 4 lines past the one
 * before, no constant stride; a stream of offsets, no chain. The L2
 * streamer follows it natively (11 cycles a line on Zen 5, sweep_lines
 * 7, scatter_lines 40). hop_lines: the same hops as a chain, each line
 * holding the next's address: the next line is known only once its load
 * is done. */
__attribute__((noinline)) uint64_t text_lines(const unsigned char *t, const uint32_t *start,
					      size_t n, int reps)
{
	uint64_t s = 0, v;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < n; i++) {
			memcpy(&v, t + start[i], sizeof(v));
			s += v;
		}
	return s;
}

__attribute__((noinline)) void *hop_lines(void *const *p, long steps)
{
	for (long i = 0; i < steps; i++)
		p = *p;
	return (void *)p;
}

static void text_kernel(size_t bytes, int reps, bool chain)
{
	unsigned char *t = big_alloc(bytes);
	uint32_t *start = big_alloc(bytes / 64 * sizeof(uint32_t));
	size_t n = 0, at = 0;
	uint64_t s = 11;

	while (at + 256 + 8 <= bytes) {
		start[n++] = (uint32_t)at;
		at += 64 + lcg(&s) % 192;
	}
	for (size_t i = 0; i < bytes; i += 64)
		t[i] = (unsigned char)i;
	if (!chain) {
		wl_sink = text_lines(t, start, n, reps);
	} else {
		for (size_t i = 0; i < n; i++) {
			void *next = t + start[(i + 1) % n];

			memcpy(t + start[i], &next, sizeof(next));
		}
		wl_sink = (uintptr_t)hop_lines((void *const *)t, (long)n * reps);
	}
	munmap(start, bytes / 64 * sizeof(uint32_t));
	munmap(t, bytes);
}

/* a branch on random bits: half of them mispredicted */
__attribute__((noinline)) uint64_t branchy(const uint32_t *v, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i] & 1)
			s += v[i] >> 3;
		else
			s ^= v[i] * 7;
	}
	return s;
}

/* A loop of 1,000 turns, outer times: its branch taken 999 times in a
 * row, then not; the exit missed by any predictor without a loop's
 * count, the rest by none */
__attribute__((noinline)) uint64_t long_loop(long outer)
{
	uint64_t s = 0;

	for (long r = 0; r < outer; r++)
		for (int i = 0; i < 1000; i++) {
			s += (uint64_t)(i ^ r);
			__asm__ volatile("" : "+r"(s));	/* one turn an iteration */
		}
	return s;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void fill_u32(uint32_t *v, size_t n, uint64_t *s)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)lcg(s);
}

static uint32_t *random_u32(size_t n)
{
	uint32_t *v = malloc(n * sizeof(*v));
	uint64_t s = 7;

	if (!v)
		exit(2);
	fill_u32(v, n, &s);
	return v;
}

/* libc's qsort (glibc's merge sort, cmp_u32 through a pointer) of 64 Ki
 * random keys, reps times, each over fresh keys: keys and qsort's buffer
 * (256 KiB each) stay in a 1 MiB L2, and the first touches are setup that
 * a second scale of 2 or more cancels (the keys; glibc's qsort mallocs its
 * buffer each call: the first an mmap, which raises malloc's threshold
 * when freed, the second on the heap's, the same from then on): two
 * scales differ in the number of sorts only */
#define SORT_KEYS (64u << 10)

__attribute__((noinline)) void sort_kernel(long reps)
{
	uint32_t *v = random_u32(SORT_KEYS);
	uint64_t s = 11;

	for (long r = 0; r < reps; r++) {
		if (r)
			fill_u32(v, SORT_KEYS, &s);
		qsort(v, SORT_KEYS, sizeof(*v), cmp_u32);
		wl_sink += v[SORT_KEYS / 2];
	}
	free(v);
}

/* an interpreter's dispatch: one indirect jump (a switch's table) over a
 * program of 13 operations run again and again; a predictor that follows
 * the path predicts every jump, one of the last target (callgrind's)
 * misses every one */
__attribute__((noinline)) uint64_t interp(long n)
{
	static const unsigned char prog[13] = { 3, 0, 7, 1, 9, 4, 11, 2, 6, 8, 5, 10, 1 };
	uint64_t a = 1, b = 2, c = 3;

	for (long i = 0; i < n; i++) {
		switch (prog[i % 13]) {
		case 0: a += 1; break;
		case 1: b ^= a; break;
		case 2: c += b; break;
		case 3: a -= c; break;
		case 4: b += 3; break;
		case 5: c ^= 7; break;
		case 6: a += b; break;
		case 7: b -= c; break;
		case 8: c += a; break;
		case 9: a ^= 5; break;
		case 10: b += c; break;
		default: c -= 1; break;
		}
		__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c));
	}
	return a + b + c;
}

static void *thread_main(void *arg)
{
	wl_dsink = lat_chain(20000 * (long)(intptr_t)arg);
	return NULL;
}

/* three threads of lat_chain: Valgrind runs them one at a time */
static void threads_kernel(long sc)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)sc))
			exit(2);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
}

/* straight code past any L1I: 4096 updates of two registers, about 50
 * KiB with no branch, run again and again; every line of it an I1 miss on
 * a sequential path, fetched ahead (record --model prices those apart
 * from a miss a jump leads to) */
#define BC1 a = a * 3 + b; b ^= a >> 3; __asm__ volatile("" : "+r"(a), "+r"(b));
#define BC4 BC1 BC1 BC1 BC1
#define BC16 BC4 BC4 BC4 BC4
#define BC64 BC16 BC16 BC16 BC16
#define BC256 BC64 BC64 BC64 BC64
#define BC1024 BC256 BC256 BC256 BC256
__attribute__((noinline)) uint64_t bigcode(long n)
{
	uint64_t a = 1, b = 2;

	for (long i = 0; i < n; i++) {
		BC1024 BC1024 BC1024 BC1024
	}
	return a + b;
}

/* touch's loop twice over: touch_variant runs touch_native natively and
 * touch_valgrind under Valgrind (whose LD_PRELOAD names its vgpreload),
 * as an ifunc's resolver picks a variant by CPU features Valgrind hides:
 * the native run's page faults are at code Valgrind never ran
 * (tests/e2e/model.sh). They differ so that no pass merges them. */
__attribute__((noinline)) void touch_native(volatile char *p, size_t bytes)
{
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = 1;
}

__attribute__((noinline)) void touch_valgrind(volatile char *p, size_t bytes)
{
	for (size_t i = bytes; i >= 4096; i -= 4096)
		p[i - 4096] = 2;
}

static void touch_variant(size_t bytes)
{
	const char *pre = getenv("LD_PRELOAD");
	volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);

	if (p == MAP_FAILED)
		exit(2);
	if (pre && strstr(pre, "vgpreload"))
		touch_valgrind(p, bytes);
	else
		touch_native(p, bytes);
	munmap((void *)p, bytes);
}

/* A byte a page of p read: the first touches of pages the kernel filled. */
__attribute__((noinline)) uint64_t touch_scan(const volatile char *p, size_t bytes)
{
	uint64_t s = 0;

	for (size_t i = 0; i < bytes; i += 4096)
		s += (unsigned char)p[i];
	return s;
}

/* touch_read: SCALE MiB filled by read() from /dev/zero (the kernel faults
 * its pages in, copying: no fault of the program's), then read a byte a
 * page by touch_scan; touch_remap: SCALE times, 1 MiB mapped, a byte a
 * page written by touch_loop, unmapped (the same address again, a fault a
 * page each time). Both for the model's first touches (model.sh). */
__attribute__((noinline)) void touch_loop(volatile char *p, size_t bytes)
{
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = 3;
}

static void touch_read(size_t bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *z = fopen("/dev/zero", "rb");

	if (p == MAP_FAILED || !z || fread(p, 1, bytes, z) != bytes)
		exit(2);
	fclose(z);
	wl_sink += touch_scan(p, bytes);
	munmap(p, bytes);
}

static void touch_remap(long times)
{
	for (long r = 0; r < times; r++) {
		volatile char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit(2);
		touch_loop(p, 1 << 20);
		munmap((void *)p, 1 << 20);
	}
}

/* fill_lines: a line at a time, each page's in turn, the pages in a
 * fixed random order (no stride from one page to the next); scan_file
 * reads so. For the model's first touches of memory of no file, whose
 * lines the kernel's fault wrote, and of a file's (model.sh). */
__attribute__((noinline)) void fill_lines(char *p, size_t pages, uint64_t *s)
{
	size_t *ord = malloc(pages * sizeof(*ord));

	if (!ord)
		exit(2);
	for (size_t i = 0; i < pages; i++)
		ord[i] = i;
	for (size_t i = pages - 1; i > 0; i--) {
		size_t j = lcg(s) % (i + 1), t = ord[i];

		ord[i] = ord[j];
		ord[j] = t;
	}
	for (size_t i = 0; i < pages; i++)
		for (size_t l = 0; l < 4096; l += 64)
			*(volatile uint64_t *)(p + ord[i] * 4096 + l) = i + l;
	free(ord);
}

__attribute__((noinline)) uint64_t scan_file(const char *p, size_t pages)
{
	uint64_t t = 0;

	for (size_t i = 0; i < pages; i++) {
		size_t pg = (i * 40503) % pages;	/* odd, pages a power of 2: each once */

		for (size_t l = 0; l < 4096; l += 64)
			t += *(const volatile uint64_t *)(p + pg * 4096 + l);
	}
	return t;
}

static void file_scan(long times)
{
	size_t pages = 1024, bytes = pages * 4096;
	FILE *f = tmpfile();
	char *buf = calloc(1, bytes), *p;

	if (!f || !buf || fwrite(buf, 1, bytes, f) != bytes || fflush(f))
		exit(2);
	free(buf);
	for (long r = 0; r < times; r++) {
		p = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fileno(f), 0);
		if (p == MAP_FAILED)
			exit(2);
		wl_sink += scan_file(p, pages);
		munmap(p, bytes);
	}
	fclose(f);
}

static void run(const char *k, long sc)
{
	if (!strcmp(k, "lat_chain"))
		wl_dsink = lat_chain(200000 * sc);
	else if (!strcmp(k, "indep_fp"))
		wl_dsink = indep_fp(50000 * sc);
	else if (!strcmp(k, "fp_add"))
		wl_dsink = fp_add(50000 * sc);
	else if (!strcmp(k, "chase_l1"))
		chase_kernel(16 << 10, 200000 * sc);
	else if (!strcmp(k, "chase_l2"))
		chase_kernel(256 << 10, 200000 * sc);
	else if (!strcmp(k, "chase_idx_l2"))
		chase_index_kernel(256 << 10, 200000 * sc);
	else if (!strcmp(k, "chase_l3"))
		chase_kernel(8 << 20, 200000 * sc);
	else if (!strcmp(k, "chase_dram"))
		chase_kernel(256 << 20, 100000 * sc);
	else if (!strcmp(k, "stream_l1"))
		stream_kernel(16 << 10, 100 * (int)sc);
	else if (!strcmp(k, "stream_dram"))
		stream_kernel(64 << 20, (int)sc);
	else if (!strcmp(k, "chase_seq"))
		chase_seq_kernel(64 << 20, 1000000 * sc);
	else if (!strcmp(k, "sweep_lines"))
		lines_kernel(64 << 20, (int)sc, false, false);
	else if (!strcmp(k, "scatter_lines"))
		lines_kernel(64 << 20, (int)sc, true, false);
	else if (!strcmp(k, "decide_lines"))
		lines_kernel(64 << 20, (int)sc, true, true);
	else if (!strcmp(k, "text_lines"))
		text_kernel(64 << 20, (int)sc, false);
	else if (!strcmp(k, "hop_lines"))
		text_kernel(64 << 20, (int)sc, true);
	else if (!strcmp(k, "branchy")) {
		uint32_t *v = random_u32(200000);

		for (long r = 0; r < sc; r++)
			wl_sink += branchy(v, 200000);
		free(v);
	} else if (!strcmp(k, "pattern") || !strcmp(k, "pattern16k") ||
		   !strcmp(k, "pattern64k")) {
		/* branchy's branch on a fixed random pattern of 1, 16 or 64 Ki
		 * bits, repeated: 200 Ki turns a SCALE (bench/predictor); a
		 * predictor over long histories learns the shorter ones */
		size_t n = !strcmp(k, "pattern16k") ? 16384 : !strcmp(k, "pattern64k") ? 65536 : 1024;
		uint32_t *v = random_u32(n);

		for (long r = 0; r < (long)(200 * 1024 / n) * sc; r++)
			wl_sink += branchy(v, n);
		free(v);
	} else if (!strcmp(k, "long_loop")) {
		wl_sink += long_loop(1000 * sc);
	} else if (!strcmp(k, "touch")) {
		/* the first touch of SCALE MiB, a byte a page: what a page
		 * fault costs the user time (bench/model) */
		size_t bytes = (size_t)sc << 20;
		volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit(2);
		for (size_t i = 0; i < bytes; i += 4096)
			p[i] = 1;
		munmap((void *)p, bytes);
	} else if (!strcmp(k, "touch_variant")) {
		touch_variant((size_t)sc << 20);
	} else if (!strcmp(k, "touch_read")) {
		touch_read((size_t)sc << 20);
	} else if (!strcmp(k, "fill_lines")) {
		uint64_t seed = 42;

		for (long r = 0; r < sc; r++) {
			char *p = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				exit(2);
			fill_lines(p, 4096, &seed);
			munmap(p, 16 << 20);
		}
	} else if (!strcmp(k, "scan_file")) {
		file_scan(sc);
	} else if (!strcmp(k, "touch_remap")) {
		touch_remap(sc);
	} else if (!strcmp(k, "threads")) {
		threads_kernel(sc);
	} else if (!strcmp(k, "interp")) {
		wl_sink = interp(200000 * sc);
	} else if (!strcmp(k, "bigcode")) {
		wl_sink = bigcode(20 * sc);
	} else if (!strcmp(k, "clock")) {
		wl_sink = clock_chain(1000000 * sc);
	} else if (!strcmp(k, "sort"))
		sort_kernel(sc);
	else {
		fprintf(stderr, "wl-model: unknown kernel '%s'\n", k);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static const char *const all[] = { "lat_chain", "indep_fp", "chase_l1", "chase_l2",
					   "branchy", "sort", "stream_l1" };
	long sc = argc > 2 ? atol(argv[2]) : 1;

	if (sc < 1)
		sc = 1;
	if (argc < 2 || !strcmp(argv[1], "all")) {
		for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			run(all[i], sc);
		return 0;
	}
	run(argv[1], sc);
	return 0;
}
