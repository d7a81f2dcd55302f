// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Small sysfs files: read whole, paths, strict decimals. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "rapl/files.h"

int rapl__read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	/* sysfs gives a small file whole in one read */
	n = read(fd, buf, len);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	if ((size_t)n >= len) {
		err = -EFBIG;
		goto out;
	}
	buf[n] = '\0';
out:
	if (fd >= 0)
		close(fd);
	return err;
}

int rapl__path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int rapl__parse_u64(const char *s, __u64 *v)
{
	__u64 x = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = *p - '0';

		if (x > (~0ULL - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*v = x;
	return 0;
}

int rapl__pread_u64(int fd, __u64 *v)
{
	char buf[32];
	ssize_t n;

	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(buf))
		return -EFBIG;
	buf[n] = '\0';
	return rapl__parse_u64(buf, v);
}

int rapl__read_u64(const char *path, __u64 *v)
{
	char buf[32];
	int err;

	err = rapl__read_str(path, buf, sizeof(buf));
	if (!err)
		err = rapl__parse_u64(buf, v);
	return err;
}
