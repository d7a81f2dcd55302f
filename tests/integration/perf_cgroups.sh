#!/usr/bin/env bash
# perf stat -G's cgroups paired with the events (perf 6.1's parse_cgroups),
# side by side with Debian's perf: the Nth name, over every -G, goes to
# the Nth event, one name in all to every event, an empty one or none
# leaves its event system-wide (perf's empty cgroup field). Each case's
# (event, cgroup) lines in order against perf's, by perf_layout.py (text,
# -x: every field that is not a number) or by the JSON lines' keys (-j);
# the counts on one gated window (perf as emon-perf's command, tools/threads
# -g burning only while the gate is open, perf_csv.sh's way): A's
# task-clock within 2% of perf's (+ steal + untraced), B's context switches
# within 10% + 30 (B's thread polls the gate 20 times a second outside
# it, in emon-perf's longer window), the system-wide page-faults at least
# perf's (its window holds perf's). Then what each refuses: a name past
# the events (perf: usage, 129; emon-perf: one line, 2), -G beside
# --for-each-cgroup; and emon-perf's -G before any -e: every event in it
# (perf refuses it). A name is printed as typed (no leading /, a trailing
# /), as perf prints it, in -x and -j.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"
perf stat -e cpu-clock -- true 2>/dev/null || skip "perf stat does not run here"
[ -n "${EMON_SCHED:-}" ] && skip "--sched adds lines perf has not (on_cpu_ns, ...)"
LAYOUT="$PY3 $(dirname "$0")/perf_layout.py"

A=$(cg_new pair-a) B=$(cg_new pair-b)
mkdir -p "$TMP/ga" "$TMP/gb"
cg_bg "$A" "$TOOLS/threads" -g "$TMP/ga" 120 100
cg_bg "$B" "$TOOLS/threads" -g "$TMP/gb" 120 50

# same KIND WHAT OPTS...: emon-perf and perf, each `stat -a OPTS` on its
# own short run, in $TMP/e.KIND and $TMP/p.KIND; the lines compared
same() {
	local kind=$1 what=$2 x=()
	shift 2
	[ "$kind" = csv ] && x=(-x,)
	"$EMON" stat -a "${x[@]}" "$@" -- sleep 0.2 2>"$TMP/e.$kind" >/dev/null
	ERC=$?
	perf stat -a "${x[@]}" "$@" -- sleep 0.2 2>"$TMP/p.$kind" >/dev/null
	PRC=$?
	check "$what: perf's lines (status $ERC, perf's $PRC)" \
		bash -c "[ $ERC -eq 0 ] && [ $PRC -eq 0 ] && $LAYOUT $kind '$TMP/e.$kind' '$TMP/p.$kind'"
}

# gated FILE_TAG OPTS...: emon-perf -v -a OPTS with perf -a OPTS as its
# command, both into $TMP/{e,p}.TAG; the gates of A and B open together
# for 0.7 s inside perf's command; steal and untraced time in $steal $unt
gated() {
	local tag=$1
	shift
	rm -f "$TMP/ga/marks" "$TMP/ga/run" "$TMP/gb/run"
	st0=$(steal_ns)
	"$EMON" stat -v -a "$@" -o "$TMP/e.$tag" -- \
		perf stat -a "$@" -o "$TMP/p.$tag" -- \
		sh -c "sleep 0.2; m0=\$(wc -l <$TMP/err); touch $TMP/ga/run $TMP/gb/run; sleep 0.7
			rm -f $TMP/ga/run $TMP/gb/run; sleep 0.05; echo \$m0 \$(wc -l <$TMP/err) >$TMP/ga/marks; sleep 0.1" \
		2>"$TMP/err"
	GRC=$?
	steal=$(( $(steal_ns) - st0 )) unt=$(untraced_gate "$TMP/ga" "$TMP/err")
}

# csv_pairs FILE: each -x line's "event cgroup" (cgroup "-" where empty)
csv_pairs() { awk -F, '!/^#/ && NF > 4 { print $3, ($4 == "" ? "-" : $4) }' "$1"; }
# csv_ec FILE: each -x line's event and cgroup, as printed
csv_ec() { awk -F, '!/^#/ && NF > 4 { print $3, $4 }' "$1"; }
# csv_val FILE EVENT CGROUP: its count (ns for msec); CGROUP "": no cgroup
csv_val() {
	awk -F, -v ev="$2" -v cg="$3" '$3 == ev && $4 == cg {
		if ($2 == "msec") printf "%.0f\n", $1 * 1e6; else print $1 }' "$1"
}
# within A B TOL_PCT SLACK WHAT: |A - B| <= TOL% of B + SLACK (counts)
within() {
	"$PY3" -c '
import sys
a, b, tol, slack = map(float, sys.argv[1:5])
print(f"      {sys.argv[5]}: emon-perf {a:.0f}, perf {b:.0f} (tolerance {tol}% + {slack:.0f})")
sys.exit(0 if abs(a - b) <= tol / 100 * b + slack else 1)' "$@"
}

