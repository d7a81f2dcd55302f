#!/usr/bin/env bash
# perf stat's targets side by side with Debian's perf on the same window
# (started together, both with -x , and software events): -p, -C, -I with
# --interval-count, -D and -r. The same number of lines, the same unit and
# event columns, counts within 2% where both count the same task over one
# window; and each against the kernel: -p against /proc/PID/schedstat (a
# busy thread that burns only in a gated window the counts hold whole:
# lib.sh), -C against the CPU's wall time (the window: perf's -C count is
# of a window of its own, printed beside it), -D against the CPU time the
# command had after counting began, and -r against each run's rusage:
# each tool against the truth of its own run, never one run's count
# against another's. Counts of a time allow the steal and emon-perf's the
# time whose owner it estimated (lib.sh: from its -v log, over the gate
# where there is one), as elsewhere. Bad targets exit 2.
. "$(dirname "$0")/lib.sh"

PERF=$(command -v perf) || skip "no perf"
"$PERF" stat -e task-clock -x , true 2>/dev/null || skip "perf stat cannot count here"
EV=task-clock,context-switches

# csv_lines FILE: its lines with an event of $EV
csv_lines() { grep -cE ',(task-clock|context-switches),' "$1"; }
# csv_same_cols A B: the same unit and event columns, line by line
csv_same_cols() {
	"$PY3" -c '
import csv, sys
def cols(f):
    out = []
    for r in csv.reader(open(f)):
        e = [x for x in r if x in ("task-clock", "context-switches")]
        if e:
            i = r.index(e[0]); out.append((r[i - 1], e[0]))
    return out
a, b = cols(sys.argv[1]), cols(sys.argv[2])
print(f"      {a[:2]} vs {b[:2]}")
sys.exit(0 if a == b else 1)' "$1" "$2"
}

# --- -p: a process burning a CPU ---------------------------------------------
# Both tools count at once around one gated window (lib.sh: the process's
# one busy thread, tools/threads -g at 100%, burns only while the gate is
# open; its main thread waits), so their own starts and ends count nothing
# and they are held to each other at 2% (their ratios to the runtime of
# windows of their own drifted 2.2 points apart under make test-loaded).
# Each against the thread's schedstat runtime over the window: 5%, as two
# truths (task-clock is clock-based, and runs up to 3-5% above the
# scheduler's runtime for a CPU-bound task under heavy switching).
start_threads "$TMP/g" 60 -g 100 || { echo "FAIL  tools/threads did not start"; exit 1; }
gt=$(cat "$TMP/g/tids")
s0=$(steal_ns)
gated_side_by_side "$TMP/g" p "$gt" -- -p "$WPID"
check "-p: exit 0" [ "$EMON_RC" -eq 0 ]
steal=$(($(steal_ns) - s0)) unt=$(untraced_gate "$TMP/g" "$TMP/emon-p.err")
check "-p: as many lines as perf" [ "$(csv_lines "$TMP/emon-p.csv")" = "$(csv_lines "$TMP/perf-p.csv")" ]
check "-p: the same unit and event columns" csv_same_cols "$TMP/emon-p.csv" "$TMP/perf-p.csv"
e=$(csv_val "$TMP/emon-p.csv" task-clock) p=$(csv_val "$TMP/perf-p.csv" task-clock)
k=$(awk '{ print $3 - $2 }' "$TMP/g/w")
check "-p: task-clock within 5% of the busy thread's schedstat runtime in the window (+ steal + untraced)" \
	near_steal "$e" "$k" 5 $((steal + unt))
check "-p: perf's within 5% of it, the same truth (+ steal)" near_steal "$p" "$k" 5 "$steal"
check "-p: emon-perf's within 2% of perf's (+ untraced)" near_steal "$e" "$p" 2 "$unt"
kill "$WPID" 2>/dev/null
wait "$WPID" 2>/dev/null

# the rest: a burner's process, whose runtime is its task-clock
"$BURN" 60 &
BURNER=$!
BG_PIDS+=("$BURNER")
sleep 0.2
# window FILE SECONDS [AFTER]: a command for -p's window: the burner's
# runtime at its start and SECONDS later into FILE, then AFTER s more
window() {
	echo "cat /proc/$BURNER/schedstat >$1; sleep $2; cat /proc/$BURNER/schedstat >>$1; sleep ${3:-0}"
}
runtime() { awk 'NR == 1 { a = $1 } NR == 2 { print $1 - a }' "$1"; }
"$EMON" stat -e $EV -p "$BURNER" --timeout 300 -o "$TMP/emon-p.txt" 2>/dev/null
check "-p: perf's header names the process" \
	grep -q "Performance counter stats for process id '$BURNER':" "$TMP/emon-p.txt"

