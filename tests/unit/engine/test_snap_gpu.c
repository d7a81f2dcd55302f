// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * GPU energy through snapshots (--gpu): each key's counts.gpu and the
 * GPUs' totals encoded, decoded, and differenced into an interval (a GPU
 * valid where it had a read, its figures unknown where not); a tenant's
 * view gets zeros; a snapshot that claims GPUs without the flag, or too
 * many, is refused.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emon_proto.h"
#include "engine/snapshot/snapshot.h"
#include "engine/snapshot/encode.h"
#include "helpers.h"

static int cpu_pkg[2] = { 0, 0 }, pkg_id[1] = { 0 };

static struct snap_meta mk_meta(void)
{
	struct snap_meta m = {
		.ncpus = 2, .npkg = 1, .nr_events = 1, .cpu_pkg = cpu_pkg,
		.pkg_id = pkg_id, .gpu_on = true,
	};

	strcpy(m.ev_name[0], "cpu-clock");
	return m;
}

struct fix {
	struct aggregate a;
	struct snap_gpu gpus[2];
	struct snap_src src;
	bool online[2];
};

static void fix__init(struct fix *f, const struct snap_view *view)
{
	struct agg_entry *p, *c;

	memset(f, 0, sizeof(*f));
	assert_int_equal(aggregate__init(&f->a, 2, 1, cpu_pkg, 1), 0);
	p = aggregate__entry(&f->a, &f->a.procs, 4242, 7);
	c = aggregate__entry(&f->a, &f->a.cgrps, 99, 0);
	assert_non_null(p);
	assert_non_null(c);
	p->total.c[0].counter = 1000;
	p->total.gpu = (struct gpu_count){ 6000000, 600000000 };	/* 6 J, 0.6 s */
	c->total.gpu = p->total.gpu;
	f->gpus[0] = (struct snap_gpu){ "GPU A", 10000000, 4000000, 600000000, 3, false };
	f->gpus[1] = (struct snap_gpu){ "GPU B", 0, 0, 0, 0, true };
	f->online[0] = f->online[1] = true;
	f->src = (struct snap_src){ .agg = &f->a, .online = f->online, .ncpus = 2,
				    .nr_events = 1, .seq = 1, .t = 1.0, .view = view,
				    .gpus = f->gpus, .nr_gpu = 2 };
}

