#!/usr/bin/env bash
# GPU energy through NVML, on the fake libnvidia-ml.so.1 the Makefile
# builds (tests/fake-nvml/): two GPUs at 250 W and 100 W, a burner in
# cgroup a at 60% of GPU 0's SMs, one in cgroup b at 30% of GPU 0's and
# 50% of GPU 1's. Per interval, each cgroup's and process's gpu_energy_j
# is its share of the measured joules (exact to the uJ), the rest is the
# idle task's, every partition adds up to the GPUs' energy, and that is
# the fake's counters between the first and last reads over the run; then
# the errors: no library, NVML's init failing, a GPU lost mid-run.
. "$(dirname "$0")/lib.sh"

FAKE=${OUTPUT:-build}/tests/fake-nvml/libnvidia-ml.so.1
[ -e "$FAKE" ] || skip "no fake NVML ($FAKE): make tools"
FAKE_DIR=$(cd "$(dirname "$FAKE")" && pwd)
a=$(cg_new a) b=$(cg_new b)
cg_burners 8 "$a" "$b"
# NVML's pids are split to the cgroup each one is in at the read: the
# burners in theirs before the first (the first read spans the set-up)
burners_joined "$a" "$b"
pa=${BURNERS[0]} pb=${BURNERS[1]}
export FAKE_NVML_GPUS=250,100 FAKE_NVML_PROCS="0:$pa:60,0:$pb:30,1:$pb:50" \
	FAKE_NVML_PERIOD_MS=50 FAKE_NVML_LOG=$TMP/nvml.log
LD_LIBRARY_PATH=$FAKE_DIR "$EMON" stat -a -e cpu-clock --gpu --by system,cgroup,process,container \
	-I 500 --timeout 2600 --json-rows -o "$TMP/out.jsonl" 2>"$TMP/err"
check "stat --gpu on the fake exits 0" [ $? -eq 0 ]
check "no GPU warning" bash -c "! grep -i gpu $TMP/err"
$PY3 - "$TMP/out.jsonl" "$TMP/nvml.log" "$a" "$b" "$pa" "$pb" <<'PY'
import json, sys
from collections import defaultdict
f, log, a, b, pa, pb = sys.argv[1:7]
iv = defaultdict(list)
for r in map(json.loads, open(f)):
    iv[r["interval"]].append(r)
ok, prev_t, total = True, 0.0, [0.0, 0.0]
def near(x, want, tol, what):
    global ok
    if abs(x - want) > tol:
        print(f"      FAIL {what}: {x!r} vs {want!r} (tolerance {tol})")
        ok = False
for t in sorted(iv):
    rows = iv[t]
    sysr = next(r for r in rows if r["scope"] == "system")
    g0, g1 = (g["energy_j"] for g in sysr["gpus"])
    dt = t - prev_t
    prev_t = t
    total[0] += g0
    total[1] += g1
    e = g0 + g1
    eps = 2e-6 * max(e, 1) + 1e-4	# 10 significant digits, uJ per read
    near(sysr["gpu_energy_j"], e, eps, f"{t}: system = the GPUs")
    # the ramp: 250 W and 100 W over the interval (the reads are the
    # ticks', a few ms off the interval's ends on a busy machine)
    if dt > 0.3:
        near(g0 / dt, 250, 250 * 0.05, f"{t}: GPU 0 W")
        near(g1 / dt, 100, 100 * 0.05, f"{t}: GPU 1 W")
    cg = {r["key"]: r for r in rows if r["scope"] == "cgroup"}
    pr = {r["key"]: r for r in rows if r["scope"] == "process"}
    near(cg[a]["gpu_energy_j"], 0.6 * g0, eps, f"{t}: cgroup a = 60% of GPU 0")
    near(cg[b]["gpu_energy_j"], 0.3 * g0 + 0.5 * g1, eps, f"{t}: cgroup b = 30% + 50%")
    near(pr[int(pa)]["gpu_energy_j"], 0.6 * g0, eps, f"{t}: process a")
    near(pr[int(pb)]["gpu_energy_j"], 0.3 * g0 + 0.5 * g1, eps, f"{t}: process b")
    near(pr[0]["gpu_energy_j"], 0.1 * g0 + 0.5 * g1, eps, f"{t}: the idle task: the rest")
    if dt > 0.3:
        near(cg[a]["gpu_util"], 0.6, 0.05, f"{t}: cgroup a's gpu_util")
        near(cg[b]["gpu_util"], 0.8, 0.05, f"{t}: cgroup b's gpu_util")
    # conservation per interval, each partition: uJ are whole
    for scope in ("cgroup", "process", "container"):
        s = sum(r["gpu_energy_j"] for r in rows if r["scope"] == scope)
        near(s, e, eps * len(rows), f"{t}: {scope} rows add up to the GPUs'")
    for r in rows:
        if r["scope"] in ("cgroup", "process", "container") and r["gpu_energy_j"] is None:
            print(f"      FAIL {t}: {r['scope']} {r['key']}: null with every GPU read")
            ok = False
