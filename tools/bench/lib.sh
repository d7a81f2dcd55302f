# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Helpers of tools/bench.sh and tools/bench-serve.sh (sourced; T_START set).

die() { echo "bench: $*" >&2; exit 1; }
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
