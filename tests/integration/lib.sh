# Sourced by the integration tests: cgroups of their own (removed on exit),
# checks that print one line each, and the paths of the binaries.
# Exit codes: 0 pass, 1 fail, 77 skip.
set -u
EMON=${EMON:-$PWD/emon-perf}
TOOLS=${TOOLS:-${OUTPUT:-build}/tools}
BURN=$TOOLS/burn
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
TMP=$(mktemp -d /tmp/emon-test.XXXXXX)
TESTCG=/emon-test-$$
FAILS=0
BG_PIDS=()

skip() { echo "SKIP: $*"; exit 77; }
[ -n "$CGROOT" ] || skip "no cgroup2 mount"
[ -x "$EMON" ] || { echo "FAIL: $EMON not built"; exit 1; }

cleanup() {
	local d
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	if [ -d "$CGROOT$TESTCG" ]; then
		# move stragglers out, deepest cgroups first, then remove them
		for d in $(find "$CGROOT$TESTCG" -depth -type d); do
			while read -r p; do echo "$p" >"$CGROOT/cgroup.procs" 2>/dev/null; done <"$d/cgroup.procs"
		done
		find "$CGROOT$TESTCG" -depth -type d -exec rmdir {} + 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# cg_new REL: make $TESTCG/REL, print its path from the cgroup2 root
cg_new() {
	mkdir -p "$CGROOT$TESTCG/$1" && echo "$TESTCG/$1"
}

# cg_usage_ns PATH: the cgroup's CPU time from the kernel, in ns
cg_usage_ns() {
	awk '$1 == "usage_usec" { printf "%.0f\n", $2 * 1000 }' "$CGROOT$1/cpu.stat"
}

# cg_run PATH CMD...: run CMD inside the cgroup (in the background)
cg_run() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT$cg" "$@"
}

# check DESCRIPTION CONDITION...: evaluate the condition (a command)
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok    $what"
	else
		echo "FAIL  $what"
		FAILS=$((FAILS + 1))
	fi
}

# near A B TOL_PERCENT: |A - B| <= TOL% of B (prints the error)
near() {
	python3 -c '
import sys
a, b, tol = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
err = abs(a - b) / b * 100 if b else float("inf")
print(f"      {a:.6g} vs {b:.6g}: {err:.3f}% (tolerance {tol}%)")
sys.exit(0 if err <= tol else 1)' "$1" "$2" "$3"
}

# jrow FILE SCOPE KEY EVENT: that counter in the last row matching, or "null"
jrow() {
	python3 -c '
import json, sys
f, scope, key, ev = sys.argv[1:5]
val = "missing"
for line in open(f):
    r = json.loads(line)
    if r["scope"] == scope and str(r["key"]) == key:
        v = r["counters"].get(ev, "missing")
        val = "null" if v is None else v
print(val)' "$@"
}

# bpf_ids PID: the BPF programs and links PID holds, "prog N" / "link N"
bpf_ids() {
	grep -hE '^(prog_id|link_id):' /proc/"$1"/fdinfo/* 2>/dev/null |
		sed -e 's/^prog_id:\s*/prog /' -e 's/^link_id:\s*/link /' | sort -u
}

# bpf_gone IDS: none of those programs and links exists any more. The
# kernel frees them after an RCU grace period, so poll for up to 3 s.
bpf_gone() {
	local kind id left
	for _ in $(seq 60); do
		left=
		while read -r kind id; do
			[ -n "$id" ] || continue
			bpftool "$kind" show id "$id" >/dev/null 2>&1 && left="$left $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	echo "      still there:$left"
	return 1
}

# steal_ns: CPU time the hypervisor stole so far, all CPUs (/proc/stat).
# Time events (cpu-clock) include it, the scheduler's accounting
# (cpu.stat) leaves it out (CONFIG_PARAVIRT_TIME_ACCOUNTING), so in a VM
# the two may differ by up to the steal of the run.
steal_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.0f\n", $9 * 1e9 / hz }' /proc/stat
}

# near_steal A B TOL_PERCENT STEAL_NS: like near, allowing the steal too
near_steal() {
	python3 -c '
import sys
a, b, tol, st = map(float, sys.argv[1:5])
err = abs(a - b)
allowed = b * tol / 100 + st
print(f"      {a:.6g} vs {b:.6g}: {err / b * 100:.3f}% (tolerance {tol}% + steal {st / 1e6:.0f} ms)")
sys.exit(0 if err <= allowed else 1)' "$1" "$2" "$3" "$4"
}

# fake_rapl DIR WATTS [ARGS...]: a powercap tree advancing at WATTS per
# package in the background, ready when this returns
fake_rapl() {
	local dir=$1
	mkdir -p "$dir"
	# real-time priority: a starved helper would lag and then catch up,
	# moving energy between intervals (and past the ends of a run)
	if command -v chrt >/dev/null; then
		chrt -f 50 "$TOOLS/fake-rapl" "$@" &
	else
		"$TOOLS/fake-rapl" "$@" &
	fi
	BG_PIDS+=($!)
	for _ in $(seq 200); do
		[ -e "$dir/.ready" ] && return 0
		sleep 0.01
	done
	echo "FAIL  fake-rapl did not start"
	return 1
}

# jsum FILE SCOPE FIELD: FIELD summed over the rows of SCOPE (all intervals)
jsum() {
	python3 -c '
import json, sys
f, scope, field = sys.argv[1:4]
print(sum(json.loads(l).get(field) or 0 for l in open(f) if json.loads(l)["scope"] == scope))' "$@"
}

finish() {
	[ "$FAILS" -eq 0 ] && exit 0
	echo "$FAILS check(s) failed"
	exit 1
}
