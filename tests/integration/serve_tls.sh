#!/usr/bin/env bash
# serve --web-config: /metrics over TLS with a client certificate and
# basic auth, exporter-toolkit's YAML (relative paths from the file's
# directory). openssl makes a CA, a server certificate for 127.0.0.1 and
# client certificates; python3's crypt a bcrypt hash. curl: no password or
# a wrong one 401, the right one 200 with metrics, no client certificate
# or one of another CA 403, plain http:// no metrics. A real Prometheus
# with scheme https, tls_config and basic_auth scrapes it (up 1); a job
# with a wrong password is down (up 0). A bad file is refused at start
# (exit 2, the key and the file named). --min-scrape-ms 200: a burst of
# scrapes drives at most ceil(T / 0.2 s) + 1 flushes beyond the engine's
# own reads. exporter-toolkit's cipher_suites, curve_preferences and
# min_version, as openssl s_client sees them: a suite, a curve or TLS 1.2
# not configured gets no handshake, one configured does; an unknown name
# is refused at start (exit 2, the name said).
# counter pass: what it checks (TLS, basic auth, scrape-driven flushes) has no counts
. "$(dirname "$0")/lib.sh"

command -v openssl >/dev/null || skip "no openssl (apt-get install openssl)"
command -v prometheus >/dev/null || skip "no prometheus (apt-get install prometheus)"

W=$TMP/web
mkdir -p "$W"
ossl() { openssl "$@" 2>>"$TMP/openssl.log"; }
# ca NAME: a self-signed CA; leaf NAME CA EXT: a key and certificate it signs
ca() {
	ossl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$1" \
		-keyout "$W/$1.key" -out "$W/$1.crt"
}
leaf() {
	printf '%s\n' "$3" >"$W/$1.ext"
	ossl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$W/$1.key" -out "$W/$1.csr" &&
		ossl x509 -req -in "$W/$1.csr" -CA "$W/$2.crt" -CAkey "$W/$2.key" \
			-CAcreateserial -days 2 -extfile "$W/$1.ext" -out "$W/$1.crt"
}
ca ca && ca other &&
	leaf server ca "subjectAltName=IP:127.0.0.1
extendedKeyUsage=serverAuth" &&
	leaf client ca "extendedKeyUsage=clientAuth" &&
	leaf stranger other "extendedKeyUsage=clientAuth" ||
	{ echo "FAIL  openssl could not make the certificates:"; cat "$TMP/openssl.log"; exit 1; }
