#!/usr/bin/env bash
# Per interval, under load: CPU rows, process rows (idle task and overflow
# included) and cgroup rows (each cgroup's own counts) each add up exactly
# to the system row, and the system cpu-clock is online CPUs x interval.
. "$(dirname "$0")/lib.sh"

a=$(cg_new a)
cg_run "$a" "$BURN" 3 & BG_PIDS+=($!)
( for i in $(seq 200); do /bin/true; done ) & BG_PIDS+=($!)
"$EMON" stat -e cpu-clock,context-switches,page-faults --by system,cpu,socket,cgroup,process \
	-I 200 --timeout 2000 --json-rows -o "$TMP/out.jsonl"
check "stat exits 0" [ $? -eq 0 ]
python3 - "$TMP/out.jsonl" "$(nproc)" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows[r["interval"]].append(r)
ncpu, bad, prev = int(sys.argv[2]), 0, 0.0
times = sorted(rows)
print(f"      {len(times)} intervals")
for t in times:
    by = collections.defaultdict(list)
    for r in rows[t]:
        by[r["scope"]].append(r)
    system = by["system"][0]["counters"]
    for scope in ("cpu", "socket", "process", "cgroup"):
        for ev, v in system.items():
            s = sum(r["counters"][ev] for r in by[scope])
            if s != v:
                print(f"FAIL  t={t} {scope} {ev}: sum {s} != system {v}")
                bad += 1
    dt = t - prev
    clk = system["cpu-clock"] / 1e9
    # the last interval ends at the timeout, the others every 200 ms
    if abs(clk - ncpu * dt) > 0.01 * ncpu * dt:
        print(f"FAIL  t={t} system cpu-clock {clk:.6f}s vs {ncpu} x {dt:.6f}s")
        bad += 1
    prev = t
if len(times) < 9:
    print(f"FAIL  only {len(times)} intervals in 2 s at -I 200")
    bad += 1
print("ok    cpu, socket, process and cgroup rows add up to the system row exactly, every interval" if not bad else "")
print("ok    system cpu-clock = CPUs x interval within 1%" if not bad else "")
sys.exit(1 if bad else 0)
PY
check "conservation holds" [ $? -eq 0 ]
finish
