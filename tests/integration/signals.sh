#!/usr/bin/env bash
# Every way a run ends leaves nothing attached: SIGINT and SIGTERM print
# the counts and exit 0; SIGKILL prints nothing but still leaves no BPF
# program, link or perf event behind; a signal in command mode goes to the
# command, whose status comes back; a closed output pipe ends the run.
. "$(dirname "$0")/lib.sh"

start() { # ARGS...: start emon-perf in $pid, wait until it is attached
	"$EMON" stat -e cpu-clock,context-switches -o "$TMP/out" "$@" 2>"$TMP/err" &
	pid=$!
	for _ in $(seq 200); do
		grep -q '^link_id:' /proc/$pid/fdinfo/* 2>/dev/null && break
		sleep 0.02
	done
}

for sig in INT TERM HUP; do
	start -a
	ids=$(bpf_ids $pid)
	kill -$sig $pid
	wait $pid
	rc=$?
	check "SIG$sig: exit 0" [ $rc -eq 0 ]
	check "SIG$sig: the counts are printed" grep -q 'msec cpu-clock' "$TMP/out"
	check "SIG$sig: programs and links gone" bpf_gone "$ids"
done

for i in 1 2 3; do
	start -a -I 100
	sleep 0.$((RANDOM % 5))
	ids=$(bpf_ids $pid)
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "SIGKILL #$i: programs and links gone" bpf_gone "$ids"
done

# command mode: the command gets the signal and its status is returned
nap=30.$$	# a duration of its own: pgrep finds no other test's sleep
start -- sleep $nap
sleep 0.2
kill -TERM $pid
wait $pid
rc=$?
check "command mode, SIGTERM: the command's status 143 comes back" [ $rc -eq 143 ]
check "command mode, SIGTERM: the counts are printed" grep -q "Performance counter stats for 'sleep $nap'" "$TMP/out"
check "command mode: the command is gone" [ -z "$(pgrep -f "^sleep $nap\$")" ]

# a child that takes the signal in its parent's handler just before its
# exec loses it (dash, sh -c: its child between fork and exec), and the
# parent, which caught it, waits for that child: for 2 s emon-perf gives
# the signal again to a process of the group that exec'ed since. Here the
# child catches SIGINT, then execs sleep; its parent catches it and waits.
cat >"$TMP/child.py" <<EOF
import os, signal, threading
got = threading.Event()
signal.signal(signal.SIGINT, lambda *a: got.set())
open("$TMP/ready", "w").close()
got.wait()
os.execvp("sleep", ["sleep", "31.$$"])
EOF
start -- "$PY3" -c "
import signal, subprocess, sys
signal.signal(signal.SIGINT, lambda *a: None)
child = subprocess.Popen([sys.executable, '$TMP/child.py'])
if child.wait() == -signal.SIGINT:	# the child died of it: so do we, as dash does
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.raise_signal(signal.SIGINT)"
for _ in $(seq 200); do [ -e "$TMP/ready" ] && break; sleep 0.02; done
t0=$EPOCHREALTIME
kill -INT $pid
wait $pid
rc=$?
took=$("$PY3" -c "print(int(($EPOCHREALTIME - $t0) * 1000))")
check "command mode, SIGINT lost by a child before its exec: it gets it again, all end ($took ms, status $rc)" \
	[ "$took" -lt 10000 -a $rc -eq 130 ]
check "command mode, SIGINT lost by a child before its exec: none left running" [ -z "$(pgrep -f "^sleep 31.$$\$")" ]

# a process made after the signal is left alone (a trap's cleanup command)
rm -f "$TMP/ready" "$TMP/cleaned"
start -- sh -c "trap 'sleep 0.3; touch $TMP/cleaned; exit 3' INT; touch $TMP/ready; while :; do sleep 0.05; done"
for _ in $(seq 200); do [ -e "$TMP/ready" ] && break; sleep 0.02; done
kill -INT $pid
wait $pid
rc=$?
check "command mode, SIGINT, a trap's cleanup command started after it runs to its end (status $rc)" \
	[ -e "$TMP/cleaned" -a $rc -eq 3 ]

# the reader goes away: the run ends by itself
timeout 10 "$EMON" stat -e cpu-clock -I 100 --json-rows -o /dev/stdout 2>"$TMP/err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
check "closed output pipe: ends (status $rc, not a timeout)" [ "$rc" -ne 124 ]
check "closed output pipe: nothing on stderr" [ ! -s "$TMP/err" ]
finish
