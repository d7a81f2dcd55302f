/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* emon-perf stat: its options, one run, and -r's repeated runs over the
 * front end's run (front/run.h). */
#ifndef CLI_STAT_STAT_H
#define CLI_STAT_STAT_H

#include "front/run.h"

/* Parse argv into o. Returns 0, 1 after --help (exit 0), or -EINVAL after
 * printing a one-line error (exit 2). */
int stat_opts__parse(struct front_opts *o, int argc, char **argv);

/*
 * One run of stat with its options parsed: the source opened, the command
 * run, the counts printed. 0, or the exit status of a failure (2 bad
 * input, 1 runtime failure, 128 + signal); the command's own status is in
 * st->cmd.
 */
int stat__run(struct front_run *st);
/*
 * The same, with hook(st, arg) called once the run is set up (source,
 * events, output), before the command starts and counting begins:
 * stat record's, which wraps the output. 0, or an exit status that
 * ends the run.
 */
typedef int (*stat_hook_fn)(struct front_run *st, void *arg);
int stat__run_with(struct front_run *st, stat_hook_fn hook, void *arg);
/* stat record and stat report (cli/stat/record.c): argv[0] is
 * "record" or "report"; the exit status */
int stat__record(int argc, char **argv, char **full_argv, int full_argc);
int stat__report(int argc, char **argv);
/*
 * -r N: N runs of stat with the options of argv, then one print of the
 * mean of each row's events with perf's ( +- x% ): the standard deviation
 * of the mean relative to it. The exit status of cmd_stat.
 */
int stat__repeat(int argc, char **argv, long runs);

#endif
