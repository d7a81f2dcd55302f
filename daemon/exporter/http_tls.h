/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * /metrics over TLS (web config's tls_server_config): the certificate,
 * key and client CAs read into memory at set-up, while the daemon may
 * still read root-only files, and checked with GnuTLS there so that a
 * bad file is named at start, not as an opaque libmicrohttpd failure;
 * libmicrohttpd (built on GnuTLS) speaks TLS with them.
 *
 * libmicrohttpd asks for a client certificate when it has CAs but does
 * not verify it: http_tls__verify() does, per request, what Go's
 * VerifyClientCertIfGiven and RequireAndVerifyClientCert do at the
 * handshake.
 */
#ifndef DAEMON_HTTP_TLS_H
#define DAEMON_HTTP_TLS_H

#include <microhttpd.h>
#include "daemon/exporter/webcfg.h"

struct http_tls {
	char *cert, *key, *ca;		/* PEM, NUL-terminated; ca NULL: none */
	char priorities[384];		/* GnuTLS's (http_tls__priorities) */
	enum webcfg_client_auth client_auth;
};

/* Read and check w's files: 0, or -errno with one line (the file) in err. */
int http_tls__load(struct http_tls *t, const struct webcfg *w, char *err,
		   size_t errlen);
void http_tls__free(struct http_tls *t);
/* GnuTLS's priority string for w's versions, suites and curves into buf
 * (len: 384 holds any): 0, or -ENOSPC. */
int http_tls__priorities(const struct webcfg *w, char *buf, size_t len);
/* The client's certificate as client_auth wants it: 0, or -EACCES with
 * why in err (none given when required, or not signed by the CAs). */
int http_tls__verify(const struct http_tls *t, struct MHD_Connection *c,
		     char *err, size_t errlen);

#endif
