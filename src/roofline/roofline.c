/*
 * The roofline model: roofs from a peak document, points from callers,
 * and three renderings (ASCII log-log chart, SVG, HTML).
 */
#include "config.h"

#include "roofline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void add_ceiling(struct roofline_ceiling **v, size_t *n, const char *name, double value)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].name = xstrdup(name);
	(*v)[*n].value = value;
	(*n)++;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = ((const struct roofline_ceiling *)a)->value;
	double y = ((const struct roofline_ceiling *)b)->value;

	return x < y ? 1 : x > y ? -1 : 0;
}

int roofline__init_from_peak(struct roofline *rl, const json_t *peak, char **cause)
{
	static const char *const levels[] = { "L1", "L2", "L3", "L4", "DRAM" };
	const char *schema = json_string_value(json_object_get(peak, "schema"));
	const json_t *tests = json_object_get(peak, "tests"), *bw = json_object_get(peak, "bandwidth");
	const json_t *t;
	double best64 = 0, best32 = 0, scalar64 = 0;
	const char *n64 = NULL, *n32 = NULL, *ns = NULL;
	size_t i;

	memset(rl, 0, sizeof(*rl));
	if (!schema || strcmp(schema, "gexplore-peak 1"))
		return gx_fail(cause, GX_E_FORMAT, "not a gexplore peak document (schema %s)",
			       schema ? schema : "missing");
	json_array_foreach(tests, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		double g = json_real_value(json_object_get(t, "gflops"));
		int bits = (int)json_integer_value(json_object_get(t, "bits"));

		if (!name || !(g > 0))
			continue;
		if (strstr(name, ".f64.")) {
			if (g > best64)
				best64 = g, n64 = name;
			if (bits == 64 && g > scalar64)
				scalar64 = g, ns = name;
		} else if (strstr(name, ".f32.") && g > best32) {
			best32 = g, n32 = name;
		}
	}
	if (best32 > 0) {
		char *s = xasprintf("FP32 peak (%s)", n32);

		add_ceiling(&rl->compute, &rl->nr_compute, s, best32);
		free(s);
	}
	if (best64 > 0) {
		char *s = xasprintf("FP64 peak (%s)", n64);

		add_ceiling(&rl->compute, &rl->nr_compute, s, best64);
		free(s);
	}
	if (scalar64 > 0 && scalar64 < best64) {
		char *s = xasprintf("FP64 scalar (%s)", ns);

		add_ceiling(&rl->compute, &rl->nr_compute, s, scalar64);
		free(s);
	}
	for (size_t l = 0; l < ARRAY_SIZE(levels); l++) {
		double best = 0;

		json_array_foreach(bw, i, t) {
			const char *lv = json_string_value(json_object_get(t, "level"));
			double g = json_real_value(json_object_get(t, "gbps"));

			if (lv && !strcmp(lv, levels[l]) &&
			    json_integer_value(json_object_get(t, "threads")) == 1 && g > best)
				best = g;
		}
		if (best > 0)
			add_ceiling(&rl->memory, &rl->nr_memory, levels[l], best);
	}
	if (!rl->nr_compute || !rl->nr_memory) {
		roofline__exit(rl);
		return gx_fail(cause, GX_E_FORMAT, "the peak document has no %s figures",
			       !rl->nr_compute && !rl->nr_memory ? "FP or bandwidth" :
			       !rl->nr_compute ? "FP (GFLOP/s)" : "bandwidth");
	}
	gx_qsort(rl->compute, rl->nr_compute, sizeof(*rl->compute), cmp_desc);
	{
		const json_t *m = json_object_get(peak, "machine");
		double ghz = json_real_value(json_object_get(json_object_get(peak, "clock"), "ghz"));

		rl->machine = xasprintf("%s, %.2f GHz, one core",
					json_string_value(json_object_get(m, "cpu")) ?: "unknown CPU",
					ghz);
	}
	return 0;
}

