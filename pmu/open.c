// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The per-CPU counting events: one perf_event per online CPU (pid = -1),
 * which the BPF program reads at every switch, and what their failures
 * mean to the user.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "pmu/event.h"

static int sys_perf_event_open(const struct perf_event_attr *attr, pid_t pid,
			       int cpu, int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* errnos by which perf_event_open says "this PMU cannot count that" */
static bool open_err__is_unsupported(int open_err)
{
	return open_err == -ENOENT || open_err == -EOPNOTSUPP ||
	       open_err == -ENODEV || open_err == -EINVAL;
}

const char *pmu_event__strerror(int open_err)
{
	switch (open_err) {
	case 0:
		return "supported";
	case -ENOENT:
	case -EOPNOTSUPP:
		return "not supported on this PMU (a VM?)";
	case -ENODEV:
		return "no such PMU on this machine (a VM?)";
	case -EINVAL:
		return "rejected by the PMU (event or modifier not valid here)";
	case -EACCES:
	case -EPERM:
		return "permission denied: need root, or CAP_PERFMON (and CAP_BPF), or kernel.perf_event_paranoid <= 0";
	case -EMFILE:
	case -ENFILE:
		return "too many open files: one per event per CPU is needed, raise the limit (ulimit -n)";
	case -EBUSY:
		return "counter busy (held by another tool or the NMI watchdog?)";
	default:
		return strerror(-open_err);
	}
}

int pmu_event__probe(const struct pmu_event *e, int cpu)
{
	int fd;

	if (!pmu_event__has_counter(e))
		return 0;
	fd = sys_perf_event_open(&e->attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

void pmu_event__close(struct pmu_event *e)
{
	int cpu;

	for (cpu = 0; e->fds && cpu < e->nr_fds; cpu++) {
		if (e->fds[cpu] >= 0)
			close(e->fds[cpu]);
	}
	free(e->fds);
	e->fds = NULL;
	e->nr_fds = 0;
	e->supported = false;
}

int pmu_event__reopen_cpu(struct pmu_event *e, int cpu)
{
	int fd;

	if (!e->fds || cpu < 0 || cpu >= e->nr_fds)
		return -EINVAL;
	if (e->fds[cpu] >= 0)
		close(e->fds[cpu]);
	e->fds[cpu] = -1;
	if (!pmu_event__has_counter(e))
		return 0;
	fd = sys_perf_event_open(&e->attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	e->fds[cpu] = fd;
	return 0;
}

/*
 * The first CPU decides whether the PMU can count the event at all; after
 * that every failure is a real error (descriptors, memory, a CPU that went
 * away), reported with the CPU it happened on.
 */
int pmu_event__open(struct pmu_event *e, int ncpus, const bool *online,
		    char *err, size_t errlen)
{
	bool first = true;
	int ret = 0, cpu, fd;

	pmu_event__close(e);
	e->open_err = 0;
	if (ncpus <= 0) {
		ret = -EINVAL;
		snprintf(err, errlen, "cannot open '%s': no CPUs", e->name);
		goto out;
	}
	e->fds = malloc(ncpus * sizeof(*e->fds));
	if (!e->fds) {
		ret = -ENOMEM;
		snprintf(err, errlen, "cannot open '%s': out of memory",
			 e->name);
		goto out;
	}
	e->nr_fds = ncpus;
	for (cpu = 0; cpu < ncpus; cpu++)
		e->fds[cpu] = -1;
	if (!pmu_event__has_counter(e)) {
		e->supported = true;	/* the switch program counts it */
		goto out;
	}

	for (cpu = 0; cpu < ncpus; cpu++) {
		if (!online[cpu])
			continue;
		fd = sys_perf_event_open(&e->attr, -1, cpu, -1,
					 PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			e->open_err = ret;
			if (first && open_err__is_unsupported(ret))
				ret = 0;
			else
				snprintf(err, errlen,
					 "cannot open '%s' on CPU %d: %s",
					 e->name, cpu, pmu_event__strerror(ret));
			goto out;
		}
		e->fds[cpu] = fd;
		first = false;
	}
	if (first) {
		ret = -EINVAL;
		snprintf(err, errlen, "cannot open '%s': no online CPU",
			 e->name);
		goto out;
	}
	e->supported = true;
out:
	if (!e->supported && e->fds) {
		/* keep an all -1 array: callers index fds[cpu] either way */
		for (cpu = 0; cpu < e->nr_fds; cpu++) {
			if (e->fds[cpu] >= 0)
				close(e->fds[cpu]);
			e->fds[cpu] = -1;
		}
	}
	return ret;
}
