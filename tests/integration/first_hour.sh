#!/usr/bin/env bash
# The first hour of a newcomer (issue 33): what the README, --help, list
# and make run say is what they do.
#  - make run ARGS=... adds to the defaults (make -n: the command line);
#  - --help names --version; the README links every man page;
#  - every code fence in README.md and docs/ closes (a closing ``` with
#    text after it is no close: the rest of the page renders as code);
#  - report --prometheus against a port that refuses: a runtime
#    failure, exit 1, one line naming the URL;
#  - list's RAPL PMU, where libpfm4 names one, agrees with check's
#    powercap and power PMU rows;
#  - without an energy source (no RAPL here), stat --by container ends
#    with one line naming --energy model:IDLE_W:MAX_W; perf's habits
#    (no --by) get none; the README links tools/demo.sh, and the demo
#    writes its screenshot into an absolute OUTDIR;
#  - report --html says where it wrote the page (on stderr);
#  - serve's start line names every event it cannot count, without -v;
#  - top in an 80-column tmux pane: the sorted column's title is CPU%,
#    not CPU%v (underlined instead, the View line names it); the energy
#    line whole, the flag to energy in it; the View line ends on a whole
#    word; a comm of 15 characters is whole, a long cgroup name keeps its
#    end (cut in the middle with '~').
# counter pass: what it checks (make, docs, messages, exit statuses) has no counts
# sanitizer pass: its subject is make, the docs and the messages a newcomer meets
. "$(dirname "$0")/lib.sh"

make -n --no-print-directory run ARGS="--timeout 100 -e cpu-clock" >"$TMP/make.out" 2>&1
check "make run ARGS=...: the defaults, then ARGS ($(grep 'emon-perf stat' "$TMP/make.out"))" \
	grep -q '^\./emon-perf stat -a --by system,cgroup,process --top 10 --timeout 5000 --timeout 100 -e cpu-clock$' "$TMP/make.out"

"$EMON" --help >"$TMP/help.out"
check "emon-perf --help names --version" grep -q -- --version "$TMP/help.out"
"$EMON" --version >"$TMP/version.out"
check "emon-perf --version prints it ($(cat "$TMP/version.out"))" grep -q '^emon-perf [0-9]' "$TMP/version.out"

