// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The /metrics endpoint: --listen values, then a server on 127.0.0.1:0
 * with a fake metrics function, spoken to over a plain socket: routes,
 * content negotiation, 404/405/503, HEAD, an oversized request, a busy
 * port, and the socket closed after http__stop.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "daemon/exporter/http.h"
#include "daemon/exporter/webcfg.h"
#include "helpers.h"

#define TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define TYPE_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"

static void test_parse_listen(void **state)
{
	static const struct {
		const char *spec;
		int ret;
		int family;
		int port;
	} cases[] = {
		{ "127.0.0.1:9464", 0, AF_INET, 9464 },
		{ "0.0.0.0:0", 0, AF_INET, 0 },
		{ "[::1]:0", 0, AF_INET6, 0 },
		{ "[::]:65535", 0, AF_INET6, 65535 },
		{ "[fe80::1%lo]:9464", 0, AF_INET6, 9464 },
		{ "1.2.3.4", -EINVAL },		/* no port */
		{ "x:1", -EINVAL },		/* no host names */
		{ "localhost:9464", -EINVAL },
		{ "127.0.0.1:70000", -EINVAL },
		{ "127.0.0.1:", -EINVAL },
		{ "127.0.0.1:-1", -EINVAL },
		{ "127.0.0.1:+80", -EINVAL },
		{ "127.0.0.1:9464x", -EINVAL },
		{ "127.0.0.1:000009464", -EINVAL },
		{ "127.1:80", -EINVAL },	/* dotted quads only */
		{ ":9464", -EINVAL },
		{ "::1:9464", -EINVAL },	/* IPv6 needs brackets */
		{ "[::1]", -EINVAL },
		{ "[::1]:", -EINVAL },
		{ "[127.0.0.1]:80", -EINVAL },
		{ "[::1]9464", -EINVAL },
		{ "", -EINVAL },
	};
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret, port;

		err[0] = '\0';
		ret = http__parse_listen(cases[i].spec, &ss, &len, err, sizeof(err));
		if (ret != cases[i].ret)
			fail_msg("'%s': %d, expected %d (%s)", cases[i].spec, ret,
				 cases[i].ret, err);
		if (ret) {
			/* one line naming the culprit */
			assert_non_null(strstr(err, cases[i].spec));
			assert_null(strchr(err, '\n'));
			continue;
		}
		assert_int_equal(ss.ss_family, cases[i].family);
		port = ss.ss_family == AF_INET ?
			ntohs(((struct sockaddr_in *)&ss)->sin_port) :
			ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		assert_int_equal(port, cases[i].port);
		assert_int_equal(len, ss.ss_family == AF_INET ?
				 sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	}
	assert_int_equal(http__parse_listen(NULL, &ss, &len, err, sizeof(err)), -EINVAL);
}

struct fake {
	int calls;
	bool last_om;
	int fail;		/* return this instead */
};

static int fake__metrics(void *ctx, bool openmetrics, char **body, size_t *len)
{
	struct fake *f = ctx;
	const char *text = openmetrics ? "emon_x_total 1\n# EOF\n" : "emon_x_total 1\n";

	__atomic_add_fetch(&f->calls, 1, __ATOMIC_SEQ_CST);
	f->last_om = openmetrics;
	if (f->fail)
		return f->fail;
	*body = strdup(text);
	*len = strlen(text);
	return *body ? 0 : -ENOMEM;
}

static int http_connect(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 5 };
	int fd;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Send req, read until the server closes (or resets): the bytes read,
 * into resp (NUL-terminated). Send errors are ignored: the server may
 * close before it read everything. */
static ssize_t http_roundtrip(int port, const char *req, size_t reqlen,
			      char *resp, size_t len)
{
	size_t got = 0, off = 0;
	int fd = http_connect(port);

	assert_true(fd >= 0);
	while (off < reqlen) {
		ssize_t n = send(fd, req + off, reqlen - off, MSG_NOSIGNAL);

		if (n <= 0)
			break;
		off += n;
	}
	while (got + 1 < len) {
		ssize_t n = recv(fd, resp + got, len - 1 - got, 0);

		if (n <= 0)
			break;
		got += n;
	}
	resp[got] = '\0';
	close(fd);
	return got;
}

struct reply {
	int status;
	char text[8192];
	const char *body;
};

static void request(int port, const char *method, const char *path,
		    const char *extra, struct reply *r)
{
	char req[1024];
	int n;

	n = snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: localhost\r\n"
		     "Connection: close\r\n%s\r\n", method, path, extra ? extra : "");
	http_roundtrip(port, req, n, r->text, sizeof(r->text));
	r->status = 0;
	sscanf(r->text, "HTTP/1.%*d %d", &r->status);
	r->body = strstr(r->text, "\r\n\r\n");
	r->body = r->body ? r->body + 4 : NULL;
}

