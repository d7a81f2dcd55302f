// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The web configuration's parser (daemon/exporter/webcfg.h): libyaml builds the
 * document, and each mapping is walked against a table of its keys, so
 * that an unknown or unsupported key stops the parse with its name and
 * line, as exporter-toolkit's strict unmarshalling does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <sys/stat.h>
#include "daemon/exporter/webcfg.h"
#include "common/log.h"

struct parse {
	yaml_document_t *doc;
	struct webcfg *w;
	const char *file;
	char *dir;		/* the file's, with its '/'; "" if none */
	char *err;
	size_t errlen;
};

struct key {
	const char *name;
	/* 0 or -errno (err said); NULL: known to exporter-toolkit, not here */
	int (*fn)(struct parse *p, const char *key, yaml_node_t *v, void *dst);
	size_t off;		/* dst: this far into struct webcfg */
};

static int fail(struct parse *p, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parse *p, const yaml_node_t *n, const char *fmt, ...)
{
	size_t off = 0;
	va_list ap;

	if (!p->errlen)
		return -EINVAL;
	if (n)
		off = snprintf(p->err, p->errlen, "%s:%zu: ", p->file,
			       (size_t)n->start_mark.line + 1);
	else
		off = snprintf(p->err, p->errlen, "%s: ", p->file);
	if (off < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + off, p->errlen - off, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int no_memory(struct parse *p)
{
	fail(p, NULL, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

/* A scalar's text, "" for YAML's null (an empty value, ~, null). */
static const char *scalar(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	     !strcmp(s, "NULL")))
		return "";
	return s;
}

static int want_scalar(struct parse *p, const char *key, const yaml_node_t *v)
{
	if (v->type == YAML_SCALAR_NODE)
		return 0;
	return fail(p, v, "'%s' takes a single value", key);
}

/*
 * Walk mapping n, calling each key's entry of keys[]; a key twice, an
 * unknown key, a non-string key fail. what names the mapping.
 */
static int walk(struct parse *p, yaml_node_t *n, const char *what,
		const struct key *keys, size_t nr_keys)
{
	yaml_node_pair_t *pair, *prev;
	int err;

	if (n->type == YAML_SCALAR_NODE && !*scalar(n))
		return 0;	/* "section:" with nothing under it */
	if (n->type != YAML_MAPPING_NODE)
		return fail(p, n, "%s: expected a mapping of keys", what);
	for (pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		const char *name;
		size_t i;

		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return fail(p, k, "%s: a key that is not a name", what);
		name = (const char *)k->data.scalar.value;
		for (prev = n->data.mapping.pairs.start; prev < pair; prev++) {
			yaml_node_t *pk = yaml_document_get_node(p->doc, prev->key);

			if (!strcmp((const char *)pk->data.scalar.value, name))
				return fail(p, k, "key '%s' given twice", name);
		}
		for (i = 0; i < nr_keys && strcmp(keys[i].name, name); i++)
			;
		if (i == nr_keys)
			return fail(p, k, "unknown key '%s' in %s", name, what);
		if (!keys[i].fn)
			return fail(p, k, "'%s' (in %s) is not supported by emon-perf",
				    name, what);
		err = keys[i].fn(p, name, v, (char *)p->w + keys[i].off);
		if (err)
			return err;
	}
	return 0;
}

/* ---- tls_server_config ---- */

/* A path, relative ones anchored at the file's directory. */
static int set_path(struct parse *p, const char *key, yaml_node_t *v, void *out)
{
	char **dst = out;
	const char *s;
	int err = want_scalar(p, key, v);

	if (err)
		return err;
	s = scalar(v);
	if (!*s)
		return 0;
	free(*dst);
	*dst = NULL;
	if (asprintf(dst, "%s%s", s[0] == '/' ? "" : p->dir, s) < 0) {
		*dst = NULL;
		return no_memory(p);
	}
	return 0;
}

static int client_auth(struct parse *p, const char *key, yaml_node_t *v, void *dst)
{
	static const struct {
		const char *name;
		int val;	/* -1: Go's, not implemented here */
	} types[] = {
		{ "", WEBCFG_NO_CLIENT_CERT },
		{ "NoClientCert", WEBCFG_NO_CLIENT_CERT },
		{ "VerifyClientCertIfGiven", WEBCFG_VERIFY_IF_GIVEN },
		{ "RequireAndVerifyClientCert", WEBCFG_REQUIRE_AND_VERIFY },
		/* a certificate nobody verifies authenticates no one */
		{ "RequestClientCert", -1 },
		{ "RequireAnyClientCert", -1 },
	};
	const char *s;
	int err = want_scalar(p, key, v);

	if (err)
		return err;
	s = scalar(v);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strcmp(types[i].name, s))
			continue;
		if (types[i].val < 0)
			return fail(p, v, "client_auth_type %s is not supported by "
				    "emon-perf (NoClientCert, VerifyClientCertIfGiven, "
				    "RequireAndVerifyClientCert)", s);
		*(enum webcfg_client_auth *)dst = types[i].val;
		return 0;
	}
	return fail(p, v, "bad client_auth_type '%s': NoClientCert, "
		    "VerifyClientCertIfGiven or RequireAndVerifyClientCert", s);
}

