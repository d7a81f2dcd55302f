/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* emon-perf stat: its options, one run, and -r's repeated runs over the
 * front end's run (front/run.h). */
#ifndef CLI_STAT_STAT_H
#define CLI_STAT_STAT_H

#include "front/run.h"

/* perf's status for a command that cannot run ("Workload failed: ...") */
#define STAT_WORKLOAD_FAILED 255

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
 * -r N: N runs of stat with the options of argv, then one print of the
 * mean of each row's events with perf's ( +- x% ): the standard deviation
 * of the mean relative to it. The exit status of cmd_stat.
 */
int stat__repeat(int argc, char **argv, long runs);

/* cli/stat/stat_compat.c: -e's list as perf takes it (an event given
 * twice, :W, --all-user, --all-kernel); the checks of perf's printing
 * options; --pre and --post (0, or -ECANCELED when the command failed,
 * said) */
int stat_compat__events(struct front_opts *o);
int stat_compat__check(struct front_opts *o);
int stat_compat__hook(const char *opt, const char *cmd);
/* --metric-only without -M: perf's shadow metrics of the events */
void stat_compat__shadow_metrics(struct front_opts *o);

#endif
