/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The paths of the totals' cgroup entries (engine_opts.name_cgroups).
 * Called by engine.c only.
 */
#ifndef ENGINE_NAMES_NAMES_H
#define ENGINE_NAMES_NAMES_H

#include "engine/names/cgroup.h"
#include "engine/names/container_cache.h"
#include "common/idmap.h"
#include "engine/session/session.h"

/* Name the cgroups of read rd in cgrps (agg_entry values) while BPF's
 * record of them (sess) is fresh, and have conts read the names of the
 * containers they are (roots: the runtimes' files; now: the read's time);
 * one call per read. */
void engine_names__take(struct cgroup_names *names, struct idmap *cgrps,
			const struct session_read *rd, struct session *sess,
			struct cont_cache *conts, const struct container_roots *roots,
			double now);
/*
 * Who owns the entries of read rd (engine_opts.owners): a process's the
 * owner of /proc/PID, which the kernel makes its euid while it is
 * dumpable and root when not (the ptrace rule, approximately), read when
 * it is new and again when it execs (a setuid program changes it); a
 * named cgroup's the owner of its directory under cgroot (a delegated
 * subtree is its user's). (uid_t)-1 when gone before it was read.
 */
void engine_names__owners(struct idmap *procs, struct idmap *cgrps,
			  const struct session_read *rd, const char *cgroot);
/* Free the paths the entries of cgrps hold. */
void engine_names__free(struct idmap *cgrps);

#endif
