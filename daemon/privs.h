/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Least privilege for the daemon: once it has loaded and attached its
 * programs, opened its events and files and bound its sockets, it keeps
 * only the capabilities its runtime needs, in every thread
 * (docs/capabilities.md). Capabilities, the bounding set and
 * no_new_privs are per thread: the drop comes before any thread starts,
 * and privs__check_tasks() proves it afterwards.
 */
#ifndef DAEMON_PRIVS_H
#define DAEMON_PRIVS_H

#include <linux/types.h>
#include <stddef.h>
#include <sys/types.h>

#define PRIVS_CAP_SYS_ADMIN 21
#define PRIVS_CAP_PERFMON 38
#define PRIVS_CAP_BPF 39

/*
 * What the daemon keeps after set-up: CAP_PERFMON, to open new per-CPU
 * events when a CPU comes back online (perf_event_open with pid -1).
 * Its flushes (BPF_PROG_TEST_RUN), map reads and updates and the mmap'ed
 * arrays work on the fds it holds, with no capability (measured on 6.18:
 * docs/capabilities.md).
 */
#define PRIVS_RUNTIME (1ULL << PRIVS_CAP_PERFMON)

/* serve --user: who the daemon becomes after set-up. */
struct privs_user {
	uid_t uid;
	gid_t gid;		/* the user's primary group */
	gid_t extra;		/* --socket-group's, (gid_t)-1: none */
};

/* name's uid and primary group into u (extra untouched); a number with
 * no passwd entry is a uid and a gid. 0, or -ENOENT for no such user. */
int privs__user(const char *name, struct privs_user *u);

/*
 * Keep only keep (a mask of capability numbers) in the permitted and
 * effective sets, clear the inheritable and ambient sets, drop the rest
 * of the bounding set where CAP_SETPCAP allows it, become u (NULL: the
 * uid stays; its groups: the primary and u->extra only) and set
 * no_new_privs, in the calling thread: call it before any other thread
 * exists. 0 or -errno (any failure: the caller must not go on).
 */
int privs__drop(__u64 keep, const struct privs_user *u);
/* The effective set now. 0 or -errno. */
int privs__effective(__u64 *eff);
/* The calling thread's bounding set. */
__u64 privs__bounding(void);

/*
 * One task's /proc status text against what it may hold: inheritable,
 * permitted, effective and ambient within keep, bounding within bnd,
 * no_new_privs set. 0, or -EPERM with what it holds beyond them in why;
 * -EINVAL when a field is missing.
 */
int privs__task_excess(const char *status, __u64 keep, __u64 bnd,
		       char *why, size_t len);
/* Every task of this process (/proc/self/task/TID/status) against the
 * same: 0, or -EPERM with "thread TID (NAME): ..." in why, or -errno. */
int privs__check_tasks(__u64 keep, __u64 bnd, char *why, size_t len);

/* "cap_bpf,cap_perfmon" (numbers for caps it has no name for). */
void privs__format(__u64 mask, char *buf, size_t len);

#endif
