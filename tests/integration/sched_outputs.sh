#!/usr/bin/env bash
# --sched in all four outputs, through the daemon and without it:
#   - serve --sched; stat --sched attaches to it (no BPF of its own) and its
#     JSON rows carry "sched" with every field the issue names; a burner's
#     process row there = the kernel's figures of its life (on-CPU 1%,
#     run-queue wait 2%, timeslices = histogram count +-2)
#   - /metrics: emon_<scope>_runqueue_latency_seconds as a histogram
#     (cumulative _bucket{le}, +Inf = _count) and the _total counters;
#     promtool finds nothing wrong; the cgroup's wait there = its burners'
#     run_delay since they joined (2% + the moves' own + their lives
#     outside the spans they measured)
#   - the same run's process rows add up to the system row, field by field
#     and bucket by bucket (each slice goes to one CPU, cgroup, process)
#   - text: the sched lines and, with --sched-hist, runqlat's histogram
#     layout; CSV: the eight scalar fields per row
#   - exited processes' rows carry their exit code or signal
#   - stat --sched against a daemon without it counts with its own events
#     and says why
. "$(dirname "$0")/lib.sh"
SW=$TOOLS/sched-work

S=$TMP/run/emon.sock
MPORT=$(free_port)
serve_start "$S" "$TMP/serve.err" --sched -e cpu-clock --listen 127.0.0.1:$MPORT || exit 1
cg=$(cg_new w)
"$EMON" stat --sched -a -e cpu-clock -G "$cg" --by system,cgroup,process --json-rows \
	-o "$TMP/d.jsonl" --socket "$S" -- sh -c "
	taskset -c 1 $SW -c $CGROOT$cg spin 0.2 >$TMP/a.json &
	taskset -c 1 $SW -c $CGROOT$cg spin 0.2 >$TMP/b.json &
	wait" 2>"$TMP/d.err"
check "stat --sched exits 0" [ $? -eq 0 ]
check "and attached to the daemon" grep -q "attached to the daemon (pid $DPID" "$TMP/d.err"
check "JSON rows carry every sched field" "$PY3" -c '
import json, sys
want = {"on_cpu_ns", "runq_wait_ns", "sleep_ns", "blocked_ns", "migrations", "wakeups",
        "vol_switches", "invol_switches", "runq_latency_us"}
rows = [json.loads(l) for l in open(sys.argv[1])]
# and "exit" in the final rows of processes that ended
sys.exit(0 if rows and all(set(r["sched"]) - {"exit"} == want for r in rows) else 1)' "$TMP/d.jsonl"
# truth FILE FIELD [LINE]
truth() {
	"$PY3" -c 'import json, sys; print(json.loads(open(sys.argv[1]).readlines()[int(sys.argv[3]) if len(sys.argv) > 3 else 0])[sys.argv[2]])' "$@"
}
pid=$(truth "$TMP/a.json" pid) span=$(truth "$TMP/a.json" span_ns)
# what it did outside the span it measured itself (its start, its exit):
# its final row's lifetime less the span (lib.sh life_outside_ns)
tail=$(life_outside_ns "$TMP/d.jsonl" "$pid" "$span")
echo "      burner: $((tail / 1000)) us of its life outside its span"
check "through the daemon: burner's on-CPU = schedstat's within 1% (+ its tail)" \
	near_plus "$(jsched "$TMP/d.jsonl" process "$pid" on_cpu_ns)" "$(truth "$TMP/a.json" on_cpu_ns)" 1 "$tail"
check "through the daemon: burner's wait = run_delay within 2% (+ its tail)" \
	near_plus "$(jsched "$TMP/d.jsonl" process "$pid" runq_wait_ns)" "$(truth "$TMP/a.json" run_delay_ns)" 2 "$tail"
n=$(jsched "$TMP/d.jsonl" process "$pid" hist) t=$(truth "$TMP/a.json" pcount)
# +-2, or 2% of them: a switch-out the kernel keeps out of its tracepoint
# (this sandbox's agent, see untraced_ns) hides the wait after it from
# every tracepoint-based tool, runqlat too (seen: 180 of 183); and its
# tail at the span's rate
tol=$(( (t / 50 > 2 ? t / 50 : 2) + (t * tail + span - 1) / span ))
check "through the daemon: histogram count $n = timeslices $t (+-$tol)" [ $((n - t)) -le $tol -a $((t - n)) -le $tol ]
check "process rows add up to the system row, every field and bucket" "$PY3" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def vec(r):
    s = r["sched"]
    h = dict(s["runq_latency_us"])
    return [s[k] for k in sorted(s) if k not in ("runq_latency_us", "exit")] + [h.get((1 << (i + 1)) - 1, 0) for i in range(26)]
sysv = vec(next(r for r in rows if r["scope"] == "system"))
tot = [sum(x) for x in zip(*[vec(r) for r in rows if r["scope"] == "process"])]
print("      system", sysv[:8], "processes", tot[:8])
sys.exit(0 if tot == sysv else 1)' "$TMP/d.jsonl"

# /metrics, the same daemon
curl -sf "http://127.0.0.1:$MPORT/metrics" >"$TMP/m.txt"
check "/metrics answers" [ -s "$TMP/m.txt" ]
both() {
	grep -q -e "^emon_cgroup_$1{cgroup=\"$cg\"" "$TMP/m.txt" &&
		grep -q -e "^emon_system_$1[{ ]" "$TMP/m.txt"
}
for f in runqueue_wait_seconds_total sleep_seconds_total blocked_seconds_total migrations_total \
	 runqueue_latency_seconds_bucket runqueue_latency_seconds_sum runqueue_latency_seconds_count; do
	check "/metrics has emon_cgroup_$f and emon_system_$f" both "$f"
