// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The command's processes, as timeout(1) and perf stat handle them.
 *
 * It is forked stopped on a pipe; the caller puts its pid in the BPF tree,
 * then it may exec, so its whole tree is followed from its first
 * instruction. An exec failure comes back through a close-on-exec pipe.
 *
 * Process group. A signal for the command must reach its children too
 * (`sh -c "a; b"`: killing sh alone leaves a and b running), so the command
 * gets a process group of its own and signals go to the group. Not when
 * one of our stdin, stdout or stderr is a terminal: there the command stays
 * in ours, as with perf stat. A group of its own would be a background
 * group of that terminal: reading it, or changing its modes, would stop
 * the command (SIGTTIN, SIGTTOU), and Ctrl-C and Ctrl-Z, which the terminal
 * sends to its foreground group only, would miss it. Sharing our group,
 * the command gets Ctrl-C from the terminal along with us (so a signal the
 * kernel sent is not passed on a second time), and a signal sent to
 * emon-perf alone goes to the command's first process, as perf stat does.
 *
 * Ending. The first signal emon-perf gets is passed on and the command
 * decides how it ends. Sent to the group, it reaches the processes the
 * group has then; for 2 s more, one of them that exec'ed since gets it
 * again: dash (sh -c) catches SIGINT and waits for its foreground child,
 * and a child that took it in dash's inherited handler just before its
 * exec never sees it, so dash, and we, would wait for good (1 SIGINT in
 * ~70 under load; 1 in ~800 still does, a child forked and exec'ed in
 * the moment the signal goes out, and then a second signal ends it). A
 * process made after the signal is left alone, as a terminal's Ctrl-C
 * leaves it (a trap's cleanup commands, say). Whenever emon-perf ends with the command still
 * running (an error, --timeout, a second signal, a closed output), or what
 * is left of its group after a signal was passed on (a shell's background
 * job ignores SIGINT), it gets SIGTERM, then SIGKILL 2 s later; nothing
 * waits without a bound.
 *
 * Out of reach: processes the command moves to other process groups or
 * sessions (setsid, an interactive shell's jobs), and, when emon-perf is
 * SIGKILLed, all but the command's first process, which the kernel kills
 * for us (PR_SET_PDEATHSIG; not across the exec of a set-user-ID or
 * file-capability binary, which clears it).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/array.h"
#include "front/command.h"
#include "common/log.h"

#define TERM_GRACE_MS 2000	/* SIGTERM to SIGKILL */
#define KILL_WAIT_MS 1000	/* SIGKILL to giving up (a task stuck in D state) */
#define WAIT_POLL_MS 5
#define LATE_FORWARD_MS 2000	/* a passed-on signal, again after an exec */
#define LATE_FORWARD_POLL_MS 20

static bool command__own_group(void)
{
	return !isatty(STDIN_FILENO) && !isatty(STDOUT_FILENO) &&
	       !isatty(STDERR_FILENO);
}

/* In the child, until exec: the caller's mask and handlers must not apply. */
static void command__child_signals(const sigset_t *mask)
{
	struct sigaction sa;

	for (int sig = 1; sig < NSIG; sig++) {
		if (sigaction(sig, NULL, &sa) || sa.sa_handler == SIG_IGN ||
		    sa.sa_handler == SIG_DFL)
			continue;
		/* a handler of ours would run here (exec resets it, too late) */
		signal(sig, SIG_DFL);
	}
	signal(SIGPIPE, SIG_DFL);	/* ignored by emon-perf, not by commands */
	sigprocmask(SIG_SETMASK, mask, NULL);
}

static void __attribute__((noreturn))
command__child(char **argv, const int go[2], const int ex[2], pid_t parent,
	       bool own_group, const sigset_t *mask)
{
	int e;
	char c;

	close(go[1]);	/* the parent's ends: EOF when it goes */
	close(ex[0]);
	command__child_signals(mask);
	if (own_group)
		setpgid(0, 0);
	/* SIGKILL of emon-perf kills the command too; it may have died already */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	execvp(argv[0], argv);
	e = errno;
	if (write(ex[1], &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int command__spawn(struct command *cmd, char **argv,
		   int (*before_exec)(pid_t pid, void *arg), void *arg)
{
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 }, e = 0, err = 0;
	bool own_group = command__own_group();
	pid_t parent = getpid();
	sigset_t all, mask;
	ssize_t n;

	*cmd = (struct command){};
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		err = -errno;
		goto out;
	}
	/* no handler of ours may run in the child before it resets them */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &mask);
	cmd->pid = fork();
	if (cmd->pid == 0)
		command__child(argv, go, ex, parent, own_group, &mask);
	err = cmd->pid < 0 ? -errno : 0;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (err) {
		cmd->pid = 0;
		goto out;
	}
	if (own_group) {
		/* the child does it too: whichever runs first, signals find it */
		setpgid(cmd->pid, cmd->pid);
		cmd->pgid = cmd->pid;
	}
	close(go[0]);
	close(ex[1]);
	go[0] = ex[1] = -1;
	err = before_exec(cmd->pid, arg);
	if (err) {
		/* no go: it reads EOF and ends before exec */
		close(go[1]);
		go[1] = -1;
		waitpid(cmd->pid, NULL, 0);
		*cmd = (struct command){ .not_started = true };
		goto out;
	}
	if (write(go[1], "g", 1) != 1) {
		/* it died before exec: poll sees how */
	}
	n = read(ex[0], &e, sizeof(e));
	if (n == sizeof(e)) {
		waitpid(cmd->pid, NULL, 0);	/* it _exits right after */
		*cmd = (struct command){ .exec_failed = true };
		err = -e;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (ex[i] >= 0)
			close(ex[i]);
	}
	return err;
}

/*
 * WNOWAIT: until we reap it, the command's pid, and so its group's id,
 * cannot be given to another process, whatever kill(-pgid) sends.
 */
bool command__poll(struct command *cmd)
{
	siginfo_t si = {};

	if (!cmd->pid || cmd->done)
		return cmd->done;
	if (waitid(P_PID, cmd->pid, &si, WEXITED | WNOHANG | WNOWAIT) ||
	    si.si_pid != cmd->pid)
		return false;
	cmd->done = true;
	cmd->status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
	return true;
}

static void command__signal(struct command *cmd, int sig)
{
	if (cmd->pgid)
		kill(-cmd->pgid, sig);
	else if (!cmd->reaped)
		kill(cmd->pid, sig);
}

static double command__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * fn(pid, comm, arg) for each live process of group pgid (zombies and dead
 * ones left out: an orphan stays a zombie until init reaps it, which some
 * inits do only every second or two), until fn returns true. -errno if
 * /proc cannot be read.
 */
static int command__group_walk(pid_t pgid,
			       bool (*fn)(pid_t pid, const char *comm, void *arg),
			       void *arg)
{
	struct dirent *de;
	char path[sizeof(de->d_name) + 16], line[512], comm[16], *p, *c, state;
	int pgrp, pid;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		bool live = false;
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;	/* gone meanwhile */
		/* "pid (comm) state ppid pgrp ...": comm may hold ") " */
		if (fgets(line, sizeof(line), f) && (p = strrchr(line, ')')) &&
		    (c = strchr(line, '(')) && c < p &&
		    sscanf(line, "%d", &pid) == 1 &&
		    sscanf(p + 1, " %c %*d %d", &state, &pgrp) == 2) {
			live = pgrp == pgid && state != 'Z' && state != 'X';
			snprintf(comm, sizeof(comm), "%.*s", (int)(p - c - 1), c + 1);
		}
		fclose(f);
		if (live && fn(pid, comm, arg))
			break;
	}
	closedir(d);
	return 0;
}

static bool command__found(pid_t pid, const char *comm, void *arg)
{
	(void)pid;
	(void)comm;
	*(bool *)arg = true;
	return true;
}

/* Does a process of the group still run? (kill(-pgid, 0) counts zombies.) */
static bool command__group_runs(pid_t pgid)
{
	bool runs = false;

	if (kill(-pgid, 0))
		return false;
	return command__group_walk(pgid, command__found, &runs) ? true : runs;
}

/* A process of the group as it was when the signal was passed on. */
static bool command__record_one(pid_t pid, const char *comm, void *arg)
{
	struct command *cmd = arg;
	struct command_seen *n;

	for (int i = 0; i < cmd->nr_fwd_seen; i++)
		if (cmd->fwd_seen[i].pid == pid)
			return false;
	if (array__grow(&cmd->fwd_seen, &cmd->fwd_cap, cmd->nr_fwd_seen + 1,
			sizeof(*n)))
		return true;	/* the rest go without */
	n = &cmd->fwd_seen[cmd->nr_fwd_seen++];
	n->pid = pid;
	snprintf(n->comm, sizeof(n->comm), "%s", comm);
	return false;
}

/*
 * One that had the signal and has exec'ed since (another comm): a shell's
 * child that took it in the shell's handler before its exec lost it. It
 * gets it again. Processes made since are left alone, as a terminal's
 * Ctrl-C leaves them.
 */
static bool command__late_one(pid_t pid, const char *comm, void *arg)
{
	struct command *cmd = arg;

	for (int i = 0; i < cmd->nr_fwd_seen; i++) {
		struct command_seen *s = &cmd->fwd_seen[i];

		if (s->pid != pid || !strcmp(s->comm, comm))
			continue;
		snprintf(s->comm, sizeof(s->comm), "%s", comm);
		kill(pid, cmd->fwd_sig);
		break;
	}
	return false;
}

static void command__forget(struct command *cmd)
{
	free(cmd->fwd_seen);
	cmd->fwd_seen = NULL;
	cmd->fwd_sig = cmd->nr_fwd_seen = cmd->fwd_cap = 0;
}

bool command__forward(struct command *cmd, int sig, bool from_terminal)
{
	if (!cmd->pid || command__poll(cmd))
		return false;
	cmd->signalled = true;
	/*
	 * Who gets it, as they are: before the signal (one may exec at once
	 * after taking it), and after (a child forked meanwhile has it too)
	 */
	command__forget(cmd);
	if (cmd->pgid)
		command__group_walk(cmd->pgid, command__record_one, cmd);
	/* the terminal signals its foreground group: ours has it already */
	if (!from_terminal || cmd->pgid)
		command__signal(cmd, sig);
	if (cmd->pgid) {
		command__group_walk(cmd->pgid, command__record_one, cmd);
		cmd->fwd_sig = sig;
		cmd->fwd_until_ms = command__now_ms() + LATE_FORWARD_MS;
	}
	return true;
}

double command__forward_late(struct command *cmd)
{
	double now = command__now_ms();

	if (!cmd->fwd_sig)
		return 0;
	if (now >= cmd->fwd_until_ms || command__poll(cmd)) {
		command__forget(cmd);
		return 0;
	}
	command__group_walk(cmd->pgid, command__late_one, cmd);
	return (now + LATE_FORWARD_POLL_MS) / 1e3;
}

int command__reap(struct command *cmd, struct rusage *ru)
{
	if (!command__poll(cmd) || cmd->reaped)
		return -ECHILD;
	if (wait4(cmd->pid, NULL, 0, ru) != cmd->pid)	/* exited: does not block */
		return -ECHILD;
	cmd->reaped = true;
	return 0;
}

/* Is any of it left? Reaps the command once it has exited. */
static bool command__left(struct command *cmd)
{
	if (command__poll(cmd) && !cmd->reaped) {
		waitpid(cmd->pid, NULL, 0);	/* exited: does not block */
		cmd->reaped = true;
	}
	if (!cmd->reaped)
		return true;
	return cmd->pgid && command__group_runs(cmd->pgid);
}

/* Poll (signals interrupt the sleeps) until nothing is left, up to ms. */
static bool command__wait(struct command *cmd, int ms)
{
	struct timespec nap = { 0, WAIT_POLL_MS * 1000000L };
	double end = command__now_ms() + ms;

	while (command__left(cmd)) {
		if (command__now_ms() >= end)
			return false;
		nanosleep(&nap, NULL);
	}
	return true;
}

void command__stop(struct command *cmd)
{
	if (!cmd->pid)
		return;
	if (!command__poll(cmd) || (cmd->signalled && cmd->pgid)) {
		command__signal(cmd, SIGTERM);
		command__signal(cmd, SIGCONT);	/* a stopped process ends too */
		if (!command__wait(cmd, TERM_GRACE_MS)) {
			pr_debug("the command ignored SIGTERM for %d ms: SIGKILL",
				 TERM_GRACE_MS);
			command__signal(cmd, SIGKILL);
			if (!command__wait(cmd, KILL_WAIT_MS) && !cmd->reaped)
				pr_warn("the command (pid %d) does not end, even with SIGKILL",
					cmd->pid);
		}
	}
	command__left(cmd);
	command__forget(cmd);
}
