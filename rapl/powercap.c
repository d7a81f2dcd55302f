// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RAPL through powercap sysfs: ROOT/intel-rapl:N is a top-level zone
 * (Intel and AMD alike), ROOT/intel-rapl:N/intel-rapl:N:M its sub-zones.
 * What a zone measures is in its name file, not in its number:
 * "package-P" (or "package-P-die-D": dies of one package add up) for
 * physical package P, "psys" for the platform, "vm-host" for what a VM's
 * host measured for it (serve --vm-energy on the host writes such a tree,
 * docs/vm-energy.md; the vm-host source reads it); sub-zones are "core",
 * "uncore", "dram", "psys". intel-rapl-mmio:N zones repeat the package
 * zones through MMIO on client parts and are left out so nothing counts
 * twice.
 *
 * energy_uj is opened once, at open, and read with pread(): since Linux
 * 5.10 it is readable by root only (CVE-2020-8694), and the daemon runs
 * without that privilege once set up (docs/capabilities.md). Each read
 * first checks that the path still names the file it holds: one replaced
 * (a new inode, as a driver reload makes, and the fake trees tests use,
 * which rename every value into place) is reopened, which needs the
 * permission again; one gone is an error, as it was when every read
 * opened the path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/array.h"
#include "rapl/energy.h"

#define ZONE_PSYS (-2)		/* rapl_zone.dom of a top-level psys zone */
#define ZONE_PACKAGE (-1)	/* rapl_zone.dom of a package (die) zone */
#define ZONE_VM_HOST (-3)	/* rapl_zone.dom of a host's "vm-host" zone */

struct rapl_zone {
	char path[PATH_MAX];	/* its energy_uj */
	int fd;			/* open on path, -1: none */
	dev_t dev;		/* what fd is, to see path replaced */
	ino_t ino;
	int phys_id;		/* package, for ZONE_PACKAGE and domains */
	int dom;		/* ZONE_PSYS, ZONE_PACKAGE or enum energy_domain */
	__u64 range;		/* max_energy_range_uj, 0: unknown */
	__u64 prev;
	bool has_prev;
	bool warned;		/* each zone warns once per run */
};

struct powercap {
	struct rapl_zone *zones;
	int nr;
	size_t alloc;
};

int rapl__delta_uj(__u64 prev, __u64 cur, __u64 range, __u64 *delta)
{
	if (range && (prev > range || cur > range))
		return -ERANGE;
	if (cur >= prev) {
		*delta = cur - prev;
		return 0;
	}
	if (!range)
		return -ERANGE;
	/* wrapped: prev -> range, one step to 0, 0 -> cur */
	*delta = (range - prev) + 1 + cur;
	return 0;
}

/* "intel-rapl:" then digits and nothing else (parent == NULL), or the
 * parent's name, ':', digits. */
