#!/usr/bin/env bash
# Runs the unit tests (cmocka binaries), the fuzzers for a short bounded time
# (FUZZ_SECONDS each, tests/fuzz/run.sh), then the integration tests (root,
# real BPF) and ends with one summary line: "N passed, N failed, N skipped
# in S s".
#   tests/run.sh [--unit|--fuzz|--integration|--stress|--sched|--counters] [NAME_FILTER]
# (default: unit, fuzz and integration; --stress runs tests/stress/ only)
# With SAN_LOGS=DIR (make asan) sanitizer reports go to files there, and a
# test after which one appeared fails, whatever its exit status, and an
# integration test with a line "# sanitizer pass: REASON" is skipped. Each
# test's output is kept in $OUTPUT/test-logs/.
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
export OUTPUT EMON=${EMON:-$PWD/emon-perf} TOOLS=$OUTPUT/tools
mode=all
[ "${1:-}" = "--unit" ] && { mode=unit; shift; }
[ "${1:-}" = "--fuzz" ] && { mode=fuzz; shift; }
[ "${1:-}" = "--integration" ] && { mode=integration; shift; }
[ "${1:-}" = "--stress" ] && { mode=stress; shift; }
# --sched: integration tests again with every stat and serve under
# --sched (lib.sh): the scheduler view must change none of their results
# (give a NAME_FILTER: the whole suite includes cpu_hotplug)
[ "${1:-}" = "--sched" ] && { mode=integration; export EMON_SCHED=1; shift; }
# --counters: integration tests again with every event read from its
# per-CPU perf_event (EMON_SWITCH_EVENTS=counters): the read path every
# hardware event takes (cycles, instructions), which the switch-derived
# software events skip by default. A test about the switch-derived path
# itself says so in a line "# counter pass: REASON" and is skipped.
[ "${1:-}" = "--counters" ] && { mode=integration; export EMON_SWITCH_EVENTS=counters; shift; }
# With EMON_SWITCH_EVENTS=counters in the environment (make asan sets it),
# a whole run's integration tests take the counter path, and those that
# name a reason run on the default path instead of being skipped.
filter=${1:-}
# NAME_FILTER: words, each a part of a test's name; a test runs when any
# of them is in its name (tests/vm/ gives a list)
wanted() {
	local w
	[ -z "$filter" ] && return 0
	for w in $filter; do [[ $1 == *$w* ]] && return 0; done
	return 1
}
pass=0 fail=0 skip=0 failed=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
# A 16 MB quarantine (not 256): freed memory held for use-after-free checks
# would grow RSS for minutes, which the RSS checks take for a leak.
if [ -n "${SAN_LOGS:-}" ]; then
	rm -rf "$SAN_LOGS" && mkdir -p "$SAN_LOGS"
	export ASAN_OPTIONS="log_path=$SAN_LOGS/asan:detect_leaks=1:quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export UBSAN_OPTIONS="log_path=$SAN_LOGS/ubsan:print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
fi

# Reports the sanitizers wrote during the test just run, moved aside.
san_reports() {
	local f found=1
	[ -n "${SAN_LOGS:-}" ] || return 1
	for f in "$SAN_LOGS"/asan.* "$SAN_LOGS"/ubsan.*; do
		[ -e "$f" ] || continue
		found=0
		cat "$f" >>"$log/out"
		mkdir -p "$SAN_LOGS/seen" && mv "$f" "$SAN_LOGS/seen/"
	done
	return $found
}

result() { # name rc
	san_reports && set -- "$1" "$2; sanitizer report"
	# every test's whole output, passed or not, for the numbers it printed
	mkdir -p "$OUTPUT/test-logs" && cp "$log/out" "$OUTPUT/test-logs/${1//\//_}.log"
	case $2 in
	0) pass=$((pass + 1)); printf 'PASS  %s\n' "$1" ;;
	77) skip=$((skip + 1)); printf 'SKIP  %s: %s\n' "$1" "$(grep -m1 '^SKIP' "$log/out" | sed 's/^SKIP:* *//')" ;;
	*) fail=$((fail + 1)); failed+=("$1"); printf 'FAIL  %s (exit %s)\n' "$1" "$2"
	   # every failed check, wherever it is, then the end of the output
	   grep -E '^(FAIL|ERROR|\[  FAILED)' "$log/out" | sed 's/^/      ! /'
	   sed 's/^/      | /' "$log/out" | tail -40 ;;
	esac
}

