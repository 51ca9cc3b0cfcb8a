/*
 * mca.c: llvm-mca over the hot basic blocks, in one batched run (one
 * LLVM-MCA-BEGIN/END region a block), and its output parsed.
 */
#include "config.h"

#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model-int.h"
#include "util/util.h"

/* The value after "Key:" on a line that starts with it (spaces first). */
static bool field(const char *line, const char *key, double *v)
{
	size_t n = strlen(key);
	char *e;

	while (*line == ' ')
		line++;
	if (strncmp(line, key, n))
		return false;
	*v = strtod(line + n, &e);
	return e != line + n;
}

int mca_parse(const char *text, double *cyc, size_t nr, double *width, char **cause)
{
	return mca_parse_rt(text, cyc, NULL, nr, width, cause);
}

/* An instruction's latency onto region k's list. */
static void lat_add(struct mca_lat *lat, size_t k, double v)
{
	struct mca_lat *l = &lat[k];

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = v;
}

/* text's regions into cyc[] (NULL: not wanted) and rt[] by their names
 * (bN), their instructions' latencies (the Instruction Info table) into lat[] (NULL:
 * not wanted), and the dispatch width where *width is still 0: how many
 * regions it had. */
static size_t parse_into(const char *text, double *cyc, double *rt, struct mca_lat *lat,
			 size_t nr, double *width)
{
	const char *s = text;
	double iters = NAN, total;
	size_t cur = 0, found = 0;
	bool info = false;	/* in a region's Instruction Info rows */

	while (s && *s) {
		const char *nl = strchr(s, '\n');
		char line[256];
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		unsigned long k;
		double v;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, s, n);
		line[n] = 0;
		if (line[0] == '[' && sscanf(line, "[%lu] Code Region", &k) == 1 &&
		    strstr(line, "Code Region")) {
			const char *name = strstr(line, "Code Region - b");

			/* by its name bN: llvm-mca leaves an empty region out
			 * and numbers the rest in turn, so that [k] is the
			 * k-th region it kept, not the k-th it was given */
			if (name)
				sscanf(name, "Code Region - b%lu", &k);
			cur = k;
			iters = NAN;
			info = false;
		} else if (lat && strstr(line, "[6]") && strstr(line, "Instructions:")) {
			info = cur < nr;
			if (info)
				lat[cur].n = 0;
		} else if (info) {
			unsigned long uops;

			/* "  1      3     1.00    imulq  %rdi, %rcx": uops, latency */
			if (sscanf(line, " %lu %lf", &uops, &v) == 2)
				lat_add(lat, cur, v);
			else
				info = false;
		} else if (field(line, "Iterations:", &v)) {
			iters = v;
		} else if (field(line, "Total Cycles:", &total)) {
			if (cur < nr && iters > 0 && total >= 0) {
				if (cyc)
					cyc[cur] = total / iters;
				found++;
			}
		} else if (rt && field(line, "Block RThroughput:", &v)) {
			if (cur < nr && v >= 0)
				rt[cur] = v;
		} else if (width && field(line, "Dispatch Width:", &v) && !*width) {
			*width = v;
		}
		s = nl ? nl + 1 : NULL;
	}
	return found;
}

static void parse_reset(double *cyc, double *rt, size_t nr, double *width)
{
	for (size_t k = 0; k < nr; k++) {
		cyc[k] = NAN;
		if (rt)
			rt[k] = NAN;
	}
	if (width)
		*width = 0;
}

int mca_parse_rt(const char *text, double *cyc, double *rt, size_t nr, double *width,
		 char **cause)
{
	parse_reset(cyc, rt, nr, width);
	if (!parse_into(text, cyc, rt, NULL, nr, width))
		return gx_fail(cause, GX_E_FORMAT, "llvm-mca: no code region in its output");
	return 0;
}

size_t mca_parse_lat(const char *text, struct mca_lat *lat, size_t nr)
{
	return parse_into(text, NULL, NULL, lat, nr, NULL);
}

