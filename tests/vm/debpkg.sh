#!/usr/bin/env bash
# Fetch one Debian package (any architecture apt knows: busybox-static:arm64,
# linux-perf:arm64) once into the VM cache and unpack it there, as
# kernel.sh does the kernels; prints the directory it is unpacked in.
#   tests/vm/debpkg.sh PACKAGE[:ARCH]
# Debian's packages only: nothing else is downloaded.
set -euo pipefail
cd "$(dirname "$0")/../.."
pkg=${1:?usage: debpkg.sh PACKAGE[:ARCH]}
cache=${EMON_VM_CACHE:-${OUTPUT:-build}/vm}
die() { echo "vm: $*" >&2; exit 2; }
name=${pkg%%:*} arch=${pkg#*:}
[ "$arch" = "$pkg" ] && arch=$(dpkg --print-architecture)
mkdir -p "$cache/deb"
deb=$(ls "$cache/deb/${name}"_*_"$arch".deb 2>/dev/null | sort -V | tail -1) || true
if [ -z "$deb" ]; then
	get() { (cd "$cache/deb" && apt-get download -q "$name:$arch" 2>&1 |
		grep -v 'unsandboxed' >&2; exit "${PIPESTATUS[0]}"); }
	get || { apt-get update -qq >&2 && get; } ||
		die "apt-get download $name:$arch failed (for arm64: dpkg --add-architecture arm64; apt-get update)"
	deb=$(ls "$cache/deb/${name}"_*_"$arch".deb | sort -V | tail -1)
fi
dir=$cache/$(basename "$deb" .deb)
if [ ! -e "$dir/.unpacked" ]; then
	rm -rf "$dir"
	dpkg-deb -x "$deb" "$dir" || die "cannot unpack $deb"
	touch "$dir/.unpacked"
fi
echo "$dir"
