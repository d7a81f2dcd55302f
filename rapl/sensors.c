// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hwmon power and energy sensors through libsensors (lm-sensors' library,
 * which finds the chips under /sys/class/hwmon, names them, applies the
 * user's sensors3.conf, and scales each value to J or W):
 *
 *   amd_energy   AMD's RAPL counters per core (EcoreNNN, channel N read on
 *                CPU N: the core of CPU N and its SMT siblings) and per
 *                socket (EsocketN: the Nth package); scopes core+package:
 *                each core's joules split by what ran on that core, the
 *                socket's rest (its counter less its cores') by what ran
 *                on the package
 *   power_meter  ACPI's platform power meter: powerN_average, the mean
 *                power over the meter's window, in W; integrated over
 *                each interval (energy_power__joules), every meter
 *                summed; scope platform: split by what ran on every CPU
 *   scmi         Arm SCMI's sensors (chip scmi_sensors): every energy
 *                counter summed, or, with none, every power sensor
 *                integrated; scope platform. SCMI does not say which
 *                CPUs a sensor covers, nor whether one sensor holds
 *                another: scmi:LABEL takes the one sensor of that label
 *
 * NAME:LABEL takes only the sensors of that label, for every kind.
 * Counters are read as joules since boot: a step back is a reset, a step
 * above ENERGY_MAX_WATTS garbage; either leaves the interval without
 * energy (energy_step__check). libsensors is process-wide: one
 * sensors_init() while any source or listing holds it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sensors/error.h>
#include <sensors/sensors.h>
#include "common/array.h"
#include "common/cpu_topo.h"
#include "rapl/energy.h"

enum hw_kind { HW_AMD, HW_POWER_METER, HW_SCMI };

enum hw_what {
	HW_ENERGY,		/* a counter, J */
	HW_POWER_AVG,		/* mean power over the sensor's window, W */
	HW_POWER_NOW,		/* power now, W */
};

struct hw_sensor {
	const sensors_chip_name *chip;
	int nr;			/* subfeature number */
	enum hw_what what;
	int unit;		/* amd: core unit; -1: none */
	int pkg;		/* amd: the socket counter's package; -1: none */
	double prev;		/* counter (J) or power (W) at the last read */
	bool has_prev;
	bool warned;
	char label[32];
};

struct hw_source {
	enum hw_kind kind;
	struct hw_sensor *s;
	size_t nr, alloc;
	int *unit_pkg;		/* amd: [nr_units] package of each core unit */
	double last_t;		/* CLOCK_MONOTONIC of the last read, s */
};

static const char *const kind_chip[] = {
	[HW_AMD] = "amd_energy",
	[HW_POWER_METER] = "power_meter",
	[HW_SCMI] = "scmi_sensors",
};

static int sensors_users;

static int hw__init(char *err, size_t errlen)
{
	int ret;

	if (sensors_users++)
		return 0;
	ret = sensors_init(NULL);
	if (ret) {
		sensors_users = 0;
		snprintf(err, errlen, "libsensors: %s", sensors_strerror(ret));
		return -EIO;
	}
	return 0;
}

static void hw__exit(void)
{
	if (sensors_users > 0 && !--sensors_users)
		sensors_cleanup();
}

static double hw__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The sensor of feature f worth reading, its kind in *what; NULL: none. */
static const sensors_subfeature *hw__subfeature(const sensors_chip_name *chip,
						const sensors_feature *f,
						enum hw_what *what)
{
	const sensors_subfeature *sf = NULL;

	if (f->type == SENSORS_FEATURE_ENERGY) {
		sf = sensors_get_subfeature(chip, f, SENSORS_SUBFEATURE_ENERGY_INPUT);
		*what = HW_ENERGY;
	} else if (f->type == SENSORS_FEATURE_POWER) {
		sf = sensors_get_subfeature(chip, f, SENSORS_SUBFEATURE_POWER_AVERAGE);
		*what = HW_POWER_AVG;
		if (!sf) {
			sf = sensors_get_subfeature(chip, f, SENSORS_SUBFEATURE_POWER_INPUT);
			*what = HW_POWER_NOW;
		}
	}
	return sf && (sf->flags & SENSORS_MODE_R) ? sf : NULL;
}

