// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * serve --vm-energy (daemon/vm_energy.h). The main thread asks the server
 * for a snapshot of the cgroups every --vm-energy-ms, as a scrape does; its answer, on the same thread, sums each VM's subtree and
 * writes the counters. The zone directory is opened once, at set-up, and
 * every file is written through that fd (openat, renameat): after the
 * privilege drop the daemon needs only the directory's write permission.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/log.h"
#include "daemon/socket/server.h"
#include "daemon/vm_energy.h"
#include "engine/names/cgroup.h"
#include "engine/snapshot/snapshot.h"

struct vm_zone {
	char cg[PATH_MAX];	/* the VM's cgroup */
	char dir[PATH_MAX];	/* DIR/intel-rapl:0, for messages */
	int dirfd;
	__u64 cum_uj;		/* what energy_uj says */
	double prev_j;		/* the subtree's total at the last read */
	bool warned;		/* a failed write is said once */
};

struct vm_energy {
	const struct snap_meta *meta;
	struct vm_zone *z;
	int nr;
	double period_s;
	double next;
	bool pending;		/* a request is out */
};

int vm_energy__parse(const char *arg, char *cg, size_t cglen, char *dir,
		     size_t dirlen, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char buf[PATH_MAX];
	size_t n;

	if (!eq || eq == arg || !eq[1]) {
		snprintf(err, errlen, "bad --vm-energy '%s': CGROUP=DIR", arg);
		return -EINVAL;
	}
	n = eq - arg;
	if (n < sizeof(buf)) {
		memcpy(buf, arg, n);
		buf[n] = '\0';
	}
	if (n >= sizeof(buf) || cgroup__normalize(buf, cg, cglen) || !strcmp(cg, "/")) {
		snprintf(err, errlen, "bad --vm-energy '%s': '%.*s' is not a cgroup "
			 "below the root", arg, (int)n, arg);
		return -EINVAL;
	}
	if (eq[1] != '/' || strlen(eq + 1) + sizeof("/" VM_ENERGY_ZONE) > dirlen) {
		snprintf(err, errlen, "bad --vm-energy '%s': DIR must be an absolute path",
			 arg);
		return -EINVAL;
	}
	strcpy(dir, eq + 1);
	return 0;
}

__u64 vm_energy__step(__u64 cum_uj, double prev_j, double cur_j)
{
	double d = cur_j - prev_j;
	__u64 uj;

	if (!(d > 0) || !isfinite(d))
		return cum_uj;
	uj = (__u64)llround(d * 1e6);
	return (cum_uj + uj % (VM_ENERGY_RANGE_UJ + 1)) % (VM_ENERGY_RANGE_UJ + 1);
}

/* name's value, whole: a temporary file renamed over it. 0 or -errno. */
static int zone__put(int dirfd, const char *name, const char *val)
{
	char tmp[64];
	size_t len = strlen(val);
	ssize_t w;
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		    0444);
	if (fd < 0)
		return -errno;
	w = write(fd, val, len);
	if (w < 0)
		err = -errno;
	else if ((size_t)w != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, name))
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	return err;
}

static int zone__put_u64(int dirfd, const char *name, __u64 v)
{
	char val[32];

	snprintf(val, sizeof(val), "%llu\n", (unsigned long long)v);
	return zone__put(dirfd, name, val);
}

