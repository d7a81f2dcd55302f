// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Energy: counter arithmetic, the powercap, perf and model sources on fake
 * sysfs trees made in a temporary directory, and the energy split.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rapl/energy.h"
#include "helpers.h"

#define J_EPS 1e-9

/* --- fake trees ----------------------------------------------------------- */

struct tree {
	char root[PATH_MAX];	/* temp dir */
	char pc[PATH_MAX];	/* root/powercap */
	char cpu[PATH_MAX];	/* root/cpu */
	char perf[PATH_MAX];	/* root/power */
};

/* vsnprintf into a PATH_MAX buffer; paths here are short. */
static char *pathf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && n < PATH_MAX);
	return buf;
}

static void mkdir_p(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

/* Write content to the path made of fmt: parents are created. */
static void put(const char *content, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(const char *content, const char *fmt, ...)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdir_p(dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}

static void put_u64(unsigned long long v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put_u64(unsigned long long v, const char *fmt, ...)
{
	char path[PATH_MAX], buf[32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "%llu\n", v);
	put(buf, "%s", path);
}

#define NONE -1LL	/* a zone's file that is not there */

/* A powercap zone: dir/{name,energy_uj,max_energy_range_uj}. */
struct zone {
	const char *dir;	/* under the powercap root; "": the root */
	const char *name;	/* NULL: no name file */
	long long uj, range;	/* NONE: no such file */
};

/* n zones, or fewer ended by a NULL dir */
static void put_zones(struct tree *t, const struct zone *z, size_t n)
{
	char dir[PATH_MAX], buf[64];

	for (; n-- && z->dir; z++) {
		pathf(dir, *z->dir ? "%s/%s" : "%s%s", t->pc, z->dir);
		if (z->name) {
			snprintf(buf, sizeof(buf), "%s\n", z->name);
			put(buf, "%s/name", dir);
		}
		if (z->uj != NONE)
			put_u64(z->uj, "%s/energy_uj", dir);
		if (z->range != NONE)
			put_u64(z->range, "%s/max_energy_range_uj", dir);
	}
}

static void put_cpu(struct tree *t, int cpu, int pkg)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d\n", pkg);
	put(buf, "%s/cpu%d/topology/physical_package_id", t->cpu, cpu);
}

/* CPUs 0 .. n - 1, in their packages */
static void put_cpus(struct tree *t, const int *pkg, int n)
{
	for (int cpu = 0; cpu < n; cpu++)
		put_cpu(t, cpu, pkg[cpu]);
}

#define RANGE 1000000ULL	/* 1 J, so tests wrap easily */
#define REAL_RANGE 262143328850ULL	/* an Intel package's */

/* The trees of the tests that open sources: CPUs 0 .. ncpus - 1 in their
 * packages, powercap zones. */
enum fake_id { LOOK_ALIKES, TWO_PACKAGES, RESETS, NAMES, NO_ZONES };

static const struct fake {
	int ncpus, cpu_pkg[4];
	struct zone zone[10];
} fakes[] = {
	/* look-alikes of package zones that must not count */
	[LOOK_ALIKES] = { 1, { 0 }, {
		{ "", "package-0", 5, 100 },	/* the root's own files */
		{ "intel-rapl", "package-0", NONE, NONE },
		{ "intel-rapl-mmio:0", "package-0", 5, 100 },
		{ "intel-rapl:x", "package-0", 5, 100 },
		{ "intel-rapl:", "package-0", 5, 100 },
		{ "intel-rapl:0", "dram", 5, 100 },
	} },
	/*
	 * cpu0,1 -> package 0; cpu2,3 -> package 1; cpu4 offline.
	 * intel-rapl:0  package-0, sub-zones core, uncore, dram
	 * intel-rapl:1  package-1, sub-zones core, dram (no energy_uj), "gpu"
	 *               (unknown)
	 * intel-rapl:2  psys
	 */
	[TWO_PACKAGES] = { 4, { 0, 0, 1, 1 }, {
		{ "intel-rapl:0", "package-0", 100000, RANGE },
		{ "intel-rapl:0/intel-rapl:0:0", "core", 1000, RANGE },
		{ "intel-rapl:0/intel-rapl:0:1", "uncore", 2000, RANGE },
		{ "intel-rapl:0/intel-rapl:0:2", "dram", 3000, RANGE },
		{ "intel-rapl:1", "package-1", 500000, RANGE },
		{ "intel-rapl:1/intel-rapl:1:0", "core", 0, RANGE },
		{ "intel-rapl:1/intel-rapl:1:1", "dram", NONE, NONE },
		{ "intel-rapl:1/intel-rapl:1:2", "gpu", 0, RANGE },
		{ "intel-rapl:2", "psys", 0, RANGE },
		/* the MMIO copy of package 0 must not be added to it */
		{ "intel-rapl-mmio:0", "package-0", 0, RANGE },
	} },
	/* cpu0 -> package 0 (a real counter range), cpu1 -> package 1 (40 J) */
	[RESETS] = { 2, { 0, 1 }, {
		{ "intel-rapl:0", "package-0", 30000000, REAL_RANGE },
		{ "intel-rapl:1", "package-1", 39900000, 40000000 },
		{ "intel-rapl:2", "psys", 1000000, REAL_RANGE },
	} },
	/* zones named as packages, dies of one, and zones left out */
	[NAMES] = { 2, { 0, 1 }, {
		{ "intel-rapl:0", "package-1-die-0", 0, RANGE },
		{ "intel-rapl:1", "package-1-die-1", 0, RANGE },
		{ "intel-rapl:2", "package-0", 0, RANGE },
		{ "intel-rapl:3", "package-2", 0, RANGE },
		/* no energy_uj: left out */
		{ "intel-rapl:4", "package-3", NONE, NONE },
		/* unknown: left out */
		{ "intel-rapl:5", "package-x", 0, RANGE },
		/* no name: left out */
		{ "intel-rapl:6", NULL, 0, NONE },
		/* no range: wraps are errors */
		{ "intel-rapl:7", "package-4", 500, NONE },
	} },
	[NO_ZONES] = { 4, { 0, 0, 1, 1 } },
};

static void fake__put(struct tree *t, enum fake_id id)
{
	const struct fake *f = &fakes[id];

	put_cpus(t, f->cpu_pkg, f->ncpus);
	put_zones(t, f->zone, ARRAY_SIZE(f->zone));
}

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	snprintf(t->root, sizeof(t->root), "/tmp/test_energy.XXXXXX");
	if (!t || !mkdtemp(t->root))
		return -1;
	pathf(t->pc, "%s/powercap", t->root);
	pathf(t->cpu, "%s/cpu", t->root);
	pathf(t->perf, "%s/power", t->root);
	mkdir(t->pc, 0755);
	*state = t;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;
	char cmd[PATH_MAX + 16];
	int ret;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	ret = system(cmd);
	free(t);
	return ret ? -1 : 0;
}

static struct energy_source *open_tree(struct tree *t, const char *spec,
				       int ncpus, int *errp, char *err,
				       size_t errlen)
{
	struct energy_opts o = {
		.spec = spec,
		.powercap_root = t->pc,
		.cpu_root = t->cpu,
		.perf_pmu_root = t->perf,
		.ncpus = ncpus,
	};

	return energy_source__open_opts(&o, errp, err, errlen);
}

/* The source of spec on the fake tree, which must open. */
static struct energy_source *open_ok(struct tree *t, const char *spec,
				     int ncpus)
{
	struct energy_source *src;
	char err[256];
	int e;

	src = open_tree(t, spec, ncpus, &e, err, sizeof(err));
	if (!src)
		fail_msg("open: %d %s", e, err);
	return src;
}

/* --- pure arithmetic ------------------------------------------------------ */

static void test_parse_u64(void **state)
{
	static const struct {
		const char *in;
		int ret;
		__u64 v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "123\n", 0, 123 },
		{ "262143328850\n", 0, 262143328850ULL },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "12x", -EINVAL, 0 },
		{ "12\n\n", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u64 v = 777;
		int ret = rapl__parse_u64(cases[i].in, &v);

		assert_int_equal(ret, cases[i].ret);
		if (!ret)
			assert_true(v == cases[i].v);
		else
			assert_true(v == 777);
	}
}

