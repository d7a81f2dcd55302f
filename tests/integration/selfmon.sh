#!/usr/bin/env bash
# Thread self-monitoring (serve --threads, libemon): a thread's cpu-clock
# read through the library against the kernel's CLOCK_THREAD_CPUTIME_ID
# and its context switches against /proc/self/task/TID/status, for the
# same window (tools/selfmon/check reads them right next to each other);
# 8 threads at once, each its own, in a process with no perf_event fd; an
# unprivileged reader in --socket-group; nobody registers another
# process's thread; 10,000 threads churned through 32 slots with the
# daemon's memory, fds and slots back where they were; a pin left by
# SIGKILL is replaced by the next daemon; SIGTERM leaves nothing pinned
# and a reader gets a clear error.
. "$(dirname "$0")/lib.sh"

CHECK=$TOOLS/selfmon/check
[ -x "$CHECK" ] || { echo "FAIL: $CHECK not built (make selfmon)"; exit 1; }
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
grp=emonself$$
groupadd -f "$grp" 2>/dev/null || skip "cannot add a group (groupadd)"
trap 'groupdel "$grp" 2>/dev/null; cleanup' EXIT
gid=$(getent group "$grp" | cut -d: -f3)
chmod 755 "$TMP"
S=$TMP/run/emon.sock
PIN=/sys/fs/bpf/emon-test-$$

# a kernel without pidfds of threads (before 6.9: Debian 12's 6.1 in
# tests/vm/) has no self-monitoring: serve --threads says so in one line,
# exit 1, and nothing else here can run
if ! "$PY3" -c 'import os, threading; os.close(os.pidfd_open(threading.get_native_id(), os.O_EXCL))' 2>/dev/null; then
	"$EMON" serve -e cpu-clock --threads 8 --socket "$S" --listen none >/dev/null 2>"$TMP/old.err"
	rc=$?
	echo "      $(uname -r): exit $rc: $(cat "$TMP/old.err")"
	check "no pidfds of threads here: serve --threads exits 1 with one line naming them and Linux 6.9" \
		[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/old.err")" -eq 1 ] && grep -q "pidfds of threads (Linux 6.9" "$TMP/old.err"
	finish
fi

