#!/usr/bin/env bash
# Energy through the daemon: a fake powercap tree advancing at a known
# wattage (20 W, tools/fake-rapl), the daemon reading it, a stat attached
# to it. The attached stat's energy is 20 W x elapsed within 1%, and each
# partition (CPUs, sockets, cgroups, processes, containers) adds up to the
# system's every interval.
. "$(dirname "$0")/lib.sh"

fake_rapl "$TMP/pc" 20 --period-ms 1 || finish
S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock,context-switches --powercap-root "$TMP/pc" \
	--listen none || exit 1
"$EMON" stat -a -e cpu-clock,context-switches --socket "$S" --timeout 2000 \
	--by system,cpu,socket,cgroup,process,container -I 500 --json-rows -o "$TMP/e.jsonl" 2>"$TMP/stat.err"
check "attached stat exits 0" [ $? -eq 0 ]
check "and it is attached" grep -q "attached to the daemon (pid $DPID" "$TMP/stat.err"
t=$("$PY3" -c "import json; print(max(json.loads(l)['interval'] for l in open('$TMP/e.jsonl')))")
e=$(jsum "$TMP/e.jsonl" system energy_j)
echo "      $e J in $t s at 20 W"
check "attached: 20 W x elapsed within 1%" near "$e" "$("$PY3" -c "print(20 * $t)")" 1
energy_partitions "$TMP/e.jsonl" cpu socket cgroup process container
check "attached: attributed energy adds up to the measured energy (every scope, every interval)" [ $? -eq 0 ]
grep -q '"energy_source":"powercap","split_by":"cpu-clock"' "$TMP/e.jsonl"
check "the system row names the daemon's source and split metric" [ $? -eq 0 ]
kill -TERM $DPID
wait $DPID
check "SIGTERM: exit 0" [ $? -eq 0 ]
finish
