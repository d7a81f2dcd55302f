// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The plan each fixture machine (tests/fixtures/sysfs/) gives an event:
 * the attr every CPU's perf_event is opened with, through stand-ins for
 * perf_event_open that record it and fail chosen opens. No root, no PMU.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pmu/event.h"
#include "helpers.h"

#define FIXTURES "tests/fixtures/sysfs"
#define NCPUS 24
#define FAKE_FD 1000
#define HW(id, type) ((__u64)(id) | (__u64)(type) << 32)
#define NONE (~0U)	/* fd -1 on these CPUs */

/* What the stand-in open saw, and the opens it is told to fail */
static struct {
	struct perf_event_attr attr[NCPUS];
	bool opened[NCPUS];
	int nr_open, nr_close;
	__u32 fail_type;
	__u64 fail_config;
	int fail_errno;		/* 0: fail nothing */
	bool fail_all;
} fake;

static int fake_open(const struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	(void)pid; (void)group_fd; (void)flags;
	if (fake.fail_errno && (fake.fail_all ||
	    (attr->type == fake.fail_type && attr->config == fake.fail_config))) {
		errno = fake.fail_errno;
		return -1;
	}
	fake.attr[cpu] = *attr;
	fake.opened[cpu] = true;
	fake.nr_open++;
	return FAKE_FD + cpu;
}

static int fake_close(int fd)
{
	assert_true(fd >= FAKE_FD && fd < FAKE_FD + NCPUS);
	fake.nr_close++;
	return 0;
}

static const struct pmu_sys_ops fake_ops = { fake_open, fake_close };

struct cpu_range {
	int first, last;
	__u32 type;		/* NONE: not open there */
	__u64 config;
};

struct plan_case {
	const char *name, *tree, *event;
	int ncpus;
	__u32 fail_type;
	__u64 fail_config;
	int fail_errno;
	bool fail_all;
	int ret;
	bool supported;
	struct cpu_range cpus[3];
};

static const struct plan_case plan_cases[] = {
	{ "adl cycles", "alderlake", "cycles", 24, 0, 0, 0, 0, 0, true,
	  { { 0, 15, 0, HW(0, 4) }, { 16, 23, 0, HW(0, 10) } } },
	{ "adl instructions:u", "alderlake", "instructions:u", 24, 0, 0, 0, 0, 0, true,
	  { { 0, 15, 0, HW(1, 4) }, { 16, 23, 0, HW(1, 10) } } },
	{ "adl raw", "alderlake", "r01c2", 24, 0, 0, 0, 0, 0, true,
	  { { 0, 15, 4, 0x1c2 }, { 16, 23, 10, 0x1c2 } } },
	{ "adl L1-dcache-load-misses", "alderlake", "L1-dcache-load-misses", 24,
	  0, 0, 0, 0, 0, true,
	  { { 0, 15, 3, HW(0x10000, 4) }, { 16, 23, 3, HW(0x10000, 10) } } },
	/* the atom cannot count it: its CPUs -1, the event counted on the cores */
	{ "adl ref-cycles, atom lacks it", "alderlake", "ref-cycles", 24,
	  0, HW(9, 10), ENOENT, 0, 0, true,
	  { { 0, 15, 0, HW(9, 4) }, { 16, 23, NONE, 0 } } },
	{ "adl cycles, no PMU counts it", "alderlake", "cycles", 24,
	  0, 0, ENOENT, true, 0, false, { { 0, 23, NONE, 0 } } },
	{ "adl cycles, denied", "alderlake", "cycles", 24,
	  0, 0, EACCES, true, -EACCES, false, { { 0, 23, NONE, 0 } } },
	{ "adl cpu_atom/event=0xc0/", "alderlake", "cpu_atom/event=0xc0/", 24,
	  0, 0, 0, 0, 0, true, { { 0, 15, NONE, 0 }, { 16, 23, 10, 0xc0 } } },
	{ "adl cpu_core/cycles/", "alderlake", "cpu_core/cycles/", 24,
	  0, 0, 0, 0, 0, true, { { 0, 15, 0, HW(0, 4) }, { 16, 23, NONE, 0 } } },
	{ "adl msr/tsc/", "alderlake", "msr/tsc/", 24, 0, 0, 0, 0, 0, true,
	  { { 0, 23, 15, 0 } } },
	{ "adl cpu-clock:u", "alderlake", "cpu-clock:u", 24, 0, 0, 0, 0, 0, true,
	  { { 0, 23, 1, 0 } } },
	{ "amd cycles", "amd", "cycles", 24, 0, 0, 0, 0, 0, true,
	  { { 0, 23, 0, 0 } } },
	{ "amd raw", "amd", "r01c2", 24, 0, 0, 0, 0, 0, true,
	  { { 0, 23, PERF_TYPE_RAW, 0x1c2 } } },
	{ "amd cpu/event=0x1c2/", "amd", "cpu/event=0x1c2/", 24, 0, 0, 0, 0, 0, true,
	  { { 0, 23, 4, 0x1000000c2ULL } } },
	{ "amd cycles, not supported", "amd", "cycles", 24, 0, 0, ENOENT, true,
	  0, false, { { 0, 23, NONE, 0 } } },
	{ "arm cycles", "arm", "cycles", 6, 0, 0, 0, 0, 0, true,
	  { { 0, 3, 0, HW(0, 8) }, { 4, 5, 0, HW(0, 9) } } },
	{ "arm raw", "arm", "r1b", 6, 0, 0, 0, 0, 0, true,
	  { { 0, 3, 8, 0x1b }, { 4, 5, 9, 0x1b } } },
	{ "arm raw, A53 lacks it", "arm", "r1b", 6, 8, 0x1b, EINVAL, 0, 0, true,
	  { { 0, 3, NONE, 0 }, { 4, 5, 9, 0x1b } } },
	{ "arm armv8_cortex_a72/inst_spec/", "arm", "armv8_cortex_a72/inst_spec/",
	  6, 0, 0, 0, 0, 0, true, { { 0, 3, NONE, 0 }, { 4, 5, 9, 0x1b } } },
};

