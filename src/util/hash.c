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

static void strtab__rehash(struct strtab *t, size_t nslots)
{
	free(t->slots);
	t->slots = xcalloc(nslots, sizeof(*t->slots));
	t->nslots = nslots;
	for (size_t i = 0; i < t->nr; i++) {
		size_t j = gx_hash(t->strs[i], strlen(t->strs[i])) & (nslots - 1);

		while (t->slots[j])
			j = (j + 1) & (nslots - 1);
		t->slots[j] = (uint32_t)i + 1;
	}
}

uint32_t strtab__intern_n(struct strtab *t, const char *s, size_t len)
{
	size_t j;

	if ((t->nr + 1) * 2 >= t->nslots)
		strtab__rehash(t, t->nslots ? t->nslots * 2 : 256);
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
