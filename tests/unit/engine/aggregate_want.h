/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The entries an aggregate must hold, as a table: for the tests of the
 * aggregate itself and of what fills it (snapshot__diff).
 */
#ifndef EMON_TESTS_UNIT_AGGREGATE_WANT_H
#define EMON_TESTS_UNIT_AGGREGATE_WANT_H

#include "engine/aggregate.h"
#include "common/idmap.h"
#include "helpers.h"

/* An entry of a map: its keys, its first event's total, its name (a
 * cgroup's path or a process's comm; NULL: not checked). */
struct agg_want {
	__u64 id, id2;
	__u64 total;
	const char *name;
};

static inline void agg_want__check(struct idmap *m, const struct agg_want *w,
				   size_t n)
{
	for (; n--; w++) {
		struct agg_entry *e = idmap__get(m, w->id, w->id2);

		if (!e)
			fail_msg("no entry %llu/%llu", (unsigned long long)w->id,
				 (unsigned long long)w->id2);
		assert_int_equal(e->total.c[0].counter, w->total);
		if (w->name)
			assert_string_equal(e->name ? e->name : e->comm, w->name);
	}
}

#endif
