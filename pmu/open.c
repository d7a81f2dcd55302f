// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The per-CPU counting events: one perf_event per online CPU (pid = -1),
 * which the BPF program reads at every switch, and what their failures
 * mean to the user. On a machine of several core PMUs (x86 hybrid, Arm
 * big.LITTLE) each CPU's event is opened with the attr of the PMU that
 * covers it: one fd per CPU as before, so the counts of the event's
 * variants add up in its one row with nothing else changed. A PMU that
 * cannot count the event leaves its CPUs at -1, said once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common/log.h"
#include "pmu/event.h"

static int sys_perf_event_open(const struct perf_event_attr *attr, pid_t pid,
			       int cpu, int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int sys_perf_event_enable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

static const struct pmu_sys_ops sys_ops_default = {
	.open = sys_perf_event_open,
	.close = close,
	.enable = sys_perf_event_enable,
};
static const struct pmu_sys_ops *sys_ops = &sys_ops_default;

void pmu_sys__set_ops(const struct pmu_sys_ops *ops)
{
	sys_ops = ops ?: &sys_ops_default;
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

/* Index of the variant covering cpu, -1 for none */
static int event__variant_of(const struct pmu_event *e, int cpu)
{
	for (int i = 0; i < e->nr_variants; i++) {
		if (pmu_sysfs__has_cpu(e->variant[i].pmu, cpu))
			return i;
	}
	return -1;
}

const struct perf_event_attr *pmu_event__attr_on(const struct pmu_event *e,
						 int cpu, int *err)
{
	int v;

	*err = 0;
	if (!e->nr_variants)
		return &e->attr;
	v = event__variant_of(e, cpu);
	*err = v < 0 ? -ENOENT : e->variant[v].open_err;
	return *err ? NULL : &e->variant[v].attr;
}

/* The last of e's group to join its leader's perf_events, NULL if none */
static const struct pmu_event *group__last_member(const struct pmu_event *e)
{
	const struct pmu_event *first = e + e->group_off, *lead = NULL;
	const struct pmu_event *last = NULL;

	for (int i = 0; i < first->group_nr; i++) {
		if (!pmu_event__has_counter(first + i))
			continue;
		if (lead)
			last = first + i;
		else
			lead = first + i;
	}
	return last;
}

/*
 * A member joining a per-CPU leader that already counts is not scheduled
 * until the group is scheduled in again, which for software events (no
 * rotation) is never: its running time stays 0. As perf does, a leader
 * with members opens disabled and is enabled once the last one joined.
 */
static bool event__opens_disabled(const struct pmu_event *e)
{
	return pmu_event__scale_leader(e) == e && pmu_event__has_counter(e) &&
	       group__last_member(e);
}

static int event__open_cpu(const struct pmu_event *e,
			   const struct perf_event_attr *attr, int cpu,
			   int group_fd)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.disabled = event__opens_disabled(e);
	fd = sys_ops->open(&a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* e joined its group on cpu (-1: on every CPU): enable the group if it was the last */
static int group__enable(const struct pmu_event *e, int cpu)
{
	const struct pmu_event *lead = pmu_event__scale_leader(e);
	int c = cpu < 0 ? 0 : cpu;

	if (group__last_member(e) != e || !sys_ops->enable)
		return 0;
	for (; c < lead->nr_fds && (cpu < 0 || c == cpu); c++) {
		if (lead->fds[c] >= 0 && sys_ops->enable(lead->fds[c]))
			return -errno;
	}
	return 0;
}

const struct pmu_event *pmu_event__scale_leader(const struct pmu_event *e)
{
	const struct pmu_event *first = e + e->group_off;

	if (!pmu_event__has_counter(e))
		return e;	/* the switch's own: no perf_event, no scaling */
	for (int i = 0; i < first->group_nr && first + i != e; i++) {
		if (pmu_event__has_counter(first + i))
			return first + i;
	}
	return e;
}

/*
 * The group_fd of e on cpu: -1 for a leader or an event in no group;
 * -ENOENT for a member whose leader is not open there (nor is it, then).
 */
static int event__group_fd(const struct pmu_event *e, int cpu)
{
	const struct pmu_event *lead = pmu_event__scale_leader(e);

	if (lead == e)
		return -1;
	if (!lead->fds || cpu >= lead->nr_fds || lead->fds[cpu] < 0)
		return -ENOENT;
	return lead->fds[cpu];
}

int pmu_event__probe(const struct pmu_event *e, int cpu)
{
	const struct perf_event_attr *attr;
	int fd, err;

	if (!pmu_event__has_counter(e))
		return 0;
	attr = pmu_event__attr_on(e, cpu, &err);
	if (!attr)
		return err;
	fd = event__open_cpu(e, attr, cpu, -1);
	if (fd < 0)
		return fd;
	sys_ops->close(fd);
	return 0;
}

void pmu_event__close(struct pmu_event *e)
{
	int cpu;

	for (cpu = 0; e->fds && cpu < e->nr_fds; cpu++) {
		if (e->fds[cpu] >= 0)
			sys_ops->close(e->fds[cpu]);
	}
	free(e->fds);
	e->fds = NULL;
	e->nr_fds = 0;
	e->supported = false;
}

int pmu_event__reopen_cpu(struct pmu_event *e, int cpu)
{
	const struct perf_event_attr *attr;
	int fd, err, group_fd;

	if (!e->fds || cpu < 0 || cpu >= e->nr_fds)
		return -EINVAL;
	if (e->fds[cpu] >= 0)
		sys_ops->close(e->fds[cpu]);
	e->fds[cpu] = -1;
	if (!pmu_event__has_counter(e))
		return 0;
	attr = pmu_event__attr_on(e, cpu, &err);
	group_fd = event__group_fd(e, cpu);
	if (!attr || group_fd == -ENOENT)	/* as when it was opened */
		return 0;
	fd = event__open_cpu(e, attr, cpu, group_fd);
	if (fd < 0)
		return fd;
	e->fds[cpu] = fd;
	return group__enable(e, cpu);
}

/* Say once, per PMU, which CPUs miss the counts of a supported event. */
static void event__warn_partial(const struct pmu_event *e)
{
	char cpus[64];

	for (int i = 0; e->supported && i < e->nr_variants; i++) {
		const struct pmu_event_variant *v = &e->variant[i];

		if (!v->open_err)
			continue;
		pmu_cpus__format(&v->pmu->cpus, cpus, sizeof(cpus));
		pr_warn("'%s' is <not supported> on PMU %s (CPUs %s: %s): counted on the other CPUs only",
			e->name, v->pmu->name, cpus,
			v->absent ? "no such event there" :
			pmu_event__strerror(v->open_err));
	}
}

/*
 * Open e on cpu; 0, 1 when its PMU cannot count e (first CPU of that PMU
 * only: after that every failure is a real error, reported with its CPU),
 * or -errno with err set. opened[v + 1] says whether variant v (-1: e's
 * own attr) has a CPU open.
 */
static int event__open_on(struct pmu_event *e, int cpu, bool *opened,
			  char *err, size_t errlen)
{
	const struct perf_event_attr *attr;
	int v = event__variant_of(e, cpu), fd, ret;
	int group_fd = event__group_fd(e, cpu);

	if (e->nr_variants && (v < 0 || e->variant[v].open_err))
		return 0;	/* no PMU here, or one known not to count it */
	if (group_fd == -ENOENT)
		return 0;	/* its leader does not count here */
	attr = v < 0 ? &e->attr : &e->variant[v].attr;
	fd = event__open_cpu(e, attr, cpu, group_fd);
	if (fd >= 0) {
		e->fds[cpu] = fd;
		opened[v + 1] = true;
		return 0;
	}
	ret = fd;
	if (!opened[v + 1] && open_err__is_unsupported(ret)) {
		if (v >= 0)
			e->variant[v].open_err = ret;
		if (!e->open_err)
			e->open_err = ret;
		return 1;
	}
	e->open_err = ret;
	snprintf(err, errlen, "cannot open '%s' on CPU %d: %s", e->name, cpu,
		 pmu_event__strerror(ret));
	return ret;
}

/* fds for ncpus, every one -1; 0 or -errno with err set */
static int event__alloc_fds(struct pmu_event *e, int ncpus, char *err,
			    size_t errlen)
{
	if (ncpus <= 0) {
		snprintf(err, errlen, "cannot open '%s': no CPUs", e->name);
		return -EINVAL;
	}
	e->fds = malloc(ncpus * sizeof(*e->fds));
	if (!e->fds) {
		snprintf(err, errlen, "cannot open '%s': out of memory",
			 e->name);
		return -ENOMEM;
	}
	e->nr_fds = ncpus;
	for (int cpu = 0; cpu < ncpus; cpu++)
		e->fds[cpu] = -1;
	return 0;
}

/*
 * The first CPU of each PMU decides whether that PMU can count the event
 * at all; the event is supported where one can.
 */
int pmu_event__open(struct pmu_event *e, int ncpus, const bool *online,
		    char *err, size_t errlen)
{
	bool opened[PMU_EVENT_MAX_VARIANTS + 1] = {}, unsupported = false;
	int ret, cpu, i;

	pmu_event__close(e);
	e->open_err = 0;
	for (i = 0; i < e->nr_variants; i++)
		e->variant[i].open_err = e->variant[i].absent ? -ENOENT : 0;
	ret = event__alloc_fds(e, ncpus, err, errlen);
	if (ret)
		goto out;
	if (!pmu_event__has_counter(e)) {
		e->supported = true;	/* the switch program counts it */
		goto out;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (!online[cpu])
			continue;
		ret = event__open_on(e, cpu, opened, err, errlen);
		if (ret < 0)
			goto out;
		unsupported |= ret;
		ret = 0;
		if (unsupported && !e->nr_variants)
			goto out;	/* the one PMU cannot count it */
	}
	for (i = 0; i <= PMU_EVENT_MAX_VARIANTS; i++)
		e->supported |= opened[i];
	for (i = 0; i < e->nr_variants && !e->open_err; i++)
		e->open_err = e->variant[i].open_err;
	if (!e->supported && !e->open_err) {
		ret = -EINVAL;
		snprintf(err, errlen, "cannot open '%s': no online CPU",
			 e->name);
		goto out;
	}
	if (e->supported)
		e->open_err = 0;
	event__warn_partial(e);
out:
	if (!e->supported && e->fds) {
		/* keep an all -1 array: callers index fds[cpu] either way */
		for (cpu = 0; cpu < e->nr_fds; cpu++) {
			if (e->fds[cpu] >= 0)
				sys_ops->close(e->fds[cpu]);
			e->fds[cpu] = -1;
		}
	}
	return ret;
}

/*
 * One event of e's group could not be opened: perf fails the whole
 * group, so each of its events is <not supported> for that reason, its
 * fds closed (an array of -1 kept, or made for those not opened yet).
 */
static int group__fail(struct pmu_event *e, int ncpus, char *err,
		       size_t errlen)
{
	struct pmu_event *first = e + e->group_off;
	int ret = 0;

	for (int i = 0; i < first->group_nr && !ret; i++) {
		struct pmu_event *m = first + i;

		if (m->fds) {
			for (int cpu = 0; cpu < m->nr_fds; cpu++) {
				if (m->fds[cpu] >= 0)
					sys_ops->close(m->fds[cpu]);
				m->fds[cpu] = -1;
			}
		} else {
			ret = event__alloc_fds(m, ncpus, err, errlen);
		}
		m->supported = false;
		m->open_err = e->open_err;
	}
	if (!ret)
		pr_debug("group of '%s' <not supported>: '%s' cannot be counted (%s)",
			 first->name, e->name, pmu_event__strerror(e->open_err));
	return ret;
}

int pmu_event_list__open(struct pmu_event_list *l, int ncpus,
			 const bool *online, char *err, size_t errlen)
{
	int ret = 0;

	for (int i = 0; i < l->nr && !ret; i++) {
		struct pmu_event *e = &l->ev[i], *first = e + e->group_off;

		ret = pmu_event__open(e, ncpus, online, err, errlen);
		if (!ret && e->supported) {
			ret = group__enable(e, -1);
			if (ret)
				snprintf(err, errlen, "cannot enable the group of '%s': %s",
					 e->name, pmu_event__strerror(ret));
		}
		if (ret || e->supported || first->group_nr < 2)
			continue;
		ret = group__fail(e, ncpus, err, errlen);
		i = first - l->ev + first->group_nr - 1;	/* its last */
	}
	return ret;
}
