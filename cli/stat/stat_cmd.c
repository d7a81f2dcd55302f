// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat's entry: its options parsed, then one run (stat.c) or
 * -r's runs (stat_repeat.c); the command's status when it ran one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/stat/stat.h"
#include "front/errors.h"

int cmd_stat(int argc, char **argv)
{
	struct front_run *st = calloc(1, sizeof(*st));
	int ret;

	if (!st)
		return cli__exit_status(-ENOMEM);
	/* perf's: 'stat record' and 'stat report', three letters or more */
	if (argc > 1 && strlen(argv[1]) > 2 && !strncmp("record", argv[1], strlen(argv[1]))) {
		free(st);
		return stat__record(argc - 1, argv + 1, argv, argc);
	}
	if (argc > 1 && strlen(argv[1]) > 2 && !strncmp("report", argv[1], strlen(argv[1]))) {
		free(st);
		return stat__report(argc - 1, argv + 1);
	}
	ret = stat_opts__parse(&st->o, argc, argv);
	if (ret) {
		ret = cli__parse_status(ret);
		goto out;
	}
	if (st->o.tg.repeat > 1) {
		long runs = st->o.tg.repeat;

		/* each run parses its own options: these go first */
		front_run__cleanup(st);
		free(st);
		return stat__repeat(argc, argv, runs);
	}
	ret = stat__run(st);
	if (!ret && command__poll(&st->cmd))
		ret = st->cmd.status;
out:
	front_run__cleanup(st);
	free(st);
	return ret;
}
