/*
 * gen-brstack: writes a perf.data whose samples carry branch stacks, as a
 * PMU with LBR would record them, for tests on machines without one
 * (tests/e2e/flow.sh).
 *
 *   gen-brstack -o FILE [-x] < SPEC
 *
 * SPEC lines:
 *   binary PATH           the ELF mapped at 0x555555554000 (pgoff 0): a
 *                         module address A is at 0x555555554000 + A
 *   stack IP E1 E2 ...    one sample at module address IP; its entries
 *                         newest first, each FROM>TO with options after
 *                         ':' - m mispredicted, cN N cycles, w a
 *                         speculative wrong-path entry (AMD's spec field),
 *                         k FROM and TO kernel addresses (unmapped)
 * -x: with PERF_SAMPLE_BRANCH_HW_INDEX (a hw_idx before the entries).
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/util.h"
#include "gen-records.h"

#define BASE 0x555555554000ULL
#define KBASE 0xffffffff81000000ULL
#define PID 4242
#define MAX_ENTRIES 64

static void put(struct perf_writer *w, const void *rec, size_t len)
{
	if (perf_writer__write(w, rec, len) != 0) {
		fprintf(stderr, "gen-brstack: write failed\n");
		exit(2);
	}
}

static void put_maps(struct perf_writer *w, const char *binary)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
	} comm = { { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(comm) }, PID, PID, "brstack" };
	struct gen_mmap2 mm;

	put(w, &comm, sizeof(comm));
	gen_mmap2(&mm, PID, BASE, 0x200000, binary);
	put(w, &mm, mm.h.size);
}

/* One "FROM>TO[:opts]" into an entry; false when it is not one. */
static bool parse_entry(const char *s, uint64_t e[3])
{
	char *end;
	uint64_t from = strtoull(s, &end, 0), to, flags = 0, base = BASE;

	if (*end != '>')
		return false;
	to = strtoull(end + 1, &end, 0);
	while (*end == ':') {
		end++;
		if (*end == 'm')
			flags |= 1, end++;
		else if (*end == 'w')
			flags |= (uint64_t)1 << 24, end++;	/* spec: wrong path */
		else if (*end == 'k')
			base = KBASE, end++;
		else if (*end == 'c')
			flags |= (strtoull(end + 1, &end, 0) & 0xffff) << 4;
		else
			return false;
	}
	e[0] = base + from, e[1] = base + to, e[2] = flags;
	return !*end;
}

static int sample(struct perf_writer *w, char *line, bool hw_idx, uint64_t t)
{
	uint64_t rec[8 + 3 * MAX_ENTRIES], n = 0;
	struct perf_event_header *h = (void *)rec;
	size_t k = 1, nr_at;
	char *tok = strtok(line, " \t\n");

	if (!tok)
		return -1;
	rec[k++] = BASE + strtoull(tok, NULL, 0);		/* IP */
	rec[k++] = (uint64_t)PID << 32 | PID;			/* TID */
	rec[k++] = t;						/* TIME */
	rec[k++] = 100003;					/* PERIOD */
	nr_at = k++;						/* nr */
	if (hw_idx)
		rec[k++] = 0;
	while ((tok = strtok(NULL, " \t\n")) && n < MAX_ENTRIES) {
		if (!parse_entry(tok, &rec[k]))
			return -1;
		k += 3, n++;
	}
	rec[nr_at] = n;
	*h = (struct perf_event_header){ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
					 (uint16_t)(k * 8) };
	put(w, rec, k * 8);
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	char line[4096], *cause = NULL, *binary = NULL;
	bool hw_idx = false;
	struct pd_evsel ev;
	struct perf_writer *w = NULL;
	struct pd_env env = { 0 };
	uint64_t t = 1000000;
	int c;

	while ((c = getopt(argc, argv, "o:x")) != -1)
		if (c == 'o')
			out = optarg;
		else if (c == 'x')
			hw_idx = true;
		else
			return 2;
	if (!out)
		return 2;
	memset(&ev, 0, sizeof(ev));
	ev.attr.type = PERF_TYPE_HARDWARE;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.config = PERF_COUNT_HW_CPU_CYCLES;
	ev.attr.sample_period = 100003;
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;
	ev.attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
				     (hw_idx ? PERF_SAMPLE_BRANCH_HW_INDEX : 0);
	ev.attr.exclude_kernel = 1;
	ev.attr.mmap = ev.attr.comm = 1;
	ev.attr.mmap2 = 1;
	ev.name = xstrdup("cycles");
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "binary ", 7)) {
			binary = xstrdup(line + 7);
			binary[strcspn(binary, "\n")] = 0;
			if (perf_writer__new(&w, out, &ev, 1, &cause)) {
				fprintf(stderr, "gen-brstack: %s: %s\n", out, cause);
				return 2;
			}
			put_maps(w, binary);
		} else if (!strncmp(line, "stack ", 6) && w) {
			if (sample(w, line + 6, hw_idx, t++)) {
				fprintf(stderr, "gen-brstack: bad line: %s", line);
				return 2;
			}
		} else if (line[0] != '#' && line[0] != '\n') {
			fprintf(stderr, "gen-brstack: bad line: %s", line);
			return 2;
		}
	}
	if (!w)
		return 2;
	env.hostname = xstrdup("synthetic");
	env.osrelease = xstrdup("6.0.0-synthetic");
	env.arch = xstrdup("x86_64");
	env.nr_cpus_online = env.nr_cpus_avail = 1;
	if (perf_writer__finish(w, &env, &cause)) {
		fprintf(stderr, "gen-brstack: %s\n", cause);
		return 2;
	}
	perf_writer__delete(w);
	pd_env__exit(&env);
	free(ev.name);
	free(binary);
	return 0;
}
