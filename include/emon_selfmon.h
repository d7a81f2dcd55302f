/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ABI of thread self-monitoring between bpf/selfmon.bpf.h, the daemon
 * (daemon/threads.c) and libemon (libemon/selfmon.c): one slot per
 * registered thread in an mmap'able BPF array of its uid's (one of
 * self_arrays), written by BPF at the thread's switches, read by the
 * thread itself with no syscall. Fixed-width types only; no libc, no
 * vmlinux.h.
 *
 * A slot is written under a sequence count: BPF makes seq odd, writes,
 * makes it even again (both with atomic adds, which every BPF JIT emits
 * as full barriers). A reader reads seq (acquire), the fields, then seq
 * again after an acquire fence, and starts over when seq was odd or
 * changed: it never sees a torn slot.
 */
#ifndef EMON_SELFMON_H
#define EMON_SELFMON_H

#include "emon.h"

/* slot.state, written by the daemon only (BPF only reads it) */
enum emon_self_state {
	EMON_SELF_FREE = 0,	/* no thread */
	EMON_SELF_LIVE = 1,	/* a registered thread's */
	EMON_SELF_GONE = 2,	/* the daemon stopped: counts are final */
};

#define EMON_SELF_SLOT_SIZE 256
/*
 * Events a slot holds: the first EMON_SELF_MAX_EVENTS of the daemon's (a
 * daemon counting more refuses --threads), so a slot keeps its 256 bytes
 * however many events the counting side allows.
 */
#define EMON_SELF_MAX_EVENTS 8

struct emon_self_slot {
	__u32 seq;		/* odd while BPF writes */
	__u32 state;		/* enum emon_self_state */
	__u32 tid;		/* the thread's, in the daemon's pid namespace */
	__u32 cpu;		/* where the running slice runs */
	__u64 gen;		/* registrations so far when it was handed out */
	/*
	 * CLOCK_MONOTONIC ns at the running slice's start (the switch in);
	 * 0: the thread is not running, or has not run since it registered.
	 */
	__u64 start_ns;
	/* finished slices: time events in ns from switch timestamps, the
	 * others as the per-CPU counters moved during them */
	__u64 total[EMON_SELF_MAX_EVENTS];
	/* counter values at the running slice's start */
	__u64 start[EMON_SELF_MAX_EVENTS];
	/*
	 * rdpmc (hardware events): the raw counter value at the slice's
	 * start, and the rdpmc index + 1 of the per-CPU event on slot.cpu
	 * (as perf_event_mmap_page.index; 0: not usable, the value is as of
	 * the last switch). The width is the grant's.
	 */
	__u64 pmc_start[EMON_SELF_MAX_EVENTS];
	__u32 pmc_idx[EMON_SELF_MAX_EVENTS];
};

/*
 * self_task's value: a thread's slot, and the slot's gen when it was
 * handed to the thread. A thread that exits is switched out one last
 * time after the daemon may have seen it go (its pidfd is notified
 * before) and given its slot to another: the gen tells that switch the
 * slot is no longer its own.
 */
struct emon_self_ref {
	__u32 slot;		/* entry of the array */
	__u32 array;		/* key of self_arrays: one uid's slot array */
	__u64 gen;
};

/*
 * Registration (docs/protocol.md, EMON_MSG_SELF_REQ and EMON_MSG_SELF):
 * the daemon's answer, which carries an fd of the caller's uid's slot
 * array (SCM_RIGHTS), frozen: it maps for reading only.
 */
struct emon_self_req {
	__u32 tid;		/* a thread of the caller's process */
	__u32 flags;		/* 0 */
};

struct emon_self_grant {
	__u32 slot;		/* index in the array sent */
	__u32 nr_slots;		/* its entries (--max-threads-per-uid) */
	__u32 slot_size;	/* bytes per entry in the mmap */
	__u32 nr_events;	/* counts per slot: the counted events */
	__u64 gen;		/* slot.gen of this registration */
	__u32 time_mask;	/* events (bit i) counted from timestamps */
	/* events (bit i) that cannot move while the thread runs without a
	 * switch (context-switches): their value as of the last switch is
	 * exact too */
	__u32 switch_mask;
	__u32 pmc_width;	/* bits of a hardware counter, for rdpmc */
	__u32 pad;
};

#endif /* EMON_SELFMON_H */
