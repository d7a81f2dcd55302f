/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Open-addressing hash map from a two-word key to a pointer. */
#ifndef COMMON_IDMAP_H
#define COMMON_IDMAP_H

#include <linux/types.h>
#include <stddef.h>

struct idmap_key {
	__u64 a;
	__u64 b;
};

struct idmap_slot {
	struct idmap_key key;
	void *val;		/* NULL: empty */
};

struct idmap {
	struct idmap_slot *slots;
	size_t cap;		/* power of two */
	size_t nr;
};

void *idmap__get(const struct idmap *m, __u64 a, __u64 b);
/* A hint: a's and b's slot is wanted soon (its cache line fetched). */
void idmap__prefetch(const struct idmap *m, __u64 a, __u64 b);
/* Insert or replace; returns 0 or -ENOMEM. val must not be NULL. */
int idmap__put(struct idmap *m, __u64 a, __u64 b, void *val);
/* Remove and return the value (NULL if absent). */
void *idmap__del(struct idmap *m, __u64 a, __u64 b);
/* Iterate: for (i = 0; (s = idmap__next(m, &i)); ) */
struct idmap_slot *idmap__next(const struct idmap *m, size_t *iter);
/* Empty it but keep the table (no reallocation next time): every value
 * goes to put_val(ctx, val) first (put_val may be NULL). */
void idmap__reset(struct idmap *m, void (*put_val)(void *ctx, void *val), void *ctx);
/* Free every value with free_val (may be NULL) and the table. */
void idmap__clear(struct idmap *m, void (*free_val)(void *));

#endif
