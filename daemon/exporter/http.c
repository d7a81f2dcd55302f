// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /metrics over HTTP with libmicrohttpd: it parses the requests and bounds
 * the connections; this file only routes and negotiates the format.
 *
 * The listening socket is ours (bound before libmicrohttpd starts), so a
 * bind failure names its errno. The polling thread uses epoll (MHD_USE_AUTO),
 * not select(): the daemon holds a perf event per CPU per event, and a
 * socket numbered past FD_SETSIZE would break select().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>
#include "daemon/exporter/http.h"
#include "daemon/exporter/http_auth.h"
#include "daemon/exporter/http_conns.h"
#include "daemon/exporter/http_peer.h"
#include "daemon/exporter/http_tls.h"
#include "common/log.h"

#ifndef MHD_HTTP_CONTENT_TOO_LARGE	/* libmicrohttpd before 0.9.74 */
#define MHD_HTTP_CONTENT_TOO_LARGE 413
#endif
#define HTTP_REALM "emon-perf"

/* libmicrohttpd's own limits, above http_conns.h's (which evicts to stay
 * within them): an evicted connection counts until its next poll */
#define HTTP_CONN_LIMIT ((unsigned int)HTTP_CONN_SLOTS)
#define HTTP_TIMEOUT_S 10u
#define HTTP_CONN_MEMORY ((size_t)64 * 1024)

#define TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define TYPE_PLAIN "text/plain; charset=utf-8"
#define TYPE_HTML "text/html; charset=utf-8"

static const char index_html[] =
	"<!DOCTYPE html>\n"
	"<html><head><meta charset=\"utf-8\"><title>emon-perf</title></head>\n"
	"<body><h1>emon-perf</h1>\n"
	"<p>Perf events and energy per system, package, cgroup, container "
	"and process.</p>\n"
	"<p><a href=\"/metrics\">Metrics</a></p>\n"
	"</body></html>\n";

struct http_server {
	struct MHD_Daemon *d;
	http_metrics_fn fn;
	void *ctx;
	int port;
	bool has_tls;
	struct http_tls tls;
	struct http_auth *auth;		/* NULL: no basic auth */
	int fd;		/* bound, not yet handed to libmicrohttpd; -1 after */
	struct http_conns conns;	/* the polling thread's */
	bool by_uid;			/* plain, on loopback: root and gid only */
	gid_t gid;
};

static void set_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* ---- --listen ---- */

static int parse_port(const char *s, in_port_t *port)
{
	unsigned long v = 0;
	size_t n = strlen(s);

	if (!n || n > 5 || strspn(s, "0123456789") != n)
		return -EINVAL;
	v = strtoul(s, NULL, 10);
	if (v > 65535)
		return -EINVAL;
	*port = htons((in_port_t)v);
	return 0;
}

static int parse_v4(const char *host, in_port_t port,
		    struct sockaddr_storage *ss, socklen_t *sslen)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = port;
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		return -EINVAL;
	*sslen = sizeof(*sin);
	return 0;
}

/* getaddrinfo, numeric only, for a scope such as fe80::1%eth0 */
static int parse_v6(const char *host, in_port_t port,
		    struct sockaddr_storage *ss, socklen_t *sslen)
{
	struct addrinfo hints = {
		.ai_family = AF_INET6,
		.ai_flags = AI_NUMERICHOST,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *ai;

	if (getaddrinfo(host, NULL, &hints, &ai))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sslen = ai->ai_addrlen;
	((struct sockaddr_in6 *)ss)->sin6_port = port;
	freeaddrinfo(ai);
	return 0;
}

int http__parse_listen(const char *spec, struct sockaddr_storage *ss,
		       socklen_t *sslen, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 64];
	const char *colon, *why;
	bool v6 = spec && spec[0] == '[';
	in_port_t port;
	size_t n;

	why = "expected ADDR:PORT (IPv4) or [ADDR]:PORT (IPv6)";
	if (!spec || !ss || !sslen || !*spec)
		goto bad;
	colon = v6 ? strstr(spec, "]:") : strrchr(spec, ':');
	if (!colon)
		goto bad;
	n = colon - spec - v6;
	if (!n || n >= sizeof(host))
		goto bad;
	memcpy(host, spec + v6, n);
	host[n] = '\0';
	why = "the port is not a number from 0 to 65535";
	if (parse_port(colon + 1 + v6, &port))
		goto bad;
	why = v6 ? "not a numeric IPv6 address" : "not a dotted IPv4 address "
		   "(IPv6: [ADDR]:PORT)";
	if (v6 ? parse_v6(host, port, ss, sslen) : parse_v4(host, port, ss, sslen))
		goto bad;
	return 0;
bad:
	set_err(err, errlen, "bad listen address '%s': %s", spec ? spec : "", why);
	return -EINVAL;
}

