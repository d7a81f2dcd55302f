// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PMUs read from sysfs (perf's tools/perf/util/pmus.c and pmu.c do the
 * same): a core PMU is "cpu", or one with a cpus file (x86 hybrid's
 * cpu_core and cpu_atom, every Arm PMU); a cpumask file marks one that
 * counts for a whole socket or die (uncore), which no per-task count can
 * use. The root is a parameter so that the unit tests can plan Alder
 * Lake, AMD and Arm machines from fixture trees.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "pmu/sysfs.h"

#define PMU_FILE_LEN 4096

/* The first line of root/dir/name into buf; 0 or -errno. */
static int sysfs__read(const char *dir, const char *name, char *buf,
		       size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = -EINVAL;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return ret;
}

static bool sysfs__exists(const char *dir, const char *name)
{
	char buf[8];

	return sysfs__read(dir, name, buf, sizeof(buf)) != -ENOENT;
}

int pmu_cpus__parse(struct pmu_cpus *set, const char *list)
{
	const char *p = list;
	char *end;
	long a, b;

	memset(set, 0, sizeof(*set));
	while (*p) {
		a = b = strtol(p, &end, 10);
		if (end == p)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p)
				return -EINVAL;
		}
		if (a < 0 || a > b || b >= PMU_MAX_CPUS ||
		    (*end && *end != ','))
			return -EINVAL;
		for (; a <= b; a++)
			set->bits[a / 64] |= 1ULL << (a % 64);
		p = *end ? end + 1 : end;
	}
	return 0;
}

bool pmu_cpus__has(const struct pmu_cpus *set, int cpu)
{
	return cpu >= 0 && cpu < PMU_MAX_CPUS &&
	       (set->bits[cpu / 64] >> (cpu % 64) & 1);
}

void pmu_cpus__format(const struct pmu_cpus *set, char *buf, size_t len)
{
	size_t n = 0;
	int a, b;

	buf[0] = '\0';
	for (a = 0; a < PMU_MAX_CPUS && n < len; a = b + 1) {
		if (!pmu_cpus__has(set, a)) {
			b = a;
			continue;
		}
		for (b = a; pmu_cpus__has(set, b + 1); b++)
			;
		n += snprintf(buf + n, len - n, "%s%d", n ? "," : "", a);
		if (b > a && n < len)
			n += snprintf(buf + n, len - n, "-%d", b);
	}
}

int pmu_format__parse(struct pmu_format *f, const char *spec)
{
	static const char *const words[] = { "config", "config1", "config2" };
	const char *colon = strchr(spec, ':'), *p;
	size_t n = colon ? (size_t)(colon - spec) : 0;
	char *end;
	long a, b;

	f->word = -1;
	f->mask = 0;
	for (int i = 0; i < 3; i++) {
		if (n == strlen(words[i]) && !strncmp(spec, words[i], n))
			f->word = i;
	}
	if (f->word < 0)
		return -EINVAL;
	for (p = colon + 1; *p; p = *end ? end + 1 : end) {
		a = b = strtol(p, &end, 10);
		if (end == p)
			return -EINVAL;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (a < 0 || a > b || b > 63 || (*end && *end != ','))
			return -EINVAL;
		for (; a <= b; a++)
			f->mask |= 1ULL << a;
	}
	return f->mask ? 0 : -EINVAL;
}

static int name__cmp(const void *a, const void *b)
{
	/* every element starts with its name */
	return strcmp((const char *)a, (const char *)b);
}

/*
 * Each entry of dir/sub (regular names only) through add(); entries it
 * skips (returns 1) are left out. 0 or -ENOMEM; a missing dir has none.
 */
static int sysfs__for_each(const char *dir, const char *sub,
			   int (*add)(void *ctx, const char *dir,
				      const char *name),
			   void *ctx)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, sub) >= (int)sizeof(path))
		return 0;
	dp = opendir(path);
	if (!dp)
		return 0;
	while (!ret && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		ret = add(ctx, path, d->d_name);
		if (ret > 0)
			ret = 0;
	}
	closedir(dp);
	return ret;
}

static int pmu_sysfs__add_format(void *ctx, const char *dir, const char *name)
{
	struct pmu_sysfs *pmu = ctx;
	char spec[PMU_FILE_LEN];
	struct pmu_format f;

	/* a field we cannot read or do not know is one the user cannot set */
	if (strlen(name) >= sizeof(f.name) ||
	    sysfs__read(dir, name, spec, sizeof(spec)) ||
	    pmu_format__parse(&f, spec))
		return 1;
	snprintf(f.name, sizeof(f.name), "%s", name);
	if (array__grow(&pmu->formats, &pmu->cap_formats, pmu->nr_formats + 1, sizeof(f)))
		return -ENOMEM;
	pmu->formats[pmu->nr_formats++] = f;
	return 0;
}

