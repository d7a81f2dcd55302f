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

/* perf's: 'record' and 'report', three letters of them or more, after
 * stat's options */
static bool is_sub(const char *arg, const char *sub)
{
	size_t n = strlen(arg);

	return n > 2 && !strncmp(sub, arg, n);
}

/*
 * stat [OPTIONS] record [OPTIONS] [--] [CMD]: as perf, the options before
 * 'record' count as its own (argv without 'record' and a '--' before it).
 */
static int stat_record(int argc, char **argv, int at)
{
	char **v = calloc(argc + 1, sizeof(*v));
	int n = 0, ret;

	if (!v)
		return cli__exit_status(-ENOMEM);
	v[n++] = argv[at];
	for (int i = 1; i < at; i++)
		if (i != at - 1 || strcmp(argv[i], "--"))
			v[n++] = argv[i];
	for (int i = at + 1; i < argc; i++)
		v[n++] = argv[i];
	ret = stat__record(n, v, argv, argc);
	free(v);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct front_run *st = calloc(1, sizeof(*st));
	int ret;

	if (!st)
		return cli__exit_status(-ENOMEM);
	ret = stat_opts__parse(&st->o, argc, argv);
	if (ret) {
		ret = cli__parse_status(ret);
		goto out;
	}
	if (st->o.cmd && is_sub(st->o.cmd[0], "record")) {
		ret = stat_record(argc, argv, st->o.cmd - argv);
		goto out;
	}
	if (st->o.cmd && is_sub(st->o.cmd[0], "report")) {
		char **rest = st->o.cmd;

		ret = stat__report(argc - (rest - argv), rest);
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
