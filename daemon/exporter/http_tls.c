// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * TLS for /metrics (daemon/exporter/http_tls.h): the files in memory,
 * checked with GnuTLS, and the client certificate's verification per request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include "daemon/exporter/http_tls.h"

#define PEM_MAX (1u << 20)

/* The whole file, NUL-terminated: 0 or -errno. */
static int pem__read(const char *path, char **out)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	long size;
	int err = 0;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		err = -errno;
		goto out;
	}
	if (size > PEM_MAX) {
		err = -EFBIG;
		goto out;
	}
	buf = malloc(size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	len = fread(buf, 1, size, f);
	if (ferror(f)) {
		err = -EIO;
		goto out;
	}
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
out:
	free(buf);
	fclose(f);
	return err;
}

/* The pair and the CAs as GnuTLS takes them: what MHD will do with them. */
static int tls__check(const struct http_tls *t, const struct webcfg *w,
		      char *err, size_t errlen)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert = { (unsigned char *)t->cert, strlen(t->cert) };
	gnutls_datum_t key = { (unsigned char *)t->key, strlen(t->key) };
	gnutls_datum_t ca;
	const char *pos;
	gnutls_priority_t prio;
	int r, ret = 0;

	if (gnutls_certificate_allocate_credentials(&cred))
		return -ENOMEM;
	r = gnutls_certificate_set_x509_key_mem2(cred, &cert, &key,
						 GNUTLS_X509_FMT_PEM, NULL, 0);
	if (r < 0) {
		snprintf(err, errlen, "%s, %s: not a certificate and its key in PEM: %s",
			 w->cert_file, w->key_file, gnutls_strerror(r));
		ret = -EINVAL;
		goto out;
	}
	if (t->ca) {
		ca = (gnutls_datum_t){ (unsigned char *)t->ca, strlen(t->ca) };
		r = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (r <= 0) {
			snprintf(err, errlen, "%s: no CA certificate in PEM%s%s",
				 w->client_ca_file, r < 0 ? ": " : "",
				 r < 0 ? gnutls_strerror(r) : "");
			ret = -EINVAL;
			goto out;
		}
	}
	if (gnutls_priority_init(&prio, t->priorities, &pos) < 0) {
		snprintf(err, errlen, "GnuTLS refuses the priorities '%s' at '%s'",
			 t->priorities, pos);
		ret = -EINVAL;
		goto out;
	}
	gnutls_priority_deinit(prio);
out:
	gnutls_certificate_free_credentials(cred);
	return ret;
}

static int tls__read(const char *path, char **out, char *err, size_t errlen)
{
	int ret = pem__read(path, out);

	if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}

/* Each suite's key exchange and cipher, as GnuTLS names them. */
static const struct {
	const char *kx, *cipher;
} suite_parts[WEBCFG_NR_SUITES] = {
	[WEBCFG_ECDHE_RSA_AES128_GCM] = { "ECDHE-RSA", "AES-128-GCM" },
	[WEBCFG_ECDHE_RSA_AES256_GCM] = { "ECDHE-RSA", "AES-256-GCM" },
	[WEBCFG_ECDHE_RSA_CHACHA20] = { "ECDHE-RSA", "CHACHA20-POLY1305" },
	[WEBCFG_ECDHE_ECDSA_AES128_GCM] = { "ECDHE-ECDSA", "AES-128-GCM" },
	[WEBCFG_ECDHE_ECDSA_AES256_GCM] = { "ECDHE-ECDSA", "AES-256-GCM" },
	[WEBCFG_ECDHE_ECDSA_CHACHA20] = { "ECDHE-ECDSA", "CHACHA20-POLY1305" },
};

static const char *const curve_groups[WEBCFG_NR_CURVES] = {
	[WEBCFG_X25519] = "GROUP-X25519",
	[WEBCFG_P256] = "GROUP-SECP256R1",
	[WEBCFG_P384] = "GROUP-SECP384R1",
	[WEBCFG_P521] = "GROUP-SECP521R1",
};

/* ":+tok" onto buf at *off */
static void prio__add(char *buf, size_t len, size_t *off, const char *tok)
{
	*off += snprintf(buf + *off, *off < len ? len - *off : 0, ":+%s", tok);
}

