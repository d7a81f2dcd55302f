/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* emon-perf serve's options: spelled, checked and defaulted in
 * daemon/serve_opts.c, used by its set-up and loop (daemon/serve.c). */
#ifndef DAEMON_SERVE_OPTS_H
#define DAEMON_SERVE_OPTS_H

#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>
#include "daemon/privs.h"
#include "daemon/vm_energy.h"
#include "daemon/exporter/webcfg.h"
#include "engine/engine.h"

struct serve_opts {
	char events[1024];
	struct engine_opts eng;
	const char *socket;
	gid_t gid;		/* --socket-group, (gid_t)-1: none */
	gid_t admin_gid;	/* --admin-group, (gid_t)-1: none */
	gid_t metrics_gid;	/* --metrics-group, (gid_t)-2: not given */
	double idle_timeout_s;
	long max_clients_per_uid, max_trees_per_uid, max_threads_per_uid; /* 0: default */
	const char *listen;
	const char *web_config;	/* --web-config FILE, NULL: none */
	struct webcfg web;
	int top_procs;
	long max_series;
	long max_clients;
	long max_held_mb;	/* --max-held-mb: unread answers' memory */
	double min_flush_ms;
	double min_scrape_ms;
	long threads;		/* --threads: self-monitoring slots, 0: off */
	long max_thread_uids;	/* their slot arrays, one uid's each; 0: default */
	const char *pin_dir;
	const char *user;	/* --user, NULL: the uid stays */
	struct privs_user u;
	__u64 keep;		/* capabilities kept after set-up */
	bool no_seccomp;	/* --no-seccomp: no allowlist of our own */
	const char *vm_energy[VM_ENERGY_MAX];	/* --vm-energy CGROUP=DIR */
	int nr_vm_energy;
	double vm_energy_ms;	/* --vm-energy-ms: how often they are written */
};

/* 0, 1 after --help, -EINVAL after a one-line error. */
int serve_opts__parse(struct serve_opts *o, int argc, char **argv);

#endif
