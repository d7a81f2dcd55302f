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

void engine_names__take(struct cgroup_names *names, struct idmap *cgrps,
			const struct session_read *rd, struct session *sess,
			struct cont_cache *conts, const struct container_roots *roots,
			double now)
{
	names->gen++;
	for (size_t i = 0; i < rd->nr_cgrp; i++) {
		__u64 id = rd->cgrp[i].cgid;
		struct agg_entry *a = idmap__get(cgrps, id, 0);
		const char *p;

		if (!a || a->name)
			continue;
		p = cgroup_names__path(names, id, session__cgroup_info, sess);
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

void engine_names__owners(struct idmap *procs, struct idmap *cgrps,
			  const struct session_read *rd, const char *cgroot)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < rd->nr_proc; i++) {
		const struct sess_proc *p = &rd->proc[i];
		struct agg_entry *a = idmap__get(procs, p->tgid, p->start);

		if (!a || (a->owned && !(p->flags & EMON_PROC_EXEC)))
			continue;
		snprintf(path, sizeof(path), "/proc/%u", (unsigned int)p->tgid);
		a->owner = owner_of(path);
		a->owned = true;
	}
	for (size_t i = 0; i < rd->nr_cgrp; i++) {
		struct agg_entry *a = idmap__get(cgrps, rd->cgrp[i].cgid, 0);

		if (!a || a->owned || !a->name)
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
