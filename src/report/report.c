#include "config.h"

#include "report-int.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mux/mux.h"
#include "util/util.h"

const char *report_signame(int sig)
{
	static char buf[32];
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev) {
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
		return buf;
	}
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

const char *report__event_name(struct gx_result *in, size_t i)
{
	return gx_result__event(in, i)->name;
}

/* 1234567 -> "1,234,567" */
const char *report__thousands(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), o = 0;

	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Share of the run, or "" below a millisecond of run (it means nothing). */
/* A modelled result's duration: the program's modelled time (cycles over
 * its machine description's clock), the model run's own time beside it. */
static void modelled_duration(struct strbuf *sb, const struct gx_meta *m)
{
	const struct gx_meta_price *ghz = gx_meta_machine__price(&m->machine, "ghz");
	double d = m->duration_s;

	strbuf__addstr(sb, "  duration  ");
	if (d < 1e-3)
		strbuf__addf(sb, "%.1f us", d * 1e6);
	else if (d < 1)
		strbuf__addf(sb, "%.3f ms", d * 1e3);
	else
		strbuf__addf(sb, "%.3f s", d);
	strbuf__addf(sb, " modelled (cycles at machine description %s's %.2f GHz)",
		     gx_esc(m->machine.name), ghz ? ghz->value : NAN);
	if (!isnan(m->model_run_s))
		strbuf__addf(sb, "; the model run (Valgrind) took %.3f s", m->model_run_s);
	strbuf__addstr(sb, "\n");
}

static void add_share(struct strbuf *sb, double s, double duration_s)
{
	if (!(duration_s >= 1e-3))
		return;
	if (s / duration_s < 1.0)
		strbuf__addf(sb, " (%.1f%% of the run)", 100.0 * s / duration_s);
	else
		strbuf__addstr(sb, " (about all of the run)");
}

/*
 * What recording cost the workload: gexplore's own CPU and the kernel's
 * cost of the samples it took (samples x one's cost, calibrated at record
 * time), or, for a result without the calibration, gexplore's CPU and a
 * plain word that the sampling cost is left out. meta.json's times are
 * NAN when unknown (gx_meta__read checks them).
 */
static void overhead_line(struct strbuf *sb, const struct gx_meta *m)
{
	char cb[32];

	if (isnan(m->self_cpu_s)) {
		strbuf__addstr(sb, "  overhead  unknown\n");
		return;
	}
	if (isnan(m->sampling_s) || isnan(m->sample_cost_ns)) {
		strbuf__addf(sb, "  overhead  gexplore used %.3f s of CPU", m->self_cpu_s);
		add_share(sb, m->self_cpu_s, m->duration_s);
		strbuf__addstr(sb, "\n            not included: the kernel's cost of taking the "
				   "samples (not measured)\n");
		return;
	}
	strbuf__addf(sb, "  overhead  about %.3f s", m->self_cpu_s + m->sampling_s);
	add_share(sb, m->self_cpu_s + m->sampling_s, m->duration_s);
	strbuf__addf(sb, ": gexplore %.3f s of CPU\n            + the kernel's cost of "
		     "sampling %.3f s (%s samples x %.1f us, calibrated)\n", m->self_cpu_s, m->sampling_s,
		     report__thousands(m->sample_records, cb, sizeof(cb)), m->sample_cost_ns / 1e3);
}

static void add_estimate(struct strbuf *sb, const char *unit, uint64_t v)
{
	char b[40];

	if (!strcmp(unit, "ns"))
		strbuf__addf(sb, "%13.3f s", (double)v / 1e9);
	else
		strbuf__addf(sb, "%15s", report__thousands(v, b, sizeof(b)));
}

static void strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* mux's warning for every event that counted too small a share of the
 * run; a NULL-terminated array (strv_free). */
static char **running_warnings(struct gx_result *in)
{
	size_t n = gx_result__nr_events(in), k = 0;
	char **v = xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		char *w = gx_running_warning(report__event_name(in, i), gx_result__event(in, i)->running);

		if (w)
			v[k++] = w;
	}
	return v;
}

