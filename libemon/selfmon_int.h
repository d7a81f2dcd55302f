/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libemon's handle, shared by selfmon.c (open, close) and read.c. */
#ifndef LIBEMON_SELFMON_INT_H
#define LIBEMON_SELFMON_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "emon_proto.h"
#include "emon/selfmon.h"

struct emon_self {
	const struct emon_self_slot *slot;	/* in map */
	void *map;
	size_t map_len;
	__u64 gen;
	int nr;				/* events */
	__u32 time_mask, switch_mask;
	__u32 pmc_width;
	bool rdpmc;			/* user rdpmc allowed here */
	pthread_t owner;
	__u64 base[EMON_MAX_EVENTS];	/* at open: reads are since then */
	char name[EMON_MAX_EVENTS][EMON_PROTO_NAME_LEN];
};

/*
 * The slot's counts now (no baseline taken off), running slice included
 * where it can be: 0, -ESHUTDOWN (the daemon stopped) or -ESTALE (the
 * slot is no longer this registration's).
 */
int emon__self_raw(const struct emon_self *s, __u64 *v);
/* Whether this machine lets user space use rdpmc for every process. */
bool emon__rdpmc_allowed(void);

#endif