static void assert_header(const struct reply *r, const char *name, const char *value)
{
	char line[256];

	snprintf(line, sizeof(line), "\r\n%s: %s\r\n", name, value);
	if (!strcasestr(r->text, line))
		fail_msg("no '%s: %s' in:\n%s", name, value, r->text);
}

/* A 100 KiB header: libmicrohttpd answers 4xx (431) or just closes. */
static void big_request(int port, struct reply *r)
{
	size_t big = 100 * 1024, n;
	char *req = malloc(big + 256);
	ssize_t got;

	assert_non_null(req);
	n = sprintf(req, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
	memset(req + n, 'a', big);
	n += big;
	n += sprintf(req + n, "\r\n\r\n");
	got = http_roundtrip(port, req, n, r->text, sizeof(r->text));
	r->status = 0;
	sscanf(r->text, "HTTP/1.%*d %d", &r->status);
	printf("100 KiB header: %s\n", got > 0 ? strtok(r->text, "\r") :
	       "connection closed");
	assert_true(got == 0 || (r->status >= 400 && r->status < 500));
	free(req);
}

static void test_server(void **state)
{
	struct fake fake = {};
	struct http_server *h = NULL, *h2 = NULL;
	struct reply *r = calloc(1, sizeof(*r));
	char err[256], spec[64];
	int port, calls;

	(void)state;
	assert_int_equal(http__start(&h, "127.0.0.1:0", fake__metrics, &fake,
				     err, sizeof(err)), 0);
	port = http__port(h);
	assert_true(port > 0 && port < 65536);

	request(port, "GET", "/", NULL, r);
	assert_int_equal(r->status, 200);
	assert_header(r, "Content-Type", "text/html; charset=utf-8");
	assert_non_null(strstr(r->body, "href=\"/metrics\""));
	assert_non_null(strstr(r->body, "emon-perf"));

	request(port, "GET", "/metrics", NULL, r);
	assert_int_equal(r->status, 200);
	assert_header(r, "Content-Type", TYPE_TEXT);
	assert_string_equal(r->body, "emon_x_total 1\n");
	assert_false(fake.last_om);

	/* Prometheus's own Accept header */
	request(port, "GET", "/metrics?x=1", "Accept: application/openmetrics-text;"
		"version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
		"text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n", r);
	assert_int_equal(r->status, 200);
	assert_header(r, "Content-Type", TYPE_OM);
	assert_string_equal(r->body, "emon_x_total 1\n# EOF\n");
	assert_true(fake.last_om);

	request(port, "GET", "/metrics", "Accept: text/plain\r\n", r);
	assert_header(r, "Content-Type", TYPE_TEXT);

	/* HEAD: the headers, no body */
	request(port, "HEAD", "/metrics", NULL, r);
	assert_int_equal(r->status, 200);
	assert_header(r, "Content-Type", TYPE_TEXT);
	assert_string_equal(r->body, "");

	request(port, "GET", "/nope", NULL, r);
	assert_int_equal(r->status, 404);
	request(port, "GET", "/metrics/", NULL, r);
	assert_int_equal(r->status, 404);

	request(port, "POST", "/metrics", "Content-Length: 5\r\n", r);
	assert_int_equal(r->status, 405);
	assert_header(r, "Allow", "GET, HEAD");
	request(port, "DELETE", "/", NULL, r);
	assert_int_equal(r->status, 405);

	/* the metrics cannot be made: 503 and a line saying why */
	fake.fail = -EAGAIN;
	request(port, "GET", "/metrics", NULL, r);
	assert_int_equal(r->status, 503);
	assert_non_null(strstr(r->body, "unavailable"));
	assert_non_null(strchr(r->body, '\n'));
	fake.fail = 0;

	/* a request past the 64 KiB a connection may use: refused */
	calls = fake.calls;
	big_request(port, r);
	assert_int_equal(fake.calls, calls);

	/* still serving */
	request(port, "GET", "/metrics", NULL, r);
	assert_int_equal(r->status, 200);

	/* the port is taken: the error says so */
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
	assert_int_equal(http__start(&h2, spec, fake__metrics, &fake, err,
				     sizeof(err)), -EADDRINUSE);
	printf("busy port: %s\n", err);
	assert_non_null(strstr(err, spec));
	assert_int_equal(http__start(&h2, "1.2.3.4", fake__metrics, &fake, err,
				     sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "1.2.3.4"));

	http__stop(h);
	assert_int_equal(http_connect(port), -ECONNREFUSED);
	http__stop(NULL);
	free(r);
}

/* One response on a kept-alive connection: status, and the body whole
 * (Content-Length). */
static int read_response(int fd, char *buf, size_t len)
{
	size_t got = 0;
	int status = 0;

	while (got + 1 < len) {
		const char *end, *cl;
		ssize_t n = recv(fd, buf + got, len - 1 - got, 0);

		if (n <= 0)
			break;
		got += n;
		buf[got] = '\0';
		end = strstr(buf, "\r\n\r\n");
		cl = strcasestr(buf, "\r\nContent-Length: ");
		if (end && cl && got >= (size_t)(end + 4 - buf) + strtoul(cl + 18, NULL, 10))
			break;
	}
	buf[got] = '\0';
	sscanf(buf, "HTTP/1.%*d %d", &status);
	return status;
}

/* Prometheus keeps its connection between scrapes: so does the server. */
static void test_keepalive(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct fake fake = {};
	struct http_server *h = NULL;
	char err[256], buf[4096];
	int fd;

	(void)state;
	assert_int_equal(http__start(&h, "127.0.0.1:0", fake__metrics, &fake,
				     err, sizeof(err)), 0);
	fd = http_connect(http__port(h));
	assert_true(fd >= 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL),
				 (ssize_t)sizeof(req) - 1);
		assert_int_equal(read_response(fd, buf, sizeof(buf)), 200);
		assert_null(strcasestr(buf, "Connection: close"));
		assert_non_null(strstr(buf, "\r\n\r\nemon_x_total 1\n"));
	}
	assert_int_equal(fake.calls, 3);
	close(fd);
	http__stop(h);
}

