/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The paths of the totals' cgroup entries (engine_opts.name_cgroups).
 * Called by engine.c only.
 */
#ifndef ENGINE_ENGINE_NAMES_H
#define ENGINE_ENGINE_NAMES_H

#include "engine/cgroup.h"
#include "engine/container_cache.h"
#include "common/idmap.h"
#include "engine/session.h"

/* Name the cgroups of read rd in cgrps (agg_entry values) while BPF's
 * record of them (sess) is fresh, and have conts read the names of the
 * containers they are (roots: the runtimes' files; now: the read's time);
 * one call per read. */
void engine_names__take(struct cgroup_names *names, struct idmap *cgrps,
			const struct session_read *rd, struct session *sess,
			struct cont_cache *conts, const struct container_roots *roots,
			double now);
/* Free the paths the entries of cgrps hold. */
void engine_names__free(struct idmap *cgrps);

#endif
