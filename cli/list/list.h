/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* emon-perf list's parts beside its events (pmu/list.c) and metrics. */
#ifndef CLI_LIST_LIST_H
#define CLI_LIST_LIST_H

#include <stdio.h>

/* list energy: the GPUs NVML finds (lib: its path, NULL: the default). */
int list__energy(FILE *out, const char *lib);

#endif
