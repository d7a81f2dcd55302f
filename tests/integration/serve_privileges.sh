#!/usr/bin/env bash
# The daemon's privileges in every thread, with HTTP on (libmicrohttpd's
# thread is the one a drop in the main thread alone would miss).
# Run 1: started as user nobody with only the documented start-up
# capabilities (setpriv, as systemd's User= and AmbientCapabilities= do,
# its bounding set CapabilityBoundingSet='s). Run 2: started as root with
# --user nobody. In both, once set up, every task of the daemon
# (/proc/PID/task/*/status) holds at most the runtime set in its
# inheritable, permitted, effective and ambient sets, no_new_privs, and
# a bounding set no wider than it was given (run 2: the runtime set);
# /metrics answers; the daemon counts right (an attached stat against
# cpu.stat); a stat as nobody in --socket-group attaches, one in no such
# group cannot; SIGTERM removes the socket (as nobody). Run 2 also: the
# uid, gid and groups are nobody's and the socket group's only; the
# socket stays root's, the directory it made is nobody's, so that it
# removes both at exit. Bad --user and a widening
# EMON_PERF_KEEP_CAPS: exit 2 before anything loads. (That a thread
# started before the drop is caught is tests/unit/daemon/test_privs.c's: a
# real thread, no knob in the product.)
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
caps=$(sed -n 's/^<!-- caps: \(.*\) -->$/\1/p' docs/capabilities.md)
startup=$(sed -n 's/.*startup=\([^ ]*\).*/\1/p' <<<"$caps")
runtime=$(sed -n 's/.*runtime=\([^ ]*\).*/\1/p' <<<"$caps")
# "CAP_A,CAP_B" -> the kernel's mask, in /proc status's hex
mask() {
	"$PY3" -c '
import re, sys
nums = dict(re.findall(r"#define (CAP_\w+)\s+(\d+)", open("/usr/include/linux/capability.h").read()))
print("%016x" % sum(1 << int(nums[c]) for c in sys.argv[1].split(",") if c))' "$1"
}
start_mask=$(mask "$startup") run_mask=$(mask "$runtime")
setpriv_caps=$(tr 'A-Z' 'a-z' <<<"$startup" | sed 's/cap_/+/g')
echo "      start-up $startup ($start_mask), runtime $runtime ($run_mask)"
mkdir -p "$TMP/np" && chown 65534 "$TMP/np" && chmod 755 "$TMP" "$TMP/np"
grp=emonperf$$
groupadd -f "$grp" 2>/dev/null || skip "cannot add a group (groupadd)"
trap 'groupdel "$grp" 2>/dev/null; cleanup' EXIT
gid=$(getent group "$grp" | cut -d: -f3)

# wait_serving LOG: the daemon $DPID said it serves
wait_serving() {
	for _ in $(seq 500); do
		grep -q "serving .* pid $DPID:" "$1" && return 0
		[ -d /proc/$DPID ] || return 1
		sleep 0.02
	done
	return 1
}

# tasks_check WHAT BND: every task of $DPID within the runtime set, the
# bounding set within BND, no_new_privs; HTTP's thread among them
tasks_check() {
	local what=$1 bnd=$2 t n=0 bad=0 line
	for t in /proc/$DPID/task/*; do
		line=$("$PY3" -c '
import sys
keep, bnd = int(sys.argv[2], 16), int(sys.argv[3], 16)
f = dict(l.split(":", 1) for l in open(sys.argv[1]).read().splitlines() if ":" in l)
f = {k: v.strip() for k, v in f.items()}
bad = any(int(f[k], 16) & ~keep for k in ("CapInh", "CapPrm", "CapEff", "CapAmb"))
bad |= bool(int(f["CapBnd"], 16) & ~bnd) or f["NoNewPrivs"] != "1"
print(int(bad), f["Name"], *(f"{k} {f[k]}" for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs")))
' "$t/status" "$run_mask" "$bnd")
		echo "      task ${t##*/}: ${line#* }"
		n=$((n + 1))
		[ "${line%% *}" = 0 ] || bad=$((bad + 1))
	done
	check "$what: every task ($n) holds at most $runtime, bounding within $bnd, no_new_privs" \
		[ "$bad" -eq 0 ]
	check "$what: HTTP's thread is among them" [ "$n" -ge 2 ]
}

# scrape PORT: /metrics answers with the daemon's series
scrape() {
	"$PY3" -c '
import sys, urllib.request
body = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read()
sys.exit(0 if b"emon_" in body else 1)' "$1"
}

# clients WHAT: a stat as nobody in the group attaches, another user cannot
clients() {
	local what=$1 rc
	# its own command: what any client may count (nobody_is: the rest)
	setpriv --reuid=65534 --regid=65534 --groups="$gid" "$EMON" stat -e cpu-clock \
		--socket "$S" -o /dev/null -- sleep 0.2 2>"$TMP/member.err"
	rc=$?
	check "$what: nobody in the socket's group attaches, with no capability" \
		bash -c "[ $rc -eq 0 ] && grep -q attached '$TMP/member.err'"
	setpriv --reuid=12345 --regid=12345 --clear-groups "$EMON" stat -e cpu-clock \
		--socket "$S" --timeout 200 -o /dev/null 2>"$TMP/other.err"
	rc=$?
	check "$what: another user outside the group cannot: exit $rc, one line" \
		bash -c "[ $rc -ne 0 ] && [ \$(wc -l <'$TMP/other.err') -eq 1 ]"
}