bool http__loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return s6->sin6_addr.s6_addr[12] == 127;
	return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
}

/* ---- requests ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, const char *body,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body, mode);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static bool wants_openmetrics(struct MHD_Connection *c)
{
	const char *accept;

	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	return accept && strcasestr(accept, "application/openmetrics-text");
}

static enum MHD_Result metrics__reply(struct http_server *h,
				      struct MHD_Connection *c)
{
	bool om = wants_openmetrics(c);
	struct MHD_Response *r;
	char *body = NULL, msg[128];
	enum MHD_Result ret;
	size_t len = 0;
	int err;

	err = h->fn(h->ctx, om, &body, &len);
	if (err || !body) {
		free(body);
		snprintf(msg, sizeof(msg), "emon-perf: metrics unavailable: %s\n",
			 strerror(err < 0 ? -err : EIO));
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, TYPE_PLAIN, msg,
			     MHD_RESPMEM_MUST_COPY);
	}
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? TYPE_OPENMETRICS : TYPE_TEXT);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static bool method__ok(const char *method)
{
	return !strcmp(method, MHD_HTTP_METHOD_GET) ||
	       !strcmp(method, MHD_HTTP_METHOD_HEAD);
}

/* A request that says a body follows: GET and HEAD take none, and reading
 * one would let a client keep the connection busy for as long as it sends
 * (libmicrohttpd's timeout is for idleness). */
static bool request__has_body(struct MHD_Connection *c)
{
	const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
				MHD_HTTP_HEADER_CONTENT_LENGTH);

	return (len && strspn(len, "0") != strlen(len)) ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND,
				MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/* ---- who may ask (web config) ---- */

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static enum MHD_Result reply_auth(struct MHD_Connection *c,
				  enum http_auth_result res)
{
	static const char denied[] = "401 unauthorized\n";
	static const char busy[] = "429 too many password checks: retry in a second\n";
	struct MHD_Response *r;
	enum MHD_Result ret;
	bool d = res == HTTP_AUTH_DENIED;

	r = MHD_create_response_from_buffer(d ? sizeof(denied) - 1 : sizeof(busy) - 1,
					    (void *)(d ? denied : busy),
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, TYPE_PLAIN);
	if (d) {
		ret = MHD_queue_basic_auth_fail_response(c, HTTP_REALM, r);
	} else {
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
		ret = MHD_queue_response(c, MHD_HTTP_TOO_MANY_REQUESTS, r);
	}
	MHD_destroy_response(r);
	return ret;
}

static enum http_auth_result basic_auth__check(struct http_server *h,
					       struct MHD_Connection *c)
{
	enum http_auth_result res;
	char *user, *pass = NULL;

	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	user = MHD_basic_auth_get_username_password(c, &pass);
	res = http_auth__check(h->auth, ci ? ci->client_addr : NULL, user, pass,
			       mono_now());
	if (pass)
		explicit_bzero(pass, strlen(pass));
	MHD_free(user);
	MHD_free(pass);
	return res;
}

/*
 * A client certificate the configuration wants and does not get, then
 * basic auth: true with the refusal queued in *ret. Every path is
 * guarded, as exporter-toolkit's are.
 */
static bool request__refused(struct http_server *h, struct MHD_Connection *c,
			     enum MHD_Result *ret)
{
	enum http_auth_result res;
	char why[128], msg[160];

	if (h->has_tls && http_tls__verify(&h->tls, c, why, sizeof(why))) {
		pr_debug("http: refused: %s", why);
		snprintf(msg, sizeof(msg), "403 forbidden: %s\n", why);
		*ret = reply(c, MHD_HTTP_FORBIDDEN, TYPE_PLAIN, msg,
			     MHD_RESPMEM_MUST_COPY);
		return true;
	}
	if (h->by_uid && !http_conns__local_ok(&h->conns, c)) {
		*ret = reply(c, MHD_HTTP_FORBIDDEN, TYPE_PLAIN,
			     "403 forbidden: plain /metrics is for root and --metrics-group "
			     "(docs/security.md)\n", MHD_RESPMEM_PERSISTENT);
		return true;
	}
	if (!h->auth)
		return false;
	res = basic_auth__check(h, c);
	if (res == HTTP_AUTH_OK)
		return false;
	*ret = reply_auth(c, res);
	return true;
}

