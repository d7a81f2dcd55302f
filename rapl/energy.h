/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Energy per package per interval, from one of several sources behind a
 * const ops table, and its split between the keys that ran.
 *
 *   powercap  /sys/class/powercap/intel-rapl:N (Intel and AMD), sub-zones
 *             core, uncore, dram, psys by their name files
 *   perf      the perf "power" PMU (energy-pkg, energy-cores, energy-ram,
 *             energy-psys), one event per package on the PMU's cpumask CPU
 *   model     model:IDLE_W:MAX_W per package, from the busy fraction the
 *             caller counted; estimated, and labelled so
 *   amd_energy, power_meter, scmi
 *             hwmon sensors through libsensors (sensors.c): AMD's energy
 *             per core and per socket, ACPI's platform power meter, Arm
 *             SCMI's energy (or power) sensors; "sensors": the first of
 *             the three found
 *   auto      powercap, else perf, else amd_energy, power_meter, scmi,
 *             else nothing (with a reason)
 *
 * The caller reads once to set the baseline, then once per interval; every
 * read after the first gives the energy since the previous one. Packages
 * are numbered densely (0..nr_packages-1) in physical_package_id order;
 * energy_source__package_id() gives the id back for printing.
 *
 * Nothing here prints: warnings come back in energy_sample.warning and
 * errors in the err buffer, for the caller to print.
 */
#ifndef RAPL_ENERGY_H
#define RAPL_ENERGY_H

#include <limits.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "rapl/files.h"
#include "rapl/topology.h"

#define ENERGY_WARN_LEN 512

#define ENERGY_POWERCAP_ROOT "/sys/class/powercap"
#define ENERGY_PERF_PMU_ROOT "/sys/bus/event_source/devices/power"

/* Parts of a package a source may measure besides the package itself. */
enum energy_domain {
	ENERGY_DOM_CORE,
	ENERGY_DOM_UNCORE,
	ENERGY_DOM_DRAM,
	ENERGY_DOM_PSYS,
	ENERGY_DOM_NR,
};

/* "core", "uncore", "dram", "psys"; NULL when out of range. */
const char *energy_domain__name(int dom);

/*
 * Where a source's joules were measured, so which CPUs' work they are
 * split by (docs/energy.md):
 *   package   a package's CPUs (RAPL, the model; amd_energy's socket
 *             counter less its cores')
 *   core      one core's CPUs (amd_energy's per-core counters)
 *   platform  every CPU (ACPI power_meter, SCMI)
 *   dram      measured per package, shown on socket rows, not split
 *   gpu       a GPU's, split by its processes (NVML)
 *   vm-host   a VM's share measured by its host
 */
enum energy_scope {
	ENERGY_SCOPE_PACKAGE,
	ENERGY_SCOPE_CORE,
	ENERGY_SCOPE_PLATFORM,
	ENERGY_SCOPE_DRAM,
	ENERGY_SCOPE_GPU,
	ENERGY_SCOPE_VM_HOST,
	ENERGY_SCOPE_NR,
};

/* "package", "core", ...; NULL when out of range. */
const char *energy_scope__name(int scope);
/* The scopes whose joules a source of this name (energy_source, as
 * snapshots carry it) splits, "+"-separated, the finest first:
 * "package" (powercap, perf, model), "core+package" (amd_energy),
 * "platform" (power_meter, scmi); NULL for a name it does not know. */
const char *energy_source__scopes_of(const char *source_name);

/* Units of a core or platform scope in one sample (cores of the largest
 * servers: 2 x 192 x 2 threads) */
#define ENERGY_MAX_UNITS 1024

struct energy_pkg_sample {
	/* false: no energy for this package this interval (the baseline
	 * read, a file that vanished or held garbage, a counter reset):
	 * leave it out, do not count it as 0 J. */
	bool valid;
	double joules;
	unsigned int dom_mask;		/* 1 << dom: the source has it */
	unsigned int dom_valid;		/* 1 << dom: dom_j[dom] is this interval's */
	double dom_j[ENERGY_DOM_NR];
};