# nobody_is WHAT admin|tenant: what nobody is to the daemon. The uid that
# started it is an administrator (its daemon); the uid --user names is
# not (nobody is a uid others share, docs/security.md): nobody's system
# view is then refused, perf_event_paranoid being 2 here
nobody_is() {
	local what=$1 want=$2 rc
	if [ "$want" = tenant ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ]; then
		echo "      $what: not checked: perf_event_paranoid <= 0 lets a tenant count CPU-wide"
		return
	fi
	setpriv --reuid=65534 --regid=65534 --groups="$gid" "$EMON" stat -e cpu-clock -a \
		--socket "$S" --timeout 200 -o /dev/null 2>"$TMP/view.err"
	rc=$?
	if [ "$want" = admin ]; then
		check "$what: nobody, who started it, is its administrator: the system view (exit $rc)" \
			[ $rc -eq 0 ]
	else
		check "$what: nobody, --user's uid, is a tenant: the system view refused (exit $rc: $(tail -1 "$TMP/view.err" | head -c 120))" \
			bash -c "[ $rc -eq 2 ] && grep -q -- '--admin-group' '$TMP/view.err'"
	fi
}

# stop WHAT: SIGTERM, exit 0, the socket and its directory gone
stop() {
	kill -TERM $DPID
	wait $DPID
	check "$1: SIGTERM, exit 0, socket and its directory gone" \
		bash -c "[ $? -eq 0 ] && [ ! -e '$S' ] && [ ! -e '$(dirname "$S")' ]"
}

# daemon N OPTS PREFIX...: serve (and OPTS) with HTTP on a free port, on
# socket $S of run N, started through PREFIX (setpriv, or env)
daemon() {
	local n=$1 opts=$2
	shift 2
	S=$TMP/np/run$n/emon.sock port=$(free_port)
	"$@" "$EMON" serve -v -e cpu-clock --socket "$S" --socket-group "$grp" $opts \
		--listen "127.0.0.1:$port" 2>"$TMP/serve$n.err" &
	DPID=$!
	BG_PIDS+=($DPID)
	wait_serving "$TMP/serve$n.err"
	grep 'capabilities\|cannot\|serving' "$TMP/serve$n.err" | head -5
	grep -q "serving .* pid $DPID:" "$TMP/serve$n.err"
}

# runs N BND OWNER NOBODY: what both runs check; OWNER: the socket's
# (made before --user's switch), its directory is nobody's either way;
# NOBODY: admin or tenant (nobody_is)
runs() {
	tasks_check "$1" "$2"
	check "$1: /metrics answers after the drop" scrape "$port"
	check "$1: socket $3's, of --socket-group" [ "$(stat -c '%U %G' "$S")" = "$3 $grp" ]
	check "$1: its directory nobody's, of the group, 0750" \
		[ "$(stat -c '%U %G %a' "$(dirname "$S")")" = "nobody $grp 750" ]
	attached_burn "$S" $DPID "$1: counts"
	clients "$1"
	nobody_is "$1" "$4"
	stop "$1"
}

# --- 1: started as nobody with the start-up set --------------------------
daemon 1 "" setpriv --reuid=65534 --regid=65534 --groups="$gid" --inh-caps="$setpriv_caps" \
	--ambient-caps="$setpriv_caps" --bounding-set="-all,$setpriv_caps"
check "1: it starts as nobody with $startup, HTTP on" [ $? -eq 0 ]
runs 1 "$start_mask" nobody admin

# --- 2: started as root, --user nobody -----------------------------------
daemon 2 "--user nobody" env
check "2: it starts as root with --user nobody, HTTP on" [ $? -eq 0 ]
ids=$(awk '$1 == "Uid:" || $1 == "Gid:" || $1 == "Groups:"' /proc/$DPID/status | tr '\t\n' '  ')
echo "      $ids"
check "2: every uid is nobody's" \
	[ "$(awk '$1 == "Uid:" { print $2 $3 $4 $5 }' /proc/$DPID/status)" = 65534655346553465534 ]
check "2: gid nobody's primary, groups the socket's alone" bash -c \
	"[ \"\$(awk '\$1 == \"Gid:\" { print \$2 }' /proc/$DPID/status)\" = $(id -g nobody) ] &&
	 [ \"\$(awk '\$1 == \"Groups:\" { print \$2 \$3 }' /proc/$DPID/status)\" = $gid ]"
runs 2 "$run_mask" root tenant

# --- refused before anything loads ---------------------------------------
"$EMON" serve --socket "$TMP/x.sock" --user no-such-user-$$ 2>"$TMP/user.err"
rc=$?
check "--user no-such-user: exit 2, one line" bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$TMP/user.err') -eq 1 ]"
cat "$TMP/user.err"
EMON_PERF_KEEP_CAPS=$((1 << 39 | 1 << 38)) "$EMON" serve --socket "$TMP/x.sock" 2>"$TMP/keep.err"
rc=$?
check "EMON_PERF_KEEP_CAPS wider than the runtime set: exit 2, one line" \
	bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$TMP/keep.err') -eq 1 ]"
cat "$TMP/keep.err"
finish
