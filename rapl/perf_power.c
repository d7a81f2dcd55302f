// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RAPL through the perf "power" PMU: ROOT/type, ROOT/cpumask (one CPU per
 * package), ROOT/events/energy-{pkg,cores,ram,psys} with their .scale and
 * .unit. One counting event per package on its cpumask CPU (pid = -1),
 * read() from userspace: the kernel keeps a 64-bit total across the 32-bit
 * MSR wraps, so deltas are plain u64 differences; a step no package can
 * draw (an MSR reset, which the kernel counts as a wrap) is refused.
 */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common/array.h"
#include "rapl/energy.h"

#define PP_PACKAGE (-1)		/* perf_power_event.dom: energy-pkg */
#define PP_PSYS (-2)		/* energy-psys: the platform, opened once */

struct perf_power_event {
	int fd;
	int phys_id;
	int dom;		/* PP_PACKAGE, PP_PSYS or enum energy_domain */
	int cpu;
	__u64 config;
	double scale;		/* joules per count */
	__u64 prev;
	bool has_prev;
	bool warned;
};

struct perf_power {
	struct perf_power_event *ev;
	int nr;
	size_t alloc;
};

static const struct {
	const char *name;
	int dom;
} pp_events[] = {
	{ "energy-pkg", PP_PACKAGE },
	{ "energy-cores", ENERGY_DOM_CORE },
	{ "energy-ram", ENERGY_DOM_DRAM },
	{ "energy-psys", PP_PSYS },
};

int perf_power__parse_config(const char *s, __u64 *config)
{
	unsigned long long v;
	int n = -1;

	/* the power PMU's format is config:0-7; nothing but event= is known */
	if (sscanf(s, "event=%llx%n", &v, &n) != 1 || n < 0)
		return -EINVAL;
	if (s[n] == '\n')
		n++;
	if (s[n] || strncmp(s, "event=0x", 8) || v > 0xff)
		return -EINVAL;
	*config = v;
	return 0;
}

static int cpus__parse_num(const char **p, int *v)
{
	long x = 0;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	for (; **p >= '0' && **p <= '9'; (*p)++) {
		x = x * 10 + (**p - '0');
		if (x > INT_MAX)
			return -EINVAL;
	}
	*v = (int)x;
	return 0;
}

int perf_power__parse_cpus(const char *s, int *cpus, int max)
{
	const char *p = s;
	int lo, hi, n = 0;

	for (;;) {
		if (cpus__parse_num(&p, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (cpus__parse_num(&p, &hi) || hi < lo)
				return -EINVAL;
		}
		/* no lo++ past hi: hi may be INT_MAX */
		for (;;) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = lo;
			if (lo == hi)
				break;
			lo++;
		}
		if (*p != ',')
			break;
		p++;
	}
	if (*p == '\n')
		p++;
	return *p ? -EINVAL : n;
}

static int pp__add(struct perf_power *pp, const struct perf_power_event *e)
{
	if (array__grow(&pp->ev, &pp->alloc, pp->nr + 1, sizeof(*e)))
		return -ENOMEM;
	pp->ev[pp->nr++] = *e;
	return 0;
}

/* config and scale of event name; -ENOENT when the PMU lacks it. */
static int pp__event_desc(const char *root, const char *name, __u64 *config,
			  double *scale, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[64], *end;
	int ret;

	ret = rapl__path(path, sizeof(path), "%s/events/%s", root, name);
	if (!ret)
		ret = rapl__read_str(path, buf, sizeof(buf));
	if (ret)
		goto out;
	ret = perf_power__parse_config(buf, config);
	if (ret) {
		snprintf(err, errlen, "%s: unexpected '%.*s'", path,
			 (int)strcspn(buf, "\n"), buf);
		goto out;
	}
	ret = rapl__path(path, sizeof(path), "%s/events/%s.unit", root, name);
	if (!ret && !rapl__read_str(path, buf, sizeof(buf)) &&
	    strcmp(buf, "Joules\n") && strcmp(buf, "Joules")) {
		snprintf(err, errlen, "%s: unit '%.*s', expected Joules", path,
			 (int)strcspn(buf, "\n"), buf);
		ret = -EINVAL;
		goto out;
	}
	ret = rapl__path(path, sizeof(path), "%s/events/%s.scale", root, name);
	if (!ret)
		ret = rapl__read_str(path, buf, sizeof(buf));
	if (!ret) {
		errno = 0;
		*scale = strtod(buf, &end);
		if (errno || end == buf || (*end && *end != '\n') ||
		    !(*scale > 0))
			ret = -EINVAL;
	}
	if (ret)
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EINVAL ? "not a positive number" :
			 strerror(-ret));
