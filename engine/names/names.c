// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Each cgroup entry of the totals gets its path once, at the read that
 * made it: BPF recorded its parent and name at its first slice, so even a
 * cgroup removed within the interval is named without a walk. A
 * container's cgroup has its runtime's names read then too
 * (engine/names/container_cache.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "engine/aggregate.h"
#include "engine/names/names.h"

void engine_names__take(struct cgroup_names *names, struct aggregate *agg,
			struct session *sess, struct cont_cache *conts,
			const struct container_roots *roots, double now)
{
	names->gen++;
	for (size_t i = 0; i < agg->nr_fresh_cgrp; i++) {
		struct agg_entry *a = agg->fresh_cgrp[i].e;
		const char *p;

		if (a->name)
			continue;
		p = cgroup_names__path(names, agg->fresh_cgrp[i].id,
				       session__cgroup_info, sess);
		a->name = strdup(p ? p : "[unknown]");
		cont_cache__see(conts, a->name, roots, now);
	}
	cont_cache__retry(conts, roots, now);
	/* our paths are copies: the names of cgroups gone a while can go */
	cgroup_names__prune(names, 2);
}

static uid_t owner_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? (uid_t)-1 : st.st_uid;
}

void engine_names__owners(struct aggregate *agg, const char *cgroot,
			  engine_owner_fn proc_owner)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < agg->nr_fresh_proc; i++) {
		const struct agg_fresh *f = &agg->fresh_proc[i];
		struct agg_entry *a = f->e;

		if (a->owned && !f->exec)
			continue;
		if (proc_owner((pid_t)f->id, (__u32)f->id2, &a->owner))
			a->owner = (uid_t)-1;
		a->owned = true;
	}
	for (size_t i = 0; i < agg->nr_fresh_cgrp; i++) {
		struct agg_entry *a = agg->fresh_cgrp[i].e;

		if (a->owned || !a->name)
			continue;
		snprintf(path, sizeof(path), "%s%s", cgroot, a->name);
		a->owner = owner_of(path);
		a->owned = true;
	}
}

void engine_names__free(struct idmap *cgrps)
{
	struct idmap_slot *s;
	size_t it = 0;

	while ((s = idmap__next(cgrps, &it))) {
		struct agg_entry *a = s->val;

		free((char *)a->name);
		a->name = NULL;
	}
}
