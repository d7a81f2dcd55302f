# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Helpers of tools/bench*.sh (sourced from the repository root), and what
# tools/bench.sh and bench-serve.sh take from the environment: BENCH_SECS
# (2, seconds measured per ping-pong run), BENCH_RT (10, the workloads'
# SCHED_FIFO priority; 0: SCHED_OTHER).

T_START=$(date +%s.%N)
SECS=${BENCH_SECS:-2}
RT=${BENCH_RT:-10}
ROOT=$PWD
OUTPUT=${OUTPUT:-build}
case $OUTPUT in /*) ;; *) OUTPUT=$ROOT/$OUTPUT ;; esac
EMON=${EMON:-$ROOT/emon-perf}
TOOLS=$OUTPUT/tools

die() { echo "bench: $*" >&2; exit 1; }

# bench_setup "COMMANDS" "TOOLS": root, a cgroup2 mount (CGROOT), the
# commands and tools needed, 2 CPUs at least; sets NCPU, WCPU (the
# workloads' CPU: the last) and PP (the ping-pong at SCHED_FIFO $RT there)
bench_setup() {
	local c
	[ "$(id -u)" -eq 0 ] || die "needs root (BPF, perf events, cgroups)"
	CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$CGROOT" ] || die "no cgroup2 mount in /proc/mounts"
	for c in $1; do command -v "$c" >/dev/null || die "missing $c"; done
	for c in $2; do [ -x "$TOOLS/$c" ] || die "$TOOLS/$c not built (make tools)"; done
	[ -x "$EMON" ] || die "$EMON not built"
	NCPU=$(nproc)
	[ "$NCPU" -ge 2 ] || die "needs at least 2 CPUs (monitors on CPU 0, workload on the last)"
	WCPU=$((NCPU - 1))
	PP=("$TOOLS/pingpong" -c "$WCPU" -r "$RT")
	ulimit -n "$(ulimit -Hn)" 2>/dev/null	# perf opens K x events x CPUs fds
}
log() { printf '[%6.1fs] %s\n' "$(echo "$(date +%s.%N) - $T_START" | bc)" "$*"; }
steal_ns() { # [CPU]: hypervisor steal so far, of that CPU or of all
	awk -v c="cpu${1:-}" -v hz="$(getconf CLK_TCK)" '$1 == c { printf "%.0f\n", $9 * 1e9 / hz }' /proc/stat
}
perf_fds() { find "/proc/$1/fd" -lname 'anon_inode:\[perf_event\]' 2>/dev/null | wc -l; }
shuffled() { # SEED WORDS...: the words in a random order fixed by SEED
	local seed=$1
	shift
	printf '%s\n' "$@" | awk -v s="$seed" 'BEGIN { srand(s) } { print rand() "\t" $0 }' |
		sort -k1,1g | cut -f2-
}
kv() { # KEY FILE: the value of KEY=value in FILE
	grep -o "$1=[^ ]*" "$2" 2>/dev/null | head -1 | cut -d= -f2
}

# The benchmark's cgroups: $CGDIR (under the cgroup2 root $CGROOT, as
# $BENCHCG) with c0000, c0001... in it.
cgdirs() { local i; for ((i = 0; i < $1; i++)); do printf '%s/c%04d ' "$CGDIR" "$i"; done; }
cglist() { local i s=; for ((i = 0; i < $1; i++)); do s+=$(printf '%s/c%04d,' "$BENCHCG" "$i"); done; echo "${s%,}"; }

# bench_traps: no background jobs yet (BG); at exit, INT and TERM
# included, bench_end; bench_end: bench_cleanup once, no trap left
bench_traps() {
	BG=()
	trap bench_end EXIT
	trap 'exit 130' INT TERM
}
bench_end() {
	trap - EXIT INT TERM
	bench_cleanup
}

# bench_cleanup: at exit, stop the background jobs in BG and remove
# $CGDIR, killing what still runs in it
bench_cleanup() {
	local p d
	for p in "${BG[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${BG[@]}"; do wait "$p" 2>/dev/null; done
	[ -d "$CGDIR" ] || return 0
	for d in "$CGDIR"/c*; do
		[ -f "$d/cgroup.procs" ] || continue
		while read -r p; do
			kill -9 "$p" 2>/dev/null
			echo "$p" >"$CGROOT/cgroup.procs" 2>/dev/null
		done <"$d/cgroup.procs"
	done
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		find "$CGDIR" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
		rmdir "$CGDIR" 2>/dev/null && break
		sleep 0.5
	done
	[ -d "$CGDIR" ] && echo "bench: could not remove $CGDIR" >&2
}

# bench_section NAME FILE COPY: FILE (a section that begins with
# "<!-- NAME: begin" and ends with "<!-- NAME: end -->") in place of
# BENCHMARKS.md's section of that name, or at its end when it has none;
# with BENCH_REPORT=0, BENCHMARKS.md stays as it is and FILE is copied to
# $OUTPUT/bench/COPY
bench_section() {
	if [ "${BENCH_REPORT:-1}" != 1 ]; then
		mkdir -p "$OUTPUT/bench" && cp "$2" "$OUTPUT/bench/$3"
		return
	fi
	python3 - "$1" "$2" "$ROOT/BENCHMARKS.md" <<'PY'
import sys
name, sec, md = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
old = open(md).read()
b, e = f"<!-- {name}: begin", f"<!-- {name}: end -->"
i, j = old.find(b), old.find(e)
new = old[:i] + sec.rstrip("\n") + old[j + len(e):] if i >= 0 and j > i else old.rstrip("\n") + "\n\n" + sec
open(md, "w").write(new)
PY
	echo "$1: BENCHMARKS.md"
}
