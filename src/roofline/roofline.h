/*
 * roofline: a machine's roofs (compute peaks and bandwidth per memory
 * level, from a `gexplore peak` JSON document) and a program's points
 * (arithmetic intensity in FLOP/byte, achieved GFLOP/s), drawn as a log-log
 * chart in the terminal (ASCII) or as SVG / HTML. Nothing here measures,
 * prints or reads a recording: callers add the points (see
 * roofline_events_classify for turning sampled event periods into FLOPs,
 * bytes and seconds).
 */
#ifndef GX_ROOFLINE_H
#define GX_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "profile/profile.h"
#include "util/util.h"

struct roofline_ceiling {
	char *name;		/* "FP64 fma.f64.512", "L1" */
	double value;		/* GFLOP/s (compute) or GB/s (memory) */
};

struct roofline_point {
	char *name;
	double flops, bytes, seconds;
	double ai;		/* FLOP per byte */
	double gflops;		/* achieved */
};

struct roofline {
	char *machine;		/* "AMD EPYC, 3.69 GHz, single core" */
	struct roofline_ceiling *compute;	/* highest first */
	size_t nr_compute;
	struct roofline_ceiling *memory;	/* fastest (L1) first */
	size_t nr_memory;
	struct roofline_point *points;
	size_t nr_points;
	char **notes;
	size_t nr_notes;
};

/*
 * Fill rl (free with roofline__exit) with the roofs in a peak document
 * ("gexplore-peak 1"): the best FP64 and FP32 GFLOP/s, the best scalar
 * FP64, and the best single-core bandwidth at each level. GX_E_FORMAT with
 * *cause when the document has no usable figures.
 */
int roofline__init_from_peak(struct roofline *rl, const json_t *peak, char **cause);
void roofline__exit(struct roofline *rl);

/* Add a note shown under the chart (copied). */
void roofline__note(struct roofline *rl, const char *fmt, ...) GX_PRINTF(2, 3);

/* Add a point; ignored (false) when flops, bytes or seconds are not > 0. */
bool roofline__add_point(struct roofline *rl, const char *name, double flops, double bytes,
			 double seconds);

/* The attainable GFLOP/s at intensity ai: min(top compute, best bandwidth x ai). */
double roofline__attainable(const struct roofline *rl, double ai);

/* Log-log ASCII chart of width x height cells plus legend, appended to sb. */
void roofline__text(const struct roofline *rl, struct strbuf *sb, int width, int height);
/* A standalone SVG document. */
void roofline__svg(const struct roofline *rl, struct strbuf *sb);
/* An HTML page holding the SVG and tables of roofs, points and notes. */
void roofline__html(const struct roofline *rl, struct strbuf *sb);

/*
 * Which recorded events give FLOPs, memory bytes and time, by name
 * (case-insensitive): FP_ARITH_INST_RETIRED.* (weighted by lanes; FMA is
 * already counted twice), fp_ret_sse_avx_ops.all (FLOPs); LONGEST_LAT_CACHE.MISS,
 * ls_any_fills_from_sys.* (64 bytes each); cpu-clock / task-clock (ns) or
 * cycles (at `ghz`). Returns true when FLOPs, bytes and time are all
 * available; otherwise false with *why (static text) saying what is missing.
 */
struct roofline_events {
	int time_idx;
	double time_scale;	/* seconds per unit of the time event's period */
	size_t nr_flops, nr_bytes;
	int flops_idx[16];
	double flops_weight[16];
	int bytes_idx[4];
	double bytes_weight[4];
};
bool roofline_events_classify(const char *const *names, size_t n, double ghz,
			      struct roofline_events *ev, const char **why);
/* FLOPs, bytes and seconds of one row from its per-event period sums. */
void roofline_events__totals(const struct roofline_events *ev, const uint64_t *period,
			     double *flops, double *bytes, double *seconds);

/*
 * Points of a profile whose events are called names[0..n): the whole run,
 * then up to max_rows rows of `by` (most FLOPs first; PROFILE_BY_MODULE
 * until function rows exist). Rows without FLOPs, bytes or time are left
 * out. Returns the number of points added, or 0 with *why (static text)
 * when the events cannot give points.
 */
size_t roofline__add_profile_points(struct roofline *rl, const char *const *names, size_t n,
				    struct profile *p, enum profile_by by, size_t max_rows,
				    double ghz, const char **why);

#endif /* GX_ROOFLINE_H */
