/*
 * export: a result in the formats other profilers' tools read — pprof's
 * profile.proto (Parca, Pyroscope, Grafana, `go tool pprof`) and folded
 * stacks (flamegraph.pl, speedscope, inferno). Built in memory or written
 * to a file for src/cmd; nothing here prints or exits. Errors are negative
 * codes with a message in *cause (caller frees).
 */
#ifndef GX_EXPORT_H
#define GX_EXPORT_H

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
