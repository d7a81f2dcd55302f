// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf stat's targets. -p selects the process rows of the pids given (a
 * process's threads all add into its row), so it works the same with an
 * own engine and attached to the daemon; -C keeps the CPU rows of the
 * CPUs given and sums the system row over them. Both are checked here,
 * before anything is loaded, so that a bad one is exit status 2.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/stat_targets.h"
#include "common/log.h"

static bool pid__alive(pid_t pid)
{
	/* EPERM: it exists, only not ours to signal */
	return !kill(pid, 0) || errno == EPERM;
}

int stat_targets__pids(struct stat_targets *t, const char *arg)
{
	const char *p = arg;
	char *end;
	long v;

	t->nr_pids = 0;
	t->pid_list = arg;
	do {
		v = strtol(p, &end, 10);
		if (end == p || v <= 0 || v > INT32_MAX || (*end && *end != ',')) {
			pr_err("bad pid list '%s' for -p: pids separated by commas", arg);
			return -EINVAL;
		}
		if (t->nr_pids == STAT_MAX_PIDS) {
			pr_err("too many pids for -p: at most %d", STAT_MAX_PIDS);
			return -EINVAL;
		}
		if (!pid__alive(v)) {
			pr_err("no such process for -p: %ld", v);
			return -EINVAL;
		}
		t->pids[t->nr_pids++] = v;
		p = end + 1;
	} while (*end);
	return 0;
}

int stat_targets__cpus(struct stat_targets *t, const char *arg,
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

bool stat_targets__has_pid(const struct stat_targets *t, pid_t pid)
{
	for (int i = 0; i < t->nr_pids; i++)
		if (t->pids[i] == pid)
			return true;
	return false;
}

bool stat_targets__pids_gone(const struct stat_targets *t)
{
	for (int i = 0; i < t->nr_pids; i++)
		if (pid__alive(t->pids[i]))
			return false;
	return t->nr_pids > 0;
}
