/*
 * report-offcpu.c: the off-CPU part of a report (record --off-cpu): each
 * thread's and process's time on and off the CPU with the reasons of its
 * waits, and the functions and lines that entered them (text, JSON, and
 * the columns CSV appends).
 */
#include "config.h"

#include "report-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct off_proc {
	uint32_t pid;
	const char *comm;
	uint64_t life_ns, off_ns, reason_ns[PROFILE_OFF_NR_];
	size_t threads;
};

struct profile_offcpu *report__offcpu(struct gx_result *in)
{
	struct profile_offcpu *oc = gx_result__offcpu(in);

	return oc && profile_offcpu__has_switches(oc) ? oc : NULL;
}

static uint64_t life_ns(const struct profile_off_thread *t)
{
	uint64_t l = t->end > t->start ? t->end - t->start : 0;

	return l > t->off_ns ? l : t->off_ns;
}

/* The processes, in order of their first thread. The caller frees. */
static struct off_proc *off_procs(struct profile_offcpu *oc, size_t *nr)
{
	size_t nt = profile_offcpu__nr_threads(oc), n = 0;
	struct off_proc *v = xcalloc(nt + 1, sizeof(*v));

	for (size_t i = 0; i < nt; i++) {
		const struct profile_off_thread *t = profile_offcpu__thread(oc, i);
		size_t j;

		for (j = 0; j < n && v[j].pid != t->pid; j++)
			;
		if (j == n) {
			v[n].pid = t->pid;
			v[n].comm = t->comm;
			n++;
		}
		if (t->tid == t->pid)
			v[j].comm = t->comm;
		v[j].life_ns += life_ns(t);
		v[j].off_ns += t->off_ns;
		for (int r = 0; r < PROFILE_OFF_NR_; r++)
			v[j].reason_ns[r] += t->reason_ns[r];
		v[j].threads++;
	}
	*nr = n;
	return v;
}

static int dominant(const uint64_t *reason_ns)
{
	int best = PROFILE_OFF_OTHER;

	for (int r = 0; r < PROFILE_OFF_NR_; r++)
		if (reason_ns[r] > reason_ns[best])
			best = r;
	return best;
}

void report__offcpu_totals(struct profile_offcpu *oc, uint64_t *life, uint64_t *off,
			   uint64_t *reason_ns)
{
	*life = *off = 0;
	memset(reason_ns, 0, PROFILE_OFF_NR_ * sizeof(*reason_ns));
	for (size_t i = 0; i < profile_offcpu__nr_threads(oc); i++) {
		const struct profile_off_thread *t = profile_offcpu__thread(oc, i);

		*life += life_ns(t);
		*off += t->off_ns;
		for (int r = 0; r < PROFILE_OFF_NR_; r++)
			reason_ns[r] += t->reason_ns[r];
	}
}

static const char *const methods[][2] = {
	{ "switch+sample+proc", "context switches; stacks sampled at each switch-out, reasons "
				"read from /proc while each wait lasted" },
	{ "switch+sample", "context switches; stacks sampled at each switch-out; a wait's "
			   "reason is cpu when preempted, else other" },
	{ "switch+proc", "context switches; reasons and stacks read from /proc while each "
			 "wait lasted" },
	{ "switch", "context switches only: a wait's reason is cpu when preempted, else other" },
};

const char *report__offcpu_method(struct gx_result *in)
{
	const struct gx_meta *m = gx_result__meta(in);

	for (size_t i = 0; m && m->off_cpu && i < ARRAY_SIZE(methods); i++)
		if (!strcmp(m->off_cpu, methods[i][0]))
			return methods[i][0];
	return "switch";
}

static const char *method_words(const char *method)
{
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
		if (!strcmp(method, methods[i][0]))
			return methods[i][1];
	return methods[ARRAY_SIZE(methods) - 1][1];
}

/* The thread's or process's off-CPU figures for CSV, or NULL. */
const struct profile_off_thread *report__off_thread(struct gx_result *in, uint32_t tid)
{
	struct profile_offcpu *oc = report__offcpu(in);

	for (size_t i = 0; oc && i < profile_offcpu__nr_threads(oc); i++)
		if (profile_offcpu__thread(oc, i)->tid == tid)
			return profile_offcpu__thread(oc, i);
	return NULL;
}

