/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The paths of the totals' cgroup entries (engine_opts.name_cgroups).
 * Called by engine.c only.
 */
#ifndef ENGINE_NAMES_NAMES_H
#define ENGINE_NAMES_NAMES_H

#include "engine/aggregate.h"
#include "engine/names/cgroup.h"
#include "engine/names/container_cache.h"
#include "common/idmap.h"
#include "engine/session/session.h"

/* Name the cgroups new in the last read of agg (its fresh_cgrp) while
 * BPF's record of them (sess) is fresh, and have conts read the names of
 * the containers they are (roots: the runtimes' files; now: the read's
 * time); one call per read, right after aggregate__add. */
void engine_names__take(struct cgroup_names *names, struct aggregate *agg,
			struct session *sess, struct cont_cache *conts,
			const struct container_roots *roots, double now);

/* procfs__owner() or a test's stand-in: 0 and *uid, or an -errno */
typedef int (*engine_owner_fn)(pid_t pid, __u32 start, uid_t *uid);

/*
 * Who owns the entries the last read of agg left in its fresh lists
 * (engine_opts.owners), once per process (its entry, keyed by pid and
 * start time) and not per read: a process's the owner of /proc/PID,
 * which the kernel makes its euid while it is dumpable and root when
 * not (the ptrace rule, approximately), read with proc_owner when it is
 * new and again when it execs (a setuid program changes it), and only
 * while that pid is still the same process (a reused pid's owner is
 * never taken); a named cgroup's the owner of its directory under
 * cgroot (a delegated subtree is its user's). (uid_t)-1 when gone
 * before it was read. One call per read, after engine_names__take.
 */
void engine_names__owners(struct aggregate *agg, const char *cgroot,
			  engine_owner_fn proc_owner);
/* Free the paths the entries of cgrps hold. */
void engine_names__free(struct idmap *cgrps);

#endif
