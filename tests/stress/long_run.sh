#!/usr/bin/env bash
# A long run under load: emon-perf -a -I 100 with system, cgroup and
# process rows for LONG_S seconds (600; LONG_S=60 to try it quickly)
# while a burner, a steady process storm (500 processes/s) and cgroup
# churn (cgroups made, used and removed all along) run. Its RSS and fd
# count, sampled every second, stay flat: the last window's maximum is at
# most the first window's plus 2 MiB (RSS) and equal (fds), a window
# being a minute (a quarter of shorter runs). It keeps up: every 100 ms
# interval is printed, each with CPUs x interval of cpu-clock (1%), and
# every interval's process rows add up to the system row; nothing on
# stderr; exit 0.
. "$(dirname "$(readlink -f "$0")")/../integration/lib.sh"

secs=${LONG_S:-600}
win=$((secs / 4 < 60 ? secs / 4 : 60))
burn=$(cg_new burn) storm=$(cg_new storm) churn=$(cg_new churn)
cg_bg "$burn" "$BURN" 100000
bp=$CG_BG_PID
cg_bg "$storm" "$FORKER" -d $((secs + 30)) -j 1 -r 500 -o "$TMP/forker.txt"
fp=$CG_BG_PID
cg_bg "$churn" "$CGCHURN" -d $((secs + 30)) -j 1 -w 20 -o "$TMP/churn.txt" "$CGROOT$churn"
cp=$CG_BG_PID
sleep 1
# its read buffers and rows follow the host's busiest interval, up to
# --max-procs and --max-cgroups: kept well above the load's (about 400
# process entries an interval) and low enough that a burst of the host's
# own processes grows them by less than the 2 MiB that would read as a
# leak (the defaults allow 20 MB: a burst elsewhere once moved RSS by
# 2.2 MiB in the last window)
"$EMON" stat -a --energy none -e cpu-clock,context-switches --by system,cgroup,process -I 100 \
	--max-procs 2048 --max-cgroups 512 \
	--timeout $((secs * 1000)) --json-rows -o "$TMP/out.jsonl" 2>"$TMP/err" &
pid=$!
sample_proc $pid "$TMP/samples" 1
wait $pid
rc=$?
kill -TERM $bp $fp $cp 2>/dev/null
wait $bp $fp $cp 2>/dev/null
check "exits 0 after $secs s" [ $rc -eq 0 ]
check "nothing on stderr" [ ! -s "$TMP/err" ]
sed 's/^/      | /' "$TMP/err" | head -5
echo "      load: storm $(cat "$TMP/forker.txt" 2>/dev/null); churn $(cat "$TMP/churn.txt" 2>/dev/null)"

"$PY3" - "$TMP/samples" "$win" <<'PY'
import sys
s = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 3]
win = float(sys.argv[2])
t0, t1 = s[0][0], s[-1][0]
first = [x for x in s if x[0] - t0 <= win]
last = [x for x in s if t1 - x[0] <= win]
rf, rl = max(x[1] for x in first), max(x[1] for x in last)
ff, fl = max(x[2] for x in first), max(x[2] for x in last)
print(f"      {len(s)} samples over {t1 - t0:.0f} s; RSS max: first {win:.0f} s {rf / 1024:.2f} MiB, "
      f"last {win:.0f} s {rl / 1024:.2f} MiB, overall {max(x[1] for x in s) / 1024:.2f} MiB; "
      f"fds max: first {ff:.0f}, last {fl:.0f}")
# the RSS trend, every tenth of the run
step = max(1, len(s) // 10)
print("      RSS (MiB) by tenth: " + " ".join(f"{max(x[1] for x in s[i:i + step]) / 1024:.2f}" for i in range(0, len(s), step)))
open(sys.argv[1] + ".res", "w").write(f"{int(rl <= rf + 2048)} {int(fl == ff)}\n")
PY
read -r rss_ok fds_ok <"$TMP/samples.res"
check "RSS flat: the last window's max <= the first's + 2 MiB" [ "$rss_ok" = 1 ]
check "fds flat: the last window's max = the first's" [ "$fds_ok" = 1 ]

"$PY3" - "$TMP/out.jsonl" "$secs" "$(nproc)" <<'PY'
import json, sys, collections
secs, ncpu = float(sys.argv[2]), int(sys.argv[3])
sysrow, procsum = {}, collections.Counter()
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["scope"] == "system":
        sysrow[r["interval"]] = r["counters"]["cpu-clock"]
    elif r["scope"] == "process":
        procsum[r["interval"]] += r["counters"]["cpu-clock"]
times = sorted(sysrow)
prev, off, unequal = 0.0, 0, 0
for t in times:
    dt, prev = t - prev, t
    if abs(sysrow[t] / 1e9 - ncpu * dt) > 0.01 * ncpu * dt + 1e-3:
        off += 1
        if off <= 5:
            print(f"      t={t:.3f}: cpu-clock {sysrow[t] / 1e6:.1f} ms in {dt * 1e3:.1f} ms x {ncpu} CPUs")
    if procsum[t] != sysrow[t]:
        unequal += 1
want = secs * 10
gaps = sorted(b - a for a, b in zip([0.0] + times, times))
print(f"      interval lengths: median {gaps[len(gaps) // 2] * 1e3:.1f} ms, max {gaps[-1] * 1e3:.1f} ms")
print(f"      {len(times)} intervals for {want:.0f} expected; {off} with cpu-clock off CPUs x interval by > 1%; "
      f"{unequal} where the process rows do not add up")
open(sys.argv[1] + ".res", "w").write(f"{int(len(times) >= want * 0.98)} {int(off <= len(times) * 0.01)} {int(unequal == 0)}\n")
PY
read -r all_int clk_ok cons_ok <"$TMP/out.jsonl.res"
check "kept up: every 100 ms interval printed (98%)" [ "$all_int" = 1 ]
check "system cpu-clock = CPUs x interval (1%) in 99% of the intervals" [ "$clk_ok" = 1 ]
check "process rows add up to the system row, every interval" [ "$cons_ok" = 1 ]
finish
