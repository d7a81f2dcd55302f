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
#             processes (tools/bench-sleepers, each waking every 200 ms),
#             /metrics scraped every second over CPU_SECS: its CPU time
#             (utime + stime of /proc/PID/stat), each scrape's time (curl),
#             its resident memory (VmRSS, VmHWM); COST_ROUNDS rounds, the
#             same sleepers throughout. With BENCH_BASE=COMMIT, that
#             commit's emon-perf too (built from git archive under
#             $OUTPUT/bench/serve-base), each round running the two in a
#             shuffled order: side by side in one run, on a noisy machine
#
# The monitors and the scraper run on CPU 0, the workloads on the last CPU,
# as in tools/bench.sh. Knobs (environment): BENCH_REPS (5), BENCH_SECS (2),
# BENCH_CPU_SECS (40), BENCH_COST_ROUNDS (3), BENCH_BASE (none),
# BENCH_QUICK=1 (a smoke run that leaves BENCHMARKS.md alone unless
# BENCH_REPORT=1), BENCH_EVENTS.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tools/bench/lib.sh
. tools/bench/lib.sh
RES=$OUTPUT/bench/serve
REPS=${BENCH_REPS:-5} CPU_SECS=${BENCH_CPU_SECS:-40} REPORT=1
ROUNDS=${BENCH_COST_ROUNDS:-3} BASE=${BENCH_BASE:-}
# cgroups watched; live cgroups and processes, how often each process
# wakes (ms), seconds between scrapes
K=64 NCG=1000 NPROC=10000 WAKE_MS=200 SCRAPE_S=1
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	REPS=${BENCH_REPS:-1} SECS=${BENCH_SECS:-1} CPU_SECS=${BENCH_CPU_SECS:-15}
	ROUNDS=${BENCH_COST_ROUNDS:-1} REPORT=${BENCH_REPORT:-0}
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
	start_bg "${SERVE_BIN:-$EMON}" serve -e "$EVENTS" --socket "$SOCK" --listen "127.0.0.1:$PORT" "$@" \
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
		pp=("$EMON" stat --no-daemon -a -e "$EVENTS" -G "$LIST" --json-rows -o "$RES/raw/$tag.json" -- "${pp[@]}") ;;
	daemon)
		serve_up "$tag"
		for i in 100 1000; do
			start_bg "$EMON" stat -a -e "$EVENTS" -G "$LIST" -I "$i" --json-rows -o "$RES/raw/$tag.$i.jsonl" \
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

# build_base: BASE's emon-perf, built from git archive in $BASEDIR (kept
# across runs for the same commit); sets BASE_BIN and BASE_SHORT
build_base() {
	local dir=$OUTPUT/bench/serve-base commit
	commit=$(git rev-parse --verify -q "$BASE^{commit}") || die "BENCH_BASE: no commit '$BASE'"
	BASE_SHORT=$(git rev-parse --short "$commit")
	BASE_BIN=$dir/emon-perf
	if [ "$(cat "$dir/.commit" 2>/dev/null)" != "$commit" ] || [ ! -x "$BASE_BIN" ]; then
		log "cost: building $BASE_SHORT's emon-perf in $dir"
		rm -rf "$dir"
		mkdir -p "$dir" || die "cannot create $dir"
		git archive "$commit" | tar -x -C "$dir" || die "git archive $BASE_SHORT failed"
		env -u OUTPUT make -C "$dir" -j"$NCPU" emon-perf >"$dir.log" 2>&1 ||
			die "building $BASE_SHORT failed: see $dir.log"
		echo "$commit" >"$dir/.commit"
	fi
}