/* Off-CPU time inside the instances of region name_idx: each instance's
 * overlap with its thread's spans off the CPU, summed. */
double report__offcpu_region_s(struct gx_result *in, size_t name_idx)
{
	struct profile_offcpu *oc = report__offcpu(in);
	const struct profile_off_span *sp;
	uint64_t ns = 0;
	size_t n;

	if (!oc)
		return NAN;
	sp = profile_offcpu__spans(oc, &n);
	for (size_t i = 0; i < gx_result__nr_regions(in); i++) {
		const struct gx_region *g = gx_result__region(in, i);

		if (g->name_idx != name_idx)
			continue;
		for (size_t k = 0; k < n; k++) {
			uint64_t a = sp[k].start > g->begin ? sp[k].start : g->begin;
			uint64_t b = sp[k].end < g->end ? sp[k].end : g->end;

			if (sp[k].tid == g->tid && b > a)
				ns += b - a;
		}
	}
	return (double)ns / 1e9;
}

static void text_regions(struct strbuf *sb, struct gx_result *in)
{
	size_t n = gx_result__nr_region_names(in);

	if (!n)
		return;
	strbuf__addstr(sb, "  region            time_s off_cpu_s\n");
	for (size_t i = 0; i < n; i++) {
		const struct gx_region_name *rn = gx_result__region_name(in, i);

		strbuf__addf(sb, "  %-14.14s %9.3f %9.3f\n", gx_esc(rn->name),
			     (double)rn->total_ns / 1e9, report__offcpu_region_s(in, i));
	}
}

/* The reasons' column heads, each 9 wide. */
static void text_reason_heads(struct strbuf *sb)
{
	for (int r = 0; r < PROFILE_OFF_NR_; r++)
		strbuf__addf(sb, " %8s", profile_off_reason__name(r));
	strbuf__addstr(sb, "\n");
}

static void text_reasons(struct strbuf *sb, const uint64_t *reason_ns)
{
	for (int r = 0; r < PROFILE_OFF_NR_; r++)
		strbuf__addf(sb, " %8.3f", (double)reason_ns[r] / 1e9);
}

