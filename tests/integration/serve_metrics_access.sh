#!/usr/bin/env bash
# Plain /metrics on loopback, from the side of local users
# (docs/security.md). It holds the system's and packages' energy (which
# the kernel keeps root's, CVE-2020-8694), every user's processes and
# every cgroup; it was open to every local user. Now:
#  - root: 200 with metrics;
#  - nobody (outside every group), and a user in the socket's group (a
#    tenant, whose socket view is its own processes): 403, no metrics;
#  - a member of --admin-group (the default --metrics-group): 200;
#  - --metrics-group G: G's members 200, the admin group's no longer;
#  - with basic auth (--web-config), the password decides, not the uid.
# counter pass: what it checks (who may read /metrics) has no counts
. "$(dirname "$0")/lib.sh"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
command -v useradd >/dev/null || skip "no useradd"
grp=emonmten$$ adm=emonmadm$$ mg=emonmgrp$$ u=emonmu$$ ua=emonma$$ um=emonmm$$
groupadd -f "$grp" 2>/dev/null && groupadd -f "$adm" 2>/dev/null && groupadd -f "$mg" 2>/dev/null ||
	skip "cannot add a group (groupadd)"
trap 'cleanup; for x in "$u" "$ua" "$um"; do userdel -f "$x" 2>/dev/null; done
	groupdel "$grp" 2>/dev/null; groupdel "$adm" 2>/dev/null; groupdel "$mg" 2>/dev/null' EXIT
# a tenant (the socket's group), an admin (--admin-group), a member of $mg:
# membership as the user database says it (the kernel's socket table
# gives a uid, not a process's groups)
useradd -M -N -g "$grp" -s /bin/false "$u" 2>/dev/null &&
	useradd -M -N -g "$grp" -G "$adm" -s /bin/false "$ua" 2>/dev/null &&
	useradd -M -N -g "$grp" -G "$mg" -s /bin/false "$um" 2>/dev/null ||
	skip "cannot add a user (useradd)"
gid=$(getent group "$grp" | cut -d: -f3)
as() { echo --reuid="$(id -u "$1")" --regid="$gid" --init-groups; }

# code AS...: the HTTP status of a scrape made as setpriv ARGS (none: root)
code() {
	local url=http://127.0.0.1:$PORT/metrics
	if [ $# -eq 0 ]; then
		curl -s -o "$TMP/body" -w '%{http_code}' --max-time 5 "$url"
	else
		setpriv "$@" curl -s -o - -w '%{http_code}' --max-time 5 "$url" 2>/dev/null \
			>"$TMP/body.raw"
		tail -c 3 "$TMP/body.raw"
		head -c -3 "$TMP/body.raw" >"$TMP/body"
	fi
}
metrics() { grep -q '^emon_flushes_total ' "$TMP/body"; }
NOBODY=(--reuid=65534 --regid=65534 --clear-groups)
read -ra TENANT <<<"$(as "$u")"
read -ra ADMIN <<<"$(as "$ua")"
read -ra MEMBER <<<"$(as "$um")"
S=$TMP/run/emon.sock

PORT=$(free_port)
serve_start "$S" "$TMP/serve.err" -e cpu-clock --energy none --listen "127.0.0.1:$PORT" \
	--socket-group "$grp" --admin-group "$adm" || exit 1
c=$(code); check "root: 200 ($c) with metrics" bash -c "[ $c = 200 ] && grep -q '^emon_flushes_total ' '$TMP/body'"
c=$(code "${NOBODY[@]}"); check "nobody: 403 ($c)" [ "$c" = 403 ]
check "  and no metrics" bash -c "! grep -q '^emon_' '$TMP/body'"
c=$(code "${TENANT[@]}"); check "a tenant (the socket's group): 403 ($c)" [ "$c" = 403 ]
check "  and no metrics" bash -c "! grep -q '^emon_' '$TMP/body'"
c=$(code "${ADMIN[@]}"); check "a member of --admin-group (the default --metrics-group): 200 ($c)" [ "$c" = 200 ]
check "  with metrics" metrics
kill "$DPID"; wait "$DPID" 2>/dev/null

PORT=$(free_port)
serve_start "$S" "$TMP/serve2.err" -e cpu-clock --energy none --listen "127.0.0.1:$PORT" \
	--socket-group "$grp" --admin-group "$adm" --metrics-group "$mg" || exit 1
c=$(code "${MEMBER[@]}"); check "--metrics-group G: a member of G: 200 ($c)" [ "$c" = 200 ]
c=$(code "${ADMIN[@]}"); check "  the admin group's, not G's: 403 ($c)" [ "$c" = 403 ]
c=$(code "${NOBODY[@]}"); check "  nobody: 403 ($c)" [ "$c" = 403 ]
kill "$DPID"; wait "$DPID" 2>/dev/null

# basic auth: the password decides
PASS=pw-$$
HASH=$("$PY3" -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 4)))' "$PASS")
printf 'basic_auth_users:\n  scraper: %s\n' "'$HASH'" >"$TMP/web.yml"
chmod 600 "$TMP/web.yml"
PORT=$(free_port)
serve_start "$S" "$TMP/serve3.err" -e cpu-clock --energy none --listen "127.0.0.1:$PORT" \
	--web-config "$TMP/web.yml" || exit 1
c=$(setpriv "${NOBODY[@]}" curl -s -o /dev/null -w '%{http_code}' -u "scraper:$PASS" \
	"http://127.0.0.1:$PORT/metrics")
check "--web-config with basic auth: nobody with the password: 200 ($c)" [ "$c" = 200 ]
c=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
check "  root without it: 401 ($c)" [ "$c" = 401 ]
finish
