/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one place where an error becomes an exit status (common/log.h says
 * the convention): library code returns 0 or -errno and has logged the
 * line that names the culprit; a command turns that -errno into its exit
 * status here, and prints its own errors through cli__fail(). A helper
 * of a command that returns an exit status takes it from here too; the
 * statuses that are not errors stay the command's: 0 after --help, 1
 * from check for a failed check, 128 + a signal, stat's command's own.
 */
#ifndef FRONT_ERRORS_H
#define FRONT_ERRORS_H

/* 0 for 0; 2 for what the user can fix in the command line or its
 * input (a bad or missing event, cgroup, path, option value, server, no
 * privileges); 1 for a failure at run time (memory, I/O, the kernel). */
int cli__exit_status(int err);
/* An option parser's result (opts__parse's: 0, 1 after --help printed
 * the usage, -errno after its one line) as the exit status: 0, 0, or
 * cli__exit_status(). */
int cli__parse_status(int ret);
/* The one-line message "emon-perf: ..." and cli__exit_status(err). */
int cli__fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
