/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What one client of the daemon may see of a snapshot (docs/security.md):
 * the kernel's own rules for counting, applied at encoding. Entries need
 * their owners (engine_opts.owners) for anything but all.
 */
#ifndef ENGINE_SNAPSHOT_VIEW_H
#define ENGINE_SNAPSHOT_VIEW_H

#include <stdbool.h>
#include <sys/types.h>

struct snap_view {
	bool all;		/* an administrator: everything */
	/*
	 * perf_event_paranoid <= 0: what CPU-wide counting gives: the
	 * system, CPUs, packages and their energy, every cgroup, the
	 * containers' names, the overflow and gone entries
	 */
	bool cpu_wide;
	uid_t uid;		/* its own processes and cgroups */
};

/* Two clients with equal views can share one encoding. */
static inline bool snap_view__equal(const struct snap_view *a,
				    const struct snap_view *b)
{
	return a->all == b->all &&
	       (a->all || (a->cpu_wide == b->cpu_wide && a->uid == b->uid));
}

#endif
