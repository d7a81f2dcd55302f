// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Snapshots: the hello's meta round trip, the decoder's checks on bytes
 * from another process, and the interval between two snapshots: keys
 * that appear, change, stay or leave (their gain before leaving is in the
 * gone entry, and goes to the overflow row so the rows still add up).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "emon_proto.h"
#include "engine/snapshot/snapshot.h"
#include "engine/snapshot/encode.h"
#include "aggregate_want.h"

static int cpu_pkg[2] = { 0, 0 }, pkg_id[1] = { 3 };

static struct snap_meta mk_meta(void)
{
	struct snap_meta m = {
		.pid = 42, .ncpus = 2, .npkg = 1, .nr_events = 2,
		.ev_is_time = { true, false }, .nr_unsup = 1,
		.cpu_pkg = cpu_pkg, .pkg_id = pkg_id, .energy_on = true,
		.energy_source = "powercap", .split_by = "cpu-clock",
		.start_t = 12.5, .max_trees = 64, .no_scale = true,
	};

	strcpy(m.ev_name[0], "cpu-clock");
	strcpy(m.ev_name[1], "context-switches");
	strcpy(m.unsup_name[0], "cycles");
	return m;
}

static void test_meta_round_trip(void **state)
{
	struct snap_meta m = mk_meta(), d;
	size_t len;
	void *buf;

	(void)state;
	assert_int_equal(snap_meta__encode(&m, &buf, &len), 0);
	assert_int_equal(snap_meta__decode(&d, buf, len), 0);
	assert_int_equal(d.pid, 42);
	assert_int_equal(d.nr_events, 2);
	assert_string_equal(d.ev_name[1], "context-switches");
	assert_true(d.ev_is_time[0]);
	assert_false(d.ev_is_time[1]);
	assert_int_equal(d.nr_unsup, 1);
	assert_string_equal(d.unsup_name[0], "cycles");
	assert_int_equal(d.pkg_id[0], 3);
	assert_true(d.energy_on);
	assert_string_equal(d.split_by, "cpu-clock");
	assert_true(d.no_scale);	/* the daemon's counts are raw */
	assert_false(d.threads_on);
	assert_true(((struct emon_hello *)buf)->flags & EMON_HELLO_NO_SCALE);
	snap_meta__free(&d);
	/* bad ones next to the good one */
	assert_int_equal(snap_meta__decode(&d, buf, len - 1), -EBADMSG);
	((struct emon_hello *)buf)->ncpus = 0;
	assert_int_equal(snap_meta__decode(&d, buf, len), -EBADMSG);
	((struct emon_hello *)buf)->ncpus = 2;
	((__s32 *)((struct emon_hello *)buf + 1))[1] = 5;	/* cpu 1 in package 5 of 1 */
	assert_int_equal(snap_meta__decode(&d, buf, len), -EBADMSG);
	free(buf);
}

/* A snapshot of 2 CPUs, 1 package, 1 event, cgroups named "/a", ... */
static size_t mk_encoded(char *buf, size_t cap, int nr_cgrp, const char *name)
{
	size_t ent = sizeof(struct emon_snap_entry) + sizeof(struct emon_count);
	size_t strs = strlen(name) + 1, off = 0;
	struct emon_snap_hdr h = {
		.ncpus = 2, .npkg = 1, .nr_events = 1, .scopes = EMON_SNAP_CGROUPS,
		.nr_cgrp = nr_cgrp, .strings = strs,
	};
	size_t len = sizeof(h) + 2 * (sizeof(struct emon_snap_cpu) + sizeof(struct emon_count)) +
		     sizeof(struct emon_snap_pkg) + (EMON_SNAP_FIXED + nr_cgrp) * ent + strs;

	assert_true(len <= cap);
	memset(buf, 0, len);
	memcpy(buf, &h, sizeof(h));
	off = len - strs - nr_cgrp * ent;
	for (int i = 0; i < nr_cgrp; i++) {
		struct emon_snap_entry *e = (struct emon_snap_entry *)(buf + off + i * ent);

		e->id = 100 + i;
		e->name = 0;
	}
	for (int i = 0; i < EMON_SNAP_FIXED; i++)
		((struct emon_snap_entry *)(buf + off - (EMON_SNAP_FIXED - i) * ent))->name =
			EMON_NO_NAME;
	memcpy(buf + len - strs, name, strs);
	return len;
}

