// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cgchurn: cgroups created, used and removed in a loop, with a known
 * amount of work done in each, for the reliability tests.
 *
 *   cgchurn [-d SECONDS] [-n COUNT] [-j JOBS] [-w WORK_MS] [-D DEPTH] [-J]
 *           [-o FILE] DIR
 *
 * JOBS workers (default 2) each repeat, for SECONDS (default 5) or until
 * COUNT top-level cgroups have been made in all: make DIR/jJ-I (and
 * DEPTH - 1 more levels under it, "DIR/jJ-I/d1/d2" for -D 3: only the
 * deepest runs anything), start a process in the deepest one that spins
 * WORK_MS milliseconds of its own CPU time (default 20), reap it, remove
 * the directories deepest first. The process is born in its cgroup
 * (clone3 with CLONE_INTO_CGROUP); with -J it is forked in the worker's
 * cgroup and moves itself there first. DIR is an absolute path in the
 * cgroup2 file system; it must exist.
 *
 * Prints one line at the end (to FILE with -o, else stdout):
 *   cgroups=N procs=P seconds=T children_cpu_s=C self_cpu_s=S busy_retries=B failed=F
 * N is the number of cgroup directories created and removed (all levels),
 * P the processes run in them, C the CPU time the kernel accounted to the
 * workers and those processes, S to cgchurn's main process, B the rmdir
 * calls that found the cgroup still busy and were retried. Exit status 0,
 * 1 when something could not be made or removed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sched.h>
#include <time.h>
#include <unistd.h>
#include "tools/tool.h"

#define MAX_JOBS 64
#define MAX_DEPTH 8

struct churn_opts {
	double seconds;
	long count;		/* 0: no limit */
	int jobs;
	long work_ms;
	int depth;
	bool join;		/* the child moves itself, not CLONE_INTO_CGROUP */
	const char *dir;
	const char *output;
};

struct churn_shared {
	long made;		/* cgroups made so far, all workers */
	long cgroups[MAX_JOBS];
	long procs[MAX_JOBS];
	long busy[MAX_JOBS];
	long failed[MAX_JOBS];
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * rmdir, retried while the cgroup is busy: a reaped task leaves its cgroup
 * a little after the parent's wait returns (the last css reference goes in
 * an RCU callback). Up to 2 s.
 */
