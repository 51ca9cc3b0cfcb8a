/*
 * profile: call stacks. Samples with kernel-style callchains (PERF_CONTEXT_*
 * markers, return addresses) over this test binary's own functions, fed to
 * the tool callbacks: self and total per function, recursion counted once,
 * call paths root first, the hottest line, orders, and no allocation per
 * sample after warm-up.
 */
#include "config.h"

#include "profile/profile.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "self-stack.h"

static struct pd_tool *tool;

static void sample_(uint64_t ip, uint16_t mode, const uint64_t *cc, size_t ncc, uint64_t period)
{
	struct pd_sample s = { .evsel = 0, .pid = 10, .tid = 10, .ip = ip, .period = period,
			       .misc = mode, .callchain = cc, .nr_callchain = ncc };

	tool->sample(tool, &s);
}

/* a foreign recording's kernel samples: one row that says why (sym-kernel.c) */
#define KFOREIGN "[kernel: recorded on another machine, report --kallsyms FILE with its /proc/kallsyms]"

static const struct profile_row *fn_row(struct profile *p, const char *name)
{
	size_t nr;
	const struct profile_row *const *rows = profile__rows(p, PROFILE_BY_FUNCTION, 0, &nr);

	for (size_t i = 0; i < nr; i++)
		if (!strcmp(rows[i]->name, name))
			return rows[i];
	return NULL;
}

static void path_str(struct profile *p, const struct profile_row *r, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	if (!r)
		return;
	for (uint32_t i = 0; i < r->path_len && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ";" : "",
				      profile__row(p, PROFILE_BY_FUNCTION, r->path[i])->name);
}

static void feed(uint64_t leaf, uint64_t mid, uint64_t root)
{
	const uint64_t U = PERF_CONTEXT_USER, K = PERF_CONTEXT_KERNEL;
	/* a return address is the instruction after the call: +1 here, the
	 * profile looks up ip - 1 */
	uint64_t c1[] = { U, leaf, mid + 1, root + 1 };
	uint64_t c2[] = { U, leaf, leaf + 1, leaf + 1, root + 1 };	/* recursion */
	uint64_t c3[] = { K, 0xffffffff81000010ull, 0xffffffff81000020ull, U, mid, root + 1 };

	sample_(leaf, PERF_RECORD_MISC_USER, c1, 4, 100);
	sample_(leaf, PERF_RECORD_MISC_USER, c2, 5, 100);
	sample_(0xffffffff81000010ull, PERF_RECORD_MISC_KERNEL, c3, 6, 100);
	sample_(root, PERF_RECORD_MISC_USER, NULL, 0, 100);
}