/*
 * GET and HEAD are answered at the second call, once the request is
 * whole: an answer at the first makes libmicrohttpd close the connection,
 * and Prometheus keeps its connection open between scrapes. Errors are
 * answered at once (a body that may follow is never read), closing it.
 */
static enum MHD_Result http__request(void *cls, struct MHD_Connection *c,
				     const char *url, const char *method,
				     const char *version, const char *upload,
				     size_t *upload_size, void **req_cls)
{
	static int seen;
	bool root = !strcmp(url, "/"), metrics = !strcmp(url, "/metrics");
	struct http_server *h = cls;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	http_conns__busy(&h->conns, c, true, 0);
	if (!*req_cls && request__refused(h, c, &ret))
		return ret;
	if (!root && !metrics)
		return reply(c, MHD_HTTP_NOT_FOUND, TYPE_PLAIN,
			     "404 not found: try /metrics\n", MHD_RESPMEM_PERSISTENT);
	if (!method__ok(method))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, TYPE_PLAIN,
			     "405 method not allowed: GET or HEAD\n",
			     MHD_RESPMEM_PERSISTENT);
	if (request__has_body(c))
		return reply(c, MHD_HTTP_CONTENT_TOO_LARGE, TYPE_PLAIN,
			     "413 a GET or HEAD takes no body\n",
			     MHD_RESPMEM_PERSISTENT);
	if (!*req_cls) {
		*req_cls = &seen;
		return MHD_YES;
	}
	if (*upload_size) {	/* a body no header announced: ignored */
		*upload_size = 0;
		return MHD_YES;
	}
	if (root)
		return reply(c, MHD_HTTP_OK, TYPE_HTML, index_html,
			     MHD_RESPMEM_PERSISTENT);
	return metrics__reply(h, c);
}

/* ---- the connections (daemon/exporter/http_conns.h) ---- */

static enum MHD_Result conn__accept(void *cls, const struct sockaddr *sa, socklen_t len)
{
	struct http_server *h = cls;

	(void)len;
	if (http_conns__admit(&h->conns, sa, mono_now()))
		return MHD_YES;
	pr_debug("http: a connection refused: %d busy connections", HTTP_CONNS);
	return MHD_NO;
}

static void conn__notify(void *cls, struct MHD_Connection *c, void **socket_ctx,
			 enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *h = cls;
	const union MHD_ConnectionInfo *fd, *addr;

	(void)socket_ctx;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		http_conns__closed(&h->conns, c);
		return;
	}
	fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!fd || !addr)
		return;
	http_conns__started(&h->conns, c, fd->connect_fd, addr->client_addr, mono_now());
	if (h->by_uid) {
		uid_t uid;

		http_conns__set_local_ok(&h->conns, c,
					 !http_peer__uid(fd->connect_fd, addr->client_addr, &uid) &&
					 http_peer__allowed(uid, h->gid));
	}
}

/* A request answered (or given up): its connection idle from now */
static void request__done(void *cls, struct MHD_Connection *c, void **req_cls,
			  enum MHD_RequestTerminationCode toe)
{
	struct http_server *h = cls;

	(void)req_cls;
	(void)toe;
	http_conns__busy(&h->conns, c, false, mono_now());
}

/* libmicrohttpd's messages (only with -v: MHD_USE_ERROR_LOG) */
static void http__log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("emon-perf: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* ---- the server ---- */

static int listen__open(const struct sockaddr_storage *ss, socklen_t sslen,
			int *port)
{
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	int fd, one = 1, err;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)ss, sslen) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&bound, &blen))
		goto fail;
	*port = ntohs(bound.ss_family == AF_INET6 ?
		      ((struct sockaddr_in6 *)&bound)->sin6_port :
		      ((struct sockaddr_in *)&bound)->sin_port);
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