void roofline__exit(struct roofline *rl)
{
	for (size_t i = 0; i < rl->nr_compute; i++)
		free(rl->compute[i].name);
	for (size_t i = 0; i < rl->nr_memory; i++)
		free(rl->memory[i].name);
	for (size_t i = 0; i < rl->nr_points; i++)
		free(rl->points[i].name);
	for (size_t i = 0; i < rl->nr_notes; i++)
		free(rl->notes[i]);
	GX_FREE(rl->compute, rl->memory, rl->points, rl->notes, rl->machine);
	memset(rl, 0, sizeof(*rl));
}

void roofline__note(struct roofline *rl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gx_strv_vaddf(&rl->notes, &rl->nr_notes, fmt, ap);
	va_end(ap);
}

bool roofline__add_point(struct roofline *rl, const char *name, double flops, double bytes,
			 double seconds)
{
	struct roofline_point *p;

	if (!(flops > 0 && bytes > 0 && seconds > 0))
		return false;
	rl->points = xrealloc(rl->points, (rl->nr_points + 1) * sizeof(*rl->points));
	p = &rl->points[rl->nr_points++];
	p->name = xstrdup(name);
	p->flops = flops;
	p->bytes = bytes;
	p->seconds = seconds;
	p->ai = flops / bytes;
	p->gflops = flops / seconds / 1e9;
	return true;
}

double roofline__attainable(const struct roofline *rl, double ai)
{
	double top = rl->nr_compute ? rl->compute[0].value : 0;
	double bw = rl->nr_memory ? rl->memory[rl->nr_memory - 1].value : 0;

	/* The slowest level (DRAM) bounds a program streaming from memory. */
	return fmin(top, bw * ai);
}

/* ---- axes shared by the renderings -------------------------------------- */
struct axes {
	double x0, x1;	/* log10 of the AI range */
	double y0, y1;	/* log10 of the GFLOP/s range */
};

static void axes_of(const struct roofline *rl, struct axes *a)
{
	double top = rl->nr_compute ? rl->compute[0].value : 100, lo = top;

	a->x0 = log10(1.0 / 64);
	a->x1 = log10(64);
	for (size_t i = 0; i < rl->nr_compute; i++)
		lo = fmin(lo, rl->compute[i].value);
	for (size_t i = 0; i < rl->nr_points; i++) {
		a->x0 = fmin(a->x0, floor(log10(rl->points[i].ai)));
		a->x1 = fmax(a->x1, ceil(log10(rl->points[i].ai)));
		lo = fmin(lo, rl->points[i].gflops);
	}
	a->y1 = ceil(log10(top * 1.5));
	a->y0 = fmin(floor(log10(lo)) - 1, a->y1 - 3);
	for (size_t i = 0; i < rl->nr_memory; i++)
		a->y0 = fmin(a->y0, floor(log10(rl->memory[i].value * pow(10, a->x0))));
	if (a->y0 < a->y1 - 5)
		a->y0 = a->y1 - 5;
}

static char level_mark(const char *name)
{
	return !strcmp(name, "DRAM") ? 'D' : name[0] == 'L' ? name[1] : '*';
}

