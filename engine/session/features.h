/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the running kernel has of what the BPF object uses beyond the
 * minimum (docs/requirements.md): probed once, before the object loads,
 * from the kernel's BTF and libbpf's probes. The session takes the faster
 * path where a feature is there and its fallback where not; check prints
 * the table row by row and -v says which path runs.
 */
#ifndef ENGINE_SESSION_FEATURES_H
#define ENGINE_SESSION_FEATURES_H

#include <stdbool.h>

enum kfeature_id {
	/* needed: without one of these nothing loads */
	KF_BTF,			/* /sys/kernel/btf/vmlinux (5.4) */
	KF_TP_BTF,		/* tp_btf/sched_switch (5.5) */
	KF_TASK_STORAGE,	/* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	KF_CURRENT_TASK_BTF,	/* bpf_get_current_task_btf() (5.11) */
	KF_READ_VALUE,		/* bpf_perf_event_read_value() (4.15) */
	KF_TEST_RUN_ON_CPU,	/* raw_tp test-run on a chosen CPU (5.10) */
	KF_NR_NEEDED,
	/* optional: a slower or narrower path without them */
	KF_RDONLY_CAST = KF_NR_NEEDED,	/* bpf_rdonly_cast() kfunc (6.2) */
	KF_PIDFD_THREAD,	/* pidfds of threads (6.9): serve --threads */
	KF_EXIT_GROUP_DEAD,	/* sched_process_exit's group_dead (6.16) */
	KF_NR,
};

struct kfeature {
	const char *name;	/* check's row */
	const char *since;	/* the first kernel version with it */
	const char *uses;	/* what emon-perf does with it */
	const char *without;	/* what happens without it */
	bool have;
	bool unknown;		/* the probe itself failed (not root?) */
	int err;		/* with unknown: its -errno */
};

/* The table, probed on first use (thread-unsafe: call it before threads). */
const struct kfeature *kfeatures__get(void);
bool kfeature__have(enum kfeature_id id);
/* The first needed feature missing, or -1: "needs NAME (Linux SINCE)". */
int kfeatures__missing(void);

#endif /* ENGINE_SESSION_FEATURES_H */