static int hw__add(struct hw_source *h, const sensors_chip_name *chip,
		   const sensors_subfeature *sf, enum hw_what what,
		   const char *label)
{
	struct hw_sensor *x;

	if (array__grow((void **)&h->s, &h->alloc, h->nr + 1, sizeof(*h->s)))
		return -ENOMEM;
	x = &h->s[h->nr++];
	memset(x, 0, sizeof(*x));
	x->chip = chip;
	x->nr = sf->number;
	x->what = what;
	x->unit = -1;
	x->pkg = -1;
	snprintf(x->label, sizeof(x->label), "%s", label);
	return 0;
}

/* Every readable power and energy sensor of the kind's chips (of label
 * only, when given); scmi keeps its energy counters when it has any. */
static int hw__scan(struct hw_source *h, const char *only)
{
	const sensors_chip_name *chip;
	int c = 0, ret = 0;
	bool energy = false;

	while (!ret && (chip = sensors_get_detected_chips(NULL, &c))) {
		const sensors_feature *f;
		int fi = 0;

		if (!chip->prefix || strcmp(chip->prefix, kind_chip[h->kind]))
			continue;
		while (!ret && (f = sensors_get_features(chip, &fi))) {
			const sensors_subfeature *sf;
			enum hw_what what;
			char *label;

			sf = hw__subfeature(chip, f, &what);
			if (!sf || (h->kind == HW_AMD && what != HW_ENERGY) ||
			    (h->kind == HW_POWER_METER && what == HW_ENERGY))
				continue;
			label = sensors_get_label(chip, f);
			if (!only || (label && !strcmp(label, only))) {
				ret = hw__add(h, chip, sf, what, label ? label : f->name);
				energy |= what == HW_ENERGY;
			}
			free(label);
		}
	}
	if (!ret && h->kind == HW_SCMI && energy) {
		size_t k = 0;

		for (size_t i = 0; i < h->nr; i++)
			if (h->s[i].what == HW_ENERGY)
				h->s[k++] = h->s[i];
		h->nr = k;
	}
	return ret;
}

/* amd_energy: EcoreNNN to the core of CPU NNN, EsocketN to package N. */
static int hw__amd_units(struct energy_source *s, struct hw_source *h)
{
	int ncpus = s->topo.ncpus, nu = 0;
	struct cpu_place *pl = calloc(ncpus, sizeof(*pl));
	bool *known = calloc(ncpus, sizeof(*known));
	size_t k = 0;
	int ret = 0;

	if (!pl || !known) {
		ret = -ENOMEM;
		goto out;
	}
	for (int cpu = 0; cpu < ncpus; cpu++)
		known[cpu] = s->topo.pkg_of_cpu[cpu] >= 0 &&
			     !cpu_place__read(s->opts->cpu_root, cpu, &pl[cpu]);
	for (size_t i = 0; i < h->nr; i++) {
		struct hw_sensor *x = &h->s[i];
		unsigned int n;
		char end;

		if (sscanf(x->label, "Ecore%u%c", &n, &end) == 1) {
			/* a core no online CPU stands for: nothing to split by */
			if (n >= (unsigned int)ncpus || !known[n] || n >= ENERGY_MAX_UNITS)
				continue;
			x->unit = n;
			nu = (int)n + 1 > nu ? (int)n + 1 : nu;
		} else if (sscanf(x->label, "Esocket%u%c", &n, &end) == 1) {
			if (n >= (unsigned int)s->topo.nr_packages)
				continue;
			x->pkg = n;
		} else {
			continue;
		}
		h->s[k++] = *x;
	}
	h->nr = k;
	if (!nu)
		goto out;
	s->unit_of_cpu = malloc(ncpus * sizeof(*s->unit_of_cpu));
	h->unit_pkg = malloc(nu * sizeof(*h->unit_pkg));
	if (!s->unit_of_cpu || !h->unit_pkg) {
		ret = -ENOMEM;
		goto out;
	}
	for (int u = 0; u < nu; u++)
		h->unit_pkg[u] = -1;
	for (int cpu = 0; cpu < ncpus; cpu++)
		s->unit_of_cpu[cpu] = -1;
	for (size_t i = 0; i < h->nr; i++) {
		int u = h->s[i].unit;

		if (u < 0)
			continue;
		h->unit_pkg[u] = s->topo.pkg_of_cpu[u];
		for (int cpu = 0; cpu < ncpus; cpu++)
			if (known[cpu] && pl[cpu].pkg == pl[u].pkg &&
			    pl[cpu].die == pl[u].die && pl[cpu].core == pl[u].core)
				s->unit_of_cpu[cpu] = u;
	}
	s->unit_scope = ENERGY_SCOPE_CORE;
	s->nr_units = nu;
out:
	free(pl);
	free(known);
	return ret;
}

