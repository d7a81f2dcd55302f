#!/usr/bin/env bash
# make test-vm (and make test, as root): the counting tests inside Debian
# 12's own kernels, 6.1 and 6.12, each a QEMU guest with this machine's
# tree as its root (tests/vm/vm.sh), against that kernel's own truths
# (its cpu.stat, schedstat, rusage, perf). The tests are those named in
# tests/vm/guest-tests. Then the hardware counting tests in Debian 12's
# arm64 kernels on QEMU's emulated PMUv3 (tests/vm/arm64.sh: its series
# EMON_VM_ARM64, default 6.12 6.1; empty for none).
#   tests/vm/guests.sh [SERIES...]    (default: 6.1 6.12)
# EMON_VM_TESTS replaces the lists. Exit status: 0 when every guest
# passed, 1 otherwise.
set -u
cd "$(dirname "$0")/../.."
export OUTPUT=${OUTPUT:-build}
kernels=${*:-6.1 6.12}
# guest-tests: a test a line, with the series it runs in after it when
# not all of them
guest_tests() { # SERIES
	sed -e 's/#.*//' tests/vm/guest-tests |
		awk -v k="$1" 'NF == 1 { print $1 } NF > 1 { for (i = 2; i <= NF; i++) if ($i == k) print $1 }' | xargs
}
if [ "$(id -u)" -ne 0 ]; then
	echo "vm: SKIP the kernels' guests: they need root (9p of /, BPF inside)"
	exit 0
fi
ret=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
for k in $kernels; do
	t0=$(date +%s)
	tests=${EMON_VM_TESTS:-$(guest_tests "$k")}
	echo "vm: the counting tests on Debian 12's Linux $k (QEMU guest): $tests"
	# the guest's figures too (each check's "A vs B: P% (tolerance ...)"
	# line): its test logs live in its overlay and go with it
	tests/vm/vm.sh -k "$k" -t "${EMON_VM_LIMIT:-900}" -- bash -c '
		rm -rf "$OUTPUT/test-logs"	# the host'"'"'s, seen through the overlay
		tests/run.sh --integration "$1"; rc=$?
		echo "vm: the figures in Linux $(uname -r):"
		for f in "$OUTPUT"/test-logs/integration_*.log; do
			t=${f##*/integration_}
			awk -v t="${t%.log}" "fig { sub(/^ +/, \"\", fig); print \"   \" t \": \" \$0 \": \" fig; fig = \"\" }
				/tolerance/ { fig = \$0 }" "$f"
		done
		exit $rc' guest "$tests" | tee "$log"
	rc=${PIPESTATUS[0]}
	line="vm: Linux $k: $([ $rc -eq 0 ] && echo passed || echo "FAILED (exit $rc)") in $(($(date +%s) - t0)) s"
	echo "$line"
	# make test's summary: this guest, and the tests that failed in it
	[ -n "${TEST_SUMMARY:-}" ] && { echo "$line"; grep '^failed: ' "$log" | sed 's/^/    /'; } >>"$TEST_SUMMARY"
	[ $rc -eq 0 ] || ret=1
done
arm64=${EMON_VM_ARM64-6.12 6.1}
if [ -n "$arm64" ]; then
	tests/vm/arm64.sh $arm64 || ret=1
fi
exit $ret
