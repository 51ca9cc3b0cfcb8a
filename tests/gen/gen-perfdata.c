/*
 * gen-perfdata: writes a result directory as if recorded on a CPU with a
 * PMU, for testing the hardware paths on machines without one.
 *
 *   gen-perfdata -o DIR [-b BINARY] < SPEC
 *
 * SPEC lines:
 *   model ID [VARIANT]      top-down model (events/ID.json), first line
 *   smt on|off
 *   system-wide             recorded with -a (every SMT sibling measured)
 *   process PID COMM        following events belong to this process
 *   function NAME           ... and, until the next one, to this function
 *                           of BINARY (found in its symbol table)
 *   function NAME+OFFSET    ... all at that one address (OFFSET in bytes,
 *                           0x for hex): samples placed on a chosen line
 *   EVENT COUNT             event id of the model and its count there
 *   running EVENT PCT       event EVENT (of the model) counted PCT% of the
 *                           time it was enabled, as when the kernel
 *                           multiplexes it: meta.json's time_running (its
 *                           counts above are what it counted, not the truth)
 *   region NAME             the process's samples are all in region NAME
 *                           (gexplore-regions(3)): regions.bin gets a
 *                           begin before its first and an end after its
 *                           last, on its thread
 *
 * Each (process, event) becomes 100 samples whose periods sum to COUNT
 * exactly (COUNT must be a multiple of 100), at addresses in BINARY
 * mapped at 0x400000; meta.json carries the per-event totals as counting
 * reads. Event attrs are those the collector builds for the model's own
 * spelling of the event (libpfm4 names encode with LIBPFM_ENCODE_INACTIVE).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "perfdata/perfdata.h"
#include "topdown/topdown.h"
#include "util/util.h"
#include "gen-records.h"

#define NR_SAMPLES 100
#define MAP_START 0x400000ULL
#define MAX_EV 64
#define MAX_PROC 16

#define MAX_FN 8

struct proc {
	uint32_t pid;
	char comm[16];
	uint64_t count[MAX_FN][MAX_EV];	/* per function slot, per event */
	uint64_t ip[MAX_FN];		/* first address of each function slot */
	bool exact[MAX_FN];		/* all samples at ip, not spread over 8 bytes */
	size_t nr_fn;
	char region[64];		/* "": in none */
	uint64_t t0, t1;		/* its first and last sample time */
};

/* The file offset of function `name` in the ELF file at path (what a
 * mapping at pgoff 0 puts at map start + offset), or 0. */
static uint64_t function_offset(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	uint64_t value = 0, off = 0;
	size_t nph;

	if (fd < 0 || gx_libelf__open(NULL)) {	/* util's table: opened before any elf_* */
		if (fd >= 0)
			close(fd);
		return 0;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    !strcmp(n, name) && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
				value = sym.st_value;
		}
	}
	if (e && value && elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    value >= ph.p_vaddr && value < ph.p_vaddr + ph.p_filesz)
				off = value - ph.p_vaddr + ph.p_offset;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return off;
}

/* exit(2), not a return from main: what main holds stays reachable from
 * its frame, so LeakSanitizer reports no leak on an error path */
static int die(const char *what, const char *cause)
{
	fprintf(stderr, "gen-perfdata: %s: %s\n", what, cause ? cause : "failed");
	exit(2);
}