static int hw__open(struct energy_source *s, enum hw_kind kind,
		    const char *arg, char *err, size_t errlen)
{
	struct hw_source *h = calloc(1, sizeof(*h));
	int ret;

	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->kind = kind;
	ret = hw__init(err, errlen);
	if (ret) {
		free(h);
		return ret;
	}
	ret = hw__scan(h, arg);
	if (!ret && kind == HW_AMD)
		ret = hw__amd_units(s, h);
	if (!ret && !h->nr) {
		snprintf(err, errlen, "libsensors finds no %s%s%s%s under /sys/class/hwmon",
			 kind_chip[kind], kind == HW_AMD ? " core or socket counter" :
			 " power or energy sensor", arg ? " labelled " : "", arg ? arg : "");
		ret = -ENOENT;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (!ret && kind != HW_AMD) {
		/* the platform: one unit, every CPU */
		s->unit_of_cpu = calloc(s->topo.ncpus, sizeof(*s->unit_of_cpu));
		if (!s->unit_of_cpu) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
		}
		s->unit_scope = ENERGY_SCOPE_PLATFORM;
		s->nr_units = 1;
	}
	if (ret) {
		free(s->unit_of_cpu);
		s->unit_of_cpu = NULL;
		s->nr_units = 0;
		free(h->s);
		free(h->unit_pkg);
		free(h);
		hw__exit();
		return ret;
	}
	h->last_t = hw__now();
	s->priv = h;
	return 0;
}

/* One sensor's energy since the last read into *j; false: none. */
static bool hw__step(struct energy_source *s, struct hw_sensor *x, bool first,
		     double dt, double dt_own, double *j)
{
	double v;
	int ret = sensors_get_value(x->chip, x->nr, &v);
	bool had = x->has_prev;
	double prev = x->prev;

	*j = 0;
	if (ret || !isfinite(v)) {
		/* a root-only file after serve --user dropped root */
		if (!x->warned)
			energy_source__warn(s, "%s %s: %s%s", x->chip->prefix, x->label,
					    ret ? sensors_strerror(ret) : "not a number",
					    ret == -SENSORS_ERR_KERNEL && geteuid() ?
					    " (unreadable by this uid: a root-only file?)" : "");
		x->warned = true;
		x->has_prev = false;
		return false;
	}
	x->prev = v;
	x->has_prev = true;
	if (first || (!had && x->what != HW_POWER_AVG))
		return false;
	if (x->what == HW_ENERGY) {
		*j = v - prev;
		if (v < prev || energy_step__check(*j, 0, dt)) {
			if (!x->warned)
				energy_source__warn(s, "%s %s: counter went from %.6f to %.6f J "
						    "(a reset?): no energy this interval",
						    x->chip->prefix, x->label, prev, v);
			x->warned = true;
			*j = 0;
			return false;
		}
		return true;
	}
	*j = energy_power__joules(prev, v, dt_own, x->what == HW_POWER_AVG);
	if (*j < 0 || energy_step__check(*j, 0, dt_own)) {
		if (!x->warned)
			energy_source__warn(s, "%s %s: %.3f W is not a power", x->chip->prefix,
					    x->label, v);
		x->warned = true;
		*j = 0;
		return false;
	}
	return true;
}

