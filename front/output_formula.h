/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * stat -M's metrics as the formats print them: each metric of a row from
 * its events' values there (front/formulas.h has the formulas), the
 * text '#' column of the event a metric rides on, --metric-only's table.
 */
#ifndef FRONT_OUTPUT_FORMULA_H
#define FRONT_OUTPUT_FORMULA_H

#include "front/formulas.h"
#include "front/output.h"

/* Metric m of row r, an interval of dt seconds */
void row__metric(const struct output *o, const struct row *r, double dt,
		 const struct formula_def *m, struct formula_value *v);

/* The index in o->ev of the event a metric's input name is, or -1 */
int output__metric_input(const struct output *o, const char *name);

/* The -M metric text shows on event i's line (its first event's), or NULL */
const struct formula_def *output__metric_at(const struct output *o, int i);

/* "1.23", "<not supported>", "<not counted>"; prec decimals */
void formula_value__format(const struct formula_value *v, int prec, char *buf,
			   size_t size);

/*
 * --metric-only text: a header of the metrics' units over their columns,
 * then per row its key and values, as perf stat --metric-only.
 */
void output_formula__text_header(const struct output *o, const char *prefix,
				 int key_width);
void output_formula__text_row(const struct output *o, const char *prefix,
			      const char *key, int key_width,
			      const struct row *r, double dt);

#endif
