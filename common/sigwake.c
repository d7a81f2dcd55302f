// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A self-pipe for signals: see sigwake.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "common/sigwake.h"

struct sigwake sigwake = { .fd = -1 };
static int wake_fd = -1;	/* the pipe's write end */

static void sigwake__handler(int sig, siginfo_t *info, void *uc)
{
	int saved = errno;

	(void)uc;
	if (sig != SIGCHLD) {
		sigwake.last = sig;
		sigwake.by_kernel = info && info->si_code == SI_KERNEL;
		sigwake.count++;
	}
	if (write(wake_fd, "x", 1) < 0) {
		/* the pipe is full: a wakeup is already pending */
	}
	errno = saved;
}

int sigwake__setup(const int *stop, int n, bool chld)
{
	struct sigaction sa = { .sa_sigaction = sigwake__handler };
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	sigwake.fd = p[0];
	wake_fd = p[1];
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	for (int i = 0; i < n; i++)
		sigaction(stop[i], &sa, NULL);
	if (chld)
		sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

void sigwake__drain(void)
{
	char buf[64];

	while (read(sigwake.fd, buf, sizeof(buf)) > 0)
		;
}