static int tls_version(struct parse *p, const char *key, yaml_node_t *v,
		       void *out)
{
	enum webcfg_tls_version *dst = out;
	const char *s;
	int err = want_scalar(p, key, v);

	if (err)
		return err;
	s = scalar(v);
	if (!strcmp(s, "TLS12"))
		*dst = WEBCFG_TLS12;
	else if (!strcmp(s, "TLS13"))
		*dst = WEBCFG_TLS13;
	else if (!strcmp(s, "TLS10") || !strcmp(s, "TLS11"))
		return fail(p, v, "%s %s: emon-perf speaks TLS12 and TLS13 only",
			    key, s);
	else if (*s)
		return fail(p, v, "bad %s '%s': TLS12 or TLS13", key, s);
	return 0;
}

const char *const webcfg__suite_names[WEBCFG_NR_SUITES] = {
	[WEBCFG_ECDHE_RSA_AES128_GCM] = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	[WEBCFG_ECDHE_RSA_AES256_GCM] = "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	[WEBCFG_ECDHE_RSA_CHACHA20] = "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	[WEBCFG_ECDHE_ECDSA_AES128_GCM] = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	[WEBCFG_ECDHE_ECDSA_AES256_GCM] = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	[WEBCFG_ECDHE_ECDSA_CHACHA20] = "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
};

const char *const webcfg__curve_names[WEBCFG_NR_CURVES] = {
	[WEBCFG_X25519] = "X25519",
	[WEBCFG_P256] = "CurveP256",
	[WEBCFG_P384] = "CurveP384",
	[WEBCFG_P521] = "CurveP521",
};

/* The index of s in names[], -1: none. */
static int name_index(const char *const *names, int n, const char *s)
{
	static const char chacha[] = "CHACHA20_POLY1305";
	size_t len = strlen(s), cl = sizeof(chacha) - 1;

	for (int i = 0; i < n; i++) {
		if (!strcmp(names[i], s))
			return i;
		/* Go's other name of a ChaCha20 suite: without _SHA256 */
		if (len > cl && !strcmp(s + len - cl, chacha) &&
		    !strncmp(names[i], s, len) && !strcmp(names[i] + len, "_SHA256"))
			return i;
	}
	return -1;
}

/* Why a suite Go knows is not one of ours, NULL: not Go's either. */
static const char *suite_refused(const char *s)
{
	if (!strncmp(s, "TLS_AES_", 8) || !strncmp(s, "TLS_CHACHA20_", 13))
		return "a TLS 1.3 suite: cipher_suites chooses TLS 1.2's, as in Go";
	if (!strncmp(s, "TLS_RSA_WITH_", 13) || strstr(s, "_CBC_") ||
	    strstr(s, "_RC4_") || strstr(s, "3DES"))
		return "not a forward-secret AEAD suite (ECDHE with AES-GCM or "
		       "ChaCha20-Poly1305): not offered by emon-perf";
	return NULL;
}

