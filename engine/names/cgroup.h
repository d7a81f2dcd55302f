/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* cgroup v2: the mount, user paths, and the names of the ids BPF reports. */
#ifndef ENGINE_NAMES_CGROUP_H
#define ENGINE_NAMES_CGROUP_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "common/idmap.h"

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
	bool alive;		/* seen in the last walk, or named by BPF */
	bool walked;		/* named by a walk (not from BPF's record) */
	unsigned long used;	/* gen of the last lookup */
};

/*
 * What BPF recorded of a cgroup id: its parent and directory name (name
 * "" when unknown). Returns false when it has nothing.
 */
typedef bool (*cgroup_info_fn)(void *ctx, __u64 id, __u64 *parent,
			       char *name, size_t len);

int cgroup_names__init(struct cgroup_names *n, const char *root);
void cgroup_names__exit(struct cgroup_names *n);
/* Walk the tree: new cgroups get their path, gone ones keep their last. */
int cgroup_names__walk(struct cgroup_names *n);
/*
 * The path of id. An id not seen yet is named from what BPF recorded (its
 * name below its parent's path, up to a known ancestor: no tree walk), else
 * by walking the tree again (at most once per gen); one that was removed
 * before either could name it goes below its nearest known ancestor as
 * ".../[removed cgroup ID]". info_of may be NULL.
 */
const char *cgroup_names__path(struct cgroup_names *n, __u64 id,
			       cgroup_info_fn info_of, void *ctx);
/*
 * Forget the cgroups not looked up for the last keep gens that are gone,
 * or were named from BPF's record (named again if they run again): memory
 * stays bounded by the live tree under churn. Returns how many went.
 */
size_t cgroup_names__prune(struct cgroup_names *n, unsigned long keep);

#endif
