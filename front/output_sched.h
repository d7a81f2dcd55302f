/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The scheduler view (--sched) as the text output shows it: runqlat's log2
 * histogram (the fields' table is engine/sched_fields.h).
 */
#ifndef FRONT_OUTPUT_SCHED_H
#define FRONT_OUTPUT_SCHED_H

#include <stdbool.h>
#include <stdio.h>
#include "engine/sched_fields.h"

/* The histogram as runqlat prints it ("usecs"/"msecs"), each line led by
 * indent; nothing when it is empty. */
void sched_hist__print(FILE *f, const struct emon_sched *s, bool ms,
		       const char *indent);

#endif