/* A value scaled by mux's rule (x scale; exact when 1). */
static uint64_t scaled_u64(double v, double scale)
{
	double x = isnan(scale) ? v : v * scale;

	return x > 0 && x < 1.8e19 ? (uint64_t)llround(x) : 0;
}

static const char *const by_title[] = { "Processes", "Threads", "Modules" };

enum profile_by report__process_by(const struct report_opts *o)
{
	return o->by_given && o->by == PROFILE_BY_PROCESS ? PROFILE_BY_PROCESS : PROFILE_BY_COMMAND;
}

const char *const report_sort_names[] = { "self", "total", "samples", "name", NULL };
const char *const report_by_names[] = { "process", "thread", "module", "function", "line",
					"callpath", NULL };

/* The threads with enough reference samples whose MUX reliability is
 * below 0.7, in one line under the multiplexing block. */
static void unreliable_threads(struct strbuf *sb, struct gx_result *in)
{
	const struct profile_row *const *rows;
	size_t nr, ref, bad = 0;
	struct strbuf list = STRBUF_INIT;

	if (!gx_result__mux(in) || !gx_result__meta(in) || gx_result__meta(in)->mux.reference < 0)
		return;
	ref = (size_t)gx_result__meta(in)->mux.reference;
	rows = profile__rows(gx_result__profile(in), PROFILE_BY_THREAD, ref, &nr);
	for (size_t i = 0; i < nr; i++) {
		double rel = gx_result__row_reliability(in, rows[i]);

		if (rows[i]->samples[ref] < 10 || isnan(rel) || rel >= MUX_UNRELIABLE)
			continue;
		strbuf__addf(&list, " %u (%.2f)", rows[i]->tid, rel);
		bad++;
	}
	if (bad)
		strbuf__addf(sb, "  %zu thread%s with MUX reliability below %.1f:%s\n", bad,
			     bad == 1 ? "" : "s", MUX_UNRELIABLE, list.buf);
	strbuf__exit(&list);
}

static void text_table(struct strbuf *sb, struct gx_result *in,
		       const struct report_opts *o, enum profile_by by)
{
	size_t nr, more, ev = o->sort_event;
	const struct profile_row *const *rows;
	char cb[32];
	bool cc;

	if (by == PROFILE_BY_FUNCTION || by == PROFILE_BY_LINE || by == PROFILE_BY_CALLPATH) {
		report__text_hotspots(sb, in, o, by);
		return;
	}
	cc = by == PROFILE_BY_MODULE && profile__has_callchains(gx_result__profile(in));
	rows = report__pick(in, o, by, false, &nr, &more);
	if (by == PROFILE_BY_COMMAND)
		strbuf__addf(sb, "\nProcesses (by %s; one row per command, --by process for each pid)\n",
			     gx_esc(report__event_name(in, ev)));
	else
		strbuf__addf(sb, "\n%s (by %s)\n", by_title[by], gx_esc(report__event_name(in, ev)));
	switch (by) {
	case PROFILE_BY_COMMAND:
		strbuf__addf(sb, "   share    samples%s  processes  command\n",
			     gx_result__mux(in) ? "   MUX" : "");
		break;
	case PROFILE_BY_PROCESS:
		strbuf__addf(sb, "   share    samples%s      pid  command\n", gx_result__mux(in) ? "   MUX" : "");
		break;
	case PROFILE_BY_THREAD:
		strbuf__addf(sb, "   share    samples%s      tid      pid  command\n",
			     gx_result__mux(in) ? "   MUX" : "");
		break;
	default:
		/* with call stacks: total = samples with the module on the stack */
		strbuf__addf(sb, "   share%s    samples  module\n", cc ? "    total" : "");
		break;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];

		strbuf__addf(sb, "  %5.1f%%", report__pct(in, o, r, false));
		if (cc)
			strbuf__addf(sb, "   %5.1f%%", report__pct(in, o, r, true));
		strbuf__addf(sb, "  %9s  ", report__thousands(r->samples[ev], cb, sizeof(cb)));
		if (gx_result__mux(in) && by != PROFILE_BY_MODULE) {
			/* MUX reliability of the row; '!' below 0.7 */
			double rel = gx_result__row_reliability(in, r);

			if (isnan(rel))
				strbuf__addstr(sb, " n/a  ");
			else
				strbuf__addf(sb, "%4.2f%c ", rel, rel < 0.7 ? '!' : ' ');
		}
		if (by == PROFILE_BY_COMMAND)
			strbuf__addf(sb, "%9u  %s\n", r->nr_procs, gx_esc(r->name));
		else if (by == PROFILE_BY_PROCESS)
			strbuf__addf(sb, "%7u  %s\n", r->pid, gx_esc(r->name));
		else if (by == PROFILE_BY_THREAD)
			strbuf__addf(sb, "%7u  %7u  %s\n", r->tid, r->pid, gx_esc(r->name));
		else
			strbuf__addf(sb, "%s\n", gx_esc(r->name));
	}
	if (more)
		strbuf__addf(sb, "  (%zu more; --limit 0 shows all)\n", more);
	if (!nr)
		strbuf__addstr(sb, "  (no samples)\n");
	free((void *)rows);
}