struct energy_sample {
	bool baseline;			/* the first read: nothing valid */
	int nr_packages;
	struct energy_pkg_sample pkg[ENERGY_MAX_PACKAGES];
	/* Platform energy (a top-level "psys" zone, perf energy-psys): not
	 * a package's, never split. */
	bool has_psys;
	bool psys_valid;
	double psys_j;
	/*
	 * A scope other than the packages' (unit_scope, ENERGY_SCOPE_PACKAGE:
	 * none): unit u measures the CPUs energy_source__unit_of_cpu() maps
	 * to it, and is split by what ran there. Core units are parts of
	 * their package: the package's joules include them and its dom_j
	 * [ENERGY_DOM_CORE] is their sum, so the package splits the rest. A
	 * platform's one unit is no package's: the packages are not valid.
	 */
	int unit_scope;
	int nr_units;
	bool unit_valid[ENERGY_MAX_UNITS];
	double unit_j[ENERGY_MAX_UNITS];
	/* Non-empty: new problems since the last read, each reported once
	 * per zone for the whole run ("; "-separated), for stderr. */
	char warning[ENERGY_WARN_LEN];
};

struct energy_opts {
	const char *spec;		/* auto|powercap|perf|model:IDLE_W:MAX_W|none; NULL: auto */
	const char *powercap_root;	/* NULL: ENERGY_POWERCAP_ROOT */
	const char *cpu_root;		/* NULL: ENERGY_CPU_ROOT */
	const char *perf_pmu_root;	/* NULL: ENERGY_PERF_PMU_ROOT */
	int ncpus;			/* possible CPUs: 0..ncpus-1 */
};

struct energy_source;

/*
 * Open the source o->spec names. Returns NULL when there is no source:
 *  - *errp < 0, err set: an error. -EINVAL: bad spec ("bad --energy value
 *    'x'"), -ENOENT: the source asked for is not there ("no RAPL powercap
 *    zones under DIR"); both are usage errors (exit 2). Others (-EACCES,
 *    -EPERM: privileges, advice in err; -ENOMEM) are runtime failures.
 *  - *errp == 0: "none", err empty; or "auto" found nothing, err holds the
 *    one-line reason for stderr ("no energy source: powercap: ...; perf: ...").
 * errp may be NULL.
 */
struct energy_source *energy_source__open_opts(const struct energy_opts *o,
					       int *errp, char *err,
					       size_t errlen);
/* The same with the default CPU and perf PMU roots. */
struct energy_source *energy_source__open(const char *spec,
					  const char *powercap_root, int ncpus,
					  int *errp, char *err, size_t errlen);
void energy_source__close(struct energy_source *s);

/* "powercap", "perf", "model", "amd_energy", "power_meter", "scmi" */
const char *energy_source__name(const struct energy_source *s);
/* The scope of the source's units (ENERGY_SCOPE_PACKAGE: none), their
 * number, and the unit of a CPU (-1: none). */
int energy_source__unit_scope(const struct energy_source *s);
int energy_source__nr_units(const struct energy_source *s);
int energy_source__unit_of_cpu(const struct energy_source *s, int cpu);
/* The same as an array of the ncpus the source was opened for, the
 * source's (NULL: no units). */
const int *energy_source__unit_map(const struct energy_source *s);
/* true for the model: outputs must say "estimated". */
bool energy_source__is_estimated(const struct energy_source *s);
int energy_source__nr_packages(const struct energy_source *s);
/* Dense package index of cpu, -1 when unknown (offline, out of range). */
int energy_source__package_of_cpu(const struct energy_source *s, int cpu);
/* physical_package_id of dense package index pkg, -1 when out of range. */
int energy_source__package_id(const struct energy_source *s, int pkg);
/* CPUs of package pkg whose topology could be read (online ones). */
int energy_source__nr_cpus_of_package(const struct energy_source *s, int pkg);

/*
 * Energy since the previous read; the first read only sets the baseline
 * (out->baseline, no package valid). dt: the interval's length, seconds;
 * measured sources refuse steps no zone can draw in it (a reset, see
 * energy_step__check()), so it must be the real one, or 0 for unknown.
 * busy_ns[pkg]: ns of CPU time on the package's CPUs of every task but the
 * idle one (cpu-clock, minus tgid 0's) this interval; the model needs it,
 * other sources ignore it (may be NULL for them). Returns 0 (per-package
 * problems are in out->pkg[].valid and out->warning), or -EINVAL.
 */
int energy_source__read(struct energy_source *s, double dt,
			const double *busy_ns, struct energy_sample *out);

/* Pure: some package, or the platform, has this interval's energy. */
bool energy_sample__any_valid(const struct energy_sample *es);

/*
 * dst += k * src, pure: joules of every package, sub-zone and psys; a
 * package, zone or psys is valid only where both are (an unknown part
 * makes the sum unknown). src's warning is appended to dst's. For two
 * reads that end one interval (see engine/engine.c engine__tick).
 */
