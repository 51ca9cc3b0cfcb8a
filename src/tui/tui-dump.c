/*
 * tui-dump.c: the views run headless — a key script applied to a model,
 * the final screen dumped as text (and styles). For tests, benchmarks and
 * bug reports (`gexplore tui --keys ... --dump WxH`).
 */
#include "config.h"

#include "tui.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui-int.h"
#include "util/util.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int tui_dump(struct tui_session *s, const char *keys, int w, int h, bool styles,
	     struct strbuf *out, struct tui_dump_stats *st, char **cause)
{
	struct tui_app app;
	struct tui_canvas c;
	struct strbuf sty = STRBUF_INIT;
	char *copy = xstrdup(keys ? keys : ""), *save = NULL;
	double sum = 0;
	int err = 0;

	memset(st, 0, sizeof(*st));
	st->nr_samples = s->m->nr_ts;
	tui_app__init(&app, s->m, s->ld);
	canvas__init(&c, w, h);
	tui_app__draw(&app, &c);
	for (char *tok = strtok_r(copy, " ", &save); tok && !app.quit;
	     tok = strtok_r(NULL, " ", &save)) {
		int k = tui_key_parse(tok);
		double t0 = now_s(), dt;

		if (k < 0) {
			err = gx_fail(cause, -EINVAL, "--keys: unknown key '%s'", tok);
			break;
		}
		tui_app__key(&app, k);
		tui_app__draw(&app, &c);
		dt = now_s() - t0;
		sum += dt;
		st->nr_keys++;
		if (1e3 * dt > st->worst_ms) {
			st->worst_ms = 1e3 * dt;
			snprintf(st->worst_key, sizeof(st->worst_key), "%s", tok);
		}
	}
	if (st->nr_keys)
		st->mean_ms = 1e3 * sum / (double)st->nr_keys;
	canvas__dump(&c, out, styles ? &sty : NULL);
	if (styles) {
		strbuf__addstr(out, "--- styles\n");
		if (sty.len)
			strbuf__add(out, sty.buf, sty.len);
	}
	strbuf__exit(&sty);
	canvas__exit(&c);
	tui_app__exit(&app);
	free(copy);
	return err;
}
