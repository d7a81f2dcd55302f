/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A key's slot in the count arrays (cgrp_data, proc_data) for the buffer
 * its CPU writes: from the CPU's slot cache, else from the key's ref in
 * cgrp_idx or proc_idx, else a new slot at the key's first slice in the
 * interval, with its header written before the slot is published. The
 * orders of stores here are what a flush IPI inside on_exec may come
 * between (see store_order()).
 */
#ifndef EMON_SLOTS_BPF_H
#define EMON_SLOTS_BPF_H

#include "state.bpf.h"
#include "trees.bpf.h"

#define NO_SLOT 0xffffffffu

/* A new slot in buffer par of kind, or NO_SLOT when it is full. */
static __always_inline __u32 slot_alloc(__u32 kind, __u32 par, __u32 max)
{
	__u32 i = EMON_USED(kind, par), *u, s;

	if (!index_below(i, 2 * EMON_KIND_NR))	/* constant kind */
		return NO_SLOT;
	u = &used[i];

	if (*u >= max)		/* full: no atomic op for every slice */
		return NO_SLOT;
	s = __sync_fetch_and_add(u, 1);
	return s < max ? s : NO_SLOT;
}

/*
 * The order of stores that a flush IPI may come between (on_exec runs
 * with interrupts on, on this CPU): the compiler must keep it.
 */
#define store_order() asm volatile("" ::: "memory")

/*
 * Remember key's slot in buffer par for epoch ep. The slot before the
 * epoch: a flush between the two finds an old epoch, not an old slot
 * under the new one.
 */
static __always_inline void slot_ref_set(void *idx_map, void *key,
					 struct emon_slot_ref *ref,
					 __u32 par, __u32 ep, __u32 s)
{
	struct emon_slot_ref n = { .ep = { NO_SLOT, NO_SLOT } };

	if (ref) {		/* only this CPU writes its keys' refs */
		ref->slot[par & 1] = s;
		store_order();
		ref->ep[par & 1] = ep;
		return;
	}
	if (par) {	/* constant offsets on the stack */
		n.slot[1] = s;
		n.ep[1] = ep;
	} else {
		n.slot[0] = s;
		n.ep[0] = ep;
	}
	bpf_map_update_elem(idx_map, key, &n, BPF_ANY);
}

static __always_inline void *cgrp_slot(__u32 par, __u32 s)
{
	__u32 k = par * cfg.max_cgroups + s;

	return bpf_map_lookup_elem(&cgrp_data, &k);
}

static __always_inline void *proc_slot(__u32 par, __u32 s)
{
	__u32 k = par * cfg.max_procs + s;

	return bpf_map_lookup_elem(&proc_data, &k);
}

static __always_inline void *thrd_slot(__u32 par, __u32 s)
{
	__u32 k = par * cfg.max_tids + s;

	return bpf_map_lookup_elem(&thrd_data, &k);
}

/*
 * A slot found or taken for a key: remember it in the CPU's cache. The
 * entry is emptied first and filled last: a flush between the stores
 * finds no entry, never this id with the last key's slot.
 */
static __always_inline __u32 slot_cached(struct slot_cache *c, __u64 id,
					 __u32 ep, __u32 s)
{
	if (s != NO_SLOT) {
		c->slot = 0;
		store_order();
		c->id = id;
		c->ep = ep;
		store_order();
		c->slot = s + 1;
	}
	return s;
}

/*
 * A process's header, at its first slice on this CPU in this interval.
 * Its name is taken here only, not on every switch: a later exec renames
 * the entry from on_exec.
 */
static __always_inline void proc_hdr_fill(struct emon_proc_hdr *h,
					  const struct emon_proc_key *k,
					  struct task_struct *task, bool cur)
{
	h->key = *k;
	if (cur)	/* direct BTF loads: no helper call */
		__builtin_memcpy(h->comm, task->group_leader->comm, EMON_COMM_LEN);
	else
		BPF_CORE_READ_STR_INTO(&h->comm, task, group_leader, comm);
	h->trees = in_trees(k->tgid, task, cur);
	h->flags = 0;	/* a late on_exec's write may have left one */
}

/*
 * A thread's (cfg.max_tids), the same way: its name is the thread's own
 * comm at its first slice in the interval (perf --per-thread's comm-tid).
 * task: current (direct loads), or one remembered (probe reads).
 */
static __always_inline void thrd_hdr_fill(struct emon_thrd_hdr *h,
					  const struct emon_thrd_key *k,
					  struct task_struct *task, bool cur)
{
	h->key = *k;
	if (cur) {
		h->tgid = task->tgid;
		__builtin_memcpy(h->comm, task->comm, EMON_COMM_LEN);
	} else {
		h->tgid = BPF_CORE_READ(task, tgid);
		BPF_CORE_READ_STR_INTO(&h->comm, task, comm);
	}
}

/*
 * Rare path: the first slice of a key (kind, a constant: one branch of
 * each choice is left) on this CPU in this interval: a new slot, its
 * header whole before the slot is published in the kind's idx map.
 * on_exec runs with interrupts on, and a flush IPI that lands between the
 * two finds the slot through proc_idx and counts the running slice there,
 * then userspace may drain it before on_exec goes on: a header not yet
 * written there loses that slice from the process's command tree.
 */
