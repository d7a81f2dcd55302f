// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The declared model, for machines without RAPL (VMs): each package draws
 * IDLE_W when idle and MAX_W when all its CPUs are busy, linearly between.
 * The figures are the user's (--energy model:IDLE_W:MAX_W); there is no
 * default, and everything it produces is labelled estimated.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rapl/energy.h"

struct energy_model {
	double idle_w;
	double max_w;
};

double energy_model__joules(double idle_w, double max_w, double busy_ns,
			    int ncpus, double dt)
{
	double busy;

	if (ncpus <= 0 || !(dt > 0))
		return 0;
	busy = busy_ns / (ncpus * dt * 1e9);
	if (!(busy > 0))	/* also NaN */
		busy = 0;
	if (busy > 1)
		busy = 1;
	return (idle_w + (max_w - idle_w) * busy) * dt;
}

static int model__parse_watts(const char *s, const char *stop, double *w)
{
	char *end;

	if (s == stop || *s == ' ' || *s == '+' || *s == '-')
		return -EINVAL;
	errno = 0;
	*w = strtod(s, &end);
	if (errno || end != stop || !isfinite(*w) || *w < 0)
		return -EINVAL;
	return 0;
}

int energy_model__parse(const char *arg, double *idle_w, double *max_w)
{
	const char *colon = strchr(arg, ':');

	if (!colon || strchr(colon + 1, ':'))
		return -EINVAL;
	if (model__parse_watts(arg, colon, idle_w) ||
	    model__parse_watts(colon + 1, colon + 1 + strlen(colon + 1), max_w))
		return -EINVAL;
	if (*idle_w > *max_w || !(*max_w > 0))
		return -EINVAL;
	return 0;
}

static int model__open(struct energy_source *s, const char *arg,
		       char *err, size_t errlen)
{
	struct energy_model *m;
	double idle_w, max_w;

	/* the value first: a bad one leaves nothing to free */
	if (!arg || energy_model__parse(arg, &idle_w, &max_w)) {
		snprintf(err, errlen, "bad --energy value 'model:%s'",
			 arg ? arg : "");
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	m->idle_w = idle_w;
	m->max_w = max_w;
	s->priv = m;
	return 0;
}

static int model__read(struct energy_source *s, bool first, double dt,
		       const double *busy_ns, struct energy_sample *out)
{
	struct energy_model *m = s->priv;
	int p, ncpus;

	if (first)
		return 0;
	if (!busy_ns || !(dt >= 0))
		return -EINVAL;
	for (p = 0; p < out->nr_packages; p++) {
		ncpus = s->topo.nr_cpus[p];
		/* a package with no online CPU: nothing to model */
		if (!ncpus)
			continue;
		out->pkg[p].valid = true;
		out->pkg[p].joules = energy_model__joules(m->idle_w, m->max_w,
							  busy_ns[p], ncpus, dt);
	}
	return 0;
}

static void model__close(struct energy_source *s)
{
	free(s->priv);
	s->priv = NULL;
}

const struct energy_source_ops energy_model_ops = {
	.name = "model",
	.estimated = true,
	.open = model__open,
	.read = model__read,
	.close = model__close,
};
