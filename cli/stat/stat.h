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

/* cli/stat/stat_compat.c: -e's list as perf takes it (an event given
 * twice, :W, --all-user, --all-kernel); the checks of perf's printing
 * options; --pre and --post (0, or -ECANCELED when the command failed,
 * said) */
int stat_compat__events(struct front_opts *o);
int stat_compat__check(struct front_opts *o);
/* -G after -e, paired with the events as perf's; the check after the
 * events are whole; the count of events in perf's evlist of a list */
int stat_compat__cgroups(struct front_opts *o, const char *arg);
int stat_compat__cgroups_check(struct front_opts *o);
int stat_compat__nr_events(const char *list);
int stat_compat__hook(const char *opt, const char *cmd);
/* --metric-only without -M: perf's shadow metrics of the events */
void stat_compat__shadow_metrics(struct front_opts *o);

/*
 * cli/stat/stat_control.c: perf's --control fd:CTL[,ACK] or
 * fifo:CTL[,ACK]. Open (0, or -EINVAL said with perf's words), close
 * (what a run had), the fd to poll (-1: none); the next command read
 * (STAT_CTL_*, NONE when none is there yet), each answered with ack; set
 * says "Events enabled" or "disabled" as perf. keep takes an enabled
 * span's rows before a disable, rows makes a print's rows of them.
 */
enum { STAT_CTL_NONE, STAT_CTL_ENABLE, STAT_CTL_DISABLE, STAT_CTL_OTHER };
int stat_control__open(const char *arg);
void stat_control__close(void);
int stat_control__fd(void);
int stat_control__next(void);
void stat_control__ack(void);
bool stat_control__disabled(void);
void stat_control__set(bool disabled);
/* counting starts: disabled (perf -D -1: until "enable") or not */
void stat_control__start(bool disabled);
int stat_control__keep(const struct row_set *rs, int nr_events);
void stat_control__rows(struct row_set *rs, int nr_events);

#endif
