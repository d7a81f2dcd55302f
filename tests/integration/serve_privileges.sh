#!/usr/bin/env bash
# The daemon started as user nobody with only the documented start-up
# capabilities (setpriv, docs/capabilities.md): it serves, keeps only the
# runtime set once set up (and no_new_privs), and counts right (an
# attached stat against cpu.stat); a stat as nobody in --socket-group
# attaches, one in no such group cannot.
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
caps=$(sed -n 's/^<!-- caps: \(.*\) -->$/\1/p' docs/capabilities.md)
startup=$(sed -n 's/.*startup=\([^ ]*\).*/\1/p' <<<"$caps" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g')
echo "      start-up capabilities: $startup"
mkdir -p "$TMP/np" && chown 65534 "$TMP/np" && chmod 755 "$TMP" "$TMP/np"
S=$TMP/np/run/emon.sock
grp=emonperf$$
groupadd -f "$grp" 2>/dev/null || skip "cannot add a group (groupadd)"
trap 'groupdel "$grp" 2>/dev/null; cleanup' EXIT
gid=$(getent group "$grp" | cut -d: -f3)
# nobody, in the socket's group (chown to a group needs membership)
setpriv --reuid=65534 --regid=65534 --groups="$gid" --inh-caps="$startup" \
	--ambient-caps="$startup" "$EMON" serve -v -e cpu-clock --socket "$S" \
	--socket-group "$grp" --listen none 2>"$TMP/serve.err" &
DPID=$!
BG_PIDS+=($DPID)
for _ in $(seq 500); do
	grep -q "serving .* pid $DPID:" "$TMP/serve.err" && break
	[ -d /proc/$DPID ] || break
	sleep 0.02
done
check "it starts as nobody with $startup" grep -q "serving .* pid $DPID:" "$TMP/serve.err"
grep -v 'interval:\|slices' "$TMP/serve.err" | head -5
eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/$DPID/status)
prm=$(awk '$1 == "CapPrm:" { print $2 }' /proc/$DPID/status)
nnp=$(awk '$1 == "NoNewPrivs:" { print $2 }' /proc/$DPID/status)
echo "      after set-up: CapEff $eff CapPrm $prm NoNewPrivs $nnp"
check "after set-up it keeps CAP_PERFMON alone (38)" [ "$eff" = 0000004000000000 -a "$prm" = 0000004000000000 ]
check "and no_new_privs" [ "$nnp" = 1 ]
check "socket owned by --socket-group" [ "$(stat -c %G "$S")" = "$grp" ]
check "its directory too, 0750" [ "$(stat -c '%G %a' "$(dirname "$S")")" = "$grp 750" ]

attached_burn "$S" $DPID "run as nobody"
setpriv --reuid=65534 --regid=65534 --groups="$gid" "$EMON" stat -e cpu-clock --socket "$S" \
	--timeout 200 -o /dev/null 2>"$TMP/member.err"
check "nobody in the socket's group attaches, with no capability" \
	bash -c "[ $? -eq 0 ] && grep -q attached '$TMP/member.err'"
setpriv --reuid=12345 --regid=12345 --clear-groups "$EMON" stat -e cpu-clock --socket "$S" \
	--timeout 200 -o /dev/null 2>"$TMP/other.err"
rc=$?
check "another user outside the group cannot: exit $rc, one line" \
	bash -c "[ $rc -ne 0 ] && [ \$(wc -l <'$TMP/other.err') -eq 1 ]"
cat "$TMP/other.err"
kill -TERM $DPID
wait $DPID
check "SIGTERM as nobody: exit 0, socket gone" bash -c "[ $? -eq 0 ] && [ ! -e '$S' ]"
finish