static void test_decode_checks(void **state)
{
	struct snap_meta m = mk_meta();
	struct snapshot s;
	char buf[4096];
	size_t len = mk_encoded(buf, sizeof(buf), 2, "/a");

	(void)state;
	assert_int_equal(snapshot__decode(&s, &m, buf, len), 0);
	assert_int_equal(s.nr_cgrp, 2);
	assert_string_equal(s.cgrp[1].name, "/a");
	assert_null(s.ovf_cgrp.name);
	snapshot__free(&s);
	struct {
		const char *what;
		size_t off;	/* a byte to change, or (size_t)-1: cut the end */
		unsigned char val;
	} bad[] = {
		{ "one byte short", (size_t)-1, 0 },
		{ "ncpus not the hello's", offsetof(struct emon_snap_hdr, ncpus), 3 },
		{ "events past the hello's", offsetof(struct emon_snap_hdr, ev), 7 },
		{ "names not ending in NUL", 0, 'x' },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char b[4096];
		size_t l = len;

		memcpy(b, buf, len);
		if (bad[i].off == (size_t)-1)
			l--;
		else if (!strcmp(bad[i].what, "names not ending in NUL"))
			b[len - 1] = bad[i].val;
		else
			b[bad[i].off] = bad[i].val;
		print_message("%s\n", bad[i].what);
		assert_int_equal(snapshot__decode(&s, &m, b, l), -EBADMSG);
	}
	/* a name offset past the strings */
	{
		char b[4096];
		size_t ent = sizeof(struct emon_snap_entry) + sizeof(struct emon_count);

		memcpy(b, buf, len);
		((struct emon_snap_entry *)(b + len - 3 - 2 * ent))->name = 3;
		assert_int_equal(snapshot__decode(&s, &m, b, len), -EBADMSG);
	}
}

static struct snap_entry ent(__u64 id, __u64 count, double j)
{
	struct snap_entry e = { .id = id, .name = "/x", .energy_j = j };

	e.c.c[0].counter = count;
	return e;
}

static void fill(struct snapshot *s, struct counts *cpu, double *ce, double *pe,
		 double *pz, unsigned int *pm, bool *on, __u64 c0, __u64 c1)
{
	memset(s, 0, sizeof(*s));
	s->ncpus = 2;
	s->npkg = 1;
	s->nr_events = 1;
	s->scopes = EMON_SNAP_CGROUPS | EMON_SNAP_PROCS;
	s->cpu = cpu;
	s->cpu_energy = ce;
	s->pkg_energy = pe;
	s->pkg_zone = pz;
	s->pkg_zone_mask = pm;
	s->online = on;
	memset(cpu, 0, 2 * sizeof(*cpu));
	cpu[0].c[0].counter = c0;
	cpu[1].c[0].counter = c1;
}

/*
 * prev: cgroups 1 (10), 2 (5); cur: 1 (15), 3 (4), 2 left with a final 7
 * (so it gained 2 before leaving). The interval: 1 +5, 3 +4, overflow +2;
 * 11 in all, as the CPUs say.
 */
