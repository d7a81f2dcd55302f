#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make bench: emon-perf side by side with perf stat --for-each-cgroup, in one
# run, on this machine, then BENCHMARKS.md and docs/bench-slowdown.svg
# (tools/bench/report.py). Needs root, a cgroup2 mount, perf and bpftool.
#
# Phases (raw data in $OUTPUT/bench/results, one TSV per phase):
#   pingpong  cross-cgroup ping-pong (tools/pingpong.c, pinned to the last
#             CPU) with no monitor, emon-perf -G K cgroups and perf stat
#             --for-each-cgroup the same K, K = 1 16 64 256 1024; a warm-up
#             round (discarded) counts each monitor's perf_event fds and
#             kernel memory, then REPS rounds in a shuffled order
#   ring      the many-cgroup variant: N processes in N cgroups taking turns
#             on one CPU, watched by the same three, N = 16 256 1024
#   accuracy  one workload seen by emon-perf, perf stat -G (nested) and
#             cpu.stat at once: the ping-pong, then two CPU burners
#   bpfcost   on_switch's run_time_ns / run_cnt (the run-time statistics
#             kernel.bpf_stats_enabled switches on, held on by a
#             BPF_ENABLE_STATS fd: bench-switch-cost -S)
#             for 1, 2, 3 events, with switch-visible events counted from
#             the switch (the engine) and from counters (as before), and a
#             breakdown of its steps on the same object, cut step by step
#             (tools/bench-switch-cost.c)
#   flush     flush + read time (emon-perf -v) with 1,000 and 10,000 live
#             processes and 1,000 live cgroups; emon-perf's own CPU over
#             CPU_SECS at -I 1000 with 1,000 cgroups; a profile of it; the
#             map read in isolation (tools/bench-drain.c)
#
# Everything but the workloads runs on CPU 0; the workloads pin themselves
# to the last CPU and run SCHED_FIFO (BENCH_RT, priority 10; 0 for
# SCHED_OTHER), so that other tasks of a shared machine cannot take their
# CPU: whatever runs in their context-switch path (the BPF program, perf's
# cgroup switch, the flush IPIs) is still paid by them. RT throttling leaves
# the others 5% of that CPU, the same for every configuration.
#
# Events: cycles,instructions,cpu-clock,context-switches where perf counts
# cycles and instructions, else cpu-clock,context-switches (see "the
# machine" below).
#
# Knobs (environment): BENCH_REPS (6), BENCH_RING_REPS (4), BENCH_SECS (2,
# seconds measured per ping-pong run), BENCH_CPU_SECS (60), BENCH_QUICK=1
# (a short smoke run: fewer rounds, shorter runs), BENCH_PHASES (a subset,
# e.g. "bpfcost flush": the other phases' results are kept), BENCH_EVENTS
# (the monitors' events; must include cpu-clock). BENCH_QUICK and
# BENCH_PHASES do not rewrite BENCHMARKS.md unless BENCH_REPORT=1.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tools/bench/lib.sh
. tools/bench/lib.sh
RES=$OUTPUT/bench/results
REPS=${BENCH_REPS:-6}
CPU_SECS=${BENCH_CPU_SECS:-60}
KS="1 16 64 256 1024"
RING_NS="16 256 1024"
RING_REPS=${BENCH_RING_REPS:-4}
COST_REPS=3
REPORT=1
PHASES=${BENCH_PHASES:-pingpong ring accuracy bpfcost flush}
[ -n "${BENCH_PHASES:-}" ] && REPORT=${BENCH_REPORT:-0}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	REPS=${BENCH_REPS:-2} SECS=${BENCH_SECS:-1} CPU_SECS=${BENCH_CPU_SECS:-5}
	RING_REPS=1 COST_REPS=1 REPORT=${BENCH_REPORT:-0}
fi
# Events: set once the machine is known (see "the machine" below)
EVENTS= EVENTS3= EVSETS=() PMU=0

bench_setup "perf bpftool python3 taskset bc" "pingpong bench-sleepers bench-switch-cost bench-drain"

BENCHCG=/emon-bench-$$
CGDIR=$CGROOT$BENCHCG
bench_traps

