/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * serve's seccomp allowlist, installed by the daemon itself after set-up
 * (every thread, SECCOMP_FILTER_FLAG_TSYNC), whoever starts it; `serve
 * --no-seccomp` leaves it off for debugging. A call off the list kills
 * the daemon (SECCOMP_RET_KILL_PROCESS: SIGSYS, and the kernel's audit
 * line naming the call), never an EPERM it might carry on past
 * (docs/security.md).
 */
#ifndef DAEMON_SECCOMP_H
#define DAEMON_SECCOMP_H

#include <stddef.h>

/* 0, or -errno with one line in err. */
int seccomp__install(char *err, size_t errlen);

#endif
