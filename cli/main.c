// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* emon-perf: subcommands as a table, prefix-matched like bpftool's. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "front/errors.h"
#include "front/heap.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static int cmd_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "stat",   cmd_stat,   "count events and energy per system, CPU, socket, cgroup, container, process" },
	{ "serve",  cmd_serve,  "count for the whole host and serve every consumer (socket, Prometheus)" },
	{ "list",   cmd_list,   "list the events this machine can count" },
	{ "report", cmd_report, "tables and charts from a JSON-lines recording or a Prometheus server" },
	{ "top",    cmd_top,    "a live table of power, CPU and counters per container, cgroup, process" },
	{ "check",  cmd_check,  "a self-check: what this host offers, and counts validated against a reference" },
	{ "help",   cmd_help,   "this text" },
};

static int usage(FILE *f)
{
	fprintf(f, "Usage: emon-perf COMMAND [options]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nSee 'emon-perf COMMAND --help' for a command's options;\n"
		"'emon-perf --version' (-V) prints the version.\n");
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return usage(stdout);
}

int main(int argc, char **argv)
{
	const struct cmd *found = NULL;
	size_t len;

	heap__setup();
	if (argc < 2) {
		usage(stderr);
		return cli__exit_status(-EINVAL);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("emon-perf " EMON_VERSION "\n");
		return 0;
	}
	len = strlen(argv[1]);
	for (size_t i = 0; len && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strncmp(cmds[i].name, argv[1], len))
			continue;
		if (found)
			return cli__fail(-EINVAL, "ambiguous command '%s'", argv[1]);
		found = &cmds[i];
	}
	if (!found)
		return cli__fail(-EINVAL, "unknown command '%s' (try 'emon-perf help')",
				 argv[1]);
	return found->fn(argc - 1, argv + 1);
}
