/*
 * callgrind.c: Valgrind's output files. A callgrind file's self costs per
 * instruction (valgrind's docs/cl-format: name compression "(id) name",
 * position compression "+N", "-N", "*"; a "calls=" line's next cost line
 * is the callee's inclusive cost, which is not the caller's own), with
 * each instruction's source file and line, and its jumps and calls: a
 * "jump=", "jcnd=" or "calls=" line names its count and target, the cost
 * line after it the instruction it is from (a target's relative position
 * is counted from the last position and does not move it). And a
 * cachegrind file's self costs per source line (cg_lines).
 */
#include "config.h"

#include "model.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static const char *const col_names[CG_NR] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
	"D1ms", "D1mn",
};

const char *cg_col_name(enum cg_col c)
{
	return (unsigned)c < CG_NR ? col_names[c] : "?";
}

struct cg_priv {
	struct u64map index;	/* obj << 48 | addr -> insn index + 1 */
	struct u64map fn_index;	/* hash of a function's name -> its index + 1 */
	struct u64map file_index;	/* hash of a file's name -> its index + 1 */
};

void cg_profile__init(struct cg_profile *p)
{
	struct cg_priv *pv = xzalloc(sizeof(*pv));

	memset(p, 0, sizeof(*p));
	u64map__init(&pv->index);
	u64map__init(&pv->fn_index);
	u64map__init(&pv->file_index);
	p->priv = pv;
}

void cg_profile__exit(struct cg_profile *p)
{
	struct cg_priv *pv = p->priv;

	if (pv) {
		u64map__exit(&pv->index);
		u64map__exit(&pv->fn_index);
		u64map__exit(&pv->file_index);
		free(pv);
	}
	gx_free_strv(p->objs, p->nr_objs);
	gx_free_strv(p->fns, p->nr_fns);
	gx_free_strv(p->srcs, p->nr_srcs);
	free(p->insns);
	free(p->jumps);
	free(p->calls);
	for (size_t i = 0; i < p->nr_parts; i++)
		free(p->parts[i].cmd);
	free(p->parts);
	free(p->pins);
	memset(p, 0, sizeof(*p));
}

static uint32_t obj_intern(struct cg_profile *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nr_objs; i++)
		if (strlen(p->objs[i]) == len && !memcmp(p->objs[i], name, len))
			return (uint32_t)i;
	p->objs = xrealloc(p->objs, (p->nr_objs + 1) * sizeof(*p->objs));
	p->objs[p->nr_objs] = xstrndup(name, len);
	return (uint32_t)p->nr_objs++;
}

/* name's index in the table *tab (*nr names), by its hash in idx; a new
 * entry when it is not there. */
static uint32_t name_intern(char ***tab, size_t *nr, struct u64map *idx, const char *name,
			    size_t len)
{
	uint64_t *v = u64map__findnew(idx, gx_hash(name, len), 0);

	if (*v && strlen((*tab)[*v - 1]) == len && !memcmp((*tab)[*v - 1], name, len))
		return (uint32_t)(*v - 1);
	/* a hash collision (or a new name): a search, then a new entry */
	for (size_t i = 0; *v && i < *nr; i++)
		if (strlen((*tab)[i]) == len && !memcmp((*tab)[i], name, len))
			return (uint32_t)i;
	*tab = xrealloc(*tab, (*nr + 1) * sizeof(**tab));
	(*tab)[*nr] = xstrndup(name, len);
	if (!*v)
		*v = *nr + 1;
	return (uint32_t)(*nr)++;
}

/* A function's index by name, without callgrind's recursion mark ("f'2"
 * is f: its instructions and its callers' sites are f's). */
static uint32_t fn_intern(struct cg_profile *p, const char *name, size_t len)
{
	struct cg_priv *pv = p->priv;
	size_t n = len;

	while (n > 0 && name[n - 1] >= '0' && name[n - 1] <= '9')
		n--;
	if (n > 0 && n < len && name[n - 1] == '\'')
		len = n - 1;
	return name_intern(&p->fns, &p->nr_fns, &pv->fn_index, name, len);
}

