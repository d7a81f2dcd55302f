/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * perf stat's hint at the end of a run in which a hardware event was
 * multiplexed or not counted while the NMI watchdog holds a counter
 * (tools/perf/util/stat-display.c, print_footer()).
 */
#ifndef CLI_STAT_HINT_H
#define CLI_STAT_HINT_H

#include <stdbool.h>
#include <stdio.h>
#include "front/output.h"

#define NMI_WATCHDOG_PATH "/proc/sys/kernel/nmi_watchdog"

/* Did an event of rows run part of its enabled time, or none of it? Only
 * events read with their times (hardware ones) can. */
bool rows__undercounted(const struct output *o, const struct row *rows, int n);
/* Does the sysctl at path say the NMI watchdog is on? false if unreadable. */
bool nmi_watchdog__on(const char *path);
/* The hint, once a run, where it stays out of JSON and -x data: stderr,
 * unless the data goes there in a format other than text. */
void stat_hint__print(FILE *f, const struct output *o);

#endif