[ -z "${BENCH_PHASES:-}" ] && rm -rf "$RES"	# a subset of phases keeps the others' results
mkdir -p "$RES/raw" "$OUTPUT/bench" || die "cannot create $RES"
mkdir "$CGDIR" || die "cannot create $CGDIR"
(cd "$CGDIR" && mkdir c{0000..1023}) || die "cannot create the cgroups"
usage_ns() { awk '$1 == "usage_usec" { printf "%.0f\n", $2 * 1000 }' "$CGDIR/$1/cpu.stat"; }
# bytes of BPF maps a process holds (memlock in the fdinfo of its map fds)
bpf_map_bytes() {
	find "/proc/$1/fd" -lname 'anon_inode:bpf-map' -printf "/proc/$1/fdinfo/%f\n" 2>/dev/null |
		xargs -r awk '$1 == "memlock:" { s += $2 } END { print s + 0 }' | grep . || echo 0
}
# ids of the BPF programs a process holds
bpf_prog_ids() {
	find "/proc/$1/fd" -lname 'anon_inode:bpf-prog' -printf "/proc/$1/fdinfo/%f\n" 2>/dev/null |
		xargs -r awk '$1 == "prog_id:" { print $2 }'
}
# the fd by which process $1 holds its on_switch program: each of its
# program fds' id named by bpftool (other emon-perf instances may run; a
# slow call on a busy machine with many programs, so made once per run)
on_switch_fd() {
	local f id
	for f in $(find "/proc/$1/fd" -lname 'anon_inode:bpf-prog' -printf '%f\n' 2>/dev/null); do
		id=$(awk '$1 == "prog_id:" { print $2 }' "/proc/$1/fdinfo/$f" 2>/dev/null)
		[ -n "$id" ] && bpftool prog show id "$id" 2>/dev/null | grep -q ' name on_switch ' &&
			echo "$f" && return
	done
}
# "run_time_ns run_cnt" of program fd $2 of process $1, from its fdinfo
prog_fd_stats() {
	awk '$1 == "run_time_ns:" { ns = $2 } $1 == "run_cnt:" { c = $2 }
	     END { if (c != "") print ns + 0, c }' "/proc/$1/fdinfo/$2" 2>/dev/null
}
# other perf / emon-perf processes on the machine (other users' tests...):
# their cgroup events slow every context switch and stop per-CPU cpu-clock
# events while they switch
foreign_monitors() { # OUR_PID
	pgrep -x 'perf|emon-perf' | grep -vxc "$1"
}

# --- the machine -----------------------------------------------------------
# Events: cycles and instructions where the PMU counts them (perf says
# <not supported> in a VM without one), always cpu-clock (the accuracy
# phase compares it with cpu.stat) and context-switches. EVSETS: the 1, 2
# and 3 events the BPF cost phase measures. BENCH_EVENTS overrides EVENTS.
if perf stat -a -x, -e cycles,instructions -o "$RES/raw/pmu-probe.csv" -- sleep 0.1 2>/dev/null &&
	[ "$(grep -cE '^[0-9]+,,(cycles|instructions),' "$RES/raw/pmu-probe.csv")" -eq 2 ]; then
	PMU=1
	EVENTS=cycles,instructions,cpu-clock,context-switches
	EVSETS=(cycles cycles,instructions cycles,instructions,cpu-clock)
else
	EVENTS=cpu-clock,context-switches
	EVSETS=(cpu-clock cpu-clock,context-switches cpu-clock,context-switches,page-faults)