static bool zone__name_matches(const char *name, const char *parent)
{
	const char *p;
	size_t n;

	if (parent) {
		n = strlen(parent);
		if (strncmp(name, parent, n) || name[n] != ':')
			return false;
		p = name + n + 1;
	} else {
		if (strncmp(name, "intel-rapl:", 11))
			return false;
		p = name + 11;
	}
	if (!*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* "package-3", "package-3-die-1" -> 3; -EINVAL otherwise. */
static int zone__parse_package(const char *name, int *phys_id)
{
	int id, die, n = -1;

	if (sscanf(name, "package-%d%n", &id, &n) == 1 && n > 0 &&
	    name[n] == '\0')
		goto ok;
	n = -1;
	if (sscanf(name, "package-%d-die-%d%n", &id, &die, &n) == 2 && n > 0 &&
	    name[n] == '\0')
		goto ok;
	return -EINVAL;
ok:
	*phys_id = id;
	return 0;
}

static int zone__parse_domain(const char *name)
{
	int d;

	for (d = 0; d < ENERGY_DOM_NR; d++)
		if (!strcmp(name, energy_domain__name(d)))
			return d;
	return -EINVAL;
}

static int powercap__add(struct powercap *pc, const struct rapl_zone *z)
{
	if (array__grow(&pc->zones, &pc->alloc, pc->nr + 1, sizeof(*z)))
		return -ENOMEM;
	pc->zones[pc->nr++] = *z;
	return 0;
}

static void zone__close(struct rapl_zone *z)
{
	if (z->fd >= 0)
		close(z->fd);
	z->fd = -1;
}

/* Open z->path (again): 0 or -errno. */
static int zone__reopen(struct rapl_zone *z)
{
	struct stat st;
	int fd;

	fd = open(z->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	zone__close(z);
	z->fd = fd;
	z->dev = st.st_dev;
	z->ino = st.st_ino;
	return 0;
}

/* Does z->path still name the file z holds? Else reopen it. 0 or -errno. */
static int zone__check(struct rapl_zone *z)
{
	struct stat st;

	if (stat(z->path, &st))
		return -errno;
	if (z->fd >= 0 && st.st_dev == z->dev && st.st_ino == z->ino)
		return 0;
	return zone__reopen(z);
}

/*
 * Check dir is a usable zone and fill z (path, range). Returns 0, -ENOENT
 * (skip it; why in warn via s), or a fatal -errno with err set.
 */
static int zone__probe(struct energy_source *s, const char *dir,
		       struct rapl_zone *z, char *err, size_t errlen)
{
	char path[PATH_MAX];
	__u64 v;
	int ret;

	z->fd = -1;
	ret = rapl__path(z->path, sizeof(z->path), "%s/energy_uj", dir);
	if (!ret)
		ret = zone__reopen(z);
	if (!ret)
		ret = rapl__pread_u64(z->fd, &v);
	if (ret == -EACCES || ret == -EPERM) {
		snprintf(err, errlen,
			 "cannot read %s: %s (energy_uj is readable by root only)",
			 z->path, strerror(-ret));
		goto out;
	}
	if (ret) {
		energy_source__warn(s, "%s: %s, zone left out", z->path,
				    ret == -EINVAL ? "not a number" :
				    strerror(-ret));
		ret = -ENOENT;
		goto out;
	}
	/* read once: it is a constant of the zone */
	if (rapl__path(path, sizeof(path), "%s/max_energy_range_uj", dir) ||
	    rapl__read_u64(path, &z->range)) {
		z->range = 0;
		energy_source__warn(s, "%s unreadable: a wrap of %s will be seen as an error",
				    path, z->path);
	}
out:
	if (ret)
		zone__close(z);
	return ret;
}

/*
 * Probe z, a zone of pc under dir, and keep it: 1 when kept, 0 when it has
 * no counter (left out), or an error with err said.
 */
static int powercap__keep(struct energy_source *s, struct powercap *pc,
			  const char *dir, struct rapl_zone *z,
			  char *err, size_t errlen)
{
	int ret = zone__probe(s, dir, z, err, errlen);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	ret = powercap__add(pc, z);
	if (ret) {
		zone__close(z);
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	return 1;
}

static int powercap__sub_zones(struct energy_source *s, struct powercap *pc,
			       const char *dir, const char *zname, int phys_id,
			       char *err, size_t errlen)
{
	struct dirent **ents = NULL;
	char sub[PATH_MAX], path[PATH_MAX], name[64];
	struct rapl_zone z;
	int i, n, ret = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		goto out;	/* no sub-zones to see */
	for (i = 0; i < n; i++) {
		if (!zone__name_matches(ents[i]->d_name, zname))
			continue;
		memset(&z, 0, sizeof(z));
		if (rapl__path(sub, sizeof(sub), "%s/%s", dir, ents[i]->d_name) ||
		    rapl__path(path, sizeof(path), "%s/name", sub) ||
		    rapl__read_str(path, name, sizeof(name)))
			continue;
		name[strcspn(name, "\n")] = '\0';
		z.dom = zone__parse_domain(name);
		if (z.dom < 0)
			continue;	/* a domain we do not report */
		z.phys_id = phys_id;
		ret = powercap__keep(s, pc, sub, &z, err, errlen);
		if (ret < 0)
			goto out;
		ret = 0;
	}
out:
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return ret;
}

/* One top-level entry: a package zone with its sub-zones, psys, or skip. */
static int powercap__zone(struct energy_source *s, struct powercap *pc,
			  const char *root, const char *zname,
			  char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX], name[64];
	struct rapl_zone z;
	int ret;

	memset(&z, 0, sizeof(z));
	ret = rapl__path(dir, sizeof(dir), "%s/%s", root, zname);
	if (!ret)
		ret = rapl__path(path, sizeof(path), "%s/name", dir);
	if (!ret)
		ret = rapl__read_str(path, name, sizeof(name));
	if (ret) {
		energy_source__warn(s, "%s: %s, zone left out", path,
				    strerror(-ret));
		ret = 0;
		goto out;
	}
	name[strcspn(name, "\n")] = '\0';
	if (!strcmp(name, "psys")) {
		z.dom = ZONE_PSYS;
	} else if (!strcmp(name, "vm-host")) {
		/* the vm-host source's alone: no RAPL zone */
		if (s->ops != &energy_vm_host_ops)
			goto out;
		z.dom = ZONE_VM_HOST;
	} else if (!zone__parse_package(name, &z.phys_id)) {
		z.dom = ZONE_PACKAGE;
	} else {
		energy_source__warn(s, "%s: unknown zone '%s' left out", dir, name);
		goto out;
	}
	ret = powercap__keep(s, pc, dir, &z, err, errlen);
	if (ret <= 0)
		goto out;
	ret = 0;
	if (z.dom == ZONE_PACKAGE) {
		/* kept already: a failure closes every zone of pc */
		ret = cpu_topology__add_package(&s->topo, z.phys_id);
		if (ret < 0) {
			snprintf(err, errlen, "more than %d packages under %s",
				 ENERGY_MAX_PACKAGES, root);
			goto out;
		}
		ret = powercap__sub_zones(s, pc, dir, zname, z.phys_id,
					  err, errlen);
	}
out:
	return ret;
}

static bool powercap__has(const struct powercap *pc, int dom)
{
	int i;

	for (i = 0; i < pc->nr; i++)
		if (pc->zones[i].dom == dom)
			return true;
	return false;
}

/*
 * The vm-host source: a "vm-host" zone, the VM's energy as its host
 * counted it, is one unit of scope vm-host over every CPU of the guest,
 * split by what ran on them as a platform's. Its packages, the topology's,
 * measure nothing of their own.
 */
static int vm_host__units(struct energy_source *s, struct powercap *pc,
			  const char *root, char *err, size_t errlen)
{
	if (!powercap__has(pc, ZONE_VM_HOST)) {
		snprintf(err, errlen, "no vm-host zone under %s", root);
		return -ENOENT;
	}
	if (powercap__has(pc, ZONE_PACKAGE)) {
		snprintf(err, errlen, "%s has both RAPL package zones and a vm-host "
			 "zone: --powercap-root must name one or the other", root);
		return -EINVAL;
	}
	s->unit_of_cpu = calloc(s->topo.ncpus, sizeof(*s->unit_of_cpu));
	if (!s->unit_of_cpu) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->unit_scope = ENERGY_SCOPE_VM_HOST;
	s->nr_units = 1;
	return 0;
}

static void powercap__close(struct energy_source *s)
{
	struct powercap *pc = s->priv;

	for (int i = 0; pc && i < pc->nr; i++)
		zone__close(&pc->zones[i]);
	if (pc)
		free(pc->zones);
	free(pc);
	s->priv = NULL;
}

static int powercap__open(struct energy_source *s, const char *arg,
			  char *err, size_t errlen)
{
	const char *root = s->opts->powercap_root;
	struct dirent **ents = NULL;
	struct powercap *pc;
	int i, n = 0, ret = 0;

	(void)arg;
	if (!root)
		root = ENERGY_POWERCAP_ROOT;
	pc = calloc(1, sizeof(*pc));
	if (!pc) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	s->priv = pc;
	n = scandir(root, &ents, NULL, alphasort);
	if (n < 0)
		n = 0;
	for (i = 0; i < n; i++) {
		if (!zone__name_matches(ents[i]->d_name, NULL))
			continue;
		ret = powercap__zone(s, pc, root, ents[i]->d_name, err, errlen);
		if (ret)
			goto out;
	}
	if (s->ops == &energy_vm_host_ops) {
		ret = vm_host__units(s, pc, root, err, errlen);
	} else if (!powercap__has(pc, ZONE_PACKAGE)) {
		snprintf(err, errlen, "no RAPL powercap zones under %s", root);
		ret = -ENOENT;
	}
out:
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (ret)
		powercap__close(s);
	return ret;
}

static const char *zone__what(const struct rapl_zone *z)
{
	if (z->dom == ZONE_PSYS)
		return "psys";
	if (z->dom == ZONE_VM_HOST)
		return "vm-host";
	if (z->dom == ZONE_PACKAGE)
		return "package";
	return energy_domain__name(z->dom);
}

/* A step from z->prev to cur that is not energy, said once per zone. */
static void zone__warn_step(struct energy_source *s, struct rapl_zone *z,
			    __u64 cur, const char *why)
{
	if (z->warned)
		return;
	energy_source__warn(s, "%s: %llu after %llu (range %llu)%s: no %s energy this interval",
			    z->path, (unsigned long long)cur,
			    (unsigned long long)z->prev,
			    (unsigned long long)z->range, why, zone__what(z));
	z->warned = true;
}

/*
 * This interval's joules of z: 0, or -errno with the zone re-baselined.
 * A step no zone can draw in dt (a reset taken for a wrap, garbage that
 * parses) gives nothing this interval; counting goes on from the new value.
 */
static int zone__read(struct energy_source *s, struct rapl_zone *z,
		      double dt, double *joules)
{
	char why[96];
	__u64 cur, delta;
	int ret;

	/*
	 * A vm-host zone is opened afresh each read: it is readable by all,
	 * and a guest's 9p keeps the inode a path named when the host renames
	 * another file over it (cache=none revalidates no dentry), while an
	 * open goes to the host's file of that name: the fd held would read
	 * the first value for ever.
	 */
	ret = z->dom == ZONE_VM_HOST ? zone__reopen(z) : zone__check(z);
	if (!ret)
		ret = rapl__pread_u64(z->fd, &cur);
	if (ret) {
		if (!z->warned)
			energy_source__warn(s, "%s: %s: no %s energy this interval",
					    z->path, ret == -EINVAL ? "not a number" :
					    strerror(-ret), zone__what(z));
		z->warned = true;
		/* what happened meanwhile is unknown: start afresh */
		z->has_prev = false;
		goto out;
	}
	if (!z->has_prev) {
		z->prev = cur;
		z->has_prev = true;
		ret = -EAGAIN;
		goto out;
	}
	ret = rapl__delta_uj(z->prev, cur, z->range, &delta);
	if (ret) {
		zone__warn_step(s, z, cur, "");
	} else {
		ret = energy_step__check(delta / 1e6, z->range / 1e6, dt);
		if (ret) {
			snprintf(why, sizeof(why), ": %s (%.1f J in %.3f s)",
				 cur < z->prev ? "a counter reset, not a wrap" :
				 "a jump, not energy", delta / 1e6, dt);
			zone__warn_step(s, z, cur, why);
		}
	}
	/* after a bad step, the next interval starts from here */
	z->prev = cur;
	if (!ret)
		*joules = delta / 1e6;
out:
	return ret;
}

/*
 * A package is valid when all its package zones (one per die) are; a
 * sub-zone only decides its own domain. Zones re-baselined after a
 * problem (a reset among them) give nothing for this interval, so no
 * energy is invented.
 */
static int powercap__read(struct energy_source *s, bool first, double dt,
			  const double *busy_ns, struct energy_sample *out)
{
	struct powercap *pc = s->priv;
	bool bad[ENERGY_MAX_PACKAGES] = { false };
	unsigned int bad_dom[ENERGY_MAX_PACKAGES] = { 0 };
	int i, p;

	(void)first;
	(void)busy_ns;
	for (i = 0; i < pc->nr; i++) {
		struct rapl_zone *z = &pc->zones[i];
		struct energy_pkg_sample *ps;
		double j = 0;
		int ret = zone__read(s, z, dt, &j);

		if (z->dom == ZONE_VM_HOST) {
			/* one zone (more would be one VM's twice) */
			out->unit_valid[0] = !ret;
			out->unit_j[0] = j;
			continue;
		}
		if (z->dom == ZONE_PSYS) {
			out->has_psys = true;
			out->psys_valid = !ret;
			out->psys_j = j;
			continue;
		}
		p = cpu_topology__index(&s->topo, z->phys_id);
		if (p < 0)
			continue;
		ps = &out->pkg[p];
		if (z->dom == ZONE_PACKAGE) {
			if (ret)
				bad[p] = true;
			else
				ps->joules += j;
			ps->valid = true;
			continue;
		}
		ps->dom_mask |= 1U << z->dom;
		if (ret)
			bad_dom[p] |= 1U << z->dom;
		else
			ps->dom_j[z->dom] += j;
	}
	for (p = 0; p < out->nr_packages; p++) {
		struct energy_pkg_sample *ps = &out->pkg[p];
		int d;

		if (bad[p]) {
			ps->valid = false;
			ps->joules = 0;
		}
		ps->dom_valid = ps->dom_mask & ~bad_dom[p];
		for (d = 0; d < ENERGY_DOM_NR; d++)
			if (!(ps->dom_valid & (1U << d)))
				ps->dom_j[d] = 0;
	}
	return 0;
}

const struct energy_source_ops energy_powercap_ops = {
	.name = "powercap",
	.open = powercap__open,
	.read = powercap__read,
	.close = powercap__close,
};

const struct energy_source_ops energy_vm_host_ops = {
	.name = "vm-host",
	.open = powercap__open,
	.read = powercap__read,
	.close = powercap__close,
};
