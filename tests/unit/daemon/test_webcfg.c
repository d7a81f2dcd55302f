// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * serve --web-config: the parser against good and bad files (unknown and
 * unsupported keys, client_auth_type, half a key pair, bad hashes, tabs
 * and broken YAML, relative paths), cipher_suites and curve_preferences
 * (unknown, non-forward-secret and TLS 1.3 names) and the GnuTLS
 * priorities they make, then basic auth's checks: right, wrong, unknown
 * user, the memory of right pairs and the rate limit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <crypt.h>
#include <gnutls/gnutls.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/exporter/http_auth.h"
#include "daemon/exporter/http_tls.h"
#include "daemon/exporter/webcfg.h"
#include "helpers.h"

/* "pw" at cost 4 ($2y$ as htpasswd writes it, $2b$ as Python's crypt) */
#define HASH_Y "$2y$04$Ai79/OIANx45ub6vXFDsN.mTb1hn1dxLaTfnSejjci3Sefa2kIJ0m"
#define HASH_B "$2b$10$vJghg.nCxfyk/aAM8.2Ry.wjfuBzkwZ/sDIIAcEvt7N5s3kafLrm6"

/* a key pair, for the cases about what comes with one */
#define PAIR "tls_server_config:\n  cert_file: a\n  key_file: b\n"

static const struct {
	const char *name;
	const char *text;
	int ret;
	const char *err;	/* in the error line, or the cert path */
} cases[] = {
	{ "empty", "", 0 },
	{ "comment only", "# nothing\n", 0 },
	{ "tls", "tls_server_config:\n  cert_file: s.crt\n  key_file: /k/s.key\n",
	  0, "/etc/emon/s.crt" },
	{ "tls + client CA", "tls_server_config:\n  cert_file: /s.crt\n"
	  "  key_file: s.key\n  client_auth_type: RequireAndVerifyClientCert\n"
	  "  client_ca_file: ca.crt\n  min_version: TLS13\n", 0, "/s.crt" },
	{ "users", "basic_auth_users:\n  alice: " HASH_Y "\n  bob: '" HASH_B "'\n", 0 },
	{ "http2", "http_server_config:\n  http2: false\n", 0 },
	{ "empty sections", "tls_server_config:\nbasic_auth_users:\n", 0 },
	{ "unknown key", PAIR
	  "  certfile: c\n", -EINVAL, "web.yml:4: unknown key 'certfile' in tls_server_config" },
	{ "unknown section", "tls_config:\n  cert_file: a\n", -EINVAL,
	  "unknown key 'tls_config'" },
	{ "unsupported key", "tls_server_config:\n  prefer_server_cipher_order: true\n",
	  -EINVAL, "'prefer_server_cipher_order' (in tls_server_config) is not supported" },
	{ "suites and curves", PAIR "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n"
	  "  curve_preferences:\n    - X25519\n", 0, "/etc/emon/a" },
	{ "empty suites", PAIR "  cipher_suites: []\n", 0, "/etc/emon/a" },
	{ "unknown suite", PAIR "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA257]\n",
	  -EINVAL, "web.yml:4: unknown cipher suite 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA257'" },
	{ "static RSA suite", PAIR "  cipher_suites: [TLS_RSA_WITH_AES_128_GCM_SHA256]\n",
	  -EINVAL, "cipher suite TLS_RSA_WITH_AES_128_GCM_SHA256: not a forward-secret" },
	{ "CBC suite", PAIR "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA]\n",
	  -EINVAL, "not a forward-secret AEAD suite" },
	{ "TLS 1.3 suite", PAIR "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
	  -EINVAL, "TLS_AES_128_GCM_SHA256: a TLS 1.3 suite" },
	{ "suite twice", PAIR "  cipher_suites: [TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305, "
	  "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256]\n", -EINVAL, "given twice" },
	{ "suites as one name", PAIR "  cipher_suites: TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n",
	  -EINVAL, "'cipher_suites' takes a list of names" },
	{ "unknown curve", PAIR "  curve_preferences: [X25519, P256]\n", -EINVAL,
	  "web.yml:4: unknown curve 'P256'" },
	{ "headers", "http_server_config:\n  headers:\n    X-A: b\n", -EINVAL,
	  "'headers' (in http_server_config) is not supported" },
	{ "bad client_auth_type", PAIR
	  "  client_auth_type: Always\n  client_ca_file: c\n", -EINVAL,
	  "bad client_auth_type 'Always'" },
	{ "RequireAnyClientCert", PAIR
	  "  client_auth_type: RequireAnyClientCert\n", -EINVAL, "not supported" },
	{ "verify without CA", PAIR
	  "  client_auth_type: VerifyClientCertIfGiven\n", -EINVAL, "needs client_ca_file" },
	{ "CA without policy", PAIR
	  "  client_ca_file: c\n", -EINVAL, "with client_auth_type NoClientCert" },
	{ "key without cert", "tls_server_config:\n  key_file: b\n", -EINVAL,
	  "key_file without cert_file" },
	{ "cert without key", "tls_server_config:\n  cert_file: a\n", -EINVAL,
	  "cert_file without key_file" },
	{ "TLS11", PAIR
	  "  min_version: TLS11\n", -EINVAL, "TLS12 and TLS13 only" },
	{ "min above max", PAIR
	  "  min_version: TLS13\n  max_version: TLS12\n", -EINVAL, "min_version above" },
	{ "cert list", "tls_server_config:\n  cert_file: [a, b]\n", -EINVAL,
	  "'cert_file' takes a single value" },
	{ "key twice", "tls_server_config:\n  cert_file: a\n  cert_file: b\n",
	  -EINVAL, "key 'cert_file' given twice" },
	{ "plain password", "basic_auth_users:\n  alice: secret\n", -EINVAL,
	  "user 'alice': not a bcrypt hash" },
	{ "md5 hash", "basic_auth_users:\n  alice: $1$abc$defghijklmnopqrstuvwx\n",
	  -EINVAL, "not a bcrypt hash" },
	{ "short hash", "basic_auth_users:\n  alice: $2y$10$abc\n", -EINVAL,
	  "not a bcrypt hash" },
	{ "cost 3", "basic_auth_users:\n  a: $2y$03$Xz0ki3JnI8VHqvV1IIr1TOFDQw3hl2lCEJbYDVd8WBmnBq1QyMLhO\n",
	  -EINVAL, "not a bcrypt hash" },
	{ "user with colon", "basic_auth_users:\n  'a:b': " HASH_Y "\n", -EINVAL,
	  "a name with ':'" },
	{ "user twice", "basic_auth_users:\n  a: " HASH_Y "\n  a: " HASH_Y "\n",
	  -EINVAL, "given twice" },
	{ "users as list", "basic_auth_users:\n  - a\n", -EINVAL, "NAME: BCRYPT-HASH" },
	{ "tab indent", "tls_server_config:\n\tcert_file: a\n", -EINVAL, "bad YAML at line 2" },
	{ "unclosed quote", "basic_auth_users:\n  a: '$2y\n", -EINVAL, "bad YAML" },
	{ "top-level list", "- a\n- b\n", -EINVAL, "expected a mapping" },
	{ "top-level scalar", "hello\n", -EINVAL, "expected a mapping" },
};