void report__text_offcpu(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	struct profile_offcpu *oc = report__offcpu(in);
	const struct gx_meta *m = gx_result__meta(in);
	uint64_t life, off, reason_ns[PROFILE_OFF_NR_];
	const struct profile_row *const *rows;
	struct off_proc *procs;
	size_t np, nr, shown, ev;
	int dom;

	if (!oc)
		return;
	report__offcpu_totals(oc, &life, &off, reason_ns);
	dom = dominant(reason_ns);
	strbuf__addf(sb, "\nOff-CPU (%s", method_words(report__offcpu_method(in)));
	if (m && m->off_cpu_min_us)
		strbuf__addf(sb, "; waits under %u us have no stack", m->off_cpu_min_us);
	strbuf__addstr(sb, ")\n");
	if (life) {
		double share = (double)off / (double)life;

		strbuf__addf(sb, "  the threads were off the CPU %.0f%% of their %.3f s, most of it "
			     "%s (%.3f s)%s\n", 100 * share, (double)life / 1e9,
			     profile_off_reason__name(dom), (double)reason_ns[dom] / 1e9,
			     share > 0.5 ? ": the program mostly waits" : "");
	}
	/* what the prober could not classify is said, never a silent
	 * 'other' (issue 45: 43% to 96% at 1,000 to 3,000 threads) */
	if (off && reason_ns[PROFILE_OFF_OTHER] * 20 > off)
		strbuf__addf(sb, "  %.0f%% of the off-CPU time (%.3f s) was not classified (other): "
			     "waits %s\n", 100.0 * (double)reason_ns[PROFILE_OFF_OTHER] / (double)off,
			     (double)reason_ns[PROFILE_OFF_OTHER] / 1e9,
			     strcmp(report__offcpu_method(in), "switch") ?
			     "that ended before the prober's next pass over the threads read them "
			     "(short waits, or many threads: a pass reads each one), or whose "
			     "syscall and kernel function name no reason" :
			     "without a switch-out sample or a probe (record --off-cpu reads them "
			     "from /proc)");
	strbuf__addstr(sb, "  process          pid  threads   life_s  on_cpu_s off_cpu_s");
	text_reason_heads(sb);
	procs = off_procs(oc, &np);
	for (size_t i = 0; i < np; i++) {
		strbuf__addf(sb, "  %-14.14s %5u %8zu %8.3f %9.3f %9.3f", gx_esc(procs[i].comm),
			     procs[i].pid, procs[i].threads, (double)procs[i].life_ns / 1e9,
			     (double)(procs[i].life_ns - procs[i].off_ns) / 1e9,
			     (double)procs[i].off_ns / 1e9);
		text_reasons(sb, procs[i].reason_ns);
		strbuf__addstr(sb, "\n");
	}
	free(procs);
	strbuf__addstr(sb, "  thread           tid   waits   life_s  on_cpu_s off_cpu_s");
	text_reason_heads(sb);
	shown = 0;
	for (size_t i = 0; i < profile_offcpu__nr_threads(oc); i++) {
		const struct profile_off_thread *t = profile_offcpu__thread(oc, i);
		uint64_t l = life_ns(t);

		if (o->limit && shown++ >= o->limit)
			break;
		strbuf__addf(sb, "  %-14.14s %5u %7" PRIu64 " %8.3f %9.3f %9.3f", gx_esc(t->comm),
			     t->tid, t->waits, (double)l / 1e9, (double)(l - t->off_ns) / 1e9,
			     (double)t->off_ns / 1e9);
		text_reasons(sb, t->reason_ns);
		strbuf__addstr(sb, "\n");
	}
	text_regions(sb, in);
	ev = gx_result__offcpu_value(in);
	rows = profile__sort(gx_result__profile(in), PROFILE_BY_FUNCTION, ev, PROFILE_SORT_TOTAL,
			     &nr);
	if (!nr || !rows[0]->total_samples[ev])
		return;
	strbuf__addstr(sb, "\nOff-CPU functions (self: waits entered there; total: with its "
			   "callees; report --event off-cpu for every table)\n"
			   "     off_cpu_s  off_cpu_total_s  function\n");
	for (size_t i = 0; i < nr && rows[i]->total_samples[ev] && (!o->limit || i < o->limit); i++)
		strbuf__addf(sb, "  %12.3f %16.3f  %s (%s)\n", (double)rows[i]->period[ev] / 1e9,
			     (double)rows[i]->total_period[ev] / 1e9, gx_esc(rows[i]->name),
			     gx_esc(report__base(rows[i]->module)));
}

static json_t *json_reasons(const uint64_t *reason_ns)
{
	json_t *o = json_object();

	for (int r = 0; r < PROFILE_OFF_NR_; r++)
		json_object_set_new(o, profile_off_reason__name(r), json_real((double)reason_ns[r] / 1e9));
	return o;
}

static json_t *json_off_rows(struct gx_result *in, enum profile_by by,
			     const struct report_opts *o)
{
	size_t nr, ev = gx_result__offcpu_value(in);
	const struct profile_row *const *rows = profile__sort(gx_result__profile(in), by, ev,
							     PROFILE_SORT_TOTAL, &nr);
	json_t *a = json_array();

	for (size_t i = 0; i < nr && rows[i]->total_samples[ev] && (!o->limit || i < o->limit);
	     i++) {
		const struct profile_row *r = rows[i];
		json_t *e = json_object();

		json_object_set_new(e, "function", json_string(gx_utf8(r->name)));
		json_object_set_new(e, "module", json_string(gx_utf8(r->module)));
		if (by == PROFILE_BY_LINE) {
			json_object_set_new(e, "file", json_string(gx_utf8(r->file)));
			json_object_set_new(e, "line", json_integer(r->line));
		}
		json_object_set_new(e, "off_cpu_s", json_real((double)r->period[ev] / 1e9));
		json_object_set_new(e, "off_cpu_total_s", json_real((double)r->total_period[ev] / 1e9));
		json_object_set_new(e, "waits", report__json_u64(r->samples[ev]));
		json_array_append_new(a, e);
	}
	return a;
}

