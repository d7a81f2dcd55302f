#!/usr/bin/env bash
# GPU energy through the daemon (serve --gpu on the fake NVML: one GPU at
# 200 W, a burner in cgroup a at 70% of its SMs): a stat attached to it
# gets the cgroup's gpu_energy_j, 70% of the GPU's every interval; its
# /metrics has the GPU's series and each scope's part: the cgroup's 70%
# of the GPU's measured joules, the idle 30%, the system's all of it;
# a stat --gpu does not attach to a daemon without GPUs; the gpu scope's
# measured joules are among emon_energy_scope_joules_total's.
. "$(dirname "$0")/lib.sh"

FAKE=${OUTPUT:-build}/tests/fake-nvml/libnvidia-ml.so.1
[ -e "$FAKE" ] || skip "no fake NVML ($FAKE): make tools"
command -v curl >/dev/null || skip "no curl"
FAKE_DIR=$(cd "$(dirname "$FAKE")" && pwd)
a=$(cg_new a)
cg_burners 8 "$a"
# NVML's pids are split to the cgroup each one is in at the read: the
# burners in theirs before the first (the first read spans the set-up)
burners_joined "$a"
S=$TMP/run/emon.sock
MPORT=$(free_port)
FAKE_NVML_GPUS=200 FAKE_NVML_PROCS="0:${BURNERS[0]}:70" FAKE_NVML_PERIOD_MS=50 \
	serve_start "$S" "$TMP/serve.err" -e cpu-clock --gpu="$FAKE_DIR/libnvidia-ml.so.1" \
	--listen 127.0.0.1:$MPORT || exit 1
"$EMON" stat -a -e cpu-clock --gpu --socket "$S" -G "$a" --by system,cgroup -I 500 \
	--timeout 1600 --json-rows -o "$TMP/e.jsonl" 2>"$TMP/stat.err"
check "stat --gpu attached to serve --gpu exits 0" [ $? -eq 0 ]
check "and it is attached" grep -q "attached to the daemon (pid $DPID" "$TMP/stat.err"
$PY3 - "$TMP/e.jsonl" "$a" <<'PY'
import json, sys
from collections import defaultdict
iv = defaultdict(dict)
for r in map(json.loads, open(sys.argv[1])):
    iv[r["interval"]][r["scope"]] = r
ok = len(iv) >= 3
for t, rows in sorted(iv.items()):
    g = rows["system"]["gpu_energy_j"]
    c = rows["cgroup"]["gpu_energy_j"]
    good = g is not None and g > 0 and abs(c - 0.7 * g) <= 1e-4 + 2e-6 * g
    print(f"      {t:.3f}: GPU {g} J, cgroup a {c} J ({c / g:.6f} of it)")
    ok = ok and good
sys.exit(0 if ok else 1)
PY
check "attached: the cgroup's gpu_energy_j is 70% of the GPU's, every interval" [ $? -eq 0 ]

curl -s "http://127.0.0.1:$MPORT/metrics" >"$TMP/m.txt"
$PY3 - "$TMP/m.txt" "$a" <<'PY'
import re, sys
text, cg = open(sys.argv[1]).read(), sys.argv[2]
def val(pat):
    m = re.search("^" + pat + r" (\S+)$", text, re.M)
    if not m:
        print(f"      FAIL no {pat}")
        return None
    return float(m.group(1))
g = val(r'emon_gpu_energy_joules_total\{gpu="0",name="Fake GPU 0"\}')
idle = val(r'emon_gpu_idle_energy_joules_total\{gpu="0",name="Fake GPU 0"\}')
sm = val(r'emon_gpu_sm_seconds_total\{gpu="0",name="Fake GPU 0"\}')
up = val(r'emon_gpu_up\{gpu="0",name="Fake GPU 0"\}')
sysj = val(r'emon_system_gpu_energy_joules_total')
scope = val(r'emon_energy_scope_joules_total\{scope="gpu"\}')
c = val(r'emon_cgroup_gpu_energy_joules_total\{cgroup="' + re.escape(cg) + '"\}')
ok = None not in (g, idle, sm, up, sysj, c, scope)
if ok:
    print(f"      GPU {g} J, idle {idle} J, SM {sm} s, up {up}; system {sysj} J, cgroup {c} J")
    # SM time: 70% of the time the joules took at 200 W (the reads'
    # times are the flushes', the fake's clock its own: 2%)
    ok = (g > 0 and up == 1 and abs(sysj - g) <= 1e-6 * g and abs(scope - g) <= 1e-6 * g and
          abs(c - 0.7 * g) <= 1e-5 * g and abs(idle - 0.3 * g) <= 1e-5 * g and
          abs(sm - 0.7 * g / 200) <= 0.02 * 0.7 * g / 200)
sys.exit(0 if ok else 1)
PY
check "/metrics: the GPU's series; the cgroup 70% of its joules, idle 30%, the system all" [ $? -eq 0 ]
kill -TERM $DPID
wait $DPID
check "SIGTERM: exit 0" [ $? -eq 0 ]

# a daemon without GPUs: stat --gpu counts with its own engine
serve_start "$S" "$TMP/serve2.err" -e cpu-clock --listen none || exit 1
LD_LIBRARY_PATH=$FAKE_DIR FAKE_NVML_GPUS=100 "$EMON" stat -a -e cpu-clock --gpu --socket "$S" \
	--timeout 300 --json-rows -o "$TMP/own.jsonl" 2>"$TMP/stat.err"
check "stat --gpu and a daemon without: own engine" grep -q "runs without --gpu: counting with own events" "$TMP/stat.err"
check "and its rows have the GPU" grep -q '"gpu_energy_j":' "$TMP/own.jsonl"
finish
