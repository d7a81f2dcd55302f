// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf's counting engine: one perf_event per CPU per metric, shared by
 * every dimension, read on each context switch.
 *
 * sched_switch runs in the outgoing task's context (current == prev until
 * context_switch()), so for every metric it reads this CPU's event with
 * bpf_perf_event_read_value(), takes the delta from this CPU's previous
 * reading and adds it to three places: the CPU, the outgoing task's cgroup
 * (v2 id) and its process (tgid). Cost per switch is O(metrics), whatever
 * the number of cgroups or processes watched: they are rolled up in
 * userspace once per interval. What the switch itself shows needs no
 * perf_event: time (cpu-clock, task-clock) from the switch's timestamps,
 * the switches, the CPU a task comes in on (switch_delta()); software events
 * are loaded where the kernel counts them (counter_in_place()).
 *
 * tp_btf programs cannot be test-run, so the same body is also an unattached
 * raw_tp program ("flush") that userspace runs on every CPU with
 * BPF_PROG_TEST_RUN + BPF_F_TEST_RUN_ON_CPU before each read: the slice of
 * whatever runs there since its last switch is then counted at the interval
 * edge instead of leaking into the next interval.
 *
 * Keys are (id, cpu), so only their own CPU writes a key's counts and
 * plain adds suffice: sched_switch runs with interrupts off, the flush either
 * in an IPI or with preemption off, so the two never interleave on one CPU.
 * Counts live in slots of mmap'able arrays (emon.h); an LRU hash maps a key
 * to its slot, behind a small per-CPU cache of the slots of the keys the
 * CPU saw last (struct slot_cache). A key's first slice in an interval
 * takes the next free slot (one atomic add, the only shared write); when
 * none is left the slice goes to a per-CPU overflow row instead, so
 * nothing is dropped.
 *
 * Every array of counts exists twice (two buffers); each CPU writes the one
 * its epoch's parity names. Userspace ends an interval by bumping epoch and
 * flushing every CPU: the flush counts the CPU's last slice into the old
 * buffer and moves the CPU to the new one. The flush IPI cannot run until
 * any accounting in flight on that CPU (interrupts off) has finished, so
 * once every CPU has been flushed the old buffer is quiescent: userspace
 * reads its used slots from memory and zeroes them. All scopes of an
 * interval thus come from the same slices (cpu, cgroup and process rows
 * add up exactly), and a buffer only ever holds one interval's keys:
 * processes and cgroups that are gone disappear by themselves.
 *
 * The parts, each a header that includes what it needs: state.bpf.h (the
 * configuration, the maps and per-CPU state every part shares),
 * trees.bpf.h (command trees), slots.bpf.h (a key's slot), account.bpf.h
 * (counting a slice), switch_events.bpf.h (events counted from the switch
 * itself), sched.bpf.h (the scheduler view), selfmon.bpf.h (thread
 * self-monitoring). This file holds the programs: one object, so that the
 * switch does the accounting, the scheduler view and the threads' slots
 * in one pass.
 */
#include "state.bpf.h"
#include "trees.bpf.h"
#include "slots.bpf.h"
#include "account.bpf.h"
#include "switch_events.bpf.h"
#include "sched.bpf.h"
#include "selfmon.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev_task,
	     struct task_struct *next)
{
	__u32 z = 0;
	struct emon_prev *p = bpf_map_lookup_elem(&prev, &z);

	if (!p || cfg.steps == EMON_STEP_NONE)
		return 0;
	epoch_catch_up(p);
	/* first: its clock reads stay clear of the counter reads' time */
	sched_switch(p, ctx);
	account(p, prev_task, false, true);
	selfmon__switch(p, prev_task, next);
	/* CFS picked next: its exec_start is now, in the task clock */
	set_running(p, next, fair(next) ? next->se.exec_start : 0);
	if (cfg.from_migrations)
		p->migr = migrated_in(next);
	return 0;
}

SEC("raw_tp")
int flush(void *ctx)
{
	__u32 z = 0;
	struct emon_prev *p = bpf_map_lookup_elem(&prev, &z);

	if (!p)
		return 0;
	epoch_catch_up(p);
	sched_flush(p);		/* into the buffer this flush ends */
	account(p, bpf_get_current_task_btf(), true, false);
	/* a task moved while it ran elsewhere counts in its new cgroup from here */
	set_running(p, bpf_get_current_task_btf(), 0);
	return 0;
}