static bool any_hardware(struct gx_result *in)
{
	for (size_t i = 0; i < gx_result__nr_events(in); i++) {
		uint32_t t = gx_result__event(in, i)->attr->type;

		if (t != PERF_TYPE_SOFTWARE && t != PERF_TYPE_TRACEPOINT)
			return true;
	}
	return false;
}

/* the markers line: how many, and how many the program's ring lost */
static void text_markers(struct strbuf *sb, struct gx_result *in)
{
	const struct gx_meta *m = gx_result__meta(in);
	uint64_t mlost = gx_result__markers_lost(in);
	char cb[32];

	if (m && m->markers_lost > mlost)
		mlost = m->markers_lost;
	if (gx_result__nr_markers(in) || mlost) {
		strbuf__addf(sb, "  markers   %s",
			     report__thousands(gx_result__nr_markers(in), cb, sizeof(cb)));
		strbuf__addf(sb, ", lost %s%s\n", report__thousands(mlost, cb, sizeof(cb)),
			     mlost ? " (the program's ring was full, or its regions nested "
				     "deeper than 64: regions may be cut short)" : "");
	}
}

/* the heading: what ran, how it ended, for how long, on what, and what was lost */
static void text_heading(struct strbuf *sb, struct gx_result *in)
{
	const struct gx_meta *m = gx_result__meta(in);
	const struct pd_env *env = gx_result__env(in);
	const struct pd_stats *st = perf_reader__stats(gx_result__reader(in));
	char cb[32];

	strbuf__addf(sb, "gexplore report: %s", gx_esc(gx_result__path(in)));
	if (gx_result__incomplete(in))
		strbuf__addf(sb, " (INCOMPLETE: %s)", gx_result__incomplete(in));
	else if (gx_result__stopped(in))
		strbuf__addf(sb, " (%s)", gx_result__stopped(in));
	strbuf__addstr(sb, "\n");
	if (m && m->argv && m->argc) {
		strbuf__addstr(sb, "  command   ");
		for (uint32_t i = 0; i < m->argc; i++)
			strbuf__addf(sb, "%s%s", i ? " " : "", gx_esc(m->argv[i]));
		strbuf__addstr(sb, "\n");
	} else if (env->cmdline && env->nr_cmdline) {
		strbuf__addstr(sb, "  recorded  ");
		for (uint32_t i = 0; i < env->nr_cmdline; i++)
			strbuf__addf(sb, "%s%s", i ? " " : "", gx_esc(env->cmdline[i]));
		strbuf__addstr(sb, "\n");
	}
	if (m && m->target_pid)
		strbuf__addf(sb, "  attached  pid %d\n", m->target_pid);
	if (m && m->argv) {
		if (m->term_signal)
			strbuf__addf(sb, "  exit      killed by %s\n", report_signame(m->term_signal));
		else if (m->exited)
			strbuf__addf(sb, "  exit      %d\n", m->exit_code);
	}
	if (m && m->modelled && m->machine.name && !isnan(m->duration_s))
		modelled_duration(sb, m);
	else if (m && !isnan(m->duration_s))
		strbuf__addf(sb, "  duration  %.3f s\n", m->duration_s);
	else if (m)
		strbuf__addstr(sb, "  duration  unknown\n");
	else if (st->last_time > st->first_time)
		strbuf__addf(sb, "  duration  %.3f s (first to last sample)\n",
			     (double)(st->last_time - st->first_time) / 1e9);
	report__text_region_line(sb, in);
	if (env->cpudesc || env->hostname)
		strbuf__addf(sb, "  machine   %s%s%s%s%s\n", env->hostname ? gx_esc(env->hostname) : "",
			     env->hostname && env->cpudesc ? ", " : "",
			     env->cpudesc ? gx_esc(env->cpudesc) : "",
			     env->osrelease ? ", Linux " : "", env->osrelease ? gx_esc(env->osrelease) : "");
	strbuf__addf(sb, "  samples   %s", report__thousands(st->nr_samples, cb, sizeof(cb)));
	strbuf__addf(sb, ", lost %s in %" PRIu64 " LOST record%s\n",
		     report__thousands(st->nr_lost + st->nr_lost_samples, cb, sizeof(cb)),
		     st->nr_lost_records, st->nr_lost_records == 1 ? "" : "s");
	text_markers(sb, in);
	if (m)
		overhead_line(sb, m);
}

