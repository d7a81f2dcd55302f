#!/usr/bin/env bash
# Per-uid limits against subordinate uids, from a tenant's side
# (docs/security.md). A user with a subordinate range (/etc/subuid, as
# newuidmap maps it: `unshare --map-users=...`) connects as 16 of those
# uids to a daemon of 16 connections (4 a uid). Each counted as a uid of
# its own, so they took all 16 and another tenant was refused. Now they
# are charged to their owner: 4 get a hello, the rest a refusal naming
# the owner's subordinate uids, and the other tenant's stat runs.
# counter pass: what it checks (connection limits) has no counts
. "$(dirname "$0")/lib.sh"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
command -v useradd >/dev/null || skip "no useradd"
usermod --help 2>&1 | grep -q -- --add-subuids || skip "usermod has no --add-subuids"
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ] ||
	skip "perf_event_paranoid <= 0: every user may count CPU-wide here"
grp=emonsub$$ ut=emonst$$ uo=emonso$$
FIRST=$((3000000 + ($$ % 1000) * 100))	# a range no one else has
groupadd -f "$grp" 2>/dev/null || skip "cannot add a group (groupadd)"
trap 'cleanup; userdel -f "$ut" 2>/dev/null; userdel -f "$uo" 2>/dev/null
	groupdel "$grp" 2>/dev/null' EXIT
useradd -M -N -g "$grp" -s /bin/false "$ut" 2>/dev/null &&
	useradd -M -N -g "$grp" -s /bin/false "$uo" 2>/dev/null || skip "cannot add a user (useradd)"
usermod --add-subuids "$FIRST-$((FIRST + 63))" "$ut" ||
	skip "cannot give $ut subordinate uids (usermod --add-subuids)"
check "/etc/subuid gives $ut $FIRST-$((FIRST + 63))" grep -q "^$ut:$FIRST:64$" /etc/subuid
gid=$(getent group "$grp" | cut -d: -f3)
chmod 755 "$TMP"
S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock --energy none --listen none \
	--socket-group "$grp" --max-clients 16 || exit 1

for i in $(seq 0 15); do
	setpriv --reuid=$((FIRST + i)) --regid="$gid" --clear-groups \
		env PYTHONPATH="$(dirname "$0")" "$PY3" -c '
import sys, time
from emon_client import conn, recv_msg
s = conn(sys.argv[1])
m = recv_msg(s)
print("hello" if m and m[0] == 1 else "refused %r" % (m[2][4:].split(b"\0")[0] if m else b"closed"), flush=True)
time.sleep(30)' "$S" >"$TMP/sub.$i" 2>&1 &
	BG_PIDS+=("$!")
done
for _ in $(seq 100); do
	[ "$(cat "$TMP"/sub.* 2>/dev/null | wc -l)" -ge 16 ] && break
	sleep 0.1
done
n=$(cat "$TMP"/sub.* | grep -c '^hello')
check "16 connections from 16 of $ut's subordinate uids: 4 get a hello, its quarter ($n)" [ "$n" -eq 4 ]
check "  the others are refused, naming uid $(id -u "$ut")'s subordinate uids" \
	[ "$(cat "$TMP"/sub.* | grep -c "uid $(id -u "$ut")'s subordinate uids have 4 connections")" -eq 12 ]
setpriv --reuid="$(id -u "$uo")" --regid="$gid" --init-groups \
	timeout 20 "$EMON" stat --socket "$S" -e cpu-clock -- sleep 0.2 >"$TMP/other.out" 2>&1
rc=$?
check "another tenant meanwhile: stat -- sleep 0.2 attaches and exits 0 ($rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q 'attached to the daemon' '$TMP/other.out'"
finish
