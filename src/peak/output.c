/*
 * The results as a terminal table and as JSON, and where they are kept per
 * machine so that reports (the roofline) can use them.
 */
#include "config.h"

#include "peak-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double gflops(const struct peak_result *r, const struct peak_insn *i)
{
	return i->flops && i->tput.min > 0 ? i->flops / i->tput.min * r->ghz : 0;
}

static double gbps(const struct peak_result *r, const struct peak_insn *i)
{
	return i->bytes && i->tput.min > 0 ? i->bytes / i->tput.min * r->ghz : 0;
}

static void human_size(char *buf, size_t len, size_t n)
{
	if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= (1u << 20))
		snprintf(buf, len, "%.1f MiB", n / 1048576.0);
	else
		snprintf(buf, len, "%zu KiB", n >> 10);
}

/* each instruction's latency and throughput, the documented figures
 * beside them, and what limits each */
static void print_insns(const struct peak_result *r, struct strbuf *sb)
{
	const char *fam = NULL;
	double dl, di;

	strbuf__addf(sb, "\n%-14s %-16s %9s %9s %9s %8s %11s  %s\n", "instruction", "encoding",
		     "latency", "cyc/insn", "insn/cyc", "p90", "GFLOP/s", "documented");
	for (size_t i = 0; i < r->nr_insns; i++) {
		const struct peak_insn *in = &r->insns[i];
		char lat[16] = "-", extra[24] = "", doc[48] = "";

		if (in->has_lat)
			snprintf(lat, sizeof(lat), "%.2f", in->lat.min);
		if (in->flops)
			snprintf(extra, sizeof(extra), "%11.1f", gflops(r, in));
		else if (in->bytes)
			snprintf(extra, sizeof(extra), "%6.1f GB/s", gbps(r, in));
		else
			snprintf(extra, sizeof(extra), "%11s", "");
		/* The vendor's figures beside ours, where we know them. */
		if (peak_expected(in->name, &fam, &dl, &di))
			snprintf(doc, sizeof(doc), "  lat %g, %g/cycle (%s)", dl, di, fam);
		strbuf__addf(sb, "%-14s %-16s %9s %9.3f %9.2f %8.3f %s%s\n", in->name, in->insn,
			     lat, in->tput.min, 1 / in->tput.min, in->tput.p90, extra, doc);
	}
	strbuf__addf(sb, "(latency and cyc/insn: min of %u samples; p90 of cyc/insn)\n",
		     r->insns[0].tput.n);
	for (size_t i = 0; i < r->nr_insns; i++) {
		char *why = peak_limit(&r->insns[i]);

		if (why)
			strbuf__addf(sb, "limit: %s\n", why);
		free(why);
	}
}

/* the memory's bandwidth, alone and shared, and its latency */
static void print_memory(const struct peak_result *r, struct strbuf *sb)
{
	if (r->nr_bw) {
		strbuf__addf(sb, "\n%-6s %-10s %7s %10s %10s %10s %10s\n", "level", "set/thread",
			     "threads", "read", "write", "copy", "triad");
		for (size_t i = 0; i < r->nr_bw;) {
			const struct peak_bw *b = &r->bw[i];
			char ws[24];
			size_t j;

			human_size(ws, sizeof(ws), b->ws);
			strbuf__addf(sb, "%-6s %-10s %7d", b->level, ws, b->threads);
			for (j = i; j < r->nr_bw && r->bw[j].level == b->level &&
				    r->bw[j].threads == b->threads; j++)
				strbuf__addf(sb, " %10.1f", r->bw[j].gbps);
			strbuf__addf(sb, "\n");
			i = j;
		}
		strbuf__addf(sb, "(GB/s, best of the samples; copy and triad count every array)\n");
	}
	if (r->nr_contention) {
		strbuf__addf(sb, "\n%-6s %7s %10s %10s\n", "shared", "cores", "GB/s", "per core");
		for (size_t i = 0; i < r->nr_contention; i++) {
			const struct peak_bw *b = &r->contention[i];

			strbuf__addf(sb, "%-6s %7d %10.1f %10.1f\n", b->level, b->threads, b->gbps,
				     b->gbps / b->threads);
		}
	}
	if (r->nr_chase) {
		strbuf__addf(sb, "\n%-10s %8s %8s\n", "latency", "ns", "cycles");
		for (size_t i = 0; i < r->nr_chase; i++) {
			char ws[24];

			human_size(ws, sizeof(ws), r->chase[i].bytes);
			strbuf__addf(sb, "%-10s %8.2f %8.1f\n", ws, r->chase[i].ns, r->chase[i].cycles);
		}
	}
	if (r->nr_tlb) {
		char ws[24];

		human_size(ws, sizeof(ws), r->tlb[0].lines * 64);
		strbuf__addf(sb, "\n%-10s %8s %8s   (a ring of %s in L2 over more 4 KiB pages)\n",
			     "TLB pages", "ns", "cycles", ws);
		for (size_t i = 0; i < r->nr_tlb; i++)
			strbuf__addf(sb, "%-10zu %8.2f %8.1f\n", r->tlb[i].pages, r->tlb[i].ns,
				     r->tlb[i].cycles);
	}
}

