/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A Prometheus HTTP API client: GET /api/v1/... with libcurl, the answer
 * parsed with json-c and its envelope ({"status", "data" | "errorType",
 * "error"}) checked. Errors land in c->err as one line naming the URL.
 */
#ifndef CLI_PROM_CLIENT_H
#define CLI_PROM_CLIENT_H

#include <json-c/json.h>

struct prom_client {
	char *base;		/* the server's URL, without a trailing '/' */
	char *shown;		/* the same without user and password */
	void *curl;		/* CURL * */
	char err[512];
};

/* 0, -EINVAL (not an http(s) URL without query or fragment: c->err
 * says so), -ENOMEM. */
int prom_client__init(struct prom_client *c, const char *url);
void prom_client__exit(struct prom_client *c);
/* url as messages and reports show it: no user or password, no trailing
 * '/'; *shown is the caller's. 0, -EINVAL (not a URL), -ENOMEM. */
int prom_url__shown(const char *url, char **shown);

/* GET base + path with the parameters (name, value, ..., NULL; values
 * URL-encoded here). *data: the answer's "data" (the caller's reference).
 * -EHOSTUNREACH: no answer (refused, unresolved, timed out), a runtime
 * failure (exit 1);
 * -EPROTO: an answer, but not from a Prometheus API (exit 2);
 * -EIO: an HTTP 5xx that is not the API's (a proxy's error page);
 * -EINVAL: the server rejected the query (bad_data: a bad --match);
 * -EIO: another error the server reported; -ENOMEM. */
int prom_client__get(struct prom_client *c, const char *path,
		     const char *const *params, struct json_object **data);

#endif
