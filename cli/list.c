// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "pmu/event.h"

int cmd_list(int argc, char **argv)
{
	bool all = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--all")) {
			all = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: emon-perf list [-v|--all]\n\n"
			       "Events this machine can count; --all adds every event of the\n"
			       "PMUs libpfm4 finds here and of the kernel's sysfs PMUs.\n");
			return 0;
		} else {
			pr_err("unknown option '%s' for list", argv[i]);
			return 2;
		}
	}
	return pmu__list(stdout, all) ? 1 : 0;
}
