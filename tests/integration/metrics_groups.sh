#!/usr/bin/env bash
# stat -M and {groups} on this machine:
#  - -M CPUs_utilized of a cgroup running one 1 s burner, times the run's
#    length (the JSON row's interval), against the cgroup's cpu.stat
#    usage over the same run: within 3% + the steal and untraced time
#    (cgroup_cpustat.sh's tolerances), and equal to its cpu-clock over
#    the interval (the formula);
#  - -e cpu-clock -M IPC where the PMU cannot count cycles: JSON null, text
#    '<not supported>' on the instructions line and one stderr line
#    naming the event, never 0 (on a machine with a PMU: a number > 0);
#  - -e '{cpu-clock,page-faults}' over a command that touches 16 MB:
#    page-faults within 10% of perf stat's for the same command, scaled
#    by one pair (ratio 1.0), and the group's perf_events: one per CPU
#    for page-faults (cpu-clock comes from the switch), two in the
#    counter pass (EMON_SWITCH_EVENTS=counters), where they are one
#    kernel group whose leader is enabled after its member joined;
#  - --metric-only prints no event names, list metrics every formula.
. "$(dirname "$0")/lib.sh"

a=$(cg_new a)
ua0=$(cg_usage_ns "$a") st0=$(steal_ns)
"$EMON" stat -a -M CPUs_utilized -G "$a" --json-rows -o "$TMP/cpus.jsonl" -- \
	sh -c "$(declare -f cg_run); CGROOT=$CGROOT; cg_run $a $BURN 1.0 & wait"
rc=$?
steal=$(( $(steal_ns) - st0 ))
unt=$(untraced_ns "$TMP/cpus.jsonl")
ua=$(( $(cg_usage_ns "$a") - ua0 ))
check "stat -M CPUs_utilized exits 0" [ $rc -eq 0 ]
read -r util t clk < <(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["scope"] == "cgroup" and r["key"] == sys.argv[2]:
        print(r["metrics"]["CPUs_utilized"], r["interval"], r["counters"]["cpu-clock"])' \
	"$TMP/cpus.jsonl" "$a")
echo "      cgroup $a: CPUs_utilized $util over $t s, cpu.stat $ua ns"
check "CPUs_utilized x run = cpu.stat usage within 3% (+ steal + untraced time)" \
	near_steal "$(python3 -c "print(round($util * $t * 1e9))")" "$ua" 3 "$((steal + unt))"
check "CPUs_utilized = cpu-clock / interval" near "$util" \
	"$(python3 -c "print($clk / ($t * 1e9))")" 0.01

# cpu-clock too: without one countable event stat has nothing to count
"$EMON" stat -a -e cpu-clock -M IPC --json-rows -o "$TMP/ipc.jsonl" --timeout 200 2>"$TMP/ipc.err"
check "stat -M IPC exits 0" [ $? -eq 0 ]
ipc=$(jfield "$TMP/ipc.jsonl" system all metrics IPC)
if grep -q "metric IPC is <not supported>" "$TMP/ipc.err"; then
	cat "$TMP/ipc.err"
	check "IPC without cycles is null in JSON, not 0 ($ipc)" [ "$ipc" = null ]
	"$EMON" stat -a -e cpu-clock -M IPC --timeout 100 -o "$TMP/ipc.txt" 2>/dev/null
	check "text: '# <not supported> insn per cycle'" \
		grep -qE "instructions +# <not supported> insn per cycle" "$TMP/ipc.txt"
	check "the reason names the event" grep -q "'instructions' cannot be counted here" "$TMP/ipc.err"
else
	check "IPC with a PMU is a number > 0 ($ipc)" python3 -c "import sys; sys.exit(not $ipc > 0)"
fi

work='for i in 1 2 3 4 5 6 7 8; do head -c 2000000 /dev/zero | cat >/dev/null; done'
"$EMON" stat -e '{cpu-clock,page-faults}' --json-rows -o "$TMP/grp.jsonl" -- sh -c "$work"
check "stat -e '{cpu-clock,page-faults}' exits 0" [ $? -eq 0 ]
pf=$(jcommand "$TMP/grp.jsonl" page-faults)
ratio=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["scope"] == "command":
        print(r.get("ratio", {}).get("page-faults", 1.0))  # no "ratio": every event ran all its time' "$TMP/grp.jsonl")
ref=$(perf stat -x, -e page-faults -- sh -c "$work" 2>&1 | awk -F, '$3 == "page-faults" { print $1 }')
check "page-faults in a group: $pf, perf stat $ref, within 10%" near "$pf" "$ref" 10
check "page-faults scaled by one pair, never multiplexed: ratio $ratio" [ "$ratio" = 1.0 ]

"$EMON" stat -a -e '{cpu-clock,page-faults}' -o /dev/null -- sleep 1 2>/dev/null &
pid=$!
n=0
for _ in $(seq 50); do
	n=$(perf_fds "$pid")
	[ "$n" -gt 0 ] && break
	sleep 0.02
done
want=$(( $(per_mode 1 2) * $(nproc) ))
check "perf_events of the group: $n, $want expected ($(per_mode 'page-faults' 'both') per CPU)" [ "$n" -eq "$want" ]
wait "$pid"

"$EMON" stat -a -M CPUs_utilized --metric-only --timeout 100 -o "$TMP/only.txt" 2>/dev/null
cat "$TMP/only.txt"
check "--metric-only: the metric's unit, no event line" \
	sh -c "grep -q 'CPUs utilized' '$TMP/only.txt' && ! grep -q 'msec cpu-clock' '$TMP/only.txt'"
n=$("$EMON" list metrics | tail -n +2 | wc -l)
check "list metrics: 10 metrics with their formulas ($n)" [ "$n" -eq 10 ]
finish
