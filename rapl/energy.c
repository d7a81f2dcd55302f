// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Choosing an energy source and the calls common to all of them. The
 * backends (powercap.c, perf_power.c, model.c) only fill per-package
 * samples; the topology, the baseline and the warnings live here.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rapl/energy.h"

static const char *const domain_names[ENERGY_DOM_NR] = {
	[ENERGY_DOM_CORE] = "core",
	[ENERGY_DOM_UNCORE] = "uncore",
	[ENERGY_DOM_DRAM] = "dram",
	[ENERGY_DOM_PSYS] = "psys",
};

const char *energy_domain__name(int dom)
{
	if (dom < 0 || dom >= ENERGY_DOM_NR)
		return NULL;
	return domain_names[dom];
}

static const char *const scope_names[ENERGY_SCOPE_NR] = {
	[ENERGY_SCOPE_PACKAGE] = "package",
	[ENERGY_SCOPE_CORE] = "core",
	[ENERGY_SCOPE_PLATFORM] = "platform",
	[ENERGY_SCOPE_DRAM] = "dram",
	[ENERGY_SCOPE_GPU] = "gpu",
	[ENERGY_SCOPE_VM_HOST] = "vm-host",
};

const char *energy_scope__name(int scope)
{
	if (scope < 0 || scope >= ENERGY_SCOPE_NR)
		return NULL;
	return scope_names[scope];
}

const char *energy_source__scopes_of(const char *name)
{
	static const struct {
		const char *source, *scopes;
	} table[] = {
		{ "powercap", "package" },
		{ "perf", "package" },
		{ "model", "package" },
		{ "amd_energy", "core+package" },
		{ "power_meter", "platform" },
		{ "scmi", "platform" },
	};

	for (size_t i = 0; name && i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(name, table[i].source))
			return table[i].scopes;
	return NULL;
}

/* What --energy asked for. ops == NULL: none; is_auto: try in order. */
struct energy_spec {
	const struct energy_source_ops *ops;
	const char *arg;
	bool is_auto;
	bool is_sensors;	/* the first of sensors_order that opens */
};

/* The order auto tries: measured sources only, never the model. */
static const struct energy_source_ops *const auto_order[] = {
	&energy_powercap_ops,
	&energy_perf_ops,
	&energy_amd_ops,
	&energy_power_meter_ops,
	&energy_scmi_ops,
};

/* --energy sensors: the hwmon ones, finest scope first */
static const struct energy_source_ops *const sensors_order[] = {
	&energy_amd_ops,
	&energy_power_meter_ops,
	&energy_scmi_ops,
};

static int energy_spec__parse(const char *spec, struct energy_spec *sp,
			      char *err, size_t errlen)
{
	memset(sp, 0, sizeof(*sp));
	if (!spec || !strcmp(spec, "auto")) {
		sp->is_auto = true;
		return 0;
	}
	if (!strcmp(spec, "none"))
		return 0;
	if (!strcmp(spec, "powercap")) {
		sp->ops = &energy_powercap_ops;
		return 0;
	}
	if (!strcmp(spec, "perf")) {
		sp->ops = &energy_perf_ops;
		return 0;
	}
	if (!strcmp(spec, "sensors")) {
		sp->is_sensors = true;
		return 0;
	}
	/* a hwmon source, alone or NAME:LABEL (one sensor of its chips) */
	for (size_t i = 0; i < sizeof(sensors_order) / sizeof(sensors_order[0]); i++) {
		const char *name = sensors_order[i]->name;
		size_t n = strlen(name);

		if (strncmp(spec, name, n) || (spec[n] && spec[n] != ':') ||
		    (spec[n] == ':' && !spec[n + 1]))
			continue;
		sp->ops = sensors_order[i];
		sp->arg = spec[n] ? spec + n + 1 : NULL;
		return 0;
	}
	/* the model has no default figures: they must be the user's */
	if (!strncmp(spec, "model:", 6)) {
		double idle, max;

		if (!energy_model__parse(spec + 6, &idle, &max)) {
			sp->ops = &energy_model_ops;
			sp->arg = spec + 6;
			return 0;
		}
	}
	snprintf(err, errlen,
		 "bad --energy value '%s' (auto, powercap, perf, sensors, amd_energy, "
		 "power_meter, scmi[:LABEL], model:IDLE_W:MAX_W, none)",
		 spec);
	return -EINVAL;
}

/* Topology, then the backend; on failure everything is undone. */
static int energy_source__try(struct energy_source *s,
			      const struct energy_source_ops *ops,
			      const char *arg, char *err, size_t errlen)
{
	int ret;

	memset(s->warning, 0, sizeof(s->warning));
	ret = cpu_topology__load(&s->topo, s->opts->cpu_root, s->opts->ncpus,
				 err, errlen);
	if (ret)
		goto out;
	s->ops = ops;
	ret = ops->open(s, arg, err, errlen);
	if (ret) {
		cpu_topology__free(&s->topo);
		s->ops = NULL;
	}
out:
	return ret;
}

