// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A run's options that are not one command's: the daemon's (--socket,
 * --no-daemon), spelled alike in stat and top, and what the options hold.
 * stat parses the rest (cli/stat/stat_opts.c), top its subset.
 */
#include <errno.h>
#include <stdlib.h>
#include "common/log.h"
#include "front/run_opts.h"
#include "front/shared_opts.h"

int front_opts__daemon(struct front_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_DAEMON_SOCKET:
		if (!*arg) {
			pr_err("empty path for --socket");
			return -EINVAL;
		}
		o->socket = arg;
		return 1;
	case OPT_NO_DAEMON:
		o->no_daemon = true;
		return 1;
	}
	return 0;
}

void front_opts__free(struct front_opts *o)
{
	for (int i = 0; i < o->nr_cgroups; i++) {
		free(o->cgroups[i]);
		free(o->cg_given[i]);
		o->cg_given[i] = NULL;
	}
	o->nr_cgroups = 0;
}
