#!/usr/bin/env bash
# cgroups created and removed while watched (tools/cgchurn; CHURN_S
# seconds, 4 here, longer in tests/stress/cgroup_churn.sh):
#  - three cgroups given to -G, each with a burner of known size, removed
#    mid-run: their rows keep their counts (perf stat -G within 1%; perf
#    counts task-clock, PERF_TIME in lib.sh);
#  - under -G parents that exist at the start, children created, used and
#    removed by the hundred after it, one level deep (flat), three levels
#    deep with only the deepest running (deep), and with processes moving
#    themselves in rather than being born there (join): each parent's row
#    includes its churned children, as perf stat --for-each-cgroup sees
#    them in the same run (1%), and as the churner's known CPU time says
#    (5% + steal);
#  - a second instance with --by cgroup (every cgroup, own counts) keeps
#    each churned cgroup's counts under its last path, or under its
#    parent when it came and went between two reads: never at the top;
#  - no crash, both exit 0, nothing on stderr; the --by cgroup instance's
#    memory does not grow with the number of cgroups churned.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"

secs=${CHURN_S:-4}
work=${CHURN_WORK_MS:-10}	# per churned cgroup: less is more churn
g1=$(cg_new g1) g2=$(cg_new g2) g3=$(cg_new g3)
flat=$(cg_new flat) deep=$(cg_new deep) join=$(cg_new join)
all="$g1,$g2,$g3,$flat,$deep,$join,$TESTCG"
pcgs=$(echo "$all" | sed 's|^/||; s|,/|,|g')

# B: every cgroup, own counts, every 250 ms, around the whole workload
"$EMON" stat -a --energy none -e cpu-clock --by system,cgroup -I 250 --json-rows -o "$TMP/b.jsonl" 2>"$TMP/b.err" &
bpid=$!
wait_attached $bpid
sample_proc $bpid "$TMP/b.rss" 0.5

cat >"$TMP/work.sh" <<EOF
$(declare -f cg_run); CGROOT=$CGROOT
cg_run $g1 $BURN 0.3 & cg_run $g2 $BURN 0.3 & cg_run $g3 $BURN 0.3 & wait
rmdir $CGROOT$g1 $CGROOT$g2 $CGROOT$g3 || exit 1
cg_run $flat $CGCHURN -d $secs -j 2 -w $work -o $TMP/flat.txt $CGROOT$flat &
cg_run $deep $CGCHURN -d $secs -j 2 -w $work -D 3 -o $TMP/deep.txt $CGROOT$deep &
cg_run $join $CGCHURN -d $secs -j 1 -w 5 -J -o $TMP/join.txt $CGROOT$join &
wait
EOF
st0=$(steal_ns)
# --max-cgroups 512 on the short run: BPF's record of the cgroups' names
# (an LRU of twice that) cannot hold all of the run's (1,300 and their
# ancestors), so the names must be taken at each read, not at the print at
# the end. (The long run churns ~1,000 a second: default sizes.)
maxcg=
[ "$secs" -le 10 ] && maxcg="--max-cgroups 512"
# shellcheck disable=SC2086
"$EMON" stat -a --energy none -e cpu-clock,context-switches -G "$all" $maxcg \
	--json-rows -o "$TMP/a.jsonl" -- \
	perf stat -a -x, -e $PERF_TIME,context-switches --for-each-cgroup "$pcgs" -o "$TMP/perf.csv" -- \
	bash "$TMP/work.sh" 2>"$TMP/a.err"
rc=$?
steal=$(($(steal_ns) - st0))
# the time whose owner emon-perf estimated (lib.sh): the -G instance's
# over the whole run, and B's in the intervals each cgroup ran
unt=$(untraced_ns "$TMP/a.jsonl")
echo "      untraced time: $((unt / 1000000)) ms in the whole run"
kill -INT $bpid
wait $bpid
brc=$?
check "-G instance: exits 0 (the workload's cgroups all made and removed)" [ $rc -eq 0 ]
check "--by cgroup instance: exits 0 after SIGINT" [ $brc -eq 0 ]
for f in flat deep join; do echo "      $f: $(cat "$TMP/$f.txt")"; done
check "no error spam: nothing on stderr (-G instance)" [ ! -s "$TMP/a.err" ]
check "no error spam: nothing on stderr (--by cgroup instance)" [ ! -s "$TMP/b.err" ]
sed 's/^/      | /' "$TMP/a.err" "$TMP/b.err" | head -5

# removed -G cgroups keep their counts
sys=$(jrow "$TMP/a.jsonl" system all cpu-clock)
for g in $g1 $g2 $g3; do
	e=$(jrow "$TMP/a.jsonl" cgroup "$g" cpu-clock) p=$(perf_cg "$TMP/perf.csv" "$PERF_TIME" "$g")
	u=$(untraced_during "$TMP/b.jsonl" "$g")
	check "-G $g, removed mid-run: cpu-clock matches perf within 1% (+ its part of the steal, + untraced time while it ran)" \
		near_steal "$e" "$p" 1 "$(( $(steal_part "$steal" "$e" "$sys") + u ))"
	# less the time whose owner was guessed while it ran (untraced_during)
	check "-G $g, removed mid-run: has its burner's 0.3 s (- untraced time while it ran)" [ $((e + u)) -ge 291000000 ]
done

