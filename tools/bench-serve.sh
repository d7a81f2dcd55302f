#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make bench-serve: what the shared daemon (emon-perf serve) costs, in one
# run, then its section of BENCHMARKS.md (between the bench-serve markers;
# tools/bench/report.py keeps it when make bench rewrites the rest).
#
# Phases (raw data in $OUTPUT/bench/serve, one TSV per phase):
#   pingpong  the cross-cgroup ping-pong (tools/pingpong.c, SCHED_FIFO on
#             the last CPU) watched over K = 64 cgroups by
#               none    nothing
#               stat    one plain emon-perf stat --no-daemon -G
#               daemon  emon-perf serve, two stats attached to it (-I 100
#                       and -I 1000, -G the same cgroups) and a scrape of
#                       /metrics every second
#               perf3   three concurrent perf stat --for-each-cgroup
#             a warm-up round (discarded), then REPS rounds, each
#             configuration once per round in a shuffled order; the
#             slowdown of a run is against the unmonitored run of its round
#   cost      the daemon alone with 1,000 live cgroups and 10,000 live
#             processes (tools/bench-sleepers, each waking every second),
#             scraped every 15 s over CPU_SECS: its CPU time (utime + stime
#             of /proc/PID/stat), each scrape's time (curl), its resident
#             memory (VmRSS, VmHWM)
#
# The monitors and the scraper run on CPU 0, the workloads on the last CPU,
# as in tools/bench.sh. Knobs (environment): BENCH_REPS (5), BENCH_SECS (2),
# BENCH_CPU_SECS (90), BENCH_QUICK=1 (a smoke run that leaves
# BENCHMARKS.md alone unless BENCH_REPORT=1), BENCH_EVENTS.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tools/bench/lib.sh
. tools/bench/lib.sh
RES=$OUTPUT/bench/serve
REPS=${BENCH_REPS:-5} CPU_SECS=${BENCH_CPU_SECS:-90} REPORT=1
# cgroups watched, live cgroups and processes, seconds between scrapes
K=64 NCG=1000 NPROC=10000 SCRAPE_S=15
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	REPS=${BENCH_REPS:-1} SECS=${BENCH_SECS:-1} CPU_SECS=${BENCH_CPU_SECS:-30}
	REPORT=${BENCH_REPORT:-0}
fi
bench_setup "perf curl python3 taskset bc" "pingpong bench-sleepers"

if perf stat -a -x, -e cycles,instructions -o /dev/stdout -- sleep 0.1 2>/dev/null |
	grep -cE '^[0-9]+,,(cycles|instructions),' | grep -qx 2; then
	EVENTS=cycles,instructions,cpu-clock,context-switches
else
	EVENTS=cpu-clock,context-switches
fi
EVENTS=${BENCH_EVENTS:-$EVENTS}
NEV=$(echo "$EVENTS" | tr , '\n' | grep -c .)

BENCHCG=/emon-bench-serve-$$
CGDIR=$CGROOT$BENCHCG
SOCK=$RES/emon.sock
PORT=$((20000 + $$ % 20000))
bench_traps

rm -rf "$RES"
mkdir -p "$RES/raw" || die "cannot create $RES"
mkdir "$CGDIR" || die "cannot create $CGDIR"
(cd "$CGDIR" && mkdir c{0000..0999}) || die "cannot create the cgroups"
LIST=$(cglist $K)