/*
 * A task moved to another cgroup (cgroup.procs or cgroup.threads). Its
 * slice so far belongs to the cgroup it left: when the running task here
 * is the one that moved (a process writing its own pid, as cgexec and
 * `echo $$ > cgroup.procs` do), count the slice now, then go on in the new
 * cgroup. The writer usually sleeps before the move (the threadgroup
 * rwsem's RCU sync), which ends its slice anyway, but not when another
 * writer is already in that sync, nor on kernels that favour dynamic
 * cgroup changes. The tracepoint fires after the move with a spinlock held
 * and interrupts off, so no switch can come in between. A task moved while
 * it runs on another CPU is counted in its old cgroup until it is switched
 * out or that CPU is flushed (at most one read period).
 */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(on_attach, struct cgroup *dst, const char *path,
	     struct task_struct *task, bool threadgroup)
{
	__u32 z = 0;
	struct emon_prev *p = bpf_map_lookup_elem(&prev, &z);

	/* not us (the writer did not move), or a v1 hierarchy */
	if (!p || p->cgid == bpf_get_current_cgroup_id())
		return 0;
	epoch_catch_up(p);
	sched_attach(p);
	account(p, bpf_get_current_task_btf(), false, false);
	set_running(p, bpf_get_current_task_btf(), 0);
	return 0;
}

/* Follow the command trees through forks: a child is in its parent's. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	/* a new process: child is its group leader */
	struct emon_tree_val v = { .start = child->start_time };

	if (ptgid == ctgid)
		return 0;
	v.mask = in_trees(ptgid, parent, true);
	if (!v.mask)
		return 0;
	/*
	 * A hash map update can fail without the map being full: its
	 * bucket lock gives up on a deadlock it detects or a holder that
	 * does not let go in time (rqspinlock, 6.15+). Tried again, then
	 * counted: a child left out of its tree is said, never silent.
	 */
	for (int i = 0; i < 3; i++)
		if (!bpf_map_update_elem(&tree, &ctgid, &v, BPF_ANY))
			return 0;
	stat_inc(EMON_STAT_TREE_LOST);
	return 0;
}

/*
 * A process exec'ed: rename its entry on this CPU (made now if it has none)
 * and mark the name as the newest, so this interval's row carries the name
 * it ends with, not its parent's. Runs in the task's context with migration
 * off but not preemption or interrupts: a sched_switch in between adds to
 * the same entry's counts, never to its header, and a flush in between
 * finds the header whole (slot_first_seen publishes it last).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid)
{
	struct emon_proc_hdr *h;
	struct emon_prev *pv;
	__u32 z = 0, par, ep, s;

	if (cfg.follow_tree) {	/* the command's own exec: see tree */
		__u32 tgid = p->tgid;
		struct emon_tree_val *v = bpf_map_lookup_elem(&tree, &tgid);

		if (v && !v->start)
			v->start = p->group_leader->start_time;
	}
	pv = bpf_map_lookup_elem(&prev, &z);
	if (!pv)
		return 0;
	ep = pv->ep;
	par = ep & 1;
	if (epoch - ep >= 2)	/* back from offline: the next count catches up */
		return 0;
	s = proc_get(pv, par, ep, bpf_get_smp_processor_id(), p->tgid,
		     proc_start(p), p, true);
	h = s == NO_SLOT ? NULL : proc_slot(par, s);
	/*
	 * A flush came in meanwhile (interrupts are on here): that buffer
	 * may be drained (its headers zeroed) and soon another key's. The
	 * next interval's first slice names the process anew.
	 */
	if (!h || *(volatile __u32 *)&pv->ep != ep || h->key.tgid != p->tgid)
		return 0;
	__builtin_memcpy(h->comm, p->group_leader->comm, EMON_COMM_LEN);
	h->flags |= EMON_PROC_EXEC;
	return 0;
}

/*
 * A process of a tree is gone for good (its task is freed after the whole
 * thread group was reaped), so its pid may now be given to a process that
 * is not the command's. Its entry only: the pid may be another process's
 * already. A command that never exec'd (start 0) keeps its entry until
 * its tree is released: it cannot be told from a process its pid had
 * before it.
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(on_free, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct emon_tree_val *v;

	if (p->pid != tgid)
		return 0;
	v = bpf_map_lookup_elem(&tree, &tgid);
	if (v && v->start && v->start == p->start_time)
		bpf_map_delete_elem(&tree, &tgid);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *t)
{
	sched_wake(t, false);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *t)
{
	sched_wake(t, true);
	return 0;
}

/* Only loaded where the tracepoint has group_dead (6.16+): see sched_exit(). */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *t, bool group_dead)
{
	sched_exit(t, group_dead);
	return 0;
}

/*
 * The daemon's writes to a thread's slot: the arrays are frozen (read-only
 * from user space, so no reader can write anyone's slot, its mmap
 * included), so the daemon test-runs this with args: array, slot, state,
 * gen, tid (see selfmon__ctl()).
 */
SEC("raw_tp")
int self_ctl(struct bpf_raw_tracepoint_args *ctx)
{
	return selfmon__ctl(ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3],
			    ctx->args[4]);
}
