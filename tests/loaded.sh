#!/usr/bin/env bash
# make test-loaded: the integration and stress suites (tests/run.sh) while
# stress-ng keeps every CPU busy with a CPU worker per CPU (LOAD_WORKERS: 2x
# CPUs was the default until the suite outgrew CI's 50 minutes), at
# the tests' own priority (nice 0, SCHED_OTHER), in a cgroup of its own.
# A monitoring tool runs on busy hosts; the tests compare with what the
# kernel measured for the same window, so they must hold here too.
#   tests/loaded.sh [NAME_FILTER]
# LONG_S (60 here), SIGNALS_N (100), CHURN_S (20) and STORM_S (20)
# shorten the stress tests' long versions (make stress: 600, 300, 60,
# 30); LOAD_WORKERS changes
# the number of workers. Exit status: that of the suites, or 1 if the load
# did not last the whole run.
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
export OUTPUT
filter=${1:-}
die() { echo "test-loaded: $*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "needs root (BPF, perf events, cgroups)"
command -v stress-ng >/dev/null || die "stress-ng not installed (tools/install-deps.sh --with-test)"
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CGROOT" ] || die "no cgroup2 mount in /proc/mounts"
n=$(nproc)
workers=${LOAD_WORKERS:-$n}
cg=$CGROOT/emon-load-$$

cleanup() {
	trap - EXIT INT TERM
	[ -d "$cg" ] || return
	echo 1 >"$cg/cgroup.kill" 2>/dev/null
	for _ in $(seq 100); do
		grep -q '^populated 0' "$cg/cgroup.events" 2>/dev/null && break
		sleep 0.05
	done
	rmdir "$cg" 2>/dev/null || echo "test-loaded: could not remove $cg" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$cg" || die "cannot create $cg"
sh -c 'echo $$ >"$0/cgroup.procs" && exec nice -n 0 stress-ng --cpu "$1" --timeout 0 --quiet' \
	"$cg" "$workers" >/dev/null 2>&1 &
load=$!
for _ in $(seq 100); do	# every worker running
	[ "$(wc -l <"$cg/cgroup.procs")" -gt "$workers" ] && break
	sleep 0.05
done
[ "$(wc -l <"$cg/cgroup.procs")" -gt "$workers" ] || die "stress-ng did not start $workers workers"
u0=$(awk '$1 == "usage_usec" { print $2 }' "$cg/cpu.stat")
t0=$(date +%s.%N)
echo "test-loaded: stress-ng --cpu $workers on $n CPUs (cgroup ${cg#"$CGROOT"})"

ret=0
tests/run.sh --integration "$filter" || ret=1
LONG_S=${LONG_S:-60} SIGNALS_N=${SIGNALS_N:-100} CHURN_S=${CHURN_S:-20} STORM_S=${STORM_S:-20} \
	tests/run.sh --stress "$filter" || ret=1

kill -0 "$load" 2>/dev/null || { echo "test-loaded: FAIL  stress-ng ended before the tests did"; ret=1; }
u1=$(awk '$1 == "usage_usec" { print $2 }' "$cg/cpu.stat")
python3 -c '
import sys
u, t, n = (float(sys.argv[1]) - float(sys.argv[2])) / 1e6, float(sys.argv[3]) - float(sys.argv[4]), int(sys.argv[5])
print(f"test-loaded: the load used {u:.0f} CPU-s in {t:.0f} s, {u / t:.2f} of {n} CPUs")' \
	"$u1" "$u0" "$(date +%s.%N)" "$t0" "$n"
exit $ret
