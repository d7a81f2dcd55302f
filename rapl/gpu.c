// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The GPU source: NVML's GPUs, their energy counters and per-process
 * utilization samples read once per read period, each GPU's energy split
 * by gpu_split__compute (the rule is in rapl/gpu.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rapl/energy.h"
#include "rapl/gpu.h"
#include "rapl/gpu_nvml.h"

struct gpu_dev {
	nvmlDevice_t h;
	char name[GPU_NAME_LEN];
	bool have;			/* prev_mj is a reading */
	bool lost;
	unsigned long long prev_mj;
	unsigned long long last_ts;	/* the newest sample's timestamp seen */
	unsigned int warned;		/* 1 << kind: said once */
	/* the shares of the last read that had samples (rapl/gpu.h: sample
	 * and hold), the time since, the sample period seen */
	struct gpu_use *held;
	size_t nheld, cap_held;
	double since;
	unsigned long long period_us;	/* 0: unknown */
};

enum { W_ENERGY, W_BACK, W_STEP, W_UTIL, W_SPLIT };

struct gpu_source {
	struct nvml_lib nvml;
	int nr;
	bool started;			/* the baseline was read */
	struct gpu_dev dev[GPU_MAX];
	nvmlProcessUtilizationSample_t *raw;
	struct gpu_psample *ps;
	struct gpu_use *one;		/* one GPU's split */
	size_t cap_raw;
	struct gpu_use *use;		/* the read's, over GPUs */
	size_t cap_use;
	char warning[GPU_WARN_LEN];
};

static void gpu__warn(struct gpu_source *s, int i, int kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void gpu__warn(struct gpu_source *s, int i, int kind, const char *fmt, ...)
{
	size_t len = strlen(s->warning);
	va_list ap;

	if (s->dev[i].warned & (1u << kind))
		return;
	s->dev[i].warned |= 1u << kind;
	if (len + 2 >= sizeof(s->warning))
		return;
	len += snprintf(s->warning + len, sizeof(s->warning) - len, "%sGPU %d (%s): ",
			len ? "; " : "", i, s->dev[i].name);
	if (len >= sizeof(s->warning))
		return;
	va_start(ap, fmt);
	vsnprintf(s->warning + len, sizeof(s->warning) - len, fmt, ap);
	va_end(ap);
}

struct gpu_source *gpu_source__open(const char *lib, int *errp, char *err,
				    size_t errlen)
{
	struct gpu_source *s = calloc(1, sizeof(*s));
	unsigned int n = 0;
	nvmlReturn_t r;
	int ret;

	if (!s) {
		*errp = -ENOMEM;
		return NULL;
	}
	ret = nvml__load(&s->nvml, lib, err, errlen);
	if (ret) {
		*errp = ret;
		free(s);
		return NULL;
	}
	r = s->nvml.init();
	if (r != NVML_SUCCESS) {
		snprintf(err, errlen, "NVML's init failed: %s",
			 nvml__strerror(&s->nvml, r));
		nvml__unload(&s->nvml);
		free(s);
		*errp = -ENODEV;
		return NULL;
	}
	r = s->nvml.count(&n);
	if (r != NVML_SUCCESS || !n) {
		snprintf(err, errlen, "NVML found no GPU%s%s", r ? ": " : "",
			 r ? nvml__strerror(&s->nvml, r) : "");
		gpu_source__close(s);
		*errp = -ENOENT;
		return NULL;
	}
	if (n > GPU_MAX) {	/* said with the first read */
		snprintf(s->warning, sizeof(s->warning),
			 "NVML has %u GPUs: only the first %d are counted", n, GPU_MAX);
		n = GPU_MAX;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct gpu_dev *d = &s->dev[i];
		char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "";

		r = s->nvml.handle(i, &d->h);
		if (r != NVML_SUCCESS) {
			snprintf(err, errlen, "NVML's GPU %u: %s", i,
				 nvml__strerror(&s->nvml, r));
			gpu_source__close(s);
			*errp = -ENODEV;
			return NULL;
		}
		if (s->nvml.name(d->h, name, sizeof(name)) != NVML_SUCCESS)
			snprintf(name, sizeof(name), "GPU %u", i);
		name[sizeof(name) - 1] = '\0';
		snprintf(d->name, sizeof(d->name), "%s", name);
	}
	s->nr = n;
	*errp = 0;
	return s;
}

void gpu_source__close(struct gpu_source *s)
{
	if (!s)
		return;
	if (s->nvml.shutdown)
		s->nvml.shutdown();
	nvml__unload(&s->nvml);
	free(s->raw);
	free(s->ps);
	free(s->one);
	free(s->use);
	for (int i = 0; i < s->nr; i++)
		free(s->dev[i].held);
	free(s);
}

int gpu_source__nr(const struct gpu_source *s)
{
	return s ? s->nr : 0;
}

const char *gpu_source__name(const struct gpu_source *s, int i)
{
	return s && i >= 0 && i < s->nr ? s->dev[i].name : "";
}

/* Room for n samples (and as many processes). */
static int gpu__room(struct gpu_source *s, size_t n)
{
	size_t cap = s->cap_raw ? s->cap_raw : 64;
	void *a, *b, *c;

	if (n <= s->cap_raw)
		return 0;
	while (cap < n)
		cap *= 2;
	/* not array__grow: three arrays sized together, their data not kept */
	a = calloc(cap, sizeof(*s->raw));
	b = calloc(cap, sizeof(*s->ps));
	c = calloc(cap, sizeof(*s->one));
	if (!a || !b || !c) {
		free(a);
		free(b);
		free(c);
		return -ENOMEM;
	}
	free(s->raw);
	free(s->ps);
	free(s->one);
	s->raw = a;
	s->ps = b;
	s->one = c;
	s->cap_raw = cap;
	return 0;
}

/* The GPU's process samples since its last timestamp, into s->ps[*np];
 * 0, or -ENOMEM. An NVML error leaves none and is in *nv. */
static int gpu__samples(struct gpu_source *s, int i, size_t *np, nvmlReturn_t *nv)
{
	struct gpu_dev *d = &s->dev[i];
	unsigned long long newest = d->last_ts;
	unsigned int n = 0;
	nvmlReturn_t r;
	bool filled = false;
	size_t k = 0;
	int err;

	*np = 0;
	*nv = NVML_SUCCESS;
	/* the number first (NULL buffer), then the samples */
	r = s->nvml.proc_util(d->h, NULL, &n, d->last_ts);
	if (r == NVML_SUCCESS && n)
		r = NVML_ERROR_INSUFFICIENT_SIZE;	/* the count only */
	/* samples that came between the two calls: ask again, with room */
	for (int tries = 0; tries < 4 && r == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
		filled = true;
		n += 16;
		err = gpu__room(s, n);
		if (err)
			return err;
		n = s->cap_raw;
		r = s->nvml.proc_util(d->h, s->raw, &n, d->last_ts);
	}
	if (r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_NO_DATA ||
	    (r == NVML_SUCCESS && (!filled || !n)))
		return 0;
	if (r != NVML_SUCCESS) {
		*nv = r;
		return 0;
	}
	for (unsigned int j = 0; j < n && j < s->cap_raw; j++) {
		const nvmlProcessUtilizationSample_t *x = &s->raw[j];

		/* "since lastSeenTimeStamp": a sample at it was read last time */
		if (x->timeStamp <= d->last_ts)
			continue;
		if (x->timeStamp > newest)
			newest = x->timeStamp;
		s->ps[k++] = (struct gpu_psample){ x->pid, x->smUtil > 100 ? 100 : x->smUtil };
	}
	/* the sample period: the newest time's gap to the one before it */
	for (unsigned int j = 0; j < n && j < s->cap_raw; j++) {
		unsigned long long ts = s->raw[j].timeStamp;

		if (ts > d->last_ts && ts < newest &&
		    (!d->period_us || newest - ts < d->period_us))
			d->period_us = newest - ts;
	}
	d->last_ts = newest;
	*np = k;
	return 0;
}

static int gpu__hold(struct gpu_dev *d, const struct gpu_use *u, size_t n)
{
	if (n > d->cap_held) {
		/* not array__grow: no content kept, as many as the read's */
		free(d->held);
		d->held = calloc(n, sizeof(*d->held));
		d->cap_held = d->held ? n : 0;
		if (!d->held)
			return -ENOMEM;
	}
	if (n)
		memcpy(d->held, u, n * sizeof(*u));
	d->nheld = n;
	d->since = 0;
	return 0;
}

/* One GPU's read: its energy, then its samples split. */
static int gpu__read_one(struct gpu_source *s, int i, bool first, double dt,
			 struct gpu_dev_sample *g, size_t *nuse)
{
	struct gpu_dev *d = &s->dev[i];
	unsigned long long mj = 0;
	size_t nout = 0;
	nvmlReturn_t r, nv;
	double j = 0;
	size_t n;
	int err;

	if (d->lost) {
		g->lost = true;
		return 0;
	}
	r = s->nvml.energy(d->h, &mj);
	if (r == NVML_ERROR_GPU_IS_LOST) {
		gpu__warn(s, i, W_ENERGY, "lost (%s): no energy from it for the rest of the run",
			  nvml__strerror(&s->nvml, r));
		d->lost = g->lost = true;
		return 0;
	}
	if (r != NVML_SUCCESS) {
		gpu__warn(s, i, W_ENERGY, "no energy (%s): its reads are unknown",
			  nvml__strerror(&s->nvml, r));
		d->have = false;
	} else if (d->have && mj < d->prev_mj) {
		gpu__warn(s, i, W_BACK, "its energy counter went back (driver reloaded?): that read is unknown");
	} else if (d->have) {
		j = (mj - d->prev_mj) / 1e3;
		g->valid = true;
		if (dt > 0 && j > GPU_MAX_WATTS * (dt + ENERGY_STEP_SLACK_S)) {
			gpu__warn(s, i, W_STEP, "an energy step of %.0f J in %.3f s: not energy, that read is unknown",
				  j, dt);
			g->valid = false;
		}
	}
	if (r == NVML_SUCCESS) {
		d->prev_mj = mj;
		d->have = true;
	}
	err = gpu__samples(s, i, &n, &nv);
	if (err)
		return err;
	if (nv != NVML_SUCCESS)
		gpu__warn(s, i, W_UTIL, "no per-process utilization (%s): its energy stays on its own row",
			  nvml__strerror(&s->nvml, nv));
	if (n) {
		/* the shares of these samples, kept for reads that find none */
		err = gpu_split__compute(0, s->ps, n, s->one, &nout, &g->idle_j, &g->util);
		if (err) {
			gpu__warn(s, i, W_SPLIT, "samples the split cannot take: its energy stays on its own row");
			nout = 0;
		}
		err = gpu__hold(d, s->one, nout);
		if (err)
			return err;
	} else {
		d->since += dt;
	}
	if (first || !g->valid)
		return 0;
	g->joules = j;
	nout = 0;
	if (n || d->since <= (d->period_us ? 2e-6 * d->period_us : 1.0))
		nout = d->nheld;
	gpu_split__shares(j, d->held, nout, s->one, &g->idle_j, &g->util);
	if (*nuse + nout > s->cap_use) {
		size_t cap = (*nuse + nout) * 2;
		/* not array__grow: sized to what the read needs at once */
		struct gpu_use *u = calloc(cap, sizeof(*u));

		if (!u)
			return -ENOMEM;
		if (*nuse)
			memcpy(u, s->use, *nuse * sizeof(*u));
		free(s->use);
		s->use = u;
		s->cap_use = cap;
	}
	return gpu_use__merge(s->use, nuse, s->cap_use, s->one, nout);
}

int gpu_source__read(struct gpu_source *s, double dt, struct gpu_sample *out)
{
	bool first = !s->started;
	size_t nuse = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->nr_gpus = s->nr;
	out->baseline = first;
	for (int i = 0; i < s->nr && !err; i++)
		err = gpu__read_one(s, i, first, dt, &out->gpu[i], &nuse);
	s->started = true;
	out->use = s->use;
	out->nr_use = err ? 0 : nuse;
	snprintf(out->warning, sizeof(out->warning), "%s", s->warning);
	s->warning[0] = '\0';
	return err;
}
