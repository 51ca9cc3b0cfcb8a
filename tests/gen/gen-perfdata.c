/*
 * gen-perfdata: writes a result directory as if recorded on a CPU with a
 * PMU, for testing the hardware paths on machines without one.
 *
 *   gen-perfdata -o DIR [-b BINARY] < SPEC
 *
 * SPEC lines:
 *   model ID [VARIANT]      top-down model (events/ID.json), first line
 *   smt on|off
 *   process PID COMM        following events belong to this process
 *   function NAME           ... and to this function of BINARY (optional)
 *   EVENT COUNT             event id of the model and its count there
 *
 * Each (process, function, event) becomes 100 samples whose periods sum to
 * COUNT exactly (COUNT must be a multiple of 100), at addresses in BINARY
 * mapped at 0x400000: the first bytes of the function's symbol when one is
 * named, else a fixed spread; meta.json carries the per-event totals as
 * counting reads. Event attrs are those the collector builds for the model's own
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

#define NR_SAMPLES 100
#define MAP_START 0x400000ULL
#define MAX_EV 64
#define MAX_PROC 16
#define MAX_SLOT 64

struct proc {
	uint32_t pid;
	char comm[16];
};

/* Where samples of one process land: a function's address, or 0 for the
 * default spread. */
struct slot {
	size_t proc;
	uint64_t ip;
	uint64_t count[MAX_EV];
};

/* The address a symbol of BINARY has when BINARY is mapped at MAP_START
 * from file offset 0. 0 when not found. */
static uint64_t symbol_ip(const char *binary, const char *name)
{
	int fd = open(binary, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	uint64_t vaddr = 0, ip = 0;
	size_t nph;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !vaddr && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name) && sym.st_value) {
				vaddr = sym.st_value;
				break;
			}
		}
	}
	if (vaddr && elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
				ip = MAP_START + vaddr - ph.p_vaddr + ph.p_offset;
				break;
			}
		}
	elf_end(e);
	close(fd);
	return ip;
}

static int die(const char *what, const char *cause)
{
	fprintf(stderr, "gen-perfdata: %s: %s\n", what, cause ? cause : "failed");
	return 2;
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
	struct slot slots[MAX_SLOT];
	size_t nproc = 0, nev = 0, nslot = 0;
	int ev_model[MAX_EV];
	struct pd_evsel evs[MAX_EV];
	struct perf_writer *w;
	struct gx_meta meta;
	struct pd_env env = { 0 };
	char variant[32] = "";
	int smt = 0, c;
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
	memset(procs, 0, sizeof(procs));
	memset(slots, 0, sizeof(slots));
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
		} else if (!strcmp(a, "process")) {
			if (nproc == MAX_PROC || sscanf(line, "process %llu %127s", &n, b) != 2)
				return die("process", line);
			procs[nproc].pid = (uint32_t)n;
			snprintf(procs[nproc].comm, sizeof(procs[nproc].comm), "%s", b);
			if (nslot == MAX_SLOT)
				return die("too many functions", line);
			slots[nslot++].proc = nproc;
			nproc++;
		} else if (!strcmp(a, "function")) {
			if (!nproc || nslot == MAX_SLOT || sscanf(line, "function %127s", b) != 1)
				return die("function (after a process line)", line);
			slots[nslot].proc = nproc - 1;
			slots[nslot].ip = symbol_ip(binary, b);
			if (!slots[nslot].ip)
				return die("no such function in the binary", b);
			nslot++;
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
			slots[nslot - 1].count[k] += n;
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
		for (size_t p = 0; p < nslot; p++)
			meta.events[k].count += slots[p].count[k];
		meta.events[k].time_enabled = meta.events[k].time_running = 1000000000;
		collect_events__free(ce, nce);
		strbuf__exit(&spec);
	}

	if (gx_result__create(dir, NULL, &path, &cause))
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
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_gen;
			uint32_t prot, flags;
			char name[256];
		} mm;
		size_t nl = strlen(binary) + 1;

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

		memset(&mm, 0, sizeof(mm));
		mm.h.type = PERF_RECORD_MMAP2;
		mm.h.misc = PERF_RECORD_MISC_USER;
		mm.pid = mm.tid = procs[p].pid;
		mm.addr = MAP_START;
		mm.len = 0x100000;
		mm.prot = 5;
		mm.flags = 2;
		memcpy(mm.name, binary, nl < sizeof(mm.name) ? nl : sizeof(mm.name) - 1);
		mm.h.size = (uint16_t)(offsetof(__typeof__(mm), name) + ((nl + 7) & ~(size_t)7));
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
	for (size_t q = 0; q < nslot; q++)
		for (size_t k = 0; k < nev; k++) {
			const struct slot *sl = &slots[q];
			size_t p = sl->proc;

			if (!sl->count[k])
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
					.ip = sl->ip ? sl->ip + (uint64_t)(i % 4) :
						MAP_START + 0x1000 + (uint64_t)(i % 64) * 4,
					.pid = procs[p].pid,
					.tid = procs[p].pid,
					.time = t++,
					.period = sl->count[k] / NR_SAMPLES,
				};
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
	gx_meta__exit(&meta);
	pd_env__exit(&env);
	td_model__delete(m);
	return 0;
}
