#!/bin/sh
# Install the Debian packages emon-perf needs to build and test, only those
# that are missing. Used by the Makefile (make deps) and by .ci/run.
set -e
pkgs="make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev libpfm4-dev bpftool
pkg-config libcmocka-dev libjson-c-dev libmicrohttpd-dev libcurl4-openssl-dev
libncurses-dev libyaml-dev libcrypt-dev libgnutls28-dev libsensors-dev linux-perf python3
procps"
# make test also builds the libFuzzer harnesses (clang's runtime: libFuzzer,
# ASan, UBSan); gcc's own sanitizer runtimes come with gcc
pkgs="$pkgs libclang-rt-dev"
# make test: a Prometheus server and promtool scrape /metrics (curl too);
# PyYAML reads the Kubernetes DaemonSet; make test-loaded: stress-ng; the
# man pages are checked with groff and man; top is driven in tmux;
# --sched's histograms are held against libbpf-tools' runqlat; openssl
# makes serve_tls's certificates (python3's crypt module, in Debian 12's
# 3.11, its bcrypt hashes); systemd's systemd-analyze checks the unit and
# scores its exposure; containers of real runtimes (docker.io brings
# containerd) from a busybox-static image
[ "${1:-}" = "--with-test" ] && pkgs="$pkgs chromium prometheus curl python3-yaml stress-ng groff-base man-db tmux libbpf-tools openssl systemd
docker.io podman runc busybox-static qemu-system-x86 kmod cpio xz-utils"
# make test's arm64 guest (tests/vm/arm64.sh): the cross compiler, the
# :arm64 libraries emon-perf links and Debian's arm64 perf needs (multiarch,
# beside this machine's), QEMU's arm64 system; installed apart below, so
# that where they cannot be had the arm64 tests skip rather than all fail
arm64=
if [ "${1:-}" = "--with-test" ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
	arm64="gcc-aarch64-linux-gnu qemu-system-arm"
	for p in libbpf-dev libelf-dev zlib1g-dev libpfm4-dev libjson-c-dev libmicrohttpd-dev \
		libcurl4-openssl-dev libncurses-dev libyaml-dev libcrypt-dev libgnutls28-dev \
		libsensors-dev libbabeltrace1 libcap2 libdw1 liblzma5 libnuma1 libopencsd1 libperl5.36 \
		libpython3.11 libslang2 libunwind8 libzstd1; do
		arm64="$arm64 $p:arm64"
	done
fi
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
missing_arm64=
for p in $arm64; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing_arm64="$missing_arm64 $p"
done
[ -z "$missing$missing_arm64" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	[ -z "$missing" ] && exit 0	# the arm64 guest's: its tests skip
	echo "install-deps: missing packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# the packages' own services (dockerd, containerd, prometheus) are not
# started: the tests start private instances of what they need
rcd=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d &&
		rcd=/usr/sbin/policy-rc.d
	trap 'rm -f $rcd' EXIT
fi
[ -n "$missing_arm64" ] && ! dpkg --print-foreign-architectures | grep -qx arm64 &&
	dpkg --add-architecture arm64
apt-get update -qq
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing" >&2
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ -n "$missing_arm64" ]; then
	echo "install-deps: installing$missing_arm64" >&2
	apt-get install -y -qq --no-install-recommends $missing_arm64 >/dev/null ||
		echo "install-deps: the arm64 packages could not be installed: the arm64 guest's tests will skip" >&2
fi