chmod 600 "$W"/*.key
chmod 640 "$W/server.key"	# group-readable: the daemon says so

PASS=s3cret-$$
HASH=$("$PY3" -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10)))' "$PASS")
check "a bcrypt hash ($HASH)" [ "${HASH:0:7}" = '$2b$10$' ]
cat >"$W/web.yml" <<EOF
# relative to this file's directory
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
  min_version: TLS12
basic_auth_users:
  alice: '$HASH'
EOF

MPORT=$(free_port) PPORT=$(free_port)
S=$TMP/run/emon.sock

# a bad file: refused before anything is loaded
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  cert_flie: x\n' >"$W/bad.yml"
"$EMON" serve --socket "$S" --listen 127.0.0.1:$MPORT --web-config "$W/bad.yml" 2>"$TMP/bad.err"
st=$?
check "an unknown key: exit 2 ($st)" [ $st -eq 2 ]
check "one line naming the file, line and key: $(cat "$TMP/bad.err")" \
	grep -q "$W/bad.yml:4: unknown key 'cert_flie'" "$TMP/bad.err"
"$EMON" serve --socket "$S" --listen 0.0.0.0:$MPORT --web-config "$W/nothere.yml" 2>"$TMP/bad.err"
check "a missing file: exit 2 ($?)" [ $? -eq 2 ]

serve_start "$S" "$TMP/serve.err" -e cpu-clock --listen 127.0.0.1:$MPORT \
	--web-config "$W/web.yml" --min-scrape-ms 200 || exit 1
check "the daemon serves https://127.0.0.1:$MPORT/metrics" \
	grep -q "metrics https://127.0.0.1:$MPORT/metrics" "$TMP/serve.err"

URL=https://127.0.0.1:$MPORT/metrics
TLS=(--cacert "$W/ca.crt" --cert "$W/client.crt" --key "$W/client.key")
code() { curl -s -o "$TMP/body" -w '%{http_code}' "$@"; }
check "no password: 401" [ "$(code "${TLS[@]}" "$URL")" = 401 ]
check "and WWW-Authenticate: Basic realm=\"emon-perf\"" \
	grep -qi '^www-authenticate: basic realm="emon-perf"' \
	<(curl -s -D - -o /dev/null "${TLS[@]}" "$URL")
check "a wrong password: 401" [ "$(code "${TLS[@]}" -u alice:wrong "$URL")" = 401 ]
check "an unknown user: 401" [ "$(code "${TLS[@]}" -u bob:"$PASS" "$URL")" = 401 ]
check "the right one: 200" [ "$(code "${TLS[@]}" -u alice:"$PASS" "$URL")" = 200 ]
check "with metrics" grep -q '^emon_flushes_total ' "$TMP/body"
check "no client certificate: 403" [ "$(code --cacert "$W/ca.crt" -u alice:"$PASS" "$URL")" = 403 ]
check "one of another CA: 403" [ "$(code --cacert "$W/ca.crt" --cert "$W/stranger.crt" \
	--key "$W/stranger.key" -u alice:"$PASS" "$URL")" = 403 ]
# forward secrecy only: a static-RSA or CBC-SHA1 suite is refused at TLS 1.2
for suite in AES128-SHA AES256-GCM-SHA384 ECDHE-RSA-AES128-SHA; do
	c=$(code "${TLS[@]}" --tls-max 1.2 --ciphers "$suite" -u alice:"$PASS" "$URL")
	check "TLS 1.2 with $suite (no forward secrecy, or CBC-SHA1): no handshake ($c)" [ "$c" = 000 ]
done
c=$(code "${TLS[@]}" --tls-max 1.2 --ciphers ECDHE-RSA-AES128-GCM-SHA256 -u alice:"$PASS" "$URL")
check "TLS 1.2 with ECDHE-RSA-AES128-GCM-SHA256: 200 ($c)" [ "$c" = 200 ]
check "the web config (0644, holding hashes): one warning naming it" \
	[ "$(grep -c "$W/web.yml holds password hashes (basic_auth_users) and has mode 644" "$TMP/serve.err")" -eq 1 ]
check "the TLS key (0640): one warning naming it" \
	[ "$(grep -c "$W/server.key holds the TLS private key (key_file) and has mode 640" "$TMP/serve.err")" -eq 1 ]
rm -f "$TMP/body"
c=$(code -u alice:"$PASS" "http://127.0.0.1:$MPORT/metrics")
check "plain http://: no answer ($c), no metrics" \
	[ "$c" = 000 ] && ! grep -qs emon_flushes "$TMP/body"

# --min-scrape-ms 200: the engine's own reads over 2 s, then a burst
flushes() { curl -s "${TLS[@]}" -u alice:"$PASS" "$URL" | awk '$1 == "emon_flushes_total" { print $2 }'; }
f0=$(flushes)
sleep 2
f1=$(flushes)
own=$((f1 - f0 - 1))	# the second scrape drove one
N=40
t0=$(date +%s.%N)
f2=$(flushes)
for _ in $(seq $((N - 2))); do flushes >/dev/null; done
f3=$(flushes)
t1=$(date +%s.%N)
read -r allowed secs < <("$PY3" -c 'import math, sys
t = float(sys.argv[2]) - float(sys.argv[1])
own = max(0, int(sys.argv[3]))
print(math.ceil(t / 0.2) + 1 + math.ceil(own * t / 2) + 1, "%.2f" % t)' "$t0" "$t1" "$own")
echo "      $N scrapes in $secs s: $((f3 - f2)) flushes ($own of the engine's own in 2 s idle)"
check "at most $allowed flushes for $N scrapes in $secs s" [ $((f3 - f2)) -le "$allowed" ]

cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: emon_tls
    scheme: https
    tls_config: { ca_file: $W/ca.crt, cert_file: $W/client.crt, key_file: $W/client.key }
    basic_auth: { username: alice, password: '$PASS' }
    static_configs: [ { targets: ["127.0.0.1:$MPORT"] } ]
  - job_name: emon_wrong
    scheme: https
    tls_config: { ca_file: $W/ca.crt, cert_file: $W/client.crt, key_file: $W/client.key }
    basic_auth: { username: alice, password: wrong }
    static_configs: [ { targets: ["127.0.0.1:$MPORT"] } ]
EOF
prom_start $PPORT "$TMP/prom.yml" || exit 1
"$PY3" - "$PPORT" >"$TMP/up.out" <<'PY'
import json, sys, time, urllib.parse, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/api/v1/query?" + urllib.parse.urlencode(
    {"query": "up"})
up = {}
for _ in range(300):
    r = json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
    up = {x["metric"]["job"]: x["value"][1] for x in r}
    if len(up) == 2:
        break
    time.sleep(0.1)
print(up.get("emon_tls", "none"), up.get("emon_wrong", "none"))
PY
read -r up_ok up_wrong <"$TMP/up.out"
check "Prometheus over https with tls_config and basic_auth: up $up_ok" [ "$up_ok" = 1 ]
check "a job with a wrong password: up $up_wrong" [ "$up_wrong" = 0 ]

kill -TERM $DPID
wait $DPID
check "SIGTERM: a clean exit with TLS on" [ $? -eq 0 ]

# hs ARGS...: the protocol and suite openssl s_client's handshake with
# the daemon got ("TLSv1.2 ECDHE-RSA-AES256-GCM-SHA384"), or "none"
hs() {
	local out
	out=$(timeout 10 openssl s_client -connect 127.0.0.1:$MPORT -CAfile "$W/ca.crt" \
		"$@" </dev/null 2>&1 | sed -n 's/^New, \(TLSv1\.[0-9]\), Cipher is \(.*\)/\1 \2/p')
	echo "${out:-none}"
}
# tls_serve FILE...: a daemon on $MPORT with the web config of those lines
tls_serve() {
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' >"$W/t.yml"
	printf '  %s\n' "$@" >>"$W/t.yml"
	serve_start "$TMP/run/t.sock" "$TMP/t.err" -e cpu-clock --energy none \
		--listen 127.0.0.1:$MPORT --web-config "$W/t.yml"
}
tls_serve "cipher_suites: [TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]" \
	"curve_preferences: [CurveP384]" || exit 1
h=$(hs -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256)
check "cipher_suites [..._AES_256_GCM_SHA384]: TLS 1.2 with ECDHE-RSA-AES128-GCM-SHA256: no handshake ($h)" \
	[ "$h" = none ]
h=$(hs -tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305)
check "  with ECDHE-RSA-CHACHA20-POLY1305: no handshake ($h)" [ "$h" = none ]
h=$(hs -tls1_2 -cipher ECDHE-RSA-AES256-GCM-SHA384)
check "  with ECDHE-RSA-AES256-GCM-SHA384: a handshake ($h)" \
	[ "$h" = "TLSv1.2 ECDHE-RSA-AES256-GCM-SHA384" ]
h=$(hs -tls1_2 -curves X25519)
check "curve_preferences [CurveP384]: a client of X25519 alone: no handshake ($h)" [ "$h" = none ]
h=$(hs -tls1_2 -curves P-384)
check "  of P-384: a handshake ($h)" [ "$h" = "TLSv1.2 ECDHE-RSA-AES256-GCM-SHA384" ]
kill -TERM $DPID
wait $DPID
tls_serve "min_version: TLS13" || exit 1
h=$(hs -tls1_2)
check "min_version TLS13: s_client -tls1_2: no handshake ($h)" [ "$h" = none ]
h=$(hs -tls1_3)
check "  -tls1_3: a handshake ($h)" [ "${h%% *}" = TLSv1.3 ]
kill -TERM $DPID
wait $DPID
# TLS alone names no client: off loopback it is refused; on loopback the
# uid check of plain /metrics stays (before: both let anyone read it)
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' >"$W/t.yml"
timeout 10 "$EMON" serve --socket "$TMP/run/t.sock" --listen 0.0.0.0:$MPORT --web-config "$W/t.yml" 2>"$TMP/bad.err"
st=$?
check "TLS alone on 0.0.0.0: exit 2 ($st), one error line asking for authenticated clients (after server.key's mode warning): $(grep -v ': warning: ' "$TMP/bad.err")" \
	bash -c "[ $st -eq 2 ] && [ \$(grep -vc ': warning: ' '$TMP/bad.err') -eq 1 ] && grep -q 'authenticated' '$TMP/bad.err'"
tls_serve || exit 1
c=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$W/ca.crt" "$URL")
check "TLS alone on loopback: root gets 200 ($c)" [ "$c" = 200 ]
c=$(runuser -u nobody -- curl -sk -o /dev/null -w '%{http_code}' "$URL")
check "  nobody gets 403 ($c): the uid check stays" [ "$c" = 403 ]
kill -TERM $DPID
wait $DPID
for bad in "cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA257]" \
	"cipher_suites: [TLS_RSA_WITH_AES_128_GCM_SHA256]" "curve_preferences: [P256]"; do
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  %s\n' \
		"$bad" >"$W/t.yml"
	"$EMON" serve --socket "$TMP/run/t.sock" --listen 127.0.0.1:$MPORT \
		--web-config "$W/t.yml" 2>"$TMP/bad.err"
	st=$? name=${bad#*[}
	name=${name%]}
	check "$bad: exit 2 ($st), one line naming $name: $(cat "$TMP/bad.err")" \
		bash -c "[ $st -eq 2 ] && [ \$(wc -l <'$TMP/bad.err') -eq 1 ] && grep -q \"'\\?$name\" '$TMP/bad.err'"
done
finish
