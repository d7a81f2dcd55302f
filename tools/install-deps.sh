#!/bin/sh
# Install the Debian packages emon-perf needs to build and test, only those
# that are missing. Used by the Makefile (make deps) and by .ci/run.
set -e
pkgs="make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev libpfm4-dev bpftool
pkg-config libcmocka-dev libjson-c-dev libmicrohttpd-dev libcurl4-openssl-dev
libncurses-dev libyaml-dev libcrypt-dev libgnutls28-dev linux-perf python3
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
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
	exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# the packages' own services (dockerd, containerd, prometheus) are not
# started: the tests start private instances of what they need
rcd=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d &&
		rcd=/usr/sbin/policy-rc.d
	trap 'rm -f $rcd' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
