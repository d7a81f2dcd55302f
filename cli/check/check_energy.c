// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * check's energy reference, behind an ops table: a powercap tree read
 * file by file here (--powercap-root: the fake tree CI advances at a
 * known wattage), or the perf power PMU (the kernel's other way to the
 * same RAPL counters) while emon-perf reads powercap.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/check/check_energy.h"
#include "rapl/energy.h"
#include "rapl/files.h"

static double ref__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- a powercap tree, its package zones' energy_uj summed --- */

static int tree__zone(const struct dirent *d)
{
	int pkg, n = -1;

	/* intel-rapl:N, not a sub-zone intel-rapl:N:M */
	return sscanf(d->d_name, "intel-rapl:%d%n", &pkg, &n) == 1 &&
	       n == (int)strlen(d->d_name);
}

static int tree__open(struct energy_ref *r, const char *root, char *err,
		      size_t errlen)
{
	struct dirent **names = NULL;
	char path[PATH_MAX];
	int n, ret = 0;

	n = scandir(root, &names, tree__zone, alphasort);
	if (n <= 0) {
		snprintf(err, errlen, "no intel-rapl zones under %s", root);
		ret = -ENOENT;
	}
	for (int i = 0; i < n; i++) {
		if (!ret && r->nzones < ENERGY_REF_ZONES) {
			struct energy_ref_zone *z = &r->zone[r->nzones++];

			snprintf(z->dir, sizeof(z->dir), "%s/%s", root, names[i]->d_name);
			rapl__path(path, sizeof(path), "%s/max_energy_range_uj", z->dir);
			if (rapl__read_u64(path, &z->range))
				z->range = 0;
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

static int tree__read(struct energy_ref *r, double *joules)
{
	char path[PATH_MAX];
	__u64 uj, d;
	int ret;

	*joules = 0;
	for (int i = 0; i < r->nzones; i++) {
		struct energy_ref_zone *z = &r->zone[i];

		rapl__path(path, sizeof(path), "%s/energy_uj", z->dir);
		ret = rapl__read_u64(path, &uj);
		if (ret)
			return ret;
		if (z->seen && !rapl__delta_uj(z->last, uj, z->range, &d))
			*joules += d / 1e6;
		z->last = uj;
		z->seen = true;
	}
	return 0;
}

static const struct energy_ref_ops tree_ops = {
	.name = "the powercap tree's own energy_uj",
	.open = tree__open,
	.read = tree__read,
};

/* --- the perf power PMU, through the energy source that reads it --- */

static int pmu__open(struct energy_ref *r, const char *root, char *err,
		     size_t errlen)
{
	int ret = 0;

	(void)root;
	r->src = energy_source__open("perf", NULL, sysconf(_SC_NPROCESSORS_CONF),
				     &ret, err, errlen);
	return r->src ? 0 : ret ?: -ENOENT;
}

static int pmu__read(struct energy_ref *r, double *joules)
{
	struct energy_sample s;
	int ret = energy_source__read(r->src, 0, NULL, &s);

	*joules = 0;
	for (int p = 0; !ret && p < s.nr_packages; p++)
		*joules += s.pkg[p].valid ? s.pkg[p].joules : 0;
	return ret;
}

static void pmu__close(struct energy_ref *r)
{
	energy_source__close(r->src);
	r->src = NULL;
}

static const struct energy_ref_ops pmu_ops = {
	.name = "the perf power PMU's energy-pkg",
	.open = pmu__open,
	.read = pmu__read,
	.close = pmu__close,
};

int energy_ref__open(struct energy_ref *r, const char *tree_root, char *err,
		     size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->ops = tree_root ? &tree_ops : &pmu_ops;
	return r->ops->open(r, tree_root, err, errlen);
}

int energy_ref__mark(struct energy_ref *r)
{
	double j;
	int ret = r->ops->read(r, &j);

	if (ret)
		return ret;
	if (!r->marks++)
		r->t0 = ref__now();
	else
		r->joules += j;
	r->t1 = ref__now();
	return 0;
}

void energy_ref__close(struct energy_ref *r)
{
	if (r->ops && r->ops->close)
		r->ops->close(r);
	r->ops = NULL;
}