/* auto: the first source of order that opens; else NULL with every
 * reason in err. */
static int energy_source__auto(struct energy_source *s,
			       const struct energy_source_ops *const *order,
			       size_t nr, char *err, size_t errlen)
{
	char why[256];
	size_t i, len;
	int ret = -ENOENT;

	len = snprintf(err, errlen, "no energy source:");
	for (i = 0; i < nr; i++) {
		why[0] = '\0';
		ret = energy_source__try(s, order[i], NULL, why,
					 sizeof(why));
		if (!ret || ret == -ENOMEM) {
			if (ret)
				snprintf(err, errlen, "%s", why);
			goto out;
		}
		if (len < errlen)
			len += snprintf(err + len, errlen - len, "%s %s: %s",
					i ? ";" : "", order[i]->name, why);
	}
out:
	return ret;
}

struct energy_source *energy_source__open_opts(const struct energy_opts *o,
					       int *errp, char *err,
					       size_t errlen)
{
	struct energy_source *s = NULL;
	struct energy_spec sp;
	int ret;

	if (errlen)
		err[0] = '\0';
	ret = energy_spec__parse(o->spec, &sp, err, errlen);
	if (ret || (!sp.ops && !sp.is_auto && !sp.is_sensors))
		goto out;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	s->opts = o;
	if (sp.is_sensors) {
		/* asked for: nothing found is -ENOENT, a usage error */
		ret = energy_source__auto(s, sensors_order, sizeof(sensors_order) /
					  sizeof(sensors_order[0]), err, errlen);
	} else if (sp.is_auto) {
		ret = energy_source__auto(s, auto_order, sizeof(auto_order) /
					  sizeof(auto_order[0]), err, errlen);
		/* nothing found is not an error: the reason is in err */
		if (ret && ret != -ENOMEM) {
			free(s);
			s = NULL;
			ret = 0;
			goto out;
		}
	} else {
		ret = energy_source__try(s, sp.ops, sp.arg, err, errlen);
	}
out:
	if (ret && s) {
		free(s);
		s = NULL;
	}
	if (s)
		s->opts = NULL;
	if (errp)
		*errp = ret;
	return s;
}

struct energy_source *energy_source__open(const char *spec,
					  const char *powercap_root, int ncpus,
					  int *errp, char *err, size_t errlen)
{
	struct energy_opts o = {
		.spec = spec,
		.powercap_root = powercap_root,
		.ncpus = ncpus,
	};

	return energy_source__open_opts(&o, errp, err, errlen);
}

void energy_source__close(struct energy_source *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->close)
		s->ops->close(s);
	free(s->unit_of_cpu);
	cpu_topology__free(&s->topo);
	free(s);
}

const char *energy_source__name(const struct energy_source *s)
{
	return s->ops->name;
}

int energy_source__unit_scope(const struct energy_source *s)
{
	return s->nr_units ? s->unit_scope : ENERGY_SCOPE_PACKAGE;
}

int energy_source__nr_units(const struct energy_source *s)
{
	return s->nr_units;
}

int energy_source__unit_of_cpu(const struct energy_source *s, int cpu)
{
	if (!s->nr_units || cpu < 0 || cpu >= s->topo.ncpus || !s->unit_of_cpu)
		return -1;
	return s->unit_of_cpu[cpu];
}

const int *energy_source__unit_map(const struct energy_source *s)
{
	return s->nr_units ? s->unit_of_cpu : NULL;
}

bool energy_source__is_estimated(const struct energy_source *s)
{
	return s->ops->estimated;
}

int energy_source__nr_packages(const struct energy_source *s)
{
	return s->topo.nr_packages;
}

int energy_source__package_of_cpu(const struct energy_source *s, int cpu)
{
	if (cpu < 0 || cpu >= s->topo.ncpus)
		return -1;
	return s->topo.pkg_of_cpu[cpu];
}

int energy_source__package_id(const struct energy_source *s, int pkg)
{
	if (pkg < 0 || pkg >= s->topo.nr_packages)
		return -1;
	return s->topo.pkg_id[pkg];
}

int energy_source__nr_cpus_of_package(const struct energy_source *s, int pkg)
{
	if (pkg < 0 || pkg >= s->topo.nr_packages)
		return 0;
	return s->topo.nr_cpus[pkg];
}