static uint32_t file_intern(struct cg_profile *p, const char *name, size_t len)
{
	struct cg_priv *pv = p->priv;

	return name_intern(&p->srcs, &p->nr_srcs, &pv->file_index, name, len);
}

static struct cg_insn *insn_findnew(struct cg_profile *p, uint32_t obj, uint64_t addr)
{
	struct cg_priv *pv = p->priv;
	uint64_t key = (uint64_t)obj << 48 | (addr & ((1ULL << 48) - 1));
	uint64_t *v = u64map__findnew(&pv->index, key, 0);
	struct cg_insn *in;

	if (*v)
		return &p->insns[*v - 1];
	p->insns = xgrow(p->insns, &p->cap, p->nr_insns + 1, sizeof(*p->insns));
	in = &p->insns[p->nr_insns++];
	memset(in, 0, sizeof(*in));
	in->obj = obj;
	in->addr = addr;
	*v = p->nr_insns;
	return in;
}

/* The parser's state over one file. */
struct cg_parse {
	struct cg_profile *p;
	const char *name;
	size_t lineno;
	int col[32];		/* file column -> enum cg_col, -1: not read */
	size_t nr_cols;
	int npos;		/* positions per cost line: 1 or 2 */
	int instr_at;		/* which of them is the address, -1: none */
	uint64_t last[2];
	uint32_t *ob_ids;	/* compressed ob id -> object index + 1 */
	size_t nr_ob_ids;
	uint32_t obj;		/* the current object */
	bool have_obj;
	bool call_cost;		/* the next cost line is a call's inclusive cost */
	uint32_t *fn_ids;	/* compressed fn id -> function index + 1 */
	size_t nr_fn_ids;
	uint32_t fn;		/* the current function's index + 1, 0: none */
	uint32_t cfn, cobj;	/* the next call's function (+ 1) and object (+ 1) */
	uint32_t *fl_ids;	/* compressed file id -> file index + 1 */
	size_t nr_fl_ids;
	uint32_t file;		/* the current source file's index + 1, 0: none */
	/* a jump= (1), jcnd= (2) or calls= (3) line waiting for its source */
	int pend;
	uint64_t pend_count, pend_execs, pend_to;
	uint32_t part;		/* this file's index into parts */
	struct u64map pin_index;	/* insn index -> its pins index + 1 in this part */
	size_t call_added;	/* the call the next cost line is the cost of: index + 1 */
};

static int parse_fail(struct cg_parse *ps, char **cause, const char *what)
{
	return gx_fail(cause, GX_E_FORMAT, "%s:%zu: %s", ps->name, ps->lineno, what);
}

/*
 * A compressed name, "(id) name", "(id)" or "name" (an object's or a
 * function's, ids up to max, remembered in *ids: index + 1): its index by
 * intern, or a negative code.
 */
static int64_t parse_name(struct cg_parse *ps, const char *s, const char *end, unsigned long max,
			  uint32_t **ids, size_t *nr,
			  uint32_t (*intern)(struct cg_profile *, const char *, size_t),
			  const char *before, char **cause)
{
	if (*s == '(') {
		char *e;
		unsigned long id = strtoul(s + 1, &e, 10);

		if (e == s + 1 || *e != ')' || id > max)
			return parse_fail(ps, cause, "bad compressed name");
		s = e + 1;
		while (s < end && *s == ' ')
			s++;
		if (s < end) {
			if (id >= *nr) {
				*ids = xrealloc(*ids, (id + 1) * sizeof(**ids));
				memset(*ids + *nr, 0, (id + 1 - *nr) * sizeof(**ids));
				*nr = id + 1;
			}
			(*ids)[id] = intern(ps->p, s, (size_t)(end - s)) + 1;
		} else if (id >= *nr || !(*ids)[id]) {
			return parse_fail(ps, cause, before);
		}
		return (int64_t)(*ids)[id] - 1;
	}
	return (int64_t)intern(ps->p, s, (size_t)(end - s));
}

/* The next space-separated word of [*q, end): its start; *q is left at
 * its end (equal to the start when none is left). */
