#!/usr/bin/env bash
# The unread-answer budget shared fairly, from a tenant's side
# (docs/security.md): tenant A runs 3,000 processes of its own (each of
# its snapshots about 860 kB, 8 events) and opens 150 connections that each ask for
# a snapshot and never read it, past --max-held-mb 2. Then root's and
# tenant B's own stat runs are timed: they must attach and end within
# 5 s (they took 26 s, until A's answers timed out: A's unread bytes
# held the whole budget). A's requests past its quarter of the budget
# wait; its first answers still come.
# counter pass: what it checks (the daemon's answer budget) has no counts
. "$(dirname "$0")/lib.sh"
grp=emonfair$$ ua=emonfa$$ ub=emonfb$$
two_tenants "$grp" "$ua" "$ub"
S=$TMP/run/emon.sock
# 8 events: 288 bytes a process entry, so that an answer of A's is past
# what its socket's buffer takes (about 200 kB) and is held by the daemon
EVS=cpu-clock,task-clock,context-switches,cpu-migrations,page-faults,minor-faults,major-faults,cgroup-switches
serve_start "$S" "$TMP/serve.err" -e "$EVS" --energy none --listen none \
	--socket-group "$grp" --max-held-mb 2 || exit 1

# A's 3,000 processes, then its 150 connections that ask and never read
as "$ua" sh -c 'for i in $(seq 3000); do sleep 120 & done' >/dev/null 2>&1
sleep 1.5	# a read or two: they are the daemon's now
as "$ua" env PYTHONPATH="$(dirname "$0")" "$PY3" - "$S" >"$TMP/a.out" 2>&1 <<'PY' &
import struct, sys, time
from emon_client import HDR, MAGIC, V, SNAPSHOT_REQ, PROCS, conn, recv_msg
socks = []
for i in range(150):
    s = conn(sys.argv[1])
    recv_msg(s)	# the hello
    body = struct.pack("<IIiI", PROCS, 0, -1, 1)	# EMON_SNAP_REQ_OWN
    s.sendall(HDR.pack(MAGIC, V, SNAPSHOT_REQ, len(body), i + 1) + body)
    socks.append(s)
print("asked", len(socks), flush=True)
time.sleep(60)
PY
BG_PIDS+=("$!")
for _ in $(seq 100); do grep -q asked "$TMP/a.out" && break; sleep 0.1; done
check "tenant A: 150 connections asked and do not read ($(cat "$TMP/a.out"))" grep -q "asked 150" "$TMP/a.out"
sleep 2	# flushes: A's answers fill what they may

t0=$(date +%s.%N)
timeout 40 "$EMON" stat --socket "$S" -a -e cpu-clock --timeout 300 >"$TMP/root.out" 2>&1
rc=$?
dt=$(echo "$(date +%s.%N) - $t0" | bc)
check "root's stat -a --timeout 300: exit 0 ($rc) in $dt s, within 5 s" \
	bash -c "[ $rc -eq 0 ] && [ \$(echo '$dt < 5' | bc) -eq 1 ]"
check "  attached to the daemon" grep -q "attached to the daemon" "$TMP/root.out"
t0=$(date +%s.%N)
as "$ub" timeout 40 "$EMON" stat --socket "$S" -e cpu-clock -- sleep 0.3 >"$TMP/b.out" 2>&1
rc=$?
dt=$(echo "$(date +%s.%N) - $t0" | bc)
check "tenant B's stat -- sleep 0.3: exit 0 ($rc) in $dt s, within 5 s" \
	bash -c "[ $rc -eq 0 ] && [ \$(echo '$dt < 5' | bc) -eq 1 ]"
check "  attached to the daemon" grep -q "attached to the daemon" "$TMP/b.out"
finish