const char *mca_cpu_for(const char *vendor, int family, int model, unsigned arm_part,
			char **note)
{
	*note = NULL;
	if (vendor && !strcmp(vendor, "AuthenticAMD")) {
		if (family == 0x17)
			return model >= 0x30 ? "znver2" : "znver1";
		if (family == 0x19 && ((model >= 0x10 && model < 0x20) ||
				       (model >= 0x60 && model < 0x80) || model >= 0xa0))
			*note = xstrdup("Zen 4: llvm 14 has no znver4; modelled as znver3 "
					"(one 512-bit operation is two 256-bit ones there)");
		else if (family >= 0x1a)
			*note = xstrdup("Zen 5: llvm 14 knows no newer model than znver3; "
					"modelled as znver3 (Zen 5 is wider: fewer modelled "
					"core cycles would be right)");
		return "znver3";
	}
	if (vendor && !strcmp(vendor, "GenuineIntel") && family == 6) {
		switch (model) {
		case 0x55:
			return "skylake-avx512";
		case 0x6a: case 0x6c:
			return "icelake-server";
		case 0x7d: case 0x7e:
			return "icelake-client";
		case 0x8f: case 0xcf:
			return "sapphirerapids";
		case 0x8c: case 0x8d:
			return "tigerlake";
		case 0x97: case 0x9a: case 0xb7: case 0xba: case 0xbf:
			return "alderlake";
		case 0x4e: case 0x5e: case 0x8e: case 0x9e: case 0xa5: case 0xa6:
			return "skylake";
		default:
			*note = xstrdup("this Intel CPU model is not in gexplore's table; "
					"modelled as skylake");
			return "skylake";
		}
	}
	switch (arm_part) {
	case 0xd0c:
		return "neoverse-n1";
	case 0xd40:
		return "neoverse-v1";
	case 0xd49:
		return "neoverse-n2";
	case 0xd07:
		return "cortex-a57";
	case 0:
		break;
	default:
		*note = xstrdup("this Arm core is not in gexplore's table; modelled as "
				"neoverse-n1");
		return "neoverse-n1";
	}
	if (!vendor || !*vendor)
		return "cortex-a57";
	*note = xstrdup("this CPU is not in gexplore's table; modelled as skylake");
	return "skylake";
}

/* Line numbers llvm-mca names in "FILE:LINE:COL: error:" messages. */
static size_t bad_lines(const char *err, const char *file, size_t *out, size_t max)
{
	size_t n = 0, fl = strlen(file);

	for (const char *s = err; s && *s && n < max; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		unsigned long line;
		char *e;

		if (strncmp(s, file, fl) || s[fl] != ':')
			continue;
		line = strtoul(s + fl + 1, &e, 10);
		if (*e == ':' && line && strstr(s, "error:") &&
		    strstr(s, "error:") < (strchr(s, '\n') ? strchr(s, '\n') : s + strlen(s)))
			out[n++] = line;
	}
	return n;
}

/*
 * llvm-mca's regions are independent (each its own simulation), so the
 * regions run as MCA_CHUNKS files at most, one llvm-mca each, at once:
 * the same cycles in a fraction of the time (9.8 of sqlite3's 48 s on a
 * loaded 2-CPU VM in one run). Each chunk is a run of whole regions of
 * about the same number of lines.
 */
#define MCA_CHUNKS 8

struct mca_chunk {
	size_t first, n;	/* lines[first .. first + n) */
	char *in;		/* its file's absolute path */
	pid_t pid;
	bool done;
};

/* lines cut into at most k chunks of whole regions (a region begins at an
 * LLVM-MCA-BEGIN line); how many */
static size_t cut_chunks(char **lines, size_t nr_lines, size_t k, struct mca_chunk *c)
{
	size_t n = 0, per = (nr_lines + k - 1) / (k ? k : 1);

	for (size_t i = 0; i < nr_lines; i++) {
		bool begin = !strncmp(lines[i], "# LLVM-MCA-BEGIN", 16);

		if (!n || (begin && c[n - 1].n >= per && n < k))
			c[n++] = (struct mca_chunk){ .first = i };
		c[n - 1].n++;
	}
	return n;
}

/* Chunk j's file written and its llvm-mca started: 0, or a negative code
 * with *cause. */
