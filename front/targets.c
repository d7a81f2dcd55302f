// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf stat's targets. -p selects the process rows of the pids given (a
 * process's threads all add into its row), so it works the same with an
 * own engine and attached to the daemon; -t the thread rows of the tids
 * given (the thread scope, engine_opts.max_tids); -C keeps the CPU rows of the
 * CPUs given and sums the system row over them. Both are checked here,
 * before anything is loaded, so that a bad one is exit status 2.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "front/targets.h"
#include "common/log.h"

static bool pid__alive(pid_t pid)
{
	/* EPERM: it exists, only not ours to signal */
	return !kill(pid, 0) || errno == EPERM;
}

/* A list of ids for -p or -t (what: "pid", "thread"): each alive. */
static int id_list__parse(const char *arg, char opt, const char *what,
			  pid_t *ids, int max, int *nr)
{
	const char *p = arg;
	char *end;
	long v;

	*nr = 0;
	do {
		v = strtol(p, &end, 10);
		if (end == p || v <= 0 || v > INT32_MAX || (*end && *end != ',')) {
			pr_err("bad %s list '%s' for -%c: %ss separated by commas",
			       what, arg, opt, what);
			return -EINVAL;
		}
		if (*nr == max) {
			pr_err("too many %ss for -%c: at most %d", what, opt, max);
			return -EINVAL;
		}
		/* kill() takes a tid too: it finds the task by its id */
		if (!pid__alive(v)) {
			pr_err("no such %s for -%c: %ld", opt == 'p' ? "process" : what,
			       opt, v);
			return -EINVAL;
		}
		ids[(*nr)++] = v;
		p = end + 1;
	} while (*end);
	return 0;
}

int targets__pids(struct targets *t, const char *arg)
{
	t->pid_list = arg;
	return id_list__parse(arg, 'p', "pid", t->pids, STAT_MAX_PIDS, &t->nr_pids);
}

int targets__tids(struct targets *t, const char *arg)
{
	t->tid_list = arg;
	return id_list__parse(arg, 't', "thread", t->tids, STAT_MAX_TIDS, &t->nr_tids);
}

bool targets__has_tid(const struct targets *t, pid_t tid)
{
	for (int i = 0; i < t->nr_tids; i++)
		if (t->tids[i] == tid)
			return true;
	return false;
}

/* A thread's process and name from /proc; false when it is gone. */
static bool thread__read(const char *proc, pid_t tid, struct target_thread *th)
{
	char path[128], buf[512], *p;
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc, tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	th->tid = tid;
	th->pid = 0;
	th->comm[0] = '\0';
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (!strncmp(buf, "Name:\t", 6)) {
			snprintf(th->comm, sizeof(th->comm), "%.15s", buf + 6);
		} else if (!strncmp(buf, "Tgid:\t", 6)) {
			th->pid = strtol(buf + 6, &p, 10);
			ok = true;
		}
	}
	fclose(f);
	return ok;
}

static int start_thr__add(struct targets *t, const struct target_thread *th,
			  size_t *cap)
{
	if (array__grow(&t->start_thr, cap, t->nr_start_thr + 1, sizeof(*th)))
		return -ENOMEM;
	t->start_thr[t->nr_start_thr++] = *th;
	return 0;
}

int targets__start_threads(struct targets *t, const char *proc)
{
	struct target_thread th;
	struct dirent *d;
	char path[128];
	size_t cap = 0;
	int err = 0;
	DIR *dir;

	t->nr_start_thr = 0;
	for (int i = 0; i < t->nr_tids && !err; i++)
		if (thread__read(proc, t->tids[i], &th))
			err = start_thr__add(t, &th, &cap);
	for (int i = 0; i < t->nr_pids && !err; i++) {
		snprintf(path, sizeof(path), "%s/%d/task", proc, t->pids[i]);
		dir = opendir(path);
		while (dir && !err && (d = readdir(dir))) {
			char *end;
			long tid = strtol(d->d_name, &end, 10);

			if (d->d_name[0] == '.' || *end || tid <= 0)
				continue;
			/* perf's per-thread rows: the process's threads */
			if (thread__read(proc, tid, &th))
				err = start_thr__add(t, &th, &cap);
		}
		if (dir)
			closedir(dir);
	}
	return err;
}

void targets__exit(struct targets *t)
{
	free(t->start_thr);
	t->start_thr = NULL;
	t->nr_start_thr = 0;
}

int targets__cpus(struct targets *t, const char *arg,
		  const char *online_path)
{
	struct pmu_cpus online;
	char buf[4096] = "";
	FILE *f;

	t->cpu_list = arg;
	/* sysfs' parser takes "1," (the kernel never writes it); perf does not */
	if (!*arg || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") ||
	    pmu_cpus__parse(&t->cpus, arg)) {
		pr_err("bad CPU list '%s' for -C: numbers and ranges such as 0-3,8 (below %d)",
		       arg, PMU_MAX_CPUS);
		return -EINVAL;
	}
	f = fopen(online_path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		pr_err("cannot read %s for -C: %s", online_path, strerror(f ? EIO : errno));
		if (f)
			fclose(f);
		return -EINVAL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (pmu_cpus__parse(&online, buf)) {
		pr_err("cannot parse %s: '%s'", online_path, buf);
		return -EINVAL;
	}
	t->nr_cpus = 0;
	for (int cpu = 0; cpu < PMU_MAX_CPUS; cpu++) {
		if (!pmu_cpus__has(&t->cpus, cpu))
			continue;
		if (!pmu_cpus__has(&online, cpu)) {
			pr_err("CPU %d of -C '%s' is not online (online: %s)", cpu, arg, buf);
			return -EINVAL;
		}
		t->nr_cpus++;
	}
	t->has_cpus = true;
	return 0;
}

bool targets__has_pid(const struct targets *t, pid_t pid)
{
	for (int i = 0; i < t->nr_pids; i++)
		if (t->pids[i] == pid)
			return true;
	return false;
}

bool targets__pids_gone(const struct targets *t)
{
	for (int i = 0; i < t->nr_pids; i++)
		if (pid__alive(t->pids[i]))
			return false;
	for (int i = 0; i < t->nr_tids; i++)
		if (pid__alive(t->tids[i]))
			return false;
	return t->nr_pids + t->nr_tids > 0;
}
