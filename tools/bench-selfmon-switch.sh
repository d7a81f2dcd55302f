#!/usr/bin/env bash
# tools/bench-selfmon-switch.sh A_DIR B_DIR [ROUNDS] (root): the switch
# path's cost with thread self-monitoring on, two builds taking turns.
# A_DIR and B_DIR are trees with emon-perf and build/tools/selfmon/check
# (a worktree each, built). Each run: `serve --threads 64` with
# kernel.bpf_stats_enabled=1, then on_switch's run_time_ns / run_cnt while
# 8 registered threads burn, sleep and yield for 3 s (check threads), and
# while none is registered (sleepers). Prints one line per run; run it
# under the integration lock, the machine otherwise quiet.
set -u
[ "$(id -u)" = 0 ] || { echo "bench-selfmon-switch: needs root" >&2; exit 1; }
[ $# -ge 2 ] || { echo "usage: $0 A_DIR B_DIR [ROUNDS]" >&2; exit 2; }
ROUNDS=${3:-5}
PY3=${PY3:-python3}

progs() {	# ids of every on_switch program loaded now
	bpftool prog show -j | "$PY3" -c '
import json, sys
print(" ".join(str(p["id"]) for p in json.load(sys.stdin) if p.get("name") == "on_switch"))'
}

stats() {	# run_time_ns run_cnt of program $1
	bpftool prog show id "$1" -j | "$PY3" -c '
import json, sys
p = json.load(sys.stdin)
print(p.get("run_time_ns", 0), p.get("run_cnt", 0))'
}

one() {	# DIR: one run of that build
	local dir=$1 T D id= before t0 c0 t1 c1
	T=$(mktemp -d)
	before=" $(progs) "
	"$dir/emon-perf" serve -e cpu-clock,context-switches --threads 64 --socket "$T/s" \
		--pin-dir "/sys/fs/bpf/emon-bss-$$" --listen none 2>"$T/err" &
	D=$!
	for _ in $(seq 500); do grep -q serving "$T/err" && break; sleep 0.02; done
	for i in $(progs); do [[ "$before" == *" $i "* ]] || id=$i; done
	for phase in registered unregistered; do
		read -r t0 c0 < <(stats "$id")
		if [ $phase = registered ]; then
			"$dir/build/tools/selfmon/check" threads "$T/s" 8 3 >/dev/null
		else
			timeout 3 sh -c 'while :; do sleep 0.001; done'
		fi
		read -r t1 c1 < <(stats "$id")
		[ "$c1" -gt "$c0" ] &&
			echo "$dir $phase: $(((t1 - t0) / (c1 - c0))) ns per switch over $((c1 - c0)) switches"
	done
	kill "$D"
	wait "$D"
	rm -rf "$T"
}

old=$(cat /proc/sys/kernel/bpf_stats_enabled)
trap 'echo "$old" >/proc/sys/kernel/bpf_stats_enabled' EXIT
echo 1 >/proc/sys/kernel/bpf_stats_enabled
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then one "$1"; one "$2"; else one "$2"; one "$1"; fi
done