fi
EVENTS=${BENCH_EVENTS:-$EVENTS}
EVENTS3=${EVSETS[2]}
case ,$EVENTS, in *,cpu-clock,*) ;; *) die "BENCH_EVENTS must include cpu-clock" ;; esac
{
	echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu	$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "nproc	$NCPU"
	echo "kernel	$(uname -r)"
	echo "perf_event_size	$(awk '$1 == "perf_event" { print $4 }' /proc/slabinfo)"
	echo "clocksource	$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "perf	$(perf --version 2>/dev/null)"
	echo "virt	$(grep -qw hypervisor /proc/cpuinfo && echo VM || echo bare metal)"
	echo "pmu	$PMU"
	echo "events	$EVENTS"
	echo "evset1	${EVSETS[0]}"
	echo "evset2	${EVSETS[1]}"
	echo "evset3	${EVSETS[2]}"
	echo "commit	$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- bpf bperf pmu include 2>/dev/null || echo ' + uncommitted engine changes')"
	echo "reps	$REPS"
	echo "ring_reps	$RING_REPS"
	echo "secs	$SECS"
	echo "cpu_secs	$CPU_SECS"
	echo "wcpu	$WCPU"
	echo "rt	$RT"
	echo "nofile	$(ulimit -n)"
	echo "steal0	$(steal_ns)"
	echo "load0	$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$RES/meta.tsv"

# --- ping-pong and ring ------------------------------------------------------
PP_HEADER="kind	mode	k	round	rt_s	sw_s	cpu_rt_s	status	a_cpustat_ns	b_cpustat_ns	steal_ns	foreign"
# run_ring KIND MODE K ROUND [fds]: one run; KIND pp (2 processes, K cgroups
# watched) or ring (K processes in K cgroups, the same K watched)
run_ring() {
	local kind=$1 mode=$2 k=$3 round=$4 sample=${5:-} n dirs list tag out mon pid rc
	local ua0 ub0 ua ub st0 fds=0 maps=0 foreign=0
	if [ "$kind" = pp ]; then n=2; else n=$k; fi
	dirs=$(cgdirs "$n")
	list=$(cglist "$k")
	tag=$kind-$mode-$k-$round
	out=$RES/raw/$tag.out
	ua0=$(usage_ns c0000) ub0=$(usage_ns c0001) st0=$(steal_ns "$WCPU")
	# shellcheck disable=SC2206 # one word per cgroup directory
	local pp=("${PP[@]}" -d "$SECS" -w 0.3 $dirs)
	# shellcheck disable=SC2054 # "-x," is perf's CSV separator option
	case $mode in
	none) mon=() ;;
	emon) mon=("$EMON" stat -a -e "$EVENTS" -G "$list" --json-rows -o "$RES/raw/$tag.json" --) ;;
	perf) mon=(perf stat -a -e "$EVENTS" --for-each-cgroup "$list" -x, -o "$RES/raw/$tag.csv" --) ;;
	esac
	taskset -c 0 "${mon[@]}" "${pp[@]}" >"$out" 2>"$RES/raw/$tag.err" &
	pid=$!
	BG+=("$pid")
	if [ -n "$sample" ] && [ "$mode" != none ]; then
		sleep "$(echo "0.9 + $SECS / 2" | bc)"
		fds=$(perf_fds "$pid")
		maps=$(( $(bpf_map_bytes "$pid") / 1024 ))
	elif [ -z "$sample" ]; then
		sleep 1
		foreign=$(foreign_monitors "$pid")
	fi
	wait "$pid"
	rc=$?
	unset 'BG[-1]'
	ua=$(( $(usage_ns c0000) - ua0 )) ub=$(( $(usage_ns c0001) - ub0 ))
	if [ -n "$sample" ]; then
		[ "$mode" != none ] && echo "$kind	$mode	$k	$fds	$maps" >>"$RES/fds.tsv"
		return
	fi
	echo "$kind	$mode	$k	$round	$(kv round_trips_per_s "$out")	$(kv switches_per_s "$out")	$(kv cpu_round_trips_per_s "$out")	$rc	$ua	$ub	$(( $(steal_ns "$WCPU") - st0 ))	$foreign" >>"$RES/pingpong.tsv"
}

phase_pingpong() {
	local configs=("none:0") k c r
	echo "kind	mode	k	perf_event_fds	bpf_map_kb" >"$RES/fds.tsv"
	if [ -f "$RES/pingpong.tsv" ]; then	# keep the ring's rows
		grep -v '^pp	' "$RES/pingpong.tsv" >"$RES/pingpong.tmp"
		mv "$RES/pingpong.tmp" "$RES/pingpong.tsv"
	else
		echo "$PP_HEADER" >"$RES/pingpong.tsv"
	fi
	for k in $KS; do configs+=("emon:$k" "perf:$k"); done
	log "ping-pong: warm-up round (fds, kernel memory)"
	for c in "${configs[@]}"; do run_ring pp "${c%%:*}" "${c##*:}" 0 sample; done
	for ((r = 1; r <= REPS; r++)); do
		log "ping-pong: round $r/$REPS (${#configs[@]} runs, shuffled)"
		for c in $(shuffled "$r" "${configs[@]}"); do run_ring pp "${c%%:*}" "${c##*:}" "$r"; done
	done
}