static void plan__check(const struct plan_case *c, const struct pmu_event *e)
{
	for (size_t r = 0; r < ARRAY_SIZE(c->cpus); r++) {
		const struct cpu_range *cr = &c->cpus[r];

		for (int cpu = cr->first; cr->last && cpu <= cr->last; cpu++) {
			print_message("  cpu%d: fd %d type %u config %#llx\n", cpu,
				      e->fds[cpu], fake.attr[cpu].type,
				      (unsigned long long)fake.attr[cpu].config);
			if (cr->type == NONE) {
				assert_int_equal(e->fds[cpu], -1);
				continue;
			}
			assert_int_equal(e->fds[cpu], FAKE_FD + cpu);
			assert_int_equal(fake.attr[cpu].type, cr->type);
			assert_int_equal(fake.attr[cpu].config, cr->config);
		}
	}
}

static void test_plan(void **state)
{
	const struct plan_case *c = *state;
	bool online[NCPUS];
	struct pmu_event e;
	char err[256] = "", root[256];
	int ret, i;

	memset(&fake, 0, sizeof(fake));
	fake.fail_type = c->fail_type;
	fake.fail_config = c->fail_config;
	fake.fail_errno = c->fail_errno;
	fake.fail_all = c->fail_all;
	for (i = 0; i < NCPUS; i++)
		online[i] = i < c->ncpus;
	snprintf(root, sizeof(root), "%s/%s", FIXTURES, c->tree);
	pmus__set_root(root);
	pmu_sys__set_ops(&fake_ops);
	assert_int_equal(pmu_event__resolve(&e, c->event, err, sizeof(err)), 0);
	ret = pmu_event__open(&e, c->ncpus, online, err, sizeof(err));
	print_message("%s: %d supported %d open_err %d %s\n", c->event, ret,
		      e.supported, e.open_err, err);
	assert_int_equal(ret, c->ret);
	assert_int_equal(e.supported, c->supported);
	assert_int_equal(e.nr_fds, c->ncpus);
	plan__check(c, &e);
	if (!c->supported && !ret)
		assert_int_equal(e.open_err, -c->fail_errno);

	/* a CPU back online opens with its own PMU's attr again */
	for (i = 0; c->supported && i < c->ncpus; i++) {
		int fd = e.fds[i];

		memset(&fake.attr[i], 0, sizeof(fake.attr[i]));
		assert_int_equal(pmu_event__reopen_cpu(&e, i), 0);
		assert_int_equal(e.fds[i], fd);
		if (fd >= 0)
			assert_int_equal(pmu_event__probe(&e, i), 0);
	}
	plan__check(c, &e);
	pmu_event__close(&e);
	assert_int_equal(fake.nr_close, fake.nr_open);
	pmu_sys__set_ops(NULL);
	pmus__set_root(NULL);
}

int main(void)
{
	const struct CMUnitTest none[] = {};

	return tests__run(none, 0, test_plan, plan_cases, ARRAY_SIZE(plan_cases),
			  sizeof(plan_cases[0]),
			  offsetof(struct plan_case, name));
}
