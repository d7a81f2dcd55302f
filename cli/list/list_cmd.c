// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/list/list.h"
#include "front/errors.h"
#include "front/formulas.h"
#include "pmu/event.h"
#include "rapl/energy.h"

/* list metrics: stat -M's table, each with its formula and events */
static int list__metrics(FILE *out)
{
	fprintf(out, "%-18s %-28s %s\n", "metric", "unit", "formula");
	for (size_t i = 0; i < nr_formula_defs; i++) {
		const struct formula_def *m = &formula_defs[i];

		fprintf(out, "%-18s %-28s %s%s\n", m->name, m->unit, m->formula,
			m->energy ? " (needs an energy source)" : "");
	}
	return 0;
}

/* list energy: the hwmon power and energy sensors libsensors finds, and
 * which source reads each (RAPL's are `check`'s powercap and power PMU) */
static int list__energy(FILE *out)
{
	char buf[16384], err[512];
	struct energy_source *s;
	int n, ret;

	s = energy_source__open("auto", NULL, sysconf(_SC_NPROCESSORS_CONF), &ret,
				err, sizeof(err));
	if (s)
		fprintf(out, "--energy auto: %s, scope %s\n", energy_source__name(s),
			energy_source__scopes_of(energy_source__name(s)));
	else
		fprintf(out, "--energy auto: none (%s)\n", err);
	energy_source__close(s);
	n = energy_sensors__list(buf, sizeof(buf), err, sizeof(err));
	if (n < 0)
		return cli__fail(-ENODEV, "%s", err);
	fprintf(out, "hwmon sensors (libsensors): %s", n ? "\n" : "");
	fprintf(out, "%s", buf);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	bool all = false;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "metrics")) {
			return list__metrics(stdout);
		} else if (!strcmp(argv[i], "energy")) {
			const char *lib = i + 1 < argc && !strncmp(argv[i + 1], "--gpu=", 6) ?
					  argv[i + 1] + 6 : NULL;

			if (i + 1 < argc && !lib)
				return cli__fail(-EINVAL, "unknown option '%s' for list energy",
						 argv[i + 1]);
			ret = list__energy(stdout);
			return ret ?: list__gpus(stdout, lib);
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--all")) {
			all = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: emon-perf list [-v|--all] | list metrics | list energy [--gpu=LIB]\n\n"
			       "Events this machine can count; --all adds every event of the\n"
			       "PMUs libpfm4 finds here and of the kernel's sysfs PMUs.\n"
			       "'metrics': what stat -M computes, with its formula.\n"
			       "'energy': the hwmon power and energy sensors (libsensors) and\n"
			       "the --energy source and scope that reads each; the GPUs NVML\n"
			       "finds (--gpu; LIB: the library).\n");
			return 0;
		} else {
			return cli__fail(-EINVAL, "unknown option '%s' for list", argv[i]);
		}
	}
	/* this host's PMUs, not the command line: 1 whatever the errno (its
	 * -ENOENT is "libpfm4 has no perf PMU") */
	return pmu__list(stdout, all) ? cli__exit_status(-ENODEV) : 0;
}