static void put(struct perf_writer *w, const void *rec, size_t len)
{
	if (perf_writer__write(w, rec, len) != 0) {
		fprintf(stderr, "gen-perfdata: write failed\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *binary = "/bin/true";
	char line[512], *cause = NULL, *path;
	struct td_model *m = NULL;
	struct proc procs[MAX_PROC];
	size_t nproc = 0, nev = 0;
	int ev_model[MAX_EV];
	struct pd_evsel evs[MAX_EV];
	struct perf_writer *w;
	struct gx_meta meta;
	struct pd_env env = { 0 };
	char variant[32] = "";
	int smt = 0, c;
	bool system_wide = false;
	uint64_t t = 1000000, id_base = 1000;

	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	while ((c = getopt(argc, argv, "o:b:")) != -1) {
		if (c == 'o')
			dir = optarg;
		else if (c == 'b')
			binary = optarg;
		else
			return 2;
	}
	if (!dir)
		return die("usage", "gen-perfdata -o DIR [-b BINARY] < SPEC");
	char run_ev[MAX_EV][128];	/* running EVENT PCT */
	double run_pct[MAX_EV];
	size_t nrun = 0;

	memset(procs, 0, sizeof(procs));
	while (fgets(line, sizeof(line), stdin)) {
		char a[128], b[128] = "";
		unsigned long long n;

		if (sscanf(line, "%127s", a) != 1 || a[0] == '#')
			continue;
		if (!strcmp(a, "model")) {
			if (sscanf(line, "model %127s %31s", a, variant) < 1 ||
			    td_model__load(a, NULL, &m, &cause))
				return die("model", cause);
		} else if (!strcmp(a, "smt")) {
			smt = strstr(line, "on") ? 1 : 0;
		} else if (!strcmp(a, "system-wide")) {
			system_wide = true;
		} else if (!strcmp(a, "process")) {
			if (nproc == MAX_PROC || sscanf(line, "process %llu %127s", &n, b) != 2)
				return die("process", line);
			procs[nproc].pid = (uint32_t)n;
			snprintf(procs[nproc].comm, sizeof(procs[nproc].comm), "%s", b);
			procs[nproc].ip[0] = MAP_START + 0x1000;
			procs[nproc].nr_fn = 1;
			nproc++;
		} else if (!strcmp(a, "running")) {
			double pct;

			if (nrun == MAX_EV || sscanf(line, "running %127s %lf", b, &pct) != 2 ||
			    !(pct > 0 && pct <= 100))
				return die("running", line);
			snprintf(run_ev[nrun], sizeof(run_ev[nrun]), "%s", b);
			run_pct[nrun++] = pct;
		} else if (!strcmp(a, "region")) {
			if (!nproc || sscanf(line, "region %63s", procs[nproc - 1].region) != 1)
				return die("region", line);
		} else if (!strcmp(a, "function")) {
			struct proc *p = &procs[nproc ? nproc - 1 : 0];
			uint64_t off, plus = 0;
			char *at = NULL;

			if (!nproc || sscanf(line, "function %127s", b) != 1)
				return die("function not found in the binary", line);
			if ((at = strchr(b, '+'))) {
				*at++ = 0;
				plus = strtoull(at, NULL, 0);
			}
			if (!(off = function_offset(binary, b)))
				return die("function not found in the binary", line);
			if (p->nr_fn == MAX_FN)
				return die("too many functions", b);
			/* the first function replaces the default slot when unused */
			if (p->nr_fn == 1 && !p->count[0][0] && p->ip[0] == MAP_START + 0x1000) {
				bool used = false;

				for (size_t k = 0; k < MAX_EV; k++)
					used |= p->count[0][k] != 0;
				if (!used)
					p->nr_fn = 0;
			}
			p->exact[p->nr_fn] = at != NULL;
			p->ip[p->nr_fn++] = MAP_START + off + plus;
		} else if (m && nproc && sscanf(line, "%127s %llu", a, &n) == 2) {
			int mi = td_model__find_event(m, a);
			size_t k;

			if (mi < 0)
				return die("no such event in the model", a);
			if (n % NR_SAMPLES)
				return die("count not a multiple of 100", line);
			for (k = 0; k < nev && ev_model[k] != mi; k++)
				;
			if (k == nev) {
				if (nev == MAX_EV)
					return die("too many events", a);
				ev_model[nev++] = mi;
			}
			procs[nproc - 1].count[procs[nproc - 1].nr_fn - 1][k] += n;
		} else {
			return die("bad line", line);
		}
	}
	if (!m || !nproc || !nev)
		return die("spec", "needs a model, a process and an event");

	/* attrs exactly as the collector builds them for the model's spelling */
	gx_meta__init(&meta);
	meta.gexplore_version = xstrdup(PACKAGE_VERSION);
	meta.cpu_model = xstrdup(td_model__id(m));
	meta.cpu_variant = variant[0] ? xstrdup(variant) : NULL;
	meta.smt = smt;
	meta.system_wide = system_wide;
	meta.pmu = true;
	meta.exited = true;
	meta.events = xcalloc(nev, sizeof(*meta.events));
	meta.nr_events = nev;
	for (size_t k = 0; k < nev; k++) {
		const struct td_event *te = td_model__event(m, (size_t)ev_model[k]);
		struct strbuf spec = STRBUF_INIT;
		struct collect_event *ce;
		size_t nce;

		td_event__spec(te, &spec);
		if (collect_parse_events(spec.buf, NULL, &ce, &nce, &cause) != 0 || nce != 1)
			return die(spec.buf, cause);
		memset(&evs[k], 0, sizeof(evs[k]));
		evs[k].attr = ce[0].attr;
		evs[k].attr.sample_type |= PERF_SAMPLE_PERIOD;
		if (!evs[k].attr.sample_period)
			evs[k].attr.sample_period = 100003;
		evs[k].attr.mmap = evs[k].attr.comm = evs[k].attr.task = k == 0;
		evs[k].name = xstrdup(te->id);
		evs[k].ids = xcalloc(1, sizeof(uint64_t));
		evs[k].ids[0] = id_base + k;
		evs[k].nr_ids = 1;
		meta.events[k].name = xstrdup(te->id);
		meta.events[k].sav = evs[k].attr.sample_period;
		meta.events[k].group = -1;
		meta.events[k].has_count = true;
		for (size_t p = 0; p < nproc; p++)
			for (size_t f = 0; f < procs[p].nr_fn; f++)
				meta.events[k].count += procs[p].count[f][k];
		meta.events[k].time_enabled = meta.events[k].time_running = 1000000000;
		for (size_t r = 0; r < nrun; r++)
			if (!strcmp(run_ev[r], te->id))
				meta.events[k].time_running = (uint64_t)(1e7 * run_pct[r] + 0.5);
		collect_events__free(ce, nce);
		strbuf__exit(&spec);
	}

	if (pd_result_dir__create(dir, NULL, 0, &path, NULL, &cause))
		return die(dir, cause);
	free(path);
	path = xasprintf("%s/perf.data", dir);
	if (perf_writer__new(&w, path, evs, nev, &cause))
		return die(path, cause);
	for (size_t p = 0; p < nproc; p++) {
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			char comm[16];
			uint64_t trailer[4];	/* id, tid, time, cpu... per sample_type */
		} comm;
		struct gen_mmap2 mm;

		/* No sample_id_all trailer needed: the generator's attrs keep
		 * sample_id_all, so write the IDENTIFIER-led trailer fields. */
		memset(&comm, 0, sizeof(comm));
		comm.h.type = PERF_RECORD_COMM;
		comm.h.misc = PERF_RECORD_MISC_COMM_EXEC;
		comm.pid = comm.tid = procs[p].pid;
		snprintf(comm.comm, sizeof(comm.comm), "%s", procs[p].comm);
		{
			/* trailer in sample_type order: TID, TIME, CPU, IDENTIFIER */
			uint64_t *tr = comm.trailer;

			tr[0] = (uint64_t)procs[p].pid << 32 | procs[p].pid;
			tr[1] = t++;
			tr[2] = 0;
			tr[3] = id_base;
		}
		comm.h.size = sizeof(comm);
		put(w, &comm, sizeof(comm));

		gen_mmap2(&mm, procs[p].pid, MAP_START, 0x100000, binary);
		{
			char buf[512];
			uint64_t tr[4] = { (uint64_t)procs[p].pid << 32 | procs[p].pid, t++, 0, id_base };

			memcpy(buf, &mm, mm.h.size);
			memcpy(buf + mm.h.size, tr, sizeof(tr));
			((struct perf_event_header *)buf)->size = (uint16_t)(mm.h.size + sizeof(tr));
			put(w, buf, mm.h.size + sizeof(tr));
		}
	}
	/* samples: IDENTIFIER, IP, TID, TIME, CPU, PERIOD */
	for (size_t p = 0; p < nproc; p++)
		for (size_t f = 0; f < procs[p].nr_fn; f++)
		for (size_t k = 0; k < nev; k++) {
			if (!procs[p].count[f][k])
				continue;
			for (int i = 0; i < NR_SAMPLES; i++) {
				struct {
					struct perf_event_header h;
					uint64_t id, ip;
					uint32_t pid, tid;
					uint64_t time;
					uint32_t cpu, res;
					uint64_t period;
				} s = {
					.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
					.id = id_base + k,
					.ip = procs[p].ip[f] + (procs[p].exact[f] ? 0 : (uint64_t)(i % 8)),
					.pid = procs[p].pid,
					.tid = procs[p].pid,
					.time = t++,
					.period = procs[p].count[f][k] / NR_SAMPLES,
				};
				if (!procs[p].t0)
					procs[p].t0 = s.time;
				procs[p].t1 = s.time;
				put(w, &s, sizeof(s));
			}
		}
	env.hostname = xstrdup("synthetic");
	env.osrelease = xstrdup("6.0.0-synthetic");
	env.arch = xstrdup("x86_64");
	env.cpudesc = xstrdup(td_model__name(m));
	env.nr_cpus_online = env.nr_cpus_avail = 1;
	if (perf_writer__finish(w, &env, &cause))
		return die("finish", cause);
	perf_writer__delete(w);
	meta.start_ns = 1000000;
	meta.end_ns = t;
	meta.duration_s = 1.0;
	if (gx_meta__write(&meta, dir, &cause))
		return die("meta.json", cause);
	for (size_t p = 0; p < nproc; p++) {
		static struct pd_regions_writer *rw;
		char *rp = xasprintf("%s/" PD_REGIONS_FILE, dir);

		if (procs[p].region[0] && !rw && pd_regions_writer__new(&rw, AT_FDCWD, rp, &cause))
			return die("regions.bin", cause);
		free(rp);
		if (procs[p].region[0] &&
		    (pd_regions_writer__add(rw, procs[p].t0 - 1, procs[p].pid, procs[p].pid,
					    PD_MARK_BEGIN, 1, procs[p].region) ||
		     pd_regions_writer__add(rw, procs[p].t1 + 1, procs[p].pid, procs[p].pid,
					    PD_MARK_END, 1, procs[p].region)))
			return die("regions.bin", "add");
		if (rw && p + 1 == nproc) {
			if (pd_regions_writer__finish(rw, 0, &cause))
				return die("regions.bin", cause);
			pd_regions_writer__delete(rw);
		}
	}
	gx_meta__exit(&meta);
	pd_env__exit(&env);
	td_model__delete(m);
	for (size_t k = 0; k < nev; k++) {
		free(evs[k].name);
		free(evs[k].ids);
	}
	free(path);
	return 0;
}
