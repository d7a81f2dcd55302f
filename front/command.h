/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The command of `emon-perf stat -- CMD ARGS`: started stopped so the
 * caller can follow it from its first instruction, watched, given the
 * signals emon-perf gets, and never left behind when emon-perf ends.
 */
#ifndef FRONT_COMMAND_H
#define FRONT_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

struct command_seen {
	pid_t pid;
	char comm[16];
};

struct command {
	pid_t pid;		/* 0: none */
	pid_t pgid;		/* its own process group, 0 when it shares ours */
	int status;		/* once done: exit status, or 128 + signal */
	bool done;		/* it has exited (reaped or not) */
	bool reaped;
	bool signalled;		/* a signal of ours was passed on to it */
	bool exec_failed;	/* spawn's error is execvp's */
	bool not_started;	/* before_exec refused it: spawn returned its error */
	/*
	 * A signal passed on to the group: a shell's child that gets it just
	 * before its exec, in the shell's inherited handler, loses it, and
	 * the shell, which took it, waits for that child. So until
	 * fwd_until_ms (CLOCK_MONOTONIC), a process of the group as it was
	 * then that has exec'ed since (another comm) gets it again.
	 */
	int fwd_sig;
	double fwd_until_ms;
	struct command_seen *fwd_seen;	/* the group's processes as they had it */
	int nr_fwd_seen;
	size_t fwd_cap;
};

/*
 * Fork argv[0], call before_exec(pid, arg) while the child waits, then let
 * it exec. 0 once it runs; -errno if it could not be started, exec_failed
 * telling a command that cannot be run (bad input) from a failed fork or
 * pipe. When before_exec returns -errno, the child ends without running
 * argv and that is returned, not_started set (it said why). The caller
 * ignores SIGPIPE (the child may die before reading).
 */
int command__spawn(struct command *cmd, char **argv,
		   int (*before_exec)(pid_t pid, void *arg), void *arg);

/* Has the command exited? Sets status. Does not reap it. */
bool command__poll(struct command *cmd);

/*
 * Pass on a signal emon-perf got (from_terminal: sent by the kernel, as
 * Ctrl-C is). True if the command, still running, now has it.
 */
bool command__forward(struct command *cmd, int sig, bool from_terminal);

/*
 * After command__forward: the signal again to a process of the group that
 * has exec'ed since, for a while. Returns when to call it again
 * (CLOCK_MONOTONIC seconds), or 0 when that is over.
 */
double command__forward_late(struct command *cmd);

/*
 * The command has exited: reap it now, its resource usage (and that of
 * the children it waited for, as perf's wait4) into ru. 0, or -ECHILD
 * when it has not exited or was reaped already.
 */
struct rusage;
int command__reap(struct command *cmd, struct rusage *ru);

/*
 * emon-perf is ending: if the command still runs, or a signal was passed
 * on and some of its process group is left, SIGTERM, up to 2 s, SIGKILL.
 * Then reap it. Never blocks for long.
 */
void command__stop(struct command *cmd);

#endif
