/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Small sysfs files, for the energy sources and the topology (files.c). */
#ifndef RAPL_FILES_H
#define RAPL_FILES_H

#include <linux/types.h>
#include <stddef.h>

/* Whole small files. Return 0 or -errno (-EINVAL: garbage, -EFBIG:
 * longer than len - 1). */
int rapl__read_str(const char *path, char *buf, size_t len);
/* snprintf for paths: 0, or -ENAMETOOLONG when it did not fit. */
int rapl__path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rapl__read_u64(const char *path, __u64 *v);
/* The same from a file kept open, read again from its start (sysfs makes
 * the value afresh at offset 0). */
int rapl__pread_u64(int fd, __u64 *v);
/* Strict decimal of a sysfs file ("123\n"); 0, -EINVAL, -ERANGE. */
int rapl__parse_u64(const char *s, __u64 *v);

#endif /* RAPL_FILES_H */