/*
 * A list of names into idx[] (*nr of them), each the index of a name in
 * names[]; suites: cipher_suites (its refusals say why), else curves.
 */
static int name_list(struct parse *p, const char *key, yaml_node_t *v,
		     const char *const *names, int n, int *idx, size_t *nr, bool suites)
{
	yaml_node_item_t *it;

	if (v->type == YAML_SCALAR_NODE && !*scalar(v))
		return 0;
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(p, v, "'%s' takes a list of names", key);
	*nr = 0;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(p->doc, *it);
		const char *s, *why;
		int i;

		if (!e || e->type != YAML_SCALAR_NODE)
			return fail(p, e ? e : v, "'%s' takes a list of names", key);
		s = scalar(e);
		i = name_index(names, n, s);
		if (i < 0 && suites && (why = suite_refused(s)))
			return fail(p, e, "cipher suite %s: %s", s, why);
		if (i < 0)
			return fail(p, e, "unknown %s '%s' (%s)", suites ? "cipher suite" : "curve",
				    s, suites ? "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 and the "
				    "other ECDHE AES-GCM and ChaCha20-Poly1305 suites" :
				    "X25519, CurveP256, CurveP384, CurveP521");
		for (size_t k = 0; k < *nr; k++)
			if (idx[k] == i)
				return fail(p, e, "%s: '%s' given twice", key, s);
		idx[(*nr)++] = i;
	}
	return 0;
}

static int cipher_suites(struct parse *p, const char *key, yaml_node_t *v, void *dst)
{
	int idx[WEBCFG_NR_SUITES];
	size_t nr = 0;
	int err = name_list(p, key, v, webcfg__suite_names, WEBCFG_NR_SUITES, idx, &nr, true);

	(void)dst;
	for (size_t i = 0; !err && i < nr; i++)
		p->w->suites[i] = idx[i];
	p->w->nr_suites = err ? 0 : nr;
	return err;
}

static int curve_prefs(struct parse *p, const char *key, yaml_node_t *v, void *dst)
{
	int idx[WEBCFG_NR_CURVES];
	size_t nr = 0;
	int err = name_list(p, key, v, webcfg__curve_names, WEBCFG_NR_CURVES, idx, &nr, false);

	(void)dst;
	for (size_t i = 0; !err && i < nr; i++)
		p->w->curves[i] = idx[i];
	p->w->nr_curves = err ? 0 : nr;
	return err;
}

#define AT(field) offsetof(struct webcfg, field)

static int sect_tls(struct parse *p, const char *key, yaml_node_t *v, void *dst)
{
	static const struct key keys[] = {
		{ "cert_file", set_path, AT(cert_file) },
		{ "key_file", set_path, AT(key_file) },
		{ "client_ca_file", set_path, AT(client_ca_file) },
		{ "client_auth_type", client_auth, AT(client_auth) },
		{ "min_version", tls_version, AT(min_version) },
		{ "max_version", tls_version, AT(max_version) },
		{ "cert", NULL },
		{ "key", NULL },
		{ "client_ca", NULL },
		{ "client_allowed_sans", NULL },
		{ "cipher_suites", cipher_suites },
		{ "curve_preferences", curve_prefs },
		{ "prefer_server_cipher_order", NULL },
	};

	(void)dst;
	return walk(p, v, key, keys, sizeof(keys) / sizeof(keys[0]));
}

/* ---- http_server_config ---- */

static int http2(struct parse *p, const char *key, yaml_node_t *v, void *dst)
{
	const char *s;
	int err = want_scalar(p, key, v);

	if (err)
		return err;
	s = scalar(v);
	if (*s && strcmp(s, "true") && strcmp(s, "false"))
		return fail(p, v, "bad http2 '%s': true or false", s);
	(void)dst;
	return 0;	/* Prometheus scrapes over HTTP/1.1 either way */
}

