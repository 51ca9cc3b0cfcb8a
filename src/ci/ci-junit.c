/*
 * ci-junit.c: check outcomes in the formats CI systems read — JUnit XML (the
 * subset GitLab and Jenkins parse: testsuites/testsuite/testcase with
 * failure and skipped children; tests/junit.xsd is the schema the tests
 * validate against) and GitHub Actions workflow commands.
 */
#include "config.h"

#include "ci.h"

#include "result/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text already escaped (printable ASCII and valid UTF-8) as XML character
 * data or an attribute value. */
static void xml_chars(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': strbuf__addstr(out, "&amp;"); break;
		case '<': strbuf__addstr(out, "&lt;"); break;
		case '>': strbuf__addstr(out, "&gt;"); break;
		case '"': strbuf__addstr(out, "&quot;"); break;
		case '\'': strbuf__addstr(out, "&apos;"); break;
		default:
			/* U+FFFE and U+FFFF are valid UTF-8 but no XML 1.0 character */
			if (i + 2 < n && !memcmp(s + i, "\xef\xbf", 2) &&
			    ((unsigned char)s[i + 2] & 0xfe) == 0xbe) {
				strbuf__addf(out, "\\u%s", s[i + 2] & 1 ? "ffff" : "fffe");
				i += 2;
			} else {
				strbuf__add(out, s + i, 1);
			}
		}
	}
}

/*
 * A name or message in the XML: escaped by the one rule for text (util.h:
 * a control byte, a bidi control and each byte of invalid UTF-8 become a
 * visible escape), so the file is well-formed whatever the names hold;
 * its newlines and tabs stay, as character references.
 */
static void xml_escape(struct strbuf *out, const char *s)
{
	struct strbuf esc = STRBUF_INIT;

	while (*s) {
		size_t n = strcspn(s, "\n\t");

		esc.len = 0;
		gx_escape(&esc, s, n);
		xml_chars(out, esc.buf, esc.len);
		s += n;
		if (*s)
			strbuf__addstr(out, *s++ == '\n' ? "&#10;" : "&#9;");
	}
	strbuf__exit(&esc);
}

/* file relative to the report's source root when it lies under it */
static const char *rel_path(const struct ci_report *rep, const char *file)
{
	size_t n = rep->source_root ? strlen(rep->source_root) : 0;

	while (n > 1 && rep->source_root[n - 1] == '/')
		n--;
	if (n && !strncmp(file, rep->source_root, n) && file[n] == '/' && file[n + 1])
		return file + n + 1;
	return file;
}

static const char *op_word(enum ci_op op)
{
	return op == CI_MAX ? "max" : op == CI_MIN ? "min" : "max-regress";
}

/* "cpi max 1.2 [process backend (1000)]" */
static char *case_name(const struct ci_outcome *o)
{
	const struct ci_check *c = o->check;
	char lim[48];

	if (c->percent)
		snprintf(lim, sizeof(lim), "%g%%", 100 * c->limit);
	else if (c->time)
		ci_human(lim, sizeof(lim), CI_UNIT_NS, false, 3, c->limit);
	else
		snprintf(lim, sizeof(lim), "%g", c->limit);
	if (o->scope == CI_SCOPE_RUN)
		return xasprintf("%s %s %s [run]", c->metric, op_word(c->op), lim);
	if (o->scope == CI_SCOPE_PROCESS)
		return xasprintf("%s %s %s [process %s (%u)]", c->metric, op_word(c->op), lim,
				 o->row, o->pid);
	return xasprintf("%s %s %s [%s %s]", c->metric, op_word(c->op), lim,
			 ci_scope_name(o->scope), o->row);
}

/* x in the outcome's unit, to 6 digits (buf holds 48) */
static const char *human(const struct ci_outcome *o, double x, char *buf)
{
	ci_human(buf, 48, o->unit, false, 2, x);
	return buf;
}

