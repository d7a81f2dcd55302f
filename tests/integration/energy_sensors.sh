#!/usr/bin/env bash
# Energy from hwmon sensors through the real libsensors, on fake hwmon
# trees bound over /sys/class/hwmon in a mount namespace of the test's own
# (lib/energy.sh in_hwmon; fake_hwmon.py writes them):
#  - power_meter (platform, 40 W as power1_average): the total is 40 W x
#    the run within 1%; a cgroup's share is its cpu.stat CPU time over all
#    CPUs' time (5%); the CPUs, sockets and processes add up to it in
#    every interval (1e-6);
#  - amd_energy (cores 10 W and 3 W, socket 20 W): each core's joules go
#    to what ran on that core, the socket's rest (7 W) to the package:
#    CPU0 13.5 W, CPU1 6.5 W (2%); a burner pinned to CPU 0 gets
#    13.5 W x its cpu.stat seconds (5%); partitions add up exactly;
#  - a reset of amd_energy's counters: one warning line, that interval
#    without energy (null), the others 20 W within 2%;
#  - serve with power_meter: a stat attached to it gets 40 W within 1%,
#    /metrics says emon_energy_source_info{source,scope,split_by} and
#    emon_energy_scope_joules_total{scope};
#  - scmi (an energy counter at 25 W beside a power sensor): the counter;
#  - list energy and check show them; bad and missing sources are usage
#    errors (exit 2, one line).
. "$(dirname "$0")/lib.sh"

command -v unshare >/dev/null || skip "no unshare(1)"
mkdir -p "$TMP/empty" && in_hwmon "$TMP/empty" true 2>/dev/null || skip "no mount namespace here (unshare -m)"

# --- power_meter: the platform -----------------------------------------------
fake_hwmon "$TMP/pm" power_meter 40 || finish
a=$(cg_new a)
ua0=$(cg_usage_ns "$a")
in_hwmon "$TMP/pm" "$EMON" stat -a -e cpu-clock --energy power_meter -G "$a" \
	--by system,cpu,socket,cgroup,process -I 500 -j -o "$TMP/pm.jsonl" -- \
	sh -c "$(declare -f cg_run); CGROOT=$CGROOT; cg_run $a $BURN 2.5"
check "power_meter: stat exits 0" [ $? -eq 0 ]
ua=$(( $(cg_usage_ns "$a") - ua0 ))
"$PY3" - "$TMP/pm.jsonl" "$a" "$ua" "$(nproc)" <<'PY'
import json, sys
f, a, ua, ncpu = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = [json.loads(l) for l in open(f)]
t = max(r["interval"] for r in rows)
e = sum(r["energy_j"] for r in rows if r["scope"] == "system")
ea = sum(r["energy_j"] for r in rows if r["scope"] == "cgroup" and r["key"] == a)
clock = sum(r["counters"]["cpu-clock"] for r in rows if r["scope"] == "system")
ok = abs(e - 40 * t) <= 0.01 * 40 * t
print(f"      power_meter: {e:.3f} J in {t:.3f} s at 40 W ({e / t:.3f} W)")
# split by cpu-clock over every CPU: a's part is its CPU time over all
# CPUs' (the idle task's included), cpu.stat's for the same run
want = e * ua / clock
print(f"      cgroup a: {ea:.3f} J; by cpu.stat ({ua / 1e9:.3f} s of {clock / 1e9:.3f} s): {want:.3f} J")
ok = ok and abs(ea - want) <= 0.05 * want
sysr = [r for r in rows if r["scope"] == "system"][-1]
ok = ok and sysr.get("energy_source") == "power_meter" and sysr.get("energy_scope") == "platform"
sys.exit(0 if ok else 1)
PY
check "power_meter: 40 W x the run within 1%, a cgroup's share its cpu.stat time's (5%), source and scope named" [ $? -eq 0 ]
energy_partitions "$TMP/pm.jsonl" cpu socket process
check "power_meter: every partition adds up to the platform's joules in every interval" [ $? -eq 0 ]

# --- amd_energy: cores and the socket ------------------------------------------
fake_hwmon "$TMP/amd" amd 10,3 20 || finish
in_hwmon "$TMP/amd" "$EMON" list energy >"$TMP/list" 2>&1
check "list energy: auto would take amd_energy, and each counter is listed" \
	bash -c "grep -q '^--energy auto: amd_energy, scope core+package' '$TMP/list' &&
		[ \$(grep -c '^amd_energy-virtual-0 E' '$TMP/list') -eq 3 ]"