void energy_sample__add(struct energy_sample *dst,
			const struct energy_sample *src, double k);

/*
 * Split package energy between keys, pure. With N keys and P packages:
 *
 *   E(key) = sum over valid p of  E'(p) * m[key][p] / m_all[p]
 *   E'(p)  = E(p) - S(p),  S(p) = min(E(p), static_j)   -> static_key
 *
 * m is the split metric (cycles, else cpu-clock) each key counted on the
 * package's CPUs, m_all[p] the same over all keys, the idle task included,
 * so that keys which partition the work (processes with the idle task,
 * leaf cgroups, containers plus host) conserve energy: their E(key) add up
 * to the package energy. Overlapping keys (a cgroup and its parent) each
 * get their own share; they just do not add up.
 */
struct energy_split {
	int nr_keys;
	int nr_packages;
	const double *pkg_j;	/* [P] measured energy */
	const bool *pkg_valid;	/* [P], NULL: all valid; invalid ones split nothing */
	const double *m;	/* [N * P] row-major: m[key * P + p] */
	const double *m_all;	/* [P], NULL: the sum of m over the keys */
	int idle_key;		/* gets E'(p) when m_all[p] == 0 */
	int static_key;		/* gets S(p); may equal idle_key */
	double static_j;	/* idle watts x dt, per package; 0: none */
};

/* out_j[N] gets each key's joules. 0, or -EINVAL for a NaN, a negative
 * value or a key index out of range. */
int energy_split__compute(const struct energy_split *sp, double *out_j);

/*
 * The same split when each key ran on one unit (a package, a core, the
 * platform), in O(keys + units) rather than keys x units: key k ran on
 * unit key_unit[k] (-1: none, it gets nothing but what idle_key or
 * static_key get), and m_all[u] is the sum of m over u's keys. The
 * result is the dense split's for the matrix with m[k] in column
 * key_unit[k], to the bit where idle_key and static_key have m = 0 (as
 * engine/attribute.c's idle key), else the same sums in another order.
 */
struct energy_split_units {
	int nr_keys;
	int nr_units;
	const double *unit_j;	/* [U] measured energy */
	const bool *unit_valid;	/* [U], NULL: all valid */
	const int *key_unit;	/* [N] */
	const double *m;	/* [N] */
	int idle_key;		/* gets E'(u) when m_all[u] == 0 */
	int static_key;
	double static_j;	/* per unit */
};

/* out_j[N]; 0, or -EINVAL (as energy_split__compute) */
int energy_split__units(const struct energy_split_units *sp, double *out_j);

/*
 * Pure: the joules a power sensor's readings stand for over dt seconds,
 * prev_w the reading at the interval's start and cur_w at its end.
 * average: the sensor reports its mean over a window that ends at the
 * read (hwmon's powerN_average, ACPI's power_meter): cur_w x dt, exact
 * when the window is the interval. Otherwise (powerN_input, the power
 * now): the trapezoid, (prev_w + cur_w) / 2 x dt, exact for a power that
 * changes linearly. 0 when dt is not > 0; -1 (no energy) for a negative,
 * infinite or NaN reading.
 */
double energy_power__joules(double prev_w, double cur_w, double dt, bool average);

/* Pure: power = idle + (max - idle) x busy_ns / (ncpus x dt), x dt. The
 * busy fraction is clamped to [0, 1]; 0 J when ncpus or dt is not > 0. */
double energy_model__joules(double idle_w, double max_w, double busy_ns,
			    int ncpus, double dt);
/* "IDLE_W:MAX_W" with 0 <= IDLE_W <= MAX_W, MAX_W > 0; 0 or -EINVAL. */
int energy_model__parse(const char *arg, double *idle_w, double *max_w);

/*
 * Pure: the energy a powercap counter (energy_uj, counting 0..range and
 * then 0 again) advanced from prev to cur, in microjoules. The counter is
 * taken modulo range + 1, the kernel's max_energy_range_uj convention; the
 * true step from range to 0 is one hardware energy unit (~15-61 uJ), so a
 * wrap undercounts by at most that. A read that lags a whole lap behind
 * cannot be seen: read well within the wrap time (minutes at full power).
 * range == 0 means unknown: then cur < prev cannot be resolved.
 * Returns 0, or -ERANGE (value above range; backwards with no range).
 * A reset (firmware, driver, a rewritten fake tree) looks like a wrap
 * here: energy_step__check() is what tells the two apart.
 */
int rapl__delta_uj(__u64 prev, __u64 cur, __u64 range, __u64 *delta);