static void test_delta_uj(void **state)
{
	static const struct {
		const char *what;
		__u64 prev, cur, range;
		int ret;
		__u64 delta;
	} cases[] = {
		{ "no wrap", 1000, 5000, 1000000, 0, 4000 },
		{ "equal", 4242, 4242, 1000000, 0, 0 },
		{ "up to range", 999000, 1000000, 1000000, 0, 1000 },
		{ "from range to 0", 1000000, 0, 1000000, 0, 1 },
		{ "range to range", 1000000, 1000000, 1000000, 0, 0 },
		{ "across", 999990, 9, 1000000, 0, 20 },
		{ "across, from 0 side", 1, 0, 1000000, 0, 1000000 },
		{ "real range", 262143328000ULL, 150, 262143328850ULL, 0, 1001 },
		{ "u64 range", UINT64_MAX - 1, 3, UINT64_MAX - 1, 0, 4 },
		{ "no range, no wrap", 10, 20, 0, 0, 10 },
		{ "no range, backwards", 20, 10, 0, -ERANGE, 0 },
		{ "cur above range", 10, 1000001, 1000000, -ERANGE, 0 },
		{ "prev above range", 1000001, 10, 1000000, -ERANGE, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u64 d = 777;
		int ret = rapl__delta_uj(cases[i].prev, cases[i].cur,
					 cases[i].range, &d);

		if (ret != cases[i].ret || (!ret && d != cases[i].delta))
			fail_msg("%s: ret %d delta %llu", cases[i].what, ret,
				 (unsigned long long)d);
	}
}

/* Over many reads, wraps neither lose nor invent: the deltas add up to
 * the energy the counter was advanced by. */
static void test_delta_uj_sum_over_wraps(void **state)
{
	const __u64 range = 999999;
	__u64 total = 0, sum = 0, prev = 123456, cur, d;
	int i;

	(void)state;
	cur = prev;
	for (i = 0; i < 1000; i++) {
		__u64 step = (i * 7919) % 600000;

		total += step;
		cur = (cur + step) % (range + 1);
		assert_int_equal(rapl__delta_uj(prev, cur, range, &d), 0);
		sum += d;
		prev = cur;
	}
	assert_true(sum == total);
}

/* What a counter step can be: half a lap at most, ENERGY_MAX_WATTS. */
static void test_step_check(void **state)
{
	static const double real = 262143.32885;	/* an Intel package's range, J */
	static const double ceil1 = ENERGY_MAX_WATTS * (1 + ENERGY_STEP_SLACK_S);
	static const struct {
		const char *what;
		double j, range_j, dt;
		int ret;
	} cases[] = {
		{ "20 W for 250 ms", 5, real, 0.25, 0 },
		{ "nothing", 0, 40, 0.25, 0 },
		{ "a wrap within half a lap", 5.000001, 40, 0.25, 0 },
		{ "half a lap", 20, 40, 1, 0 },
		{ "past half a lap", 20.000001, 40, 1, -ERANGE },
		{ "a reset taken for a wrap", real - 36.574 + 0.001, real, 0.25, -ERANGE },
		{ "a reset on the 40 J fake", 40 - 30 + 0.001, 40, 0.25, 0 },
		{ "... past its half lap", 40 - 15 + 0.001, 40, 0.25, -ERANGE },
		{ "no range: the ceiling only", 1000, 0, 1, 0 },
		{ "at the ceiling", ceil1, 0, 1, 0 },
		{ "above the ceiling", ceil1 * 1.000001, 0, 1, -ERANGE },
		{ "above it, within half a lap", 2000, real, 0.25, -ERANGE },
		{ "a 0.1 ms interval: the slack", 40, 0, 0.0001, 0 },
		{ "dt unknown: no ceiling", 1e6, 0, 0, 0 },
		{ "dt negative: no ceiling", 1e6, 0, -1, 0 },
		{ "dt unknown, half a lap still", 30, 40, 0, -ERANGE },
		{ "negative", -1e-9, 0, 1, -ERANGE },
		{ "not a number", NAN, 40, 1, -ERANGE },
		{ "infinite", INFINITY, 0, 0, -ERANGE },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = energy_step__check(cases[i].j, cases[i].range_j,
					     cases[i].dt);

		if (ret != cases[i].ret)
			fail_msg("%s: %g J, range %g J, %g s: ret %d", cases[i].what,
				 cases[i].j, cases[i].range_j, cases[i].dt, ret);
	}
}

static void test_perf_delta(void **state)
{
	static const double unit = 1.0 / (1 << 14);	/* 61 uJ: Intel's unit */
	static const struct {
		const char *what;
		__u64 prev, cur;
		double scale, dt;
		int ret;
		double j;
	} cases[] = {
		{ "20 W for 250 ms", 1000, 1000 + 5 * 16384, unit, 0.25, 0, 5 },
		{ "nothing", 42, 42, unit, 0.25, 0, 0 },
		{ "near the u64 end", UINT64_MAX - 16384, UINT64_MAX, unit, 1, 0, 1 },
		{ "went back", 5000, 4999, unit, 1, -ERANGE, 0 },
		/* the MSR reset, which the kernel counts as a 32-bit wrap */
		{ "an MSR reset", 1000, 1000 + (1ULL << 32), unit, 1, -ERANGE, 0 },
		{ "dt unknown: no ceiling", 0, 1ULL << 32, unit, 0, 0, 262144 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		double j = 777;
		int ret = perf_power__delta_j(cases[i].prev, cases[i].cur,
					      cases[i].scale, cases[i].dt, &j);

		if (ret != cases[i].ret ||
		    fabs(j - (ret ? 777 : cases[i].j)) > J_EPS)
			fail_msg("%s: ret %d, %.9f J", cases[i].what, ret, j);
	}
}

static void test_model_joules(void **state)
{
	static const struct {
		double idle, max, busy_ns;
		int ncpus;
		double dt, joules;
	} cases[] = {
		{ 10, 110, 0, 4, 1, 10 },		/* idle */
		{ 10, 110, 4e9, 4, 1, 110 },		/* all busy */
		{ 10, 110, 2e9, 4, 1, 60 },		/* half */
		{ 10, 110, 1e9, 4, 2, 2 * 22.5 },	/* 1/8 over 2 s */
		{ 10, 110, 9e9, 4, 1, 110 },		/* clamped */
		{ 10, 110, 6e9, 4, 1, 110 },		/* clamped */
		{ 10, 110, -5, 4, 1, 10 },		/* clamped */
		{ 10, 110, NAN, 4, 1, 10 },
		{ 0, 100, 5e8, 1, 0.5, 50 },
		{ 10, 110, 1e9, 0, 1, 0 },		/* no CPU */
		{ 10, 110, 1e9, 4, 0, 0 },		/* no time */
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		double j = energy_model__joules(cases[i].idle, cases[i].max,
						cases[i].busy_ns, cases[i].ncpus,
						cases[i].dt);

		if (fabs(j - cases[i].joules) > J_EPS)
			fail_msg("case %zu: %g J, want %g", i, j, cases[i].joules);
	}
}

static void test_model_parse(void **state)
{
	static const struct {
		const char *in;
		int ret;
		double idle, max;
	} cases[] = {
		{ "40:180", 0, 40, 180 },
		{ "0:95.5", 0, 0, 95.5 },
		{ "50:50", 0, 50, 50 },
		{ "180:40", -EINVAL, 0, 0 },
		{ "0:0", -EINVAL, 0, 0 },
		{ "-1:10", -EINVAL, 0, 0 },
		{ "1:-10", -EINVAL, 0, 0 },
		{ "10", -EINVAL, 0, 0 },
		{ "10:", -EINVAL, 0, 0 },
		{ ":10", -EINVAL, 0, 0 },
		{ "10:20:30", -EINVAL, 0, 0 },
		{ "a:b", -EINVAL, 0, 0 },
		{ "10W:20W", -EINVAL, 0, 0 },
		{ "inf:inf", -EINVAL, 0, 0 },
		{ "nan:10", -EINVAL, 0, 0 },
		{ " 1:10", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		double idle = -1, max = -1;
		int ret = energy_model__parse(cases[i].in, &idle, &max);

		if (ret != cases[i].ret)
			fail_msg("'%s': %d", cases[i].in, ret);
		if (!ret && (idle != cases[i].idle || max != cases[i].max))
			fail_msg("'%s': %g:%g", cases[i].in, idle, max);
	}
}

static void test_perf_parse(void **state)
{
	static const struct {
		const char *in;
		int ret;
		__u64 config;
	} cfg[] = {
		{ "event=0x02\n", 0, 2 },
		{ "event=0x01", 0, 1 },
		{ "event=0xff\n", 0, 0xff },
		{ "event=0x100", -EINVAL, 0 },
		{ "event=2", -EINVAL, 0 },
		{ "event=0x02,umask=0x1", -EINVAL, 0 },
		{ "config=0x02", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};
	static const struct {
		const char *in;
		int ret;
		int cpus[6];
	} cpus[] = {
		{ "0\n", 1, { 0 } },
		{ "0,28\n", 2, { 0, 28 } },
		{ "0-3,8", 5, { 0, 1, 2, 3, 8 } },
		{ "3-1", -EINVAL, { 0 } },
		{ "", -EINVAL, { 0 } },
		{ "0,", -EINVAL, { 0 } },
		{ "a", -EINVAL, { 0 } },
		{ "0-7", -E2BIG, { 0 } },
	};
	size_t i;
	int got[6], n, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cfg); i++) {
		__u64 c = 777;

		n = perf_power__parse_config(cfg[i].in, &c);
		if (n != cfg[i].ret || (!n && c != cfg[i].config))
			fail_msg("config '%s': %d", cfg[i].in, n);
	}
	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		n = perf_power__parse_cpus(cpus[i].in, got, 6);
		if (n != cpus[i].ret)
			fail_msg("cpus '%s': %d", cpus[i].in, n);
		for (k = 0; k < n; k++)
			assert_int_equal(got[k], cpus[i].cpus[k]);
	}
}

/* --- topology ------------------------------------------------------------- */

static void test_topology(void **state)
{
	struct tree *t = *state;
	struct cpu_topology topo;
	char err[256];

	/* sparse ids, an offline CPU (no topology dir), one garbage */
	put_cpu(t, 0, 3);
	put_cpu(t, 1, 0);
	put_cpu(t, 2, 3);
	mkdir_p(t->cpu);
	put("x\n", "%s/cpu4/topology/physical_package_id", t->cpu);
	put_cpu(t, 5, 0);
	assert_int_equal(cpu_topology__load(&topo, t->cpu, 7, err, sizeof(err)), 0);
	assert_int_equal(topo.nr_packages, 2);
	assert_int_equal(topo.pkg_id[0], 0);
	assert_int_equal(topo.pkg_id[1], 3);
	assert_int_equal(topo.pkg_of_cpu[0], 1);
	assert_int_equal(topo.pkg_of_cpu[1], 0);
	assert_int_equal(topo.pkg_of_cpu[2], 1);
	assert_int_equal(topo.pkg_of_cpu[3], -1);
	assert_int_equal(topo.pkg_of_cpu[4], -1);
	assert_int_equal(topo.pkg_of_cpu[5], 0);
	assert_int_equal(topo.pkg_of_cpu[6], -1);
	assert_int_equal(topo.nr_cpus[0], 2);
	assert_int_equal(topo.nr_cpus[1], 2);
	/* a package with no CPU goes in order, shifting those above it */
	assert_int_equal(cpu_topology__add_package(&topo, 1), 1);
	assert_int_equal(cpu_topology__add_package(&topo, 1), 1);
	assert_int_equal(topo.nr_packages, 3);
	assert_int_equal(topo.pkg_of_cpu[0], 2);
	assert_int_equal(topo.nr_cpus[1], 0);
	assert_int_equal(topo.nr_cpus[2], 2);
	assert_int_equal(cpu_topology__index(&topo, 7), -ENOENT);
	cpu_topology__free(&topo);

	assert_int_equal(cpu_topology__load(&topo, "/nonexistent", 4, err,
					    sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent"));
}

/* --- choosing a source ---------------------------------------------------- */

static void test_spec_errors(void **state)
{
	static const char *const bad[] = {
		"x", "model", "model:", "model:1", "model:a:b", "model:50:10",
		"model:-1:10", "model:1:2:3", "powercapx", "Powercap", "",
		"auto ", "perf:", "none:",
	};
	struct tree *t = *state;
	char err[256], want[64];
	size_t i;
	int e;

	put_cpu(t, 0, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		e = 1;
		assert_null(open_tree(t, bad[i], 1, &e, err, sizeof(err)));
		if (e != -EINVAL)
			fail_msg("'%s': %d", bad[i], e);
		snprintf(want, sizeof(want), "bad --energy value '%s'", bad[i]);
		if (strncmp(err, want, strlen(want)))
			fail_msg("'%s': '%s'", bad[i], err);
	}
	e = 1;
	strcpy(err, "junk");
	assert_null(open_tree(t, "none", 1, &e, err, sizeof(err)));
	assert_int_equal(e, 0);
	assert_string_equal(err, "");
}

static void test_missing_sources(void **state)
{
	static const struct zone package = { "intel-rapl:1", "package-0", 5, 100 };
	struct tree *t = *state;
	char err[512];
	int e;

	fake__put(t, LOOK_ALIKES);

	e = 1;
	assert_null(open_tree(t, "powercap", 1, &e, err, sizeof(err)));
	assert_int_equal(e, -ENOENT);
	assert_true(!strncmp(err, "no RAPL powercap zones under ", 29));
	assert_non_null(strstr(err, t->pc));

	e = 1;
	assert_null(open_tree(t, "perf", 1, &e, err, sizeof(err)));
	assert_int_equal(e, -ENOENT);
	assert_non_null(strstr(err, "no perf power PMU at"));

	/* auto: no error, a reason naming both */
	e = 1;
	assert_null(open_tree(t, "auto", 1, &e, err, sizeof(err)));
	assert_int_equal(e, 0);
	assert_true(!strncmp(err, "no energy source: powercap: no RAPL", 35));
	assert_non_null(strstr(err, "; perf: no perf power PMU"));
	assert_null(strchr(err, '\n'));
	e = 1;
	assert_null(open_tree(t, NULL, 1, &e, err, sizeof(err)));
	assert_int_equal(e, 0);
	assert_true(!strncmp(err, "no energy source:", 17));

	/* explicit sources need the CPU topology too */
	put_zones(t, &package, 1);
	pathf(t->cpu, "%s/nonexistent", t->root);
	e = 1;
	assert_null(open_tree(t, "powercap", 1, &e, err, sizeof(err)));
	assert_int_equal(e, -ENOENT);
	assert_non_null(strstr(err, "no CPU topology"));
}

/* --- powercap ------------------------------------------------------------- */

/* A file of a zone written before a read: its energy_uj, or garbage. */
struct zone_write {
	const char *zone;	/* under the powercap root; NULL: no more */
	unsigned long long uj;
	const char *text;	/* written instead of uj */
	bool remove;		/* energy_uj removed instead */
};

/* One check of a read's sample; pkg is a package's index. */
enum sample_check {
	END,
	BASELINE,	/* s.baseline == v */
	PACKAGES,	/* s.nr_packages == v */
	VALID,		/* the package's valid == v */
	JOULES,		/* its joules, within J_EPS */
	HAS_PSYS,	/* s.has_psys == v */
	PSYS_VALID,	/* s.psys_valid == v */
	PSYS_J,		/* s.psys_j, within J_EPS */
	DOM_MASK,	/* the package's dom_mask == v */
	DOM_VALID,	/* its dom_valid == v */
	DOM_J,		/* its dom_j[dom], within J_EPS */
	DOM_LOST,	/* dom not in its dom_valid */
	DOM_KEPT,	/* dom in its dom_valid */
	WARNS,		/* text in s.warning */
	NOT_WARNS,	/* text not in it */
	QUIET,		/* no warning */
};

struct sample_want {
	enum sample_check check;
	int pkg;
	double v;
	const char *text;
	int dom;
};

/* A read of the source: the files written before it, its interval, what
 * its sample must hold. */
struct read_step {
	const char *what;
	struct zone_write set[5];
	double dt;
	struct sample_want want[16];
};

static void sample__check(const struct energy_sample *s,
			  const struct sample_want *w, size_t n)
{
	for (; n-- && w->check != END; w++) {
		const struct energy_pkg_sample *p = &s->pkg[w->pkg];

		switch (w->check) {
		case END:
			break;
		case BASELINE:
			assert_int_equal(s->baseline, w->v);
			break;
		case PACKAGES:
			assert_int_equal(s->nr_packages, w->v);
			break;
		case VALID:
			assert_int_equal(p->valid, w->v);
			break;
		case JOULES:
			assert_float_equal(p->joules, w->v, J_EPS);
			break;
		case HAS_PSYS:
			assert_int_equal(s->has_psys, w->v);
			break;
		case PSYS_VALID:
			assert_int_equal(s->psys_valid, w->v);
			break;
		case PSYS_J:
			assert_float_equal(s->psys_j, w->v, J_EPS);
			break;
		case DOM_MASK:
			assert_int_equal(p->dom_mask, w->v);
			break;
		case DOM_VALID:
			assert_int_equal(p->dom_valid, w->v);
			break;
		case DOM_J:
			assert_float_equal(p->dom_j[w->dom], w->v, J_EPS);
			break;
		case DOM_LOST:
			assert_int_equal(p->dom_valid & (1 << w->dom), 0);
			break;
		case DOM_KEPT:
			assert_true(p->dom_valid & (1 << w->dom));
			break;
		case WARNS:
			assert_non_null(strstr(s->warning, w->text));
			break;
		case NOT_WARNS:
			assert_null(strstr(s->warning, w->text));
			break;
		case QUIET:
			assert_string_equal(s->warning, "");
			break;
		}
	}
}

/* Each step's writes, a read, its checks; the steps' names printed. */
static void read_steps(struct tree *t, struct energy_source *src,
		       const struct read_step *step, size_t n)
{
	struct energy_sample s;
	char path[PATH_MAX];

	for (; n--; step++) {
		const struct zone_write *w = step->set;

		print_message("%s\n", step->what);
		for (; w < step->set + ARRAY_SIZE(step->set) && w->zone; w++) {
			pathf(path, "%s/%s/energy_uj", t->pc, w->zone);
			if (w->remove)
				assert_int_equal(unlink(path), 0);
			else if (w->text)
				put(w->text, "%s", path);
			else
				put_u64(w->uj, "%s", path);
		}
		assert_int_equal(energy_source__read(src, step->dt, NULL, &s), 0);
		sample__check(&s, step->want, ARRAY_SIZE(step->want));
	}
}

#define ALL_DOMS (1 << ENERGY_DOM_CORE | 1 << ENERGY_DOM_UNCORE | \
		  1 << ENERGY_DOM_DRAM)

static void test_powercap_tree(void **state)
{
	static const struct read_step steps[] = {
		{ "baseline: nothing valid; the zone left out is reported once",
		  .dt = 0, .want = {
			{ BASELINE, .v = true },
			{ PACKAGES, .v = 2 },
			{ VALID, 0, false },
			{ VALID, 1, false },
			{ HAS_PSYS, .v = true },
			{ PSYS_VALID, .v = false },
			{ WARNS, .text = "intel-rapl:1:1/energy_uj" },
		} },
		{ "plain interval", .set = {
			{ "intel-rapl:0", 600000 },	/* +0.5 J */
			{ "intel-rapl:0/intel-rapl:0:0", 251000 },
			{ "intel-rapl:1", 750000 },
			{ "intel-rapl:2", RANGE / 2 },	/* +0.5 J: half a lap */
		  }, .dt = 1, .want = {
			{ BASELINE, .v = false },
			{ QUIET },
			{ VALID, 0, true },
			{ VALID, 1, true },
			{ JOULES, 0, 0.5 },
			{ JOULES, 1, 0.25 },
			{ DOM_MASK, 0, ALL_DOMS },
			{ DOM_VALID, 0, ALL_DOMS },
			{ DOM_J, 0, 0.25, .dom = ENERGY_DOM_CORE },
			{ DOM_J, 0, 0, .dom = ENERGY_DOM_DRAM },
			{ DOM_MASK, 1, 1 << ENERGY_DOM_CORE },
			{ PSYS_VALID, .v = true },
			{ PSYS_J, .v = 0.5 },
		} },
		{ "across the wrap: 600000 -> RANGE -> 0 -> 99999 is 0.5 J",
		  .set = { { "intel-rapl:0", 99999 } }, .dt = 1, .want = {
			{ JOULES, 0, 0.5 },
			{ JOULES, 1, 0 },
			{ VALID, 1, true },
		} },
		{ "garbage in package 1: invalid and said once; package 0 goes on",
		  .set = {
			{ "intel-rapl:1", .text = "12ab\n" },
			{ "intel-rapl:0", 199999 },
		  }, .dt = 1, .want = {
			{ VALID, 0, true },
			{ JOULES, 0, 0.1 },
			{ VALID, 1, false },
			{ JOULES, 1, 0 },
			{ WARNS, .text = "intel-rapl:1/energy_uj: not a number" },
		} },
		{ "... said once", .dt = 1, .want = {
			{ VALID, 1, false },
			{ QUIET },
		} },
		{ "back: the first good value is a new baseline, not a jump",
		  .set = { { "intel-rapl:1", 900000 } }, .dt = 1, .want = {
			{ VALID, 1, false },
		} },
		{ "... from which the next interval counts",
		  .set = { { "intel-rapl:1", 950000 } }, .dt = 1, .want = {
			{ VALID, 1, true },
			{ JOULES, 1, 0.05 },
		} },
		{ "a sub-zone vanishing: only its domain is lost", .set = {
			{ "intel-rapl:0", 599999 },
			{ "intel-rapl:0/intel-rapl:0:0", .remove = true },
		  }, .dt = 1, .want = {
			{ VALID, 0, true },
			{ JOULES, 0, 0.4 },
			{ DOM_LOST, 0, .dom = ENERGY_DOM_CORE },
			{ DOM_KEPT, 0, .dom = ENERGY_DOM_UNCORE },
			{ WARNS, .text = "intel-rapl:0:0/energy_uj" },
		} },
		{ "a value above max_energy_range_uj is garbage too",
		  .set = { { "intel-rapl:0", RANGE + 1 } }, .dt = 1, .want = {
			{ VALID, 0, false },
			{ VALID, 1, true },
			{ WARNS, .text = "intel-rapl:0/energy_uj: 1000001 after 599999" },
		} },
	};
	struct tree *t = *state;
	struct energy_source *src;
	char err[256];
	int e;

	fake__put(t, TWO_PACKAGES);
	src = open_tree(t, "powercap", 5, &e, err, sizeof(err));
	if (!src)
		fail_msg("open: %d %s", e, err);
	assert_int_equal(e, 0);
	assert_string_equal(energy_source__name(src), "powercap");
	assert_false(energy_source__is_estimated(src));
	assert_int_equal(energy_source__nr_packages(src), 2);
	assert_int_equal(energy_source__package_of_cpu(src, 1), 0);
	assert_int_equal(energy_source__package_of_cpu(src, 3), 1);
	assert_int_equal(energy_source__package_of_cpu(src, 4), -1);
	assert_int_equal(energy_source__package_of_cpu(src, 5), -1);
	assert_int_equal(energy_source__package_of_cpu(src, -1), -1);
	assert_int_equal(energy_source__package_id(src, 1), 1);
	assert_int_equal(energy_source__nr_cpus_of_package(src, 0), 2);
	read_steps(t, src, steps, ARRAY_SIZE(steps));
	energy_source__close(src);
}

/*
 * A reset is not a wrap: energy_uj dropping to a small value gives no
 * energy that interval, one warning naming the file for the whole run, and
 * the next interval counts from the new value. A wrap within half a lap
 * still counts (fake-rapl's 40 J lap at 20 W, read every 250 ms); one past
 * it cannot be told from a reset; a jump no zone can draw is refused.
 * cpu0 -> package 0 (a real counter range), cpu1 -> package 1 (40 J).
 */
static void test_powercap_reset(void **state)
{
	static const struct read_step steps[] = {
		{ "baseline", .dt = 0, .want = { { QUIET } } },
		{ "20 W for 250 ms; package 1 wraps: 39.9 J -> 40 J -> 0 -> 4.9 J",
		  .set = {
			{ "intel-rapl:0", 35000000 },
			{ "intel-rapl:1", 4900000 },
			{ "intel-rapl:2", 6000000 },
		  }, .dt = 0.25, .want = {
			{ QUIET },
			{ VALID, 0, true },
			{ JOULES, 0, 5 },
			{ VALID, 1, true },
			{ JOULES, 1, 5.000001 },
			{ PSYS_VALID, .v = true },
		} },
		{ "package 0 reset: no energy, not a lap's worth; package 1 goes on",
		  .set = {
			{ "intel-rapl:0", 1000 },
			{ "intel-rapl:1", 9900000 },
			{ "intel-rapl:2", 11000000 },
		  }, .dt = 0.25, .want = {
			{ VALID, 0, false },
			{ JOULES, 0, 0 },
			{ VALID, 1, true },
			{ JOULES, 1, 5 },
			{ WARNS, .text = "/intel-rapl:0/energy_uj: 1000 after 35000000 (range 262143328850): a counter reset, not a wrap" },
			{ WARNS, .text = "no package energy this interval" },
			{ NOT_WARNS, .text = "intel-rapl:1" },
			{ NOT_WARNS, .text = "\n" },
		} },
		{ "re-baselined at 1000 uJ: the next interval is right",
		  .set = { { "intel-rapl:0", 5001000 } }, .dt = 0.25, .want = {
			{ QUIET },
			{ VALID, 0, true },
			{ JOULES, 0, 5 },
		} },
		{ "a second reset: no energy again, said once for the run",
		  .set = { { "intel-rapl:0", 0 } }, .dt = 0.25, .want = {
			{ VALID, 0, false },
			{ QUIET },
		} },
		{ "... and the next interval right again",
		  .set = { { "intel-rapl:0", 5000000 } }, .dt = 0.25, .want = {
			{ VALID, 0, true },
			{ JOULES, 0, 5 },
		} },
		{ "psys jumps 2 kJ in 250 ms (8 kW): within half its lap, refused",
		  .set = { { "intel-rapl:2", 11000000 + 2000000000ULL } },
		  .dt = 0.25, .want = {
			{ HAS_PSYS, .v = true },
			{ PSYS_VALID, .v = false },
			{ VALID, 0, true },
			{ WARNS, .text = "/intel-rapl:2/energy_uj: 2011000000 after 11000000" },
			{ WARNS, .text = "a jump, not energy (2000.0 J in 0.250 s): no psys energy" },
		} },
		{ "... and psys counts from the jump",
		  .set = { { "intel-rapl:2", 2016000000ULL } }, .dt = 0.25, .want = {
			{ PSYS_VALID, .v = true },
			{ PSYS_J, .v = 5 },
		} },
		/* 9.9 J -> 40 J -> 0 -> 0.5 J is 30.6 J, no more believable
		 * than a reset to 0.5 J */
		{ "package 1 wraps past half its lap",
		  .set = { { "intel-rapl:1", 500000 } }, .dt = 0.25, .want = {
			{ VALID, 1, false },
			{ WARNS, .text = "/intel-rapl:1/energy_uj: 500000 after 9900000 (range 40000000): a counter reset, not a wrap (30.6 J in 0.250 s)" },
		} },
		{ "... and package 1 counts from there",
		  .set = { { "intel-rapl:1", 5500000 } }, .dt = 0.25, .want = {
			{ VALID, 1, true },
			{ JOULES, 1, 5 },
		} },
	};
	struct tree *t = *state;
	struct energy_source *src;

	fake__put(t, RESETS);
	src = open_ok(t, "powercap", 2);
	read_steps(t, src, steps, ARRAY_SIZE(steps));
	energy_source__close(src);
}

/* Zones are packages by their name, not their number; dies add up; a
 * package with no CPU still gets its energy; auto picks powercap. */
static void test_powercap_names(void **state)
{
	static const struct read_step steps[] = {
		{ "the zones left out, said", .dt = 0, .want = {
			{ WARNS, .text = "intel-rapl:4/energy_uj" },
			{ WARNS, .text = "package-x" },
			{ WARNS, .text = "intel-rapl:6/name" },
			{ WARNS, .text = "intel-rapl:7/max_energy_range_uj" },
		} },
		{ "dies added up, a package with no CPU", .set = {
			{ "intel-rapl:0", 100 },
			{ "intel-rapl:1", 200 },
			{ "intel-rapl:2", 1000 },
			{ "intel-rapl:3", 4000 },
			{ "intel-rapl:7", 400 },	/* backwards, range unknown */
		  }, .dt = 1, .want = {
			{ PACKAGES, .v = 4 },
			{ JOULES, 0, 0.001 },
			{ JOULES, 1, 0.0003 },
			{ JOULES, 2, 0.004 },
			{ VALID, 2, true },
			{ VALID, 3, false },
			{ WARNS, .text = "400 after 500" },
		} },
	};
	struct tree *t = *state;
	struct energy_source *src;

	fake__put(t, NAMES);
	src = open_ok(t, "auto", 2);
	assert_string_equal(energy_source__name(src), "powercap");
	assert_int_equal(energy_source__nr_packages(src), 4);
	assert_int_equal(energy_source__package_id(src, 2), 2);
	assert_int_equal(energy_source__nr_cpus_of_package(src, 2), 0);
	assert_int_equal(energy_source__package_of_cpu(src, 1), 1);
	read_steps(t, src, steps, ARRAY_SIZE(steps));
	energy_source__close(src);
}

/* --- perf power PMU ------------------------------------------------------- */

static void make_perf_pmu(struct tree *t, const char *type, const char *event)
{
	put(type, "%s/type", t->perf);
	put("0\n", "%s/cpumask", t->perf);
	put(event, "%s/events/energy-pkg", t->perf);
	put("2.3283064365386962890625e-10\n", "%s/events/energy-pkg.scale", t->perf);
	put("Joules\n", "%s/events/energy-pkg.unit", t->perf);
}

static void test_perf_pmu_errors(void **state)
{
	static const struct {
		const char *type, *event;	/* make_perf_pmu's */
		const char *file, *content;	/* then written; NULL: removed */
		int ncpus;
		int e;				/* 0: any error */
		const char *err;
	} cases[] = {
		{ "nope\n", "event=0x02\n", NULL, NULL, 1, -EINVAL, "/power/type" },
		/* a PMU type no kernel has: the open itself fails, with the CPU */
		{ "4242\n", "event=0x02\n", NULL, NULL, 1, 0, "perf power PMU on CPU 0" },
		{ "4242\n", "event=0x02,foo=1\n", NULL, NULL, 1, -EINVAL,
		  "energy-pkg: unexpected 'event=0x02,foo=1'" },
		{ "4242\n", "event=0x02\n", "events/energy-pkg.unit", "Watts\n", 1,
		  -EINVAL, "expected Joules" },
		{ "4242\n", "event=0x02\n", "events/energy-pkg.scale", "0\n", 1,
		  -EINVAL, "not a positive number" },
		/* the cpumask names a CPU the topology does not know */
		{ "4242\n", "event=0x02\n", "cpumask", "0,1\n", 2, -ENOENT,
		  "CPU 1 has no package" },
		{ "4242\n", "event=0x02\n", "events/energy-pkg", NULL, 1, -ENOENT,
		  "energy-pkg: no such event" },
	};
	struct tree *t = *state;
	char err[256], path[PATH_MAX];
	int e;

	put_cpu(t, 0, 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		make_perf_pmu(t, cases[i].type, cases[i].event);
		if (cases[i].content)
			put(cases[i].content, "%s/%s", t->perf, cases[i].file);
		else if (cases[i].file)
			unlink(pathf(path, "%s/%s", t->perf, cases[i].file));
		assert_null(open_tree(t, "perf", cases[i].ncpus, &e, err,
				      sizeof(err)));
		if (cases[i].e ? e != cases[i].e : e >= 0)
			fail_msg("case %zu: %d, want %d", i, e, cases[i].e);
		if (!strstr(err, cases[i].err))
			fail_msg("case %zu: '%s', want '%s'", i, err, cases[i].err);
	}
}

/* --- model ---------------------------------------------------------------- */

static void test_model_source(void **state)
{
	struct tree *t = *state;
	struct energy_source *src;
	struct energy_sample s;
	double busy[2] = { 1e9, 0 };
	char err[256];
	int e;

	fake__put(t, NO_ZONES);
	src = open_ok(t, "model:10:110", 4);
	assert_string_equal(energy_source__name(src), "model");
	assert_true(energy_source__is_estimated(src));
	assert_int_equal(energy_source__nr_packages(src), 2);

	assert_int_equal(energy_source__read(src, 0, busy, &s), 0);
	assert_true(s.baseline);
	assert_false(s.pkg[0].valid);

	/* package 0: 1 of 2 CPUs busy for 1 s -> 60 J; package 1 idle */
	assert_int_equal(energy_source__read(src, 1.0, busy, &s), 0);
	assert_true(s.pkg[0].valid);
	assert_true(s.pkg[1].valid);
	assert_float_equal(s.pkg[0].joules, 60, J_EPS);
	assert_float_equal(s.pkg[1].joules, 10, J_EPS);
	assert_int_equal(s.pkg[0].dom_mask, 0);
	assert_false(s.has_psys);

	/* the model cannot guess the busy time */
	assert_int_equal(energy_source__read(src, 1.0, NULL, &s), -EINVAL);
	energy_source__close(src);

	/* auto never falls back to the model */
	assert_null(open_tree(t, "auto", 4, &e, err, sizeof(err)));
	assert_int_equal(e, 0);
}

/* --- the split ------------------------------------------------------------ */

/* keys: 0 idle task, 1 A, 2 B, 3 static row; packages 0, 1 */
#define NK 4
#define NP 2

static double split_sum(const double *v, int n)
{
	double s = 0;

	while (n--)
		s += v[n];
	return s;
}

/* Two reads that end one interval: the second scaled, validity ANDed. */
static void test_sample_add(void **state)
{
	struct energy_sample a = { .nr_packages = 2 }, b = { .nr_packages = 2 };

	(void)state;
	a.pkg[0] = (struct energy_pkg_sample){ .valid = true, .joules = 10,
		.dom_mask = 1u << ENERGY_DOM_CORE, .dom_valid = 1u << ENERGY_DOM_CORE,
		.dom_j = { [ENERGY_DOM_CORE] = 4 } };
	a.pkg[1] = (struct energy_pkg_sample){ .valid = true, .joules = 7 };
	b.pkg[0] = (struct energy_pkg_sample){ .valid = true, .joules = 2,
		.dom_mask = 1u << ENERGY_DOM_CORE, .dom_valid = 1u << ENERGY_DOM_CORE,
		.dom_j = { [ENERGY_DOM_CORE] = 1 } };
	b.pkg[1] = (struct energy_pkg_sample){ .valid = false, .joules = 0 };
	a.has_psys = b.has_psys = true;
	a.psys_valid = b.psys_valid = true;
	a.psys_j = 20;
	b.psys_j = 4;
	strcpy(b.warning, "zone x: a reset");

	energy_sample__add(&a, &b, 0.25);
	assert_true(a.pkg[0].valid);
	assert_true(fabs(a.pkg[0].joules - 10.5) < 1e-12);
	assert_int_equal(a.pkg[0].dom_valid, 1u << ENERGY_DOM_CORE);
	assert_true(fabs(a.pkg[0].dom_j[ENERGY_DOM_CORE] - 4.25) < 1e-12);
	/* a part unknown: the whole unknown, never counted as 0 J */
	assert_false(a.pkg[1].valid);
	assert_true(a.psys_valid);
	assert_true(fabs(a.psys_j - 21) < 1e-12);
	assert_string_equal(a.warning, "zone x: a reset");
	assert_false(a.baseline);

	/* the rest of b, as the next interval's carry: adds up to all of b */
	struct energy_sample rest = { .nr_packages = 2 };

	rest.pkg[0].valid = rest.pkg[1].valid = rest.psys_valid = true;
	rest.pkg[0].dom_valid = 1u << ENERGY_DOM_CORE;
	b.warning[0] = '\0';
	energy_sample__add(&rest, &b, 0.75);
	assert_true(fabs(a.pkg[0].joules - 10 + rest.pkg[0].joules - b.pkg[0].joules) < 1e-12);
	assert_true(fabs(rest.pkg[0].joules - 1.5) < 1e-12);
	assert_string_equal(rest.warning, "");
}

static void test_split(void **state)
{
	static const struct {
		const char *what;
		double pkg_j[NP];
		bool valid[NP];
		double static_j;
		double m[NK * NP];
		double m_all[NP];
		bool sum_all;		/* m_all = NULL */
		double want[NK];
	} cases[] = {
		{ "two packages", { 100, 50 }, { true, true }, 0,
		  { 10, 0,  30, 25,  60, 25,  0, 0 }, { 100, 50 }, false, { 10, 55, 85, 0 } },
		{ "m_all from the keys", { 100, 50 }, { true, true }, 0,
		  { 10, 0,  30, 25,  60, 25,  0, 0 }, { 0, 0 }, true, { 10, 55, 85, 0 } },
		{ "nothing counted on package 1: idle key", { 100, 50 }, { true, true }, 0,
		  { 10, 0,  30, 0,  60, 0,  0, 0 }, { 100, 0 }, false, { 60, 30, 60, 0 } },
		{ "static power first", { 100, 10 }, { true, true }, 20,
		  { 0, 0,  25, 1,  75, 1,  0, 0 }, { 100, 2 }, false, { 0, 20, 60, 30 } },
		{ "static above the measured energy", { 5, 10 }, { true, true }, 20,
		  { 1, 1,  1, 1,  1, 1,  0, 0 }, { 3, 3 }, false, { 0, 0, 0, 15 } },
		{ "invalid package splits nothing", { 100, 50 }, { true, false }, 0,
		  { 10, 0,  30, 25,  60, 25,  0, 0 }, { 100, 50 }, false, { 10, 30, 60, 0 } },
		{ "keys a subset of m_all", { 100, 50 }, { true, true }, 0,
		  { 0, 0,  10, 0,  10, 5,  0, 0 }, { 100, 50 }, false, { 0, 10, 15, 0 } },
		{ "zero energy", { 0, 0 }, { true, true }, 0,
		  { 1, 1,  1, 1,  1, 1,  0, 0 }, { 3, 3 }, false, { 0, 0, 0, 0 } },
	};
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct energy_split sp = {
			.nr_keys = NK,
			.nr_packages = NP,
			.pkg_j = cases[i].pkg_j,
			.pkg_valid = cases[i].valid,
			.m = cases[i].m,
			.m_all = cases[i].sum_all ? NULL : cases[i].m_all,
			.idle_key = 0,
			.static_key = 3,
			.static_j = cases[i].static_j,
		};
		double out[NK];

		assert_int_equal(energy_split__compute(&sp, out), 0);
		for (k = 0; k < NK; k++)
			if (fabs(out[k] - cases[i].want[k]) > J_EPS)
				fail_msg("%s: key %d got %g want %g",
					 cases[i].what, k, out[k],
					 cases[i].want[k]);
	}
}

static void test_split_bad(void **state)
{
	static const double e[NP] = { 1, 1 }, m_all[NP] = { 1, 1 };
	static const double nan_e[NP] = { NAN, 1 }, neg[NP] = { -1, 1 };
	static const double m[NK * NP], m_inf[NK * NP] = { [3] = INFINITY },
		m_neg[NK * NP] = { [3] = -2 };
	static const struct {
		const char *what;
		/* keys, packages, pkg_j, pkg_valid, m, m_all, idle_key,
		 * static_key, static_j */
		struct energy_split sp;
		int ret;
	} cases[] = {
		{ "good", { NK, NP, e, NULL, m, m_all, 0, 0, 0 }, 0 },
		{ "no keys", { 0, NP, e, NULL, m, m_all, 0, 0, 0 }, -EINVAL },
		{ "no packages", { NK, 0, e, NULL, m, m_all, 0, 0, 0 }, -EINVAL },
		{ "idle key out of range", { NK, NP, e, NULL, m, m_all, NK, 0, 0 }, -EINVAL },
		{ "static key negative", { NK, NP, e, NULL, m, m_all, 0, -1, 0 }, -EINVAL },
		{ "static energy negative", { NK, NP, e, NULL, m, m_all, 0, 0, -1 }, -EINVAL },
		{ "energy not a number", { NK, NP, nan_e, NULL, m, m_all, 0, 0, 0 }, -EINVAL },
		{ "m_all negative", { NK, NP, e, NULL, m, neg, 0, 0, 0 }, -EINVAL },
		{ "no m", { NK, NP, e, NULL, NULL, m_all, 0, 0, 0 }, -EINVAL },
		{ "an infinite count", { NK, NP, e, NULL, m_inf, m_all, 0, 0, 0 }, -EINVAL },
		{ "a negative count", { NK, NP, e, NULL, m_neg, m_all, 0, 0, 0 }, -EINVAL },
	};
	double out[NK];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = energy_split__compute(&cases[i].sp, out);

		if (ret != cases[i].ret)
			fail_msg("%s: %d, want %d", cases[i].what, ret,
				 cases[i].ret);
	}
}