/* the events table: samples, estimated and counted for each */
static void text_events(struct strbuf *sb, struct gx_result *in)
{
	const struct gx_meta *m = gx_result__meta(in);
	size_t nev = gx_result__nr_events(in);
	char cb[32];
	int w = 22;

	for (size_t i = 0; i < nev; i++) {
		int l = (int)strlen(report__event_name(in, i));

		w = l > w ? (l > 60 ? 60 : l) : w;
	}
	strbuf__addf(sb, "\nEvents\n  %-*s     samples      estimated        counted\n", w, "event");
	for (size_t i = 0; i < nev; i++) {
		const struct gx_meta_event *me = m && i < m->nr_events ? &m->events[i] : NULL;

		strbuf__addf(sb, "  %-*s %11s  ", w, gx_esc(report__event_name(in, i)),
			     report__thousands(profile__total_samples(gx_result__profile(in), i), cb, sizeof(cb)));
		const struct gx_event *ge = gx_result__event(in, i);

		/* multiplexed: both scaled by its running share, which follows
		 * as perf stat prints it */
		add_estimate(sb, ge->unit, scaled_u64((double)profile__total_period(gx_result__profile(in), i),
						      ge->scale));
		if (me && me->has_count)
			add_estimate(sb, ge->unit, isfinite(ge->run_value) && ge->counted &&
				     !gx_result__narrowed(in) ? scaled_u64(ge->run_value, 1.0) : me->count);
		else if (ge->multiplexed)
			strbuf__addf(sb, "%15s", "");
		if (ge->multiplexed) {
			strbuf__addstr(sb, "  ");
			gx_format_running(sb, ge->running);
		}
		strbuf__addstr(sb, "\n");
	}
}

/* the tables of the profile, or why there are none; off-CPU and top-down after */
static void text_tables(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	size_t nev = gx_result__nr_events(in);

	if (gx_result__nr_region_names(in) && !gx_result__narrowed(in))
		report__text_regions(sb, in, o);
	if (nev && profile__total_samples(gx_result__profile(in), o->sort_event)) {
		if (o->by_given) {
			text_table(sb, in, o, o->by);
		} else {
			text_table(sb, in, o, PROFILE_BY_COMMAND);
			text_table(sb, in, o, PROFILE_BY_THREAD);
			text_table(sb, in, o, PROFILE_BY_MODULE);
			text_table(sb, in, o, PROFILE_BY_FUNCTION);
			report__text_mem_summary(sb, in, o);
		}
	} else {
		strbuf__addstr(sb, "\nNo samples: the workload may have ended before the first sample;\n"
				   "raise the rate (-F, -c or --rate) or run it longer.\n");
	}
	report__text_offcpu(sb, in, o);
	if (!any_hardware(in))
		strbuf__addstr(sb, "\nTop-down: needs hardware counters; this recording has software "
				   "events only\n(the time hotspots above do not need them).\n");
	else
		report_topdown_text(sb, in, o);
}