static __always_inline __u32 slot_first_seen(__u32 kind, __u32 par, __u32 ep,
					     void *k, struct emon_slot_ref *ref,
					     struct task_struct *task, bool cur)
{
	void *h, *idx;
	__u32 s;

	if (kind == EMON_KIND_CGRP) {
		s = slot_alloc(kind, par, cfg.max_cgroups);
		h = s == NO_SLOT ? NULL : cgrp_slot(par, s);
		idx = &cgrp_idx;
	} else if (kind == EMON_KIND_PROC) {
		s = slot_alloc(kind, par, cfg.max_procs);
		h = s == NO_SLOT ? NULL : proc_slot(par, s);
		idx = &proc_idx;
	} else {
		s = slot_alloc(kind, par, cfg.max_tids);
		h = s == NO_SLOT ? NULL : thrd_slot(par, s);
		idx = &thrd_idx;
	}
	if (!h)
		return NO_SLOT;
	if (kind == EMON_KIND_CGRP)
		((struct emon_cgrp_hdr *)h)->key = *(struct emon_cgrp_key *)k;
	else if (kind == EMON_KIND_PROC)
		proc_hdr_fill(h, k, task, cur);
	else
		thrd_hdr_fill(h, k, task, cur);
	slot_ref_set(idx, k, ref, par, ep, s);
	return s;
}

/*
 * How many levels up a cgroup's ancestry is recorded: a cgroup removed
 * before userspace saw its path still rolls up through parents that never
 * ran anything themselves (a pod's slice between a container and -G).
 */
#define CGRP_ANCESTORS 8

/* Rare path: the first slice of a cgroup on this CPU in this interval. */
static __always_inline __u32 cgrp_first_seen(__u32 par, __u32 ep,
					     struct emon_cgrp_key *k,
					     struct emon_slot_ref *ref,
					     struct task_struct *task)
{
	struct cgroup *cg = BPF_CORE_READ(task, cgroups, dfl_cgrp);
	struct emon_cgrp_info *info;
	__u64 id = k->cgid;
	__u32 z = 0;

	/* record id -> parent up the tree, until an ancestor already is */
	info = bpf_map_lookup_elem(&cgrp_scratch, &z);
	for (int i = 0; info && i < CGRP_ANCESTORS && cg; i++) {
		/* self is a struct cgroup's first member */
		struct cgroup *pcg = (struct cgroup *)BPF_CORE_READ(cg, self.parent);

		if (bpf_map_lookup_elem(&cgrp_parent, &id))
			break;
		info->parent = pcg ? BPF_CORE_READ(pcg, kn, id) : 0;
		if (bpf_probe_read_kernel_str(info->name, sizeof(info->name),
					      BPF_CORE_READ(cg, kn, name)) < 0)
			info->name[0] = '\0';
		bpf_map_update_elem(&cgrp_parent, &id, info, BPF_NOEXIST);
		if (!pcg)
			break;
		cg = pcg;
		id = info->parent;
	}

	return slot_first_seen(EMON_KIND_CGRP, par, ep, k, ref, task, false);
}

/*
 * A key's slot in buffer par (the CPU's epoch ep): from the CPU's cache,
 * else from idx_map (cgrp_idx, proc_idx), remembered in the cache then.
 * NO_SLOT when it has none yet; *ref is then its idx_map entry, if any.
 */
static __always_inline __u32 slot_find(struct slot_cache *c, __u64 id,
				       void *idx_map, void *key, __u32 par,
				       __u32 ep, struct emon_slot_ref **ref)
{
	*ref = NULL;
	if (c->id == id && c->ep == ep && c->slot)
		return c->slot - 1;
	*ref = bpf_map_lookup_elem(idx_map, key);
	if (*ref && (*ref)->ep[par & 1] == ep)
		return slot_cached(c, id, ep, (*ref)->slot[par & 1]);
	return NO_SLOT;
}

/*
 * The slot of cgroup cgid on this CPU in buffer par, a new one at its
 * first slice. NO_SLOT: the buffer is full.
 */
static __always_inline __u32 cgrp_get(struct emon_prev *p, __u32 par, __u32 ep,
				      __u32 cpu, __u64 cgid,
				      struct task_struct *task)
{
	struct slot_cache *c = &p->cgrp_cache[cgid & (SLOT_CACHE - 1)];
	struct emon_cgrp_key k = { .cgid = cgid, .cpu = cpu };
	struct emon_slot_ref *ref;
	__u32 s = slot_find(c, cgid, &cgrp_idx, &k, par, ep, &ref);

	if (s != NO_SLOT)
		return s;
	return slot_cached(c, cgid, ep, cgrp_first_seen(par, ep, &k, ref, task));
}