static void test_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct webcfg w;
		char err[256] = "";
		int ret;

		ret = webcfg__parse(&w, cases[i].text, strlen(cases[i].text),
				    "/etc/emon/web.yml", err, sizeof(err));
		if (ret != cases[i].ret)
			fail_msg("%s: %d, not %d (%s)", cases[i].name, ret,
				 cases[i].ret, err);
		if (ret && !strstr(err, cases[i].err))
			fail_msg("%s: '%s' lacks '%s'", cases[i].name, err, cases[i].err);
		if (!ret && cases[i].err)
			assert_string_equal(w.cert_file, cases[i].err);
		webcfg__free(&w);
	}
}

/* What the good ones hold, relative paths anchored at the file's directory. */
static void test_fields(void **state)
{
	static const char text[] =
		"tls_server_config:\n  cert_file: s.crt\n  key_file: ../k/s.key\n"
		"  client_auth_type: VerifyClientCertIfGiven\n"
		"  client_ca_file: /ca/ca.crt\n  max_version: TLS12\n"
		"basic_auth_users:\n  alice: " HASH_Y "\n  bob: " HASH_B "\n";
	struct webcfg w;
	char err[256];

	(void)state;
	assert_int_equal(webcfg__parse(&w, text, strlen(text), "cfg/web.yml",
				       err, sizeof(err)), 0);
	assert_string_equal(w.cert_file, "cfg/s.crt");
	assert_string_equal(w.key_file, "cfg/../k/s.key");
	assert_string_equal(w.client_ca_file, "/ca/ca.crt");
	assert_int_equal(w.client_auth, WEBCFG_VERIFY_IF_GIVEN);
	assert_int_equal(w.min_version, WEBCFG_TLS12);
	assert_int_equal(w.max_version, WEBCFG_TLS12);
	assert_int_equal(w.nr_users, 2);
	assert_string_equal(w.users[1].name, "bob");
	assert_string_equal(w.users[1].hash, HASH_B);
	assert_true(webcfg__authenticates(&w));	/* its basic auth */
	webcfg__free(&w);
	assert_int_equal(webcfg__parse(&w, "", 0, "web.yml", err, sizeof(err)), 0);
	assert_false(webcfg__authenticates(&w));
	webcfg__free(&w);
	/* TLS alone names no client; TLS that requires a client's
	 * certificate does, one that only verifies a given one does not */
	{
		static const char *const tls[] = {
			"tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n",
			"tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"
			"  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ca.crt\n",
			"tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"
			"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n",
		};

		for (int i = 0; i < 3; i++) {
			assert_int_equal(webcfg__parse(&w, tls[i], strlen(tls[i]), "web.yml",
						       err, sizeof(err)), 0);
			assert_int_equal(webcfg__authenticates(&w), i == 2);
			webcfg__free(&w);
		}
	}
	assert_int_equal(webcfg__load(&w, "/nonexistent/web.yml", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/web.yml"));
}

/* The TLS settings as parsed, and the priorities GnuTLS gets from them. */
static void test_tls_settings(void **state)
{
	static const char text[] = PAIR "  min_version: TLS13\n"
		"  cipher_suites:\n    - TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384\n"
		"    - TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305\n"
		"    - TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256\n"
		"  curve_preferences: [CurveP384, X25519]\n";
	struct webcfg w;
	char err[256], prio[384];
	gnutls_priority_t gp;
	const char *pos;

	(void)state;
	assert_int_equal(webcfg__parse(&w, text, strlen(text), "web.yml", err, sizeof(err)), 0);
	assert_int_equal(w.min_version, WEBCFG_TLS13);
	assert_int_equal(w.nr_suites, 3);
	assert_int_equal(w.suites[0], WEBCFG_ECDHE_RSA_AES256_GCM);
	assert_int_equal(w.suites[1], WEBCFG_ECDHE_ECDSA_CHACHA20);
	assert_int_equal(w.suites[2], WEBCFG_ECDHE_RSA_CHACHA20);
	assert_int_equal(w.nr_curves, 2);
	assert_int_equal(w.curves[0], WEBCFG_P384);
	assert_int_equal(w.curves[1], WEBCFG_X25519);
	assert_int_equal(http_tls__priorities(&w, prio, sizeof(prio)), 0);
	assert_string_equal(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3:-RSA:-KX-ALL:+ECDHE-RSA:"
			    "+ECDHE-ECDSA:-CIPHER-ALL:+AES-256-GCM:+CHACHA20-POLY1305:"
			    "-MAC-ALL:+AEAD:-GROUP-ALL:+GROUP-SECP384R1:+GROUP-X25519");
	assert_int_equal(gnutls_priority_init(&gp, prio, &pos), 0);
	gnutls_priority_deinit(gp);
	webcfg__free(&w);
	/* the defaults: forward-secret AEAD suites, every curve */
	assert_int_equal(webcfg__parse(&w, PAIR, strlen(PAIR), "web.yml", err, sizeof(err)), 0);
	assert_int_equal(http_tls__priorities(&w, prio, sizeof(prio)), 0);
	assert_string_equal(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA:-CIPHER-ALL:"
			    "+AES-256-GCM:+AES-128-GCM:+CHACHA20-POLY1305:-SHA1");
	webcfg__free(&w);
}

static struct http_auth *auth__new(const char *hash)
{
	struct webcfg_user u = { "alice", (char *)hash };
	struct webcfg w = { .users = &u, .nr_users = 1 };
	struct http_auth *a = NULL;

	assert_int_equal(http_auth__new(&a, &w), 0);
	return a;
}

static void test_auth(void **state)
{
	char hash[CRYPT_OUTPUT_SIZE];
	struct http_auth *a;
	double t = 100;

	(void)state;
	/* a cost-4 hash of "pw", made here: libcrypt's own, both sides */
	strcpy(hash, crypt("pw", crypt_gensalt("$2b$", 4, NULL, 0)));
	a = auth__new(hash);
	assert_int_equal(http_auth__check(a, NULL, NULL, NULL, t), HTTP_AUTH_DENIED);
	assert_int_equal(http_auth__checks(a), 0);
	assert_int_equal(http_auth__check(a, NULL, "alice", "wrong", t), HTTP_AUTH_DENIED);
	assert_int_equal(http_auth__check(a, NULL, "mallory", "pw", t), HTTP_AUTH_DENIED);
	assert_int_equal(http_auth__checks(a), 2);	/* unknown users cost one too */
	assert_int_equal(http_auth__check(a, NULL, "alice", "pw", t), HTTP_AUTH_OK);
	assert_int_equal(http_auth__check(a, NULL, "alice", "pw", t + 1), HTTP_AUTH_OK);
	assert_int_equal(http_auth__check(a, NULL, "alice", "pw2", t + 1), HTTP_AUTH_DENIED);
	assert_int_equal(http_auth__checks(a), 4);	/* the second right one remembered */
	/* a burst of wrong ones: the bucket (4, 1 left, 2 more a second
	 * later) runs dry at the third */
	for (int i = 0; i < 3; i++)
		http_auth__check(a, NULL, "alice", "x", t + 1);
	assert_int_equal(http_auth__check(a, NULL, "alice", "x", t + 1), HTTP_AUTH_BUSY);
	assert_int_equal(http_auth__check(a, NULL, "alice", "pw", t + 1), HTTP_AUTH_OK);
	assert_int_equal(http_auth__check(a, NULL, "alice", "x", t + 1.6), HTTP_AUTH_DENIED);
	/* forgotten after HTTP_AUTH_CACHE_S: checked again */
	assert_int_equal(http_auth__check(a, NULL, "alice", "pw", t + 1 + HTTP_AUTH_CACHE_S),
			 HTTP_AUTH_OK);
	assert_int_equal(http_auth__checks(a), 8);
	http_auth__free(a);
	/* htpasswd writes $2y$: the same bcrypt */
	a = auth__new(HASH_Y);
	assert_int_equal(http_auth__check(a, NULL, "alice", "pw", t), HTTP_AUTH_OK);
	http_auth__free(a);
}

static struct sockaddr_in addr4(const char *ip)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };

	inet_pton(AF_INET, ip, &sa.sin_addr);
	return sa;
}