void roofline__text(const struct roofline *rl, struct strbuf *sb, int width, int height)
{
	struct axes a;
	char *grid;
	int label_w = 8;

	if (width < 24)
		width = 24;
	if (height < 8)
		height = 8;
	axes_of(rl, &a);
	grid = xmalloc((size_t)width * height);
	memset(grid, ' ', (size_t)width * height);
	/* Memory roofs (each up to the top compute roof), then compute roofs, then points. */
	for (int c = 0; c < width; c++) {
		double lx = a.x0 + (a.x1 - a.x0) * (c + 0.5) / width, ai = pow(10, lx);

		for (size_t i = 0; i < rl->nr_memory; i++) {
			double y = fmin(rl->memory[i].value * ai, rl->compute[0].value);
			int r = (int)lround((a.y1 - log10(y)) / (a.y1 - a.y0) * (height - 1));

			if (r >= 0 && r < height && rl->memory[i].value * ai < rl->compute[0].value)
				grid[r * width + c] = level_mark(rl->memory[i].name);
		}
		for (size_t i = 0; i < rl->nr_compute; i++) {
			double y = rl->compute[i].value;
			int r = (int)lround((a.y1 - log10(y)) / (a.y1 - a.y0) * (height - 1));

			/* A compute roof starts where the fastest memory roof meets it. */
			if (r >= 0 && r < height && rl->memory[0].value * ai >= y &&
			    grid[r * width + c] == ' ')
				grid[r * width + c] = i == 0 ? '=' : '-';
		}
	}
	for (size_t i = 0; i < rl->nr_points && i < 26; i++) {
		const struct roofline_point *p = &rl->points[i];
		int c = (int)((log10(p->ai) - a.x0) / (a.x1 - a.x0) * width);
		int r = (int)lround((a.y1 - log10(p->gflops)) / (a.y1 - a.y0) * (height - 1));

		if (c >= 0 && c < width && r >= 0 && r < height)
			grid[r * width + c] = (char)('A' + i);
	}
	strbuf__addf(sb, "Roofline: %s\n", rl->machine ? rl->machine : "");
	strbuf__addf(sb, "%*s\n", label_w, "GFLOP/s");
	for (int r = 0; r < height; r++) {
		double tick = NAN;

		/* Label the row nearest each decade. */
		for (double d = ceil(a.y0); d <= a.y1; d++)
			if ((int)lround((a.y1 - d) / (a.y1 - a.y0) * (height - 1)) == r)
				tick = pow(10, d);
		if (!isnan(tick))
			strbuf__addf(sb, "%*g |", label_w - 2, tick);
		else
			strbuf__addf(sb, "%*s |", label_w - 2, "");
		strbuf__add(sb, grid + (size_t)r * width, (size_t)width);
		strbuf__addstr(sb, "\n");
	}
	strbuf__addf(sb, "%*s +", label_w - 2, "");
	for (int c = 0; c < width; c++)
		strbuf__addstr(sb, "-");
	strbuf__addf(sb, "\n%*s  %-*g%*g\n", label_w - 2, "", width / 2, pow(10, a.x0),
		     width - width / 2, pow(10, a.x1));
	strbuf__addf(sb, "%*s  %*s\n", label_w - 2, "", width / 2 + 12,
		     "arithmetic intensity (FLOP/byte)");
	strbuf__addstr(sb, "\nRoofs:\n");
	for (size_t i = 0; i < rl->nr_compute; i++)
		strbuf__addf(sb, "  %c %-28s %9.1f GFLOP/s\n", i == 0 ? '=' : '-', rl->compute[i].name,
			     rl->compute[i].value);
	for (size_t i = 0; i < rl->nr_memory; i++)
		strbuf__addf(sb, "  %c %-28s %9.1f GB/s (ridge at %.2f FLOP/byte)\n",
			     level_mark(rl->memory[i].name), rl->memory[i].name, rl->memory[i].value,
			     rl->compute[0].value / rl->memory[i].value);
	if (rl->nr_points) {
		strbuf__addf(sb, "\nPoints:%44s %10s %8s\n", "FLOP/byte", "GFLOP/s", "of roof");
		for (size_t i = 0; i < rl->nr_points; i++) {
			const struct roofline_point *p = &rl->points[i];
			double att = roofline__attainable(rl, p->ai);

			strbuf__addf(sb, "  %c %-46.46s %10.3g %8.3g %7.1f%%\n",
				     i < 26 ? (char)('A' + i) : ' ', p->name, p->ai, p->gflops,
				     att > 0 ? 100 * p->gflops / att : 0);
		}
	}
	for (size_t i = 0; i < rl->nr_notes; i++)
		strbuf__addf(sb, "%snote: %s\n", i ? "" : "\n", rl->notes[i]);
	free(grid);
}

/* ---- SVG ---------------------------------------------------------------- */
enum { SVG_W = 760, SVG_H = 480, ML = 70, MR = 170, MT = 40, MB = 50 };

static double sx(const struct axes *a, double ai)
{
	return ML + (log10(ai) - a->x0) / (a->x1 - a->x0) * (SVG_W - ML - MR);
}

static double sy(const struct axes *a, double g)
{
	return MT + (a->y1 - log10(g)) / (a->y1 - a->y0) * (SVG_H - MT - MB);
}

