#!/usr/bin/env bash
# -p, -t and --sched against the scheduler's own figures for the same
# window, on whatever kernel runs this (the host's, and Debian 12's 6.1
# and 6.12 in tests/vm/, where emon-perf takes seconds to load): a
# process whose one thread burns 70% of a CPU only while a gate is open
# (tools/threads -g); the gate opens from inside emon-perf's command
# (lib.sh gate_cmd), so after it counts whatever its start took, and the
# thread's schedstat runtime is read from before it opens to after it
# closed. Each count of that process or thread holds to that runtime:
# task-clock within 8% of the runtime over the gate (the clock runs 2-3%
# above the runtime for a task that sleeps and wakes, stat_threads.sh) +
# steal + the untraced time of the gate. --sched's on-CPU time (that
# runtime's own delta) and the context switches lie between the thread's
# figures over an inner window (the gate; emon-perf's command) and an
# outer one (from before emon-perf started to after it ended): outside
# the gate the thread only polls it. -t's row is a command row keyed by
# the thread.
. "$(dirname "$0")/lib.sh"

start_threads "$TMP/w" 120 -g 70 || { echo "FAIL  tools/threads did not start"; exit 1; }
mapfile -t T <"$TMP/w/tids"
TID=${T[0]}
# the thread's switches (voluntary and not), read by the gate's command
# beside its runtime: over emon-perf's whole command, not its start
SWREAD="awk '/ctxt_switches/ { s += \$2 } END { print s }' /proc/$WPID/task/$TID/status"

RUNREAD="cut -d' ' -f1 /proc/$WPID/task/$TID/schedstat"

# gated TARGET...: emon-perf --json-rows over TARGET around a 1 s gate; its rows in
# $TMP/g.jsonl. Two windows bracket what it counts: the inner one, its
# command's (the thread's switches, $SW_IN) and gate's (its runtime,
# $RUN_IN), inside what emon-perf counts; the outer one, from before
# emon-perf started to after it ended ($SW_OUT, $RUN_OUT), around it:
# between them the thread only polled its closed gate every 50 ms. The
# slack (steal + the gate's untraced time) in $SLACK.
gated() {
	local s0 r0 w0
	rm -f "$TMP/w/run" "$TMP/w/w" "$TMP/w/marks" "$TMP/w/sw"
	s0=$(steal_ns) r0=$(eval "$RUNREAD") w0=$(eval "$SWREAD")
	"$EMON" stat -v --json-rows -e task-clock,context-switches --sched -o "$TMP/g.jsonl" "$@" -- \
		sh -c "w0=\$($SWREAD); $(GATE_LOG=$TMP/g.err gate_cmd "$TMP/w" "$TID" 1 0.05)
		echo \$w0 \$($SWREAD) >$TMP/w/sw" 2>"$TMP/g.err"
	check "stat $* exits 0" [ $? -eq 0 ]
	RUN_OUT=$(($(eval "$RUNREAD") - r0)) SW_OUT=$(($(eval "$SWREAD") - w0))
	SW_IN=$(awk '{ print $2 - $1 }' "$TMP/w/sw")
	RUN_IN=$(awk '{ print $2 - $1 }' "$TMP/w/w")
	SLACK=$(($(steal_ns) - s0 + $(untraced_gate "$TMP/w" "$TMP/g.err")))
	echo "      the thread's runtime: $RUN_IN ns over the gate, $RUN_OUT ns around emon-perf; its switches: $SW_IN over the command, $SW_OUT around emon-perf; slack $((SLACK / 1000)) us"
}
# bracket WHAT GOT LOW HIGH TOL% SLACK: LOW - TOL% - SLACK <= GOT <= HIGH + TOL% + SLACK
bracket() {
	"$PY3" -c '
import sys
g, lo, hi, tol, sl = map(float, sys.argv[1:6])
print(f"      {g:.6g} in [{lo:.6g}, {hi:.6g}] (tolerance {tol}% + {sl:.6g})")
sys.exit(0 if lo * (1 - tol / 100) - sl <= g <= hi * (1 + tol / 100) + sl else 1)' "$@"
}
gated -p "$WPID"
check "-p: the process's task-clock within 8% of its thread's runtime over the gate (+ steal + untraced)" \
	near_steal "$(jsum_counter "$TMP/g.jsonl" command "$WPID" task-clock)" "$RUN_IN" 8 "$SLACK"
check "-p --sched: on-CPU between the thread's runtime over the gate and around emon-perf (1% + steal + untraced)" \
	bracket "$(jsum_counter "$TMP/g.jsonl" command "$WPID" on_cpu_ns sched)" "$RUN_IN" "$RUN_OUT" 1 "$SLACK"
check "-p: context-switches between the thread's over the command and around emon-perf (+-2)" \
	bracket "$(jsum_counter "$TMP/g.jsonl" command "$WPID" context-switches)" "$SW_IN" "$SW_OUT" 0 2

gated -t "$TID"
check "-t: the thread's task-clock within 8% of its runtime over the gate (+ steal + untraced)" \
	near_steal "$(jsum_counter "$TMP/g.jsonl" command "$TID" task-clock)" "$RUN_IN" 8 "$SLACK"
check "-t: context-switches between the thread's over the command and around emon-perf (+-2)" \
	bracket "$(jsum_counter "$TMP/g.jsonl" command "$TID" context-switches)" "$SW_IN" "$SW_OUT" 0 2
kill "$WPID" 2>/dev/null
wait "$WPID" 2>/dev/null
finish
