#!/usr/bin/env bash
# serve's own seccomp allowlist (daemon/seccomp.c, docs/security.md):
# installed after set-up in every thread, whoever starts the daemon (not
# only systemd's SystemCallFilter). While socket clients, thread slots and
# scrapes run, every task of the daemon shows "Seccomp: 2" (a filter) in
# /proc/PID/task/*/status and it keeps answering; SIGTERM still ends it
# cleanly (its exit's calls are on the list). --no-seccomp leaves it off.
# counter pass: what it checks (the filter) has no counts
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "no curl"
chmod 755 "$TMP"
S=$TMP/run/emon.sock
MPORT=$(free_port)

# seccomp_modes PID: each task's Seccomp field, sorted and counted
seccomp_modes() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '$1 == "Seccomp:" { print $2 }' | sort | uniq -c | xargs; }

serve_start "$S" "$TMP/serve.err" -e cpu-clock,context-switches --energy none \
	--listen 127.0.0.1:$MPORT --threads 8 --pin-dir /sys/fs/bpf/emon-test-$$ --user nobody || exit 1
"$EMON" stat --socket "$S" -e cpu-clock --by process -I 100 -- sh -c 'sleep 0.3; true' \
	>"$TMP/stat.out" 2>&1
check "a socket client's stat: exit 0 ($?)" [ $? -eq 0 ]
code=$(curl -s -o "$TMP/m" -w '%{http_code}' "http://127.0.0.1:$MPORT/metrics")
check "a scrape as root: 200 ($code) with metrics" \
	bash -c "[ '$code' = 200 ] && grep -q '^emon_flushes_total ' '$TMP/m'"
"$TOOLS/selfmon/check" threads "$S" 4 0.5 >"$TMP/self.out" 2>&1
check "libemon's threads get slots and counts (tools/selfmon/check threads: $?)" [ $? -eq 0 ]
n=$(ls /proc/$DPID/task | wc -l) modes=$(seccomp_modes $DPID)
check "all $n tasks of the daemon have a seccomp filter (Seccomp: $modes)" [ "$modes" = "$n 2" ]
check "  and NoNewPrivs 1" [ "$(grep -h NoNewPrivs /proc/$DPID/task/*/status | sort -u | awk '{print $2}')" = 1 ]
check "the daemon is alive after it all" [ -d /proc/$DPID ]
kill -TERM $DPID
wait $DPID
st=$?
check "SIGTERM: exit 0 under the filter ($st)" [ $st -eq 0 ]
check "  the socket removed" [ ! -e "$S" ]

: >"$TMP/serve2.err"
serve_start "$TMP/run2/emon.sock" "$TMP/serve2.err" -e cpu-clock --energy none --listen none --no-seccomp || exit 1
modes=$(seccomp_modes $DPID)
check "--no-seccomp: no filter of its own (Seccomp: $modes)" [ "${modes##* }" != 2 ]
kill -TERM $DPID
wait $DPID
finish