out:
	return ret;
}

static int pp__open_one(int type, __u64 config, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void pp__open_advice(int ret, int cpu, char *err, size_t errlen)
{
	if (ret == -EACCES || ret == -EPERM)
		snprintf(err, errlen,
			 "perf power PMU on CPU %d: %s (run as root, or with CAP_PERFMON, or perf_event_paranoid <= 0)",
			 cpu, strerror(-ret));
	else
		snprintf(err, errlen, "perf power PMU on CPU %d: %s", cpu,
			 strerror(-ret));
}

/*
 * Open event k of pp_events on every cpumask CPU (psys: the first only).
 * energy-pkg is required; the others are skipped when absent or refused.
 */
static int pp__open_event(struct energy_source *s, struct perf_power *pp,
			  const char *root, int type, int k, const int *cpus,
			  int ncpus, char *err, size_t errlen)
{
	struct perf_power_event e;
	bool required = pp_events[k].dom == PP_PACKAGE;
	int i, ret;

	memset(&e, 0, sizeof(e));
	e.dom = pp_events[k].dom;
	ret = pp__event_desc(root, pp_events[k].name, &e.config, &e.scale,
			     err, errlen);
	if (ret == -ENOENT && required)
		snprintf(err, errlen, "%s/events/%s: no such event", root,
			 pp_events[k].name);
	if (ret)
		goto out;
	for (i = 0; i < ncpus; i++) {
		e.cpu = cpus[i];
		e.phys_id = s->topo.phys_of_cpu[cpus[i]];
		e.fd = pp__open_one(type, e.config, cpus[i]);
		if (e.fd < 0) {
			ret = e.fd;
			pp__open_advice(ret, cpus[i], err, errlen);
			goto out;
		}
		ret = pp__add(pp, &e);
		if (ret) {
			close(e.fd);
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		if (e.dom == PP_PSYS)
			break;
	}
out:
	if (ret && !required && ret != -ENOMEM) {
		err[0] = '\0';
		ret = 0;
	}
	return ret;
}

static void perf_power__close(struct energy_source *s)
{
	struct perf_power *pp = s->priv;
	int i;

	if (!pp)
		return;
	for (i = 0; i < pp->nr; i++)
		close(pp->ev[i].fd);
	free(pp->ev);
	free(pp);
	s->priv = NULL;
}

static int perf_power__open(struct energy_source *s, const char *arg,
			    char *err, size_t errlen)
{
	const char *root = s->opts->perf_pmu_root;
	char path[PATH_MAX], buf[4096];
	int cpus[ENERGY_MAX_PACKAGES];
	struct perf_power *pp = NULL;
	__u64 type;
	int k, ncpus, ret;

	(void)arg;
	if (!root)
		root = ENERGY_PERF_PMU_ROOT;
	ret = rapl__path(path, sizeof(path), "%s/type", root);
	if (!ret)
		ret = rapl__read_u64(path, &type);
	if (ret == -ENOENT || ret == -ENOTDIR) {
		snprintf(err, errlen, "no perf power PMU at %s", root);
		ret = -ENOENT;
		goto out;
	}
	if (!ret && type > INT_MAX)
		ret = -ERANGE;
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		goto out;
	}
	ret = rapl__path(path, sizeof(path), "%s/cpumask", root);
	if (!ret)
		ret = rapl__read_str(path, buf, sizeof(buf));
	if (!ret) {
		ncpus = perf_power__parse_cpus(buf, cpus, ENERGY_MAX_PACKAGES);
		ret = ncpus < 0 ? ncpus : ncpus ? 0 : -EINVAL;
	}
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, ret == -EINVAL ?
			 "not a CPU list" : strerror(-ret));
		goto out;
	}
	for (k = 0; k < ncpus; k++) {
		if (cpus[k] >= s->topo.ncpus ||
		    s->topo.phys_of_cpu[cpus[k]] == CPU_TOPOLOGY_UNKNOWN) {
			snprintf(err, errlen, "%s: CPU %d has no package", path,
				 cpus[k]);
			ret = -ENOENT;
			goto out;
		}
	}
	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	s->priv = pp;
	for (k = 0; k < (int)(sizeof(pp_events) / sizeof(pp_events[0])); k++) {
		ret = pp__open_event(s, pp, root, (int)type, k, cpus, ncpus,
				     err, errlen);
		if (ret)
			goto out;
	}