/* the costs of a mispredicted branch, an instruction-cache miss and a page's
 * first touch */
static void print_costs(const struct peak_result *r, struct strbuf *sb)
{
	if (r->has_branch)
		strbuf__addf(sb, "\nbranch mispredict %.1f cycles (a branch on a loaded byte: "
			     "%.2f cycles an iteration predicted, %.2f when half are missed)\n",
			     r->branch.mispredict, r->branch.predicted, r->branch.random);
	if (r->has_branch && r->branch.has_indirect)
		strbuf__addf(sb, "indirect jump: %.2f cycles an iteration to one target, %.2f to a "
			     "sequence of 13 (%.0f%% of them missed: %s), %.2f at random\n",
			     r->branch.ind_same, r->branch.ind_pattern,
			     100 * r->branch.ind_pattern_missed,
			     r->branch.ind_pattern_missed < 0.25 ? "predicted from the path" :
			     "the last target only", r->branch.ind_random);
	if (r->has_icache)
		strbuf__addf(sb, "\ninstruction-cache miss %.1f cycles (a predicted jump: %.2f cycles "
			     "to a line in L1I, %.2f to one in L2 only), %.1f on a sequential path "
			     "(%.2f cycles a line of straight code in L1I, %.2f in L2 only)\n",
			     r->icache.l1i_miss, r->icache.hit_cycles, r->icache.miss_cycles,
			     r->icache.l1i_seq_miss, r->icache.seq_hit_cycles,
			     r->icache.seq_miss_cycles);
	if (r->has_page)
		strbuf__addf(sb, "%spage first touch %.2f us of user time (%.0f cycles), %.2f us of "
			     "system time (%.0f pages; %s)\n", r->has_icache ? "" : "\n",
			     r->page.user_ns / 1e3, r->page.cycles, r->page.system_ns / 1e3,
			     r->page.pages, r->page.by_populate ?
			     "the user's side: the first touch of pages the kernel filled" :
			     "split by the tick: this kernel cannot fill pages ahead");
}

void peak_result__print(const struct peak_result *r, struct strbuf *sb)
{
	const struct peak_machine *m = &r->machine;

	strbuf__addf(sb, "Machine: %s (%s), %d CPUs (%d cores)%s\n", m->cpu, m->arch,
		     m->logical_cpus, m->cores, m->hypervisor ? ", virtual machine" : "");
	strbuf__addf(sb, "ISA:     %s", m->isa);
	if (m->sve_bits)
		strbuf__addf(sb, " (SVE %d bits)", m->sve_bits);
	strbuf__addf(sb, "\nClock:   %.3f GHz measured (add chain; %u calibrations, %.3f-%.3f, "
		     "max drift %.1f%%)\n", r->ghz, r->clock_ghz.n, r->clock_ghz.p90,
		     r->clock_ghz.min, 100 * r->max_drift);
	if (r->nr_insns)
		print_insns(r, sb);
	if (r->nr_mixes) {
		strbuf__addf(sb, "\n%-12s %8s %8s %8s %6s  %s\n", "mix", "A", "B", "A+B", "ratio",
			     "issue together");
		for (size_t i = 0; i < r->nr_mixes; i++) {
			const struct peak_mix *x = &r->mixes[i];

			strbuf__addf(sb, "%-12s %8.2f %8.2f %8.2f %6.2f  %s\n", x->name, x->a, x->b,
				     x->ab, x->ratio, x->verdict);
		}
		strbuf__addf(sb, "(cycles per round; ratio = (A + B) / (A+B): 2 parallel, 1 shared)\n");
	}
	print_memory(r, sb);
	print_costs(r, sb);
	if (r->nr_skipped) {
		strbuf__addf(sb, "\nSkipped:\n");
		for (size_t i = 0; i < r->nr_skipped; i++)
			strbuf__addf(sb, "  %-14s %s\n", r->skipped[i].name, r->skipped[i].why);
	}
	for (size_t i = 0; i < r->nr_warnings; i++)
		strbuf__addf(sb, "%swarning: %s\n", i ? "" : "\n", r->warnings[i]);
}