# bad input: exit 2, one line naming the culprit, nothing left behind
for args in "--threads 0" "--threads lots" "--threads 8 --pin-dir relative" \
	"--threads 8 --pin-dir $TMP/plain/dir"; do
	"$EMON" serve -e cpu-clock $args --socket "$TMP/bad/e.sock" --listen none \
		>/dev/null 2>"$TMP/bad.err"
	rc=$?
	culprit=${args##* }
	check "serve $args: exit 2, one line naming '$culprit' ($rc: $(head -1 "$TMP/bad.err"))" \
		bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$TMP/bad.err') -eq 1 ] &&
			 grep -qF -- '$culprit' '$TMP/bad.err' && [ ! -e '$TMP/bad/e.sock' ]"
done
# small maps and few kept keys: the daemon's own memory then stays put
# whatever the other processes of this host do, and the churn's shows
DOPTS=(-v -e cpu-clock,context-switches --threads 32 --pin-dir "$PIN" --socket-group "$grp"
	--listen none --max-procs 1024 --max-cgroups 256 --max-keys 100 --retain 0)
serve_start "$S" "$TMP/serve.err" "${DOPTS[@]}" || exit 1
check "slot arrays pinned in --pin-dir for root alone: directory 0700, pin 0400" \
	[ "$(stat -c '%U %a' "$PIN") $(stat -c '%U %a' "$PIN/self_arrays")" = "root 700 root 400" ]

# thread_checks FILE WHO: every "thread K:" line of FILE: cpu-clock within
# 1% of the thread's CPU time, switches exactly the kernel's; $n: how many
thread_checks() {
	local f=$1 who=$2 k clk ref sw swref
	n=0
	while read -r k clk ref sw swref; do
		n=$((n + 1))
		check "$who thread $k: cpu-clock = CLOCK_THREAD_CPUTIME_ID change (1%)" near "$clk" "$ref" 1
		check "$who thread $k: context switches = voluntary + involuntary in its status (exact)" \
			near "$sw" "$swref" 0
	done < <(sed -n 's/^thread \([0-9]*\): cpu_clock \([0-9]*\) vs cputime \([0-9]*\) ns, switches \([0-9-]*\) vs proc \([0-9]*\)$/\1 \2 \3 \4 \5/p' "$f")
	grep '^thread .*error' "$f"
}

"$CHECK" accuracy "$S" 1 >"$TMP/acc.out" 2>&1
cat "$TMP/acc.out"
thread_checks "$TMP/acc.out" "one"
check "the thread that burned, slept and yielded for 1 s read its counts" [ "$n" = 1 ]

"$CHECK" threads "$S" 8 1 >"$TMP/threads.out" 2>&1
cat "$TMP/threads.out"
thread_checks "$TMP/threads.out" "8 at once:"
check "8 threads at once each read their own counts" [ "$n" = 8 ]
check "the reading process holds no perf_event fd" grep -q '^perf_event fds: 0$' "$TMP/threads.out"

setpriv --reuid=65534 --regid=65534 --groups="$gid" "$CHECK" accuracy "$S" 0.5 \
	>"$TMP/nobody.out" 2>&1
cat "$TMP/nobody.out"
thread_checks "$TMP/nobody.out" "nobody in the group:"
check "an unprivileged reader in --socket-group reads its counts" [ "$n" = 1 ]

setpriv --reuid=12345 --regid=12345 --clear-groups "$CHECK" steal "$S" self >"$TMP/out.out" 2>&1
cat "$TMP/out.out"
check "a user outside --socket-group cannot reach the daemon" grep -q 'connect: Permission denied' "$TMP/out.out"

sleep 30 &
victim=$!
BG_PIDS+=($victim)
setpriv --reuid=65534 --regid=65534 --groups="$gid" "$CHECK" steal "$S" $victim >"$TMP/steal.out" 2>&1
cat "$TMP/steal.out"
check "nobody cannot register root's thread $victim: EPERM" grep -q "^error 1: thread $victim is not a thread of the caller" "$TMP/steal.out"
"$CHECK" steal "$S" $victim >"$TMP/steal2.out" 2>&1
check "nor can another root process: EPERM" grep -q "^error 1: " "$TMP/steal2.out"
"$CHECK" steal "$S" self >"$TMP/own.out" 2>&1
cat "$TMP/own.out"
check "while its own thread registers" grep -q "^granted" "$TMP/own.out"
check "the array's fd maps for reading" grep -q "^mmap for reading: allowed" "$TMP/own.out"
check "but not for writing, nor can the mapping be made writable, the map updated or written: frozen" \
	bash -c "grep -q '^mmap for writing: Operation not permitted' '$TMP/own.out' &&
		 grep -q '^mprotect to write: Permission denied' '$TMP/own.out' &&
		 grep -q '^bpf() update: Operation not permitted' '$TMP/own.out' &&
		 grep -q '^write(): Invalid argument' '$TMP/own.out'"

# live_slots: slots of a thread in every uid's array, found from the
# pinned array of arrays (its values: map ids; a slot's state: bytes 4-7)
live_slots() {
	bpftool map dump pinned "$PIN/self_arrays" -j | "$PY3" -c '
import json, subprocess, sys
n = 0
for e in json.load(sys.stdin):
    mid = int.from_bytes(bytes(int(b, 16) for b in e["value"]), "little")
    out = subprocess.run(["bpftool", "map", "dump", "id", str(mid), "-j"],
                         capture_output=True, text=True, check=True).stdout
    n += sum(1 for s in json.loads(out) if int(s["value"][4], 16) == 1)
print(n)'
}

# wait_no_live: the daemon takes a slot back once the thread's pidfd says
# it exited: poll up to 5 s
wait_no_live() {
	local n
	for _ in $(seq 100); do
		n=$(live_slots)
		[ "$n" = 0 ] && break
		sleep 0.05
	done
	echo "$n"
}

n=$(wait_no_live)
check "threads that exited gave their slots back ($n in use)" [ "$n" = 0 ]
rss0=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$DPID/status)
fd0=$(ls /proc/$DPID/fd | wc -l)
"$CHECK" churn "$S" 10000 16 >"$TMP/churn.out" 2>&1
cat "$TMP/churn.out"
check "10,000 threads registered and read through 32 slots (reused)" \
	grep -q '^churn: 10000 registered and read, 0 failed$' "$TMP/churn.out"
n=$(wait_no_live)
rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$DPID/status)
fd=$(ls /proc/$DPID/fd | wc -l)
echo "      daemon: RSS $rss0 -> $rss kB, fds $fd0 -> $fd, slots in use after: $n"
check "every slot back once they exited" [ "$n" = 0 ]
check "daemon fds as before (one pidfd per registered thread, closed)" [ "$fd" = "$fd0" ]
check "daemon memory bounded: RSS grew by at most $RSS_SLACK_KB kB" [ $((rss - rss0)) -le $RSS_SLACK_KB ]

# SIGKILL leaves the pin (nothing runs to remove it); the next daemon
# replaces it and removes it at its own exit
kill -KILL $DPID
wait $DPID 2>/dev/null
check "after SIGKILL the pin is still there" [ -e "$PIN/self_arrays" ]
serve_start "$S" "$TMP/serve2.err" "${DOPTS[@]}" || exit 1
check "the next daemon replaces it" grep -q "self_arrays: left by a daemon that did not end cleanly: replaced" "$TMP/serve2.err"

"$CHECK" hold "$S" >"$TMP/hold.out" 2>&1 &
HOLD=$!
BG_PIDS+=($HOLD)
for _ in $(seq 250); do
	grep -q registered "$TMP/hold.out" && break
	sleep 0.02
done
check "a reader is reading" grep -q registered "$TMP/hold.out"
kill -TERM $DPID
wait $DPID
rc=$?
check "SIGTERM: exit 0 ($rc)" [ $rc -eq 0 ]
check "nothing left pinned: $PIN is gone" [ ! -e "$PIN" ]
check "the socket is gone" [ ! -e "$S" ]
wait $HOLD
rc=$?
cat "$TMP/hold.out"
check "the reader's next read fails with ESHUTDOWN, not garbage ($rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q '^read: -108 ' '$TMP/hold.out'"
finish
