// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A CPU's package, die and core from sysfs: common/cpu_topo.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cpu_topo.h"

int cpu_topo__read_id(const char *root, int cpu, const char *name, int *id)
{
	char path[PATH_MAX], buf[32], *end;
	FILE *f = NULL;
	long v;
	int n, err = 0;

	n = snprintf(path, sizeof(path), "%s/cpu%d/topology/%s", root, cpu, name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		goto out;
	}
	if (!fgets(buf, sizeof(buf), f)) {
		err = -EINVAL;
		goto out;
	}
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') ||
	    v < INT_MIN || v > INT_MAX) {
		err = -EINVAL;
		goto out;
	}
	*id = (int)v;
out:
	if (f)
		fclose(f);
	return err;
}

/* cpuN's nodeM entry (perf's --per-node); 0 without one, as perf */
static int cpu_topo__node(const char *root, int cpu)
{
	char path[PATH_MAX];
	struct dirent *d;
	int node = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/cpu%d", root, cpu);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "node", 4) && sscanf(d->d_name + 4, "%d", &node) == 1)
			break;
	closedir(dir);
	return node;
}

int cpu_place__read(const char *root, int cpu, struct cpu_place *p)
{
	int err;

	if (!root)
		root = CPU_TOPO_ROOT;
	p->node = cpu_topo__node(root, cpu);
	err = cpu_topo__read_id(root, cpu, "physical_package_id", &p->pkg) ?:
	      cpu_topo__read_id(root, cpu, "core_id", &p->core);
	if (err)
		return err;
	/* die_id came with Linux 5.2; before it every package was one die */
	err = cpu_topo__read_id(root, cpu, "die_id", &p->die);
	if (err == -ENOENT)
		p->die = 0;
	return err == -ENOENT ? 0 : err;
}

int cpu_topo__read_online(const char *root, bool *online, int ncpus)
{
	char path[PATH_MAX], buf[4096], *p = buf;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/online", root ?: CPU_TOPO_ROOT);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0)
			return -EINVAL;
		p = end;
		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (long c = a; c <= b && c < ncpus; c++, n++)
			online[c] = true;
		if (*p == ',')
			p++;
	}
	return n ? 0 : -EINVAL;
}
