/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The version and the daemon's well-known places, for every layer. */
#ifndef COMMON_VERSION_H
#define COMMON_VERSION_H

/* The default socket is libemon's public one: applications compiled
 * against include/emon/selfmon.h alone must find the same daemon. */
#include "emon/selfmon.h"

#define EMON_VERSION "0.2.0"
#define EMON_DEFAULT_SOCKET EMON_SELF_DEFAULT_SOCKET
#define EMON_SOCKET_ENV "EMON_PERF_SOCKET"

#endif