static json_t *stat_json(const struct peak_stat *s)
{
	return json_pack("{s:f, s:f, s:f, s:i}", "min", s->min, "median", s->median, "p90", s->p90,
			 "samples", (json_int_t)s->n);
}

static json_t *bw_json(const struct peak_bw *b)
{
	return json_pack("{s:s, s:s, s:I, s:i, s:f, s:f, s:f, s:f}", "kernel", b->kernel, "level",
			 b->level, "working_set", (json_int_t)b->ws, "threads", b->threads,
			 "gbps", b->gbps, "gbps_median", b->gbps_median, "gbps_p90", b->gbps_p90,
			 "gbps_per_core", b->gbps / b->threads);
}

static json_t *machine_json(const struct peak_machine *m)
{
	json_t *caches = json_array();

	for (int i = 0; i < m->nr_caches; i++)
		json_array_append_new(caches, json_pack("{s:i, s:s, s:I, s:i}", "level",
							m->caches[i].level, "type", m->caches[i].type,
							"size", (json_int_t)m->caches[i].size,
							"shared_by", m->caches[i].shared));
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o, s:b, s:s}", "hostname",
			 m->hostname, "cpu", m->cpu, "arch", m->arch, "isa", m->isa,
			 "logical_cpus", m->logical_cpus, "cores", m->cores, "sve_bits", m->sve_bits,
			 "caches", caches, "hypervisor", m->hypervisor, "governor", m->governor);
}

static json_t *insn_json(const struct peak_result *r, const struct peak_insn *in)
{
	json_t *t = json_pack("{s:s, s:s, s:s, s:s, s:i, s:f, s:f, s:o, s:f, s:f, s:f}",
			      "name", in->name, "group", in->group, "isa", in->isa,
			      "instruction", in->insn, "bits", in->bits, "flops_per_instr",
			      in->flops, "bytes_per_instr", in->bytes, "throughput",
			      stat_json(&in->tput), "cycles_per_instr", in->tput.min,
			      "instr_per_cycle", 1 / in->tput.min, "drift", in->drift);

	json_object_set_new(t, "latency", in->has_lat ? stat_json(&in->lat) : json_null());
	json_object_set_new(t, "latency_cycles", in->has_lat ? json_real(in->lat.min) :
						 json_null());
	if (in->flops)
		json_object_set_new(t, "gflops", json_real(gflops(r, in)));
	if (in->bytes)
		json_object_set_new(t, "gbps", json_real(gbps(r, in)));
	{
		const char *fam;
		double dl, di;

		if (peak_expected(in->name, &fam, &dl, &di))
			json_object_set_new(t, "documented",
					    json_pack("{s:s, s:f, s:f}", "family", fam,
						      "latency_cycles", dl,
						      "instr_per_cycle", di));
	}
	if (in->ref_insn) {
		char *why = peak_limit(in);

		json_object_set_new(t, "reference",
				    json_pack("{s:s, s:f, s:f}", "instruction", in->ref_insn,
					      "cycles_per_instr", in->ref.min,
					      "instr_per_cycle", 1 / in->ref.min));
		if (why)
			json_object_set_new(t, "limit", json_string(why));
		free(why);
	}
	return t;
}

/* the branch's, the instruction cache's and the page's costs, null where
 * not measured */
static void costs_json(json_t *root, const struct peak_result *r)
{
	json_object_set_new(root, "branch", !r->has_branch ? json_null() :
			    json_pack("{s:f, s:f, s:f, s:o}", "predicted_cycles", r->branch.predicted,
				      "random_cycles", r->branch.random, "mispredict_cycles",
				      r->branch.mispredict, "indirect", !r->branch.has_indirect ?
				      json_null() :
				      json_pack("{s:f, s:f, s:f, s:f}", "same_cycles",
						r->branch.ind_same, "pattern_cycles",
						r->branch.ind_pattern, "random_cycles",
						r->branch.ind_random, "pattern_missed",
						r->branch.ind_pattern_missed)));
	json_object_set_new(root, "icache", !r->has_icache ? json_null() :
			    json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "hit_cycles",
				      r->icache.hit_cycles, "miss_cycles", r->icache.miss_cycles,
				      "l1i_miss_cycles", r->icache.l1i_miss, "seq_hit_cycles",
				      r->icache.seq_hit_cycles, "seq_miss_cycles",
				      r->icache.seq_miss_cycles, "l1i_seq_miss_cycles",
				      r->icache.l1i_seq_miss));
	json_object_set_new(root, "page", !r->has_page ? json_null() :
			    json_pack("{s:f, s:f, s:f, s:f, s:s}", "pages", r->page.pages,
				      "user_ns", r->page.user_ns, "cycles", r->page.cycles, "system_ns",
				      r->page.system_ns, "split", r->page.by_populate ? "populate" :
				      "ticks"));
}