static void text_warnings(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	const struct gx_meta *m = gx_result__meta(in);
	const char *why = NULL;
	uint64_t nuw = profile__unwind_failures(gx_result__profile(in), &why);
	uint64_t ndw, copy, ncut = profile__stacks_cut(gx_result__profile(in), &ndw, &copy);
	bool cut = ncut && ncut * 100 >= ndw;	/* 1% or more */
	char **low = running_warnings(in);
	size_t nw = perf_reader__nr_warnings(gx_result__reader(in)) + (m ? m->nr_warnings : 0) +
		    !!nuw + cut;

	for (char **l = low; *l; l++)
		nw++;
	if (nw)
		strbuf__addstr(sb, "\nWarnings\n");
	for (char **l = low; *l; l++)
		strbuf__addf(sb, "  - %s\n", gx_esc(*l));
	strv_free(low);
	if (m && m->nr_warnings && o->warnings_said)
		strbuf__addf(sb, "  - the recording's %zu warning%s, said above as it ran (also "
			     "in meta.json)\n", m->nr_warnings, m->nr_warnings == 1 ? "" : "s");
	for (size_t i = 0; m && !o->warnings_said && i < m->nr_warnings; i++)
		strbuf__addf(sb, "  - %s\n", gx_esc(m->warnings[i]));
	for (size_t i = 0; i < perf_reader__nr_warnings(gx_result__reader(in)); i++)
		strbuf__addf(sb, "  - %s\n", gx_esc(perf_reader__warning(gx_result__reader(in), i)));
	if (cut)
		strbuf__addf(sb, "  - %" PRIu64 " of %" PRIu64 " stacks (%.0f%%) stop short: their "
			     "callers lay above the %" PRIu64 "-byte stack copy; record with a "
			     "larger one (--call-graph dwarf,%" PRIu64 ")\n", ncut, ndw,
			     100.0 * (double)ncut / (double)ndw, copy,
			     copy >= 32768 ? 65528 : copy * 4 > 65528 ? 65528 : copy * 4);
	if (nuw)
		strbuf__addf(sb, "  - %" PRIu64 " sample%s could not be unwound (%s); their "
			     "stacks stop at the sampled function\n",
			     nuw, nuw == 1 ? "" : "s", why ? gx_esc(why) : "unknown reason");
}

int report_text(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	const struct gx_meta *m = gx_result__meta(in);

	text_heading(sb, in);
	text_events(sb, in);
	if (m && m->mux.mode && strcmp(m->mux.mode, "none")) {
		strbuf__addstr(sb, "\n");
		mux_meta__render(m, sb);
		unreliable_threads(sb, in);
	}
	if (o->by_region)
		return report__text_regions(sb, in, o);
	if (o->by_tree) {
		report__text_calltree(sb, in, o);
		return 0;
	}
	if (o->by_flow)
		return report__text_flow(sb, in, o);
	if (o->mem_by != REPORT_MEM_NONE)
		return report__text_mem(sb, in, o);
	text_tables(sb, in, o);
	report__text_flow_hint(sb, in);
	text_warnings(sb, in, o);
	return 0;
}