out:
	if (ret)
		perf_power__close(s);
	return ret;
}

int perf_power__delta_j(__u64 prev, __u64 cur, double scale, double dt,
			double *joules)
{
	double j;
	int ret;

	if (cur < prev)
		return -ERANGE;
	j = (double)(cur - prev) * scale;
	ret = energy_step__check(j, 0, dt);
	if (!ret)
		*joules = j;
	return ret;
}

static const char *pp__event_name(const struct perf_power_event *e)
{
	size_t k;

	for (k = 0; k < sizeof(pp_events) / sizeof(pp_events[0]); k++)
		if (pp_events[k].dom == e->dom)
			return pp_events[k].name;
	return "?";
}

/*
 * This interval's joules of e: 0, or -errno. After a failed read the
 * event starts afresh, so the energy of an interval that could not be
 * read is not handed to the next one. The kernel's 64-bit total does not
 * wrap, but the MSR under it can be reset (firmware), which the kernel
 * takes for a 32-bit wrap: a step no zone can draw in dt gives nothing
 * this interval, and counting goes on from the new value.
 */
static int pp__read_event(struct energy_source *s, struct perf_power_event *e,
			  double dt, double *joules)
{
	char why[96];
	__u64 v = 0;
	ssize_t n;
	int ret = 0;

	n = read(e->fd, &v, sizeof(v));
	if (n != sizeof(v)) {
		ret = n < 0 ? -errno : -EIO;
		if (!e->warned)
			energy_source__warn(s, "perf power event %s on CPU %d: %s",
					    pp__event_name(e), e->cpu,
					    strerror(-ret));
		e->warned = true;
		e->has_prev = false;
		goto out;
	}
	if (!e->has_prev) {
		ret = -EAGAIN;
	} else {
		ret = perf_power__delta_j(e->prev, v, e->scale, dt, joules);
		if (ret && !e->warned) {
			if (v < e->prev)
				snprintf(why, sizeof(why), "went back");
			else
				snprintf(why, sizeof(why), "%.1f J in %.3f s",
					 (double)(v - e->prev) * e->scale, dt);
			energy_source__warn(s, "perf power event %s on CPU %d: %llu after %llu counts (%s): a counter reset, not energy: none this interval",
					    pp__event_name(e), e->cpu,
					    (unsigned long long)v,
					    (unsigned long long)e->prev, why);
			e->warned = true;
		}
	}
	/* a first value, a good step or a reset: the next one starts here */
	e->prev = v;
	e->has_prev = true;
out:
	return ret;
}

static int perf_power__read(struct energy_source *s, bool first, double dt,
			    const double *busy_ns, struct energy_sample *out)
{
	struct perf_power *pp = s->priv;
	unsigned int bad_dom[ENERGY_MAX_PACKAGES] = { 0 };
	bool bad[ENERGY_MAX_PACKAGES] = { false };
	int i, p;

	(void)first;
	(void)busy_ns;
	for (i = 0; i < pp->nr; i++) {
		struct perf_power_event *e = &pp->ev[i];
		struct energy_pkg_sample *ps;
		double j = 0;
		int ret = pp__read_event(s, e, dt, &j);

		if (e->dom == PP_PSYS) {
			out->has_psys = true;
			out->psys_valid = !ret;
			out->psys_j = j;
			continue;
		}
		p = cpu_topology__index(&s->topo, e->phys_id);
		if (p < 0)
			continue;
		ps = &out->pkg[p];
		if (e->dom == PP_PACKAGE) {
			ps->valid = true;
			ps->joules += j;
			if (ret)
				bad[p] = true;
			continue;
		}
		ps->dom_mask |= 1U << e->dom;
		ps->dom_j[e->dom] += j;
		if (ret)
			bad_dom[p] |= 1U << e->dom;
	}
	for (p = 0; p < out->nr_packages; p++) {
		if (bad[p]) {
			out->pkg[p].valid = false;
			out->pkg[p].joules = 0;
		}
		out->pkg[p].dom_valid = out->pkg[p].dom_mask & ~bad_dom[p];
	}
	return 0;
}

const struct energy_source_ops energy_perf_ops = {
	.name = "perf",
	.open = perf_power__open,
	.read = perf_power__read,
	.close = perf_power__close,
};
