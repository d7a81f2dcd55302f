// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * check's workload and its reference. The workload is forked, moved into
 * a temporary cgroup and stopped on a pipe (the start barrier) while the
 * reference counters are opened on it: pid = the workload, cpu = -1,
 * inherit = 1, enabled from the open, as perf stat -- cmd counts. Its
 * child of the ping-pong inherits them and the cgroup; read once both
 * are reaped, they hold the whole tree's counts.
 *
 * What the reference disturbs: the kernel switches a task's own
 * counters in and out with it, a few hundred ns a switch of the workload
 * (none for anyone else), and its cycles and instructions take hardware
 * counters of their own while the workload runs, which on a PMU with few
 * free ones can multiplex emon-perf's per-CPU events (their scaling
 * makes up for it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/check/check_work.h"
#include "common/log.h"
#include "engine/names/cgroup.h"
#include "engine/counts.h"
#include "pmu/event.h"
#include "emon_scale.h"

static double work__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Round trips over two pipes with a child: each side blocks on every
 * read, a voluntary switch each. */
static int work__ping_pong(int rounds)
{
	int ab[2], ba[2], status;
	char c = 0;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	/* each side keeps only its own ends: the other's exit is an EOF */
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ab[1]);
		close(ba[0]);
		for (int i = 0; i < rounds; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	for (int i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	close(ab[1]);
	close(ba[0]);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status) ? 0 : -1;
}

/* The workload: wait for go, play the ping-pong, burn the rest of the
 * time. Never returns. */
static void work__main(int go, int rounds, double duration_s)
{
	volatile unsigned long x = 0;
	double end;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* check's handlers write to its wake-up pipe: a terminal's Ctrl-C
	 * ends the workload itself, and check cleans up */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (read(go, &c, 1) != 1)	/* EOF: check gave up */
		_exit(1);
	end = work__now() + duration_s;
	if (work__ping_pong(rounds))
		_exit(1);
	while (work__now() < end)
		for (int i = 0; i < 4096; i++)
			x += i;
	_exit(x == 1);	/* x read: the burn is not dead code to any compiler */
}

static int work__cgroup(struct check_work *w, const char *cgroot)
{
	int err;

	snprintf(w->cgpath, sizeof(w->cgpath), "/emon-check-%d", (int)getpid());
	if (snprintf(w->cgdir, sizeof(w->cgdir), "%s%s", cgroot, w->cgpath) >=
	    (int)sizeof(w->cgdir))
		return -ENAMETOOLONG;
	if (mkdir(w->cgdir, 0755)) {
		err = -errno;
		w->cgdir[0] = 0;
		return err;
	}
	return cgroup__id(cgroot, w->cgpath, &w->cgid);
}

static int work__enter(const struct check_work *w)
{
	char path[PATH_MAX + 16], buf[16];
	int fd, n, err = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", w->cgdir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d", (int)w->pid);
	if (write(fd, buf, n) != n)
		err = -errno;
	close(fd);
	return err;
}

