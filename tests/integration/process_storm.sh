#!/usr/bin/env bash
# A process storm in a cgroup: as many short processes per second as this
# machine makes (tools/forker, vfork + _exit; the aim is 10,000/s, at
# least STORM_MIN_RATE, 2,000, must be reached) for
# STORM_S seconds (5 here, 30 in tests/stress/process_storm.sh). All of it
# is counted: every process has a process row, the cgroup's cpu-clock and
# context switches match perf stat -G (task-clock: PERF_TIME in lib.sh)
# in the same run within 1% and
# cpu.stat within 5% (plus steal); per interval the process rows, overflow
# included, add up to the system row; no overflow at the default map sizes,
# or an overflow row and a warning that say how much; emon-perf's memory
# (RSS, sampled) stays bounded and flat; nothing on stderr.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"

secs=${STORM_S:-5}
# the aim is 10,000/s; what this machine reaches is printed, and below
# STORM_MIN_RATE it is not a storm (a loaded 2-CPU VM made 9,000-22,000,
# and 4,064 once, in a CI-like run whose every check but this one held)
min_rate=${STORM_MIN_RATE:-2000}
jobs=$(($(nproc) * 2))
c=$(cg_new storm)
u0=$(cg_usage_ns "$c") st0=$(steal_ns)
"$EMON" stat -a --energy none -e cpu-clock,context-switches -G "$c" --by system,cgroup,process \
	-I 500 --json-rows -o "$TMP/out.jsonl" -- \
	perf stat -a -x, -e $PERF_TIME,context-switches -G "${c#/},${c#/}" -o "$TMP/perf.csv" -- \
	"$FORKER" -d "$secs" -j $jobs -c "$CGROOT$c" -o "$TMP/forker.txt" 2>"$TMP/err" &
epid=$!
sample_proc $epid "$TMP/rss" 0.25
wait $epid
rc=$?
u=$(($(cg_usage_ns "$c") - u0)) steal=$(($(steal_ns) - st0))
unt=$(untraced_ns "$TMP/out.jsonl")	# time whose owner emon-perf estimated (lib.sh)
check "stat exits 0" [ $rc -eq 0 ]
cat "$TMP/forker.txt"
procs=$(sed -n 's/.*procs=\([0-9]*\).*/\1/p' "$TMP/forker.txt")
rate=$(sed -n 's/.*rate=\([0-9.]*\).*/\1/p' "$TMP/forker.txt")
echo "      $procs processes in $secs s: $rate/s with emon-perf and perf stat -G attached (aim: 10,000/s)"
check "the storm reached $min_rate processes/s" "$PY3" -c "import sys; sys.exit(not $rate >= $min_rate)"

"$PY3" - "$TMP/out.jsonl" "$procs" "$jobs" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for l in open(sys.argv[1]):
    r = json.loads(l)
    rows[r["interval"]].append(r)
procs, jobs = int(sys.argv[2]), int(sys.argv[3])
bad = 0
seen = 0
ovf = collections.Counter()
for t in sorted(rows):
    system = next(r for r in rows[t] if r["scope"] == "system")["counters"]
    pr = [r for r in rows[t] if r["scope"] == "process"]
    for ev, v in system.items():
        s = sum(r["counters"][ev] for r in pr)
        if s != v:
            print(f"FAIL  t={t} process rows {ev}: sum {s} != system {v}")
            bad += 1
    # a forker child shows as a process named forker; the workers and
    # the main process are forker too (1 + jobs per interval at most)
    seen += sum(1 for r in pr if r.get("comm") == "forker")
    for r in pr:
        if r["key"] == "overflow":
            ovf[t] = r["counters"]["cpu-clock"]
print(f"      {len(rows)} intervals; process rows named forker: {seen} for {procs} children + {jobs + 1} parents")
if ovf:
    print(f"      overflow rows in {len(ovf)} intervals: {sum(ovf.values()) / 1e6:.1f} ms of cpu-clock")
# every child has at least one row; one spanning an interval edge has two
# (a pid used twice within one 500 ms interval would merge two rows: with
# pid_max 32768 that takes more than 65,000 processes/s)
lo, hi = procs, procs + (jobs + 1) * len(rows) + 2 * jobs * len(rows)
print(f"      expected {lo} <= rows <= {hi}")
with open(sys.argv[1] + ".res", "w") as f:
    f.write(f"{int(not bad)} {int(lo <= seen <= hi)} {len(ovf)}\n")
PY
read -r cons seen_ok novf <"$TMP/out.jsonl.res"
check "process rows (overflow included) add up to the system row, every interval" [ "$cons" = 1 ]
check "every short-lived process has a process row, or an overflow row took it" [ "$seen_ok" = 1 -o "$novf" -gt 0 ]
if [ "$novf" -eq 0 ]; then
	check "no overflow at the default sizes: no warning" [ ! -s "$TMP/err" ]
