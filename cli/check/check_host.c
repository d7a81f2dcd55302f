// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * check's facts about the host: what emon-perf needs of the kernel (BTF,
 * the BPF program and map types and helpers it loads), the perf settings
 * and PMUs that decide which events count, the energy sources and the
 * cgroup2 mount. Each is one row; nothing here changes the host.
 */
#define _GNU_SOURCE
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "cli/check/check.h"
#include "engine/names/cgroup.h"
#include "engine/session/features.h"
#include "engine/session/session.h"
#include "pmu/event.h"
#include "rapl/energy.h"
#include "rapl/files.h"

#define PMU_ROOT "/sys/bus/event_source/devices"

static int host__read(const char *path, char *buf, size_t len)
{
	int ret = rapl__read_str(path, buf, len);

	buf[ret ? 0 : strcspn(buf, "\n")] = 0;
	return ret;
}

static void host__kernel(struct check_report *r)
{
	struct utsname u;

	if (uname(&u))
		check__add(r, CHECK_WARN, "kernel", "uname: %s", strerror(errno));
	else
		check_row__figure(check__add(r, CHECK_INFO, "kernel", "%s %s", u.sysname,
					     u.machine), NAN, "", "%s", u.release);
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		check__add(r, CHECK_FAIL, "btf", "/sys/kernel/btf/vmlinux: %s (the BPF "
			   "programs need the kernel's BTF: CONFIG_DEBUG_INFO_BTF=y)",
			   strerror(errno));
	else
		check__add(r, CHECK_OK, "btf", "/sys/kernel/btf/vmlinux");
}

/*
 * The kernel's features, one row each (engine/session/features.h): those the BPF
 * object needs, ok or fail, then those it uses where the kernel has them,
 * ok or the slower path it takes without. Each row's figure is the first
 * Linux version that has the feature.
 */
static void host__bpf(struct check_report *r)
{
	const struct kfeature *f = kfeatures__get();
	char since[32];

	for (int i = KF_BTF + 1; i < KF_NR; i++) {
		bool needed = i < KF_NR_NEEDED;
		enum check_status st = f[i].have ? CHECK_OK : f[i].unknown ? CHECK_SKIP :
				       needed ? CHECK_FAIL : CHECK_INFO;

		snprintf(since, sizeof(since), "Linux %s", f[i].since);
		check_row__figure(check__add(r, st, f[i].name, "%s%s",
					     f[i].unknown ? "not probed (root?): " :
					     f[i].have ? "" : needed ? "missing: " : "without it: ",
					     f[i].have || f[i].unknown ? f[i].uses : f[i].without),
				  NAN, "", "%s", since);
	}
}

static void host__perf_settings(struct check_report *r, bool pmu)
{
	char buf[64];
	long v;

	if (host__read("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf))) {
		check__add(r, CHECK_SKIP, "perf_event_paranoid", "cannot read it");
	} else {
		v = atol(buf);
		check_row__figure(check__add(r, !geteuid() || v <= 0 ? CHECK_OK : CHECK_WARN,
					     "perf_event_paranoid", "%s",
					     !geteuid() ? "root: it does not apply" :
					     v <= 0 ? "per-CPU events allowed" :
					     "per-CPU events need root or CAP_PERFMON"),
				  v, "", "%ld", v);
	}
	if (host__read("/proc/sys/kernel/nmi_watchdog", buf, sizeof(buf))) {
		check__add(r, CHECK_SKIP, "nmi_watchdog", "no /proc/sys/kernel/nmi_watchdog");
	} else {
		v = atol(buf);
		check_row__figure(check__add(r, v && pmu ? CHECK_WARN : CHECK_OK,
					     "nmi_watchdog", "%s",
					     !v ? "off: every counter is free" :
					     pmu ? "on: it holds a hardware counter "
						   "(sysctl kernel.nmi_watchdog=0 frees it)" :
					     "on, but no core PMU here: it holds none"),
				  v, "", "%ld", v);
	}
}

/* Core PMUs in sysfs: cpu (x86), cpu_core and cpu_atom (hybrid), armv8_*
 * (arm64); their names, and the rdpmc setting of the first. */
static bool host__pmus(struct check_report *r)
{
	char names[256] = "", path[PATH_MAX], buf[32], rdpmc[64] = "";
	struct dirent *d;
	size_t n = 0;
	DIR *dir = opendir(PMU_ROOT);

	while (dir && (d = readdir(dir))) {
		if (strcmp(d->d_name, "cpu") && strncmp(d->d_name, "cpu_", 4) &&
		    strncmp(d->d_name, "armv8_", 6) && strncmp(d->d_name, "armv7_", 6))
			continue;
		n += snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0,
			      "%s%s", n ? ", " : "", d->d_name);
		snprintf(path, sizeof(path), PMU_ROOT "/%s/rdpmc", d->d_name);
		if (!rdpmc[0] && !host__read(path, buf, sizeof(buf)))
			snprintf(rdpmc, sizeof(rdpmc), "%s", buf);
	}
	if (dir)
		closedir(dir);
	if (!n) {
		check__add(r, CHECK_SKIP, "core PMU", "none under " PMU_ROOT
			   " (a VM without a virtual PMU?): no hardware events");
		check__add(r, CHECK_SKIP, "rdpmc", "no core PMU");
		return false;
	}
	check_row__figure(check__add(r, CHECK_OK, "core PMU", "under " PMU_ROOT),
			  NAN, "", "%s", names);
	if (rdpmc[0])
		check_row__figure(check__add(r, CHECK_INFO, "rdpmc", "%s",
					     !strcmp(rdpmc, "0") ? "user-space reads off" :
					     !strcmp(rdpmc, "2") ? "user-space reads for every task" :
					     "user-space reads for tasks with an mmap'ed event"),
				  atof(rdpmc), "", "%s", rdpmc);
	else
		check__add(r, CHECK_SKIP, "rdpmc", "the PMU has no rdpmc setting");
	return true;
}