/* The same for the process (tgid, start); task: see in_trees(). */
static __always_inline __u32 proc_get(struct emon_prev *p, __u32 par, __u32 ep,
				      __u32 cpu, __u32 tgid, __u32 start,
				      struct task_struct *task, bool cur)
{
	struct slot_cache *c = &p->proc_cache[tgid & (SLOT_CACHE - 1)];
	struct emon_proc_key k = { .tgid = tgid, .cpu = cpu, .start = start };
	__u64 id = (__u64)tgid << 32 | start;
	struct emon_slot_ref *ref;
	__u32 s = slot_find(c, id, &proc_idx, &k, par, ep, &ref);

	if (s != NO_SLOT)
		return s;
	s = slot_first_seen(EMON_KIND_PROC, par, ep, &k, ref, task, cur);
	return slot_cached(c, id, ep, s);
}

/*
 * The slot found for a key holds that key's header: the cache and the ref
 * are per CPU and only written with the slot they name (in an order that
 * a flush inside on_exec cannot tear), so this never fails where it runs,
 * with interrupts off, in the current epoch. If it ever does, the slice
 * goes to a new slot of the key's own (the other key's counts stay
 * whole), and the count says so. A CPU going offline can still switch
 * after a flush round found it offline and userspace drained its buffer:
 * its slices there go to new slots of their own too, which the buffer's
 * next read takes, and that is not counted. Not in on_exec: a flush there
 * may leave it a drained buffer.
 */
static __always_inline void slot_key_wrong(__u32 ep)
{
	if (ep == epoch)
		stat_inc(EMON_STAT_SLOT_KEY);
}

static __always_inline struct emon_cgrp_hdr *
cgrp_slot_of(struct emon_prev *p, __u32 par, __u32 ep, __u32 cpu, __u64 cgid,
	     struct task_struct *task)
{
	__u32 s = cgrp_get(p, par, ep, cpu, cgid, task);
	struct emon_cgrp_hdr *h = s == NO_SLOT ? NULL : cgrp_slot(par, s);
	struct emon_cgrp_key k;

	if (!h || (h->key.cgid == cgid && h->key.cpu == cpu))
		return h;
	slot_key_wrong(ep);
	k = (struct emon_cgrp_key){ .cgid = cgid, .cpu = cpu };
	s = cgrp_first_seen(par, ep, &k, bpf_map_lookup_elem(&cgrp_idx, &k), task);
	s = slot_cached(&p->cgrp_cache[cgid & (SLOT_CACHE - 1)], cgid, ep, s);
	return s == NO_SLOT ? NULL : cgrp_slot(par, s);
}

static __always_inline struct emon_proc_hdr *
proc_slot_of(struct emon_prev *p, __u32 par, __u32 ep, __u32 cpu, __u32 tgid,
	     __u32 start, struct task_struct *task, bool cur)
{
	__u32 s = proc_get(p, par, ep, cpu, tgid, start, task, cur);
	struct emon_proc_hdr *h = s == NO_SLOT ? NULL : proc_slot(par, s);
	struct emon_proc_key k;

	if (!h || (h->key.tgid == tgid && h->key.start == start && h->key.cpu == cpu))
		return h;
	slot_key_wrong(ep);
	k = (struct emon_proc_key){ .tgid = tgid, .cpu = cpu, .start = start };
	s = slot_first_seen(EMON_KIND_PROC, par, ep, &k,
			    bpf_map_lookup_elem(&proc_idx, &k), task, cur);
	s = slot_cached(&p->proc_cache[tgid & (SLOT_CACHE - 1)],
			(__u64)tgid << 32 | start, ep, s);
	return s == NO_SLOT ? NULL : proc_slot(par, s);
}

static __always_inline struct emon_thrd_hdr *
thrd_slot_of(struct emon_prev *p, __u32 par, __u32 ep, __u32 cpu, __u32 tid,
	     struct task_struct *task, bool cur)
{
	__u32 start = cur ? task->start_time : BPF_CORE_READ(task, start_time);
	struct slot_cache *c = &p->thrd_cache[tid & (SLOT_CACHE - 1)];
	struct emon_thrd_key k = { .tid = tid, .cpu = cpu, .start = start };
	__u64 id = (__u64)tid << 32 | start;
	struct emon_slot_ref *ref;
	struct emon_thrd_hdr *h;
	__u32 s = slot_find(c, id, &thrd_idx, &k, par, ep, &ref);

	if (s == NO_SLOT)
		s = slot_cached(c, id, ep, slot_first_seen(EMON_KIND_THRD, par,
							   ep, &k, ref, task, cur));
	h = s == NO_SLOT ? NULL : thrd_slot(par, s);
	if (!h || (h->key.tid == tid && h->key.start == start && h->key.cpu == cpu))
		return h;
	slot_key_wrong(ep);	/* see proc_slot_of() */
	s = slot_first_seen(EMON_KIND_THRD, par, ep, &k,
			    bpf_map_lookup_elem(&thrd_idx, &k), task, cur);
	s = slot_cached(c, id, ep, s);
	return s == NO_SLOT ? NULL : thrd_slot(par, s);
}

/* The task's cgroup v2 id: what bpf_get_current_cgroup_id() gives for it. */
static __always_inline __u64 task_cgid(struct task_struct *t)
{
	return t->cgroups->dfl_cgrp->kn->id;
}

#endif /* EMON_SLOTS_BPF_H */
