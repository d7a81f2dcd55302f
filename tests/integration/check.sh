#!/usr/bin/env bash
# emon-perf check: exit 0 here; the hardware rows skip naming what is
# missing (no PMU in this VM) or pass where there is one; the software
# rows of both read paths pass with figures within their tolerances
# (cpu-clock 2% of the reference task-clock, plus the time emon-perf
# says followed untraced switches, at most 5%; context-switches 1% + 10
# of the reference); -j parses and agrees with the table; a fake
# powercap tree's 20 W reads as such; bad input exits 2 in one line; a
# SIGINT mid-run and every normal run leave no cgroup and no BPF object.
# counter pass: emon-perf check validates both read paths itself, every run
. "$(dirname "$0")/lib.sh"

base=$(bpf_max_ids)
left_cgroups() { find "$CGROOT" -maxdepth 1 -name 'emon-check-*' | wc -l; }

# the default run, timed
t0=$(date +%s.%N)
"$EMON" check >"$TMP/text" 2>"$TMP/text.err"
rc=$?
t=$(python3 -c "import time; print(f'{$(date +%s.%N) - $t0:.1f}')")
sed 's/^/      | /' "$TMP/text" "$TMP/text.err"
echo "      check took $t s"
check "check exits 0" [ $rc -eq 0 ]
check "check takes at most 30 s" python3 -c "import sys; sys.exit($t > 30)"

"$EMON" check -j --duration 1.5 >"$TMP/j.json" 2>"$TMP/j.err"
check "check -j exits 0" [ $? -eq 0 ]
"$PY3" - "$TMP/j.json" "$TMP/text" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
rows = {c["name"]: c for c in doc["checks"]}
text = open(sys.argv[2]).read().splitlines()
bad = []
def fail(msg):
    bad.append(msg)
for c in doc["checks"]:
    for k in ("status", "name", "value", "unit", "reason"):
        if k not in c:
            fail(f"{c.get('name')}: no {k}")
# the JSON run's rows are the table's rows (figures differ: another run)
# columns: status (5), name (27), figure (30), reason
trows = [(l[:5].strip(), l[6:33].rstrip()) for l in text
         if l[:5].strip() in ("info", "ok", "warn", "skip", "fail")]
tnames = [n for _, n in trows]
tstat = {n: st for st, n in trows}
if tnames != [c["name"] for c in doc["checks"]]:
    fail(f"rows differ: table {tnames} json {[c['name'] for c in doc['checks']]}")
for n, c in rows.items():
    if n in tstat and c["status"] != tstat[n] and not n.startswith(("cpu-clock", "context")):
        fail(f"{n}: table says {tstat[n]}, json {c['status']}")
hw = rows["cycles"]["status"] == "ok"
for path in ("switch", "counters"):
    for ev in ("cycles", "instructions"):
        r = rows[f"{ev} [{path}]"]
        if hw and r["status"] != "ok":
            fail(f"{ev} [{path}]: {r['status']} on a host with a PMU: {r['reason']}")
        if not hw and (r["status"] != "skip" or "not supported on this PMU" not in r["reason"]
                       or ev not in r["reason"]):
            fail(f"{ev} [{path}]: {r['status']}, want skip naming the missing PMU: {r['reason']}")
    for ev, tol, slack in (("cpu-clock", 2, 0), ("context-switches", 1, 10)):
        r = rows[f"{ev} [{path}]"]
        m = re.match(r"([\d.]+) vs ([\d.]+)", r["figure"])
        got, ref = (float(m.group(1)), float(m.group(2))) if m else (0, 0)
        # cpu-clock's slack: the time after switches the kernel did not
        # trace (its owner estimated: this sandbox's agent, as busy as the
        # agent is: 8-82 ms a run here), as the row says. A row that holds
        # only with it (beyond its percentage) may have a slack of 5% of
        # the reference at most, so that it cannot pass on slack alone
        ms = re.search(r"ok within ([\d.]+)%(?: \+ ([\d.]+))?", r["reason"])
        if not ms or float(ms.group(1)) != tol:
            fail(f"{ev} [{path}]: no 'ok within {tol}%' in its reason: {r['reason']}")
        elif ev == "cpu-clock" and ms.group(2):
            slack = float(ms.group(2))
            if abs(got - ref) > ref * tol / 100 and slack > 0.05 * ref:
                fail(f"{ev} [{path}]: {got} vs {ref} s holds only with an untraced "
                     f"slack of {slack} s, over 5% of it")
        elif ev == "context-switches" and float(ms.group(2) or 0) != slack:
            fail(f"{ev} [{path}]: slack {ms.group(2)}, want {slack}")
        # the figure is the value rounded to its printed digits (0.277 s
        # under load: 3 decimals are 0.2% of it)
        half = 0.5 * 10 ** -len(m.group(1).partition(".")[2]) if m else 0
        ok = m and r["status"] == "ok" and abs(got - ref) <= ref * tol / 100 + slack \
            and abs(got - r["value"]) <= half + 1e-9 * got
        print(f"      {ev} [{path}]: {r['status']} {r['figure']}")
        if not ok:
            fail(f"{ev} [{path}]: {r['status']} {r['figure']}, want ok within {tol}%")
    if rows[f"context-switches [{path}]"]["value"] < 10000:
        fail(f"context-switches [{path}]: fewer than the 10000 round trips")
