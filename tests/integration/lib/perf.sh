# Sourced by tests/integration/lib.sh (its functions and variables are
# in scope): perf beside emon-perf: perf's CSV, the time event perf -G counts, and
# gated windows that both tools count at once.

# The time event perf stat -G counts beside emon-perf's cpu-clock: task-clock.
# At every cgroup switch the kernel schedules out and back in every event of
# each PMU context that holds cgroup events (perf_cgroup_switch ->
# ctx_sched_out/ctx_sched_in with EVENT_CGROUP select whole PMU contexts),
# and a cpu-clock event does not count between its del and add. Cgroup
# cpu-clock events would so stop emon-perf's per-CPU cpu-clock events, which
# share their PMU, at every cgroup switch (measured: CPU 1's cpu-clock 12%
# short of wall time under a cross-cgroup ping-pong). task-clock events have a
# PMU of their own, and in a cgroup they count what cpu-clock would.
# Counting events (context-switches) lose nothing: no switch is counted
# inside the reschedule.
PERF_TIME=task-clock

# perf_csv_ns FILE EVENT: perf stat -x, value of EVENT (msec) in ns
perf_csv_ns() {
	awk -F, -v ev="$2" '$3 == ev { printf "%.0f\n", $1 * 1e6 }' "$1"
}

# perf_cg FILE EVENT CGROUP: perf stat -x, --for-each-cgroup value of EVENT
# for CGROUP (as given to perf, no leading /); time events in ns
perf_cg() {
	awk -F, -v ev="$2" -v cg="${3#/}" '$3 == ev && $4 == cg {
		if ($2 == "msec") printf "%.0f\n", $1 * 1e6; else print $1 }' "$1"
}

# --- gated windows: perf and emon-perf side by side ------------------------
# tools/threads -g burns only while DIR/run exists: both tools count at
# once, from before the gate opens to after it closed, so what each
# counts beyond the window whose runtime the test reads (its own start and
# end, a few ms of a busy thread, which put their ratios to the runtime up
# to 3 points apart on a loaded machine) is the threads' polls for the
# gate alone (0.1 ms a second). start_threads (stat_threads.sh) or
# THREADS_PID set by the caller names the workload's pid: $WPID.

# start_threads DIR SECONDS [-x SECS] [-g] SHARE...: tools/threads in the
# background ($WPID); returns once its tids are in DIR/tids
start_threads() {
	local dir=$1 secs=$2
	shift 2
	local x=()
	[ "$1" = -x ] && x=(-x "$2") && shift 2
	local g=()
	[ "$1" = -g ] && g=(-g) && shift
	mkdir -p "$dir"
	"$TOOLS/threads" "${g[@]}" "${x[@]}" "$dir" "$secs" "$@" &
	WPID=$!
	BG_PIDS+=("$WPID")
	for _ in $(seq 500); do
		[ -s "$dir/tids" ] && return 0
		sleep 0.02
	done
	return 1
}
# gate_hold DIR NAME: the command a tool counts beside the gated workload:
# says it runs, then waits for the window's end
gate_hold() { echo "touch $1/started.$2; while [ ! -e $1/done ]; do sleep 0.01; done"; }
# gate_window DIR N SECONDS TID...: once N tools' commands run (and 0.3 s
# more: perf may enable a -p/-t target's counters after it starts the
# command), the gate open for SECONDS; each TID's runtime (of process
# $WPID) over it, from before it opened to after the threads saw it
# closed, to DIR/w ("TID START END"); then DIR/done ends the commands.
# With GATE_LOG set (a -v log), its line counts at the gate's opening and
# closing to DIR/marks (untraced_gate)
gate_window() {
	local d=$1 n=$2 s=$3 t m0
	shift 3
	for _ in $(seq 1500); do
		[ "$(find "$d" -maxdepth 1 -name 'started.*' | wc -l)" -ge "$n" ] && break
		sleep 0.02
	done
	sleep 0.3
	local -A r
	for t; do r[$t]=$(cut -d' ' -f1 "/proc/$WPID/task/$t/schedstat"); done
	[ -n "${GATE_LOG:-}" ] && m0=$(wc -l <"$GATE_LOG")
	touch "$d/run"
	sleep "$s"
	rm -f "$d/run"
	sleep 0.1	# a thread sees it within a 10 ms period
	for t; do echo "$t ${r[$t]} $(cut -d' ' -f1 "/proc/$WPID/task/$t/schedstat")" >>"$d/w"; done
	[ -n "${GATE_LOG:-}" ] && echo "$m0 $(wc -l <"$GATE_LOG")" >"$d/marks"
	touch "$d/done"
}
# gate_cmd DIR TID SECONDS [AFTER]: a command for one tool alone: after
# 0.15 s (inside the tool's first interval), the gate open for SECONDS;
# TID's runtime (of process $WPID) over it to DIR/w ("START END"); then
# AFTER s more. GATE_LOG: as gate_window's
gate_cmd() {
	local r="cut -d' ' -f1 /proc/$WPID/task/$2/schedstat" m=:
	[ -n "${GATE_LOG:-}" ] && m="wc -l <$GATE_LOG"
	echo "sleep 0.15; r0=\$($r); m0=\$($m); touch $1/run; sleep $3; rm -f $1/run; sleep 0.05
	echo \$r0 \$($r) >$1/w; echo \$m0 \$($m) >$1/marks; sleep ${4:-0}"
}
# gated_side_by_side DIR NAME TID... -- TARGET...: perf and emon-perf,
# each `stat -x , -e $EV TARGET...`, around one gated window of 1 s of
# DIR's threads (the TIDs' runtimes read); CSVs in $TMP/perf-NAME.csv and
# $TMP/emon-NAME.csv, the window in DIR/w; EMON_RC is emon-perf's exit
# status; emon-perf's -v log in $TMP/emon-NAME.err, for untraced_gate
gated_side_by_side() {
	local d=$1 n=$2 pp ep tids=()
	shift 2
	while [ "$1" != -- ]; do tids+=("$1"); shift; done
	shift
	rm -f "$d/done" "$d/w" "$d/marks" "$d"/started.*
	"$PERF" stat -x , -e $EV "$@" -- sh -c "$(gate_hold "$d" perf)" 2>"$TMP/perf-$n.csv" &
	pp=$!
	"$EMON" stat -v -x , -e $EV "$@" -o "$TMP/emon-$n.csv" -- \
		sh -c "$(gate_hold "$d" emon)" 2>"$TMP/emon-$n.err" &
	ep=$!
	GATE_LOG=$TMP/emon-$n.err gate_window "$d" 2 1 "${tids[@]}"
	wait "$ep"
	EMON_RC=$?
	wait "$pp"
}