static int chunk_start(const struct model_scratch *scratch, char **lines, struct mca_chunk *c,
		       size_t j, char **argv, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	char name[32], *text;
	int st;

	for (size_t i = c->first; i < c->first + c->n; i++) {
		strbuf__addstr(&sb, lines[i]);
		strbuf__addstr(&sb, "\n");
	}
	text = strbuf__detach(&sb);
	snprintf(name, sizeof(name), "mca-%zu.s", j);
	free(c->in);
	/* in the private directory, by its absolute path */
	c->in = model_scratch__put(scratch, name, text, strlen(text), &st);
	free(text);
	if (!c->in)
		return gx_fail(cause, st, "llvm-mca: writing its input: %s", gx_strerror(st));
	argv[5] = c->in;
	snprintf(name, sizeof(name), "mca-%zu", j);
	c->pid = model_tool__start(scratch, argv, name);
	return 0;
}

/* Chunk j's llvm-mca waited for: its regions parsed (c->done), or lines it
 * could not assemble dropped for another round (1), or a negative code with
 * *cause. */
static int chunk_finish(const struct model_scratch *scratch, char **lines, struct mca_chunk *c,
			size_t j, double *cyc, double *rt, struct mca_lat *lat, size_t nr,
			double *width, size_t *found, size_t *dropped, char **cause)
{
	char name[32], *text = NULL, *etext = NULL;
	size_t bad[64], nb;
	int st, err = 0;

	snprintf(name, sizeof(name), "mca-%zu", j);
	st = model_tool__finish(scratch, c->pid, name, &text, &etext);
	c->pid = 0;
	if (st < 0) {
		err = gx_fail(cause, GX_E_USAGE, "llvm-mca not found: install the Debian package "
			      "llvm");
		goto out;
	}
	nb = bad_lines(etext ? etext : "", c->in, bad, 64);
	if (st == 0 || !nb) {
		if (st != 0 || !text)
			err = gx_fail(cause, GX_E_FORMAT, "llvm-mca failed (status %d): %.200s", st,
				      etext ? etext : "");
		else
			*found += parse_into(text, cyc, rt, lat, nr, j == 0 ? width : NULL);
		c->done = true;
		goto out;
	}
	for (size_t k = 0; k < nb; k++)
		if (bad[k] <= c->n && lines[c->first + bad[k] - 1][0] != '#') {
			free(lines[c->first + bad[k] - 1]);
			lines[c->first + bad[k] - 1] = xstrdup("# dropped: llvm-mca cannot assemble it");
			(*dropped)++;
		}
	err = 1;
out:
	free(text);
	free(etext);
	return err;
}

int mca_run(const struct model_scratch *scratch, const char *cpu, char **lines, size_t nr_lines,
	    size_t nr, double *cyc, double *rt, struct mca_lat *lat, double *width, size_t *dropped,
	    char **cause)
{
	char *mcpu = xasprintf("-mcpu=%s", cpu);
	char *argv[] = { "llvm-mca", mcpu, "-iterations=100",
			 lat ? "-instruction-info=1" : "-instruction-info=0",
			 "-resource-pressure=0", NULL, NULL };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct mca_chunk c[MCA_CHUNKS] = { 0 };
	size_t nc = cut_chunks(lines, nr_lines, cpus < 1 ? 1 : cpus > MCA_CHUNKS ? MCA_CHUNKS :
			       (size_t)cpus, c), found = 0, left = nc;
	int err = 0;

	*dropped = 0;
	parse_reset(cyc, rt, nr, width);
	for (int round = 0; round < 8 && left && !err; round++) {
		for (size_t j = 0; j < nc && !err; j++)
			if (!c[j].done)
				err = chunk_start(scratch, lines, &c[j], j, argv, cause);
		for (size_t j = 0; j < nc; j++) {
			int e;

			if (c[j].done || !c[j].pid)
				continue;
			e = chunk_finish(scratch, lines, &c[j], j, cyc, rt, lat, nr, width, &found,
					 dropped, err ? NULL : cause);
			if (e < 0 && !err)
				err = e;
			left -= c[j].done;
		}
	}
	if (!err && left)
		err = gx_fail(cause, GX_E_FORMAT, "llvm-mca: still failing after dropping %zu lines",
			      *dropped);
	if (!err && !found)
		err = gx_fail(cause, GX_E_FORMAT, "llvm-mca: no code region in its output");
	for (size_t j = 0; j < nc; j++) {
		char name[32];

		snprintf(name, sizeof(name), "mca-%zu.s", j);
		unlinkat(scratch->fd, name, 0);
		free(c[j].in);
	}
	free(mcpu);
	return err;
}
