#!/usr/bin/env bash
# Boot one of Debian's own kernels in QEMU with this machine's tree as its
# root (read-only over 9p, under a tmpfs overlay) and run a command in it
# as root, in this directory; its output streams here, and its exit status
# is ours.
#   tests/vm/vm.sh [-a ARCH] [-k SERIES] [-c CPUS] [-m MIB] [-t SECONDS] -- COMMAND...
#     -a  x86 (default on x86-64) or arm64       -k  6.1 (default) or 6.12
#     -c  guest CPUs (2)   -m  guest memory (3072)   -t  limit for the whole run (900)
# EMON_VM_APPEND adds kernel arguments. EMON_VM_OUT=DIR shares DIR
# writable with the guest, at /out. EMON_VM_SHARE=DIR shares DIR
# read-only at /share, uncached (the root's 9p caches: a file the host
# rewrites there may read stale), as a VM's host shares --vm-energy's.
# The kernel package is fetched once (tests/vm/kernel.sh) into the VM cache
# ($OUTPUT/vm, or EMON_VM_CACHE), with an initramfs made from
# busybox-static and the kernel's own 9p, virtio and overlay modules. The
# guest runs under TCG: nested KVM hangs or fails its MSRs inside some
# hypervisors (Firecracker here); EMON_VM_ACCEL=kvm tries it. The x86
# guest's TCG is single-threaded (EMON_VM_TCG_THREAD=multi for QEMU's
# default): with a thread per vCPU, Debian's 6.12 oopsed in 2 of 4 runs
# ("Oops: int3" at a static branch in __schedule, on both CPUs at once,
# while a test loaded its BPF), a vCPU running a stale translation of a
# text_poke_bp() breakpoint after the kernel had patched it out and
# synced every CPU; single-threaded, 0 in 5 (the 6.1 guest's tests then
# take 210-233 s here, 141 s before). arm64 runs
# under -icount shift=0, which gives QEMU's PMUv3 its inst_retired event;
# on an x86-64 host its shell and tools are Debian's busybox-static:arm64
# (tests/vm/debpkg.sh; EMON_VM_BUSYBOX_ARM64 another), and its programs
# the tree's cross-built ones (make cross-arm64) with the :arm64 libraries
# of the tree's multiarch directories (tests/vm/arm64.sh).
# Exit status: the command's; 124 past the limit; 125 when the guest did
# not boot or never ran the command (then the console's last lines).
set -uo pipefail
cd "$(dirname "$0")/../.."
here=$PWD
arch=x86 series=6.1 cpus=2 mem=3072 limit=900
[ "$(uname -m)" = aarch64 ] && arch=arm64
die() { echo "vm: $*" >&2; exit 2; }
while getopts a:k:c:m:t: o; do
	case $o in
	a) arch=$OPTARG ;; k) series=$OPTARG ;; c) cpus=$OPTARG ;;
	m) mem=$OPTARG ;; t) limit=$OPTARG ;; *) die "usage: see the head of $0" ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || die "no command to run in the guest"
[ "$(id -u)" -eq 0 ] || die "needs root (a 9p share of / as root)"

kdir=$(tests/vm/kernel.sh "$arch" "$series") || exit 125
kver=$(ls "$kdir/lib/modules" | head -1)
vmlinuz=$(ls "$kdir"/boot/vmlinuz-* | head -1)

case $arch in
# x86: the TSC as the clocksource (tsc=reliable skips its watchdog, which
# TCG's timing fails): the HPET the kernel falls back to costs an
# emulated MMIO read for every clock read (each switch's, the BPF
# program's), which made a 2 s burner 2.8 s and cpu-clock 2.5% off the
# task's own rusage there, 1.2% with the TSC
x86) qemu=qemu-system-x86_64 bb=/bin/busybox
     machine="-M q35" console=ttyS0 kargs="tsc=reliable" ;;
arm64) qemu=qemu-system-aarch64 bb=${EMON_VM_BUSYBOX_ARM64:-}
       if [ -z "$bb" ]; then
	       bb=$(tests/vm/debpkg.sh busybox-static:arm64)/bin/busybox || exit 125
       fi
       # a Neoverse N1 (Graviton2's, Ampere Altra's core), which libpfm4
       # knows by its MIDR (max's is QEMU's own); EMON_VM_CPU another
       machine="-M virt,gic-version=3 -cpu ${EMON_VM_CPU:-neoverse-n1}" console=ttyAMA0 kargs= ;;
esac
command -v $qemu >/dev/null || die "$qemu not installed (tools/install-deps.sh --with-test)"
[ -x "$bb" ] || die "no static busybox for $arch ($bb): apt-get install busybox-static"

