// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A workload of known size: spin until this process has used SECONDS of CPU
 * time (CLOCK_PROCESS_CPUTIME_ID), however long that takes on a busy
 * machine. With -p PIDFILE it first appends its pid to PIDFILE.
 *   burn [-p PIDFILE] SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tools/tool.h"

int main(int argc, char **argv)
{
	const char *pidfile = NULL;
	double secs;
	char *end;

	if (argc == 4 && !strcmp(argv[1], "-p")) {
		pidfile = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || (secs = strtod(argv[1], &end)) < 0 || *end) {
		fprintf(stderr, "usage: burn [-p PIDFILE] SECONDS\n");
		return 2;
	}
	if (pidfile) {
		FILE *f = fopen(pidfile, "a");

		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
			perror(pidfile);
			return 1;
		}
	}
	tool_spin_cpu_s(secs, 10000);
	return 0;
}
