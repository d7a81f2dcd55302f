#!/usr/bin/env bash
# Multiplexed events (more hardware events than the PMU has counters):
# counts are scaled by enabled/running and the ratio is shown, as perf
# does. Eight hardware events while perf stat counts the same ones in the
# same run: every event is there, at least one ran part of the time
# (ratio < 1, a percentage in the text), and each scaled count is within
# 10% of perf's (both are estimates from the part of the time they ran).
# Needs a hardware PMU: skipped with the reason where there is none (VMs).
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"

evs=cycles,instructions,branches,branch-misses,cache-references,cache-misses,L1-dcache-loads,L1-dcache-load-misses
perf stat -a -x, -e cycles -o "$TMP/probe.csv" -- true 2>/dev/null
grep -q '^[0-9]' "$TMP/probe.csv" ||
	skip "no hardware PMU here (perf: cycles $(grep -o '<not [a-z]*>' "$TMP/probe.csv" | head -1)): nothing to multiplex"

for i in $(seq "$(nproc)"); do "$BURN" 30 & BG_PIDS+=($!); done
"$EMON" stat -a --energy none -e "$evs" -j -o "$TMP/out.jsonl" -- \
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
ratios = {e: row["ratio"].get(e) for e in evs}
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
"$EMON" stat -a --energy none -e "$evs" --timeout 1000 >"$TMP/out.txt" 2>&1
check "text output shows the share of time counted, as perf: (NN.NN%)" grep -qE '\([0-9.]+%\)' "$TMP/out.txt"
finish
