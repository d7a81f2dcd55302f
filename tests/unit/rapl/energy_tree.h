/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The energy tests' fake sysfs trees, made in a temporary directory:
 * powercap zones, CPUs in their packages, a perf power PMU; the trees of
 * the tests that open sources, and opening one on them.
 */
#ifndef EMON_TESTS_UNIT_ENERGY_TREE_H
#define EMON_TESTS_UNIT_ENERGY_TREE_H

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
static __maybe_unused char *pathf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static __maybe_unused char *pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && n < PATH_MAX);
	return buf;
}

static __maybe_unused void mkdir_p(const char *path)
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
static __maybe_unused void put(const char *content, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static __maybe_unused void put(const char *content, const char *fmt, ...)
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

static __maybe_unused void put_u64(unsigned long long v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static __maybe_unused void put_u64(unsigned long long v, const char *fmt, ...)
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
static __maybe_unused void put_zones(struct tree *t, const struct zone *z,
				     size_t n)
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

static __maybe_unused void put_cpu(struct tree *t, int cpu, int pkg)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d\n", pkg);
	put(buf, "%s/cpu%d/topology/physical_package_id", t->cpu, cpu);
}

/* CPUs 0 .. n - 1, in their packages */
static __maybe_unused void put_cpus(struct tree *t, const int *pkg, int n)
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

static __maybe_unused void fake__put(struct tree *t, enum fake_id id)
{
	const struct fake *f = &fakes[id];

	put_cpus(t, f->cpu_pkg, f->ncpus);
	put_zones(t, f->zone, ARRAY_SIZE(f->zone));
}

static __maybe_unused int tree_setup(void **state)
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

static __maybe_unused int tree_teardown(void **state)
{
	struct tree *t = *state;
	char cmd[PATH_MAX + 16];
	int ret;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	ret = system(cmd);
	free(t);
	return ret ? -1 : 0;
}

static __maybe_unused struct energy_source *open_tree(struct tree *t,
						      const char *spec,
						      int ncpus, int *errp,
						      char *err, size_t errlen)
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
static __maybe_unused struct energy_source *open_ok(struct tree *t,
						    const char *spec, int ncpus)
{
	struct energy_source *src;
	char err[256];
	int e;

	src = open_tree(t, spec, ncpus, &e, err, sizeof(err));
	if (!src)
		fail_msg("open: %d %s", e, err);
	return src;
}

#endif
