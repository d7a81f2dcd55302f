/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Messages on stderr, one line each, "emon-perf: ..." (common/log.c).
 *
 * The error convention: library code (common, pmu, rapl, libemon, engine, daemon)
 * returns 0 or -errno, never an exit status, and prints no message but
 * through this log. Where a user must learn the culprit (an event, a cgroup, a
 * path, an option), the function at the library's edge that knows it
 * logs one line with pr_err() and returns -errno; helpers below it that
 * lack the context fill a char err[] for that caller to log. The caller
 * in cli/ adds no second line: cli__exit_status() (front/errors.c) turns
 * the -errno into the exit status, 2 for bad input, permissions or a
 * missing thing, 1 for the rest; a command's own errors go through
 * cli__fail(), which does both.
 */
#ifndef COMMON_LOG_H
#define COMMON_LOG_H

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* what the user should know although nothing went wrong (which daemon
 * counts), always said */
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int verbose;
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
