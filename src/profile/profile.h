/*
 * profile: turns a recording's records into rows a user reads. It tracks
 * processes, threads (names from COMM, inheritance from FORK, address
 * spaces reset on exec) and their memory maps (MMAP/MMAP2), and aggregates
 * every sample into rows per process, thread and module with, per event,
 * the number of samples and the estimated count (the sum of the sample
 * periods).
 *
 * Feed it through perf_reader__process() with the tool from
 * profile__tool(). Nothing here prints.
 */
#ifndef GX_PROFILE_H
#define GX_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"

enum profile_by {
	PROFILE_BY_PROCESS,
	PROFILE_BY_THREAD,
	PROFILE_BY_MODULE,
	PROFILE_BY_NR_,
};

struct profile_row {
	const char *name;	/* comm, or the module's path; owned by the profile */
	uint32_t pid, tid;	/* pid for process rows; tid (and its pid) for threads */
	uint64_t *samples;	/* [nr_events] */
	uint64_t *period;	/* [nr_events] summed sample periods */
};

struct profile;

/* A profile for nr_events events (the reader's evsels, in order). */
struct profile *profile__new(size_t nr_events);
void profile__delete(struct profile *p);

/* The tool to pass to perf_reader__process(); borrowed from p. */
struct pd_tool *profile__tool(struct profile *p);

size_t profile__nr_events(const struct profile *p);
/* Totals over every sample of event e. */
uint64_t profile__total_samples(const struct profile *p, size_t e);
uint64_t profile__total_period(const struct profile *p, size_t e);

/*
 * Rows of one kind, sorted by the period of event `sort_event` (then by
 * samples, then by name) highest first. The array and its rows are owned
 * by p and valid until the next call that sorts or until profile__delete.
 */
const struct profile_row *const *profile__rows(struct profile *p, enum profile_by by,
					       size_t sort_event, size_t *nr);

/* Number of samples whose address was in no known mapping. */
uint64_t profile__unmapped_samples(const struct profile *p);

#endif /* GX_PROFILE_H */