# --- -x, on one gated window: the counts -----------------------------------
gated csv -x, -e task-clock,context-switches,page-faults -G "$A,$B"
check "-G A,B -x, (3 events): both exit 0" [ "$GRC" -eq 0 ]
check "-G A,B -x,: perf's lines, fields and cgroup column" $LAYOUT csv "$TMP/e.csv" "$TMP/p.csv"
got=$(csv_pairs "$TMP/e.csv" | tr '\n' ' ')
check "-G A,B -x,: task-clock in A, context-switches in B, page-faults system-wide (got: $got)" \
	[ "$got" = "task-clock $A context-switches $B page-faults - " ]
check "-G A,B -x,: the same (event, cgroup) lines as perf's" diff <(csv_ec "$TMP/e.csv") <(csv_ec "$TMP/p.csv")
check "-G A,B: A's task-clock within 2% of perf's over the same gated window (+ steal + untraced)" \
	near_steal "$(csv_val "$TMP/e.csv" task-clock "$A")" "$(csv_val "$TMP/p.csv" task-clock "$A")" 2 $((steal + unt))
check "-G A,B: B's context switches within 10% + 30 of perf's" \
	within "$(csv_val "$TMP/e.csv" context-switches "$B")" "$(csv_val "$TMP/p.csv" context-switches "$B")" 10 30 "B context-switches"
e=$(csv_val "$TMP/e.csv" page-faults "") p=$(csv_val "$TMP/p.csv" page-faults "")
echo "      system-wide page-faults: emon-perf $e, perf $p (in emon-perf's window)"
check "-G A,B: the system-wide page-faults at least perf's (its window holds perf's)" [ "${e:-0}" -ge "${p:-1}" ]

# --- -j, two -G: the count of names is over both --------------------------
gated json -j -e task-clock -G "$A" -e context-switches -G "$B"
check "-e X -G A -e Y -G B -j: both exit 0" [ "$GRC" -eq 0 ]
pj_pairs() {
	"$PY3" -c '
import json, sys
for l in open(sys.argv[1]):
    if l.strip().startswith("{"):
        d = json.loads(l)
        print(d["event"], d.get("cgroup", "(none)"), list(d))' "$1"
}
check "-j, -G A then -G B: the same lines as perf's (event, cgroup, keys in order)" \
	diff <(pj_pairs "$TMP/e.json") <(pj_pairs "$TMP/p.json")
