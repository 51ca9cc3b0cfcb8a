/*
 * export-html.c: a result as one self-contained HTML file (issue 44) for a
 * browser and a CI artifact: no external script, style, font or image.
 *
 * It draws what the other views already computed, never a walk of its
 * own: the summary, the top-down tree (with the MUX reliability and the
 * intervals of its rows), the hottest functions and lines and the threads
 * come from report's JSON document (report_json, gexplore-report(1)'s
 * schema), check's verdicts from check's (ci_report__json), the flame
 * graph from the folded stacks (export_folded), and the per-thread
 * timeline from the samples in time order (export-samples.c). A value
 * beside the events (off-cpu) has its hottest functions (report's document
 * sorted by it) and its flame graph too, and a diff its changes and the
 * flame graphs of both results. Everything
 * is in the HTML itself and readable without JavaScript (tables, an SVG
 * flame graph and timeline with a <title> per box); a small inline script
 * adds zooming into a flame graph box and a search that marks matches.
 */
#include "config.h"

#include "export.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-int.h"
#include "result/result.h"

#define FLAME_W 1200.0
#define FLAME_ROW 17
#define FLAME_MIN 0.0005 /* boxes under this share of the whole are left out */
#define TIMELINE_BINS 200
#define TIMELINE_THREADS 64 /* rows of the timeline at most */

