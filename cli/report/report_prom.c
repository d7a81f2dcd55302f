// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report --prometheus, the fetching side: the window, one range
 * query per scope and family (the counters' values at every step; a
 * second one, of their peaks, for a family where a counter reset), the
 * energy source from the metrics' HELP, and the errors people meet: a
 * server that does not answer, one that is no Prometheus, one without
 * emon-perf's metrics, a window without data, a --match it rejects.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/report/prom_client.h"
#include "cli/report/report_prom.h"

/* About 250 points for the charts; at most 5 minutes apart, the daemon's
 * default --retain, so that a key that lived a short while between two
 * steps still has its final value at the next one; fewer points than the
 * server's limit. */
static double step__default(double range)
{
	double s = ceil(range / 250);

	if (s > 300)
		s = fmax(300, ceil(range / (REPORT_PROM_MAX_POINTS - 1000)));
	return fmax(s, 1);
}

static void time__iso(char *buf, size_t len, double t)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&s, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%.0f", t);
}

/* max by (host labels, key labels) (emon_<scope>_<family>{matchers}):
 * one series per key even when its other labels changed. With peak_ms,
 * the highest raw value in each step instead:
 * max by (...) (max_over_time(emon_...{...}[<peak_ms>ms])). */
static char *query__build(const struct report_prom_scope *ps,
			  const struct report_prom_fam *pf, const char *match,
			  long long peak_ms)
{
	char *sel = NULL, *q = NULL;
	int n;

	n = asprintf(&sel, "emon_%s_%s%s%s%s%s%s", ps->name, pf->name,
		     pf->match || match ? "{" : "", pf->match ?: "",
		     pf->match && match ? "," : "", match ?: "",
		     pf->match || match ? "}" : "");
	if (n < 0)
		return NULL;
	if (peak_ms)
		n = asprintf(&q, "max by (instance,host%s%s) (max_over_time(%s[%lldms]))",
			     *ps->by ? "," : "", ps->by, sel, peak_ms);
	else
		n = asprintf(&q, "max by (instance,host%s%s) (%s)",
			     *ps->by ? "," : "", ps->by, sel);
	free(sel);
	return n < 0 ? NULL : q;
}

/* A query the server refused: its message, and the --match to look at
 * when the query was bad. Returns err. */
static int report__fail_query(struct report *r, const struct prom_client *c,
			      const struct report_prom_query *q, int err)
{
	bool m = err == -EINVAL && q->match;

	return report__fail(r, -1, err, "%s%s%s%s", c->err, m ? " (is --match '" : "",
			    m ? q->match : "", m ? "' right?)" : "");
}

/* The window's parameters of every range query. */
struct span {
	char start[32], end[32], step[32];
	long long step_ms;
};

/* One range query into r: the values (peaks false) or, for a family with
 * a reset, the peaks. 0 or -errno, r->err naming the culprit. */
static int report__query(struct report *r, struct prom_client *c,
			 const struct report_prom_query *q, int scope_i, int fam,
			 const struct span *sp, bool peaks)
{
	const struct report_prom_scope *ps = &report_prom_scopes[scope_i];
	struct json_object *data = NULL, *type, *res;
	const char *params[] = { "query", NULL, "start", sp->start, "end", sp->end,
				 "step", sp->step, NULL };
	char *query = query__build(ps, &report_prom_fams[fam], q->match,
				   peaks ? sp->step_ms : 0);
	int err;

	if (!query) {
		err = report__fail(r, -1, -ENOMEM, "out of memory");
		goto out;
	}
	params[1] = query;
	err = prom_client__get(c, "/api/v1/query_range", params, &data);
	if (err) {
		report__fail_query(r, c, q, err);
		goto out;
	}
	if (!json_object_object_get_ex(data, "resultType", &type) ||
	    strcmp(json_object_get_string(type), "matrix") ||
	    !json_object_object_get_ex(data, "result", &res) ||
	    !json_object_is_type(res, json_type_array)) {
		err = report__fail(r, -1, -EPROTO,
				   "%s does not answer as a Prometheus server (no matrix for a range query)",
				   c->shown);
		goto out;
	}
	err = peaks ? report__prom_add_peaks(r, ps->scope, fam, json_object_get(res)) :
		      report__prom_add(r, ps->scope, fam, json_object_get(res));
	if (err)
		err = report__fail(r, -1, -ENOMEM, "out of memory");
out:
	json_object_put(data);
	free(query);
	return err;
}

