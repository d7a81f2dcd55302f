/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* emon-perf list's parts beside its events (pmu/list.c) and metrics. */
#ifndef CLI_LIST_LIST_H
#define CLI_LIST_LIST_H

#include <stdio.h>

/* list energy's GPUs: those NVML finds (lib: its path, NULL: the default). */
int list__gpus(FILE *out, const char *lib);

#endif
