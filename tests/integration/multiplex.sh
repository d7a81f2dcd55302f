#!/usr/bin/env bash
# Multiplexed events (more hardware events than the PMU has counters):
# each key's raw count, the sum of its slices, is scaled by the same
# slices' enabled/running, and the ratio (running / enabled) shown, as
# perf does a window. Eight hardware events while
# perf stat counts the same ones in the same run: every event is there,
# at least one ran part of the time (ratio < 1, a percentage in the
# text), and each scaled count is within 10% of perf's (both are
# estimates from the part of the time they ran). --no-scale, run beside
# a scaling stat: each raw count over its ratio is within 10% of the
# scaled one (the same estimate, made in userspace from raw sums), and
# no raw count of an event that ran under 90% of the time is above it.
# The NMI watchdog hint ends the text exactly when the watchdog is on.
# Needs a hardware PMU: skipped with the reason where there is none (VMs).
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"

evs=cycles,instructions,branches,branch-misses,cache-references,cache-misses,L1-dcache-loads,L1-dcache-load-misses
perf stat -a -x, -e cycles -o "$TMP/probe.csv" -- true 2>/dev/null
grep -q '^[0-9]' "$TMP/probe.csv" ||
	skip "no hardware PMU here (perf: cycles $(grep -o '<not [a-z]*>' "$TMP/probe.csv" | head -1)): nothing to multiplex"

for i in $(seq "$(nproc)"); do "$BURN" 30 & BG_PIDS+=($!); done
"$EMON" stat -a --energy none -e "$evs" --json-rows -o "$TMP/out.jsonl" -- \
	perf stat -a -x, -e "$evs" -o "$TMP/perf.csv" -- sleep 3 2>"$TMP/err"
check "stat exits 0" [ $? -eq 0 ]
"$PY3" - "$TMP/out.jsonl" "$TMP/perf.csv" "$evs" <<'PY'
import json, sys
row = next(json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["scope"] == "system")
perf = {}
for l in open(sys.argv[2]):
    f = l.strip().split(",")
    if len(f) > 2 and f[0][:1].isdigit():
        perf[f[2]] = float(f[0])
evs = sys.argv[3].split(",")
missing = [e for e in evs if row["counters"].get(e) is None]
ratios = {e: row.get("ratio", {}).get(e, 1.0) for e in evs}  # no "ratio": all 1.0
mux = [e for e, r in ratios.items() if r is not None and r < 0.999]
worst = 0.0
for e in evs:
    v, p = row["counters"].get(e), perf.get(e)
    if v is None or not p:
        continue
    err = abs(v - p) / p * 100
    worst = max(worst, err)
    print(f"      {e}: emon-perf {v:.4g} (ratio {ratios[e]:.3f}), perf {p:.4g}: {err:.2f}%")
open(sys.argv[1] + ".res", "w").write(f"{len(missing)} {len(mux)} {int(worst <= 10)}\n")
PY
read -r missing mux close <"$TMP/out.jsonl.res"
[ "$mux" -gt 0 ] || skip "8 hardware events all fit in this PMU's counters: nothing multiplexed"
check "every event counted (none null)" [ "$missing" -eq 0 ]
check "multiplexing is shown: $mux events with ratio < 1" [ "$mux" -gt 0 ]
check "each scaled count is within 10% of perf's" [ "$close" = 1 ]
"$EMON" stat -a --no-daemon --energy none -e "$evs" --no-scale --json-rows -o "$TMP/raw.jsonl" \
	--timeout 3000 & raw_pid=$!
"$EMON" stat -a --no-daemon --energy none -e "$evs" --json-rows -o "$TMP/scaled.jsonl" --timeout 3000
wait "$raw_pid"
check "stat --no-scale exits 0" [ $? -eq 0 ]
"$PY3" - "$TMP/raw.jsonl" "$TMP/scaled.jsonl" "$evs" <<'PY'
import json, sys
def system(p):
    return next(json.loads(l) for l in open(p) if json.loads(l)["scope"] == "system")
raw, scaled = system(sys.argv[1]), system(sys.argv[2])
bad = []
for e in sys.argv[3].split(","):
    v, r, s = raw["counters"].get(e), raw.get("ratio", {}).get(e, 1.0), scaled["counters"].get(e)
    if v is None or not r or not s:
        continue
    err = abs(v / r - s) / s * 100
    print(f"      {e}: raw {v:.4g} (ratio {r:.3f}) -> {v / r:.4g}, scaled {s:.4g}: {err:.2f}%")
    if err > 10 or (r < 0.9 and v > s):
        bad.append(e)
open(sys.argv[1] + ".res", "w").write(f"{len(bad)}\n")
PY
read -r bad <"$TMP/raw.jsonl.res"
check "--no-scale: raw / ratio within 10% of the scaled counts, none above them" [ "$bad" -eq 0 ]
"$EMON" stat -a --energy none -e "$evs" --timeout 1000 >"$TMP/out.txt" 2>&1
check "text output shows the share of time counted, as perf: (NN.NN%)" grep -qE '\([0-9.]+%\)' "$TMP/out.txt"
if [ "$(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null)" = 1 ]; then
	check "the NMI watchdog is on: perf's hint ends the text" \
		grep -q "Try disabling the NMI watchdog" "$TMP/out.txt"
else
	check "the NMI watchdog is off: no hint" \
		[ "$(grep -c 'NMI watchdog' "$TMP/out.txt")" = 0 ]
fi
finish
