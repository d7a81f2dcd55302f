/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Least privilege for the daemon: once it has loaded and attached its
 * programs, opened its events and bound its sockets, it keeps only the
 * capabilities its runtime needs (docs/capabilities.md).
 */
#ifndef DAEMON_PRIVS_H
#define DAEMON_PRIVS_H

#include <linux/types.h>
#include <stddef.h>

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

/*
 * Keep only keep (a mask of capability numbers) in the permitted,
 * effective and inheritable sets, clear the ambient set, drop the rest of
 * the bounding set where CAP_SETPCAP allows it, and set no_new_privs. The
 * uid stays. 0 or -errno.
 */
int privs__drop(__u64 keep);
/* The effective set now. 0 or -errno. */
int privs__effective(__u64 *eff);
/* "cap_bpf,cap_perfmon" (numbers for caps it has no name for). */
void privs__format(__u64 mask, char *buf, size_t len);

#endif
