// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A Prometheus HTTP API client over libcurl (see prom_client.h). libcurl
 * does the URL parsing, connections, TLS, redirects, compression and
 * timeouts; json-c parses the answer.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include "common/array.h"
#include "cli/commands.h"
#include "cli/report/prom_client.h"

#define BODY_MAX	(1ul << 30)	/* a range query of a big fleet */
#define CONNECT_S	5
#define ANSWER_S	120

struct body {
	char *buf;
	size_t len, cap;
	bool too_big;
};

static size_t body__write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb, need = b->len + n + 1;

	if (need > BODY_MAX) {
		b->too_big = true;
		return 0;
	}
	/* 64 KiB at first, then doubled */
	if (array__grow(&b->buf, &b->cap, need < 64 * 1024 ? 64 * 1024 : need, 1))
		return 0;
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return n;
}

/* An http(s) URL with a host, and nothing after its path. */
static int url__check(const char *url)
{
	char *scheme = NULL, *host = NULL, *query = NULL, *frag = NULL;
	CURLU *u = curl_url();
	int err = -EINVAL;

	if (!u)
		return -ENOMEM;
	if (curl_url_set(u, CURLUPART_URL, url, 0) ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0))
		goto out;
	if ((strcmp(scheme, "http") && strcmp(scheme, "https")) || !*host)
		goto out;
	if (!curl_url_get(u, CURLUPART_QUERY, &query, 0) ||
	    !curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0))
		goto out;
	err = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(query);
	curl_free(frag);
	curl_url_cleanup(u);
	return err;
}

int prom_url__shown(const char *url, char **shown)
{
	CURLU *u = curl_url();
	char *s = NULL;
	size_t len;
	int err = -EINVAL;

	*shown = NULL;
	if (!u)
		return -ENOMEM;
	if (curl_url_set(u, CURLUPART_URL, url, 0) ||
	    curl_url_set(u, CURLUPART_USER, NULL, 0) ||
	    curl_url_set(u, CURLUPART_PASSWORD, NULL, 0) ||
	    curl_url_get(u, CURLUPART_URL, &s, 0))
		goto out;
	err = -ENOMEM;
	*shown = strdup(s);
	if (!*shown)
		goto out;
	len = strlen(*shown);
	while (len && (*shown)[len - 1] == '/')
		(*shown)[--len] = '\0';
	err = 0;
out:
	curl_free(s);
	curl_url_cleanup(u);
	return err;
}

int prom_client__init(struct prom_client *c, const char *url)
{
	size_t len;
	int err;

	memset(c, 0, sizeof(*c));
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return -ENOMEM;
	err = url__check(url);
	if (err) {
		snprintf(c->err, sizeof(c->err),
			 "--prometheus wants the server's http(s) URL (http://host:9090), not '%s'",
			 url);
		return err;
	}
	c->base = strdup(url);
	c->curl = curl_easy_init();
	if (!c->base || !c->curl || prom_url__shown(url, &c->shown)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	len = strlen(c->base);
	while (len && c->base[len - 1] == '/')
		c->base[--len] = '\0';
	return 0;
}

void prom_client__exit(struct prom_client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->base);
	free(c->shown);
	curl_global_cleanup();
	memset(c, 0, sizeof(*c));
}

/* base + path + ?name=value&..., values escaped */
static char *url__build(CURL *curl, const char *base, const char *path,
			const char *const *params)
{
	char *url = NULL, *v, *next;
	int i;

	if (asprintf(&url, "%s%s", base, path) < 0)
		return NULL;
	for (i = 0; params && params[i] && params[i + 1]; i += 2) {
		v = curl_easy_escape(curl, params[i + 1], 0);
		if (!v || asprintf(&next, "%s%c%s=%s", url, i ? '&' : '?',
				   params[i], v) < 0) {
			curl_free(v);
			free(url);
			return NULL;
		}
		curl_free(v);
		free(url);
		url = next;
	}
	return url;
}

static const char *json__str(struct json_object *o, const char *name)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The envelope: "success" and its data, or the server's error. */
static int answer__data(struct prom_client *c, const char *path, long code,
			struct json_object *o, struct json_object **data)
{
	const char *status = json__str(o, "status"), *type, *msg;

	if (status && !strcmp(status, "success") &&
	    json_object_object_get_ex(o, "data", data)) {
		json_object_get(*data);
		return 0;
	}
	if (!status || strcmp(status, "error")) {
		snprintf(c->err, sizeof(c->err),
			 "%s does not answer as a Prometheus server (HTTP %ld on %s)",
			 c->shown, code, path);
		return -EPROTO;
	}
	type = json__str(o, "errorType") ?: "error";
	msg = json__str(o, "error") ?: "no reason given";
	snprintf(c->err, sizeof(c->err), "Prometheus at %s: %s: %s", c->shown,
		 type, msg);
	return !strcmp(type, "bad_data") ? -EINVAL : -EIO;
}

static int answer__parse(struct prom_client *c, const char *path, long code,
			 const struct body *b, struct json_object **data)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o = NULL;
	size_t end;
	int err;

	if (!tok)
		return -ENOMEM;
	if (b->buf)
		o = json_tokener_parse_ex(tok, b->buf, b->len);
	end = o ? json_tokener_get_parse_end(tok) : 0;
	/* one object, white space after it at most */
	if ((!o || !json_object_is_type(o, json_type_object) ||
	     b->buf[end + strspn(b->buf + end, " \t\r\n")]) && code >= 500) {
		/* a proxy's or the server's error page: runtime, not input */
		snprintf(c->err, sizeof(c->err), "Prometheus at %s: HTTP %ld on %s",
			 c->shown, code, path);
		err = -EIO;
		goto out;
	}
	if (!o || !json_object_is_type(o, json_type_object) ||
	    b->buf[end + strspn(b->buf + end, " \t\r\n")]) {
		snprintf(c->err, sizeof(c->err),
			 "%s does not answer as a Prometheus server (HTTP %ld on %s, %s)",
			 c->shown, code, path, b->len ? "not JSON" : "empty");
		err = -EPROTO;
		goto out;
	}
	err = answer__data(c, path, code, o, data);
out:
	json_object_put(o);
	json_tokener_free(tok);
	return err;
}

int prom_client__get(struct prom_client *c, const char *path,
		     const char *const *params, struct json_object **data)
{
	struct body b = { 0 };
	CURL *curl = c->curl;
	CURLcode res;
	long code = 0;
	char *url;
	int err;

	url = url__build(curl, c->base, path, params);
	if (!url) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	curl_easy_reset(curl);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 3L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, (long)CONNECT_S);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)ANSWER_S);
	curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");	/* gzip: big matrices */
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "emon-perf/" EMON_VERSION);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, body__write);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
	res = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	if (res == CURLE_WRITE_ERROR || b.too_big) {
		snprintf(c->err, sizeof(c->err), "%s: the answer to %s is %s",
			 c->shown, path, b.too_big ? "over 1 GiB (a shorter --range or a coarser --step?)" :
			 "too big for memory");
		err = -ENOMEM;
	} else if (res != CURLE_OK) {
		snprintf(c->err, sizeof(c->err), "cannot reach Prometheus at %s: %s",
			 c->shown, curl_easy_strerror(res));
		err = -EHOSTUNREACH;
	} else {
		err = answer__parse(c, path, code, &b, data);
	}
	free(b.buf);
	free(url);
	return err;
}