/*
 * 32 idle connections from one IP (the most one address holds): a 33rd,
 * a scrape, is answered, and the longest idle of the 32 is shut down to
 * make room for it (daemon/exporter/http_conns.h); the others stay.
 */
static void test_per_ip_limit(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n"
				  "Connection: close\r\n\r\n";
	struct fake fake = {};
	struct http_server *h = NULL;
	struct reply *r = calloc(1, sizeof(*r));
	char err[256], c;
	int fds[32], port, closed = 0;
	ssize_t got;

	(void)state;
	assert_int_equal(http__start(&h, "127.0.0.1:0", fake__metrics, &fake,
				     err, sizeof(err)), 0);
	port = http__port(h);
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i] = http_connect(port);
		assert_true(fds[i] >= 0);
		usleep(2000);	/* each idle longer than the next */
	}
	usleep(200 * 1000);	/* all accepted */
	got = http_roundtrip(port, req, sizeof(req) - 1, r->text, sizeof(r->text));
	assert_true(got > 0);
	assert_non_null(strstr(r->text, " 200 "));
	assert_int_equal(fake.calls, 1);
	usleep(200 * 1000);
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		/* the shut down one reads its end, the others would block */
		if (recv(fds[i], &c, 1, MSG_DONTWAIT) == 0) {
			closed++;
			assert_int_equal(i, 0);	/* the longest idle */
		}
		close(fds[i]);
	}
	assert_int_equal(closed, 1);
	http__stop(h);
	free(r);
}

/* IPv6 loopback, when the host has it. */
static void test_server_v6(void **state)
{
	struct fake fake = {};
	struct http_server *h = NULL;
	char err[256];

	(void)state;
	if (http__start(&h, "[::1]:0", fake__metrics, &fake, err, sizeof(err))) {
		printf("SKIP IPv6: %s\n", err);
		return;
	}
	assert_true(http__port(h) > 0);
	http__stop(h);
}

/* basic_auth_users: 401 with the challenge, 200 with the right pair */
static void test_basic_auth(void **state)
{
	struct webcfg_user u = {
		"alice", "$2y$04$Ai79/OIANx45ub6vXFDsN.mTb1hn1dxLaTfnSejjci3Sefa2kIJ0m",
	};
	struct webcfg web = { .users = &u, .nr_users = 1 };
	struct reply *r = calloc(1, sizeof(*r));
	struct fake fake = {};
	struct http_server *h;
	char err[256];

	(void)state;
	assert_int_equal(http__start_web(&h, "127.0.0.1:0", &web, fake__metrics,
					 &fake, err, sizeof(err)), 0);
	request(http__port(h), "GET", "/metrics", NULL, r);
	assert_int_equal(r->status, 401);
	assert_header(r, "WWW-Authenticate", "Basic realm=\"emon-perf\"");
	request(http__port(h), "GET", "/", NULL, r);	/* every path */
	assert_int_equal(r->status, 401);
	/* alice:wrong, then alice:pw */
	request(http__port(h), "GET", "/metrics",
		"Authorization: Basic YWxpY2U6d3Jvbmc=\r\n", r);
	assert_int_equal(r->status, 401);
	assert_int_equal(fake.calls, 0);
	request(http__port(h), "GET", "/metrics",
		"Authorization: Basic YWxpY2U6cHc=\r\n", r);
	assert_int_equal(r->status, 200);
	assert_string_equal(r->body, "emon_x_total 1\n");
	http__stop(h);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_listen),
		cmocka_unit_test(test_server),
		cmocka_unit_test(test_keepalive),
		cmocka_unit_test(test_per_ip_limit),
		cmocka_unit_test(test_server_v6),
		cmocka_unit_test(test_basic_auth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