/* Can the event open on CPU 0 (pid -1, as the engine opens it)? */
static bool host__event(struct check_report *r, char *why, size_t len,
			const char *name)
{
	struct pmu_event e;
	char err[200] = "";
	int ret;

	ret = pmu_event__resolve(&e, name, err, sizeof(err));
	if (!ret)
		ret = pmu_event__probe(&e, 0);
	if (!ret) {
		check__add(r, CHECK_OK, name, "opens on CPU 0");
		return true;
	}
	snprintf(why, len, "%s: %s", name,
		 ret == -EINVAL && err[0] ? err : pmu_event__strerror(ret));
	check__add(r, CHECK_SKIP, name, "%s", why);
	return false;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
/* Architectural perfmon (CPUID leaf 0xA): general and fixed counters. */
static void host__counters(struct check_report *r, bool nmi_holds)
{
	unsigned int a, b, c, d, gp, fixed;

	if (!__get_cpuid(0xa, &a, &b, &c, &d) || !(a & 0xff)) {
		check__add(r, CHECK_SKIP, "counters", "the CPU reports no architectural "
			   "PMU (CPUID 0xA): none to count with");
		return;
	}
	gp = (a >> 8) & 0xff;
	fixed = d & 0x1f;
	check_row__figure(check__add(r, CHECK_INFO, "counters",
				     "%u general + %u fixed per CPU (CPUID 0xA)%s; how many "
				     "other users hold is not known", gp, fixed,
				     nmi_holds ? ", the NMI watchdog holds one" : ""),
			  gp - nmi_holds, "", "%u free of %u", gp - nmi_holds, gp);
}
#else
static void host__counters(struct check_report *r, bool nmi_holds)
{
	(void)nmi_holds;
	check__add(r, CHECK_INFO, "counters", "unknown: not probed on this architecture");
}
#endif

static void host__powercap(struct check_report *r, struct check_host *h,
			   const char *root)
{
	char path[PATH_MAX], buf[32];
	struct dirent *d;
	int zones = 0, readable = 0;
	DIR *dir = opendir(root);

	while (dir && (d = readdir(dir))) {
		if (strncmp(d->d_name, "intel-rapl:", 11))
			continue;
		zones++;
		snprintf(path, sizeof(path), "%s/%s/energy_uj", root, d->d_name);
		readable += !host__read(path, buf, sizeof(buf));
	}
	if (dir)
		closedir(dir);
	h->has_powercap = zones && readable == zones;
	if (!zones)
		check__add(r, CHECK_SKIP, "powercap", "no intel-rapl zones under %s", root);
	else if (!h->has_powercap)
		check__add(r, CHECK_WARN, "powercap", "%d of %d zones' energy_uj readable by "
			   "uid %d (root only since CVE-2020-8694)", readable, zones,
			   (int)geteuid());
	else
		check_row__figure(check__add(r, CHECK_OK, "powercap", "energy_uj readable "
					     "under %s", root), zones, "zones", "%d zone%s", zones, zones > 1 ? "s" : "");
}

static void host__power_pmu(struct check_report *r, struct check_host *h)
{
	char events[256] = "";
	struct dirent *d;
	size_t n = 0;
	DIR *dir = opendir(PMU_ROOT "/power/events");

	while (dir && (d = readdir(dir))) {
		if (strncmp(d->d_name, "energy-", 7) || strchr(d->d_name, '.'))
			continue;
		h->has_power_pmu |= !strcmp(d->d_name, "energy-pkg");
		n += snprintf(events + n, n < sizeof(events) ? sizeof(events) - n : 0,
			      "%s%s", n ? ", " : "", d->d_name);
	}
	if (dir)
		closedir(dir);
	if (!n)
		check__add(r, CHECK_SKIP, "power PMU", "no " PMU_ROOT "/power");
	else
		check_row__figure(check__add(r, h->has_power_pmu ? CHECK_OK : CHECK_INFO,
					     "power PMU", "%s", h->has_power_pmu ?
					     "perf's RAPL events" : "no energy-pkg: not a "
					     "package's energy"), NAN, "", "%s", events);
}

/* hwmon's energy sources (libsensors): which open here, and their scope */
static void host__sensors(struct check_report *r)
{
	static const char *const names[] = { "amd_energy", "power_meter", "scmi" };
	char found[256] = "", err[256];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct energy_source *s = energy_source__open(names[i], NULL,
							      sysconf(_SC_NPROCESSORS_CONF),
							      NULL, err, sizeof(err));

		if (!s)
			continue;
		n += snprintf(found + n, n < sizeof(found) ? sizeof(found) - n : 0,
			      "%s%s (%s)", n ? ", " : "", names[i],
			      energy_source__scopes_of(names[i]));
		energy_source__close(s);
	}
	if (!n)
		check__add(r, CHECK_SKIP, "hwmon energy", "no amd_energy, power_meter or "
			   "scmi sensor (libsensors; emon-perf list energy)");
	else
		check_row__figure(check__add(r, CHECK_OK, "hwmon energy", "--energy "
					     "sources through libsensors"), NAN, "", "%s", found);
}