if [ $mode = all ] || [ $mode = unit ]; then
	# the source tree's layering, include circles and file sizes
	if wanted layering; then
		tests/layering.sh >"$log/out" 2>&1
		result unit/layering $?
	fi
	for t in "$OUTPUT"/tests/test_*; do
		[ -x "$t" ] || continue
		name=unit/$(basename "$t")
		wanted "$name" || continue
		# their own environment: EMON_SWITCH_EVENTS is the integration tests'
		env -u EMON_SWITCH_EVENTS "$t" >"$log/out" 2>&1
		result "$name" $?
		grep -E '^\[  (PASSED|FAILED)' "$log/out" | sed 's/^/      /'
	done
fi

if [ $mode = all ] || [ $mode = fuzz ]; then
	for t in "$OUTPUT"/fuzz/fuzz_*; do
		[ -x "$t" ] || continue
		name=fuzz/$(basename "$t")
		wanted "$name" || continue
		env -u EMON_SWITCH_EVENTS tests/fuzz/run.sh "$t" >"$log/out" 2>&1
		result "$name" $?
		grep '^fuzz: ' "$log/out" | sed 's/^fuzz: /      /'
	done
fi

if [ $mode = all ] || [ $mode = integration ] || [ $mode = stress ]; then
	dir=tests/integration
	[ $mode = stress ] && dir=tests/stress
	for t in "$dir"/*.sh; do
		[ -e "$t" ] || continue
		case $(basename "$t") in lib.sh | *_lib.sh) continue ;; esac
		name=$(basename "$dir")/$(basename "$t" .sh)
		wanted "$name" || continue
		if [ "$(id -u)" -ne 0 ]; then
			echo "SKIP: needs root (BPF and perf events)" >"$log/out"
			result "$name" 77
			continue
		fi
		# the sanitizer pass (make asan: SAN_LOGS) leaves out a test
		# whose subject is another program (a Prometheus server, docker,
		# make install): it says so in a line "# sanitizer pass: REASON";
		# the loaded pass runs it on the build users run
		if [ -n "${SAN_LOGS:-}" ] && why=$(grep -m1 '^# sanitizer pass: ' "$t"); then
			echo "SKIP: ${why#\# sanitizer pass: }" >"$log/out"
			result "$name" 77
			continue
		fi
		sw=${EMON_SWITCH_EVENTS-}
		if [ "$sw" = counters ] && why=$(grep -m1 '^# counter pass: ' "$t"); then
			if [ $mode = integration ]; then
				echo "SKIP: ${why#\# counter pass: }" >"$log/out"
				result "$name" 77
				continue
			fi
			sw=
		fi
		env -u EMON_SWITCH_EVENTS ${sw:+EMON_SWITCH_EVENTS=$sw} \
			timeout 1800 bash "$t" >"$log/out" 2>&1
		result "$name" $?
	done
fi

echo
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped in $SECONDS s"
# make test gathers each pass's line, so that the end of its output names
# what failed however long the run was
if [ -n "${TEST_SUMMARY:-}" ]; then
	printf '%s in %s%s: %s passed, %s failed, %s skipped in %s s%s\n' "$mode" "$OUTPUT" \
		"${EMON_SWITCH_EVENTS:+ (EMON_SWITCH_EVENTS=$EMON_SWITCH_EVENTS)}" \
		$pass $fail $skip $SECONDS "${failed[*]:+; failed: ${failed[*]}}" >>"$TEST_SUMMARY"
fi
[ $fail -eq 0 ]