/*
 * The most power one zone (a package, a die, a sub-zone, the platform)
 * can draw. The largest sockets sold are rated 500 W and burst to about
 * twice that, so a counter step above this is a reset or garbage, never
 * energy; 5x the worst real case leaves room for a read that comes late
 * against the dt it is checked with.
 */
#define ENERGY_MAX_WATTS 5000.0
/* Added to dt for that ceiling: RAPL counters move in ~1 ms updates, and a
 * reader can be descheduled between taking the time and reading. */
#define ENERGY_STEP_SLACK_S 0.01

/*
 * Pure: 0 when a counter step of j joules over dt seconds can be energy,
 * -ERANGE when it cannot:
 *  - more than half the counter's range (range_j; 0: unknown, no check).
 *    A reset to a small value comes out of the wrap arithmetic as nearly
 *    a whole lap, a genuine wrap between reads taken twice a lap or more
 *    as less than half of one (reads come every second at most: a real
 *    counter's half lap is minutes even at full power);
 *  - more than ENERGY_MAX_WATTS x (dt + ENERGY_STEP_SLACK_S), when dt > 0
 *    (dt <= 0: the caller does not know, no check);
 *  - negative, infinite, or not a number.
 * The caller then reports no energy for the interval and takes the new
 * value as its baseline.
 */
int energy_step__check(double j, double range_j, double dt);

/*
 * Pure: the joules of a perf power event from count prev to cur (the
 * kernel keeps a 64-bit total: no wrap), scale joules per count, over dt
 * seconds. 0, or -ERANGE: cur < prev (a counter that went back: a reset)
 * or a step energy_step__check() refuses.
 */
int perf_power__delta_j(__u64 prev, __u64 cur, double scale, double dt,
			double *joules);


/* --- backends ------------------------------------------------------------ */

struct energy_source_ops {
	const char *name;
	bool estimated;
	/* arg: what followed "name:" in the spec, or NULL. On failure: free
	 * what it allocated, set err, return -ENOENT when the source is
	 * absent, another -errno otherwise. */
	int (*open)(struct energy_source *s, const char *arg,
		    char *err, size_t errlen);
	/* Fill out->pkg[] (zeroed, nr_packages set by the caller); first is
	 * true for the baseline read. */
	int (*read)(struct energy_source *s, bool first, double dt,
		    const double *busy_ns, struct energy_sample *out);
	void (*close)(struct energy_source *s);
};

extern const struct energy_source_ops energy_powercap_ops;
extern const struct energy_source_ops energy_perf_ops;
extern const struct energy_source_ops energy_model_ops;
extern const struct energy_source_ops energy_amd_ops;
extern const struct energy_source_ops energy_power_meter_ops;
extern const struct energy_source_ops energy_scmi_ops;

struct energy_source {
	const struct energy_source_ops *ops;
	const struct energy_opts *opts;	/* during open only */
	struct cpu_topology topo;
	bool started;			/* the baseline was read */
	void *priv;			/* the backend's */
	/* a scope beside the packages' (see energy_sample), set by the
	 * backend's open: unit_of_cpu[ncpus] is its to allocate, ours to free */
	int unit_scope;
	int nr_units;
	int *unit_of_cpu;
	char warning[ENERGY_WARN_LEN];	/* pending for the next sample */
};

/* For backends: queue a warning for the next sample. */
void energy_source__warn(struct energy_source *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));


/* Without an energy source, the choices for this kind of machine in one
 * line (no trailing newline): on a VM (cpuinfo's hypervisor flag, or
 * /sys/hypervisor/type), the model in its share of the host's watts; on
 * a host, the model from its package's watts; both: a powercap-layout
 * tree elsewhere. energy__choices_for(vm) is the same for a given kind. */
const char *energy__choices(void);
const char *energy__choices_for(bool vm);
bool energy__on_vm(void);

/*
 * What libsensors finds on this host: one line per power or energy
 * sensor of the chips the sources read ("amd_energy-isa-0000 Ecore000
 * energy 1234.5 J (amd_energy: core)"), into out (nothing: "none").
 * The number of sensors, or -errno with err set.
 */
int energy_sensors__list(char *out, size_t len, char *err, size_t errlen);

/* perf power PMU parsing, pure: "event=0x02" -> config; "0,28" / "0-3,8"
 * -> CPU list (at most max entries, count returned, or -EINVAL/-E2BIG). */
int perf_power__parse_config(const char *s, __u64 *config);
int perf_power__parse_cpus(const char *s, int *cpus, int max);

#endif /* RAPL_ENERGY_H */