else
	echo "      overflow at the default map sizes in $novf intervals; stderr:"
	sed 's/^/      | /' "$TMP/err"
	check "the overflow is said once on stderr, with how much" \
		[ "$(grep -c 'map full.*slices counted' "$TMP/err")" -eq 1 ]
	check "nothing else on stderr" [ "$(grep -vc 'map full' "$TMP/err")" -eq 0 ]
fi

e=$(jsum_counter "$TMP/out.jsonl" cgroup "$c" cpu-clock)
ecs=$(jsum_counter "$TMP/out.jsonl" cgroup "$c" context-switches)
p=$(perf_csv_ns "$TMP/perf.csv" "$PERF_TIME")
pcs=$(awk -F, '$3 == "context-switches" { print $1 }' "$TMP/perf.csv")
echo "      cgroup cpu-clock: emon-perf $e, perf -G $p, cpu.stat $u (ns); steal $((steal / 1000000)) ms"
sys=$(jsum_counter "$TMP/out.jsonl" system all cpu-clock)
check "the cgroup's cpu-clock matches perf stat -G within 1% (+ its part of the steal, + untraced time)" \
	near_steal "$e" "$p" 1 "$(( $(steal_part "$steal" "$e" "$sys") + unt ))"
check "the cgroup's context-switches match perf stat -G within 1%" near "$ecs" "$pcs" 1
check "the cgroup's cpu-clock matches cpu.stat within 5% (+ steal + untraced time)" near_steal "$e" "$u" 5 "$((steal + unt))"

"$PY3" - "$TMP/rss" "$secs" "$TMP/out.jsonl" <<'PY'
import collections, json, os, sys
secs = float(sys.argv[2])
s = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 3]
if len(s) < 4:
    print(f"FAIL  only {len(s)} RSS samples")
    sys.exit(1)
t0 = s[0][0]
half = (s[-1][0] - t0) / 2
first = max(r for t, r, f in s if t - t0 <= half)
second = max(r for t, r, f in s if t - t0 > half)
peak = max(r for t, r, f in s)
print(f"      RSS: {len(s)} samples, first half max {first / 1024:.1f} MiB, "
      f"second half max {second / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB")
# Memory follows the busiest interval (per-read buffers, the interval's
# entries and rows, pooled), which a 5 s storm may reach late: it grows
# with the processes of one interval, not with the run. Bounded: at most
# a 32 MiB base and 5 KiB per process row of the busiest interval (3.4-3.8
# here, 3.7-4.5 with glibc's heap defaults, whose holes once took a CI run
# to 5.1: make bench-memory, front/heap.c; every count carries the
# scheduler view's block, struct emon_sched, 288 of its 544 bytes, with
# --sched or not, and a key lives in the engine's totals and in two
# snapshots, its interval's and the one before); 3 times that
# under make asan (ASan's shadow and redzones). A machine that forks 85,000
# processes/s fills 42,000 rows a 500 ms interval: 240 MiB. Flat (no leak:
# 100 B per process would be 10+ MiB) is asserted on the 30 s stress run,
# whose second half comes long after the peak.
# On a busy machine the busiest interval can come late in a 30 s run too
# (a read held back by the load covers more of the storm: seen 73.9 ->
# 85.6 MiB): what the second half's busiest interval has beyond the
# first half's (process rows) is allowed at the first half's own memory
# per row of its busiest interval (an upper bound: the base is in it;
# 4.6 KiB here, 110 MiB for 24,756 rows).
rows = collections.Counter()
for l in open(sys.argv[3]):
    r = json.loads(l)
    rows[r["interval"]] += r["scope"] == "process"
busy1 = max((n for t, n in rows.items() if t <= half), default=0)
busy2 = max((n for t, n in rows.items() if t > half), default=0)
per_row = first / busy1 if busy1 else 0
more = max(0, busy2 - busy1) * per_row
print(f"      busiest interval: {busy1} process rows in the first half ({per_row:.1f} KiB a row), "
      f"{busy2} in the second (+{more / 1024:.1f} MiB allowed)")
flat = second <= first * 1.10 + 4096 + more
bound_mib = (32 + max(busy1, busy2) * 5 / 1024) * (3 if os.environ.get("SAN_LOGS") else 1)
bounded = peak <= bound_mib * 1024
print(f"      bounded (<= {bound_mib:.0f} MiB): {bounded}; flat: {flat}" + ("" if secs >= 20 else " (not asserted: short run)"))
sys.exit(0 if bounded and (flat or secs < 20) else 1)
PY
rc=$?
what="RSS bounded (<= 32 MiB + 5 KiB a process row of the busiest interval, 3 times that under make asan)"
[ "$secs" -ge 20 ] && what="$what, and flat (second half <= first half + 10% + 4 MiB, + the first half's KiB a row for the rows its busiest interval has beyond the first half's)"
check "$what" [ $rc -eq 0 ]
finish
