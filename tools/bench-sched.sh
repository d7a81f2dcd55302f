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
# Writes its section of BENCHMARKS.md (between the bench-sched markers;
# make bench keeps it) and prints it: median [min-max] ns per run, and the
# size of on_switch's translated code in each build.
#   tools/bench-sched.sh [ROUNDS]   (root; make first; BASE_REV=63ced1a;
#                                    MD=file to write another file)
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

# prog_json PID: bpftool's JSON of every BPF program PID holds, one a line
prog_json() {
	find "/proc/$1/fd" -lname 'anon_inode:bpf-prog' -printf "/proc/$1/fdinfo/%f\n" 2>/dev/null |
		xargs -r awk '$1 == "prog_id:" { print $2 }' | sort -u |
	while read -r id; do
		bpftool prog show id "$id" -j 2>/dev/null && echo
	done
}
# prog_stats PID: "name run_time_ns run_cnt" of every BPF program PID holds
prog_stats() {
	prog_json "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    if l.strip():
        p = json.loads(l)
        print(p.get("name"), p.get("run_time_ns", 0), p.get("run_cnt", 0))'
}
# xlated PID NAME: bytes of the translated code of PID's program NAME
xlated() {
	prog_json "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    if l.strip() and json.loads(l).get("name") == sys.argv[1]:
        print(json.loads(l).get("bytes_xlated"))' "$2"
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
	xlated "$epid" on_switch >"$RES/xlated-$cfg"
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
python3 - "$RES" "$ROUNDS" "$BASE_REV" "$(git -C "$ROOT" rev-parse --short HEAD)" \
	"${MD:-$ROOT/BENCHMARKS.md}" <<'PY'
import collections, os, statistics, sys, time
res, rounds, base, head, md = sys.argv[1:6]
v = collections.defaultdict(list)
runs = collections.defaultdict(list)
for l in open(os.path.join(res, "results")):
    cfg, name, ns, n = l.split()
    v[(cfg, name)].append(float(ns))
    runs[(cfg, name)].append(int(n))
def xl(cfg):
    try:
        return open(os.path.join(res, f"xlated-{cfg}")).read().split()[0]
    except (OSError, IndexError):
        return "?"
rows = [("base", "on_switch", f"emon-perf before --sched ({base}): sched_switch"),
        ("off", "on_switch", "this build, --sched off: sched_switch"),
        ("on", "on_switch", "this build, --sched on: sched_switch"),
        ("on", "on_wakeup", "this build, --sched on: sched_wakeup"),
        ("on", "rq_sched_switch", "runqlat, same runs: sched_switch"),
        ("on", "rq_sched_wakeup", "runqlat, same runs: sched_wakeup")]
med = {}
L = ["<!-- bench-sched: begin (tools/bench-sched.sh writes this section) -->",
     "## The scheduler view (--sched)", "",
     "```", f"sudo tools/bench-sched.sh {rounds}", "```", "",
     f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, emon-perf {head}, "
     f"{rounds} rounds of each configuration in a shuffled order; in each, a ping-pong "
     "(`tools/pingpong`, 2 processes on CPU 1: every round trip 2 switches and 2 wakeups) "
     "under `emon-perf stat -a -e cpu-clock` for 2 s after a warm-up, "
     "`kernel.bpf_stats_enabled=1` meanwhile (run_time_ns / run_cnt of each program, "
     "`bpftool prog show`); with `--sched`, libbpf-tools' `runqlat` runs in the same run "
     "on the same workload. bpf_stats adds its own ~60 ns to every program alike (see above).", "",
     "| program | ns per run, median [min-max] | rounds | runs per round (median) |",
     "|---|---|---|---|"]
for cfg, name, what in rows:
    x = v.get((cfg, name))
    if not x:
        continue
    med[(cfg, name)] = statistics.median(x)
    L.append(f"| {what} | {statistics.median(x):.0f} [{min(x):.0f}-{max(x):.0f}] | {len(x)} | "
             f"{int(statistics.median(runs[(cfg, name)]))} |")
L.append("")
g = lambda c, n: med.get((c, n), float("nan"))
L.append(f"- **Off**: on_switch's translated code is {xl('off')} bytes, {xl('base')} before "
         "--sched: the verifier drops the view's code (its test of `sched_on` is a constant), "
         "and nothing was moved above the test; the wakeup programs are not loaded. "
         f"The run times ({g('off', 'on_switch'):.0f} vs {g('base', 'on_switch'):.0f} ns) "
         "differ by this shared machine's noise, not by code.")
L.append(f"- **On**: {g('on', 'on_switch') - g('off', 'on_switch'):.0f} ns more per switch "
         f"(on_switch {xl('on')} bytes) and {g('on', 'on_wakeup'):.0f} ns per wakeup, for "
         "every scope at once; runqlat, one histogram for one filter, costs "
         f"{g('on', 'rq_sched_switch'):.0f} ns per switch and {g('on', 'rq_sched_wakeup'):.0f} "
         "ns per wakeup in the same runs (its hash map of start times, updated and deleted "
         "at every switch, against emon-perf's task-local storage and per-CPU slot cache).")
L.append("<!-- bench-sched: end -->")
sec = "\n".join(L)
print(sec)
old = open(md).read() if os.path.exists(md) else ""
i, j = old.find("<!-- bench-sched: begin"), old.find("<!-- bench-sched: end -->")
new = old[:i] + sec + old[j + len("<!-- bench-sched: end -->"):] if i >= 0 and j > i \
    else old.rstrip("\n") + "\n\n" + sec + "\n"
open(md, "w").write(new)
PY