/* The containers' names over the window: one instant query at its end of
 * each container's labels, whichever family they are on (the daemon puts
 * them on every emon_container_* series). */
static int report__names(struct report *r, struct prom_client *c,
			 const struct report_prom_query *q, const struct span *sp,
			 double range)
{
	struct json_object *data = NULL, *type, *res;
	const char *params[] = { "query", NULL, "time", sp->end, NULL };
	char *query = NULL;
	int err;

	if (asprintf(&query, "group by (instance,host,container_id,name,image,namespace,pod,container) "
		     "(last_over_time({__name__=~\"emon_container_.+\"%s%s}[%.0fs]))",
		     q->match ? "," : "", q->match ?: "", ceil(range) + 1) < 0) {
		query = NULL;
		err = report__fail(r, -1, -ENOMEM, "out of memory");
		goto out;
	}
	params[1] = query;
	err = prom_client__get(c, "/api/v1/query", params, &data);
	if (err) {
		report__fail_query(r, c, q, err);
		goto out;
	}
	if (!json_object_object_get_ex(data, "resultType", &type) ||
	    strcmp(json_object_get_string(type), "vector") ||
	    !json_object_object_get_ex(data, "result", &res)) {
		err = report__fail(r, -1, -EPROTO,
				   "%s does not answer as a Prometheus server (no vector for an instant query)",
				   c->shown);
		goto out;
	}
	err = report__prom_add_names(r, json_object_get(res));
	if (err == -ENOMEM)
		report__fail(r, -1, err, "out of memory");
	else if (err)
		report__fail(r, -1, err, "%s: a malformed answer for the containers' names",
			     c->shown);
out:
	json_object_put(data);
	free(query);
	return err;
}

/* Whether the server has ever had a metric of the daemon's. */
static bool server__has_emon(struct prom_client *c)
{
	struct json_object *names = NULL;
	bool has = false;
	size_t i;

	if (prom_client__get(c, "/api/v1/label/__name__/values", NULL, &names))
		return true;	/* cannot tell: do not claim it has none */
	for (i = 0; json_object_is_type(names, json_type_array) &&
		    i < json_object_array_length(names); i++)
		has |= !strncmp(json_object_get_string(json_object_array_get_idx(names, i)),
				"emon_", 5);
	json_object_put(names);
	return has;
}

/* "source: powercap, split by cpu-clock" in the HELP of the system's
 * energy (daemon/exporter/metrics.c); best effort: unknown stays NULL. */
static void report__energy_meta(struct report *r, struct prom_client *c)
{
	static const char *const names[] = {
		"emon_system_energy_joules",		/* OpenMetrics family */
		"emon_system_energy_joules_total",	/* text format */
	};
	struct json_object *data = NULL, *list, *help;
	const char *h, *p;
	size_t i;

	for (i = 0; i < 2 && !data; i++) {
		const char *params[] = { "metric", names[i], NULL };

		if (prom_client__get(c, "/api/v1/metadata", params, &data))
			return;
		if (!json_object_object_get_ex(data, names[i], &list) ||
		    !json_object_object_get_ex(json_object_array_get_idx(list, 0),
					       "help", &help)) {
			json_object_put(data);
			data = NULL;
		}
	}
	if (!data)
		return;
	h = json_object_get_string(help);
	if ((p = strstr(h, "source: ")) && (r->energy_source = strdup(p + 8)))
		r->energy_source[strcspn(r->energy_source, ",;")] = '\0';
	report__scrub(r->energy_source);
	if ((p = strstr(h, "split by ")))
		r->split_by = strdup(p + 9);
	report__scrub(r->split_by);
	json_object_put(data);
}