void roofline__svg(const struct roofline *rl, struct strbuf *sb)
{
	static const char *const colors[] = { "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b" };
	struct axes a;
	double top;

	axes_of(rl, &a);
	top = rl->compute[0].value;
	strbuf__addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		     "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		     SVG_W, SVG_H, SVG_W, SVG_H);
	strbuf__addf(sb, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", SVG_W, SVG_H);
	strbuf__addstr(sb, "<text x=\"10\" y=\"20\" font-size=\"14\">Roofline: ");
	strbuf__addxml(sb, rl->machine ? rl->machine : "");
	strbuf__addstr(sb, "</text>\n");
	/* Grid: decades on both axes. */
	for (double d = ceil(a.y0); d <= a.y1; d++)
		strbuf__addf(sb, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML,
			     sy(&a, pow(10, d)), SVG_W - MR, sy(&a, pow(10, d)), ML - 6,
			     sy(&a, pow(10, d)) + 4, pow(10, d));
	for (double d = ceil(a.x0); d <= a.x1; d++)
		strbuf__addf(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
			     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			     sx(&a, pow(10, d)), MT, sx(&a, pow(10, d)), SVG_H - MB, sx(&a, pow(10, d)),
			     SVG_H - MB + 16, pow(10, d));
	strbuf__addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		     "stroke=\"black\"/>\n", ML, MT, SVG_W - ML - MR, SVG_H - MT - MB);
	strbuf__addf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity "
		     "(FLOP/byte)</text>\n", ML + (SVG_W - ML - MR) / 2, SVG_H - 12);
	strbuf__addf(sb, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">"
		     "GFLOP/s</text>\n", MT + (SVG_H - MT - MB) / 2);
	for (size_t i = 0; i < rl->nr_memory; i++) {
		double bw = rl->memory[i].value, ai0 = pow(10, a.x0), ridge = top / bw;
		double ys = fmax(bw * ai0, pow(10, a.y0)), as = ys / bw;
		const char *col = colors[i % ARRAY_SIZE(colors)];

		strbuf__addf(sb, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\""
			     "%.1f,%.1f %.1f,%.1f\"/>\n", col, sx(&a, as), sy(&a, ys),
			     sx(&a, fmin(ridge, pow(10, a.x1))), sy(&a, fmin(top, bw * pow(10, a.x1))));
		strbuf__addf(sb, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">", SVG_W - MR + 6,
			     (double)(MT + 60 + 16 * (int)i), col);
		strbuf__addxml(sb, rl->memory[i].name);
		strbuf__addf(sb, " %.1f GB/s</text>\n", bw);
	}
	for (size_t i = 0; i < rl->nr_compute; i++) {
		double g = rl->compute[i].value, ridge = g / rl->memory[0].value;

		strbuf__addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
			     "stroke-width=\"%d\"%s/>\n", sx(&a, fmax(ridge, pow(10, a.x0))),
			     sy(&a, g), SVG_W - MR, sy(&a, g), i ? "#777" : "#d62728", i ? 1 : 2,
			     i ? " stroke-dasharray=\"6,4\"" : "");
		strbuf__addf(sb, "<text x=\"%d\" y=\"%.1f\">", SVG_W - MR + 6, sy(&a, g) + 4);
		strbuf__addxml(sb, rl->compute[i].name);
		strbuf__addf(sb, "</text>\n<text x=\"%d\" y=\"%.1f\" font-size=\"10\">%.1f GFLOP/s"
			     "</text>\n", SVG_W - MR + 6, sy(&a, g) + 16, g);
	}
	for (size_t i = 0; i < rl->nr_points; i++) {
		const struct roofline_point *p = &rl->points[i];

		strbuf__addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"black\"><title>",
			     sx(&a, p->ai), sy(&a, p->gflops));
		strbuf__addxml(sb, p->name);
		strbuf__addf(sb, ": %.3g FLOP/byte, %.3g GFLOP/s</title></circle>\n<text x=\"%.1f\" "
			     "y=\"%.1f\" font-size=\"11\">%c</text>\n", p->ai, p->gflops,
			     sx(&a, p->ai) + 7, sy(&a, p->gflops) - 5,
			     i < 26 ? (char)('A' + i) : '*');
	}
	if (!rl->nr_points)
		strbuf__addf(sb, "<text x=\"%d\" y=\"%d\" fill=\"#777\">no points: see the notes"
			     "</text>\n", ML + 10, SVG_H - MB - 10);
	strbuf__addstr(sb, "</svg>\n");
}

