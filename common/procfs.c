// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common/procfs.h"

char *procfs__stat(pid_t pid, char *buf, size_t len)
{
	char path[32];
	ssize_t n;
	int fd;

	if (len < 2)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strrchr(buf, ')');
}
