#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make bench-memory (root): emon-perf stat's resident memory in a process
# storm (tools/forker, as tests/integration/process_storm.sh makes it), with
# its heap settings (front/heap.c: a fixed mmap threshold, a trim after each
# interval) and with glibc's defaults (EMON_HEAP_DEFAULT=1), ROUNDS pairs
# taking turns in one run. Each run
# samples VmRSS every 0.25 s and counts the process rows of each -I 500
# interval; memory follows the busiest interval, so the figure compared is
# KiB of peak RSS, less a 32 MiB base, per process row of the busiest
# interval, and how much RSS the second half of a run adds to the first.
# Then its section of BENCHMARKS.md (between the bench-memory markers), or
# $OUTPUT/bench/memory.md with BENCH_REPORT=0.
set -eu
cd "$(dirname "$0")/.."
# shellcheck source=tools/bench/lib.sh
. tools/bench/lib.sh
ROUNDS=${BENCH_ROUNDS:-3}
STORM_SECS=${BENCH_STORM_SECS:-10}
bench_setup "" forker	# root, CGROOT, the binaries
T=$(mktemp -d)
CG=$CGROOT/emon-bench-rss-$$
mkdir "$CG"
trap 'rmdir "$CG" 2>/dev/null; rm -rf "$T"' EXIT

# run TAG [ENV=VAL]: one storm watched by stat, its RSS samples and rows
run() {
	local tag=$1 p
	shift
	env "$@" "$EMON" stat -a --energy none -e cpu-clock,context-switches \
		-G "/${CG#"$CGROOT"/}" --by system,cgroup,process -I 500 --json-rows -o "$T/$tag.jsonl" -- \
		"$TOOLS/forker" -d "$STORM_SECS" -j $(($(nproc) * 2)) -c "$CG" -o "$T/$tag.forker" \
		2>"$T/$tag.err" &
	p=$!
	: >"$T/$tag.rss"
	while [ -d /proc/$p ]; do
		echo "$(date +%s.%N) $(awk '/^VmRSS/ { print $2 }' /proc/$p/status 2>/dev/null)" >>"$T/$tag.rss"
		sleep 0.25
	done
	wait $p || { cat "$T/$tag.err" >&2; exit 1; }
}

for r in $(seq "$ROUNDS"); do
	run "fixed.$r"
	run "default.$r" EMON_HEAP_DEFAULT=1
done

python3 - "$T" "$ROUNDS" "$STORM_SECS" >"$T/table.md" <<'PY'
import collections, json, statistics, sys
d, rounds, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def one(tag):
    rows = collections.Counter()
    for l in open(f"{d}/{tag}.jsonl"):
        r = json.loads(l)
        rows[r["interval"]] += r["scope"] == "process"
    s = [tuple(map(float, l.split())) for l in open(f"{d}/{tag}.rss") if len(l.split()) == 2]
    t0, half = s[0][0], (s[-1][0] - s[0][0]) / 2
    first = max(r for t, r in s if t - t0 <= half) / 1024
    second = max(r for t, r in s if t - t0 > half) / 1024
    busy = max(rows.values())
    rate = open(f"{d}/{tag}.forker").read().split("rate=")[1].split()[0]
    return busy, max(first, second), (max(first, second) - 32) * 1024 / busy, second - first, float(rate)

print("| heap | processes/s | busiest interval (rows) | peak RSS (MiB) | KiB a row over 32 MiB | second half - first (MiB) |")
print("|---|---|---|---|---|---|")
per = {}
for kind in ("fixed", "default"):
    res = [one(f"{kind}.{r}") for r in range(1, rounds + 1)]
    per[kind] = [x[2] for x in res]
    for busy, peak, kib, grow, rate in res:
        name = "front/heap.c" if kind == "fixed" else "glibc's defaults (EMON_HEAP_DEFAULT=1)"
        print(f"| {name} | {rate:,.0f} | {busy:,} | {peak:.0f} | {kib:.1f} | {grow:+.0f} |")
f, g = statistics.median(per["fixed"]), statistics.median(per["default"])
print()
print(f"Median KiB a row: {f:.1f} with front/heap.c's settings, {g:.1f} with glibc's defaults "
      f"({(1 - f / g) * 100:.0f}% less). tests/integration/process_storm.sh allows 5 KiB a row.")
PY
{
	echo "<!-- bench-memory: begin (tools/bench-storm-rss.sh writes this section) -->"
	echo "## Memory in a process storm"
	echo
	echo "\`make bench-memory\` (tools/bench-storm-rss.sh): \`emon-perf stat -a -G CG --by system,cgroup,process -I 500 -j\` over tools/forker's storm of short processes (${STORM_SECS} s, $(nproc) CPUs), $ROUNDS pairs of runs taking turns: front/heap.c's settings (a fixed 1 MiB mmap threshold, \`malloc_trim\` after each interval) against glibc's defaults, whose threshold rises each time a large block is freed, after which such blocks come from the heap, whose holes are not given back."
	echo
	cat "$T/table.md"
	echo "<!-- bench-memory: end -->"
} >"$T/section.md"
bench_section bench-memory "$T/section.md" memory.md