static int zone__open(struct vm_zone *z, const char *spec, uid_t uid, gid_t gid)
{
	char dir[PATH_MAX], err[PATH_MAX + 128];
	int ret;

	z->dirfd = -1;
	if (vm_energy__parse(spec, z->cg, sizeof(z->cg), dir, sizeof(dir),
			     err, sizeof(err))) {
		pr_err("%s", err);
		return -EINVAL;
	}
	/* parse checked that it fits */
	if (snprintf(z->dir, sizeof(z->dir), "%s/" VM_ENERGY_ZONE, dir) >=
	    (int)sizeof(z->dir))
		return -ENAMETOOLONG;
	if (mkdir(z->dir, 0755) && errno != EEXIST) {
		ret = -errno;
		pr_err("--vm-energy: cannot make %s: %s", z->dir, strerror(-ret));
		return ret;
	}
	z->dirfd = open(z->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (z->dirfd < 0) {
		ret = -errno;
		pr_err("--vm-energy: cannot open %s: %s", z->dir, strerror(-ret));
		return ret;
	}
	if (uid && fchown(z->dirfd, uid, gid)) {
		ret = -errno;
		pr_err("--vm-energy: cannot give %s to uid %d: %s", z->dir, (int)uid,
		       strerror(-ret));
		return ret;
	}
	ret = zone__put(z->dirfd, "name", "vm-host\n");
	ret = ret ?: zone__put_u64(z->dirfd, "max_energy_range_uj", VM_ENERGY_RANGE_UJ);
	ret = ret ?: zone__put_u64(z->dirfd, "energy_uj", 0);
	if (ret)
		pr_err("--vm-energy: cannot write in %s: %s", z->dir, strerror(-ret));
	return ret;
}

int vm_energy__open(struct vm_energy **vp, const char *const *specs, int nr,
		    double period_s, uid_t uid, gid_t gid,
		    const struct snap_meta *meta)
{
	struct vm_energy *v = calloc(1, sizeof(*v));
	int ret = 0;

	*vp = NULL;
	if (!v || !(v->z = calloc(nr, sizeof(*v->z)))) {
		free(v);
		return -ENOMEM;
	}
	v->meta = meta;
	v->period_s = period_s;
	for (int i = 0; i < nr && !ret; i++) {
		v->nr = i + 1;
		ret = zone__open(&v->z[i], specs[i], uid, gid);
	}
	if (ret) {
		vm_energy__close(v);
		return ret;
	}
	*vp = v;
	return 0;
}

void vm_energy__close(struct vm_energy *v)
{
	if (!v)
		return;
	for (int i = 0; i < v->nr; i++)
		if (v->z[i].dirfd >= 0)
			close(v->z[i].dirfd);
	free(v->z);
	free(v);
}

double vm_energy__next(const struct vm_energy *v)
{
	return !v || v->pending ? INFINITY : v->next;
}

/* The attributed total of cg's subtree. */
static double subtree_j(const struct snapshot *snap, const char *cg)
{
	double j = 0;

	for (size_t i = 0; i < snap->nr_cgrp; i++)
		if (snap->cgrp[i].name && cgroup__is_under(snap->cgrp[i].name, cg))
			j += snap->cgrp[i].energy_j;
	return j;
}

static void vm_energy__done(void *ctx, void *buf, size_t len, int err)
{
	struct vm_energy *v = ctx;
	struct snapshot snap;

	v->pending = false;
	if (err || snapshot__decode(&snap, v->meta, buf, len)) {
		free(buf);
		return;
	}
	free(buf);
	for (int i = 0; i < v->nr; i++) {
		struct vm_zone *z = &v->z[i];
		double j = subtree_j(&snap, z->cg);
		int ret;

		z->cum_uj = vm_energy__step(z->cum_uj, z->prev_j, j);
		z->prev_j = j;
		ret = zone__put_u64(z->dirfd, "energy_uj", z->cum_uj);
		if (ret && !z->warned)
			pr_warn("--vm-energy: cannot write %s/energy_uj: %s (said once)",
				z->dir, strerror(-ret));
		z->warned = z->warned || ret;
	}
	snapshot__free(&snap);
}

void vm_energy__run(struct vm_energy *v, struct server *srv, double now)
{
	if (!v || v->pending || now < v->next)
		return;
	v->next = now + v->period_s;
	v->pending = true;
	if (server__request_all(srv, EMON_SNAP_CGROUPS, vm_energy__done, v))
		v->pending = false;
}