/* Suite i's part (kx: 0, cipher: 1), NULL when an earlier suite had it. */
static const char *suite_part(const struct webcfg *w, size_t i, int part)
{
	const char *tok = part ? suite_parts[w->suites[i]].cipher : suite_parts[w->suites[i]].kx;

	for (size_t j = 0; j < i; j++)
		if (!strcmp(tok, part ? suite_parts[w->suites[j]].cipher :
					suite_parts[w->suites[j]].kx))
			return NULL;
	return tok;
}

/*
 * Forward secrecy only: no static RSA key exchange; AEAD ciphers, no CBC
 * with SHA-1 (Go's defaults, as exporter-toolkit's). cipher_suites: their
 * key exchanges and ciphers, in their order. GnuTLS chooses by parts, so
 * the suites offered are the listed ciphers with the certificate's key
 * exchange (for one certificate: the list's suites of its kind, plus
 * those of another listed cipher), and TLS 1.3 takes the listed ciphers
 * too. curve_preferences: those groups only, in their order.
 */
int http_tls__priorities(const struct webcfg *w, char *buf, size_t len)
{
	size_t off = snprintf(buf, len, "NORMAL:-VERS-ALL%s%s:-RSA",
		       w->max_version >= WEBCFG_TLS13 ? ":+VERS-TLS1.3" : "",
		       w->min_version <= WEBCFG_TLS12 ? ":+VERS-TLS1.2" : "");
	if (!w->nr_suites) {
		off += snprintf(buf + off, off < len ? len - off : 0, ":-CIPHER-ALL"
				":+AES-256-GCM:+AES-128-GCM:+CHACHA20-POLY1305:-SHA1");
	} else {
		off += snprintf(buf + off, off < len ? len - off : 0, ":-KX-ALL");
		for (size_t i = 0; i < w->nr_suites; i++)
			if (suite_part(w, i, 0))
				prio__add(buf, len, &off, suite_part(w, i, 0));
		off += snprintf(buf + off, off < len ? len - off : 0, ":-CIPHER-ALL");
		for (size_t i = 0; i < w->nr_suites; i++)
			if (suite_part(w, i, 1))
				prio__add(buf, len, &off, suite_part(w, i, 1));
		off += snprintf(buf + off, off < len ? len - off : 0, ":-MAC-ALL:+AEAD");
	}
	if (w->nr_curves) {
		off += snprintf(buf + off, off < len ? len - off : 0, ":-GROUP-ALL");
		for (size_t i = 0; i < w->nr_curves; i++)
			prio__add(buf, len, &off, curve_groups[w->curves[i]]);
	}
	return off < len ? 0 : -ENOSPC;
}

int http_tls__load(struct http_tls *t, const struct webcfg *w, char *err,
		   size_t errlen)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->client_auth = w->client_auth;
	ret = http_tls__priorities(w, t->priorities, sizeof(t->priorities));
	if (ret)
		snprintf(err, errlen, "the TLS settings make too long a priority string");
	if (!ret)
		ret = tls__read(w->cert_file, &t->cert, err, errlen);
	if (!ret)
		ret = tls__read(w->key_file, &t->key, err, errlen);
	if (!ret && w->client_ca_file)
		ret = tls__read(w->client_ca_file, &t->ca, err, errlen);
	if (!ret)
		ret = tls__check(t, w, err, errlen);
	if (ret)
		http_tls__free(t);
	return ret;
}

void http_tls__free(struct http_tls *t)
{
	if (!t)
		return;
	if (t->key)	/* the private key: not left in freed memory */
		explicit_bzero(t->key, strlen(t->key));
	free(t->key);
	free(t->cert);
	free(t->ca);
	*t = (struct http_tls){ 0 };
}

int http_tls__verify(const struct http_tls *t, struct MHD_Connection *c,
		     char *err, size_t errlen)
{
	const union MHD_ConnectionInfo *ci;
	gnutls_session_t s;
	unsigned int n = 0, status = 0;

	if (t->client_auth == WEBCFG_NO_CLIENT_CERT)
		return 0;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session) {
		snprintf(err, errlen, "no TLS session");
		return -EACCES;
	}
	s = (gnutls_session_t)ci->tls_session;
	if (!gnutls_certificate_get_peers(s, &n) || !n) {
		if (t->client_auth == WEBCFG_VERIFY_IF_GIVEN)
			return 0;
		snprintf(err, errlen, "a client certificate is required");
		return -EACCES;
	}
	if (gnutls_certificate_verify_peers2(s, &status) < 0 || status) {
		snprintf(err, errlen, "the client certificate is not signed by "
			 "client_ca_file's CAs (or expired)");
		return -EACCES;
	}
	return 0;
}
