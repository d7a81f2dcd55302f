/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine's containers: each one's names (engine/names/container_meta.h),
 * read once when its first cgroup is named, and again now and then for a
 * minute when its runtime had not written them yet (a container's cgroup
 * can come before its config.v2.json). One set of names per container,
 * not per cgroup: snapshots carry them as a table of their own.
 */
#ifndef ENGINE_NAMES_CONTAINER_CACHE_H
#define ENGINE_NAMES_CONTAINER_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "common/idmap.h"
#include "engine/names/container.h"
#include "engine/names/container_meta.h"

struct cont_names {
	char id[CONTAINER_ID_LEN + 1];
	const char *runtime;	/* the path's, or the one whose files hold it */
	bool guessed;		/* the path does not say: runtime still a guess */
	struct container_meta meta;
	bool known;		/* meta was read */
	int tries;		/* reads that failed */
	double next_try;	/* CLOCK_MONOTONIC s, while !known */
	double seen_t;		/* when the engine last had a cgroup of it */
};

struct cont_cache {
	struct idmap map;	/* the id's first 32 hex digits -> cont_names */
	size_t nr_pending;	/* not known, tries left */
};

/* The container cgroup_path belongs to, if any, read the first time it
 * is seen (roots: where the runtimes keep their files). */
void cont_cache__see(struct cont_cache *c, const char *cgroup_path,
		     const struct container_roots *roots, double now);
/* Read again the containers whose names were missing, when due. */
void cont_cache__retry(struct cont_cache *c, const struct container_roots *roots,
		       double now);
/* Forget the containers none of cgrps' names (agg_entry paths) has been
 * in for a minute. */
void cont_cache__prune(struct cont_cache *c, const struct idmap *cgrps,
		       double now);
void cont_cache__exit(struct cont_cache *c);

/* The table of a snapshot (include/emon_proto.h, struct emon_snap_cont):
 * its entries and the bytes of their strings; then written to table and
 * strings (from *str_off on, which grows). */
size_t cont_cache__count(const struct cont_cache *c, size_t *strs);
void cont_cache__encode(const struct cont_cache *c, void *table, char *strings,
			__u32 *str_off);

#endif
