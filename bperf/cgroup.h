/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* cgroup v2: the mount, user paths, and the names of the ids BPF reports. */
#ifndef BPERF_CGROUP_H
#define BPERF_CGROUP_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "bperf/idmap.h"

/* The cgroup2 mount point listed in a mounts file (/proc/mounts). */
int cgroup__find_mount(const char *mounts_file, char *out, size_t len);
/* "system.slice//x/" -> "/system.slice/x"; -EINVAL for "", ".." or "." parts. */
int cgroup__normalize(const char *in, char *out, size_t len);
/* Is path the same cgroup as, or below, top? ("/a/b" in "/a", not "/ab") */
bool cgroup__is_under(const char *path, const char *top);
/* The id of ROOT/path (its directory inode), or -errno. */
int cgroup__id(const char *root, const char *path, __u64 *id);

struct cgroup_names {
	char *root;
	struct idmap ids;	/* cgid -> struct cgroup_name */
	unsigned long walks;
	unsigned long gen;	/* bumped by the caller once per interval */
	unsigned long walked_gen; /* unknown ids walk the tree once per gen */
};

struct cgroup_name {
	char *path;		/* from the cgroup2 root, "/" for the root */
	__u64 parent;		/* 0 when unknown */
	bool alive;		/* seen in the last walk */
};

int cgroup_names__init(struct cgroup_names *n, const char *root);
void cgroup_names__exit(struct cgroup_names *n);
/* Walk the tree: new cgroups get their path, gone ones keep their last. */
int cgroup_names__walk(struct cgroup_names *n);
/*
 * The path of id: walks the tree again when id is unknown (at most once per
 * gen); a cgroup
 * that was removed before any walk saw it is named below its nearest known
 * ancestor (from the parent BPF recorded) as ".../[removed cgroup ID]".
 * parent_of may be NULL; it returns 0 when it does not know.
 */
const char *cgroup_names__path(struct cgroup_names *n, __u64 id,
			       __u64 (*parent_of)(void *ctx, __u64 id), void *ctx);

#endif