json_t *report__json_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *json_rows(struct gx_result *in, const struct report_opts *o,
			 enum profile_by by)
{
	size_t nr, more, nev = perf_reader__nr_evsels(gx_result__reader(in));
	const struct profile_row *const *rows = report__pick(in, o, by, true, &nr, &more);
	json_t *a = json_array();

	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];
		json_t *o2 = json_object(), *s = json_array(), *p = json_array();

		if (by == PROFILE_BY_MODULE) {
			json_object_set_new(o2, "module", json_string(gx_utf8(r->name)));
		} else {
			json_object_set_new(o2, "pid", json_integer(r->pid));
			if (by == PROFILE_BY_THREAD)
				json_object_set_new(o2, "tid", json_integer(r->tid));
			json_object_set_new(o2, "comm", json_string(gx_utf8(r->name)));
			if (by != PROFILE_BY_THREAD)
				json_object_set_new(o2, "processes",
						    json_integer(by == PROFILE_BY_COMMAND ? r->nr_procs : 1));
		}
		for (size_t e = 0; e < nev; e++) {
			json_array_append_new(s, report__json_u64(r->samples[e]));
			json_array_append_new(p, report__json_u64(r->period[e]));
		}
		json_object_set_new(o2, "share", json_real(report__pct(in, o, r, false) / 100));
		if (gx_result__mux(in)) {
			double rel = gx_result__row_reliability(in, r);

			json_object_set_new(o2, "mux_reliability",
					    pd_json_real(rel));
		}
		json_object_set_new(o2, "samples", s);
		json_object_set_new(o2, "estimated", p);
		if (by == PROFILE_BY_MODULE) {
			json_t *ts = json_array(), *tp = json_array();

			for (size_t e = 0; e < nev; e++) {
				json_array_append_new(ts, report__json_u64(r->total_samples[e]));
				json_array_append_new(tp, report__json_u64(r->total_period[e]));
			}
			json_object_set_new(o2, "total_share",
					    json_real(report__pct(in, o, r, true) / 100));
			json_object_set_new(o2, "total_samples", ts);
			json_object_set_new(o2, "total_estimated", tp);
		}
		json_array_append_new(a, o2);
	}
	free((void *)rows);
	return a;
}

static json_t *json_strv(char **v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(gx_utf8(v[i])));
	return a;
}

/* what ran, how it ended, for how long and what it cost */
static void json_run(json_t *root, struct gx_result *in)
{
	const struct gx_meta *m = gx_result__meta(in);
	const struct pd_env *env = gx_result__env(in);

	if (m && m->argv)
		json_object_set_new(root, "command", json_strv(m->argv, m->argc));
	else if (env->cmdline)
		json_object_set_new(root, "command", json_strv(env->cmdline, env->nr_cmdline));
	else
		json_object_set_new(root, "command", json_null());
	if (m) {
		json_t *ex = json_object();

		json_object_set_new(ex, "exited", json_boolean(m->exited));
		json_object_set_new(ex, "code", json_integer(m->exit_code));
		json_object_set_new(ex, "signal", json_integer(m->term_signal));
		json_object_set_new(root, "exit", ex);
		json_object_set_new(root, "duration_s", pd_json_real(m->duration_s));
		if (m->modelled && !isnan(m->model_run_s))
			json_object_set_new(root, "model_run_s", json_real(m->model_run_s));
		json_object_set_new(root, "self_cpu_s", pd_json_real(m->self_cpu_s));
		json_object_set_new(root, "sampling_s", pd_json_real(m->sampling_s));
		json_object_set_new(root, "sample_cost_ns", pd_json_real(m->sample_cost_ns));
		json_object_set_new(root, "sample_records", json_integer((json_int_t)m->sample_records));
	}
}

static json_t *json_machine(const struct pd_env *env)
{
	json_t *mach = json_object();

	json_object_set_new(mach, "hostname", env->hostname ? json_string(gx_utf8(env->hostname)) : json_null());
	json_object_set_new(mach, "cpu", env->cpudesc ? json_string(gx_utf8(env->cpudesc)) : json_null());
	json_object_set_new(mach, "osrelease", env->osrelease ? json_string(gx_utf8(env->osrelease)) : json_null());
	json_object_set_new(mach, "arch", env->arch ? json_string(gx_utf8(env->arch)) : json_null());
	json_object_set_new(mach, "nr_cpus", json_integer(env->nr_cpus_online));
	return mach;
}