static int sect_http(struct parse *p, const char *key, yaml_node_t *v, void *dst)
{
	static const struct key keys[] = {
		{ "http2", http2 },
		{ "headers", NULL },
	};

	(void)dst;
	return walk(p, v, key, keys, sizeof(keys) / sizeof(keys[0]));
}

/* ---- basic_auth_users ---- */

/* $2a$, $2b$ or $2y$, a cost of 04 to 31, 22 characters of salt and 31
 * of hash in bcrypt's base64. */
static bool bcrypt__valid(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != 60 || strncmp(h, "$2", 2) || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[6] != '$' || strspn(h + 4, "0123456789") < 2)
		return false;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	return cost >= 4 && cost <= 31 && strspn(h + 7, b64) == 53;
}

static int sect_users(struct parse *p, const char *key, yaml_node_t *v, void *dst)
{
	struct webcfg *w = p->w;
	yaml_node_pair_t *pair;
	size_t n;

	(void)dst;
	if (v->type == YAML_SCALAR_NODE && !*scalar(v))
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return fail(p, v, "%s: expected NAME: BCRYPT-HASH lines", key);
	n = v->data.mapping.pairs.top - v->data.mapping.pairs.start;
	w->users = calloc(n ? n : 1, sizeof(*w->users));
	if (!w->users)
		return no_memory(p);
	for (pair = v->data.mapping.pairs.start;
	     pair < v->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *h = yaml_document_get_node(p->doc, pair->value);
		const char *name, *hash;

		if (k->type != YAML_SCALAR_NODE || !*(name = scalar(k)))
			return fail(p, k, "%s: a user name must be a non-empty string", key);
		if (strchr(name, ':'))	/* RFC 7617: the user-id has no colon */
			return fail(p, k, "user '%s': a name with ':' cannot log in", name);
		for (size_t i = 0; i < w->nr_users; i++)
			if (!strcmp(w->users[i].name, name))
				return fail(p, k, "user '%s' given twice", name);
		if (h->type != YAML_SCALAR_NODE || !bcrypt__valid(hash = scalar(h)))
			return fail(p, h, "user '%s': not a bcrypt hash ($2y$10$ and 53 "
				    "characters; htpasswd -nBC 10 USER makes one)", name);
		w->users[w->nr_users].name = strdup(name);
		w->users[w->nr_users].hash = strdup(hash);
		if (!w->users[w->nr_users].name || !w->users[w->nr_users].hash) {
			free(w->users[w->nr_users].name);
			free(w->users[w->nr_users].hash);
			return no_memory(p);
		}
		w->nr_users++;
	}
	return 0;
}

/* ---- the file ---- */

/* What exporter-toolkit refuses too: half a key pair, a CA nobody asks for. */
static int check(struct parse *p)
{
	struct webcfg *w = p->w;

	if (w->cert_file && !w->key_file)
		return fail(p, NULL, "tls_server_config: cert_file without key_file");
	if (w->key_file && !w->cert_file)
		return fail(p, NULL, "tls_server_config: key_file without cert_file");
	if (!w->cert_file && (w->client_ca_file || w->client_auth))
		return fail(p, NULL, "tls_server_config: client certificates "
			    "without cert_file and key_file");
	if (w->client_ca_file && w->client_auth == WEBCFG_NO_CLIENT_CERT)
		return fail(p, NULL, "tls_server_config: client_ca_file with "
			    "client_auth_type NoClientCert");
	if (w->client_auth != WEBCFG_NO_CLIENT_CERT && !w->client_ca_file)
		return fail(p, NULL, "tls_server_config: client_auth_type needs "
			    "client_ca_file");
	if (w->min_version > w->max_version)
		return fail(p, NULL, "tls_server_config: min_version above max_version");
	return 0;
}