in_hwmon "$TMP/amd" "$EMON" check -j >"$TMP/check.json" 2>/dev/null
grep -q '"hwmon energy"' "$TMP/check.json" && grep -q 'amd_energy (core+package)' "$TMP/check.json"
check "check: a hwmon energy row naming amd_energy and its scopes" [ $? -eq 0 ]
b=$(cg_new b)
ub0=$(cg_usage_ns "$b")
# a burner on CPU 0 only: core 0's 10 W go to it as far as it ran there
in_hwmon "$TMP/amd" "$EMON" stat -a -e cpu-clock --energy amd_energy -G "$b" \
	--by system,cpu,socket,cgroup,process -I 500 -j -o "$TMP/amd.jsonl" -- \
	sh -c "$(declare -f cg_run); CGROOT=$CGROOT; cg_run $b taskset -c 0 $BURN 2.5"
check "amd_energy: stat exits 0" [ $? -eq 0 ]
ub=$(( $(cg_usage_ns "$b") - ub0 ))
"$PY3" - "$TMP/amd.jsonl" "$b" "$ub" <<'PY'
import json, sys
f, b, ub = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(f)]
t = max(r["interval"] for r in rows)
def tot(scope, key=None):
    return sum(r["energy_j"] for r in rows if r["scope"] == scope and (key is None or str(r["key"]) == key))
e, core = tot("system"), sum(r["zones_j"]["core"] for r in rows if r["scope"] == "socket")
c0, c1, eb = tot("cpu", "0"), tot("cpu", "1"), tot("cgroup", b)
print(f"      amd_energy: {e / t:.3f} W (20), cores {core / t:.3f} W (13), CPU0 {c0 / t:.3f} W (13.5), CPU1 {c1 / t:.3f} W (6.5)")
ok = abs(e - 20 * t) <= 0.02 * 20 * t and abs(core - 13 * t) <= 0.02 * 13 * t
ok = ok and abs(c0 - 13.5 * t) <= 0.02 * 13.5 * t and abs(c1 - 6.5 * t) <= 0.02 * 6.5 * t
# b ran on CPU 0 only: 10 W of core 0 and 7 W / 2 CPUs of the socket's
# rest per second it ran (cpu.stat's), split by cpu-clock
want = 13.5 * ub / 1e9
print(f"      cgroup b on CPU 0: {eb:.3f} J; 13.5 W x cpu.stat's {ub / 1e9:.3f} s: {want:.3f} J")
ok = ok and abs(eb - want) <= 0.05 * want
sysr = [r for r in rows if r["scope"] == "system"][-1]
ok = ok and sysr.get("energy_scope") == "core+package"
sys.exit(0 if ok else 1)
PY
check "amd_energy: each core's joules to what ran on it, the socket's rest by package (2%), a pinned cgroup 13.5 W x its cpu.stat time (5%)" [ $? -eq 0 ]
energy_partitions "$TMP/amd.jsonl" cpu socket process
check "amd_energy: every partition adds up to the socket's joules in every interval" [ $? -eq 0 ]

# --- a reset: that interval has no energy, the others are right -----------------
in_hwmon "$TMP/amd" "$EMON" stat -a -e cpu-clock --energy amd_energy --timeout 3000 -I 250 \
	-j -o "$TMP/reset.jsonl" 2>"$TMP/reset.err" &
spid=$!
sleep 1.5
kill -USR1 "${BG_PIDS[-1]}"
wait $spid
check "reset: stat exits 0" [ $? -eq 0 ]
check "reset: one warning line names the counters that went back" \
	bash -c "[ \$(grep -c 'counter went from' '$TMP/reset.err') -eq 1 ]"
"$PY3" - "$TMP/reset.jsonl" <<'PY'
import json, sys
rows = sorted((json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["scope"] == "system"),
              key=lambda r: r["interval"])
prev, none, e, t = 0.0, 0, 0.0, 0.0
for r in rows:
    dt, prev = r["interval"] - prev, r["interval"]
    if r.get("energy_j") is None:
        none += 1
        continue
    e += r["energy_j"]
    t += dt
print(f"      reset: {none} of {len(rows)} intervals without energy; the others {e:.3f} J in {t:.3f} s ({e / t:.3f} W)")
sys.exit(0 if 1 <= none <= 2 and abs(e - 20 * t) <= 0.02 * 20 * t else 1)
PY
check "reset: the interval (or two, as the files went back) without energy, the others 20 W within 2%" [ $? -eq 0 ]

# --- the daemon --------------------------------------------------------------
# serve_start waits on its command's pid: a wrapper that execs into the
# namespace keeps it
printf '#!/bin/sh\nexec %s %s %s "$@"\n' "$(dirname "$0")/lib/in_hwmon.sh" "$TMP/pm" "$EMON" \
	>"$TMP/emon-pm"
