/*
 * sym-kernel.c: kernel addresses. Only a local session reads
 * /proc/kallsyms (a foreign recording's kernel is not this one), and only
 * when it shows real addresses (kptr_restrict hides them as zeros);
 * otherwise every kernel address is one `[kernel]` row.
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ksym_cmp(const void *a, const void *b)
{
	const struct sym_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_kallsyms(struct sym_session *s)
{
	size_t cap = 0, nonzero = 0;
	char line[512];
	FILE *f;

	s->kallsyms_loaded = true;
	if (!s->local)
		return;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256], mod[128];
		unsigned long long addr;
		struct sym_ksym *k;
		int n;

		mod[0] = 0;
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		s->ksyms = xgrow(s->ksyms, &cap, s->nr_ksyms + 1, sizeof(*s->ksyms));
		k = &s->ksyms[s->nr_ksyms++];
		k->addr = addr;
		k->name = sym_session__intern(s, name);
		if (mod[0]) {
			char buf[160];

			snprintf(buf, sizeof(buf), "[%s]", mod);
			k->module = sym_session__intern(s, buf);
		} else {
			k->module = s->id_kernel_module;
		}
		nonzero += addr != 0;
	}
	fclose(f);
	if (!nonzero) {	/* hidden addresses: useless */
		free(s->ksyms);
		s->ksyms = NULL;
		s->nr_ksyms = 0;
		return;
	}
	gx_qsort(s->ksyms, s->nr_ksyms, sizeof(*s->ksyms), ksym_cmp);
}

const struct sym_result *sym_kernel__resolve(struct sym_session *s, uint64_t ip)
{
	struct sym_result *r = sym_session__alloc(s, sizeof(*r));
	struct sym_frame *f = sym_session__alloc(s, sizeof(*f));
	const struct sym_ksym *k = NULL;
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
	r->module = r->module_short = k ? k->module : s->id_kernel_module;
	r->symbol = k ? k->name : s->id_kernel;
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
	free(s->ksyms);
	s->ksyms = NULL;
	s->nr_ksyms = 0;
}