# -p with -I and --interval-count: 3 prints of 300 ms, no more; the
# command (0.9 s of window, then 0.3 s) is waited for, as perf does
"$PERF" stat -x , -e $EV -p "$BURNER" -I 300 --interval-count 3 -- \
	sh -c "$(window "$TMP/perf-pi.w" 0.9 0.3)" 2>"$TMP/perf-pi.csv" &
pp=$!
"$EMON" stat -x , -e $EV -p "$BURNER" -I 300 --interval-count 3 -o "$TMP/emon-pi.csv" -- \
	sh -c "$(window "$TMP/emon-pi.w" 0.9 0.3)" 2>/dev/null
check "-p -I --interval-count 3: exit 0" [ $? -eq 0 ]
wait "$pp"
check "-p -I --interval-count 3: as many lines as perf (6)" \
	[ "$(csv_lines "$TMP/emon-pi.csv")" = "$(csv_lines "$TMP/perf-pi.csv")" ]
check "-p -I: the same unit and event columns" csv_same_cols "$TMP/emon-pi.csv" "$TMP/perf-pi.csv"
sum3() { echo $(( $(csv_val "$1" task-clock 1) + $(csv_val "$1" task-clock 2) + $(csv_val "$1" task-clock 3) )); }
# the three intervals' counts: a gated thread (lib.sh) that burns only
# from 0.15 to 0.6 s of the command, inside emon-perf's three intervals
# (0-0.9 s of its counting), so they hold the window's runtime whole; a
# burner running throughout put the intervals, whose edges are not the
# window's, 2.2% from it under make test-loaded (perf's too: its timer
# drifts there)
start_threads "$TMP/g2" 60 -g 100 || { echo "FAIL  tools/threads did not start"; exit 1; }
gt=$(cat "$TMP/g2/tids")
s0=$(steal_ns)
"$EMON" stat -v -x , -e $EV -p "$WPID" -I 300 --interval-count 3 -o "$TMP/emon-gi.csv" -- \
	sh -c "$(GATE_LOG=$TMP/emon-gi.err gate_cmd "$TMP/g2" "$gt" 0.45 0.5)" 2>"$TMP/emon-gi.err"
steal=$(($(steal_ns) - s0)) unt=$(untraced_gate "$TMP/g2" "$TMP/emon-gi.err")
e=$(sum3 "$TMP/emon-gi.csv") k=$(awk '{ print $2 - $1 }' "$TMP/g2/w")
check "-p -I: the three intervals within 5% of the gated thread's runtime (two truths; + steal + untraced)" \
	near_steal "$e" "$k" 5 $((steal + unt))
kill "$WPID" 2>/dev/null
wait "$WPID" 2>/dev/null
kill "$BURNER" 2>/dev/null
wait "$BURNER" 2>/dev/null