static const char *next_word(const char **q, const char *end)
{
	const char *w;

	while (*q < end && **q == ' ')
		(*q)++;
	w = *q;
	while (*q < end && **q != ' ')
		(*q)++;
	return w;
}

/* An "events:" line's names from q to end: each one's column (enum
 * cg_col, -1: not read) into col[] (at most max), their number into *n;
 * -1 when there are more than max. */
static int parse_events(const char *q, const char *end, int *col, size_t max, size_t *n)
{
	*n = 0;
	while (q < end) {
		const char *w = next_word(&q, end);
		int c = -1;

		if (q == w)
			break;
		for (int k = 0; k < CG_NR; k++)
			if (strlen(col_names[k]) == (size_t)(q - w) &&
			    !memcmp(col_names[k], w, (size_t)(q - w)))
				c = k;
		if (*n == max)
			return -1;
		col[(*n)++] = c;
	}
	return 0;
}

/* "pid: N" or "thread: N": N, 0 when it is no number that fits */
static uint32_t header_u32(const char *s, const char *end)
{
	uint64_t v = 0;

	while (s < end && *s == ' ')
		s++;
	if (s == end)
		return 0;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return 0;
	}
	return s == end ? (uint32_t)v : 0;
}

static int parse_header(struct cg_parse *ps, const char *s, const char *end, char **cause)
{
	struct cg_part *pt = &ps->p->parts[ps->part];

	if (!strncmp(s, "pid:", 4)) {
		pt->pid = header_u32(s + 4, end);
	} else if (!strncmp(s, "thread:", 7)) {
		pt->thread = header_u32(s + 7, end);
	} else if (!strncmp(s, "part:", 5)) {
		pt->dump = header_u32(s + 5, end);
	} else if (!strncmp(s, "desc: Trigger: --dump-", 22)) {
		pt->dumped = true;
	} else if (!strncmp(s, "creator: gxgrind", 16)) {
		pt->own = true;
	} else if (!strncmp(s, "cmd:", 4) && !pt->cmd) {
		const char *q = s + 4;

		while (q < end && *q == ' ')
			q++;
		pt->cmd = xstrndup(q, (size_t)(end - q));
	} else if (!strncmp(s, "events:", 7)) {
		if (parse_events(s + 7, end, ps->col, sizeof(ps->col) / sizeof(ps->col[0]),
				 &ps->nr_cols) < 0)
			return parse_fail(ps, cause, "too many events");
	} else if (!strncmp(s, "positions:", 10)) {
		const char *q = s + 10;

		ps->npos = 0;
		ps->instr_at = -1;
		while (q < end) {
			const char *w = next_word(&q, end);

			if (q == w)
				break;
			if (ps->npos == 2)
				return parse_fail(ps, cause, "more positions than instr and line");
			if (q - w == 5 && !memcmp(w, "instr", 5))
				ps->instr_at = ps->npos;
			ps->npos++;
		}
	}
	return 0;
}

/* One position: absolute (decimal or 0x), +N, -N or *. */
static int parse_pos(struct cg_parse *ps, const char **s, const char *end, int k, char **cause)
{
	const char *q = *s;
	uint64_t v;
	char *e;

	if (*q == '*') {
		*s = q + 1;
		return 0;
	}
	errno = 0;
	if (*q == '+' || *q == '-') {
		v = strtoull(q + 1, &e, 0);
		if (e == q + 1 || errno)
			return parse_fail(ps, cause, "bad relative position");
		ps->last[k] = *q == '+' ? ps->last[k] + v : ps->last[k] - v;
	} else {
		v = strtoull(q, &e, 0);
		if (e == q || errno)
			return parse_fail(ps, cause, "bad position");
		ps->last[k] = v;
	}
	if (e > end)
		return parse_fail(ps, cause, "bad position");
	*s = e;
	return 0;
}

/* A jump's or call's target: its positions, the address of its
 * instruction into *to; relative to the last position, which it leaves. */
