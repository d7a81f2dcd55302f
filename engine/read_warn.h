/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a read tells the user, once: maps that overflowed, a CPU whose
 * cpu-clock fell short. Called by engine.c only.
 */
#ifndef ENGINE_READ_WARN_H
#define ENGINE_READ_WARN_H

#include <stdbool.h>
#include "engine/session/session.h"

/* Zeroed: nothing said yet. */
struct read_check {
	__u64 ovf_warned[5];	/* cgroup map, process map, tree map, slot keys, thread map */
	bool short_last;	/* the last read found short_cpu short */
	int short_cpu;
	bool clock_warned;
};

/* The BPF side's counters of read rd: maps full, trees lost, bugs. */
void read_check__stats(struct read_check *c, const struct session_read *rd,
		       const struct session *sess);
/* Whether cpu-clock (event clock_idx, -1: none) counted all of rd's time. */
void read_check__clock(struct read_check *c, const struct session_read *rd,
		       int clock_idx, int ncpus);

#endif