# -p follows what the process forks after the start, as perf -p's
# inherited counters do: a shell that sleeps, then runs a 0.5 s burner (a
# child it forks well after both tools started) and waits for it. The
# truth: the burner's CPU time, 0.5 s by construction (burn spins until
# its process used that much), and the shell's, from the shell's rusage.
# Against it within 5%, the two truths as -p's above (under
# tests/loaded.sh perf's count came out 4.1% above it, emon-perf's 5.4%
# with 13.5 ms of untraced time); around the burner the shell notes the
# length of emon-perf's -v log (DIR/marks, as lib.sh's gates do): the
# time whose owner was estimated while it ran (untraced_gate)
forkp() {
	"$BASH" -c '
sleep 1.2
m0=$(cat "$3" 2>/dev/null | wc -l)
"$1" 0.5
echo $m0 $(cat "$3" 2>/dev/null | wc -l) >"$4/marks"
sleep 0.3
times >"$2"' forkp "$BURN" "$1" "$2" "$3" &
}
mkdir -p "$TMP/fp"
s0=$(steal_ns)
forkp "$TMP/fork-p.times" "$TMP/emon-fp.err" "$TMP/fp"
FP=$!
BG_PIDS+=("$FP")
"$PERF" stat -x , -e $EV -p "$FP" 2>"$TMP/perf-fp.csv" &
pp=$!
"$EMON" stat -v -x , -e $EV -p "$FP" -o "$TMP/emon-fp.csv" 2>"$TMP/emon-fp.err"
check "-p of a process that forks later: exit 0, ends with it" [ $? -eq 0 ]
wait "$pp"
steal=$(($(steal_ns) - s0)) unt=$(untraced_gate "$TMP/fp" "$TMP/emon-fp.err")
ft=$(awk '{ for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } }
	END { printf "%.0f\n", s * 1e9 }' "$TMP/fork-p.times")
e=$(csv_val "$TMP/emon-fp.csv" task-clock) p=$(csv_val "$TMP/perf-fp.csv" task-clock)
check "-p: the child forked after the start counted, within 5% of the tree's rusage (two truths; + steal + untraced)" \
	near_steal "$e" "$ft" 5 $((steal + unt))
check "-p: the same as perf's (inherited counters) within 2% (+ untraced)" near_steal "$e" "$p" 2 "$unt"

# ival_ns FILE N: interval N's length from -I's timestamps (the first
# field, the interval's end): a busy machine prints late, so an interval
# is not its nominal length, nor a --timeout run its timeout
ival_ns() {
	"$PY3" -c '
import csv, sys
t = [float(r[0]) for r in csv.reader(open(sys.argv[1])) if "task-clock" in r]
n = int(sys.argv[2])
print("%.0f" % ((t[n - 1] - (t[n - 2] if n > 1 else 0)) * 1e9) if len(t) >= n else "missing")' "$1" "$2"
}
# --- -C: CPU 1 for 1 s; its task-clock is its wall time ----------------------
"$PERF" stat -x , -e $EV -C 1 --timeout 1000 2>"$TMP/perf-c.csv" &
pp=$!
"$EMON" stat -x , -e $EV -C 1 -I 1000 --interval-count 1 -o "$TMP/emon-c.csv" 2>/dev/null
check "-C 1: exit 0" [ $? -eq 0 ]
wait "$pp"
check "-C 1: as many lines as perf" [ "$(csv_lines "$TMP/emon-c.csv")" = "$(csv_lines "$TMP/perf-c.csv")" ]
check "-C 1: the same unit and event columns" csv_same_cols "$TMP/emon-c.csv" "$TMP/perf-c.csv"
# a CPU's task-clock is the length of the window that counts it: perf's
# --timeout window is its own, not emon-perf's interval, and only the
# interval's length is the truth for emon-perf's count
e=$(csv_val "$TMP/emon-c.csv" task-clock) p=$(csv_val "$TMP/perf-c.csv" task-clock)
echo "      perf's, over its own --timeout 1000 window: $p ns"
w=$(ival_ns "$TMP/emon-c.csv" 1)
check "-C 1: task-clock within 2% of one CPU's wall time over its 1 s interval ($w ns)" near "$e" "$w" 2
"$EMON" stat -x , -e task-clock -C 0,1 --by cpu --timeout 300 -o "$TMP/emon-c2.csv" 2>/dev/null
check "-C 0,1 --by cpu: a row per CPU listed" [ "$(grep -c '^CPU[0-9]*,' "$TMP/emon-c2.csv")" -eq 2 ]
"$EMON" stat -x , -e task-clock -C 1 --by cpu --timeout 300 -o "$TMP/emon-c3.csv" 2>/dev/null
check "-C 1 --by cpu: CPU 1's row only" [ "$(grep -c '^CPU[0-9]*,' "$TMP/emon-c3.csv")" -eq 1 ] &&
	grep -q '^CPU1,' "$TMP/emon-c3.csv"

# -C with -I and --interval-count
"$PERF" stat -x , -e $EV -C 0 -I 200 --interval-count 3 2>"$TMP/perf-ci.csv" &
pp=$!
"$EMON" stat -x , -e $EV -C 0 -I 200 --interval-count 3 -o "$TMP/emon-ci.csv" 2>/dev/null
wait "$pp"
check "-C 0 -I 200 --interval-count 3: as many lines as perf" \
	[ "$(csv_lines "$TMP/emon-ci.csv")" = "$(csv_lines "$TMP/perf-ci.csv")" ]
for n in 1 2 3; do
	e=$(csv_val "$TMP/emon-ci.csv" task-clock $n) w=$(ival_ns "$TMP/emon-ci.csv" $n)
	check "-C 0 -I: interval $n's task-clock within 2% of its length ($w ns)" near "$e" "$w" 2
done

# --- -D: counting starts 200 ms after a 0.6 s burner started ---------------
# Each tool against the kernel for its own run (two runs of a burner have
# had different shares of a busy machine by 200 ms: their counts are not
# one window's): a shell running the burner then printing its and its
# child's CPU time (times: rusage); when "Events enabled" comes out, the
# schedstat of both so far. What -D counted is the rest: the total less
# that (5%, + 10 ms for reading the line late on a busy machine, while
# the burner runs on, + the steal and emon-perf's untraced time).
# dk_run OUT ERR TOOL...: TOOL stat -D 200 ... -o OUT over that shell, its
# stderr to ERR; prints "AT TOTAL" (ns)
dk_run() {
	"$PY3" - "$BURN" "$@" <<'PY'
import os, re, subprocess, sys
burn, out, err, tool = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
p = subprocess.Popen(tool + ["-x", ",", "-e", "task-clock", "-D", "200", "-o", out,
                             "--", "bash", "-c", '"$0" 0.6; times', burn],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
def tree(pid):
    kids = []
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            kids += open(f"/proc/{pid}/task/{t}/children").read().split()
        except OSError:
            pass
    return [k for c in kids for k in [c] + tree(c)]
at, said = None, []
for l in p.stderr:
    said.append(l)
    if l.strip() == "Events enabled":
        ns = 0
        for t in tree(p.pid):
            try:
                ns += int(open(f"/proc/{t}/schedstat").read().split()[0])
            except OSError:
                pass
        at = ns
        break
so, se = p.communicate()
open(err, "w").write("".join(said) + se)
tot = sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([0-9.]+)s", so)) * 1e9
print(f"{at} {tot:.0f}")
PY
}
s0=$(steal_ns)
read -r at tot < <(dk_run "$TMP/emon-dk.csv" "$TMP/emon-dk.err" "$EMON" stat -v)
steal=$(($(steal_ns) - s0)) unt=$(untraced_v_ns "$TMP/emon-dk.err")
check "-D: perf's two lines on stderr" grep -qx "Events enabled" "$TMP/emon-dk.err"
e=$(csv_val "$TMP/emon-dk.csv" task-clock)
echo "      -D 200: the shell and burner had run $at ns when counting began, $tot ns in all (rusage)"
check "-D 200: what it counted is their CPU time after that, within 5% + 10 ms (+ steal + untraced; $e ns)" \
	near_plus "$e" "$((tot - at))" 5 $((10000000 + steal + unt)) "late read/steal/untraced "
s0=$(steal_ns)
read -r at tot < <(dk_run "$TMP/perf-dk.csv" "$TMP/perf-dk.err" "$PERF" stat)
steal=$(($(steal_ns) - s0))
p=$(csv_val "$TMP/perf-dk.csv" task-clock)
echo "      perf -D 200: $at ns when counting began, $tot ns in all"
check "-D 200: perf's, the same truth for its own run, within 5% + 10 ms (+ steal; $p ns)" \
	near_plus "$p" "$((tot - at))" 5 $((10000000 + steal)) "late read/steal "

# --- -r 3 against each run's rusage ---------------------------------------
# Each run is a bash that burns 0.3 s and appends its times (its own CPU
# time and its reaped children's, from the kernel's rusage) to a file: the
# mean of three runs' is the truth -r 3's mean counts, for either tool
RUN_TIMES='"$0" 0.3; times >>"$1"'
mean_times() {
	awk '{ for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } }
		END { printf "%.0f\n", s / (NR / 2) * 1e9 }' "$1"
}
s0=$(steal_ns)
"$EMON" stat -v -x , -e task-clock -r 3 -o "$TMP/emon-r.csv" -- \
	bash -c "$RUN_TIMES" "$BURN" "$TMP/emon-r.times" 2>"$TMP/emon-r.err"
check "-r 3: exit 0" [ $? -eq 0 ]
# a mean's slack: the runs' steal and untraced time over 3
rslack=$(( ($(steal_ns) - s0 + $(untraced_v_ns "$TMP/emon-r.err")) / 3 ))
s0=$(steal_ns)
"$PERF" stat -x , -e task-clock -r 3 -- bash -c "$RUN_TIMES" "$BURN" "$TMP/perf-r.times" \
	2>"$TMP/perf-r.csv"
psteal=$(( ($(steal_ns) - s0) / 3 ))
check "-r 3: one line, as perf's" [ "$(csv_lines "$TMP/emon-r.csv")" = "$(csv_lines "$TMP/perf-r.csv")" ]
check "-r 3 -x: the spread after the event name, as perf's" \
	grep -qE ',task-clock,[0-9]+\.[0-9]{2}%,' "$TMP/emon-r.csv"
check "-r 3: three runs' times" [ "$(wc -l <"$TMP/emon-r.times")" -eq 6 ]
e=$(csv_val "$TMP/emon-r.csv" task-clock) ek=$(mean_times "$TMP/emon-r.times")
p=$(csv_val "$TMP/perf-r.csv" task-clock) pk=$(mean_times "$TMP/perf-r.times")
check "-r 3: the mean task-clock within 2% of the runs' mean rusage (+ steal + untraced, over 3)" \
	near_steal "$e" "$ek" 2 "$rslack"
check "-r 3: perf's within 2% of its runs' mean rusage (+ steal, over 3)" near_steal "$p" "$pk" 2 "$psteal"
# each over its own runs' rusage: emon-perf's ratio to its runs' applied
# to perf's runs, against perf's count
check "-r 3: emon-perf's mean and perf's, each over its runs' rusage, within 2% (+ both slacks)" \
	near_steal "$(awk -v a="$e" -v b="$ek" -v c="$pk" 'BEGIN { printf "%.0f", a / b * c }')" "$p" 2 \
	$((rslack + psteal))
"$EMON" stat -e task-clock -r 3 -o "$TMP/emon-r.txt" -- "$BURN" 0.1 2>/dev/null
check "-r 3: text says (3 runs) and the elapsed time's spread" \
	grep -q "(3 runs):" "$TMP/emon-r.txt" && grep -qE ' \+- [0-9.]+ seconds time elapsed' "$TMP/emon-r.txt"
"$EMON" stat -r 2 -- sh -c 'exit 5' >/dev/null 2>&1
check "-r: the last run's exit status" [ $? -eq 5 ]

# --- attached to the daemon: -p and -C from its snapshots ------------------
if serve_start "$TMP/d.sock" "$TMP/serve.log" -v -e task-clock,context-switches; then
	# a gated thread (lib.sh) burning from 0.15 to 1.15 s of the command:
	# stat's first and last snapshots hold the window whole (a burner
	# running throughout read 2.03% over a window of the command's own
	# under make test-loaded); 5% for the two truths, as -p's above
	start_threads "$TMP/g3" 60 -g 100 || { echo "FAIL  tools/threads did not start"; exit 1; }
	gt=$(cat "$TMP/g3/tids")
	s0=$(steal_ns)
	"$EMON" stat --socket "$TMP/d.sock" -x , -e $EV -p "$WPID" -o "$TMP/emon-pd.csv" -- \
		sh -c "$(GATE_LOG=$TMP/serve.log gate_cmd "$TMP/g3" "$gt" 1)" 2>"$TMP/emon-pd.err"
	check "attached -p: exit 0, attached" [ $? -eq 0 ] && grep -qi "attached\|daemon" "$TMP/emon-pd.err"
	steal=$(($(steal_ns) - s0)) unt=$(untraced_gate "$TMP/g3" "$TMP/serve.log")
	e=$(csv_val "$TMP/emon-pd.csv" task-clock) k=$(awk '{ print $2 - $1 }' "$TMP/g3/w")
	check "attached -p: task-clock within 5% of the gated thread's schedstat runtime (+ steal + the daemon's untraced)" \
		near_steal "$e" "$k" 5 $((steal + unt))
	kill "$WPID" 2>/dev/null
	wait "$WPID" 2>/dev/null
	"$EMON" stat --socket "$TMP/d.sock" -x , -e $EV -C 1 -I 1000 --interval-count 1 \
		-o "$TMP/emon-cd.csv" 2>/dev/null
	e=$(csv_val "$TMP/emon-cd.csv" task-clock) w=$(ival_ns "$TMP/emon-cd.csv" 1)
	check "attached -C 1: task-clock within 2% of one CPU's interval ($w ns)" near "$e" "$w" 2
	kill "$DPID"
	wait "$DPID" 2>/dev/null
fi

# --- bad targets: one line naming the culprit, exit 2 ---------------------
bad() {
	local what=$1 want=$2
	shift 2
	"$EMON" stat "$@" -- true >/dev/null 2>"$TMP/bad.err"
	local rc=$?
	check "$what: exit 2, one line naming '$want'" \
		[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -qF -- "$want" "$TMP/bad.err"
}
bad "-p of no process" 999999 -p 999999
bad "-p with a bad list" "1,,2" -p 1,,2
bad "-C of a CPU that does not exist" "CPU 4095" -C 4095
bad "-C with a bad list" "0-" -C 0-
bad "-r 0" "-r" -r 0
bad "--interval-count without -I" "--interval-count" --interval-count 2
bad "-p with -a" "-p" -p 1 -a
bad "-C with -G" "-C" -C 0 -G /
bad "-r with -I" "-r" -r 2 -I 100
finish
