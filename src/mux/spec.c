/*
 * spec.c: explicit -e lists made ready for rotation or for one run per
 * group. The list is parsed with collect's parser (which opens nothing).
 */
#include "config.h"

#include "mux/mux.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"

void mux_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static int nr_groups_of(const struct collect_event *ev, size_t n)
{
	int g = 0;

	for (size_t i = 0; i < n; i++)
		if (ev[i].group >= g)
			g = ev[i].group + 1;
	return g;
}

/* "a,b" of the events outside every group. */
static void add_always(struct strbuf *sb, const struct collect_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].group < 0)
			strbuf__addf(sb, "%s%s", sb->len ? "," : "", ev[i].name);
}

static void add_group(struct strbuf *sb, const struct collect_event *ev, size_t n, int g)
{
	const char *mods = "";
	size_t k = 0;

	strbuf__addf(sb, "%s{", sb->len ? "," : "");
	for (size_t i = 0; i < n; i++) {
		if (ev[i].group != g)
			continue;
		strbuf__addf(sb, "%s%s", k++ ? "," : "", ev[i].name);
		mods = ev[i].group_mods;
	}
	/* the group's modifiers (leader sampling, :u) stay with it */
	strbuf__addf(sb, "}%s%s", *mods ? ":" : "", mods);
}

int mux_spec_normalize(const char *spec, const char *reference, char **out, size_t *nr_groups,
		       char **cause)
{
	struct collect_event *ev;
	struct strbuf sb = STRBUF_INIT;
	size_t n;
	int err, ng;
	bool any_always = false, pmu = false;

	*out = NULL;
	*nr_groups = 0;
	err = collect_parse_events(spec, NULL, &ev, &n, cause);
	if (err)
		return err;
	ng = nr_groups_of(ev, n);
	*nr_groups = (size_t)ng;
	for (size_t i = 0; i < n; i++) {
		any_always |= ev[i].group < 0;
		pmu |= ev[i].attr.type != PERF_TYPE_SOFTWARE &&
		       ev[i].attr.type != PERF_TYPE_TRACEPOINT;
	}
	if (ng < 2) {
		*out = xstrdup(spec);
		goto out_free;
	}
	if (!any_always)
		strbuf__addstr(&sb, reference ? reference : pmu ? "cycles" : "cpu-clock");
	add_always(&sb, ev, n);
	for (int g = 0; g < ng; g++)
		add_group(&sb, ev, n, g);
	*out = strbuf__detach(&sb);
out_free:
	collect_events__free(ev, n);
	return 0;
}

int mux_spec_split_runs(const char *spec, char ***runs, size_t *nr, char **cause)
{
	struct collect_event *ev;
	size_t n;
	int err, ng;
	char **v;

	*runs = NULL;
	*nr = 0;
	err = collect_parse_events(spec, NULL, &ev, &n, cause);
	if (err)
		return err;
	ng = nr_groups_of(ev, n);
	v = xcalloc((size_t)(ng > 0 ? ng : 1) + 1, sizeof(*v));
	if (ng == 0) {
		v[0] = xstrdup(spec);
		*nr = 1;
	}
	for (int g = 0; g < ng; g++) {
		struct strbuf sb = STRBUF_INIT;

		add_always(&sb, ev, n);
		add_group(&sb, ev, n, g);
		v[g] = strbuf__detach(&sb);
		*nr = (size_t)g + 1;
	}
	*runs = v;
	collect_events__free(ev, n);
	return 0;
}