static int hw__read(struct energy_source *s, bool first, double dt,
		    const double *busy_ns, struct energy_sample *out)
{
	struct hw_source *h = s->priv;
	double now = hw__now(), dt_own = now - h->last_t;
	bool sock[ENERGY_MAX_PACKAGES] = { false }, ok = true;
	double sock_j[ENERGY_MAX_PACKAGES] = { 0 };

	(void)busy_ns;
	h->last_t = now;
	for (size_t i = 0; i < h->nr; i++) {
		struct hw_sensor *x = &h->s[i];
		double j;
		bool v = hw__step(s, x, first, dt, dt_own, &j);

		if (h->kind != HW_AMD) {
			ok = ok && v;
			out->unit_j[0] += j;
		} else if (x->unit >= 0) {
			out->unit_valid[x->unit] = v;
			out->unit_j[x->unit] = j;
		} else {
			sock[x->pkg] = true;
			sock_j[x->pkg] = j;
			/* an invalid socket counter makes its package invalid */
			if (!v)
				sock_j[x->pkg] = NAN;
		}
	}
	if (first)
		return 0;
	if (h->kind != HW_AMD) {
		out->unit_valid[0] = ok;
		if (!ok)
			out->unit_j[0] = 0;
		return 0;
	}
	for (int p = 0; p < out->nr_packages; p++) {
		struct energy_pkg_sample *ps = &out->pkg[p];
		double cores = 0;
		bool valid = !sock[p] || !isnan(sock_j[p]), any = sock[p];

		for (int u = 0; u < s->nr_units; u++) {
			if (h->unit_pkg[u] != p)
				continue;
			any = true;
			valid = valid && out->unit_valid[u];
			cores += out->unit_j[u];
		}
		if (!any)
			continue;
		ps->dom_mask = 1u << ENERGY_DOM_CORE;
		ps->valid = valid;
		if (!valid) {
			/* the package and its cores: all or none */
			for (int u = 0; u < s->nr_units; u++)
				if (h->unit_pkg[u] == p)
					out->unit_valid[u] = false;
			continue;
		}
		ps->dom_valid = 1u << ENERGY_DOM_CORE;
		ps->dom_j[ENERGY_DOM_CORE] = cores;
		/* the socket's counter holds its cores' (read a moment apart:
		 * never less than their sum, so the rest is never negative) */
		ps->joules = sock[p] && sock_j[p] > cores ? sock_j[p] : cores;
	}
	return 0;
}

static void hw__close(struct energy_source *s)
{
	struct hw_source *h = s->priv;

	if (!h)
		return;
	free(h->s);
	free(h->unit_pkg);
	free(h);
	s->priv = NULL;
	hw__exit();
}

static int amd__open(struct energy_source *s, const char *arg, char *err, size_t errlen)
{
	return hw__open(s, HW_AMD, arg, err, errlen);
}

static int meter__open(struct energy_source *s, const char *arg, char *err, size_t errlen)
{
	return hw__open(s, HW_POWER_METER, arg, err, errlen);
}

static int scmi__open(struct energy_source *s, const char *arg, char *err, size_t errlen)
{
	return hw__open(s, HW_SCMI, arg, err, errlen);
}

const struct energy_source_ops energy_amd_ops = {
	.name = "amd_energy", .open = amd__open, .read = hw__read, .close = hw__close,
};

const struct energy_source_ops energy_power_meter_ops = {
	.name = "power_meter", .open = meter__open, .read = hw__read, .close = hw__close,
};

const struct energy_source_ops energy_scmi_ops = {
	.name = "scmi", .open = scmi__open, .read = hw__read, .close = hw__close,
};

int energy_sensors__list(char *out, size_t len, char *err, size_t errlen)
{
	const sensors_chip_name *chip;
	size_t n = 0;
	int c = 0, count = 0, ret;

	if (len)
		out[0] = '\0';
	ret = hw__init(err, errlen);
	if (ret)
		return ret;
	while ((chip = sensors_get_detected_chips(NULL, &c))) {
		const sensors_feature *f;
		char name[128];
		int fi = 0, kind = -1;

		for (int k = 0; k < 3; k++)
			if (chip->prefix && !strcmp(chip->prefix, kind_chip[k]))
				kind = k;
		if (sensors_snprintf_chip_name(name, sizeof(name), chip) < 0)
			snprintf(name, sizeof(name), "%s", chip->prefix ?: "?");
		while ((f = sensors_get_features(chip, &fi))) {
			const sensors_subfeature *sf;
			enum hw_what what;
			char *label;
			double v = NAN;

			sf = hw__subfeature(chip, f, &what);
			if (!sf)
				continue;
			label = sensors_get_label(chip, f);
			sensors_get_value(chip, sf->number, &v);
			if (n < len)
				n += snprintf(out + n, len - n, "%s %s %s %.3f %s (%s)\n", name,
					      label ?: f->name, what == HW_ENERGY ? "energy" : "power",
					      v, what == HW_ENERGY ? "J" : "W",
					      kind < 0 ? "not an energy source" :
					      kind == HW_AMD ? "amd_energy: core, package" :
					      kind == HW_POWER_METER ? "power_meter: platform" :
					      "scmi: platform");
			free(label);
			count++;
		}
	}
	hw__exit();
	if (!count && len)
		snprintf(out, len, "none\n");
	return count;
}
