/*
 * tui-keys RESULT BUDGET_MS KEYS...: open RESULT as `gexplore tui` does,
 * apply the keys headless at 120x40 (handle + redraw, as the terminal
 * loop does) and print the time of every key, then the worst press of
 * each key per what it did (the view it left and the one it showed, and
 * whether a time range was set: "Enter grid -> source, range"), and one
 * verdict line against BUDGET_MS. For bench/tui: the figures of issue 18
 * part 5 (16 ms per key on 1 M samples, 50 ms on 10 M).
 * Exit 0 when every key is within the budget, 1 when one is not, 2 on
 * error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/tui-int.h"
#include "util/util.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return 1e3 * (double)ts.tv_sec + (double)ts.tv_nsec / 1e6;
}

struct per_name {
	char name[64];		/* "Space timeline, range" */
	double worst;
	int n;
};

/* Key k's line in the summary: its name, the views it left and showed,
 * and whether a time range is set after it. */
static void key_label(char *buf, size_t len, const char *key, const char *from, const char *to,
		      bool range)
{
	if (strcmp(from, to))
		snprintf(buf, len, "%s %s -> %s%s", key, from, to, range ? ", range" : "");
	else
		snprintf(buf, len, "%s %s%s", key, from, range ? ", range" : "");
}

int main(int argc, char **argv)
{
	struct tui_open_opts o = { .parent = "." };
	struct per_name names[64];
	struct tui_session *s = NULL;
	struct tui_model *m;
	struct tui_canvas c;
	struct tui_app app;
	char *cause = NULL, worst_name[16] = "";
	double t0, budget, worst = 0, sum = 0;
	size_t nn = 0;
	int nk = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: tui-keys RESULT BUDGET_MS KEY...\n");
		return 2;
	}
	o.result = argv[1];
	budget = atof(argv[2]);
	t0 = now_ms();
	if (tui_session__open(&s, &o, &cause) != 0) {
		fprintf(stderr, "tui-keys: %s\n", cause);
		return 2;
	}
	printf("open: %.0f ms, %zu samples kept\n", now_ms() - t0, tui_session__nr_samples(s));
	m = s->m;
	tui_app__init(&app, m, s->ld);
	canvas__init(&c, 120, 40);
	tui_app__draw(&app, &c);
	for (int i = 3; i < argc && !app.quit; i++) {
		int k = tui_key_parse(argv[i]);
		const char *from = tui_stack__top(&app.views)->ops->name, *to;
		char label[64];
		double dt;
		size_t j;

		if (k < 0) {
			fprintf(stderr, "tui-keys: unknown key '%s'\n", argv[i]);
			return 2;
		}
		t0 = now_ms();
		tui_app__key(&app, k);
		tui_app__draw(&app, &c);
		dt = now_ms() - t0;
		sum += dt;
		nk++;
		to = tui_stack__top(&app.views)->ops->name;
		printf("key %3d %-6s %8.3f ms  (%s)\n", nk, argv[i], dt, to);
		key_label(label, sizeof(label), argv[i], from, to, m->range_hi != 0);
		for (j = 0; j < nn && strcmp(names[j].name, label); j++)
			;
		if (j == nn && nn < ARRAY_SIZE(names)) {
			snprintf(names[nn].name, sizeof(names[nn].name), "%s", label);
			names[nn].worst = 0;
			names[nn++].n = 0;
		}
		if (j < nn) {
			names[j].n++;
			if (dt > names[j].worst)
				names[j].worst = dt;
		}
		if (dt > worst) {
			worst = dt;
			snprintf(worst_name, sizeof(worst_name), "%s", argv[i]);
		}
	}
	printf("worst press per key (ms, handle + redraw):\n");
	for (size_t j = 0; j < nn; j++)
		printf("  %-36s %9.3f  (%d press%s)\n", names[j].name, names[j].worst, names[j].n,
		       names[j].n == 1 ? "" : "es");
	printf("keys: %d, mean %.3f ms, worst %.3f ms (%s), budget %.0f ms: %s\n", nk,
	       nk ? sum / nk : 0, worst, worst_name, budget, worst <= budget ? "ok" : "OVER");
	tui_app__exit(&app);
	canvas__exit(&c);
	tui_session__delete(s);
	return worst <= budget ? 0 : 1;
}