phase_ring() {
	local rconfigs=() n c r
	if [ -f "$RES/pingpong.tsv" ]; then	# keep the ping-pong's rows
		grep -v '^ring	' "$RES/pingpong.tsv" >"$RES/pingpong.tmp"
		mv "$RES/pingpong.tmp" "$RES/pingpong.tsv"
	else
		echo "$PP_HEADER" >"$RES/pingpong.tsv"
	fi
	for n in $RING_NS; do rconfigs+=("none:$n" "emon:$n" "perf:$n"); done
	for ((r = 1; r <= RING_REPS; r++)); do
		log "ring: round $r/$RING_REPS (${#rconfigs[@]} runs, shuffled)"
		for c in $(shuffled "$((100 + r))" "${rconfigs[@]}"); do run_ring ring "${c%%:*}" "${c##*:}" "$r"; done
	done
}

# --- accuracy: cgroup cpu-clock against cpu.stat and against perf stat -G ------
# OBS emon or perf: that monitor alone; both: emon-perf runs perf stat -G,
# which runs the workload (one workload seen by both at once). perf counts
# task-clock then: its cgroup cpu-clock events would stop emon-perf's
# per-CPU cpu-clock at every cgroup switch (the kernel reschedules whole PMU
# contexts that hold cgroup events; tests/integration/lib.sh, PERF_TIME).
acc_run() { # WORKLOAD OBS ROUND
	local w=$1 obs=$2 r=$3 tag=acc-$1-$2-$3 ua0 ub0 st0 t0 wl em=() pm=() gl stc=
	gl=$BENCHCG/c0000,$BENCHCG/c0001
	if [ "$w" = pingpong ]; then
		wl=("${PP[@]}" -d "$SECS" -w 0.3 "$CGDIR/c0000" "$CGDIR/c0001")
	else	# two burners in c0000, one in c0001, on any CPU
		wl=(taskset -c "0-$WCPU" sh -c '
		for d in "$1" "$1" "$2"; do
			sh -c "echo \$\$ > $d/cgroup.procs && exec $0 1.0" &
		done; wait' "$TOOLS/burn" "$CGDIR/c0000" "$CGDIR/c0001")
	fi
	[ "$obs" != perf ] && em=("$EMON" stat -a -e "$EVENTS" -G "$gl" --json-rows -o "$RES/raw/$tag.json" --)
	# shellcheck disable=SC2054 # "-x," is perf's CSV separator option
	local pev=$EVENTS
	[ "$obs" = both ] && pev=task-clock,context-switches
	[ "$obs" != emon ] && pm=(perf stat -a -e "$pev" --for-each-cgroup "$gl" -x, -o "$RES/raw/$tag.csv" --)
	# steal of the CPUs the workload runs on: the last one, or all
	[ "$w" = pingpong ] && stc=$WCPU
	ua0=$(usage_ns c0000) ub0=$(usage_ns c0001) st0=$(steal_ns "$stc") t0=$(date +%s.%N)
	taskset -c 0 "${em[@]}" "${pm[@]}" "${wl[@]}" >"$RES/raw/$tag.out" 2>"$RES/raw/$tag.err" &
	local pid=$! foreign
	BG+=("$pid")
	sleep 1
	foreign=$(pgrep -x 'perf|emon-perf' | grep -vx "$pid" | grep -vcx "$(pgrep -P "$pid" -x perf)")
	wait "$pid"
	unset 'BG[-1]'
	local ua=$(( $(usage_ns c0000) - ua0 )) ub=$(( $(usage_ns c0001) - ub0 ))
	local st=$(( $(steal_ns "$stc") - st0 )) dt
	dt=$(echo "$(date +%s.%N) - $t0" | bc)
	python3 - "$RES/raw/$tag.json" "$RES/raw/$tag.csv" "$BENCHCG" <<-EOF >>"$RES/accuracy.tsv"
	import json, os, sys
	js, csv, top = sys.argv[1:4]
	emon, perf, deficit = {}, {}, None
	if os.path.exists(js):
	    for line in open(js):
	        row = json.loads(line)
	        if row.get("scope") == "cgroup":
	            emon[row["key"]] = row["counters"].get("cpu-clock")
	        elif row.get("scope") == "system" and row["counters"].get("cpu-clock"):
	            deficit = 1 - row["counters"]["cpu-clock"] / ($NCPU * row["interval"] * 1e9)
	if os.path.exists(csv):
	    for line in open(csv):
	        f = line.strip().split(",")
	        if len(f) > 3 and f[2] in ("cpu-clock", "task-clock"):
	            try:
	                perf["/" + f[3].lstrip("/")] = float(f[0]) * 1e6
	            except ValueError:
	                pass
	for cg, ks in (("c0000", $ua), ("c0001", $ub)):
	    key = top + "/" + cg
	    print("$w\t$obs\t$r\t%s\t%d\t%s\t%s\t$st\t$dt\t$foreign\t%s" % (cg, ks, emon.get(key), perf.get(key), deficit))
	EOF
}
phase_accuracy() {
	local r c
	echo "workload	observers	round	cgroup	cpustat_ns	emon_ns	perf_ns	steal_ns	seconds	foreign	emon_deficit" >"$RES/accuracy.tsv"
	for ((r = 1; r <= 3; r++)); do
		log "accuracy: round $r/3 (ping-pong, burners; emon-perf, perf, both)"
		for c in $(shuffled "$((400 + r))" pingpong:emon pingpong:perf pingpong:both \
				burn:emon burn:perf burn:both); do
			acc_run "${c%%:*}" "${c##*:}" "$r"
		done
	done
}

# --- BPF cost per context switch ------------------------------------------------
# cost_run EVENTS_INDEX ROUND FROM: on_switch's ns per run over 1.5 s
# mid-run (a 20 s ping-pong, ended once measured); FROM switch (the engine) or counters (EMON_SWITCH_EVENTS=counters:
# every event read from its perf_event, as before the switch counted them)
cost_run() {
	local i=$1 r=$2 from=$3 ev pid fd='' a='' b='' dt t0 tries=0 env=()
	ev=${EVSETS[$i]}
	[ "$from" = counters ] && env=(env EMON_SWITCH_EVENTS=counters)
	# statistics on through a BPF_ENABLE_STATS fd of our own: another
	# benchmark on a shared machine may switch the sysctl off meanwhile
	"$TOOLS/bench-switch-cost" -S >/dev/null &
	local hold=$!
	BG+=("$hold")
	taskset -c 0 "${env[@]}" "$EMON" stat -a -e "$ev" -G "$(cglist 64)" --json-rows -o /dev/null -- \
		"${PP[@]}" -d 20 -w 0.3 "$CGDIR/c0000" "$CGDIR/c0001" \
		>"$RES/raw/cost-$i-$r-$from.out" 2>&1 &
	pid=$!
	BG+=("$pid")
	sleep 0.5
	while [ -z "$fd" ] && [ $((tries++)) -lt 50 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.2
		fd=$(on_switch_fd "$pid")
	done
	sleep 0.3	# the ping-pong's warm-up
	a=$(prog_fd_stats "$pid" "$fd")
	t0=$(date +%s.%N)
	sleep 1.5
	b=$(prog_fd_stats "$pid" "$fd")
	dt=$(echo "$(date +%s.%N) - $t0" | bc)
	kill -INT "$pid" 2>/dev/null	# enough: end the run (and the ping-pong) now
	wait "$pid"
	unset 'BG[-1]'
	kill "$hold" 2>/dev/null
	wait "$hold" 2>/dev/null
	unset 'BG[-1]'
	echo "$a $b" >>"$RES/raw/cost-$i-$r-$from.out"
	# shellcheck disable=SC2086
	set -- $a $b
	if [ $# -eq 4 ] && [ "$4" -gt "$2" ]; then
		echo "$((i + 1))	$r	$(echo "scale=1; ($3 - $1) / ($4 - $2)" | bc)	$(($4 - $2))	$dt	$from" >>"$RES/bpfcost.tsv"
	else
		echo "bench: no on_switch statistics for events '$ev' from $from (round $r): fd '$fd', '$a' '$b'" >&2
	fi
}

# breakdown_run EVENTS FROM ROUND STEPS...: tools/bench-switch-cost on the
# engine's own object, cut after each step in turn (a shuffled order)
breakdown_run() {
	local ev=$1 from=$2 r=$3 opt=()
	shift 3
	[ "$from" = counters ] && opt=(-c)
	# shellcheck disable=SC2046
	taskset -c 0 "$TOOLS/bench-switch-cost" -e "$ev" -d 0.5 "${opt[@]}" \
		$(shuffled "$((300 + r))" "$@") |
		awk -v r="$r" -v ev="$ev" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			print v["step"] "\t" ev "\t" v["from"] "\t" r "\t" v["runs"] "\t" v["ns_per_run"] }' \
		>>"$RES/breakdown.tsv"
}

phase_bpfcost() {
	local r i c ev singles
	log "bpf cost: on_switch with 1, 2, 3 events, from the switch and from counters (run-time statistics on meanwhile)"
	echo "events	round	ns_per_run	runs	seconds	from" >"$RES/bpfcost.tsv"
	for ((r = 1; r <= COST_REPS; r++)); do
		for c in $(shuffled "$((200 + r))" 0:switch 1:switch 2:switch 0:counters 1:counters 2:counters); do
			cost_run "${c%%:*}" "$r" "${c##*:}"
		done
	done
	log "bpf cost: breakdown of the program's steps (tools/bench-switch-cost)"
	echo "step	events	from	round	runs	ns_per_run" >"$RES/breakdown.tsv"
	taskset -c 0 "${PP[@]}" -d 600 -w 0 "$CGDIR/c0000" "$CGDIR/c0001" >/dev/null &
	BG+=("$!")
	singles="cpu-clock context-switches page-faults"
	[ "$PMU" = 1 ] && singles="$singles cycles"
	for ((r = 1; r <= COST_REPS; r++)); do
		for c in $(shuffled "$((500 + r))" switch counters); do
			breakdown_run "$EVENTS3" "$c" "$r" none read cpu cgrp all
			for ev in $singles; do breakdown_run "$ev" "$c" "$r" none read; done
		done
	done
	kill "${BG[-1]}" 2>/dev/null
	wait "${BG[-1]}" 2>/dev/null
	unset 'BG[-1]'
}

# --- flush + read, own CPU ---------------------------------------------------------
# sleepers N PERIOD_MS [dirs...]: start them, wait until all run; sets SLEEPERS
sleepers() {
	local n=$1 period=$2
	shift 2
	"$TOOLS/bench-sleepers" -n "$n" -p "$period" "$@" >"$RES/raw/sleepers.out" 2>&1 &
	SLEEPERS=$!
	BG+=("$SLEEPERS")
	while ! grep -q ready "$RES/raw/sleepers.out"; do
		kill -0 "$SLEEPERS" 2>/dev/null || die "bench-sleepers failed: $(cat "$RES/raw/sleepers.out")"
		sleep 0.2
	done
	sleep $(( period / 1000 + 1 ))	# every one has woken at least once
}
stop_sleepers() {
	kill "$SLEEPERS" 2>/dev/null
	wait "$SLEEPERS" 2>/dev/null
	unset 'BG[-1]'
}
flush_lines() { # SCENARIO FILE
	grep -o 'flush + read of [0-9]* cgroup and [0-9]* process entries in [0-9]* us' "$2" |
		awk -v s="$1" '{ print s "\t" NR "\t" $5 "\t" $8 "\t" $12 }' >>"$RES/flush.tsv"
}
idle_pct() { # SECONDS: % idle of all CPUs over that time
	local a b
	a=$(awk '$1 == "cpu" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	sleep "$1"
	b=$(awk '$1 == "cpu" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	echo "$a $b" | awk '{ printf "%.0f\n", ($3 - $1) * 100 / ($4 - $2) }'
}
# own_cpu SECS WATCHED: emon-perf -G WATCHED of the live cgroups, -I 1000;
# utime and stime over SECS after its start
own_cpu() {
	local secs=$1 k=$2 pid u0 s0 u1 s1 t0 dt
	taskset -c 0 "$EMON" stat -a -e "$EVENTS" -G "$(cglist "$k")" -I 1000 --json-rows \
		-o "$RES/raw/cpu-$k.jsonl" -v --timeout $(( (secs + 2) * 1000 )) 2>"$RES/raw/cpu-$k.err" &
	pid=$!
	BG+=("$pid")
	sleep 1.5
	read -r u0 s0 < <(awk '{ print $14, $15 }' "/proc/$pid/stat")
	t0=$(date +%s.%N)
	sleep "$secs"
	read -r u1 s1 < <(awk '{ print $14, $15 }' "/proc/$pid/stat")
	dt=$(echo "$(date +%s.%N) - $t0" | bc)
	wait "$pid"
	unset 'BG[-1]'
	echo "$dt	$((u1 - u0))	$((s1 - s0))	$(getconf CLK_TCK)	$k" >>"$RES/cpu.tsv"
}

phase_flush() {
	local sc n period pid
	echo "scenario	interval	cgroup_entries	proc_entries	us" >"$RES/flush.tsv"
	echo "scenario	idle_pct" >"$RES/idle.tsv"
	for sc in 1000:200 10000:200 10000:1000; do
		n=${sc%:*} period=${sc#*:}
		log "flush: $n live processes waking every $period ms"
		sleepers "$n" "$period"
		echo "procs_${n}_$period	$(idle_pct 1)" >>"$RES/idle.tsv"
		taskset -c 0 "$EMON" stat -a -e "$EVENTS" -v --timeout 6500 -o /dev/null \
			2>"$RES/raw/flush-$n-$period.err"
		flush_lines "procs_${n}_$period" "$RES/raw/flush-$n-$period.err"
		stop_sleepers
	done

	log "flush + own CPU: 1,000 live cgroups, -I 1000 for ${CPU_SECS}s"
	# shellcheck disable=SC2046
	sleepers 1000 200 $(cgdirs 1000)
	echo "cgroups_1000	$(idle_pct 1)" >>"$RES/idle.tsv"
	echo "seconds	utime_ticks	stime_ticks	hz	watched" >"$RES/cpu.tsv"
	own_cpu "$CPU_SECS" 1000
	flush_lines cgroups_1000 "$RES/raw/cpu-1000.err"
	log "own CPU: the same 1,000 live cgroups, -G of one cgroup ($((CPU_SECS / 3))s)"
	own_cpu $((CPU_SECS / 3)) 1

	log "profile: perf record -g of emon-perf with 1,000 cgroups (10 s)"
	taskset -c 0 "$EMON" stat -a -e "$EVENTS" -G "$(cglist 1000)" -I 1000 --json-rows -o /dev/null \
		--timeout 14000 2>/dev/null &
	pid=$!
	BG+=("$pid")
	sleep 3	# past the start (the cgroup tree walk, loading BPF)
	perf record -q --call-graph dwarf,16384 -e cpu-clock -F 1999 -p "$pid" \
		-o "$RES/raw/perf.data" -- sleep 10 >/dev/null 2>&1
	wait "$pid"
	unset 'BG[-1]'
	# inclusive time per function, the trivial callers (main...) left out
	perf report -i "$RES/raw/perf.data" --children --sort sym --stdio -g none 2>/dev/null |
		awk '$1 ~ /%$/ && $1 + 0 < 98 { print }' | head -24 >"$RES/profile.txt"
	perf report -i "$RES/raw/perf.data" --stdio -g none 2>/dev/null |
		awk '/^# (Total Lost|Samples|Event count)/' >"$RES/profile-meta.txt"
	stop_sleepers

	log "flush: the map read alone (bench-drain)"
	{
		taskset -c 0 "$TOOLS/bench-drain" -n 10000 -e 2
		taskset -c 0 "$TOOLS/bench-drain" -n 1000 -e 2
	} >"$RES/drain.txt"
}

for phase in $PHASES; do
	case $phase in
	pingpong|ring|accuracy|bpfcost|flush) "phase_$phase" ;;
	*) die "unknown phase '$phase' in BENCH_PHASES (pingpong ring accuracy bpfcost flush)" ;;
	esac
done

echo "steal1	$(steal_ns)" >>"$RES/meta.tsv"
echo "load1	$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RES/meta.tsv"
echo "runtime_s	$(echo "$(date +%s.%N) - $T_START" | bc)" >>"$RES/meta.tsv"
bench_end
if [ "$REPORT" = 1 ]; then
	log "report: BENCHMARKS.md, docs/bench-slowdown.svg"
	mkdir -p docs
	python3 tools/bench/report.py "$RES" BENCHMARKS.md docs/bench-slowdown.svg || die "report failed"
else
	log "no report (BENCH_REPORT=1 to write one); results in $RES"
fi
log "done"