void check_host__run(struct check_report *r, struct check_host *h,
		     const struct check_opts *o)
{
	const char *root = o->powercap_root ?: "/sys/class/powercap";
	bool pmu, nmi = false;
	char buf[16];

	host__kernel(r);
	host__bpf(r);
	pmu = host__pmus(r);
	host__perf_settings(r, pmu);
	if (pmu && !host__read("/proc/sys/kernel/nmi_watchdog", buf, sizeof(buf)))
		nmi = atoi(buf) != 0;
	if (pmu)
		host__counters(r, nmi);
	else
		check__add(r, CHECK_SKIP, "counters", "no core PMU");
	h->has_cycles = host__event(r, h->cycles_reason, sizeof(h->cycles_reason),
				    "cycles");
	h->has_instructions = host__event(r, h->instructions_reason,
					  sizeof(h->instructions_reason), "instructions");
	host__powercap(r, h, root);
	host__power_pmu(r, h);
	host__sensors(r);
	check_gpu__run(r, o->gpu_lib);
	if (o->powercap_root)
		h->energy_reason[0] = 0;
	else if (!h->has_powercap || !h->has_power_pmu)
		snprintf(h->energy_reason, sizeof(h->energy_reason),
			 "needs both readable powercap zones and the power PMU's energy-pkg "
			 "(here: %s, %s)", h->has_powercap ? "powercap" : "no powercap",
			 h->has_power_pmu ? "energy-pkg" : "no energy-pkg");
	if (cgroup__find_mount("/proc/mounts", h->cgroot, sizeof(h->cgroot))) {
		h->cgroot[0] = 0;
		check__add(r, CHECK_FAIL, "cgroup2", "no cgroup2 file system in /proc/mounts");
	} else {
		check_row__figure(check__add(r, CHECK_OK, "cgroup2", "the cgroup v2 mount"),
				  NAN, "", "%s", h->cgroot);
	}
}