chmod +x "$TMP/emon-pm"
S=$TMP/run/emon.sock
port=$(free_port)
EMON=$TMP/emon-pm serve_start "$S" "$TMP/serve.err" -e cpu-clock --energy power_meter \
	--listen "127.0.0.1:$port" || finish
"$EMON" stat -a -e cpu-clock --socket "$S" --timeout 2000 --by system,cpu,process -I 500 \
	-j -o "$TMP/serve.jsonl" 2>"$TMP/stat.err"
check "serve: an attached stat exits 0" [ $? -eq 0 ]
t=$("$PY3" -c "import json; print(max(json.loads(l)['interval'] for l in open('$TMP/serve.jsonl')))")
e=$(jsum "$TMP/serve.jsonl" system energy_j)
echo "      serve: $e J in $t s at 40 W"
check "serve: 40 W x elapsed within 1%" near "$e" "$("$PY3" -c "print(40 * $t)")" 1
energy_partitions "$TMP/serve.jsonl" cpu process
check "serve: the CPUs and processes add up to it" [ $? -eq 0 ]
curl -s "http://127.0.0.1:$port/metrics" >"$TMP/metrics"
grep -q '^emon_energy_source_info{source="power_meter",scope="platform",split_by="cpu-clock"} 1$' "$TMP/metrics" &&
	grep -q '^# HELP emon_system_energy_joules_total .*scope platform' "$TMP/metrics"
check "serve: /metrics labels the source and its scope" [ $? -eq 0 ]
"$PY3" - "$TMP/metrics" "$e" <<'PY'
import re, sys
text, e = open(sys.argv[1]).read(), float(sys.argv[2])
m = re.search(r'^emon_energy_scope_joules_total\{scope="platform"\} (\S+)$', text, re.M)
series = [l for l in text.splitlines() if l and not l.startswith("#")]
said = int(re.search(r"^emon_series (\d+)$", text, re.M).group(1))
# the daemon measured since it started, before and after the stat's window
print(f"      /metrics: the platform scope's {m and m.group(1)} J since the start, the stat's window {e:.3f} J; "
      f"{len(series)} series, emon_series {said}")
sys.exit(0 if m and float(m.group(1)) >= e and said == len(series) else 1)
PY
check "serve: emon_energy_scope_joules_total{scope=platform} holds the stat's window, emon_series counts it" [ $? -eq 0 ]
kill -TERM $DPID
wait $DPID
check "serve: SIGTERM, exit 0" [ $? -eq 0 ]

# --- scmi: its energy counter, not its power sensor ----------------------------
fake_hwmon "$TMP/scmi" scmi 25 || finish
in_hwmon "$TMP/scmi" "$EMON" stat -a -e cpu-clock --energy sensors --timeout 2000 -I 500 \
	--by system,cpu -j -o "$TMP/scmi.jsonl"
check "scmi: stat exits 0" [ $? -eq 0 ]
t=$("$PY3" -c "import json; print(max(json.loads(l)['interval'] for l in open('$TMP/scmi.jsonl')))")
e=$(jsum "$TMP/scmi.jsonl" system energy_j)
echo "      scmi: $e J in $t s at 25 W"
check "scmi through --energy sensors: 25 W x elapsed within 2%" near "$e" "$("$PY3" -c "print(25 * $t)")" 2
grep -q '"energy_source":"scmi","split_by":"cpu-clock","energy_scope":"platform"' "$TMP/scmi.jsonl"
check "scmi: the system row names the source and its platform scope" [ $? -eq 0 ]
energy_partitions "$TMP/scmi.jsonl" cpu
check "scmi: the CPUs add up to it" [ $? -eq 0 ]

# --- bad input ---------------------------------------------------------------
in_hwmon "$TMP/scmi" "$EMON" stat -a -e cpu-clock --energy scmi:NOPE --timeout 200 2>"$TMP/bad.err" >/dev/null
check "scmi:NOPE: exit 2, one line naming the label" \
	bash -c "[ $? -eq 2 ] && [ \$(wc -l <'$TMP/bad.err') -eq 1 ] && grep -q 'labelled NOPE' '$TMP/bad.err'"
in_hwmon "$TMP/scmi" "$EMON" stat -a -e cpu-clock --energy amd_energy --timeout 200 2>"$TMP/none.err" >/dev/null
check "amd_energy where there is none: exit 2, one line" \
	bash -c "[ $? -eq 2 ] && [ \$(wc -l <'$TMP/none.err') -eq 1 ] && grep -q 'no amd_energy' '$TMP/none.err'"
finish