# The initramfs of this kernel: busybox, tests/vm/init, and the modules the
# init loads, with what they need first (modules.dep), uncompressed for
# busybox's insmod.
initrd=$kdir/initrd.cpio
if [ ! -e "$initrd" ] || [ tests/vm/init -nt "$initrd" ] || [ tests/vm/vm.sh -nt "$initrd" ]; then
	tmp=$(mktemp -d) || exit 125
	mkdir -p "$tmp"/{bin,dev,proc,sys,lib/modules}
	cp "$bb" "$tmp/bin/busybox" && cp tests/vm/init "$tmp/init" && chmod 755 "$tmp/init"
	mdir=$kdir/lib/modules/$kver
	want="virtio virtio_ring virtio_pci virtio_pci_modern_dev virtio_pci_legacy_dev
	      virtio_mmio netfs fscache 9pnet 9pnet_virtio 9p overlay"
	seen=" "
	add() {	# a module, after what it depends on
		local rel dep
		rel=$(grep -E "(^|/)$1\.ko(\.xz|\.zst|\.gz)?:" "$mdir/modules.dep" | cut -d: -f1)
		[ -n "$rel" ] || return 0	# built in
		[[ $seen == *" $rel "* ]] && return 0
		for dep in $(grep -E "^$rel:" "$mdir/modules.dep" | cut -d: -f2); do
			dep=${dep##*/}; add "${dep%%.ko*}"
		done
		seen="$seen$rel "
		local out=$tmp/lib/modules/${rel##*/}
		case $rel in
		*.xz) xz -dc "$mdir/$rel" >"${out%.xz}" ;;
		*.zst) zstd -qdc "$mdir/$rel" >"${out%.zst}" ;;
		*.gz) gzip -dc "$mdir/$rel" >"${out%.gz}" ;;
		*) cp "$mdir/$rel" "$out" ;;
		esac
		out=${rel##*/}; echo "${out%.ko*}.ko" >>"$tmp/modules.order"
	}
	: >"$tmp/modules.order"
	for m in $want; do add "$m"; done
	# uncompressed: the kernel takes a plain archive after it (the run's)
	# without the alignment a compressed one would need
	(cd "$tmp" && find . | cpio -o -H newc --quiet) >"$initrd.tmp" &&
		mv "$initrd.tmp" "$initrd"
	rm -rf "$tmp"
fi

# This run's command, in an archive of its own after the initramfs.
run=$(mktemp -d) || exit 125
trap 'rm -rf "$run"' EXIT
{
	printf 'cd %q || exit 125\n' "$here"
	for v in OUTPUT EMON TOOLS EMON_SWITCH_EVENTS; do
		[ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf '%q ' "$@"; echo
} >"$run/emon-run"
echo "$here/tests/vm/guest.sh" >"$run/emon-guest"
# the guest's shell: this tree's bash, or busybox where the tree's
# programs are of another architecture (tests/vm/init)
shell=/bin/bash
case $arch/$(uname -m) in x86/x86_64 | arm64/aarch64) ;; *) shell=/.emon-bb/sh ;; esac
echo "$shell" >"$run/emon-shell"
(cd "$run" && printf 'emon-run\nemon-guest\nemon-shell\n' | cpio -o -H newc --quiet) >"$run/run.cpio"
cat "$initrd" "$run/run.cpio" >"$run/initrd"

accel=${EMON_VM_ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	# KVM only when asked (EMON_VM_ACCEL=kvm): nested KVM under some
	# hypervisors (Firecracker here) hangs the guest or fails its MSRs
fi
case $arch in arm64) extra=(-icount shift=0) ;; *) extra=() ;; esac
[ "$accel" = tcg ] && [ "$arch" = x86 ] && extra+=(-cpu max)
accel_opt=$accel
[ "$accel" = tcg ] && [ "$arch" = x86 ] && accel_opt=tcg,thread=${EMON_VM_TCG_THREAD:-single}
[ "$accel" = kvm ] && extra+=(-cpu host)
echo "vm: $series ($kver) on $arch, $cpus CPUs, $mem MiB, $accel_opt" >&2
log=$run/console
timeout --foreground -k 5 "$limit" $qemu $machine -accel "$accel_opt" "${extra[@]}" \
	-smp "$cpus" -m "$mem" -nodefaults -no-reboot -display none \
	-serial stdio -kernel "$vmlinuz" -initrd "$run/initrd" \
	-append "console=$console quiet loglevel=3 panic=-1 rdinit=/init $kargs ${EMON_VM_APPEND:-}" \
	-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
	${EMON_VM_OUT:+-virtfs local,path=$EMON_VM_OUT,mount_tag=out,security_model=none} \
	${EMON_VM_SHARE:+-virtfs local,path=$EMON_VM_SHARE,mount_tag=share,security_model=none,readonly=on} \
	</dev/null 2>&1 | tee "$log" | grep --line-buffered -v -E 'EMON_VM_EXIT [0-9]|sysrq: Power Off|reboot: Power down'
qrc=${PIPESTATUS[0]}
# anywhere in its line: a late kernel message may come first
rc=$(sed -n 's/.*EMON_VM_EXIT \([0-9]*\).*/\1/p' "$log" | tail -1)
if [ -n "$rc" ]; then
	exit "$rc"
fi
if [ "$qrc" -eq 124 ]; then
	echo "vm: the guest ran past ${limit}s" >&2
	exit 124
fi
echo "vm: the guest ended without an exit status (qemu exit $qrc); its console's last lines:" >&2
tail -30 "$log" | sed 's/^/vm: | /' >&2
exit 125
