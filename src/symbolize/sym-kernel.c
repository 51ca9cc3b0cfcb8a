/*
 * sym-kernel.c: kernel addresses. Only a local session reads
 * /proc/kallsyms (a foreign recording's kernel is not this one), unless
 * the user gives a copy of the recording machine's (--kallsyms), and only
 * when it shows real addresses (kptr_restrict hides them as zeros);
 * otherwise every kernel address is one row that says why there are no
 * names and how to get them ("[kernel: kptr_restrict=2 hides symbols,
 * sysctl kernel.kptr_restrict=0]"), never a silent `[kernel]`.
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ksym_cmp(const void *a, const void *b)
{
	const struct sym_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * "ffffffff81000000 T _stext" or "... t name\t[module]" per line. Only
 * text symbols are kept. Names stay in the file's buffer and are interned
 * when a sample first lands in them: a kernel has ~10^5 symbols and a
 * profile touches a few hundred.
 */
static int read_sysctl(const char *path)
{
	char *v = gx_read_file(path, 32);
	int n = v ? atoi(v) : -1;

	free(v);
	return n;
}

/* The one row all kernel samples get when no symbol can be read. */
static void set_why(struct sym_session *s, int read_errno)
{
	const char *file = s->kallsyms_path ? s->kallsyms_path : "/proc/kallsyms";
	char *why;
	int kr;

	if (!s->local && !s->kallsyms_path)
		why = xstrdup("[kernel: recorded on another machine, report --kallsyms FILE "
			      "with its /proc/kallsyms]");
	else if (read_errno)
		why = xasprintf("[kernel: cannot read %s (%s)%s]", file, strerror(read_errno),
				s->kallsyms_path ? "" : ", report as root");
	else if (s->kallsyms_path)
		why = xasprintf("[kernel: %s shows no addresses (copied under kptr_restrict), "
				"copy /proc/kallsyms as root]", file);
	else if ((kr = read_sysctl("/proc/sys/kernel/kptr_restrict")) >= 2)
		why = xasprintf("[kernel: kptr_restrict=%d hides symbols, "
				"sysctl kernel.kptr_restrict=0]", kr);
	else if (kr == 1)
		why = xstrdup("[kernel: kptr_restrict=1 hides symbols from this user, report as "
			      "root (CAP_SYSLOG) or sysctl kernel.kptr_restrict=0]");
	else
		why = xasprintf("[kernel: /proc/kallsyms hides addresses (perf_event_paranoid=%d), "
				"report as root]", read_sysctl("/proc/sys/kernel/perf_event_paranoid"));
	s->id_kernel_why = sym_session__intern(s, why);
	free(why);
}

static void load_kallsyms(struct sym_session *s)
{
	size_t cap = 0, nonzero = 0, len;
	uint32_t module, last_mod_id = 0;
	const char *last_mod = NULL;
	size_t last_mod_len = 0;
	bool sorted = true;
	char *p, *end;

	s->kallsyms_loaded = true;
	if (!s->local && !s->kallsyms_path) {
		set_why(s, 0);
		return;
	}
	/* a kernel's is about 10 MiB; refuse to swallow anything absurd */
	errno = 0;
	s->kallsyms = gx_read_file(s->kallsyms_path ? s->kallsyms_path : "/proc/kallsyms",
				   (size_t)1 << 30);
	if (!s->kallsyms) {
		set_why(s, errno ? errno : EIO);
		return;
	}
	len = strlen(s->kallsyms);
	for (p = s->kallsyms, end = p + len; p < end;) {
		char *eol = memchr(p, '\n', (size_t)(end - p)), *name, *q;
		uint64_t addr = 0;
		struct sym_ksym *k;
		char type;
		int h;

		if (!eol)
			eol = end;
		for (q = p; q < eol && (h = hexval(*q)) >= 0; q++)
			addr = addr << 4 | (uint64_t)h;
		if (q == p || q + 3 > eol || q[0] != ' ' || q[2] != ' ')
			goto next;
		type = q[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			goto next;
		name = q + 3;
		for (q = name; q < eol && *q != '\t' && *q != ' '; q++)
			;
		if (q == name)
			goto next;
		module = s->id_kernel_module;
		if (q < eol && q[1] == '[') {
			const char *m = q + 1, *me = memchr(m, ']', (size_t)(eol - m));

			if (me) {
				/* a module's symbols come together: intern once */
				if (!last_mod || (size_t)(me + 1 - m) != last_mod_len ||
				    memcmp(m, last_mod, last_mod_len)) {
					last_mod = m;
					last_mod_len = (size_t)(me + 1 - m);
					last_mod_id = strtab__intern_n(&s->strs, m, last_mod_len);
				}
				module = last_mod_id;
			}
		}
		*q = '\0';	/* the name ends here (the buffer is ours) */
		s->ksyms = xgrow(s->ksyms, &cap, s->nr_ksyms + 1, sizeof(*s->ksyms));
		k = &s->ksyms[s->nr_ksyms++];
		k->addr = addr;
		k->str = name;
		k->name = 0;
		k->module = module;
		nonzero += addr != 0;
		if (s->nr_ksyms > 1 && addr < k[-1].addr)
			sorted = false;
next:
		p = eol + 1;
	}
	if (!nonzero) {	/* hidden addresses: useless */
		sym_kernel__exit(s);
		set_why(s, 0);
		return;
	}
	if (!sorted)
		gx_qsort(s->ksyms, s->nr_ksyms, sizeof(*s->ksyms), ksym_cmp);
}

const struct sym_result *sym_kernel__resolve(struct sym_session *s, uint64_t ip)
{
	struct sym_result *r = sym_session__alloc(s, sizeof(*r));
	struct sym_frame *f = sym_session__alloc(s, sizeof(*f));
	struct sym_ksym *k = NULL;
	size_t lo = 0, hi;

	if (!s->kallsyms_loaded)
		load_kallsyms(s);
	hi = s->nr_ksyms;
	while (lo < hi) {	/* last symbol with addr <= ip */
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0)
		k = &s->ksyms[lo - 1];

	memset(r, 0, sizeof(*r));
	memset(f, 0, sizeof(*f));
	if (k && !k->name)
		k->name = sym_session__intern(s, k->str);
	r->module = r->module_short = k ? k->module : s->id_kernel_module;
	r->symbol = k ? k->name : s->id_kernel_why ? s->id_kernel_why : s->id_kernel;
	r->flags = SYM_F_KERNEL | SYM_F_NO_LINES;
	r->addr = r->offset = ip;
	r->sym_offset = k ? ip - k->addr : 0;
	f->function = r->symbol;
	r->nr_frames = 1;
	r->frames = f;
	return r;
}

void sym_kernel__exit(struct sym_session *s)
{
	free(s->kallsyms);
	s->kallsyms = NULL;
	free(s->ksyms);
	s->ksyms = NULL;
	s->nr_ksyms = 0;
}