check "-j: the lines are task-clock $A and context-switches $B" \
	bash -c "[ \"\$(grep -c '\"event\" : \"task-clock\", \"cgroup\" : \"$A\"' '$TMP/e.json')\" -eq 1 ] &&
		[ \"\$(grep -c '\"event\" : \"context-switches\", \"cgroup\" : \"$B\"' '$TMP/e.json')\" -eq 1 ]"
jv() { "$PY3" -c '
import json, sys
for l in open(sys.argv[1]):
    if l.strip().startswith("{"):
        d = json.loads(l)
        if d["event"] == sys.argv[2] and d["cgroup"] == sys.argv[3]:
            print("%.0f" % (float(d["counter-value"]) * (1e6 if d["unit"] == "msec" else 1)))' "$@"; }
check "-j: A's task-clock within 2% of perf's (+ steal + untraced)" \
	near_steal "$(jv "$TMP/e.json" task-clock "$A")" "$(jv "$TMP/p.json" task-clock "$A")" 2 $((steal + unt))

# --- the layouts of the other pairings -------------------------------------
same text "-G ,B (text): the first event system-wide, the second in B" \
	-e task-clock,context-switches -G ",$B"
same csv "-G A (one name in all): every event in A" -e task-clock,context-switches -G "$A"
same csv "-G A, : the second event system-wide" -e task-clock,context-switches -G "$A,"
# a group across two cgroups: perf cannot schedule it (its leader
# <not counted>, the member <not supported>); emon-perf counts each
"$EMON" stat -a -x, -e '{task-clock,context-switches}' -G "$A,$B" -- sleep 0.2 2>"$TMP/e.gcsv"
perf stat -a -x, -e '{task-clock,context-switches}' -G "$A,$B" -- sleep 0.2 2>"$TMP/p.gcsv"
check "-G A,B with a group {a,b}: perf's (event, cgroup) lines" \
	diff <(csv_ec "$TMP/e.gcsv") <(csv_ec "$TMP/p.gcsv")
same csv "-e X,Y -G A -e Z -G B: A to X and Y, then B to Y (perf's count of names)" \
	-e task-clock,context-switches -G "$A" -e page-faults -G "$B"
same csv "-G A,B,A over three events: A's row printed twice, in the events' order" \
	-e task-clock,context-switches,page-faults -G "$A,$B,$A"
same csv "-r 2 -G A,B" -r 2 -e task-clock,context-switches,page-faults -G "$A,$B"
"$EMON" stat -a -x, -I 300 -e task-clock,context-switches,page-faults -G "$A,$B" -o "$TMP/e.icsv" -- \
	perf stat -a -x, -I 300 -e task-clock,context-switches,page-faults -G "$A,$B" -o "$TMP/p.icsv" -- sleep 1
check "-I 300 -x, -G A,B: perf's lines in each interval" $LAYOUT csv "$TMP/e.icsv" "$TMP/p.icsv" --outer
"$EMON" stat -a -I 300 -e task-clock,context-switches,page-faults -G ",$B" -o "$TMP/e.itext" -- \
	perf stat -a -I 300 -e task-clock,context-switches,page-faults -G ",$B" -o "$TMP/p.itext" -- sleep 1
check "-I 300 -G ,B (text): perf's header and lines in each interval" $LAYOUT text "$TMP/e.itext" "$TMP/p.itext" --outer
# -A: emon-perf keeps a cgroup's counts whole, not per CPU (docs/stat.md);
# the events of no cgroup are perf's CPU lines
"$EMON" stat -a -A -x, -e task-clock,context-switches,page-faults -G "$A,$B" -- sleep 0.2 2>"$TMP/e.acsv"
perf stat -a -A -x, -e task-clock,context-switches,page-faults -G "$A,$B" -- sleep 0.2 2>"$TMP/p.acsv"
check "-A -G A,B: page-faults (of no cgroup) on perf's CPU lines, and no other event on a CPU line" \
	bash -c "[ -n \"\$(awk -F, '\$5 == \"\" && NF > 5' '$TMP/p.acsv')\" ] &&
		diff <(awk -F, '\$5 == \"\" && NF > 5 { print \$1, \$4 }' '$TMP/e.acsv') <(awk -F, '\$5 == \"\" && NF > 5 { print \$1, \$4 }' '$TMP/p.acsv')"

# --- a -G name as typed: perf prints it so ("pgA", "pgA/"), not the path --
same csv "-G with names as typed (no leading /, a trailing /)" \
	-e task-clock,context-switches -G "${A#/}/,${B#/}"
typed_csv() {
	diff <(printf '%s\n' "${A#/}/" "${B#/}") <(awk -F, '!/^#/ && NF > 4 { print $4 }' "$TMP/e.csv") &&
		diff <(csv_ec "$TMP/e.csv") <(csv_ec "$TMP/p.csv")
}
check "-G names as typed: the -x cgroup fields are them, as perf's" typed_csv
"$EMON" stat -a -j -e task-clock -G "${A#/}" -- sleep 0.2 2>"$TMP/e.njson"
perf stat -a -j -e task-clock -G "${A#/}" -- sleep 0.2 2>"$TMP/p.njson"
typed_json() {
	diff <(pj_pairs "$TMP/e.njson") <(pj_pairs "$TMP/p.njson") &&
		grep -q "\"cgroup\" : \"${A#/}\"" "$TMP/e.njson"
}
check "-j -G name as typed: perf's cgroup key ('${A#/}')" typed_json

# --- refused --------------------------------------------------------------
"$EMON" stat -a -x, -e task-clock -G "$A,$B" -- true 2>"$TMP/err"
erc=$?
perf stat -a -x, -e task-clock -G "$A,$B" -- true 2>/dev/null
prc=$?
check "-e X -G A,B: perf exits 129 (its usage), emon-perf 2 with one line naming B" \
	bash -c "[ $prc -eq 129 ] && [ $erc -eq 2 ] && [ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q \"'$B'\" '$TMP/err'"
"$EMON" stat -a -x, -e task-clock -G "$A" --for-each-cgroup "$B" -- true 2>"$TMP/err"
erc=$?
perf stat -a -x, -e task-clock -G "$A" --for-each-cgroup "$B" -- true 2>/dev/null
prc=$?
check "-G with --for-each-cgroup: refused by both (perf $prc, emon-perf $erc, one line)" \
	bash -c "[ $prc -ne 0 ] && [ $erc -eq 2 ] && [ \$(wc -l <'$TMP/err') -eq 1 ]"
perf stat -a -x, -G "$A" -e task-clock -- true 2>"$TMP/perr"
prc=$?
"$EMON" stat -a -x, -G "$A" -e task-clock,context-switches -- true 2>"$TMP/err"
erc=$?
got=$(csv_pairs "$TMP/err" | tr '\n' ' ')
check "-G before -e: perf refuses it ($prc, 'must define events before cgroups'); emon-perf ($erc) counts every event in it ($got)" \
	bash -c "[ $prc -eq 129 ] && grep -q 'must define events before cgroups' '$TMP/perr' && [ $erc -eq 0 ] &&
		[ '$got' = 'task-clock $A context-switches $A ' ]"
finish
