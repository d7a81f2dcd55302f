// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The client end of the daemon's UNIX socket (proto/sock.h): connect,
 * and read a message's bytes with a timeout, keeping the fd the daemon
 * sends with a grant. Compiled into libemon and into the core library
 * (Makefile: LIB_SRCS), so that libemon links with nothing of the engine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "proto/sock.h"

int emon_sock__connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sock;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -errno;
	if (connect(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(sock);
		return err;
	}
	return sock;
}

/* The fds that came with a part: the first into *fd if asked for. */
static void sock__take_fds(struct msghdr *mh, int *fd)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		if (fd && *fd < 0)
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
		else	/* not asked for: not kept */
			close(*(int *)CMSG_DATA(cm));
	}
}

static long long sock__ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int emon_sock__recv(int sock, void *buf, size_t len, int timeout_ms, int *fd)
{
	long long end = sock__ms() + timeout_ms;
	char *p = buf;

	while (len) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { p, len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		long long left = end - sock__ms();
		int r = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -ETIMEDOUT;
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		sock__take_fds(&mh, fd);
		p += n;
		len -= n;
	}
	return 0;
}