for m in man/*.[18]; do
	check "README links $m" grep -qF "($m)" README.md
done

# a fence opens with ``` and an info string at most, closes with ``` alone
"$PY3" - README.md docs/*.md >"$TMP/fences.out" <<'PY'
import re, sys
bad = 0
for f in sys.argv[1:]:
    inside = None
    for n, l in enumerate(open(f, encoding="utf-8"), 1):
        m = re.match(r"^( {0,3})(```+)(.*)$", l.rstrip("\n"))
        if not m:
            continue
        if inside is None:
            inside = (n, len(m.group(2)))
        elif len(m.group(2)) >= inside[1] and not m.group(3).strip():
            inside = None
        else:
            print(f"{f}:{n}: a fence inside the code block opened at line {inside[0]}: {l.strip()[:60]}")
            bad += 1
    if inside:
        print(f"{f}:{inside[0]}: code block never closed")
        bad += 1
sys.exit(bad != 0)
PY
check "every code fence in README.md and docs/ closes" [ $? -eq 0 ]
cat "$TMP/fences.out"

NOPORT=$(free_port)
"$EMON" report --prometheus http://127.0.0.1:$NOPORT --range 1h >/dev/null 2>"$TMP/prom.err"
rc=$?
check "report --prometheus, nothing listening: exit 1 (got $rc), one line: $(cat "$TMP/prom.err")" \
	bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$TMP/prom.err') -eq 1 ] && grep -q 'cannot reach Prometheus at http://127.0.0.1:$NOPORT' '$TMP/prom.err'"

"$EMON" list >"$TMP/list.out" 2>&1
if ! grep -qi rapl "$TMP/list.out"; then
	echo "      (libpfm4 names no RAPL PMU on this CPU: list has no RAPL row to compare)"
else
	"$EMON" check -j >"$TMP/check.json" 2>/dev/null
	has=0
	[ -e /sys/bus/event_source/devices/power ] || [ -e /sys/class/powercap/intel-rapl:0 ] && has=1
	grep -i rapl "$TMP/list.out"
	if [ $has = 1 ]; then
		check "list: RAPL here, as check finds" grep -qi 'rapl.*RAPL here' "$TMP/list.out"
	else
		check "list: no RAPL on this host, as check finds" grep -qi 'rapl.*not supported>: no RAPL on this host' "$TMP/list.out"
	fi
fi

if [ -e /sys/class/powercap/intel-rapl:0 ] || [ -e /sys/bus/event_source/devices/power ]; then
	echo "      (this host has RAPL: the no-energy line is not checked)"
else
	"$EMON" stat -a --by container -e cpu-clock --timeout 200 >/dev/null 2>"$TMP/noe.err"
	tail -1 "$TMP/noe.err" | sed 's/^/      | /'
	check "stat --by container, no energy source: one line naming --energy model:IDLE_W:MAX_W" \
		bash -c "[ \$(grep -c 'no energy source on this .*--energy model:IDLE_W:MAX_W' '$TMP/noe.err') -eq 1 ]"
	"$EMON" stat -a -e cpu-clock --timeout 200 >/dev/null 2>"$TMP/noe2.err"
	check "stat without --by (perf's habit): no energy line" bash -c "! grep -q 'energy' '$TMP/noe2.err'"
fi
"$EMON" stat -a --by container -e cpu-clock --timeout 300 --json-rows -o "$TMP/rec.jsonl" 2>/dev/null
"$EMON" report "$TMP/rec.jsonl" --html "$TMP/r.html" >/dev/null 2>"$TMP/html.err"
check "report --html names the page it wrote: $(cat "$TMP/html.err")" \
	bash -c "[ -s '$TMP/r.html' ] && grep -qx 'emon-perf: report: wrote $TMP/r.html' '$TMP/html.err'"
check "README links tools/demo.sh" grep -q 'tools/demo.sh' README.md
if command -v chromium >/dev/null; then
	OUTPUT=${OUTPUT:-build} timeout 120 tools/demo.sh "$TMP/demo" >"$TMP/demo.out" 2>&1
	rc=$?
	check "tools/demo.sh $TMP/demo (absolute): exit $rc, report.html and report.png there" \
		bash -c "[ $rc -eq 0 ] && [ -s '$TMP/demo/report.html' ] && [ -s '$TMP/demo/report.png' ]"
	[ -s "$TMP/demo/report.png" ] || tail -5 "$TMP/demo.out"
else
	echo "      (no chromium: the demo's screenshot not checked)"
fi

mkdir -m 700 "$TMP/run"
serve_start "$TMP/run/s.sock" "$TMP/serve.err" --listen none -e cpu-clock,context-switches,cycles,instructions &&
	kill $DPID
wait $DPID 2>/dev/null
sed 's/^/      | /' "$TMP/serve.err"
if grep -q "^  cycles OR cpu-cycles .*<not supported>" "$TMP/list.out" &&
   grep -q "^  instructions .*<not supported>" "$TMP/list.out"; then
	check "serve: 'serving 2 of 4 events', cycles and instructions named in its start line" \
		grep -q "serving 2 of 4 events on .*; not counted here: cycles, instructions (not supported by this machine" "$TMP/serve.err"
else
	check "serve: 'serving 4 events' (this machine counts cycles and instructions)" \
		grep -q "serving 4 events on " "$TMP/serve.err"
fi

if command -v tmux >/dev/null; then
	TM="tmux -S $TMP/tmux.sock"
	$TM new-session -d -x 80 -y 24 "EMON_PERF_SOCKET=$TMP/none.sock $EMON top; sleep 30"
	for _ in $(seq 100); do
		$TM capture-pane -p >"$TMP/top.txt" 2>/dev/null
		grep -q '^NAME' "$TMP/top.txt" && grep -q '^CPU: busy' "$TMP/top.txt" && break
		sleep 0.1
	done
	$TM capture-pane -p -e >"$TMP/top.esc"
	if ! grep -q '^Energy: [a-z]*, split' "$TMP/top.txt"; then
		check "top at 80 columns: the energy line whole, the flag named: $(grep '^Energy' "$TMP/top.txt")" \
			grep -Eq '^Energy: no energy source.*--energy model:IDLE_W:MAX_W estimates it *$' "$TMP/top.txt"
	fi
	cat "$TMP/top.txt" | sed -n 1,6p | sed 's/^/      | /'
	check "top at 80 columns: the title CPU%, no 'CPU%v'" \
		bash -c "grep '^NAME' '$TMP/top.txt' | grep -q ' CPU% ' && ! grep -q 'CPU%v' '$TMP/top.txt'"
	check "top: the sorted column's title underlined" grep -q $'\e\\[[0-9;]*4[0-9;]*m *CPU%' "$TMP/top.esc"
	$TM kill-server

	# a comm of 15 characters and a cgroup whose name ends in what
	# tells it apart, burning, then top at 80 columns again
	cp "$BURN" "$TMP/emon-burner-xyz9"
	long=$(cg_new "a-long-cgroup-name-for-top-to-fit-END42")
	cg_burners 30 "$long"
	cg_bg "$long" "$TMP/emon-burner-xyz9" 30
	$TM new-session -d -x 80 -y 40 "EMON_PERF_SOCKET=$TMP/none.sock $EMON top; sleep 30"
	for _ in $(seq 100); do
		$TM capture-pane -p >"$TMP/cg.txt" 2>/dev/null
		grep -q 'END42' "$TMP/cg.txt" && break
		grep -q '^ *- /' "$TMP/cg.txt" && grep -q '[0-9]' <(grep '^ *- /' "$TMP/cg.txt") && break
		sleep 0.1
	done
	sleep 1.2
	$TM capture-pane -p >"$TMP/cg.txt"
	$TM send-keys p
	for _ in $(seq 50); do
		$TM capture-pane -p >"$TMP/p.txt"
		grep -q '^View: processes' "$TMP/p.txt" && grep -q 'emon-burner' "$TMP/p.txt" && break
		sleep 0.1
	done
	$TM kill-server
	grep '^View' "$TMP/cg.txt" "$TMP/p.txt" | sed 's/^/      | /'
	# each word of the View line whole: after '-': the events top counts
	check "top at 80 columns: the View lines end on a whole word" "$PY3" -c '
import re, sys
ev = "(cycles|instructions|cpu-clock)"
pat = (r"View: [a-z]+ +sort: \S+ (ascending|descending|asc|desc) +filter: \(none\)"
       rf"( +.-.: (({ev}, )*{ev}( not countable here)?|\d+ events?))?")
views = [l.rstrip() for f in sys.argv[1:] for l in open(f) if l.startswith("View:")]
sys.exit(not views or not all(re.fullmatch(pat, v) for v in views))' "$TMP/cg.txt" "$TMP/p.txt"
	grep 'emon-burner\|END42' "$TMP/cg.txt" "$TMP/p.txt" | sed 's/^/      | /'
	check "top at 80 columns: a comm of 15 characters whole (/proc/PID/comm)" \
		grep -q " $(cat /proc/$CG_BG_PID/comm) " "$TMP/p.txt"
	check "top at 80 columns: a long cgroup name keeps its end, '~' where it is cut" \
		grep -Eq '~[a-z-]*END42 ' "$TMP/cg.txt"
else
	echo "      (no tmux: top's header not checked)"
fi
finish