# cost_run BIN TAG ROUND: one run of the daemon BIN (the sleepers up)
cost_run() {
	local bin=$1 tag=$2 round=$3 t0 c0 n=0 dt c1 r0 err=$RES/raw/cost-$2-$3.serve.err
	# -v: a line a read ("interval: ..."), so the reads a second are known
	SERVE_BIN=$bin serve_up "cost-$tag-$round" -v
	sleep 3	# every sleeper has woken in its view, its first reads done
	t0=$(date +%s.%N) c0=$(cpu_ticks "$DPID") r0=$(grep -c 'interval:' "$err")
	while :; do
		curl -s -o "$RES/raw/scrape.txt" -w '%{time_total}\t%{size_download}\n' \
			"http://127.0.0.1:$PORT/metrics" >"$RES/raw/scrape.t" || die "scrape failed"
		n=$((n + 1))
		printf '%s\t%d\t%d\t%s\t%d\n' "$tag" "$round" "$n" "$(cut -f1-2 "$RES/raw/scrape.t")" \
			"$(grep -vc '^#' "$RES/raw/scrape.txt")" >>"$RES/scrapes.tsv"
		dt=$(echo "$(date +%s.%N) - $t0" | bc)
		[ "$(echo "$dt + $SCRAPE_S > $CPU_SECS" | bc)" = 1 ] && break
		sleep "$(echo "$t0 + $n * $SCRAPE_S - $(date +%s.%N)" | bc | sed 's/^-.*/0/')"
	done
	sleep "$(echo "$t0 + $CPU_SECS - $(date +%s.%N)" | bc | sed 's/^-.*/0/')"
	c1=$(cpu_ticks "$DPID")
	dt=$(echo "$(date +%s.%N) - $t0" | bc)
	printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$round" "$dt" \
		"$(echo "scale=3; ($c1 - $c0) / $(getconf CLK_TCK)" | bc)" \
		"$(status_kb "$DPID" VmRSS)" "$(status_kb "$DPID" VmHWM)" \
		"$(grep -c '^emon_cgroup_cpu_clock_seconds_total{' "$RES/raw/scrape.txt")" \
		"$(($(grep -c 'interval:' "$err") - r0))" >>"$RES/cost.tsv"
	stop "$DPID"
}

phase_cost() {
	local sleepers i r b
	local -A bin=([head]=$EMON)
	[ -n "$BASE" ] && bin[base]=$BASE_BIN
	log "cost: $NPROC sleepers in $NCG cgroups, waking every $WAKE_MS ms"
	: >"$RES/raw/sleepers.out"	# before the job's redirection: the wait below reads it
	# shellcheck disable=SC2046 # one word per cgroup directory
	"$TOOLS/bench-sleepers" -n "$NPROC" -p "$WAKE_MS" $(cgdirs "$NCG") >>"$RES/raw/sleepers.out" 2>&1 &
	sleepers=$!
	BG+=("$sleepers")
	for ((i = 0; i < 1200; i++)); do
		grep -q ready "$RES/raw/sleepers.out" && break
		kill -0 "$sleepers" 2>/dev/null || die "bench-sleepers failed: $(cat "$RES/raw/sleepers.out")"
		sleep 0.1
	done
	grep -q ready "$RES/raw/sleepers.out" || die "bench-sleepers did not start"
	echo "bin	round	seconds	cpu_s	rss_kb	hwm_kb	cgroup_series	reads" >"$RES/cost.tsv"
	echo "bin	round	scrape	seconds	bytes	series" >"$RES/scrapes.tsv"
	for ((r = 1; r <= ROUNDS; r++)); do
		for b in $(shuffled "$((700 + r))" "${!bin[@]}"); do
			log "cost: round $r/$ROUNDS, $b: a scrape every $SCRAPE_S s for $CPU_SECS s"
			cost_run "${bin[$b]}" "$b" "$r"
		done
	done
	{
		echo "cgroups	$NCG"
		echo "wake_ms	$WAKE_MS"
		echo "scrape_s	$SCRAPE_S"
		echo "cpu_secs	$CPU_SECS"
		echo "rounds	$ROUNDS"
		echo "processes	$(grep -c . "$CGDIR"/c*/cgroup.procs | awk -F: '{ s += $2 } END { print s }')"
	} >"$RES/cost_meta.tsv"
	stop "$sleepers"
}

[ -n "$BASE" ] && build_base
{
	echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu	$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "nproc	$NCPU"
	echo "kernel	$(uname -r)"
	echo "perf	$(perf --version 2>/dev/null)"
	echo "commit	$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo '+changes')"
	echo "base	${BASE_SHORT:-}"
	# the command line of this run: the knobs set, then make's target
	echo "cmd	$(env | grep -E '^BENCH_[A-Z_]+=' | sort | tr '\n' ' ')make bench-serve"
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