int main(void)
{
	uint64_t leaf = (uint64_t)(uintptr_t)&leaf_fn + 4, mid = (uint64_t)(uintptr_t)&mid_fn + 4;
	uint64_t root = (uint64_t)(uintptr_t)&root_fn + 4;
	struct pd_mmap m = { .pid = 10, .tid = 10, .misc = PERF_RECORD_MISC_USER };
	struct pd_comm c = { .pid = 10, .tid = 10, .comm = "app", .exec = true };
	struct profile *p = NULL;
	const struct profile_row *r, *const *rows;
	char path[512], buf[512], *cause = NULL;
	size_t nr;
	int err;

	root_fn();
	if (self_map(leaf, &m, path, sizeof(path)) != 0 || self_map(root, &m, path, sizeof(path)) ||
	    path[0] != '/')
		plan_skip_all("cannot find this executable's mapping");
	m.filename = path;
	err = profile__new_opts(&p, 1, NULL, &cause);
	ok(err == 0, "profile__new_opts without options");
	if (err)
		return done_testing();
	tool = profile__tool(p);
	tool->comm(tool, &c);
	tool->mmap(tool, &m);
	feed(leaf, mid, root);

	ok(profile__has_callchains(p), "callchains seen");
	r = fn_row(p, "leaf_fn");
	ok(r && r->samples[0] == 2 && r->period[0] == 200, "leaf_fn: self of the two user-leaf samples");
	ok(r && r->total_samples[0] == 2, "leaf_fn: recursion counted once in total");
	ok(r && r->module && strstr(r->module, "test-profile-stack"), "leaf_fn's module is this binary");
	r = fn_row(p, "mid_fn");
	ok(r && r->samples[0] == 0 && r->total_samples[0] == 2, "mid_fn: no self, total of 2 stacks");
	r = fn_row(p, "root_fn");
	ok(r && r->samples[0] == 1 && r->total_samples[0] == 4, "root_fn: on every stack, self once");
	r = fn_row(p, KFOREIGN);
	ok(r && r->samples[0] == 1 && !strcmp(r->module, "[kernel.kallsyms]"),
	   "kernel leaf: [kernel] (a recording with no env is foreign)");
	is_int(profile__total_samples(p, 0), 4, "4 samples");

	r = fn_row(p, "leaf_fn");
	r = r ? profile__hot_line(p, r->index, 0) : NULL;
	ok(r && strstr(r->file, "self-stack.h") && r->line > 0, "leaf_fn's hottest line is in its file");
	ok(r && r->samples[0] == 2, "that line has both samples");

	rows = profile__sort(p, PROFILE_BY_CALLPATH, 0, PROFILE_SORT_NAME, &nr);
	is_int(nr, 4, "four distinct call paths");
	for (size_t i = 0; i < nr; i++) {
		path_str(p, rows[i], buf, sizeof(buf));
		diag("path %zu: %s: %s", i, rows[i]->name, buf);
	}
	path_str(p, rows[0], buf, sizeof(buf));
	is_str(buf, "root_fn", "a sample without callchain: its function only");
	path_str(p, rows[1], buf, sizeof(buf));
	is_str(buf, "root_fn;leaf_fn;leaf_fn;leaf_fn", "recursion: every frame in the path, root first");
	path_str(p, rows[2], buf, sizeof(buf));
	is_str(buf, "root_fn;mid_fn;" KFOREIGN, "kernel frames after the user frames, [kernel] once");
	path_str(p, rows[3], buf, sizeof(buf));
	is_str(buf, "root_fn;mid_fn;leaf_fn", "return addresses land in their callers");
	is_str(nr ? rows[0]->name : NULL, "app", "call paths carry the comm");

	rows = profile__sort(p, PROFILE_BY_FUNCTION, 0, PROFILE_SORT_TOTAL, &nr);
	is_str(nr ? rows[0]->name : NULL, "root_fn", "--sort total: root first");
	rows = profile__sort(p, PROFILE_BY_FUNCTION, 0, PROFILE_SORT_NAME, &nr);
	ok(nr >= 4 && strcmp(rows[0]->name, rows[1]->name) < 0, "--sort name: ascending");
	rows = profile__rows(p, PROFILE_BY_FUNCTION, 0, &nr);
	is_str(nr ? rows[0]->name : NULL, "leaf_fn", "default order: self");

	{
		size_t nf = 0, nl = 0, ncp = 0;
		struct mallinfo2 before, after;

		profile__rows(p, PROFILE_BY_FUNCTION, 0, &nf);
		profile__rows(p, PROFILE_BY_LINE, 0, &nl);
		profile__rows(p, PROFILE_BY_CALLPATH, 0, &ncp);
		before = mallinfo2();
		for (int i = 0; i < 1000; i++)
			feed(leaf, mid, root);
		after = mallinfo2();
		ok(after.uordblks == before.uordblks, "no allocation per sample after warm-up (%zu -> %zu bytes)",
		   before.uordblks, after.uordblks);
		profile__rows(p, PROFILE_BY_FUNCTION, 0, &nr);
		is_int(nr, nf, "no new function rows");
		profile__rows(p, PROFILE_BY_CALLPATH, 0, &nr);
		is_int(nr, ncp, "no new call paths");
		r = fn_row(p, "root_fn");
		ok(r && r->total_samples[0] == 4004, "root_fn total after 4004 samples");
	}
	profile__delete(p);

	/* the leaf is the sample's ip, as in perf: a precise event's ip differs
	 * from the callchain's first entry (the interrupted ip) */
	{
		uint64_t skid[] = { PERF_CONTEXT_USER, mid, mid + 1, root + 1 };
		uint64_t uonly[] = { PERF_CONTEXT_USER, mid, root + 1 };

		err = profile__new_opts(&p, 1, NULL, &cause);
		ok(err == 0, "a fresh profile");
		tool = profile__tool(p);
		tool->comm(tool, &c);
		tool->mmap(tool, &m);
		sample_(leaf, PERF_RECORD_MISC_USER, skid, 4, 1);
		r = fn_row(p, "leaf_fn");
		ok(r && r->samples[0] == 1, "precise ip: self goes to the sampled ip's function");
		rows = profile__rows(p, PROFILE_BY_CALLPATH, 0, &nr);
		path_str(p, nr ? rows[0] : NULL, buf, sizeof(buf));
		is_str(buf, "root_fn;mid_fn;leaf_fn", "precise ip: the chain's first entry is replaced, not added");
		sample_(0xffffffff81000010ull, PERF_RECORD_MISC_KERNEL, uonly, 3, 1);
		rows = profile__sort(p, PROFILE_BY_CALLPATH, 0, PROFILE_SORT_NAME, &nr);
		path_str(p, nr == 2 ? rows[0] : NULL, buf, sizeof(buf));	/* "[" < "l" */
		is_str(buf, "root_fn;mid_fn;" KFOREIGN, "kernel sample with a user-only chain: the user ip is exact");
		profile__delete(p);
	}

	/* --no-inline and max_stack options */
	{
		struct profile_opts o = { .no_inline = true, .max_stack = 2 };
		uint64_t deep[] = { PERF_CONTEXT_USER, leaf, mid + 1, root + 1 };

		err = profile__new_opts(&p, 1, &o, &cause);
		ok(err == 0, "profile__new_opts with options");
		tool = profile__tool(p);
		tool->comm(tool, &c);
		tool->mmap(tool, &m);
		sample_(leaf, PERF_RECORD_MISC_USER, deep, 4, 1);
		rows = profile__rows(p, PROFILE_BY_CALLPATH, 0, &nr);
		path_str(p, nr ? rows[0] : NULL, buf, sizeof(buf));
		is_str(buf, "mid_fn;leaf_fn", "max_stack 2 keeps the two innermost frames");
		profile__delete(p);
	}
	free(cause);
	return done_testing();
}
