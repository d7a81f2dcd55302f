#!/usr/bin/env bash
# Runs one libFuzzer harness for a bounded time from its seed corpus
# (tests/fuzz/corpus/NAME, copied: new inputs it finds are not kept) with
# its dictionary (tests/fuzz/NAME.dict) when there is one. Exit 0 when
# nothing crashed; else the crashing input is kept in BUILD/fuzz/crashes/
# (fix the bug, then add the input to the corpus).
#   tests/fuzz/run.sh BUILD/fuzz/fuzz_NAME [SECONDS]  (default $FUZZ_SECONDS, 8)
# Prints "fuzz: NAME: RUNS runs in S s (N/s), corpus N inputs" and, on a
# crash, the report and the input's path.
set -u
cd "$(dirname "$0")/../.."
bin=$1
secs=${2:-${FUZZ_SECONDS:-8}}
name=$(basename "$bin")
name=${name#fuzz_}
crashes=$(dirname "$bin")/crashes
work=$(mktemp -d -p /dev/shm emon-fuzz.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/tmp" "$crashes"
[ -d "tests/fuzz/corpus/$name" ] && cp "tests/fuzz/corpus/$name"/* "$work/corpus/" 2>/dev/null
# -error_exitcode: libFuzzer's own is 77, which tests/run.sh reads as a skip
args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -error_exitcode=1
      -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$crashes/$name-")
[ -f "tests/fuzz/$name.dict" ] && args+=(-dict="tests/fuzz/$name.dict")
# the harness's own files (fuzz_powercap's tree) go under $work too
TMPDIR=$work/tmp "$bin" "${args[@]}" "$work/corpus" >"$work/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
corpus=$(find "$work/corpus" -type f | wc -l)
echo "fuzz: $name: ${runs:-?} runs in $secs s ($(( ${runs:-0} / secs ))/s), corpus $corpus inputs"
if [ $rc -ne 0 ]; then
	grep -v '^#[0-9]' "$work/log" | tail -60
	sed -n "s/.*Test unit written to /input: /p" "$work/log"
fi
exit $rc
