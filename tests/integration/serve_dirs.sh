#!/usr/bin/env bash
# The socket's directories from the side of a local user who owns one
# above it (docs/security.md):
#  - a directory above the socket's that another user owns, or that its
#    group may rename in without the sticky bit: serve refuses to start
#    (exit 2), names it, and makes nothing below it (a root daemon made
#    its directory there, and the owner could swap it for a symlink);
#  - at exit the daemon removes its socket by the fd of its directory,
#    held since its start, not by path: renamed meanwhile, it still goes,
#    and a socket and directory of another's that took the old names stay
#    (by path, the other's went and the daemon's own stayed);
#  - a directory left to --user's uid by the last run is accepted when
#    the daemon runs as that --user again (it was refused as another's).
. "$(dirname "$0")/lib.sh"
chmod 755 "$TMP"
serve_rc() { # LOG ARGS...: serve's exit status when it refuses to start
	local log=$1
	shift
	timeout 10 "$EMON" serve -e cpu-clock --listen none --energy none "$@" 2>"$log" >/dev/null
}

mkdir -p "$TMP/u" && chown 65534 "$TMP/u"
serve_rc "$TMP/u.err" --socket "$TMP/u/run/e.sock"
rc=$?
check "a directory above owned by uid 65534: exit 2 ($rc: $(head -c 200 "$TMP/u.err"))" [ "$rc" -eq 2 ]
check "  named as such" grep -q "$TMP/u above it is owned by uid 65534" "$TMP/u.err"
check "  nothing made in it" [ -z "$(ls -A "$TMP/u")" ]

mkdir -p "$TMP/g" && chmod 775 "$TMP/g"
serve_rc "$TMP/g.err" --socket "$TMP/g/run/e.sock"
rc=$?
check "a directory above its group may rename in (0775, not sticky): exit 2 ($rc)" [ "$rc" -eq 2 ]
check "  named with its mode" grep -q "$TMP/g above it has mode 775" "$TMP/g.err"
mkdir -p "$TMP/t" && chmod 1777 "$TMP/t"
serve_start "$TMP/t/run/e.sock" "$TMP/t.err" -e cpu-clock --listen none --energy none &&
	check "a sticky 1777 directory above (as /tmp) is accepted" [ -S "$TMP/t/run/e.sock" ]
kill "$DPID" && wait "$DPID" 2>/dev/null

# by fd: the daemon's directory renamed, another's socket under the old name
mkdir -p "$TMP/ok"
serve_start "$TMP/ok/run/e.sock" "$TMP/ok.err" -e cpu-clock --listen none --energy none || finish
mv "$TMP/ok/run" "$TMP/ok/moved" && mkdir "$TMP/ok/run"
"$PY3" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/ok/run/e.sock"
kill -TERM "$DPID"
wait "$DPID"
rc=$?
check "SIGTERM: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "  another's socket that took the old name stays" [ -S "$TMP/ok/run/e.sock" ]
check "  the daemon's own socket, in its renamed directory, is gone" [ ! -e "$TMP/ok/moved/e.sock" ]
check "  the directory of the old name, another's now, stays" [ -d "$TMP/ok/run" ]

# --user's leftover: made for uid 65534, which cannot remove it from root's $TMP/v
mkdir -p "$TMP/v"
for run in 1 2; do
	: >"$TMP/v$run.err"
	serve_start "$TMP/v/run/e.sock" "$TMP/v$run.err" -e cpu-clock --listen none --energy none \
		--user nobody || break
	kill -TERM "$DPID"
	wait "$DPID"
done
check "serve --user nobody twice: the second run accepts the first's directory" \
	grep -q "serving" "$TMP/v2.err"
check "  (which the first left to uid 65534)" [ "$(stat -c %u "$TMP/v/run")" -eq 65534 ]
finish
