/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The retention of keys: memory stays bounded while totals never go
 * backwards, since a key leaves only with its final totals added to its
 * kind's gone entry. Called by engine.c only.
 */
#ifndef ENGINE_RETAIN_H
#define ENGINE_RETAIN_H

#include "engine/aggregate.h"
#include "engine/engine.h"

struct retain {
	struct agg_entry *gone_cgrp;	/* totals of keys that left, NULL: none */
	struct agg_entry *gone_proc;
	struct agg_entry *gone_thrd;	/* the thread scope's */
	double pruned_t;		/* the daemon's rule's last pass */
};

/*
 * Let the keys of agg go that o's rule (engine_opts.retain_s, max_keys)
 * lets go as of the read at now; snap_t: the last snapshot's read (-1:
 * none), which the one-front-end rule goes by. cgroot: the cgroup2 mount,
 * to tell a gone cgroup. 0 or -ENOMEM.
 */
int retain__run(struct retain *r, struct aggregate *agg, const char *cgroot,
		const struct engine_opts *o, double now, double snap_t);
void retain__exit(struct retain *r);

#endif
