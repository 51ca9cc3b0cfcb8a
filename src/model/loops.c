/*
 * loops.c: a modelled result's control flow, exact: every disassembled
 * instruction's executions, cycles as priced and conditional mispredicts,
 * and callgrind's jumps, written to the result's flow.json, from which
 * src/result builds the blocks, branches and loops (src/flow) as it does
 * from a recording's branch stacks. Addresses are the files' own.
 */
#include "config.h"

#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flow/flow.h"
#include "model-int.h"
#include "util/util.h"

struct by_addr {
	uint32_t obj;
	uint64_t addr;
	size_t i;	/* cg index */
};

static int cmp_by_addr(const void *a, const void *b)
{
	const struct by_addr *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static json_t *insns_json(const struct model_priced *pr, const char *const *text,
			  const struct by_addr *v, size_t n)
{
	json_t *a = json_array();

	for (size_t k = 0; k < n; k++) {
		size_t i = v[k].i;
		const struct cg_insn *c = &pr->cg->insns[i];
		const struct model_obj *o = &pr->objs[c->obj];
		uint64_t target, len = 0;
		enum flow_kind kind = flow_insn_kind(text[i], &target);
		double val[MODEL_RP_NR];

		model_insn_values(pr, i, val);
		if (k + 1 < n && v[k + 1].obj == v[k].obj && v[k + 1].addr - v[k].addr <= 15)
			len = v[k + 1].addr - v[k].addr;
		json_array_append_new(a, json_pack("[I,I,I,i,I,f,I]", (json_int_t)c->obj,
						   (json_int_t)(c->addr - o->bias), (json_int_t)len,
						   (int)kind, (json_int_t)c->c[CG_IR],
						   val[MODEL_RP_CYCLES],
						   (json_int_t)(kind == FLOW_COND ?
								pr->bcm[i] + 0.5 : 0)));
	}
	return a;
}

/* json_dumpfd writes every token with its own write(2): gcc's 30 MB
 * flow.json took 16 s of system time so. Tokens are gathered here and
 * written 1 MiB at a time. */
struct dump_buf {
	int fd, err;
	size_t len;
	char buf[1 << 20];
};

static int dump_flush(struct dump_buf *d)
{
	int e = d->err || !d->len ? 0 : gx_write_all(d->fd, d->buf, d->len);

	if (e)
		d->err = -e;
	d->len = 0;
	return d->err ? -1 : 0;
}

static int dump_add(const char *s, size_t n, void *data)
{
	struct dump_buf *d = data;

	if (n > sizeof(d->buf) - d->len && dump_flush(d) != 0)
		return -1;
	if (n > sizeof(d->buf)) {
		int e = gx_write_all(d->fd, s, n);

		if (e)
			d->err = -e;
		return e ? -1 : 0;
	}
	memcpy(d->buf + d->len, s, n);
	d->len += n;
	return 0;
}

static int dump_json(json_t *root, int fd)
{
	struct dump_buf *d = xmalloc(sizeof(*d));
	int err;

	d->fd = fd;
	d->err = 0;
	d->len = 0;
	if (json_dump_callback(root, dump_add, d, JSON_COMPACT) == 0)
		dump_flush(d);
	else if (!d->err)
		d->err = EIO;
	err = d->err;
	free(d);
	return err;
}

int model_loops_write(const struct model_priced *pr, const char *const *text, int dirfd,
		      char **cause)
{
	const struct cg_profile *cg = pr->cg;
	struct by_addr *v = xcalloc(cg->nr_insns + 1, sizeof(*v));
	json_t *root = json_object(), *mods = json_array(), *jumps = json_array();
	size_t n = 0;
	int fd, err = 0;

	for (size_t i = 0; i < cg->nr_insns; i++)
		if (text[i] && cg->insns[i].c[CG_IR])
			v[n++] = (struct by_addr){ cg->insns[i].obj, cg->insns[i].addr, i };
	gx_qsort(v, n, sizeof(*v), cmp_by_addr);
	for (size_t k = 0; k < cg->nr_objs; k++)
		json_array_append_new(mods, json_string(gx_utf8(pr->objs[k].path)));
	for (size_t k = 0; k < cg->nr_jumps; k++) {
		const struct cg_jump *j = &cg->jumps[k];
		uint64_t bias = pr->objs[j->obj].bias;

		if (j->count)
			json_array_append_new(jumps, json_pack("[I,I,I,I]", (json_int_t)j->obj,
							       (json_int_t)(j->from - bias),
							       (json_int_t)(j->to - bias),
							       (json_int_t)j->count));
	}
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "modules", mods);
	json_object_set_new(root, "insns", insns_json(pr, text, v, n));
	json_object_set_new(root, "jumps", jumps);
	fd = openat(dirfd, "flow.json", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		err = gx_fail(cause, -errno, "flow.json: %s", strerror(errno));
	else {
		int e = dump_json(root, fd);

		if (close(fd) != 0 && !e)
			e = errno;
		if (e)
			err = gx_fail(cause, -e, "flow.json: cannot write: %s", strerror(e));
	}
	json_decref(root);
	free(v);
	return err;
}
