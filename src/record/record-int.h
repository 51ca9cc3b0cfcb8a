/* src/record's own: the notices and the multiplexing around a recording. */
#ifndef GX_RECORD_INT_H
#define GX_RECORD_INT_H

#include <stdbool.h>

#include "record/record.h"

/* Say msg (printf-style) through nt at level; nothing when nt or its say
 * is NULL. */
void record_notice__say(const struct record_notice *nt, enum record_level level,
			const char *fmt, ...) __attribute__((format(printf, 3, 4)));

struct gx_meta;
struct collect_session;
struct record_mux;

/*
 * Multiplexing around a recording (record-mux.c). __setup checks the
 * options, rewrites the event list for the chosen mode (reference first,
 * one group per run with --mux-runs) and sets the collect options
 * (rotation, slice log in dir); NULL *out when there is nothing to
 * multiplex. 0, or GX_E_USAGE with *cause. __finish, after the run, runs
 * the other --mux-runs groups and fills meta's mux section, estimates
 * and warnings, saying them through nt (the warnings and the summary
 * unless quiet); 0, or -EIO when a --mux-runs run failed (said).
 */
int record_mux__setup(struct record_mux **out, struct record_opts *ro, const char *dir, int dirfd,
		      char **cause);
int record_mux__finish(struct record_mux *rm, const struct collect_session *s,
		       struct gx_meta *meta, const char *dir, bool quiet,
		       const struct record_notice *nt);
void record_mux__delete(struct record_mux *rm);

#endif /* GX_RECORD_INT_H */
