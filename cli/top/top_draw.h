/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * emon-perf top's screen (ncurses): it paints what the model arranged
 * (cli/top/top_model.h) and hands keys back as TOP_KEY_*; it decides nothing.
 */
#ifndef CLI_TOP_DRAW_H
#define CLI_TOP_DRAW_H

#include <stdbool.h>
#include "cli/top/top_model.h"

#define TOP_KEY_RESIZE (-2)	/* the terminal changed size */

/* What the header says besides the summary. */
struct top_header {
	char source[160];	/* "own events", "daemon pid N (socket S)" */
	const char *energy_source;	/* NULL: none */
	bool energy_estimated;
	const char *split_by;
	const char *no_energy;	/* why there is no energy source */
	char unsupported[256];	/* events this host cannot count, "" */
	double delay;		/* s between refreshes */
	double dt;		/* the interval shown, s; 0: none yet */
	bool no_sys;		/* the daemon keeps the host's totals from us */
	const struct top_summary *sum;
};

/* Take the terminal (stdin, stdout): 0, or -ENOTTY when TERM is unknown. */
int top_draw__open(void);
/* Give it back as it was (echo, canonical mode, cursor). */
void top_draw__close(void);
/* The next key, TOP_KEY_RESIZE, or -1 when none is waiting. */
int top_draw__key(void);
/* Table lines on the screen as it is now. */
int top_draw__rows(void);
void top_draw__paint(const struct top_header *h, const struct top_table *t,
		     const struct top_state *s);

#endif