static int pmu_sysfs__add_alias(void *ctx, const char *dir, const char *name)
{
	struct pmu_sysfs *pmu = ctx;
	char terms[PMU_FILE_LEN];
	struct pmu_alias a;
	const char *dot = strrchr(name, '.');

	/* NAME.scale, .unit, .per-pkg, .snapshot describe NAME */
	if (dot || strlen(name) >= sizeof(a.name) ||
	    sysfs__read(dir, name, terms, sizeof(terms)))
		return 1;
	snprintf(a.name, sizeof(a.name), "%s", name);
	a.terms = strdup(terms);
	if (!a.terms ||
	    array__grow(&pmu->aliases, &pmu->cap_aliases, pmu->nr_aliases + 1, sizeof(a))) {
		free(a.terms);
		return -ENOMEM;
	}
	pmu->aliases[pmu->nr_aliases++] = a;
	return 0;
}

static void pmu_sysfs__free(struct pmu_sysfs *pmu)
{
	for (int i = 0; i < pmu->nr_aliases; i++)
		free(pmu->aliases[i].terms);
	free(pmu->aliases);
	free(pmu->formats);
}

/* root/name as a PMU; 1 when it is none (no readable type), else 0/-errno */
static int pmus__add(void *ctx, const char *root, const char *name)
{
	struct pmus *p = ctx;
	struct pmu_sysfs pmu = {};
	char dir[PATH_MAX], buf[PMU_FILE_LEN], *end;
	int ret = 1;

	if (snprintf(dir, sizeof(dir), "%s/%s", root, name) >= (int)sizeof(dir) ||
	    strlen(name) >= sizeof(pmu.name) ||
	    sysfs__read(dir, "type", buf, sizeof(buf)))
		goto out;
	pmu.type = strtoul(buf, &end, 10);
	if (end == buf || *end)
		goto out;
	snprintf(pmu.name, sizeof(pmu.name), "%s", name);
	pmu.has_cpus = !sysfs__read(dir, "cpus", buf, sizeof(buf)) &&
		       !pmu_cpus__parse(&pmu.cpus, buf);
	pmu.is_core = pmu.has_cpus || !strcmp(name, "cpu");
	pmu.is_uncore = !pmu.is_core && sysfs__exists(dir, "cpumask");
	ret = sysfs__for_each(dir, "format", pmu_sysfs__add_format, &pmu);
	if (!ret)
		ret = sysfs__for_each(dir, "events", pmu_sysfs__add_alias, &pmu);
	if (!ret)
		ret = array__grow(&p->pmu, &p->cap, p->nr + 1, sizeof(pmu));
	if (ret)
		goto out;
	if (pmu.nr_aliases)
		qsort(pmu.aliases, pmu.nr_aliases, sizeof(*pmu.aliases),
		      name__cmp);
	p->pmu[p->nr++] = pmu;
	p->nr_core += pmu.is_core;
	return 0;
out:
	pmu_sysfs__free(&pmu);
	return ret;
}

int pmus__load(struct pmus *p, const char *root)
{
	int ret;

	memset(p, 0, sizeof(*p));
	ret = sysfs__for_each(root ?: PMU_SYSFS_ROOT, "", pmus__add, p);
	if (p->nr)
		qsort(p->pmu, p->nr, sizeof(*p->pmu), name__cmp);
	return ret;
}

void pmus__free(struct pmus *p)
{
	for (int i = 0; i < p->nr; i++)
		pmu_sysfs__free(&p->pmu[i]);
	free(p->pmu);
	memset(p, 0, sizeof(*p));
}

static struct pmus pmus_cached;
static bool pmus_loaded;
static char *pmus_root;

void pmus__set_root(const char *root)
{
	pmus__free(&pmus_cached);
	pmus_loaded = false;
	free(pmus_root);
	pmus_root = root ? strdup(root) : NULL;
}

const struct pmus *pmus__get(void)
{
	if (!pmus_loaded && pmus__load(&pmus_cached, pmus_root))
		pmus__free(&pmus_cached);	/* out of memory: no PMUs */
	pmus_loaded = true;
	return &pmus_cached;
}

const struct pmu_sysfs *pmus__find(const struct pmus *p, const char *name)
{
	if (!p->nr)
		return NULL;
	return bsearch(name, p->pmu, p->nr, sizeof(*p->pmu), name__cmp);
}

const struct pmu_sysfs *pmus__core_of_cpu(const struct pmus *p, int cpu)
{
	for (int i = 0; i < p->nr; i++) {
		if (p->pmu[i].is_core && pmu_sysfs__has_cpu(&p->pmu[i], cpu))
			return &p->pmu[i];
	}
	return NULL;
}

const struct pmu_format *pmu_sysfs__format(const struct pmu_sysfs *pmu,
					   const char *name)
{
	for (int i = 0; i < pmu->nr_formats; i++) {
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	}
	return NULL;
}

const struct pmu_alias *pmu_sysfs__alias(const struct pmu_sysfs *pmu,
					 const char *name)
{
	if (!pmu->nr_aliases)
		return NULL;
	return bsearch(name, pmu->aliases, pmu->nr_aliases,
		       sizeof(*pmu->aliases), name__cmp);
}

bool pmu_sysfs__has_cpu(const struct pmu_sysfs *pmu, int cpu)
{
	if (pmu->has_cpus)
		return pmu_cpus__has(&pmu->cpus, cpu);
	return pmu->is_core;
}
