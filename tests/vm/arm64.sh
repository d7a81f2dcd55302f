#!/usr/bin/env bash
# The hardware counting path on a real kernel PMU driver: Debian 12's
# arm64 kernel under qemu-system-aarch64 -M virt -cpu max -icount shift=0,
# whose emulated PMUv3 (armv8_pmuv3, 7 counters) counts cpu_cycles (the
# 1 GHz virtual clock) and inst_retired. The arm64 emon-perf (make
# cross-arm64) runs in the guest (tests/vm/arm64-guest.sh) beside its
# references on the same work: per-task inherited counters
# (tests/vm/taskcount.c) and Debian's arm64 perf (linux-perf:arm64);
# tests/vm/arm64-check.py then holds them against each other here. The
# workload is tools/burn, built static: its start (no libraries to load
# over 9p) costs little beside its steady spin.
#   tests/vm/arm64.sh [SERIES...]    (default: 6.12 6.1)
# Skips, saying why, where the cross toolchain, the :arm64 libraries,
# qemu-system-aarch64 or the arm64 packages cannot be had. Exit status: 0
# when every guest passed (or all skipped), 1 otherwise.
set -u
cd "$(dirname "$0")/../.."
export OUTPUT=${OUTPUT:-build}
kernels=${*:-6.12 6.1}
skip() { echo "vm: SKIP the arm64 guests: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "they need root (9p of /, BPF inside)"
[ "$(uname -m)" = x86_64 ] || skip "the arm64 guest is cross-built from x86-64 (this is $(uname -m))"
command -v aarch64-linux-gnu-gcc >/dev/null ||
	skip "no aarch64-linux-gnu-gcc (tools/install-deps.sh --with-test installs gcc-aarch64-linux-gnu)"
command -v qemu-system-aarch64 >/dev/null || skip "no qemu-system-aarch64 (package qemu-system-arm)"
dpkg --print-foreign-architectures | grep -qx arm64 ||
	skip "dpkg has no arm64 architecture (dpkg --add-architecture arm64; tools/install-deps.sh --with-test)"
for f in /lib/ld-linux-aarch64.so.1 /usr/lib/aarch64-linux-gnu/libbpf.so.1 \
	/usr/lib/aarch64-linux-gnu/libpfm.so.4; do
	[ -e "$f" ] || skip "no $f (the :arm64 libraries: tools/install-deps.sh --with-test)"
done
B=$PWD/$OUTPUT/arm64
[ "${OUTPUT:0:1}" = / ] && B=$OUTPUT/arm64
t0=$(date +%s)
mkdir -p "$OUTPUT" && make --no-print-directory OUTPUT="$OUTPUT" cross-arm64 >"$OUTPUT/arm64-build.log" 2>&1 || {
	tail -20 "$OUTPUT/arm64-build.log"; echo "vm: FAIL make cross-arm64 (its log: $OUTPUT/arm64-build.log)"; exit 1; }
mkdir -p "$B/tests" && aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror \
	tests/vm/taskcount.c -o "$B/tests/taskcount" &&
	aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -I. tools/burn.c -o "$B/tests/burn" -lm ||
	{ echo "vm: FAIL building taskcount and a static burn"; exit 1; }
perf_dir=$(tests/vm/debpkg.sh linux-perf:arm64) || skip "linux-perf:arm64 cannot be fetched"
echo "vm: arm64 build in $(($(date +%s) - t0)) s"
ret=0
for k in $kernels; do
	t0=$(date +%s)
	out=$(mktemp -d) || exit 1
	chmod 755 "$out"
	echo "vm: the hardware counting tests on Debian 12's arm64 Linux $k (QEMU, emulated PMUv3)"
	EMON_VM_OUT=$out tests/vm/vm.sh -a arm64 -k "$k" -t "${EMON_VM_LIMIT:-900}" -- \
		sh tests/vm/arm64-guest.sh "$B" "$perf_dir/usr/bin/perf"
	rc=$?
	if [ $rc -eq 125 ] && [ ! -s "$out/rc" ]; then
		echo "vm: FAIL the arm64 $k guest did not run its tests"
	elif [ $rc -ne 0 ]; then
		echo "vm: FAIL the arm64 $k guest's script exited $rc"
	fi
	python3 tests/vm/arm64-check.py "$out" | tee "$out/checks"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	line="vm: arm64 Linux $k: $([ $rc -eq 0 ] && echo passed || echo "FAILED") in $(($(date +%s) - t0)) s"
	echo "$line"
	# make test's summary: this guest, and the checks that failed in it
	[ -n "${TEST_SUMMARY:-}" ] && { echo "$line"; grep '^FAIL' "$out/checks" | sed 's/^/    /'; } >>"$TEST_SUMMARY"
	[ $rc -eq 0 ] || ret=1
	[ -n "${EMON_VM_KEEP:-}" ] && echo "vm: its outputs kept in $out" || rm -rf "$out"
done
exit $ret
