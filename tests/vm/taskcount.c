// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * taskcount: a command's cycles and instructions from per-task counters
 * inherited by its children, perf stat -- CMD's way: the reference the
 * arm64 guest's tests (tests/vm/arm64-guest.sh) hold emon-perf's per-CPU
 * counts against. Built static, so that its own start costs next to
 * nothing in the windows of the emon-perf that counts it.
 *
 *   taskcount [-m] [-o FILE] [-P PIDFILE] [-c CGROUP_DIR] [-f FIFO] -- CMD [ARG...]
 *
 * Forks CMD's process, moves it into CGROUP_DIR (cgroup.procs) while it
 * waits, opens its two counters on it (disabled, enabled on exec,
 * inherited), then lets it go: it sleeps 1 ms (a switch in the new
 * cgroup before anything counts), opens FIFO for reading (so it starts
 * when a writer opens it: a window that emon-perf -p opens first) and
 * execs CMD.
 * PIDFILE gets its pid once the counters are on it. After CMD exits,
 * writes "cycles N E R" and "instructions N E R" (count, time enabled,
 * time running in ns) and "status S" to FILE (stdout by default). -m:
 * cycles:u, cycles:k, instructions:u and instructions:k instead, pinned
 * (they take their counters before any CPU-wide event that is not): the
 * exact reference for a multiplexed emon-perf beside them. The exit
 * status is CMD's; 2 on bad usage, 1 when a counter cannot be opened or
 * read.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int open_counter(pid_t pid, uint64_t config, int mode)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (mode) {	/* 'u' or 'k', pinned */
		a.pinned = 1;
		a.exclude_hv = 1;
		a.exclude_kernel = mode == 'u';
		a.exclude_user = mode == 'k';
	}
	return syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static bool put_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *pidfile = NULL, *cgroup = NULL, *fifo = NULL;
	static const char *const names[6] = { "cycles", "instructions", "cycles:u", "cycles:k",
					       "instructions:u", "instructions:k" };
	static const uint64_t configs[6] = { PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
					     PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_CPU_CYCLES,
					     PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_INSTRUCTIONS };
	static const int modes[6] = { 0, 0, 'u', 'k', 'u', 'k' };
	int go[2], fds[6], opt, status, first = 0, last = 2;
	uint64_t v[6][3];
	char buf[64];
	FILE *f = stdout;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+mo:P:c:f:")) != -1) {
		switch (opt) {
		case 'm': first = 2; last = 6; break;
		case 'o': out = optarg; break;
		case 'P': pidfile = optarg; break;
		case 'c': cgroup = optarg; break;
		case 'f': fifo = optarg; break;
		default: goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	if (pipe2(go, O_CLOEXEC))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		close(go[1]);
		if (read(go[0], buf, 1) != 1)	/* the parent failed */
			_exit(126);
		/* a switch in its new cgroup before the exec: see below */
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		if (fifo && open(fifo, O_RDONLY | O_CLOEXEC) < 0)
			_exit(126);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	close(go[0]);
	/* the parent moves it while it waits: the move's own work (cgroup
	 * v2's attach, the controllers') is then the parent's, outside both
	 * the cgroup's count and the child's. It may not be waiting yet:
	 * still running on another CPU on its way to its read (QEMU runs one
	 * vCPU of two seldom), it then finds the go already there and execs
	 * without a switch, and emon-perf, which takes a task's cgroup at
	 * its switch-in, counts its run in the cgroup it left until it next
	 * switches (a task moved while it runs elsewhere: bpf/emon.bpf.c,
	 * on_attach). So the child sleeps once after the go, before its
	 * exec: a switch in its new cgroup before the counting starts. */
	if (cgroup) {
		char path[4096];

		snprintf(buf, sizeof(buf), "%d", pid);
		snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
		if (!put_file(path, buf)) {
			fprintf(stderr, "taskcount: %s: %m\n", path);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 1;
		}
	}
	for (int i = first; i < last; i++) {
		fds[i] = open_counter(pid, configs[i], modes[i]);
		if (fds[i] < 0) {
			fprintf(stderr, "taskcount: %s: perf_event_open: %m\n", names[i]);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 1;
		}
	}
	if (pidfile) {
		FILE *p = fopen(pidfile, "we");

		if (!p || fprintf(p, "%d\n", pid) < 0 || fclose(p))
			return 1;
	}
	if (write(go[1], "g", 1) != 1)
		return 1;
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	for (int i = first; i < last; i++) {
		if (read(fds[i], v[i], sizeof(v[i])) != sizeof(v[i])) {
			fprintf(stderr, "taskcount: %s: read: %m\n", names[i]);
			return 1;
		}
	}
	if (out && !(f = fopen(out, "we")))
		return 1;
	for (int i = first; i < last; i++)
		fprintf(f, "%s %llu %llu %llu\n", names[i], (unsigned long long)v[i][0],
			(unsigned long long)v[i][1], (unsigned long long)v[i][2]);
	fprintf(f, "status %d\n", status);
	if (f != stdout && fclose(f))
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
usage:
	fprintf(stderr, "usage: taskcount [-m] [-o FILE] [-P PIDFILE] [-c CGROUP_DIR] [-f FIFO] -- CMD [ARG...]\n");
	return 2;
}