static void test_diff_gone(void **state)
{
	struct counts cp[2], cc[2];
	double ce[2] = { 0 }, pe[1] = { 0 }, pz[4] = { 0 }, ce2[2] = { 1, 2 }, pe2[1] = { 3 };
	unsigned int pm[1] = { 0 };
	bool on[2] = { true, true };
	struct snapshot prev, cur;
	struct snap_entry pg[] = { ent(1, 10, 0), ent(2, 5, 0) };
	struct snap_entry cg[] = { ent(1, 15, 1), ent(3, 4, 0.5) };
	static const struct agg_want cgrps[] = {
		{ 1, 0, 5, "/x" },
		{ 3, 0, 4 },
	};
	struct aggregate a;
	__u64 sum = 0;

	(void)state;
	fill(&prev, cp, ce, pe, pz, pm, on, 10, 5);
	prev.cgrp = pg;
	prev.nr_cgrp = 2;
	fill(&cur, cc, ce2, pe2, pz, pm, on, 16, 10);
	cur.cgrp = cg;
	cur.nr_cgrp = 2;
	cur.gone_cgrp = ent(0, 7, 1.5);
	cur.energy_reads = 1;
	assert_int_equal(aggregate__init(&a, 2, 1, cpu_pkg, 1), 0);
	assert_int_equal(snapshot__diff(&cur, &prev, &a), 0);
	agg_want__check(&a.cgrps, cgrps, ARRAY_SIZE(cgrps));
	assert_null(idmap__get(&a.cgrps, 2, 0));
	assert_int_equal(a.ovf_cgrp->total.c[0].counter, 2);
	for (size_t it = 0, n = 0; n < a.cgrps.nr;) {
		struct idmap_slot *s = idmap__next(&a.cgrps, &it);

		sum += ((struct agg_entry *)s->val)->total.c[0].counter;
		n++;
	}
	sum += a.ovf_cgrp->total.c[0].counter;
	assert_int_equal(sum, (16 - 10) + (10 - 5));
	/* energy: 1.5 gone less the 0 it had, 1 and 0.5 on the keys: 3 measured */
	assert_true(a.energy_valid);
	assert_true(a.energy_total == 3);
	assert_true(a.ovf_cgrp->energy_j == 1.5);
	/* a key unchanged is no row of the interval */
	aggregate__reset(&a);
	assert_int_equal(snapshot__diff(&cur, &cur, &a), 0);
	assert_int_equal(a.cgrps.nr, 0);
	assert_false(a.energy_valid);
	aggregate__exit(&a);
}

/* Without prev (the first interval): everything since the start; a
 * snapshot without every cgroup (no scope) says nothing of gone ones. */
static void test_diff_first_and_partial(void **state)
{
	struct counts cc[2];
	double ce[2] = { 0 }, pe[1] = { 0 }, pz[4] = { 0 };
	unsigned int pm[1] = { 0 };
	bool on[2] = { true, true };
	struct snap_entry cg[] = { ent(1, 15, 0) };
	static const struct agg_want cgrp = { 1, 0, 15 };
	struct snapshot cur;
	struct aggregate a;

	(void)state;
	fill(&cur, cc, ce, pe, pz, pm, on, 10, 5);
	cur.cgrp = cg;
	cur.nr_cgrp = 1;
	cur.gone_cgrp = ent(0, 7, 0);
	assert_int_equal(aggregate__init(&a, 2, 1, cpu_pkg, 1), 0);
	assert_int_equal(snapshot__diff(&cur, NULL, &a), 0);
	agg_want__check(&a.cgrps, &cgrp, 1);
	assert_int_equal(a.ovf_cgrp->total.c[0].counter, 7);
	aggregate__reset(&a);
	cur.scopes = 0;
	cur.nr_cgrp = 0;
	assert_int_equal(snapshot__diff(&cur, NULL, &a), 0);
	assert_int_equal(a.ovf_cgrp->total.c[0].counter, 0);
	aggregate__exit(&a);
}

/*
 * The thread scope through a snapshot: each thread's (tid, tgid << 32 |
 * start) key, its name and counts, the overflow and gone entries; a
 * request without EMON_SNAP_THREADS has none of it. A second snapshot's
 * difference holds only the thread that ran since.
 */
