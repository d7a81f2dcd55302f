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
 *     cipher_suites: [NAME, ...]   TLS 1.2's, Go's names, in the order
 *                     preferred; the forward-secret AEAD ones only
 *                     (TLS_ECDHE_{RSA,ECDSA}_WITH_{AES_128_GCM_SHA256,
 *                     AES_256_GCM_SHA384,CHACHA20_POLY1305_SHA256});
 *                     default: all six
 *     curve_preferences: [NAME, ...]  X25519, CurveP256, CurveP384,
 *                     CurveP521, in the order preferred; default: all
 *   http_server_config:
 *     http2: BOOL              accepted, ignored (HTTP/1.1 only)
 *   basic_auth_users:
 *     NAME: BCRYPT-HASH        $2a$, $2b$ or $2y$
 *
 * Strict, as exporter-toolkit's own unmarshalling: an unknown key, a key
 * twice, a value of the wrong kind is an error naming the key; a key
 * exporter-toolkit knows that emon-perf does not implement (headers,
 * prefer_server_cipher_order...) or a suite without forward secrecy is
 * refused as such, never silently ignored. Relative paths
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

/* cipher_suites' names (webcfg__suite_names), TLS 1.2's key exchange
 * and cipher each */
enum webcfg_suite {
	WEBCFG_ECDHE_RSA_AES128_GCM,
	WEBCFG_ECDHE_RSA_AES256_GCM,
	WEBCFG_ECDHE_RSA_CHACHA20,
	WEBCFG_ECDHE_ECDSA_AES128_GCM,
	WEBCFG_ECDHE_ECDSA_AES256_GCM,
	WEBCFG_ECDHE_ECDSA_CHACHA20,
	WEBCFG_NR_SUITES
};

/* curve_preferences' names (webcfg__curve_names) */
enum webcfg_curve {
	WEBCFG_X25519,
	WEBCFG_P256,
	WEBCFG_P384,
	WEBCFG_P521,
	WEBCFG_NR_CURVES
};

extern const char *const webcfg__suite_names[WEBCFG_NR_SUITES];
extern const char *const webcfg__curve_names[WEBCFG_NR_CURVES];

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
	/* in the order preferred; nr 0: the defaults (every one) */
	enum webcfg_suite suites[WEBCFG_NR_SUITES];
	size_t nr_suites;
	enum webcfg_curve curves[WEBCFG_NR_CURVES];
	size_t nr_curves;
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
/*
 * Are /metrics' clients authenticated: basic_auth_users, or TLS with
 * client_auth_type RequireAndVerifyClientCert? What a non-loopback
 * address needs, and what lets a loopback one drop its uid check. TLS
 * alone encrypts: whoever reaches the port reads it all.
 */
bool webcfg__authenticates(const struct webcfg *w);

/* Warn (one line each) when file, holding basic_auth_users, or the TLS
 * key file can be read by others than their owner. */
void webcfg__warn_readable(const struct webcfg *w, const char *file);

#endif
