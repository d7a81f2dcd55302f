// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A set of rows (front/row_set.h): a row added, a key kept until the next
 * build, a row's energy; what the builder (row_build.c) and its parts
 * (rows_pod.c, rows_thread.c) all use, below them.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/idmap.h"
#include "common/array.h"
#include "front/row_set.h"

struct row *row_set__add(struct row_set *rs, enum scope s, const char *key)
{
	struct row *r;

	if (array__grow(&rs->rows, &rs->cap, rs->nr + 1, sizeof(*r)))
		return NULL;
	r = &rs->rows[rs->nr++];
	memset(r, 0, sizeof(*r));
	r->scope = s;
	r->key = key;
	return r;
}

const char *row_set__key(struct row_set *rs, const char *fmt, ...)
{
	char *k = rs->keys[rs->nr_keys++];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k, sizeof(rs->keys[0]), fmt, ap);
	va_end(ap);
	return k;
}

void row_set__exit(struct row_set *rs)
{
	idmap__clear(&rs->g_of, free);
	free(rs->rows);
	free(rs->keys);
	free(rs->conts);
	free(rs->pods);
	memset(rs, 0, sizeof(*rs));
}

/* Energy and power on a row, when a source is active; NAN when no package
 * had a valid reading in the interval, or one of its reads had none (its
 * other reads' joules would pass for the interval's). */
void row_set__energy(const struct row_ctx *sc, const struct aggregate *a,
		     struct row *r, double joules, double dt)
{
	if (!sc->energy_on)
		return;
	r->has_energy = true;
	bool known = a->energy_valid && !a->energy_gap;

	r->energy_j = known ? joules : NAN;
	r->power_w = known && dt > 0 ? joules / dt : NAN;
}

struct top_ref {
	int idx;
	double v;
};

static int top_ref__cmp(const void *a, const void *b)
{
	const struct top_ref *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return x->idx - y->idx;
}

/* Rows [from, to) of one scope: the n busiest first, in place; kept. */
static int top__scope(struct row *rows, int from, int to, int sort_idx, int n,
		      struct top_ref *refs, struct row *tmp)
{
	int nr = to - from;
	double ratio;

	for (int i = 0; i < nr; i++) {
		refs[i].idx = from + i;
		refs[i].v = 0;
		if (sort_idx >= 0)
			count__scaled(&rows[from + i].counts.c[sort_idx], &refs[i].v, &ratio);
	}
	qsort(refs, nr, sizeof(*refs), top_ref__cmp);
	if (n > nr)
		n = nr;
	for (int i = 0; i < n; i++)
		tmp[i] = rows[refs[i].idx];
	memcpy(&rows[from], tmp, n * sizeof(*tmp));
	return n;
}

int row_set__top(struct row_set *rs, int sort_idx, int n)
{
	struct top_ref *refs;
	struct row *tmp;
	int out = 0, k = 0, left = 0;

	if (n <= 0 || !rs->nr)
		return 0;
	refs = calloc(rs->nr, sizeof(*refs));
	tmp = calloc(rs->nr, sizeof(*tmp));
	if (!refs || !tmp) {
		free(refs);
		free(tmp);
		return 0;	/* no memory: every row, as without --top */
	}
	/* the builder adds each scope's rows in one run */
	while (k < rs->nr) {
		int end = k + 1;

		while (end < rs->nr && rs->rows[end].scope == rs->rows[k].scope)
			end++;
		if (SCOPES_OWN & (1u << rs->rows[k].scope)) {
			int kept = top__scope(rs->rows, k, end, sort_idx, n, refs, tmp);

			memmove(&rs->rows[out], &rs->rows[k], kept * sizeof(*tmp));
			left += end - k - kept;
			out += kept;
		} else {
			memmove(&rs->rows[out], &rs->rows[k], (end - k) * sizeof(*tmp));
			out += end - k;
		}
		k = end;
	}
	rs->nr = out;
	free(refs);
	free(tmp);
	return left;
}