static int remove_dir(const char *path, long *busy)
{
	for (int i = 0; i < 2000; i++) {
		struct timespec ts = { 0, 1000000 };

		if (!rmdir(path))
			return 0;
		if (errno != EBUSY)
			return -errno;
		(*busy)++;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

/* levels[0] = DIR/jJ-I, levels[k] = levels[k-1]/dK */
static int make_levels(const struct churn_opts *o, int j, long i,
		       char levels[][PATH_MAX])
{
	for (int k = 0; k < o->depth; k++) {
		int n = k ? snprintf(levels[k], PATH_MAX, "%s/d%d", levels[k - 1], k) :
			    snprintf(levels[k], PATH_MAX, "%s/j%d-%ld", o->dir, j, i);

		if (n >= PATH_MAX)
			return -ENAMETOOLONG;
		if (mkdir(levels[k], 0755)) {
			int err = -errno;

			while (--k >= 0)
				rmdir(levels[k]);
			return err;
		}
	}
	return 0;
}

/*
 * A process that does its work in dir: born there with clone3 and
 * CLONE_INTO_CGROUP (how systemd and container runtimes start services),
 * or with -J forked here and moving itself (a cgroup migration mid-slice).
 */
static pid_t run_in(const char *dir, long work_ms, bool join)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	int fd = -1;
	pid_t p;

	if (join) {
		p = fork();
	} else {
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		ca.flags = CLONE_INTO_CGROUP;
		ca.cgroup = fd;
		p = syscall(SYS_clone3, &ca, sizeof(ca));
	}
	if (p == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		if (join && tool_join_cgroup(dir))
			_exit(1);
		tool_spin_cpu_s(work_ms / 1e3, 1000);
		_exit(0);
	}
	if (fd >= 0)
		close(fd);
	return p;
}

static void worker(const struct churn_opts *o, struct churn_shared *sh, int j,
		   double deadline)
{
	char levels[MAX_DEPTH][PATH_MAX];
	int status, err;
	pid_t p;

	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	for (long i = 0; !stop && tool_mono_s() < deadline; i++) {
		if (o->count &&
		    __atomic_fetch_add(&sh->made, 1, __ATOMIC_SEQ_CST) >= o->count)
			break;
		err = make_levels(o, j, i, levels);
		if (err) {
			fprintf(stderr, "cgchurn: mkdir under %s: %s\n", o->dir, strerror(-err));
			sh->failed[j]++;
			break;
		}
		sh->cgroups[j] += o->depth;
		p = run_in(levels[o->depth - 1], o->work_ms, o->join);
		if (p < 0) {
			sh->failed[j]++;
		} else {
			while (waitpid(p, &status, 0) < 0 && errno == EINTR)
				;
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				sh->procs[j]++;
			else
				sh->failed[j]++;
		}
		for (int k = o->depth - 1; k >= 0; k--) {
			err = remove_dir(levels[k], &sh->busy[j]);
			if (err) {
				fprintf(stderr, "cgchurn: rmdir %s: %s\n", levels[k],
					strerror(-err));
				sh->failed[j]++;
			}
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: cgchurn [-d SECONDS] [-n COUNT] [-j JOBS] [-w WORK_MS] "
		   "[-D DEPTH] [-J] [-o FILE] DIR\n");
}

static int parse_args(int argc, char **argv, struct churn_opts *o)
{
	const struct tool_opt opts[] = {
		{ 'd', TOOL_POS, &o->seconds, 0, HUGE_VAL },
		{ 'n', TOOL_LONG, &o->count, 1, LONG_MAX },
		{ 'j', TOOL_INT, &o->jobs, 1, MAX_JOBS },
		{ 'w', TOOL_LONG, &o->work_ms, 0, LONG_MAX },
		{ 'D', TOOL_INT, &o->depth, 1, MAX_DEPTH },
		{ 'J', TOOL_FLAG, &o->join },
		{ 'o', TOOL_STR, &o->output },
	};

	*o = (struct churn_opts){ .seconds = 5, .jobs = 2, .work_ms = 20, .depth = 1 };
	if (tool_getopt(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), "cgchurn", usage) ||
	    tool_nargs(argc - optind, 1, usage))
		return -EINVAL;
	o->dir = argv[optind];
	return 0;
}

static int report(const struct churn_opts *o, const struct churn_shared *sh,
		  double secs)
{
	long cg = 0, procs = 0, busy = 0, failed = 0;
	FILE *f = stdout;

	for (int j = 0; j < o->jobs; j++) {
		cg += sh->cgroups[j];
		procs += sh->procs[j];
		busy += sh->busy[j];
		failed += sh->failed[j];
	}
	if (o->output && !(f = fopen(o->output, "w"))) {
		perror(o->output);
		return -1;
	}
	fprintf(f, "cgroups=%ld procs=%ld seconds=%.6f children_cpu_s=%.6f self_cpu_s=%.6f busy_retries=%ld failed=%ld\n",
		cg, procs, secs, tool_rusage_s(RUSAGE_CHILDREN),
		tool_rusage_s(RUSAGE_SELF), busy, failed);
	if (fflush(f) || (f != stdout && fclose(f)))
		return -1;
	return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	pid_t workers[MAX_JOBS];
	struct churn_shared *sh;
	struct churn_opts o;
	double t0;
	int ret = 0;

	if (parse_args(argc, argv, &o))
		return 2;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("cgchurn: mmap");
		return 1;
	}
	memset(sh, 0, sizeof(*sh));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	t0 = tool_mono_s();
	for (int j = 0; j < o.jobs; j++) {
		workers[j] = fork();
		if (workers[j] < 0) {
			perror("cgchurn: fork");
			o.jobs = j;
			ret = 1;
			break;
		}
		if (workers[j] == 0) {
			worker(&o, sh, j, t0 + o.seconds);
			_exit(0);
		}
	}
	if (tool_wait_workers(workers, o.jobs))
		ret = 1;
	if (report(&o, sh, tool_mono_s() - t0))
		ret = 1;
	return ret;
}
