/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libemon: a thread reads its own counts from the host's emon-perf daemon
 * (emon-perf serve --threads N), with no syscall per read and no
 * perf_event of its own.
 *
 *	cc -Iinclude prog.c libemon.a -lpthread
 *
 * A struct emon_self belongs to the thread that opened it: only that
 * thread may read it. Reads are async-signal-safe and take no lock.
 */
#ifndef EMON_SELFMON_API_H
#define EMON_SELFMON_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EMON_SELF_DEFAULT_SOCKET "/run/emon-perf/emon.sock"

struct emon_self;

/*
 * Register the calling thread with the daemon at socket_path (NULL:
 * $EMON_PERF_SOCKET, else EMON_SELF_DEFAULT_SOCKET). NULL and errno on
 * failure: ENOENT/ECONNREFUSED no daemon there, EACCES not in its
 * --socket-group, EOPNOTSUPP the daemon runs without --threads, ENOSPC
 * all its slots are in use, EUSERS this user's threads hold their share
 * (serve --max-threads-per-uid), EPROTO it speaks another protocol
 * version.
 * A thread that opens again shares its slot (counts start anew for the
 * new handle); the slot is the daemon's again when the thread exits.
 */
struct emon_self *emon_self_open(const char *socket_path);

/* The daemon's counted events, in the order of emon_self_read(). */
int emon_self_nevents(const struct emon_self *s);
/* Event i's name ("cpu-clock", "context-switches", ...); NULL if out of range. */
const char *emon_self_event(const struct emon_self *s, int i);
/*
 * 1 when reads of event i are exact at the moment of the read: time
 * events (cpu-clock, task-clock: the running slice from CLOCK_MONOTONIC
 * through the vDSO), context-switches, and hardware events read with
 * rdpmc where the kernel lets user space use it; 0 when the value is as
 * of the thread's last switch in (the running slice is missing); -1 if
 * out of range.
 */
int emon_self_exact(const struct emon_self *s, int i);

/*
 * The calling thread's counts since emon_self_open(), the daemon's events
 * in order (time events in ns), into values[0..n-1]. Returns how many
 * were filled, or -errno: -ESHUTDOWN the daemon stopped (open again once
 * it is back), -EINVAL s is NULL, n < 0 or another thread's handle.
 */
int emon_self_read(struct emon_self *s, uint64_t *values, int n);

/* Unmap and free; the slot stays the thread's until it exits. */
void emon_self_close(struct emon_self *s);

#ifdef __cplusplus
}
#endif

#endif