static int parse__doc(struct parse *p, yaml_node_t *root)
{
	static const struct key keys[] = {
		{ "tls_server_config", sect_tls },
		{ "http_server_config", sect_http },
		{ "basic_auth_users", sect_users },
	};
	int err;

	if (root) {
		err = walk(p, root, "the web configuration", keys,
			   sizeof(keys) / sizeof(keys[0]));
		if (err)
			return err;
	}
	return check(p);
}

static int parse__dir(struct parse *p)
{
	const char *slash = strrchr(p->file, '/');
	size_t n = slash ? (size_t)(slash - p->file) + 1 : 0;

	p->dir = strndup(p->file, n);
	return p->dir ? 0 : no_memory(p);
}

int webcfg__parse(struct webcfg *w, const char *text, size_t len,
		  const char *file, char *err, size_t errlen)
{
	struct parse p = { .w = w, .file = file ? file : "web config",
			   .err = err, .errlen = errlen };
	yaml_document_t doc;
	yaml_parser_t yp;
	bool loaded = false;
	int ret;

	memset(w, 0, sizeof(*w));
	w->min_version = WEBCFG_TLS12;
	w->max_version = WEBCFG_TLS13;
	ret = parse__dir(&p);
	if (ret)
		return ret;
	if (!yaml_parser_initialize(&yp)) {
		ret = no_memory(&p);
		goto out;
	}
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	if (!yaml_parser_load(&yp, &doc)) {
		ret = fail(&p, NULL, "bad YAML at line %zu: %s",
			   (size_t)yp.problem_mark.line + 1,
			   yp.problem ? yp.problem : "unknown error");
		goto out_parser;
	}
	loaded = true;
	p.doc = &doc;
	ret = parse__doc(&p, yaml_document_get_root_node(&doc));
out_parser:
	if (loaded)
		yaml_document_delete(&doc);
	yaml_parser_delete(&yp);
out:
	free(p.dir);
	if (ret)
		webcfg__free(w);
	return ret;
}

int webcfg__load(struct webcfg *w, const char *file, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f, *mem;
	char buf[4096];
	size_t n;
	int ret = 0;

	f = fopen(file, "re");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", file, strerror(-ret));
		return ret;
	}
	mem = open_memstream(&text, &len);
	if (!mem) {
		ret = -ENOMEM;
		goto out;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && len < (1u << 20))
		fwrite(buf, 1, n, mem);
	if (ferror(f))
		ret = -EIO;
	if (fclose(mem) && !ret)
		ret = -ENOMEM;
	if (!ret && len >= (1u << 20))
		ret = -EFBIG;
out:
	fclose(f);
	if (ret)
		snprintf(err, errlen, "%s: %s", file, strerror(-ret));
	else
		ret = webcfg__parse(w, text, len, file, err, errlen);
	free(text);
	return ret;
}

void webcfg__free(struct webcfg *w)
{
	if (!w)
		return;
	free(w->cert_file);
	free(w->key_file);
	free(w->client_ca_file);
	for (size_t i = 0; i < w->nr_users; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	memset(w, 0, sizeof(*w));
}

bool webcfg__authenticates(const struct webcfg *w)
{
	return w && (w->nr_users ||
		     (w->cert_file && w->client_auth == WEBCFG_REQUIRE_AND_VERIFY));
}

/* A secret in a file that others may read: one warning naming it. */
static void warn_readable(const char *file, const char *what)
{
	struct stat st;

	if (file && !stat(file, &st) && (st.st_mode & (S_IRWXG | S_IRWXO)))
		pr_warn("%s holds %s and has mode %03o: others on this host may read it "
			"(chmod 600 it)", file, what, (unsigned int)(st.st_mode & 07777));
}

void webcfg__warn_readable(const struct webcfg *w, const char *file)
{
	if (w->nr_users)
		warn_readable(file, "password hashes (basic_auth_users)");
	warn_readable(w->key_file, "the TLS private key (key_file)");
}
