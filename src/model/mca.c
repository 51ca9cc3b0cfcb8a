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

int mca_parse_rt(const char *text, double *cyc, double *rt, size_t nr, double *width,
		 char **cause)
{
	const char *s = text;
	double iters = NAN, total;
	size_t cur = 0, found = 0;

	for (size_t k = 0; k < nr; k++) {
		cyc[k] = NAN;
		if (rt)
			rt[k] = NAN;
	}
	if (width)
		*width = 0;
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
		} else if (field(line, "Iterations:", &v)) {
			iters = v;
		} else if (field(line, "Total Cycles:", &total)) {
			if (cur < nr && iters > 0 && total >= 0) {
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
	if (!found)
		return gx_fail(cause, GX_E_FORMAT, "llvm-mca: no code region in its output");
	return 0;
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

int mca_run(const struct model_scratch *scratch, const char *cpu, char **lines, size_t nr_lines,
	    size_t nr, double *cyc, double *rt, double *width, size_t *dropped, char **cause)
{
	char *mcpu = xasprintf("-mcpu=%s", cpu), *in = NULL;
	char *argv[] = { "llvm-mca", mcpu, "-iterations=100", "-instruction-info=0",
			 "-resource-pressure=0", NULL, NULL };
	size_t bad[64];
	int err = -EIO;

	*dropped = 0;
	for (int round = 0; round < 8; round++) {
		struct strbuf sb = STRBUF_INIT;
		char *text, *etext;
		size_t nb;
		int st;

		for (size_t i = 0; i < nr_lines; i++) {
			strbuf__addstr(&sb, lines[i]);
			strbuf__addstr(&sb, "\n");
		}
		text = strbuf__detach(&sb);
		free(in);
		/* in the private directory, by its absolute path */
		in = model_scratch__put(scratch, "mca.s", text, strlen(text), &st);
		free(text);
		if (!in) {
			err = gx_fail(cause, st, "llvm-mca: writing its input: %s", gx_strerror(st));
			goto out;
		}
		argv[5] = in;
		st = model_tool(scratch, argv, &text, &etext);
		if (st < 0) {
			free(text);
			free(etext);
			err = gx_fail(cause, GX_E_USAGE, "llvm-mca not found: install the Debian "
				      "package llvm");
			goto out;
		}
		nb = bad_lines(etext ? etext : "", in, bad, 64);
		if (st == 0 || !nb) {
			if (st != 0 || !text)
				err = gx_fail(cause, GX_E_FORMAT, "llvm-mca failed (status %d): %.200s",
					      st, etext ? etext : "");
			else
				err = mca_parse_rt(text, cyc, rt, nr, width, cause);
			free(text);
			free(etext);
			goto out;
		}
		free(text);
		free(etext);
		for (size_t k = 0; k < nb; k++)
			if (bad[k] <= nr_lines && lines[bad[k] - 1][0] != '#') {
				free(lines[bad[k] - 1]);
				lines[bad[k] - 1] = xstrdup("# dropped: llvm-mca cannot assemble it");
				(*dropped)++;
			}
	}
	err = gx_fail(cause, GX_E_FORMAT, "llvm-mca: still failing after dropping %zu lines",
		      *dropped);
out:
	unlinkat(scratch->fd, "mca.s", 0);
	free(in);
	free(mcpu);
	return err;
}
