#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The scheduler view's cost (--sched, issue 12): the mean run time of each
# BPF program on the switch and wakeup paths (kernel.bpf_stats_enabled,
# switched back as it was after every run), while a ping-pong on one CPU
# switches and wakes as fast as it can (every round trip: 2 switches, 2
# wakeups). Configurations, each ROUNDS times in a shuffled order:
#   base  emon-perf as built from BASE_REV (before --sched): on_switch
#   off   this build without --sched: on_switch
#   on    this build with --sched: on_switch, on_wakeup; and libbpf-tools'
#         runqlat in the same run, over the same window: its sched_switch,
#         sched_wakeup
# Prints a markdown table (median [min-max] ns per run) for BENCHMARKS.md.
#   tools/bench-sched.sh [ROUNDS]   (root; make first; BASE_REV=63ced1a)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTPUT=${OUTPUT:-$ROOT/build}
EMON=${EMON:-$ROOT/emon-perf}
PP=$OUTPUT/tools/pingpong
ROUNDS=${1:-5}
BASE_REV=${BASE_REV:-63ced1a}
BASE=$OUTPUT/bench-sched-base
RES=$(mktemp -d)
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
BG=()
cleanup() {
	for p in "${BG[@]}"; do kill -INT "$p" 2>/dev/null; done
	wait 2>/dev/null
	sysctl -q -w kernel.bpf_stats_enabled="$STATS_WAS" >/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$RES"
}
trap cleanup EXIT
die() { echo "bench-sched: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root"
[ -x "$PP" ] && [ -x "$EMON" ] || die "make first"
command -v runqlat >/dev/null || die "no runqlat (tools/install-deps.sh --with-test)"

# the base build: the tree at BASE_REV, exported (not a worktree), built once
if [ ! -x "$BASE/emon-perf" ]; then
	mkdir -p "$BASE/src"
	git -C "$ROOT" archive "$BASE_REV" | tar -x -C "$BASE/src" || die "cannot export $BASE_REV"
	make -C "$BASE/src" -s OUTPUT="$BASE/build" BIN="$BASE/emon-perf" emon-perf >/dev/null ||
		die "cannot build $BASE_REV"
fi

# prog_stats PID: "name run_time_ns run_cnt" of every BPF program PID holds
prog_stats() {
	find "/proc/$1/fd" -lname 'anon_inode:bpf-prog' -printf "/proc/$1/fdinfo/%f\n" 2>/dev/null |
		xargs -r awk '$1 == "prog_id:" { print $2 }' | sort -u |
	while read -r id; do
		bpftool prog show id "$id" -j 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(p.get("name"), p.get("run_time_ns", 0), p.get("run_cnt", 0))'
	done
}
# ready PID: its programs run (stats on)
ready() {
	for _ in $(seq 100); do
		prog_stats "$1" | awk '$3 > 0 { ok = 1 } END { exit !ok }' && return 0
		sleep 0.1
	done
	return 1
}
# per_run A B NAME: ns per run of NAME between two prog_stats listings
per_run() {
	python3 -c '
import sys
a = {l.split()[0]: l.split()[1:] for l in open(sys.argv[1]) if l.strip()}
b = {l.split()[0]: l.split()[1:] for l in open(sys.argv[2]) if l.strip()}
n = sys.argv[3]
if n in a and n in b and int(b[n][1]) > int(a[n][1]):
    print(f"{(int(b[n][0]) - int(a[n][0])) / (int(b[n][1]) - int(a[n][1])):.1f} {int(b[n][1]) - int(a[n][1])}")' "$@"
}

# run CONFIG ROUND
run() {
	local cfg=$1 r=$2 bin=$EMON args=() epid rpid=
	[ "$cfg" = base ] && bin=$BASE/emon-perf
	[ "$cfg" = on ] && args=(--sched)
	sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null
	"$PP" -c 1 -d 20 -w 0.2 - - >"$RES/pp-$cfg-$r" 2>&1 &
	local ppid=$!
	"$bin" stat -a -e cpu-clock "${args[@]}" --no-daemon --timeout 20000 -o /dev/null 2>/dev/null &
	epid=$!
	BG+=("$epid" "$ppid")
	if [ "$cfg" = on ]; then
		runqlat >/dev/null 2>&1 &
		rpid=$!
		BG+=("$rpid")
	fi
	ready "$epid" || die "no statistics from emon-perf ($cfg)"
	[ -z "$rpid" ] || ready "$rpid" || die "no statistics from runqlat"
	sleep 0.3
	{ prog_stats "$epid"; [ -z "$rpid" ] || prog_stats "$rpid" | sed 's/^/rq_/'; } >"$RES/a"
	sleep 2
	{ prog_stats "$epid"; [ -z "$rpid" ] || prog_stats "$rpid" | sed 's/^/rq_/'; } >"$RES/b"
	for n in on_switch on_wakeup rq_sched_switch rq_sched_wakeup; do
		v=$(per_run "$RES/a" "$RES/b" "$n")
		[ -n "$v" ] && echo "$cfg $n $v" >>"$RES/results"
	done
	kill -INT "$epid" "$ppid" $rpid 2>/dev/null
	wait "$epid" "$ppid" $rpid 2>/dev/null
	BG=()
	sysctl -q -w kernel.bpf_stats_enabled="$STATS_WAS" >/dev/null
}

for r in $(seq "$ROUNDS"); do
	for cfg in $(printf '%s\n' ${CONFIGS:-base off on} | shuf); do
		run "$cfg" "$r"
	done
done
python3 - "$RES/results" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
runs = collections.defaultdict(list)
for l in open(sys.argv[1]):
    cfg, name, ns, n = l.split()
    v[(cfg, name)].append(float(ns))
    runs[(cfg, name)].append(int(n))
rows = [("base", "on_switch", "emon-perf before --sched: sched_switch"),
        ("off", "on_switch", "this build, --sched off: sched_switch"),
        ("on", "on_switch", "this build, --sched on: sched_switch"),
        ("on", "on_wakeup", "this build, --sched on: sched_wakeup"),
        ("on", "rq_sched_switch", "runqlat, same runs: sched_switch"),
        ("on", "rq_sched_wakeup", "runqlat, same runs: sched_wakeup")]
print("| program | ns per run, median [min-max] | rounds | runs per round (median) |")
print("|---|---|---|---|")
for cfg, name, what in rows:
    x = v.get((cfg, name))
    if not x:
        continue
    print(f"| {what} | {statistics.median(x):.0f} [{min(x):.0f}-{max(x):.0f}] | {len(x)} | {int(statistics.median(runs[(cfg, name)]))} |")
PY
