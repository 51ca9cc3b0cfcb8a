#include "config.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY UINT64_MAX

uint64_t gx_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t gx_rand_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline size_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

void u64map__init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map__exit(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static void u64map__rehash(struct u64map *m, size_t ncap)
{
	uint64_t *ok = m->keys, *ov = m->vals;
	size_t ocap = m->cap;

	m->keys = xmalloc(ncap * sizeof(*m->keys));
	m->vals = xmalloc(ncap * sizeof(*m->vals));
	memset(m->keys, 0xff, ncap * sizeof(*m->keys));
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		size_t j;

		if (ok[i] == EMPTY)
			continue;
		for (j = mix64(ok[i]) & (ncap - 1); m->keys[j] != EMPTY; j = (j + 1) & (ncap - 1))
			;
		m->keys[j] = ok[i];
		m->vals[j] = ov[i];
	}
	free(ok);
	free(ov);
}

uint64_t *u64map__find(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t j = mix64(key) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (m->keys[j] == key)
			return &m->vals[j];
		if (m->keys[j] == EMPTY)
			return NULL;
	}
}

uint64_t *u64map__findnew(struct u64map *m, uint64_t key, uint64_t init)
{
	size_t j;

	if ((m->nr + 1) * 4 >= m->cap * 3)
		u64map__rehash(m, m->cap ? m->cap * 2 : 64);
	for (j = mix64(key) & (m->cap - 1); m->keys[j] != EMPTY; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			return &m->vals[j];
	m->keys[j] = key;
	m->vals[j] = init;
	m->nr++;
	return &m->vals[j];
}

void strtab__init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void strtab__exit(struct strtab *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/*
 * Room for one more id in an open-addressing table of slots (id + 1; 0:
 * empty) holding ids 0..nr-1: at half full, twice the slots (`first` the
 * first time), every id again at its hash(ctx, id). For strtab and u32seq.
 */
static void id_slots__reserve(uint32_t **slots, size_t *nslots, size_t nr, size_t first,
			      size_t (*hash)(const void *ctx, size_t id), const void *ctx)
{
	size_t n = *nslots ? *nslots * 2 : first;
	uint32_t *s;

	if ((nr + 1) * 2 < *nslots)
		return;
	s = xcalloc(n, sizeof(*s));
	for (size_t i = 0; i < nr; i++) {
		size_t j = hash(ctx, i) & (n - 1);

		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(*slots);
	*slots = s;
	*nslots = n;
}

static size_t strtab_hash(const void *ctx, size_t id)
{
	const struct strtab *t = ctx;

	return gx_hash(t->strs[id], strlen(t->strs[id]));
}

uint32_t strtab__intern_n(struct strtab *t, const char *s, size_t len)
{
	size_t j;

	id_slots__reserve(&t->slots, &t->nslots, t->nr, 256, strtab_hash, t);
	for (j = gx_hash(s, len) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		const char *c = t->strs[t->slots[j] - 1];

		if (strncmp(c, s, len) == 0 && c[len] == '\0')
			return t->slots[j] - 1;
	}
	t->strs = xgrow(t->strs, &t->cap, t->nr + 1, sizeof(*t->strs));
	t->strs[t->nr] = xstrndup(s, len);
	t->slots[j] = (uint32_t)t->nr + 1;
	return (uint32_t)t->nr++;
}

uint32_t strtab__intern(struct strtab *t, const char *s)
{
	return strtab__intern_n(t, s, strlen(s));
}

void u32seq__init(struct u32seq *t)
{
	memset(t, 0, sizeof(*t));
	t->off = xcalloc(1, sizeof(*t->off));
	t->cap = 1;
}

void u32seq__exit(struct u32seq *t)
{
	free(t->pool);
	free(t->off);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* A word at a time: per sample, FNV-1a's byte loop costs too much. */
static size_t u32seq_hash(const uint32_t *v, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;

	for (size_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 0xff51afd7ed558ccdULL;
	return mix64(h);
}

static size_t u32seq_hash_id(const void *ctx, size_t id)
{
	const struct u32seq *t = ctx;

	return u32seq_hash(t->pool + t->off[id], t->off[id + 1] - t->off[id]);
}

uint32_t u32seq__intern(struct u32seq *t, const uint32_t *v, size_t n)
{
	size_t j;

	id_slots__reserve(&t->slots, &t->nslots, t->nr, 64, u32seq_hash_id, t);
	for (j = u32seq_hash(v, n) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		size_t id = t->slots[j] - 1, k = 0;
		const uint32_t *c = t->pool + t->off[id];

		if (t->off[id + 1] - t->off[id] != n)
			continue;
		while (k < n && c[k] == v[k])	/* short: no memcmp call */
			k++;
		if (k == n)
			return (uint32_t)id;
	}
	t->pool = xgrow(t->pool, &t->cap_pool, t->nr_pool + n + 1, sizeof(*t->pool));
	if (n)
		memcpy(t->pool + t->nr_pool, v, n * sizeof(*v));
	t->nr_pool += n;
	t->off = xgrow(t->off, &t->cap, t->nr + 2, sizeof(*t->off));
	t->off[t->nr + 1] = t->nr_pool;
	t->slots[j] = (uint32_t)t->nr + 1;
	return (uint32_t)t->nr++;
}
