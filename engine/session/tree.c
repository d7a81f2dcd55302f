// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Command trees in the BPF tree map: a command's pid joins a tree before
 * it execs, BPF follows its forks; a tree's user leaving takes its bit off
 * live_trees and every process left, and its next user's first add takes
 * it off any a fork added meanwhile before it sets live_trees' bit again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/procfs.h"
#include "engine/session/session_int.h"

/*
 * Whether start (a task's start_time: CLOCK_MONOTONIC ns) is when process
 * pid started, to the clock tick /proc/PID/stat gives it in (boot time).
 */
static bool proc_started_at(__u32 pid, __u64 start)
{
	struct timespec mono, boot;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	__u64 at;

	if (hz <= 0 || procfs__start_ticks(pid, &ticks) ||
	    clock_gettime(CLOCK_MONOTONIC, &mono) || clock_gettime(CLOCK_BOOTTIME, &boot))
		return false;
	/* boot time = monotonic time + the time spent suspended */
	at = start + (__u64)(boot.tv_sec - mono.tv_sec) * 1000000000ULL +
	     (__u64)(boot.tv_nsec - mono.tv_nsec);
	at /= 1000000000ULL / (__u64)hz;
	return at + 1 >= ticks && at <= ticks + 1;
}

/*
 * Take tree's bit off every process: the processes a command left running
 * (daemons it started) would otherwise count for the next user of tree.
 */
static int tree_sweep(struct session *s, int tree)
{
	int fd = bpf_map__fd(s->skel->maps.tree), err = 0;
	__u32 key, next, *prev = NULL;
	struct emon_tree_val v;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) || !(v.mask & (1ULL << tree)))
			continue;
		v.mask &= ~(1ULL << tree);
		if (v.mask ? bpf_map_update_elem(fd, &key, &v, BPF_EXIST) :
			     bpf_map_delete_elem(fd, &key))
			err = err ?: -errno;
	}
	return err == -ENOENT ? 0 : err;
}

/* What BPF counts as the trees in use: s->trees. */
static void tree_live(struct session *s)
{
	__atomic_store_n(&s->skel->bss->live_trees, s->trees, __ATOMIC_SEQ_CST);
}

int session__tree_add(struct session *s, __u32 tgid, int tree)
{
	/*
	 * start 0: the command, stopped before its exec by whoever forked
	 * it, keeps its pid until they reap it; its exec fills in its start
	 * time. A command already in a tree (an emon-perf stat run inside a
	 * command that another one follows, both attached to one daemon)
	 * keeps its entry, its start time and trees, and joins this tree
	 * too; not an entry that its pid's earlier process left.
	 */
	struct emon_tree_val v = { 0 }, old;
	int fd = bpf_map__fd(s->skel->maps.tree), ofd;
	__u32 slot;

	if (tree < 0 || tree >= s->max_trees)
		return -EINVAL;
	/*
	 * A new user: no process of an earlier one keeps the bit (one
	 * forked while that user's sweep ran; BPF does not pass the bit on
	 * while it is off live_trees)
	 */
	if (!(s->trees & (1ULL << tree))) {
		int err = tree_sweep(s, tree);

		if (err)
			return err;
	}
	/* a tree starts with no overflow left from an earlier user */
	ofd = bpf_map__fd(s->skel->maps.tree_ovf);
	memset(s->pcpu_buf, 0, sizeof(struct emon_count) * s->nr_events * s->ncpus);
	for (int par = 0; par < 2; par++) {
		slot = par * EMON_MAX_TREES + tree;
		if (bpf_map_update_elem(ofd, &slot, s->pcpu_buf, BPF_ANY))
			return -errno;
	}
	if (!bpf_map_lookup_elem(fd, &tgid, &old) && old.start &&
	    proc_started_at(tgid, old.start))
		v = old;
	v.mask |= 1ULL << tree;
	if (bpf_map_update_elem(fd, &tgid, &v, BPF_ANY))
		return -errno;
	s->trees |= 1ULL << tree;
	tree_live(s);
	return 0;
}

/* A tree's user leaves: its processes are no longer the tree's. */
int session__tree_release(struct session *s, int tree)
{
	if (tree < 0 || tree >= s->max_trees)
		return -EINVAL;
	s->trees &= ~(1ULL << tree);
	tree_live(s);
	return tree_sweep(s, tree);
}
