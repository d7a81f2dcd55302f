/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * serve --web-config FILE: the Prometheus exporter-toolkit's web
 * configuration (its docs/web-configuration.md), the subset emon-perf
 * serves:
 *
 *   tls_server_config:
 *     cert_file: PATH          with key_file: /metrics over TLS only
 *     key_file: PATH
 *     client_auth_type: NoClientCert (default) | VerifyClientCertIfGiven |
 *                       RequireAndVerifyClientCert
 *     client_ca_file: PATH     the CAs client certificates must chain to
 *     min_version: TLS12 (default) | TLS13    (TLS10, TLS11 refused)
 *     max_version: TLS12 | TLS13 (default)
 *   http_server_config:
 *     http2: BOOL              accepted, ignored (HTTP/1.1 only)
 *   basic_auth_users:
 *     NAME: BCRYPT-HASH        $2a$, $2b$ or $2y$
 *
 * Strict, as exporter-toolkit's own unmarshalling: an unknown key, a key
 * twice, a value of the wrong kind is an error naming the key; a key
 * exporter-toolkit knows that emon-perf does not implement (cipher_suites,
 * headers...) is refused as such, never silently ignored. Relative paths
 * are relative to the file's directory. Pure: parsing reads no file but
 * the configuration; http reads the certificates.
 */
#ifndef DAEMON_WEBCFG_H
#define DAEMON_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

enum webcfg_client_auth {
	WEBCFG_NO_CLIENT_CERT,
	WEBCFG_VERIFY_IF_GIVEN,
	WEBCFG_REQUIRE_AND_VERIFY,
};

enum webcfg_tls_version {
	WEBCFG_TLS12 = 12,
	WEBCFG_TLS13 = 13,
};

struct webcfg_user {
	char *name;
	char *hash;		/* bcrypt */
};

struct webcfg {
	char *cert_file;	/* NULL: no TLS */
	char *key_file;
	char *client_ca_file;
	enum webcfg_client_auth client_auth;
	enum webcfg_tls_version min_version, max_version;
	struct webcfg_user *users;	/* NULL: no basic auth */
	size_t nr_users;
};

/*
 * Parse text (len bytes, the contents of file, whose directory anchors
 * relative paths; file names the culprit in err). 0 with *w filled, or
 * -EINVAL (bad YAML, key, value) / -ENOMEM with one line in err.
 */
int webcfg__parse(struct webcfg *w, const char *text, size_t len,
		  const char *file, char *err, size_t errlen);
/* Read file and parse it: 0, or -errno with one line in err. */
int webcfg__load(struct webcfg *w, const char *file, char *err, size_t errlen);
void webcfg__free(struct webcfg *w);
/* TLS or basic auth on: what makes a non-loopback address safe. */
bool webcfg__secured(const struct webcfg *w);

/* Warn (one line each) when file, holding basic_auth_users, or the TLS
 * key file can be read by others than their owner. */
void webcfg__warn_readable(const struct webcfg *w, const char *file);

#endif
