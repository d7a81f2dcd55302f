/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * /proc/PID/stat: "pid (comm) state ppid pgrp ... starttime ...". The
 * name may hold anything, spaces and ')' too, so the fields after it are
 * read from past the line's last ')'.
 */
#ifndef COMMON_PROCFS_H
#define COMMON_PROCFS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * pid's stat line, read whole into buf (len bytes, NUL-terminated): its
 * last ')', which the fields from state on follow, or NULL when the
 * process is gone or the line cannot be read.
 */
char *procfs__stat(pid_t pid, char *buf, size_t len);

/*
 * The owner of /proc/PID (the kernel makes it the process's euid while it
 * is dumpable, root when not) if pid is still the process that started
 * at start: the low 32 bits of its CLOCK_MONOTONIC start in ns (the
 * kernel's start_time of its leader, what BPF keys processes with). 0 and
 * *uid; -ESRCH when it is gone; -ESTALE when pid is another process's now
 * (a reused pid: the owner of that one is never given to this one).
 */
int procfs__owner(pid_t pid, __u32 start, uid_t *uid);

/*
 * Can a process whose stat line says it started at ticks (its field 22,
 * CLOCK_BOOTTIME in clock ticks of hz a second) be the one that started
 * at start (as above), with CLOCK_BOOTTIME boot_off ns ahead of
 * CLOCK_MONOTONIC? A tick is 10 ms, so one in about 350 other processes
 * matches by chance, and only when started within the same tick modulo
 * 2^32 ns (4.3 s). A suspend since the process started (boot_off grew)
 * makes it fail: no owner rather than a wrong one.
 */
bool procfs__same_start(unsigned long long ticks, long hz, __u64 boot_off,
			__u32 start);
/* pid's start (its stat line's field 22, ticks of CLOCK_BOOTTIME): 0, or
 * -ESRCH when it is gone. */
int procfs__start_ticks(pid_t pid, unsigned long long *ticks);
/* procfs__same_start() with this host's hz and clocks now. */
bool procfs__is(unsigned long long ticks, __u32 start);

#endif