static const struct {
	__u32 type;
	__u64 config;
} ref_attr[REF_NR] = {
	[REF_TASK_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	[REF_SWITCHES] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	[REF_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[REF_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
};

static void work__open_refs(struct check_work *w, bool hw)
{
	for (int i = 0; i < REF_NR; i++) {
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = ref_attr[i].type,
			.config = ref_attr[i].config,
			.inherit = 1,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
		};

		if (!hw && ref_attr[i].type == PERF_TYPE_HARDWARE) {
			w->ref_err[i] = -EOPNOTSUPP;
			continue;
		}
		w->ref_fd[i] = syscall(SYS_perf_event_open, &a, w->pid, -1, -1,
				       PERF_FLAG_FD_CLOEXEC);
		w->ref_err[i] = w->ref_fd[i] < 0 ? -errno : 0;
	}
}

static int work__fork(struct check_work *w, double duration_s)
{
	/* the start barrier (go) and the hang-up of done, read, write ends */
	int fd[4] = { -1, -1, -1, -1 }, err = 0;

	if (pipe2(fd, O_CLOEXEC) || pipe2(fd + 2, O_CLOEXEC)) {
		err = -errno;
		goto out;
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		w->pid = 0;
		goto out;
	}
	if (!w->pid) {
		close(fd[1]);
		close(fd[2]);
		work__main(fd[0], w->rounds, duration_s);
	}
	w->go_fd = fd[1];
	w->done_fd = fd[2];
	fd[1] = fd[2] = -1;
out:
	for (int i = 0; i < 4; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return err;
}

int check_work__prepare(struct check_work *w, const char *cgroot,
			double duration_s, bool hw, char *err, size_t errlen)
{
	const char *what = "make a cgroup under";
	int ret;

	memset(w, 0, sizeof(*w));
	w->go_fd = w->done_fd = -1;
	for (int i = 0; i < REF_NR; i++)
		w->ref_fd[i] = -1;
	w->rounds = WORK_ROUNDS;
	ret = work__cgroup(w, cgroot);
	if (!ret) {
		what = "fork the workload into";
		ret = work__fork(w, duration_s);
	}
	if (!ret) {
		what = "move the workload into";
		ret = work__enter(w);
	}
	if (!ret) {
		what = "open the reference task-clock on the workload in";
		work__open_refs(w, hw);
		ret = w->ref_err[REF_TASK_CLOCK];
	}
	if (ret)
		snprintf(err, errlen, "cannot %s %s: %s", what,
			 w->cgdir[0] ? w->cgdir : cgroot, strerror(-ret));
	return ret;
}

int check_work__start(struct check_work *w)
{
	char c = 1;

	w->t_start = work__now();
	if (write(w->go_fd, &c, 1) != 1)
		return -errno;
	close(w->go_fd);
	w->go_fd = -1;
	return 0;
}

static void work__read_refs(struct check_work *w)
{
	for (int i = 0; i < REF_NR; i++) {
		struct emon_count c;
		__u64 v[3];

		if (w->ref_fd[i] < 0 || read(w->ref_fd[i], v, sizeof(v)) != sizeof(v)) {
			w->ref_err[i] = w->ref_err[i] ?: -EIO;
			continue;
		}
		c = (struct emon_count){ .counter = v[0], .enabled = v[1], .running = v[2] };
		emon_scale__slice(&c);	/* the whole run: one slice, as perf scales */
		if (!count__scaled_u64(&c, &w->ref[i]))
			w->ref_err[i] = -ENODATA;	/* never ran: no counter free */
	}
}

int check_work__finish(struct check_work *w)
{
	int status;

	if (wait4(w->pid, &status, 0, &w->ru) != w->pid)
		return -errno;
	w->pid = 0;
	w->t_end = work__now();
	work__read_refs(w);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
}

/* Whatever is left in the cgroup (cgroup.kill: Linux 5.14 and later;
 * before it, the workload's children die with it, PR_SET_PDEATHSIG). */
static void work__kill_cgroup(const struct check_work *w)
{
	char path[PATH_MAX + 16];
	int fd;

	if (!w->cgdir[0])
		return;
	snprintf(path, sizeof(path), "%s/cgroup.kill", w->cgdir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "1", 1) != 1)
		pr_debug("%s: %s", path, strerror(errno));
	close(fd);
}

void check_work__cleanup(struct check_work *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);	/* a workload still at its barrier leaves */
	w->go_fd = -1;
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
		w->pid = 0;
	}
	/* the ping-pong's child may outlive it by a moment: done_fd hangs
	 * up once it is gone too, within a bound */
	work__kill_cgroup(w);
	if (w->done_fd >= 0) {
		struct pollfd pfd = { .fd = w->done_fd, .events = POLLIN };
		char c;

		while (poll(&pfd, 1, 2000) > 0 && read(w->done_fd, &c, 1) > 0)
			;
		close(w->done_fd);
		w->done_fd = -1;
	}
	for (int i = 0; i < REF_NR; i++) {
		if (w->ref_fd[i] >= 0)
			close(w->ref_fd[i]);
		w->ref_fd[i] = -1;
	}
	/* an exited task leaves its cgroup only once reaped: rmdir retries */
	for (int i = 0; w->cgdir[0] && i < 200; i++) {
		if (!rmdir(w->cgdir) || errno == ENOENT) {
			w->cgdir[0] = 0;
			break;
		}
		usleep(5000);
	}
	if (w->cgdir[0])
		pr_warn("cannot remove cgroup %s: %s", w->cgdir, strerror(errno));
}
