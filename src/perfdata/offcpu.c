/*
 * offcpu.c: offcpu.bin, the off-CPU prober's waits in a result directory
 * (format in perfdata.h and gexplore-result(5)).
 */
#include "config.h"

#include "perfdata-int.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/util.h"

_Static_assert(sizeof(struct pd_offcpu_probe) == 64, "offcpu.bin probes are 64 bytes");

struct offcpu_header {
	char magic[8];
	uint32_t version, probe_us;
	uint64_t nr;
	char machine[16];
	uint32_t min_us;
	char zero[20];
};
_Static_assert(sizeof(struct offcpu_header) == 64, "offcpu.bin header is 64 bytes");

struct pd_offcpu_writer {
	struct pd_side_writer s;
};

int pd_offcpu_writer__new(struct pd_offcpu_writer **out, int dirfd, const char *path,
			  uint32_t probe_us, uint32_t min_us, char **cause)
{
	struct offcpu_header h = { .version = PD_OFFCPU_VERSION, .probe_us = probe_us,
				   .min_us = min_us };
	struct pd_offcpu_writer *w = xzalloc(sizeof(*w));
	struct utsname u;
	int err;

	*out = NULL;
	memcpy(h.magic, PD_OFFCPU_MAGIC, 8);
	if (uname(&u) == 0)
		memcpy(h.machine, u.machine, strnlen(u.machine, sizeof(h.machine) - 1));
	err = pd_side_writer__init(&w->s, dirfd, path, &h, sizeof(h), cause);
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int pd_offcpu_writer__add(struct pd_offcpu_writer *w, const struct pd_offcpu_probe *p,
			  const uint64_t *ips)
{
	struct pd_offcpu_probe c = *p;

	if (c.nr_ips > PD_OFFCPU_MAX_IPS)
		c.nr_ips = PD_OFFCPU_MAX_IPS;
	c.wchan[PD_OFFCPU_WCHAN - 1] = '\0';
	return pd_side_writer__add(&w->s, &c, sizeof(c), ips, c.nr_ips * sizeof(uint64_t));
}

int pd_offcpu_writer__finish(struct pd_offcpu_writer *w, char **cause)
{
	return pd_side_writer__finish(&w->s, &w->s.nr, sizeof(w->s.nr),
				      offsetof(struct offcpu_header, nr), cause);
}

void pd_offcpu_writer__delete(struct pd_offcpu_writer *w)
{
	if (!w)
		return;
	pd_side_writer__exit(&w->s);
	free(w);
}

void pd_offcpu__delete(struct pd_offcpu *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nr; i++)
		free(o->ips[i]);
	free(o->ips);
	free(o->probes);
	free(o);
}

int pd_offcpu__read(const char *path, struct pd_offcpu **out, char **cause)
{
	struct offcpu_header h;
	struct pd_offcpu *o = NULL;
	size_t cap = 0;
	FILE *f = NULL;
	int fd, err = 0;

	*out = NULL;
	fd = gx_open_regular_nofollow(path, NULL, cause);
	if (fd == -ENOENT && cause) {	/* no file: no probes, no message */
		free(*cause);
		*cause = NULL;
	}
	if (fd < 0)
		return fd;
	f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return gx_fail(cause, -errno, "cannot read %s: %s", path, strerror(errno));
	}
	if (fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, PD_OFFCPU_MAGIC, 8) != 0) {
		err = gx_fail(cause, GX_E_FORMAT, "%s is not an off-CPU probe file", path);
		goto out;
	}
	if (h.version != PD_OFFCPU_VERSION) {
		err = gx_fail(cause, GX_E_VERSION, "%s: version %u; this gexplore reads "
				"version %d", path, h.version, PD_OFFCPU_VERSION);
		goto out;
	}
	o = xzalloc(sizeof(*o));
	o->probe_us = h.probe_us;
	o->min_us = h.min_us;
	memcpy(o->machine, h.machine, sizeof(o->machine) - 1);
	/* a recording that was killed never wrote the count: read to the end */
	for (;;) {
		struct pd_offcpu_probe p;
		uint64_t *ips;

		if (h.nr && o->nr == h.nr)
			break;
		if (fread(&p, sizeof(p), 1, f) != 1)
			break;
		if (p.nr_ips > PD_OFFCPU_MAX_IPS) {
			err = gx_fail(cause, GX_E_FORMAT, "%s: probe %zu has %u addresses "
					"(at most %d)", path, o->nr, p.nr_ips, PD_OFFCPU_MAX_IPS);
			goto out;
		}
		/* probes are written in the order taken, each with its clock:
		 * a zero or a step back is no probe (a sparse file of zeros
		 * read as 160 M empty probes ran gexplore out of memory) */
		if (!p.time || (o->nr && p.time < o->probes[o->nr - 1].time)) {
			err = gx_fail(cause, GX_E_FORMAT, "%s: probe %zu has time %" PRIu64 "%s",
				      path, o->nr, p.time, p.time ? ", before the probe ahead of it" :
				      "");
			goto out;
		}
		ips = xcalloc(p.nr_ips + 1u, sizeof(*ips));
		if (p.nr_ips && fread(ips, sizeof(*ips), p.nr_ips, f) != p.nr_ips) {
			free(ips);
			break;
		}
		p.wchan[PD_OFFCPU_WCHAN - 1] = '\0';
		if (o->nr == cap) {
			cap = cap ? 2 * cap : 256;
			o->probes = xrealloc(o->probes, cap * sizeof(*o->probes));
			o->ips = xrealloc(o->ips, cap * sizeof(*o->ips));
		}
		o->probes[o->nr] = p;
		o->ips[o->nr] = ips;
		o->nr++;
	}
	*out = o;
	o = NULL;
out:
	pd_offcpu__delete(o);
	fclose(f);
	return err;
}
