/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

/* Each returns the process exit status: 0 ok, 1 runtime failure, 2 bad
 * usage or input, an error's by cli__exit_status() (front/errors.h); stat
 * in command mode: the command's status. argv[0] is the subcommand's
 * name. */
int cmd_stat(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* the service's, in its own home */
#include "daemon/serve.h"

/* Shared by every command: one-line errors, "emon-perf: ..." on stderr;
 * the version. */
#include "common/log.h"
#include "common/version.h"

#endif
