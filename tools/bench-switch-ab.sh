#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two builds of the engine's switch program side by side in one run: each
# build's tools/bench-switch-cost (which loads that build's own BPF
# object) cut after each step in turn, the two taking turns, ROUNDS
# times, under the cross-cgroup ping-pong on the last CPU; median [min-max]
# ns per run (kernel.bpf_stats_enabled) per step and build. For a change
# to the switch path: build the commit before it in a worktree, then
#   tools/bench-switch-ab.sh /path/to/before/build .../after/build [ROUNDS]
# (root; BENCH_EVENTS: the events, cpu-clock,context-switches,page-faults;
# AFTER_ARGS: more arguments for the after build's, e.g. "-T 32768": the
# same build with a knob on, A against B)
set -u
cd "$(dirname "$0")/.."
. tools/bench/lib.sh
[ $# -ge 2 ] || die "usage: tools/bench-switch-ab.sh BEFORE_BUILD AFTER_BUILD [ROUNDS]"
A=$1 B=$2 ROUNDS=${3:-6}
EV=${BENCH_EVENTS:-cpu-clock,context-switches,page-faults}
for d in "$A" "$B"; do
	[ -x "$d/tools/bench-switch-cost" ] || die "$d/tools/bench-switch-cost not built (make tools)"
done
bench_setup "taskset awk" "pingpong bench-switch-cost"
CG=$CGROOT/emon-ab-$$
RES=$(mktemp)
BG=()
cleanup() {
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for _ in $(seq 50); do rmdir "$CG/c0" "$CG/c1" "$CG" 2>/dev/null && break; sleep 0.1; done
	rm -f "$RES"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$CG/c0" "$CG/c1" || die "cannot create $CG"
# statistics on through a BPF_ENABLE_STATS fd of our own, as tools/bench.sh
"$B/tools/bench-switch-cost" -S >/dev/null &
BG+=($!)
taskset -c 0 "${PP[@]}" -d 3600 -w 0 "$CG/c0" "$CG/c1" >/dev/null 2>&1 &
BG+=($!)
sleep 1
for ((r = 1; r <= ROUNDS; r++)); do
	# shellcheck disable=SC2046
	for b in $(shuffled "$r" before after); do
		d=$A extra=()
		[ "$b" = after ] && d=$B && read -ra extra <<<"${AFTER_ARGS:-}"
		# shellcheck disable=SC2046
		taskset -c 0 "$d/tools/bench-switch-cost" "${extra[@]}" -e "$EV" -d 0.5 \
			$(shuffled "$((100 + r))" none read cpu cgrp all) |
			sed "s/^/build=$b /" >>"$RES"
	done
done
echo "$EV, $ROUNDS rounds, ns per run (median [min-max]):"
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print v["step"], v["build"], v["ns_per_run"] }' "$RES" |
python3 -c '
import sys, statistics
d = {}
for l in sys.stdin:
    s, b, ns = l.split()
    d.setdefault((s, b), []).append(float(ns))
print("| step | before | after | after - before |")
print("|---|---:|---:|---:|")
for s in ("none", "read", "cpu", "cgrp", "all"):
    a, b = d.get((s, "before"), []), d.get((s, "after"), [])
    if not a or not b:
        continue
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"| {s} | {ma:.0f} [{min(a):.0f}-{max(a):.0f}] | {mb:.0f} [{min(b):.0f}-{max(b):.0f}] | {mb - ma:+.0f} |")'
