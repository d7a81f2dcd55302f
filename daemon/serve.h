/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef DAEMON_SERVE_H
#define DAEMON_SERVE_H

/* emon-perf serve: the shared host service (daemon/serve.c); its exit
 * status as every command's (cli/commands.h). */
int cmd_serve(int argc, char **argv);

#endif
