// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Command tree ids (trees.h): BPF marks a process's slot with its
 * trees, and the totals keep each process's, so an id comes back only once
 * neither holds its last user's processes.
 */
#include <errno.h>
#include <string.h>
#include "engine/trees.h"
#include "common/procfs.h"
#include "common/log.h"

bool trees__has(const struct trees *t, int tree, int max)
{
	return tree >= 0 && tree < max && (t->used & (1ULL << tree));
}

int trees__free_id(const struct trees *t, int max, __u64 seq, bool *waiting)
{
	*waiting = false;
	for (int i = 0; i < max; i++) {
		if (t->used & (1ULL << i))
			continue;
		if (seq >= t->clean_seq[i])
			return i;
		*waiting = true;
	}
	return -1;
}

int trees__take(struct trees *t, int tree, pid_t pid, struct aggregate *agg,
		struct session *sess)
{
	size_t sz = sizeof(struct agg_entry);
	int err;

	memset(agg->tree[tree], 0, sz);
	memset(agg->ovf_tree[tree], 0, sz);
	err = session__tree_add(sess, pid, tree);
	if (err)
		return err;
	t->used |= 1ULL << tree;
	t->root[tree] = pid;
	/* stopped before its exec by its parent, the client: there */
	if (procfs__start_ticks(pid, &t->root_ticks[tree]))
		t->root_ticks[tree] = 0;	/* gone already: never marked */
	return 0;
}

/*
 * The command ran between its fork and its being added to the tree map
 * (waiting for the go to exec): the slot BPF gave it then, used for the
 * rest of that read, says no tree. So its entries are marked here, by
 * its pid and its start: once it exits and is reaped, a later process
 * given its pid (another user's, perhaps) is not the tree's.
 */
void trees__mark_roots(const struct trees *t, int max, struct session_read *rd)
{
	/* the trees in use (few) outside, the read's processes inside */
	for (int i = 0; t->used && i < max; i++) {
		if (!(t->used & (1ULL << i)) || !t->root_ticks[i])
			continue;
		for (size_t k = 0; k < rd->nr_proc; k++)
			if (rd->proc[k].tgid == t->root[i] &&
			    procfs__is(t->root_ticks[i], rd->proc[k].start))
				rd->proc[k].trees |= 1ULL << i;
	}
}

void trees__release(struct trees *t, int tree, int max, __u64 seq,
		    struct aggregate *agg, struct session *sess)
{
	struct idmap_slot *s;
	size_t it = 0;
	int err;

	if (!trees__has(t, tree, max))
		return;
	t->used &= ~(1ULL << tree);
	t->root[tree] = 0;
	/*
	 * BPF marks a process's slot with its trees when the slot is taken,
	 * at its first slice of the interval: the slots taken so far in the
	 * buffer being written keep this tree's bit until the next read
	 * empties that buffer. A new user of the id before then would get
	 * this user's processes' slices of that read.
	 */
	t->clean_seq[tree] = seq + 1;
	err = session__tree_release(sess, tree);
	if (err)
		pr_warn("releasing command tree %d: %s", tree, strerror(-err));
	/* its next user starts with none of these processes */
	while ((s = idmap__next(&agg->procs, &it)))
		((struct agg_entry *)s->val)->trees &= ~(1ULL << tree);
}