json_t *peak_result__to_json(const struct peak_result *r)
{
	json_t *root = json_object(), *a;

	json_object_set_new(root, "schema", json_string(GX_PEAK_SCHEMA));
	json_object_set_new(root, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(root, "machine", machine_json(&r->machine));
	json_object_set_new(root, "quick", json_boolean(r->quick));
	json_object_set_new(root, "seconds", json_real(r->seconds));
	json_object_set_new(root, "clock", json_pack("{s:f, s:f, s:f, s:f, s:i, s:f}", "ghz", r->ghz,
						      "max", r->clock_ghz.min, "median",
						      r->clock_ghz.median, "p10", r->clock_ghz.p90,
						      "calibrations", (json_int_t)r->clock_ghz.n,
						      "max_drift", r->max_drift));
	a = json_array();
	for (size_t i = 0; i < r->nr_insns; i++)
		json_array_append_new(a, insn_json(r, &r->insns[i]));
	json_object_set_new(root, "tests", a);
	a = json_array();
	for (size_t i = 0; i < r->nr_mixes; i++) {
		const struct peak_mix *x = &r->mixes[i];

		json_array_append_new(a, json_pack("{s:s, s:f, s:f, s:f, s:f, s:s}", "name", x->name,
						   "a_cycles", x->a, "b_cycles", x->b, "ab_cycles",
						   x->ab, "ratio", x->ratio, "together", x->verdict));
	}
	json_object_set_new(root, "mixes", a);
	a = json_array();
	for (size_t i = 0; i < r->nr_bw; i++)
		json_array_append_new(a, bw_json(&r->bw[i]));
	json_object_set_new(root, "bandwidth", a);
	a = json_array();
	for (size_t i = 0; i < r->nr_contention; i++)
		json_array_append_new(a, bw_json(&r->contention[i]));
	json_object_set_new(root, "contention", a);
	a = json_array();
	for (size_t i = 0; i < r->nr_chase; i++)
		json_array_append_new(a, json_pack("{s:I, s:f, s:f}", "bytes",
						   (json_int_t)r->chase[i].bytes, "ns",
						   r->chase[i].ns, "cycles", r->chase[i].cycles));
	json_object_set_new(root, "latency", a);
	a = json_array();
	for (size_t i = 0; i < r->nr_tlb; i++)
		json_array_append_new(a, json_pack("{s:I, s:I, s:f, s:f}", "pages",
						   (json_int_t)r->tlb[i].pages, "lines",
						   (json_int_t)r->tlb[i].lines, "ns", r->tlb[i].ns,
						   "cycles", r->tlb[i].cycles));
	json_object_set_new(root, "tlb", a);
	costs_json(root, r);
	a = json_array();
	for (size_t i = 0; i < r->nr_skipped; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "name", r->skipped[i].name, "reason",
						   r->skipped[i].why));
	json_object_set_new(root, "skipped", a);
	a = json_array();
	for (size_t i = 0; i < r->nr_warnings; i++)
		json_array_append_new(a, json_string(r->warnings[i]));
	json_object_set_new(root, "warnings", a);
	return root;
}

char *peak_cache_path(void)
{
	char *base = gx_cache_dir(), *path;
	struct peak_machine m;

	if (!base)
		return NULL;
	peak_machine_detect(&m);
	path = xasprintf("%s/peak-%s-%08llx.json", base, m.hostname,
			 (unsigned long long)(gx_hash(m.cpu, strlen(m.cpu)) & 0xffffffffu));
	free(base);
	return path;
}

int peak_save(const json_t *json, const char *path, char **cause)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *tmp = NULL;
	int err = 0;

	if (slash && slash != dir) {
		*slash = '\0';
		err = gx_mkdir_p(dir);
		if (err) {
			err = gx_fail(cause, err, "creating %s: %s", dir, strerror(-err));
			goto out;
		}
	}
	/* Write then rename: a reader never sees half a file. */
	tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	if (json_dump_file(json, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) != 0) {
		err = gx_fail(cause, -EIO, "writing %s failed", tmp);
		goto out;
	}
	if (rename(tmp, path) != 0) {
		err = gx_fail(cause, -errno, "renaming %s: %s", tmp, strerror(errno));
		unlink(tmp);
	}
out:
	free(tmp);
	free(dir);
	return err;
}
