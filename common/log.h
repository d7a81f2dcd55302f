/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Messages on stderr, one line each, "emon-perf: ..." (common/log.c). */
#ifndef COMMON_LOG_H
#define COMMON_LOG_H

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int verbose;
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
