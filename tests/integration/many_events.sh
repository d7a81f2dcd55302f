#!/usr/bin/env bash
# More than 8 events (16, the most): the events past the 8th are counted
# as well as the first ones, by stat on its own and attached to a daemon
# (protocol 4), and on the path of every event's own per-CPU counter too
# (make test's sanitizer pass runs this with EMON_SWITCH_EVENTS=counters,
# the path cycles and instructions take). The truths, for the same
# window: the command tree's rusage, read by its wrapper once every
# process of the tree has ended (CPU time, minor and major faults,
# voluntary and involuntary switches). task-clock is clock-based: held to
# the rusage CPU time within 3% + steal + untraced, as command_mode.sh's.
. "$(dirname "$0")/lib.sh"

# 8 events first, then the 8 checked against the kernel
FILL=cpu-migrations,cgroup-switches,software/config=7/,software/config=8/,software/config=9/,cpu-clock:k,page-faults:u,context-switches:k
CHECKED=task-clock,page-faults,minor-faults,major-faults,context-switches,cpu-clock,minor-faults:u,task-clock:u
EV=$FILL,$CHECKED

# The tree's rusage, once it and every process it orphaned have ended, as
# JSON: cpu_ns, minflt, majflt, csw (voluntary + involuntary). The
# wrapper's own faults and switches after its getrusage (its write and
# exit) are counted, not in it: a few.
RUN_RU=("$PY3" -c '
import ctypes, json, os, resource, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)	# PR_SET_CHILD_SUBREAPER
st = subprocess.call(sys.argv[2:])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
v = dict(cpu_ns=round((s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime) * 1e9),
         minflt=s.ru_minflt + c.ru_minflt, majflt=s.ru_majflt + c.ru_majflt,
         csw=s.ru_nvcsw + c.ru_nvcsw + s.ru_nivcsw + c.ru_nivcsw)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, json.dumps(v).encode())
os._exit(st)')
# CPU time, faults (64 MiB written: 16384 pages and more) and switches
# (50 sleeps, each a fork and an exec)
WORK="$BURN 0.3 & $PY3 -c 'b = b\"x\" * (64 << 20)'; for i in \$(seq 50); do sleep 0.005; done; wait"

# near_n A B TOL_PERCENT SLACK: counts, |A - B| <= TOL% of B + SLACK
near_n() {
	"$PY3" -c '
import sys
a, b, tol, slack = map(float, sys.argv[1:5])
print(f"      {a:.0f} vs {b:.0f}: {abs(a - b):.0f} apart (tolerance {tol}% + {slack:.0f})")
sys.exit(0 if abs(a - b) <= tol / 100 * b + slack else 1)' "$@"
}
ru() { "$PY3" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# counted_vs_kernel WHAT JSONL RUSAGE STEAL_NS
counted_vs_kernel() {
	local what=$1 f=$2 r=$3 steal=$4 unt
	unt=$(untraced_ns "$f")
	check "$what: 16 events in the command row, none missing" "$PY3" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
c = [r for r in rows if r["scope"] == "command"][-1]["counters"]
print("      ", len(c), "events:", ", ".join(sorted(c)))
sys.exit(0 if len(c) == 16 and all(v is not None for v in c.values()) else 1)' "$f"
	check "$what: task-clock (the 9th) vs the tree's rusage CPU time within 3% (+ steal + untraced)" \
		near_steal "$(jcommand "$f" task-clock)" "$(ru "$r" cpu_ns)" 3 $((steal + unt))
	check "$what: cpu-clock (the 14th) vs task-clock within 1%" \
		near "$(jcommand "$f" cpu-clock)" "$(jcommand "$f" task-clock)" 1
	check "$what: task-clock:u (the 16th), the same clock, within 1% of task-clock" \
		near "$(jcommand "$f" task-clock:u)" "$(jcommand "$f" task-clock)" 1
	# faults of a slice after an untraced switch are split by CFS run
	# time with it (lib/steal.sh): those of the untraced time, at the
	# run's own rate per task-clock, are allowed too
	local pf mf us
	pf=$(jcommand "$f" page-faults) mf=$(jcommand "$f" minor-faults)
	us=$(untraced_count "$pf" "$unt" "$(jcommand "$f" task-clock)")
	check "$what: page-faults (the 10th) vs rusage's minor + major faults within 2% + 200 (+ $us untraced)" \
		near_n "$pf" $(($(ru "$r" minflt) + $(ru "$r" majflt))) 2 $((200 + us))
	check "$what: minor-faults (the 11th) vs rusage's within 2% + 200 (+ $us untraced)" \
		near_n "$mf" "$(ru "$r" minflt)" 2 $((200 + us))
	check "$what: major-faults (the 12th) vs rusage's within 20" \
		near_n "$(jcommand "$f" major-faults)" "$(ru "$r" majflt)" 0 20
	check "$what: context-switches (the 13th) vs rusage's voluntary + involuntary within 5% + 20" \
		near_n "$(jcommand "$f" context-switches)" "$(ru "$r" csw)" 5 20
}

# --- stat on its own -------------------------------------------------------
s0=$(steal_ns)
"$EMON" stat -v -e "$EV" --by system,process --json-rows -o "$TMP/own.jsonl" 2>"$TMP/own.err" -- \
	"${RUN_RU[@]}" "$TMP/own.ru" sh -c "$WORK"
check "stat with 16 events: exit 0" [ $? -eq 0 ] || cat "$TMP/own.err"
counted_vs_kernel "stat" "$TMP/own.jsonl" "$TMP/own.ru" $(($(steal_ns) - s0))

# text and CSV: a line per event, in the order given
"$EMON" stat -e "$EV" -x , -o "$TMP/own.csv" -- true
check "-x ,: 16 lines, the events in the order given" "$PY3" -c '
import csv, sys
got = [r[2] for r in csv.reader(open(sys.argv[1])) if len(r) > 2]
print("      ", got)
sys.exit(0 if got == sys.argv[2].split(",") else 1)' "$TMP/own.csv" "$EV"

# --- attached: a daemon counting the 16 ------------------------------------
if serve_start "$TMP/d.sock" "$TMP/serve.log" -e "$EV"; then
	s0=$(steal_ns)
	"$EMON" stat -v --socket "$TMP/d.sock" -e "$EV" --by system,process --json-rows \
		-o "$TMP/att.jsonl" 2>"$TMP/att.err" -- "${RUN_RU[@]}" "$TMP/att.ru" sh -c "$WORK"
	check "attached with 16 events: exit 0, attached" [ $? -eq 0 ] &&
		grep -q "attached to the daemon" "$TMP/att.err" || cat "$TMP/att.err"
	counted_vs_kernel "attached" "$TMP/att.jsonl" "$TMP/att.ru" $(($(steal_ns) - s0))
	kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
fi
finish