static struct MHD_Daemon *daemon__start(struct http_server *h, int fd)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, h->tls.cert },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, h->tls.key },
		{ MHD_OPTION_HTTPS_PRIORITIES, 0, h->tls.priorities },
		/* last: with CAs, libmicrohttpd asks for a client certificate */
		{ h->tls.ca ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, h->tls.ca },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (verbose)
		flags |= MHD_USE_ERROR_LOG;
	if (h->has_tls)
		flags |= MHD_USE_TLS;
	else
		tls[0].option = MHD_OPTION_END;
	/* the logger first: MHD complains about the options before it */
	return MHD_start_daemon(flags, 0, conn__accept, h, http__request, h,
				MHD_OPTION_EXTERNAL_LOGGER, http__log, NULL,
				MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				MHD_OPTION_NOTIFY_CONNECTION, conn__notify, h,
				MHD_OPTION_NOTIFY_COMPLETED, request__done, h,
				MHD_OPTION_CONNECTION_LIMIT, HTTP_CONN_LIMIT,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTP_CONN_LIMIT,
				MHD_OPTION_CONNECTION_TIMEOUT, HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_CONN_MEMORY,
				MHD_OPTION_ARRAY, tls,
				MHD_OPTION_END);
}

static void server__free(struct http_server *h)
{
	http_tls__free(&h->tls);
	http_auth__free(h->auth);
	free(h);
}

/* The web configuration's TLS files and users, before the socket. */
static int server__secure(struct http_server *h, const struct webcfg *web,
			  char *err, size_t errlen)
{
	int ret;

	if (!web)
		return 0;
	if (web->cert_file) {
		ret = http_tls__load(&h->tls, web, err, errlen);
		if (ret)
			return ret;
		h->has_tls = true;
	}
	if (web->nr_users && http_auth__new(&h->auth, web)) {
		set_err(err, errlen, "http: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

int http__open(struct http_server **hp, const char *spec, http_metrics_fn fn,
	       void *ctx, char *err, size_t errlen)
{
	return http__open_web(hp, spec, NULL, fn, ctx, err, errlen);
}

int http__open_web(struct http_server **hp, const char *spec,
		   const struct webcfg *web, http_metrics_fn fn, void *ctx,
		   char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct http_server *h;
	socklen_t sslen;
	int ret;

	if (!hp || !fn) {
		set_err(err, errlen, "http: no server or metrics function");
		return -EINVAL;
	}
	ret = http__parse_listen(spec, &ss, &sslen, err, errlen);
	if (ret)
		return ret;
	h = calloc(1, sizeof(*h));
	if (!h) {
		set_err(err, errlen, "http: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	h->fn = fn;
	h->ctx = ctx;
	h->fd = -1;
	ret = server__secure(h, web, err, errlen);
	if (ret)
		goto fail;
	h->fd = listen__open(&ss, sslen, &h->port);
	if (h->fd < 0) {
		ret = h->fd;
		set_err(err, errlen, "cannot listen on %s: %s", spec, strerror(-ret));
		goto fail;
	}
	*hp = h;
	return 0;
fail:
	server__free(h);
	return ret;
}

int http__run(struct http_server *h, char *err, size_t errlen)
{
	h->d = daemon__start(h, h->fd);
	if (!h->d) {
		set_err(err, errlen, "cannot start the HTTP server on port %d "
			"(libmicrohttpd; -v says why)", h->port);
		return -EIO;
	}
	h->fd = -1;	/* libmicrohttpd's now */
	return 0;
}

int http__start(struct http_server **hp, const char *spec, http_metrics_fn fn,
		void *ctx, char *err, size_t errlen)
{
	return http__start_web(hp, spec, NULL, fn, ctx, err, errlen);
}

int http__start_web(struct http_server **hp, const char *spec,
		    const struct webcfg *web, http_metrics_fn fn, void *ctx,
		    char *err, size_t errlen)
{
	int ret = http__open_web(hp, spec, web, fn, ctx, err, errlen);

	if (ret)
		return ret;
	ret = http__run(*hp, err, errlen);
	if (ret) {
		http__stop(*hp);
		*hp = NULL;
	}
	return ret;
}

void http__by_uid(struct http_server *h, gid_t gid)
{
	h->by_uid = true;
	h->gid = gid;
}

int http__port(const struct http_server *h)
{
	return h ? h->port : -1;
}

void http__stop(struct http_server *h)
{
	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);	/* closes the listening socket too */
	if (h->fd >= 0)
		close(h->fd);
	server__free(h);
}
