#!/usr/bin/env bash
# stat without -e counts perf 6.1's default events, in perf's order, and
# reads well on a machine that lacks some (issue 33, item 1):
#  - the event names of `stat -- true` and `stat -a -- sleep 0.1` (-x,)
#    are perf's for the same commands here: task-clock for a command,
#    cpu-clock system-wide, then context-switches, cpu-migrations,
#    page-faults, cycles, instructions, branches, branch-misses;
#  - the default page-faults of a command that touches 64 MiB are its
#    own count (getrusage's minor + major faults, read by the command
#    before it exits; at most its exit's faults more, and less only by
#    the faults of time whose owner was estimated after an untraced
#    switch);
#  - where events are <not supported> (no PMU here): the system row has
#    their lines, as perf; the process and cgroup rows do not; stderr
#    names them once; JSON keeps them on every row, null;
#  - --top N: of the process and cgroup rows, the N with the most
#    cpu-clock, the most first;
#  - a daemon with its default events serves stat's defaults: stat -a
#    and a command (task-clock from its cpu-clock) attach.
. "$(dirname "$0")/lib.sh"

names() { grep -v "^#" "$1" | cut -s -d, -f3 | grep -v '^$' | tr '\n' ' '; }
perf stat -x, -o "$TMP/perf1.csv" -- true || skip "perf stat does not run here"
"$EMON" stat -x, -o "$TMP/emon1.csv" -- true
check "stat -- true: perf's default events in its order ($(names "$TMP/emon1.csv"))" \
	[ "$(names "$TMP/emon1.csv")" = "$(names "$TMP/perf1.csv")" ]
perf stat -a -x, -o "$TMP/perf2.csv" -- sleep 0.1
"$EMON" stat -a -x, -o "$TMP/emon2.csv" -- sleep 0.1
check "stat -a: perf's default events in its order ($(names "$TMP/emon2.csv"))" \
	[ "$(names "$TMP/emon2.csv")" = "$(names "$TMP/perf2.csv")" ]

# a command's page faults: its own getrusage before its exit, on stdout.
# A slice that followed a switch the kernel did not trace (this
# sandbox's hidden threads, lib/steal.sh) is split by CFS run time, its
# faults with it: those of the untraced time (-v's figure, at the run's
# own rate of faults per task-clock) may have gone to another task.
"$EMON" stat -v -x, -o "$TMP/pf.csv" -- "$PY3" -c '
import resource
b = bytearray(64 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
r = resource.getrusage(resource.RUSAGE_SELF)
print(r.ru_minflt + r.ru_majflt)' >"$TMP/pf.out" 2>"$TMP/pf.err"
pf=$(awk -F, '$3 == "page-faults" { print $1 }' "$TMP/pf.csv")
clk=$(awk -F, '$3 == "task-clock" { printf "%.0f\n", $1 * 1e6 }' "$TMP/pf.csv")
unt=$(untraced_v_ns "$TMP/pf.err")
own=$(cat "$TMP/pf.out")
check "page-faults of a command touching 64 MiB: $pf, its getrusage $own (+ 5% + 300 for its exit; - those of $unt ns untraced of $clk)" \
	"$PY3" -c "import sys; sys.exit(not ($own - $(untraced_count "$pf" "$unt" "$clk") <= ${pf:-0} <= $own * 1.05 + 300))"

# rows of emon-perf's own scopes: no <not supported> lines
"$EMON" stat -a --by system,cgroup,process --timeout 500 -o "$TMP/rows.txt" 2>"$TMP/rows.err"
"$EMON" stat -a --by system,process --timeout 300 --json-rows -o "$TMP/rows.jsonl"
if grep -q '<not supported> *cycles$' "$TMP/rows.txt"; then
	check "process and cgroup rows print no <not supported> lines" \
		[ "$(grep -c '<not supported>.*\(pid \|  /\)' "$TMP/rows.txt")" -eq 0 ]
	check "the system row keeps them (4: cycles to branch-misses)" \
		[ "$(grep -c '<not supported>' "$TMP/rows.txt")" -eq 4 ]
	check "stderr names them once: $(grep -o 'not supported here: [^(]*' "$TMP/rows.err")" \
		[ "$(grep -c 'not supported here: cycles, instructions, branches, branch-misses (' "$TMP/rows.err")" -eq 1 ]
	check "JSON keeps them on every process row, null" "$PY3" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
p = [r for r in rows if r["scope"] == "process"]
sys.exit(not p or any(r["counters"].get("cycles", 0) is not None for r in p))' "$TMP/rows.jsonl"
else
	echo "      this machine counts cycles: the <not supported> checks do not apply"
fi
check "process rows keep their counted events" grep -q 'cpu-clock  *pid ' "$TMP/rows.txt"

cg_new a >/dev/null
cg_burners 3 "$TESTCG/a"
"$EMON" stat -a --by system,cgroup,process --top 3 -I 500 --interval-count 2 --json-rows \
	-o "$TMP/top.jsonl" 2>/dev/null
"$PY3" - "$TMP/top.jsonl" "$TESTCG/a" "${BURNERS[0]}" >"$TMP/top.out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
bad = 0
for t in sorted({r["interval"] for r in rows}):
    iv = [r for r in rows if r["interval"] == t]
    for s in ("cgroup", "process"):
        v = [r["counters"]["cpu-clock"] for r in iv if r["scope"] == s]
        ok = 0 < len(v) <= 3 and v == sorted(v, reverse=True)
        print(f"      {t:.3f} s {s}: {len(v)} rows, cpu-clock {[round(x / 1e6) for x in v]} ms")
        bad += not ok
    bad += not any(r["scope"] == "system" for r in iv)
print(f"      the burner's cgroup and process in the last interval: "
      f"{any(r['key'] == sys.argv[2] for r in iv)}, {any(str(r['key']) == sys.argv[3] for r in iv)}")
sys.exit(bad)
PY
check "--top 3: at most 3 cgroup and process rows, the most cpu-clock first" [ $? -eq 0 ]
cat "$TMP/top.out"

serve_start "$TMP/emon.sock" "$TMP/serve.err" || finish
"$EMON" stat --socket "$TMP/emon.sock" -a --timeout 300 -x, -o "$TMP/att1.csv" 2>"$TMP/att1.err"
check "a default daemon serves stat -a's defaults: attached" grep -q 'attached to the daemon' "$TMP/att1.err"
"$EMON" stat --socket "$TMP/emon.sock" -x, -o "$TMP/att2.csv" -- "$BURN" 0.2 2>"$TMP/att2.err"
check "and a command's (task-clock): attached" grep -q 'attached to the daemon' "$TMP/att2.err"
t=$(awk -F, '$3 == "task-clock" { print $1 }' "$TMP/att2.csv")
check "the command's task-clock from the daemon's cpu-clock: $t ms of a 200 ms burner" \
	"$PY3" -c "import sys; sys.exit(not (150 <= ${t:-0} <= 400))"
finish
