/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * /proc/PID/stat: "pid (comm) state ppid pgrp ... starttime ...". The
 * name may hold anything, spaces and ')' too, so the fields after it are
 * read from past the line's last ')'.
 */
#ifndef COMMON_PROCFS_H
#define COMMON_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * pid's stat line, read whole into buf (len bytes, NUL-terminated): its
 * last ')', which the fields from state on follow, or NULL when the
 * process is gone or the line cannot be read.
 */
char *procfs__stat(pid_t pid, char *buf, size_t len);

#endif
