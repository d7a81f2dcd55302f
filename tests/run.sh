#!/usr/bin/env bash
# Runs the unit tests (cmocka binaries), then the integration tests (root,
# real BPF) and ends with one summary line: "N passed, N failed, N skipped".
#   tests/run.sh [--unit|--integration|--stress] [NAME_FILTER]
# (default: unit and integration; --stress runs tests/stress/ only)
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
export OUTPUT EMON=${EMON:-$PWD/emon-perf} TOOLS=$OUTPUT/tools
mode=all
[ "${1:-}" = "--unit" ] && { mode=unit; shift; }
[ "${1:-}" = "--integration" ] && { mode=integration; shift; }
[ "${1:-}" = "--stress" ] && { mode=stress; shift; }
filter=${1:-}
pass=0 fail=0 skip=0 failed=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

result() { # name rc
	case $2 in
	0) pass=$((pass + 1)); printf 'PASS  %s\n' "$1" ;;
	77) skip=$((skip + 1)); printf 'SKIP  %s: %s\n' "$1" "$(grep -m1 '^SKIP' "$log/out" | sed 's/^SKIP:* *//')" ;;
	*) fail=$((fail + 1)); failed+=("$1"); printf 'FAIL  %s (exit %s)\n' "$1" "$2"
	   sed 's/^/      | /' "$log/out" | tail -40 ;;
	esac
}

if [ $mode = all ] || [ $mode = unit ]; then
	for t in "$OUTPUT"/tests/test_*; do
		[ -x "$t" ] || continue
		name=unit/$(basename "$t")
		[[ -n $filter && $name != *$filter* ]] && continue
		"$t" >"$log/out" 2>&1
		result "$name" $?
		grep -E '^\[  (PASSED|FAILED)' "$log/out" | sed 's/^/      /'
	done
fi

if [ $mode = all ] || [ $mode = integration ] || [ $mode = stress ]; then
	dir=tests/integration
	[ $mode = stress ] && dir=tests/stress
	for t in "$dir"/*.sh; do
		[ -e "$t" ] || continue
		[ "$(basename "$t")" = lib.sh ] && continue
		name=$(basename "$dir")/$(basename "$t" .sh)
		[[ -n $filter && $name != *$filter* ]] && continue
		if [ "$(id -u)" -ne 0 ]; then
			echo "SKIP: needs root (BPF and perf events)" >"$log/out"
			result "$name" 77
			continue
		fi
		timeout 1800 bash "$t" >"$log/out" 2>&1
		result "$name" $?
	done
fi

echo
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
