/*
 * gx-out.c: gxgrind's files, in callgrind's format (the model reads them
 * with its one reader, callgrind.c): a thread a file with --gx-first,
 * with its jumps and calls, and the second hierarchy's, a process a file.
 */
#include "gx-grind.h"

struct out {
	Int fd;
	Bool failed;
	UInt n;
	HChar buf[65536];
};

static void out_flush(struct out *o)
{
	if (o->n && !o->failed && VG_(write)(o->fd, o->buf, o->n) != (Int)o->n)
		o->failed = True;
	o->n = 0;
}

/* s, or a name (each one line of the file: a line break in it is '?') */
static void out_put(struct out *o, const HChar *s, Bool name)
{
	for (; *s; s++) {
		if (o->n == sizeof(o->buf))
			out_flush(o);
		o->buf[o->n++] = name && (*s == '\n' || *s == '\r') ? '?' : *s;
	}
}

static void out_str(struct out *o, const HChar *s)
{
	out_put(o, s, False);
}

static void out_name(struct out *o, const HChar *s)
{
	out_put(o, s, True);
}

static Int cmp_insn(const void *a, const void *b)
{
	const struct insn *x = *(struct insn *const *)a, *y = *(struct insn *const *)b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* What a file holds */
enum form {
	F_PASS,		/* the second pass's: the process's, D1 and LL's (9 columns) */
	F_THREAD,	/* the first pass's: a thread's, 13 columns, D1ms and D1mn */
	F_L2,		/* the second hierarchy's with PG, the process's, in the second pass's columns */
	F_TL,		/* the same with TL */
};

/* The threads that ran, by id (Valgrind's table is hundreds long) */
static UInt *ran, nr_ran;

static void find_ran(void)
{
	ran = VG_(malloc)("gx.ran", VG_N_THREADS * sizeof(*ran));
	for (UInt t = 0; t < VG_N_THREADS; t++)
		if (threads[t].tab || threads[t].before)
			ran[nr_ran++] = t;
}

/* instruction idx's counts in file form f (thread t for F_THREAD) */
static void get_counts(enum form f, UInt t, UInt idx, ULong *v)
{
	VG_(memset)(v, 0, C_NR * sizeof(ULong));
	for (UInt i = 0; i < (f == F_THREAD ? 1 : nr_ran); i++) {
		UInt k = f == F_THREAD ? t : ran[i];
		ULong **tabs[2] = { threads[k].tab, threads[k].before };

		for (Int j = 0; j < 2; j++) {
			ULong *c;

			if (!tabs[j] || !tabs[j][idx >> CHUNK_BITS])
				continue;
			c = tabs[j][idx >> CHUNK_BITS] + (idx & (CHUNK - 1)) * C_NR;
			for (Int col = 0; col < C_NR; col++)
				v[col] += c[col];
		}
	}
	if (f == F_L2 || f == F_TL) {
		v[C_I1MR] = v[C_ILMR] = 0;
		v[C_D1MR] = v[C_L2MR], v[C_D1MW] = v[C_L2MW];
		v[C_DLMR] = v[f == F_L2 ? C_PGMR : C_TLMR];
		v[C_DLMW] = v[f == F_L2 ? C_PGMW : C_TLMW];
	}
}

/* A function named by its entry's address in its object's file, as
 * callgrind names one without a symbol */
static UInt addr_name(UWord at)
{
	HChar s[32];

	VG_(sprintf)(s, "0x%016lx", at);
	return intern(s);
}

/* A call's function: its entry's symbol, else its entry's address */
static UInt callee_of(Addr a)
{
	struct insn *in = VG_(HT_lookup)(insns, a);
	const HChar *fn;

	if (in && in->fn != ~0u)
		return in->fn;
	if (VG_(get_fnname)(VG_(current_DiEpoch)(), a, &fn))
		return intern(fn);
	return addr_name(target_of(a).at);
}

/* The function an instruction is counted in: its symbol's; without one,
 * the function it ran in last (the first pass's), else "???" */
static UInt fn_of(struct insn *in, enum form f)
{
	if (in->fn != ~0u)
		return in->fn;
	return f == F_THREAD && in->ctx ? callee_of(in->ctx) : intern("???");
}

static void out_named(struct out *o, const HChar *key, UInt id)
{
	HChar line[32];

	VG_(sprintf)(line, "%s=(%u) ", key, id + 1);
	out_str(o, line);
	out_name(o, names[id]);
	out_str(o, "\n");
}

/* A thread's jumps or calls by their site: head[idx] the first's index
 * in m->v + 1, chained by link[] */
static void by_site(const struct pair_map *m, UInt *head, UInt *link)
{
	for (UInt i = 0; m && i < m->cap; i++)
		if (m->v[i].used) {
			link[i] = head[m->v[i].a];
			head[m->v[i].a] = i + 1;
		}
}

/* A jump from in to a, count times (a conditional one's: of its
 * executions, its Ir) */
static void out_jump(struct out *o, const struct insn *in, Addr a, Bool cond, ULong count,
		     ULong ir)
{
	struct insn *to = VG_(HT_lookup)(insns, a);
	HChar line[160];

	if (cond)
		VG_(sprintf)(line, "jcnd=%llu/%llu ", count, ir > count ? ir : count);
	else
		VG_(sprintf)(line, "jump=%llu ", count);
	out_str(o, line);
	VG_(sprintf)(line, "0x%lx %u\n0x%lx %u\n", target_of(a).at, to ? to->line : 0, in->at,
		     in->line);
	out_str(o, line);
}

/* What the thread th did at in after its cost line: its jumps, then its
 * calls */
static void out_arcs(struct out *o, struct thread *th, struct insn *in, const ULong *c,
		     const UInt *jh, const UInt *jl, const UInt *ch, const UInt *cl, UInt *obj)
{
	HChar line[160];

	for (Int j = 0; j < 2; j++)
		if (in->jt[j] && c[C_J0 + j])
			out_jump(o, in, in->jt[j], in->jcond[j], c[C_J0 + j], c[C_IR]);
	for (UInt e = jh ? jh[in->idx] : 0; e; e = jl[e - 1])
		out_jump(o, in, th->jumps->v[e - 1].b, th->jumps->v[e - 1].y != 0,
			 th->jumps->v[e - 1].x, c[C_IR]);
	for (UInt e = ch ? ch[in->idx] : 0; e; e = cl[e - 1]) {
		struct pair_ent *p = &th->calls->v[e - 1];
		struct target t = target_of(p->b);
		struct insn *to = VG_(HT_lookup)(insns, p->b);

		if (t.obj != *obj)
			out_named(o, "cob", t.obj);
		out_named(o, "cfn", callee_of(p->b));
		VG_(sprintf)(line, "calls=%llu 0x%lx %u\n0x%lx %u %llu\n", p->x, t.at,
			     to ? to->line : 0, in->at, in->line, p->y);
		out_str(o, line);
	}
}

static void write_file(const HChar *file, enum form f, UInt t)
{
	SysRes sr = VG_(open)(file, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
	Int ncol = f == F_THREAD ? 13 : 9;
	struct thread *th = f == F_THREAD ? &threads[t] : NULL;
	struct out *o;
	struct insn **v;
	HChar line[512];
	UInt obj = ~0u, fn = ~0u, file_id = ~0u, k = 0, *fns;
	UInt *jh = NULL, *jl = NULL, *ch = NULL, *cl = NULL;
	ULong (*cv)[C_NR];

	if (sr_isError(sr)) {
		VG_(umsg)("gxgrind: cannot create %s\n", file);
		return;
	}
	o = VG_(malloc)("gx.out", sizeof(*o));
	o->fd = (Int)sr_Res(sr), o->failed = False, o->n = 0;
	v = VG_(malloc)("gx.sort", (nr_insns + 1) * sizeof(*v));
	cv = VG_(malloc)("gx.cv", (nr_insns + 1) * sizeof(*cv));
	fns = VG_(malloc)("gx.fns", (nr_insns + 1) * sizeof(*fns));
	for (UInt i = 0; i < nr_insns; i++) {
		get_counts(f, t, i, cv[i]);
		if (cv[i][C_IR])
			v[k++] = by_idx[i];
	}
	VG_(ssort)(v, k, sizeof(*v), cmp_insn);
	for (UInt i = 0; i < k; i++)
		fns[v[i]->idx] = fn_of(v[i], f);
	if (th && th->jumps) {
		jh = VG_(calloc)("gx.jh", nr_insns + 1, sizeof(UInt));
		jl = VG_(calloc)("gx.jl", th->jumps->cap + 1, sizeof(UInt));
		by_site(th->jumps, jh, jl);
	}
	if (th && th->calls) {
		ch = VG_(calloc)("gx.ch", nr_insns + 1, sizeof(UInt));
		cl = VG_(calloc)("gx.cl", th->calls->cap + 1, sizeof(UInt));
		by_site(th->calls, ch, cl);
	}
	VG_(sprintf)(line, "# callgrind format\nversion: 1\ncreator: gxgrind\npid: %d\n",
		     VG_(getpid)());
	out_str(o, line);
	if (th) {
		VG_(sprintf)(line, "thread: %u\n", t);
		out_str(o, line);
	}
	out_str(o, "cmd: ");
	out_name(o, VG_(args_the_exename) ? VG_(args_the_exename) : "???");
	for (Word i = 0; VG_(args_for_client) && i < VG_(sizeXA)(VG_(args_for_client)); i++) {
		out_str(o, " ");
		out_name(o, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
	}
	out_str(o, th ? "\npositions: instr line\n" : "\npositions: instr\n");
	out_str(o, "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw");
	out_str(o, ncol == 13 ? " Bc Bcm Bi Bim D1ms D1mn\n" : "\n");
	for (UInt i = 0; i < k; i++) {
		struct insn *in = v[i];
		ULong *c = cv[in->idx];
		Int n;

		/* names compressed as callgrind's are, "(id) name": a name
		 * that begins with '(' ("(below main)") is read as the name */
		if (in->obj != obj) {
			out_named(o, "ob", in->obj);
			obj = in->obj, fn = ~0u;
		}
		if (fns[in->idx] != fn) {
			fn = fns[in->idx];
			out_named(o, "fn", fn);
		}
		if (th && in->file != file_id) {
			file_id = in->file;
			out_named(o, "fl", file_id);
		}
		n = th ? VG_(sprintf)(line, "0x%lx %u", in->at, in->line) :
			 VG_(sprintf)(line, "0x%lx", in->at);
		for (Int col = 0; col < ncol; col++)
			n += VG_(sprintf)(line + n, " %llu", c[col]);
		if (th)
			n += VG_(sprintf)(line + n, " %llu %llu", c[C_D1MS], c[C_D1MN]);
		VG_(sprintf)(line + n, "\n");
		out_str(o, line);
		if (th)
			out_arcs(o, th, in, c, jh, jl, ch, cl, &obj);
	}
	out_flush(o);
	if (o->failed)
		VG_(umsg)("gxgrind: cannot write %s\n", file);
	VG_(close)(o->fd);
	if (jh)
		VG_(free)(jh), VG_(free)(jl);
	if (ch)
		VG_(free)(ch), VG_(free)(cl);
	VG_(free)(fns);
	VG_(free)(cv);
	VG_(free)(v);
	VG_(free)(o);
}

void gx_fini(Int exitcode)
{
	HChar *file = VG_(expand_file_name)("--gx-out-file", out_template);

	find_ran();
	if (!first) {
		write_file(file, F_PASS, 0);
	} else {
		/* every call ends with the run: its cost counted so far */
		for (UInt t = 1; t < VG_N_THREADS; t++) {
			if (t == cur_tid)
				threads[t].ir = ir_now;
			while (threads[t].depth) {
				ULong save = ir_now;

				ir_now = threads[t].ir;
				threads[t].nr_sig = 0;
				pop(&threads[t]);
				ir_now = save;
			}
		}

		for (UInt t = 1; t < VG_N_THREADS; t++) {
			HChar *tf;

			if (!threads[t].tab)
				continue;
			tf = VG_(malloc)("gx.name", VG_(strlen)(file) + 16);
			VG_(sprintf)(tf, "%s-%02u", file, t);
			write_file(tf, F_THREAD, t);
			VG_(free)(tf);
		}
		if (h2 && l2_template) {
			HChar *l2 = VG_(expand_file_name)("--gx-l2-file", l2_template);

			write_file(l2, F_L2, 0);
			VG_(free)(l2);
		}
		if (tl && tl_template) {
			HChar *f = VG_(expand_file_name)("--gx-tlb-file", tl_template);

			write_file(f, F_TL, 0);
			VG_(free)(f);
		}
	}
	VG_(free)(file);
}