done
check "the histogram is a histogram" grep -q "^# TYPE emon_cgroup_runqueue_latency_seconds histogram" "$TMP/m.txt"
if command -v promtool >/dev/null; then
	promtool check metrics <"$TMP/m.txt" >"$TMP/promtool.out" 2>&1
	check "promtool check metrics exits 0 and prints nothing" [ $? -eq 0 -a ! -s "$TMP/promtool.out" ]
	cat "$TMP/promtool.out"
fi
check "buckets are cumulative, +Inf = _count, for the cgroup" "$PY3" -c '
import re, sys
cg, prev, inf, cnt = sys.argv[2], -1, None, None
for l in open(sys.argv[1]):
    m = re.match(r"emon_cgroup_runqueue_latency_seconds_(bucket|count)\{cgroup=\"([^\"]*)\"(?:,le=\"([^\"]*)\")?\} (\S+)", l)
    if not m or m.group(2) != cg:
        continue
    v = float(m.group(4))
    if m.group(1) == "count":
        cnt = v
    elif m.group(3) == "+Inf":
        inf = v
    else:
        assert v >= prev, l
        prev = v
print(f"      +Inf {inf}, _count {cnt}")
sys.exit(0 if inf is not None and inf == cnt and inf >= prev else 1)' "$TMP/m.txt" "$cg"
# (+ what each did outside the span it measured: lib.sh life_outside_ns)
cg_wait=0 join_wait=0 tails=0
for w in a b; do
	cg_wait=$((cg_wait + $(truth "$TMP/$w.json" cg_delay_ns 1)))
	join_wait=$((join_wait + $(truth "$TMP/$w.json" join_delay_ns 1)))
	tails=$((tails + $(life_outside_ns "$TMP/d.jsonl" "$(truth "$TMP/$w.json" pid)" \
		"$(truth "$TMP/$w.json" span_ns)")))
done
mw=$(awk -v k="emon_cgroup_runqueue_wait_seconds_total{cgroup=\"$cg\"}" '$1 == k { printf "%.0f", $2 * 1e9 }' "$TMP/m.txt")
check "/metrics: the cgroup's wait = its burners' run_delay since they joined (2% + $((join_wait / 1000)) us of moves + $((tails / 1000)) us outside their spans)" \
	"$PY3" -c "import sys; a, b = $mw, $cg_wait; print(f'      {a} vs {b}'); sys.exit(0 if abs(a - b) <= 0.02 * b + $join_wait + $tails else 1)"

# text and CSV, own events
"$EMON" stat --sched-hist -e cpu-clock --no-daemon -o "$TMP/t.txt" -- $SW sleep-loop 0.2 1000 100 >/dev/null
check "text: the sched lines" grep -q -E '^ +[0-9.,]+ msec runq-wait' "$TMP/t.txt"
check "text: runqlat's histogram header and rows" sh -c "grep -q 'usecs *: count    distribution' '$TMP/t.txt' && grep -q -E '^ +[0-9]+ -> [0-9]+ +: [0-9]+ +\|\**' '$TMP/t.txt'"
"$EMON" stat --sched -e cpu-clock --no-daemon -x, -o "$TMP/c.csv" -- $SW sleep-loop 0.1 1000 100 >/dev/null
for f in on_cpu_ns runq_wait_ns sleep_ns blocked_ns migrations wakeups vol_switches invol_switches; do
	# the command's row: perf stat CMD's layout, no key; -G's empty cgroup
	check "CSV: $f" grep -q -E "^[0-9]+,(ns)?,$f,,,,,\$" "$TMP/c.csv"
done
"$EMON" stat --sched-ms -e cpu-clock --no-daemon --json-rows -o "$TMP/ms.jsonl" -- $SW sleep-loop 0.1 1000 100 >/dev/null
check "--sched-ms: the histogram is runq_latency_ms" grep -q '"runq_latency_ms":\[' "$TMP/ms.jsonl"

# exited processes' final rows: exit code, signal
"$EMON" stat --sched -e cpu-clock --no-daemon --by process --json-rows -o "$TMP/x.jsonl" -- \
	sh -c 'sh -c "exit 3"; sh -c "kill -TERM \$\$"; :' 2>/dev/null
check "exit rows: one sh with exit code 3, one killed by SIGTERM (15)" "$PY3" -c '
import json, sys
ex = [r["sched"]["exit"] for r in map(json.loads, open(sys.argv[1])) if "exit" in r["sched"]]
print("      ", ex)
sys.exit(0 if any(e["exit_code"] == 3 and e["signal"] == 0 for e in ex) and
         any(e["signal"] == 15 for e in ex) else 1)' "$TMP/x.jsonl"

# a daemon without --sched cannot serve it
S2=$TMP/run2/emon.sock
serve_start "$S2" "$TMP/serve2.err" -e cpu-clock --listen none || exit 1
"$EMON" stat --sched -e cpu-clock --socket "$S2" --timeout 200 -o /dev/null 2>"$TMP/own.err"
check "stat --sched exits 0 with a daemon without it" [ $? -eq 0 ]
check "and says it counts with its own events, and why" grep -q "runs without --sched: counting with own events" "$TMP/own.err"
finish