static void esc(struct strbuf *sb, const char *s)
{
	strbuf__addxml(sb, gx_utf8(s ? s : ""));
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* A JSON number of an object, NAN when absent or null. */
static double jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Element i of an array member (NAN when absent). */
static double jnum_at(const json_t *o, const char *key, size_t i)
{
	const json_t *v = json_array_get(json_object_get(o, key), i);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void pct(struct strbuf *sb, double x)
{
	if (isnan(x))
		strbuf__addstr(sb, "<td class=n>n/a</td>");
	else
		strbuf__addf(sb, "<td class=n>%.1f%%</td>", 100 * x);
}

static void num(struct strbuf *sb, double x)
{
	if (isnan(x))
		strbuf__addstr(sb, "<td class=n>n/a</td>");
	else if (fabs(x) >= 1e6 || (x != 0 && fabs(x) < 1e-3))
		strbuf__addf(sb, "<td class=n>%.4g</td>", x);
	else
		strbuf__addf(sb, "<td class=n>%.6g</td>", x);
}

/* A cell with an interval [lo, hi] (a JSON pair), empty without one. */
static void interval(struct strbuf *sb, const json_t *iv, bool percent)
{
	double lo = json_number_value(json_array_get(iv, 0));
	double hi = json_number_value(json_array_get(iv, 1));

	if (!json_is_array(iv))
		strbuf__addstr(sb, "<td></td>");
	else if (percent)
		strbuf__addf(sb, "<td class=n>[%.1f%%, %.1f%%]</td>", 100 * lo, 100 * hi);
	else
		strbuf__addf(sb, "<td class=n>[%.4g, %.4g]</td>", lo, hi);
}

/* A cell with an object's "file":"line", empty when it names no file. */
static void where(struct strbuf *sb, const json_t *o)
{
	strbuf__addstr(sb, "<td>");
	if (*jstr(o, "file")) {
		esc(sb, jstr(o, "file"));
		strbuf__addf(sb, ":%.0f", jnum(o, "line"));
	}
	strbuf__addstr(sb, "</td>");
}

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:.4em 0}td,th{padding:2px 8px;text-align:left;"
	"border-bottom:1px solid #eee;vertical-align:top}th{background:#f4f4f4}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	".flag{color:#b00;font-weight:bold}.pass{color:#070;font-weight:bold}"
	".fail{color:#b00;font-weight:bold}.skip{color:#a60;font-weight:bold}"
	".dim{color:#888}code{font-size:.95em}"
	"svg text{font:11px monospace;pointer-events:none}"
	"svg.flame rect{stroke:#fff;stroke-width:.5}svg.flame g:hover rect{stroke:#000}"
	"svg.flame g.match rect{fill:#e0f!important}"
	".search{margin:.3em 0}";

/* ---- summary -------------------------------------------------------------- */

static void html_summary(struct strbuf *sb, const json_t *rep)
{
	const json_t *ev, *cmd = json_object_get(rep, "command"),
			  *m = json_object_get(rep, "machine");
	size_t i;

	strbuf__addstr(sb, "<h2 id=summary>Summary</h2><table>");
	strbuf__addstr(sb, "<tr><th>result</th><td><code>");
	esc(sb, jstr(rep, "result"));
	strbuf__addstr(sb, "</code> (");
	esc(sb, jstr(rep, "status"));
	strbuf__addstr(sb, ")</td></tr><tr><th>command</th><td><code>");
	json_array_foreach(cmd, i, ev)
	{
		strbuf__addstr(sb, i ? " " : "");
		esc(sb, json_string_value(ev));
	}
	strbuf__addf(sb, "</code></td></tr><tr><th>duration</th><td>%.3f s</td></tr>",
		     jnum(rep, "duration_s"));
	strbuf__addstr(sb, "<tr><th>machine</th><td>");
	esc(sb, jstr(m, "cpu"));
	strbuf__addstr(sb, ", ");
	esc(sb, jstr(m, "osrelease"));
	strbuf__addf(sb, "</td></tr><tr><th>samples</th><td>%.0f (lost %.0f)</td></tr></table>",
		     jnum(rep, "samples"), jnum(json_object_get(rep, "lost"), "events"));
	strbuf__addstr(sb,
		       "<table><tr><th>event</th><th>kind</th><th>samples</th><th>estimated</th>"
		       "<th>counted</th><th>running</th></tr>");
	json_array_foreach(json_object_get(rep, "events"), i, ev)
	{
		strbuf__addstr(sb, "<tr><td>");
		esc(sb, jstr(ev, "name"));
		strbuf__addstr(sb, "</td><td>");
		esc(sb, jstr(ev, "kind"));
		strbuf__addstr(sb, "</td>");
		num(sb, jnum(ev, "samples"));
		num(sb, jnum(ev, "estimated"));
		num(sb, jnum(ev, "counted"));
		pct(sb, jnum(ev, "running"));
		strbuf__addstr(sb, "</tr>");
	}
	strbuf__addstr(sb, "</table>");
	json_array_foreach(json_object_get(rep, "warnings"), i, ev)
	{
		strbuf__addstr(sb, "<p class=flag>");
		esc(sb, json_is_string(ev) ? json_string_value(ev) : jstr(ev, "message"));
		strbuf__addstr(sb, "</p>");
	}
}

/* ---- check's verdicts ------------------------------------------------------- */

static void html_check(struct strbuf *sb, const json_t *chk)
{
	const json_t *c;
	size_t i;

	strbuf__addf(sb,
		     "<h2 id=check>Check</h2><p>verdict: <span class=%s>%s</span>: "
		     "%.0f passed, %.0f failed, %.0f could not be measured</p>",
		     jstr(chk, "status"), jstr(chk, "status"), jnum(chk, "passed"),
		     jnum(chk, "failed"), jnum(chk, "skipped"));
	strbuf__addstr(sb, "<table><tr><th>status</th><th>limit</th><th>scope</th><th>row</th>"
			   "<th>value</th><th>interval</th><th>threshold</th><th>where</th>"
			   "<th>message</th></tr>");
	json_array_foreach(json_object_get(chk, "checks"), i, c)
	{
		const json_t *iv = json_object_get(c, "interval");

		strbuf__addf(sb, "<tr><td class=%s>%s</td><td><code>", jstr(c, "status"),
			     jstr(c, "status"));
		esc(sb, jstr(c, "metric"));
		strbuf__addf(sb, " %s %g</code></td><td>", jstr(c, "op"), jnum(c, "limit"));
		esc(sb, jstr(c, "scope"));
		strbuf__addstr(sb, "</td><td>");
		esc(sb, jstr(c, "row"));
		strbuf__addstr(sb, "</td>");
		num(sb, jnum(c, "value"));
		interval(sb, iv, false);
		num(sb, jnum(c, "threshold"));
		where(sb, c);
		strbuf__addstr(sb, "<td>");
		esc(sb, jstr(c, "message"));
		strbuf__addstr(sb, "</td></tr>");
	}
	strbuf__addstr(sb, "</table>");
}

/* ---- the top-down tree -------------------------------------------------- */

static void metric_value(struct strbuf *sb, const json_t *m)
{
	if (!strcmp(jstr(m, "unit"), "fraction"))
		pct(sb, jnum(m, "value"));
	else
		num(sb, jnum(m, "value"));
}

static void html_tree(struct strbuf *sb, const json_t *tree, const json_t *intervals)
{
	const json_t *m;
	size_t i;

	strbuf__addstr(sb, "<table><tr><th>metric</th><th>value</th><th>interval</th>"
			   "<th>threshold</th></tr>");
	json_array_foreach(json_object_get(tree, "metrics"), i, m)
	{
		const json_t *iv = json_object_get(intervals, jstr(m, "name"));
		bool flagged = json_is_true(json_object_get(m, "flagged"));
		double level = jnum(m, "level");

		if (json_is_true(json_object_get(m, "hidden")))
			continue;
		strbuf__addf(sb, "<tr><td style=\"padding-left:%.1fem\"%s>",
			     isnan(level) || level < 1 ? 0.5 : 1.5 * level,
			     flagged ? " class=flag" : "");
		esc(sb, jstr(m, "name"));
		if (json_is_true(json_object_get(m, "on_bottleneck_path")))
			strbuf__addstr(sb, " &lt;==");
		if (json_is_true(json_object_get(m, "mismeasured")))
			strbuf__addstr(sb, " (mismeasured)");
		strbuf__addstr(sb, "</td>");
		metric_value(sb, m);
		interval(sb, iv, !strcmp(jstr(m, "unit"), "fraction"));
		strbuf__addstr(sb, "<td class=dim>");
		esc(sb, jstr(m, "threshold"));
		strbuf__addstr(sb, "</td></tr>");
	}
	strbuf__addstr(sb, "</table>");
}

/* The run's tree, then each hot function's level-1 shares with the MUX
 * reliability of its row. */
static void html_topdown(struct strbuf *sb, const json_t *rep)
{
	const json_t *td = json_object_get(rep, "topdown"), *f, *m;
	size_t i, k;

	strbuf__addstr(sb, "<h2 id=topdown>Top-down</h2>");
	if (!json_is_true(json_object_get(td, "available"))) {
		const json_t *why = json_object_get(rep, "topdown_unavailable");

		strbuf__addstr(sb, "<p class=dim>");
		esc(sb,
		    json_is_string(why)
			    ? json_string_value(why)
			    : "needs hardware counters (or record --model); this recording has none");
		strbuf__addstr(sb, "</p>");
		return;
	}
	html_tree(sb, json_object_get(td, "run"), NULL);
	strbuf__addstr(sb, "<h3>Per function</h3><table><tr><th>function</th>");
	f = json_array_get(json_object_get(td, "functions"), 0);
	json_array_foreach(json_object_get(json_object_get(f, "tree"), "metrics"), k,
			   m) if (jnum(m, "level") == 1)
	{
		strbuf__addstr(sb, "<th>");
		esc(sb, jstr(m, "name"));
		strbuf__addstr(sb, "</th>");
	}
	strbuf__addstr(sb, "<th>MUX reliability</th></tr>");
	json_array_foreach(json_object_get(td, "functions"), i, f)
	{
		strbuf__addstr(sb, "<tr><td>");
		esc(sb, jstr(f, "function"));
		strbuf__addstr(sb, "</td>");
		json_array_foreach(json_object_get(json_object_get(f, "tree"), "metrics"), k,
				   m) if (jnum(m, "level") == 1) metric_value(sb, m);
		num(sb, jnum(f, "mux_reliability"));
		strbuf__addstr(sb, "</tr>");
	}
	strbuf__addstr(sb, "</table>");
}

/* ---- hotspots ------------------------------------------------------------ */

/* The rows of rep's key (functions, lines) under a heading id and title
 * (escaped here), with their values of event e. */
static void html_rows(struct strbuf *sb, const json_t *rep, const char *key, const char *id,
		      const char *title, size_t e)
{
	const json_t *r;
	size_t i;

	strbuf__addstr(sb, "<h2 id=");
	esc(sb, id);
	strbuf__addstr(sb, ">");
	esc(sb, title);
	strbuf__addstr(sb, "</h2><table class=rows><tr><th>self</th><th>total</th>"
			   "<th>samples</th><th>estimated</th><th>function</th><th>where</th>"
			   "<th>module</th></tr>");
	json_array_foreach(json_object_get(rep, key), i, r)
	{
		strbuf__addstr(sb, "<tr>");
		pct(sb, jnum(r, "share"));
		pct(sb, jnum(r, "total_share"));
		num(sb, jnum_at(r, "samples", e));
		num(sb, jnum_at(r, "estimated", e));
		strbuf__addstr(sb, "<td class=fn>");
		esc(sb, jstr(r, "function"));
		strbuf__addstr(sb, "</td>");
		where(sb, r);
		strbuf__addstr(sb, "<td class=dim>");
		esc(sb, jstr(r, "module"));
		strbuf__addstr(sb, "</td></tr>");
	}
	strbuf__addstr(sb, "</table>");
}

/* ---- the per-thread timeline ------------------------------------------------ */

/* One row per thread: its samples of the event per slice of the run, a
 * bar each, the thread's busiest slice full height. */
static void html_timeline(struct strbuf *sb, const struct export_samples *x)
{
	double span = x->last > x->first ? (double)(x->last - x->first) : 1;
	size_t rows = x->nr_threads < TIMELINE_THREADS ? x->nr_threads : TIMELINE_THREADS;

	strbuf__addf(sb,
		     "<h2 id=timeline>Threads over time</h2><p class=dim>%.3f ms from the "
		     "first sample to the last; a bar per 1/%d of it, as tall as the thread's "
		     "samples in it",
		     span / 1e6, TIMELINE_BINS);
	if (rows < x->nr_threads)
		strbuf__addf(sb, "; the first %zu threads to run of %zu", rows, x->nr_threads);
	strbuf__addstr(sb, "</p>");
	strbuf__addf(sb, "<svg class=timeline width=%d height=%zu viewBox=\"0 0 %d %zu\">",
		     TIMELINE_BINS * 4 + 220, rows * 22 + 4, TIMELINE_BINS * 4 + 220,
		     rows * 22 + 4);
	for (size_t t = 0; t < rows; t++) {
		const struct xs_thread *th = &x->threads[t];
		unsigned bins[TIMELINE_BINS] = { 0 }, most = 1;

		for (size_t i = 0; i < th->nr; i++) {
			double at = (double)(x->samples[th->idx[i]].time - x->first) / span;
			size_t b = (size_t)(at * (TIMELINE_BINS - 1));

			if (++bins[b] > most)
				most = bins[b];
		}
		strbuf__addf(sb, "<text x=0 y=%zu>", t * 22 + 16);
		esc(sb, th->name);
		strbuf__addf(sb, " (%u) %zu</text>", th->tid, th->nr);
		for (size_t b = 0; b < TIMELINE_BINS; b++) {
			double h = 18.0 * bins[b] / most;

			if (bins[b])
				strbuf__addf(sb,
					     "<rect x=%zu y=%.1f width=4 height=%.1f fill=\"#4a7\">"
					     "<title>%u samples</title></rect>",
					     220 + 4 * b, (double)t * 22 + 20 - h, h, bins[b]);
		}
	}
	strbuf__addstr(sb, "</svg>");
}

/* ---- the flame graph ------------------------------------------------------- */

struct fnode {
	const char *name; /* into the folded text */
	size_t len;
	uint64_t value;
	uint32_t first, last, next; /* children (index + 1; 0: none) */
};

struct flame {
	struct fnode *n;
	size_t nr, cap;
	unsigned depth;
};

/* The child of parent named name[0..len): folded lines come sorted, so a
 * known child is always the last one made. */
static uint32_t flame_child(struct flame *f, uint32_t parent, const char *name, size_t len)
{
	uint32_t last = f->n[parent].last;
	struct fnode *c;

	if (last && f->n[last - 1].len == len && !memcmp(f->n[last - 1].name, name, len))
		return last - 1;
	f->n = xgrow(f->n, &f->cap, f->nr + 1, sizeof(*f->n));
	c = &f->n[f->nr];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->len = len;
	if (last)
		f->n[last - 1].next = (uint32_t)f->nr + 1;
	else
		f->n[parent].first = (uint32_t)f->nr + 1;
	f->n[parent].last = (uint32_t)f->nr + 1;
	return (uint32_t)f->nr++;
}

/* The tree of folded stacks "a;b;c COUNT\n" (text kept, names point in). */
static void flame_build(struct flame *f, const char *text)
{
	f->n = xgrow(f->n, &f->cap, 1, sizeof(*f->n));
	memset(f->n, 0, sizeof(*f->n));
	f->n[0].name = "all";
	f->n[0].len = 3;
	f->nr = 1;
	while (*text) {
		const char *eol = strchr(text, '\n'), *sp;
		uint64_t count;
		uint32_t cur = 0;
		unsigned d = 0;

		if (!eol)
			eol = text + strlen(text);
		for (sp = eol; sp > text && sp[-1] != ' '; sp--)
			;
		count = strtoull(sp, NULL, 10);
		f->n[0].value += count;
		for (const char *p = text; sp > text && p < sp - 1; d++) {
			const char *semi = memchr(p, ';', (size_t)(sp - 1 - p));
			size_t len = semi ? (size_t)(semi - p) : (size_t)(sp - 1 - p);

			cur = flame_child(f, cur, p, len);
			f->n[cur].value += count;
			p += len + 1;
		}
		if (d > f->depth)
			f->depth = d;
		text = *eol ? eol + 1 : eol;
	}
}

/* A warm colour from the name, the same for a function everywhere. */
static void flame_colour(struct strbuf *sb, const char *name, size_t len)
{
	uint64_t h = gx_hash(name, len);

	strbuf__addf(sb, "rgb(%u,%u,%u)", 205 + (unsigned)(h % 50), 80 + (unsigned)((h >> 8) % 130),
		     40 + (unsigned)((h >> 16) % 50));
}

static void flame_node(struct strbuf *sb, const struct flame *f, uint32_t i, double x0,
		       unsigned depth)
{
	const struct fnode *n = &f->n[i];
	double total = (double)f->n[0].value, w = (double)n->value / total;
	char *name = xstrndup(n->name, n->len);
	size_t fit = (size_t)(w * FLAME_W / 7);

	if (w < FLAME_MIN) {
		free(name);
		return;
	}
	strbuf__addf(sb, "<g data-x=\"%.6f\" data-w=\"%.6f\" data-n=\"", x0, w);
	esc(sb, name);
	strbuf__addstr(sb, "\"><title>");
	esc(sb, name);
	strbuf__addf(sb,
		     " (%llu, %.2f%%)</title><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" "
		     "height=\"%d\" fill=\"",
		     (unsigned long long)n->value, 100 * w, x0 * FLAME_W, depth * FLAME_ROW,
		     w * FLAME_W, FLAME_ROW - 1);
	flame_colour(sb, n->name, n->len);
	strbuf__addf(sb, "\"/><text x=\"%.1f\" y=\"%u\">", x0 * FLAME_W + 3,
		     depth * FLAME_ROW + FLAME_ROW - 5);
	if (fit > 2) {
		if (strlen(name) > fit)
			strcpy(name + fit - 2, "..");
		esc(sb, name);
	}
	strbuf__addstr(sb, "</text></g>\n");
	free(name);
	for (uint32_t c = n->first; c; c = f->n[c - 1].next) {
		flame_node(sb, f, c - 1, x0, depth + 1);
		x0 += (double)f->n[c - 1].value / total;
	}
}

/* A flame graph of folded stacks under a heading (title, escaped here),
 * its counts in unit ("samples", "ns"). */
static void html_flame(struct strbuf *sb, const char *folded, const char *title, const char *event,
		       const char *unit)
{
	struct flame f = { 0 };

	flame_build(&f, folded);
	strbuf__addstr(sb, "<h2>");
	esc(sb, title);
	strbuf__addstr(sb, "</h2><p class=dim>");
	esc(sb, event);
	strbuf__addf(
		sb,
		", %llu %s in all (a modelled result: its counts); the root on top, callees below it, each box as wide as "
		"its share (with JavaScript: click to zoom, click the root to return)</p>"
		"<input class=search placeholder=\"search functions\">",
		(unsigned long long)f.n[0].value, unit);
	strbuf__addf(sb,
		     "<svg class=flame width=\"%.0f\" height=\"%u\" "
		     "viewBox=\"0 0 %.0f %u\">\n",
		     FLAME_W, (f.depth + 1) * FLAME_ROW, FLAME_W, (f.depth + 1) * FLAME_ROW);
	if (f.n[0].value)
		flame_node(sb, &f, 0, 0, 0);
	strbuf__addstr(sb, "</svg>");
	free(f.n);
}

/* Zoom and search: a few lines, no library; the page works without. Each
 * flame graph zooms on its own; a search marks matches in every one. */
static const char script[] =
	"document.querySelectorAll('svg.flame').forEach(function(svg){"
	"var W=svg.viewBox.baseVal.width,gs=svg.querySelectorAll('g');"
	"function zoom(x,w){gs.forEach(function(g){var gx=+g.dataset.x,gw=+g.dataset.w,"
	"r=g.querySelector('rect'),t=g.querySelector('text'),nx=(gx-x)/w*W,nw=gw/w*W,"
	"out=gx+gw<=x||gx>=x+w;if(gx<=x+1e-9&&gx+gw>=x+w-1e-9){nx=0;nw=W;}"
	"g.style.display=out?'none':'';r.setAttribute('x',nx);"
	"r.setAttribute('width',nw);t.setAttribute('x',nx+3);var n=g.dataset.n,k=Math.floor(nw/7);"
	"t.textContent=k>2?(n.length>k?n.slice(0,k-2)+'..':n):'';});}"
	"gs.forEach(function(g){g.addEventListener('click',function(){"
	"zoom(+g.dataset.x,+g.dataset.w);});});});"
	"document.querySelectorAll('input.search').forEach(function(i){"
	"i.addEventListener('input',function(){var q=i.value;"
	"document.querySelectorAll('svg.flame g').forEach(function(g){"
	"g.classList.toggle('match',q!==''&&g.dataset.n.indexOf(q)>=0);});});});";

/* The page's head and heading, up to the body's first section. */
static void html_begin(struct strbuf *sb, const char *title)
{
	strbuf__addstr(sb, "<!DOCTYPE html>\n<html lang=en><head><meta charset=\"utf-8\">"
			   "<meta name=viewport content=\"width=device-width\"><title>");
	esc(sb, title);
	strbuf__addf(sb, "</title><style>%s</style></head><body>\n<h1>", style);
	esc(sb, title);
	strbuf__addstr(sb, "</h1>");
}

static void html_end(struct strbuf *sb)
{
	strbuf__addf(sb, "\n<script>%s</script>\n</body></html>\n", script);
}

/* The page's end, then the page to path unless err (a negative code of
 * what drew it); sb is emptied. 0 or a negative code with *cause. */
static int html_finish(struct strbuf *sb, int err, const char *path, char **cause)
{
	html_end(sb);
	if (!err)
		err = export_write_file(path, sb->buf, sb->len, cause);
	else
		err = gx_fail(cause, err, "html: %s", gx_strerror(err));
	strbuf__exit(sb);
	return err;
}

/* The flame graph of result r's event e under title: a sampled event's
 * samples, a value's amounts (export_folded weighs them so). */
static int result_flame(struct strbuf *sb, struct gx_result *r, size_t e, const char *title)
{
	struct strbuf folded = STRBUF_INIT;
	const struct gx_event *ev = gx_result__event(r, e);
	int err = export_folded(&folded, r, e);

	if (!err)
		html_flame(sb, folded.buf ? folded.buf : "", title, ev->name,
			   ev->source == GX_SOURCE_PERIOD ? "samples" : ev->unit);
	strbuf__exit(&folded);
	return err;
}

bool export_html__own_value(const struct gx_result *r, size_t e, size_t v)
{
	const struct gx_event *ev = gx_result__event(r, v);

	return v != e && ev->source != GX_SOURCE_PERIOD && ev->reason < 0 && ev->run_value > 0;
}

/* Value v's sections (the page of event e): its hottest functions, from
 * report's document sorted by it, and its flame graph. */
static int html_value(struct strbuf *sb, struct gx_result *r, const struct export_html_value *v)
{
	json_error_t jerr;
	json_t *rep = json_loads(v->report_json, 0, &jerr);
	const char *name = gx_result__event(r, v->event)->name;
	char *id = xasprintf("value-%s", name);
	char *title = xasprintf("Hottest functions by %s (%s)", name,
				gx_result__event(r, v->event)->unit);
	int err = 0;

	if (!rep)
		err = -EINVAL;
	else
		html_rows(sb, rep, "functions", id, title, v->event);
	free(title);
	if (!err) {
		title = xasprintf("Flame graph of %s", name);
		err = result_flame(sb, r, v->event, title);
		free(title);
	}
	json_decref(rep);
	free(id);
	return err;
}

int export_html__write(const struct export_html_in *in, const char *path, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	json_error_t jerr;
	json_t *rep = json_loads(in->report_json, 0, &jerr);
	json_t *chk = in->check_json ? json_loads(in->check_json, 0, &jerr) : NULL;
	char *title = xasprintf("gexplore report: %s", gx_result__path(in->res));
	int err;

	if (!rep || (in->check_json && !chk)) {
		json_decref(rep);
		free(title);
		return gx_fail(cause, -EINVAL, "html: a report to draw is not JSON: %s", jerr.text);
	}
	html_begin(&sb, title);
	strbuf__addstr(&sb, "<p class=dim>by gexplore " PACKAGE_VERSION ", rows ordered by ");
	esc(&sb, gx_result__event(in->res, in->event)->name);
	strbuf__addstr(&sb, "</p>\n");
	if (chk)
		html_check(&sb, chk);
	html_summary(&sb, rep);
	html_topdown(&sb, rep);
	html_rows(&sb, rep, "functions", "functions", "Hottest functions", in->event);
	html_rows(&sb, rep, "lines", "lines", "Hottest lines", in->event);
	if (in->samples) {
		export_samples__threads(in->samples, in->res, in->event);
		if (in->samples->nr_threads)
			html_timeline(&sb, in->samples);
	}
	err = result_flame(&sb, in->res, in->event, "Flame graph");
	for (size_t i = 0; !err && i < in->nr_values; i++)
		err = html_value(&sb, in->res, &in->values[i]);
	err = html_finish(&sb, err, path, cause);
	json_decref(rep);
	json_decref(chk);
	free(title);
	return err;
}

/* ---- diff ----------------------------------------------------------------- */

/* Whether a diff entry's metric is value's or one of its split
 * ("off-cpu", "off-cpu:lock" of "off-cpu"). */
static bool of_value(const json_t *e, const char *value)
{
	const char *m = jstr(e, "metric");
	size_t n = strlen(value);

	return !strncmp(m, value, n) && (!m[n] || m[n] == ':');
}

/* The changes of a diff's JSON, those beyond noise (noise false) or
 * within; with value, that value's changes only, beyond noise or not. */
static void html_changes(struct strbuf *sb, const json_t *d, bool noise, const char *value)
{
	const json_t *e;
	size_t i;

	strbuf__addstr(sb, "<table class=changes><tr><th>scope</th><th>metric</th><th>A</th>"
			   "<th>B</th><th>delta</th><th>95% interval of the delta</th>"
			   "<th>change</th><th>kind</th><th>row</th></tr>");
	json_array_foreach(json_object_get(d, "entries"), i, e)
	{
		const json_t *iv;

		if (value ? !of_value(e, value) : json_is_true(json_object_get(e, "noise")) != noise)
			continue;
		iv = json_pack("[f,f]", jnum(e, "delta_lo"), jnum(e, "delta_hi"));
		strbuf__addstr(sb, "<tr><td>");
		esc(sb, jstr(e, "scope"));
		strbuf__addstr(sb, "</td><td>");
		esc(sb, jstr(e, "metric"));
		strbuf__addstr(sb, "</td>");
		for (size_t k = 0; k < 3; k++) {
			double v = jnum(e, (const char *[]){ "a", "b", "delta" }[k]);

			if (isnan(v))
				strbuf__addstr(sb, "<td class=n>-</td>");
			else
				num(sb, v);
		}
		interval(sb, isnan(jnum(e, "delta_lo")) ? NULL : iv, false);
		json_decref((json_t *)iv);
		if (isnan(jnum(e, "a")) || isnan(jnum(e, "b")))
			strbuf__addf(sb, "<td class=n>%s</td>",
				     isnan(jnum(e, "a")) ? "new" : "gone");
		else
			pct(sb, jnum(e, "change"));
		strbuf__addstr(sb, "<td>");
		esc(sb, jstr(e, "kind"));
		strbuf__addstr(sb, "</td><td>");
		esc(sb, *jstr(e, "row") ? jstr(e, "row") : "(whole run)");
		strbuf__addstr(sb, "</td></tr>");
	}
	strbuf__addstr(sb, "</table>");
}

/* Value v of a, when b has it too and export_html__own_value names it in
 * both (off-cpu): its changes, beyond noise or not, and its flame graphs. */
static int diff_value(struct strbuf *sb, const json_t *d, struct gx_result *a,
		      struct gx_result *b, size_t v)
{
	const char *name = gx_result__event(a, v)->name;
	size_t bv;
	char *title;
	int err;

	if (!export_html__own_value(a, gx_result__sort_event(a), v) ||
	    gx_result__find_event(b, name, &bv) != 0 ||
	    !export_html__own_value(b, gx_result__sort_event(b), bv))
		return 0;
	strbuf__addstr(sb, "<h2 id=value-");
	esc(sb, name);
	strbuf__addstr(sb, ">Changes of ");
	esc(sb, name);
	strbuf__addf(sb, " (%s)</h2><p class=dim>biggest first, within noise or not (the "
			 "interval of a change within noise holds 0)</p>",
		     gx_result__event(a, v)->unit);
	html_changes(sb, d, false, name);
	title = xasprintf("Flame graph of %s in A", name);
	err = result_flame(sb, a, v, title);
	free(title);
	if (!err) {
		title = xasprintf("Flame graph of %s in B", name);
		err = result_flame(sb, b, bv, title);
		free(title);
	}
	return err;
}

int export_html_diff__write(const char *diff_json, struct gx_result *a, struct gx_result *b,
			    const char *path, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	json_error_t jerr;
	json_t *d = json_loads(diff_json, 0, &jerr);
	char *title;
	int err;

	if (!d)
		return gx_fail(cause, -EINVAL, "html: the diff to draw is not JSON: %s", jerr.text);
	title = xasprintf("gexplore diff: %s and %s", jstr(d, "a"), jstr(d, "b"));
	html_begin(&sb, title);
	strbuf__addstr(&sb, "<p class=dim>by gexplore " PACKAGE_VERSION "</p>"
			    "<table><tr><th>A</th><td><code>");
	esc(&sb, jstr(d, "a"));
	strbuf__addstr(&sb, "</code></td></tr><tr><th>B</th><td><code>");
	esc(&sb, jstr(d, "b"));
	strbuf__addstr(&sb, "</code></td></tr></table><h2 id=changes>What changed</h2>"
			    "<p class=dim>biggest first; the interval of a sampled value's change "
			    "holds the true change 95% of the time; an exact or modelled value's "
			    "change is a change</p>");
	html_changes(&sb, d, false, NULL);
	strbuf__addstr(&sb, "<h2 id=noise>Within noise</h2><p class=dim>the interval of the "
			    "change holds 0</p>");
	html_changes(&sb, d, true, NULL);
	err = result_flame(&sb, a, gx_result__sort_event(a), "Flame graph of A");
	if (!err)
		err = result_flame(&sb, b, gx_result__sort_event(b), "Flame graph of B");
	for (size_t v = 0; !err && v < gx_result__nr_events(a); v++)
		err = diff_value(&sb, d, a, b, v);
	err = html_finish(&sb, err, path, cause);
	json_decref(d);
	free(title);
	return err;
}
