/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* check's energy reference (cli/check/check_energy.c): joules over a window. */
#ifndef CLI_CHECK_ENERGY_H
#define CLI_CHECK_ENERGY_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#define ENERGY_REF_ZONES 16

struct energy_ref;
struct energy_source;

struct energy_ref_ops {
	const char *name;	/* for the row's reason */
	int (*open)(struct energy_ref *r, const char *root, char *err,
		    size_t errlen);
	/* joules since the last read (the first: 0) */
	int (*read)(struct energy_ref *r, double *joules);
	void (*close)(struct energy_ref *r);
};

struct energy_ref_zone {
	char dir[512];
	__u64 range, last;
	bool seen;
};

struct energy_ref {
	const struct energy_ref_ops *ops;
	struct energy_ref_zone zone[ENERGY_REF_ZONES];	/* a tree's packages */
	int nzones;
	struct energy_source *src;	/* the power PMU's */
	int marks;
	double joules;		/* from the first mark to the last */
	double t0, t1;		/* CLOCK_MONOTONIC s of those marks */
};

/* The tree under tree_root, or the power PMU when NULL. 0 or -errno,
 * the reason in err; energy_ref__close() in every case. */
int energy_ref__open(struct energy_ref *r, const char *tree_root, char *err,
		     size_t errlen);
/* Read now: the window runs from the first mark to the last. */
int energy_ref__mark(struct energy_ref *r);
void energy_ref__close(struct energy_ref *r);

#endif