/* The window's description for the header, and the points' times. */
static int report__prom_span(struct report *r, const struct report_prom_query *q,
			     double *start, double *end, double *step)
{
	char from[32], to[32];
	double n;

	*end = q->end > 0 ? q->end : floor((double)time(NULL));
	*step = q->step > 0 ? q->step : step__default(q->range);
	n = ceil(q->range / *step - 1e-9);
	if (n + 1 > REPORT_PROM_MAX_POINTS)
		return report__fail(r, -1, -E2BIG,
				    "--step %gs is too fine for --range %gs: %.0f points, Prometheus gives at most %d",
				    *step, q->range, n + 1, REPORT_PROM_MAX_POINTS);
	*start = *end - n * *step;
	if (report__prom_window(r, *start, *step, (int)n))
		return report__fail(r, -1, -ENOMEM, "out of memory");
	time__iso(from, sizeof(from), *start);
	time__iso(to, sizeof(to), *end);
	if (asprintf(&r->window, "from %s to %s (Unix %.3f to %.3f), step %g s%s%s",
		     from, to, *start, *end, *step, q->match ? ", --match " : "",
		     q->match ?: "") < 0) {
		r->window = NULL;
		return report__fail(r, -1, -ENOMEM, "out of memory");
	}
	return 0;
}

static int report__prom_total(struct report *r, struct prom_client *c)
{
	int err = report__prom_sum(r);

	if (err == -ENODATA) {
		if (!server__has_emon(c))
			return report__fail(r, -1, err, "%s has no emon-perf metrics (does it scrape 'emon-perf serve'? see README, Prometheus)",
					    c->shown);
		return report__fail(r, -1, err, "%s has no emon-perf data %s",
				    c->shown, r->window);
	}
	if (err)
		return err;	/* r->err says which */
	if (r->has_energy)
		report__energy_meta(r, c);
	return 0;
}

static int prom__load(struct report *r, const void *arg)
{
	const struct report_prom_query *q = arg;
	double start = 0, end = 0, step = 0;	/* set unless report__prom_span() fails */
	struct prom_client c;
	struct span sp;
	int i, f, ret;

	ret = prom_client__init(&c, q->url);
	if (ret) {
		report__fail(r, -1, ret, "%s", c.err[0] ? c.err : "out of memory");
		goto out;
	}
	ret = report__prom_span(r, q, &start, &end, &step);
	if (ret)
		goto out;
	snprintf(sp.start, sizeof(sp.start), "%.3f", start);
	snprintf(sp.end, sizeof(sp.end), "%.3f", end);
	snprintf(sp.step, sizeof(sp.step), "%.3f", step);
	sp.step_ms = llround(step * 1000);
	ret = report__names(r, &c, q, &sp, end - start);
	if (ret)
		goto out;
	for (i = 0; i < REPORT_PROM_SCOPES; i++) {
		for (f = 0; f < RF_NR; f++) {
			ret = report__query(r, &c, q, i, f, &sp, false);
			if (!ret && report__prom_resets(r, report_prom_scopes[i].scope, f))
				ret = report__query(r, &c, q, i, f, &sp, true);
			if (ret)
				goto out;
		}
	}
	ret = report__prom_total(r, &c);
out:
	prom_client__exit(&c);
	return ret;
}

/* Where the daemon's metrics have no rows of a scope. */
static const char *prom__no_rows(const struct report *r, int scope)
{
	if (scope == SCOPE_CPU || scope == SCOPE_COMMAND)
		return "from Prometheus (the daemon exports no cpu or command scope)";
	if (scope == SCOPE_PROCESS)
		return "in this window (the daemon exports processes with --processes top:N)";
	if ((scope == SCOPE_POD || scope == SCOPE_NAMESPACE) &&
	    !r->tab[SCOPE_CONTAINER].nr)
		return "in this window (no container ran in it: pod and namespace rows are Kubernetes containers')";
	if (scope == SCOPE_POD || scope == SCOPE_NAMESPACE)
		return "in this window (its containers are no Kubernetes pod's: no pod names or pod_uid label; --by container shows them)";
	return "in this window";
}

const struct report_source report_prom_source = {
	.name		= "prometheus",
	.load		= prom__load,
	.load_series	= report__prom_series,
	.no_rows	= prom__no_rows,
	.free		= report_prom__free,
};