static int parse_target(struct cg_parse *ps, const char *s, const char *end, uint64_t *to,
			char **cause)
{
	uint64_t last[2] = { ps->last[0], ps->last[1] };

	if (ps->instr_at < 0)
		return parse_fail(ps, cause, "no instruction addresses (run callgrind with "
				  "--dump-instr=yes)");
	for (int k = 0; k < ps->npos; k++) {
		while (s < end && *s == ' ')
			s++;
		if (s == end || parse_pos(ps, &s, end, k, cause) != 0) {
			ps->last[0] = last[0], ps->last[1] = last[1];
			return s == end ? parse_fail(ps, cause, "a jump or call without its target") :
					  GX_E_FORMAT;
		}
	}
	*to = ps->last[ps->instr_at];
	ps->last[0] = last[0], ps->last[1] = last[1];
	return 0;
}

/* "jump=N TARGET", "jcnd=TAKEN/EXECUTED TARGET" or "calls=N TARGET": kept
 * until the cost line that names where it is from. */
static int parse_jump(struct cg_parse *ps, int kind, const char *s, const char *end,
		      char **cause)
{
	char *e;

	/* a digit first: strtoull would skip blanks, a line's end among them */
	if (s >= end || !isdigit((unsigned char)*s))
		return parse_fail(ps, cause, kind == 2 ? "bad conditional jump count" :
					     "bad jump or call count");
	errno = 0;
	ps->pend_count = strtoull(s, &e, 10);
	if (e == s || errno || e > end)
		return parse_fail(ps, cause, "bad jump or call count");
	ps->pend_execs = ps->pend_count;
	if (kind == 2) {
		const char *q = e;

		if (q + 1 >= end || *q != '/' || !isdigit((unsigned char)q[1]))
			return parse_fail(ps, cause, "bad conditional jump count");
		ps->pend_execs = strtoull(q + 1, &e, 10);
		if (e == q + 1 || errno || e > end || ps->pend_execs < ps->pend_count)
			return parse_fail(ps, cause, "bad conditional jump count");
	}
	if (e < end && *e != ' ')
		return parse_fail(ps, cause, "bad jump or call count");
	if (parse_target(ps, e, end, &ps->pend_to, cause) != 0)
		return GX_E_FORMAT;
	ps->pend = kind;
	return 0;
}

/* The jump or call waiting for its source, from the instruction at from. */
static void add_pending(struct cg_parse *ps, uint64_t from)
{
	struct cg_profile *p = ps->p;

	if (ps->pend == 3) {
		struct cg_call *c;

		if (ps->cfn) {
			p->calls = xgrow(p->calls, &p->cap_calls, p->nr_calls + 1, sizeof(*p->calls));
			c = &p->calls[p->nr_calls++];
			c->obj = ps->obj;
			c->cobj = ps->cobj ? ps->cobj - 1 : ps->obj;
			c->fn = ps->cfn - 1;
			c->site = from;
			c->entry = ps->pend_to;
			c->count = ps->pend_count;
			c->caller = ps->fn;
			c->part = ps->part;
			c->incl = 0;
			ps->call_added = p->nr_calls;
		}
		ps->cfn = ps->cobj = 0;
	} else if (ps->pend) {
		struct cg_jump *j;

		p->jumps = xgrow(p->jumps, &p->cap_jumps, p->nr_jumps + 1, sizeof(*p->jumps));
		j = &p->jumps[p->nr_jumps++];
		j->obj = ps->obj;
		j->cond = ps->pend == 2;
		j->from = from;
		j->to = ps->pend_to;
		j->count = ps->pend_count;
		j->execs = ps->pend_execs;
	}
	ps->pend = 0;
}

/* The instruction's counts in this file's part, made at its first line. */
static struct cg_pinsn *part_insn(struct cg_parse *ps, uint32_t insn)
{
	struct cg_profile *p = ps->p;
	uint64_t *v = u64map__findnew(&ps->pin_index, insn, 0);
	struct cg_pinsn *pin;