# start_bg CMD...: start in the background on CPU 0, remember its pid in BGPID
start_bg() {
	taskset -c 0 "$@" &
	BGPID=$!
	BG+=("$BGPID")
}
# stop PID [SIGNAL]: signal it (SIGTERM: background jobs of a script ignore
# SIGINT), wait for it, forget it
stop() {
	local p=$1 i
	kill "-${2:-TERM}" "$p" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	for i in "${!BG[@]}"; do [ "${BG[$i]}" = "$p" ] && unset "BG[$i]"; done
}
# serve_up TAG ARGS...: the daemon on $SOCK and $PORT, ready; sets DPID
serve_up() {
	local tag=$1 i
	shift
	rm -f "$SOCK"
	start_bg "$EMON" serve -e "$EVENTS" --socket "$SOCK" --listen "127.0.0.1:$PORT" "$@" \
		2>"$RES/raw/$tag.serve.err"
	DPID=$BGPID
	for ((i = 0; i < 600; i++)); do
		[ -S "$SOCK" ] && curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics" && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.05
	done
	die "the daemon did not start: $(cat "$RES/raw/$tag.serve.err")"
}
# wait_for FILE PATTERN: until FILE has a line matching PATTERN (20 s)
wait_for() {
	local i
	for ((i = 0; i < 400; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# --- ping-pong ---------------------------------------------------------------
# pp_run MODE ROUND: one ping-pong run under MODE, a line of pingpong.tsv
pp_run() {
	local mode=$1 round=$2 tag=$1-$2 mons=() p i fds=0 sfds=0 scraper='' out
	out=$RES/raw/$tag.out
	local pp=("${PP[@]}" -d "$SECS" -w 0.3 "$CGDIR/c0000" "$CGDIR/c0001")
	case $mode in
	stat)
		pp=("$EMON" stat --no-daemon -a -e "$EVENTS" -G "$LIST" -j -o "$RES/raw/$tag.json" -- "${pp[@]}") ;;
	daemon)
		serve_up "$tag"
		for i in 100 1000; do
			start_bg "$EMON" stat -a -e "$EVENTS" -G "$LIST" -I "$i" -j -o "$RES/raw/$tag.$i.jsonl" \
				--socket "$SOCK" 2>"$RES/raw/$tag.$i.err"
			mons+=("$BGPID")
			wait_for "$RES/raw/$tag.$i.err" "attached to the daemon" ||
				die "stat -I $i did not attach: $(cat "$RES/raw/$tag.$i.err")"
		done
		start_bg bash -c "while :; do curl -s -o /dev/null 'http://127.0.0.1:$PORT/metrics'; sleep 1; done"
		scraper=$BGPID
		;;
	perf3)
		for i in 1 2 3; do
			# shellcheck disable=SC2054 # "-x," is perf's CSV separator option
			start_bg perf stat -a -e "$EVENTS" --for-each-cgroup "$LIST" -x, -o "$RES/raw/$tag.$i.csv"
			mons+=("$BGPID")
		done
		# until all three count: K x events x CPUs perf_event fds each
		for ((i = 0; i < 600; i++)); do
			fds=0
			for p in "${mons[@]}"; do fds=$((fds + $(perf_fds "$p"))); done
			[ "$fds" -ge $((3 * K * NEV * NCPU)) ] && break
			sleep 0.05
		done
		;;
	esac
	[ "$mode" = daemon ] && sleep 1	# a scrape and both stats' first reads before the workload
	taskset -c 0 "${pp[@]}" >"$out" 2>"$RES/raw/$tag.err" &
	p=$!
	if [ "$mode" = daemon ]; then
		sleep 0.5
		fds=$(perf_fds "$DPID")
		for i in "${mons[@]}"; do sfds=$((sfds + $(perf_fds "$i"))); done
	fi
	wait "$p"
	local rc=$?
	[ -n "$scraper" ] && stop "$scraper"
	for i in "${mons[@]}"; do
		if [ "$mode" = perf3 ]; then stop "$i" INT; else stop "$i"; fi
	done
	[ "$mode" = daemon ] && stop "$DPID"
	echo "$mode	$round	$(kv round_trips_per_s "$out")	$(kv cpu_round_trips_per_s "$out")	$rc	$fds	$sfds" \
		>>"$RES/pingpong.tsv"
}

phase_pingpong() {
	local r m
	echo "mode	round	rt_s	cpu_rt_s	status	daemon_fds	stat_fds" >"$RES/pingpong.tsv"
	for ((r = 0; r <= REPS; r++)); do
		log "ping-pong: round $r/$REPS$([ $r = 0 ] && echo ' (warm-up)')"
		for m in $(shuffled "$((500 + r))" none stat daemon perf3); do
			pp_run "$m" "$r"
		done
	done
}