/*
 * One client's wrong passwords at 20 a second (issue: they made a right
 * one from another client get 429): its own bucket runs dry, the other
 * client's right password is still checked each time it first comes.
 * Four such clients at once stay within the bound of all.
 */
static void test_auth_sources(void **state)
{
	struct sockaddr_in mallory = addr4("10.0.0.9"), alice = addr4("10.0.0.1");
	char hash[CRYPT_OUTPUT_SIZE], pw[16];
	int busy = 0, mine = 0;
	struct http_auth *a;
	unsigned long before;

	(void)state;
	strcpy(hash, crypt("pw", crypt_gensalt("$2b$", 4, NULL, 0)));
	a = auth__new(hash);
	for (int i = 0; i < 100; i++) {	/* 5 s */
		double t = 100 + i * 0.05;

		http_auth__check(a, (struct sockaddr *)&mallory, "alice", "x", t);
		if (i % 10 == 5) {	/* a password alice has not used: a check */
			snprintf(pw, sizeof(pw), "pw%d", i);
			busy += http_auth__check(a, (struct sockaddr *)&alice, "alice", pw, t) ==
				HTTP_AUTH_BUSY;
			mine++;
		}
	}
	assert_int_equal(busy, 0);
	assert_int_equal(mine, 10);
	/* 4 sources at 20/s for 5 s: within 8 + 4 x 5 checks */
	before = http_auth__checks(a);
	for (int i = 0; i < 100; i++)
		for (int k = 0; k < 4; k++) {
			char ip[16];
			struct sockaddr_in sa;

			snprintf(ip, sizeof(ip), "10.0.1.%d", k);
			sa = addr4(ip);
			http_auth__check(a, (struct sockaddr *)&sa, "alice", "x", 200 + i * 0.05);
		}
	assert_true(http_auth__checks(a) - before <= 8 + 4 * 5);
	assert_true(http_auth__checks(a) - before >= 4 * 5);
	http_auth__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_tls_settings),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_auth_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
