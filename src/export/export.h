/*
 * export: a result in the formats other profilers' tools read — pprof's
 * profile.proto (Parca, Pyroscope, Grafana, `go tool pprof`) and folded
 * stacks (flamegraph.pl, speedscope, inferno). Built in memory or written
 * to a file for src/cmd; nothing here prints or exits. Errors are negative
 * codes with a message in *cause (caller frees).
 */
#ifndef GX_EXPORT_H
#define GX_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

struct gx_result;
struct gx_result_opts;

/*
 * Append folded stacks (Brendan Gregg's flamegraph.pl input): one line per
 * distinct call path, `comm;root;...;leaf COUNT`, COUNT = samples of the
 * event sort_event (an index into the result's events); every path,
 * ordered by the line's text. Without call stacks each path is
 * comm;function. 0 or a negative code.
 */
int export_folded(struct strbuf *out, struct gx_result *in, size_t sort_event);

/*
 * The samples of a result as a gzip-compressed pprof profile.proto: one
 * sample type per recorded event (value = summed periods, plus a "samples"
 * count per event), one location per distinct address with its inline
 * frames (innermost first), mappings with build-ids. The exporter sees
 * every stack while the result is walked, so it is set up first:
 *
 *	struct export_pprof *x = export_pprof__new();
 *	export_pprof__hook(x, &opts);		// before gx_result__open(.., &opts, ..)
 *	export_pprof__write(x, result, path, &cause);
 *	export_pprof__delete(x);
 *
 * __new returns NULL and __write GX_E_NOTSUP when this build has no
 * protobuf-c/zlib; __hook and __delete accept NULL.
 */
struct export_pprof;
struct export_pprof *export_pprof__new(void);
void export_pprof__hook(struct export_pprof *p, struct gx_result_opts *o);
int export_pprof__write(struct export_pprof *p, const struct gx_result *r, const char *path,
			char **cause);
void export_pprof__delete(struct export_pprof *p);

/*
 * The viewers that draw time (speedscope, the Firefox Profiler, the HTML
 * report's timeline) take every sample in its order, which the profile's
 * rows do not keep: a collector watches the walk of the result, as the
 * pprof exporter does, and a writer turns what it kept into a file:
 *
 *	struct export_samples *x = export_samples__new();
 *	export_samples__hook(x, &opts);		// before gx_result__open(.., &opts, ..)
 *	export_speedscope__write(x, result, event, path, &cause);
 *	export_samples__delete(x);
 *
 * One writer per collector. Each returns 0 or a negative code with a
 * message in *cause (the caller frees it); event is an index into the
 * result's events (the sort event unless the user named one).
 */
struct export_samples;
struct export_samples *export_samples__new(void);
void export_samples__hook(struct export_samples *x, struct gx_result_opts *o);
void export_samples__delete(struct export_samples *x);

/* speedscope's file format: one sampled profile per thread, in time order,
 * weights the event's periods (nanoseconds for the clocks). */
int export_speedscope__write(struct export_samples *x, struct gx_result *r, size_t event,
			     const char *path, char **cause);

/* The Firefox Profiler's processed profile format (gecko version 24,
 * processed version 49), symbolicated: every thread with samples of the
 * event, its stacks, its waits off the CPU and regions as markers, the
 * other events as counter tracks, the libraries with their build-ids. */
int export_firefox__write(struct export_samples *x, struct gx_result *r, size_t event,
			  const char *path, char **cause);

/*
 * One self-contained HTML page of a result (no external script, style,
 * font or image): the summary, check's verdicts when check_json is given,
 * the top-down tree with its intervals and each hot function's MUX
 * reliability, the hottest functions and lines, a per-thread timeline
 * (when samples is given, after the walk it watched) and a flame graph of
 * the event, all readable without JavaScript; a small inline script zooms
 * the flame graph and searches it. It draws the documents the other views
 * make: report_json's and ci_report__json's (src/cmd makes them), never
 * walking the result itself.
 */
struct export_html_value {		/* a value with sections of its own */
	size_t event;				/* its index in the result's events */
	const char *report_json;		/* report_json's document sorted by it */
};
struct export_html_in {
	struct gx_result *res;
	size_t event;				/* the event of the flame graph and timeline */
	struct export_samples *samples;		/* NULL: no timeline */
	const char *report_json;		/* report_json's document */
	const char *check_json;			/* ci_report__json's, or NULL */
	/* the values export_html__own_value names: each its hottest
	 * functions and its flame graph after the event's */
	const struct export_html_value *values;
	size_t nr_values;
};
int export_html__write(const struct export_html_in *in, const char *path, char **cause);
/*
 * Whether the page of event e draws value v of r's table in sections of
 * its own (its hottest functions, a flame graph): a value whose samples
 * are not an event's periods (record --off-cpu's off-cpu, not its split
 * by reason), with some of it, other than e. The same rule in a diff's
 * page for a value both results have.
 */
bool export_html__own_value(const struct gx_result *r, size_t e, size_t v);

/* The HTML page of a diff (diff__json's document, src/cmd makes it): A and
 * B, what changed with its interval, what stayed within noise, and the
 * flame graphs of results a and b (each side's first run); a value both
 * have and export_html__own_value names (off-cpu) has a section of its
 * changes and its flame graphs of a and b. */
int export_html_diff__write(const char *diff_json, struct gx_result *a, struct gx_result *b,
			    const char *path, char **cause);

/*
 * A recording's branch stacks as the optimisers read them (export-flow.c):
 * AutoFDO's text profile (range, address and branch counts) or BOLT's
 * pre-aggregated profile (perf2bolt --pa: B and F lines), of the module
 * with the most branches (*module: its path, NULL when none). GX_E_NODATA
 * with *cause when the result has no branch stacks; AutoFDO's needs
 * ranges: GX_E_NOTSUP for a modelled result.
 */
int export_autofdo(struct strbuf *out, struct gx_result *in, const char **module, char **cause);
int export_bolt(struct strbuf *out, struct gx_result *in, const char **module, char **cause);

#endif /* GX_EXPORT_H */
