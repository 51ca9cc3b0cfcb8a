/*
 * Folded stacks for flamegraph.pl, speedscope, inferno: one line per
 * distinct call path, "comm;root;...;leaf COUNT" with COUNT the number of
 * samples of the sort event (a modelled result's: their summed periods,
 * exact counts or modelled cycles, its samples being one an instruction
 * and stack, not one a period of time), lines in byte order of their text (stable
 * output, and what stackcollapse-perf.pl | sort gives). Paths that read the
 * same (two modules' [unknown], say) are one line with the summed count.
 */
#include "config.h"

#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "result/result.h"

struct folded {
	char *stack;
	uint64_t count;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

/*
 * A frame by the escaping rule of every text output (util.h: a control
 * byte or a bidi control cannot reach the terminal or forge a line), then
 * ';' as ':' since flamegraph.pl splits frames on ';' (and the count on
 * the last space).
 */
static void add_frame(struct strbuf *sb, const char *s)
{
	size_t from = sb->len;

	strbuf__addesc(sb, s);
	for (size_t i = from; i < sb->len; i++)
		if (sb->buf[i] == ';')
			sb->buf[i] = ':';
}

int export_folded(struct strbuf *sb, struct gx_result *in, size_t sort_event)
{
	size_t nr, e = sort_event, n = 0;
	const struct profile_row *const *rows;
	struct folded *lines;
	const struct gx_event *ge;
	bool weigh;

	if (!profile__nr_events(gx_result__profile(in)))
		return 0;
	/* an exact or modelled event (one sample an address) and a value
	 * that is not an event's periods (off-CPU ns) weigh a stack by its
	 * value; a sampled event by its samples, as flamegraph.pl expects */
	ge = gx_result__event(in, e);
	weigh = gx_kind_fixed(ge->kind) || ge->source != GX_SOURCE_PERIOD;
	rows = profile__sort(gx_result__profile(in), PROFILE_BY_CALLPATH, e, PROFILE_SORT_NAME, &nr);
	lines = xcalloc(nr + 1, sizeof(*lines));
	for (size_t i = 0; i < nr; i++) {
		const struct profile_row *r = rows[i];
		struct strbuf l = STRBUF_INIT;
		struct folded *fl;

		if (!r->samples[e])
			continue;
		add_frame(&l, r->name);
		for (uint32_t k = 0; k < r->path_len; k++) {
			const struct profile_row *f =
				profile__row(gx_result__profile(in), PROFILE_BY_FUNCTION, r->path[k]);

			strbuf__addstr(&l, ";");
			add_frame(&l, f ? f->name : "?");
		}
		fl = &lines[n++];
		fl->count = weigh ? r->period[e] : r->samples[e];
		fl->stack = strbuf__detach(&l);
	}
	gx_qsort(lines, n, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < n; i++) {
		uint64_t count = lines[i].count;

		while (i + 1 < n && !strcmp(lines[i].stack, lines[i + 1].stack)) {
			free(lines[i].stack);
			count += lines[++i].count;
		}
		strbuf__addf(sb, "%s %" PRIu64 "\n", lines[i].stack, count);
		free(lines[i].stack);
	}
	free(lines);
	return 0;
}