static void test_threads_round_trip(void **state)
{
	struct snap_meta m = mk_meta();
	struct aggregate a, b;
	struct session_read r = { 0 };
	struct snap_view all = { .all = true };
	struct emon_snap_req req = { .scopes = EMON_SNAP_THREADS, .tree = -1 };
	struct agg_entry gone = { 0 };
	struct sess_thrd th[2] = {
		{ .tid = 101, .tgid = 100, .cpu = 0, .start = 7, .comm = "worker" },
		{ .tid = 102, .tgid = 100, .cpu = 1, .start = 8, .comm = "other" },
	};
	bool online[2] = { true, true };
	struct snapshot s1, s2;
	struct agg_entry *e;
	struct snap_src src;
	size_t len;
	void *buf;

	(void)state;
	m.nr_events = 1;
	assert_int_equal(aggregate__init(&a, 2, 1, cpu_pkg, 1), 0);
	assert_int_equal(session_read__init(&r, 2), 0);
	th[0].c.c[0].counter = 5000;
	th[1].c.c[0].counter = 300;
	r.thrd = th;
	r.nr_thrd = 2;
	r.ovf_thrd[1].c[0].counter = 40;
	gone.total.c[0].counter = 6;
	assert_int_equal(aggregate__add(&a, &r), 0);
	src = (struct snap_src){ .agg = &a, .gone_thrd = &gone, .online = online,
				 .ncpus = 2, .nr_events = 1, .seq = 1, .t = 1.0,
				 .view = &all };
	assert_int_equal(snap_src__encode(&src, &req, -1, &buf, &len), 0);
	assert_int_equal(snapshot__decode(&s1, &m, buf, len), 0);
	free(buf);
	assert_int_equal(s1.nr_thrd, 2);
	assert_int_equal(s1.ovf_thrd.c.c[0].counter, 40);
	assert_int_equal(s1.gone_thrd.c.c[0].counter, 6);
	for (size_t i = 0; i < s1.nr_thrd; i++) {
		const struct snap_entry *t = &s1.thrd[i];

		assert_int_equal(t->id2 >> 32, 100);
		assert_string_equal(t->name, t->id == 101 ? "worker" : "other");
		assert_int_equal(t->c.c[0].counter, t->id == 101 ? 5000 : 300);
		assert_int_equal(t->id2 & 0xffffffff, t->id == 101 ? 7 : 8);
	}
	/* no thread scope asked: none, and the sizes still check */
	req.scopes = EMON_SNAP_PROCS;
	assert_int_equal(snap_src__encode(&src, &req, -1, &buf, &len), 0);
	assert_int_equal(snapshot__decode(&s2, &m, buf, len), 0);
	assert_int_equal(s2.nr_thrd, 0);
	snapshot__free(&s2);
	/* a snapshot that claims threads without the scope is refused */
	((struct emon_snap_hdr *)buf)->nr_thrd = 1;
	assert_int_equal(snapshot__decode(&s2, &m, buf, len), -EBADMSG);
	free(buf);
	/* the next interval: thread 102 ran 50 more; 101 did not */
	req.scopes = EMON_SNAP_THREADS;
	th[1].c.c[0].counter = 50;
	r.thrd = &th[1];
	r.nr_thrd = 1;
	r.ovf_thrd[1].c[0].counter = 0;
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(snap_src__encode(&src, &req, -1, &buf, &len), 0);
	assert_int_equal(snapshot__decode(&s2, &m, buf, len), 0);
	free(buf);
	assert_int_equal(aggregate__init(&b, 2, 1, cpu_pkg, 1), 0);
	assert_int_equal(snapshot__diff(&s2, &s1, &b), 0);
	assert_int_equal(b.thrds.nr, 1);
	e = idmap__get(&b.thrds, 102, 100ULL << 32 | 8);
	assert_non_null(e);
	assert_int_equal(e->total.c[0].counter, 50);
	assert_string_equal(e->comm, "other");
	snapshot__free(&s1);
	snapshot__free(&s2);
	r.thrd = NULL;
	session_read__exit(&r);
	aggregate__exit(&a);
	aggregate__exit(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_round_trip),
		cmocka_unit_test(test_decode_checks),
		cmocka_unit_test(test_diff_gone),
		cmocka_unit_test(test_diff_first_and_partial),
		cmocka_unit_test(test_threads_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