# the run's total: the fake's own counters, from the read of the first
# snapshot (the second: the first is the engine's baseline, at its open)
# to the last
reads = defaultdict(list)
for line in open(log):
    g, _, mj = line.split()
    reads[int(g)].append(int(mj))
for g in (0, 1):
    want = (reads[g][-1] - reads[g][1]) / 1000
    near(total[g], want, 1e-3, f"GPU {g}: the run's joules vs the fake's counter")
    print(f"      GPU {g}: {total[g]:.6f} J over {len(iv)} intervals; the fake's counter moved {want:.3f} J")
sys.exit(0 if ok else 1)
PY
check "per interval: shares exact, partitions add up, the run's total is the fake's counter" [ $? -eq 0 ]
unset FAKE_NVML_LOG
# report: the GPU columns, each key's sum of its rows
"$EMON" report "$TMP/out.jsonl" --by cgroup --top 50 >"$TMP/report.txt" 2>&1
check "report exits 0" [ $? -eq 0 ]
check "report: a GPU line and columns" grep -q "^GPUs (NVML): system .* J, .* W mean, split by SM time" "$TMP/report.txt"
want=$($PY3 -c 'import json, sys
print(sum(r["gpu_energy_j"] for r in map(json.loads, open(sys.argv[1]))
          if r["scope"] == "cgroup" and r["key"] == sys.argv[2]))' "$TMP/out.jsonl" "$a")
got=$(awk -v k="$a" 'NR > 2 && $1 == "cgroup" { for (i = 1; i <= NF; i++) c[$i] = i }
	$1 == k { print $c["gpu_energy_j"] }' "$TMP/report.txt")
check "report: cgroup a's gpu_energy_j is its rows' sum (${got:-none} vs $want)" near "${got:-0}" "$want" 0.01

# the library named by the option, no LD_LIBRARY_PATH; CSV and text too
"$EMON" stat -a -e cpu-clock --gpu="$FAKE_DIR/libnvidia-ml.so.1" -G "$a" --timeout 600 -x, 2>"$TMP/csv"
check "--gpu=PATH loads it" [ $? -eq 0 ]
check "CSV: the cgroup's gpu-energy line" grep -q "J,gpu-energy,$a,.*GPUs utilized" "$TMP/csv"
"$EMON" stat -a -e cpu-clock --gpu="$FAKE_DIR/libnvidia-ml.so.1" -G "$a" --timeout 600 2>"$TMP/txt"
check "text: a gpu-energy line with GPUs utilized" grep -Eq "J +gpu-energy +$a .*GPUs utilized" "$TMP/txt"

# command mode: the command's tree gets its process's part; the fake
# gives the command (a sleep named for this test: other tests sleep too)
# 50% of GPU 0 (250 W) from the read that finds it on
ln -s "$(command -v sleep)" "$TMP/gpusl$$"
FAKE_NVML_PROCS="0:@gpusl$$:50" LD_LIBRARY_PATH=$FAKE_DIR "$EMON" stat --gpu -e cpu-clock \
	--json-rows -o "$TMP/cmd.jsonl" -- "$TMP/gpusl$$" 1.5 2>"$TMP/err"
check "stat --gpu -- a sleep of 1.5 s: exits 0" [ $? -eq 0 ]
$PY3 - "$TMP/cmd.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cmd = next(r for r in rows if r["scope"] == "command")
sysr = next((r for r in rows if r["scope"] == "system"), None)
j = cmd["gpu_energy_j"]
# 50% of 250 W over its 1.5 s; a read's worth more where the fake gives
# the whole read to a process it first finds in it (reads: 125 ms and up)
want = 0.5 * 250 * 1.5
print(f"      the command's {j} J vs {want} J (50% of 250 W x 1.5 s)")
sys.exit(0 if j is not None and 0.95 * want <= j <= want + 0.5 * 250 * 0.3 else 1)
PY
check "command mode: the command's gpu_energy_j is its share over its life" [ $? -eq 0 ]

# top's energy line: the GPUs' watts and their idle part (a GPU at 300 W,
# the burner of cgroup a at 40% of it: 180 W idle)
if command -v tmux >/dev/null; then
	. "$(dirname "$0")/top_lib.sh"
	tm -f /dev/null new-session -d -x 160 -y 40
	TOP_AS="env FAKE_NVML_GPUS=300 FAKE_NVML_PROCS=0:$pa:40" \
		top_start --gpu="$FAKE_DIR/libnvidia-ml.so.1" --delay 0.5
	wait_pane '"GPUs " in p and " W (idle " in p' 20 >/dev/null
	check "top: the energy line has the GPUs' watts" [ $? -eq 0 ]
	read -r w idle < <(pane | sed -n 's/.*GPUs \([0-9.]*\) W (idle \([0-9.]*\) W).*/\1 \2/p' | head -1)
	check "top: the GPU at 300 W within 5% (${w:-none} W)" near "${w:-0}" 300 5
	check "top: its idle part 60% of it (${idle:-none} W)" near "${idle:-0}" "$("$PY3" -c "print(0.6 * ${w:-0})")" 0.1
	tm send-keys q
	tm kill-server 2>/dev/null
fi

# check and list energy show the GPUs found, or why none
FAKE_NVML_GPUS=300,50 FAKE_NVML_PROCS="0:$pa:40" "$EMON" check --duration 0.5 \
	--gpu="$FAKE_DIR/libnvidia-ml.so.1" >"$TMP/check.txt" 2>&1
check "check: the two GPUs, 1 process on them" grep -Eq "^ok +GPUs \(NVML\) +2 +2 GPUs through .*, 1 process on them" "$TMP/check.txt"
check "check: GPU 0 at 300 W within 5%" near "$(awk '$2 == "GPU" && $3 == "0" { print $4 }' "$TMP/check.txt")" 300 5
check "check: GPU 0's processes at 40% of its SMs" grep -q "Fake GPU 0: energy counter; its processes' SM use 40%" "$TMP/check.txt"
LD_LIBRARY_PATH=$TMP "$EMON" check --duration 0.5 >"$TMP/check.txt" 2>&1
check "check without NVML: a skip saying so" grep -Eq "^skip +GPUs \(NVML\) .*cannot load libnvidia-ml.so.1" "$TMP/check.txt"
FAKE_NVML_GPUS=300,50 LD_LIBRARY_PATH=$FAKE_DIR "$EMON" list energy >"$TMP/list.txt"
check "list energy: each GPU" bash -c "grep -q '^  gpu0 *Fake GPU 0 *energy counter' $TMP/list.txt && grep -q '^  gpu1 *Fake GPU 1' $TMP/list.txt"
LD_LIBRARY_PATH=$TMP "$EMON" list energy >"$TMP/list.txt"
check "list energy without NVML: none, and why" grep -q "^  none: cannot load libnvidia-ml.so.1" "$TMP/list.txt"

# no library: --gpu is an error (exit 2, one line); =auto says so once and goes on
LD_LIBRARY_PATH=$TMP "$EMON" stat -a -e cpu-clock --gpu --timeout 300 --json-rows 2>"$TMP/err" >/dev/null
rc=$?
check "--gpu without NVML: exit 2" [ $rc -eq 2 ]
check "--gpu without NVML: one line naming the library" \
	bash -c "[ \$(wc -l <$TMP/err) -eq 1 ] && grep -q 'gpu: cannot load libnvidia-ml.so.1' $TMP/err"
LD_LIBRARY_PATH=$TMP "$EMON" stat -a -e cpu-clock --gpu=auto --timeout 300 --json-rows -o "$TMP/auto.jsonl" 2>"$TMP/err"
check "--gpu=auto without NVML: runs" [ $? -eq 0 ]
check "--gpu=auto without NVML: one line" [ "$(grep -c 'no GPU energy' "$TMP/err")" -eq 1 ]
check "--gpu=auto without NVML: no GPU fields" bash -c "! grep -q gpu_energy_j $TMP/auto.jsonl"
FAKE_NVML_INIT=9 LD_LIBRARY_PATH=$FAKE_DIR "$EMON" stat -a -e cpu-clock --gpu --timeout 300 2>"$TMP/err"
rc=$?
check "NVML's init failing: exit 2 with NVML's words" \
	bash -c "[ $rc -eq 2 ] && grep -q \"NVML's init failed: Driver Not Loaded\" $TMP/err"

# GPU 0 lost 1.2 s after its first read after the baseline (the fake's
# clock: the engine's set-up does not count): its rows are null from then
# on, never 0, said once
FAKE_NVML_GPUS=200 FAKE_NVML_LOST=0:1.2 LD_LIBRARY_PATH=$FAKE_DIR "$EMON" stat -a -e cpu-clock \
	--gpu --by system,cgroup,process -I 500 --timeout 2600 --json-rows -o "$TMP/lost.jsonl" 2>"$TMP/err"
check "a lost GPU: stat goes on" [ $? -eq 0 ]
check "a lost GPU: said once" [ "$(grep -c 'GPU 0 (Fake GPU 0): lost (GPU is lost)' "$TMP/err")" -eq 1 ]
$PY3 - "$TMP/lost.jsonl" "$a" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ts = sorted({r["interval"] for r in rows})
ok = True
sysr = {r["interval"]: r for r in rows if r["scope"] == "system"}
# the interval the loss came in may have had reads before it: known, and
# lost; every one after is unknown
first = next((i for i, t in enumerate(ts) if sysr[t]["gpus"][0]["lost"]), None)
if first is None or first < 1 or first > len(ts) - 3:
    print(f"      FAIL the loss at interval {first} of {len(ts)}: want some before and two after"); ok = False
for i, t in enumerate(ts):
    g = sysr[t]["gpus"][0]
    vals = [r["gpu_energy_j"] for r in rows if r["interval"] == t and "gpu_energy_j" in r]
    if first is not None and i < first and (any(v is None for v in vals) or g["lost"]):
        print(f"      FAIL {t}: unknown before the loss"); ok = False
    if first is not None and i > first and (any(v is not None for v in vals) or g["energy_j"] is not None):
        print(f"      FAIL {t}: {vals[:3]} after the loss: want null"); ok = False
    print(f"      {t:.3f}: system gpu_energy_j {sysr[t]['gpu_energy_j']}, lost {g['lost']}")
sys.exit(0 if ok else 1)
PY
check "a lost GPU: known before, null (not 0) after" [ $? -eq 0 ]
finish