void ci_report__junit(const struct ci_report *rep, struct strbuf *out)
{
	strbuf__addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf__addf(out, "<testsuites name=\"gexplore check\" tests=\"%zu\" failures=\"%zu\" "
		     "errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", rep->nr, rep->nr_fail,
		     rep->nr_skip, rep->seconds);
	strbuf__addstr(out, "  <testsuite name=\"");
	xml_escape(out, rep->result);
	strbuf__addf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" "
		     "time=\"%.3f\">\n", rep->nr, rep->nr_fail, rep->nr_skip, rep->seconds);
	for (size_t i = 0; i < rep->nr; i++) {
		const struct ci_outcome *o = &rep->outcomes[i];
		char *name = case_name(o), v[48], l[48];

		strbuf__addstr(out, "    <testcase name=\"");
		xml_escape(out, name);
		strbuf__addf(out, "\" classname=\"gexplore.check.%s\"", ci_scope_name(o->scope));
		if (o->file) {
			strbuf__addstr(out, " file=\"");
			xml_escape(out, rel_path(rep, o->file));
			strbuf__addf(out, "\" line=\"%u\"", o->line);
		}
		strbuf__addf(out, " time=\"%.3f\"", rep->nr ? rep->seconds / (double)rep->nr : 0);
		if (o->status == CI_PASS && o->modelled) {
			strbuf__addstr(out, ">\n      <system-out>");
			xml_escape(out, o->message);
			strbuf__addstr(out, "</system-out>\n    </testcase>\n");
		} else if (o->status == CI_PASS) {
			strbuf__addstr(out, "/>\n");
		} else if (o->status == CI_FAIL) {
			strbuf__addstr(out, ">\n      <failure type=\"threshold\" message=\"");
			xml_escape(out, o->message);
			strbuf__addstr(out, "\">");
			strbuf__addstr(out, "metric: ");
			xml_escape(out, o->check->metric);
			strbuf__addf(out, "&#10;value: %s&#10;limit: %s", human(o, o->value, v),
				     human(o, o->limit_value, l));
			if (o->nr_values > 1 && !gx_kind_fixed(o->kind))
				strbuf__addf(out, "&#10;interval: [%s, %s] over %zu runs",
					     human(o, o->lo, v), human(o, o->hi, l), o->nr_values);
			if (o->has_baseline)
				strbuf__addf(out, "&#10;baseline: %s", human(o, o->baseline, v));
			if (o->file) {
				strbuf__addstr(out, "&#10;hottest line: ");
				xml_escape(out, o->file);
				strbuf__addf(out, ":%u", o->line);
			}
			strbuf__addstr(out, "</failure>\n    </testcase>\n");
		} else {
			strbuf__addstr(out, ">\n      <skipped message=\"");
			xml_escape(out, o->message);
			strbuf__addstr(out, "\"/>\n    </testcase>\n");
		}
		free(name);
	}
	strbuf__addstr(out, "  </testsuite>\n</testsuites>\n");
}

/* Workflow command escaping: data escapes % CR LF (GitHub shows %0A as a
 * line break); property values also ':' and ','. Every other control byte
 * or invalid UTF-8 by the terminal rule (util.h): the log that shows the
 * annotation is a terminal too. */
static void gh_escape(struct strbuf *out, const char *s, bool property)
{
	while (*s) {
		size_t n = strcspn(s, property ? "%\r\n:," : "%\r\n");

		gx_escape(out, s, n);
		s += n;
		if (!*s)
			break;
		strbuf__addstr(out, *s == '%' ? "%25" : *s == '\r' ? "%0D" : *s == '\n' ? "%0A" :
				    *s == ':' ? "%3A" : "%2C");
		s++;
	}
}

void ci_report__github(const struct ci_report *rep, struct strbuf *out)
{
	for (size_t i = 0; i < rep->nr; i++) {
		const struct ci_outcome *o = &rep->outcomes[i];

		if (o->status == CI_PASS)
			continue;
		strbuf__addstr(out, o->status == CI_FAIL ? "::error " : "::warning ");
		if (o->file && o->status == CI_FAIL) {
			strbuf__addstr(out, "file=");
			gh_escape(out, rel_path(rep, o->file), true);
			strbuf__addf(out, ",line=%u,", o->line ? o->line : 1);
		}
		strbuf__addstr(out, "title=gexplore check::");
		gh_escape(out, o->message, false);
		strbuf__addstr(out, "\n");
	}
}
