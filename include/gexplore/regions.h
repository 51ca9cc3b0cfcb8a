/*
 * <gexplore/regions.h>: tell gexplore which phase the program is in.
 *
 * Link with -lgexplore-regions (pkg-config gexplore-regions), or dlopen
 * libgexplore-regions.so.1 and look the functions up by name.
 *
 * Under `gexplore record` every marker goes, with a CLOCK_MONOTONIC
 * timestamp (the samples' clock), the thread id and the name, into a
 * shared-memory ring that gexplore drains into the result's regions.bin
 * (gexplore-result(5)); `gexplore report --by region` and `--region NAME`
 * then split the samples by phase. Outside gexplore (GEXPLORE_REGIONS
 * unset) every call returns at once and does nothing.
 *
 * All functions are thread-safe and async-signal-unsafe; they never
 * allocate after the first call, never print and never fail visibly: a
 * marker that finds the ring full is counted as lost. A marker costs tens
 * of nanoseconds (bench/regions). See gexplore-regions(3).
 */
#ifndef GEXPLORE_REGIONS_H
#define GEXPLORE_REGIONS_H

#ifdef __cplusplus
extern "C" {
#endif

#define GX_REGIONS_VERSION 1

/* Enter the region `name` on this thread. Regions nest per thread (up to
 * 64 deep; deeper ones are counted lost). `name` is copied (up to 95
 * bytes); the pointer is kept until the matching gx_region_end(), so it
 * must stay valid until then (a string literal is the usual case). */
void gx_region_begin(const char *name);

/* Leave this thread's innermost region; nothing when none is open. */
void gx_region_end(void);

/* A one-shot marker at this instant (a frame, a request, a checkpoint). */
void gx_mark(const char *name);

/*
 * Stop collection (every counter and sample of the recording) until
 * gx_resume(); both are also markers. They act on the whole recording,
 * like `gexplore record --control` and perf's `disable`/`enable`, and
 * return once gexplore has acknowledged (at most one second later when it
 * does not answer). Nothing outside gexplore.
 */
void gx_pause(void);
void gx_resume(void);

/* 1 when markers reach a recording gexplore, else 0. */
int gx_regions_active(void);

#ifdef __cplusplus
}
#endif

#endif /* GEXPLORE_REGIONS_H */