void roofline__html(const struct roofline *rl, struct strbuf *sb)
{
	strbuf__addstr(sb, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		       "<title>gexplore roofline</title>\n<style>body{font-family:sans-serif}"
		       "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:"
		       "1px solid #ddd;text-align:right}td:first-child,th:first-child{text-align:"
		       "left}</style></head><body>\n<h1>Roofline</h1>\n<p>");
	strbuf__addxml(sb, rl->machine ? rl->machine : "");
	strbuf__addstr(sb, "</p>\n");
	roofline__svg(rl, sb);
	strbuf__addstr(sb, "<h2>Roofs</h2>\n<table><tr><th>roof</th><th>value</th></tr>\n");
	for (size_t i = 0; i < rl->nr_compute; i++) {
		strbuf__addstr(sb, "<tr><td>");
		strbuf__addxml(sb, rl->compute[i].name);
		strbuf__addf(sb, "</td><td>%.1f GFLOP/s</td></tr>\n", rl->compute[i].value);
	}
	for (size_t i = 0; i < rl->nr_memory; i++) {
		strbuf__addstr(sb, "<tr><td>");
		strbuf__addxml(sb, rl->memory[i].name);
		strbuf__addf(sb, "</td><td>%.1f GB/s</td></tr>\n", rl->memory[i].value);
	}
	strbuf__addstr(sb, "</table>\n");
	if (rl->nr_points) {
		strbuf__addstr(sb, "<h2>Points</h2>\n<table><tr><th>point</th><th>FLOP/byte</th>"
			       "<th>GFLOP/s</th><th>of roof</th></tr>\n");
		for (size_t i = 0; i < rl->nr_points; i++) {
			const struct roofline_point *p = &rl->points[i];
			double att = roofline__attainable(rl, p->ai);

			strbuf__addf(sb, "<tr><td>%c ", i < 26 ? (char)('A' + i) : '*');
			strbuf__addxml(sb, p->name);
			strbuf__addf(sb, "</td><td>%.3g</td><td>%.3g</td><td>%.1f%%</td></tr>\n",
				     p->ai, p->gflops, att > 0 ? 100 * p->gflops / att : 0);
		}
		strbuf__addstr(sb, "</table>\n");
	}
	for (size_t i = 0; i < rl->nr_notes; i++) {
		strbuf__addstr(sb, "<p><b>Note:</b> ");
		strbuf__addxml(sb, rl->notes[i]);
		strbuf__addstr(sb, "</p>\n");
	}
	strbuf__addstr(sb, "</body></html>\n");
}

