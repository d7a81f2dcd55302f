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
 * had a valid reading in the interval. */
void row_set__energy(const struct row_ctx *sc, const struct aggregate *a,
		     struct row *r, double joules, double dt)
{
	if (!sc->energy_on)
		return;
	r->has_energy = true;
	r->energy_j = a->energy_valid ? joules : NAN;
	r->power_w = a->energy_valid && dt > 0 ? joules / dt : NAN;
}
