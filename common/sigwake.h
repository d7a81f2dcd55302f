/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Signals as a readable fd (a self-pipe), for the commands' poll loops
 * (stat, top, serve): the handler only records and writes a byte; the
 * loop wakes, reads what happened and acts outside the handler.
 */
#ifndef COMMON_SIGWAKE_H
#define COMMON_SIGWAKE_H

#include <signal.h>
#include <stdbool.h>

struct sigwake {
	int fd;				/* read end: readable after a signal */
	volatile sig_atomic_t last;	/* the last stop signal, 0: none yet */
	volatile sig_atomic_t by_kernel;	/* it came from the kernel (a
						 * terminal's Ctrl-C) */
	volatile sig_atomic_t count;	/* stop signals so far */
};

extern struct sigwake sigwake;

/* Catch the n stop signals (SA_RESTART), and SIGCHLD, which only wakes
 * the loop, when chld; ignore SIGPIPE (a write gets EPIPE instead).
 * 0 or -errno. */
int sigwake__setup(const int *stop, int n, bool chld);
/* Empty the pipe, once poll said it is readable. */
void sigwake__drain(void);

#endif