	if (*v)
		return &p->pins[*v - 1];
	p->pins = xgrow(p->pins, &p->cap_pins, p->nr_pins + 1, sizeof(*p->pins));
	pin = &p->pins[p->nr_pins++];
	memset(pin, 0, sizeof(*pin));
	pin->part = ps->part;
	pin->insn = insn;
	*v = p->nr_pins;
	return pin;
}

static int parse_cost(struct cg_parse *ps, const char *s, const char *end, char **cause)
{
	uint64_t c[32] = { 0 };
	struct cg_pinsn *pin;
	struct cg_insn *in;
	size_t n = 0;

	if (ps->instr_at < 0)
		return parse_fail(ps, cause, "no instruction addresses (run callgrind with "
				  "--dump-instr=yes)");
	for (int k = 0; k < ps->npos; k++) {
		while (s < end && *s == ' ')
			s++;
		if (s == end)
			return parse_fail(ps, cause, "cost line without its positions");
		if (parse_pos(ps, &s, end, k, cause) != 0)
			return GX_E_FORMAT;
		if (s < end && *s != ' ')
			return parse_fail(ps, cause, "bad position");
	}
	while (s < end) {
		char *e;

		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		if (!isdigit((unsigned char)*s) || n == ps->nr_cols)
			return parse_fail(ps, cause, "bad cost");
		errno = 0;
		c[n++] = strtoull(s, &e, 10);
		if (errno || e > end || (e < end && *e != ' '))
			return parse_fail(ps, cause, "bad cost");
		s = e;
	}
	if (!ps->have_obj)
		ps->obj = obj_intern(ps->p, "???", 3), ps->have_obj = true;
	ps->call_added = 0;
	if (ps->pend)
		add_pending(ps, ps->last[ps->instr_at]);
	if (ps->call_cost) {	/* the callee's inclusive cost: not this line's own */
		ps->call_cost = false;
		for (size_t k = 0; k < n && ps->call_added; k++)
			if (ps->col[k] == CG_IR)
				ps->p->calls[ps->call_added - 1].incl = c[k];
		return 0;
	}
	if (!n)
		return 0;
	in = insn_findnew(ps->p, ps->obj, ps->last[ps->instr_at]);
	pin = part_insn(ps, (uint32_t)(in - ps->p->insns));
	if (ps->fn)
		in->fn = ps->fn;
	/* where it was first listed (a thread's file lists it again) */
	if (!in->src && !in->line) {
		uint64_t line = ps->npos == 2 ? ps->last[1 - ps->instr_at] : 0;

		in->src = ps->file;
		in->line = line > UINT32_MAX ? 0 : (uint32_t)line;
	}
	for (size_t k = 0; k < n; k++)
		if (ps->col[k] >= 0) {
			in->c[ps->col[k]] += c[k];
			pin->c[ps->col[k]] += c[k];
			ps->p->totals[ps->col[k]] += c[k];
		}
	return 0;
}