static void test_gpu_round_trip(void **state)
{
	static const struct snap_view all = { .all = true };
	struct emon_snap_req req = { .scopes = EMON_SNAP_CGROUPS | EMON_SNAP_PROCS, .tree = -1 };
	struct snap_meta m = mk_meta(), d;
	struct snapshot s1, s2;
	struct aggregate b;
	struct agg_entry *e;
	struct fix f;
	size_t len;
	void *buf;

	(void)state;
	/* the hello says a GPU source is on */
	assert_int_equal(snap_meta__encode(&m, &buf, &len), 0);
	assert_int_equal(snap_meta__decode(&d, buf, len), 0);
	assert_true(d.gpu_on);
	snap_meta__free(&d);
	free(buf);
	fix__init(&f, &all);
	assert_int_equal(snap_src__encode(&f.src, &req, -1, &buf, &len), 0);
	assert_int_equal(snapshot__decode(&s1, &m, buf, len), 0);
	free(buf);
	assert_true(s1.gpu);
	assert_int_equal(s1.nr_gpu, 2);
	assert_string_equal(s1.gpus[0].name, "GPU A");
	assert_true(s1.gpus[0].uj == 10000000 && s1.gpus[0].idle_uj == 4000000 &&
		    s1.gpus[0].reads == 3 && !s1.gpus[0].lost);
	assert_true(s1.gpus[1].lost);
	assert_int_equal(s1.nr_proc, 1);
	assert_true(s1.proc[0].c.gpu.uj == 6000000 && s1.proc[0].c.gpu.sm_ns == 600000000);
	assert_true(s1.cgrp[0].c.gpu.uj == 6000000);
	assert_true(s1.proc[0].c.c[0].counter == 1000);

	/* a second read: GPU A 5 J more (1 J the process's), B still lost */
	e = idmap__get(&f.a.procs, 4242, 7);
	e->total.gpu.uj += 1000000;
	e->total.gpu.sm_ns += 100000000;
	f.gpus[0].uj += 5000000;
	f.gpus[0].idle_uj += 4000000;
	f.gpus[0].sm_ns += 100000000;
	f.gpus[0].reads++;
	f.src.t = 1.5;
	assert_int_equal(snap_src__encode(&f.src, &req, -1, &buf, &len), 0);
	assert_int_equal(snapshot__decode(&s2, &m, buf, len), 0);
	free(buf);
	assert_int_equal(aggregate__init(&b, 2, 1, cpu_pkg, 1), 0);
	assert_int_equal(snapshot__diff(&s2, &s1, &b), 0);
	assert_true(b.gpu_on && b.gpu_valid);
	assert_int_equal(b.nr_gpu, 2);
	assert_true(b.gpu[0].valid && fabs(b.gpu[0].energy_j - 5.0) < 1e-9);
	assert_true(fabs(b.gpu[0].idle_j - 4.0) < 1e-9);
	assert_true(fabs(b.gpu[0].util - 0.2) < 1e-9);	/* 0.1 s of SM in 0.5 s */
	assert_true(!b.gpu[1].valid && b.gpu[1].lost);
	e = idmap__get(&b.procs, 4242, 7);
	assert_non_null(e);	/* its counts did not move, its GPU part did */
	assert_true(e->total.gpu.uj == 1000000 && e->total.gpu.sm_ns == 100000000);
	assert_int_equal(e->total.c[0].counter, 0);
	aggregate__exit(&b);
	/* nothing read in an interval: no GPU valid */
	assert_int_equal(aggregate__init(&b, 2, 1, cpu_pkg, 1), 0);
	assert_int_equal(snapshot__diff(&s2, &s2, &b), 0);
	assert_true(b.gpu_on && !b.gpu_valid && !b.gpu[0].valid);
	aggregate__exit(&b);
	snapshot__free(&s1);
	snapshot__free(&s2);
	aggregate__exit(&f.a);
}

static void test_gpu_tenant_and_checks(void **state)
{
	const struct snap_view tenant = { .uid = 1000 };
	struct emon_snap_req req = { .scopes = EMON_SNAP_CGROUPS | EMON_SNAP_PROCS, .tree = -1 };
	struct snap_meta m = mk_meta();
	struct emon_snap_hdr *h;
	struct agg_entry *e;
	struct snapshot s;
	struct fix f;
	size_t len;
	void *buf;

	(void)state;
	fix__init(&f, &tenant);
	e = idmap__get(&f.a.procs, 4242, 7);
	e->owned = true;
	e->owner = 1000;	/* the tenant's own process */
	assert_int_equal(snap_src__encode(&f.src, &req, -1, &buf, &len), 0);
	assert_int_equal(snapshot__decode(&s, &m, buf, len), 0);
	/* its process is there, its GPU part as zeros, as its energy */
	assert_int_equal(s.nr_proc, 1);
	assert_true(s.proc[0].c.c[0].counter == 1000 && s.proc[0].c.gpu.uj == 0);
	assert_true(s.gpus[0].uj == 0 && s.gpus[0].reads == 0);
	assert_string_equal(s.gpus[0].name, "GPU A");
	snapshot__free(&s);
	/* claims the decoder refuses */
	h = buf;
	h->flags &= ~EMON_SNAP_GPU;
	assert_int_equal(snapshot__decode(&s, &m, buf, len), -EBADMSG);
	h->flags |= EMON_SNAP_GPU;
	h->nr_gpu = SNAP_GPU_MAX + 1;
	assert_int_equal(snapshot__decode(&s, &m, buf, len), -EBADMSG);
	h->nr_gpu = 2;
	/* a name without its NUL */
	memset((char *)buf + len - h->strings - 2 * sizeof(struct emon_snap_gpu), 'x',
	       EMON_PROTO_NAME_LEN);
	assert_int_equal(snapshot__decode(&s, &m, buf, len), -EBADMSG);
	free(buf);
	aggregate__exit(&f.a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_round_trip),
		cmocka_unit_test(test_gpu_tenant_and_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