/* Keys that partition the work conserve the measured energy, whatever
 * the counts, with and without static power. */
static void test_split_conservation(void **state)
{
	enum { N = 50, P = 4 };
	double m[N * P], m_all[P], e[P], out[N];
	bool valid[P];
	unsigned int seed = 12345;
	int trial, k, p;

	(void)state;
	for (trial = 0; trial < 500; trial++) {
		struct energy_split sp = {
			.nr_keys = N, .nr_packages = P, .pkg_j = e,
			.pkg_valid = valid, .m = m, .m_all = m_all,
			.idle_key = 0, .static_key = 1,
			.static_j = (trial % 3) * 7.5,
		};
		double want = 0;

		for (p = 0; p < P; p++) {
			e[p] = (rand_r(&seed) % 100000) / 100.0;
			valid[p] = rand_r(&seed) % 5 != 0;
			m_all[p] = 0;
			for (k = 0; k < N; k++) {
				/* sparse, wide-ranging counts; some all zero */
				m[k * P + p] = rand_r(&seed) % 3 ? 0 :
					(double)rand_r(&seed) * (1 << (k % 20));
				if (trial % 7 == 0 && p == 2)
					m[k * P + p] = 0;
				m_all[p] += m[k * P + p];
			}
			if (valid[p])
				want += e[p];
		}
		assert_int_equal(energy_split__compute(&sp, out), 0);
		if (fabs(split_sum(out, N) - want) > 1e-9 * (want + 1))
			fail_msg("trial %d: %.12g J split of %.12g", trial,
				 split_sum(out, N), want);
		for (k = 0; k < N; k++)
			assert_true(out[k] >= 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_delta_uj),
		cmocka_unit_test(test_delta_uj_sum_over_wraps),
		cmocka_unit_test(test_step_check),
		cmocka_unit_test(test_perf_delta),
		cmocka_unit_test(test_model_joules),
		cmocka_unit_test(test_model_parse),
		cmocka_unit_test(test_perf_parse),
		cmocka_unit_test_setup_teardown(test_topology, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_spec_errors, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_missing_sources, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_powercap_tree, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_powercap_reset, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_powercap_names, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_perf_pmu_errors, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_model_source, tree_setup, tree_teardown),
		cmocka_unit_test(test_sample_add),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_bad),
		cmocka_unit_test(test_split_conservation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