json_t *report__json_offcpu(struct gx_result *in, const struct report_opts *o)
{
	struct profile_offcpu *oc = report__offcpu(in);
	const struct gx_meta *m = gx_result__meta(in);
	uint64_t life, off, reason_ns[PROFILE_OFF_NR_];
	json_t *root, *th = json_array(), *pr = json_array();
	struct off_proc *procs;
	size_t np;

	if (!oc) {
		json_decref(th);
		json_decref(pr);
		return json_null();
	}
	root = json_object();
	report__offcpu_totals(oc, &life, &off, reason_ns);
	json_object_set_new(root, "method", json_string(report__offcpu_method(in)));
	json_object_set_new(root, "min_us", json_integer(m ? m->off_cpu_min_us : 0));
	json_object_set_new(root, "probes", report__json_u64(m ? m->off_cpu_probes : 0));
	/* the share of the off-CPU time no reason was found for */
	json_object_set_new(root, "unclassified_share",
			    off ? json_real((double)reason_ns[PROFILE_OFF_OTHER] / (double)off) :
				  json_null());
	json_object_set_new(root, "life_s", json_real((double)life / 1e9));
	json_object_set_new(root, "off_cpu_s", json_real((double)off / 1e9));
	json_object_set_new(root, "off_cpu_share", json_real(life ? (double)off / (double)life : 0));
	json_object_set_new(root, "off_cpu_reasons", json_reasons(reason_ns));
	json_object_set_new(root, "dominant_reason",
			    json_string(profile_off_reason__name(dominant(reason_ns))));
	procs = off_procs(oc, &np);
	for (size_t i = 0; i < np; i++) {
		json_t *e = json_object();

		json_object_set_new(e, "pid", json_integer(procs[i].pid));
		json_object_set_new(e, "comm", json_string(gx_utf8(procs[i].comm)));
		json_object_set_new(e, "threads", json_integer((json_int_t)procs[i].threads));
		json_object_set_new(e, "life_s", json_real((double)procs[i].life_ns / 1e9));
		json_object_set_new(e, "on_cpu_s",
				    json_real((double)(procs[i].life_ns - procs[i].off_ns) / 1e9));
		json_object_set_new(e, "off_cpu_s", json_real((double)procs[i].off_ns / 1e9));
		json_object_set_new(e, "off_cpu_reasons", json_reasons(procs[i].reason_ns));
		json_array_append_new(pr, e);
	}
	free(procs);
	for (size_t i = 0; i < profile_offcpu__nr_threads(oc); i++) {
		const struct profile_off_thread *t = profile_offcpu__thread(oc, i);
		uint64_t l = life_ns(t);
		json_t *e = json_object();

		json_object_set_new(e, "tid", json_integer(t->tid));
		json_object_set_new(e, "pid", json_integer(t->pid));
		json_object_set_new(e, "comm", json_string(gx_utf8(t->comm)));
		json_object_set_new(e, "life_s", json_real((double)l / 1e9));
		json_object_set_new(e, "on_cpu_s", json_real((double)(l - t->off_ns) / 1e9));
		json_object_set_new(e, "off_cpu_s", json_real((double)t->off_ns / 1e9));
		json_object_set_new(e, "off_cpu_reasons", json_reasons(t->reason_ns));
		json_object_set_new(e, "dominant_reason",
				    json_string(profile_off_reason__name(dominant(t->reason_ns))));
		json_object_set_new(e, "waits", report__json_u64(t->waits));
		json_object_set_new(e, "with_stack_s", json_real((double)t->probed_ns / 1e9));
		json_object_set_new(e, "short_s", json_real((double)t->short_ns / 1e9));
		json_object_set_new(e, "switch_sampled_s", json_real((double)t->switch_ns / 1e9));
		json_array_append_new(th, e);
	}
	json_object_set_new(root, "processes", pr);
	json_object_set_new(root, "threads", th);
	json_object_set_new(root, "functions", json_off_rows(in, PROFILE_BY_FUNCTION, o));
	json_object_set_new(root, "lines", json_off_rows(in, PROFILE_BY_LINE, o));
	return root;
}
