// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A multi-threaded workload whose threads burn different amounts of CPU,
 * for the thread scope's tests (tests/integration/stat_threads.sh): one
 * thread per SHARE, each busy SHARE% of every 10 ms and asleep the rest,
 * for SECONDS; the main thread sleeps. Once all run, their tids (in SHARE
 * order) go to DIR/tids, one a line.
 *
 * -x SECS: one more thread, started with the others, burns SECS of its
 * own CPU time (however long that takes), writes its tid and its
 * schedstat runtime (ns, read by itself just before it ends) to
 * DIR/exited, then exits while the others go on.
 *
 * -g: gated: the SHARE threads burn only while DIR/run exists, and
 * otherwise look for it every 50 ms (about 0.1 ms of CPU time a second
 * here). A test opens the gate for a window it reads the runtime of, so
 * a tool counting from before to after that window counts nothing else.
 *
 *   threads [-g] [-x SECS] DIR SECONDS SHARE...
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include "tools/tool.h"

#define PERIOD_S 0.01
#define GATE_POLL_S 0.05
#define MAX_THREADS 16

struct worker {
	double share;		/* of a CPU, 0..1; < 0: the exiting one */
	double until;		/* CLOCK_MONOTONIC s */
	double burn_s;		/* the exiting one's CPU time */
	const char *dir;
	const char *gate;	/* DIR/run with -g, else NULL */
	pid_t tid;
	pthread_barrier_t *started;
};

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	if (s > 0)
		nanosleep(&ts, NULL);
}

/* Spin until this thread has used secs of CPU time. */
static void spin_thread_s(double secs)
{
	volatile unsigned long sink = 0;

	while (thread_cpu_s() < secs)
		for (int i = 0; i < 2000; i++)
			sink += i;
}

/* The exiting thread: its runtime, read by itself, then it ends. */
static void exiting(struct worker *w)
{
	char path[512], buf[256] = "";
	FILE *f;

	spin_thread_s(w->burn_s);
	f = fopen("/proc/thread-self/schedstat", "re");
	if (!f || !fgets(buf, sizeof(buf), f))
		perror("/proc/thread-self/schedstat");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/exited.tmp", w->dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d %llu\n", w->tid, strtoull(buf, NULL, 10));
		fclose(f);
		snprintf(buf, sizeof(buf), "%s/exited", w->dir);
		rename(path, buf);
	}
}

static void *worker__run(void *arg)
{
	struct worker *w = arg;

	w->tid = syscall(SYS_gettid);
	pthread_barrier_wait(w->started);
	if (w->share < 0) {
		exiting(w);
		return NULL;
	}
	while (tool_mono_s() < w->until) {
		double t0 = tool_mono_s();

		if (w->gate && access(w->gate, F_OK)) {
			sleep_s(GATE_POLL_S);
			continue;
		}

		while (tool_mono_s() - t0 < w->share * PERIOD_S)
			;
		sleep_s(PERIOD_S - (tool_mono_s() - t0));
	}
	return NULL;
}

/* DIR/tids, whole once there (renamed into place): a test polls for it. */
static int write_tids(const char *dir, const struct worker *w, int n)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/tids.tmp", dir);
	snprintf(path, sizeof(path), "%s/tids", dir);
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		return -1;
	}
	for (int i = 0; i < n; i++)
		fprintf(f, "%d\n", w[i].tid);
	if (fclose(f) || rename(tmp, path)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS + 1];
	pthread_t th[MAX_THREADS + 1];
	pthread_barrier_t started;
	double secs, burn_x = -1;
	char *end, gate[512];
	bool gated = false;
	int n = 0, i;

	if (argc > 1 && !strcmp(argv[1], "-g")) {
		gated = true;
		argv++;
		argc--;
	}
	if (argc > 2 && !strcmp(argv[1], "-x")) {
		burn_x = strtod(argv[2], &end);
		if (*end || burn_x <= 0)
			goto usage;
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || argc - 3 > MAX_THREADS)
		goto usage;
	secs = strtod(argv[2], &end);
	if (*end || secs <= 0)
		goto usage;
	for (i = 3; i < argc; i++) {
		double s = strtod(argv[i], &end) / 100;

		if (*end || s <= 0 || s > 1)
			goto usage;
		w[n++] = (struct worker){ .share = s };
	}
	if (burn_x > 0)
		w[n++] = (struct worker){ .share = -1, .burn_s = burn_x };
	snprintf(gate, sizeof(gate), "%s/run", argv[1]);
	pthread_barrier_init(&started, NULL, n + 1);
	for (i = 0; i < n; i++) {
		w[i].until = tool_mono_s() + secs;
		w[i].dir = argv[1];
		w[i].gate = gated ? gate : NULL;
		w[i].started = &started;
		if (pthread_create(&th[i], NULL, worker__run, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&started);
	if (write_tids(argv[1], w, n))
		return 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
usage:
	fprintf(stderr, "usage: threads [-g] [-x SECS] DIR SECONDS SHARE%%...\n");
	return 2;
}