static json_t *json_event(struct gx_result *in, size_t i)
{
	const struct gx_meta *m = gx_result__meta(in);
	const struct gx_event *ge = gx_result__event(in, i);
	const struct perf_event_attr *a = ge->attr;
	const struct gx_meta_event *me = m && i < m->nr_events ? &m->events[i] : NULL;
	uint64_t per = profile__total_period(gx_result__profile(in), i);
	json_t *eo = json_object();

	json_object_set_new(eo, "name", json_string(gx_utf8(report__event_name(in, i))));
	json_object_set_new(eo, "pmu", json_string(gx_utf8(ge->pmu)));
	json_object_set_new(eo, "type", json_integer(a->type));
	json_object_set_new(eo, "config", report__json_u64(a->config));
	json_object_set_new(eo, "unit", json_string(ge->unit));
	json_object_set_new(eo, "kind", json_string(gx_kind_name(ge->kind)));
	json_object_set_new(eo, "source", json_string(ge->source == GX_SOURCE_OFFCPU ? "off-cpu" :
						      ge->source == GX_SOURCE_WEIGHT ? "weight" :
						      "period"));
	json_object_set_new(eo, "samples", report__json_u64(profile__total_samples(gx_result__profile(in), i)));
	/* estimated and counted scaled by mux's rule when it was
	 * multiplexed; the raw figures and the share beside them */
	json_object_set_new(eo, "estimated", report__json_u64(scaled_u64((double)per, ge->scale)));
	json_object_set_new(eo, "counted", me && me->has_count ?
			    report__json_u64(isfinite(ge->run_value) && ge->counted &&
					     !gx_result__narrowed(in) ?
					     scaled_u64(ge->run_value, 1.0) : me->count) :
			    json_null());
	json_object_set_new(eo, "multiplexed", json_boolean(ge->multiplexed));
	json_object_set_new(eo, "running", pd_json_real(ge->running));
	json_object_set_new(eo, "scale", pd_json_real(ge->scale));
	json_object_set_new(eo, "estimated_raw", report__json_u64(per));
	json_object_set_new(eo, "counted_raw", me && me->has_count ?
			    report__json_u64(me->count) : json_null());
	return eo;
}

/* the tables and hotspots of the profile, then what could not be unwound */
static void json_profile(json_t *root, struct gx_result *in, const struct report_opts *o)
{
	json_object_set_new(root, "sort_event", json_integer((json_int_t)o->sort_event));
	json_object_set_new(root, "processes", json_rows(in, o, report__process_by(o)));
	json_object_set_new(root, "threads", json_rows(in, o, PROFILE_BY_THREAD));
	json_object_set_new(root, "modules", json_rows(in, o, PROFILE_BY_MODULE));
	json_object_set_new(root, "sort", json_string(report_sort_names[o->sort]));
	json_object_set_new(root, "callchains", json_boolean(profile__has_callchains(gx_result__profile(in))));
	json_object_set_new(root, "functions", report__json_hotspots(in, o, PROFILE_BY_FUNCTION));
	{
		double share;
		bool inl = report__inlined(in, o->sort_event, &share);
		uint64_t period, n = profile__inlined(gx_result__profile(in), o->sort_event, &period);

		/* null when no sample fell in inlined code */
		json_object_set_new(root, "inlined", inl ?
				    json_pack("{s:o,s:o,s:f,s:s}", "samples", report__json_u64(n),
					      "period", report__json_u64(period), "share", share,
					      "note", REPORT_INLINED_NOTE) : json_null());
	}
	json_object_set_new(root, "lines", report__json_hotspots(in, o, PROFILE_BY_LINE));
	json_object_set_new(root, "callpaths", report__json_hotspots(in, o, PROFILE_BY_CALLPATH));
	{
		const char *why = NULL;
		uint64_t nuw = profile__unwind_failures(gx_result__profile(in), &why);
		uint64_t ndw, copy, ncut = profile__stacks_cut(gx_result__profile(in), &ndw, &copy);

		json_object_set_new(root, "unwind_failures", report__json_u64(nuw));
		json_object_set_new(root, "stacks_cut", report__json_u64(ncut));
	}
}

