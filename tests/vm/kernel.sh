#!/usr/bin/env bash
# Fetch one of Debian's own kernels once and unpack it under the VM cache.
#   tests/vm/kernel.sh ARCH SERIES   (ARCH: x86 | arm64; SERIES: 6.1 | 6.12)
# Prints the directory that holds boot/vmlinuz-* and lib/modules/*.
# The package is the newest of that series that apt knows: 6.1 is Debian
# 12's own (linux-image-6.1.0-N-ARCH), 6.12 the one its security archive
# carries for it (linux-image-6.12.N+deb12-ARCH-unsigned). EMON_VM_DEB=FILE
# boots a .deb you already have instead.
# Debian's packages only: nothing else is downloaded.
set -euo pipefail
export PATH=$PATH:/usr/sbin:/sbin
cd "$(dirname "$0")/../.."
arch=${1:?usage: kernel.sh ARCH SERIES} series=${2:?usage: kernel.sh ARCH SERIES}
cache=${EMON_VM_CACHE:-${OUTPUT:-build}/vm}
die() { echo "vm: $*" >&2; exit 2; }
case $arch in
x86) darch=amd64 ;;
arm64) darch=arm64 ;;
*) die "unknown architecture '$arch' (x86, arm64)" ;;
esac
case $series in
6.1) pat="^linux-image-6\.1\.0-[0-9]+-$darch\$" ;;
6.12) pat="^linux-image-6\.12\.[0-9]+\+deb12-$darch-unsigned\$" ;;
*) die "unknown kernel series '$series' (6.1, 6.12)" ;;
esac
mkdir -p "$cache/deb"
if [ -n "${EMON_VM_DEB:-}" ]; then
	deb=$EMON_VM_DEB
else
	[ "$darch" = "$(dpkg --print-architecture)" ] || apt_arch=":$darch"
	pkg=$(apt-cache pkgnames linux-image- 2>/dev/null | grep -E "$pat" | sort -V | tail -1)
	if [ -z "$pkg" ]; then	# apt's lists may be older than the cache
		deb=$(ls "$cache"/deb/*.deb 2>/dev/null | grep -E "/${pat:1:-1}_" | sort -V | tail -1) ||
			die "no $series kernel for $darch known to apt (apt-get update; for arm64: dpkg --add-architecture arm64)"
	else
		deb=$(ls "$cache"/deb/"${pkg}"_*.deb 2>/dev/null | tail -1) || true
		if [ -z "$deb" ]; then
			# apt's lists may name a version the archive has replaced:
			# then once more after apt-get update
			get() { (cd "$cache/deb" && apt-get download -q "$pkg${apt_arch:-}" 2>&1 |
				grep -v 'unsandboxed' >&2; exit "${PIPESTATUS[0]}"); }
			get || { apt-get update -qq >&2 && get; } || die "apt-get download $pkg failed"
			deb=$(ls "$cache"/deb/"${pkg}"_*.deb | tail -1)
		fi
	fi
fi
dir=$cache/$(basename "$deb" .deb)
if [ ! -e "$dir/.unpacked" ]; then
	rm -rf "$dir"
	dpkg-deb -x "$deb" "$dir" || die "cannot unpack $deb"
	# modules.dep, which the package's postinst would make
	depmod -b "$dir" "$(ls "$dir/lib/modules")" || die "depmod failed on $dir"
	touch "$dir/.unpacked"
fi
echo "$dir"