known() { # FILE: the churner's CPU time in ns
	sed -n 's/.*children_cpu_s=\([0-9.]*\) self_cpu_s=\([0-9.]*\).*/\1 \2/p' "$1" |
		awk '{ printf "%.0f\n", ($1 + $2) * 1e9 }'
}
for f in flat deep join; do
	g=$TESTCG/$f
	e=$(jrow "$TMP/a.jsonl" cgroup "$g" cpu-clock) p=$(perf_cg "$TMP/perf.csv" "$PERF_TIME" "$g")
	k=$(known "$TMP/$f.txt")
	echo "      $g: emon-perf $e, perf $p, churner's CPU time $k (ns)"
	case $f in
	flat) what="children born in their cgroups, one level" ;;
	deep) what="children three levels deep, only the deepest running" ;;
	join) what="children that move themselves in (a migration mid-slice)" ;;
	esac
	u=$(untraced_during "$TMP/b.jsonl" "$g")
	check "-G parent, $what: matches perf within 1% (+ its part of the steal, + untraced time while it ran)" \
		near_steal "$e" "$p" 1 "$(( $(steal_part "$steal" "$e" "$sys") + u ))"
	check "-G parent, $what: matches the known CPU time within 5% (+ steal + untraced time while it ran)" \
		near_steal "$e" "$k" 5 "$((steal + u))"
done
sum=$("$PY3" -c "
import json
rows = [json.loads(l) for l in open('$TMP/a.jsonl')]
print(sum(r['counters']['cpu-clock'] for r in rows if r['scope'] == 'cgroup' and r['key'] != '$TESTCG'))")
top=$(jrow "$TMP/a.jsonl" cgroup "$TESTCG" cpu-clock)
check "the common parent's row is exactly the sum of its six children's ($top = $sum)" [ "$top" = "$sum" ]

# B: where the churned cgroups' counts went; against perf within 1% + the
# parent's part of the steal + B's untraced time while it ran, as A's
bref=() bslack=()
for g in $flat $deep $join; do
	p=$(perf_cg "$TMP/perf.csv" "$PERF_TIME" "$g")
	bref+=("$p") bslack+=("$(( $(steal_part "$steal" "$p" "$sys") + $(untraced_during "$TMP/b.jsonl" "$g") ))")
done
"$PY3" - "$TMP/b.jsonl" "$TESTCG" "${bref[@]}" "${bslack[@]}" <<'PY'
import json, sys, collections
top = sys.argv[2]
ref = dict(zip(("flat", "deep", "join"), map(float, sys.argv[3:6])))
slack = dict(zip(("flat", "deep", "join"), map(float, sys.argv[6:9])))
under, named, removed = collections.Counter(), collections.Counter(), collections.Counter()
stray = []
for r in map(json.loads, open(sys.argv[1])):
    if r["scope"] != "cgroup":
        continue
    k, v = r["key"], r["counters"]["cpu-clock"]
    for f in ref:
        p = f"{top}/{f}"
        if k == p or k.startswith(p + "/"):
            under[f] += v
            if "[removed cgroup" in k:
                removed[f] += 1
            elif k != p:
                named[f] += 1
    if k == "[unknown]" or (k.startswith("/[removed cgroup") and v):
        stray.append((k, v))
bad = 0
for f in ref:
    e = under[f]
    err = abs(e - ref[f]) / ref[f] * 100 if ref[f] else float("inf")
    print(f"      --by cgroup under {f}: {named[f]} rows named by their path, {removed[f]} as "
          f"[removed cgroup N]; {e / 1e6:.1f} ms vs perf {ref[f] / 1e6:.1f} ms ({err:.2f}%, "
          f"tolerance 1% + steal/untraced {slack[f] / 1e6:.3f} ms)")
    bad += abs(e - ref[f]) > 0.01 * ref[f] + slack[f]
if stray:
    print(f"      rows outside their parents: {len(stray)}, e.g. {stray[:2]}")
with open(sys.argv[1] + ".res", "w") as f:
    f.write(f"{int(not bad)} {len(stray)} {sum(removed.values())}\n")
PY
read -r same nstray nremoved <"$TMP/b.jsonl.res"
check "--by cgroup: the churned cgroups' rows under each parent add up to perf's count for it (1% + its part of the steal + untraced time while it ran)" [ "$same" = 1 ]
check "--by cgroup: no counts outside their parents (no top-level [removed cgroup] or [unknown] rows)" [ "$nstray" -eq 0 ]
check "--by cgroup: counts kept under each churned cgroup's last path ($nremoved rows named [removed cgroup N])" [ "$nremoved" -eq 0 ]
"$PY3" - "$TMP/b.rss" "$RSS_SLACK_KB" <<'PY'
import sys
slack = int(sys.argv[2])
s = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 3]
q = s[len(s) // 4][1]
end = max(x[1] for x in s[-3:])
print(f"      --by cgroup instance RSS: {s[0][1] / 1024:.1f} MiB at the start, {q / 1024:.1f} MiB at a quarter "
      f"of the run, {end / 1024:.1f} MiB at the end, peak {max(x[1] for x in s) / 1024:.1f} MiB; "
      f"fds {s[0][2]:.0f}..{max(x[2] for x in s):.0f}")
open(sys.argv[1] + ".res", "w").write(f"{int(end <= q + slack)}\n")
PY
check "--by cgroup instance: RSS flat under churn (end <= a quarter of the run + $((RSS_SLACK_KB / 1024)) MiB)" [ "$(cat "$TMP/b.rss.res")" = 1 ]
finish