int cg_profile__parse(struct cg_profile *p, const char *text, size_t len, const char *name,
		      char **cause)
{
	struct cg_parse ps = { .p = p, .name = name, .npos = 1, .instr_at = 0 };
	const char *s = text, *end = text + len;
	int err = 0;

	if (len < 8 || (strncmp(text, "# callgrind format", 18) && strncmp(text, "version:", 8) &&
			strncmp(text, "events:", 7)))
		return gx_fail(cause, GX_E_FORMAT, "%s: not a callgrind output file", name);
	for (size_t k = 0; k < CG_NR; k++)
		ps.col[k] = (int)k;
	ps.nr_cols = CG_NR;
	p->parts = xrealloc(p->parts, (p->nr_parts + 1) * sizeof(*p->parts));
	memset(&p->parts[p->nr_parts], 0, sizeof(*p->parts));
	ps.part = (uint32_t)p->nr_parts++;
	u64map__init(&ps.pin_index);
	while (s < end && !err) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;
		const char *eq;

		ps.lineno++;
		while (le > s && (le[-1] == '\r' || le[-1] == ' '))
			le--;
		if (le == s || *s == '#') {
			/* empty or a comment */
		} else if (isdigit((unsigned char)*s) || *s == '+' || *s == '-' || *s == '*') {
			err = parse_cost(&ps, s, le, cause);
		} else if ((eq = memchr(s, '=', (size_t)(le - s))) != NULL &&
			   !memchr(s, ':', (size_t)(eq - s))) {
			size_t kl = (size_t)(eq - s);

			if ((kl == 2 && !memcmp(s, "ob", 2)) || (kl == 3 && !memcmp(s, "cob", 3))) {
				int64_t o = parse_name(&ps, eq + 1, le, 1000000, &ps.ob_ids,
						       &ps.nr_ob_ids, obj_intern,
						       "object id used before its name", cause);

				if (o < 0)
					err = (int)o;
				else if (kl == 2)
					ps.obj = (uint32_t)o, ps.have_obj = true;
				else
					ps.cobj = (uint32_t)o + 1;
			} else if ((kl == 2 && !memcmp(s, "fn", 2)) || (kl == 3 && !memcmp(s, "cfn", 3))) {
				int64_t f = parse_name(&ps, eq + 1, le, 4000000, &ps.fn_ids,
						       &ps.nr_fn_ids, fn_intern,
						       "function id used before its name", cause);

				if (f < 0)
					err = (int)f;
				else if (kl == 2)
					ps.fn = (uint32_t)f + 1;
				else
					ps.cfn = (uint32_t)f + 1;
			} else if (kl == 5 && !memcmp(s, "calls", 5)) {
				err = parse_jump(&ps, 3, eq + 1, le, cause);
				ps.call_cost = true;
			} else if (kl == 4 && !memcmp(s, "jump", 4)) {
				err = parse_jump(&ps, 1, eq + 1, le, cause);
			} else if (kl == 4 && !memcmp(s, "jcnd", 4)) {
				err = parse_jump(&ps, 2, eq + 1, le, cause);
			} else if ((kl == 2 && (!memcmp(s, "fl", 2) || !memcmp(s, "fi", 2) ||
						!memcmp(s, "fe", 2))) ||
				   (kl == 3 && (!memcmp(s, "cfi", 3) || !memcmp(s, "cfl", 3) ||
						!memcmp(s, "jfi", 3) || !memcmp(s, "jfl", 3)))) {
				/* one name space; a cost line's file is the
				 * last fl, fi or fe (a call's or a jump's
				 * target's is not) */
				int64_t f = parse_name(&ps, eq + 1, le, 4000000, &ps.fl_ids,
						       &ps.nr_fl_ids, file_intern,
						       "file id used before its name", cause);

				if (f < 0)
					err = (int)f;
				else if (kl == 2)
					ps.file = (uint32_t)f + 1;
			}
		} else if (memchr(s, ':', (size_t)(le - s))) {
			err = parse_header(&ps, s, le, cause);
		} else {
			err = parse_fail(&ps, cause, "not a callgrind line");
		}
		s = nl ? nl + 1 : end;
	}
	free(ps.ob_ids);
	free(ps.fn_ids);
	free(ps.fl_ids);
	u64map__exit(&ps.pin_index);
	if (!err)
		p->files++;
	return err;
}

/* The Valgrind output file at path, read whole and given to parse. */
static int read_parsed(void *p, const char *path,
		       int (*parse)(void *, const char *, size_t, const char *, char **),
		       char **cause)
{
	size_t len;
	int err = 0;
	char *text = gx_read_regular(path, (size_t)1 << 32, &len, &err, cause);

	if (!text)
		return err ? err : -EIO;
	err = parse(p, text, len, path, cause);
	free(text);
	return err;
}

static int parse_profile(void *p, const char *text, size_t len, const char *name, char **cause)
{
	return cg_profile__parse(p, text, len, name, cause);
}

int cg_profile__read(struct cg_profile *p, const char *path, char **cause)
{
	return read_parsed(p, path, parse_profile, cause);
}

/* ---- cachegrind: self costs per source line -------------------------------- */

struct cgl_priv {
	struct u64map name_index;	/* hash of a name -> its index + 1 */
};