/* ---- events -------------------------------------------------------------- */
static bool ieq_prefix(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* Lanes of an FP_ARITH_INST_RETIRED.<umask> name (FMA is already counted twice). */
static double fp_arith_lanes(const char *suffix)
{
	static const struct { const char *s; double lanes; } t[] = {
		{ "SCALAR_DOUBLE", 1 }, { "SCALAR_SINGLE", 1 }, { "128B_PACKED_DOUBLE", 2 },
		{ "128B_PACKED_SINGLE", 4 }, { "256B_PACKED_DOUBLE", 4 },
		{ "256B_PACKED_SINGLE", 8 }, { "512B_PACKED_DOUBLE", 8 },
		{ "512B_PACKED_SINGLE", 16 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcasecmp(suffix, t[i].s))
			return t[i].lanes;
	return 0;
}

bool roofline_events_classify(const char *const *names, size_t n, double ghz,
			      struct roofline_events *ev, const char **why)
{
	int cycles_idx = -1;

	memset(ev, 0, sizeof(*ev));
	ev->time_idx = -1;
	for (size_t i = 0; i < n; i++) {
		const char *s = names[i];

		if (!s)
			continue;
		if (!strcasecmp(s, "cpu-clock") || !strcasecmp(s, "task-clock")) {
			ev->time_idx = (int)i;
			ev->time_scale = 1e-9;
		} else if (!strcasecmp(s, "cycles") || !strcasecmp(s, "cpu-cycles") ||
			   !strcasecmp(s, "CPU_CLK_UNHALTED.THREAD") ||
			   !strcasecmp(s, "ls_not_halted_cyc")) {
			cycles_idx = (int)i;
		} else if (ieq_prefix(s, "FP_ARITH_INST_RETIRED.") ||
			   ieq_prefix(s, "fp_arith_inst_retired.")) {
			double lanes = fp_arith_lanes(s + strlen("FP_ARITH_INST_RETIRED."));

			if (lanes > 0 && ev->nr_flops < ARRAY_SIZE(ev->flops_idx)) {
				ev->flops_idx[ev->nr_flops] = (int)i;
				ev->flops_weight[ev->nr_flops++] = lanes;
			}
		} else if (!strcasecmp(s, "fp_ret_sse_avx_ops.all")) {
			if (ev->nr_flops < ARRAY_SIZE(ev->flops_idx)) {
				ev->flops_idx[ev->nr_flops] = (int)i;
				ev->flops_weight[ev->nr_flops++] = 1;
			}
		} else if (!strcasecmp(s, "LONGEST_LAT_CACHE.MISS") ||
			   ieq_prefix(s, "ls_any_fills_from_sys.")) {
			if (ev->nr_bytes < ARRAY_SIZE(ev->bytes_idx)) {
				ev->bytes_idx[ev->nr_bytes] = (int)i;
				ev->bytes_weight[ev->nr_bytes++] = 64;
			}
		}
	}
	if (ev->time_idx < 0 && cycles_idx >= 0 && ghz > 0) {
		ev->time_idx = cycles_idx;
		ev->time_scale = 1 / (ghz * 1e9);
	}
	*why = NULL;
	if (!ev->nr_flops && !ev->nr_bytes)
		*why = "the recording has neither FP-operation nor memory-traffic events";
	else if (!ev->nr_flops)
		*why = "the recording has no FP-operation events";
	else if (!ev->nr_bytes)
		*why = "the recording has no memory-traffic events";
	else if (ev->time_idx < 0)
		*why = "the recording has no time event (cpu-clock, task-clock or cycles)";
	return *why == NULL;
}

void roofline_events__totals(const struct roofline_events *ev, const uint64_t *period,
			     double *flops, double *bytes, double *seconds)
{
	*flops = *bytes = *seconds = 0;
	for (size_t i = 0; i < ev->nr_flops; i++)
		*flops += ev->flops_weight[i] * (double)period[ev->flops_idx[i]];
	for (size_t i = 0; i < ev->nr_bytes; i++)
		*bytes += ev->bytes_weight[i] * (double)period[ev->bytes_idx[i]];
	if (ev->time_idx >= 0)
		*seconds = ev->time_scale * (double)period[ev->time_idx];
}

size_t roofline__add_profile_points(struct roofline *rl, const char *const *names, size_t n,
				    struct profile *p, enum profile_by by, size_t max_rows,
				    double ghz, const char **why)
{
	struct roofline_events ev;
	const struct profile_row *const *rows;
	uint64_t *tot;
	size_t nrows, added = 0;
	double f, b, s;

	if (!roofline_events_classify(names, n, ghz, &ev, why))
		return 0;
	tot = xcalloc(n ? n : 1, sizeof(*tot));
	for (size_t i = 0; i < n; i++)
		tot[i] = profile__total_period(p, i);
	roofline_events__totals(&ev, tot, &f, &b, &s);
	added += roofline__add_point(rl, "whole run", f, b, s);
	free(tot);
	rows = profile__rows(p, by, (size_t)ev.flops_idx[0], &nrows);
	for (size_t i = 0; i < nrows && i < max_rows; i++) {
		roofline_events__totals(&ev, rows[i]->period, &f, &b, &s);
		added += roofline__add_point(rl, rows[i]->name, f, b, s);
	}
	if (!added)
		*why = "no row has FP operations, memory traffic and time together";
	return added;
}