if doc["failed"]:
    fail("failed is true")
for b in bad:
    print("FAIL  " + b)
sys.exit(1 if bad else 0)
PY
check "JSON parses, agrees with the table; hardware rows skip or pass; software rows within tolerance" [ $? -eq 0 ]

# a fake powercap tree at 20 W: the energy row is ok, near 20 W
fake_rapl "$TMP/pc" 20 --period-ms 1 || finish
"$EMON" check -j --duration 1.5 --powercap-root "$TMP/pc" >"$TMP/e.json" 2>"$TMP/e.err"
check "check with a fake powercap tree exits 0" [ $? -eq 0 ]
"$PY3" - "$TMP/e.json" <<'PY'
import json, sys
r = {c["name"]: c for c in json.load(open(sys.argv[1]))["checks"]}["energy"]
print(f"      energy: {r['status']} {r['figure']} ({r['reason']})")
sys.exit(0 if r["status"] == "ok" and abs(r["value"] - 20) <= 0.4 else 1)
PY
check "the energy row is ok, 20 W within 2%" [ $? -eq 0 ]
kill "${BG_PIDS[@]}" 2>/dev/null; wait 2>/dev/null; BG_PIDS=()

# bad input: exit 2, one line naming the culprit, nothing on stdout
bad() { # CULPRIT ARGS...
	local culprit=$1 rc
	shift
	timeout 20 "$EMON" check "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	check "check $* exits 2 naming '$culprit' ($(cat "$TMP/err"))" \
		eval '[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF -- "$culprit" "$TMP/err" && [ ! -s "$TMP/out" ]'
}
bad "'0.1'" --duration 0.1
bad "'abc'" --duration abc
bad "/no/such/dir" --powercap-root /no/such/dir
bad "'-x'" -x
bad "'extra'" extra

# SIGINT while the workload runs: its cgroup and the engine are undone
"$EMON" check --duration 5 >/dev/null 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 300); do
	[ "$(left_cgroups)" -gt 0 ] && break
	sleep 0.02
done
check "the workload's cgroup appears" [ "$(left_cgroups)" -gt 0 ]
kill -INT $pid
# bounded: a workload's child left blocked once kept check waiting
for _ in $(seq 500); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.02
done
kill -0 $pid 2>/dev/null && { echo "FAIL  check still runs 10 s after SIGINT"; kill -9 $pid; }
wait $pid
rc=$?
check "SIGINT: exit 130 ($(cat "$TMP/int.err"))" [ $rc -eq 130 ]

check "no emon-check cgroup left behind" [ "$(left_cgroups)" -eq 0 ]
left=$(bpf_orphans "$base")
[ -n "$left" ] && echo "$left" | sed 's/^/      left: /'
check "no BPF program, map or link left behind" [ -z "$left" ]
finish
