#!/usr/bin/env bash
# Maps too small on purpose (--max-procs 64, --max-cgroups 16; entries are
# process x CPU and cgroup x CPU) under more live keys: 40 cgroups, each
# with a shell that wakes every 20 ms through a new process. The overflow
# rows take the excess and conservation still holds exactly, every
# interval: process rows (overflow included) and cgroup rows (overflow
# included) each add up to the system row. The user is told once per map,
# on stderr. With -G, the counts that did not fit are not lost either.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"

n=40
for i in $(seq $n); do
	c=$(cg_new "p/c$i")
	cg_bg "$c" sh -c 'while :; do sleep 0.02; done'
done

"$EMON" stat -a --energy none -e cpu-clock,context-switches,page-faults --max-procs 64 --max-cgroups 16 \
	--by system,cpu,cgroup,process -I 200 --timeout 3000 --json-rows -o "$TMP/out.jsonl" 2>"$TMP/err"
check "stat exits 0" [ $? -eq 0 ]
"$PY3" - "$TMP/out.jsonl" <<'PY'
import json, sys, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    r = json.loads(l)
    rows[r["interval"]][r["scope"]].append(r)
bad = collections.Counter()
ovf = collections.Counter()
keys = collections.Counter()
for t, by in sorted(rows.items()):
    system = by["system"][0]["counters"]
    for scope in ("cpu", "process", "cgroup"):
        keys[scope] += len(by[scope])
        for r in by[scope]:
            if r["key"] == "overflow":
                ovf[scope] += 1
        for ev, v in system.items():
            s = sum(r["counters"][ev] for r in by[scope])
            if s != v:
                print(f"      t={t} {scope} {ev}: sum {s} != system {v}")
                bad[scope] += 1
n = len(rows)
print(f"      {n} intervals; overflow rows: process {ovf['process']}, cgroup {ovf['cgroup']}; "
      f"rows per interval: process {keys['process'] / n:.0f}, cgroup {keys['cgroup'] / n:.0f}")
with open(sys.argv[1] + ".res", "w") as f:
    f.write(f"{n} {bad['cpu']} {bad['process']} {bad['cgroup']} {ovf['process']} {ovf['cgroup']}\n")
PY
read -r nint bcpu bproc bcg oproc ocg <"$TMP/out.jsonl.res"
# that the maps overflowed at all is what makes the checks below mean
# something; how often depends on how much CPU the 40 shells got (on a
# loaded machine 1 interval of 6 for processes, 3 for cgroups)
check "the process map overflowed ($oproc of $nint intervals)" [ "$oproc" -ge 1 ]
check "the cgroup map overflowed ($ocg of $nint intervals)" [ "$ocg" -ge 1 ]
check "process rows, overflow included, add up to the system row exactly, every interval" [ "$bproc" -eq 0 ]
check "cgroup rows, overflow included, add up to the system row exactly, every interval" [ "$bcg" -eq 0 ]
check "cpu rows add up to the system row exactly, every interval" [ "$bcpu" -eq 0 ]
sed 's/^/      | /' "$TMP/err"
check "told once: one process map warning on stderr" [ "$(grep -c 'process map full' "$TMP/err")" -eq 1 ]
check "told once: one cgroup map warning on stderr" [ "$(grep -c 'cgroup map full' "$TMP/err")" -eq 1 ]
check "nothing else on stderr" [ "$(grep -vc 'map full' "$TMP/err")" -eq 0 ]

# -G over the 40 cgroups' parent with 16 entries: the -G row must still
# have everything (perf stat -G in the same run), or an overflow row
# must show what is missing
p=$TESTCG/p
"$EMON" stat -a --energy none -e cpu-clock,context-switches --max-cgroups 16 -G "$p" --json-rows -o "$TMP/g.jsonl" -- \
	perf stat -a -x, -e $PERF_TIME,context-switches --for-each-cgroup "${p#/}" -o "$TMP/perf.csv" -- sleep 2 2>"$TMP/err"
check "-G with --max-cgroups 16: exits 0" [ $? -eq 0 ]
e=$(jrow "$TMP/g.jsonl" cgroup "$p" context-switches) pc=$(perf_cg "$TMP/perf.csv" context-switches "$p")
o=$(jrow "$TMP/g.jsonl" cgroup overflow context-switches)
echo "      -G $p context-switches: emon-perf $e, perf $pc; overflow row: $o"
sed 's/^/      | /' "$TMP/err"
nothing_lost() { near "$e" "$pc" 1 || [ "$o" != missing ]; }
check "-G with a full cgroup map: nothing lost silently (-G row within 1% of perf, or an overflow row)" nothing_lost
finish