static json_t *json_warnings(struct gx_result *in)
{
	const struct gx_meta *m = gx_result__meta(in);
	json_t *w = json_array();
	char **low;

	for (size_t i = 0; m && i < m->nr_warnings; i++)
		json_array_append_new(w, json_string(gx_utf8(m->warnings[i])));
	for (size_t i = 0; i < perf_reader__nr_warnings(gx_result__reader(in)); i++)
		json_array_append_new(w, json_string(gx_utf8(perf_reader__warning(gx_result__reader(in), i))));
	low = running_warnings(in);
	for (char **l = low; *l; l++)
		json_array_append_new(w, json_string(gx_utf8(*l)));
	strv_free(low);
	return w;
}

int report_json(struct strbuf *sb, struct gx_result *in, const struct report_opts *o)
{
	const struct gx_meta *m = gx_result__meta(in);
	const struct pd_stats *st = perf_reader__stats(gx_result__reader(in));
	size_t nev = gx_result__nr_events(in);
	json_t *root = json_object(), *evs = json_array(), *lost = json_object();
	char *text;

	json_object_set_new(root, "schema", json_string(GX_REPORT_SCHEMA));
	json_object_set_new(root, "result", json_string(gx_utf8(gx_result__path(in))));
	/* how the recording ended: a partial run is never read as whole */
	json_object_set_new(root, "status", json_string(gx_result__status(in)));
	json_object_set_new(root, "modelled", json_boolean(gx_result__modelled(in)));
	json_object_set_new(root, "incomplete", gx_result__incomplete(in) ?
			    json_string(gx_utf8(gx_result__incomplete(in))) : json_null());
	json_object_set_new(root, "stopped", gx_result__stopped(in) ?
			    json_string(gx_result__stopped(in)) : json_null());
	json_run(root, in);
	json_object_set_new(root, "machine", json_machine(gx_result__env(in)));
	json_object_set_new(root, "samples", report__json_u64(st->nr_samples));
	json_object_set_new(lost, "records", report__json_u64(st->nr_lost_records));
	json_object_set_new(lost, "events", report__json_u64(st->nr_lost + st->nr_lost_samples));
	json_object_set_new(root, "lost", lost);
	for (size_t i = 0; i < nev; i++)
		json_array_append_new(evs, json_event(in, i));
	json_object_set_new(root, "events", evs);
	if (m) {
		json_t *mx = mux_meta__to_json(m);

		if (mx)
			json_object_set_new(root, "mux", mx);
	}
	if (gx_result__narrowed(in))
		json_object_set_new(root, "region", json_string(gx_utf8(gx_result__narrowed(in))));
	if (gx_result__nr_region_names(in) || gx_result__nr_markers(in) ||
	    gx_result__markers_lost(in)) {
		json_t *mk = json_object();

		json_object_set_new(mk, "count", report__json_u64(gx_result__nr_markers(in)));
		json_object_set_new(mk, "lost", report__json_u64(gx_result__markers_lost(in)));
		json_object_set_new(root, "markers", mk);
		json_object_set_new(root, "regions", report__json_regions(in, o));
	}
	json_profile(root, in, o);
	report__json_mem(root, in, o);
	if (report__offcpu(in))
		json_object_set_new(root, "off_cpu", report__json_offcpu(in, o));
	report__json_flow(root, in, o);
	if (!any_hardware(in))
		json_object_set_new(root, "topdown_unavailable",
				    json_string("needs hardware counters; software events only"));
	else
		json_object_set_new(root, "topdown", report_topdown_json(in, o));
	json_object_set_new(root, "warnings", json_warnings(in));

	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		return -ENOMEM;
	strbuf__addstr(sb, text);
	strbuf__addstr(sb, "\n");
	free(text);
	return 0;
}