void cg_lines__init(struct cg_lines *p)
{
	struct cgl_priv *pv = xzalloc(sizeof(*pv));

	memset(p, 0, sizeof(*p));
	u64map__init(&pv->name_index);
	p->priv = pv;
}

void cg_lines__exit(struct cg_lines *p)
{
	struct cgl_priv *pv = p->priv;

	if (pv) {
		u64map__exit(&pv->name_index);
		free(pv);
	}
	gx_free_strv(p->names, p->nr_names);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int cg_lines__parse(struct cg_lines *p, const char *text, size_t len, const char *name,
		    char **cause)
{
	struct cgl_priv *pv = p->priv;
	const char *s = text, *end = text + len;
	int col[32];
	size_t ncols = 0;
	bool have_events = false;
	uint32_t file = UINT32_MAX, fn = UINT32_MAX;
	size_t lineno = 0;

	if (len < 5 || (strncmp(text, "desc:", 5) && strncmp(text, "events:", 7)))
		return gx_fail(cause, GX_E_FORMAT, "%s: not a cachegrind output file", name);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;

		lineno++;
		while (le > s && (le[-1] == '\r' || le[-1] == ' '))
			le--;
		if (le == s || *s == '#') {
			/* empty or a comment */
		} else if (!have_events && strncmp(s, "events:", 7)) {
			/* the header: desc:, and cmd:, whose arguments are
			 * written as they are, a newline in one included */
		} else if (!strncmp(s, "events:", 7)) {
			if (parse_events(s + 7, le, col, sizeof(col) / sizeof(col[0]), &ncols) < 0)
				return gx_fail(cause, GX_E_FORMAT, "%s:%zu: too many events", name,
					       lineno);
			have_events = true;
		} else if (le - s >= 3 && (!memcmp(s, "fl=", 3) || !memcmp(s, "fn=", 3))) {
			uint32_t i = name_intern(&p->names, &p->nr_names, &pv->name_index, s + 3,
						 (size_t)(le - s - 3));

			if (s[1] == 'l')
				file = i, fn = UINT32_MAX;
			else
				fn = i;
		} else if (isdigit((unsigned char)*s)) {
			struct cgl_line *l;
			const char *q = s;
			uint64_t v;
			char *e;

			if (!have_events || file == UINT32_MAX || fn == UINT32_MAX)
				return gx_fail(cause, GX_E_FORMAT, "%s:%zu: a cost line before its "
					       "events, file or function", name, lineno);
			errno = 0;
			v = strtoull(q, &e, 10);
			if (errno || e > le || (e < le && *e != ' ') || v > UINT32_MAX)
				return gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad line number", name,
					       lineno);
			p->v = xgrow(p->v, &p->cap, p->n + 1, sizeof(*p->v));
			l = &p->v[p->n++];
			memset(l, 0, sizeof(*l));
			l->file = file, l->fn = fn, l->line = (uint32_t)v;
			q = e;
			for (int k = 0; q < le; k++) {
				while (q < le && *q == ' ')
					q++;
				if (q == le)
					break;
				if ((size_t)k == ncols || !isdigit((unsigned char)*q))
					return gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad cost", name,
						       lineno);
				errno = 0;
				v = strtoull(q, &e, 10);
				if (errno || e > le || (e < le && *e != ' '))
					return gx_fail(cause, GX_E_FORMAT, "%s:%zu: bad cost", name,
						       lineno);
				if (col[k] >= 0) {
					l->c[col[k]] += v;
					p->totals[col[k]] += v;
				}
				q = e;
			}
		} else if (!memchr(s, ':', (size_t)(le - s))) {
			return gx_fail(cause, GX_E_FORMAT, "%s:%zu: not a cachegrind line", name,
				       lineno);
		}
		/* desc:, cmd:, summary: and the like are not needed */
		s = nl ? nl + 1 : end;
	}
	p->files++;
	return 0;
}

static int parse_lines(void *p, const char *text, size_t len, const char *name, char **cause)
{
	return cg_lines__parse(p, text, len, name, cause);
}

int cg_lines__read(struct cg_lines *p, const char *path, char **cause)
{
	return read_parsed(p, path, parse_lines, cause);
}
