// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
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

/* The slack either side of a tick: the offset's two clock reads. */
#define START_SLACK_NS 1000000ULL

bool procfs__same_start(unsigned long long ticks, long hz, __u64 boot_off,
			__u32 start)
{
	__u64 tick_ns = 1000000000ULL / (__u64)(hz > 0 ? hz : 100);
	/* the earliest CLOCK_MONOTONIC start in that tick, less the slack */
	__u64 lo = ticks * tick_ns - boot_off - START_SLACK_NS;

	return (__u32)(start - (__u32)lo) < tick_ns + 2 * START_SLACK_NS;
}

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int procfs__start_ticks(pid_t pid, unsigned long long *ticks)
{
	char buf[1024], *p = procfs__stat(pid, buf, sizeof(buf));

	/* past ") ": field 3 (state) is the first, 22 (starttime) the 20th */
	for (int i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p, " %llu", ticks) == 1 ? 0 : -ESRCH;
}

bool procfs__is(unsigned long long ticks, __u32 start)
{
	__u64 boot_off = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);

	return procfs__same_start(ticks, sysconf(_SC_CLK_TCK), boot_off, start);
}

int procfs__owner(pid_t pid, __u32 start, uid_t *uid)
{
	unsigned long long ticks;
	char path[32], buf[1024], *p;
	__u64 boot_off;
	struct stat st;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	/* the file's owner is the directory's; fd holds that one process */
	if (fstat(fd, &st)) {
		close(fd);
		return -ESRCH;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* past ") ": field 3 (state) is the first, 22 (starttime) the 20th */
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &ticks) != 1)
		return -ESRCH;
	boot_off = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);
	if (!procfs__same_start(ticks, sysconf(_SC_CLK_TCK), boot_off, start))
		return -ESTALE;
	*uid = st.st_uid;
	return 0;
}
