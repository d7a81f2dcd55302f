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