# --- the daemon's cost with many keys -----------------------------------------------
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

phase_cost() {
	local sleepers t0 c0 n=0 dt c1 i
	log "cost: $NPROC sleepers in $NCG cgroups, waking every second"
	: >"$RES/raw/sleepers.out"	# before the job's redirection: the wait below reads it
	# shellcheck disable=SC2046 # one word per cgroup directory
	"$TOOLS/bench-sleepers" -n "$NPROC" -p 1000 $(cgdirs "$NCG") >>"$RES/raw/sleepers.out" 2>&1 &
	sleepers=$!
	BG+=("$sleepers")
	for ((i = 0; i < 1200; i++)); do
		grep -q ready "$RES/raw/sleepers.out" && break
		kill -0 "$sleepers" 2>/dev/null || die "bench-sleepers failed: $(cat "$RES/raw/sleepers.out")"
		sleep 0.1
	done
	grep -q ready "$RES/raw/sleepers.out" || die "bench-sleepers did not start"
	serve_up cost
	log "cost: the daemon up; a scrape every $SCRAPE_S s for $CPU_SECS s"
	sleep 3	# every sleeper has woken in its view
	echo "scrape	seconds	bytes	series" >"$RES/scrapes.tsv"
	t0=$(date +%s.%N) c0=$(cpu_ticks "$DPID")
	while :; do
		curl -s -o "$RES/raw/scrape.txt" -w '%{time_total}\t%{size_download}\n' \
			"http://127.0.0.1:$PORT/metrics" >"$RES/raw/scrape.t" || die "scrape failed"
		n=$((n + 1))
		printf '%d\t%s\t%d\n' "$n" "$(cut -f1-2 "$RES/raw/scrape.t")" \
			"$(grep -vc '^#' "$RES/raw/scrape.txt")" >>"$RES/scrapes.tsv"
		dt=$(echo "$(date +%s.%N) - $t0" | bc)
		[ "$(echo "$dt + $SCRAPE_S > $CPU_SECS" | bc)" = 1 ] && break
		sleep "$(echo "$t0 + $n * $SCRAPE_S - $(date +%s.%N)" | bc)"
	done
	sleep "$(echo "$t0 + $CPU_SECS - $(date +%s.%N)" | bc | sed 's/^-.*/0/')"
	c1=$(cpu_ticks "$DPID")
	dt=$(echo "$(date +%s.%N) - $t0" | bc)
	{
		echo "seconds	$dt"
		echo "cpu_s	$(echo "scale=3; ($c1 - $c0) / $(getconf CLK_TCK)" | bc)"
		echo "rss_kb	$(status_kb "$DPID" VmRSS)"
		echo "hwm_kb	$(status_kb "$DPID" VmHWM)"
		echo "cgroups	$NCG"
		echo "cgroup_series	$(grep -c '^emon_cgroup_cpu_clock_seconds_total{' "$RES/raw/scrape.txt")"
		echo "processes	$(grep -c . "$CGDIR"/c*/cgroup.procs | awk -F: '{ s += $2 } END { print s }')"
	} >"$RES/cost.tsv"
	stop "$DPID"
	stop "$sleepers"
}

{
	echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu	$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "nproc	$NCPU"
	echo "kernel	$(uname -r)"
	echo "perf	$(perf --version 2>/dev/null)"
	echo "commit	$(git rev-parse --short HEAD 2>/dev/null)"
	echo "events	$EVENTS"
	echo "reps	$REPS"
	echo "secs	$SECS"
	echo "k	$K"
	echo "steal0	$(steal_ns)"
	echo "load0	$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$RES/meta.tsv"
phase_pingpong
phase_cost
{
	echo "steal1	$(steal_ns)"
	echo "load1	$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "runtime_s	$(echo "$(date +%s.%N) - $T_START" | bc)"
} >>"$RES/meta.tsv"
log "done"
python3 "$ROOT/tools/bench/report_serve.py" "$RES" \
	"$([ "$REPORT" = 1 ] && echo "$ROOT/BENCHMARKS.md" || echo "$RES/section.md")"
