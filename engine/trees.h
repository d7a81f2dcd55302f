/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which command tree ids are in use, by whom, and when a freed one may be
 * taken again. max: engine_opts.max_trees (clamped to EMON_MAX_TREES).
 * Called by engine.c only.
 */
#ifndef ENGINE_TREES_H
#define ENGINE_TREES_H

#include <stdbool.h>
#include <sys/types.h>
#include "engine/aggregate.h"
#include "engine/session/session.h"

struct trees {
	__u64 used;			/* bit t: tree t in use */
	__u32 root[EMON_MAX_TREES];	/* each tree's command (tgid) */
	/* its start (/proc/PID/stat's ticks) when it was taken: a later
	 * process given the same pid is not the command */
	unsigned long long root_ticks[EMON_MAX_TREES];
	/* a freed tree is free for a new user from this read on (see
	 * trees__release) */
	__u64 clean_seq[EMON_MAX_TREES];
};

/* Is tree (any int) one in use? */
bool trees__has(const struct trees *t, int tree, int max);
/* A tree id no one uses and whose last user's bits are gone as of read
 * seq, -1: none (*waiting: one will be after the next read). */
int trees__free_id(const struct trees *t, int max, __u64 seq, bool *waiting);
/* Tree id (from trees__free_id) follows pid from now on, from zero. */
int trees__take(struct trees *t, int tree, pid_t pid, struct aggregate *agg,
		struct session *sess);
/* Tree, if in use, is free again; its next user waits for read seq + 1. */
void trees__release(struct trees *t, int tree, int max, __u64 seq,
		    struct aggregate *agg, struct session *sess);
/* Mark the commands' own entries of read rd as in their trees. */
void trees__mark_roots(const struct trees *t, int max, struct session_read *rd);

#endif