int energy_source__read(struct energy_source *s, double dt,
			const double *busy_ns, struct energy_sample *out)
{
	bool first = !s->started;
	int p, ret;

	memset(out, 0, sizeof(*out));
	out->nr_packages = s->topo.nr_packages;
	out->unit_scope = energy_source__unit_scope(s);
	out->nr_units = s->nr_units;
	out->baseline = first;
	ret = s->ops->read(s, first, dt, busy_ns, out);
	if (ret)
		goto out;
	s->started = true;
	if (first) {
		/* whatever the backend saw, the baseline carries no energy */
		for (p = 0; p < out->nr_packages; p++) {
			out->pkg[p].valid = false;
			out->pkg[p].dom_valid = 0;
		}
		out->psys_valid = false;
		memset(out->unit_valid, 0, sizeof(out->unit_valid));
	}
	memcpy(out->warning, s->warning, sizeof(out->warning));
	s->warning[0] = '\0';
out:
	return ret;
}

void energy_source__warn(struct energy_source *s, const char *fmt, ...)
{
	size_t len = strlen(s->warning);
	va_list ap;

	if (len && len + 2 < sizeof(s->warning)) {
		memcpy(s->warning + len, "; ", 3);
		len += 2;
	}
	if (len + 1 >= sizeof(s->warning))
		return;
	va_start(ap, fmt);
	vsnprintf(s->warning + len, sizeof(s->warning) - len, fmt, ap);
	va_end(ap);
}

bool energy_sample__any_valid(const struct energy_sample *es)
{
	for (int p = 0; p < es->nr_packages && p < ENERGY_MAX_PACKAGES; p++)
		if (es->pkg[p].valid)
			return true;
	/* a platform's energy is no package's */
	return es->nr_units && es->unit_scope == ENERGY_SCOPE_PLATFORM &&
	       es->unit_valid[0];
}

void energy_sample__add(struct energy_sample *dst,
			const struct energy_sample *src, double k)
{
	size_t len = strlen(dst->warning);

	dst->baseline = dst->baseline || src->baseline;
	for (int p = 0; p < dst->nr_packages && p < ENERGY_MAX_PACKAGES; p++) {
		struct energy_pkg_sample *d = &dst->pkg[p];
		const struct energy_pkg_sample *s = &src->pkg[p];

		d->valid = d->valid && s->valid && p < src->nr_packages;
		d->joules += k * s->joules;
		d->dom_mask |= s->dom_mask;
		d->dom_valid &= s->dom_valid;
		for (int i = 0; i < ENERGY_DOM_NR; i++)
			d->dom_j[i] += k * s->dom_j[i];
	}
	dst->has_psys = dst->has_psys || src->has_psys;
	dst->psys_valid = dst->psys_valid && src->psys_valid;
	dst->psys_j += k * src->psys_j;
	for (int u = 0; u < dst->nr_units && u < ENERGY_MAX_UNITS; u++) {
		dst->unit_valid[u] = dst->unit_valid[u] && src->unit_valid[u] &&
				     u < src->nr_units;
		dst->unit_j[u] += k * src->unit_j[u];
	}
	if (!src->warning[0] || len + 3 >= sizeof(dst->warning))
		return;
	if (len) {
		memcpy(dst->warning + len, "; ", 3);
		len += 2;
	}
	/* cut short when full: the warnings are for people, not parsers */
	for (size_t i = 0; src->warning[i] && len + 1 < sizeof(dst->warning); i++)
		dst->warning[len++] = src->warning[i];
	dst->warning[len] = '\0';
}

int energy_step__check(double j, double range_j, double dt)
{
	if (!isfinite(j) || j < 0)
		return -ERANGE;
	if (range_j > 0 && j > range_j / 2)
		return -ERANGE;
	if (dt > 0 && j > ENERGY_MAX_WATTS * (dt + ENERGY_STEP_SLACK_S))
		return -ERANGE;
	return 0;
}

bool energy__on_vm(void)
{
	char line[8192];	/* x86's flags line: 1.5 KB or so */
	bool vm = false;
	FILE *f;

	f = fopen("/sys/hypervisor/type", "r");
	if (f) {
		vm = fgets(line, sizeof(line), f) && line[0] && line[0] != '\n';
		fclose(f);
		if (vm)
			return true;
	}
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	while (!vm && fgets(line, sizeof(line), f))
		vm = strstr(line, " hypervisor") != NULL;
	fclose(f);
	return vm;
}

const char *energy__choices_for(bool vm)
{
	return vm ?
	       "no energy source on this VM (no RAPL, no hwmon power or energy sensor); "
	       "for energy: --energy model:IDLE_W:MAX_W "
	       "(estimated from CPU use, in this VM's share of its host's watts), or "
	       "--powercap-root DIR (a powercap-layout tree the host fills)" :
	       "no energy source on this machine (no RAPL powercap zone or perf power PMU, "
	       "no amd_energy, ACPI power_meter or SCMI sensor: `emon-perf list energy`); "
	       "for energy: --energy model:IDLE_W:MAX_W (estimated from CPU use, a package's "
	       "idle and busy watts from its sensors or datasheet), or --powercap-root DIR "
	       "(a powercap-layout tree)";
}

const char *energy__choices(void)
{
	return energy__choices_for(energy__on_vm());
}
