// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Linear probing with backward-shift deletion: no tombstones, so a map
 * that churns through exited processes never degrades. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/idmap.h"

static size_t idmap__hash(__u64 a, __u64 b)
{
	__u64 h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (size_t)h;
}

static struct idmap_slot *idmap__find(const struct idmap *m, __u64 a, __u64 b)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = idmap__hash(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct idmap_slot *s = &m->slots[i];

		if (!s->val)
			return NULL;
		if (s->key.a == a && s->key.b == b)
			return s;
	}
}

void idmap__prefetch(const struct idmap *m, __u64 a, __u64 b)
{
	if (m->cap)
		__builtin_prefetch(&m->slots[idmap__hash(a, b) & (m->cap - 1)]);
}

void *idmap__get(const struct idmap *m, __u64 a, __u64 b)
{
	struct idmap_slot *s = idmap__find(m, a, b);

	return s ? s->val : NULL;
}

static void idmap__insert(struct idmap_slot *slots, size_t cap,
			  struct idmap_key k, void *val)
{
	size_t i = idmap__hash(k.a, k.b) & (cap - 1);

	while (slots[i].val)
		i = (i + 1) & (cap - 1);
	slots[i].key = k;
	slots[i].val = val;
}

static int idmap__grow(struct idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct idmap_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].val)
			idmap__insert(slots, cap, m->slots[i].key, m->slots[i].val);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int idmap__put(struct idmap *m, __u64 a, __u64 b, void *val)
{
	struct idmap_slot *s = idmap__find(m, a, b);
	int err;

	if (s) {
		s->val = val;
		return 0;
	}
	if ((m->nr + 1) * 4 > m->cap * 3) {
		err = idmap__grow(m);
		if (err)
			return err;
	}
	idmap__insert(m->slots, m->cap, (struct idmap_key){ a, b }, val);
	m->nr++;
	return 0;
}

void *idmap__del(struct idmap *m, __u64 a, __u64 b)
{
	struct idmap_slot *s = idmap__find(m, a, b);
	size_t i, j, mask = m->cap - 1;
	void *val;

	if (!s)
		return NULL;
	val = s->val;
	i = (size_t)(s - m->slots);
	s->val = NULL;
	/* Shift back the entries that probed past the hole. */
	for (j = (i + 1) & mask; m->slots[j].val; j = (j + 1) & mask) {
		size_t home = idmap__hash(m->slots[j].key.a, m->slots[j].key.b) & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			m->slots[j].val = NULL;
			i = j;
		}
	}
	m->nr--;
	return val;
}

struct idmap_slot *idmap__next(const struct idmap *m, size_t *iter)
{
	while (*iter < m->cap) {
		struct idmap_slot *s = &m->slots[(*iter)++];

		if (s->val)
			return s;
	}
	return NULL;
}

void idmap__reset(struct idmap *m, void (*put_val)(void *, void *), void *ctx)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].val && put_val)
			put_val(ctx, m->slots[i].val);
	if (m->slots)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->nr = 0;
}

void idmap__clear(struct idmap *m, void (*free_val)(void *))
{
	for (size_t i = 0; free_val && i < m->cap; i++)
		if (m->slots[i].val)
			free_val(m->slots[i].val);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->nr = 0;
}
