# Sourced by the integration tests: cgroups of their own (removed on exit),
# checks that print one line each, and the paths of the binaries; the
# other helpers, by topic, are in lib/*.sh, which this sources.
# Exit codes: 0 pass, 1 fail, 77 skip.
set -u
EMON=${EMON:-$PWD/emon-perf}
TOOLS=${TOOLS:-${OUTPUT:-build}/tools}
BURN=$TOOLS/burn
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
# in memory where there is a tmpfs, like the sysfs files the fake powercap
# trees stand for: on a disk, fake-rapl's renames stalled behind other
# I/O (a 1 s window read 1.3 W while the tree drew 28 W)
TMP=$(mktemp -d /dev/shm/emon-test.XXXXXX 2>/dev/null || mktemp -d /tmp/emon-test.XXXXXX)
TESTCG=/emon-test-$$
# a daemon the machine may run is not ours to attach to: stat counts with
# its own events unless a test passes --socket
export EMON_PERF_SOCKET=$TMP/no-daemon.sock
FAILS=0
BG_PIDS=()
# EMON_SCHED=1: every stat and serve of the test runs with --sched, which
# must change none of what the test checks (tests/run.sh --sched)
# (beside the build, not in $TMP: tests run it as nobody too)
if [ -n "${EMON_SCHED:-}" ]; then
	w=$(cd "${OUTPUT:-build}" && pwd)/emon-sched
	printf '#!/bin/sh\nsub=$1\nshift\ncase $sub in stat|serve) exec "%s" "$sub" --sched "$@" ;; esac\nexec "%s" "$sub" "$@"\n' \
		"$EMON" "$EMON" >"$w.$$" && chmod 755 "$w.$$" && mv "$w.$$" "$w"
	EMON=$w
fi

skip() { echo "SKIP: $*"; exit 77; }
# per_mode DEFAULT COUNTERS: what a check expects by default, or in the
# counter pass (tests/run.sh --counters: EMON_SWITCH_EVENTS=counters), where
# every event is read from a perf_event of its own on every CPU
per_mode() { [ "${EMON_SWITCH_EVENTS:-}" = counters ] && echo "$2" || echo "$1"; }
# How much RSS may grow and still be flat: 1 MiB, plus ASan's quarantine
# of freed memory (capped at 16 MiB by tests/run.sh) under make asan.
RSS_SLACK_KB=1024
[[ ${ASAN_OPTIONS:-} == *quarantine_size_mb=* ]] && RSS_SLACK_KB=$((1024 + 16384))
[ -n "$CGROOT" ] || skip "no cgroup2 mount"
[ -x "$EMON" ] || { echo "FAIL: $EMON not built"; exit 1; }

cleanup() {
	local d
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	if [ -d "$CGROOT$TESTCG" ]; then
		# kill stragglers (forking loops too: cgroup.kill takes the
		# whole subtree at once), wait until it is empty, remove it
		if [ -e "$CGROOT$TESTCG/cgroup.kill" ]; then
			echo 1 >"$CGROOT$TESTCG/cgroup.kill" 2>/dev/null
			for _ in $(seq 100); do
				grep -q '^populated 0' "$CGROOT$TESTCG/cgroup.events" && break
				sleep 0.02
			done
		else
			for d in $(find "$CGROOT$TESTCG" -depth -type d); do
				while read -r p; do echo "$p" >"$CGROOT/cgroup.procs" 2>/dev/null; done <"$d/cgroup.procs"
			done
		fi
		find "$CGROOT$TESTCG" -depth -type d -exec rmdir {} + 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# cg_new REL: make $TESTCG/REL, print its path from the cgroup2 root
cg_new() {
	mkdir -p "$CGROOT$TESTCG/$1" && echo "$TESTCG/$1"
}

# cg_usage_ns PATH: the cgroup's CPU time from the kernel, in ns (%.0f:
# mawk's %d clamps at 2^31 - 1, 2.1 s)
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
		return 1
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

# near_plus A B TOL_PERCENT SLACK [LABEL]: |A - B| <= TOL% of B + SLACK
# (LABEL names the slack in what it prints)
near_plus() {
	python3 -c '
import sys
a, b, tol, slack = map(float, sys.argv[1:5])
print(f"      {a:.6g} vs {b:.6g}: {abs(a - b) / b * 100:.3f}% (tolerance {tol}% + {sys.argv[5]}{slack / 1e6:.3f} ms)")
sys.exit(0 if abs(a - b) <= tol / 100 * b + slack else 1)' "$1" "$2" "$3" "$4" "${5:-}"
}

# cg_bg PATH CMD...: CMD in the cgroup, in the background, killed on exit.
# Its pid (sh execs it) is in $CG_BG_PID and BG_PIDS: "cg_run ... &" gives
# the pid of a subshell instead, and killing that leaves CMD running.
cg_bg() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT$cg" "$@" &
	CG_BG_PID=$!
	BG_PIDS+=($CG_BG_PID)
}
# cg_burners SECS CG...: a burner of SECS CPU seconds in each cgroup
# (one per word: a cgroup named twice gets two); their pids in BURNERS
cg_burners() {
	local secs=$1 cg
	shift
	BURNERS=()
	for cg in "$@"; do
		cg_bg "$cg" "$BURN" "$secs"
		BURNERS+=("$CG_BG_PID")
	done
}

# burners_joined CG...: wait (5 s at most each) until every pid of
# BURNERS is in one of the cgroups CG (cg_bg's process writes its own pid
# and execs: a reader that splits by the cgroup a pid is in at a read
# needs them there before its first)
burners_joined() {
	local p cg files=()
	for cg in "$@"; do files+=("$CGROOT$cg/cgroup.procs"); done
	for p in "${BURNERS[@]}"; do
		for _ in $(seq 500); do
			grep -qx "$p" "${files[@]}" && break
			sleep 0.01
		done
	done
}

finish() {
	[ "$FAILS" -eq 0 ] && exit 0
	echo "$FAILS check(s) failed"
	exit 1
}

# --- reliability helpers (process storms, churn, signals, long runs) ---

FORKER=$TOOLS/forker
CGCHURN=$TOOLS/cgchurn

# python3 without a version manager's shim in front (pyenv's costs a
# second a call on a loaded machine): the helpers call it in loops
PY3=${PY3:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}

# "${RUSAGE_RUN[@]}" FILE CMD...: run CMD; once it and every descendant it
# orphaned have ended (this is their child subreaper), write their CPU
# time in ns, as the kernel accounts it (getrusage: the wrapper's own and
# its reaped children's), to FILE; exit with CMD's status (128 + signal).
# A command word, not a function, so that a command tree can start with it
# (emon-perf stat ... -- "${RUSAGE_RUN[@]}" FILE CMD...) and hold nothing
# the FILE lacks; the reading is its last act (no interpreter teardown).
RUSAGE_RUN=("$PY3" -c '
import ctypes, os, resource, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)	# PR_SET_CHILD_SUBREAPER
st = subprocess.call(sys.argv[2:])
while True:	# the orphans, reparented to us
    try:
        os.wait()
    except ChildProcessError:
        break
s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"%d" % round((s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime) * 1e9))
os._exit(st if st >= 0 else 128 - st)')

# the helpers by topic, parts of this file in lib/ beside it
for _part in records steal energy resources serve perf pods screenshot; do
	. "$(dirname "${BASH_SOURCE[0]}")/lib/$_part.sh"
done
unset _part
