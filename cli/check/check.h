/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * emon-perf check: facts about the host (cli/check/check_host.c), then a known
 * workload in a cgroup of its own (cli/check/check_work.c) counted by emon-perf
 * and by per-task reference counters at once (cli/check/check_run.c), as rows
 * of ok / warn / fail / skip / info (cli/check/check.c prints them).
 */
#ifndef CLI_CHECK_H
#define CLI_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

enum check_status {
	CHECK_INFO,	/* a fact, no judgement */
	CHECK_OK,
	CHECK_WARN,
	CHECK_SKIP,	/* cannot be checked here: the reason says why */
	CHECK_FAIL,
};

#define CHECK_MAX_ROWS 48

struct check_row {
	enum check_status status;
	char name[40];
	char figure[96];	/* as the table shows it */
	double value;		/* the figure's number (NAN: none) */
	char unit[16];
	char reason[320];
};

struct check_report {
	struct check_row row[CHECK_MAX_ROWS];
	int nr;
};

struct check_opts {
	double duration_s;		/* each path's workload */
	const char *powercap_root;	/* NULL: the host's */
	const char *gpu_lib;		/* --gpu=LIB, NULL: libnvidia-ml.so.1 */
	bool json;
};

/* What the facts found that the validation needs. */
struct check_host {
	char cgroot[256];		/* the cgroup2 mount, "" when none */
	bool has_cycles;		/* cycles open on CPU 0 */
	bool has_instructions;
	char cycles_reason[300];	/* why not, when it does not */
	char instructions_reason[300];
	bool has_powercap;		/* readable energy_uj zones */
	bool has_power_pmu;		/* a power PMU with energy-pkg */
	char energy_reason[200];	/* why the energy row skips */
};

/*
 * Tolerances: a figure within ok_pct of its reference plus abs_slack
 * units is ok, within warn_pct plus abs_slack a warning, past it a
 * failure.
 */
struct check_tol {
	double ok_pct;
	double warn_pct;
	double abs_slack;
};

/* Add a row (the reason printf-style); a full report drops the row. */
struct check_row *check__add(struct check_report *r, enum check_status st,
			     const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The row's figure and its number. */
void check_row__figure(struct check_row *row, double value, const char *unit,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Pure: how got compares with ref under tol; *pct the difference in %
 * of ref (+: got is above). A ref of 0 with got 0 is ok. */
enum check_status check__judge(double got, double ref, const struct check_tol *tol,
			       double *pct);
const char *check_status__name(enum check_status st);

/* The facts: kernel, BTF, BPF, perf settings, PMUs, energy, cgroup2. */
void check_host__run(struct check_report *r, struct check_host *h,
		     const struct check_opts *o);

/* The GPUs NVML finds (cli/check/check_gpu.c): skipped without NVML,
 * unless lib (--gpu=LIB) names the library, which then must load. */
void check_gpu__run(struct check_report *r, const char *lib);

/* The validation: both read paths of the engine against the reference;
 * 0, or -EINTR when a signal stopped it (everything undone). */
int check_run__all(struct check_report *r, const struct check_host *h,
		   const struct check_opts *o);

#endif
